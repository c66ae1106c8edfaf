"""The op-level profiler: PyNative and graph-mode kernel times, the files it writes, start/stop leaving nothing
installed, and the schedule of `profile`."""
import csv
import json
import os

import numpy as np
import pytest

import openspore as ms
from openspore import nn, ops
from openspore.core.primitive import Primitive
from openspore.runtime import events


@pytest.fixture(autouse=True)
def _pynative():
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


def test_pynative_calls_are_counted_and_files_written(tmp_path):
    original = Primitive.__call__
    x = ms.Tensor(np.ones((3, 3), np.float32))
    prof = ms.Profiler(output_path=str(tmp_path))
    assert Primitive.__call__ is not original
    for _ in range(5):
        ops.relu(ops.matmul(x, x))
        prof.step()
    prof.analyse()
    assert Primitive.__call__ is original and events.graph_observer() is None
    ops.matmul(x, x)  # after stop: not recorded
    assert [e.op_type for e in prof.events].count("MatMul") == 5
    assert prof.op_analyse("ReLU")["ReLU"]["calls"] == 5
    assert os.path.dirname(prof.run_dir) == str(tmp_path) and prof.run_dir.endswith("_ascend_ms")
    with open(prof.files["op_type"]) as f:
        rows = {r["op_type"]: r for r in csv.DictReader(f)}
    assert rows["MatMul"]["type_occurrences"] == "5" and rows["MatMul"]["execution_frequency(per-step)"] == "1"
    assert abs(sum(float(r["percent"]) for r in rows.values()) - 1.0) < 1e-3
    trace = json.load(open(prof.files["trace"]))
    spans = [e for e in trace if e["ph"] == "X"]
    assert len(spans) == 10 and all(e["dur"] >= 0 for e in spans)
    assert spans[0]["args"]["input_shapes"] == [[3, 3], [3, 3]]
    summary = open(prof.files["summary"]).read()
    assert "MatMul" in summary and "10 kernel calls over 5 step(s)" in summary


def test_nested_calls_are_charged_as_self_time(tmp_path):
    """The backward rules' ops are their own entries; totals never exceed the wall time of the profiled block."""
    import time
    net = nn.Dense(4, 2)
    x = ms.Tensor(np.ones((8, 4), np.float32))
    prof = ms.Profiler(output_path=str(tmp_path))
    start = time.perf_counter_ns()
    ms.grad(lambda v: net(v).sum(), weights=net.trainable_params())(x)
    wall = time.perf_counter_ns() - start
    prof.stop()
    assert sum(e.dur_ns for e in prof.events) <= wall
    assert len({e.op_type for e in prof.events}) >= 3  # forward, reduction and backward kernels


def test_graph_mode_kernels_are_timed_with_scope_names(tmp_path):
    net = nn.SequentialCell(nn.Dense(4, 8), nn.ReLU(), nn.Dense(8, 2))
    x = ms.Tensor(np.ones((3, 4), np.float32))
    ms.set_context(mode=ms.GRAPH_MODE)
    expected = net(x).asnumpy()  # compiled before profiling: recompiled with the timing hooks
    with ms.Profiler(output_path=str(tmp_path)) as prof:
        for _ in range(2):
            np.testing.assert_allclose(net(x).asnumpy(), expected)
    graph = [e for e in prof.events if e.mode == "Graph"]
    assert [e.op_type for e in graph].count("ReLU") == 2
    assert any(e.op_name.startswith("Default/") and "ReLU" in e.op_name for e in graph)
    assert events.graph_observer() is None
    with open(prof.files["op_detail"]) as f:
        names = [r["full_op_name"] for r in csv.DictReader(f)]
    assert any("ReLU" in n for n in names)


def test_profiler_options_and_errors(tmp_path):
    prof = ms.Profiler(output_path=str(tmp_path), start_profile=False, profiler_level=ms.profiler.ProfilerLevel.Level1)
    ops.relu(ms.Tensor(np.ones(2, np.float32)))
    assert prof.events == []
    with pytest.raises(TypeError, match="unexpected keyword"):
        ms.Profiler(output_dir=str(tmp_path))
    with pytest.raises(ValueError, match="offline"):
        ms.Profiler.offline_analyse(str(tmp_path))


def test_schedule_and_profile_on_trace_ready(tmp_path):
    sched = ms.profiler.schedule(wait=1, warmup=1, active=2, repeat=1, skip_first=1)
    assert [sched.records(s) for s in range(7)] == [False, False, False, True, True, False, False]
    ready = []
    x = ms.Tensor(np.ones(2, np.float32))
    prof = ms.profiler.profile(output_path=str(tmp_path), schedule=ms.profiler.schedule(wait=1, active=2),
                               on_trace_ready=lambda p: ready.append(len(p.events)))
    prof.start()
    for _ in range(3):
        ops.relu(x)
        prof.step()
    prof.stop()
    assert ready == [2]  # steps 1 and 2 recorded, step 0 waited
    with pytest.raises(ValueError, match="active"):
        ms.profiler.schedule(wait=0, active=0)
