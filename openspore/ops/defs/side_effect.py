"""Primitives: in-place writes (Assign, AssignAdd, AssignSub, ScatterUpdate, ApplyMomentum, Adam) and gradient plumbing
(StopGradient, Depend).

In-place primitives write into the buffer of their first input and return that buffer, so a Parameter updated by
`ops.assign` or an optimizer keeps its identity. They take no part in implicit promotion (a promoted copy would be
written instead of the variable); `value` is converted to the variable's dtype when that loses nothing, as
MindSpore does for Parameters.
"""
import numpy as np

from ...common import dtype as mstype
from ...core.primitive import AbstractTensor, Primitive, Sample, register
from . import _onnx
from ._mindir import Arg, mindir, norm_bool
from ._export import NO_MINDIR, ORDERING, STATEFUL, UPDATE, not_exportable
from ._util import check_dtype, check_tensor, prim, rand_float, rand_positive, same_as
from ._update_util import momentum_one_pass, t_add_, t_addcdiv_, t_moments_, t_num

_NONDIFF_WRITE = "an in-place update: it overwrites its variable, so there is no function of the inputs to differentiate"


def _check_variable(op, variable):
    if not (hasattr(variable, "shape") and hasattr(variable, "dtype")):
        raise TypeError(f"For '{op}', the 'variable' must be a Tensor or Parameter, but got {type(variable).__name__}.")


def _check_value(op, variable, value, name="value"):
    """`value` (Tensor or number) must broadcast to the variable's shape and convert to its dtype without loss."""
    if isinstance(value, (bool, int, float)):
        kind = value
    elif hasattr(value, "shape") and hasattr(value, "dtype"):
        kind = value.dtype
        vshape, tshape = tuple(value.shape), tuple(variable.shape)
        lead = len(tshape) - len(vshape)
        if lead < 0 or any(v not in (1, t) for v, t in zip(vshape, tshape[lead:])):
            raise ValueError(f"For '{op}', the shape of '{name}' {list(vshape)} cannot be written into 'variable' "
                             f"of shape {list(tshape)}: it must equal the variable's shape or broadcast to it.")
    else:
        raise TypeError(f"For '{op}', the '{name}' must be a Tensor or a number, but got {type(value).__name__}.")
    target = mstype.result_type(variable.dtype, kind)
    if target is not variable.dtype:
        shown = f"Tensor[{kind}]" if isinstance(kind, mstype.Type) else type(kind).__name__
        # MindSpore words it for Parameters (the usual variable): the variable's dtype is never converted.
        raise TypeError(f"For '{op}', data type conversion of 'Parameter' is not supported, so data type "
                        f"{variable.dtype} cannot be converted to data type {target} automatically: '{name}' of type "
                        f"{shown} cannot be written into 'variable' of type Tensor[{variable.dtype}].")


def _np_value(np, value, dtype):
    return value if not isinstance(value, np.ndarray) else value.astype(dtype, copy=False)


def _torch_value(torch, value, like):
    if isinstance(value, torch.Tensor):
        return value.to(like.dtype)
    return torch.tensor(value, dtype=like.dtype, device=like.device)


class _InPlace(Primitive):
    input_names = ("variable", "value")
    side_effect = True
    differentiable = False
    nondiff_reason = _NONDIFF_WRITE

    def infer(self, variable, value):
        _check_variable(self.name, variable)
        _check_value(self.name, variable, value)
        if self.name != "Assign":
            check_dtype(self.name, "variable", variable, ("int", "uint", "float", "complex"))
        return same_as(variable)

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (3, 4)), rand_float(rng, (3, 4)))
        yield Sample(rand_float(rng, (2, 3)), rand_float(rng, (3,)), name="broadcast")
        yield Sample(rand_float(rng, (2, 2)), 1.5, name="scalar")
        yield Sample(np.arange(6, dtype=np.int32).reshape(2, 3), np.ones((2, 3), np.int8), name="int-widen")
        yield Sample(rand_float(rng, (4,)), np.array([1, 2, 3, 4], np.int64), name="int-into-float")


