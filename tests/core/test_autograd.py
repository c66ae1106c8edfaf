"""Autodiff numerics and mechanics on both backends: higher-order gradients, repeated inputs, stop_gradient,
custom backward rules, and the tape (none outside a grad transform; freed and restored afterwards)."""
import gc
import weakref

import numpy as np
import pytest

import openspore as ms
from openspore import ops
from openspore.core import autograd
from openspore.core.autograd import custom_bprop_call
from tests.device import use_backend

from ..conftest import assert_close


def T(values, dtype=np.float32):
    return ms.Tensor(np.array(values, dtype))


def numeric_grad(f, x, eps=1e-6):
    """Central differences of a scalar numpy function f at x (float64)."""
    x = np.array(x, np.float64)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        old = x[i]
        x[i] = old + eps
        plus = f(x)
        x[i] = old - eps
        minus = f(x)
        x[i] = old
        g[i] = (plus - minus) / (2 * eps)
    return g


# ---- first order -----------------------------------------------------------------------------------
def test_fan_out_accumulates(backend):
    x = np.array([1.0, -2.0, 3.0])
    g = ms.grad(lambda t: (t * t + t * 3 - t).sum())(T(x))
    assert_close(g, 2 * x + 2)


def test_broadcasting_gradients_are_summed_to_input_shapes(backend):
    a, b = np.arange(3.0).reshape(3, 1), np.arange(4.0).reshape(1, 4)
    ga, gb = ms.grad(lambda x, y: (x * y + x).sum(), (0, 1))(T(a), T(b))
    assert ga.shape == (3, 1) and gb.shape == (1, 4)
    assert_close(ga, np.full((3, 1), b.sum() + 4))
    assert_close(gb, np.full((1, 4), a.sum()))


def test_matmul_gradients(backend):
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, 3)), rng.standard_normal((3, 4))
    c = rng.standard_normal((2, 4))
    ga, gb = ms.grad(lambda x, y: (ops.matmul(x, y) * T(c, np.float64)).sum(), (0, 1))(T(a, np.float64), T(b, np.float64))
    assert_close(ga, c @ b.T, rtol=1e-12)
    assert_close(gb, a.T @ c, rtol=1e-12)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_gradient_dtype_follows_the_input(backend, dtype):
    g = ms.grad(lambda t: (t * t).sum())(T([1.0, 2.0], dtype))
    assert g.dtype == ms.Tensor(np.zeros(1, dtype)).dtype
    assert_close(g, [2.0, 4.0])


def test_same_tensor_at_two_positions(backend):
    x = T([1.0, 2.0, 3.0])
    ga, gb = ms.grad(lambda a, b: (a * b * b).sum(), (0, 1))(x, x)
    assert_close(ga, [1.0, 4.0, 9.0])           # d/da a*b^2 = b^2
    assert_close(gb, [2.0, 8.0, 18.0])          # d/db a*b^2 = 2ab
    g0 = ms.grad(lambda a, b: (a * b).sum())(x, x)  # only position 0: b is a constant that happens to alias a
    assert_close(g0, [1.0, 2.0, 3.0])


def test_weights_and_inputs_in_a_callable_with_parameters(backend):
    class TinyNet:
        def __init__(self):
            self.w = ms.Parameter(T([[1.0, -1.0], [2.0, 0.5]]), name="w")
            self.b = ms.Parameter(T([0.1, 0.2]), name="b")

        def __call__(self, x):
            h = ops.matmul(x, self.w) + self.b
            return (h * h).sum()

    net = TinyNet()
    x = np.array([[1.0, 2.0], [-1.0, 0.5]])
    (gx, (gw, gb)) = ms.grad(net, 0, [net.w, net.b])(T(x))
    w, b = net.w.asnumpy().astype(np.float64), net.b.asnumpy().astype(np.float64)
    h = x @ w + b
    assert_close(gx, 2 * h @ w.T, rtol=1e-5)
    assert_close(gw, x.T @ (2 * h), rtol=1e-5)
    assert_close(gb, (2 * h).sum(0), rtol=1e-5)


