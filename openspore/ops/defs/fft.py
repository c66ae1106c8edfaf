"""Primitives: discrete Fourier transforms over chosen axes — FFTN/IFFTN (complex to complex), RFFTN/IHFFTN (real
to the non-negative half of a Hermitian spectrum) and IRFFTN/HFFTN (a Hermitian half spectrum back to real).

Every 1-, 2- and n-dimensional `ops.fft*` function is one of these six with explicit axes (`dim`) and optional
sizes (`s`, each axis cropped or zero-padded first); `norm` is "backward" (scale the inverse by 1/n), "forward"
(scale the forward transform) or "ortho" (1/√n both ways). hfftn/ihfftn are irfftn/rfftn of the conjugate with
the two one-sided norms swapped, which is how the numpy kernel computes them (numpy has no n-D hfft).

Complex gradients are not supported by the tape yet, so their bprop raises a clear NotImplementedError instead of
returning zeros.

>>> import numpy as np
>>> from openspore.core.primitive import PRIMITIVES
>>> import openspore as ms
>>> out = PRIMITIVES["FFTN"](dim=(0,))(ms.Tensor(np.array([1.0, 0.0, 0.0, 0.0], np.float32)))
>>> out.dtype, out.asnumpy().real.tolist()
(mindspore.complex64, [1.0, 1.0, 1.0, 1.0])
"""
import numpy as np

from ...common import dtype as mstype
from ...core.primitive import AbstractTensor, Primitive, Sample, register
from ._export import NO_MINDIR, NO_ONNX, not_exportable
from ._util import check_dtype, check_tensor, normalize_axes, rand_float

_NORMS = ("backward", "forward", "ortho")
_SWAPPED = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


def _complex_of(dtype):
    return mstype.complex128 if dtype in (mstype.float64, mstype.complex128) else mstype.complex64


def _real_of(dtype):
    return mstype.float64 if dtype in (mstype.float64, mstype.complex128) else mstype.float32


_REAL_KINDS = ("bool", "int", "uint", "float")


class _FFTBase(Primitive):
    """<Kind>(s=None, dim=(-1,), norm=None)(x): the transform over the axes `dim` (sizes `s` when given)."""
    attr_defaults = {"s": None, "dim": (-1,), "norm": None}
    input_names = ("x",)
    input_kinds = _REAL_KINDS + ("complex",)
    output = "complex"       # "complex" or "real"
    halves_last = None       # None, "r2c" (last axis n → n//2+1) or "c2r" (m → s[-1], default 2(m−1))

    def check_attrs(self):
        if self.norm is not None and self.norm not in _NORMS:
            raise ValueError(f"For '{self.name}', 'norm' must be one of {list(_NORMS)} or None, "
                             f"but got {self.norm!r}.")
        if self.s is not None:
            if len(self.s) != len(self.dim):
                raise ValueError(f"For '{self.name}', 's' and 'dim' must have the same length, but got "
                                 f"s={self.s} and dim={self.dim}.")
            if any(not isinstance(n, (int, np.integer)) or n < 1 for n in self.s):
                raise ValueError(f"For '{self.name}', every size in 's' must be a positive integer, "
                                 f"but got {self.s}.")

    def _axes(self, ndim):
        axes = normalize_axes(self.name, tuple(self.dim), ndim, "dim")
        if len(set(axes)) != len(axes):
            raise ValueError(f"For '{self.name}', 'dim' must not repeat an axis, but got {self.dim}.")
        return tuple(axes)

    def infer(self, x):
        check_tensor(self.name, "x", x)
        check_dtype(self.name, "x", x, self.input_kinds)
        if not x.shape:
            raise ValueError(f"For '{self.name}', 'x' must have at least one dimension, but got a scalar.")
        axes = self._axes(len(x.shape))
        shape = list(x.shape)
        for i, a in enumerate(axes):
            last = i == len(axes) - 1
            n = self.s[i] if self.s is not None else shape[a]
            if last and self.halves_last == "r2c":
                n = n // 2 + 1
            elif last and self.halves_last == "c2r" and self.s is None:
                n = 2 * (shape[a] - 1)
                if n < 1:
                    raise ValueError(f"For '{self.name}', the last transformed axis of 'x' must have at least "
                                     f"2 entries when 's' is not given, but got {shape[a]}.")
            shape[a] = n
        dtype = _complex_of(x.dtype) if self.output == "complex" else _real_of(x.dtype)
        return AbstractTensor(tuple(shape), dtype)

    def _prepare(self, x):
        kind = x.dtype.kind
        if kind in "biu":
            return x.astype(np.float32)
        return x

    def numpy(self, np, x):
        x = self._prepare(x)
        axes = self._axes(x.ndim)
        out = self._np_transform(np, x, axes, self.norm or "backward")
        wide = x.dtype in (np.float64, np.complex128)
        if self.output == "complex":
            want_np = np.complex128 if wide else np.complex64
        else:
            want_np = np.float64 if wide else np.float32
        return np.asarray(out).astype(want_np, copy=False)

    def torch(self, torch, x):
        if not (x.is_floating_point() or x.is_complex()):
            x = x.to(torch.float32)
        axes = self._axes(x.dim())
        out = self._torch_transform(torch, x, list(axes), self.norm or "backward")
        return out.resolve_conj() if out.is_complex() else out  # ihfft's result is a lazy conjugate view

    def bprop(self, x, out, dout):
        raise NotImplementedError(f"The gradient of '{self.name}' (ops.fft family) is not implemented in openspore: "
                                  "the tape does not carry complex gradients yet.")

    @classmethod
    def samples(cls, rng):
        real = rand_float(rng, (3, 8))
        cplx = (rand_float(rng, (2, 4, 6)) + 1j * rand_float(rng, (2, 4, 6))).astype(np.complex64)
        yield Sample(real, attrs={"dim": (-1,)}, grad=(), rtol=1e-4, atol=1e-5)
        if "complex" in cls.input_kinds:
            yield Sample(cplx, attrs={"dim": (1, 2), "norm": "ortho"}, grad=(), rtol=1e-4, atol=1e-5, name="2d")
            yield Sample(cplx.astype(np.complex128), attrs={"dim": (0, 2), "s": (3, 5), "norm": "forward"},
                         grad=(), name="sized128")
        else:
            yield Sample(real.astype(np.float64), attrs={"dim": (0, 1), "s": (4, 5), "norm": "ortho"}, grad=(),
                         name="sized64")


