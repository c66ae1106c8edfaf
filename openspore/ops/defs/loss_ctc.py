"""Primitives: Connectionist Temporal Classification — CTCLossV2 (PyTorch-style: log-probabilities, padded targets,
blank given), its gradient CTCLossV2Grad, CTCLoss (TensorFlow-style: logits, sparse labels, blank = last class)
and CTCGreedyDecoder.

The loss is −log Σ over the alignments of the target (blanks interleaved, repeats merged) of Π_t p_t(path_t),
computed by the forward (alpha) recursion over the extended label l' = (blank, l1, blank, l2, ..., blank) in log
space; the backward (beta) recursion gives the gradient. As in MindSpore and PyTorch, the gradient reported for
the log-probabilities is exp(lp) − Σ_{s: l'_s = c} α·β / (p_t(c)·P(l|x)), the gradient for the logits under
log_softmax: it differs from the plain derivative by exp(lp), a direction log_softmax's own backward removes. Time
steps past an input's length get zero gradient; zero_infinity turns impossible alignments (infinite loss) into
zero loss and zero gradient.

One dynamic program serves both backends: `_Lib` wraps the handful of array calls it needs (numpy or torch).
"""
import numpy as np

from ...common import dtype as mstype
from ...core.primitive import AbstractTensor, Primitive, Sample, register
from ._export import BACKWARD, NO_MINDIR, NO_ONNX, not_exportable
from ._util import check_dtype, check_tensor, prim, rand_float

_NEG_INF = float("-inf")


class _Lib:
    """The array calls of the CTC recursions, on numpy arrays or torch tensors."""

    def __init__(self, mod, is_torch):
        self.mod, self.is_torch = mod, is_torch

    def full(self, shape, value, like):
        if self.is_torch:
            return self.mod.full(shape, value, dtype=like.dtype, device=like.device)
        return np.full(shape, value, like.dtype)

    def index(self, values):
        return self.mod.as_tensor(np.asarray(values, np.int64)) if self.is_torch else np.asarray(values, np.int64)

    def mask(self, values, like):
        if self.is_torch:
            return self.mod.as_tensor(np.asarray(values, bool), device=like.device)
        return np.asarray(values, bool)

    def cat(self, parts):
        return self.mod.cat(parts) if self.is_torch else np.concatenate(parts)

    def logaddexp(self, a, b):
        return self.mod.logaddexp(a, b)

    def where(self, cond, a, b):
        return self.mod.where(cond, a, b)

    def exp(self, a):
        return self.mod.exp(a)

    def host(self, a):
        return a.detach().cpu().numpy() if self.is_torch else np.asarray(a)


def _extended(labels, blank):
    ext = [blank]
    for label in labels:
        ext += [int(label), blank]
    return ext


def _transitions(ext, blank, merge_repeated):
    """(self-loop allowed, skip from s−2 allowed) per state of the extended label."""
    stay = [True] * len(ext)
    skip = [False] * len(ext)
    for s, label in enumerate(ext):
        if label != blank:
            stay[s] = merge_repeated  # without merging, staying on a label would emit it twice
            skip[s] = s >= 2 and (ext[s - 2] != label or not merge_repeated)
    return stay, skip


def _shift(lib, a, k):
    return lib.cat([lib.full((k,), _NEG_INF, a), a[:-k]]) if a.shape[0] > k else lib.full(a.shape, _NEG_INF, a)


def _alpha(lib, lp, ext, stay, skip, length):
    """log alpha, (length, len(ext)): lp is one sample's (T, C) log-probabilities."""
    idx = lib.index(ext)
    stay_m, skip_m = lib.mask(stay, lp), lib.mask(skip, lp)
    ninf = lib.full((len(ext),), _NEG_INF, lp)
    first = ninf.clone() if lib.is_torch else ninf.copy()
    first[:min(2, len(ext))] = lp[0][idx[:min(2, len(ext))]]
    rows = [first]
    for t in range(1, length):
        prev = rows[-1]
        acc = lib.logaddexp(lib.where(stay_m, prev, ninf), _shift(lib, prev, 1))
        acc = lib.logaddexp(acc, lib.where(skip_m, _shift(lib, prev, 2), ninf))
        rows.append(acc + lp[t][idx])
    return rows


