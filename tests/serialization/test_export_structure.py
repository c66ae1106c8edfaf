"""Exported files keep MindSpore's structure although layers emit fused primitives (Dense, argmax-keeping max
pooling, multi-tensor optimizer updates): the op-type sequence of every graph of every zoo network's MindIR (and
ONNX) file is exactly what it was when layers still emitted MindSpore's structure themselves.

`data/zoo_export_ops.json` was written by the code before that change (commit 3ad144a), with the same networks,
weights and inputs (`make_net`); the round trips (test_mindir_write) check the values."""
import json
import os

import numpy as np
import pytest

import openspore as ms
from openspore import nn
from openspore.compiler.frontend import trace
from openspore.serialization import UnsupportedExportError

from .test_mindir_write import ZOO, make_net, read_proto

EXPECTED = json.load(open(os.path.join(os.path.dirname(__file__), "data", "zoo_export_ops.json")))


def mindir_sequences(model):
    """Per graph (main graph, then functions), the op type of every node in order."""
    prims = {p.name: p for p in model.primitives}
    out = []
    for g in [model.graph, *model.functions]:
        names = []
        for n in g.node:
            ref = n.op_type[5:]
            names.append(n.op_type if n.op_type == "Constant" else prims[ref].op_type if ref in prims else "call")
        out.append(names)
    return out


@pytest.mark.parametrize("train", [False, True], ids=["eval", "train"])
@pytest.mark.parametrize("name", sorted(ZOO))
def test_mindir_node_sequence_is_unchanged(tmp_path, name, train):
    net, x = make_net(name)
    net.set_train(train)
    ms.export(net, x, file_name=str(tmp_path / name), file_format="MINDIR")
    got = mindir_sequences(read_proto(str(tmp_path / f"{name}.mindir")))
    assert got == EXPECTED[f"{name}/{'train' if train else 'eval'}"]["mindir"]


@pytest.mark.parametrize("name", sorted(set(ZOO) - {"branchy"}))
def test_onnx_node_sequence_is_unchanged(tmp_path, name):
    onnx = pytest.importorskip("onnx")
    net, x = make_net(name)
    ms.export(net, x, file_name=str(tmp_path / name), file_format="ONNX")
    assert [n.op_type for n in onnx.load(str(tmp_path / f"{name}.onnx")).graph.node] == EXPECTED[f"{name}/eval"]["onnx"]


def test_the_captured_graph_holds_the_fused_primitives():
    """What the files no longer show: the traced LeNet computes Dense and argmax-keeping pooling."""
    net, x = make_net("lenet5")
    ops = [n.op_name for g in trace(net, (x,)).graph.all_graphs() for n in g.nodes if n.is_primitive]
    assert ops.count("Dense") == 3 and ops.count("MaxPoolWithArgmaxV2") == 2
    assert "MatMul" not in ops and "BiasAdd" not in ops and "MaxPool" not in ops


def test_an_optimizer_step_is_exported_as_one_update_per_parameter(tmp_path):
    """ForeachApplyMomentum decomposes into MindSpore's ApplyMomentum per parameter, which MindIR export does not
    write: the report names ApplyMomentum, as it did when the optimizer emitted it."""
    net = nn.Dense(3, 2)
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt)
    x, y = ms.Tensor(np.ones((4, 3), np.float32)), ms.Tensor(np.zeros((4, 2), np.float32))
    ops = [n.op_name for g in trace(step, (x, y)).graph.all_graphs() for n in g.nodes if n.is_primitive]
    assert ops.count("ForeachApplyMomentum") == 1 and "ApplyMomentum" not in ops
    with pytest.raises(UnsupportedExportError, match=r"\['ApplyMomentum'\]") as info:
        ms.export(step, x, y, file_name=str(tmp_path / "step"), file_format="MINDIR")
    assert "ForeachApplyMomentum" not in str(info.value)
