"""Mixed precision levels (dtypes seen inside the network), build_train_network, loss scalers and managers."""
import numpy as np
import pytest

import openspore as ms
from openspore import amp, nn, ops
from openspore.train import DynamicLossScaleManager, FixedLossScaleManager, LossScaleManager
from tests.device import use_backend


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(4, 8)
        self.bn = nn.BatchNorm1d(8)
        self.act = nn.ReLU()
        self.fc2 = nn.Dense(8, 3)

    def construct(self, x):
        return self.fc2(self.act(self.bn(self.fc1(x))))


def _record_dtypes(net):
    """{cell name: (input dtype, output dtype)} as each cell's construct sees them."""
    seen = {}
    for name in ("fc1", "bn", "act", "fc2"):
        cell = getattr(net, name)
        cell.register_forward_hook(lambda c, args, out, name=name: seen.__setitem__(name, (args[0].dtype, out.dtype)))
    return seen


X = ms.Tensor(np.random.default_rng(0).normal(size=(5, 4)).astype(np.float32))
F16, F32 = ms.float16, ms.float32


def test_o0_is_the_network_itself():
    net = Net()
    assert amp.auto_mixed_precision(net, "O0") is net


def test_o1_casts_white_list_cells_and_their_outputs_back():
    net = Net()
    seen = _record_dtypes(net)  # registered first: sees the white-list cells' own float16 outputs
    out = amp.auto_mixed_precision(net, "O1")(X)
    assert seen == {"fc1": (F16, F16), "bn": (F32, F32), "act": (F32, F32), "fc2": (F16, F16)}
    assert out.dtype == F32


def test_o2_keeps_black_list_in_float32():
    net = Net()
    seen = _record_dtypes(net)
    wrapped = amp.auto_mixed_precision(net, "O2")
    out = wrapped(X)
    assert seen == {"fc1": (F16, F16), "bn": (F32, F32), "act": (F16, F16), "fc2": (F16, F16)}
    assert out.dtype == F32
    assert all(p.dtype == F32 for p in net.get_parameters())
    # the wrapper keeps parameter names
    assert [p.name for p in wrapped.get_parameters()] == [p.name for p in net.get_parameters()]


def test_o3_casts_everything():
    net = Net()
    seen = _record_dtypes(net)
    out = amp.auto_mixed_precision(net, "O3")(X)
    assert all(v == (F16, F16) for v in seen.values())
    assert out.dtype == F32
    reference = Net()
    reference.set_train(False)
    net.set_train(False)
    ms.load_param_into_net(reference, {p.name: p for p in net.get_parameters()})
    np.testing.assert_allclose(out.asnumpy(), reference(X).asnumpy(), rtol=2e-2, atol=2e-2)


def test_bfloat16_on_torch_forward_and_gradients():
    use_backend("torch")
    net = Net()
    seen = _record_dtypes(net)
    wrapped = amp.auto_mixed_precision(net, "O2", dtype=ms.bfloat16)
    net.set_train(True)
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    label = ms.Tensor(np.array([0, 1, 2, 0, 1], np.int32))
    weights = net.trainable_params()
    loss, grads = ms.value_and_grad(lambda x, y: loss_fn(wrapped(x), y), None, weights)(X, label)
    assert seen["fc1"] == (ms.bfloat16, ms.bfloat16) and seen["bn"] == (F32, F32)
    assert loss.dtype == F32 and np.isfinite(float(loss))
    assert all(g.dtype == F32 and g.shape == w.shape for g, w in zip(grads, weights))
    assert all(np.isfinite(g.asnumpy()).all() for g in grads)


def test_custom_mixed_precision_lists():
    net = Net()
    seen = _record_dtypes(net)
    amp.custom_mixed_precision(net, white_list=[nn.BatchNorm1d])(X)
    assert seen["bn"] == (F16, F16) and seen["fc1"] == (F32, F32)
    net = Net()
    seen = _record_dtypes(net)
    amp.custom_mixed_precision(net, black_list=[nn.Dense])(X)
    assert seen["fc1"] == (F32, F32) and seen["bn"] == (F16, F16)
    with pytest.raises(ValueError, match="exactly one"):
        amp.custom_mixed_precision(Net())
    with pytest.raises(ValueError, match="'dtype'"):
        amp.auto_mixed_precision(Net(), "O2", dtype=ms.float64)
    with pytest.raises(ValueError, match="not supported"):
        amp.auto_mixed_precision(Net(), "O4")


