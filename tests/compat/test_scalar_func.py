"""ops' helpers on Python values and the tensor_* aliases."""
import numpy as np
import pytest

import openspore as ms
from openspore import ops


def test_scalar_and_sequence_helpers():
    assert (ops.scalar_add(2, 3), ops.scalar_sub(2, 3), ops.scalar_div(3, 2), ops.scalar_floordiv(7, 2)) == (5, -1, 1.5, 3)
    assert ops.scalar_max(1, 4) == 4 and ops.scalar_usub(3) == -3 and ops.scalar_log(1.0) == 0.0
    assert ops.scalar_cast(2.7, ms.int32) == 2 and ops.scalar_cast(1, ms.float32) == 1.0
    assert ops.scalar_to_tensor(3, ms.int32).dtype == ms.int32
    assert ops.tuple_setitem((1, 2, 3), 1, 9) == (1, 9, 3) and ops.tuple_reversed((1, 2)) == (2, 1)
    assert ops.make_range(1, 5, 2) == (1, 3) and ops.make_range(3) == (0, 1, 2)
    assert ops.tuple_div((4, 6), (2, 3)) == (2, 2)
    with pytest.raises(ValueError, match="exactly divisible"):
        ops.tuple_div((5,), (2,))
    assert ops.list_setitem([1, 2], 0, 7) == [7, 2] and ops.dict_setitem({"a": 1}, "b", 2) == {"a": 1, "b": 2}
    assert ops.in_dict("a", {"a": 1}) and ops.not_in_dict("b", {"a": 1}) and ops.shape_mul((2, 3, 4)) == 24
    assert ops.array_to_scalar(ms.Tensor(np.array([2.5], np.float32))) == 2.5
    assert ops.tuple_to_array((1, 2)).dtype == ms.int64 and ops.bool_not(False) and ops.is_not(1, None)


def test_tensor_aliases():
    x = ms.Tensor(np.array([1.0, 4.0], np.float32))
    assert ops.tensor_add is ops.add and ops.tensor_mul(x, x).asnumpy().tolist() == [1.0, 16.0]
    assert ops.tensor_gt(x, 2.0).asnumpy().tolist() == [False, True]
