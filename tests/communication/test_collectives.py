"""Collectives across 2 real processes (Gloo on 127.0.0.1): values, gradients, Graph mode, groups."""
import numpy as np
import pytest

from openspore import communication as comm
from openspore.ops.defs import _comm_world

from .launch import run_workers


@pytest.fixture(scope="module")
def two_ranks(tmp_path_factory):
    return run_workers("worker_collectives.py", 2, tmp_path_factory.mktemp("coll"))


def test_ranks_and_world(two_ranks):
    assert [r["rank"] for r in two_ranks] == [0, 1]
    assert all(r["size"] == 2 and r["local_size"] == 2 for r in two_ranks)
    assert [r["local"] for r in two_ranks] == [0, 1]
    assert {r["backend"] for r in two_ranks} == {"mccl"} and {r["world"] for r in two_ranks} == {"mccl_world_group"}


@pytest.mark.parametrize("backend", ["torch", "numpy"])
def test_collective_values(two_ranks, backend):
    base = np.array([[1.0, 2.0], [3.0, 4.0]])
    xs = [base * (r + 1) for r in range(2)]
    for r, res in enumerate(two_ranks):
        got = {k: np.array(v) for k, v in res[backend].items()}
        np.testing.assert_allclose(got["sum"], xs[0] + xs[1])
        np.testing.assert_allclose(got["max"], np.maximum(xs[0], xs[1]))
        np.testing.assert_allclose(got["min"], np.minimum(xs[0], xs[1]))
        np.testing.assert_allclose(got["prod"], xs[0] * xs[1])
        np.testing.assert_allclose(got["gather"], np.concatenate(xs))
        np.testing.assert_allclose(got["scatter"], (xs[0] + xs[1])[r:r + 1])
        np.testing.assert_allclose(got["bcast"], xs[1])
        # AlltoAll(split_dim=1, concat_dim=0): column block r of every rank, stacked by rank
        np.testing.assert_allclose(got["a2a"], np.concatenate([x[:, r:r + 1] for x in xs], axis=0))
        np.testing.assert_array_equal(got["int"], [3, 10])
        np.testing.assert_allclose(got["p2p"], xs[0] * (10 if r == 1 else 1))
        np.testing.assert_allclose(got["grad_sum"], np.full((2, 2), 3.0))  # c_0 + c_1
        # each rank's loss is sum_k x_k c_k; the job's objective sums the 2 ranks' losses: d/dx_r = 2 c_r
        np.testing.assert_allclose(got["grad_gather"], np.full((2, 2), 2 * (r + 1.0)))


def test_graph_mode_and_groups(two_ranks):
    for res in two_ranks:
        np.testing.assert_allclose(res["graph"], [[6.0, 6.0], [6.0, 6.0]])
        assert res["group"]["size"] == 2 and res["group"]["world_of_1"] == 1
        np.testing.assert_allclose(res["group"]["sum"], [3.0])
    assert [r["group"]["rank"] for r in two_ranks] == [0, 1]


def test_single_process_world_and_errors():
    with pytest.raises(RuntimeError, match="not initialized"):
        comm.get_rank()
    comm.init()
    try:
        assert (comm.get_rank(), comm.get_group_size()) == (0, 1)
        with pytest.raises(ValueError, match="does not exist"):
            comm.get_group_size("nope")
        with pytest.raises(ValueError, match="backend_name"):
            comm.release(), comm.init("bogus")
    finally:
        comm.release()
    assert not _comm_world.is_inited()
