"""The device↔server message format: JSON bodies whose arrays travel as base64 of little-endian bytes.

MindSpore's devices speak FlatBuffers (`mindspore.fl.schema`); openspore keeps the same message and field names
(`RequestFLJob`, `feature_map`, `retcode`, `next_req_time`, …) in JSON, which any device can read without a schema
compiler. Every decoder here checks what it is given and raises `WireError` naming the field, so a server can
refuse a bad request with RequestError instead of crashing.

>>> import numpy as np
>>> from openspore.federated.wire import encode_array, decode_array
>>> decode_array(encode_array(np.arange(3, dtype=np.float32)), "w")
array([0., 1., 2.], dtype=float32)
"""
import base64
import json

import numpy as np

SUCCEED, SUC_NOT_READY, OUT_OF_TIME, REQUEST_ERROR, SYSTEM_ERROR = 200, 201, 300, 400, 500
RETCODE_NAMES = {SUCCEED: "SUCCEED", SUC_NOT_READY: "SucNotReady", OUT_OF_TIME: "OutOfTime",
                 REQUEST_ERROR: "RequestError", SYSTEM_ERROR: "SystemError"}
_DTYPES = {"float32": np.float32, "float64": np.float64, "int8": np.int8, "int32": np.int32, "int64": np.int64,
           "uint64": np.uint64, "uint8": np.uint8, "bool": np.bool_}
MAX_DIMS = 8


class WireError(ValueError):
    """A request that does not follow the protocol; the server answers RequestError (400) with this text."""


def encode_array(arr):
    arr = np.ascontiguousarray(arr)
    name = arr.dtype.name
    if name not in _DTYPES:
        raise TypeError(f"encode_array: dtype {name} cannot travel; use one of {sorted(_DTYPES)}.")
    return {"dtype": name, "shape": list(arr.shape), "data": base64.b64encode(arr.astype(arr.dtype.newbyteorder("<"),
                                                                                     copy=False).tobytes()).decode()}


def decode_array(obj, where):
    if isinstance(obj, np.ndarray):   # decoded already by a cluster server (pack_message); JSON never makes one
        if obj.dtype.name not in _DTYPES or obj.ndim > MAX_DIMS:
            raise WireError(f"{where}: an array of {obj.dtype}{list(obj.shape)} cannot travel.")
        return obj
    if not isinstance(obj, dict) or set(obj) != {"dtype", "shape", "data"}:
        raise WireError(f"{where}: expected an array object {{dtype, shape, data}}, got {_brief(obj)}.")
    dtype, shape, data = obj["dtype"], obj["shape"], obj["data"]
    if dtype not in _DTYPES:
        raise WireError(f"{where}: dtype {dtype!r} is not one of {sorted(_DTYPES)}.")
    if (not isinstance(shape, list) or len(shape) > MAX_DIMS
            or not all(isinstance(d, int) and not isinstance(d, bool) and 0 <= d < 1 << 31 for d in shape)):
        raise WireError(f"{where}: shape must be a list of at most {MAX_DIMS} non-negative ints, got {_brief(shape)}.")
    if not isinstance(data, str):
        raise WireError(f"{where}: data must be a base64 string.")
    try:
        raw = base64.b64decode(data, validate=True)
    except ValueError as e:
        raise WireError(f"{where}: data is not valid base64 ({e}).") from None
    dt = np.dtype(_DTYPES[dtype]).newbyteorder("<")
    count = int(np.prod(shape, dtype=np.int64))
    if len(raw) != count * dt.itemsize:
        raise WireError(f"{where}: {len(raw)} bytes of data for shape {shape} {dtype} (expected {count * dt.itemsize}).")
    return np.frombuffer(raw, dt).astype(_DTYPES[dtype]).reshape(shape)


def encode_feature_map(weights):
    """{name: array} → the `feature_map` field (a list of {weight_fullname, data})."""
    return [{"weight_fullname": k, "data": encode_array(v)} for k, v in weights.items()]


def decode_feature_map(items, where="feature_map"):
    if not isinstance(items, list):
        raise WireError(f"{where}: expected a list of {{weight_fullname, data}}, got {_brief(items)}.")
    out = {}
    for k, item in enumerate(items):
        if not isinstance(item, dict) or not isinstance(item.get("weight_fullname"), str) or "data" not in item:
            raise WireError(f"{where}[{k}]: expected {{weight_fullname: str, data: array}}, got {_brief(item)}.")
        name = item["weight_fullname"]
        if name in out:
            raise WireError(f"{where}: weight {name!r} appears twice.")
        out[name] = decode_array(item["data"], f"{where}[{name!r}]")
    return out


