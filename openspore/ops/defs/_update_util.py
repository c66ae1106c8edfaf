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


def momentum_one_pass(torch, variables, accums, grads, lr, momentum):
    """ApplyMomentum without Nesterov (accum = accum * momentum + grad; var -= lr * accum) over lists of tensors in
    one pass over each (variable, accumulation, gradient) by torch's fused SGD kernel (dampening 0, no weight
    decay): the multi-tensor form (`_foreach_mul_`, `_foreach_add_` twice) reads and writes memory three times,
    a third of the benchmark MLP's update time. Returns False, having done nothing, where the kernel may not run:
    number hyper-parameters only (`t_num` on a CPU scalar), a non-zero momentum, CPU float32/float64 tensors, all
    contiguous (its CPU kernel walks each tensor's memory in order: a transposed gradient view came out wrong in
    torch 2.13).

    Its vectorised body rounds as mul_ then add_ do; the few elements past the last full vector may differ in the
    last bit (it is one rounding there), so ApplyMomentum and ForeachApplyMomentum both update through it and
    agree bit for bit."""
    fused = getattr(torch, "_fused_sgd_", None)
    if fused is None or isinstance(lr, torch.Tensor) or isinstance(momentum, torch.Tensor) or momentum == 0:
        return False  # momentum 0: the kernel then expects no accumulations (plain SGD) and refuses them
    dtypes = (torch.float32, torch.float64)
    for group in (variables, accums, grads):
        for t in group:
            if t.device.type != "cpu" or t.dtype not in dtypes or not t.is_contiguous():
                return False
    variables, accums = list(variables), list(accums)
    fused(variables, list(grads), accums, weight_decay=0.0, momentum=momentum, lr=lr, dampening=0.0,
          nesterov=False, maximize=False, is_first_step=False)
    # the fused kernel leaves the tensors' version counters as they were (torch 2.13), which tell a frozen
    # inference graph (runtime/inference.py) that a Parameter was written: counted here as an in-place op would
    torch.autograd.graph.increment_version(variables + accums)
    return True
