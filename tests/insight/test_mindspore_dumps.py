"""The offline analyzer on real MindSpore 2.10 dumps of a normal and a diverging LeNet run (fixtures/dump)."""
import os

import numpy as np
import pytest

from openspore.insight.debugger import (DumpAnalyzer, TensorOverflowCondition, TensorTooLargeCondition,
                                        TensorUnchangedCondition, Watchpoint)


@pytest.fixture
def dumps(fixtures_dir):
    return os.path.join(fixtures_dir, "dump")


def _overflow_hits(path):
    analyzer = DumpAnalyzer(os.path.join(path))
    tensors = analyzer.select_tensors(".*", use_regex=True)
    return analyzer, analyzer.check_watchpoints([Watchpoint(tensors, TensorOverflowCondition())])


def test_layout_ranks_iterations_nodes(dumps):
    normal = DumpAnalyzer(os.path.join(dumps, "dump_normal"))
    diverge = DumpAnalyzer(os.path.join(dumps, "dump_diverge"))
    assert normal.get_ranks() == [0] and diverge.get_ranks() == [0]
    assert normal.get_iterations() == [0, 2] and diverge.get_iterations() == [0, 1, 2]
    conv = normal.select_nodes("conv1-Conv2d/Conv2D-op0")
    assert [n.op_type for n in conv] == ["Conv2D"]
    value = normal.select_tensors("conv1-Conv2d/Conv2D-op0", iterations=[0])[0].value()
    assert value.shape == (16, 6, 28, 28) and value.dtype == np.float32
    # graph edges come from the graph file: conv1's output feeds a ReLU
    consumers = normal.get_output_nodes(conv[0])
    assert any(n.op_type == "ReLU" for n in consumers)
    assert {n.name for n in normal.get_input_nodes(conv[0])} >= {"inputs0"}


def test_diverging_run_overflows_from_iteration_1_only(dumps):
    analyzer, hits = _overflow_hits(os.path.join(dumps, "dump_diverge"))
    assert hits, "the diverging run must be caught"
    assert min(h.iteration for h in hits) == 1
    assert all(h.iteration >= 1 for h in hits)
    assert all(h.condition.name == "TensorOverflow" for h in hits)
    first = analyzer.first_nonfinite()
    assert len(first) == 1
    rank, iteration, node = first[0]
    assert (rank, iteration) == (0, 1)
    assert node.op_type == "SparseSoftmaxCrossEntropyWithLogits"  # finite logits, infinite loss
    assert "hit" not in str(hits[0]).lower() or "TensorOverflow" in str(hits[0])


def test_normal_run_raises_no_false_alarm(dumps):
    analyzer, hits = _overflow_hits(os.path.join(dumps, "dump_normal"))
    assert hits == []
    assert analyzer.first_nonfinite() == []
    # nor do MindInsight's recommended watchpoints on weights/activations
    recommended = [wp for wp in analyzer.recommend_watchpoints()
                   if wp.name in ("recommend_tensor_overflow_watchpoint", "recommend_gradient_vanishing_watchpoint",
                                  "recommend_weight_change_too_large_watchpoint")]
    assert len(recommended) == 3
    assert analyzer.check_watchpoints(recommended) == []


def test_code_stack_query_finds_conv1(dumps):
    analyzer = DumpAnalyzer(os.path.join(dumps, "dump_normal"))
    nodes = analyzer.select_nodes("fixture_nets.py:35", select_by="code_stack")
    names = [n.name for n in nodes]
    assert "Default/network-WithLossCell/_backbone-LeNet5/conv1-Conv2d/Conv2D-op0" in names
    assert "Default/network-WithLossCell/_backbone-LeNet5/conv2-Conv2d/Conv2D-op0" not in names
    assert all(any("fixture_nets.py:35" in str(f) for f in n.stack) for n in nodes)
    conv = analyzer.select_nodes("conv1-Conv2d/Conv2D-op0")[0]
    assert any(str(f).startswith("/home/user/lenet/fixture_nets.py:35") for f in conv.stack)
    # a line-number query does not match longer numbers, and regexes work
    assert analyzer.select_nodes("fixture_nets.py:3", select_by="code_stack") == []
    assert analyzer.select_nodes(r"fixture_nets\.py:3[56]\b", use_regex=True, select_by="code_stack")


