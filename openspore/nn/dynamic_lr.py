"""Dynamic learning-rate builders (`mindspore.nn.dynamic_lr`): each returns a Python list with one learning rate
per training step, which an optimizer accepts as `learning_rate` (step i uses element i).

`current_epoch = floor(i / step_per_epoch)` for step i; the decay functions decay once per `decay_epoch` epochs.

>>> from openspore import nn
>>> nn.piecewise_constant_lr([2, 4], [0.1, 0.01])
[0.1, 0.1, 0.01, 0.01]
>>> nn.warmup_lr(0.1, 6, 2, 2)
[0.0, 0.0, 0.05, 0.05, 0.1, 0.1]
"""
import math
import numbers

__all__ = ["piecewise_constant_lr", "exponential_decay_lr", "natural_exp_decay_lr", "inverse_decay_lr",
           "cosine_decay_lr", "polynomial_decay_lr", "warmup_lr"]


# ---- argument checks (shared with the schedule Cells and the optimizers) ----------------------------------
def _check_int(op, name, value, minimum=1):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"For '{op}', the '{name}' must be an int, but got {type(value).__name__}.")
    if value < minimum:
        bound = "a positive int" if minimum == 1 else f"an int >= {minimum}"
        raise ValueError(f"For '{op}', the '{name}' must be {bound}, but got {value}.")
    return int(value)


def _check_float(op, name, value, positive=False, allow_int=False):
    """A float (an int too when `allow_int`), > 0 when `positive`, else >= 0."""
    kinds = (numbers.Real,) if allow_int else (float,)
    if isinstance(value, bool) or not isinstance(value, kinds):
        raise TypeError(f"For '{op}', the '{name}' must be a float, but got {type(value).__name__}.")
    value = float(value)
    if math.isnan(value) or (value <= 0 if positive else value < 0):
        bound = "greater than 0" if positive else "greater than or equal to 0"
        raise ValueError(f"For '{op}', the '{name}' must be {bound}, but got {value}.")
    return value


def _check_bool(op, name, value):
    if not isinstance(value, bool):
        raise TypeError(f"For '{op}', the '{name}' must be a bool, but got {type(value).__name__}.")
    return value


def _check_common(op, learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair):
    _check_float(op, "learning_rate", learning_rate, positive=True)
    _check_float(op, "decay_rate", decay_rate, positive=True)
    _check_int(op, "total_step", total_step)
    _check_int(op, "step_per_epoch", step_per_epoch)
    _check_int(op, "decay_epoch", decay_epoch)
    _check_bool(op, "is_stair", is_stair)


