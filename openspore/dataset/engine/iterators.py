"""Iterators over a pipeline: tuples (lists) or dicts of openspore Tensors or numpy arrays, for num_epochs epochs."""
import weakref

import numpy as np

from .pyobjects import to_output
from .rows import Context, check_columns_exist


def _as_tensor(array, do_copy):
    if array.dtype.kind in "USO":  # Tensor holds no strings; string columns stay numpy arrays
        return array
    from ...core.tensor import Tensor  # late: the dataset package itself needs neither torch nor the core
    if do_copy:
        return Tensor(array)
    return Tensor.from_numpy(array)


def _as_numpy(array, do_copy):
    if type(array) is dict:
        return to_output(array, True, do_copy)
    if do_copy:
        array = np.array(array)
    if array.dtype.num == _INT64_NUM:  # int64 as C `long long`, as MindSpore's iterators give it: its repr names
        array = array.view(np.longlong)  # the dtype (`array(0, dtype=int64)`), which the tutorials print
    return array


_INT64_NUM = np.dtype(np.int64).num


def _connect_caches(dataset):
    """Connect each DatasetCache of the pipeline now, as MindSpore does when it launches the tree for an iterator:
    the transport's import and the handshake are set-up, not part of the first epoch. A server that cannot be
    reached is left to the pass itself, which reports it (or reads uncached with `fallback=True`)."""
    stack, seen = [dataset], set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        cache = getattr(node, "cache", None)
        if cache is not None:
            from ..cache.client import ServerLost
            try:
                cache._connection()
            except ServerLost:
                pass
        stack.extend(getattr(node, "children", ()))


# Weak references to the iterators not yet collected (a reference leaves the list when its iterator dies), so
# _cleanup() can stop their pipelines; MindSpore keeps the same list under this name.
ITERATORS_LIST = []


def _unregister(ref):
    try:
        ITERATORS_LIST.remove(ref)
    except ValueError:  # the list was cleared meanwhile
        pass


def _cleanup():
    """Stop every live iterator's pipeline (its worker processes end); MindSpore's tests call this between runs."""
    for ref in list(ITERATORS_LIST):
        iterator = ref()
        if iterator is not None:
            iterator.stop()


class TupleIterator:
    """`for row in iterator` yields one row; each full pass is an epoch, at most `num_epochs` of them (-1: unlimited)."""

    _as_dict = False

    def __init__(self, dataset, columns, num_epochs, output_numpy, do_copy):
        if isinstance(num_epochs, bool) or not isinstance(num_epochs, int) or (num_epochs < 1 and num_epochs != -1):
            raise ValueError(f"For 'create_tuple_iterator', 'num_epochs' must be -1 or a positive int, but got {num_epochs!r}.")
        dataset._check_tree()
        _connect_caches(dataset)
        self.dataset = dataset
        names = dataset.get_col_names()
        if columns is not None:
            columns = [columns] if isinstance(columns, str) else list(columns)
            check_columns_exist(columns, names, "create_tuple_iterator")
        self._names = columns or names
        self._index = [names.index(c) for c in self._names]
        self._num_epochs = num_epochs
        self._output_numpy = output_numpy
        self._do_copy = do_copy
        self._ctx = Context(dataset)
        self._epoch = 0
        self._gen = None
        self._stopped = False
        ITERATORS_LIST.append(weakref.ref(self, _unregister))

    def __iter__(self):
        return self

    def __next__(self):
        if self._gen is None:
            if self._stopped:  # MindSpore's stop() drops the runtime; a later next() fails on the missing attribute
                raise AttributeError(f"'{type(self).__name__}' object has no attribute '_runtime_context'")
            if self._num_epochs != -1 and self._epoch >= self._num_epochs:
                raise RuntimeError("EOF buffer encountered. User tries to fetch data beyond the specified number of "
                                   f"epochs. ({type(self).__name__} was created with num_epochs={self._num_epochs} "
                                   "and has given them all.)")
            self._ctx.epoch = self._epoch
            self._gen = self.dataset._iter_rows(self._ctx)
        try:
            row = next(self._gen)
        except StopIteration:
            self._gen = None
            self._epoch += 1
            raise
        except BaseException:
            self.stop()
            raise
        return self._convert(row)

    def _convert(self, row):
        values = [row[i] for i in self._index]
        if self._output_numpy:
            values = [_as_numpy(v, self._do_copy) for v in values]
        else:
            values = [to_output(v, False, self._do_copy) if type(v) is dict else _as_tensor(v, self._do_copy)
                      for v in values]
        if self._as_dict:
            return dict(zip(self._names, values))
        return values

    def get_col_names(self):
        return list(self._names)

    def stop(self):
        """Stop the pipeline now: worker processes end, the iterator yields nothing more."""
        if self._gen is not None:
            self._gen.close()
            self._gen = None
        self._stopped = True

    def __del__(self):
        gen = getattr(self, "_gen", None)
        if gen is not None:
            gen.close()


class DictIterator(TupleIterator):
    """Yields dicts column name → value."""

    _as_dict = True
