"""Pipeline parallel: 2 stages x 4 micro-batches over 2 real processes (1F1B, Send/Receive of activations and
gradients) gives the same losses and weights as one process running the same PipelineCell, in PyNative and
GRAPH_MODE."""
import numpy as np
import pytest

import openspore as ms
from openspore import nn

from .launch import run_workers
from tests.conftest import child_env

OWNED = {0: ("0.weight", "0.bias"), 1: ("2.weight", "2.bias", "4.weight", "4.bias")}


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_two_stage_pipeline_matches_one_process(tmp_path, mode):
    run_workers("worker_pipeline.py", 1, tmp_path, mode, env_for=lambda rank, size, port: child_env())
    run_workers("worker_pipeline.py", 2, tmp_path, mode)
    with np.load(tmp_path / f"pipe_{mode}_1_0.npz") as f:
        ref = dict(f)
    assert ref["loss"][-1] < ref["loss"][0]
    for rank in (0, 1):
        with np.load(tmp_path / f"pipe_{mode}_2_{rank}.npz") as f:
            got = dict(f)
        np.testing.assert_allclose(got["loss"], ref["loss"], rtol=1e-6, atol=1e-6, err_msg=f"rank {rank} loss")
        for name in OWNED[rank]:
            np.testing.assert_allclose(got[name], ref[name], rtol=0, atol=1e-6, err_msg=f"rank {rank}: {name}")
        # the other stage's weights are not trained here: this process really ran only its own stage
        other = OWNED[1 - rank][0]
        assert np.abs(got[other] - ref[other]).max() > 1e-4


def test_pipeline_cell_checks():
    body = nn.WithLossCell(nn.SequentialCell(nn.Dense(2, 1)), nn.MSELoss())
    with pytest.raises(ValueError, match="micro_size"):
        nn.PipelineCell(body, 0)
    cell = nn.PipelineCell(body, 3)
    with pytest.raises(ValueError, match="divide by micro_size"):
        cell(ms.Tensor(np.ones((4, 2), np.float32)), ms.Tensor(np.ones((4, 1), np.float32)))
