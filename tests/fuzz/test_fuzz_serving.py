"""Fuzzing a running server (issue 20, item 8): about 250 seeded malformed requests over MindSpore REST JSON,
KServe v2 and gRPC against a real server on 127.0.0.1. Every bad request gets a clean answer — a 4xx with a JSON
error body (REST), an error message or a client-error status (gRPC) — and the server still serves good requests
afterwards. Nothing may come back as a 5xx or as gRPC UNKNOWN (an exception escaping the service)."""
import json
import os

import grpc
import numpy as np
import pytest
import requests

import openspore as ms
from openspore.serving import server
from openspore.serving.proto import ms_service_pb2 as pb
from openspore.serving.proto import ms_service_pb2_grpc as sgrpc
from tests.serving import servables
from tests.serving.conftest import RunningServer, write_servable
from tests.serving.nets import LeNet5

GOOD_REST = {"instances": [{"x": 4.0}]}


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    root = str(tmp_path_factory.mktemp("servables"))
    write_servable(root, "lenet", servables.LENET)
    os.makedirs(os.path.join(root, "lenet", "1"))
    ms.save_checkpoint(LeNet5(), os.path.join(root, "lenet", "1", "lenet5.ckpt"))
    write_servable(root, "pyfunc", servables.PYFUNC)
    running = RunningServer([server.ServableStartConfig(root, "lenet", device_ids=0),
                             server.ServableStartConfig(root, "pyfunc", device_ids=0)],
                            tmp_path_factory.mktemp("logs"), max_msg_mb_size=1)
    yield running
    running.stop()


def pick(rng, options):
    return options[int(rng.integers(len(options)))]


def _junk_value(rng, depth=0):
    kind = int(rng.integers(12 if depth < 3 else 7))
    if kind == 0:
        return None
    if kind == 1:
        return bool(rng.integers(2))
    if kind == 2:
        return int(rng.choice([0, -1, 2 ** 31, 2 ** 63, -2 ** 70, 7]))
    if kind == 3:
        return float(rng.choice([0.5, -1e308, 1e-320, 3.0]))
    if kind == 4:
        return "".join(chr(int(c)) for c in rng.integers(32, 0x2FF, int(rng.integers(0, 6))))
    if kind == 5:
        return {"b64": rng.choice(["AAEC", "!!", "", "AAAAAAAA"]), "type": str(rng.choice(["int32", "fp16", "str", "x"])),
                "shape": [int(rng.integers(-2, 4))]}
    if kind == 6:
        return []
    if kind in (7, 8):
        return [_junk_value(rng, depth + 1) for _ in range(int(rng.integers(1, 4)))]
    if kind == 9:
        return [[1.0, 2.0], [3.0]]
    if kind == 10:
        return {str(k): _junk_value(rng, depth + 1) for k in range(int(rng.integers(0, 3)))}
    return [[[0.0] * 32] * 32] if rng.integers(2) else [0.0] * 1024


def rest_cases(rng, count):
    """(path, body bytes) for the MindSpore REST endpoint."""
    paths = ["model/pyfunc:sqrt", "model/pyfunc:add_common", "model/lenet:predict", "model/lenet:classify",
             "model/lenet/version/1:predict", "model/lenet/version/x:predict", "model/lenet/version/99:predict",
             "model/:predict", "model/lenet", "model/lenet:", "nomodel/lenet:predict", "model/" + "a" * 300 + ":b"]
    bodies = [b"", b"{", b"[]", b"null", b"\xff\xfe\x00", b'{"instances": 1}', b'{"instances": []}',
              b'{"instances": [1, 2]}', b'{"instances": [{}]}', b'{"instances": [{"": 1}]}',
              b'{"instances": [], "instances": []}', ("[" * 5000 + "]" * 5000).encode(),
              ('{"instances": [{"x": ' + "[" * 900 + "1" + "]" * 900 + "}]}").encode(),
              b'{"instances": [{"x": NaN}]}', b'{"instances": [{"x": 1e999}]}']
    out = []
    for i in range(count):
        path = paths[i % len(paths)] if i % 3 else str(rng.choice(paths[:5]))
        if i < len(bodies):
            body = bodies[i]
        else:
            inst = {str(rng.choice(["x", "x1", "x2", "image", "text", "?"])): _junk_value(rng)
                    for _ in range(int(rng.integers(0, 3)))}
            body = json.dumps({"instances": [inst] if rng.integers(2) else inst}).encode()
        out.append((path, body))
    return out


