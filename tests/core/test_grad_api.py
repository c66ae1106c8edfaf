"""The autodiff API contract (facts §1.11): argument handling and the structure of what grad, value_and_grad,
GradOperation, vjp and jvp return. Numerics of the backward rules live in test_autograd.py."""
import numpy as np
import pytest

import openspore as ms
from openspore import ops

from ..conftest import assert_close


def T(values, dtype=np.float32):
    return ms.Tensor(np.array(values, dtype))


X = [1.0, 2.0, 3.0]
Y = [4.0, 5.0, 6.0]


def is_tensor(v):
    return type(v) is ms.Tensor


# ---- grad_position -------------------------------------------------------------------------------
def test_default_position_is_first_input_and_returns_a_single_tensor():
    g = ms.grad(lambda x, y: (x * y).sum())(T(X), T(Y))
    assert is_tensor(g)
    assert_close(g, Y)


def test_int_position_selects_that_input():
    g = ms.grad(lambda x, y: (x * y * y).sum(), grad_position=1)(T(X), T(Y))
    assert is_tensor(g)
    assert_close(g, 2 * np.array(X) * np.array(Y))


def test_tuple_position_returns_a_tuple_in_the_given_order():
    f = lambda x, y: (x * x * y).sum()  # noqa: E731
    g = ms.grad(f, grad_position=(1, 0))(T(X), T(Y))
    assert type(g) is tuple and len(g) == 2
    assert_close(g[0], np.square(X))
    assert_close(g[1], 2 * np.array(X) * np.array(Y))


def test_one_element_tuple_position_returns_the_bare_gradient():
    # MindSpore 2.10 unwraps (0,) as it does 0: grad(f, (0,))(x, y) is a Tensor, not (dx,)
    g = ms.grad(lambda x, y: (x * y).sum(), grad_position=(0,))(T(X), T(Y))
    assert isinstance(g, ms.Tensor)
    assert_close(g, Y)


def test_grad_position_and_weights_both_none_is_a_value_error():
    with pytest.raises(ValueError, match=r"`grad_position` and `weight` can not be None at the same time\."):
        ms.grad(lambda x: x, grad_position=None, weights=None)
    with pytest.raises(ValueError, match="can not be None at the same time"):
        ms.value_and_grad(lambda x: x, grad_position=None)


def test_bad_grad_position_type_is_rejected():
    with pytest.raises(TypeError, match="grad_position"):
        ms.grad(lambda x: x.sum(), grad_position="0")(T(X))


def test_grad_position_out_of_range():
    with pytest.raises(ValueError, match="grad_position 3 is out of range"):
        ms.grad(lambda x, y: (x * y).sum(), grad_position=3)(T(X), T(Y))


def test_unused_input_gets_zeros_of_its_shape_and_dtype():
    g = ms.grad(lambda x, y: (x * 2).sum(), grad_position=(0, 1))(T(X), T([[1.0, 2.0]], np.float64))
    assert_close(g[0], [2.0, 2.0, 2.0])
    assert g[1].shape == (1, 2) and g[1].dtype == ms.float64
    assert_close(g[1], [[0.0, 0.0]])


def test_output_independent_of_all_inputs_gives_zeros():
    c = T([1.0, 1.0, 1.0])
    g = ms.grad(lambda x: (c * 3).sum())(T(X))
    assert_close(g, [0.0, 0.0, 0.0])


# ---- weights -------------------------------------------------------------------------------------
def _linear():
    w = ms.Parameter(T([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]), name="w")
    b = ms.Parameter(T([0.5, -0.5]), name="b")

    def net(x):
        return (ops.matmul(x, w) + b).sum()
    return net, w, b


def test_weights_only_returns_a_tuple_of_weight_grads_in_weights_order():
    net, w, b = _linear()
    x = T([[1.0, 2.0, 3.0]])
    g = ms.grad(net, grad_position=None, weights=[b, w])(x)
    assert type(g) is tuple and len(g) == 2
    assert_close(g[0], [1.0, 1.0])
    assert_close(g[1], [[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]])


def test_parameter_tuple_weights():
    net, w, b = _linear()
    g = ms.grad(net, None, ms.ParameterTuple([w, b]))(T([[1.0, 0.0, 2.0]]))
    assert_close(g[0], [[1.0, 1.0], [0.0, 0.0], [2.0, 2.0]])
    assert_close(g[1], [1.0, 1.0])


