"""Each pass as IR text before → after (parse_graph + print_graph(with_debug=False)), plus checks that every pass
leaves its input untouched, passes the verifier, and computes the same values (ir.interpret.run_graph)."""
import textwrap

import numpy as np
import pytest

import openspore as ms
from openspore.common import dtype as mstype
from openspore.compiler.passes import constant_folding as folding_module
from openspore.compiler.passes.algebraic_simplify import algebraic_simplify
from openspore.compiler.passes.constant_folding import constant_folding
from openspore.compiler.passes.cse import cse
from openspore.compiler.passes.dce import dce
from openspore.compiler.passes.dead_branch import dead_branch
from openspore.compiler.passes.inline import inline
from openspore.compiler.passes.layout_channels_last import layout_channels_last
from openspore.ir import print_graph
from openspore.ir.interpret import run_graph
from openspore.ir.parser import parse_graph
from openspore.ir.verifier import verify


def _text(s):
    return textwrap.dedent(s).strip()


def _weights(text, seed=0):
    """A Parameter for every `weight "name"` in the text (shapes from the abstracts)."""
    g = parse_graph(text)
    rng = np.random.default_rng(seed)
    found = {}
    for sub in g.all_graphs():
        for n in sub.nodes:
            if n.op == "weight" and n.name not in found:
                a = n.abstract
                found[n.name] = ms.Parameter(ms.Tensor(rng.uniform(0.5, 1.5, a.shape).astype(a.dtype.np_dtype)),
                                             name=n.name)
    return found


def _random_args(graph, seed=0):
    rng = np.random.default_rng(seed)
    args = []
    for n in graph.inputs:
        a = n.abstract
        if a.dtype == mstype.bool_:
            args.append(ms.Tensor(rng.uniform(size=a.shape) < 0.5))
        else:
            args.append(ms.Tensor(rng.uniform(-2, 2, a.shape).astype(a.dtype.np_dtype)))
    return args


def _flat(value):
    if isinstance(value, tuple):
        return [x for v in value for x in _flat(v)]
    return [value]


def _run(graph, args, weights):
    """Outputs and final Parameter values, with Parameters restored afterwards (passes may keep Assigns)."""
    saved = {k: p.asnumpy().copy() for k, p in weights.items()}
    ms.set_seed(7)
    out = [v.asnumpy() if hasattr(v, "asnumpy") else v for v in _flat(run_graph(graph, args))]
    after = {k: p.asnumpy().copy() for k, p in weights.items()}
    for k, p in weights.items():
        p.set_data(ms.Tensor(saved[k]))
    return out, after


def assert_same_values(before, after, weights, seeds=(0, 1)):
    for seed in seeds:
        args = _random_args(before, seed)
        want, want_w = _run(before, args, weights)
        got, got_w = _run(after, args, weights)
        assert len(want) == len(got)
        for w, g in zip(want, got):
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
        for k in want_w:
            np.testing.assert_allclose(got_w[k], want_w[k], rtol=1e-5, atol=1e-6)


def check(pass_fn, before, after, run=True):
    """`pass_fn` turns IR text `before` into `after`, leaves its input intact, verifies, computes the same."""
    weights = _weights(before)
    g = parse_graph(before, weights=weights)
    verify(g)
    original = print_graph(g)
    out = pass_fn(g)
    assert print_graph(g) == original, "the pass modified its input graph"
    verify(out)
    # the expected text goes through the parser too, so it may leave out default attributes
    assert print_graph(out, with_debug=False) == print_graph(parse_graph(after), with_debug=False)
    if run:
        assert_same_values(g, out, weights)
    return out


