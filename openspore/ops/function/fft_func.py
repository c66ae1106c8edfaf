"""MindSpore's FFT functions: fft/ifft/rfft/irfft/hfft/ihfft over one axis, their *2 forms over two axes and *n
forms over any axes, each one of the six FFT primitives (ops/defs/fft.py) with explicit axes and sizes.

>>> import openspore as ms
>>> ms.ops.fft(ms.Tensor([1.0, 2.0, 3.0, 4.0])).asnumpy().tolist()
[(10+0j), (-2+2j), (-2+0j), (-2-2j)]
>>> ms.ops.irfft(ms.ops.rfft(ms.Tensor([1.0, 2.0, 3.0, 4.0]))).asnumpy().tolist()
[1.0, 2.0, 3.0, 4.0]
"""
from ...core.primitive import PRIMITIVES
from ...core.tensor import Tensor

__all__ = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft",
           "fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2",
           "fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn"]


def _as_tuple(fn, name, value):
    if value is None:
        return None
    if isinstance(value, int):
        return (value,)
    if isinstance(value, (tuple, list)) and all(isinstance(v, int) for v in value):
        return tuple(value)
    raise TypeError(f"For '{fn}', '{name}' must be an int or a tuple of ints, but got {value!r}.")


def _transform(fn, kind, input, s, dim, norm):
    if not isinstance(input, Tensor):
        raise TypeError(f"For '{fn}', 'input' must be a Tensor, but got {type(input).__name__}.")
    s, dim = _as_tuple(fn, "s", s), _as_tuple(fn, "dim", dim)
    if dim is None:  # MindSpore: the last len(s) axes, or every axis without s
        dim = tuple(range(-len(s), 0)) if s is not None else tuple(range(-len(input.shape), 0))
    return PRIMITIVES[kind](s=s, dim=dim, norm=norm)(input)


def _one_axis(fn_name, kind, doc):
    def fn(input, n=None, dim=-1, norm=None):
        return _transform(fn_name, kind, input, None if n is None else (n,), (dim,), norm)
    fn.__name__ = fn.__qualname__ = fn_name
    fn.__doc__ = f"{doc} over axis `dim` (`n`: crop or zero-pad that axis first; `norm`: backward/forward/ortho)."
    return fn


def _two_axes(fn_name, kind, doc):
    def fn(input, s=None, dim=(-2, -1), norm=None):
        return _transform(fn_name, kind, input, s, dim, norm)
    fn.__name__ = fn.__qualname__ = fn_name
    fn.__doc__ = f"{doc} over the two axes `dim` (`s`: their sizes; `norm`: backward/forward/ortho)."
    return fn


def _n_axes(fn_name, kind, doc):
    def fn(input, s=None, dim=None, norm=None):
        return _transform(fn_name, kind, input, s, dim, norm)
    fn.__name__ = fn.__qualname__ = fn_name
    fn.__doc__ = (f"{doc} over the axes `dim` (default: the last len(s) axes, or all; `s`: their sizes; "
                  "`norm`: backward/forward/ortho).")
    return fn


_KINDS = {"fft": ("FFTN", "The complex discrete Fourier transform"),
          "ifft": ("IFFTN", "The inverse complex discrete Fourier transform"),
          "rfft": ("RFFTN", "The Fourier transform of a real signal (last axis halved to n//2+1)"),
          "irfft": ("IRFFTN", "The inverse of rfft: a real signal from its half spectrum"),
          "hfft": ("HFFTN", "The Fourier transform of a Hermitian-symmetric signal given by its half (real result)"),
          "ihfft": ("IHFFTN", "The inverse of hfft: the half spectrum of a real signal")}

fft, ifft, rfft, irfft, hfft, ihfft = (_one_axis(k, *_KINDS[k]) for k in ("fft", "ifft", "rfft", "irfft", "hfft",
                                                                          "ihfft"))
fft2, ifft2, rfft2, irfft2, hfft2, ihfft2 = (_two_axes(k + "2", *_KINDS[k]) for k in ("fft", "ifft", "rfft", "irfft",
                                                                                       "hfft", "ihfft"))
fftn, ifftn, rfftn, irfftn, hfftn, ihfftn = (_n_axes(k + "n", *_KINDS[k]) for k in ("fft", "ifft", "rfft", "irfft",
                                                                                     "hfft", "ihfft"))
