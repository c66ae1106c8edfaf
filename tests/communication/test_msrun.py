"""`msrun` end to end on 127.0.0.1: logs, MindSpore's environment, a failing worker, two nodes."""
import json
import os
import subprocess
import sys
import time

import pytest

from tests.conftest import child_env

from .launch import HERE, free_port

SCRIPT = os.path.join(HERE, "worker_msrun.py")


def _msrun(tmp_path, mode, *flags, log="logs"):
    cmd = [sys.executable, "-m", "openspore.parallel.msrun", "--master_addr=127.0.0.1", "--join=True",
           f"--log_dir={tmp_path / log}", "--cluster_time_out=60", *flags, SCRIPT, str(tmp_path), mode]
    return subprocess.Popen(cmd, env=child_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _finish(proc, timeout=150):
    try:
        out, err = proc.communicate(timeout=timeout)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return proc.returncode, out, err


def _result(tmp_path, rank):
    with open(tmp_path / f"worker_{rank}.json") as f:
        return json.load(f)


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_two_workers_logs_and_environment(tmp_path):
    code, out, err = _finish(_msrun(tmp_path, "ok", "--worker_num=2", "--local_worker_num=2",
                                    f"--master_port={free_port()}"))
    assert code == 0, out + err
    for rank in (0, 1):
        res = _result(tmp_path, rank)
        assert res["total"] == [3.0] and res["local"] == rank
        assert res["env"] == {"MS_ROLE": "MS_WORKER", "MS_SCHED_HOST": "127.0.0.1", "MS_WORKER_NUM": "2",
                              "RANK_ID": str(rank), "RANK_SIZE": "2", "DEVICE_ID": str(rank), "MS_TOPO_TIMEOUT": "60"}
        with open(tmp_path / "logs" / f"worker_{rank}.log") as f:
            assert f"rank {rank} of 2 sees [3.0]" in f.read()


def test_failed_worker_stops_the_job_without_orphans(tmp_path):
    code, out, err = _finish(_msrun(tmp_path, "fail", "--worker_num=2", "--local_worker_num=2",
                                    f"--master_port={free_port()}"))
    assert code == 1
    assert "rank 1" in err and "worker one broke on purpose" in err
    assert "Distributed job exited with exception" in err
    for rank in (0, 1):
        pid = int((tmp_path / f"pid_{rank}").read_text())
        deadline = time.monotonic() + 5
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _alive(pid), f"worker rank {rank} (pid {pid}) outlived msrun"


def test_two_nodes_form_one_job(tmp_path):
    port = free_port()
    nodes = [_msrun(tmp_path, "ok", "--worker_num=2", "--local_worker_num=1", f"--master_port={port}",
                    f"--node_rank={n}", log=f"node{n}") for n in (0, 1)]
    results = [_finish(p) for p in nodes]
    for code, out, err in results:
        assert code == 0, out + err
    assert [_result(tmp_path, r)["total"] for r in (0, 1)] == [[3.0], [3.0]]
    assert os.path.exists(tmp_path / "node1" / "worker_1.log")


def test_local_worker_num_defaults_to_the_job_size_on_one_node():
    from openspore.parallel.msrun import _check, build_parser
    args = build_parser().parse_args(["--worker_num=2", __file__])
    _check(args)
    assert args.local_worker_num == 2
    args = build_parser().parse_args(["--worker_num=16", __file__])
    _check(args)
    assert args.local_worker_num == 8  # MindSpore's per-node default
    with pytest.raises(SystemExit, match="local_worker_num"):
        _check(build_parser().parse_args(["--worker_num=2", "--local_worker_num=3", __file__]))
