"""Primitives: average pooling (windowed and adaptive) and their adjoints.

Average pooling is linear, so each forward primitive has an adjoint primitive (the input gradient) whose
backward rule is the forward primitive again: the family differentiates any number of times.
The window divisors depend on shapes only; they are computed once on the host (_nn_util.avg_divisor) and
shared by both backends.
"""
from ...core.primitive import AbstractTensor, Primitive, Sample, register
from . import _onnx
from ._mindir import Arg, POOL_ATTRS, mindir, norm_tuple, pool_proto_attrs
from ._export import BACKWARD, NO_MINDIR, not_exportable
from ._nn_util import (adaptive_avg_matrix, adaptive_output, avg_divisor, check_classic_pool_attrs, check_format,
                       CLASSIC_POOL_DEFAULTS, hw_pair, np_col2im, np_crop, np_pad, np_windows, pad_four, pad_mode_of,
                       set_attr, symmetric, torch_fit, torch_pad, window_geometry)
from ._util import check_dtype, check_rank, check_tensor, prim, rand_float

_NO_DILATION = (1, 1)


class _AvgPoolBase(Primitive):
    """Geometry and kernels of windowed average pooling over NCHW (subclasses normalize the attributes)."""
    _pads, _ceil, _count, _override = (0, 0, 0, 0), False, "input", 0

    def geometry(self, in_hw):
        return window_geometry(self.name, tuple(in_hw), self._k, self._s, _NO_DILATION, self._mode, self._pads,
                               self._ceil)

    def _declared(self, applied):
        return self._pads if self._mode == "pad" else (applied if self._mode == "same" else (0, 0, 0, 0))

    def divisor(self, in_hw):
        pads, out = self.geometry(in_hw)
        count = self._count if self._mode == "pad" else "input"  # 'same' never counts its padding
        return avg_divisor(in_hw, pads, self._declared(pads), out, self._k, self._s, count, self._override)

    def _check_x(self, name, x):
        check_tensor(self.name, name, x)
        if len(x.shape) != 4:
            raise ValueError(f"For primitive[{self.name}], the {name} shape size must be equal to 4, "
                             f"but got {len(x.shape)}.")
        check_dtype(self.name, name, x, ("float",))

    def _shape_arg(self, value):
        if hasattr(value, "asnumpy"):
            value = value.asnumpy().tolist()
        if not isinstance(value, (tuple, list)) or len(value) != 4 or not all(isinstance(v, int) for v in value):
            raise TypeError(f"For '{self.name}', the 'orig_input_shape' must be a tuple of 4 ints, but got {value!r}.")
        return tuple(int(v) for v in value)

    # forward ---------------------------------------------------------------------------------------------
    def _np_pool(self, np, x):
        pads, out = self.geometry(x.shape[2:])
        win = np_windows(np, np_pad(np, x, pads), self._k, self._s, _NO_DILATION, out)
        inv = (1.0 / self.divisor(x.shape[2:])).astype(x.dtype)
        return np.ascontiguousarray(win.sum(axis=(4, 5)) * inv, dtype=x.dtype)

    def _torch_pool(self, torch, x):
        F = torch.nn.functional
        pads, out = self.geometry(x.shape[2:])
        declared = self._declared(pads)
        if symmetric(declared) and declared[0] <= self._k[0] // 2 and declared[2] <= self._k[1] // 2:
            include = self._count == "padded" and self._mode == "pad"
            y = F.avg_pool2d(x, self._k, self._s, (declared[0], declared[2]), self._ceil, include,
                             self._override or None)
            if tuple(y.shape[2:]) == out:
                return y
        total = F.avg_pool2d(torch_pad(torch, x, pads), self._k, self._s, 0, False, True, 1)
        inv = torch.from_numpy(1.0 / self.divisor(x.shape[2:])).to(device=x.device, dtype=x.dtype)
        return total * inv

    # adjoint ---------------------------------------------------------------------------------------------
    def _np_adjoint(self, np, shape, g):
        pads, out = self.geometry(shape[2:])
        inv = (1.0 / self.divisor(shape[2:])).astype(g.dtype)
        cols = np.broadcast_to((g * inv)[..., None, None], g.shape + tuple(self._k))
        padded = (shape[2] + pads[0] + pads[1], shape[3] + pads[2] + pads[3])
        full = np_col2im(np, cols, padded, self._k, self._s, _NO_DILATION)
        return np.ascontiguousarray(np_crop(full, pads), dtype=g.dtype)

    def _torch_adjoint(self, torch, shape, g):
        pads, out = self.geometry(shape[2:])
        inv = torch.from_numpy(1.0 / self.divisor(shape[2:])).to(device=g.device, dtype=g.dtype)
        n, c = shape[:2]
        ones = torch.ones((1, 1) + tuple(self._k), dtype=g.dtype, device=g.device)
        full = torch.nn.functional.conv_transpose2d((g * inv).reshape(n * c, 1, out[0], out[1]), ones, None, self._s)
        return torch_fit(torch, full, pads[0], pads[2], shape[2:]).reshape(shape)


