"""TFRecordDataset: files written by our own writer (CRC-32C framing as TFRecord defines it), read back with and
without a schema, column selection, sample counts, sharding, shuffling and compression."""
import json
import struct

import numpy as np
import pytest

import openspore.dataset as ds
from openspore.dataset.sources.tfrecord import encode_example, masked_crc, read_records, write_tfrecord


def _rows(n, start=0):
    return [{"id": np.array([i], np.int64), "vec": np.array([i, i + 0.5], np.float32),
             "img": [bytes([i, i + 1, i + 2, i + 3])], "name": [f"row{i}".encode()]} for i in range(start, start + n)]


def test_crc_is_masked_crc32c():
    # CRC-32C("123456789") is 0xE3069283 (the standard check value); TFRecord masks it
    crc = 0xE3069283
    assert masked_crc(b"123456789") == ((((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF)


def test_framing_layout(tmp_path):
    path = str(tmp_path / "a.tfrecord")
    write_tfrecord(path, _rows(2))
    raw = open(path, "rb").read()
    (length,) = struct.unpack("<Q", raw[:8])
    assert struct.unpack("<I", raw[8:12])[0] == masked_crc(raw[:8])
    payload = raw[12:12 + length]
    assert payload == encode_example(_rows(1)[0])
    assert struct.unpack("<I", raw[12 + length:16 + length])[0] == masked_crc(payload)
    assert len(read_records(path)) == 2


def test_read_without_schema(tmp_path):
    path = str(tmp_path / "a.tfrecord")
    write_tfrecord(path, _rows(3))
    data = ds.TFRecordDataset(path, shuffle=False)
    assert data.get_col_names() == ["id", "img", "name", "vec"]
    rows = list(data.create_dict_iterator(output_numpy=True))
    assert [int(r["id"][0]) for r in rows] == [0, 1, 2]
    assert rows[1]["vec"].dtype == np.float32 and rows[1]["vec"].tolist() == [1.0, 1.5]
    assert rows[2]["id"].dtype == np.int64 and rows[2]["name"].tolist() == [b"row2"]
    assert data.get_dataset_size() == 3


def test_schema_types_shapes_and_num_rows(tmp_path):
    path = str(tmp_path / "a.tfrecord")
    write_tfrecord(path, _rows(4))
    schema = ds.Schema()
    schema.add_column("img", de_type="uint8", shape=[2, 2])
    schema.add_column("id", de_type="int32", shape=[1])
    data = ds.TFRecordDataset(path, schema=schema, shuffle=False)
    first = next(data.create_tuple_iterator(output_numpy=True))
    assert first[0].dtype == np.uint8 and first[0].tolist() == [[0, 1], [2, 3]]
    assert first[1].dtype == np.int32
    schema_file = str(tmp_path / "schema.json")
    with open(schema_file, "w") as f:
        json.dump({"columns": {"name": {"type": "string", "rank": 1}}, "numRows": 2}, f)
    data = ds.TFRecordDataset(path, schema=schema_file, shuffle=False)
    names = [r[0].tolist() for r in data.create_tuple_iterator(output_numpy=True)]
    assert names == [["row0"], ["row1"]]


def test_columns_list_num_samples(tmp_path):
    path = str(tmp_path / "a.tfrecord")
    write_tfrecord(path, _rows(5))
    data = ds.TFRecordDataset(path, columns_list=["vec", "id"], num_samples=3, shuffle=False)
    assert data.get_col_names() == ["vec", "id"]
    assert [int(r[1][0]) for r in data.create_tuple_iterator(output_numpy=True)] == [0, 1, 2]


def test_sharding_by_files_and_by_rows(tmp_path):
    for k in range(4):
        write_tfrecord(str(tmp_path / f"part{k}.tfrecord"), _rows(2, start=10 * k))
    pattern = str(tmp_path / "part*.tfrecord")
    got = []
    for shard in range(2):
        data = ds.TFRecordDataset(pattern, num_shards=2, shard_id=shard, shuffle=False)
        got.append([int(r[0][0]) for r in data.project(["id"]).create_tuple_iterator(output_numpy=True)])
    assert got == [[0, 1, 20, 21], [10, 11, 30, 31]]
    wrapped = [int(r[0][0]) for r in ds.TFRecordDataset(str(tmp_path / "part0.tfrecord"), num_shards=3, shard_id=2,
                                                        shuffle=False).project(["id"])
               .create_tuple_iterator(output_numpy=True)]
    assert wrapped == [0]  # 2 rows in 3 shards: one row each, the last shard wrapping round to row 0
    rows = [int(r[0][0]) for r in ds.TFRecordDataset(pattern, num_shards=3, shard_id=1, shuffle=False,
                                                     shard_equal_rows=True).project(["id"])
            .create_tuple_iterator(output_numpy=True)]
    assert rows == [11, 20, 21]  # equal blocks of consecutive rows (3 per shard), as MindSpore deals them


def test_shuffle_follows_seed(tmp_path):
    path = str(tmp_path / "a.tfrecord")
    write_tfrecord(path, _rows(20))
    orders = []
    for _ in range(2):
        ds.config.set_seed(7)
        data = ds.TFRecordDataset(path, columns_list=["id"])
        orders.append([int(r[0][0]) for r in data.create_tuple_iterator(output_numpy=True)])
    assert orders[0] == orders[1] and sorted(orders[0]) == list(range(20)) and orders[0] != list(range(20))


@pytest.mark.parametrize("kind", ["GZIP", "ZLIB"])
def test_compressed(tmp_path, kind):
    path = str(tmp_path / "a.tfrecord")
    write_tfrecord(path, _rows(3), compression_type=kind)
    data = ds.TFRecordDataset(path, shuffle=False, compression_type=kind, columns_list=["id"])
    assert [int(r[0][0]) for r in data.create_tuple_iterator(output_numpy=True)] == [0, 1, 2]
    with pytest.raises(RuntimeError, match="TFRecord"):
        list(ds.TFRecordDataset(path, shuffle=False).create_tuple_iterator())


def test_corrupt_file_is_named(tmp_path):
    path = str(tmp_path / "a.tfrecord")
    write_tfrecord(path, _rows(2))
    raw = bytearray(open(path, "rb").read())
    raw[20] ^= 0xFF
    open(path, "wb").write(bytes(raw))
    with pytest.raises(RuntimeError, match="data CRC"):
        list(ds.TFRecordDataset(path, shuffle=False).create_tuple_iterator())
    with pytest.raises(ValueError, match="compression_type"):
        ds.TFRecordDataset(path, compression_type="LZ4")
