"""Graph-kernel fusion's BatchNorm-backward pattern: ReluGrad (+ the residual Add) + BatchNormGrad become one
FusedBatchNormReluGrad; matched and not matched graphs, and its values against the op-by-op kernels (bit for bit
on torch, where the compiled kernel runs, and through the fallback)."""
import numpy as np
import pytest

from openspore.compiler.graph_kernel import batchnorm_grad
from openspore.compiler.graph_kernel.batchnorm_grad import FusedBatchNormReluGrad
from openspore.compiler.graph_kernel.flags import resolve
from openspore.compiler.passes.graph_kernel_batchnorm import graph_kernel_batchnorm
from openspore.ir.parser import parse_graph

torch = pytest.importorskip("torch")

_S = "f32[2,8,3,3]"
RESIDUAL = f'''graph @main(%0 a: {_S}, %1 b: {_S}, %2 y: {_S}, %3 x: {_S}, %4 s: f32[8], %5 m: f32[8], %6 v: f32[8]) {{
  %7 = Add(%0, %1) : {_S}
  %8 = ReluGrad(%7, %2) : {_S}
  %9 = const None : py
  %10 = BatchNormGrad[epsilon=1e-05, data_format='NCHW'](%8, %3, %4, %5, %6, %9, %9) : ({_S}, f32[8], f32[8])
  %11 = tuple_get_item[0](%10) : {_S}
  %12 = Neg(%8) : {_S}
  %13 = make_tuple(%11, %12) : ({_S}, {_S})
  return %13
}}'''
READ_BEFORE = f'''graph @main(%0 a: {_S}, %2 y: {_S}, %3 x: {_S}, %4 s: f32[8], %5 m: f32[8], %6 v: f32[8]) {{
  %8 = ReluGrad(%0, %2) : {_S}
  %12 = Neg(%8) : {_S}
  %9 = const None : py
  %10 = BatchNormGrad[epsilon=1e-05, data_format='NCHW'](%8, %3, %4, %5, %6, %9, %9) : ({_S}, f32[8], f32[8])
  %11 = tuple_get_item[0](%10) : {_S}
  %13 = make_tuple(%11, %12) : ({_S}, {_S})
  return %13
}}'''


def _ops(graph):
    return [n.op_name for n in graph.nodes if n.is_primitive]


def test_add_relu_grad_and_batchnorm_grad_become_one_node_keeping_the_masked_gradient():
    after = graph_kernel_batchnorm(parse_graph(RESIDUAL))
    assert _ops(after) == ["FusedBatchNormReluGrad", "Neg"]
    fused = next(n for n in after.nodes if n.op_name == "FusedBatchNormReluGrad")
    assert fused.op.has_add and fused.op.keep_grad and len(fused.inputs) == 7
    neg = next(n for n in after.nodes if n.op_name == "Neg")
    assert neg.inputs[0].op == "tuple_get_item" and neg.inputs[0].index == 3  # the masked gradient, as output 3


def test_a_reader_of_the_masked_gradient_before_the_batchnorm_grad_keeps_the_relu_grad():
    after = graph_kernel_batchnorm(parse_graph(READ_BEFORE))
    assert _ops(after) == ["ReluGrad", "Neg", "FusedBatchNormReluGrad"]


def test_the_flag_keeps_them_apart():
    before = parse_graph(RESIDUAL)
    assert graph_kernel_batchnorm(before, resolve("--disable_cluster_ops=BatchNormReluGrad", enabled=True)) is before


def _inputs(rng, shape, channels_last, with_b):
    def t(values):
        tensor = torch.from_numpy(values.astype(np.float32))
        return tensor.contiguous(memory_format=torch.channels_last) if channels_last else tensor
    a = t(rng.standard_normal(shape))
    b = t(rng.standard_normal(shape)) if with_b else None
    y = t(np.maximum(rng.standard_normal(shape), 0))
    x = t(rng.standard_normal(shape) * 2 + 0.3)
    c = shape[1]
    scale = torch.from_numpy(rng.uniform(0.5, 1.5, c).astype(np.float32))
    mean, variance = torch.batch_norm_update_stats(x, None, None, 0.0)
    return [v for v in (a, b) if v is not None] + [y, x, scale, mean, variance]


@pytest.mark.parametrize("with_b,keep", [(False, False), (True, True), (True, False), (False, True)])
@pytest.mark.parametrize("shape", [(4, 16, 6, 6), (3, 8, 5, 7)])
def test_fused_values_are_the_op_by_op_values_bit_for_bit(shape, with_b, keep):
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # ATen splits the sums between threads; the compiled kernel is for one
    try:
        op = FusedBatchNormReluGrad(1e-5, has_add=with_b, keep_grad=keep)
        inputs = _inputs(np.random.default_rng(0), shape, True, with_b)
        got = op.torch(torch, *inputs)
        want = op._op_by_op("torch", torch, inputs)
        compiled = batchnorm_grad._compiled(torch) is not None
    finally:
        torch.set_num_threads(threads)
    assert len(got) == (4 if keep else 3)
    if compiled:  # an AVX2 CPU: the fused kernel ran (its first-call check found it exact)
        assert list(op._checked.values()) == [True]
    for g, w in zip(got, want):
        assert torch.equal(g, w)


