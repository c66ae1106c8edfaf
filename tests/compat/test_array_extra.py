"""ops array composites added for MindSpore coverage, each against NumPy."""
import numpy as np
import pytest

import openspore as ms
from openspore import ops

rng = np.random.default_rng(0)
A = rng.normal(size=(3, 4)).astype(np.float32)
C = rng.normal(size=(2, 3, 4)).astype(np.float32)


def T(x):
    return ms.Tensor(np.asarray(x))


def close(got, want):
    np.testing.assert_allclose(got.asnumpy(), np.asarray(want), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name, fn, want", [
    ("atleast_2d", lambda: ops.atleast_2d(T(A[0])), np.atleast_2d(A[0])),
    ("atleast_3d", lambda: ops.atleast_3d(T(A)), np.atleast_3d(A)),
    ("column_stack", lambda: ops.column_stack([T(A[0]), T(A[1])]), np.column_stack([A[0], A[1]])),
    ("row_stack", lambda: ops.row_stack([T(A[0]), T(A[1])]), np.vstack([A[0], A[1]])),
    ("dstack", lambda: ops.dstack([T(A), T(A)]), np.dstack([A, A])),
    ("diagonal", lambda: ops.diagonal(T(C), 1, 1, 2), np.diagonal(C, 1, 1, 2)),
    ("diagonal_neg", lambda: ops.diagonal(T(A), -1), np.diagonal(A, -1)),
    ("diag_embed", lambda: ops.diag_embed(T(A), 1), np.stack([np.diag(r, 1) for r in A])),
    ("diagflat", lambda: ops.diagflat(T(A[:2, :2]), -1), np.diagflat(A[:2, :2], -1)),
    ("expand", lambda: ops.expand(T(A[:1]), T(np.array([3, 4]))), np.broadcast_to(A[:1], (3, 4))),
    ("fliplr", lambda: ops.fliplr(T(A)), np.fliplr(A)),
    ("flipud", lambda: ops.flipud(T(A)), np.flipud(A)),
    ("rot90_1", lambda: ops.rot90(T(A), 1, (0, 1)), np.rot90(A, 1, (0, 1))),
    ("rot90_3", lambda: ops.rot90(T(C), 3, (1, 2)), np.rot90(C, 3, (1, 2))),
    ("rot90_2", lambda: ops.rot90(T(A), 2, (0, 1)), np.rot90(A, 2)),
    ("take", lambda: ops.take(T(A), T(np.array([[0, 5], [11, 2]]))), np.take(A, [[0, 5], [11, 2]])),
    ("matrix_band_part", lambda: ops.matrix_band_part(T(A), 1, 0), np.tril(np.triu(A, -1), 0)),
    ("cartesian_prod", lambda: ops.cartesian_prod(T(np.array([1, 2])), T(np.array([3, 4, 5]))),
     [[1, 3], [1, 4], [1, 5], [2, 3], [2, 4], [2, 5]]),
    ("index_fill", lambda: ops.index_fill(T(A), 1, T(np.array([0, 2], np.int32)), -1.0),
     np.where(np.isin(np.arange(4), [0, 2])[None], -1.0, A)),
    ("index_add", lambda: ops.index_add(T(A), T(np.array([0, 2], np.int32)), T(np.ones((3, 2), np.float32)), 1),
     A + np.array([1, 0, 1, 0], np.float32)),
    ("range", lambda: ops.range(1, 8, 3), [1, 4, 7]),
    ("unsorted_segment_sum", lambda: ops.unsorted_segment_sum(T(A), T(np.array([1, 0, 1], np.int32)), 3),
     np.stack([A[1], A[0] + A[2], np.zeros(4)])),
    ("bincount", lambda: ops.bincount(T(np.array([0, 2, 2, 5], np.int32)), minlength=7), [1, 0, 2, 0, 0, 1, 0]),
    ("bincount_w", lambda: ops.bincount(T(np.array([0, 2, 2], np.int32)), T(np.array([0.5, 1.0, 2.0], np.float32))),
     [0.5, 0.0, 3.0]),
    ("searchsorted", lambda: ops.searchsorted(T(np.array([1.0, 3.0, 5.0], np.float32)),
                                              T(np.array([0.0, 3.0, 6.0], np.float32))), [0, 1, 3]),
    ("searchsorted_right", lambda: ops.searchsorted(T(np.array([1.0, 3.0, 5.0], np.float32)),
                                                    T(np.array([3.0], np.float32)), right=True), [2]),
    ("bucketize", lambda: ops.bucketize(T(np.array([0.5, 3.0, 7.0], np.float32)), [1.0, 3.0, 5.0]), [0, 1, 3]),
    ("histc", lambda: ops.histc(T(np.array([1.0, 2.0, 1.0, 4.0], np.float32)), 4, 0, 4), [0, 2, 1, 1]),
    ("tril_indices", lambda: ops.tril_indices(3, 4, 1), np.stack(np.tril_indices(3, 1, 4))),
    ("triu_indices", lambda: ops.triu_indices(3, 3), np.stack(np.triu_indices(3))),
    ("hann", lambda: ops.hann_window(5, False), np.hanning(5)),
    ("hamming", lambda: ops.hamming_window(5, False), np.hamming(5)),
    ("blackman", lambda: ops.blackman_window(5, False), np.blackman(5)),
    ("bartlett", lambda: ops.bartlett_window(5, False), np.bartlett(5)),
    ("tensor_scatter_sub", lambda: ops.tensor_scatter_sub(T(A[0]), T(np.array([[1], [1]])), T(np.ones(2, np.float32))),
     A[0] - np.array([0, 2, 0, 0])),
    ("select", lambda: ops.select(T(A > 0), T(A), T(-A)), np.abs(A)),
    ("repeat_elements", lambda: ops.repeat_elements(T(A), 2, 1), np.repeat(A, 2, 1)),
])
def test_against_numpy(name, fn, want):
    close(fn(), want)


def test_splits_and_masks():
    parts = ops.tensor_split(T(np.arange(7)), [2, 5])
    assert [p.asnumpy().tolist() for p in parts] == [[0, 1], [2, 3, 4], [5, 6]]
    assert [p.shape for p in ops.hsplit(T(C), 3)] == [(2, 1, 4)] * 3
    assert [p.shape for p in ops.vsplit(T(A), [1])] == [(1, 4), (2, 4)]
    assert [p.shape for p in ops.dsplit(T(C), 2)] == [(2, 3, 2)] * 2
    assert ops.sequence_mask(T(np.array([1, 3]))).asnumpy().tolist() == [[True, False, False], [True, True, True]]
    assert ops.type_as(T(A), T(np.array([1]))).dtype == ms.int64
    assert ops.view_as(T(A), T(np.zeros((2, 6)))).shape == (2, 6)
    assert ops.identity(T(A)).asnumpy().tolist() == A.tolist()
    with pytest.raises(ValueError, match="non-negative"):
        ops.bincount(T(np.array([-1, 2], np.int32)))


def test_in_place_scatters_update_parameters():
    p = ms.Parameter(T(np.zeros((3, 2), np.float32)), name="p")
    ops.scatter_add(p, T(np.array([0, 0], np.int32)), T(np.ones((2, 2), np.float32)))
    ops.scatter_update(p, T(np.array([2], np.int32)), T(np.full((1, 2), 5.0, np.float32)))
    ops.scatter_nd_sub(p, T(np.array([[1, 1]], np.int32)), T(np.array([4.0], np.float32)))
    assert p.asnumpy().tolist() == [[2.0, 2.0], [0.0, -4.0], [5.0, 5.0]]