def _beta(lib, lp, ext, stay, skip, length):
    """log beta, the mirror recursion from the end (rows for t = 0 .. length−1)."""
    idx = lib.index(ext)
    n = len(ext)
    stay_m = lib.mask(stay, lp)
    skip_next = lib.mask(skip[2:] + [False, False], lp)  # state s may jump to s+2 when s+2 allows a skip
    ninf = lib.full((n,), _NEG_INF, lp)
    last = ninf.clone() if lib.is_torch else ninf.copy()
    tail = idx[max(n - 2, 0):]
    last[max(n - 2, 0):] = lp[length - 1][tail]
    rows = [last]
    for t in range(length - 2, -1, -1):
        nxt = rows[-1]
        up1 = lib.cat([nxt[1:], lib.full((1,), _NEG_INF, nxt)])
        up2 = lib.cat([nxt[2:], lib.full((min(2, n),), _NEG_INF, nxt)]) if n > 2 else lib.full((n,), _NEG_INF, nxt)
        acc = lib.logaddexp(lib.where(stay_m, nxt, ninf), up1)
        acc = lib.logaddexp(acc, lib.where(skip_next, up2, ninf))
        rows.append(acc + lp[t][idx])
    return rows[::-1]


def _check_lengths(op, length, label_len, max_time, ignore_longer=False):
    if not 0 <= length <= max_time:
        raise ValueError(f"For '{op}', each input length must be in [0, {max_time}] (the time axis), but got {length}.")
    return not (ignore_longer and label_len > length)


def _ctc(lib, lp, targets, lengths, blank, merge_repeated, zero_infinity, want_grad, ignore_longer=False):
    """(nll (N,), log_alpha (N, T, 2S+1) or None, grad (T, N, C) or None) for lp (T, N, C) and a list of
    per-sample label lists."""
    max_time, batch, classes = lp.shape
    width = 2 * max((len(t) for t in targets), default=0) + 1
    nll = lib.full((batch,), 0.0, lp)
    log_alpha = lib.full((batch, max_time, width), _NEG_INF, lp)
    grad = lib.full(tuple(lp.shape), 0.0, lp) if want_grad else None
    for b in range(batch):
        length, labels = int(lengths[b]), targets[b]
        if not _check_lengths("CTC", length, len(labels), max_time, ignore_longer) or length == 0:
            continue
        if any(not 0 <= v < classes for v in labels):
            raise ValueError(f"For 'CTC', the labels must lie in [0, {classes}), but got {list(labels)}.")
        sample = lp[:, b, :]
        ext = _extended(labels, blank)
        stay, skip = _transitions(ext, blank, merge_repeated)
        alpha = _alpha(lib, sample, ext, stay, skip, length)
        ends = alpha[-1][-2:] if len(ext) > 1 else alpha[-1][-1:]
        total = ends[0] if len(ext) == 1 else lib.logaddexp(ends[0], ends[1])
        loss = -total
        infinite = not np.isfinite(float(lib.host(loss)))
        nll[b] = 0.0 if infinite and zero_infinity else loss
        for t, row in enumerate(alpha):
            log_alpha[b, t, :len(ext)] = row
        if not want_grad or (infinite and zero_infinity):
            continue
        beta = _beta(lib, sample, ext, stay, skip, length)
        for t in range(length):
            both = alpha[t] + beta[t]
            lcab = lib.full((classes,), _NEG_INF, lp)
            for s, label in enumerate(ext):
                lcab[label] = lib.logaddexp(lcab[label], both[s])
            grad[t, b, :] = lib.exp(sample[t]) - lib.exp(lcab - total - sample[t])
    return nll, log_alpha, grad


def _dense_targets(np_targets, np_lengths, op):
    out = []
    for b in range(np_targets.shape[0]):
        n = int(np_lengths[b])
        if not 0 <= n <= np_targets.shape[1]:
            raise ValueError(f"For '{op}', each target length must be in [0, {np_targets.shape[1]}], but got {n}.")
        out.append([int(v) for v in np_targets[b, :n]])
    return out


