"""More of MindSpore's math functions (`ops.hypot`, `ops.lerp`, `ops.tensor_dot`, `ops.cdist`, ...), composed from
primitives, so they differentiate and compile like any op sequence.

>>> import openspore as ms
>>> ms.ops.hypot(ms.Tensor([3.0]), ms.Tensor([4.0])).asnumpy().tolist()
[5.0]
>>> ms.ops.tensor_dot(ms.ops.ones((2, 3)), ms.ops.ones((3, 4)), 1).shape
(2, 4)
"""
import math as _math

import numpy as np

from ...common import dtype as mstype
from ...core.primitive import PRIMITIVES
from ...core.tensor import Tensor
from ._base_ops import F

__all__ = ["deg2rad", "rad2deg", "frac", "hypot", "heaviside", "lerp", "logaddexp", "logaddexp2", "logit", "xlogy",
           "xdivy", "positive", "sinc", "float_power", "fmax", "fmin", "copysign", "ldexp", "nan_to_num", "signbit",
           "isneginf", "isposinf", "isreal", "is_complex", "is_floating_point", "is_tensor", "sgn", "dot",
           "tensor_dot", "batch_dot", "vecdot", "mv", "ger", "addmv", "addr", "addbmm", "baddbmm", "addcdiv", "kron",
           "diff", "trapz", "logspace", "linspace", "cross", "dist", "cov", "renorm", "t", "adjoint",
           "matrix_power", "vander", "count_nonzero", "nansum", "nanmean", "cdist", "aminmax", "logcumsumexp",
           "median", "quantile", "nanquantile", "msort", "clip_by_norm", "reduce_sum", "reduce_mean", "reduce_max",
           "reduce_min", "inv", "square_sum", "invert", "bitwise_and", "bitwise_or", "bitwise_xor"]


def _t(x, like=None):
    if isinstance(x, Tensor):
        return x
    return Tensor(np.asarray(x, like.dtype.np_dtype if like is not None and like.dtype.kind == "float" else None))


def _like(value, tensor):
    """`value` as a Tensor of tensor's dtype (Python numbers and arrays next to an integer tensor)."""
    return value if isinstance(value, Tensor) else Tensor(np.asarray(value, tensor.dtype.np_dtype))


def _float(x):
    return x if x.dtype.kind in ("float", "complex") else F.cast(x, mstype.float32)


def deg2rad(x):
    """Degrees to radians."""
    return _float(x) * (_math.pi / 180.0)


def rad2deg(x):
    """Radians to degrees."""
    return _float(x) * (180.0 / _math.pi)


def frac(x):
    """The fractional part, x - trunc(x) (sign of x)."""
    return x - F.trunc(x)


def hypot(input, other):
    """sqrt(input² + other²), elementwise with broadcasting."""
    return F.sqrt(F.square(_float(input)) + F.square(_float(other)))


def heaviside(input, values):
    """0 where input < 0, `values` where input == 0, 1 where input > 0."""
    one, zero = F.ones_like(input), F.zeros_like(input)
    return F.where(input == 0, F.cast(values, input.dtype) if isinstance(values, Tensor) else values,
                   F.where(input > 0, one, zero))


def lerp(input, end, weight):
    """input + weight · (end − input)."""
    return input + weight * (end - input)


def logaddexp(input, other):
    """log(exp(input) + exp(other)) without overflow."""
    big = F.maximum(input, other)
    return big + F.log(F.exp(input - big) + F.exp(other - big))


def logaddexp2(input, other):
    """log2(2**input + 2**other) without overflow."""
    big = F.maximum(input, other)
    return big + F.log(F.exp((input - big) * _math.log(2.0)) + F.exp((other - big) * _math.log(2.0))) / _math.log(2.0)


def logit(input, eps=None):
    """log(p / (1 − p)), with p clamped to [eps, 1 − eps] when eps is given."""
    p = _float(input)
    if eps is not None:
        p = F.clamp(p, eps, 1.0 - eps)
    return F.log(p / (1.0 - p))


def xlogy(input, other):
    """input · log(other), computed as written: MindSpore 2.10's CPU kernel gives nan for 0 · log(0), 0 · log(-1)
    and 0 · log(inf) (only 0 · log(y) for finite y > 0 is 0), and so does this."""
    x, y = _float(_t(input, other)), _float(_t(other, input))
    return x * F.log(y)


