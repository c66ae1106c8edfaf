"""BatchNorm's training backward with the ReLU mask (and the residual add) before it, as one kernel.

In a ResNet training step every BatchNorm gradient reads the gradient of a ReLU: `ReluGrad(g, y)`, where g is
the incoming gradient, or `Add(a, b)` of two of them where a residual branch joins. Unfused, the mask is one
pass writing the masked gradient to memory and ATen's `native_batch_norm_backward` two more (the per-channel
sums, then dx). `FusedBatchNormReluGrad` (put in place by compiler/passes/graph_kernel_batchnorm.py) makes the
same two passes with the mask (and the add) applied on the fly:

    pass 1: g = mask(a [+ b]); sum[c] += g; dot[c] = fma(x - mean, g, dot[c])        (also writes g if needed)
    pass 2: dx = fma(-(x - mean), dot·invstd·invstd/N, g - sum/N) · invstd · scale

Its values are fusion off's bit for bit, which matters: ResNet-20's BatchNorm training amplifies a 1-ulp
difference in a gradient to ~1e-4 in the loss within four steps. ATen's channels-last kernel (one thread)
accumulates each channel's sums row after row, the dot product with a fused multiply-add, and forms dx in the
order written above; this kernel does exactly that (AVX2 + FMA, eight channels a vector). It is compiled once
per process through TorchInductor's C++ toolchain (its compile flags, its on-disk cache), and checked against
the op-by-op result on the first call for each input signature: where anything differs (another ISA, another
torch), or where the inputs are not what it was written for (not float32, not 4-D channels-last contiguous,
channels not a multiple of 8, more than one intra-op thread, where ATen splits the sums between threads), the
op-by-op kernels run instead: ReluGrad, then BatchNormGrad, exactly as fusion off.

Measured (one thread, batch 32, channels-last, best of 20, µs, op by op → fused): 16 channels at 32x32 (mask
only) 858 → 539, (add + mask, g kept) 1043 → 642; 32 at 16x16 366 → 264, 476 → 324; 64 at 8x8 169 → 73,
222 → 126.

>>> import numpy as np
>>> g = np.ones((2, 1, 1, 2), np.float32); y = np.array([1., 0., 1., 1.], np.float32).reshape(2, 1, 1, 2)
>>> x = np.arange(4, dtype=np.float32).reshape(2, 1, 1, 2)
>>> one = np.ones(1, np.float32)
>>> dx, dscale, dbias = FusedBatchNormReluGrad().numpy(np, g, y, x, one, one * 1.5, one * 1.25)
>>> dbias.tolist()
[3.0]
"""
import logging

from ...core.primitive import AbstractTensor, Primitive
from ...ops.defs.activation import ReluGrad
from ...ops.defs.math import Add
from ...ops.defs.nn_batchnorm import BatchNormGrad

logger = logging.getLogger("openspore.graph_kernel")
_WHY = "a fused gradient kernel is made after autodiff, from nodes that were already differentiated"


