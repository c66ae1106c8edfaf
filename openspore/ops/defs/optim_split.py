"""Primitives: a Momentum step split at its accumulation — DenseGradAccumulate, BiasGradAccumulate and
ForeachApplyAccumulation.

The `momentum_gemm_fusion` pass (compiler/passes) writes them into compiled training graphs; layers and
optimizers never call them. ApplyMomentum without Nesterov is `accum = accum * momentum + grad` then
`var -= lr * accum`. Where `grad` is a Dense layer's weight gradient `doutᵀ · input`, its first half is one
GEMM with a beta term: DenseGradAccumulate writes the product straight into the accumulation (BLAS scales the
old accumulation as it adds the product), so the weight gradient is never written to memory nor read back by
the optimizer; BiasGradAccumulate does the same for the bias, whose gradient is a sum of rows.
ForeachApplyAccumulation is the second half, `var -= lr * accum`, for every such parameter at the end of the
step, where the optimizer ran (every read of the variables comes before it).

>>> import numpy as np
>>> acc = np.ones((2, 3), np.float32)
>>> out = DenseGradAccumulate().numpy(np, acc, np.ones((4, 2), np.float32), np.ones((4, 3), np.float32), 0.5)
>>> out.tolist() == [[4.5] * 3] * 2 and out is acc
True
"""
import numpy as np

from ...core.primitive import Primitive, Sample, register
from ._export import PASS_MADE, not_exportable
from ._update_util import np_num, t_num
from ._util import check_dtype, check_rank, check_tensor, rand_float, same_as
from .optim_foreach import _check_group, _like, _plain_numbers
from .side_effect import _check_scalar, _NONDIFF_WRITE


@register
class DenseGradAccumulate(Primitive):
    """DenseGradAccumulate(gradient_scale=1.0)(accumulation, dout, input, momentum): accumulation =
    accumulation * momentum + gradient_scale * (doutᵀ · input) in place, for 2-D `dout` (rows, out_channels) and
    `input` (rows, in_channels); returns the accumulation. ApplyMomentum's accumulation step fed by Dense's
    weight gradient, as one GEMM."""
    attr_defaults = {"gradient_scale": 1.0}
    input_names = ("accumulation", "dout", "input", "momentum")
    side_effect = True
    differentiable = False
    nondiff_reason = _NONDIFF_WRITE

    def infer(self, accum, dout, x, momentum):
        for name, t in zip(self.input_names[:3], (accum, dout, x)):
            check_tensor(self.name, name, t)
            check_rank(self.name, name, t, 2)
        check_dtype(self.name, "accumulation", accum, ("float",))
        for name, t in (("dout", dout), ("input", x)):
            if t.dtype is not accum.dtype:
                raise TypeError(f"For '{self.name}', '{name}' must have the dtype of 'accumulation' "
                                f"({accum.dtype}), but got {t.dtype}.")
        if dout.shape[0] != x.shape[0] or tuple(accum.shape) != (dout.shape[1], x.shape[1]):
            raise ValueError(f"For '{self.name}', 'dout' {list(dout.shape)} and 'input' {list(x.shape)} must have "
                             f"the same rows and 'accumulation' must be [dout columns, input columns], but got "
                             f"{list(accum.shape)}.")
        _check_scalar(self.name, "momentum", momentum)
        return same_as(accum)

    def numpy(self, np, accum, dout, x, momentum):
        product = np.matmul(dout.T, x)
        if self.gradient_scale != 1.0:
            product = product * accum.dtype.type(self.gradient_scale)
        accum *= accum.dtype.type(np_num(np, momentum))
        accum += product
        return accum

    def torch(self, torch, accum, dout, x, momentum):
        momentum = t_num(torch, momentum, accum)
        if isinstance(momentum, torch.Tensor) or not accum.is_contiguous():  # a device scalar: two kernels
            product = torch.mm(dout.t(), x)
            if self.gradient_scale != 1.0:
                product = product * self.gradient_scale
            return accum.mul_(momentum).add_(product)
        # beta * C + alpha * AB in one BLAS call; beta 0 would make BLAS ignore C (not multiply it), as in
        # ApplyMomentum only where C is finite
        return accum.addmm_(dout.t(), x, beta=momentum, alpha=self.gradient_scale)

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (5, 4)), rand_float(rng, (3, 5)), rand_float(rng, (3, 4)),
                     np.array(0.9, np.float32))
        yield Sample(rand_float(rng, (2, 3)), rand_float(rng, (6, 2)), rand_float(rng, (6, 3)), 0.8,
                     attrs={"gradient_scale": 0.5}, name="python-scalar")


