"""Still more MindSpore Primitive classes computed as composites (the pattern of composite_primitives.py):
diagonal bands (*V3), linear solves, selections, histograms, data-format maps, checks and two samplers.

>>> import numpy as np, openspore as ms
>>> ms.ops.NthElement()(ms.Tensor(np.array([[3.0, 1.0, 2.0]], np.float32)), 1).asnumpy().tolist()
[2.0]
>>> ms.ops.DataFormatVecPermute()(ms.Tensor([1, 2, 3, 4])).asnumpy().tolist()
[1, 4, 2, 3]
"""
import numpy as np

from ..common import dtype as mstype
from ..core.tensor import Tensor
from . import function as F
from .composite_primitives import _primitive, _PythonPrimitive

# ---- diagonal bands and solves --------------------------------------------------------------------------------------
MatrixDiagV3 = _primitive("MatrixDiagV3", lambda self, x, k, num_rows, num_cols, padding_value: F.matrix_diag(
    x, k, num_rows, num_cols, padding_value, self.align), attrs=[("align", "RIGHT_LEFT")])
MatrixDiagPartV3 = _primitive("MatrixDiagPartV3", lambda self, x, k, padding_value: F.matrix_diag_part(
    x, k, padding_value, self.align), attrs=[("align", "RIGHT_LEFT")])
MatrixSetDiagV3 = _primitive("MatrixSetDiagV3", lambda self, x, diagonal, k: F.matrix_set_diag(
    x, diagonal, k, self.align), attrs=[("align", "RIGHT_LEFT")])
MatrixTriangularSolve = _primitive("MatrixTriangularSolve", lambda self, matrix, rhs: F.triangular_solve(
    rhs, matrix, upper=not self.lower, transpose=self.adjoint)[0], attrs=[("lower", True), ("adjoint", False)])
LuUnpack = _primitive("LuUnpack", lambda self, lu_data, lu_pivots: F.lu_unpack(
    lu_data, lu_pivots, self.unpack_data, self.unpack_pivots), attrs=[("unpack_data", True), ("unpack_pivots", True)])
LuSolve = _primitive("LuSolve", lambda self, x, lu_data, lu_pivots: F.lu_solve(x, lu_data, lu_pivots))
Lstsq = _primitive("Lstsq", lambda self, x, a: F.matrix_solve_ls(x, a, self.l2_regularizer, self.fast),
                   attrs=[("fast", True), ("l2_regularizer", 0.0)])
MatrixSolveLs = _primitive("MatrixSolveLs", lambda self, matrix, rhs, l2: F.matrix_solve_ls(matrix, rhs, l2,
                                                                                           self.fast),
                           attrs=[("fast", True)])
FillDiagonal = _primitive("FillDiagonal", lambda self, x: x.fill_diagonal(self.fill_value, self.wrap),
                          attrs=[("fill_value", 0.0), ("wrap", False)])


# ---- selections -----------------------------------------------------------------------------------------------------
def _nth_element(self, x, n):
    n = int(n.asnumpy()) if isinstance(n, Tensor) else int(n)
    if not 0 <= n < x.shape[-1]:
        raise ValueError(f"For 'NthElement', n must be in [0, {x.shape[-1]}), but got {n}.")
    values = F.sort(x, -1, self.reverse)[0]
    return F.squeeze(F.narrow(values, -1, n, 1), len(x.shape) - 1)


NthElement = _primitive("NthElement", _nth_element, attrs=[("reverse", False)],
                        doc="NthElement(reverse=False)(x, n): the n-th smallest (largest) entry of each last-axis row.")


def unique_with_pad(x, pad_num):
    """(unique values in order of first appearance, padded with pad_num to x's length; each element's index)."""
    values = x.asnumpy().reshape(-1)
    _, first, inverse = np.unique(values, return_index=True, return_inverse=True)
    order = np.argsort(first)                      # unique values by first appearance
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    out = np.full(values.shape, pad_num, values.dtype)
    out[:order.size] = values[np.sort(first)]
    return Tensor(out), Tensor(rank[inverse.reshape(-1)].astype(x.dtype.np_dtype))


UniqueWithPad = _primitive("UniqueWithPad", lambda self, x, pad_num: unique_with_pad(x, pad_num))
ParallelConcat = _primitive("ParallelConcat", lambda self, values: F.concat(list(values), 0))


