"""sync_wait / sync_update, WaitedDSCallback with Model.train, and the sync_wait_for_dataset barrier."""
import os
import threading

import numpy as np
import pytest

import openspore as ms
import openspore.dataset as ds
from openspore import nn


def test_sync_wait_blocks_until_update():
    data = ds.NumpySlicesDataset({"x": np.arange(6)}, shuffle=False).sync_wait("go", num_batch=1).batch(2)
    it = data.create_tuple_iterator(num_epochs=1, output_numpy=True)
    assert next(it)[0].tolist() == [0, 1]
    got = []

    def consume():
        got.append(next(it)[0].tolist())

    worker = threading.Thread(target=consume)
    worker.start()
    worker.join(0.3)
    assert worker.is_alive() and got == []  # blocked: no sync_update yet
    data.sync_update("go")
    worker.join(10)
    assert got == [[2, 3]]


def test_sync_wait_times_out_naming_the_condition():
    ds.config.set_callback_timeout(1)
    data = ds.NumpySlicesDataset({"x": np.arange(4)}, shuffle=False).sync_wait("policy").batch(2)
    it = data.create_tuple_iterator(num_epochs=1, output_numpy=True)
    next(it)
    with pytest.raises(RuntimeError, match="policy"):
        next(it)
    with pytest.raises(RuntimeError, match="no sync_wait"):
        data.sync_update("other")


class _Recorder(ds.WaitedDSCallback):
    def __init__(self, step_size):
        super().__init__(step_size)
        self.steps, self.epochs = [], []

    def sync_step_begin(self, train_run_context, ds_run_context):
        self.steps.append((train_run_context.original_args().cur_step_num, ds_run_context.cur_step_num))

    def sync_epoch_begin(self, train_run_context, ds_run_context):
        self.epochs.append((train_run_context.original_args().cur_epoch_num, ds_run_context.cur_epoch_num))


def test_waited_ds_callback_follows_training_steps():
    ms.set_seed(0)
    rng = np.random.default_rng(0)
    x = rng.normal(size=(8, 3)).astype(np.float32)
    y = rng.normal(size=(8, 1)).astype(np.float32)
    cb = _Recorder(step_size=2)
    data = ds.NumpySlicesDataset((x, y), column_names=["x", "y"], shuffle=False)
    data = data.map(lambda v: v, input_columns=["x"], callbacks=cb).batch(2)
    net = nn.Dense(3, 1)
    model = ms.Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.01))
    model.train(2, data, callbacks=[cb])
    # the dataset starts each step (rows 3, 5, 7, ... counted over epochs; the very first is not waited for) only
    # after training ended the step before it; epoch 2 starts after training epoch 1 ended
    assert cb.steps == [(1, 3), (2, 5), (3, 7), (4, 9), (5, 11), (6, 13), (7, 15)]
    # cb_params is the live record: training has already entered epoch 2 when the dataset starts it
    assert cb.epochs == [(2, 2)]


def test_sync_wait_for_dataset_is_a_barrier(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENSPORE_DATASET_SYNC_DIR", str(tmp_path))
    done = []
    other = threading.Thread(target=lambda: (ds.sync_wait_for_dataset(1, 2, 1), done.append(1)))
    other.start()
    other.join(0.3)
    assert other.is_alive()  # rank 0 has not arrived
    ds.sync_wait_for_dataset(0, 2, 1)
    other.join(10)
    assert done == [1] and sorted(os.listdir(tmp_path)) == ["epoch_1_rank_0.ready", "epoch_1_rank_1.ready"]
    with pytest.raises(ValueError, match="rank_id"):
        ds.sync_wait_for_dataset(2, 2, 1)
