"""Replayed backward passes (core/backward_replay.py) give bitwise the gradients of a fresh walk: jacrev's rows,
repeated vjp_fn calls, NaN/inf at degenerate points; custom backward rules still run on every call; a changed
graph is walked again."""
import numpy as np
import pytest

import openspore as ms
from openspore import ops
from openspore.core import backward_replay
from openspore.core.autograd import custom_bprop_call


@pytest.fixture
def walk_only():
    """fn(*args) with every vjp_fn call walking the graph (the reference the replay must match)."""
    def run(fn, *args):
        backward_replay.ENABLED[0] = False
        try:
            return fn(*args)
        finally:
            backward_replay.ENABLED[0] = True
    return run


def _bits(value):
    if isinstance(value, (tuple, list)):
        return [_bits(v) for v in value]
    a = value.asnumpy()
    return (a.dtype.str, a.shape, a.tobytes())


def _forecast(weight, bias, x):
    return ops.dense(x, weight, bias).tanh()


def _replays(fn, *args):
    before = backward_replay.REPLAYED[0]
    out = fn(*args)
    return out, backward_replay.REPLAYED[0] - before


def test_batched_hessian_is_bitwise_the_walked_one(walk_only):
    ms.set_seed(3)
    w, b, x = ops.randn(9, 6), ops.randn(9), ops.randn(4, 6)
    hessian = ms.vmap(ms.jacrev(ms.jacrev(_forecast, grad_position=2), grad_position=2), in_axes=(None, None, 0))
    got, replayed = _replays(hessian, w, b, x)
    assert replayed == 4 * (9 * 6 - 2)  # per sample: one walk, one capture, the other rows replayed
    assert _bits(got) == _bits(walk_only(hessian, w, b, x))


def test_hessian_matches_the_closed_form():
    # d2 tanh(Wx+b)_o / dx_i dx_j = -2 t_o (1 - t_o^2) W_oi W_oj
    rng = np.random.default_rng(0)
    w, b, x = (rng.standard_normal(s) for s in ((5, 4), (5,), (4,)))
    got = ms.jacrev(ms.jacrev(_forecast, grad_position=2), grad_position=2)(
        ms.Tensor(w), ms.Tensor(b), ms.Tensor(x)).asnumpy()
    t = np.tanh(w @ x + b)
    want = (-2 * t * (1 - t * t))[:, None, None] * w[:, :, None] * w[:, None, :]
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_several_outputs_and_positions_bitwise(walk_only, backend):
    def f(x, y):
        return (x * y).sin(), (x / y).exp().sum(), ops.matmul(x.reshape(2, 3), y.reshape(3, 2))
    x, y = ms.Tensor(np.linspace(-1, 1, 6, dtype=np.float32)), ms.Tensor(np.linspace(0.5, 2, 6, dtype=np.float32))
    jac = ms.jacrev(f, grad_position=(0, 1))
    got, replayed = _replays(jac, x, y)
    assert replayed > 0
    assert _bits(got) == _bits(walk_only(jac, x, y))


def test_nan_and_inf_of_a_degenerate_point_survive_the_replay(walk_only, backend):
    x = ms.Tensor(np.array([0.0, 1.0, 4.0], np.float32))
    got, replayed = _replays(ms.jacrev(ops.sqrt), x)
    assert replayed == 1
    # d sqrt / dx at 0 is inf; the rows whose one-hot cotangent is 0 there give 0 / 0 = NaN (as MindSpore)
    want = np.array([[np.inf, 0, 0], [np.nan, 0.5, 0], [np.nan, 0, 0.25]], np.float32)
    np.testing.assert_array_equal(got.asnumpy(), want)
    assert _bits(got) == _bits(walk_only(ms.jacrev(ops.sqrt), x))
    second, replayed = _replays(ms.jacrev(ms.jacrev(ops.sqrt)), x)
    assert replayed > 0 and np.isnan(second.asnumpy()).sum() == 9
    assert _bits(second) == _bits(walk_only(ms.jacrev(ms.jacrev(ops.sqrt)), x))


