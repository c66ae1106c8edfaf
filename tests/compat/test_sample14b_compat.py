"""Behaviours found by the fourteenth sample of MindSpore's own tests (tests/ut/python: ops, nn, pipeline, ir,
train, dataset), each checked on MindSpore 2.10 first; the file also passes there with `openspore` renamed.

Context keys MindSpore still accepts, Jvp/Vjp's `v` structure, the graph compiler's limits (nested list/tuple
literals, `for` loops unrolled against the call depth), the dataset engine Tensor's views, and the error types of
the dataset config setters and of `Model.train`'s arguments.
"""
import numpy as np
import pytest

import openspore._c_dataengine as cde
import openspore.dataset as ds
from openspore import Model, Tensor, context, jit, nn
from openspore.nn.grad import Jvp, Vjp


# ---- context keys ---------------------------------------------------------------------------------------------

def test_deprecated_context_keys_are_accepted_but_not_returned():
    context.set_context(enable_sparse=True)
    context.set_context(enable_sparse=False)
    with pytest.raises(ValueError):
        context.get_context("enable_sparse")


def test_removed_context_key_names_its_replacement():
    with pytest.raises(ValueError, match="removed"):
        context.set_context(grad_for_scalar=True)


def test_profiling_and_scope_context_keys_have_defaults_and_types():
    assert context.get_context("profiling_options") == "training_trace"
    assert context.get_context("reserve_class_name_in_scope") is True
    assert context.get_context("support_binary") is False
    context.set_context(support_binary=True)
    assert context.get_context("support_binary") is True
    context.set_context(support_binary=False)
    with pytest.raises(TypeError):
        context.set_context(support_binary=1)
    with pytest.raises(TypeError):
        context.set_context(profiling_options=1)


# ---- nn.grad.Jvp / Vjp ----------------------------------------------------------------------------------------

class _Cube(nn.Cell):
    def construct(self, x):
        return x ** 3


class _TwoOutputs(nn.Cell):
    def construct(self, x):
        return x ** 3, 2 * x


class _Sum(nn.Cell):
    def construct(self, x, y):
        return 2 * x + 3 * y


_X = Tensor(np.array([[1, 2], [3, 4]], np.float32))
_V = Tensor(np.ones((2, 2), np.float32))


def test_jvp_v_follows_the_inputs():
    with pytest.raises(TypeError):
        Jvp(_Cube())(_X, (_V,))       # one input: v is a Tensor
    with pytest.raises(TypeError):
        Jvp(_Sum())(_X, _X, _V)       # two inputs: v is a tuple
    _, tangent = Jvp(_Sum())(_X, _X, (_V, _V))
    np.testing.assert_allclose(tangent.asnumpy(), np.full((2, 2), 5.0))


def test_vjp_v_follows_the_output():
    with pytest.raises(TypeError):
        Vjp(_Cube())(_X, (_V,))       # one output: v is a Tensor
    with pytest.raises(TypeError):
        Vjp(_TwoOutputs())(_X, _V)    # two outputs: v is a tuple
    _, grad = Vjp(_TwoOutputs())(_X, (_V, _V))
    np.testing.assert_allclose(grad.asnumpy(), 3 * _X.asnumpy() ** 2 + 2)


# ---- graph mode: nested list/tuple literals -------------------------------------------------------------------

@jit
def _six_levels():
    return [1, [2, [3, [4, [5, [6]]]]]]


@jit
def _seven_levels():
    return [1, [2, [3, [4, [5, [6, [7]]]]]]]


@jit
def _seven_tuple_levels():
    return (1, (2, (3, (4, (5, (6, (7,)))))))


@jit
def _seven_levels_through_a_variable():
    inner = [1, [2, [3, [4, [5, [6]]]]]]
    outer = [inner]
    return outer[0]


