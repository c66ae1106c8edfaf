"""Worker processes die and come back: a killed worker is restarted and its in-flight requests are retried once
(none is lost); an instance that kills every worker it runs on fails with a clear error; stop() drains."""
import concurrent.futures
import glob
import os
import signal
import time

import numpy as np
import pytest

from openspore.serving import server
from openspore.serving.client import Client
from tests.serving import servables
from tests.serving.conftest import write_servable


@pytest.fixture(scope="module")
def slow(start_server, tmp_path_factory):
    root = str(tmp_path_factory.mktemp("slow"))
    marks = str(tmp_path_factory.mktemp("marks"))
    write_servable(root, "slow", servables.SLOW)
    saved = os.environ.get("OPENSPORE_TEST_MARK_DIR")
    os.environ["OPENSPORE_TEST_MARK_DIR"] = marks
    try:
        running = start_server([server.ServableStartConfig(root, "slow", device_ids=(0, 1))], rest=False)
    finally:
        if saved is None:
            del os.environ["OPENSPORE_TEST_MARK_DIR"]
        else:
            os.environ["OPENSPORE_TEST_MARK_DIR"] = saved
    running.marks = marks
    return running


def wait_all_ready(running, timeout=30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if all(w.state == "ready" for w in running.workers):
            return
        time.sleep(0.05)
    raise AssertionError(f"workers not ready again: {running.workers}")


def clear_marks(running):
    for path in glob.glob(os.path.join(running.marks, "*")):
        os.remove(path)


def wait_mark(running, timeout=20):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = [p for p in glob.glob(os.path.join(running.marks, "inflight_*")) if not p.endswith(".tmp")]
        if found:
            pid = int(open(found[0]).read())
            os.remove(found[0])
            return pid
        time.sleep(0.01)
    raise AssertionError("the marked request never reached a worker")


def test_killed_worker_is_restarted_and_its_request_retried(slow):
    client = Client(slow.grpc, "slow", "double")
    clear_marks(slow)
    before = set(slow.worker_pids())
    future = client.infer_async({"x": np.float32(5), "tag": "mark"})
    victim = wait_mark(slow)
    assert victim in before
    os.kill(victim, signal.SIGKILL)
    result = future.result()
    assert isinstance(result, list), result
    assert float(result[0]["y"]) == 10.0 and int(result[0]["pid"]) != victim
    wait_all_ready(slow)
    after = set(slow.worker_pids())
    assert victim not in after and len(after) == 2
    assert slow.master.metrics.restarts._value.get() >= 1


def test_no_request_is_lost_when_a_worker_dies_under_load(slow):
    wait_all_ready(slow)
    client = Client(slow.grpc, "slow", "double")
    pool = concurrent.futures.ThreadPoolExecutor(8)
    try:
        futures = [pool.submit(client.infer, [{"x": np.float32(i), "tag": "slow"}]) for i in range(40)]
        time.sleep(0.3)
        os.kill(slow.worker_pids()[0], signal.SIGKILL)
        results = [f.result(timeout=60) for f in futures]  # a master that hangs fails here, not for good
    finally:
        pool.shutdown(wait=False, cancel_futures=True)  # calls stuck on a hung master end when it stops
    assert all(isinstance(r, list) for r in results), [r for r in results if not isinstance(r, list)]
    assert [float(r[0]["y"]) for r in results] == [2.0 * i for i in range(40)]


def test_an_instance_that_kills_its_workers_fails_after_one_retry(slow):
    wait_all_ready(slow)
    client = Client(slow.grpc, "slow", "double")
    result = client.infer({"x": np.float32(1), "tag": "crash"})
    assert isinstance(result, dict), result
    assert "exited" in result["error"] and "retried once" in result["error"]
    ok = client.infer({"x": np.float32(2), "tag": "ok"})     # waits for a restarted worker
    assert float(ok[0]["y"]) == 4.0
    wait_all_ready(slow)


def test_stop_drains_in_flight_requests(slow):
    wait_all_ready(slow)
    client = Client(slow.grpc, "slow", "double")
    clear_marks(slow)      # the retried request of the first test left the mark of the second worker it ran on
    future = client.infer_async({"x": np.float32(21), "tag": "mark"})
    wait_mark(slow)
    pids = slow.worker_pids()
    slow.stop()                       # returns after the in-flight request was answered and the workers left
    result = future.result()
    assert float(result[0]["y"]) == 42.0
    assert all(not os.path.exists(f"/proc/{pid}") or open(f"/proc/{pid}/stat").read().split()[2] == "Z"
               for pid in pids)
    refused = client.infer({"x": np.float32(1), "tag": "ok"})
    assert refused["error"].startswith("Grpc Error, (14, 'unavailable')")
