"""Normalization layers: BatchNorm1d/2d/3d, LayerNorm, GroupNorm, InstanceNorm1d/2d/3d.

BatchNorm follows MindSpore: `momentum=0.9` is the keep factor (moving = 0.9 * moving + 0.1 * batch; the `BatchNorm`
primitive carries 1 - momentum), the moving variance takes the unbiased batch variance, training mode normalizes
with batch statistics and writes the moving ones in place through `ops.assign`; eval mode uses the moving ones.

>>> import numpy as np, openspore as ms
>>> from openspore import nn
>>> bn = nn.BatchNorm1d(2).set_train()
>>> _ = bn(ms.Tensor(np.array([[1., 2.], [3., 2.]], np.float32)))
>>> bn.moving_mean.asnumpy().tolist()
[0.20000000298023224, 0.20000000298023224]
"""
from ... import ops
from ...common import dtype as mstype
from ..cell import Cell
from ._common import check_bool, check_dtype, check_number, is_int, make_param, positive_int, same_dtype


def _set_feature_args(cell, name, num_features, eps, momentum, affine):
    """Check and set the arguments BatchNorm and InstanceNorm share: num_features, eps, momentum, affine."""
    cell.num_features = positive_int(name, "num_features", num_features)
    cell.eps = check_number(name, "eps", eps, 0.0, 1.0, low_open=True)
    cell.momentum = check_number(name, "momentum", momentum, 0.0, 1.0)
    cell.affine = check_bool(name, "affine", affine)


class _BatchNorm(Cell):
    _ranks = (4,)

    def __init__(self, num_features, eps=1e-5, momentum=0.9, affine=True, gamma_init="ones", beta_init="zeros",
                 moving_mean_init="zeros", moving_var_init="ones", use_batch_statistics=None, data_format="NCHW",
                 dtype=mstype.float32):
        super().__init__()
        name = type(self).__name__
        _set_feature_args(self, name, num_features, eps, momentum, affine)
        if use_batch_statistics is not None:
            use_batch_statistics = check_bool(name, "use_batch_statistics", use_batch_statistics)
        self.use_batch_statistics = use_batch_statistics
        if data_format not in ("NCHW", "NHWC"):
            raise ValueError(f"For '{name}', the 'data_format' must be 'NCHW' or 'NHWC', but got {data_format!r}.")
        self.format = data_format
        dtype = check_dtype(name, dtype)
        shape = (self.num_features,)
        self.moving_mean = make_param(moving_mean_init, shape, dtype, "mean", requires_grad=False)
        self.moving_variance = make_param(moving_var_init, shape, dtype, "variance", requires_grad=False)
        self.gamma = make_param(gamma_init, shape, dtype, "gamma", requires_grad=self.affine)
        self.beta = make_param(beta_init, shape, dtype, "beta", requires_grad=self.affine)
        self.bn_train = ops.BatchNorm(is_training=True, epsilon=self.eps, momentum=1.0 - self.momentum,
                                      data_format=data_format)
        self.bn_infer = ops.BatchNorm(is_training=False, epsilon=self.eps, momentum=1.0 - self.momentum,
                                      data_format=data_format)

    def _check_input(self, x):
        if len(x.shape) not in self._ranks:
            wanted = " or ".join(f"{r}-D" for r in self._ranks)
            raise ValueError(f"For '{type(self).__name__}', the input must be {wanted}, but got shape "
                             f"{list(x.shape)}.")

    def construct(self, x):
        self._check_input(x)
        use_batch = self.training if self.use_batch_statistics is None else self.use_batch_statistics
        if not use_batch:
            return self.bn_infer(x, self.gamma, self.beta, self.moving_mean, self.moving_variance)[0]
        y, batch_mean, batch_var = self.bn_train(x, self.gamma, self.beta, self.moving_mean, self.moving_variance)
        count = x.size // self.num_features
        unbiased = ops.mul(batch_var, count / max(count - 1, 1))
        update = 1.0 - self.momentum
        # moving -= (moving - batch) * (1 - momentum)  ==  momentum * moving + (1 - momentum) * batch
        ops.assign_sub(self.moving_mean, ops.mul(ops.sub(self.moving_mean, batch_mean), update))
        ops.assign_sub(self.moving_variance, ops.mul(ops.sub(self.moving_variance, unbiased), update))
        return y

    def extend_repr(self):
        return (f"num_features={self.num_features}, eps={self.eps}, momentum={self.momentum}, gamma={self.gamma}, "
                f"beta={self.beta}, moving_mean={self.moving_mean}, moving_variance={self.moving_variance}")


