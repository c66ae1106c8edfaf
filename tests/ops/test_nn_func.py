"""Functional activations and losses against independent references (torch.nn.functional and numpy formulas),
on both backends, with gradients; plus second-order gradients of the activation/loss primitives."""
import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import openspore as ms
from openspore import ops
from openspore.core.primitive import PRIMITIVES
from tests.conftest import assert_close
from tests.device import use_backend

from .op_harness import as_tuple, grad_indices, to_args


def needs(*names):
    missing = [n for n in names if n not in PRIMITIVES]
    return pytest.mark.skipif(bool(missing), reason=f"needs primitives {missing} from another family")


def _t(a):
    return torch.tensor(np.asarray(a), dtype=torch.float64, requires_grad=True)


def _value_and_grads(fn, *arrays):
    """openspore value and input gradients of sum(fn(...) * w) for a fixed random weighting w."""
    tensors = [ms.Tensor(a) for a in arrays]
    out = fn(*tensors)
    w = ms.Tensor(np.random.default_rng(3).standard_normal(out.shape).astype(out.asnumpy().dtype))
    grads = ms.grad(lambda *xs: (fn(*xs) * w).sum(), grad_position=tuple(range(len(arrays))))(*tensors)
    return out, as_tuple(grads), w.asnumpy()


def _torch_value_and_grads(fn, w, *arrays):
    ts = [_t(a) for a in arrays]
    out = fn(*ts)
    (out * torch.tensor(w, dtype=torch.float64)).sum().backward()
    return out.detach().numpy(), [t.grad.numpy() for t in ts]


def check_against_torch(ours, theirs, *arrays, rtol=1e-5, atol=1e-6):
    out, grads, w = _value_and_grads(ours, *arrays)
    ref, ref_grads = _torch_value_and_grads(theirs, w, *arrays)
    assert_close(out, ref, rtol=rtol, atol=atol)
    for g, r in zip(grads, ref_grads):
        assert_close(g, r, rtol=rtol, atol=atol)


X = np.random.default_rng(0).uniform(-4, 4, size=(3, 5)).astype(np.float64)

ACTIVATIONS = [
    (ops.relu, F.relu),
    (ops.relu6, F.relu6),
    (lambda x: ops.leaky_relu(x), lambda x: F.leaky_relu(x, 0.2)),
    (lambda x: ops.leaky_relu(x, 0.05), lambda x: F.leaky_relu(x, 0.05)),
    (lambda x: ops.elu(x, 0.7), lambda x: F.elu(x, 0.7)),
    (ops.selu, F.selu),
    (lambda x: ops.celu(x, 1.5), lambda x: F.celu(x, 1.5)),
    (ops.gelu, F.gelu),
    (lambda x: ops.gelu(x, approximate="tanh"), lambda x: F.gelu(x, approximate="tanh")),
    (ops.fast_gelu, lambda x: x * torch.sigmoid(1.702 * x)),
    (ops.silu, F.silu),
    (ops.mish, F.mish),
    (ops.hardswish, F.hardswish),
    (ops.hardsigmoid, F.hardsigmoid),
    (ops.softplus, F.softplus),
    (lambda x: ops.softplus(x, beta=2, threshold=3), lambda x: F.softplus(x, beta=2, threshold=3)),
    (ops.softsign, F.softsign),
    (ops.logsigmoid, F.logsigmoid),
    (ops.softmax, lambda x: F.softmax(x, -1)),
    (lambda x: ops.softmax(x, 0), lambda x: F.softmax(x, 0)),
    (ops.log_softmax, lambda x: F.log_softmax(x, -1)),
    (ops.softmin, lambda x: F.softmin(x, -1)),
]


@pytest.mark.parametrize("k", range(len(ACTIVATIONS)))
def test_activation_matches_torch(backend, k):
    ours, theirs = ACTIVATIONS[k]
    check_against_torch(ours, theirs, X)


def test_prelu_matches_torch(backend):
    x = np.random.default_rng(1).uniform(-2, 2, (2, 3, 4))
    w = np.array([0.1, 0.25, -0.3])
    check_against_torch(ops.prelu, F.prelu, x, w)


