"""`ReduceLROnPlateau`: multiply the optimizer's learning rate by `factor` when the monitored value stalls."""
import numbers

import numpy as np

from ._callback import Callback
from ._monitor import comparison, learning_rate_parameter, monitor_value, set_parameter_value


class ReduceLROnPlateau(Callback):
    """`ReduceLROnPlateau(monitor='eval_loss', factor=0.1, patience=10, verbose=False, mode='auto',
    min_delta=1e-4, cooldown=0, min_lr=0)`.

    After `patience` epochs without an improvement larger than `min_delta`, the optimizer's
    `learning_rate` Parameter becomes `max(lr * factor, min_lr)`; then `cooldown` epochs pass before
    waiting starts again.
    """

    def __init__(self, monitor="eval_loss", factor=0.1, patience=10, verbose=False, mode="auto", min_delta=1e-4,
                 cooldown=0, min_lr=0):
        super().__init__()
        if isinstance(factor, bool) or not isinstance(factor, numbers.Real) or not 0 <= factor < 1:
            raise ValueError(f"For 'ReduceLROnPlateau', the argument 'factor' must be in [0, 1), but got {factor!r}.")
        for arg, value in (("patience", patience), ("cooldown", cooldown)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"For 'ReduceLROnPlateau', the argument '{arg}' must be a non-negative int, "
                                 f"but got {value!r}.")
        if isinstance(min_lr, bool) or not isinstance(min_lr, numbers.Real) or min_lr < 0:
            raise ValueError(f"For 'ReduceLROnPlateau', the argument 'min_lr' must be a non-negative number, "
                             f"but got {min_lr!r}.")
        self.monitor = monitor
        self.factor = float(factor)
        self.patience = patience
        self.verbose = bool(verbose)
        self.cooldown = cooldown
        self.min_lr = float(min_lr)
        self.mode = mode
        self._better, self.min_delta, self._start = comparison("ReduceLROnPlateau", mode, monitor, min_delta)
        self._reset()

    def _reset(self):
        self.best = self._start
        self.wait = 0
        self.cooldown_counter = 0

    def on_train_begin(self, run_context):
        self._reset()

    def on_train_epoch_end(self, run_context):
        cb_params = run_context.original_args()
        current = monitor_value(cb_params, self.monitor, "ReduceLROnPlateau")
        if current is None:
            return
        lr_param = learning_rate_parameter(cb_params, "ReduceLROnPlateau")
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.wait = 0
        if self._better(current - self.min_delta, self.best):
            self.best = current
            self.wait = 0
            return
        if self.cooldown_counter > 0:
            return
        self.wait += 1
        if self.wait < self.patience:
            return
        old_lr = float(np.asarray(lr_param.asnumpy(), np.float64).reshape(-1)[0])
        if old_lr > self.min_lr:
            new_lr = max(old_lr * self.factor, self.min_lr)
            set_parameter_value(lr_param, new_lr)
            if self.verbose:
                print(f"Epoch {cb_params.cur_epoch_num:05d}: ReduceLROnPlateau reducing learning rate to {new_lr}.")
        self.cooldown_counter = self.cooldown
        self.wait = 0
