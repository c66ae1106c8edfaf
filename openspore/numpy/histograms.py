"""`mindspore.numpy` histograms: histogram_bin_edges, histogram, histogram2d, histogramdd, on openspore ops.

Each value's bin is a `searchsorted` into the edges (the last bin also holds its right edge, values outside
the edges are dropped) and the counts a segment sum, so the shapes depend only on the number of bins. Counts
are float32, as MindSpore returns them; edges from a number of bins are float32, given edges keep their
dtype.

>>> import openspore.numpy as mnp
>>> hist, edges = mnp.histogram(mnp.array([1.0, 2.0, 1.0, 4.0, 5.0]), bins=2)
>>> hist.asnumpy().tolist(), edges.asnumpy().tolist()
([3.0, 2.0], [1.0, 3.0, 5.0])
"""
import numpy as onp

from ..common import dtype as mstype
from ..core.tensor import Tensor
from .. import ops
from .array_creations import asarray

__all__ = ["histogram_bin_edges", "histogram", "histogram2d", "histogramdd"]


def _as(x):
    return x if isinstance(x, Tensor) else asarray(x)


def _edges(name, x, bins, range_):
    """Bin edges of the values x (1-D) from a number of bins, or the given increasing edges."""
    if isinstance(bins, str):
        raise NotImplementedError(f"For 'mindspore.numpy.{name}', string values of bins ({bins!r}) are not "
                                  "supported; pass a number of bins or the edges.")
    if not isinstance(bins, int):
        edges = _as(bins)
        if len(edges.shape) != 1:
            raise ValueError(f"For 'mindspore.numpy.{name}', bins must be an int or a 1-D sequence of edges, but "
                             f"got shape {edges.shape}.")
        if not bool(ops.all(ops.diff(ops.cast(edges, mstype.float32)) >= 0).asnumpy()):
            raise ValueError(f"For 'mindspore.numpy.{name}', bins must increase monotonically.")
        return edges
    if bins < 0:
        raise ValueError(f"For 'mindspore.numpy.{name}', bins must be non-negative, but got {bins}.")
    xf = ops.cast(x, mstype.float32)
    if range_ is None:
        if xf.shape[0] == 0:
            lo, hi = Tensor(onp.float32(0.0)), Tensor(onp.float32(1.0))
        else:
            lo, hi = ops.amin(xf), ops.amax(xf)
    else:
        if range_[1] < range_[0]:
            raise ValueError(f"For 'mindspore.numpy.{name}', max must be larger than min in range, but got "
                             f"{tuple(range_)}.")
        lo, hi = Tensor(onp.float32(range_[0])), Tensor(onp.float32(range_[1]))
    same = lo == hi
    # a single value gets the unit-wide bins [v - 0.5, v + 0.5], as NumPy does
    lo, hi = ops.where(same, lo - 0.5, lo), ops.where(same, hi + 0.5, hi)
    steps = Tensor(onp.arange(bins + 1, dtype=onp.float32) / max(bins, 1))
    return lo + (hi - lo) * steps


def _bin_index(x, edges):
    """Each value's bin (0 .. nbins-1) and whether it falls inside the edges."""
    e = ops.cast(edges, mstype.float32)
    xf = ops.cast(x, mstype.float32)
    n = e.shape[0] - 1
    idx = ops.searchsorted(e, xf, side="right") - 1
    idx = ops.where(xf == e[n], ops.full_like(idx, n - 1), idx)
    inside = ops.logical_and(xf >= e[0], xf <= e[n])
    return ops.clamp(idx, 0, max(n - 1, 0)), inside


def _weights(name, weights, n):
    if weights is None:
        return ops.ones((n,), mstype.float32)
    w = ops.reshape(ops.cast(_as(weights), mstype.float32), (-1,))
    if w.shape[0] != n:
        raise ValueError(f"For 'mindspore.numpy.{name}', weights must have one entry per sample ({n}), but got "
                         f"{w.shape[0]}.")
    return w


