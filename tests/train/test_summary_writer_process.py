"""The summary data file is packed and written by a writer process at low priority (`_writer_process.py`): same
bytes as the thread writer, one process reused by the records of a training process, none left behind, and nothing
lost when the writer process dies."""
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
from openspore.train.summary._records import read_records


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


def test_process_writer_writes_what_the_thread_writer_writes(tmp_path, monkeypatch):
    files = {}
    for backend in ("thread", "process"):
        monkeypatch.setenv("OPENSPORE_SUMMARY_WRITER", backend)
        with ms.SummaryRecord(str(tmp_path / backend)) as record:
            child = record._summary.writer_process()
            assert (child is not None) == (backend == "process")
            _write_steps(record, range(1, 6))
            record.flush()
            assert len(_events(tmp_path / backend)) == 6  # version + 5 steps, readable before close
        (name,) = os.listdir(tmp_path / backend)
        assert os.stat(tmp_path / backend / name).st_mode & 0o777 == 0o400  # closed when close() returned
        files[backend] = _events(tmp_path / backend)
    assert _strip_times(files["process"]) == _strip_times(files["thread"])
    assert [e.step for e in files["process"][1:]] == [1, 2, 3, 4, 5]


def _nice(pid):
    with open(f"/proc/{pid}/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[16])


def test_the_writer_runs_at_nice_19_and_serves_the_next_record_then_stops_when_idle(tmp_path, monkeypatch):
    from openspore.train.summary import _writer_client
    monkeypatch.setenv("OPENSPORE_SUMMARY_WRITER", "process")
    pids = []
    for run in ("a", "b"):
        with ms.SummaryRecord(str(tmp_path / run)) as record:
            child = record._summary.writer_process()
            _write_steps(record, [1, 2])
            record.flush()
            assert _nice(child.pid) == 19
            pids.append(child.pid)
        assert [e.step for e in _events(tmp_path / run)[1:]] == [1, 2]
    assert pids[0] == pids[1]  # the second record took the writer the first one closed: no second start
    monkeypatch.setattr(_writer_client, "IDLE_SECONDS", 0.1)
    with ms.SummaryRecord(str(tmp_path / "c")) as record:
        child = record._summary.writer_process()
        _write_steps(record, [1])
    assert child.wait(30) == 0  # idle for IDLE_SECONDS after its record closed: stopped


def test_no_writer_process_outlives_a_script_that_ends(tmp_path):
    script = textwrap.dedent(f"""
        import sys, numpy as np
        sys.path.insert(0, {os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))!r})
        import openspore as ms
        with ms.SummaryRecord({str(tmp_path)!r}) as record:
            record.add_value("scalar", "loss", ms.Tensor(np.float32(0.5)))
            record.record(1)
            print(record._summary.writer_process().pid, flush=True)
    """)
    env = dict(os.environ, OPENSPORE_SUMMARY_WRITER="process")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, env=env, timeout=120, check=True)
    writer_pid = int(done.stdout.split()[0])
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and _alive(writer_pid):
        time.sleep(0.05)
    assert not _alive(writer_pid), "the idle writer process outlived the script"
    assert [e.step for e in _events(tmp_path)[1:]] == [1]


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
        child = record._summary.writer_process()
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


def test_collections_posted_to_a_writer_that_dies_before_taking_them_are_written_by_this_process(tmp_path,
                                                                                                 monkeypatch):
    from openspore.train.summary._ring import RingLayout
    monkeypatch.setenv("OPENSPORE_SUMMARY_WRITER", "process")
    record = ms.SummaryRecord(str(tmp_path))
    weights = np.arange(12, dtype=np.float32).reshape(3, 4)
    try:
        _write_steps(record, [1])
        record.flush()  # the writer process runs and has the file: collections may be posted to it
        child = record._summary.writer_process()
        os.kill(child.pid, signal.SIGSTOP)  # it takes nothing from now on
        layout = RingLayout([("histogram", "w", weights.dtype, weights.shape)], ["loss"])
        for step in (2, 3, 4):
            assert record._post_collection(step, layout, [1.0 / step], [weights * step])
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        record.flush()  # the writer thread finds it gone and writes the posted collections itself
    finally:
        record.close()
    events = _events(tmp_path)[1:]
    assert [e.step for e in events] == [1, 2, 3, 4]
    for event in events[1:]:
        loss, histogram = event.summary.value
        assert (loss.tag, histogram.tag) == ("loss", "w")
        assert loss.scalar_value == np.float32(1.0 / event.step)
        assert (histogram.histogram.min, histogram.histogram.max) == (0.0, 11.0 * event.step)


