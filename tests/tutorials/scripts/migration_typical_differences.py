# ruff: noqa: E402, F811  (a documentation page: imports where the page has them, blocks that redefine names)
# MindSpore 2.x Model Migration guide, "Differences Between MindSpore and PyTorch" (docs/mindspore/source_en/
# migration_guide/typical_api_comparision, r2.0): its self-contained blocks, unchanged — torch.transpose/permute
# against ops.Transpose, MaxPool with pad_mode='same' (MindSpore pads bottom/right), padding top/left by hand with
# ops.Pad, torch's Variable autograd, a grad cell, and the op-level seed of ops.uniform. Changes: the Pad block
# passes pad_mode='vaild' (a typo on the page), which MindSpore 2.10 refuses with a ValueError; it runs inside
# try/except ValueError and prints the error. Fragments that use names the page never defines (`model`, `data`,
# `dataset`, `params`, `net`, ...) are left out. Nothing is downloaded.
# expect: torch.Size([4, 2, 3, 1])
# expect: torch.Size([4, 3, 2, 1])
# expect: (4, 3, 2, 1)
# expect: [[[[4. 5.]
# expect: ValueError: For 'MaxPool', the 'pad_mode'
# PyTorch code
import numpy as np
import torch
from torch import Tensor
data = np.empty((1, 2, 3, 4)).astype(np.float32)
ret1 = torch.transpose(Tensor(data), dim0=0, dim1=3)
print(ret1.shape)
ret2 = Tensor(data).permute((3, 2, 1, 0))
print(ret2.shape)

# MindSpore code
import mindspore as ms
import numpy as np
from mindspore import ops
ms.set_context(device_target="CPU")
data = np.empty((1, 2, 3, 4)).astype(np.float32)
ret = ops.Transpose()(ms.Tensor(data), (3, 2, 1, 0))
print(ret.shape)

# mindspore example
import numpy as np
import mindspore as ms
from mindspore import ops
ms.set_context(device_target="CPU")
data = np.arange(9).reshape(1, 1, 3, 3).astype(np.float32)
print(data)
op = ops.MaxPool(kernel_size=2, strides=2, pad_mode='same')
print(op(ms.Tensor(data)))

try:
    import numpy as np
    import mindspore as ms
    from mindspore import ops
    ms.set_context(device_target="CPU")
    data = np.arange(9).reshape(1, 1, 3, 3).astype(np.float32)
    # only padding on top left of feature map
    pad = ops.Pad(((0, 0), (0, 0), (1, 0), (1, 0)))
    data = pad(ms.Tensor(data))
    res = ops.MaxPool(kernel_size=2, strides=2, pad_mode='vaild')(data)
    print(res)
except ValueError as error:
    print("ValueError:", error)

import torch
from torch.autograd import Variable
x = Variable(torch.ones(2, 2), requires_grad=True)
x = x * 2
y = x - 1
y.backward(x)

import mindspore as ms
from mindspore import nn, ops

class GradNetWrtX(nn.Cell):
    def __init__(self, net):
        super(GradNetWrtX, self).__init__()
        self.net = net
    def construct(self, x, y):
        gradient_function = ms.grad(self.net)
        return gradient_function(x, y)

# If a random op is called twice within one program, the two results will be different:
import mindspore as ms
from mindspore import Tensor, ops

minval = Tensor(1.0, ms.float32)
maxval = Tensor(2.0, ms.float32)
print(ops.uniform((1, 4), minval, maxval, seed=1))  # generates 'A1'
print(ops.uniform((1, 4), minval, maxval, seed=1))  # generates 'A2'
# If the same program runs again, it repeat the results:
print(ops.uniform((1, 4), minval, maxval, seed=1))  # generates 'A1'
print(ops.uniform((1, 4), minval, maxval, seed=1))  # generates 'A2'
