"""Activation layers (`nn.ReLU`, `nn.GELU`, `nn.Softmax`, …) and `get_activation(name)`.

Each layer calls one primitive where MindSpore has one (ReLU, GeLU, Softmax, …), so a MindIR export of a network
shows the same op types as MindSpore's.

>>> import openspore as ms
>>> from openspore import nn
>>> nn.ReLU()(ms.Tensor([-1.0, 2.0])).asnumpy().tolist()
[0.0, 2.0]
"""
import numbers

import numpy as np

from ... import ops
from ...common import dtype as mstype
from ...core.parameter import Parameter
from ...core.tensor import Tensor
from ..cell import Cell
from ._common import check_number, is_int, same_dtype


class _Unary(Cell):
    """A layer that applies one parameterless primitive."""
    _prim = None

    def __init__(self):
        super().__init__()
        self.op = getattr(ops, self._prim)()

    def construct(self, x):
        return self.op(x)


class ReLU(_Unary):
    """`ReLU()`: max(x, 0)."""
    _prim = "ReLU"


class ReLU6(_Unary):
    """`ReLU6()`: min(max(x, 0), 6)."""
    _prim = "ReLU6"


class Sigmoid(_Unary):
    """`Sigmoid()`: 1 / (1 + exp(-x))."""
    _prim = "Sigmoid"


class Tanh(_Unary):
    """`Tanh()`: the hyperbolic tangent."""
    _prim = "Tanh"


class SiLU(_Unary):
    """`SiLU()`: x * sigmoid(x)."""
    _prim = "SiLU"


class SeLU(_Unary):
    """`SeLU()`: scale * elu(x, alpha) with the self-normalizing constants."""
    _prim = "SeLU"


class HSwish(_Unary):
    """`HSwish()`: x * relu6(x + 3) / 6."""
    _prim = "HSwish"


class HSigmoid(_Unary):
    """`HSigmoid()`: relu6(x + 3) / 6."""
    _prim = "HSigmoid"


class Mish(_Unary):
    """`Mish()`: x * tanh(softplus(x))."""
    _prim = "Mish"


class Softsign(_Unary):
    """`Softsign()`: x / (1 + |x|)."""
    _prim = "Softsign"


class FastGelu(_Unary):
    """`FastGelu()`: x / (1 + exp(-1.702 |x|)) * exp(0.851 (x - |x|))."""
    _prim = "FastGeLU"


class LogSigmoid(Cell):
    """`LogSigmoid()`: log(sigmoid(x))."""

    def construct(self, x):
        return ops.logsigmoid(x)


class Tanhshrink(Cell):
    """`Tanhshrink()`: x - tanh(x)."""

    def construct(self, x):
        return ops.sub(x, ops.tanh(x))


class GELU(Cell):
    """`GELU(approximate=True)`: the tanh approximation (MindSpore's `GeLU` primitive), or the exact
    x * Phi(x) when `approximate=False`."""

    def __init__(self, approximate=True):
        super().__init__()
        if not isinstance(approximate, bool):
            raise TypeError(f"For 'GELU', the 'approximate' must be a bool, but got {type(approximate).__name__}.")
        self.approximate = approximate
        self.gelu = ops.GeLU() if approximate else ops.GeluExt(approximate="none")

    def construct(self, x):
        return self.gelu(x)


class LeakyReLU(Cell):
    """`LeakyReLU(alpha=0.2)`: x where positive, alpha * x elsewhere."""

    def __init__(self, alpha=0.2):
        super().__init__()
        self.alpha = check_number("LeakyReLU", "alpha", alpha)
        self.leaky_relu = ops.LeakyReLU(alpha=self.alpha)

    def construct(self, x):
        return self.leaky_relu(x)

    def extend_repr(self):
        return f"alpha={self.alpha}"


class ELU(Cell):
    """`ELU(alpha=1.0)`: x where positive, alpha * (exp(x) - 1) elsewhere."""

    def __init__(self, alpha=1.0):
        super().__init__()
        self.alpha = check_number("ELU", "alpha", alpha)
        self.elu = ops.Elu(alpha=self.alpha)

    def construct(self, x):
        return self.elu(x)


