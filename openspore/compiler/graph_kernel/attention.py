"""Fused attention kernels: softmax(q·kᵀ·scale + mask)·v and its backward, each as one kernel.

Graph-kernel fusion's attention pattern (compiler/passes/graph_kernel_attention.py, MindSpore's FlashAttention
fusion on CPU) puts these in place of the two batched products, the scale, the mask add and the Softmax of a
training step's forward, and of the four products, the SoftmaxGrad and the scale of its backward. Three ways to
run them on torch's CPU backend, chosen by the pass from the mask and the shapes:

* **A causal mask** (`is_causal_mask`: 0 on and below the diagonal, -1e4 or less above it, as GPT's -1e9):
  `causal=True`, ATen's flash kernels with `is_causal` and no mask. They work in blocks of 32 queries and stop
  each block's keys at its last query, so the products and the exponentials of the masked half are skipped (at
  GPT's 64 positions a quarter of them), and they read q, k, v and the incoming gradient where they lie and
  write the output heads-inner, with no L×L matrix in memory. The benchmark GPT (8×4 heads, 64×64, head size
  32, one thread, Intel Xeon with AVX-512, load 5-6), against the kept probabilities below: the forward 2.70 ->
  1.70 ms of thread CPU time per step (4 layers, mean of 20 steps), the backward level (3.55 against 3.70 ms,
  the merging copy included); bench/fusion.py's gpt speed-up over fusion off, median of 6 alternated runs each
  (load 4.4-6.6), 1.15x (1.13-1.16) -> 1.18x (1.17-1.19).
* **Short sequences** with other masks (queries and keys both at most `KEEP_PROBABILITIES_UP_TO`, the benchmark GPT's 64 and the
  encoder's 128): `keep_probabilities=True`. The forward's second output is the L×S probabilities themselves,
  which the backward reads instead of recomputing them (the unfused graph keeps them alive just as long). The
  six products run on OpenBLAS with each head's matrix handed over as it lies in the qkv projection
  (backends/host_gemm.py: no contiguous copies of q, kᵀ, v or of the incoming gradient), and the outputs are
  written where the graph's next reshape wants them: the attention output and dq, dk, dv are laid out
  [batch, L, heads, D] in memory, so the `Transpose(0, 2, 1, 3)` + `Reshape` that merge the heads are free
  views instead of copies. The operations are the unfused ones in the unfused order (product, scale, mask,
  softmax; SoftmaxGrad, scale, products), so the values are those of fusion off. Why not flash here: ATen's
  flash kernels work in query blocks of 32 with small per-block products and recompute the exponentials in
  the backward; at GPT's shapes (8×4 heads, 64×64, head size 32, 1 thread) forward + backward with the
  head-merging copies took 1.91 ms a layer against 1.60 ms this way (fastest of 25 interleaved rounds; 1.7x
  faster at 128×128, head size 64), while at 256 keys and more flash was faster (10.5 against 15.0 ms).
* **Longer sequences** with other masks: ATen's flash-attention kernels
  (`_scaled_dot_product_flash_attention_for_cpu` and its backward): blocked over the key axis with an online
  softmax, so the L×L probabilities are never written to memory, and the backward recomputes them from the
  forward's row log-sum-exp (the second output).

Elsewhere (other devices, dtypes, or a torch without the flash kernel) and on numpy they compute the unfused
formula. Flash's numerics differ from the unfused ops by rounding only (the softmax is accumulated block by
block): ~1e-7 relative on the benchmark GPT's shapes. Masked entries of -1e9 give exactly 0 probability either
way.

Shapes, as the pattern finds them: q [.., L, D], kᵀ [.., D, S] (the key already transposed, as
`matmul(q, kᵀ)` reads it), v [.., S, Dv], an optional additive mask broadcasting to [.., L, S].

>>> import numpy as np
>>> q = np.ones((1, 1, 2, 2), np.float32); kt = np.ones((1, 1, 2, 3), np.float32)
>>> v = np.arange(6, dtype=np.float32).reshape(1, 1, 3, 2)
>>> out, lse = FusedAttention(scale=0.5).numpy(np, q, kt, v)
>>> out[0, 0, 0].tolist(), out.shape, lse.shape
([2.0, 3.0], (1, 1, 2, 2), (1, 1, 2))
>>> out, p = FusedAttention(scale=0.5, keep_probabilities=True).numpy(np, q, kt, v)
>>> p.shape, float(p[0, 0, 0, 0])
((1, 1, 2, 3), 0.3333333432674408)
"""
from ...backends import host_gemm
from ...core.primitive import AbstractTensor, Primitive