def test_white_and_black_lists():
    white, black = amp.get_white_list(), amp.get_black_list()
    assert nn.Dense in white and nn.Conv2d in white and ops.MatMul in white
    assert black == [nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d, nn.LayerNorm][:len(black)]
    assert nn.BatchNorm2d in black and nn.LayerNorm in black


def test_build_train_network_levels():
    def build(level, **kwargs):
        net = Net()
        opt = nn.Momentum(net.trainable_params(), 0.01, 0.9)
        return amp.build_train_network(net, opt, nn.SoftmaxCrossEntropyWithLogits(sparse=True), level, **kwargs)

    assert type(build("O0")).__name__ == "TrainOneStepCell"
    o2 = build("O2")
    assert type(o2).__name__ == "TrainOneStepWithLossScaleCell"
    assert float(o2.scale_sense.asnumpy()) == 2 ** 24
    fixed = build("O2", loss_scale_manager=FixedLossScaleManager(64.0, drop_overflow_update=False))
    assert type(fixed).__name__ == "TrainOneStepCell"
    assert type(build("O3")).__name__ == "TrainOneStepCell"
    assert type(build("O0", loss_scale_manager=FixedLossScaleManager())).__name__ == "TrainOneStepWithLossScaleCell"
    with pytest.raises(ValueError, match="'cast_type'"):
        build("O2", cast_type=F16)
    label = ms.Tensor(np.array([0, 1, 2, 0, 1], np.int32))
    loss, overflow, scale = o2(X, label)
    assert loss.dtype == F32 and overflow.dtype == ms.bool_ and scale.dtype == F32


def test_functional_loss_scalers():
    scaler = amp.DynamicLossScaler(2 ** 16, 2, 1000)
    assert float(scaler.scale(ms.Tensor(1.0))) == 65536.0
    grads = scaler.unscale((ms.Tensor(np.array([65536.0, 131072.0], np.float32)),))
    np.testing.assert_array_equal(grads[0].asnumpy(), [1.0, 2.0])
    scaler = amp.DynamicLossScaler(8, 2, 2)
    trajectory = []
    for finite in (True, True, True, False, False, False, False, True):
        scaler.adjust(ms.Tensor(finite))
        trajectory.append((float(scaler.scale_value.asnumpy()), int(scaler.counter.asnumpy())))
    # grows after 2 finite steps in a row, halves on overflow, never below 1
    assert trajectory == [(8, 1), (16, 0), (16, 1), (8, 0), (4, 0), (2, 0), (1, 0), (1, 1)]
    static = amp.StaticLossScaler(1024)
    assert float(static.scale(ms.Tensor(2.0))) == 2048.0 and static.adjust(True) is False
    half = static.scale(ms.Tensor(np.ones(2, np.float16)))
    assert half.dtype == F16
    with pytest.raises(ValueError):
        amp.DynamicLossScaler(0, 2, 10)


def test_all_finite():
    ok = amp.all_finite((ms.Tensor([1.0, 2.0]), ms.Tensor([[3.0]], F16)))
    assert ok.dtype == ms.bool_ and bool(ok)
    assert not bool(amp.all_finite([ms.Tensor([1.0]), ms.Tensor([np.inf])]))
    assert not bool(amp.all_finite(ms.Tensor([np.nan])))


def test_loss_scale_managers():
    dyn = DynamicLossScaleManager(init_loss_scale=1024, scale_factor=2, scale_window=3)
    assert dyn.get_drop_overflow_update()
    scales = []
    for overflow in (False, False, False, True, False, False, False):
        dyn.update_loss_scale(overflow)
        scales.append(dyn.get_loss_scale())
    assert scales == [1024, 1024, 2048, 1024, 1024, 1024, 2048]
    cell = dyn.get_update_cell()
    assert type(cell).__name__ == "DynamicLossScaleUpdateCell"
    fixed = FixedLossScaleManager()
    assert fixed.get_loss_scale() == 128.0 and fixed.get_drop_overflow_update()
    assert type(fixed.get_update_cell()).__name__ == "FixedLossScaleUpdateCell"
    assert FixedLossScaleManager(drop_overflow_update=False).get_update_cell() is None
    assert DynamicLossScaleManager().get_loss_scale() == 2 ** 24
    assert isinstance(fixed, LossScaleManager)
    with pytest.raises(ValueError):
        FixedLossScaleManager(0.5)
    with pytest.raises(ValueError):
        DynamicLossScaleManager(scale_factor=1)
