"""More MindSpore Primitive classes computed as composites (see composite_primitives.py for the pattern): the
scatter/segment reductions over TensorScatterMax/Min/Mul/Div, shifts, and the other classes whose functional
form openspore has.

>>> import numpy as np, openspore as ms
>>> x = ms.Tensor(np.array([1., 5., 2., 4.], np.float32))
>>> ms.ops.SegmentMax()(x, ms.Tensor([0, 0, 2, 2])).asnumpy().tolist()
[5.0, 0.0, 4.0]
>>> ms.ops.UnsortedSegmentProd()(x, ms.Tensor([1, 1, 0, 0]), 2).asnumpy().tolist()
[8.0, 5.0]
"""
import numpy as np

from ..common import dtype as mstype
from ..core.tensor import Tensor
from . import function as F
from .composite_primitives import _primitive, _PythonPrimitive

ScatterMax = _primitive("ScatterMax", lambda self, x, indices, updates: F.scatter_max(x, indices, updates),
                        attrs=[("use_locking", True)])
ScatterMin = _primitive("ScatterMin", lambda self, x, indices, updates: F.scatter_min(x, indices, updates),
                        attrs=[("use_locking", False)])
ScatterMul = _primitive("ScatterMul", lambda self, x, indices, updates: F.scatter_mul(x, indices, updates),
                        attrs=[("use_locking", False)])
ScatterDiv = _primitive("ScatterDiv", lambda self, x, indices, updates: F.scatter_div(x, indices, updates),
                        attrs=[("use_locking", False)])
ScatterSub = _primitive("ScatterSub", lambda self, x, indices, updates: F.scatter_add(x, indices, -updates),
                        attrs=[("use_locking", False)])
ScatterNdMax = _primitive("ScatterNdMax", lambda self, x, indices, updates: F.scatter_nd_max(x, indices, updates),
                          attrs=[("use_locking", False)])
ScatterNdMin = _primitive("ScatterNdMin", lambda self, x, indices, updates: F.scatter_nd_min(x, indices, updates),
                          attrs=[("use_locking", False)])
ScatterNdMul = _primitive("ScatterNdMul", lambda self, x, indices, updates: F.scatter_nd_mul(x, indices, updates),
                          attrs=[("use_locking", False)])
ScatterNdDiv = _primitive("ScatterNdDiv", lambda self, x, indices, updates: F.scatter_nd_div(x, indices, updates),
                          attrs=[("use_locking", False)])
ScatterNonAliasingAdd = _primitive("ScatterNonAliasingAdd",
                                   lambda self, x, indices, updates: F.scatter_nd_add(x, indices, updates))
ScatterAddWithAxis = _primitive(
    "ScatterAddWithAxis", lambda self, x, indices, updates: F.tensor_scatter_elements(x, indices, updates, self.axis,
                                                                                      "add"),
    attrs=[("axis", 0)], doc="ScatterAddWithAxis(axis=0)(input_x, indices, updates): updates added along `axis`.")
UnsortedSegmentMax = _primitive("UnsortedSegmentMax", lambda self, x, ids, n: F.unsorted_segment_max(x, ids, n))
UnsortedSegmentMin = _primitive("UnsortedSegmentMin", lambda self, x, ids, n: F.unsorted_segment_min(x, ids, n))
UnsortedSegmentProd = _primitive("UnsortedSegmentProd", lambda self, x, ids, n: F.unsorted_segment_prod(x, ids, n))


def _sorted_segments(reduce, empty_fill):
    """Segment ops over sorted, non-negative 1-D ids: segment_ids[-1] + 1 rows; rows without elements hold
    `empty_fill` (MindSpore's Segment* ops: 0, or 1 for the product). The ids must be concrete (MindSpore: "only
    constant values allowed")."""
    def call(self, x, segment_ids):
        ids = np.asarray(segment_ids.asnumpy() if isinstance(segment_ids, Tensor) else segment_ids)
        if ids.ndim != 1 or ids.shape[0] != x.shape[0]:
            raise ValueError(f"For '{self.name}', 'segment_ids' must be 1-D with length x.shape[0] = {x.shape[0]}, "
                             f"but got shape {list(ids.shape)}.")
        if ids.size and (ids.min() < 0 or np.any(np.diff(ids) < 0)):
            raise ValueError(f"For '{self.name}', 'segment_ids' must be non-negative and sorted ascending, "
                             f"but got {ids.tolist()}.")
        n = int(ids[-1]) + 1 if ids.size else 0
        out = reduce(x, Tensor(ids.astype(np.int64)), n)
        empty = np.bincount(ids, minlength=n) == 0
        if not empty.any():
            return out
        mask = Tensor(empty.reshape((n,) + (1,) * (len(x.shape) - 1)))
        return F.where(mask, F.full_like(out, empty_fill), out)
    return call


def _segment_mean(x, ids, n):
    total = F.unsorted_segment_sum(x, ids, n)
    count = F.unsorted_segment_sum(F.ones((x.shape[0],), mstype.float32), ids, n)
    count = F.reshape(F.maximum(count, 1.0), (n,) + (1,) * (len(x.shape) - 1))
    return F.cast(total / F.cast(count, total.dtype), x.dtype)


SegmentSum = _primitive("SegmentSum", _sorted_segments(F.unsorted_segment_sum, 0))
SegmentMean = _primitive("SegmentMean", _sorted_segments(_segment_mean, 0))
SegmentMax = _primitive("SegmentMax", _sorted_segments(F.unsorted_segment_max, 0))
SegmentMin = _primitive("SegmentMin", _sorted_segments(F.unsorted_segment_min, 0))
SegmentProd = _primitive("SegmentProd", _sorted_segments(F.unsorted_segment_prod, 1))
Mvlgamma = _primitive("Mvlgamma", lambda self, x: F.mvlgamma(x, self.p), attrs=[("p", 1)],
                      doc="Mvlgamma(p)(x): the multivariate log-gamma of dimension p.")

__all__ = sorted(n for n, v in list(globals().items())
                 if isinstance(v, type) and issubclass(v, _PythonPrimitive) and v is not _PythonPrimitive)