class CELU(Cell):
    """`CELU(alpha=1.0)`: max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""

    def __init__(self, alpha=1.0):
        super().__init__()
        self.alpha = check_number("CELU", "alpha", alpha)
        if self.alpha == 0:
            raise ValueError("For 'CELU', the 'alpha' must not be 0, but got 0.")
        self.celu = ops.CeLU(alpha=self.alpha)

    def construct(self, x):
        return self.celu(x)


class Softplus(Cell):
    """`Softplus(beta=1, threshold=20)`: log(1 + exp(beta * x)) / beta, linear above the threshold."""

    def __init__(self, beta=1, threshold=20):
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def construct(self, x):
        return ops.softplus(x, self.beta, self.threshold)


class Hardtanh(Cell):
    """`Hardtanh(min_val=-1.0, max_val=1.0)`: x clamped to [min_val, max_val]."""

    def __init__(self, min_val=-1.0, max_val=1.0):
        super().__init__()
        self.min_val = check_number("Hardtanh", "min_val", min_val)
        self.max_val = check_number("Hardtanh", "max_val", max_val)
        if self.min_val > self.max_val:
            raise ValueError(f"For 'Hardtanh', the 'max_val' must be at least 'min_val', but got min_val={min_val} "
                             f"and max_val={max_val}.")

    def construct(self, x):
        return ops.clamp(x, self.min_val, self.max_val)


class _Shrink(Cell):
    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = check_number(type(self).__name__, "lambd", lambd, low=0.0)

    def _outside(self, x):
        return ops.greater(ops.abs(x), self.lambd)


class HShrink(_Shrink):
    """`HShrink(lambd=0.5)`: x where |x| > lambd, 0 elsewhere."""

    def construct(self, x):
        return ops.where(self._outside(x), x, ops.zeros_like(x))


class SoftShrink(_Shrink):
    """`SoftShrink(lambd=0.5)`: x - sign(x) * lambd where |x| > lambd, 0 elsewhere."""

    def construct(self, x):
        shrunk = ops.sub(x, ops.mul(ops.sign(x), self.lambd))
        return ops.where(self._outside(x), shrunk, ops.zeros_like(x))


class _AxisLayer(Cell):
    def __init__(self, axis=-1):
        super().__init__()
        if not (is_int(axis) or (isinstance(axis, (tuple, list)) and all(is_int(a) for a in axis))):
            raise TypeError(f"For '{type(self).__name__}', the 'axis' must be an int or a tuple of ints, "
                            f"but got {axis!r}.")
        self.axis = axis

    def extend_repr(self):
        return f"axis={self.axis}"


class Softmax(_AxisLayer):
    """`Softmax(axis=-1)`: exp(x) / sum(exp(x)) along axis."""

    def __init__(self, axis=-1):
        super().__init__(axis)
        self.softmax = ops.Softmax(axis=axis)

    def construct(self, x):
        return self.softmax(x)


class LogSoftmax(_AxisLayer):
    """`LogSoftmax(axis=-1)`: x - logsumexp(x) along axis."""

    def __init__(self, axis=-1):
        super().__init__(axis)
        self.log_softmax = ops.LogSoftmax(axis=axis)

    def construct(self, x):
        return self.log_softmax(x)


class Softmin(_AxisLayer):
    """`Softmin(axis=-1)`: softmax(-x) along axis."""

    def construct(self, x):
        return ops.softmin(x, self.axis)


class GLU(_AxisLayer):
    """`GLU(axis=-1)`: a * sigmoid(b) for the halves a, b of x along axis."""

    def construct(self, x):
        return ops.glu(x, self.axis)


class PReLU(Cell):
    """`PReLU(channel=1, w=0.25)`: x where positive, w * x elsewhere, with a learnable slope per channel
    (parameter `w`, named 'a' as in MindSpore)."""

    def __init__(self, channel=1, w=0.25):
        super().__init__()
        if not is_int(channel) or channel < 1:
            raise ValueError(f"For 'PReLU', the 'channel' must be a positive int, but got {channel!r}.")
        if isinstance(w, numbers.Real) and not isinstance(w, bool):
            init = np.full((channel,), w, np.float32)
        elif isinstance(w, (list, tuple)) and len(w) == channel:
            init = np.asarray(w, np.float32)
        elif isinstance(w, Tensor) and tuple(w.shape) in ((channel,), (1,)):
            init = np.broadcast_to(w.asnumpy().astype(np.float32), (channel,)).copy()
        else:
            raise TypeError(f"For 'PReLU', the 'w' must be a float, a list of {channel} floats or a Tensor of shape "
                            f"({channel},), but got {w!r}.")
        self.channel = int(channel)
        self.w = Parameter(Tensor(init, mstype.float32), name="a")
        self.prelu = ops.PReLU()

    def construct(self, x):
        return self.prelu(x, same_dtype(self.w, x.dtype))


_ACTIVATIONS = {
    "softmin": Softmin, "softmax": Softmax, "logsoftmax": LogSoftmax, "relu": ReLU, "relu6": ReLU6,
    "silu": SiLU, "selu": SeLU, "tanh": Tanh, "tanhshrink": Tanhshrink, "hardtanh": Hardtanh, "gelu": GELU,
    "fast_gelu": FastGelu, "elu": ELU, "celu": CELU, "sigmoid": Sigmoid, "prelu": PReLU, "leakyrelu": LeakyReLU,
    "hswish": HSwish, "hsigmoid": HSigmoid, "logsigmoid": LogSigmoid, "softsign": Softsign, "softplus": Softplus,
    "mish": Mish, "hshrink": HShrink, "softshrink": SoftShrink, "glu": GLU,
}


def get_activation(name, prim_name=None):
    """`get_activation(name, prim_name=None)`: a new activation layer for `name` ('relu', 'gelu', …), None for None.

    >>> from openspore import nn
    >>> nn.get_activation('relu')
    ReLU()
    """
    if name is None:
        return None
    shown = f"'{prim_name}'" if prim_name else "'get_activation'"
    if not isinstance(name, str):
        raise TypeError(f"For {shown}, the 'name' must be a str, but got {type(name).__name__}.")
    if name not in _ACTIVATIONS:
        raise KeyError(f"For {shown}, the 'name' must be one of {sorted(_ACTIVATIONS)}, but got {name!r}.")
    return _ACTIVATIONS[name]()


__all__ = ["ReLU", "ReLU6", "Sigmoid", "Tanh", "SiLU", "SeLU", "HSwish", "HSigmoid", "Mish", "Softsign", "FastGelu",
           "LogSigmoid", "Tanhshrink", "GELU", "LeakyReLU", "ELU", "CELU", "Softplus", "Hardtanh", "HShrink",
           "SoftShrink", "Softmax", "LogSoftmax", "Softmin", "GLU", "PReLU", "get_activation"]
