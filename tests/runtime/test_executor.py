"""The executor on hand-built graphs: straight-line code, tuples, if/while subgraphs, weights, side effects,
random streams, liveness and error locations — on both backends, compared with PyNative."""
import numpy as np
import pytest

import openspore as ms
from openspore import backends
from openspore.core.primitive import PRIMITIVES, AbstractTensor
from openspore.ir import Graph, Node
from openspore.runtime import compile_graph
from tests.conftest import assert_close

F32 = ms.float32


class Builder:
    """Appends nodes to a graph under construction, inferring abstracts with the primitives' own infer."""

    def __init__(self):
        self.inputs, self.nodes = [], []

    def input(self, name, shape, dtype=F32):
        n = Node("input", name=name, abstract=AbstractTensor(shape, dtype))
        self.inputs.append(n)
        return n

    def weight(self, param):
        abstract = AbstractTensor(param.shape, param.dtype)
        return self._add(Node("weight", value=param, name=param.name, abstract=abstract))

    def const(self, value):
        abstract = AbstractTensor(value.shape, value.dtype) if isinstance(value, ms.Tensor) else None
        return self._add(Node("const", value=value, abstract=abstract))

    def op(self, name, *inputs, **attrs):
        prim = PRIMITIVES[name](**attrs)
        abstract = prim.infer(*[self._abstract(i) for i in inputs])
        return self._add(Node(prim, inputs, abstract=abstract, scope=f"Default/{name}-op", loc="model.py:7"))

    def tuple(self, *inputs):
        return self._add(Node("make_tuple", inputs, abstract=tuple(i.abstract for i in inputs)))

    def item(self, tup, index):
        return self._add(Node("tuple_get_item", (tup,), abstract=tup.abstract[index], index=index))

    def if_(self, cond, then_graph, else_graph, *operands):
        return self._add(Node("if", (cond, *operands), graphs=(then_graph, else_graph),
                              abstract=then_graph.output.abstract))

    def while_(self, cond_graph, body_graph, *operands):
        return self._add(Node("while", operands, graphs=(cond_graph, body_graph),
                              abstract=tuple(o.abstract for o in operands)))

    def graph(self, name, output):
        return Graph(name, self.inputs, self.nodes, output)

    def _abstract(self, node):
        if node.op == "const" and not isinstance(node.value, ms.Tensor):
            return node.value
        if node.op == "make_tuple":
            return tuple(self._abstract(i) for i in node.inputs)
        return node.abstract

    def _add(self, node):
        self.nodes.append(node)
        return node


def _arr(x):
    return backends.current().from_numpy(np.asarray(x))


def _np(a):
    return backends.current().to_numpy(a)


def _run(graph, *inputs):
    compiled = compile_graph(graph, backends.current())
    return compiled, [_np(o) for o in compiled(*[_arr(x) for x in inputs])]


def test_straight_line_matches_pynative(backend):
    rng = np.random.default_rng(0)
    w = ms.Parameter(ms.Tensor(rng.standard_normal((4, 3)).astype(np.float32)), name="fc.weight")
    b = Builder()
    x = b.input("x", (2, 3))
    mm = b.op("MatMul", x, b.weight(w), transpose_b=True)
    y = b.op("Tanh", b.op("Mul", mm, b.const(ms.Tensor(np.float32(0.5)))))
    out = b.op("ReduceSum", y, b.const((1,)), keep_dims=True)
    xv = rng.standard_normal((2, 3)).astype(np.float32)
    _, (got,) = _run(b.graph("net", out), xv)
    ref = ms.ops.tanh(ms.ops.matmul(ms.Tensor(xv), w.T) * 0.5).sum(axis=1, keepdims=True)
    assert got.dtype == np.float32 and got.shape == (2, 1)
    np.testing.assert_array_equal(got, ref.asnumpy())


def test_tuple_outputs_flatten_to_leaves(backend):
    b = Builder()
    x = b.input("x", (4, 3))
    parts = b.op("Split", x, axis=0, output_num=2)
    first, second = b.item(parts, 0), b.item(parts, 1)
    cat = b.op("Concat", b.tuple(second, first), axis=1)
    out = b.tuple(cat, b.tuple(first, parts))  # nested make_tuple and a tuple-valued node
    xv = np.arange(12, dtype=np.float32).reshape(4, 3)
    compiled, got = _run(b.graph("tuples", out), xv)
    assert len(got) == 4
    np.testing.assert_array_equal(got[0], np.concatenate([xv[2:], xv[:2]], axis=1))
    np.testing.assert_array_equal(got[1], xv[:2])
    np.testing.assert_array_equal(got[2], xv[:2])
    np.testing.assert_array_equal(got[3], xv[2:])
    assert "[v" in compiled.source  # Concat receives its tensors as a list, as bind hands them over


