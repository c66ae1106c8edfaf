"""How a Tensor's repr lays out its values, as MindSpore 2.x prints them (checked against MindSpore 2.10):

* floats as `% .8e` (float16 as `% .4e`), integers right-aligned to a common width, booleans as True/False;
* a vector stays on the header line, 12 items a line (24 for integers), longer than 1000 summarised as
  `first 3 ... last 3`;
* in rank >= 2 every axis longer than 6 is summarised to its first and last 3 entries (`...` inside a row, a `...`
  line between rows or blocks), rows are never wrapped, and blocks follow each other without blank lines.

>>> import numpy as np
>>> print(format_values(np.arange(14, dtype=np.int32).reshape(2, 7)))
[[ 0,  1,  2 ...  4,  5,  6],
 [ 7,  8,  9 ... 11, 12, 13]]
>>> format_values(np.array([0.5, -1.0], np.float32))
'[ 5.00000000e-01, -1.00000000e+00]'
"""
import numpy as np

EDGE = 3               # entries kept at each end of a summarised axis
MATRIX_AXIS_LIMIT = 6  # in rank >= 2, an axis longer than this is summarised
VECTOR_LIMIT = 1000    # a vector longer than this is summarised


def _kept(size, summarise):
    if summarise:
        return list(range(EDGE)), list(range(size - EDGE, size))
    return list(range(size)), []


def _item_formatter(arr):
    kind = arr.dtype.kind
    if kind == "b":
        return lambda v: f"{'True' if v else 'False':>5}"
    if kind in "iu":
        width = max((len(str(v)) for v in arr.ravel()), default=1)
        return lambda v: f"{int(v):>{width}}"
    if kind == "c":
        return lambda v: f"{v}"
    spec = " .4e" if arr.dtype == np.float16 else " .8e"
    return lambda v: format(float(v), spec)


def _shown(arr):
    """The entries that will be printed (for the common integer width)."""
    summarise_vector = arr.ndim == 1 and arr.size > VECTOR_LIMIT
    for axis in range(arr.ndim):
        size = arr.shape[axis]
        if (arr.ndim >= 2 and size > MATRIX_AXIS_LIMIT) or summarise_vector:
            head, tail = _kept(size, True)
            arr = np.take(arr, head + tail, axis=axis)
    return arr


def format_values(arr, sep=", "):
    """The bracketed value part of a Tensor's repr for a numpy array of rank >= 1. `sep` goes between items (a
    graph's Print separates them by a space, with no comma at the ends of rows)."""
    fmt = _item_formatter(_shown(arr))
    per_line = 24 if arr.dtype.kind in "iu" else 12

    def row(vec, summarise):
        head, tail = _kept(vec.shape[0], summarise)
        if tail:
            return ("[" + sep.join(fmt(vec[i]) for i in head) + " ... "
                    + sep.join(fmt(vec[i]) for i in tail) + "]")
        items = [fmt(vec[i]) for i in head]
        lines = [sep.join(items[k:k + per_line]) for k in range(0, len(items), per_line)]
        return "[" + (sep + "\n ").join(lines) + "]"

    def block(sub, depth):
        if sub.ndim == 1:
            return row(sub, sub.shape[0] > (MATRIX_AXIS_LIMIT if arr.ndim >= 2 else VECTOR_LIMIT))
        head, tail = _kept(sub.shape[0], sub.shape[0] > MATRIX_AXIS_LIMIT)
        indent = " " * (depth + 1)
        parts = [block(sub[i], depth + 1) for i in head]
        if tail:
            parts = parts + ["..."] + [block(sub[i], depth + 1) for i in tail]
        text = ""
        for k, part in enumerate(parts):
            if k:
                text += ("\n" if parts[k - 1] == "..." else sep.rstrip() + "\n") + indent
            text += part
        return "[" + text + "]"

    return block(arr, 0)
