"""Primitives: fused optimizer updates (SGD, AdamWeightDecay, ApplyAdamWithAmsgradV2, ApplyRMSProp,
ApplyCenteredRMSProp, ApplyAdagrad, Lamb). `ApplyMomentum` and `Adam` live with the other in-place ops in
`side_effect.py`.

Each one updates its variable and state inputs in place (they are Parameters owned by an optimizer) and
returns those buffers, so an optimizer step is one primitive call per parameter. The torch kernels use in-place
tensor methods: a handful of fused `mul_/addcmul_/addcdiv_` calls instead of a dozen temporaries.

Scalar inputs (learning rate, betas, epsilon...) may be Python numbers or Tensors of shape [] or [1]. The torch
kernels read a CPU tensor scalar into a Python number (free) but keep a CUDA scalar on the device (reading it
on the host would wait for the GPU), so every formula below works with either kind of scalar.
"""
import numpy as np

from ...core.primitive import Primitive, Sample, register
from ._export import UPDATE, not_exportable
from ._util import check_dtype, check_tensor, rand_float, rand_positive, same_as
from ._update_util import np_num, t_add_, t_addcdiv_, t_addcmul_, t_moments_, t_num
from .side_effect import _NONDIFF_WRITE, _check_like, _check_scalar


# ---- shared checks -------------------------------------------------------------------------------
def _np_moments_(m, v, grad, beta1, beta2):
    """m += (g - m)*(1-beta1); v += (g^2 - v)*(1-beta2) (MindSpore's kernel form)."""
    m += (1 - beta1) * (grad - m)
    v += (1 - beta2) * (grad * grad - v)


def _check_state(op, names, var, *state):
    check_tensor(op, names[0], var)
    check_dtype(op, names[0], var, ("float",))
    _check_like(op, names, var, *state)


def _check_scalars(op, names, *values):
    for name, value in zip(names, values):
        _check_scalar(op, name, value)


def _f32(x):
    return np.asarray(x, np.float32)


class _Update(Primitive):
    side_effect = True
    differentiable = False
    nondiff_reason = _NONDIFF_WRITE


