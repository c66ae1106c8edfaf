"""MindSpore behaviour found by a broader sample of its CPU tests (st/optimizer, st/train, st/ops, ut/python/nn,
ut/python/train): group learning rates seed ASGD/Rprop state, dynamic weight decay is read at the step's own
global_step, argument-type errors, Assign's backward convention, RsqrtGrad/SqrtGrad, 0-d inputs to all-dynamic
placeholders, and the private callback names MindSpore's tests import."""
import numpy as np
import pytest

import openspore as ms
from openspore import nn, ops
from openspore.common import dtype as mstype


def _two_layer():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Dense(2, 2, weight_init="ones", bias_init="zeros")
            self.fc2 = nn.Dense(2, 1, weight_init="ones", bias_init="zeros")

        def construct(self, x):
            return self.fc2(self.fc1(x))
    return Net()


def _groups(net):
    fc1 = [p for p in net.trainable_params() if "fc1" in p.name]
    fc2 = [p for p in net.trainable_params() if "fc1" not in p.name]
    return [{"params": fc1, "lr": 0.001}, {"params": fc2, "lr": 0.1}]


def test_asgd_and_rprop_state_starts_at_each_groups_learning_rate():
    net = _two_layer()
    asgd = nn.ASGD(_groups(net), learning_rate=0.5)
    assert [float(e.asnumpy()) for e in asgd.eta] == pytest.approx([0.001, 0.001, 0.1, 0.1])
    rprop = nn.Rprop(_groups(_two_layer()), learning_rate=0.5)
    starts = [float(s.asnumpy().reshape(-1)[0]) for s in rprop.step_size]
    assert starts == pytest.approx([0.001, 0.001, 0.1, 0.1])


def test_rprop_wants_tuples_and_empty_parameters_are_worded_as_mindspore():
    net = _two_layer()
    with pytest.raises(TypeError, match="'etas' must be a tuple"):
        nn.Rprop(net.trainable_params(), etas=[0.5, 1.2])
    with pytest.raises(TypeError, match="'step_sizes' must be a tuple"):
        nn.Rprop(net.trainable_params(), step_sizes=[1e-6, 50.0])
    with pytest.raises(ValueError, match=r"For 'Optimizer', the argument parameters must not be empty"):
        nn.Rprop(nn.Flatten().trainable_params())


class _DecaySchedule(nn.Cell):
    """Decay 0 for two steps, then a huge one: a step that read the next entry would show it at once."""

    def __init__(self):
        super().__init__()
        self.values = ms.Tensor([0.0, 0.0, 1e3], mstype.float32)

    def construct(self, global_step):
        return self.values[global_step]


@pytest.mark.parametrize("make", [lambda p, wd: nn.AdamWeightDecay(p, learning_rate=0.01, weight_decay=wd),
                                  lambda p, wd: nn.Lamb(p, learning_rate=0.01, weight_decay=wd)])
def test_dynamic_weight_decay_reads_the_current_step(make):
    w_fixed = ms.Parameter(ms.Tensor(np.ones(3, np.float32)), name="w")
    w_sched = ms.Parameter(ms.Tensor(np.ones(3, np.float32)), name="w")
    fixed, scheduled = make([w_fixed], 0.0), make([w_sched], _DecaySchedule())
    grad = (ms.Tensor(np.full(3, 0.5, np.float32)),)
    for _ in range(2):  # steps 0 and 1 have decay 0 in the schedule: both must match the decay-free run
        fixed(grad)
        scheduled(grad)
    np.testing.assert_allclose(w_sched.asnumpy(), w_fixed.asnumpy(), rtol=1e-6)
    scheduled(grad)  # step 2 is the last entry; before the fix it indexed past the schedule
    assert not np.allclose(w_sched.asnumpy(), w_fixed.asnumpy())


