"""Primitive: Conv2DFused, a convolution with its epilogue (bias, residual add, ReLU) in one kernel.

The inference pipeline (compiler/pipeline.py `INFERENCE`) makes it from Conv2D [+ BiasAdd] [+ Add] [+ ReLU]
after BatchNorm was folded into the weights; layers never emit it. On torch's CPU backend it runs oneDNN's
convolution with post-ops (`torch.ops.mkldnn._convolution_pointwise`, the `.binary` overload for the residual
add) on a weight reordered once into oneDNN's blocked layout and kept with the primitive, in channels-last
memory. Measured on the 2-core CPU (torch 2.13, one thread, ResNet-20 batch 1, BatchNorm folded in every
variant): fused oneDNN calls on prepacked weights 5.3 ms, `torch.jit.freeze` + `optimize_for_inference` 5.6 ms,
separate eager convolution/BatchNorm/ReLU calls 8.5 ms (the machine was loaded: the ratios are the figure).
Elsewhere (numpy, CUDA, float64, asymmetric padding) it is Conv2D's kernel followed by the epilogue.

>>> import numpy as np, openspore as ms
>>> from openspore.ops.defs.nn_conv_fused import Conv2DFused
>>> x, w = ms.Tensor(np.ones((1, 1, 3, 3), np.float32)), ms.Tensor(np.ones((1, 1, 3, 3), np.float32))
>>> b = ms.Tensor(np.array([-10.0], np.float32))
>>> Conv2DFused(out_channel=1, kernel_size=3, activation="relu")(x, w, b).asnumpy().ravel().tolist()
[0.0]
"""
import operator

from ...core.autograd import needs_input_grad
from ...core.primitive import AbstractTensor, Sample, register
from ._export import not_exportable
from ._nn_util import symmetric
from ._util import check_same_dtype, check_tensor, prim, rand_float
from .nn_conv import Conv2D, _np_conv, _torch_conv

ACTIVATIONS = ("none", "relu")
_version = operator.attrgetter("_version")


@register
class Conv2DFused(Conv2D):
    """Conv2DFused(<Conv2D attributes>, activation='none')(x, w, bias=None, residual=None):
    activation(Conv2D(x, w) + bias[:, None, None] + residual)."""
    attr_defaults = dict(Conv2D.attr_defaults, activation="none")
    input_names = ("x", "w", "bias", "residual")

    def check_attrs(self):
        super().check_attrs()
        if self.activation not in ACTIVATIONS:
            raise ValueError(f"For 'Conv2DFused', the 'activation' should be one of {list(ACTIVATIONS)}, but got "
                             f"{self.activation!r}.")

    def __call__(self, x, w, bias=None, residual=None):
        return super().__call__(x, w, bias, residual)

    def infer(self, x, w, bias, residual):
        out = super().infer(x, w)
        if bias is not None:
            check_tensor(self.name, "bias", bias)
            check_same_dtype(self.name, ("x", "bias"), x, bias)
            if tuple(bias.shape) != (self.out_channel,):
                raise ValueError(f"For 'Conv2DFused', 'bias' should have shape [{self.out_channel}], but got "
                                 f"{list(bias.shape)}.")
        if residual is not None:
            check_tensor(self.name, "residual", residual)
            check_same_dtype(self.name, ("x", "residual"), x, residual)
            if tuple(residual.shape) != tuple(out.shape):
                raise ValueError(f"For 'Conv2DFused', 'residual' should have the output shape {list(out.shape)}, "
                                 f"but got {list(residual.shape)}.")
        return AbstractTensor(out.shape, out.dtype)

    def bprop(self, x, w, bias, residual, out, dout):
        g = prim("ReluGrad")(dout, out) if self.activation == "relu" else dout
        conv = self.sibling(Conv2D)
        dx, dw = conv.bprop(x, w, None, g)
        db = prim("ReduceSum")(g, (0, 2, 3)) if bias is not None and needs_input_grad(2) else None
        return dx, dw, db, g if residual is not None else None

    def numpy(self, np, x, w, bias, residual):
        out = _np_conv(np, self, x, w)
        if bias is not None:
            out = out + bias.reshape(1, -1, 1, 1)
        if residual is not None:
            out = out + residual
        return np.maximum(out, out.dtype.type(0)) if self.activation == "relu" else out

    def torch(self, torch, x, w, bias, residual):
        pads, _ = self.geometry(x.shape[2:])
        if x.device.type == "cpu" and x.dtype == torch.float32 and w.dtype == torch.float32 and symmetric(pads) \
                and torch.backends.mkldnn.is_available():
            return self._onednn(torch, x, w, bias, residual, [pads[0], pads[2]])
        out = _torch_conv(torch, self, x, w)
        if bias is not None:
            out = out + bias.reshape(1, -1, 1, 1)
        if residual is not None:
            out = out + residual
        return torch.relu(out) if self.activation == "relu" else out

    def _onednn(self, torch, x, w, bias, residual, padding):
        cl = torch.channels_last
        if not x.is_contiguous(memory_format=cl):
            x = x.contiguous(memory_format=cl)
        stride, dilation = list(self.stride[2:]), list(self.dilation[2:])
        packed = self._packed_weight(torch, w, x.shape, padding, stride, dilation)
        mkldnn = torch.ops.mkldnn
        attr = self.activation if self.activation != "none" else "none"
        if residual is None:
            return mkldnn._convolution_pointwise(x, packed, bias, padding, stride, dilation, self.group, attr, [], "")
        if not residual.is_contiguous(memory_format=cl):
            residual = residual.contiguous(memory_format=cl)
        unary = attr if attr != "none" else None
        return mkldnn._convolution_pointwise.binary(x, residual, packed, bias, padding, stride, dilation, self.group,
                                                    "add", None, unary, [], None)

    def _packed_weight(self, torch, w, x_shape, padding, stride, dilation):
        """The weight in oneDNN's blocked layout, reordered once and kept while `w` (the same array, unmodified:
        its `_version`) and the input shape stay the same."""
        key = (id(w), _version(w), tuple(x_shape))
        cached = self.__dict__.get("_packed")
        if cached is not None and cached[0] == key and cached[1] is w:
            return cached[2]
        packed = torch.ops.mkldnn._reorder_convolution_weight(w.contiguous(), padding, stride, dilation, self.group,
                                                              list(x_shape))
        self.__dict__["_packed"] = (key, w, packed)
        return packed

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (2, 3, 5, 5)), rand_float(rng, (4, 3, 3, 3)), rand_float(rng, (4,)), None,
                     attrs={"out_channel": 4, "kernel_size": 3, "pad_mode": "pad", "pad": 1, "activation": "relu"},
                     name="bias-relu")
        yield Sample(rand_float(rng, (1, 2, 6, 6)), rand_float(rng, (3, 2, 3, 3)), rand_float(rng, (3,)),
                     rand_float(rng, (1, 3, 3, 3)),
                     attrs={"out_channel": 3, "kernel_size": 3, "pad_mode": "pad", "pad": 1, "stride": 2,
                            "activation": "relu"}, name="residual-s2")
        yield Sample(rand_float(rng, (1, 2, 5, 5)), rand_float(rng, (2, 2, 1, 1)), None, None,
                     attrs={"out_channel": 2, "kernel_size": 1}, name="plain")


not_exportable("an inference-pipeline fusion made inside compiled graphs; exports and engines receive the "
               "Conv2D, BiasAdd, Add and ReLU it stands for", Conv2DFused)
