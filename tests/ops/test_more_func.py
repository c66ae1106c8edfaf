"""The composite math/array functions of math_more_func and array_more_func, and the classes over them, against
numpy/torch references; gradients and jit for the differentiable ones."""
import itertools

import numpy as np
import pytest
import torch

import openspore as ms
from openspore import Tensor, ops

RNG = np.random.default_rng(3)


def _t(a):
    return torch.from_numpy(np.ascontiguousarray(a))


@pytest.mark.parametrize("eq, shapes", [("ij,jk->ik", [(2, 3), (3, 4)]), ("bij,bjk->bik", [(2, 2, 3), (2, 3, 2)]),
                                        ("ii->i", [(3, 3)]), ("ii", [(3, 3)]), ("i,j->ij", [(2,), (3,)]),
                                        ("...ij,jk", [(2, 2, 3), (3, 4)]), ("ijk->kji", [(2, 3, 4)]),
                                        ("ij,ij->", [(2, 3), (2, 3)])])
def test_einsum_matches_numpy_and_differentiates(backend, eq, shapes):
    arrays = [RNG.standard_normal(s) for s in shapes]
    np.testing.assert_allclose(ops.einsum(eq, *[Tensor(a) for a in arrays]).asnumpy(), np.einsum(eq, *arrays),
                               rtol=1e-10, atol=1e-12)
    ts = [_t(a).requires_grad_(True) for a in arrays]
    torch.einsum(eq, *ts).sum().backward()
    grads = ms.grad(lambda *xs: ops.einsum(eq, *xs).sum(), grad_position=tuple(range(len(arrays))))(
        *[Tensor(a) for a in arrays])
    grads = grads if isinstance(grads, tuple) else (grads,)
    for g, t in zip(grads, ts):
        np.testing.assert_allclose(g.asnumpy(), t.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_einsum_under_jit_and_as_a_class():
    a, b = RNG.standard_normal((2, 3)).astype(np.float32), RNG.standard_normal((3,)).astype(np.float32)
    got = ms.jit(lambda x, y: ops.einsum("ij,j->i", x, y))(Tensor(a), Tensor(b))
    np.testing.assert_allclose(got.asnumpy(), a @ b, rtol=1e-5)
    np.testing.assert_allclose(ops.Einsum("ij,j->i")((Tensor(a), Tensor(b))).asnumpy(), a @ b, rtol=1e-5)
    with pytest.raises(ValueError, match="operands"):
        ops.einsum("ij,jk->ik", Tensor(a))


@pytest.mark.parametrize("name", ["cummax", "cummin"])
def test_running_extrema_match_torch(backend, name):
    x = RNG.integers(0, 4, (3, 5)).astype(np.float32)  # many ties: the later index wins, as in MindSpore
    for axis in (0, 1, -1):
        v, i = getattr(ops, name)(Tensor(x), axis)
        acc = np.maximum if name == "cummax" else np.minimum
        np.testing.assert_array_equal(v.asnumpy(), acc.accumulate(x, axis=axis))
        pick = np.take_along_axis(x, i.asnumpy(), axis=axis)
        np.testing.assert_array_equal(pick, v.asnumpy())
    v2, i2 = getattr(ops, name.capitalize())(axis=1)(Tensor(x))
    np.testing.assert_array_equal(v2.asnumpy(), (np.maximum if name == "cummax" else np.minimum).accumulate(x, 1))
    assert i2.dtype == (ms.int64 if name == "cummax" else ms.int32)  # MindSpore 2.10: Cummin's are int32
    assert i.dtype == i2.dtype
    g = ms.grad(lambda t: getattr(ops, name)(t, 0)[0].sum())(Tensor(np.array([1.0, 3.0, 2.0, 5.0])))
    want = [1, 2, 0, 1] if name == "cummax" else [4, 0, 0, 0]
    np.testing.assert_array_equal(g.asnumpy(), want)


def test_shifts_and_integer_division(backend):
    a = np.array([7, -7, 12, -1, 5], np.int32)
    b = np.array([1, 2, 0, 3, 2], np.int32)
    np.testing.assert_array_equal(ops.bitwise_left_shift(Tensor(a), Tensor(b)).asnumpy(), np.left_shift(a, b))
    np.testing.assert_array_equal(ops.RightShift()(Tensor(a), Tensor(b)).asnumpy(), np.right_shift(a, b))
    d = np.array([2, 3, -5, 2, -2], np.int32)
    np.testing.assert_array_equal(ops.truncate_div(Tensor(a), Tensor(d)).asnumpy(), np.trunc(a / d).astype(np.int32))
    np.testing.assert_array_equal(ops.truncate_mod(Tensor(a), Tensor(d)).asnumpy(), np.fmod(a, d))
    np.testing.assert_array_equal(ops.floordiv(Tensor(a), Tensor(d)).asnumpy(), np.floor_divide(a, d))
    np.testing.assert_array_equal(ops.floormod(Tensor(a), Tensor(d)).asnumpy(), np.mod(a, d))
    with pytest.raises(TypeError, match="integer"):
        ops.bitwise_left_shift(Tensor(a.astype(np.float32)), 1)


def test_matrix_functions_and_norms(backend):
    a = RNG.standard_normal((2, 3, 3))
    np.testing.assert_allclose(ops.matrix_exp(Tensor(a)).asnumpy(), torch.linalg.matrix_exp(_t(a)).numpy(),
                               rtol=1e-10, atol=1e-12)
    big = 4 * a[0]
    np.testing.assert_allclose(ops.MatrixExp()(Tensor(big)).asnumpy(), torch.linalg.matrix_exp(_t(big)).numpy(),
                               rtol=1e-9, atol=1e-9)
    m = a[0] + 3 * np.eye(3)
    rhs = RNG.standard_normal((3, 2))
    np.testing.assert_allclose(ops.matrix_solve(Tensor(m), Tensor(rhs)).asnumpy(), np.linalg.solve(m, rhs),
                               rtol=1e-10)
    np.testing.assert_allclose(ops.MatrixSolve(adjoint=True)(Tensor(m), Tensor(rhs)).asnumpy(),
                               np.linalg.solve(m.T, rhs), rtol=1e-10)
    x = RNG.standard_normal((4, 5))
    np.testing.assert_allclose(ops.pdist(Tensor(x)).asnumpy(), torch.pdist(_t(x)).numpy(), rtol=1e-10)
    np.testing.assert_allclose(ops.Pdist(p=1.0)(Tensor(x)).asnumpy(), torch.pdist(_t(x), 1.0).numpy(), rtol=1e-10)
    np.testing.assert_allclose(ops.vector_norm(Tensor(x), 3).asnumpy(), torch.linalg.vector_norm(_t(x), 3).numpy())
    np.testing.assert_allclose(ops.vector_norm(Tensor(x), 1, 1, True).asnumpy(),
                               torch.linalg.vector_norm(_t(x), 1, 1, True).numpy())
    np.testing.assert_allclose(ops.matrix_norm(Tensor(x), 1).asnumpy(), torch.linalg.matrix_norm(_t(x), 1).numpy())
    g = ms.grad(lambda t: ops.matrix_exp(t).sum())(Tensor(a[0]))
    ta = _t(a[0]).requires_grad_(True)
    torch.linalg.matrix_exp(ta).sum().backward()
    np.testing.assert_allclose(g.asnumpy(), ta.grad.numpy(), rtol=1e-8)


def test_windows_eps_shapes_and_predicates():
    for n, periodic, beta in [(6, True, 12.0), (7, False, 5.0), (1, True, 3.0)]:
        np.testing.assert_allclose(ops.kaiser_window(n, periodic, beta).asnumpy(),
                                   torch.kaiser_window(n, periodic, beta).numpy(), rtol=2e-6, atol=1e-7)
    x = Tensor(np.zeros((2, 3), np.float32))
    assert ops.eps(x).asnumpy().tolist() == [[np.finfo(np.float32).eps] * 3] * 2
    assert ops.Eps()(Tensor(np.zeros(1, np.float64))).asnumpy()[0] == np.finfo(np.float64).eps
    assert ops.dyn_shape(x).asnumpy().tolist() == [2, 3] and ops.DynamicShape()(x).dtype == ms.int64
    assert ops.is_nonzero(Tensor([0.5])) is True and ops.is_nonzero(Tensor([[0]])) is False
    with pytest.raises(ValueError, match="one element"):
        ops.is_nonzero(x)
    assert ops.approximate_equal(Tensor([1.0, 2.0]), Tensor([1.0, 2.1]), 0.05).asnumpy().tolist() == [True, False]
    assert ops.IdentityN()((x, x))[1] is x
    bounds = ops.LowerBound()(Tensor([[1, 3, 5, 5]]), Tensor([[3, 5, 6]])).asnumpy().tolist()
    assert bounds == [[1, 2, 4]]
    assert ops.UpperBound(ms.int64)(Tensor([[1, 3, 5, 5]]), Tensor([[3, 5, 0]])).asnumpy().tolist() == [[2, 4, 0]]


def test_scatter_into_views_match_torch(backend):
    x = RNG.standard_normal((3, 4, 5)).astype(np.float32)
    src = RNG.standard_normal((3, 5)).astype(np.float32)
    np.testing.assert_array_equal(ops.select_scatter(Tensor(x), Tensor(src), 1, -2).asnumpy(),
                                  torch.select_scatter(_t(x), _t(src), 1, -2).numpy())
    src2 = RNG.standard_normal((3, 4, 2)).astype(np.float32)
    np.testing.assert_array_equal(ops.slice_scatter(Tensor(x), Tensor(src2), 2, 1, 5, 2).asnumpy(),
                                  torch.slice_scatter(_t(x), _t(src2), 2, 1, 5, 2).numpy())
    src3 = RNG.standard_normal((4, 3)).astype(np.float32)
    np.testing.assert_array_equal(ops.diagonal_scatter(Tensor(x), Tensor(src3), 1, 0, 2).asnumpy(),
                                  torch.diagonal_scatter(_t(x), _t(src3), 1, 0, 2).numpy())
    g = ms.grad(lambda a, b: (ops.select_scatter(a, b, 1, 0) * 2).sum(), grad_position=(0, 1))(Tensor(x), Tensor(src))
    assert g[0].asnumpy()[:, 0].sum() == 0 and (g[0].asnumpy()[:, 1:] == 2).all() and (g[1].asnumpy() == 2).all()
    got = ms.jit(lambda a, b: ops.slice_scatter(a, b, 2, 1, 5, 2))(Tensor(x), Tensor(src2))
    np.testing.assert_array_equal(got.asnumpy(), torch.slice_scatter(_t(x), _t(src2), 2, 1, 5, 2).numpy())
    with pytest.raises(ValueError, match="src"):
        ops.select_scatter(Tensor(x), Tensor(src2), 1, 0)


def test_block_diag_combinations_unique_consecutive():
    parts = [np.array([[1.0, 2.0]]), np.array(3.0), np.array([4.0, 5.0]), np.ones((2, 2))]
    np.testing.assert_array_equal(ops.block_diag(*[Tensor(p) for p in parts]).asnumpy(),
                                  torch.block_diag(*[_t(p) for p in parts]).numpy())
    v = np.array([4, 7, 9, 1])
    for r, rep in [(2, False), (3, False), (2, True)]:
        pick = itertools.combinations_with_replacement if rep else itertools.combinations
        assert ops.combinations(Tensor(v), r, rep).asnumpy().tolist() == [list(c) for c in pick(v.tolist(), r)]
    x = np.array([[1, 1], [1, 1], [2, 0], [2, 0], [1, 1]])
    out, idx, counts = ops.unique_consecutive(Tensor(x), True, True, 0)
    t_out, t_idx, t_counts = torch.unique_consecutive(_t(x), return_inverse=True, return_counts=True, dim=0)
    assert out.asnumpy().tolist() == t_out.tolist() and idx.asnumpy().tolist() == t_idx.tolist()
    assert counts.asnumpy().tolist() == t_counts.tolist()
    assert ops.UniqueConsecutive()(Tensor(np.array([3, 3, 1, 3]))).asnumpy().tolist() == [3, 1, 3]


def _np_space_to_batch(x, blocks, pads):
    x = np.pad(x, [(0, 0), (0, 0)] + [tuple(p) for p in pads])
    n, c, h, w = x.shape
    bh, bw = blocks
    out = np.empty((bh * bw * n, c, h // bh, w // bw), x.dtype)
    for i in range(bh):
        for j in range(bw):
            out[(i * bw + j) * n:(i * bw + j + 1) * n] = x[:, :, i::bh, j::bw]
    return out


def test_block_rearrangements_round_trip(backend):
    x = RNG.standard_normal((2, 3, 4, 7)).astype(np.float32)
    pads = [[0, 2], [1, 1]]
    y = ops.space_to_batch_nd(Tensor(x), [3, 3], pads)
    np.testing.assert_array_equal(y.asnumpy(), _np_space_to_batch(x, (3, 3), pads))
    np.testing.assert_array_equal(ops.batch_to_space_nd(y, [3, 3], pads).asnumpy(), x)
    np.testing.assert_array_equal(ops.BatchToSpaceNDV2()(y, Tensor([3, 3]), pads).asnumpy(), x)
    sq = x[:, :, :, :4]
    np.testing.assert_array_equal(ops.SpaceToBatch(2, [[0, 0], [0, 0]])(Tensor(sq)).asnumpy(),
                                  _np_space_to_batch(sq, (2, 2), [[0, 0], [0, 0]]))
    d = ops.SpaceToDepth(2)(Tensor(sq))
    assert d.shape == (2, 12, 2, 2)
    np.testing.assert_array_equal(d.asnumpy()[:, 3:6], sq[:, :, 0::2, 1::2])  # block offset (0, 1), all channels
    np.testing.assert_array_equal(ops.DepthToSpace(2)(d).asnumpy(), sq)


def test_inplace_row_updates():
    x = np.zeros((4, 2), np.float32)
    v = np.arange(4, dtype=np.float32).reshape(2, 2)
    want = x.copy()
    want[[1, 3]] += v
    np.testing.assert_array_equal(ops.inplace_add(Tensor(x), Tensor(v), (1, 3)).asnumpy(), want)
    np.testing.assert_array_equal(ops.InplaceSub((1, 3))(Tensor(x), Tensor(v)).asnumpy(), -want)
    p = ms.Parameter(Tensor(x.copy()), name="p")
    ops.InplaceUpdate((0, 2))(p, Tensor(v))
    assert p.asnumpy().tolist() == [[0, 1], [0, 0], [2, 3], [0, 0]]
    q = ms.Parameter(Tensor(np.zeros((2, 3), np.float32)), name="q")
    ops.InplaceIndexAdd(1)(q, Tensor(np.array([0, 2], np.int32)), Tensor(np.ones((2, 2), np.float32)))
    assert q.asnumpy().tolist() == [[1, 0, 1], [1, 0, 1]]
    with pytest.raises(ValueError, match="one row per row"):
        ops.inplace_add(Tensor(x), Tensor(v), (1,))
