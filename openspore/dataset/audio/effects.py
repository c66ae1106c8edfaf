"""Audio effects and conversions of `mindspore.dataset.audio`: `Resample` (windowed-sinc interpolation, Hann or
Kaiser window), `Dither` (re-quantisation to 16 bits with triangular, rectangular or Gaussian noise, optionally
noise-shaped), `Overdrive` (sox's soft-clipping distortion) and `SlidingWindowCmn` (Kaldi's sliding cepstral
mean normalisation). Waveforms are float (..., time).

>>> import numpy as np
>>> from openspore.dataset import audio
>>> wave = np.sin(np.arange(160) * 2 * np.pi / 16).astype(np.float32)
>>> audio.Resample(16000, 8000)(wave).shape
(80,)
"""
import math
from enum import Enum

import numpy as np

from ..transforms.base import TensorOperation, rng


class ResampleMethod(str, Enum):
    """The window of `Resample`'s sinc kernel."""
    SINC_INTERPOLATION = "sinc_interpolation"
    KAISER_WINDOW = "kaiser_window"


class DensityFunction(str, Enum):
    """The noise distribution of `Dither`: triangular, rectangular or Gaussian probability density."""
    TPDF = "TPDF"
    RPDF = "RPDF"
    GPDF = "GPDF"


def _float_wave(waveform, where):
    x = np.asarray(waveform)
    if x.dtype.kind not in "fiu" or x.ndim < 1:
        raise TypeError(f"For '{where}', the waveform must be a numeric array (..., time), but got {x.dtype} of "
                        f"shape {x.shape}.")
    return x


def _positive(value, name, where):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise ValueError(f"For '{where}', '{name}' must be a positive number, but got {value!r}.")
    return value


class Resample(TensorOperation):
    """`Resample(orig_freq=16000, new_freq=16000, resample_method=ResampleMethod.SINC_INTERPOLATION,
    lowpass_filter_width=6, rolloff=0.99, beta=None)`: band-limited resampling; each output sample is the input
    convolved with a sinc low-pass (cut-off `rolloff` times the lower Nyquist rate) windowed over
    `lowpass_filter_width` zero crossings by a Hann window or a Kaiser window of `beta` (default 14.769656459379492).
    The output has ceil(time * new_freq / orig_freq) samples."""

    def __init__(self, orig_freq=16000, new_freq=16000, resample_method=ResampleMethod.SINC_INTERPOLATION,
                 lowpass_filter_width=6, rolloff=0.99, beta=None):
        self.orig_freq = _positive(orig_freq, "orig_freq", "Resample")
        self.new_freq = _positive(new_freq, "new_freq", "Resample")
        if not isinstance(resample_method, ResampleMethod):
            raise TypeError(f"For 'Resample', 'resample_method' must be a ResampleMethod, but got "
                            f"{resample_method!r}.")
        if isinstance(lowpass_filter_width, bool) or not isinstance(lowpass_filter_width, int) \
                or lowpass_filter_width < 1:
            raise ValueError(f"For 'Resample', 'lowpass_filter_width' must be a positive int, but got "
                             f"{lowpass_filter_width!r}.")
        if not 0 < rolloff <= 1:
            raise ValueError(f"For 'Resample', 'rolloff' must be in (0, 1], but got {rolloff!r}.")
        self.resample_method, self.lowpass_filter_width, self.rolloff = resample_method, lowpass_filter_width, rolloff
        self.beta = 14.769656459379492 if beta is None else float(beta)

    def _kernel(self, offsets, cutoff):
        """Kernel weights at `offsets` (in input samples) for a cut-off of `cutoff` cycles per input sample."""
        width = self.lowpass_filter_width / (2 * cutoff)  # half-length of the kernel in input samples
        t = offsets * 2 * cutoff
        inside = np.abs(offsets) <= width
        if self.resample_method is ResampleMethod.SINC_INTERPOLATION:
            window = np.cos(np.clip(offsets / width, -1, 1) * math.pi / 2) ** 2
        else:
            window = np.i0(self.beta * np.sqrt(np.clip(1 - (offsets / width) ** 2, 0, None))) / np.i0(self.beta)
        return np.where(inside, 2 * cutoff * np.sinc(t) * window, 0.0)

    def _execute(self, waveform):
        x = _float_wave(waveform, "Resample")
        if self.orig_freq == self.new_freq:
            return np.array(x)
        ratio = self.new_freq / self.orig_freq
        n = x.shape[-1]
        out_len = int(math.ceil(n * ratio))
        cutoff = 0.5 * min(1.0, ratio) * self.rolloff  # cycles per input sample
        half = int(math.ceil(self.lowpass_filter_width / (2 * cutoff)))
        centres = np.arange(out_len) / ratio  # output sample times in input samples
        base = np.floor(centres).astype(np.int64)
        taps = np.arange(-half, half + 1)
        index = base[:, None] + taps[None, :]
        weights = self._kernel(centres[:, None] - index, cutoff)
        valid = (index >= 0) & (index < n)
        flat = x.reshape(-1, n).astype(np.float64)
        gathered = flat[:, np.clip(index, 0, n - 1)] * valid
        out = np.einsum("cjk,jk->cj", gathered, weights)
        dtype = x.dtype if x.dtype.kind == "f" else np.float32
        return out.reshape(x.shape[:-1] + (out_len,)).astype(dtype)


