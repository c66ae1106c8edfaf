"""A real server on 127.0.0.1 (one worker process, several servables and versions): train → save → serve → query
over gRPC (Python client), MindSpore REST JSON and KServe v2; batching equals unbatched runs; metrics."""
import base64
import os
import shutil
import threading
import types

import numpy as np
import pytest
import requests

import openspore as ms
from openspore.serving import server
from openspore.serving.client import Client
from tests.conftest import FIXTURES
from tests.serving import servables
from tests.serving.conftest import write_servable
from tests.serving.nets import LeNet5, train_lenet

HAS_LOAD = hasattr(ms, "load") and hasattr(ms.nn, "GraphCell")


@pytest.fixture(scope="module")
def served(start_server, tmp_path_factory):
    if not os.path.isdir(FIXTURES):
        pytest.skip(f"MindSpore fixtures not found at {FIXTURES}")
    fixtures_dir = FIXTURES
    root = str(tmp_path_factory.mktemp("servables"))
    fx = lambda name: os.path.join(fixtures_dir, name)  # noqa: E731
    trained = train_lenet(fx("lenet5_init.ckpt"), np.load(fx("lenet5_train_x.npy")),
                          np.load(fx("lenet5_train_y.npy")), steps=2)
    write_servable(root, "lenet", servables.LENET)
    os.makedirs(os.path.join(root, "lenet", "1"))
    shutil.copyfile(fx("lenet5.ckpt"), os.path.join(root, "lenet", "1", "lenet5.ckpt"))
    os.makedirs(os.path.join(root, "lenet", "2"))
    ms.save_checkpoint(trained, os.path.join(root, "lenet", "2", "lenet5.ckpt"))
    write_servable(root, "lenet_dyn", servables.LENET)
    shutil.copytree(os.path.join(root, "lenet", "1"), os.path.join(root, "lenet_dyn", "1"))
    write_servable(root, "pyfunc", servables.PYFUNC)
    configs = [server.ServableStartConfig(root, "lenet", device_ids=0, version_number=1),
               server.ServableStartConfig(root, "lenet", device_ids=0, version_number=2),
               server.ServableStartConfig(root, "lenet_dyn", device_ids=0, max_batch_size=8, max_queue_delay=0.2),
               server.ServableStartConfig(root, "pyfunc", device_ids=0)]
    mindir = ["lenet5", "resblock"] if HAS_LOAD else []
    for name in mindir:
        write_servable(root, f"{name}_mi", servables.MINDIR.format(file=f"{name}.mindir"))
        os.makedirs(os.path.join(root, f"{name}_mi", "1"))
        shutil.copyfile(fx(f"{name}.mindir"), os.path.join(root, f"{name}_mi", "1", f"{name}.mindir"))
        configs.append(server.ServableStartConfig(root, f"{name}_mi", device_ids=0))
    running = start_server(configs, max_msg_mb_size=1)
    v1 = LeNet5()
    ms.load_param_into_net(v1, ms.load_checkpoint(fx("lenet5.ckpt")))
    v1.set_train(False)
    rng = np.random.default_rng(0)
    return types.SimpleNamespace(server=running, grpc=running.grpc, rest=f"http://{running.rest}", root=root,
                                 v1=v1, v2=trained, x=rng.standard_normal((10, 1, 32, 32)).astype(np.float32),
                                 fixture_x=np.load(fx("lenet5_input0.npy")), fixture_y=np.load(fx("lenet5_output.npy")),
                                 fixtures=fixtures_dir)


def local(net, x):
    """The network run one instance at a time (the unbatched reference)."""
    return np.stack([net(ms.Tensor(x[i:i + 1])).asnumpy()[0] for i in range(len(x))])


# ---- gRPC + Python client -------------------------------------------------------------------------------------------
def test_client_request_is_split_and_merged_to_the_batch_size(served):
    # 10 instances on a model of batch size 4 → batches of 4, 4 and a ragged 2; results equal unbatched runs
    result = Client(served.grpc, "lenet", "predict").infer([{"image": x} for x in served.x])
    assert isinstance(result, list) and len(result) == 10
    got = np.stack([r["logits"] for r in result])
    np.testing.assert_allclose(got, local(served.v2, served.x), rtol=1e-5, atol=1e-6)


