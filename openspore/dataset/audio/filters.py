"""IIR filters of `mindspore.dataset.audio` on waveforms (..., time): LFilter, Filtfilt, Biquad and the biquads
designed from the Audio EQ Cookbook formulas (low/high/band-pass, band-reject, all-pass, peaking equaliser,
bass/treble shelves, de-emphasis).

>>> import numpy as np
>>> LFilter([1.0, 0.0], [0.5, 0.5], clamp=False)(np.array([1.0, 0.0, 0.0], np.float32)).tolist()
[0.5, 0.5, 0.0]
"""
import math
import numbers

import numpy as np

from ..engine.checks import check_float32, check_interval, check_nonzero_int32, check_type
from ..transforms.base import TensorOperation


def _coeffs(values, name, where):
    arr = np.asarray(values, np.float64).reshape(-1)
    if arr.size == 0 or not np.isfinite(arr).all():
        raise ValueError(f"For '{where}', '{name}' must be a non-empty sequence of finite numbers, got {values!r}.")
    return arr


def lfilter(waveform, a, b, clamp=True):
    """y[n] = (sum_k b[k] x[n-k] - sum_{k>=1} a[k] y[n-k]) / a[0] along the last axis (computed in float64),
    clipped to [-1, 1] when `clamp`; the output keeps the input's float dtype."""
    x = np.asarray(waveform)
    if x.dtype.kind != "f":
        raise TypeError(f"For 'LFilter', the waveform must be float, but got {x.dtype}.")
    if len(a) != len(b):
        raise ValueError(f"For 'LFilter', 'a_coeffs' and 'b_coeffs' must have the same length, got {len(a)} and "
                         f"{len(b)}.")
    if a[0] == 0:
        raise ValueError("For 'LFilter', a_coeffs[0] must not be 0.")
    a, b = a / a[0], b / a[0]
    flat = x.reshape(-1, x.shape[-1]).astype(np.float64)
    order, length = len(a), flat.shape[1]
    # FIR part at once; the recursive part sample by sample (vectorised over channels)
    padded = np.concatenate([np.zeros((flat.shape[0], order - 1)), flat], axis=1)
    fir = sum(b[k] * padded[:, order - 1 - k:order - 1 - k + length] for k in range(order))
    y = np.zeros((flat.shape[0], length + order - 1))
    for n in range(length):
        acc = fir[:, n]
        for k in range(1, order):
            acc = acc - a[k] * y[:, order - 1 + n - k]
        y[:, order - 1 + n] = acc
    out = y[:, order - 1:]
    if clamp:
        out = np.clip(out, -1.0, 1.0)
    return out.reshape(x.shape).astype(x.dtype)


class LFilter(TensorOperation):
    """`LFilter(a_coeffs, b_coeffs, clamp=True)`: the IIR filter with denominator `a_coeffs` and numerator
    `b_coeffs` (same length; a_coeffs[0] normalises)."""

    def __init__(self, a_coeffs, b_coeffs, clamp=True):
        self.a_coeffs = _coeffs(a_coeffs, "a_coeffs", "LFilter")
        self.b_coeffs = _coeffs(b_coeffs, "b_coeffs", "LFilter")
        self.clamp = bool(clamp)

    def _execute(self, waveform):
        return lfilter(waveform, self.a_coeffs, self.b_coeffs, self.clamp)


class Filtfilt(LFilter):
    """`Filtfilt(a_coeffs, b_coeffs, clamp=True)`: the filter run forwards, then backwards over the result (zero
    phase); clamping, when on, applies to the final output."""

    def _execute(self, waveform):
        forward = lfilter(waveform, self.a_coeffs, self.b_coeffs, False)
        backward = lfilter(np.ascontiguousarray(forward[..., ::-1]), self.a_coeffs, self.b_coeffs, self.clamp)
        return np.ascontiguousarray(backward[..., ::-1])


class Biquad(TensorOperation):
    """`Biquad(b0, b1, b2, a0, a1, a2)`: the second-order IIR filter with these coefficients (output clipped to
    [-1, 1])."""

    def __init__(self, b0, b1, b2, a0, a1, a2):
        values = (b0, b1, b2, a0, a1, a2)
        if not all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in values) or a0 == 0:
            raise ValueError(f"For '{type(self).__name__}', the coefficients must be numbers with a0 != 0, got "
                             f"{values!r}.")
        self._b, self._a = np.array([b0, b1, b2], np.float64), np.array([a0, a1, a2], np.float64)

    def _execute(self, waveform):
        return lfilter(waveform, self._a, self._b, True)


