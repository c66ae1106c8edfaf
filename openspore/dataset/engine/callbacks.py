"""`DSCallback`: user hooks that `Dataset.map(..., callbacks=...)` calls as rows pass through the map.

Hooks get a run context with `cur_epoch_num` (1-based; 0 at `ds_begin`), `cur_step_num_in_epoch` and
`cur_step_num` (rows so far, 1-based). `ds_step_begin` runs when a row enters the map, `ds_step_end` when its
result leaves, each every `step_size` rows (rows 1, 1 + step_size, ...); `ds_epoch_end` after the epoch's last row.

>>> import numpy as np
>>> from openspore import dataset as ds
>>> class Count(ds.DSCallback):
...     def ds_step_end(self, run_context):
...         print("row", run_context.cur_step_num)
>>> data = ds.NumpySlicesDataset(np.arange(3), shuffle=False).map(lambda x: x, callbacks=Count(step_size=2))
>>> _ = [r for r in data.create_tuple_iterator(num_epochs=1)]
row 1
row 3
"""


class DSCallback:
    """`DSCallback(step_size=1)`: subclass it and override `ds_begin`, `ds_epoch_begin`, `ds_epoch_end`,
    `ds_step_begin` or `ds_step_end` (each takes the run context)."""

    def __init__(self, step_size=1):
        if isinstance(step_size, bool) or not isinstance(step_size, int) or step_size < 1:
            raise ValueError(f"For 'DSCallback', 'step_size' must be an int of at least 1, but got {step_size!r}.")
        self.step_size = step_size

    def ds_begin(self, ds_run_context):
        """Called once, before the first epoch."""

    def ds_epoch_begin(self, ds_run_context):
        """Called at the start of every epoch."""

    def ds_epoch_end(self, ds_run_context):
        """Called after the last row of every epoch."""

    def ds_step_begin(self, ds_run_context):
        """Called when a row (every step_size-th) enters the map."""

    def ds_step_end(self, ds_run_context):
        """Called when a row's (every step_size-th) result leaves the map."""


class RunContext:
    """What a hook sees: the epoch and the step counts at the moment of the call."""

    def __init__(self, cur_epoch_num, cur_step_num_in_epoch, cur_step_num):
        self.cur_epoch_num = cur_epoch_num
        self.cur_step_num_in_epoch = cur_step_num_in_epoch
        self.cur_step_num = cur_step_num

    def __repr__(self):
        return (f"RunContext(cur_epoch_num={self.cur_epoch_num}, cur_step_num_in_epoch="
                f"{self.cur_step_num_in_epoch}, cur_step_num={self.cur_step_num})")


def check_callbacks(callbacks):
    """None, one DSCallback or a list of them → a list."""
    if callbacks is None:
        return []
    listed = list(callbacks) if isinstance(callbacks, (list, tuple)) else [callbacks]
    for cb in listed:
        if not isinstance(cb, DSCallback):
            raise TypeError(f"For 'map', 'callbacks' must be a DSCallback or a list of them, but got "
                            f"{type(cb).__name__}.")
    return listed


class CallbackRunner:
    """The counters of one map node in one iterator, and the calls they trigger."""

    def __init__(self, callbacks):
        self.callbacks = callbacks
        self.epoch = 0
        self.entered = self.left = 0          # rows in the current epoch
        self.entered_total = self.left_total = 0

    def _call(self, hook, context, step=None):
        for cb in self.callbacks:
            if step is None or (step - 1) % cb.step_size == 0:
                getattr(cb, hook)(context)

    def start_epoch(self):
        if self.epoch == 0:
            self._call("ds_begin", RunContext(0, 0, 0))
        self.epoch += 1
        self.entered = self.left = 0
        self._call("ds_epoch_begin", RunContext(self.epoch, 0, self.left_total))

    def feed(self, rows):
        """The map's input rows, with ds_step_begin as each enters."""
        for row in rows:
            self.entered += 1
            self.entered_total += 1
            self._call("ds_step_begin", RunContext(self.epoch, self.entered, self.entered_total), self.entered)
            yield row

    def drain(self, rows):
        """The map's output rows, with ds_step_end as each leaves and ds_epoch_end after the last."""
        for row in rows:
            self.left += 1
            self.left_total += 1
            self._call("ds_step_end", RunContext(self.epoch, self.left, self.left_total), self.left)
            yield row
        self._call("ds_epoch_end", RunContext(self.epoch, self.left, self.left_total))
