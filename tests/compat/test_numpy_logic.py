"""mindspore.numpy's reductions to truth values: `array_equal`/`array_equiv` give 0-d bool Tensors (also for
shapes that differ), `all`/`any`/`sometrue` reduce like NumPy's (values checked against MindSpore 2.10)."""
import numpy as onp
import pytest

import openspore.numpy as mnp
from openspore import Tensor


def _v(t):
    assert isinstance(t, Tensor)
    return t.asnumpy().tolist()


def test_array_equal_and_equiv_are_tensors():
    assert _v(mnp.array_equal([1, 2], [1, 2])) is True
    assert _v(mnp.array_equal([1], [1, 2])) is False
    nan = float("nan")
    assert _v(mnp.array_equal([1.0, nan], [1.0, nan])) is False
    assert _v(mnp.array_equal([1.0, nan], [1.0, nan], equal_nan=True)) is True
    assert _v(mnp.array_equiv([1, 2], [[1, 2], [1, 2]])) is True
    assert _v(mnp.array_equiv([1, 2], [[1, 2], [1, 3]])) is False
    assert _v(mnp.array_equiv([1, 2, 3], [1, 2])) is False


@pytest.mark.parametrize("axis,keepdims", [(None, False), (0, False), ((0, -1), False), ((0, 1), True),
                                           ((0, 1), -1), (1, 0)])
def test_all_any_sometrue_match_numpy(axis, keepdims):
    data = onp.array([[True, False], [True, False], [False, False]])
    x = Tensor(data)
    kd = bool(keepdims)
    assert _v(mnp.sometrue(x, axis=axis, keepdims=keepdims)) == onp.any(data, axis=axis, keepdims=kd).tolist()
    assert _v(mnp.any(x, axis=axis, keepdims=keepdims)) == onp.any(data, axis=axis, keepdims=kd).tolist()
    assert _v(mnp.all(x, axis=axis, keepdims=keepdims)) == onp.all(data, axis=axis, keepdims=kd).tolist()
    assert _v(mnp.any([0.0, 2.5])) is True and _v(mnp.all([0.0, 2.5])) is False
