"""Audio IIR filters (values pinned to MindSpore 2.10 in tests/compat/recorded/audio_filters.py): their frequency
behaviour, use in a pipeline, and bad input."""
import numpy as np
import pytest

import openspore.dataset as ds
from openspore.dataset import audio

T = np.arange(4000) / 8000.0


def _tone(freq):
    return (0.5 * np.sin(2 * np.pi * freq * T)).astype(np.float32)


def _gain(op, freq):
    out = op(_tone(freq))[1000:]  # after the transient
    return np.abs(out).max() / 0.5


def test_pass_and_stop_bands():
    assert _gain(audio.LowpassBiquad(8000, 500.0), 100) > 0.95 and _gain(audio.LowpassBiquad(8000, 500.0), 3000) < 0.05
    assert _gain(audio.HighpassBiquad(8000, 2000.0), 100) < 0.01 and _gain(audio.HighpassBiquad(8000, 2000.0), 3500) > 0.9
    assert _gain(audio.BandrejectBiquad(8000, 1000.0), 1000) < 0.05
    assert 0.97 < _gain(audio.AllpassBiquad(8000, 1000.0), 700) < 1.03
    assert 1.9 < _gain(audio.EqualizerBiquad(8000, 1000.0, 6.0), 1000) < 2.1  # +6 dB at the centre


def test_filtfilt_has_no_phase_shift():
    x = _tone(200)
    y = audio.Filtfilt([1.0, -0.6, 0.1], [0.3, 0.1, 0.1])(x)
    mid = slice(1000, 3000)
    corr = np.dot(x[mid], y[mid]) / (np.linalg.norm(x[mid]) * np.linalg.norm(y[mid]))
    assert corr > 0.999


def test_filters_run_in_a_pipeline_on_batches_of_channels():
    waves = np.stack([_tone(300), _tone(2500)])[None].repeat(3, 0)  # (3 rows, 2 channels, time)
    data = ds.NumpySlicesDataset({"wave": waves}, shuffle=False).map(audio.LowpassBiquad(8000, 800.0), ["wave"])
    rows = [r["wave"] for r in data.create_dict_iterator(output_numpy=True)]
    assert len(rows) == 3 and rows[0].shape == (2, 4000)
    assert np.abs(rows[0][0, 1000:]).max() > 0.45 and np.abs(rows[0][1, 1000:]).max() < 0.05


def test_bad_arguments():
    with pytest.raises(ValueError, match="same length"):
        audio.LFilter([1.0, 0.5], [1.0])(_tone(100))
    with pytest.raises(ValueError, match="Q"):
        audio.LowpassBiquad(8000, 100.0, Q=0.0)
    with pytest.raises(ValueError, match="44100 or 48000"):
        audio.DeemphBiquad(8000)
    with pytest.raises(TypeError, match="float"):
        audio.Biquad(1.0, 0.0, 0.0, 1.0, 0.0, 0.0)(np.arange(5))
