"""mindspore.numpy index helpers, histograms, set operations and apply_* against NumPy, with MindSpore 2.10's
dtypes and errors (checked against the real MindSpore on CPU)."""
import numpy as np
import pytest

import openspore as ms
import openspore.numpy as mnp

T = ms.Tensor
CHOICES = [[0, 1, 2, 3], [10, 11, 12, 13], [20, 21, 22, 23], [30, 31, 32, 33]]


def check(got, want, dtype):
    assert isinstance(got, ms.Tensor)
    assert got.dtype == dtype, (got.dtype, dtype)
    np.testing.assert_allclose(got.asnumpy().astype(np.float64), np.asarray(want, np.float64), rtol=1e-5, atol=1e-5)


def test_argwhere_choose_diagonal():
    x = np.array([[0, 1, 2], [3, 0, 5]], np.int32)
    check(mnp.argwhere(T(x)), np.argwhere(x), ms.int64)
    with pytest.raises(ValueError, match="at least 1 dimension"):
        mnp.argwhere(T(np.array(3.0, np.float32)))
    idx = np.array([2, 4, 1, 0], np.int32)
    check(mnp.choose(T(idx), CHOICES), np.choose(idx, CHOICES, mode="clip"), ms.int32)  # clip is the default
    check(mnp.choose(T(idx), CHOICES, mode="wrap"), np.choose(idx, CHOICES, mode="wrap"), ms.int32)
    a = np.array([[1, 0, 1], [0, 1, 0]], np.int32)
    c = [np.array([1.0, 2.0, 3.0], np.float32), np.array([[-1.0], [-2.0]], np.float32)]
    check(mnp.choose(T(a), [T(v) for v in c]), np.choose(a, c), ms.float32)
    with pytest.raises(NotImplementedError):
        mnp.choose(T(idx), CHOICES, mode="raise")
    with pytest.raises(ValueError, match="mode"):
        mnp.choose(T(idx), CHOICES, mode="foo")
    m = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    check(mnp.diagonal(T(m), 1, 2, 0), np.diagonal(m, 1, 2, 0), ms.float32)
    check(mnp.diagonal(mnp.arange(12).reshape(3, 4), -1), np.diagonal(np.arange(12).reshape(3, 4), -1), ms.int32)
    with pytest.raises(ValueError, match="2 dimensions"):
        mnp.diagonal(mnp.arange(3))


def test_ix_and_grids():
    rows, cols = mnp.ix_(T(np.array([0, 1], np.int32)), T(np.array([2, 4], np.int32)))
    want = np.ix_([0, 1], [2, 4])
    check(rows, want[0], ms.int32)
    check(cols, want[1], ms.int32)
    with pytest.raises(TypeError, match="Tensor"):
        mnp.ix_([0, 1])
    with pytest.raises(ValueError, match="1-D"):
        mnp.ix_(T(np.array([[0, 1]], np.int32)))
    check(mnp.mgrid[0:3, 0:2], np.mgrid[0:3, 0:2], ms.int32)
    check(mnp.mgrid[-1:1:5j], np.mgrid[-1:1:5j], ms.float32)
    check(mnp.mgrid[0:1:0.25], np.mgrid[0:1:0.25], ms.float32)
    check(mnp.mgrid[0:4:2, 0.0:1:3j], np.mgrid[0:4:2, 0.0:1:3j], ms.float32)
    for got, want in zip(mnp.ogrid[0:3, 0:2], np.ogrid[0:3, 0:2]):
        check(got, want, ms.int32)
    with pytest.raises(TypeError, match="slices"):
        mnp.mgrid[3]


