"""Primitives: 2-D convolution and its two adjoints.

Conv2D(x, w) is bilinear, so its backward rule is two linear maps that are primitives of their own:
Conv2DBackpropInput (the input gradient, i.e. the transposed convolution) and Conv2DBackpropFilter. Each of the
three differentiates into the other two with the same attributes, which closes the family under grad-of-grad.
"""
from ...core.autograd import needs_input_grad
from ...core.primitive import AbstractTensor, Primitive, Sample, register
from . import _onnx
from ._mindir import Arg, DATA_FORMAT, mindir, norm_pad_mode, norm_tuple
from ._export import BACKWARD, NO_MINDIR, NO_ONNX, PASS_MADE, not_exportable
from ._nn_util import (check_format, hw_pair, np_col2im, np_crop, np_pad, np_windows, pad_four, pad_mode_of, set_attr,
                       symmetric, torch_fit, torch_pad, window_geometry)
from ._util import check_dtype, check_same_dtype, check_tensor, prim, rand_float

_ATTRS = ("out_channel", "kernel_size", "mode", "pad_mode", "pad", "stride", "dilation", "group", "data_format")


class _ConvFamily(Primitive):
    """Attribute handling and geometry shared by Conv2D and its adjoints (MindSpore attribute conventions)."""

    def check_attrs(self):
        op = self.name
        oc = self.out_channel
        if isinstance(oc, bool) or not isinstance(oc, int) or oc <= 0:
            raise ValueError(f"For '{op}', the 'out_channel' must be a positive int, but got {oc!r}.")
        set_attr(self, "kernel_size", hw_pair(op, "kernel_size", self.kernel_size))
        set_attr(self, "pad_mode", pad_mode_of(op, self.pad_mode))
        pads = pad_four(op, "pad", self.pad)
        pad_list = self.attrs.get("pad_list")
        if pad_list is not None and self.pad_mode == "pad" and any(pad_four(op, "pad_list", pad_list)):
            pads = pad_four(op, "pad_list", pad_list)  # the adjoints' explicit (top, bottom, left, right)
        if self.pad_mode != "pad" and any(pads):
            raise ValueError(f"For '{op}', the 'pad' must be zero when 'pad_mode' is not 'pad', but got pad: {self.pad} "
                             f"and pad_mode: {self.pad_mode}.")
        set_attr(self, "pad", pads)
        set_attr(self, "stride", (1, 1) + hw_pair(op, "stride", self.stride))
        set_attr(self, "dilation", (1, 1) + hw_pair(op, "dilation", self.dilation))
        g = self.group
        if isinstance(g, bool) or not isinstance(g, int) or g <= 0:
            raise ValueError(f"For '{op}', the 'group' must be a positive int, but got {g!r}.")
        check_format(op, self.data_format)

    def conv_attrs(self):
        return {k: self.attrs[k] for k in _ATTRS}

    def sibling(self, cls):
        """The `cls` (Conv2D, Conv2DBackpropInput or Conv2DBackpropFilter) with these attributes, from the shared
        primitive cache: backward rules ask for it at every step."""
        return prim(cls.name, **self.conv_attrs())

    def geometry(self, in_hw):
        return window_geometry(self.name, tuple(in_hw), self.kernel_size, self.stride[2:], self.dilation[2:],
                               self.pad_mode, self.pad)

    def _check_pair(self, name_a, a, name_b, b):
        check_tensor(self.name, name_a, a)
        check_tensor(self.name, name_b, b)
        for name, t in ((name_a, a), (name_b, b)):
            if len(t.shape) != 4:
                raise ValueError(f"For primitive[{self.name}], the {name} shape size must be equal to 4, "
                                 f"but got {len(t.shape)}.")
        check_dtype(self.name, name_a, a, ("float",))
        check_same_dtype(self.name, (name_a, name_b), a, b)

    def _check_weight(self, wshape, in_channels):
        op, g = self.name, self.group
        if wshape[0] != self.out_channel:
            raise ValueError(f"For '{op}', the weight's output channels {wshape[0]} must equal 'out_channel' "
                             f"{self.out_channel}.")
        if wshape[0] % g:
            raise ValueError(f"For '{op}', 'out_channel' {wshape[0]} must be divisible by 'group' {g}.")
        if wshape[1] * g != in_channels:
            raise ValueError(f"For '{op}', 'C_in' of input 'x' shape divide by parameter 'group' must be equal to "
                             f"'C_in' of input 'weight' shape: {wshape[1]}, but got 'C_in' of input 'x' shape: "
                             f"{in_channels}, and 'group': {g}.")
        if tuple(wshape[2:]) != tuple(self.kernel_size):
            raise ValueError(f"For '{op}', the weight's spatial shape {tuple(wshape[2:])} must equal 'kernel_size' "
                             f"{self.kernel_size}.")

    def _check_out(self, in_hw, dout_shape):
        _, out = self.geometry(in_hw)
        if tuple(dout_shape[2:]) != out:
            raise ValueError(f"For '{self.name}', the gradient's spatial shape {tuple(dout_shape[2:])} does not match "
                             f"the convolution output {out} of an input with spatial shape {tuple(in_hw)}.")

    def _shape_arg(self, name, value):
        if hasattr(value, "asnumpy"):
            value = value.asnumpy().tolist()
        if not isinstance(value, (tuple, list)) or len(value) != 4 or not all(isinstance(v, int) for v in value):
            raise TypeError(f"For '{self.name}', the '{name}' must be a tuple of 4 ints, but got {value!r}.")
        return tuple(int(v) for v in value)


