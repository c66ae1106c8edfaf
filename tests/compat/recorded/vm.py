import numpy as np
import mindspore as ms
from mindspore import ops, nn, Tensor
x = Tensor(np.arange(6.).reshape(2,3).astype(np.float32))
def add(a, b):
    return a + b
def ident(a):
    return a
def scale(a, n):
    return a * n
def total(a):
    return a.sum()
def dct(d):
    return d["k"] * 2
def pair(a):
    return a, 1.0
def twice(a):
    return a, a * 2
for args in [dict(in_axes=(0, 1)), dict(in_axes=None), dict(in_axes=(0, 0))]:
    try:
        print(ms.vmap(add, **args)(x, Tensor(np.ones((3, 3), np.float32))))
    except Exception as e:
        print(type(e).__name__, str(e).splitlines()[0])
try:
    print(ms.vmap(ident, in_axes=3)(x))
except Exception as e:
    print(type(e).__name__, str(e).splitlines()[0])
print(ms.vmap(scale, in_axes=(0, None))(x, 2.0))
print(ms.vmap(total, in_axes=-1)(x))
print(ms.vmap(twice, out_axes=(1, 0))(x)[0].shape)
print(ms.vmap(ms.vmap(total, in_axes=0), in_axes=1)(Tensor(np.ones((2, 3, 4), np.float32))))
print(ms.vmap(nn.Dense(3, 2), in_axes=1)(Tensor(np.ones((5, 4, 3), np.float32))).shape)
cells = nn.CellList([nn.Dense(3, 2), nn.Dense(3, 2)])
print(ms.vmap(cells, in_axes=0)(Tensor(np.ones((2, 5, 3), np.float32))).shape)
print(ms.grad(ms.vmap(total))(x))