# ---- inline -----------------------------------------------------------------------------------------------
def test_inline_nested_and_repeated_calls():
    check(inline, """
        graph @main(%0 x: f32[2], %1 c: bool[]) {
          %2 = call(%0) @twice : f32[2]  # Default/twice @ net.py:3
          %3 = call(%2) @twice : f32[2]
          %4 = if(%1, %3) @then @else : f32[2]
          return %4
        }
        graph @twice(%0 a: f32[2]) {
          %1 = call(%0) @double : f32[2]
          %2 = call(%1) @double : f32[2]
          return %2
        }
        graph @double(%0 a: f32[2]) {
          %1 = Add(%0, %0) : f32[2]  # Default/double/Add-op1 @ net.py:9
          return %1
        }
        graph @then(%0 a: f32[2]) {
          %1 = call(%0) @double : f32[2]
          return %1
        }
        graph @else(%0 a: f32[2]) {
          return %0
        }
        """, """
        graph @main(%0 x: f32[2], %1 c: bool[]) {
          %2 = Add(%0, %0) : f32[2]
          %3 = Add(%2, %2) : f32[2]
          %4 = Add(%3, %3) : f32[2]
          %5 = Add(%4, %4) : f32[2]
          %6 = if(%1, %5) @then @else : f32[2]
          return %6
        }
        graph @then(%0 a: f32[2]) {
          %1 = Add(%0, %0) : f32[2]
          return %1
        }
        graph @else(%0 a: f32[2]) {
          return %0
        }
        """)


def test_inline_keeps_debug_info_and_makes_fresh_nodes():
    g = parse_graph("""
        graph @main(%0 x: f32[2]) {
          %1 = call(%0) @f : f32[2]
          %2 = call(%1) @f : f32[2]
          %3 = call(%0) @identity : f32[2]
          %4 = make_tuple(%2, %3) : (f32[2], f32[2])
          return %4
        }
        graph @f(%0 a: f32[2]) {
          %1 = Neg(%0) : f32[2]  # Default/f/Neg-op1 @ net.py:9
          return %1
        }
        graph @identity(%0 a: f32[2]) {
          return %0
        }""")
    out = inline(g)
    assert "Neg(%0) : f32[2]  # Default/f/Neg-op1 @ net.py:9" in print_graph(out)
    callee_ids = {n.id for n in g.nodes[0].graphs[0].nodes}
    assert len({n.id for n in out.nodes}) == len(out.nodes) and not callee_ids & {n.id for n in out.nodes}
    assert out.output.inputs[1] is out.inputs[0]  # a callee returning its parameter yields the operand


# ---- dead_branch --------------------------------------------------------------------------------------------
def test_dead_branch():
    check(dead_branch, """
        graph @main(%0 x: f32[2], %1 flag: bool[]) {
          %2 = const True : py
          %3 = if(%2, %0) @then @else : f32[2]
          %4 = const tensor(False, bool) : bool[]
          %5 = if(%4, %3) @then @else : f32[2]
          %6 = while(%5) @never @body : (f32[2])
          %7 = tuple_get_item[0](%6) : f32[2]
          %8 = if(%1, %7) @nested @else : f32[2]
          return %8
        }
        graph @then(%0 a: f32[2]) {
          %1 = Neg(%0) : f32[2]
          return %1
        }
        graph @else(%0 a: f32[2]) {
          %1 = Exp(%0) : f32[2]
          return %1
        }
        graph @never(%0 a: f32[2]) {
          %1 = const False : py
          return %1
        }
        graph @body(%0 a: f32[2]) {
          %1 = Neg(%0) : f32[2]
          %2 = make_tuple(%1) : (f32[2])
          return %2
        }
        graph @nested(%0 a: f32[2]) {
          %1 = const 0 : py
          %2 = if(%1, %0) @then @else : f32[2]
          return %2
        }
        """, """
        graph @main(%0 x: f32[2], %1 flag: bool[]) {
          %2 = const True : py
          %3 = Neg(%0) : f32[2]
          %4 = const tensor(False, bool) : bool[]
          %5 = Exp(%3) : f32[2]
          %6 = make_tuple(%5) : (f32[2])
          %7 = tuple_get_item[0](%6) : f32[2]
          %8 = if(%1, %7) @nested @else : f32[2]
          return %8
        }
        graph @nested(%0 a: f32[2]) {
          %1 = const 0 : py
          %2 = Exp(%0) : f32[2]
          return %2
        }
        graph @else(%0 a: f32[2]) {
          %1 = Exp(%0) : f32[2]
          return %1
        }
        """)