# ---- higher order ------------------------------------------------------------------------------------
def test_second_and_third_derivative_of_cube(backend):
    x = np.array([1.0, -2.0, 0.5])
    cube = lambda t: (t * t * t).sum()  # noqa: E731
    d1 = ms.grad(cube)
    d2 = ms.grad(lambda t: d1(t).sum())
    d3 = ms.grad(lambda t: d2(t).sum())
    assert_close(d1(T(x)), 3 * x ** 2)
    assert_close(d2(T(x)), 6 * x)
    assert_close(d3(T(x)), np.full(3, 6.0))


def test_grad_of_grad_through_matmul_matches_finite_differences(backend):
    rng = np.random.default_rng(1)
    a = rng.standard_normal((3, 3))
    c = rng.standard_normal((2, 3))
    A, C = T(a, np.float64), T(c, np.float64)

    def f(x):
        y = ops.matmul(x, A)
        return (y * y * y).sum()

    g1 = ms.grad(f)

    def h(x):  # a scalar function of the first derivative
        return (g1(x) * C).sum()

    x0 = rng.standard_normal((2, 3))
    analytic = ms.grad(h)(T(x0, np.float64))
    numeric = numeric_grad(lambda v: float(h(T(v, np.float64)).asnumpy()), x0)
    assert_close(analytic, numeric, rtol=1e-5, atol=1e-6)


def test_mixed_second_derivative_with_weights(backend):
    w = ms.Parameter(T([2.0, 3.0], np.float64), name="w")
    x = T([5.0, 7.0], np.float64)
    inner = ms.grad(lambda t: (t * t * w).sum())        # 2 x w
    outer = ms.grad(lambda t: inner(t).sum(), None, [w])  # d/dw sum(2 x w) = 2 x
    (gw,) = outer(x)
    assert_close(gw, [10.0, 14.0])
    assert w._nodes is None


def test_nested_grad_restores_the_outer_links_of_a_parameter():
    w = ms.Parameter(T([1.5]), name="w")
    seen = {}

    def outer(x):
        before = w._nodes
        g = ms.grad(lambda t: (t * w * w).sum(), None, [w])(x)[0]
        seen["same"] = w._nodes is before and before is not None
        return (g * x).sum()

    (gw,) = ms.grad(outer, None, [w])(T([2.0]))
    assert seen["same"]
    assert_close(gw, [2.0 * 2.0 * 2.0])  # d/dw (2*t*w*t) = 2 t^2
    assert w._nodes is None


# ---- stop_gradient, depend ------------------------------------------------------------------------------
def test_stop_gradient(backend):
    x = np.array([1.0, 2.0, 3.0])
    g = ms.grad(lambda t: (t * ops.stop_gradient(t)).sum())(T(x))
    assert_close(g, x)
    g = ms.grad(lambda t: ops.stop_gradient(t * t).sum())(T(x))
    assert_close(g, np.zeros(3))


def test_stop_gradient_primitive_and_tuples(backend):
    x = T([1.0, 2.0])
    a, b = ops.stop_gradient((x * 2, [x * 3]))[0], ops.stop_gradient((x * 2, [x * 3]))[1][0]
    assert_close(a, [2.0, 4.0]) and assert_close(b, [3.0, 6.0])
    assert ops.stop_gradient(5) == 5

    def f(t):
        u, (v,) = ops.stop_gradient((t * t, (t * 4,)))
        return (u + v + t * ops.StopGradient()(t)).sum()
    assert_close(ms.grad(f)(x), [1.0, 2.0])


def test_stop_gradient_on_a_weight(backend):
    w = ms.Parameter(T([3.0]), name="w")
    gx, (gw,) = ms.grad(lambda t: (t * ops.stop_gradient(w)).sum(), 0, [w])(T([2.0]))
    assert_close(gx, [3.0])
    assert_close(gw, [0.0])


def test_depend_passes_the_gradient_to_value_only(backend):
    gx, gy = ms.grad(lambda x, y: ops.depend(x * 2, y * 5).sum(), (0, 1))(T([1.0, 2.0]), T([3.0]))
    assert_close(gx, [2.0, 2.0])
    assert_close(gy, [0.0])


def test_assign_inside_grad_is_not_differentiated(backend):
    w = ms.Parameter(T([1.0, 1.0]), name="w")

    def f(x):
        ops.assign(w, x * 10)  # a write; the loss below reads x only
        return (x * x).sum()
    g = ms.grad(f)(T([1.0, 2.0]))
    assert_close(g, [2.0, 4.0])
    assert_close(w, [10.0, 20.0])