_WHY = "a fused attention kernel is made after autodiff, from nodes that were already differentiated"
# query and key lengths up to which the probabilities are kept rather than recomputed by flash (module docstring)
KEEP_PROBABILITIES_UP_TO = 128
# an additive mask entry at or below this masks its key out exactly (`is_causal_mask`)
MASKED_AT_MOST = -1e4


def keeps_probabilities(queries, keys):
    """Whether an attention of `queries` × `keys` runs with `keep_probabilities=True` (the module docstring)."""
    return queries <= KEEP_PROBABILITIES_UP_TO and keys <= KEEP_PROBABILITIES_UP_TO


def is_causal_mask(np, mask):
    """Whether the additive `mask` (a numpy array [.., L, L]) is causal in every slice: exactly 0 where the key is
    at or before the query, at most `MASKED_AT_MOST` (-inf included) after it. Such a mask gives the keys after
    the query a probability of exactly 0 in float32 (exp(-1e4 + ..) underflows), as long as the scaled scores of
    a row differ by less than ~9900, so attention with it is causal attention, whose kernels skip those keys.

    >>> import numpy as np
    >>> causal = np.triu(np.full((3, 3), -1e9, np.float32), 1)
    >>> is_causal_mask(np, causal), is_causal_mask(np, causal + 1), is_causal_mask(np, np.zeros((3, 3)))
    (True, False, False)
    """
    mask = np.asarray(mask)
    if mask.ndim < 2 or mask.shape[-1] != mask.shape[-2] or mask.shape[-1] < 2 or mask.dtype.kind != "f":
        return False
    after = np.triu(np.ones(mask.shape[-2:], dtype=bool), 1)
    return bool(np.all(mask[..., ~after] == 0) and np.all(mask[..., after] <= MASKED_AT_MOST))


def _causal_mask(xp, queries, keys, like):
    """The additive causal mask: -inf on the keys after each query, else 0 (numpy or torch, `like`'s dtype)."""
    if xp.__name__ == "numpy":
        return xp.triu(xp.full((queries, keys), -xp.inf, like.dtype), 1)
    return xp.full((queries, keys), float("-inf"), dtype=like.dtype, device=like.device).triu(1)


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


def _product(torch, a, b, out=None):
    """a @ b on OpenBLAS with the operands as they lie (host_gemm), else torch.matmul; written into `out` when
    given (a strided view: host_gemm writes it directly)."""
    got = host_gemm.matmul(torch, a, b, out=out)
    if got is not None:
        return got
    if out is None:
        return torch.matmul(a, b)
    return out.copy_(torch.matmul(a, b))


def _heads_inner(torch, shape, like):
    """An empty tensor of `shape` [B, H, L, D] laid out [B, L, H, D] in memory (the layout the graph's
    Transpose(0, 2, 1, 3) + Reshape that merge the heads read without a copy); other ranks contiguous."""
    if len(shape) != 4:
        return torch.empty(shape, dtype=like.dtype, device=like.device)
    b, h, l, d = shape
    return torch.empty((b, l, h, d), dtype=like.dtype, device=like.device).transpose(1, 2)


