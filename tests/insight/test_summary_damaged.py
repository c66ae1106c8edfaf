"""A damaged record in a summary file costs that record, not the run: the reader skips it, says where, and keeps
every record around it — whether the payload or the length was hit, and in a file still being written."""
import logging
import os
import struct

import numpy as np
import pytest

import openspore as ms
from openspore.insight.summary_reader import SummaryIndex
from openspore.train.summary._records import CorruptRecord, frame, read_records


def _write_run(directory, steps):
    with ms.SummaryRecord(str(directory)) as record:
        for step in steps:
            record.add_value("scalar", "loss", ms.Tensor(np.float32(step / 10)))
            record.record(step)
    (name,) = [n for n in os.listdir(directory) if n.endswith("_MS")]
    return directory / name


def _record_offsets(data):
    offsets, offset = [], 0
    while offset < len(data):
        offsets.append(offset)
        offset += 16 + struct.unpack("<Q", data[offset:offset + 8])[0]
    return offsets


def _damage(path, at):
    os.chmod(path, 0o600)  # a closed summary file is read-only
    data = bytearray(path.read_bytes())
    data[at] ^= 0x40
    path.write_bytes(bytes(data))


def _losses(base):
    run = SummaryIndex(str(base)).run("./")
    return [step for step, _ in run.scalars["loss"]], run


@pytest.mark.parametrize("part", ["payload", "length"])
def test_one_damaged_record_loses_that_step_only_and_is_named(tmp_path, part, caplog):
    path = _write_run(tmp_path, range(1, 7))
    offsets = _record_offsets(path.read_bytes())
    third_step = offsets[3]  # record 0 is the version event, then steps 1, 2, 3...
    _damage(path, third_step + (20 if part == "payload" else 2))
    with caplog.at_level(logging.WARNING, logger="openspore.insight.summary_reader"):
        steps, run = _losses(tmp_path)
    assert steps == [1, 2, 4, 5, 6]
    reason = f"the {part}'s CRC does not match"
    assert run.damaged == [(path.name, third_step, reason)]
    warnings = [r.getMessage() for r in caplog.records if path.name in r.getMessage()]
    assert warnings == [f"{path}: summary record at byte {third_step}: {reason}; skipped"]


def test_strict_reading_still_raises_on_the_damage():
    good = frame(b"one") + frame(b"two")
    bad = bytearray(good)
    bad[2] ^= 1
    with pytest.raises(CorruptRecord, match="byte 0: the length's CRC"):
        list(read_records(bytes(bad)))
    skipped = []
    assert list(read_records(bytes(bad), on_corrupt=lambda at, why: skipped.append((at, why)))) == [b"two"]
    assert skipped == [(0, "the length's CRC does not match")]


def test_a_damaged_length_is_not_taken_for_a_record_still_being_written():
    """Before, a length made huge by one bad bit looked like a record not yet complete: reading stopped there for
    good, silently. Now it is reported at once and the records after it are read."""
    records = frame(b"a" * 40) + frame(b"b" * 40) + frame(b"c" * 40)
    bad = bytearray(records)
    bad[7] ^= 0x10  # the top byte of the first length
    skipped = []
    assert list(read_records(bytes(bad), on_corrupt=lambda at, why: skipped.append(at))) == [b"b" * 40, b"c" * 40]
    assert skipped == [0]


def test_a_live_file_damaged_at_its_end_is_reported_once_and_read_on_as_it_grows(tmp_path, caplog):
    path = tmp_path / "events.out.events.summary.1.0.host_MS"
    from openspore.train.summary import summary_pb2

    def event(step):
        e = summary_pb2.Event(step=step, wall_time=1.0)
        e.summary.value.add(tag="loss", scalar_value=float(step))
        return frame(e.SerializeToString())

    damaged = bytearray(event(2))
    damaged[3] ^= 0x01
    path.write_bytes(event(1) + bytes(damaged))
    index = SummaryIndex(str(tmp_path))
    with caplog.at_level(logging.WARNING, logger="openspore.insight.summary_reader"):
        run = index.run("./")
        assert [s for s, _ in run.scalars["loss"]] == [1]
        run.reload()  # nothing new: the damage is not reported again
        with open(path, "ab") as f:
            f.write(event(3) + event(4)[:10])  # step 4 is still being written
        run.reload()
        assert [s for s, _ in run.scalars["loss"]] == [1, 3]
        with open(path, "ab") as f:
            f.write(event(4)[10:])
        run.reload()
    assert [s for s, _ in run.scalars["loss"]] == [1, 3, 4]
    assert len(run.damaged) == 1 and run.damaged[0][1] == len(event(1))
    assert sum("skipped" in r.getMessage() for r in caplog.records) == 1


def test_the_dashboards_run_list_says_which_run_is_damaged_and_where(tmp_path):
    import json
    from tests.insight.insight_server import get, serving
    _write_run(tmp_path / "intact", range(1, 4))
    path = _write_run(tmp_path / "hit", range(1, 4))
    second_step = _record_offsets(path.read_bytes())[2]
    _damage(path, second_step + 20)
    with serving(str(tmp_path)) as (url, _):
        status, body, _ = get(url + "/v1/mindinsight/datavisual/train-jobs")
    jobs = {j["train_id"]: j for j in json.loads(body)["train_jobs"]}
    assert status == 200
    assert jobs["./intact"]["is_integrity"] is True and jobs["./intact"]["damaged_records"] == []
    assert jobs["./hit"]["is_integrity"] is False
    assert jobs["./hit"]["damaged_records"] == [
        f"{path.name}, byte {second_step}: the payload's CRC does not match; skipped"]
