"""Graph mode refuses what MindSpore's graph compiler refuses, with MindSpore's exception types (checked against
MindSpore 2.10; tests/compat/recorded/graph_mode_errors.py compares the whole list), and `max_call_depth` /
`set_recursion_limit` bound how deep graph code may call."""
import numpy as np
import pytest

import openspore as ms
from openspore import nn, ops
from openspore.compiler.frontend.errors import GraphSyntaxError

X = ms.Tensor(np.array([1.0, 2.0, 3.0], np.float32))


@pytest.fixture(autouse=True)
def graph_mode():
    ms.set_context(mode=ms.GRAPH_MODE)
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE, max_call_depth=1000)


def _cell(construct):
    return type("Net", (nn.Cell,), {"construct": construct})()


def test_syntax_outside_the_graph_subset_is_a_runtime_error():
    def del_(self, x):
        y = x
        del y
        return x

    def while_else(self, x):
        i = 0
        while i < 2:
            i += 1
        else:
            x = x + 1
        return x

    def walrus(self, x):
        if (n := 2) > 1:
            x = x * n
        return x

    def set_comp(self, x):
        s = {i for i in range(3)}
        return x + len(s)

    for construct, what in ((del_, "statement 'Delete'"), (while_else, "'while...else...'"),
                            (walrus, "'NamedExpr'"), (set_comp, "'SetComp'")):
        with pytest.raises(RuntimeError, match=what) as info:
            _cell(construct)(X)
        assert isinstance(info.value, GraphSyntaxError)


def test_with_is_a_type_error():
    class Plain:  # not a jit_class: MindSpore's graph code enters only jit_class objects
        def __enter__(self):
            return self

        def __exit__(self, *args):
            return None

    def with_(self, x):
        with Plain():
            x = x + 1
        return x
    with pytest.raises(TypeError, match="Only support jit_class instance"):
        _cell(with_)(X)


def test_tensor_values_where_python_values_are_needed():
    def range_of_tensor(self, x):
        s = 0
        for i in range(x.sum()):
            s = s + i
        return s

    def shape_of_tensors(self, x):
        return ops.zeros((x.sum(),))
    with pytest.raises(TypeError, match="used as a Python integer"):
        _cell(range_of_tensor)(X)
    with pytest.raises(ValueError, match="int\\(\\) of a traced tensor"):
        _cell(shape_of_tensors)(X)


def test_calling_what_is_not_callable_is_a_value_error_and_passing_values_still_works():
    def call_int(self, x):
        a = 3
        return a(x)

    def pass_tensor(self, x):
        f = lambda v: v * 2  # noqa: E731
        return f(x)
    with pytest.raises(ValueError, match="not callable: a int"):
        _cell(call_int)(X)
    assert _cell(pass_tensor)(X).asnumpy().tolist() == [2.0, 4.0, 6.0]


class Recurse(nn.Cell):
    def __init__(self, n):
        super().__init__()
        self.n = n

    def f(self, x, n):
        if n == 0:
            return x
        return self.f(x + 1, n - 1)

    def construct(self, x):
        return self.f(x, self.n)


def test_max_call_depth_stops_a_deep_recursion():
    assert Recurse(60)(X).asnumpy().tolist() == [61.0, 62.0, 63.0]
    with pytest.raises(RuntimeError, match="Exceed function call depth limit 1000"):
        Recurse(3000)(X)
    ms.set_context(max_call_depth=50)
    with pytest.raises(RuntimeError, match="Exceed function call depth limit 50"):
        Recurse(40)(X)
    assert Recurse(10)(X).asnumpy().tolist() == [11.0, 12.0, 13.0]


def test_set_recursion_limit_is_the_same_limit():
    ms.set_recursion_limit(50)
    assert ms.get_context("max_call_depth") == 50
    with pytest.raises(RuntimeError, match="Exceed function call depth limit 50"):
        Recurse(60)(X)
    ms.set_recursion_limit(1000)
    assert Recurse(60)(X).asnumpy().tolist() == [61.0, 62.0, 63.0]
    with pytest.raises(ValueError):
        ms.set_recursion_limit(0)
    with pytest.raises(TypeError):
        ms.set_recursion_limit(1.5)
