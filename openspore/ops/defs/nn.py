"""Primitives: bias, dense and dropout (the NN-layer family also spans nn_conv, nn_pool, nn_avgpool and nn_norm)."""
import numpy as np

from ... import context
from ...backends import host_gemm
from ...common import dtype as mstype
from ...core.autograd import needs_input_grad
from ...core.primitive import AbstractTensor, Primitive, Sample, register
from ...core.random import default_generator, generator_for
from . import _onnx
from ._mindir import Arg, DATA_FORMAT, mindir
from ._export import RANDOM, not_exportable
from ._util import (check_dtype, check_rank, check_same_dtype, check_tensor, prim, rand_float, static_shape,
                    torch_out_fits)


@register
class BiasAdd(Primitive):
    """BiasAdd(data_format='NCHW')(input_x, bias): add a (C,) bias along the channel axis
    (axis 1 for NCHW/NCDHW, the last axis for NHWC)."""
    channels_last = "keeps"
    attr_defaults = {"data_format": "NCHW"}
    input_names = ("input_x", "bias")

    def check_attrs(self):
        if self.data_format not in ("NCHW", "NHWC", "NCDHW"):
            raise ValueError(f"For 'BiasAdd', the 'data_format' must be 'NCHW', 'NHWC' or 'NCDHW', "
                             f"but got {self.data_format!r}.")

    def _axis(self, ndim):
        return ndim - 1 if self.data_format == "NHWC" else 1

    def _bias_shape(self, ndim, channels):
        shape = [1] * ndim
        shape[self._axis(ndim)] = channels
        return tuple(shape)

    def infer(self, x, bias):
        check_tensor(self.name, "input_x", x)
        check_tensor(self.name, "bias", bias)
        check_rank(self.name, "bias", bias, 1)
        if len(x.shape) < 2:
            raise ValueError(f"For 'BiasAdd', the dimension of 'input_x' must be at least 2, but got {len(x.shape)}.")
        check_same_dtype(self.name, self.input_names, x, bias)
        channels = x.shape[self._axis(len(x.shape))]
        if bias.shape[0] != channels:
            raise ValueError(f"For 'BiasAdd', the length of 'bias' must be equal to the number of channels of "
                             f"'input_x' ({channels}), but got {bias.shape[0]}.")
        return AbstractTensor(x.shape, x.dtype)

    def bprop(self, x, bias, out, dout):
        axis = self._axis(len(x.shape))
        axes = tuple(a for a in range(len(x.shape)) if a != axis)
        return dout, prim("ReduceSum", keep_dims=False)(dout, axes)

    def numpy(self, np, x, bias):
        return x + bias.reshape(self._bias_shape(x.ndim, bias.shape[0]))

    def torch(self, torch, x, bias):
        return x + bias.reshape(self._bias_shape(x.ndim, bias.shape[0]))

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (2, 3)), rand_float(rng, (3,)))
        yield Sample(rand_float(rng, (2, 3, 4, 2)), rand_float(rng, (3,)), name="nchw")
        yield Sample(rand_float(rng, (2, 4, 2, 3)), rand_float(rng, (3,)), attrs={"data_format": "NHWC"}, name="nhwc")


