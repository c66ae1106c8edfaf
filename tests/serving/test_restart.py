"""A server can be started again on the same ports right after it stopped (issue 20, item 2): connections it
closed sit in TIME_WAIT, which must not block the next bind. In-process (REST restarted twice) and with the
`openspore serve` command on the shipped example (serve → Ctrl-C → serve → Ctrl-C → serve)."""
import os
import queue
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time

import requests

from openspore.serving import server
from openspore.serving.client import Client
from tests.conftest import child_env
from tests.serving.conftest import REPO, RunningServer
from tests.serving.test_hardening import make_servables

EXAMPLE = os.path.join(REPO, "examples", "serving")


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_rest_port_rebinds_right_after_a_server_that_answered_stops(tmp_path):
    running = RunningServer(make_servables(str(tmp_path / "servables")), tmp_path / "logs", grpc=False, rest=False)
    try:
        port = _free_port()
        for _ in range(3):  # the first start, then two restarts on the same port
            address = server.start_restful_server(f"127.0.0.1:{port}")
            with requests.Session() as session:  # keep-alive: the server closes the connections when it stops
                for _ in range(3):
                    assert session.post(f"http://{address}/model/pyfunc:sqrt", json={"instances": [{"x": 1.0}]},
                                        timeout=10).status_code == 200
                running.master.rest_server.stop()
                running.master.rest_server = None
    finally:
        running.stop()


class Serve:
    """`python -m openspore serve ...` with its output collected; `wait_for(text)` blocks until a line has it."""

    def __init__(self, args, cwd):
        self.proc = subprocess.Popen([sys.executable, "-m", "openspore", "serve", *args], stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True, env=child_env(), cwd=cwd)
        self.lines, self.output = queue.Queue(), []
        threading.Thread(target=lambda: [self.lines.put(line) for line in self.proc.stdout], daemon=True).start()

    def wait_for(self, text, timeout=90):
        deadline = time.monotonic() + timeout
        while not any(text in line for line in self.output):
            try:
                self.output.append(self.lines.get(timeout=0.2))
            except queue.Empty:
                if time.monotonic() > deadline or (self.proc.poll() is not None and self.lines.empty()):
                    raise AssertionError(f"no line with {text!r}:\n" + "".join(self.output)) from None
        return "".join(self.output)

    def interrupt(self):
        self.proc.send_signal(signal.SIGINT)
        code = self.proc.wait(timeout=60)
        self.wait_for("Serving: stopped", timeout=10)
        return code

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def prepared_example(tmp_path):
    root = tmp_path / "servables"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns("__pycache__", "[0-9]", "serving_logs"))
    prepare = subprocess.run([sys.executable, str(root / "prepare.py"), "--steps", "1", "--servable-dir", str(root)],
                             capture_output=True, text=True, env=child_env(), timeout=120)
    assert prepare.returncode == 0, prepare.stderr
    return root


def test_serve_ctrl_c_serve_on_the_same_ports(tmp_path):
    root = prepared_example(tmp_path)
    grpc_port, rest_port = _free_port(), _free_port()
    image = [{"image": __import__("numpy").zeros((1, 32, 32), "float32")}]
    for run in range(3):
        serve = Serve([str(root), "--grpc", f"127.0.0.1:{grpc_port}", "--rest", f"127.0.0.1:{rest_port}",
                       "--log-dir", str(tmp_path / "logs")], cwd=tmp_path)
        try:
            serve.wait_for("ready; press Ctrl-C")
            with requests.Session() as session:
                reply = session.post(f"http://127.0.0.1:{rest_port}/model/lenet:predict",
                                     json={"instances": [{"image": [[[0.0] * 32] * 32]}]}, timeout=30)
                assert reply.status_code == 200, reply.text
            assert "logits" in Client(f"127.0.0.1:{grpc_port}", "lenet", "predict").infer(image)[0]
            assert serve.interrupt() == 0, f"run {run}:\n" + "".join(serve.output)
        finally:
            serve.kill()
