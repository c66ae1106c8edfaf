"""Run a registered method on a list of instances: stage after stage, per-instance errors kept apart.

Values flowing between stages are keyed by (stage, index) as recorded at registration (stage 0 = the method's
inputs). An instance that fails at some stage is dropped from the later stages and reported with its error;
the other instances go on.
"""
import numpy as np

from ...common.status import StatusCode
from ..register import model as model_mod
from .model_loader import InstanceError


class StageFailure:
    """The error of one instance at one stage; `code` is a StatusCode (INVALID_INPUTS when the instance does not
    fit the model, FAILED when a stage raised)."""
    __slots__ = ("message", "code")

    def __init__(self, message, code=StatusCode.FAILED):
        self.message = message
        self.code = code


def _message(exc):
    text = str(exc)
    return text if text else type(exc).__name__


def _normalize(value, func_name):
    """A stage function's result value → what flows on: ndarray, str or bytes."""
    if isinstance(value, np.ndarray):
        return np.ascontiguousarray(value)
    if isinstance(value, (str, bytes)):
        return value
    if isinstance(value, (bool, np.bool_)):
        return np.asarray(bool(value), np.bool_)
    if isinstance(value, int):
        return np.asarray(value, np.int64)
    if isinstance(value, float):
        return np.asarray(value, np.float64)
    if isinstance(value, np.generic):
        return np.asarray(value)
    if hasattr(value, "asnumpy"):
        return np.ascontiguousarray(value.asnumpy())
    raise TypeError(f"Get illegal result data with type {type(value).__name__} from function '{func_name}': a "
                    "stage function should return numpy arrays, numpy scalars, bool, int, float, str or bytes.")


def _outputs(result, count, func_name):
    if count == 1:
        if isinstance(result, (tuple, list)) and len(result) == 1:
            result = result[0]
        return (_normalize(result, func_name),)
    if not isinstance(result, (tuple, list)) or len(result) != count:
        got = len(result) if isinstance(result, (tuple, list)) else 1
        raise TypeError(f"function '{func_name}' returned {got} outputs for an instance, but add_stage declared "
                        f"outputs_count={count}")
    return tuple(_normalize(v, func_name) for v in result)


class MethodRunner:
    """Runs the methods of one loaded servable version. `models`: model key → LoadedModel."""

    def __init__(self, servable_def, models):
        self.servable = servable_def
        self.models = models
        for method in servable_def.methods.values():
            self._check_method(method)

    def _check_method(self, method):
        for index, stage in enumerate(method.stages, 1):
            if stage.kind != "model":
                continue
            loaded = self.models[stage.target.key]
            if len(stage.args) != loaded.inputs_count():
                raise RuntimeError(f"Method '{method.name}' stage {index}: The inputs count {len(stage.args)} in "
                                   f"register_method not equal to the count {loaded.inputs_count()} defined in model "
                                   f"'{loaded.key}'")
            if stage.outputs_count != loaded.outputs_count():
                raise RuntimeError(f"Method '{method.name}' stage {index}: The outputs count {stage.outputs_count} "
                                   f"in register_method not equal to the count {loaded.outputs_count()} defined in "
                                   f"model '{loaded.key}'")

    def method_batch_size(self, method, stage):
        """Instances per call of a batch function stage with batch_size=0 (MindSpore Serving's rule)."""
        sizes = [self.models[s.target.key].batch_size for s in method.stages if s.kind == "model"]
        if not sizes:
            return 1
        if all(tag == 0 for tag, _ in stage.args):
            return min(sizes)
        return max(sizes)

    def run(self, method, instances):
        """instances: list of dicts input name → value. Returns, per instance, a dict output name → value or a
        StageFailure."""
        n = len(instances)
        values = [{(0, k): inst[name] for k, name in enumerate(method.input_names)} for inst in instances]
        failed = [None] * n
        previous = getattr(model_mod._CALL_CONTEXT, "models", None)
        model_mod._CALL_CONTEXT.models = self.models
        try:
            for index, stage in enumerate(method.stages, 1):
                alive = [i for i in range(n) if failed[i] is None]
                if not alive:
                    break
                args = [[values[i][ref] for ref in stage.args] for i in alive]
                results = self._run_stage(method, stage, args)
                for i, result in zip(alive, results):
                    if isinstance(result, StageFailure):
                        failed[i] = result
                    else:
                        for k, v in enumerate(result):
                            values[i][(index, k)] = v
        finally:
            model_mod._CALL_CONTEXT.models = previous
        return [failed[i] if failed[i] is not None else
                {name: values[i][ref] for name, ref in zip(method.output_names, method.outputs)} for i in range(n)]

    def _run_stage(self, method, stage, args):
        if stage.kind == "model":
            return self._run_model(stage, args)
        if stage.batch_size is None:
            return [self._call_one(stage, a) for a in args]
        size = stage.batch_size or self.method_batch_size(method, stage)
        results = []
        for start in range(0, len(args), size):
            results.extend(self._call_batch(stage, args[start:start + size]))
        return results

    def _call_one(self, stage, args):
        func = stage.target
        try:
            return _outputs(func(*args), stage.outputs_count, func.__name__)
        except Exception as exc:  # noqa: BLE001 - the user's stage function: the error goes to the client
            return StageFailure(_message(exc))

    def _call_batch(self, stage, chunk):
        func = stage.target
        try:
            iterator = iter(func([tuple(a) for a in chunk]))
        except Exception as exc:  # noqa: BLE001 - the whole call failed: every instance of it fails
            return [StageFailure(_message(exc))] * len(chunk)
        results = []
        for _ in range(len(chunk)):
            try:
                item = next(iterator)
            except StopIteration:
                break
            except Exception as exc:  # noqa: BLE001 - one item failed: that instance only
                results.append(StageFailure(_message(exc)))
                continue
            try:
                results.append(_outputs(item, stage.outputs_count, func.__name__))
            except Exception as exc:  # noqa: BLE001
                results.append(StageFailure(_message(exc)))
        if len(results) < len(chunk):
            text = (f"The number {len(results)} of instances returned by function '{func.__name__}' is not equal to "
                    f"the number {len(chunk)} of instances provided to this function")
            results.extend([StageFailure(text)] * (len(chunk) - len(results)))
        return results

    def _run_model(self, stage, args):
        loaded = self.models[stage.target.key]
        results = [None] * len(args)
        ok, checked = [], []
        for i, a in enumerate(args):
            try:
                checked.append(loaded.check_instance(0, a))
                ok.append(i)
            except InstanceError as exc:
                results[i] = StageFailure(str(exc), StatusCode.INVALID_INPUTS)
        if checked:
            try:
                outputs = loaded.predict(0, checked)
            except Exception as exc:  # noqa: BLE001 - a runtime failure of the model: its instances fail
                outputs = [StageFailure(f"Model '{loaded.key}' failed: {type(exc).__name__}: {exc}")] * len(checked)
            for i, out in zip(ok, outputs):
                results[i] = out
        return results
