"""Primitives: memory-format conversions that graph mode's `layout_channels_last` pass inserts.

Values keep their logical NCHW shape; only the physical layout changes (torch's channels_last stores a 4-D
tensor as NHWC in memory). Every kernel sees correct values either way, and convolutions, batch norm, pooling
and elementwise ops on torch's CPU kernels run faster on channels-last data. On numpy, and for tensors of any
rank other than 4, both are the identity.
"""
from ...core.primitive import Primitive, Sample, register
from ._export import LAYOUT_ONLY, not_exportable
from ._util import check_tensor, rand_float, same_as


class _LayoutChange(Primitive):
    input_names = ("x",)

    def infer(self, x):
        check_tensor(self.name, "x", x)
        return same_as(x)

    def numpy(self, np, x):
        return x  # numpy arrays here are always C-contiguous; there is nothing to convert

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (2, 3, 4, 5)), name="nchw")
        yield Sample(rand_float(rng, (3, 4)), name="rank2")


@register
class ToChannelsLast(_LayoutChange):
    """ToChannelsLast()(x): x with the same values, a 4-D x stored channels-last."""

    def bprop(self, x, out, dout):
        return (ToContiguous()(dout),)

    def torch(self, torch, x):
        return x.contiguous(memory_format=torch.channels_last) if x.ndim == 4 else x


@register
class ToContiguous(_LayoutChange):
    """ToContiguous()(x): x with the same values, stored in the default (row-major) order."""
    channels_last = "reads"

    def bprop(self, x, out, dout):
        return (ToChannelsLast()(dout),)

    def torch(self, torch, x):
        return x.contiguous()


# ---- export marks (see _export.py): what is not written to MindIR / ONNX, and why ---------------
not_exportable(LAYOUT_ONLY, ToChannelsLast, ToContiguous)
