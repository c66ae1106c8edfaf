"""Primitives: ForeachApplyMomentum and ForeachAdam — one optimizer step over many parameters in one call
(and ForeachAdamOnePass, the graph-kernel fusion form of ForeachAdam).

nn.Momentum and nn.Adam call these (in PyNative and captured graphs alike) where MindSpore calls ApplyMomentum /
Adam once per parameter; export writes MindSpore's per-parameter form (`export_decomposition`). Each is the per-parameter primitive applied to every element of its tuple inputs,
with the same arithmetic: the numpy kernels loop over the per-parameter kernel, the torch kernels run torch's
multi-tensor (`_foreach_*`) versions of the same elementwise operations, so the bits match. One bind and a handful
of multi-tensor kernels replace 53 binds and ~300 kernel launches per step for the benchmark's GPT.
"""
import operator

import numpy as np

from ...core.primitive import AbstractTensor, Primitive, Sample, register
from ._util import check_dtype, check_tensor, rand_float, rand_positive
from ._update_util import momentum_one_pass, t_num
from .side_effect import Adam, ApplyMomentum, _check_like, _check_scalar, _NONDIFF_WRITE


def _check_group(op, names, groups):
    """Tuple inputs: tuples of tensors of one length, element i of each shaped and typed like variables[i]."""
    count = None
    for name, group in zip(names, groups):
        if not isinstance(group, (tuple, list)) or not group:
            raise TypeError(f"For '{op}', '{name}' must be a non-empty tuple of Tensors, "
                            f"but got {type(group).__name__}.")
        if count is None:
            count = len(group)
        elif len(group) != count:
            raise ValueError(f"For '{op}', '{name}' has {len(group)} Tensors but '{names[0]}' has {count}.")
    for i, tensors in enumerate(zip(*groups)):
        check_tensor(op, f"{names[0]}[{i}]", tensors[0])
        check_dtype(op, f"{names[0]}[{i}]", tensors[0], ("float",))
        _check_like(op, [f"{n}[{i}]" for n in names], *tensors)


def _like(t):
    return AbstractTensor(tuple(t.shape), t.dtype)


def _plain_numbers(torch, *values):
    """The hyper-parameters as Python numbers, or None when one is a device tensor (kept on the GPU)."""
    out = []
    for v in values:
        if isinstance(v, torch.Tensor):
            if v.is_cuda:
                return None
            v = v.item()
        out.append(v)
    return out


class _Foreach(Primitive):
    side_effect = True
    differentiable = False
    nondiff_reason = _NONDIFF_WRITE
    single = None  # the per-parameter primitive class

    def _single(self):
        return self.single(**self.attrs)


@register
class ForeachApplyMomentum(_Foreach):
    """ForeachApplyMomentum(use_nesterov=False, use_locking=False, gradient_scale=1.0)(variables, accumulations,
    learning_rate, gradients, momentum): ApplyMomentum on each (variable, accumulation, gradient); the learning
    rate and momentum are shared. Updates in place; returns the variables."""
    attr_defaults = dict(ApplyMomentum.attr_defaults)
    input_names = ("variables", "accumulations", "learning_rate", "gradients", "momentum")
    single = ApplyMomentum

    def export_decomposition(self, b, variables, accums, lr, grads, momentum):
        """MindSpore's optimizer structure: one ApplyMomentum per parameter."""
        return tuple(b.call("ApplyMomentum", v, a, lr, g, momentum, **self.attrs)
                     for v, a, g in zip(variables, accums, grads))

    def infer(self, variables, accums, lr, grads, momentum):
        _check_group(self.name, ("variables", "accumulations", "gradients"), (variables, accums, grads))
        _check_scalar(self.name, "learning_rate", lr)
        _check_scalar(self.name, "momentum", momentum)
        return tuple(_like(v) for v in variables)

    def numpy(self, np, variables, accums, lr, grads, momentum):
        one = self._single()
        return tuple(one.numpy(np, v, a, lr, g, momentum) for v, a, g in zip(variables, accums, grads))

    def torch(self, torch, variables, accums, lr, grads, momentum):
        numbers = _plain_numbers(torch, lr, momentum)
        grads = list(grads)
        if self.gradient_scale != 1.0:
            grads = torch._foreach_mul(grads, self.gradient_scale)
        if numbers is None:  # device scalars stay on the GPU: the per-parameter kernel's `add_(x * -lr)` form
            lr, momentum = t_num(torch, lr, variables[0]), t_num(torch, momentum, variables[0])
            torch._foreach_mul_(accums, momentum)
            torch._foreach_add_(accums, grads)
            if self.use_nesterov:
                torch._foreach_add_(variables, torch._foreach_mul(grads, -lr))
                torch._foreach_add_(variables, torch._foreach_mul(accums, -lr * momentum))
            else:
                torch._foreach_add_(variables, torch._foreach_mul(accums, -lr))
            return tuple(variables)
        lr, momentum = numbers
        if not self.use_nesterov and momentum_one_pass(torch, variables, accums, grads, lr, momentum):
            return tuple(variables)  # one pass over memory instead of the three below (_update_util.py)
        torch._foreach_mul_(accums, momentum)
        torch._foreach_add_(accums, grads)
        if self.use_nesterov:
            torch._foreach_add_(variables, grads, alpha=-lr)
            torch._foreach_add_(variables, accums, alpha=-lr * momentum)
        else:
            torch._foreach_add_(variables, accums, alpha=-lr)
        return tuple(variables)

    @classmethod
    def samples(cls, rng):
        shapes = ((3, 4), (5,))
        for nesterov in (False, True):
            yield Sample(tuple(rand_float(rng, s) for s in shapes), tuple(rand_float(rng, s) for s in shapes),
                         np.array(0.1, np.float32), tuple(rand_float(rng, s) for s in shapes),
                         np.array(0.9, np.float32), attrs={"use_nesterov": nesterov}, grad=())
        yield Sample(tuple(rand_float(rng, s) for s in shapes), tuple(rand_float(rng, s) for s in shapes), 0.05,
                     tuple(rand_float(rng, s) for s in shapes), 0.8, attrs={"gradient_scale": 0.5}, grad=(),
                     name="python-scalars")


