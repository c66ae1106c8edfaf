"""The sparse softmax cross-entropy's loss and gradient from one softmax pass (graph-kernel fusion).

A training step computes `SparseSoftmaxCrossEntropyWithLogits(logits, labels)` twice: the loss in the forward
(a log-softmax inside `cross_entropy`) and, in the backward, the gradient with `is_grad=True` (a softmax of the
same logits again, minus the one-hot, over N). MindSpore's CPU kernel makes both in one call; so does
`FusedSparseCrossEntropy`, which graph-kernel fusion puts in place of the pair
(compiler/passes/graph_kernel_cross_entropy.py): one log-softmax, the loss read from it, the gradient as its
exponential. The loss is the unfused one bit for bit (the same log-softmax and mean); the gradient is
exp(log-softmax) rather than a softmax, ~1e-7 relative from it.

>>> import numpy as np
>>> logits = np.array([[2.0, 0.0], [0.0, 0.0]], np.float32)
>>> loss, grad = FusedSparseCrossEntropy().numpy(np, logits, np.array([0, 1], np.int32))
>>> round(float(loss), 4), grad.shape
(0.41, (2, 2))
"""
from ...core.primitive import AbstractTensor, Primitive
from ...ops.defs.softmax import check_labels_in_range


class FusedSparseCrossEntropy(Primitive):
    """FusedSparseCrossEntropy()(logits [N, C], labels [N]) -> (mean loss, d loss / d logits)."""

    differentiable = False
    nondiff_reason = "a fused loss kernel is made after autodiff, from nodes that were already differentiated"

    def infer(self, logits, labels):
        return (AbstractTensor((), logits.dtype), AbstractTensor(tuple(logits.shape), logits.dtype))

    def numpy(self, np, logits, labels):
        n, c = logits.shape
        check_labels_in_range("SparseSoftmaxCrossEntropyWithLogits", labels, c)
        z = logits - logits.max(axis=1, keepdims=True)
        log_p = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
        rows = np.arange(n)
        loss = np.asarray(-log_p[rows, labels].mean(), logits.dtype)
        grad = np.exp(log_p)
        grad[rows, labels] -= 1.0
        return loss, (grad / n).astype(logits.dtype, copy=False)

    def torch(self, torch, logits, labels):
        n, c = logits.shape
        check_labels_in_range("SparseSoftmaxCrossEntropyWithLogits", labels, c)
        idx = labels.long().unsqueeze(1)
        log_p = torch.log_softmax(logits, dim=1)
        loss = torch.nn.functional.nll_loss(log_p, idx.squeeze(1))
        grad = log_p.exp_() if not log_p.requires_grad else log_p.exp()
        grad.scatter_add_(1, idx, torch.full(idx.shape, -1.0, dtype=grad.dtype, device=grad.device))
        return loss, grad.div_(n)
