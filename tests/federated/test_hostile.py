"""Bad and hostile requests are refused with a clear code and change neither the round nor the global model."""
import base64
import json
import urllib.error
import urllib.request

import numpy as np
import pytest

from openspore.federated import FLContext, FLServer
from openspore.federated.wire import encode_array, encode_feature_map

W0 = {"w": np.zeros((2, 3), np.float32), "b": np.zeros(3, np.float32)}


def post(url, msg_type, body):
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    req = urllib.request.Request(f"{url}/{msg_type}", data=data, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


@pytest.fixture
def server():
    ctx = FLContext(fl_name="job", fl_server_port=0, start_fl_job_threshold=2, start_fl_job_time_window=60000,
                    update_model_time_window=60000, fl_iteration_num=2, max_request_bytes=20000)
    srv = FLServer(ctx, W0).start()
    yield srv
    srv.stop()


def join(url, fl_id, data_size=10):
    status, reply = post(url, "startFLJob", {"fl_name": "job", "fl_id": fl_id, "data_size": data_size})
    assert status == 200 and reply["retcode"] == 200, reply
    return reply


def update(fl_id, token, weights, iteration=1):
    return {"fl_name": "job", "fl_id": fl_id, "iteration": iteration, "token": token,
            "feature_map": encode_feature_map(weights)}


def ones(scale):
    return {k: np.full(v.shape, scale, np.float32) for k, v in W0.items()}


def test_hostile_requests_are_refused_and_change_nothing(server):
    url = server.url
    a, b = join(url, "alice", 10), join(url, "bob", 30)
    assert a["iteration"] == 1 and a["fl_plan_config"]["fl_name"] == "job"
    refused = {
        "not JSON": ("updateModel", b"{not json"),
        "not an object": ("updateModel", b"[1, 2]"),
        "missing token": ("updateModel", {"fl_name": "job", "fl_id": "alice", "iteration": 1}),
        "future iteration": ("updateModel", update("alice", a["token"], ones(1), iteration=7)),
        "another client's id": ("updateModel", update("bob", a["token"], ones(5))),
        "unenrolled id": ("updateModel", update("mallory", a["token"], ones(5))),
        "wrong shape": ("updateModel", update("alice", a["token"], {"w": np.zeros((3, 2), np.float32),
                                                                    "b": np.zeros(3, np.float32)})),
        "missing weight": ("updateModel", update("alice", a["token"], {"w": np.zeros((2, 3), np.float32)})),
        "wrong dtype": ("updateModel", update("alice", a["token"], {k: v.astype(np.float64) for k, v in W0.items()})),
        "NaN": ("updateModel", update("alice", a["token"], ones(float("nan")))),
        "bad base64": ("updateModel", {**update("alice", a["token"], ones(1)),
                                       "feature_map": [{"weight_fullname": "w", "data": {
                                           "dtype": "float32", "shape": [2, 3], "data": "!!!"}}]}),
        "lying length": ("updateModel", {**update("alice", a["token"], ones(1)),
                                         "feature_map": [{"weight_fullname": "w", "data": {
                                             "dtype": "float32", "shape": [1000000],
                                             "data": base64.b64encode(b"\0" * 24).decode()}}]}),
        "wrong job": ("startFLJob", {"fl_name": "other", "fl_id": "eve", "data_size": 1}),
        "joins twice": ("startFLJob", {"fl_name": "job", "fl_id": "alice", "data_size": 1}),
        "negative data size": ("startFLJob", {"fl_name": "job", "fl_id": "eve", "data_size": -5}),
        "bool as int": ("startFLJob", {"fl_name": "job", "fl_id": "eve", "data_size": True}),
        "PW round on a plain job": ("exchangeKeys", {"fl_name": "job", "fl_id": "alice", "iteration": 1,
                                                     "token": a["token"]}),
    }
    for what, (msg_type, body) in refused.items():
        status, reply = post(url, msg_type, body)
        assert status == 400 and reply["retcode"] == 400, (what, status, reply)
        assert reply["reason"], what
    status, reply = post(url, "updateModel", b"x" * 30000)
    assert status == 413 and reply["retcode"] == 400 and "larger than" in reply["reason"]
    status, reply = post(url, "noSuchRound", {})
    assert status == 404 and reply["retcode"] == 400
    # none of it counted: alice's genuine update is still accepted, once
    assert server.job.it.updated == {} and server.job.model_iteration == 0
    status, reply = post(url, "updateModel", update("alice", a["token"], ones(1)))
    assert status == 200 and reply["retcode"] == 200, reply
    status, reply = post(url, "updateModel", update("alice", a["token"], ones(100)))   # replayed / second upload
    assert status == 400 and "already uploaded" in reply["reason"]
    for k, v in W0.items():
        np.testing.assert_array_equal(server.job.weights[k], v)
    status, reply = post(url, "updateModel", update("bob", b["token"], ones(3)))
    assert status == 200
    for k in W0:   # (10·1 + 30·3) / 40
        np.testing.assert_allclose(server.job.weights[k], 2.5, rtol=0, atol=1e-6)
    # iteration 1 is over: its token, replayed, gets OutOfTime and changes nothing
    status, reply = post(url, "updateModel", update("bob", b["token"], ones(3)))
    assert status == 200 and reply["retcode"] == 300 and reply["iteration"] == 2
    np.testing.assert_allclose(server.job.weights["w"], 2.5, rtol=0, atol=1e-6)


def test_out_of_time_then_not_ready_then_the_model(server):
    url = server.url
    a, b = join(url, "alice"), join(url, "bob")
    status, reply = post(url, "startFLJob", {"fl_name": "job", "fl_id": "carol", "data_size": 5})
    assert reply["retcode"] == 300 and "reached the threshold" in reply["reason"] and reply["next_req_time"] > 0
    status, reply = post(url, "getModel", {"fl_name": "job", "iteration": 1})
    assert reply["retcode"] == 201 and reply["next_req_time"] > 0
    for who, tok in (("alice", a["token"]), ("bob", b["token"])):
        assert post(url, "updateModel", update(who, tok, ones(2)))[1]["retcode"] == 200
    status, reply = post(url, "getModel", {"fl_name": "job", "iteration": 1})
    assert reply["retcode"] == 200 and reply["iteration"] == 1
    weights = {f["weight_fullname"]: f["data"] for f in reply["feature_map"]}
    assert weights["b"] == encode_array(np.full(3, 2, np.float32))


def test_prometheus_and_state_endpoints(server):
    url = server.url
    join(url, "alice")
    with urllib.request.urlopen(url.replace("/startFLJob", "") + "/metrics", timeout=30) as r:
        text = r.read().decode()
    assert 'fl_requests_total{msg_type="startFLJob",retcode="SUCCEED"} 1.0' in text
    with urllib.request.urlopen(url + "/state", timeout=30) as r:
        state = json.loads(r.read())
    assert state["iteration"] == 1 and state["phase"] == "startFLJob"
