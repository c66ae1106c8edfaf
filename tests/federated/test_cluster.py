"""Several server processes share one job through a scheduler (MS_SCHED owns the rounds and the sum; MS_SERVER
processes are stateless HTTP front ends): the same global weights as one server (plain ≤ 1e-6, PW_ENCRYPT ≤ 1e-5)
with devices spread over the servers; a server killed mid-round loses no accepted upload and, restarted, rejoins;
a scheduler killed mid-iteration resumes from its checkpoint; nothing is left running."""
import json
import signal
import subprocess
import sys
import time
import urllib.request

import numpy as np
import pytest

from openspore.federated import FLContext
from openspore.federated.client import FLClient
from openspore.federated.cluster_server import ClusterServer
from openspore.federated.scheduler import FLScheduler
from openspore.federated.trainer import LiteTrainer
from openspore.federated.wire import decode_array
from tests.conftest import REPO, child_env
from tests.federated.conftest import run_clients
from tests.federated.test_fedavg import _ctx, _direct_average
from tests.federated.test_hostile import W0, join, ones, post, update


@pytest.mark.parametrize("encrypt_type,iterations,tol", [("NOT_ENCRYPT", 2, 1e-6), ("PW_ENCRYPT", 1, 1e-5)])
def test_three_servers_give_the_weights_of_one(mlp_model, digits_parts, encrypt_type, iterations, tol):
    ctx = _ctx(encrypt_type=encrypt_type, fl_iteration_num=iterations, server_num=3, scheduler_ip="127.0.0.1",
               scheduler_port=0)
    sched = FLScheduler(ctx, mlp_model[1]).start()
    servers = []
    try:
        ctx.update(scheduler_port=int(sched.url.rsplit(":", 1)[1]))
        servers = [ClusterServer(ctx, k).start() for k in range(3)]
        urls = [s.url for s in servers]
        clients = [FLClient(urls[k % 3], "digits", f"dev{k:02d}", LiteTrainer(mlp_model[0], x, y), max_wait_s=120)
                   for k, (x, y) in enumerate(digits_parts)]
        expected = mlp_model[1]
        for it in range(1, iterations + 1):
            statuses = run_clients(clients)
            assert [s[0] for s in statuses] == ["done"] * 10, statuses
            expected = _direct_average(mlp_model, digits_parts, expected, 2, 0.1, range(10))
            assert sched.job.model_iteration == it
            for name in expected:
                np.testing.assert_allclose(sched.job.weights[name], expected[name], rtol=0, atol=tol,
                                           err_msg=f"{name} iteration {it}")
            for c in clients:     # whichever server a device used, it ends holding the new global model
                np.testing.assert_array_equal(c.trainer.get_weights()["fc2.bias"], sched.job.weights["fc2.bias"])
        assert sorted(n["nodeId"] for n in _get(sched.url + "/nodes")["nodeIds"]) == ["0", "1", "2"]
        assert all(s.registered for s in servers)
    finally:
        for s in servers:
            s.stop()
        sched.stop()


def _get(url):
    with urllib.request.urlopen(url, timeout=30) as r:
        return json.loads(r.read())