# ---- SGD -----------------------------------------------------------------------------------------
@register
class SGD(_Update):
    """SGD(dampening=0.0, weight_decay=0.0, nesterov=False)(parameters, gradient, learning_rate, accum, momentum,
    stat): g += weight_decay*param; with momentum > 0, accum = g on a first step (stat > 0, then stat = 0) else
    accum = momentum*accum + (1-dampening)*g, and g = accum (nesterov: g + momentum*accum); param -= lr*g.
    Returns the updated parameters."""
    attr_defaults = {"dampening": 0.0, "weight_decay": 0.0, "nesterov": False}
    input_names = ("parameters", "gradient", "learning_rate", "accum", "momentum", "stat")

    def check_attrs(self):
        for name in ("dampening", "weight_decay"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise TypeError(f"For 'SGD', the '{name}' must be a float, but got {type(value).__name__}.")
        if not isinstance(self.nesterov, bool):
            raise TypeError(f"For 'SGD', the 'nesterov' must be a bool, but got {type(self.nesterov).__name__}.")
        if self.nesterov and self.dampening != 0:
            raise ValueError(f"For 'SGD', Nesterov momentum needs zero 'dampening', but got {self.dampening}.")

    def infer(self, param, grad, lr, accum, momentum, stat):
        _check_state(self.name, ("parameters", "gradient", "accum", "stat"), param, grad, accum, stat)
        _check_scalars(self.name, ("learning_rate", "momentum"), lr, momentum)
        return same_as(param)

    def numpy(self, np, param, grad, lr, accum, momentum, stat):
        lr, mom = np_num(np, lr), np_num(np, momentum)
        if self.weight_decay != 0:
            grad = grad + self.weight_decay * param
        if mom > 0:
            accum *= mom
            accum += (1 - self.dampening) * grad
            if stat.any():
                first = stat > 0
                np.copyto(accum, grad, where=first)
                stat[first] = 0
            grad = grad + mom * accum if self.nesterov else accum
        param -= lr * grad
        return param

    def torch(self, torch, param, grad, lr, accum, momentum, stat):
        lr, mom = t_num(torch, lr, param), t_num(torch, momentum, param)
        if self.weight_decay != 0:
            grad = torch.add(grad, param, alpha=self.weight_decay)
        if isinstance(mom, torch.Tensor):
            step = self._device_momentum(torch, grad, accum, mom, stat)
        elif mom > 0:
            accum.mul_(mom).add_(grad, alpha=1 - self.dampening)
            if stat.any():  # only before the first step: skip two full passes afterwards
                first = stat > 0
                torch.where(first, grad, accum, out=accum)
                stat.masked_fill_(first, 0)
            step = torch.add(grad, accum, alpha=mom) if self.nesterov else accum
        else:
            step = grad
        t_add_(torch, param, step, -lr)
        return param

    def _device_momentum(self, torch, grad, accum, mom, stat):
        """The same update without reading `momentum` on the host: both branches, selected on the device."""
        active = mom > 0
        first = torch.logical_and(stat > 0, active)
        moved = torch.where(first, grad, accum * mom + (1 - self.dampening) * grad)
        accum.copy_(torch.where(active, moved, accum))
        stat.masked_fill_(first, 0)
        step = grad + mom * accum if self.nesterov else accum
        return torch.where(active, step, grad)

    @classmethod
    def samples(cls, rng):
        shape = (3, 4)
        ones, zeros = np.ones(shape, np.float32), np.zeros(shape, np.float32)
        yield Sample(rand_float(rng, shape), rand_float(rng, shape), _f32(0.1), rand_float(rng, shape), _f32(0.9),
                     ones, name="first-step")
        yield Sample(rand_float(rng, shape), rand_float(rng, shape), _f32(0.1), rand_float(rng, shape), _f32(0.9),
                     zeros, attrs={"dampening": 0.3, "weight_decay": 0.01}, name="dampening-decay")
        yield Sample(rand_float(rng, shape), rand_float(rng, shape), 0.05, rand_float(rng, shape), 0.8,
                     zeros, attrs={"nesterov": True}, name="nesterov")
        yield Sample(rand_float(rng, (5,)), rand_float(rng, (5,)), _f32(0.1), rand_float(rng, (5,)), _f32(0.0),
                     np.ones(5, np.float32), attrs={"dampening": 0.5}, name="no-momentum")


# ---- Adam variants -------------------------------------------------------------------------------
@register
class AdamWeightDecay(_Update):
    """AdamWeightDecay(use_locking=False)(var, m, v, lr, beta1, beta2, epsilon, decay, gradient): Adam without
    bias correction and with decoupled weight decay: m, v moving averages; var -= lr*(m/(sqrt(v)+eps) + decay*var).
    Returns (var, m, v)."""
    attr_defaults = {"use_locking": False}
    input_names = ("var", "m", "v", "lr", "beta1", "beta2", "epsilon", "decay", "gradient")

    def infer(self, var, m, v, lr, beta1, beta2, epsilon, decay, grad):
        _check_state(self.name, ("var", "m", "v", "gradient"), var, m, v, grad)
        _check_scalars(self.name, self.input_names[3:8], lr, beta1, beta2, epsilon, decay)
        return same_as(var), same_as(m), same_as(v)

    def numpy(self, np, var, m, v, lr, beta1, beta2, epsilon, decay, grad):
        lr, b1, b2, eps, decay = (np_num(np, s) for s in (lr, beta1, beta2, epsilon, decay))
        _np_moments_(m, v, grad, b1, b2)
        update = m / (np.sqrt(v) + eps)
        update += decay * var
        var -= lr * update
        return var, m, v

    def torch(self, torch, var, m, v, lr, beta1, beta2, epsilon, decay, grad):
        lr, b1, b2, eps, decay = (t_num(torch, s, var) for s in (lr, beta1, beta2, epsilon, decay))
        t_moments_(torch, m, v, grad, b1, b2)
        # var - lr*(m/d + decay*var) == var*(1 - lr*decay) - lr*m/d: one pass and no temporary fewer
        var.mul_(1 - lr * decay)
        t_addcdiv_(torch, var, m, v.sqrt().add_(eps), -lr)
        return var, m, v

    @classmethod
    def samples(cls, rng):
        shape = (3, 4)
        yield Sample(rand_float(rng, shape), rand_float(rng, shape), rand_positive(rng, shape, 0.1, 1.0), _f32(0.01),
                     _f32(0.9), _f32(0.999), _f32(1e-6), _f32(0.01), rand_float(rng, shape))
        yield Sample(rand_float(rng, (4,)), rand_float(rng, (4,)), rand_positive(rng, (4,), 0.1, 1.0), 0.001,
                     0.8, 0.99, 1e-6, 0.0, rand_float(rng, (4,)), name="python-scalars")


@register
class ApplyAdamWithAmsgradV2(_Update):
    """ApplyAdamWithAmsgradV2(use_locking=False)(var, m, v, vhat, beta1_power, beta2_power, lr, beta1, beta2,
    epsilon, grad): Adam keeping the running maximum `vhat` of v: var -= lr_t*m/(sqrt(vhat)+eps) with
    lr_t = lr*sqrt(1-beta2_power)/(1-beta1_power). Returns (var, m, v, vhat)."""
    attr_defaults = {"use_locking": False}
    input_names = ("var", "m", "v", "vhat", "beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon", "grad")

    def infer(self, var, m, v, vhat, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad):
        _check_state(self.name, ("var", "m", "v", "vhat", "grad"), var, m, v, vhat, grad)
        _check_scalars(self.name, self.input_names[4:10], beta1_power, beta2_power, lr, beta1, beta2, epsilon)
        return same_as(var), same_as(m), same_as(v), same_as(vhat)

    def numpy(self, np, var, m, v, vhat, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad):
        b1p, b2p, lr, b1, b2, eps = (np_num(np, s) for s in (beta1_power, beta2_power, lr, beta1, beta2, epsilon))
        _np_moments_(m, v, grad, b1, b2)
        np.maximum(vhat, v, out=vhat)
        var -= (lr * (1 - b2p) ** 0.5 / (1 - b1p)) * (m / (np.sqrt(vhat) + eps))
        return var, m, v, vhat

    def torch(self, torch, var, m, v, vhat, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad):
        b1p, b2p, lr, b1, b2, eps = (t_num(torch, s, var)
                                     for s in (beta1_power, beta2_power, lr, beta1, beta2, epsilon))
        t_moments_(torch, m, v, grad, b1, b2)
        torch.maximum(vhat, v, out=vhat)
        step = lr * (1 - b2p) ** 0.5 / (1 - b1p)
        t_addcdiv_(torch, var, m, vhat.sqrt().add_(eps), -step)
        return var, m, v, vhat

    @classmethod
    def samples(cls, rng):
        shape = (3, 4)
        yield Sample(rand_float(rng, shape), rand_float(rng, shape), rand_positive(rng, shape, 0.1, 1.0),
                     rand_positive(rng, shape, 0.1, 1.0), _f32(0.9 ** 2), _f32(0.999 ** 2), _f32(0.01), _f32(0.9),
                     _f32(0.999), _f32(1e-8), rand_float(rng, shape))
        yield Sample(rand_float(rng, (4,)), rand_float(rng, (4,)), rand_positive(rng, (4,), 0.1, 1.0),
                     np.zeros(4, np.float32), 0.9, 0.999, 0.001, 0.9, 0.999, 1e-8, rand_float(rng, (4,)),
                     name="python-scalars")


# ---- RMSProp -------------------------------------------------------------------------------------
@register
class ApplyRMSProp(_Update):
    """ApplyRMSProp(use_locking=False)(var, mean_square, moment, learning_rate, grad, decay, momentum, epsilon):
    ms = decay*ms + (1-decay)*g^2; moment = momentum*moment + lr*g/sqrt(ms+eps); var -= moment. Returns var."""
    attr_defaults = {"use_locking": False}
    input_names = ("var", "mean_square", "moment", "learning_rate", "grad", "decay", "momentum", "epsilon")

    def infer(self, var, mean_square, moment, lr, grad, decay, momentum, epsilon):
        _check_state(self.name, ("var", "mean_square", "moment", "grad"), var, mean_square, moment, grad)
        _check_scalars(self.name, ("learning_rate", "decay", "momentum", "epsilon"), lr, decay, momentum, epsilon)
        return same_as(var)

    def numpy(self, np, var, ms, moment, lr, grad, decay, momentum, epsilon):
        lr, decay, mom, eps = (np_num(np, s) for s in (lr, decay, momentum, epsilon))
        ms *= decay
        ms += (1 - decay) * (grad * grad)
        moment *= mom
        moment += lr * grad / np.sqrt(ms + eps)
        var -= moment
        return var

    def torch(self, torch, var, ms, moment, lr, grad, decay, momentum, epsilon):
        lr, decay, mom, eps = (t_num(torch, s, var) for s in (lr, decay, momentum, epsilon))
        ms.mul_(decay)
        t_addcmul_(torch, ms, grad, grad, 1 - decay)
        moment.mul_(mom)
        t_addcdiv_(torch, moment, grad, torch.add(ms, eps).sqrt_(), lr)
        var.sub_(moment)
        return var

    @classmethod
    def samples(cls, rng):
        shape = (3, 4)
        yield Sample(rand_float(rng, shape), rand_positive(rng, shape), rand_float(rng, shape), _f32(0.01),
                     rand_float(rng, shape), _f32(0.9), _f32(0.5), _f32(1e-10))
        yield Sample(rand_float(rng, (5,)), rand_positive(rng, (5,)), np.zeros(5, np.float32), 0.1,
                     rand_float(rng, (5,)), 0.99, 0.0, 1e-6, name="python-scalars")


@register
class ApplyCenteredRMSProp(_Update):
    """ApplyCenteredRMSProp(use_locking=False)(var, mean_gradient, mean_square, moment, grad, learning_rate, decay,
    momentum, epsilon): RMSProp normalised by the gradient's estimated variance ms - mg^2. Returns var."""
    attr_defaults = {"use_locking": False}
    input_names = ("var", "mean_gradient", "mean_square", "moment", "grad", "learning_rate", "decay", "momentum",
                   "epsilon")

    def infer(self, var, mean_gradient, mean_square, moment, grad, lr, decay, momentum, epsilon):
        _check_state(self.name, ("var", "mean_gradient", "mean_square", "moment", "grad"),
                     var, mean_gradient, mean_square, moment, grad)
        _check_scalars(self.name, ("learning_rate", "decay", "momentum", "epsilon"), lr, decay, momentum, epsilon)
        return same_as(var)

    def numpy(self, np, var, mg, ms, moment, grad, lr, decay, momentum, epsilon):
        lr, decay, mom, eps = (np_num(np, s) for s in (lr, decay, momentum, epsilon))
        mg *= decay
        mg += (1 - decay) * grad
        ms *= decay
        ms += (1 - decay) * (grad * grad)
        moment *= mom
        moment += lr * grad / np.sqrt(ms - mg * mg + eps)
        var -= moment
        return var

    def torch(self, torch, var, mg, ms, moment, grad, lr, decay, momentum, epsilon):
        lr, decay, mom, eps = (t_num(torch, s, var) for s in (lr, decay, momentum, epsilon))
        mg.mul_(decay)
        t_add_(torch, mg, grad, 1 - decay)
        ms.mul_(decay)
        t_addcmul_(torch, ms, grad, grad, 1 - decay)
        denom = torch.addcmul(ms, mg, mg, value=-1).add_(eps).sqrt_()
        moment.mul_(mom)
        t_addcdiv_(torch, moment, grad, denom, lr)
        var.sub_(moment)
        return var

    @classmethod
    def samples(cls, rng):
        shape = (3, 4)
        yield Sample(rand_float(rng, shape), rand_float(rng, shape, -0.1, 0.1), rand_positive(rng, shape, 1.0, 2.0),
                     rand_float(rng, shape), rand_float(rng, shape), _f32(0.01), _f32(0.9), _f32(0.5), _f32(1e-10))
        yield Sample(rand_float(rng, (5,)), np.zeros(5, np.float32), np.ones(5, np.float32), np.zeros(5, np.float32),
                     rand_float(rng, (5,)), 0.1, 0.9, 0.0, 1e-6, name="python-scalars")


# ---- Adagrad -------------------------------------------------------------------------------------
@register
class ApplyAdagrad(_Update):
    """ApplyAdagrad(update_slots=True)(var, accum, lr, grad): accum += g^2 (when update_slots);
    var -= lr*g/sqrt(accum). Returns (var, accum)."""
    attr_defaults = {"update_slots": True}
    input_names = ("var", "accum", "lr", "grad")

    def check_attrs(self):
        if not isinstance(self.update_slots, bool):
            raise TypeError("For 'ApplyAdagrad', the 'update_slots' must be a bool, "
                            f"but got {type(self.update_slots).__name__}.")

    def infer(self, var, accum, lr, grad):
        _check_state(self.name, ("var", "accum", "grad"), var, accum, grad)
        _check_scalar(self.name, "lr", lr)
        return same_as(var), same_as(accum)

    def numpy(self, np, var, accum, lr, grad):
        lr = np_num(np, lr)
        if self.update_slots:
            accum += grad * grad
        var -= lr * grad / np.sqrt(accum)
        return var, accum

    def torch(self, torch, var, accum, lr, grad):
        lr = t_num(torch, lr, var)
        if self.update_slots:
            accum.addcmul_(grad, grad)
        t_addcdiv_(torch, var, grad, accum.sqrt(), -lr)
        return var, accum

    @classmethod
    def samples(cls, rng):
        shape = (3, 4)
        yield Sample(rand_float(rng, shape), rand_positive(rng, shape, 0.1, 1.0), _f32(0.01), rand_float(rng, shape))
        yield Sample(rand_float(rng, (5,)), rand_positive(rng, (5,), 0.1, 1.0), 0.1, rand_float(rng, (5,)),
                     attrs={"update_slots": False}, name="no-slot-update")


# ---- Lamb ----------------------------------------------------------------------------------------
@register
class Lamb(_Update):
    """Lamb()(var, m, v, lr, beta1, beta2, epsilon, decay, global_step, gradient): layer-wise adaptive Adam.
    With t = global_step, m̂ = m/(1-beta1^t), v̂ = v/(1-beta2^t), update = m̂/(sqrt(v̂)+eps) + decay*var and
    trust ratio r = ||var|| / ||m̂/sqrt(v̂+eps) + decay*var|| (1 when ||var|| or ||g|| is 0, clipped to [0, 10]):
    var -= r*lr*update. Returns var."""
    input_names = ("var", "m", "v", "lr", "beta1", "beta2", "epsilon", "decay", "global_step", "gradient")

    def infer(self, var, m, v, lr, beta1, beta2, epsilon, decay, global_step, grad):
        _check_state(self.name, ("var", "m", "v", "gradient"), var, m, v, grad)
        _check_scalars(self.name, self.input_names[3:8], lr, beta1, beta2, epsilon, decay)
        if hasattr(global_step, "shape"):
            if global_step.dtype.kind not in ("int", "uint", "float") or tuple(global_step.shape) not in ((), (1,)):
                raise TypeError(f"For 'Lamb', the 'global_step' must be a number Tensor of shape [] or [1], but got "
                                f"Tensor[{global_step.dtype}] of shape {list(global_step.shape)}.")
        elif isinstance(global_step, bool) or not isinstance(global_step, (int, float)):
            raise TypeError(f"For 'Lamb', the 'global_step' must be a Tensor or a number, "
                            f"but got {type(global_step).__name__}.")
        return same_as(var)

    def numpy(self, np, var, m, v, lr, beta1, beta2, epsilon, decay, global_step, grad):
        lr, b1, b2, eps, decay, t = (np_num(np, s) for s in (lr, beta1, beta2, epsilon, decay, global_step))
        _np_moments_(m, v, grad, b1, b2)
        m_hat = m / (1 - b1 ** float(t))
        v_hat = v / (1 - b2 ** float(t))
        w_norm, g_norm = np.linalg.norm(var), np.linalg.norm(grad)
        hat_norm = np.linalg.norm(m_hat / np.sqrt(v_hat + eps) + decay * var)
        ratio = min(max(w_norm / hat_norm, 0.0), 10.0) if w_norm > 0 and g_norm > 0 else 1.0
        var -= (ratio * lr) * (m_hat / (np.sqrt(v_hat) + eps) + decay * var)
        return var

    def torch(self, torch, var, m, v, lr, beta1, beta2, epsilon, decay, global_step, grad):
        lr, b1, b2, eps, decay = (t_num(torch, s, var) for s in (lr, beta1, beta2, epsilon, decay))
        t = t_num(torch, global_step, var)
        t_moments_(torch, m, v, grad, b1, b2)
        m_hat = m / (1 - b1 ** t)
        v_hat = v / (1 - b2 ** t)
        norm = torch.linalg.vector_norm
        w_norm, g_norm = norm(var), norm(grad)
        hat_norm = norm(t_add_(torch, m_hat * torch.rsqrt(v_hat + eps), var, decay))
        one = torch.ones((), dtype=var.dtype, device=var.device)
        ratio = torch.where((w_norm > 0) & (g_norm > 0), w_norm / hat_norm, one).clamp_(0.0, 10.0)
        update = t_add_(torch, m_hat.div_(v_hat.sqrt_().add_(eps)), var, decay)
        var.sub_(update.mul_(ratio * lr))
        return var

    @classmethod
    def samples(cls, rng):
        shape = (3, 4)
        yield Sample(rand_float(rng, shape), rand_float(rng, shape), rand_positive(rng, shape, 0.1, 1.0), _f32(0.01),
                     _f32(0.9), _f32(0.999), _f32(1e-6), _f32(0.01), np.array([2], np.int32), rand_float(rng, shape))
        yield Sample(rand_float(rng, (4,)), np.zeros(4, np.float32), np.zeros(4, np.float32), 0.1, 0.9, 0.999,
                     1e-6, 0.0, 1, rand_float(rng, (4,)), name="first-step")
        yield Sample(np.zeros((2, 2), np.float32), rand_float(rng, (2, 2)), rand_positive(rng, (2, 2), 0.1, 1.0),
                     0.1, 0.9, 0.999, 1e-6, 0.0, np.array(3, np.int64), rand_float(rng, (2, 2)), name="zero-weight")


# ---- export marks (see _export.py): what is not written to MindIR / ONNX, and why ---------------
not_exportable(UPDATE, SGD, AdamWeightDecay, ApplyAdamWithAmsgradV2, ApplyRMSProp, ApplyCenteredRMSProp, ApplyAdagrad,
               Lamb)
