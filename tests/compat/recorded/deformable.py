import numpy as np
import mindspore as ms
from mindspore import ops, Tensor

np.set_printoptions(precision=5, suppress=True)
rng = np.random.default_rng(1)
x = rng.standard_normal((2, 4, 6, 7)).astype(np.float32)
for strides, pads, ksize, dilations, groups in [((1, 1, 1, 1), (0, 0, 0, 0), (2, 2), (1, 1, 1, 1), 1),
                                                ((1, 1, 2, 2), (1, 0, 1, 0), (2, 2), (1, 1, 2, 1), 2),
                                                ((1, 1, 1, 2), (1, 1, 0, 1), (3, 2), (1, 1, 1, 1), 2)]:
    kh, kw = ksize
    ho = (6 + pads[0] + pads[1] - (kh - 1) * dilations[2] - 1) // strides[2] + 1
    wo = (7 + pads[2] + pads[3] - (kw - 1) * dilations[3] - 1) // strides[3] + 1
    offsets = Tensor(rng.uniform(-1.5, 1.5, (2, 3 * groups * kh * kw, ho, wo)).astype(np.float32))
    out = ops.DeformableOffsets(strides, pads, ksize, dilations, "NCHW", groups, True)(Tensor(x), offsets)
    print(out.shape, out.asnumpy()[1, 2])
    weight = Tensor(rng.standard_normal((6, 2, kh, kw)).astype(np.float32))
    bias = Tensor(rng.standard_normal(6).astype(np.float32))
    conv = ops.deformable_conv2d(Tensor(x), weight, offsets, ksize, strides, pads, bias, dilations, 2, groups)
    print(conv.shape, conv.asnumpy()[0, :2])
try:
    ops.DeformableOffsets((1, 1, 1, 1), (0, 0, 0, 0), (2, 2), modulated=False)
except ValueError as exc:
    print("ValueError")
op = ops.DeformableOffsets((1, 1, 1, 1), (1, 0, 0, 1), (2, 2), (1, 1, 1, 1), "NCHW", 2, True)
offsets = Tensor(rng.uniform(-1.5, 1.5, (2, 24, 6, 7)).astype(np.float32))
cot = Tensor(rng.standard_normal((2, 4, 12, 14)).astype(np.float32))
gx, goff = ms.grad(lambda a, b: (op(a, b) * cot).sum(), grad_position=(0, 1))(Tensor(x), offsets)
print(gx.asnumpy()[1, 3] + 0.0, goff.asnumpy()[0, ::5, 2] + 0.0)  # + 0.0: no "-0." text
