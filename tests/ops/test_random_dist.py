"""Distribution samplers: moments against the distributions' closed forms (scipy), seeds, shapes, in-place fills."""
import numpy as np
import pytest
from scipy import stats

import openspore as ms
from openspore import ops

T = ms.Tensor


def test_gamma_moments_and_shapes():
    ms.set_seed(0)
    alpha, beta = T(np.array([[2.0, 5.0]], np.float32)), T(np.array([0.5, 2.0], np.float32))
    x = ops.gamma((40000, 2), alpha, beta).asnumpy()
    assert x.shape == (40000, 2) and x.dtype == np.float32
    np.testing.assert_allclose(x.mean(0), [2.0 / 0.5, 5.0 / 2.0], rtol=0.03)   # mean alpha / beta
    np.testing.assert_allclose(x.var(0), [2.0 / 0.25, 5.0 / 4.0], rtol=0.06)   # var alpha / beta^2
    assert ops.Gamma(seed=3)((3, 1, 2), T(np.array([[3, 4], [5, 6]], np.float32)), T(np.array([1.0], np.float32))
                             ).shape == (3, 2, 2)
    r = ops.random_gamma(T(np.array([30000], np.int32)), T(np.array([0.5, 3.0], np.float64)), seed=2).asnumpy()
    assert r.shape == (30000, 2) and r.dtype == np.float64
    assert stats.kstest(r[:, 1], stats.gamma(3.0).cdf).pvalue > 1e-3
    with pytest.raises(ValueError, match="positive"):
        ops.gamma((2,), T(np.array([-1.0], np.float32)), T(np.array([1.0], np.float32)))


def test_poisson_moments_and_dtypes():
    ms.set_seed(0)
    x = ops.poisson((50000, 1), T(np.array([0.7, 12.0], np.float32))).asnumpy()
    assert x.dtype == np.int32 and x.shape == (50000, 2)
    np.testing.assert_allclose(x.mean(0), [0.7, 12.0], rtol=0.03)
    np.testing.assert_allclose(x.var(0), [0.7, 12.0], rtol=0.06)
    r = ops.random_poisson(T(np.array([4], np.int32)), T(np.array([1.0, 3.0], np.float32)), dtype=ms.int32)
    assert r.shape == (4, 2) and r.dtype == ms.int32
    assert ops.RandomPoisson()((2,), T(np.array([3.0], np.float32))).dtype == ms.int64


def test_seeds_reproduce_and_streams_continue():
    alpha = T(np.array([1.5], np.float32))
    ms.set_seed(7)
    a1, a2 = ops.random_gamma((5,), alpha, seed=3), ops.random_gamma((5,), alpha, seed=3)
    ms.set_seed(7)
    b1, b2 = ops.random_gamma((5,), alpha, seed=3), ops.random_gamma((5,), alpha, seed=3)
    np.testing.assert_array_equal(a1.asnumpy(), b1.asnumpy())
    np.testing.assert_array_equal(a2.asnumpy(), b2.asnumpy())
    assert not np.array_equal(a1.asnumpy(), a2.asnumpy())  # a seeded op's stream continues


def test_parameterized_truncated_normal_matches_scipy():
    ms.set_seed(1)
    mean, std = T(np.array([0.0, 1.0], np.float32)), T(np.array([1.0, 0.5], np.float32))
    lo, hi = T(np.array([-0.5, 1.2], np.float32)), T(np.array([2.0, 3.0], np.float32))
    x = ops.ParameterizedTruncatedNormal()((2, 30000), mean, std, lo, hi).asnumpy()
    assert x.shape == (2, 30000)
    for row, (m, s, a, b) in enumerate([(0.0, 1.0, -0.5, 2.0), (1.0, 0.5, 1.2, 3.0)]):
        assert x[row].min() >= a and x[row].max() <= b
        ref = stats.truncnorm((a - m) / s, (b - m) / s, loc=m, scale=s)
        np.testing.assert_allclose(x[row].mean(), ref.mean(), atol=0.02)
        np.testing.assert_allclose(x[row].std(), ref.std(), rtol=0.03)


def test_choice_with_mask_picks_true_entries():
    ms.set_seed(2)
    x = np.array([[True, False, True], [False, True, True]])
    index, mask = ops.choice_with_mask(T(x), count=6)
    index, mask = index.asnumpy(), mask.asnumpy()
    assert mask.tolist() == [True] * 4 + [False] * 2
    assert sorted(map(tuple, index[:4].tolist())) == sorted(map(tuple, np.argwhere(x).tolist()))
    assert (index[4:] == 0).all()
    index, mask = ops.RandomChoiceWithMask(count=2)(T(x))
    assert mask.asnumpy().all() and all(x[tuple(i)] for i in index.asnumpy())