class FusedBatchNormReluGrad(Primitive):
    """FusedBatchNormReluGrad(epsilon=1e-5, has_add=False, keep_grad=False, relu=True)(a, [b,] [y,] x, scale,
    mean, variance) -> (dx, dscale, dbias[, g]): BatchNormGrad (NCHW, training, unused statistics) of
    g = ReluGrad(a [+ b], y); g is returned too with `keep_grad` (other nodes read it). With `relu=False` there
    is no mask (nor b, y): g = a, BatchNormGrad alone in the same kernel."""

    differentiable = False
    nondiff_reason = _WHY
    channels_last = "keeps"
    attr_defaults = {"epsilon": 1e-5, "has_add": False, "keep_grad": False, "relu": True}

    def __init__(self, epsilon=1e-5, has_add=False, keep_grad=False, relu=True):
        super().__init__(epsilon=epsilon, has_add=has_add, keep_grad=keep_grad, relu=relu)
        self._checked = {}  # input signature -> True (the fused kernel reproduces op by op) / False

    def infer(self, *inputs):
        x, scale = inputs[-4], inputs[-3]
        stat = AbstractTensor(tuple(scale.shape), scale.dtype)
        out = (AbstractTensor(tuple(x.shape), x.dtype), stat, stat)
        return out + (AbstractTensor(tuple(x.shape), x.dtype),) if self.keep_grad else out

    def _split(self, inputs):
        if not self.relu:
            return (inputs[0], None, None) + tuple(inputs[1:])
        if self.has_add:
            a, b, rest = inputs[0], inputs[1], inputs[2:]
        else:
            a, b, rest = inputs[0], None, inputs[1:]
        return (a, b) + tuple(rest)

    def _op_by_op(self, kernel, xp, inputs):
        """Fusion off's kernels in fusion off's order: Add, ReluGrad, BatchNormGrad."""
        a, b, y, x, scale, mean, variance = self._split(inputs)
        add, relu_grad, bn_grad = getattr(Add, kernel), getattr(ReluGrad, kernel), getattr(BatchNormGrad, kernel)
        g = add(_ADD, xp, a, b) if b is not None else a
        g = relu_grad(_RELU_GRAD, xp, g, y) if y is not None else g
        dx, dscale, dbias = bn_grad(BatchNormGrad(self.epsilon), xp, g, x, scale, mean, variance, None, None)
        return (dx, dscale, dbias, g) if self.keep_grad else (dx, dscale, dbias)

    def numpy(self, np, *inputs):
        return self._op_by_op("numpy", np, inputs)

    def torch(self, torch, *inputs):
        a, b, y, x, scale, mean, variance = self._split(inputs)
        sig = _signature(torch, (a, b, y, x), scale)
        ok = self._checked.get(sig)
        if ok is None:
            ok = self._checked[sig] = sig is not None and self._check(torch, inputs)
        if not ok:
            return self._op_by_op("torch", torch, inputs)
        return self._fused(torch, a, b, y, x, scale, mean, variance)

    def _fused(self, torch, a, b, y, x, scale, mean, variance):
        kernel = _compiled(torch)
        channels = x.shape[1]
        dx = torch.empty_like(x)
        g = torch.empty_like(x) if self.keep_grad else dx  # unused without keep_grad
        dscale, dbias = torch.empty_like(scale), torch.empty_like(scale)
        kernel(a, b if b is not None else a, y if y is not None else a, x, mean, variance, scale, g, dx, dscale,
               dbias, x.numel() // channels, channels, int(b is not None), int(self.keep_grad), int(y is not None),
               float(self.epsilon))
        return (dx, dscale, dbias, g) if self.keep_grad else (dx, dscale, dbias)

    def _check(self, torch, inputs):
        """Whether the fused kernel gives the op-by-op values bit for bit on these inputs (once per signature)."""
        try:
            if _compiled(torch) is None:
                return False
            got = self._fused(torch, *self._split(inputs))
        except Exception as exc:  # noqa: BLE001 (a compiler failure: the op-by-op kernels run, and we say so)
            logger.warning("FusedBatchNormReluGrad runs op by op: the kernel could not be compiled (%s: %s)",
                           type(exc).__name__, str(exc).splitlines()[0] if str(exc) else "")
            _KERNEL["fn"] = None
            return False
        expected = self._op_by_op("torch", torch, inputs)
        same = all(torch.equal(e, g) for e, g in zip(expected, got))
        if not same:
            logger.warning("FusedBatchNormReluGrad runs op by op: its values differ from ATen's on this machine")
        return same


_ADD, _RELU_GRAD = Add(), ReluGrad()


def _signature(torch, tensors, scale):
    """The inputs' shapes, or None where the fused kernel does not apply (the module docstring)."""
    x = tensors[3]
    if torch.get_num_threads() != 1 or x.dim() != 4 or x.shape[1] % 8 or x.device.type != "cpu":
        return None
    if x.dtype != torch.float32 or scale.dtype != torch.float32 or not scale.is_contiguous():
        return None
    for t in tensors:
        if t is not None and (t.dtype != torch.float32 or t.shape != x.shape
                              or not t.is_contiguous(memory_format=torch.channels_last)):
            return None
    return tuple(x.shape)


_KERNEL = {}


def _compiled(torch):
    """The compiled C++ kernel (None where this CPU has no AVX2/FMA), compiled once per process."""
    if "fn" not in _KERNEL:
        _KERNEL["fn"] = None
        if torch.backends.cpu.get_cpu_capability() in ("AVX2", "AVX512"):
            from .fused import configure_inductor
            configure_inductor()
            from torch._inductor.codecache import CppPythonBindingsCodeCache
            args = ["const float*"] * 7 + ["float*"] * 4 + ["int64_t"] * 5 + ["float"]
            _KERNEL["fn"] = CppPythonBindingsCodeCache.load_pybinding(args, _SOURCE)
    return _KERNEL["fn"]


