"""More MindSpore Primitive classes computed as composites (see composite_primitives.py for the pattern): the
scatter/segment reductions over TensorScatterMax/Min/Mul/Div, shifts, and the other classes whose functional
form openspore has.

>>> import numpy as np, openspore as ms
>>> x = ms.Tensor(np.array([1., 5., 2., 4.], np.float32))
>>> ms.ops.SegmentMax()(x, ms.Tensor([0, 0, 2, 2])).asnumpy().tolist()
[5.0, 0.0, 4.0]
>>> ms.ops.UnsortedSegmentProd()(x, ms.Tensor([1, 1, 0, 0]), 2).asnumpy().tolist()
[8.0, 5.0]
"""
import numpy as np

from ..common import dtype as mstype
from ..core.tensor import Tensor
from . import function as F
from .composite_primitives import _primitive, _PythonPrimitive

ScatterMax = _primitive("ScatterMax", lambda self, x, indices, updates: F.scatter_max(x, indices, updates),
                        attrs=[("use_locking", True)])
ScatterMin = _primitive("ScatterMin", lambda self, x, indices, updates: F.scatter_min(x, indices, updates),
                        attrs=[("use_locking", False)])
ScatterMul = _primitive("ScatterMul", lambda self, x, indices, updates: F.scatter_mul(x, indices, updates),
                        attrs=[("use_locking", False)])
ScatterDiv = _primitive("ScatterDiv", lambda self, x, indices, updates: F.scatter_div(x, indices, updates),
                        attrs=[("use_locking", False)])
ScatterSub = _primitive("ScatterSub", lambda self, x, indices, updates: F.scatter_add(x, indices, -updates),
                        attrs=[("use_locking", False)])
ScatterNdMax = _primitive("ScatterNdMax", lambda self, x, indices, updates: F.scatter_nd_max(x, indices, updates),
                          attrs=[("use_locking", False)])
ScatterNdMin = _primitive("ScatterNdMin", lambda self, x, indices, updates: F.scatter_nd_min(x, indices, updates),
                          attrs=[("use_locking", False)])
ScatterNdMul = _primitive("ScatterNdMul", lambda self, x, indices, updates: F.scatter_nd_mul(x, indices, updates),
                          attrs=[("use_locking", False)])
ScatterNdDiv = _primitive("ScatterNdDiv", lambda self, x, indices, updates: F.scatter_nd_div(x, indices, updates),
                          attrs=[("use_locking", False)])
ScatterNonAliasingAdd = _primitive("ScatterNonAliasingAdd",
                                   lambda self, x, indices, updates: F.scatter_nd_add(x, indices, updates))
ScatterAddWithAxis = _primitive(
    "ScatterAddWithAxis", lambda self, x, indices, updates: F.tensor_scatter_elements(x, indices, updates, self.axis,
                                                                                      "add"),
    attrs=[("axis", 0)], doc="ScatterAddWithAxis(axis=0)(input_x, indices, updates): updates added along `axis`.")
UnsortedSegmentMax = _primitive("UnsortedSegmentMax", lambda self, x, ids, n: F.unsorted_segment_max(x, ids, n))
UnsortedSegmentMin = _primitive("UnsortedSegmentMin", lambda self, x, ids, n: F.unsorted_segment_min(x, ids, n))
UnsortedSegmentProd = _primitive("UnsortedSegmentProd", lambda self, x, ids, n: F.unsorted_segment_prod(x, ids, n))


def _sorted_segments(reduce, empty_fill):
    """Segment ops over sorted, non-negative 1-D ids: segment_ids[-1] + 1 rows; rows without elements hold
    `empty_fill` (MindSpore's Segment* ops: 0, or 1 for the product). The ids must be concrete (MindSpore: "only
    constant values allowed")."""
    def call(self, x, segment_ids):
        ids = np.asarray(segment_ids.asnumpy() if isinstance(segment_ids, Tensor) else segment_ids)
        if ids.ndim != 1 or ids.shape[0] != x.shape[0]:
            raise ValueError(f"For '{self.name}', 'segment_ids' must be 1-D with length x.shape[0] = {x.shape[0]}, "
                             f"but got shape {list(ids.shape)}.")
        if ids.size and (ids.min() < 0 or np.any(np.diff(ids) < 0)):
            raise ValueError(f"For '{self.name}', 'segment_ids' must be non-negative and sorted ascending, "
                             f"but got {ids.tolist()}.")
        n = int(ids[-1]) + 1 if ids.size else 0
        out = reduce(x, Tensor(ids.astype(np.int64)), n)
        empty = np.bincount(ids, minlength=n) == 0
        if not empty.any():
            return out
        mask = Tensor(empty.reshape((n,) + (1,) * (len(x.shape) - 1)))
        return F.where(mask, F.full_like(out, empty_fill), out)
    return call


