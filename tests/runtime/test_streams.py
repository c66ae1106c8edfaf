"""Streams, events and the executor controls (synchronous CPU semantics)."""
import os

import pytest

import openspore as ms
from openspore import runtime


def test_current_stream_follows_set_cur_stream_and_stream_ctx():
    s, t = ms.Stream(), ms.Stream(priority=1)
    assert ms.current_stream() == ms.default_stream() and s != t and ms.communication_stream() != ms.default_stream()
    with ms.StreamCtx(s) as entered:
        assert entered == s and ms.current_stream() == s
        with ms.StreamCtx(t):
            assert ms.current_stream() == t
        assert ms.current_stream() == s
    assert ms.current_stream() == ms.default_stream()
    ms.set_cur_stream(t)
    try:
        assert runtime.current_stream() == t
    finally:
        ms.set_cur_stream(ms.default_stream())
    assert s.query() and s.synchronize() is None
    with pytest.raises(TypeError, match="Stream"):
        ms.set_cur_stream("default")
    with pytest.raises(TypeError, match="priority"):
        ms.Stream(priority="high")


def test_events_time_host_intervals():
    start, end = ms.Event(enable_timing=True), ms.Event(enable_timing=True)
    start.record()
    sum(range(20000))
    end.record(ms.Stream())
    assert start.elapsed_time(end) > 0.0 and end.query()
    untimed = ms.Event()
    untimed.record()
    with pytest.raises(RuntimeError, match="enable_timing"):
        untimed.elapsed_time(end)
    with pytest.raises(RuntimeError, match="recorded"):
        ms.Event(enable_timing=True).elapsed_time(end)
    assert ms.default_stream().record_event().stream == ms.default_stream()


def test_executor_controls():
    ms.launch_blocking()
    ms.dispatch_threads_num(4)
    settings = runtime.streams.runtime_settings()
    assert settings["launch_blocking"] and settings["dispatch_threads_num"] == 4
    with pytest.raises(ValueError, match="threads_num"):
        ms.dispatch_threads_num(0)


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="no CPU affinity on this platform")
def test_set_cpu_affinity_binds_and_restores():
    before = os.sched_getaffinity(0)
    first = min(before)
    ms.set_cpu_affinity(True, [str(first)])
    try:
        assert os.sched_getaffinity(0) == {first}
    finally:
        ms.set_cpu_affinity(False)
    assert os.sched_getaffinity(0) == before
    with pytest.raises(ValueError, match="core"):
        ms.set_cpu_affinity(True, ["a-b"])
    with pytest.raises(ValueError, match="module_to_cpu_dict"):
        ms.set_cpu_affinity(True, module_to_cpu_dict={"main": [0]})