def xdivy(x, y):
    """x / y, 0 where x == 0."""
    x, y = _float(_t(x, y)), _float(_t(y, x))
    return F.where(x == 0, F.zeros_like(x * y), x / y)


def positive(input):
    """+input."""
    return input


def sinc(input):
    """sin(πx) / (πx), 1 at 0."""
    x = _float(input) * _math.pi
    safe = F.where(x == 0, F.ones_like(x), x)
    return F.where(x == 0, F.ones_like(x), F.sin(safe) / safe)


def float_power(input, exponent):
    """input ** exponent computed in float64."""
    x = F.cast(_t(input), mstype.float64)
    e = F.cast(exponent, mstype.float64) if isinstance(exponent, Tensor) else exponent
    return F.pow(x, e)


def fmax(input, other):
    """Elementwise maximum that ignores NaN (a NaN loses to a number)."""
    return F.where(F.isnan(input), other, F.where(F.isnan(other), input, F.maximum(input, other)))


def fmin(input, other):
    """Elementwise minimum that ignores NaN."""
    return F.where(F.isnan(input), other, F.where(F.isnan(other), input, F.minimum(input, other)))


def copysign(x, other):
    """|x| with the sign of `other`."""
    x = _float(_t(x))
    neg = _t(other, x) < 0
    return F.where(neg, -F.abs(x), F.abs(x))


def ldexp(x, other):
    """x · 2**other."""
    return _float(x) * F.pow(2.0, F.cast(other, mstype.float32) if isinstance(other, Tensor) else float(other))


def nan_to_num(input, nan=None, posinf=None, neginf=None):
    """NaN → `nan` (0), +inf → `posinf` (dtype max), −inf → `neginf` (dtype lowest)."""
    info = np.finfo(input.dtype.np_dtype)
    nan = 0.0 if nan is None else nan
    posinf = float(info.max) if posinf is None else posinf
    neginf = float(info.min) if neginf is None else neginf
    out = F.where(F.isnan(input), F.full_like(input, nan), input)
    out = F.where(F.isinf(out) & (out > 0), F.full_like(input, posinf), out)
    return F.where(F.isinf(out) & (out < 0), F.full_like(input, neginf), out)


def signbit(input):
    """True where the value is negative."""
    return input < 0


def isneginf(input):
    """True where the value is −inf."""
    return F.isinf(input) & (input < 0)


def isposinf(input):
    """True where the value is +inf."""
    return F.isinf(input) & (input > 0)


def isreal(input):
    """True everywhere for real dtypes (the imaginary part is zero)."""
    if input.dtype.kind == "complex":
        raise TypeError("For 'isreal', complex tensors are not supported by openspore yet.")
    return F.ones_like(input, dtype=mstype.bool_)


def is_complex(input):
    """Whether the dtype is complex."""
    return input.dtype.kind == "complex"


def is_floating_point(input):
    """Whether the dtype is a floating-point type."""
    return input.dtype.kind == "float"


def is_tensor(obj):
    """Whether `obj` is a Tensor."""
    return isinstance(obj, Tensor)


def sgn(input):
    """The sign (−1, 0, 1) for real tensors."""
    return F.sign(input)


# ---- products ------------------------------------------------------------------------------------
def tensor_dot(x1, x2, axes):
    """Sum of products over `axes`: an int n (last n of x1 with first n of x2) or a pair of axis lists."""
    n1, n2 = len(x1.shape), len(x2.shape)
    if isinstance(axes, int):
        a1, a2 = list(range(n1 - axes, n1)), list(range(axes))
    else:
        a1, a2 = axes
        a1 = [a1] if isinstance(a1, int) else list(a1)
        a2 = [a2] if isinstance(a2, int) else list(a2)
    a1, a2 = [a % n1 for a in a1], [a % n2 for a in a2]
    if len(a1) != len(a2) or any(x1.shape[i] != x2.shape[j] for i, j in zip(a1, a2)):
        raise ValueError(f"For 'tensor_dot', the contracted axes {a1} of shape {x1.shape} and {a2} of shape "
                         f"{x2.shape} must have the same sizes.")
    free1 = [i for i in range(n1) if i not in a1]
    free2 = [i for i in range(n2) if i not in a2]
    k = int(np.prod([x1.shape[i] for i in a1])) if a1 else 1
    left = F.reshape(F.transpose(x1, tuple(free1 + a1)), (-1, k))
    right = F.reshape(F.transpose(x2, tuple(a2 + free2)), (k, -1))
    shape = tuple(x1.shape[i] for i in free1) + tuple(x2.shape[i] for i in free2)
    return F.reshape(F.matmul(left, right), shape)


