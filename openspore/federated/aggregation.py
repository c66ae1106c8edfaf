"""Server-side aggregation of one iteration's uploads into the next global model.

`WeightedSum` accumulates as the uploads arrive (no per-client copy is kept, so memory does not grow with the
number of participants); `finish` turns the sum into the new global model by the job's rule:

* FedAvg: Σ n_k w_k / Σ n_k (weighted by each client's data size);
* FedAdam (Reddi et al. 2021): the FedAvg result minus the current model is a pseudo-gradient fed to Adam
  on the server;
* FedProx: aggregated as FedAvg; its proximal term acts on the devices (the client adds μ(w − w_global)).

>>> import numpy as np
>>> s = WeightedSum({"w": np.zeros(2, np.float32)})
>>> s.add({"w": np.array([1, 1], np.float32)}, 1); s.add({"w": np.array([4, 7], np.float32)}, 2)
>>> FedAvg().finish({"w": np.zeros(2, np.float32)}, s.average())["w"]
array([3., 5.], dtype=float32)
"""
import numpy as np


class WeightedSum:
    """Σ data_size · weights in float64, plus Σ data_size."""

    def __init__(self, like):
        self.sums = {k: np.zeros(np.shape(v), np.float64) for k, v in like.items()}
        self.total = 0
        self.count = 0

    def add(self, weights, data_size):
        for k, v in weights.items():
            self.sums[k] += np.asarray(v, np.float64) * data_size
        self.total += data_size
        self.count += 1

    def add_presummed(self, sums, total, count):
        """Sums that already carry the data-size weights (secure aggregation unmasks the whole sum at once)."""
        for k, v in sums.items():
            self.sums[k] += v
        self.total += total
        self.count += count

    def average(self):
        if self.total <= 0:
            raise ValueError("WeightedSum.average: no data was aggregated.")
        return {k: v / self.total for k, v in self.sums.items()}


class FedAvg:
    name = "FedAvg"

    def finish(self, current, average):
        return {k: average[k].astype(current[k].dtype) for k in current}

    def state(self):
        return {}

    def load_state(self, state):
        pass


class FedAdam:
    name = "FedAdam"

    def __init__(self, lr=0.01, beta1=0.9, beta2=0.99, tau=1e-3):
        self.lr, self.beta1, self.beta2, self.tau = lr, beta1, beta2, tau
        self.m, self.v = {}, {}

    def finish(self, current, average):
        out = {}
        for k, w in current.items():
            delta = average[k] - w.astype(np.float64)
            self.m[k] = self.beta1 * self.m.get(k, 0.0) + (1 - self.beta1) * delta
            self.v[k] = self.beta2 * self.v.get(k, 0.0) + (1 - self.beta2) * delta * delta
            out[k] = (w + self.lr * self.m[k] / (np.sqrt(self.v[k]) + self.tau)).astype(w.dtype)
        return out

    def state(self):
        return {**{f"m/{k}": v for k, v in self.m.items()}, **{f"v/{k}": v for k, v in self.v.items()}}

    def load_state(self, state):
        self.m = {k[2:]: v for k, v in state.items() if k.startswith("m/")}
        self.v = {k[2:]: v for k, v in state.items() if k.startswith("v/")}


def make_aggregator(ctx):
    if ctx.aggregation_type == "FedAdam":
        return FedAdam(ctx.fedadam_lr, ctx.fedadam_beta1, ctx.fedadam_beta2, ctx.fedadam_tau)
    return FedAvg()  # FedProx aggregates as FedAvg; its proximal term is applied on the devices