def _embedding_lookup(self, params, indices, offset):
    shifted = F.cast(indices, mstype.int64) - int(offset)
    inside = (shifted >= 0) & (shifted < params.shape[0])
    rows = F.gather(params, F.where(inside, shifted, F.zeros_like(shifted)), 0)
    mask = F.reshape(inside, tuple(inside.shape) + (1,) * (len(params.shape) - 1))
    return F.where(mask, rows, F.zeros_like(rows))  # ids outside this shard's rows read zeros


EmbeddingLookup = _primitive("EmbeddingLookup", _embedding_lookup,
                             doc="EmbeddingLookup()(params, indices, offset): rows indices − offset of params, "
                                 "zeros for ids outside [0, len(params)).")
SparseGatherV2 = _primitive("SparseGatherV2", lambda self, params, indices, axis: F.gather(params, indices, axis))
AccumulateNV2 = _primitive("AccumulateNV2", lambda self, inputs: F.addn(list(inputs)))


def accumulate_n(x):
    """The elementwise sum of a list of tensors."""
    return F.addn(list(x))


# ---- histograms and formats -----------------------------------------------------------------------------------------
Histogram = _primitive("Histogram", lambda self, x: F.histc(x, self.bins, self.min, self.max),
                       attrs=[("bins", 100), ("min", 0.0), ("max", 0.0)])


def _bincount(self, array, size, weights):
    n = int(size.asnumpy()) if isinstance(size, Tensor) else int(size)
    ids = array.asnumpy().reshape(-1).astype(np.int64)
    keep = (ids >= 0) & (ids < n)
    w = weights.asnumpy().reshape(-1)[keep] if weights is not None else None
    out = np.bincount(ids[keep], w, minlength=n)[:n]
    return Tensor(out.astype(weights.dtype.np_dtype if weights is not None else np.int32))


Bincount = _primitive("Bincount", _bincount,
                      doc="Bincount()(array, size, weights): per value in [0, size), the summed weights.")


def _format_map(self, x, vector):
    src, dst = self.src_format, self.dst_format
    if sorted(src) != sorted(dst) or len(src) != len(set(src)):
        raise ValueError(f"For '{self.name}', src_format and dst_format must be permutations of each other, "
                         f"but got {src!r} and {dst!r}.")
    table = np.array([src.index(c) for c in dst])   # as MindSpore: where dst's i-th axis sits in src
    if vector:
        return F.gather(x, Tensor(table), 0)
    values = x.asnumpy().astype(np.int64) % len(src)
    return Tensor(table[values].astype(x.dtype.np_dtype))


DataFormatDimMap = _primitive("DataFormatDimMap", lambda self, x: _format_map(self, x, False),
                              attrs=[("src_format", "NHWC"), ("dst_format", "NCHW")])
DataFormatVecPermute = _primitive("DataFormatVecPermute", lambda self, x: _format_map(self, x, True),
                                  attrs=[("src_format", "NHWC"), ("dst_format", "NCHW")])


# ---- checks -----------------------------------------------------------------------------------------------------------
def _check_numerics(self, x):
    values = x.asnumpy()
    if np.isnan(values).any():
        raise RuntimeError("For 'CheckNumerics', the tensor has NaN values.")
    if np.isinf(values).any():
        raise RuntimeError("For 'CheckNumerics', the tensor has Inf values.")
    return x


def _assert(self, condition, input_data):
    if not bool(np.all(condition.asnumpy() if isinstance(condition, Tensor) else condition)):
        shown = [np.asarray(t.asnumpy() if isinstance(t, Tensor) else t).reshape(-1)[:self.summarize].tolist()
                 for t in input_data]
        raise RuntimeError(f"For 'Assert', the condition is false; input data: {shown}")


CheckNumerics = _primitive("CheckNumerics", _check_numerics, doc="CheckNumerics()(x): x, or an error on NaN/Inf.")
Assert = _primitive("Assert", _assert, attrs=[("summarize", 3)],
                    doc="Assert(summarize=3)(condition, input_data): raise (showing input_data) when condition is false.")

# ---- samplers ---------------------------------------------------------------------------------------------------------
Cauchy = _primitive("Cauchy", lambda self: self.median + self.sigma * F.tan(
    np.pi * (F.uniform(tuple(self.size), Tensor(0.0), Tensor(1.0)) - 0.5)),
    attrs=[("size", (1,)), ("median", 0.0), ("sigma", 1.0)],
    doc="Cauchy(size, median=0, sigma=1)(): Cauchy samples by inverting the CDF on uniform draws.")
