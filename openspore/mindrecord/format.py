"""The MindRecord shard format (version 3.0): schema rules, the header JSON, and how a row's fields are laid out
in a raw page (MessagePack of the scalar fields) and a blob page (bytes and array fields).

Layout of one shard file: uint64 LE header length + header JSON, zero-filled up to `header_size`; then page k at
`header_size + k * page_size`. Each page is a run of (uint64 LE length, payload) rows.

>>> schema = check_schema({"label": {"type": "int32"}, "img": {"type": "bytes"}, "box": {"type": "int64", "shape": [2]}})
>>> blob_fields(schema), raw_fields(schema)
(['box', 'img'], ['label'])
>>> decompress_int(compress_int(np.array([-1, 300, 2**40])), "int64").tolist()
[-1, 300, 1099511627776]
"""
import json
import re
import struct

import numpy as np

from .errors import MRMInvalidSchemaError, MRMOpenError

VERSION = "3.0"
DEFAULT_HEADER_SIZE = 1 << 24
DEFAULT_PAGE_SIZE = 1 << 25
MIN_HEADER_SIZE, MAX_HEADER_SIZE = 1 << 14, 1 << 27
MIN_PAGE_SIZE, MAX_PAGE_SIZE = 1 << 15, 1 << 28
MIN_SHARD_COUNT, MAX_SHARD_COUNT = 1, 1000

SCALAR_TYPES = ("int32", "int64", "float32", "float64", "string", "bytes")
ARRAY_TYPES = ("int32", "int64", "float32", "float64")
_FIELD_NAME = re.compile(r"^[0-9a-zA-Z_]+$")
_SQL_TYPE = {"string": "TEXT", "int32": "INTEGER", "int64": "INTEGER", "float32": "REAL", "float64": "REAL"}
_INT_RANGE = {"int32": (-2 ** 31, 2 ** 31 - 1), "int64": (-2 ** 63, 2 ** 63 - 1)}


def check_schema(content):
    """A validated copy of an add_schema `content` dict: {field: {"type": T[, "shape": [...]]}}."""
    if not isinstance(content, dict) or not content:
        raise MRMInvalidSchemaError(f"Schema must be a non-empty dict of field name to {{'type': ...}}, but got "
                                    f"{content!r}.")
    out = {}
    for name, spec in content.items():
        if not isinstance(name, str) or not _FIELD_NAME.match(name):
            raise MRMInvalidSchemaError(f"Schema field name {name!r} is invalid: it must match ^[0-9a-zA-Z_]+$.")
        if not isinstance(spec, dict) or "type" not in spec or set(spec) - {"type", "shape"}:
            raise MRMInvalidSchemaError(f"Schema field '{name}' must be a dict with 'type' and optionally 'shape', "
                                        f"but got {spec!r}.")
        ftype = spec["type"]
        if "shape" in spec:
            shape = spec["shape"]
            if ftype not in ARRAY_TYPES:
                raise MRMInvalidSchemaError(f"Schema field '{name}' of type {ftype!r} cannot have a shape; array "
                                            f"fields must be one of {list(ARRAY_TYPES)}.")
            if (not isinstance(shape, list) or not shape
                    or not all(isinstance(d, int) and not isinstance(d, bool) and (d > 0 or d == -1) for d in shape)
                    or shape.count(-1) > 1):
                raise MRMInvalidSchemaError(f"Schema field '{name}' has an invalid shape {shape!r}: it must be a "
                                            f"non-empty list of positive ints with at most one -1.")
            out[name] = {"type": ftype, "shape": list(shape)}
        else:
            if ftype not in SCALAR_TYPES:
                raise MRMInvalidSchemaError(f"Detail: Field '{name}' contain illegal attribute '{ftype}'; expected "
                                            f"one of {list(SCALAR_TYPES)}.")
            out[name] = {"type": ftype}
    return out


def is_blob(spec):
    return spec["type"] == "bytes" or "shape" in spec


def blob_fields(schema):
    return sorted(name for name, spec in schema.items() if is_blob(spec))


def raw_fields(schema):
    return sorted(name for name, spec in schema.items() if not is_blob(spec))


def sql_type(ftype):
    return _SQL_TYPE[ftype]


def compresses_ints(schema, version=VERSION):
    """Version 3.0 files compress int arrays when the schema has any int array field."""
    return version >= "3.0" and any("shape" in s and s["type"] in ("int32", "int64") for s in schema.values())


