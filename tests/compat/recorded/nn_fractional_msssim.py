import numpy as np
import mindspore as ms
from mindspore import nn, Tensor

np.set_printoptions(precision=5, suppress=True)
rng = np.random.default_rng(0)
x2 = Tensor(rng.standard_normal((1, 2, 7, 8)).astype(np.float32))
samples2 = Tensor(np.array([[[0.3, 0.7], [0.9, 0.1]]], np.float32))
out, idx = nn.FractionalMaxPool2d(3, output_size=(3, 4), return_indices=True, _random_samples=samples2)(x2)
print(out.asnumpy(), idx.asnumpy())
print(nn.FractionalMaxPool2d(2, output_ratio=(0.5, 0.5), _random_samples=samples2)(x2).asnumpy())
x3 = Tensor(rng.standard_normal((1, 2, 5, 6, 7)).astype(np.float32))
samples3 = Tensor(np.array([[[0.3, 0.7, 0.2], [0.9, 0.1, 0.5]]], np.float32))
out3, idx3 = nn.FractionalMaxPool3d(2, output_size=(3, 3, 4), return_indices=True, _random_samples=samples3)(x3)
print(out3.asnumpy(), idx3.asnumpy())
for bad in ({}, {"output_size": (2, 2), "output_ratio": (0.5, 0.5)}):
    try:
        print(nn.FractionalMaxPool2d(2, _random_samples=samples2, **bad)(x2).shape)
    except (ValueError, TypeError) as exc:
        print(type(exc).__name__)
ms.set_context(mode=ms.GRAPH_MODE)  # MindSpore 2.10's MSSSIM fails in PyNative (its ScalarCast of max_val)
a = rng.random((2, 3, 180, 176)).astype(np.float32)
b = np.clip(a + rng.normal(0, 0.1, a.shape), 0, 1).astype(np.float32)
print(nn.MSSSIM()(Tensor(a), Tensor(b)).asnumpy(), nn.MSSSIM()(Tensor(a), Tensor(a)).asnumpy())
print(nn.MSSSIM(power_factors=(0.5, 0.5), filter_size=7)(Tensor(a[:, :, :40, :40]), Tensor(b[:, :, :40, :40])).asnumpy())
ua, ub = (a * 255).astype(np.uint8), (b * 255).astype(np.uint8)
print(nn.MSSSIM(max_val=255)(Tensor(ua), Tensor(ub)).asnumpy())
