"""A few more MindSpore Primitive classes computed as composites: dropout by a packed bit mask
(DropoutGenMask/DropoutDoMask), the edit distance of sparse sequences, the regularised incomplete beta function
(Betainc, differentiable in x) and the matrix logarithm.

>>> import numpy as np, openspore as ms
>>> from openspore import ops
>>> ops.EditDistance(normalize=False)(ms.Tensor(np.array([[0, 0], [0, 1]], np.int64)), ms.Tensor([1, 2]),
...     ms.Tensor(np.array([1, 2], np.int64)), ms.Tensor(np.array([[0, 0]], np.int64)), ms.Tensor([1]),
...     ms.Tensor(np.array([1, 1], np.int64))).asnumpy().tolist()
[1.0]
"""
import math

import numpy as np

from ..core import autograd
from ..core.registry import prim
from ..core.tensor import Tensor
from . import function as F
from .composite_primitives import _primitive

__all__ = ["DropoutGenMask", "DropoutDoMask", "EditDistance", "Betainc", "MatrixLogarithm", "RNNTLoss"]


def _host(x):
    return x.asnumpy() if isinstance(x, Tensor) else np.asarray(x)


def _shape(shape):
    return tuple(int(s) for s in (_host(shape).tolist() if isinstance(shape, Tensor) else shape))


# ---- dropout by bit mask -------------------------------------------------------------------------------------------
def _gen_mask(self, shape, keep_prob):
    count = int(np.prod(_shape(shape)))
    p = float(_host(keep_prob).reshape(-1)[0]) if isinstance(keep_prob, Tensor) else float(keep_prob)
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"For 'DropoutGenMask', 'keep_prob' must be in [0, 1], but got {p}.")
    padded = -(-count // 128) * 128  # the mask is a whole number of 128-bit blocks, as MindSpore's
    draws = prim("UniformReal", seed=self.Seed0, seed2=self.Seed1)((padded,)).asnumpy()
    return Tensor(np.packbits(draws < p, bitorder="little"))


def _do_mask(self, input_x, mask, keep_prob):
    count = int(np.prod(input_x.shape))
    bits = np.unpackbits(_host(mask).astype(np.uint8), bitorder="little")
    if bits.size < count:
        raise ValueError(f"For 'DropoutDoMask', the mask holds {bits.size} bits but 'input_x' has {count} elements.")
    keep = Tensor(bits[:count].reshape(input_x.shape).astype(input_x.dtype.np_dtype))
    return input_x * keep / keep_prob


DropoutGenMask = _primitive("DropoutGenMask", _gen_mask, attrs=[("Seed0", 0), ("Seed1", 0)],
                            doc="DropoutGenMask(Seed0=0, Seed1=0)(shape, keep_prob): a uint8 mask, one bit per element "
                                "(1 = keep, probability keep_prob), padded to 128-bit blocks.")
DropoutDoMask = _primitive("DropoutDoMask", _do_mask,
                           doc="DropoutDoMask()(input_x, mask, keep_prob): input_x where the mask's bit is 1, scaled "
                               "by 1 / keep_prob; 0 elsewhere.")


# ---- edit distance ------------------------------------------------------------------------------------------------------
def _sequences(indices, values, shape):
    """{batch position (all but the last index): [values in order of the last index]}."""
    out = {}
    for idx, v in sorted(zip(map(tuple, _host(indices).tolist()), _host(values).tolist())):
        out.setdefault(idx[:-1], []).append(v)
    return out, tuple(_host(shape).tolist())


def _levenshtein(a, b):
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (x != y))
    return row[-1]


def _edit_distance(self, h_idx, h_val, h_shape, t_idx, t_val, t_shape):
    hyp, hs = _sequences(h_idx, h_val, h_shape)
    truth, ts = _sequences(t_idx, t_val, t_shape)
    if len(hs) != len(ts):
        raise ValueError(f"For 'EditDistance', the hypothesis and truth ranks differ: {len(hs)} and {len(ts)}.")
    out_shape = tuple(max(a, b) for a, b in zip(hs[:-1], ts[:-1]))
    out = np.zeros(out_shape, np.float32)
    for pos in np.ndindex(*out_shape):
        a, b = hyp.get(pos, []), truth.get(pos, [])
        d = float(_levenshtein(a, b))
        if self.normalize:
            d = d / len(b) if b else (np.inf if a else 0.0)
        out[pos] = d
    return Tensor(out)


