"""Mixed-precision training (TrainCfg.optimization_level O2 / O3) with loss scaling, as MindSpore Lite trains.

* Compute: every operator of the training step (forward and backward) receives its float32 arguments as float16
  and computes in float16 (numpy's float16 arithmetic: each operation rounds to half precision); the weights stay
  float32 in the store (the master copy the optimizer updates) and are cast at each use.
* Kept in float32: the loss operators (node names containing a `TrainCfg.loss_name`), and with O2 and
  `mix_precision_cfg.keep_batchnorm_fp32` (the default) BatchNorm, its gradient and its statistics updates;
  O3 runs those in float16 too.
* Loss scaling: the backward pass is seeded with `loss_scale` (the step's `OnesLike(loss)` is replaced by a tensor
  of the scale), so small float16 gradients do not flush to zero; the gradients are then widened to float32 and
  divided by the scale before the optimizer sees them. A step whose gradients overflowed (inf/NaN) is skipped.
  With `dynamic_loss_scale`, an overflow halves the scale and `num_of_not_nan_iter_th` clean steps in a row
  double it.
Activations are float16, so the training arena (arena.py) plans half the bytes for them.
"""
import numpy as np

from ..core.primitive import PRIMITIVES
from . import kernels
from .types import OptimizationLevel

_FP32_BN = ("BatchNorm", "BatchNormGrad", "BatchNormGradGrad")


class MixedPrecision:
    """The kernel policy and loss scale of one training session (None of this at O0)."""

    def __init__(self, cfg, program, step_ops, loss):
        level = cfg.optimization_level
        if level is OptimizationLevel.AUTO:  # a CPU without a device to ask: O2, as MindSpore Lite picks there
            level = OptimizationLevel.O2
        if level not in (OptimizationLevel.O2, OptimizationLevel.O3):
            raise ValueError(f"MixedPrecision: optimization level {level} does not use float16.")
        mp = cfg.mix_precision_cfg
        if not mp.loss_scale > 0:
            raise ValueError(f"MixPrecisionCfg: 'loss_scale' must be > 0, but got {mp.loss_scale!r}.")
        self.level = level
        self.scale = float(mp.loss_scale)
        self.dynamic = bool(mp.dynamic_loss_scale)
        self.threshold = int(mp.num_of_not_nan_iter_th)
        self.clean_steps = 0
        self.skipped = 0
        keep_bn = level is OptimizationLevel.O2 and mp.keep_batchnorm_fp32
        self.fp32_ops = set()
        for op in step_ops:
            if _writes_state(op):  # in-place updates write the float32 store itself, never a float16 copy
                self.fp32_ops.add(id(op))
            elif any(n in (op.name or "") for n in cfg.loss_name):
                self.fp32_ops.add(id(op))
            elif keep_bn and op.type in _FP32_BN:
                self.fp32_ops.add(id(op))
        seeds = [op for op in step_ops if op.type == "OnesLike" and op.inputs == [loss]]
        if not seeds:
            raise ValueError("TrainCfg: mixed precision needs the backward pass's seed (OnesLike of the loss) to apply "
                             "the loss scale; this training graph has none.")
        self.seed_ops = {id(op) for op in seeds}

    def kernel_for(self, op):
        """The kernel of `op` under this policy (Executable's kernel_for)."""
        if id(op) in self.seed_ops:
            return lambda loss: np.full(np.shape(loss), self.scale, np.float16 if self._half(op) else np.float32)
        k = kernels.make(op)
        if id(op) in self.fp32_ops:
            return _cast_args(k, np.float16, np.float32)
        return _cast_args(k, np.float32, np.float16)

    def _half(self, op):
        return id(op) not in self.fp32_ops

    def unscale(self, grads):
        """float32 gradients of the unscaled loss, and whether they are all finite."""
        inv = np.float32(1.0 / self.scale)
        out = [np.multiply(np.asarray(g, np.float32), inv) for g in grads]
        finite = all(np.isfinite(g).all() for g in out)
        return out, finite

    def after_step(self, finite):
        """Update the dynamic loss scale after a step (overflow: halve; `threshold` clean steps: double)."""
        if not finite:
            self.skipped += 1
            self.clean_steps = 0
            if self.dynamic:
                self.scale = max(self.scale / 2.0, 1.0)
            return
        self.clean_steps += 1
        if self.dynamic and self.clean_steps >= self.threshold:
            self.scale *= 2.0
            self.clean_steps = 0


def _writes_state(op):
    cls = PRIMITIVES.get(op.type)
    return cls is not None and cls.side_effect and op.inputs and type(op.inputs[0]) is int


def _cast_args(kernel, src, dst):
    """`kernel` with its `src`-typed array arguments (and those inside sequence arguments) cast to `dst`."""
    src, dst = np.dtype(src), np.dtype(dst)

    def cast(a):
        if type(a) is np.ndarray and a.dtype == src:
            return a.astype(dst)
        if type(a) is list:
            return [cast(v) for v in a]
        return a

    def run(*args):
        return kernel(*[cast(a) for a in args])
    return run