def _check_v2(op, log_probs, targets, input_lengths, target_lengths):
    check_tensor(op, "log_probs", log_probs)
    check_dtype(op, "log_probs", log_probs, ("float",))
    if len(log_probs.shape) != 3:
        raise ValueError(f"For '{op}', 'log_probs' must be 3-D (T, N, C), but got shape {list(log_probs.shape)}.")
    batch = log_probs.shape[1]
    check_dtype(op, "targets", targets, ("int", "uint"))
    if len(targets.shape) != 2 or targets.shape[0] != batch:
        raise ValueError(f"For '{op}', 'targets' must be 2-D (N={batch}, S), but got shape {list(targets.shape)}.")
    for name, t in (("input_lengths", input_lengths), ("target_lengths", target_lengths)):
        check_dtype(op, name, t, ("int", "uint"))
        if tuple(t.shape) != (batch,):
            raise ValueError(f"For '{op}', '{name}' must have shape [{batch}], but got {list(t.shape)}.")


class _V2Base(Primitive):
    attr_defaults = {"blank": 0, "reduction": "none", "zero_infinity": False}

    def check_attrs(self):
        if self.reduction != "none":
            raise ValueError(f"For '{self.name}', the primitive computes per-sample losses: 'reduction' must be "
                             f"'none' (ops.ctc_loss applies 'mean' and 'sum'), but got {self.reduction!r}.")
        if not isinstance(self.blank, (int, np.integer)) or isinstance(self.blank, bool) or self.blank < 0:
            raise ValueError(f"For '{self.name}', 'blank' must be a non-negative int, but got {self.blank!r}.")

    def _run(self, lib, log_probs, targets, input_lengths, target_lengths, want_grad):
        if self.blank >= log_probs.shape[2]:
            raise ValueError(f"For '{self.name}', 'blank' ({self.blank}) must be less than the number of classes "
                             f"({log_probs.shape[2]}).")
        labels = _dense_targets(lib.host(targets), lib.host(target_lengths), self.name)
        return _ctc(lib, log_probs, labels, lib.host(input_lengths), self.blank, True, self.zero_infinity, want_grad)


@register
class CTCLossV2(_V2Base):
    """CTCLossV2(blank=0, reduction='none', zero_infinity=False)(log_probs, targets, input_lengths,
    target_lengths) -> (neg_log_likelihood (N,), log_alpha (N, T, 2·S+1)).

    log_probs (T, N, C); targets (N, S) padded; the first target_lengths[n] labels of row n are its target."""
    input_names = ("log_probs", "targets", "input_lengths", "target_lengths")
    infer_reads_signature_only = True

    def infer(self, log_probs, targets, input_lengths, target_lengths):
        _check_v2(self.name, log_probs, targets, input_lengths, target_lengths)
        t, n, _ = log_probs.shape
        return (AbstractTensor((n,), log_probs.dtype),
                AbstractTensor((n, t, 2 * targets.shape[1] + 1), log_probs.dtype))

    def bprop(self, log_probs, targets, input_lengths, target_lengths, out, dout):
        grad = CTCLossV2Grad(blank=self.blank, reduction=self.reduction, zero_infinity=self.zero_infinity)
        dlp = grad(dout[0], log_probs, targets, input_lengths, target_lengths, out[0], out[1])
        return dlp, None, None, None

    def _padded(self, lib, log_probs, targets, out):
        nll, alpha, _ = out
        width = 2 * targets.shape[1] + 1
        if alpha.shape[2] < width:
            pad = lib.full((alpha.shape[0], alpha.shape[1], width - alpha.shape[2]), _NEG_INF, alpha)
            alpha = lib.mod.cat([alpha, pad], 2) if lib.is_torch else np.concatenate([alpha, pad], 2)
        return nll, alpha

    def numpy(self, np_, log_probs, targets, input_lengths, target_lengths):
        lib = _Lib(np_, False)
        return self._padded(lib, log_probs, targets,
                            self._run(lib, log_probs, targets, input_lengths, target_lengths, False))

    def torch(self, torch, log_probs, targets, input_lengths, target_lengths):
        lib = _Lib(torch, True)
        return self._padded(lib, log_probs, targets,
                            self._run(lib, log_probs, targets, input_lengths, target_lengths, False))

    @classmethod
    def samples(cls, rng):
        lp = np.log(_softmax(rand_float(rng, (6, 2, 4), -2.0, 2.0)))
        targets = np.array([[1, 2, 2], [3, 1, 0]], np.int32)
        # grad=(): the reported gradient is MindSpore's/PyTorch's logits-style one (see the module docstring),
        # which finite differences of raw log_probs do not see; tests/ops/test_ctc.py checks it through log_softmax
        yield Sample(lp, targets, np.array([6, 5], np.int32), np.array([3, 2], np.int32), grad=(), rtol=1e-4,
                     atol=1e-5)
        yield Sample(lp, targets.astype(np.int64), np.array([6, 2], np.int64), np.array([1, 3], np.int64),
                     attrs={"blank": 3, "zero_infinity": True}, grad=(), rtol=1e-4, atol=1e-5, name="blank3_inf")