EditDistance = _primitive("EditDistance", _edit_distance, attrs=[("normalize", True)],
                          doc="EditDistance(normalize=True)(hypothesis_indices, hypothesis_values, hypothesis_shape, "
                              "truth_indices, truth_values, truth_shape): Levenshtein distance per sequence of two "
                              "sparse tensors (divided by the truth's length when normalize).")


# ---- incomplete beta, matrix logarithm ------------------------------------------------------------------------------
def _betainc_value(a, b, x):
    """I_x(a, b) by the continued fraction (modified Lentz), using the symmetry for x > (a + 1)/(a + b + 2)."""
    def frac(a, b, x):
        tiny, c, d = 1e-300, 1.0, 1.0 - (a + b) * x / (a + 1.0)
        d = 1.0 / (d if abs(d) > tiny else tiny)
        h = d
        for m in range(1, 300):
            for num in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                        -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
                d = 1.0 + num * d
                d = 1.0 / (d if abs(d) > tiny else tiny)
                c = 1.0 + num / c
                c = c if abs(c) > tiny else tiny
                h *= d * c
            if abs(d * c - 1.0) < 1e-15:
                break
        return h

    if x <= 0.0 or x >= 1.0:
        return 0.0 if x <= 0.0 else 1.0
    log_front = (a * math.log(x) + b * math.log1p(-x) - (math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)))
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * frac(a, b, x) / a
    return 1.0 - math.exp(log_front) * frac(b, a, 1.0 - x) / b


def _betainc(self, a, b, x):
    def forward(a, b, x):
        aa, bb, xx = np.broadcast_arrays(_host(a).astype(np.float64), _host(b).astype(np.float64),
                                         _host(x).astype(np.float64))
        if (aa <= 0).any() or (bb <= 0).any():
            raise ValueError("For 'Betainc', 'a' and 'b' must be positive.")
        out = np.vectorize(_betainc_value)(aa, bb, xx)
        return Tensor(out.astype(x.dtype.np_dtype))

    def bprop(a, b, x, out, dout):
        # dI/dx = x^(a-1) (1-x)^(b-1) / B(a, b); MindSpore gives no gradient for a and b
        log_density = ((a - 1.0) * F.log(x) + (b - 1.0) * F.log1p(-x)
                       - (F.lgamma(a) + F.lgamma(b) - F.lgamma(a + b)))
        return F.zeros_like(a), F.zeros_like(b), dout * F.exp(log_density)
    return autograd.custom_bprop_call(forward, bprop, (a, b, x))


Betainc = _primitive("Betainc", _betainc,
                     doc="Betainc()(a, b, x): the regularised incomplete beta function I_x(a, b) (gradient in x).")


def _matrix_logarithm(self, x):
    def forward(x):
        values = _host(x)
        if values.ndim < 2 or values.shape[-1] != values.shape[-2] or values.dtype.kind != "c":
            raise ValueError(f"For 'MatrixLogarithm', 'x' must be a complex Tensor of square matrices, but got "
                             f"{values.dtype} of shape {list(values.shape)}.")
        w, v = np.linalg.eig(values)
        out = v @ (np.log(w)[..., None] * np.linalg.inv(v))  # V·diag(log λ)·V⁻¹
        return Tensor(out.astype(values.dtype))

    def bprop(x, out, dout):
        raise TypeError("For 'MatrixLogarithm', no gradient is defined (MindSpore has no backward rule for it).")
    return autograd.custom_bprop_call(forward, bprop, (x,))


MatrixLogarithm = _primitive("MatrixLogarithm", _matrix_logarithm,
                             doc="MatrixLogarithm()(x): the principal logarithm of each complex square matrix "
                                 "(diagonalisable ones).")



