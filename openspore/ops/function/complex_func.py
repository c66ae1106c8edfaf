"""Complex-number functions of MindSpore's ops namespace on the Complex/Real/Imag/Conj/Angle primitives
(ops/defs/math_complex.py): real, imag, conj, angle, polar and view_as_real. All are differentiable.

>>> import openspore as ms
>>> z = ms.ops.polar(ms.Tensor([2.0]), ms.Tensor([0.0]))
>>> ms.ops.view_as_real(z).asnumpy().tolist()
[[2.0, 0.0]]
"""
from ...core.primitive import PRIMITIVES
from ...core.tensor import Tensor
from ._base_ops import F

__all__ = ["real", "imag", "conj", "angle", "polar", "view_as_real"]


def _tensor(fn, name, value):
    if not isinstance(value, Tensor):
        raise TypeError(f"For '{fn}', '{name}' must be a Tensor, but got {type(value).__name__}.")
    return value


def real(input):
    """The real part of `input` (a real tensor is returned as is)."""
    return PRIMITIVES["Real"]()(_tensor("real", "input", input))


def imag(input):
    """The imaginary part of `input` (zeros for a real tensor)."""
    return PRIMITIVES["Imag"]()(_tensor("imag", "input", input))


def conj(input):
    """The complex conjugate of `input` (a real tensor is returned as is)."""
    return PRIMITIVES["Conj"]()(_tensor("conj", "input", input))


def angle(input):
    """The argument atan2(imag, real) of a complex `input`, in (−π, π]."""
    return PRIMITIVES["Angle"]()(_tensor("angle", "input", input))


def polar(abs, angle):
    """abs · (cos(angle) + i·sin(angle)): complex64 from float32 inputs, complex128 from float64."""
    r, theta = _tensor("polar", "abs", abs), _tensor("polar", "angle", angle)
    return PRIMITIVES["Complex"]()(F.mul(r, F.cos(theta)), F.mul(r, F.sin(theta)))


def view_as_real(input):
    """A complex tensor as real numbers: shape (..., 2) holding (real, imag) pairs (a copy, not a view)."""
    x = _tensor("view_as_real", "input", input)
    if x.dtype.kind != "complex":
        raise TypeError(f"For 'view_as_real', the dtype of 'input' must be complex, but got {x.dtype}.")
    return F.stack((real(x), imag(x)), -1)
