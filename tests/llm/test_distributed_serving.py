"""A distributed generation servable (MindSpore Serving's start_servable / startup_agents): a GPT split over 2
agent processes on 127.0.0.1 serves the same greedy text as one process behind the OpenAI routes; killing an
agent fails the request in flight with a clear error, and restarted agents serve again."""
import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import threading
import time

import pytest
import requests

from openspore.llm import LLMEngine, SamplingParams, generate
from openspore.serving import server
from openspore.serving.server import _server
from openspore.serving.server.master import context
from openspore.serving.server import distributed
from openspore.serving.server.distributed.register import ENV
from tests.communication.launch import free_port
from tests.conftest import child_env
from tests.llm.serve_support import ByteTokenizer, tiny_config
from tests.llm.test_tensor_parallel import write_model

ENGINE_KW = dict(block_size=8, num_blocks=128, max_batch_size=4, max_model_len=512)
LAUNCH = ("import sys; from openspore.serving.server import distributed; "
          "distributed.startup_agents(sys.argv[1], [sys.argv[2], sys.argv[2]], agent_start_port=int(sys.argv[3]))")


class Agents:
    """`startup_agents` for 2 ranks in a process of its own; `pids` maps rank → agent pid once it is ready."""

    def __init__(self, address, ckpt, port):
        self.proc = subprocess.Popen([sys.executable, "-c", LAUNCH, address, ckpt, str(port)], env=child_env(),
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                     start_new_session=True)
        self.lines, self.pids = [], {}
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.append(line)
            found = re.match(r"agent rank (\d+) \(pid (\d+)\) ready", line)
            if found:
                self.pids[int(found.group(1))] = int(found.group(2))

    def stop(self):
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(30)


@pytest.fixture(scope="module")
def deployment(tmp_path_factory):
    model_dir = str(tmp_path_factory.mktemp("model"))
    ckpt, config = write_model(model_dir, tiny_config())
    root = str(tmp_path_factory.mktemp("servables"))
    os.makedirs(os.path.join(root, "gpt", "1"))
    os.symlink(config, os.path.join(root, "gpt", "1", "config.json"))
    with open(os.path.join(root, "gpt", "servable_config.py"), "w") as f:
        f.write(textwrap.dedent(f"""\
            from openspore.serving.server import distributed
            from openspore.llm.tokenizer import ByteTokenizer

            distributed.declare_llm_servable(rank_size=2, config="config.json", tokenizer=ByteTokenizer(),
                                             max_queue=16, **{ENGINE_KW!r})
            """))
    table = os.path.join(root, "rank_table.json")
    with open(table, "w") as f:
        json.dump({"version": "1.0", "server_count": "1", "server_list": [{"server_id": "127.0.0.1", "device": [
            {"device_id": "0", "device_ip": "127.0.0.1", "rank_id": "0"},
            {"device_id": "1", "device_ip": "127.0.0.1", "rank_id": "1"}]}]}, f)
    address = f"127.0.0.1:{free_port()}"
    agent_port = free_port()
    agents = [Agents(address, ckpt, agent_port)]
    saved = {k: os.environ.get(k) for k in (ENV, "PYTHONPATH")}
    started, workers = False, []
    try:
        context.set_worker_log_dir(str(tmp_path_factory.mktemp("logs")))
        os.environ["PYTHONPATH"] = child_env()["PYTHONPATH"]  # agents and worker import this checkout
        started = True
        distributed.start_servable(root, "gpt", table, 1, address, wait_agents_time_in_seconds=300)
        workers = list(_server._MASTER.workers.workers)
        rest = server.start_restful_server("127.0.0.1:0")
        yield {"rest": rest, "agents": agents, "address": address, "ckpt": ckpt, "config": config,
               "agent_port": agent_port}
    finally:
        if started:
            server.stop()
        for a in agents:
            a.stop()
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    assert all(w.proc.poll() is not None for w in workers)  # no orphan worker


def one_process_text(ckpt, config, prompt, max_tokens):
    engine = LLMEngine.from_checkpoint(ckpt, config, **ENGINE_KW)
    tokens = generate(engine, [ByteTokenizer().encode(prompt)], SamplingParams(max_tokens=max_tokens, temperature=0))
    return ByteTokenizer().decode(tokens[0]), len(tokens[0])


def complete(rest, prompt, max_tokens, **extra):
    body = {"model": "gpt", "prompt": prompt, "max_tokens": max_tokens, "temperature": 0, "ignore_eos": True}
    return requests.post(f"http://{rest}/v1/completions", json=dict(body, **extra), timeout=300, **(
        {"stream": True} if extra.get("stream") else {}))


def test_two_agents_serve_the_one_process_text(deployment):
    for prompt in ("hello", "a much longer prompt for the model"):
        want, count = one_process_text(deployment["ckpt"], deployment["config"], prompt, 12)
        r = complete(deployment["rest"], prompt, 12)
        assert r.status_code == 200, r.text
        assert r.json()["choices"][0]["text"] == want
        assert r.json()["usage"]["completion_tokens"] == count
    models = requests.get(f"http://{deployment['rest']}/v1/models", timeout=30).json()
    assert [m["id"] for m in models["data"]] == ["gpt"]  # the master sees one model


def test_killed_agent_fails_in_flight_and_restarted_agents_serve_again(deployment):
    rest, agents = deployment["rest"], deployment["agents"]
    stream = complete(rest, "long story", 480, stream=True)
    lines = stream.iter_lines()
    assert next(line for line in lines if line.startswith(b"data: "))
    os.kill(agents[0].pids[1], signal.SIGKILL)        # 480 tokens take far longer than reaching this line
    events = [line[6:].decode() for line in lines if line.startswith(b"data: ")]
    stream.close()
    assert events and events[-1] != "[DONE]"
    message = json.loads(events[-1])["error"]["message"]
    assert "agent rank" in message and "startup_agents" in message, message
    agents[0].proc.wait(60)                           # startup_agents stops the other agent and ends
    assert agents[0].proc.returncode != 0
    down = complete(rest, "hello", 4)                 # no agents: a clear error at once, not a hang
    assert down.status_code != 200 and "no running agents" in down.text, down.text
    agents.append(Agents(deployment["address"], deployment["ckpt"], deployment["agent_port"]))
    deadline = time.monotonic() + 240
    want, _ = one_process_text(deployment["ckpt"], deployment["config"], "hello", 6)
    while True:
        again = complete(rest, "hello", 6)
        if again.status_code == 200:
            break
        assert time.monotonic() < deadline, f"the restarted agents never served: {again.text}\n" + \
            "".join(agents[-1].lines[-20:])
        time.sleep(1)
    assert again.json()["choices"][0]["text"] == want


def test_bad_arguments_are_refused(tmp_path):
    with pytest.raises(RuntimeError, match="does not exist"):
        distributed.startup_agents("127.0.0.1:1", [str(tmp_path / "missing.ckpt")])
    with pytest.raises(RuntimeError, match="both set or both None"):
        distributed.startup_agents("127.0.0.1:1", [__file__], agent_ip="127.0.0.1")
    with pytest.raises(RuntimeError, match="ip:port"):
        distributed.startup_agents("nowhere", [__file__])
    table = tmp_path / "t.json"
    table.write_text(json.dumps({"server_list": [{"device": [{"rank_id": 0}]}]}))
    with pytest.raises(RuntimeError, match="string rank_id"):
        distributed.start_servable(str(tmp_path), "gpt", str(table), 1, "127.0.0.1:0")
    with pytest.raises(RuntimeError, match="stage_size"):
        distributed.declare_llm_servable(2, 3, config="c.json", tokenizer="t")
