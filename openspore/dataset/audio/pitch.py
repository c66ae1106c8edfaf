"""`mindspore.dataset.audio.DetectPitchFrequency`: pitch by normalized cross-correlation (NCCF) and median
smoothing.

The waveform is cut into frames of `ceil(sample_rate * frame_time)` samples; for every lag below
`ceil(sample_rate / freq_low)` each frame is correlated with the signal shifted by that lag (normalized by both
norms). The best lag per frame is the NCCF maximum above `ceil(sample_rate / freq_high)`, preferring the best
lag in the first half of the range when it is within 1% of the overall maximum (which avoids octave errors);
the lags are median-smoothed over `win_length` frames and turned into frequencies `sample_rate / lag`.
On tonal signals the result equals MindSpore 2.10's; on noise, frames that reach into the zero padding at the end
can pick other lags than MindSpore does (its padding of the shifted signal is not documented).

>>> import numpy as np
>>> sr = 8000
>>> tone = np.sin(2 * np.pi * 200 * np.arange(sr) / sr).astype(np.float32)
>>> freq = DetectPitchFrequency(sr, win_length=3)(tone)
>>> float(np.median(freq))
200.0
"""
import math

import numpy as np

from ..transforms.base import TensorOperation

_EPS = 1e-9
_THRESHOLD = 0.99


def _check(value, name, kinds, where="DetectPitchFrequency"):
    if isinstance(value, bool) or not isinstance(value, kinds):
        raise TypeError(f"For '{where}', '{name}' must be of type {kinds}, but got {type(value).__name__}.")
    if value <= 0:
        raise ValueError(f"For '{where}', '{name}' must be positive, but got {value}.")
    return value


def _frames(x, start, frame_size, count):
    idx = start + np.arange(count)[:, None] * frame_size + np.arange(frame_size)[None, :]
    return x[..., idx]


def nccf(waveform, sample_rate, frame_time, freq_low):
    """(..., frames, lags - 1): the normalized cross-correlation of each frame at lags 1 .. lag_max - 1."""
    lag_max = int(math.ceil(sample_rate / freq_low))
    frame_size = int(math.ceil(sample_rate * frame_time))
    length = waveform.shape[-1]
    count = int(math.ceil(length / frame_size))
    x = np.pad(waveform, [(0, 0)] * (waveform.ndim - 1) + [(0, lag_max + count * frame_size - length)])
    out = []
    for lag in range(1, lag_max):
        s1 = _frames(x, 0, frame_size, count)
        s2 = _frames(x, lag, frame_size, count)
        out.append((s1 * s2).sum(-1) / (_EPS + np.linalg.norm(s1, axis=-1)) / (_EPS + np.linalg.norm(s2, axis=-1)))
    return np.stack(out, -1)


def best_lags(corr, sample_rate, freq_high):
    """Per frame, the lag (1-based, in samples) of the NCCF maximum as the module docstring describes."""
    lag_min = int(math.ceil(sample_rate / freq_high))
    full = corr[..., lag_min:]
    best_val, best_idx = full.max(-1), full.argmax(-1)
    half_size = corr.shape[-1] // 2
    if half_size > lag_min:
        half = corr[..., lag_min:half_size]
        half_val, half_idx = half.max(-1), half.argmax(-1)
        take = half_val > _THRESHOLD * best_val
        best_idx = np.where(take, half_idx, best_idx)
    return best_idx + lag_min + 1


def median_smooth(lags, win_length):
    """Median (the lower one for even windows) over `win_length` frames, the first frames padded with 0."""
    pad = (win_length - 1) // 2
    x = np.pad(lags, [(0, 0)] * (lags.ndim - 1) + [(pad, 0)])
    count = x.shape[-1] - win_length + 1
    windows = x[..., np.arange(count)[:, None] + np.arange(win_length)[None, :]]
    return np.sort(windows, -1)[..., (win_length - 1) // 2]


class DetectPitchFrequency(TensorOperation):
    """`DetectPitchFrequency(sample_rate, frame_time=0.01, win_length=30, freq_low=85, freq_high=3400)`: the
    pitch (Hz) of each frame of a waveform (..., time), shape (..., frames)."""

    def __init__(self, sample_rate, frame_time=0.01, win_length=30, freq_low=85, freq_high=3400):
        if isinstance(sample_rate, bool) or not isinstance(sample_rate, int):
            raise TypeError(f"For 'DetectPitchFrequency', 'sample_rate' must be an int, "
                            f"but got {type(sample_rate).__name__}.")
        if sample_rate == 0:
            raise ValueError("For 'DetectPitchFrequency', 'sample_rate' must not be 0.")
        self.sample_rate = sample_rate
        self.frame_time = float(_check(frame_time, "frame_time", (int, float)))
        self.win_length = _check(win_length, "win_length", int)
        self.freq_low = _check(freq_low, "freq_low", int)
        self.freq_high = _check(freq_high, "freq_high", int)

    def _execute(self, waveform):
        x = np.asarray(waveform)
        if x.dtype.kind != "f":
            raise TypeError(f"For 'DetectPitchFrequency', the waveform must be float, but got {x.dtype}.")
        corr = nccf(x.astype(np.float64), self.sample_rate, self.frame_time, self.freq_low)
        lags = median_smooth(best_lags(corr, self.sample_rate, self.freq_high), self.win_length)
        return (self.sample_rate / lags).astype(x.dtype)
