"""Training wrappers: WithLossCell, WithEvalCell, WithGradCell, ForwardValueAndGrad, TrainOneStepCell, loss scaling
and DistributedGradReducer, checked against hand-computed gradients and updates of a small linear model."""
import os

import numpy as np
import pytest

import openspore as ms
from openspore import nn, ops
from tests.conftest import assert_close

RNG = np.random.default_rng(3)
X = RNG.normal(size=(6, 3)).astype(np.float32)
T = RNG.normal(size=(6, 2)).astype(np.float32)
W0 = RNG.normal(size=(2, 3)).astype(np.float32)
B0 = RNG.normal(size=(2,)).astype(np.float32)


class Linear(nn.Cell):
    """y = x W^T + b with MindSpore-style parameter names."""

    def __init__(self):
        super().__init__()
        self.weight = ms.Parameter(ms.Tensor(W0.copy()), name="weight")
        self.bias = ms.Parameter(ms.Tensor(B0.copy()), name="bias")

    def construct(self, x):
        return ops.matmul(x, self.weight.T) + self.bias


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = Linear()

    def construct(self, x):
        return self.fc(x)


class PlainSGD(nn.Cell):
    """A real (minimal) optimizer with MindSpore's optimizer interface: `.parameters`, `global_step`,
    `learning_rate`, called with a tuple of gradients aligned with `.parameters`."""

    def __init__(self, params, learning_rate):
        super().__init__(auto_prefix=False)
        self.parameters = ms.ParameterTuple(params)
        self.global_step = ms.Parameter(ms.Tensor([0], ms.int32), name="global_step")
        self.learning_rate = ms.Parameter(ms.Tensor(learning_rate, ms.float32), name="learning_rate")

    def construct(self, grads):
        for p, g in zip(self.parameters, grads):
            ops.assign_sub(p, g * self.learning_rate)
        ops.assign_add(self.global_step, ms.Tensor([1], ms.int32))
        return True


def _reference_grads(w, b, scale=1.0):
    """d/dW, d/db of mean((x W^T + b - t)^2), times `scale`."""
    w, b = w.astype(np.float64), b.astype(np.float64)
    err = X @ w.T + b - T
    dy = 2 * err / err.size * scale
    return dy.T @ X, dy.sum(0), np.mean(err * err)


# ---- WithLossCell / WithEvalCell -----------------------------------------------------------------------------
def test_with_loss_cell_keeps_names_and_backbone(backend):
    net = Net()
    with_loss = nn.WithLossCell(net, nn.MSELoss())
    assert with_loss.backbone_network is net
    assert [p.name for p in with_loss.trainable_params()] == ["fc.weight", "fc.bias"]
    _, _, ref = _reference_grads(W0, B0)
    assert_close(with_loss(ms.Tensor(X), ms.Tensor(T)), ref)


def test_with_loss_cell_type_check():
    with pytest.raises(TypeError, match="For 'WithLossCell', the 'backbone' must be a Cell"):
        nn.WithLossCell(lambda x: x, nn.MSELoss())


def test_with_eval_cell_returns_loss_outputs_label():
    cell = nn.WithEvalCell(Net(), nn.MSELoss())
    loss, out, label = cell(ms.Tensor(X), ms.Tensor(T))
    assert_close(out, X @ W0.T + B0)
    assert label.asnumpy().tolist() == T.tolist()
    assert_close(loss, np.mean((X @ W0.T.astype(np.float64) + B0 - T) ** 2))


def test_with_eval_cell_add_cast_fp32():
    class Half(nn.Cell):
        def __init__(self):
            super().__init__()
            self.net = Net()

        def construct(self, x):
            return ops.cast(self.net(x), ms.float16)

    net = Half()
    loss, out, label = nn.WithEvalCell(net, nn.MSELoss(), add_cast_fp32=True)(ms.Tensor(X),
                                                                             ms.Tensor(T.astype(np.float16)))
    assert out.dtype == ms.float32 and label.dtype == ms.float32 and loss.dtype == ms.float32
    with pytest.raises(TypeError, match="add_cast_fp32"):
        nn.WithEvalCell(Net(), nn.MSELoss(), add_cast_fp32=1)