def dot(input, other):
    """Contract the last axis of `input` with the second-to-last of `other` (the last when 1-D)."""
    return tensor_dot(input, other, ((len(input.shape) - 1,), (max(len(other.shape) - 2, 0),)))


def batch_dot(x1, x2, axes=None):
    """Per-batch (axis 0) tensor_dot; `axes` default to the last axis of x1 and the second-to-last (or last) of x2."""
    n1, n2 = len(x1.shape), len(x2.shape)
    if axes is None:
        axes = (n1 - 1, n2 - 2 if n2 > 2 else n2 - 1)
    elif isinstance(axes, int):
        axes = (axes, axes)
    a1, a2 = axes[0] % n1, axes[1] % n2
    if 0 in (a1, a2):
        raise ValueError(f"For 'batch_dot', the contracted axes must not be the batch axis 0, but got {axes}.")
    batch = x1.shape[0]
    free1 = [i for i in range(1, n1) if i != a1]
    free2 = [i for i in range(1, n2) if i != a2]
    left = F.reshape(F.transpose(x1, tuple([0] + free1 + [a1])), (batch, -1, x1.shape[a1]))
    right = F.reshape(F.transpose(x2, tuple([0, a2] + free2)), (batch, x2.shape[a2], -1))
    shape = (batch,) + tuple(x1.shape[i] for i in free1) + tuple(x2.shape[i] for i in free2)
    out = F.bmm(left, right)
    return F.reshape(out, shape if len(shape) > 1 else (batch, 1))


def vecdot(x, y, *, axis=-1):
    """Sum of x·y over `axis`."""
    return F.sum(x * y, axis)


def mv(mat, vec):
    """Matrix-vector product."""
    return F.matmul(mat, vec)


def ger(input, vec2):
    """Outer product of two vectors."""
    return F.outer(input, vec2)


def addmv(input, mat, vec, *, beta=1, alpha=1):
    """beta · input + alpha · (mat @ vec)."""
    return beta * input + alpha * F.matmul(mat, vec)


def addr(x, vec1, vec2, *, beta=1, alpha=1):
    """beta · x + alpha · outer(vec1, vec2)."""
    return beta * x + alpha * F.outer(vec1, vec2)


def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """beta · input + alpha · Σ_b batch1[b] @ batch2[b]."""
    return beta * input + alpha * F.sum(F.bmm(batch1, batch2), 0)


def baddbmm(input, batch1, batch2, beta=1, alpha=1):
    """beta · input + alpha · (batch1 @ batch2), per batch."""
    return beta * input + alpha * F.bmm(batch1, batch2)


def addcdiv(input, tensor1, tensor2, value=1):
    """input + value · tensor1 / tensor2."""
    return input + value * tensor1 / tensor2


def kron(input, other):
    """Kronecker product (inputs of different rank are padded with leading 1-axes)."""
    n = max(len(input.shape), len(other.shape))
    sa = (1,) * (n - len(input.shape)) + tuple(input.shape)
    sb = (1,) * (n - len(other.shape)) + tuple(other.shape)
    a = F.reshape(input, tuple(d for s in sa for d in (s, 1)))
    b = F.reshape(other, tuple(d for s in sb for d in (1, s)))
    return F.reshape(a * b, tuple(x * y for x, y in zip(sa, sb)))


def diff(x, n=1, axis=-1, prepend=None, append=None):
    """The n-th forward difference along `axis` (after concatenating `prepend`/`append`)."""
    parts = [p for p in (prepend, x, append) if p is not None]
    out = F.concat(parts, axis) if len(parts) > 1 else x
    axis = axis % len(out.shape)
    for _ in range(n):
        size = out.shape[axis]
        out = F.narrow(out, axis, 1, size - 1) - F.narrow(out, axis, 0, size - 1)
    return out


def trapz(y, x=None, *, dx=1.0, dim=-1):
    """Trapezoidal integral of y along `dim`, with sample points x or spacing dx."""
    dim = dim % len(y.shape)
    size = y.shape[dim]
    mid = (F.narrow(y, dim, 1, size - 1) + F.narrow(y, dim, 0, size - 1)) * 0.5
    if x is None:
        return F.sum(mid, dim) * dx
    xd = diff(x, axis=-1 if len(x.shape) == 1 else dim)
    if len(x.shape) == 1 and len(y.shape) > 1:
        xd = F.reshape(xd, tuple(-1 if i == dim else 1 for i in range(len(y.shape))))
    return F.sum(mid * xd, dim)


