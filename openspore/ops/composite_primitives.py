"""MindSpore Primitive classes that openspore computes without a primitive record of their own:

* aliases MindSpore keeps for table primitives (`ops.GatherV2` is `Gather`, `ops.Pack` is `Stack`, ...);
* shape/type queries answered from Python values (`Shape`, `Rank`, `Size`, `DType`, `ScalarToTensor`, ...),
  which need no kernel — in Graph mode shapes are known while tracing;
* classes whose computation is a composite of table primitives (`Lerp`, `L2Normalize`, `DivNoNan`, ...): they
  differentiate and compile like the composite functions they call.

Reachable as `ops.<Name>` and `ops.operations.<Name>` (the 1.x `P.<Name>`).

>>> import numpy as np, openspore as ms
>>> x = ms.Tensor(np.ones((2, 3), np.float32))
>>> ms.ops.Shape()(x), ms.ops.Rank()(x), ms.ops.Size()(x)
((2, 3), 2, 6)
>>> ms.ops.DivNoNan()(x, ms.Tensor([1.0, 0.0, 2.0])).asnumpy().tolist()
[[1.0, 0.0, 0.5], [1.0, 0.0, 0.5]]
"""
import numpy as np

from ..common import dtype as mstype
from ..core.primitive import PRIMITIVES
from ..core.tensor import Tensor
from . import function as F
from .function import math_more_func as _math_more

_ALIASES = {"ACos": "Acos", "FastGelu": "FastGeLU", "Gelu": "GeLU", "GatherV2": "Gather", "Pack": "Stack",
            "Unpack": "Unstack", "TensorAdd": "Add"}
globals().update({alias: PRIMITIVES[name] for alias, name in _ALIASES.items()})


class _PythonPrimitive:
    """Base: attributes from the constructor (MindSpore's names), computation in `__call__`."""

    _attrs = ()
    # the computation may read its inputs' values (MindSpore runs these as dynamic-shape kernels): a graph that
    # meets one it can not trace runs op by op (compiler/frontend/symbolic.py, runtime/jit.py)
    computes_on_values = True

    def __init__(self, *args, **kwargs):
        names = [n for n, _ in self._attrs]
        values = dict(self._attrs)
        if len(args) > len(names):
            raise TypeError(f"For '{type(self).__name__}', expected at most {len(names)} attributes, but got {len(args)}.")
        values.update(zip(names, args))
        unknown = set(kwargs) - set(names)
        if unknown:
            raise TypeError(f"For '{type(self).__name__}', unknown attributes {sorted(unknown)}; expected {names}.")
        values.update(kwargs)
        for k, v in values.items():
            setattr(self, k, v)
        self.name = type(self).__name__

    def __repr__(self):
        return f"Prim[{type(self).__name__}]"

    @property
    def attrs(self):
        return {n: getattr(self, n) for n, _ in self._attrs} | self.__dict__.get("_extra_attrs", {})

    def add_prim_attr(self, name, value):
        """Set attribute `name` (MindSpore's Primitive API; e.g. "primitive_target"); returns self for chaining."""
        self.__dict__.setdefault("_extra_attrs", {})[name] = value
        setattr(self, name, value)
        return self

    def set_device(self, device_target):
        return self.add_prim_attr("primitive_target", device_target)


def _primitive(name, fn, attrs=(), doc=""):
    """A `_PythonPrimitive` subclass whose call is fn(self, *inputs)."""
    return type(name, (_PythonPrimitive,), {"_attrs": tuple(attrs), "__call__": fn, "__module__": __name__,
                                            "__doc__": doc or f"{name}: see the ops function of the same meaning."})


# ---- shape and type queries -------------------------------------------------------------------------
Shape = _primitive("Shape", lambda self, x: tuple(x.shape), doc="Shape()(x): the shape as a tuple of ints.")
TensorShape = _primitive("TensorShape", lambda self, x: Tensor(np.array(x.shape, np.int64)),
                         doc="TensorShape()(x): the shape as a 1-D Int64 Tensor.")
Rank = _primitive("Rank", lambda self, x: len(x.shape), doc="Rank()(x): the number of dimensions.")
Size = _primitive("Size", lambda self, x: int(np.prod(x.shape)) if x.shape else 1, doc="Size()(x): element count.")
DType = _primitive("DType", lambda self, x: x.dtype, doc="DType()(x): the dtype.")
ScalarToTensor = _primitive(
    "ScalarToTensor", lambda self, x, dtype=mstype.float32: Tensor(np.asarray(x, dtype.np_dtype)),
    doc="ScalarToTensor()(x, dtype=float32): a 0-D Tensor.")