def _branch(name, op, factor):
    b = Builder()
    y = b.input("y", (3,))
    out = b.op(op, y, b.const(ms.Tensor(np.float32(factor))))
    return b.graph(name, out)


def test_if_node_runs_the_chosen_branch(backend):
    then_g, else_g = _branch("then", "Mul", 2.0), _branch("else", "Sub", 1.0)
    b = Builder()
    x = b.input("x", (3,))
    cond = b.op("Greater", b.op("ReduceSum", x, b.const(())), b.const(ms.Tensor(np.float32(0))))
    out = b.if_(cond, then_g, else_g, x)
    g = b.graph("branchy", out)
    compiled = compile_graph(g, backends.current())
    pos, neg = np.array([1, 2, 3], np.float32), np.array([-1, -2, 0.5], np.float32)
    np.testing.assert_array_equal(_np(compiled(_arr(pos))[0]), pos * 2)
    np.testing.assert_array_equal(_np(compiled(_arr(neg))[0]), neg - 1)
    assert " if v" in compiled.source and compiled.source.count("def graph") == 3


def test_while_node_loops_over_carried_values(backend):
    # while i < n: x = tanh(x) + 1; i = i + 1   (i, n are 0-d int32 tensors)
    cb = Builder()
    i, x, n = cb.input("i", (), ms.int32), cb.input("x", (2,)), cb.input("n", (), ms.int32)
    cond = cb.graph("cond", cb.op("Less", i, n))
    bb = Builder()
    i, x, n = bb.input("i", (), ms.int32), bb.input("x", (2,)), bb.input("n", (), ms.int32)
    one = bb.const(ms.Tensor(np.int32(1)))
    nx = bb.op("Add", bb.op("Tanh", x), bb.const(ms.Tensor(np.float32(1))))
    body = bb.graph("body", bb.tuple(bb.op("Add", i, one), nx, n))
    b = Builder()
    i0, x0, n0 = b.input("i", (), ms.int32), b.input("x", (2,)), b.input("n", (), ms.int32)
    loop = b.while_(cond, body, i0, x0, n0)
    g = b.graph("loop", b.tuple(b.item(loop, 1), b.item(loop, 0)))
    xv = np.array([0.5, -2.0], np.float32)
    _, (xs, count) = _run(g, np.int32(0), xv, np.int32(3))
    ref = ms.Tensor(xv)
    for _ in range(3):
        ref = ms.ops.tanh(ref) + 1
    assert int(count) == 3
    np.testing.assert_array_equal(xs, ref.asnumpy())
    _, (xs0, count0) = _run(g, np.int32(5), xv, np.int32(3))  # zero trips: the operands come back
    assert int(count0) == 5
    np.testing.assert_array_equal(xs0, xv)


def test_single_value_loop_body_and_nested_if(backend):
    # while sum(x) < 10: x = (x * 2 if x[0] > 0 else x - 1) ... with x starting positive
    cb = Builder()
    x = cb.input("x", (2,))
    cond = cb.graph("cond", cb.op("Less", cb.op("ReduceSum", x, cb.const(())), cb.const(ms.Tensor(np.float32(10)))))
    bb = Builder()
    x = bb.input("x", (2,))
    first = bb.op("ReduceMax", x, bb.const(()))
    nested = bb.if_(bb.op("Greater", first, bb.const(ms.Tensor(np.float32(0)))),
                    _branch("double", "Mul", 2.0), _branch("dec", "Sub", 1.0), x)
    body = bb.graph("body", nested)  # the body returns one value, not a tuple
    b = Builder()
    x0 = b.input("x", (2,))
    loop = b.while_(cond, body, x0)
    _, (got,) = _run(b.graph("loop1", b.item(loop, 0)), np.array([1.0, 0.5], np.float32))
    np.testing.assert_array_equal(got, np.array([8.0, 4.0], np.float32))


def test_weights_are_read_at_every_call(backend):
    w = ms.Parameter(ms.Tensor(np.ones(3, np.float32)), name="w")
    b = Builder()
    x = b.input("x", (3,))
    out = b.op("Mul", x, b.weight(w))
    compiled = compile_graph(b.graph("scale", out), backends.current())
    xv = np.array([1, 2, 3], np.float32)
    np.testing.assert_array_equal(_np(compiled(_arr(xv))[0]), xv)
    w.set_data(ms.Tensor(np.full(3, 4, np.float32)))  # PyNative code rebinds the Parameter's array
    np.testing.assert_array_equal(_np(compiled(_arr(xv))[0]), xv * 4)


