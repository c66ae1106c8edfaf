"""dataset.audio STFT-domain transforms and RiaaBiquad: independent numpy checks, plus a few values quoted from
MindSpore 2.10 run as a black box on the same inputs."""
import numpy as np
import pytest

from openspore.dataset import audio
from openspore.dataset.audio.spectral import stft


def _pair(z):
    return np.stack([z.real, z.imag], -1).astype(np.float32)


def test_inverse_spectrogram_inverts_the_stft():
    x = np.random.RandomState(1).randn(2, 257).astype(np.float32)
    for win_length, window in ((64, audio.WindowType.HANN), (48, audio.WindowType.HAMMING)):
        spec = _pair(stft(x, 64, win_length, 16, window, True, audio.BorderType.REFLECT))
        back = audio.InverseSpectrogram(length=257, n_fft=64, win_length=win_length, hop_length=16,
                                        window=window)(spec)
        np.testing.assert_allclose(back, x, atol=2e-5)
    # by default the output has hop * (frames - 1) samples, as MindSpore's
    assert audio.InverseSpectrogram(n_fft=64, hop_length=16)(spec).shape == (2, 16 * (spec.shape[-2] - 1))


def test_inverse_spectrogram_matches_mindspore():
    spec = np.random.RandomState(0).randn(2, 33, 10, 2).astype(np.float32)
    out = audio.InverseSpectrogram(n_fft=64, hop_length=16)(spec)
    assert out.shape == (2, 144) and out.dtype == np.float32
    np.testing.assert_allclose(out[0, :4], [0.2112346887588501, 0.08596218377351761, 0.05613043159246445,
                                            -0.09102627635002136], rtol=1e-5, atol=1e-7)
    with pytest.raises(RuntimeError, match="complex=2"):
        audio.InverseSpectrogram(n_fft=64)(spec[..., 0])
    with pytest.raises(ValueError, match="pad"):
        audio.InverseSpectrogram(pad=-1)


def test_phase_vocoder_rates():
    rs = np.random.RandomState(2)
    z = rs.randn(5, 8) + 1j * rs.randn(5, 8)
    advance = np.linspace(0, np.pi * 4, 5)[:, None]
    out = audio.PhaseVocoder(2.0, advance)(_pair(z))
    assert out.shape == (5, 4, 2)
    got = out[..., 0] + 1j * out[..., 1]
    # integer steps take the magnitudes of frames 0, 2, 4, 6 and start from frame 0's phase
    np.testing.assert_allclose(np.abs(got), np.abs(z[:, ::2]), rtol=1e-5)
    np.testing.assert_allclose(np.angle(got[:, 0]), np.angle(z[:, 0]), atol=1e-5)
    half = audio.PhaseVocoder(0.5, advance)(_pair(z))
    assert half.shape == (5, 16, 2)
    mid = np.abs(half[:, 1, 0] + 1j * half[:, 1, 1])               # halfway between frames 0 and 1
    np.testing.assert_allclose(mid, 0.5 * (np.abs(z[:, 0]) + np.abs(z[:, 1])), rtol=1e-5)
    with pytest.raises(TypeError, match="phase_advance"):
        audio.PhaseVocoder(1.5, [0.0])


def test_time_stretch_matches_mindspore_and_phase_vocoder():
    spec = np.random.RandomState(0).randn(2, 33, 10, 2).astype(np.float32)
    out = audio.TimeStretch(hop_length=16, n_freq=33, fixed_rate=1.3)(spec)
    assert out.shape == (2, 33, 8, 2)
    np.testing.assert_allclose(out[0, 1, :3], [[-2.552989959716797, 0.6536184549331665],
                                               [1.2187031507492065, -1.0463213920593262],
                                               [1.0052498579025269, -0.6441225409507751]], rtol=1e-4, atol=1e-5)
    same = audio.PhaseVocoder(1.3, np.linspace(0, np.pi * 16, 33)[:, None])(spec)
    np.testing.assert_allclose(out, same, rtol=1e-6)
    kept = audio.TimeStretch(n_freq=33)(spec)                     # no rate: rate 1, magnitudes kept
    np.testing.assert_allclose(np.hypot(kept[..., 0], kept[..., 1]), np.hypot(spec[..., 0], spec[..., 1]),
                               rtol=1e-5)
    with pytest.raises(RuntimeError, match="n_freq"):
        audio.TimeStretch(n_freq=201)(spec)


