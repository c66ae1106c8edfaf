"""Functional reductions and scans: sum/mean/prod, max/min (with indices), arg-reductions, all/any, cumsum,
statistics (std/var), norms, logsumexp and gradient-clipping helpers (MindSpore 2.x signatures)."""
import builtins

from ...common import dtype as mstype
from ...core.tensor import Tensor
from ...core.registry import prim
from .. import operations as P
from .math_elementwise_func import cast

__all__ = ["sum", "mean", "prod", "amax", "amin", "max", "min", "argmax", "argmin", "all", "any",
           "cumsum", "cumprod", "std", "var", "std_mean", "var_mean", "logsumexp", "norm", "addn",
           "clip_by_global_norm"]

_FLOAT_KINDS = ("float", "complex")


def _axes(axis, ndim, op):
    """None → every axis; int or sequence → a sorted tuple of non-negative axes."""
    if axis is None:
        return tuple(range(ndim))
    items = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
    out = []
    for a in items:
        if isinstance(a, builtins.bool) or not isinstance(a, builtins.int):
            raise TypeError(f"For '{op}', the 'axis' must be an int or a tuple of ints, but got {axis!r}.")
        if not -builtins.max(ndim, 1) <= a < builtins.max(ndim, 1):
            raise ValueError(f"For '{op}', the 'axis' {a} is out of range [{-ndim}, {ndim}) for a rank-{ndim} input.")
        out.append(a % builtins.max(ndim, 1))
    return tuple(sorted(set(out)))


def _kept_shape(shape, axes):
    return tuple(1 if i in axes else s for i, s in enumerate(shape))


def _drop_axes(t, shape, axes):
    return prim(P.Reshape)(t, tuple(s for i, s in enumerate(shape) if i not in axes))


def _as_float(x):
    return x if x.dtype.kind in _FLOAT_KINDS else prim(P.Cast)(x, mstype.float32)


# ---- sums, means, products ----------------------------------------------------------------------------
def sum(input, dim=None, keepdim=False, *, dtype=None):  # noqa: A001 - MindSpore's name
    """sum(input, dim=None, keepdim=False, *, dtype=None): sum over `dim` (int, tuple, or None for all); integer
    and bool inputs sum to int64 unless `dtype` says otherwise (MindSpore 2.10, as PyTorch)."""
    if dtype is not None:
        input = cast(input, dtype)
    elif input.dtype.kind in ("int", "uint", "bool") and input.dtype is not mstype.int64:
        input = cast(input, mstype.int64)
    return prim(P.ReduceSum, keep_dims=keepdim)(input, () if dim is None else dim)


def mean(x, axis=None, keep_dims=False):
    """mean(x, axis=None, keep_dims=False): arithmetic mean over `axis` (None for all)."""
    return prim(P.ReduceMean, keep_dims=keep_dims)(x, () if axis is None else axis)


def prod(input, axis=None, keep_dims=False, dtype=None):
    """prod(input, axis=None, keep_dims=False, dtype=None): product over `axis` (None for all)."""
    if dtype is not None:
        input = cast(input, dtype)
    return prim(P.ReduceProd, keep_dims=keep_dims)(input, () if axis is None else axis)


# ---- extrema ------------------------------------------------------------------------------------------
def _masked(input, initial, where, op):
    if where is None:
        return input
    if initial is None:
        raise ValueError(f"For '{op}', 'initial' must be given together with 'where' (it fills the masked-out "
                         f"positions), but got initial=None.")
    return prim(P.Select)(cast(where, mstype.bool_), input, initial)


def _extreme(input, axis, keepdims, initial, where, op, reduce_cls, combine_cls):
    x = _masked(input, initial, where, op)
    out = reduce_cls(keep_dims=keepdims)(x, () if axis is None else axis)
    if initial is not None:
        out = cast(combine_cls()(out, initial), out.dtype)
    return out


def amax(input, axis=None, keepdims=False, *, initial=None, where=None):
    """amax(input, axis=None, keepdims=False, *, initial=None, where=None): maximum over `axis` (None for all)."""
    return _extreme(input, axis, keepdims, initial, where, "amax", P.ReduceMax, P.Maximum)


def amin(input, axis=None, keepdims=False, *, initial=None, where=None):
    """amin(input, axis=None, keepdims=False, *, initial=None, where=None): minimum over `axis` (None for all)."""
    return _extreme(input, axis, keepdims, initial, where, "amin", P.ReduceMin, P.Minimum)


