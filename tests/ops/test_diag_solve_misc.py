"""Diagonal bands (matrix_diag*, checked against MindSpore 2.10 for every alignment while written; here against a
numpy reference of the documented layout), LU/triangular/least-squares solves against torch/numpy, and the misc
composite classes."""
import numpy as np
import pytest
import torch

import openspore as ms
from openspore import Tensor, ops

RNG = np.random.default_rng(21)


def _np_diag_part(x, low, high, pad, align):
    rows, cols = x.shape[-2:]
    length = lambda d: max(0, min(rows, cols - d) if d >= 0 else min(rows + d, cols))  # noqa: E731
    width = max(length(d) for d in range(low, high + 1))
    out = np.full(x.shape[:-2] + (high - low + 1, width), pad, x.dtype)
    for row, d in enumerate(range(high, low - 1, -1)):
        vals = np.diagonal(x, d, -2, -1)
        right = (align.split("_")[0] if d >= 0 else align.split("_")[1]) == "RIGHT"
        n = vals.shape[-1]
        if right:
            out[..., row, width - n:] = vals
        else:
            out[..., row, :n] = vals
    return out


@pytest.mark.parametrize("align", ["RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT", "RIGHT_RIGHT"])
def test_matrix_diag_family(align):
    x = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    part = ops.matrix_diag_part(Tensor(x), Tensor([-2, 1]), Tensor(7.0), align)
    np.testing.assert_array_equal(part.asnumpy(), _np_diag_part(x, -2, 1, 7.0, align))
    set_back = ops.matrix_set_diag(Tensor(np.zeros_like(x)), part, Tensor([-2, 1]), align).asnumpy()
    band = np.zeros_like(x)
    for d in range(-2, 2):
        band += np.triu(np.tril(x, d), d)
    np.testing.assert_array_equal(set_back, band)
    built = ops.MatrixDiagV3(align)(part, Tensor([-2, 1]), Tensor(3), Tensor(4), Tensor(0.0))
    np.testing.assert_array_equal(built.asnumpy(), band)
    np.testing.assert_array_equal(ops.MatrixDiagPartV3(align)(Tensor(x), Tensor(0), Tensor(0.0)).asnumpy(),
                                  np.diagonal(x, 0, -2, -1))


def test_matrix_diag_defaults_and_gradient():
    v = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    assert ops.matrix_diag(Tensor(v), k=1).shape == (2, 3, 3)
    np.testing.assert_array_equal(ops.matrix_diag(Tensor(v)).asnumpy(), np.stack([np.diag(r) for r in v]))
    g = ms.grad(lambda t: (ops.matrix_diag_part(t, Tensor(1), Tensor(0.0)) * Tensor([1.0, 2.0, 3.0])).sum())(
        Tensor(np.zeros((3, 4), np.float32)))
    assert g.asnumpy().tolist() == [[0, 1, 0, 0], [0, 0, 2, 0], [0, 0, 0, 3]]
    with pytest.raises(ValueError, match="align"):
        ops.matrix_diag_part(Tensor(v), Tensor(0), Tensor(0.0), "MIDDLE")


def test_lu_triangular_and_least_squares(backend):
    a = RNG.standard_normal((2, 4, 4))
    lu, piv = torch.linalg.lu_factor(torch.from_numpy(a))
    p, low, up = ops.lu_unpack(Tensor(lu.numpy()), Tensor(piv.numpy()))
    for got, want in zip((p, low, up), torch.lu_unpack(lu, piv)):
        np.testing.assert_allclose(got.asnumpy(), want.numpy(), atol=1e-12)
    b = RNG.standard_normal((2, 4, 3))
    np.testing.assert_allclose(ops.LuSolve()(Tensor(b), Tensor(lu.numpy()), Tensor(piv.numpy())).asnumpy(),
                               np.linalg.solve(a, b), atol=1e-10)
    tri = np.tril(a[0]) + 4 * np.eye(4)
    np.testing.assert_allclose(ops.MatrixTriangularSolve()(Tensor(tri), Tensor(b[0])).asnumpy(),
                               np.linalg.solve(tri, b[0]), atol=1e-12)
    np.testing.assert_allclose(ops.MatrixTriangularSolve(lower=True, adjoint=True)(Tensor(tri), Tensor(b[0])).asnumpy(),
                               np.linalg.solve(tri.T, b[0]), atol=1e-12)
    tall = RNG.standard_normal((6, 3))
    rhs = RNG.standard_normal((6, 2))
    np.testing.assert_allclose(ops.lstsq(Tensor(tall), Tensor(rhs)).asnumpy(), np.linalg.lstsq(tall, rhs, None)[0],
                               atol=1e-10)
    ridge = ops.MatrixSolveLs()(Tensor(tall), Tensor(rhs), Tensor(0.5)).asnumpy()
    np.testing.assert_allclose(ridge, np.linalg.solve(tall.T @ tall + 0.5 * np.eye(3), tall.T @ rhs), atol=1e-10)
    wide = tall.T
    x = ops.Lstsq()(Tensor(wide), Tensor(RNG.standard_normal((3, 2)))).asnumpy()
    assert x.shape == (6, 2)