# ---- gradient cells -----------------------------------------------------------------------------------------------
def test_with_grad_cell(backend):
    gw, gb, _ = _reference_grads(W0, B0)
    grads = nn.WithGradCell(Net(), nn.MSELoss())(ms.Tensor(X), ms.Tensor(T))
    assert len(grads) == 2
    assert_close(grads[0], gw)
    assert_close(grads[1], gb)
    grads = nn.WithGradCell(Net(), nn.MSELoss(), sens=ms.Tensor(3.0))(ms.Tensor(X), ms.Tensor(T))
    assert_close(grads[0], 3 * gw)


def test_forward_value_and_grad_layouts():
    gw, gb, ref = _reference_grads(W0, B0)
    net = nn.WithLossCell(Net(), nn.MSELoss())
    weights = ms.ParameterTuple(net.trainable_params())
    loss, grads = nn.ForwardValueAndGrad(net, weights=weights, get_by_list=True)(ms.Tensor(X), ms.Tensor(T))
    assert_close(loss, ref)
    assert_close(grads[0], gw)
    assert_close(grads[1], gb)
    loss, (in_grads, w_grads) = nn.ForwardValueAndGrad(net, weights, get_all=True, get_by_list=True)(
        ms.Tensor(X), ms.Tensor(T))
    assert len(in_grads) == 2 and len(w_grads) == 2
    err = X @ W0.T.astype(np.float64) + B0 - T
    assert_close(in_grads[0], (2 * err / err.size) @ W0)
    assert_close(in_grads[1], -2 * err / err.size)
    _, g_x = nn.ForwardValueAndGrad(net)(ms.Tensor(X), ms.Tensor(T))
    assert_close(g_x, (2 * err / err.size) @ W0)
    _, grads = nn.ForwardValueAndGrad(net, weights, get_by_list=True, sens_param=True)(
        ms.Tensor(X), ms.Tensor(T), ms.Tensor(0.5))
    assert_close(grads[1], 0.5 * gb)


def test_forward_value_and_grad_needs_weights():
    with pytest.raises(TypeError, match="'get_by_list' is set to True, the 'weights' can not be None"):
        nn.ForwardValueAndGrad(Net(), get_by_list=True)


# ---- TrainOneStepCell ------------------------------------------------------------------------------------------------
def _train_cell(lr=0.1, **kwargs):
    net = Net()
    opt = PlainSGD(net.trainable_params(), lr)
    return net, opt, nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt, **kwargs)


def test_train_one_step_updates_parameters(backend):
    net, opt, train = _train_cell()
    w, b = W0.astype(np.float64), B0.astype(np.float64)
    for _ in range(3):
        gw, gb, ref = _reference_grads(w, b)
        loss = train(ms.Tensor(X), ms.Tensor(T))
        assert loss.shape == ()
        assert_close(loss, ref)  # the loss before the update
        w, b = w - 0.1 * gw, b - 0.1 * gb
        assert_close(net.fc.weight, w, rtol=1e-5, atol=1e-6)
        assert_close(net.fc.bias, b, rtol=1e-5, atol=1e-6)
    assert opt.global_step.asnumpy().tolist() == [3]
    assert train.network.requires_grad  # TrainOneStepCell calls network.set_grad()
    assert not net.training  # it leaves the train/eval mode to the caller (Model.train sets it)


def test_train_one_step_sens_scales_gradients():
    net, _, train = _train_cell(sens=4.0)
    gw, gb, ref = _reference_grads(W0, B0)
    assert_close(train(ms.Tensor(X), ms.Tensor(T)), ref)  # the unscaled loss
    assert_close(net.fc.weight, W0 - 0.4 * gw, rtol=1e-5, atol=1e-6)
    assert_close(net.fc.bias, B0 - 0.4 * gb, rtol=1e-5, atol=1e-6)
    with pytest.raises(TypeError, match="'sens' must be a number"):
        _train_cell(sens="1")