LogNormalReverse = _primitive("LogNormalReverse", lambda self, x: F.cast(F.exp(
    F.standard_normal(tuple(x.shape)) * self.std + self.mean), x.dtype), attrs=[("mean", 1.0), ("std", 2.0)],
    doc="LogNormalReverse(mean=1, std=2)(x): log-normal samples of x's shape and dtype.")


def random_categorical(logits, num_sample, seed=0, dtype=mstype.int64):
    """num_sample class draws per row of unnormalised log-probabilities `logits`."""
    probs = F.softmax(logits, -1)
    return F.cast(F.multinomial(probs, num_sample, True, seed or None), dtype)


RandomCategorical = _primitive("RandomCategorical", lambda self, logits, num_sample, seed=0: random_categorical(
    logits, num_sample, seed, self.dtype), attrs=[("dtype", mstype.int64)])


def _max_unpool2d(self, x, argmax):
    if self.data_format != "NCHW":
        raise ValueError(f"For 'MaxUnpool2D', only data_format 'NCHW' is supported, but got {self.data_format!r}.")
    ksize = self.ksize[-2:] if isinstance(self.ksize, (tuple, list)) else self.ksize
    strides = self.strides if self.strides else ksize
    strides = strides[-2:] if isinstance(strides, (tuple, list)) else strides
    pads = self.pads[-2:] if isinstance(self.pads, (tuple, list)) else self.pads
    return F.max_unpool2d(x, argmax, ksize, strides, pads, self.output_shape or None)


MaxUnpool2D = _primitive("MaxUnpool2D", _max_unpool2d, attrs=[("ksize", 2), ("strides", 0), ("pads", 0),
                                                              ("output_shape", ()), ("data_format", "NCHW")],
                         doc="MaxUnpool2D(ksize, strides=0, pads=0, output_shape=())(x, argmax): max_unpool2d.")


# ---- index bookkeeping, masked writes --------------------------------------------------------------------------------
def _unravel_index(self, indices, dims):
    shape = tuple(int(d) for d in (dims.asnumpy() if isinstance(dims, Tensor) else dims))
    flat = np.asarray(indices.asnumpy()).astype(np.int64)
    if flat.size and (flat.min() < 0 or flat.max() >= int(np.prod(shape))):
        raise ValueError(f"For 'UnravelIndex', indices must lie in [0, {int(np.prod(shape))}) for dims {shape}.")
    return Tensor(np.stack(np.unravel_index(flat, shape)).astype(indices.dtype.np_dtype))


UnravelIndex = _primitive("UnravelIndex", _unravel_index,
                          doc="UnravelIndex()(indices, dims): (len(dims), N) coordinates of flat indices.")


def _list_diff(self, x, y):
    xs, ys = x.asnumpy(), y.asnumpy()
    keep = np.flatnonzero(~np.isin(xs, ys))
    return Tensor(xs[keep]), Tensor(keep.astype(self.out_idx.np_dtype))


ListDiff = _primitive("ListDiff", _list_diff, attrs=[("out_idx", mstype.int32)],
                      doc="ListDiff(out_idx=int32)(x, y): (the values of x not in y, their positions in x).")


def _index_put(self, x1, x2, indices):
    coords = Tensor(np.stack([np.asarray(i.asnumpy()).astype(np.int64) for i in indices], -1))
    values = F.broadcast_to(x2, (coords.shape[0],) + tuple(x1.shape[len(indices):]))
    if self.accumulate:
        return F.tensor_scatter_add(x1, coords, values)
    return F.tensor_scatter_update(x1, coords, values)


IndexPut = _primitive("IndexPut", _index_put, attrs=[("accumulate", 0)],
                      doc="IndexPut(accumulate=0)(x1, x2, indices): x1 with x2 written (or added) at the index tuple.")


