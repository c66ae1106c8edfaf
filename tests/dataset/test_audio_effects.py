"""Resample against analytically sampled sines, Dither's 16-bit grid and error bound, Overdrive's clipping and
DC blocking."""
import numpy as np
import pytest

import openspore.dataset as ds
from openspore.dataset import audio


def _sine(freq, rate, n):
    return np.sin(2 * np.pi * freq * np.arange(n) / rate)


@pytest.mark.parametrize("method", [audio.ResampleMethod.SINC_INTERPOLATION, audio.ResampleMethod.KAISER_WINDOW])
@pytest.mark.parametrize("orig,new", [(16000, 8000), (8000, 12000), (44100, 16000)])
def test_resample_matches_the_sine_at_the_new_rate(method, orig, new):
    wave = _sine(440, orig, orig // 10).astype(np.float32)
    out = audio.Resample(orig, new, resample_method=method, lowpass_filter_width=16)(wave)
    assert out.shape == (int(np.ceil(len(wave) * new / orig)),) and out.dtype == np.float32
    expected = _sine(440, new, len(out))
    core = slice(len(out) // 5, -len(out) // 5)  # away from the zero-padded edges
    assert np.max(np.abs(out[core] - expected[core])) < 0.02


def test_resample_removes_what_the_new_rate_cannot_hold_and_keeps_channels():
    wave = np.stack([_sine(6000, 16000, 1600), _sine(500, 16000, 1600)]).astype(np.float32)
    out = audio.Resample(16000, 8000)(wave)  # 6 kHz is above the new 4 kHz Nyquist rate
    assert out.shape == (2, 800)
    assert np.abs(out[0, 100:-100]).max() < 0.05 and np.abs(out[1, 100:-100]).max() > 0.9
    assert np.array_equal(audio.Resample(8000, 8000)(wave), wave)


def test_dither_quantises_to_16_bits():
    wave = (_sine(100, 8000, 4000) * 0.5).astype(np.float32)
    for fn in audio.DensityFunction:
        for shaping in (False, True):
            ds.config.set_seed(3)
            out = audio.Dither(fn, shaping)(wave)
            steps = out.astype(np.float64) * 32768
            assert np.allclose(steps, np.round(steps)) and out.dtype == np.float32
            assert np.max(np.abs(out - wave)) < 6 / 32768
            ds.config.set_seed(3)
            assert np.array_equal(out, audio.Dither(fn, shaping)(wave))
    with pytest.raises(TypeError, match="DensityFunction"):
        audio.Dither("TPDF")


def test_overdrive_clips_and_blocks_dc():
    loud = np.full(2000, 0.9, np.float32)
    out = audio.Overdrive(gain=40, colour=0)(loud)
    assert np.abs(out).max() <= 1.0
    assert abs(out[0] - (2 / 3) * 0.5) < 1e-6  # first sample: the clipped level, halved
    assert abs(out[-1]) < 0.01  # a constant input decays away (DC blocking)
    quiet = (_sine(50, 8000, 800) * 1e-3).astype(np.float32)
    small = audio.Overdrive(gain=0, colour=0)(quiet)
    assert np.abs(small).max() < 1e-3
    with pytest.raises(ValueError, match="gain"):
        audio.Overdrive(gain=150)


def _cmn_reference(x, window, min_window, center, norm_vars):
    """Kaldi's sliding CMN written frame by frame with plain loops (features (freq, time))."""
    freq, frames = x.shape
    out = np.zeros_like(x)
    for t in range(frames):
        if center:
            start = t - window // 2
            end = start + window
        else:
            start, end = t - window, t + 1
        if start < 0:
            end, start = end - start, 0
        if not center and end > t:
            end = max(t + 1, min_window)
        if end > frames:
            start, end = max(0, start - (end - frames)), frames
        block = x[:, start:end]
        out[:, t] = x[:, t] - block.mean(axis=1)
        if norm_vars:
            out[:, t] /= block.std(axis=1)
    return out


@pytest.mark.parametrize("center,norm_vars", [(False, False), (True, False), (False, True), (True, True)])
def test_sliding_window_cmn_matches_the_frame_loop(center, norm_vars):
    x = np.random.default_rng(1).normal(size=(3, 40))
    out = audio.SlidingWindowCmn(cmn_window=10, min_cmn_window=4, center=center, norm_vars=norm_vars)(x)
    assert out.dtype == np.float64 and out.shape == (3, 40)
    assert np.allclose(out, _cmn_reference(x, 10, 4, center, norm_vars))
    with pytest.raises(TypeError, match="center"):
        audio.SlidingWindowCmn(center=1)
