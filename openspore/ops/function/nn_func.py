"""Functional activations (MindSpore 2.x signatures); the losses live in `loss_func` and are re-exported here,
as MindSpore's `ops.function.nn_func` holds both."""
from ...common import dtype as mstype
from ...core.tensor import Tensor
from ...core.registry import prim
from ..defs.activation import step
from .. import operations as P
from .loss_func import *  # noqa: F401,F403
from .loss_func import __all__ as _loss_all

from .math_elementwise_func import sigmoid, tanh  # noqa: F401  (one definition; nn_func re-exports it)

__all__ = ["relu", "relu6", "leaky_relu", "elu", "selu", "celu", "gelu", "fast_gelu", "silu", "mish",
           "hardswish", "hardsigmoid", "softplus", "softsign", "prelu", "softmax", "log_softmax", "softmin",
           "logsigmoid", "sigmoid", "tanh", "glu"] + list(_loss_all)

_relu, _relu6, _selu = prim(P.ReLU), prim(P.ReLU6), prim(P.SeLU)
_fast_gelu, _silu, _mish = prim(P.FastGeLU), prim(P.SiLU), prim(P.Mish)
_hswish, _hsigmoid, _softplus = prim(P.HSwish), prim(P.HSigmoid), prim(P.Softplus)
_softsign, _prelu = prim(P.Softsign), prim(P.PReLU)


def _check_tensor(name, arg, value):
    if not isinstance(value, Tensor):
        raise TypeError(f"For '{name}', the '{arg}' must be a Tensor, but got {type(value).__name__}.")


def relu(input, inplace=False):
    """relu(input) = max(input, 0).

    >>> import openspore as ms
    >>> ms.ops.relu(ms.Tensor([-1.0, 2.0])).asnumpy().tolist()
    [0.0, 2.0]
    """
    return _relu(input)


def relu6(x):
    """relu6(x) = min(max(x, 0), 6)."""
    return _relu6(x)


def leaky_relu(input, alpha=0.2):
    """leaky_relu(input, alpha=0.2): input where positive, alpha * input elsewhere."""
    return prim(P.LeakyReLU, alpha=alpha)(input)


def elu(input_x, alpha=1.0):
    """elu(input_x, alpha=1.0): input_x where positive, alpha * (exp(input_x) - 1) elsewhere."""
    return prim(P.Elu, alpha=alpha)(input_x)


def selu(input_x):
    """selu(input_x) = scale * elu(input_x, alpha) with scale ~ 1.0507 and alpha ~ 1.6733."""
    return _selu(input_x)


def celu(x, alpha=1.0):
    """celu(x, alpha=1.0) = max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""
    return prim(P.CeLU, alpha=alpha)(x)


def gelu(input, approximate="none"):
    """gelu(input, approximate='none'): input * Phi(input) exactly, or with approximate='tanh' the tanh form.

    >>> import openspore as ms
    >>> [round(v, 4) for v in ms.ops.gelu(ms.Tensor([1.0, 2.0])).asnumpy().tolist()]
    [0.8413, 1.9545]
    """
    if approximate not in ("none", "tanh"):
        raise ValueError(f"For ops.gelu, approximate value should be either 'none' or 'tanh', but got {approximate!r}.")
    _check_tensor("gelu", "input", input)
    if approximate == "tanh":
        return prim(P.GeLU)(input)
    return prim(P.GeluExt, approximate="none")(input)


def fast_gelu(x):
    """fast_gelu(x) = x * sigmoid(1.702 x)."""
    return _fast_gelu(x)


def silu(input):
    """silu(input) = input * sigmoid(input)."""
    return _silu(input)


def mish(x):
    """mish(x) = x * tanh(softplus(x))."""
    return _mish(x)


def hardswish(x):
    """hardswish(x) = x * relu6(x + 3) / 6."""
    return _hswish(x)


def hardsigmoid(input):
    """hardsigmoid(input) = relu6(input + 3) / 6."""
    return _hsigmoid(input)


def softplus(input, beta=1, threshold=20):
    """softplus(input, beta=1, threshold=20) = log(1 + exp(beta * input)) / beta, and input itself where
    beta * input > threshold."""
    _check_tensor("softplus", "input", input)
    if isinstance(beta, bool) or not isinstance(beta, (int, float)) or beta == 0:
        raise ValueError(f"For 'softplus', 'beta' must be a non-zero number, but got {beta!r}.")
    mul = prim(P.Mul)
    scaled = input if beta == 1 else mul(input, float(beta))
    out = _softplus(scaled)
    if beta != 1:
        out = mul(out, 1.0 / beta)
    if threshold is None:
        return out
    linear = step(prim(P.Sub)(scaled, float(threshold)))
    return prim(P.Add)(out, mul(linear, prim(P.Sub)(input, out)))


def softsign(x):
    """softsign(x) = x / (1 + |x|)."""
    return _softsign(x)


def prelu(x, weight):
    """prelu(x, weight): x where positive, weight * x elsewhere; weight has one slope per channel (axis 1)."""
    return _prelu(x, weight)


def softmax(input, axis=-1, *, dtype=None):
    """softmax(input, axis=-1, *, dtype=None) = exp(input) / sum(exp(input)) along axis (cast to dtype first).

    >>> import openspore as ms
    >>> [round(v, 4) for v in ms.ops.softmax(ms.Tensor([0.0, 0.0])).asnumpy().tolist()]
    [0.5, 0.5]
    """
    _check_tensor("softmax", "input", input)
    if dtype is not None:
        input = prim(P.Cast)(input, mstype.to_dtype(dtype, "softmax"))
    return prim(P.Softmax, axis=axis)(input)


def log_softmax(logits, axis=-1):
    """log_softmax(logits, axis=-1) = logits - log(sum(exp(logits))) along axis."""
    return prim(P.LogSoftmax, axis=axis)(logits)


def softmin(x, axis=-1, *, dtype=None):
    """softmin(x, axis=-1, *, dtype=None) = softmax(-x)."""
    _check_tensor("softmin", "x", x)
    if dtype is not None:
        x = prim(P.Cast)(x, mstype.to_dtype(dtype, "softmin"))
    return prim(P.Softmax, axis=axis)(prim(P.Neg)(x))


def logsigmoid(x):
    """logsigmoid(x) = log(1 / (1 + exp(-x))) = -softplus(-x)."""
    return prim(P.Neg)(_softplus(prim(P.Neg)(x)))


def glu(x, axis=-1):
    """glu(x, axis=-1) = a * sigmoid(b), where a and b are the two halves of x along axis."""
    _check_tensor("glu", "x", x)
    ndim = len(x.shape)
    if not -ndim <= axis < ndim or x.shape[axis] % 2:
        raise ValueError(f"For 'glu', the size of 'x' along axis {axis} must be even, but got shape {list(x.shape)}.")
    a, b = prim("Split", axis=axis, output_num=2)(x)
    return prim(P.Mul)(a, sigmoid(b))
