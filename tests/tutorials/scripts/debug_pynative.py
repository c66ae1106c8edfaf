# ruff: noqa: E402, F811, E702  (a tutorial page: imports where the page has them, blocks that redefine names)
# MindSpore 2.x tutorial "Dynamic Graph Debugging" (tutorials/debug/pynative), its runnable blocks unchanged:
# synchronous mode (mindspore.runtime.launch_blocking), a Tensor.register_hook doubling a gradient, ops.HookBackward
# printing one, and Cell.register_backward_hook on a ReLU. Left out: the pdb breakpoint (`pdb.set_trace()` waits for
# a terminal) and the one-line call-stack fragments (`self._executor...`), which are not runnable code. Nothing is
# downloaded.
# expect: (Tensor(shape=[], dtype=Float32, value= 4), (Tensor(shape=[], dtype=Float32, value= 8), Tensor(shape=[], dtype=Float32, value= 6)))
# expect: (Tensor(shape=[], dtype=Float32, value= 4), (Tensor(shape=[], dtype=Float32, value= 4), Tensor(shape=[], dtype=Float32, value= 4)))
# expect: backward input:
# expect: backward output:
import mindspore
mindspore.runtime.launch_blocking()

import mindspore
from mindspore import Tensor
def hook_fn(grad):
    return grad * 2

def hook_test(x, y):
    z = x * y
    z.register_hook(hook_fn)
    z = z * y
    return z

ms_grad = mindspore.value_and_grad(hook_test, grad_position=(0,1))
output = ms_grad(Tensor(1, mindspore.float32), Tensor(2, mindspore.float32))
print(output)

import mindspore
from mindspore import ops
from mindspore import Tensor
def hook_fn(grad):
    print(grad)

hook = ops.HookBackward(hook_fn)
def hook_test(x, y):
    z = x * y
    z = hook(z)
    z = z * y
    return z

def backward(x, y):
    return mindspore.value_and_grad(hook_test, grad_position=(0,1))(x, y)

output = backward(Tensor(1, mindspore.float32), Tensor(2, mindspore.float32))

print(output)

import numpy as np
import mindspore
from mindspore import Tensor, nn, ops
def backward_hook_fn(cell_id, grad_input, grad_output):
    print("backward input: ", grad_input)
    print("backward output: ", grad_output)

class Net(nn.Cell):
    def __init__(self):
        super(Net, self).__init__()
        self.relu = nn.ReLU()
        self.handle = self.relu.register_backward_hook(backward_hook_fn)

    def construct(self, x):
        x = x + x
        x = self.relu(x)
        return x

net = Net()
output = mindspore.value_and_grad(net, grad_position=(0,))(Tensor(np.ones([1]).astype(np.float32)))

print(output)
