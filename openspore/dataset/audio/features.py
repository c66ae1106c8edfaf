"""Cepstral features and their building blocks (`mindspore.dataset.audio`): filter banks, the DCT matrix, MFCC,
LFCC, deltas over time, the spectral centroid, masks along an axis and the angle of complex pairs.

>>> import numpy as np
>>> from openspore.dataset import audio
>>> audio.create_dct(2, 2, audio.NormMode.NONE).astype(float).round(3).tolist()
[[2.0, 1.414], [2.0, -1.414]]
>>> audio.ComputeDeltas(win_length=3)(np.array([[0.0, 1.0, 4.0, 9.0]], np.float32)).tolist()
[[0.5, 2.0, 4.0, 2.5]]
"""
import numpy as np

from ..engine.checks import INT32_MAX, check_interval, check_type
from ..transforms.base import TensorOperation, rng
from .transforms import (AmplitudeToDB, BorderType, MelSpectrogram, MelType, NormMode, NormType, ScaleType,
                         Spectrogram, WindowType, _float, mel_filterbank)


def _positive_int(value, name, where):
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"For '{where}', '{name}' must be a positive int, but got {value!r}.")
    return value


def _check_range(n_freqs, f_min, f_max, sample_rate, where):
    _positive_int(n_freqs, "n_freqs", where)
    _positive_int(sample_rate, "sample_rate", where)
    if not 0 <= f_min < f_max:
        raise ValueError(f"For '{where}', 'f_min' must be >= 0 and less than 'f_max', but got f_min={f_min}, "
                         f"f_max={f_max}.")


def melscale_fbanks(n_freqs, f_min, f_max, n_mels, sample_rate, norm=NormType.NONE, mel_type=MelType.HTK):
    """(n_freqs, n_mels) float32 triangular filters evenly spaced on the mel scale (what MelScale applies)."""
    _check_range(n_freqs, f_min, f_max, sample_rate, "melscale_fbanks")
    _positive_int(n_mels, "n_mels", "melscale_fbanks")
    return mel_filterbank(n_freqs, f_min, f_max, n_mels, sample_rate, NormType(norm), MelType(mel_type)) \
        .astype(np.float32)


