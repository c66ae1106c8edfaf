"""`LossMonitor(per_print_times=1)`: prints `epoch: 1 step: 2, loss is 0.7528...` every `per_print_times` steps
and, after an evaluation inside `Model.fit`, `Eval result: epoch 1, metrics: {...}`."""
import math

from ._callback import Callback, loss_value


class LossMonitor(Callback):
    """Print the training loss (the first output of the train network, averaged if it is an array).

    A nan or inf loss stops training with ValueError, as MindSpore does.
    """

    def __init__(self, per_print_times=1):
        super().__init__()
        if isinstance(per_print_times, bool) or not isinstance(per_print_times, int) or per_print_times < 0:
            raise ValueError("For 'LossMonitor', the argument 'per_print_times' must be a non-negative int, "
                             f"but got {per_print_times!r}.")
        self._per_print_times = per_print_times
        self._last_print_time = 0

    def on_train_begin(self, run_context):
        self._last_print_time = run_context.original_args().get("initial_step", 0) or 0

    def on_train_step_end(self, run_context):
        cb_params = run_context.original_args()
        loss = loss_value(cb_params.get("net_outputs"))
        step_in_epoch = (cb_params.cur_step_num - 1) % cb_params.batch_num + 1
        if loss is not None and (math.isnan(loss) or math.isinf(loss)):
            raise ValueError(f"epoch: {cb_params.cur_epoch_num} step: {step_in_epoch}. "
                             "Invalid loss, terminating training.")
        if self._per_print_times and cb_params.cur_step_num - self._last_print_time >= self._per_print_times:
            self._last_print_time = cb_params.cur_step_num
            shown = loss if loss is not None else cb_params.get("net_outputs")
            print(f"epoch: {cb_params.cur_epoch_num} step: {step_in_epoch}, loss is {shown}", flush=True)

    def on_train_epoch_end(self, run_context):
        cb_params = run_context.original_args()
        metrics = cb_params.get("metrics")
        if metrics:
            print(f"Eval result: epoch {cb_params.cur_epoch_num}, metrics: {metrics}", flush=True)
