"""A server can be started again on the same ports right after it stopped (issue 20, item 2): connections it
closed sit in TIME_WAIT, which must not block the next bind. In-process (REST restarted twice) and with the
`openspore serve` command on the shipped example (serve → Ctrl-C → serve → Ctrl-C → serve)."""
import numpy as np
import requests

from openspore.serving import server
from openspore.serving.client import Client
from tests.serving.conftest import RunningServer
from tests.serving.example_support import Serve, free_port, prepared_example
from tests.serving.test_hardening import make_servables


def test_rest_port_rebinds_right_after_a_server_that_answered_stops(tmp_path):
    running = RunningServer(make_servables(str(tmp_path / "servables")), tmp_path / "logs", grpc=False, rest=False)
    try:
        port = free_port()
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


def test_serve_ctrl_c_serve_on_the_same_ports(tmp_path):
    root = prepared_example(tmp_path / "servables")
    grpc_port, rest_port = free_port(), free_port()
    image = [{"image": np.zeros((1, 32, 32), np.float32)}]
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