def test_pipe_messages_a_dead_writer_never_wrote_are_written_by_this_process_in_their_place(tmp_path,
                                                                                              monkeypatch):
    # pipe messages too: one the writer had not read (still in the pipe when it died) or had read and not written
    # is kept by this process until the writer has handled it, and written here, between the ring's messages
    # posted before and after it
    from openspore.train.summary._ring import RingLayout
    monkeypatch.setenv("OPENSPORE_SUMMARY_WRITER", "process")
    record = ms.SummaryRecord(str(tmp_path))
    weights = np.arange(12, dtype=np.float32).reshape(3, 4)
    layout = RingLayout([("histogram", "w", weights.dtype, weights.shape)], ["loss"])
    try:
        _write_steps(record, [1])
        record.flush()
        child = record._summary.writer_process()
        os.kill(child.pid, signal.SIGSTOP)  # it reads and takes nothing from now on
        assert record._post_collection(2, layout, [0.5], [weights * 2])  # the ring's layout goes by the pipe
        event = summary_pb2.Event(step=3, wall_time=1.0)
        event.summary.value.add(tag="raw", scalar_value=3.0)
        record._summary._write(event.SerializeToString())  # through the pipe
        assert record._post_collection(4, layout, [0.25], [weights * 4])  # in a ring slot
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        record.flush()  # the writer thread finds it gone and writes what it never wrote itself
    finally:
        record.close()
    events = _events(tmp_path)[1:]
    assert [e.step for e in events] == [1, 2, 3, 4]
    assert [v.tag for v in events[2].summary.value] == ["raw"]
    assert [v.scalar_value for e in (events[1], events[3]) for v in e.summary.value[:1]] == [0.5, 0.25]


