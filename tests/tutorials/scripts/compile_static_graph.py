# ruff: noqa: E402, F811  (a tutorial page: imports where the page has them, blocks that redefine names)
# MindSpore 2.x tutorial "Introduction to Graph Mode Programming" (tutorials/compile/static_graph, the 2.6+ page),
# its first sections, unchanged: constants and variables within jit (mutable, tensor inputs), Number (int() of a
# constant and of a Tensor, mutable scalars), String (indexing, slicing, +, *, in, %, format) and List (created,
# returned, global, as input, indexed by int, Tensor and slice, index assignment, append, clear, extend, pop,
# reverse, insert), Tuple (indexes, a tuple of Cells indexed by an input, + and *), Dictionary (keys, values,
# items, get, has_key, update, fromkeys), mindspore.tensor and a Primitive built inside construct, a Parameter
# attribute assigned in construct, gradients of the Tensor inputs only, and the view/in-place examples that run on
# CPU (mint.narrow, Tensor.add_ under jit, GradOperation over a net ending in add_); the syntax constraints (an
# undefined attribute: AttributeError, `try`: RuntimeError, each caught and named, the one change to their code;
# attributes changed outside the graph are not seen), and the LAX level's third-party libraries (numpy, scipy),
# custom classes, `x.asnumpy() + y.asnumpy()` (JIT Fallback), tuple-in-tuple, dicts returned and assigned, None.
# Left out, as openspore differs there: the classmethod block (MindSpore refuses it with a TypeError, openspore
# runs it), the two blocks asserting that a global list returned from the graph is the same object (openspore
# returns an equal copy), and `print` inside construct (MindSpore prints at every run, one argument a line;
# openspore prints once, while compiling, on one line). (MindSpore 2.10 stops at the numpy `x[0] += 1` block when
# all blocks share one module, a TypeError while compiling `mindspore.tensor(x)`; that block alone runs.) Nothing is
# downloaded; where the page only shows a value in a comment (`# output: [1, 2, 3, 4]`), it is printed. (List.extend
# of a Tensor gives 0-d Tensors, shape=[], in MindSpore 2.10 too, where the page shows shape=[1].)
# expect: res[0]: 11
# expect: res[1]: 10
# expect: res: ('H', 'Spore', 'Hello!MindSpore', 'MindSporeMindSpore', True, 'My name is MindSpore!', 'string is 123')
# expect: a:[1, 2]
# expect: b:2
# expect: c:[3, 4]
# expect: output:[[0, 88], 10, 'ok', (1, 2, 3)]
# expect: output2:[1, 2, 3, Tensor(shape=[], dtype=Int64, value= 4), Tensor(shape=[], dtype=Int64, value= 5)]
# expect: pop_element:3
# expect: m:((2, 3, 4), 3, 4)
# expect: ret:[0.]
# expect: out2:(1, 2, 3, 1, 2, 3)
# expect: x_keys:('a', 'b', 'c')
# expect: x_items:[('a', Tensor(shape=[3], dtype=Int64, value= [1, 2, 3])), ('b', Tensor(shape=[3], dtype=Int64, value= [4, 5, 6])), ('c', Tensor(shape=[3], dtype=Int64, value= [7, 8, 9]))]
# expect: check_key:True
# expect: new_dict:{'a': 123, 'b': 123, 'c': 123, 'd': 123}
# expect: ret.shape:(3, 4, 1, 6)
# expect: ret:1
# expect: ret:[[3. 3. 3. 3.]]
# expect: ret:(Tensor(shape=[1], dtype=Int64, value= [1]), Tensor(shape=[1], dtype=Int64, value= [1]))
# expect: graph_out:  5
# expect: graph_grad_out:  1
# expect: graph_out:  [7.]
# expect: AttributeError raised
# expect: RuntimeError raised
# expect: out2: 3
# expect: [5 7 9]
# expect: (2, 2)
# expect: res:  [2 2 3]
# expect: [5 7]
# expect: out: {'y': 'a'}
# expect: out1:{'a': (2, 3, 4), 'b': Tensor(shape=[3], dtype=Int64, value= [4, 5, 6]), 'c': Tensor(shape=[3], dtype=Int64, value= [7, 8, 9])}
# expect: (1, 'a', None)
# expect: graph_grad_out:  ((Tensor(shape=[1], dtype=Float32, value= [ 6.00000000e+00]), Tensor(shape=[1], dtype=Float32, value= [ 2.00000000e+00])), (Tensor(shape=[1], dtype=Float32, value= [ 1.00000000e+00]), Tensor(shape=[1], dtype=Float32, value= [ 1.00000000e+00])))
import mindspore
from mindspore import nn

