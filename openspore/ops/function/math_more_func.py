"""More of MindSpore's math functions, composed from primitives (so they differentiate and compile like any op
sequence): shifts and integer division variants, `einsum`, running extrema (`cummax`/`cummin`), matrix functions
(`matrix_exp`, `matrix_solve`), norms (`vector_norm`, `matrix_norm`, `pdist`), `kaiser_window`.

>>> import numpy as np, openspore as ms
>>> a, b = ms.ops.ones((2, 3)), ms.ops.ones((3, 4))
>>> ms.ops.einsum("ij,jk->ik", a, b).asnumpy().tolist()[0]
[3.0, 3.0, 3.0, 3.0]
>>> v, i = ms.ops.cummax(ms.Tensor([1.0, 3.0, 2.0, 5.0]), 0)
>>> v.asnumpy().tolist(), i.asnumpy().tolist()
([1.0, 3.0, 3.0, 5.0], [0, 1, 1, 3])
"""
import builtins
import math as _math

import numpy as np

from ...common import dtype as mstype
from ...core.tensor import Tensor
from ._base_ops import F
from .array_extra_func import diagonal as _diagonal
from .linalg_func import matrix_inverse as _matrix_inverse
from . import math_reduce_func as _reduce_func

__all__ = ["bitwise_left_shift", "bitwise_right_shift", "truncate_div", "truncate_mod", "floordiv", "floormod",
           "einsum", "cummax", "cummin", "matrix_exp", "matrix_solve", "vector_norm", "matrix_norm", "pdist",
           "kaiser_window", "is_nonzero", "approximate_equal", "eps", "dyn_shape"]


def _check(op, name, value):
    if not isinstance(value, Tensor):
        raise TypeError(f"For '{op}', '{name}' must be a Tensor, but got {type(value).__name__}.")


def _int_pair(op, input, other):
    _check(op, "input", input)
    other = other if isinstance(other, Tensor) else Tensor(np.asarray(other, input.dtype.np_dtype))
    for name, t in (("input", input), ("other", other)):
        if t.dtype.kind not in ("int", "uint"):
            raise TypeError(f"For '{op}', '{name}' must be an integer Tensor, but got Tensor[{t.dtype}].")
    return input, F.cast(other, input.dtype)


def _power_of_two(shift, dtype):
    two = Tensor(np.asarray(2, dtype.np_dtype))
    return F.pow(two, shift)


def bitwise_left_shift(input, other):
    """input << other for integer tensors (bits shifted out of the type are lost, as in C)."""
    input, other = _int_pair("bitwise_left_shift", input, other)
    return input * _power_of_two(other, input.dtype)


def bitwise_right_shift(input, other):
    """input >> other for integer tensors: an arithmetic shift (floor division by 2**other)."""
    input, other = _int_pair("bitwise_right_shift", input, other)
    return F.floor_divide(input, _power_of_two(other, input.dtype))


def truncate_div(x, y):
    """x / y rounded toward zero (integer inputs stay integer)."""
    _check("truncate_div", "x", x)
    if x.dtype.kind == "float":
        return F.trunc(x / y)
    y = y if isinstance(y, Tensor) else Tensor(np.asarray(y, x.dtype.np_dtype))
    return F.cast(F.trunc(F.cast(x, mstype.float64) / F.cast(y, mstype.float64)), x.dtype)


def truncate_mod(x, y):
    """The remainder of truncate_div: x − truncate_div(x, y)·y (sign of x)."""
    _check("truncate_mod", "x", x)
    return F.fmod(x, y)


def floordiv(x, y):
    """x / y rounded toward −∞ (as `floor_divide`)."""
    return F.floor_divide(x, y)


def floormod(x, y):
    """x − floordiv(x, y)·y (sign of y, as `floor_mod`)."""
    return F.floor_mod(x, y)


