import numpy as np
import mindspore as ms
from mindspore import ops, Tensor, Parameter

np.set_printoptions(precision=5, suppress=True)
rng = np.random.default_rng(0)
v0 = rng.uniform(-1, 1, (3, 4)).astype(np.float32)
a0 = rng.uniform(0.1, 1, (3, 4)).astype(np.float32)
l0 = rng.uniform(-1, 1, (3, 4)).astype(np.float32)
g0 = rng.uniform(-1, 1, (3, 4)).astype(np.float32)
# l1 = 0: MindSpore 2.10's CPU kernel and the documented formula agree (with l1 > 0 its kernel drops sign(linear))
for lr, l2, power in [(0.1, 0.0, -0.5), (0.1, 0.3, -0.5), (0.05, 0.01, -0.3)]:
    var, acc, lin = (Parameter(Tensor(a.copy()), name=n) for a, n in ((v0, "v"), (a0, "a"), (l0, "l")))
    out = ops.ApplyFtrl()(var, acc, lin, Tensor(g0), lr, 0.0, l2, power)
    print(out.asnumpy())
    print(var.asnumpy(), acc.asnumpy(), lin.asnumpy())
# l1 > 0 where every updated `linear` is positive (the kernel's sign slip does not arise)
var, acc, lin = (Parameter(Tensor(a), name=n) for a, n in ((v0 * 0 - 0.1, "v"), (a0, "a"), (np.abs(l0) + 1, "l")))
print(ops.ApplyFtrl()(var, acc, lin, Tensor(g0), 0.1, 0.2, 0.1, -0.5).asnumpy(), lin.asnumpy())