TupleToArray = _primitive(
    "TupleToArray", lambda self, x: Tensor(np.asarray(x, np.float32 if any(isinstance(v, float) for v in x)
                                                      else np.int64)),
    doc="TupleToArray()(x): a 1-D Tensor from a tuple of numbers (float32 when any is a float, else int64).")
ScalarToArray = _primitive("ScalarToArray", lambda self, x: Tensor(np.asarray(x, np.float32 if isinstance(x, float)
                                                                              else np.int64)),
                           doc="ScalarToArray()(x): a 0-D Tensor from a number.")
ScalarCast = _primitive("ScalarCast", lambda self, x, t: (float if mstype.to_dtype(t, "ScalarCast").kind == "float"
                                                           else bool if t == mstype.bool_ else int)(x),
                        doc="ScalarCast()(x, t): a Python number converted to dtype t's Python type.")
TensorToTuple = _primitive("TensorToTuple", lambda self, x: tuple(x.asnumpy().tolist()),
                           doc="TensorToTuple()(x): a 1-D Tensor's values as a tuple.")
Fills = _primitive("Fills", lambda self, x, value: F.full_like(x, value), doc="Fills()(x, value): x's shape filled.")


# ---- composites ---------------------------------------------------------------------------------------
def _no_nan(op):
    def call(self, x, y):
        y_t = y if isinstance(y, Tensor) else Tensor(np.asarray(y, x.dtype.np_dtype))
        safe = F.where(y_t == 0, F.ones_like(y_t), y_t)
        return F.where(y_t == 0, F.zeros_like(op(x, safe)), op(x, safe))
    return call


DivNoNan = _primitive("DivNoNan", _no_nan(lambda a, b: a / b), doc="DivNoNan()(x, y): x / y, 0 where y == 0.")
MulNoNan = _primitive("MulNoNan", _no_nan(lambda a, b: a * b), doc="MulNoNan()(x, y): x · y, 0 where y == 0.")
TruncateDiv = _primitive("TruncateDiv", lambda self, x, y: F.trunc(x / y) if x.dtype.kind == "float"
                         else F.cast(F.trunc(F.cast(x, mstype.float64) / F.cast(y, mstype.float64)), x.dtype),
                         doc="TruncateDiv()(x, y): x / y rounded toward zero.")
TruncateMod = _primitive("TruncateMod", lambda self, x, y: F.fmod(x, y), doc="TruncateMod()(x, y): fmod(x, y).")
Rint = _primitive("Rint", lambda self, x: F.round(x), doc="Rint()(x): round half to even.")
Addcdiv = _primitive("Addcdiv", lambda self, input_data, x1, x2, value: input_data + value * x1 / x2)
Addcmul = _primitive("Addcmul", lambda self, input_data, x1, x2, value: input_data + value * x1 * x2)
Lerp = _primitive("Lerp", lambda self, start, end, weight: F.lerp(start, end, weight))
Hypot = _primitive("Hypot", lambda self, x1, x2: F.hypot(x1, x2))
Heaviside = _primitive("Heaviside", lambda self, x, values: F.heaviside(x, values))
Xlogy = _primitive("Xlogy", lambda self, x, y: F.xlogy(x, y))
Xdivy = _primitive("Xdivy", lambda self, x, y: F.xdivy(x, y))
Fmax = _primitive("Fmax", lambda self, x1, x2: F.fmax(x1, x2))
Fmin = _primitive("Fmin", lambda self, x1, x2: F.fmin(x1, x2))
Sinc = _primitive("Sinc", lambda self, x: F.sinc(x))
Trace = _primitive("Trace", lambda self, x: F.trace(x))
# (no `Ger` class here: amp's O1 white list names ops.Ger as a table primitive, which it is not yet)
Cross = _primitive("Cross", lambda self, x1, x2: F.cross(x1, x2, None if self.dim == -65530 else self.dim),
                   attrs=[("dim", -65530)])
IsClose = _primitive("IsClose", lambda self, x1, x2: F.isclose(x1, x2, self.rtol, self.atol, self.equal_nan),
                     attrs=[("rtol", 1e-05), ("atol", 1e-08), ("equal_nan", True)])


