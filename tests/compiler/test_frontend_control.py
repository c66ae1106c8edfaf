"""Control flow in traced code: `if`/`while` on tensors become `if`/`while` nodes whose execution
(`ir.interpret.run_graph`) equals PyNative; Python conditions stay Python (unrolled / chosen at trace time)."""
import os

import numpy as np
import pytest

import openspore as ms
from openspore import nn, ops
from openspore.compiler.frontend import GraphCaptureError, convert, flatten_args, trace
from openspore.ir.interpret import run_graph
from tests.conftest import assert_close
from tests.nn.fixture_nets import Branchy


def _run(traced, *inputs):
    leaves, key = flatten_args(inputs)
    assert key == traced.static_key
    out = run_graph(traced.graph, leaves)
    return traced.unflatten(list(out) if traced.graph.output.op == "make_tuple" else [out])


def _ops(graph):
    """Node kinds of a graph and all its subgraphs."""
    return [n.op_name for g in graph.all_graphs() for n in g.nodes]


def _check(fn, *inputs_list, expect=None):
    """Trace fn on the first inputs; the graph must agree with PyNative (and the rewritten code run eagerly)
    on every input set."""
    traced = trace(fn, inputs_list[0])
    for inputs in inputs_list:
        ref = fn(*inputs)
        for got in (_run(traced, *inputs), convert(fn)(*inputs)):
            if isinstance(ref, tuple):
                for g, r in zip(got, ref):
                    assert_close(g, r, rtol=1e-5, atol=1e-5)
            else:
                assert_close(got, ref, rtol=1e-5, atol=1e-5)
    if expect is not None:
        kinds = _ops(traced.graph)
        for kind, count in expect.items():
            assert kinds.count(kind) == count, (kind, kinds)
    return traced


def T(*values):
    return ms.Tensor(np.array(values, np.float32))


def test_if_on_tensor():
    def f(x, y):
        if x.sum() > 0:
            y = y * 2
            z = x + 1
        else:
            y = y - 1
            z = x * 0
        return y + z

    traced = _check(f, (T(1., 2.), T(3., 4.)), (T(-1., -2.), T(3., 4.)), expect={"if": 1})
    node = next(n for n in traced.graph.nodes if n.op == "if")
    then_g, else_g = node.graphs
    assert len(then_g.inputs) == len(else_g.inputs) == len(node.inputs) - 1
    assert node.loc.endswith(f":{f.__code__.co_firstlineno + 1}")  # the `if` line


def test_python_condition_stays_python():
    def f(x, flag, n):
        if flag and x.shape[0] == 2:
            x = x * 2
        while n > 0:
            x = x + n
            n -= 1
        return x if n == 0 else -x

    traced = _check(f, (T(1., 2.), True, 3), expect={"if": 0, "while": 0})
    assert [n.op_name for n in traced.graph.nodes if n.is_primitive] == ["Mul", "Add", "Add", "Add"]


def test_nested_ifs():
    def f(x):
        s = x.sum()
        if s > 0:
            if s > 10:
                y = x * 10
            else:
                y = x + 100
        else:
            if s < -10:
                y = -x
            else:
                y = x - 5
        return y

    _check(f, (T(1., 2.),), (T(10., 20.),), (T(-1., -2.),), (T(-20., 0.),), expect={"if": 3})


def test_while_with_tensor_condition():
    def f(a):
        while a.sum() < 100:
            a = a * 2
        return a

    traced = _check(f, (T(1., 2.),), (T(200., 1.),), (T(0.5, 0.25),), expect={"while": 1})
    node = next(n for n in traced.graph.nodes if n.op == "while")
    assert [g.name for g in node.graphs] == ["f_cond2", "f_body1"]


def test_while_promotes_python_counters_and_reports_undefined():
    def count(a):
        i = 0
        while a.sum() < 50:
            a = a * 2
            i += 1
        return a, i

    _check(count, (T(1., 2.),), (T(100., 0.),))

    def leak(a):
        while a.sum() < 50:
            a = a * 2
            last = a
        return last

    with pytest.raises(GraphCaptureError, match="'last' defined in the 'while' loop body cannot be used outside"):
        trace(leak, (T(1., 2.),))


def test_for_range_with_tensor_break_and_continue():
    def f(x):
        total = x * 0
        for i in range(5):
            if x.sum() > 20:
                break
            if x[0] < 0:
                x = x + 10
                continue
            total = total + x
            x = x * 2
        return total, x

    _check(f, (T(1., 2.),), (T(-3., 2.),), (T(30., 2.),))