class BatchNorm1d(_BatchNorm):
    """`BatchNorm1d(num_features, eps=1e-05, momentum=0.9, affine=True, gamma_init='ones', beta_init='zeros',
    moving_mean_init='zeros', moving_var_init='ones', use_batch_statistics=None, data_format='NCHW',
    dtype=mstype.float32)`: batch normalization of an (N, C) or (N, C, L) input."""
    _ranks = (2, 3)


class BatchNorm2d(_BatchNorm):
    """`BatchNorm2d(num_features, eps=1e-05, momentum=0.9, affine=True, gamma_init='ones', beta_init='zeros',
    moving_mean_init='zeros', moving_var_init='ones', use_batch_statistics=None, data_format='NCHW',
    dtype=mstype.float32)`: batch normalization of an (N, C, H, W) input."""
    _ranks = (4,)


class BatchNorm3d(_BatchNorm):
    """`BatchNorm3d(num_features, eps=1e-05, momentum=0.9, affine=True, gamma_init='ones', beta_init='zeros',
    moving_mean_init='zeros', moving_var_init='ones', use_batch_statistics=None, data_format='NCDHW',
    dtype=mstype.float32)`: batch normalization of an (N, C, D, H, W) input."""
    _ranks = (5,)

    def __init__(self, num_features, eps=1e-5, momentum=0.9, affine=True, gamma_init="ones", beta_init="zeros",
                 moving_mean_init="zeros", moving_var_init="ones", use_batch_statistics=None, data_format="NCDHW",
                 dtype=mstype.float32):
        if data_format != "NCDHW":
            raise ValueError(f"For 'BatchNorm3d', the 'data_format' must be 'NCDHW', but got {data_format!r}.")
        super().__init__(num_features, eps, momentum, affine, gamma_init, beta_init, moving_mean_init,
                         moving_var_init, use_batch_statistics, "NCHW", dtype)


class LayerNorm(Cell):
    """`LayerNorm(normalized_shape, begin_norm_axis=-1, begin_params_axis=-1, gamma_init='ones', beta_init='zeros',
    epsilon=1e-07, dtype=mstype.float32)`: normalize over the axes from begin_norm_axis on, then scale by
    `gamma` and shift by `beta` (both of shape normalized_shape)."""

    def __init__(self, normalized_shape, begin_norm_axis=-1, begin_params_axis=-1, gamma_init="ones",
                 beta_init="zeros", epsilon=1e-7, dtype=mstype.float32):
        super().__init__()
        if not isinstance(normalized_shape, (tuple, list)) or not all(is_int(s) and s > 0 for s in normalized_shape):
            raise TypeError(f"For 'LayerNorm', the type of 'normalized_shape' must be tuple[int] or list[int] of "
                            f"positive sizes, but got {normalized_shape!r}.")
        for arg, value in (("begin_norm_axis", begin_norm_axis), ("begin_params_axis", begin_params_axis)):
            if not is_int(value):
                raise TypeError(f"For 'LayerNorm', the '{arg}' must be an int, but got {type(value).__name__}.")
        self.normalized_shape = tuple(int(s) for s in normalized_shape)
        self.begin_norm_axis = int(begin_norm_axis)
        self.begin_params_axis = int(begin_params_axis)
        self.epsilon = check_number("LayerNorm", "epsilon", epsilon, 0.0, low_open=True)
        dtype = check_dtype("LayerNorm", dtype)
        self.gamma = make_param(gamma_init, self.normalized_shape, dtype, "gamma")
        self.beta = make_param(beta_init, self.normalized_shape, dtype, "beta")
        self.layer_norm = ops.LayerNorm(begin_norm_axis=self.begin_norm_axis,
                                        begin_params_axis=self.begin_params_axis, epsilon=self.epsilon)

    def construct(self, x):
        dtype = x.dtype
        return self.layer_norm(x, same_dtype(self.gamma, dtype), same_dtype(self.beta, dtype))[0]

    def extend_repr(self):
        return (f"normalized_shape={self.normalized_shape}, begin_norm_axis={self.begin_norm_axis}, "
                f"begin_params_axis={self.begin_params_axis}, gamma={self.gamma}, beta={self.beta}")


