"""Cepstral audio features (MFCC, LFCC, filter banks, DCT, deltas, angle). Reference values were printed by real
MindSpore 2.10 (a black box) on the same inputs."""
import numpy as np
import pytest

from openspore.dataset import audio


def _wave():
    return np.sin(np.arange(800) / 7.0).astype(np.float32) * np.linspace(0.1, 1, 800).astype(np.float32)


def test_create_dct_orthonormal_and_doubled():
    dct = audio.create_dct(4, 3, audio.NormMode.ORTHO)
    assert dct.shape == (3, 4) and dct.dtype == np.float32
    # three orthonormal columns of the 3-point DCT-II basis (the fourth repeats the first's frequency band)
    np.testing.assert_allclose(dct[:, :3].T @ dct[:, :3], np.eye(3), atol=1e-6)
    np.testing.assert_allclose(audio.create_dct(4, 3, audio.NormMode.NONE)[:, 1], [1.732051, 0.0, -1.732051],
                               atol=1e-6)


def test_filter_banks_match_mindspore():
    mel = audio.melscale_fbanks(5, 0.0, 8000.0, 3, 16000, audio.NormType.NONE, audio.MelType.HTK)
    np.testing.assert_allclose(mel[1:4], [[0, 0.892782, 0.107218], [0, 0, 0.983659], [0, 0, 0.491829]], atol=1e-6)
    np.testing.assert_allclose(audio.linear_fbanks(5, 0.0, 8000.0, 3, 16000), np.eye(5, 3, -1), atol=1e-12)
    with pytest.raises(ValueError, match="f_min"):
        audio.linear_fbanks(5, 9000.0, 8000.0, 3, 16000)


def test_compute_deltas_edge_and_reflect():
    spec = (np.arange(12, dtype=np.float32).reshape(2, 6)) ** 2
    np.testing.assert_allclose(audio.ComputeDeltas()(spec), [[0.9, 2.2, 4, 6, 5.8, 4.1], [6.9, 11.8, 16, 18, 15.4,
                                                                                                10.1]], rtol=1e-6)
    out = audio.ComputeDeltas(win_length=3, pad_mode=audio.BorderType.REFLECT)(spec)
    np.testing.assert_allclose(out, [[0, 2, 4, 6, 8, 0], [0, 14, 16, 18, 20, 0]])
    with pytest.raises(ValueError, match="win_length"):
        audio.ComputeDeltas(win_length=2)
    with pytest.raises(ValueError, match="freq, time"):
        audio.ComputeDeltas()(np.arange(6.0))


def test_angle():
    out = audio.Angle()(np.array([[1.0, 2.0], [3.0, -4.0]], np.float32))
    np.testing.assert_allclose(out, [1.107149, -0.927295], rtol=1e-6)
    assert audio.Angle()(np.array([[1, 2]], np.int32)).dtype == np.float32


MEL_KWARGS = {"n_fft": 64, "win_length": 64, "hop_length": 32, "f_min": 0.0, "f_max": 8000.0, "pad": 0,
              "n_mels": 8, "window": audio.WindowType.HANN, "power": 2.0, "normalized": False, "center": True,
              "pad_mode": audio.BorderType.REFLECT, "onesided": True, "norm": audio.NormType.NONE,
              "mel_scale": audio.MelType.HTK}


def test_mfcc_matches_mindspore():
    out = audio.MFCC(sample_rate=16000, n_mfcc=4, melkwargs=MEL_KWARGS)(_wave())
    assert out.shape == (4, 26) and out.dtype == np.float32
    np.testing.assert_allclose(out[:, :3], [[-45.81486, -90.43388, -82.69611], [34.99679, 70.7686, 71.84743],
                                            [1.89766, 17.5078, 12.84365], [-1.49799, -6.7605, -3.9769]],
                               rtol=1e-4, atol=1e-4)
    logged = audio.MFCC(sample_rate=16000, n_mfcc=4, log_mels=True, melkwargs=MEL_KWARGS)(_wave())
    np.testing.assert_allclose(logged[:2, :2], [[-10.54807, -21.26216], [8.0569, 16.8709]], rtol=1e-4)
    default = audio.MFCC()(np.tile(_wave(), 3))
    assert default.shape == (40, 13)
    np.testing.assert_allclose(default[:2, :2], [[-229.49416, -412.90695], [146.15533, 92.72269]], rtol=1e-4)
    with pytest.raises(ValueError, match="dct_type"):
        audio.MFCC(dct_type=3)
    with pytest.raises(ValueError, match="n_mfcc"):
        audio.MFCC(n_mfcc=200)


