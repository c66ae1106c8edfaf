"""On-device training: a `.ms` converted with `--trainModel=true` from an exported training step
(`TrainOneStepCell(WithLossCell(net, loss), optimizer)`), built with `train_cfg=TrainCfg()`.

The converted program computes the loss, the gradients and the optimizer update. At build it is split into
* the step: forward + backward, returning the loss and each optimizer's gradient;
* the update: the optimizer operators (and step counters), reading gradients as inputs, writing the weights;
* the evaluation slice: the operators up to the loss function's input (the network output), found as MindSpore
  Lite finds it — the first operator whose node name contains one of `TrainCfg.loss_name` — with BatchNorm
  in inference mode.
Splitting step and update is what gives `get_gradients`/`apply_gradients` and virtual batches (gradients
summed over m steps, then one update with the learning rate divided by m unless one is given). The step runs on a
static arena (arena.py) planned over forward + backward + optimizer; `memory_plan()` reports its peak.
"""
import numpy as np

from ..core.primitive import PRIMITIVES
from . import arena as arena_mod
from . import kernels
from .executor import Executable
from .passes import INFERENCE_PASSES, LAYOUT_PASSES, run_passes
from .passes.dce import eliminate_dead
from .program import Block, Lit, Op
from .resize import rebatch
from .tensor import Tensor
from .types import OptimizationLevel, QuantizationType

LOSS_NAMES = ("loss_fct", "_loss_fn", "SigmoidCrossEntropy")
_GRAD_NAMES = ("gradient", "grad")
_LR_NAMES = ("learning_rate", "lr")


class MixPrecisionCfg:
    def __init__(self):
        self.dynamic_loss_scale = False
        self.loss_scale = 128.0
        self.keep_batchnorm_fp32 = True
        self.num_of_not_nan_iter_th = 1000
        self.is_raw_mix_precision = False


class TrainCfg:
    """TrainCfg(): `loss_name` (substrings naming the loss operators), `optimization_level` (O0 float32; O2 float16
    with BatchNorm and the loss in float32; O3 all float16 but the loss — see amp.py), `mix_precision_cfg`
    (loss scale), `accumulate_gradients`."""

    def __init__(self, loss_name=None, optimization_level=OptimizationLevel.O0, accumulate_gradients=False):
        self.loss_name = list(loss_name or LOSS_NAMES)
        self.optimization_level = optimization_level
        self.mix_precision_cfg = MixPrecisionCfg()
        self.accumulate_gradients = accumulate_gradients


def describe(program):
    """Check that a program is a training step and mark it (the converter's `--trainModel=true`)."""
    if not _optimizer_ops(program.main.ops):
        raise ValueError("converter: --trainModel=true needs an exported training step (TrainOneStepCell with an "
                         "optimizer); this graph updates no weights.")
    program.meta["train"] = True
    return program


def _optimizer_ops(ops):
    found = []
    for op in ops:
        cls = PRIMITIVES.get(op.type)
        if cls is not None and cls.side_effect and any(n in _GRAD_NAMES for n in cls.input_names):
            found.append(op)
    return found


def _input_index(op, names):
    cls = PRIMITIVES[op.type]
    for k, n in enumerate(cls.input_names):
        if n in names:
            return k
    return None


