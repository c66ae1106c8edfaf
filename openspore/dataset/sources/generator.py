"""`GeneratorDataset` (rows from Python) and `NumpySlicesDataset` (rows sliced from arrays)."""
import numpy as np

from ..engine.checks import check_column_names, check_max_rowsize
from ..engine.datasets import Dataset
from ..engine.ops import run_rows
from ..engine.rows import to_array, to_row
from ..engine.workers import make_pool
from .mappable import MappableDataset


def np_dtype(type_, where):
    """An openspore dtype, numpy dtype or dtype name as a numpy dtype."""
    if getattr(type_, "np_dtype", None) is not None:
        return type_.np_dtype
    if type_ in ("string", "bytes"):  # MindSpore schema JSON names
        return np.dtype(np.str_ if type_ == "string" else np.bytes_)
    try:
        return np.dtype(type_)
    except TypeError:
        raise TypeError(f"For '{where}', {type_!r} is not a data type.") from None


class Schema:
    """`Schema(schema_file=None)`: column names, types and shapes; `add_column(name, de_type, shape=None)`."""

    def __init__(self, schema_file=None):
        self.columns = []
        self.num_rows = None  # the JSON's "numRows" (TFRecordDataset reads that many rows)
        if schema_file is not None:
            import json
            with open(schema_file, encoding="utf-8") as f:
                self.from_json(json.load(f))

    def add_column(self, name, de_type, shape=None):
        if not isinstance(name, str) or not name:
            raise TypeError(f"For 'Schema.add_column', 'name' must be a non-empty str, but got {name!r}.")
        self.columns.append({"name": name, "type": np_dtype(de_type, "Schema.add_column"),
                             "shape": None if shape is None else list(shape)})

    def from_json(self, json_obj):
        """Columns from MindSpore's schema JSON: {"columns": {"name": {"type": "uint8", "rank": 1, "shape": [..]}}}."""
        columns = json_obj.get("columns", {})
        self.num_rows = json_obj.get("numRows", self.num_rows)
        items = columns.items() if isinstance(columns, dict) else ((c["name"], c) for c in columns)
        for name, spec in items:
            self.add_column(name, spec["type"], spec.get("shape"))

    def to_json(self):
        import json
        return json.dumps({"columns": {c["name"]: {"type": c["type"].name, "rank": len(c["shape"] or []),
                                                   **({"shape": c["shape"]} if c["shape"] else {})}
                                       for c in self.columns}})

    def get_col_names(self):
        return [c["name"] for c in self.columns]

    def __repr__(self):
        return f"Schema({[(c['name'], c['type'].name, c['shape']) for c in self.columns]})"


class _ReadSource:
    """Reads and converts source[index] (or a batch of indices), in this process or in a worker."""

    def __init__(self, source, num_columns, types, collate_fn=None, batched=False):
        self.source, self.num_columns, self.types = source, num_columns, types
        self.collate_fn, self.batched = collate_fn, batched

    def convert(self, item):
        row = to_row(item, self.num_columns)
        if self.types:
            row = tuple(a.astype(t, copy=False) if t is not None else a for a, t in zip(row, self.types))
        return row

    def __call__(self, index):
        if not self.batched:
            item = self.source[index]
            if not self.types and type(item) is tuple and len(item) == self.num_columns:  # the per-row hot path
                try:
                    return tuple([to_array(v) for v in item])
                except TypeError:
                    pass  # convert() says which column, in MindSpore's words
            return self.convert(item)
        items = [self.source[int(i)] for i in index]
        if self.collate_fn is not None:
            return self.convert(self.collate_fn(items))
        rows = [self.convert(item) for item in items]
        return tuple(np.stack(col) for col in zip(*rows))