def test_train_one_step_return_grad():
    _, _, train = _train_cell(return_grad=True)
    gw, gb, ref = _reference_grads(W0, B0)
    loss, grads = train(ms.Tensor(X), ms.Tensor(T))
    assert_close(loss, ref)
    assert list(grads) == ["fc.weight", "fc.bias"]
    assert_close(grads["fc.weight"], gw)
    assert_close(grads["fc.bias"], gb)


def test_train_one_step_parameter_order_and_checkpoint(tmp_path):
    _, _, train = _train_cell()
    keys = [k for k, _ in train.parameters_and_names()]
    names = [p.name for _, p in train.parameters_and_names()]
    # network weights first (registered under their own names), then the optimizer's state
    assert keys == ["fc.weight", "fc.bias", "optimizer.global_step", "optimizer.learning_rate"]
    assert names == ["fc.weight", "fc.bias", "global_step", "learning_rate"]
    train(ms.Tensor(X), ms.Tensor(T))
    path = os.path.join(tmp_path, "train.ckpt")
    ms.save_checkpoint(train, path)
    loaded = ms.load_checkpoint(path)
    assert list(loaded) == names
    assert loaded["global_step"].asnumpy().tolist() == [1]


def test_train_one_step_custom_subclass_uses_public_attributes():
    """User train cells subclass TrainOneStepCell and call self.grad / self.weights / self.grad_reducer."""
    class MyStep(nn.TrainOneStepCell):
        def construct(self, *inputs):
            loss = self.network(*inputs)
            sens = ops.fill(loss.dtype, loss.shape, self.sens)
            grads = self.grad(self.network, self.weights)(*inputs, sens)
            grads = self.grad_reducer(grads)
            self.optimizer(grads)
            return loss

    net = Net()
    step = MyStep(nn.WithLossCell(net, nn.MSELoss()), PlainSGD(net.trainable_params(), 0.1), sens=2.0)
    gw, _, _ = _reference_grads(W0, B0)
    step(ms.Tensor(X), ms.Tensor(T))
    assert_close(net.fc.weight, W0 - 0.2 * gw, rtol=1e-5, atol=1e-6)


def test_train_one_step_data_parallel_single_device_reduces_to_identity():
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True, device_num=1)
    try:
        net, _, train = _train_cell()
        assert train.reducer_flag and isinstance(train.grad_reducer, nn.DistributedGradReducer)
        gw, _, _ = _reference_grads(W0, B0)
        train(ms.Tensor(X), ms.Tensor(T))
        assert_close(net.fc.weight, W0 - 0.1 * gw, rtol=1e-5, atol=1e-6)
    finally:
        ms.reset_auto_parallel_context()


def test_distributed_grad_reducer_single_process():
    w = ms.Parameter(ms.Tensor([1.0, 2.0]), name="w")
    reducer = nn.DistributedGradReducer([w], mean=True, degree=1)
    g = ms.Tensor([0.5, -1.0])
    out = reducer((g,))
    assert isinstance(out, tuple) and out[0].asnumpy().tolist() == [0.5, -1.0]
    with pytest.raises(RuntimeError, match="AllReduce"):
        nn.DistributedGradReducer([w], degree=2)
    with pytest.raises(ValueError, match="degree"):
        nn.DistributedGradReducer([w], degree=0)
    with pytest.raises(TypeError, match="Parameters"):
        nn.DistributedGradReducer([g])


# ---- loss scaling ----------------------------------------------------------------------------------------------
def _scaled_train_cell(scale_sense, lr=0.1):
    net = Net()
    opt = PlainSGD(net.trainable_params(), lr)
    return net, opt, nn.TrainOneStepWithLossScaleCell(nn.WithLossCell(net, nn.MSELoss()), opt, scale_sense)


