"""The online debugger's wire format: JSON messages over gRPC (service `debugger.EventListener`, MindSpore's
RPC names), tensors as base64 raw bytes with dtype and shape, conditions as class name + parameters."""
import base64
import json

import numpy as np

from . import conditions, rules

SERVICE = "debugger.EventListener"
METHODS = ("WaitCMD", "SendMetadata", "SendGraph", "SendTensors", "SendWatchpointHits", "SendHeartbeat")


def encode(message):
    return json.dumps(message, default=_default).encode("utf-8")


def decode(data):
    return json.loads(data.decode("utf-8")) if data else {}


def _default(value):
    if isinstance(value, (np.floating, np.integer)):
        return value.item()
    if isinstance(value, np.bool_):
        return bool(value)
    raise TypeError(f"cannot send {type(value).__name__} to the debugger")


def tensor_to_wire(array):
    arr = np.ascontiguousarray(array)
    return {"dtype": arr.dtype.str, "shape": list(arr.shape), "data": base64.b64encode(arr.tobytes()).decode()}


def tensor_from_wire(message):
    data = base64.b64decode(message["data"])
    return np.frombuffer(data, dtype=np.dtype(message["dtype"])).reshape(message["shape"]).copy()


def condition_to_wire(condition):
    return {"class": type(condition).__name__, "params": condition.param_dict}


def condition_from_wire(message):
    cls = getattr(conditions, message["class"], None) or getattr(rules, message["class"], None)
    if cls is None or not isinstance(cls, type) or not issubclass(cls, conditions.ConditionBase):
        raise ValueError(f"unknown watchpoint condition class {message['class']!r}")
    return cls(**message.get("params", {}))
