"""`TFRecordDataset`: rows from TFRecord files of `tf.train.Example` records.

A TFRecord file is a run of records, each `uint64 length | uint32 masked_crc(length) | data | uint32
masked_crc(data)` (little-endian; CRC-32C, masked as `((c >> 15 | c << 17) + 0xa282ead8) mod 2**32`). The data
of each record is one serialized `Example`: a map of feature name → bytes, float or int64 list. Without a schema a
column is the feature's list as a 1-D array (int64, float32, or `bytes` strings); a schema picks the columns, their
types and shapes (`bytes` read as a numeric type are the raw bytes of that type, e.g. uint8 image data).

>>> import os, tempfile
>>> import numpy as np
>>> import openspore.dataset as ds
>>> from openspore.dataset.sources.tfrecord import write_tfrecord
>>> path = os.path.join(tempfile.mkdtemp(), "data.tfrecord")
>>> write_tfrecord(path, [{"x": np.array([1, 2], np.int64), "name": [b"a"]}, {"x": np.array([3, 4]), "name": [b"b"]}])
>>> data = ds.TFRecordDataset(path, shuffle=False)
>>> [(r["x"].tolist(), r["name"].tolist()) for r in data.create_dict_iterator(output_numpy=True)]
[([1, 2], [b'a']), ([3, 4], [b'b'])]
"""
import gzip
import json
import os
import struct
import zlib

import google_crc32c
import numpy as np

from ...common.files import write_atomic
from ..engine.samplers import Shuffle
from .folder_base import expand_dataset_files
from .generator import Schema, np_dtype
from .mappable import MappableDataset

_MASK_DELTA = 0xA282EAD8
_COMPRESSIONS = (None, "", "GZIP", "ZLIB")


def masked_crc(data):
    """TFRecord's masked CRC-32C of `data`."""
    crc = google_crc32c.value(bytes(data))
    return (((crc >> 15) | (crc << 17)) + _MASK_DELTA) & 0xFFFFFFFF


def _example_pb2():
    from . import example_pb2
    return example_pb2


def encode_example(features):
    """A dict name → values (ints, floats, bytes/str, or arrays of them) as one serialized `Example`."""
    pb = _example_pb2()
    example = pb.Example()
    for name, value in features.items():
        feature = example.features.feature[name]
        if isinstance(value, (bytes, str)):
            value = [value]
        array = np.asarray(value)
        if array.dtype.kind in "SUO" or (array.size and isinstance(array.reshape(-1)[0], (bytes, str))):
            feature.bytes_list.value.extend(v.encode() if isinstance(v, str) else bytes(v) for v in array.reshape(-1))
        elif array.dtype.kind in "iub":
            feature.int64_list.value.extend(int(v) for v in array.reshape(-1))
        elif array.dtype.kind == "f":
            feature.float_list.value.extend(float(v) for v in array.reshape(-1))
        else:
            raise TypeError(f"For 'encode_example', feature '{name}' has values of dtype {array.dtype}; expected "
                            f"ints, floats or bytes.")
    return example.SerializeToString()


def frame_records(payloads):
    """Serialized records framed as a TFRecord file's bytes."""
    out = bytearray()
    for data in payloads:
        length = struct.pack("<Q", len(data))
        out += length + struct.pack("<I", masked_crc(length)) + data + struct.pack("<I", masked_crc(data))
    return bytes(out)


def write_tfrecord(path, rows, compression_type=None):
    """Write `rows` (dicts name → values) as `Example` records to a TFRecord file (written to a temp name, then
    renamed); `compression_type` None/'' , 'GZIP' or 'ZLIB'."""
    data = frame_records(encode_example(r) for r in rows)
    if compression_type == "GZIP":
        data = gzip.compress(data, mtime=0)
    elif compression_type == "ZLIB":
        data = zlib.compress(data)
    elif compression_type not in (None, ""):
        raise ValueError(f"For 'write_tfrecord', 'compression_type' must be one of None, '', 'GZIP', 'ZLIB', but "
                         f"got {compression_type!r}.")
    write_atomic(os.fspath(path), [data], read_only=False)


