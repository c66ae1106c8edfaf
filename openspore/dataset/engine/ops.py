"""Pipeline nodes: map, shuffle, repeat, take, skip, zip, concat, project, rename, filter."""
import collections
import functools
import itertools
import time
import types

import numpy as np

from .. import config
from . import autotune, profiling
from .callbacks import CallbackRunner, check_callbacks
from .checks import INT32_MAX, check_interval, check_max_rowsize, check_num_parallel_workers, check_type
from .datasets import Dataset
from .rows import INFINITE, check_columns_exist, names_list, to_array
from .workers import TaskError, describe_failure, make_pool

# MindSpore's sentence for a map whose operations return the wrong number of columns (scripts match on it)
_COUNT_RULE = "the number of columns returned in 'map' operations should match the number of 'output_columns'."


def op_name(op):
    """How an operation is named in errors: the function's qualified name, or the transform's class name."""
    if isinstance(op, functools.partial):
        op = op.func
    if isinstance(op, (types.FunctionType, types.BuiltinFunctionType, types.MethodType)):
        return op.__qualname__
    return type(op).__name__


class _ApplyOps:
    """Runs a map's operations on one row's input columns (in this process or in a worker).

    With `timed`, the seconds each operation took ride back as one extra float64 column, so figures from worker
    processes reach the consumer through the same channel as the rows."""

    def __init__(self, operations, where="map", timed=False):
        self.operations = operations
        self.where = where
        self.timed = timed
        self.hooks = tuple(config._state["debug_hooks"]) if config.get_debug_mode() else ()
        self._plain = not timed and not self.hooks

    def __call__(self, args):
        if self._plain:  # the per-row hot path: no timing, no hooks
            for op in self.operations:
                try:
                    out = op(*args)
                except Exception as exc:  # noqa: BLE001 - re-raised with the operation's name
                    raise TaskError(op_name(op), exc) from exc
                args = out if isinstance(out, tuple) else (out,)
            return tuple([to_array(a, self.where) for a in args])
        hooks = self.hooks
        times = [] if self.timed else None
        for op in self.operations:
            start = time.perf_counter() if self.timed else 0.0
            try:
                out = op(*args)
            except Exception as exc:  # noqa: BLE001 - re-raised with the operation's name
                raise TaskError(op_name(op), exc) from exc
            if self.timed:
                times.append(time.perf_counter() - start)
            new_args = out if isinstance(out, tuple) else (out,)
            for hook in hooks:
                hook(op, args, new_args)
            args = new_args
        result = tuple(to_array(a, self.where) for a in args)
        return result + (np.array(times, dtype=np.float64),) if self.timed else result


def _row_error(where, what, in_cols):
    def on_error(row_index, failed_op, summary, tb):
        op_text = f"operation '{failed_op}'" if failed_op else what
        detail = f"\n{tb}" if tb else ""
        return RuntimeError(f"For '{where}', {op_text} failed on row {row_index} of its input (input columns "
                            f"{in_cols}): {summary}{detail}")
    return on_error


def run_rows(fn, payloads, pool, on_error):
    """fn(payload) for each payload, in order: through the pool when there is one, else inline."""
    if pool is not None:
        yield from pool.imap(payloads)
        return
    for i, payload in enumerate(payloads):
        try:
            result = fn(payload)
        except Exception as exc:  # noqa: BLE001
            raise on_error(i, *describe_failure(exc)) from exc
        yield result


