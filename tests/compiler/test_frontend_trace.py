"""Tracing straight-line code: graph structure, scope names, weights, constants, specs, errors, and the
traced graph computing what PyNative computes (checked with `ir.interpret.run_graph`)."""
import os

import numpy as np
import pytest

import openspore as ms
from openspore import nn, ops
from openspore.compiler.frontend import GraphCaptureError, SymbolicTensor, trace
from openspore.ir import print_graph
from openspore.ir.interpret import run_graph
from tests.conftest import assert_close

HERE = os.path.basename(__file__)


def _param(rng, shape, name):
    return ms.Parameter(ms.Tensor(rng.standard_normal(shape).astype(np.float32) * 0.5), name=name)


class Dense(nn.Cell):
    def __init__(self, cin, cout, rng):
        super().__init__()
        self.weight = _param(rng, (cout, cin), "weight")
        self.bias = _param(rng, (cout,), "bias")

    def construct(self, x):
        return ops.bias_add(ops.matmul(x, self.weight.T), self.bias)


class MLP(nn.Cell):
    def __init__(self, rng):
        super().__init__()
        self.fc1 = Dense(4, 8, rng)
        self.fc2 = Dense(8, 3, rng)

    def construct(self, x):
        return self.fc2(ops.relu(self.fc1(x)))


class ConvNet(nn.Cell):
    def __init__(self, rng):
        super().__init__()
        self.w = _param(rng, (4, 1, 3, 3), "w")
        self.fc = Dense(4 * 3 * 3, 5, rng)

    def construct(self, x):
        y = ops.relu(ops.conv2d(x, self.w, pad_mode="valid"))
        y = ops.max_pool2d(y, 2, 2)
        return self.fc(ops.flatten(y))


class Stack(nn.Cell):
    def __init__(self, rng):
        super().__init__()
        self.layers = nn.CellList([Dense(4, 4, rng), Dense(4, 4, rng)])

    def construct(self, x):
        for layer in self.layers:
            x = ops.tanh(layer(x))
        return x


def _run(traced, *inputs):
    out = run_graph(traced.graph, list(inputs))
    return traced.unflatten(list(out) if traced.graph.output.op == "make_tuple" else [out])


def test_mlp_graph_text_and_values():
    rng = np.random.default_rng(0)
    net = MLP(rng)
    x = ms.Tensor(rng.standard_normal((2, 4)).astype(np.float32))
    traced = trace(net.construct, (x,))
    text = print_graph(traced.graph)
    assert text.startswith("graph @construct(%0 x: f32[2,4]) {")
    assert 'weight "fc1.weight" : f32[8,4]' in text and 'weight "fc2.bias" : f32[3]' in text
    assert "# Default/fc1-Dense/MatMul-op" in text and "# Default/fc2-Dense/BiasAdd-op" in text
    assert "# Default/ReLU-op" in text
    assert f"@ {__file__}:" in text  # locations point at this file's lines
    ops_used = [n.op_name for n in traced.graph.nodes if n.is_primitive]
    assert ops_used == ["Transpose", "MatMul", "BiasAdd", "ReLU", "Transpose", "MatMul", "BiasAdd"]
    assert_close(_run(traced, x), net(x))


def test_conv_net_equals_pynative():
    rng = np.random.default_rng(1)
    net = ConvNet(rng)
    x = ms.Tensor(rng.standard_normal((2, 1, 8, 8)).astype(np.float32))
    traced = trace(net, (x,))  # a Cell is traced through its construct
    names = [n.op_name for n in traced.graph.nodes if n.is_primitive]
    assert "Conv2D" in names and any(n.startswith("MaxPool") for n in names)
    assert_close(_run(traced, x), net(x), rtol=1e-5, atol=1e-5)


def test_cell_list_scope_and_parameter_dedupe():
    rng = np.random.default_rng(2)
    net = Stack(rng)
    x = ms.Tensor(rng.standard_normal((3, 4)).astype(np.float32))
    traced = trace(net.construct, (x,))
    scopes = [n.scope for n in traced.graph.nodes if n.is_primitive and n.op_name == "MatMul"]
    assert scopes[0].startswith("Default/layers-CellList/0-Dense/MatMul-op")
    assert scopes[1].startswith("Default/layers-CellList/1-Dense/MatMul-op")
    weights = [n.name for n in traced.graph.nodes if n.op == "weight"]
    assert weights == ["layers.0.weight", "layers.0.bias", "layers.1.weight", "layers.1.bias"]
    assert_close(_run(traced, x), net(x))


