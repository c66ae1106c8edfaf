"""verify(graph): each broken invariant raises IRVerificationError naming the graph, the node and the problem."""
import numpy as np
import pytest

import openspore as ms
from openspore.common import dtype as mstype
from openspore.core.primitive import PRIMITIVES, AbstractTensor
from openspore.ir import Graph, Node
from openspore.ir.parser import parse_graph
from openspore.ir.verifier import IRVerificationError, verify

from .test_printer_parser import control_flow_graph

F32 = mstype.float32

GOOD = """
graph @main(%0 x: f32[2,3], %1 flag: bool[]) {
  %2 = const (2, 3) : py
  %3 = Reshape(%0, %2) : f32[2,3]
  %4 = if(%1, %3, %0) @then @else : f32[2,3]
  %5 = while(%4, %0) @cond @body : (f32[2,3], f32[2,3])
  %6 = tuple_get_item[1](%5) : f32[2,3]
  %7 = call(%6) @neg : f32[2,3]
  %8 = make_tuple(%7, %6) : (f32[2,3], f32[2,3])
  return %8
}
graph @then(%0 a: f32[2,3], %1 b: f32[2,3]) {
  %2 = Add(%0, %1) : f32[2,3]
  return %2
}
graph @else(%0 a: f32[2,3], %1 b: f32[2,3]) {
  return %1
}
graph @cond(%0 s: f32[2,3], %1 t: f32[2,3]) {
  %2 = const () : py
  %3 = ReduceSum(%0, %2) : f32[]
  %4 = const tensor(10.0, f32) : f32[]
  %5 = Less(%3, %4) : bool[]
  return %5
}
graph @body(%0 s: f32[2,3], %1 t: f32[2,3]) {
  %2 = Add(%0, %1) : f32[2,3]
  %3 = make_tuple(%2, %1) : (f32[2,3], f32[2,3])
  return %3
}
graph @neg(%0 a: f32[2,3]) {
  %1 = Neg(%0) : f32[2,3]
  return %1
}
"""


def broken(old, new):
    assert old in GOOD, old
    return parse_graph(GOOD.replace(old, new, 1))


def test_valid_graphs_pass():
    g = parse_graph(GOOD)
    assert verify(g) is g
    verify(control_flow_graph())


@pytest.mark.parametrize("old,new,match", [
    ("%3 = Reshape(%0, %2) : f32[2,3]", "%3 = Reshape(%0, %2) : f32[3,2]",
     r"Reshape.infer gives f32\[2,3\] but the node says f32\[3,2\]"),
    ("%3 = Reshape(%0, %2) : f32[2,3]", "%3 = Reshape(%0, %2) : f16[2,3]", "Reshape.infer gives"),
    ("%2 = const (2, 3) : py", "%2 = const (4, 3) : py", "Reshape.infer rejects the node's inputs"),
    ("%6 = tuple_get_item[1](%5)", "%6 = tuple_get_item[2](%5)", "index 2 is out of range for a tuple of 2"),
    ("%6 = tuple_get_item[1](%5)", "%6 = tuple_get_item[0](%3)", "must be tuple-valued"),
    ("%8 = make_tuple(%7, %6) : (f32[2,3], f32[2,3])", "%8 = make_tuple(%7, %6) : (f32[2,3])",
     "make_tuple's abstract"),
    ("%4 = if(%1, %3, %0) @then @else", "%4 = if(%1, %3) @then @else", r"'if' passes 1 operand\(s\) but @then takes 2"),
    ("%4 = if(%1, %3, %0) @then @else", "%4 = if(%0, %3, %0) @then @else", "the condition must hold one element"),
    ("graph @else(%0 a: f32[2,3], %1 b: f32[2,3]) {\n  return %1",
     "graph @else(%0 a: f32[2,3], %1 b: f32[3,2]) {\n  return %1", "operand 1 is f32\\[2,3\\] but @else's parameter b"),
    ("%1 = Neg(%0) : f32[2,3]\n  return %1", "%1 = Neg(%0) : f32[2,3]\n  return %0", None),
    ("%2 = Add(%0, %1) : f32[2,3]\n  return %2\n}\ngraph @else",
     "%2 = Add(%0, %1) : f32[2,3]\n  %3 = make_tuple(%2) : (f32[2,3])\n  return %3\n}\ngraph @else",
     "the branches disagree: @then returns \\(f32\\[2,3\\]\\) and @else returns f32\\[2,3\\]"),
    ("%3 = make_tuple(%2, %1) : (f32[2,3], f32[2,3])\n  return %3", "return %2",
     "the loop body @body must return a tuple of 2 values, but returns f32\\[2,3\\]"),
    ("%3 = make_tuple(%2, %1) : (f32[2,3], f32[2,3])\n  return %3",
     "%3 = make_tuple(%2) : (f32[2,3])\n  return %3", "must return a tuple of 2 values"),
    ("%5 = while(%4, %0) @cond @body : (f32[2,3], f32[2,3])", "%5 = while(%4, %0) @cond @body : (f32[2,3], f32[3])",
     "the node's abstract .* differs from what the loop carries"),
    ("%5 = Less(%3, %4) : bool[]\n  return %5", "%5 = Less(%3, %4) : bool[]\n  return %0",
     "the loop condition @cond must return one element"),
    ("%7 = call(%6) @neg : f32[2,3]", "%7 = call(%6, %6) @neg : f32[2,3]",
     r"'call' passes 2 operand\(s\) but @neg takes 1"),
    ("%4 = const tensor(10.0, f32) : f32[]", "%4 = const tensor([10.0], f32) : f32[]",
     r"the constant is f32\[1\] but the node says f32\[\]"),
    ("%2 = const () : py", "%2 = const () : f32[]", "a Python constant of type tuple has the tensor abstract"),
])
def test_broken_invariants(old, new, match):
    g = broken(old, new)
    if match is None:  # a graph may return its input
        verify(g)
        return
    with pytest.raises(IRVerificationError, match=match):
        verify(g)


