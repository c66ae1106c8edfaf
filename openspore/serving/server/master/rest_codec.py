"""MindSpore Serving's REST JSON ↔ `Instance` messages.

Request values: a JSON integer is an int32 scalar, a float a float32 scalar, a bool a bool scalar, a string a
str scalar; a nested array is a tensor (dtype from its leaves: int32, float32 or bool); `{"b64": ..., "type": ...,
"shape": [...]}` is a typed tensor (or bytes/str) given as base64. Replies render tensors as nested arrays (shape []
as a scalar), str as strings and bytes as `{"b64": ...}`.
"""
import base64
import binascii
import json

import numpy as np

from ...common.status import ServingError
from ...common.tensor import TensorError, decode, encode
from ...proto import ms_service_pb2 as pb

B64_TYPES = {"int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64, "uint8": np.uint8,
             "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64, "float16": np.float16, "fp16": np.float16,
             "float32": np.float32, "fp32": np.float32, "float64": np.float64, "fp64": np.float64, "bool": np.bool_,
             "str": None, "bytes": None}


def _fail(message):
    raise ServingError(f"Parser request failed, {message}")


def _array_shape(value, name):
    shape, probe = [], value
    while isinstance(probe, list):
        if not probe:
            if not shape:
                _fail(f"json array, shape is empty: input '{name}' is []")
            break
        shape.append(len(probe))
        probe = probe[0]
    return shape


def _check_rectangular(value, shape, name, depth=0):
    if depth == len(shape):
        if isinstance(value, list):
            _fail(f"invalid json array: input '{name}' is deeper than its first element at dim {depth}")
        return
    if not isinstance(value, list) or len(value) != shape[depth]:
        size = len(value) if isinstance(value, list) else "a scalar"
        _fail(f"invalid json array: json size is {size}, the dim {depth} expected to be {shape[depth]} "
              f"(input '{name}')")
    for item in value:
        _check_rectangular(item, shape, name, depth + 1)


def _leaf_dtype(leaves, name):
    kinds = {type(v) for v in leaves}
    if kinds <= {bool}:
        return np.bool_
    if kinds <= {int}:
        return np.int32
    if kinds <= {float, int}:
        return np.float32
    if kinds & {str, dict}:
        _fail(f"json array, string or bytes type only support one item (input '{name}')")
    _fail(f"json array, elements type is not equal (input '{name}' mixes {sorted(k.__name__ for k in kinds)})")


def _int_array(values, dtype, name):
    try:
        return np.array(values, dtype=dtype)
    except OverflowError:
        _fail(f"input '{name}' holds an integer out of the int32 range")


def _from_b64(obj, name):
    extra = set(obj) - {"b64", "type", "shape"}
    if extra or "b64" not in obj:
        _fail(f"input '{name}': a b64 object has the keys 'b64' (required), 'type' and 'shape', but got "
              f"{sorted(obj)}")
    try:
        raw = base64.b64decode(obj["b64"], validate=True)
    except (binascii.Error, TypeError, ValueError) as exc:
        _fail(f"input '{name}': the 'b64' value is not valid base64: {exc}")
    type_name = obj.get("type", "bytes")
    if type_name not in B64_TYPES:
        _fail(f"input '{name}': unknown b64 type {type_name!r}, expected one of {sorted(B64_TYPES)}")
    shape = obj.get("shape", [])
    if not isinstance(shape, list) or any(not isinstance(d, int) or isinstance(d, bool) or d < 0 for d in shape):
        _fail(f"input '{name}': the b64 'shape' should be an array of unsigned ints, but got {shape!r}")
    count = int(np.prod(shape, dtype=np.int64)) if shape else 1
    if type_name in ("str", "bytes"):
        if count != 1:
            _fail(f"input '{name}': a {type_name} b64 value holds one item, but the shape {shape} has {count}")
        if type_name == "str":
            try:
                return raw.decode("utf-8")
            except UnicodeDecodeError:
                _fail(f"input '{name}': the b64 str value is not UTF-8")
        return raw
    dtype = np.dtype(B64_TYPES[type_name])
    if len(raw) != count * dtype.itemsize:
        _fail(f"input '{name}': size is not matched, decode base64 size:{len(raw)}, but the type {type_name} and shape "
              f"{shape} need {count * dtype.itemsize}")
    return np.frombuffer(raw, dtype.newbyteorder("<")).astype(dtype).reshape(shape)


def json_value(value, name):
    """One JSON input value → numpy array, str or bytes."""
    if isinstance(value, bool):
        return np.asarray(value, np.bool_)
    if isinstance(value, int):
        return _int_array(value, np.int32, name)
    if isinstance(value, float):
        return np.asarray(value, np.float32)
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return _from_b64(value, name)
    if value is None:
        _fail(f"input '{name}' is null")
    shape = _array_shape(value, name)
    _check_rectangular(value, shape, name)
    flat = np.array(value, dtype=object).reshape(-1)
    if len(flat) == 1 and isinstance(flat[0], (str, dict)):
        return json_value(flat[0], name)
    dtype = _leaf_dtype(flat.tolist(), name)
    return _int_array(value, dtype, name) if dtype is np.int32 else np.array(value, dtype=dtype)


def parse_instances(body):
    """The `instances` of a MindSpore REST request body → list of `Instance` messages."""
    if not body:
        raise ServingError("http message invalid: the request body is empty")
    pairs = []
    try:
        root = json.loads(body, object_pairs_hook=lambda items: pairs.append(items) or dict(items))
    except (ValueError, UnicodeDecodeError) as exc:
        raise ServingError(f"Illegal JSON format.{exc}") from None
    except RecursionError:
        raise ServingError("Illegal JSON format.the JSON is nested too deeply") from None
    if not isinstance(root, dict):
        _fail("the request body should be a JSON object with the key 'instances'")
    # object_pairs_hook sees the innermost objects first: the last pairs are the root's, duplicates included
    count = sum(1 for key, _ in pairs[-1] if key == "instances")
    if count != 1:
        _fail(f"key 'instances' expects to exist once, but actually {count} times")
    raw = root["instances"]
    if isinstance(raw, dict):
        raw = [raw]
    if not isinstance(raw, list):
        _fail("instances no key mode is not supported: 'instances' should be an object or an array of objects")
    if not raw:
        _fail("instances value is array type, but no value")
    instances = []
    for i, item in enumerate(raw):
        if not isinstance(item, dict):
            _fail("instances no key mode is not supported: every instance should be an object of input name → value")
        if not item:
            _fail(f"instance {i} is empty")
        inst = pb.Instance()
        for key, value in item.items():
            if not key:
                _fail(f"instance {i} has an empty input name")
            try:
                encode(json_value(value, key), inst.items[key], scalar_shape=())
            except TensorError as exc:
                _fail(f"input '{key}': {exc}")
        instances.append(inst)
    return instances


def render_value(tensor):
    value = decode(tensor, "")
    if isinstance(value, str):
        return value
    if isinstance(value, bytes):
        return {"b64": base64.b64encode(value).decode("ascii")}
    if value.dtype == np.float16:
        value = value.astype(np.float32)
    return value.item() if value.ndim == 0 else value.tolist()


def render_instance(instance):
    try:
        return {name: render_value(tensor) for name, tensor in instance.items.items()}
    except TensorError as exc:
        return {"error_msg": f"Failed to construct the response: {exc}"}
