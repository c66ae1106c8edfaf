"""mint.optim against torch.optim: Adam (torch's eps placement, unlike experimental.optim.Adam), AdamW, FusedAdamW
and SGD, stepped eagerly and inside a GRAPH_MODE training step."""
import numpy as np
import pytest
import torch

import openspore as ms
from openspore import nn, ops
from openspore.experimental import optim as exp_optim
from openspore.mint import optim

from ..conftest import assert_close

SHAPES = [(3, 4), (4,)]


def _setup(seed=0):
    rng = np.random.default_rng(seed)
    inits = [rng.uniform(-1, 1, s).astype(np.float32) for s in SHAPES]
    grads = [[rng.uniform(-1, 1, s).astype(np.float32) for s in SHAPES] for _ in range(5)]
    params = [ms.Parameter(ms.Tensor(a), name=n) for a, n in zip(inits, ("fc.weight", "fc.bias"))]
    return inits, grads, params


def _torch(inits, grads, make):
    tparams = [torch.nn.Parameter(torch.tensor(a, dtype=torch.float64)) for a in inits]
    topt = make(tparams)
    for step in grads:
        for p, g in zip(tparams, step):
            p.grad = torch.tensor(g, dtype=torch.float64)
        topt.step()
    return [p.detach().numpy() for p in tparams]


CASES = [
    ("Adam", dict(), torch.optim.Adam),
    ("Adam", dict(weight_decay=0.1, eps=1e-2), torch.optim.Adam),  # a large eps tells the two eps placements apart
    ("Adam", dict(amsgrad=True, eps=1e-2), torch.optim.Adam),
    ("Adam", dict(maximize=True, betas=(0.8, 0.99)), torch.optim.Adam),
    ("AdamW", dict(weight_decay=0.1, eps=1e-3), torch.optim.AdamW),
    ("AdamW", dict(amsgrad=True), torch.optim.AdamW),
    ("FusedAdamW", dict(weight_decay=0.05), torch.optim.AdamW),
    ("SGD", dict(momentum=0.9, dampening=0.1, weight_decay=0.01), torch.optim.SGD),
    ("SGD", dict(momentum=0.8, nesterov=True, maximize=True), torch.optim.SGD),
]


@pytest.mark.parametrize("name,kwargs,reference", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_steps_match_torch(name, kwargs, reference):
    inits, grads, params = _setup()
    opt = getattr(optim, name)(params, lr=0.05, **kwargs)
    for step in grads:
        assert opt(tuple(ms.Tensor(g) for g in step)) is True
    for p, want in zip(params, _torch(inits, grads, lambda tp: reference(tp, lr=0.05, **kwargs))):
        assert_close(p, want, rtol=1e-4, atol=1e-6)


def test_adam_differs_from_experimental_adam_only_in_eps_placement():
    inits, grads, params = _setup()
    _, _, other = _setup()
    mint_adam, exp_adam = optim.Adam(params, lr=0.05, eps=0.1), exp_optim.Adam(other, lr=0.05, eps=0.1)
    for step in grads:
        mint_adam(tuple(ms.Tensor(g) for g in step))
        exp_adam(tuple(ms.Tensor(g) for g in step))
    assert np.abs(params[0].asnumpy() - other[0].asnumpy()).max() > 1e-4
    assert optim.AdamW is exp_optim.AdamW and optim.SGD is exp_optim.SGD
    assert issubclass(optim.FusedAdamW, optim.AdamW)


class _Net(nn.Cell):
    def __init__(self, inits):
        super().__init__()
        self.weight = ms.Parameter(ms.Tensor(inits[0]), name="weight")
        self.bias = ms.Parameter(ms.Tensor(inits[1]), name="bias")

    def construct(self, x):
        return ops.reduce_sum(ops.square(ops.matmul(x, self.weight) + self.bias))


@pytest.mark.parametrize("name,kwargs,reference", [CASES[1], CASES[6], CASES[8]], ids=["Adam", "FusedAdamW", "SGD"])
def test_training_step_in_graph_mode_matches_torch(name, kwargs, reference):
    inits, _, _ = _setup(1)
    x = np.random.default_rng(2).uniform(-1, 1, (5, 3)).astype(np.float32)
    net = _Net(inits)
    opt = getattr(optim, name)(net.trainable_params(), lr=0.05, **kwargs)
    grad_fn = ms.value_and_grad(net, None, opt.parameters)

    @ms.jit
    def train_step(data):
        loss, grads = grad_fn(data)
        opt(grads)
        return loss

    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        losses = [float(train_step(ms.Tensor(x))) for _ in range(3)]
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)

    tw, tb = (torch.nn.Parameter(torch.tensor(a, dtype=torch.float64)) for a in inits)
    topt = reference([tw, tb], lr=0.05, **kwargs)
    want = []
    for _ in range(3):
        topt.zero_grad()
        loss = ((torch.from_numpy(x).double() @ tw + tb) ** 2).sum()
        loss.backward()
        topt.step()
        want.append(loss.item())
    np.testing.assert_allclose(losses, want, rtol=1e-4)
    assert_close(net.weight, tw.detach().numpy(), rtol=1e-4, atol=1e-5)
