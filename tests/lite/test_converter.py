"""converter_lite: ONNX input (a torch CNN exported with torch.onnx.export), failures, the .ms file format."""
import os
import sys

import numpy as np
import pytest

from openspore import lite as mslite
from openspore.lite import msfile
from tests.lite.helpers import converter_lite

torch = pytest.importorskip("torch")
onnx = pytest.importorskip("onnx")


class SmallCNN(torch.nn.Module):
    """conv-BN-ReLU, a strided conv, a residual 1x1 branch, padded max pool, global average pool, Linear."""

    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(8)
        self.c2 = torch.nn.Conv2d(8, 8, 3, stride=2, padding=1, bias=False)
        self.skip = torch.nn.Conv2d(8, 8, 1, stride=2)
        self.fc = torch.nn.Linear(8, 5)

    def forward(self, x):
        x = torch.relu(self.bn(self.c1(x)))
        x = torch.nn.functional.max_pool2d(x, 3, stride=1, padding=1)
        y = torch.relu(self.c2(x) + self.skip(x))
        y = torch.nn.functional.adaptive_avg_pool2d(y, 1).flatten(1)
        return torch.softmax(self.fc(y), dim=-1)


def _export(tmp_path):
    torch.manual_seed(0)
    net = SmallCNN().eval()
    with torch.no_grad():
        net.bn.running_mean.uniform_(-0.5, 0.5)
        net.bn.running_var.uniform_(0.5, 2.0)
    x = torch.randn(2, 3, 16, 16)
    path = str(tmp_path / "cnn.onnx")
    torch.onnx.export(net, (x,), path, dynamo=False, input_names=["x"])
    with torch.no_grad():
        return path, x.numpy(), net(x).numpy()


def test_torch_onnx_model_converts_and_matches(tmp_path):
    path, x, expected = _export(tmp_path)
    res = converter_lite("--fmk=ONNX", f"--modelFile={path}", f"--outputFile={tmp_path / 'cnn'}")
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip().splitlines()[-1] == "CONVERT RESULT SUCCESS:0"
    model = mslite.Model()
    model.build_from_file(str(tmp_path / "cnn.ms"), mslite.ModelType.MINDIR_LITE)
    inputs = model.get_inputs()
    assert inputs[0].name == "x"
    inputs[0].set_data_from_numpy(x)
    np.testing.assert_allclose(model.predict(inputs)[0].get_data_to_numpy(), expected, atol=1e-5)
    types = {op.type for op in model._program.main.ops}
    assert "LiteConv2D" in types and "BatchNorm" not in types and "BiasAdd" not in types


def test_converter_class_with_fp16_weights(tmp_path):
    path, x, expected = _export(tmp_path)
    conv = mslite.Converter()
    full = conv.convert(mslite.FmkType.ONNX, path, str(tmp_path / "f32"))
    conv.fp16 = True
    half = conv.convert(mslite.FmkType.ONNX, path, str(tmp_path / "f16"))
    weights = msfile.read(full).weight_bytes()
    assert os.path.getsize(half) < os.path.getsize(full) - weights * 0.4
    model = mslite.Model()
    model.build_from_file(half, mslite.ModelType.MINDIR_LITE)
    inputs = model.get_inputs()
    inputs[0].set_data_from_numpy(x)
    np.testing.assert_allclose(model.predict(inputs)[0].get_data_to_numpy(), expected, atol=2e-3)


def test_unsupported_operator_is_named_with_its_node(tmp_path):
    from onnx import TensorProto, helper
    nodes = [helper.make_node("Relu", ["x"], ["r"], name="relu_1"),
             helper.make_node("Einsum", ["r", "r"], ["y"], name="my_einsum", equation="ij,ij->ij")]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 2])])
    path = str(tmp_path / "bad.onnx")
    onnx.save(helper.make_model(graph), path)
    res = converter_lite("--fmk=ONNX", f"--modelFile={path}", f"--outputFile={tmp_path / 'bad'}")
    assert res.returncode != 0
    assert res.stdout.strip().startswith("CONVERT RESULT FAILED")
    assert "Einsum" in res.stderr and "my_einsum" in res.stderr
    assert not os.path.exists(tmp_path / "bad.ms")


def test_command_line_errors(tmp_path):
    res = converter_lite("--fmk=MINDIR", "--modelFile=/nonexistent.mindir", f"--outputFile={tmp_path / 'x'}")
    assert res.returncode != 0 and "does not exist" in res.stderr and "CONVERT RESULT FAILED" in res.stdout
    res = converter_lite("--fmk=CAFFE", "--modelFile=a", "--outputFile=b")
    assert res.returncode != 0 and "CAFFE" in res.stderr
    res = converter_lite("--fmk=MINDIR", "--bogus=1")
    assert res.returncode != 0 and "unknown flag --bogus" in res.stderr
    assert converter_lite("--help").stdout.startswith("usage: converter_lite")


def test_ms_file_errors(fixtures_dir, tmp_path):
    path = mslite.Converter().convert(mslite.FmkType.MINDIR, os.path.join(fixtures_dir, "mlp.mindir"),
                                      str(tmp_path / "mlp"))
    data = open(path, "rb").read()
    broken = tmp_path / "broken.ms"
    broken.write_bytes(data[:-7])
    with pytest.raises(msfile.MsFileError, match="corrupted or truncated"):
        mslite.Model().build_from_file(str(broken), mslite.ModelType.MINDIR_LITE)
    foreign = tmp_path / "foreign.ms"
    foreign.write_bytes(b"\x08\x01" + data[2:])
    with pytest.raises(msfile.MsFileError, match="not an openspore .ms model"):
        mslite.Model().build_from_file(str(foreign), mslite.ModelType.MINDIR_LITE)


def test_ms_round_trip_keeps_the_program(fixtures_dir, tmp_path):
    from openspore.lite.converter import convert_program
    program = convert_program(os.path.join(fixtures_dir, "branchy.mindir"))
    path = msfile.write(program, str(tmp_path / "b.ms"))
    again = msfile.read(path)
    assert [op.type for op in again.main.all_ops()] == [op.type for op in program.main.all_ops()]
    assert [t.name for t in again.tensors] == [t.name for t in program.tensors]
    for a, b in zip(again.tensors, program.tensors):
        if b.data is not None:
            np.testing.assert_array_equal(a.data, b.data)
        if a.data is not None and sys.byteorder == "little":
            # numpy's own dtype object, not an equal copy: kernels compare dtypes by identity (an equal copy made
            # every convolution convert its input and reallocate its buffers at every call)
            assert a.data.dtype is np.dtype(a.data.dtype.name), (a.name, a.data.dtype)
