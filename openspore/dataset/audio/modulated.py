"""Delay-line effects of `mindspore.dataset.audio` with a modulated delay: `Phaser` and `Flanger` (SoX's).

Phaser: the delay of each sample is read from a wave table (sine or triangle, a quarter period ahead) spanning 1 .. the
delay length in samples; the delayed signal, scaled by `decay`, is fed back into the delay line together with the
input scaled by `gain_in`, and the sum scaled by `gain_out` is the output (clipped to [-1, 1]).

>>> import numpy as np
>>> x = np.zeros(8, np.float32); x[0] = 0.5
>>> Phaser(8000, gain_in=1.0, gain_out=1.0, decay=0.0)(x).tolist() == x.tolist()    # no feedback: identity
True
"""
import math

import numpy as np

from ..transforms.base import TensorOperation
from .vinyl import Interpolation, Modulation


def wave_table(sinusoidal, size, low, high, phase, integer):
    """`size` samples of one period of a sine or triangle wave spanning [low, high], starting `phase` radians in;
    rounded half away from zero to ints when `integer`."""
    offset = int(phase / math.pi / 2 * size + 0.5)
    point = (np.arange(size) + offset) % size
    if sinusoidal:
        d = (np.sin(point / size * 2 * math.pi) + 1) / 2
    else:
        d = point * 2.0 / size
        quarter = (4 * point) // size
        d = np.where(quarter == 0, d + 0.5, d)
        d = np.where((quarter == 1) | (quarter == 2), 1.5 - d, d)
        d = np.where(quarter == 3, d - 1.5, d)
    d = d * (high - low) + low
    if integer:
        d = np.trunc(np.where(d < 0, d - 0.5, d + 0.5)).astype(np.int64)
    return d


def _in_range(value, name, low, high, where):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"For '{where}', '{name}' must be a float, but got {type(value).__name__}.")
    if not low <= value <= high:
        raise ValueError(f"For '{where}', '{name}' must be in [{low}, {high}], but got {value}.")
    return float(value)


class Phaser(TensorOperation):
    """`Phaser(sample_rate, gain_in=0.4, gain_out=0.74, delay_ms=3.0, decay=0.4, mod_speed=0.5, sinusoidal=True)`
    on a waveform (..., time)."""

    def __init__(self, sample_rate, gain_in=0.4, gain_out=0.74, delay_ms=3.0, decay=0.4, mod_speed=0.5,
                 sinusoidal=True):
        where = "Phaser"
        if isinstance(sample_rate, bool) or not isinstance(sample_rate, int):
            raise TypeError(f"For '{where}', 'sample_rate' must be an int, but got {type(sample_rate).__name__}.")
        self.sample_rate = sample_rate
        self.gain_in = _in_range(gain_in, "gain_in", 0.0, 1.0, where)
        self.gain_out = _in_range(gain_out, "gain_out", 0.0, 1e9, where)
        self.delay_ms = _in_range(delay_ms, "delay_ms", 0.0, 5.0, where)
        self.decay = _in_range(decay, "decay", 0.0, 0.99, where)
        self.mod_speed = _in_range(mod_speed, "mod_speed", 0.1, 2.0, where)
        if not isinstance(sinusoidal, bool):
            raise TypeError(f"For '{where}', 'sinusoidal' must be a bool, but got {type(sinusoidal).__name__}.")
        self.sinusoidal = sinusoidal

    def _execute(self, waveform):
        x = np.asarray(waveform)
        if x.dtype.kind != "f":
            raise TypeError(f"For 'Phaser', the waveform must be float, but got {x.dtype}.")
        flat = x.reshape(-1, x.shape[-1]).astype(np.float64)
        delay_len = max(1, int(self.delay_ms * 0.001 * self.sample_rate + 0.5))
        mod_len = max(1, int(self.sample_rate / self.mod_speed + 0.5))
        mod = wave_table(self.sinusoidal, mod_len, 1.0, float(delay_len), math.pi / 2, True)
        line = np.zeros((flat.shape[0], delay_len))
        out = np.empty_like(flat)
        delay_pos = mod_pos = 0
        for i in range(flat.shape[1]):
            tap = (delay_pos + int(mod[mod_pos])) % delay_len
            mod_pos = (mod_pos + 1) % mod_len
            delay_pos = (delay_pos + 1) % delay_len
            value = flat[:, i] * self.gain_in + line[:, tap] * self.decay
            out[:, i] = value * self.gain_out
            line[:, delay_pos] = value
        return np.clip(out, -1.0, 1.0).reshape(x.shape).astype(x.dtype)


