"""openspore.numpy (mindspore.numpy): NumPy-signature functions on openspore ops, against NumPy."""
import numpy as np
import pytest

import openspore as ms
import openspore.numpy as mnp

A = np.array([[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]], np.float32)


def check(got, want):
    assert isinstance(got, ms.Tensor)
    np.testing.assert_allclose(got.asnumpy(), np.asarray(want), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("fn, want", [
    (lambda: mnp.arange(1, 7, 2), np.arange(1, 7, 2)),
    (lambda: mnp.linspace(0, 1, 5), np.linspace(0, 1, 5)),
    (lambda: mnp.eye(3, 4, 1), np.eye(3, 4, 1)),
    (lambda: mnp.full((2, 2), 3.0), np.full((2, 2), 3.0)),
    (lambda: mnp.zeros_like(A), np.zeros_like(A)),
    (lambda: mnp.tri(3), np.tri(3)),
    (lambda: mnp.diag(A[0]), np.diag(A[0])),
    (lambda: mnp.diag(A, 1), np.diag(A, 1)),
    (lambda: mnp.add(A, 1), A + 1),
    (lambda: mnp.multiply(2, mnp.array(A)), 2 * A),
    (lambda: mnp.power(mnp.abs(A), 2), np.abs(A) ** 2),
    (lambda: mnp.sum(A, axis=0), A.sum(0)),
    (lambda: mnp.mean(A, axis=1, keepdims=True), A.mean(1, keepdims=True)),
    (lambda: mnp.amax(A), A.max()),
    (lambda: mnp.std(A, axis=0, ddof=1), A.std(0, ddof=1)),
    (lambda: mnp.ptp(A, axis=1), np.ptp(A, axis=1)),
    (lambda: mnp.average(A, axis=1, weights=[1, 2, 3]), np.average(A, axis=1, weights=[1, 2, 3])),
    (lambda: mnp.argmax(A), np.argmax(A)),
    (lambda: mnp.cumsum(A), np.cumsum(A)),
    (lambda: mnp.clip(A, -1, 2), np.clip(A, -1, 2)),
    (lambda: mnp.where(A > 0, A, 0.0), np.where(A > 0, A, 0.0)),
    (lambda: mnp.dot(A, A.T), A @ A.T),
    (lambda: mnp.tensordot(A, A.T, 1), np.tensordot(A, A.T, 1)),
    (lambda: mnp.trace(A), np.trace(A)),
    (lambda: mnp.cov(A), np.cov(A)),
    (lambda: mnp.corrcoef(A), np.corrcoef(A)),
    (lambda: mnp.transpose(A), A.T),
    (lambda: mnp.concatenate([A, A], axis=None), np.concatenate([A, A], axis=None)),
    (lambda: mnp.vstack([A[0], A[1]]), np.vstack([A[0], A[1]])),
    (lambda: mnp.hstack([A, A]), np.hstack([A, A])),
    (lambda: mnp.tile(A[0], (2, 2)), np.tile(A[0], (2, 2))),
    (lambda: mnp.repeat(A, 2), np.repeat(A, 2)),
    (lambda: mnp.roll(A, 2), np.roll(A, 2)),
    (lambda: mnp.flip(A), np.flip(A)),
    (lambda: mnp.rollaxis(np.zeros((2, 3, 4)), 2), np.rollaxis(np.zeros((2, 3, 4)), 2)),
    (lambda: mnp.take_along_axis(A, np.argsort(A, 1), 1), np.take_along_axis(A, np.argsort(A, 1), 1)),
    (lambda: mnp.pad(A, ((1, 0), (0, 2)), constant_values=9), np.pad(A, ((1, 0), (0, 2)), constant_values=9)),
    (lambda: mnp.unique(np.array([3, 1, 3, 2])), [1, 2, 3]),
    (lambda: mnp.digitize(np.array([0.5, 2.5]), np.array([1.0, 2.0, 3.0])), np.digitize([0.5, 2.5], [1, 2, 3])),
    (lambda: mnp.select([A < 0, A > 4], [A * 10, -A]), np.select([A < 0, A > 4], [A * 10, -A])),
    (lambda: mnp.ediff1d(A, to_begin=[7.0]), np.ediff1d(A, to_begin=[7.0])),
    (lambda: mnp.isin(A, [3.0, 5.0]), np.isin(A, [3.0, 5.0])),
])
def test_against_numpy(fn, want):
    check(fn(), want)


def test_dtypes_and_splits():
    assert mnp.array([1, 2]).dtype == ms.int32 and mnp.array([1.0]).dtype == ms.float32
    assert mnp.float32 is ms.float32 and mnp.pi == pytest.approx(np.pi)
    assert [p.shape for p in mnp.array_split(mnp.arange(7), 3)] == [(3,), (2,), (2,)]
    with pytest.raises(ValueError, match="not divisible"):
        mnp.split(mnp.arange(7), 3)
    assert mnp.array_equal([1, 2], mnp.array([1, 2])) and not mnp.array_equal([1, 2], [1, 2, 3])
    assert mnp.isscalar(3.0) and not mnp.isscalar(mnp.ones(1))
    with pytest.raises(ValueError, match="constant"):
        mnp.pad(A, 1, mode="edge")


def test_random_arrays_follow_the_seed_and_check_their_arguments():
    # mindspore.numpy.rand/randn/randint (the vmap tutorial builds its batches with them); results checked
    # against MindSpore 2.10's: dtypes float32/int32, shape as *args or a tuple, one-bound randint is [0, n).
    ms.set_seed(5)
    a = mnp.randn(3, 4)
    ms.set_seed(5)
    assert np.array_equal(a.asnumpy(), mnp.randn((3, 4)).asnumpy())
    assert a.dtype == ms.float32 and mnp.rand(2, dtype="float16").dtype == ms.float16
    u = mnp.rand(1000).asnumpy()
    assert u.min() >= 0 and u.max() < 1
    r = mnp.randint(1, 10, (4, 3))
    assert r.dtype == ms.int32 and r.shape == (4, 3)
    assert set(np.unique(mnp.randint(3, shape=(200,)).asnumpy())) <= {0, 1, 2}
    with pytest.raises(TypeError):
        mnp.randint(5.0, 6)
    with pytest.raises(ValueError):
        mnp.randint(5, 3)
    with pytest.raises(ValueError):
        mnp.randn(2, dtype="int32")
    with pytest.raises(ValueError):
        mnp.randint(1, 5, (2,), dtype=ms.float32)
