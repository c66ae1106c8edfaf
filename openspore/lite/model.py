"""`Model`: build a model from a `.ms` (MINDIR_LITE) or `.mindir` (MINDIR) file and run it (mindspore_lite.Model).

>>> import numpy as np
>>> from openspore import lite as mslite
>>> model = mslite.Model()
>>> model.build_from_file("lenet.ms", mslite.ModelType.MINDIR_LITE, mslite.Context())   # doctest: +SKIP
>>> inputs = model.get_inputs()                                                          # doctest: +SKIP
>>> inputs[0].set_data_from_numpy(np.zeros((1, 1, 32, 32), np.float32))                 # doctest: +SKIP
>>> logits = model.predict(inputs)[0].get_data_to_numpy()                                # doctest: +SKIP

A `.ms` file is executed as written (the converter already optimised it); a `.mindir` file is converted in
memory first (the same passes `converter_lite` runs). Training models (converted with `--trainModel=true`) are
built with `train_cfg=TrainCfg(...)`; see `training.py` for the training methods.
"""
import configparser
import os
import time

import numpy as np

from . import msfile
from .context import Context
from .executor import Executable
from .resize import rebatch
from .tensor import Tensor
from .threads import BlasThreads
from .training import TrainingMixin
from .types import ModelType
from .workshare import Chooser, WorkShare, scope


