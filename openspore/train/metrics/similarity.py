"""`CosineSimilarity` (pairwise similarity of the rows seen) and `BleuScore` (corpus BLEU of token lists).

>>> import numpy as np
>>> from openspore.train import CosineSimilarity, BleuScore
>>> m = CosineSimilarity(similarity="dot", reduction="sum", zero_diagonal=False)
>>> m.update(np.array([[1.0, 2.0], [3.0, 0.0], [0.0, 1.0]]))
>>> m.eval().tolist()
[10.0, 12.0, 3.0]
"""
import collections
import math

import numpy as np

from .metric import Metric, check_arg_type, rearrange_inputs


class CosineSimilarity(Metric):
    """`CosineSimilarity(similarity='cosine', reduction='none', zero_diagonal=True)`: the (N, N) similarity matrix
    of the rows given to `update` ('cosine' or 'dot'), reduced per row ('none', 'sum', 'mean')."""

    def __init__(self, similarity="cosine", reduction="none", zero_diagonal=True):
        super().__init__()
        if similarity not in ("cosine", "dot"):
            raise ValueError(f"For 'CosineSimilarity', 'similarity' must be 'cosine' or 'dot', but got {similarity!r}.")
        if reduction not in ("none", "sum", "mean"):
            raise ValueError("For 'CosineSimilarity', 'reduction' must be 'none', 'sum' or 'mean', "
                             f"but got {reduction!r}.")
        self.similarity, self.reduction, self.zero_diagonal = similarity, reduction, bool(zero_diagonal)
        self.clear()

    def clear(self):
        """Forget the rows."""
        self.sqr_mtx_res = 0
        self._is_update = False

    @rearrange_inputs
    def update(self, *inputs):
        """`update(inputs)`: an (N, D) array; the similarity matrix replaces the previous one."""
        self._check_count(inputs, 1, "inputs")
        x = self._convert_data(inputs[0]).astype(np.float64)
        if self.similarity == "cosine":
            norms = np.linalg.norm(x, axis=1, keepdims=True)
            x = x / np.where(norms == 0, 1.0, norms)
        self.sqr_mtx_res = x @ x.T
        self._is_update = True

    def eval(self):
        """The similarity matrix (reduction 'none') or its per-row sums/means."""
        if not self._is_update:
            raise RuntimeError("Call the 'update' method before calling 'eval' for 'CosineSimilarity'.")
        m = self.sqr_mtx_res.copy()
        if self.zero_diagonal:
            np.fill_diagonal(m, 0)
        if self.reduction == "sum":
            return m.sum(-1)
        if self.reduction == "mean":
            return m.mean(-1)
        return m


def _ngram_counts(tokens, n_max):
    counts = collections.Counter()
    for n in range(1, n_max + 1):
        for i in range(len(tokens) - n + 1):
            counts[tuple(tokens[i:i + n])] += 1
    return counts


class BleuScore(Metric):
    """`BleuScore(n_gram=4, smooth=False)`: corpus BLEU of candidate token lists against their references
    (clipped n-gram precisions up to `n_gram`, geometric mean, brevity penalty; `smooth` adds one to every
    precision's numerator and denominator)."""

    def __init__(self, n_gram=4, smooth=False):
        super().__init__()
        check_arg_type("n_gram", n_gram, int)
        check_arg_type("smooth", smooth, bool)
        if not 1 <= n_gram <= 4:
            raise ValueError(f"For 'BleuScore', the argument 'n_gram' should range from 1 to 4, but got {n_gram}.")
        self.n_gram, self.smooth = n_gram, smooth
        self.clear()

    def clear(self):
        """Reset the counts."""
        self._numerator = np.zeros(self.n_gram)
        self._denominator = np.zeros(self.n_gram)
        self._precision_scores = np.zeros(self.n_gram)
        self._c = 0.0
        self._r = 0.0
        self._trans_len = 0
        self._ref_len = 0
        self._is_update = False

    @rearrange_inputs
    def update(self, *inputs):
        """`update(candidate_corpus, reference_corpus)`: lists of token lists, and per candidate a list of them."""
        self._check_count(inputs, 2, "candidate_corpus, reference_corpus")
        candidates, references = inputs
        if len(candidates) != len(references):
            raise ValueError("For 'BleuScore.update', the corpus lengths differ: "
                             f"{len(candidates)} candidates and {len(references)} reference lists.")
        for cand, refs in zip(candidates, references):
            self._c += len(cand)
            ref_lengths = [len(r) for r in refs]
            self._r += min(ref_lengths, key=lambda n: (abs(n - len(cand)), n))
            cand_counts = _ngram_counts(cand, self.n_gram)
            max_ref = collections.Counter()
            for r in refs:
                max_ref |= _ngram_counts(r, self.n_gram)
            clipped = cand_counts & max_ref
            for gram, count in clipped.items():
                self._numerator[len(gram) - 1] += count
            for gram, count in cand_counts.items():
                self._denominator[len(gram) - 1] += count
        self._is_update = True

    def eval(self):
        """The BLEU score in [0, 1]."""
        if not self._is_update:
            raise RuntimeError("Call the 'update' method before calling 'eval' for 'BleuScore'.")
        if self._numerator.min() == 0.0 and not self.smooth:
            return 0.0
        if self.smooth:
            precision = (self._numerator + 1.0) / (self._denominator + 1.0)
        else:
            precision = self._numerator / self._denominator
        log_mean = float(np.sum(np.log(precision)) / self.n_gram)
        brevity = 1.0 if self._c > self._r else math.exp(1.0 - self._r / self._c)
        return brevity * math.exp(log_mean)