class ApproximateEqual(_PythonPrimitive):
    """ApproximateEqual(tolerance=1e-5)(x1, x2): |x1 − x2| < tolerance; a non-float tolerance is refused here, at
    construction, as MindSpore does."""

    _attrs = (("tolerance", 1e-05),)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        _math_more.check_approximate_equal_tolerance(self.tolerance)

    def __call__(self, x1, x2):
        return _math_more.approximate_equal(x1, x2, self.tolerance)


Logit = _primitive("Logit", lambda self, x: F.logit(x, None if self.eps < 0 else self.eps), attrs=[("eps", -1.0)])
NanToNum = _primitive("NanToNum", lambda self, x: F.nan_to_num(x, self.nan, self.posinf, self.neginf),
                      attrs=[("nan", 0.0), ("posinf", None), ("neginf", None)])
MatrixBandPart = _primitive("MatrixBandPart", lambda self, x, lower, upper: F.matrix_band_part(x, lower, upper))
CountNonZero = _primitive("CountNonZero", lambda self, x, dims=None: F.count_nonzero(
    x, () if (dims if dims is not None else self.dims) is None else (dims if dims is not None else self.dims),
    False, mstype.int64), attrs=[("dims", None)])
Bucketize = _primitive("Bucketize", lambda self, x: F.bucketize(x, self.boundaries, right=True),  # TF-style buckets
                       attrs=[("boundaries", ())])
SearchSorted = _primitive("SearchSorted", lambda self, seq, values: F.cast(F.searchsorted(seq, values, right=self.right),
                                                                           self.dtype),
                          attrs=[("dtype", mstype.int64), ("right", False)])
UnsortedSegmentSum = _primitive("UnsortedSegmentSum", lambda self, x, ids, n: F.unsorted_segment_sum(x, ids, n))
IndexAdd = _primitive("IndexAdd", lambda self, x, indices, y: F.index_add(x, indices, y, self.axis),
                      attrs=[("axis", 0), ("use_lock", True), ("check_index_bound", True)])
IndexFill = _primitive("IndexFill", lambda self, x, dim, index, value: F.index_fill(x, dim, index, value))
TensorScatterSub = _primitive("TensorScatterSub", lambda self, x, indices, updates: F.tensor_scatter_sub(x, indices,
                                                                                                        updates))
ScatterAdd = _primitive("ScatterAdd", lambda self, x, indices, updates: F.scatter_add(x, indices, updates),
                        attrs=[("use_locking", False)])
ScatterNdAdd = _primitive("ScatterNdAdd", lambda self, x, indices, updates: F.scatter_nd_add(x, indices, updates),
                          attrs=[("use_locking", False)])
ScatterNdSub = _primitive("ScatterNdSub", lambda self, x, indices, updates: F.scatter_nd_sub(x, indices, updates),
                          attrs=[("use_locking", False)])
ScatterNdUpdate = _primitive("ScatterNdUpdate", lambda self, x, indices, updates: F.scatter_nd_update(x, indices,
                                                                                                      updates),
                             attrs=[("use_locking", True)])
L2Loss = _primitive("L2Loss", lambda self, x: F.sum(F.square(x)) / 2, doc="L2Loss()(x): Σ x² / 2.")
L2Normalize = _primitive(
    "L2Normalize", lambda self, x: x / F.sqrt(F.clamp(F.sum(F.square(x), self.axis, keepdim=True), self.epsilon, None)),
    attrs=[("axis", 0), ("epsilon", 1e-4)], doc="L2Normalize(axis=0, epsilon=1e-4)(x): x / sqrt(max(Σx², ε)).")
EuclideanNorm = _primitive("EuclideanNorm", lambda self, x, axes: F.sqrt(F.sum(F.square(x), tuple(np.atleast_1d(
    axes.asnumpy() if isinstance(axes, Tensor) else axes).tolist()), self.keep_dims)), attrs=[("keep_dims", False)])
SoftShrink = _primitive("SoftShrink", lambda self, x: F.softshrink(x, self.lambd), attrs=[("lambd", 0.5)])
HShrink = _primitive("HShrink", lambda self, x: F.hardshrink(x, self.lambd), attrs=[("lambd", 0.5)])
SoftMarginLoss = _primitive("SoftMarginLoss", lambda self, x, y: F.soft_margin_loss(x, y, self.reduction),
                            attrs=[("reduction", "mean")])