def test_dead_branch_leaves_unknown_conditions():
    text = """
        graph @main(%0 x: f32[2], %1 flag: bool[]) {
          %2 = const tensor([True, False], bool) : bool[2]
          %3 = while(%0, %1) @loop_cond @body : (f32[2], bool[])
          %4 = tuple_get_item[0](%3) : f32[2]
          return %4
        }
        graph @loop_cond(%0 a: f32[2], %1 f: bool[]) {
          %2 = const False : py
          return %1
        }
        graph @body(%0 a: f32[2], %1 f: bool[]) {
          %2 = Neg(%0) : f32[2]
          %3 = LogicalNot(%1) : bool[]
          %4 = make_tuple(%2, %3) : (f32[2], bool[])
          return %4
        }"""
    check(dead_branch, text, text)


# ---- constant_folding ---------------------------------------------------------------------------------------
FOLD_BEFORE = """
    graph @main(%0 x: f32[2]) {
      %1 = const tensor([1.0, 2.0], f32) : f32[2]
      %2 = Neg(%1) : f32[2]  # Default/Neg-op3 @ net.py:4
      %3 = Add(%0, %2) : f32[2]
      %4 = const tensor([3.0, 5.0], f32) : f32[2]
      %5 = make_tuple(%1, %4) : (f32[2], f32[2])
      %6 = Concat[axis=0](%5) : f32[4]
      %7 = ArgMaxWithValue[axis=0, keep_dims=False](%6) : (i64[], f32[])
      %8 = tuple_get_item[1](%7) : f32[]
      %9 = Mul(%3, %8) : f32[2]
      %10 = const (2,) : py
      %11 = UniformReal[seed=1, seed2=2](%10) : f32[2]
      %12 = Add(%9, %11) : f32[2]
      return %12
    }"""
FOLD_AFTER = """
    graph @main(%0 x: f32[2]) {
      %1 = const tensor([1.0, 2.0], f32) : f32[2]
      %2 = const tensor([-1.0, -2.0], f32) : f32[2]
      %3 = Add(%0, %2) : f32[2]
      %4 = const tensor([3.0, 5.0], f32) : f32[2]
      %5 = make_tuple(%1, %4) : (f32[2], f32[2])
      %6 = const tensor([1.0, 2.0, 3.0, 5.0], f32) : f32[4]
      %7 = const tensor(3, i64) : i64[]
      %8 = const tensor(5.0, f32) : f32[]
      %9 = make_tuple(%7, %8) : (i64[], f32[])
      %10 = Mul(%3, %8) : f32[2]
      %11 = const (2,) : py
      %12 = UniformReal[seed=1, seed2=2](%11) : f32[2]
      %13 = Add(%10, %12) : f32[2]
      return %13
    }"""


@pytest.mark.parametrize("backend", ["numpy", "torch"])
def test_constant_folding(backend):
    previous = ms.get_context("backend")
    ms.set_context(backend=backend)
    try:
        out = check(constant_folding, FOLD_BEFORE, FOLD_AFTER)
    finally:
        ms.set_context(backend=previous)
    folded = out.nodes[1]
    assert isinstance(folded.value, ms.Tensor) and folded.scope == "Default/Neg-op3" and folded.loc == "net.py:4"


def test_constant_folding_skips_large_results_and_kernel_errors(monkeypatch):
    text = """
        graph @main(%0 x: f32[3]) {
          %1 = const tensor([1.0, 2.0, 3.0], f32) : f32[3]
          %2 = Exp(%1) : f32[3]
          %3 = const tensor([5], i32) : i32[1]
          %4 = const 0 : py
          %5 = Gather(%1, %3, %4) : f32[1]
          %6 = Add(%0, %2) : f32[3]
          %7 = make_tuple(%6, %5) : (f32[3], f32[1])
          return %7
        }"""
    monkeypatch.setattr(folding_module, "MAX_ELEMENTS", 2)
    check(constant_folding, text, text, run=False)  # Exp's 3 elements exceed the limit; Gather's index is out of range