class MapDataset(Dataset):
    """Applies `operations` to `input_columns` of every row."""

    def __init__(self, child, operations, input_columns, output_columns, num_parallel_workers,
                 python_multiprocessing, max_rowsize, cache, callbacks, offload):
        super().__init__([child], num_parallel_workers, cache)
        ops = list(operations) if isinstance(operations, (list, tuple)) else [operations]
        if not ops:
            raise ValueError("For 'map', 'operations' must not be empty.")
        for op in ops:
            if not callable(op):
                raise TypeError(f"For 'map', each operation must be callable, but got {type(op).__name__}.")
        check_num_parallel_workers(num_parallel_workers)
        self.operations = ops
        self.input_columns = names_list(input_columns, "input_columns", "map")
        self.output_columns = names_list(output_columns, "output_columns", "map")
        self.python_multiprocessing = bool(python_multiprocessing)
        self.max_rowsize = check_max_rowsize(max_rowsize)
        self.callbacks = check_callbacks(callbacks)
        self.offload = offload

    def _layout(self):
        child_cols = self.children[0].get_col_names()
        in_cols = self.input_columns or child_cols[:1]
        check_columns_exist(in_cols, child_cols, "map")
        out_cols = self.output_columns or in_cols
        if len(in_cols) == len(out_cols):  # same count: the outputs take the inputs' places
            names = list(child_cols)
            for i, o in zip(in_cols, out_cols):
                names[child_cols.index(i)] = o
        else:  # otherwise the outputs go first, then the untouched columns
            names = list(out_cols) + [c for c in child_cols if c not in in_cols]
        if len(set(names)) != len(names):
            raise ValueError(f"For 'map', the output columns {out_cols} clash with existing columns {child_cols}.")
        return child_cols, in_cols, out_cols, names

    def _column_names(self):
        return self._layout()[3]

    def _runtime_operations(self):
        """The operations as run: fusable image runs merged (not in debug mode, where hooks see every op)."""
        if config.get_enable_fusion() and not config.get_debug_mode():
            from ..vision.fused import fuse_operations
            return fuse_operations(self.operations)
        return self.operations

    def _iter_rows(self, ctx):
        if self.callbacks and not ctx.quiet:
            return self._called_back_rows(ctx)
        if self.cache is not None:
            from ..cache.pipeline import cached_rows
            return cached_rows(self, ctx, self._map_rows)
        return self._map_rows(ctx)

    def _called_back_rows(self, ctx):
        runner = ctx.callback_runners.setdefault(id(self), CallbackRunner(self.callbacks))
        runner.start_epoch()
        if self.cache is not None:
            from ..cache.pipeline import cached_rows
            rows = cached_rows(self, ctx, self._map_rows)
        else:
            rows = self._map_rows(ctx)
        yield from runner.drain(rows)

    def _map_rows(self, ctx):
        child_cols, in_cols, out_cols, names = self._layout()
        in_idx = [child_cols.index(c) for c in in_cols]
        key, pass_no = ctx.key(self), ctx.next_pass(self)
        operations = self._runtime_operations()
        timed = config.get_enable_op_timing()
        fn = _ApplyOps(operations, timed=timed)
        stats = profiling.MapStats(self, operations) if timed else None
        on_error = _row_error("map", "an operation", in_cols)
        same = len(in_cols) == len(out_cols)
        rest_idx = [i for i, c in enumerate(child_cols) if c not in in_cols]
        rows = self.children[0]._iter_rows(ctx)
        if self.callbacks and not ctx.quiet:
            rows = ctx.callback_runners[id(self)].feed(rows)
        pending = collections.deque()  # rows whose inputs are in flight, to rebuild the full rows in order

        def payloads():
            for row in rows:
                pending.append(row)
                yield tuple(row[i] for i in in_idx)

        def rebuild(out):
            row = pending.popleft()
            if timed:
                stats.add(out[-1])
                out = out[:-1]
            if len(out) != len(out_cols):
                raise RuntimeError(f"For 'map', the operations returned {len(out)} column(s) but 'output_columns' "
                                   f"has {len(out_cols)}: {out_cols}; {_COUNT_RULE}")
            if same:
                new = list(row)
                for j, i in enumerate(in_idx):
                    new[i] = out[j]
                return tuple(new)
            return tuple(out) + tuple(row[i] for i in rest_idx)

        workers, processes, done = self.num_parallel_workers, self.python_multiprocessing, 0
        if workers is None and not processes and all(getattr(op, "_native", False) for op in operations):
            # OpenCV kernels release the GIL: threads run them in parallel, as MindSpore runs its C++ ops
            workers = config.get_num_parallel_workers()
        source = payloads()
        if workers is None and config.get_enable_autotune() and not config.get_debug_mode():
            # measure the first rows inline, then size the pool from their cost: the median row, timed around the
            # operations alone, so that neither the consumer's work nor one preempted row on a busy machine counts
            costs = []
            for payload in itertools.islice(source, autotune.PROBE_ROWS):
                start = time.perf_counter()
                try:
                    out = fn(payload)
                except Exception as exc:  # noqa: BLE001
                    raise on_error(done, *describe_failure(exc)) from exc
                costs.append(time.perf_counter() - start)
                done += 1
                yield rebuild(out)
            median = sorted(costs)[len(costs) // 2] if costs else 0.0
            workers, processes = autotune.choose(self, done, median * done)
        offset_error = on_error if not done else (lambda i, *rest: on_error(i + done, *rest))
        pool = make_pool(fn, workers, processes, offset_error, (key, pass_no), self.max_rowsize)
        if pool is None and not timed:
            yield from self._inline_rows(rows, fn, in_idx, rest_idx, same, len(out_cols), out_cols, done, on_error)
            return
        for out in run_rows(fn, source, pool, offset_error):
            yield rebuild(out)
        if stats is not None:
            stats.finish()

    @staticmethod
    def _inline_one_op(rows, op, i, out_cols, done, on_error):
        """The commonest map, one operation on one column, without the general loop's per-row bookkeeping."""
        k = done
        for row in rows:
            try:
                out = op(row[i])
            except Exception as exc:  # noqa: BLE001
                raise on_error(k, *describe_failure(TaskError(op_name(op), exc))) from exc
            if type(out) is tuple:
                if len(out) != 1:
                    raise RuntimeError(f"For 'map', the operations returned {len(out)} column(s) but "
                                       f"'output_columns' has 1: {out_cols}; {_COUNT_RULE}")
                out = out[0]
            k += 1
            if type(row) is not tuple:  # every node yields tuples; a list from elsewhere still rebuilds right
                row = tuple(row)
            yield row[:i] + (to_array(out, "map"),) + row[i + 1:]

    @staticmethod
    def _inline_rows(rows, fn, in_idx, rest_idx, same, n_out, out_cols, done, on_error):
        """The rows mapped in this process: one loop, no payload queue, the row rebuilt in place."""
        if fn._plain and len(fn.operations) == 1 and len(in_idx) == 1 and n_out == 1 and same:
            yield from MapDataset._inline_one_op(rows, fn.operations[0], in_idx[0], out_cols, done, on_error)
            return
        k = done
        for row in rows:
            try:
                out = fn(tuple([row[i] for i in in_idx]))
            except Exception as exc:  # noqa: BLE001
                raise on_error(k, *describe_failure(exc)) from exc
            k += 1
            if len(out) != n_out:
                raise RuntimeError(f"For 'map', the operations returned {len(out)} column(s) but 'output_columns' "
                                   f"has {n_out}: {out_cols}; {_COUNT_RULE}")
            if same:
                new = list(row)
                for j, i in enumerate(in_idx):
                    new[i] = out[j]
                yield tuple(new)
            else:
                yield out + tuple([row[i] for i in rest_idx])


class ShuffleDataset(Dataset):
    """Shuffles through a buffer: each output row is drawn at random from the next `buffer_size` rows."""

    def __init__(self, child, buffer_size, fixed_seed=None):
        check_type(buffer_size, (int,), "buffer_size")
        check_interval(buffer_size, 2, INT32_MAX, "buffer_size")
        super().__init__([child])
        self.buffer_size = buffer_size
        self.fixed_seed = fixed_seed

    def _iter_rows(self, ctx):
        rng = np.random.default_rng(self.fixed_seed) if self.fixed_seed is not None else ctx.rng(self)
        buffer = []
        for row in self.children[0]._iter_rows(ctx):
            if len(buffer) < self.buffer_size:
                buffer.append(row)
                continue
            j = int(rng.integers(len(buffer)))
            buffer[j], row = row, buffer[j]
            yield row
        for j in rng.permutation(len(buffer)):
            yield buffer[j]


class RepeatDataset(Dataset):
    def __init__(self, child, count):
        if count is None:
            count = -1
        if isinstance(count, bool) or not isinstance(count, int):
            raise TypeError(f"Argument repeat with value {count} is not of type [<class 'int'>, <class 'NoneType'>], "
                            f"but got {type(count)}.")
        if (count <= 0 and count != -1) or count > INT32_MAX:
            raise ValueError("count should be either -1 or positive integer, range[1, INT32_MAX].")
        super().__init__([child])
        self.count = count

    def _size(self):
        n = self.children[0]._size()
        if self.count == -1:
            return 0 if n == 0 else INFINITE
        return None if n is None else n * self.count

    def _iter_rows(self, ctx):
        repeats = itertools.count() if self.count == -1 else range(self.count)
        for _ in repeats:
            produced = False
            for row in self.children[0]._iter_rows(ctx):
                produced = True
                yield row
            if not produced:  # an empty child repeated forever would spin
                return


class TakeDataset(Dataset):
    def __init__(self, child, count):
        check_type(count, (int,), "count")
        if (count <= 0 and count != -1) or count > INT32_MAX:
            raise ValueError(f"count should be either -1 or within the required interval of (0, {INT32_MAX}], "
                             f"got {count}.")
        super().__init__([child])
        self.count = count

    def _size(self):
        n = self.children[0]._size()
        if self.count == -1:
            return n
        return None if n is None else min(n, self.count)

    def _iter_rows(self, ctx):
        rows = self.children[0]._iter_rows(ctx)
        yield from rows if self.count == -1 else itertools.islice(rows, self.count)


class SkipDataset(Dataset):
    def __init__(self, child, count):
        check_type(count, (int,), "count")
        check_interval(count, 0, INT32_MAX, "count")
        super().__init__([child])
        self.count = count

    def _size(self):
        n = self.children[0]._size()
        return None if n is None else max(0, n - self.count)

    def _iter_rows(self, ctx):
        yield from itertools.islice(self.children[0]._iter_rows(ctx), self.count, None)


class ZipDataset(Dataset):
    def __init__(self, datasets):
        for d in datasets:
            if not isinstance(d, Dataset):
                raise TypeError(f"For 'zip', every element must be a Dataset, but got {type(d).__name__}.")
        super().__init__(datasets)

    def _column_names(self):
        names = []
        for child in self.children:
            for c in child.get_col_names():
                if c in names:
                    raise ValueError(f"For 'zip', column names must be unique across the zipped datasets, but "
                                     f"'{c}' appears twice; rename it first.")
                names.append(c)
        return names

    def _size(self):
        sizes = [c._size() for c in self.children]
        return None if any(s is None for s in sizes) else min(sizes)

    def _iter_rows(self, ctx):
        self.get_col_names()
        for parts in zip(*(c._iter_rows(ctx) for c in self.children)):
            yield tuple(itertools.chain.from_iterable(parts))


def _dtype_name(col):
    dtype = np.asarray(col).dtype
    return "string" if dtype.kind in "USO" else str(dtype)  # strings of any length are one type


def _same_types_and_ranks(rows):
    """Pass `rows` through, raising MindSpore's RuntimeError when a row's column dtype or rank differs from the
    first row's (concatenated datasets must agree on both)."""
    first = None
    for row in rows:
        kinds = [(_dtype_name(col), np.ndim(col)) for col in row]
        if first is None:
            first = kinds
        else:
            for (dtype0, rank0), (dtype, rank) in zip(first, kinds):
                if dtype != dtype0:
                    raise RuntimeError("Concat: the data types of the two datasets to be concatenated should be "
                                       f"the same, but got: {dtype0} and {dtype}.")
                if rank != rank0:
                    raise RuntimeError("Concat: the data tensor rank of the two datasets to be concatenated should "
                                       f"be the same, but got: {rank0} and {rank}.")
        yield row


class ConcatDataset(Dataset):
    def __init__(self, datasets):
        for d in datasets:
            if not isinstance(d, Dataset):
                raise TypeError(f"For 'concat', every element must be a Dataset, but got {type(d).__name__}.")
        super().__init__(datasets)

    def _column_names(self):
        names = self.children[0].get_col_names()
        for child in self.children[1:]:
            if child.get_col_names() != names:
                # MindSpore reports this when the pipeline runs, as a RuntimeError
                raise RuntimeError("Invalid columns, 'column name' or 'column order' of concat datasets should be "
                                   f"the same, but got {names} and {child.get_col_names()}.")
        return names

    _sampler = None

    def use_sampler(self, sampler):
        """`use_sampler(sampler)`: a DistributedSampler (shuffle=False) keeps the rows whose position in the
        concatenation is shard_id modulo num_shards (shards may differ by one row; none is repeated); a
        RandomSampler (no replacement) reads the concatenation in a random order."""
        from .batch import BatchDataset  # batch imports this module
        from .samplers import DistributedSampler, RandomSampler
        if sampler is None:
            raise TypeError("Sampler is None.")
        if isinstance(sampler, DistributedSampler):
            if sampler.shuffle:
                raise ValueError("The parameter shuffle of DistributedSampler must be False!")
            if sampler.num_samples is not None:
                raise ValueError("The parameter NumSamples of DistributedSampler is not support to be set!")
        elif isinstance(sampler, RandomSampler):
            if sampler.replacement:
                raise ValueError("The parameter replacement of RandomSampler must be False!")
            if sampler.num_samples is not None:
                raise ValueError("The parameter num_samples of RandomSampler is not support to be set!")
        else:
            raise TypeError(f"The parameter {sampler} of concat must be DistributedSampler or RandomSampler!")
        for child in self.children:
            if isinstance(child, BatchDataset):
                raise TypeError(f"The parameter {child} of concat must not be BatchDataset!")
        self._sampler = sampler
        self._meta = {}

    def _keeps(self, position):
        sampler = self._sampler
        return position % sampler.num_shards == sampler.shard_id

    def _size(self):
        sizes = [c._size() for c in self.children]
        if any(s is None for s in sizes):
            return None
        total = sum(sizes)
        if self._sampler is not None and hasattr(self._sampler, "num_shards"):
            return len(range(self._sampler.shard_id, total, self._sampler.num_shards))
        return total

    def _iter_rows(self, ctx):
        self.get_col_names()
        rows = _same_types_and_ranks(row for child in self.children for row in child._iter_rows(ctx))
        if self._sampler is None:
            yield from rows
        elif hasattr(self._sampler, "num_shards"):
            yield from (row for position, row in enumerate(rows) if self._keeps(position))
        else:
            every = list(rows)
            for k in ctx.rng(self).permutation(len(every)):
                yield every[k]


class ProjectDataset(Dataset):
    def __init__(self, child, columns):
        super().__init__([child])
        self.columns = columns
        check_columns_exist(columns, child.get_col_names(), "project")

    def _column_names(self):
        return list(self.columns)

    def _iter_rows(self, ctx):
        names = self.children[0].get_col_names()
        idx = [names.index(c) for c in self.columns]
        for row in self.children[0]._iter_rows(ctx):
            yield tuple(row[i] for i in idx)


class RenameDataset(Dataset):
    def __init__(self, child, input_columns, output_columns):
        if len(input_columns) != len(output_columns):
            raise ValueError(f"For 'rename', 'input_columns' and 'output_columns' must have the same length, but got "
                             f"{input_columns} and {output_columns}.")
        super().__init__([child])
        check_columns_exist(input_columns, child.get_col_names(), "rename")
        self.mapping = dict(zip(input_columns, output_columns))

    def _column_names(self):
        names = [self.mapping.get(c, c) for c in self.children[0].get_col_names()]
        if len(set(names)) != len(names):
            raise ValueError(f"For 'rename', the new names {names} contain duplicates.")
        return names

    def _iter_rows(self, ctx):
        yield from self.children[0]._iter_rows(ctx)


class FilterDataset(Dataset):
    def __init__(self, child, predicate, input_columns, num_parallel_workers):
        if not callable(predicate):
            raise TypeError(f"For 'filter', 'predicate' must be callable, but got {type(predicate).__name__}.")
        super().__init__([child], num_parallel_workers)
        self.predicate = predicate
        self.input_columns = names_list(input_columns, "input_columns", "filter")
        if self.input_columns:
            check_columns_exist(self.input_columns, child.get_col_names(), "filter")

    def _size(self):
        return None

    def _iter_rows(self, ctx):
        names = self.children[0].get_col_names()
        cols = self.input_columns or names
        idx = [names.index(c) for c in cols]
        for i, row in enumerate(self.children[0]._iter_rows(ctx)):
            try:
                keep = self.predicate(*(row[j] for j in idx))
            except Exception as exc:  # noqa: BLE001
                raise RuntimeError(f"For 'filter', predicate '{op_name(self.predicate)}' failed on row {i} of its "
                                   f"input (input columns {cols}): {type(exc).__name__}: {exc}") from exc
            keep = np.asarray(keep)
            if keep.size != 1 or keep.dtype.kind not in "biu":
                raise TypeError(f"For 'filter', the predicate must return a bool, but got {keep!r} on row {i}.")
            if bool(keep.reshape(())):
                yield row
