"""`mindspore.mindrecord.FileWriter`: writes rows into a set of MindRecord shard files and their `.db` indexes.

>>> import os, tempfile, numpy as np
>>> from openspore.mindrecord import FileWriter, FileReader
>>> path = os.path.join(tempfile.mkdtemp(), "demo.mindrecord")
>>> w = FileWriter(path)
>>> w.add_schema({"label": {"type": "int32"}, "vec": {"type": "float32", "shape": [-1]}}, "demo")
0
>>> w.write_raw_data([{"label": i, "vec": np.full(2, i, np.float32)} for i in range(3)])
>>> w.commit()
>>> [row["label"] for row in FileReader(path).get_next()]
[0, 1, 2]
"""
import mmap
import os
import warnings

import numpy as np

from . import format as fmt
from . import msgpack
from .errors import (MRMDefineIndexError, MRMGetMetaError, MRMInvalidSchemaError, MRMValidateDataError,
                     ParamTypeError, ParamValueError)
from .index import read_index, write_index
from .shard import ShardBuilder

_BAD_NAME_CHARS = set("\\/:*?\"<>|`&';")


def _check_file_name(file_name):
    if not isinstance(file_name, str):
        raise ParamTypeError(f"Parameter file_name must be str, but got {type(file_name).__name__}.")
    base = os.path.basename(file_name)
    if not file_name or file_name.endswith("/") or not base:
        raise ParamValueError(f"Invalid file_name {file_name!r}: it must name a file, not a folder.")
    if _BAD_NAME_CHARS & set(base) or base != base.strip(" "):
        raise ParamValueError(f"Invalid file_name {file_name!r}: the file name must not contain any of "
                              f"{''.join(sorted(_BAD_NAME_CHARS))} nor start or end with a space.")
    folder = os.path.dirname(os.path.abspath(file_name))
    if not os.path.isdir(folder):
        raise ParamValueError(f"Invalid file_name {file_name!r}: the folder {folder} does not exist.")
    return file_name


def shard_paths(file_name, shard_num):
    """The shard file names: `file_name` itself for one shard, else `file_name` + zero-padded shard index."""
    if shard_num == 1:
        return [file_name]
    digits = len(str(shard_num - 1))
    return [f"{file_name}{i:0{digits}d}" for i in range(shard_num)]


