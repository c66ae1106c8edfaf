"""Passes as IR text before → after: inline, dead_branch, constant_folding, algebraic_simplify (each check also
verifies the result, checks the input graph is untouched and compares values; see pass_check.py)."""
import pytest

import openspore as ms
from openspore.compiler.passes import constant_folding as folding_module
from openspore.compiler.passes.algebraic_simplify import algebraic_simplify
from openspore.compiler.passes.constant_folding import constant_folding
from openspore.compiler.passes.dead_branch import dead_branch
from openspore.compiler.passes.inline import inline
from openspore.ir import print_graph
from openspore.ir.parser import parse_graph
from tests.device import use_backend

from .pass_check import check


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
    use_backend(backend)
    try:
        out = check(constant_folding, FOLD_BEFORE, FOLD_AFTER)
    finally:
        use_backend(previous)
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


def test_mul_by_ones_like_is_the_other_factor():
    """A training step's loss-gradient seed, Mul(g, OnesLike(loss)), is g; a broadcasting product stays."""
    check(algebraic_simplify, """
        graph @main(%0 g: f32[2,3], %1 loss: f32[]) {
          %2 = OnesLike(%1) : f32[]
          %3 = Mul(%0, %2) : f32[2,3]
          %4 = OnesLike(%0) : f32[2,3]
          %5 = Mul(%4, %1) : f32[2,3]
          %6 = Mul(%2, %1) : f32[]
          %7 = make_tuple(%3, %5, %6) : (f32[2,3], f32[2,3], f32[])
          return %7
        }
        """, """
        graph @main(%0 g: f32[2,3], %1 loss: f32[]) {
          %2 = OnesLike(%1) : f32[]
          %3 = OnesLike(%0) : f32[2,3]
          %4 = Mul(%3, %1) : f32[2,3]
          %5 = make_tuple(%0, %4, %1) : (f32[2,3], f32[2,3], f32[])
          return %5
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
