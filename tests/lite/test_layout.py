"""to_nhwc (passes/layout.py): convolutions run channels-last, layouts change only at the edges, the residual Add
and ReLU fuse into the convolution, and results equal the channels-first program's."""
import numpy as np
import pytest

from openspore import lite as mslite
from openspore.lite.converter import convert_program
from openspore.lite.executor import Executable
from openspore.lite.onnx_import import load_onnx_program
from openspore.lite.passes import INFERENCE_PASSES, run_passes
from openspore.lite.passes.layout import to_nhwc

torch = pytest.importorskip("torch")
pytest.importorskip("onnx")


class Net(torch.nn.Module):
    """A 1-channel 5x5 conv (few-channel columns), a tiling max pool, a residual block whose first conv output is
    also a model output (read in NCHW), an average pool and a Linear."""

    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv2d(1, 6, 5)
        self.c2 = torch.nn.Conv2d(6, 6, 3, padding=1)
        self.c3 = torch.nn.Conv2d(6, 6, 3, padding=1, bias=False)
        self.fc = torch.nn.Linear(6 * 3 * 3, 4)

    def forward(self, x):
        x = torch.nn.functional.max_pool2d(torch.relu(self.c1(x)), 2)
        h = self.c2(x)
        y = torch.relu(self.c3(torch.relu(h)) + x)
        y = torch.nn.functional.avg_pool2d(y, 2)
        return self.fc(y.flatten(1)), h


@pytest.fixture(scope="module")
def onnx_path(tmp_path_factory):
    torch.manual_seed(0)
    path = str(tmp_path_factory.mktemp("layout") / "net.onnx")
    torch.onnx.export(Net().eval(), (torch.randn(2, 1, 16, 16),), path, dynamo=False, input_names=["x"])
    return path


def test_nhwc_program_matches_nchw_and_fuses(onnx_path):
    nchw = run_passes(load_onnx_program(onnx_path), INFERENCE_PASSES)
    nhwc = to_nhwc(nchw)
    x = np.random.default_rng(0).standard_normal((2, 1, 16, 16)).astype(np.float32)
    want = Executable(nchw).run([x])
    got = Executable(nhwc).run([x])
    assert [g.shape for g in got] == [w.shape for w in want]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)
    ops = nhwc.main.ops
    assert [op.type for op in ops].count("LiteConv2D") == 3
    convs = [op for op in ops if op.type == "LiteConv2D"]
    assert len(convs) == 3 and all(op.attrs["layout"] == "NHWC" for op in convs)
    assert any(op.attrs.get("has_residual") and op.attrs["activation"] == "relu" for op in convs)
    assert "Add" not in {op.type for op in ops}
    # the max pool after c1 runs inside it; the average pool stays an NHWC operator
    assert [op.attrs.get("pool") for op in convs] == [(2, 2), None, None]
    assert "MaxPool" not in {op.type for op in ops}
    assert all(op.attrs.get("layout") == "NHWC" for op in ops if op.type == "AvgPool")
    # in once (the input), out once (the second output `h`): the flatten before the Linear reads NHWC, the
    # Linear's weight columns permuted to (h, w, c) order instead
    perms = [tuple(op.attrs["perm"]) for op in ops if op.type == "LiteLayout"]
    assert sorted(perms) == [(0, 2, 3, 1), (0, 3, 1, 2)]
    assert any(nhwc.tensors[op.inputs[1]].name.endswith("_hwc") for op in ops if op.type == "LiteDense")
    # the packed weights replace the NCHW ones in the file
    assert nhwc.weight_bytes() == nchw.weight_bytes()


