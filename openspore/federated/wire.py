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