def test_lfcc_matches_mindspore():
    spec_kwargs = {k: MEL_KWARGS[k] for k in ("n_fft", "win_length", "hop_length", "pad", "window", "power",
                                              "normalized", "center", "pad_mode", "onesided")}
    out = audio.LFCC(sample_rate=16000, n_filter=8, n_lfcc=4, speckwargs=spec_kwargs)(_wave())
    assert out.shape == (4, 26) and out.dtype == np.float32
    np.testing.assert_allclose(out[:, 0], [-73.85804, 30.35563, 13.04854, 7.62256], rtol=1e-4)
    logged = audio.LFCC(sample_rate=16000, n_filter=8, n_lfcc=4, log_lf=True, speckwargs=spec_kwargs)(_wave())
    np.testing.assert_allclose(logged[:, 0], [-17.00107, 6.98456, 3.00589, 1.75501], rtol=1e-4)
    np.testing.assert_allclose(audio.LFCC()(np.tile(_wave(), 3))[:2, 0], [-328.31448, 137.44649], rtol=1e-4)


def test_mfcc_in_a_pipeline():
    import openspore.dataset as ds
    data = ds.NumpySlicesDataset({"audio": np.stack([_wave(), _wave() * 0.5])}, shuffle=False)
    data = data.map(audio.MFCC(n_mfcc=4, melkwargs=MEL_KWARGS), input_columns="audio")
    rows = [r["audio"] for r in data.create_dict_iterator(output_numpy=True)]
    assert [r.shape for r in rows] == [(4, 26), (4, 26)]


def test_spectral_centroid_matches_mindspore():
    out = audio.SpectralCentroid(16000, n_fft=64, hop_length=32)(_wave())
    assert out.shape == (1, 26) and out.dtype == np.float32
    np.testing.assert_allclose(out[0, :4], [600.7289, 346.42932, 415.15915, 349.91794], rtol=1e-5)
    hamming = audio.SpectralCentroid(16000, n_fft=64, win_length=48, hop_length=16, pad=3,
                                     window=audio.WindowType.HAMMING)(_wave())
    assert hamming.shape == (1, 51)
    np.testing.assert_allclose(hamming[0, :4], [607.38086, 531.7597, 512.3583, 484.3785], rtol=1e-5)


def test_mask_along_axis():
    spec = np.arange(24, dtype=np.float32).reshape(1, 4, 6)
    out = audio.MaskAlongAxis(1, 2, -1.0, 2)(spec)
    assert (out[..., 1:3] == -1).all() and np.array_equal(np.delete(out, [1, 2], axis=-1),
                                                          np.delete(spec, [1, 2], axis=-1))
    out = audio.MaskAlongAxis(0, 3, 9.0, 1)(spec)
    assert (out[0, :3] == 9).all() and out[0, 3].tolist() == [18, 19, 20, 21, 22, 23]
    with pytest.raises(ValueError, match="must not exceed"):
        audio.MaskAlongAxis(5, 3, 0.0, 2)(spec)
    with pytest.raises(ValueError, match="axis"):
        audio.MaskAlongAxis(0, 2, 0.0, 0)
    with pytest.raises(ValueError, match="mask_width"):
        audio.MaskAlongAxis(0, 0, 0.0, 2)


def test_mask_along_axis_iid_is_seeded_and_contiguous():
    import openspore.dataset as ds
    spec = np.ones((2, 5, 40), np.float32)
    ds.config.set_seed(11)
    first = [audio.MaskAlongAxisIID(10, 0.0, 2)(spec) for _ in range(8)]
    ds.config.set_seed(11)
    again = [audio.MaskAlongAxisIID(10, 0.0, 2)(spec) for _ in range(8)]
    assert all(np.array_equal(a, b) for a, b in zip(first, again))
    for out in first:
        masked = np.flatnonzero(out[0, 0] == 0)
        assert len(masked) <= 10 and (len(masked) == 0 or np.all(np.diff(masked) == 1))
        assert (out == out[:, :1, :]).all()  # the same time steps in every frequency row
    assert len({int((o == 0).sum()) for o in first}) > 1