# ---- einsum ---------------------------------------------------------------------------------------------------------
def _parse_einsum(equation, operands):
    eq = equation.replace(" ", "")
    inputs, arrow, output = eq.partition("->")
    specs = inputs.split(",")
    if len(specs) != len(operands):
        raise ValueError(f"For 'einsum', the equation {equation!r} names {len(specs)} operands, but "
                         f"{len(operands)} were given.")
    ell_rank = 0
    for spec, op in zip(specs, operands):
        if "..." in spec:
            ell_rank = builtins.max(ell_rank, len(op.shape) - (len(spec) - 3))
    ell = [chr(0x391 + i) for i in range(ell_rank)]  # stand-in labels for the ellipsis dimensions
    expanded = []
    for spec, op in zip(specs, operands):
        if "..." in spec:
            n = len(op.shape) - (len(spec) - 3)
            spec = spec.replace("...", "".join(ell[ell_rank - n:]))
        if len(spec) != len(op.shape) or not all(c.isalpha() for c in spec):
            raise ValueError(f"For 'einsum', the subscripts {spec!r} do not match an operand of rank "
                             f"{len(op.shape)} in {equation!r}.")
        expanded.append(spec)
    if arrow:
        out = output.replace("...", "".join(ell))
    else:  # implicit output: the ellipsis, then the labels used once, alphabetically
        counts = {}
        for spec in expanded:
            for c in spec:
                counts[c] = counts.get(c, 0) + 1
        out = "".join(ell) + "".join(sorted(c for c, k in counts.items() if k == 1 and c not in ell))
    return expanded, out


