"""`Dataset.bucket_batch_by_length` (batches of rows of similar length, padded per bucket) and `Dataset.save`
(the pipeline's rows written as a MindRecord file through `mindrecord.FileWriter`).

>>> import numpy as np
>>> import openspore.dataset as ds
>>> rows = [np.arange(n) for n in (1, 5, 2, 6, 3)]
>>> data = ds.GeneratorDataset(lambda: ((r,) for r in rows), ["x"], shuffle=False)
>>> out = data.bucket_batch_by_length(["x"], [4], [2, 2])
>>> [b[0].shape for b in out.create_tuple_iterator(output_numpy=True)]
[(2, 2), (2, 6), (1, 3)]
"""
import numpy as np

from .batch import stack
from .checks import check_column_names, check_type
from .datasets import Dataset


def _check_int_list(values, name, what):
    """MindSpore's checks (and words) for bucket_boundaries / bucket_batch_sizes."""
    if not isinstance(values, (list, tuple)) or not all(isinstance(v, int) and not isinstance(v, bool)
                                                        for v in values):
        raise TypeError(f"{name} should be a list of int, but got {values!r}.")
    if any(v <= 0 for v in values):
        raise ValueError(f"{name} {what}, but got {list(values)}.")
    return list(values)


class BucketBatchByLengthDataset(Dataset):
    """Rows go to bucket i when boundaries[i-1] <= length < boundaries[i] (bucket 0 below boundaries[0], the
    last at or above boundaries[-1]); a bucket that holds bucket_batch_sizes[i] rows is emitted as one batch,
    each column padded to its longest row (or to boundaries[i] - 1 with pad_to_bucket_boundary) with 0 or the
    value `pad_info` gives; what is left at the end is emitted bucket by bucket, padded to its longest row,
    unless drop_remainder."""

    def __init__(self, child, column_names, bucket_boundaries, bucket_batch_sizes, element_length_function=None,
                 pad_info=None, pad_to_bucket_boundary=False, drop_remainder=False):
        super().__init__([child])
        column_names = check_column_names(column_names)
        if isinstance(bucket_boundaries, (list, tuple)) and not bucket_boundaries:
            raise ValueError("bucket_boundaries cannot be empty.")
        self.bucket_boundaries = _check_int_list(bucket_boundaries, "bucket_boundaries",
                                                 "must only contain positive numbers.")
        if any(b <= a for a, b in zip(self.bucket_boundaries, self.bucket_boundaries[1:])):
            raise ValueError(f"bucket_boundaries should be strictly increasing, but got {self.bucket_boundaries}.")
        self.bucket_batch_sizes = _check_int_list(bucket_batch_sizes, "bucket_batch_sizes",
                                                  "should be a list of positive numbers")
        if len(self.bucket_batch_sizes) != len(self.bucket_boundaries) + 1:
            raise ValueError(f"bucket_batch_sizes must contain one element more than bucket_boundaries, but got "
                             f"{len(bucket_batch_sizes)} and {len(bucket_boundaries)}.")
        check_type(pad_to_bucket_boundary, (bool,), "pad_to_bucket_boundary")
        check_type(drop_remainder, (bool,), "drop_remainder")
        missing = [c for c in column_names if c not in child.get_col_names()]
        if missing:
            raise ValueError(f"For 'bucket_batch_by_length', columns {missing} are not in the dataset's columns "
                             f"{child.get_col_names()}.")
        if element_length_function is None and len(column_names) != 1:
            raise ValueError("For 'bucket_batch_by_length', 'element_length_function' is needed when more than one "
                             "column is named.")
        if element_length_function is not None and not callable(element_length_function):
            raise TypeError("For 'bucket_batch_by_length', 'element_length_function' must be callable.")
        self.column_names, self.element_length_function = column_names, element_length_function
        self.pad_info = dict(pad_info or {})
        self.pad_to_bucket_boundary, self.drop_remainder = bool(pad_to_bucket_boundary), bool(drop_remainder)

    def _size(self):
        return None

    def _length(self, row, idx):
        if self.element_length_function is None:
            value = np.asarray(row[idx[0]])
            return int(value.shape[0]) if value.ndim else 1
        length = self.element_length_function(*(row[i] for i in idx))
        if isinstance(length, bool) or not isinstance(length, (int, np.integer)) or length < 0:
            raise TypeError(f"For 'bucket_batch_by_length', 'element_length_function' must return a non-negative "
                            f"int, but got {length!r}.")
        return int(length)

    def _emit(self, rows, bucket, names, to_boundary=True):
        batch = []
        for k, name in enumerate(names):
            values = [np.asarray(r[k]) for r in rows]
            if values[0].ndim > 0:
                shape, value = self.pad_info.get(name) or (None, 0)
                # pad_to_bucket_boundary fills the first dimension when pad_info leaves it open (None or [None])
                if (shape is None or shape[0] is None) and to_boundary and self.pad_to_bucket_boundary:
                    if bucket == len(self.bucket_boundaries):
                        raise ValueError("For 'bucket_batch_by_length', pad_to_bucket_boundary needs every row "
                                         "shorter than the last boundary, but a row fell in the last bucket.")
                    rest = list(shape[1:]) if shape is not None else [None] * (values[0].ndim - 1)
                    shape = [self.bucket_boundaries[bucket] - 1] + rest
                batch.append(stack(values, name, (tuple(shape) if shape is not None else None, value)))
            else:
                batch.append(stack(values, name))
        return batch

    def _iter_rows(self, ctx):
        names = self.children[0].get_col_names()
        idx = [names.index(c) for c in self.column_names]
        buckets = [[] for _ in self.bucket_batch_sizes]
        for row in self.children[0]._iter_rows(ctx):
            b = int(np.searchsorted(self.bucket_boundaries, self._length(row, idx), side="right"))
            buckets[b].append(row)
            if len(buckets[b]) == self.bucket_batch_sizes[b]:
                yield self._emit(buckets[b], b, names)
                buckets[b] = []
        if not self.drop_remainder:
            for b, rows in enumerate(buckets):
                if rows:
                    # the remainders are padded to their longest row, not to the boundary (as MindSpore 2.10)
                    yield self._emit(rows, b, names, to_boundary=False)