def _dominant_hz(x, sr):
    spectrum = np.abs(np.fft.rfft(x * np.hanning(len(x))))
    return np.fft.rfftfreq(len(x), 1 / sr)[np.argmax(spectrum)]


def test_pitch_shift_moves_the_frequency_and_keeps_the_length():
    sr = 8000
    x = np.sin(2 * np.pi * 500 * np.arange(4000) / sr).astype(np.float32)
    up = audio.PitchShift(sr, 12)(x)                     # one octave up
    assert up.shape == x.shape and up.dtype == np.float32
    assert abs(_dominant_hz(up[500:3500], sr) - 1000) < 20
    down = audio.PitchShift(sr, -12, n_fft=1024)(x)
    assert abs(_dominant_hz(down[500:3500], sr) - 250) < 20


def test_pitch_shift_matches_mindspore():
    wave = np.sin(np.arange(300) * 0.21).astype(np.float32)
    np.testing.assert_allclose(audio.PitchShift(16000, 2, n_fft=64)(wave)[100:104],
                               [-0.17418907582759857, -0.285981684923172, -0.38238275051116943,
                                -0.45868974924087524], rtol=1e-4, atol=1e-5)


def test_griffin_lim():
    mag = np.abs(np.random.RandomState(0).randn(33, 12)).astype(np.float32) ** 2
    one = audio.GriffinLim(n_fft=64, n_iter=1, rand_init=False, momentum=0.0)(mag)
    assert one.shape == (352,)
    np.testing.assert_allclose(one[:3], [0.47545093, 0.11412732, 0.09523489], rtol=1e-5)   # MindSpore 2.10
    # reconstruction of a real signal's magnitudes: more iterations fit the magnitudes better
    sr_signal = np.sin(np.arange(1024) * 0.3) + 0.5 * np.sin(np.arange(1024) * 0.05)
    target = np.abs(stft(sr_signal, 128, 128, 32, audio.WindowType.HANN, True, audio.BorderType.REFLECT))

    def error(n_iter):
        wave = audio.GriffinLim(n_fft=128, n_iter=n_iter, hop_length=32, power=1.0, rand_init=False)(target)
        rebuilt = np.abs(stft(wave, 128, 128, 32, audio.WindowType.HANN, True, audio.BorderType.REFLECT))
        return np.linalg.norm(rebuilt - target) / np.linalg.norm(target)

    assert error(30) < error(1) and error(30) < 0.2
    assert audio.GriffinLim(n_fft=64, n_iter=2, length=150)(mag).shape == (150,)
    with pytest.raises(RuntimeError, match="n_fft // 2 \\+ 1"):
        audio.GriffinLim(n_fft=128)(mag)


def test_riaa_biquad_matches_mindspore():
    w = (0.3 * np.random.RandomState(0).randn(2, 200)).astype(np.float32)
    np.testing.assert_allclose(audio.RiaaBiquad(44100)(w)[0, :3], [0.12598568, 0.15189736, 0.19560465], rtol=1e-4)
    np.testing.assert_allclose(audio.RiaaBiquad(96000)(w)[0, :3], [0.06199674, 0.07687069, 0.10527954], rtol=1e-4)
    with pytest.raises(ValueError, match="44100"):
        audio.RiaaBiquad(16000)
    with pytest.raises(TypeError, match="int"):
        audio.RiaaBiquad(44100.0)
    assert audio.Modulation("triangular") is audio.Modulation.TRIANGULAR
    assert audio.Interpolation.QUADRATIC.value == "quadratic"