def test_constant_folding_inside_subgraphs():
    check(constant_folding, """
        graph @main(%0 x: f32[], %1 c: bool[]) {
          %2 = if(%1, %0) @then @else : f32[]
          return %2
        }
        graph @then(%0 a: f32[]) {
          %1 = const tensor(2.0, f32) : f32[]
          %2 = Mul(%1, %1) : f32[]
          %3 = Add(%0, %2) : f32[]
          return %3
        }
        graph @else(%0 a: f32[]) {
          return %0
        }
        """, """
        graph @main(%0 x: f32[], %1 c: bool[]) {
          %2 = if(%1, %0) @then @else : f32[]
          return %2
        }
        graph @then(%0 a: f32[]) {
          %1 = const tensor(2.0, f32) : f32[]
          %2 = const tensor(4.0, f32) : f32[]
          %3 = Add(%0, %2) : f32[]
          return %3
        }
        graph @else(%0 a: f32[]) {
          return %0
        }
        """)


# ---- algebraic_simplify -------------------------------------------------------------------------------------
def test_arithmetic_identities():
    check(algebraic_simplify, """
        graph @main(%0 x: f32[2,3]) {
          %1 = const tensor(1.0, f32) : f32[]
          %2 = Mul(%0, %1) : f32[2,3]
          %3 = Mul(%1, %2) : f32[2,3]
          %4 = const tensor([0.0, 0.0, 0.0], f32) : f32[3]
          %5 = Add(%3, %4) : f32[2,3]
          %6 = Add(%4, %5) : f32[2,3]
          %7 = Sub(%6, %4) : f32[2,3]
          %8 = RealDiv(%7, %1) : f32[2,3]
          %9 = Neg(%8) : f32[2,3]
          %10 = Neg(%9) : f32[2,3]
          %11 = Exp(%10) : f32[2,3]
          return %11
        }
        """, """
        graph @main(%0 x: f32[2,3]) {
          %1 = const tensor(1.0, f32) : f32[]
          %2 = const tensor([0.0, 0.0, 0.0], f32) : f32[3]
          %3 = Neg(%0) : f32[2,3]
          %4 = Exp(%0) : f32[2,3]
          return %4
        }
        """)


def test_identities_that_change_the_abstract_or_nan_semantics_stay():
    text = """
        graph @main(%0 x: f32[3], %1 i: i32[3]) {
          %2 = const tensor([[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]], f32) : f32[2,3]
          %3 = Mul(%0, %2) : f32[2,3]
          %4 = const tensor(0.0, f32) : f32[]
          %5 = Mul(%0, %4) : f32[3]
          %6 = Sub(%4, %0) : f32[3]
          %7 = const dtype.float16 : py
          %8 = Cast(%0, %7) : f16[3]
          %9 = const tensor(1, i32) : i32[]
          %10 = Div(%1, %9) : f32[3]
          %11 = const tensor([2.0, 1.0, 1.0], f32) : f32[3]
          %12 = Mul(%0, %11) : f32[3]
          %13 = make_tuple(%3, %5, %6, %8, %10, %12) : (f32[2,3], f32[3], f32[3], f16[3], f32[3], f32[3])
          return %13
        }"""
    check(algebraic_simplify, text, text)