def masked_scatter_values(x, mask, updates):
    """x with its masked positions (mask broadcast to x) filled by the leading elements of updates, in order.

    Built from shape-static ops (a running count of the mask picks each position's update), so it also compiles
    in graph mode, where the mask's values are not known."""
    shape = tuple(x.shape)
    chosen = F.reshape(F.broadcast_to(F.cast(mask, mstype.bool_), shape), (-1,))
    flat_updates = F.reshape(updates, (-1,))
    n_updates = int(np.prod(updates.shape))
    rank = F.cumsum(F.cast(chosen, mstype.int32), 0) - 1  # the update each masked position takes
    _check_enough_updates(rank, n_updates)
    picked = F.gather(flat_updates, F.clip_by_value(rank, 0, max(n_updates - 1, 0)), 0)
    out = F.select(chosen, F.cast(picked, x.dtype), F.reshape(x, (-1,)))
    return F.reshape(out, shape)


def _check_enough_updates(rank, n_updates):
    """Eager calls: the mask may not select more positions than `updates` has (a graph checks nothing here)."""
    try:
        selected = int(rank.max()) + 1 if rank.size else 0
    except Exception:  # a traced tensor in graph mode: its values are not known while compiling
        return
    if selected > n_updates:
        raise ValueError(f"For 'masked_scatter', 'updates' has {n_updates} elements but the mask selects {selected}.")


MaskedScatter = _primitive("MaskedScatter", lambda self, x, mask, updates: masked_scatter_values(x, mask, updates))

# ---- loops (Python control flow: unrolled while tracing, so they compile too) -----------------------------------------
ForiLoop = _primitive("ForiLoop", lambda self, lower, upper, loop_func, init_val: _fori(lower, upper, loop_func,
                                                                                         init_val),
                      doc="ForiLoop()(lower, upper, loop_func, init_val): val = loop_func(i, val) for i in range.")


def _fori(lower, upper, loop_func, val):
    for i in range(int(lower), int(upper)):
        val = loop_func(i, val)
    return val


def _while(self, cond_func, loop_func, init_val):
    val = init_val
    while bool(np.all(np.asarray(_concrete(cond_func(val))))):
        val = loop_func(val)
    return val


def _concrete(value):
    return value.asnumpy() if isinstance(value, Tensor) else value


WhileLoop = _primitive("WhileLoop", _while,
                       doc="WhileLoop()(cond_func, loop_func, init_val): val = loop_func(val) while cond_func(val).")


def _scan(self, loop_func, init, xs, length=None, unroll=True):
    if xs is None and length is None:
        raise ValueError("For 'Scan', give 'xs' or 'length'.")
    items = list(xs) if xs is not None else [None] * int(length)
    carry, ys = init, []
    for item in items:
        carry, y = loop_func(carry, item)
        ys.append(y)
    return carry, ys


Scan = _primitive("Scan", _scan, doc="Scan()(loop_func, init, xs, length=None): (carry, [y…]) of "
                                     "carry, y = loop_func(carry, x) over xs.")
Partial = _primitive("Partial", lambda self, func, *args: F.partial(func, *args))
TensorDump = _primitive("TensorDump", lambda self, file, input_x: F.tensordump(file, input_x), attrs=[("input_output",
                                                                                                     "out")])

# ---- resampling ----------------------------------------------------------------------------------------------------
GridSampler2D = _primitive("GridSampler2D", lambda self, input_x, grid: F.grid_sample(
    input_x, grid, self.interpolation_mode, self.padding_mode, self.align_corners),
    attrs=[("interpolation_mode", "bilinear"), ("padding_mode", "zeros"), ("align_corners", False)])
CropAndResize = _primitive("CropAndResize", lambda self, x, boxes, box_index, crop_size: F.crop_and_resize(
    x, boxes, box_index, crop_size, self.method, self.extrapolation_value),
    attrs=[("method", "bilinear"), ("extrapolation_value", 0.0)])
AdaptiveAvgPool3D = _primitive("AdaptiveAvgPool3D", lambda self, x: F.adaptive_avg_pool3d(x, self.output_size),
                               attrs=[("output_size", 1)])
MaxPool3D = _primitive("MaxPool3D", lambda self, x: F.max_pool3d(x, self.kernel_size, self.strides, self.pads,
                                                                   1, self.ceil_mode),
                       attrs=[("kernel_size", 1), ("strides", 1), ("pad_mode", "VALID"), ("pad_list", 0),
                              ("ceil_mode", None), ("data_format", "NCDHW")])