@register
class Dense(Primitive):
    """Dense()(input, weight, bias=None) = input @ weight.T + bias, as MindSpore's `ops.Dense`: `input` of any rank
    >= 1 with `in_channels` last, `weight` (out_channels, in_channels), `bias` (out_channels,) or None.

    One kernel where MindSpore's `nn.Dense` is MatMul + BiasAdd (plus two reshapes for inputs beyond 2-D):
    `nn.Dense` calls it in PyNative and in captured graphs; MindIR export writes MindSpore's structure
    (`export_decomposition`), and the `dense_fusion` pass fuses that structure again in loaded graphs."""
    input_names = ("input", "weight", "bias")

    def export_decomposition(self, b, x, weight, bias):
        """MindSpore's nn.Dense: [Reshape to rows], MatMul(transpose_b=True), [BiasAdd], [Reshape back]."""
        shape = b.abstract(x).shape
        if len(shape) != 2:
            x = b.call("Reshape", x, (-1, shape[-1]))
        out = b.call("MatMul", x, weight, transpose_b=True)
        if bias is not None:
            out = b.call("BiasAdd", out, bias)
        if len(shape) != 2:
            out = b.call("Reshape", out, tuple(shape[:-1]) + (b.abstract(weight).shape[0],))
        return out

    def __call__(self, x, weight, bias=None):
        return super().__call__(x, weight, bias)  # bias always bound (None or a Tensor): one input layout

    def infer(self, x, weight, bias):
        check_tensor(self.name, "input", x)
        check_tensor(self.name, "weight", weight)
        check_rank(self.name, "weight", weight, 2)
        if len(x.shape) < 1:
            raise ValueError("For 'Dense', 'input' must have at least 1 dimension, but got a scalar.")
        check_same_dtype(self.name, ("input", "weight"), x, weight)
        if x.shape[-1] != weight.shape[1]:
            raise ValueError(f"For 'Dense', the last dimension of 'input' ({x.shape[-1]}) must equal the second "
                             f"dimension of 'weight' ({weight.shape[1]}); shapes {list(x.shape)} and "
                             f"{list(weight.shape)}.")
        if bias is not None:
            check_tensor(self.name, "bias", bias)
            check_rank(self.name, "bias", bias, 1)
            check_same_dtype(self.name, ("input", "bias"), x, bias)
            if bias.shape[0] != weight.shape[0]:
                raise ValueError(f"For 'Dense', the length of 'bias' must be out_channels ({weight.shape[0]}), "
                                 f"but got {bias.shape[0]}.")
        return AbstractTensor(tuple(x.shape[:-1]) + (weight.shape[0],), x.dtype)

    def bprop(self, x, weight, bias, out, dout):
        input_grad, bias_grad = needs_input_grad(0), bias is not None and needs_input_grad(2)
        grads = list(DenseGrad(input_grad, bias_grad)(dout, x, weight))
        dx = grads.pop(0) if input_grad else None
        dw = grads.pop(0)
        return dx, dw, grads[0] if bias_grad else None

    def numpy(self, np, x, weight, bias):
        # as rows, like MatMul + BiasAdd on the reshaped input: the same BLAS call, so the same bits
        out = np.matmul(x.reshape(-1, x.shape[-1]), weight.T)
        if bias is not None:
            out = out + bias
        return out.reshape(x.shape[:-1] + (weight.shape[0],))

    def torch(self, torch, x, weight, bias):
        out = host_gemm.linear(torch, x, weight, bias)  # oneDNN where it was measured faster (host_gemm.py)
        return torch.nn.functional.linear(x, weight, bias) if out is None else out

    def torch_bind(self, torch, inputs, first_only):
        """For a fixed input shape too small for host_gemm.linear (decided by shape alone): torch's linear."""
        x, w = static_shape(inputs[0]), static_shape(inputs[1])
        if x is None or w is None or first_only:
            return None
        if len(x) >= 2 and host_gemm.worth_it(int(np.prod(x[:-1], dtype=np.int64)), w[0], w[1]):
            return None   # may run on oneDNN: the kernel decides per call
        return torch.nn.functional.linear

    def torch_out(self, torch, out, x, weight, bias):
        # what linear runs for a contiguous input (addmm over the flattened rows, or mm without a bias), into an
        # arena view; any other case computes as usual
        if x.dim() < 2 or not torch_out_fits(out, x, weight, *(() if bias is None else (bias,))):
            return self.torch(torch, x, weight, bias)
        rows, flat = x.reshape(-1, x.shape[-1]), out.view(-1, weight.shape[0])
        if bias is None:
            torch.mm(rows, weight.t(), out=flat)
        else:
            torch.addmm(bias, rows, weight.t(), out=flat)
        return out

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (3, 4)), rand_float(rng, (5, 4)), rand_float(rng, (5,)))
        yield Sample(rand_float(rng, (2, 3, 4)), rand_float(rng, (5, 4)), rand_float(rng, (5,)), name="3d")
        yield Sample(rand_float(rng, (4,)), rand_float(rng, (2, 4)), None, name="1d-nobias")