def linspace(start, end, steps):
    """`steps` evenly spaced values from start to end (inclusive); differentiable in tensor start/end."""
    from .. import operations as P
    dtype = start.dtype if isinstance(start, Tensor) else (end.dtype if isinstance(end, Tensor) else mstype.float32)
    if dtype.kind != "float":
        dtype = mstype.float32
    start = F.cast(F.reshape(start, ()), dtype) if isinstance(start, Tensor) else Tensor(np.asarray(start, dtype.np_dtype))
    end = F.cast(F.reshape(end, ()), dtype) if isinstance(end, Tensor) else Tensor(np.asarray(end, dtype.np_dtype))
    return P.LinSpace()(start, end, int(steps))


def logspace(start, end, steps, base=10, *, dtype=mstype.float32):
    """base ** linspace(start, end, steps), in `dtype`."""
    return F.cast(F.pow(float(base), linspace(start, end, steps)), dtype)


def cross(input, other, dim=None):
    """Cross product of 3-vectors along `dim` (default: the first axis of size 3)."""
    if dim is None:
        dim = next((i for i, s in enumerate(input.shape) if s == 3), None)
        if dim is None:
            raise ValueError(f"For 'cross', no axis of size 3 in shape {input.shape}.")
    dim = dim % len(input.shape)
    a = [F.narrow(input, dim, i, 1) for i in range(3)]
    b = [F.narrow(other, dim, i, 1) for i in range(3)]
    return F.concat([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]], dim)


def dist(input, other, p=2):
    """The p-norm of (input − other), flattened."""
    d = F.reshape(input - other, (-1,))
    if p == float("inf"):
        return F.max(F.abs(d))
    if p == 0:
        return F.sum(F.cast(d != 0, d.dtype))
    return F.pow(F.sum(F.pow(F.abs(d), p)), 1.0 / p)


def cov(input, *, correction=1, fweights=None, aweights=None):
    """Covariance of the rows (variables) of `input` over its columns (observations)."""
    x = input if len(input.shape) == 2 else F.reshape(input, (1, -1))
    w = None
    if fweights is not None:
        w = F.cast(fweights, x.dtype)
    if aweights is not None:
        w = aweights if w is None else w * aweights
    if w is None:
        n = x.shape[1]
        mean = F.mean(x, 1, True)
        norm = n - correction
        c = F.matmul(x - mean, F.transpose(x - mean, (1, 0))) / norm
    else:
        wsum = F.sum(w)
        mean = F.sum(x * w, 1, keepdim=True) / wsum
        norm = wsum - correction * (F.sum(w * aweights) / wsum if aweights is not None else 1)
        c = F.matmul((x - mean) * w, F.transpose(x - mean, (1, 0))) / norm
    return F.reshape(c, ()) if len(input.shape) < 2 else c


def renorm(input, p, axis, maxnorm):
    """Rescale each slice along `axis` whose p-norm exceeds maxnorm down to maxnorm."""
    axis = axis % len(input.shape)
    others = tuple(i for i in range(len(input.shape)) if i != axis)
    # complex slices are measured by their moduli (MindSpore's Renorm takes complex64/128) and scaled by a real factor
    is_complex = input.dtype.kind == "complex"
    magnitude = PRIMITIVES["ComplexAbs"]()(input) if is_complex else F.abs(input)
    norms = F.pow(F.sum(F.pow(magnitude, p), others, keepdim=True), 1.0 / p)
    scale = F.where(norms > maxnorm, maxnorm / (norms + 1e-7), F.ones_like(norms))
    return input * (F.cast(scale, input.dtype) if is_complex else scale)


def t(input):
    """The transpose of a 2-D tensor (a 1-D tensor is returned as is)."""
    if len(input.shape) > 2:
        raise ValueError(f"For 't', the input must be 1-D or 2-D, but got shape {input.shape}.")
    return input if len(input.shape) < 2 else F.transpose(input, (1, 0))


def adjoint(x):
    """The conjugate transpose of the last two axes (the transpose for real tensors)."""
    swapped = F.swapaxes(x, -1, -2)
    return PRIMITIVES["Conj"]()(swapped) if x.dtype.kind == "complex" else swapped