a = 1
b = [1, 2]
c = ("a", "b", "c")

class Net(nn.Cell):
   @mindspore.jit
   def construct(self, a, b, c):
      return a, b, c

net = Net()
ret = net(a, b, c)
print(ret)

import mindspore
from mindspore import nn

class Net(nn.Cell):
   @mindspore.jit
   def construct(self):
      a = 1
      b = "2"
      c = mindspore.tensor([1, 2, 3])
      return a, b, c

net = Net()
ret = net()
print(ret)

import mindspore
from mindspore import nn

class Net(nn.Cell):
   @mindspore.jit
   def construct(self):
      a = mindspore.tensor([1, 2, 3])
      b = mindspore.tensor([1, 1, 1])
      c = a + b
      return c

net = Net()
ret = net()
print(ret)

import mindspore
from mindspore import nn

a = mindspore.mutable([mindspore.tensor([1]), mindspore.tensor([2])])

class Net(nn.Cell):
   @mindspore.jit
   def construct(self, a):
      b = mindspore.mutable(mindspore.tensor([3]))
      c = mindspore.mutable((mindspore.tensor([1]), mindspore.tensor([2])))
      return a, b, c

net = Net()
ret = net(a)
print(ret)

import mindspore
from mindspore import nn

a = mindspore.tensor([1])
b = (mindspore.tensor([1]), mindspore.tensor([2]))

class Net(nn.Cell):
   @mindspore.jit
   def construct(self, a, b):
      return a, b

net = Net()
ret = net(a, b)
print(ret)

import mindspore
from mindspore import nn

a = mindspore.tensor([1])
b = mindspore.tensor([2])

class Net(nn.Cell):
   @mindspore.jit
   def construct(self, a, b):
      c = a + b
      return c

net = Net()
ret = net(a, b)
print(ret)

import mindspore
from mindspore import nn

class Net(nn.Cell):
   @mindspore.jit
   def construct(self, x):
      out1 = int(11.1)
      out2 = int(mindspore.tensor([10]))
      return out1, out2

net = Net()
res = net(mindspore.tensor(2))
print("res[0]:", res[0])
print("res[1]:", res[1])

import mindspore
from mindspore import nn

class Net(nn.Cell):
   @mindspore.jit
   def construct(self, x, y):
      return x + y

net = Net()
res = net(mindspore.mutable(1), mindspore.mutable(2))
print(res)

import mindspore
from mindspore import nn

class Net(nn.Cell):
   @mindspore.jit
   def construct(self):
      var1 = 'Hello!'
      var2 = "MindSpore"
      var3 = str(123)
      var4 = "{} is {}".format("string", var3)
      return var1[0], var2[4:9], var1 + var2, var2 * 2, "H" in var1, "My name is %s!" % var2, var4

net = Net()
res = net()
print("res:", res)

import numpy as np
import mindspore
from mindspore import nn

class Net(nn.Cell):
   @mindspore.jit
   def construct(self):
      a = [1, 2, 3, 4]
      b = ["1", "2", "a"]
      c = [mindspore.tensor([1]), mindspore.tensor([2])]
      d = [a, b, c, (4, 5)]
      return d

import mindspore
from mindspore import nn

class Net(nn.Cell):
   @mindspore.jit
   def construct(self):
      a = [1, 2, 3, 4]
      return a

net = Net()
output = net()  # output: [1, 2, 3, 4]
print(output)

import mindspore
from mindspore import nn

global_list = [1, 2, 3, 4]

class Net(nn.Cell):
   @mindspore.jit
   def construct(self):
      global_list.reverse()
      return global_list

net = Net()
output = net()  # output: [4, 3, 2, 1]
print(output)

import mindspore
from mindspore import nn

list_input = [1, 2, 3, 4]

class Net(nn.Cell):
   @mindspore.jit
   def construct(self, x):
      return x

net = Net()
output = net(list_input)  # output: [1, 2, 3, 4]
print(output)

import mindspore
from mindspore import nn

class Net(nn.Cell):
   @mindspore.jit
   def construct(self):
      x = [[1, 2], 3, 4]
      a = x[0]
      b = x[0][mindspore.tensor([1])]
      c = x[1:3:1]
      return a, b, c

net = Net()
a, b, c = net()
print('a:{}'.format(a))
print('b:{}'.format(b))
print('c:{}'.format(c))

import mindspore
from mindspore import nn

class Net(nn.Cell):
   @mindspore.jit
   def construct(self):
      x = [[0, 1], 2, 3, 4]
      x[1] = 10
      x[2] = "ok"
      x[3] = (1, 2, 3)
      x[0][1] = 88
      return x

