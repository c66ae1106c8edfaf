"""Graph-mode control flow over values other than tensors, as MindSpore's compiler treats them: a branch on a
tensor may yield a function (called later), a tuple of Cells may be indexed by a tensor (switch_layer), a
tensor never joins a Python scalar (TypeError), and a condition computed from constants is decided while
compiling (so its branches need not agree)."""
import numpy as np
import pytest

import openspore as ms
from openspore import Tensor, context, jit, nn, ops
from openspore.common import dtype as mstype
from openspore.compiler.frontend import trace


def _pick_function(x):
    def add3(v):
        return v + 3

    def sub1(v):
        return v - 1

    def choose(v):
        if v < 5:
            return add3
        return sub1
    return choose(x)(x) * 2


def test_branches_yielding_functions_are_called_by_the_condition(graph_mode):
    f = jit(_pick_function)
    assert f(Tensor([10], mstype.int32)).asnumpy().tolist() == [18]
    assert f(Tensor([1], mstype.int32)).asnumpy().tolist() == [8]  # same compiled graph, other branch


def test_function_join_emits_an_if_and_differentiates():
    traced = trace(_pick_function, (Tensor(np.array([1.0], np.float32)),))
    assert "if" in [n.op_name for n in traced.graph.nodes]
    context.set_context(mode=context.GRAPH_MODE)
    try:
        grad = ops.grad(jit(_pick_function))(Tensor(np.array([7.0], np.float32)))
    finally:
        context.set_context(mode=context.PYNATIVE_MODE)
    assert grad.asnumpy().tolist() == [2.0]


class _Scale(nn.Cell):
    def __init__(self, k):
        super().__init__()
        self.k = k

    def construct(self, x):
        return x * self.k


class _SwitchLayer(nn.Cell):
    def __init__(self):
        super().__init__()
        self.layers = (_Scale(2.0), _Scale(3.0), nn.ReLU())
        self.blocks = nn.CellList([_Scale(5.0), _Scale(7.0)])

    def construct(self, x, i, j):
        return self.blocks[j](self.layers[i](x))


@pytest.mark.parametrize("i, j, expect", [(0, 0, [10.0, -10.0]), (1, 1, [21.0, -21.0]), (-1, -2, [5.0, 0.0]),
                                          (2, 1, [7.0, 0.0])])
def test_tuple_and_celllist_of_cells_indexed_by_a_tensor(graph_mode, i, j, expect):
    x = Tensor(np.array([1.0, -1.0], np.float32))
    out = _SwitchLayer()(x, Tensor(i, mstype.int32), Tensor(j, mstype.int32))
    assert out.asnumpy().tolist() == expect


def test_switch_layer_gradient_follows_the_chosen_cell(graph_mode):
    net = _SwitchLayer()
    x = Tensor(np.array([1.0, -1.0], np.float32))
    grad = ops.GradOperation()(net)(x, Tensor(1, mstype.int32), Tensor(0, mstype.int32))
    assert grad.asnumpy().tolist() == [15.0, 15.0]


def test_switch_layer_index_must_be_an_integer_tensor(graph_mode):
    with pytest.raises(TypeError, match="integer tensor"):
        _SwitchLayer()(Tensor(np.ones(2, np.float32)), Tensor(0.0, mstype.float32), Tensor(0, mstype.int32))


def test_tensor_and_scalar_do_not_join(graph_mode):
    @jit
    def returns(x):
        if x > 0:
            return x
        return 2

    @jit
    def assigns(x):
        out = 0
        if x > 0:
            out = x
        return out

    for f in (returns, assigns):
        with pytest.raises(TypeError, match="Cannot join the return values of different branches"):
            f(Tensor(3))


def test_scalars_still_join_into_a_tensor(graph_mode):
    @jit
    def f(x):
        z = 1
        if x > 5:
            z = 2
        return x + z
    assert f(Tensor(3)).asnumpy().item() == 4
    assert f(Tensor(7)).asnumpy().item() == 9


