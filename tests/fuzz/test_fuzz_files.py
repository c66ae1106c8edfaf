"""Fuzzing the readers of every file format (issue 20, item 8): seeded damage to `.ckpt`, `.mindir`, `.ms` and
MindRecord files. Each variant either fails with the reader's clean error naming the file, or loads into
well-formed values (damage inside stored numbers cannot be seen); damage to the structure — a file cut short, a
file joined to itself, an empty file — is never a silent success. Bounded: about 330 variants, seconds each."""
import sqlite3

import numpy as np
import pytest

import openspore as ms
from openspore import nn
from openspore.serialization import MindIRError
from tests.fuzz.mutations import variants, write
from tests.train.test_checkpoint import MLP, _record_boundaries

STRUCTURAL = {"empty", "zeros", "twice", "truncate"}


def test_fuzz_checkpoint(tmp_path):
    source = str(tmp_path / "net.ckpt")
    net = MLP()
    ms.save_checkpoint(net, source, append_dict={"epoch_num": 3, "note": "hello"})
    data = open(source, "rb").read()
    boundaries = _record_boundaries(data)
    path = str(tmp_path / "fuzz.ckpt")
    seen = {"error": 0, "loaded": 0}
    for case, (kind, content) in enumerate(variants(data, seed=20, count=150, boundaries=boundaries)):
        label = f"case {case} ({kind})"
        write(path, content)
        must_fail = kind in STRUCTURAL and not (kind == "truncate" and len(content) in boundaries)
        try:
            loaded = ms.load_checkpoint(path)
        except ValueError as exc:
            assert path in str(exc), (label, str(exc))
            seen["error"] += 1
            continue
        assert not must_fail, f"{label}: a damaged structure loaded silently: {sorted(loaded)}"
        assert all(isinstance(v, (ms.Parameter, str)) for v in loaded.values()), label
        seen["loaded"] += 1
        names = {p.name for p in MLP().get_parameters()}
        if kind in ("boundary", "truncate") and not names <= set(loaded):
            # cut between records: the bytes cannot tell, strict loading into the network can
            with pytest.raises(ValueError, match="lacks"):
                ms.load_checkpoint(path, net=MLP(), strict_load=True)
    assert seen["error"] >= 40 and seen["loaded"] >= 10, seen


def _small_mindir(tmp_path):
    net = nn.SequentialCell([nn.Dense(4, 8), nn.ReLU(), nn.Dense(8, 3)])
    x = ms.Tensor(np.random.default_rng(0).standard_normal((2, 4)).astype(np.float32))
    ms.export(net, x, file_name=str(tmp_path / "small"), file_format="MINDIR")
    return str(tmp_path / "small.mindir"), x


def test_fuzz_mindir(tmp_path):
    source, x = _small_mindir(tmp_path)
    data = open(source, "rb").read()
    path = str(tmp_path / "fuzz.mindir")
    seen = {"error": 0, "loaded": 0}
    for case, (kind, content) in enumerate(variants(data, seed=21, count=80)):
        label = f"case {case} ({kind})"
        write(path, content)
        try:
            graph = ms.load(path)
        except MindIRError as exc:
            assert path in str(exc), (label, str(exc))
            seen["error"] += 1
            continue
        assert kind not in ("empty", "zeros", "twice"), f"{label}: a damaged structure loaded silently"
        seen["loaded"] += 1
        try:
            nn.GraphCell(graph)(x)
        except (ValueError, TypeError, RuntimeError, IndexError, KeyError) as exc:
            assert type(exc).__module__ != "builtins" or str(exc), label   # a message, not a bare error
    assert seen["error"] >= 30, seen


def test_fuzz_lite_ms(tmp_path):
    lite = pytest.importorskip("openspore.lite")
    from openspore.lite import converter, msfile
    source, x = _small_mindir(tmp_path)
    ms_path = str(tmp_path / "small.ms")
    msfile.write(converter.convert_program(source), ms_path)
    data = open(ms_path, "rb").read()
    path = str(tmp_path / "fuzz.ms")
    seen = {"error": 0, "loaded": 0}
    for case, (kind, content) in enumerate(variants(data, seed=22, count=60)):
        label = f"case {case} ({kind})"
        write(path, content)
        model = lite.Model()
        try:
            model.build_from_file(path, lite.ModelType.MINDIR_LITE)
        except msfile.MsFileError as exc:
            assert path in str(exc) or "fuzz.ms" in str(exc), (label, str(exc))
            seen["error"] += 1
            continue
        assert kind not in STRUCTURAL | {"append", "insert"}, f"{label}: a damaged structure loaded silently"
        seen["loaded"] += 1
        inputs = model.get_inputs()
        inputs[0].set_data_from_numpy(x.asnumpy())
        try:
            model.predict(inputs)
        except (ValueError, TypeError, RuntimeError) as exc:
            assert str(exc), label
    assert seen["error"] >= 30, seen


def test_fuzz_mindrecord(tmp_path):
    from openspore.mindrecord import FileReader, FileWriter
    from openspore.mindrecord.errors import MindRecordException
    import openspore.dataset as ds
    source = str(tmp_path / "rows.mindrecord")
    writer = FileWriter(source)
    writer.set_header_size(1 << 14)   # the smallest sizes keep the file (and each variant) small
    writer.set_page_size(1 << 15)
    writer.add_schema({"label": {"type": "int32"}, "feat": {"type": "float32", "shape": [-1]},
                       "data": {"type": "bytes"}}, "fuzz")
    rng = np.random.default_rng(23)
    writer.write_raw_data([{"label": i, "feat": rng.standard_normal(i % 5 + 1).astype(np.float32),
                            "data": rng.bytes(i * 7 + 1)} for i in range(40)])
    writer.commit()
    data, index = open(source, "rb").read(), open(source + ".db", "rb").read()
    seen = {"error": 0, "read": 0}
    expected = (MindRecordException, ValueError, RuntimeError, sqlite3.DatabaseError)
    for target, original, seed in (("data", data, 24), ("index", index, 25)):
        for case, (kind, content) in enumerate(variants(original, seed=seed, count=30)):
            label = f"{target} case {case} ({kind})"
            folder = tmp_path / f"{target}{case}"
            folder.mkdir()
            path = str(folder / "rows.mindrecord")
            write(path, content if target == "data" else data)
            write(path + ".db", content if target == "index" else index)
            try:
                reader = FileReader(path)
                rows = list(reader.get_next())
                reader.close()
                if case % 5 == 0:  # the dataset source too, on a few variants (it opens the same reader)
                    rows += list(ds.MindDataset(path, shuffle=False).create_dict_iterator(output_numpy=True))
            except expected as exc:
                assert str(exc), label
                seen["error"] += 1
                continue
            if target == "data":  # (bytes after the last page, e.g. the file twice, are outside what the header
                # describes; a reader may ignore them)
                assert kind not in ("empty", "zeros", "truncate"), f"{label}: a damaged file read silently ({len(rows)} rows)"
            seen["read"] += 1
    assert seen["error"] >= 20, seen
