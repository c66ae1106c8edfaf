"""Tensor math methods (reductions, elementwise, in-place), installed onto `core.Tensor`."""
from ..core.tensor import Tensor
from . import function as F
from .tensor_methods import _inplace


def _pick(axis, dim):
    return dim if dim is not None else axis


def _keep(keepdims, keepdim, keep_dims=None):
    for value in (keepdim, keep_dims):
        if value is not None:
            return value
    return keepdims


def _install(name):
    def deco(fn):
        setattr(Tensor, name, fn)
        return fn
    return deco


# ---- reductions -------------------------------------------------------------------------------
@_install("sum")
def _sum(self, axis=None, keepdims=False, *, dtype=None, dim=None, keepdim=None, initial=None):
    out = F.sum(self, _pick(axis, dim), _keep(keepdims, keepdim), dtype=dtype)
    return out + initial if initial is not None else out


@_install("mean")
def _mean(self, axis=None, keep_dims=False, *, dim=None, keepdim=None, keepdims=None, dtype=None):
    x = F.cast(self, dtype) if dtype is not None else self
    return F.mean(x, _pick(axis, dim), _keep(keep_dims, keepdim, keepdims))


@_install("prod")
def _prod(self, axis=None, keep_dims=False, *, dim=None, keepdim=None, keepdims=None, dtype=None):
    x = F.cast(self, dtype) if dtype is not None else self
    return F.prod(x, _pick(axis, dim), _keep(keep_dims, keepdim, keepdims))


def _extreme(fn_values, fn_pair):
    def method(self, axis=None, keepdims=False, *, dim=None, keepdim=None, initial=None, where=None,
               return_indices=False):
        """NumPy style (`axis`) returns values; PyTorch style (`dim`) returns (values, indices)."""
        keep = _keep(keepdims, keepdim)
        if dim is not None or return_indices:
            return fn_pair(self, _pick(axis, dim), keep)
        return fn_values(self, axis, keep)
    return method


Tensor.max = _extreme(lambda x, a, k: F.amax(x, a, k), lambda x, a, k: F.max(x, a, k))
Tensor.min = _extreme(lambda x, a, k: F.amin(x, a, k), lambda x, a, k: F.min(x, a, k))
Tensor.amax = lambda self, axis=None, keepdims=False: F.amax(self, axis, keepdims)
Tensor.amin = lambda self, axis=None, keepdims=False: F.amin(self, axis, keepdims)


@_install("argmax")
def _argmax(self, axis=None, keepdims=False, *, dim=None, keepdim=None):
    return F.argmax(self, _pick(axis, dim), _keep(keepdims, keepdim))


@_install("argmin")
def _argmin(self, axis=None, keepdims=False, *, dim=None, keepdim=None):
    return F.argmin(self, _pick(axis, dim), _keep(keepdims, keepdim))


@_install("std")
def _std(self, axis=None, ddof=0, keepdims=False, *, dim=None, correction=None, keepdim=None, unbiased=None):
    if correction is not None:
        ddof = correction
    if unbiased is not None:
        ddof = 1 if unbiased else 0
    return F.std(self, _pick(axis, dim), ddof, _keep(keepdims, keepdim))


@_install("var")
def _var(self, axis=None, ddof=0, keepdims=False, *, dim=None, correction=None, keepdim=None, unbiased=None):
    if correction is not None:
        ddof = correction
    if unbiased is not None:
        ddof = 1 if unbiased else 0
    return F.var(self, _pick(axis, dim), ddof, _keep(keepdims, keepdim))


def _no_out(name, out):
    # numpy's np.all(t) / np.any(t) call t.all(axis=None, out=None): accept that call, refuse a real `out`
    if out is not None:
        raise TypeError(f"Tensor.{name}: 'out' is not supported; use the returned Tensor.")


@_install("all")
def _all(self, axis=None, keep_dims=False, *, dim=None, keepdim=None, keepdims=None, out=None):
    _no_out("all", out)
    return F.all(self, _pick(axis, dim), _keep(keep_dims, keepdim, keepdims))


