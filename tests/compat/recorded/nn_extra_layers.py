import numpy as np
import mindspore as ms
from mindspore import nn

np.set_printoptions(precision=5, suppress=True)
rs = np.random.RandomState(0)
T = lambda a: ms.Tensor(np.asarray(a, np.float32))  # noqa: E731

bd = nn.BiDense(3, 4, 2, weight_init=T(rs.rand(2, 3, 4) - 0.5), bias_init=T([0.1, -0.2]))
print("bidense", bd(T(rs.rand(5, 3)), T(rs.rand(5, 4))).asnumpy())
logits = T([[0.8, 1.4], [0.5, 0.9], [1.2, 0.9]])
labels = ms.Tensor(np.array([[1], [1], [0]], np.int32))
print("focal", nn.FocalLoss(weight=T([1, 2]), gamma=2.0, reduction="mean")(logits, labels))
print("focal_none", nn.FocalLoss(gamma=1.5, reduction="none")(T(rs.rand(2, 3, 2, 2)),
                                                                ms.Tensor(rs.randint(0, 3, (2, 1, 2, 2)).astype(np.int32))))
a, p, n = T(rs.rand(4, 5)), T(rs.rand(4, 5)), T(rs.rand(4, 5))
print("triplet", nn.TripletMarginWithDistanceLoss()(a, p, n))
print("triplet_swap", nn.TripletMarginWithDistanceLoss(swap=True, margin=0.3, reduction="none")(a, p, n))
td = nn.TimeDistributed(nn.Dense(3, 2, weight_init="ones", bias_init="zeros"), time_axis=1)
print("timedist", td(T(rs.rand(2, 4, 3))).shape)
print("upsample", nn.Upsample(size=(4, 4), mode="nearest")(T(rs.rand(1, 1, 2, 2))))
print("lppool1", nn.LPPool1d(2, 3, 2)(T(rs.rand(1, 2, 7))))
print("lppool2", nn.LPPool2d(1, 2)(T(rs.rand(1, 1, 4, 4))))
emb = nn.EmbeddingLookup(5, 3, param_init=T(rs.rand(5, 3) * 3))
print("emb", emb(ms.Tensor(np.array([[0, 4], [2, 2]], np.int32))))
rr = nn.RReLU(0.1, 0.3)(T([-1.0, 2.0, -3.0, 0.5])).asnumpy()
print("rrelu", rr[1], rr[3], bool(-0.3 <= rr[0] <= -0.1), bool(-0.9 <= rr[2] <= -0.3))
lin = nn.Linear(3, 2)
print("linear", lin(T(rs.rand(4, 3))).shape, lin.weight.shape)
print("cba", nn.Conv2dBnAct(3, 4, 3, has_bn=True, activation="relu")(T(rs.rand(2, 3, 8, 8))).shape)
print("dba", nn.DenseBnAct(3, 4, has_bn=True, activation="relu")(T(rs.rand(5, 3))).shape)