def _field_schema(name, value):
    value = np.asarray(value)
    if value.dtype.kind in "SU" or value.dtype == object:
        return {"type": "string"}
    if value.dtype == np.uint8 and value.ndim == 1:
        return {"type": "bytes"}
    kind = {"i": "int64", "u": "int64", "b": "int32", "f": "float64" if value.dtype == np.float64 else "float32"}
    if value.dtype.kind not in kind:
        raise TypeError(f"For 'save', column '{name}' has dtype {value.dtype}, which MindRecord cannot store.")
    t = "int32" if value.dtype in (np.int32, np.int16, np.int8, np.bool_) else kind[value.dtype.kind]
    return {"type": t} if value.ndim == 0 else {"type": t, "shape": [-1] if value.ndim == 1 else list(value.shape)}


def _field_value(value, schema):
    value = np.asarray(value)
    if schema["type"] == "string":
        return str(value.reshape(()).item() if value.ndim == 0 else value)
    if schema["type"] == "bytes":
        return value.tobytes()
    np_type = {"int32": np.int32, "int64": np.int64, "float32": np.float32, "float64": np.float64}[schema["type"]]
    return np_type(value) if value.ndim == 0 else value.astype(np_type)


def save(dataset, file_name, num_files=1, file_type="mindrecord"):
    """Write every row of `dataset` (one pass) to MindRecord `file_name` (split over `num_files` shards)."""
    from ...mindrecord import FileWriter
    if file_type != "mindrecord":
        raise ValueError(f"For 'save', 'file_type' must be 'mindrecord', but got {file_type!r}.")
    if isinstance(num_files, bool) or not isinstance(num_files, int) or not 1 <= num_files <= 1000:
        raise ValueError(f"For 'save', 'num_files' must be an int in [1, 1000], but got {num_files!r}.")
    names = dataset.get_col_names()
    rows = dataset.create_tuple_iterator(num_epochs=1, output_numpy=True)
    writer, schema, chunk = None, None, []
    for row in rows:
        if writer is None:
            schema = {name: _field_schema(name, value) for name, value in zip(names, row)}
            writer = FileWriter(file_name, num_files, overwrite=True)
            writer.add_schema(schema, "saved by Dataset.save")
        chunk.append({name: _field_value(value, schema[name]) for name, value in zip(names, row)})
        if len(chunk) == 256:
            writer.write_raw_data(chunk)
            chunk = []
    if writer is None:
        raise RuntimeError("For 'save', the dataset produced no row; nothing to write.")
    if chunk:
        writer.write_raw_data(chunk)
    writer.commit()