class FusedAttention(Primitive):
    """FusedAttention(scale, keep_probabilities=False, causal=False)(q, k_t, v[, mask]) -> (softmax(q·k_t·scale +
    mask)·v, saved): `saved` is the log-sum-exp of each row, or with keep_probabilities the probabilities
    themselves. With causal there is no mask input: each query sees only the keys up to its own position (the
    mask was causal: `is_causal_mask`), and the flash kernels skip the others."""

    attr_defaults = {"scale": 1.0, "keep_probabilities": False, "causal": False}
    differentiable = False
    nondiff_reason = _WHY

    def infer(self, q, kt, v, mask=None):
        shape = tuple(q.shape[:-1]) + (v.shape[-1],)
        saved = tuple(q.shape[:-1]) + ((kt.shape[-1],) if self.keep_probabilities else ())
        return (AbstractTensor(shape, q.dtype), AbstractTensor(saved, q.dtype))

    def numpy(self, np, q, kt, v, mask=None):
        if self.causal:
            mask = _causal_mask(np, q.shape[-2], kt.shape[-1], q)
        p, lse = _probabilities(np, q, kt, mask, self.scale)
        saved = p if self.keep_probabilities else lse[..., 0]
        return np.matmul(p, v).astype(q.dtype, copy=False), saved.astype(q.dtype, copy=False)

    def torch(self, torch, q, kt, v, mask=None):
        flash = not self.keep_probabilities and _flash_usable(torch, q, kt, v, *(() if mask is None else (mask,)))
        if self.causal and not flash:
            mask = _causal_mask(torch, q.shape[-2], kt.shape[-1], q)
        if self.keep_probabilities:
            # the unfused ops in their order: product, scale, mask, softmax, product; the scale and the mask in
            # one pass, mask + scale·s (one rounding where the unfused Mul, Add round twice: the same values
            # where the mask is 0, within one ulp of -1e9 where it masks, whose probability is 0 either way)
            s = _product(torch, q, kt)
            if mask is not None and torch.broadcast_shapes(mask.shape, s.shape) == s.shape:
                torch.add(mask, s, alpha=self.scale, out=s)
            else:
                s.mul_(self.scale)
                if mask is not None:
                    s = s + mask
            p = torch.softmax(s, -1)
            shape = tuple(q.shape[:-1]) + (v.shape[-1],)
            return _product(torch, p, v, out=_heads_inner(torch, shape, q)), p
        if flash:
            forward, _ = _flash(torch)
            out, lse = forward(_rows(q), _rows(kt.transpose(-1, -2)), _rows(v), 0.0, self.causal, attn_mask=mask,
                               scale=self.scale)
            return out, lse
        p, lse = _probabilities(torch, q, kt, mask, self.scale)
        return torch.matmul(p, v), lse[..., 0]


