"""Audio transforms (`mindspore.dataset.audio`) on numpy waveforms (..., time) and spectrograms (..., freq, time):
decibel conversions, μ-law coding, gain/volume, fades, spectrograms and mel scales, complex norms, masking.

>>> import numpy as np
>>> from openspore.dataset import audio
>>> audio.DBToAmplitude(0.5, 1.0)(np.array([0.0, 10.0], np.float32)).tolist()
[0.5, 5.0]
>>> audio.Fade(2, 0)(np.ones(4, np.float32)).tolist()
[0.0, 1.0, 1.0, 1.0]
"""
from enum import Enum

import numpy as np

from ..engine.checks import FLOAT32_LIMIT, INT32_MAX, check_float32, check_interval, check_type
from ..transforms.base import TensorOperation, rng


class ScaleType(str, Enum):
    MAGNITUDE = "magnitude"
    POWER = "power"


class GainType(str, Enum):
    AMPLITUDE = "amplitude"
    POWER = "power"
    DB = "db"


class FadeShape(str, Enum):
    LINEAR = "linear"
    EXPONENTIAL = "exponential"
    LOGARITHMIC = "logarithmic"
    QUARTER_SINE = "quarter_sine"
    HALF_SINE = "half_sine"


class WindowType(str, Enum):
    BARTLETT = "bartlett"
    BLACKMAN = "blackman"
    HAMMING = "hamming"
    HANN = "hann"
    KAISER = "kaiser"


class BorderType(str, Enum):
    CONSTANT = "constant"
    EDGE = "edge"
    REFLECT = "reflect"
    SYMMETRIC = "symmetric"


class NormType(str, Enum):
    NONE = "none"
    SLANEY = "slaney"


class MelType(str, Enum):
    HTK = "htk"
    SLANEY = "slaney"


class NormMode(str, Enum):
    ORTHO = "ortho"
    NONE = "none"


def _float(x):
    x = np.asarray(x)
    return x if x.dtype.kind == "f" else x.astype(np.float32)


class AmplitudeToDB(TensorOperation):
    """`AmplitudeToDB(stype=POWER, ref_value=1.0, amin=1e-10, top_db=80.0)`: 10·log10 (power) or 20·log10
    (magnitude) relative to ref_value, floored at top_db below the maximum."""

    def __init__(self, stype=ScaleType.POWER, ref_value=1.0, amin=1e-10, top_db=80.0):
        check_type(stype, (ScaleType,), "stype")
        for name, value in (("ref_value", ref_value), ("amin", amin), ("top_db", top_db)):
            if name == "top_db" and value is None:
                continue
            check_type(value, (int, float), name)
            check_interval(value, 0, FLOAT32_LIMIT, name, left_open=True)
        self.stype, self.ref_value, self.amin, self.top_db = stype, ref_value, amin, top_db

    def _execute(self, x):
        x = _float(x)
        mult = 10.0 if self.stype == ScaleType.POWER else 20.0
        db = mult * np.log10(np.maximum(x, self.amin)) - mult * np.log10(max(self.amin, self.ref_value))
        if self.top_db is not None:
            # the floor is top_db below the loudest value of each spectrogram (the last three axes), not the batch
            per_item = db.reshape((-1,) + db.shape[-3:]) if db.ndim > 3 else db.reshape((1,) + db.shape)
            floor = per_item.max(axis=tuple(range(1, per_item.ndim)), keepdims=True) - self.top_db
            db = np.maximum(per_item, floor).reshape(db.shape)
        return db.astype(x.dtype)


class DBToAmplitude(TensorOperation):
    """`DBToAmplitude(ref, power)`: ref · (10^(x/10))^power."""

    def __init__(self, ref, power):
        check_float32(ref, "ref")
        check_float32(power, "power")
        self.ref, self.power = ref, power

    def _execute(self, x):
        x = _float(x)
        return (self.ref * np.power(np.power(10.0, 0.1 * x), self.power)).astype(x.dtype)


class MuLawEncoding(TensorOperation):
    """`MuLawEncoding(quantization_channels=256)`: waveform in [-1, 1] → μ-law codes (int32)."""

    def __init__(self, quantization_channels=256):
        check_type(quantization_channels, (int,), "quantization_channels")
        check_interval(quantization_channels, 1, INT32_MAX, "quantization_channels")
        self.quantization_channels = quantization_channels

    def _execute(self, x):
        mu = self.quantization_channels - 1.0
        x = _float(x).astype(np.float64)
        x_mu = np.sign(x) * np.log1p(mu * np.abs(x)) / np.log1p(mu)
        return np.floor((x_mu + 1) / 2 * mu + 0.5).astype(np.int32)