class GroupNorm(Cell):
    """`GroupNorm(num_groups, num_channels, eps=1e-05, affine=True, gamma_init='ones', beta_init='zeros',
    dtype=mstype.float32)`: normalize each of num_groups channel groups of an (N, C, *) input, then apply the
    per-channel `gamma`/`beta`."""

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, gamma_init="ones", beta_init="zeros",
                 dtype=mstype.float32):
        super().__init__()
        self.num_groups = positive_int("GroupNorm", "num_groups", num_groups)
        self.num_channels = positive_int("GroupNorm", "num_channels", num_channels)
        if self.num_channels % self.num_groups:
            raise ValueError(f"For 'GroupNorm', the 'num_channels' must be divisible by 'num_groups', but got "
                             f"num_channels={num_channels} and num_groups={num_groups}.")
        self.eps = check_number("GroupNorm", "eps", eps, 0.0, low_open=True)
        self.affine = check_bool("GroupNorm", "affine", affine)
        dtype = check_dtype("GroupNorm", dtype)
        shape = (self.num_channels,)
        self.gamma = make_param(gamma_init, shape, dtype, "gamma", requires_grad=self.affine)
        self.beta = make_param(beta_init, shape, dtype, "beta", requires_grad=self.affine)

    def construct(self, x):
        if len(x.shape) < 2 or x.shape[1] != self.num_channels:
            raise ValueError(f"For 'GroupNorm', the input must be (N, {self.num_channels}, *), but got shape "
                             f"{list(x.shape)}.")
        dtype = x.dtype
        return ops.group_norm(x, self.num_groups, same_dtype(self.gamma, dtype), same_dtype(self.beta, dtype),
                              self.eps)

    def extend_repr(self):
        return f"num_groups={self.num_groups}, num_channels={self.num_channels}"


class _InstanceNorm(Cell):
    _rank = 4

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, gamma_init="ones", beta_init="zeros",
                 dtype=mstype.float32):
        super().__init__()
        name = type(self).__name__
        _set_feature_args(self, name, num_features, eps, momentum, affine)
        dtype = check_dtype(name, dtype)
        shape = (self.num_features,)
        self.gamma = make_param(gamma_init, shape, dtype, "gamma", requires_grad=self.affine)
        self.beta = make_param(beta_init, shape, dtype, "beta", requires_grad=self.affine)

    def construct(self, x):
        if len(x.shape) != self._rank or x.shape[1] != self.num_features:
            raise ValueError(f"For '{type(self).__name__}', the input must be {self._rank}-D with "
                             f"{self.num_features} channels, but got shape {list(x.shape)}.")
        dtype = x.dtype
        # one group per channel: each (sample, channel) plane is normalized on its own
        return ops.group_norm(x, self.num_features, same_dtype(self.gamma, dtype), same_dtype(self.beta, dtype),
                              self.eps)

    def extend_repr(self):
        return f"num_features={self.num_features}, eps={self.eps}, momentum={self.momentum}, gamma={self.gamma}, " \
               f"beta={self.beta}"


class InstanceNorm1d(_InstanceNorm):
    """`InstanceNorm1d(num_features, eps=1e-05, momentum=0.1, affine=True, gamma_init='ones', beta_init='zeros',
    dtype=mstype.float32)`: normalize each channel of each sample of an (N, C, L) input."""
    _rank = 3


class InstanceNorm2d(_InstanceNorm):
    """`InstanceNorm2d(num_features, eps=1e-05, momentum=0.1, affine=True, gamma_init='ones', beta_init='zeros',
    dtype=mstype.float32)`: normalize each channel of each sample of an (N, C, H, W) input."""
    _rank = 4


class InstanceNorm3d(_InstanceNorm):
    """`InstanceNorm3d(num_features, eps=1e-05, momentum=0.1, affine=True, gamma_init='ones', beta_init='zeros',
    dtype=mstype.float32)`: normalize each channel of each sample of an (N, C, D, H, W) input."""
    _rank = 5


__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LayerNorm", "GroupNorm", "InstanceNorm1d",
           "InstanceNorm2d", "InstanceNorm3d"]
