"""The dashboard's REST routes and its safety: a real server process on 127.0.0.1 over real training output."""
import json
import subprocess
import sys
import urllib.parse
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from tests.conftest import child_env
from tests.insight.insight_server import free_port, get, serving

API = "/v1/mindinsight"


@pytest.fixture(scope="module")
def server(insight_base):
    base, info = insight_base
    with serving(base) as (url, token):
        yield url, token, info


def _json(url, **kw):
    status, body, _ = get(url, **kw)
    return status, json.loads(body)


def test_runs_scalars_and_mindinsight_shapes(server):
    url, _, info = server
    status, jobs = _json(url + API + "/datavisual/train-jobs")
    assert status == 200 and [j["train_id"] for j in jobs["train_jobs"]] == ["./lenet_lr0.01", "./lenet_lr0.05"]
    assert "loss/auto/scalar" in jobs["train_jobs"][0]["plugins"]["scalar"]  # MindInsight's '<tag>/<plugin>'
    status, meta = _json(url + API + "/datavisual/scalar/metadata?train_id=./lenet_lr0.01&tag=loss/auto/scalar")
    losses = info["losses"]["lenet_lr0.01"]
    assert [m["step"] for m in meta["metadatas"]] == list(range(1, len(losses) + 1))
    assert [m["value"] for m in meta["metadatas"]] == [float(np.float32(v)) for v in losses]
    query = urllib.parse.urlencode([("train_id", "./lenet_lr0.01"), ("train_id", "./lenet_lr0.05"),
                                    ("tag", "loss/auto")])
    status, both = _json(url + API + "/datavisual/scalars?" + query)
    assert [s["train_id"] for s in both["scalars"]] == ["./lenet_lr0.01", "./lenet_lr0.05"]
    status, err = _json(url + API + "/datavisual/scalar/metadata?train_id=./lenet_lr0.01&tag=nope")
    assert status == 400 and err["error_code"] == "5054500E"
    status, err = _json(url + API + "/datavisual/scalar/metadata?train_id=./nope&tag=loss")
    assert status == 400 and err["error_code"] == "50545005"
    status, hist = _json(url + API + "/datavisual/histograms?train_id=./lenet_lr0.01&tag=conv1.weight/auto")
    assert status == 200 and len(hist["histograms"]) == 8 and hist["histograms"][0]["buckets"]
    status, png, headers = get(url + API + "/datavisual/image/single-image?train_id=./lenet_lr0.01&tag=input"
                                        "&step=8")
    assert status == 200 and headers["Content-Type"] == "image/png" and png[:4] == b"\x89PNG"
    status, graph = _json(url + API + "/datavisual/graphs/nodes/all?train_id=./lenet_lr0.05")
    conv = [n for n in graph["nodes"] if n["op_type"] == "Conv2D"]
    assert len(conv) == 2 and conv[0]["output"] == "float32[8,4,28,28]" and conv[0]["attrs"]["pad_mode"]
    status, lineage = _json(url + API + "/lineagemgr/lineages", data=b"{}", method="POST",
                            headers={"Content-Type": "application/json"})
    rates = {o["summary_dir"]: o["model_lineage"]["learning_rate"] for o in lineage["object"]}
    assert rates == pytest.approx({"./lenet_lr0.01": 0.01, "./lenet_lr0.05": 0.05})


@pytest.mark.parametrize("train_id", ["../", "./..", "../insight_base", "/etc", "/tmp", "./lenet_lr0.01/../..",
                                      "..%2f..", "./a/b", "\\..\\.."])
def test_path_parameters_cannot_leave_the_base_dir(server, train_id):
    url, token, _ = server
    quoted = urllib.parse.quote(train_id, safe="")
    status, err = _json(url + API + f"/datavisual/scalar/metadata?train_id={quoted}&tag=loss")
    assert status == 400 and err["error_code"] in ("50540002", "50545005")
    status, err = _json(url + API + "/debugger/sessions", method="POST",
                        data=json.dumps({"session_type": "OFFLINE", "dump_dir": train_id}).encode(),
                        headers={"X-Insight-Token": token, "Content-Type": "application/json"})
    assert status in (400, 404), err


