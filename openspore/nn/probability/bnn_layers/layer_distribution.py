"""Prior and posterior Cells over the weights of the Bayesian layers.

`NormalPrior` wraps a fixed Normal; `NormalPosterior` holds trainable Parameters `mean` and `untransformed_std`
(the standard deviation is softplus(untransformed_std), kept positive while the Parameter is unconstrained). Both
are called like a distribution (`cell('sample')`, `cell('kl_loss', 'Normal', m, s)`); the posterior appends its
current mean and standard deviation as the distribution's parameters.

>>> from openspore.nn.probability.bnn_layers import NormalPosterior
>>> post = NormalPosterior("w", (2, 3))
>>> post("sample").shape, [p.name for p in post.get_parameters()]
((2, 3), ['w.mean', 'w.untransformed_std'])
"""
from .... import ops
from ....common import dtype as mstype
from ....common.initializer import Normal as NormalInit
from ....common.initializer import initializer
from ....core.parameter import Parameter
from ...cell import Cell
from ..distribution import Normal

__all__ = ["NormalPrior", "NormalPosterior", "normal_post_fn"]


def _check_number(owner, name, value):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"For '{owner}', '{name}' should be an int or float, but got {type(value).__name__}.")
    return float(value)


class NormalPrior(Cell):
    """A fixed Normal(mean, std) prior (default N(0, 0.1))."""

    def __init__(self, dtype=mstype.float32, mean=0, std=0.1):
        super().__init__()
        self.normal = Normal(_check_number("NormalPrior", "mean", mean), _check_number("NormalPrior", "std", std),
                             dtype=dtype)

    def construct(self, *inputs):
        return self.normal(*inputs)


class NormalPosterior(Cell):
    """A trainable Normal posterior of the given shape; its Parameters are named `<name>.mean` and
    `<name>.untransformed_std`."""

    def __init__(self, name, shape, dtype=mstype.float32, loc_mean=0, loc_std=0.1, untransformed_scale_mean=-5,
                 untransformed_scale_std=0.1):
        super().__init__()
        if not isinstance(name, str):
            raise TypeError(f"For 'NormalPosterior', 'name' should be a str, but got {type(name).__name__}.")
        if isinstance(shape, list):
            shape = tuple(shape)
        if not isinstance(shape, tuple) or not all(isinstance(s, int) and not isinstance(s, bool) and s > 0
                                                    for s in shape):
            raise TypeError(f"For 'NormalPosterior', 'shape' should be a tuple of positive ints, but got {shape!r}.")
        loc_mean = _check_number("NormalPosterior", "loc_mean", loc_mean)
        loc_std = _check_number("NormalPosterior", "loc_std", loc_std)
        scale_mean = _check_number("NormalPosterior", "untransformed_scale_mean", untransformed_scale_mean)
        scale_std = _check_number("NormalPosterior", "untransformed_scale_std", untransformed_scale_std)
        if loc_std <= 0 or scale_std <= 0:
            raise ValueError("For 'NormalPosterior', 'loc_std' and 'untransformed_scale_std' should be greater "
                             f"than zero, but got {loc_std} and {scale_std}.")
        self.mean = Parameter(initializer(NormalInit(loc_std, loc_mean), shape, dtype), name=name + ".mean")
        self.untransformed_std = Parameter(initializer(NormalInit(scale_std, scale_mean), shape, dtype),
                                           name=name + ".untransformed_std")
        self.normal = Normal()

    def std_trans(self, std_pre):
        """The standard deviation from its unconstrained Parameter: softplus, positive everywhere."""
        return ops.softplus(std_pre)

    def construct(self, *inputs):
        if inputs == ("sample",):  # one draw shaped like the Parameters
            inputs = ("sample", ())
        return self.normal(*inputs, self.mean, self.std_trans(self.untransformed_std))


def normal_post_fn(name, shape):
    """The default posterior factory of the Bayesian layers."""
    return NormalPosterior(name=name, shape=shape)
