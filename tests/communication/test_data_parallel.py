"""Data parallel over 2 real processes equals one process on the full batch: Model/TrainOneStepCell insert the
gradient AllReduce (gradients_mean=True), each rank reads its shard (num_shards/shard_id), and
parameter_broadcast makes ranks that start from different weights agree; PyNative and GRAPH_MODE."""
import numpy as np
import pytest

from .launch import run_workers
from tests.conftest import child_env


def _single_env(rank, size, port):
    return child_env()  # no launcher variables: a job of one process


def _weights(out_dir, mode, size, rank):
    with np.load(out_dir / f"weights_{mode}_{size}_{rank}.npz") as f:
        return dict(f)


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    out = tmp_path_factory.mktemp("dp1")
    run_workers("worker_dp.py", 1, out, env_for=_single_env)
    return out


@pytest.mark.parametrize("fusion", ["", "fusion"])
def test_two_process_data_parallel_matches_one_process(tmp_path, reference, fusion):
    run_workers("worker_dp.py", 2, tmp_path, fusion)
    for mode in ("pynative", "graph"):
        ref = _weights(reference, mode, 1, 0)
        for rank in (0, 1):
            got = _weights(tmp_path, mode, 2, rank)
            assert got.keys() == ref.keys()
            for name in ref:
                np.testing.assert_allclose(got[name], ref[name], rtol=0, atol=1e-6,
                                           err_msg=f"{mode}, rank {rank}, {name}")
        apart = max(np.abs(ref[n] - _weights(reference, "pynative", 1, 0)[n]).max() for n in ref)
        assert apart < 1e-5  # PyNative and Graph train the same weights
