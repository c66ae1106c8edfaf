"""Primitives: DeformableOffsets (the sampling half of a deformable convolution, behind ops.deformable_conv2d)
and DeformableOffsetsGrad, its backward.

For each output position (oh, ow) and kernel point (i, j) the input is read bilinearly at
y = oh·stride_h − pad_top + i·dilation_h + Δy, x = ow·stride_w − pad_left + j·dilation_w + Δx, multiplied by
the mask m, and written to out[n, c, oh·kh + i, ow·kw + j]; a convolution with stride (kh, kw) over that output
is the deformable convolution. `offsets` (N, 3·G·kh·kw, H_out, W_out) holds the Δx of every (group, i, j), then
the Δy, then the masks; channel group g (C/G channels) uses the g-th set. Reads outside the input count as 0.
Layout and arithmetic follow MindSpore 2.10's CPU kernel (checked on random inputs); it requires
modulated=True and NCHW, as MindSpore does.
"""
import numpy as np

from ...core.primitive import AbstractTensor, Primitive, Sample, register
from ._export import BACKWARD, NO_MINDIR, NO_ONNX, not_exportable
from ._util import check_dtype, check_tensor, rand_float


def _four(op, name, value):
    if not isinstance(value, (tuple, list)) or len(value) != 4 or not all(isinstance(v, int) for v in value):
        raise ValueError(f"For '{op}', '{name}' must be a tuple of 4 ints, but got {value!r}.")
    return tuple(value)


def _corners(y, x, height, width):
    """Per sample: the four (row, col) corners, their bilinear weights and the weights' derivatives in y and x;
    corners outside the input get weight 0 (their index is clipped to stay valid)."""
    valid = (y > -1) & (y < height) & (x > -1) & (x < width)
    y0, x0 = np.floor(y), np.floor(x)
    ly, lx = y - y0, x - x0
    out = []
    for dy, dx, w, wy, wx in ((0, 0, (1 - ly) * (1 - lx), -(1 - lx), -(1 - ly)), (0, 1, (1 - ly) * lx, -lx, 1 - ly),
                              (1, 0, ly * (1 - lx), 1 - lx, -ly), (1, 1, ly * lx, lx, ly)):
        yy, xx = y0 + dy, x0 + dx
        inside = valid & (yy >= 0) & (yy < height) & (xx >= 0) & (xx < width)
        out.append((np.clip(yy, 0, height - 1).astype(np.int64), np.clip(xx, 0, width - 1).astype(np.int64),
                    np.where(inside, w, 0.0), np.where(inside, wy, 0.0), np.where(inside, wx, 0.0)))
    return out