@register
class CTCLossV2Grad(_V2Base):
    """CTCLossV2Grad(blank=0, reduction='none', zero_infinity=False)(grad_out, log_probs, targets, input_lengths,
    target_lengths, neg_log_likelihood, log_alpha) -> d log_probs (T, N, C), scaled per sample by grad_out."""
    input_names = ("grad_out", "log_probs", "targets", "input_lengths", "target_lengths", "neg_log_likelihood",
                   "log_alpha")
    differentiable = False
    nondiff_reason = "CTC's second derivative is not defined in openspore (nor in MindSpore)"

    def infer(self, grad_out, log_probs, targets, input_lengths, target_lengths, nll, log_alpha):
        _check_v2(self.name, log_probs, targets, input_lengths, target_lengths)
        if tuple(grad_out.shape) != (log_probs.shape[1],):
            raise ValueError(f"For '{self.name}', 'grad_out' must have shape [{log_probs.shape[1]}], but got "
                             f"{list(grad_out.shape)}.")
        return AbstractTensor(log_probs.shape, log_probs.dtype)

    def _grad(self, lib, grad_out, log_probs, targets, input_lengths, target_lengths):
        _, _, grad = self._run(lib, log_probs, targets, input_lengths, target_lengths, True)
        return grad * grad_out[None, :, None]

    def numpy(self, np_, grad_out, log_probs, targets, input_lengths, target_lengths, nll, log_alpha):
        return self._grad(_Lib(np_, False), grad_out, log_probs, targets, input_lengths, target_lengths)

    def torch(self, torch, grad_out, log_probs, targets, input_lengths, target_lengths, nll, log_alpha):
        return self._grad(_Lib(torch, True), grad_out, log_probs, targets, input_lengths, target_lengths)

    @classmethod
    def samples(cls, rng):
        lp = np.log(_softmax(rand_float(rng, (5, 2, 3), -2.0, 2.0)))
        targets = np.array([[1, 2], [2, 0]], np.int32)
        il, tl = np.array([5, 4], np.int32), np.array([2, 1], np.int32)
        nll, alpha = CTCLossV2().numpy(np, lp, targets, il, tl)
        yield Sample(rand_float(rng, (2,)), lp, targets, il, tl, nll, alpha, rtol=1e-4, atol=1e-5)


def _softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return (e / e.sum(-1, keepdims=True)).astype(x.dtype)