@register
class ForeachAdam(_Foreach):
    """ForeachAdam(use_locking=False, use_nesterov=False)(variables, ms, vs, beta1_power, beta2_power, lr, beta1,
    beta2, epsilon, gradients): Adam on each (variable, m, v, gradient) with shared hyper-parameters. Updates in
    place; returns the variables."""
    attr_defaults = dict(Adam.attr_defaults)
    input_names = ("variables", "ms", "vs", "beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon",
                   "gradients")
    single = Adam

    def export_decomposition(self, b, variables, ms, vs, b1p, b2p, lr, b1, b2, eps, grads):
        """MindSpore's optimizer structure: one Adam per parameter (each returns (variable, m, v))."""
        return tuple(b.get_item(b.call("Adam", var, m, v, b1p, b2p, lr, b1, b2, eps, g, **self.attrs), 0)
                     for var, m, v, g in zip(variables, ms, vs, grads))

    def infer(self, variables, ms, vs, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grads):
        _check_group(self.name, ("variables", "ms", "vs", "gradients"), (variables, ms, vs, grads))
        for name, s in zip(self.input_names[3:9], (beta1_power, beta2_power, lr, beta1, beta2, epsilon)):
            _check_scalar(self.name, name, s)
        return tuple(_like(v) for v in variables)

    def numpy(self, np, variables, ms, vs, b1p, b2p, lr, b1, b2, eps, grads):
        one = self._single()
        return tuple(one.numpy(np, var, m, v, b1p, b2p, lr, b1, b2, eps, g)[0]
                     for var, m, v, g in zip(variables, ms, vs, grads))

    def torch(self, torch, variables, ms, vs, b1p, b2p, lr, b1, b2, eps, grads):
        constants = _plain_numbers(torch, b1, b2, eps)
        if constants is None or self.use_nesterov:
            one = self._single()
            return tuple(one.torch(torch, var, m, v, b1p, b2p, lr, b1, b2, eps, g)[0]
                         for var, m, v, g in zip(variables, ms, vs, grads))
        b1, b2, eps = constants
        numbers = _plain_numbers(torch, b1p, b2p, lr)
        b1p, b2p, lr = numbers if numbers is not None else (t_num(torch, s, variables[0]) for s in (b1p, b2p, lr))
        # the per-parameter kernel's operations, each over all parameters at once (same order, same rounding)
        torch._foreach_lerp_(ms, grads, 1 - b1)
        torch._foreach_lerp_(vs, torch._foreach_mul(grads, grads), 1 - b2)
        step = lr * (1 - b2p) ** 0.5 / (1 - b1p)
        denominators = torch._foreach_sqrt(vs)
        torch._foreach_add_(denominators, eps)
        if numbers is None:  # a device step size: the per-parameter kernel's `add_(m / d * -step)` form
            torch._foreach_add_(variables, torch._foreach_mul(torch._foreach_div(ms, denominators), -step))
        else:
            torch._foreach_addcdiv_(variables, ms, denominators, -step)
        return tuple(variables)

    @classmethod
    def samples(cls, rng):
        shapes = ((3, 4), (4,))
        for nesterov in (False, True):
            yield Sample(tuple(rand_float(rng, s) for s in shapes), tuple(rand_float(rng, s) for s in shapes),
                         tuple(rand_positive(rng, s, 0.1, 1.0) for s in shapes),
                         np.array(0.9 ** 3, np.float32), np.array(0.999 ** 3, np.float32), np.array(0.01, np.float32),
                         np.array(0.9, np.float32), np.array(0.999, np.float32), np.array(1e-8, np.float32),
                         tuple(rand_float(rng, s) for s in shapes), attrs={"use_nesterov": nesterov}, grad=())


