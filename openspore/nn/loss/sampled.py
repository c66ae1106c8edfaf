"""`SampledSoftmaxLoss`: softmax cross-entropy over the true classes and a sample of the others, for
classifiers with very many classes (an underestimate of the full softmax loss).

For each row i the logits are the true classes' and the sampled classes' `logits[i] . weights[c] + bias[c]`,
each minus log(expected count of c) (the correction for how often the sampler draws c); the target puts
1 / num_true on each true class. With `remove_accidental_hits`, a sampled class equal to one of row i's labels
gets a logit of -3.4e38 (it is not a negative example). Values agree with MindSpore 2.10 where MindSpore follows
its documentation: MindSpore 2.10 ignores `reduction` (always per row) and `remove_accidental_hits` (as if
False); openspore applies both as documented.

>>> import numpy as np, openspore as ms
>>> w = ms.Tensor(np.eye(3, 2, dtype=np.float32)); b = ms.Tensor(np.zeros(3, np.float32))
>>> sampled = (ms.Tensor(np.array([2], np.int32)), ms.Tensor(np.ones((1, 1), np.float32)),
...            ms.Tensor(np.ones(1, np.float32)))
>>> loss = SampledSoftmaxLoss(num_sampled=1, num_classes=3, sampled_values=sampled)
>>> round(float(loss(w, b, ms.Tensor(np.array([0], np.int32)), ms.Tensor(np.array([[1.0, 0.0]], np.float32)))[0]), 5)
0.31326
"""
from ... import ops
from ...common import dtype as mstype
from ...ops.defs.random_dist import UniformCandidateSampler
from .loss import LossBase

__all__ = ["SampledSoftmaxLoss"]

_HIT_LOGIT = -3.4e38   # about -float32 max: a sampled class that is a true label drops out of the softmax


def _check_int(name, value):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"For 'SampledSoftmaxLoss', the type of '{name}' should be 'int', but got type "
                        f"'{type(value).__name__}'.")
    if value < 1:
        raise ValueError(f"For 'SampledSoftmaxLoss', '{name}' must be positive, but got {value}.")
    return value


class SampledSoftmaxLoss(LossBase):
    """`SampledSoftmaxLoss(num_sampled, num_classes, num_true=1, sampled_values=None, remove_accidental_hits=True,
    seed=0, reduction='none')(weights (C, dim), bias (C,), labels (N, num_true) int32/int64, logits (N, dim))`.

    `sampled_values` is (sampled_candidates (num_sampled,), true_expected_count (N, num_true),
    sampled_expected_count (num_sampled,)) from a candidate sampler; without it a `UniformCandidateSampler`
    (unique, seeded with `seed`) draws them on each call."""

    def __init__(self, num_sampled, num_classes, num_true=1, sampled_values=None, remove_accidental_hits=True,
                 seed=0, reduction="none"):
        super().__init__(reduction)
        for name, value in (("num_sampled", num_sampled), ("num_classes", num_classes), ("num_true", num_true)):
            _check_int(name, value)
        if num_sampled > num_classes:
            raise ValueError(f"For 'SampledSoftmaxLoss', the 'num_sampled' must be smaller than or equal to "
                             f"'num_classes', but got 'num_sampled': {num_sampled} and 'num_classes': "
                             f"{num_classes}.")
        if num_true > num_classes:
            raise ValueError(f"For 'SampledSoftmaxLoss', the 'num_true' must be smaller than or equal to "
                             f"'num_classes', but got 'num_true': {num_true} and 'num_classes': {num_classes}.")
        if sampled_values is not None:
            if not isinstance(sampled_values, (list, tuple)):
                raise TypeError(f"For 'SampledSoftmaxLoss', the type of 'sampled_values' must be a list or tuple, "
                                f"but got {type(sampled_values).__name__}.")
            if len(sampled_values) != 3:
                raise ValueError(f"For 'SampledSoftmaxLoss', the length of 'sampled_values' must be equal to 3, "
                                 f"but got {len(sampled_values)}.")
        self.num_sampled, self.num_classes, self.num_true = num_sampled, num_classes, num_true
        self.sampled_values = sampled_values
        self.remove_accidental_hits = bool(remove_accidental_hits)
        self.sampler = UniformCandidateSampler(num_true, num_sampled, True, num_classes, seed)

    def construct(self, weights, bias, labels, logits):
        if labels.dtype not in (mstype.int32, mstype.int64):
            raise TypeError(f"For 'SampledSoftmaxLoss', the 'labels' should be one of [mindspore.int32, "
                            f"mindspore.int64], but got 'mindspore.{str(labels.dtype).lower()}'.")
        labels = ops.reshape(labels, (-1, self.num_true))
        if self.sampled_values is None:
            sampled, true_expected, sampled_expected = self.sampler(labels)
        else:
            sampled, true_expected, sampled_expected = self.sampled_values
        sampled = ops.stop_gradient(ops.cast(sampled, labels.dtype))
        true_w = ops.gather(weights, labels, 0)                              # (N, num_true, dim)
        true_logits = (ops.expand_dims(logits, 1) * true_w).sum(-1) + ops.gather(bias, labels, 0)
        sampled_logits = ops.matmul(logits, ops.gather(weights, sampled, 0).T) + ops.gather(bias, sampled, 0)
        true_logits = true_logits - ops.log(ops.cast(true_expected, logits.dtype))
        sampled_logits = sampled_logits - ops.log(ops.cast(sampled_expected, logits.dtype))
        if self.remove_accidental_hits:
            hits = ops.equal(ops.expand_dims(labels, 2), ops.reshape(sampled, (1, 1, -1))).any(1)
            sampled_logits = ops.where(hits, ops.full_like(sampled_logits, _HIT_LOGIT), sampled_logits)
        all_logits = ops.concat((true_logits, sampled_logits), 1)
        log_p = ops.log_softmax(all_logits, 1)
        loss = -(log_p[:, :self.num_true].sum(1)) / self.num_true
        return self.get_loss(loss)
