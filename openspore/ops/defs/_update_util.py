"""Scalar handling for the torch kernels of in-place optimizer updates (ApplyMomentum, Adam, SGD, ...).

Hyper-parameters (learning rate, momentum, betas...) arrive as Python numbers or as Tensors of shape [] / [1].
On CPU, multiplying a large tensor in place by a 0-d tensor is an order of magnitude slower in torch than by a
Python number, and reading a CPU scalar is free, so CPU scalars become numbers. A CUDA scalar stays a 0-d
tensor on the device: reading it on the host would wait for the GPU. Kernels written with the helpers below work
with either kind.
"""


def np_num(np, value):
    """A Python number for a number or a one-element numpy array (numpy kernels use weak scalars)."""
    return value.item() if isinstance(value, np.ndarray) else value


def t_num(torch, value, like):
    """A Python number for numbers and CPU tensors; a 0-d tensor of `like`'s dtype for a CUDA tensor."""
    if isinstance(value, torch.Tensor):
        if value.is_cuda:
            return value.reshape(()).to(like.dtype)
        return value.item()
    return value


def t_add_(torch, out, x, alpha):
    """out += alpha * x, in place (`alpha=` takes numbers only; a device scalar multiplies first)."""
    if isinstance(alpha, torch.Tensor):
        return out.add_(x * alpha)
    return out.add_(x, alpha=alpha)


def t_addcmul_(torch, out, a, b, value):
    """out += value * a * b, in place."""
    if isinstance(value, torch.Tensor):
        return out.add_(a * b * value)
    return out.addcmul_(a, b, value=value)


def t_addcdiv_(torch, out, a, b, value):
    """out += value * a / b, in place."""
    if isinstance(value, torch.Tensor):
        return out.add_(a / b * value)
    return out.addcdiv_(a, b, value=value)


def t_moments_(torch, m, v, grad, beta1, beta2):
    """Adam's moving averages in place, in MindSpore's kernel form m += (g - m)*(1-beta1),
    v += (g^2 - v)*(1-beta2) (one `lerp_` pass each)."""
    m.lerp_(grad, 1 - beta1)
    v.lerp_(grad * grad, 1 - beta2)