class Dither(TensorOperation):
    """`Dither(density_function=DensityFunction.TPDF, noise_shaping=False)`: re-quantise a waveform in [-1, 1] to
    16-bit steps after adding noise of one step (triangular, rectangular, or Gaussian); with `noise_shaping` each
    sample's quantisation error is subtracted from the next sample first (first-order error feedback)."""

    def __init__(self, density_function=DensityFunction.TPDF, noise_shaping=False):
        if not isinstance(density_function, DensityFunction):
            raise TypeError(f"For 'Dither', 'density_function' must be a DensityFunction, but got "
                            f"{density_function!r}.")
        self.density_function, self.noise_shaping = density_function, bool(noise_shaping)

    def _noise(self, shape):
        generator = rng()
        if self.density_function is DensityFunction.TPDF:
            return generator.uniform(-0.5, 0.5, shape) + generator.uniform(-0.5, 0.5, shape)
        if self.density_function is DensityFunction.RPDF:
            return generator.uniform(-0.5, 0.5, shape)
        return generator.normal(0.0, 0.5, shape)

    def _execute(self, waveform):
        x = _float_wave(waveform, "Dither")
        scale = 2.0 ** 15
        flat = x.reshape(-1, x.shape[-1]).astype(np.float64) * scale
        noisy = flat + self._noise(flat.shape)
        if not self.noise_shaping:
            out = np.round(noisy)
        else:
            out = np.empty_like(noisy)
            error = np.zeros(flat.shape[0])
            for k in range(flat.shape[1]):
                wanted = noisy[:, k] - error
                out[:, k] = np.round(wanted)
                error = out[:, k] - wanted
        out = np.clip(out, -scale, scale - 1) / scale
        return out.reshape(x.shape).astype(x.dtype if x.dtype.kind == "f" else np.float32)