def test_multinomial_with_replacement_is_keyed_by_seed_and_offset():
    p = T(np.array([[0.0, 9.0, 4.0, 0.0], [1.0, 1.0, 1.0, 1.0]], np.float32))
    a = ops.multinomial_with_replacement(p, 5, 0, 2).asnumpy()
    b = ops.multinomial_with_replacement(p, 5, 0, 2).asnumpy()
    np.testing.assert_array_equal(a, b)
    assert set(a[0]) == {1, 2} and a.dtype == np.int64 and len(set(a[1])) == 2  # without replacement
    counts = np.bincount(ops.multinomial_with_replacement(p[0], 1, 2, 20000, True).asnumpy(), minlength=4)
    np.testing.assert_allclose(counts / 20000, [0, 9 / 13, 4 / 13, 0], atol=0.015)


def test_candidate_samplers_and_accidental_hits():
    ms.set_seed(3)
    true = T(np.array([[1, 3], [0, 4]], np.int32))
    sampled, true_count, sampled_count = ops.uniform_candidate_sampler(true, 2, 3, True, 5)
    s = sampled.asnumpy()
    assert s.dtype == np.int32 and len(set(s)) == 3 and ((s >= 0) & (s < 5)).all()
    assert true_count.shape == (2, 2) and sampled_count.shape == (3,)
    sampled, true_count, _ = ops.uniform_candidate_sampler(true, 2, 4, False, 8)
    np.testing.assert_allclose(true_count.asnumpy(), np.full((2, 2), 4 / 8))
    sampled, true_count, _ = ops.log_uniform_candidate_sampler(T(np.array([[0], [5]], np.int64)), 1, 3, False, 9)
    p = np.log(np.array([2 / 1, 7 / 6])) / np.log(10.0)
    np.testing.assert_allclose(true_count.asnumpy()[:, 0], 3 * p, rtol=1e-6)
    big = ops.LogUniformCandidateSampler(1, 20000, False, 9)(T(np.array([[0]], np.int64)))[0].asnumpy()
    freq = np.bincount(big, minlength=9) / 20000
    np.testing.assert_allclose(freq, np.log((np.arange(9) + 2) / (np.arange(9) + 1)) / np.log(10.0), atol=0.015)
    rows, cols, w = ops.ComputeAccidentalHits(2)(T(np.array([[1, 2], [0, 4]], np.int64)),
                                                 T(np.array([4, 1, 7, 2], np.int64)))
    assert rows.asnumpy().tolist() == [0, 0, 1] and cols.asnumpy().tolist() == [1, 3, 0]
    assert (w.asnumpy() == -np.finfo(np.float32).max).all()
    with pytest.raises(ValueError, match="num_sampled"):
        ops.UniformCandidateSampler(1, 6, True, 5)


def test_inplace_fills_keep_identity_and_follow_seeds():
    x = T(np.zeros((200, 50), np.float32))
    ms.set_seed(4)
    assert ops.uniform_(x, -1.0, 3.0) is x
    v = x.asnumpy()
    assert v.min() >= -1.0 and v.max() < 3.0 and abs(v.mean() - 1.0) < 0.05
    ms.set_seed(4)
    np.testing.assert_array_equal(ops.uniform_(T(np.zeros((200, 50), np.float32)), -1.0, 3.0).asnumpy(), v)
    assert abs(ops.normal_(x, 2.0, 0.5).asnumpy().std() - 0.5) < 0.02
    assert abs(ops.exponential_(x, 4.0).asnumpy().mean() - 0.25) < 0.01 and x.asnumpy().min() >= 0
    r = ops.random_(T(np.zeros((1000,), np.int32)), 3, 7).asnumpy()
    assert set(r.tolist()) == {3, 4, 5, 6}
    assert set(ops.random_(T(np.zeros((1000,), np.int64)), 4).asnumpy().tolist()) == {0, 1, 2, 3}
    b = ops.bernoulli_(T(np.zeros((20000,), np.float32)), 0.3).asnumpy()
    assert set(b.tolist()) <= {0.0, 1.0} and abs(b.mean() - 0.3) < 0.015
    probs = T(np.array([0.0, 1.0, 0.0, 1.0], np.float32))
    assert ops.bernoulli_ext(probs).asnumpy().tolist() == [0.0, 1.0, 0.0, 1.0]
    g1, g2 = ms.Generator(), ms.Generator()
    g1.manual_seed(9)
    g2.manual_seed(9)
    np.testing.assert_array_equal(ops.normal_(T(np.zeros(5, np.float32)), generator=g1).asnumpy(),
                                  ops.normal_(T(np.zeros(5, np.float32)), generator=g2).asnumpy())
    with pytest.raises(ValueError, match="lambd"):
        ops.exponential_(x, 0.0)
    with pytest.raises(TypeError, match="Tensor"):
        ops.uniform_(np.zeros(3))