@needs("Sigmoid", "Tanh", "Split")
def test_math_backed_activations_match_torch(backend):
    check_against_torch(ops.sigmoid, torch.sigmoid, X)
    check_against_torch(ops.tanh, torch.tanh, X)
    check_against_torch(ops.glu, lambda x: F.glu(x, -1), X[:, :4])
    check_against_torch(lambda x: ops.glu(x, 0), lambda x: F.glu(x, 0), X[:2])


def test_gelu_matches_mindspore_doc_values(backend):
    x = ms.Tensor([1.0, 2.0, 3.0], ms.float32)
    assert_close(ops.gelu(x), [0.8413447, 1.9544997, 2.9959505], rtol=1e-6)
    assert_close(ops.gelu(x, approximate="tanh"), [0.841192, 1.9545976, 2.9963627], rtol=1e-6)
    assert_close(ms.ops.GeLU()(x), [0.841192, 1.9545976, 2.9963627], rtol=1e-6)


def test_erf_kernel_is_accurate():
    from openspore.ops.defs.activation_smooth import np_erf
    x = np.linspace(-7, 7, 4001)
    np.testing.assert_allclose(np_erf(np, x), [math.erf(v) for v in x], rtol=0, atol=2e-15)


def test_softmax_is_stable_for_large_logits(backend):
    x = ms.Tensor([[1000.0, 1001.0, -1000.0]], ms.float32)
    assert_close(ops.softmax(x), [[1 / (1 + math.e), math.e / (1 + math.e), 0.0]], rtol=1e-6)
    assert np.isfinite(ops.log_softmax(x).asnumpy()).all()
    assert_close(ops.softplus(ms.Tensor([100.0, -100.0])), [100.0, 0.0], atol=1e-6)


def test_softmax_dtype_and_tuple_axis(backend):
    x = np.random.default_rng(2).standard_normal((2, 3, 2))
    out = ops.softmax(ms.Tensor(x, ms.float32), dtype=ms.float64)
    assert out.dtype == ms.float64
    both = ms.ops.Softmax(axis=(0, 2))(ms.Tensor(x))
    e = np.exp(x)
    assert_close(both, e / e.sum(axis=(0, 2), keepdims=True))


def test_activation_errors():
    with pytest.raises(ValueError, match="approximate"):
        ops.gelu(ms.Tensor([1.0]), approximate="fast")
    with pytest.raises(TypeError, match="For 'ReLU6'"):
        ops.relu6(ms.Tensor([True, False]))
    with pytest.raises(ValueError, match="For 'PReLU'"):
        ops.prelu(ms.Tensor(np.ones((2, 3), np.float32)), ms.Tensor(np.ones((4,), np.float32)))
    with pytest.raises(ValueError, match="For 'CeLU', 'alpha' must not be 0"):
        ms.ops.CeLU(alpha=0.0)


def test_relu_on_integers(backend):
    out = ops.relu(ms.Tensor([-2, 0, 5], ms.int32))
    assert out.dtype == ms.int32
    assert out.asnumpy().tolist() == [0, 0, 5]


# ---- cross-entropy and NLL -----------------------------------------------------------------------------------
def test_cross_entropy_mindspore_example(backend):
    logits = ms.Tensor([[2.0, 1.0], [0.5, 0.5]], ms.float32)
    assert_close(ops.cross_entropy(logits, ms.Tensor([0, 1], ms.int32)), 0.5032, atol=1e-4)
    assert_close(ops.cross_entropy(logits, ms.Tensor([[1.0, 0.0], [0.0, 1.0]])), 0.5032, atol=1e-4)
    loss, backprop = ms.ops.SoftmaxCrossEntropyWithLogits()(logits, ms.Tensor([[1.0, 0.0], [0.0, 1.0]]))
    assert_close(loss.sum() * 0.5, 0.5032, atol=1e-4)
    assert_close(loss, [0.31326169, 0.69314718], rtol=1e-6)
    p = np.exp([[2.0, 1.0]]) / np.exp([[2.0, 1.0]]).sum()
    assert_close(backprop, [[p[0, 0] - 1, p[0, 1]], [0.5, -0.5]], rtol=1e-6)
    sparse = ms.ops.SparseSoftmaxCrossEntropyWithLogits()(logits, ms.Tensor([0, 1], ms.int32))
    assert sparse.shape == ()
    assert_close(sparse, 0.5032, atol=1e-4)