def kserve_cases(rng, count):
    models = ["pyfunc.sqrt", "lenet.predict", "lenet", "pyfunc", "nothing", "lenet.predict/versions/7",
              "lenet.predict/versions/x"]
    out = []
    for i in range(count):
        entry = {"name": str(rng.choice(["x", "image", "y"])),
                 "shape": pick(rng, [[1], [2, 2], [], [-1], [1, 1, 32, 32], "3"]),
                 "datatype": str(rng.choice(["FP32", "INT64", "BYTES", "BF16", "FP16", "BOOL"])),
                 "data": _junk_value(rng)}
        for key in rng.choice(["name", "shape", "datatype", "data", ""], int(rng.integers(0, 2))):
            entry.pop(str(key), None)
        body = {"inputs": [entry] if rng.integers(4) else entry}
        if rng.integers(3) == 0:
            body["outputs"] = pick(rng, [[{"name": "nope"}], "y", [{}]])
        if rng.integers(4) == 0:
            body["parameters"] = {"method": str(rng.choice(["sqrt", "none", ""]))}
        out.append((str(models[i % len(models)]), json.dumps(body).encode()))
    return out


def _assert_clean_rest(reply, label, key):
    assert 400 <= reply.status_code < 500, (label, reply.status_code, reply.text[:300])
    assert reply.headers.get("content-type", "").startswith("application/json"), (label, reply.status_code, reply.text[:300])
    body = reply.json()
    assert isinstance(body.get(key), str) and body[key], (label, body)


def test_malformed_rest_and_kserve_requests_get_clean_4xx(served):
    rng = np.random.default_rng(2020)
    base = f"http://{served.rest}"
    with requests.Session() as session:
        for i, (path, body) in enumerate(rest_cases(rng, 110)):
            reply = session.post(f"{base}/{path}", data=body, timeout=30)
            if reply.status_code == 200:  # a request that happened to be valid, or with per-instance errors
                instances = reply.json()["instances"]
                assert isinstance(instances, list) and instances, (i, path, body[:200])
                continue
            _assert_clean_rest(reply, (i, path, body[:200]), "error_msg")
        for i, (model, body) in enumerate(kserve_cases(rng, 90)):
            reply = session.post(f"{base}/v2/models/{model}/infer", data=body, timeout=30)
            if reply.status_code == 200:
                assert "outputs" in reply.json(), (i, model, body[:200])
                continue
            _assert_clean_rest(reply, (i, model, body[:200]), "error")
        big = session.post(f"{base}/model/pyfunc:sqrt", data=b" " * (2 << 20), timeout=30)
        _assert_clean_rest(big, "oversized", "error_msg")
        assert session.post(f"{base}/model/pyfunc:sqrt", json=GOOD_REST, timeout=30).json() == \
            {"instances": [{"y": 2.0}]}


def _tensor(rng):
    tensor = pb.Tensor()
    tensor.dtype = int(rng.choice([pb.MS_FLOAT32, pb.MS_FLOAT64, pb.MS_STRING, pb.MS_BYTES, pb.MS_INT32, 0, 99]))
    dims = pick(rng, [[1, 32, 32], [1024], [], [-3], [2 ** 40], [32, 1, 32], [3]])
    tensor.shape.dims[:] = dims
    tensor.data = rng.bytes(int(rng.choice([0, 4, 4096, 7])))
    for _ in range(int(rng.integers(0, 3))):
        tensor.bytes_val.append(rng.bytes(3))
    return tensor


def test_malformed_grpc_requests_get_clean_errors(served):
    rng = np.random.default_rng(2021)
    channel = grpc.insecure_channel(served.grpc)
    stub = sgrpc.MSServiceStub(channel)
    for i in range(60):
        request = pb.PredictRequest()
        request.servable_spec.name = str(rng.choice(["lenet", "pyfunc", "", "nothing"]))
        request.servable_spec.method_name = str(rng.choice(["predict", "sqrt", "add_common", ""]))
        request.servable_spec.version_number = int(rng.choice([0, 1, 5]))
        for _ in range(int(rng.integers(0, 3))):
            inst = request.instances.add()
            for name in rng.choice(["image", "x", "x1", "x2", "zz"], int(rng.integers(0, 3))):
                inst.items[str(name)].CopyFrom(_tensor(rng))
        reply = stub.Predict(request, timeout=30)
        assert reply.error_msg or len(reply.instances) == len(request.instances), (i, request)
        for err in reply.error_msg:
            assert err.error_code == 0 or err.error_msg, (i, request)
    raw = channel.unary_unary("/mindspore.serving.proto.MSService/Predict", request_serializer=None,
                              response_deserializer=None)
    for i in range(20):  # bytes that are not a PredictRequest at all
        try:
            raw(rng.bytes(int(rng.integers(1, 200))), timeout=30)
        except grpc.RpcError as exc:
            assert exc.code() in (grpc.StatusCode.INTERNAL, grpc.StatusCode.INVALID_ARGUMENT), (i, exc.code())
    good = pb.PredictRequest()
    good.servable_spec.name, good.servable_spec.method_name = "pyfunc", "sqrt"
    x = good.instances.add().items["x"]
    x.dtype, x.data = pb.MS_FLOAT32, np.float32(9.0).tobytes()
    reply = stub.Predict(good, timeout=30)
    assert not reply.error_msg and np.frombuffer(reply.instances[0].items["y"].data, np.float32)[0] == 3.0