def test_argument_type_errors_are_type_errors():
    with pytest.raises(TypeError, match="'upper'"):
        nn.RReLU(0.1, "0.3")
    with pytest.raises(ValueError, match="greater than or equal"):
        nn.RReLU(0.9, 0.1)
    from openspore.train.callback import CheckpointConfig
    for kwargs in ({"save_checkpoint_steps": "abc"}, {"keep_checkpoint_max": 1.5},
                   {"keep_checkpoint_per_n_minutes": "abc"}):
        with pytest.raises(TypeError):
            CheckpointConfig(**kwargs)
    with pytest.raises(ValueError):
        CheckpointConfig(save_checkpoint_seconds=-1)
    a = ms.Tensor(np.ones((4, 2), np.float32))
    var = ms.Tensor(np.ones((4, 1), np.float32))
    with pytest.raises(TypeError, match="'full' must be a bool"):
        ops.gaussian_nll_loss(a, a, var, full=1)
    with pytest.raises(ValueError, match="'eps' must be a positive float"):
        ops.gaussian_nll_loss(a, a, var, eps=1)
    with pytest.raises(TypeError, match="'x' must be a tensor"):
        ops.gaussian_nll_loss(np.ones((4, 2)), a, var)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_assign_backward_passes_dout_to_the_variable(mode):
    ms.set_context(mode=mode)
    try:
        variable = ms.Parameter(ms.Tensor(np.array([1.0, 4.0], np.float32)), name="v")
        value = ms.Tensor(np.array([2.0, 3.0], np.float32))
        dvar, dval = ops.grad(lambda x, y: ops.assign(x, y) * 3.0, (0, 1))(variable, value)
        np.testing.assert_allclose(dvar.asnumpy(), [3.0, 3.0])
        np.testing.assert_allclose(dval.asnumpy(), [0.0, 0.0])
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_rsqrt_and_sqrt_grad_take_the_forward_output_first():
    y = ms.Tensor(np.array([-1.0, 10.0, 5.9], np.float32))
    dy = ms.Tensor(np.array([1.0, 1.0, 2.0], np.float32))
    out = ops.auto_generate.RsqrtGrad()(y, dy).asnumpy()
    np.testing.assert_allclose(out, [0.5, -500.0, -205.379], rtol=1e-4)
    from openspore.ops.operations import _grad_ops
    sq = _grad_ops.SqrtGrad()(ms.Tensor(np.array([2.0, 4.0], np.float32)), ms.Tensor(np.array([1.0, 8.0], np.float32)))
    np.testing.assert_allclose(sq.asnumpy(), [0.25, 1.0])


def test_zero_d_tensor_fits_an_all_dynamic_placeholder():
    class Double(nn.Cell):
        def construct(self, x):
            return x * 2

    net = Double()
    net.set_inputs(ms.Tensor(shape=[None], dtype=ms.float32))
    assert float(net(ms.Tensor(3.0, ms.float32)).asnumpy()) == 6.0
    with pytest.raises(ValueError, match="rank 1"):
        net(ms.Tensor(np.ones((2, 3), np.float32)))


def test_private_callback_names_drive_callbacks():
    from openspore.train.callback import EarlyStopping, RunContext, _CallbackManager, _InternalCallbackParam
    cb_params = _InternalCallbackParam()
    run_context = RunContext(cb_params)
    stop = EarlyStopping(monitor="accuracy", patience=1)
    with _CallbackManager(stop) as callbacks:
        for epoch, acc in enumerate([0.6, 0.5, 0.4], 1):
            callbacks.on_train_epoch_begin(run_context)
            cb_params.eval_results = {"accuracy": acc}
            cb_params.cur_epoch_num = epoch
            callbacks.on_train_epoch_end(run_context)
            if run_context.get_stop_requested():
                break
    assert cb_params.cur_epoch_num == 2


def test_hal_answers_for_the_cpu_and_refuses_unknown_targets():
    from openspore import hal
    assert hal.is_available("CPU") and not hal.is_available("Ascend")
    assert hal.device_count("CPU") == 1 and hal.get_device_name(0, "CPU") == "CPU"
    assert hal.get_device_properties(0, "CPU") is None and hal.get_arch_list("CPU") is None
    assert hal.memory_stats() == ms.runtime.memory_stats() and hal.Stream is ms.runtime.Stream
    with pytest.raises(ValueError, match="must be one of"):
        hal.is_available("xpu")
    with pytest.raises(ValueError, match="not available"):
        hal.device_count("Ascend")


def test_hal_cpu_is_initialized_by_running_a_kernel_not_by_set_context():
    import subprocess
    import sys
    code = ("import openspore as ms\n"
            "from openspore import hal\n"
            "ms.set_context(mode=ms.GRAPH_MODE, device_target='CPU')\n"
            "before = hal.is_initialized('CPU')\n"
            "ms.ops.abs(ms.Tensor(-2.0))\n"
            "print(before, hal.is_initialized('CPU'), hal.is_initialized('GPU'))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["False", "True", "False"]
