"""The `.ms` file: a converted program, ready to run.

Layout (all integers little endian):

    offset 0   magic  b"OSPMS\\0"        6 bytes
               version                   uint16 (1)
               header length H           uint32
               data CRC-32               uint32
    offset 16  header: UTF-8 JSON, H bytes, zero-padded to a multiple of 64
    then       data: every stored array at a 64-byte aligned offset (relative to the data start)

The JSON header holds `meta` (producer, `train` info, quantization, `fp16`), the tensor table — each tensor's
`name`, `shape`, `dtype`, `kind` and, for stored tensors, `data: [offset, nbytes, stored dtype]` (float16 for
`--fp16=on`, int8 plus `quant` parameters for quantized weights) — and the `main` block: operators in execution
order, each `{type, name, attrs, inputs, outputs, blocks}`. Values that JSON lacks are tagged: tuples
`{"$t": [...]}`, dtypes `{"$dtype": "Int64"}`, non-finite floats `{"$f": "inf"}`; operator inputs are tensor
ids, `{"$l": [ids]}` (a tensor sequence) or `{"$v": value}` (a constant).

Loading reads the file once into a writable buffer, checks the CRC, and maps every array onto it without
copying (fp16 and int8 weights are widened to float32 once). Nothing is optimised at load time.
"""
import json
import math
import os
import struct
import sys
import zlib

import numpy as np

from ..common import dtype as mstype
from ..common.files import write_atomic
from .program import Block, Lit, Op, Program, TensorSpec
from .quantize import decode_weight, encode_weight

MAGIC = b"OSPMS\0"
VERSION = 1
ALIGN = 64
_PREFIX = struct.Struct("<6sHII")


class MsFileError(ValueError):
    pass


# ---- values ---------------------------------------------------------------------------------------------------
def encode_value(v):
    if isinstance(v, bool) or v is None or isinstance(v, (int, str)):
        return v
    if isinstance(v, float):
        return v if math.isfinite(v) else {"$f": repr(v)}
    if isinstance(v, (np.integer, np.floating, np.bool_)):
        return encode_value(v.item())
    if isinstance(v, tuple):
        return {"$t": [encode_value(x) for x in v]}
    if isinstance(v, list):
        return [encode_value(x) for x in v]
    if isinstance(v, mstype.Type):
        return {"$dtype": str(v)}
    if isinstance(v, np.ndarray):
        return {"$a": [str(v.dtype), list(v.shape), v.ravel().tolist()]}
    if isinstance(v, dict):
        return {"$d": {k: encode_value(x) for k, x in v.items()}}
    raise MsFileError(f"cannot store the value {v!r} ({type(v).__name__}) in a .ms file.")


def decode_value(v):
    if isinstance(v, list):
        return [decode_value(x) for x in v]
    if not isinstance(v, dict):
        return v
    if "$t" in v:
        return tuple(decode_value(x) for x in v["$t"])
    if "$f" in v:
        return float(v["$f"])
    if "$dtype" in v:
        return _dtype_named(v["$dtype"])
    if "$a" in v:
        dt, shape, items = v["$a"]
        return np.array(items, dtype=dt).reshape(shape)
    if "$d" in v:
        return {k: decode_value(x) for k, x in v["$d"].items()}
    raise MsFileError(f"unknown tagged value {v!r}.")


def _dtype_named(name):
    for t in vars(mstype).values():
        if isinstance(t, mstype.Type) and str(t) == name:
            return t
    raise MsFileError(f"unknown dtype {name!r} in the .ms file.")


# ---- writing --------------------------------------------------------------------------------------------------
def write(program, path):
    """Write `program` to `path` atomically (a temporary file renamed into place)."""
    blobs, offset = [], 0
    tensors = []
    fp16 = bool(program.meta.get("fp16"))
    for t in program.tensors:
        entry = {"name": t.name, "shape": list(t.shape), "dtype": t.dtype, "kind": t.kind}
        if t.data is not None:
            arrays, quant = encode_weight(t, fp16)
            entry["data"] = []
            for arr in arrays:
                raw = np.ascontiguousarray(arr).astype(arr.dtype.newbyteorder("<"), copy=False).tobytes()
                entry["data"].append([offset, len(raw), str(arr.dtype)])
                pad = (-len(raw)) % ALIGN
                blobs.append(raw + b"\0" * pad)
                offset += len(raw) + pad
            if quant:
                entry["quant"] = quant
        tensors.append(entry)
    header = {"format": "openspore-ms", "version": VERSION, "meta": encode_value(dict(program.meta))["$d"],
              "tensors": tensors, "main": _encode_block(program.main)}
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * ((-(len(text) + _PREFIX.size)) % ALIGN)
    crc = 0
    for b in blobs:
        crc = zlib.crc32(b, crc)
    path = os.fspath(path)
    write_atomic(path, [_PREFIX.pack(MAGIC, VERSION, len(text), crc), text, *blobs], read_only=False)
    return path