class _ClassicAvgPool(_AvgPoolBase):
    attr_defaults = dict(CLASSIC_POOL_DEFAULTS)

    def check_attrs(self):
        check_classic_pool_attrs(self)


class _GeneralAvgPool(_AvgPoolBase):
    attr_defaults = {"kernel_size": 1, "strides": 1, "pad_mode": "valid", "pad": 0, "ceil_mode": False,
                     "count_include_pad": True, "divisor_override": 0, "data_format": "NCHW"}

    def check_attrs(self):
        op = self.name
        self._k = hw_pair(op, "kernel_size", self.kernel_size)
        self._s = hw_pair(op, "strides", self.strides) if self.strides not in (None, (), []) else self._k
        self._mode = pad_mode_of(op, self.pad_mode)
        self._pads = pad_four(op, "pad", self.pad)
        if self._mode != "pad" and any(self._pads):
            raise ValueError(f"For '{op}', the 'pad' must be zero when 'pad_mode' is not 'pad', but got {self.pad}.")
        if self._pads[0] > self._k[0] // 2 or self._pads[1] > self._k[0] // 2 or self._pads[2] > self._k[1] // 2 \
                or self._pads[3] > self._k[1] // 2:
            raise ValueError(f"For '{op}', the 'pad' must be at most half of the kernel size {self._k}, "
                             f"but got {self._pads}.")
        self._ceil = bool(self.ceil_mode)
        self._count = "padded" if self.count_include_pad else "input"
        override = self.divisor_override or 0
        if isinstance(override, bool) or not isinstance(override, int) or override < 0:
            raise ValueError(f"For '{op}', the 'divisor_override' must be a non-negative int, but got {override!r}.")
        self._override = override
        for name, value in (("kernel_size", self._k), ("strides", self._s), ("pad_mode", self._mode),
                            ("pad", self._pads), ("divisor_override", override)):
            set_attr(self, name, value)
        check_format(op, self.data_format)


class _Pooling(_AvgPoolBase):
    """infer/bprop/kernels of a pooling primitive; `adjoint` names its input-gradient primitive."""
    input_names = ("x",)
    adjoint = None

    def infer(self, x):
        self._check_x("x", x)
        return AbstractTensor(tuple(x.shape[:2]) + self.geometry(x.shape[2:])[1], x.dtype)

    def bprop(self, x, out, dout):
        return (prim(self.adjoint, **self.attrs)(tuple(x.shape), dout),)

    def numpy(self, np, x):
        return self._np_pool(np, x)

    def torch(self, torch, x):
        return self._torch_pool(torch, x)


class _PoolingAdjoint(_AvgPoolBase):
    """infer/bprop/kernels of an input-gradient primitive; `forward` names the pooling it transposes."""
    input_names = ("orig_input_shape", "grad")
    forward = None

    def infer(self, shape, grad):
        size = self._shape_arg(shape)
        self._check_x("grad", grad)
        expect = size[:2] + self.geometry(size[2:])[1]
        if tuple(grad.shape) != expect:
            raise ValueError(f"For '{self.name}', the 'grad' shape {list(grad.shape)} must be {list(expect)} for "
                             f"an input of shape {list(size)}.")
        return AbstractTensor(size, grad.dtype)

    def bprop(self, shape, grad, out, dout):
        return None, prim(self.forward, **self.attrs)(dout)

    def numpy(self, np, shape, g):
        return self._np_adjoint(np, self._shape_arg(shape), g)

    def torch(self, torch, shape, g):
        return self._torch_adjoint(torch, self._shape_arg(shape), g)