class TrainSession:
    def __init__(self, program, cfg):
        if not isinstance(cfg.optimization_level, OptimizationLevel):
            raise ValueError(f"TrainCfg.optimization_level must be an OptimizationLevel (O0, O2, O3, AUTO), but got "
                             f"{cfg.optimization_level!r}.")
        self.cfg = cfg
        self.amp = None  # amp.MixedPrecision at O2/O3
        self.train_mode = True
        self.virtual = 1
        self.accum = None
        self.accum_count = 0
        self.last_grads = {}
        self.plan = None
        self._prepare(program)

    # ---- structure ----------------------------------------------------------------------------------------
    def _prepare(self, program):
        program = program.copy_structure()
        # the session trains its own copy of the weights: the program it was built from (perhaps building other
        # models) keeps its values, and read-only (file-mapped) arrays become writable
        program.tensors = [_with_data(t, t.data) if t.kind == "param" else t for t in program.tensors]
        opt_ops = _optimizer_ops(program.main.ops)
        if not opt_ops:
            raise ValueError("Model.build_from_file: train_cfg was given, but the model has no optimizer; convert "
                             "the exported training step with --trainModel=true.")
        self.lr_tensors = set()
        for op in opt_ops:
            k = _input_index(op, _LR_NAMES)
            if k is not None and isinstance(op.inputs[k], Lit):
                # a constant learning rate becomes a weight so set_learning_rate can change it
                value = np.asarray(op.inputs[k].value, np.float32)
                op.inputs[k] = program.add_tensor(f"{op.name}/learning_rate", value.shape, value.dtype, "param", value)
            if k is not None:
                self.lr_tensors.add(op.inputs[k])
        self.bn_momentum = _bn_momentum_tensors(program)
        self.program = program
        self.store = [t.data for t in program.tensors]
        t = program.tensors
        self.updates = [op for op in program.main.ops if op in opt_ops or
                        (PRIMITIVES.get(op.type) is not None and PRIMITIVES[op.type].side_effect
                         and "optimizer" in (op.name or "").lower())]
        compute = [op for op in program.main.ops if op not in self.updates]
        self.grad_of = {}  # param tensor id -> gradient tensor id
        for op in opt_ops:
            self.grad_of[op.inputs[0]] = op.inputs[_input_index(op, _GRAD_NAMES)]
        self.loss = program.outputs[0]
        grads = list(dict.fromkeys(self.grad_of.values()))
        self.grads = grads
        step_block = Block(compute, program.inputs, [self.loss] + grads)
        planned = {o for op in compute for o in op.outputs if t[o].kind == "act"}
        self.step_block = step_block
        self.planned = planned
        self.update_block = Block(self.updates, grads, [])
        self.eval_block = self._eval_block(program, compute)
        self.inputs = list(program.inputs)
        self._compile()

    def _eval_block(self, program, compute):
        loss_op = next((op for op in compute if any(n in (op.name or "") for n in self.cfg.loss_name)), None)
        if loss_op is None:
            raise ValueError(f"Model.build_from_file: no operator's node name contains a loss name "
                             f"{self.cfg.loss_name}; set TrainCfg.loss_name to the loss function's cell name.")
        self.logits = loss_op.tensor_inputs()[0]
        ops = []
        for op in compute:
            if op is loss_op:
                break
            cls = PRIMITIVES.get(op.type)
            if cls is not None and cls.side_effect:
                continue  # moving-statistics updates belong to training
            if op.type == "BatchNorm" and op.attrs.get("is_training"):
                op = Op(op.type, dict(op.attrs, is_training=False), op.inputs, op.outputs, op.name)
            ops.append(op)
        needed, kept = {self.logits}, []
        for op in reversed(ops):
            if any(o in needed for o in op.outputs):
                needed.update(op.tensor_inputs())
                kept.append(op)
        kept.reverse()
        self.eval_inputs = [i for i in program.inputs if i in needed]
        return Block(kept, self.eval_inputs, [self.logits])

    def _compile(self):
        if self.cfg.optimization_level is not OptimizationLevel.O0:
            from .amp import MixedPrecision
            scale = self.amp.scale if self.amp is not None else None  # a dynamic scale survives resize
            self.amp = MixedPrecision(self.cfg, self.program, self.step_block.ops, self.loss)
            if scale is not None:
                self.amp.scale = scale
        kernel_for = self.amp.kernel_for if self.amp is not None else kernels.make
        shapes, dtypes = self._infer_shapes(kernel_for)
        sizes = {k: int(np.prod(shapes[k], dtype=np.int64)) * dtypes[k].itemsize
                 for k in self.planned if k in shapes}
        ops = self.step_block.ops + self.updates
        lifetimes = arena_mod.lifetimes_of(ops, set(sizes), set(self.step_block.outputs))
        self.plan = arena_mod.plan_arena({k: sizes[k] for k in lifetimes}, lifetimes)
        buf = np.zeros(self.plan.peak_bytes + arena_mod.ALIGN, np.uint8)
        views = {}
        for k, off in self.plan.offsets.items():
            dt = dtypes[k]
            n = int(np.prod(shapes[k], dtype=np.int64))
            views[k] = np.frombuffer(buf, dtype=dt, count=n, offset=off).reshape(shapes[k])
        self.arena_buffer = buf
        self.step = Executable(self.program, block=self.step_block, store=self.store, arena=views,
                               kernel_for=kernel_for)
        self.update = Executable(self.program, block=self.update_block, store=self.store)
        self.evaluate = Executable(self.program, block=self.eval_block, store=self.store)

    def _infer_shapes(self, kernel_for):
        """Each activation's shape and dtype, from one step on zeros with the optimizer left out (weights
        untouched)."""
        shapes, dtypes = {}, {}

        def recorder(op):
            k = kernel_for(op)

            def run(*args):
                out = k(*args)
                outs = out if (len(op.outputs) > 1 or op.attrs.get("__tuple_out__")) else [out]
                for tid, arr in zip(op.outputs, outs):
                    shapes[tid] = tuple(np.shape(arr))
                    dtypes[tid] = np.asarray(arr).dtype
                return out
            return run
        t = self.program.tensors
        probe = Executable(self.program, block=self.step_block, store=self.store, kernel_for=recorder)
        zeros = [np.zeros(t[i].shape, t[i].dtype) for i in self.inputs]
        # the step writes state in place (BatchNorm's moving averages): the probe must leave it as it found it
        written = {op.inputs[0] for op in self.step_block.ops
                   if PRIMITIVES.get(op.type) is not None and PRIMITIVES[op.type].side_effect
                   and op.inputs and type(op.inputs[0]) is int and self.store[op.inputs[0]] is not None}
        saved = {k: np.array(self.store[k]) for k in written}
        try:
            probe.run(zeros)
        finally:
            for k, value in saved.items():
                self.store[k][...] = value
        return shapes, dtypes

    # ---- running ------------------------------------------------------------------------------------------
    def run_step(self, arrays):
        loss, *grads = self.step.run(arrays)
        loss = np.array(loss)
        if self.amp is not None:  # float16 gradients of the scaled loss → float32 gradients of the loss
            grads, finite = self.amp.unscale(grads)
            self.amp.after_step(finite)
            if not finite:  # overflow: no update, nothing accumulated (MindSpore's loss-scale skip)
                return loss
        else:
            grads = [np.array(g) for g in grads]
        self.last_grads = dict(zip(self.grads, grads))
        if self.virtual > 1:
            self.accum = grads if self.accum is None else [a + g for a, g in zip(self.accum, grads)]
            self.accum_count += 1
            if self.accum_count == self.virtual:
                self.update.run(self.accum)
                self.accum, self.accum_count = None, 0
        else:
            self.update.run(grads)
        return loss

    def predict(self, arrays):
        if self.train_mode:
            return [self.run_step(arrays)]
        if len(arrays) == len(self.eval_inputs) != len(self.inputs):
            return self.evaluate.run(list(arrays))
        ins = dict(zip(self.inputs, arrays))
        return self.evaluate.run([ins[i] for i in self.eval_inputs])

    def apply(self, grads_by_param):
        values = []
        for g in self.grads:
            params = [p for p, gg in self.grad_of.items() if gg == g]
            values.append(grads_by_param.get(params[0], self.last_grads.get(g)))
        if any(v is None for v in values):
            raise ValueError("Model.apply_gradients: a gradient is missing and none was computed yet.")
        self.update.run(values)

    def set_weight(self, tid, arr):
        self.store[tid][...] = arr

    def resize(self, shapes):
        program = rebatch(self.program, shapes)
        self.program = program
        self.store = [t.data for t in program.tensors]
        self._prepare_again()

    def _prepare_again(self):
        lr = self.learning_rate()
        t = self.program.tensors
        defaults = {t[k].name: v for k, v in self.bn_momentum.items()}  # the layers' own, not the current values
        self._prepare(self.program)
        t = self.program.tensors
        self.bn_momentum = {k: defaults.get(t[k].name, v) for k, v in self.bn_momentum.items()}
        if lr:
            self.set_learning_rate(lr)

    def learning_rate(self):
        if not self.lr_tensors:
            return 0.0
        return float(np.asarray(self.store[next(iter(sorted(self.lr_tensors)))]).reshape(-1)[0])

    def set_learning_rate(self, lr):
        for k in self.lr_tensors:
            self.store[k][...] = lr

    def set_bn_momentum(self, momentum):
        """Weight of the batch statistics in every BatchNorm's moving averages; None restores each one's own."""
        for k, default in self.bn_momentum.items():
            self.store[k][...] = default if momentum is None else momentum


