"""The row-sparse optimizer primitives against the dense update applied to the gradient scattered into a dense
array (a duplicate index sums its rows), row by row in float64 numpy, on both backends."""
import numpy as np
import pytest

from openspore import Parameter, Tensor, ops
from tests.device import use_backend

ROWS, COLS = 5, 3
INDICES = np.array([3, 0, 3, 1], np.int32)


def _state(rng, n):
    first = rng.standard_normal((ROWS, COLS))
    return [first] + [rng.uniform(0.5, 1.5, (ROWS, COLS)) for _ in range(n - 1)]


def _dense_grad(grad):
    out = np.zeros((ROWS, COLS))
    np.add.at(out, INDICES, grad)
    return out


def _ftrl(var, accum, linear, g, lr, l1, l2, power, shrink=0.0):
    new_accum = accum + g * g
    linear = linear + g + 2 * shrink * var - (new_accum ** -power - accum ** -power) / lr * var
    quad = new_accum ** -power / lr + 2 * l2
    var = np.where(np.abs(linear) > l1, (np.sign(linear) * l1 - linear) / quad, 0.0)
    return var, new_accum, linear


def _proximal(var, accum, g, lr, l1, l2):
    accum = accum + g * g
    rate = lr / np.sqrt(accum)
    prox = var - rate * g
    return np.sign(prox) * np.maximum(np.abs(prox) - rate * l1, 0) / (1 + rate * l2), accum


def _adam(var, m, v, g, b1p, b2p, lr, b1, b2, eps, nesterov=False):
    m = b1 * m + (1 - b1) * g
    v = b2 * v + (1 - b2) * g * g
    step = lr * np.sqrt(1 - b2p) / (1 - b1p)
    return var - step * ((b1 * m + (1 - b1) * g) if nesterov else m) / (np.sqrt(v) + eps), m, v


# (primitive, attrs, number of state buffers, scalar inputs, reference on the touched rows)
CASES = [
    ("SparseApplyAdagrad", {"lr": 0.1}, 2, (),
     lambda s, g: (s[0] - 0.1 * g / np.sqrt(s[1] + g * g), s[1] + g * g)),
    ("SparseApplyAdagradV2", {"lr": 0.1, "epsilon": 0.01, "update_slots": False}, 2, (),
     lambda s, g: (s[0] - 0.1 * g / (np.sqrt(s[1]) + 0.01), s[1])),
    ("SparseApplyProximalAdagrad", {}, 2, (0.2, 0.05, 0.1), lambda s, g: _proximal(s[0], s[1], g, 0.2, 0.05, 0.1)),
    ("FusedSparseProximalAdagrad", {}, 2, (0.2, 0.05, 0.1), lambda s, g: _proximal(s[0], s[1], g, 0.2, 0.05, 0.1)),
    ("SparseApplyAdadelta", {"epsilon": 1e-3}, 3, (0.5, 0.9),
     lambda s, g: (lambda acc: (lambda u: (s[0] - 0.5 * u, acc, 0.9 * s[2] + 0.1 * u * u))(
         np.sqrt(s[2] + 1e-3) / np.sqrt(acc + 1e-3) * g))(0.9 * s[1] + 0.1 * g * g)),
    ("SparseApplyRMSProp", {"rho": 0.8, "momentum": 0.5, "epsilon": 1e-6}, 3, (0.05,),
     lambda s, g: (lambda ms_: (lambda mom: (s[0] - mom, ms_, mom))(0.5 * s[2] + 0.05 * g / np.sqrt(ms_ + 1e-6)))(
         0.8 * s[1] + 0.2 * g * g)),
    ("SparseApplyFtrl", {"lr": 0.1, "l1": 0.05, "l2": 0.02, "lr_power": -0.5}, 3, (),
     lambda s, g: _ftrl(*s, g, 0.1, 0.05, 0.02, -0.5)),
    ("FusedSparseFtrl", {"lr": 0.1, "l1": 0.05, "l2": 0.02, "lr_power": -0.5}, 3, (),
     lambda s, g: _ftrl(*s, g, 0.1, 0.05, 0.02, -0.5)),
    ("SparseApplyFtrlV2", {"lr": 0.1, "l1": 0.05, "l2": 0.02, "l2_shrinkage": 0.1, "lr_power": -0.5}, 3, (),
     lambda s, g: _ftrl(*s, g, 0.1, 0.05, 0.02, -0.5, 0.1)),
    ("FusedSparseLazyAdam", {}, 3, (0.81, 0.998, 0.01, 0.9, 0.999, 1e-8),
     lambda s, g: _adam(*s, g, 0.81, 0.998, 0.01, 0.9, 0.999, 1e-8)),
    ("FusedSparseLazyAdam", {"use_nesterov": True}, 3, (0.81, 0.998, 0.01, 0.9, 0.999, 1e-8),
     lambda s, g: _adam(*s, g, 0.81, 0.998, 0.01, 0.9, 0.999, 1e-8, nesterov=True)),
]


