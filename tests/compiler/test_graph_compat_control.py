"""Graph-mode control flow as MindSpore runs it: integer inputs are differentiated through `if`/`while` (as the
plain autodiff does), `self.param = value` inside a compiled construct is an Assign (also in loops and
branches), and a gradient the compiler cannot give says so instead of looping."""
import pytest

import openspore as ms

from openspore import Parameter, Tensor, context, nn, ops
from openspore.common import dtype as mstype


class _IfNet(nn.Cell):
    def construct(self, x, y):
        x = x + 1
        if x < y:
            y = y + x * 3
        else:
            y = y - x
        return y


@pytest.mark.parametrize("dtype", [mstype.int32, mstype.int64, mstype.float32])
def test_if_grad_of_integer_inputs_matches_pynative(graph_mode, dtype):
    x, y = Tensor(2, dtype), Tensor(5, dtype)
    graph = ops.GradOperation(get_all=True)(_IfNet())(x, y)
    context.set_context(mode=context.PYNATIVE_MODE)
    eager = ops.GradOperation(get_all=True)(_IfNet())(x, y)
    assert [g.asnumpy().item() for g in graph] == [g.asnumpy().item() for g in eager] == [3, 1]
    assert all(g.dtype == dtype for g in graph)


class _WhileIntNet(nn.Cell):
    def construct(self, x, y):
        out = x * 0
        while out < 20:
            out = out + x * y
        return out


def test_while_grad_of_integer_inputs(graph_mode):
    grads = ops.GradOperation(get_all=True)(_WhileIntNet())(Tensor(1, mstype.int32), Tensor(3, mstype.int32))
    # 7 iterations of out += x*y: d/dx = 7*y, d/dy = 7*x
    assert [g.asnumpy().item() for g in grads] == [21, 7]


class _CountDown(nn.Cell):
    def __init__(self):
        super().__init__()
        self.budget = Parameter(Tensor(8, mstype.int32), name="budget")
        self.last = Parameter(Tensor(0.0, mstype.float32), name="last")

    def construct(self, x):
        while self.budget > 5:
            self.budget -= 1          # an Assign inside graph control flow
            x = x + 1
        if x > 2:
            self.last = x * 2         # int32 value written into a float32 Parameter
        return x


def test_parameter_attribute_assignment_in_graph_control_flow(graph_mode):
    net = _CountDown()
    out = net(Tensor(0, mstype.int32))
    assert out.asnumpy().item() == 3
    assert net.budget.asnumpy().item() == 5
    assert net.last.asnumpy().item() == 6.0 and net.last.dtype == mstype.float32
    assert net(Tensor(0, mstype.int32)).asnumpy().item() == 0  # the loop no longer runs: the budget was spent


class _SpendBudget(nn.Cell):
    def __init__(self):
        super().__init__()
        self.budget = Parameter(Tensor(4.0, mstype.float32), name="budget")

    def construct(self, x, n):
        while n > 0:
            while self.budget > 1:    # a condition over a Parameter the loop writes
                self.budget -= 1
                x = x * 2
            n = n - 1
        return x


class _CompiledGrad(nn.Cell):
    def __init__(self, net):
        super().__init__()
        self.net = net
        self.grad = ops.GradOperation()

    def construct(self, *inputs):
        return self.grad(self.net)(*inputs)


def test_grad_of_loop_whose_condition_reads_a_written_parameter(graph_mode):
    # eager grad over the compiled forward: the recomputation sees the values the loop started from
    net = _SpendBudget()
    assert ops.GradOperation()(net)(Tensor(1.0, mstype.float32), Tensor(2, mstype.int32)).asnumpy().item() == 8.0
    # compiled into one graph, the recomputation would read the spent budget: a clear error, not a hang
    with pytest.raises(NotImplementedError, match="condition reads a Parameter that the loop writes"):
        _CompiledGrad(_SpendBudget())(Tensor(1.0, mstype.float32), Tensor(2, mstype.int32))