def test_inputs_it_was_not_written_for_run_op_by_op():
    op = FusedBatchNormReluGrad(1e-5, has_add=True)
    inputs = _inputs(np.random.default_rng(1), (2, 6, 4, 4), False, True)  # NCHW memory, 6 channels
    got = op.torch(torch, *inputs)
    assert list(op._checked.values()) == [False]
    for g, w in zip(got, op._op_by_op("torch", torch, inputs)):
        assert torch.equal(g, w)


def test_numpy_kernel_agrees_with_torch():
    op = FusedBatchNormReluGrad(1e-5, has_add=True, keep_grad=True)
    inputs = _inputs(np.random.default_rng(2), (2, 8, 3, 3), False, True)
    want = op.torch(torch, *inputs)
    got = op.numpy(np, *[t.numpy() for t in inputs])
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w.numpy(), rtol=1e-4, atol=1e-5)


def test_a_batchnorm_grad_without_relu_grad_runs_alone_in_the_kernel_bit_for_bit():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        op = FusedBatchNormReluGrad(1e-5, relu=False)
        a, _, x, scale, mean, variance = _inputs(np.random.default_rng(3), (4, 16, 5, 5), True, False)
        got = op.torch(torch, a, x, scale, mean, variance)
        want = op._op_by_op("torch", torch, (a, x, scale, mean, variance))
    finally:
        torch.set_num_threads(threads)
    assert len(got) == 3
    for g, w in zip(got, want):
        assert torch.equal(g, w)


def test_the_pass_fuses_a_lone_batchnorm_grad_without_mask():
    after = graph_kernel_batchnorm(parse_graph(READ_BEFORE))  # its ReluGrad has a reader before it: no mask
    fused = [n for n in after.nodes if n.op_name == "FusedBatchNormReluGrad"]
    assert len(fused) == 1 and not fused[0].op.relu and "ReluGrad" in _ops(after)


UPDATES = '''graph @main(%0 x: f32[4], %1 a: f32[4], %2 b: f32[4]) {
  %3 = Mul(%1, %0) : f32[4]
  %4 = AssignSub(%1, %3) : f32[4]
  %5 = Mul(%2, %0) : f32[4]
  %6 = AssignSub(%2, %5) : f32[4]
  %7 = Neg(%0) : f32[4]
  return %7
}'''


def test_updates_of_what_is_not_a_parameter_are_left_alone():
    from openspore.compiler.passes.graph_kernel_batchnorm import _deferrable_updates
    assert _deferrable_updates(parse_graph(UPDATES)) == (set(), None)


def test_foreach_assign_sub_kernels():
    from openspore.compiler.graph_kernel.moving_average import ForeachAssignSub
    variables = [torch.ones(3), torch.full((2,), 2.0)]
    ForeachAssignSub().torch(torch, variables, [torch.full((3,), 0.25), torch.ones(2)])
    assert variables[0].tolist() == [0.75] * 3 and variables[1].tolist() == [1.0, 1.0]


def test_training_with_fusion_on_leaves_every_parameter_as_fusion_off_does():
    """8-channel residual net (channels-last, so the compiled kernels run): after three steps every Parameter,
    the moving statistics written by the one ForeachAssignSub included, is bit for bit fusion off's."""
    import openspore as ms
    from openspore import nn, ops

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.c0 = nn.Conv2d(3, 8, 3, pad_mode="pad", padding=1)
            self.c1 = nn.Conv2d(8, 8, 3, pad_mode="pad", padding=1)
            self.b0, self.b1 = nn.BatchNorm2d(8, momentum=0.9), nn.BatchNorm2d(8, momentum=0.9)
            self.fc = nn.Dense(8, 4)
            self.pool, self.flat = nn.AdaptiveAvgPool2d((1, 1)), nn.Flatten()  # as ResNet-20 (a fused ReduceMean
            # would sum in another order: not this test's subject)

        def construct(self, x):
            x = ops.relu(self.b0(self.c0(x)))
            return self.fc(self.flat(self.pool(ops.relu(self.b1(self.c1(x)) + x))))

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    params = {}
    try:
        for on in (False, True):
            ms.set_context(mode=ms.GRAPH_MODE, enable_graph_kernel=on)
            ms.set_seed(0)
            rng = np.random.default_rng(0)
            net = Net()
            x = ms.Tensor(rng.standard_normal((4, 3, 8, 8), np.float32))
            y = ms.Tensor(rng.integers(0, 4, 4).astype(np.int32))
            loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
            step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.Momentum(net.trainable_params(), 0.05, 0.9))
            step.set_train()
            for _ in range(3):
                step(x, y)
            params[on] = {p.name: p.asnumpy().copy() for p in net.get_parameters()}
    finally:
        torch.set_num_threads(threads)
        ms.set_context(enable_graph_kernel=False)
    assert any("moving" in name for name in params[True])
    for name, value in params[False].items():
        np.testing.assert_array_equal(params[True][name], value, err_msg=name)