def test_side_effect_writes_into_the_parameter(backend):
    w = ms.Parameter(ms.Tensor(np.zeros(3, np.float32)), name="acc")
    b = Builder()
    x = b.input("x", (3,))
    wn = b.weight(w)
    b.op("AssignAdd", wn, x)  # result unused: still runs, in program order
    out = b.op("Mul", wn, b.const(ms.Tensor(np.float32(1))))
    compiled = compile_graph(b.graph("accumulate", out), backends.current())
    xv = np.array([1, 2, 3], np.float32)
    for k in (1, 2):
        got = _np(compiled(_arr(xv))[0])
        np.testing.assert_array_equal(got, xv * k)
        np.testing.assert_array_equal(w.asnumpy(), xv * k)


def test_random_nodes_follow_the_pynative_stream(backend):
    b = Builder()
    x = b.input("x", (64,))
    first = b.item(b.op("Dropout", x, keep_prob=0.5), 0)
    second = b.op("StandardNormal", b.const((5,)))
    compiled = compile_graph(b.graph("rand", b.tuple(first, second)), backends.current())
    xv = np.ones(64, np.float32)
    ms.set_seed(3)
    got = [_np(o) for o in compiled(_arr(xv))]
    ms.set_seed(3)
    ref = [PRIMITIVES["Dropout"](keep_prob=0.5)(ms.Tensor(xv))[0], PRIMITIVES["StandardNormal"]()((5,))]
    for g, r in zip(got, ref):
        np.testing.assert_array_equal(g, r.asnumpy())


def test_values_are_freed_after_their_last_use(backend):
    b = Builder()
    x = b.input("x", (3,))
    a = b.op("Exp", x)
    c = b.op("Neg", a)
    d = b.op("Abs", c)
    compiled, (got,) = _run(b.graph("chain", d), np.zeros(3, np.float32))
    np.testing.assert_array_equal(got, np.ones(3, np.float32))
    lines = [line.strip() for line in compiled.source.splitlines()]
    assert "del v0" in lines and "del v1" in lines and "del v2" in lines
    assert lines[-1] == "return [v3]" or lines[-2] == "return [v3]"


def test_kernel_failure_names_the_node(backend):
    b = Builder()
    x = b.input("x", (2, 3))
    w = b.input("w", (3, 4))
    out = b.op("MatMul", x, w)
    compiled = compile_graph(b.graph("mm", out), backends.current())
    with pytest.raises((ValueError, RuntimeError)) as info:
        compiled(_arr(np.ones((2, 3), np.float32)), _arr(np.ones((5, 4), np.float32)))  # wrong at run time
    assert "MatMul" in str(info.value) and "Default/MatMul-op @ model.py:7" in str(info.value)


def test_source_and_compile_time_are_kept(backend):
    b = Builder()
    x = b.input("x", (3,))
    compiled = compile_graph(b.graph("id", b.op("Abs", x)), backends.current())
    assert compiled.source.startswith("def graph") and compiled.compile_time >= 0.0
    assert "k1(p1, xp, v0)" in compiled.source


def test_outer_values_must_be_operands(backend):
    b = Builder()
    x = b.input("x", (3,))
    outer = b.op("Abs", x)
    sb = Builder()
    y = sb.input("y", (3,))
    sb.nodes.append(Node(PRIMITIVES["Add"](), (y, outer), abstract=y.abstract))
    sub = sb.graph("sub", sb.nodes[-1])
    b._add(Node("call", (x,), graphs=(sub,), abstract=y.abstract))
    with pytest.raises(ValueError, match="not defined before it"):
        compile_graph(b.graph("bad", b.nodes[-1]), backends.current())


def test_call_node_and_python_constants(backend):
    sb = Builder()
    y = sb.input("y", (2, 3))
    sub = sb.graph("sub", sb.op("Reshape", y, sb.const((3, 2))))
    b = Builder()
    x = b.input("x", (2, 3))
    out = b._add(Node("call", (x,), graphs=(sub,), abstract=AbstractTensor((3, 2), F32)))
    xv = np.arange(6, dtype=np.float32).reshape(2, 3)
    compiled, (got,) = _run(b.graph("caller", out), xv)
    np.testing.assert_array_equal(got, xv.reshape(3, 2))
    assert "(3, 2)" in compiled.source  # literal constants are written into the code
    assert_close(got, xv.reshape(3, 2))
