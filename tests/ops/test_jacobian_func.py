"""ops.jacrev / ops.jacfwd against torch.autograd.functional.jacobian, with MindSpore's nesting of outputs and
positions (checked against MindSpore 2.10 while written) and has_aux."""
import numpy as np
import pytest
import torch

from openspore import Tensor, ops


def _f(x, y):
    return x ** 2 * y, ops.sin(x) + y


def _tf(x, y):
    return x ** 2 * y, torch.sin(x) + y


X = np.array([0.5, -1.0, 2.0])
Y = np.array([1.5, 2.0, -0.5])


@pytest.mark.parametrize("jac", ["jacrev", "jacfwd"])
def test_jacobian_blocks_match_torch(jac):
    want = torch.autograd.functional.jacobian(_tf, (torch.from_numpy(X), torch.from_numpy(Y)))
    got = getattr(ops, jac)(_f, grad_position=(0, 1))(Tensor(X), Tensor(Y))
    assert isinstance(got, tuple) and len(got) == 2 and all(len(g) == 2 for g in got)
    for k in range(2):
        for j in range(2):
            np.testing.assert_allclose(got[k][j].asnumpy(), want[k][j].numpy(), rtol=1e-12)
    single = getattr(ops, jac)(_f, grad_position=1)(Tensor(X), Tensor(Y))
    np.testing.assert_allclose(single[0].asnumpy(), want[0][1].numpy(), rtol=1e-12)


@pytest.mark.parametrize("jac", ["jacrev", "jacfwd"])
def test_matrix_inputs_and_aux(jac):
    a, b = np.arange(6.0).reshape(2, 3), np.ones((3, 2))
    got = getattr(ops, jac)(lambda p, q: ops.matmul(p, q), 1)(Tensor(a), Tensor(b))
    want = torch.autograd.functional.jacobian(lambda q: torch.from_numpy(a) @ q, torch.from_numpy(b))
    assert got.shape == (2, 2, 3, 2)
    np.testing.assert_allclose(got.asnumpy(), want.numpy())
    j, aux = getattr(ops, jac)(lambda x, y: (x * y, y + 1), 0, True)(Tensor(X), Tensor(Y))
    np.testing.assert_allclose(j.asnumpy(), np.diag(Y))
    np.testing.assert_allclose(aux.asnumpy(), Y + 1)
    with pytest.raises(TypeError, match="grad_position"):
        getattr(ops, jac)(_f, grad_position=5)(Tensor(X), Tensor(Y))