# ---- numpy kernels (vectorized: strided window views + tensordot/einsum) ------------------------------
def _np_conv(np, prim, x, w):
    pads, out = prim.geometry(x.shape[2:])
    v = np_windows(np, np_pad(np, x, pads), prim.kernel_size, prim.stride[2:], prim.dilation[2:], out)
    g = prim.group
    if g == 1:
        y = np.tensordot(v, w, axes=([1, 4, 5], [1, 2, 3])).transpose(0, 3, 1, 2)
    else:
        n, c = x.shape[:2]
        o, cg, kh, kw = w.shape
        vg = v.reshape(n, g, c // g, out[0], out[1], kh, kw)
        y = np.einsum("ngchwij,gocij->ngohw", vg, w.reshape(g, o // g, cg, kh, kw), optimize=True)
        y = y.reshape(n, o, out[0], out[1])
    return np.ascontiguousarray(y, dtype=x.dtype)


def _np_conv_input_grad(np, prim, dy, w, input_size):
    n, c, h, wd = input_size
    pads, out = prim.geometry((h, wd))
    g = prim.group
    o, cg, kh, kw = w.shape
    if g == 1:
        cols = np.tensordot(dy, w, axes=([1], [0])).transpose(0, 3, 1, 2, 4, 5)
    else:
        dyg = dy.reshape(n, g, o // g, out[0], out[1])
        cols = np.einsum("ngohw,gocij->ngchwij", dyg, w.reshape(g, o // g, cg, kh, kw), optimize=True)
        cols = cols.reshape(n, c, out[0], out[1], kh, kw)
    padded = (h + pads[0] + pads[1], wd + pads[2] + pads[3])
    full = np_col2im(np, cols, padded, prim.kernel_size, prim.stride[2:], prim.dilation[2:])
    return np.ascontiguousarray(np_crop(full, pads), dtype=dy.dtype)


def _np_conv_filter_grad(np, prim, dy, x, filter_size):
    pads, out = prim.geometry(x.shape[2:])
    v = np_windows(np, np_pad(np, x, pads), prim.kernel_size, prim.stride[2:], prim.dilation[2:], out)
    g = prim.group
    if g == 1:
        dw = np.tensordot(dy, v, axes=([0, 2, 3], [0, 2, 3]))
    else:
        n, c = x.shape[:2]
        o, cg, kh, kw = filter_size
        dyg = dy.reshape(n, g, o // g, out[0], out[1])
        vg = v.reshape(n, g, cg, out[0], out[1], kh, kw)
        dw = np.einsum("ngohw,ngchwij->gocij", dyg, vg, optimize=True).reshape(filter_size)
    return np.ascontiguousarray(dw, dtype=dy.dtype)


# ---- torch kernels ------------------------------------------------------------------------------------
def _channels_last(torch, prim, weight_shape, input_hw, *arrays):
    """oneDNN's channels-last convolutions (forward and both backward halves) ran about twice as fast as NCHW on
    these CPUs for ResNet-sized layers, so wide, ungrouped float convolutions compute in that memory layout. The
    logical shape stays NCHW (it is only a stride order): every other kernel, and the values, are unaffected.
    Small layers (under 16 channels on a side and under 16x16 pixels, e.g. LeNet's second convolution) ran no
    faster, and their channels-last outputs slowed the NCHW kernels around them, so they stay NCHW."""
    first = arrays[0]
    narrow = min(weight_shape[0], weight_shape[1]) < 16 and input_hw[0] * input_hw[1] < 256
    if (prim.group != 1 or first.dtype not in (torch.float32, torch.bfloat16) or first.is_cuda
            or max(weight_shape[0], weight_shape[1]) < 8 or narrow):
        return arrays + (False,)
    cl = torch.channels_last
    return tuple(a.contiguous(memory_format=cl) for a in arrays) + (True,)


def _torch_conv(torch, prim, x, w):
    F = torch.nn.functional
    pads, _ = prim.geometry(x.shape[2:])
    s, d, g = prim.stride[2:], prim.dilation[2:], prim.group
    x, w, _ = _channels_last(torch, prim, w.shape, x.shape[2:], x, w)
    if symmetric(pads):
        return F.conv2d(x, w, None, s, (pads[0], pads[2]), d, g)
    return F.conv2d(torch_pad(torch, x, pads), w, None, s, 0, d, g)


def _torch_conv_input_grad(torch, prim, dy, w, input_size):
    F = torch.nn.functional
    h, wd = input_size[2], input_size[3]
    pads, out = prim.geometry((h, wd))
    (kh, kw), s, d, g = prim.kernel_size, prim.stride[2:], prim.dilation[2:], prim.group
    dy, w, fast = _channels_last(torch, prim, w.shape, input_size[2:], dy, w)
    if fast and symmetric(pads):
        # convolution_backward sizes the input gradient from a shape-only input (no data is read)
        # (allocated channels-last: an NCHW empty made contiguous would copy a whole activation of garbage)
        shape_only = torch.empty(tuple(input_size), dtype=dy.dtype, memory_format=torch.channels_last)
        return torch.ops.aten.convolution_backward(dy, shape_only, w, None, list(s), [pads[0], pads[2]], list(d),
                                                   False, [0, 0], g, [True, False, False])[0]
    full = ((out[0] - 1) * s[0] + d[0] * (kh - 1) + 1, (out[1] - 1) * s[1] + d[1] * (kw - 1) + 1)
    if symmetric(pads):
        # The rows a strided window never reaches come back as output_padding (always < stride).
        extra = (h + 2 * pads[0] - full[0], wd + 2 * pads[2] - full[1])
        return F.conv_transpose2d(dy, w, None, s, (pads[0], pads[2]), extra, g, d)
    return torch_fit(torch, F.conv_transpose2d(dy, w, None, s, 0, 0, g, d), pads[0], pads[2], (h, wd))


def _torch_conv_filter_grad(torch, prim, dy, x, filter_size):
    pads, _ = prim.geometry(x.shape[2:])
    dy, x, fast = _channels_last(torch, prim, filter_size, x.shape[2:], dy, x)
    layout = torch.channels_last if fast else torch.contiguous_format
    shape_only = torch.empty(filter_size, dtype=x.dtype, device=x.device, memory_format=layout)
    if symmetric(pads):
        xin, padding = x, [pads[0], pads[2]]
    else:
        xin, padding = torch_pad(torch, x, pads), [0, 0]
    grads = torch.ops.aten.convolution_backward(dy, xin, shape_only, None, list(prim.stride[2:]), padding,
                                                list(prim.dilation[2:]), False, [0, 0], prim.group,
                                                [False, True, False])
    return grads[1].contiguous()


def _torch_conv_both_grads(torch, prim, dy, x, w):
    """(input gradient, filter gradient) of one convolution: a single convolution_backward computing both where
    the halves would each call it (channels-last, symmetric padding), else the two kernels. Bit for bit what the
    two separate kernels give: oneDNN runs the same backward-data and backward-weights primitives either way."""
    pads, _ = prim.geometry(x.shape[2:])
    dyc, xc, wc, fast = _channels_last(torch, prim, w.shape, x.shape[2:], dy, x, w)
    if fast and symmetric(pads):
        dx, dw, _ = torch.ops.aten.convolution_backward(dyc, xc, wc, None, list(prim.stride[2:]), [pads[0], pads[2]],
                                                        list(prim.dilation[2:]), False, [0, 0], prim.group,
                                                        [True, True, False])
        return dx, dw.contiguous()
    return (_torch_conv_input_grad(torch, prim, dy, w, tuple(x.shape)),
            _torch_conv_filter_grad(torch, prim, dy, x, tuple(w.shape)))


# ---- primitives -------------------------------------------------------------------------------------------
@register
class Conv2D(_ConvFamily):
    """Conv2D(out_channel, kernel_size, mode=1, pad_mode='valid', pad=0, stride=1, dilation=1, group=1,
    data_format='NCHW')(x, weight): 2-D cross-correlation; weight is (out, in/group, kh, kw).

    pad_mode 'same' pads TensorFlow-style (output ceil(in/stride), the odd pixel at bottom/right); 'pad' uses
    `pad` (int or (top, bottom, left, right)).
    """
    channels_last = "anchor"
    attr_defaults = {"out_channel": None, "kernel_size": None, "mode": 1, "pad_mode": "valid", "pad": 0,
                     "stride": 1, "dilation": 1, "group": 1, "data_format": "NCHW"}
    input_names = ("x", "w")

    def infer(self, x, w):
        self._check_pair("x", x, "weight", w)
        self._check_weight(w.shape, x.shape[1])
        _, out = self.geometry(x.shape[2:])
        return AbstractTensor((x.shape[0], self.out_channel) + out, x.dtype)

    def bprop(self, x, w, out, dout):
        dx = self.sibling(Conv2DBackpropInput)(dout, w, tuple(x.shape)) if needs_input_grad(0) else None
        dw = self.sibling(Conv2DBackpropFilter)(dout, x, tuple(w.shape)) if needs_input_grad(1) else None
        return dx, dw

    def numpy(self, np, x, w):
        return _np_conv(np, self, x, w)

    def torch(self, torch, x, w):
        return _torch_conv(torch, self, x, w)

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (2, 3, 5, 5)), rand_float(rng, (4, 3, 3, 3)),
                     attrs={"out_channel": 4, "kernel_size": 3})
        yield Sample(rand_float(rng, (1, 2, 6, 7)), rand_float(rng, (3, 2, 3, 3)),
                     attrs={"out_channel": 3, "kernel_size": 3, "pad_mode": "same", "stride": 2}, name="same-s2")
        yield Sample(rand_float(rng, (1, 2, 6, 6)), rand_float(rng, (2, 2, 2, 2)),
                     attrs={"out_channel": 2, "kernel_size": (2, 2), "pad_mode": "pad", "pad": (1, 0, 2, 1),
                            "dilation": 2}, name="pad4-dil2")
        yield Sample(rand_float(rng, (1, 4, 5, 5)), rand_float(rng, (6, 2, 3, 3)),
                     attrs={"out_channel": 6, "kernel_size": 3, "pad_mode": "pad", "pad": 1, "stride": (2, 1),
                            "group": 2}, name="group2")


@register
class Conv2DBackpropInput(_ConvFamily):
    """Conv2DBackpropInput(out_channel, kernel_size, pad_mode='valid', pad=0, pad_list=None, mode=1, stride=1,
    dilation=1, group=1, data_format='NCHW')(dout, weight, input_size): the gradient of Conv2D w.r.t. its input
    (a transposed convolution); `input_size` is the (N, C, H, W) of the convolution's input. With pad_mode
    'pad', a given pad_list (top, bottom, left, right) is the padding.
    """
    channels_last = "anchor"
    attr_defaults = {"out_channel": None, "kernel_size": None, "pad_mode": "valid", "pad": 0, "pad_list": None,
                     "mode": 1, "stride": 1, "dilation": 1, "group": 1, "data_format": "NCHW"}
    input_names = ("dout", "weight", "input_size")

    def infer(self, dy, w, input_size):
        self._check_pair("dout", dy, "weight", w)
        size = self._shape_arg("input_size", input_size)
        self._check_weight(w.shape, size[1])
        if dy.shape[0] != size[0] or dy.shape[1] != w.shape[0]:
            raise ValueError(f"For '{self.name}', 'dout' shape {list(dy.shape)} does not fit 'weight' shape "
                             f"{list(w.shape)} and 'input_size' {list(size)}.")
        self._check_out(size[2:], dy.shape)
        return AbstractTensor(size, dy.dtype)

    def bprop(self, dy, w, input_size, out, dout):
        d_dy = self.sibling(Conv2D)(dout, w)
        d_w = self.sibling(Conv2DBackpropFilter)(dy, dout, tuple(w.shape))
        return d_dy, d_w, None

    def numpy(self, np, dy, w, input_size):
        return _np_conv_input_grad(np, self, dy, w, self._shape_arg("input_size", input_size))

    def torch(self, torch, dy, w, input_size):
        return _torch_conv_input_grad(torch, self, dy, w, self._shape_arg("input_size", input_size))

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (2, 4, 3, 3)), rand_float(rng, (4, 3, 3, 3)), (2, 3, 5, 5),
                     attrs={"out_channel": 4, "kernel_size": 3})
        yield Sample(rand_float(rng, (1, 3, 3, 4)), rand_float(rng, (3, 2, 3, 3)), (1, 2, 6, 7),
                     attrs={"out_channel": 3, "kernel_size": 3, "pad_mode": "same", "stride": 2}, name="same-s2")
        yield Sample(rand_float(rng, (1, 6, 3, 5)), rand_float(rng, (6, 2, 3, 3)), (1, 4, 6, 5),
                     attrs={"out_channel": 6, "kernel_size": 3, "pad_mode": "pad", "pad": 1, "stride": (2, 1),
                            "group": 2}, name="group2-remainder")
        yield Sample(rand_float(rng, (1, 2, 4, 3)), rand_float(rng, (2, 2, 2, 2)), (1, 2, 4, 4),
                     attrs={"out_channel": 2, "kernel_size": 2, "pad_mode": "pad", "pad_list": (1, 0, 0, 0)},
                     name="pad_list")


@register
class Conv2DTranspose(Conv2DBackpropInput):
    """Conv2DTranspose(...)(dout, weight, input_size): MindSpore's name for the same transposed convolution."""
    channels_last = None  # a user's transposed convolution is not measured to gain from channels-last

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (1, 2, 3, 3)), rand_float(rng, (2, 3, 2, 2)), (1, 3, 6, 6),
                     attrs={"out_channel": 2, "kernel_size": 2, "stride": 2})
        yield Sample(rand_float(rng, (1, 2, 4, 4)), rand_float(rng, (2, 1, 3, 3)), (1, 1, 4, 4),
                     attrs={"out_channel": 2, "kernel_size": 3, "pad_mode": "same"}, name="same")


@register
class Conv2DBackpropFilter(_ConvFamily):
    """Conv2DBackpropFilter(out_channel, kernel_size, pad_mode='valid', pad=0, pad_list=None, mode=1, stride=1,
    dilation=1, group=1, data_format='NCHW')(dout, x, filter_size): the gradient of Conv2D w.r.t. its weight.
    """
    channels_last = "anchor"
    attr_defaults = {"out_channel": None, "kernel_size": None, "pad_mode": "valid", "pad": 0, "pad_list": None,
                     "mode": 1, "stride": 1, "dilation": 1, "group": 1, "data_format": "NCHW"}
    input_names = ("dout", "x", "filter_size")

    def infer(self, dy, x, filter_size):
        self._check_pair("dout", dy, "x", x)
        size = self._shape_arg("filter_size", filter_size)
        self._check_weight(size, x.shape[1])
        if dy.shape[0] != x.shape[0] or dy.shape[1] != size[0]:
            raise ValueError(f"For '{self.name}', 'dout' shape {list(dy.shape)} does not fit 'x' shape "
                             f"{list(x.shape)} and 'filter_size' {list(size)}.")
        self._check_out(x.shape[2:], dy.shape)
        return AbstractTensor(size, dy.dtype)

    def bprop(self, dy, x, filter_size, out, dout):
        d_dy = self.sibling(Conv2D)(x, dout)
        d_x = self.sibling(Conv2DBackpropInput)(dy, dout, tuple(x.shape))
        return d_dy, d_x, None

    def numpy(self, np, dy, x, filter_size):
        return _np_conv_filter_grad(np, self, dy, x, self._shape_arg("filter_size", filter_size))

    def torch(self, torch, dy, x, filter_size):
        return _torch_conv_filter_grad(torch, self, dy, x, self._shape_arg("filter_size", filter_size))

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (2, 4, 3, 3)), rand_float(rng, (2, 3, 5, 5)), (4, 3, 3, 3),
                     attrs={"out_channel": 4, "kernel_size": 3})
        yield Sample(rand_float(rng, (1, 3, 3, 4)), rand_float(rng, (1, 2, 6, 7)), (3, 2, 3, 3),
                     attrs={"out_channel": 3, "kernel_size": 3, "pad_mode": "same", "stride": 2}, name="same-s2")
        yield Sample(rand_float(rng, (1, 6, 3, 5)), rand_float(rng, (1, 4, 6, 5)), (6, 2, 3, 3),
                     attrs={"out_channel": 6, "kernel_size": 3, "pad_mode": "pad", "pad": 1, "stride": (2, 1),
                            "group": 2, "dilation": (1, 1, 1, 1)}, name="group2")