CE_CASES = [
    dict(),
    dict(reduction="sum"),
    dict(reduction="none"),
    dict(weight=np.array([0.2, 1.0, 3.0, 0.5])),
    dict(ignore_index=2),
    dict(weight=np.array([0.2, 1.0, 3.0, 0.5]), ignore_index=1, reduction="sum"),
]


@pytest.mark.parametrize("case", range(len(CE_CASES)))
def test_cross_entropy_class_indices_matches_torch(backend, case):
    kw = dict(CE_CASES[case])
    weight = kw.pop("weight", None)
    x = np.random.default_rng(case).standard_normal((5, 4))
    target = np.array([0, 2, 1, 3, 2])

    def ours(logits):
        w = ms.Tensor(weight) if weight is not None else None
        return ops.cross_entropy(logits, ms.Tensor(target, ms.int32), w, **kw)

    def theirs(logits):
        w = torch.tensor(weight) if weight is not None else None
        return F.cross_entropy(logits, torch.tensor(target), w, **kw)
    check_against_torch(ours, theirs, x)


def test_cross_entropy_spatial_and_probabilities_match_torch(backend):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 3, 4))
    target = rng.integers(0, 3, (2, 4))
    check_against_torch(lambda a: ops.cross_entropy(a, ms.Tensor(target)),
                        lambda a: F.cross_entropy(a, torch.tensor(target)), x)
    probs = rng.uniform(0, 1, (4, 3))
    probs /= probs.sum(1, keepdims=True)
    weight = np.array([0.5, 2.0, 1.0])
    y = rng.standard_normal((4, 3))
    for kw in (dict(), dict(reduction="sum"), dict(label_smoothing=0.2)):
        check_against_torch(lambda a: ops.cross_entropy(a, ms.Tensor(probs), ms.Tensor(weight), **kw),
                            lambda a: F.cross_entropy(a, torch.tensor(probs), torch.tensor(weight), **kw), y)


def test_cross_entropy_label_smoothing_with_indices(backend):
    rng = np.random.default_rng(6)
    x = rng.standard_normal((5, 4))
    target = np.array([0, 2, 1, 3, 2])
    for kw in (dict(reduction="none"), dict(reduction="sum", ignore_index=2)):
        check_against_torch(lambda a: ops.cross_entropy(a, ms.Tensor(target), label_smoothing=0.1, **kw),
                            lambda a: F.cross_entropy(a, torch.tensor(target), label_smoothing=0.1, **kw), x)


@needs("RealDiv")
def test_cross_entropy_label_smoothing_mean(backend):
    rng = np.random.default_rng(7)
    x = rng.standard_normal((5, 4))
    target = np.array([0, 2, 1, 3, 2])
    weight = np.array([0.2, 1.0, 3.0, 0.5])
    check_against_torch(
        lambda a: ops.cross_entropy(a, ms.Tensor(target), ms.Tensor(weight), ignore_index=1, label_smoothing=0.3),
        lambda a: F.cross_entropy(a, torch.tensor(target), torch.tensor(weight), ignore_index=1, label_smoothing=0.3),
        x)


def test_nll_loss_matches_torch_including_weight_gradient(backend):
    rng = np.random.default_rng(8)
    logp = np.log(rng.uniform(0.05, 1, (6, 3)))
    target = np.array([0, 2, 1, 1, -100, 2])
    weight = np.array([0.5, 2.0, 1.5])
    valid = torch.tensor(target != -100, dtype=torch.float64)
    safe = torch.tensor(np.where(target == -100, 0, target))

    def reference(a, w, reduction):  # written out: torch's nll_loss does not differentiate its weight
        picked_w = w[safe] * valid
        loss = -picked_w * a.gather(1, safe[:, None])[:, 0]
        return {"none": loss, "sum": loss.sum(), "mean": loss.sum() / picked_w.sum()}[reduction]
    for reduction in ("mean", "sum", "none"):
        check_against_torch(lambda a, w: ops.nll_loss(a, ms.Tensor(target), w, reduction=reduction),
                            lambda a, w: reference(a, w, reduction), logp, weight)
        assert_close(ops.nll_loss(ms.Tensor(logp), ms.Tensor(target), ms.Tensor(weight), reduction=reduction),
                     F.nll_loss(torch.tensor(logp), torch.tensor(target), torch.tensor(weight),
                                reduction=reduction).numpy())
    single = ops.nll_loss(ms.Tensor(logp[0]), ms.Tensor(np.array(2)), reduction="none")
    assert single.shape == () and abs(float(single.asnumpy()) + logp[0, 2]) < 1e-12


