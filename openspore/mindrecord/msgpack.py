"""The MessagePack subset a MindRecord raw page holds: one map per row of str keys to int, float, str values.

The encoder makes the same byte choices as the writer MindSpore uses (nlohmann::json::to_msgpack), so a
row encodes to the same bytes: non-negative ints in the smallest unsigned form, negative ints in the
smallest signed form, floats as float32 when that is exact and float64 otherwise.

>>> decode(encode({"label": 0, "file_name": "a.jpg"})) == {"file_name": "a.jpg", "label": 0}
True
>>> encode({"x": 300}).hex()
'81a178cd012c'
"""
import struct

import numpy as np


def _encode_int(v, out):
    if v >= 0:
        if v < 0x80:
            out.append(v)
        elif v <= 0xFF:
            out += b"\xcc" + struct.pack(">B", v)
        elif v <= 0xFFFF:
            out += b"\xcd" + struct.pack(">H", v)
        elif v <= 0xFFFFFFFF:
            out += b"\xce" + struct.pack(">I", v)
        elif v <= 0xFFFFFFFFFFFFFFFF:
            out += b"\xcf" + struct.pack(">Q", v)
        else:
            raise OverflowError(f"int {v} does not fit MessagePack's 64 bits")
    elif v >= -32:
        out.append(v & 0xFF)
    elif v >= -0x80:
        out += b"\xd0" + struct.pack(">b", v)
    elif v >= -0x8000:
        out += b"\xd1" + struct.pack(">h", v)
    elif v >= -0x80000000:
        out += b"\xd2" + struct.pack(">i", v)
    elif v >= -0x8000000000000000:
        out += b"\xd3" + struct.pack(">q", v)
    else:
        raise OverflowError(f"int {v} does not fit MessagePack's 64 bits")


def _encode_str(s, out):
    data = s.encode("utf-8")
    n = len(data)
    if n <= 31:
        out.append(0xA0 | n)
    elif n <= 0xFF:
        out += b"\xd9" + struct.pack(">B", n)
    elif n <= 0xFFFF:
        out += b"\xda" + struct.pack(">H", n)
    else:
        out += b"\xdb" + struct.pack(">I", n)
    out += data


def _encode_value(v, out):
    if v is None:
        out.append(0xC0)
    elif isinstance(v, bool):
        out.append(0xC3 if v else 0xC2)
    elif isinstance(v, int):
        _encode_int(v, out)
    elif isinstance(v, float):
        single = np.float32(v)
        if float(single) == v:  # exact in float32: the 5-byte form, as MindSpore's writer chooses
            out += b"\xca" + struct.pack(">f", v)
        else:
            out += b"\xcb" + struct.pack(">d", v)
    elif isinstance(v, str):
        _encode_str(v, out)
    elif isinstance(v, dict):
        _encode_map(v, out)
    else:
        raise TypeError(f"MindRecord raw fields hold int, float or str values, not {type(v).__name__}")


def _encode_map(d, out):
    n = len(d)
    if n <= 15:
        out.append(0x80 | n)
    elif n <= 0xFFFF:
        out += b"\xde" + struct.pack(">H", n)
    else:
        out += b"\xdf" + struct.pack(">I", n)
    for key in sorted(d):  # nlohmann's json object keeps its keys sorted
        _encode_str(key, out)
        _encode_value(d[key], out)


def encode(row):
    """One row (dict of str → int/float/str) as MessagePack bytes, keys sorted."""
    out = bytearray()
    _encode_map(row, out)
    return bytes(out)


_FIXED = {0xCC: ">B", 0xCD: ">H", 0xCE: ">I", 0xCF: ">Q", 0xD0: ">b", 0xD1: ">h", 0xD2: ">i", 0xD3: ">q",
          0xCA: ">f", 0xCB: ">d"}
_LEN = {0xD9: ">B", 0xDA: ">H", 0xDB: ">I", 0xC4: ">B", 0xC5: ">H", 0xC6: ">I"}


def _decode_at(data, pos):
    b = data[pos]
    pos += 1
    if b < 0x80:
        return b, pos
    if b >= 0xE0:
        return b - 0x100, pos
    if 0xA0 <= b <= 0xBF:
        n = b & 0x1F
        return data[pos:pos + n].decode("utf-8"), pos + n
    if 0x80 <= b <= 0x8F:
        return _decode_map(data, pos, b & 0x0F)
    if 0x90 <= b <= 0x9F:
        return _decode_array(data, pos, b & 0x0F)
    if b == 0xC0:
        return None, pos
    if b in (0xC2, 0xC3):
        return b == 0xC3, pos
    if b in _FIXED:
        fmt = _FIXED[b]
        size = struct.calcsize(fmt)
        return struct.unpack_from(fmt, data, pos)[0], pos + size
    if b in _LEN:
        fmt = _LEN[b]
        n = struct.unpack_from(fmt, data, pos)[0]
        pos += struct.calcsize(fmt)
        chunk = bytes(data[pos:pos + n])
        return (chunk.decode("utf-8") if b >= 0xD9 else chunk), pos + n
    if b in (0xDC, 0xDD):
        fmt = ">H" if b == 0xDC else ">I"
        n = struct.unpack_from(fmt, data, pos)[0]
        return _decode_array(data, pos + struct.calcsize(fmt), n)
    if b in (0xDE, 0xDF):
        fmt = ">H" if b == 0xDE else ">I"
        n = struct.unpack_from(fmt, data, pos)[0]
        return _decode_map(data, pos + struct.calcsize(fmt), n)
    raise ValueError(f"unsupported MessagePack type byte 0x{b:02x} at offset {pos - 1}")


def _decode_map(data, pos, n):
    out = {}
    for _ in range(n):
        key, pos = _decode_at(data, pos)
        out[key], pos = _decode_at(data, pos)
    return out, pos


def _decode_array(data, pos, n):
    out = []
    for _ in range(n):
        item, pos = _decode_at(data, pos)
        out.append(item)
    return out, pos


def decode(data):
    """The value one MessagePack document holds (a dict for a raw-page row)."""
    data = data if isinstance(data, (bytes, bytearray)) else bytes(data)
    value, pos = _decode_at(data, 0)
    if pos != len(data):
        raise ValueError(f"{len(data) - pos} trailing bytes after a MessagePack value")
    return value
