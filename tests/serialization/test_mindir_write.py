"""Writing MindIR: openspore → MindIR → openspore round trips for the test zoo, files shaped like MindSpore's own
exports (the fixtures), every writable primitive read back as itself, large-model layout, atomic writes and
argument errors."""
import importlib
import os
import stat
from collections import Counter

import numpy as np
import pytest

import openspore as ms
from openspore import nn, ops
from openspore.core.primitive import PRIMITIVES
from openspore.serialization import ExportError, MindIRError, UnsupportedExportError, mind_ir_pb2 as pb
from openspore.serialization.mindir_write_ops import supported_primitives
from tests.nn.fixture_nets import FIXTURE_NETS, Branchy

export_mod = importlib.import_module("openspore.serialization.export")  # the package attribute is the function
PB = pb.PrimitiveProto
PLUMBING = {"Load", "MakeTuple", "UpdateState", "Depend", "TupleGetItem", "Partial", "Switch"}
INPUT_SHAPES = {"mlp": ((4, 20), np.float32), "lenet5": ((2, 1, 32, 32), np.float32),
                "resblock": ((2, 8, 16, 16), np.float32), "encoder": ((2, 7), np.int32), "branchy": ((3, 6), np.float32)}


ZOO = dict(FIXTURE_NETS, branchy=Branchy)


@pytest.fixture(autouse=True)
def _primitives_as_written():
    """These tests compare a loaded graph bit for bit with the network that wrote it: the GraphCell runs the very
    primitives it read (the inference path folds and fuses them, within float32 rounding: tests/runtime/
    test_inference.py)."""
    ms.set_context(inference_engine="off")


def make_net(name, fixtures_dir=None):
    """The zoo network in eval mode (with the fixture's weights when a fixtures directory is given) and an input."""
    ms.set_seed(1)
    net = ZOO[name]()
    net.set_train(False)
    if fixtures_dir is not None:
        ms.load_param_into_net(net, ms.load_checkpoint(os.path.join(fixtures_dir, f"{name}.ckpt")))
        return net, ms.Tensor(np.load(os.path.join(fixtures_dir, f"{name}_input0.npy")))
    shape, dtype = INPUT_SHAPES[name]
    rng = np.random.default_rng(3)
    x = rng.integers(0, 50, shape).astype(dtype) if dtype == np.int32 else rng.standard_normal(shape).astype(dtype)
    if name == "resblock":  # eval mode reads the moving statistics: make them non-trivial
        for p in net.get_parameters():
            if "moving" in p.name:
                p.set_data(ms.Tensor(rng.uniform(0.5, 1.5, p.shape).astype(np.float32)))
    return net, ms.Tensor(x)


def read_proto(path):
    model = pb.ModelProto()
    with open(path, "rb") as f:
        model.ParseFromString(f.read())
    return model


def op_types(model):
    prims = {p.name: p for p in model.primitives}
    out = Counter()
    for g in [model.graph, *model.functions]:
        for n in g.node:
            ref = n.op_type[5:]
            out[n.op_type if n.op_type == "Constant" else prims[ref].op_type if ref in prims else "call"] += 1
    return out


def primitive_kinds(model):
    """op_type -> set of (prim_type, instance_name, attributes) of the primitives that op uses."""
    out = {}
    for p in model.primitives:
        attrs = tuple((a.name, a.SerializeToString(deterministic=True)) for a in p.attribute)
        out.setdefault(p.op_type, set()).add((p.prim_type, p.instance_name, attrs))
    return out


def parameters(model):
    return [(t.ref_key, tuple(t.dims), t.data_type, t.raw_data) for t in model.graph.parameter]


def _assert_same_outputs(actual, expected):
    """Bit-identical on the CPU (the same kernels run); on a GPU, cuBLAS may fuse the bias of the eager Dense
    differently from the loaded MatMul + BiasAdd, so one float32 rounding step apart."""
    if ms.get_context("device_target") == "CPU":
        np.testing.assert_array_equal(actual, expected)
    else:
        np.testing.assert_allclose(actual, expected, rtol=1e-6, atol=1e-7)


