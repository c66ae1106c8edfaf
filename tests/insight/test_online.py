"""Online debugging: a GRAPH_MODE (or PyNative) training process connects to a DebugServer over gRPC (127.0.0.1,
free port) and is paused, stepped, inspected and rechecked."""
import subprocess
import sys

import numpy as np
import pytest

from openspore.insight.debugger.server import DebugServer
from tests.conftest import REPO, child_env

SCRIPT = """
import sys
import openspore as ms
from tests.insight import nets
ms.set_context(mode=ms.PYNATIVE_MODE if len(sys.argv) > 3 else ms.GRAPH_MODE)
ms.set_seed(0)
net, step = nets.train_step(lr=float(sys.argv[1]))
x, y = nets.data()
for i in range(int(sys.argv[2])):
    print("step", i, float(step(x, y).asnumpy()), flush=True)
"""


def _start_training(server, lr, steps, *mode):
    return subprocess.Popen([sys.executable, "-c", SCRIPT, str(lr), str(steps), *mode], cwd=REPO, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            env=child_env(ENABLE_MS_DEBUGGER="1", MS_DEBUGGER_HOST="127.0.0.1",
                                          MS_DEBUGGER_PORT=str(server.port)))


@pytest.fixture
def server():
    with DebugServer(port=0) as s:
        yield s


def _finish(proc):
    try:
        out, err = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
    return proc.returncode, out, err


def test_diverging_run_pauses_at_the_hit_and_is_inspected(server):
    proc = _start_training(server, 1e10, 6)
    try:
        assert server.wait_until_waiting(120) == "waiting" and server.step == 0  # waits before the first step
        loss = [n["name"] for n in server.graph if "SoftmaxCrossEntropy" in n["name"] and n["category"] == "tensor"]
        assert loss and any(n["category"] == "weight" for n in server.graph)
        server.set_watchpoint("tensor_overflow")
        server.continue_training()
        assert server.wait_until_waiting(120) == "waiting"
        assert server.step == 1  # the first step whose tensors overflow (loss inf at step 1)
        assert server.hits and {h["iteration"] for h in server.hits} == {1}
        assert all(h["condition"] == "TensorOverflow" and h["tuning_hints"] for h in server.hits)
        values = server.read_tensors(loss[:1])
        assert not np.isfinite(values[loss[0]]).all()
        stats = server.tensor_statistics(loss[0])
        assert stats["pos_inf_count"] + stats["nan_count"] + stats["neg_inf_count"] > 0
        # rules change: recheck the paused step without running training
        server.remove_watchpoint(1)
        server.set_watchpoint("weight_too_large", abs_mean_gt=1e3)
        rechecked = server.recheck()
        assert rechecked and {h["condition"] for h in rechecked} == {"TensorTooLarge"}
        assert all(h["iteration"] == 1 for h in rechecked) and server.step == 1
        # run one step, then step node by node
        server.run(1)
        assert server.wait_until_waiting(120) == "waiting" and server.step == 2
        server.step_node()
        assert server.wait_until_waiting(120) == "waiting"
        assert server.metadata["cur_node"].endswith("conv1-Conv2d/Conv2D-op0")
        server.terminate()
        code, out, err = _finish(proc)
        assert code != 0 and "terminated by the debugger" in err
        assert out.count("step ") == 3  # steps 0-2 finished; step 3 stopped after its first kernel
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


def test_normal_run_with_recommended_watchpoints_finishes_without_false_alarms(server):
    proc = _start_training(server, 0.05, 3)
    try:
        server.wait_until_waiting(120)
        ids = server.recommend_watchpoints()
        names = {server.watchpoints[i]["name"] for i in ids}
        assert "recommend_tensor_overflow_watchpoint" in names
        for i in ids:  # a fresh LeNet legitimately has all-zero gradients in places; keep overflow and weights
            if server.watchpoints[i]["name"] not in ("recommend_tensor_overflow_watchpoint",
                                                     "recommend_weight_change_too_large_watchpoint"):
                server.remove_watchpoint(i)
        server.continue_training()
        assert server.wait_until_waiting(120) == "terminated"
        assert server.hit_history == []
        code, out, err = _finish(proc)
        assert code == 0, err
        assert out.count("step ") == 3
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


def test_pynative_run_pauses_at_the_same_hit(server):
    proc = _start_training(server, 1e10, 5, "pynative")
    try:
        # PyNative connects after its first step (its kernels are known then), before checking it
        assert server.wait_until_waiting(120) == "waiting" and server.step == 0
        names = [n["name"] for n in server.graph]
        assert "Default/Conv2D-op0" in names and any(n["category"] == "weight" for n in server.graph)
        grads = [n for n in server.graph if n["category"] == "gradient"]
        assert any(n["name"].startswith("Gradients/Default/Grad_Conv2D/Conv2DBackpropFilter-op") for n in grads)
        conv = next(n for n in server.graph if n["name"] == "Default/Conv2D-op0")
        assert any(f"nets.py:{22}" in frame for frame in conv["stack"])
        server.set_watchpoint("tensor_overflow")
        server.continue_training()
        assert server.wait_until_waiting(120) == "waiting"
        assert server.step == 1 and server.hits and {h["iteration"] for h in server.hits} == {1}
        loss = [h["node_name"] for h in server.hits if "SparseSoftmaxCrossEntropyWithLogits" in h["node_name"]]
        assert loss and not np.isfinite(server.read_tensors(loss[:1])[loss[0]]).all()
        server.remove_watchpoint(1)
        server.set_watchpoint("weight_too_large", abs_mean_gt=1e3)
        assert {h["condition"] for h in server.recheck()} == {"TensorTooLarge"}
        server.terminate()
        code, _out, err = _finish(proc)
        assert code != 0 and "terminated by the debugger" in err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


def test_bad_debugger_settings_are_reported(tmp_path):
    run = subprocess.run([sys.executable, "-c", SCRIPT, "0.05", "1"], cwd=REPO, capture_output=True, text=True,
                         timeout=120, env=child_env(ENABLE_MS_DEBUGGER="1", MS_DEBUGGER_HOST="127.0.0.1",
                                                    MS_DEBUGGER_PORT="70000"))
    assert run.returncode != 0 and "MS_DEBUGGER_PORT" in run.stderr