def test_selection_and_format_classes():
    x = np.array([[3.0, 1.0, 2.0], [9.0, 7.0, 8.0]], np.float32)
    assert ops.NthElement()(Tensor(x), 1).asnumpy().tolist() == [2.0, 8.0]
    assert ops.NthElement(True)(Tensor(x), 0).asnumpy().tolist() == [3.0, 9.0]
    # MindSpore 2.10 gives [0, 3, 1, 2, 2] and [1, 4, 2, 3] for these (NHWC → NCHW)
    assert ops.DataFormatDimMap()(Tensor(np.array([0, 1, 2, 3, -1], np.int32))).asnumpy().tolist() == [0, 3, 1, 2, 2]
    assert ops.DataFormatVecPermute()(Tensor(np.array([1, 2, 3, 4], np.int32))).asnumpy().tolist() == [1, 4, 2, 3]
    out, idx = ops.unique_with_pad(Tensor(np.array([1, 1, 5, 5, 4, 4, 3, 3, 2, 2], np.int32)), 0)
    assert out.asnumpy().tolist() == [1, 5, 4, 3, 2, 0, 0, 0, 0, 0]
    assert idx.asnumpy().tolist() == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4]
    params = np.arange(8, dtype=np.float32).reshape(4, 2)
    got = ops.EmbeddingLookup()(Tensor(params), Tensor(np.array([[1, 5], [3, 0]], np.int32)), 1).asnumpy()
    assert got.tolist() == [[[0, 1], [0, 0]], [[4, 5], [0, 0]]]
    assert ops.SparseGatherV2()(Tensor(params), Tensor([2, 0]), 0).asnumpy().tolist() == [[4, 5], [0, 1]]
    assert ops.ParallelConcat()((Tensor([[1.0, 2.0]]), Tensor([[3.0, 4.0]]))).shape == (2, 2)
    assert ops.accumulate_n([Tensor([1.0]), Tensor([2.0])]).asnumpy().tolist() == [3.0]
    assert ops.AccumulateNV2()((Tensor([1.0]), Tensor([5.0]))).asnumpy().tolist() == [6.0]


def test_histograms_checks_and_fill_diagonal():
    assert ops.Histogram(4, 0.0, 3.0)(Tensor([1.0, 2.0, 1.0, 0.0, 3.5])).asnumpy().tolist() == [1, 2, 1, 0]
    got = ops.Bincount()(Tensor(np.array([0, 1, 1, 3, 7], np.int32)), Tensor(5), Tensor([1.0, 2.0, 3.0, 4.0, 5.0]))
    assert got.asnumpy().tolist() == [1, 5, 0, 4, 0]
    with pytest.raises(RuntimeError, match="NaN"):
        ops.CheckNumerics()(Tensor([1.0, np.nan]))
    assert ops.CheckNumerics()(Tensor([1.0])).asnumpy().tolist() == [1.0]
    with pytest.raises(RuntimeError, match="condition is false"):
        ops.Assert()(Tensor(False), [Tensor([1.0])])
    ops.Assert()(Tensor([True, True]), [Tensor([1.0])])
    want = np.zeros((7, 3), np.float32)
    np.fill_diagonal(want, 5.0, wrap=True)
    np.testing.assert_array_equal(ops.FillDiagonal(5.0, True)(Tensor(np.zeros((7, 3), np.float32))).asnumpy(), want)


def test_samplers_follow_their_distributions():
    ms.set_seed(2)
    c = ops.Cauchy((100000,), 1.0, 0.5)().asnumpy()
    assert abs(np.median(c) - 1.0) < 0.02 and abs(np.percentile(c, 75) - 1.5) < 0.03  # quartiles at median ± sigma
    ln = ops.LogNormalReverse(0.5, 0.25)(Tensor(np.zeros(100000, np.float32))).asnumpy()
    assert abs(np.log(ln).mean() - 0.5) < 0.01 and abs(np.log(ln).std() - 0.25) < 0.01
    draws = ops.random_categorical(Tensor(np.log(np.array([[0.2, 0.8]], np.float32))), 20000, 3).asnumpy()
    assert draws.dtype == np.int64 and abs(draws.mean() - 0.8) < 0.02