def test_the_writer_process_exits_when_training_is_killed(tmp_path):
    script = textwrap.dedent(f"""
        import os, sys, numpy as np
        sys.path.insert(0, {os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))!r})
        import openspore as ms
        record = ms.SummaryRecord({str(tmp_path)!r})
        record.add_value("scalar", "loss", ms.Tensor(np.float32(0.5)))
        record.record(1)
        record.flush()
        print(record._summary.writer_process().pid, flush=True)
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


def test_background_close_returns_at_once_and_exit_completes_the_file(tmp_path):
    script = textwrap.dedent(f"""
        import os, sys, numpy as np
        sys.path.insert(0, {os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))!r})
        import openspore as ms
        record = ms.SummaryRecord({str(tmp_path)!r})
        for step in range(1, 31):
            record.add_value("scalar", "loss", ms.Tensor(np.float32(1.0 / step)))
            record.add_value("histogram", "w", ms.Tensor(np.random.default_rng(step).standard_normal(5000)))
            record.record(step)
        record.add_value("custom_lineage_data", "custom_lineage_data",
                         ms.train.summary.lineage_pb2.UserDefinedInfo())
        record.record(30)
        record.close()
        print("closed", flush=True)
    """)
    env = dict(os.environ, OPENSPORE_SUMMARY_WRITER="process", OPENSPORE_SUMMARY_CLOSE="background")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, env=env, timeout=120)
    assert done.returncode == 0 and done.stdout == b"closed\n", done.stderr.decode()[-2000:]
    assert [e.step for e in _events(tmp_path)[1:]] == list(range(1, 31))
    for name in os.listdir(tmp_path):  # both files complete and closed by the time the process ended
        assert os.stat(tmp_path / name).st_mode & 0o777 == 0o400, name
    assert sorted(n.rsplit("_", 1)[1] for n in os.listdir(tmp_path)) == ["MS", "lineage"]


def test_bad_close_mode_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENSPORE_SUMMARY_CLOSE", "later")
    with pytest.raises(ValueError, match="OPENSPORE_SUMMARY_CLOSE should be 'wait' or 'background'"):
        ms.SummaryRecord(str(tmp_path))


def test_a_record_closed_before_its_writer_process_started_is_written_here_and_the_writer_kept(
        tmp_path, monkeypatch):
    from openspore.train.summary import _writer_client
    monkeypatch.setenv("OPENSPORE_SUMMARY_WRITER", "process")
    _writer_client._stop_idle()
    writer = _writer_client.WriterProcess()
    os.kill(writer.pid, signal.SIGSTOP)  # microseconds after exec: long before its imports are done
    try:
        assert not writer.ready.is_set()
        _writer_client.release(writer)  # the idle writer the next record takes
        with ms.SummaryRecord(str(tmp_path / "a")) as record:
            assert record._summary.writer_process() is writer.popen
            _write_steps(record, [1, 2, 3])
        # close() did not wait for the stopped writer: this process packed the held records, slots included
        assert [e.step for e in _events(tmp_path / "a")[1:]] == [1, 2, 3]
        assert [v.tag for v in _events(tmp_path / "a")[2].summary.value] == ["loss", "w", "x"]
        assert writer.ring.in_use() == 0
        assert _writer_client._idle["writer"] is writer and writer.alive()
        os.kill(writer.pid, signal.SIGCONT)
        with ms.SummaryRecord(str(tmp_path / "b")) as record:  # the same writer, started now, writes this one
            assert record._summary.writer_process() is writer.popen
            _write_steps(record, [1, 2])
            record.flush()
            assert writer.ready.is_set() and [e.step for e in _events(tmp_path / "b")[1:]] == [1, 2]
        assert _strip_times(_events(tmp_path / "b")) == _strip_times(_events(tmp_path / "a"))[:3]
    finally:
        if writer.alive():
            os.kill(writer.pid, signal.SIGCONT)
        _writer_client._stop_idle()


def test_records_held_for_a_slow_starting_writer_raise_its_priority_then_it_writes_them(tmp_path, monkeypatch):
    from openspore.train.summary import _event_file, _writer_client
    monkeypatch.setenv("OPENSPORE_SUMMARY_WRITER", "process")
    monkeypatch.setattr(_event_file, "START_PATIENCE", 0.2)
    _writer_client._stop_idle()
    writer = _writer_client.WriterProcess()
    os.kill(writer.pid, signal.SIGSTOP)  # still importing: it cannot start within the patience
    try:
        _writer_client.release(writer)
        with ms.SummaryRecord(str(tmp_path)) as record:
            _write_steps(record, [1, 2])
            deadline = time.monotonic() + 30
            while _nice(writer.pid) == 19 and time.monotonic() < deadline:
                time.sleep(0.05)
            if os.geteuid() == 0:  # raising a priority needs root (or CAP_SYS_NICE); otherwise it stays at 19
                assert _nice(writer.pid) == os.getpriority(os.PRIO_PROCESS, 0)
            os.kill(writer.pid, signal.SIGCONT)
            assert writer.ready.wait(60)
            record.flush()  # the writer process, started now, wrote the held records
            assert [e.step for e in _events(tmp_path)[1:]] == [1, 2]
            assert _nice(writer.pid) == 19  # it lowered itself once started
            assert record._summary.writer_process() is writer.popen and record._summary._child is writer
    finally:
        if writer.alive():
            os.kill(writer.pid, signal.SIGCONT)
        _writer_client._stop_idle()


def test_collections_taken_together_are_packed_as_one_at_a_time(tmp_path, monkeypatch):
    # the writer process packs the collections one wake-up finds together (`_Writer.handle_all`): the same records
    # as handling each alone, the ring released up to the last, a message that cannot be packed reported alone.
    # Each message is marked taken (and its pages released) only once its record is in the file: a writer killed
    # while packing leaves the rest to the training process instead of losing it
    import io
    import pickle
    from openspore.train.summary import _ring, _writer_process
    f32 = np.dtype(np.float32)
    layout = _ring.RingLayout([("image", "x", f32, (3, 1, 4, 4)), ("histogram", "w", f32, (50,)),
                               ("histogram", "b", f32, (5,))], ["loss/auto"])
    files, seen = {}, []

    class Watched(_writer_process.RecordFile):  # what the ring's counts were when each write came
        def append_all(self, payloads):  # (`append` is one of these)
            seen.append((consumer._counters[3], consumer._counters[0]))
            return super().append_all(payloads)

    monkeypatch.setattr(_writer_process, "RecordFile", Watched)
    for way in ("alone", "together"):
        rng = np.random.default_rng(4)
        ring = _ring.SharedRing.create(64 + (1 << 16))
        consumer = _ring.AttachedRing(ring.fd, ring.size)
        writer = _writer_process._Writer(consumer, io.BytesIO())
        path = str(tmp_path / way)
        messages = [layout.message, ("open", path, None)]
        for step in range(1, 6):
            arrays = [rng.random((3, 1, 4, 4)).astype(np.float32), rng.standard_normal(50).astype(np.float32),
                      np.full(5, step, np.float32)]
            messages.append(layout.collected(step, float(step), [1.0 / step], *ring.put_layout(layout, arrays)))
        messages.insert(4, ("raw", b"between"))  # steps 1-2 go together; 3-5 with a collection of an unknown
        messages.insert(6, ("collection", -1, 99, 0.0, [], 0, 0, 0))  # layout (reported) go one at a time
        if way == "alone":
            for message in messages:
                writer.handle(message)
        else:
            for message in messages:  # posted in the ring's message slots, as the training process posts them
                assert ring.post_collection(message, 0) if message[0] == "collection" else \
                    ring.post(pickle.dumps(message), 0)
            seen.clear()
            assert writer.handle_all(consumer.unread()) == len(messages)
            # steps 1-2 (messages 3 and 4) were written when 2 were taken and nothing released; "raw" (5) when 4
            # were, and steps 1-2's pages released; step 3 (message 6, alone: its run holds the unknown layout)
            # when 5 were
            assert [taken for taken, _ in seen[:3]] == [2, 4, 5] and seen[0][1] == 0 < seen[1][1]
            assert consumer._counters[3] == len(messages) and list(consumer.messages()) == []
        assert ring.in_use() == 0
        writer.close()
        assert writer.stdout.getvalue().count(b"error KeyError") == 1
        with open(path, "rb") as f:
            files[way] = list(read_records(f.read()))
    assert files["together"] == files["alone"] and len(files["alone"]) == 6


_FAULTS_PER_CYCLE = textwrap.dedent("""
    import resource, sys
    import numpy as np
    from openspore.train.summary._writer_process import keep_freed_memory
    kept = keep_freed_memory() if sys.argv[1] == "keep" else None
    def cycle():  # what packing a LeNet collection does: a few 1/2 MiB temporaries, made and freed
        a = np.ones(1 << 17)
        b = a * 2.0
        del a, b
    cycle()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(50):
        cycle()
    print(kept, (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / 50)
""")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt: Linux only")
def test_the_writer_keeps_freed_memory_so_a_collection_does_not_fault_its_temporaries_in_again():
    # each 1 MiB temporary is 256 pages: from a fresh mapping every time, each page faults (and is zeroed) again
    def faults(mode):
        out = subprocess.run([sys.executable, "-c", _FAULTS_PER_CYCLE, mode], capture_output=True, text=True,
                             check=True, cwd=os.path.dirname(os.path.dirname(ms.__file__))).stdout.split()
        return out[0], float(out[1])
    kept, with_it = faults("keep")
    if kept != "True":
        pytest.skip("not glibc: mallopt is not there, the writer leaves malloc as it is")
    _, without = faults("default")
    assert without > 200 and with_it < 5, (without, with_it)