def read_records(path, compression_type=None, where="TFRecordDataset"):
    """The record payloads of one TFRecord file, each checked against its CRCs."""
    with open(path, "rb") as f:
        data = f.read()
    try:
        if compression_type == "GZIP":
            data = gzip.decompress(data)
        elif compression_type == "ZLIB":
            data = zlib.decompress(data)
    except (OSError, zlib.error, EOFError) as exc:
        raise RuntimeError(f"For '{where}', {path} is not a {compression_type}-compressed TFRecord file: "
                           f"{exc}.") from None
    records, pos, n = [], 0, len(data)
    while pos < n:
        if pos + 12 > n:
            raise RuntimeError(f"For '{where}', {path} is truncated: a record header at byte {pos} needs 12 bytes, "
                               f"{n - pos} remain.")
        length_bytes = data[pos:pos + 8]
        (length,) = struct.unpack("<Q", length_bytes)
        (crc,) = struct.unpack("<I", data[pos + 8:pos + 12])
        if crc != masked_crc(length_bytes):
            raise RuntimeError(f"For '{where}', {path} is not a valid TFRecord file: the length CRC of the record "
                               f"at byte {pos} does not match (corrupt file or a compressed one read with "
                               f"compression_type={compression_type!r}).")
        start, end = pos + 12, pos + 12 + length
        if end + 4 > n:
            raise RuntimeError(f"For '{where}', {path} is truncated: the record at byte {pos} declares {length} "
                               f"bytes.")
        payload = data[start:end]
        if struct.unpack("<I", data[end:end + 4])[0] != masked_crc(payload):
            raise RuntimeError(f"For '{where}', {path}: the data CRC of the record at byte {pos} does not match "
                               f"(the file is corrupt).")
        records.append(payload)
        pos = end + 4
    return records


def _feature_values(feature):
    kind = feature.WhichOneof("kind")
    if kind == "bytes_list":
        return list(feature.bytes_list.value)
    if kind == "float_list":
        return np.array(feature.float_list.value, dtype=np.float32)
    if kind == "int64_list":
        return np.array(feature.int64_list.value, dtype=np.int64)
    return np.array([], dtype=np.float32)


def _as_column(values, spec, name, where):
    """One feature's values as the column the schema (or, without one, the feature's own kind) describes."""
    if spec is None:
        return np.array(values, dtype=np.bytes_) if isinstance(values, list) else values
    dtype, shape = spec["type"], spec["shape"]
    if isinstance(values, list):  # bytes
        if dtype.kind in "SU":
            array = np.array([v.decode("utf-8", "replace") if dtype.kind == "U" else v for v in values])
        else:
            array = np.frombuffer(b"".join(values), dtype=dtype)
    else:
        array = values.astype(dtype) if dtype.kind not in "SU" else values.astype(str)
    if shape is not None:
        if int(np.prod(shape)) != array.size:
            raise RuntimeError(f"For '{where}', column '{name}' has {array.size} values, which do not fit the "
                               f"schema shape {shape}.")
        array = array.reshape(shape)
    return array


def _schema_of(schema, where):
    """(columns: name → {type, shape}, num_rows or None) from a Schema or a schema JSON file."""
    if schema is None:
        return None, None
    if isinstance(schema, (str, os.PathLike)):
        with open(schema, encoding="utf-8") as f:
            obj = json.load(f)
        parsed = Schema()
        parsed.from_json(obj)
        num_rows = obj.get("numRows")
        schema = parsed
    elif isinstance(schema, Schema):
        num_rows = getattr(schema, "num_rows", None)
    else:
        raise TypeError(f"For '{where}', 'schema' must be a Schema or a JSON file path, but got "
                        f"{type(schema).__name__}.")
    columns = {c["name"]: {"type": np_dtype(c["type"], where), "shape": c["shape"]} for c in schema.columns}
    return columns, (int(num_rows) if num_rows else None)


