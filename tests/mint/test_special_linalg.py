"""mint.special and mint.linalg against NumPy / SciPy / torch references, in PyNative and inside a GRAPH_MODE
Cell, with gradients where the function is differentiable."""
import numpy as np
import pytest
import scipy.special
import torch

import openspore as ms
from openspore import mint, nn
from openspore.mint import linalg, special

RNG = np.random.default_rng(7)
X = RNG.uniform(-2.0, 2.0, (3, 4)).astype(np.float32)
SQUARE = (RNG.standard_normal((2, 3, 3)) + 3 * np.eye(3)).astype(np.float32)


def _torch_log_softmax(a, dim):
    return torch.log_softmax(torch.from_numpy(a), dim).numpy()


SPECIAL = [  # (name, args after the input, kwargs, reference)
    ("erfc", (), {}, scipy.special.erfc),
    ("exp2", (), {}, np.exp2),
    ("expm1", (), {}, np.expm1),
    ("log1p", (), {}, lambda a: np.log1p(np.abs(a))),
    ("round", (), {}, np.round),  # NumPy also rounds half to even
    ("sinc", (), {}, np.sinc),
    ("log_softmax", (1,), {}, lambda a: _torch_log_softmax(a, 1)),
    ("log_softmax", (), {"dim": 0}, lambda a: _torch_log_softmax(a, 0)),
]


def _input(name):
    if name == "log1p":
        return np.abs(X)
    if name == "round":
        return np.array([[0.5, 1.5, 2.5, -0.5], [-1.5, 2.4, -2.6, 3.0]], np.float32)
    return X


class _Call(nn.Cell):
    def __init__(self, fn, args, kwargs):
        super().__init__()
        self.fn, self.args, self.kwargs = fn, args, kwargs

    def construct(self, x):
        return self.fn(x, *self.args, **self.kwargs)


def _both_modes(fn, args, kwargs, x):
    eager = fn(ms.Tensor(x), *args, **kwargs).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        graph = _Call(fn, args, kwargs)(ms.Tensor(x)).asnumpy()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    return eager, graph