# ---- round trips -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(ZOO))
def test_zoo_round_trip(backend, tmp_path, name):
    net, x = make_net(name)
    expected = net(x).asnumpy()
    ms.export(net, x, file_name=str(tmp_path / name), file_format="MINDIR")
    graph = ms.load(str(tmp_path / f"{name}.mindir"))
    cell = nn.GraphCell(graph)
    _assert_same_outputs(cell(x).asnumpy(), expected)
    for key, param in net.parameters_dict().items():
        np.testing.assert_array_equal(graph.parameters[key].asnumpy(), param.asnumpy())
    assert [i.name for i in graph.inputs] == (["ids"] if name == "encoder" else ["x"])


def test_branchy_round_trip_takes_both_branches(tmp_path):
    net, x = make_net("branchy")
    ms.export(net, x, file_name=str(tmp_path / "b"))
    cell = nn.GraphCell(ms.load(str(tmp_path / "b.mindir")))
    inputs = [x, ms.Tensor(-10 * x.asnumpy())]
    taken = {bool(net.fc(v).sum().asnumpy() > 0) for v in inputs}
    assert taken == {True, False}
    for v in inputs:
        np.testing.assert_array_equal(cell(v).asnumpy(), net(v).asnumpy())


def test_export_in_graph_mode_and_from_the_fixture_weights(fixtures_dir, tmp_path):
    ms.set_context(mode=ms.GRAPH_MODE)
    net, x = make_net("lenet5", fixtures_dir)
    ms.export(net, x, file_name=str(tmp_path / "lenet5"), file_format="MINDIR")
    out = nn.GraphCell(ms.load(str(tmp_path / "lenet5.mindir")))(x)
    expected = np.load(os.path.join(fixtures_dir, "lenet5_output.npy"))
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-5, atol=1e-5)


def test_tuple_output_round_trip(tmp_path):
    class TwoHeads(nn.Cell):
        def __init__(self):
            super().__init__()
            self.a, self.b = nn.Dense(3, 2), nn.Dense(3, 4)

        def construct(self, x):
            return self.a(x), ops.relu(self.b(x))

    net = TwoHeads()
    x = ms.Tensor(np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32))
    ms.export(net, x, file_name=str(tmp_path / "two"))
    out = nn.GraphCell(ms.load(str(tmp_path / "two.mindir")))(x)
    assert isinstance(out, tuple) and len(out) == 2
    for got, want in zip(out, net(x)):
        np.testing.assert_array_equal(got.asnumpy(), want.asnumpy())


def test_training_mode_export_writes_batchnorm_updates(tmp_path):
    """Export compiles the cell in its current mode: training BatchNorm and its moving-statistics writes."""
    net, x = make_net("resblock")
    twin, _ = make_net("resblock")
    net.set_train(True)
    twin.set_train(True)
    ms.export(net, x, file_name=str(tmp_path / "train"))
    model = read_proto(str(tmp_path / "train.mindir"))
    attrs = {a.name: a for a in model.graph.attribute}
    assert attrs["training"].i == 1
    kinds = op_types(model)
    assert kinds["AssignSub"] == 6 and kinds["UpdateState"] > 6
    assert primitive_kinds(model)["BatchNorm"] == {(PB.PRIMITIVE_FUNCTION, "bn_train", ())}
    cell = nn.GraphCell(ms.load(str(tmp_path / "train.mindir")))
    np.testing.assert_array_equal(cell(x).asnumpy(), twin(x).asnumpy())
    params = dict(cell.parameters_and_names())
    for key, param in twin.parameters_dict().items():
        np.testing.assert_array_equal(params[key].asnumpy(), param.asnumpy())  # moving statistics updated alike