def test_ravel_and_unravel_index():
    coords = (np.array([3, 6, 6]), np.array([4, 5, 1]))
    got = mnp.ravel_multi_index(T(np.stack(coords).astype(np.int32)), (7, 6))
    check(got, np.ravel_multi_index(coords, (7, 6)), ms.float32)  # MindSpore returns float32 here
    check(mnp.ravel_multi_index(tuple(T(c.astype(np.int32)) for c in coords), (7, 6), order="F"),
          np.ravel_multi_index(coords, (7, 6), order="F"), ms.float32)
    out_of_range = (np.array([3, 6, 8]), np.array([4, 5, -1]))
    check(mnp.ravel_multi_index(tuple(T(c.astype(np.int32)) for c in out_of_range), (7, 6), mode="wrap"),
          np.ravel_multi_index(out_of_range, (7, 6), mode="wrap"), ms.float32)
    check(mnp.ravel_multi_index(tuple(T(c.astype(np.int32)) for c in out_of_range), (7, 6)),
          np.ravel_multi_index(out_of_range, (7, 6), mode="clip"), ms.float32)
    check(mnp.ravel_multi_index((3, 1, 4, 1), (6, 7, 8, 9)), 1621, ms.float32)
    with pytest.raises(ValueError, match="mode"):
        mnp.ravel_multi_index(coords, (7, 6), mode="raise")
    with pytest.raises(ValueError, match="order"):
        mnp.ravel_multi_index(coords, (7, 6), order="X")
    with pytest.raises(ValueError, match="length 3"):
        mnp.ravel_multi_index(coords, (7, 6, 2))
    flat = np.array([22, 41, 37], np.int32)
    for order in ("C", "F"):
        for got, want in zip(mnp.unravel_index(T(flat), (7, 6), order=order), np.unravel_index(flat, (7, 6), order)):
            check(got, want, ms.int32)
    for got, want in zip(mnp.unravel_index(1621, (6, 7, 8, 9)), np.unravel_index(1621, (6, 7, 8, 9))):
        assert got.shape == () and int(got.asnumpy()) == want
    # past the end clips to the last element; -1 counts from the end (MindSpore's behaviour)
    for got in mnp.unravel_index(T(np.array([50, -1], np.int32)), (7, 6)):
        assert got.asnumpy().tolist()[0] == got.asnumpy().tolist()[1]


def test_tri_indices_from():
    a = T(np.ones((3, 4), np.float32))
    for got, want in zip(mnp.tril_indices_from(a), np.tril_indices_from(np.ones((3, 4)))):
        check(got, want, ms.int32)
    for got, want in zip(mnp.triu_indices_from(a, -1), np.triu_indices_from(np.ones((3, 4)), -1)):
        check(got, want, ms.int32)
    with pytest.raises(ValueError, match="2-D"):
        mnp.triu_indices_from(T(np.ones(3, np.float32)))
    with pytest.raises(TypeError, match="Tensor"):
        mnp.tril_indices_from(np.ones((3, 3)))


def test_histograms():
    x = np.array([1.0, 2.0, 1.0, 4.0, 5.0], np.float32)
    w = np.array([1.0, 2.0, 3.0, 4.0, 5.0], np.float32)
    for kwargs in ({}, {"bins": 3}, {"bins": 3, "range": (0, 4)}, {"bins": 3, "density": True}, {"bins": 3, "weights": w}):
        hist, edges = mnp.histogram(T(x), **{k: T(v) if k == "weights" else v for k, v in kwargs.items()})
        want_hist, want_edges = np.histogram(x, **kwargs)
        check(hist, want_hist, ms.float32)
        check(edges, want_edges, ms.float32)
    hist, edges = mnp.histogram(T(x), bins=[0, 2, 3, 6])
    check(hist, np.histogram(x, [0, 2, 3, 6])[0], ms.float32)
    check(edges, [0, 2, 3, 6], ms.int32)  # given edges keep their dtype
    check(mnp.histogram(T(np.array([3.0, 3.0], np.float32)), bins=2)[1], [2.5, 3.0, 3.5], ms.float32)
    check(mnp.histogram_bin_edges(T(x.astype(np.int32)), bins=4, range=(0, 8)), np.linspace(0, 8, 5), ms.float32)
    with pytest.raises(NotImplementedError):
        mnp.histogram(T(x), bins="auto")
    with pytest.raises(ValueError, match="larger"):
        mnp.histogram(T(x), bins=3, range=(4, 0))
    xs, ys = np.array([1.0, 2.0, 1.0, 4.0], np.float32), np.array([0.0, 3.0, 1.0, 2.0], np.float32)
    for kwargs in ({"bins": 2}, {"bins": [2, 3], "range": [[0, 4], [0, 3]]}, {"bins": 2, "density": True},
                   {"bins": [3, [0, 1, 2, 3]], "range": [(1, 1), (0, 4)]}, {"bins": [0, 2, 5]}):
        got, want = mnp.histogram2d(T(xs), T(ys), **kwargs), np.histogram2d(xs, ys, **kwargs)
        bins = kwargs["bins"]
        per_axis = [bins, bins] if isinstance(bins, int) or len(bins) > 2 else bins
        # counts are float32; edges made from a number of bins are float32, given edges keep their (int32) dtype
        dtypes = [ms.float32] + [ms.float32 if isinstance(b, int) else ms.int32 for b in per_axis]
        for g, e, dtype in zip(got, want, dtypes):
            check(g, e, dtype)
    sample = np.array([[1.0, 0.0, 2.0], [2.0, 3.0, 1.0], [1.0, 1.0, 0.0], [4.0, 2.0, 2.0]], np.float32)
    hist, edges = mnp.histogramdd(T(sample), bins=(2, 2, 1), weights=T(w[:4]))
    want_hist, want_edges = np.histogramdd(sample, bins=(2, 2, 1), weights=w[:4])
    check(hist, want_hist, ms.float32)
    for g, e in zip(edges, want_edges):
        check(g, e, ms.float32)
    with pytest.raises(ValueError, match="per sample dimension"):
        mnp.histogramdd(T(sample), bins=(2, 2))
    with pytest.raises(ValueError, match="2-D"):
        mnp.histogramdd(T(x), bins=2)


