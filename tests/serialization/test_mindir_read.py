"""Reading MindIR: MindSpore's fixture exports run and reproduce MindSpore's outputs on both backends; every
encoding the reader handles is exercised on hand-built models; bad files fail with one clear error."""
import os
from collections import Counter

import numpy as np
import pytest

import openspore as ms
from openspore import nn
from openspore.serialization import MindIRError, UnsupportedOpError, mind_ir_pb2 as pb, read_model
from openspore.serialization.mindir_ops import check_table, supported_op_types
from openspore.serialization.mindir_values import MONAD
from tests.conftest import assert_close

MODELS = ["mlp", "lenet5", "resblock", "encoder", "branchy"]
A = pb.AttributeProto


def _fixture(fixtures_dir, name):
    x = np.load(os.path.join(fixtures_dir, f"{name}_input0.npy"))
    y = np.load(os.path.join(fixtures_dir, f"{name}_output.npy"))
    return os.path.join(fixtures_dir, f"{name}.mindir"), x, y


def _ops(graph):
    return Counter(n.op_name for g in graph.all_graphs() for n in g.nodes)


# ---- MindSpore's exports ------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", MODELS)
def test_fixture_reproduces_mindspore_output(backend, fixtures_dir, name):
    path, x, y = _fixture(fixtures_dir, name)
    net = nn.GraphCell(ms.load(path))
    out = net(ms.Tensor(x))
    assert out.shape == y.shape and out.dtype == ms.float32
    assert_close(out, y, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", MODELS)
def test_parameters_are_the_checkpoint_weights(fixtures_dir, name):
    graph = ms.load(os.path.join(fixtures_dir, f"{name}.mindir"))
    ckpt = ms.load_checkpoint(os.path.join(fixtures_dir, f"{name}.ckpt"))
    assert set(graph.parameters) == set(ckpt)
    for key, param in graph.parameters.items():
        assert param.name == key
        np.testing.assert_array_equal(param.asnumpy(), ckpt[key].asnumpy())
    assert [k for k, _ in nn.GraphCell(graph).parameters_and_names()] == list(graph.parameters)


def test_graph_contents(fixtures_dir):
    lenet = ms.load(os.path.join(fixtures_dir, "lenet5.mindir"))
    ops = _ops(lenet.graph)
    assert {k: ops[k] for k in ("Conv2D", "MaxPool", "ReLU", "Flatten", "MatMul", "BiasAdd", "weight")} == \
        {"Conv2D": 2, "MaxPool": 2, "ReLU": 4, "Flatten": 1, "MatMul": 3, "BiasAdd": 3, "weight": 8}
    assert not {"Load", "UpdateState", "Depend", "MakeTuple"} & set(ops)  # monad plumbing is dissolved
    conv = next(n for n in lenet.graph.nodes if n.op_name == "Conv2D")
    assert conv.attrs["kernel_size"] == (5, 5) and conv.attrs["pad_mode"] == "valid" and conv.attrs["out_channel"] == 6
    assert conv.scope == "Default/conv1-Conv2d/Conv2D-op0"
    pool = next(n for n in lenet.graph.nodes if n.op_name == "MaxPool")
    assert pool.abstract.shape == (2, 6, 14, 14)
    assert lenet.inputs == [("x", (2, 1, 32, 32), ms.float32)] and lenet.outputs[0].shape == (2, 10)
    res = _ops(ms.load(os.path.join(fixtures_dir, "resblock.mindir")).graph)
    assert res["BatchNorm"] == 3 and res["tuple_get_item"] == 3 and res["AdaptiveAvgPool2D"] == 1
    enc = ms.load(os.path.join(fixtures_dir, "encoder.mindir"))
    assert enc.inputs[0].dtype == ms.int32 and _ops(enc.graph)["LayerNorm"] == 2


def test_switch_partial_becomes_one_if_node(fixtures_dir):
    graph = ms.load(os.path.join(fixtures_dir, "branchy.mindir")).graph
    ifs = [n for n in graph.nodes if n.op == "if"]
    assert len(ifs) == 1 and ifs[0].inputs[0].op_name == "Greater"
    then_g, else_g = ifs[0].graphs
    assert "✓" in then_g.name and "✗" in else_g.name
    assert _ops(then_g)["Mul"] == 1 and _ops(else_g)["Sub"] == 1
    assert len(then_g.inputs) == len(else_g.inputs) == len(ifs[0].inputs) - 1


def test_both_branches_run(fixtures_dir):
    graph = ms.load(os.path.join(fixtures_dir, "branchy.mindir"))
    w, b = graph.parameters["fc.weight"].asnumpy(), graph.parameters["fc.bias"].asnumpy()
    net, taken = nn.GraphCell(graph), set()
    direction = w.sum(axis=0) / np.square(w.sum(axis=0)).sum()  # x . direction moves sum(fc(x)) by 1 per row
    for t in (abs(b.sum()) + 1, -abs(b.sum()) - 1):
        x = (np.outer([0.5, 1.0, 1.5], direction) * t + np.linspace(-0.1, 0.1, 6)).astype(np.float32)
        y = x @ w.T + b
        taken.add(bool(y.sum() > 0))
        y = y * 2 if y.sum() > 0 else y - 1
        for _ in range(3):
            y = np.tanh(y) + x
        assert_close(net(ms.Tensor(x)), y, rtol=1e-5, atol=1e-5)
    assert taken == {True, False}


def test_params_init(fixtures_dir):
    graph = ms.load(os.path.join(fixtures_dir, "lenet5.mindir"))
    x = ms.Tensor(np.load(os.path.join(fixtures_dir, "lenet5_input0.npy")))
    bias = np.arange(10, dtype=np.float32)
    net = nn.GraphCell(graph, params_init={"fc3.weight": ms.Tensor(np.zeros((10, 84), np.float32)),
                                           "fc3.bias": ms.Parameter(ms.Tensor(bias), name="b"),
                                           "not.in.graph": ms.Tensor(np.ones(3, np.float32))})
    assert_close(net(x), np.broadcast_to(bias, (2, 10)))
    with pytest.raises(ValueError, match="fc3.bias"):
        nn.GraphCell(graph, params_init={"fc3.bias": ms.Tensor(np.ones(3, np.float32))})
    with pytest.raises(TypeError, match="dict"):
        nn.GraphCell(graph, params_init=[("fc3.bias", bias)])
    with pytest.raises(TypeError, match="Tensor or Parameter"):
        nn.GraphCell(graph, params_init={"fc3.bias": bias})
    with pytest.raises(TypeError, match="FuncGraph"):
        nn.GraphCell("lenet5.mindir")
    with pytest.raises(NotImplementedError):
        nn.GraphCell(graph, obf_random_seed=7)


def test_graphcell_checks_inputs(fixtures_dir):
    net = nn.GraphCell(ms.load(os.path.join(fixtures_dir, "mlp.mindir")))
    with pytest.raises(ValueError, match=r"\[4, 20\]"):
        net(ms.Tensor(np.ones((3, 20), np.float32)))
    with pytest.raises(TypeError, match="Float32"):
        net(ms.Tensor(np.ones((4, 20), np.float64)))
    with pytest.raises(TypeError, match="1 inputs"):
        net(ms.Tensor(np.ones((4, 20), np.float32)), ms.Tensor(np.ones((4, 20), np.float32)))


def test_graphcell_runs_an_ir_graph(fixtures_dir):
    path, x, y = _fixture(fixtures_dir, "mlp")
    net = nn.GraphCell(ms.load(path).graph)
    assert sorted(k for k, _ in net.parameters_and_names()) == ["fc1.bias", "fc1.weight", "fc2.bias", "fc2.weight"]
    assert_close(net(ms.Tensor(x)), y, rtol=1e-5, atol=1e-5)


def test_load_mindir_returns_the_model_proto(fixtures_dir):
    model = ms.load_mindir(os.path.join(fixtures_dir, "branchy.mindir"))
    assert isinstance(model, pb.ModelProto)
    assert model.producer_name == "MindSpore" and model.mind_ir_version == 3 and len(model.functions) == 2
    kinds = {p.op_type: pb.PrimitiveProto.PrimType.Name(p.prim_type) for p in model.primitives}
    assert kinds["Switch"] == "PRIMITIVE" and kinds["SumExt"] == "PRIMITIVE_FUNCTION"


# ---- errors -------------------------------------------------------------------------------------------------
def test_unsupported_ops_are_all_listed(fixtures_dir, tmp_path):
    model = ms.load_mindir(os.path.join(fixtures_dir, "encoder.mindir"))
    renamed = {"Softmax": "FancySoftmax", "LayerNorm": "RMSNormX"}
    for prim in model.primitives:
        prim.op_type = renamed.get(prim.op_type, prim.op_type)
    path = tmp_path / "bad.mindir"
    path.write_bytes(model.SerializeToString())
    with pytest.raises(UnsupportedOpError) as info:
        ms.load(str(path))
    text = str(info.value)
    assert isinstance(info.value, ValueError) and isinstance(info.value, RuntimeError)
    assert str(path) in text and "2 unsupported operator type(s)" in text
    assert "FancySoftmax" in text and "RMSNormX" in text
    layer_norm_nodes = [n.name for n in model.graph.node if n.op_type.startswith("REF::LayerNorm")]
    assert len(layer_norm_nodes) == 2 and all(f"node '{n}'" in text for n in layer_norm_nodes)
    assert f"graph '{model.graph.name}'" in text


def test_file_errors(fixtures_dir, tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist") as info:
        ms.load(str(tmp_path / "missing.mindir"))
    assert isinstance(info.value, ValueError)
    with pytest.raises(ValueError, match="end with '.mindir'"):
        ms.load(os.path.join(fixtures_dir, "lenet5.ckpt"))
    with pytest.raises(ValueError, match="should be a str"):
        ms.load(3)
    data = open(os.path.join(fixtures_dir, "lenet5.mindir"), "rb").read()
    cases = {"empty": b"", "truncated": data[:len(data) // 2], "npy": open(os.path.join(fixtures_dir, "mlp_input0.npy"),
             "rb").read(), "ckpt": open(os.path.join(fixtures_dir, "mlp.ckpt"), "rb").read(), "text": b"hello world\n"}
    for label, content in cases.items():
        path = tmp_path / f"{label}.mindir"
        path.write_bytes(content)
        with pytest.raises(MindIRError, match="Failed to load the MindIR file") as info:
            ms.load(str(path))
        assert str(path) in str(info.value), label
    with pytest.raises(MindIRError, match="not a regular file"):
        os.mkdir(tmp_path / "dir.mindir")
        ms.load(str(tmp_path / "dir.mindir"))


def test_encrypted_models(fixtures_dir, tmp_path):
    from openspore.train import _ckpt_format
    path, x, y = _fixture(fixtures_dir, "mlp")
    key = b"0123456789abcdef"
    enc = tmp_path / "enc.mindir"
    enc.write_bytes(_ckpt_format.encrypt(open(path, "rb").read(), key, "AES-GCM"))
    with pytest.raises(MindIRError, match="encrypted"):
        ms.load(str(enc))
    with pytest.raises(MindIRError, match="decrypt"):
        ms.load(str(enc), dec_key=b"fedcba9876543210")
    assert_close(nn.GraphCell(ms.load(str(enc), dec_key=key))(ms.Tensor(x)), y, rtol=1e-5, atol=1e-5)
    flipped = tmp_path / "xor.mindir"
    flipped.write_bytes(bytes(v ^ 0x5A for v in open(path, "rb").read()))
    graph = ms.load(str(flipped), dec_key=b"k", dec_mode=lambda data, k: bytes(v ^ 0x5A for v in data))
    assert_close(nn.GraphCell(graph)(ms.Tensor(x)), y, rtol=1e-5, atol=1e-5)
    with pytest.raises(NotImplementedError):
        ms.load(path, obf_func=lambda *a: True)


def test_external_data(fixtures_dir, tmp_path):
    path, x, y = _fixture(fixtures_dir, "mlp")
    model = ms.load_mindir(path)
    os.mkdir(tmp_path / "mlp_variables")
    blob = bytearray()
    for tp in model.graph.parameter:
        blob += b"\0" * (-len(blob) % 64)  # MindSpore aligns each block to 64 bytes
        tp.external_data.location, tp.external_data.offset, tp.external_data.length = \
            "mlp_variables/data_0", len(blob), len(tp.raw_data)
        blob += tp.raw_data
        tp.ClearField("raw_data")
    (tmp_path / "mlp_variables" / "data_0").write_bytes(bytes(blob))
    (tmp_path / "mlp_graph.mindir").write_bytes(model.SerializeToString())
    graph = ms.load(str(tmp_path / "mlp_graph.mindir"))
    assert_close(nn.GraphCell(graph)(ms.Tensor(x)), y, rtol=1e-5, atol=1e-5)
    bad_cases = {"data_9": "cannot read external data", "../x": "leaves the model's directory",
                 "/etc/hostname": "relative"}
    for location, message in bad_cases.items():
        broken = pb.ModelProto.FromString(model.SerializeToString())
        broken.graph.parameter[1].external_data.location = location
        with pytest.raises(MindIRError, match=message):
            read_model(broken, "broken.mindir", str(tmp_path))
    short = pb.ModelProto.FromString(model.SerializeToString())
    short.graph.parameter[0].external_data.length -= 4
    with pytest.raises(MindIRError, match="does not fit"):
        read_model(short, "short.mindir", str(tmp_path))


# ---- hand-built models: every encoding --------------------------------------------------------------------------
class ModelBuilder:
    """A minimal MindIR writer for tests, encoding values the way MindSpore's exports do."""

    def __init__(self, name="g"):
        self.model = pb.ModelProto(ir_version="1.1", producer_name="test", little_endian=True, mind_ir_version=3)
        self.g = self.model.graph
        self.g.name = name
        self.count = 0

    def _name(self, label):
        self.count += 1
        return f"{self.g.name}:{label}:{self.count}"

    def input(self, label, shape, data_type=1):
        vi = self.g.input.add(name=f"{self.g.name}:{label}")
        vi.tensor.add(dims=shape, data_type=data_type)
        return vi.name

    def param(self, key, array):
        self.g.parameter.add(dims=array.shape, data_type=1, name=f"{self.g.name}:{key}", ref_key=key,
                             raw_data=array.astype(np.float32).tobytes())
        return f"{self.g.name}:{key}"

    def prim(self, op_type, function=True, **attrs):
        p = self.model.primitives.add(name=f"{op_type}:{len(self.model.primitives)}", op_type=op_type)
        p.prim_type = pb.PrimitiveProto.PRIMITIVE_FUNCTION if function else pb.PrimitiveProto.PRIMITIVE
        for key, value in attrs.items():
            p.attribute.append(encode(value, key))
        return "REF::" + p.name

    def const(self, value):
        name = f"ValueNode_{self.count}"
        self.count += 1
        self.g.node.add(output=[name], name=name, op_type="Constant").attribute.append(encode(value, "value"))
        return name

    def node(self, op_type, *inputs, **attrs):
        out = self._name("CNode")
        node = self.g.node.add(input=inputs, output=[out], name=out, op_type=op_type)
        for key, value in attrs.items():
            node.attribute.append(encode(value, key))
        return out

    def output(self, name):
        self.g.output.add(name=name)
        return self.model


def encode(value, name="", element=False):
    a = A(name=name)
    if value is MONAD:
        a.type = A.UMONAD
    elif value is None:
        a.type = A.NONE
    elif isinstance(value, bool):
        a.type = A.BOOL
        a.ints.append(int(value)) if element else setattr(a, "i", int(value))
    elif isinstance(value, int):
        a.type = A.INT64
        a.ints.append(value) if element else setattr(a, "i", value)
    elif isinstance(value, float):
        a.type = A.FLOAT
        a.floats.append(value) if element else setattr(a, "f", value)
    elif isinstance(value, str):
        a.type = A.STRING
        a.strings.append(value.encode()) if element else setattr(a, "s", value.encode())
    elif isinstance(value, (tuple, list)):
        a.type = A.TUPLE if isinstance(value, tuple) else A.LIST
        a.values.extend(encode(v, element=True) for v in value)
    elif isinstance(value, np.ndarray):
        a.type = A.TENSORS
        a.tensors.add(dims=value.shape, data_type={np.float32: 1, np.int64: 7}[value.dtype.type],
                      name="value0", raw_data=value.tobytes())
    else:
        raise TypeError(value)
    return a


def _run(model, *inputs):
    return nn.GraphCell(read_model(model, "built.mindir"))(*[ms.Tensor(v) for v in inputs]).asnumpy()


def test_converter_table_is_consistent():
    assert check_table() == []
    assert {"Conv2D", "MatMulExt", "SumExt", "Switch", "Partial", "Load"} <= set(supported_op_types())


def test_primitive_attributes_and_legacy_op_types(backend):
    rng = np.random.default_rng(0)
    x, w, bias = (rng.standard_normal(s).astype(np.float32) for s in ((2, 3), (4, 3), (4,)))
    m = ModelBuilder()
    xi, u = m.input("x", [2, 3]), m.const(MONAD)
    wl = m.node("REF::" + m.model.primitives.add(name="Load:9", op_type="Load", prim_type=1).name, m.param("w", w), u)
    mm = m.node(m.prim("MatMul", False, transpose_a=False, transpose_b=True, input_names=["x1", "x2"]), xi, wl)
    ba = m.node(m.prim("BiasAdd", False, format="NCHW"), mm, m.param("b", bias))
    out = m.node("Add", ba, ba)  # old-style op type: no REF::, no primitive entry
    assert_close(_run(m.output(out), x), 2 * (x @ w.T + bias), rtol=1e-5, atol=1e-5)


def test_function_constants(backend):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    m = ModelBuilder()
    xi = m.input("x", [2, 3, 4])
    s = m.node(m.prim("SumExt"), xi, m.const((2,)), m.const(True), m.const(None))            # (2, 3, 1)
    r = m.node(m.prim("Reshape"), s, m.const((2, 3)))
    d = m.node(m.prim("Div"), r, m.const(np.array(2.0, np.float32)))
    h = m.node(m.prim("Muls"), d, m.const(0.5))
    g = m.node(m.prim("GeluExt"), h, m.const("tanh"))
    parts = m.node(m.prim("Split"), xi, m.const(1), m.const(3))
    second = m.node(m.prim("TupleGetItem", False), parts, m.const(1))                        # (2, 1, 4)
    sq = m.node(m.prim("Reshape"), second, m.const((2, 4)))
    cat = m.node(m.prim("Concat"), m.node(m.prim("MakeTuple", False), g, sq), m.const(1))   # (2, 7)
    out = m.node(m.prim("Softmax"), cat, m.const((-1,)))
    h_ref = x.sum(axis=2) / 2.0 * 0.5
    g_ref = 0.5 * h_ref * (1 + np.tanh(np.sqrt(2 / np.pi) * (h_ref + 0.044715 * h_ref ** 3)))
    cat_ref = np.concatenate([g_ref, x[:, 1, :]], axis=1)
    e = np.exp(cat_ref - cat_ref.max(axis=1, keepdims=True))
    assert_close(_run(m.output(out), x), e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("shapes", [((3,), (3, 4)), ((2, 5, 3), (3, 4)), ((2, 3), (3,)), ((2, 1, 2, 3), (4, 3, 2))])
def test_matmul_ext_follows_matmul_semantics(shapes):
    rng = np.random.default_rng(2)
    a, b = (rng.standard_normal(s).astype(np.float32) for s in shapes)
    m = ModelBuilder()
    out = m.node(m.prim("MatMulExt"), m.input("a", list(a.shape)), m.input("b", list(b.shape)))
    assert_close(_run(m.output(out), a, b), a @ b, rtol=1e-5, atol=1e-5)


def test_promotion_is_explicit():
    m = ModelBuilder()
    xi = m.input("x", [3], data_type=7)  # int64
    out = m.node(m.prim("Add"), xi, m.const(np.array(0.5, np.float32)))
    graph = read_model(m.output(out), "built.mindir").graph
    assert "Cast" in _ops(graph)
    assert_close(_run(m.model, np.arange(3, dtype=np.int64)), np.arange(3) + 0.5)


def test_constant_switch_condition_is_resolved_at_load():
    m = ModelBuilder()
    xi = m.input("x", [2])
    for label, op in (("t", "Exp"), ("f", "Neg")):
        fn = m.model.functions.add(name=label)
        fn.input.add(name=f"{label}:x").tensor.add(dims=[2], data_type=1)
        fn.node.add(input=[f"{label}:x"], output=[f"{label}:y"], name=f"{label}:y", op_type=op)
        fn.output.add(name=f"{label}:y")
    pt, pf = (m.node(m.prim("Partial", False), name, xi) for name in ("t", "f"))
    sw = m.node(m.prim("Switch", False), m.const(False), pt, pf)
    call = m.node("REF::" + sw)
    model = m.output(call)
    assert "if" not in _ops(read_model(model, "built.mindir").graph)
    assert_close(_run(model, np.array([1.0, 2.0], np.float32)), [-1.0, -2.0])


def test_malformed_graphs_fail_cleanly():
    m = ModelBuilder()
    out = m.node(m.prim("ReLU"), "g:nowhere")
    with pytest.raises(MindIRError, match=r"node 'g:CNode:1' \(REF::ReLU:0\): the value 'g:nowhere' is used"):
        read_model(m.output(out), "built.mindir")
    m = ModelBuilder()
    fn = m.model.functions.add(name="loop")
    fn.input.add(name="loop:x").tensor.add(dims=[2], data_type=1)
    fn.node.add(input=["loop:x"], output=["loop:y"], name="loop:y", op_type="REF::loop")
    fn.output.add(name="loop:y")
    out = m.node("REF::loop", m.input("x", [2]))
    with pytest.raises(MindIRError, match="recursive"):
        read_model(m.output(out), "built.mindir")
    m = ModelBuilder()
    out = m.node(m.prim("BiasAdd"), m.input("x", [2, 3]), m.param("b", np.ones(3, np.float32)), m.const(7))
    with pytest.raises(MindIRError, match="enum value 7"):
        read_model(m.output(out), "built.mindir")
    m = ModelBuilder()
    out = m.node(m.prim("Reshape"), m.input("x", [2, 3]), m.const((4, 2)))
    with pytest.raises(MindIRError, match="Reshape"):
        read_model(m.output(out), "built.mindir")
    empty = pb.ModelProto()
    with pytest.raises(MindIRError, match="no graph"):
        read_model(empty, "empty.mindir")