def einsum(equation, *operands):
    """Einstein summation: each operand is aligned on the equation's labels (repeated labels within one operand
    take the diagonal), multiplied with broadcasting, and summed over the labels not in the output."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    for i, op in enumerate(operands):
        _check("einsum", f"operands[{i}]", op)
    specs, out = _parse_einsum(equation, operands)
    labels = list(out) + sorted({c for s in specs for c in s} - set(out))
    sizes = {}
    product = None
    for spec, op in zip(specs, operands):
        x = op
        while len(set(spec)) < len(spec):  # a repeated label: take the diagonal of its first two positions
            c = next(c for c in spec if spec.count(c) > 1)
            a, b = spec.index(c), spec.index(c, spec.index(c) + 1)
            x = _diagonal(x, 0, a, b)
            spec = "".join(ch for k, ch in enumerate(spec) if k not in (a, b)) + c
        for c, n in zip(spec, x.shape):
            if sizes.setdefault(c, n) != n and n != 1 and sizes[c] != 1:
                raise ValueError(f"For 'einsum', label {c!r} has sizes {sizes[c]} and {n} in {equation!r}.")
            sizes[c] = builtins.max(sizes[c], n)
        order = sorted(range(len(spec)), key=lambda k: labels.index(spec[k]))
        x = F.transpose(x, tuple(order)) if order != list(range(len(spec))) else x
        present = [spec[k] for k in order]
        shape = [x.shape[present.index(c)] if c in present else 1 for c in labels]
        x = F.reshape(x, tuple(shape))
        product = x if product is None else product * x
    summed = tuple(range(len(out), len(labels)))
    if summed:
        product = F.sum(product, summed)
    return F.broadcast_to(product, tuple(sizes[c] for c in out)) if tuple(product.shape) != tuple(
        sizes[c] for c in out) else product


# ---- running extrema ----------------------------------------------------------------------------------------------
def _cumulative_extreme(op, x, axis, better):
    _check(op, "input", x)
    rank = len(x.shape)
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise TypeError(f"The date type of 'axis' must be Int, but got {axis}.")
    if rank == 0:
        raise ValueError(f"For primitive[{op.capitalize()}], the rank of 'x' must be greater than 0, but got 0.")
    if not -rank <= axis < rank:
        raise ValueError(f"The value of axis must be in [{-rank}, {rank}], but got {axis}.")
    axis = axis % rank
    n = x.shape[axis]
    if n == 0:
        return x, F.zeros(tuple(x.shape), mstype.int64)
    floating = x.dtype.kind in ("float", "complex")
    values, indices = [], []
    best = idx = None
    for i in range(n):
        cur = F.narrow(x, axis, i, 1)
        here = F.full(tuple(cur.shape), i, dtype=mstype.int64)
        if best is None:
            best, idx = cur, here
        else:
            take = better(cur, best)  # ties take the later index, as MindSpore's Cummax/Cummin do
            if floating:  # a NaN wins once and then stays (its index with it), as in MindSpore
                take = F.logical_and(F.logical_or(take, F.isnan(cur)), F.logical_not(F.isnan(best)))
            best = F.where(take, cur, best)
            idx = F.where(take, here, idx)
        values.append(best)
        indices.append(idx)
    return F.concat(values, axis), F.concat(indices, axis)


def cummax(input, axis):
    """(values, indices): the running maximum along `axis` and where it was attained."""
    return _cumulative_extreme("cummax", input, axis, lambda cur, best: cur >= best)


def cummin(input, axis):
    """(values, indices): the running minimum along `axis` and where it was attained (int32 indices, as
    MindSpore's Cummin returns; cummax's are int64)."""
    values, indices = _cumulative_extreme("cummin", input, axis, lambda cur, best: cur <= best)
    return values, F.cast(indices, mstype.int32)


# ---- matrix functions ---------------------------------------------------------------------------------------------
def _check_square(op, x):
    _check(op, "input", x)
    if len(x.shape) < 2 or x.shape[-1] != x.shape[-2]:
        raise ValueError(f"For '{op}', the input must be a (batch of) square matrices, but got shape "
                         f"{list(x.shape)}.")


def matrix_exp(input):
    """e^A of each square matrix: scaling and squaring around a degree-18 Taylor polynomial (Horner form)."""
    _check_square("matrix_exp", input)
    a = np.abs(input.asnumpy()).sum(-2).max() if not _is_traced(input) else 1e3
    squarings = builtins.max(0, int(_math.ceil(_math.log2(a))) + 1) if a > 0.5 else 0
    x = input / (2.0 ** squarings)
    eye = F.broadcast_to(F.eye(x.shape[-1], x.shape[-1], x.dtype), tuple(x.shape))
    out = eye
    for k in range(18, 0, -1):
        out = eye + F.matmul(x, out) / float(k)
    for _ in range(squarings):
        out = F.matmul(out, out)
    return out


def _is_traced(t):
    try:
        t.asnumpy()
        return False
    except Exception:  # a graph-mode value has no data while tracing: use the safe (largest) scaling
        return True


def matrix_solve(matrix, rhs, adjoint=False):
    """X with matrix · X = rhs (matrixᵀ · X = rhs when adjoint), for batches of square matrices."""
    _check_square("matrix_solve", matrix)
    _check("matrix_solve", "rhs", rhs)
    inv = _matrix_inverse(matrix)
    if adjoint:
        inv = F.swapaxes(inv, -1, -2)
    return F.matmul(inv, rhs)


# ---- norms --------------------------------------------------------------------------------------------------------
def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    """The vector ord-norm over `dim` (an int, a tuple of ints, or None for all elements: the entries of several
    axes form one vector, as torch.linalg.vector_norm): ord in 2, 1, 0, inf, −inf or any p."""
    _check("vector_norm", "x", x)
    if dtype is not None:
        x = F.cast(x, dtype)
    if x.dtype.kind not in ("float", "complex"):
        raise TypeError(f"For 'vector_norm', the dtype of 'x' must be a float type, but got Tensor[{x.dtype}].")
    if isinstance(ord, str):
        raise ValueError(f"For 'vector_norm', 'ord' must be a number, but got {ord!r}.")
    return _reduce_func._vector_norm(x, ord, _reduce_func._axes(dim, len(x.shape), "vector_norm"), keepdim)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    """The matrix norm over the two axes `dim`: ord in 'fro', 'nuc', 1, −1, 2, −2, inf, −inf."""
    _check("matrix_norm", "A", A)
    if dtype is not None:
        A = F.cast(A, dtype)
    return F.norm(A, ord, tuple(dim), keepdim)


def pdist(input, p=2.0):
    """The p-norm distances between the rows of an (…, N, M) input, upper triangle (i < j) flattened."""
    _check("pdist", "input", input)
    if len(input.shape) < 2:
        raise ValueError(f"For 'pdist', the input must have rank at least 2, but got shape {list(input.shape)}.")
    n = input.shape[-2]
    rows, cols = np.triu_indices(n, 1)
    a = F.gather(input, Tensor(rows.astype(np.int64)), len(input.shape) - 2)
    b = F.gather(input, Tensor(cols.astype(np.int64)), len(input.shape) - 2)
    return F.norm(a - b, float(p), -1)


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None):
    """The Kaiser window I0(β·sqrt(1 − (2n/N − 1)²)) / I0(β) for n = 0 … length − 1, with N = length when
    periodic (for spectral analysis) and N = length − 1 when symmetric."""
    if not isinstance(window_length, int) or window_length < 0:
        raise ValueError(f"For 'kaiser_window', 'window_length' must be a non-negative int, but got "
                         f"{window_length!r}.")
    dtype = dtype or mstype.float32
    if window_length <= 1:
        return F.ones((window_length,), dtype)
    period = window_length if periodic else window_length - 1
    n = np.arange(window_length, dtype=np.float64)
    ratio = Tensor(np.clip(1.0 - (2.0 * n / period - 1.0) ** 2, 0.0, None))
    from .math_special_func import bessel_i0
    out = bessel_i0(F.sqrt(ratio) * float(beta)) / bessel_i0(Tensor(np.float64(beta)))
    return F.cast(out, dtype)


def is_nonzero(input):
    """True when the one-element tensor `input` is not zero (MindSpore raises for any other size)."""
    _check("is_nonzero", "input", input)
    if int(np.prod(input.shape)) != 1:
        raise ValueError(f"For 'is_nonzero', the input must hold exactly one element, but got shape "
                         f"{list(input.shape)}.")
    return bool(input.asnumpy().reshape(-1)[0] != 0)


def check_approximate_equal_tolerance(tolerance):
    """MindSpore's ApproximateEqual takes only a Python float (an int or a string is a TypeError)."""
    if not isinstance(tolerance, float):
        raise TypeError(f"For 'ApproximateEqual', the type of 'tolerance' should be 'float', but got type "
                        f"'{type(tolerance).__name__}'.")