class MuLawDecoding(TensorOperation):
    """`MuLawDecoding(quantization_channels=256)`: μ-law codes → waveform in [-1, 1] (float32; float64 input stays
    float64)."""

    def __init__(self, quantization_channels=256):
        check_type(quantization_channels, (int,), "quantization_channels")
        check_interval(quantization_channels, 1, INT32_MAX, "quantization_channels")
        self.quantization_channels = quantization_channels

    def _execute(self, x):
        x = np.asarray(x)
        # float64 stays float64, anything else is worked in float32 (MindSpore's kernel: its values bit for bit)
        dtype = np.float64 if x.dtype == np.float64 else np.float32
        mu = dtype(self.quantization_channels - 1)
        x = x.astype(dtype) / mu * dtype(2) - dtype(1)
        return np.sign(x) * np.expm1(np.abs(x) * np.log1p(mu)) / mu


class Gain(TensorOperation):
    """`Gain(gain_db=1.0)`: waveform scaled by gain_db decibels."""

    def __init__(self, gain_db=1.0):
        check_float32(gain_db, "gain_db")
        self.gain_db = gain_db

    def _execute(self, x):
        x = _float(x)
        return (x * 10.0 ** (self.gain_db / 20.0)).astype(x.dtype)


class Vol(TensorOperation):
    """`Vol(gain, gain_type=AMPLITUDE)`: waveform scaled by an amplitude ratio, a power ratio or decibels, then
    clipped to [-1, 1]."""

    def __init__(self, gain, gain_type=GainType.AMPLITUDE):
        check_type(gain, (int, float), "gain")
        check_type(gain_type, (GainType,), "gain_type")
        if gain_type == GainType.AMPLITUDE:
            check_interval(gain, 0, FLOAT32_LIMIT, "gain")
        elif gain_type == GainType.POWER:
            check_interval(gain, 0, FLOAT32_LIMIT, "gain", left_open=True)
        else:
            check_float32(gain, "gain")
        self.gain, self.gain_type = gain, gain_type

    def _execute(self, x):
        x = _float(x)
        if self.gain_type == GainType.AMPLITUDE:
            factor = self.gain
        elif self.gain_type == GainType.DB:
            factor = 10.0 ** (self.gain / 20.0)
        else:
            factor = np.sqrt(self.gain)
        return np.clip(x * factor, -1.0, 1.0).astype(x.dtype)


def _fade_curve(n, shape, rising):
    t = np.linspace(0.0, 1.0, n) if n > 1 else np.ones(n)
    if not rising:
        t = 1.0 - t
    if shape == FadeShape.LINEAR:
        return t
    if shape == FadeShape.EXPONENTIAL:
        return np.power(2.0, (t - 1.0) * 5.0)
    if shape == FadeShape.LOGARITHMIC:
        return np.log10(0.1 + t) + 1.0
    if shape == FadeShape.QUARTER_SINE:
        return np.sin(t * np.pi / 2.0)
    return np.sin(t * np.pi - np.pi / 2.0) / 2.0 + 0.5


class Fade(TensorOperation):
    """`Fade(fade_in_len=0, fade_out_len=0, fade_shape=LINEAR)`: fade the waveform in and out."""

    def __init__(self, fade_in_len=0, fade_out_len=0, fade_shape=FadeShape.LINEAR):
        for name, value in (("fade_in_len", fade_in_len), ("fade_out_len", fade_out_len)):
            check_type(value, (int,), name)
            check_interval(value, 0, INT32_MAX, name)
        check_type(fade_shape, (FadeShape,), "fade_shape")
        self.fade_in_len, self.fade_out_len, self.fade_shape = fade_in_len, fade_out_len, fade_shape

    def _execute(self, x):
        x = _float(x)
        n = x.shape[-1]
        if self.fade_in_len > n or self.fade_out_len > n:
            raise ValueError(f"For 'Fade', the fade lengths must not exceed the waveform length {n}.")
        gain = np.ones(n)
        gain[:self.fade_in_len] *= _fade_curve(self.fade_in_len, self.fade_shape, True)
        if self.fade_out_len:
            gain[n - self.fade_out_len:] *= _fade_curve(self.fade_out_len, self.fade_shape, False)
        return (x * gain).astype(x.dtype)