def test_repeated_vjp_fn_calls_return_fresh_equal_gradients(walk_only):
    x = ms.Tensor(np.array([0.3, -1.2, 2.0, 0.0], np.float32))
    _, vjp_fn = ms.vjp(lambda t: (t * 3).tanh() * t, x)
    rows = [vjp_fn(ms.Tensor(np.eye(4, dtype=np.float32)[i]))[0] for i in range(4)]
    _, ref_fn = ms.vjp(lambda t: (t * 3).tanh() * t, x)
    reference = walk_only(lambda: [ref_fn(ms.Tensor(np.eye(4, dtype=np.float32)[i]))[0] for i in range(4)])
    assert _bits(rows) == _bits(reference)
    assert len({id(r) for r in rows}) == 4
    rows[2][0] = 100.0  # a gradient is the caller's: writing into it changes no later call
    again = vjp_fn(ms.Tensor(np.eye(4, dtype=np.float32)[2]))[0]
    assert _bits(again) == _bits(reference[2])


def test_custom_bprop_runs_on_every_row_and_is_never_replayed():
    calls = []

    def bprop(x, out, dout):
        calls.append(1)
        return (dout * 10,)

    def f(x):
        return custom_bprop_call(lambda a: a * 2, bprop, (x,)) * x

    x = ms.Tensor(np.array([1.0, 2.0, 3.0], np.float32))
    got, replayed = _replays(ms.jacrev(f), x)
    assert replayed == 0 and len(calls) == 3
    # d/dx (g(x) * x) with g's gradient replaced by 10: 10 * x on the diagonal (cotangent times x) + g(x)
    np.testing.assert_array_equal(got.asnumpy(), np.diag([12.0, 24.0, 36.0]).astype(np.float32))


def test_a_replaced_parameter_value_is_walked_again(walk_only):
    w = ms.Parameter(ms.Tensor(np.array([1.0, 2.0], np.float32)), name="w")
    x = ms.Tensor(np.array([3.0, 4.0], np.float32))
    _, vjp_fn = ms.vjp(lambda t: (t * w).sin(), x)
    cot = ms.Tensor(np.array([1.0, 0.5], np.float32))
    for _ in range(3):
        vjp_fn(cot)
    assert backward_replay.REPLAYED[0] > 0
    w.set_data(ms.Tensor(np.array([-5.0, 7.0], np.float32)))  # a new array: the captured calls read the old one
    before = backward_replay.REPLAYED[0]
    got = vjp_fn(cot)[0]
    assert backward_replay.REPLAYED[0] == before
    assert _bits(got) == _bits(walk_only(vjp_fn, cot)[0])


def test_no_replay_while_an_outer_transform_records():
    # the inner jacrev's rows run under the outer one: their backward ops must be recorded, so they walk
    x = ms.Tensor(np.array([0.5, -0.5], np.float32))
    inner = ms.jacrev(lambda t: t.tanh() * t)
    before = backward_replay.REPLAYED[0]
    ms.grad(lambda t: inner(t).sum())(x)
    assert backward_replay.REPLAYED[0] == before


def test_a_subclass_overriding_a_replayable_rule_runs_its_rule_on_every_row():
    calls = []

    class CountingMul(ops.Mul):
        def bprop(self, x, y, out, dout):
            calls.append(1)
            return super().bprop(x, y, out, dout)

    x = ms.Tensor(np.array([1.0, 2.0, 3.0], np.float32))
    got, replayed = _replays(ms.jacrev(lambda t: CountingMul()(t, t)), x)
    assert replayed == 0 and len(calls) == 3
    np.testing.assert_array_equal(got.asnumpy(), np.diag([2.0, 4.0, 6.0]).astype(np.float32))
