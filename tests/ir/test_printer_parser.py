"""parse_graph reads back exactly what print_graph writes: print(parse(print(g))) == print(g)."""
import numpy as np
import pytest

import openspore as ms
from openspore.common import dtype as mstype
from openspore.core.primitive import PRIMITIVES, AbstractTensor
from openspore.ir import Graph, Node, print_graph
from openspore.ir.parser import IRParseError, parse_graph

F32 = mstype.float32


def A(*shape, dtype=F32):
    return AbstractTensor(shape, dtype)


def prim(name, **attrs):
    return PRIMITIVES[name](**attrs)


def roundtrip(g, **kw):
    text = print_graph(g)
    back = parse_graph(text, **kw)
    assert print_graph(back) == text
    return back


def _branch(name, op):
    a = Node("input", abstract=A(2, 3), name="a")
    b = Node("input", abstract=A(2, 3), name="b")
    out = Node(prim(op), (a, b), A(2, 3), scope=f"Default/{name}", loc="net.py:7")
    return Graph(name, [a, b], [out], out)


def control_flow_graph():
    """A hand-built graph with every op kind: weight, const, primitives, if, while, call, tuples."""
    x = Node("input", abstract=A(2, 3), name="x")
    flag = Node("input", abstract=A(dtype=mstype.bool_), name="flag")
    w = Node("weight", abstract=A(3, 3), name="fc.weight")
    mm = Node(prim("MatMul", transpose_b=True), (x, w), A(2, 3), loc="net.py:12",
              scope="Default/net-Net/fc-Dense/MatMul-op2")
    then_g, else_g = _branch("then_1", "Add"), _branch("else_1", "Sub")
    branch = Node("if", (flag, mm, x), A(2, 3), graphs=(then_g, else_g))
    # while: cond(s) = sum(s) < 10; body(s) = (s * 2,)
    s = Node("input", abstract=A(2, 3), name="s")
    axes = Node("const", value=(0, 1))
    total = Node(prim("ReduceSum"), (s, axes), A())
    ten = Node("const", value=ms.Tensor(10.0, ms.float32), abstract=A())
    less = Node(prim("Less"), (total, ten), A(dtype=mstype.bool_))
    cond_g = Graph("cond_2", [s], [axes, total, ten, less], less)
    s2 = Node("input", abstract=A(2, 3), name="s")
    two = Node("const", value=ms.Tensor(np.full((2, 3), 2.0, np.float32)), abstract=A(2, 3))
    dbl = Node(prim("Mul"), (s2, two), A(2, 3))
    tup = Node("make_tuple", (dbl,), (A(2, 3),))
    body_g = Graph("body_2", [s2], [two, dbl, tup], tup)
    loop = Node("while", (branch,), (A(2, 3),), graphs=(cond_g, body_g))
    item = Node("tuple_get_item", (loop,), A(2, 3), index=0)
    c = Node("input", abstract=A(2, 3), name="c")
    neg = Node(prim("Neg"), (c,), A(2, 3))
    callee = Graph("negate", [c], [neg], neg)
    call = Node("call", (item,), A(2, 3), graphs=(callee,))
    pair = Node("make_tuple", (call, mm), (A(2, 3), A(2, 3)))
    nodes = [w, mm, branch, loop, item, call, pair]
    return Graph("main", [x, flag], nodes, pair)


def test_roundtrip_with_control_flow():
    g = control_flow_graph()
    back = roundtrip(g)
    assert [n.op_name for n in back.nodes] == [n.op_name for n in g.nodes]
    assert back.nodes[2].graphs[0].name == "then_1" and back.nodes[3].graphs[1].name == "body_2"
    assert back.nodes[1].attrs == {"transpose_a": False, "transpose_b": True}
    assert back.nodes[1].scope == "Default/net-Net/fc-Dense/MatMul-op2" and back.nodes[1].loc == "net.py:12"
    assert back.nodes[0].value is None and back.nodes[0].name == "fc.weight"
    assert back.output.abstract == (A(2, 3), A(2, 3))
    assert print_graph(back, with_debug=False) == print_graph(g, with_debug=False)


def test_roundtrip_without_debug_comments():
    g = control_flow_graph()
    text = print_graph(g, with_debug=False)
    assert "#" not in text
    assert print_graph(parse_graph(text), with_debug=False) == text


def test_shared_subgraph_is_parsed_once():
    x = Node("input", abstract=A(2, 3), name="x")
    sub = _branch("add_2", "Add")
    c1 = Node("call", (x, x), A(2, 3), graphs=(sub,))
    c2 = Node("call", (c1, x), A(2, 3), graphs=(sub,))
    g = Graph("main", [x], [c1, c2], c2)
    back = roundtrip(g)
    assert back.nodes[0].graphs[0] is back.nodes[1].graphs[0]


