"""Summary primitives: `ScalarSummary`, `ImageSummary`, `TensorSummary`, `HistogramSummary`.

`op(name, value)` inside `construct` (PyNative or GRAPH_MODE) hands a host copy of `value` to the summary cache
under `"<name>[:Scalar]"` (`[:Image]`, `[:Tensor]`, `[:Histogram]`), as MindSpore keys it; the next
`SummaryRecord.record()` takes the cached values and writes them under the bare name. The cache fills only while
a SummaryRecord is open (otherwise the ops do nothing but check their input). Each op returns a (1,) int32 zero,
as MindSpore's summary ops do; they are side effects, so compiled graphs keep them.

    >>> import numpy as np, openspore as ms
    >>> from openspore.ops.defs import summary
    >>> summary.open_cache()
    >>> _ = ms.ops.ScalarSummary()("loss", ms.Tensor(np.float32(0.5)))
    >>> summary.take_cache()
    [('loss[:Scalar]', array(0.5, dtype=float32))]
    >>> summary.close_cache()
"""
import threading

import numpy as np

from ...common import dtype as mstype
from ...core.primitive import AbstractTensor, Primitive, Sample, register
from ._export import not_exportable
from ._util import check_tensor, rand_float

_lock = threading.Lock()
_cache = {"open": 0, "items": []}


def open_cache():
    """A SummaryRecord opened: from now on summary ops keep their values."""
    with _lock:
        _cache["open"] += 1


def close_cache():
    with _lock:
        _cache["open"] = max(0, _cache["open"] - 1)
        if not _cache["open"]:
            _cache["items"] = []


def take_cache():
    """The (key, numpy value) pairs cached since the last take, in call order; empties the cache."""
    with _lock:
        items, _cache["items"] = _cache["items"], []
    return items


def cache_has_values():
    """Whether summary ops cached values since the last take (a cheap check for every training step)."""
    return bool(_cache["items"])


def _put(key, value):
    if _cache["open"]:
        with _lock:
            _cache["items"].append((key, value))


_NONDIFF = "a summary output: it records a value for the dashboard and computes nothing to differentiate"


class _Summary(Primitive):
    input_names = ("name", "value")
    side_effect = True  # recording is the point: never dropped, merged or reordered
    differentiable = False
    nondiff_reason = _NONDIFF
    suffix = ""

    def _check_value(self, value):
        if len(value.shape) == 0:
            raise ValueError(f"For '{self.name}', the rank of 'value' must be greater than 0, but got 0.")

    def infer(self, name, value):
        if not isinstance(name, str) or not name:
            raise ValueError(f"For '{self.name}', the 'name' must be a non-empty str, but got {name!r}.")
        check_tensor(self.name, "value", value)
        self._check_value(value)
        return AbstractTensor((1,), mstype.int32)

    def numpy(self, np_, name, value):
        _put(f"{name}[:{self.suffix}]", np.array(value, copy=True))
        return np.zeros((1,), np.int32)

    def torch(self, torch, name, value):
        _put(f"{name}[:{self.suffix}]", value.detach().to("cpu").numpy().copy())
        return torch.zeros((1,), dtype=torch.int32, device=value.device)

    @classmethod
    def samples(cls, rng):
        yield Sample("w", rand_float(rng, (3, 4)))


@register
class ScalarSummary(_Summary):
    """ScalarSummary()(name, value): record a size-1 tensor as scalar `name` at the next SummaryRecord.record()."""
    suffix = "Scalar"

    def _check_value(self, value):
        if len(value.shape) > 1 or int(np.prod(value.shape)) != 1:
            raise ValueError(f"For '{self.name}', the 'value' must hold one element (rank 0 or 1), but got shape "
                             f"{list(value.shape)}.")

    @classmethod
    def samples(cls, rng):
        yield Sample("loss", rand_float(rng, ()))
        yield Sample("lr", rand_float(rng, (1,)), name="rank1")


@register
class ImageSummary(_Summary):
    """ImageSummary()(name, value): record an NCHW batch of images as image `name`."""
    suffix = "Image"

    def _check_value(self, value):
        if len(value.shape) != 4:
            raise ValueError(f"For '{self.name}', the 'value' must be an NCHW image batch of rank 4, but got shape "
                             f"{list(value.shape)}.")

    @classmethod
    def samples(cls, rng):
        yield Sample("img", rand_float(rng, (2, 3, 4, 5), 0.0, 1.0))


@register
class TensorSummary(_Summary):
    """TensorSummary()(name, value): record a tensor (rank > 0) as tensor `name`."""
    suffix = "Tensor"


@register
class HistogramSummary(_Summary):
    """HistogramSummary()(name, value): record a tensor (rank > 0) as the histogram `name`."""
    suffix = "Histogram"


not_exportable("a summary output for the dashboard: inference files hold the computation, not the recording",
               ScalarSummary, ImageSummary, TensorSummary, HistogramSummary)
