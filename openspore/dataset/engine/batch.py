"""`batch` / `padded_batch`: rows stacked into batches, optionally through `per_batch_map`."""
import collections
import itertools

import numpy as np

from .checks import INT32_MAX, check_interval, check_max_rowsize, check_num_parallel_workers
from .datasets import Dataset
from .ops import _row_error, op_name, run_rows
from .pyobjects import batch_dicts
from .rows import INFINITE, check_columns_exist, names_list, to_array
from .workers import TaskError, make_pool


class BatchInfo:
    """What a callable batch_size or per_batch_map learns about the batch being built."""

    def __init__(self, batch_num, epoch_num):
        self._batch_num, self._epoch_num = batch_num, epoch_num

    def get_batch_num(self):
        """The batch's number in the current epoch, from 0."""
        return self._batch_num

    def get_epoch_num(self):
        """The current epoch's number, from 0."""
        return self._epoch_num


def _pad_dtype_and_value(values, value):
    """The padded batch's dtype and fill: strings and bytes widen to hold every row and the pad value (whose
    default is the empty string there, 0 elsewhere); numbers keep the first row's dtype."""
    kind = values[0].dtype.kind
    if kind not in "US":
        return values[0].dtype, 0 if value is None else value
    if value is None:
        value = ""
    if kind == "U" and isinstance(value, bytes):
        value = value.decode("utf-8")
    elif kind == "S" and isinstance(value, str):
        value = value.encode("utf-8")
    per_char = 4 if kind == "U" else 1
    width = max([v.dtype.itemsize // per_char for v in values] + [len(value), 1])
    return np.dtype(f"{kind}{width}"), value


def stack(values, column, pad=None):
    """Stack one column's values; `pad` = (shape or None, value) pads each value at the end first. Dicts are
    batched key by key."""
    if isinstance(values[0], dict):
        return batch_dicts(values, column)
    try:
        shapes = [v.shape for v in values]
    except AttributeError:  # a dict among arrays: a column is all dicts or all arrays
        kinds = sorted({"dict" if isinstance(v, dict) else type(v).__name__ for v in values})
        raise RuntimeError(f"For 'batch', the rows of column '{column}' mix kinds {kinds}: a column holds arrays "
                           f"in every row, or dicts in every row.") from None
    if pad is not None:
        target, value = pad
        ndim = len(shapes[0])
        if any(len(s) != ndim for s in shapes):
            raise RuntimeError(f"For 'padded_batch', column '{column}' has rows of different ranks: {shapes}.")
        widest = tuple(max(s[d] for s in shapes) for d in range(ndim))
        target = widest if target is None else tuple(w if t is None else t for t, w in zip(target, widest))
        dtype, value = _pad_dtype_and_value(values, value)
        out = np.full((len(values),) + target, value, dtype=dtype)
        for i, v in enumerate(values):  # a row longer than the pad shape is cut to it, as MindSpore's is
            kept = tuple(slice(0, min(d, t)) for d, t in zip(v.shape, target))
            out[(i,) + kept] = v[kept]
        return out
    first = shapes[0]
    for s in shapes:
        if s != first:
            raise RuntimeError(f"Inconsistent batch shapes, batch operation expects same shape for each data row, but "
                               f"got inconsistent shape in column '{column}', expected shape for this column is: "
                               f"{list(first)}, got shape: {list(s)}.")
    # np.array stacks equal-shaped arrays as np.stack does (same result dtype), at a fraction of its per-call cost
    return np.array(values)


class _PerBatch:
    """Runs per_batch_map on one batch's input columns (in this process or in a worker)."""

    def __init__(self, func, out_names):
        self.func = func
        self.out_names = out_names

    def __call__(self, payload):
        batch_num, epoch_num, columns = payload
        try:
            out = self.func(*columns, BatchInfo(batch_num, epoch_num))
        except Exception as exc:  # noqa: BLE001
            raise TaskError(op_name(self.func), exc) from exc
        out = out if isinstance(out, tuple) else (out,)
        result = []
        rows = len(columns[0]) if columns else None
        for name, col in zip(self.out_names, out):
            if isinstance(col, list):
                if rows is not None and len(col) != rows:  # a list is one entry per row (an array is taken whole)
                    raise RuntimeError(f"Invalid data, column: {name} expects: {rows} rows returned from "
                                       f"'per_batch_map', got: {len(col)}")
                col = stack([to_array(v, "batch") for v in col], name)
            result.append(to_array(col, "batch"))
        if len(out) != len(self.out_names):
            raise RuntimeError(f"Invalid per_batch_map, the number of columns returned in 'per_batch_map' function "
                               f"should be {len(self.out_names)} , but got: {len(out)} (output_columns: "
                               f"{self.out_names}).")
        return tuple(result)


class BatchDataset(Dataset):
    def __init__(self, child, batch_size, drop_remainder=False, num_parallel_workers=None, per_batch_map=None,
                 input_columns=None, output_columns=None, python_multiprocessing=False, max_rowsize=None,
                 pad_info=None):
        if not callable(batch_size):
            if isinstance(batch_size, bool) or not isinstance(batch_size, int):
                raise TypeError("batch_size should either be an int or a callable.")
            check_interval(batch_size, 1, INT32_MAX, "batch_size")
        check_num_parallel_workers(num_parallel_workers)
        if not isinstance(drop_remainder, bool):
            raise TypeError(f"For 'batch', 'drop_remainder' must be a bool, but got {drop_remainder!r}.")
        if per_batch_map is not None and not callable(per_batch_map):
            raise TypeError(f"For 'batch', 'per_batch_map' must be callable, but got {type(per_batch_map).__name__}.")
        if pad_info is not None and not isinstance(pad_info, dict):
            raise TypeError(f"For 'padded_batch', 'pad_info' must be a dict, but got {type(pad_info).__name__}.")
        super().__init__([child], num_parallel_workers)
        self.batch_size, self.drop_remainder = batch_size, drop_remainder
        self.per_batch_map = per_batch_map
        self.input_columns = names_list(input_columns, "input_columns", "batch")
        self.output_columns = names_list(output_columns, "output_columns", "batch")
        self.python_multiprocessing = bool(python_multiprocessing)
        self.max_rowsize = check_max_rowsize(max_rowsize)
        self.pad_info = pad_info

    def _layout(self):
        child_cols = self.children[0].get_col_names()
        if self.per_batch_map is None:
            return child_cols, [], [], child_cols
        in_cols = self.input_columns or child_cols
        check_columns_exist(in_cols, child_cols, "batch")
        out_cols = self.output_columns or in_cols
        if len(in_cols) == len(out_cols):
            names = list(child_cols)
            for i, o in zip(in_cols, out_cols):
                names[child_cols.index(i)] = o
        else:
            names = list(out_cols) + [c for c in child_cols if c not in in_cols]
        return child_cols, in_cols, out_cols, names

    def _column_names(self):
        return self._layout()[3]

    def _size(self):
        n = self.children[0]._size()
        if n is None or callable(self.batch_size):
            return None
        if n == INFINITE:
            return n
        return n // self.batch_size if self.drop_remainder else -(-n // self.batch_size)

    def _groups(self, ctx):
        rows = self.children[0]._iter_rows(ctx)
        batch_num = 0
        while True:
            size = self.batch_size
            if callable(size):
                size = size(BatchInfo(batch_num, ctx.epoch))
                if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 1:
                    raise ValueError(f"For 'batch', the batch_size callable must return a positive int, but got {size!r}.")
            group = list(itertools.islice(rows, size))
            if not group or (len(group) < size and self.drop_remainder):
                return
            yield batch_num, group
            batch_num += 1

    def _stack_columns(self, group, names, indices):
        pads = self.pad_info
        out = []
        for i in indices:
            name = names[i]
            pad = None
            if pads is not None:
                pad = pads.get(name, (None, None)) if not pads else pads.get(name)
            out.append(stack([row[i] for row in group], name, pad))
        return out

    def _iter_rows(self, ctx):
        child_cols, in_cols, out_cols, names = self._layout()
        if self.pad_info:
            check_columns_exist(list(self.pad_info), child_cols, "padded_batch")
        if self.per_batch_map is None:
            all_idx = list(range(len(child_cols)))
            for _, group in self._groups(ctx):
                yield tuple(self._stack_columns(group, child_cols, all_idx))
            return
        stray = [c for c in out_cols if c in child_cols and c not in in_cols]
        if stray:
            raise RuntimeError("Invalid output_columns, columns that are not involved in 'per_batch_map' should not "
                               f"be in output_columns, but got columns that are not in input_columns: {stray}, "
                               f"output_columns: {out_cols}.")
        in_idx = [child_cols.index(c) for c in in_cols]
        rest_idx = [i for i, c in enumerate(child_cols) if c not in in_cols]
        fn = _PerBatch(self.per_batch_map, out_cols)
        on_error = _row_error("batch", "per_batch_map", in_cols)
        pool = make_pool(fn, self.num_parallel_workers, self.python_multiprocessing, on_error,
                         (ctx.key(self), ctx.next_pass(self)), self.max_rowsize)
        groups = collections.deque()

        def payloads():
            for batch_num, group in self._groups(ctx):
                groups.append(group)
                yield batch_num, ctx.epoch, [[row[i] for row in group] for i in in_idx]

        for out in run_rows(fn, payloads(), pool, on_error):
            group = groups.popleft()
            rest = self._stack_columns(group, child_cols, rest_idx)
            if len(in_cols) == len(out_cols):  # outputs take the inputs' places
                full = [None] * len(child_cols)
                for j, i in enumerate(in_idx):
                    full[i] = out[j]
                for value, i in zip(rest, rest_idx):
                    full[i] = value
                yield tuple(full)
            else:
                yield tuple(out) + tuple(rest)
