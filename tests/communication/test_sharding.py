"""Operator-level sharding (semi_auto_parallel) over 2 and 4 real processes equals the single-process run:
losses and integrated weights after 5 Momentum steps, PyNative and GRAPH_MODE; every rank stores only its
slices (weights and optimizer state), and bad strategies are refused clearly."""
import numpy as np
import pytest

import openspore as ms
from openspore import ops

from .launch import run_workers
from tests.conftest import child_env

# size -> the shapes each rank stores (see worker_shard.STRATEGIES)
SLICES = {2: {"w1": (3, 8), "b1": (4,), "w2": (8, 4)},
          4: {"w1": (3, 8), "b1": (4,), "w2": (2, 4)}}
FULL = {"w1": (6, 8), "b1": (8,), "w2": (8, 4)}


def _load(path):
    with np.load(path) as f:
        return dict(f)


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    out = tmp_path_factory.mktemp("shard1")
    run_workers("worker_shard.py", 1, out, env_for=lambda rank, size, port: child_env())
    ref = _load(out / "shard_1_0.npz")
    assert ref["pynative_loss"][-1] < ref["pynative_loss"][0]  # it trains
    return ref


@pytest.mark.parametrize("size", [2, 4])
def test_sharded_mlp_matches_one_process(size, reference, tmp_path):
    run_workers("worker_shard.py", size, tmp_path)
    for rank in range(size):
        got = _load(tmp_path / f"shard_{size}_{rank}.npz")
        for mode in ("pynative", "graph"):
            np.testing.assert_allclose(got[f"{mode}_loss"], reference[f"{mode}_loss"], rtol=0, atol=1e-6)
            for name, full_shape in FULL.items():
                np.testing.assert_allclose(got[f"{mode}_{name}"], reference[f"{mode}_{name}"], rtol=0, atol=1e-6,
                                           err_msg=f"rank {rank} {mode}: {name}")
                assert tuple(reference[f"shape_{mode}_{name}"]) == full_shape
                assert tuple(got[f"shape_{mode}_{name}"]) == SLICES[size][name], (rank, mode, name)
                # the optimizer's momentum is sliced with its parameter
                assert tuple(got[f"shape_{mode}_moments.{name}"]) == SLICES[size][name], (rank, mode, name)
            for key in [k for k in reference if k.startswith((f"{mode}_cell", f"{mode}_fn"))]:
                np.testing.assert_allclose(got[key], reference[key], rtol=0, atol=1e-6, err_msg=f"rank {rank} {key}")
            assert got[f"rows_seen_{mode}"][0] == (4 if size == 1 else 2)  # each rank ran on its batch block
            local, full = got[f"bytes_{mode}"]
            assert full == 4 * (48 + 8 + 32)
            assert local == 4 * sum(int(np.prod(s)) for s in SLICES[size].values())


def test_shard_checks_the_strategy():
    with pytest.raises(TypeError, match="tuple of tuples"):
        ops.MatMul().shard([[1, 2], [2, 1]])
    mm = ops.MatMul().shard(((1, 2), (2, 1)))
    assert mm.in_strategy == ((1, 2), (2, 1))
    x = ms.Tensor(np.ones((2, 2), np.float32))
    np.testing.assert_allclose(mm(x, x).asnumpy(), np.full((2, 2), 2.0))  # stand-alone: shard is ignored


def test_device_matrix_groups():
    from openspore.parallel._layout import DeviceMatrix, block_slices
    dm = DeviceMatrix([2, 1], world_size=4)  # repeated twice
    assert dm.shape == (2, 2, 1)
    assert dm.partition([1]) == [[0, 1], [2, 3]]
    assert dm.partition([0]) == [[0, 2], [1, 3]]
    assert block_slices((6, 8), (2, 1), (1, 0)) == (slice(3, 6), slice(0, 8))
    with pytest.raises(ValueError, match="divide the 4 devices"):
        DeviceMatrix([3], world_size=4)
    with pytest.raises(ValueError, match="cannot be split into 4"):
        block_slices((6,), (4,), (0,))
