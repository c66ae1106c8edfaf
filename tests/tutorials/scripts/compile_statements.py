# ruff: noqa: E402, F811, F821, E731  (a tutorial page: imports where the page has them, blocks that redefine names)
# MindSpore 2.x tutorial "Graph Mode Syntax - Python Statements" (tutorials/compile/statements, r2.8), unchanged
# except that each block the page shows failing (raise, assert, a variable defined in one branch or in a loop body
# only, a name never defined, nested comprehensions) is wrapped in try/except printing the exception's type, and
# the two-iterator comprehension lines the page shows bare are put in a jit function as the text says. Nothing is
# downloaded.
# expect: ValueError
# expect: AssertionError
# expect: ret: 50.625
# expect: ret: 1920
# expect: ret: 9
# expect: ret:[[7. 7. 7.]
# expect: ret:15
# expect: m:5
# expect: ret:[4, 16, 36, 64, 100]
# expect: ret:{'b': 2, 'c': 3}
# expect: out1: [5]
# expect: out2: [2]
import mindspore
from mindspore import nn

class Net(nn.Cell):
    def __init__(self):
        super(Net, self).__init__()

    @mindspore.jit
    def construct(self, x, y):
        if x <= y:
            raise ValueError("x should be greater than y.")
        else:
            x += 1
        return x

net = Net()
try:
    net(mindspore.tensor(-2), mindspore.tensor(-1))
except ValueError as e:
    print("ValueError:", str(e).splitlines()[0])

import mindspore
from mindspore import nn

class Net(nn.Cell):
    def __init__(self):
        super(Net, self).__init__()

    @mindspore.jit
    def construct(self, x):
        assert x in [2, 3, 4]
        return x

net = Net()
try:
    net(mindspore.tensor(-1))
except AssertionError:
    print("AssertionError.")

import mindspore
from mindspore import nn

class Net(nn.Cell):
  @mindspore.jit
  def construct(self, x):
    i = 0
    while i < 5:
      if i > 3:
        pass
      else:
        x = x * 1.5
      i += 1
    return x

net = Net()
ret = net(10)
print("ret:", ret)

import mindspore
from mindspore import nn

class Net(nn.Cell):
  @mindspore.jit
  def construct(self, x):
      if x > 0:
        return x
      else:
        return 0

net = Net()
ret = net(10)
print("ret:", ret)

import mindspore

# mindspore.set_device("CPU")  (left out: MindSpore 2.10 refuses it once kernels have run)
@mindspore.jit
def foo():
  x = 3
  print("x:", x)

res = foo()
assert res is None

import mindspore
from mindspore import nn

class Net(nn.Cell):
  @mindspore.jit
  def construct(self, x):
    for i in range(8):
      if i > 5:
        x *= 3
        break
      x = x * 2
    return x

net = Net()
ret = net(10)
print("ret:", ret)

import mindspore
from mindspore import nn

class Net(nn.Cell):
  @mindspore.jit
  def construct(self, x):
    for i in range(4):
      if i > 2:
        x *= 3
        continue
    return x

net = Net()
ret = net(3)
print("ret:", ret)

import mindspore

x = mindspore.tensor([1, 4], mindspore.int32)
y = mindspore.tensor([0, 3], mindspore.int32)
m = 1
n = 2

@mindspore.jit
def test_cond(x, y):
    if (x > y).any():
        return m
    else:
        return n

ret = test_cond(x, y)
print('ret:{}'.format(ret))

import mindspore

x = mindspore.tensor([1, 4], mindspore.int32)
y = mindspore.tensor([0, 3], mindspore.int32)
m = 1
n = 2

@mindspore.jit
def test_cond(x, y):
    out = 3
    if (x > y).any():
        out = m
    else:
        out = n
    return out

ret = test_cond(x, y)
print('ret:{}'.format(ret))

import mindspore

x = mindspore.tensor([1, 4], mindspore.int32)
y = mindspore.tensor([0, 3], mindspore.int32)
m = 1

@mindspore.jit
def test_cond(x, y):
    out = 2
    if (x > y).any():
        out = m
    return out

ret = test_cond(x, y)
print('ret:{}'.format(ret))

