"""MindSpore's dtype classes `Int` and `TensorType`, and the `QuantDtype` enum (mindspore.common.dtype).

openspore's dtypes are `Type` singletons; these classes answer `isinstance` by a dtype's kind, as MindSpore's
type classes do (`isinstance(ms.int32, ms.Int)`), and build the matching dtype: `Int(32)` is `int32`.

>>> import openspore as ms
>>> isinstance(ms.int32, ms.Int), isinstance(ms.float32, ms.Int), ms.Int(16) == ms.int16
(True, False, True)
>>> t = ms.TensorType(ms.float32)
>>> isinstance(t, ms.TensorType), t.element_type(), isinstance(ms.tensor_type, ms.TensorType)
(True, mindspore.float32, True)
>>> ms.QuantDtype.INT4.value, ms.QuantDtype.UINT8.value
(3, 107)
"""
import enum

from . import dtype as _dtype

__all__ = ["Int", "TensorType", "QuantDtype"]


class _KindMeta(type):
    def __instancecheck__(cls, obj):
        return type.__instancecheck__(cls, obj) or cls._matches(obj)


class Int(metaclass=_KindMeta):
    """`Int(nbits=None)`: the signed integer dtype of that width (`Int()` is the width-less `int_`); every signed
    integer dtype is an instance."""

    def __new__(cls, nbits=None):
        if nbits is None:
            return _dtype.int_
        by_bits = {8: _dtype.int8, 16: _dtype.int16, 32: _dtype.int32, 64: _dtype.int64}
        if nbits not in by_bits:
            raise ValueError(f"For 'Int', the 'nbits' must be 8, 16, 32 or 64, but got {nbits!r}.")
        return by_bits[nbits]

    @staticmethod
    def _matches(obj):
        return isinstance(obj, _dtype.Type) and (obj.kind == "int" or obj is _dtype.int_)


class TensorType(metaclass=_KindMeta):
    """`TensorType(element_type)`: the type of tensors of `element_type`; `mindspore.tensor_type` (no element
    type) is one too."""

    def __init__(self, element_type=None):
        if element_type is not None and not isinstance(element_type, _dtype.Type):
            raise TypeError(f"For 'TensorType', the 'element_type' must be a dtype, but got "
                            f"{type(element_type).__name__}.")
        self._element = element_type

    def element_type(self):
        return self._element

    def __eq__(self, other):
        return isinstance(other, TensorType) and type.__instancecheck__(TensorType, other) \
            and other._element == self._element

    def __hash__(self):
        return hash(("TensorType", self._element))

    def __repr__(self):
        return f"Tensor[{self._element}]" if self._element is not None else "TensorType"

    @staticmethod
    def _matches(obj):
        return obj is _dtype.tensor_type


QuantDtype = enum.Enum("QuantDtype", [(f"INT{n}", n - 1) for n in range(1, 17)] + [(f"UINT{n}", 99 + n)
                                                                                     for n in range(1, 17)],
                       module=__name__)
QuantDtype.__doc__ = ("Integer widths of quantized data: INT1..INT16 are 0..15, UINT1..UINT16 are 100..115 "
                      "(MindSpore's values).")
