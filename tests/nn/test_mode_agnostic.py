"""Layers are mode-agnostic: nothing under openspore/nn or openspore/train asks whether a graph is being traced,
so a layer emits one sequence of primitives in PyNative and in GRAPH_MODE (the fused ones: Dense, max pooling
that keeps its argmax, ForeachApplyMomentum / ForeachAdam), and both modes compute the same values."""
import ast
import os

import numpy as np
import pytest

import openspore as ms
from openspore import nn
from openspore.compiler.frontend import api

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_TRACER_NAMES = {"current_tracer", "_tracers", "push_tracer", "pop_tracer"}
# The one place allowed: Cell.__call__ is the interpreter boundary for cells, as `bind` is for primitives (it hands a
# cell call to the active tracer, which records its scope); it chooses no layer's computation.
# Cell.__call__ (how a cell runs), and a number assigned to a Parameter attribute, which MindSpore accepts in graph
# code (an Assign) and refuses in PyNative (a TypeError): a rule of Cell attributes, not of any layer.
_ALLOWED = {("openspore/nn/cell.py", "__call__"), ("openspore/nn/cell.py", "_number_in_graph")}


def _tracer_uses(path):
    tree = ast.parse(open(path, encoding="utf-8").read(), path)
    found = []

    def visit(node, func):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            func = node.name
        names = []
        if isinstance(node, ast.Name):
            names = [node.id]
        elif isinstance(node, ast.Attribute):
            names = [node.attr]
        elif isinstance(node, ast.ImportFrom):
            names = [a.name for a in node.names]
        for name in names:
            if name in _TRACER_NAMES or "tracer" in name.lower():
                found.append((func, node.lineno, name))
        for child in ast.iter_child_nodes(node):
            visit(child, func)

    visit(tree, None)
    return found


def test_no_tracer_checks_under_nn_and_train():
    problems = []
    for package in ("openspore/nn", "openspore/train"):
        for dirpath, _, files in os.walk(os.path.join(ROOT, package)):
            for f in files:
                if not f.endswith(".py"):
                    continue
                path = os.path.join(dirpath, f)
                rel = os.path.relpath(path, ROOT).replace(os.sep, "/")
                for func, line, name in _tracer_uses(path):
                    if (rel, func) not in _ALLOWED and not (rel == "openspore/nn/cell.py" and func is None
                                                            and name == "_tracers"):
                        problems.append(f"{rel}:{line} ({func}): {name}")
    assert not problems, "tracer checks in layers/training code:\n" + "\n".join(problems)


def test_the_scan_finds_a_tracer_check(tmp_path):
    """The scan above is not vacuous: a layer asking for the tracer is reported."""
    p = tmp_path / "layer.py"
    p.write_text("from openspore.core.dispatch import current_tracer\n\n"
                 "def construct(x):\n    return x if current_tracer() is None else -x\n")
    assert [(f, n) for f, _, n in _tracer_uses(str(p))] == [(None, "current_tracer"), ("construct", "current_tracer")]


def _primitives(cell, *args):
    graph = api.trace(cell, args).graph
    return [n.op_name for g in graph.all_graphs() for n in g.nodes if n.is_primitive]


@pytest.mark.parametrize("shape", [(2, 6), (2, 5, 6)])
def test_dense_is_one_dense_primitive_in_both_modes(shape):
    net = nn.Dense(6, 3, activation="relu")
    x = ms.Tensor(np.random.default_rng(0).standard_normal(shape).astype(np.float32))
    assert _primitives(net, x) == ["Dense", "ReLU"]
    eager = net(x).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    np.testing.assert_array_equal(net(x).asnumpy(), eager)


def test_dense_with_mismatched_input_raises_mindspores_matmul_error():
    net = nn.Dense(6, 3)
    with pytest.raises(ValueError, match="MatMul"):
        net(ms.Tensor(np.ones((2, 5), np.float32)))


def test_max_pool_keeps_its_argmax_in_both_modes():
    net = nn.MaxPool2d(kernel_size=2, stride=2)
    x = ms.Tensor(np.random.default_rng(1).standard_normal((1, 2, 4, 4)).astype(np.float32))
    assert _primitives(net, x) == ["MaxPoolWithArgmaxV2"]
    grad = ms.grad(lambda v: net(v).sum())(x).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    np.testing.assert_array_equal(ms.jit(ms.grad(lambda v: net(v).sum()))(x).asnumpy(), grad)


@pytest.mark.parametrize("make", [lambda p: nn.Momentum(p, 0.1, 0.9), lambda p: nn.Adam(p, 1e-2)],
                         ids=["Momentum", "Adam"])
def test_optimizers_emit_one_multi_tensor_update_in_both_modes(make):
    def run(mode):
        ms.set_context(mode=mode)
        ms.set_seed(3)
        net = nn.Dense(4, 3)
        step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), make(net.trainable_params()))
        x = ms.Tensor(np.random.default_rng(2).standard_normal((5, 4)).astype(np.float32))
        y = ms.Tensor(np.zeros((5, 3), np.float32))
        losses = [float(step(x, y).asnumpy()) for _ in range(3)]
        return step, x, y, losses, net.weight.asnumpy()

    step, x, y, eager_losses, eager_weight = run(ms.PYNATIVE_MODE)
    names = _primitives(step, x, y)
    assert sum(n.startswith("Foreach") for n in names) == 1 and "ApplyMomentum" not in names and "Adam" not in names
    _, _, _, graph_losses, graph_weight = run(ms.GRAPH_MODE)
    np.testing.assert_allclose(graph_losses, eager_losses, rtol=1e-6)
    np.testing.assert_allclose(graph_weight, eager_weight, rtol=1e-6, atol=1e-7)