# ---- MindSpore's conventions ---------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["mlp", "lenet5", "resblock"])
def test_file_is_shaped_like_mindspores(fixtures_dir, tmp_path, name):
    net, x = make_net(name, fixtures_dir)
    ms.export(net, x, file_name=str(tmp_path / name))
    ours, theirs = read_proto(str(tmp_path / f"{name}.mindir")), read_proto(os.path.join(fixtures_dir, f"{name}.mindir"))
    assert op_types(ours) == op_types(theirs)  # plumbing and constants included
    assert primitive_kinds(ours) == primitive_kinds(theirs)
    assert parameters(ours) == parameters(theirs)
    for field in ("ir_version", "producer_name", "model_version", "little_endian", "mind_ir_version"):
        assert getattr(ours, field) == getattr(theirs, field)
    assert [a.name for a in ours.graph.attribute] == [a.name for a in theirs.graph.attribute]
    assert [(vi.name.rpartition(":")[2], list(vi.tensor)) for vi in ours.graph.input] == \
        [(vi.name.rpartition(":")[2], list(vi.tensor)) for vi in theirs.graph.input]
    assert list(ours.graph.output[0].tensor) == list(theirs.graph.output[0].tensor)
    _check_node_conventions(ours)
    domains = sorted(n.domain for n in ours.graph.node if n.op_type.startswith("REF::") and "Load" not in n.domain
                     and "MakeTuple" not in n.domain and "UpdateState" not in n.domain)
    assert domains == sorted(n.domain for n in theirs.graph.node if n.op_type.startswith("REF::")
                             and not any(k in n.domain for k in ("Load", "MakeTuple", "UpdateState")))


def test_encoder_file_matches_mindspore_where_the_layers_agree(fixtures_dir, tmp_path):
    """openspore's MultiheadAttention composes other ops than MindSpore's (MatMul+BiasAdd and BatchMatMul where
    MindSpore uses MatMulExt+Add, Mul by the scale where it divides), so only the shared parts are compared."""
    net, x = make_net("encoder", fixtures_dir)
    ms.export(net, x, file_name=str(tmp_path / "encoder"))
    ours, theirs = read_proto(str(tmp_path / "encoder.mindir")), read_proto(os.path.join(fixtures_dir, "encoder.mindir"))
    assert sorted(parameters(ours)) == sorted(parameters(theirs))
    mine, ref = primitive_kinds(ours), primitive_kinds(theirs)
    for op in set(mine) & set(ref):
        assert {k[0] for k in mine[op]} == {k[0] for k in ref[op]}, op
    for op in ("Gather", "Reshape", "LayerNorm", "MatMul", "BiasAdd"):
        assert {k[1] for k in mine[op]} == {k[1] for k in ref[op]}, op
    assert ours.graph.input[0].tensor[0].data_type == pb.TensorProto.INT32
    _check_node_conventions(ours)


def test_control_flow_is_written_as_mindspore_does(fixtures_dir, tmp_path):
    net, x = make_net("branchy", fixtures_dir)
    ms.export(net, x, file_name=str(tmp_path / "branchy"))
    ours, theirs = read_proto(str(tmp_path / "branchy.mindir")), read_proto(os.path.join(fixtures_dir, "branchy.mindir"))
    for model in (ours, theirs):
        kinds = op_types(model)
        assert (kinds["Partial"], kinds["Switch"], kinds["call"], kinds["Tanh"], kinds["Add"]) == (2, 1, 1, 3, 3)
        assert len(model.functions) == 2
        assert sorted("✓" in g.name for g in model.functions) == [False, True]
        for g in model.functions:
            assert g.input[-1].denotation == "UMonadType" and g.input[-1].attr_info.type == pb.AttributeProto.UMONAD
            last = g.node[-1]
            assert {p.name: p.op_type for p in model.primitives}[last.op_type[5:]] == "Depend"
            assert last.input[1] == g.input[-1].name and g.output[0].name == last.name
            assert [a.name for a in g.attribute] == ["defer_inline", "undeterminate", "training"]
        call = next(n for n in model.graph.node if op_types_of(model, n) == "call")
        assert not call.input and call.op_type.startswith(f"REF::{model.graph.name}:")
        switch = next(n for n in model.graph.node if op_types_of(model, n) == "Switch")
        assert call.op_type == f"REF::{switch.name}"
        assert switch.attribute[0].type == pb.AttributeProto.UNIONFUNCCLOSURE
        partials = [n for n in model.graph.node if op_types_of(model, n) == "Partial"]
        assert sorted(p.input[0] for p in partials) == sorted(g.name for g in model.functions)
        assert all(p.attribute[0].type == pb.AttributeProto.FUNCGRAPHCLOSURE for p in partials)
    assert primitive_kinds(ours)["Partial"] == primitive_kinds(theirs)["Partial"]
    assert parameters(ours) == parameters(theirs)