@register
class Conv2DBackpropInputFilter(_ConvFamily):
    """Conv2DBackpropInputFilter(out_channel, kernel_size, ...)(dout, x, weight) -> (dx, dw): Conv2DBackpropInput
    (dout, weight, x.shape) and Conv2DBackpropFilter(dout, x, weight.shape) at once, with their attributes. The
    conv_backprop_merge pass makes it from the two halves of a convolution's backward; on torch's CPU kernels one
    convolution_backward computing both took 3.4 ms where the two took 5.1 ms (32x16x32x32, 3x3, channels-last,
    one thread; 1.05-1.1x for the 32- and 64-channel layers), the values bit for bit the same."""
    attr_defaults = dict(Conv2DBackpropFilter.attr_defaults)
    input_names = ("dout", "x", "weight")
    differentiable = False
    nondiff_reason = "made after autodiff by the conv_backprop_merge pass, from nodes already differentiated"

    def _halves(self):
        return prim("Conv2DBackpropInput", **self.attrs), prim("Conv2DBackpropFilter", **self.attrs)

    def infer(self, dy, x, w):
        check_tensor(self.name, "x", x)
        check_tensor(self.name, "weight", w)
        to_input, to_filter = self._halves()
        return to_input.infer(dy, w, tuple(x.shape)), to_filter.infer(dy, x, tuple(w.shape))

    def numpy(self, np, dy, x, w):
        to_input, to_filter = self._halves()
        return to_input.numpy(np, dy, w, tuple(x.shape)), to_filter.numpy(np, dy, x, tuple(w.shape))

    def torch(self, torch, dy, x, w):
        return _torch_conv_both_grads(torch, self, dy, x, w)

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (2, 8, 5, 5)), rand_float(rng, (2, 8, 5, 5)), rand_float(rng, (8, 8, 3, 3)),
                     attrs={"out_channel": 8, "kernel_size": 3, "pad_mode": "pad", "pad": 1})
        yield Sample(rand_float(rng, (1, 3, 3, 4)), rand_float(rng, (1, 2, 6, 7)), rand_float(rng, (3, 2, 3, 3)),
                     attrs={"out_channel": 3, "kernel_size": 3, "pad_mode": "same", "stride": 2}, name="same-s2")
        yield Sample(rand_float(rng, (2, 16, 4, 4)), rand_float(rng, (2, 16, 8, 8)), rand_float(rng, (16, 16, 1, 1)),
                     attrs={"out_channel": 16, "kernel_size": 1, "stride": 2}, name="1x1-s2")