def test_loop_carried_abstract_must_match():
    g = broken("%2 = Add(%0, %1) : f32[2,3]\n  %3 = make_tuple(%2, %1) : (f32[2,3], f32[2,3])",
               "%4 = const (3, 2) : py\n  %2 = Reshape(%0, %4) : f32[3,2]\n"
               "  %3 = make_tuple(%2, %1) : (f32[3,2], f32[2,3])")
    with pytest.raises(IRVerificationError,
                       match=r"loop-carried value 0 enters as f32\[2,3\] but the body @body returns f32\[3,2\]"):
        verify(g)


def _simple():
    x = Node("input", abstract=AbstractTensor((2,), F32), name="x")
    neg = Node(PRIMITIVES["Neg"](), (x,), AbstractTensor((2,), F32), scope="Default/Neg-op1", loc="f.py:3")
    return x, neg


def test_use_before_definition_and_duplicates():
    x, neg = _simple()
    neg2 = Node(PRIMITIVES["Neg"](), (neg,), AbstractTensor((2,), F32))
    with pytest.raises(IRVerificationError,
                       match=r"in graph @g, node %\d+ \(Neg\): input 0 .* is used before it is defined"):
        verify(Graph("g", [x], [neg2, neg], neg2))
    with pytest.raises(IRVerificationError, match=r"\[Default/Neg-op1\] at f.py:3: the node appears twice"):
        verify(Graph("g", [x], [neg, neg], neg))
    with pytest.raises(IRVerificationError, match="the output .* is not defined"):
        verify(Graph("g", [x], [], neg))
    with pytest.raises(IRVerificationError, match="belong in graph.inputs"):
        verify(Graph("g", [], [x], x))
    with pytest.raises(IRVerificationError, match="listed twice"):
        verify(Graph("g", [x, x], [], x))


def test_values_from_an_outer_graph_are_not_visible():
    x, neg = _simple()
    y = Node("input", abstract=AbstractTensor((2,), F32), name="y")
    inner_neg = Node(PRIMITIVES["Neg"](), (x,), AbstractTensor((2,), F32))  # reads the outer x
    sub = Graph("sub", [y], [inner_neg], inner_neg)
    call = Node("call", (x,), AbstractTensor((2,), F32), graphs=(sub,))
    with pytest.raises(IRVerificationError, match="in graph @sub.*used before it is defined"):
        verify(Graph("g", [x], [call], call))


def test_subgraph_names_are_unique():
    x, _ = _simple()
    subs = []
    for _ in range(2):
        a = Node("input", abstract=AbstractTensor((2,), F32), name="a")
        subs.append(Graph("same", [a], [], a))
    c1 = Node("call", (x,), AbstractTensor((2,), F32), graphs=(subs[0],))
    c2 = Node("call", (c1,), AbstractTensor((2,), F32), graphs=(subs[1],))
    with pytest.raises(IRVerificationError, match="two different graphs are named @same"):
        verify(Graph("g", [x], [c1, c2], c2))


def test_weight_and_const_values_are_checked():
    p = ms.Parameter(ms.Tensor(np.zeros((3,), np.float32)), name="w")
    w = Node("weight", abstract=AbstractTensor((2,), F32), name="w", value=p)
    with pytest.raises(IRVerificationError, match=r"the Parameter 'w' is Float32\[3\] but the node says f32\[2\]"):
        verify(Graph("g", [], [w], w))
    c = Node("const", value=np.zeros((2,), np.float32), abstract=AbstractTensor((2,), F32))
    verify(Graph("g", [], [c], c))
    x, _ = _simple()
    bad = Node("const", (x,), value=1)
    with pytest.raises(IRVerificationError, match="a const node takes no inputs"):
        verify(Graph("g", [x], [bad], bad))


def test_value_dependent_inference_sees_constant_values():
    shape = Node("const", value=ms.Tensor(np.array([2, 3], np.int32)), abstract=AbstractTensor((2,), mstype.int32))
    zeros = PRIMITIVES["StandardNormal"](seed=1)
    out = Node(zeros, (shape,), AbstractTensor((2, 3), F32))
    verify(Graph("g", [], [shape, out], out))