def matrix_power(input, n):
    """input @ input @ ... (n times); n = 0 gives the identity. Negative n needs an inverse: not supported."""
    if n < 0:
        raise ValueError("For 'matrix_power', negative powers need a matrix inverse, which openspore does not "
                         f"have yet; got n={n}.")
    size = input.shape[-1]
    out = F.broadcast_to(F.eye(size, size, input.dtype), tuple(input.shape))
    for _ in range(n):
        out = F.matmul(out, input)
    return out


def vander(x, N=None):
    """Vandermonde matrix: columns x**(N-1), ..., x**0."""
    n = x.shape[0] if N is None else N
    if n == 0:
        return F.zeros((x.shape[0], 0), x.dtype)
    return F.stack([F.pow(x, n - 1 - i) if n - 1 - i else F.ones_like(x) for i in range(n)], 1)


# ---- reductions ----------------------------------------------------------------------------------
def count_nonzero(x, axis=(), keep_dims=False, dtype=mstype.int32):
    """Number of nonzero entries over `axis` (all axes when ())."""
    axis = None if axis == () else axis
    return F.cast(F.sum(F.cast(x != 0, mstype.float32), axis, keep_dims), dtype)


def nansum(input, axis=None, keepdims=False, *, dtype=None):
    """Sum treating NaN as zero."""
    out = F.sum(F.where(F.isnan(input), F.zeros_like(input), input), axis, keepdims)
    return out if dtype is None else F.cast(out, dtype)


def nanmean(input, axis=None, keepdims=False, *, dtype=None):
    """Mean over the non-NaN entries."""
    ok = F.cast(F.logical_not(F.isnan(input)), input.dtype)
    out = nansum(input, axis, keepdims) / F.sum(ok, axis, keepdims)
    return out if dtype is None else F.cast(out, dtype)


def reduce_sum(x, axis=()):
    """Sum over `axis` (all axes when ()). MindSpore's `ops.reduce_sum` is a ReduceSum primitive: integer sums
    keep the input dtype and a bool input gives bool (true where any element is), unlike `ops.sum`."""
    return PRIMITIVES["ReduceSum"]()(x, axis)


def reduce_mean(x, axis=()):
    """Mean over `axis` (all axes when ())."""
    return F.mean(x, None if axis == () else axis)


def reduce_max(x, axis=()):
    """Maximum over `axis` (all axes when ())."""
    return F.amax(x, None if axis == () else axis)


def reduce_min(x, axis=()):
    """Minimum over `axis` (all axes when ())."""
    return F.amin(x, None if axis == () else axis)


def square_sum(x, axis=()):
    """Σ x² over `axis`."""
    return F.sum(F.square(x), None if axis == () else axis)


def aminmax(input, *, axis=0, keepdims=False):
    """(min, max) over `axis`."""
    return F.amin(input, axis, keepdims), F.amax(input, axis, keepdims)


def logcumsumexp(input, axis):
    """log(cumsum(exp(input))) along `axis`, shifted by the maximum for stability."""
    top = F.stop_gradient(F.amax(input, axis, True))
    return F.log(F.cumsum(F.exp(input - top), axis)) + top


def cdist(x1, x2, p=2.0):
    """Pairwise p-norm distances between the rows of x1 (…, P, M) and x2 (…, R, M) → (…, P, R)."""
    d = F.abs(F.expand_dims(x1, -2) - F.expand_dims(x2, -3))
    if p == float("inf"):
        return F.amax(d, -1)
    if p == 0:
        return F.sum(F.cast(d != 0, d.dtype), -1)
    if p == 2.0:
        return F.sqrt(F.sum(F.square(d), -1))
    return F.pow(F.sum(F.pow(d, p), -1), 1.0 / p)


def median(input, axis=-1, keepdims=False):
    """(lower median, its int64 index) along `axis`."""
    axis = axis % len(input.shape)
    order = F.argsort(input, axis)
    k = (input.shape[axis] - 1) // 2
    idx = F.narrow(order, axis, k, 1)
    vals = F.gather_elements(input, axis, idx)
    if not keepdims:
        vals, idx = F.squeeze(vals, axis), F.squeeze(idx, axis)
    return vals, F.cast(idx, mstype.int64)