@register
class Assign(_InPlace):
    """Assign()(variable, value): variable[...] = value, in place; returns the variable's data.

    Differentiable by MindSpore's convention (not the derivative of the written value): the cotangent of the
    result flows to `variable` unchanged and `value` gets zeros, so `ops.grad` over a function that assigns
    gives d/d variable = dout, d/d value = 0 as MindSpore 2.10 does."""
    differentiable = True
    nondiff_reason = None

    def bprop(self, variable, value, out, dout):
        zero = prim("ZerosLike")(value) if hasattr(value, "shape") else None
        return (dout, zero)

    @classmethod
    def samples(cls, rng):
        # grad=(): the backward is a convention (above), which finite differences would not reproduce
        for sample in super().samples(rng):
            sample.grad = ()
            yield sample

    def numpy(self, np, variable, value):
        np.copyto(variable, _np_value(np, value, variable.dtype), casting="unsafe")
        return variable

    def torch(self, torch, variable, value):
        variable.copy_(_torch_value(torch, value, variable))
        return variable


class _InPlaceArith(_InPlace):
    """variable op= value, in place: `np_ufunc` names the numpy ufunc, `torch_method` the in-place torch method."""
    np_ufunc = torch_method = None

    def numpy(self, np, variable, value):
        getattr(np, self.np_ufunc)(variable, _np_value(np, value, variable.dtype), out=variable, casting="unsafe")
        return variable

    def torch(self, torch, variable, value):
        getattr(variable, self.torch_method)(_torch_value(torch, value, variable))
        return variable


@register
class AssignAdd(_InPlaceArith):
    """AssignAdd()(variable, value): variable += value, in place; returns the variable's data."""
    np_ufunc, torch_method = "add", "add_"


@register
class AssignSub(_InPlaceArith):
    """AssignSub()(variable, value): variable -= value, in place; returns the variable's data."""
    np_ufunc, torch_method = "subtract", "sub_"


@register
class ScatterUpdate(Primitive):
    """ScatterUpdate(use_locking=True)()(input_x, indices, updates): input_x[indices[...]] = updates along axis 0, in
    place (rows are written, nothing else is copied); returns input_x's data. `updates` has the shape
    indices.shape + input_x.shape[1:] and input_x's dtype. With repeated indices, which row lands is unspecified
    (as in MindSpore)."""
    input_names = ("input_x", "indices", "updates")
    attr_defaults = {"use_locking": True}
    side_effect = True
    differentiable = False
    nondiff_reason = _NONDIFF_WRITE

    def infer(self, input_x, indices, updates):
        _check_variable(self.name, input_x)
        check_tensor(self.name, "indices", indices)
        check_tensor(self.name, "updates", updates)
        check_dtype(self.name, "indices", indices, ("int",))
        if len(input_x.shape) < 1:
            raise ValueError(f"For '{self.name}', 'input_x' must have at least 1 dimension, but got a scalar.")
        want = tuple(indices.shape) + tuple(input_x.shape[1:])
        if tuple(updates.shape) != want:
            raise ValueError(f"For '{self.name}', 'updates' must have the shape indices.shape + input_x.shape[1:] = "
                             f"{list(want)}, but got {list(updates.shape)}.")
        if updates.dtype is not input_x.dtype:
            raise TypeError(f"For '{self.name}', 'updates' must have input_x's dtype {input_x.dtype}, but got "
                            f"{updates.dtype}.")
        return same_as(input_x)

    def numpy(self, np, input_x, indices, updates):
        input_x[indices] = updates
        return input_x

    def torch(self, torch, input_x, indices, updates):
        rows = indices.reshape(-1)
        input_x.index_copy_(0, rows if rows.dtype == torch.int64 else rows.long(),
                            updates.reshape((rows.shape[0],) + tuple(input_x.shape[1:])))
        return input_x

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (5, 3)), np.array([4, 0], np.int32), rand_float(rng, (2, 3)))
        yield Sample(rand_float(rng, (6, 2, 2)), np.array([[1, 5], [2, 0]], np.int64), rand_float(rng, (2, 2, 2, 2)),
                     name="2d-indices")
        yield Sample(np.arange(4, dtype=np.int32), np.array([3], np.int32), np.array([9], np.int32), name="int")


# ---- gradient plumbing ----------------------------------------------------------------------------
@register
class StopGradient(Primitive):
    """StopGradient()(x): the value of x, through which no gradient flows."""
    input_names = ("input_x",)
    differentiable = False
    nondiff_reason = "its gradient is zero by definition: it cuts the input out of differentiation"

    def infer(self, x):
        check_tensor(self.name, "input_x", x)
        return same_as(x)

    def numpy(self, np, x):
        return x

    def torch(self, torch, x):
        return x

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (3, 4)))
        yield Sample(np.array([1, 2, 3], np.int64))