def test_converted_model_resizes_and_keeps_nchw_io(onnx_path, tmp_path):
    program = convert_program(onnx_path, "ONNX")
    assert any(op.type == "LiteLayout" for op in program.main.ops)
    model = mslite.Model()
    model.build_from_program(program)
    reference = mslite.Model()
    reference.build_from_program(run_passes(load_onnx_program(onnx_path), INFERENCE_PASSES))
    model.resize(model.get_inputs(), [[3, 1, 16, 16]])
    reference.resize(reference.get_inputs(), [[3, 1, 16, 16]])
    x = np.random.default_rng(1).standard_normal((3, 1, 16, 16)).astype(np.float32)
    outs = []
    for m in (model, reference):
        inputs = m.get_inputs()
        inputs[0].set_data_from_numpy(x)
        outs.append([t.get_data_to_numpy() for t in m.predict(inputs)])
    assert outs[0][1].shape == (3, 6, 6, 6)  # NCHW, as the model defines it
    for g, w in zip(*outs):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)


def test_quantized_and_grouped_convolutions_stay_nchw(tmp_path):
    from openspore.lite.program import Op, Program
    p = Program()
    x = p.add_tensor("x", (1, 4, 6, 6), "float32", "input")
    w = p.add_tensor("w", (4, 2, 3, 3), "float32", "const", np.ones((4, 2, 3, 3), np.float32))
    y = p.add_tensor("y", (1, 4, 4, 4), "float32")
    p.main.ops.append(Op("LiteConv2D", {"kernel_size": (3, 3), "group": 2, "out_channel": 4, "pad_mode": "valid"},
                         [x, w], [y]))
    p.main.inputs, p.main.outputs = [x], [y]
    assert to_nhwc(p) is p  # nothing to convert: the program is returned as it was


class Head(torch.nn.Module):
    """ResNet's head: a convolution, global average pooling (ONNX GlobalAveragePool), flatten, Linear; and the
    pooled features as a second output (keep_dims shape (N, C, 1, 1))."""

    def __init__(self):
        super().__init__()
        self.c = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.fc = torch.nn.Linear(8, 5)

    def forward(self, x):
        pooled = torch.nn.functional.adaptive_avg_pool2d(torch.relu(self.c(x)), 1)
        return self.fc(pooled.flatten(1)), pooled


def test_global_average_pool_reads_channels_last(tmp_path):
    torch.manual_seed(1)
    path = str(tmp_path / "head.onnx")
    torch.onnx.export(Head().eval(), (torch.randn(2, 3, 6, 6),), path, dynamo=False, input_names=["x"])
    nchw = run_passes(load_onnx_program(path), INFERENCE_PASSES)
    nhwc = to_nhwc(nchw)
    x = np.random.default_rng(2).standard_normal((2, 3, 6, 6)).astype(np.float32)
    want, got = Executable(nchw).run([x]), Executable(nhwc).run([x])
    assert [g.shape for g in got] == [w.shape for w in want] == [(2, 5), (2, 8, 1, 1)]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
    # the mean runs over the NHWC activation's axes (1, 2): no transpose back to NCHW is left
    perms = [tuple(op.attrs["perm"]) for op in nhwc.main.ops if op.type == "LiteLayout"]
    assert perms == [(0, 2, 3, 1)]
    means = [op for op in nhwc.main.ops if op.type == "ReduceMean"]
    assert len(means) == 1 and means[0].inputs[1].value == (1, 2)


def test_outputs_of_successive_predicts_are_independent(onnx_path):
    """Convolutions write plan-owned buffers reused by the next call (kernels/nhwc_serial.py): the outputs a
    predict returned (here also a convolution's output, `h`) must not change when the model runs again."""
    model = mslite.Model()
    model.build_from_program(convert_program(onnx_path, "ONNX"))
    rng = np.random.default_rng(3)
    inputs = model.get_inputs()
    inputs[0].set_data_from_numpy(rng.standard_normal((2, 1, 16, 16)).astype(np.float32))
    first = [t.get_data_to_numpy() for t in model.predict(inputs)]
    kept = [a.copy() for a in first]
    inputs[0].set_data_from_numpy(rng.standard_normal((2, 1, 16, 16)).astype(np.float32))
    second = [t.get_data_to_numpy() for t in model.predict(inputs)]
    for a, b, c in zip(first, kept, second):
        np.testing.assert_array_equal(a, b)
        assert not np.array_equal(a, c)
