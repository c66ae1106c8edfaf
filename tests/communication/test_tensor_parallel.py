"""Megatron-style tensor-parallel transformer blocks (openspore.parallel.nn) over 2 and 4 real processes
train exactly like one process; each rank stores only its slices; one AllReduce per sub-block forward and one
backward."""
import numpy as np
import pytest

from .launch import run_workers
from tests.conftest import child_env


def _load(path):
    with np.load(path) as f:
        return dict(f)


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    out = tmp_path_factory.mktemp("tp1")
    counts = run_workers("worker_tensor_parallel.py", 1, out, env_for=lambda rank, size, port: child_env())
    assert counts[0] == {"forward": 0, "forward_backward": 0}  # one process: no communication
    ref = _load(out / "tp_1_0.npz")
    assert ref["pynative_loss"][-1] < ref["pynative_loss"][0]
    return ref


@pytest.mark.parametrize("size", [2, 4])
def test_transformer_blocks_match_one_process(size, reference, tmp_path):
    counts = run_workers("worker_tensor_parallel.py", size, tmp_path)
    # 2 blocks x (attention, MLP): 4 AllReduce forward, 4 more backward
    assert all(c == {"forward": 4, "forward_backward": 8} for c in counts), counts
    for rank in range(size):
        got = _load(tmp_path / f"tp_{size}_{rank}.npz")
        for mode in ("pynative", "graph"):
            np.testing.assert_allclose(got[f"{mode}_loss"], reference[f"{mode}_loss"], rtol=0, atol=1e-5)
            for key in [k for k in reference if k.startswith(f"{mode}_") and k != f"{mode}_loss"]:
                np.testing.assert_allclose(got[key], reference[key], rtol=0, atol=1e-5, err_msg=f"rank {rank} {key}")
            shapes = {k[len(f"shape_{mode}_"):]: tuple(v) for k, v in got.items() if k.startswith(f"shape_{mode}_")}
            assert shapes["0.attention.query.weight"] == (8 // size, 8)      # its heads' rows
            assert shapes["0.attention.dense.weight"] == (8, 8 // size)      # the matching input columns
            assert shapes["1.mlp.mapping.weight"] == (16 // size, 8)
            assert shapes["1.mlp.mapping.bias"] == (16 // size,)
            assert shapes["1.mlp.projection.weight"] == (8, 16 // size)
            assert shapes["1.layernorm1.gamma"] == (8,)                      # replicated
            local, full = got[f"bytes_{mode}"]
            assert full == reference[f"bytes_{mode}"][0]
            sharded = 2 * 4 * (4 * 64 + 3 * 8 + 2 * 128 + 16)  # weights and column biases split over the ranks
            assert local == full - sharded + sharded // size