@pytest.mark.parametrize("scale", [ms.Tensor(1024.0), ms.Tensor([64.0]), nn.FixedLossScaleUpdateCell(128)])
def test_loss_scale_step_matches_unscaled_step(backend, scale):
    net, opt, train = _scaled_train_cell(scale)
    gw, gb, ref = _reference_grads(W0, B0)
    loss, overflow, used = train(ms.Tensor(X), ms.Tensor(T))
    assert_close(loss, ref)
    assert overflow.dtype == ms.bool_ and not bool(overflow.asnumpy())
    expected_scale = 128.0 if isinstance(scale, nn.Cell) else float(scale.asnumpy().reshape(()))
    assert float(used.asnumpy().reshape(())) == expected_scale
    assert_close(net.fc.weight, W0 - 0.1 * gw, rtol=1e-5, atol=1e-6)
    assert_close(net.fc.bias, B0 - 0.1 * gb, rtol=1e-5, atol=1e-6)
    assert opt.global_step.asnumpy().tolist() == [1]
    assert train.scale_sense.name == "scale_sense"


def test_loss_scale_overflow_skips_update_and_halves_scale(backend):
    update = nn.DynamicLossScaleUpdateCell(loss_scale_value=1024.0, scale_factor=2, scale_window=1000)
    net, opt, train = _scaled_train_cell(update)
    bad = X.copy()
    bad[0, 0] = np.inf
    loss, overflow, used = train(ms.Tensor(bad), ms.Tensor(T))
    assert bool(overflow.asnumpy()) and float(used.asnumpy()) == 1024.0
    assert net.fc.weight.asnumpy().tolist() == W0.tolist()  # no update on overflow
    assert opt.global_step.asnumpy().tolist() == [0]  # the optimizer did not run
    assert float(train.scale_sense.asnumpy()) == 512.0
    loss, overflow, used = train(ms.Tensor(X), ms.Tensor(T))  # a good step applies the update again
    assert not bool(overflow.asnumpy()) and float(used.asnumpy()) == 512.0
    gw, _, ref = _reference_grads(W0, B0)
    assert_close(loss, ref)
    assert_close(net.fc.weight, W0 - 0.1 * gw, rtol=1e-5, atol=1e-6)


def test_loss_scale_overflow_from_the_scale_itself():
    """A scale so large that the scaled gradients overflow float32: detected, skipped, scale reduced."""
    net, _, train = _scaled_train_cell(nn.DynamicLossScaleUpdateCell(3e38, 2, 1000))
    _, overflow, _ = train(ms.Tensor(X), ms.Tensor(T))
    assert bool(overflow.asnumpy())
    assert net.fc.weight.asnumpy().tolist() == W0.tolist()
    assert float(train.scale_sense.asnumpy()) == pytest.approx(1.5e38, rel=1e-6)


def test_dynamic_loss_scale_update_cell_schedule():
    scale = ms.Parameter(ms.Tensor(8.0), name="scale_sense")
    update = nn.DynamicLossScaleUpdateCell(loss_scale_value=8, scale_factor=2, scale_window=2)
    assert update.get_loss_scale() == 8.0
    seen = []
    for overflow in (False, False, False, False, True, False, False):
        out = update(scale, ms.Tensor(overflow))
        assert bool(out.asnumpy()) == overflow
        seen.append(float(scale.asnumpy()))
    # doubles after every 2 good steps; halves on overflow and restarts the window
    assert seen == [8.0, 16.0, 16.0, 32.0, 16.0, 16.0, 32.0]
    low = ms.Parameter(ms.Tensor(1.0), name="low")
    update(low, ms.Tensor(True))
    assert float(low.asnumpy()) == 1.0  # never below 1
    assert [p.name for p in update.get_parameters()] == ["current_iterator_step", "last_overflow_iterator_step"]


def test_loss_scale_cells_errors():
    with pytest.raises(ValueError, match="scale_window"):
        nn.DynamicLossScaleUpdateCell(8, 2, 0)
    with pytest.raises(ValueError, match="loss_scale_value"):
        nn.FixedLossScaleUpdateCell(-1.0)
    with pytest.raises(ValueError, match=r"The shape of 'scale_sense' must be \(1,\) or \(\)"):
        _scaled_train_cell(ms.Tensor([1.0, 2.0]))
    with pytest.raises(TypeError, match="The 'scale_sense' must be Cell or Tensor"):
        _scaled_train_cell(2.0)


