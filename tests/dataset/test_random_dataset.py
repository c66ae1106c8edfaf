"""RandomDataset: schema columns, row counts, reproducibility under the dataset seed, sharding."""
import numpy as np
import pytest

import openspore.dataset as ds
from openspore import dtype as mstype


def _schema():
    schema = ds.Schema()
    schema.add_column("image", de_type=mstype.uint8, shape=[4, 4, 3])
    schema.add_column("label", de_type=mstype.int32, shape=[1])
    schema.add_column("score", de_type=mstype.float32)
    return schema


def test_schema_columns_and_rows():
    data = ds.RandomDataset(schema=_schema(), total_rows=10, shuffle=False)
    assert data.get_col_names() == ["image", "label", "score"] and data.get_dataset_size() == 10
    rows = list(data.create_tuple_iterator(output_numpy=True))
    assert len(rows) == 10 and rows[0][0].shape == (4, 4, 3) and rows[0][0].dtype == np.uint8
    assert rows[0][1].dtype == np.int32 and rows[0][2].dtype == np.float32
    assert len({r[2].shape for r in rows}) == 1  # a column without shape gets one random shape, kept for all rows
    assert not all(np.array_equal(rows[0][0], r[0]) for r in rows[1:])


def test_reproducible_under_seed_and_columns_list():
    def run():
        ds.config.set_seed(3)
        data = ds.RandomDataset(schema=_schema(), total_rows=5, columns_list=["label"])
        return [int(r[0][0]) for r in data.create_tuple_iterator(output_numpy=True)]
    assert run() == run()
    with pytest.raises(ValueError, match="columns_list"):
        ds.RandomDataset(schema=_schema(), columns_list=["nope"])


def test_without_schema_and_sharding():
    data = ds.RandomDataset(total_rows=7)
    assert 1 <= len(data.get_col_names()) <= 4 and data.get_dataset_size() == 7
    shards = [ds.RandomDataset(schema=_schema(), total_rows=7, num_shards=2, shard_id=k) for k in range(2)]
    assert [s.get_dataset_size() for s in shards] == [4, 4]
    with pytest.raises(ValueError, match="total_rows"):
        ds.RandomDataset(total_rows=0)
