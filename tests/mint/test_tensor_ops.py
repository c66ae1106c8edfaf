"""mint's PyTorch-style functions of mint/_tensor_ops.py against torch (same names, same arguments)."""
import numpy as np
import pytest
import torch

import openspore as ms
from openspore import mint, nn

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")  # torch deprecations (meshgrid, triangular_solve)
RNG = np.random.default_rng(3)
A = RNG.standard_normal((3, 4)).astype(np.float32)
V = RNG.standard_normal(4).astype(np.float32)
I = np.array([[5, 3, 0], [12, 7, 1]], np.int32)
J = np.array([[6, 1, 9], [0, 7, 2]], np.int32)
NAN = np.array([[1.0, np.nan, 2.0], [np.nan, 3.0, 4.0]], np.float32)
Z = (RNG.standard_normal(3) + 1j * RNG.standard_normal(3)).astype(np.complex64)
W = (RNG.standard_normal(3) + 1j * RNG.standard_normal(3)).astype(np.complex64)
IDX = np.array([[0, 2, 1, 2], [1, 0, 0, 2]], np.int64)
TRI = np.triu(RNG.standard_normal((3, 3))).astype(np.float32) + 3 * np.eye(3, dtype=np.float32)

CASES = [  # (name, inputs, kwargs)
    ("bitwise_and", (I, J), {}), ("bitwise_or", (I, J), {}), ("bitwise_xor", (I, J), {}),
    ("bitwise_not", (I,), {}), ("bitwise_not", (I > 4,), {}),
    ("count_nonzero", (I,), {}), ("count_nonzero", (I,), {"dim": 1}),
    ("cummax", (A, 1), {}), ("cummin", (A,), {"dim": 0}),
    ("diag", (V,), {}), ("diag", (V, -2), {}), ("diag", (A,), {"diagonal": 1}),
    ("dot", (V, V), {}), ("erfinv", (np.tanh(A),), {}), ("imag", (Z,), {}), ("real", (Z,), {}),
    ("polar", (np.abs(V), V), {}), ("ravel", (A,), {}), ("reshape", (A, (2, 6)), {}), ("swapaxes", (A, 0, 1), {}),
    ("take", (A, np.array([0, 5, 11], np.int64)), {}), ("unbind", (A,), {"dim": 1}),
    ("meshgrid", (V, V[:3]), {}), ("meshgrid", (V, V[:3]), {"indexing": "xy"}),
    ("nansum", (NAN,), {}), ("nansum", (NAN, 1), {"keepdim": True}),
    ("select", (A, 1, -1), {}), ("scatter_add", (A, 1, IDX[:, :3], A[:2, :3]), {}),
    ("std_mean", (A,), {"dim": 1}), ("var_mean", (A,), {"dim": 0, "correction": 0, "keepdim": True}),
    ("triangular_solve", (A[:, :2], TRI), {}), ("triangular_solve", (A[:, :2], TRI.T), {"upper": False}),
    ("vdot", (Z, W), {}),
    ("kthvalue", (A, 2), {}), ("kthvalue", (A, 3, 0), {"keepdim": True}),
    ("index_add", (A, 1, np.array([3, 0, 3]), A[:, :3]), {}), ("index_add", (A, 0, np.array([2]), A[:1]), {"alpha": 2}),
    ("unique_consecutive", (np.array([1, 1, 2, 2, 3, 1, 1, 2]),), {}),
    ("unique_consecutive", (np.array([1, 1, 2, 2, 3, 1, 1, 2]),), {"return_inverse": True, "return_counts": True}),
]


def _flat(out):
    if isinstance(out, (tuple, list)):
        return [x for o in out for x in _flat(o)]
    return [out.asnumpy() if isinstance(out, ms.Tensor) else out.numpy()]


@pytest.mark.parametrize("name,inputs,kwargs", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_matches_torch(name, inputs, kwargs):
    ours = getattr(mint, name)(*[ms.Tensor(x) if isinstance(x, np.ndarray) else x for x in inputs], **kwargs)
    theirs = getattr(torch, name)(*[torch.from_numpy(x) if isinstance(x, np.ndarray) else x for x in inputs],
                                  **kwargs)
    got, want = _flat(ours), _flat(theirs)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape
        if w.dtype.kind in "iub":
            assert g.dtype == w.dtype or (w.dtype == np.int64 and name in ("cummax", "cummin"))
            np.testing.assert_array_equal(g, w)
        else:
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)


def test_empty_has_the_shape_and_dtype_asked():
    assert mint.empty(2, 3).shape == (2, 3) and mint.empty((4,), dtype=ms.int32).dtype == ms.int32
    like = mint.empty_like(ms.Tensor(I))
    assert like.shape == I.shape and like.dtype == ms.int32
    assert mint.empty_like(ms.Tensor(A), dtype=ms.float16).dtype == ms.float16
    with pytest.raises(ValueError, match="k must be in"):
        mint.kthvalue(ms.Tensor(A), 5)


def test_errors_and_graph_mode():
    with pytest.raises(IndexError, match="out of range"):
        mint.select(ms.Tensor(A), 0, 3)
    with pytest.raises(ValueError, match="1-D or 2-D"):
        mint.diag(ms.Tensor(np.ones((2, 2, 2), np.float32)))

    class Net(nn.Cell):
        def construct(self, x):
            std, mean = mint.std_mean(x, 1)
            return mint.select(x, 0, 1) + std + mean + mint.diag(mint.diag(x[:, :3]))[0]

    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        out = Net()(ms.Tensor(A[:, :3])).asnumpy()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    sub = A[:, :3]
    np.testing.assert_allclose(out, sub[1] + sub.std(1, ddof=1) + sub.mean(1) + np.diag(np.diag(sub))[0], rtol=1e-5)