class _ReadThenOverwrite(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(3.0, mstype.float32), name="w")
        self.zero = Tensor(0.0, mstype.float32)

    def construct(self, x):
        out = self.zero
        if x > 0:
            ops.assign(self.w, 1.0)
            out = out + self.w        # `0 + w` must not become an alias of w ...
            ops.assign(self.w, 6.0)   # ... or this write would change `out`
        return out


class _AccumulateWrites(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(0, mstype.int32), name="w")

    def construct(self):
        out = 0
        for i in range(3):
            ops.assign(self.w, i)
            out = self.w + out        # the first `w + 0` likewise
        return out


def test_value_read_before_a_later_write_keeps_its_value(graph_mode):
    assert _ReadThenOverwrite()(Tensor(3.0, mstype.float32)).asnumpy().item() == 1.0
    assert _AccumulateWrites()().asnumpy().item() == 0 + 1 + 2


def test_simplify_keeps_the_copy_only_where_state_is_written():
    from openspore.compiler.passes.algebraic_simplify import algebraic_simplify
    from openspore.ir.parser import parse_graph
    pure = parse_graph("""
        graph @main(%0 x: f32[]) {
          %1 = weight "w" : f32[]
          %2 = const tensor(0.0, f32) : f32[]
          %3 = Add(%1, %2) : f32[]
          %4 = Mul(%3, %0) : f32[]
          return %4
        }
        """)
    writes = parse_graph("""
        graph @main(%0 x: f32[]) {
          %1 = weight "w" : f32[]
          %2 = const tensor(0.0, f32) : f32[]
          %3 = Add(%1, %2) : f32[]
          %4 = Assign(%1, %0) : f32[]
          %5 = Mul(%3, %0) : f32[]
          return %5
        }
        """)
    assert [n.op_name for n in algebraic_simplify(pure).nodes].count("Add") == 0
    assert [n.op_name for n in algebraic_simplify(writes).nodes].count("Add") == 1


def test_cell_graph_executor_compiles_without_running(graph_mode):
    from openspore.common.api import _cell_graph_executor

    class Counts(nn.Cell):
        def __init__(self):
            super().__init__()
            self.calls = Parameter(Tensor(0.0, mstype.float32), name="calls")

        def construct(self, x):
            ops.assign_add(self.calls, 1.0)
            return x * 2

    class Refuses(nn.Cell):
        def construct(self, x):
            raise ValueError("refused at compile time")

    net = Counts()
    phase = _cell_graph_executor.compile(net, Tensor([1.0, 2.0]), phase="train")
    assert phase.startswith("train.") and _cell_graph_executor.has_compiled("train")
    assert net.calls.asnumpy().item() == 0.0               # compiled, not run
    assert net(Tensor([1.0, 2.0])).asnumpy().tolist() == [2.0, 4.0]
    assert net.calls.asnumpy().item() == 1.0
    with pytest.raises(ValueError, match="refused at compile time"):
        _cell_graph_executor.compile(Refuses(), Tensor([1.0]))
    with pytest.raises(TypeError, match="expects a Cell"):
        _cell_graph_executor.compile(lambda x: x, Tensor([1.0]))


def test_and_or_on_traced_number_tensors_give_an_operand(graph_mode):
    @ms.jit
    def pick(x):
        y = Tensor([2])
        return x and y, y and x, x or y, (x > 0) and (x < 5)

    for x, expected in ((1, ([2], [1], [1], [True])), (0, ([0], [0], [2], [False]))):
        got = pick(Tensor([x]))
        assert [g.asnumpy().tolist() for g in got] == [list(e) for e in expected]
        assert [g.dtype for g in got] == [mstype.int64] * 3 + [mstype.bool_]


def test_and_on_a_tensor_of_several_elements_says_which_shapes_convert(graph_mode):
    @ms.jit
    def both():
        return Tensor([0, 1]) and Tensor([1, 2])

    with pytest.raises(ValueError, match=r"shape is \(\) or \(1,\) can be converted to bool, but got tensor shape "
                                         r"is \(2\)"):
        both()
