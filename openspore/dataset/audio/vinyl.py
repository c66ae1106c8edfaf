"""`mindspore.dataset.audio.RiaaBiquad` (vinyl playback equalisation) and the `Modulation`/`Interpolation` enums
of the modulated effects.

The RIAA curve is one biquad per supported rate: SoX's zeros and poles for that rate, scaled to 0 dB at 1 kHz.

>>> import numpy as np
>>> f = RiaaBiquad(44100)
>>> w = 2 * np.pi * 1000 / 44100                      # gain at 1 kHz is 1
>>> z = np.exp(-1j * w * np.arange(3))
>>> round(float(abs((f._b @ z) / (f._a @ z))), 6)
1.0
"""
import math
from enum import Enum

import numpy as np

from .filters import Biquad


class Modulation(str, Enum):
    """Modulation waveform of `Flanger`: SINUSOIDAL or TRIANGULAR."""
    SINUSOIDAL = "sinusoidal"
    TRIANGULAR = "triangular"


class Interpolation(str, Enum):
    """Delay-line interpolation of `Flanger`: LINEAR or QUADRATIC."""
    LINEAR = "linear"
    QUADRATIC = "quadratic"


# (zeros, poles) of the RIAA playback filter at each rate SoX supports
_RIAA = {44100: ((-0.2014898, 0.9233820), (0.7083149, 0.9924091)),
         48000: ((-0.1766069, 0.9321590), (0.7396325, 0.9931330)),
         88200: ((-0.1168735, 0.9648312), (0.8590646, 0.9964002)),
         96000: ((-0.1141486, 0.9676817), (0.8699137, 0.9966946))}


class RiaaBiquad(Biquad):
    """`RiaaBiquad(sample_rate)`: RIAA vinyl playback equalisation; `sample_rate` is 44100, 48000, 88200 or
    96000 (output clipped to [-1, 1], as every biquad)."""

    def __init__(self, sample_rate):
        if isinstance(sample_rate, bool) or not isinstance(sample_rate, int):
            raise TypeError(f"For 'RiaaBiquad', 'sample_rate' must be an int, but got {type(sample_rate).__name__}.")
        if sample_rate not in _RIAA:
            raise ValueError(f"For 'RiaaBiquad', 'sample_rate' must be one of {sorted(_RIAA)}, "
                             f"but got {sample_rate}.")
        self.sample_rate = sample_rate
        (z0, z1), (p0, p1) = _RIAA[sample_rate]
        b = np.array([1.0, -(z0 + z1), z0 * z1])
        a = np.array([1.0, -(p0 + p1), p0 * p1])
        w = 2 * math.pi * 1000 / sample_rate
        z = np.exp(-1j * w * np.arange(3))
        gain = abs((a @ z) / (b @ z))        # brings the response at 1 kHz to 0 dB
        super().__init__(*(b * gain), *a)
