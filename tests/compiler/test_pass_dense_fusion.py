"""dense_fusion: IR text before → after, values unchanged (pass_check); a loaded MindIR Dense runs fused."""
import numpy as np

import openspore as ms
from openspore import nn
from openspore.compiler.passes.dense_fusion import dense_fusion
from openspore.compiler.pipeline import run_pipeline
from openspore.compiler.frontend import api

from .pass_check import check


def test_matmul_then_bias_add_becomes_dense():
    before = """
graph @f(%0 x: f32[4,3], %1 w: f32[5,3], %2 b: f32[5]) {
  %3 = MatMul[transpose_a=False, transpose_b=True](%0, %1) : f32[4,5]
  %4 = BiasAdd[data_format='NCHW'](%3, %2) : f32[4,5]
  %5 = ReLU(%4) : f32[4,5]
  return %5
}"""
    after = """
graph @f(%0 x: f32[4,3], %1 w: f32[5,3], %2 b: f32[5]) {
  %3 = Dense(%0, %1, %2) : f32[4,5]
  %4 = ReLU(%3) : f32[4,5]
  return %4
}"""
    check(dense_fusion, before, after)


def test_a_product_used_twice_is_left_alone():
    text = """
graph @f(%0 x: f32[4,3], %1 w: f32[5,3], %2 b: f32[5]) {
  %3 = MatMul[transpose_a=False, transpose_b=True](%0, %1) : f32[4,5]
  %4 = BiasAdd[data_format='NCHW'](%3, %2) : f32[4,5]
  %5 = Add(%3, %4) : f32[4,5]
  return %5
}"""
    check(dense_fusion, text, text)


def test_other_transposes_are_left_alone():
    text = """
graph @f(%0 x: f32[4,3], %1 w: f32[3,5], %2 b: f32[5]) {
  %3 = MatMul[transpose_a=False, transpose_b=False](%0, %1) : f32[4,5]
  %4 = BiasAdd[data_format='NCHW'](%3, %2) : f32[4,5]
  return %4
}"""
    check(dense_fusion, text, text)


def test_a_loaded_mindir_dense_runs_fused(tmp_path):
    """nn.Dense traces as Dense itself; MindIR files carry MindSpore's MatMul + BiasAdd, which this pass fuses
    again when the loaded graph is compiled."""
    net = nn.SequentialCell([nn.Dense(6, 8), nn.ReLU(), nn.Dense(8, 3)])
    x = ms.Tensor(np.random.default_rng(0).standard_normal((2, 6)).astype(np.float32))
    expected = net(x).asnumpy()
    assert [n.op_name for n in api.trace(net, (x,)).graph.nodes].count("Dense") == 2
    ms.export(net, x, file_name=str(tmp_path / "dense"), file_format="MINDIR")
    loaded = ms.load(str(tmp_path / "dense.mindir"))
    ops_before = [n.op_name for n in loaded.graph.nodes]
    assert ops_before.count("MatMul") == 2 and ops_before.count("BiasAdd") == 2 and "Dense" not in ops_before
    ops_after = [n.op_name for n in run_pipeline(loaded.graph, level="O1").nodes]
    assert ops_after.count("Dense") == 2 and "MatMul" not in ops_after and "BiasAdd" not in ops_after
    np.testing.assert_allclose(nn.GraphCell(loaded)(x).asnumpy(), expected, rtol=1e-6, atol=1e-6)
