"""`EarlyStopping`: stop training when the monitored quantity stops improving (checked every epoch)."""
import numbers

from ...core.tensor import Tensor
from ._callback import Callback
from ._monitor import comparison, monitor_value


class EarlyStopping(Callback):
    """`EarlyStopping(monitor='eval_loss', min_delta=0, patience=0, verbose=False, mode='auto', baseline=None,
    restore_best_weights=False)`.

    An epoch improves when the monitored value beats the best so far by more than `min_delta`; after
    `patience` epochs in a row without improvement, training stops. Monitors: 'loss' (training loss),
    and in `Model.fit` 'eval_loss' or a metric name. With `restore_best_weights` the train network gets
    the parameters of the best epoch back when it stops.
    """

    def __init__(self, monitor="eval_loss", min_delta=0, patience=0, verbose=False, mode="auto", baseline=None,
                 restore_best_weights=False):
        super().__init__()
        if not isinstance(monitor, str):
            raise TypeError("For 'EarlyStopping', the argument 'monitor' must be a str, "
                            f"but got {type(monitor).__name__}.")
        if isinstance(min_delta, bool) or not isinstance(min_delta, numbers.Real):
            raise TypeError("For 'EarlyStopping', the argument 'min_delta' must be a number, "
                            f"but got {type(min_delta).__name__}.")
        if isinstance(patience, bool) or not isinstance(patience, int) or patience < 0:
            raise ValueError(f"For 'EarlyStopping', the argument 'patience' must be a non-negative int, "
                             f"but got {patience!r}.")
        if baseline is not None and (isinstance(baseline, bool) or not isinstance(baseline, numbers.Real)):
            raise TypeError("For 'EarlyStopping', the argument 'baseline' must be a number or None, "
                            f"but got {type(baseline).__name__}.")
        self.monitor = monitor
        self.patience = patience
        self.verbose = bool(verbose)
        self.baseline = baseline
        self.restore_best_weights = bool(restore_best_weights)
        self._better, self.min_delta, self._start = comparison("EarlyStopping", mode, monitor, min_delta)
        self.mode = mode
        self._reset()

    def _reset(self):
        self.wait = 0
        self.stopped_epoch = 0
        self.best = self._start
        self.best_weights_param_dict = None

    def _improves(self, current, reference):
        return self._better(current - self.min_delta, reference)

    def on_train_begin(self, run_context):
        self._reset()

    def on_train_epoch_end(self, run_context):
        cb_params = run_context.original_args()
        current = monitor_value(cb_params, self.monitor, "EarlyStopping")
        if current is None:
            return
        self.wait += 1
        if self._improves(current, self.best):
            self.best = current
            if self.restore_best_weights:
                self.best_weights_param_dict = {name: p.asnumpy().copy()
                                                for name, p in cb_params.train_network.parameters_and_names()}
            if self.baseline is None or self._improves(current, self.baseline):
                self.wait = 0
            return
        if self.wait >= self.patience:
            self.stopped_epoch = cb_params.cur_epoch_num
            run_context.request_stop()
            if self.restore_best_weights and self.best_weights_param_dict is not None:
                if self.verbose:
                    print("Restoring model weights from the end of the best epoch.")
                for name, p in cb_params.train_network.parameters_and_names():
                    saved = self.best_weights_param_dict.get(name)
                    if saved is not None:
                        p.set_data(Tensor(saved, p.dtype))

    def on_train_end(self, run_context):
        if self.stopped_epoch > 0 and self.verbose:
            print(f"Epoch {self.stopped_epoch:05d}: early stopping")
