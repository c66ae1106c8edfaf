"""In-place primitives write into the variable's own buffer, against explicit numpy formulas; plumbing ops."""
import numpy as np
import pytest

import openspore as ms
from openspore import ops

from ..conftest import assert_close


def F(values, dtype=np.float32):
    return ms.Tensor(np.array(values, dtype))


def test_assign_writes_into_the_same_buffer(backend):
    w = ms.Parameter(F([[1.0, 2.0], [3.0, 4.0]]), name="w")
    buffer = w.data_ref()
    out = ops.assign(w, F([[5.0, 6.0], [7.0, 8.0]]))
    assert w.data_ref() is buffer
    assert w.tolist() == [[5.0, 6.0], [7.0, 8.0]]
    assert out.tolist() == w.tolist() and out.dtype is ms.float32 and type(out) is ms.Tensor


@pytest.mark.parametrize("value,expected", [(F([9.0, 8.0]), [[9.0, 8.0], [9.0, 8.0]]), (2.5, [[2.5, 2.5], [2.5, 2.5]]),
                                            (F([[1, 2], [3, 4]], np.int32), [[1.0, 2.0], [3.0, 4.0]])],
                         ids=["broadcast", "python-scalar", "int-into-float"])
def test_assign_value_forms(backend, value, expected):
    w = F(np.zeros((2, 2)))
    ops.assign(w, value)
    assert w.tolist() == expected and w.dtype is ms.float32


def test_assign_primitive_class_and_int_variables(backend):
    v = ms.Tensor(np.array([1, 2, 3], np.int32))
    ops.Assign()(v, ms.Tensor(np.array([4, 5, 6], np.int8)))
    assert v.tolist() == [4, 5, 6] and v.dtype is ms.int32
    ops.AssignAdd()(v, 10)
    assert v.tolist() == [14, 15, 16]


def test_assign_add_and_sub(backend):
    w = ms.Parameter(F([1.0, 2.0, 3.0]), name="w")
    buffer = w.data_ref()
    ops.assign_add(w, F([1.0, 1.0, 1.0]))
    ops.assign_sub(w, 0.5)
    ops.assign_add(w, F([10.0, 20.0, 30.0]))
    assert w.data_ref() is buffer
    assert_close(w, [11.5, 22.5, 33.5])


def test_assign_add_rejects_lossy_or_misshaped_values():
    w = F([1.0, 2.0])
    with pytest.raises(TypeError, match="AssignAdd"):
        ops.assign_add(w, F([1.0, 2.0], np.float64))
    with pytest.raises(ValueError, match="AssignSub"):
        ops.assign_sub(w, F([1.0, 2.0, 3.0]))
    with pytest.raises(TypeError, match="AssignAdd"):
        ops.assign_add(ms.Tensor([True, False]), True)
    assert w.tolist() == [1.0, 2.0]


def _momentum_reference(var, accum, lr, grad, momentum, nesterov, scale):
    grad = grad * scale
    accum = accum * momentum + grad
    if nesterov:
        var = var - lr * (grad + accum * momentum)
    else:
        var = var - lr * accum
    return var, accum


@pytest.mark.parametrize("nesterov", [False, True])
@pytest.mark.parametrize("scale", [1.0, 0.25])
def test_apply_momentum_matches_the_formula(backend, nesterov, scale):
    rng = np.random.default_rng(3)
    var0, acc0, g = (rng.standard_normal((3, 2)).astype(np.float32) for _ in range(3))
    var = ms.Parameter(ms.Tensor(var0), name="var")
    accum = ms.Parameter(ms.Tensor(acc0), name="moments.var")
    buffers = var.data_ref(), accum.data_ref()
    op = ops.ApplyMomentum(use_nesterov=nesterov, gradient_scale=scale)
    out = op(var, accum, F(0.1), ms.Tensor(g), F(0.9))
    want_var, want_acc = _momentum_reference(var0, acc0, 0.1, g, 0.9, nesterov, scale)
    assert_close(var, want_var, rtol=1e-5)
    assert_close(accum, want_acc, rtol=1e-5)
    assert_close(out, want_var, rtol=1e-5)
    assert (var.data_ref(), accum.data_ref()) == buffers


