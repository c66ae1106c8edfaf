"""Fused optimizer-update primitives against explicit numpy formulas (several steps, in place, both backends)."""
import numpy as np
import pytest

import openspore as ms
from openspore import nn, ops
from tests.device import use_backend

from ..conftest import assert_close

RNG = np.random.default_rng(3)


def T(a):
    return ms.Tensor(np.asarray(a, np.float32))


def P(a, name):
    return ms.Parameter(T(a), name=name)


def _grads(n, shape=(3, 4)):
    return [RNG.uniform(-1, 1, shape).astype(np.float32) for _ in range(n)]


def test_sgd_first_step_dampening_decay_and_nesterov(backend):
    w0 = RNG.uniform(-1, 1, (3, 4)).astype(np.float32)
    for damp, wd, nesterov in ((0.0, 0.0, False), (0.3, 0.01, False), (0.0, 0.02, True)):
        w, accum, stat = P(w0, "w"), P(np.zeros((3, 4)), "accum.w"), P(np.ones((3, 4)), "stat.w")
        buffer = w.data_ref()
        op = ops.SGD(damp, wd, nesterov)
        ew, ea = w0.astype(np.float64), np.zeros((3, 4))
        for k, g in enumerate(_grads(4)):
            op(w, T(g), T(0.1), accum, T(0.9), stat)
            g = g + wd * ew
            ea = g if k == 0 else 0.9 * ea + (1 - damp) * g
            ew = ew - 0.1 * (g + 0.9 * ea if nesterov else ea)
        assert w.data_ref() is buffer
        assert_close(w, ew, rtol=1e-5, atol=1e-6)
        assert_close(accum, ea, rtol=1e-5, atol=1e-6)
        assert stat.asnumpy().max() == 0


def test_sgd_without_momentum_leaves_state_alone(backend):
    w, accum, stat = P([1.0, 2.0], "w"), P([0.5, 0.5], "a"), P([1.0, 1.0], "s")
    ops.SGD(0.5)(w, T([1.0, -1.0]), 0.1, accum, 0.0, stat)
    assert_close(w, [0.9, 2.1])
    assert accum.tolist() == [0.5, 0.5] and stat.tolist() == [1.0, 1.0]


def test_sgd_rejects_nesterov_with_dampening():
    with pytest.raises(ValueError, match="dampening"):
        ops.SGD(0.1, 0.0, True)


def test_adam_weight_decay_formula(backend):
    w0 = RNG.uniform(-1, 1, (3, 4)).astype(np.float32)
    w, m, v = P(w0, "w"), P(np.zeros((3, 4)), "m"), P(np.zeros((3, 4)), "v")
    ew, em, ev = w0.astype(np.float64), np.zeros((3, 4)), np.zeros((3, 4))
    for g in _grads(5):
        out = ops.AdamWeightDecay()(w, m, v, T(0.01), 0.9, 0.999, 1e-6, T(0.1), T(g))
        em = 0.9 * em + 0.1 * g
        ev = 0.999 * ev + 0.001 * g * g
        ew = ew - 0.01 * (em / (np.sqrt(ev) + 1e-6) + 0.1 * ew)
    assert len(out) == 3
    assert_close(w, ew, rtol=1e-5, atol=1e-6)
    assert_close(m, em, rtol=1e-5, atol=1e-7)
    assert_close(v, ev, rtol=1e-5, atol=1e-8)


