"""mindspore.scipy.linalg eigh, lu, lu_factor and lstsq against SciPy's definitions (via NumPy), with MindSpore
2.10's dtypes and errors; on both backends (the Eigh and LU primitives have a kernel each)."""
import numpy as np
import pytest

import openspore as ms
from openspore.scipy.linalg import eigh, lstsq, lu, lu_factor

T = ms.Tensor
A = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 10.0]], np.float32)
S = np.array([[6.0, 3.0, 1.0], [9.0, 4.0, 2.0], [1.0, 7.0, 5.0]], np.float32)  # not symmetric: one triangle is read


@pytest.mark.parametrize("lower", [True, False])
def test_eigh_reads_one_triangle(backend, lower):
    sym = np.tril(S) + np.tril(S, -1).T if lower else np.triu(S) + np.triu(S, 1).T
    w, v = eigh(T(S), lower=lower)
    assert w.dtype == ms.float32 and v.dtype == ms.float32
    np.testing.assert_allclose(w.asnumpy(), np.linalg.eigvalsh(sym), rtol=1e-5, atol=1e-5)
    vn = v.asnumpy()
    np.testing.assert_allclose(sym @ vn, vn * w.asnumpy(), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(vn.T @ vn, np.eye(3), atol=1e-5)
    np.testing.assert_allclose(eigh(T(S), lower=lower, eigvals_only=True).asnumpy(), w.asnumpy(), rtol=1e-6)


def test_eigh_dtypes_and_errors():
    w, v = eigh(T(np.array([[6, 3], [3, 4]], np.int32)))
    assert w.dtype == ms.float64 and v.dtype == ms.float64  # integers are computed in float64, as in MindSpore
    np.testing.assert_allclose(w.asnumpy(), np.linalg.eigvalsh([[6, 3], [3, 4]]))
    with pytest.raises(ValueError, match="square"):
        eigh(T(S[:2]))
    with pytest.raises(ValueError, match="dimension"):
        eigh(T(np.stack([S, S])))
    with pytest.raises(ValueError, match="b=None"):
        eigh(T(S), b=T(np.eye(3, dtype=np.float32)))


def test_lu_and_lu_factor(backend):
    packed, piv = lu_factor(T(A))
    assert packed.dtype == ms.float32 and piv.dtype == ms.int32
    assert piv.asnumpy().tolist() == [2, 2, 2]  # scipy.linalg.lu_factor's 0-based pivots for this matrix
    p, l_mat, u_mat = lu(T(A))
    assert p.dtype == ms.int32
    assert p.asnumpy().tolist() == [[0, 1, 0], [0, 0, 1], [1, 0, 0]]
    pn, ln, un = p.asnumpy(), l_mat.asnumpy(), u_mat.asnumpy()
    np.testing.assert_allclose(pn @ ln @ un, A, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(np.tril(packed.asnumpy(), -1) + np.eye(3), ln, rtol=1e-6)
    np.testing.assert_allclose(np.triu(packed.asnumpy()), un, rtol=1e-6)
    assert np.all(np.abs(np.tril(ln, -1)) <= 1.0 + 1e-6)  # partial pivoting keeps multipliers ≤ 1
    pl, u2 = lu(T(A), permute_l=True)
    np.testing.assert_allclose(pl.asnumpy() @ u2.asnumpy(), A, rtol=1e-5, atol=1e-5)


def test_lu_shapes_dtypes_and_errors():
    wide = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], np.float32)
    p, l_mat, u_mat = lu(T(wide))
    assert (p.shape, l_mat.shape, u_mat.shape) == ((2, 2), (2, 2), (2, 3))
    np.testing.assert_allclose(p.asnumpy() @ l_mat.asnumpy() @ u_mat.asnumpy(), wide, rtol=1e-5, atol=1e-6)
    assert lu(T(np.array([[1, 2], [4, 5]], np.int32)))[1].dtype == ms.float64
    with pytest.raises(ValueError, match="no more rows"):
        lu(T(wide.T))
    with pytest.raises(ValueError, match="square"):
        lu_factor(T(wide))
    with pytest.raises(ValueError, match="dimension"):
        lu_factor(T(np.stack([A, A])))


def test_lstsq():
    a = np.array([[1.0, 1.0], [1.0, 2.0], [1.0, 3.0]], np.float32)
    for b in (np.array([1.0, 2.0, 2.0], np.float32), np.array([[1.0, 0.0], [2.0, 1.0], [2.0, 5.0]], np.float32)):
        x, residues, rank, s = lstsq(T(a), T(b))
        want = np.linalg.lstsq(a.astype(np.float64), b, rcond=None)[0]
        np.testing.assert_allclose(x.asnumpy(), want, rtol=1e-4, atol=1e-5)
        assert x.dtype == ms.float32 and rank.dtype == ms.int64 and int(rank.asnumpy()) == 2
        assert residues.shape == (0,) and s.shape == (0,)  # MindSpore returns these empty
    ones = np.ones((3, 2), np.float32)
    x, _, rank, _ = lstsq(T(ones), T(np.array([1.0, 2.0, 2.0], np.float32)))
    np.testing.assert_allclose(x.asnumpy(), np.linalg.lstsq(ones, [1.0, 2.0, 2.0], rcond=None)[0], rtol=1e-4)
    assert int(rank.asnumpy()) == 1  # rank-deficient: the minimum-norm solution
    assert lstsq(T(a.astype(np.float64)), T(np.ones(3)))[0].dtype == ms.float64
    with pytest.raises(ValueError, match="same M"):
        lstsq(T(a[:2]), T(np.ones(3, np.float32)))