@register
class AvgPool(_Pooling, _ClassicAvgPool):
    """AvgPool(kernel_size=1, strides=1, pad_mode='valid', data_format='NCHW')(x): 2-D average pooling;
    'same' padding is never counted in the average."""
    channels_last = "keeps"
    adjoint = "AvgPoolGradV1"

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (1, 2, 5, 5)), attrs={"kernel_size": 2, "strides": 2})
        yield Sample(rand_float(rng, (2, 1, 5, 6)), attrs={"kernel_size": 3, "strides": 2, "pad_mode": "same"},
                     name="same")


@register
class AvgPool2D(_Pooling, _GeneralAvgPool):
    """AvgPool2D(kernel_size=1, strides=1, pad_mode='valid', pad=0, ceil_mode=False, count_include_pad=True,
    divisor_override=0, data_format='NCHW')(x): average pooling with explicit padding and ceil mode
    (the primitive behind ops.avg_pool2d and nn.AvgPool2d)."""
    adjoint = "AvgPool2DGrad"

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (1, 2, 5, 5)), attrs={"kernel_size": 3, "strides": 2, "pad_mode": "pad", "pad": 1})
        yield Sample(rand_float(rng, (1, 1, 6, 7)), attrs={"kernel_size": 3, "strides": 2, "pad_mode": "pad", "pad": 1,
                                                           "ceil_mode": True, "count_include_pad": False}, name="ceil")
        yield Sample(rand_float(rng, (1, 1, 5, 5)), attrs={"kernel_size": 2, "strides": 2, "ceil_mode": True,
                                                           "divisor_override": 3}, name="override")
        yield Sample(rand_float(rng, (1, 1, 5, 6)), attrs={"kernel_size": 3, "strides": 2, "pad_mode": "same"},
                     name="same")


@register
class AvgPoolGradV1(_PoolingAdjoint, _ClassicAvgPool):
    """AvgPoolGradV1(kernel_size=1, strides=1, pad_mode='valid', data_format='NCHW')(orig_input_shape, grad):
    the input gradient of AvgPool."""
    forward = "AvgPool"

    @classmethod
    def samples(cls, rng):
        yield Sample((1, 2, 5, 5), rand_float(rng, (1, 2, 2, 2)), attrs={"kernel_size": 2, "strides": 2})
        yield Sample((2, 1, 5, 6), rand_float(rng, (2, 1, 3, 3)),
                     attrs={"kernel_size": 3, "strides": 2, "pad_mode": "same"}, name="same")


@register
class AvgPool2DGrad(_PoolingAdjoint, _GeneralAvgPool):
    """AvgPool2DGrad(<AvgPool2D attributes>)(orig_input_shape, grad): the input gradient of AvgPool2D."""
    forward = "AvgPool2D"

    @classmethod
    def samples(cls, rng):
        yield Sample((1, 2, 5, 5), rand_float(rng, (1, 2, 3, 3)),
                     attrs={"kernel_size": 3, "strides": 2, "pad_mode": "pad", "pad": 1})
        yield Sample((1, 1, 6, 7), rand_float(rng, (1, 1, 4, 4)),
                     attrs={"kernel_size": 3, "strides": 2, "pad_mode": "pad", "pad": 1, "ceil_mode": True,
                            "count_include_pad": False}, name="ceil")


# ---- adaptive -----------------------------------------------------------------------------------------------
def _matrices(in_hw, out_hw, convert):
    return [convert(adaptive_avg_matrix(i, o)) for i, o in zip(in_hw, out_hw)]


