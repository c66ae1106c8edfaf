"""`declare_model`, `Model` (with `Model.call`), `Context` and the device infos of a servable_config.py."""
import logging
import threading

from . import registry
from .utils import check_str, get_servable_dir

logger = logging.getLogger("openspore.serving")

MODEL_FORMATS = {"om": "OM", "mindir": "MindIR", "mindir_opt": "MindIR_Opt", "mindir_lite": "MindIR_Lite",
                 "ckpt": "Checkpoint", "checkpoint": "Checkpoint"}

# Set by the worker while it runs a method: model key → the loaded model of the request's servable version, so
# `Model.call` inside a stage function reaches the right version.
_CALL_CONTEXT = threading.local()


class ModelDecl:
    """What `declare_model` recorded. `inputs` (checkpoint models) lists `(shape, dtype)` per model input, shapes
    with the batch dim; `network` builds the Cell the checkpoint is loaded into."""

    def __init__(self, key, files, model_format, with_batch_dim, without_batch_dim_inputs, context, config_file,
                 network, inputs):
        self.key, self.files, self.format = key, files, model_format
        self.with_batch_dim = with_batch_dim
        self.without_batch_dim_inputs = without_batch_dim_inputs
        self.context, self.config_file = context, config_file
        self.network, self.inputs = network, inputs


class Model:
    """A model declared by `declare_model`; use it as the `stage` of `add_stage`, or call it inside a stage function
    with `Model.call`. Not constructed by users."""

    def __init__(self, model_key):
        self.model_key = model_key

    def __repr__(self):
        return f"Model({self.model_key!r})"

    def call(self, *args, subgraph=0):
        """call(*args, subgraph=0): run the model inside a stage function. `call(x1, x2, ...)` runs one instance and
        returns its output (a tuple when the model has several); `call([[x1, x2], [x1, x2], ...])` runs several
        instances (batched to the model's batch size) and returns a tuple of per-instance output tuples."""
        where = f"Model({self.model_key}{'' if subgraph == 0 else f', subgraph={subgraph}'}).call()"
        loaded = getattr(_CALL_CONTEXT, "models", {}).get(self.model_key)
        if loaded is None:
            raise RuntimeError(f"{where} failed: the model can only be called inside a stage function while the "
                               "servable is serving.")
        if not args:
            raise RuntimeError(f"{where} failed: no inputs provided, expected the inputs of one instance or a "
                               "list of instances.")
        multi = len(args) == 1 and isinstance(args[0], (list, tuple))
        if multi:
            instances = args[0]
            if any(not isinstance(item, (list, tuple)) for item in instances):
                raise RuntimeError(f"{where} failed: inputs format invalid, a list of instances should hold a "
                                   "list/tuple of inputs per instance.")
            instances = [tuple(item) for item in instances]
        else:
            instances = [tuple(args)]
        results = loaded.call_instances(instances, subgraph, where)
        if multi:
            return tuple(tuple(r) for r in results)
        only = results[0]
        return only[0] if len(only) == 1 else tuple(only)


def _check_model_files(model_file):
    files = (model_file,) if isinstance(model_file, str) else model_file
    if not isinstance(files, (list, tuple)) or not files:
        raise RuntimeError(f"For 'declare_model', the parameter 'model_file' should be a str or a non-empty "
                           f"tuple/list of str, but got {model_file!r}.")
    for item in files:
        check_str("model_file", item, "declare_model")
    if len(set(files)) != len(files):
        raise RuntimeError(f"For 'declare_model', the items of 'model_file' should be unique, but got {list(files)}.")
    return tuple(files)


def _check_indices(value):
    if value is None:
        return ()
    items = (value,) if isinstance(value, int) and not isinstance(value, bool) else value
    if not isinstance(items, (list, tuple)) or any(not isinstance(i, int) or isinstance(i, bool) or i < 0
                                                   for i in items):
        raise RuntimeError("For 'declare_model', the parameter 'without_batch_dim_inputs' should be an int >= 0 or a "
                           f"tuple/list of int >= 0, but got {value!r}.")
    return tuple(sorted(set(items)))


def _check_inputs(inputs, with_batch_dim):
    if inputs is None:
        return None
    import numpy as np
    if not isinstance(inputs, (list, tuple)) or not inputs:
        raise RuntimeError("For 'declare_model', the parameter 'inputs' should be a non-empty list of (shape, dtype) "
                           f"pairs, but got {inputs!r}.")
    specs = []
    for i, item in enumerate(inputs):
        if not (isinstance(item, (list, tuple)) and len(item) == 2):
            raise RuntimeError(f"For 'declare_model', inputs[{i}] should be a (shape, dtype) pair, but got {item!r}.")
        shape, dtype = item
        if not isinstance(shape, (list, tuple)) or any(not isinstance(d, int) or d < 0 for d in shape):
            raise RuntimeError(f"For 'declare_model', the shape of inputs[{i}] should be a tuple of int >= 0, but got "
                               f"{shape!r}.")
        try:
            dtype = np.dtype(dtype)
        except TypeError:
            raise RuntimeError(f"For 'declare_model', the dtype of inputs[{i}] is not a numpy dtype: {dtype!r}.") \
                from None
        specs.append((tuple(shape), dtype))
    return specs