SigmoidCrossEntropyWithLogits = _primitive(
    "SigmoidCrossEntropyWithLogits",
    lambda self, x, y: F.maximum(x, 0.0) - x * y + F.log1p(F.exp(-F.abs(x))),
    doc="SigmoidCrossEntropyWithLogits()(logits, label): elementwise binary cross-entropy of sigmoid(logits).")
EqualCount = _primitive("EqualCount", lambda self, x, y: F.reshape(F.cast(F.sum(F.cast(x == y, mstype.float32)),
                                                                          x.dtype), (1,)))
InvertPermutation = _primitive("InvertPermutation", lambda self, x: tuple(int(i) for i in np.argsort(np.asarray(x))))
LogSpace = _primitive("LogSpace", lambda self, start, end: F.cast(F.pow(float(self.base), F.linspace(start, end,
                                                                                                     self.steps)),
                                                                   self.dtype),
                      attrs=[("steps", 10), ("base", 10), ("dtype", mstype.float32)])
TrilIndices = _primitive("TrilIndices", lambda self: F.tril_indices(self.row, self.col, self.offset, dtype=self.dtype),
                         attrs=[("row", 1), ("col", 1), ("offset", 0), ("dtype", mstype.int32)])
TriuIndices = _primitive("TriuIndices", lambda self: F.triu_indices(self.row, self.col, self.offset, dtype=self.dtype),
                         attrs=[("row", 1), ("col", 1), ("offset", 0), ("dtype", mstype.int32)])


def _window(fn):
    def call(self, window_length):
        n = int(window_length.asnumpy().reshape(-1)[0]) if isinstance(window_length, Tensor) else int(window_length)
        kwargs = {"alpha": self.alpha, "beta": self.beta} if hasattr(self, "alpha") else {}
        return fn(n, self.periodic, dtype=self.dtype, **kwargs)
    return call


BartlettWindow = _primitive("BartlettWindow", _window(F.bartlett_window), [("periodic", True), ("dtype", mstype.float32)])
BlackmanWindow = _primitive("BlackmanWindow", _window(F.blackman_window), [("periodic", True), ("dtype", mstype.float32)])
HammingWindow = _primitive("HammingWindow", _window(F.hamming_window),
                           [("periodic", True), ("alpha", 0.54), ("beta", 0.46), ("dtype", mstype.float32)])
Diag = _primitive("Diag", lambda self, x: F.diag(x))
DiagPart = _primitive("DiagPart", lambda self, x: F.diagonal(x))
CholeskySolve = _primitive("CholeskySolve", lambda self, x1, x2: F.cholesky_solve(x1, x2, self.upper),
                           attrs=[("upper", False)])
CholeskyInverse = _primitive("CholeskyInverse", lambda self, x: F.cholesky_inverse(x, self.upper),
                             attrs=[("upper", False)])
MatrixPower = _primitive("MatrixPower", lambda self, x: F.matrix_power(x, self.n), attrs=[("n", 1)])
Expand = _primitive("Expand", lambda self, x, shape: F.expand(x, shape))
Cdist = _primitive("Cdist", lambda self, x1, x2: F.cdist(x1, x2, self.p), attrs=[("p", 2.0)])
Median = _primitive("Median", lambda self, x: (F.median(F.reshape(x, (-1,)), 0) if self.global_median
                                               else F.median(x, self.axis, self.keep_dims)),
                    attrs=[("global_median", False), ("axis", 0), ("keep_dims", False), ("ignore_nan", False)])
ReduceStd = _primitive("ReduceStd", lambda self, x: (F.std(x, None if self.axis == () else self.axis,
                                                           int(self.unbiased), self.keep_dims),
                                                     F.mean(x, None if self.axis == () else self.axis, self.keep_dims)),
                       attrs=[("axis", ()), ("unbiased", True), ("keep_dims", False)])
SquareSumAll = _primitive("SquareSumAll", lambda self, x, y: (F.sum(F.square(x)), F.sum(F.square(y))))
Renorm = _primitive("Renorm", lambda self, x: F.renorm(x, self.p, self.dim, self.maxnorm),
                    attrs=[("p", 2), ("dim", 0), ("maxnorm", 1.0)])
LpNorm = _primitive("LpNorm", lambda self, x: F.norm(x, self.p, self.axis, self.keep_dims),
                    attrs=[("axis", 0), ("p", 2), ("keep_dims", False), ("epsilon", 1e-12)])