@pytest.mark.parametrize("name,args,kwargs,ref", SPECIAL, ids=[f"{c[0]}-{i}" for i, c in enumerate(SPECIAL)])
def test_special_matches_reference_in_both_modes(name, args, kwargs, ref):
    x = _input(name)
    eager, graph = _both_modes(getattr(special, name), args, kwargs, x)
    want = ref(x.astype(np.float64))
    np.testing.assert_allclose(eager, want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(graph, eager, rtol=1e-6, atol=1e-7)


def test_special_names_are_the_ops_functions_and_log_softmax_takes_a_dtype():
    assert special.erfc is ms.ops.erfc and special.sinc is ms.ops.sinc
    assert special.log_softmax is mint.nn.functional.log_softmax
    out = special.log_softmax(ms.Tensor(X), 1, dtype=ms.float64)
    assert out.dtype == ms.float64
    np.testing.assert_allclose(out.asnumpy(), _torch_log_softmax(X.astype(np.float64), 1), rtol=1e-12)
    assert sorted(special.__all__) == ["erfc", "exp2", "expm1", "log1p", "log_softmax", "round", "sinc"]


def test_special_gradients_match_torch():
    x = torch.from_numpy(X.astype(np.float64)).requires_grad_()
    (torch.special.erfc(x) * torch.special.expm1(x)).sum().backward()
    grad = ms.grad(lambda t: (special.erfc(t) * special.expm1(t)).sum())(ms.Tensor(X.astype(np.float64)))
    np.testing.assert_allclose(grad.asnumpy(), x.grad.numpy(), rtol=1e-10)


LINALG = [
    ("inv", SQUARE, (), {}, np.linalg.inv),
    ("vector_norm", X, (), {}, lambda a: np.linalg.norm(a.ravel())),
    ("vector_norm", X, (float("inf"),), {"dim": 1, "keepdim": True},
     lambda a: np.abs(a).max(1, keepdims=True)),
    ("vector_norm", X, (), {"ord": 3, "dim": (0, 1)}, lambda a: (np.abs(a) ** 3).sum() ** (1 / 3)),
    ("matrix_norm", SQUARE, (), {}, lambda a: np.linalg.norm(a, "fro", axis=(-2, -1))),
    ("matrix_norm", SQUARE, ("nuc",), {}, lambda a: np.linalg.norm(a, "nuc", axis=(-2, -1))),
    ("matrix_norm", SQUARE, (), {"ord": 1, "keepdim": True},
     lambda a: np.linalg.norm(a, 1, axis=(-2, -1), keepdims=True)),
    ("norm", X, (), {}, lambda a: np.linalg.norm(a)),
    ("norm", X, (2,), {"dim": 0}, lambda a: np.linalg.norm(a, 2, axis=0)),
    ("norm", SQUARE, ("fro",), {"dim": (1, 2)}, lambda a: np.linalg.norm(a, "fro", axis=(1, 2))),
]


@pytest.mark.parametrize("name,x,args,kwargs,ref", LINALG, ids=[f"{c[0]}-{i}" for i, c in enumerate(LINALG)])
def test_linalg_matches_numpy_in_both_modes(name, x, args, kwargs, ref):
    eager, graph = _both_modes(getattr(linalg, name), args, kwargs, x)
    np.testing.assert_allclose(eager, ref(x.astype(np.float64)), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(graph, eager, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("mode", ["reduced", "complete"])
def test_linalg_qr_reconstructs_and_is_orthonormal(mode):
    a = RNG.standard_normal((2, 4, 3)).astype(np.float32)
    q, r = linalg.qr(ms.Tensor(a), mode=mode)
    q, r = q.asnumpy(), r.asnumpy()
    k = 3 if mode == "reduced" else 4
    assert q.shape == (2, 4, k) and r.shape == (2, k, 3)
    np.testing.assert_allclose(q @ r, a, atol=1e-5)
    np.testing.assert_allclose(np.swapaxes(q, -1, -2) @ q, np.broadcast_to(np.eye(k), (2, k, k)), atol=1e-5)
    np.testing.assert_allclose(r, np.triu(r), atol=0)
    # the same factors as torch.linalg.qr (both are LAPACK's Householder QR)
    tq, tr = torch.linalg.qr(torch.from_numpy(a), mode=mode)
    np.testing.assert_allclose(np.abs(r), np.abs(tr.numpy()), atol=1e-5)


def test_linalg_inv_is_the_matrix_inverse_with_gradients():
    a = SQUARE[0].astype(np.float64)
    grad = ms.grad(lambda t: linalg.inv(t).sum())(ms.Tensor(a))
    ta = torch.from_numpy(a).requires_grad_()
    torch.linalg.inv(ta).sum().backward()
    np.testing.assert_allclose(grad.asnumpy(), ta.grad.numpy(), rtol=1e-10)
    with pytest.raises((ValueError, TypeError)):
        linalg.inv(ms.Tensor(X))  # not square


@pytest.mark.parametrize("ord", ["nuc", 2, -2])
def test_linalg_singular_value_norms_match_torch(ord):
    a = RNG.standard_normal((3, 2, 4)).astype(np.float64)
    got = linalg.matrix_norm(ms.Tensor(a), ord, dim=(0, 2), keepdim=True)
    want = torch.linalg.matrix_norm(torch.from_numpy(a), ord, dim=(0, 2), keepdim=True)
    np.testing.assert_allclose(got.asnumpy(), want.numpy(), rtol=1e-10)
    np.testing.assert_allclose(linalg.norm(ms.Tensor(a[0]), ord).asnumpy(),
                               np.linalg.norm(a[0], ord), rtol=1e-10)
    # Svd has no backward rule yet: a clear error, not a wrong gradient
    with pytest.raises(NotImplementedError, match="gradient of 'Svd'"):
        ms.grad(lambda t: linalg.matrix_norm(t, ord).sum())(ms.Tensor(a))


def test_linalg_vector_norm_over_several_axes_keeps_dims_like_torch():
    a = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    for ord in (2, 1, 0, 3.5, float("inf"), float("-inf")):
        for dim in (None, (0, 2), (-1, -2, 0)):
            got = linalg.vector_norm(ms.Tensor(a), ord, dim=dim, keepdim=True).asnumpy()
            want = torch.linalg.vector_norm(torch.from_numpy(a), ord, dim=dim, keepdim=True).numpy()
            np.testing.assert_allclose(got, want, rtol=1e-5, err_msg=f"ord={ord} dim={dim}")
    with pytest.raises(ValueError, match="'ord' must be a number"):
        linalg.vector_norm(ms.Tensor(a), "fro")
    with pytest.raises(TypeError, match="float type"):
        linalg.vector_norm(ms.Tensor(np.arange(3)))
