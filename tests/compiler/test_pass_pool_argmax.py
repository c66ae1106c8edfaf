"""pool_argmax_reuse: IR text before → after, values unchanged (pass_check)."""
import pytest

from openspore.compiler.passes.pool_argmax_reuse import pool_argmax_reuse

from .pass_check import check

POOL = "kernel_size=(1, 1, 2, 2), strides=(1, 1, 2, 2), pad_mode='valid', data_format='NCHW'"
SAME = "kernel_size=(1, 1, 2, 2), strides=(1, 1, 2, 2), pad_mode='same', data_format='NCHW'"


V2 = "kernel_size=(2, 2), strides=(2, 2), pads=(0, 0), dilation=(1, 1), ceil_mode=False, argmax_type=dtype.int64"


# An unpadded MaxPool's backward rule pools with MaxPoolWithArgmaxV2 (an int64 mask, torch's index type);
# MindSpore's 'same' padding keeps MaxPoolWithArgmax (an int32 mask).
@pytest.mark.parametrize("pool, twin, mask", [(POOL, f"MaxPoolWithArgmaxV2[{V2}]", "i64"),
                                              (SAME, f"MaxPoolWithArgmax[{SAME}]", "i32")], ids=["valid", "same"])
def test_forward_pool_reads_the_backward_argmax(pool, twin, mask):
    before = f"""
graph @f(%0 x: f32[1,1,4,4], %1 d: f32[1,1,2,2]) {{
  %2 = MaxPool[{pool}](%0) : f32[1,1,2,2]
  %3 = {twin}(%0) : (f32[1,1,2,2], {mask}[1,1,2,2])
  %4 = tuple_get_item[1](%3) : {mask}[1,1,2,2]
  %5 = MaxPoolGradWithArgmax(%0, %1, %4) : f32[1,1,4,4]
  %6 = make_tuple(%2, %5) : (f32[1,1,2,2], f32[1,1,4,4])
  return %6
}}"""
    after = f"""
graph @f(%0 x: f32[1,1,4,4], %1 d: f32[1,1,2,2]) {{
  %2 = {twin}(%0) : (f32[1,1,2,2], {mask}[1,1,2,2])
  %3 = tuple_get_item[0](%2) : f32[1,1,2,2]
  %4 = tuple_get_item[1](%2) : {mask}[1,1,2,2]
  %5 = MaxPoolGradWithArgmax(%0, %1, %4) : f32[1,1,4,4]
  %6 = make_tuple(%3, %5) : (f32[1,1,2,2], f32[1,1,4,4])
  return %6
}}"""
    check(pool_argmax_reuse, before, after)


def test_different_windows_are_left_alone():
    other = "kernel_size=(1, 1, 3, 3), strides=(1, 1, 1, 1), pad_mode='valid', data_format='NCHW'"
    text = f"""
graph @f(%0 x: f32[1,1,4,4]) {{
  %1 = MaxPool[{POOL}](%0) : f32[1,1,2,2]
  %2 = MaxPoolWithArgmax[{other}](%0) : (f32[1,1,2,2], i32[1,1,2,2])
  %3 = tuple_get_item[0](%2) : f32[1,1,2,2]
  %4 = Add(%1, %3) : f32[1,1,2,2]
  return %4
}}"""
    check(pool_argmax_reuse, text, text)