net = Net()
output = net()
print('output:{}'.format(output))

import mindspore
from mindspore import nn

class Net(nn.Cell):
   @mindspore.jit
   def construct(self):
      x = [1, 2, 3]
      x.append(4)
      return x

net = Net()
x = net()
print('x:{}'.format(x))

import mindspore
from mindspore import nn

class Net(nn.Cell):
   @mindspore.jit
   def construct(self):
      x = [1, 3, 4]
      x.clear()
      return x

net = Net()
x = net()
print('x:{}'.format(x))

import mindspore
from mindspore import nn

class Net(nn.Cell):
   @mindspore.jit
   def construct(self):
      x1 = [1, 2, 3]
      x1.extend((4, "a"))
      x2 = [1, 2, 3]
      x2.extend(mindspore.tensor([4, 5]))
      return x1, x2

net = Net()
output1, output2 = net()
print('output1:{}'.format(output1))
print('output2:{}'.format(output2))

import mindspore
from mindspore import nn

class Net(nn.Cell):
   @mindspore.jit
   def construct(self):
      x = [1, 2, 3]
      b = x.pop()
      return b, x

net = Net()
pop_element, res_list = net()
print('pop_element:{}'.format(pop_element))
print('res_list:{}'.format(res_list))

import mindspore
from mindspore import nn

class Net(nn.Cell):
   @mindspore.jit
   def construct(self):
      x = [1, 2, 3]
      x.reverse()
      return x

net = Net()
output = net()
print('output:{}'.format(output))

import mindspore
from mindspore import nn

class Net(nn.Cell):
   @mindspore.jit
   def construct(self):
      x = [1, 2, 3]
      x.insert(3, 4)
      return x

net = Net()
output = net()
print('output:{}'.format(output))

import numpy as np
import mindspore
from mindspore import nn

t = mindspore.tensor(np.array([1, 2, 3]))

class Net(nn.Cell):
   @mindspore.jit
   def construct(self):
      x = (1, (2, 3, 4), 3, 4, t)
      y = x[1][1]
      z = x[4]
      m = x[1:4]
      n = x[-4]
      return y, z, m, n

net = Net()
y, z, m, n = net()
print('y:{}'.format(y))
print('z:{}'.format(z))
print('m:{}'.format(m))
print('n:{}'.format(n))

import mindspore
from mindspore import nn

class Net(nn.Cell):
   def __init__(self):
      super(Net, self).__init__()
      self.relu = nn.ReLU()
      self.softmax = nn.Softmax()
      self.layers = (self.relu, self.softmax)

   @mindspore.jit
   def construct(self, x, index):
      ret = self.layers[index](x)
      return ret

x = mindspore.tensor([-1.0], mindspore.float32)

net = Net()
ret = net(x, 0)
print('ret:{}'.format(ret))

import mindspore
from mindspore import nn

class Net(nn.Cell):
   @mindspore.jit
   def construct(self):
      x = (1, 2, 3)
      y = (4, 5, 6)
      return x + y, x * 2

net = Net()
out1, out2 = net()
print('out1:{}'.format(out1))
print('out2:{}'.format(out2))

import numpy as np
import mindspore
from mindspore import nn

x = {"a": mindspore.tensor(np.array([1, 2, 3])), "b": mindspore.tensor(np.array([4, 5, 6])), "c": mindspore.tensor(np.array([7, 8, 9]))}

class Net(nn.Cell):
   @mindspore.jit
   def construct(self):
      x_keys = x.keys()
      x_values = x.values()
      x_items = x.items()
      value_a = x.get("a")
      check_key = x.has_key("a")
      y = {"a": mindspore.tensor(np.array([0, 0, 0]))}
      x.update(y)
      new_dict = x.fromkeys("abcd", 123)
      return x_keys, x_values, x_items, value_a, check_key, x, new_dict

net = Net()
x_keys, x_values, x_items, value_a, check_key, new_x, new_dict = net()
print('x_keys:{}'.format(x_keys))
print('x_values:{}'.format(x_values))
print('x_items:{}'.format(x_items))
print('value_a:{}'.format(value_a))
print('check_key:{}'.format(check_key))
print('new_x:{}'.format(new_x))
print('new_dict:{}'.format(new_dict))

import mindspore
from mindspore import nn
import numpy as np

class Net(nn.Cell):
   def __init__(self):
      super(Net, self).__init__()

   @mindspore.jit
   def construct(self, x):
      return mindspore.tensor(x, dtype=mindspore.float32)