# ---- RNN-transducer loss -------------------------------------------------------------------------------------------------
def _rnnt_one(lp, labels, blank):
    """(−log P(labels | lp), d(−log P)/d lp) for one sequence; lp: (T, U+1, V) log-probabilities."""
    t_len, u1 = lp.shape[:2]
    alpha = np.full((t_len, u1), -np.inf)
    alpha[0, 0] = 0.0
    for t in range(t_len):
        for u in range(u1):
            if t == 0 and u == 0:
                continue
            stay = alpha[t - 1, u] + lp[t - 1, u, blank] if t else -np.inf
            emit = alpha[t, u - 1] + lp[t, u - 1, labels[u - 1]] if u else -np.inf
            alpha[t, u] = np.logaddexp(stay, emit)
    beta = np.full((t_len, u1), -np.inf)
    beta[-1, -1] = lp[-1, -1, blank]
    for t in range(t_len - 1, -1, -1):
        for u in range(u1 - 1, -1, -1):
            if t == t_len - 1 and u == u1 - 1:
                continue
            stay = beta[t + 1, u] + lp[t, u, blank] if t + 1 < t_len else -np.inf
            emit = beta[t, u + 1] + lp[t, u, labels[u]] if u + 1 < u1 else -np.inf
            beta[t, u] = np.logaddexp(stay, emit)
    log_p = beta[0, 0]
    grad = np.zeros_like(lp)
    for t in range(t_len):
        for u in range(u1):
            after_blank = beta[t + 1, u] if t + 1 < t_len else (0.0 if u == u1 - 1 else -np.inf)
            grad[t, u, blank] = -np.exp(alpha[t, u] + lp[t, u, blank] + after_blank - log_p)
            if u + 1 < u1:
                grad[t, u, labels[u]] = -np.exp(alpha[t, u] + lp[t, u, labels[u]] + beta[t, u + 1] - log_p)
    return -log_p, grad


def _rnnt_loss(self, acts, labels, input_lengths, label_lengths):
    a = _host(acts).astype(np.float64)
    if a.ndim != 4:
        raise ValueError(f"For 'RNNTLoss', 'acts' must be 4-D (B, T, U+1, V), but got {list(a.shape)}.")
    lab, t_lens, u_lens = _host(labels), _host(input_lengths).reshape(-1), _host(label_lengths).reshape(-1)
    shifted = a - a.max(-1, keepdims=True)
    lp = shifted - np.log(np.exp(shifted).sum(-1, keepdims=True))
    costs, grads = np.zeros(a.shape[0]), np.zeros_like(a)
    for b in range(a.shape[0]):
        t_b, u_b = int(t_lens[b]), int(u_lens[b])
        if not (1 <= t_b <= a.shape[1] and 0 <= u_b < a.shape[2]):
            raise ValueError(f"For 'RNNTLoss', sequence {b} has lengths T={t_b}, U={u_b} outside 'acts' "
                             f"{list(a.shape)}.")
        costs[b], g_lp = _rnnt_one(lp[b, :t_b, :u_b + 1], lab[b, :u_b], self.blank_label)
        probs = np.exp(lp[b, :t_b, :u_b + 1])
        grads[b, :t_b, :u_b + 1] = g_lp - probs * g_lp.sum(-1, keepdims=True)  # through the log-softmax
    dtype = acts.dtype.np_dtype
    grads_t = Tensor(grads.astype(dtype))

    def forward(x):
        return Tensor(costs.astype(dtype))

    def bprop(x, out, dout):
        return (grads_t * F.reshape(dout, (-1, 1, 1, 1)),)
    return autograd.custom_bprop_call(forward, bprop, (acts,)), grads_t


RNNTLoss = _primitive("RNNTLoss", _rnnt_loss, attrs=[("blank_label", 0)],
                      doc="RNNTLoss(blank_label=0)(acts (B, T, U+1, V) logits, labels (B, U), input_lengths, "
                          "label_lengths): (−log P(labels) per sequence, its gradient with respect to acts).")