def test_weights_mapping_and_constant_values():
    w = ms.Parameter(ms.Tensor(np.ones((3, 3), np.float32)), name="fc.weight")
    back = roundtrip(control_flow_graph(), weights={"fc.weight": w})
    assert back.nodes[0].value is w
    x = Node("input", abstract=A(2), name="x")
    consts = [Node("const", value=v) for v in (1, 2.5, -3, True, None, "a: b # c", (1, (2, 3)), [4, 5], (7,),
                                             ms.float16, {"k": 1}, float("inf"), -float("inf"), 1e-7, 2 + 3j,
                                             slice(1, None, 2), np.float32(1.5))]
    t = Node("const", value=ms.Tensor(np.array([[1, 2]], np.int32)), abstract=A(1, 2, dtype=mstype.int32))
    empty = Node("const", value=ms.Tensor(np.zeros((0, 3), np.float32)), abstract=A(0, 3))
    inf = Node("const", value=ms.Tensor(np.array([np.inf, -np.inf, np.nan], np.float32)), abstract=A(3))
    g = Graph("consts", [x], consts + [t, empty, inf], x)
    back = roundtrip(g)
    values = [n.value for n in back.nodes]
    assert values[:9] == [1, 2.5, -3, True, None, "a: b # c", (1, (2, 3)), [4, 5], (7,)]
    assert values[9] is ms.float16 and values[10] == {"k": 1} and values[11] == float("inf")
    assert values[14] == 2 + 3j and values[15] == slice(1, None, 2)
    assert type(values[16]) is np.float32
    assert isinstance(values[17], ms.Tensor) and values[17].dtype == ms.int32
    np.testing.assert_array_equal(values[17].asnumpy(), [[1, 2]])
    assert values[18].shape == (0, 3)
    np.testing.assert_array_equal(values[19].asnumpy(), np.array([np.inf, -np.inf, np.nan], np.float32))


def test_abstracts():
    x = Node("input", abstract=A(), name="x")
    nested = Node("input", abstract=(A(2), (A(1, dtype=mstype.int64),), ()), name="t")
    py = Node("input", abstract=None, name="n")
    g = Graph("abs", [x, nested, py], [], x)
    back = roundtrip(g)
    assert back.inputs[1].abstract == (A(2), (A(1, dtype=mstype.int64),), ())
    assert back.inputs[2].abstract is None and back.inputs[0].abstract == A()


def _arg_node(a, inputs, nodes, consts=False):
    if isinstance(a, np.generic):
        a = np.asarray(a)
    if isinstance(a, np.ndarray) and not consts:
        node = Node("input", abstract=A(*a.shape, dtype=mstype.nptype_to_dtype(a.dtype)), name=f"x{len(inputs)}")
        inputs.append(node)
        return node
    if isinstance(a, np.ndarray):  # value-dependent inference (shapes given as tensors)
        node = Node("const", value=ms.Tensor(a), abstract=A(*a.shape, dtype=mstype.nptype_to_dtype(a.dtype)))
    elif isinstance(a, (tuple, list)) and a and all(isinstance(e, np.ndarray) for e in a):
        parts = [_arg_node(e, inputs, nodes, consts) for e in a]
        node = Node("make_tuple", parts, tuple(p.abstract for p in parts))
    else:
        node = Node("const", value=a)
    nodes.append(node)
    return node


def _infer_value(node):
    if node.op == "make_tuple":
        return tuple(_infer_value(i) for i in node.inputs)
    return node.value if node.op == "const" else node.abstract


def _single_node_graph(name, p, sample):
    for consts in (False, True):
        inputs, nodes = [], []
        args = [_arg_node(a, inputs, nodes, consts) for a in sample.args]
        try:
            abstract = p.infer(*[_infer_value(n) for n in args])
        except TypeError:
            if consts:
                raise
            continue
        out = Node(p, args, abstract)
        return Graph(name, inputs, nodes + [out], out)


@pytest.mark.parametrize("name", sorted(PRIMITIVES))
def test_every_primitive_roundtrips(name):
    """One single-node graph per primitive sample: every primitive's attributes survive the text."""
    cls = PRIMITIVES[name]
    for k, sample in enumerate(cls.samples(np.random.default_rng(0))):
        p = cls(**sample.attrs)
        back = roundtrip(_single_node_graph(f"{name}_{k}", p, sample))
        assert back.output.op == p, f"{name} sample {k}: {back.output.op!r} != {p!r}"


@pytest.mark.parametrize("text,match", [
    ("graph @g() {\n  return %0\n}", "used before it is defined"),
    ("graph @g(%0 x: f32[2]) {\n  %1 = Nope(%0) : f32[2]\n  return %1\n}", "unknown primitive 'Nope'"),
    ("graph @g(%0 x: f32[2]) {\n  %1 = Neg(%0) : f32[2]\n  %1 = Neg(%1) : f32[2]\n  return %1\n}", "%1 is defined twice"),
    ("graph @g(%0 x: f32[2]) {\n  %1 = Neg(%0) : q9[2]\n  return %1\n}", "unknown dtype 'q9'"),
    ("graph @g(%0 x: f32[2]) {\n  %1 = call(%0) @missing : f32[2]\n  return %1\n}", "unknown graph @missing"),
    ("graph @g(%0 x: f32[2]) {\n  %1 = const foo(1) : py\n  return %1\n}", "cannot read the value"),
    ("graph @g(%0 x: f32[2]) {\n  %1 = Neg(%0) : f32[2]\n", "not closed"),
    ("graph @g(%0 x: f32[2]) {\n  return %0\n}\ngraph @g(%0 x: f32[2]) {\n  return %0\n}", "defined twice"),
    ("graph @g(%0 x: f32[2]) {\n  %1 = if(%0, %0) @a : f32[2]\n  return %1\n}", "names 2 graph"),
    ("graph @g(%0 x: f32[2]) {\n  %1 = MatMul[transpose_a=1, bogus=2](%0, %0) : f32[2]\n  return %1\n}", None),
])
def test_parse_errors_name_the_line(text, match):
    if match is None:  # unknown attributes are kept (add_prim_attr), as printed
        g = parse_graph(text)
        assert g.nodes[0].attrs["bogus"] == 2
        return
    with pytest.raises(IRParseError, match=match):
        parse_graph(text)