def _spawn(tmp_path, name, args):
    ready = tmp_path / f"{name}.url"
    if ready.exists():
        ready.unlink()
    proc = subprocess.Popen([sys.executable, "-m", *args, "--ready-file", str(ready)], cwd=REPO, env=child_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + 120
    while not ready.exists():
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise AssertionError(f"{name} did not start: {proc.communicate()[0]}")
        time.sleep(0.1)
    return proc, ready.read_text()


def _stop(procs):
    for p in procs:
        if p.poll() is None:
            p.terminate()
    for p in procs:
        try:
            p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait(timeout=30)
        p.stdout.close()


def _until(check, what, timeout=30):
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, what
        time.sleep(0.1)


def test_processes_survive_a_killed_server_and_a_killed_scheduler(tmp_path):
    ckpt = tmp_path / "ckpt"
    config = tmp_path / "fl.yaml"
    config.write_text(f"fl_name: job\nfl_server_port: 0\nserver_num: 2\nscheduler_ip: 127.0.0.1\nscheduler_port: 0\n"
                      f"start_fl_job_threshold: 4\nfl_iteration_num: 3\nstart_fl_job_time_window: 60000\n"
                      f"update_model_time_window: 60000\ncheckpoint_dir: {ckpt}\n")
    np.savez(tmp_path / "w0.npz", **W0)
    procs = []
    try:
        sched, sched_url = _spawn(tmp_path, "sched", ["openspore.federated.scheduler", "--config", str(config),
                                                      "--weights", str(tmp_path / "w0.npz")])
        procs.append(sched)
        port = sched_url.rsplit(":", 1)[1]

        def server(k):
            p, url = _spawn(tmp_path, f"server{k}", ["openspore.federated.server", "--config", str(config),
                                                     "--set", f"scheduler_port={port}", "--node-id", str(k)])
            procs.append(p)
            return p, url
        (_, url0), (s1, url1) = server(0), server(1)
        _until(lambda: len(_get(sched_url + "/nodes")["nodeIds"]) == 2, "both servers register")

        # iteration 1: devices spread over both servers; server 1 dies after accepting carol's upload
        a, b, c, d = join(url0, "alice", 10), join(url1, "bob", 20), join(url0, "carol", 30), join(url1, "dave", 40)
        assert a["iteration"] == b["iteration"] == 1 and b["feature_map"] == a["feature_map"]
        assert post(url0, "updateModel", update("alice", a["token"], ones(1)))[1]["retcode"] == 200
        assert post(url1, "updateModel", update("carol", c["token"], ones(3)))[1]["retcode"] == 200
        s1.send_signal(signal.SIGKILL)
        s1.wait(timeout=30)
        with pytest.raises(OSError):
            post(url1, "updateModel", update("bob", b["token"], ones(2)))
        assert post(url0, "updateModel", update("bob", b["token"], ones(2)))[1]["retcode"] == 200   # token works
        assert post(url0, "updateModel", update("dave", d["token"], ones(4)))[1]["retcode"] == 200  # on any server
        reply = post(url0, "getModel", {"fl_name": "job", "iteration": 1})[1]
        assert reply["retcode"] == 200 and reply["iteration"] == 1
        expected = (10 * 1 + 20 * 2 + 30 * 3 + 40 * 4) / 100      # carol's upload, accepted by server 1, counts
        for f in reply["feature_map"]:
            data = decode_array(f["data"], "w")
            np.testing.assert_allclose(data, expected, rtol=0, atol=1e-6)

        # server 1 restarts and rejoins; iteration 2 runs through it alone
        s1b, url1b = server(1)
        _until(lambda: {n["nodeId"]: (n["alive"], n["joins"]) for n in _get(sched_url + "/nodes")["nodeIds"]}
               == {"0": ("true", 1), "1": ("true", 2)}, "server 1 rejoins")
        toks = {who: join(url1b, who, 25)["token"] for who in ("alice", "bob", "carol", "dave")}
        for k, (who, tok) in enumerate(toks.items()):
            assert post(url1b, "updateModel", update(who, tok, ones(k), iteration=2))[1]["retcode"] == 200
        assert _get(url1b + "/state")["model_iteration"] == 2

        # the scheduler dies while iteration 3 is under way; restarted on its port it resumes from iteration 2
        join(url0, "erin", 5)
        sched.send_signal(signal.SIGKILL)
        sched.wait(timeout=30)
        status, reply = post(url0, "startFLJob", {"fl_name": "job", "fl_id": "frank", "data_size": 5})
        assert status == 500 and reply["retcode"] == 500 and "scheduler" in reply["reason"]
        sched2, _ = _spawn(tmp_path, "sched", ["openspore.federated.scheduler", "--config", str(config),
                                               "--set", f"scheduler_port={port}"])
        procs.append(sched2)
        state = _get(url0 + "/state")
        assert state["iteration"] == 3 and state["model_iteration"] == 2
        toks = {who: join(url0 if k % 2 else url1b, who, 10)["token"] for k, who in enumerate("wxyz")}
        for who, tok in toks.items():
            assert post(url1b, "updateModel", update(who, tok, ones(7), iteration=3))[1]["retcode"] == 200
        _until(lambda: _get(url0 + "/state")["finished"], "the job finishes")
        metrics = json.loads((ckpt / "metrics.json").read_text())
        assert [m["status"] for m in metrics] == ["succeeded"] * 3
    finally:
        _stop(procs)
    assert all(p.poll() is not None for p in procs)     # no orphans


def test_cluster_roles_refuse_bad_settings_in_one_line(tmp_path):
    config = tmp_path / "fl.yaml"
    config.write_text("server_num: 2\nscheduler_ip: 127.0.0.1\n")
    cases = [(["openspore.federated.server", "--node-id", "2"], "node_id 2 must be in 0..1"),
             (["openspore.federated.server", "--set", "ms_role=MS_WORKER"], "MS_WORKER"),
             (["openspore.federated.server", "--weights", "w.npz"], "holds no model"),
             (["openspore.federated.scheduler", "--set", "server_num=0"], "server_num >= 1")]
    for args, expected in cases:
        out = subprocess.run([sys.executable, "-m", args[0], "--config", str(config), *args[1:]], cwd=REPO,
                             env=child_env(), capture_output=True, text=True, timeout=120)
        assert out.returncode == 2 and expected in out.stderr and "Traceback" not in out.stderr, (args, out.stderr)


def test_hostile_input_is_refused_at_the_cluster_server():
    ctx = FLContext(fl_name="job", server_num=1, scheduler_ip="127.0.0.1", scheduler_port=0, fl_server_port=0,
                    start_fl_job_threshold=2, start_fl_job_time_window=60000, update_model_time_window=60000)
    sched = FLScheduler(ctx, W0).start()
    ctx.update(scheduler_port=int(sched.url.rsplit(":", 1)[1]))
    srv = ClusterServer(ctx, 0).start()
    try:
        a, b = join(srv.url, "alice"), join(srv.url, "bob")
        for body in (b"{not json", {**update("alice", a["token"], ones(1)), "__buffer__": 0},
                     {**update("alice", a["token"], ones(1)), "feature_map": [{"weight_fullname": "w", "data": {
                         "dtype": "float32", "shape": [2, 3], "data": "!!!"}}]},
                     update("alice", a["token"], {"w": np.zeros((3, 2), np.float32), "b": np.zeros(3, np.float32)}),
                     update("alice", a["token"], ones(float("nan"))), update("bob", a["token"], ones(1))):
            status, reply = post(srv.url, "updateModel", body)
            assert status == 400 and reply["retcode"] == 400 and reply["reason"], (body, reply)
        assert sched.job.it.updated == {}
        assert post(srv.url, "updateModel", update("alice", a["token"], ones(1)))[1]["retcode"] == 200
        assert post(srv.url, "updateModel", update("bob", b["token"], ones(3)))[1]["retcode"] == 200
        np.testing.assert_allclose(sched.job.weights["w"], 2.0, rtol=0, atol=1e-6)     # (10·1 + 10·3) / 20
    finally:
        srv.stop()
        sched.stop()
