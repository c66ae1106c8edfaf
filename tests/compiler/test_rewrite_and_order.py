"""The pass-writing helper (ir.rewrite), the pass order rules in pipeline.py, and debug_level="DEBUG" verifying the
IR between passes of real compiles."""
import numpy as np
import pytest

import openspore as ms
from openspore.compiler import pipeline
from openspore.compiler.pipeline import PIPELINES, check_order
from openspore.ir import Graph, print_graph
from openspore.ir.parser import parse_graph
from openspore.ir.rewrite import keep_all, rewrite
from openspore.ir.verifier import IRVerificationError

NESTED = """
graph @main(%0 x: f32[2], %1 c: bool[]) {
  %2 = Neg(%0) : f32[2]
  %3 = if(%1, %2) @then @else : f32[2]
  %4 = if(%1, %3) @then @else : f32[2]
  return %4
}
graph @then(%0 a: f32[2]) {
  %1 = Neg(%0) : f32[2]
  %2 = Exp(%1) : f32[2]
  return %2
}
graph @else(%0 a: f32[2]) {
  return %0
}"""


def test_rewrite_recurses_into_subgraphs_once_and_keeps_sharing():
    g = parse_graph(NESTED)
    seen = []

    def neg_to_abs(node, inputs, rw):
        seen.append((rw.old.name, node.op_name))
        if node.op_name == "Neg":
            return node.clone(op=ms.ops.Abs(), inputs=inputs)
        return rw.keep(node, inputs)

    out = rewrite(g, neg_to_abs)
    assert "Neg" not in print_graph(out) and print_graph(out).count("Abs(") == 2
    assert seen.count(("then", "Neg")) == 1  # the subgraph shared by both ifs is rewritten once ...
    ifs = [n for n in out.nodes if n.op == "if"]
    assert ifs[0].graphs[0] is ifs[1].graphs[0]  # ... and stays shared
    assert "Neg" in print_graph(g)  # the input is untouched


def test_rewrite_returns_the_same_graph_when_nothing_changes():
    g = parse_graph(NESTED)
    assert rewrite(g, keep_all) is g


def test_rewrite_drops_aliases_and_emits_new_inputs_first():
    g = parse_graph("""
graph @f(%0 x: f32[2]) {
  %1 = Neg(%0) : f32[2]
  %2 = Neg(%1) : f32[2]
  %3 = Exp(%2) : f32[2]
  return %3
}""")

    def visit(node, inputs, rw):
        if node.op_name == "Neg" and inputs[0] is not None and inputs[0].op_name == "Neg":
            return inputs[0].inputs[0]  # an alias of an existing value
        if node.op_name == "Exp":  # a replacement whose own input is new too
            square = node.clone(op=ms.ops.Square(), inputs=inputs)
            return node.clone(op=ms.ops.Sqrt(), inputs=(square,))
        return rw.keep(node, inputs)

    out = rewrite(g, visit)
    assert [n.op_name for n in out.nodes] == ["Neg", "Square", "Sqrt"]
    assert out.nodes[1].inputs[0] is out.inputs[0]


def test_the_pipelines_keep_their_order_rules_and_a_broken_order_is_named():
    assert check_order() == []
    swapped = {"bad": [("dce", lambda g: g), ("inline", lambda g: g), ("cse", lambda g: g),
                       ("layout_channels_last", lambda g: g), ("dense_fusion", lambda g: g)]}
    problems = check_order(swapped)
    assert any("'inline' must run first" in p for p in problems)
    assert any("'dce' must run after 'cse'" in p for p in problems)
    assert any("'layout_channels_last' must run last" in p for p in problems)
    assert not any("'dense_fusion'" in p for p in problems)  # it does run after dce there


def test_debug_level_verifies_the_ir_between_passes_of_a_real_compile(monkeypatch):
    def broken(graph):  # a pass that drops the node the output reads
        return Graph(graph.name, graph.inputs, graph.nodes[:-1], graph.output, graph.flags)

    monkeypatch.setitem(PIPELINES, "O1", PIPELINES["O1"] + [("broken", broken)])
    x = ms.Tensor(np.ones(3, np.float32))

    @ms.jit
    def f(v):
        return ms.ops.exp(v) * 2

    ms.set_context(debug_level="DEBUG")
    try:
        with pytest.raises(IRVerificationError, match="after pass 'broken'"):
            f(x)
    finally:
        ms.set_context(debug_level="RELEASE")


def test_release_compiles_do_not_verify(monkeypatch):
    calls = []
    real = pipeline.verifier.verify
    monkeypatch.setattr(pipeline.verifier, "verify", lambda g: (calls.append(g), real(g))[1])

    @ms.jit
    def f(v):
        return ms.ops.exp(v) + 1

    f(ms.Tensor(np.ones(2, np.float32)))
    assert calls == []
    ms.set_context(debug_level="DEBUG")
    try:
        f(ms.Tensor(np.ones(4, np.float32)))  # a new signature: compiled again, verified after every pass
    finally:
        ms.set_context(debug_level="RELEASE")
    assert len(calls) == len(PIPELINES[pipeline.DEFAULT_LEVEL]) + 1