def test_shape_identities():
    check(algebraic_simplify, """
        graph @main(%0 x: f32[2,3,4]) {
          %1 = const dtype.float32 : py
          %2 = Cast(%0, %1) : f32[2,3,4]
          %3 = const (6, 4) : py
          %4 = Reshape(%2, %3) : f32[6,4]
          %5 = const (2, 3, 4) : py
          %6 = Reshape(%4, %5) : f32[2,3,4]
          %7 = const (4, 6) : py
          %8 = Reshape(%4, %7) : f32[4,6]
          %9 = const (0, 1, 2) : py
          %10 = Transpose(%6, %9) : f32[2,3,4]
          %11 = const (2, 0, 1) : py
          %12 = Transpose(%10, %11) : f32[4,2,3]
          %13 = const (1, 2, 0) : py
          %14 = Transpose(%12, %13) : f32[2,3,4]
          %15 = const (0, 2, 1) : py
          %16 = Transpose(%12, %15) : f32[4,3,2]
          %17 = BroadcastTo[shape=(2, 3, 4)](%14) : f32[2,3,4]
          %18 = make_tuple(%8, %17, %16) : (f32[4,6], f32[2,3,4], f32[4,3,2])
          %19 = tuple_get_item[1](%18) : f32[2,3,4]
          %20 = Exp(%19) : f32[2,3,4]
          %21 = make_tuple(%8, %20, %16) : (f32[4,6], f32[2,3,4], f32[4,3,2])
          return %21
        }
        """, """
        graph @main(%0 x: f32[2,3,4]) {
          %1 = const dtype.float32 : py
          %2 = const (6, 4) : py
          %3 = Reshape(%0, %2) : f32[6,4]
          %4 = const (2, 3, 4) : py
          %5 = const (4, 6) : py
          %6 = Reshape(%0, %5) : f32[4,6]
          %7 = const (0, 1, 2) : py
          %8 = const (2, 0, 1) : py
          %9 = Transpose(%0, %8) : f32[4,2,3]
          %10 = const (1, 2, 0) : py
          %11 = const (0, 2, 1) : py
          %12 = const (2, 1, 0) : py
          %13 = Transpose(%0, %12) : f32[4,3,2]
          %14 = make_tuple(%6, %0, %13) : (f32[4,6], f32[2,3,4], f32[4,3,2])
          %15 = Exp(%0) : f32[2,3,4]
          %16 = make_tuple(%6, %15, %13) : (f32[4,6], f32[2,3,4], f32[4,3,2])
          return %16
        }
        """)


def test_rules_apply_inside_subgraphs():
    check(algebraic_simplify, """
        graph @main(%0 x: f32[2], %1 c: bool[]) {
          %2 = if(%1, %0) @then @else : f32[2]
          return %2
        }
        graph @then(%0 a: f32[2]) {
          %1 = Neg(%0) : f32[2]
          %2 = Neg(%1) : f32[2]
          return %2
        }
        graph @else(%0 a: f32[2]) {
          %1 = Exp(%0) : f32[2]
          return %1
        }
        """, """
        graph @main(%0 x: f32[2], %1 c: bool[]) {
          %2 = if(%1, %0) @then @else : f32[2]
          return %2
        }
        graph @then(%0 a: f32[2]) {
          %1 = Neg(%0) : f32[2]
          return %0
        }
        graph @else(%0 a: f32[2]) {
          %1 = Exp(%0) : f32[2]
          return %1
        }
        """)


