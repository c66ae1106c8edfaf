"""`mindspore.common.tensor`: the module path of Tensor (re-exported from core), plus `swap_tensors`.

>>> import numpy as np
>>> from openspore.common.tensor import Tensor, swap_tensors
>>> a, b = Tensor(np.zeros(2, np.float32)), Tensor(np.ones(3, np.float32))
>>> swap_tensors(a, b)
>>> a.shape, b.shape
((3,), (2,))
"""
from ..core.tensor import Tensor, tensor  # noqa: F401

__all__ = ["Tensor", "tensor", "swap_tensors"]


def swap_tensors(t1, t2):
    """Exchange the contents (data, shape, dtype) of two Tensors in place, as MindSpore's `swap_tensors` does."""
    if not isinstance(t1, Tensor) or not isinstance(t2, Tensor):
        raise TypeError(f"For 'swap_tensors', both arguments must be Tensors, but got {type(t1).__name__} and "
                        f"{type(t2).__name__}.")
    data1, dtype1 = t1.data_ref(), t1.dtype
    t1._set_data_ref(t2.data_ref(), t2.dtype)
    t2._set_data_ref(data1, dtype1)
