"""Tensor repr layout (summarised axes, unwrapped rows, vectors 12/24 items a line, float16/bool/int widths)."""
import numpy as np
import mindspore as ms
for shape in [(7,), (20,), (7, 2), (2, 7), (1, 1000), (8, 3)]:
    a = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape) / 7
    print(repr(ms.Tensor(a)))
for shape in [(2, 20), (30,), (7, 7)]:
    print(repr(ms.Tensor(np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape))))
print(repr(ms.Tensor(np.arange(3000, dtype=np.float32))))
print(repr(ms.Tensor(np.arange(30, dtype=np.int32) * 1000)))
print(repr(ms.Tensor(np.arange(30, dtype=np.int64))))
print(repr(ms.Tensor(np.arange(30, dtype=np.float64))))
print(repr(ms.Tensor(np.arange(30, dtype=np.float16))))
print(repr(ms.Tensor(np.arange(30) % 2 == 0)))
print(repr(ms.Tensor(np.arange(1001, dtype=np.int32)))[-80:])
print(repr(ms.Tensor(np.arange(1000, dtype=np.int32)))[-80:])
print(repr(ms.Tensor(np.arange(7*7*7, dtype=np.int32).reshape(7,7,7))))