class GeneratorDataset(MappableDataset):
    """`GeneratorDataset(source, column_names=None, column_types=None, schema=None, num_samples=None,
    num_parallel_workers=1, shuffle=None, sampler=None, num_shards=None, shard_id=None, python_multiprocessing=True,
    max_rowsize=None, batch_sampler=None, collate_fn=None)`: rows from a generator function, an iterable or a
    random-access object (`__getitem__` + `__len__`; shuffled unless shuffle=False)."""

    _where = "GeneratorDataset"

    def __init__(self, source, column_names=None, column_types=None, schema=None, num_samples=None,
                 num_parallel_workers=1, shuffle=None, sampler=None, num_shards=None, shard_id=None,
                 python_multiprocessing=True, max_rowsize=None, batch_sampler=None, collate_fn=None):
        w = self._where
        if isinstance(source, zip):  # a zip iterates once; its rows are kept so every epoch (and shuffle) sees them
            source = list(source)
        self.random_access = hasattr(source, "__getitem__") and hasattr(source, "__len__")
        if (num_shards is None) != (shard_id is None):
            raise ValueError("num_shards and shard_id need to be passed in together.")
        if not self.random_access:
            if not callable(source) and not hasattr(source, "__iter__") and not hasattr(source, "__getitem__"):
                raise TypeError(f"For '{w}', 'source' must be a generator function, an iterable or a random-access "
                                f"object, but got {type(source).__name__}.")
            for arg, value in (("sampler", sampler), ("num_shards", num_shards), ("shard_id", shard_id),
                               ("batch_sampler", batch_sampler)):
                if value is not None:  # MindSpore's sentence, word for word
                    raise ValueError(f"{arg} is not supported if source does not have attribute '__getitem__'.")
            if shuffle:
                raise ValueError("shuffle is not supported if source does not have attribute '__getitem__'.")
        if batch_sampler is not None and (sampler is not None or shuffle is not None or num_samples is not None
                                          or num_shards is not None):
            raise ValueError(f"For '{w}', 'batch_sampler' is mutually exclusive with 'sampler', 'shuffle', "
                             f"'num_samples' and sharding.")
        if collate_fn is not None and batch_sampler is None:
            raise ValueError(f"For '{w}', 'collate_fn' requires 'batch_sampler'.")
        if self.random_access and batch_sampler is None:
            super().__init__(num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id)
        else:
            super().__init__(num_samples, num_parallel_workers, False, None, None, None)
        if schema is not None:
            if isinstance(schema, str):
                schema = Schema(schema)
            if not isinstance(schema, Schema):
                raise TypeError(f"For '{w}', 'schema' must be a Schema or a schema file path, but got {schema!r}.")
            names = schema.get_col_names()
            types = [c["type"] for c in schema.columns]
        elif column_names is not None:
            names = check_column_names(column_names)
            types = None
        else:
            raise ValueError("Neither columns_names nor schema are provided.")
        if column_types is not None:
            if len(column_types) != len(names):
                raise ValueError(f"For '{w}', 'column_types' must have one type per column ({len(names)}), but got "
                                 f"{len(column_types)}.")
            types = [np_dtype(t, w) for t in column_types]
        self.source, self.column_names, self.column_types = source, names, types
        self.python_multiprocessing = python_multiprocessing
        self.max_rowsize = check_max_rowsize(max_rowsize, pair=False)
        self.batch_sampler = batch_sampler
        self._reader = _ReadSource(source, len(names), types, collate_fn, batch_sampler is not None)
        self._limit = self.sampler.num_samples if not self.random_access else None

    def _column_names(self):
        return list(self.column_names)

    def _num_rows(self):
        return len(self.source)

    def _read(self, index):
        return self._reader(index)

    def _row_reader(self):
        return self._reader

    def _pool(self, ctx, on_error):
        return make_pool(self._reader, self.num_parallel_workers, self.python_multiprocessing, on_error,
                         (ctx.key(self), ctx.pass_count(self)), self.max_rowsize)

    def split(self, sizes, randomize=True):
        """`split(sizes, randomize=True)`: by sampler for random-access sources, else by skip/take over copies."""
        if self.random_access and self.batch_sampler is None:
            return super().split(sizes, randomize)
        return Dataset.split(self, sizes, randomize)

    def _size(self):
        if self.batch_sampler is not None:
            return len(self.batch_sampler) if hasattr(self.batch_sampler, "__len__") else None
        if self.random_access:
            return super()._size()
        return None

    def _iter_rows(self, ctx):
        if self.batch_sampler is not None:
            batches = [list(b) for b in self.batch_sampler]

            def on_error(task_no, op, summary, tb):
                return RuntimeError(f"For '{self._where}', reading batch {task_no} (indices {batches[task_no]}) "
                                    f"failed: {summary}\n{tb}")
            ctx.next_pass(self)
            yield from run_rows(self._reader, batches, self._pool(ctx, on_error), on_error)
            return
        if self.random_access:
            yield from super()._iter_rows(ctx)
            return
        it = self.source() if callable(self.source) and not hasattr(self.source, "__iter__") else iter(self.source)
        for k, item in enumerate(it):
            if self._limit is not None and k >= self._limit:
                return
            try:
                yield self._reader.convert(item)
            except (TypeError, ValueError, RuntimeError) as exc:
                raise type(exc)(f"{exc} (row {k} of the source)") from exc


