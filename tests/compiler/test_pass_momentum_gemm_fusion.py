"""momentum_gemm_fusion as IR text before → after (pass_check.py, which also runs both graphs and compares the
outputs and every Parameter after the update), the cases it must leave alone, and a training step against
PyNative."""
import numpy as np
import pytest

import openspore as ms
from openspore import nn
from openspore.compiler.passes.momentum_gemm_fusion import momentum_gemm_fusion

from openspore.ir.parser import parse_graph

from .pass_check import assert_same_values, check, weights_for

BEFORE = """
    graph @main(%0 dy: f32[4,3], %1 x: f32[4,5], %2 dz: f32[4,2]) {
      %3 = weight "w" : f32[3,5]
      %4 = weight "b" : f32[3]
      %5 = DenseGrad[input_grad=True, bias_grad=True](%0, %1, %3) : (f32[4,5], f32[3,5], f32[3])
      %6 = tuple_get_item[0](%5) : f32[4,5]
      %7 = tuple_get_item[1](%5) : f32[3,5]
      %8 = tuple_get_item[2](%5) : f32[3]
      %9 = weight "v" : f32[2,5]
      %10 = DenseGrad[input_grad=False, bias_grad=False](%2, %6, %9) : (f32[2,5])
      %11 = tuple_get_item[0](%10) : f32[2,5]
      %12 = make_tuple(%3, %4, %9) : (f32[3,5], f32[3], f32[2,5])
      %13 = weight "m.w" : f32[3,5]
      %14 = weight "m.b" : f32[3]
      %15 = weight "m.v" : f32[2,5]
      %16 = make_tuple(%13, %14, %15) : (f32[3,5], f32[3], f32[2,5])
      %17 = weight "lr" : f32[]
      %18 = make_tuple(%7, %8, %11) : (f32[3,5], f32[3], f32[2,5])
      %19 = weight "momentum" : f32[]
      %20 = ForeachApplyMomentum[gradient_scale=0.5](%12, %16, %17, %18, %19) : (f32[3,5], f32[3], f32[2,5])
      %21 = tuple_get_item[1](%20) : f32[3]
      %22 = make_tuple(%21, %6) : (f32[3], f32[4,5])
      return %22
    }"""
AFTER = """
    graph @main(%0 dy: f32[4,3], %1 x: f32[4,5], %2 dz: f32[4,2]) {
      %3 = weight "w" : f32[3,5]
      %4 = weight "b" : f32[3]
      %5 = MatMul(%0, %3) : f32[4,5]
      %6 = weight "m.w" : f32[3,5]
      %7 = weight "momentum" : f32[]
      %8 = DenseGradAccumulate[gradient_scale=0.5](%6, %0, %1, %7) : f32[3,5]
      %9 = weight "m.b" : f32[3]
      %10 = BiasGradAccumulate[gradient_scale=0.5](%9, %0, %7) : f32[3]
      %11 = weight "v" : f32[2,5]
      %12 = weight "m.v" : f32[2,5]
      %13 = DenseGradAccumulate[gradient_scale=0.5](%12, %2, %5, %7) : f32[2,5]
      %14 = weight "lr" : f32[]
      %15 = make_tuple(%3, %4, %11) : (f32[3,5], f32[3], f32[2,5])
      %16 = make_tuple(%8, %10, %13) : (f32[3,5], f32[3], f32[2,5])
      %17 = ForeachApplyAccumulation(%15, %16, %14) : (f32[3,5], f32[3], f32[2,5])
      %18 = tuple_get_item[0](%17) : f32[3,5]
      %19 = tuple_get_item[1](%17) : f32[3]
      %20 = tuple_get_item[2](%17) : f32[2,5]
      %21 = make_tuple(%18, %19, %20) : (f32[3,5], f32[3], f32[2,5])
      %22 = tuple_get_item[1](%21) : f32[3]
      %23 = make_tuple(%22, %5) : (f32[3], f32[4,5])
      return %23
    }"""


def test_weight_gradients_accumulate_in_the_product():
    # the moments and the momentum, defined after the DenseGrads, are read where the products are now
    check(momentum_gemm_fusion, BEFORE, AFTER)


def test_a_bias_gradient_read_elsewhere_is_summed_and_stays_in_momentum():
    text = BEFORE.replace("%22 = make_tuple(%21, %6) : (f32[3], f32[4,5])",
                          "%22 = make_tuple(%21, %6, %8) : (f32[3], f32[4,5], f32[3])")
    weights = weights_for(text)
    g = parse_graph(text, weights=weights)
    out = momentum_gemm_fusion(g)
    names = [n.op_name for n in out.nodes]
    assert names.count("DenseGradAccumulate") == 2 and "BiasGradAccumulate" not in names
    assert names.count("ReduceSum") == 1 and names.count("ForeachApplyMomentum") == 1
    assert_same_values(g, out, weights)


