"""mint.npu_gelu: GELU as MindSpore 2.10's ops.gelu gives it (MindSpore runs npu_gelu itself only on Ascend)."""
import numpy as np

from openspore import Tensor, mint


def test_npu_gelu_values():
    x = Tensor(np.array([-1.0, 0.0, 1.0, 2.0], np.float32))
    np.testing.assert_allclose(mint.npu_gelu(x).asnumpy(), [-0.15865526, 0.0, 0.8413447, 1.9544997], rtol=1e-6)
    np.testing.assert_allclose(mint.npu_gelu(x, approximate="tanh").asnumpy(),
                               [-0.15880799, 0.0, 0.841192, 1.9545977], rtol=1e-6)
