"""`inference_engine="auto"` measures again while it serves (runtime/inference.py `Measured`): the close
candidates stay contenders, are timed every `REMEASURE_EVERY` calls, and the fastest then serves; ONNX
Runtime's spinning session (runtime/engines.py) is one of them when there are worker threads to spin."""
import time

import numpy as np
import pytest
import torch

import openspore as ms
from openspore.runtime import engines, inference
from tests.runtime.test_inference import _block


class _Timed:
    """An engine stand-in for `Measured`'s selection logic alone: returns `out`, taking `delay` seconds."""

    def __init__(self, out, delay):
        self.out, self.delay, self.calls = out, delay, 0

    def __call__(self, *arrays):
        self.calls += 1
        end = time.perf_counter() + self.delay
        while time.perf_counter() < end:  # busy, as an engine's call is: sleep's granularity is too coarse
            pass
        return [self.out]


def _measured(monkeypatch, delays, constant_bytes=0, every=4):
    monkeypatch.setattr(inference, "REMEASURE_EVERY", every)
    out = torch.ones(2)
    torch_run = _Timed(out, delays["torch"])
    torch_run.out_dtypes = [ms.float32]
    others = {name: _Timed(out, d) for name, d in delays.items() if name != "torch"}
    return inference.Measured(torch_run, others, "net", constant_bytes), {"torch": torch_run, **others}


def test_close_candidates_are_measured_again_and_the_fastest_serves(monkeypatch):
    measured, runs = _measured(monkeypatch, {"torch": 0.004, "a": 0.001, "b": 0.0012})
    measured(np.zeros(2))
    assert measured.chosen == "a" and measured.measurements == 1
    assert set(measured.candidates) == {"a", "b"}  # torch is 4x slower: dropped
    runs["a"].delay = 0.003  # "a" slows down (its machine got busy): the next measurement moves to "b"
    calls_before = runs["b"].calls
    for _ in range(4):
        measured(np.zeros(2))
    assert measured.measurements == 2 and measured.chosen == "b"
    assert runs["b"].calls > calls_before
    served = runs["b"].calls
    measured(np.zeros(2))
    assert runs["b"].calls == served + 1  # one call, on the new choice, no measurement


def test_large_graphs_keep_only_the_choice(monkeypatch):
    measured, runs = _measured(monkeypatch, {"torch": 0.001, "a": 0.0011}, constant_bytes=inference.CONTENDER_BYTES + 1)
    measured(np.zeros(2))
    assert set(measured.candidates) == {measured.chosen}
    counts = {n: r.calls for n, r in runs.items()}
    for _ in range(10):
        measured(np.zeros(2))
    assert measured.measurements == 1
    assert runs[measured.chosen].calls == counts[measured.chosen] + 10


def test_auto_serves_a_network_and_reports_its_measurements(monkeypatch):
    if not engines.available():
        pytest.skip("no inference engine installed (pip install 'openspore[infer]')")
    monkeypatch.setattr(inference, "REMEASURE_EVERY", 3)
    monkeypatch.setattr(inference, "CONTENDER_RATIO", 1e9)  # every candidate stays a contender
    net, x = _block()
    ms.set_context(mode=ms.GRAPH_MODE, inference_engine="off")
    want = [o.asnumpy() for o in net(x)]
    ms.set_context(inference_engine="auto")
    for _ in range(7):
        got = [o.asnumpy() for o in net(x)]
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-4)
    report = ms.runtime.inference_report(net)
    assert report["measurements"] >= 2
    assert set(report["contenders"]) == set(inference.auto_candidates())
    assert report["engine"] == min(report["timings_ms"], key=report["timings_ms"].get)


@pytest.mark.skipif("onnxruntime" not in engines.available(), reason="onnxruntime is not installed")
def test_the_spinning_session_agrees_and_is_a_candidate_only_with_workers():
    net, x = _block()
    ms.set_context(mode=ms.GRAPH_MODE, inference_engine="onnxruntime")
    net(x)
    from openspore.runtime.jit import cell_cache
    graph = cell_cache(net).last_entry.graph  # the folded graph the engine took
    arrays = [x._data]
    plain = engines.EngineGraph(graph, "onnxruntime", "block")
    spinning = engines.EngineGraph(graph, "onnxruntime", "block", spin=True)
    for a, b in zip(plain(*arrays), spinning(*arrays)):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    threads = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        assert inference.SPINNING not in inference.auto_candidates()
        torch.set_num_threads(2)
        assert inference.SPINNING in inference.auto_candidates()
    finally:
        torch.set_num_threads(threads)


def test_version_tuple():
    assert engines._version_tuple("1.32.0") == (1, 32)
    assert engines._version_tuple("1.26.0.dev20260401") == (1, 26)
    assert engines._version_tuple("2.0") >= (1, 26) > engines._version_tuple("1.25.1")
