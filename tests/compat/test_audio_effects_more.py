"""dataset.audio Phaser, Flanger, DetectPitchFrequency: values quoted from MindSpore 2.10 (black box, same inputs)
and independent checks."""
import numpy as np
import pytest

from openspore.dataset import audio
from openspore.dataset.audio.modulated import wave_table


def test_phaser_matches_mindspore():
    w = (0.4 * np.random.RandomState(0).randn(2, 3000)).astype(np.float32)
    np.testing.assert_allclose(audio.Phaser(8000)(w)[0, :4], [0.20886381, 0.13092414, 0.16825223, 0.33262265],
                               rtol=1e-6)
    tri = audio.Phaser(16000, 0.9, 0.5, 5.0, 0.8, 2.0, False)(w)
    np.testing.assert_allclose(tri[0, :4], [0.3175294, 0.32605183, 0.43701428, 0.75297225], rtol=1e-6)
    with pytest.raises(ValueError, match="decay"):
        audio.Phaser(8000, decay=1.0)


def test_phaser_feedback_by_hand():
    # delay line of 8 samples at 8 kHz, 1 ms; one impulse: the output repeats it, decayed, at the table's delays
    x = np.zeros(40, np.float32)
    x[0] = 0.5
    out = audio.Phaser(8000, gain_in=1.0, gain_out=1.0, delay_ms=1.0, decay=0.5)(x)
    assert out[0] == 0.5 and np.all(np.abs(out) <= 0.5) and np.count_nonzero(out) > 1
    assert audio.Phaser(8000, gain_in=1.0, gain_out=2.0, decay=0.0)(x)[0] == 1.0


def test_wave_tables():
    sine = wave_table(True, 8, 0.0, 1.0, 0.0, False)
    np.testing.assert_allclose(sine, (np.sin(np.arange(8) / 8 * 2 * np.pi) + 1) / 2)
    tri = wave_table(False, 8, 0.0, 1.0, 0.0, False)
    assert tri.min() >= 0 and tri.max() <= 1 and np.argmax(tri) == 2 and np.argmin(tri) == 6
    assert wave_table(True, 4, 1.0, 5.0, 0.0, True).tolist() == [3, 5, 3, 1]


def test_flanger_matches_mindspore():
    w = (0.4 * np.random.RandomState(0).randn(2, 3, 2000)).astype(np.float32)
    np.testing.assert_allclose(audio.Flanger(8000)(w).ravel()[:4], [0.7056209, 0.16006301, 0.39149493, 0.8963561],
                               rtol=1e-6)
    q = audio.Flanger(16000, 5.0, 7.0, 30.0, 50.0, 2.0, 40.0, audio.Modulation.TRIANGULAR,
                      audio.Interpolation.QUADRATIC)(w)
    np.testing.assert_allclose(q.ravel()[:4], [0.47041398, 0.10670859, 0.26099682, 0.59757155], rtol=1e-6)
    with pytest.raises(ValueError, match="regen"):
        audio.Flanger(8000, regen=100.0)
    with pytest.raises(RuntimeError, match="channel, time"):
        audio.Flanger(8000)(w[0, 0])


def test_flanger_without_width_is_the_input():
    w = np.clip(0.2 * np.random.RandomState(1).randn(2, 500), -0.9, 0.9).astype(np.float32)
    np.testing.assert_allclose(audio.Flanger(8000, width=0.0)(w), w, rtol=1e-6)


def test_detect_pitch_frequency():
    sr = 8000
    t = np.arange(4000) / sr
    tone = audio.DetectPitchFrequency(sr, win_length=3)(np.sin(2 * np.pi * 200 * t).astype(np.float32))
    assert tone.shape == (49,) and np.all(tone == 200.0)                    # MindSpore 2.10: 49 frames of 200
    mix = (np.sin(2 * np.pi * 310 * t) + 0.5 * np.sin(2 * np.pi * 620 * t)
           + 0.1 * np.random.RandomState(0).randn(4000)).astype(np.float32)
    got = audio.DetectPitchFrequency(sr)(mix)
    assert got.shape == (35,)
    np.testing.assert_allclose(got, np.full(35, 8000 / 26, np.float32))     # MindSpore 2.10: 307.69232
    with pytest.raises(ValueError, match="sample_rate"):
        audio.DetectPitchFrequency(0)
    with pytest.raises(ValueError, match="win_length"):
        audio.DetectPitchFrequency(8000, win_length=0)


def test_inverse_mel_scale_recovers_the_determined_bins_as_mindspore():
    spec = np.abs(np.random.RandomState(0).randn(6, 4)).astype(np.float32)
    mel = audio.MelScale(n_mels=12, sample_rate=1000, n_stft=6)(spec)
    out = audio.InverseMelScale(6, n_mels=12, sample_rate=1000, max_iter=20000, tolerance_loss=1e-9,
                                tolerance_change=1e-12)(mel)
    assert out.shape == (6, 4) and out.dtype == np.float32
    # bins 1..4 lie under the mel filters: the solution is unique there (MindSpore 2.10 gives the same values)
    np.testing.assert_allclose(out[1:5], spec[1:5], atol=2e-3)
    np.testing.assert_allclose(out[1, :2], [1.867, 0.977], atol=2e-3)
    assert np.all(out >= 0)
    np.testing.assert_allclose(audio.MelScale(n_mels=12, sample_rate=1000, n_stft=6)(out), mel, atol=1e-3)
    with pytest.raises(RuntimeError, match="n_mels=12"):
        audio.InverseMelScale(6, n_mels=12)(np.ones((5, 3), np.float32))
    with pytest.raises(TypeError, match="sgdargs"):
        audio.InverseMelScale(6, sgdargs=[0.1])
