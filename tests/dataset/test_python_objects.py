"""Python dict columns (MindSpore's "Supporting Python Objects in Dataset Pipeline"): kept by reference through
GeneratorDataset, map and batch(per_batch_map), batched key by key, and converted recursively by the iterators."""
import numpy as np
import pytest

import openspore as ms
import openspore.dataset as ds


def _gen(n):
    def source():
        for i in range(n):
            yield {"n": i, "pair": np.array([i, -i], np.float32), "inner": {"sq": [i * i]}}, i
    return source


def test_dict_column_passes_through_and_is_converted_to_numpy():
    rows = list(ds.GeneratorDataset(_gen(3), ["d", "i"], shuffle=False).create_dict_iterator(output_numpy=True))
    assert rows[2]["d"]["n"] == 2 and rows[2]["d"]["pair"].dtype == np.float32
    assert isinstance(rows[2]["d"]["inner"]["sq"], list) and rows[2]["d"]["inner"]["sq"][0].tolist() == 4
    # a plain int64 column comes back as MindSpore's does: C `long long`, whose repr names the dtype
    assert repr(rows[1]["i"]) == "array(1, dtype=int64)"


def test_dict_column_as_tensors_and_map_returning_dicts():
    data = ds.GeneratorDataset(lambda: iter(range(3)), ["c"], shuffle=False)
    data = data.map(lambda c: {"orig": c, "twice": c * 2, "obj": object}, input_columns=["c"])
    rows = list(data.create_dict_iterator())
    assert isinstance(rows[1]["c"]["twice"], ms.Tensor) and int(rows[1]["c"]["twice"]) == 2
    assert rows[1]["c"]["obj"] is object  # what cannot become a tensor stays as it is


def test_batch_groups_dict_values_key_by_key():
    data = ds.GeneratorDataset(_gen(4), ["d", "i"], shuffle=False).batch(2)
    first = next(data.create_dict_iterator(output_numpy=True))
    assert first["d"]["pair"].shape == (2, 2) and first["d"]["n"].tolist() == [0, 1]
    assert first["d"]["inner"]["sq"].tolist() == [[0], [1]] and first["i"].tolist() == [0, 1]


def test_per_batch_map_may_return_dicts():
    def per_batch(col, info):
        return {"orig": col, "batch": info.get_batch_num()}, {"copy": col}

    data = ds.GeneratorDataset(lambda: iter(range(4)), ["c"], shuffle=False)
    data = data.batch(2, per_batch_map=per_batch, output_columns=["a", "b"])
    rows = list(data.create_dict_iterator(output_numpy=True))
    assert [r.tolist() for r in rows[1]["a"]["orig"]] == [2, 3] and rows[1]["a"]["batch"] == 1
    assert [r.tolist() for r in rows[1]["b"]["copy"]] == [2, 3]


def test_batch_of_dicts_with_different_keys_says_so():
    def source():
        yield ({"a": 1},)
        yield ({"b": 1},)
    with pytest.raises(RuntimeError, match="same keys"):
        list(ds.GeneratorDataset(source, ["d"], shuffle=False).batch(2).create_tuple_iterator())