def _bn_momentum_tensors(program):
    """{tensor id: default} of the factors that weight the batch statistics in BatchNorm's moving-average update.

    A training-mode BatchNorm's statistics are updated as `AssignSub(moving, Mul(Sub(moving, batch), factor))`
    (nn.BatchNorm2d exports it so; factor = the primitive's `momentum` = 1 − the layer's momentum). Each factor
    becomes a weight so setup_virtual_batch can change it without rebuilding the step."""
    ops = program.main.ops
    producers = {o: op for op in ops for o in op.outputs}
    t = program.tensors
    stats = {i for op in ops if op.type == "BatchNorm" and op.attrs.get("is_training")
             for i in op.inputs[3:5] if type(i) is int}
    made, found = {}, {}
    for op in ops:
        if op.type != "AssignSub" or op.inputs[0] not in stats:
            continue
        mul = producers.get(op.inputs[1])
        if mul is None or mul.type != "Mul":
            continue
        for k, item in enumerate(mul.inputs):
            if type(item) is int and t[item].kind == "param" and t[item].name.endswith("/bn_momentum"):
                found[item] = float(np.asarray(t[item].data).reshape(-1)[0])
                continue
            if isinstance(item, Lit) and isinstance(item.value, (int, float)) and not isinstance(item.value, bool):
                value, key = float(item.value), ("lit", float(item.value))
            elif type(item) is int and t[item].kind == "const" and t[item].data is not None \
                    and np.size(t[item].data) == 1:
                value, key = float(np.asarray(t[item].data).reshape(-1)[0]), item
            else:
                continue
            if key not in made:
                data = np.asarray(value, np.float32 if not isinstance(key, int) else t[key].data.dtype)
                made[key] = program.add_tensor(f"{op.name}/bn_momentum", data.shape, data.dtype, "param",
                                               np.array(data))
                found[made[key]] = value
            mul.inputs[k] = made[key]
    return found


