"""Fused attention kernels: softmax(q·kᵀ·scale + mask)·v and its backward, each as one kernel.

Graph-kernel fusion's attention pattern (compiler/passes/graph_kernel_attention.py, MindSpore's FlashAttention
fusion on CPU) puts these in place of the two batched products, the scale, the mask add and the Softmax of a
training step's forward, and of the four products, the SoftmaxGrad and the scale of its backward. On torch's
CPU backend they are ATen's flash-attention kernels (`_scaled_dot_product_flash_attention_for_cpu` and its
backward): blocked over the key axis with an online softmax, so the L×L probabilities are never written to
memory, and the backward recomputes them from the forward's log-sum-exp instead of keeping them. Elsewhere
(other devices, dtypes, or a torch without the kernel) and on numpy they compute the unfused formula.

The numerics differ from the unfused ops by rounding only (the softmax is accumulated block by block): ~1e-7
relative on the benchmark GPT's shapes. Masked entries of -1e9 give exactly 0 probability either way.

Shapes, as the pattern finds them: q [.., L, D], kᵀ [.., D, S] (the key already transposed, as
`matmul(q, kᵀ)` reads it), v [.., S, Dv], an optional additive mask broadcasting to [.., L, S].

>>> import numpy as np
>>> q = np.ones((1, 1, 2, 2), np.float32); kt = np.ones((1, 1, 2, 3), np.float32)
>>> v = np.arange(6, dtype=np.float32).reshape(1, 1, 3, 2)
>>> out, lse = FusedAttention(scale=0.5).numpy(np, q, kt, v)
>>> out[0, 0, 0].tolist(), out.shape, lse.shape
([2.0, 3.0], (1, 1, 2, 2), (1, 1, 2))
"""
from ...core.primitive import AbstractTensor, Primitive

_WHY = "a fused attention kernel is made after autodiff, from nodes that were already differentiated"


def _flash(torch):
    ops = torch.ops.aten
    if hasattr(ops, "_scaled_dot_product_flash_attention_for_cpu") \
            and hasattr(ops, "_scaled_dot_product_flash_attention_for_cpu_backward"):
        return ops._scaled_dot_product_flash_attention_for_cpu, ops._scaled_dot_product_flash_attention_for_cpu_backward
    return None


def _flash_usable(torch, *tensors):
    first = tensors[0]
    return first.dim() == 4 and all(t.device.type == "cpu" and t.dtype == first.dtype for t in tensors) \
        and first.dtype in (torch.float32, torch.float64) and _flash(torch) is not None


def _rows(t):
    """`t` with unit stride along its last axis, as the flash kernels read their operands (a view's own memory
    when it already is: q, kᵀ and v sliced from one projection are)."""
    return t if t.stride(-1) == 1 else t.contiguous()


def _probabilities(xp, q, kt, mask, scale):
    """softmax(q·kᵀ·scale + mask) over the last axis, the unfused way (numpy or torch)."""
    s = xp.matmul(q, kt) * scale
    if mask is not None:
        s = s + mask
    m = s.max(-1, keepdims=True) if xp.__name__ == "numpy" else s.amax(-1, keepdim=True)
    e = xp.exp(s - m)
    total = e.sum(-1, keepdims=True) if xp.__name__ == "numpy" else e.sum(-1, keepdim=True)
    return e / total, m + xp.log(total)


class FusedAttention(Primitive):
    """FusedAttention(scale)(q, k_t, v[, mask]) -> (softmax(q·k_t·scale + mask)·v, log-sum-exp of each row)."""

    attr_defaults = {"scale": 1.0}
    differentiable = False
    nondiff_reason = _WHY

    def infer(self, q, kt, v, mask=None):
        shape = tuple(q.shape[:-1]) + (v.shape[-1],)
        return (AbstractTensor(shape, q.dtype), AbstractTensor(tuple(q.shape[:-1]), q.dtype))

    def numpy(self, np, q, kt, v, mask=None):
        p, lse = _probabilities(np, q, kt, mask, self.scale)
        return np.matmul(p, v).astype(q.dtype, copy=False), lse[..., 0].astype(q.dtype, copy=False)

    def torch(self, torch, q, kt, v, mask=None):
        if _flash_usable(torch, q, kt, v, *(() if mask is None else (mask,))):
            forward, _ = _flash(torch)
            out, lse = forward(_rows(q), _rows(kt.transpose(-1, -2)), _rows(v), 0.0, False, attn_mask=mask,
                               scale=self.scale)
            return out, lse
        p, lse = _probabilities(torch, q, kt, mask, self.scale)
        return torch.matmul(p, v), lse[..., 0]


class FusedAttentionGrad(Primitive):
    """FusedAttentionGrad(scale)(dout, q, k_t, v, out, lse[, mask]) -> (dq, dk_t, dv): FusedAttention's backward,
    the probabilities recomputed from q, k_t and the forward's log-sum-exp."""

    attr_defaults = {"scale": 1.0}
    differentiable = False
    nondiff_reason = _WHY

    def infer(self, dout, q, kt, v, out, lse, mask=None):
        return (AbstractTensor(tuple(q.shape), q.dtype), AbstractTensor(tuple(kt.shape), kt.dtype),
                AbstractTensor(tuple(v.shape), v.dtype))

    def numpy(self, np, dout, q, kt, v, out, lse, mask=None):
        return self._unfused(np, dout, q, kt, v, mask)

    def torch(self, torch, dout, q, kt, v, out, lse, mask=None):
        if _flash_usable(torch, dout, q, kt, v, out, *(() if mask is None else (mask,))):
            _, backward = _flash(torch)
            dq, dk, dv = backward(_rows(dout), _rows(q), _rows(kt.transpose(-1, -2)), _rows(v), out, lse, 0.0,
                                  False, attn_mask=mask, scale=self.scale)
            return dq, dk.transpose(-1, -2), dv
        return self._unfused(torch, dout, q, kt, v, mask)

    def _unfused(self, xp, dout, q, kt, v, mask):
        p, _ = _probabilities(xp, q, kt, mask, self.scale)
        swap = (lambda a: a.swapaxes(-1, -2)) if xp.__name__ == "numpy" else (lambda a: a.transpose(-1, -2))
        dv = xp.matmul(swap(p), dout)
        dp = xp.matmul(dout, swap(v))
        total = (dp * p).sum(-1, keepdims=True) if xp.__name__ == "numpy" else (dp * p).sum(-1, keepdim=True)
        ds = p * (dp - total) * self.scale
        return xp.matmul(ds, swap(kt)), xp.matmul(swap(q), ds), dv
