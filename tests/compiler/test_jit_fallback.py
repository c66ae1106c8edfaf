"""JIT fallback: Python that needs a traced tensor's value (asnumpy, numpy on tensors, int/float/bool through
builtins, a `raise` under a tensor condition) runs in Python at run time, as MindSpore's JIT fallback (LAX) runs
it; what MindSpore's compiler rejects still raises. Plus the builtins graph code reads as MindSpore does
(graph_builtins.py)."""
import numpy as np
import pytest

import openspore as ms
from openspore import nn, ops
from openspore.compiler.frontend import GraphCaptureError


def _t(values, dtype=np.float32):
    return ms.Tensor(np.array(values, dtype))


def test_asnumpy_and_numpy_on_a_traced_tensor_run_in_python():
    @ms.jit
    def f(x):
        y = np.exp(x.asnumpy()) + np.array([1.0], np.float32)
        return ms.Tensor(y) * 2, len(x.asnumpy()), sum(x.asnumpy())

    x = _t([0.0, 1.0])
    out, n, total = f(x)
    np.testing.assert_allclose(out.asnumpy(), (np.exp([0.0, 1.0]) + 1) * 2, rtol=1e-6)
    assert n == 2 and total == 1.0
    assert "asnumpy" in f.graph_cache.eager_reason
    out, _, _ = f(_t([2.0, 3.0]))  # the next call runs in Python again, with its own values
    np.testing.assert_allclose(out.asnumpy(), (np.exp([2.0, 3.0]) + 1) * 2, rtol=1e-6)


def test_int_float_and_bool_through_builtins_of_traced_tensors(graph_mode):
    class Net(nn.Cell):
        def construct(self, x, y):
            return int(x), float(y), all((x, None)), max(1, y)

    a, b, c, d = Net()(ms.Tensor(2), _t([-1.5]))
    assert (a, b, c) == (2, -1.5, False)
    assert isinstance(a, int) and isinstance(b, float)
    assert d == 1


def test_a_helper_method_asking_for_values_inside_a_graph_mode_cell(graph_mode):
    class Net(nn.Cell):
        def to_host(self, a, b):
            return np.exp(a.asnumpy() + b.asnumpy())

        def construct(self, a, b):
            return self.to_host(a, b)

    out = Net()(ms.Tensor(np.array(1), ms.int32), ms.Tensor(np.array(2), ms.int32))
    np.testing.assert_allclose(out, np.exp(3.0), rtol=1e-6)


def test_grad_of_a_function_that_falls_back():
    def f(x):
        scale = float(x.asnumpy().sum())  # a Python number: no gradient flows through it
        return (x * x).sum() * scale

    x = _t([1.0, 2.0])
    g = ms.grad(ms.jit(f))(x)
    np.testing.assert_allclose(g.asnumpy(), 2 * np.array([1.0, 2.0]) * 3.0, rtol=1e-6)


def test_what_mindspore_rejects_still_raises(graph_mode):
    class RangeOfTensor(nn.Cell):
        def construct(self, x):
            s = 0
            for i in range(x.sum()):
                s = s + i
            return s

    class ShapeOfTensors(nn.Cell):
        def construct(self, x):
            return ops.zeros((x.sum(),))

    x = ms.Tensor(np.array([1, 2], np.int32))
    with pytest.raises(TypeError, match="Python integer"):
        RangeOfTensor()(x)
    with pytest.raises(ValueError, match="not known while the graph is being compiled"):
        ShapeOfTensors()(x)


def test_raise_under_a_tensor_condition_raises_only_when_taken(graph_mode):
    class Checked(nn.Cell):
        def construct(self, x):
            if x.sum() > 100:
                raise ValueError(f"too big: {x.sum()}")
            return x * 2

    net = Checked()
    np.testing.assert_allclose(net(_t([1.0, 2.0])).asnumpy(), [2.0, 4.0])
    with pytest.raises(ValueError, match="too big"):
        net(_t([100.0, 2.0]))


def test_an_error_inside_an_op_under_a_tensor_condition_is_still_a_compile_error(graph_mode):
    class BadBranch(nn.Cell):
        def construct(self, x):
            if x.sum() > 100:
                x = ops.reshape(x, (5, 5))
            return x

    with pytest.raises(ValueError):
        BadBranch()(_t([1.0, 2.0]))


def test_graph_builtins_type_round_map_filter():
    @ms.jit
    def f(x):
        return (type(x) is ms.Tensor, isinstance(x, type(x)), round(x), round(2.567, 1),
                map(lambda v: v * 2, (1, 2)), filter(lambda v: v > 1, [1, 2, 3]))

    is_tensor, same, rounded, number, mapped, kept = f(_t([1.4, 2.6]))
    assert is_tensor and same and number == 2.6
    np.testing.assert_allclose(rounded.asnumpy(), [1.0, 3.0])
    assert mapped == (2, 4) and kept == [2, 3]  # filter gives a list (over a tuple too), as MindSpore 2.10
    assert f.graph_cache.eager_reason is None  # all of it compiled


def test_round_of_a_tensor_takes_no_digits():
    @ms.jit
    def f(x):
        return round(x, 1)

    with pytest.raises(TypeError, match="When applying round\\(\\) to tensor, only one tensor is supported"):
        f(_t([1.25]))


def test_map_over_numpy_values_stays_python():
    @ms.jit
    def f():
        x = ms.Tensor(np.array([1, 2])).asnumpy()
        return map(lambda v: v + 1, x)

    out = f()
    assert isinstance(out, map) and list(out) == [2, 3]


def test_trace_itself_still_reports_the_value_request():
    from openspore.compiler.frontend import trace

    def f(x):
        return x.asnumpy()

    with pytest.raises(GraphCaptureError) as info:
        trace(f, (_t([1.0]),))
    assert info.value.runs_in_python


def test_print_in_graph_code_prints_each_calls_values(graph_mode, capsys):
    class Net(nn.Cell):
        def construct(self, x):
            print("x:", x)
            ops.print_("twice:", x * 2)
            return f"{x.sum()}", x + 1

    net = Net()
    for values in ([1.0, 2.0], [5.0, 6.0]):
        text, y = net(_t(values))
        np.testing.assert_allclose(y.asnumpy(), np.array(values) + 1)
        assert text == str(_t(values).sum())
    out = capsys.readouterr().out
    assert "Symbolic" not in out
    # the f-string makes the function run in Python (MindSpore formats it when the graph runs): print is Python's
    # there, ops.print_ PyNative's Print (a graph without the f-string keeps Print nodes: test_graph_print.py)
    assert out.count("x:") == 2 and "[1. 2.]" in out and "[5. 6.]" in out
    assert "value= [ 1.00000000e+01,  1.20000000e+01]" in out
