"""Passes as IR text before → after: cse, dce, layout_channels_last (see pass_check.py for what each check does)."""
import numpy as np
import pytest

import openspore as ms
from openspore.compiler.passes.cse import cse
from openspore.compiler.passes.dce import dce
from openspore.compiler.passes.layout_channels_last import layout_channels_last
from openspore.ir import print_graph
from tests.device import use_backend

from .pass_check import check


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
    use_backend(backend)
    try:
        out = check(layout_channels_last, LAYOUT_BEFORE, LAYOUT_AFTER)
    finally:
        use_backend(previous)
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
    use_backend("torch")
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
        use_backend(previous)


def test_layout_converts_a_parameter_again_after_it_is_assigned():
    previous = ms.get_context("backend")
    use_backend("torch")
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
        use_backend(previous)


def test_layout_keeps_a_conversion_across_writes_of_other_parameters():
    """BatchNorm's moving-average writes sit between a convolution's forward and backward: they write other
    Parameters, so the weight's conversion made for the forward serves the second reader too."""
    previous = ms.get_context("backend")
    use_backend("torch")
    try:
        check(layout_channels_last, """
            graph @main(%0 x: f32[1,8,4,4]) {
              %1 = weight "w" : f32[8,8,3,3]
              %2 = weight "moving_mean" : f32[8]
              %3 = Conv2D[out_channel=8, kernel_size=3, pad_mode='pad', pad=1](%0, %1) : f32[1,8,4,4]
              %4 = const tensor(0.5, f32) : f32[]
              %5 = Mul(%2, %4) : f32[8]
              %6 = AssignSub(%2, %5) : f32[8]
              %7 = Conv2D[out_channel=8, kernel_size=3, pad_mode='pad', pad=1](%3, %1) : f32[1,8,4,4]
              return %7
            }
            """, """
            graph @main(%0 x: f32[1,8,4,4]) {
              %1 = weight "w" : f32[8,8,3,3]
              %2 = weight "moving_mean" : f32[8]
              %3 = ToChannelsLast(%0) : f32[1,8,4,4]
              %4 = ToChannelsLast(%1) : f32[8,8,3,3]
              %5 = Conv2D[out_channel=8, kernel_size=3, pad_mode='pad', pad=1](%3, %4) : f32[1,8,4,4]
              %6 = const tensor(0.5, f32) : f32[]
              %7 = Mul(%2, %6) : f32[8]
              %8 = AssignSub(%2, %7) : f32[8]
              %9 = Conv2D[out_channel=8, kernel_size=3, pad_mode='pad', pad=1](%5, %4) : f32[1,8,4,4]
              %10 = ToContiguous(%9) : f32[1,8,4,4]
              return %10
            }
            """)
    finally:
        use_backend(previous)


def test_layout_takes_a_thin_first_convolution_of_a_graph_input():
    """ResNet's stem reads the 3-channel image: as the first convolution (its data input is a graph input, so no
    input gradient is computed) only its output channels count; the same thin input elsewhere is left NCHW."""
    stem = """
        graph @main(%0 x: f32[2,3,6,6], %1 w: f32[8,3,3,3]) {
          %2 = Conv2D[out_channel=8, kernel_size=(3, 3), pad_mode='pad', pad=(1, 1, 1, 1)](%0, %1) : f32[2,8,6,6]
          %3 = ReLU(%2) : f32[2,8,6,6]
          return %3
        }"""
    out = print_graph(layout_channels_last(_parse(stem)))
    assert "Conv2D" in out and out.count("ToChannelsLast") == 2 and "ToContiguous" in out, out
    inner = """
        graph @main(%0 x: f32[2,3,6,6], %1 w: f32[8,3,3,3]) {
          %2 = Neg(%0) : f32[2,3,6,6]
          %3 = Conv2D[out_channel=8, kernel_size=(3, 3), pad_mode='pad', pad=(1, 1, 1, 1)](%2, %1) : f32[2,8,6,6]
          return %3
        }"""
    check(layout_channels_last, inner, inner)


def _parse(text):
    from openspore.ir.parser import parse_graph
    return parse_graph(text)
