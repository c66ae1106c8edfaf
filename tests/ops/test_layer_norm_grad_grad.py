"""ops.auto_generate.LayerNormGradGrad: the gradients (x, dy, gamma) of LayerNormGrad's outputs, against
MindSpore 2.10's CPU kernel and against torch autograd differentiating layer norm's backward twice."""
import numpy as np
import pytest
import torch

import openspore as ms
from openspore import nn
from openspore.ops.auto_generate import LayerNormGradGrad
from openspore.ops.operations import _grad_ops as G

X = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], np.float32)
DY = np.array([[0.3, -0.2, 1.0], [-1.0, 0.5, 0.4]], np.float32)
GAMMA = np.array([1.5, -0.5, 2.0], np.float32)
D_DX = np.array([[1.0, 0.0, -2.0], [0.5, 0.5, 1.0]], np.float32)
D_DG = np.array([0.2, -0.4, 0.6], np.float32)
D_DB = np.array([-1.0, 0.3, 0.7], np.float32)
# MindSpore 2.10 (CPU): LayerNormGradGrad(1, 1)(X, DY, var, mean, GAMMA, D_DX, D_DG, D_DB), rounded to 6 places
MS_2_10 = [[[-1.059631, 0.312083, 0.747548], [0.168658, -0.385046, 0.216388]],
           [[0.632993, 1.062063, 0.346185], [-0.612923, 0.436397, 0.21645]],
           [0.237547, 0.008683, -0.499805]]


def _inputs(x, dy, gamma, d_dx, d_dg, d_db, axis):
    axes = tuple(range(axis % x.ndim, x.ndim))
    stats = [x.var(axes, keepdims=True), x.mean(axes, keepdims=True)]
    return [ms.Tensor(a) for a in (x, dy, *stats, gamma, d_dx, d_dg, d_db)]


def test_matches_mindspore_2_10():
    out = LayerNormGradGrad(1, 1)(*_inputs(X, DY, GAMMA, D_DX, D_DG, D_DB, 1))
    for got, want in zip(out, MS_2_10):
        np.testing.assert_allclose(got.asnumpy(), want, atol=2e-6)
    assert G.LayerNormGradGrad is LayerNormGradGrad and ms.ops.LayerNormGradGrad is LayerNormGradGrad


def _torch_reference(x, dy, gamma, d_dx, d_dg, d_db, norm_axis, params_axis):
    """(x, dy, gamma) cotangents of torch's layer-norm backward (dx, dgamma, dbeta), by autograd."""
    t = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in (x, dy, gamma)]
    tx, tdy, tgamma = t
    axes = tuple(range(norm_axis % x.ndim, x.ndim))
    mean = tx.mean(axes, keepdim=True)
    rstd = (tx.var(axes, keepdim=True, unbiased=False) + 1e-12).rsqrt()
    xhat = (tx - mean) * rstd
    g = tdy * tgamma
    dx = rstd * (g - g.mean(axes, keepdim=True) - xhat * (g * xhat).mean(axes, keepdim=True))
    reduce = tuple(range(params_axis % x.ndim))
    dgamma, dbeta = ((tdy * xhat).sum(reduce), tdy.sum(reduce)) if reduce else (tdy * xhat, tdy)  # sum(()) is all
    # check the formula is layer norm's backward, as torch computes it
    if norm_axis % x.ndim == params_axis % x.ndim:
        ty = torch.nn.functional.layer_norm(tx, x.shape[norm_axis % x.ndim:], tgamma, None, 1e-12)
        ref_dx, = torch.autograd.grad(ty, tx, tdy, retain_graph=True)
        np.testing.assert_allclose(dx.detach().numpy(), ref_dx.numpy(), atol=1e-8)
    cot = [torch.tensor(a, dtype=torch.float64) for a in (d_dx, d_dg, d_db)]
    return [g.numpy() for g in torch.autograd.grad((dx, dgamma, dbeta), t, cot)]


@pytest.mark.parametrize("shape,norm_axis,params_axis", [((2, 3, 4), 1, 1), ((2, 3, 4), -1, -1), ((2, 3, 4), 1, 2),
                                                          ((4, 5), 0, 0)])
def test_matches_torch_double_backward(shape, norm_axis, params_axis):
    rng = np.random.default_rng(5)
    pshape = shape[params_axis % len(shape):]
    x, dy, d_dx = (rng.standard_normal(shape) for _ in range(3))
    gamma, d_dg, d_db = (rng.standard_normal(pshape) for _ in range(3))
    out = LayerNormGradGrad(norm_axis, params_axis)(*_inputs(x, dy, gamma, d_dx, d_dg, d_db, norm_axis))
    for got, want in zip(out, _torch_reference(x, dy, gamma, d_dx, d_dg, d_db, norm_axis, params_axis)):
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-8, atol=1e-9)


def test_in_graph_mode_and_bad_inputs():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.op = LayerNormGradGrad()

        def construct(self, *args):
            return self.op(*args)

    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        out = Net()(*_inputs(X, DY, GAMMA, D_DX, D_DG, D_DB, 1))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    for got, want in zip(out, MS_2_10):
        np.testing.assert_allclose(got.asnumpy(), want, atol=2e-6)
    args = _inputs(X, DY, GAMMA, D_DX, D_DG, D_DB, 1)
    with pytest.raises(TypeError, match="one dtype"):
        LayerNormGradGrad()(*args[:5], ms.Tensor(D_DX.astype(np.float64)), *args[6:])
    with pytest.raises(ValueError, match="gamma, d_dg, d_db must have one shape"):
        LayerNormGradGrad()(*args[:6], ms.Tensor(D_DG[:2]), args[7])