@register
class AdaptiveAvgPool2D(Primitive):
    """AdaptiveAvgPool2D(output_size)(input_x): average over PyTorch-style adaptive bins on the last two axes
    (rank 3 or 4); None in output_size keeps that input size."""
    attr_defaults = {"output_size": None}
    input_names = ("input_x",)

    def infer(self, x):
        check_tensor(self.name, "input_x", x)
        check_rank(self.name, "input_x", x, (3, 4))
        check_dtype(self.name, "input_x", x, ("float",))
        return AbstractTensor(tuple(x.shape[:-2]) + adaptive_output(self.name, self.output_size, x.shape[-2:]), x.dtype)

    def bprop(self, x, out, dout):
        return (AdaptiveAvgPool2DGrad()(dout, tuple(x.shape)),)

    def numpy(self, np, x):
        out = adaptive_output(self.name, self.output_size, x.shape[-2:])
        mh, mw = _matrices(x.shape[-2:], out, lambda m: m.astype(x.dtype))
        return np.ascontiguousarray(np.matmul(np.matmul(mh, x), mw.T), dtype=x.dtype)

    def torch(self, torch, x):
        return torch.nn.functional.adaptive_avg_pool2d(x, adaptive_output(self.name, self.output_size, x.shape[-2:]))

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (1, 2, 5, 7)), attrs={"output_size": (2, 3)})
        yield Sample(rand_float(rng, (2, 3, 4)), attrs={"output_size": (None, 2)}, name="3d-none")
        yield Sample(rand_float(rng, (2, 3, 4, 4)), attrs={"output_size": 1}, name="global")


@register
class AdaptiveAvgPool2DGrad(Primitive):
    """AdaptiveAvgPool2DGrad()(input_grad, orig_input_shape): the input gradient of AdaptiveAvgPool2D."""
    input_names = ("input_grad", "orig_input_shape")
    infer_reads_signature_only = False  # orig_input_shape may be a Tensor: its values are checked

    def infer(self, grad, shape):
        check_tensor(self.name, "input_grad", grad)
        check_dtype(self.name, "input_grad", grad, ("float",))
        if hasattr(shape, "asnumpy"):
            shape = tuple(shape.asnumpy().tolist())
        if not isinstance(shape, (tuple, list)) or len(shape) != len(grad.shape) or \
                tuple(shape[:-2]) != tuple(grad.shape[:-2]):
            raise ValueError(f"For '{self.name}', 'orig_input_shape' {shape!r} does not fit 'input_grad' shape "
                             f"{list(grad.shape)}.")
        return AbstractTensor(tuple(shape), grad.dtype)

    def bprop(self, grad, shape, out, dout):
        return AdaptiveAvgPool2D(output_size=tuple(grad.shape[-2:]))(dout), None

    def numpy(self, np, g, shape):
        mh, mw = _matrices(tuple(shape)[-2:], g.shape[-2:], lambda m: m.astype(g.dtype))
        return np.ascontiguousarray(np.matmul(np.matmul(mh.T, g), mw), dtype=g.dtype)

    def torch(self, torch, g, shape):
        def native(m):
            return torch.from_numpy(m).to(device=g.device, dtype=g.dtype)
        mh, mw = _matrices(tuple(shape)[-2:], tuple(g.shape[-2:]), native)
        return torch.matmul(torch.matmul(mh.t(), g), mw).contiguous()

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (1, 2, 2, 3)), (1, 2, 5, 7))
        yield Sample(rand_float(rng, (2, 1, 1)), (2, 3, 3), name="global-3d")


# ---- export marks (see _export.py): what is not written to MindIR / ONNX, and why ---------------
not_exportable(NO_MINDIR, AvgPool2D, formats=("MINDIR",))
not_exportable(BACKWARD, AvgPoolGradV1, AvgPool2DGrad, AdaptiveAvgPool2DGrad)


# ---- MindIR encodings (see _mindir.py) ---------------------------------------------------------------------------
mindir(AvgPool, attrs=POOL_ATTRS, instance="avg_pool", proto_attrs=pool_proto_attrs)


def _adaptive_avg_pool_proto_attrs(node):
    size = node.attrs["output_size"]
    size = tuple(size) if isinstance(size, (tuple, list)) else (size, size)
    return [("output_names", ["y"]), ("output_size", size), ("input_names", ["x"])]


mindir(AdaptiveAvgPool2D, attrs=[Arg("output_size", norm=norm_tuple)], instance="adaptive_avgpool2d",
       proto_attrs=_adaptive_avg_pool_proto_attrs)

# ---- ONNX converters (see _onnx.py) -------------------------------------------------------------------------------
_onnx.declare(AvgPool, AvgPool2D, _onnx.avg_pool)
_onnx.declare(AdaptiveAvgPool2D, _onnx.adaptive_avg_pool)
