"""The shared-memory ring that carries a collection's arrays to the summary writer process (`_ring.py`), and what
it must guarantee end to end: a collection is a snapshot (later in-place updates of the weights do not reach the
file), a full ring or a stopped writer never stops training (the training thread then takes numpy copies, which the
writer thread moves into the ring once there is room: nothing is pickled), nothing is lost."""
import os
import signal

import numpy as np
import pytest

import openspore as ms
from openspore import nn
from openspore.train.summary import _ring, _writer_client
from openspore.train.summary._ring import AttachedRing, SharedRing

pytestmark = pytest.mark.skipif(not hasattr(os, "memfd_create"), reason="the ring needs memfd (Linux)")


def test_ring_copies_wraps_refuses_when_full_and_reuses_released_space():
    ring = SharedRing.create(64 + 4096)  # 4 KiB of data: slots up to 1 KiB
    writer = AttachedRing(ring.fd, ring.size)
    source = np.arange(256, dtype=np.float32)  # 1 KiB
    slots = [ring.put(source + i) for i in range(4)]
    assert all(s is not None for s in slots) and ring.in_use() == 4096
    assert ring.put(source) is None  # full until the writer releases
    source += 100  # the slots are copies: changing the source changes nothing in them
    assert [float(writer.array(s.message())[0]) for s in slots] == [0.0, 1.0, 2.0, 3.0]
    writer.release(slots[0].end)
    again = ring.put(source[:200])  # the freed first 1 KiB (800 bytes, 64-byte aligned: 832 reserved)
    assert again is not None and again.offset == 0
    writer.release(slots[3].end)
    after = ring.put(source)  # right behind it
    assert after is not None and after.offset == 832
    assert writer.array(after.message()).tolist() == source.tolist()
    writer.release(after.end)
    assert ring.in_use() == 0


def test_ring_skips_the_tail_rather_than_splitting_a_slot():
    ring = SharedRing.create(64 + 16384)  # slots up to 4 KiB
    writer = AttachedRing(ring.fd, ring.size)
    slots = [ring.put(np.zeros(kib * 256, np.float32)) for kib in (4, 4, 4)]
    writer.release(slots[1].end)  # the first 8 KiB are free again, the third slot is still being packed
    last = ring.put(np.zeros(3 * 256, np.float32))
    second = ring.put(np.ones(2 * 256, np.float32))  # 2 KiB: does not fit in the last 1 KiB
    assert last.offset == 12288 and second.offset == 0
    assert ring.in_use() == 4096 + 3072 + 1024 + 2048  # the skipped tail counts until released
    assert writer.array(second.message()).sum() == 512


def test_ring_starts_again_at_its_start_once_drained():
    ring = SharedRing.create(64 + 16384)
    writer = AttachedRing(ring.fd, ring.size)
    first = ring.put(np.arange(1024, dtype=np.float32))
    second = ring.put(np.arange(512, dtype=np.float32))  # not drained: right behind the first
    assert (first.offset, second.offset) == (0, 4096)
    writer.release(second.end)
    third = ring.put(np.arange(1024, dtype=np.float32) + 1)  # drained: the start again, the tail skipped
    assert third.offset == 0 and ring.in_use() == 4096  # the skipped tail is free: nothing waits there
    assert writer.array(third.message())[:3].tolist() == [1.0, 2.0, 3.0]
    writer.release(third.end)
    small = ring.put(np.arange(64, dtype=np.float32))
    assert small.offset == 0
    writer.release(small.end)
    behind = ring.put(np.arange(256, dtype=np.float32))  # drained, but the tail before it is shorter than the
    assert behind.offset == 256 and ring.in_use() == 1024  # slot (start and tail would not fit): right behind


class _Weights(ms.Callback):
    """The first parameters' values after every step (host copies), and the writer process stopped (SIGSTOP)
    from the first step (once it has started) until Model.train is left, so that every collection waits in the ring or the queue while
    the optimizer keeps updating the weights in place."""

    def __init__(self, collector, params):
        super().__init__()
        self.collector, self.params, self.steps, self.writer, self.ring = collector, params, [], None, None

    def on_train_step_end(self, run_context):
        if self.writer is None:
            self.writer = self.collector._record._summary.writer_process()
            proc = self.collector._record._summary._proc
            assert proc.ready.wait(60)  # started: the collections then go to it, through the ring while it has room
            self.ring = proc.ring
            os.kill(self.writer.pid, signal.SIGSTOP)
        self.steps.append({p.name: p.asnumpy().copy() for p in self.params})

    def __exit__(self, *err):
        if self.writer is not None:
            os.kill(self.writer.pid, signal.SIGCONT)