def _window(kind, length):
    n = np.arange(length)
    if kind == WindowType.HANN:
        return 0.5 - 0.5 * np.cos(2 * np.pi * n / length)
    if kind == WindowType.HAMMING:
        return 0.54 - 0.46 * np.cos(2 * np.pi * n / length)
    if kind == WindowType.BLACKMAN:
        return 0.42 - 0.5 * np.cos(2 * np.pi * n / length) + 0.08 * np.cos(4 * np.pi * n / length)
    if kind == WindowType.BARTLETT:
        return 1 - np.abs(2 * n / length - 1)
    return np.kaiser(length + 1, 12.0)[:-1]


class Spectrogram(TensorOperation):
    """`Spectrogram(n_fft=400, win_length=None, hop_length=None, pad=0, window=HANN, power=2.0, normalized=False,
    center=True, pad_mode=REFLECT, onesided=True)`: |STFT|^power of the waveform, shape (..., freq, frames)."""

    def __init__(self, n_fft=400, win_length=None, hop_length=None, pad=0, window=WindowType.HANN, power=2.0,
                 normalized=False, center=True, pad_mode=BorderType.REFLECT, onesided=True):
        self.n_fft, self.pad, self.power = n_fft, pad, power
        self.win_length = win_length or n_fft
        self.hop_length = hop_length or self.win_length // 2
        if self.win_length > n_fft:
            raise ValueError(f"For 'Spectrogram', 'win_length' {self.win_length} must not exceed 'n_fft' {n_fft}.")
        self.window, self.normalized, self.center = WindowType(window), bool(normalized), bool(center)
        self.pad_mode, self.onesided = BorderType(pad_mode), bool(onesided)

    def _execute(self, x):
        x = _float(x).astype(np.float64)
        if self.pad:
            x = np.pad(x, [(0, 0)] * (x.ndim - 1) + [(self.pad, self.pad)])
        if self.center:
            half = self.n_fft // 2
            x = np.pad(x, [(0, 0)] * (x.ndim - 1) + [(half, half)], mode=self.pad_mode.value)
        win = np.zeros(self.n_fft)
        left = (self.n_fft - self.win_length) // 2
        win[left:left + self.win_length] = _window(self.window, self.win_length)
        frames = 1 + (x.shape[-1] - self.n_fft) // self.hop_length
        idx = np.arange(frames)[:, None] * self.hop_length + np.arange(self.n_fft)[None, :]
        spec = (np.fft.rfft if self.onesided else np.fft.fft)(x[..., idx] * win, axis=-1)
        if self.normalized:
            spec = spec / np.sqrt((win ** 2).sum())
        out = np.abs(spec) ** self.power if self.power is not None else spec
        return np.swapaxes(out, -1, -2).astype(np.float32)


def _hz_to_mel(f, mel_type):
    if mel_type == MelType.HTK:
        return 2595.0 * np.log10(1.0 + np.asarray(f, np.float64) / 700.0)
    f = np.asarray(f, np.float64)
    mel = f / (200.0 / 3)
    log_part = 15.0 + np.log(np.maximum(f, 1e-10) / 1000.0) / (np.log(6.4) / 27.0)
    return np.where(f >= 1000.0, log_part, mel)


def _mel_to_hz(m, mel_type):
    if mel_type == MelType.HTK:
        return 700.0 * (10.0 ** (np.asarray(m) / 2595.0) - 1.0)
    m = np.asarray(m, np.float64)
    return np.where(m >= 15.0, 1000.0 * np.exp((np.log(6.4) / 27.0) * (m - 15.0)), (200.0 / 3) * m)


