"""`serialize`, `deserialize`, `show` and `compare`: a pipeline as a JSON tree and back.

The tree follows MindSpore's layout: the last operation is the root; each node has `op_type` ("Batch", "Map",
"Repeat", ... or the source's class name, e.g. "MnistDataset"), its constructor arguments, and `children`; a map's
`operations` are `{"tensor_op_name", "tensor_op_params", "python_module"}` entries; samplers are
`{"sampler_name", ..., "child_sampler": [...]}`. A Python function is written by module and qualified name, so a
module-level function comes back and a lambda cannot (deserialize says so). Rebuilding calls the same
constructors with the same arguments, so the new pipeline yields the same rows.

>>> import numpy as np
>>> import openspore.dataset as ds
>>> from openspore.dataset import transforms
>>> data = ds.NumpySlicesDataset({"label": np.arange(4)}, shuffle=False)
>>> data = data.map(transforms.OneHot(4), input_columns=["label"]).batch(2)
>>> tree = ds.serialize(data)
>>> tree["op_type"], tree["children"][0]["op_type"], tree["children"][0]["operations"][0]["tensor_op_name"]
('Batch', 'Map', 'OneHot')
>>> again = ds.deserialize(input_dict=tree)
>>> ds.compare(data, again)
True
>>> [b[0].tolist() for b in again.create_tuple_iterator(output_numpy=True)][1]
[[0, 0, 1, 0], [0, 0, 0, 1]]
"""
import enum
import importlib
import inspect
import json
import os

import numpy as np

from ...common.files import write_atomic
from .init_record import Recorded

# internal node class → MindSpore's op_type
_OP_TYPES = {"MapDataset": "Map", "BatchDataset": "Batch", "ShuffleDataset": "Shuffle", "RepeatDataset": "Repeat",
             "TakeDataset": "Take", "SkipDataset": "Skip", "ZipDataset": "Zip", "ConcatDataset": "Concat",
             "ProjectDataset": "Project", "RenameDataset": "Rename", "FilterDataset": "Filter",
             "SyncWaitDataset": "SyncWait", "BucketBatchByLengthDataset": "BucketBatchByLength"}
_CHILD_PARAMS = ("child", "datasets")


def _qualified(obj):
    return f"{obj.__module__}:{obj.__qualname__}"


def _import(path, where="deserialize"):
    module_name, _, qualname = path.partition(":")
    try:
        obj = importlib.import_module(module_name)
        for part in qualname.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError):
        raise RuntimeError(f"For '{where}', {path} cannot be imported, so the pipeline cannot be rebuilt.") from None
    return obj


def _encode(value, where):
    """A constructor argument as JSON (raises for what cannot be rebuilt)."""
    from ..sources.generator import Schema
    from .samplers import Sampler
    if isinstance(value, enum.Enum):  # before the scalars: IntEnum / str enums are ints and strs too
        return {"__enum__": _qualified(type(value)), "name": value.name}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (np.ndarray, np.generic)):
        return {"__ndarray__": value.tolist(), "dtype": value.dtype.str}
    if isinstance(value, (list, tuple)):
        return [_encode(v, where) for v in value]
    if isinstance(value, dict):
        return {"__dict__": [[_encode(k, where), _encode(v, where)] for k, v in value.items()]}
    if isinstance(value, Sampler):
        return _encode_sampler(value, where)
    if isinstance(value, Schema):
        return {"__schema__": json.loads(value.to_json())}
    if getattr(value, "np_dtype", None) is not None and type(value).__module__.startswith("openspore.common"):
        return {"__mstype__": repr(value).split(".")[-1]}
    if isinstance(value, Recorded):  # a transform (one without its own constructor records no arguments)
        return _encode_operation(value, where)
    if callable(value) and hasattr(value, "__qualname__"):
        return {"tensor_op_name": "PyFunc", "python_module": value.__module__, "python_function": value.__qualname__,
                "is_python_front_end_op": True}
    raise TypeError(f"For '{where}', a value of type {type(value).__name__} cannot be serialized.")


def _encode_operation(op, where):
    params = {k: _encode(v, where) for k, v in getattr(op, "_init_args", {}).items()}
    return {"tensor_op_name": type(op).__name__, "tensor_op_params": params, "python_module": type(op).__module__,
            "is_python_front_end_op": False}


def _encode_sampler(sampler, where):
    params = {k: _encode(v, where) for k, v in getattr(sampler, "_init_args", {}).items()}
    child = sampler.get_child()
    return {"sampler_name": type(sampler).__name__, "sampler_module": type(sampler).__module__, **params,
            "child_sampler": [_encode_sampler(child, where)] if child is not None else []}


def _decode(value):
    if isinstance(value, list):
        return [_decode(v) for v in value]
    if not isinstance(value, dict):
        return value
    if "__enum__" in value:
        return getattr(_import(value["__enum__"]), value["name"])
    if "__ndarray__" in value:
        return np.array(value["__ndarray__"], dtype=np.dtype(value["dtype"]))
    if "__dict__" in value:
        return {_decode_key(k): _decode(v) for k, v in value["__dict__"]}
    if "__schema__" in value:
        from ..sources.generator import Schema
        schema = Schema()
        schema.from_json(value["__schema__"])
        return schema
    if "__mstype__" in value:
        from ...common import dtype as mstype
        return getattr(mstype, value["__mstype__"])
    if "sampler_name" in value:
        return _decode_sampler(value)
    if "tensor_op_name" in value:
        return _decode_operation(value)
    raise RuntimeError(f"For 'deserialize', cannot rebuild the value {value!r:.120}.")