class Flanger(TensorOperation):
    """`Flanger(sample_rate, delay=0.0, depth=2.0, regen=0.0, width=71.0, speed=0.5, phase=25.0,
    modulation=Modulation.SINUSOIDAL, interpolation=Interpolation.LINEAR)` on a waveform (..., channel, time):
    SoX's flanger. Each channel reads its delay line at `delay` + an LFO sweep of `depth` milliseconds (channel c
    `phase`% of a period behind channel 0), interpolated linearly or quadratically between samples; `regen`% of
    the delayed signal is fed back and `width`% mixed into the output."""

    def __init__(self, sample_rate, delay=0.0, depth=2.0, regen=0.0, width=71.0, speed=0.5, phase=25.0,
                 modulation=Modulation.SINUSOIDAL, interpolation=Interpolation.LINEAR):
        where = "Flanger"
        if isinstance(sample_rate, bool) or not isinstance(sample_rate, int):
            raise TypeError(f"For '{where}', 'sample_rate' must be an int, but got {type(sample_rate).__name__}.")
        if sample_rate == 0:
            raise ValueError(f"For '{where}', 'sample_rate' must not be 0.")
        self.sample_rate = sample_rate
        self.delay = _in_range(delay, "delay", 0.0, 30.0, where)
        self.depth = _in_range(depth, "depth", 0.0, 10.0, where)
        self.regen = _in_range(regen, "regen", -95.0, 95.0, where)
        self.width = _in_range(width, "width", 0.0, 100.0, where)
        self.speed = _in_range(speed, "speed", 0.1, 10.0, where)
        self.phase = _in_range(phase, "phase", 0.0, 100.0, where)
        if not isinstance(modulation, Modulation) or not isinstance(interpolation, Interpolation):
            raise TypeError(f"For '{where}', 'modulation' must be a Modulation and 'interpolation' an Interpolation.")
        self.modulation, self.interpolation = modulation, interpolation

    def _execute(self, waveform):
        x = np.asarray(waveform)
        if x.dtype.kind != "f" or x.ndim < 2:
            raise RuntimeError(f"For 'Flanger', the waveform must be float of shape <..., channel, time>, "
                               f"but got {x.dtype} of shape {x.shape}.")
        channels, length = x.shape[-2], x.shape[-1]
        flat = x.reshape(-1, channels, length).astype(np.float64)
        feedback = self.regen / 100
        mix = self.width / 100
        in_gain = 1.0 / (1 + mix)
        delay_gain = mix / (1 + mix) * (1 - abs(feedback))
        delay_min, depth = self.delay / 1000, self.depth / 1000
        buf_len = int((delay_min + depth) * self.sample_rate + 0.5) + 2
        lfo_len = int(self.sample_rate / self.speed)
        lfo = wave_table(self.modulation == Modulation.SINUSOIDAL, lfo_len,
                         math.floor(delay_min * self.sample_rate + 0.5), buf_len - 2.0, 3 * math.pi / 2, False)
        lanes = np.arange(channels)
        lag = (lanes * lfo_len * (self.phase / 100) + 0.5).astype(np.int64)   # each channel's LFO offset
        bufs = np.zeros(flat.shape[:2] + (buf_len,))
        last = np.zeros(flat.shape[:2])
        out = np.empty_like(flat)
        pos = lfo_pos = 0
        quadratic = self.interpolation == Interpolation.QUADRATIC
        for i in range(length):
            pos = (pos + buf_len - 1) % buf_len
            delay = lfo[(lfo_pos + lag) % lfo_len]
            frac = delay - np.floor(delay)
            whole = np.floor(delay).astype(np.int64)
            bufs[:, lanes, pos] = flat[:, :, i] + last * feedback
            d0 = bufs[:, lanes, (pos + whole) % buf_len]
            d1 = bufs[:, lanes, (pos + whole + 1) % buf_len]
            if quadratic:
                d2 = bufs[:, lanes, (pos + whole + 2) % buf_len] - d0
                d1 = d1 - d0
                delayed = d0 + ((d2 * 0.5 - d1) * frac + (d1 * 2 - d2 * 0.5)) * frac
            else:
                delayed = d0 + (d1 - d0) * frac
            last = delayed
            out[:, :, i] = flat[:, :, i] * in_gain + delayed * delay_gain
            lfo_pos = (lfo_pos + 1) % lfo_len
        return np.clip(out, -1.0, 1.0).reshape(x.shape).astype(x.dtype)