def approximate_equal(x, y, tolerance=1e-5):
    """|x − y| < tolerance, elementwise, for float tensors of one shape (no broadcasting, as MindSpore's kernel)."""
    _check("approximate_equal", "x", x)
    _check("approximate_equal", "y", y)
    check_approximate_equal_tolerance(tolerance)
    for name, t in (("x1", x), ("x2", y)):
        if t.dtype not in (mstype.float16, mstype.float32, mstype.float64):
            raise TypeError(f"For primitive[ApproximateEqual], the input argument[{name}] must be a type of "
                            f"{{Tensor[Float16], Tensor[Float32], Tensor[Float64]}}, but got Tensor[{t.dtype}].")
    # MindSpore's shape and rank checks run in its infer/kernel, hence RuntimeError rather than ValueError
    if tuple(x.shape) != tuple(y.shape):
        raise RuntimeError(f"For 'ApproximateEqual', arg 'x1' must have the same shape as 'x2'. But got 'x1' shape: "
                           f"{tuple(x.shape)}, 'x2' shape: {tuple(y.shape)}.")
    if len(x.shape) >= 8:
        raise RuntimeError(f"For 'ApproximateEqual', the x's rank should be less than 8, but got: {len(x.shape)}")
    return F.abs(x - y) < tolerance


def eps(x):
    """x's shape filled with the machine epsilon of x's (float) dtype."""
    _check("eps", "x", x)
    if x.dtype.kind != "float":
        raise TypeError(f"For 'eps', 'x' must be a float Tensor, but got Tensor[{x.dtype}].")
    return F.full_like(x, float(np.finfo(x.dtype.np_dtype).eps))


def dyn_shape(input_x):
    """The shape of input_x as a 1-D Int64 Tensor."""
    _check("dyn_shape", "input_x", input_x)
    return Tensor(np.asarray(input_x.shape, np.int64))