import mindspore

x = mindspore.tensor([1, 4], mindspore.int32)
y = mindspore.tensor([0, 3], mindspore.int32)

@mindspore.jit
def test_if_cond(x, y):
    if (x > y).any():
        z = x + 1
    return z

try:
    ret = test_if_cond(x, y)
    print('ret:{}'.format(ret))
except UnboundLocalError as e:
    print("UnboundLocalError")

import numpy as np
import mindspore

z = mindspore.tensor(np.ones((2, 3)))

@mindspore.jit
def test_cond():
    x = (1, 2, 3)
    for i in x:
        z += i
    return z

ret = test_cond()
print('ret:{}'.format(ret))

import mindspore

del z

@mindspore.jit
def test_cond():
    x = (1, 2, 3)
    for i in x:
        z += i
    return z

try:
    ret = test_cond()
    print('ret:{}'.format(ret))
except NameError as e:
    print("NameError")

import mindspore

m = 1
n = 2

@mindspore.jit
def test_cond(x, y):
    while x < y:
        x += 1
        return m
    return n

ret = test_cond(1, 5)
print('ret:{}'.format(ret))

import mindspore

m = 1
n = 2

def ops1(a, b):
    return a + b

@mindspore.jit
def test_cond(x, y):
    out = m
    while x < y:
        x += 1
        out = ops1(out, x)
    return out

ret = test_cond(1, 5)
print('ret:{}'.format(ret))

import mindspore as ms

@ms.jit()
def test_cond(x, y):
    while x < y:
        x += 1
        z = x + y
    return z

try:
    ret = test_cond(1, 5)
    print('ret:{}'.format(ret))
except UnboundLocalError as e:
    print("UnboundLocalError")

import mindspore

def number_add(x, y):
    return x + y

@mindspore.jit
def test(x, y):
    return number_add(x, y)

ret = test(1, 5)
print('ret:{}'.format(ret))

import mindspore

@mindspore.jit
def test(x, y):
    number_add = lambda x, y: x + y
    return number_add(x, y)

ret = test(1, 5)
print('ret:{}'.format(ret))

import mindspore
from mindspore import ops

def add(x, y):
    return x + y

@mindspore.jit
def test():
    add_ = ops.partial(add, x=2)
    m = add_(y=3)
    n = add_(y=5)
    return m, n

m, n = test()
print('m:{}'.format(m))
print('n:{}'.format(n))

import mindspore

@mindspore.jit
def test():
    l = [x * x for x in range(1, 11) if x % 2 == 0]
    return l

ret = test()
print('ret:{}'.format(ret))

@mindspore.jit
def test():
    l = [y for x in ((1, 2), (3, 4), (5, 6)) for y in x]
    return l

try:
    print(test())
except TypeError as e:
    print("TypeError")

import mindspore

@mindspore.jit
def test():
    x = [('a', 1), ('b', 2), ('c', 3)]
    res = {k: v for (k, v) in x if v > 1}
    return res

ret = test()
print('ret:{}'.format(ret))

import mindspore

@mindspore.jit
def test():
    x = ({'a': 1, 'b': 2}, {'d': 1, 'e': 2}, {'g': 1, 'h': 2})
    res = {k: v for y in x for (k, v) in y.items()}
    return res

try:
    ret = test()
    print('ret:{}'.format(ret))
except TypeError as e:
    print("TypeError")

import mindspore

@mindspore.jit
def test():
    l = (x * x for x in range(1, 11) if x % 2 == 0)
    return l

ret = test()
print('ret:{}'.format(ret))

import mindspore
from mindspore import nn

@mindspore.jit_class
class Sample:
    def __init__(self):
        super(Sample, self).__init__()
        self.num = mindspore.tensor([2])

    def __enter__(self):
        return self.num * 2

    def __exit__(self, exc_type, exc_value, traceback):
        return self.num * 4

class TestNet(nn.Cell):
    @mindspore.jit
    def construct(self):
        res = 1
        obj = Sample()
        with obj as sample:
            res += sample
        return res, obj.num

test_net = TestNet()
out1, out2 = test_net()
print("out1:", out1)
print("out2:", out2)