def test_weights_and_constants_are_shared_by_identity():
    w = ms.Parameter(ms.Tensor(np.ones((2, 2), np.float32)), name="w")
    c = ms.Tensor(np.full((2, 2), 3.0, np.float32))

    def f(x):
        return x * w + w * c + c

    traced = trace(f, (ms.Tensor(np.ones((2, 2), np.float32)),))
    nodes = traced.graph.nodes
    assert [n.name for n in nodes if n.op == "weight"] == ["w"]
    assert sum(1 for n in nodes if n.op == "const" and n.value is c) == 1
    x = ms.Tensor(np.arange(4, dtype=np.float32).reshape(2, 2))
    assert_close(_run(traced, x), f(x))


def test_specs_python_values_and_structures():
    def f(pair, scale, opts):
        a, b = pair
        out = {"sum": a + b * scale, "n": a.shape[0]}
        if opts["square"]:
            out["sq"] = a * a
        return out, [b]

    a = ms.Tensor(np.ones((3,), np.float32))
    b = ms.Tensor(np.full((3,), 2.0, np.float32))
    traced = trace(f, ((a, b), 0.5, {"square": True}))
    assert [n.name for n in traced.graph.inputs] == ["pair_0", "pair_1"]
    assert traced.graph.output.op == "make_tuple" and len(traced.graph.output.inputs) == 3
    got = _run(traced, a, b)
    ref = f((a, b), 0.5, {"square": True})
    assert got[0]["n"] == 3 and isinstance(got[1], list)
    for key in ("sum", "sq"):
        assert_close(got[0][key], ref[0][key])
    assert_close(got[1][0], ref[1][0])
    other = trace(f, ((a, b), 0.25, {"square": True}))
    assert other.static_key != traced.static_key  # Python values are part of the key
    assert trace(f, ((b, a), 0.5, {"square": True})).static_key == traced.static_key


def test_single_tensor_output_is_the_node():
    traced = trace(lambda x: ops.exp(x), (ms.Tensor(np.zeros(2, np.float32)),))
    assert traced.graph.output.op_name == "Exp"
    assert traced.unflatten(["leaf"]) == "leaf"


def test_multi_output_primitive_uses_tuple_get_item():
    def f(x):
        values, indices = ops.max(x, axis=1)
        return values * 2, indices

    x = ms.Tensor(np.array([[1., 5., 2.], [7., 0., 3.]], np.float32))
    traced = trace(f, (x,))
    items = [n for n in traced.graph.nodes if n.op == "tuple_get_item"]
    assert len(items) == 2 and items[0].inputs[0] is items[1].inputs[0]
    got, ref = _run(traced, x), f(x)
    assert_close(got[0], ref[0])
    assert_close(got[1], ref[1])


def test_side_effects_kept_in_program_order():
    p = ms.Parameter(ms.Tensor(np.zeros(3, np.float32)), name="p")

    def f(x):
        ops.assign(p, x * 2)        # result unused: still in the graph
        y = p + 1                   # reads the updated parameter
        ops.assign_add(p, y)
        return ops.uniform((2,), ms.Tensor(0.0), ms.Tensor(1.0)), y

    x = ms.Tensor(np.array([1., 2., 3.], np.float32))
    traced = trace(f, (x,))
    names = [n.op_name for n in traced.graph.nodes if n.is_primitive]
    assert names.index("Assign") < names.index("Add") < names.index("AssignAdd")
    assert "UniformReal" in names
    assert [n.name for n in traced.graph.nodes if n.op == "weight"] == ["p"]
    _, y = _run(traced, x)
    assert_close(y, np.array([3., 5., 7.], np.float32))
    assert_close(p, np.array([5., 9., 13.], np.float32))