# ---- cse --------------------------------------------------------------------------------------------------------
def test_cse():
    check(cse, """
        graph @main(%0 x: f32[2], %1 c: bool[]) {
          %2 = Mul(%0, %0) : f32[2]
          %3 = Mul(%0, %0) : f32[2]
          %4 = Add(%2, %3) : f32[2]
          %5 = const tensor([1.0, 2.0], f32) : f32[2]
          %6 = const tensor([1.0, 2.0], f32) : f32[2]
          %7 = const tensor([1.0, 2.0], f64) : f64[2]
          %8 = const 1 : py
          %9 = const 1.0 : py
          %10 = const 1 : py
          %11 = Add(%4, %5) : f32[2]
          %12 = Add(%4, %6) : f32[2]
          %13 = weight "w" : f32[2]
          %14 = weight "w" : f32[2]
          %15 = Sub(%13, %12) : f32[2]
          %16 = Sub(%14, %11) : f32[2]
          %17 = const (2,) : py
          %18 = UniformReal(%17) : f32[2]
          %19 = UniformReal(%17) : f32[2]
          %20 = Assign(%13, %15) : f32[2]
          %21 = weight "w" : f32[2]
          %22 = Sub(%21, %12) : f32[2]
          %23 = Sub(%13, %12) : f32[2]
          %24 = if(%1, %22) @branch @branch : f32[2]
          %25 = make_tuple(%16, %18, %19, %22, %23, %24, %7, %8, %9, %10) : (f32[2], f32[2], f32[2], f32[2], f32[2], f32[2], f64[2], py, py, py)
          return %25
        }
        graph @branch(%0 a: f32[2]) {
          %1 = Exp(%0) : f32[2]
          %2 = Exp(%0) : f32[2]
          %3 = Add(%1, %2) : f32[2]
          return %3
        }
        """, """
        graph @main(%0 x: f32[2], %1 c: bool[]) {
          %2 = Mul(%0, %0) : f32[2]
          %3 = Add(%2, %2) : f32[2]
          %4 = const tensor([1.0, 2.0], f32) : f32[2]
          %5 = const tensor([1.0, 2.0], f64) : f64[2]
          %6 = const 1 : py
          %7 = const 1.0 : py
          %8 = Add(%3, %4) : f32[2]
          %9 = weight "w" : f32[2]
          %10 = Sub(%9, %8) : f32[2]
          %11 = const (2,) : py
          %12 = UniformReal[seed=0, seed2=0](%11) : f32[2]
          %13 = UniformReal[seed=0, seed2=0](%11) : f32[2]
          %14 = Assign(%9, %10) : f32[2]
          %15 = weight "w" : f32[2]
          %16 = Sub(%15, %8) : f32[2]
          %17 = Sub(%9, %8) : f32[2]
          %18 = if(%1, %16) @branch @branch : f32[2]
          %19 = make_tuple(%10, %12, %13, %16, %17, %18, %5, %6, %7, %6) : (f32[2], f32[2], f32[2], f32[2], f32[2], f32[2], f64[2], py, py, py)
          return %19
        }
        graph @branch(%0 a: f32[2]) {
          %1 = Exp(%0) : f32[2]
          %2 = Add(%1, %1) : f32[2]
          return %2
        }
        """)


def test_cse_distinguishes_attributes_and_negative_zero():
    text = """
        graph @main(%0 x: f32[2,2]) {
          %1 = MatMul[transpose_a=False, transpose_b=True](%0, %0) : f32[2,2]
          %2 = MatMul[transpose_a=False, transpose_b=False](%0, %0) : f32[2,2]
          %3 = const tensor(0.0, f32) : f32[]
          %4 = const tensor(-0.0, f32) : f32[]
          %5 = const tensor([0.0, 0.0], f32) : f32[2]
          %6 = make_tuple(%1, %2, %3, %4, %5) : (f32[2,2], f32[2,2], f32[], f32[], f32[2])
          return %6
        }"""
    check(cse, text, text)


# ---- dce --------------------------------------------------------------------------------------------------------
def test_dce():
    check(dce, """
        graph @main(%0 x: f32[2], %1 c: bool[]) {
          %2 = Neg(%0) : f32[2]
          %3 = Exp(%0) : f32[2]
          %4 = weight "w" : f32[2]
          %5 = Mul(%4, %3) : f32[2]
          %6 = Assign(%4, %5) : f32[2]
          %7 = const (2,) : py
          %8 = UniformReal(%7) : f32[2]
          %9 = if(%1, %0) @pure @pure : f32[2]
          %10 = if(%1, %0) @effect @pure : f32[2]
          %11 = Sqrt(%3) : f32[2]
          %12 = make_tuple(%2, %3) : (f32[2], f32[2])
          %13 = tuple_get_item[0](%12) : f32[2]
          return %13
        }
        graph @pure(%0 a: f32[2]) {
          %1 = Exp(%0) : f32[2]
          %2 = Neg(%0) : f32[2]
          return %2
        }
        graph @effect(%0 a: f32[2]) {
          %1 = const (2,) : py
          %2 = StandardNormal(%1) : f32[2]
          return %0
        }
        """, """
        graph @main(%0 x: f32[2], %1 c: bool[]) {
          %2 = Neg(%0) : f32[2]
          %3 = Exp(%0) : f32[2]
          %4 = weight "w" : f32[2]
          %5 = Mul(%4, %3) : f32[2]
          %6 = Assign(%4, %5) : f32[2]
          %7 = const (2,) : py
          %8 = UniformReal[seed=0, seed2=0](%7) : f32[2]
          %9 = if(%1, %0) @effect @pure : f32[2]
          %10 = make_tuple(%2, %3) : (f32[2], f32[2])
          %11 = tuple_get_item[0](%10) : f32[2]
          return %11
        }
        graph @effect(%0 a: f32[2]) {
          %1 = const (2,) : py
          %2 = StandardNormal[seed=0, seed2=0](%1) : f32[2]
          return %0
        }
        graph @pure(%0 a: f32[2]) {
          %1 = Neg(%0) : f32[2]
          return %1
        }
        """)


