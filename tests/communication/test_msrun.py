"""`msrun` end to end on 127.0.0.1: logs, MindSpore's environment, a failing worker, two nodes."""
import json
import os
import re
import signal
import subprocess
import sys
import time

import pytest

from openspore.parallel import msrun
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
    assert "msrun: worker 1 (rank 1) raised ValueError: worker one broke on purpose; the other workers" in err
    record = json.loads((tmp_path / "logs" / "worker_1.error.json").read_text())
    assert (record["rank"], record["type"], record["message"]) == (1, "ValueError", "worker one broke on purpose")
    assert "Distributed job exited with exception" in err
    for rank in (0, 1):
        pid = int((tmp_path / f"pid_{rank}").read_text())
        deadline = time.monotonic() + 5
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _alive(pid), f"worker rank {rank} (pid {pid}) outlived msrun"


def test_ctrl_c_stops_the_workers_and_the_port_serves_again_at_once(tmp_path):
    port = free_port()
    proc = _msrun(tmp_path, "sleep", "--worker_num=2", "--local_worker_num=2", f"--master_port={port}")
    deadline = time.monotonic() + 120
    while not all((tmp_path / f"pid_{r}").exists() for r in (0, 1)):  # both joined the job
        assert time.monotonic() < deadline and proc.poll() is None, "the workers did not start"
        time.sleep(0.1)
    proc.send_signal(signal.SIGINT)
    code, out, err = _finish(proc)
    assert code == 128 + signal.SIGINT
    assert f"msrun: got SIGINT; stopped the 2 running worker(s). Their logs are in {tmp_path / 'logs'}." in err
    for rank in (0, 1):
        assert not _alive(int((tmp_path / f"pid_{rank}").read_text())), f"worker rank {rank} outlived msrun"
    code, out, err = _finish(_msrun(tmp_path, "ok", "--worker_num=2", "--local_worker_num=2",
                                    f"--master_port={port}", log="again"))
    assert code == 0, out + err


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




def _worker(tmp_path, index, after, code=None, raises=None, slow_exit_s=0.0):
    """A worker process that, `after` seconds past the moment `_released` gives, exits with `code` or raises
    `raises` (a message) with msrun's failure record installed, then takes `slow_exit_s` to shut down."""
    log_path = tmp_path / f"worker_{index}.log"
    log_file = open(log_path, "w")  # noqa: SIM115 - wait_workers / stop_workers close it
    worker = msrun.Worker(index, index, None, str(log_path), log_file)
    # Importing openspore takes seconds (more under load), so each worker says when it is ready and waits for
    # the common start: the gaps the tests set up are between the workers' actions, not their start-ups.
    script = (f"import atexit, os, sys, time\n"
              f"from openspore.communication import _failure_record\n"
              f"_failure_record.install({index}, {worker.error_path!r})\n"
              f"atexit.register(time.sleep, {slow_exit_s})\n"
              f"open({str(tmp_path / f'ready_{index}')!r}, 'w').close()\n"
              f"go = {str(tmp_path / 'go')!r}\n"
              f"while not os.path.exists(go):\n"
              f"    time.sleep(0.01)\n"
              f"time.sleep(max(0.0, float(open(go).read()) + {after} - time.time()))\n")
    script += f"raise RuntimeError({raises!r})\n" if raises else f"sys.exit({code})\n"
    worker.proc = subprocess.Popen([sys.executable, "-c", script], stdout=log_file, stderr=subprocess.STDOUT,
                                   start_new_session=True, env=child_env())
    return worker


def _released(tmp_path, workers):
    """Waits until every worker is ready, then starts their clocks 0.5 s from now; returns the workers."""
    deadline = time.monotonic() + 120
    while not all((tmp_path / f"ready_{w.local_index}").exists() for w in workers):
        assert time.monotonic() < deadline, "the test's workers did not get ready"
        time.sleep(0.02)
    (tmp_path / "go.tmp").write_text(repr(time.time() + 0.5))
    os.replace(tmp_path / "go.tmp", tmp_path / "go")
    return workers


def test_without_a_raise_the_first_worker_to_end_is_named_and_stopped_ones_are_not_failures(tmp_path):
    # Neither raises (think os._exit or a signal): the moments their processes ended decide. Worker 0 ends
    # 0.5 s after worker 1, the third would run for a minute.
    workers = _released(tmp_path, [_worker(tmp_path, 0, 0.5, code=1), _worker(tmp_path, 1, 0, code=3),
                                   _worker(tmp_path, 2, 60, code=0)])
    start = time.monotonic()
    failed = msrun.wait_workers(workers)
    assert time.monotonic() - start < 20  # the long worker was stopped, not waited for
    assert (failed[0].rank, failed[0].proc.returncode) == (1, 3)
    # Worker 0 either ended by itself (listed after) or was stopped first (not a failure); the long one was
    # stopped and is not listed.
    assert [w.rank for w in failed[1:]] in ([], [0])
    assert workers[2].proc.returncode == -signal.SIGTERM and workers[2] not in failed


def test_the_first_worker_to_raise_is_named_even_when_it_ends_last(tmp_path, monkeypatch, capsys):
    # Stop 38's CI: rank 1 raised, rank 0 failed in its collective once rank 1's connections closed, and
    # rank 0 finished exiting first. Here worker 1 raises first but takes a second to shut down.
    workers = [_worker(tmp_path, 0, 0.3, raises="Connection closed by peer"),
               _worker(tmp_path, 1, 0, raises="broke on purpose", slow_exit_s=1.5)]
    (tmp_path / "task.py").write_text("")
    monkeypatch.setattr(msrun, "start_workers", lambda args: _released(tmp_path, workers))
    code = msrun.main(["--worker_num=2", "--local_worker_num=2", "--master_addr=127.0.0.1",
                       f"--master_port={free_port()}", f"--log_dir={tmp_path}", str(tmp_path / "task.py")])
    err = capsys.readouterr().err
    assert code == 1
    assert workers[0].ended_at < workers[1].ended_at  # worker 0 did end first
    assert err.startswith("msrun: worker 1 (rank 1) raised RuntimeError: broke on purpose; the other workers "
                          f"were stopped. Last lines of {workers[1].log_path}:"), err
    assert "RuntimeError: broke on purpose" in err.split("\n", 1)[1]  # the end of its log
    later = re.search(r"msrun: worker 0 \(rank 0\) raised RuntimeError: Connection closed by peer ([0-9.]+) s "
                      r"after it; its log is ", err)
    assert later and 0.0 < float(later.group(1)) < 1.5, err
    assert "Distributed job exited with exception" in err


def test_a_failure_record_from_an_earlier_job_is_not_taken_for_this_one(tmp_path):
    stale = tmp_path / "worker_0.error.json"
    stale.write_text(json.dumps({"time": 1.0, "rank": 0, "pid": 1, "type": "ValueError", "message": "old"}))
    workers = _released(tmp_path, [_worker(tmp_path, 0, 0.5, code=2), _worker(tmp_path, 1, 0, code=3)])
    failed = msrun.wait_workers(workers)
    assert failed[0].rank == 1 and all(w.error is None for w in failed)  # the stale record (pid 1) is ignored
