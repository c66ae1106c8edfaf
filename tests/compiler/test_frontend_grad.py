"""Autodiff inside traced code: grad / value_and_grad / GradOperation emit the backward graph, through `if` and
`while` nodes too; executing the graph gives PyNative's numbers. A traced LeNet5 training step reproduces
MindSpore's loss trajectory."""
import os

import numpy as np

import openspore as ms
from openspore import nn, ops
from openspore.compiler.frontend import convert, flatten_args, trace
from openspore.ir.interpret import run_graph
from tests.conftest import assert_close


def _run(traced, *inputs):
    leaves, _ = flatten_args(inputs)
    out = run_graph(traced.graph, leaves)
    return traced.unflatten(list(out) if traced.graph.output.op == "make_tuple" else [out])


def _flat(value):
    if isinstance(value, (tuple, list)):
        return [x for v in value for x in _flat(v)]
    return [value]


def _check_step(step, *inputs_list):
    traced = trace(step, inputs_list[0])
    for inputs in inputs_list:
        ref = _flat(step(*inputs))
        for got in (_flat(_run(traced, *inputs)), _flat(convert(step)(*inputs))):
            assert len(got) == len(ref)
            for g, r in zip(got, ref):
                assert_close(g, r, rtol=1e-4, atol=1e-5)
    return traced


def _kinds(graph):
    return [n.op_name for g in graph.all_graphs() for n in g.nodes]


W = ms.Parameter(ms.Tensor(np.array([[0.5, -0.3], [0.2, 0.8]], np.float32)), name="w")


def T(rows):
    return ms.Tensor(np.array(rows, np.float32))


def test_value_and_grad_through_if():
    def loss(x):
        y = ops.matmul(x, W)
        if y.sum() > 0:
            y = ops.tanh(y) * W[0]
        else:
            y = y * y
        return y.sum()

    def step(x):
        return ms.value_and_grad(loss, 0, [W])(x)

    traced = _check_step(step, (T([[1., 2.], [0.5, 3.]]),), (T([[-1., -2.], [-0.5, -3.]]),))
    assert _kinds(traced.graph).count("if") == 2  # forward if + the if of its backward rule


def test_grad_through_while_with_tensor_condition():
    def loss(x):
        y = ops.matmul(x, W)
        while y.sum() < 20:
            y = y * 1.5 + W
        return (y * y).mean()

    def step(x):
        return ms.grad(loss, 0, [W])(x)

    _check_step(step, (T([[1., 2.], [0.5, 3.]]),), (T([[0.1, 0.2], [0.1, 0.1]]),), (T([[10., 20.], [5., 3.]]),))


def test_grad_through_loop_with_break_and_nested_if():
    def loss(x):
        acc = x * 0
        for i in range(4):
            if (acc * acc).sum() > 30:
                break
            acc = acc + ops.sin(x) * (i + 1)
        k = x.sum()
        while k < 10:
            if k > 0:
                k = k * 2 + 1
            else:
                k = k + 3
        return acc.sum() * k

    def step(x):
        return ms.value_and_grad(loss)(x)

    _check_step(step, (T([1., 2.]),), (T([-0.2, 0.1]),), (T([0.01, 0.02]),))


def test_grad_operation_and_second_order_through_if():
    def f(x):
        if x.sum() > 0:
            return (x * x * x).sum()
        return (x * x).sum()

    def first(x):
        return ops.GradOperation()(f)(x)

    def second(x):
        return ms.grad(lambda v: first(v).sum())(x)

    _check_step(first, (T([1., 2.]),), (T([-1., -2.]),))
    _check_step(second, (T([1., 2.]),), (T([-1., -2.]),))


def test_sgd_step_with_assign_updates_parameters_in_place():
    rng = np.random.default_rng(0)

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(3, 2)

        def construct(self, x):
            y = self.fc(x)
            if y.sum() > 0:
                y = ops.relu(y)
            return y

    def make():
        net = Net()
        for p, v in zip(net.trainable_params(), (rng_w, rng_b)):
            p.set_data(ms.Tensor(v))
        return net

    rng_w, rng_b = rng.standard_normal((2, 3)).astype(np.float32), rng.standard_normal(2).astype(np.float32)
    eager, graph_net = make(), make()
    x = ms.Tensor(rng.standard_normal((4, 3)).astype(np.float32))

    def train_step(net, x):
        params = net.trainable_params()
        loss, grads = ms.value_and_grad(lambda v: (net(v) ** 2).mean(), None, params)(x)
        for p, g in zip(params, grads):
            ops.assign(p, p - 0.1 * g)
        return loss

    traced = trace(lambda v: train_step(graph_net, v), (x,))
    kinds = [n.op_name for n in traced.graph.nodes]
    assert kinds.count("Assign") == 2 and kinds.count("weight") == 2
    for _ in range(3):
        assert_close(_run(traced, x), train_step(eager, x), rtol=1e-5, atol=1e-6)
    for a, b in zip(graph_net.trainable_params(), eager.trainable_params()):
        assert_close(a, b, rtol=1e-5, atol=1e-6)