@register
class DenseGrad(Primitive):
    """DenseGrad(input_grad=True, bias_grad=True)(dout, input, weight) → ([d_input], d_weight, [d_bias]): Dense's
    backward in one kernel — dout @ weight, doutᵀ @ input and the row sum of dout, over rows of any leading shape.
    The flags drop the gradients nobody needs (a network's first layer never needs d_input)."""
    attr_defaults = {"input_grad": True, "bias_grad": True}
    input_names = ("dout", "input", "weight")

    def infer(self, dout, x, weight):
        for name, t in zip(self.input_names, (dout, x, weight)):
            check_tensor(self.name, name, t)
        check_same_dtype(self.name, self.input_names, dout, x, weight)
        check_rank(self.name, "weight", weight, 2)
        expected_dout = tuple(x.shape[:-1]) + tuple(weight.shape[:1])
        if tuple(x.shape[-1:]) != tuple(weight.shape[1:]) or tuple(dout.shape) != expected_dout:
            raise ValueError(f"For '{self.name}', 'dout' {list(dout.shape)} must be 'input' {list(x.shape)} with its "
                             f"last dimension replaced by out_channels of 'weight' {list(weight.shape)}.")
        outs = [AbstractTensor(x.shape, x.dtype)] if self.input_grad else []
        outs.append(AbstractTensor(weight.shape, weight.dtype))
        if self.bias_grad:
            outs.append(AbstractTensor(weight.shape[:1], weight.dtype))
        return tuple(outs)

    def bprop(self, dout, x, weight, out, cotangents):
        mm, reshape, add = prim("MatMul"), prim("Reshape"), prim("Add")
        cots = list(cotangents)
        a = cots.pop(0) if self.input_grad else None
        b = cots.pop(0)
        c = cots[0] if self.bias_grad else None
        rows_out, rows_in = (-1, weight.shape[0]), (-1, weight.shape[1])
        g, flat_x = reshape(dout, rows_out), reshape(x, rows_in)
        d_g = prim("MatMul", transpose_b=True)(flat_x, b)             # from d_weight = gᵀ x
        if c is not None:
            d_g = add(d_g, c)                                           # from d_bias = Σ rows of g
        d_weight = None
        if a is not None:
            flat_a = reshape(a, rows_in)
            d_g = add(d_g, prim("MatMul", transpose_b=True)(flat_a, weight))  # from d_input = g w
            d_weight = prim("MatMul", transpose_a=True)(g, flat_a)
        d_x = reshape(mm(g, b), tuple(x.shape))
        return reshape(d_g, tuple(dout.shape)), d_x, d_weight

    def export_decomposition(self, b, dout, x, weight):
        """The backward of MatMul + BiasAdd as their own rules compute it: g = dout as rows;
        [Reshape(MatMul(g, weight))], MatMul(g, rows of x, transpose_a=True), [ReduceSum(g, 0)]."""
        out_c, in_c = b.abstract(weight).shape
        x_shape = b.abstract(x).shape
        g = b.call("Reshape", dout, (-1, out_c)) if len(b.abstract(dout).shape) != 2 else dout
        flat_x = b.call("Reshape", x, (-1, in_c)) if len(x_shape) != 2 else x
        outs = [b.call("Reshape", b.call("MatMul", g, weight), tuple(x_shape))] if self.input_grad else []
        outs.append(b.call("MatMul", g, flat_x, transpose_a=True))
        if self.bias_grad:
            outs.append(b.call("ReduceSum", g, (0,), keep_dims=False))
        return tuple(outs)

    def numpy(self, np, dout, x, weight):
        g, flat_x = dout.reshape(-1, weight.shape[0]), x.reshape(-1, weight.shape[1])
        outs = [np.matmul(g, weight).reshape(x.shape)] if self.input_grad else []
        outs.append(np.matmul(g.T, flat_x))
        if self.bias_grad:
            outs.append(g.sum(axis=0))
        return tuple(outs)

    def torch(self, torch, dout, x, weight):
        g, flat_x = dout.reshape(-1, weight.shape[0]), x.reshape(-1, weight.shape[1])
        mm = _host_mm(torch) if _on_host(torch, g, flat_x, weight) else torch.mm  # host_gemm.py
        outs = [mm(g, weight).reshape(x.shape)] if self.input_grad else []
        outs.append(mm(g.t(), flat_x))
        if self.bias_grad:
            outs.append(g.sum(dim=0))
        return tuple(outs)

    def torch_out(self, torch, views, dout, x, weight):
        # each gradient straight into its arena view (None: no view), with the kernels `torch` runs
        if len(views) != self.input_grad + 1 + self.bias_grad or not torch_out_fits(weight, dout, x) \
                or any(v is not None and v.dtype != weight.dtype for v in views):
            return self.torch(torch, dout, x, weight)
        g, flat_x = dout.reshape(-1, weight.shape[0]), x.reshape(-1, weight.shape[1])
        mm = _host_mm(torch) if _on_host(torch, g, flat_x, weight) else torch.mm
        views, outs = list(views), []
        if self.input_grad:
            view = views.pop(0)
            if view is None:
                outs.append(mm(g, weight).reshape(x.shape))
            else:
                mm(g, weight, out=view.view(-1, weight.shape[1]))
                outs.append(view)
        view = views.pop(0)
        outs.append(mm(g.t(), flat_x) if view is None else mm(g.t(), flat_x, out=view))
        if self.bias_grad:
            view = views.pop(0)
            outs.append(g.sum(dim=0) if view is None else torch.sum(g, dim=0, out=view))
        return tuple(outs)

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (3, 5)), rand_float(rng, (3, 4)), rand_float(rng, (5, 4)))
        yield Sample(rand_float(rng, (2, 3, 5)), rand_float(rng, (2, 3, 4)), rand_float(rng, (5, 4)), name="3d")
        yield Sample(rand_float(rng, (3, 5)), rand_float(rng, (3, 4)), rand_float(rng, (5, 4)),
                     attrs={"input_grad": False}, name="no-input-grad")
        yield Sample(rand_float(rng, (2,)), rand_float(rng, (4,)), rand_float(rng, (2, 4)),
                     attrs={"bias_grad": False}, name="1d-no-bias")