def _extreme_with_index(input, axis, keepdims, initial, where, op, prim_cls, combine_cls, reduce_cls):
    if axis is None:
        # MindSpore returns a fixed index 0 when reducing over every element
        values = _extreme(input, None, False, initial, where, op, reduce_cls, combine_cls)
        return values, Tensor(0, mstype.int64)
    if isinstance(axis, builtins.bool) or not isinstance(axis, builtins.int):
        raise TypeError(f"For '{op}', the 'axis' must be an int or None, but got {type(axis).__name__}.")
    x = _masked(input, initial, where, op)
    index, values = prim_cls(axis=axis, keep_dims=keepdims)(x)
    if initial is not None:
        values = cast(combine_cls()(values, initial), values.dtype)
    return values, index


def max(input, axis=None, keepdims=False, *, initial=None, where=None):  # noqa: A001 - MindSpore's name
    """max(input, axis=None, keepdims=False, *, initial=None, where=None) -> (values, indices Int64).

    With axis=None the index is always 0 (as in MindSpore).
    """
    return _extreme_with_index(input, axis, keepdims, initial, where, "max", P.ArgMaxWithValue, P.Maximum,
                               P.ReduceMax)


def min(input, axis=None, keepdims=False, *, initial=None, where=None):  # noqa: A001 - MindSpore's name
    """min(input, axis=None, keepdims=False, *, initial=None, where=None) -> (values, indices Int64)."""
    return _extreme_with_index(input, axis, keepdims, initial, where, "min", P.ArgMinWithValue, P.Minimum,
                               P.ReduceMin)


def _arg(input, axis, keepdims, prim_cls):
    if axis is None:
        flat = prim(P.Reshape)(input, (-1,))
        out = prim_cls(axis=0, output_type=mstype.int64)(flat)
        return prim(P.Reshape)(out, (1,) * len(input.shape)) if keepdims else out
    out = prim_cls(axis=axis, output_type=mstype.int64)(input)
    if keepdims:
        out = prim(P.Reshape)(out, _kept_shape(input.shape, _axes(axis, len(input.shape), prim_cls.name)))
    return out


def argmax(input, dim=None, keepdim=False):
    """argmax(input, dim=None, keepdim=False): index (Int64) of the maximum; dim=None searches the flattened input."""
    return _arg(input, dim, keepdim, P.Argmax)


def argmin(input, axis=None, keepdims=False):
    """argmin(input, axis=None, keepdims=False): index (Int32, as MindSpore 2.10's argmin) of the minimum;
    axis=None flattens."""
    return prim(P.Cast)(_arg(input, axis, keepdims, P.Argmin), mstype.int32)


def all(input, axis=None, keep_dims=False):  # noqa: A001 - MindSpore's name
    """all(input, axis=None, keep_dims=False): logical AND over `axis` (None for all)."""
    return prim(P.ReduceAll, keep_dims=keep_dims)(input, () if axis is None else axis)


def any(input, axis=None, keep_dims=False):  # noqa: A001 - MindSpore's name
    """any(input, axis=None, keep_dims=False): logical OR over `axis` (None for all)."""
    return prim(P.ReduceAny, keep_dims=keep_dims)(input, () if axis is None else axis)


# ---- scans --------------------------------------------------------------------------------------------
def cumsum(x, axis, dtype=None):
    """cumsum(x, axis, dtype=None): running sum along `axis`."""
    if dtype is not None:
        x = cast(x, dtype)
    return prim(P.CumSum)(x, axis)


def cumprod(input, dim, dtype=None):
    """cumprod(input, dim, dtype=None): running product along `dim`."""
    if dtype is not None:
        input = cast(input, dtype)
    return prim(P.CumProd)(input, dim)