class Overdrive(TensorOperation):
    """`Overdrive(gain=20.0, colour=20.0)`: sox's overdrive: the input amplified by `gain` dB and offset by
    `colour` / 200, soft-clipped (x - x^3 / 3 inside [-1, 1], ±2/3 outside), then passed through a DC-blocking
    high-pass (y[n] = c[n] - c[n-1] + 0.995 y[n-1]), halved and clipped to [-1, 1]."""

    def __init__(self, gain=20.0, colour=20.0):
        for name, value in (("gain", gain), ("colour", colour)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 100:
                raise ValueError(f"For 'Overdrive', '{name}' must be a number in [0, 100], but got {value!r}.")
        self.gain, self.colour = float(gain), float(colour)

    def _execute(self, waveform):
        x = _float_wave(waveform, "Overdrive")
        flat = x.reshape(-1, x.shape[-1]).astype(np.float64)
        driven = flat * 10 ** (self.gain / 20) + self.colour / 200
        clipped = np.where(driven < -1, -2.0 / 3, np.where(driven > 1, 2.0 / 3, driven - driven ** 3 / 3))
        out = np.empty_like(clipped)
        last_in = np.zeros(flat.shape[0])
        last_out = np.zeros(flat.shape[0])
        for k in range(flat.shape[1]):
            last_out = clipped[:, k] - last_in + 0.995 * last_out
            last_in = clipped[:, k]
            out[:, k] = last_out
        out = np.clip(out * 0.5, -1.0, 1.0)
        return out.reshape(x.shape).astype(x.dtype if x.dtype.kind == "f" else np.float32)


def _cmn_window(t, frames, cmn_window, min_cmn_window, center):
    """Kaldi's sliding window [start, end) of frame t."""
    if center:
        start = t - cmn_window // 2
        end = start + cmn_window
    else:
        start, end = t - cmn_window, t + 1
    if start < 0:
        end -= start
        start = 0
    if not center and end > t:
        end = max(t + 1, min_cmn_window)
    if end > frames:
        start = max(0, start - (end - frames))
        end = frames
    return start, end


class SlidingWindowCmn(TensorOperation):
    """`SlidingWindowCmn(cmn_window=600, min_cmn_window=100, center=False, norm_vars=False)`: Kaldi's sliding-window
    cepstral mean (and with `norm_vars`, variance) normalisation of a feature matrix (..., freq, time): each frame
    minus the mean over the `cmn_window` frames before it (at least `min_cmn_window` at the start), or over a
    window centred on it with `center`."""

    def __init__(self, cmn_window=600, min_cmn_window=100, center=False, norm_vars=False):
        for name, value in (("cmn_window", cmn_window), ("min_cmn_window", min_cmn_window)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"For 'SlidingWindowCmn', '{name}' must be an int, but got {value!r}.")
            if value < 0:
                raise ValueError(f"For 'SlidingWindowCmn', '{name}' must not be negative, but got {value}.")
        for name, value in (("center", center), ("norm_vars", norm_vars)):
            if not isinstance(value, bool):
                raise TypeError(f"For 'SlidingWindowCmn', '{name}' must be a bool, but got {value!r}.")
        self.cmn_window, self.min_cmn_window, self.center, self.norm_vars = cmn_window, min_cmn_window, center, \
            norm_vars

    def _execute(self, features):
        x = _float_wave(features, "SlidingWindowCmn")
        if x.ndim < 2:
            raise ValueError(f"For 'SlidingWindowCmn', the input must be (..., freq, time), but got shape {x.shape}.")
        frames = x.shape[-1]
        flat = x.reshape(-1, x.shape[-2], frames).astype(np.float64)
        zero = np.zeros(flat.shape[:2] + (1,))
        sums = np.concatenate([zero, np.cumsum(flat, axis=-1)], axis=-1)
        squares = np.concatenate([zero, np.cumsum(flat ** 2, axis=-1)], axis=-1)
        out = np.empty_like(flat)
        for t in range(frames):
            start, end = _cmn_window(t, frames, self.cmn_window, self.min_cmn_window, self.center)
            count = end - start
            mean = (sums[..., end] - sums[..., start]) / count
            out[..., t] = flat[..., t] - mean
            if self.norm_vars:
                variance = (squares[..., end] - squares[..., start]) / count - mean ** 2
                out[..., t] = out[..., t] / np.sqrt(np.where(variance > 0, variance, 1.0))
        return out.reshape(x.shape).astype(x.dtype if x.dtype.kind == "f" else np.float32)