def test_weights_change_in_training_and_tensor_statistics(dumps):
    analyzer = DumpAnalyzer(os.path.join(dumps, "dump_diverge"))
    weights = [n for n in analyzer.nodes() if n.category == "weight"]
    assert {n.name for n in weights} == {"conv1.weight", "conv2.weight", "fc1.weight", "fc1.bias", "fc2.weight",
                                         "fc2.bias", "fc3.weight", "fc3.bias"}
    tensors = [t for n in weights for t in n.get_output_tensors()]
    assert analyzer.check_watchpoints([Watchpoint(tensors, TensorUnchangedCondition())]) == []
    large = analyzer.check_watchpoints([Watchpoint(tensors, TensorTooLargeCondition(abs_mean_gt=100.0))])
    # parameters are dumped after the step's update: lr=1e4 has blown them up already in iteration 0
    assert large and {h.iteration for h in large} == {0, 1, 2}
    assert all(h.tuning_hints and "learning rate" in h.tuning_hints[0] for h in large)
    normal = DumpAnalyzer(os.path.join(dumps, "dump_normal"))
    normal_weights = [t for n in normal.nodes() if n.category == "weight" for t in n.get_output_tensors()]
    assert normal.check_watchpoints([Watchpoint(normal_weights, TensorTooLargeCondition(abs_mean_gt=100.0))]) == []


def test_bad_inputs_get_clear_errors(tmp_path, dumps):
    with pytest.raises(ValueError, match="holds no dump"):
        DumpAnalyzer(str(tmp_path))
    analyzer = DumpAnalyzer(os.path.join(dumps, "dump_normal"))
    with pytest.raises(ValueError, match="select_by"):
        analyzer.select_nodes("x", select_by="stack")
    with pytest.raises(ValueError, match="rank 3"):
        analyzer.get_iterations(ranks=[3])
    with pytest.raises(ValueError, match="mem_limit"):
        DumpAnalyzer(os.path.join(dumps, "dump_normal"), mem_limit=10)


def test_graph_walks_statistics_export_and_no_value_errors(dumps, tmp_path):
    from openspore.insight.debugger import TensorChangeAboveThresholdCondition
    from openspore.insight.debugger.conditions import ERR_NO_PREV
    analyzer = DumpAnalyzer(os.path.join(dumps, "dump_normal"))
    conv = analyzer.select_tensors("conv1-Conv2d/Conv2D-op0", iterations=[0])[0]
    affected = analyzer.list_affected_nodes(conv)
    assert "ReLU" in {n.op_type for n in affected}
    stats = analyzer.select_tensor_statistics(iterations=[2])
    conv_stats = stats[0][2][conv.node.name][0]
    value = analyzer.select_tensors("conv1-Conv2d/Conv2D-op0", iterations=[2])[0].value()
    assert conv_stats["count"] == value.size and abs(conv_stats["max"] - float(value.max())) < 1e-6
    path = analyzer.export_graphs(str(tmp_path))
    with open(path) as f:
        text = f.read()
    assert "conv1-Conv2d/Conv2D-op0" in text and "fixture_nets.py:35" in text
    # iteration 1 was not dumped: a change rule on iteration 2 has no previous value, reported only on request
    weights = [t for n in analyzer.nodes() if n.category == "weight" for t in n.get_output_tensors(iterations=[2])]
    wp = Watchpoint(weights, TensorChangeAboveThresholdCondition(abs_mean_update_ratio_gt=0.5))
    assert analyzer.check_watchpoints([wp]) == []
    errors = analyzer.check_watchpoints([wp], error_on_no_value=True)
    assert len(errors) == len(weights) and all(h.error_code == ERR_NO_PREV for h in errors)
    assert errors[0].error_msg == ["The previous step value cannot be found."]