def _encode_block(b):
    return {"inputs": b.inputs, "outputs": b.outputs, "ops": [_encode_op(op) for op in b.ops]}


def _encode_op(op):
    def item(i):
        if type(i) is int:
            return i
        if type(i) is list:
            return {"$l": i}
        return {"$v": encode_value(i.value)}
    return {"type": op.type, "name": op.name, "attrs": {k: encode_value(v) for k, v in op.attrs.items()},
            "inputs": [item(i) for i in op.inputs], "outputs": op.outputs,
            "blocks": [_encode_block(x) for x in op.blocks]}


# ---- reading --------------------------------------------------------------------------------------------------
def read(path):
    """The Program stored in a `.ms` file (MsFileError naming the file and the problem when it is not one)."""
    path = os.fspath(path)
    size = os.path.getsize(path)
    buf = bytearray(size)
    with open(path, "rb") as f:
        f.readinto(buf)
    where = f"the .ms file {path}"
    if size < _PREFIX.size:
        raise MsFileError(f"{where} is too short to be a model ({size} bytes).")
    magic, version, hlen, crc = _PREFIX.unpack_from(buf)
    if magic != MAGIC:
        raise MsFileError(f"{where} is not an openspore .ms model (bad magic {bytes(magic)!r}); convert the model "
                          "with converter_lite first.")
    if version != VERSION:
        raise MsFileError(f"{where} has format version {version}; this runtime reads version {VERSION}.")
    start = _PREFIX.size + hlen
    if start > size:
        raise MsFileError(f"{where} is truncated (header of {hlen} bytes, file of {size}).")
    data = memoryview(buf)[start:]
    if zlib.crc32(data) != crc:
        raise MsFileError(f"{where} is corrupted or truncated (data checksum mismatch).")
    try:
        header = json.loads(bytes(buf[_PREFIX.size:start]).decode("utf-8"))
        return _program(header, data)
    except MsFileError:
        raise
    except (ValueError, KeyError, TypeError, IndexError) as exc:
        raise MsFileError(f"{where} has a malformed header: {type(exc).__name__}: {exc}") from None


def _program(header, data):
    p = Program()
    p.meta = {k: decode_value(v) for k, v in header["meta"].items()}
    for e in header["tensors"]:
        spec = TensorSpec(e["name"], tuple(e["shape"]), e["dtype"], e["kind"])
        if "data" in e:
            arrays = []
            for off, nbytes, dt in e["data"]:
                if off + nbytes > len(data):
                    raise MsFileError(f"tensor {e['name']!r} lies outside the data section.")
                arrays.append(np.frombuffer(data, dtype=_stored(dt), count=nbytes // np.dtype(dt).itemsize,
                                            offset=off))
            spec.data, spec.quant = decode_weight(spec, arrays, e.get("quant"))
        p.tensors.append(spec)
    p.main = _block(header["main"])
    return p


def _stored(name):
    """The little-endian dtype of stored data: numpy's own dtype object on a little-endian machine (a
    `newbyteorder` copy compares equal but is another object, and the kernels test dtypes by identity: every
    convolution then converted its input and reallocated its buffers, at every call)."""
    dt = np.dtype(name)
    return dt if dt.byteorder in ("<", "|") or (dt.byteorder == "=" and sys.byteorder == "little") \
        else dt.newbyteorder("<")


def _block(b):
    return Block([_op(o) for o in b["ops"]], b["inputs"], b["outputs"])


def _op(o):
    def item(i):
        if isinstance(i, int):
            return i
        if "$l" in i:
            return list(i["$l"])
        return Lit(decode_value(i["$v"]))
    return Op(o["type"], {k: decode_value(v) for k, v in o["attrs"].items()}, [item(i) for i in o["inputs"]],
              o["outputs"], o.get("name", ""), [_block(x) for x in o.get("blocks", ())])
