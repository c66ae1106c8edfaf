"""Fuzzing the data pipeline with malformed rows (issue 20, item 8): seeded sources that yield rows of the wrong
arity, None, dicts, ragged or object-typed arrays, mixed kinds, and map functions that return such values. A
pipeline either yields numpy rows (or dict columns, which MindSpore passes through) or stops with a clean error (RuntimeError/TypeError/ValueError) that names the
column or row and the operation; nothing hangs and no other exception type escapes."""
import numpy as np
import pytest

import openspore.dataset as ds
from openspore.dataset import config

BAD_VALUES = [None, {"k": 1}, [[1, 2], [3]], object(), "text", b"bytes", 3 + 4j, 2 ** 80, [], [None], np.array([object()]),
              np.zeros((0, 3)), np.ones((2, 2), np.float32), 1.5, True]


@pytest.fixture(autouse=True)
def _dataset_config():
    saved = config._snapshot()
    config.set_seed(20)
    yield
    config._restore(saved)


def _rows(rng, count):
    rows = []
    for _ in range(count):
        arity = int(rng.choice([2, 2, 2, 1, 3]))
        rows.append(tuple(BAD_VALUES[int(rng.integers(len(BAD_VALUES)))] if rng.integers(3) == 0
                          else np.full(int(rng.integers(1, 4)), int(rng.integers(9)), np.int32)
                          for _ in range(arity)))
    return rows


def _run(dataset):
    # a dict is a valid column value (MindSpore's Python-object columns), passed through as a dict
    return [tuple(v if isinstance(v, dict) else np.asarray(v) for v in row)
            for row in dataset.create_tuple_iterator(output_numpy=True)]


def _check_clean(exc, label):
    assert isinstance(exc, (RuntimeError, TypeError, ValueError)), (label, type(exc).__name__, exc)
    text = str(exc)
    assert text and ("row" in text or "column" in text or "For '" in text), (label, text[:500])


@pytest.mark.parametrize("stage", ["source", "map", "batch", "map_in_processes"])
def test_malformed_rows(stage):
    rng = np.random.default_rng(hash(stage) % 2 ** 32)
    outcomes = {"ok": 0, "error": 0}
    cases = 12 if stage == "map_in_processes" else 40
    for case in range(cases):
        rows = _rows(rng, 6)
        label = f"{stage} case {case}"
        try:
            if stage == "source":
                data = ds.GeneratorDataset(lambda rows=rows: iter(rows), ["a", "b"], shuffle=False)
            else:
                good = [(np.arange(3, dtype=np.int32) + i, np.int32(i)) for i in range(6)]
                data = ds.GeneratorDataset(good, ["a", "b"], shuffle=False)
                if stage in ("map", "map_in_processes"):
                    outputs = [r[0] for r in rows]
                    data = data.map(lambda a, b, out=outputs: out[int(b)], ["a", "b"], ["a"],
                                    num_parallel_workers=2 if stage == "map_in_processes" else 1,
                                    python_multiprocessing=stage == "map_in_processes")
                else:
                    data = data.map(lambda a, b, rows=rows: rows[int(b)][0], ["a", "b"], ["a"]).batch(3)
            out = _run(data)
        except Exception as exc:  # noqa: BLE001 - the point: which exceptions escape
            _check_clean(exc, label)
            outcomes["error"] += 1
            continue
        assert all(isinstance(v, dict) or isinstance(v, np.ndarray) and v.dtype != object
                   for row in out for v in row), label
        outcomes["ok"] += 1
    assert outcomes["error"] > 0, outcomes
