"""`Dataset`: a node of the pipeline tree, with the pipeline operations and introspection.

Each node yields the rows of one pass (one epoch of its own) as tuples of numpy arrays from
`_iter_rows(ctx)`; a parent pulls from its child's pass. `repeat` starts its child's pass again,
so `repeat(2).batch(3)` batches across the boundary and `batch(3).repeat(2)` does not.
"""
import copy
import math
import weakref

import numpy as np

from .init_record import Recorded
from .rows import INFINITE, Context, names_list


class Dataset(Recorded):
    """Base of all datasets; every pipeline operation returns a new node whose child is this one."""

    def __init__(self, children=None, num_parallel_workers=None, cache=None):
        self.children = list(children or [])
        self.parent = []  # weak references to consumers; more than one live consumer breaks the tree rule
        for child in self.children:
            child.parent.append(weakref.ref(self))
        self.num_parallel_workers = num_parallel_workers
        if cache is not None:
            from ..cache.client import DatasetCache
            if not isinstance(cache, DatasetCache):
                raise TypeError(f"Argument cache with value {cache!r} is not of type [<class 'DatasetCache'>], "
                                f"but got {type(cache)}.")
        self.cache = cache  # a cache changes speed, never rows; the cache client reads it from here
        self._meta = {}

    # --- what each node defines ---------------------------------------------------------------------------------
    def _column_names(self):
        return self.children[0].get_col_names()

    def _iter_rows(self, ctx):
        raise NotImplementedError

    def _size(self):
        """Rows per pass: an int, INFINITE, or None when only a run can tell."""
        return self.children[0]._size()

    # --- the tree ---------------------------------------------------------------------------------------------------
    def _check_tree(self):
        seen = set()
        stack = [self]
        while stack:
            node = stack.pop()
            node.parent[:] = [ref for ref in node.parent if ref() is not None]
            if len(node.parent) > 1 or id(node) in seen:
                raise ValueError("The data pipeline is not a tree (i.e., one node has 2 consumers)")
            seen.add(id(node))
            stack.extend(node.children)

    def _clone(self):
        """A copy of this pipeline with fresh nodes (sources share their data, not their consumers)."""
        node = copy.copy(self)
        node.children = [child._clone() for child in self.children]
        node.parent = []
        node._meta = {}
        for child in node.children:
            child.parent.append(weakref.ref(node))
        return node

    def _walk(self):
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(node.children)

    def _first_row(self):
        self._check_tree()
        if "first" not in self._meta:
            gen = self._iter_rows(Context(self, quiet=True))
            try:
                self._meta["first"] = next(gen, None)
            finally:
                gen.close()
        row = self._meta["first"]
        return () if row is None else row  # an empty dataset has no column shapes or types to report ([])

    # --- pipeline operations ----------------------------------------------------------------------------------------
    def map(self, operations, input_columns=None, output_columns=None, num_parallel_workers=None, **kwargs):
        """`map(operations, input_columns=None, output_columns=None, num_parallel_workers=None, **kwargs)`."""
        from .ops import MapDataset
        allowed = {"python_multiprocessing", "max_rowsize", "cache", "callbacks", "offload", "column_order"}
        unknown = set(kwargs) - allowed
        if unknown:
            raise TypeError(f"For 'map', got unexpected keyword argument(s) {sorted(unknown)}.")
        if kwargs.get("column_order") is not None:
            raise TypeError("For 'map', 'column_order' was removed in MindSpore 2.x; use project() after map.")
        return MapDataset(self, operations, input_columns, output_columns, num_parallel_workers,
                          kwargs.get("python_multiprocessing", False), kwargs.get("max_rowsize"),
                          kwargs.get("cache"), kwargs.get("callbacks"), kwargs.get("offload"))

    def batch(self, batch_size, drop_remainder=False, num_parallel_workers=None, **kwargs):
        """`batch(batch_size, drop_remainder=False, num_parallel_workers=None, **kwargs)`; batch_size may be callable."""
        from .batch import BatchDataset
        allowed = {"per_batch_map", "input_columns", "output_columns", "python_multiprocessing", "max_rowsize"}
        unknown = set(kwargs) - allowed
        if unknown:
            raise TypeError(f"For 'batch', got unexpected keyword argument(s) {sorted(unknown)}.")
        return BatchDataset(self, batch_size, drop_remainder, num_parallel_workers, **kwargs)

    def padded_batch(self, batch_size, drop_remainder=False, num_parallel_workers=None, pad_info=None):
        """`padded_batch(batch_size, drop_remainder=False, num_parallel_workers=None, pad_info=None)`."""
        from .batch import BatchDataset
        return BatchDataset(self, batch_size, drop_remainder, num_parallel_workers,
                            pad_info=pad_info if pad_info is not None else {})

    def bucket_batch_by_length(self, column_names, bucket_boundaries, bucket_batch_sizes,
                               element_length_function=None, pad_info=None, pad_to_bucket_boundary=False,
                               drop_remainder=False):
        """Batch rows of similar length together: see `engine.bucket.BucketBatchByLengthDataset`."""
        from .bucket import BucketBatchByLengthDataset
        return BucketBatchByLengthDataset(self, column_names, bucket_boundaries, bucket_batch_sizes,
                                          element_length_function, pad_info, pad_to_bucket_boundary, drop_remainder)

    def save(self, file_name, num_files=1, file_type="mindrecord"):
        """`save(file_name, num_files=1, file_type='mindrecord')`: write the rows of one pass as MindRecord."""
        from .bucket import save
        save(self, file_name, num_files, file_type)

    def sync_wait(self, condition_name, num_batch=1, callback=None):
        """`sync_wait(condition_name, num_batch=1, callback=None)`: block after every `num_batch` batches until
        `sync_update(condition_name)` (see engine.sync_wait)."""
        from .sync_wait import SyncWaitDataset
        return SyncWaitDataset(self, condition_name, num_batch, callback)

    def sync_update(self, condition_name, num_batch=None, data=None):
        """`sync_update(condition_name, num_batch=None, data=None)`: release the `sync_wait` of that name."""
        from .sync_wait import find_sync_node
        find_sync_node(self, condition_name).update(num_batch, data)

    def shuffle(self, buffer_size):
        """`shuffle(buffer_size)`: a random order drawn through a buffer of `buffer_size` rows."""
        from .ops import ShuffleDataset
        return ShuffleDataset(self, buffer_size)

    def repeat(self, count=None):
        """`repeat(count=None)`: the child's rows `count` times (None or -1: forever)."""
        from .ops import RepeatDataset
        return RepeatDataset(self, count)

    def take(self, count=-1):
        """`take(count=-1)`: the first `count` rows (-1: all)."""
        from .ops import TakeDataset
        return TakeDataset(self, count)

    def skip(self, count):
        """`skip(count)`: all rows but the first `count`."""
        from .ops import SkipDataset
        return SkipDataset(self, count)

    def zip(self, datasets):
        """`zip(datasets)`: rows side by side, until the shortest dataset ends."""
        from .ops import ZipDataset
        if isinstance(datasets, Dataset):
            datasets = (datasets,)
        if not isinstance(datasets, (tuple, list)):
            raise TypeError(f"For 'zip', 'datasets' must be a Dataset or a tuple of Dataset, but got {type(datasets).__name__}.")
        return ZipDataset((self,) + tuple(datasets))

    def concat(self, datasets):
        """`concat(datasets)`: the rows of this dataset, then of each of `datasets` (also `a + b`)."""
        from .ops import ConcatDataset
        if isinstance(datasets, Dataset):
            datasets = [datasets]
        if not isinstance(datasets, (tuple, list)):
            raise TypeError(f"For 'concat', 'datasets' must be a Dataset or a list of Dataset, but got {type(datasets).__name__}.")
        return ConcatDataset([self] + list(datasets))

    def __add__(self, other):
        return self.concat(other)

    def project(self, columns):
        """`project(columns)`: keep only `columns`, in that order."""
        from .ops import ProjectDataset
        return ProjectDataset(self, names_list(columns, "columns", "project"))

    def rename(self, input_columns, output_columns):
        """`rename(input_columns, output_columns)`."""
        from .ops import RenameDataset
        return RenameDataset(self, names_list(input_columns, "input_columns", "rename"),
                             names_list(output_columns, "output_columns", "rename"))

    def filter(self, predicate, input_columns=None, num_parallel_workers=None):
        """`filter(predicate, input_columns=None, num_parallel_workers=None)`: keep rows where predicate(*cols) is True."""
        from .ops import FilterDataset
        return FilterDataset(self, predicate, input_columns, num_parallel_workers)

    def apply(self, apply_func):
        """`apply(apply_func)`: `apply_func(self)`, which must return a Dataset."""
        if not callable(apply_func):
            raise TypeError(f"For 'apply', 'apply_func' must be callable, but got {type(apply_func).__name__}.")
        result = apply_func(self)
        if not isinstance(result, Dataset):
            raise TypeError(f"For 'apply', 'apply_func' must return a Dataset, but got {type(result).__name__}.")
        return result

    def split(self, sizes, randomize=True):
        """`split(sizes, randomize=True)`: datasets of the given sizes (row counts, or fractions summing to 1)."""
        from .ops import ShuffleDataset
        n = self.get_dataset_size()
        sizes = _split_sizes(sizes, n)
        offsets = np.cumsum([0] + sizes)
        parts = []
        seed = int(np.random.default_rng().integers(2 ** 31))  # one order shared by every part
        for i, size in enumerate(sizes):
            node = self._clone()
            if randomize:
                node = ShuffleDataset(node, max(n, 2), fixed_seed=seed)
            parts.append(node.skip(int(offsets[i])).take(size))
        return parts

    # --- introspection ----------------------------------------------------------------------------------------------
    def get_col_names(self):
        """`get_col_names()`: the column names of the rows this dataset yields."""
        if "names" not in self._meta:
            self._meta["names"] = list(self._column_names())
        return list(self._meta["names"])

    def get_dataset_size(self):
        """`get_dataset_size()`: rows (batches, after batch) per epoch; -1 when the dataset repeats forever."""
        if "size" not in self._meta:
            self._check_tree()
            size = self._size()
            if size is None:
                gen = self._iter_rows(Context(self, quiet=True))
                size = sum(1 for _ in gen)
            self._meta["size"] = -1 if size == INFINITE else int(size)
        return self._meta["size"]

    def output_shapes(self, estimate=False):
        """`output_shapes(estimate=False)`: the shape of each column of the first row, e.g. [[16, 8], [16]]."""
        return [list(a.shape) for a in self._first_row()]

    def output_types(self):
        """`output_types()`: the numpy dtype of each column."""
        return [a.dtype for a in self._first_row()]

    def get_batch_size(self):
        """`get_batch_size()`: the batch size of the last batch op (1 without one)."""
        from .batch import BatchDataset
        for node in self._walk():
            if isinstance(node, BatchDataset):
                return node.batch_size if isinstance(node.batch_size, int) else -1
        return 1

    def get_repeat_count(self):
        """`get_repeat_count()`: the count of the last repeat op (1 without one)."""
        from .ops import RepeatDataset
        for node in self._walk():
            if isinstance(node, RepeatDataset):
                return node.count
        return 1

    def num_classes(self):
        """`num_classes()`: the number of classes of the source, where the source knows it (else None)."""
        for node in self._walk():
            count = getattr(node, "_class_count", None)
            if count is not None:
                return count()
        return None

    def reset(self):
        """`reset()`: forget what this pipeline learnt about its sources (sizes, shapes), e.g. after they changed."""
        for node in self._walk():
            node._meta = {}

    def to_json(self, filename=""):
        """`to_json(filename="")`: the pipeline as `ds.serialize` writes it (to `filename` when given)."""
        from .serializer import serialize
        return serialize(self, filename)

    # --- iteration --------------------------------------------------------------------------------------------------
    def create_tuple_iterator(self, columns=None, num_epochs=-1, output_numpy=False, do_copy=False):
        """`create_tuple_iterator(columns=None, num_epochs=-1, output_numpy=False, do_copy=False)`: lists of Tensors."""
        from .iterators import TupleIterator
        return TupleIterator(self, columns, num_epochs, output_numpy, do_copy)

    def create_dict_iterator(self, num_epochs=-1, output_numpy=False, do_copy=False):
        """`create_dict_iterator(num_epochs=-1, output_numpy=False, do_copy=False)`: dicts column → Tensor."""
        from .iterators import DictIterator
        return DictIterator(self, None, num_epochs, output_numpy, do_copy)

    def __iter__(self):
        return self.create_tuple_iterator(num_epochs=1)

    def __repr__(self):
        return f"<{type(self).__name__} columns={self._meta.get('names', '?')}>"


