"""Operator-level sharding (semi_auto_parallel) over 2 real processes equals the single-process run: losses and
weights after 5 steps, PyNative and GRAPH_MODE; and bad strategies are refused clearly."""
import numpy as np
import pytest

import openspore as ms
from openspore import ops

from .launch import run_workers
from tests.conftest import child_env


def test_sharded_mlp_matches_one_process(tmp_path):
    run_workers("worker_shard.py", 1, tmp_path, env_for=lambda rank, size, port: child_env())
    run_workers("worker_shard.py", 2, tmp_path)
    with np.load(tmp_path / "shard_1_0.npz") as f:
        ref = dict(f)
    assert ref["pynative_loss"][-1] < ref["pynative_loss"][0]  # it trains
    for rank in (0, 1):
        with np.load(tmp_path / f"shard_2_{rank}.npz") as f:
            got = dict(f)
        assert got.keys() == ref.keys()
        for key in ref:
            np.testing.assert_allclose(got[key], ref[key], rtol=0, atol=1e-6, err_msg=f"rank {rank}: {key}")


def test_shard_checks_the_strategy():
    with pytest.raises(TypeError, match="tuple of tuples"):
        ops.MatMul().shard([[1, 2], [2, 1]])
    mm = ops.MatMul().shard(((1, 2), (2, 1)))
    assert mm.in_strategy == ((1, 2), (2, 1))
    x = ms.Tensor(np.ones((2, 2), np.float32))
    np.testing.assert_allclose(mm(x, x).asnumpy(), np.full((2, 2), 2.0))  # stand-alone: shard is ignored
