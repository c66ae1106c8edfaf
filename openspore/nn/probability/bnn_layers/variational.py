"""Bayesian layers: DenseReparam, DenseLocalReparam and ConvReparam.

Each weight (and bias) has a posterior Cell with trainable mean and standard deviation and a fixed prior. Every
call draws fresh weights by reparameterisation (mean + std * noise, so gradients reach both Parameters), or for
DenseLocalReparam draws the pre-activations directly (the local reparameterisation trick: the output of a
Gaussian weight matrix is Gaussian with mean x·Wμᵀ and variance x²·(Wσ²)ᵀ). `compute_kl_loss()` is the KL
term of the variational objective; it is computed as the prior's `kl_loss` against the posterior, the direction
MindSpore's layers use.

>>> import numpy as np, openspore as ms
>>> from openspore.nn.probability.bnn_layers import DenseReparam
>>> layer = DenseReparam(4, 3)
>>> layer(ms.Tensor(np.ones((2, 4), np.float32))).shape, layer.compute_kl_loss().shape
((2, 3), ())
"""
from .... import ops
from ...cell import Cell
from ...layer._common import check_bool, int_tuple, positive_int
from ...layer.activation import get_activation
from .layer_distribution import NormalPrior, normal_post_fn

__all__ = ["DenseReparam", "DenseLocalReparam", "ConvReparam"]


def _make_prior(prior_fn, owner, arg):
    prior = prior_fn if isinstance(prior_fn, Cell) else (prior_fn() if callable(prior_fn) else None)
    if not isinstance(prior, Cell):
        raise TypeError(f"For '{owner}', '{arg}' should be a Cell or a callable returning one, "
                        f"but got {type(prior_fn).__name__}.")
    return prior


def _make_posterior(posterior_fn, shape, name, owner, arg):
    if not callable(posterior_fn):
        raise TypeError(f"For '{owner}', '{arg}' should be a callable(name, shape) returning a Cell, "
                        f"but got {type(posterior_fn).__name__}.")
    posterior = posterior_fn(shape=shape, name=name)
    if not isinstance(posterior, Cell):
        raise TypeError(f"For '{owner}', '{arg}' should return a Cell, but returned {type(posterior).__name__}.")
    return posterior


class _Variational(Cell):
    """What the Bayesian layers share: the weight/bias prior-posterior pairs and the KL term."""

    def _setup(self, weight_shape, bias_shape, has_bias, priors_and_posteriors):
        weight_prior_fn, weight_posterior_fn, bias_prior_fn, bias_posterior_fn = priors_and_posteriors
        owner = type(self).__name__
        self.has_bias = check_bool(owner, "has_bias", has_bias)
        self.weight_prior = _make_prior(weight_prior_fn, owner, "weight_prior_fn")
        self.weight_posterior = _make_posterior(weight_posterior_fn, weight_shape, "bnn_weight", owner,
                                                "weight_posterior_fn")
        if self.has_bias:
            self.bias_prior = _make_prior(bias_prior_fn, owner, "bias_prior_fn")
            self.bias_posterior = _make_posterior(bias_posterior_fn, bias_shape, "bnn_bias", owner,
                                                  "bias_posterior_fn")

    @staticmethod
    def _kl(prior, posterior):
        std = posterior.std_trans(posterior.untransformed_std)
        return ops.reduce_sum(prior("kl_loss", "Normal", posterior.mean, std))

    def compute_kl_loss(self):
        """The KL term of the weights (and the bias) summed to a scalar."""
        kl = self._kl(self.weight_prior, self.weight_posterior)
        if self.has_bias:
            kl = kl + self._kl(self.bias_prior, self.bias_posterior)
        return kl

    def _finish(self, outputs):
        if self.has_bias:
            outputs = ops.bias_add(outputs, self.bias_posterior("sample"))
        if self.activation is not None:
            outputs = self.activation(outputs)
        return outputs