def test_static_files_stay_inside_the_package(server):
    url, _, _ = server
    for path in ("/static/../app.py", "/static/%2e%2e/app.py", "/static/..%2fapp.py", "/static/vendor/../../cli.py",
                 "/static//etc/passwd"):
        status, body, _ = get(url + path)
        assert status == 404, (path, status)
    status, body, headers = get(url + "/static/vendor/LICENSE-echarts.txt")
    assert status == 200 and b"Apache License" in body
    assert "script-src 'self'" in get(url + "/")[2]["Content-Security-Policy"]


def test_debugger_routes_need_the_token(server):
    url, token, _ = server
    for headers in ({}, {"X-Insight-Token": "wrong"}, {"X-Insight-Token": token[:-1]}):
        status, err = _json(url + API + "/debugger/sessions", headers=headers)
        assert status == 401 and "token" in err["error_msg"]
        status, _ = _json(url + API + "/debugger/sessions/online/control", method="POST", data=b"{}",
                          headers=headers)
        assert status == 401
    status, sessions = _json(url + API + "/debugger/sessions", headers={"X-Insight-Token": token})
    assert status == 200 and sessions["dump_dirs"] == ["./diverging"] and sessions["online"] is False


def test_offline_debugger_finds_the_overflow_of_a_diverging_run(server):
    url, token, _ = server
    h = {"X-Insight-Token": token, "Content-Type": "application/json"}
    status, created = _json(url + API + "/debugger/sessions", method="POST", headers=h,
                            data=json.dumps({"session_type": "OFFLINE", "dump_dir": "./diverging"}).encode())
    assert status == 200
    s = f"{url}{API}/debugger/sessions/{created['id']}"
    status, _ = _json(s + "/create-watchpoint", method="POST", headers=h,
                      data=json.dumps({"condition": "tensor_overflow"}).encode())
    assert status == 200
    status, result = _json(s + "/check", method="POST", headers=h, data=b"{}")
    assert status == 200 and result["hits"], result
    hit = result["hits"][0]
    assert hit["condition"] == "TensorOverflow" and hit["tuning_hints"]
    status, tensor = _json(s + "/tensors?" + urllib.parse.urlencode({"name": hit["node_name"],
                                                                       "iteration": hit["iteration"]}), headers=h)
    stats = tensor["statistics"]
    assert status == 200 and stats["nan_count"] + stats["pos_inf_count"] + stats["neg_inf_count"] > 0
    status, found = _json(s + "/search?query=nets.py:22&by=code_stack", headers=h)
    assert any("conv1-Conv2d/Conv2D" in n for n in found["nodes"])
    status, err = _json(s + "/create-watchpoint", method="POST", headers=h, data=b'{"condition": "nope"}')
    assert status == 400 and "unknown condition" in err["error_msg"]


def test_foreign_host_header_is_refused(server):
    url, _, _ = server
    status, _, _ = get(url + API + "/datavisual/train-jobs", headers={"Host": "attacker.example"})
    assert status == 400


def test_twenty_concurrent_page_loads(server):
    url, _, _ = server
    paths = ["/", "/static/app.js", "/static/vendor/echarts.min.js", API + "/datavisual/train-jobs",
             API + "/datavisual/scalars?train_id=./lenet_lr0.01&tag=loss/auto",
             API + "/datavisual/graphs/nodes/all?train_id=./lenet_lr0.01"]

    def load(_):
        return [get(url + p)[0] for p in paths]
    with ThreadPoolExecutor(20) as pool:
        results = list(pool.map(load, range(20)))
    assert results == [[200] * len(paths)] * 20
    assert get(url + API + "/ui-config")[0] == 200  # still up