def _split_sizes(sizes, n):
    if not isinstance(sizes, (list, tuple)) or not sizes:
        raise TypeError(f"For 'split', 'sizes' must be a non-empty list of int or float, but got {sizes!r}.")
    if all(isinstance(s, int) and not isinstance(s, bool) for s in sizes):
        if any(s <= 0 for s in sizes):
            raise ValueError(f"For 'split', every size must be positive, but got {list(sizes)}.")
        if sum(sizes) != n:
            raise RuntimeError(f"For 'split', the sizes must add up to the dataset size {n}, but got {list(sizes)} "
                               f"(sum {sum(sizes)}).")
        return list(sizes)
    if all(isinstance(s, float) for s in sizes):
        if any(not 0 < s <= 1 for s in sizes) or not math.isclose(sum(sizes), 1.0, abs_tol=1e-6):
            raise ValueError(f"For 'split', fractions must be in (0, 1] and add up to 1, but got {list(sizes)}.")
        counts = [int(round(s * n)) for s in sizes]
        # put the rounding remainder on the first part that stays positive
        diff = n - sum(counts)
        for i in range(len(counts)):
            if counts[i] + diff > 0:
                counts[i] += diff
                break
        if any(c <= 0 for c in counts):
            raise RuntimeError(f"For 'split', the fractions {list(sizes)} give an empty part for a dataset of {n} rows.")
        return counts
    raise TypeError(f"For 'split', 'sizes' must be all int or all float, but got {list(sizes)}.")