@register
class BiasGradAccumulate(Primitive):
    """BiasGradAccumulate(gradient_scale=1.0)(accumulation, dout, momentum): accumulation = accumulation *
    momentum + gradient_scale * (sum of the rows of `dout`) in place, for 2-D `dout` (rows, channels); returns the
    accumulation. ApplyMomentum's accumulation step fed by Dense's bias gradient, as one matrix-vector product
    (doutᵀ · ones, with BLAS's beta term) instead of a reduction, a temporary and a pass of the optimizer."""
    attr_defaults = {"gradient_scale": 1.0}
    input_names = ("accumulation", "dout", "momentum")
    side_effect = True
    differentiable = False
    nondiff_reason = _NONDIFF_WRITE

    def infer(self, accum, dout, momentum):
        check_tensor(self.name, "accumulation", accum)
        check_tensor(self.name, "dout", dout)
        check_rank(self.name, "accumulation", accum, 1)
        check_rank(self.name, "dout", dout, 2)
        check_dtype(self.name, "accumulation", accum, ("float",))
        if dout.dtype is not accum.dtype or dout.shape[1] != accum.shape[0]:
            raise ValueError(f"For '{self.name}', 'dout' must be [rows, {accum.shape[0]}] of {accum.dtype} like "
                             f"'accumulation', but got {list(dout.shape)} of {dout.dtype}.")
        _check_scalar(self.name, "momentum", momentum)
        return same_as(accum)

    def numpy(self, np, accum, dout, momentum):
        total = dout.sum(axis=0)
        if self.gradient_scale != 1.0:
            total = total * accum.dtype.type(self.gradient_scale)
        accum *= accum.dtype.type(np_num(np, momentum))
        accum += total
        return accum

    def torch(self, torch, accum, dout, momentum):
        momentum = t_num(torch, momentum, accum)
        if isinstance(momentum, torch.Tensor) or not accum.is_contiguous():
            total = dout.sum(dim=0)
            if self.gradient_scale != 1.0:
                total = total * self.gradient_scale
            return accum.mul_(momentum).add_(total)
        ones = torch.ones(dout.shape[0], dtype=dout.dtype, device=dout.device)
        return accum.addmv_(dout.t(), ones, beta=momentum, alpha=self.gradient_scale)

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (5,)), rand_float(rng, (3, 5)), np.array(0.9, np.float32))
        yield Sample(rand_float(rng, (2,)), rand_float(rng, (6, 2)), 0.8, attrs={"gradient_scale": 0.5},
                     name="python-scalar")


@register
class ForeachApplyAccumulation(Primitive):
    """ForeachApplyAccumulation()(variables, accumulations, learning_rate): variable -= learning_rate *
    accumulation for each pair, in place; returns the variables (ApplyMomentum's second half, without Nesterov)."""
    input_names = ("variables", "accumulations", "learning_rate")
    side_effect = True
    differentiable = False
    nondiff_reason = _NONDIFF_WRITE

    def infer(self, variables, accums, lr):
        _check_group(self.name, ("variables", "accumulations"), (variables, accums))
        _check_scalar(self.name, "learning_rate", lr)
        return tuple(_like(v) for v in variables)

    def numpy(self, np, variables, accums, lr):
        for var, accum in zip(variables, accums):
            var -= var.dtype.type(np_num(np, lr)) * accum
        return tuple(variables)

    def torch(self, torch, variables, accums, lr):
        numbers = _plain_numbers(torch, lr)
        if numbers is None:  # a device learning rate stays on the GPU
            torch._foreach_add_(list(variables), torch._foreach_mul(list(accums), -t_num(torch, lr, variables[0])))
        else:
            torch._foreach_add_(list(variables), list(accums), alpha=-numbers[0])
        return tuple(variables)

    @classmethod
    def samples(cls, rng):
        shapes = ((3, 4), (5,))
        yield Sample(tuple(rand_float(rng, s) for s in shapes), tuple(rand_float(rng, s) for s in shapes),
                     np.array(0.1, np.float32), grad=())
        yield Sample(tuple(rand_float(rng, s) for s in shapes), tuple(rand_float(rng, s) for s in shapes), 0.05,
                     grad=(), name="python-scalar")


not_exportable(PASS_MADE, DenseGradAccumulate, BiasGradAccumulate, ForeachApplyAccumulation)
