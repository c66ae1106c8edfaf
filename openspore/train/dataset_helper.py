"""Feeding a network from a dataset outside `Model`: `DatasetHelper`, `connect_network_with_dataset`, `data_sink`.

A data "sink" on MindSpore's devices moves a number of batches into a device queue and runs that many steps per
call; here the queue is the pipeline's own iterator, so a sink call takes `sink_size` batches from a continuous
stream of passes and runs `fn` once per batch.

>>> import numpy as np, openspore as ms, openspore.dataset as ds
>>> data = ds.NumpySlicesDataset({"x": np.arange(6, dtype=np.float32)}, shuffle=False).batch(2)
>>> sink = data_sink(lambda x: x.sum(), data, sink_size=2)  # batches [0, 1], [2, 3], [4, 5], then again
>>> float(sink().asnumpy()), float(sink().asnumpy())
(5.0, 1.0)
"""
import itertools

from ..nn.cell import Cell
from ._feed import check_dataset

__all__ = ["DatasetHelper", "connect_network_with_dataset", "data_sink"]


def _positive_or_minus_one(value, name, where):
    if isinstance(value, bool) or not isinstance(value, int) or (value <= 0 and value != -1):
        raise ValueError(f"For '{where}', '{name}' must be -1 or a positive int, but got {value!r}.")
    return value


class DatasetHelper:
    """`DatasetHelper(dataset, dataset_sink_mode=True, sink_size=-1, epoch_num=1)`: iterate the batches of
    `epoch_num` epochs as tuples of Tensors (an epoch is `sink_size` batches in sink mode, a full pass otherwise)."""

    def __init__(self, dataset, dataset_sink_mode=True, sink_size=-1, epoch_num=1):
        self.dataset = dataset
        self._size = check_dataset(dataset, "dataset", "DatasetHelper")
        self.dataset_sink_mode = bool(dataset_sink_mode)
        self._sink_size = _positive_or_minus_one(sink_size, "sink_size", "DatasetHelper")
        if isinstance(epoch_num, bool) or not isinstance(epoch_num, int) or epoch_num <= 0:
            raise ValueError(f"For 'DatasetHelper', 'epoch_num' must be a positive int, but got {epoch_num!r}.")
        self.epoch_num = epoch_num
        passes = epoch_num
        if self.dataset_sink_mode and sink_size > 0:
            passes = -(-epoch_num * sink_size // self._size)
        self._iterator = dataset.create_tuple_iterator(num_epochs=passes)
        self._stream = itertools.chain.from_iterable(iter(self._iterator) for _ in range(passes))
        self._stopped = False

    def sink_size(self):
        """Batches per epoch: `sink_size` in sink mode when given, else the dataset size."""
        return self._sink_size if self.dataset_sink_mode and self._sink_size > 0 else self._size

    def types_shapes(self):
        """(dtypes, shapes) of the output columns."""
        return self.dataset.output_types(), self.dataset.output_shapes()

    def get_data_info(self):
        """The dtypes and shapes of the next batch (static pipelines: those of every batch)."""
        return self.types_shapes()

    def __iter__(self):
        for _ in range(self.sink_size()):
            if self._stopped:
                return
            try:
                yield tuple(next(self._stream))
            except StopIteration:
                return

    def _next(self):
        return tuple(next(self._stream))

    def stop_send(self):
        """Stop handing out batches (the iterator ends)."""
        self._stopped = True

    def continue_send(self):
        """Resume after `stop_send`."""
        self._stopped = False

    def release(self):
        """Stop the pipeline's workers."""
        stop = getattr(self._iterator, "stop", None)
        if stop is not None:
            stop()


class _DataFedCell(Cell):
    """Runs `network` on the next batch of a DatasetHelper when called without inputs."""

    def __init__(self, network, helper):
        super().__init__(auto_prefix=False)
        self.network = network
        self._helper = helper

    def construct(self, *inputs):
        if not inputs:
            inputs = self._helper._next()
        return self.network(*inputs)


def connect_network_with_dataset(network, dataset_helper):
    """A Cell that runs `network` on the next batch of `dataset_helper` each time it is called with no inputs
    (called with inputs, it passes them through)."""
    if not isinstance(network, Cell):
        raise TypeError(f"For 'connect_network_with_dataset', 'network' must be a Cell, but got "
                        f"{type(network).__name__}.")
    if not isinstance(dataset_helper, DatasetHelper):
        raise TypeError(f"For 'connect_network_with_dataset', 'dataset_helper' must be a DatasetHelper, but got "
                        f"{type(dataset_helper).__name__}.")
    return _DataFedCell(network, dataset_helper)


def data_sink(fn, dataset, sink_size=1, jit_config=None, input_signature=None):
    """`data_sink(fn, dataset, sink_size=1, jit_config=None, input_signature=None)`: a function that, on each
    call, runs `fn(*batch)` on the next `sink_size` batches of `dataset` and returns the last result (with a
    `jit_config`, `fn` is compiled once)."""
    if not callable(fn):
        raise TypeError(f"For 'data_sink', 'fn' must be callable, but got {type(fn).__name__}.")
    check_dataset(dataset, "dataset", "data_sink")
    if isinstance(sink_size, bool) or not isinstance(sink_size, int) or sink_size <= 0:
        raise ValueError(f"For 'data_sink', 'sink_size' must be a positive int, but got {sink_size!r}.")
    step = fn
    if jit_config is not None:
        from ..runtime.jit import jit
        step = jit(fn)
    state = {"iterator": None}

    def next_batch():
        while True:
            if state["iterator"] is None:
                state["iterator"] = iter(dataset.create_tuple_iterator(num_epochs=1))
            try:
                return next(state["iterator"])
            except StopIteration:
                state["iterator"] = None  # the next pass starts over, as a sink queue refills

    def sink_fun():
        out = None
        for _ in range(sink_size):
            out = step(*next_batch())
        return out

    return sink_fun