net = Net()
x = np.array([0, 1, 2, 3])
print(net(x))

import mindspore
from mindspore import nn, ops
import numpy as np

class Net(nn.Cell):
   def __init__(self):
      super(Net, self).__init__()

   @mindspore.jit
   def construct(self, x):
      reduce_sum = ops.ReduceSum(True) #`Primitive` and its subclass instances can be constructed in construct.
      ret = reduce_sum(x, axis=2)
      return ret

x = mindspore.tensor(np.random.randn(3, 4, 5, 6).astype(np.float32))
net = Net()
ret = net(x)
print('ret.shape:{}'.format(ret.shape))

import mindspore
from mindspore import nn

class Net(nn.Cell):
   def __init__(self):
      super().__init__()
      self.weight = mindspore.Parameter(mindspore.tensor(3, mindspore.float32), name="w")
      self.m = 2

   @mindspore.jit
   def construct(self, x, y):
      self.weight = x  # The conditions are met, they can be modified
      # self.m = 3     # self.m is not of type Parameter and modification is prohibited
      # y.weight = x   # y is not self, modification is prohibited
      return x

net = Net()
ret = net(1, 2)
print('ret:{}'.format(ret))

import mindspore
from mindspore import nn, ops
import numpy as np

class Net(nn.Cell):
   def __init__(self):
      super().__init__()
      self.matmul = ops.MatMul()

   @mindspore.jit
   def construct(self, x, y):
      out = self.matmul(x, y)  # A call of Primitive
      return out

x = mindspore.tensor(np.ones(shape=[1, 3]), mindspore.float32)
y = mindspore.tensor(np.ones(shape=[3, 4]), mindspore.float32)
net = Net()
ret = net(x, y)
print('ret:{}'.format(ret))

import mindspore
from mindspore import nn

class Net(nn.Cell):
   def __init__(self):
      super(Net, self).__init__()

   def construct(self, x, y, z):
      return x + y + z

class GradNet(nn.Cell):
   def __init__(self, net):
      super(GradNet, self).__init__()
      self.forward_net = net

   @mindspore.jit
   def construct(self, x, y, z):
      return mindspore.grad(self.forward_net, grad_position=(0, 1, 2))(x, y, z)

input_x = mindspore.tensor([1])
input_y = 2
input_z = mindspore.tensor([3])

net = Net()
grad_net = GradNet(net)
ret = grad_net(input_x, input_y, input_z)
print('ret:{}'.format(ret))

import numpy as np
import mindspore
from mindspore import nn, mint
from mindspore import grad


class Net(nn.Cell):
    def construct(self, x):
        out = mint.narrow(x, 1, 1, 2)
        return out


net = Net()
np_x = np.arange(9).reshape(3, 3).astype(np.float32)
x = mindspore.tensor(np_x)

pynative_out = net(x)
pynative_grad_out = grad(net)(x)

net.construct = mindspore.jit(net.construct, backend='ms_backend')
graph_out = net(x)
graph_grad_out = grad(net)(x)

assert (graph_out == pynative_out).all()
assert (graph_grad_out == pynative_grad_out).all()

import mindspore
from mindspore import nn
from mindspore import grad


class Net(nn.Cell):
    def construct(self, x, y):
        x.add_(y)
        return x


x = mindspore.tensor(2, dtype=mindspore.int32)
y = mindspore.tensor(3, dtype=mindspore.int32)
net = Net()
net.construct = mindspore.jit(net.construct, backend='ms_backend')
graph_out = net(x, y)
graph_grad_out = grad(net)(x, y)
print("graph_out: ", graph_out)
print("graph_grad_out: ", graph_grad_out)

import mindspore
from mindspore import nn, context, Parameter, ParameterTuple
from mindspore import dtype as mstype
from mindspore import ops


class GradOfAllInputsAndParams(nn.Cell):
    def __init__(self, net):
        super(GradOfAllInputsAndParams, self).__init__()
        self.net = net
        self.params = ParameterTuple(net.trainable_params())
        self.grad_op = ops.GradOperation(get_all=True, get_by_list=True)

    def construct(self, x, y):
        gradient_function = self.grad_op(self.net, self.params)
        return gradient_function(x, y)


class Net(nn.Cell):
    def __init__(self):
        super(Net, self).__init__()
        self.param1 = Parameter(mindspore.tensor([1], dtype=mstype.float32), name="param1")
        self.param2 = Parameter(mindspore.tensor([1], dtype=mstype.float32), name="param2")

    def construct(self, x, y):
        out = self.param1 + self.param2 + x + y
        out = out * x
        return out.add_(y)


