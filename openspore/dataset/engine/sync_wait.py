"""Synchronising a pipeline with training: `Dataset.sync_wait` / `sync_update`, `WaitedDSCallback`, and
`sync_wait_for_dataset` (a barrier of ranks through files in a shared folder).

`sync_wait(condition_name, num_batch=1, callback=None)` lets `num_batch` batches (of the batch op above it)
through, then blocks the pipeline until `sync_update(condition_name, num_batch=None, data=None)` is called,
which calls `callback(data)` and lets the next `num_batch` batches through. A wait longer than
`ds.config.get_callback_timeout()` seconds is an error that names the condition.

>>> import numpy as np
>>> import openspore.dataset as ds
>>> seen = []
>>> data = ds.NumpySlicesDataset({"x": np.arange(6)}, shuffle=False).sync_wait("policy", callback=seen.append)
>>> data = data.batch(2)
>>> for step, (x,) in enumerate(data.create_tuple_iterator(num_epochs=1, output_numpy=True)):
...     data.sync_update("policy", data={"step": step})
>>> seen
[{'step': 0}, {'step': 1}, {'step': 2}]
"""
import os
import threading
import time

from .. import config
from .callbacks import DSCallback
from .datasets import Dataset


class SyncWaitDataset(Dataset):
    """The node `sync_wait` adds: rows pass while the quota allows; `update` refills it."""

    def __init__(self, child, condition_name, num_batch, callback):
        super().__init__([child])
        if not isinstance(condition_name, str) or not condition_name:
            raise TypeError(f"For 'sync_wait', 'condition_name' must be a non-empty str, but got {condition_name!r}.")
        if isinstance(num_batch, bool) or not isinstance(num_batch, int) or num_batch < 1:
            raise ValueError(f"For 'sync_wait', 'num_batch' must be a positive int, but got {num_batch!r}.")
        if callback is not None and not callable(callback):
            raise TypeError(f"For 'sync_wait', 'callback' must be callable, but got {type(callback).__name__}.")
        self.condition_name, self.num_batch, self.callback = condition_name, num_batch, callback
        self._cond = threading.Condition()
        self._released = 0   # batches released so far (num_batch at the start of each iterator)
        self._consumed = 0   # rows passed so far

    def _rows_per_batch(self):
        from .batch import BatchDataset
        node = self
        while node.parent:
            node = node.parent[0]()
            if node is None:
                break
            if isinstance(node, BatchDataset):
                return node.batch_size if isinstance(node.batch_size, int) else 1
        return 1

    def update(self, num_batch=None, data=None):
        if num_batch is not None and (isinstance(num_batch, bool) or not isinstance(num_batch, int)
                                      or num_batch < 1):
            raise ValueError(f"For 'sync_update', 'num_batch' must be a positive int, but got {num_batch!r}.")
        if self.callback is not None:
            self.callback(data)
        with self._cond:
            self._released += self.num_batch if num_batch is None else num_batch
            self._cond.notify_all()

    def _iter_rows(self, ctx):
        per_batch = self._rows_per_batch()
        with self._cond:
            self._released, self._consumed = self.num_batch, 0
        timeout = config.get_callback_timeout()
        for row in self.children[0]._iter_rows(ctx):
            with self._cond:
                if self._consumed >= self._released * per_batch:
                    deadline = time.monotonic() + timeout
                    while self._consumed >= self._released * per_batch:
                        left = deadline - time.monotonic()
                        if left <= 0:
                            raise RuntimeError(f"For 'sync_wait', the pipeline waited {timeout} s for "
                                               f"sync_update('{self.condition_name}') and got none; call it after "
                                               f"each step or raise ds.config.set_callback_timeout.")
                        self._cond.wait(left)
                self._consumed += 1
            yield row


def find_sync_node(dataset, condition_name):
    for node in dataset._walk():
        if isinstance(node, SyncWaitDataset) and node.condition_name == condition_name:
            return node
    raise RuntimeError(f"For 'sync_update', the pipeline has no sync_wait with condition '{condition_name}'.")


def _train_callback_base():
    from ...train.callback._callback import Callback
    return Callback