def _on_host(torch, g, flat_x, weight):
    """Whether DenseGrad's products run on OpenBLAS (host_gemm.py): large enough, measured faster there on this
    processor, and OpenBLAS may run them."""
    return host_gemm.worth_it(*g.shape, weight.shape[1]) and host_gemm.single_products_on_openblas() \
        and host_gemm.usable(torch, g, flat_x, weight)


def _host_mm(torch):
    """mm(a, b, out=None) for DenseGrad's products on OpenBLAS (host_gemm.py; the caller checked `usable`)."""
    return lambda a, b, out=None: _host_or_torch_mm(torch, a, b, out)


def _host_or_torch_mm(torch, a, b, out):
    result = host_gemm.matmul(torch, a, b, out=out)
    if result is None:  # an `out` view OpenBLAS may not write (another dtype): torch's kernel
        return torch.mm(a, b, out=out) if out is not None else torch.mm(a, b)
    return result


_SEED_EPOCH = [0]  # bumped by set_seed: op-seeded streams restart, as MindSpore resets op seeds


def _on_context(key, value):
    if key == "seed":
        _SEED_EPOCH[0] += 1


context.add_listener(_on_context)


class _DropoutBase(Primitive):
    """Masks are drawn on the host (numpy Philox) so both backends and both modes see the same mask."""
    random = True
    input_names = ("x",)

    def _check_keep_prob(self):
        kp = self.keep_prob
        if isinstance(kp, bool) or not isinstance(kp, (int, float)) or not 0.0 < kp <= 1.0:
            raise ValueError(f"For '{self.name}', the 'keep_prob' must be in range (0, 1], but got {kp!r}.")

    def _generator(self):
        seed0, seed1 = self.attrs.get("Seed0", 0), self.attrs.get("Seed1", 0)
        if not seed0 and not seed1:
            return default_generator()
        # An op-level seed gives this instance its own stream that advances call by call.
        gen, epoch = self.__dict__.get("_own_generator", (None, None))
        if gen is None or epoch != _SEED_EPOCH[0]:
            gen = generator_for(seed0, seed1)
            self._own_generator = (gen, _SEED_EPOCH[0])
        return gen

    def _keep(self, shape):
        return self._generator().random(shape) < self.keep_prob

    def _to_torch(self, torch, keep, like):
        return torch.from_numpy(np.ascontiguousarray(keep)).to(device=like.device)