def _segment_mean(x, ids, n):
    total = F.unsorted_segment_sum(x, ids, n)
    count = F.unsorted_segment_sum(F.ones((x.shape[0],), mstype.float32), ids, n)
    count = F.reshape(F.maximum(count, 1.0), (n,) + (1,) * (len(x.shape) - 1))
    return F.cast(total / F.cast(count, total.dtype), x.dtype)


SegmentSum = _primitive("SegmentSum", _sorted_segments(F.unsorted_segment_sum, 0))
SegmentMean = _primitive("SegmentMean", _sorted_segments(_segment_mean, 0))
SegmentMax = _primitive("SegmentMax", _sorted_segments(F.unsorted_segment_max, 0))
SegmentMin = _primitive("SegmentMin", _sorted_segments(F.unsorted_segment_min, 0))
SegmentProd = _primitive("SegmentProd", _sorted_segments(F.unsorted_segment_prod, 1))
Mvlgamma = _primitive("Mvlgamma", lambda self, x: F.mvlgamma(x, self.p), attrs=[("p", 1)],
                      doc="Mvlgamma(p)(x): the multivariate log-gamma of dimension p.")


# ---- shifts, algebra, running extrema -----------------------------------------------------------------------------
LeftShift = _primitive("LeftShift", lambda self, x1, x2: F.bitwise_left_shift(x1, x2))
RightShift = _primitive("RightShift", lambda self, x1, x2: F.bitwise_right_shift(x1, x2))
Ger = _primitive("Ger", lambda self, x1, x2: F.ger(x1, x2), doc="Ger()(x1, x2): the outer product.")
Einsum = _primitive("Einsum", lambda self, inputs: F.einsum(self.equation, *inputs), attrs=[("equation", "")],
                    doc="Einsum(equation)(inputs): Einstein summation over a tuple of tensors.")
Cummax = _primitive("Cummax", lambda self, x: F.cummax(x, self.axis), attrs=[("axis", 0)])
Cummin = _primitive("Cummin", lambda self, x: F.cummin(x, self.axis), attrs=[("axis", 0)])
MatrixExp = _primitive("MatrixExp", lambda self, x: F.matrix_exp(x))
MatrixSolve = _primitive("MatrixSolve", lambda self, matrix, rhs: F.matrix_solve(matrix, rhs, self.adjoint),
                         attrs=[("adjoint", False)])
Pdist = _primitive("Pdist", lambda self, x: F.pdist(x, self.p), attrs=[("p", 2.0)])
Eps = _primitive("Eps", lambda self, x: F.eps(x), doc="Eps()(x): x's shape filled with its dtype's machine epsilon.")
DynamicShape = _primitive("DynamicShape", lambda self, x: F.dyn_shape(x),
                          attrs=[("dtype", 9)], doc="DynamicShape()(x): the shape as a 1-D Int64 Tensor.")
IdentityN = _primitive("IdentityN", lambda self, x: tuple(x) if isinstance(x, (list, tuple)) else x,
                       doc="IdentityN()(x): the tuple of tensors x, unchanged.")


def _bound(right):
    def call(self, sorted_x, values):
        return F.cast(F.searchsorted(sorted_x, values, right=right), self.out_type)
    return call


LowerBound = _primitive("LowerBound", _bound(False), attrs=[("out_type", mstype.int32)],
                        doc="LowerBound(out_type)(sorted_x, values): per row, the first index with sorted_x ≥ value.")
UpperBound = _primitive("UpperBound", _bound(True), attrs=[("out_type", mstype.int32)],
                        doc="UpperBound(out_type)(sorted_x, values): per row, the first index with sorted_x > value.")

# ---- block rearrangements -------------------------------------------------------------------------------------------
SpaceToBatchND = _primitive("SpaceToBatchND", lambda self, x: F.space_to_batch_nd(x, self.block_shape, self.paddings),
                            attrs=[("block_shape", 1), ("paddings", ((0, 0), (0, 0)))])
BatchToSpaceND = _primitive("BatchToSpaceND", lambda self, x: F.batch_to_space_nd(x, self.block_shape, self.crops),
                            attrs=[("block_shape", 1), ("crops", ((0, 0), (0, 0)))])
BatchToSpaceNDV2 = _primitive("BatchToSpaceNDV2", lambda self, x, block_shape, crops: F.batch_to_space_nd(
    x, block_shape.asnumpy().tolist() if isinstance(block_shape, Tensor) else block_shape, crops))