@register
class ForeachAdamOnePass(ForeachAdam):
    """ForeachAdamOnePass(use_locking=False, use_nesterov=False)(...): ForeachAdam's inputs and result, updating
    each (variable, m, v) in ONE pass over memory with torch's fused Adam CPU kernel. Graph-kernel fusion puts it
    in place of ForeachAdam (compiler/passes/graph_kernel_optimizer.py); nothing else emits it.

    ForeachAdam's multi-tensor form reads and writes every parameter's arrays in seven passes (two lerps, a
    square, a square root, an add, an addcdiv); the fused kernel does it in one, 3.3x less CPU time on the
    benchmark GPT's 0.93M parameters (2.2 ms -> 0.67 ms, 1 thread, hot caches). It rounds differently (its v
    update is v * beta2 + (1 - beta2) * g * g, not a lerp; its own order in the step): the results agree with
    ForeachAdam to ~1e-7 relative, not bit for bit, which is why it is only used with fusion on (whose promise is
    1e-5). MindSpore's step is kept exactly: the fused kernel is given the bias-corrected step size
    lr * sqrt(1 - beta2_power) / (1 - beta1_power) and a step count so large that its own bias corrections are
    exactly 1, so it computes variable -= step * m / (sqrt(v) + epsilon), MindSpore's formula. Where the kernel
    cannot run (Nesterov, device or non-float tensors, non-contiguous memory, device hyper-parameters) it is
    ForeachAdam."""

    def torch(self, torch, variables, ms, vs, b1p, b2p, lr, b1, b2, eps, grads):
        numbers = _plain_numbers(torch, b1, b2, eps, b1p, b2p, lr)
        fused = getattr(torch, "_fused_adam_", None)
        if fused is None or numbers is None or self.use_nesterov or not self._one_pass_fits(torch, variables, ms,
                                                                                               vs, grads):
            return super().torch(torch, variables, ms, vs, b1p, b2p, lr, b1, b2, eps, grads)
        b1, b2, eps, b1p, b2p, lr = numbers
        step = lr * (1 - b2p) ** 0.5 / (1 - b1p)
        variables = list(variables)
        # beta ** 1e30 is exactly 0 for every beta < 1: the kernel's bias corrections are then exactly 1. The
        # kernel only reads its step counts, so one list is made per length and reused at every step
        counts = self.__dict__.setdefault("_step_counts", {}).get(len(variables))
        if counts is None:
            counts = self._step_counts[len(variables)] = [torch.full((), 1e30, dtype=torch.float32)
                                                          for _ in variables]
        fused(variables, list(grads), list(ms), list(vs), [], counts, lr=step, beta1=b1, beta2=b2,
              weight_decay=0.0, eps=eps, amsgrad=False, maximize=False)
        # as in momentum_one_pass: the fused kernel leaves the version counters as they were
        torch.autograd.graph.increment_version(variables + list(ms) + list(vs))
        return tuple(variables)

    def _one_pass_fits(self, torch, variables, ms, vs, grads):
        """Whether every array is a contiguous float CPU tensor (the fused kernel's domain). The state arrays
        (variables, m, v) are the same tensor objects at every step, so they are checked once and remembered by
        identity; the gradients are new at every step and checked each time (the check over all four groups was
        ~0.2 ms of the benchmark GPT's step, 53 parameters)."""
        floats = (torch.float32, torch.float64)

        def fits(group):
            return all(t.device.type == "cpu" and t.dtype in floats and t.is_contiguous() for t in group)

        state = (*variables, *ms, *vs)
        checked = self.__dict__.get("_checked_state")
        if checked is None or len(checked) != len(state) or not all(map(operator.is_, checked, state)):
            if not fits(state):
                return False
            self._checked_state = state
        return fits(grads)
