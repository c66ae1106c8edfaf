import numpy as np
import mindspore as ms
from mindspore import ops, Tensor
np.set_printoptions(precision=5, suppress=True)
x = Tensor(np.linspace(-2, 2, 8).reshape(2, 4).astype(np.float32))
print(ops.hardshrink(x, 0.6).asnumpy(), ops.softshrink(x, 0.6).asnumpy(), ops.hardtanh(x, -1.5, 0.5).asnumpy())
print(ops.tanhshrink(x).asnumpy(), ops.threshold(x, 0.2, 9.0).asnumpy())
print(ops.lp_pool1d(Tensor(np.arange(8.).reshape(1, 2, 4).astype(np.float32)), 2, 2).asnumpy())
print(ops.lp_pool2d(Tensor(np.arange(16.).reshape(1, 1, 4, 4).astype(np.float32)), 3, 2, 1).asnumpy())
w = Tensor(np.arange(12.).reshape(4, 3).astype(np.float32))
print(ops.pixel_shuffle(Tensor(np.arange(8.).reshape(1, 4, 1, 2).astype(np.float32)), 2).asnumpy())
print(ops.channel_shuffle(Tensor(np.arange(4.).reshape(1, 4, 1, 1).astype(np.float32)), 2).asnumpy())
print(ops.multilabel_soft_margin_loss(x, (x > 0).astype(ms.float32)).asnumpy())
print(ops.gaussian_nll_loss(x, x * 0.5, ops.abs(x) + 0.1).asnumpy())
print(ops.hinge_embedding_loss(x, ops.sign(x), 1.0).asnumpy())
