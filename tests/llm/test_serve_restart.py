"""A generation worker killed mid-generation: its in-flight requests fail with a clear error (an SSE error event
for a stream, 503 for a plain request), the worker is restarted, and the servable serves again."""
import json
import os
import signal
import threading
import time

import pytest
import requests

from openspore.serving import server
from tests.llm.serve_support import save_tiny_model, write_llm_servable
from tests.serving.conftest import RunningServer


@pytest.fixture(scope="module")
def running(tmp_path_factory):
    model_dir = str(tmp_path_factory.mktemp("tiny_gpt"))
    save_tiny_model(model_dir)
    root = str(tmp_path_factory.mktemp("servables"))
    write_llm_servable(root, "gpt", model_dir, max_queue=16, block_size=8, num_blocks=256, max_batch_size=8,
                       max_model_len=512)
    # max_batch_size caps the sequences decoded together (the declaration allows the engine's 8)
    srv = RunningServer([server.ServableStartConfig(root, "gpt", max_batch_size=4)], tmp_path_factory.mktemp("logs"))
    yield srv
    srv.stop()


def test_max_batch_size_caps_the_running_sequences(running):
    metrics = requests.get(f"http://{running.rest}/metrics", timeout=30).text
    assert 'openspore_llm_scheduler{servable="gpt",stat="max_running"} 4.0' in metrics


def test_killed_worker_fails_in_flight_requests_and_serves_again(running):
    url = f"http://{running.rest}/v1/completions"
    body = {"model": "gpt", "prompt": "long story", "max_tokens": 500, "temperature": 0, "ignore_eos": True}
    plain = {}
    waiter = threading.Thread(target=lambda: plain.setdefault("r", requests.post(url, json=body, timeout=120)))
    waiter.start()
    stream = requests.post(url, json=dict(body, stream=True), stream=True, timeout=120)
    lines = stream.iter_lines()
    assert next(line for line in lines if line.startswith(b"data: "))
    (pid,) = running.worker_pids()
    os.kill(pid, signal.SIGKILL)           # 500 tokens take far longer than reaching this line
    events = [line[6:].decode() for line in lines if line.startswith(b"data: ")]
    stream.close()
    assert events and events[-1] != "[DONE]"
    error = json.loads(events[-1])["error"]
    assert "worker process" in error["message"] and "exited" in error["message"], error
    waiter.join(120)
    r = plain["r"]
    if r.status_code != 200:                 # in flight when the worker died (it may also have finished first)
        assert r.status_code == 503 and "exited" in r.json()["error"]["message"]
    deadline = time.monotonic() + 120
    while True:
        ready = [w for w in running.workers if w.ready and w.pid != pid]
        if ready:
            break
        assert time.monotonic() < deadline, "the worker was not restarted"
        time.sleep(0.1)
    again = requests.post(url, json=dict(body, max_tokens=5), timeout=120)
    assert again.status_code == 200, again.text
    assert again.json()["usage"]["completion_tokens"] == 5
    assert again.json()["choices"][0]["finish_reason"] == "length"