SpaceToBatch = _primitive("SpaceToBatch", lambda self, x: F.space_to_batch_nd(x, self.block_size, self.paddings),
                          attrs=[("block_size", 2), ("paddings", ((0, 0), (0, 0)))])
BatchToSpace = _primitive("BatchToSpace", lambda self, x: F.batch_to_space_nd(x, self.block_size, self.crops),
                          attrs=[("block_size", 2), ("crops", ((0, 0), (0, 0)))])


def _space_to_depth(self, x):
    n, c, h, w = x.shape
    b = self.block_size
    if h % b or w % b:
        raise ValueError(f"For 'SpaceToDepth', H and W ({h}, {w}) must be divisible by block_size {b}.")
    y = F.reshape(x, (n, c, h // b, b, w // b, b))
    return F.reshape(F.transpose(y, (0, 3, 5, 1, 2, 4)), (n, b * b * c, h // b, w // b))


def _depth_to_space(self, x):
    n, c, h, w = x.shape
    b = self.block_size
    if c % (b * b):
        raise ValueError(f"For 'DepthToSpace', the channels {c} must be divisible by block_size² = {b * b}.")
    y = F.reshape(x, (n, b, b, c // (b * b), h, w))
    return F.reshape(F.transpose(y, (0, 3, 4, 1, 5, 2)), (n, c // (b * b), h * b, w * b))


SpaceToDepth = _primitive("SpaceToDepth", _space_to_depth, attrs=[("block_size", 2)],
                          doc="SpaceToDepth(block_size)(x): NCHW blocks of H×W moved into channels.")
DepthToSpace = _primitive("DepthToSpace", _depth_to_space, attrs=[("block_size", 2)],
                          doc="DepthToSpace(block_size)(x): the inverse of SpaceToDepth.")

# ---- row updates and consecutive uniques ---------------------------------------------------------------------------
InplaceAdd = _primitive("InplaceAdd", lambda self, x, v: F.inplace_add(x, v, self.indices), attrs=[("indices", 0)])
InplaceSub = _primitive("InplaceSub", lambda self, x, v: F.inplace_sub(x, v, self.indices), attrs=[("indices", 0)])
InplaceUpdate = _primitive("InplaceUpdate", lambda self, x, v: F.inplace_update(x, v, self.indices),
                           attrs=[("indices", 0)])
InplaceUpdateV2 = _primitive("InplaceUpdateV2", lambda self, x, indices, v: F.inplace_update(x, v, indices))
InplaceIndexAdd = _primitive("InplaceIndexAdd", lambda self, var, indices, updates: F.inplace_index_add(
    var, indices, updates, self.axis), attrs=[("axis", 0)])
UniqueConsecutive = _primitive("UniqueConsecutive", lambda self, x: F.unique_consecutive(
    x, self.return_idx, self.return_counts, self.axis), attrs=[("return_idx", False), ("return_counts", False),
                                                              ("axis", None)])

# ---- detection, normalisation, losses ----------------------------------------------------------------------------
IOU = _primitive("IOU", lambda self, anchor_boxes, gt_boxes: F.iou(anchor_boxes, gt_boxes, self.mode),
                 attrs=[("mode", "iou")])
BoundingBoxEncode = _primitive("BoundingBoxEncode", lambda self, anchor_box, groundtruth_box: F.bounding_box_encode(
    anchor_box, groundtruth_box, self.means, self.stds), attrs=[("means", (0.0,) * 4), ("stds", (1.0,) * 4)])
BoundingBoxDecode = _primitive("BoundingBoxDecode", lambda self, anchor_box, deltas: F.bounding_box_decode(
    anchor_box, deltas, self.max_shape, self.means, self.stds, self.wh_ratio_clip),
    attrs=[("max_shape", None), ("means", (0.0,) * 4), ("stds", (1.0,) * 4), ("wh_ratio_clip", 0.016)])
CheckValid = _primitive("CheckValid", lambda self, bboxes, img_metas: F.check_valid(bboxes, img_metas))
InTopK = _primitive("InTopK", lambda self, x1, x2: F.intopk(x1, x2, self.k), attrs=[("k", 1)])
LRN = _primitive("LRN", lambda self, x: F.lrn(x, self.depth_radius, self.bias, self.alpha, self.beta,
                                              self.norm_region),
                 attrs=[("depth_radius", 5), ("bias", 1.0), ("alpha", 1.0), ("beta", 0.5),
                        ("norm_region", "ACROSS_CHANNELS")])
AffineGrid = _primitive("AffineGrid", lambda self, theta, size: F.affine_grid(theta, size, self.align_corners),
                        attrs=[("align_corners", False)])
ChannelShuffle = _primitive("ChannelShuffle", lambda self, x: F.channel_shuffle(x, self.group), attrs=[("group", 1)])
RmsNorm = _primitive("RmsNorm", lambda self, x, gamma: F.rms_norm(x, gamma, self.epsilon), attrs=[("epsilon", 1e-6)],
                     doc="RmsNorm(epsilon=1e-6)(x, gamma) → (x · rsqrt(mean(x²) + ε) · gamma, rsqrt(...)).")
MultiMarginLoss = _primitive("MultiMarginLoss", lambda self, x, target, weight=None: F.multi_margin_loss(
    x, target, self.p, self.margin, weight, self.reduction), attrs=[("p", 1), ("margin", 1.0), ("reduction", "mean")])
TripletMarginLoss = _primitive("TripletMarginLoss", lambda self, x, positive, negative, margin: F.triplet_margin_loss(
    x, positive, negative, float(margin.asnumpy()) if isinstance(margin, Tensor) else margin, self.p, self.eps,
    self.swap, self.reduction), attrs=[("p", 2), ("swap", False), ("eps", 1e-6), ("reduction", "mean")])


def _multilabel_margin(self, x, target):
    """(loss, is_target): MindSpore's primitive also returns which classes are targets of each sample."""
    loss = F.multilabel_margin_loss(x, target, self.reduction)
    tgt = np.atleast_2d(target.asnumpy()).astype(np.int64)
    mask = np.zeros(np.atleast_2d(np.zeros(x.shape)).shape, np.int32)
    for row in range(tgt.shape[0]):
        for t in tgt[row]:
            if t < 0:
                break
            mask[row, t] = 1
    return loss, Tensor(mask.reshape(x.shape))


MultilabelMarginLoss = _primitive("MultilabelMarginLoss", _multilabel_margin, attrs=[("reduction", "mean")])
StandardLaplace = _primitive("StandardLaplace", lambda self, shape: F.standard_laplace(
    tuple(shape.asnumpy().tolist()) if isinstance(shape, Tensor) else shape, self.seed or None),
    attrs=[("seed", 0), ("seed2", 0)])


def _padding(self, x):
    if x.shape[-1] != 1:
        raise ValueError(f"For 'Padding', the last dimension of x must be 1, but got shape {list(x.shape)}.")
    return F.pad(x, (0, self.pad_dim_size - 1))


Padding = _primitive("Padding", _padding, attrs=[("pad_dim_size", 8)],
                     doc="Padding(pad_dim_size=8)(x): the last dimension (of size 1) zero-padded to pad_dim_size.")

Polar = _primitive("Polar", lambda self, abs, angle: F.polar(abs, angle),
                   doc="Polar()(abs, angle): abs · e^(i·angle) as a complex tensor (see ops.polar).")
Ormqr = _primitive("Ormqr", lambda self, x, tau, other: F.ormqr(x, tau, other, self.left, self.transpose),
                   attrs=[("left", True), ("transpose", False)],
                   doc="Ormqr(left=True, transpose=False)(x, tau, other): other times geqrf's Q (see ops.ormqr).")


def _conv3d_class(self, x, weight):
    kernel = (self.kernel_size,) * 3 if isinstance(self.kernel_size, int) else tuple(self.kernel_size)
    if tuple(weight.shape[:1]) + tuple(weight.shape[2:]) != (self.out_channel,) + kernel:
        raise ValueError(f"For 'Conv3D', the weight of shape {list(weight.shape)} does not match out_channel "
                         f"{self.out_channel} and kernel_size {kernel}.")
    pad_mode = self.pad_mode.lower()
    stride = self.stride if isinstance(self.stride, int) else tuple(self.stride)[-3:]
    dilation = self.dilation if isinstance(self.dilation, int) else tuple(self.dilation)[-3:]
    return F.conv3d(x, weight, None, stride, pad_mode, self.pad if pad_mode == "pad" else 0, dilation, self.group)


Conv3D = _primitive("Conv3D", _conv3d_class,
                    attrs=[("out_channel", None), ("kernel_size", None), ("mode", 1), ("pad_mode", "valid"), ("pad", 0),
                           ("stride", 1), ("dilation", 1), ("group", 1), ("data_format", "NCDHW")],
                    doc="Conv3D(out_channel, kernel_size, mode=1, pad_mode='valid', pad=0, stride=1, dilation=1, "
                        "group=1)(x, weight): see ops.conv3d (a sum of Conv2D over the kernel depth).")


def _conv3d_transpose_class(self, dout, weight, bias=None):
    if bias is not None:
        raise ValueError("For 'Conv3DTranspose', 'bias' must be None (as in MindSpore); add it afterwards.")
    if weight.shape[0] != self.in_channel:
        raise ValueError(f"For 'Conv3DTranspose', the weight's first dimension {weight.shape[0]} must equal "
                         f"in_channel {self.in_channel}.")
    pad_mode = self.pad_mode.lower()
    return F.conv3d_transpose(dout, weight, pad_mode, self.pad if pad_mode == "pad" else 0, self.stride,
                              self.dilation, self.group, self.output_padding)


Conv3DTranspose = _primitive(
    "Conv3DTranspose", _conv3d_transpose_class,
    attrs=[("in_channel", None), ("out_channel", None), ("kernel_size", None), ("mode", 1), ("pad_mode", "valid"),
           ("pad", 0), ("stride", 1), ("dilation", 1), ("group", 1), ("output_padding", 0), ("data_format", "NCDHW")],
    doc="Conv3DTranspose(in_channel, out_channel, kernel_size, ..., output_padding=0)(dout, weight): see "
        "ops.conv3d_transpose.")

MirrorPad = _primitive("MirrorPad", lambda self, x, paddings: F.mirror_pad(x, paddings, self.mode),
                       attrs=[("mode", "REFLECT")],
                       doc="MirrorPad(mode='REFLECT')(x, paddings): see ops.mirror_pad.")
LerpScalar = _primitive("LerpScalar", lambda self, input, end, weight: F.lerp(input, end, weight),
                        doc="LerpScalar()(input, end, weight): input + weight·(end − input) with a scalar weight.")
ConjugateTranspose = _primitive("ConjugateTranspose", lambda self, x, perm: F.conj(F.transpose(x, perm)),
                                doc="ConjugateTranspose()(x, perm): the conjugate of x transposed by perm.")


def _nuclear_norm(self, x):
    dims = (-2, -1) if self.dim is None else tuple(self.dim)
    if len(dims) != 2:
        raise ValueError(f"For 'NuclearNorm', 'dim' must name two axes, but got {self.dim!r}.")
    rank = len(x.shape)
    a, b = (d % rank for d in dims)
    rest = [d for d in range(rank) if d not in (a, b)]
    s = F.svd(F.transpose(x, tuple(rest) + (a, b)), compute_uv=False)
    out = F.sum(s, -1)
    if self.keepdim:
        for d in sorted((a, b)):
            out = F.expand_dims(out, d)
    return out


NuclearNorm = _primitive("NuclearNorm", _nuclear_norm, attrs=[("dim", None), ("keepdim", False)],
                         doc="NuclearNorm(dim=None, keepdim=False)(x): the sum of singular values over two axes "
                             "(forward only: the SVD's gradient is not implemented).")


def _fft_with_size(self, x):
    from ..core.primitive import PRIMITIVES
    if self.signal_ndim not in (1, 2, 3) or len(x.shape) < self.signal_ndim:
        raise ValueError(f"For 'FFTWithSize', 'signal_ndim' must be 1, 2 or 3 and at most the rank of x, but got "
                         f"{self.signal_ndim} for shape {list(x.shape)}.")
    dims, s = tuple(range(-self.signal_ndim, 0)), None
    if not self.real:
        kind = "IFFTN" if self.inverse else "FFTN"
    elif not self.inverse:
        kind = "RFFTN" if self.onesided else "FFTN"
    elif self.onesided:
        kind = "IRFFTN"
        s = tuple(self.signal_sizes)[-self.signal_ndim:] if self.signal_sizes else None
    else:
        return F.real(PRIMITIVES["IFFTN"](dim=dims, norm=self.norm)(x))
    return PRIMITIVES[kind](s=s, dim=dims, norm=self.norm)(x)


FFTWithSize = _primitive(
    "FFTWithSize", _fft_with_size,
    attrs=[("signal_ndim", None), ("inverse", None), ("real", None), ("norm", "backward"), ("onesided", True),
           ("signal_sizes", ())],
    doc="FFTWithSize(signal_ndim, inverse, real, norm='backward', onesided=True, signal_sizes=())(x): the FFT "
        "over the last signal_ndim axes (complex, real-to-half-spectrum or back; see ops.fftn/rfftn/irfftn).")

__all__ = sorted(n for n, v in list(globals().items())
                 if isinstance(v, type) and issubclass(v, _PythonPrimitive) and v is not _PythonPrimitive)