def test_amsgrad_keeps_running_maximum(backend):
    w0 = RNG.uniform(-1, 1, (4,)).astype(np.float32)
    w, m, v, vhat = P(w0, "w"), P(np.zeros(4), "m"), P(np.zeros(4), "v"), P(np.zeros(4), "vh")
    ew, em, ev, evh = w0.astype(np.float64), np.zeros(4), np.zeros(4), np.zeros(4)
    for t, g in enumerate([np.array([1.0, -2.0, 0.5, 3.0]), np.array([0.1, 0.1, 0.1, 0.1]),
                           np.array([-1.0, 0.0, 2.0, 0.2])], start=1):
        ops.ApplyAdamWithAmsgradV2()(w, m, v, vhat, T(0.9 ** t), T(0.999 ** t), T(0.01), T(0.9), T(0.999),
                                     T(1e-8), T(g))
        em = 0.9 * em + 0.1 * g
        ev = 0.999 * ev + 0.001 * g * g
        evh = np.maximum(evh, ev)
        ew = ew - 0.01 * np.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t) * em / (np.sqrt(evh) + 1e-8)
    assert_close(vhat, evh, rtol=1e-4, atol=1e-9)
    assert_close(w, ew, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("centered", [False, True])
def test_rmsprop_formulas(backend, centered):
    w0 = RNG.uniform(-1, 1, (3, 4)).astype(np.float32)
    w, ms_, mom = P(w0, "w"), P(np.ones((3, 4)), "ms"), P(np.zeros((3, 4)), "mom")
    mg = P(np.zeros((3, 4)), "mg")
    ew, ems, emom, emg = w0.astype(np.float64), np.ones((3, 4)), np.zeros((3, 4)), np.zeros((3, 4))
    for g in _grads(4):
        if centered:
            ops.ApplyCenteredRMSProp()(w, mg, ms_, mom, T(g), T(0.01), 0.9, 0.5, 1e-10)
        else:
            ops.ApplyRMSProp()(w, ms_, mom, T(0.01), T(g), 0.9, 0.5, 1e-10)
        emg = 0.9 * emg + 0.1 * g
        ems = 0.9 * ems + 0.1 * g * g
        denom = np.sqrt(ems - emg * emg + 1e-10) if centered else np.sqrt(ems + 1e-10)
        emom = 0.5 * emom + 0.01 * g / denom
        ew = ew - emom
    assert_close(w, ew, rtol=1e-5, atol=1e-6)
    assert_close(mom, emom, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("update_slots", [True, False])
def test_adagrad_formula(backend, update_slots):
    w0 = RNG.uniform(-1, 1, (5,)).astype(np.float32)
    w, accum = P(w0, "w"), P(np.full(5, 0.1), "accum")
    ew, ea = w0.astype(np.float64), np.full(5, 0.1)
    for g in _grads(3, (5,)):
        out = ops.ApplyAdagrad(update_slots=update_slots)(w, accum, T(0.05), T(g))
        if update_slots:
            ea = ea + g * g
        ew = ew - 0.05 * g / np.sqrt(ea)
    assert len(out) == 2
    assert_close(w, ew, rtol=1e-5, atol=1e-6)
    assert_close(accum, ea, rtol=1e-6)


def _lamb_reference(w, m, v, g, lr, b1, b2, eps, decay, t):
    m = b1 * m + (1 - b1) * g
    v = b2 * v + (1 - b2) * g * g
    mh, vh = m / (1 - b1 ** t), v / (1 - b2 ** t)
    w_norm, g_norm = np.linalg.norm(w), np.linalg.norm(g)
    ratio = 1.0
    if w_norm > 0 and g_norm > 0:
        ratio = np.clip(w_norm / np.linalg.norm(mh / np.sqrt(vh + eps) + decay * w), 0, 10)
    return w - ratio * lr * (mh / (np.sqrt(vh) + eps) + decay * w), m, v


def test_lamb_trust_ratio(backend):
    w0 = RNG.uniform(-1, 1, (3, 4)).astype(np.float32)
    w, m, v = P(w0, "w"), P(np.zeros((3, 4)), "m"), P(np.zeros((3, 4)), "v")
    ew, em, ev = w0.astype(np.float64), np.zeros((3, 4)), np.zeros((3, 4))
    for t, g in enumerate(_grads(3), start=1):
        ops.Lamb()(w, m, v, T(0.1), T(0.9), T(0.999), T(1e-6), T(0.01), ms.Tensor(np.array([t], np.int32)), T(g))
        ew, em, ev = _lamb_reference(ew, em, ev, g, 0.1, 0.9, 0.999, 1e-6, 0.01, t)
    assert_close(w, ew, rtol=1e-5, atol=1e-6)


def test_lamb_zero_weight_takes_plain_step(backend):
    w = P(np.zeros(3), "w")
    g = np.array([1.0, -2.0, 0.5])
    ops.Lamb()(w, P(np.zeros(3), "m"), P(np.zeros(3), "v"), 0.1, 0.9, 0.999, 1e-6, 0.0, 1, T(g))
    expected, _, _ = _lamb_reference(np.zeros(3), np.zeros(3), np.zeros(3), g, 0.1, 0.9, 0.999, 1e-6, 0.0, 1)
    assert_close(w, expected, rtol=1e-5)


def test_update_ops_check_their_inputs():
    w = P(np.zeros((2, 2)), "w")
    with pytest.raises(ValueError, match="ApplyAdagrad"):
        ops.ApplyAdagrad()(w, P(np.zeros(3), "a"), 0.1, T(np.zeros((2, 2))))
    with pytest.raises(TypeError, match="ApplyRMSProp"):
        ops.ApplyRMSProp()(w, P(np.ones((2, 2)), "ms"), P(np.zeros((2, 2)), "m"), "0.1", T(np.zeros((2, 2))),
                           0.9, 0.0, 1e-10)
    with pytest.raises(ValueError, match="learning_rate"):
        ops.SGD()(w, T(np.zeros((2, 2))), T(np.ones(3)), P(np.zeros((2, 2)), "a"), 0.9, P(np.ones((2, 2)), "s"))
    with pytest.raises(TypeError, match="global_step"):
        ops.Lamb()(w, w, w, 0.1, 0.9, 0.999, 1e-6, 0.0, "1", T(np.zeros((2, 2))))
    with pytest.raises(TypeError, match="ApplyAdamWithAmsgradV2"):
        ops.ApplyAdamWithAmsgradV2()(ms.Tensor(np.zeros(2, np.int32)), w, w, w, 0.9, 0.9, 0.1, 0.9, 0.9, 1e-8, w)


def test_momentum_and_adam_kernels_after_scalar_rewrite(backend):
    """ApplyMomentum / Adam torch kernels read CPU scalars as numbers: results equal the numpy formulas."""
    w, acc = P([1.0, -1.0], "w"), P([0.5, 0.5], "a")
    ops.ApplyMomentum(use_nesterov=True)(w, acc, T(0.1), T([1.0, 2.0]), T(0.9))
    accum = np.array([0.45 + 1.0, 0.45 + 2.0])
    assert_close(w, np.array([1.0, -1.0]) - 0.1 * (np.array([1.0, 2.0]) + 0.9 * accum))
    w, m, v = P([1.0, 2.0], "w"), P([0.0, 0.0], "m"), P([0.0, 0.0], "v")
    ops.Adam(use_nesterov=True)(w, m, v, T(0.9), T(0.999), T(0.01), 0.9, 0.999, 1e-8, T([0.5, -0.5]))
    em, ev = np.array([0.05, -0.05]), np.array([0.00025, 0.00025])
    step = 0.01 * np.sqrt(1 - 0.999) / (1 - 0.9)
    expected = np.array([1.0, 2.0]) - step * (0.9 * em + 0.1 * np.array([0.5, -0.5])) / (np.sqrt(ev) + 1e-8)
    assert_close(w, expected, rtol=1e-5)


def test_torch_kernels_with_device_scalars(monkeypatch):
    """On CUDA the torch kernels keep scalars as 0-d tensors (no host read). Emulate that on CPU: every update
    must give the same result as with Python-number scalars."""
    pytest.importorskip("torch")
    from openspore.ops.defs import optim_ops, side_effect

    def as_device_scalar(torch, value, like):
        return value.reshape(()).to(like.dtype) if isinstance(value, torch.Tensor) else \
            torch.tensor(value, dtype=like.dtype)

    use_backend("torch")
    rng = np.random.default_rng(5)
    shape = (3, 4)
    cases = [
        (ops.SGD(0.2, 0.01), lambda: [rng.uniform(-1, 1, shape), rng.uniform(-1, 1, shape), 0.1,
                                      np.zeros(shape), 0.9, np.ones(shape)], (0, 3, 5)),
        (ops.SGD(0.0, 0.0, True), lambda: [rng.uniform(-1, 1, shape), rng.uniform(-1, 1, shape), 0.1,
                                           rng.uniform(-1, 1, shape), 0.9, np.zeros(shape)], (0, 3, 5)),
        (ops.SGD(0.5), lambda: [rng.uniform(-1, 1, shape), rng.uniform(-1, 1, shape), 0.1,
                                rng.uniform(-1, 1, shape), 0.0, np.ones(shape)], (0, 3, 5)),
        (ops.AdamWeightDecay(), lambda: [rng.uniform(-1, 1, shape), rng.uniform(-1, 1, shape),
                                         rng.uniform(0.1, 1, shape), 0.01, 0.9, 0.999, 1e-6, 0.1,
                                         rng.uniform(-1, 1, shape)], (0, 1, 2)),
        (ops.ApplyAdamWithAmsgradV2(), lambda: [rng.uniform(-1, 1, shape), rng.uniform(-1, 1, shape),
                                                rng.uniform(0.1, 1, shape), rng.uniform(0.1, 1, shape), 0.81,
                                                0.998, 0.01, 0.9, 0.999, 1e-8, rng.uniform(-1, 1, shape)], (0, 3)),
        (ops.ApplyRMSProp(), lambda: [rng.uniform(-1, 1, shape), rng.uniform(0.5, 2, shape),
                                      rng.uniform(-1, 1, shape), 0.01, rng.uniform(-1, 1, shape), 0.9, 0.5,
                                      1e-10], (0, 2)),
        (ops.ApplyCenteredRMSProp(), lambda: [rng.uniform(-1, 1, shape), rng.uniform(-0.1, 0.1, shape),
                                              rng.uniform(1, 2, shape), rng.uniform(-1, 1, shape),
                                              rng.uniform(-1, 1, shape), 0.01, 0.9, 0.5, 1e-10], (0, 3)),
        (ops.ApplyAdagrad(), lambda: [rng.uniform(-1, 1, shape), rng.uniform(0.1, 1, shape), 0.01,
                                      rng.uniform(-1, 1, shape)], (0, 1)),
        (ops.Lamb(), lambda: [rng.uniform(-1, 1, shape), rng.uniform(-1, 1, shape), rng.uniform(0.1, 1, shape),
                              0.01, 0.9, 0.999, 1e-6, 0.01, 3, rng.uniform(-1, 1, shape)], (0,)),
        (ops.ApplyMomentum(use_nesterov=True), lambda: [rng.uniform(-1, 1, shape), rng.uniform(-1, 1, shape), 0.1,
                                                         rng.uniform(-1, 1, shape), 0.9], (0, 1)),
        (ops.Adam(use_nesterov=True), lambda: [rng.uniform(-1, 1, shape), rng.uniform(-1, 1, shape),
                                               rng.uniform(0.1, 1, shape), 0.81, 0.998, 0.01, 0.9, 0.999, 1e-8,
                                               rng.uniform(-1, 1, shape)], (0, 1, 2)),
    ]
    for prim, make, written in cases:
        values = make()

        def args():
            return [T(v) if isinstance(v, np.ndarray) else ms.Tensor(np.array(v, np.int32 if isinstance(v, int)
                                                                               else np.float32)) for v in values]

        host = args()
        prim(*host)
        with monkeypatch.context() as patch:
            patch.setattr(optim_ops, "t_num", as_device_scalar)
            patch.setattr(side_effect, "t_num", as_device_scalar)
            device = args()
            prim(*device)
        for i in written:
            assert_close(device[i], host[i], rtol=1e-6, atol=1e-7, msg=f"{prim.name} input {i}")


@pytest.mark.parametrize("tensor_scalars", [False, True])
@pytest.mark.parametrize("nesterov", [False, True])
def test_foreach_momentum_matches_the_per_parameter_update_bit_for_bit(backend, nesterov, tensor_scalars):
    rng = np.random.default_rng(3)
    shapes = [(4, 3), (7,), (2, 2, 2)]
    make = lambda: [ms.Tensor(rng.standard_normal(s).astype(np.float32)) for s in shapes]  # noqa: E731
    params, accums, grads = make(), make(), make()
    one = [(ms.Tensor(p.asnumpy()), ms.Tensor(a.asnumpy())) for p, a in zip(params, accums)]
    lr, momentum = (ms.Tensor(np.float32(0.05)), ms.Tensor(np.float32(0.9))) if tensor_scalars else (0.05, 0.9)
    ops.ForeachApplyMomentum(use_nesterov=nesterov)(tuple(params), tuple(accums), lr, tuple(grads), momentum)
    for (p, a), g in zip(one, grads):
        ops.ApplyMomentum(use_nesterov=nesterov)(p, a, lr, g, momentum)
    for (p1, a1), p2, a2 in zip(one, params, accums):
        np.testing.assert_array_equal(p1.asnumpy(), p2.asnumpy())
        np.testing.assert_array_equal(a1.asnumpy(), a2.asnumpy())


def test_momentum_one_pass_is_the_three_kernel_update_and_skips_strided_tensors():
    """The fused momentum kernel (_update_util.momentum_one_pass) runs where it may and gives the multi-tensor
    update's values (bit for bit in the vectorised body, within a bit at the tails); a transposed gradient view,
    which torch's fused kernel would read in the wrong order, takes the multi-tensor path and is exact."""
    torch = pytest.importorskip("torch")
    from openspore.ops.defs._update_util import momentum_one_pass
    rng = np.random.default_rng(5)
    shapes = [(40, 33), (37,)]
    make = lambda: [torch.from_numpy(rng.standard_normal(s).astype(np.float32)) for s in shapes]  # noqa: E731
    params, accums, grads = make(), make(), make()
    want_p, want_a = [p.clone() for p in params], [a.clone() for a in accums]
    torch._foreach_mul_(want_a, 0.9)
    torch._foreach_add_(want_a, grads)
    torch._foreach_add_(want_p, want_a, alpha=-0.05)
    versions = [t._version for t in params + accums]
    assert momentum_one_pass(torch, params, accums, grads, 0.05, 0.9)
    assert all(t._version > v for t, v in zip(params + accums, versions))  # written, as in-place ops tell
    for got, want in zip(params + accums, want_p + want_a):
        np.testing.assert_array_max_ulp(got.numpy(), want.numpy(), maxulp=1)
    assert not momentum_one_pass(torch, params, accums, grads, torch.tensor(0.05), 0.9)  # tensor scalars: no
    assert not momentum_one_pass(torch, params, accums, grads, 0.05, 0.0)  # the kernel refuses momentum 0

    p, a = torch.from_numpy(rng.standard_normal((4, 3)).astype(np.float32)), torch.zeros(4, 3)
    g = torch.from_numpy(rng.standard_normal((3, 4)).astype(np.float32)).t()
    assert not momentum_one_pass(torch, [p], [a], [g], 0.05, 0.9)
    expect = p.numpy() - np.float32(0.05) * g.numpy()
    ops.ForeachApplyMomentum().torch(torch, (p,), (a,), 0.05, (g,), 0.9)
    np.testing.assert_allclose(a.numpy(), g.numpy(), rtol=0, atol=0)
    np.testing.assert_allclose(p.numpy(), expect, rtol=1e-6, atol=1e-7)


def test_foreach_adam_matches_the_per_parameter_update_bit_for_bit(backend):
    rng = np.random.default_rng(4)
    shapes = [(5, 3), (6,)]
    make = lambda: [ms.Tensor(rng.standard_normal(s).astype(np.float32)) for s in shapes]  # noqa: E731
    params, ms_, grads = make(), make(), make()
    vs = [ms.Tensor(np.abs(rng.standard_normal(s)).astype(np.float32)) for s in shapes]
    copies = [[ms.Tensor(t.asnumpy()) for t in group] for group in (params, ms_, vs)]
    hyper = (ms.Tensor(np.float32(0.9 ** 2)), ms.Tensor(np.float32(0.999 ** 2)), ms.Tensor(np.float32(1e-3)),
             0.9, 0.999, 1e-8)
    ops.ForeachAdam()(tuple(params), tuple(ms_), tuple(vs), *hyper, tuple(grads))
    for p, m, v, g in zip(*copies, grads):
        ops.Adam()(p, m, v, *hyper, g)
    for group_a, group_b in zip(copies, (params, ms_, vs)):
        for a, b in zip(group_a, group_b):
            np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())


def test_optimizers_take_the_multi_tensor_path_in_both_modes():
    from openspore.compiler.frontend import api
    net = nn.Dense(3, 2)
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
    grads = tuple(ms.Tensor(np.ones(p.shape, np.float32)) for p in net.trainable_params())
    traced = api.trace(opt, (grads,))
    names = [n.op_name for n in traced.graph.nodes]
    assert names.count("ForeachApplyMomentum") == 1 and "ApplyMomentum" not in names
    before = net.weight.asnumpy().copy()
    opt(grads)  # PyNative: the same foreach primitive
    np.testing.assert_allclose(net.weight.asnumpy(), before - 0.1, rtol=1e-6)
