"""Sharding strategies for Gather (row and column split), LayerNorm, reductions, Softmax, BatchMatMul and
broadcasting elementwise ops, layout propagation to unsharded ops, out_strategy, and strategy files loaded back,
over 2 and 4 real processes: losses and integrated weights after 2 SGD steps equal one process (<= 1e-5) in
PyNative and GRAPH_MODE; the sharding report shows the propagated layouts and where communication was inserted."""
import json

import numpy as np
import pytest

import openspore as ms
from openspore import ops

from .launch import run_workers
from tests.conftest import child_env

CASES = ("gather_rows", "gather_cols", "layernorm", "reductions", "softmax", "batchmatmul", "chain",
         "reduce_scatter", "loaded")
# size -> {(case, parameter): shape stored by each rank}
SLICES = {2: {("gather_rows", "table"): (4, 4), ("gather_cols", "table"): (8, 2), ("reductions", "w"): (6, 4),
              ("batchmatmul", "w"): (2, 3, 4), ("chain", "w1"): (4, 8), ("loaded", "w1"): (4, 8),
              ("reduce_scatter", "w"): (4, 6), ("layernorm", "gamma"): (8,)},
          4: {("gather_rows", "table"): (2, 4), ("gather_cols", "table"): (8, 2), ("reductions", "w"): (6, 2),
              ("batchmatmul", "w"): (1, 3, 4), ("batchmatmul", "b"): (2,), ("chain", "w1"): (2, 8),
              ("loaded", "w1"): (2, 8), ("reduce_scatter", "w"): (2, 6)}}


def _load(path):
    with np.load(path) as f:
        return dict(f)


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    out = tmp_path_factory.mktemp("ops1")
    run_workers("worker_shard_ops.py", 1, out, env_for=lambda rank, size, port: child_env())
    return _load(out / "ops_1_0.npz")


def _comm_of(report, op_prefix):
    return [c for r in report if r["op"].startswith(op_prefix) for c in r["comm"]]


@pytest.mark.parametrize("size", [2, 4])
def test_sharded_ops_match_one_process(size, reference, tmp_path):
    run_workers("worker_shard_ops.py", size, tmp_path)
    for rank in range(size):
        got = _load(tmp_path / f"ops_{size}_{rank}.npz")
        for key, want in reference.items():
            if key.startswith("shape_"):
                continue
            np.testing.assert_allclose(got[key], want, rtol=0, atol=1e-5, err_msg=f"size {size} rank {rank}: {key}")
        for mode in ("pynative", "graph"):
            for case in CASES:
                assert f"{mode}_{case}_loss" in got
            for (case, name), shape in SLICES[size].items():
                assert tuple(got[f"shape_{mode}_{case}_body.{name}"]) == shape, (rank, mode, case, name)
        with open(tmp_path / f"ops_{size}_{rank}.json") as f:
            reports = json.load(f)
        for mode in ("pynative", "graph"):
            chain = reports[f"{mode}_chain"]
            by_op = {r["op"].split("(")[0]: r for r in chain}
            # unsharded ops after the row-split MatMul keep its layout: nothing is gathered between them
            for op in ("Tanh-tanh",):
                assert by_op[op]["how"] == "propagated" and "tensor_map=(2, -1)" in by_op[op]["outputs"][0]
                assert by_op[op]["comm"] == []
            assert not [c for c in _comm_of(chain, "") if c.startswith("AllGather")]
            # the contraction-split MatMul all-reduces; with out_strategy it reduce-scatters instead
            assert any(c.startswith("AllReduce") for c in _comm_of(chain, "MatMul-mm1"))
            rs = _comm_of(reports[f"{mode}_reduce_scatter"], "MatMul-mm")
            assert any(c.startswith("ReduceScatter") for c in rs) and not any(c.startswith("AllReduce") for c in rs)
            loaded = reports[f"{mode}_loaded"]
            assert [r["how"] for r in loaded if r["op"].startswith("MatMul")] == ["loaded", "loaded"]
        text = (tmp_path / f"report_{size}_{rank}.txt").read_text()  # save_sharding_report: the graph loaded run
        assert "MatMul-mm1(body.w1) [loaded]" in text and "inserted: AllReduce(sum" in text


def test_shard_report_and_errors():
    from openspore.parallel import clear_sharding_report, sharding_report
    from openspore.parallel._op_rules import RULES
    clear_sharding_report()
    assert sharding_report() == []
    assert {"Gather", "LayerNorm", "ReduceSum", "ReduceMean", "ReduceMax", "Softmax", "BatchMatMul",
            "Add"} <= set(RULES)
    with pytest.raises(TypeError, match="tuple of tuples"):
        ops.Gather().shard(((2, 1), [1, 1]))
    x = ms.Tensor(np.ones((2, 2), np.float32))
    mm = ops.MatMul().shard(((1, 2), (2, 1)), ((2, 1),))
    np.testing.assert_allclose(mm(x, x).asnumpy(), np.full((2, 2), 2.0))  # stand-alone: shard is ignored