@register
class Depend(Primitive):
    """Depend()(value, expr): returns value, ordered after expr (the gradient goes to value only)."""
    input_names = ("value", "expr")

    def infer(self, value, expr):
        check_tensor(self.name, "value", value)
        return same_as(value)

    def bprop(self, value, expr, out, dout):
        return (dout, None)

    def numpy(self, np, value, expr):
        return value

    def torch(self, torch, value, expr):
        return value

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (3, 4)), rand_float(rng, (2,)))
        yield Sample(rand_float(rng, (2, 2)), None, grad=(0,), name="expr-none")


# ---- optimizer updates ----------------------------------------------------------------------------
def _check_scalar(op, name, value):
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return
    if hasattr(value, "shape") and hasattr(value, "dtype"):
        if value.dtype.kind != "float":
            raise TypeError(f"For '{op}', the '{name}' must be a float Tensor or a number, but got Tensor[{value.dtype}].")
        if tuple(value.shape) not in ((), (1,)):
            raise ValueError(f"For '{op}', the '{name}' must be a scalar (shape [] or [1]), but got shape {list(value.shape)}.")
        return
    raise TypeError(f"For '{op}', the '{name}' must be a Tensor or a number, but got {type(value).__name__}.")


def _check_like(op, names, first, *others):
    for name, t in zip(names[1:], others):
        check_tensor(op, name, t)
        if tuple(t.shape) != tuple(first.shape):
            raise ValueError(f"For '{op}', the shape of '{name}' must be the same as '{names[0]}', but got "
                             f"'{names[0]}' shape {list(first.shape)} and '{name}' shape {list(t.shape)}.")
        if t.dtype is not first.dtype:
            raise TypeError(f"For '{op}', the type of '{name}' should be same as '{names[0]}', but got "
                            f"'{names[0]}' with type Tensor[{first.dtype}] and '{name}' with type Tensor[{t.dtype}].")


def _np_scalar(np, value, dtype):
    return np.asarray(value, dtype=dtype).reshape(())


@register
class ApplyMomentum(Primitive):
    """ApplyMomentum(use_nesterov=False, use_locking=False, gradient_scale=1.0)(variable, accumulation,
    learning_rate, gradient, momentum): accum = accum*momentum + grad; var -= lr*accum
    (nesterov: var -= lr*(grad + accum*momentum)). Updates var and accum in place; returns var."""
    attr_defaults = {"use_nesterov": False, "use_locking": False, "gradient_scale": 1.0}
    input_names = ("variable", "accumulation", "learning_rate", "gradient", "momentum")
    side_effect = True
    differentiable = False
    nondiff_reason = _NONDIFF_WRITE

    def infer(self, var, accum, lr, grad, momentum):
        check_tensor(self.name, "variable", var)
        check_dtype(self.name, "variable", var, ("float",))
        _check_like(self.name, ("variable", "accumulation", "gradient"), var, accum, grad)
        _check_scalar(self.name, "learning_rate", lr)
        _check_scalar(self.name, "momentum", momentum)
        return same_as(var)

    def numpy(self, np, var, accum, lr, grad, momentum):
        lr, momentum = _np_scalar(np, lr, var.dtype), _np_scalar(np, momentum, var.dtype)
        if self.gradient_scale != 1.0:
            grad = grad * var.dtype.type(self.gradient_scale)
        accum *= momentum
        accum += grad
        if self.use_nesterov:
            var -= lr * (grad + accum * momentum)
        else:
            var -= lr * accum
        return var

    def torch(self, torch, var, accum, lr, grad, momentum):
        lr, momentum = t_num(torch, lr, var), t_num(torch, momentum, var)
        if self.gradient_scale != 1.0:
            grad = grad * self.gradient_scale
        if not self.use_nesterov and momentum_one_pass(torch, (var,), (accum,), (grad,), lr, momentum):
            return var  # the kernel ForeachApplyMomentum runs too (_update_util.py): the same bits
        accum.mul_(momentum).add_(grad)
        if self.use_nesterov:
            t_add_(torch, var, grad, -lr)
            t_add_(torch, var, accum, -lr * momentum)
        else:
            t_add_(torch, var, accum, -lr)
        return var

    @classmethod
    def samples(cls, rng):
        for nesterov in (False, True):
            yield Sample(rand_float(rng, (3, 4)), rand_float(rng, (3, 4)), np.array(0.1, np.float32),
                         rand_float(rng, (3, 4)), np.array(0.9, np.float32), attrs={"use_nesterov": nesterov})
        yield Sample(rand_float(rng, (5,)), rand_float(rng, (5,)), 0.05, rand_float(rng, (5,)), 0.8,
                     attrs={"gradient_scale": 0.5}, name="python-scalars")


