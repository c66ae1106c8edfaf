"""Primitives: complex numbers — Complex (real, imag → z), Real, Imag, Conj, ComplexAbs (|z|) and Angle (arg z).

Gradients follow the convention "∂L/∂x + i·∂L/∂y" for z = x + iy (a complex cotangent carries the real-part
derivative in its real part and the imaginary-part derivative in its imaginary part), so Complex's backward splits
the cotangent into its parts, Real's and Imag's put a real cotangent back into one part, and Conj negates the
imaginary part. Real/Imag/Conj of a real tensor are the tensor itself, zeros and the tensor (MindSpore 2.10);
ComplexAbs and Angle accept complex tensors only.

>>> import numpy as np, openspore as ms
>>> from openspore.core.primitive import PRIMITIVES
>>> z = PRIMITIVES["Complex"]()(ms.Tensor([3.0]), ms.Tensor([4.0]))
>>> PRIMITIVES["ComplexAbs"]()(z).asnumpy().tolist(), PRIMITIVES["Imag"]()(z).asnumpy().tolist()
([5.0], [4.0])
"""
import numpy as np

from ...common import dtype as mstype
from ...core.primitive import AbstractTensor, Primitive, Sample, register
from ._export import NO_MINDIR, NO_ONNX, not_exportable
from ._util import broadcast_shape, check_dtype, check_same_dtype, check_tensor, prim, rand_float


def _real_of(dtype):
    return mstype.float64 if dtype is mstype.complex128 else mstype.float32


def _complex_sample(rng, shape, dtype=np.complex64):
    return (rand_float(rng, shape) + 1j * rand_float(rng, shape)).astype(dtype)


def _parts(z):
    return Real()(z), Imag()(z)


@register
class Complex(Primitive):
    """Complex()(real, imag): real + i·imag, elementwise with broadcasting (float32 → complex64, float64 →
    complex128; both inputs of one dtype)."""
    input_names = ("real", "imag")

    def infer(self, real, imag):
        for name, t in (("real", real), ("imag", imag)):
            check_tensor(self.name, name, t)
        check_same_dtype(self.name, ("real", "imag"), real, imag)
        if real.dtype not in (mstype.float32, mstype.float64):
            raise TypeError(f"For '{self.name}', 'real' and 'imag' must be float32 or float64, "
                            f"but got {real.dtype}.")
        out = mstype.complex128 if real.dtype is mstype.float64 else mstype.complex64
        return AbstractTensor(broadcast_shape(self.name, real, imag), out)

    def numpy(self, np, real, imag):
        out = np.complex128 if real.dtype == np.float64 else np.complex64
        return (real + 1j * imag).astype(out)

    def torch(self, torch, real, imag):
        real, imag = torch.broadcast_tensors(real, imag)
        return torch.complex(real.contiguous(), imag.contiguous())

    def bprop(self, real, imag, out, dout):
        from ._util import sum_to_shape
        return sum_to_shape(Real()(dout), real.shape), sum_to_shape(Imag()(dout), imag.shape)

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (3, 4)), rand_float(rng, (3, 4)), grad=())
        yield Sample(rand_float(rng, (2, 1), dtype=np.float64), rand_float(rng, (3,), dtype=np.float64), grad=(),
                     name="broadcast64")


class _Part(Primitive):
    """<Part>()(x): one real part of a complex tensor (a real tensor passes as its own real part)."""
    input_names = ("x",)

    def infer(self, x):
        check_tensor(self.name, "x", x)
        check_dtype(self.name, "x", x, ("bool", "int", "uint", "float", "complex"))
        return AbstractTensor(tuple(x.shape), _real_of(x.dtype) if x.dtype.kind == "complex" else x.dtype)

    @classmethod
    def samples(cls, rng):
        yield Sample(_complex_sample(rng, (3, 4)), grad=())
        yield Sample(_complex_sample(rng, (5,), np.complex128), grad=(), name="c128")
        yield Sample(rand_float(rng, (2, 3)), name="real")


@register
class Real(_Part):
    """Real()(x): the real part of x."""

    def numpy(self, np, x):
        return np.ascontiguousarray(np.real(x))

    def torch(self, torch, x):
        return torch.real(x).contiguous() if x.is_complex() else x

    def bprop(self, x, out, dout):
        if x.dtype.kind != "complex":
            return (dout,)
        return (Complex()(dout, prim("ZerosLike")(dout)),)


@register
class Imag(_Part):
    """Imag()(x): the imaginary part of x (zeros for a real x)."""

    def numpy(self, np, x):
        return np.ascontiguousarray(np.imag(x)) if np.iscomplexobj(x) else np.zeros_like(x)

    def torch(self, torch, x):
        return torch.imag(x).contiguous() if x.is_complex() else torch.zeros_like(x)

    def bprop(self, x, out, dout):
        if x.dtype.kind != "complex":
            return (prim("ZerosLike")(dout),)
        return (Complex()(prim("ZerosLike")(dout), dout),)


@register
class Conj(Primitive):
    """Conj()(x): the complex conjugate x̄ (a real x is returned as is)."""
    input_names = ("x",)

    def infer(self, x):
        check_tensor(self.name, "x", x)
        check_dtype(self.name, "x", x, ("bool", "int", "uint", "float", "complex"))
        return AbstractTensor(tuple(x.shape), x.dtype)

    def numpy(self, np, x):
        return np.conj(x) if np.iscomplexobj(x) else x.copy()

    def torch(self, torch, x):
        return torch.conj_physical(x) if x.is_complex() else x.clone()

    def bprop(self, x, out, dout):
        return (Conj()(dout),)

    @classmethod
    def samples(cls, rng):
        yield Sample(_complex_sample(rng, (3, 4)), grad=())
        yield Sample(rand_float(rng, (2, 3)), name="real")


class _ComplexToReal(Primitive):
    input_names = ("x",)

    def infer(self, x):
        check_tensor(self.name, "x", x)
        check_dtype(self.name, "x", x, ("complex",))
        return AbstractTensor(tuple(x.shape), _real_of(x.dtype))

    @classmethod
    def samples(cls, rng):
        yield Sample(_complex_sample(rng, (3, 4)), grad=())
        yield Sample(_complex_sample(rng, (6,), np.complex128), grad=(), name="c128")


@register
class ComplexAbs(_ComplexToReal):
    """ComplexAbs()(x): |x| = √(re² + im²) of a complex tensor; the gradient is dout · z/|z|."""

    def numpy(self, np, x):
        return np.abs(x)

    def torch(self, torch, x):
        return torch.abs(x)

    def bprop(self, x, out, dout):
        re, im = _parts(x)
        scale = prim("Div")(dout, out)
        return (Complex()(prim("Mul")(scale, re), prim("Mul")(scale, im)),)


@register
class Angle(_ComplexToReal):
    """Angle()(x): the argument atan2(im, re) of a complex tensor, in (−π, π]; the gradient is
    dout · (−im + i·re)/|z|²."""

    def numpy(self, np, x):
        return np.angle(x)

    def torch(self, torch, x):
        return torch.angle(x)

    def bprop(self, x, out, dout):
        re, im = _parts(x)
        scale = prim("Div")(dout, prim("Add")(prim("Mul")(re, re), prim("Mul")(im, im)))
        return (Complex()(prim("Neg")(prim("Mul")(scale, im)), prim("Mul")(scale, re)),)


_ALL = (Complex, Real, Imag, Conj, ComplexAbs, Angle)
not_exportable(NO_MINDIR, *_ALL, formats=("MINDIR",))
not_exportable(NO_ONNX, *_ALL, formats=("ONNX",))
