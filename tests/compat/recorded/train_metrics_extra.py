import numpy as np
import mindspore as ms
from mindspore.train import ConfusionMatrixMetric

np.set_printoptions(precision=5, suppress=True)
rs = np.random.RandomState(0)
pred = (rs.rand(4, 3, 5) > 0.5).astype(np.float32)
label = (rs.rand(4, 3, 5) > 0.4).astype(np.float32)
for name in ["tpr", "specificity", "precision", "npv", "fnr", "fpr", "fdr", "for", "ts", "acc", "ba", "f1", "mcc",
             "fm", "bm", "mk", "pt"]:
    for method in (False, True):
        m = ConfusionMatrixMetric(skip_channel=True, metric_name=name, calculation_method=method, decrease="mean")
        m.update(ms.Tensor(pred[:2]), ms.Tensor(label[:2]))
        m.update(ms.Tensor(pred[2:]), ms.Tensor(label[2:]))
        print(name, method, m.eval())
for decrease in ["sum", "mean_batch", "sum_batch", "mean_channel", "sum_channel"]:
    m = ConfusionMatrixMetric(skip_channel=False, metric_name="f1", calculation_method=False, decrease=decrease)
    m.update(ms.Tensor(pred), ms.Tensor(label))
    print(decrease, m.eval())
m = ConfusionMatrixMetric(metric_name="tpr", calculation_method=False, decrease="sum_channel")
m.update(ms.Tensor(pred), ms.Tensor(label))
print("counts first, per sample", m.eval())