class _DenseVariational(_Variational):
    def __init__(self, in_channels, out_channels, activation=None, has_bias=True, weight_prior_fn=NormalPrior,
                 weight_posterior_fn=normal_post_fn, bias_prior_fn=NormalPrior, bias_posterior_fn=normal_post_fn):
        super().__init__()
        owner = type(self).__name__
        self.in_channels = positive_int(owner, "in_channels", in_channels)
        self.out_channels = positive_int(owner, "out_channels", out_channels)
        self._setup((out_channels, in_channels), (out_channels,), has_bias,
                    (weight_prior_fn, weight_posterior_fn, bias_prior_fn, bias_posterior_fn))
        if isinstance(activation, str):
            activation = get_activation(activation, owner)
        if activation is not None and not isinstance(activation, Cell):
            raise TypeError(f"For '{owner}', 'activation' should be a str, a Cell or None, "
                            f"but got {type(activation).__name__}.")
        self.activation = activation

    def extend_repr(self):
        return f"in_channels={self.in_channels}, out_channels={self.out_channels}, has_bias={self.has_bias}"

    def construct(self, x):
        return self._finish(self._apply_variational_weight(x))


class DenseReparam(_DenseVariational):
    """A dense layer whose weight matrix is drawn from its posterior at every call (reparameterisation)."""

    def _apply_variational_weight(self, x):
        weight = self.weight_posterior("sample")
        return ops.matmul(x, ops.transpose(weight, (1, 0)))


class DenseLocalReparam(_DenseVariational):
    """A dense layer sampling its pre-activations from their Gaussian law (local reparameterisation)."""

    def _apply_variational_weight(self, x):
        posterior = self.weight_posterior
        mean = ops.matmul(x, ops.transpose(posterior.mean, (1, 0)))
        std = posterior.std_trans(posterior.untransformed_std)
        var = ops.matmul(x * x, ops.transpose(std * std, (1, 0)))
        noise = ops.standard_normal(tuple(mean.shape))
        return mean + ops.sqrt(var) * ops.cast(noise, mean.dtype)


class ConvReparam(_Variational):
    """A 2-D convolution whose kernel is drawn from its posterior at every call (reparameterisation)."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0, dilation=1,
                 group=1, has_bias=False, weight_prior_fn=NormalPrior, weight_posterior_fn=normal_post_fn,
                 bias_prior_fn=NormalPrior, bias_posterior_fn=normal_post_fn):
        super().__init__()
        owner = "ConvReparam"
        self.in_channels = positive_int(owner, "in_channels", in_channels)
        self.out_channels = positive_int(owner, "out_channels", out_channels)
        self.kernel_size = int_tuple(owner, "kernel_size", kernel_size, 2)
        self.stride = int_tuple(owner, "stride", stride, 2)
        self.dilation = int_tuple(owner, "dilation", dilation, 2)
        if pad_mode not in ("same", "valid", "pad"):
            raise ValueError(f"For 'ConvReparam', 'pad_mode' should be one of ['same', 'valid', 'pad'], "
                             f"but got {pad_mode!r}.")
        self.pad_mode = pad_mode
        self.padding = padding
        self.group = positive_int(owner, "group", group)
        if in_channels % group or out_channels % group:
            raise ValueError(f"For 'ConvReparam', 'in_channels' ({in_channels}) and 'out_channels' "
                             f"({out_channels}) should be divisible by 'group' ({group}).")
        self._setup((out_channels, in_channels // group) + self.kernel_size, (out_channels,), has_bias,
                    (weight_prior_fn, weight_posterior_fn, bias_prior_fn, bias_posterior_fn))
        self.activation = None

    def extend_repr(self):
        return (f"in_channels={self.in_channels}, out_channels={self.out_channels}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}, pad_mode={self.pad_mode}, padding={self.padding}, "
                f"dilation={self.dilation}, group={self.group}, has_bias={self.has_bias}")

    def _apply_variational_weight(self, x):
        weight = self.weight_posterior("sample")
        return ops.conv2d(x, weight, stride=self.stride, pad_mode=self.pad_mode, padding=self.padding,
                          dilation=self.dilation, groups=self.group)

    def construct(self, x):
        return self._finish(self._apply_variational_weight(x))