class WaitedDSCallback(_train_callback_base(), DSCallback):
    """`WaitedDSCallback(step_size=1)`: a training callback and a dataset callback at once. Pass it to both
    `map(..., callbacks=cb)` and `model.train(..., callbacks=cb)`: before the dataset starts a step (every
    `step_size` rows, after the first) it waits until training finished the previous step, then calls
    `sync_step_begin(train_run_context, ds_run_context)`; likewise `sync_epoch_begin` waits for the end of the
    previous training epoch. A wait longer than `ds.config.get_callback_timeout()` seconds is an error."""

    def __init__(self, step_size=1):
        DSCallback.__init__(self, step_size)
        self._step_event, self._epoch_event = threading.Event(), threading.Event()
        self._step_context = self._epoch_context = None
        self._training_ended = False

    def sync_epoch_begin(self, train_run_context, ds_run_context):
        """Override: runs when the dataset starts an epoch after training finished the previous one."""

    def sync_step_begin(self, train_run_context, ds_run_context):
        """Override: runs when the dataset starts a step after training finished the previous one."""

    # --- the training side ------------------------------------------------------------------------------------
    def step_end(self, run_context):
        self._step_context = run_context
        self._step_event.set()

    def epoch_end(self, run_context):
        self._epoch_context = run_context
        self._epoch_event.set()

    def end(self, run_context):
        self._training_ended = True
        self._step_event.set()
        self._epoch_event.set()

    # --- the dataset side -------------------------------------------------------------------------------------
    def _wait(self, event, what):
        if self._training_ended:
            return False
        timeout = config.get_callback_timeout()
        if not event.wait(timeout):
            # the quoted "RuntimeError: ds_<what>_begin timed out ..." is the sentence MindSpore's pipeline reports
            raise RuntimeError(f"For 'WaitedDSCallback', RuntimeError: ds_{what}_begin timed out after {timeout} "
                               f"second(s): training did not finish the previous {what}; pass the callback to "
                               f"model.train as well, or raise ds.config.set_callback_timeout.")
        event.clear()
        return not self._training_ended

    def ds_epoch_begin(self, ds_run_context):
        if ds_run_context.cur_epoch_num > 1 and self._wait(self._epoch_event, "epoch"):
            self.sync_epoch_begin(self._epoch_context, ds_run_context)

    def ds_step_begin(self, ds_run_context):
        if ds_run_context.cur_step_num > self.step_size and self._wait(self._step_event, "step"):
            self.sync_step_begin(self._step_context, ds_run_context)


def _sync_folder():
    folder = os.environ.get("OPENSPORE_DATASET_SYNC_DIR") or getattr(config, "_obs_sync_dir", None)
    if not folder:
        raise RuntimeError("For 'sync_wait_for_dataset', no shared sync folder is known: create the "
                           "OBSMindDataset first (its sync_obs_path is the folder) or set "
                           "OPENSPORE_DATASET_SYNC_DIR to a folder every rank can see.")
    return folder


def sync_wait_for_dataset(rank_id, rank_size, current_epoch):
    """`sync_wait_for_dataset(rank_id, rank_size, current_epoch)`: mark this rank's files for `current_epoch`
    ready and wait until every one of the `rank_size` ranks has done the same (a barrier through the shared sync
    folder of OBSMindDataset). Waits at most `ds.config.get_callback_timeout()` seconds per call."""
    for name, value, low in (("rank_size", rank_size, 1), ("rank_id", rank_id, 0), ("current_epoch", current_epoch, 0)):
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise ValueError(f"For 'sync_wait_for_dataset', '{name}' must be an int >= {low}, but got {value!r}.")
    if rank_id >= rank_size:
        raise ValueError(f"For 'sync_wait_for_dataset', 'rank_id' {rank_id} must be less than 'rank_size' "
                         f"{rank_size}.")
    folder = _sync_folder()
    os.makedirs(folder, exist_ok=True)
    mark = os.path.join(folder, f"epoch_{current_epoch}_rank_{rank_id}.ready")
    with open(mark + ".tmp", "w") as f:
        f.write(str(os.getpid()))
    os.replace(mark + ".tmp", mark)
    timeout = config.get_callback_timeout()
    deadline = time.monotonic() + timeout
    wanted = [os.path.join(folder, f"epoch_{current_epoch}_rank_{r}.ready") for r in range(rank_size)]
    while True:
        missing = [r for r, p in enumerate(wanted) if not os.path.exists(p)]
        if not missing:
            return
        if time.monotonic() > deadline:
            raise RuntimeError(f"For 'sync_wait_for_dataset', ranks {missing} did not reach epoch {current_epoch} "
                               f"within {timeout} s (sync folder {folder}).")
        time.sleep(0.01)
