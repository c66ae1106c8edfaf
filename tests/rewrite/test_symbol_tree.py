"""openspore.rewrite: parsing construct into nodes, editing them, and running the rebuilt network (MindSpore's
own answers for the common path are in tests/compat/recorded/rewrite_api)."""
import inspect

import numpy as np
import pytest

import openspore as ms
from openspore import nn, ops
from openspore.rewrite import Node, NodeType, ScopedValue, SymbolTree, ValueType


class Branchy(nn.Cell):
    def __init__(self, flag):
        super().__init__()
        self.flag = flag
        self.relu = nn.ReLU()
        self.neg = ops.Neg()

    def construct(self, x, scale=2.0):
        """A docstring is not a node."""
        a, b = ops.split(x, 2, 1)
        y = self.relu(ops.abs(a) - b)
        if self.flag:
            y = y * scale
        for _ in range(2):
            y = y + 1
        y += 1
        return self.neg(y), b


def _x():
    return ms.Tensor(np.array([[1.0, -2.0, 3.0, -4.0], [-1.0, 2.0, -3.0, 4.0]], np.float32))


def _same(a, b):
    for u, v in zip(a, b):
        np.testing.assert_allclose(u.asnumpy(), v.asnumpy(), rtol=1e-6)


def test_parse_kinds_hoisting_and_an_unchanged_rebuild():
    net = Branchy(True)
    stree = SymbolTree.create(net)
    kinds = [(n.get_name(), n.get_node_type()) for n in stree.nodes()]
    assert kinds == [("input_x", NodeType.Input), ("input_scale", NodeType.Input), ("split", NodeType.CallFunction),
                     ("abs", NodeType.CallFunction), ("binop_sub", NodeType.MathOps), ("relu", NodeType.CallCell),
                     ("if_node", NodeType.ControlFlow), ("for_node", NodeType.ControlFlow),
                     ("python_node", NodeType.Python), ("neg", NodeType.CallPrimitive), ("return", NodeType.Output)]
    assert [str(t) for t in stree.get_node("split").get_targets()] == ["a", "b"]
    assert [n.get_name() for n in stree.get_node("abs").get_users()] == ["binop_sub"]
    assert stree.get_node("return").get_args()[0].type == ValueType.TupleValue
    rebuilt = stree.get_network()
    _same(rebuilt(_x()), net(_x()))
    _same(rebuilt(_x(), 3.0), net(_x(), 3.0))
    assert "class BranchyOpt(Branchy):" in stree.get_code()
    assert "abs_var = ops.abs(a)" in inspect.getsource(type(rebuilt).construct)


def test_rebuilt_network_runs_in_graph_mode_and_trains_the_shared_weights():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.dense = nn.Dense(4, 2)

        def construct(self, x):
            y = self.dense(x)
            return y

    net = Net()
    stree = SymbolTree.create(net)
    stree.insert(stree.after("dense"), Node.create_call_function(ops.tanh, ["t"], ["y"]))
    stree.set_output(0, "t")
    rebuilt = stree.get_network()
    expected = np.tanh(net(_x()).asnumpy())
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        np.testing.assert_allclose(rebuilt(_x()).asnumpy(), expected, rtol=1e-5)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert rebuilt.dense is net.dense and "tanh" in [n.get_name() for n in stree.nodes()]
    assert [p.name for p in rebuilt.trainable_params()] == [p.name for p in net.trainable_params()]


def test_static_if_flattening_inputs_and_erase():
    net = Branchy(False)
    stree = SymbolTree.create(net)
    stree.flatten_static_if_control_flow()
    assert "if_node" not in [n.get_name() for n in stree.nodes()]   # the false branch was empty
    _same(stree.get_network()(_x()), net(_x()))
    shift = Node.create_input("shift", ScopedValue.create_variable_value(10.0))
    stree.insert(stree.after("input_scale"), shift)
    add = Node.create_call_function(ops.add, ["y"], ["y", "shift"])
    stree.insert(stree.before("python_node"), add)
    out = stree.get_network()(_x())
    np.testing.assert_allclose(out[0].asnumpy(), net(_x())[0].asnumpy() - 10.0, rtol=1e-6)
    assert stree.erase("nonexistent") is None
    stree.erase(add)
    _same(stree.get_network()(_x()), net(_x()))


def test_bad_edits_are_refused():
    stree = SymbolTree.create(Branchy(True))
    relu = stree.get_node("relu")
    with pytest.raises(ValueError, match="out of range"):
        relu.set_arg(3, "x")
    with pytest.raises(TypeError):
        relu.set_arg(0, 5)
    with pytest.raises(ValueError, match="no node named"):
        stree.after("missing")
    with pytest.raises(ValueError, match="already in a SymbolTree"):
        stree.insert(stree.after("relu"), relu)
    with pytest.raises(TypeError, match="not a Tree node"):
        relu.get_sub_tree()
    with pytest.raises(TypeError, match="callable"):
        Node.create_call_function(3, ["y"])


def test_tabulate_and_save(tmp_path, capsys):
    stree = SymbolTree.create(Branchy(True))
    stree.print_node_tabulate()
    table = capsys.readouterr().out
    assert "CallCell" in table and "relu" in table and "y = self.relu(binop_sub" not in table
    stree.set_saved_file_name(str(tmp_path / "rewritten"))
    stree.save_network_to_file()
    text = (tmp_path / "rewritten.py").read_text()
    assert text == stree.get_code() and "def construct(self, x, scale=2.0):" in text