x = mindspore.tensor([1], dtype=mstype.float32)
y = mindspore.tensor([2], dtype=mstype.float32)
net = Net()
net.construct = mindspore.jit(net.construct, backend='ms_backend')
graph_out = net(x, y)
graph_grad_out = GradOfAllInputsAndParams(net)(x, y)
print("graph_out: ", graph_out)
print("graph_grad_out: ", graph_grad_out)

import mindspore
from mindspore import nn

class Net(nn.Cell):
   def __init__(self):
      super(Net, self).__init__()

   @mindspore.jit
   def construct(self, x):
      return x + self.y

net = Net()
try:
    net(1)
except AttributeError as e:
    print("AttributeError raised")

import mindspore
from mindspore import nn

class Net(nn.Cell):
   @mindspore.jit
   def construct(self, x, y):
      global_out = 1
      try:
         global_out = x / y
      except ZeroDivisionError:
         print("division by zero, y is zero.")
      return global_out

net = Net()
try:
    test_try_except_out = net(1, 0)
    print("out:", test_try_except_out)
except RuntimeError as e:
    print("RuntimeError raised")

import mindspore
from mindspore import nn, ops

class Net(nn.Cell):
   def __init__(self):
      super().__init__()
      self.len = 1

   @mindspore.jit
   def construct(self, inputs):
      x = inputs + self.len
      return x

inputs = 2
net = Net()
print("out1:", net(inputs))
net.len = 2
print("out2:", net(inputs))

import numpy as np
import mindspore
from mindspore import nn

class Net(nn.Cell):
   @mindspore.jit
   def construct(self):
      a = np.array([1, 2, 3])
      b = np.array([4, 5, 6])
      out = a + b
      return out

net = Net()
print(net())

from scipy import linalg
import mindspore
from mindspore import nn

class Net(nn.Cell):
   @mindspore.jit
   def construct(self):
      x = [[1, 2], [3, 4]]
      return linalg.qr(x)

net = Net()
out = net()
print(out[0].shape)

import numpy as np
import mindspore
from mindspore import nn

class Net(nn.Cell):
   @mindspore.jit
   def construct(self):
      x = np.array([1, 2, 3])
      out = mindspore.tensor(x) + 1
      return out

net = Net()
print(net())

import numpy as np
import mindspore
from mindspore import nn

class Net(nn.Cell):
   @mindspore.jit
   def construct(self):
      x = np.array([1, 2, 3])
      x[0] += 1
      return mindspore.tensor(x)

net = Net()
res = net()
print("res: ", res)

import mindspore

class GetattrClass():
   def __init__(self):
      self.attr1 = 99
      self.attr2 = 1

   def method1(self, x):
      return x + self.attr2

class GetattrClassNet(nn.Cell):
   def __init__(self):
      super(GetattrClassNet, self).__init__()
      self.cls = GetattrClass()

   @mindspore.jit
   def construct(self):
      return self.cls.method1(self.cls.attr1)

net = GetattrClassNet()
out = net()
assert out == 100

import mindspore
from mindspore import nn

class InnerClass(nn.Cell):
   @mindspore.jit
   def construct(self, x, y):
      return x.asnumpy() + y.asnumpy()

net = InnerClass()
ret = net(mindspore.tensor([4, 5]), mindspore.tensor([1, 2]))
print(ret)

import mindspore
from mindspore import nn

class InnerClass(nn.Cell):
   @mindspore.jit
   def construct(self):
      return (None, 1) in ((None, 1), 1, 2, 3)

net = InnerClass()
print(net())

a = [1, 2, 3, 4]
a_id = id(a)
a.append(5)
a_after_id = id(a)
assert a_id == a_after_id

import mindspore
from mindspore import nn

class Net(nn.Cell):
   @mindspore.jit
   def construct(self):
      x = {'a': 'a', 'b': 'b'}
      y = x.get('a')
      z = dict(y=y)
      return z

net = Net()
out = net()
print("out:", out)

import numpy as np
import mindspore
from mindspore import nn

x = {"a": mindspore.tensor(np.array([1, 2, 3])), "b": mindspore.tensor(np.array([4, 5, 6])), "c": mindspore.tensor(np.array([7, 8, 9]))}

class Net(nn.Cell):
   @mindspore.jit
   def construct(self):
      y = x["b"]
      x["a"] = (2, 3, 4)
      return x, y

net = Net()
out1, out2 = net()
print('out1:{}'.format(out1))
print('out2:{}'.format(out2))

import mindspore
from mindspore import nn

class Net(nn.Cell):
   @mindspore.jit
   def construct(self):
      return 1, "a", None

net = Net()
res = net()
print(res)