class TrainingMixin:
    """The training methods of Model (C++ Model / Java Model names in snake_case)."""

    def _build_training(self, program, train_cfg):
        if not isinstance(train_cfg, TrainCfg):
            raise TypeError(f"build_from_file: 'train_cfg' must be a TrainCfg, but got {type(train_cfg).__name__}.")
        if not program.meta.get("train"):
            raise ValueError("build_from_file: train_cfg was given, but the model was not converted for training "
                             "(converter_lite --trainModel=true).")
        self._train = TrainSession(program, train_cfg)
        self._program, self._exe = self._train.program, None
        self._refresh_training_io()

    def _refresh_training_io(self):
        tr = self._train
        t = tr.program.tensors
        self._inputs = [Tensor(np.zeros(t[i].shape, t[i].dtype), name=t[i].name) for i in tr.inputs]
        out = tr.loss if tr.train_mode else tr.logits
        self._outputs = [Tensor(np.zeros(t[out].shape, t[out].dtype), name=t[out].name)]

    def _need_train(self, where):
        if self._train is None:
            raise RuntimeError(f"Model.{where}: the model was not built for training (pass train_cfg=TrainCfg() "
                               "to build_from_file with a --trainModel=true .ms).")
        return self._train

    def _inference_view(self, program):
        """A training program built without train_cfg runs its evaluation slice (the network output)."""
        session = TrainSession(program, TrainCfg())
        p = session.program.copy_structure()
        p.main = session.eval_block
        p.meta = {k: v for k, v in p.meta.items() if k != "train"}
        return run_passes(eliminate_dead(p), INFERENCE_PASSES + LAYOUT_PASSES)

    def set_train(self, train=True):
        tr = self._need_train("set_train")
        tr.train_mode = bool(train)
        self._refresh_training_io()

    def get_train_mode(self):
        return self._need_train("get_train_mode").train_mode

    def run_step(self, inputs=None):
        """One training step on `inputs` (default: the Tensors of get_inputs()); returns the loss Tensor."""
        tr = self._need_train("run_step")
        arrays = self._input_arrays(inputs if inputs is not None else self._inputs, "run_step")
        with self._threads:
            loss = tr.run_step(arrays)
        return self._wrap_outputs([loss], None)[0]

    def get_gradients(self):
        tr = self._need_train("get_gradients")
        t = tr.program.tensors
        return [Tensor(np.array(tr.last_grads[g]), name=t[p].name) for p, g in tr.grad_of.items()
                if g in tr.last_grads]

    def apply_gradients(self, gradients):
        tr = self._need_train("apply_gradients")
        names = {tr.program.tensors[p].name: p for p in tr.grad_of}
        given = {}
        for g in gradients:
            p = names.get(g.name)
            if p is None:
                raise ValueError(f"Model.apply_gradients: {g.name!r} is no trainable weight ({sorted(names)}).")
            if tuple(g.shape) != tr.program.tensors[p].shape:
                raise ValueError(f"Model.apply_gradients: gradient {g.name!r} has shape {g.shape}, the weight "
                                 f"{list(tr.program.tensors[p].shape)}.")
            given[p] = g.array().astype(tr.program.tensors[p].dtype, copy=False)
        tr.apply(given)

    def get_trainable_params(self):
        tr = self._need_train("get_trainable_params")
        return [Tensor(np.array(tr.store[p]), name=tr.program.tensors[p].name) for p in tr.grad_of]

    def get_feature_maps(self):
        """All weights (trainable and optimizer state) as named Tensors (copies)."""
        tr = self._need_train("get_feature_maps")
        return [Tensor(np.array(tr.store[k]), name=s.name) for k, s in enumerate(tr.program.tensors)
                if s.kind == "param"]

    def update_feature_maps(self, new_weights):
        self.update_weights(new_weights)

    def get_learning_rate(self):
        return self._need_train("get_learning_rate").learning_rate()

    def set_learning_rate(self, lr):
        tr = self._need_train("set_learning_rate")
        if not isinstance(lr, (int, float)) or lr < 0:
            raise ValueError(f"Model.set_learning_rate: learning rate should more than 0, but got {lr!r}.")
        tr.set_learning_rate(float(lr))

    def setup_virtual_batch(self, virtual_batch_multiplier, lr=-1.0, momentum=-1.0):
        """Accumulate gradients over `virtual_batch_multiplier` steps before each update; the learning rate
        becomes `lr`, or the current one divided by the multiplier when lr < 0. `momentum` >= 0 becomes the weight
        of the batch statistics in every training BatchNorm's moving averages (the BatchNorm primitive's
        `momentum`: 1 − nn.BatchNorm2d's), applied at each (small) step; < 0 keeps each layer's own.
        m <= 1 restores normal steps, the learning rate and the layers' momentum."""
        tr = self._need_train("setup_virtual_batch")
        m = int(virtual_batch_multiplier)
        if momentum > 1:
            raise ValueError(f"Model.setup_virtual_batch: 'momentum' must be in [0, 1] (or < 0 to keep "
                             f"BatchNorm's own), but got {momentum!r}.")
        if tr.virtual > 1 and getattr(tr, "_lr_before_virtual", None) is not None:
            tr.set_learning_rate(tr._lr_before_virtual)
        tr.set_bn_momentum(None)  # back to each BatchNorm's own momentum
        if m <= 1:
            tr.virtual, tr.accum, tr.accum_count = 1, None, 0
            return
        tr._lr_before_virtual = tr.learning_rate()
        tr.virtual, tr.accum, tr.accum_count = m, None, 0
        tr.set_learning_rate(lr if lr >= 0 else tr._lr_before_virtual / m)
        if momentum >= 0:
            tr.set_bn_momentum(float(momentum))

    def memory_plan(self):
        """The training step's static arena plan (ArenaPlan: peak_bytes, live_bytes, total_bytes)."""
        return self._need_train("memory_plan").plan

    def train(self, epochs, train_dataset, callbacks=None):
        """Run `epochs` passes over `train_dataset` (an iterable of (inputs…) tuples of numpy arrays, re-iterable
        per epoch) with `callbacks` (callbacks.py)."""
        from .callbacks import run_loop
        tr = self._need_train("train")
        tr.train_mode = True
        self._refresh_training_io()
        return run_loop(self, epochs, train_dataset, callbacks or [], train=True)

    def evaluate(self, dataset, callbacks=None):
        """Evaluation mode over `dataset`; returns the callbacks' metrics (e.g. AccuracyMetrics)."""
        from .callbacks import run_loop
        tr = self._need_train("evaluate")
        was = tr.train_mode
        tr.train_mode = False
        self._refresh_training_io()
        try:
            return run_loop(self, 1, dataset, callbacks or [], train=False)
        finally:
            tr.train_mode = was
            self._refresh_training_io()

    def export(self, model_file, quantization_type=QuantizationType.NO_QUANT, export_inference_only=True,
               output_tensor_name=None):
        """Write the model as a `.ms`: the inference model (network output, weights as trained; fused and
        folded), or with export_inference_only=False the whole training model, to train further."""
        from . import msfile
        tr = self._need_train("export")
        if not isinstance(quantization_type, QuantizationType):
            raise TypeError(f"Model.export: 'quantization_type' must be a QuantizationType, but got "
                            f"{quantization_type!r}.")
        p = tr.program.copy_structure()
        p.tensors = [_with_data(spec, tr.store[k]) for k, spec in enumerate(p.tensors)]
        if export_inference_only:
            p.main = Block(tr.eval_block.ops, tr.eval_block.inputs, tr.eval_block.outputs)
            p.meta = {k: v for k, v in p.meta.items() if k != "train"}
            p = run_passes(eliminate_dead(p), INFERENCE_PASSES)
            if quantization_type is QuantizationType.WEIGHT_QUANT:
                from .quant_passes import quantize_program
                p = quantize_program(p, {"common_quant_param": {"quant_type": "WEIGHT_QUANT", "bit_num": "8"}})
            elif quantization_type is QuantizationType.FULL_QUANT:
                raise ValueError("Model.export: FULL_QUANT needs calibration data; export without quantization "
                                 "and convert with a [full_quant_param] config.")
            p = run_passes(p, LAYOUT_PASSES)
        elif quantization_type is not QuantizationType.NO_QUANT:
            raise ValueError("Model.export: a training model (export_inference_only=False) cannot be quantized.")
        path = model_file if str(model_file).endswith(".ms") else f"{model_file}.ms"
        msfile.write(p, path)
        return path


def _with_data(spec, data):
    from .program import TensorSpec
    if spec.data is None:
        return spec
    return TensorSpec(spec.name, spec.shape, spec.dtype, spec.kind, np.array(data), spec.quant)