# The kernel: element (row, channel) of every tensor at row * channels + channel (channels-last), channels a
# multiple of 8. Accumulators per 8-channel block, rows in order: each channel's sums in ATen's order.
_SOURCE = r'''
#pragma GCC target("avx2,fma")
#include <immintrin.h>
#include <cmath>
#include <cstdint>
#include <vector>

template <bool MASK, bool HAS_B>
static inline __m256 masked(const float* __restrict a, const float* __restrict b, const float* __restrict y,
                            int64_t i, __m256 zero)
{
    __m256 g = _mm256_loadu_ps(a + i);
    if constexpr (HAS_B) g = _mm256_add_ps(g, _mm256_loadu_ps(b + i));
    if constexpr (!MASK) return g;
    // threshold_backward: 0 where y <= 0, else g (a NaN y keeps g)
    return _mm256_blendv_ps(g, zero, _mm256_cmp_ps(_mm256_loadu_ps(y + i), zero, _CMP_LE_OQ));
}

template <bool MASK, bool HAS_B, bool KEEP_G>
static void bn_relu_grad(const float* __restrict a, const float* __restrict b, const float* __restrict y,
                         const float* __restrict x, const float* __restrict mean, const float* __restrict invstd,
                         const float* __restrict scale, float* __restrict g_out, float* __restrict dx,
                         float* __restrict dscale, float* __restrict dbias, int64_t rows, int64_t channels)
{
    const int64_t blocks = channels / 8;
    const __m256 zero = _mm256_setzero_ps();
    std::vector<__m256> acc(4 * blocks, zero);
    __m256* sum = acc.data();
    __m256* dot = sum + blocks;
    __m256* k = dot + blocks;
    __m256* gm = k + blocks;
    for (int64_t r = 0; r < rows; ++r) {
        for (int64_t j = 0; j < blocks; ++j) {
            const int64_t i = r * channels + 8 * j;
            const __m256 g = masked<MASK, HAS_B>(a, b, y, i, zero);
            if constexpr (KEEP_G) _mm256_storeu_ps(g_out + i, g);
            sum[j] = _mm256_add_ps(sum[j], g);
            const __m256 xmu = _mm256_sub_ps(_mm256_loadu_ps(x + i), _mm256_loadu_ps(mean + 8 * j));
            dot[j] = _mm256_fmadd_ps(xmu, g, dot[j]);
        }
    }
    const __m256 n = _mm256_set1_ps(static_cast<float>(rows));
    for (int64_t j = 0; j < blocks; ++j) {
        const __m256 inv = _mm256_loadu_ps(invstd + 8 * j);
        k[j] = _mm256_div_ps(_mm256_mul_ps(_mm256_mul_ps(dot[j], inv), inv), n);
        gm[j] = _mm256_div_ps(sum[j], n);
        _mm256_storeu_ps(dscale + 8 * j, _mm256_mul_ps(dot[j], inv));
        _mm256_storeu_ps(dbias + 8 * j, sum[j]);
    }
    for (int64_t r = 0; r < rows; ++r) {
        for (int64_t j = 0; j < blocks; ++j) {
            const int64_t i = r * channels + 8 * j;
            const __m256 g = KEEP_G ? _mm256_loadu_ps(g_out + i) : masked<MASK, HAS_B>(a, b, y, i, zero);
            const __m256 xmu = _mm256_sub_ps(_mm256_loadu_ps(x + i), _mm256_loadu_ps(mean + 8 * j));
            __m256 v = _mm256_fmadd_ps(_mm256_sub_ps(zero, xmu), k[j], _mm256_sub_ps(g, gm[j]));
            v = _mm256_mul_ps(_mm256_mul_ps(v, _mm256_loadu_ps(invstd + 8 * j)), _mm256_loadu_ps(scale + 8 * j));
            _mm256_storeu_ps(dx + i, v);
        }
    }
}

extern "C" void kernel(const float* a, const float* b, const float* y, const float* x, const float* mean,
                       const float* variance, const float* scale, float* g_out, float* dx, float* dscale,
                       float* dbias, int64_t rows, int64_t channels, int64_t has_b, int64_t keep_g, int64_t mask,
                       float epsilon)
{
    // invstd as BatchNormGrad's torch kernel computes it: torch.rsqrt(variance + eps), i.e. 1 / sqrt(v + eps),
    // each operation correctly rounded
    std::vector<float> inverse(channels);
    for (int64_t c = 0; c < channels; ++c) inverse[c] = 1.0f / std::sqrt(variance[c] + epsilon);
    const float* invstd = inverse.data();
#define BN_RELU_GRAD(M, B, K) \
    bn_relu_grad<M, B, K>(a, b, y, x, mean, invstd, scale, g_out, dx, dscale, dbias, rows, channels)
    if (!mask) BN_RELU_GRAD(false, false, false);  // BatchNormGrad alone: g = a
    else if (has_b && keep_g) BN_RELU_GRAD(true, true, true);
    else if (has_b) BN_RELU_GRAD(true, true, false);
    else if (keep_g) BN_RELU_GRAD(true, false, true);
    else BN_RELU_GRAD(true, false, false);
#undef BN_RELU_GRAD
}
'''