def test_single_parameter_as_weights():
    net, w, b = _linear()
    g = ms.grad(net, None, b)(T([[1.0, 0.0, 2.0]]))
    assert type(g) is tuple and len(g) == 1
    assert_close(g[0], [1.0, 1.0])


def test_int_position_and_weights_returns_tensor_and_tuple():
    net, w, b = _linear()
    x = T([[1.0, 2.0, 3.0]])
    gx, gw = ms.grad(net, 0, [w, b])(x)
    assert is_tensor(gx)
    assert_close(gx, [[3.0, 7.0, 11.0]])  # row sums of w
    assert type(gw) is tuple and len(gw) == 2
    assert_close(gw[1], [1.0, 1.0])


def test_tuple_position_and_weights_returns_two_tuples():
    w = ms.Parameter(T([2.0]), name="w")
    gi, gw = ms.grad(lambda x, y: (x * y * w).sum(), (0, 1), [w])(T([3.0]), T([5.0]))
    assert type(gi) is tuple and type(gw) is tuple
    assert_close(gi[0], [10.0])
    assert_close(gi[1], [6.0])
    assert_close(gw[0], [15.0])


def test_weights_must_be_parameters():
    with pytest.raises(TypeError, match="Parameter"):
        ms.grad(lambda x: x.sum(), None, [T([1.0])])


def test_unused_weight_gets_zeros():
    w = ms.Parameter(T([1.0, 2.0]), name="unused")
    g = ms.grad(lambda x: (x * x).sum(), 0, [w])(T(X))
    assert_close(g[0], 2 * np.array(X))
    assert_close(g[1][0], [0.0, 0.0])


def test_parameter_not_listed_in_weights_is_a_constant():
    w = ms.Parameter(T([3.0]), name="w")
    g = ms.grad(lambda x: (x * w).sum())(T([2.0]))
    assert_close(g, [3.0])
    assert w._nodes is None


# ---- outputs: has_aux, multiple outputs ------------------------------------------------------------
def test_multi_output_without_has_aux_sums_all_outputs():
    g = ms.grad(lambda x, y: ((x * y).sum(), x + 1))(T(X), T(Y))
    assert_close(g, np.array(Y) + 1)


def test_grad_has_aux_differentiates_only_the_first_output():
    def f(x, y):
        return (x * y).sum(), x + 100, y * 2
    grads, aux = ms.grad(f, grad_position=(0, 1), has_aux=True)(T(X), T(Y))
    assert_close(grads[0], Y)
    assert_close(grads[1], X)
    assert type(aux) is tuple and len(aux) == 2
    assert_close(aux[0], np.array(X) + 100)
    assert_close(aux[1], np.array(Y) * 2)


def test_grad_has_aux_single_aux_is_a_one_tuple():
    g, aux = ms.grad(lambda x: ((x * x).sum(), x - 1), has_aux=True)(T(X))
    assert is_tensor(g)
    assert_close(g, 2 * np.array(X))
    assert type(aux) is tuple and len(aux) == 1
    assert_close(aux[0], np.array(X) - 1)


def test_value_and_grad_single_output():
    value, g = ms.value_and_grad(lambda x: (x * x).sum())(T(X))
    assert is_tensor(value) and value.shape == ()
    assert float(value) == pytest.approx(14.0)
    assert_close(g, 2 * np.array(X))


def test_value_and_grad_has_aux_returns_all_outputs_as_value():
    net, w, b = _linear()

    def forward(x):
        logits = ops.matmul(x, w) + b
        return logits.sum(), logits
    (loss, logits), grads = ms.value_and_grad(forward, None, [w, b], has_aux=True)(T([[1.0, 1.0, 1.0]]))
    assert float(loss) == pytest.approx(9.0 + 0.5 + 12.0 - 0.5)
    assert_close(logits, [[9.5, 11.5]])
    assert type(grads) is tuple and len(grads) == 2
    assert_close(grads[1], [1.0, 1.0])


def test_value_and_grad_multi_output_without_aux():
    (a, b), g = ms.value_and_grad(lambda x: ((x * x).sum(), x * 3))(T(X))
    assert float(a) == pytest.approx(14.0)
    assert_close(b, np.array(X) * 3)
    assert_close(g, 2 * np.array(X) + 3)


