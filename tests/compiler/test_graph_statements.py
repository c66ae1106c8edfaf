"""Python statements in graph code as MindSpore 2.10's parser treats them (the "Graph Mode Syntax - Python
Statements" tutorial; each expectation checked against MindSpore 2.10): `with` on jit_class objects, generator
expressions giving lists, one-iterator comprehensions only, globals read before a local assignment, and
UnboundLocalError for variables defined in one branch or only inside a `while` body."""
import numpy as np
import pytest

import openspore as ms
from openspore import nn

SCALE = ms.tensor(np.ones((2, 3), np.float32))


@ms.jit_class
class _Doubler:
    def __init__(self):
        self.num = ms.tensor([2])

    def __enter__(self):
        return self.num * 2

    def __exit__(self, exc_type, exc_value, traceback):
        return self.num * 4


class _Plain:
    def __enter__(self):
        return 1

    def __exit__(self, *args):
        return None


def test_with_on_a_jit_class_object_runs_enter_and_exit():
    class Net(nn.Cell):
        @ms.jit
        def construct(self):
            res = 1
            obj = _Doubler()
            with obj as sample:
                res += sample
            return res, obj.num

    out1, out2 = Net()()
    assert out1.asnumpy().tolist() == [5] and out2.asnumpy().tolist() == [2]


def test_with_on_another_object_is_a_type_error():
    @ms.jit
    def f(x):
        with _Plain() as one:
            x = x + one
        return x

    with pytest.raises(TypeError, match="Only support jit_class instance"):
        f(ms.tensor(1.0))


def test_with_on_a_builtin_result_is_refused_before_the_call(tmp_path):
    # MindSpore 2.10 raises TypeError while compiling `with open(...)`; the file is never opened, so a missing
    # file is not a FileNotFoundError and an existing one is not touched
    missing = str(tmp_path / "missing.txt")

    @ms.jit
    def f(x):
        with open(missing) as handle:
            handle.read()
        return x

    with pytest.raises(TypeError, match="Only support jit_class instance.*builtin open"):
        f(ms.tensor(1.0))


def test_generator_expression_gives_a_list():
    @ms.jit
    def f():
        return (x * x for x in range(1, 11) if x % 2 == 0)

    assert f() == [4, 16, 36, 64, 100]


def test_comprehension_over_two_iterators_is_a_type_error():
    @ms.jit
    def f():
        return [y for x in ((1, 2), (3, 4)) for y in x]

    with pytest.raises(TypeError, match="supports 1 'comprehension' in ListComp/GeneratorExp, but got 2"):
        f()


def test_a_global_augmented_in_the_graph_starts_from_its_value():
    @ms.jit
    def f():
        for i in (1, 2, 3):
            SCALE += i  # noqa: F823  (graph code reads the global first, as MindSpore does)
        return SCALE

    np.testing.assert_array_equal(f().asnumpy(), np.full((2, 3), 7.0, np.float32))
    np.testing.assert_array_equal(SCALE.asnumpy(), np.ones((2, 3), np.float32))  # the global is unchanged


def test_variable_of_one_branch_only_is_unbound():
    @ms.jit
    def f(x, y):
        if (x > y).any():
            z = x + 1
        return z

    with pytest.raises(UnboundLocalError, match="'z'"):
        f(ms.tensor([1, 4]), ms.tensor([0, 3]))


def test_variable_of_a_while_body_used_after_the_loop_is_unbound():
    @ms.jit
    def f(x, y):
        while x < y:
            x += 1
            z = x + y
        return z

    with pytest.raises(UnboundLocalError, match="defined in the 'while' loop body cannot be used outside"):
        f(1, 5)


def test_partial_with_keyword_arguments_in_graph_code():
    def add(x, y):
        return x + y

    @ms.jit
    def f():
        add_ = ms.ops.partial(add, x=2)
        return add_(y=3), add_(y=5)

    assert f() == (5, 7)


def test_lazy_builtins_returned_from_a_graph_are_tuples():
    @ms.jit
    def f():
        return zip((1, 2, 3), (4, 5, 6)), range(0, 6, 2), enumerate((100, 200), 3), map(lambda a: a + 1, [0, 1])

    for _ in range(2):  # a cached graph gives the same values again
        assert f() == (((1, 4), (2, 5), (3, 6)), (0, 2, 4), ((3, 100), (4, 200)), [1, 2])


def test_calling_a_jit_class_object_without_call_names_it():
    @ms.jit_class
    class Inner:
        def __init__(self, number):
            self.number = number

    @ms.jit
    def f(x):
        return Inner(2)(x)

    with pytest.raises(ValueError, match="MsClassObject: 'Inner' has no __call__ function, please check the code."):
        f(ms.tensor(1))