def test_loss_scale_public_helpers():
    _, _, train = _scaled_train_cell(ms.Tensor(16.0))
    train.set_sense_scale(ms.Tensor(4.0))
    assert float(train.scale_sense.asnumpy()) == 4.0
    with pytest.raises(TypeError, match="The input type must be Tensor"):
        train.set_sense_scale(4.0)
    status, value = train.start_overflow_check(None, ms.Tensor(1.0))
    assert float(value.asnumpy()) == 1.0
    finite = (ms.Tensor([1.0, 2.0]), ms.Tensor(3.0))
    assert not bool(train.get_overflow_status(status, finite).asnumpy())
    assert bool(train.get_overflow_status(status, finite + (ms.Tensor([np.nan]),)).asnumpy())
    assert not bool(train.process_loss_scale(ms.Tensor(False)).asnumpy())


@pytest.mark.parametrize("opt_cls, state", [
    (nn.SGD, ["optimizer.global_step", "optimizer.learning_rate", "optimizer.momentum", "optimizer.accum.weight"]),
    (nn.Momentum, ["optimizer.global_step", "optimizer.learning_rate", "optimizer.momentum",
                   "optimizer.moments.weight"]),
])
def test_train_one_step_parameters_and_names_with_real_optimizers(opt_cls, state):
    """Facts §1.10: TrainOneStepCell(WithLossCell(Dense, loss), SGD).parameters_and_names() starts with
    `weight, bias, optimizer.global_step, optimizer.learning_rate, optimizer.momentum, optimizer.accum.weight`."""
    dense = nn.Dense(3, 2)
    kwargs = {"momentum": 0.9} if opt_cls is nn.Momentum else {}
    opt = opt_cls(dense.trainable_params(), learning_rate=0.1, **kwargs)
    train = nn.TrainOneStepCell(nn.WithLossCell(dense, nn.MSELoss()), opt)
    keys = [k for k, _ in train.parameters_and_names()]
    assert keys[:2 + len(state)] == ["weight", "bias"] + state
    before = dense.weight.asnumpy().copy()
    loss = train(ms.Tensor(X), ms.Tensor(T))
    assert loss.shape == () and not np.array_equal(dense.weight.asnumpy(), before)
    assert opt.global_step.asnumpy().tolist() == [1]


@pytest.mark.parametrize("bad", [False, True])
def test_loss_scale_cell_traced_as_one_graph(bad):
    """Captured as a graph, the skip-on-overflow becomes an `if` node; running it behaves like PyNative."""
    from openspore.compiler.frontend import flatten_args, trace
    from openspore.ir.interpret import run_graph
    net, opt, train = _scaled_train_cell(nn.DynamicLossScaleUpdateCell(1024.0, 2, 2))
    x = X.copy()
    if bad:
        x[0, 0] = np.inf
    traced = trace(train, (ms.Tensor(x), ms.Tensor(T)))
    assert any(n.op_name == "if" for n in traced.graph.nodes)
    leaves, _ = flatten_args((ms.Tensor(x), ms.Tensor(T)))
    scales = []
    for _ in range(3):
        loss, overflow, used = traced.unflatten(list(run_graph(traced.graph, leaves)))
        assert bool(overflow.asnumpy()) == bad
        scales.append(float(used.asnumpy()))
    if bad:
        assert scales == [1024.0, 512.0, 256.0] and float(train.scale_sense.asnumpy()) == 128.0
        assert net.fc.weight.asnumpy().tolist() == W0.tolist() and opt.global_step.asnumpy().tolist() == [0]
    else:
        assert scales == [1024.0, 1024.0, 2048.0] and opt.global_step.asnumpy().tolist() == [3]
        w, b = W0.astype(np.float64), B0.astype(np.float64)
        for _ in range(3):
            gw, gb, _ = _reference_grads(w, b)
            w, b = w - 0.1 * gw, b - 0.1 * gb
        assert_close(net.fc.weight, w, rtol=1e-5, atol=1e-6)
