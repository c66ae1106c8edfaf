"""The sparse softmax cross-entropy's loss and gradient from one softmax pass (graph-kernel fusion).

A training step computes `SparseSoftmaxCrossEntropyWithLogits(logits, labels)` twice: the loss in the forward
(a log-softmax inside `cross_entropy`) and, in the backward, the gradient with `is_grad=True` (a softmax of the
same logits again, minus the one-hot, over N). MindSpore's CPU kernel makes both in one call; so does
`FusedSparseCrossEntropy`, which graph-kernel fusion puts in place of the pair
(compiler/passes/graph_kernel_cross_entropy.py): one softmax, the gradient made from it exactly as the unfused
gradient kernel makes it (bit for bit), the loss as the mean of -log(p[label]) over the rows (N logarithms,
where the log-softmax took an exponential and a pass over every logit).

Why this way round: training is driven by the gradient only, so the gradient is kept bit for bit and the
rounding difference goes to the reported loss (~1e-8 relative), which nothing reads back. An earlier version
kept the loss exact and made the gradient as exp(log-softmax), ~1e-7 from the softmax: ResNet-20's BatchNorm
training amplified that to losses 1.6e-4 apart by the fourth step. A label probability that underflows (below
`TINY`, where its logarithm would lose precision) makes the loss come from the log-softmax, as unfused.

>>> import numpy as np
>>> logits = np.array([[2.0, 0.0], [0.0, 0.0]], np.float32)
>>> loss, grad = FusedSparseCrossEntropy().numpy(np, logits, np.array([0, 1], np.int32))
>>> round(float(loss), 4), grad.shape
(0.41, (2, 2))
"""
from ...core.primitive import AbstractTensor, Primitive
from ...ops.defs.softmax import check_labels_in_range

_NAME = "SparseSoftmaxCrossEntropyWithLogits"
TINY = 1e-30  # label probabilities below this take the log-softmax route for the loss


class FusedSparseCrossEntropy(Primitive):
    """FusedSparseCrossEntropy()(logits [N, C], labels [N]) -> (mean loss, d loss / d logits); logits (..., C)
    with labels (...) are rows too, as for the unfused primitive."""

    differentiable = False
    nondiff_reason = "a fused loss kernel is made after autodiff, from nodes that were already differentiated"

    def infer(self, logits, labels):
        return (AbstractTensor((), logits.dtype), AbstractTensor(tuple(logits.shape), logits.dtype))

    def numpy(self, np, logits, labels):
        shape = logits.shape
        logits, labels = logits.reshape(-1, shape[-1]), labels.reshape(-1)
        n, c = logits.shape
        check_labels_in_range(_NAME, labels, c)
        z = logits - logits.max(axis=1, keepdims=True)
        e = np.exp(z)
        p = e / e.sum(axis=1, keepdims=True)
        rows = np.arange(n)
        picked = p[rows, labels]
        if picked.min() < TINY:
            log_p = z - np.log(e.sum(axis=1, keepdims=True))
            loss = -log_p[rows, labels].mean()
        else:
            loss = -np.log(picked).mean()
        grad = p.copy()
        grad[rows, labels] -= 1.0
        return np.asarray(loss, logits.dtype), (grad / n).reshape(shape).astype(logits.dtype, copy=False)

    def torch(self, torch, logits, labels):
        shape = logits.shape
        logits, labels = logits.reshape(-1, shape[-1]), labels.reshape(-1)
        n, c = logits.shape
        check_labels_in_range(_NAME, labels, c)
        idx = labels.long().unsqueeze(1)
        # the gradient kernel's own steps (ops/defs/softmax.py), with the label probabilities read in between
        grad = torch.softmax(logits, dim=1)
        picked = grad.gather(1, idx)
        if float(picked.min()) < TINY:
            loss = torch.nn.functional.cross_entropy(logits, idx.squeeze(1))
        else:
            loss = picked.log_().mean().neg_()
        grad.scatter_add_(1, idx, torch.full(idx.shape, -1.0, dtype=grad.dtype, device=grad.device))
        return loss, grad.div_(n).reshape(shape)
