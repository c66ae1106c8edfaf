"""Distributions and bijectors inside a Cell's construct: GRAPH_MODE equals PyNative, and ops.grad flows through."""
import numpy as np
import pytest
from scipy import stats

import openspore as ms
from openspore import Tensor, nn, ops
import openspore.nn.probability.bijector as msb
import openspore.nn.probability.distribution as msd


class _Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.n = msd.Normal(3.0, 4.0)
        self.free = msd.Normal()
        self.c = msd.Categorical([0.2, 0.5, 0.3])
        self.g = msd.Gamma(np.array([2.0], np.float32), np.array([3.0], np.float32))
        self.td = msd.TransformedDistribution(msb.Softplus(2.0), msd.Normal(0.0, 1.0))
        self.b = msb.ScalarAffine(2.0, 1.0)

    def construct(self, x, mean, sd):
        return (self.n.log_prob(x) + self.free("cdf", x, mean, sd) + self.g.log_survival(x)
                + self.td.log_prob(x) + self.n.kl_loss("Normal", mean, sd) + self.c.prob(ops.cast(x, ms.int32))
                + self.free.cross_entropy("Normal", mean, sd, mean, sd) + self.b.forward(x))


def _inputs():
    return (Tensor(np.array([0.5, 1.0, 2.0], np.float32)), Tensor(np.array([1.0], np.float32)),
            Tensor(np.array([2.0], np.float32)))


def test_graph_mode_matches_pynative_with_gradients(graph_mode):
    net = _Net()
    out_graph = net(*_inputs()).asnumpy()
    grads_graph = ops.grad(net, grad_position=(0, 1, 2))(*_inputs())
    ms.set_context(mode=ms.PYNATIVE_MODE)
    out_eager = net(*_inputs()).asnumpy()
    grads_eager = ops.grad(net, grad_position=(0, 1, 2))(*_inputs())
    np.testing.assert_allclose(out_graph, out_eager, rtol=1e-5)
    for a, b in zip(grads_graph, grads_eager):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-4)


def test_gradient_of_log_prob_against_closed_form(graph_mode):
    class LogLik(nn.Cell):
        def __init__(self):
            super().__init__()
            self.n = msd.Normal()

        def construct(self, x, mean, sd):
            return ops.reduce_sum(self.n.log_prob(x, mean, sd))

    x = np.array([0.5, 1.0, 2.0], np.float32)
    mean, sd = 1.0, 2.0
    loss = LogLik()(Tensor(x), Tensor(np.array([mean], np.float32)), Tensor(np.array([sd], np.float32)))
    np.testing.assert_allclose(loss.asnumpy(), stats.norm(mean, sd).logpdf(x).sum(), rtol=1e-5)
    d_mean, d_sd = ops.grad(LogLik(), grad_position=(1, 2))(
        Tensor(x), Tensor(np.array([mean], np.float32)), Tensor(np.array([sd], np.float32)))
    np.testing.assert_allclose(d_mean.asnumpy(), [np.sum((x - mean) / sd ** 2)], rtol=1e-5)
    np.testing.assert_allclose(d_sd.asnumpy(), [np.sum(-1 / sd + (x - mean) ** 2 / sd ** 3)], rtol=1e-5)


class _Unimplemented(msd.Distribution):
    def __init__(self):
        param = dict(locals())
        param["param_dict"] = {"rate": None}
        super().__init__(None, ms.float32, "Unimplemented", param)


@pytest.mark.parametrize("func", ["prob", "log_prob", "cdf", "log_cdf", "survival_function", "log_survival", "sd",
                                  "var", "mode", "mean", "entropy", "kl_loss", "cross_entropy", "sample"])
def test_unimplemented_functions_raise_in_both_modes(func, graph_mode):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.dist = _Unimplemented()

        def construct(self, value):
            return self.dist(func, value)

    value = Tensor(np.array([0.2], np.float32))
    for mode in (ms.GRAPH_MODE, ms.PYNATIVE_MODE):
        ms.set_context(mode=mode)
        with pytest.raises(NotImplementedError, match=f"{func} is not implemented for Unimplemented"):
            Net()(value)


def test_get_dist_args_feed_another_distribution(graph_mode):
    """MindSpore's scenario: one distribution's (possibly overridden) parameters passed on to another's functions."""
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.free = msd.Exponential()
            self.one = msd.Exponential(1.0)
            self.two = msd.Exponential(2.0)

        def construct(self, value, rate):
            via_args = self.one.prob(value, *self.free.get_dist_args(rate))
            own = self.two.prob(value, *self.free.get_dist_args())  # (None,): two keeps its own rate
            kl = self.two.kl_loss(self.one.get_dist_type(), *self.one.get_dist_args())
            return via_args, own, kl

    value = np.array([-2.0, 0.5, 2.0], np.float32)
    via_args, own, kl = Net()(Tensor(value), Tensor(2.0))
    np.testing.assert_allclose(via_args.asnumpy(), own.asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(own.asnumpy(), stats.expon(scale=0.5).pdf(value), rtol=1e-5)
    np.testing.assert_allclose(kl.asnumpy(), np.log(2.0) + 0.5 - 1.0, rtol=1e-5)  # KL(Exp(2) || Exp(1))
    assert msd.Normal().get_dist_args() == (None, None)
    with pytest.raises(NotImplementedError, match="get_dist_args is not implemented for HalfNormal"):
        msd.HalfNormal(0.0, 1.0).get_dist_args()