def op_types_of(model, node):
    prims = {p.name: p.op_type for p in model.primitives}
    return prims.get(node.op_type[5:], "call") if node.op_type != "Constant" else "Constant"


def _check_node_conventions(model):
    g = model.graph
    prefix = g.name + ":"
    loads = 0
    for n in g.node:
        assert list(n.output) == [n.name]
        if n.op_type == "Constant":
            assert n.name.startswith("ValueNode_") and not n.domain and [a.name for a in n.attribute] == ["value"]
            continue
        assert n.name.startswith(prefix) and n.op_type.startswith("REF::")
        assert [(a.name, a.type, a.i) for a in n.node_attr] == [("checkpoint", pb.AttributeProto.BOOL, 1)]
        assert n.domain.startswith("Default/") and "-op" in n.domain
        assert n.attribute[0].name == "shape"
        if op_types_of(model, n) == "Load":
            loads += 1
            assert n.input[0][len(prefix):] in {t.ref_key for t in g.parameter}
    assert loads == len(g.parameter)
    assert op_types_of(model, g.node[-1]) == "Depend" and g.output[0].name == g.node[-1].name
    assert [p.name for p in g.parameter] == [prefix + p.ref_key for p in g.parameter]
    assert all(p.compression_type == pb.TensorProto.NO_COMPRESSION for p in g.parameter)


# ---- every writable primitive ------------------------------------------------------------------------------------
class OpCell(nn.Cell):
    """Calls one primitive: tensor arguments are the cell's inputs, the others are baked in."""

    def __init__(self, prim, template):
        super().__init__()
        self.prim, self.template = prim, template

    def construct(self, *xs):
        it = iter(xs)
        return self.prim(*[_fill(a, it) for a in self.template])


def _fill(template, it):
    if template is None:
        return next(it)
    if isinstance(template, tuple) and template and template[0] == "__tuple__":
        return tuple(next(it) for _ in range(template[1]))
    return template


def sample_cell(prim, args):
    """(OpCell, tensor inputs) for one Sample's arguments (tuples of arrays become tuples of inputs)."""
    tensors, template = [], []
    for a in args:
        if isinstance(a, np.ndarray):
            tensors.append(ms.Tensor(a))
            template.append(None)
        elif isinstance(a, (tuple, list)) and a and all(isinstance(v, np.ndarray) for v in a):
            tensors.extend(ms.Tensor(v) for v in a)
            template.append(("__tuple__", len(a)))
        else:
            template.append(a)
    return OpCell(prim, template), tensors


def _same_attr(a, b):
    if isinstance(a, float) or isinstance(b, float):
        return np.float32(a) == np.float32(b)  # MindIR stores Python floats as FLOAT (float32), as MindSpore does
    if isinstance(a, tuple) and not isinstance(b, tuple):
        return a == (b,) * len(a)  # Softmax axis and output_size are written as tuples
    return a == b


def _writable_samples():
    rng = np.random.default_rng(0)
    for name in supported_primitives():
        cls = PRIMITIVES.get(name)
        if cls is None or cls.side_effect:
            continue
        for k, sample in enumerate(cls.samples(rng)):
            yield pytest.param(name, sample, id=f"{name}-{k}")


