"""OBSMindDataset on a file:// object store: files fetched to the cache, read as MindDataset, sharded, and the
sync_wait_for_dataset barrier in its sync folder."""
import os
import threading

import pytest

import openspore.dataset as ds
from openspore.dataset import config
from openspore.mindrecord import FileWriter


def _store(root):
    os.makedirs(os.path.join(root, "data"))
    writer = FileWriter(os.path.join(root, "data", "train.mindrecord"), shard_num=2)
    writer.add_schema({"label": {"type": "int32"}, "name": {"type": "string"}}, "labels")
    writer.write_raw_data([{"label": k, "name": f"n{k}"} for k in range(6)])
    writer.commit()
    return ["data/train.mindrecord0", "data/train.mindrecord1"]


def test_reads_shards_and_syncs(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENSPORE_OBS_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(config, "_obs_sync_dir", None, raising=False)
    store = str(tmp_path / "store")
    keys = _store(store)
    data = ds.OBSMindDataset(keys, "file://" + store, "ak", "sk", "sync", columns_list=["label"], shuffle=False)
    assert sorted(int(r[0]) for r in data.create_tuple_iterator(output_numpy=True)) == list(range(6))
    cached = tmp_path / "cache"
    assert any(name.endswith(".mindrecord0.db") for _, _, files in os.walk(cached) for name in files)
    labels = []
    for shard in range(2):
        part = ds.OBSMindDataset(keys, "file://" + store, "ak", "sk", "sync", shuffle=False, num_shards=2,
                                 shard_id=shard)
        labels.append([int(r[0]) for r in part.project(["label"]).create_tuple_iterator(output_numpy=True)])
    assert sorted(labels[0] + labels[1]) == list(range(6)) and len(labels[0]) == 3
    other = threading.Thread(target=ds.sync_wait_for_dataset, args=(1, 2, 1))
    other.start()
    ds.sync_wait_for_dataset(0, 2, 1)
    other.join(10)
    assert sorted(os.listdir(os.path.join(store, "sync"))) == ["epoch_1_rank_0.ready", "epoch_1_rank_1.ready"]


def test_missing_object_and_bad_arguments(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENSPORE_OBS_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(config, "_obs_sync_dir", None, raising=False)
    with pytest.raises(RuntimeError, match="does not exist in the store"):
        ds.OBSMindDataset(["nope.mindrecord"], "file://" + str(tmp_path), "ak", "sk", "sync")
    with pytest.raises(TypeError, match="list of object keys"):
        ds.OBSMindDataset("a.mindrecord", "file://" + str(tmp_path), "ak", "sk", "sync")