def test_histograms_are_the_weights_at_their_step_with_the_writer_stopped_and_the_ring_overflowing(
        tmp_path, monkeypatch):
    from openspore.insight.summary_reader import SummaryIndex
    from tests.insight import summary_runs
    monkeypatch.setenv("OPENSPORE_SUMMARY_WRITER", "process")
    monkeypatch.setattr(_ring, "DEFAULT_SIZE", 64 + 256 * 1024)  # room for about four collections of this LeNet
    _writer_client._stop_idle()  # a writer process made now, with that small ring
    try:
        ms.set_seed(1)
        net = summary_runs.SummaryLeNet()
        model = ms.Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                         nn.Momentum(net.trainable_params(), 0.05, 0.9))
        collector = ms.SummaryCollector(str(tmp_path / "r"), collect_freq=1)
        watch = _Weights(collector, net.trainable_params()[:5])
        model.train(3, summary_runs.dataset(rows=64), callbacks=[collector, watch])
    finally:
        _writer_client._stop_idle()
    run = SummaryIndex(str(tmp_path)).run("./r")
    assert len(watch.steps) == 24
    per_collection = sum(p.asnumpy().nbytes for p in net.trainable_params()[:5]) + 8 * 32 * 32 * 4  # + images
    assert watch.ring._reserved >= 24 * per_collection  # every collection went through the ring ...
    assert collector._record._summary.moved >= 20  # ... most moved in by the writer thread once there was room
    assert watch.ring.in_use() == 0  # and all of it was released by the writer process
    for name, values in watch.steps[0].items():
        series = run.histograms[f"{name}/auto"]
        assert [h["step"] for h in series] == list(range(1, 25))
        for h, step_values in zip(series, watch.steps):
            expected = step_values[name]
            assert h["count"] == expected.size
            assert (h["min"], h["max"]) == (float(expected.min()), float(expected.max())), (name, h["step"])
    first = net.trainable_params()[0].name
    assert watch.steps[0][first].max() != watch.steps[-1][first].max()  # the weights did move meanwhile


class _Values(ms.Callback):
    """After the collector: each step's loss and host copies of the first parameters."""

    def __init__(self, params):
        super().__init__()
        self.params, self.steps, self.losses = params, [], []

    def on_train_step_end(self, run_context):
        self.steps.append({p.name: p.asnumpy().copy() for p in self.params})
        self.losses.append(float(run_context.original_args()["net_outputs"].asnumpy()))


def test_collections_the_layout_way_hold_each_steps_loss_weights_and_input(tmp_path, monkeypatch):
    from openspore.insight.summary_reader import SummaryIndex
    from tests.insight import nets, summary_runs
    monkeypatch.setenv("OPENSPORE_SUMMARY_WRITER", "process")
    with ms.SummaryRecord(str(tmp_path / "warm-up")) as warm:  # a writer process ready for the run
        warm.add_value("scalar", "x", ms.Tensor(np.float32(1)))
        warm.record(1)
        warm.flush()
    ms.set_seed(1)
    net = nets.LeNet()  # no summary ops in construct: every collection is the collector's own
    model = ms.Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                     nn.Momentum(net.trainable_params(), 0.05, 0.9))
    collector = ms.SummaryCollector(str(tmp_path / "r"), collect_freq=1)
    watch = _Values(net.trainable_params()[:5])
    model.train(2, summary_runs.dataset(rows=64), callbacks=[collector, watch])
    assert collector._record._summary.collections >= 1  # (step 1 also writes the graph: the general way)
    run = SummaryIndex(str(tmp_path)).run("./r")
    steps = list(range(1, 17))
    assert run.scalars["loss/auto"] == [(s, float(np.float32(v))) for s, v in zip(steps, watch.losses)]
    assert [s for s, _ in run.scalars["learning_rate/auto"]] == steps
    assert [i["step"] for i in run.images["input_data/auto"]] == steps[-run.MAX_IMAGES:]
    for name in watch.steps[0]:
        series = run.histograms[f"{name}/auto"]
        assert [h["step"] for h in series] == steps
        for h, values in zip(series, watch.steps):
            assert (h["count"], h["min"], h["max"]) == (values[name].size, float(values[name].min()),
                                                        float(values[name].max())), (name, h["step"])


