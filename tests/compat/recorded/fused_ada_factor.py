import numpy as np
import mindspore as ms
from mindspore import ops, Tensor, Parameter

np.set_printoptions(precision=5, suppress=True)
ms.set_context(mode=ms.GRAPH_MODE)   # as MindSpore's own example runs it


class Net(ms.nn.Cell):
    def __init__(self, flags, p, m, v, r, c):
        super().__init__()
        self.opt = ops.FusedAdaFactor(*flags)
        self.param, self.exp_avg = Parameter(Tensor(p), name="p"), Parameter(Tensor(m), name="m")
        self.exp_avg_sq = Parameter(Tensor(v), name="v")
        self.row, self.col = Parameter(Tensor(r), name="r"), Parameter(Tensor(c), name="c")

    def construct(self, eps, clip, b1, b2, wd, lr, g):
        return self.opt(eps, clip, b1, b2, wd, lr, g, self.param, self.exp_avg, self.row, self.col, self.exp_avg_sq)


rng = np.random.default_rng(0)
for shape in [(3, 4), (5,), (2, 3, 2)]:
    p = rng.standard_normal(shape).astype(np.float32)
    g = rng.standard_normal(shape).astype(np.float32)
    m = rng.standard_normal(shape).astype(np.float32) * 0.1
    v = rng.random(shape).astype(np.float32)
    r = rng.random(shape[:-1]).astype(np.float32) if len(shape) > 1 else np.zeros(1, np.float32)
    c = rng.random(shape[:-2] + shape[-1:]).astype(np.float32) if len(shape) > 1 else np.zeros(1, np.float32)
    for flags in [(False, False, False), (True, False, False), (False, True, False), (False, False, True),
                  (True, True, True)]:
        for clip in [1.0, 0.3]:
            net = Net(flags, p, m, v, r, c)
            net((1e-30, 1e-3), clip, 0.9, 0.8, 1e-2, 0.03, Tensor(g))
            print(shape, flags, clip)
            print(net.param.asnumpy(), net.exp_avg.asnumpy(), net.exp_avg_sq.asnumpy(), net.row.asnumpy(),
                  net.col.asnumpy())


class NormNet(Net):
    def __init__(self, p, m, v, r, c):
        super().__init__((True, True, True), p, m, v, r, c)
        self.opt = ops.FusedAdaFactorWithGlobalNorm(True, True, True)

    def construct(self, eps, clip, b1, b2, wd, lr, g, norm):
        return self.opt(eps, clip, b1, b2, wd, lr, g, self.param, self.exp_avg, self.row, self.col, self.exp_avg_sq,
                        norm)


p, g = rng.standard_normal((3, 4)).astype(np.float32), rng.standard_normal((3, 4)).astype(np.float32)
for norm in (0.5, 4.0):
    net = NormNet(p, p * 0.1, np.zeros(1, np.float32), np.full(3, 0.2, np.float32), np.full(4, 0.3, np.float32))
    net((1e-30, 1e-3), 1.0, 0.9, 0.8, 1e-2, 0.03, Tensor(g), Tensor(np.float32(norm)))
    print(norm, net.param.asnumpy(), net.exp_avg.asnumpy(), net.row.asnumpy(), net.col.asnumpy())