def test_has_aux_requires_a_tuple_output():
    with pytest.raises(ValueError, match="has_aux"):
        ms.grad(lambda x: (x * x).sum(), has_aux=True)(T(X))


# ---- return_ids, sens_param --------------------------------------------------------------------------
def test_return_ids_with_int_position():
    pos, g = ms.grad(lambda x, y: (x * y).sum(), 1, return_ids=True)(T(X), T(Y))
    assert pos == 1
    assert_close(g, X)


def test_return_ids_with_positions_and_weights():
    w = ms.Parameter(T([2.0]), name="scale")
    gi, gw = ms.grad(lambda x, y: (x * y * w).sum(), (0, 1), [w], return_ids=True)(T([3.0]), T([5.0]))
    assert [p for p, _ in gi] == [0, 1]
    assert_close(gi[0][1], [10.0])
    assert gw[0][0] == "scale"
    assert_close(gw[0][1], [15.0])


def test_sens_param_scales_the_output_gradient():
    sens = T([1.0, 10.0, 100.0])
    g = ms.grad(lambda x: x * x, sens_param=True)(T(X), sens)
    assert_close(g, 2 * np.array(X) * np.array([1.0, 10.0, 100.0]))


def test_sens_param_with_value_and_grad_and_tuple_outputs():
    s1, s2 = T(2.0), T([1.0, 0.0, -1.0])
    (v1, v2), g = ms.value_and_grad(lambda x: ((x * x).sum(), x * 3), sens_param=True)(T(X), (s1, s2))
    assert float(v1) == pytest.approx(14.0)
    assert_close(g, 2 * 2 * np.array(X) + 3 * np.array([1.0, 0.0, -1.0]))


def test_sens_count_mismatch():
    with pytest.raises(ValueError, match="sens"):
        ms.grad(lambda x: (x.sum(), x), sens_param=True)(T(X), T(1.0))


# ---- GradOperation -----------------------------------------------------------------------------------
W0, B0 = [0.5, 0.25, 2.0], [1.0]


def _go_setup():
    w = ms.Parameter(T(W0), name="w")
    b = ms.Parameter(T(B0), name="b")

    def f(x, y):
        return (x * y * w).sum() + b.sum() * 3
    return f, ms.ParameterTuple([w, b])


@pytest.mark.parametrize("get_all", [False, True])
@pytest.mark.parametrize("get_by_list", [False, True])
@pytest.mark.parametrize("sens_param", [False, True])
def test_grad_operation_combinations(get_all, get_by_list, sens_param):
    f, params = _go_setup()
    x, y = np.array(X), np.array(Y)
    scale = 2.0 if sens_param else 1.0
    args = (T(X), T(Y)) + ((T(scale),) if sens_param else ())
    op = ops.GradOperation(get_all=get_all, get_by_list=get_by_list, sens_param=sens_param)
    out = op(f, params)(*args) if get_by_list else op(f)(*args)
    dx, dy = scale * y * W0, scale * x * W0
    dw, db = scale * x * y, scale * np.array([3.0])
    if get_all and get_by_list:
        (gx, gy), (gw, gb) = out
        for got, want in ((gx, dx), (gy, dy), (gw, dw), (gb, db)):
            assert_close(got, want)
    elif get_by_list:
        assert type(out) is tuple and len(out) == 2
        assert_close(out[0], dw)
        assert_close(out[1], db)
    elif get_all:
        assert type(out) is tuple and len(out) == 2
        assert_close(out[0], dx)
        assert_close(out[1], dy)
    else:
        assert is_tensor(out)
        assert_close(out, dx)