# ---- statistics ---------------------------------------------------------------------------------------
def _var_and_mean(input, axis, ddof, keepdims, op):
    if isinstance(ddof, builtins.bool):
        ddof = builtins.int(ddof)  # MindSpore accepts unbiased=True/False here
    if not isinstance(ddof, builtins.int):
        raise TypeError(f"For '{op}', 'ddof' must be an int or a bool, but got {type(ddof).__name__}.")
    x = _as_float(input)
    axes = _axes(axis, len(x.shape), op)
    count = 1
    for a in axes:
        count *= x.shape[a]
    mean_k = prim(P.ReduceMean, keep_dims=True)(x, axes)
    centered = prim(P.Sub)(x, mean_k)
    total = prim(P.ReduceSum, keep_dims=keepdims)(prim(P.Mul)(centered, centered), axes)
    var_ = prim(P.RealDiv)(total, builtins.float(builtins.max(count - ddof, 0)))
    return var_, (mean_k if keepdims else _drop_axes(mean_k, x.shape, axes))


def var(input, axis=None, ddof=0, keepdims=False):
    """var(input, axis=None, ddof=0, keepdims=False): variance with `ddof` delta degrees of freedom."""
    return _var_and_mean(input, axis, ddof, keepdims, "var")[0]


def std(input, axis=None, ddof=0, keepdims=False):
    """std(input, axis=None, ddof=0, keepdims=False): standard deviation with `ddof` delta degrees of freedom."""
    return prim(P.Sqrt)(_var_and_mean(input, axis, ddof, keepdims, "std")[0])


def var_mean(input, axis=None, ddof=0, keepdims=False):
    """var_mean(input, axis=None, ddof=0, keepdims=False) -> (variance, mean)."""
    return _var_and_mean(input, axis, ddof, keepdims, "var_mean")


def std_mean(input, axis=None, ddof=0, keepdims=False):
    """std_mean(input, axis=None, ddof=0, keepdims=False) -> (standard deviation, mean)."""
    var_, mean_ = _var_and_mean(input, axis, ddof, keepdims, "std_mean")
    return prim(P.Sqrt)(var_), mean_


def logsumexp(input, axis, keep_dims=False):
    """logsumexp(input, axis, keep_dims=False): log(sum(exp(input))) over `axis`, computed without overflow."""
    x = _as_float(input)
    axes = _axes(axis, len(x.shape), "logsumexp")
    shift = prim(P.ReduceMax, keep_dims=True)(x, axes)
    # an all -inf (or inf/NaN) slice keeps its value instead of producing inf - inf
    shift = prim(P.Select)(prim(P.IsFinite)(shift), shift, prim(P.ZerosLike)(shift))
    total = prim(P.ReduceSum, keep_dims=keep_dims)(prim(P.Exp)(prim(P.Sub)(x, shift)), axes)
    return prim(P.Add)(prim(P.Log)(total), shift if keep_dims else _drop_axes(shift, x.shape, axes))


# ---- norms --------------------------------------------------------------------------------------------
def _vector_norm(x, ord, axes, keep):
    absx = prim(P.Abs)(x)
    if ord is None or ord == 2:
        return prim(P.Sqrt)(prim(P.ReduceSum, keep_dims=keep)(prim(P.Mul)(x, x), axes))
    if ord == float("inf"):
        return prim(P.ReduceMax, keep_dims=keep)(absx, axes)
    if ord == float("-inf"):
        return prim(P.ReduceMin, keep_dims=keep)(absx, axes)
    if ord == 0:
        return prim(P.ReduceSum, keep_dims=keep)(prim(P.Cast)(prim(P.NotEqual)(x, 0), x.dtype), axes)
    if ord == 1:
        return prim(P.ReduceSum, keep_dims=keep)(absx, axes)
    if isinstance(ord, str):
        raise ValueError(f"For 'norm', ord={ord!r} is a matrix norm, but 'dim' selects one dimension.")
    return prim(P.Pow)(prim(P.ReduceSum, keep_dims=keep)(prim(P.Pow)(absx, builtins.float(ord)), axes), 1.0 / ord)


def _singular_value_norm(x, ord, axes, keep):
    """'nuc' (sum), 2 (largest), -2 (smallest) of the singular values of the matrices spanning `axes`."""
    rows, cols = axes
    rest = [i for i in range(len(x.shape)) if i not in axes]
    s = prim(P.Svd, full_matrices=False, compute_uv=False)(prim(P.Transpose)(x, tuple(rest) + (rows, cols)))[0]
    reduce = {"nuc": P.ReduceSum, 2: P.ReduceMax, -2: P.ReduceMin}[ord]
    out = prim(reduce, keep_dims=False)(s, (len(rest),))
    if keep:  # put length-1 axes back where the matrix axes were
        out = prim(P.Reshape)(out, tuple(1 if i in axes else n for i, n in enumerate(x.shape)))
    return out