def test_versions_are_served_side_by_side(served):
    x = served.fixture_x
    v1 = Client(served.grpc, "lenet", "predict", version_number=1).infer([{"image": a} for a in x])
    np.testing.assert_allclose(np.stack([r["logits"] for r in v1]), served.fixture_y, rtol=1e-5, atol=1e-6)
    newest = Client(served.grpc, "lenet", "predict").infer({"image": x[0]})
    np.testing.assert_allclose(newest[0]["logits"], local(served.v2, x[:1])[0], rtol=1e-5, atol=1e-6)
    missing = Client(served.grpc, "lenet", "predict", version_number=3).infer({"image": x[0]})
    assert "servable is not available" in missing["error"] and "version 3" in missing["error"]


def test_python_stages_model_call_and_batch_functions(served):
    want = local(served.v2, served.x[:5])
    classify = Client(served.grpc, "lenet", "classify").infer([{"image": x} for x in served.x[:5]])
    assert [int(r["label"]) for r in classify] == list(want.argmax(axis=1))
    np.testing.assert_allclose([float(r["score"]) for r in classify], want.max(axis=1), rtol=1e-5)
    assert classify[0]["label"].dtype == np.int64 and classify[0]["score"].dtype == np.float64
    batched = Client(served.grpc, "lenet", "classify_batched").infer([{"image": x} for x in served.x[:5]])
    assert [int(r["label"]) for r in batched] == list(want.argmax(axis=1))
    called = Client(served.grpc, "lenet", "predict_call").infer([{"image": x} for x in served.x[:3]])
    np.testing.assert_allclose(np.stack([r["logits"] for r in called]), want[:3], rtol=1e-5, atol=1e-6)


def test_bytes_input_is_preprocessed(served):
    pixels = (np.arange(1024) % 251).astype(np.uint8)
    result = Client(served.grpc, "lenet", "predict_bytes").infer({"data": pixels.tobytes()})
    image = (pixels.reshape(1, 1, 32, 32).astype(np.float32) / 255.0)
    np.testing.assert_allclose(result[0]["logits"], local(served.v2, image)[0], rtol=1e-5, atol=1e-6)
    short = Client(served.grpc, "lenet", "predict_bytes").infer({"data": b"\x01\x02"})
    assert short == {"error": "image bytes should hold 1024 pixels, but got 2"}


def test_str_bytes_and_pass_through(served):
    result = Client(served.grpc, "pyfunc", "text").infer({"text": "héllo", "blob": b"\x00\x01\x02"})
    assert result == [{"upper": "HÉLLO", "size": np.array(3), "reversed": b"\x02\x01\x00"}]
    pairs = [{"x1": np.float32(i), "x2": np.float32(10 * i)} for i in range(7)]
    added = Client(served.grpc, "pyfunc", "add_batch").infer(pairs)   # batch_size=3 → calls of 3, 3, 1
    assert [float(r["y"]) for r in added] == [11.0 * i for i in range(7)]
    assert [float(r["x1"]) for r in added] == [float(i) for i in range(7)]
    scalar = Client(served.grpc, "pyfunc", "add_common").infer({"x1": 1, "x2": 2.5})
    assert scalar[0]["y"].dtype == np.float64 and scalar[0]["y"].tolist() == [3.5]


def test_partial_and_whole_request_failures(served):
    client = Client(served.grpc, "pyfunc", "sqrt")
    result = client.infer([{"x": np.float32(4)}, {"x": np.float32(-1)}, {"x": np.float32(9)}])
    assert float(result[0]["y"]) == 2.0 and float(result[2]["y"]) == 3.0
    assert result[1] == {"error": "x should be >= 0, but got -1.0"}
    assert client.infer({"x": np.float32(-4)}) == {"error": "x should be >= 0, but got -4.0"}