@register
class CTCLoss(Primitive):
    """CTCLoss(preprocess_collapse_repeated=False, ctc_merge_repeated=True, ignore_longer_outputs_than_inputs=False)
    (x, labels_indices, labels_values, sequence_length) -> (loss (N,), gradient (T, N, C)).

    x holds logits (T, N, C) (softmax applied inside); the labels are sparse: labels_indices (K, 2) rows
    (batch, position) with labels_values (K,); the blank is the last class C−1. preprocess_collapse_repeated
    merges repeated labels first; ctc_merge_repeated=False keeps repeated emissions as separate labels;
    ignore_longer_outputs_than_inputs gives zero loss to samples whose labels outnumber their time steps."""
    attr_defaults = {"preprocess_collapse_repeated": False, "ctc_merge_repeated": True,
                     "ignore_longer_outputs_than_inputs": False}
    input_names = ("x", "labels_indices", "labels_values", "sequence_length")

    def infer(self, x, labels_indices, labels_values, sequence_length):
        check_tensor(self.name, "x", x)
        check_dtype(self.name, "x", x, ("float",))
        if len(x.shape) != 3:
            raise ValueError(f"For '{self.name}', 'x' must be 3-D (max_time, batch, classes), but got shape "
                             f"{list(x.shape)}.")
        if len(labels_indices.shape) != 2 or labels_indices.shape[1] != 2:
            raise ValueError(f"For '{self.name}', 'labels_indices' must have shape [K, 2], but got "
                             f"{list(labels_indices.shape)}.")
        if tuple(labels_values.shape) != (labels_indices.shape[0],):
            raise ValueError(f"For '{self.name}', 'labels_values' must have shape [{labels_indices.shape[0]}], but "
                             f"got {list(labels_values.shape)}.")
        if tuple(sequence_length.shape) != (x.shape[1],):
            raise ValueError(f"For '{self.name}', 'sequence_length' must have shape [{x.shape[1]}], but got "
                             f"{list(sequence_length.shape)}.")
        for name, t in (("labels_indices", labels_indices), ("labels_values", labels_values),
                        ("sequence_length", sequence_length)):
            check_dtype(self.name, name, t, ("int", "uint"))
        return AbstractTensor((x.shape[1],), x.dtype), AbstractTensor(x.shape, x.dtype)

    def bprop(self, x, labels_indices, labels_values, sequence_length, out, dout):
        scale = prim("ExpandDims")(prim("ExpandDims")(dout[0], 0), 2)
        return prim("Mul")(out[1], scale), None, None, None

    def _labels(self, indices, values, batch):
        rows = [[] for _ in range(batch)]
        for (b, _pos), v in sorted(zip(map(tuple, indices.tolist()), values.tolist())):
            if not 0 <= b < batch:
                raise ValueError(f"For '{self.name}', 'labels_indices' names batch {b}, outside [0, {batch}).")
            rows[b].append(int(v))
        if self.preprocess_collapse_repeated:
            rows = [[v for i, v in enumerate(r) if i == 0 or r[i - 1] != v] for r in rows]
        return rows

    def _run(self, lib, x, indices, values, lengths):
        lp = x - lib.mod.logsumexp(x, -1, keepdim=True) if lib.is_torch else x - _logsumexp(x)
        labels = self._labels(lib.host(indices), lib.host(values), x.shape[1])
        host_lengths = lib.host(lengths)
        if not self.ignore_longer_outputs_than_inputs:
            for b, row in enumerate(labels):
                if len(row) > int(host_lengths[b]):
                    raise ValueError(f"For '{self.name}', sample {b} has {len(row)} labels but only "
                                     f"{int(host_lengths[b])} time steps; set ignore_longer_outputs_than_inputs=True "
                                     f"to give it zero loss.")
        nll, _, grad = _ctc(lib, lp, labels, host_lengths, x.shape[2] - 1, self.ctc_merge_repeated, False, True,
                            ignore_longer=self.ignore_longer_outputs_than_inputs)
        return nll, grad

    def numpy(self, np_, x, labels_indices, labels_values, sequence_length):
        return self._run(_Lib(np_, False), x, labels_indices, labels_values, sequence_length)

    def torch(self, torch, x, labels_indices, labels_values, sequence_length):
        return self._run(_Lib(torch, True), x, labels_indices, labels_values, sequence_length)

    @classmethod
    def samples(cls, rng):
        x = rand_float(rng, (5, 2, 4), -2.0, 2.0)
        indices = np.array([[0, 0], [0, 1], [1, 0]], np.int64)
        values = np.array([1, 1, 2], np.int32)
        lengths = np.array([5, 3], np.int32)
        # grad=(): the generic check weighs every output, and the `gradient` output is a constant to the bprop
        # (as in MindSpore); tests/ops/test_ctc.py checks the loss's gradient by finite differences
        yield Sample(x, indices, values, lengths, grad=(), rtol=1e-4, atol=1e-5)
        yield Sample(x, indices, values, lengths, attrs={"preprocess_collapse_repeated": True}, grad=(),
                     rtol=1e-4, atol=1e-5, name="collapse")
        yield Sample(x, indices, values, lengths, attrs={"ctc_merge_repeated": False}, grad=(), rtol=1e-4,
                     atol=1e-5, name="no_merge")