# ---- custom backward rules ---------------------------------------------------------------------------------
def test_custom_bprop_replaces_the_gradient(backend):
    calls = []

    def fwd(x, y):
        return x * y

    def bprop(x, y, out, dout):
        calls.append((x.shape, out.shape, dout.shape))
        return dout * 100, dout * 0 + 7

    x, y = T([1.0, 2.0]), T([3.0, 4.0])
    gx, gy = ms.grad(lambda a, b: custom_bprop_call(fwd, bprop, (a, b)).sum(), (0, 1))(x, y)
    assert_close(gx, [100.0, 100.0])
    assert_close(gy, [7.0, 7.0])
    assert calls == [((2,), (2,), (2,))]
    assert_close(custom_bprop_call(fwd, bprop, (x, y)), [3.0, 8.0])  # no transform: just the forward


def test_custom_bprop_of_an_identity_function_and_second_order(backend):
    def bprop(x, out, dout):
        return (dout * x * 3,)  # pretend d/dx = 3x
    g1 = ms.grad(lambda t: custom_bprop_call(lambda a: a, bprop, (t,)).sum())
    x = T([1.0, 2.0])
    assert_close(g1(x), [3.0, 6.0])
    assert_close(ms.grad(lambda t: g1(t).sum())(x), [3.0, 3.0])


# ---- the tape ----------------------------------------------------------------------------------------------
def test_no_tape_outside_a_grad_transform():
    x, y = T([1.0, 2.0]), T([3.0, 4.0])
    z = (x * y + x).sum()
    assert x._nodes is None and z._nodes is None
    assert not autograd.ACTIVE


def test_inside_a_transform_only_dependent_tensors_are_tracked():
    w = ms.Parameter(T([2.0, 2.0]), name="w")
    frozen = ms.Parameter(T([5.0, 5.0]), name="frozen")
    seen = {}

    def f(x):
        const = T([1.0, 1.0]) * 3
        seen["const"] = const._nodes
        seen["frozen"] = (frozen * 2)._nodes
        seen["zeros"] = ops.zeros_like(x)._nodes           # non-differentiable op on a tracked input
        seen["stopped"] = ops.stop_gradient(x * 2)._nodes
        seen["dep"] = (x * const)._nodes
        seen["weight"] = (w * const)._nodes
        return (x * const * w).sum()

    value, (gx, (gw,)) = ms.value_and_grad(f, 0, [w])(T([1.0, 2.0]))
    assert seen["const"] is None and seen["frozen"] is None
    assert seen["zeros"] is None and seen["stopped"] is None
    assert seen["dep"] is not None and seen["weight"] is not None
    assert value._nodes is None and gx._nodes is None and gw._nodes is None
    assert w._nodes is None and frozen._nodes is None
    assert not autograd.ACTIVE


def test_graph_is_freed_when_grad_returns():
    refs = []

    def f(x):
        h = x * x
        refs.append(weakref.ref(next(iter(h._nodes.values()))[0]))
        return (h * 3).sum()

    gc.collect()
    gc.disable()  # the graph must go by reference counting alone, not wait for the cycle collector
    try:
        g = ms.grad(f)(T([1.0, 2.0]))
        assert refs[0]() is None
    finally:
        gc.enable()
    assert_close(g, [6.0, 12.0])


def test_inputs_and_parameters_keep_no_links_after_errors():
    w = ms.Parameter(T([1.0]), name="w")
    x = T([1.0])

    def bad(t):
        _ = t * w
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        ms.grad(bad, 0, [w])(x)
    assert w._nodes is None and x._nodes is None
    assert not autograd.ACTIVE


def test_grad_works_across_backends_for_the_same_tensors():
    x = T([1.0, 2.0])
    use_backend("numpy")
    g_np = ms.grad(lambda t: (t * t * t).sum())(x)
    use_backend("torch")
    g_t = ms.grad(lambda t: (t * t * t).sum())(x)
    assert_close(g_np, [3.0, 12.0])
    assert_close(g_t, [3.0, 12.0])