def mel_filterbank(n_stft, f_min, f_max, n_mels, sample_rate, norm, mel_type):
    """(n_stft, n_mels) triangular filters evenly spaced on the mel scale."""
    freqs = np.linspace(0, sample_rate // 2, n_stft)
    m_pts = np.linspace(_hz_to_mel(f_min, mel_type), _hz_to_mel(f_max, mel_type), n_mels + 2)
    f_pts = _mel_to_hz(m_pts, mel_type)
    f_diff = np.diff(f_pts)
    slopes = f_pts[None, :] - freqs[:, None]
    down = -slopes[:, :-2] / f_diff[:-1]
    up = slopes[:, 2:] / f_diff[1:]
    fb = np.maximum(0.0, np.minimum(down, up))
    if NormType(norm) == NormType.SLANEY:
        fb *= 2.0 / (f_pts[2:n_mels + 2] - f_pts[:n_mels])
    return fb


class MelScale(TensorOperation):
    """`MelScale(n_mels=128, sample_rate=16000, f_min=0.0, f_max=None, n_stft=201, norm=NONE, mel_type=HTK)`:
    a (..., n_stft, time) spectrogram projected onto mel filters → (..., n_mels, time)."""

    def __init__(self, n_mels=128, sample_rate=16000, f_min=0.0, f_max=None, n_stft=201, norm=NormType.NONE,
                 mel_type=MelType.HTK):
        self.n_mels, self.sample_rate, self.f_min = n_mels, sample_rate, f_min
        self.f_max = f_max if f_max is not None else sample_rate / 2.0
        self.n_stft, self.norm, self.mel_type = n_stft, NormType(norm), MelType(mel_type)

    def _execute(self, spec):
        spec = _float(spec)
        fb = mel_filterbank(self.n_stft, self.f_min, self.f_max, self.n_mels, self.sample_rate, self.norm,
                            self.mel_type)
        return np.swapaxes(np.swapaxes(spec, -1, -2) @ fb, -1, -2).astype(np.float32)


class MelSpectrogram(TensorOperation):
    """`MelSpectrogram(sample_rate=16000, n_fft=400, ..., n_mels=128, ...)`: Spectrogram followed by MelScale."""

    def __init__(self, sample_rate=16000, n_fft=400, win_length=None, hop_length=None, f_min=0.0, f_max=None,
                 pad=0, n_mels=128, window=WindowType.HANN, power=2.0, normalized=False, center=True,
                 pad_mode=BorderType.REFLECT, onesided=True, norm=NormType.NONE, mel_scale=MelType.HTK):
        self.spectrogram = Spectrogram(n_fft, win_length, hop_length, pad, window, power, normalized, center,
                                       pad_mode, onesided)
        self.mel_scale = MelScale(n_mels, sample_rate, f_min, f_max, n_fft // 2 + 1, norm, mel_scale)

    def _execute(self, x):
        return self.mel_scale(self.spectrogram(x))


class ComplexNorm(TensorOperation):
    """`ComplexNorm(power=1.0)`: |z|^power of (..., 2) real/imaginary pairs."""

    def __init__(self, power=1.0):
        check_type(power, (int, float), "power")
        check_interval(power, 0, FLOAT32_LIMIT, "power")
        self.power = power

    def _execute(self, x):
        x = _float(x)
        squares = x[..., 0] ** 2 + x[..., 1] ** 2  # |z|^power = (re² + im²)^(power/2): exact for power 2
        if self.power == 1:
            return np.sqrt(squares).astype(x.dtype)
        return np.power(squares, self.power / 2).astype(x.dtype)


class Magphase(TensorOperation):
    """`Magphase(power=1.0)`: (|z|^power, angle(z)) of (..., 2) real/imaginary pairs."""

    def __init__(self, power=1.0):
        check_type(power, (int, float), "power")
        check_interval(power, 0, FLOAT32_LIMIT, "power")
        self.power = power

    def _execute(self, x):
        x = np.asarray(x)
        if x.dtype.kind not in "iuf":
            raise RuntimeError("Magphase: the data type of input tensor does not match the requirement of operator. "
                               f"Expecting tensor in type of [int, float, double]. But got type {x.dtype}.")
        if x.ndim < 1 or x.shape[-1] != 2:
            raise RuntimeError("Magphase: the shape of input tensor does not match the requirement of operator. "
                               f"Expecting tensor in shape of <..., complex=2>, but got {x.shape}.")
        x = _float(x)
        mag = np.power(np.sqrt(x[..., 0] ** 2 + x[..., 1] ** 2), self.power)
        return mag.astype(x.dtype), np.arctan2(x[..., 1], x[..., 0]).astype(x.dtype)


class DCShift(TensorOperation):
    """`DCShift(shift, limiter_gain=None)`: waveform shifted by `shift`; with limiter_gain, values beyond the
    limiter threshold are compressed instead of clipped; the result is clipped to [-1, 1]."""

    def __init__(self, shift, limiter_gain=None):
        check_type(shift, (int, float), "shift")
        check_interval(shift, -2.0, 2.0, "shift")
        if limiter_gain is not None:
            check_float32(limiter_gain, "limiter_gain")
        self.shift, self.limiter_gain = shift, limiter_gain

    def _execute(self, x):
        x = _float(x)
        shifted = np.clip(x + self.shift, -1.0, 1.0)
        if self.limiter_gain is None or self.shift == 0:
            return shifted.astype(x.dtype)
        # samples beyond the limiter threshold (on the side the shift pushes to) are compressed by limiter_gain
        # and held at the threshold; the rest are shifted and clipped to [-1, 1]
        threshold = 1.0 - (abs(self.shift) - self.limiter_gain)
        sign = 1.0 if self.shift > 0 else -1.0
        over = sign * x > threshold
        compressed = (x - sign * threshold) * self.limiter_gain / (1 - threshold) + sign * threshold + self.shift
        held = np.minimum(compressed, threshold) if sign > 0 else np.maximum(compressed, -threshold)
        return np.where(over, held, shifted).astype(x.dtype)


class Contrast(TensorOperation):
    """`Contrast(enhancement_amount=75.0)`: sox-style contrast enhancement of a waveform in [-1, 1]."""

    def __init__(self, enhancement_amount=75.0):
        check_type(enhancement_amount, (float, int), "enhancement_amount")
        check_interval(enhancement_amount, 0, 100, "enhancement_amount")
        self.enhancement_amount = enhancement_amount

    def _execute(self, x):
        x = _float(x)
        t = x * (np.pi / 2)
        return np.sin(t + self.enhancement_amount / 750.0 * np.sin(4 * t)).astype(x.dtype)


class _Masking(TensorOperation):
    axis = -1

    param_name = "mask_param"

    def __init__(self, iid_masks=False, mask_param=0, mask_start=0, mask_value=0.0):
        check_type(iid_masks, (bool,), "iid_masks")
        for name, value in ((self.param_name, mask_param), ("mask_start", mask_start)):
            check_type(value, (int,), name)
            check_interval(value, 0, INT32_MAX, name)
        check_type(mask_value, (int, float), "mask_value")
        check_interval(mask_value, -FLOAT32_LIMIT, FLOAT32_LIMIT, "mask_value")
        self.iid_masks, self.mask_param, self.mask_start, self.mask_value = bool(iid_masks), mask_param, \
            mask_start, mask_value

    def _execute(self, spec):
        spec = _float(spec).copy()
        size = spec.shape[self.axis]
        width = int(rng().integers(0, self.mask_param + 1))
        if self.iid_masks:
            start = int(rng().integers(0, max(size - width, 0) + 1))
        else:
            start = self.mask_start
            if start + width > size:
                raise ValueError(f"For '{type(self).__name__}', the mask [{start}, {start + width}) exceeds the "
                                 f"axis length {size}.")
        index = [slice(None)] * spec.ndim
        index[self.axis] = slice(start, start + width)
        spec[tuple(index)] = self.mask_value
        return spec


class TimeMasking(_Masking):
    """`TimeMasking(iid_masks=False, time_mask_param=0, mask_start=0, mask_value=0.0)`: mask a run of time steps
    whose width is drawn uniformly from [0, time_mask_param] (starting at mask_start, or at a random place when
    iid_masks), using the dataset seed."""

    axis, param_name = -1, "time_mask_param"

    def __init__(self, iid_masks=False, time_mask_param=0, mask_start=0, mask_value=0.0):
        super().__init__(iid_masks, time_mask_param, mask_start, mask_value)


class FrequencyMasking(_Masking):
    """`FrequencyMasking(iid_masks=False, freq_mask_param=0, mask_start=0, mask_value=0.0)`: as TimeMasking, over
    frequency bins."""

    axis, param_name = -2, "freq_mask_param"

    def __init__(self, iid_masks=False, freq_mask_param=0, mask_start=0, mask_value=0.0):
        super().__init__(iid_masks, freq_mask_param, mask_start, mask_value)


def __getattr__(name):
    # `mindspore.dataset.audio.transforms` is MindSpore's module for every audio transform; here the filters,
    # features and effects live in sibling modules, so their names are answered from the package.
    from .. import audio
    if name in audio.__all__:
        return getattr(audio, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