@register
class Dropout(_DropoutBase):
    """Dropout(keep_prob=0.5, Seed0=0, Seed1=0)(x) → (output, mask): zero each element with probability
    1 - keep_prob and scale the rest by 1/keep_prob; mask (x's dtype) holds the kept positions as 1."""
    attr_defaults = {"keep_prob": 0.5, "Seed0": 0, "Seed1": 0}

    def check_attrs(self):
        self._check_keep_prob()

    def infer(self, x):
        check_tensor(self.name, "x", x)
        check_dtype(self.name, "x", x, ("float",))
        return AbstractTensor(x.shape, x.dtype), AbstractTensor(x.shape, x.dtype)

    def bprop(self, x, out, dout):
        mul = prim("Mul")
        return (mul(mul(dout[0], out[1]), 1.0 / self.keep_prob),)

    def numpy(self, np, x):
        mask = self._keep(x.shape).astype(x.dtype)
        return x * mask * np.asarray(1.0 / self.keep_prob, x.dtype), mask

    def torch(self, torch, x):
        mask = self._to_torch(torch, self._keep(tuple(x.shape)), x).to(x.dtype)
        return x * mask * (1.0 / self.keep_prob), mask

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (3, 4)), attrs={"keep_prob": 0.6})
        yield Sample(rand_float(rng, (2, 3, 2)), attrs={"keep_prob": 1.0}, name="keep-all")
        yield Sample(rand_float(rng, (4, 5)), attrs={"keep_prob": 0.5, "Seed0": 3, "Seed1": 4}, grad=(), name="seeded")


@register
class Dropout2D(_DropoutBase):
    """Dropout2D(keep_prob=0.5)(x) → (output, mask): zero whole channels of an (N, C, H, W) input with
    probability 1 - keep_prob, scaling the rest by 1/keep_prob; mask is bool with x's shape."""
    attr_defaults = {"keep_prob": 0.5}

    def check_attrs(self):
        self._check_keep_prob()

    def infer(self, x):
        check_tensor(self.name, "x", x)
        check_rank(self.name, "x", x, 4)
        check_dtype(self.name, "x", x, ("float",))
        return AbstractTensor(x.shape, x.dtype), AbstractTensor(x.shape, mstype.bool_)

    def bprop(self, x, out, dout):
        mul = prim("Mul")
        return (mul(mul(dout[0], prim("Cast")(out[1], x.dtype)), 1.0 / self.keep_prob),)

    def _channel_keep(self, shape):
        return np.broadcast_to(self._keep(tuple(shape[:2]))[:, :, None, None], tuple(shape))

    def numpy(self, np, x):
        keep = self._channel_keep(x.shape)
        return x * keep.astype(x.dtype) * np.asarray(1.0 / self.keep_prob, x.dtype), np.array(keep)

    def torch(self, torch, x):
        keep = self._to_torch(torch, self._channel_keep(x.shape), x)
        return x * keep.to(x.dtype) * (1.0 / self.keep_prob), keep

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (2, 5, 2, 2)), attrs={"keep_prob": 0.5})


@register
class Dropout3D(Dropout2D):
    """Dropout3D(keep_prob=0.5)(x) → (output, mask): Dropout2D's whole-channel dropout for (N, C, D, H, W)."""

    def infer(self, x):
        check_tensor(self.name, "x", x)
        check_rank(self.name, "x", x, 5)
        check_dtype(self.name, "x", x, ("float",))
        return AbstractTensor(x.shape, x.dtype), AbstractTensor(x.shape, mstype.bool_)

    def _channel_keep(self, shape):
        return np.broadcast_to(self._keep(tuple(shape[:2]))[:, :, None, None, None], tuple(shape))

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (2, 5, 2, 2, 3)), attrs={"keep_prob": 0.5})


# ---- export marks (see _export.py): what is not written to MindIR / ONNX, and why ---------------
not_exportable(RANDOM, Dropout, formats=("ONNX",))
not_exportable(RANDOM, Dropout2D, Dropout3D)


# ---- MindIR encodings (see _mindir.py) ---------------------------------------------------------------------------
mindir(BiasAdd, inputs=("x", "bias"), attrs=[DATA_FORMAT], instance="bias_add")
mindir(Dropout, attrs=[Arg("keep_prob", 0.5), Arg("Seed0", 0), Arg("Seed1", 0)])

# ---- ONNX converters (see _onnx.py) -------------------------------------------------------------------------------
_onnx.declare(BiasAdd, _onnx.bias_add)

BiasAdd.bprop_replayable = True  # its rule is made of primitive calls only (core/backward_replay.py)
