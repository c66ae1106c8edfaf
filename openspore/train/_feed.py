"""How `Model` walks a dataset: columns are fed positionally (data columns first, label last).

Non-sink mode runs one full pass of the dataset per epoch. Sink mode is emulated: an "epoch" is `sink_size`
steps taken from a continuous stream of passes (or one pass when sink_size is -1), and callbacks still see
every step, as MindSpore does on CPU.
"""
import itertools
import math


def check_dataset(dataset, arg, where):
    """Duck-typed dataset check: Model needs `create_tuple_iterator` and `get_dataset_size`."""
    if dataset is None or not callable(getattr(dataset, "create_tuple_iterator", None)) \
            or not callable(getattr(dataset, "get_dataset_size", None)):
        raise TypeError(f"For '{where}', the '{arg}' must be a Dataset (with create_tuple_iterator and "
                        f"get_dataset_size), but got {type(dataset).__name__}.")
    size = dataset.get_dataset_size()
    if not size or size <= 0:
        raise ValueError(f"For '{where}', the '{arg}' holds no data: get_dataset_size() returned {size}.")
    return size


class Feeder:
    """Yields the batches of each epoch as lists of Tensors."""

    def __init__(self, dataset, epochs, sink_mode=False, sink_size=-1, where="Model.train"):
        self.dataset_size = check_dataset(dataset, "train_dataset", where)
        self._sink = bool(sink_mode) and sink_size is not None and sink_size > 0
        self.steps_per_epoch = sink_size if self._sink else self.dataset_size
        passes = math.ceil(epochs * sink_size / self.dataset_size) if self._sink else epochs
        self._passes = max(1, passes)
        self._iterator = dataset.create_tuple_iterator(num_epochs=self._passes)
        self._stream = self._all_rows() if self._sink else None

    def _one_pass(self):
        return iter(self._iterator)

    def _all_rows(self):
        for _ in range(self._passes):
            yield from self._one_pass()

    def close(self):
        """Stop the pipeline (its workers end) when training finishes or stops early."""
        stop = getattr(self._iterator, "stop", None)
        if stop is not None:
            stop()

    def epoch(self):
        """The batches of the next epoch."""
        if self._sink:
            return itertools.islice(self._stream, self.steps_per_epoch)
        return self._one_pass()


def one_pass(dataset, arg="valid_dataset", where="Model.eval"):
    """(number of batches, iterator over one pass) for evaluation."""
    size = check_dataset(dataset, arg, where)
    return size, iter(dataset.create_tuple_iterator(num_epochs=1))
