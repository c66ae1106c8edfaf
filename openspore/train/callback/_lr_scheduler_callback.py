"""`LearningRateScheduler(learning_rate_function)`: set the learning rate after every step from
`learning_rate_function(lr, cur_step_num)`."""
import numpy as np

from ._callback import Callback
from ._monitor import learning_rate_parameter, set_parameter_value


class LearningRateScheduler(Callback):
    """Calls `learning_rate_function(current_lr: float, cur_step_num: int) -> new_lr` after each training step
    and writes the result into the optimizer's `learning_rate` Parameter when it changed.

    >>> sched = LearningRateScheduler(lambda lr, step: lr * 0.5 if step % 100 == 0 else lr)
    """

    def __init__(self, learning_rate_function):
        super().__init__()
        if not callable(learning_rate_function):
            raise TypeError("For 'LearningRateScheduler', the argument 'learning_rate_function' must be callable, "
                            f"but got {type(learning_rate_function).__name__}.")
        self.learning_rate_function = learning_rate_function

    def on_train_step_end(self, run_context):
        cb_params = run_context.original_args()
        lr_param = learning_rate_parameter(cb_params, "LearningRateScheduler")
        lr = float(np.asarray(lr_param.asnumpy(), np.float64).reshape(-1)[0])
        new_lr = self.learning_rate_function(lr, cb_params.cur_step_num)
        if new_lr != lr:
            set_parameter_value(lr_param, float(new_lr))