def _decode_key(key):
    return tuple(key) if isinstance(key, list) else _decode(key)


def _decode_operation(entry):
    if entry["tensor_op_name"] == "PyFunc":
        name = entry.get("python_function", "")
        if "<lambda>" in name or "<locals>" in name:
            raise RuntimeError(f"For 'deserialize', the Python function {entry.get('python_module')}.{name} was "
                               f"defined inline (a lambda or a nested function), so it cannot be imported again; "
                               f"use a module-level function in the pipeline.")
        return _import(f"{entry['python_module']}:{name}")
    cls = _import(f"{entry['python_module']}:{entry['tensor_op_name']}")
    params = {k: _decode(v) for k, v in entry.get("tensor_op_params", {}).items()}
    return _call(cls, params)


def _decode_sampler(entry):
    cls = _import(f"{entry.get('sampler_module', 'openspore.dataset.engine.samplers')}:{entry['sampler_name']}")
    params = {k: _decode(v) for k, v in entry.items()
              if k not in ("sampler_name", "sampler_module", "child_sampler")}
    sampler = _call(cls, params)
    for child in entry.get("child_sampler", []):
        sampler.add_child(_decode_sampler(child))
    return sampler


def _call(cls, params):
    """cls(**params), passing what the signature takes positionally-or-by-keyword and the rest as **kwargs."""
    signature = inspect.signature(cls.__init__)
    args, kwargs = [], {}
    for name, param in list(signature.parameters.items())[1:]:
        if param.kind is inspect.Parameter.VAR_POSITIONAL and name in params:
            args.extend(params.pop(name))
    kwargs.update(params)
    return cls(*args, **kwargs)


def serialize(dataset, json_filepath=""):
    """`serialize(dataset, json_filepath="")`: the pipeline ending at `dataset` as a dict (also written to
    `json_filepath` when given)."""
    from .datasets import Dataset
    if not isinstance(dataset, Dataset):
        raise TypeError(f"For 'serialize', 'dataset' must be a Dataset, but got {type(dataset).__name__}.")
    tree = _serialize_node(dataset)
    if json_filepath:
        if not isinstance(json_filepath, (str, os.PathLike)):
            raise TypeError(f"For 'serialize', 'json_filepath' must be a str, but got {json_filepath!r}.")
        text = json.dumps(tree, indent=2)
        write_atomic(os.fspath(json_filepath), [text.encode("utf-8")], read_only=False)
    return tree


def _serialize_node(node):
    name = type(node).__name__
    where = f"serialize ({name})"
    if getattr(node, "cache", None) is not None:
        raise RuntimeError(f"For 'serialize', {name} uses a DatasetCache, which cannot be serialized.")
    params = {}
    for key, value in getattr(node, "_init_args", {}).items():
        if key in _CHILD_PARAMS:
            continue
        if key == "operations" and not isinstance(value, (list, tuple)):
            value = [value]  # MindSpore writes a map's operations as a list even when one was given
        if key == "callbacks" and value:
            raise RuntimeError(f"For 'serialize', {name} has dataset callbacks, which cannot be serialized.")
        try:
            params[key] = _encode(value, where)
        except TypeError as exc:
            raise TypeError(f"For 'serialize', the argument '{key}' of {name} cannot be serialized: {exc}") from None
    return {"op_type": _OP_TYPES.get(name, name), "python_module": type(node).__module__, **params,
            "children": [_serialize_node(child) for child in node.children]}


def deserialize(input_dict=None, json_filepath=None):
    """`deserialize(input_dict=None, json_filepath=None)`: rebuild a pipeline from `serialize`'s dict or file."""
    if (input_dict is None) == (json_filepath is None):
        raise ValueError("For 'deserialize', give exactly one of 'input_dict' and 'json_filepath'.")
    if json_filepath is not None:
        with open(json_filepath, encoding="utf-8") as f:
            input_dict = json.load(f)
    if not isinstance(input_dict, dict) or "op_type" not in input_dict:
        raise TypeError("For 'deserialize', the input must be a dict made by serialize (with 'op_type').")
    return _deserialize_node(input_dict)


def _deserialize_node(entry):
    op_type = entry["op_type"]
    reverse = {v: k for k, v in _OP_TYPES.items()}
    class_name = reverse.get(op_type, op_type)
    module = entry.get("python_module")
    if module is None:
        module = "openspore.dataset"
    cls = _import(f"{module}:{class_name}")
    children = [_deserialize_node(c) for c in entry.get("children", [])]
    params = {k: _decode(v) for k, v in entry.items() if k not in ("op_type", "python_module", "children")}
    signature = inspect.signature(cls.__init__)
    if "child" in signature.parameters:
        params["child"] = children[0]
    elif "datasets" in signature.parameters:
        params["datasets"] = children
    return _call(cls, params)


def show(dataset, indentation=2):
    """`show(dataset, indentation=2)`: print the pipeline's JSON (one line when `indentation` is None)."""
    if indentation is not None and (isinstance(indentation, bool) or not isinstance(indentation, int)
                                    or indentation < 0):
        raise ValueError(f"For 'show', 'indentation' must be a non-negative int or None, but got {indentation!r}.")
    print(json.dumps(serialize(dataset), indent=indentation))


def compare(pipeline1, pipeline2):
    """`compare(pipeline1, pipeline2)`: whether two pipelines have the same operations and arguments."""
    return serialize(pipeline1) == serialize(pipeline2)
