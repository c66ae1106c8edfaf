"""The dataset watchdog (issue 20, item 4): a worker stuck on a row is reported after
`multiprocessing_timeout_interval` seconds, naming the worker and the row; workers never outlive their parent,
even while stuck inside a map function."""
import os
import signal
import subprocess
import sys
import textwrap
import time
import warnings

import numpy as np
import pytest

import openspore.dataset as ds
from openspore.dataset import config
from tests.conftest import child_env
from .conftest import numpy_rows


def slow_on_row_two(x):
    if int(x) == 2:
        time.sleep(3.5)
    return x


def test_stuck_worker_is_reported_naming_worker_and_row():
    config.set_multiprocessing_timeout_interval(1)
    data = ds.NumpySlicesDataset({"x": np.arange(4)}, shuffle=False)
    data = data.map(slow_on_row_two, "x", num_parallel_workers=2, python_multiprocessing=True)
    # rows go to the workers in chunks sized from measured costs, so which worker carries row 2 depends on timing
    with pytest.warns(RuntimeWarning, match=r"Dataset worker process \d+ \(worker [01]\) has not returned row 2 of its "
                                            r"input after \d+ s"):
        rows = numpy_rows(data)
    assert [int(r[0]) for r in rows] == [0, 1, 2, 3]


def test_watchdog_can_be_turned_off():
    assert config.get_enable_watchdog() is True
    with pytest.raises(TypeError):
        config.set_enable_watchdog(1)
    config.set_enable_watchdog(False)
    config.set_multiprocessing_timeout_interval(1)
    data = ds.NumpySlicesDataset({"x": np.arange(4)}, shuffle=False)
    data = data.map(slow_on_row_two, "x", num_parallel_workers=2, python_multiprocessing=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        assert len(numpy_rows(data)) == 4


SCRIPT = """
import os, sys, time
import numpy as np
import openspore.dataset as ds

MARKS = sys.argv[1]

def hang(x):
    with open(os.path.join(MARKS, f"worker_{os.getpid()}"), "w") as f:
        f.write("x")
    time.sleep(1000)
    return x

data = ds.NumpySlicesDataset({"x": np.arange(8)}, shuffle=False)
data = data.map(hang, "x", num_parallel_workers=2, python_multiprocessing=True)
for row in data.create_tuple_iterator(output_numpy=True):
    pass
"""


def _alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads /proc")
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_hung_workers_end_when_their_parent_is_killed(tmp_path, sig):
    script = tmp_path / "hang.py"
    script.write_text(textwrap.dedent(SCRIPT))
    proc = subprocess.Popen([sys.executable, str(script), str(tmp_path)], env=child_env(),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    workers = []
    try:
        deadline = time.monotonic() + 60
        while len(workers) < 2 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.1)
            workers = [int(n.split("_")[1]) for n in os.listdir(tmp_path) if n.startswith("worker_")]
        assert len(workers) == 2, "the workers did not start"
        proc.send_signal(sig)
        proc.wait(timeout=30)
        deadline = time.monotonic() + 30   # generous bound for a loaded machine; the workers poll every 0.5 s
        while any(_alive(p) for p in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not [p for p in workers if _alive(p)], "dataset workers outlived their parent"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pid in workers:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
