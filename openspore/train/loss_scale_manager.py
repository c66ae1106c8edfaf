"""Loss-scale managers for `Model(..., loss_scale_manager=...)` (facts §1.14).

A manager gives `build_train_network` the loss scale and, when overflowing steps must be skipped and the
scale adapted, an update Cell (`nn.DynamicLossScaleUpdateCell` / `nn.FixedLossScaleUpdateCell`) that
`nn.TrainOneStepWithLossScaleCell` runs inside the step. `update_loss_scale(overflow)` mirrors that
update on the Python side (Model calls it after each step), so `get_loss_scale()` follows training.

>>> from openspore.train import DynamicLossScaleManager
>>> m = DynamicLossScaleManager(init_loss_scale=2 ** 10, scale_factor=2, scale_window=2)
>>> m.update_loss_scale(True); m.get_loss_scale()
512.0
>>> m.update_loss_scale(False); m.update_loss_scale(False); m.get_loss_scale()
1024.0
"""
import numbers


def _positive_number(cls_name, arg, value, minimum=None):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"For '{cls_name}', the argument '{arg}' must be a number, but got {type(value).__name__}.")
    low = minimum if minimum is not None else 0
    ok = value >= low if minimum is not None else value > low
    if not ok:
        bound = f"greater than or equal to {minimum}" if minimum is not None else "greater than 0"
        raise ValueError(f"For '{cls_name}', the argument '{arg}' must be {bound}, but got {value}.")
    return value


class LossScaleManager:
    """Base class: `get_loss_scale()`, `get_update_cell()`, `update_loss_scale(overflow)`."""

    def get_loss_scale(self):
        """The current loss scale (float)."""
        raise NotImplementedError(f"'{type(self).__name__}' must implement get_loss_scale().")

    def update_loss_scale(self, overflow):
        """Adapt the scale after a step whose gradients did (`overflow=True`) or did not overflow."""
        raise NotImplementedError(f"'{type(self).__name__}' must implement update_loss_scale().")

    def get_update_cell(self):
        """The Cell that updates the scale inside the training step, or None."""
        raise NotImplementedError(f"'{type(self).__name__}' must implement get_update_cell().")


class FixedLossScaleManager(LossScaleManager):
    """`FixedLossScaleManager(loss_scale=128.0, drop_overflow_update=True)`: a constant scale.

    With `drop_overflow_update=True` a step whose gradients overflow is skipped (through
    `nn.FixedLossScaleUpdateCell`); with False the step always applies and the optimizer's `loss_scale`
    should equal `loss_scale` to undo the scaling.
    """

    def __init__(self, loss_scale=128.0, drop_overflow_update=True):
        _positive_number("FixedLossScaleManager", "loss_scale", loss_scale, minimum=1)
        if not isinstance(drop_overflow_update, bool):
            raise TypeError("For 'FixedLossScaleManager', the argument 'drop_overflow_update' must be a bool, "
                            f"but got {type(drop_overflow_update).__name__}.")
        self._loss_scale = float(loss_scale)
        self._drop_overflow_update = drop_overflow_update

    def get_loss_scale(self):
        return self._loss_scale

    def get_drop_overflow_update(self):
        """Whether overflowing steps are skipped."""
        return self._drop_overflow_update

    def update_loss_scale(self, overflow):
        """A fixed scale never changes."""

    def get_update_cell(self):
        if not self._drop_overflow_update:
            return None
        from .. import nn
        return nn.FixedLossScaleUpdateCell(self._loss_scale)


class DynamicLossScaleManager(LossScaleManager):
    """`DynamicLossScaleManager(init_loss_scale=2**24, scale_factor=2, scale_window=2000)`.

    On overflow the scale is divided by `scale_factor` (not below 1) and the step is skipped; after
    `scale_window` consecutive finite steps it is multiplied by `scale_factor`.
    """

    def __init__(self, init_loss_scale=2 ** 24, scale_factor=2, scale_window=2000):
        _positive_number("DynamicLossScaleManager", "init_loss_scale", init_loss_scale, minimum=1)
        _positive_number("DynamicLossScaleManager", "scale_factor", scale_factor)
        if scale_factor <= 1:
            raise ValueError("For 'DynamicLossScaleManager', the argument 'scale_factor' must be greater than 1, "
                             f"but got {scale_factor}.")
        if isinstance(scale_window, bool) or not isinstance(scale_window, int) or scale_window < 1:
            raise ValueError("For 'DynamicLossScaleManager', the argument 'scale_window' must be a positive int, "
                             f"but got {scale_window!r}.")
        self.loss_scale = float(init_loss_scale)
        self.scale_factor = scale_factor
        self.scale_window = scale_window
        self.increase_ratio = scale_factor
        self.decrease_ratio = 1 / scale_factor
        self.cur_iter = 1
        self.last_overflow_iter = 0
        self.bad_step_max = 1000
        self.bad_step = 0

    def get_loss_scale(self):
        return self.loss_scale

    def get_drop_overflow_update(self):
        """Overflowing steps are always skipped."""
        return True

    def update_loss_scale(self, overflow):
        if overflow:
            self.loss_scale = max(self.loss_scale / self.scale_factor, 1.0)
            self.last_overflow_iter = self.cur_iter
            self.bad_step += 1
            if self.bad_step > self.bad_step_max:
                raise RuntimeError(f"Dynamic loss scale: the gradients overflowed {self.bad_step} steps in a row; "
                                   "training cannot recover (check the learning rate and the data).")
        else:
            self.bad_step = 0
            if (self.cur_iter - self.last_overflow_iter) % self.scale_window == 0:
                self.loss_scale *= self.scale_factor
        self.cur_iter += 1

    def get_update_cell(self):
        from .. import nn
        return nn.DynamicLossScaleUpdateCell(self.loss_scale, self.scale_factor, self.scale_window)
