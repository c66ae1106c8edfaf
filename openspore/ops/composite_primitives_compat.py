"""More MindSpore Primitive classes computed as composites (the pattern of composite_primitives.py): placement,
Python-function primitives (PyFunc, Custom "pyfunc", Morph), 3-D resizing/pooling/unpooling, small math and
bookkeeping ops (histograms, bit packing, ragged ranges, confusion matrices, n-gram bans).

>>> import numpy as np, openspore as ms
>>> from openspore import ops
>>> ops.CompareAndBitpack()(ms.Tensor(np.arange(8, dtype=np.float32)), ms.Tensor(3.0, ms.float32)).asnumpy().tolist()
[15]
>>> ops.Custom(lambda a, b: a + b, out_shape=lambda a, b: a, out_dtype=lambda a, b: a, func_type="pyfunc")(
...     ms.Tensor([1.0, 2.0]), ms.Tensor([3.0, 4.0])).asnumpy().tolist()
[4.0, 6.0]
"""
import numpy as np

from ..common import dtype as mstype
from ..core import autograd
from ..core.tensor import Tensor
from . import function as F
from .composite_primitives import _primitive, _PythonPrimitive
from .function.nn_unpool_func import _unpool


def _host(x):
    return x.asnumpy() if isinstance(x, Tensor) else np.asarray(x)


def _int(name, op, value):
    value = _host(value)
    if value.size != 1:
        raise ValueError(f"For '{op}', '{name}' must hold one value, but got shape {list(value.shape)}.")
    return int(value.reshape(-1)[0])


# ---- placement (Print is a primitive of the table: ops/defs/debug.py) ----------------------------------------------
MoveTo = _primitive("MoveTo", lambda self, x, to="CPU", blocking=True: F.move_to(x, to, blocking),
                    doc="MoveTo()(x, to='CPU', blocking=True): a copy of x placed on device `to`.")
LogSoftmaxExt = _primitive(
    "LogSoftmaxExt", lambda self, input, dim=None, dtype=None: F.log_softmax(
        input if dtype is None else F.cast(input, dtype), -1 if dim is None else dim),
    doc="LogSoftmaxExt()(input, dim=None, dtype=None): log-softmax over `dim` (default the last axis).")


# ---- Python-function primitives ---------------------------------------------------------------------------------------
def _call_numpy(op, fn, inputs):
    outs = fn(*[_host(x) if isinstance(x, Tensor) else x for x in inputs])
    wrap = (lambda o: o if isinstance(o, Tensor) else Tensor(np.asarray(o)))
    return tuple(wrap(o) for o in outs) if isinstance(outs, (tuple, list)) else wrap(outs)


def _pyfunc(self, *inputs):
    outs = _call_numpy("PyFunc", self.fn, inputs)
    outs = outs if isinstance(outs, tuple) else (outs,)
    if len(outs) != len(self.out_types):
        raise ValueError(f"For 'PyFunc', the function returned {len(outs)} outputs but out_types declares "
                         f"{len(self.out_types)}.")
    return tuple(F.cast(o, t) if o.dtype is not t else o for o, t in zip(outs, self.out_types))


PyFunc = _primitive("PyFunc", _pyfunc, attrs=[("fn", None), ("in_types", ()), ("in_shapes", ()),
                                               ("out_types", ()), ("out_shapes", ()), ("stateful", True)],
                    doc="PyFunc(fn, in_types, in_shapes, out_types, out_shapes, stateful=True)(*inputs): fn called "
                        "on the inputs as numpy arrays; its outputs (a tuple) become Tensors of out_types.")


