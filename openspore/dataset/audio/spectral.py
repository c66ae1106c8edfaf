"""STFT-domain audio transforms of `mindspore.dataset.audio`: InverseSpectrogram, GriffinLim, PhaseVocoder,
TimeStretch and PitchShift.

Complex spectrograms are real arrays (..., freq, time, 2) holding the real and imaginary parts, as MindSpore's
audio transforms take them. The STFT frames the (centre-padded) signal every `hop_length` samples with the
window zero-padded to `n_fft` in the middle (as `Spectrogram` does); the inverse is the windowed overlap-add
divided by the summed squared window, which undoes it exactly wherever the windows cover the signal.

>>> import numpy as np
>>> x = np.sin(np.arange(64) / 3.0).astype(np.float32)
>>> spec = stft(x, 16, 16, 4, WindowType.HANN, True, BorderType.REFLECT)
>>> back = istft(spec, 16, 16, 4, WindowType.HANN, True, length=64)
>>> bool(np.allclose(back, x, atol=1e-5))
True
"""

import numpy as np

from ..transforms.base import TensorOperation, rng
from .effects import Resample
from .transforms import BorderType, WindowType, _window


def _int(value, name, where, low=1, allow_none=False):
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"For '{where}', '{name}' must be an int, but got {type(value).__name__}.")
    if value < low:
        raise ValueError(f"For '{where}', '{name}' must be >= {low}, but got {value}.")
    return value


def _float_in(value, name, where, low=0.0, high=None, low_open=False):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"For '{where}', '{name}' must be a float, but got {type(value).__name__}.")
    if value < low or (low_open and value == low) or (high is not None and value > high):
        span = f"({low}, " if low_open else f"[{low}, "
        raise ValueError(f"For '{where}', '{name}' must be in {span}{high if high is not None else 'inf'}], "
                         f"but got {value}.")
    return float(value)


def _padded_window(kind, n_fft, win_length):
    win = np.zeros(n_fft)
    left = (n_fft - win_length) // 2
    win[left:left + win_length] = _window(kind, win_length)
    return win


def stft(x, n_fft, win_length, hop_length, window, center, pad_mode):
    """Complex STFT (..., n_fft // 2 + 1, frames) of real x (..., time), in float64/complex128."""
    x = np.asarray(x, np.float64)
    if center:
        half = n_fft // 2
        x = np.pad(x, [(0, 0)] * (x.ndim - 1) + [(half, half)], mode=BorderType(pad_mode).value)
    if x.shape[-1] < n_fft:
        raise RuntimeError(f"The padded waveform has {x.shape[-1]} samples, fewer than n_fft={n_fft}.")
    win = _padded_window(window, n_fft, win_length)
    frames = 1 + (x.shape[-1] - n_fft) // hop_length
    idx = np.arange(frames)[:, None] * hop_length + np.arange(n_fft)[None, :]
    return np.swapaxes(np.fft.rfft(x[..., idx] * win, axis=-1), -1, -2)


def istft(spec, n_fft, win_length, hop_length, window, center, length=None, normalized=False, onesided=True):
    """Real signal (..., time) from a complex STFT (..., freq, frames): windowed overlap-add / sum of window^2."""
    spec = np.asarray(spec)
    win = _padded_window(window, n_fft, win_length)
    if normalized:
        spec = spec * np.sqrt((win ** 2).sum())
    frames_ft = np.swapaxes(spec, -1, -2)
    frames = (np.fft.irfft(frames_ft, n=n_fft, axis=-1) if onesided
              else np.real(np.fft.ifft(frames_ft, n=n_fft, axis=-1))) * win
    n_frames = frames.shape[-2]
    total = n_fft + hop_length * (n_frames - 1)
    out = np.zeros(frames.shape[:-2] + (total,))
    norm = np.zeros(total)
    for t in range(n_frames):
        out[..., t * hop_length:t * hop_length + n_fft] += frames[..., t, :]
        norm[t * hop_length:t * hop_length + n_fft] += win ** 2
    out = out / np.where(norm > 1e-11, norm, 1.0)
    # MindSpore's output: hop * (frames - 1) samples (the centre padding of an STFT of that signal), from n_fft // 2
    # when centred; also without centring it stops n_fft samples before the end of the overlap-add.
    start = n_fft // 2 if center else 0
    end = start + (hop_length * (n_frames - 1) if length is None else length)
    out = out[..., start:end]
    if length is not None and out.shape[-1] < length:
        out = np.pad(out, [(0, 0)] * (out.ndim - 1) + [(0, length - out.shape[-1])])
    return out