def test_while_with_tensor_break():
    def f(x):
        n = 0
        while n < 10:
            x = x * 2
            if x.sum() > 30:
                break
            n += 1
        return x

    _check(f, (T(1., 2.),), (T(-1., 0.5),))


def test_early_return_in_branches():
    def f(x):
        if x.sum() > 0:
            return x * 2
        y = x - 1
        if y.sum() < -10:
            return y * 3
        return y

    _check(f, (T(1., 2.),), (T(-1., -2.),), (T(-10., -2.),))


def test_return_inside_a_loop():
    def f(x):
        for i in range(4):
            x = x + 1
            if x.sum() > 7:
                return x * 100
        return x

    _check(f, (T(1., 2.),), (T(-5., -5.),))


def test_conditional_expression_and_logic():
    def f(x, y):
        if x.sum() > 0 and y.sum() > 0:
            z = x
        else:
            z = y
        if x.sum() > 100 or not y.sum() > 0:
            z = z * 3
        w = x if y.sum() > 0 else y * 2
        return z + w

    traced = _check(f, (T(1., 2.), T(3., 4.)), (T(1., 2.), T(-3., -4.)), (T(-1., 2.), T(3., 4.)),
                    (T(200., 2.), T(3., 4.)))
    kinds = _ops(traced.graph)
    assert "LogicalAnd" in kinds and "LogicalOr" in kinds and "LogicalNot" in kinds and kinds.count("if") == 3


def test_branch_with_only_a_side_effect():
    p = ms.Parameter(ms.Tensor(np.zeros(2, np.float32)), name="p")

    def f(x):
        if x.sum() > 0:
            ops.assign(p, x)
        return x * 1

    traced = trace(f, (T(1., 2.),))
    assert "if" in _ops(traced.graph)
    _run(traced, T(-1., -2.))
    assert_close(p, np.zeros(2, np.float32))
    _run(traced, T(3., 4.))
    assert_close(p, np.array([3., 4.], np.float32))


def test_setitem_inside_a_branch():
    def f(x):
        y = x * 1
        if x.sum() > 0:
            y[0] = 100.0
        return y + x

    _check(f, (T(1., 2.),), (T(-1., -2.),))


def test_closures_helper_functions_and_methods():
    offset = T(0.5, 0.5)

    def clip(v):
        if v.max() > 3:
            return v / v.max()
        return v

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.__scale = 2.0  # private (mangled) name

        def double(self, v):
            while v.sum() < 10:
                v = v * self.__scale
            return v

        def construct(self, x):
            return clip(self.double(x) + offset)

    net = Net()
    traced = trace(net.construct, (T(1., 2.),))
    assert _ops(traced.graph).count("while") == 1 and _ops(traced.graph).count("if") == 1
    for x in (T(1., 2.), T(0.1, 0.2)):
        assert_close(_run(traced, x), net(x))


def test_branchy_fixture(fixtures_dir):
    net = Branchy()
    ms.load_param_into_net(net, ms.load_checkpoint(os.path.join(fixtures_dir, "branchy.ckpt")))
    x = ms.Tensor(np.load(os.path.join(fixtures_dir, "branchy_input0.npy")))
    traced = trace(net, (x,))
    kinds = _ops(traced.graph)
    assert kinds.count("if") == 1 and kinds.count("while") == 0 and kinds.count("Tanh") == 3
    assert_close(_run(traced, x), np.load(os.path.join(fixtures_dir, "branchy_output.npy")), rtol=1e-5, atol=1e-5)
    assert_close(_run(traced, -x * 10), net(-x * 10), rtol=1e-5, atol=1e-5)  # the other branch


def test_return_inside_a_tensor_while():
    def f(x):
        while x.sum() < 100:
            x = x * 2
            if x.sum() > 50:
                return x - 1000
        return x

    _check(f, (T(1., 2.),), (T(30., 2.),), (T(200., 0.),), expect={"while": 1})


def test_comprehensions_nested_functions_and_row_iteration():
    def f(m):
        rows = [r * 2 if r.sum() > 0 else r for r in m]

        def flip(v):
            if v.sum() > 0:
                return v
            return -v
        for r in m:
            if r.sum() > 1:
                m = m + r
        return ops.stack(rows) + flip(m) + flip(-m * 2)

    m = ms.Tensor(np.array([[1., 2.], [-3., -1.]], np.float32))
    _check(f, (m,), (-m,))