def test_put_many_lays_arrays_back_to_back_in_one_reservation():
    ring = SharedRing.create(64 + 16384)
    writer = AttachedRing(ring.fd, ring.size)
    arrays = [np.arange(6, dtype=np.float32).reshape(2, 3), np.full((1, 1, 5), 7, np.float32),
              np.arange(20, dtype=np.float32).reshape(4, 5)[:, ::2]]  # the last one strided
    slots = ring.put_many(arrays)
    assert [s.offset for s in slots] == [0, 24, 44] and len({s.end for s in slots}) == 1
    for slot, array in zip(slots, arrays):
        assert writer.array(slot.message()).tolist() == array.tolist() == slot.view.tolist()
    assert ring.put_many([np.zeros(2, np.float32), np.zeros(2, np.int32)]) is None  # two dtypes: one by one
    assert ring.put_many([np.zeros(1000, np.float32), np.zeros(100, np.float32)]) is None  # above the limit
    writer.release(slots[0].end)
    assert ring.in_use() == 0


def test_a_layout_copies_a_collection_in_one_reservation_and_its_message_names_where_each_array_lies():
    ring = SharedRing.create(64 + 16384)
    consumer = AttachedRing(ring.fd, ring.size)
    f32 = np.dtype(np.float32)
    layout = _ring.RingLayout([("image", "x", f32, (2, 1, 2, 2)), ("histogram", "w", f32, (3,)),
                               ("histogram", "b", f32, (1, 2))], ["loss/auto", "learning_rate/auto"])
    assert layout.nbytes == 4 * (8 + 3 + 2) and _ring.layout_of(layout.key) is layout
    arrays = [np.arange(8, dtype=np.float32).reshape(2, 1, 2, 2), np.arange(6, dtype=np.float32)[::2],  # strided
              np.full((1, 2), 9, np.float32)]
    offset, end = ring.put_layout(layout, arrays)
    event = _ring.expand(_ring.layout_of, layout.collected(7, 1.5, [0.25, 0.01], offset, end))
    kind, step, wall_time, values, released = event
    assert (kind, step, wall_time, released) == ("event", 7, 1.5, end)
    assert values[:2] == [("scalar", "loss/auto", 0.25), ("scalar", "learning_rate/auto", 0.01)]
    assert [(p, t) for p, t, _ in values[2:]] == [("image", "x"), ("histogram", "w"), ("histogram", "b")]
    for (_, _, where), array in zip(values[2:], arrays):
        assert consumer.array(where).tolist() == array.tolist()
    consumer.release(end)
    assert ring.in_use() == 0
    assert ring.put_layout(_ring.RingLayout([], ["loss/auto"]), []) == (0, 0)  # scalars only: nothing reserved
    with pytest.raises(ValueError, match="several dtypes"):
        _ring.RingLayout([("histogram", "w", f32, (3,)), ("histogram", "i", np.dtype(np.int32), (3,))], [])
    big = _ring.RingLayout([("histogram", "w", f32, (4096,))], [])  # above a quarter of the ring
    assert ring.put_layout(big, [np.zeros(4096, np.float32)]) is None


def test_posted_messages_come_in_order_wait_for_earlier_pipe_messages_and_refuse_when_slots_are_taken():
    ring = SharedRing.create(1 << 16)
    consumer = AttachedRing(ring.fd, ring.size)
    assert ring.post(b"first", 0) and ring.post(b"second", 0) and ring.posted() == 2
    assert ring.post(b"after a 100-byte pipe message", 100)
    assert [bytes(m) for m in consumer.messages()] == [b"first", b"second"]  # the pipe message is not read yet
    consumer.note_read(100)
    assert [bytes(m) for m in consumer.messages()] == [b"after a 100-byte pipe message"]
    assert not ring.post(b"x" * _ring.MESSAGE_SIZE, 100)  # too big for a slot: the pipe takes it
    for k in range(_ring.MESSAGE_SLOTS):
        assert ring.post(str(k).encode(), 100)
    assert not ring.post(b"one more", 100)  # every slot waits for the writer
    assert [bytes(m) for m in consumer.messages(upto=5)] == [b"0", b"1"]  # counts 3 and 4: those sent before count 5
    assert ring.post(b"one more", 100)
    assert [bytes(m) for _, m in ring.take_unread()][:2] == [b"2", b"3"] and ring.take_unread() == []
    assert list(consumer.messages()) == []  # taken by the producer (its writer died): not written twice