@pytest.mark.parametrize("backend", ["numpy", "torch"])
@pytest.mark.parametrize("name,attrs,n_state,scalars,reference", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_touched_rows_follow_the_dense_rule_and_others_stay(backend, name, attrs, n_state, scalars, reference):
    use_backend(backend)
    rng = np.random.default_rng(0)
    state = _state(rng, n_state)
    grad = rng.standard_normal((INDICES.size, COLS))
    params = [Parameter(Tensor(s.astype(np.float32)), name=f"s{k}") for k, s in enumerate(state)]
    op = getattr(ops, name)(**attrs)
    op(*params, *[Tensor(np.float32(x)) for x in scalars], Tensor(grad.astype(np.float32)), Tensor(INDICES))
    touched = np.unique(INDICES)
    dense_g = _dense_grad(grad)
    want = reference([s[touched] for s in state], dense_g[touched])
    for k, (param, before) in enumerate(zip(params, state)):
        got = param.asnumpy().astype(np.float64)
        np.testing.assert_allclose(got[touched], want[k], rtol=1e-4, atol=1e-5, err_msg=f"{name} buffer {k}")
        untouched = np.setdiff1d(np.arange(ROWS), touched)
        np.testing.assert_allclose(got[untouched], before[untouched], rtol=1e-6, err_msg=f"{name} buffer {k}")


@pytest.mark.parametrize("backend", ["numpy", "torch"])
def test_fused_sparse_adam_moves_every_row(backend):
    use_backend(backend)
    rng = np.random.default_rng(1)
    state = _state(rng, 3)
    grad = rng.standard_normal((INDICES.size, COLS))
    params = [Parameter(Tensor(s.astype(np.float32)), name=f"a{k}") for k, s in enumerate(state)]
    scalars = (0.81, 0.998, 0.01, 0.9, 0.999, 1e-8)
    ops.FusedSparseAdam()(*params, *[Tensor(np.float32(x)) for x in scalars], Tensor(grad.astype(np.float32)),
                          Tensor(INDICES))
    want = _adam(*state, _dense_grad(grad), *scalars)
    for param, w in zip(params, want):
        np.testing.assert_allclose(param.asnumpy(), w, rtol=1e-4, atol=1e-5)


def test_bad_indices_and_grad_shapes_are_named():
    var, accum = (Parameter(Tensor(np.ones((3, 2), np.float32)), name=n) for n in ("v", "acc"))
    op = ops.SparseApplyAdagrad(lr=0.1)
    with pytest.raises(ValueError, match="'indices' hold 7, out of range \\[0, 3\\)"):
        op(var, accum, Tensor(np.ones((1, 2), np.float32)), Tensor([7]))
    with pytest.raises(ValueError, match="'grad' must have shape"):
        op(var, accum, Tensor(np.ones((2, 3), np.float32)), Tensor([0, 1]))
    with pytest.raises(TypeError, match="'indices' must be an int32/int64 Tensor"):
        op(var, accum, Tensor(np.ones((1, 2), np.float32)), Tensor([0.5]))
    with pytest.raises(TypeError, match="'lr' must be a float"):
        ops.SparseApplyAdagrad(lr="fast")
