"""Primitives: ROIAlign (average of bilinear samples over each pooled bin of a region of interest) and its adjoint
ROIAlignGrad; each one's gradient is the other (both are linear in their tensor input).

A region is a row (batch index, x1, y1, x2, y2) of `rois`, in input-image coordinates scaled by
`spatial_scale`; roi_end_mode=1 adds 1 to the end corner first (the legacy +1 box convention). The region is at
least 1×1; each of the pooled_height × pooled_width bins averages grid_h × grid_w bilinear samples taken at the
centres of a regular sub-grid. grid is `sample_num`, or with sample_num=0, floor(region size / pooled size) per
axis — as MindSpore 2.10's CPU kernel computes it, so a region smaller than its pooled grid averages over no
samples and gives NaN. A sample more than one pixel outside the feature map contributes 0; one within a pixel of
the border is clamped onto it. The gradient with respect to `rois` is zero, as in MindSpore. The features'
gradient is the exact adjoint of the forward; MindSpore 2.10's CPU gradient kernel agrees with it except for
regions smaller than 1×1, where it drops the 1×1 minimum the forward applies.
"""
import numpy as np

from ...core.primitive import AbstractTensor, Primitive, Sample, register
from ._export import BACKWARD, NO_MINDIR, NO_ONNX, not_exportable
from ._util import check_dtype, check_tensor, rand_float


def _bins(rois, height, width, ph, pw, scale, sample_num, end_mode):
    """(target, source, weight, count) over every bilinear corner of every sample: output bin `target`
    (flat over rois × ph × pw) takes weight × input pixel `source` (flat over batch × H × W); `count` is the
    number of samples each bin averages."""
    targets, sources, weights, counts = [], [], [], []
    for r, (b, x1, y1, x2, y2) in enumerate(np.asarray(rois, np.float64)):
        start_w, start_h = x1 * scale, y1 * scale
        roi_w = max((x2 + end_mode) * scale - start_w, 1.0)
        roi_h = max((y2 + end_mode) * scale - start_h, 1.0)
        bin_h, bin_w = roi_h / ph, roi_w / pw
        grid_h = sample_num if sample_num > 0 else int(roi_h / ph)
        grid_w = sample_num if sample_num > 0 else int(roi_w / pw)
        counts.append(np.full(ph * pw, grid_h * grid_w, np.float64))
        if grid_h * grid_w == 0:
            continue
        i, j, iy, ix = np.meshgrid(np.arange(ph), np.arange(pw), np.arange(grid_h), np.arange(grid_w), indexing="ij")
        y = start_h + i * bin_h + (iy + 0.5) * bin_h / grid_h
        x = start_w + j * bin_w + (ix + 0.5) * bin_w / grid_w
        inside = (y >= -1.0) & (y <= height) & (x >= -1.0) & (x <= width)
        target = (r * ph + i) * pw + j
        y, x, target = np.maximum(y[inside], 0.0), np.maximum(x[inside], 0.0), target[inside]
        y_low, x_low = y.astype(np.int64), x.astype(np.int64)
        y_edge, x_edge = y_low >= height - 1, x_low >= width - 1
        y_low[y_edge], x_low[x_edge] = height - 1, width - 1
        y = np.where(y_edge, y_low, y)
        x = np.where(x_edge, x_low, x)
        y_high = np.where(y_edge, y_low, y_low + 1)
        x_high = np.where(x_edge, x_low, x_low + 1)
        ly, lx = y - y_low, x - x_low
        base = int(b) * height * width
        for yy, xx, w in ((y_low, x_low, (1 - ly) * (1 - lx)), (y_low, x_high, (1 - ly) * lx),
                          (y_high, x_low, ly * (1 - lx)), (y_high, x_high, ly * lx)):
            targets.append(target)
            sources.append(base + yy * width + xx)
            weights.append(w)
    cat = (lambda parts, dtype: np.concatenate(parts).astype(dtype) if parts else np.zeros(0, dtype))
    return cat(targets, np.int64), cat(sources, np.int64), cat(weights, np.float64), np.concatenate(counts)