@_install("any")
def _any(self, axis=None, keep_dims=False, *, dim=None, keepdim=None, keepdims=None, out=None):
    _no_out("any", out)
    return F.any(self, _pick(axis, dim), _keep(keep_dims, keepdim, keepdims))


Tensor.cumsum = lambda self, dim=0, *, dtype=None, axis=None: F.cumsum(self, _pick(dim, axis), dtype=dtype)
Tensor.cumprod = lambda self, dim=0, *, dtype=None: F.cumprod(self, dim, dtype=dtype)
Tensor.norm = lambda self, ord=None, dim=None, keepdim=False, *, dtype=None: F.norm(self, ord, dim, keepdim, dtype=dtype)
Tensor.logsumexp = lambda self, axis, keepdims=False: F.logsumexp(self, axis, keepdims)
Tensor.topk = lambda self, k, dim=-1, largest=True, sorted=True: F.topk(self, k, dim, largest, sorted)
Tensor.sort = lambda self, dim=-1, descending=False, stable=False, axis=None: F.sort(self, _pick(dim, axis), descending)
Tensor.argsort = lambda self, axis=-1, descending=False, dim=None: F.argsort(self, _pick(axis, dim), descending)

# ---- elementwise ------------------------------------------------------------------------------
for _name in ("abs", "sqrt", "rsqrt", "exp", "expm1", "log", "log1p", "log2", "log10", "neg", "reciprocal", "floor",
              "ceil", "round", "trunc", "sign", "square", "sin", "cos", "tan", "asin", "acos", "atan", "sinh",
              "cosh", "tanh", "asinh", "acosh", "atanh", "erf", "erfc", "sigmoid", "isnan", "isinf",
              "isfinite", "logical_not"):
    setattr(Tensor, _name, (lambda fn: lambda self: fn(self))(getattr(F, _name)))
Tensor.negative = Tensor.neg
Tensor.absolute = Tensor.abs
Tensor.arcsin, Tensor.arccos, Tensor.arctan = Tensor.asin, Tensor.acos, Tensor.atan

for _name in ("add", "sub", "mul", "div", "pow", "maximum", "minimum", "atan2", "fmod", "remainder",
              "floor_divide", "true_divide", "equal", "ne", "not_equal", "lt", "less", "le", "less_equal",
              "gt", "greater", "ge", "greater_equal", "eq", "logical_and", "logical_or", "logical_xor",
              "matmul", "mm", "bmm", "outer", "inner", "isclose", "allclose"):
    setattr(Tensor, _name, (lambda fn: lambda self, other, *a, **k: fn(self, other, *a, **k))(getattr(F, _name)))
Tensor.subtract, Tensor.multiply, Tensor.divide = Tensor.sub, Tensor.mul, Tensor.div


def _scaled(other, alpha):
    return other if alpha == 1 else F.mul(other, alpha)


# `x.add(y, alpha=a)` / `x.sub(y, alpha=a)`: x ± a*y (MindSpore 2.x's Tensor methods take `alpha`)
Tensor.add = lambda self, other, *, alpha=1: F.add(self, _scaled(other, alpha))
Tensor.sub = lambda self, other, *, alpha=1: F.sub(self, _scaled(other, alpha))
Tensor.subtract = Tensor.sub


@_install("resize")
def _resize(self, *new_shape):
    """A tensor of `new_shape` holding this one's elements in order, cut short or padded with zeros (numpy's
    ndarray.resize; MindSpore's Tensor.resize)."""
    import numpy as np
    shape = tuple(new_shape[0]) if len(new_shape) == 1 and isinstance(new_shape[0], (tuple, list)) else new_shape
    flat = self.asnumpy().ravel()
    out = np.zeros(int(np.prod(shape, dtype=np.int64)), flat.dtype)
    n = min(out.size, flat.size)
    out[:n] = flat[:n]
    return Tensor(out.reshape(shape), self.dtype)


@_install("clip")
def _clip(self, min=None, max=None):  # noqa: A002 - MindSpore's argument names
    return F.clamp(self, min, max)


