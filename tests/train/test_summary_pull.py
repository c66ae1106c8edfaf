"""The input batch read by the writer process from the training process (`_pull`): the read itself, the ring's
messages and holds, and SummaryCollector's records with and without it (same bytes)."""
import subprocess
import sys

import numpy as np
import pytest

import openspore as ms
import openspore.dataset as ds
from openspore import nn
from openspore.train.callback import _summary_fast
from openspore.train.summary import _pull, _ring, _writer_client
from openspore.train.summary._ring import AttachedRing, SharedRing
from tests.insight import nets

_READ_BACK = """
import sys
import numpy as np
from openspore.train.summary import _pull
pid = _pull.check(sys.argv[1])
if pid is None:
    print("refused")
else:
    print(_pull.pull(pid, int(sys.argv[2]), "<f4", (2, 3)).tobytes().hex())
"""


def _child_reads(address):
    out = subprocess.run([sys.executable, "-c", _READ_BACK, _pull.probe(), str(address)], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def _pull_works():
    probe = np.zeros(1, np.float32)
    return _pull.probe() != "-" and _child_reads(probe.ctypes.data) != "refused"


def test_a_child_process_reads_this_processs_array_once_its_token_checked_out():
    data = np.arange(6, dtype=np.float32).reshape(2, 3)
    if _pull.probe() == "-":
        pytest.skip("process_vm_readv is not available here (not Linux): collections copy the batch instead")
    got = _child_reads(data.ctypes.data)
    if got == "refused":
        pytest.skip("this system does not let a child process read its parent (ptrace rules): the collector "
                    "copies the batch instead, tested below")
    assert got == data.tobytes().hex()
    assert _pull.check("-") is None and _pull.check("1:2:zz") is None  # no token, or a broken one: no pulling
    token = _pull.probe().rsplit(":", 1)[0] + ":" + "00" * 16  # the right place, the wrong bytes
    assert _pull.check(token) is None


def test_a_pulled_collection_names_the_batchs_address_and_is_held_until_released():
    ring = SharedRing.create(64 + 16384)
    writer = AttachedRing(ring.fd, ring.size)
    layout = _ring.RingLayout([("image", "x", np.dtype(np.float32), (2, 8)),
                               ("histogram", "w", np.dtype(np.float32), (2, 504))], ["loss/auto"], pull_first=True)
    assert layout.nbytes == 4032 and layout.pulled_nbytes == 64
    image = np.arange(16, dtype=np.float32).reshape(2, 8)
    weights = np.arange(1008, dtype=np.float32).reshape(2, 504)
    copies = ((0, weights.ctypes.data, weights.nbytes),)
    assert ring.collect(layout, copies, 7, 1.5, [0.25], 0, image.ctypes.data, image)
    assert ring.held() == 64 and ring.pulled == 1
    [message] = [_ring.message_of(data) for data in writer.messages()]
    assert message == ("collection", layout.key, 7, 1.5, [0.25], 0, 4032, image.ctypes.data)
    _, _, _, values, end = _ring.expand(_ring.layout_of, message)
    assert values[1] == ("image", "x", ("pulled", image.ctypes.data, "<f4", (2, 8)))
    assert writer.array(values[2][2]).tolist() == weights.tolist()
    with pytest.raises(OSError, match="cannot read the training process"):  # its writer never checked a token
        writer.array(values[1][2])
    assert ring.view(values[1][2]).tolist() == image.tolist()  # this process packing it itself (writer gone)
    writer.release(end)
    assert ring.collect(layout, copies, 8, 1.5, [0.5], 0, image.ctypes.data, image)
    assert ring.held() == 64  # the first let go once its collection was released


def test_past_the_hold_limit_a_pulled_collection_is_refused_and_nothing_done(monkeypatch):
    monkeypatch.setattr(_ring, "HOLD_BYTES", 128)
    ring = SharedRing.create(1 << 16)
    writer = AttachedRing(ring.fd, ring.size)
    layout = _ring.RingLayout([("image", "x", np.dtype(np.float32), (16,)),
                               ("histogram", "w", np.dtype(np.float32), (16,))], [], pull_first=True)
    image, weights = np.ones(16, np.float32), np.zeros(16, np.float32)
    copies = ((0, weights.ctypes.data, weights.nbytes),)
    assert ring.collect(layout, copies, 1, 0.0, [], 0, image.ctypes.data, image)
    assert ring.collect(layout, copies, 2, 0.0, [], 0, image.ctypes.data, image)
    posted, in_use = ring.posted(), ring.in_use()
    assert not ring.collect(layout, copies, 3, 0.0, [], 0, image.ctypes.data, image)  # 128 bytes held
    assert (ring.posted(), ring.in_use()) == (posted, in_use)
    for message in [_ring.message_of(data) for data in writer.messages()]:
        writer.release(message[6])
    assert ring.collect(layout, copies, 3, 0.0, [], 0, image.ctypes.data, image)


def _train(summary_dir, data, around=None):
    """One epoch of LeNet with a collector (collect_freq=1); `around(collector)`: callbacks (before, after) it."""
    ms.set_seed(5)
    net = nets.LeNet()
    model = ms.Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                     nn.Momentum(net.trainable_params(), 0.01, 0.9))
    collector = ms.SummaryCollector(summary_dir, collect_freq=1)
    before, after = around(collector) if around is not None else ([], [])
    model.train(1, data, callbacks=before + [collector] + after)  # (one line: the graph records its code stack)


