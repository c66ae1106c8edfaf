"""Primitives: sliding-block extraction (Im2Col, behind ops.unfold) and its adjoint (Col2Im, behind ops.fold).

Layout as in PyTorch: the column axis runs over (channel, kernel row, kernel column), the last axis over block
positions in row-major order. Each primitive's gradient is the other one, with the same attributes.
"""
from ...core.primitive import AbstractTensor, Primitive, Sample, register
from ._export import NO_MINDIR, NO_ONNX, not_exportable
from ._nn_util import hw_pair, np_col2im, np_crop, np_pad, np_windows, window_geometry
from ._util import check_dtype, check_tensor, rand_float


class _BlockBase(Primitive):
    """kernel_size, dilation, padding (symmetric, per axis), stride — normalized to pairs."""

    def check_attrs(self):
        op = self.name
        for name in ("kernel_size", "dilation", "stride"):
            self.attrs[name] = hw_pair(op, name, self.attrs[name])
            setattr(self, name, self.attrs[name])
        self.attrs["padding"] = self.padding = hw_pair(op, "padding", self.padding, allow_zero=True)

    def pads(self):
        return (self.padding[0], self.padding[0], self.padding[1], self.padding[1])

    def geometry(self, in_hw):
        return window_geometry(self.name, tuple(in_hw), self.kernel_size, self.stride, self.dilation, "pad", self.pads())

    def block_attrs(self):
        return {k: self.attrs[k] for k in ("kernel_size", "dilation", "padding", "stride")}


@register
class Im2Col(_BlockBase):
    """Im2Col(kernel_size, dilation=1, padding=0, stride=1)(x): (N, C, H, W) → (N, C*kh*kw, L) sliding blocks."""
    attr_defaults = {"kernel_size": None, "dilation": 1, "padding": 0, "stride": 1}
    input_names = ("x",)

    def infer(self, x):
        check_tensor(self.name, "x", x)
        check_dtype(self.name, "x", x, ("float",))
        if len(x.shape) != 4:
            raise ValueError(f"For '{self.name}', the 'x' must be 4-D (N, C, H, W), but got shape {list(x.shape)}.")
        _, out = self.geometry(x.shape[2:])
        kh, kw = self.kernel_size
        return AbstractTensor((x.shape[0], x.shape[1] * kh * kw, out[0] * out[1]), x.dtype)

    def bprop(self, x, out, dout):
        return (Col2Im(**self.block_attrs())(dout, tuple(x.shape[2:])),)

    def numpy(self, np, x):
        _, out = self.geometry(x.shape[2:])
        win = np_windows(np, np_pad(np, x, self.pads()), self.kernel_size, self.stride, self.dilation, out)
        n, c = x.shape[:2]
        return np.ascontiguousarray(win.transpose(0, 1, 4, 5, 2, 3)).reshape(n, -1, out[0] * out[1])

    def torch(self, torch, x):
        return torch.nn.functional.unfold(x, self.kernel_size, self.dilation, self.padding, self.stride)

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (1, 2, 4, 5)), attrs={"kernel_size": 2})
        yield Sample(rand_float(rng, (2, 1, 5, 5)), attrs={"kernel_size": (3, 2), "dilation": (1, 2), "padding": 1,
                                                           "stride": 2}, name="all-attrs")


@register
class Col2Im(_BlockBase):
    """Col2Im(kernel_size, dilation=1, padding=0, stride=1)(x, output_size): sum (N, C*kh*kw, L) blocks back
    into an (N, C, H, W) tensor with (H, W) = output_size."""
    attr_defaults = {"kernel_size": None, "dilation": 1, "padding": 0, "stride": 1}
    input_names = ("x", "output_size")

    def _size(self, value):
        if hasattr(value, "asnumpy"):
            value = value.asnumpy().tolist()
        return hw_pair(self.name, "output_size", tuple(value) if isinstance(value, list) else value)

    def infer(self, x, output_size):
        check_tensor(self.name, "x", x)
        check_dtype(self.name, "x", x, ("float",))
        size = self._size(output_size)
        kh, kw = self.kernel_size
        _, out = self.geometry(size)
        if len(x.shape) != 3 or x.shape[1] % (kh * kw) or x.shape[2] != out[0] * out[1]:
            raise ValueError(f"For '{self.name}', the 'x' must be (N, C*{kh}*{kw}, {out[0] * out[1]}) for output_size "
                             f"{size}, but got shape {list(x.shape)}.")
        return AbstractTensor((x.shape[0], x.shape[1] // (kh * kw)) + size, x.dtype)

    def bprop(self, x, output_size, out, dout):
        return Im2Col(**self.block_attrs())(dout), None

    def numpy(self, np, x, output_size):
        size = self._size(output_size)
        pads, out = self.geometry(size)
        (kh, kw), n = self.kernel_size, x.shape[0]
        cols = x.reshape(n, -1, kh, kw, out[0], out[1]).transpose(0, 1, 4, 5, 2, 3)
        padded = (size[0] + pads[0] + pads[1], size[1] + pads[2] + pads[3])
        full = np_col2im(np, cols, padded, self.kernel_size, self.stride, self.dilation)
        return np.ascontiguousarray(np_crop(full, pads))

    def torch(self, torch, x, output_size):
        return torch.nn.functional.fold(x, self._size(output_size), self.kernel_size, self.dilation, self.padding,
                                        self.stride)

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (1, 8, 12)), (4, 5), attrs={"kernel_size": 2})
        yield Sample(rand_float(rng, (2, 6, 9)), (5, 5), attrs={"kernel_size": (3, 2), "dilation": (1, 2),
                                                                "padding": 1, "stride": 2}, name="all-attrs")


# ---- export marks (see _export.py): what is not written to MindIR / ONNX, and why ---------------
not_exportable(NO_MINDIR, Im2Col, Col2Im, formats=("MINDIR",))
not_exportable(NO_ONNX, Im2Col, Col2Im, formats=("ONNX",))