def test_literals_nested_deeper_than_six_levels_are_refused():
    assert _six_levels() == [1, [2, [3, [4, [5, [6]]]]]]
    for fn in (_seven_levels, _seven_tuple_levels):
        with pytest.raises(RuntimeError, match="nesting is not allowed more than 6 levels"):
            fn()
    # only literal displays count: a list built around a variable is fine
    assert _seven_levels_through_a_variable() == [1, [2, [3, [4, [5, [6]]]]]]


@jit
def _nine_iterations(x):
    for i in range(1, 10):
        x = x + i
    return x


def test_graph_for_loop_is_unrolled_against_the_call_depth_limit():
    x = Tensor(np.ones(2, np.float32))
    old = context.get_context("max_call_depth")
    try:
        context.set_context(max_call_depth=20)
        with pytest.raises(RuntimeError, match="Exceed function call depth limit 20"):
            _nine_iterations(x)
        context.set_context(max_call_depth=25)
        np.testing.assert_allclose(_nine_iterations(x).asnumpy(), [46.0, 46.0])
    finally:
        context.set_context(max_call_depth=old)


# ---- the dataset engine Tensor --------------------------------------------------------------------------------

def test_engine_tensor_shares_memory_and_gives_views():
    x = np.array([1, 2, 3, 4, 5])
    t = cde.Tensor(x)
    view = np.array(t, copy=False)
    view[0] = 0
    np.testing.assert_array_equal(t.as_array(), [0, 2, 3, 4, 5])
    assert t.as_array().__array_interface__["data"] == view.__array_interface__["data"]
    copied = np.array(t)
    copied[1] = 9
    assert t.as_array()[1] == 2
    assert t.type() == cde.DataType("int64")
    np.testing.assert_array_equal(np.array(cde.Tensor(x.reshape(5, 1)[::2, 0]), copy=False), [0, 3, 5])


def test_engine_tensor_shape_known():
    assert cde.TensorShape([2, 3]).is_known()
    assert cde.TensorShape([]).is_known()
    assert not cde.TensorShape([2, -1]).is_known()
    assert cde.TensorShape([2, -1]).as_list() == [2, -1]


# ---- dataset config setters -----------------------------------------------------------------------------------

@pytest.mark.parametrize("setter", ["set_autotune_interval", "set_callback_timeout",
                                    "set_monitor_sampling_interval", "set_multiprocessing_timeout_interval"])
def test_config_setters_type_then_range(setter):
    fn = getattr(ds.config, setter)
    for wrong_type in (2.5, "3", True):
        with pytest.raises(TypeError):
            fn(wrong_type)
    with pytest.raises(ValueError):
        fn(-5)


def test_autotune_rejects_an_empty_json_path():
    with pytest.raises(RuntimeError, match="cannot be the empty string"):
        ds.config.set_enable_autotune(True, "")
    with pytest.raises(TypeError):
        ds.config.set_enable_autotune(True, 123)
    ds.config.set_enable_autotune(False, "")
    assert ds.config.get_enable_autotune() is False


# ---- Model.train arguments ------------------------------------------------------------------------------------

def test_model_train_argument_types_then_ranges():
    data = ds.NumpySlicesDataset((np.ones((4, 2), np.float32), np.ones((4, 2), np.float32)), ["x", "y"],
                                 shuffle=False).batch(2)
    net = nn.Dense(2, 2)
    model = Model(net, nn.MSELoss(), nn.SGD(net.trainable_params()))
    for epoch, kwargs in (("2", {}), (True, {}), (2, {"initial_epoch": "1"}), (2, {"initial_epoch": 1.0}),
                          (2, {"sink_size": 1.5})):
        with pytest.raises(TypeError):
            model.train(epoch, data, dataset_sink_mode=False, **kwargs)
    for epoch, kwargs in ((0, {}), (2, {"initial_epoch": -1}), (2, {"initial_epoch": 2}), (2, {"sink_size": 0})):
        with pytest.raises(ValueError):
            model.train(epoch, data, dataset_sink_mode=False, **kwargs)