class _DeformableBase(Primitive):
    attr_defaults = {"strides": None, "pads": None, "ksize": None, "dilations": (1, 1, 1, 1), "data_format": "NCHW",
                     "deformable_groups": 1, "modulated": True}

    def check_attrs(self):
        op = self.name
        self.attrs["strides"] = self.strides = _four(op, "strides", self.strides)
        self.attrs["pads"] = self.pads = _four(op, "pads", self.pads)
        self.attrs["dilations"] = self.dilations = _four(op, "dilations", self.dilations)
        if not isinstance(self.ksize, (tuple, list)) or len(self.ksize) != 2 or min(self.ksize) < 1:
            raise ValueError(f"For '{op}', 'ksize' must be a tuple of 2 positive ints, but got {self.ksize!r}.")
        self.attrs["ksize"] = self.ksize = tuple(self.ksize)
        if self.data_format != "NCHW":
            raise ValueError(f"For '{op}', only data_format 'NCHW' is supported, but got {self.data_format!r}.")
        if self.modulated is not True:
            raise ValueError(f"For '{op}', The modulated must be set to True.")
        if isinstance(self.deformable_groups, bool) or not isinstance(self.deformable_groups, int) \
                or self.deformable_groups < 1:
            raise ValueError(f"For '{op}', 'deformable_groups' must be a positive int, got {self.deformable_groups!r}.")

    def out_hw(self, height, width):
        (kh, kw), (_, _, sh, sw), (_, _, dh, dw) = self.ksize, self.strides, self.dilations
        top, bottom, left, right = self.pads
        return ((height + top + bottom - (kh - 1) * dh - 1) // sh + 1,
                (width + left + right - (kw - 1) * dw - 1) // sw + 1)

    def check_inputs(self, x_shape, offsets):
        n, c, h, w = x_shape
        g, (kh, kw) = self.deformable_groups, self.ksize
        if c % g:
            raise ValueError(f"For '{self.name}', the channels ({c}) must be divisible by deformable_groups ({g}).")
        expected = (n, 3 * g * kh * kw) + self.out_hw(h, w)
        if tuple(offsets.shape) != expected:
            raise ValueError(f"For '{self.name}', 'offsets' must have shape {list(expected)} (N, 3*groups*kh*kw, "
                             f"H_out, W_out), but got {list(offsets.shape)}.")

    def sample_points(self, offsets, height, width):
        """(y, x, mask) of shape (N, G, kh, kw, H_out, W_out), float64."""
        n, _, ho, wo = offsets.shape
        g, (kh, kw) = self.deformable_groups, self.ksize
        top, left = self.pads[0], self.pads[2]
        (_, _, sh, sw), (_, _, dh, dw) = self.strides, self.dilations
        parts = np.asarray(offsets, np.float64).reshape(n, 3, g, kh, kw, ho, wo)
        base_y = (np.arange(kh) * dh)[:, None] + (np.arange(ho) * sh - top)[None, :]     # (kh, H_out)
        base_x = (np.arange(kw) * dw)[:, None] + (np.arange(wo) * sw - left)[None, :]    # (kw, W_out)
        y = base_y[:, None, :, None] + parts[:, 1]      # broadcast over (N, G, kh, kw, H_out, W_out)
        x = base_x[None, :, None, :] + parts[:, 0]
        return y, x, parts[:, 2]

    def forward(self, x, offsets):
        """The output (N, C, H_out·kh, W_out·kw) in float64 numpy."""
        x = np.asarray(x, np.float64)
        n, c, h, w = x.shape
        g, (kh, kw) = self.deformable_groups, self.ksize
        y, xs, mask = self.sample_points(offsets, h, w)
        ho, wo = y.shape[-2:]
        grouped = x.reshape(n, g, c // g, h, w)
        batch = np.arange(n)[:, None, None, None, None, None]
        group = np.arange(g)[None, :, None, None, None, None]
        value = 0.0
        for yy, xx, wgt, _, _ in _corners(y, xs, h, w):
            picked = grouped[batch, group, :, yy, xx]           # (N, G, kh, kw, H_out, W_out, C/G)
            value = value + picked * wgt[..., None]
        value = value * mask[..., None]
        return value.transpose(0, 1, 6, 4, 2, 5, 3).reshape(n, c, ho * kh, wo * kw)

    def backward(self, dout, x, offsets):
        """(dx, doffsets) in float64 numpy for the cotangent dout."""
        x = np.asarray(x, np.float64)
        n, c, h, w = x.shape
        g, (kh, kw) = self.deformable_groups, self.ksize
        y, xs, mask = self.sample_points(offsets, h, w)
        ho, wo = y.shape[-2:]
        d = np.asarray(dout, np.float64).reshape(n, g, c // g, ho, kh, wo, kw).transpose(0, 1, 4, 6, 3, 5, 2)
        grouped = x.reshape(n, g, c // g, h, w)
        batch = np.arange(n)[:, None, None, None, None, None]
        group = np.arange(g)[None, :, None, None, None, None]
        dx = np.zeros((n, g, h, w, c // g))
        value = dval_y = dval_x = 0.0
        for yy, xx, wgt, wy, wx in _corners(y, xs, h, w):
            picked = grouped[batch, group, :, yy, xx]
            value = value + picked * wgt[..., None]
            dval_y = dval_y + picked * wy[..., None]
            dval_x = dval_x + picked * wx[..., None]
            index = (np.broadcast_to(batch, yy.shape), np.broadcast_to(group, yy.shape), yy, xx)
            np.add.at(dx, index, d * (wgt * mask)[..., None])
        doff = np.stack([(d * dval_x).sum(-1) * mask, (d * dval_y).sum(-1) * mask, (d * value).sum(-1)], 1)
        return dx.transpose(0, 1, 4, 2, 3).reshape(n, c, h, w), doff.reshape(offsets.shape)


@register
class DeformableOffsets(_DeformableBase):
    """DeformableOffsets(strides, pads, ksize, dilations=(1, 1, 1, 1), data_format='NCHW', deformable_groups=1,
    modulated=True)(x (N, C, H, W), offsets) → (N, C, H_out·kh, W_out·kw); see the module text."""
    input_names = ("x", "offsets")

    def infer(self, x, offsets):
        for name, t in (("x", x), ("offsets", offsets)):
            check_tensor(self.name, name, t)
            check_dtype(self.name, name, t, ("float",))
        if len(x.shape) != 4:
            raise ValueError(f"For '{self.name}', 'x' must be 4-D (N, C, H, W), but got {list(x.shape)}.")
        self.check_inputs(x.shape, offsets)
        ho, wo = self.out_hw(*x.shape[2:])
        return AbstractTensor((x.shape[0], x.shape[1], ho * self.ksize[0], wo * self.ksize[1]), x.dtype)

    def bprop(self, x, offsets, out, dout):
        return DeformableOffsetsGrad(**self.attrs)(dout, x, offsets)

    def numpy(self, np, x, offsets):
        return self.forward(x, offsets).astype(x.dtype)

    def torch(self, torch, x, offsets):
        out = self.forward(x.detach().cpu().numpy(), offsets.detach().cpu().numpy())
        return torch.as_tensor(out, dtype=x.dtype, device=x.device)

    @classmethod
    def samples(cls, rng):
        def case(x_shape, groups, attrs, name=""):
            op = cls(**attrs, deformable_groups=groups)
            ho, wo = op.out_hw(*x_shape[2:])
            offsets = rng.uniform(-1.5, 1.5, (x_shape[0], 3 * groups * op.ksize[0] * op.ksize[1], ho, wo))
            return Sample(rand_float(rng, x_shape), offsets.astype(np.float32), name=name,
                          attrs=dict(attrs, deformable_groups=groups), rtol=1e-4, atol=1e-5)
        yield case((1, 2, 5, 5), 1, {"strides": (1, 1, 1, 1), "pads": (0, 0, 0, 0), "ksize": (2, 2)})
        yield case((2, 4, 6, 7), 2, {"strides": (1, 1, 2, 2), "pads": (1, 0, 1, 0), "ksize": (2, 2),
                                     "dilations": (1, 1, 2, 1)}, name="groups-strided")


@register
class DeformableOffsetsGrad(_DeformableBase):
    """DeformableOffsetsGrad(<DeformableOffsets' attributes>)(dout, x, offsets) → (dx, doffsets): the gradients
    of DeformableOffsets (the bilinear weights' derivatives give the offsets', the sampled values the masks')."""
    input_names = ("dout", "x", "offsets")
    differentiable = False
    nondiff_reason = "a backward primitive: second derivatives of deformable sampling are not provided"

    def infer(self, dout, x, offsets):
        for name, t in (("dout", dout), ("x", x), ("offsets", offsets)):
            check_tensor(self.name, name, t)
            check_dtype(self.name, name, t, ("float",))
        self.check_inputs(x.shape, offsets)
        return AbstractTensor(x.shape, x.dtype), AbstractTensor(offsets.shape, offsets.dtype)

    def numpy(self, np, dout, x, offsets):
        dx, doff = self.backward(dout, x, offsets)
        return dx.astype(x.dtype), doff.astype(offsets.dtype)

    def torch(self, torch, dout, x, offsets):
        dx, doff = self.backward(dout.detach().cpu().numpy(), x.detach().cpu().numpy(), offsets.detach().cpu().numpy())
        return (torch.as_tensor(dx, dtype=x.dtype, device=x.device),
                torch.as_tensor(doff, dtype=offsets.dtype, device=offsets.device))

    @classmethod
    def samples(cls, rng):
        attrs = {"strides": (1, 1, 1, 1), "pads": (0, 0, 0, 0), "ksize": (2, 2)}
        offsets = rng.uniform(-1.5, 1.5, (1, 12, 4, 4)).astype(np.float32)
        yield Sample(rand_float(rng, (1, 2, 8, 8)), rand_float(rng, (1, 2, 5, 5)), offsets, attrs=attrs)


not_exportable(BACKWARD, DeformableOffsetsGrad)
not_exportable(NO_MINDIR, DeformableOffsets, formats=("MINDIR",))
not_exportable(NO_ONNX, DeformableOffsets, formats=("ONNX",))
