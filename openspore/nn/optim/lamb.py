"""`nn.Lamb`: layer-wise adaptive moments (Adam steps scaled per parameter by a trust ratio), fused `Lamb`."""
from ...common import dtype as mstype
from ...core.tensor import Tensor
from ...ops import operations as P
from .adam import _check_betas, _float32_values
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
        _check_betas(self.cls_name, beta1, beta2, eps)
        self.beta1 = Tensor(beta1, mstype.float32)
        self.beta2 = Tensor(beta2, mstype.float32)
        self.eps = Tensor(eps, mstype.float32)
        self._hyper = _float32_values(beta1, beta2, eps)
        self.moments1 = self._parameters.clone(prefix="lamb_m", init="zeros")
        self.moments2 = self._parameters.clone(prefix="lamb_v", init="zeros")
        self.opt = P.Lamb()

    def construct(self, gradients):
        if len(gradients) != self.param_length:
            raise ValueError(f"For '{self.cls_name}', the number of gradients ({len(gradients)}) must equal the "
                             f"number of parameters ({self.param_length}).")
        lr = self.get_lr()
        self.assignadd(self.global_step, self.global_step_increase_tensor)
        gradients = self.gradients_centralization(gradients)
        beta1, beta2, eps = self._hyper
        opt, step = self.opt, self.global_step
        for param, m, v, grad, rate, decay, flag in zip(self._parameters, self.moments1, self.moments2, gradients,
                                                        self._lrs(lr), self._weight_decays(), self.decay_flags):
            opt(param, m, v, rate, beta1, beta2, eps, decay if flag else 0.0, step, grad)
        return self._success
