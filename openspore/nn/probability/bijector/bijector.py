"""`Bijector`: the base Cell of MindSpore's invertible transformations y = f(x).

A subclass registers its parameters with `_add_parameter` and defines `_forward`, `_inverse`,
`_forward_log_jacobian` (log |f'(x)|) and `_inverse_log_jacobian` (log |(f⁻¹)'(y)|). Values must be float
Tensors; with `dtype` given they must be of that dtype, without it the parameters are cast to the value's.

>>> import numpy as np, openspore as ms
>>> import openspore.nn.probability.bijector as msb
>>> b = msb.ScalarAffine(scale=2.0, shift=1.0)
>>> x = ms.Tensor(np.array([1.0, 2.0], np.float32))
>>> b.forward(x).asnumpy().tolist(), b('inverse', x).asnumpy().tolist()
([3.0, 5.0], [0.0, 0.5])
"""
import numpy as np

from .... import ops
from ....common import dtype as mstype
from ....core.tensor import Tensor
from ...cell import Cell
from .._checks import as_array, broadcast_shape, check_name, is_float_dtype

__all__ = ["Bijector"]

_FUNCTIONS = ("forward", "inverse", "forward_log_jacobian", "inverse_log_jacobian")


class Bijector(Cell):
    """Base class: `Bijector(is_constant_jacobian=False, is_injective=True, name=None, dtype=None, param=None)`."""

    def __init__(self, is_constant_jacobian=False, is_injective=True, name=None, dtype=None, param=None):
        super().__init__()
        name = type(self).__name__ if name is None else name
        check_name(name, "Bijector")
        if not isinstance(is_constant_jacobian, bool) or not isinstance(is_injective, bool):
            raise TypeError(f"For '{name}', 'is_constant_jacobian' and 'is_injective' should be bools.")
        if dtype is not None and not is_float_dtype(dtype):
            raise TypeError(f"For '{name}', the 'dtype' should be None or a float dtype, but got {dtype}.")
        self._name = name
        self._dtype = dtype
        self._parameters = {k: v for k, v in dict(param or {}).items() if k not in ("self", "__class__")}
        self._is_constant_jacobian = is_constant_jacobian
        self._is_injective = is_injective
        self._param_dtype = None  # the dtype shared by the array parameters given so far
        self._batch_shape = ()
        self._is_scalar_batch = True

    @property
    def name(self):
        return self._name

    @property
    def dtype(self):
        return self._dtype

    @property
    def parameters(self):
        return self._parameters

    @property
    def is_constant_jacobian(self):
        return self._is_constant_jacobian

    @property
    def is_injective(self):
        return self._is_injective

    @property
    def batch_shape(self):
        return self._batch_shape

    @property
    def is_scalar_batch(self):
        return self._is_scalar_batch

    def _add_parameter(self, value, name):
        """A float parameter as a Tensor; all array parameters must share one float dtype (and `dtype`, if set)."""
        if value is None or isinstance(value, (bool, np.bool_, int, list, tuple, str)):
            raise TypeError(f"For '{self._name}', the parameter '{name}' should be a float, a float numpy array "
                            f"or a float Tensor, but got {type(value).__name__}.")
        if isinstance(value, float):
            tensor = Tensor(np.asarray(value, np.float32), dtype=self._dtype or self._param_dtype or mstype.float32)
        else:
            array = as_array(value, name)
            tensor = value if isinstance(value, Tensor) else Tensor(array)
            if not is_float_dtype(tensor.dtype):
                raise TypeError(f"For '{self._name}', the 'dtype of {name}' should be one of "
                                f"{[mstype.float16, mstype.float32, mstype.float64]}, but got {tensor.dtype}.")
            expected = self._dtype or self._param_dtype
            if expected is not None and tensor.dtype != expected:
                raise TypeError(f"For '{self._name}', the parameter '{name}' has dtype {tensor.dtype} but the "
                                f"bijector's parameters have dtype {expected}; they must match.")
            self._param_dtype = tensor.dtype
        self._batch_shape = broadcast_shape([self._batch_shape, tensor.shape], self._name)
        self._is_scalar_batch = self._is_scalar_batch and tensor.shape == ()
        return tensor

    def _check_value_dtype(self, value):
        if not isinstance(value, Tensor):
            raise TypeError(f"For '{self._name}', the input value should be a Tensor, but got "
                            f"{type(value).__name__}.")
        if not is_float_dtype(value.dtype):
            raise TypeError(f"For '{self._name}', the input value should be a float Tensor, but got {value.dtype}.")
        if self._dtype is not None and value.dtype != self._dtype:
            raise TypeError(f"For '{self._name}', the input value's dtype {value.dtype} should be the "
                            f"bijector's dtype {self._dtype}.")
        return value

    def _check_value(self, value, name="value"):
        return self._check_value_dtype(value)

    def cast_param_by_value(self, value, para):
        """The parameter in the value's dtype (bijectors without a dtype follow their input)."""
        if para is None or para.dtype == value.dtype:
            return para
        return ops.cast(para, value.dtype)

    def shape_mapping(self, shape):
        return self._shape_mapping(shape)

    def _shape_mapping(self, shape):
        return shape

    def _call(self, func, value, *args, **kwargs):
        impl = getattr(type(self), "_" + func, None)
        if impl is None:
            raise NotImplementedError(f"{func} is not implemented for {self._name} bijector.")
        return getattr(self, "_" + func)(self._check_value_dtype(value), *args, **kwargs)

    def forward(self, value, *args, **kwargs):
        return self._call("forward", value, *args, **kwargs)

    def inverse(self, value, *args, **kwargs):
        return self._call("inverse", value, *args, **kwargs)

    def forward_log_jacobian(self, value, *args, **kwargs):
        return self._call("forward_log_jacobian", value, *args, **kwargs)

    def inverse_log_jacobian(self, value, *args, **kwargs):
        return self._call("inverse_log_jacobian", value, *args, **kwargs)

    def construct(self, name, *args, **kwargs):
        """`bijector('forward', x)`: the function named `name`."""
        if name not in _FUNCTIONS:
            raise ValueError(f"For '{self._name}', '{name}' is not a bijector function; expected one of "
                             f"{list(_FUNCTIONS)}.")
        return getattr(self, name)(*args, **kwargs)