@pytest.mark.parametrize("name,sample", list(_writable_samples()))
def test_every_writable_primitive_reads_back_as_itself(tmp_path, name, sample):
    prim = PRIMITIVES[name](**sample.attrs)
    net, tensors = sample_cell(prim, sample.args)
    ms.set_seed(5)
    expected = net(*tensors)
    ms.export(net, *tensors, file_name=str(tmp_path / "op"))
    graph = ms.load(str(tmp_path / "op.mindir"))
    ms.set_seed(5)
    got = nn.GraphCell(graph)(*tensors)
    expected = expected if isinstance(expected, tuple) else (expected,)
    got = got if isinstance(got, tuple) else (got,)
    float_attrs = any(isinstance(v, float) for v in prim.attrs.values())
    for g, e in zip(got, expected):
        if float_attrs:  # MindIR stores float attributes as float32: 1e-3 comes back as 0.0010000000475
            np.testing.assert_allclose(g.asnumpy(), e.asnumpy(), rtol=2e-6, atol=1e-6)
        else:
            np.testing.assert_array_equal(g.asnumpy(), e.asnumpy())
    if name in export_mod_aliases():
        return
    nodes = [n for n in graph.graph.nodes if n.op_name == name]
    assert len(nodes) == 1
    assert nodes[0].attrs.keys() == prim.attrs.keys()
    for key, value in prim.attrs.items():
        assert _same_attr(nodes[0].attrs[key], value), (key, nodes[0].attrs[key], value)


def export_mod_aliases():
    from openspore.serialization.mindir_write_ops import ALIASES
    return ALIASES


# ---- files --------------------------------------------------------------------------------------------------------
def test_file_is_read_only_suffixed_and_replaced_atomically(tmp_path):
    net, x = make_net("mlp")
    ms.export(net, x, file_name=str(tmp_path / "m"))
    path = tmp_path / "m.mindir"
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o400
    ms.export(net, x, file_name=str(path))  # already suffixed; replaces the read-only file
    assert sorted(os.listdir(tmp_path)) == ["m.mindir"]


