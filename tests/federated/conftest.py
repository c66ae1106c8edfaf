"""Shared set-up for the federated tests: a small MLP training model (.ms) exported once per session, per-client
digits data, and servers started on 127.0.0.1 ephemeral ports."""
import os
import threading

import numpy as np
import pytest

BATCH = 8


@pytest.fixture(scope="session")
def mlp_model(tmp_path_factory):
    """(path of the .ms training model, initial weights): Dense(64,16)-ReLU-Dense(16,10), Momentum(0.1, 0.9)."""
    import openspore as ms
    from openspore import nn
    from openspore.federated.export import export_client_model

    class MLP(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Dense(64, 16)
            self.relu = nn.ReLU()
            self.fc2 = nn.Dense(16, 10)

        def construct(self, x):
            return self.fc2(self.relu(self.fc1(x)))

    ms.set_seed(3)
    x = np.zeros((BATCH, 64), np.float32)
    y = np.zeros(BATCH, np.int32)
    path = os.path.join(str(tmp_path_factory.mktemp("fl_model")), "mlp_train.ms")
    return export_client_model(MLP(), x, y, path, lr=0.1, momentum=0.9)


@pytest.fixture(scope="session")
def digits_parts():
    """Ten clients' (x, y) of scikit-learn's 8x8 digits, 11..38 samples each (different data sizes)."""
    from sklearn.datasets import load_digits
    d = load_digits()
    x = (d.data / 16.0).astype(np.float32)
    y = d.target.astype(np.int32)
    parts, start = [], 0
    for k in range(10):
        n = 11 + 3 * k
        parts.append((x[start:start + n], y[start:start + n]))
        start += n
    return parts


def run_clients(clients, stop_after=None, iterations=1):
    """Run each client's iterations in its own thread; returns the statuses per client."""
    results = [[] for _ in clients]
    errors = []

    def go(k, c):
        try:
            for _ in range(iterations):
                results[k].append(c.run_iteration(stop_after=(stop_after or {}).get(c.fl_id)))
        except Exception as e:  # surfaced by the caller
            errors.append((c.fl_id, e))

    threads = [threading.Thread(target=go, args=(k, c)) for k, c in enumerate(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    if errors:
        raise errors[0][1]
    return results