def test_apply_momentum_trains_a_linear_model(backend):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((32, 3)).astype(np.float32)
    true_w = np.array([[1.5], [-2.0], [0.5]], np.float32)
    y = x @ true_w
    w = ms.Parameter(F(np.zeros((3, 1))), name="w")
    moments = ms.Parameter(F(np.zeros((3, 1))), name="moments.w")
    X, Y = ms.Tensor(x), ms.Tensor(y)
    step = ops.ApplyMomentum()

    def loss_fn(a, b):
        diff = ops.matmul(a, w) - b
        return (diff * diff).sum() * (1.0 / 32)

    grad_fn = ms.value_and_grad(loss_fn, None, [w])
    first = None
    for _ in range(150):
        loss, (gw,) = grad_fn(X, Y)
        first = float(loss) if first is None else first
        step(w, moments, 0.05, gw, 0.9)
    assert float(loss) < first * 1e-3
    assert_close(w, true_w, atol=2e-2, rtol=0)


def test_apply_momentum_argument_checks():
    var, acc = F([1.0, 2.0]), F([0.0, 0.0])
    with pytest.raises(ValueError, match="ApplyMomentum.*accumulation"):
        ops.ApplyMomentum()(var, F([0.0]), 0.1, F([1.0, 1.0]), 0.9)
    with pytest.raises(TypeError, match="ApplyMomentum.*gradient"):
        ops.ApplyMomentum()(var, acc, 0.1, F([1.0, 1.0], np.float64), 0.9)
    with pytest.raises(ValueError, match="learning_rate"):
        ops.ApplyMomentum()(var, acc, F([0.1, 0.2]), F([1.0, 1.0]), 0.9)
    with pytest.raises(TypeError, match="variable"):
        ops.ApplyMomentum()(ms.Tensor([1, 2]), ms.Tensor([1, 2]), 0.1, ms.Tensor([1, 2]), 0.9)


@pytest.mark.parametrize("nesterov", [False, True])
def test_adam_matches_the_formula(backend, nesterov):
    rng = np.random.default_rng(5)
    var0, m0, g = (rng.standard_normal((2, 3)).astype(np.float64) for _ in range(3))
    v0 = rng.uniform(0.1, 1.0, (2, 3))
    b1, b2, lr, eps, t = 0.9, 0.999, 0.01, 1e-8, 3
    var, m, v = (ms.Parameter(ms.Tensor(a), name=n) for a, n in ((var0, "w"), (m0, "m"), (v0, "v")))
    out = ops.Adam(use_nesterov=nesterov)(var, m, v, b1 ** t, b2 ** t, lr, b1, b2, eps, ms.Tensor(g))
    want_m = b1 * m0 + (1 - b1) * g
    want_v = b2 * v0 + (1 - b2) * g * g
    step = lr * np.sqrt(1 - b2 ** t) / (1 - b1 ** t)
    direction = (want_m * b1 + (1 - b1) * g) if nesterov else want_m
    want_var = var0 - step * direction / (np.sqrt(want_v) + eps)
    assert_close(m, want_m, rtol=1e-12)
    assert_close(v, want_v, rtol=1e-12)
    assert_close(var, want_var, rtol=1e-12)
    assert isinstance(out, tuple) and len(out) == 3
    assert_close(out[0], want_var, rtol=1e-12)


def test_stop_gradient_and_depend_values(backend):
    x = F([1.0, -2.0])
    assert ops.StopGradient()(x).tolist() == [1.0, -2.0]
    assert ops.Depend()(x, F([5.0])).tolist() == [1.0, -2.0]
    assert ops.depend(x, None).tolist() == [1.0, -2.0]
    assert ops.depend(3, x) == 3


def test_depend_orders_after_a_write(backend):
    w = F([1.0, 1.0])
    out = ops.depend(w * 1, ops.assign(w, F([4.0, 4.0])))  # the write has already run when depend returns
    assert w.tolist() == [4.0, 4.0]
    assert out.tolist() == [1.0, 1.0]


def test_side_effect_flags():
    table = ops.primitive_table()
    for name in ("AssignAdd", "AssignSub", "ApplyMomentum", "Adam"):
        assert table[name].side_effect and not table[name].differentiable
    # Assign has MindSpore's conventional backward (dout to the variable, zeros to the value)
    assert table["Assign"].side_effect and table["Assign"].differentiable
    assert not table["StopGradient"].differentiable
    assert table["Depend"].differentiable and not table["Depend"].side_effect


def test_1x_import_paths():
    from openspore.ops import functional as F
    from openspore.ops import operations as P
    assert F.stop_gradient is ops.stop_gradient and F.depend is ops.depend and F.assign is ops.assign
    assert P.Assign is ops.Assign and P.ApplyMomentum is ops.ApplyMomentum and P.Depend is ops.Depend