@register
class Adam(Primitive):
    """Adam(use_locking=False, use_nesterov=False)(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon,
    gradient): the fused Adam step; updates var, m and v in place and returns (var, m, v)."""
    attr_defaults = {"use_locking": False, "use_nesterov": False}
    input_names = ("var", "m", "v", "beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon", "gradient")
    side_effect = True
    differentiable = False
    nondiff_reason = _NONDIFF_WRITE

    def infer(self, var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad):
        check_tensor(self.name, "var", var)
        check_dtype(self.name, "var", var, ("float",))
        _check_like(self.name, ("var", "m", "v", "gradient"), var, m, v, grad)
        for name, s in zip(self.input_names[3:9], (beta1_power, beta2_power, lr, beta1, beta2, epsilon)):
            _check_scalar(self.name, name, s)
        out = same_as(var)
        return (out, AbstractTensor(m.shape, m.dtype), AbstractTensor(v.shape, v.dtype))

    def numpy(self, np, var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad):
        b1p, b2p, lr, b1, b2, eps = (_np_scalar(np, s, var.dtype)
                                     for s in (beta1_power, beta2_power, lr, beta1, beta2, epsilon))
        one = var.dtype.type(1)
        m += (one - b1) * (grad - m)
        v += (one - b2) * (grad * grad - v)
        step = lr * np.sqrt(one - b2p) / (one - b1p)
        direction = (m * b1 + (one - b1) * grad) if self.use_nesterov else m
        var -= step * direction / (np.sqrt(v) + eps)
        return var, m, v

    def torch(self, torch, var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad):
        b1p, b2p, lr, b1, b2, eps = (t_num(torch, s, var)
                                     for s in (beta1_power, beta2_power, lr, beta1, beta2, epsilon))
        t_moments_(torch, m, v, grad, b1, b2)
        step = lr * (1 - b2p) ** 0.5 / (1 - b1p)
        direction = t_add_(torch, m * b1, grad, 1 - b1) if self.use_nesterov else m
        t_addcdiv_(torch, var, direction, v.sqrt().add_(eps), -step)
        return var, m, v

    @classmethod
    def samples(cls, rng):
        for nesterov in (False, True):
            shape = (3, 4)
            yield Sample(rand_float(rng, shape), rand_float(rng, shape), rand_positive(rng, shape, 0.1, 1.0),
                         np.array(0.9 ** 3, np.float32), np.array(0.999 ** 3, np.float32), np.array(0.01, np.float32),
                         np.array(0.9, np.float32), np.array(0.999, np.float32), np.array(1e-8, np.float32),
                         rand_float(rng, shape), attrs={"use_nesterov": nesterov})
        yield Sample(rand_float(rng, (4,)), rand_float(rng, (4,)), rand_positive(rng, (4,), 0.1, 1.0),
                     0.81, 0.998, 0.001, 0.9, 0.999, 1e-8, rand_float(rng, (4,)), name="python-scalars")


# ---- export marks (see _export.py): what is not written to MindIR / ONNX, and why ---------------
not_exportable(UPDATE, Adam)
not_exportable(UPDATE, ApplyMomentum, formats=("ONNX",))
not_exportable(STATEFUL, Assign, AssignAdd, AssignSub, formats=("ONNX",))
not_exportable(STATEFUL, ScatterUpdate, formats=("ONNX",))
not_exportable(NO_MINDIR, ScatterUpdate, formats=("MINDIR",))
not_exportable(ORDERING, Depend, formats=("ONNX",))


# ---- MindIR encodings (see _mindir.py) ---------------------------------------------------------------------------
def _in_place_proto_attrs(node):
    return [("side_effect_mem", True), ("input_names", ["ref", "value"]), ("output_names", ["ref"])]


# In-place writes of training-mode exports (BatchNorm's moving statistics); the monad input is dropped.
mindir(Assign, AssignAdd, AssignSub, inputs=("variable", "value"), proto_attrs=_in_place_proto_attrs)
# Training-step graphs (an exported TrainOneStepCell, what `converter_lite --trainModel=true` reads) hold it.
mindir(ApplyMomentum, inputs=("variable", "accumulation", "learning_rate", "gradient", "momentum"),
       attrs=[Arg("use_nesterov", False, norm_bool), Arg("use_locking", False, norm_bool), Arg("gradient_scale", 1.0)])

# ---- ONNX converters (see _onnx.py) -------------------------------------------------------------------------------
_onnx.declare(StopGradient, _onnx.identity)