MaxPool3D.pads = property(lambda self: _explicit_pads(self, "MaxPool3D"))
AvgPool3D = _primitive("AvgPool3D", lambda self, x: F.avg_pool3d(x, self.kernel_size, self.strides,
                                                                 _explicit_pads(self, "AvgPool3D"), bool(self.ceil_mode),
                                                                 self.count_include_pad, self.divisor_override),
                       attrs=[("kernel_size", 1), ("strides", 1), ("pad_mode", "valid"), ("pad", 0),
                              ("ceil_mode", False), ("count_include_pad", True), ("divisor_override", 0),
                              ("data_format", "NCDHW")])


def _explicit_pads(self, op):
    mode = str(self.pad_mode).upper()
    pads = getattr(self, "pad_list", getattr(self, "pad", 0))
    if mode == "VALID":
        return 0
    if mode == "PAD":
        values = tuple(pads) if isinstance(pads, (tuple, list)) else (pads,) * 6
        if len(values) == 6 and values[0::2] != values[1::2]:
            raise ValueError(f"For '{op}', only symmetric pads are supported, but got {values}.")
        return tuple(values[0::2]) if len(values) == 6 else values
    raise ValueError(f"For '{op}', pad_mode {self.pad_mode!r} is not supported in openspore (use 'VALID' or 'PAD').")


# ---- second-order layer norm -------------------------------------------------------------------------------------------
def _layer_norm_grad_grad(self, x, dy, variance, mean, gamma, d_dx, d_dg, d_db):
    from ..core.primitive import PRIMITIVES
    names = ("x", "dy", "variance", "mean", "gamma", "d_dx", "d_dg", "d_db")
    for name, t in zip(names, (x, dy, variance, mean, gamma, d_dx, d_dg, d_db)):
        if not isinstance(t, Tensor):
            raise TypeError(f"For 'LayerNormGradGrad', '{name}' must be a Tensor, but got {type(t).__name__}.")
        if t.dtype != x.dtype:
            raise TypeError(f"For 'LayerNormGradGrad', the 8 inputs must have one dtype, but '{name}' is "
                            f"{t.dtype} and 'x' is {x.dtype}.")
    for group in (("x", "dy", "d_dx"), ("variance", "mean"), ("gamma", "d_dg", "d_db")):
        shapes = {n: tuple(t.shape) for n, t in zip(names, (x, dy, variance, mean, gamma, d_dx, d_dg, d_db))
                  if n in group}
        if len(set(shapes.values())) != 1:
            raise ValueError(f"For 'LayerNormGradGrad', {', '.join(group)} must have one shape, but got {shapes}.")
    # LayerNormGrad's backward rule is this op with mean and rstd as independent inputs; MindSpore's kernel
    # differentiates through x's statistics too, so their cotangents flow on to x (mean: 1/N each; rstd:
    # -rstd^2 * xhat / N), and it adds 1e-12 to the variance.
    grad = PRIMITIVES["LayerNormGrad"](self.begin_norm_axis, self.begin_params_axis)
    grad.infer(dy, x, gamma, mean, variance, None, None)
    rstd = F.rsqrt(variance + 1e-12)
    d_dy, d_x, d_gamma, d_mean, d_rstd, _, _ = grad.bprop(dy, x, gamma, mean, rstd, None, None, None,
                                                          (d_dx, d_dg, d_db))
    inv_n = grad._layout(tuple(x.shape))[2]
    xhat = (x - mean) * rstd
    return d_x + d_mean * inv_n - d_rstd * rstd * rstd * xhat * inv_n, d_dy, d_gamma


LayerNormGradGrad = _primitive(
    "LayerNormGradGrad", _layer_norm_grad_grad, attrs=[("begin_norm_axis", 1), ("begin_params_axis", 1)],
    doc="LayerNormGradGrad(begin_norm_axis=1, begin_params_axis=1)(x, dy, variance, mean, gamma, d_dx, d_dg, d_db) "
        "-> the gradients (x, dy, gamma) of LayerNormGrad's (dx, dgamma, dbeta) given their cotangents d_dx, d_dg, "
        "d_db, with mean and variance x's statistics.")


__all__ = sorted(n for n, v in list(globals().items())
                 if isinstance(v, type) and issubclass(v, _PythonPrimitive) and v is not _PythonPrimitive) + [
    "unique_with_pad", "accumulate_n", "random_categorical"]
masked_scatter = masked_scatter_values