def test_nll_loss_rejects_out_of_range_labels(backend):
    with pytest.raises(ValueError, match=r"For 'NLLLoss', every label must be in \[0, 3\), but got 5"):
        ops.nll_loss(ms.Tensor(np.zeros((2, 3), np.float32)), ms.Tensor([0, 5], ms.int32))
    with pytest.raises(ValueError, match="reduction"):
        ops.cross_entropy(ms.Tensor(np.zeros((2, 3), np.float32)), ms.Tensor([0, 1], ms.int32), reduction="avg")


# ---- other losses -------------------------------------------------------------------------------------------
def test_regression_losses_match_torch(backend):
    rng = np.random.default_rng(9)
    a, b = rng.standard_normal((3, 4)) * 2, rng.standard_normal((3, 4)) * 2
    check_against_torch(ops.mse_loss, F.mse_loss, a, b)
    check_against_torch(lambda x, y: ops.mse_loss(x, y, "none"), lambda x, y: F.mse_loss(x, y, reduction="none"), a, b)
    for beta, red in ((1.0, "none"), (0.5, "mean"), (2.0, "sum")):
        check_against_torch(lambda x, y: ops.smooth_l1_loss(x, y, beta, red),
                            lambda x, y: F.smooth_l1_loss(x, y, reduction=red, beta=beta), a, b)
    check_against_torch(lambda x, y: ops.huber_loss(x, y, delta=0.7),
                        lambda x, y: F.huber_loss(x, y, delta=0.7), a, b)


@needs("Abs")
def test_l1_loss_matches_torch(backend):
    rng = np.random.default_rng(10)
    check_against_torch(ops.l1_loss, F.l1_loss, rng.standard_normal((3, 4)), rng.standard_normal((3, 4)))


def test_binary_losses_match_torch(backend):
    rng = np.random.default_rng(11)
    p, y = rng.uniform(0.05, 0.95, (3, 4)), rng.uniform(0, 1, (3, 4))
    w, pw = rng.uniform(0.5, 2, (3, 4)), rng.uniform(0.5, 2, (4,))
    logits = rng.standard_normal((3, 4)) * 3
    check_against_torch(ops.binary_cross_entropy, F.binary_cross_entropy, p, y)
    check_against_torch(lambda a, b, c: ops.binary_cross_entropy(a, b, c, "sum"),
                        lambda a, b, c: -(c * (b * torch.log(a) + (1 - b) * torch.log1p(-a))).sum(), p, y, w)
    assert_close(ops.binary_cross_entropy(ms.Tensor(p), ms.Tensor(y), ms.Tensor(w), "none"),
                 F.binary_cross_entropy(torch.tensor(p), torch.tensor(y), torch.tensor(w), reduction="none").numpy())
    check_against_torch(ops.binary_cross_entropy_with_logits, F.binary_cross_entropy_with_logits, logits, y)
    check_against_torch(  # written out: torch does not differentiate weight and pos_weight
        lambda a, b, c, d: ops.binary_cross_entropy_with_logits(a, b, c, d, "none"),
        lambda a, b, c, d: c * (d * b * F.softplus(-a) + (1 - b) * F.softplus(a)), logits, y, w, pw)
    assert_close(ops.binary_cross_entropy_with_logits(ms.Tensor(logits), ms.Tensor(y), ms.Tensor(w), ms.Tensor(pw)),
                 F.binary_cross_entropy_with_logits(torch.tensor(logits), torch.tensor(y), torch.tensor(w),
                                                    pos_weight=torch.tensor(pw)).numpy())


def test_kl_div_matches_torch(backend):
    rng = np.random.default_rng(12)
    logp, target = np.log(rng.uniform(0.05, 1, (3, 4))), rng.uniform(0.05, 1, (3, 4))
    for red in ("sum", "none", "batchmean"):
        check_against_torch(lambda a, b: ops.kl_div(a, b, red), lambda a, b: F.kl_div(a, b, reduction=red),
                            logp, target)
    mean = ops.kl_div(ms.Tensor(logp), ms.Tensor(target))  # 'mean' averages over every element
    assert_close(mean, (target * (np.log(target) - logp)).mean())
    target[0, 1] = 0.0
    assert_close(ops.kl_div(ms.Tensor(logp), ms.Tensor(target), "sum"),
                 F.kl_div(torch.tensor(logp), torch.tensor(target), reduction="sum").numpy())