# ---- layout_channels_last ---------------------------------------------------------------------------------------
LAYOUT_BEFORE = """
    graph @main(%0 x: f32[2,8,6,6]) {
      %1 = weight "conv1.weight" : f32[8,8,3,3]
      %2 = Conv2D[out_channel=8, kernel_size=(3, 3), pad_mode='pad', pad=(1, 1, 1, 1)](%0, %1) : f32[2,8,6,6]
      %3 = weight "bn.gamma" : f32[8]
      %4 = weight "bn.beta" : f32[8]
      %5 = weight "bn.mean" : f32[8]
      %6 = weight "bn.var" : f32[8]
      %7 = BatchNorm[is_training=True](%2, %3, %4, %5, %6) : (f32[2,8,6,6], f32[8], f32[8])
      %8 = tuple_get_item[0](%7) : f32[2,8,6,6]
      %9 = ReLU(%8) : f32[2,8,6,6]
      %10 = Add(%9, %0) : f32[2,8,6,6]
      %11 = MaxPool[kernel_size=2, strides=2](%10) : f32[2,8,3,3]
      %12 = Flatten(%11) : f32[2,72]
      %13 = const () : py
      %14 = ReduceSum(%10, %13) : f32[]
      %15 = tuple_get_item[1](%7) : f32[8]
      %16 = make_tuple(%12, %14, %15, %9) : (f32[2,72], f32[], f32[8], f32[2,8,6,6])
      return %16
    }"""
LAYOUT_AFTER = """
    graph @main(%0 x: f32[2,8,6,6]) {
      %1 = weight "conv1.weight" : f32[8,8,3,3]
      %2 = ToChannelsLast(%0) : f32[2,8,6,6]
      %3 = ToChannelsLast(%1) : f32[8,8,3,3]
      %4 = Conv2D[out_channel=8, kernel_size=(3, 3), pad_mode='pad', pad=(1, 1, 1, 1)](%2, %3) : f32[2,8,6,6]
      %5 = weight "bn.gamma" : f32[8]
      %6 = weight "bn.beta" : f32[8]
      %7 = weight "bn.mean" : f32[8]
      %8 = weight "bn.var" : f32[8]
      %9 = BatchNorm[is_training=True](%4, %5, %6, %7, %8) : (f32[2,8,6,6], f32[8], f32[8])
      %10 = tuple_get_item[0](%9) : f32[2,8,6,6]
      %11 = ReLU(%10) : f32[2,8,6,6]
      %12 = Add(%11, %2) : f32[2,8,6,6]
      %13 = MaxPool[kernel_size=2, strides=2](%12) : f32[2,8,3,3]
      %14 = ToContiguous(%13) : f32[2,8,3,3]
      %15 = Flatten(%14) : f32[2,72]
      %16 = const () : py
      %17 = ReduceSum(%12, %16) : f32[]
      %18 = tuple_get_item[1](%9) : f32[8]
      %19 = ToContiguous(%11) : f32[2,8,6,6]
      %20 = make_tuple(%15, %17, %18, %19) : (f32[2,72], f32[], f32[8], f32[2,8,6,6])
      return %20
    }"""