def test_over_mark_counts_what_waits_for_the_writer():
    ring = SharedRing.create(64 + 16384)
    writer = AttachedRing(ring.fd, ring.size)
    slots = [ring.put(np.zeros(1024, np.float32)) for _ in range(3)]  # 12 KiB of 16: three quarters, not over
    assert all(slots) and not ring.over_mark()
    more = ring.put(np.zeros(256, np.float32))
    assert ring.over_mark()  # 13 KiB wait for the writer
    writer.release(more.end)
    assert not ring.over_mark()
    again = ring.put(np.zeros(256, np.float32))  # drained: back to the start, the 3 KiB tail skipped ...
    assert again.offset == 0 and ring.in_use() == 1024 and not ring.over_mark()  # ... it is free


def test_a_ring_is_reusable_by_a_new_writer_only_once_everything_was_released_and_taken():
    ring = SharedRing.create(64 + 16384)
    writer = AttachedRing(ring.fd, ring.size)
    slot = ring.put(np.zeros(256, np.float32))
    assert ring.post(b"message", 0)
    assert not ring.reusable()
    writer.release(slot.end)
    assert not ring.reusable()  # the posted message was not taken
    assert list(writer.messages()) == [b"message"] and [] == list(writer.messages())
    writer.note_read(100)
    assert ring.reusable() and ring.piped() == 0  # the new writer's pipe starts at 0 bytes read


def test_a_lagging_writer_still_has_the_whole_ring_after_a_restart_at_its_start():
    ring = SharedRing.create(64 + 16384)
    writer = AttachedRing(ring.fd, ring.size)
    first = ring.put(np.zeros(1024, np.float32))
    writer.release(first.end)  # drained at 4 KiB: the next slot goes to the start ...
    slots = [ring.put(np.zeros(1024, np.float32)) for _ in range(4)]  # ... and the writer releases nothing now
    assert [s.offset for s in slots] == [0, 4096, 8192, 12288] and ring.in_use() == 16384
    assert ring.put(np.zeros(16, np.float32)) is None  # now it is full


def test_collect_reserves_copies_and_posts_in_one_pass_or_does_nothing():
    ring = SharedRing.create(64 + 16384)
    writer = AttachedRing(ring.fd, ring.size)
    layout = _ring.RingLayout([("image", "x", np.dtype(np.float32), (2, 8)),
                               ("histogram", "w", np.dtype(np.float32), (2, 504))], ["loss/auto"])  # 4 KiB

    def copies(*arrays):  # the caller's (place in the collection, address, bytes) of each array, in layout order
        return tuple((entry[4], array.ctypes.data, array.nbytes) for entry, array in zip(layout.entries, arrays))

    image = np.arange(16, dtype=np.float32).reshape(2, 8)
    weights = np.arange(1008, dtype=np.float32).reshape(2, 504)
    assert ring.collect(layout, copies(image, weights), 7, 1.5, [0.25], 0)
    [message] = [_ring.message_of(data) for data in writer.messages()]
    assert message == ("collection", layout.key, 7, 1.5, [0.25], 0, 4096, 0)
    event = _ring.expand(_ring.layout_of, message)
    assert writer.array(event[3][1][2]).tolist() == image.tolist()
    assert writer.array(event[3][2][2]).tolist() == weights.tolist()
    for step in range(3):  # the ring fills up: 16 KiB
        assert ring.collect(layout, copies(image, weights), 8 + step, 1.5, [0.25], 0)
    posted, reserved, data = ring.posted(), ring.in_use(), bytes(ring._map[:64 + 16384])
    changed = image + 1, weights + 1
    assert not ring.collect(layout, copies(*changed), 11, 1.5, [0.25], 0)  # full: nothing reserved, copied, posted
    assert (ring.posted(), ring.in_use(), bytes(ring._map[:64 + 16384])) == (posted, reserved, data)
    assert not ring.collect(layout, copies(image, weights), 11, 1.5, [0.0] * (_ring.MAX_SCALARS + 1), 0)