class FusedAttentionGrad(Primitive):
    """FusedAttentionGrad(scale, keep_probabilities=False, heads_merged=False, causal=False)(dout, q, k_t, v, out,
    saved[, mask])
    -> (dq, dk_t, dv): FusedAttention's backward, with the probabilities it kept (`saved`) or recomputed from q,
    k_t and the forward's log-sum-exp. With heads_merged (q, k_t, v as [B, H, L, D], [B, H, D, L], [B, H, L, D])
    it returns one tensor instead, [B, L, 3·H·D]: dq, dk, dv each with the heads merged back ([B, L, H·D]) and
    concatenated, the gradient of the qkv projection they were split from (what the graph computed with three
    Transposes, three Reshapes and a Concat; the kernel writes each product's result there directly, or with
    flash concatenates the three once). causal as in FusedAttention (no mask input)."""

    attr_defaults = {"scale": 1.0, "keep_probabilities": False, "heads_merged": False, "causal": False}
    differentiable = False
    nondiff_reason = _WHY

    def infer(self, dout, q, kt, v, out, saved, mask=None):
        if self.heads_merged:
            b, h, l, d = q.shape
            return AbstractTensor((b, l, 3 * h * d), q.dtype)
        return (AbstractTensor(tuple(q.shape), q.dtype), AbstractTensor(tuple(kt.shape), kt.dtype),
                AbstractTensor(tuple(v.shape), v.dtype))

    def numpy(self, np, dout, q, kt, v, out, saved, mask=None):
        if self.causal:
            mask = _causal_mask(np, q.shape[-2], kt.shape[-1], q)
        p = saved if self.keep_probabilities else _probabilities(np, q, kt, mask, self.scale)[0]
        return self._merged(np, *self._unfused(np, dout, q, kt, v, p))

    def torch(self, torch, dout, q, kt, v, out, saved, mask=None):
        if self.keep_probabilities:
            return self._kept(torch, dout, q, kt, v, saved)
        if _flash_usable(torch, dout, q, kt, v, out, *(() if mask is None else (mask,))):
            _, backward = _flash(torch)
            dq, dk, dv = backward(_rows(dout), _rows(q), _rows(kt.transpose(-1, -2)), _rows(v), out, saved, 0.0,
                                  self.causal, attn_mask=mask, scale=self.scale)
            return self._merged(torch, dq, dk.transpose(-1, -2), dv)
        if self.causal:
            mask = _causal_mask(torch, q.shape[-2], kt.shape[-1], q)
        return self._merged(torch, *self._unfused(torch, dout, q, kt, v,
                                                  _probabilities(torch, q, kt, mask, self.scale)[0]))

    def _merged(self, xp, dq, dkt, dv):
        """(dq, dk_t, dv), or with heads_merged their [B, L, 3·H·D] concatenation (see the class docstring)."""
        if not self.heads_merged:
            return dq, dkt, dv
        b, h, l, d = dq.shape
        heads = (dq.transpose(0, 2, 1, 3), dkt.transpose(0, 3, 1, 2), dv.transpose(0, 2, 1, 3)) \
            if xp.__name__ == "numpy" else (dq.permute(0, 2, 1, 3), dkt.permute(0, 3, 1, 2), dv.permute(0, 2, 1, 3))
        parts = [t.reshape(b, l, h * d) for t in heads]
        return xp.concatenate(parts, -1) if xp.__name__ == "numpy" else xp.cat(parts, -1)

    def _kept(self, torch, dout, q, kt, v, p):
        """The unfused backward's ops in its order (dV, dP, SoftmaxGrad, scale, dQ, dKᵀ), each gradient written
        heads-inner (see `_heads_inner`), or with heads_merged straight into its part of the merged gradient;
        dKᵀ computed as dK = dSᵀ·q, whose transpose it is."""
        k_shape = tuple(kt.shape[:-2]) + (kt.shape[-1], kt.shape[-2])
        if self.heads_merged:
            b, h, l, d = q.shape
            merged = torch.empty((b, l, 3, h, d), dtype=q.dtype, device=q.device)
            into_q, into_k, into_v = (merged[:, :, part].transpose(1, 2) for part in range(3))
        else:
            into_q, into_k, into_v = (_heads_inner(torch, tuple(q.shape), q), _heads_inner(torch, k_shape, kt),
                                      _heads_inner(torch, tuple(v.shape), v))
        dv = _product(torch, p.transpose(-1, -2), dout, out=into_v)
        dp = _product(torch, dout, v.transpose(-1, -2))
        ds = torch._softmax_backward_data(dp, p, p.dim() - 1, p.dtype).mul_(self.scale)
        dq = _product(torch, ds, kt.transpose(-1, -2), out=into_q)
        dk = _product(torch, ds.transpose(-1, -2), q, out=into_k)
        if self.heads_merged:
            return merged.view(b, l, 3 * h * d)
        return dq, dk.transpose(-1, -2), dv

    def _unfused(self, xp, dout, q, kt, v, p):
        swap = (lambda a: a.swapaxes(-1, -2)) if xp.__name__ == "numpy" else (lambda a: a.transpose(-1, -2))
        dv = xp.matmul(swap(p), dout)
        dp = xp.matmul(dout, swap(v))
        total = (dp * p).sum(-1, keepdims=True) if xp.__name__ == "numpy" else (dp * p).sum(-1, keepdim=True)
        ds = p * (dp - total) * self.scale
        return xp.matmul(ds, swap(kt)), xp.matmul(swap(q), ds), dv
