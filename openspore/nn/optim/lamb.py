"""`nn.Lamb`: layer-wise adaptive moments (Adam steps scaled per parameter by a trust ratio), fused `Lamb`."""
from ...ops import operations as P
from .adam import _init_moment_state
from .optimizer import Optimizer

__all__ = ["Lamb"]


class Lamb(Optimizer):
    """`Lamb(params, learning_rate, beta1=0.9, beta2=0.999, eps=1e-6, weight_decay=0.0)`.

    With t the step number (1 on the first step): m̂ = m/(1-beta1^t), v̂ = v/(1-beta2^t),
    update = m̂/(sqrt(v̂)+eps) + weight_decay*param, param -= lr * r * update with the trust ratio
    r = ||param|| / ||m̂/sqrt(v̂+eps) + weight_decay*param|| clipped to [0, 10] (1 if a norm is 0).
    State: `lamb_m.<p>`, `lamb_v.<p>`. No loss scale and no gradient decay (the decay is inside the update).
    """

    def __init__(self, params, learning_rate, beta1=0.9, beta2=0.999, eps=1e-6, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay)
        _init_moment_state(self, beta1, beta2, eps, "lamb")
        self.opt = P.Lamb()

    def construct(self, gradients):
        self._check_gradient_count(gradients)
        lr = self.get_lr()
        decays = self._weight_decays()  # like the learning rate, read before global_step advances
        self.assignadd(self.global_step, self.global_step_increase_tensor)
        gradients = self.gradients_centralization(gradients)
        beta1, beta2, eps = self._hyper
        opt, step = self.opt, self.global_step
        for param, m, v, grad, rate, decay, flag in zip(self._parameters, self.moments1, self.moments2, gradients,
                                                        self._lrs(lr), decays, self.decay_flags):
            opt(param, m, v, rate, beta1, beta2, eps, decay if flag else 0.0, step, grad)
        return self._success
