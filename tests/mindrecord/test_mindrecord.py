"""MindRecord: the MindSpore-written fixture reads back exactly, and openspore writes the same bytes."""
import hashlib
import json
import os
import sqlite3
import struct

import numpy as np
import pytest

import openspore.dataset as ds
from openspore.mindrecord import (FileReader, FileWriter, MRMDefineIndexError, MRMInvalidSchemaError, MRMOpenError,
                                  MRMValidateDataError, ParamValueError)

SCHEMA = {"file_name": {"type": "string"}, "label": {"type": "int32"}, "data": {"type": "bytes"},
          "feat": {"type": "float32", "shape": [-1]}, "bbox": {"type": "int64", "shape": [2, 4]}}


@pytest.fixture
def mr(fixtures_dir):
    return os.path.join(fixtures_dir, "mindrecord")


def _expected(mr):
    with open(os.path.join(mr, "mindrecord_expected.json")) as f:
        return json.load(f), np.load(os.path.join(mr, "mindrecord_expected.npz"))


@pytest.mark.parametrize("name", ["mindrecord_1shard/data.mindrecord", "mindrecord_2shard/data.mindrecord0",
                                  "mindrecord_2shard/data.mindrecord1"])
def test_fixture_reads_back_exactly(mr, name):
    expected, arrays = _expected(mr)
    data = ds.MindDataset(os.path.join(mr, name), shuffle=False)
    assert data.get_dataset_size() == 20
    rows = list(data.create_dict_iterator(output_numpy=True))
    assert [str(r["file_name"]) for r in rows] == [r["file_name"] for r in expected["rows"]]
    assert [r["data"].tobytes() for r in rows][0][:2] == b"\xff\xd8"
    assert [len(r["data"].tobytes()) for r in rows] == [r["data_len"] for r in expected["rows"]]
    assert hashlib.sha256(b"".join(r["data"].tobytes() for r in rows)).hexdigest() == expected["data_sha256"]
    np.testing.assert_array_equal(np.stack([r["label"] for r in rows]), arrays["label"])
    np.testing.assert_array_equal(np.stack([r["feat"] for r in rows]), arrays["feat"])
    np.testing.assert_array_equal(np.stack([r["bbox"] for r in rows]), arrays["bbox"])
    first = rows[0]
    assert first["label"].dtype == np.int32 and first["label"].shape == ()
    assert first["file_name"].dtype.kind == "U" and first["data"].shape == (1,) and first["data"].dtype.kind == "S"
    assert first["bbox"].dtype == np.int64 and first["feat"].dtype == np.float32


def test_file_reader_and_listed_shard_order(mr):
    reader = FileReader(os.path.join(mr, "mindrecord_1shard/data.mindrecord"))
    assert reader.len() == 20 and reader.schema() == SCHEMA
    row = next(reader.get_next())
    assert row["file_name"] == "img_000.jpg" and isinstance(row["data"], bytes) and row["label"] == 0
    reader.close()
    two = os.path.join(mr, "mindrecord_2shard")
    data = ds.MindDataset([os.path.join(two, "data.mindrecord1"), os.path.join(two, "data.mindrecord0")],
                          columns_list=["file_name"], shuffle=False)
    names = [str(r[0]) for r in data.create_tuple_iterator(output_numpy=True)]
    assert names == [f"img_{i:03d}.jpg" for i in list(range(10, 20)) + list(range(10))]


def _write_fixture_rows(mr, path, shards):
    rows = list(FileReader(os.path.join(mr, "mindrecord_1shard/data.mindrecord")).get_next())
    writer = FileWriter(path, shards)
    writer.add_schema(SCHEMA, "fixture schema")
    writer.add_index(["file_name", "label"])
    writer.write_raw_data(rows)
    writer.commit()
    return rows


@pytest.mark.parametrize("shards,names", [(1, ["data.mindrecord"]), (2, ["data.mindrecord0", "data.mindrecord1"])])
def test_written_files_equal_mindspore_bytes(mr, tmp_path, shards, names):
    """Same rows, same schema, same index → the same shard bytes and the same .db contents as MindSpore's."""
    _write_fixture_rows(mr, str(tmp_path / "data.mindrecord"), shards)
    ref_dir = os.path.join(mr, "mindrecord_1shard" if shards == 1 else "mindrecord_2shard")
    for name in names:
        mine, ref = tmp_path / name, os.path.join(ref_dir, name)
        assert mine.read_bytes() == open(ref, "rb").read()
        assert oct(mine.stat().st_mode & 0o777) == "0o600"
        a, b = sqlite3.connect(str(mine) + ".db"), sqlite3.connect(ref + ".db")
        for query in ("SELECT type, name, sql FROM sqlite_master", "SELECT * FROM SHARD_NAME",
                      "SELECT * FROM INDEXES ORDER BY ROW_ID"):
            assert a.execute(query).fetchall() == b.execute(query).fetchall(), query
        a.close()
        b.close()
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".tmp")]