def linear_fbanks(n_freqs, f_min, f_max, n_filter, sample_rate):
    """(n_freqs, n_filter) float32 triangular filters evenly spaced in Hz between f_min and f_max (LFCC's bank)."""
    _check_range(n_freqs, f_min, f_max, sample_rate, "linear_fbanks")
    _positive_int(n_filter, "n_filter", "linear_fbanks")
    freqs = np.linspace(0, sample_rate // 2, n_freqs)
    f_pts = np.linspace(f_min, f_max, n_filter + 2)
    f_diff = np.diff(f_pts)
    slopes = f_pts[None, :] - freqs[:, None]
    down = -slopes[:, :-2] / f_diff[:-1]
    up = slopes[:, 2:] / f_diff[1:]
    return np.maximum(0.0, np.minimum(down, up)).astype(np.float32)


def create_dct(n_mfcc, n_mels, norm=NormMode.NONE):
    """(n_mels, n_mfcc) float32 DCT-II matrix: column k is cos(pi/n_mels·(n+0.5)·k), doubled (NONE) or scaled
    to an orthonormal basis (ORTHO)."""
    for name, value in (("n_mfcc", n_mfcc), ("n_mels", n_mels)):  # MindSpore's create_dct wording
        if not isinstance(value, int):
            raise TypeError(f"{name} with value {value} is not of type <class 'int'>, but got {type(value)}.")
        if value <= 0:
            raise ValueError(f"{name} must be greater than 0, but got {value}.")
    if not isinstance(norm, NormMode):
        raise TypeError(f"norm with value {norm} is not of type <enum 'NormMode'>, but got {type(norm)}.")
    n = np.arange(n_mels, dtype=np.float64)[:, None]
    k = np.arange(n_mfcc, dtype=np.float64)[None, :]
    dct = np.cos(np.pi / n_mels * (n + 0.5) * k)
    if norm == NormMode.ORTHO:
        dct[:, 0] *= 1.0 / np.sqrt(2.0)
        dct *= np.sqrt(2.0 / n_mels)
    else:
        dct *= 2.0
    return dct.astype(np.float32)


class Angle(TensorOperation):
    """`Angle()`: the angle atan2(imag, real) of a (..., 2) array of real/imaginary pairs."""

    def _execute(self, x):
        x = _float(x)
        if x.ndim < 1 or x.shape[-1] != 2:
            raise ValueError(f"For 'Angle', the input must have shape (..., 2) (real, imaginary), but got {x.shape}.")
        return np.arctan2(x[..., 1], x[..., 0]).astype(x.dtype)


class ComputeDeltas(TensorOperation):
    """`ComputeDeltas(win_length=5, pad_mode=BorderType.EDGE)`: the delta coefficients of a (..., freq, time)
    spectrogram, d_t = Σ_{n=1..N} n·(c_{t+n} − c_{t−n}) / (2·Σ n²) with N = (win_length − 1) // 2, the time axis
    padded by pad_mode."""

    def __init__(self, win_length=5, pad_mode=BorderType.EDGE):
        check_type(win_length, (int,), "win_length")
        check_interval(win_length, 3, INT32_MAX, "win_length")
        check_type(pad_mode, (BorderType,), "pad_mode")
        self.win_length, self.pad_mode = win_length, pad_mode

    def _execute(self, x):
        x = _float(x)
        if x.ndim < 2:
            raise ValueError(f"For 'ComputeDeltas', the input must have shape (..., freq, time), but got {x.shape}.")
        half = (self.win_length - 1) // 2
        padded = np.pad(x.astype(np.float64), [(0, 0)] * (x.ndim - 1) + [(half, half)], mode=self.pad_mode.value)
        time = x.shape[-1]
        out = sum(n * (padded[..., half + n:half + n + time] - padded[..., half - n:half - n + time])
                  for n in range(1, half + 1))
        return (out / (2.0 * sum(n * n for n in range(1, half + 1)))).astype(x.dtype)


def _check_cepstral(n_coeffs, n_bands, dct_type, where, coeff_name, band_name):
    _positive_int(n_coeffs, coeff_name, where)
    if dct_type != 2:
        raise ValueError(f"For '{where}', 'dct_type' must be 2, but got {dct_type!r}.")
    if n_coeffs > n_bands:
        raise ValueError(f"For '{where}', '{coeff_name}' ({n_coeffs}) must not exceed '{band_name}' ({n_bands}).")


def _cepstrum(bands, dct, log):
    """(..., bands, time) energies → log (natural, +1e-6) or decibels (top_db 80) → DCT → (..., coeffs, time)."""
    if log:
        bands = np.log(bands.astype(np.float64) + 1e-6)
    else:
        bands = AmplitudeToDB(ScaleType.POWER, 1.0, 1e-10, 80.0)(bands).astype(np.float64)
    return np.swapaxes(np.swapaxes(bands, -1, -2) @ dct.astype(np.float64), -1, -2).astype(np.float32)


class MFCC(TensorOperation):
    """`MFCC(sample_rate=16000, n_mfcc=40, dct_type=2, norm=NormMode.ORTHO, log_mels=False, melkwargs=None)`:
    mel-frequency cepstral coefficients of a (..., time) waveform → (..., n_mfcc, frames). `melkwargs` holds
    MelSpectrogram's arguments (n_fft, win_length, hop_length, f_min, f_max, pad, n_mels, window, power,
    normalized, center, pad_mode, onesided, norm, mel_scale); the mel energies go to decibels (top_db 80), or to
    log(x + 1e-6) with log_mels=True, before the DCT."""

    def __init__(self, sample_rate=16000, n_mfcc=40, dct_type=2, norm=NormMode.ORTHO, log_mels=False,
                 melkwargs=None):
        kwargs = {"n_fft": 400, "n_mels": 128, "window": WindowType.HANN, "pad_mode": BorderType.REFLECT,
                  "norm": NormType.NONE, "mel_scale": MelType.HTK}
        kwargs.update(melkwargs or {})
        kwargs.pop("sample_rate", None)
        self.mel = MelSpectrogram(sample_rate=sample_rate, **kwargs)
        n_mels = self.mel.mel_scale.n_mels
        _check_cepstral(n_mfcc, n_mels, dct_type, "MFCC", "n_mfcc", "n_mels")
        self.sample_rate, self.n_mfcc, self.dct_type = sample_rate, n_mfcc, dct_type
        self.norm, self.log_mels = NormMode(norm), bool(log_mels)
        self._dct = create_dct(n_mfcc, n_mels, self.norm)

    def _execute(self, x):
        return _cepstrum(self.mel(x), self._dct, self.log_mels)


class LFCC(TensorOperation):
    """`LFCC(sample_rate=16000, n_filter=128, n_lfcc=40, f_min=0.0, f_max=None, dct_type=2, norm=NormMode.ORTHO,
    log_lf=False, speckwargs=None)`: linear-frequency cepstral coefficients: Spectrogram(**speckwargs), a linear
    filter bank of n_filter triangles, decibels (or log(x + 1e-6) with log_lf=True), DCT → (..., n_lfcc, frames)."""

    def __init__(self, sample_rate=16000, n_filter=128, n_lfcc=40, f_min=0.0, f_max=None, dct_type=2,
                 norm=NormMode.ORTHO, log_lf=False, speckwargs=None):
        kwargs = {"n_fft": 400}
        kwargs.update(speckwargs or {})
        self.spectrogram = Spectrogram(**kwargs)
        _positive_int(n_filter, "n_filter", "LFCC")
        _check_cepstral(n_lfcc, n_filter, dct_type, "LFCC", "n_lfcc", "n_filter")
        self.sample_rate, self.n_filter, self.n_lfcc, self.dct_type = sample_rate, n_filter, n_lfcc, dct_type
        self.f_min = f_min
        self.f_max = f_max if f_max is not None else sample_rate / 2.0
        self.norm, self.log_lf = NormMode(norm), bool(log_lf)
        self._bank = linear_fbanks(self.spectrogram.n_fft // 2 + 1, f_min, self.f_max, n_filter, sample_rate)
        self._dct = create_dct(n_lfcc, n_filter, self.norm)

    def _execute(self, x):
        spec = self.spectrogram(x).astype(np.float64)
        bands = np.swapaxes(np.swapaxes(spec, -1, -2) @ self._bank.astype(np.float64), -1, -2)
        return _cepstrum(bands, self._dct, self.log_lf)


class SpectralCentroid(TensorOperation):
    """`SpectralCentroid(sample_rate, n_fft=400, win_length=None, hop_length=None, pad=0, window=WindowType.HANN)`:
    the magnitude-weighted mean frequency (Hz) of each frame of a (..., time) waveform → (..., 1, frames)."""

    def __init__(self, sample_rate, n_fft=400, win_length=None, hop_length=None, pad=0, window=WindowType.HANN):
        _positive_int(sample_rate, "sample_rate", "SpectralCentroid")
        self.sample_rate = sample_rate
        self.spectrogram = Spectrogram(n_fft, win_length, hop_length, pad, window, power=1.0)

    def _execute(self, x):
        spec = self.spectrogram(x).astype(np.float64)
        freqs = np.linspace(0, self.sample_rate // 2, spec.shape[-2])[:, None]
        centroid = (freqs * spec).sum(axis=-2, keepdims=True) / spec.sum(axis=-2, keepdims=True)
        return centroid.astype(np.float32)


def _mask_axis(axis, where):
    """1 (frequency) or 2 (time), checked in MindSpore's words; the dimension it names from the end."""
    check_type(axis, (int,), "axis")
    check_interval(axis, 1, 2, "axis")
    return -2 if axis == 1 else -1


def _apply_mask(spec, dim, start, width, value, where):
    spec = _float(spec).copy()
    if spec.ndim < 2:
        raise ValueError(f"For '{where}', the input must have shape (..., freq, time), but got {spec.shape}.")
    if start + width > spec.shape[dim]:
        raise ValueError(f"For '{where}', mask_start + mask_width ({start + width}) must not exceed the length "
                         f"{spec.shape[dim]} of the masked axis.")
    index = [slice(None)] * spec.ndim
    index[dim] = slice(start, start + width)
    spec[tuple(index)] = value
    return spec


class MaskAlongAxis(TensorOperation):
    """`MaskAlongAxis(mask_start, mask_width, mask_value, axis)`: set [mask_start, mask_start + mask_width) of a
    (..., freq, time) spectrogram to mask_value along axis 1 (frequency) or 2 (time)."""

    def __init__(self, mask_start, mask_width, mask_value, axis):
        for name, value, low in (("mask_start", mask_start, 0), ("mask_width", mask_width, 1)):
            check_type(value, (int,), name)
            check_interval(value, low, INT32_MAX, name)
        check_type(mask_value, (int, float), "mask_value")
        self.mask_start, self.mask_width, self.mask_value = mask_start, mask_width, float(mask_value)
        self.axis, self._dim = axis, _mask_axis(axis, "MaskAlongAxis")

    def _execute(self, spec):
        return _apply_mask(spec, self._dim, self.mask_start, self.mask_width, self.mask_value, "MaskAlongAxis")


class MaskAlongAxisIID(TensorOperation):
    """`MaskAlongAxisIID(mask_param, mask_value, axis)`: mask a run whose width is drawn uniformly from
    [0, mask_param] and whose start is drawn uniformly where it fits, along axis 1 (frequency) or 2 (time),
    from the dataset seed's stream."""

    def __init__(self, mask_param, mask_value, axis):
        if isinstance(mask_param, bool) or not isinstance(mask_param, int) or mask_param < 0:
            raise ValueError(f"For 'MaskAlongAxisIID', 'mask_param' must be a non-negative int, but got "
                             f"{mask_param!r}.")
        self.mask_param, self.mask_value = mask_param, float(mask_value)
        self.axis, self._dim = axis, _mask_axis(axis, "MaskAlongAxisIID")

    def _execute(self, spec):
        size = np.shape(spec)[self._dim] if np.ndim(spec) >= 2 else 0
        width = int(rng().integers(0, min(self.mask_param, size) + 1))
        start = int(rng().integers(0, size - width + 1))
        return _apply_mask(spec, self._dim, start, width, self.mask_value, "MaskAlongAxisIID")
