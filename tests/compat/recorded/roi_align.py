import numpy as np
import mindspore as ms
from mindspore import ops, Tensor

np.set_printoptions(precision=5, suppress=True)
rng = np.random.default_rng(0)
feat = rng.standard_normal((2, 3, 7, 9)).astype(np.float32)
rois = np.array([[0, 0.2, 0.3, 5.2, 4.9], [1, 1.5, 0.0, 8.9, 6.5], [0, -2.0, -1.0, 3.0, 10.0],
                 [1, 3.3, 2.2, 3.4, 2.3], [0, 6, 4, 30, 20]], np.float32)
for ph, pw, scale, sample_num, end_mode in [(2, 2, 1.0, 2, 1), (3, 2, 0.5, 0, 1), (2, 3, 1.0, 2, 0),
                                            (4, 4, 0.25, 1, 0), (2, 2, 1.0, 0, 0)]:
    out = ops.ROIAlign(ph, pw, scale, sample_num, end_mode)(Tensor(feat), Tensor(rois))
    print(out.shape, out.asnumpy())
x = Tensor(feat)
# the regions of at least 1x1 (MindSpore's CPU gradient kernel skips the 1x1 minimum the forward applies, so for
# the tiny row 3 its gradient is not the forward's; openspore's is the exact adjoint of the forward)
grad = ms.grad(lambda f: (ops.ROIAlign(2, 2, 0.5, 2)(f, Tensor(rois[[0, 1, 2, 4]])) * 1.5).sum())(x)
print(grad.asnumpy())
print(ops.ROIAlign(2, 2, 1.0)(Tensor(np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)),
                              Tensor(np.array([[0, 0.2, 0.3, 3.2, 2.9]], np.float32))))