def _quantile(input, q, axis, keepdims, ignore_nan):
    qs = q if isinstance(q, Tensor) else Tensor(np.asarray(q, np.float32))
    scalar_q = len(qs.shape) == 0
    x = F.reshape(input, (-1,)) if axis is None else input
    ax = 0 if axis is None else axis % len(input.shape)
    values = F.sort(x, ax)[0]
    n = x.shape[ax]
    if ignore_nan:
        count = F.sum(F.cast(F.logical_not(F.isnan(x)), mstype.float32), ax, True)
    else:
        count = Tensor(np.float32(n))
    outs = []
    for qi in np.atleast_1d(qs.asnumpy()).tolist():
        pos = (count - 1) * qi
        lo = F.floor(pos)
        frac_ = pos - lo
        lo_i = F.cast(F.clamp(lo, 0, n - 1), mstype.int64)
        hi_i = F.cast(F.clamp(lo + 1, 0, n - 1), mstype.int64)
        shape = list(values.shape)
        shape[ax] = 1
        lo_i, hi_i = F.broadcast_to(lo_i, tuple(shape)), F.broadcast_to(hi_i, tuple(shape))
        a, b = F.gather_elements(values, ax, lo_i), F.gather_elements(values, ax, hi_i)
        out = a + (b - a) * F.cast(F.broadcast_to(frac_, tuple(shape)), values.dtype)
        outs.append(out if keepdims and axis is not None else F.squeeze(out, ax))
    return outs[0] if scalar_q else F.stack(outs, 0)


def quantile(input, q, axis=None, keepdims=False):
    """The q-th quantiles (linear interpolation) over `axis` (all entries when None)."""
    return _quantile(input, q, axis, keepdims, False)


def nanquantile(input, q, axis=None, keepdims=False):
    """quantile ignoring NaN (NaNs sort last, so they are skipped by counting the others)."""
    return _quantile(input, q, axis, keepdims, True)


def msort(input):
    """Sort along axis 0."""
    return F.sort(input, 0)[0]


def clip_by_norm(x, max_norm, norm_type=2.0, error_if_nonfinite=False):
    """x scaled down so that its norm is at most max_norm."""
    n = dist(x, F.zeros_like(x), norm_type)
    return x * F.clamp(max_norm / (n + 1e-6), None, 1.0)


def inv(x):
    """Elementwise reciprocal 1 / x."""
    from .. import operations as P
    return P.Inv()(x)


def invert(x):
    """Bitwise NOT of an integer tensor."""
    from .. import operations as P
    return P.Invert()(x)


def _bitwise_operands(name, input, other):
    """Both operands as tensors of their promoted dtype (MindSpore promotes before the bitwise kernel: bool & int32
    is int32, a bool tensor & a Python int is int64); a float result is refused as the kernel refuses it."""
    operands = []
    for value in (input, other):
        if isinstance(value, Tensor):
            operands.append(value.dtype)
        elif isinstance(value, (bool, int, np.integer, np.bool_)):
            operands.append(int(value) if not isinstance(value, (bool, np.bool_)) else bool(value))
        else:
            raise TypeError(f"Failed calling {name} with \"{name}({type(value).__name__})\": "
                            f"expected a Tensor or an int/bool scalar.")
    dtype = mstype.result_type(*operands)
    if dtype.kind not in ("int", "uint", "bool"):
        prim = "Bitwise" + name[8:].capitalize()
        raise TypeError(f"For primitive[{prim}], the input argument[x] must be a type of {{Tensor[Bool], "
                        f"Tensor[Int8], Tensor[Int16], Tensor[Int32], Tensor[Int64], Tensor[UInt8], Tensor[UInt16], "
                        f"Tensor[UInt32], Tensor[UInt64]}}, but got Tensor[{str(dtype).capitalize()}].")

    def as_tensor(value):
        if isinstance(value, Tensor):
            return value if value.dtype is dtype else F.cast(value, dtype)
        return Tensor(np.asarray(value, dtype.np_dtype))
    return as_tensor(input), as_tensor(other)


def bitwise_and(input, other):
    """Elementwise bitwise AND (integer and bool tensors, Python ints; operands promoted first)."""
    from .. import operations as P
    return P.BitwiseAnd()(*_bitwise_operands("bitwise_and", input, other))


def bitwise_or(input, other):
    """Elementwise bitwise OR (integer and bool tensors, Python ints; operands promoted first)."""
    from .. import operations as P
    return P.BitwiseOr()(*_bitwise_operands("bitwise_or", input, other))


def bitwise_xor(input, other):
    """Elementwise bitwise XOR (integer and bool tensors, Python ints; operands promoted first)."""
    from .. import operations as P
    return P.BitwiseXor()(*_bitwise_operands("bitwise_xor", input, other))