def _matrix_norm(x, ord, axes, keep):
    rows, cols = axes
    absx = prim(P.Abs)(x)
    if ord == "fro":
        return prim(P.Sqrt)(prim(P.ReduceSum, keep_dims=keep)(prim(P.Mul)(x, x), tuple(sorted(axes))))
    # 1 / -1: extreme column sum; inf / -inf: extreme row sum
    if ord in (1, -1):
        inner, outer = rows, cols
    elif ord in (float("inf"), float("-inf")):
        inner, outer = cols, rows
    elif ord in ("nuc", 2, -2):
        return _singular_value_norm(x, ord, axes, keep)
    else:
        raise ValueError(f"For 'norm', the matrix norm ord={ord!r} is not supported; use None, 'fro', 'nuc', 1, -1, "
                         f"2, -2, inf or -inf.")
    sums = prim(P.ReduceSum, keep_dims=True)(absx, inner)
    pick = P.ReduceMax if ord in (1, float("inf")) else P.ReduceMin
    out = pick(keep_dims=True)(sums, outer)
    return out if keep else _drop_axes(out, x.shape, tuple(sorted(axes)))


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    """norm(A, ord=None, dim=None, keepdim=False, *, dtype=None): vector or matrix norm.

    ord=None is the 2-norm of the flattened input (Frobenius for matrices); vector ords: inf, -inf, 0, 1, 2, p;
    matrix ords (A 2-D or dim a pair): 'fro', 'nuc', 1, -1, 2, -2, inf, -inf.
    """
    if dtype is not None:
        A = cast(A, dtype)
    if A.dtype.kind not in _FLOAT_KINDS:
        raise TypeError(f"For 'norm', the dtype of 'A' must be a float type, but got Tensor[{A.dtype}].")
    ndim = len(A.shape)
    if dim is None:
        if ord is None:
            return _vector_norm(A, None, tuple(range(ndim)), keepdim)
        if ndim not in (1, 2):
            raise ValueError(f"For 'norm', 'A' must be 1-D or 2-D when 'ord' is given and 'dim' is None, "
                             f"but got a rank-{ndim} input.")
        dim = tuple(range(ndim))
    dims = tuple(dim) if isinstance(dim, (tuple, list)) else (dim,)
    axes = _axes(dims, ndim, "norm")
    if len(axes) != len(dims):
        raise ValueError(f"For 'norm', 'dim' {dims} repeats an axis.")
    if len(dims) == 1:
        return _vector_norm(A, ord, axes, keepdim)
    if len(dims) == 2:
        if ord is None:
            return _vector_norm(A, None, axes, keepdim)
        return _matrix_norm(A, ord, tuple(d % ndim for d in dims), keepdim)
    raise ValueError(f"For 'norm', 'dim' must name one or two dimensions, but got {dims}.")


# ---- lists of tensors ---------------------------------------------------------------------------------
def addn(x):
    """addn(x): the elementwise sum of a tuple/list of tensors of one shape and dtype."""
    return prim(P.AddN)(x)


def clip_by_global_norm(x, clip_norm=1.0, use_norm=None):
    """clip_by_global_norm(x, clip_norm=1.0, use_norm=None): scale every tensor of `x` by
    clip_norm / max(global_norm, clip_norm), where global_norm = sqrt(sum of squared L2 norms)."""
    if not isinstance(x, (tuple, list)):
        raise TypeError(f"For 'clip_by_global_norm', 'x' must be a tuple or list of Tensors, but got "
                        f"{type(x).__name__}.")
    if use_norm is None:
        dtype = mstype.float32
        for t in x:  # the norm is accumulated in the widest float dtype among the tensors
            if t.dtype.kind == "float":
                dtype = mstype.promote_types(dtype, t.dtype)
        squares = [prim(P.ReduceSum)(prim(P.Square)(cast(t, dtype)), ()) for t in x]
        global_norm = prim(P.Sqrt)(prim(P.AddN)(squares) if len(squares) > 1 else squares[0])
    else:
        global_norm = use_norm
    scale = prim(P.RealDiv)(clip_norm, prim(P.Maximum)(global_norm, clip_norm))
    return tuple(prim(P.Mul)(t, cast(scale, t.dtype)) for t in x)