@pytest.mark.parametrize("backend", ["numpy", "torch"])
def test_layout_channels_last(backend):
    previous = ms.get_context("backend")
    ms.set_context(backend=backend)
    try:
        out = check(layout_channels_last, LAYOUT_BEFORE, LAYOUT_AFTER)
    finally:
        ms.set_context(backend=previous)
    assert layout_channels_last(out) is out or print_graph(layout_channels_last(out)) == print_graph(out)


def test_layout_leaves_small_or_grouped_convolutions():
    text = """
        graph @main(%0 x: f32[2,3,6,6], %1 w: f32[4,3,3,3], %2 y: f32[2,8,6,6], %3 v: f32[8,4,3,3]) {
          %4 = Conv2D[out_channel=4, kernel_size=(3, 3)](%0, %1) : f32[2,4,4,4]
          %5 = ReLU(%4) : f32[2,4,4,4]
          %6 = Conv2D[out_channel=8, kernel_size=(3, 3), group=2](%2, %3) : f32[2,8,4,4]
          %7 = make_tuple(%5, %6) : (f32[2,4,4,4], f32[2,8,4,4])
          return %7
        }"""
    check(layout_channels_last, text, text)


def test_layout_primitives_change_only_the_memory_format():
    from openspore.core.primitive import PRIMITIVES
    previous = ms.get_context("backend")
    ms.set_context(backend="torch")
    try:
        import torch
        x = ms.Tensor(np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5))
        cl = PRIMITIVES["ToChannelsLast"]()(x)
        assert cl.data_ref().is_contiguous(memory_format=torch.channels_last) and cl.shape == (2, 3, 4, 5)
        back = PRIMITIVES["ToContiguous"]()(cl)
        assert back.data_ref().is_contiguous()
        np.testing.assert_array_equal(cl.asnumpy(), x.asnumpy())
        np.testing.assert_array_equal(back.asnumpy(), x.asnumpy())
        grad = ms.grad(lambda t: (PRIMITIVES["ToChannelsLast"]()(t) * 2).sum())(x)
        np.testing.assert_array_equal(grad.asnumpy(), np.full((2, 3, 4, 5), 2, np.float32))
    finally:
        ms.set_context(backend=previous)


def test_layout_converts_a_parameter_again_after_it_is_assigned():
    previous = ms.get_context("backend")
    ms.set_context(backend="torch")
    try:
        check(layout_channels_last, """
            graph @main(%0 x: f32[1,8,4,4]) {
              %1 = weight "w" : f32[8,8,3,3]
              %2 = Conv2D[out_channel=8, kernel_size=3, pad_mode='pad', pad=1](%0, %1) : f32[1,8,4,4]
              %3 = const tensor(0.5, f32) : f32[]
              %4 = Mul(%1, %3) : f32[8,8,3,3]
              %5 = Assign(%1, %4) : f32[8,8,3,3]
              %6 = Conv2D[out_channel=8, kernel_size=3, pad_mode='pad', pad=1](%2, %1) : f32[1,8,4,4]
              return %6
            }
            """, """
            graph @main(%0 x: f32[1,8,4,4]) {
              %1 = weight "w" : f32[8,8,3,3]
              %2 = ToChannelsLast(%0) : f32[1,8,4,4]
              %3 = ToChannelsLast(%1) : f32[8,8,3,3]
              %4 = Conv2D[out_channel=8, kernel_size=3, pad_mode='pad', pad=1](%2, %3) : f32[1,8,4,4]
              %5 = const tensor(0.5, f32) : f32[]
              %6 = Mul(%1, %5) : f32[8,8,3,3]
              %7 = Assign(%1, %6) : f32[8,8,3,3]
              %8 = ToChannelsLast(%1) : f32[8,8,3,3]
              %9 = Conv2D[out_channel=8, kernel_size=3, pad_mode='pad', pad=1](%4, %8) : f32[1,8,4,4]
              %10 = ToContiguous(%9) : f32[1,8,4,4]
              return %10
            }
            """)
    finally:
        ms.set_context(backend=previous)