class _ConstCondition(nn.Cell):
    def __init__(self, a, b):
        super().__init__()
        self.a, self.b = a, b

    def construct(self, x):
        if self.a.all() == self.b:
            return self.a.any()   # shape ()
        return self.b             # shape (1,): no join needed, one branch is known to be taken


def test_condition_on_constants_is_decided_at_compile_time(graph_mode):
    net = _ConstCondition(Tensor([True, True, False]), Tensor([False]))
    assert net(Tensor(1)).asnumpy().item() is True
    names = [n.op_name for n in trace(net, (Tensor(1),)).graph.nodes]
    assert "if" not in names
    other = _ConstCondition(Tensor([True, True]), Tensor([False]))
    assert other(Tensor(1)).asnumpy().tolist() == [False]


def test_condition_on_a_parameter_is_not_folded():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.p = ms.Parameter(Tensor(1.0), name="p")

        def construct(self, x):
            if self.p > 0:
                return x + 1
            return x - 1
    names = [n.op_name for n in trace(Net(), (Tensor(1.0),)).graph.nodes]
    assert "if" in names  # a Parameter may change between calls


def _while_else(x, y):
    while x > y:
        y += x
        break
    else:
        y = x + 6
    return y


def _for_else(x, y):
    for _ in range(3):
        y += x
        break
    else:
        y = x + 6
    return y


@pytest.mark.parametrize("loop, fn", [("while", _while_else), ("for", _for_else)])
def test_loop_else_is_refused_with_mindspores_message(graph_mode, loop, fn):
    with pytest.raises(RuntimeError, match=f"The '{loop}...else...' statement is not supported now"):
        jit(fn)(Tensor([0], mstype.int32), Tensor([2], mstype.int32))


def test_functional_switch_on_a_traced_condition(graph_mode):
    @jit
    def f(cond, y):
        return ops.switch(cond, y + 1, Tensor(5, mstype.int32))
    assert f(Tensor(False), Tensor(1, mstype.int32)).asnumpy().item() == 5
    assert f(Tensor(True), Tensor(1, mstype.int32)).asnumpy().item() == 2


@jit
def _countdown(x, n):
    if x > 0:          # a tensor condition: the function must be rewritten, recursion and all
        x = x - 1
    if n == 0:
        return x
    return _countdown(x, n - 1)


@jit
def _endless(x):
    if x > 0:
        return _endless(x - 1)
    return x


def test_recursion_bounded_by_python_values_is_unrolled(graph_mode):
    assert _countdown(Tensor(5), 3).asnumpy().item() == 1
    assert _countdown(Tensor(2), 3).asnumpy().item() == 0


def test_recursion_on_a_tensor_condition_runs_as_in_mindspore(graph_mode):
    # MindSpore 2.10 compiles a function's recursion stopped by a tensor into a recursive graph: 0 here, whatever
    # the call depth limit (openspore runs it op by op); a method's is refused (test_graph_python_semantics.py)
    old = context.get_context("max_call_depth")
    context.set_context(max_call_depth=40)
    try:
        assert _endless(Tensor(3)).asnumpy().item() == 0
    finally:
        context.set_context(max_call_depth=old)


class _GrowingLoop(nn.Cell):
    def construct(self, x, i):
        out = x
        while i < 3:
            out = ops.expand_dims(out + 1, -1)
            i = i + 1
        return out


def test_loop_value_changing_shape_is_a_shape_join_value_error(graph_mode):
    with pytest.raises(ValueError, match="Shape Join Failed"):
        _GrowingLoop()(Tensor(np.array(0), mstype.int32), Tensor(np.array(0), mstype.int32))


def test_branches_of_two_dtypes_are_a_type_join_type_error(graph_mode):
    @jit
    def f(x):
        if x > 0:
            y = x * 2
        else:
            y = ops.cast(x, mstype.float16)
        return y
    with pytest.raises(TypeError, match="Type Join Failed"):
        f(Tensor(np.float32(1.0)))
