"""openspore.dataset.audio: expected values were printed by MindSpore 2.10 for the same inputs."""
import numpy as np
import pytest

import openspore.dataset as ds
from openspore.dataset import audio

X = np.sin(np.linspace(0, 20, 64)).astype(np.float32) * 0.5
SPEC = np.abs(np.stack([X[:8], X[8:16]])) + 0.01


def close(got, want, tol=1e-4):
    np.testing.assert_allclose(np.asarray(got), want, rtol=tol, atol=tol)


def test_decibels_and_mu_law():
    close(audio.AmplitudeToDB()(SPEC)[0][:4], [-20.0, -7.79689, -5.13489, -3.79449])
    close(audio.AmplitudeToDB(audio.ScaleType.MAGNITUDE, 2.0, 1e-5, 20.0)(SPEC)[1][:4],
          [-16.68002, -22.48057, -31.87036, -20.83493])
    close(audio.DBToAmplitude(0.5, 1.0)(np.array([0.0, 10.0, -10.0], np.float32)), [0.5, 5.0, 0.05])
    codes = audio.MuLawEncoding(16)(X[:6])
    assert codes.tolist() == [8, 11, 12, 13, 13, 13] and codes.dtype == np.int32
    close(audio.MuLawDecoding(16)(codes), [0.01354, 0.17646, 0.2852, 0.44258, 0.44258, 0.44258])


def test_gain_volume_fade():
    close(audio.Gain(6.0)(X[:4]), [0.0, 0.31142, 0.59171, 0.81287])
    close(audio.Vol(2.0)(X[:4]), [0.0, 0.31215, 0.59311, 0.8148])
    close(audio.Vol(-6.0, audio.GainType.DB)(X[:4]), [0.0, 0.07822, 0.14863, 0.20418])
    close(audio.Vol(0.5, audio.GainType.POWER)(X[:4]), [0.0, 0.11036, 0.2097, 0.28807])
    close(audio.Fade(4, 4)(np.ones(10, np.float32)), [0, 1 / 3, 2 / 3, 1, 1, 1, 1, 2 / 3, 1 / 3, 0])
    close(audio.Fade(4, 0, audio.FadeShape.HALF_SINE)(np.ones(6, np.float32)), [0, 0.25, 0.75, 1, 1, 1])
    close(audio.DCShift(0.1)(X[:3]), [0.1, 0.25608, 0.39656])
    close(audio.Contrast(75.0)(X[:3]), [0.0, 0.32239, 0.53253])
    with pytest.raises(ValueError, match="fade lengths"):
        audio.Fade(20)(np.ones(4, np.float32))


def test_spectrograms_and_mel():
    s = audio.Spectrogram(n_fft=16)(X)
    assert s.shape == (9, 9) and s.dtype == np.float32
    close(s[:3, 0], [5.40375, 0.36853, 0.74019])
    s2 = audio.Spectrogram(n_fft=16, win_length=8, hop_length=4, power=1.0, center=False, normalized=True)(X)
    assert s2.shape == (9, 13)
    close(s2[:3, 1], [0.64308, 0.59185, 0.44487])
    close(audio.MelScale(n_mels=4, sample_rate=16000, n_stft=9)(s)[:, 0], [0.10584, 0.54243, 0.58287, 0.08096])
    m = audio.MelSpectrogram(sample_rate=16000, n_fft=16, n_mels=4)(X)
    assert m.shape == (4, 9)
    close(m[:, 1], [1.06243, 2.83682, 0.33064, 0.0007])
    close(audio.ComplexNorm()(np.array([[3.0, 4.0], [1.0, 0.0]], np.float32)), [5.0, 1.0])
    mag, phase = audio.Magphase()(np.array([[3.0, 4.0]], np.float32))
    close(mag, [5.0])
    close(phase, [0.9273])


def test_masking_uses_the_dataset_seed_and_runs_in_a_pipeline():
    ds.config.set_seed(3)
    spec = np.ones((4, 10), np.float32)
    a = audio.TimeMasking(iid_masks=True, time_mask_param=5)(spec)
    ds.config.set_seed(3)
    b = audio.TimeMasking(iid_masks=True, time_mask_param=5)(spec)
    assert np.array_equal(a, b) and (a == 0).sum() % 4 == 0
    f = audio.FrequencyMasking(freq_mask_param=2, mask_start=1, mask_value=-1.0)(spec)
    assert set(np.unique(f)) <= {1.0, -1.0} and (f[0] == 1).all()
    data = ds.NumpySlicesDataset({"wave": np.stack([X, X])}, shuffle=False).map(audio.Gain(6.0), "wave")
    rows = list(data.create_tuple_iterator(output_numpy=True))
    close(rows[1][0][:4], [0.0, 0.31142, 0.59171, 0.81287])
