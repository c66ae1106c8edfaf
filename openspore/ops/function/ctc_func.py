"""CTC functions: `ops.ctc_loss` (PyTorch-style, over the CTCLossV2 primitive, with its reductions) and
`ops.ctc_greedy_decoder` (over CTCGreedyDecoder).

>>> import numpy as np, openspore as ms
>>> lp = ms.Tensor(np.log(np.full((3, 1, 2), 0.5, np.float32)))      # T=3, N=1, classes {blank, 1}
>>> loss, _ = ms.ops.ctc_loss(lp, ms.Tensor(np.array([[1]], np.int32)), ms.Tensor(np.array([3], np.int32)),
...                           ms.Tensor(np.array([1], np.int32)), reduction="sum")
>>> round(float(loss.asnumpy()), 4)  # 6 of the 8 equally likely paths collapse to "1": -log(6/8)
0.2877
"""
from ...core.registry import prim
from ...core.tensor import Tensor
from ._base_ops import F

__all__ = ["ctc_loss", "ctc_greedy_decoder"]


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean", zero_infinity=False):
    """(loss, log_alpha): the CTC negative log-likelihood of each padded target row under (T, N, C) log_probs.
    'none' keeps one loss per sample, 'sum' adds them, 'mean' divides each by its target length (at least 1)
    and averages over the batch, as MindSpore and PyTorch do."""
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"For 'ctc_loss', 'reduction' must be 'none', 'mean' or 'sum', but got {reduction!r}.")
    for name, t in (("log_probs", log_probs), ("targets", targets), ("input_lengths", input_lengths),
                    ("target_lengths", target_lengths)):
        if not isinstance(t, Tensor):
            raise TypeError(f"For 'ctc_loss', '{name}' must be a Tensor, but got {type(t).__name__}.")
    nll, log_alpha = prim("CTCLossV2", blank=blank, reduction="none", zero_infinity=zero_infinity)(
        log_probs, targets, input_lengths, target_lengths)
    if reduction == "sum":
        return F.sum(nll), log_alpha
    if reduction == "mean":
        lengths = F.maximum(F.cast(target_lengths, nll.dtype), Tensor(1.0, nll.dtype))
        return F.mean(nll / lengths), log_alpha
    return nll, log_alpha


def ctc_greedy_decoder(inputs, sequence_length, merge_repeated=True):
    """(decoded_indices (K, 2), decoded_values (K,), decoded_shape (2,), log_probability (N, 1)): the best class
    per time step, repeats merged (merge_repeated), blanks (the last class) dropped."""
    return prim("CTCGreedyDecoder", merge_repeated=merge_repeated)(inputs, sequence_length)