def _design(sample_rate, freq, Q, where, freq_name="central_freq"):
    """(w0, cos w0, alpha) of the cookbook formulas; the arguments are checked in MindSpore's order and words."""
    check_nonzero_int32(sample_rate, "sample_rate")
    check_float32(freq, freq_name)
    check_type(Q, (float, int), "Q")
    check_interval(Q, 0, 1, "Q", left_open=True)
    w0 = 2 * math.pi * float(freq) / sample_rate
    return w0, math.cos(w0), math.sin(w0) / 2 / float(Q)


class LowpassBiquad(Biquad):
    """`LowpassBiquad(sample_rate, cutoff_freq, Q=0.707)`: second-order low-pass."""

    def __init__(self, sample_rate, cutoff_freq, Q=0.707):
        _, c, alpha = _design(sample_rate, cutoff_freq, Q, "LowpassBiquad", "cutoff_freq")
        self.sample_rate, self.cutoff_freq, self.Q = sample_rate, cutoff_freq, Q
        super().__init__((1 - c) / 2, 1 - c, (1 - c) / 2, 1 + alpha, -2 * c, 1 - alpha)


class HighpassBiquad(Biquad):
    """`HighpassBiquad(sample_rate, cutoff_freq, Q=0.707)`: second-order high-pass."""

    def __init__(self, sample_rate, cutoff_freq, Q=0.707):
        _, c, alpha = _design(sample_rate, cutoff_freq, Q, "HighpassBiquad", "cutoff_freq")
        self.sample_rate, self.cutoff_freq, self.Q = sample_rate, cutoff_freq, Q
        super().__init__((1 + c) / 2, -1 - c, (1 + c) / 2, 1 + alpha, -2 * c, 1 - alpha)


class BandpassBiquad(Biquad):
    """`BandpassBiquad(sample_rate, central_freq, Q=0.707, const_skirt_gain=False)`: band-pass with constant 0 dB
    peak gain, or constant skirt gain (peak gain Q) when asked."""

    def __init__(self, sample_rate, central_freq, Q=0.707, const_skirt_gain=False):
        w0, c, alpha = _design(sample_rate, central_freq, Q, "BandpassBiquad")
        self.sample_rate, self.central_freq, self.Q = sample_rate, central_freq, Q
        check_type(const_skirt_gain, (bool,), "const_skirt_gain")
        self.const_skirt_gain = const_skirt_gain
        top = math.sin(w0) / 2 if self.const_skirt_gain else alpha
        super().__init__(top, 0.0, -top, 1 + alpha, -2 * c, 1 - alpha)


class BandrejectBiquad(Biquad):
    """`BandrejectBiquad(sample_rate, central_freq, Q=0.707)`: notch filter."""

    def __init__(self, sample_rate, central_freq, Q=0.707):
        _, c, alpha = _design(sample_rate, central_freq, Q, "BandrejectBiquad")
        self.sample_rate, self.central_freq, self.Q = sample_rate, central_freq, Q
        super().__init__(1.0, -2 * c, 1.0, 1 + alpha, -2 * c, 1 - alpha)


class AllpassBiquad(Biquad):
    """`AllpassBiquad(sample_rate, central_freq, Q=0.707)`: all-pass (phase shift around `central_freq`)."""

    def __init__(self, sample_rate, central_freq, Q=0.707):
        _, c, alpha = _design(sample_rate, central_freq, Q, "AllpassBiquad")
        self.sample_rate, self.central_freq, self.Q = sample_rate, central_freq, Q
        super().__init__(1 - alpha, -2 * c, 1 + alpha, 1 + alpha, -2 * c, 1 - alpha)


class EqualizerBiquad(Biquad):
    """`EqualizerBiquad(sample_rate, center_freq, gain, Q=0.707)`: peaking equaliser adding `gain` dB."""

    def __init__(self, sample_rate, center_freq, gain, Q=0.707):
        _, c, alpha = _design(sample_rate, center_freq, Q, "EqualizerBiquad", "center_freq")
        check_float32(gain, "gain")
        self.sample_rate, self.center_freq, self.gain, self.Q = sample_rate, center_freq, gain, Q
        amp = 10 ** (float(gain) / 40)
        super().__init__(1 + alpha * amp, -2 * c, 1 - alpha * amp, 1 + alpha / amp, -2 * c, 1 - alpha / amp)


