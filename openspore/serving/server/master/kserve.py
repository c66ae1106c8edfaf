"""The KServe v2 (Open Inference Protocol) REST endpoints over the same dispatcher.

A model is a servable: `/v2/models/{servable}` addresses the servable's method when it has one, otherwise the
method is named as `{servable}.{method}` or by the request parameter `"method"`. Tensors are batched along dim 0:
row i of every input is instance i, and the outputs stack the instances' results along a new dim 0. Errors
answer 400 (bad request), 404 (unknown model/version) or 503 (not available) with `{"error": "..."}`.
"""
import base64

import numpy as np

from ...common.status import NotFoundError, ServingError, StatusCode
from ...common.tensor import TensorError, decode, encode
from ...proto import ms_service_pb2 as pb
from .replies import outcome

DATATYPES = {"BOOL": np.bool_, "UINT8": np.uint8, "UINT16": np.uint16, "UINT32": np.uint32, "UINT64": np.uint64,
             "INT8": np.int8, "INT16": np.int16, "INT32": np.int32, "INT64": np.int64, "FP16": np.float16,
             "FP32": np.float32, "FP64": np.float64}
NUMPY_TO_DATATYPE = {np.dtype(v).name: k for k, v in DATATYPES.items()}


def resolve_model(dispatcher, model, version, method=None):
    """(ServableInfo, MethodInfo) for a KServe model name (and optional version / method parameter)."""
    name = model
    if model not in dispatcher.servables and "." in model:
        name, method = model.rsplit(".", 1)[0], method or model.rsplit(".", 1)[1]
    versions = dispatcher.servables.get(name)
    if not versions:
        raise NotFoundError(f"Model '{model}' is not served; served models: {sorted(dispatcher.servables)}")
    number = 0
    if version not in (None, ""):
        if not str(version).isdigit():
            raise ServingError(f"Model version should be a non-negative integer, but got {version!r}")
        number = int(version)
    info = versions[max(versions)] if number == 0 else versions.get(number)
    if info is None:
        raise NotFoundError(f"Model '{model}' has no version {number}; loaded versions: {sorted(versions)}")
    if method is None:
        if len(info.methods) != 1:
            raise ServingError(f"Model '{name}' has several methods {sorted(info.methods)}: address one as "
                               f"'{name}.<method>' or give the request parameter \"method\"")
        method = next(iter(info.methods))
    found = info.methods.get(method)
    if found is None:
        raise NotFoundError(f"Model '{name}' has no method '{method}'; its methods are {sorted(info.methods)}")
    return info, found


def _tensor_meta(name, spec):
    if spec is None:
        return {"name": name, "datatype": "BYTES", "shape": [-1]}
    dims, dtype = spec
    return {"name": name, "datatype": NUMPY_TO_DATATYPE.get(dtype, dtype.upper()), "shape": [-1] + list(dims)}


def metadata(info, method):
    """Model metadata: per-instance shapes get a leading -1 batch dim; values that only Python stages see are
    listed with shape [-1] and datatype BYTES (not known ahead)."""
    return {"name": info.name if len(info.methods) == 1 else f"{info.name}.{method.name}",
            "versions": [str(info.version)], "platform": "openspore_serving",
            "inputs": [_tensor_meta(n, s) for n, s in zip(method.input_names, method.inputs)],
            "outputs": [_tensor_meta(n, s) for n, s in zip(method.output_names, method.outputs)]}


def _input_array(entry, index):
    if not isinstance(entry, dict):
        raise ServingError(f"inputs[{index}] should be an object with 'name', 'shape', 'datatype' and 'data'")
    missing = [k for k in ("name", "shape", "datatype", "data") if k not in entry]
    if missing:
        raise ServingError(f"inputs[{index}] lacks {missing}")
    name, shape, datatype, data = entry["name"], entry["shape"], entry["datatype"], entry["data"]
    if not isinstance(shape, list) or not shape or any(not isinstance(d, int) or isinstance(d, bool) or d < 0
                                                       for d in shape):
        raise ServingError(f"input '{name}': 'shape' should be a non-empty array of ints >= 0 (dim 0 = instances), "
                           f"but got {shape!r}")
    count = int(np.prod(shape))
    if datatype == "BYTES":
        flat = np.array(data, dtype=object).reshape(-1)
        if flat.size != count or any(not isinstance(v, str) for v in flat):
            raise ServingError(f"input '{name}': BYTES data should hold {count} strings for shape {shape}")
        if count != shape[0]:
            raise ServingError(f"input '{name}': BYTES inputs carry one string per instance, shape should be "
                               f"[{count}]")
        return name, list(flat)
    dtype = DATATYPES.get(datatype)
    if dtype is None:
        raise ServingError(f"input '{name}': unsupported datatype {datatype!r}, expected one of "
                           f"{sorted(DATATYPES) + ['BYTES']}")
    try:
        array = np.asarray(data, dtype=dtype)
    except (TypeError, ValueError, OverflowError) as exc:
        raise ServingError(f"input '{name}': the data cannot be read as {datatype}: {exc}") from None
    if array.size != count:
        raise ServingError(f"input '{name}': the data has {array.size} elements, but the shape {shape} needs {count}")
    return name, array.reshape(shape)


