"""`mindspore.numpy.fft`: NumPy's `numpy.fft` names and argument spellings (`a`, `axis`/`axes`) over the `ops`
FFT functions (`input`, `dim`); results are Tensors (complex64 for float32 input, as MindSpore's).

>>> import openspore.numpy as mnp
>>> mnp.fft.fft(mnp.array([1.0, 2.0, 3.0, 4.0])).asnumpy().tolist()
[(10+0j), (-2+2j), (-2+0j), (-2-2j)]
>>> mnp.fft.rfftfreq(4).asnumpy().tolist()
[0.0, 0.25, 0.5]
"""
from .. import ops as _ops

__all__ = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2", "rfftn", "irfftn",
           "hfft", "ihfft", "hfft2", "ihfft2", "hfftn", "ihfftn", "fftshift", "ifftshift", "fftfreq", "rfftfreq"]


def fft(a, n=None, axis=-1, norm=None):
    """One-dimensional discrete Fourier transform along `axis` (`ops.fft`)."""
    return _ops.fft(a, n, axis, norm)


def ifft(a, n=None, axis=-1, norm=None):
    """Inverse of `fft` (`ops.ifft`)."""
    return _ops.ifft(a, n, axis, norm)


def rfft(a, n=None, axis=-1, norm=None):
    """FFT of real input: the n//2 + 1 non-negative frequencies (`ops.rfft`)."""
    return _ops.rfft(a, n, axis, norm)


def irfft(a, n=None, axis=-1, norm=None):
    """Inverse of `rfft`: a real signal of length `n` (default 2*(m-1)) (`ops.irfft`)."""
    return _ops.irfft(a, n, axis, norm)


def hfft(a, n=None, axis=-1, norm=None):
    """FFT of a Hermitian-symmetric signal given by its first half: a real spectrum (`ops.hfft`)."""
    return _ops.hfft(a, n, axis, norm)


def ihfft(a, n=None, axis=-1, norm=None):
    """Inverse of `hfft` (`ops.ihfft`)."""
    return _ops.ihfft(a, n, axis, norm)


def fft2(a, s=None, axes=(-2, -1), norm=None):
    """Two-dimensional FFT over `axes` (`ops.fft2`)."""
    return _ops.fft2(a, s, axes, norm)


def ifft2(a, s=None, axes=(-2, -1), norm=None):
    """Inverse of `fft2` (`ops.ifft2`)."""
    return _ops.ifft2(a, s, axes, norm)


def rfft2(a, s=None, axes=(-2, -1), norm=None):
    """Two-dimensional FFT of real input (`ops.rfft2`)."""
    return _ops.rfft2(a, s, axes, norm)


def irfft2(a, s=None, axes=(-2, -1), norm=None):
    """Inverse of `rfft2` (`ops.irfft2`)."""
    return _ops.irfft2(a, s, axes, norm)


def hfft2(a, s=None, axes=(-2, -1), norm=None):
    """Two-dimensional `hfft` (`ops.hfft2`)."""
    return _ops.hfft2(a, s, axes, norm)


def ihfft2(a, s=None, axes=(-2, -1), norm=None):
    """Inverse of `hfft2` (`ops.ihfft2`)."""
    return _ops.ihfft2(a, s, axes, norm)


def fftn(a, s=None, axes=None, norm=None):
    """N-dimensional FFT over `axes` (all, or the last len(s), when None) (`ops.fftn`)."""
    return _ops.fftn(a, s, axes, norm)


def ifftn(a, s=None, axes=None, norm=None):
    """Inverse of `fftn` (`ops.ifftn`)."""
    return _ops.ifftn(a, s, axes, norm)


def rfftn(a, s=None, axes=None, norm=None):
    """N-dimensional FFT of real input (`ops.rfftn`)."""
    return _ops.rfftn(a, s, axes, norm)


def irfftn(a, s=None, axes=None, norm=None):
    """Inverse of `rfftn` (`ops.irfftn`)."""
    return _ops.irfftn(a, s, axes, norm)


def hfftn(a, s=None, axes=None, norm=None):
    """N-dimensional `hfft` (`ops.hfftn`)."""
    return _ops.hfftn(a, s, axes, norm)


def ihfftn(a, s=None, axes=None, norm=None):
    """Inverse of `hfftn` (`ops.ihfftn`)."""
    return _ops.ihfftn(a, s, axes, norm)


def fftshift(x, axes=None):
    """The zero frequency moved to the centre of `axes` (all when None) (`ops.fftshift`)."""
    return _ops.fftshift(x, axes)


def ifftshift(x, axes=None):
    """Inverse of `fftshift` (`ops.ifftshift`)."""
    return _ops.ifftshift(x, axes)


def fftfreq(n, d=1.0, dtype=None):
    """Sample frequencies of an n-point FFT with sample spacing `d` (`ops.fftfreq`)."""
    return _ops.fftfreq(n, d, dtype)


def rfftfreq(n, d=1.0, dtype=None):
    """Sample frequencies of an n-point `rfft` (`ops.rfftfreq`)."""
    return _ops.rfftfreq(n, d, dtype)
