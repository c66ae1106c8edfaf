"""A cell marked `set_grad()` and called in PyNative records its forward; a following gradient transform of the
same cell on the same input objects differentiates that run instead of running the forward again (MindSpore's
behaviour, shown on the migration guide's "Network Construction" page: printed once, BatchNorm statistics moved
once, a custom bprop sees the forward's own output)."""
import numpy as np

import openspore as ms
from openspore import nn, ops


class Counting(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(ms.Tensor(np.array([2.0, 3.0], np.float32)), name="w")
        self.runs = 0

    def construct(self, x):
        self.runs += 1
        return (x * self.w).sum()


def test_grad_after_a_set_grad_forward_does_not_run_the_forward_again():
    net = Counting().set_grad()
    x = ms.Tensor(np.array([1.0, 4.0], np.float32))
    net(x)
    (dx,) = ops.GradOperation(get_all=True)(net)(x)
    assert net.runs == 1
    assert dx.asnumpy().tolist() == [2.0, 3.0]
    # the record is spent: the next transform runs the forward
    ops.GradOperation(get_all=True)(net)(x)
    assert net.runs == 2


def test_other_inputs_or_no_set_grad_run_the_forward():
    x = ms.Tensor(np.array([1.0, 4.0], np.float32))
    plain = Counting()
    plain(x)
    ms.grad(plain)(x)
    assert plain.runs == 2
    marked = Counting().set_grad()
    marked(x)
    other = ms.Tensor(np.array([1.0, 4.0], np.float32))
    assert ms.grad(marked)(other).asnumpy().tolist() == [2.0, 3.0]
    assert marked.runs == 2


def test_value_and_grad_of_weights_reuses_the_recorded_value():
    net = Counting().set_grad()
    x = ms.Tensor(np.array([1.0, 4.0], np.float32))
    out = net(x)
    value, (dw,) = ms.value_and_grad(net, None, net.trainable_params())(x)
    assert net.runs == 1 and value is out
    assert dw.asnumpy().tolist() == [1.0, 4.0]
    # a weight the cell does not own: the forward runs again
    outside = ms.Parameter(ms.Tensor(np.array([1.0], np.float32)), name="outside")
    net(x)
    ms.grad(net, None, [outside])(x)
    assert net.runs == 3


def test_batchnorm_statistics_move_once():
    def moved(mark):
        net = nn.BatchNorm1d(2, momentum=0.5)
        net.set_train()
        if mark:
            net.set_grad()
        x = ms.Tensor(np.array([[1.0, 2.0], [3.0, 6.0]], np.float32))
        net(x)
        ms.grad(net)(x)
        return net.moving_mean.asnumpy().tolist()
    assert moved(True) == [1.0, 2.0]       # 0.5 * 0 + 0.5 * mean: once
    assert moved(False) == [1.5, 3.0]      # the re-run moves them again


def test_custom_bprop_sees_the_recorded_output():
    class Pick(nn.Cell):
        def construct(self, x):
            idx = np.random.choice(3, 2)
            return x[ms.Tensor(idx, ms.int32)], ms.Tensor(idx, ms.int32)

        def bprop(self, x, out, dout):
            return (ops.UnsortedSegmentSum()(dout[0], out[1], 3),)

    np.random.seed(0)
    net = Pick().set_grad()
    x = ms.Tensor(np.array([1.0, 2.0, 3.0], np.float32))
    _, idx = net(x)
    (dx,) = ops.GradOperation(get_all=True)(net)(x)
    assert dx.asnumpy().tolist() == np.bincount(idx.asnumpy(), minlength=3).astype(np.float32).tolist()


def test_only_the_outermost_cell_call_is_recorded():
    # a set_grad network evaluated through a wrapper (as Model.eval does with WithEvalCell) keeps no graph
    net = Counting().set_grad()

    class Wrapper(nn.Cell):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def construct(self, x):
            return self.inner(x)

    x = ms.Tensor(np.array([1.0, 4.0], np.float32))
    assert Wrapper(net)(x).asnumpy() == 14.0
    assert net.__dict__.get("_grad_record") is None
    net(x)
    assert net.__dict__.get("_grad_record") is not None