def test_symbolic_tensor_metadata_len_and_iteration():
    seen = {}

    def f(x):
        seen["type"], seen["traced"] = type(x), isinstance(x, SymbolicTensor)
        seen["meta"] = (x.shape, x.dtype, x.ndim, x.size, len(x))
        rows = [r * (i + 1) for i, r in enumerate(x)]
        return ops.stack(rows)

    x = ms.Tensor(np.arange(6, dtype=np.float32).reshape(3, 2))
    traced = trace(f, (x,))
    assert seen["type"] is ms.Tensor and seen["traced"]  # graph code's type() reads a traced tensor as a Tensor
    assert seen["meta"] == ((3, 2), ms.float32, 2, 6, 3)
    assert_close(_run(traced, x), f(x))


@pytest.mark.parametrize("use", ["asnumpy", "item", "int", "float", "bool", "range", "data_ref", "numpy_array"])
def test_values_are_not_available_while_tracing(use):
    def f(x):
        if use == "asnumpy":
            return x.asnumpy()
        if use == "item":
            return x.item()
        if use == "int":
            return int(x)
        if use == "float":
            return float(x)
        if use == "bool":
            return bool(x)
        if use == "range":  # (a list of numbers indexed by it picks at run time, as in MindSpore)
            return list(range(x))
        if use == "data_ref":
            return x.data_ref()
        return np.asarray(x)

    with pytest.raises(GraphCaptureError) as info:
        trace(f, (ms.Tensor(np.array(1, np.int32)),))
    message = str(info.value)
    assert f"{HERE}:" in message and "not known while the graph is being compiled" in message


def test_infer_errors_name_the_user_line():
    def f(x):
        return ops.MatMul()(x, x)  # (2, 3) @ (2, 3): inner dimensions differ (raised by MatMul's infer)

    with pytest.raises(ValueError) as info:
        trace(f, (ms.Tensor(np.ones((2, 3), np.float32)),))
    assert "MatMul" in str(info.value) and f"{__file__}:" in str(info.value)


def test_cell_call_hook_keeps_pynative_path():
    rng = np.random.default_rng(3)
    net = MLP(rng)
    x = ms.Tensor(rng.standard_normal((2, 4)).astype(np.float32))
    before = net(x).asnumpy()
    trace(net.construct, (x,))
    np.testing.assert_array_equal(net(x).asnumpy(), before)  # tracing left the cell unchanged


def test_cell_with_forward_hook_is_traced_through_the_slow_path():
    rng = np.random.default_rng(4)
    net = MLP(rng)
    net.fc1.register_forward_hook(lambda cell, inputs, output: output * 0.5)
    x = ms.Tensor(rng.standard_normal((2, 4)).astype(np.float32))
    traced = trace(net.construct, (x,))
    assert any(n.op_name == "Mul" and n.scope.startswith("Default/") for n in traced.graph.nodes)
    assert_close(_run(traced, x), net(x))


def test_partial_of_construct_and_keyword_arguments():
    import functools
    rng = np.random.default_rng(5)
    net = MLP(rng)
    x = ms.Tensor(rng.standard_normal((2, 4)).astype(np.float32))
    traced = trace(functools.partial(MLP.construct, net), (), {"x": x}, name="mlp")
    assert traced.graph.name == "mlp" and [n.name for n in traced.graph.inputs] == ["x"]
    assert any(n.scope.startswith("Default/fc1-Dense/") for n in traced.graph.nodes)
    assert_close(_run(traced, x), net(x))


def test_tracing_a_cell_runs_its_call_path():
    rng = np.random.default_rng(6)
    net = MLP(rng)
    net.register_forward_hook(lambda cell, inputs, output: output + 100.0)
    x = ms.Tensor(rng.standard_normal((2, 4)).astype(np.float32))
    traced = trace(net, (x,))
    assert [n.name for n in traced.graph.inputs] == ["x"]
    assert [n.scope for n in traced.graph.nodes if n.is_primitive][:2] == ["Default/fc1-Dense/Transpose-op0",
                                                                           "Default/fc1-Dense/MatMul-op1"]
    assert_close(_run(traced, x), net(x))  # the root's forward hook is in the graph
