"""autograd.GRAD_READY fires for a weight as soon as its gradient is final — the last layer's first, before
the first layer's backward rule has run — which is what lets data-parallel training send gradients during the
backward pass (PyNative) and place AllReduceStart inside the compiled backward (GRAPH_MODE)."""
import numpy as np

import openspore as ms
from openspore import ops
from openspore.core import autograd


def test_last_layer_gradient_is_ready_before_the_first_layer_runs_backward():
    rng = np.random.default_rng(0)
    w1 = ms.Parameter(ms.Tensor(rng.standard_normal((3, 4)).astype(np.float32)), name="w1")
    w2 = ms.Parameter(ms.Tensor(rng.standard_normal((4, 2)).astype(np.float32)), name="w2")
    x = ms.Tensor(rng.standard_normal((5, 3)).astype(np.float32))
    events = []
    matmul_first = ops.MatMul()

    def loss(x):
        return ops.ReduceSum()(ops.MatMul()(ops.tanh(matmul_first(x, w1)), w2), ())

    def hook(tensor, grad):
        events.append((tensor.name, tuple(grad.shape)))

    original_bprop = type(matmul_first).bprop

    def spying_bprop(self, *args):
        if self is matmul_first:
            events.append(("first MatMul backward", None))
        return original_bprop(self, *args)

    autograd.GRAD_READY[:] = [hook]
    type(matmul_first).bprop = spying_bprop
    try:
        grads = ms.grad(loss, grad_position=None, weights=[w1, w2])(x)
    finally:
        type(matmul_first).bprop = original_bprop
        autograd.GRAD_READY[:] = []
    assert events == [("w2", (4, 2)), ("first MatMul backward", None), ("w1", (3, 4))]
    h = np.tanh(x.asnumpy() @ w1.asnumpy())
    np.testing.assert_allclose(grads[1].asnumpy(), h.T @ np.ones((5, 2)), rtol=1e-5)