def histogram_bin_edges(a, bins=10, range=None, weights=None):  # noqa: A002 (NumPy's name)
    """The edges histogram() would use."""
    return _edges("histogram_bin_edges", ops.reshape(_as(a), (-1,)), bins, range)


def _count(name, columns, bins_per_dim, range_per_dim, weights, density):
    n = columns[0].shape[0]
    edges = [_edges(name, c, b, r) for c, b, r in zip(columns, bins_per_dim, range_per_dim)]
    sizes = [e.shape[0] - 1 for e in edges]
    flat = ops.zeros((n,), mstype.int32)
    keep = ops.ones((n,), mstype.bool_)
    for c, e, size in zip(columns, edges, sizes):
        idx, inside = _bin_index(c, e)
        flat = flat * size + ops.cast(idx, mstype.int32)
        keep = ops.logical_and(keep, inside)
    w = ops.where(keep, _weights(name, weights, n), ops.zeros((n,), mstype.float32))
    total = int(onp.prod(sizes))
    hist = ops.unsorted_segment_sum(w, flat, total) if total else ops.zeros((0,), mstype.float32)
    hist = ops.reshape(hist, tuple(sizes))
    if density:
        volume = None
        for axis, e in enumerate(edges):
            width = ops.diff(ops.cast(e, mstype.float32))
            shape = tuple(-1 if i == axis else 1 for i in builtins_range(len(edges)))
            width = ops.reshape(width, shape)
            volume = width if volume is None else volume * width
        hist = hist / (ops.sum(hist) * volume)
    return hist, edges


builtins_range = range  # the histogram functions take a parameter named `range`


def histogram(a, bins=10, range=None, weights=None, density=False):  # noqa: A002 (NumPy's name)
    """(counts, edges) of the flattened input over `bins` equal bins in `range` (data min..max by default) or
    over the given edges; `density` scales the counts to integrate to 1."""
    x = ops.reshape(_as(a), (-1,))
    hist, edges = _count("histogram", [x], [bins], [range], weights, density)
    return hist, edges[0]


def _sample_columns(sample):
    if isinstance(sample, (list, tuple)):
        return [ops.reshape(_as(c), (-1,)) for c in sample]
    s = _as(sample)
    if len(s.shape) != 2:
        raise ValueError("For 'mindspore.numpy.histogramdd', a sample given as one array must be 2-D (N points × "
                         f"D coordinates), but got shape {s.shape}.")
    return list(ops.unbind(s, 1))


def histogramdd(sample, bins=10, range=None, weights=None, density=False):  # noqa: A002 (NumPy's name)
    """(counts of shape bins, list of per-dimension edges) of N points in D dimensions (an (N, D) array or D
    sequences)."""
    columns = _sample_columns(sample)
    d = len(columns)
    per_dim = [bins] * d if isinstance(bins, int) else list(bins)
    if len(per_dim) != d:
        raise ValueError(f"For 'mindspore.numpy.histogramdd', bins must have one entry per sample dimension ({d}), "
                         f"but got {len(per_dim)}.")
    ranges = [None] * d if range is None else list(range)
    if len(ranges) != d:
        raise ValueError(f"For 'mindspore.numpy.histogramdd', range must have one entry per sample dimension "
                         f"({d}), but got {len(ranges)}.")
    return _count("histogramdd", columns, per_dim, ranges, weights, density)


def histogram2d(x, y, bins=10, range=None, weights=None, density=False):  # noqa: A002 (NumPy's name)
    """(counts, x edges, y edges) of the points (x[i], y[i])."""
    if not isinstance(bins, int) and len(bins) not in (1, 2):
        bins = [bins, bins]  # one sequence of edges, used for both axes (NumPy's rule)
    hist, edges = histogramdd([x, y], bins, range, weights, density)
    return hist, edges[0], edges[1]