def test_sets_piecewise_apply_and_str():
    a, b = np.array([1, 3, 4, 3], np.int32), np.array([3, 1, 2, 1], np.int32)
    check(mnp.intersect1d(T(a), T(b)), np.intersect1d(a, b), ms.int32)
    got = mnp.intersect1d(T(a), T(b), return_indices=True)
    for g, e in zip(got, np.intersect1d(a, b, return_indices=True)):
        check(g, e, ms.int32)
    check(mnp.intersect1d(T(a.reshape(2, 2)), T(b.astype(np.int64))), [1, 3], ms.int64)
    c = np.array([3, 1, 3, 4], np.int32)
    check(mnp.setdiff1d(T(c), T(np.array([3], np.int32)), assume_unique=True),
          np.setdiff1d(c, [3], assume_unique=True), ms.int32)
    check(mnp.setdiff1d([1.0, 2.0, 3.0, 2.0], [3.0, 4.0]), [1.0, 2.0], ms.float32)
    x = np.array([-2.0, 0.0, 2.0], np.float32)
    check(mnp.piecewise(T(x), [T(x < 0)], [lambda v: -v, lambda v: v * 10]),
          np.piecewise(x, [x < 0], [lambda v: -v, lambda v: v * 10]), ms.float32)
    check(mnp.piecewise(T(x), [T(x < 0), T(x >= 0)], [-1, 1]), [-1, 1, 1], ms.int32)  # constants: their dtype
    # overlapping conditions: the first true one wins, as in MindSpore
    check(mnp.piecewise(T(x), [T(np.array([True, False, True])), T(np.array([True, True, False]))], [1, 2]),
          [1, 2, 1], ms.int32)
    check(mnp.piecewise(T(x), [T(x != 0)], [lambda v, k: v * k], 5), [-10, 0, 10], ms.float32)
    with pytest.raises(ValueError, match="entries"):
        mnp.piecewise(T(x), [T(x < 0)], [1, 2, 3])
    m = np.arange(6, dtype=np.int32).reshape(2, 3)
    check(mnp.apply_along_axis(lambda v: v * 2, 1, T(m)), m * 2, ms.int32)
    check(mnp.apply_along_axis(lambda v: mnp.sum(v), 0, T(m.astype(np.float32))), m.sum(0), ms.float32)
    got = mnp.apply_along_axis(lambda v: mnp.stack([v, v]), 1, T(m.astype(np.float32)))
    check(got, np.apply_along_axis(lambda v: np.stack([v, v]), 1, m), ms.float32)
    check(mnp.apply_along_axis(lambda v, k: v * k, -1, T(m), 3), m * 3, ms.int32)
    with pytest.raises(ValueError, match="out of bounds"):
        mnp.apply_along_axis(lambda v: v, 5, T(m))
    cube = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    check(mnp.apply_over_axes(mnp.sum, T(cube), [0, 2]), np.apply_over_axes(np.sum, cube, [0, 2]), ms.float32)
    assert mnp.array_str(T(np.array([1.5, 2.0], np.float32))) == np.array_str(np.array([1.5, 2.0], np.float32))
    with pytest.raises(TypeError, match="Tensor"):
        mnp.array_str([1, 2])
