"""What travels between cache clients and the cache server: framed messages and encoded rows.

A message is a JSON header plus binary blobs (row bytes), so the server never unpickles anything a
client sends. A row is its columns' bytes laid end to end (each column 64-byte aligned, so a column
read out of shared memory starts on a cache line) and a small JSON `meta` (dtype and shape per column)
that the server stores beside the bytes without looking into it.

>>> import numpy as np
>>> meta, body = encode_row((np.arange(3, dtype=np.int32), np.array("cat")))
>>> [a.tolist() for a in decode_row(meta, memoryview(body), 0)]
[[0, 1, 2], 'cat']
>>> header, blobs = unpack(pack({"op": "ping"}, [b"xy"]))
>>> header["op"], bytes(blobs[0])
('ping', b'xy')
"""
import json
import struct

import numpy as np

SERVICE_METHOD = "/openspore.dataset.cache.CacheServer/Call"
_ALIGN = 64
# Each row in shared memory is preceded by a tag (cache id, key), written when the row is committed and
# cleared before its block is freed: a reader that finds the tag unchanged after copying the row knows
# the block was not handed to another row meanwhile (a session destroyed mid-read).
TAG_BYTES = _ALIGN
_TAG = struct.Struct("<Qq")
_HEAD = struct.Struct("<I")
_BLOB = struct.Struct("<Q")


def pack(header, blobs=()):
    """One message: 4-byte header length, JSON header, then each blob prefixed by its 8-byte length."""
    head = json.dumps(header, separators=(",", ":")).encode()
    parts = [_HEAD.pack(len(head)), head]
    for blob in blobs:
        parts.append(_BLOB.pack(len(blob)))
        parts.append(blob)
    return b"".join(parts)


def unpack(data):
    """(header dict, list of memoryviews) of a message made by `pack`."""
    view = memoryview(data)
    if len(view) < _HEAD.size:
        raise ValueError(f"cache message of {len(view)} bytes is shorter than its header length field")
    (n,) = _HEAD.unpack_from(view, 0)
    pos = _HEAD.size + n
    header = json.loads(bytes(view[_HEAD.size:pos]))
    blobs = []
    while pos < len(view):
        (size,) = _BLOB.unpack_from(view, pos)
        pos += _BLOB.size
        blobs.append(view[pos:pos + size])
        pos += size
    return header, blobs


def cacheable(row):
    """Whether a row can be stored: a tuple of numpy arrays of plain (numeric, bool or string) dtypes."""
    return isinstance(row, tuple) and all(isinstance(a, np.ndarray) and a.dtype.kind in "biufcSU" for a in row)


def _padded(n):
    return (n + _ALIGN - 1) // _ALIGN * _ALIGN


def row_nbytes(row):
    return sum(_padded(a.nbytes) for a in row)


def encode_row(row):
    """(meta str, bytes) of a row; the bytes are a copy, so later writes to the arrays cannot change them."""
    meta = json.dumps([[a.dtype.str, list(a.shape)] for a in row], separators=(",", ":"))
    body = bytearray(row_nbytes(row))
    write_row(row, memoryview(body), 0)
    return meta, body


def write_row(row, buf, offset):
    """Copy the columns of `row` into `buf` from `offset` (the layout `decode_row` reads)."""
    for a in row:
        if a.nbytes:
            dst = np.frombuffer(buf, dtype=np.uint8, count=a.nbytes, offset=offset)
            dst[...] = np.ascontiguousarray(a).reshape(-1).view(np.uint8)
            del dst
        offset += _padded(a.nbytes)


def decode_row(meta, buf, offset):
    """The row stored at `offset` of `buf`, as fresh arrays (never views into the shared buffer)."""
    columns = []
    for dtype, shape in json.loads(meta):
        dtype = np.dtype(dtype)
        count = int(np.prod(shape, dtype=np.int64))
        if count:
            view = np.frombuffer(buf, dtype=dtype, count=count, offset=offset)
            columns.append(view.reshape(shape).copy())
            del view
        else:
            columns.append(np.empty(shape, dtype=dtype))
        offset += _padded(count * dtype.itemsize)
    return tuple(columns)


def write_tag(buf, row_offset, cache_id, key):
    _TAG.pack_into(buf, row_offset - TAG_BYTES, cache_id, key)


def clear_tag(buf, row_offset):
    _TAG.pack_into(buf, row_offset - TAG_BYTES, 0, 0)


def tag_matches(buf, row_offset, cache_id, key):
    return _TAG.unpack_from(buf, row_offset - TAG_BYTES) == (cache_id, key)
