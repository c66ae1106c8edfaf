"""Dumps written by GRAPH_MODE training in MindSpore's layout, read back by the DumpAnalyzer."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import openspore as ms
from openspore.insight.debugger import (DumpAnalyzer, TensorOverflowCondition, TensorUnchangedCondition,
                                        Watchpoint)
from openspore.insight.debugger.dump_writer import disable_dump, enable_dump
from tests.conftest import REPO, child_env
from tests.insight import nets


def _config(path, **settings):
    common = {"dump_mode": 0, "path": str(path), "net_name": "LeNet", "iteration": "all", "saved_data": "tensor",
              "input_output": 0, "kernels": [], "support_device": [0]}
    common.update(settings)
    return {"common_dump_settings": common, "e2e_dump_settings": {"enable": True, "trans_flag": True}}


@pytest.fixture
def dumping(tmp_path):
    ms.set_context(mode=ms.GRAPH_MODE)

    def start(**settings):
        enable_dump(_config(tmp_path / "dump", **settings))
        return str(tmp_path / "dump")
    yield start
    disable_dump()


# openspore's stable softmax cross-entropy keeps this LeNet's loss finite at lr=1e4 (MindSpore's fixture run goes
# to inf there, see test_mindspore_dumps.py); lr=DIVERGING_LR makes it overflow from iteration 1 on
DIVERGING_LR = 1e10


def _train(steps, lr=0.05, freeze=None):
    net, step = nets.train_step(lr, freeze)
    x, y = nets.data()
    losses = [float(step(x, y).asnumpy()) for _ in range(steps)]
    return net, x, losses


def test_layout_and_conv_output_equals_an_independent_convolution(dumping):
    path = dumping()
    ms.set_seed(1)
    net, step = nets.train_step()
    w0 = net.conv1.weight.asnumpy().copy()
    x, y = nets.data()
    step(x, y)
    step(x, y)
    rank = os.path.join(path, "rank_0")
    assert sorted(os.listdir(rank)) == [".dump_metadata", "LeNet", "execution_order", "graphs"]
    assert sorted(os.listdir(os.path.join(rank, "LeNet", "0"))) == ["0", "1"]
    assert os.path.isfile(os.path.join(rank, "graphs", "ms_output_trace_code_graph_0.ir"))
    with open(os.path.join(rank, "execution_order", "ms_execution_order_graph_0.csv")) as f:
        order = f.read().split()
    assert order[0] == "NodeExecutionOrder-FullNameWithScope" and order[1].endswith("conv1-Conv2d/Conv2D-op0")
    with open(os.path.join(rank, "execution_order", "ms_global_execution_order_graph_0.csv")) as f:
        assert f.read().split() == ["0", "1"]
    assert json.load(open(os.path.join(rank, ".dump_metadata", "data_dump.json")))["common_dump_settings"]
    names = os.listdir(os.path.join(rank, "LeNet", "0", "0"))
    conv_out = [n for n in names if n.startswith("Conv2D.Default_network-WithLossCell__backbone-LeNet_conv1-Conv2d_"
                                                 "Conv2D-op0.0.0.") and ".output.0.DefaultFormat.Float32.npy" in n]
    assert len(conv_out) == 1
    assert any(n.startswith("Parameter.conv1_weight.0.0.") for n in names)

    analyzer = DumpAnalyzer(path)
    conv = analyzer.select_nodes("conv1-Conv2d/Conv2D-op0")
    assert len(conv) == 1
    dumped = conv[0].get_output_tensors(iterations=[0])[0].value()
    expected = nets.numpy_conv2d(x.asnumpy(), w0)
    np.testing.assert_allclose(dumped, expected, atol=1e-6, rtol=0)
    # code <-> graph: the conv's line finds the conv (with the ReLU and pool of the same line), and the node its code
    found = analyzer.select_nodes(f"nets.py:{nets.CONV1_LINE}", select_by="code_stack")
    assert conv[0] in found and {n.op_type for n in found} >= {"Conv2D", "ReLU"}
    assert all("conv2" not in n.name for n in found)
    assert str(conv[0].stack[0]).split("  ")[0].endswith(f"nets.py:{nets.CONV1_LINE}")


def test_iteration_selection_dumps_exactly_those_iterations(dumping):
    path = dumping(iteration="1|3")
    _train(5)
    assert sorted(os.listdir(os.path.join(path, "rank_0", "LeNet", "0"))) == ["1", "3"]
    assert DumpAnalyzer(path).get_iterations() == [1, 3]


def test_dump_mode_1_dumps_exactly_the_listed_kernels(dumping, tmp_path):
    conv1 = "Default/network-WithLossCell/_backbone-LeNet/conv1-Conv2d/Conv2D-op0"
    path = dumping(dump_mode=1, kernels=[conv1], input_output=2)
    _train(1)
    names = os.listdir(os.path.join(path, "rank_0", "LeNet", "0", "0"))
    assert len(names) == 1 and names[0].startswith("Conv2D." + conv1.replace("/", "_") + ".0.0.")
    # an operator type (no scope) selects by case-insensitive substring, as MindSpore does: "conv2d" also
    # selects the Conv2DBackprop* kernels, and nothing else
    enable_dump(_config(tmp_path / "by_type", dump_mode=1, kernels=["conv2d"]))
    _train(1)
    names = os.listdir(tmp_path / "by_type" / "rank_0" / "LeNet" / "0" / "0")
    types = {n.split(".")[0] for n in names}
    assert "Conv2D" in types and all(t.lower().startswith("conv2d") for t in types)
    assert any(".input.1." in n for n in names) and not any(n.startswith("Parameter.") for n in names)


def _dumped_kernels(path, iteration="0"):
    names = os.listdir(os.path.join(path, "rank_0", "LeNet", "0", iteration))
    return {n.split(".")[1] for n in names}


def test_dump_mode_2_dumps_the_cells_and_primitives_marked_by_set_dump(dumping, tmp_path):
    net, step = nets.train_step()
    ms.set_dump(net.conv1)
    path = dumping(dump_mode=2, input_output=2)
    step(*nets.data())
    scope = "Default_network-WithLossCell__backbone-LeNet_conv1-Conv2d_"
    # conv1's forward kernel and the kernel its gradient makes (the data batch needs no gradient), nothing else
    assert _dumped_kernels(path) == {scope + "Conv2D-op0",
                                     "Gradients_" + scope + "Grad_Conv2D_Conv2DBackpropFilter-op24"}
    # a whole network marked, one part taken back out: the innermost mark decides
    net, step = nets.train_step()
    ms.set_dump(net)
    ms.set_dump(net.fc2, False)
    path = str(tmp_path / "whole")
    enable_dump(_config(path, dump_mode=2, input_output=2))
    step(*nets.data())
    kernels = _dumped_kernels(path)
    assert any("conv1-Conv2d_Conv2D" in k for k in kernels) and any("Grad_ReLU" in k for k in kernels)
    assert not any("fc2" in k for k in kernels) and any("fc1-Dense" in k for k in kernels)
    assert not any("optimizer" in k or "loss_fn" in k for k in kernels)  # outside the marked network


class _Scaled(ms.nn.Cell):
    def __init__(self):
        super().__init__()
        self.scale = ms.ops.Mul()
        self.shift = ms.ops.Add()

    def construct(self, x):
        return self.shift(self.scale(x, x), x)


def test_dump_mode_2_marks_one_primitive_and_rejects_bad_targets(dumping):
    cell = _Scaled()
    ms.set_dump(cell.scale)
    path = dumping(dump_mode=2)
    cell(ms.Tensor(np.ones((2, 2), np.float32)))
    assert _dumped_kernels(path) == {"Default_Mul-op0"}
    with pytest.raises(ValueError, match="should be a Cell or a Primitive"):
        ms.set_dump("conv1")
    with pytest.raises(ValueError, match="should be a bool"):
        ms.set_dump(cell, enabled="yes")
    from openspore.core.registry import prim
    with pytest.raises(ValueError, match="shared instance"):
        ms.set_dump(prim("ReLU"))


def test_statistics_and_overflow_only_modes(dumping, tmp_path):
    path = dumping(saved_data="statistic", op_debug_mode=3)
    _train(2, lr=DIVERGING_LR)
    it_dirs = os.listdir(os.path.join(path, "rank_0", "LeNet", "0"))
    for it in it_dirs:
        files = os.listdir(os.path.join(path, "rank_0", "LeNet", "0", it))
        assert all(not f.endswith(".npy") for f in files)
    stats = [os.path.join(path, "rank_0", "LeNet", "0", it, "statistic.csv") for it in sorted(it_dirs)]
    rows = [open(s).read().splitlines() for s in stats if os.path.exists(s)]
    assert rows and rows[0][0].startswith("Op Type,Op Name,Task ID")
    assert any(int(r.split(",")[-4]) + int(r.split(",")[-3]) + int(r.split(",")[-2]) > 0
               for table in rows for r in table[1:])


def _compiled_source(dump):
    if dump is not None:
        enable_dump(dump)
    try:
        _, step = nets.train_step()
        jitted = ms.jit(step)
        jitted(*nets.data())
        return jitted.graph_cache.last_entry.compiled.source
    finally:
        disable_dump()


def test_dumping_changes_no_result_and_costs_no_code_when_off(dumping, tmp_path):
    ms.set_seed(3)
    _, _, plain = _train(3)
    dumping()
    ms.set_seed(3)
    _, _, dumped = _train(3)
    assert dumped == plain
    assert ".begin([" in _compiled_source(_config(tmp_path / "again"))
    off = _compiled_source(None)
    assert ".begin(" not in off and ".output(" not in off and ".inputs(" not in off


def test_diverging_run_caught_offline_and_frozen_weight_unchanged(dumping):
    path = dumping()
    ms.set_seed(2)
    _, _, losses = _train(3, lr=DIVERGING_LR, freeze="fc2.bias")
    assert not np.isfinite(losses[-1])
    analyzer = DumpAnalyzer(path)
    hits = analyzer.check_watchpoints([Watchpoint(analyzer.select_tensors(".*", use_regex=True),
                                                  TensorOverflowCondition())])
    assert hits and min(h.iteration for h in hits) >= 1
    first = analyzer.first_nonfinite()
    assert first and first[0][1] == min(h.iteration for h in hits)
    assert first[0][2] in [h.tensor.node for h in hits]
    frozen = analyzer.select_tensors("fc2.bias")
    unchanged = analyzer.check_watchpoints([Watchpoint(frozen, TensorUnchangedCondition())])
    assert {h.iteration for h in unchanged} == {1, 2}
    trained = analyzer.select_tensors("fc1.bias")
    assert not [h for h in analyzer.check_watchpoints([Watchpoint(trained, TensorUnchangedCondition())])
                if not h.error_code]


def test_dump_config_from_the_environment(tmp_path):
    cfg = tmp_path / "dump.json"
    cfg.write_text(json.dumps(_config(tmp_path / "out", iteration="0")))
    script = ("import openspore as ms\n"
              "from tests.insight import nets\n"
              "ms.set_context(mode=ms.GRAPH_MODE)\n"
              "net, step = nets.train_step()\n"
              "x, y = nets.data()\n"
              "step(x, y); step(x, y)\n")
    run = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=300,
                         env=child_env(MINDSPORE_DUMP_CONFIG=str(cfg)))
    assert run.returncode == 0, run.stderr
    assert os.listdir(tmp_path / "out" / "rank_0" / "LeNet" / "0") == ["0"]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(_config(tmp_path / "out2", iteration="3-1")))
    run = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=300,
                         env=child_env(MINDSPORE_DUMP_CONFIG=str(bad)))
    assert run.returncode != 0 and "ends before it starts" in run.stderr


def test_pynative_mode_dumps_too(tmp_path):
    ms.set_context(mode=ms.PYNATIVE_MODE)
    enable_dump(_config(tmp_path / "py", iteration="0|2"))
    try:
        ms.set_seed(4)
        net, step = nets.train_step()
        w0 = net.conv1.weight.asnumpy().copy()
        x, y = nets.data()
        losses = [float(step(x, y).asnumpy()) for _ in range(3)]
    finally:
        disable_dump()
    ms.set_seed(4)
    _, plain_step = nets.train_step()
    assert [float(plain_step(x, y).asnumpy()) for _ in range(3)] == losses  # dumping changes nothing
    analyzer = DumpAnalyzer(str(tmp_path / "py"))
    assert analyzer.get_iterations() == [0, 2]
    conv = analyzer.select_nodes("Default/Conv2D-op0")
    assert len(conv) == 1
    dumped = conv[0].get_output_tensors(iterations=[0])[0].value()
    np.testing.assert_allclose(dumped, nets.numpy_conv2d(x.asnumpy(), w0), atol=1e-6, rtol=0)
    found = analyzer.select_nodes(f"nets.py:{nets.CONV1_LINE}", select_by="code_stack")
    assert conv[0] in found
    # backward kernels are dumped too, named and located after their forward call, in the gradient category
    assert any(n.name.startswith("Gradients/Default/Grad_Conv2D/Conv2DBackpropFilter-op") for n in found)
    grads = [n for n in analyzer.nodes() if n.name.startswith("Gradients/")]
    assert {n.op_type for n in grads} >= {"ReluGrad", "Conv2DBackpropInput", "Conv2DBackpropFilter"}
    assert all(n.category == "gradient" for n in grads)
    assert all(n.get_output_tensors(iterations=[2]) for n in grads)  # same names every iteration


USER_SCRIPT = '''
import numpy as np
import openspore as ms
from openspore import nn
ms.set_context(mode=ms.GRAPH_MODE)


class LeNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 5, pad_mode="valid")
        self.conv2 = nn.Conv2d(4, 8, 5, pad_mode="valid")
        self.fc = nn.Dense(8 * 5 * 5, 10)
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
        self.flatten = nn.Flatten()

    def construct(self, x):
        x = self.pool(self.relu(self.conv1(x)))  # CONV1
        x = self.pool(self.relu(self.conv2(x)))
        return self.fc(self.flatten(x))  # FC


class Classifier(nn.Cell):
    def __init__(self):
        super().__init__()
        self.backbone = LeNet()

    def construct(self, x):
        return self.backbone(x)  # BACKBONE


net = Classifier()
loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.Momentum(net.trainable_params(), 0.05, 0.9))
rng = np.random.default_rng(0)
x = ms.Tensor(rng.standard_normal((4, 1, 32, 32)).astype(np.float32))
y = ms.Tensor(rng.integers(0, 10, 4).astype(np.int32))
for _ in range(2):
    step(x, y)  # STEP
'''


def _marked_line(text, marker):
    return next(k for k, line in enumerate(text.splitlines(), 1) if line.endswith(f"# {marker}"))


def test_every_node_of_a_user_script_names_its_code_backward_nodes_too(tmp_path):
    script = tmp_path / "train_lenet.py"
    script.write_text(USER_SCRIPT)
    cfg = tmp_path / "dump.json"
    cfg.write_text(json.dumps(_config(tmp_path / "dump", iteration="1")))
    run = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                         env=child_env(MINDSPORE_DUMP_CONFIG=str(cfg)))
    assert run.returncode == 0, run.stderr
    analyzer = DumpAnalyzer(str(tmp_path / "dump"))
    kernels = [n for n in analyzer.nodes() if not n.record.is_parameter]
    # every kernel, forward, backward and optimizer alike, names a line of the script (the optimizer's, made by
    # openspore's TrainOneStepCell, the line that ran the step)
    assert kernels and all(any(f.file_path == str(script) for f in n.stack) for n in kernels), \
        [n.name for n in kernels if not n.stack]
    conv1_line = _marked_line(USER_SCRIPT, "CONV1")
    found = analyzer.select_nodes(f"train_lenet.py:{conv1_line}", select_by="code_stack")
    names = [n.name for n in found]
    forward_conv = [n for n in found if n.name.endswith("conv1-Conv2d/Conv2D-op0")]
    assert len(forward_conv) == 1 and not any("conv2" in name for name in names)
    backward = [n for n in found if n.name.startswith("Gradients/")]
    assert {n.op_type for n in backward} >= {"Conv2DBackpropFilter", "ReluGrad"}
    assert all(n.category == "gradient" for n in backward)
    assert any("/backbone-LeNet/conv1-Conv2d/Grad_Conv2D/Conv2DBackpropFilter-op" in name for name in names)
    # whole stacks, outermost first (MindSpore's order): Classifier's line, then LeNet's
    stack = [(f.file_path, f.line_no) for f in forward_conv[0].stack]
    assert stack == [(str(script), _marked_line(USER_SCRIPT, "BACKBONE")), (str(script), conv1_line)]
    filter_grad = next(n for n in backward if n.op_type == "Conv2DBackpropFilter")
    assert filter_grad.stack == forward_conv[0].stack
    assert "x = self.pool(self.relu(self.conv1(x)))" in str(forward_conv[0].stack[-1])
    step_line = _marked_line(USER_SCRIPT, "STEP")
    update = [n for n in kernels if "optimizer-Momentum" in n.name]
    assert update and all(n.stack[-1].line_no == step_line for n in update)
    # the gradient category is read off the graph: MindInsight's gradient watchpoint now has targets
    recommended = {wp.name: wp for wp in analyzer.recommend_watchpoints()}
    assert "recommend_gradient_vanishing_watchpoint" in recommended
    # and the dumped values of a backward kernel are there to check
    assert filter_grad.get_output_tensors(iterations=[1])[0].value().shape == (4, 1, 5, 5)
