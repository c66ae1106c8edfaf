"""The summary data file is packed and written by a writer process at low priority (`_writer_process.py`): same
bytes as the thread writer, no process left behind, and nothing lost when the writer process dies."""
import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import openspore as ms
from openspore.train.summary import summary_pb2
from openspore.train.summary._event_file import read_records


def _events(directory):
    (name,) = [n for n in os.listdir(directory) if n.endswith("_MS")]
    with open(os.path.join(directory, name), "rb") as f:
        out = []
        for payload in read_records(f.read()):
            event = summary_pb2.Event()
            event.ParseFromString(payload)
            out.append(event)
    return out


def _write_steps(record, steps):
    rng = np.random.default_rng(0)
    for step in steps:
        record.add_value("scalar", "loss", ms.Tensor(np.float32(1.0 / step)))
        record.add_value("histogram", "w", ms.Tensor(rng.standard_normal(500).astype(np.float32)))
        record.add_value("image", "x", ms.Tensor(rng.random((3, 1, 4, 4)).astype(np.float32)))
        record.record(step)


def _strip_times(events):
    for e in events:
        e.wall_time = 0
    return [e.SerializeToString() for e in events]


def test_process_writer_writes_what_the_thread_writer_writes_and_leaves_no_process(tmp_path, monkeypatch):
    files = {}
    for backend in ("thread", "process"):
        monkeypatch.setenv("OPENSPORE_SUMMARY_WRITER", backend)
        with ms.SummaryRecord(str(tmp_path / backend)) as record:
            child = record._summary._child
            assert (child is not None) == (backend == "process")
            _write_steps(record, range(1, 6))
            record.flush()
            assert len(_events(tmp_path / backend)) == 6  # version + 5 steps, readable before close
        if child is not None:
            assert child.poll() is not None  # closed with the record, not left running
        files[backend] = _events(tmp_path / backend)
    assert _strip_times(files["process"]) == _strip_times(files["thread"])
    assert [e.step for e in files["process"][1:]] == [1, 2, 3, 4, 5]


def test_bad_backend_name_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENSPORE_SUMMARY_WRITER", "fork")
    with pytest.raises(ValueError, match="OPENSPORE_SUMMARY_WRITER should be 'process' or 'thread'"):
        ms.SummaryRecord(str(tmp_path))


def test_a_killed_writer_process_loses_nothing_queued_after_it(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENSPORE_SUMMARY_WRITER", "process")
    record = ms.SummaryRecord(str(tmp_path), raise_exception=True)
    try:
        _write_steps(record, [1, 2])
        record.flush()
        child = record._summary._child
        child.kill()
        child.wait()
        errors = []
        for call in (lambda: _write_steps(record, [3]), lambda: _write_steps(record, [4]), record.flush,
                     record.flush):
            try:  # the failure arrives from the writer thread: whichever call comes next reports it
                call()
            except RuntimeError as exc:
                errors.append(str(exc))
        assert len(errors) == 1 and "writer process" in errors[0] and "stopped" in errors[0], errors
    finally:
        record.close()
    assert [e.step for e in _events(tmp_path)[1:]] == [1, 2, 3, 4]  # ... and the thread wrote the rest


def test_the_writer_process_exits_when_training_is_killed(tmp_path):
    script = textwrap.dedent(f"""
        import os, sys, numpy as np
        sys.path.insert(0, {os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))!r})
        import openspore as ms
        record = ms.SummaryRecord({str(tmp_path)!r})
        record.add_value("scalar", "loss", ms.Tensor(np.float32(0.5)))
        record.record(1)
        record.flush()
        print(record._summary._child.pid, flush=True)
        sys.stdin.read()
    """)
    env = dict(os.environ, OPENSPORE_SUMMARY_WRITER="process")
    trainer = subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
    try:
        writer_pid = int(trainer.stdout.readline())
        os.kill(trainer.pid, signal.SIGKILL)
        trainer.wait(30)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and _alive(writer_pid):
            time.sleep(0.05)
        assert not _alive(writer_pid), "the writer process outlived the training process"
    finally:
        if trainer.poll() is None:
            trainer.kill()
        trainer.stdin.close()
        trainer.stdout.close()
    assert [e.step for e in _events(tmp_path)[1:]] == [1]


def _alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False
