"""`mindspore.numpy` NaN-skipping reductions (nancumsum, nanmax, nanmin, nanvar, nanstd) and sampled-data
calculus (gradient, unwrap, interp), written with openspore ops so they also trace in GRAPH_MODE.

>>> import numpy as np, openspore.numpy as mnp
>>> x = mnp.array([[1.0, np.nan], [3.0, 4.0]])
>>> mnp.nanmax(x, axis=1).asnumpy().tolist(), mnp.nancumsum(x, axis=0).asnumpy().tolist()
([1.0, 4.0], [[1.0, 0.0], [4.0, 4.0]])
>>> mnp.gradient(mnp.array([1.0, 2.0, 4.0, 7.0])).asnumpy().tolist()
[1.0, 1.5, 2.5, 3.0]
"""
import math

from ..common import dtype as mstype
from ..core.tensor import Tensor
from .. import ops
from .array_creations import asarray

__all__ = ["nancumsum", "nanmax", "nanmin", "nanvar", "nanstd", "gradient", "unwrap", "interp"]


def _as(x):
    return x if isinstance(x, Tensor) else asarray(x)


def _float(x):
    """Integer and bool inputs compute in float32, as MindSpore's numpy does."""
    return x if x.dtype.kind == "float" else ops.cast(x, mstype.float32)


def _cast(out, dtype):
    return out if dtype is None else ops.cast(out, mstype.to_dtype(dtype, "mindspore.numpy"))


def _axis(axis):
    return tuple(axis) if isinstance(axis, list) else axis


def _nan_filled(x, value):
    return ops.masked_fill(x, ops.isnan(x), value) if x.dtype.kind == "float" else x


def nancumsum(a, axis=None, dtype=None):
    """Cumulative sum counting NaN as 0 (of the flattened array when axis is None); integers narrower than
    32 bits accumulate in int32."""
    x = _as(a)
    if x.dtype.kind in ("int", "uint", "bool") and x.dtype.bits < 32:
        x = ops.cast(x, mstype.int32)
    x = _nan_filled(x, 0.0)
    if axis is None:
        x, axis = ops.reshape(x, (-1,)), 0
    return _cast(ops.cumsum(x, axis), dtype)


def _nan_extreme(name, reduce, fill, a, axis, dtype, keepdims):
    x = _as(a)
    if x.dtype.kind != "float":
        return _cast(reduce(x, _axis(axis), keepdims), dtype)
    nan = ops.isnan(x)
    out = reduce(ops.masked_fill(x, nan, fill), _axis(axis), keepdims)
    # an all-NaN slice has no extreme: NaN, as NumPy gives (MindSpore returns a fill value there)
    all_nan = ops.all(nan, _axis(axis), keepdims)
    return _cast(ops.masked_fill(out, all_nan, float("nan")), dtype)


def nanmax(a, axis=None, dtype=None, keepdims=False):
    """Maximum over `axis` ignoring NaN."""
    return _nan_extreme("nanmax", ops.amax, float("-inf"), a, axis, dtype, keepdims)


def nanmin(a, axis=None, dtype=None, keepdims=False):
    """Minimum over `axis` ignoring NaN."""
    return _nan_extreme("nanmin", ops.amin, float("inf"), a, axis, dtype, keepdims)


def nanvar(a, axis=None, dtype=None, ddof=0, keepdims=False):
    """Variance over the non-NaN entries (divisor count − ddof; NaN where that is ≤ 0), computed and returned
    in float32 whatever the input dtype (float64 too), as MindSpore does."""
    x = ops.cast(_as(a), mstype.float32)
    keep = ops.logical_not(ops.isnan(x))
    count = ops.sum(ops.cast(keep, x.dtype), _axis(axis), True)
    mean = ops.sum(_nan_filled(x, 0.0), _axis(axis), True) / count
    dev = ops.masked_fill(x - mean, ops.logical_not(keep), 0.0)
    denom = count - ddof
    out = ops.sum(dev * dev, _axis(axis), True) / denom
    out = ops.masked_fill(out, denom <= 0, float("nan"))
    if not keepdims:
        out = ops.squeeze(out, tuple(range(len(x.shape))) if axis is None else _axis(axis))
    return _cast(out, dtype)


def nanstd(a, axis=None, dtype=None, ddof=0, keepdims=False):
    """Standard deviation over the non-NaN entries."""
    return _cast(ops.sqrt(nanvar(a, axis, None, ddof, keepdims)), dtype)