@register
class FFTN(_FFTBase):
    """FFTN(s=None, dim=(-1,), norm=None)(x): the complex DFT over the axes `dim`."""

    def _np_transform(self, np, x, axes, norm):
        return np.fft.fftn(x, self.s, axes, norm)

    def _torch_transform(self, torch, x, axes, norm):
        return torch.fft.fftn(x, self.s, axes, norm)


@register
class IFFTN(_FFTBase):
    """IFFTN(s=None, dim=(-1,), norm=None)(x): the inverse complex DFT over the axes `dim`."""

    def _np_transform(self, np, x, axes, norm):
        return np.fft.ifftn(x, self.s, axes, norm)

    def _torch_transform(self, torch, x, axes, norm):
        return torch.fft.ifftn(x, self.s, axes, norm)


@register
class RFFTN(_FFTBase):
    """RFFTN(s=None, dim=(-1,), norm=None)(x): the DFT of real `x`, keeping n//2+1 entries on the last axis."""
    input_kinds = _REAL_KINDS
    halves_last = "r2c"

    def _np_transform(self, np, x, axes, norm):
        return np.fft.rfftn(x, self.s, axes, norm)

    def _torch_transform(self, torch, x, axes, norm):
        return torch.fft.rfftn(x, self.s, axes, norm)


@register
class IHFFTN(_FFTBase):
    """IHFFTN(s=None, dim=(-1,), norm=None)(x): the inverse DFT of real `x` (a Hermitian spectrum), halved."""
    input_kinds = _REAL_KINDS
    halves_last = "r2c"

    def _np_transform(self, np, x, axes, norm):
        return np.conj(np.fft.rfftn(x, self.s, axes, _SWAPPED[norm]))

    def _torch_transform(self, torch, x, axes, norm):
        return torch.fft.ihfftn(x, self.s, axes, norm)


@register
class IRFFTN(_FFTBase):
    """IRFFTN(s=None, dim=(-1,), norm=None)(x): the real signal whose half spectrum is `x` (inverse of RFFTN)."""
    output = "real"
    halves_last = "c2r"

    def _np_transform(self, np, x, axes, norm):
        return np.fft.irfftn(x, self.s, axes, norm)

    def _torch_transform(self, torch, x, axes, norm):
        return torch.fft.irfftn(x, self.s, axes, norm)


@register
class HFFTN(_FFTBase):
    """HFFTN(s=None, dim=(-1,), norm=None)(x): the real DFT of a signal given by its Hermitian half `x`."""
    output = "real"
    halves_last = "c2r"

    def _np_transform(self, np, x, axes, norm):
        return np.fft.irfftn(np.conj(x), self.s, axes, _SWAPPED[norm])

    def _torch_transform(self, torch, x, axes, norm):
        if not x.is_complex():
            x = x.to(torch.complex128 if x.dtype == torch.float64 else torch.complex64)
        return torch.fft.hfftn(x, self.s, axes, norm)


_ALL = (FFTN, IFFTN, RFFTN, IHFFTN, IRFFTN, HFFTN)
not_exportable(NO_MINDIR, *_ALL, formats=("MINDIR",))
not_exportable(NO_ONNX, *_ALL, formats=("ONNX",))