class TFRecordDataset(MappableDataset):
    """`TFRecordDataset(dataset_files, schema=None, columns_list=None, num_samples=None, num_parallel_workers=None,
    shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, shard_equal_rows=False, cache=None,
    compression_type=None)`: one row per `Example` record; files sorted by name (globs expanded). With shards and
    at least as many files as shards (and `shard_equal_rows` False) each shard reads whole files; otherwise each
    shard reads an equal block of consecutive rows, the last block wrapping round to the first rows."""

    _where = "TFRecordDataset"

    def __init__(self, dataset_files, schema=None, columns_list=None, num_samples=None, num_parallel_workers=None,
                 shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, shard_equal_rows=False, cache=None,
                 compression_type=None):
        where = self._where
        self.dataset_files = expand_dataset_files(dataset_files, self._where)
        if compression_type not in _COMPRESSIONS:
            raise ValueError(f"For '{where}', 'compression_type' must be one of None, '', 'GZIP', 'ZLIB', but got "
                             f"{compression_type!r}.")
        if columns_list is not None and (not isinstance(columns_list, (list, tuple)) or not columns_list
                                         or not all(isinstance(c, str) for c in columns_list)):
            raise TypeError(f"For '{where}', 'columns_list' must be a non-empty list of str, but got "
                            f"{columns_list!r}.")
        if shuffle is not None and not isinstance(shuffle, (bool, Shuffle)):
            raise TypeError(f"For '{where}', 'shuffle' must be a bool or a Shuffle, but got {shuffle!r}.")
        self.compression_type = compression_type or None
        self.schema_columns, schema_rows = _schema_of(schema, where)
        self.columns_list = list(columns_list) if columns_list else None
        self.shuffle_level = Shuffle.GLOBAL if shuffle is None or shuffle is True else (
            None if shuffle is False or shuffle is Shuffle.FALSE else shuffle)
        self.shard_equal_rows = bool(shard_equal_rows)
        if num_samples is None and schema_rows:
            num_samples = schema_rows
        by_files = (num_shards is not None and not self.shard_equal_rows and len(self.dataset_files) >= num_shards)
        if by_files:
            if not isinstance(num_shards, int) or not isinstance(shard_id, int) or not 0 <= shard_id < num_shards:
                raise ValueError(f"For '{where}', 'shard_id' must be in [0, num_shards), but got shard_id="
                                 f"{shard_id!r}, num_shards={num_shards!r}.")
            self.read_files = self.dataset_files[shard_id::num_shards]
        else:
            self.read_files = list(self.dataset_files)
        if num_shards is not None and not by_files:
            if not isinstance(num_shards, int) or not isinstance(shard_id, int) or not 0 <= shard_id < num_shards:
                raise ValueError(f"For '{where}', 'shard_id' must be in [0, num_shards), but got shard_id="
                                 f"{shard_id!r}, num_shards={num_shards!r}.")
        elif (num_shards is None) != (shard_id is None):
            raise RuntimeError(f"For '{where}', 'num_shards' and 'shard_id' must be given together.")
        # shards are chosen here (whole files, or blocks of rows), so the base reads this shard's rows unsharded
        super().__init__(num_samples, num_parallel_workers, self.shuffle_level is not None, None, None, None, cache)
        self.num_shards, self.shard_id, self._row_sharded = num_shards, shard_id, num_shards is not None and not by_files
        self._store = {}

    def _load(self):
        pb = _example_pb2()
        per_file = []
        for path in self.read_files:
            examples = []
            for k, payload in enumerate(read_records(path, self.compression_type, self._where)):
                example = pb.Example()
                try:
                    example.ParseFromString(payload)
                except Exception as exc:  # noqa: BLE001 - protobuf raises its own DecodeError
                    raise RuntimeError(f"For '{self._where}', record {k} of {path} is not a tf.train.Example: "
                                       f"{exc}.") from None
                examples.append(example)
            per_file.append(examples)
        if self.shuffle_level in (Shuffle.FILES, Shuffle.INFILE):
            from .. import config
            rng = config._rng(0x7F5EC)
            if self.shuffle_level is Shuffle.FILES:
                per_file = [per_file[i] for i in rng.permutation(len(per_file))]
            else:
                per_file = [[f[i] for i in rng.permutation(len(f))] for f in per_file]
        examples = [e for f in per_file for e in f]
        if self._row_sharded and examples:
            # equal blocks of consecutive rows, the last wrapping round to the first rows (as MindSpore deals them)
            per = -(-len(examples) // self.num_shards)
            examples = [examples[(self.shard_id * per + i) % len(examples)] for i in range(per)]
        return examples

    def _examples(self):
        if "examples" not in self._store:
            self._store["examples"] = self._load()
        return self._store["examples"]

    def _column_names(self):
        if self.columns_list:
            return list(self.columns_list)
        if self.schema_columns:
            return list(self.schema_columns)
        examples = self._examples()
        if not examples:
            raise RuntimeError(f"For '{self._where}', the files hold no record, so the columns are unknown.")
        return sorted(examples[0].features.feature)

    def _num_rows(self):
        return len(self._examples())

    def _read(self, index):
        example = self._examples()[index]
        row = []
        features = example.features.feature
        for name in self.get_col_names():
            if name not in features:
                raise RuntimeError(f"For '{self._where}', record {index} has no feature '{name}' (it has "
                                   f"{sorted(features)}).")
            spec = self.schema_columns.get(name) if self.schema_columns else None
            row.append(_as_column(_feature_values(features[name]), spec, name, self._where))
        return tuple(row)

    def _epoch_indices(self, ctx):
        idx = super()._epoch_indices(ctx)
        if self.shuffle_level in (Shuffle.FILES, Shuffle.INFILE):  # order already set by the file-level shuffle
            return np.sort(idx)
        return idx