def _spacings(varargs, axes):
    if not varargs:
        return [1.0] * len(axes)
    if len(varargs) == 1 and len(axes) > 1:
        varargs = varargs * len(axes)
    if len(varargs) != len(axes):
        raise TypeError(f"For 'mindspore.numpy.gradient', expected 0, 1 or {len(axes)} spacings (one per axis), "
                        f"but got {len(varargs)}.")
    for d in varargs:
        if isinstance(d, Tensor) and len(d.shape) > 0 or isinstance(d, (list, tuple)):
            raise NotImplementedError("For 'mindspore.numpy.gradient', non-constant spacing (an array of "
                                      "coordinates) is not supported; pass one scalar spacing per axis.")
    return [float(d.asnumpy()) if isinstance(d, Tensor) else float(d) for d in varargs]


def gradient(f, *varargs, axis=None, edge_order=1):
    """Central differences inside, one-sided differences at the ends, per axis (a list for several axes)."""
    if edge_order != 1:
        raise NotImplementedError("For 'mindspore.numpy.gradient', only edge_order=1 is supported, "
                                  f"but got {edge_order}.")
    x = _float(_as(f))
    nd = len(x.shape)
    axes = list(range(nd)) if axis is None else ([axis] if isinstance(axis, int) else list(axis))
    axes = [ax % nd for ax in axes]
    outs = []
    for ax, h in zip(axes, _spacings(varargs, axes)):
        n = x.shape[ax]
        if n < 2:
            raise ValueError("For 'mindspore.numpy.gradient', the array is too small to compute a gradient: "
                             f"axis {ax} has {n} element(s), at least 2 are required.")
        first = (ops.narrow(x, ax, 1, 1) - ops.narrow(x, ax, 0, 1)) / h
        last = (ops.narrow(x, ax, n - 1, 1) - ops.narrow(x, ax, n - 2, 1)) / h
        parts = [first]
        if n > 2:
            parts.append((ops.narrow(x, ax, 2, n - 2) - ops.narrow(x, ax, 0, n - 2)) / (2.0 * h))
        parts.append(last)
        outs.append(ops.concat(parts, ax))
    return outs[0] if len(outs) == 1 else outs


def unwrap(p, discont=math.pi, axis=-1):
    """Phases with jumps larger than `discont` between neighbours along `axis` replaced by their 2π
    complement."""
    x = _float(_as(p))
    ax = axis % len(x.shape)
    n = x.shape[ax]
    if n < 2:
        raise ValueError(f"For 'mindspore.numpy.unwrap', axis {axis} needs at least 2 elements, but has {n}.")
    dd = ops.diff(x, 1, ax)
    ddmod = ops.remainder(dd + math.pi, 2.0 * math.pi) - math.pi
    # a jump of exactly +pi stays +pi rather than wrapping to -pi (NumPy's convention)
    ddmod = ops.where(ops.logical_and(ddmod == -math.pi, dd > 0), ops.full_like(ddmod, math.pi), ddmod)
    correct = ops.where(ops.abs(dd) < discont, ops.zeros_like(dd), ddmod - dd)
    head = ops.narrow(x, ax, 0, 1)
    return ops.concat([head, ops.narrow(x, ax, 1, n - 1) + ops.cumsum(correct, ax)], ax)


def interp(x, xp, fp, left=None, right=None):
    """Piecewise-linear interpolation of the points (xp, fp) (xp increasing) at x; `left`/`right` (default
    fp[0]/fp[-1]) outside [xp[0], xp[-1]]."""
    xt, xpt, fpt = _float(_as(x)), _float(_as(xp)), _float(_as(fp))
    if len(xpt.shape) != 1 or len(fpt.shape) != 1:
        raise ValueError("For 'mindspore.numpy.interp', xp and fp must be 1-D.")
    n = xpt.shape[0]
    if fpt.shape[0] != n:
        raise ValueError(f"For 'mindspore.numpy.interp', fp (the y-coordinates) must have the same length as xp, "
                         f"but got {fpt.shape[0]} and {n}.")
    # float64 when an input is float64 (as MindSpore returns), float32 otherwise
    ftype = mstype.float64 if mstype.float64 in (xt.dtype, xpt.dtype, fpt.dtype) else mstype.float32
    xt, xpt, fpt = ops.cast(xt, ftype), ops.cast(xpt, ftype), ops.cast(fpt, ftype)
    if n == 1:
        out = ops.full_like(xt, 0.0) + fpt[0]
    else:
        hi = ops.clamp(ops.searchsorted(xpt, xt, side="right"), 1, n - 1)
        lo = hi - 1
        x0, x1 = ops.gather(xpt, lo, 0), ops.gather(xpt, hi, 0)
        y0, y1 = ops.gather(fpt, lo, 0), ops.gather(fpt, hi, 0)
        out = y0 + (xt - x0) * (y1 - y0) / (x1 - x0)
    below = fpt[0] if left is None else left
    above = fpt[n - 1] if right is None else right
    out = ops.where(xt < xpt[0], ops.full_like(out, 0.0) + below, out)
    return ops.where(xt > xpt[n - 1], ops.full_like(out, 0.0) + above, out)
