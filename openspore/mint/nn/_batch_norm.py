"""mint.nn's batch norms (BatchNorm1d/2d/3d, SyncBatchNorm): PyTorch's arguments and MindSpore mint's parameter
names (`weight`, `bias`, `running_mean`, `running_var`, `num_batches_tracked`), so their checkpoints and
`parameters_dict()` keys match MindSpore's.

Running statistics follow PyTorch: running = (1 − momentum)·running + momentum·batch (variance unbiased), and
`momentum=None` makes it the cumulative average over `num_batches_tracked` batches. Without running statistics
(`track_running_stats=False`) the batch's are used in evaluation too.

>>> import numpy as np, openspore as ms
>>> from openspore.mint import nn
>>> bn = nn.BatchNorm1d(2).set_train(True)
>>> y = bn(ms.Tensor(np.array([[1.0, 10.0], [3.0, 30.0]], np.float32)))
>>> sorted(bn.parameters_dict())
['bias', 'num_batches_tracked', 'running_mean', 'running_var', 'weight']
>>> bn.running_mean.asnumpy().tolist(), int(bn.num_batches_tracked.asnumpy())
([0.20000000298023224, 2.0], 1)
"""
import numpy as np

from ... import nn as _nn
from ... import ops as _ops
from ...common import dtype as _mstype
from ...core.parameter import Parameter
from ...core.tensor import Tensor

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm"]


class _BatchNorm(_nn.Cell):
    ranks = ()  # the input ranks this layer takes

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, dtype=None):
        super().__init__()
        name = type(self).__name__
        if isinstance(num_features, bool) or not isinstance(num_features, int) or num_features <= 0:
            raise ValueError(f"For '{name}', 'num_features' must be a positive int, but got {num_features!r}.")
        if momentum is not None and not 0.0 <= momentum <= 1.0:
            raise ValueError(f"For '{name}', 'momentum' must be in [0, 1] or None, but got {momentum!r}.")
        self.num_features, self.eps, self.momentum = num_features, float(eps), momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        np_dtype = (_mstype.float32 if dtype is None else _mstype.to_dtype(dtype, name)).np_dtype

        def param(value, pname, grad):
            return Parameter(Tensor(np.full(num_features, value, np_dtype)), name=pname, requires_grad=grad)
        self.weight = param(1.0, "weight", True) if affine else None
        self.bias = param(0.0, "bias", True) if affine else None
        if track_running_stats:
            self.running_mean = param(0.0, "running_mean", False)
            self.running_var = param(1.0, "running_var", False)
            self.num_batches_tracked = Parameter(Tensor(np.array(0, np.int64)), name="num_batches_tracked",
                                                 requires_grad=False)
        else:
            self.running_mean = self.running_var = self.num_batches_tracked = None

    def _check_input(self, x):
        if len(x.shape) not in self.ranks:
            raise ValueError(f"For '{type(self).__name__}', the input must be {' or '.join(map(str, self.ranks))}-D, "
                             f"but got shape {list(x.shape)}.")
        if x.shape[1] != self.num_features:
            raise ValueError(f"For '{type(self).__name__}', the input has {x.shape[1]} channels (axis 1), but "
                             f"num_features is {self.num_features}.")

    def construct(self, x):
        self._check_input(x)
        use_batch = self.training or not self.track_running_stats
        momentum = 0.0 if self.momentum is None else self.momentum
        running_mean, running_var = self.running_mean, self.running_var
        if self.training and self.track_running_stats:
            _ops.assign(self.num_batches_tracked, self.num_batches_tracked + 1)
            if self.momentum is None:  # cumulative average: batch k weighs 1/k
                momentum = 1.0 / float(self.num_batches_tracked.asnumpy())
        if running_mean is None:  # statistics of this batch only: scratch running buffers nobody keeps
            running_mean = _ops.zeros((self.num_features,), x.dtype)
            running_var = _ops.ones((self.num_features,), x.dtype)
        return _ops.batch_norm(x, running_mean, running_var, self.weight, self.bias, use_batch, momentum, self.eps)


class BatchNorm1d(_BatchNorm):
    """`BatchNorm1d(num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, dtype=None)`:
    (N, C) or (N, C, L) inputs."""
    ranks = (2, 3)


class BatchNorm2d(_BatchNorm):
    """`BatchNorm2d(num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, dtype=None)`:
    (N, C, H, W) inputs."""
    ranks = (4,)


class BatchNorm3d(_BatchNorm):
    """`BatchNorm3d(num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, dtype=None)`:
    (N, C, D, H, W) inputs."""
    ranks = (5,)


class SyncBatchNorm(_BatchNorm):
    """`SyncBatchNorm(num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
    process_group=None, dtype=None)`: batch norm of (N, C, ...) inputs whose statistics span the devices of
    `process_group` (a communication group name; None: the world). On one process it is BatchNorm; training
    across several processes raises NotImplementedError (the statistics are not exchanged here yet)."""
    ranks = (2, 3, 4, 5, 6, 7, 8)

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 process_group=None, dtype=None):
        if process_group is not None and not isinstance(process_group, str):
            raise TypeError(f"For 'SyncBatchNorm', 'process_group' must be a group name (str) or None, but got "
                            f"{type(process_group).__name__}.")
        super().__init__(num_features, eps, momentum, affine, track_running_stats, dtype)
        self.process_group = process_group

    def construct(self, x):
        if self.training and _group_size() > 1:
            raise NotImplementedError("For 'SyncBatchNorm', statistics synchronised across processes are not "
                                      "implemented in openspore yet; use BatchNorm per process.")
        return super().construct(x)


def _group_size():
    from ...communication import management
    return management.get_group_size() if management.GlobalComm.INITED else 1
