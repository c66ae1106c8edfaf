"""All of a training step's BatchNorm moving-average updates as one multi-tensor write.

Every training BatchNorm updates its moving mean and variance with `AssignSub(moving, (moving - batch) * m)`:
in ResNet-20 that is 42 separate in-place kernels of 16 to 64 numbers each, each paying a kernel call for
almost no work. Graph-kernel fusion (compiler/passes/graph_kernel_batchnorm.py) defers them to the place of the
last one, where nothing reads the moving statistics any more, as one `ForeachAssignSub`: torch's multi-tensor
subtraction, which subtracts each value from its variable exactly as `AssignSub` does.

>>> import numpy as np
>>> v = [np.ones(2, np.float32), np.ones(3, np.float32)]
>>> out = ForeachAssignSub().numpy(np, v, [np.full(2, 0.5, np.float32), np.zeros(3, np.float32)])
>>> v[0].tolist(), v[1].tolist()
([0.5, 0.5], [1.0, 1.0, 1.0])
"""
from ...core.primitive import AbstractTensor, Primitive


class ForeachAssignSub(Primitive):
    """ForeachAssignSub()(variables, values): variable -= value for each pair, in place; returns the variables."""

    side_effect = True
    differentiable = False
    nondiff_reason = "it writes Parameters in place, after autodiff"

    def infer(self, variables, values):
        return tuple(AbstractTensor(tuple(v.shape), v.dtype) for v in variables)

    def numpy(self, np, variables, values):
        for variable, value in zip(variables, values):
            np.subtract(variable, value.astype(variable.dtype, copy=False), out=variable)
        return tuple(variables)

    def torch(self, torch, variables, values):
        variables = list(variables)
        torch._foreach_sub_(variables, [v.to(t.dtype) for t, v in zip(variables, values)])
        return tuple(variables)