class Model(TrainingMixin):
    def __init__(self):
        self._program = None
        self._exe = None
        self._context = None
        self._inputs = []
        self._outputs = []
        self._config = {}
        self._train = None  # the training session (training.py) when built with a TrainCfg
        self._threads = BlasThreads(0)  # this model's BLAS thread count, applied around each of its calls
        self._share = None  # thread_num >= 2 at inference: the WorkShare its convolutions run on

    # ---- building ------------------------------------------------------------------------------------------
    def build_from_file(self, model_path, model_type, context=None, config_path="", config_dict=None,
                        train_cfg=None):
        """Load `model_path` (a ModelType.MINDIR_LITE `.ms` or ModelType.MINDIR `.mindir`) and prepare it."""
        if not isinstance(model_path, (str, os.PathLike)):
            raise TypeError(f"build_from_file: 'model_path' must be a str, but got {type(model_path).__name__}.")
        if not isinstance(model_type, ModelType):
            raise TypeError(f"build_from_file: 'model_type' must be a ModelType, but got {model_type!r}.")
        if context is not None and not isinstance(context, Context):
            raise TypeError(f"build_from_file: 'context' must be a Context, but got {type(context).__name__}.")
        path = os.fspath(model_path)
        if not os.path.isfile(path):
            raise FileNotFoundError(f"build_from_file: the model file {path!r} does not exist.")
        self._config = _read_config(config_path, config_dict)
        if model_type is ModelType.MINDIR_LITE:
            program = msfile.read(path)
        else:
            from .converter import convert_program
            program = convert_program(path, "MINDIR", train=train_cfg is not None)
        self._build(program, context or Context(), train_cfg)

    def build_from_program(self, program, context=None, train_cfg=None):
        """Build from a Program already in memory (what the converter produces)."""
        self._build(program, context or Context(), train_cfg)

    def _build(self, program, context, train_cfg):
        n = context.cpu.thread_num
        self._threads = BlasThreads(n)
        self._share = None
        self._context = context
        if train_cfg is not None:
            self._build_training(program, train_cfg)
            return
        if program.meta.get("train"):
            program = self._inference_view(program)
        if n >= 2:
            # inference: BLAS single-threaded, and where a convolution can use them, n threads of lite's own
            # sharing its row chunks, or BLAS on n threads inside each convolution GEMM of at least 512 (or 64)
            # output pixels only (kernels/nhwc.py); each call runs the way its recent calls measured fastest
            # (workshare.py says why). A model with no such convolution (LeNet: its convolutions carry their
            # pools) runs serially, as at one thread, without the chooser's bookkeeping.
            self._threads = BlasThreads(1)
            if any(_splittable(op) for op in program.main.all_ops()):
                self._share = WorkShare.of(n)
                self._ways = ((None,), (self._share,), (None, (n, 512)), (None, (n, 64)))  # scope() arguments
                self._chooser = Chooser(ways=len(self._ways))
        self._set_program(program)

    def _set_program(self, program):
        self._program = program
        self._exe = Executable(program)
        t = program.tensors
        self._inputs = [Tensor(np.zeros(_concrete(t[i].shape), t[i].dtype), name=t[i].name) for i in program.inputs]
        self._outputs = [Tensor(np.zeros(_concrete(t[i].shape), t[i].dtype), name=t[i].name)
                         for i in program.outputs]

    def _check_built(self, where):
        if self._exe is None and self._train is None:
            raise RuntimeError(f"Model.{where}: the model is not built; call build_from_file first.")

    # ---- inference -----------------------------------------------------------------------------------------
    def get_inputs(self):
        self._check_built("get_inputs")
        return list(self._inputs)

    def get_outputs(self):
        self._check_built("get_outputs")
        return list(self._outputs)

    def get_input_by_tensor_name(self, tensor_name):
        return _by_name(self.get_inputs(), tensor_name, "input")

    def get_output_by_tensor_name(self, tensor_name):
        return _by_name(self.get_outputs(), tensor_name, "output")

    def predict(self, inputs, outputs=None):
        """Run the model on `inputs` (a list of Tensor, in get_inputs() order); returns the output Tensors."""
        self._check_built("predict")
        arrays = self._input_arrays(inputs, "predict")
        run = self._train.predict if self._train is not None else self._exe.run
        if self._share is not None:
            way = self._chooser.pick()
            start = time.perf_counter()
            with self._threads, scope(*self._ways[way]):
                results = run(arrays)
            self._chooser.record(way, time.perf_counter() - start)
        elif self._threads.n:
            threads = self._threads
            changed = threads.enter()
            try:
                results = run(arrays)
            finally:
                if changed:
                    threads.restore(changed)
        else:
            results = run(arrays)
        return self._wrap_outputs(results, outputs)

    def _input_arrays(self, inputs, where):
        if not isinstance(inputs, (list, tuple)):
            raise TypeError(f"Model.{where}: 'inputs' must be a list of Tensor, but got {type(inputs).__name__}.")
        expected = self._inputs
        if self._train is not None and not self._train.train_mode and len(inputs) != len(expected):
            # evaluation needs only the network's inputs (not the labels)
            positions = [self._train.inputs.index(i) for i in self._train.eval_inputs]
            expected = [expected[k] for k in positions]
        if len(inputs) != len(expected):
            raise ValueError(f"Model.{where}: the model takes {len(expected)} inputs "
                             f"({[t.name for t in expected]}), but {len(inputs)} were given.")
        arrays = []
        for given, want in zip(inputs, expected):
            arr = given._data if type(given) is Tensor else given
            ref = want._data
            # the per-call fast path: one identity and one tuple comparison per input
            if type(arr) is not np.ndarray or arr.dtype is not ref.dtype or arr.shape != ref.shape:
                arr = self._checked_input(len(arrays), given, want, where)
            arrays.append(arr)
        return arrays

    def _checked_input(self, k, given, want, where):
        arr = given.array() if isinstance(given, Tensor) else given
        if not isinstance(arr, np.ndarray):
            raise TypeError(f"Model.{where}: input {k} must be a Tensor, but got {type(given).__name__}.")
        if arr.dtype != want.array().dtype:
            raise TypeError(f"Model.{where}: input {k} ('{want.name}') must be {want.dtype.name}, but got "
                            f"{arr.dtype}.")
        if tuple(arr.shape) != tuple(want.shape):
            raise ValueError(f"Model.{where}: input {k} ('{want.name}') must have shape {want.shape}, but got "
                             f"{list(arr.shape)}; call Model.resize for other shapes.")
        return arr

    def _wrap_outputs(self, results, outputs):
        names = self._outputs
        if outputs is None and len(results) == len(names):  # the per-call case, in one loop
            wrapped = []
            wrap = Tensor._wrap
            for t, arr in zip(names, results):
                if type(arr) is not np.ndarray:
                    arr = np.asarray(arr)
                t._data = arr
                wrapped.append(wrap(arr, t.name))
            return wrapped
        wrapped = []
        for k, arr in enumerate(results):
            if type(arr) is not np.ndarray:
                arr = np.asarray(arr)
            if outputs is not None and k < len(outputs) and isinstance(outputs[k], Tensor):
                outputs[k]._data = arr
                wrapped.append(outputs[k])
            else:
                wrapped.append(Tensor._wrap(arr, names[k].name if k < len(names) else f"output{k}"))
        for t, w in zip(names, wrapped):
            t._data = w._data
        return wrapped

    def resize(self, inputs, dims):
        """Change the input shapes to `dims` (one list per input). Shape constants whose leading entry is the
        old batch size follow a new batch size; the model is run once on zeros to check the new shapes."""
        self._check_built("resize")
        if not isinstance(dims, (list, tuple)) or len(dims) != len(self._inputs):
            raise ValueError(f"Model.resize: 'dims' must hold one shape per input ({len(self._inputs)}), but got "
                             f"{dims!r}.")
        if self._train is not None:
            self._train.resize([tuple(int(d) for d in s) for s in dims])
            self._refresh_training_io()
            return
        program = rebatch(self._program, [tuple(int(d) for d in s) for s in dims])
        exe = Executable(program)
        zeros = [np.zeros(program.tensors[i].shape, program.tensors[i].dtype) for i in program.inputs]
        try:
            results = exe.run(zeros)
        except Exception as exc:
            raise ValueError(f"Model.resize: the model cannot run with input shapes {dims}: {exc}") from exc
        self._set_program(program)
        for t, arr in zip(self._outputs, results):
            t._data = np.zeros(np.shape(arr), np.asarray(arr).dtype)
        for t, given in zip(inputs or (), self._inputs):
            if isinstance(t, Tensor):
                t._data = np.zeros(given.shape, given.array().dtype)

    def update_weights(self, weights):
        """Replace weights by name: `weights` is a list of Tensor (or a list of such lists), each named after a
        weight of the model and of its shape and dtype."""
        self._check_built("update_weights")
        flat = [w for group in weights for w in (group if isinstance(group, (list, tuple)) else [group])]
        store = self._weight_store()
        for w in flat:
            if not isinstance(w, Tensor):
                raise TypeError(f"Model.update_weights: expected Tensor items, but got {type(w).__name__}.")
            tid = store.get(w.name)
            if tid is None:
                raise ValueError(f"Model.update_weights: the model has no weight named {w.name!r} (weights: "
                                 f"{sorted(store)[:20]}...); weights folded or fused by the converter carry new "
                                 "names.")
            self._replace_weight(tid, w.array())

    def _weight_store(self):
        program = self._train.program if self._train is not None else self._program
        return {t.name: i for i, t in enumerate(program.tensors) if t.kind == "param"}

    def _replace_weight(self, tid, arr):
        program = self._train.program if self._train is not None else self._program
        spec = program.tensors[tid]
        if tuple(arr.shape) != spec.shape or str(arr.dtype) != spec.dtype:
            raise ValueError(f"Model.update_weights: weight {spec.name!r} is {spec.dtype}{list(spec.shape)}, but "
                             f"the new value is {arr.dtype}{list(arr.shape)}.")
        if self._train is not None:
            self._train.set_weight(tid, arr)
        else:
            self._exe.store[tid] = np.array(arr, copy=True)

    def get_weights(self):
        """The model's weights as named Tensors (copies)."""
        self._check_built("get_weights")
        store = self._train.store if self._train is not None else self._exe.store
        return [Tensor(np.array(store[i]), name=name) for name, i in self._weight_store().items()]


def _splittable(op):
    """Whether a convolution of `op` can run another way than serially (kernels/nhwc.py: a channels-last group-1
    convolution without a fused pool)."""
    a = op.attrs
    return op.type == "LiteConv2D" and a.get("layout") == "NHWC" and not a.get("pool") and a.get("group", 1) == 1


def _by_name(tensors, name, what):
    for t in tensors:
        if t.name == name:
            return t
    raise ValueError(f"the model has no {what} tensor named {name!r} ({[t.name for t in tensors]}).")


def _concrete(shape):
    return tuple(max(int(d), 1) if int(d) < 0 else int(d) for d in shape)


def _read_config(config_path, config_dict):
    config = {}
    if config_path:
        if not os.path.isfile(config_path):
            raise FileNotFoundError(f"build_from_file: the config file {config_path!r} does not exist.")
        parser = configparser.ConfigParser()
        parser.optionxform = str
        parser.read(config_path)
        config = {s: dict(parser[s]) for s in parser.sections()}
    for section, items in (config_dict or {}).items():
        config.setdefault(section, {}).update(items)
    return config