def _step(*, grad="%4", pre="", extra="", attrs="", rank3=False):
    """One DenseGrad feeding a ForeachApplyMomentum, with a variation that must keep the pass away."""
    rows, x = ("4", "f32[4,5]") if not rank3 else ("2,2", "f32[2,2,5]")
    return f"""
        graph @main(%0 dy: f32[{rows},3], %1 x: {x}) {{
          %2 = weight "w" : f32[3,5]
          %3 = DenseGrad[input_grad=False, bias_grad=False](%0, %1, %2) : (f32[3,5])
          %4 = tuple_get_item[0](%3) : f32[3,5]
          %5 = make_tuple(%2) : (f32[3,5])
          %6 = weight "m.w" : f32[3,5]
          %7 = make_tuple(%6) : (f32[3,5])
          %8 = weight "lr" : f32[]{pre}
          %9 = make_tuple({grad}) : (f32[3,5])
          %10 = weight "momentum" : f32[]
          %11 = ForeachApplyMomentum[{attrs or 'gradient_scale=1.0'}](%5, %7, %8, %9, %10) : (f32[3,5]){extra}
          return %11
        }}"""


@pytest.mark.parametrize("text", [
    _step(attrs="use_nesterov=True"),                                     # Nesterov reads the gradient itself
    _step(grad="%12", pre="\n          %12 = Neg(%4) : f32[3,5]"),        # not DenseGrad's output itself
    _step(rank3=True),                                                    # rows of a 3-D input
    _step(extra="\n          %12 = weight \"m.w\" : f32[3,5]\n          %13 = make_tuple(%11, %12) : "
                "((f32[3,5]), f32[3,5])"),                                 # the moment read again (a 2nd reader)
    _step(extra="\n          %12 = weight \"momentum\" : f32[]\n          %13 = const tensor(0.5, f32) : f32[]"
                "\n          %14 = Assign(%12, %13) : f32[]"),             # another update writes the momentum
], ids=["nesterov", "not-dense-grad", "rank-3", "moment-read-again", "momentum-written"])
def test_left_alone(text):
    check(momentum_gemm_fusion, text, text)


class _MLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = nn.Dense(12, 16), nn.Dense(16, 5)

    def construct(self, x):
        return self.fc2(ms.ops.relu(self.fc1(x)))


def test_training_step_fuses_and_agrees_with_pynative():
    rng = np.random.default_rng(0)
    x, y = ms.Tensor(rng.standard_normal((8, 12), np.float32)), ms.Tensor(rng.integers(0, 5, 8).astype(np.int32))
    losses, params, steps = {}, {}, {}
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        try:
            ms.set_seed(0)
            net = _MLP()
            loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
            opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
            step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)
            losses[mode] = [float(step(x, y).asnumpy()) for _ in range(5)]
            params[mode] = [p.asnumpy().copy() for p in list(net.trainable_params()) + list(opt.moments)]
            steps[mode] = step
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(losses[ms.GRAPH_MODE], losses[ms.PYNATIVE_MODE], rtol=1e-5)
    for got, want in zip(params[ms.GRAPH_MODE], params[ms.PYNATIVE_MODE]):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    from openspore.runtime.jit import cell_cache
    names = [n.op_name for e in cell_cache(steps[ms.GRAPH_MODE]).entries.values() for n in e.compiled.graph.nodes]
    assert names.count("DenseGradAccumulate") == 2 and names.count("BiasGradAccumulate") == 2
    assert names.count("ForeachApplyAccumulation") == 1 and "ForeachApplyMomentum" not in names
    assert "DenseGrad" not in names


def test_the_variations_base_is_fused():
    # so each case above is left alone for its own variation
    out = check(momentum_gemm_fusion, _step(), """
        graph @main(%0 dy: f32[4,3], %1 x: f32[4,5]) {
          %2 = weight "w" : f32[3,5]
          %3 = weight "m.w" : f32[3,5]
          %4 = weight "momentum" : f32[]
          %5 = DenseGradAccumulate(%3, %0, %1, %4) : f32[3,5]
          %6 = weight "lr" : f32[]
          %7 = make_tuple(%2) : (f32[3,5])
          %8 = make_tuple(%5) : (f32[3,5])
          %9 = ForeachApplyAccumulation(%7, %8, %6) : (f32[3,5])
          %10 = tuple_get_item[0](%9) : f32[3,5]
          %11 = make_tuple(%10) : (f32[3,5])
          return %11
        }""")
    assert "DenseGrad" not in [n.op_name for n in out.nodes]


def test_flop_count_keeps_the_accumulated_weight_gradients():
    # bench/ reports the share of the machine's peak from graph_flops: the pass must not make GEMMs vanish from it
    from openspore.runtime.flops import graph_flops
    weights = weights_for(BEFORE)
    g = parse_graph(BEFORE, weights=weights)
    assert graph_flops(momentum_gemm_fusion(g))[0] == graph_flops(g)[0] == 2.0 * (4 * 3 * 5 * 2 + 4 * 2 * 5)
