"""Differential privacy for uploads: DP_ENCRYPT (clip + Gaussian noise, with an accountant) and SIGNDS.

DP_ENCRYPT, on the device: the update Δ = w_local − w_global is clipped to L2 norm `dp_norm_clip` and Gaussian
noise N(0, σ²) is added, σ = dp_norm_clip · √(2 ln(1.25/δ)) / ε per coordinate (the Gaussian mechanism
calibrated to `dp_eps`, `dp_delta`); the device uploads w_global + clipped Δ + noise.

The server's accountant tracks the privacy loss of one device over the rounds it may take part in, by Rényi DP
of the Gaussian mechanism (noise multiplier z = σ / clip): ε_RDP(α) = k α / (2 z²) after k rounds, converted to
(ε, δ) as min over α of ε_RDP(α) + ln(1/δ) / (α − 1). It reports that ε for one round and for all rounds so far.
(The classical σ formula is only proven for ε < 1; the accountant's figure is the one to trust.)

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> noisy = dp_perturb({"w": np.ones(4, np.float32)}, {"w": np.zeros(4, np.float32)}, 1.0, 0.01, 50.0, rng)
>>> noisy["w"].shape
(4,)
"""
import math

import numpy as np

from .wire import WireError


def dp_sigma(norm_clip, delta, eps):
    return norm_clip * math.sqrt(2 * math.log(1.25 / delta)) / eps


def dp_perturb(local, global_weights, norm_clip, delta, eps, rng):
    names = sorted(local)
    diff = {k: np.asarray(local[k], np.float64) - global_weights[k] for k in names}
    norm = math.sqrt(sum(float((d * d).sum()) for d in diff.values()))
    factor = min(1.0, norm_clip / norm) if norm > 0 else 1.0
    sigma = dp_sigma(norm_clip, delta, eps)
    return {k: (global_weights[k] + diff[k] * factor + rng.normal(0.0, sigma, diff[k].shape)).astype(np.float32)
            for k in names}


def rdp_epsilon(rounds, z, delta):
    if rounds == 0:
        return 0.0
    orders = np.concatenate([np.linspace(1.01, 10, 200), np.arange(11, 512)])
    eps = rounds * orders / (2 * z * z) + math.log(1 / delta) / (orders - 1)
    return float(eps.min())


class GaussianAccountant:
    """ε of the Gaussian mechanism per round and composed over the finished rounds (RDP)."""

    def __init__(self, ctx):
        self.delta = ctx.dp_delta
        self.z = dp_sigma(ctx.dp_norm_clip, ctx.dp_delta, ctx.dp_eps) / ctx.dp_norm_clip
        self.rounds = 0

    def step(self):
        self.rounds += 1

    def report(self):
        return {"dp_sigma_over_clip": self.z, "dp_eps_round": rdp_epsilon(1, self.z, self.delta),
                "dp_eps_total": rdp_epsilon(self.rounds, self.z, self.delta), "dp_delta": self.delta}


# ---- SIGNDS ---------------------------------------------------------------------------------------------
def signds_encode(local, global_weights, ctx, rng):
    """A SignDS-style upload: one random sign s and the indices of k = sign_k · n dimensions, chosen by an
    exponential mechanism (budget `sign_eps`) that favours dimensions among the top-k of the update whose sign is
    s; the server moves the chosen dimensions by ±`sign_global_lr`."""
    names = sorted(global_weights)
    diff = np.concatenate([(np.asarray(local[k], np.float64) - global_weights[k]).ravel() for k in names])
    n = diff.size
    k = max(1, int(round(ctx.sign_k * n)))
    sign = bool(rng.integers(2))
    signed = diff if sign else -diff
    top = np.argsort(-signed)[:k]
    good = np.zeros(n, bool)
    good[top[signed[top] > 0]] = True
    # exponential mechanism over "good" vs other dimensions: weight e^{ε/(2k)} for good ones
    w = np.where(good, math.exp(min(ctx.sign_eps / (2 * k) * ctx.sign_thr_ratio * 10, 50)), 1.0)
    chosen = rng.choice(n, size=k, replace=False, p=w / w.sum())
    return {"sign": sign, "index_array": [int(i) for i in np.sort(chosen)]}


def signds_decode(msg, size, where):
    sign = msg.get("sign")
    idx = msg.get("index_array")
    if not isinstance(sign, bool) or not isinstance(idx, list):
        raise WireError(f"{where}: SIGNDS uploads carry sign (bool) and index_array (list of int)")
    arr = np.asarray(idx, dtype=np.int64) if idx else np.zeros(0, np.int64)
    if arr.ndim != 1 or arr.size > size or (arr.size and (arr.min() < 0 or arr.max() >= size)):
        raise WireError(f"{where}: index_array must hold at most {size} indices in [0, {size})")
    if len(np.unique(arr)) != arr.size:
        raise WireError(f"{where}: index_array repeats an index")
    votes = np.zeros(size, np.float64)
    votes[arr] = 1.0 if sign else -1.0
    return votes


def signds_apply(global_weights, votes, count, ctx):
    """The new model: each dimension moves by sign_global_lr × the mean vote over the uploads."""
    names = sorted(global_weights)
    step = ctx.sign_global_lr * votes / max(count, 1)
    out, offset = {}, 0
    for k in names:
        n = global_weights[k].size
        out[k] = global_weights[k].astype(np.float64) + step[offset:offset + n].reshape(global_weights[k].shape)
        offset += n
    return out
