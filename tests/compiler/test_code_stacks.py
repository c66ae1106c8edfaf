"""Every traced node keeps the user's code stack (ir/source.py): innermost user frame first, bounded by the traced
function; backward nodes carry their forward node's stack under `Gradients/...` scopes; passes keep stacks."""
import pickle

import numpy as np

import openspore as ms
from openspore import nn, ops
from openspore.compiler.frontend import trace
from openspore.compiler.pipeline import run_pipeline
from openspore.ir.source import SourceFrame, SourceLocation, stack_of


def _line(marker):
    with open(__file__, encoding="utf-8") as f:
        return next(k for k, text in enumerate(f, 1) if text.rstrip().endswith(f"# {marker}"))


class Block(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 3)

    def construct(self, x):
        return ops.relu(self.fc(x))  # BLOCK


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.block = Block()

    def construct(self, x):
        y = self.block(x)  # NET
        return (y * y).sum()


def _x():
    return ms.Tensor(np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4))


def _prims(graph):
    return [n for g in graph.all_graphs() for n in g.nodes if n.is_primitive]


def test_forward_nodes_keep_the_whole_user_stack_innermost_first():
    traced = trace(Net(), (_x(),))
    relu = next(n for n in _prims(traced.graph) if n.op_name == "ReLU")
    assert relu.stack[:2] == (SourceFrame(__file__, _line("BLOCK"), "construct"),
                              SourceFrame(__file__, _line("NET"), "construct"))
    assert relu.loc == f"{__file__}:{_line('BLOCK')}"  # still the 'file:line' error messages print
    # the frames that called the traced function are not in it
    assert all(f.function != "test_forward_nodes_keep_the_whole_user_stack_innermost_first" for f in relu.stack)
    square = next(n for n in _prims(traced.graph) if n.op_name == "Mul")
    assert square.stack[0].line == _line("NET") + 1


def test_backward_nodes_carry_their_forward_nodes_stack_under_gradients():
    net = Net()
    grad_fn = ms.value_and_grad(net, None, net.trainable_params())

    def step(x):
        return grad_fn(x)
    traced = trace(step, (_x(),))
    prims = _prims(traced.graph)
    relu = next(n for n in prims if n.op_name == "ReLU")
    relu_grad = [n for n in prims if n.op_name == "ReluGrad"]
    assert len(relu_grad) == 1
    cell_scope = relu.scope.rpartition("/")[0]
    assert relu_grad[0].scope.startswith(f"Gradients/{cell_scope}/Grad_ReLU/ReluGrad-op")
    assert relu_grad[0].stack == relu.stack
    backward = [n for n in prims if n.scope.startswith("Gradients/")]
    assert {n.op_name for n in backward} >= {"ReluGrad"} and len(backward) >= 3
    lines = {_line("BLOCK"), _line("NET"), _line("NET") + 1}
    rules = [n for n in backward if "/Grad_" in n.scope]  # (the others add up gradients, at `step`'s line)
    assert all(n.stack and n.stack[0].file == __file__ for n in backward)
    assert all(n.stack[0].line in lines for n in rules), [(n.scope, n.stack[:1]) for n in rules]
    # forward nodes are never under Gradients/
    assert not relu.scope.startswith("Gradients/")


def test_nodes_made_by_passes_keep_their_origin():
    net = Net()
    grad_fn = ms.value_and_grad(net, None, net.trainable_params())

    def step(x):
        return grad_fn(x)
    graph = run_pipeline(trace(step, (_x(),)).graph, level="O2")
    prims = _prims(graph)
    assert prims and all(n.stack for n in prims), [n for n in prims if not n.stack]
    relu = next(n for n in prims if n.op_name == "ReLU")
    assert relu.stack[0] == SourceFrame(__file__, _line("BLOCK"), "construct")


def test_source_location_round_trips_and_plain_locations_still_read():
    loc = SourceLocation([SourceFrame("/a/net.py", 3, "construct"), SourceFrame("/a/train.py", 9, "step")])
    again = pickle.loads(pickle.dumps(loc))
    assert again == "/a/net.py:3" and again.frames == loc.frames
    assert stack_of("/a/net.py:3") == (SourceFrame("/a/net.py", 3, ""),)
    assert stack_of("") == () and stack_of("no line here") == ()
    assert SourceLocation([]) == ""