def declare_model(model_file, model_format, with_batch_dim=True, options=None, without_batch_dim_inputs=None,
                  context=None, config_file=None, *, network=None, inputs=None):
    """declare_model(model_file, model_format, with_batch_dim=True, options=None, without_batch_dim_inputs=None,
    context=None, config_file=None): declare the model files (inside each version directory) of this servable.

    `model_format` is "MindIR" (loaded with `openspore.load` + `nn.GraphCell`) or, an openspore addition,
    "Checkpoint": `model_file` is an openspore/MindSpore checkpoint loaded into `network()` (a Cell class or
    factory), and `inputs` lists the model's `(shape, dtype)` per input (dim 0 = the batch size).
    """
    servable_name = get_servable_dir()
    files = _check_model_files(model_file)
    if not isinstance(model_format, str) or model_format.lower() not in MODEL_FORMATS:
        raise RuntimeError("model format can only be OM, MindIR, MindIR_Lite or Checkpoint, case ignored, but got "
                           f"{model_format!r}")
    fmt = MODEL_FORMATS[model_format.lower()]
    if not isinstance(with_batch_dim, bool):
        raise RuntimeError(f"For 'declare_model', the parameter 'with_batch_dim' should be a bool, but got "
                           f"{type(with_batch_dim).__name__}.")
    indices = _check_indices(without_batch_dim_inputs)
    if options is not None:
        if context is not None:
            logger.warning("For 'declare_model', 'options' is deprecated and ignored because 'context' is given.")
        elif not isinstance(options, Context):
            raise RuntimeError(f"For 'declare_model', the parameter 'options' should be a Context (AclOptions or "
                               f"GpuOptions), but got {type(options).__name__}.")
        else:
            context = options
    if context is not None and not isinstance(context, Context):
        raise RuntimeError(f"For 'declare_model', the parameter 'context' should be a Context, but got "
                           f"{type(context).__name__}.")
    if config_file is not None:
        check_str("config_file", config_file, "declare_model")
    if fmt == "Checkpoint":
        if network is None or not callable(network):
            raise RuntimeError("For 'declare_model', a 'Checkpoint' model needs 'network': a Cell class or a "
                               "function returning the Cell to load the checkpoint into.")
        if inputs is None:
            raise RuntimeError("For 'declare_model', a 'Checkpoint' model needs 'inputs': the (shape, dtype) of each "
                               "model input, shapes with the batch dim, e.g. inputs=[((32, 1, 32, 32), 'float32')].")
    elif network is not None or inputs is not None:
        raise RuntimeError(f"For 'declare_model', 'network' and 'inputs' are only used with model_format='Checkpoint',"
                           f" but the format is {model_format!r}.")
    key = ";".join(files)
    decl = ModelDecl(key, files, fmt, with_batch_dim, indices, context, config_file, network,
                     _check_inputs(inputs, with_batch_dim))
    spec = registry.servable(servable_name)
    if key in spec.models:
        raise RuntimeError(f"For 'declare_model', the model '{key}' of servable '{servable_name}' has been declared "
                           "repeatedly.")
    spec.models[key] = decl
    return Model(key)


_DEVICE_KWARGS = {
    "input_format": {"ND", "NCHW", "NHWC", "CHWN", "NC1HWC0", "NHWC1C0"},
    "output_type": {"FP32", "FP16", "UINT8"},
    "precision_mode": {"force_fp16", "allow_fp32_to_fp16", "must_keep_origin_dtype", "allow_mix_precision"},
    "op_select_impl_mode": {"high_performance", "high_precision"},
    "buffer_optimize_mode": {"l1_optimize", "l2_optimize", "off_optimize", "l1_and_l2_optimize"},
}


class DeviceInfoContext:
    """Base of the device infos: a str → str map carrying 'device_type'."""
    device_type = ""

    def __init__(self):
        self.context = {"device_type": self.device_type}

    def as_dict(self):
        return dict(self.context)


def _precision(cls_name, value):
    if value not in ("origin", "fp16"):
        raise RuntimeError(f"For '{cls_name}', 'precision_mode' should be 'origin' or 'fp16', but got {value!r}.")
    return value