def _batches(rows=80, **kwargs):
    rng = np.random.default_rng(5)
    return ds.NumpySlicesDataset({"x": rng.standard_normal((rows, 1, 32, 32)).astype(np.float32),
                                  "y": rng.integers(0, 10, rows).astype(np.int32)}, shuffle=False).batch(8, **kwargs)


def _records(run_dir):
    from tests.insight.test_summary_fast_path import _events
    return _events(run_dir)


def _ready_writer(tmp_path):
    _train(str(tmp_path / "warm"), _batches(16))  # a writer process that is ready: the straight pass runs
    writer = _writer_client._idle.get("writer")
    assert writer is not None and writer.ready.wait(120)
    return writer


def _pulling_writer(tmp_path, monkeypatch):
    """A ready writer process that reads the batches from here (the test skips, saying why, where none can)."""
    ms.set_context(mode=ms.GRAPH_MODE)
    monkeypatch.setenv("OPENSPORE_SUMMARY_WRITER", "process")
    if not _pull_works():
        pytest.skip("this system does not let a child process read its parent: nothing is pulled here")
    writer = _ready_writer(tmp_path)
    assert writer.pulls
    return writer


def test_collections_with_the_batch_pulled_are_the_files_the_copying_way_writes(tmp_path, monkeypatch):
    writer = _pulling_writer(tmp_path, monkeypatch)
    posted, pulled = _summary_fast.POSTED[0], writer.ring.pulled
    _train(str(tmp_path / "pulled"), _batches())
    # the straight pass's collections (from step 3 or so: the first go the general way, the graph being built)
    assert _summary_fast.POSTED[0] - posted == writer.ring.pulled - pulled >= 1
    assert writer.ring.held() == 0  # the record closed: the writer read them all, and they were let go
    # a batch made by `per_batch_map` may be an array its function keeps and rewrites: copied, not pulled
    pulled = writer.ring.pulled
    _train(str(tmp_path / "mapped"), _batches(per_batch_map=lambda x, y, info: (x, y)))
    assert writer.ring.pulled == pulled
    monkeypatch.setenv("OPENSPORE_SUMMARY_WRITER", "thread")  # no ring: everything copied, the general way
    _train(str(tmp_path / "thread"), _batches())
    assert _records(str(tmp_path / "pulled")) == _records(str(tmp_path / "thread"))
    assert _records(str(tmp_path / "mapped")) == _records(str(tmp_path / "thread"))


def test_a_writer_that_cannot_read_this_process_gets_the_batch_copied(tmp_path, monkeypatch):
    ms.set_context(mode=ms.GRAPH_MODE)
    monkeypatch.setenv("OPENSPORE_SUMMARY_WRITER", "process")
    _writer_client._stop_idle()  # the next writer process is started with a token that does not check out
    monkeypatch.setattr(_pull, "probe", lambda: f"1:{np.zeros(1).ctypes.data}:{'00' * 16}")
    writer = _ready_writer(tmp_path)
    assert not writer.pulls
    posted, pulled = _summary_fast.POSTED[0], writer.ring.pulled
    _train(str(tmp_path / "copied"), _batches())
    assert _summary_fast.POSTED[0] - posted >= 1 and writer.ring.pulled == pulled
    monkeypatch.setenv("OPENSPORE_SUMMARY_WRITER", "thread")
    _train(str(tmp_path / "thread"), _batches())
    assert _records(str(tmp_path / "copied")) == _records(str(tmp_path / "thread"))
    _writer_client._stop_idle()  # (the next test's writer checks its token again)


class _StopWriter(ms.Callback):
    """Before the collector: at `step`'s end wait until the writer process has written everything so far (a
    writer stopped while packing what it took would lose that), then SIGSTOP it: it takes nothing from then on.
    After the collector (no `collector`): SIGKILL it at `step`'s end, the collections posted meanwhile never taken."""

    def __init__(self, writer, step, collector=None):
        super().__init__()
        self.writer, self.step, self.collector = writer, step, collector

    def on_train_step_end(self, run_context):
        if run_context.original_args().cur_step_num == self.step:
            import os
            import signal
            if self.collector is not None:
                self.collector._record.flush()
            os.kill(self.writer.pid, signal.SIGSTOP if self.collector is not None else signal.SIGKILL)
            if self.collector is None:
                self.writer.popen.wait()


def test_pulled_collections_a_dead_writer_never_took_are_written_by_this_process(tmp_path, monkeypatch):
    writer = _pulling_writer(tmp_path, monkeypatch)
    posted, pulled = _summary_fast.POSTED[0], writer.ring.pulled
    _train(str(tmp_path / "killed"), _batches(),
           lambda collector: ([_StopWriter(writer, 3, collector)], [_StopWriter(writer, 10)]))
    # from step 3 on, posted to the stopped writer: never taken
    assert _summary_fast.POSTED[0] - posted == writer.ring.pulled - pulled >= 1
    monkeypatch.setenv("OPENSPORE_SUMMARY_WRITER", "thread")
    _train(str(tmp_path / "thread"), _batches())
    assert _records(str(tmp_path / "killed")) == _records(str(tmp_path / "thread"))