GLU = _primitive("GLU", lambda self, x: F.glu(x, self.axis), attrs=[("axis", -1)])


def _cumulative_logsumexp(self, x, axis):
    axis = int(axis.asnumpy()) if isinstance(axis, Tensor) else int(axis)
    x = F.flip(x, (axis,)) if self.reverse else x
    out = F.logcumsumexp(x, axis)
    if self.exclusive:
        first = F.full_like(F.narrow(out, axis, 0, 1), float(np.finfo(x.dtype.np_dtype).min))  # as MindSpore
        out = F.concat([first, F.narrow(out, axis, 0, out.shape[axis] - 1)], axis)
    return F.flip(out, (axis,)) if self.reverse else out


CumulativeLogsumexp = _primitive("CumulativeLogsumexp", _cumulative_logsumexp,
                                 attrs=[("exclusive", False), ("reverse", False)])


def _reverse_sequence(self, x, seq_lengths):
    lengths = np.asarray(seq_lengths.asnumpy() if isinstance(seq_lengths, Tensor) else seq_lengths).astype(int)
    seq, batch = self.seq_dim % len(x.shape), self.batch_dim % len(x.shape)
    index = np.broadcast_to(np.arange(x.shape[seq]), (x.shape[batch], x.shape[seq])).copy()
    for b, n in enumerate(lengths):
        index[b, :n] = index[b, :n][::-1]
    shape = [1] * len(x.shape)
    shape[batch], shape[seq] = x.shape[batch], x.shape[seq]
    full = np.broadcast_to(index.reshape(shape) if batch < seq else index.T.reshape(shape), x.shape)
    return F.gather_elements(x, seq, Tensor(np.ascontiguousarray(full).astype(np.int64)))


ReverseSequence = _primitive("ReverseSequence", _reverse_sequence, attrs=[("seq_dim", 1), ("batch_dim", 0)],
                             doc="ReverseSequence(seq_dim, batch_dim=0)(x, seq_lengths): reverse the first "
                                 "seq_lengths[b] entries along seq_dim of each batch entry b.")

class ConcatOffsetV1(_PythonPrimitive):
    """ConcatOffsetV1()(axis, x): for shape vectors x[i] (1-D Int32) of tensors concatenated along `axis` (a 0-D
    Int32 Tensor), the offset of each within the result: zeros, with the running sum of the earlier x[j][axis] at
    `axis` (Concat's gradient reads them)."""

    def __call__(self, axis, x):
        name = "ConcatOffsetV1"
        if not isinstance(axis, Tensor):
            raise TypeError(f"For Primitive[{name}], the type of input argument[axis] must be Tensor but got "
                            f"{type(axis).__name__}.")
        if len(x) < 2:
            raise ValueError(f"For primitive[{name}], the input x tensor num must be greater than or equal to 2, but "
                             f"got {len(x)}.")
        for i, t in enumerate((axis, *x)):
            if t.dtype != mstype.int32:
                arg = "axis" if i == 0 else f"tensor{i - 1}"
                raise TypeError(f"For primitive[{name}], the input argument[{arg}] must be a type of "
                                f"{{Tensor[Int32]}}, but got Tensor[{t.dtype}].")
        shapes = [t.asnumpy() for t in x]
        rank = shapes[0].size
        dim = int(axis.asnumpy())
        if not -rank <= dim < rank:  # MindSpore checks these in its kernel: RuntimeError
            raise RuntimeError(f"For '{name}', the 'axis' must be fall in range [{-rank}, {rank}), but got "
                               f"'axis': {dim}")
        dim %= rank
        for i, shape in enumerate(shapes[1:], 1):
            for k in range(rank):
                if k != dim and shape[k] != shapes[0][k]:
                    raise RuntimeError(f"For '{name}', except for the {dim}th axis, all elements in other axes "
                                       f"should be equal, but for the {k}th axis, element in input x{i} is "
                                       f"{shape[k]}, and element in input x0 is {shapes[0][k]}")
        offsets, running = [], 0
        for shape in shapes:
            offset = np.zeros(rank, np.int32)
            offset[dim] = running
            offsets.append(Tensor(offset))
            running += int(shape[dim])
        return tuple(offsets)


__all__ = sorted(list(_ALIASES) + [n for n, v in list(globals().items())
                                   if isinstance(v, type) and issubclass(v, _PythonPrimitive) and v is not _PythonPrimitive])