def test_infer_async(served):
    client = Client(served.grpc, "lenet", "predict")
    futures = [client.infer_async({"image": x}) for x in served.x[:4]]
    got = np.stack([f.result()[0]["logits"] for f in futures])
    np.testing.assert_allclose(got, local(served.v2, served.x[:4]), rtol=1e-5, atol=1e-6)


# ---- dynamic batching -----------------------------------------------------------------------------------------------
def _batch_histogram(served, servable):
    text = requests.get(f"{served.rest}/metrics", timeout=10).text
    values = {}
    for line in text.splitlines():
        if line.startswith("openspore_serving_batch_size_") and f'servable="{servable}"' in line:
            key = line.split("{")[0].rsplit("_", 1)[1]
            values[key] = values.get(key, 0.0) + float(line.rsplit(" ", 1)[1]) if key != "bucket" else 0.0
    return values.get("count", 0.0), values.get("sum", 0.0)


def test_concurrent_requests_are_merged_into_batches(served):
    # lenet_dyn: max_batch_size=8 and max_queue_delay=0.2 s, so 8 concurrent one-instance requests share batches
    count0, sum0 = _batch_histogram(served, "lenet_dyn")
    client = Client(served.grpc, "lenet_dyn", "predict")
    results = [None] * 8
    barrier = threading.Barrier(8)

    def one(i):
        barrier.wait()
        results[i] = client.infer({"image": served.x[i]})

    threads = [threading.Thread(target=one, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    got = np.stack([r[0]["logits"] for r in results])
    np.testing.assert_allclose(got, local(served.v1, served.x[:8]), rtol=1e-5, atol=1e-6)
    count1, sum1 = _batch_histogram(served, "lenet_dyn")
    assert sum1 - sum0 == 8
    assert count1 - count0 < 8, "the 8 concurrent instances should have been merged into fewer batches"


# ---- REST: MindSpore Serving JSON ---------------------------------------------------------------------------------
def rest(served, path, payload, status=200):
    response = requests.post(f"{served.rest}/{path}", json=payload, timeout=30)
    assert response.status_code == status and response.headers["content-type"] == "application/json", response.text
    return response.json()


def test_rest_mindspore_instances(served):
    reply = rest(served, "model/lenet/version/1:predict",
                 {"instances": [{"image": x.tolist()} for x in served.fixture_x]})
    got = np.array([inst["logits"] for inst in reply["instances"]], np.float32)
    np.testing.assert_allclose(got, served.fixture_y, rtol=1e-5, atol=1e-6)
    single = rest(served, "model/pyfunc:add_common", {"instances": {"x1": [[1.0, 2.0], [3.0, 4.0]],
                                                                    "x2": [[1.0, 2.0], [3.0, 4.0]]}})
    assert single == {"instances": [{"y": [[2.0, 4.0], [6.0, 8.0]]}]}
    ints = rest(served, "model/pyfunc:add_common", {"instances": [{"x1": 1, "x2": 2}, {"x1": True, "x2": False}]})
    assert ints == {"instances": [{"y": 3}, {"y": True}]}


def test_rest_b64_typed_tensors_str_and_bytes(served):
    box = np.array([[1, 2], [2, 3], [3, 4]], np.int16)
    b64 = {"b64": base64.b64encode(box.tobytes()).decode(), "type": "int16", "shape": [3, 2]}
    reply = rest(served, "model/pyfunc:add_common", {"instances": [{"x1": b64, "x2": b64}]})
    assert reply == {"instances": [{"y": (box * 2).tolist()}]}
    reply = rest(served, "model/pyfunc:text", {"instances": [{"text": "abc", "blob": {"b64": "AAEC"}}]})
    reversed_b64 = base64.b64encode(b"\x02\x01\x00").decode()
    assert reply == {"instances": [{"upper": "ABC", "size": 3, "reversed": {"b64": reversed_b64}}]}


def test_rest_errors_are_in_the_body_with_a_4xx(served):
    partial = rest(served, "model/pyfunc:sqrt", {"instances": [{"x": 4.0}, {"x": -1.0}]})
    assert partial == {"instances": [{"y": 2.0}, {"error_msg": "x should be >= 0, but got -1.0"}]}
    cases = {
        "model/pyfunc:nothing": ({"instances": [{"x": 1.0}]}, "method is not available"),
        "model/nothing:sqrt": ({"instances": [{"x": 1.0}]}, "servable is not available"),
        "model/pyfunc/version/x:sqrt": ({"instances": [{"x": 1.0}]}, "the keyword:[version] value invalid"),
        "model/pyfunc": ({"instances": [{"x": 1.0}]}, "the keyword:[service method] must contain"),
        "model/pyfunc:sqrt": ({"instance": [{"x": 1.0}]}, "key 'instances' expects to exist once, but actually 0"),
    }
    for path, (payload, text) in cases.items():
        reply = rest(served, path, payload, status=404 if "not available" in text else 400)
        assert set(reply) == {"error_msg"} and text in reply["error_msg"], (path, reply)
    for payload, text in [({"instances": []}, "instances value is array type, but no value"),
                          ({"instances": [{"x": [1, 2.5, "a"]}]}, "string or bytes type only support one item"),
                          ({"instances": [{"x": [[1.0, 2.0], [3.0]]}]}, "invalid json array"),
                          ({"instances": [{"x": None}]}, "is null"),
                          ({"instances": [{"x": {"b64": "AAEC", "type": "int32", "shape": [2]}}]},
                           "size is not matched")]:
        reply = rest(served, "model/pyfunc:sqrt", payload, status=400)
        assert text in reply.get("error_msg", ""), (payload, reply)
    raw = requests.post(f"{served.rest}/model/pyfunc:sqrt", data=b"{not json", timeout=10)
    assert raw.status_code == 400 and raw.json()["error_msg"].startswith("Illegal JSON format")
    dup = requests.post(f"{served.rest}/model/pyfunc:sqrt", data=b'{"instances": [], "instances": []}',
                        timeout=10)
    assert dup.status_code == 400 and "expects to exist once, but actually 2 times" in dup.json()["error_msg"]
    wrong = requests.get(f"{served.rest}/model/pyfunc:sqrt", timeout=10)
    assert wrong.status_code == 405 and wrong.json() == {"error_msg": "http message only support POST right now"}


# ---- REST: KServe v2 ------------------------------------------------------------------------------------------------
def test_kserve_health_and_metadata(served):
    assert requests.get(f"{served.rest}/v2/health/live", timeout=10).json() == {"live": True}
    assert requests.get(f"{served.rest}/v2/health/ready", timeout=10).json() == {"ready": True}
    assert requests.get(f"{served.rest}/v2", timeout=10).json()["name"] == "openspore-serving"
    meta = requests.get(f"{served.rest}/v2/models/lenet.predict", timeout=10).json()
    assert meta["inputs"] == [{"name": "image", "datatype": "FP32", "shape": [-1, 1, 32, 32]}]
    assert meta["outputs"] == [{"name": "logits", "datatype": "FP32", "shape": [-1, 10]}]
    assert meta["versions"] == ["2"]
    v1 = requests.get(f"{served.rest}/v2/models/lenet.predict/versions/1", timeout=10).json()
    assert v1["versions"] == ["1"]
    ready = requests.get(f"{served.rest}/v2/models/pyfunc.sqrt/ready", timeout=10)
    assert ready.status_code == 200 and ready.json() == {"name": "pyfunc", "ready": True}
    assert requests.get(f"{served.rest}/v2/models/unknown", timeout=10).status_code == 404
    several = requests.get(f"{served.rest}/v2/models/lenet", timeout=10)
    assert several.status_code == 400 and "several methods" in several.json()["error"]


def test_kserve_infer(served):
    x = served.x[:6]
    body = {"id": "req-1", "inputs": [{"name": "image", "shape": list(x.shape), "datatype": "FP32",
                                      "data": x.reshape(-1).tolist()}]}
    response = requests.post(f"{served.rest}/v2/models/lenet.predict/infer", json=body, timeout=30)
    assert response.status_code == 200, response.text
    out = response.json()
    assert out["id"] == "req-1" and out["model_name"] == "lenet" and out["model_version"] == "2"
    (logits,) = out["outputs"]
    assert logits["name"] == "logits" and logits["datatype"] == "FP32" and logits["shape"] == [6, 10]
    np.testing.assert_allclose(np.array(logits["data"], np.float32).reshape(6, 10), local(served.v2, x),
                               rtol=1e-5, atol=1e-6)
    body["parameters"] = {"method": "classify"}
    body["outputs"] = [{"name": "label"}]
    response = requests.post(f"{served.rest}/v2/models/lenet/versions/2/infer", json=body, timeout=30)
    assert response.status_code == 200, response.text
    (label,) = response.json()["outputs"]
    assert label["datatype"] == "INT64" and label["data"] == local(served.v2, x).argmax(axis=1).tolist()
    text = requests.post(f"{served.rest}/v2/models/pyfunc.text/infer", timeout=30, json={
        "inputs": [{"name": "text", "shape": [2], "datatype": "BYTES", "data": ["ab", "cd"]},
                   {"name": "blob", "shape": [2, 2], "datatype": "UINT8", "data": [1, 2, 3, 4]}]}).json()
    assert text["outputs"][0] == {"name": "upper", "datatype": "BYTES", "shape": [2], "data": ["AB", "CD"]}


def test_kserve_errors_have_status_codes(served):
    url = f"{served.rest}/v2/models/lenet.predict/infer"
    bad_shape = {"inputs": [{"name": "image", "shape": [1, 1, 28, 28], "datatype": "FP32", "data": [0.0] * 784}]}
    response = requests.post(url, json=bad_shape, timeout=30)
    assert response.status_code == 400
    assert "expects shape [1, 32, 32]" in response.json()["error"] and "[1, 28, 28]" in response.json()["error"]
    bad_type = {"inputs": [{"name": "image", "shape": [1, 1, 32, 32], "datatype": "FP64", "data": [0.0] * 1024}]}
    response = requests.post(url, json=bad_type, timeout=30)
    assert response.status_code == 400
    assert "data type float64 not match the data type float32" in response.json()["error"]
    count = {"inputs": [{"name": "image", "shape": [1, 1, 32, 32], "datatype": "FP32", "data": [0.0] * 10}]}
    response = requests.post(url, json=count, timeout=30)
    assert response.status_code == 400 and "has 10 elements, but the shape [1, 1, 32, 32] needs 1024" in response.text
    response = requests.post(url, data=b"{oops", timeout=30)
    assert response.status_code == 400 and "not valid JSON" in response.json()["error"]
    response = requests.post(url, json={"inputs": [{"name": "picture", "shape": [1], "datatype": "FP32",
                                                    "data": [1.0]}]}, timeout=30)
    assert response.status_code == 400 and "missing ['image'], unknown ['picture']" in response.json()["error"]
    assert requests.post(f"{served.rest}/v2/models/lenet.nope/infer", json=count, timeout=30).status_code == 404
    assert requests.post(f"{served.rest}/v2/models/lenet.predict/versions/9/infer", json=count,
                         timeout=30).status_code == 404
    big = b'{"inputs": [' + b" " * (1 << 20) + b"]}"
    assert requests.post(url, data=big, timeout=30).status_code == 413


# ---- bad inputs over gRPC; the server stays up for everyone else ---------------------------------------------------
def test_bad_inputs_get_clear_errors_and_others_are_unaffected(served):
    good = Client(served.grpc, "lenet", "predict")
    want = local(served.v2, served.x[:2])
    failures = []
    stop = threading.Event()

    def good_client():
        while not stop.is_set():
            result = good.infer([{"image": x} for x in served.x[:2]])
            if not isinstance(result, list) or not np.allclose(np.stack([r["logits"] for r in result]), want,
                                                               rtol=1e-5, atol=1e-6):
                failures.append(result)

    thread = threading.Thread(target=good_client)
    thread.start()
    try:
        cases = [
            ({"image": served.x[0].astype(np.float64)}, "data type float64 not match the data type float32"),
            ({"image": np.zeros((1, 28, 28), np.float32)}, "expects shape [1, 32, 32]"),
            ({"picture": served.x[0]}, "Cannot find input image"),
            ({"image": "a string"}, "should be a tensor of type float32"),
        ]
        for instance, text in cases:
            result = good.infer(instance)
            assert isinstance(result, dict) and text in result["error"], (text, result)
        assert "method is not available" in Client(served.grpc, "lenet", "nope").infer({"image": served.x[0]})["error"]
        assert "servable is not available" in Client(served.grpc, "nope", "predict").infer({"x": 1})["error"]
        assert good.infer([]) == {"error": "Instances count of request cannot be 0"}
        huge = good.infer({"image": np.zeros((2, 1024, 1024), np.float32)})   # 8 MiB > max_msg_mb_size=1
        assert huge["error"].startswith("Grpc Error, (8, 'resource exhausted')"), huge
        oversized = requests.post(f"{served.rest}/model/lenet:predict", data=b" " * (2 << 20), timeout=30).json()
        assert oversized == {"error_msg": f"http message is bigger than {1 << 20}"}
    finally:
        stop.set()
        thread.join(30)
    assert not failures
    ok = good.infer({"image": served.x[0]})
    np.testing.assert_allclose(ok[0]["logits"], want[0], rtol=1e-5, atol=1e-6)


def test_metrics(served):
    # its own requests: under xdist the other tests may run in another process with another server
    Client(served.grpc, "pyfunc", "add_common").infer({"x1": 1, "x2": 2})
    Client(served.grpc, "lenet", "predict").infer({"image": served.x[0]})
    text = requests.get(f"{served.rest}/metrics", timeout=10).text
    assert 'openspore_serving_requests_total{method="add_common",protocol="grpc",servable="pyfunc",status="ok"}' in text
    assert "openspore_serving_request_latency_seconds_bucket" in text
    assert 'openspore_serving_batch_size_count{method="predict",servable="lenet"}' in text
    assert 'openspore_serving_queue_depth{method="predict",servable="lenet"} 0.0' in text
    assert 'openspore_serving_workers{state="ready"} 1.0' in text


# ---- MindIR models (openspore.load) -------------------------------------------------------------------------------
@pytest.mark.skipif(not HAS_LOAD, reason="openspore.load / nn.GraphCell (MindIR reading) is not available yet")
@pytest.mark.parametrize("name", ["lenet5", "resblock"])
def test_mindir_fixtures_are_served_with_padding(served, name):
    # exported with batch 2: 5 instances run as [0, 1], [2, 3], [4, pad]
    x = np.load(os.path.join(served.fixtures, f"{name}_input0.npy"))
    y = np.load(os.path.join(served.fixtures, f"{name}_output.npy"))
    xs = np.concatenate([x, x, x[:1]])
    result = Client(served.grpc, f"{name}_mi", "predict").infer([{"x": a} for a in xs])
    np.testing.assert_allclose(np.stack([r["y"] for r in result]), np.concatenate([y, y, y[:1]]),
                               rtol=1e-4, atol=1e-5)


def test_train_export_serve(served, tmp_path):
    export = getattr(ms, "export", None)
    if export is None or not HAS_LOAD:
        pytest.skip("openspore.export (MindIR writing) is not available yet")
    root = str(tmp_path)
    write_servable(root, "exported", servables.MINDIR.format(file="lenet.mindir"))
    os.makedirs(os.path.join(root, "exported", "1"))
    export(served.v2, ms.Tensor(np.zeros((4, 1, 32, 32), np.float32)),
           file_name=os.path.join(root, "exported", "1", "lenet"), file_format="MINDIR")
    server.start_servables(server.ServableStartConfig(root, "exported", device_ids=5))
    result = Client(served.grpc, "exported", "predict").infer([{"x": x} for x in served.x[:5]])
    np.testing.assert_allclose(np.stack([r["y"] for r in result]), local(served.v2, served.x[:5]),
                               rtol=1e-5, atol=1e-6)