Tensor.clamp = _clip
Tensor.addmm = lambda self, mat1, mat2, *, beta=1, alpha=1: F.addmm(self, mat1, mat2, beta=beta, alpha=alpha)
Tensor.addcmul = lambda self, t1, t2, *, value=1: F.addcmul(self, t1, t2, value=value)
Tensor.trace = lambda self: F.trace(self)
Tensor.where = lambda self, condition, y: F.where(condition, self, y)
Tensor.softmax = lambda self, axis=-1, dtype=None: F.softmax(self, axis, dtype=dtype)
Tensor.log_softmax = lambda self, axis=-1: F.log_softmax(self, axis)
Tensor.masked_fill = lambda self, mask, value: F.masked_fill(self, mask, value)
Tensor.masked_select = lambda self, mask: F.masked_select(self, mask)
Tensor.index_select = lambda self, axis, index: F.index_select(self, axis, index)


@_install("gather")
def _gather(self, input_indices, axis=None, batch_dims=0, *, dim=None, index=None):
    """MindSpore's two forms: gather(input_indices, axis, batch_dims=0) takes whole slices along `axis` (ops.gather);
    gather(dim, index), an int then a Tensor, picks one element per index position (ops.gather_elements)."""
    if dim is not None or index is not None:
        return F.gather_elements(self, dim, index)
    if isinstance(input_indices, int) and isinstance(axis, Tensor):
        return F.gather_elements(self, input_indices, axis)
    if axis is None:
        raise TypeError("Tensor.gather(input_indices, axis, batch_dims=0): 'axis' is required.")
    return F.gather(self, input_indices, axis, batch_dims)
Tensor.gather_elements = Tensor.gather
Tensor.scatter = lambda self, axis, index, src: F.scatter(self, axis, index, src)
Tensor.nonzero = lambda self, *, as_tuple=False: F.nonzero(self, as_tuple=as_tuple)
Tensor.diag = lambda self: F.diag(self)
Tensor.tril = lambda self, diagonal=0: F.tril(self, diagonal)
Tensor.triu = lambda self, diagonal=0: F.triu(self, diagonal)
Tensor.flip = lambda self, dims: F.flip(self, dims)
Tensor.roll = lambda self, shifts, dims=None: F.roll(self, shifts, dims)
Tensor.unique = lambda self: F.unique(self)
Tensor.numel = lambda self: self.size


# ---- in place (functional under the hood; the tensor object keeps its identity) ----------------
Tensor.zero_ = lambda self: _inplace(self, F.zeros_like(self))
Tensor.copy_ = lambda self, src, non_blocking=False: _inplace(self, src if isinstance(src, Tensor) else Tensor(src))
Tensor.fill_ = lambda self, value: _inplace(self, F.fill(self.dtype, self.shape, value))
Tensor.fill = lambda self, value: F.fill(self.dtype, self.shape, value)
Tensor.uniform_ = lambda self, from_=0, to=1, *, generator=None: _inplace(
    self, F.uniform(self.shape, Tensor(from_, self.dtype), Tensor(to, self.dtype), dtype=self.dtype))
Tensor.normal_ = lambda self, mean=0, std=1, *, generator=None: _inplace(
    self, F.standard_normal(self.shape) * std + mean)
Tensor.add_ = lambda self, other, *, alpha=1: _inplace(self, F.add(self, other * alpha if alpha != 1 else other))
Tensor.sub_ = lambda self, other, *, alpha=1: _inplace(self, F.sub(self, other * alpha if alpha != 1 else other))
Tensor.mul_ = lambda self, other: _inplace(self, F.mul(self, other))
Tensor.div_ = lambda self, other: _inplace(self, F.div(self, other))
Tensor.clamp_ = lambda self, min=None, max=None: _inplace(self, F.clamp(self, min, max))
Tensor.masked_fill_ = lambda self, mask, value: _inplace(self, F.masked_fill(self, mask, value))


def _assign_value(self, value):
    _inplace(self, value if isinstance(value, Tensor) else Tensor(value, self.dtype))
    return self


if not hasattr(Tensor, "assign_value"):
    Tensor.assign_value = _assign_value
