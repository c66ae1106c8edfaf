"""Serving under abuse (issue 20, items 2, 3 and 5): junk URLs do not grow /metrics, deeply nested JSON and
wrongly shaped gRPC tensors get clean errors, a client that hangs up mid-body is not a server error, and the
REST port can be bound again right after a server that answered requests stopped."""
import os
import socket
import types

import grpc
import numpy as np
import pytest
import requests

import openspore as ms
from openspore.serving import server
from openspore.serving.proto import ms_service_pb2 as pb
from openspore.serving.proto import ms_service_pb2_grpc as sgrpc
from tests.serving import servables
from tests.serving.conftest import write_servable
from tests.serving.nets import LeNet5


def make_servables(root):
    """`lenet` (a fresh LeNet5 checkpoint, per-instance input float32[1, 32, 32]) and `pyfunc`."""
    write_servable(root, "lenet", servables.LENET)
    os.makedirs(os.path.join(root, "lenet", "1"), exist_ok=True)
    ms.save_checkpoint(LeNet5(), os.path.join(root, "lenet", "1", "lenet5.ckpt"))
    write_servable(root, "pyfunc", servables.PYFUNC)
    return [server.ServableStartConfig(root, "lenet", device_ids=0), server.ServableStartConfig(root, "pyfunc",
                                                                                              device_ids=0)]


@pytest.fixture(scope="module")
def served(start_server, tmp_path_factory):
    running = start_server(make_servables(str(tmp_path_factory.mktemp("servables"))))
    return types.SimpleNamespace(server=running, grpc=running.grpc, rest=f"http://{running.rest}")


def metrics_text(served):
    return requests.get(f"{served.rest}/metrics", timeout=10).text


def test_junk_paths_do_not_grow_metrics(served):
    ok = requests.post(f"{served.rest}/model/pyfunc:sqrt", json={"instances": [{"x": 4.0}]}, timeout=10)
    assert ok.status_code == 200
    stub = sgrpc.MSServiceStub(grpc.insecure_channel(served.grpc))

    def grpc_junk(name):
        request = pb.PredictRequest()
        request.servable_spec.name, request.servable_spec.method_name = name, "x"
        request.instances.add()
        assert stub.Predict(request, timeout=10).error_msg

    for i in range(2):  # every junk kind once, so the 'unknown' series exist before measuring
        requests.post(f"{served.rest}/model/junk{i}:m{i}", json={"instances": [{"x": 1.0}]}, timeout=10)
        requests.post(f"{served.rest}/v2/models/junk{i}/infer", json={"inputs": []}, timeout=10)
        grpc_junk(f"junk{i}")
    before = metrics_text(served)
    with requests.Session() as session:
        for i in range(100):
            assert session.post(f"{served.rest}/model/made_up_{i}:method_{i}", json={"instances": [{"x": 1.0}]},
                                timeout=10).status_code == 404
            assert session.post(f"{served.rest}/model/pyfunc:nomethod_{i}", json={"instances": [{"x": 1.0}]},
                                timeout=10).status_code == 404
            assert session.post(f"{served.rest}/v2/models/made_up_{i}/infer", json={"inputs": []},
                                timeout=10).status_code == 404
    for i in range(20):
        grpc_junk(f"grpc_junk_{i}")
    after = metrics_text(served)
    assert "made_up" not in after and "nomethod" not in after and "grpc_junk" not in after
    assert 'servable="unknown"' in after and 'servable="pyfunc"' in after
    assert len(after) <= len(before) * 1.1, (len(before), len(after))


def test_deeply_nested_json_is_a_clean_400(served):
    for depth in (200, 5000):
        deep = "[" * depth + "1.0" + "]" * depth
        body = '{"instances": [{"x": ' + deep + '}]}'
        reply = requests.post(f"{served.rest}/model/pyfunc:sqrt", data=body, timeout=30)
        assert 400 <= reply.status_code < 500, (depth, reply.status_code, reply.text[:200])
        assert "error_msg" in reply.json()
        kserve = requests.post(f"{served.rest}/v2/models/pyfunc.sqrt/infer", data='{"inputs": ' + deep + "}",
                               timeout=30)
        assert 400 <= kserve.status_code < 500 and "error" in kserve.json(), (depth, kserve.text[:200])
    reply = requests.post(f"{served.rest}/model/pyfunc:sqrt", data="[" * 5000 + "]" * 5000, timeout=30)
    assert reply.status_code == 400 and reply.json()["error_msg"].startswith("Illegal JSON format")


def _grpc_image(array):
    request = pb.PredictRequest()
    request.servable_spec.name, request.servable_spec.method_name = "lenet", "predict"
    tensor = request.instances.add().items["image"]
    tensor.dtype = pb.MS_FLOAT32
    tensor.shape.dims[:] = list(array.shape)
    tensor.data = array.astype("<f4").tobytes()
    return request


def test_grpc_tensor_with_the_right_size_but_wrong_shape_is_refused(served):
    stub = sgrpc.MSServiceStub(grpc.insecure_channel(served.grpc))
    good = stub.Predict(_grpc_image(np.zeros((1, 32, 32), np.float32)), timeout=30)
    assert not good.error_msg and len(good.instances) == 1
    squeezed = stub.Predict(_grpc_image(np.zeros((32, 32), np.float32)), timeout=30)  # dims of 1 may be left out
    assert not squeezed.error_msg
    for shape in [(1024,), (32, 1, 32), (2, 16, 32)]:
        reply = stub.Predict(_grpc_image(np.zeros(shape, np.float32)), timeout=30)
        assert reply.error_msg, shape
        text = reply.error_msg[0].error_msg.decode()
        assert f"shape {list(shape)} not match the shape [1, 32, 32]" in text, text


def test_client_hanging_up_mid_body_is_not_a_server_error(served, capfd):
    host, port = served.server.rest.rsplit(":", 1)
    for path in ("/model/pyfunc:sqrt", "/v2/models/pyfunc.sqrt/infer"):
        with socket.create_connection((host, int(port)), timeout=10) as sock:
            sock.sendall(f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                         "Content-Length: 100000\r\n\r\n{\"instances\": [".encode())
    # the server still answers, and printed no ASGI traceback for the abandoned requests
    reply = requests.post(f"{served.rest}/model/pyfunc:sqrt", json={"instances": [{"x": 9.0}]}, timeout=10)
    assert reply.json() == {"instances": [{"y": 3.0}]}
    err = capfd.readouterr().err
    assert "Traceback" not in err and "ClientDisconnect" not in err, err
