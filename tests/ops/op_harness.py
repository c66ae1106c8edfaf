"""Runs one primitive sample under a backend, in float64 for references, and numerically differentiates it."""
import numpy as np

import openspore as ms
from openspore.core.primitive import PRIMITIVES
from openspore.core.tensor import Tensor
from tests.device import use_backend


def is_float_array(a):
    return isinstance(a, np.ndarray) and a.dtype.kind == "f"


def to_args(args, upcast=False):
    out = []
    for a in args:
        if isinstance(a, np.ndarray):
            if upcast and a.dtype.kind == "f":
                a = a.astype(np.float64)
            out.append(Tensor(a))
        elif isinstance(a, (list, tuple)) and a and isinstance(a[0], np.ndarray):
            out.append(type(a)(Tensor(x.astype(np.float64) if upcast and x.dtype.kind == "f" else x) for x in a))
        else:
            out.append(a)
    return out


def as_tuple(out):
    return out if isinstance(out, tuple) else (out,)


def run(prim_cls, sample, backend, upcast=False, seed=1234):
    use_backend(backend)
    ms.set_seed(seed)
    prim = prim_cls(**sample.attrs)
    return prim(*to_args(sample.args, upcast))


def numpy_outputs(out):
    return [o.asnumpy() for o in as_tuple(out)]


def grad_indices(prim_cls, sample):
    if sample.grad is not None:
        return tuple(sample.grad)
    return tuple(i for i, a in enumerate(sample.args) if is_float_array(a))


def vjp_numpy64(prim_cls, sample, cotangent_seed=7):
    """Analytic input gradients (float64, numpy backend) for a random cotangent; returns (grads, cotangents)."""
    use_backend("numpy")
    idx = grad_indices(prim_cls, sample)
    args = to_args(sample.args, upcast=True)
    prim = prim_cls(**sample.attrs)
    ms.set_seed(1234)
    out = prim(*args)
    rng = np.random.default_rng(cotangent_seed)
    cots = [rng.standard_normal(o.shape) if o.dtype.kind == "float" else None for o in as_tuple(out)]

    def f(*diff_args):
        full = list(args)
        for i, a in zip(idx, diff_args):
            full[i] = a
        ms.set_seed(1234)
        res = as_tuple(prim(*full))
        total = None
        for r, c in zip(res, cots):
            if c is None:
                continue
            term = (r * Tensor(c.astype(np.float64))).sum()
            total = term if total is None else total + term
        return total

    grads = ms.grad(f, grad_position=tuple(range(len(idx))))(*[args[i] for i in idx])
    grads = grads if isinstance(grads, tuple) else (grads,)  # MindSpore unwraps a one-element position tuple
    return [g.asnumpy() for g in grads], cots, idx


def numeric_grad(prim_cls, sample, cots, idx, eps=1e-6):
    use_backend("numpy")
    base = [a.astype(np.float64) if is_float_array(a) else a for a in sample.args]
    prim = prim_cls(**sample.attrs)

    def value(arrs):
        ms.set_seed(1234)
        res = as_tuple(prim(*to_args(arrs)))
        return sum(float((r.asnumpy() * c).sum()) for r, c in zip(res, cots) if c is not None)

    grads = []
    for i in idx:
        x = base[i]
        g = np.zeros_like(x)
        flat = x.reshape(-1)
        for j in range(flat.size):
            old = flat[j]
            flat[j] = old + eps
            plus = value(base)
            flat[j] = old - eps
            minus = value(base)
            flat[j] = old
            g.reshape(-1)[j] = (plus - minus) / (2 * eps)
        grads.append(g)
    return grads


def all_samples():
    rng_seed = 0
    out = []
    for name, cls in PRIMITIVES.items():
        rng = np.random.default_rng(rng_seed)
        for k, sample in enumerate(cls.samples(rng)):
            out.append((name, k, cls, sample))
    return out