def _header(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        return json.loads(f.read(n))


def test_append_continues_pages_and_rows(mr, tmp_path):
    path = str(tmp_path / "data.mindrecord")
    rows = _write_fixture_rows(mr, path, 1)
    writer = FileWriter.open_for_append(path)
    writer.write_raw_data(rows[:2])
    writer.commit()
    pages = _header(path)["page"]
    assert pages[0]["end_row_id"] == 22 and len(pages) == 2
    names = [r["file_name"] for r in FileReader(path).get_next()]
    assert names == [r["file_name"] for r in rows] + ["img_000.jpg", "img_001.jpg"]
    with sqlite3.connect(path + ".db") as conn:
        assert [r[0] for r in conn.execute("SELECT ROW_ID FROM INDEXES ORDER BY ROW_ID")][-2:] == [20, 21]


def test_multi_page_shards_and_types(tmp_path):
    path = str(tmp_path / "m.mindrecord")
    writer = FileWriter(path, 3)
    writer.set_header_size(1 << 14)
    writer.set_page_size(1 << 15)
    writer.add_schema({"id": {"type": "int64"}, "x": {"type": "float64"}, "blob": {"type": "bytes"},
                       "v": {"type": "int32", "shape": [-1]}})
    values = [-1, 300, 70000, 2 ** 40, -2 ** 20]
    expected = {}
    for call in range(3):
        batch = [{"id": call * 10 + i, "x": 0.1 * i, "blob": bytes([i]) * 5000,
                  "v": np.array(values[:1 + i % 5], np.int32) if i % 5 < 3 else np.array([i], np.int32)}
                 for i in range(10)]
        writer.write_raw_data(batch)
        expected.update({r["id"]: r for r in batch})
    writer.commit()
    header = _header(path + "0")
    assert header["shard_addresses"] == ["m.mindrecord0", "m.mindrecord1", "m.mindrecord2"]
    assert [p["page_type"] for p in header["page"]][:3] == ["BLOB_DATA", "RAW_DATA", "BLOB_DATA"]
    assert header["index_fields"] == [{"index_field": "id", "schema_id": 0}, {"index_field": "x", "schema_id": 0}]
    got = list(FileReader(path + "1").get_next())
    assert sorted(r["id"] for r in got) == sorted(expected)
    for r in got:
        e = expected[r["id"]]
        assert r["x"] == e["x"] and r["blob"] == e["blob"]
        np.testing.assert_array_equal(r["v"], e["v"])


@pytest.mark.parametrize("num_shards", [1, 3, 4, 7])
def test_sharded_reading_covers_every_row_once(tmp_path, num_shards):
    path = str(tmp_path / "s.mindrecord")
    writer = FileWriter(path, 2)
    writer.add_schema({"id": {"type": "int64"}})
    writer.write_raw_data([{"id": i} for i in range(21)])
    writer.commit()
    padding = (-21) % num_shards
    seen = []
    for shard_id in range(num_shards):
        kwargs = {"padded_sample": {"id": -1}, "num_padded": padding} if padding else {}
        data = ds.MindDataset(path + "0", num_shards=num_shards, shard_id=shard_id, shuffle=True, **kwargs)
        ids = [int(r[0]) for r in data.create_tuple_iterator(output_numpy=True)]
        assert len(ids) == (21 + padding) // num_shards
        seen += ids
    assert sorted(i for i in seen if i >= 0) == list(range(21))
    assert seen.count(-1) == padding


def test_shuffle_levels_and_samplers(mr):
    path = os.path.join(mr, "mindrecord_2shard/data.mindrecord0")

    def names(**kw):
        data = ds.MindDataset(path, columns_list=["file_name"], **kw)
        return [int(str(r[0])[4:7]) for r in data.create_tuple_iterator(output_numpy=True)]
    infile = names(shuffle=ds.Shuffle.INFILE)
    assert sorted(infile[:10]) == list(range(10)) and sorted(infile[10:]) == list(range(10, 20))
    files = names(shuffle=ds.Shuffle.FILES)
    assert files in (list(range(20)), list(range(10, 20)) + list(range(10)))
    assert sorted(names(shuffle=True)) == list(range(20))
    assert names(sampler=ds.SequentialSampler(start_index=3, num_samples=4)) == [3, 4, 5, 6]
    assert names(shuffle=False, num_samples=5) == [0, 1, 2, 3, 4]
    assert names(shuffle=False, num_shards=3, shard_id=2) == [2, 5, 8, 11, 14, 17, 0]


def test_index_only_columns_come_from_the_db(mr, tmp_path):
    """Reading only index fields never touches the shard pages: zeroing the pages leaves the values intact."""
    path = str(tmp_path / "data.mindrecord")
    _write_fixture_rows(mr, path, 1)
    with open(path, "r+b") as f:
        f.seek(1 << 24)
        f.write(b"\x00" * 4096)
    data = ds.MindDataset(path, columns_list=["label", "file_name"], shuffle=False)
    rows = list(data.create_tuple_iterator(output_numpy=True))
    assert [int(r[0]) for r in rows][:5] == [0, 1, 2, 3, 0] and str(rows[19][1]) == "img_019.jpg"


def test_writer_errors(tmp_path):
    path = str(tmp_path / "e.mindrecord")
    with pytest.raises(ParamValueError, match="shard_num"):
        FileWriter(path, 0)
    with pytest.raises(ParamValueError, match="file name must not contain"):
        FileWriter(str(tmp_path / "a:b"))
    writer = FileWriter(path)
    with pytest.raises(MRMInvalidSchemaError, match="cannot have a shape"):
        writer.add_schema({"s": {"type": "string", "shape": [2]}})
    writer.add_schema({"a": {"type": "int32"}, "b": {"type": "bytes"}})
    with pytest.raises(MRMDefineIndexError, match="blob field"):
        writer.add_index(["b"])
    with pytest.warns(RuntimeWarning, match="row 1 is dropped: field 'a' must be an int"):
        writer.write_raw_data([{"a": 1, "b": b"x"}, {"a": 1.5, "b": b"y"}])
    with pytest.raises(MRMValidateDataError, match="no row matches"), pytest.warns(RuntimeWarning):
        writer.write_raw_data([{"a": 1}])
    writer.commit()
    assert [r["a"] for r in FileReader(path).get_next()] == [1]
    with pytest.raises(RuntimeError, match="already exist"):
        FileWriter(path)
    with pytest.raises(RuntimeError, match="open_for_append"):
        writer.write_raw_data([{"a": 2, "b": b"z"}])


def test_reader_errors(mr, tmp_path):
    src = os.path.join(mr, "mindrecord_1shard/data.mindrecord")
    copy = tmp_path / "data.mindrecord"
    copy.write_bytes(open(src, "rb").read())
    with pytest.raises(MRMOpenError, match="is not exists"):
        FileReader(str(copy))
    renamed = tmp_path / "other.mindrecord"
    renamed.write_bytes(open(src, "rb").read())
    (tmp_path / "other.mindrecord.db").write_bytes(open(src + ".db", "rb").read())
    with pytest.raises(MRMOpenError, match="can not match"):
        FileReader([str(renamed)])
    with pytest.raises(RuntimeError, match="data.mindrecord.db is not exists"):
        ds.MindDataset(str(renamed))  # a str loads the shards its header names: data.mindrecord, without a .db
    bad = tmp_path / "bad.mindrecord"
    bad.write_bytes(b"not a mindrecord file")
    with pytest.raises(RuntimeError, match="not a MindRecord file"):
        ds.MindDataset(str(bad))
    with pytest.raises(RuntimeError, match="divisible by num_shards"):
        ds.MindDataset(src, num_shards=3, shard_id=0, padded_sample={k: 0 for k in SCHEMA}, num_padded=2)


def test_mind_page_categories(mr):
    from openspore.mindrecord import MindPage
    page = MindPage(os.path.join(mr, "mindrecord_1shard/data.mindrecord"))
    assert page.candidate_fields == ["file_name", "label"]
    page.category_field = "label"
    info = json.loads(page.read_category_info())
    assert info["key"] == "label_0"
    assert info["categories"][0] == {"count": 5, "id": 0, "name": "0"} and len(info["categories"]) == 4
    assert [r["file_name"] for r in page.read_at_page_by_name("2", 0, 3)] == ["img_002.jpg", "img_006.jpg",
                                                                             "img_010.jpg"]
    assert [r["file_name"] for r in page.read_at_page_by_id(1, 1, 3)] == ["img_013.jpg", "img_017.jpg"]
    with pytest.raises(ValueError, match="not an index field"):
        page.category_field = "data"