class Custom(_PythonPrimitive):
    """Custom(func, out_shape=None, out_dtype=None, func_type='hybrid', bprop=None, reg_info=None): a user
    operator. openspore runs func_type "pyfunc" (func gets numpy arrays and returns arrays; `bprop(*inputs, out,
    dout)` written with ops, when given, is its backward rule) and "hybrid" functions marked with `ops.kernel` (run
    as Python); the other compiled kinds need a compiler it lacks."""
    _attrs = (("func", None), ("out_shape", None), ("out_dtype", None), ("func_type", "hybrid"), ("bprop", None),
              ("reg_info", None))

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        hybrid = self.func_type == "hybrid" and getattr(self.func, "ms_kernel_flag", False)  # ops.kernel: Python
        if self.func_type != "pyfunc" and not hybrid:
            raise ValueError(f"For 'Custom', func_type {self.func_type!r} needs a kernel compiler (AKG, TBE, AOT, "
                             f"Julia) that openspore does not have; use func_type='pyfunc' (func computes on numpy "
                             f"arrays).")
        if not callable(self.func):
            raise TypeError(f"For 'Custom', 'func' must be callable, but got {type(self.func).__name__}.")

    def _forward(self, *inputs):
        out = _call_numpy("Custom", self.func, inputs)
        if callable(self.out_dtype):
            want = self.out_dtype(*[x.dtype if isinstance(x, Tensor) else x for x in inputs])
            if isinstance(out, Tensor) and isinstance(want, mstype.Type) and out.dtype is not want:
                out = F.cast(out, want)
        elif isinstance(self.out_dtype, mstype.Type) and isinstance(out, Tensor) and out.dtype is not self.out_dtype:
            out = F.cast(out, self.out_dtype)
        return out

    def __call__(self, *inputs):
        if self.bprop is None:
            return self._forward(*inputs)
        return autograd.custom_bprop_call(self._forward, self.bprop, tuple(inputs))


Morph = _primitive("Morph", lambda self, *args: self.fn(*args),
                   attrs=[("fn", None), ("infer_shape", None), ("infer_dtype", None)],
                   doc="Morph(fn, infer_shape, infer_dtype)(*args): fn applied to the inputs (written with ops, so "
                       "it differentiates and compiles like them).")


# ---- 3-D pooling, unpooling, resizing ---------------------------------------------------------------------------------
def _max_unpool3d(self, x, argmax):
    return _unpool("MaxUnpool3D", x, argmax, self.ksize, self.strides or self.ksize, self.pads,
                   tuple(self.output_shape)[-3:] if self.output_shape else None, 3)


MaxUnpool3D = _primitive("MaxUnpool3D", _max_unpool3d, attrs=[("ksize", 1), ("strides", 0), ("pads", 0),
                                                            ("output_shape", ()), ("data_format", "NCDHW")],
                         doc="MaxUnpool3D(ksize, strides=0, pads=0, output_shape=(), data_format='NCDHW')(x, argmax): "
                             "x's values written at the flat D·H·W positions `argmax`, zeros elsewhere.")


def _bins(n_in, n_out):
    return [(int(np.floor(i * n_in / n_out)), int(np.ceil((i + 1) * n_in / n_out))) for i in range(n_out)]


def _adaptive_max_pool3d(x, output_size):
    """(max over each adaptive D×H×W bin, flat index of the max in the input's D·H·W plane)."""
    d, h, w = x.shape[-3:]
    size = tuple(output_size) if isinstance(output_size, (tuple, list)) else (output_size,) * 3
    size = tuple(s if s is not None else n for s, n in zip(size, (d, h, w)))
    flat = F.reshape(x, tuple(x.shape[:-3]) + (d * h * w,))
    values, indices = [], []
    for d0, d1 in _bins(d, size[0]):
        for h0, h1 in _bins(h, size[1]):
            for w0, w1 in _bins(w, size[2]):
                cells = np.array([(i * h + j) * w + k for i in range(d0, d1) for j in range(h0, h1)
                                  for k in range(w0, w1)], np.int64)
                window = F.gather(flat, Tensor(cells), len(flat.shape) - 1)
                values.append(F.amax(window, -1))
                indices.append(F.gather(Tensor(cells), F.argmax(window, -1), 0))
    lead = tuple(x.shape[:-3])
    out = F.reshape(F.stack(values, -1), lead + size)
    return out, F.reshape(F.cast(F.stack(indices, -1), mstype.int64), lead + size)


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """Max pooling of the last three axes to `output_size` bins (None keeps an axis); with return_indices also the
    flat D·H·W index of each maximum."""
    if not isinstance(input, Tensor) or len(input.shape) not in (4, 5):
        raise ValueError(f"For 'adaptive_max_pool3d', the input must be a 4-D or 5-D Tensor, but got "
                         f"{getattr(input, 'shape', input)!r}.")
    out, idx = _adaptive_max_pool3d(input, output_size)
    return (out, idx) if return_indices else out


