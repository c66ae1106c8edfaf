"""`TimeMonitor(data_size=None, data_time=False)`: prints
`Train epoch time: 185.699 ms, per step time: 46.425 ms` after each training epoch."""
import time

from ._callback import Callback


class TimeMonitor(Callback):
    """Epoch wall time and the mean time per step; `data_size` overrides the step count (default: the
    steps of the epoch), `data_time=True` adds the mean time spent waiting for data between steps."""

    def __init__(self, data_size=None, data_time=False):
        super().__init__()
        if data_size is not None and (isinstance(data_size, bool) or not isinstance(data_size, int)
                                      or data_size <= 0):
            raise ValueError(f"For 'TimeMonitor', the argument 'data_size' must be a positive int or None, "
                             f"but got {data_size!r}.")
        if not isinstance(data_time, bool):
            raise TypeError(f"For 'TimeMonitor', the argument 'data_time' must be a bool, "
                            f"but got {type(data_time).__name__}.")
        self.data_size = data_size
        self.data_time = data_time
        self._epoch_start = None
        self._steps = 0
        self._data_wait = 0.0
        self._last_step_end = None

    def on_train_epoch_begin(self, run_context):
        self._epoch_start = time.perf_counter()
        self._last_step_end = self._epoch_start
        self._steps = 0
        self._data_wait = 0.0

    def on_train_step_begin(self, run_context):
        if self._last_step_end is not None:
            self._data_wait += time.perf_counter() - self._last_step_end

    def on_train_step_end(self, run_context):
        self._steps += 1
        self._last_step_end = time.perf_counter()

    def on_train_epoch_end(self, run_context):
        if self._epoch_start is None:
            return
        epoch_ms = (time.perf_counter() - self._epoch_start) * 1000.0
        cb_params = run_context.original_args()
        steps = self.data_size or self._steps or cb_params.get("batch_num") or 1
        line = f"Train epoch time: {epoch_ms:5.3f} ms, per step time: {epoch_ms / steps:5.3f} ms"
        if self.data_time:
            line += f", avg data load time: {self._data_wait * 1000.0 / max(self._steps, 1):5.3f} ms"
        print(line, flush=True)
        self._epoch_start = None