def test_grad_operation_get_by_list_without_weights():
    # MindSpore 2.10: a plain function has no weights (empty tuple); a Cell in PyNative mode gives the
    # gradients of its trainable parameters
    assert ops.GradOperation(get_by_list=True)(lambda x: x.sum())(T(X)) == ()

    class Scale(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = ms.Parameter(T(np.array([2.0, 3.0], np.float32)), name="w")

        def construct(self, x):
            return (self.w * x).sum()

    ms.set_context(mode=ms.PYNATIVE_MODE)
    (dw,) = ops.GradOperation(get_by_list=True)(Scale())(T(np.array([4.0, 5.0], np.float32)))
    assert dw.asnumpy().tolist() == [4.0, 5.0]


def test_grad_operation_is_exported_on_the_1x_paths():
    from openspore.ops import composite as C
    assert C.GradOperation is ops.GradOperation


# ---- vjp / jvp -----------------------------------------------------------------------------------------
def test_vjp_returns_outputs_and_a_pullback():
    out, vjp_fn = ms.vjp(lambda x, y: x * y, T(X), T(Y))
    assert_close(out, np.array(X) * np.array(Y))
    gx, gy = vjp_fn(T([1.0, 0.0, 2.0]))
    assert_close(gx, np.array(Y) * [1.0, 0.0, 2.0])
    assert_close(gy, np.array(X) * [1.0, 0.0, 2.0])
    gx2, _ = vjp_fn(T([1.0, 1.0, 1.0]))  # a pullback can be called again
    assert_close(gx2, Y)


def test_vjp_single_input_returns_a_one_tuple():
    _, vjp_fn = ms.vjp(lambda x: x * x * x, T(X))
    g = vjp_fn(T([1.0, 1.0, 1.0]))
    assert type(g) is tuple and len(g) == 1 and is_tensor(g[0])  # MindSpore's (dx,)
    assert_close(g[0], 3 * np.square(X))


def test_vjp_has_aux():
    out, vjp_fn, aux = ms.vjp(lambda x: (x * 2, x + 7), T(X), has_aux=True)
    assert_close(out, np.array(X) * 2)
    assert is_tensor(aux)  # one aux output comes back as itself, several as a tuple
    assert_close(aux, np.array(X) + 7)
    assert_close(vjp_fn(T([1.0, 1.0, 1.0]))[0], [2.0, 2.0, 2.0])
    _, _, aux2 = ms.vjp(lambda x: (x * 2, x + 7, x - 7), T(X), has_aux=True)
    assert type(aux2) is tuple and len(aux2) == 2
    assert_close(aux2[1], np.array(X) - 7)


def test_vjp_with_weights():
    w = ms.Parameter(T([2.0, 3.0, 4.0]), name="w")
    _, vjp_fn = ms.vjp(lambda x: x * w, T(X), weights=[w])
    (gx,), (gw,) = vjp_fn(T([1.0, 1.0, 1.0]))
    assert_close(gx, [2.0, 3.0, 4.0])
    assert_close(gw, X)
    assert w._nodes is None


def test_jvp_single_input():
    out, tangent = ms.jvp(lambda x: x * x * x, T(X), T([1.0, 0.0, 2.0]))
    assert_close(out, np.power(X, 3))
    assert_close(tangent, 3 * np.square(X) * [1.0, 0.0, 2.0])


def test_jvp_two_inputs():
    out, tangent = ms.jvp(lambda x, y: x * y, (T(X), T(Y)), (T([1.0, 0.0, 1.0]), T([1.0, 1.0, 1.0])))
    assert_close(out, np.array(X) * np.array(Y))
    assert_close(tangent, np.array(Y) * [1.0, 0.0, 1.0] + np.array(X))


def test_jvp_has_aux():
    out, tangent, aux = ms.jvp(lambda x: (x * x, x - 1), T(X), T([1.0, 1.0, 1.0]), has_aux=True)
    assert_close(out, np.square(X))
    assert_close(tangent, 2 * np.array(X))
    assert_close(aux, np.array(X) - 1)  # a single aux output comes back as itself


def test_autodiff_functions_are_exported():
    for name in ("grad", "value_and_grad", "vjp", "jvp"):
        assert getattr(ms, name) is getattr(ops, name)


def test_grad_leaves_non_tensor_inputs_out():
    """MindSpore differentiates Tensor inputs only: a Python number among grad_position is dropped, and one
    gradient left comes back bare, none as ()."""
    f = lambda x, y, z: x + y + z  # noqa: E731
    x, z = ms.Tensor([1.0]), ms.Tensor([3.0])
    gx, gz = ms.grad(f, grad_position=(0, 1, 2))(x, 2, z)
    assert gx.asnumpy().tolist() == [1.0] and gz.asnumpy().tolist() == [1.0]
    assert ms.grad(f, grad_position=(1, 2))(x, 2, z).asnumpy().tolist() == [1.0]
    assert ms.grad(f, grad_position=1)(x, 2, z) == ()