AdaptiveMaxPool3D = _primitive(
    "AdaptiveMaxPool3D", lambda self, x, output_size: adaptive_max_pool3d(
        x, tuple(_host(output_size).tolist()) if isinstance(output_size, Tensor) else output_size, True),
    doc="AdaptiveMaxPool3D()(x, output_size): (max over adaptive bins, int64 flat argmax).")


def max_unpool3d(x, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The inverse of max_pool3d: x's values written at `indices` (flat positions in each D·H·W output volume)."""
    return _unpool("max_unpool3d", x, indices, kernel_size, stride, padding, output_size, 3)


def _resize_axis(x, axis, out_size, mode, align_corners, scale=None):
    """Resize one axis by gathering (nearest) or blending two gathered neighbours (linear)."""
    n = x.shape[axis]
    if mode == "nearest":
        step = (1.0 / scale) if scale else n / out_size
        src = np.minimum(np.floor(np.arange(out_size) * step).astype(np.int64), n - 1)
        return F.gather(x, Tensor(src), axis)
    if align_corners:
        pos = np.arange(out_size) * ((n - 1) / (out_size - 1) if out_size > 1 else 0.0)
    else:
        step = (1.0 / scale) if scale else n / out_size
        pos = np.clip((np.arange(out_size) + 0.5) * step - 0.5, 0.0, None)
    lo = np.minimum(np.floor(pos).astype(np.int64), n - 1)
    hi = np.minimum(lo + 1, n - 1)
    frac = (pos - lo).astype(x.dtype.np_dtype).reshape((-1,) + (1,) * (len(x.shape) - axis - 1))
    a, b = F.gather(x, Tensor(lo), axis), F.gather(x, Tensor(hi), axis)
    return a + (b - a) * Tensor(frac)


def _upsample3d(op, x, output_size, scales, mode, align_corners=False):
    if not isinstance(x, Tensor) or len(x.shape) != 5:
        raise ValueError(f"For '{op}', 'x' must be a 5-D Tensor (N, C, D, H, W), but got {getattr(x, 'shape', x)!r}.")
    if (output_size is None) == (scales is None):
        raise ValueError(f"For '{op}', exactly one of 'output_size' and 'scales' must be given.")
    if output_size is not None:
        size = tuple(int(v) for v in (_host(output_size).tolist() if isinstance(output_size, Tensor) else output_size))
        factors = (None,) * 3
    else:
        factors = tuple(float(s) for s in scales)
        size = tuple(int(np.floor(n * s)) for n, s in zip(x.shape[2:], factors))
    out = x
    for i in range(3):
        out = _resize_axis(out, 2 + i, size[i], mode, align_corners, factors[i])
    return out


UpsampleNearest3D = _primitive(
    "UpsampleNearest3D", lambda self, x, output_size=None, scales=None: _upsample3d(
        "UpsampleNearest3D", x, output_size if output_size is not None else self.output_size,
        scales if scales is not None else self.scales, "nearest"),
    attrs=[("output_size", None), ("scales", None)],
    doc="UpsampleNearest3D()(x, output_size=None, scales=None): nearest-neighbour resize of (N, C, D, H, W).")
UpsampleTrilinear3D = _primitive(
    "UpsampleTrilinear3D", lambda self, x, output_size=None, scales=None: _upsample3d(
        "UpsampleTrilinear3D", x, output_size, scales, "linear", self.align_corners),
    attrs=[("align_corners", False), ("half_pixel_centers", False)],
    doc="UpsampleTrilinear3D(align_corners=False)(x, output_size=None, scales=None): trilinear resize.")


# ---- math and bookkeeping ---------------------------------------------------------------------------------------------
FloatStatus = _primitive(
    "FloatStatus", lambda self, x: Tensor(np.array([float(not np.isfinite(_host(x)).all())], np.float32)),
    doc="FloatStatus()(x): [1.0] when x holds a NaN or Inf, else [0.0].")


def _sub_and_filter(self, input_x, max_num, offset):
    values = _host(input_x).reshape(-1) - _int("offset", "SubAndFilter", offset)
    keep = (values >= 0) & (values < _int("max_num", "SubAndFilter", max_num))
    return Tensor(values[keep].astype(input_x.dtype.np_dtype)), Tensor(np.nonzero(keep)[0].astype(
        input_x.dtype.np_dtype))


SubAndFilter = _primitive("SubAndFilter", _sub_and_filter,
                          doc="SubAndFilter()(input_x, max_num, offset): (x − offset kept where in [0, max_num), "
                              "their positions).")


def _no_repeat_ngram(self, state_seq, log_probs):
    n = self.ngram_size
    seq, out = _host(state_seq), _host(log_probs).copy()
    flat_seq, flat_out = seq.reshape(-1, seq.shape[-1]), out.reshape(-1, out.shape[-1])
    low = np.finfo(out.dtype).min if out.dtype.kind == "f" else np.iinfo(out.dtype).min
    for row, tokens in enumerate(flat_seq):
        if len(tokens) < n:
            continue
        prefix = tuple(tokens[len(tokens) - n + 1:]) if n > 1 else ()
        for start in range(len(tokens) - n + 1):
            if tuple(tokens[start:start + n - 1]) == prefix:
                flat_out[row, tokens[start + n - 1]] = low  # this token would repeat an n-gram
    return Tensor(flat_out.reshape(out.shape))


NoRepeatNGram = _primitive("NoRepeatNGram", _no_repeat_ngram, attrs=[("ngram_size", 1)],
                           doc="NoRepeatNGram(ngram_size=1)(state_seq, log_probs): log_probs with every token that "
                               "would complete an n-gram already in the sequence set to the lowest value.")


def _confusion_matrix(self, labels, predictions, weights=None):
    lab, pred = _host(labels).reshape(-1).astype(np.int64), _host(predictions).reshape(-1).astype(np.int64)
    n = self.num_classes
    if lab.size and (min(lab.min(), pred.min()) < 0 or max(lab.max(), pred.max()) >= n):
        raise ValueError(f"For 'ConfusionMatrix', labels and predictions must lie in [0, {n}).")
    dtype = mstype.to_dtype(self.dtype, "ConfusionMatrix").np_dtype
    w = _host(weights).reshape(-1) if weights is not None else np.ones(lab.shape)
    out = np.zeros((n, n), np.float64)
    np.add.at(out, (lab, pred), w)
    return Tensor(out.astype(dtype))


ConfusionMatrix = _primitive("ConfusionMatrix", _confusion_matrix, attrs=[("num_classes", 2), ("dtype", "int32")],
                             doc="ConfusionMatrix(num_classes, dtype='int32')(labels, predictions, weights=None): "
                                 "out[label, prediction] sums the weights (or counts).")


def _compare_and_bitpack(self, x, threshold):
    bits = _host(x) > _host(threshold)
    if bits.shape[-1] % 8:
        raise ValueError(f"For 'CompareAndBitpack', the last dimension of 'x' must be a multiple of 8, but got "
                         f"{bits.shape[-1]}.")
    return Tensor(np.packbits(bits, axis=-1))


CompareAndBitpack = _primitive("CompareAndBitpack", _compare_and_bitpack,
                               doc="CompareAndBitpack()(x, threshold): x > threshold packed 8 per uint8, first "
                                   "element in the highest bit.")


def _ragged_range(self, starts, limits, deltas):
    s, l, d = np.broadcast_arrays(_host(starts).reshape(-1), _host(limits).reshape(-1), _host(deltas).reshape(-1))
    if (d == 0).any():
        raise ValueError("For 'RaggedRange', 'deltas' must not be zero.")
    rows = [np.arange(a, b, c, dtype=np.asarray(starts.asnumpy()).dtype) for a, b, c in zip(s, l, d)]
    splits = np.concatenate([[0], np.cumsum([len(r) for r in rows])]).astype(
        mstype.to_dtype(self.Tsplits, "RaggedRange").np_dtype)
    values = np.concatenate(rows) if rows else np.zeros(0, starts.dtype.np_dtype)
    return Tensor(splits), Tensor(values.astype(starts.dtype.np_dtype))


RaggedRange = _primitive("RaggedRange", _ragged_range, attrs=[("Tsplits", mstype.int64)],
                         doc="RaggedRange(Tsplits)(starts, limits, deltas): (row splits, the concatenated ranges).")


def _histogram_fixed_width(self, x, range_):
    lo, hi = (float(v) for v in _host(range_).reshape(-1)[:2])
    values = _host(x).reshape(-1).astype(np.float64)
    idx = np.clip(np.floor((values - lo) / (hi - lo) * self.nbins), 0, self.nbins - 1).astype(np.int64)
    return Tensor(np.bincount(idx, minlength=self.nbins).astype(mstype.to_dtype(self.dtype, "Histogram").np_dtype))


HistogramFixedWidth = _primitive("HistogramFixedWidth", _histogram_fixed_width,
                                 attrs=[("nbins", 100), ("dtype", "int32")],
                                 doc="HistogramFixedWidth(nbins, dtype='int32')(x, range): counts in nbins equal "
                                     "bins of [range[0], range[1]); values outside go to the end bins.")


def _tridiagonal_matmul(self, superdiag, maindiag, subdiag, rhs):
    # row i of the product: sub[i]·rhs[i−1] + main[i]·rhs[i] + super[i]·rhs[i+1]
    m = rhs.shape[-2]
    col = (lambda d: F.expand_dims(F.reshape(d, tuple(d.shape[:-2]) + (m,)), -1))
    zero = F.zeros_like(F.narrow(rhs, -2, 0, 1))
    up = F.concat((F.narrow(rhs, -2, 1, m - 1), zero), -2) if m > 1 else zero
    down = F.concat((zero, F.narrow(rhs, -2, 0, m - 1)), -2) if m > 1 else zero
    return col(maindiag) * rhs + col(superdiag) * up + col(subdiag) * down


TridiagonalMatMul = _primitive("TridiagonalMatMul", _tridiagonal_matmul,
                               doc="TridiagonalMatMul()(superdiag, maindiag, subdiag, rhs): the tridiagonal matrix "
                                   "with these (…, 1, M) diagonals times rhs (…, M, N).")
Quantile = _primitive("Quantile", lambda self, input, q: F.quantile(input, q, self.dim, self.keep_dims),
                      attrs=[("dim", None), ("keep_dims", False), ("ignore_nan", False)],
                      doc="Quantile(dim=None, keep_dims=False, ignore_nan=False)(input, q): the q-th quantiles.")


def _depthwise(self, x, w):
    k, c, kh, kw = w.shape
    weight = F.reshape(F.transpose(w, (1, 0, 2, 3)), (c * k, 1, kh, kw))
    pad_mode = self.pad_mode.lower()
    return F.conv2d(x, weight, None, self.stride, pad_mode, self.pad if pad_mode == "pad" else 0, self.dilation, c)


DepthwiseConv2dNative = _primitive(
    "DepthwiseConv2dNative", _depthwise,
    attrs=[("channel_multiplier", 1), ("kernel_size", 1), ("mode", 3), ("pad_mode", "valid"), ("pad", 0),
           ("stride", 1), ("dilation", 1), ("group", 1)],
    doc="DepthwiseConv2dNative(channel_multiplier, kernel_size, ...)(x, w): each input channel convolved with its "
        "channel_multiplier filters of w (multiplier, C, kh, kw); output channel c·multiplier + k.")

# ---- views (MindSpore's view-kernel primitives: here the ordinary ops, which already return new tensors) ----------
TransposeView = _primitive("TransposeView", lambda self, input, input_perm: F.transpose(input, tuple(input_perm)),
                           doc="TransposeView()(input, input_perm): the axes of input permuted.")
TransposeExtView = _primitive("TransposeExtView", lambda self, input, dim0, dim1: F.swapaxes(input, dim0, dim1),
                              doc="TransposeExtView()(input, dim0, dim1): input with two axes swapped.")
SelectView = _primitive("SelectView", lambda self, input, dim, index: F.squeeze(
    F.narrow(input, dim, index % input.shape[dim], 1), dim % len(input.shape)),
                        doc="SelectView()(input, dim, index): the slice at `index` of axis `dim` (that axis removed).")


def _copy_with_slice(self, dst, src):
    from .tensor_methods import _inplace
    return _inplace(dst, src)


CopyWithSlice = _primitive("CopyWithSlice", _copy_with_slice,
                           doc="CopyWithSlice()(self, src): src's values written into `self` (broadcast); returns it.")

__all__ = sorted(n for n, v in list(globals().items())
                 if isinstance(v, type) and issubclass(v, _PythonPrimitive) and v is not _PythonPrimitive) + [
    "adaptive_max_pool3d", "max_unpool3d"]