# ---- export marks (see _export.py): what is not written to MindIR / ONNX, and why ---------------
not_exportable(BACKWARD, Conv2DBackpropInput, Conv2DBackpropFilter, formats=("ONNX",))
not_exportable(PASS_MADE, Conv2DBackpropInputFilter)
not_exportable(NO_MINDIR, Conv2DTranspose, formats=("MINDIR",))
not_exportable(NO_ONNX, Conv2DTranspose, formats=("ONNX",))


# ---- MindIR encodings (see _mindir.py) ---------------------------------------------------------------------------
def _conv2d_proto_attrs(node):
    prim = node.op
    pads, _ = prim.geometry(node.inputs[0].abstract.shape[2:])
    return [("kernel_size", tuple(prim.kernel_size)), ("mode", prim.attrs["mode"]),
            ("out_channel", prim.out_channel), ("input_names", ["x", "w"]), ("pad", tuple(prim.pad)),
            ("pad_mode", prim.pad_mode.lower()), ("format", prim.attrs["data_format"]),
            ("pad_list", tuple(int(p) for p in pads)), ("groups", prim.group), ("stride", tuple(prim.stride)),
            ("group", prim.group), ("dilation", tuple(prim.dilation)), ("output_names", ["output"])]


mindir(Conv2D, inputs=("x", "w"), attrs=[
    Arg("out_channel"), Arg("kernel_size", norm=norm_tuple), Arg("mode", 1), Arg("pad_mode", "valid", norm_pad_mode),
    Arg("pad", 0, norm_tuple), Arg("stride", 1, norm_tuple), Arg("dilation", 1, norm_tuple),
    Arg("group", 1, aliases=("groups",)), DATA_FORMAT], instance="conv2d", proto_attrs=_conv2d_proto_attrs)

# Training-step graphs (an exported TrainOneStepCell, what `converter_lite --trainModel=true` reads) hold it.
_CONV_GRAD_ATTRS = [Arg("out_channel"), Arg("kernel_size", norm=norm_tuple), Arg("pad_mode", "valid", norm_pad_mode),
                    Arg("pad", 0, norm_tuple), Arg("pad_list", None, norm_tuple), Arg("mode", 1),
                    Arg("stride", 1, norm_tuple), Arg("dilation", 1, norm_tuple), Arg("group", 1, aliases=("groups",)),
                    DATA_FORMAT]
mindir(Conv2DBackpropInput, inputs=("dout", "weight", Arg("input_size", norm=norm_tuple)), attrs=_CONV_GRAD_ATTRS)
mindir(Conv2DBackpropFilter, inputs=("dout", "x", Arg("filter_size", norm=norm_tuple)), attrs=_CONV_GRAD_ATTRS)

# ---- ONNX converters (see _onnx.py) -------------------------------------------------------------------------------
_onnx.declare(Conv2D, _onnx.conv2d)
