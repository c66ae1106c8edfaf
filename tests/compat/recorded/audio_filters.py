import numpy as np
import mindspore.dataset.audio as audio
np.set_printoptions(precision=5, suppress=True)
t = np.arange(200) / 8000.0
x = (0.4 * np.sin(2 * np.pi * 440 * t) + 0.3 * np.sin(2 * np.pi * 3000 * t)).astype(np.float32)
x2 = np.stack([x, x[::-1] * 0.5])


def show(name, y):
    y = np.asarray(y)
    print(name, y.shape, y.dtype, y.reshape(-1)[[5, 50, 120, 199]], round(float(np.abs(y).sum()), 3))


show("lowpass", audio.LowpassBiquad(8000, 1000.0)(x))
show("highpass", audio.HighpassBiquad(8000, 1000.0, 0.5)(x2))
show("bandpass", audio.BandpassBiquad(8000, 440.0)(x))
show("bandpass_skirt", audio.BandpassBiquad(8000, 440.0, 0.9, True)(x))
show("bandreject", audio.BandrejectBiquad(8000, 3000.0)(x))
show("allpass", audio.AllpassBiquad(8000, 1000.0)(x))
show("equalizer", audio.EqualizerBiquad(8000, 1500.0, 6.0)(x))
show("bass", audio.BassBiquad(8000, 8.0)(x))
show("treble", audio.TrebleBiquad(8000, -4.0, 2000.0, 0.5)(x))
show("band", audio.BandBiquad(8000, 440.0)(x))
show("band_noise", audio.BandBiquad(8000, 440.0, 0.5, True)(x))
show("deemph", audio.DeemphBiquad(44100)(x))
show("deemph48", audio.DeemphBiquad(48000)(x2))
show("biquad", audio.Biquad(0.4, 0.2, 0.1, 1.0, -0.3, 0.1)(x))
show("lfilter", audio.LFilter([1.0, -0.5, 0.2], [0.3, 0.2, 0.1])(x))
show("lfilter_noclamp", audio.LFilter([1.0, -1.05], [3.0, 2.0], clamp=False)(x * 0.01))
show("lfilter_clamp", audio.LFilter([1.0, -1.05], [3.0, 2.0])(x * 0.01))
show("filtfilt", audio.Filtfilt([1.0, -0.5, 0.2], [0.3, 0.2, 0.1])(x))