class FileWriter:
    """`FileWriter(file_name, shard_num=1, overwrite=False)`."""

    def __init__(self, file_name, shard_num=1, overwrite=False):
        # MindSpore's checks, in its order and words
        if shard_num is None:
            raise ParamValueError("Parameter shard_num is None.")
        if isinstance(shard_num, bool) or not isinstance(shard_num, int):
            raise ParamValueError("Parameter shard_num's type is not int.")
        if not fmt.MIN_SHARD_COUNT <= shard_num <= fmt.MAX_SHARD_COUNT:
            raise ParamValueError(f"Parameter shard_num's value: {shard_num} should between {fmt.MIN_SHARD_COUNT} "
                                  f"and {fmt.MAX_SHARD_COUNT}.")
        if not isinstance(overwrite, bool):
            raise ParamValueError("Parameter overwrite's type is not bool.")
        self._paths = shard_paths(_check_file_name(file_name), shard_num)
        existing = [p for path in self._paths for p in (path, path + ".db") if os.path.exists(p)]
        if existing and not overwrite:
            raise RuntimeError(f"Invalid file, mindrecord files already exist. Please check file path: {existing}. "
                               f"Remove them or "
                               f"set the 'overwrite' parameter to True.")
        self._shard_num = shard_num
        self._header_size, self._page_size = fmt.DEFAULT_HEADER_SIZE, fmt.DEFAULT_PAGE_SIZE
        self._schema, self._desc, self._index_fields = None, "", None
        self._builders = None
        self._compression_size = 0
        self._committed = False
        self._parallel = None

    # --- configuration ---------------------------------------------------------------------------------------------
    def add_schema(self, content, desc=None):
        """`add_schema(content, desc=None)`: the one schema of this file set; returns the schema id (0)."""
        if self._schema is not None:
            raise MRMInvalidSchemaError("Only one schema can be added to a MindRecord file set.")
        if desc is not None and not isinstance(desc, str):
            raise ParamTypeError(f"Parameter desc must be str, but got {type(desc).__name__}.")
        self._schema = fmt.check_schema(content)
        self._desc = desc or ""
        return 0

    def add_index(self, index_fields):
        """`add_index(index_fields)`: the scalar (non-blob) fields to put in the `.db` index."""
        if not isinstance(index_fields, list) or not index_fields:
            raise ParamTypeError(f"Parameter index_fields must be a non-empty list of str, but got {index_fields!r}.")
        if self._schema is None:
            raise MRMGetMetaError("Call add_schema before add_index.")
        for f in index_fields:
            if not isinstance(f, str):
                raise ParamTypeError(f"Each index field must be a str, but got {f!r}.")
            if f not in self._schema:
                raise MRMDefineIndexError(f"Index field '{f}' is not in the schema {sorted(self._schema)}.")
            if fmt.is_blob(self._schema[f]):
                raise MRMDefineIndexError(f"Index field '{f}' is a blob field ({self._schema[f]}); only scalar "
                                          f"int32/int64/float32/float64/string fields can be indexed.")
        self._index_fields = list(index_fields)
        return 0

    def set_header_size(self, header_size):
        """`set_header_size(header_size)`: bytes reserved for each shard's header (16 KiB..128 MiB, divisible by 4)."""
        self._header_size = self._check_size("header_size", header_size, fmt.MIN_HEADER_SIZE, fmt.MAX_HEADER_SIZE)
        return 0

    def set_page_size(self, page_size):
        """`set_page_size(page_size)`: bytes of each page slot (32 KiB..256 MiB, divisible by 4)."""
        self._page_size = self._check_size("page_size", page_size, fmt.MIN_PAGE_SIZE, fmt.MAX_PAGE_SIZE)
        return 0

    def _check_size(self, name, value, low, high):
        if self._builders is not None:
            raise RuntimeError(f"set_{name} must be called before the first write_raw_data.")
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high or value % 4:
            raise ParamValueError(f"Parameter {name} must be an int in [{low}, {high}] divisible by 4, but got "
                                  f"{value!r}.")
        return value

    # --- writing ---------------------------------------------------------------------------------------------------
    def _start(self):
        if self._schema is None:
            raise MRMInvalidSchemaError("Call add_schema before write_raw_data.")
        if self._index_fields is None:  # default: every scalar field, by name
            self._index_fields = fmt.raw_fields(self._schema)
        self._builders = [ShardBuilder(p, i, self._header_size, self._page_size) for i, p in enumerate(self._paths)]

    def _encode_row(self, row, blobs, raws, compress):
        values = {}
        for name, spec in self._schema.items():
            if name not in row:
                raise ValueError(f"field '{name}' is missing")
            values[name] = fmt.check_value(name, spec, row[name])
        extra = set(row) - set(self._schema)
        if extra:
            raise ValueError(f"fields {sorted(extra)} are not in the schema")
        raw = msgpack.encode({k: values[k] for k in raws} if raws else {"id": 0})
        blob, saved = fmt.pack_blob(values, self._schema, blobs, compress)
        return raw, blob, saved, tuple(values[f] for f in self._index_fields)

    def write_raw_data(self, raw_data, parallel_writer=False):
        """`write_raw_data(raw_data, parallel_writer=False)`: append rows (a list of dicts); rows that do not match
        the schema are dropped with a warning. The rows of one call are split over the shards in blocks."""
        if self._committed:
            raise RuntimeError("This FileWriter was committed; use FileWriter.open_for_append to add rows.")
        if not isinstance(raw_data, list):
            raise ParamTypeError(f"Parameter raw_data must be a list of dict, but got {type(raw_data).__name__}.")
        if not isinstance(parallel_writer, bool):
            raise ParamTypeError(f"Parameter parallel_writer must be bool, but got {type(parallel_writer).__name__}.")
        if self._parallel is not None and parallel_writer != self._parallel:
            raise RuntimeError("parallel_writer must have the same value in every write_raw_data call.")
        self._parallel = parallel_writer
        if self._builders is None:
            self._start()
        blobs, raws = fmt.blob_fields(self._schema), fmt.raw_fields(self._schema)
        compress = fmt.compresses_ints(self._schema)
        encoded = []
        for i, row in enumerate(raw_data):
            try:
                if not isinstance(row, dict):
                    raise ValueError(f"a row must be a dict, but got {type(row).__name__}")
                encoded.append(self._encode_row(row, blobs, raws, compress))
            except ValueError as exc:
                warnings.warn(f"FileWriter.write_raw_data: row {i} is dropped: {exc}.", RuntimeWarning, stacklevel=2)
        if not encoded:
            raise MRMValidateDataError("FileWriter.write_raw_data: no row matches the schema; nothing was written.")
        # contiguous blocks, n // shard_num per shard; the remainder goes one each to randomly chosen shards
        n, k = len(encoded), self._shard_num
        counts = np.full(k, n // k)
        counts[np.random.default_rng().permutation(k)[:n % k]] += 1
        start = 0
        for builder, count in zip(self._builders, counts):
            for raw, blob, saved, index_values in encoded[start:start + count]:
                builder.add(raw, blob, index_values)
                self._compression_size += saved
            start += count

    def commit(self):
        """`commit()`: write every shard's header and `.db` index; the files appear only now."""
        if self._committed:
            raise RuntimeError("This FileWriter was already committed.")
        if self._builders is None:
            self._start()
        names = [os.path.basename(p) for p in self._paths]
        try:
            for b in self._builders:
                b.finish(self._schema, self._desc, self._index_fields, self._compression_size, names)
            for b, name in zip(self._builders, names):
                b.publish()
                write_index(b.path + ".db", name, self._index_fields, self._schema, b.index_rows)
        except BaseException:
            for b in self._builders:
                b.abort()
            raise
        self._committed = True
        self._builders = []  # published: nothing left for __del__ to clean up

    def __del__(self):
        for b in getattr(self, "_builders", None) or ():
            try:
                b.abort()
            except Exception:  # noqa: BLE001 - interpreter shutdown
                pass

    # --- appending -------------------------------------------------------------------------------------------------
    @classmethod
    def open_for_append(cls, file_name):
        """`open_for_append(file_name)`: a writer that adds rows to an existing file set (then `commit()`)."""
        from .reader import resolve_shards
        paths, headers = resolve_shards(file_name)
        writer = cls.__new__(cls)
        first = headers[0]
        schema = first["schema"][0]
        writer._paths, writer._shard_num = paths, len(paths)
        writer._header_size, writer._page_size = first["header_size"], first["page_size"]
        writer._schema, writer._desc = schema["schema"], schema.get("desc", "")
        writer._index_fields = [f["index_field"] for f in first["index_fields"] or []]
        writer._compression_size = first.get("compression_size", 0)
        writer._committed, writer._parallel = False, None
        writer._builders = []
        try:
            for i, (path, header) in enumerate(zip(paths, headers)):
                positions, values = read_index(path + ".db", path, writer._index_fields)
                rows = [p + tuple(values[f][j] for f in writer._index_fields) for j, p in enumerate(positions)]
                builder = ShardBuilder(path, i, writer._header_size, writer._page_size)
                writer._builders.append(builder)
                with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
                    builder.load(header, mapped, rows)
        except BaseException:
            for b in writer._builders:
                b.abort()
            raise
        return writer