# --- integer array compression ---------------------------------------------------------------------------------
_WIDTHS = np.array([1, 2, 4, 8], dtype=np.int64)


def compress_int(values):
    """uint32 BE count, 2-bit width codes (first element in the top bits), then each value little-endian in the
    narrowest of 1/2/4/8 bytes that holds it."""
    v = np.asarray(values, dtype=np.int64).reshape(-1)
    n = v.size
    code = np.full(n, 3, dtype=np.uint8)
    code[(v >= -2 ** 31) & (v < 2 ** 31)] = 2
    code[(v >= -2 ** 15) & (v < 2 ** 15)] = 1
    code[(v >= -2 ** 7) & (v < 2 ** 7)] = 0
    padded = np.zeros(-(-n // 4) * 4, dtype=np.uint8)
    padded[:n] = code
    quads = padded.reshape(-1, 4)
    bitmap = (quads[:, 0] << 6) | (quads[:, 1] << 4) | (quads[:, 2] << 2) | quads[:, 3]
    keep = np.arange(8)[None, :] < _WIDTHS[code][:, None]
    body = v.astype("<i8").view(np.uint8).reshape(n, 8)[keep]
    return struct.pack(">I", n) + bitmap.astype(np.uint8).tobytes() + body.tobytes()


def decompress_int(data, dtype):
    """The inverse of compress_int, cast to `dtype`."""
    buf = np.frombuffer(data, dtype=np.uint8)
    n = struct.unpack_from(">I", data, 0)[0]
    nmap = -(-n // 4)
    bitmap = buf[4:4 + nmap]
    code = np.stack([(bitmap >> s) & 3 for s in (6, 4, 2, 0)], axis=1).reshape(-1)[:n]
    width = _WIDTHS[code]
    start = 4 + nmap + np.concatenate([[0], np.cumsum(width)[:-1]]).astype(np.int64) if n else np.zeros(0, np.int64)
    if n and start[-1] + width[-1] != len(buf):
        raise ValueError(f"compressed int array: {len(buf)} bytes, but its codes describe {start[-1] + width[-1]}")
    lane = np.arange(8)[None, :]
    valid = lane < width[:, None]
    gathered = buf[np.where(valid, start[:, None] + lane, 0)] if n else np.zeros((0, 8), np.uint8)
    negative = buf[start + width - 1] >= 0x80 if n else np.zeros(0, bool)
    fill = np.where(negative, 0xFF, 0).astype(np.uint8)
    mat = np.where(valid, gathered, fill[:, None]).astype(np.uint8)
    return np.ascontiguousarray(mat).view("<i8").reshape(n).astype(dtype)


# --- one row ----------------------------------------------------------------------------------------------------
def check_value(name, spec, value):
    """The value as stored (int/float/str for raw fields, bytes or ndarray for blob fields), or raise ValueError."""
    ftype = spec["type"]
    if "shape" in spec:
        if not isinstance(value, np.ndarray) or value.dtype != np.dtype(ftype):
            got = value.dtype if isinstance(value, np.ndarray) else type(value).__name__
            raise ValueError(f"field '{name}' must be a numpy {ftype} array, but got {got}")
        try:
            return value.reshape(spec["shape"])
        except ValueError:
            raise ValueError(f"field '{name}' of shape {value.shape} does not fit the schema shape "
                             f"{spec['shape']}") from None
    if isinstance(value, np.generic):
        value = value.item()
    if ftype in ("int32", "int64"):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"field '{name}' must be an int ({ftype}), but got {type(value).__name__}")
        lo, hi = _INT_RANGE[ftype]
        if not lo <= value <= hi:
            raise ValueError(f"field '{name}' value {value} is out of range for {ftype}")
        return value
    if ftype in ("float32", "float64"):
        if not isinstance(value, float):
            raise ValueError(f"field '{name}' must be a float ({ftype}), but got {type(value).__name__}")
        return value
    if ftype == "string":
        if not isinstance(value, str):
            raise ValueError(f"field '{name}' must be a str, but got {type(value).__name__}")
        return value
    if not isinstance(value, (bytes, bytearray)):
        raise ValueError(f"field '{name}' must be bytes, but got {type(value).__name__}")
    return bytes(value)


def field_bytes(spec, value, compress):
    """(stored bytes of one blob field, bytes saved by compression)."""
    if spec["type"] == "bytes":
        return value, 0
    if compress and spec["type"] in ("int32", "int64"):
        packed = compress_int(value)
        return packed, value.size * np.dtype(spec["type"]).itemsize - len(packed)
    return np.ascontiguousarray(value, dtype="<" + np.dtype(spec["type"]).str[1:]).tobytes(), 0


def pack_blob(values, schema, blobs, compress):
    """A row's blob payload and the bytes compression saved. One field: its bytes; several: each prefixed by its
    uint64 BIG-endian size; none: the 4-byte zero placeholder."""
    if not blobs:
        return b"\x00\x00\x00\x00", 0
    parts, saved = [], 0
    for name in blobs:
        data, s = field_bytes(schema[name], values[name], compress)
        saved += s
        parts.append(data if len(blobs) == 1 else struct.pack(">Q", len(data)) + data)
    return b"".join(parts), saved


def unpack_blob(data, schema, blobs, compress, wanted=None):
    """{field: bytes or ndarray} of one blob payload (only the `wanted` fields, when given)."""
    out = {}
    if len(blobs) == 1:
        chunks = {blobs[0]: data}
    else:
        chunks, pos = {}, 0
        for name in blobs:
            size = struct.unpack_from(">Q", data, pos)[0]
            chunks[name] = data[pos + 8:pos + 8 + size]
            pos += 8 + size
    for name, chunk in chunks.items():
        if wanted is not None and name not in wanted:
            continue
        spec = schema[name]
        if spec["type"] == "bytes":
            out[name] = bytes(chunk)
        elif compress and spec["type"] in ("int32", "int64"):
            out[name] = decompress_int(bytes(chunk), spec["type"]).reshape(spec["shape"])
        else:
            out[name] = np.frombuffer(chunk, dtype="<" + np.dtype(spec["type"]).str[1:]).astype(
                spec["type"]).reshape(spec["shape"])
    return out


# --- header -----------------------------------------------------------------------------------------------------
def header_bytes(header_size, page_size, index_fields, pages, compression_size, schema, desc, shard_addresses,
                 shard_id):
    """The header JSON as MindSpore writes it: fixed top-level key order, sorted nested keys, no spaces."""
    def dump(obj):
        return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    schema_obj = [{"blob_fields": blob_fields(schema), "desc": desc, "schema": schema}]
    index_obj = [{"index_field": f, "schema_id": 0} for f in index_fields] if index_fields else None
    items = [("header_size", header_size), ("index_fields", index_obj), ("page", pages), ("page_size", page_size),
             ("compression_size", max(0, int(compression_size))), ("schema", schema_obj),
             ("shard_addresses", shard_addresses), ("shard_id", shard_id), ("statistics", None),
             ("version", VERSION)]
    text = "{" + ",".join(f"{json.dumps(k)}:{dump(v)}" for k, v in items) + "}"
    return text.encode("utf-8")


def read_header(path):
    """The parsed header of one shard file, with a clear error when the file is not a MindRecord shard."""
    try:
        with open(path, "rb") as f:
            head = f.read(8)
            if len(head) < 8:
                raise MRMOpenError(f"Invalid file, {path} is not a MindRecord file: it is shorter than 8 bytes.")
            length = struct.unpack("<Q", head)[0]
            if length == 0 or length > MAX_HEADER_SIZE:
                raise MRMOpenError(f"Invalid file, {path} is not a MindRecord file: header length {length} is out of "
                                   f"range.")
            text = f.read(length)
    except OSError as exc:
        raise MRMOpenError(f"Failed to open MindRecord file {path}: {exc}") from exc
    try:
        header = json.loads(text.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise MRMOpenError(f"Invalid file, {path} is not a MindRecord file: its header is not JSON ({exc}).") from exc
    for key in ("header_size", "page_size", "page", "schema", "shard_addresses", "version"):
        if key not in header:
            raise MRMOpenError(f"Invalid file, {path}: the MindRecord header has no '{key}'.")
    if header["version"] not in ("2.0", "3.0"):
        raise MRMOpenError(f"Invalid file, {path}: MindRecord version {header['version']!r} is not supported "
                           f"(expected 2.0 or 3.0).")
    header.setdefault("compression_size", 0)
    return header