def test_traced_lenet5_training_matches_mindspore(fixtures_dir):
    from tests.nn.fixture_nets import LeNet5
    net = LeNet5()
    ms.load_param_into_net(net, ms.load_checkpoint(os.path.join(fixtures_dir, "lenet5_init.ckpt")))
    net.set_train()
    x = ms.Tensor(np.load(os.path.join(fixtures_dir, "lenet5_train_x.npy")))
    y = ms.Tensor(np.load(os.path.join(fixtures_dir, "lenet5_train_y.npy")).astype(np.int32))
    params = net.trainable_params()
    moments = [ms.Parameter(ms.Tensor(np.zeros(p.shape, np.float32)), name="moments." + p.name) for p in params]
    apply_momentum = ops.ApplyMomentum()

    def train_step(data, label):
        loss, grads = ms.value_and_grad(lambda a, b: ops.cross_entropy(net(a), b), None, params)(data, label)
        for p, m, g in zip(params, moments, grads):
            apply_momentum(p, m, 0.05, g, 0.9)
        return loss

    traced = trace(train_step, (x, y))
    assert sum(n.op_name == "ApplyMomentum" for n in traced.graph.nodes) == len(params)
    assert any(n.scope.startswith("Default/LeNet5/conv1-Conv2d/Conv2D-op") for n in traced.graph.nodes)
    losses = [float(_run(traced, x, y).asnumpy()) for _ in range(5)]
    np.testing.assert_allclose(losses, np.load(os.path.join(fixtures_dir, "lenet5_train_losses.npy")),
                               rtol=1e-5, atol=1e-5)
    after = ms.load_checkpoint(os.path.join(fixtures_dir, "lenet5_after5.ckpt"))
    for p in params:
        np.testing.assert_allclose(p.asnumpy(), after[p.name].asnumpy(), rtol=1e-5, atol=1e-6, err_msg=p.name)


def test_custom_cell_bprop_inside_a_traced_grad():
    class Scale(nn.Cell):
        def construct(self, x):
            return x * 3

        def bprop(self, x, out, dout):
            return (dout * 0.5,)

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.scale = Scale()

        def construct(self, x):
            y = self.scale(x)
            if y.sum() > 0:
                y = y * y
            return y.sum()

    net = Net()
    _check_step(lambda x: ms.value_and_grad(net)(x), (T([1., 2.]),), (T([-1., -2.]),))


def test_traced_functional_training_step_with_nn_optimizer(fixtures_dir):
    """The MindSpore 2.x tutorial loop: value_and_grad(forward, None, optimizer.parameters, has_aux=True)."""
    from tests.nn.fixture_nets import LeNet5
    net = LeNet5()
    ms.load_param_into_net(net, ms.load_checkpoint(os.path.join(fixtures_dir, "lenet5_init.ckpt")))
    net.set_train()
    x = ms.Tensor(np.load(os.path.join(fixtures_dir, "lenet5_train_x.npy")))
    y = ms.Tensor(np.load(os.path.join(fixtures_dir, "lenet5_train_y.npy")).astype(np.int32))
    optimizer = nn.Momentum(net.trainable_params(), learning_rate=0.05, momentum=0.9)

    def forward(data, label):
        logits = net(data)
        return ops.cross_entropy(logits, label), logits

    grad_fn = ms.value_and_grad(forward, None, optimizer.parameters, has_aux=True)

    def train_step(data, label):
        (loss, _), grads = grad_fn(data, label)
        optimizer(grads)
        return loss

    traced = trace(train_step, (x, y))
    losses = [float(_run(traced, x, y).asnumpy()) for _ in range(5)]
    np.testing.assert_allclose(losses, np.load(os.path.join(fixtures_dir, "lenet5_train_losses.npy")),
                               rtol=1e-5, atol=1e-5)