class _Slices:
    def __init__(self, columns):
        self.columns = columns

    def __len__(self):
        return len(self.columns[0])

    def __getitem__(self, index):
        return tuple(np.array(c[index]) for c in self.columns)  # copies: rows must not alias the user's arrays


def _column(values, where):
    """One NumpySlicesDataset column: an array, or (rows of different shapes) a list of one array per row."""
    try:
        return to_array(values, where)
    except TypeError:
        if not isinstance(values, (list, tuple)):
            raise
        return [to_array(v, where) for v in values]


class NumpySlicesDataset(GeneratorDataset):
    """`NumpySlicesDataset(data, column_names=None, num_samples=None, num_parallel_workers=1, shuffle=None,
    sampler=None, num_shards=None, shard_id=None)`: rows are slices along axis 0 of a list / tuple / dict / array."""

    _where = "NumpySlicesDataset"

    def __init__(self, data, column_names=None, num_samples=None, num_parallel_workers=1, shuffle=None, sampler=None,
                 num_shards=None, shard_id=None):
        w = self._where
        if isinstance(data, dict):
            default_names, columns = [str(k) for k in data], list(data.values())
        elif isinstance(data, tuple):
            default_names, columns = None, list(data)
        elif isinstance(data, (list, np.ndarray)) or hasattr(data, "asnumpy"):
            default_names, columns = None, [data]
        else:
            raise TypeError(f"For '{w}', 'data' must be a list, tuple, dict or numpy array, but got {type(data).__name__}.")
        if len(data) == 0:
            raise ValueError("Argument data cannot be empty")
        arrays = [_column(c, w) for c in columns]
        for a in arrays:
            if getattr(a, "ndim", 1) == 0:
                raise ValueError(f"For '{w}', each column must have at least one dimension to slice, but got a scalar.")
            if len(a) != len(arrays[0]):
                raise ValueError(f"For '{w}', all columns must have the same length along axis 0, but got "
                                 f"{[len(x) for x in arrays]}.")
        names = check_column_names(column_names) if column_names is not None else \
            (default_names or [f"column_{i}" for i in range(len(arrays))])
        if len(names) != len(arrays):
            raise ValueError(f"For '{w}', 'column_names' has {len(names)} name(s) but the data has {len(arrays)} "
                             f"column(s).")
        super().__init__(_Slices(arrays), column_names=names, num_samples=num_samples,
                         num_parallel_workers=num_parallel_workers, shuffle=shuffle, sampler=sampler,
                         num_shards=num_shards, shard_id=shard_id)