def _shelf(sample_rate, gain, freq, Q, where, high, alpha=None):
    check_nonzero_int32(sample_rate, "sample_rate")
    check_float32(gain, "gain")
    w0, c, cook_alpha = _design(sample_rate, freq, Q, where)
    amp = math.exp(float(gain) / 40 * math.log(10))
    alpha = cook_alpha if alpha is None else alpha(w0, amp)
    t1, t2, t3 = 2 * math.sqrt(amp) * alpha, (amp - 1) * c, (amp + 1) * c
    if high:
        return (amp * ((amp + 1) + t2 + t1), -2 * amp * ((amp - 1) + t3), amp * ((amp + 1) + t2 - t1),
                (amp + 1) - t2 + t1, 2 * ((amp - 1) - t3), (amp + 1) - t2 - t1)
    return (amp * ((amp + 1) - t2 + t1), 2 * amp * ((amp - 1) - t3), amp * ((amp + 1) - t2 - t1),
            (amp + 1) + t2 + t1, -2 * ((amp - 1) + t3), (amp + 1) + t2 - t1)


class BassBiquad(Biquad):
    """`BassBiquad(sample_rate, gain, central_freq=100.0, Q=0.707)`: low shelf adding `gain` dB below the
    frequency."""

    def __init__(self, sample_rate, gain, central_freq=100.0, Q=0.707):
        self.sample_rate, self.gain, self.central_freq, self.Q = sample_rate, gain, central_freq, Q
        super().__init__(*_shelf(sample_rate, gain, central_freq, Q, "BassBiquad", high=False))


class TrebleBiquad(Biquad):
    """`TrebleBiquad(sample_rate, gain, central_freq=3000, Q=0.707)`: high shelf adding `gain` dB above the
    frequency."""

    def __init__(self, sample_rate, gain, central_freq=3000, Q=0.707):
        self.sample_rate, self.gain, self.central_freq, self.Q = sample_rate, gain, central_freq, Q
        super().__init__(*_shelf(sample_rate, gain, central_freq, Q, "TrebleBiquad", high=True))


class BandBiquad(Biquad):
    """`BandBiquad(sample_rate, central_freq, Q=0.707, noise=False)`: band-pass resonator (bandwidth
    central_freq / Q); `noise` scales it for unpitched audio."""

    def __init__(self, sample_rate, central_freq, Q=0.707, noise=False):
        w0, _, _ = _design(sample_rate, central_freq, Q, "BandBiquad")
        check_type(noise, (bool,), "noise")
        self.sample_rate, self.central_freq, self.Q, self.noise = sample_rate, central_freq, Q, noise
        bandwidth = float(central_freq) / float(Q)
        a2 = math.exp(-2 * math.pi * bandwidth / sample_rate)
        a1 = -4 * a2 / (1 + a2) * math.cos(w0)
        b0 = math.sqrt(1 - a1 * a1 / (4 * a2)) * (1 - a2)
        if self.noise:
            b0 *= math.sqrt(((1 + a2) ** 2 - a1 * a1) * (1 - a2) / (1 + a2)) / b0
        super().__init__(b0, 0.0, 0.0, 1.0, a1, a2)


_DEEMPH = {44100: (5283.0, 0.4845, -9.477), 48000: (5356.0, 0.479, -9.62)}


class DeemphBiquad(Biquad):
    """`DeemphBiquad(sample_rate)`: the CD de-emphasis shelf (sample_rate 44100 or 48000)."""

    def __init__(self, sample_rate):
        if sample_rate not in _DEEMPH:
            raise ValueError(f"For 'DeemphBiquad', 'sample_rate' must be 44100 or 48000, but got {sample_rate!r}.")
        self.sample_rate = sample_rate
        freq, slope, gain = _DEEMPH[sample_rate]

        def alpha(w0, amp):
            return math.sin(w0) / 2 * math.sqrt((amp + 1 / amp) * (1 / slope - 1) + 2)
        super().__init__(*_shelf(sample_rate, gain, freq, 0.707, "DeemphBiquad", high=True, alpha=alpha))
