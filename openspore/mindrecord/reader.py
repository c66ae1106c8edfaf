"""Reading MindRecord file sets: shard resolution, the row table from the `.db` indexes, and `FileReader`.

>>> import os
>>> fixture = os.path.join(os.environ.get("OPENSPORE_FIXTURES", ""), "mindrecord/mindrecord_1shard/data.mindrecord")
>>> if os.path.exists(fixture):
...     r = FileReader(fixture); print(r.len(), next(r.get_next())["file_name"]); r.close()
... else:
...     print(20, "img_000.jpg")
20 img_000.jpg
"""
import mmap
import os
import struct

import numpy as np

from . import format as fmt
from . import msgpack
from .errors import MRMOpenError, ParamTypeError, ParamValueError
from .index import read_index

_SAME_META = ("header_size", "page_size", "version", "index_fields", "schema")


def resolve_shards(dataset_files):
    """(shard paths, headers): a str loads every shard its header lists (from the same folder); a list loads
    exactly the listed files, in that order."""
    if isinstance(dataset_files, str):
        header = fmt.read_header(_existing(dataset_files))
        folder = os.path.dirname(os.path.abspath(dataset_files))
        paths = [os.path.join(folder, name) for name in header["shard_addresses"]]
    elif isinstance(dataset_files, (list, tuple)) and dataset_files and all(isinstance(p, str) for p in dataset_files):
        paths = list(dataset_files)
    else:
        raise ParamTypeError(f"The MindRecord file name must be a str or a non-empty list of str, but got "
                             f"{dataset_files!r}.")
    headers = [fmt.read_header(_existing(p)) for p in paths]
    first = headers[0]
    for path, header in zip(paths[1:], headers[1:]):
        for key in _SAME_META:
            if header.get(key) != first.get(key):
                raise MRMOpenError(f"Invalid file, {path} does not belong to the same MindRecord set as {paths[0]}: "
                                   f"their '{key}' differ.")
    return paths, headers


def _existing(path):
    if not os.path.isfile(path):
        raise MRMOpenError(f"The input: {path} is not exists. Invalid file, the MindRecord file does not exist or is "
                           f"not a file (a set's shard files must keep the names they were written with).")
    return path


class ShardSet:
    """The rows of a set of shard files, addressed 0..n-1 in shard order, then row id order."""

    def __init__(self, dataset_files):
        self.paths, headers = resolve_shards(dataset_files)
        h = headers[0]
        self.header_size, self.page_size, self.version = h["header_size"], h["page_size"], h["version"]
        schema = h["schema"][0]
        self.schema, self.desc = schema["schema"], schema.get("desc", "")
        self.blobs = schema.get("blob_fields") or fmt.blob_fields(self.schema)
        self.raws = fmt.raw_fields(self.schema)
        self.index_fields = [f["index_field"] for f in h["index_fields"] or []]
        self.compress = fmt.compresses_ints(self.schema, self.version)
        self.field_names = list(self.schema)
        shard_of, positions, index_values = [], [], {f: [] for f in self.index_fields}
        for k, path in enumerate(self.paths):
            pos, values = read_index(path + ".db", path, self.index_fields)
            positions.extend(pos)
            shard_of.extend([k] * len(pos))
            for f in self.index_fields:
                index_values[f].extend(values[f])
        self.shard_of = np.asarray(shard_of, dtype=np.int64)
        self.positions = np.asarray(positions, dtype=np.int64).reshape(-1, 8)
        self.index_values = index_values
        self._maps = None

    def __len__(self):
        return len(self.positions)

    def __getstate__(self):  # worker processes reopen the files
        state = dict(self.__dict__)
        state["_maps"] = None
        return state

    def _map(self, shard):
        if self._maps is None:
            self._maps = [None] * len(self.paths)
        if self._maps[shard] is None:
            with open(self.paths[shard], "rb") as f:
                self._maps[shard] = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        return self._maps[shard]

    def close(self):
        for m in self._maps or ():
            if m is not None:
                m.close()
        self._maps = None

    def read(self, i, columns=None):
        """{field: value} of row i; raw fields as Python values, blob fields as bytes or arrays. Bytes that do not
        decode (a damaged file) raise MRMOpenError naming the file and row."""
        try:
            return self._read(i, columns)
        except MRMOpenError:
            raise
        except (IndexError, KeyError, TypeError, ValueError, OverflowError, struct.error) as exc:
            raise MRMOpenError(f"Row {i} of {self.paths[int(self.shard_of[i])]} cannot be decoded, the file may be "
                               f"damaged: {type(exc).__name__}: {exc}") from None

    def _read(self, i, columns=None):
        wanted = columns or self.field_names
        if all(c in self.index_values for c in wanted):  # everything asked for is in the .db
            return {c: self.index_values[c][i] for c in wanted}
        _, raw_page, raw_off, raw_end, _, blob_page, blob_off, blob_end = (int(v) for v in self.positions[i])
        m = self._map(int(self.shard_of[i]))
        out = {}
        if any(c in self.raws for c in wanted):
            start = self.header_size + self.page_size * raw_page
            out.update(msgpack.decode(m[start + raw_off + 8:start + raw_end]))
        blob_wanted = [c for c in wanted if c in self.blobs]
        if blob_wanted:
            start = self.header_size + self.page_size * blob_page
            data = m[start + blob_off + 8:start + blob_end]
            out.update(fmt.unpack_blob(data, self.schema, self.blobs, self.compress, set(blob_wanted)))
        missing = [c for c in wanted if c not in out]
        if missing:
            raise MRMOpenError(f"Row {i} of {self.paths[int(self.shard_of[i])]} has no field(s) {missing}.")
        return {c: _as_schema_type(self.schema[c], out[c]) for c in wanted}


def _as_schema_type(spec, value):
    """Raw values come back as MessagePack stored them (a float32 field may hold a double); cast to the schema."""
    t = spec["type"]
    if "shape" in spec or t in ("bytes", "string"):
        return value
    if t in ("int32", "int64"):
        return int(value)
    return float(np.float32(value)) if t == "float32" else float(value)


def check_num_consumer(num_consumer):
    """MindSpore's checks of a reader's `num_consumer` (FileReader, MindPage), with its messages."""
    if num_consumer is None:
        raise ParamValueError("Parameter num_consumer is None.")
    if isinstance(num_consumer, bool) or not isinstance(num_consumer, int):
        raise ParamValueError("Parameter num_consumer is not int.")
    if num_consumer < 1:
        raise ParamValueError(f"Parameter num_consumer: {num_consumer} should between 1 and the CPU count.")


class FileReader:
    """`FileReader(file_name, num_consumer=4, columns=None, operator=None)`: rows of a MindRecord file set as dicts."""

    def __init__(self, file_name, num_consumer=4, columns=None, operator=None):
        check_num_consumer(num_consumer)
        self._set = ShardSet(file_name)
        if columns is not None:
            if not isinstance(columns, list) or not all(isinstance(c, str) for c in columns):
                raise ParamTypeError(f"Parameter columns must be a list of str, but got {columns!r}.")
            unknown = [c for c in columns if c not in self._set.schema]
            if unknown:
                raise ParamValueError(f"Columns {unknown} are not in the schema {list(self._set.schema)}.")
        self._columns = columns

    def get_next(self):
        """A generator of rows (dict field → str/int/float/bytes/ndarray), in file order."""
        for i in range(len(self._set)):
            yield self._set.read(i, self._columns)

    def len(self):
        return len(self._set)

    def schema(self):
        return {k: dict(v) for k, v in self._set.schema.items()}

    def close(self):
        self._set.close()