class CPUDeviceInfo(DeviceInfoContext):
    """CPUDeviceInfo(precision_mode='origin')."""
    device_type = "cpu"

    def __init__(self, precision_mode="origin"):
        super().__init__()
        self.context["precision_mode"] = _precision("CPUDeviceInfo", precision_mode)


class GPUDeviceInfo(DeviceInfoContext):
    """GPUDeviceInfo(precision_mode='origin')."""
    device_type = "gpu"

    def __init__(self, precision_mode="origin"):
        super().__init__()
        self.context["precision_mode"] = _precision("GPUDeviceInfo", precision_mode)


class AscendDeviceInfo(DeviceInfoContext):
    """AscendDeviceInfo(**kwargs): accepted and checked for compatibility; openspore has no Ascend backend."""
    device_type = "ascend"

    def __init__(self, **kwargs):
        super().__init__()
        for key, value in kwargs.items():
            allowed = _DEVICE_KWARGS.get(key)
            if key in ("insert_op_cfg_path", "input_shape", "fusion_switch_config_path"):
                check_str(key, value, "AscendDeviceInfo")
            elif allowed is None:
                raise RuntimeError(f"For 'AscendDeviceInfo', unsupported option {key}.")
            elif value not in allowed:
                raise RuntimeError(f"For 'AscendDeviceInfo', '{key}' should be one of {sorted(allowed)}, but got "
                                   f"{value!r}.")
            self.context[key] = value


class Context:
    """Context(thread_num=, thread_affinity_core_list=, enable_parallel=, inference_engine=): model runtime options,
    plus device infos added with `append_device_info`. `inference_engine` (an openspore addition: "auto", "torch",
    "onnxruntime", "openvino" or "off", docs/inference.md) picks what runs the model's eval-mode graph in the
    worker: `set_context(inference_engine=...)` there."""

    def __init__(self, **kwargs):
        self.options = {}
        self.device_infos = []
        for key, value in kwargs.items():
            if key == "thread_num":
                if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                    raise RuntimeError(f"Set context failed, 'thread_num' should be an int >= 1, but got {value!r}")
            elif key == "thread_affinity_core_list":
                if not isinstance(value, (list, tuple)) or any(not isinstance(v, int) or v < 0 for v in value) \
                        or len(set(value)) != len(value):
                    raise RuntimeError("Set context failed, 'thread_affinity_core_list' should be a list of unique "
                                       f"int >= 0, but got {value!r}")
            elif key == "inference_engine":
                if value not in ("auto", "torch", "onnxruntime", "openvino", "off"):
                    raise RuntimeError("Set context failed, 'inference_engine' should be one of 'auto', 'torch', "
                                       f"'onnxruntime', 'openvino', 'off', but got {value!r}")
            elif key == "enable_parallel":
                if not isinstance(value, bool):
                    raise RuntimeError(f"Set context failed, 'enable_parallel' should be a bool, but got {value!r}")
            else:
                raise RuntimeError(f"Set context failed, unsupported option {key}")
            self.options[key] = value

    def append_device_info(self, device_info):
        """Add a CPUDeviceInfo, GPUDeviceInfo or AscendDeviceInfo (one of each type at most)."""
        if not isinstance(device_info, DeviceInfoContext):
            raise RuntimeError(f"For 'append_device_info', expected a CPUDeviceInfo, GPUDeviceInfo or "
                               f"AscendDeviceInfo, but got {type(device_info).__name__}.")
        if any(info.device_type == device_info.device_type for info in self.device_infos):
            raise RuntimeError(f"Device info of type {device_info.device_type} has already been appended")
        self.device_infos.append(device_info)


def AclOptions(**kwargs):  # noqa: N802 - MindSpore's deprecated class name
    """Deprecated: a Context holding an AscendDeviceInfo(**kwargs)."""
    logger.warning("'AclOptions' is deprecated, use 'Context' and 'AscendDeviceInfo' instead.")
    context = Context()
    context.append_device_info(AscendDeviceInfo(**kwargs))
    return context


def GpuOptions(precision_mode="origin"):  # noqa: N802 - MindSpore's deprecated class name
    """Deprecated: a Context holding a GPUDeviceInfo(precision_mode)."""
    logger.warning("'GpuOptions' is deprecated, use 'Context' and 'GPUDeviceInfo' instead.")
    context = Context()
    context.append_device_info(GPUDeviceInfo(precision_mode=precision_mode))
    return context


def declare_servable(servable_file, model_format, with_batch_dim=True, options=None, without_batch_dim_inputs=None):
    """Deprecated alias of `declare_model` (MindSpore Serving ≤ 1.4)."""
    logger.warning("'declare_servable' is deprecated, use 'declare_model' instead.")
    return declare_model(servable_file, model_format, with_batch_dim, options, without_batch_dim_inputs)
