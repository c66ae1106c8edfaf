"""GRAPH_MODE on Python objects as MindSpore 2.10 treats them (each expectation was checked against MindSpore 2.10):
recursion stopped by a tensor's value, module-global lists returned from or changed in a graph, classmethods and
staticmethods called in construct."""
import importlib

import numpy as np
import pytest

import openspore as ms
from openspore import nn

jit_runtime = importlib.import_module("openspore.runtime.jit")


# ---- recursion on a tensor condition ---------------------------------------------------------------------------
def _count_down(x):
    if x > 0:
        return _count_down(x - 1) + 1
    return x


def _fact(n):
    if n <= 1:
        return n
    return n * _fact(n - 1)


def test_function_recursion_on_a_tensor_condition_gives_mindspores_values(graph_mode):
    class Net(nn.Cell):
        def construct(self, x):
            return _count_down(x)

    @ms.jit
    def fact(x):
        return _fact(x)

    assert int(Net()(ms.Tensor(3, ms.int32)).asnumpy()) == 3
    np.testing.assert_allclose(Net()(ms.Tensor([3.0], ms.float32)).asnumpy(), [3.0])
    assert float(fact(ms.Tensor(5.0)).asnumpy()) == 120.0


def test_method_recursion_on_a_tensor_condition_is_refused_at_the_call_depth_limit(graph_mode):
    class Net(nn.Cell):
        def down(self, x):
            if x > 0:
                return self.down(x - 1) + 1
            return x

        def construct(self, x):
            return self.down(x)

    with pytest.raises(RuntimeError, match=r"Exceed function call depth limit 1000, \(function call depth: 1001"):
        Net()(ms.Tensor(3.0, ms.float32))


def test_endless_python_recursion_is_still_refused(graph_mode):
    def forever(x, n):
        return forever(x, n)

    @ms.jit
    def f(x):
        return forever(x, 1)

    with pytest.raises(RuntimeError, match="Exceed function call depth"):
        f(ms.Tensor([1.0]))


# ---- module-global lists ---------------------------------------------------------------------------------------
GLOBAL_LIST = [1, 2, 3]
GLOBAL_WITH_TENSOR = [ms.Tensor(1), 2]
APPENDED = [1, 2, 3]


def test_a_returned_global_list_is_the_global_itself(graph_mode):
    @ms.jit
    def f():
        return GLOBAL_LIST

    @ms.jit
    def g(x):
        return GLOBAL_WITH_TENSOR, x + 1

    class Net(nn.Cell):
        def construct(self):
            return GLOBAL_LIST

    assert f() is GLOBAL_LIST
    assert g(ms.Tensor([1.0]))[0] is GLOBAL_WITH_TENSOR
    assert Net()() is GLOBAL_LIST


def test_a_global_list_changed_in_a_graph_keeps_its_contents(graph_mode):
    @ms.jit
    def f(x):
        APPENDED.append(x)
        return APPENDED

    for value in (4, 5):
        out = f(ms.Tensor(value))
        assert out is not APPENDED and out[:3] == [1, 2, 3] and int(out[3].asnumpy()) == value
        assert APPENDED == [1, 2, 3]


# ---- classmethods and staticmethods ----------------------------------------------------------------------------
class _Plain:
    @classmethod
    def twice(cls, x):
        return x * 2

    @staticmethod
    def thrice(x):
        return x * 3


class _ClassCalls(nn.Cell):
    @classmethod
    def twice(cls, x):
        return x * 2

    @classmethod
    def scaled(cls, x, y=1):
        return x * y

    @staticmethod
    def thrice(x):
        return x * 3

    def construct(self, x, which):
        if which == "self.twice":
            return self.twice(x)
        if which == "class.twice":
            return _ClassCalls.twice(x)
        if which == "plain.twice":
            return _Plain.twice(x)
        if which == "scaled":
            return self.scaled(x, y=3)
        if which == "self.thrice":
            return self.thrice(x)
        if which == "class.thrice":
            return _ClassCalls.thrice(x)
        return _Plain.thrice(x)


@pytest.mark.parametrize("which", ["self.twice", "class.twice", "plain.twice"])
def test_a_classmethod_call_is_refused_as_mindspore_refuses_it(graph_mode, which):
    with pytest.raises(TypeError, match="The parameters number of the function is 2, but the number of provided "
                                        "arguments is 1"):
        _ClassCalls()(ms.Tensor(1.0), which)


def test_a_classmethod_with_keywords_misses_its_first_parameter(graph_mode):
    with pytest.raises(RuntimeError, match="Miss argument input for parameter:x"):
        _ClassCalls()(ms.Tensor(1.0), "scaled")


@pytest.mark.parametrize("which", ["self.thrice", "class.thrice", "plain.thrice"])
def test_staticmethods_run_in_graphs(graph_mode, which):
    assert float(_ClassCalls()(ms.Tensor(1.0), which).asnumpy()) == 3.0


def test_classmethods_still_run_in_pynative():
    assert float(_ClassCalls()(ms.Tensor(1.0), "self.twice").asnumpy()) == 2.0