def _complex(spec, where):
    spec = np.asarray(spec)
    if spec.ndim < 3 or spec.shape[-1] != 2:
        raise RuntimeError(f"For '{where}', the input must be a complex spectrogram of shape <..., freq, time, "
                           f"complex=2>, but got shape {spec.shape}.")
    return spec[..., 0].astype(np.float64) + 1j * spec[..., 1].astype(np.float64)


def _as_pair(z, dtype):
    return np.stack([z.real, z.imag], axis=-1).astype(dtype)


def _stft_args(n_fft, win_length, hop_length, where, hop_divisor=2):
    n_fft = _int(n_fft, "n_fft", where)
    win_length = _int(win_length, "win_length", where, allow_none=True) or n_fft
    hop_length = _int(hop_length, "hop_length", where, allow_none=True) or max(1, win_length // hop_divisor)
    if win_length > n_fft:
        raise ValueError(f"For '{where}', 'win_length' ({win_length}) must not exceed 'n_fft' ({n_fft}).")
    return n_fft, win_length, hop_length


class InverseSpectrogram(TensorOperation):
    """`InverseSpectrogram(length=None, n_fft=400, win_length=None, hop_length=None, pad=0, window=HANN,
    normalized=False, center=True, pad_mode=REFLECT, onesided=True)`: the waveform (..., time) of a complex
    spectrogram (..., freq, time, 2); `pad` samples are removed from both ends."""

    def __init__(self, length=None, n_fft=400, win_length=None, hop_length=None, pad=0, window=WindowType.HANN,
                 normalized=False, center=True, pad_mode=BorderType.REFLECT, onesided=True):
        where = "InverseSpectrogram"
        self.length = _int(length, "length", where, low=0, allow_none=True)
        self.n_fft, self.win_length, self.hop_length = _stft_args(n_fft, win_length, hop_length, where)
        self.pad = _int(pad, "pad", where, low=0)
        if not isinstance(window, WindowType) or not isinstance(pad_mode, BorderType):
            raise TypeError(f"For '{where}', 'window' must be a WindowType and 'pad_mode' a BorderType.")
        for name, value in (("normalized", normalized), ("center", center), ("onesided", onesided)):
            if not isinstance(value, bool):
                raise TypeError(f"For '{where}', '{name}' must be a bool, but got {type(value).__name__}.")
        self.window, self.normalized, self.center, self.pad_mode, self.onesided = (window, normalized, center,
                                                                                   pad_mode, onesided)

    def _execute(self, spec):
        z = _complex(spec, "InverseSpectrogram")
        length = None if self.length is None else self.length + 2 * self.pad
        out = istft(z, self.n_fft, self.win_length, self.hop_length, self.window, self.center, length,
                    self.normalized, self.onesided)
        if self.pad:
            out = out[..., self.pad:out.shape[-1] - self.pad]
        return out.astype(np.float32 if np.asarray(spec).dtype != np.float64 else np.float64)


class GriffinLim(TensorOperation):
    """`GriffinLim(n_fft=400, n_iter=32, win_length=None, hop_length=None, window_type=HANN, power=2.0,
    momentum=0.99, length=None, rand_init=True)`: a waveform whose STFT magnitude matches the given
    spectrogram (..., freq, time), by the fast Griffin-Lim iteration (phase re-estimation with momentum:
    `angles = rebuilt - momentum / (1 + momentum) * previous rebuilt`, as in the paper). With momentum 0 the result
    equals MindSpore 2.10's; with momentum its waveform differs slightly (its momentum weighting is not the
    paper's and is not documented)."""

    def __init__(self, n_fft=400, n_iter=32, win_length=None, hop_length=None, window_type=WindowType.HANN,
                 power=2.0, momentum=0.99, length=None, rand_init=True):
        where = "GriffinLim"
        self.n_fft, self.win_length, self.hop_length = _stft_args(n_fft, win_length, hop_length, where)
        self.n_iter = _int(n_iter, "n_iter", where)
        if not isinstance(window_type, WindowType):
            raise TypeError(f"For '{where}', 'window_type' must be a WindowType, but got {window_type!r}.")
        self.window_type = window_type
        self.power = _float_in(power, "power", where, low_open=True)
        self.momentum = _float_in(momentum, "momentum", where)
        self.length = _int(length, "length", where, low=0, allow_none=True)
        if not isinstance(rand_init, bool):
            raise TypeError(f"For '{where}', 'rand_init' must be a bool, but got {type(rand_init).__name__}.")
        self.rand_init = rand_init

    def _execute(self, spec):
        spec = np.asarray(spec)
        if spec.ndim < 2 or spec.shape[-2] != self.n_fft // 2 + 1:
            raise RuntimeError(f"For 'GriffinLim', the spectrogram must be (..., n_fft // 2 + 1 = "
                               f"{self.n_fft // 2 + 1}, time), but got shape {spec.shape}.")
        mag = np.power(np.asarray(spec, np.float64), 1.0 / self.power)
        if self.rand_init:
            angles = np.exp(2j * np.pi * rng().random(mag.shape))
        else:
            angles = np.ones(mag.shape, np.complex128)
        args = (self.n_fft, self.win_length, self.hop_length, self.window_type)
        previous = np.zeros(mag.shape, np.complex128)
        for _ in range(self.n_iter):
            wave = istft(mag * angles, *args, True)
            rebuilt = stft(wave, *args, True, BorderType.REFLECT)
            angles = rebuilt - previous * (self.momentum / (1 + self.momentum))
            angles = angles / (np.abs(angles) + 1e-16)
            previous = rebuilt
        return istft(mag * angles, *args, True, self.length or None).astype(np.float32)


def phase_vocoder(z, rate, phase_advance):
    """Time-scale a complex STFT (..., freq, time) by `rate` (> 1 faster): magnitudes interpolated between
    neighbouring frames, phases accumulated from the frame-to-frame phase differences."""
    steps = np.arange(0, z.shape[-1], rate)
    alphas = steps % 1.0
    phase_0 = np.angle(z[..., :1])
    z = np.concatenate([z, np.zeros(z.shape[:-1] + (2,), z.dtype)], axis=-1)
    base = np.floor(steps).astype(np.int64)
    z0, z1 = z[..., base], z[..., base + 1]
    phase = np.angle(z1) - np.angle(z0) - phase_advance
    phase = phase - 2 * np.pi * np.round(phase / (2 * np.pi)) + phase_advance
    phase = np.concatenate([phase_0, phase[..., :-1]], axis=-1)
    mag = alphas * np.abs(z1) + (1 - alphas) * np.abs(z0)
    return mag * np.exp(1j * np.cumsum(phase, axis=-1))


class PhaseVocoder(TensorOperation):
    """`PhaseVocoder(rate, phase_advance)`: speed a complex STFT (..., freq, time, 2) up by `rate` without changing
    the pitch; `phase_advance` (freq, 1) is each bin's expected phase advance per hop."""

    def __init__(self, rate, phase_advance):
        self.rate = _float_in(rate, "rate", "PhaseVocoder", low_open=True)
        if not isinstance(phase_advance, np.ndarray):
            raise TypeError(f"For 'PhaseVocoder', 'phase_advance' must be a numpy.ndarray, "
                            f"but got {type(phase_advance).__name__}.")
        self.phase_advance = phase_advance.astype(np.float64)

    def _execute(self, spec):
        z = _complex(spec, "PhaseVocoder")
        return _as_pair(phase_vocoder(z, self.rate, self.phase_advance), np.asarray(spec).dtype)


class TimeStretch(TensorOperation):
    """`TimeStretch(hop_length=None, n_freq=201, fixed_rate=None)`: the phase vocoder with the phase advance of
    an STFT of `n_freq` bins and hop `hop_length` (default n_freq - 1); without a rate, rate 1."""

    def __init__(self, hop_length=None, n_freq=201, fixed_rate=None):
        self.n_freq = _int(n_freq, "n_freq", "TimeStretch")
        self.hop_length = _int(hop_length, "hop_length", "TimeStretch", allow_none=True) or self.n_freq - 1
        self.fixed_rate = (None if fixed_rate is None
                           else _float_in(fixed_rate, "fixed_rate", "TimeStretch", low_open=True))
        self.phase_advance = np.linspace(0, np.pi * self.hop_length, self.n_freq)[:, None]

    def _execute(self, spec):
        z = _complex(spec, "TimeStretch")
        if z.shape[-2] != self.n_freq:
            raise RuntimeError(f"For 'TimeStretch', the spectrogram has {z.shape[-2]} frequency bins, "
                               f"but n_freq is {self.n_freq}.")
        rate = 1.0 if self.fixed_rate is None else self.fixed_rate   # rate 1 still re-accumulates the phases
        return _as_pair(phase_vocoder(z, rate, self.phase_advance), np.asarray(spec).dtype)


class PitchShift(TensorOperation):
    """`PitchShift(sample_rate, n_steps, bins_per_octave=12, n_fft=512, win_length=None, hop_length=None,
    window=HANN)`: shift the pitch by `n_steps / bins_per_octave` octaves, keeping the duration: stretch in time
    by the phase vocoder, then resample back to the original length."""

    def __init__(self, sample_rate, n_steps, bins_per_octave=12, n_fft=512, win_length=None, hop_length=None,
                 window=WindowType.HANN):
        where = "PitchShift"
        self.sample_rate = _int(sample_rate, "sample_rate", where)
        if isinstance(n_steps, bool) or not isinstance(n_steps, int):
            raise TypeError(f"For '{where}', 'n_steps' must be an int, but got {type(n_steps).__name__}.")
        if isinstance(bins_per_octave, bool) or not isinstance(bins_per_octave, int) or bins_per_octave == 0:
            raise ValueError(f"For '{where}', 'bins_per_octave' must be a non-zero int, but got {bins_per_octave!r}.")
        self.n_steps, self.bins_per_octave = n_steps, bins_per_octave
        self.n_fft, self.win_length, self.hop_length = _stft_args(n_fft, win_length, hop_length, where, 4)
        if not isinstance(window, WindowType):
            raise TypeError(f"For '{where}', 'window' must be a WindowType, but got {window!r}.")
        self.window = window

    def _execute(self, waveform):
        x = np.asarray(waveform)
        if x.dtype.kind != "f":
            raise TypeError(f"For 'PitchShift', the waveform must be float, but got {x.dtype}.")
        n = x.shape[-1]
        rate = 2.0 ** (-float(self.n_steps) / self.bins_per_octave)
        args = (self.n_fft, self.win_length, self.hop_length, self.window)
        z = stft(x, *args, True, BorderType.REFLECT)
        advance = np.linspace(0, np.pi * self.hop_length, z.shape[-2])[:, None]
        stretched = istft(phase_vocoder(z, rate, advance), *args, True, int(round(n / rate)))
        orig = int(round(self.sample_rate / rate))
        shifted = Resample(orig, self.sample_rate)(stretched.astype(np.float32)) if orig != self.sample_rate \
            else stretched
        shifted = np.asarray(shifted)[..., :n]
        if shifted.shape[-1] < n:
            shifted = np.pad(shifted, [(0, 0)] * (shifted.ndim - 1) + [(0, n - shifted.shape[-1])])
        return shifted.astype(x.dtype)
