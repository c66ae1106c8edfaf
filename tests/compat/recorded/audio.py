import numpy as np
import mindspore.dataset.audio as audio
np.set_printoptions(precision=5, suppress=True)
x = np.sin(np.linspace(0, 20, 64)).astype(np.float32) * 0.5
spec = np.abs(np.stack([x[:8], x[8:16]])) + 0.01
print(audio.AmplitudeToDB()(spec)[0][:4])
print(audio.AmplitudeToDB(stype=audio.ScaleType.MAGNITUDE, ref_value=2.0, amin=1e-5, top_db=20.0)(spec)[1][:4])
print(audio.DBToAmplitude(0.5, 1.0)(np.array([0.0, 10.0, -10.0], np.float32)))
enc = audio.MuLawEncoding(16)(x[:6]); print(enc, enc.dtype)
dec = audio.MuLawDecoding(16)(enc); print(dec, dec.dtype)
print(audio.Gain(6.0)(x[:4]))
print(audio.Vol(2.0)(x[:4]), audio.Vol(-6.0, audio.GainType.DB)(x[:4]), audio.Vol(0.5, audio.GainType.POWER)(x[:4]))
print(audio.Fade(4, 4, audio.FadeShape.LINEAR)(np.ones(10, np.float32)))
print(audio.Fade(4, 0, audio.FadeShape.HALF_SINE)(np.ones(6, np.float32)))
s = audio.Spectrogram(n_fft=16)(x); print(s.shape, s.dtype, s[:3, 0])
s2 = audio.Spectrogram(n_fft=16, win_length=8, hop_length=4, power=1.0, center=False, normalized=True)(x); print(s2.shape, s2[:3, 1])
m = audio.MelScale(n_mels=4, sample_rate=16000, n_stft=9)(s); print(m.shape, m[:, 0])
ms_ = audio.MelSpectrogram(sample_rate=16000, n_fft=16, n_mels=4)(x); print(ms_.shape, ms_[:, 1])
print(audio.ComplexNorm()(np.array([[3.0, 4.0], [1.0, 0.0]], np.float32)))
print(audio.Magphase()(np.array([[3.0, 4.0]], np.float32)))
print(audio.DCShift(0.1)(x[:3]), audio.Contrast(75.0)(x[:3]))