def _check_pooling(op, attrs):
    for name in ("pooled_height", "pooled_width"):
        value = attrs[name]
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise ValueError(f"For '{op}', '{name}' must be a positive int, but got {value!r}.")
    if isinstance(attrs["sample_num"], bool) or not isinstance(attrs["sample_num"], int) or attrs["sample_num"] < 0:
        raise ValueError(f"For '{op}', 'sample_num' must be a non-negative int, but got {attrs['sample_num']!r}.")
    if attrs["roi_end_mode"] not in (0, 1):
        raise ValueError(f"For '{op}', 'roi_end_mode' must be 0 or 1, but got {attrs['roi_end_mode']!r}.")


def _check_rois(op, features, rois):
    check_tensor(op, "rois", rois)
    if len(rois.shape) != 2 or rois.shape[1] != 5:
        raise ValueError(f"For '{op}', 'rois' must be (num_rois, 5) rows of (batch, x1, y1, x2, y2), but got shape "
                         f"{list(rois.shape)}.")
    if rois.dtype != features.dtype:
        raise TypeError(f"For '{op}', 'rois' must have the dtype of the features ({features.dtype}), got {rois.dtype}.")


class _ROIBase(Primitive):
    attr_defaults = {"pooled_height": None, "pooled_width": None, "spatial_scale": None, "sample_num": 2,
                     "roi_end_mode": 1}

    def check_attrs(self):
        _check_pooling(self.name, self.attrs)

    def tables(self, rois, height, width):
        return _bins(rois, height, width, self.pooled_height, self.pooled_width, float(self.spatial_scale),
                     self.sample_num, self.roi_end_mode)

    def pool_attrs(self):
        return dict(self.attrs)


@register
class ROIAlign(_ROIBase):
    """ROIAlign(pooled_height, pooled_width, spatial_scale, sample_num=2, roi_end_mode=1)(features (N, C, H, W),
    rois (R, 5)) → (R, C, pooled_height, pooled_width); see the module text."""
    input_names = ("features", "rois")

    def infer(self, features, rois):
        check_tensor(self.name, "features", features)
        check_dtype(self.name, "features", features, ("float",))
        if len(features.shape) != 4:
            raise ValueError(f"For '{self.name}', 'features' must be 4-D (N, C, H, W), but got {list(features.shape)}.")
        _check_rois(self.name, features, rois)
        return AbstractTensor((rois.shape[0], features.shape[1], self.pooled_height, self.pooled_width),
                              features.dtype)

    def bprop(self, features, rois, out, dout):
        return ROIAlignGrad(**self.pool_attrs())(dout, rois, tuple(features.shape)), None

    def numpy(self, np, features, rois):
        n, c, h, w = features.shape
        target, source, weight, count = self.tables(rois, h, w)
        flat = features.transpose(0, 2, 3, 1).reshape(n * h * w, c)
        total = np.zeros((count.shape[0], c), np.float64)
        np.add.at(total, target, flat[source] * weight[:, None])
        with np.errstate(invalid="ignore", divide="ignore"):
            out = total / count[:, None]
        return out.reshape(rois.shape[0], self.pooled_height, self.pooled_width, c).transpose(0, 3, 1, 2) \
            .astype(features.dtype)

    def torch(self, torch, features, rois):
        n, c, h, w = features.shape
        target, source, weight, count = self.tables(rois.detach().cpu().numpy(), h, w)
        dev, dtype = features.device, features.dtype
        flat = features.permute(0, 2, 3, 1).reshape(n * h * w, c)
        total = torch.zeros((count.shape[0], c), dtype=dtype, device=dev)
        weight_t = torch.as_tensor(weight, dtype=dtype, device=dev)
        total.index_add_(0, torch.as_tensor(target, device=dev), flat[torch.as_tensor(source, device=dev)] *
                         weight_t[:, None])
        out = total / torch.as_tensor(count, dtype=dtype, device=dev)[:, None]
        return out.reshape(rois.shape[0], self.pooled_height, self.pooled_width, c).permute(0, 3, 1, 2).contiguous()

    @classmethod
    def samples(cls, rng):
        rois = np.array([[0, 0.2, 0.3, 5.2, 4.9], [1, 1.5, 0.0, 8.9, 6.5], [0, -2.0, -1.0, 3.0, 10.0],
                         [1, 6.0, 4.0, 30.0, 20.0]], np.float32)
        yield Sample(rand_float(rng, (2, 3, 7, 9)), rois, attrs={"pooled_height": 2, "pooled_width": 3,
                                                                 "spatial_scale": 1.0}, grad=(0,))
        yield Sample(rand_float(rng, (2, 2, 6, 6)), rois, grad=(0,), name="adaptive-grid", attrs={
            "pooled_height": 2, "pooled_width": 2, "spatial_scale": 0.5, "sample_num": 0, "roi_end_mode": 0})