def _epochs(total_step, step_per_epoch):
    return [i // step_per_epoch for i in range(total_step)]


# ---- builders ----------------------------------------------------------------------------------------
def piecewise_constant_lr(milestone, learning_rates):
    """`piecewise_constant_lr(milestone, learning_rates)`: `learning_rates[k]` for steps before `milestone[k]`."""
    op = "piecewise_constant_lr"
    if not isinstance(milestone, (list, tuple)):
        raise TypeError(f"For '{op}', the 'milestone' must be a list or tuple, but got {type(milestone).__name__}.")
    if not isinstance(learning_rates, (list, tuple)):
        raise TypeError(f"For '{op}', the 'learning_rates' must be a list or tuple, "
                        f"but got {type(learning_rates).__name__}.")
    if len(milestone) != len(learning_rates):
        raise ValueError(f"For '{op}', the size of 'milestone' must be the same as the size of 'learning_rates', "
                         f"but got 'milestone' size {len(milestone)} and 'learning_rates' size {len(learning_rates)}.")
    out, previous = [], 0
    for k, (end, lr) in enumerate(zip(milestone, learning_rates)):
        end = _check_int(op, f"milestone[{k}]", end)
        lr = _check_float(op, f"learning_rates[{k}]", lr)
        if end <= previous:
            raise ValueError(f"For '{op}', the 'milestone' must be strictly increasing, but got {list(milestone)}.")
        out.extend([lr] * (end - previous))
        previous = end
    return out


def exponential_decay_lr(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair=False):
    """`exponential_decay_lr(...)`: lr * decay_rate ** (current_epoch / decay_epoch) (floored when is_stair)."""
    _check_common("exponential_decay_lr", learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch,
                  is_stair)
    out = []
    for epoch in _epochs(total_step, step_per_epoch):
        p = epoch // decay_epoch if is_stair else epoch / decay_epoch
        out.append(learning_rate * decay_rate ** p)
    return out


def natural_exp_decay_lr(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair=False):
    """`natural_exp_decay_lr(...)`: lr * exp(-decay_rate * current_epoch); with is_stair the epoch is rounded down
    to a multiple of decay_epoch (MindSpore's definition: the exponent is not divided by decay_epoch)."""
    _check_common("natural_exp_decay_lr", learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch,
                  is_stair)
    out = []
    for epoch in _epochs(total_step, step_per_epoch):
        p = (epoch // decay_epoch) * decay_epoch if is_stair else epoch
        out.append(learning_rate * math.exp(-decay_rate * p))
    return out


def inverse_decay_lr(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair=False):
    """`inverse_decay_lr(...)`: lr / (1 + decay_rate * current_epoch / decay_epoch) (floored when is_stair)."""
    _check_common("inverse_decay_lr", learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair)
    out = []
    for epoch in _epochs(total_step, step_per_epoch):
        p = epoch // decay_epoch if is_stair else epoch / decay_epoch
        out.append(learning_rate / (1 + decay_rate * p))
    return out


def cosine_decay_lr(min_lr, max_lr, total_step, step_per_epoch, decay_epoch):
    """`cosine_decay_lr(min_lr, max_lr, total_step, step_per_epoch, decay_epoch)`: from max_lr down to min_lr
    along half a cosine over decay_epoch epochs, then min_lr."""
    op = "cosine_decay_lr"
    min_lr = _check_float(op, "min_lr", min_lr)
    max_lr = _check_float(op, "max_lr", max_lr, positive=True)
    if min_lr >= max_lr:
        raise ValueError(f"For '{op}', the 'max_lr' must be greater than the 'min_lr', "
                         f"but got 'max_lr' {max_lr} and 'min_lr' {min_lr}.")
    _check_int(op, "total_step", total_step)
    _check_int(op, "step_per_epoch", step_per_epoch)
    _check_int(op, "decay_epoch", decay_epoch)
    out = []
    for epoch in _epochs(total_step, step_per_epoch):
        p = min(epoch, decay_epoch) / decay_epoch
        out.append(min_lr + 0.5 * (max_lr - min_lr) * (1 + math.cos(math.pi * p)))
    return out


def polynomial_decay_lr(learning_rate, end_learning_rate, total_step, step_per_epoch, decay_epoch, power,
                        update_decay_epoch=False):
    """`polynomial_decay_lr(...)`: (lr - end_lr) * (1 - epoch/decay_epoch) ** power + end_lr; with
    update_decay_epoch the decay period grows to the next multiple of decay_epoch instead of stopping."""
    op = "polynomial_decay_lr"
    learning_rate = _check_float(op, "learning_rate", learning_rate, positive=True)
    end_learning_rate = _check_float(op, "end_learning_rate", end_learning_rate)
    _check_int(op, "total_step", total_step)
    _check_int(op, "step_per_epoch", step_per_epoch)
    _check_int(op, "decay_epoch", decay_epoch)
    power = _check_float(op, "power", power, positive=True)
    _check_bool(op, "update_decay_epoch", update_decay_epoch)
    out = []
    for epoch in _epochs(total_step, step_per_epoch):
        if update_decay_epoch:
            period, elapsed = decay_epoch * max(math.ceil(epoch / decay_epoch), 1), epoch
        else:
            period, elapsed = decay_epoch, min(epoch, decay_epoch)
        out.append((learning_rate - end_learning_rate) * (1 - elapsed / period) ** power + end_learning_rate)
    return out


def warmup_lr(learning_rate, total_step, step_per_epoch, warmup_epoch):
    """`warmup_lr(learning_rate, total_step, step_per_epoch, warmup_epoch)`: lr * min(epoch, warmup)/warmup."""
    op = "warmup_lr"
    learning_rate = _check_float(op, "learning_rate", learning_rate, positive=True)
    _check_int(op, "total_step", total_step)
    _check_int(op, "step_per_epoch", step_per_epoch)
    _check_int(op, "warmup_epoch", warmup_epoch)
    return [learning_rate * min(epoch, warmup_epoch) / warmup_epoch for epoch in _epochs(total_step, step_per_epoch)]