def test_failed_write_leaves_nothing_behind(tmp_path, monkeypatch):
    net, x = make_net("mlp")

    def broken(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(export_mod.os, "replace", broken)
    with pytest.raises(OSError, match="No space"):
        ms.export(net, x, file_name=str(tmp_path / "m"))
    assert os.listdir(tmp_path) == []

    def custom(model):
        raise RuntimeError("custom_func failed")

    monkeypatch.undo()
    with pytest.raises(RuntimeError, match="custom_func failed"):
        ms.export(net, x, file_name=str(tmp_path / "m"), custom_func=custom)
    assert os.listdir(tmp_path) == []


def test_large_models_use_the_external_data_layout(tmp_path, monkeypatch):
    monkeypatch.setattr(export_mod, "PARAMETER_SPLIT_SIZE", 1000)
    monkeypatch.setattr(export_mod, "EXTERNAL_FILE_SIZE", 100_000)
    net, x = make_net("lenet5")
    expected = net(x).asnumpy()
    ms.export(net, x, file_name=str(tmp_path / "big"))
    assert sorted(os.listdir(tmp_path)) == ["big_graph.mindir", "big_variables"]
    files = sorted(os.listdir(tmp_path / "big_variables"))
    assert files == ["data_0", "data_1", "data_2"]  # fc1.weight (192000 bytes) gets a file of its own
    model = read_proto(str(tmp_path / "big_graph.mindir"))
    weights = dict(net.parameters_dict())
    for tp in model.graph.parameter:
        ext = tp.external_data
        assert not tp.HasField("raw_data") and ext.location.startswith("big_variables/data_")
        assert ext.offset % 64 == 0 and ext.length == weights[tp.ref_key].asnumpy().nbytes
        with open(tmp_path / ext.location, "rb") as f:
            f.seek(ext.offset)
            assert f.read(ext.length) == weights[tp.ref_key].asnumpy().tobytes()
    for name in files:
        size = os.path.getsize(tmp_path / "big_variables" / name)
        assert size % 64 == 0 and (size <= 100_000 or name == "data_1")
        with open(tmp_path / "big_variables" / name, "rb") as f:
            assert f.read(64) == b"\x01" + b"\0" * 63  # the byte-order flag MindSpore's loader checks
    out = nn.GraphCell(ms.load(str(tmp_path / "big_graph.mindir")))(x)
    _assert_same_outputs(out.asnumpy(), expected)
    ms.export(net, x, file_name=str(tmp_path / "big"))  # exporting again replaces both parts
    assert sorted(os.listdir(tmp_path)) == ["big_graph.mindir", "big_variables"]


def test_encrypted_export_round_trip(tmp_path):
    pytest.importorskip("cryptography")
    net, x = make_net("mlp")
    key = b"0123456789abcdef"
    ms.export(net, x, file_name=str(tmp_path / "enc"), enc_key=key, enc_mode="AES-GCM")
    with pytest.raises(MindIRError, match="encrypted"):
        ms.load(str(tmp_path / "enc.mindir"))
    out = nn.GraphCell(ms.load(str(tmp_path / "enc.mindir"), dec_key=key, dec_mode="AES-GCM"))(x)
    np.testing.assert_array_equal(out.asnumpy(), net(x).asnumpy())


def test_custom_func_and_save_mindir(fixtures_dir, tmp_path):
    net, x = make_net("mlp")

    def tag(model):
        model.user_info["exported_by"] = "test"

    ms.export(net, x, file_name=str(tmp_path / "tagged"), custom_func=tag)
    model = ms.load_mindir(str(tmp_path / "tagged.mindir"))
    assert dict(model.user_info) == {"exported_by": "test"}
    fixture = ms.load_mindir(os.path.join(fixtures_dir, "lenet5.mindir"))
    ms.save_mindir(fixture, str(tmp_path / "copy"))
    assert ms.load_mindir(str(tmp_path / "copy.mindir")) == fixture
    with pytest.raises(TypeError, match="ModelProto"):
        ms.save_mindir(b"bytes", str(tmp_path / "x"))


# ---- errors -------------------------------------------------------------------------------------------------------
def test_bad_arguments(tmp_path):
    net, x = make_net("mlp")
    f = str(tmp_path / "m")
    with pytest.raises(ValueError, match="'file_format' must be one of"):
        ms.export(net, x, file_name=f, file_format="TFLITE")
    with pytest.raises(ValueError, match="AIR"):
        ms.export(net, x, file_name=f, file_format="AIR")
    with pytest.raises(ValueError, match="inputs are required"):
        ms.export(net, file_name=f)
    with pytest.raises(TypeError, match="should be a Cell"):
        ms.export(lambda v: v, x, file_name=f)
    with pytest.raises(TypeError, match="file_name"):
        ms.export(net, x, file_name=3)
    with pytest.raises(ValueError, match="unknown option"):
        ms.export(net, x, file_name=f, enc_kye=b"0" * 16)
    with pytest.raises(TypeError, match="network inputs should be Tensors"):
        ms.export(net, "x", file_name=f)
    assert os.listdir(tmp_path) == []


def test_unsupported_operators_are_listed_together(tmp_path):
    class Odd(nn.Cell):
        def construct(self, x):
            y = ops.cumsum(x, 0)
            z = ops.cast(y, ms.float16)
            while z.sum() > 0:
                z = z - 1
            return z

    with pytest.raises(UnsupportedExportError) as info:
        ms.export(Odd(), ms.Tensor(np.ones((2, 3), np.float32)), file_name=str(tmp_path / "odd"))
    message = str(info.value)
    assert "CumSum" in message and "Cast" in message and "while" in message
    assert isinstance(info.value, ExportError) and os.listdir(tmp_path) == []
