"""`register_method` and `add_stage`: a method is a Python function run once at registration with placeholders,
recording a chain of stages (Python functions and model calls) from its inputs to its outputs."""
import inspect

from . import registry
from .model import Model
from .utils import check_names, check_str, get_servable_dir

_RECORDING = []   # stack of MethodDef being recorded (register_method runs the method body)


def _current(where):
    if not _RECORDING:
        raise RuntimeError(f"'{where}' should be called inside a method decorated by 'register_method'.")
    return _RECORDING[-1]


def _input_names(func):
    names = []
    for k, param in enumerate(inspect.signature(func).parameters.values()):
        kind = param.kind
        if kind == param.VAR_POSITIONAL:
            raise RuntimeError(f"'{func.__name__}' input {k} cannot be VAR_POSITIONAL !")
        if kind == param.VAR_KEYWORD:
            raise RuntimeError(f"'{func.__name__}' input {k} cannot be VAR_KEYWORD !")
        if kind == param.KEYWORD_ONLY:
            raise RuntimeError(f"'{func.__name__}' input {k} cannot be KEYWORD_ONLY !")
        names.append(param.name)
    return names


def _check_placeholder(value, method, what):
    if not isinstance(value, registry.TensorDef) or value.method != method.name:
        raise RuntimeError(f"Method '{method.name}': {what} should be a method input or an output of an earlier "
                           f"'add_stage' of this method, but got {value!r} ({type(value).__name__}).")
    return (value.tag, value.index)


def add_stage(stage, *args, outputs_count, batch_size=None, tag=None):
    """add_stage(stage, *args, outputs_count, batch_size=None, tag=None): add a stage to the method being
    registered. `stage` is a Python function or a Model from `declare_model`; `args` are placeholders (method inputs
    or earlier stage outputs). A function with `batch_size=None` is called per instance, `f(x1, x2, ...)`;
    with `batch_size=0` or an int it is called with a list of instances (each a tuple of inputs) and returns (or
    yields) one result per instance. Returns the stage's output placeholder(s)."""
    method = _current("add_stage")
    if not isinstance(outputs_count, int) or isinstance(outputs_count, bool) or outputs_count < 1:
        raise RuntimeError(f"Method '{method.name}': the parameter 'outputs_count' of add_stage should be an int >= 1, "
                           f"but got {outputs_count!r}.")
    if tag is not None:
        check_str("tag", tag, "add_stage")
    arg_refs = [_check_placeholder(a, method, f"argument {i} of add_stage") for i, a in enumerate(args)]
    if isinstance(stage, Model):
        if batch_size is not None:
            raise RuntimeError(f"Method '{method.name}': the parameter 'batch_size' of add_stage is only for function "
                               "stages, not for models.")
        spec = registry.servable(get_servable_dir())
        decl = spec.models.get(stage.model_key)
        if decl is None:
            raise RuntimeError(f"Method '{method.name}': model '{stage.model_key}' was not declared by declare_model "
                               "in this servable.")
        target, kind = decl, "model"
    elif inspect.isfunction(stage):
        if batch_size is not None and (not isinstance(batch_size, int) or isinstance(batch_size, bool)
                                       or batch_size < 0):
            raise RuntimeError(f"Method '{method.name}': the parameter 'batch_size' of add_stage should be None or an "
                               f"int >= 0, but got {batch_size!r}.")
        if batch_size is None:
            count = len(_input_names(stage))
            if count != len(args):
                raise RuntimeError(f"function {stage.__name__} input args count {len(args)} not match the count "
                                   f"{count} registered in method")
        _check_consistent_use(stage, batch_size, len(args), outputs_count)
        target, kind = stage, "function"
    else:
        raise RuntimeError("the parameter 'stage' of add_stage must be function or Model returned by declare_model, "
                           f"but got {type(stage).__name__}")
    method.stages.append(registry.Stage(kind, target, arg_refs, outputs_count, batch_size, tag))
    index = len(method.stages)
    outputs = tuple(registry.TensorDef(index, k, method.name) for k in range(outputs_count))
    return outputs[0] if outputs_count == 1 else outputs


_FUNCTION_USES = {}   # function → (batched, inputs count, outputs count) of its first add_stage


def _check_consistent_use(func, batch_size, inputs, outputs):
    use = (batch_size is not None, inputs, outputs)
    first = _FUNCTION_USES.setdefault(func, use)
    if first[0] != use[0]:
        raise RuntimeError(f"function '{func.__name__}': parameter 'batch_size' in multiple 'add_stage' should be "
                           "enabled or disabled consistently")
    if first[1:] != use[1:]:
        raise RuntimeError(f"function '{func.__name__}' is used by several 'add_stage' calls with different input or "
                           f"output counts: {first[1:]} and {use[1:]}")


def register_method(output_names):
    """register_method(output_names): decorator registering a method of this servable. The method name is the
    function's name, its input names are the parameter names, `output_names` names the returned values."""
    names = check_names("output_names", output_names, "register_method")

    def register(func):
        servable_name = get_servable_dir()
        spec = registry.servable(servable_name)
        input_names = _input_names(func)
        if func.__name__ in spec.methods:
            raise RuntimeError(f"Servable '{servable_name}': method '{func.__name__}' has been defined repeatedly")
        method = registry.MethodDef(func.__name__, input_names, names)
        placeholders = [registry.TensorDef(0, i, method.name) for i in range(len(input_names))]
        _RECORDING.append(method)
        try:
            result = func(*placeholders)
        finally:
            _RECORDING.pop()
        results = result if isinstance(result, tuple) else (result,)
        if len(results) != len(names):
            raise RuntimeError(f"Method return output size {len(results)} not match registered {len(names)}")
        method.outputs = [_check_placeholder(r, method, f"output {i} ('{names[i]}')") for i, r in enumerate(results)]
        spec.methods[method.name] = method
        return func

    return register