def parse_request(body, method):
    """The instances of a KServe infer request for `method` → (instances, requested output names, id)."""
    if not isinstance(body, dict):
        raise ServingError("the request body should be a JSON object")
    inputs = body.get("inputs")
    if not isinstance(inputs, list) or not inputs:
        raise ServingError("the request should have a non-empty 'inputs' array")
    arrays = dict(_input_array(entry, i) for i, entry in enumerate(inputs))
    unknown = sorted(set(arrays) - set(method.input_names))
    missing = [n for n in method.input_names if n not in arrays]
    if unknown or missing:
        raise ServingError(f"method '{method.name}' takes the inputs {list(method.input_names)}; "
                           f"missing {missing}, unknown {unknown}")
    counts = {n: len(a) for n, a in arrays.items()}
    if len(set(counts.values())) != 1:
        raise ServingError(f"every input should have the same dim 0 (the number of instances), but got {counts}")
    n = next(iter(counts.values()))
    if n == 0:
        raise ServingError("Instances count of request cannot be 0")
    instances = []
    for i in range(n):
        inst = pb.Instance()
        for name in method.input_names:
            try:
                encode(arrays[name][i], inst.items[name], scalar_shape=())
            except TensorError as exc:
                raise ServingError(f"input '{name}': {exc}") from None
        instances.append(inst)
    wanted = body.get("outputs")
    names = list(method.output_names)
    if wanted is not None:
        if not isinstance(wanted, list) or any(not isinstance(o, dict) or "name" not in o for o in wanted):
            raise ServingError("'outputs' should be an array of objects with a 'name'")
        names = [o["name"] for o in wanted]
        bad = [o for o in names if o not in method.output_names]
        if bad:
            raise ServingError(f"unknown outputs {bad}; method '{method.name}' has the outputs "
                               f"{list(method.output_names)}")
    return instances, names, body.get("id")


def _output(name, values):
    if all(isinstance(v, str) for v in values):
        return {"name": name, "datatype": "BYTES", "shape": [len(values)], "data": values}
    if all(isinstance(v, bytes) for v in values):
        return {"name": name, "datatype": "BYTES", "shape": [len(values)],
                "data": [base64.b64encode(v).decode("ascii") for v in values],
                "parameters": {"content_encoding": "base64"}}
    shapes = {np.shape(v) for v in values}
    if len(shapes) != 1 or any(isinstance(v, (str, bytes)) for v in values):
        raise ServingError(f"output '{name}' differs in shape or kind across instances ({sorted(map(str, shapes))}), "
                           "it cannot be stacked into one tensor", StatusCode.FAILED)
    stacked = np.stack(values)
    datatype = NUMPY_TO_DATATYPE.get(stacked.dtype.name)
    if stacked.dtype == np.float16:
        stacked = stacked.astype(np.float32)
    return {"name": name, "datatype": datatype, "shape": list(stacked.shape), "data": stacked.reshape(-1).tolist()}


def build_response(pending, info, names, request_id):
    kind = outcome(pending)
    if kind[0] == "error":
        raise ServingError(kind[2], kind[1])
    if kind[0] == "partial":
        errors = [(i, r) for i, r in enumerate(kind[1]) if isinstance(r, tuple)]
        codes = {int(code) for _, (code, _) in errors}
        text = "; ".join(f"instance {i}: {message}" for i, (_, message) in errors)
        raise ServingError(text, StatusCode.INVALID_INPUTS if codes == {int(StatusCode.INVALID_INPUTS)}
                           else StatusCode.FAILED)
    per_instance = [{k: decode(v, "") for k, v in inst.items.items()} for inst in kind[1]]
    response = {"model_name": info.name, "model_version": str(info.version),
                "outputs": [_output(n, [row[n] for row in per_instance]) for n in names]}
    if request_id is not None:
        response["id"] = request_id
    return response