def _logsumexp(x):
    m = x.max(-1, keepdims=True)
    return m + np.log(np.exp(x - m).sum(-1, keepdims=True))


@register
class CTCGreedyDecoder(Primitive):
    """CTCGreedyDecoder(merge_repeated=True)(inputs, sequence_length) -> (decoded_indices (K, 2) int64,
    decoded_values (K,) int64, decoded_shape (2,) int64, log_probability (N, 1)).

    Per sample, the most likely class at each of its time steps; repeats merged (merge_repeated), then blanks
    (the last class) dropped. log_probability is minus the sum of those steps' maximal logits."""
    attr_defaults = {"merge_repeated": True}
    input_names = ("inputs", "sequence_length")
    differentiable = False
    nondiff_reason = "the decoded outputs are integer labels chosen by argmax"
    infer_reads_signature_only = True

    def infer(self, inputs, sequence_length):
        check_tensor(self.name, "inputs", inputs)
        check_dtype(self.name, "inputs", inputs, ("float",))
        if len(inputs.shape) != 3:
            raise ValueError(f"For '{self.name}', 'inputs' must be 3-D (max_time, batch, classes), but got shape "
                             f"{list(inputs.shape)}.")
        check_dtype(self.name, "sequence_length", sequence_length, ("int",))
        if tuple(sequence_length.shape) != (inputs.shape[1],):
            raise ValueError(f"For '{self.name}', 'sequence_length' must have shape [{inputs.shape[1]}], but got "
                             f"{list(sequence_length.shape)}.")
        return (AbstractTensor((-1, 2), mstype.int64), AbstractTensor((-1,), mstype.int64),
                AbstractTensor((2,), mstype.int64), AbstractTensor((inputs.shape[1], 1), inputs.dtype))

    def _decode(self, x, lengths):
        max_time, batch, classes = x.shape
        indices, values, log_prob, longest = [], [], np.zeros((batch, 1), x.dtype), 0
        for b in range(batch):
            n = int(lengths[b])
            # MindSpore 2.10's kernel decodes a length of 0 as an empty sequence (log-probability 0) and refuses one
            # past max_time with a RuntimeError and this message
            if n > max_time:
                raise RuntimeError(f"For '{self.name}', sequence_length[{b}] {n} should be less than {max_time}.")
            if n < 0:
                raise ValueError(f"For '{self.name}', each sequence length must be in [0, {max_time}], but got {n}.")
            best = x[:n, b].argmax(-1)
            log_prob[b, 0] = 0.0 - x[:n, b].max(-1).sum()  # 0.0, not -0.0, for an empty sequence
            kept, prev = [], None
            for c in best.tolist():
                if c != classes - 1 and not (self.merge_repeated and c == prev):
                    kept.append(c)
                prev = c
            indices += [[b, i] for i in range(len(kept))]
            values += kept
            longest = max(longest, len(kept))
        return (np.asarray(indices, np.int64).reshape(-1, 2), np.asarray(values, np.int64),
                np.asarray([batch, longest], np.int64), log_prob)

    def numpy(self, np_, inputs, sequence_length):
        return self._decode(np.asarray(inputs), np.asarray(sequence_length))

    def torch(self, torch, inputs, sequence_length):
        out = self._decode(inputs.detach().cpu().numpy(), sequence_length.cpu().numpy())
        return tuple(torch.as_tensor(a, device=inputs.device) for a in out)

    @classmethod
    def samples(cls, rng):
        x = rand_float(rng, (6, 2, 4), -2.0, 2.0)
        x[1, 0] = x[0, 0]  # a repeat to merge
        yield Sample(x, np.array([6, 4], np.int32))
        yield Sample(x, np.array([3, 6], np.int64), attrs={"merge_repeated": False}, name="no_merge")


# ---- export marks (see _export.py): what is not written to MindIR / ONNX, and why ---------------
not_exportable(NO_MINDIR, CTCLossV2, CTCLoss, CTCGreedyDecoder, formats=("MINDIR",))
not_exportable(NO_ONNX, CTCLossV2, CTCLoss, CTCGreedyDecoder, formats=("ONNX",))
not_exportable(BACKWARD, CTCLossV2Grad)
