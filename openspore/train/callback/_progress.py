"""`ProgressBar`: a one-line progress bar for `Model.train/eval` on a terminal (openspore addition).

Model adds one automatically when standard output is a terminal, and never otherwise (logs and pipes stay
clean). The bar is transient: it is erased before each step so lines printed by other callbacks
(LossMonitor, TimeMonitor) stay intact, and after each epoch.
"""
import sys
import time

from ._callback import Callback, loss_value

_WIDTH = 24


def wants_progress_bar(stream=None):
    """True when `stream` (default sys.stdout) is an interactive terminal."""
    stream = sys.stdout if stream is None else stream
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # closed stream
        return False


class ProgressBar(Callback):
    """`ProgressBar(stream=None, min_interval=0.1)`: `[=====>      ] 12/40 epoch 1 loss 0.4123 3.2 step/s`."""

    def __init__(self, stream=None, min_interval=0.1):
        super().__init__()
        self._stream = stream
        self._min_interval = float(min_interval)
        self._start = None
        self._last_draw = 0.0
        self._drawn = False

    @property
    def stream(self):
        return self._stream if self._stream is not None else sys.stdout

    def _erase(self):
        if self._drawn:
            self.stream.write("\r\x1b[2K")
            self.stream.flush()
            self._drawn = False

    def _draw(self, done, total, label, loss, force=False):
        now = time.perf_counter()
        if not force and now - self._last_draw < self._min_interval:
            return
        self._last_draw = now
        if total:
            filled = min(_WIDTH, int(_WIDTH * done / total))
            bar = "=" * filled + (">" if filled < _WIDTH else "") + " " * max(0, _WIDTH - filled - 1)
            count = f"{done}/{total}"
        else:
            bar, count = "-" * _WIDTH, f"{done}"
        rate = done / (now - self._start) if self._start is not None and now > self._start else 0.0
        text = f"[{bar}] {count} {label}"
        if loss is not None:
            text += f" loss {loss:.4f}"
        text += f" {rate:.1f} step/s"
        self.stream.write("\r\x1b[2K" + text)
        self.stream.flush()
        self._drawn = True

    # training
    def on_train_epoch_begin(self, run_context):
        self._start = time.perf_counter()
        self._last_draw = 0.0

    def on_train_step_begin(self, run_context):
        self._erase()

    def on_train_step_end(self, run_context):
        cb = run_context.original_args()
        total = cb.get("batch_num") or 0
        done = (cb.cur_step_num - 1) % total + 1 if total else cb.cur_step_num
        self._draw(done, total, f"epoch {cb.cur_epoch_num}/{cb.get('epoch_num', '?')}",
                   loss_value(cb.get("net_outputs")), force=done == total)

    def on_train_epoch_end(self, run_context):
        self._erase()

    def on_train_end(self, run_context):
        self._erase()

    # evaluation
    def on_eval_begin(self, run_context):
        self._start = time.perf_counter()
        self._last_draw = 0.0

    def on_eval_step_begin(self, run_context):
        self._erase()

    def on_eval_step_end(self, run_context):
        cb = run_context.original_args()
        total = cb.get("batch_num") or 0
        self._draw(cb.cur_step_num, total, "eval", None, force=cb.cur_step_num == total)

    def on_eval_end(self, run_context):
        self._erase()
