"""Two ranks dumped by two processes, analysed together; and the `openspore debug` command line."""
import json
import os
import subprocess
import sys

import pytest

from openspore.insight.debugger import DumpAnalyzer, TensorOverflowCondition, Watchpoint
from tests.conftest import REPO, child_env

SCRIPT = """
import os
import openspore as ms
from tests.insight import nets
ms.set_context(mode=ms.GRAPH_MODE)
ms.set_seed(0)
rank = int(os.environ["RANK_ID"])
net, step = nets.train_step(lr=1e10 if rank == 1 else 0.05)  # the fault: rank 1 diverges
x, y = nets.data(seed=rank)
for _ in range(3):
    step(x, y)
"""


@pytest.fixture(scope="module")
def two_rank_dump(tmp_path_factory):
    root = tmp_path_factory.mktemp("ranks")
    cfg = root / "dump.json"
    cfg.write_text(json.dumps({"common_dump_settings": {"dump_mode": 0, "path": str(root / "dump"),
                                                        "net_name": "LeNet", "iteration": "all",
                                                        "saved_data": "tensor", "input_output": 2, "kernels": []}}))
    procs = [subprocess.Popen([sys.executable, "-c", SCRIPT], cwd=REPO, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True,
                              env=child_env(MINDSPORE_DUMP_CONFIG=str(cfg), RANK_ID=str(rank)))
             for rank in (0, 1)]
    for p in procs:
        _out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
    return str(root / "dump")


def test_fault_on_rank_1_is_reported_on_rank_1_only(two_rank_dump):
    analyzer = DumpAnalyzer(two_rank_dump)
    assert analyzer.get_ranks() == [0, 1]
    assert analyzer.get_iterations(ranks=[0]) == [0, 1, 2] == analyzer.get_iterations(ranks=[1])
    hits = analyzer.check_watchpoints([Watchpoint(analyzer.select_tensors(".*", use_regex=True),
                                                  TensorOverflowCondition())])
    assert hits and {h.rank for h in hits} == {1}
    first = analyzer.first_nonfinite()
    assert [(rank, it) for rank, it, _ in first] == [(1, min(h.iteration for h in hits))]
    # per-rank selection
    assert all(n.rank == 0 for n in analyzer.select_nodes("Conv2D", ranks=[0]))


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "openspore.cli", "debug", *args], cwd=REPO, capture_output=True,
                          text=True, timeout=300, env=child_env())


def test_cli_check_nodes_and_first_nan(two_rank_dump):
    run = _cli("check", two_rank_dump, "--rule", "tensor_overflow", "--iteration", "0-2")
    assert run.returncode == 1, run.stderr
    assert "[tensor_overflow] rank 1 iteration" in run.stdout and "rank 0 iteration" not in run.stdout
    assert "checked 6/6" in run.stderr  # progress on stderr
    only_first = _cli("check", two_rank_dump, "--rule", "tensor_overflow", "--iteration", "0")
    assert only_first.returncode == 0 and "checked 2/2" in only_first.stderr
    clean = _cli("check", two_rank_dump, "--rule", "tensor_overflow", "--rank", "0", "--json")
    assert clean.returncode == 0 and clean.stdout.strip() == ""
    nodes = _cli("nodes", two_rank_dump, "--code", "nets.py:22", "--rank", "0")
    assert nodes.returncode == 0 and "conv1-Conv2d/Conv2D-op0" in nodes.stdout and "nets.py:22" in nodes.stdout
    first = _cli("first-nan", two_rank_dump)
    assert first.returncode == 1 and first.stdout.startswith("rank 1 iteration ")
    bad = _cli("check", two_rank_dump, "--rule", "weight_too_large:abs_mean_gt=x")
    assert bad.returncode == 2 and "should be a number" in bad.stderr


def test_cli_on_mindspore_dumps(fixtures_dir):
    dump = os.path.join(fixtures_dir, "dump")
    run = _cli("check", os.path.join(dump, "dump_diverge"), "--rule", "tensor_overflow", "--json")
    hits = [json.loads(line) for line in run.stdout.splitlines()]
    assert run.returncode == 1 and hits and min(h["iteration"] for h in hits) == 1
    assert _cli("check", os.path.join(dump, "dump_normal"), "--rule", "tensor_overflow").returncode == 0
    nodes = _cli("nodes", os.path.join(dump, "dump_normal"), "--name", "conv1-Conv2d/Conv2D-op0")
    assert "fixture_nets.py:35" in nodes.stdout