@register
class ROIAlignGrad(_ROIBase):
    """ROIAlignGrad(pooled_height, pooled_width, spatial_scale, sample_num=2, roi_end_mode=1)(dy (R, C, ph, pw),
    rois (R, 5), xdiff_shape) → the (N, C, H, W) gradient of ROIAlign's features: each bin's dy spread back
    onto the pixels its samples read, with their bilinear weights."""
    input_names = ("dy", "rois", "xdiff_shape")

    def _shape(self, xdiff_shape):
        shape = tuple(int(d) for d in xdiff_shape)
        if len(shape) != 4:
            raise ValueError(f"For '{self.name}', 'xdiff_shape' must have 4 dimensions, but got {list(shape)}.")
        return shape

    def infer(self, dy, rois, xdiff_shape):
        check_tensor(self.name, "dy", dy)
        check_dtype(self.name, "dy", dy, ("float",))
        _check_rois(self.name, dy, rois)
        shape = self._shape(xdiff_shape)
        if tuple(dy.shape) != (rois.shape[0], shape[1], self.pooled_height, self.pooled_width):
            raise ValueError(f"For '{self.name}', 'dy' must be (num_rois, C, pooled_height, pooled_width) = "
                             f"{[rois.shape[0], shape[1], self.pooled_height, self.pooled_width]}, got {list(dy.shape)}.")
        return AbstractTensor(shape, dy.dtype)

    def bprop(self, dy, rois, xdiff_shape, out, dout):
        return ROIAlign(**self.pool_attrs())(dout, rois), None, None

    def numpy(self, np, dy, rois, xdiff_shape):
        n, c, h, w = self._shape(xdiff_shape)
        target, source, weight, count = self.tables(rois, h, w)
        per_bin = dy.transpose(0, 2, 3, 1).reshape(-1, c)
        grad = np.zeros((n * h * w, c), np.float64)
        np.add.at(grad, source, per_bin[target] * (weight / count[target])[:, None])
        return grad.reshape(n, h, w, c).transpose(0, 3, 1, 2).astype(dy.dtype)

    def torch(self, torch, dy, rois, xdiff_shape):
        n, c, h, w = self._shape(xdiff_shape)
        target, source, weight, count = self.tables(rois.detach().cpu().numpy(), h, w)
        dev, dtype = dy.device, dy.dtype
        per_bin = dy.permute(0, 2, 3, 1).reshape(-1, c)
        scale = torch.as_tensor(weight / count[target], dtype=dtype, device=dev)
        grad = torch.zeros((n * h * w, c), dtype=dtype, device=dev)
        grad.index_add_(0, torch.as_tensor(source, device=dev), per_bin[torch.as_tensor(target, device=dev)] *
                        scale[:, None])
        return grad.reshape(n, h, w, c).permute(0, 3, 1, 2).contiguous()

    @classmethod
    def samples(cls, rng):
        rois = np.array([[0, 0.2, 0.3, 5.2, 4.9], [1, 1.5, 0.0, 8.9, 6.5], [0, 6.0, 4.0, 30.0, 20.0]], np.float32)
        yield Sample(rand_float(rng, (3, 3, 2, 3)), rois, (2, 3, 7, 9), grad=(0,),
                     attrs={"pooled_height": 2, "pooled_width": 3, "spatial_scale": 1.0})


not_exportable(BACKWARD, ROIAlignGrad)
not_exportable(NO_MINDIR, ROIAlign, formats=("MINDIR",))
not_exportable(NO_ONNX, ROIAlign, formats=("ONNX",))