def pack_message(msg, where, max_depth=6):
    """A decoded request → bytes for the server → scheduler hop: every array object {dtype, shape, data} is
    decoded here (base64 and its checks: the CPU-heavy part of a request, done by the server that received it) and
    travels as raw bytes after a JSON header. A WireError means the device's request is malformed. Objects nested
    deeper than `max_depth` stay JSON (the scheduler decodes them then).

    >>> back = unpack_message(pack_message({"w": encode_array(np.ones(2, np.float32))}, "m"))
    >>> back["w"]
    array([1., 1.], dtype=float32)
    """
    buffers = []

    def walk(obj, path, depth):
        if isinstance(obj, dict):
            if _BUF in obj:
                raise WireError(f"{path}: the key {_BUF!r} is reserved.")
            if set(obj) == {"dtype", "shape", "data"} and depth <= max_depth:
                arr = decode_array(obj, path)
                buffers.append(np.ascontiguousarray(arr).astype(arr.dtype.newbyteorder("<"), copy=False).tobytes())
                return {_BUF: len(buffers) - 1, "dtype": obj["dtype"], "shape": obj["shape"]}
            if depth >= max_depth:
                return obj
            return {k: walk(v, f"{path}.{k}", depth + 1) for k, v in obj.items()}
        if isinstance(obj, list) and depth < max_depth:
            return [walk(v, f"{path}[{k}]", depth + 1) for k, v in enumerate(obj)]
        return obj

    header = dumps({"msg": walk(msg, where, 0), "sizes": [len(b) for b in buffers]})
    return b"".join([_MAGIC, len(header).to_bytes(4, "little"), header, *buffers])


def unpack_message(body):
    """pack_message's bytes → the message, with numpy arrays where the array objects were (read-only views)."""
    if len(body) < 8 or body[:4] != _MAGIC:
        raise WireError("cluster message: bad magic (not from an openspore federated server).")
    n = int.from_bytes(body[4:8], "little")
    head = loads(body[8:8 + n], "cluster message header")
    sizes, offsets, at = head.get("sizes"), [], 8 + n
    if not isinstance(sizes, list) or not all(isinstance(s, int) and s >= 0 for s in sizes):
        raise WireError("cluster message: bad buffer sizes.")
    for s in sizes:
        offsets.append(at)
        at += s
    if at != len(body):
        raise WireError(f"cluster message: {len(body)} bytes, the header accounts for {at}.")
    view = memoryview(body)

    def walk(obj):
        if isinstance(obj, dict):
            if _BUF in obj:
                k, dtype, shape = obj[_BUF], obj.get("dtype"), obj.get("shape")
                if not (isinstance(k, int) and 0 <= k < len(sizes)) or dtype not in _DTYPES:
                    raise WireError("cluster message: bad buffer reference.")
                dt = np.dtype(_DTYPES[dtype]).newbyteorder("<")
                if sizes[k] != int(np.prod(shape, dtype=np.int64)) * dt.itemsize:
                    raise WireError("cluster message: a buffer does not match its shape.")
                arr = np.frombuffer(view[offsets[k]:offsets[k] + sizes[k]], dt).reshape(shape)
                return arr if dt == np.dtype(_DTYPES[dtype]) else arr.astype(_DTYPES[dtype])
            return {k: walk(v) for k, v in obj.items()}
        if isinstance(obj, list):
            return [walk(v) for v in obj]
        return obj

    msg = walk(head.get("msg"))
    if not isinstance(msg, dict):
        raise WireError("cluster message: the message must be an object.")
    return msg


_MAGIC = b"OSF1"
_BUF = "__buffer__"


def dumps(msg):
    return json.dumps(msg, separators=(",", ":")).encode()


def loads(body, where):
    try:
        msg = json.loads(body)
    except (ValueError, UnicodeDecodeError) as e:
        raise WireError(f"{where}: the body is not JSON ({e}).") from None
    if not isinstance(msg, dict):
        raise WireError(f"{where}: the body must be a JSON object, got {type(msg).__name__}.")
    return msg


def field(msg, name, typ, where, required=True, default=None):
    """msg[name] checked to be `typ` (bool is not an int here)."""
    if name not in msg:
        if required:
            raise WireError(f"{where}: missing field {name!r}.")
        return default
    value = msg[name]
    if typ is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if not isinstance(value, typ) or (typ in (int, float) and isinstance(value, bool)):
        raise WireError(f"{where}: field {name!r} must be {typ.__name__}, got {_brief(value)}.")
    return value


def _brief(obj):
    text = repr(obj)
    return text if len(text) <= 60 else text[:57] + "..."