def test_margin_losses_match_torch(backend):
    rng = np.random.default_rng(13)
    a, b = rng.standard_normal((6,)), rng.standard_normal((6,))
    sign = np.array([1.0, -1.0, 1.0, 1.0, -1.0, -1.0])
    check_against_torch(lambda x, y: ops.margin_ranking_loss(x, y, ms.Tensor(sign), 0.3),
                        lambda x, y: F.margin_ranking_loss(x, y, torch.tensor(sign), 0.3), a, b)
    check_against_torch(lambda x: ops.soft_margin_loss(x, ms.Tensor(sign)),
                        lambda x: F.soft_margin_loss(x, torch.tensor(sign)), a)


@needs("Sqrt", "RealDiv", "Maximum")
def test_cosine_losses_match_torch(backend):
    rng = np.random.default_rng(14)
    a, b = rng.standard_normal((4, 5)), rng.standard_normal((4, 5))
    sign = np.array([1, -1, 1, -1])
    check_against_torch(ops.cosine_similarity, F.cosine_similarity, a, b)
    check_against_torch(lambda x, y: ops.cosine_embedding_loss(x, y, ms.Tensor(sign), 0.1),
                        lambda x, y: F.cosine_embedding_loss(x, y, torch.tensor(sign), 0.1), a, b, rtol=1e-4)


# ---- second-order gradients of this family's primitives ------------------------------------------------------
_FAMILY = ("activation", "activation_smooth", "softmax", "loss", "loss_nll")
SECOND_ORDER = [(name, k, cls, s) for name, cls in PRIMITIVES.items()
                if cls.__module__.rsplit(".", 1)[-1] in _FAMILY and cls.differentiable
                for k, s in enumerate(cls.samples(np.random.default_rng(0))) if grad_indices(cls, s)]


@pytest.mark.parametrize("name,k,cls,sample", SECOND_ORDER, ids=[f"{n}-{k}" for n, k, _, _ in SECOND_ORDER])
def test_second_order_gradient_matches_finite_differences(name, k, cls, sample):
    """grad of <v, grad f> (built by differentiating the backward rules) vs central differences of <v, grad f>."""
    use_backend("numpy")
    idx = grad_indices(cls, sample)
    args = to_args(sample.args, upcast=True)
    prim = cls(**sample.attrs)
    rng = np.random.default_rng(1)
    cots = [rng.standard_normal(o.shape) if o.dtype.kind == "float" else None for o in as_tuple(prim(*args))]
    vs = [rng.standard_normal(args[i].shape) for i in idx]

    def f(*diff):
        full = list(args)
        for i, a in zip(idx, diff):
            full[i] = a
        terms = [(r * ms.Tensor(c)).sum() for r, c in zip(as_tuple(prim(*full)), cots) if c is not None]
        return terms[0] if len(terms) == 1 else sum(terms[1:], terms[0])

    def directional(*diff):
        grads = as_tuple(ms.grad(f, grad_position=tuple(range(len(idx))))(*diff))
        terms = [(g * ms.Tensor(v)).sum() for g, v in zip(grads, vs)]
        return sum(terms[1:], terms[0])

    point = [args[i] for i in idx]
    analytic = as_tuple(ms.grad(directional, grad_position=tuple(range(len(idx))))(*point))
    eps = 1e-6
    for j, (a, base) in enumerate(zip(analytic, point)):
        flat = base.asnumpy().astype(np.float64).reshape(-1)
        numeric = np.zeros_like(flat)
        for e in range(flat.size):
            vals = []
            for delta in (eps, -eps):
                moved = flat.copy()
                moved[e] += delta
                shifted = list(point)
                shifted[j] = ms.Tensor(moved.reshape(base.shape))
                vals.append(float(directional(*shifted).asnumpy()))
            numeric[e] = (vals[0] - vals[1]) / (2 * eps)
        np.testing.assert_allclose(a.asnumpy().reshape(-1), numeric, rtol=1e-4, atol=1e-5,
                                   err_msg=f"{name}: second-order gradient of input {idx[j]}")