def test_start_stop_and_host_policy(tmp_path, insight_base):
    base, _ = insight_base
    port = free_port()
    ws = str(tmp_path / "ws")
    run = lambda *args: subprocess.run([sys.executable, "-m", "openspore.insight", *args], capture_output=True,
                                       text=True, env=child_env(), timeout=120)
    refused = run("start", "--summary-base-dir", str(base), "--port", str(port), "--host", "0.0.0.0",
                  "--workspace", ws)
    assert refused.returncode == 2 and "--allow-remote-access" in refused.stderr
    started = run("start", "--summary-base-dir", str(base), "--port", str(port), "--workspace", ws)
    try:
        assert started.returncode == 0, started.stderr
        lines = started.stdout.splitlines()
        assert lines[0].startswith(f"Web address: http://127.0.0.1:{port}/#token=")
        assert lines[-1] == "service start state: success"
        token = lines[1].split(": ")[1]
        assert get(f"http://127.0.0.1:{port}{API}/debugger/sessions", headers={"X-Insight-Token": token})[0] == 200
        again = run("start", "--summary-base-dir", str(base), "--port", str(port), "--workspace", ws)
        assert again.returncode == 1 and "in use" in again.stderr
    finally:
        stopped = run("stop", "--port", str(port), "--workspace", ws)
    assert stopped.returncode == 0 and "successfully" in stopped.stdout
    import urllib.request
    with pytest.raises(OSError):
        urllib.request.urlopen(f"http://127.0.0.1:{port}{API}/ui-config", timeout=2)
    assert run("stop", "--port", str(port), "--workspace", ws).returncode == 1
    assert run("start", "--summary-base-dir", str(tmp_path / "missing"), "--port", str(port),
               "--workspace", ws).returncode == 2


def test_remote_host_prints_a_warning(capsys):
    import argparse
    from openspore.insight.dashboard import cli
    cli._remote_warning(argparse.Namespace(host="0.0.0.0", port=8080))
    assert "WARNING" in capsys.readouterr().err
    cli._remote_warning(argparse.Namespace(host="127.0.0.1", port=8080))
    assert capsys.readouterr().err == ""


def test_online_debugger_session_controls_a_training_run(tmp_path):
    """The dashboard's online session: a GRAPH_MODE training process connects to the DebugServer the dashboard
    started, and is paused, continued to a watchpoint hit, inspected and terminated through the REST routes."""
    import time
    from tests.insight.test_online import SCRIPT
    from tests.conftest import REPO
    debugger_port = free_port()
    with serving(tmp_path, extra=("--enable-debugger", "true", "--debugger-port", str(debugger_port))) as (url, token):
        h = {"X-Insight-Token": token, "Content-Type": "application/json"}
        s = f"{url}{API}/debugger/sessions/online"
        assert _json(s + "/poll-data")[0] == 401
        proc = subprocess.Popen([sys.executable, "-c", SCRIPT, "1e10", "6"], cwd=REPO, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True,
                                env=child_env(ENABLE_MS_DEBUGGER="1", MS_DEBUGGER_HOST="127.0.0.1",
                                              MS_DEBUGGER_PORT=str(debugger_port)))

        def wait_for(pred, timeout=120):
            deadline = time.time() + timeout
            while time.time() < deadline:
                state = _json(s + "/poll-data", headers=h)[1]
                if pred(state):
                    return state
                time.sleep(0.3)
            raise AssertionError(f"debugger state never matched: {state}")
        try:
            wait_for(lambda p: p["state"] == "waiting")
            status, graph = _json(s + "/graph", headers=h)
            assert status == 200 and any(n["category"] == "weight" for n in graph["nodes"])
            assert _json(s + "/create-watchpoint", method="POST", headers=h,
                         data=b'{"condition": "tensor_overflow"}')[0] == 200
            assert _json(s + "/control", method="POST", headers=h, data=b'{"action": "continue"}')[0] == 200
            state = wait_for(lambda p: p["state"] == "waiting" and p["hits"])
            assert state["step"] == 1 and {x["condition"] for x in state["hits"]} == {"TensorOverflow"}
            name = state["hits"][0]["node_name"]
            status, tensor = _json(s + "/tensors?" + urllib.parse.urlencode({"name": name}), headers=h)
            assert status == 200 and tensor["shape"] is not None and tensor["statistics"]["count"] > 0
            status, err = _json(s + "/control", method="POST", headers=h, data=b'{"action": "fly"}')
            assert status == 400 and "unknown action" in err["error_msg"]
            assert _json(s + "/control", method="POST", headers=h, data=b'{"action": "terminate"}')[0] == 200
            proc.communicate(timeout=120)
            assert proc.returncode != 0  # stopped by the debugger, not finished
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
