"""The collecting `step_end` of a `SummaryCollector` in one straight pass (`FastCollection`).

A collection takes the loss, the learning rate, the input batch and the histogram weights and copies the arrays
into the summary writer's shared ring (`..summary._ring`). The general way (`SummaryCollector._collect`) finds each
of them afresh: a dozen helper calls, each checking what its value is, a numpy array made of the input batch, and
a numpy view made of the ring for the copy. Right after a training step, with the CPU's caches full of the step's
data, each of those costs the training thread microseconds: making one numpy array of a torch tensor, or one view
of the ring, ~10-25 us. At `collect_freq=1` they cost LeNet's training thread more than the copy itself.

Once a collection has gone the general way into the ring, the collector keeps what it found here: the histogram
weights' torch arrays, the learning rate's host view, the input batch's shape and dtype, the ring layout, and, for
each place in the ring a collection has been copied to, torch views of it (a lap of the ring at most: LeNet's
collections take ~400 places in its 64 MiB). Each later collection then checks in a few lines that all of it still
holds, copies the batch and the weights with one `copy_` each from torch array to torch view (no numpy array made,
no view made once the ring has been round once) and posts the same "collection" message: the files are byte for
byte what the general way writes. Anything else (a summary op's value waiting, a weight's array replaced, a Cell
attribute changed, another batch shape, the writer not ready or the ring full, a loss that is not a 0-d array, a
backend other than torch) makes `__call__` return False having done nothing, and the collector goes the general way.

    >>> FastCollection.make(collector=None, record=None, layout=None) is None
    True
"""
from ... import backends
from ...common.generations import CHANGES
from ...ops.defs.summary import cache_has_values

_MAX_PLACES = 1024  # views kept for this many places in the ring (then made afresh): ~6 MB of objects at most


class FastCollection:
    """What a collection needs, found by the general way and checked each time (see the module docstring)."""

    __slots__ = ("_collector", "_record", "_writer", "_layout", "_weights", "_arrays", "_metric", "_lr_view",
                 "_generation", "_image", "_image_shape", "_dtype", "_spans", "_places",
                 "_places_ring")

    @classmethod
    def make(cls, collector, record, layout):
        """A `FastCollection` for what `collector` just posted with `layout`, or None where its values do not allow
        the straight pass (a learning-rate schedule, weights not on the host as torch arrays, no layout)."""
        if collector is None or layout is None or getattr(backends.current(), "name", None) != "torch":
            return None
        import torch  # the torch backend is in use: torch is imported already
        weights = collector._histogram_params or []
        arrays = [view.tensor._data for view in weights]
        if any(type(a) is not torch.Tensor or a.is_cuda or a.requires_grad for a in arrays):
            return None  # a device array, or one autograd watches (a copy would be recorded): the general way
        metric = "loss/auto" in layout.scalar_tags
        if metric != bool(collector.collect_specified_data["collect_metric"]):
            return None  # the network's output is not a loss the general way reads: it keeps checking
        source = collector._lr_source
        has_lr = "learning_rate/auto" in layout.scalar_tags
        if (source is None) == has_lr or (has_lr and (source[2] is None or source[2]._data is None)):
            return None  # a schedule (a callable or an array, read by a call each step), or no rate read at all
        image = len(layout.entries) > len(weights)
        if layout.dtype.kind not in "biuf" or (not image and not arrays):
            return None
        dtype = torch.from_numpy(layout.dtype.type(0).reshape(1)).dtype  # the torch dtype of the layout's
        if any(a.dtype != dtype for a in arrays):
            return None
        self = cls()
        self._collector, self._record, self._writer, self._layout = collector, record, record._summary, layout
        self._weights, self._arrays = weights, [None] * image + arrays
        self._metric = metric
        self._lr_view = source[2] if has_lr else None
        self._generation = source[1] if has_lr else None
        self._image = image
        self._image_shape = layout.entries[0][3] if image else None
        self._dtype = dtype
        itemsize = layout.dtype.itemsize
        self._spans = tuple((at // itemsize, shape) for _, _, _, shape, at in layout.entries)
        # offset -> views, this layout's entry of `_PLACES` (a lookup that hashes no tuple), and the ring they are of
        self._places, self._places_ring = {}, None
        return self

    def __call__(self, cb, step):
        """Collect `step` the straight way: True when posted, False (nothing done) when the general way must."""
        record = self._record
        if record._pending or record._errors or record._closed or cache_has_values():
            return False
        scalars = []
        if self._metric:
            outputs = cb["net_outputs"]
            if type(outputs) is tuple or type(outputs) is list:
                outputs = outputs[0] if outputs else None
            data = getattr(outputs, "_data", None)
            if getattr(data, "ndim", None) != 0:  # a batch of losses (the general way averages it), or no array
                return False
            loss = float(data)
            scalars.append(loss)
        lr_view = self._lr_view
        if lr_view is not None:
            if CHANGES[0] != self._generation or lr_view.tensor._data is not lr_view._data:
                return False  # an optimizer attribute set, or its rate's array replaced: found afresh
            scalars.append(float(lr_view._view))
        arrays = self._arrays
        if self._image:
            element = cb["train_dataset_element"]
            first = element[0] if type(element) is tuple or type(element) is list else element
            batch = getattr(first, "_data", None)
            # torch's own attributes: a batch of another shape or dtype, or one autograd watches, goes the general way
            if getattr(batch, "shape", None) != self._image_shape or batch.dtype != self._dtype or \
                    batch.requires_grad:
                return False
            arrays[0] = batch
        for view, array in zip(self._weights, arrays[self._image:]):
            if view.tensor._data is not array:  # `set_data` gave it another array
                return False
        posted = self._writer.post_collection(step, self._layout, scalars, arrays, self._copy)
        if self._image:
            arrays[0] = None  # the batch is not kept alive until the next collection
        if posted and self._metric:
            self._collector._last_loss = loss
        return posted

    def _copy(self, ring, offset, arrays):
        """Copy `arrays` into the ring at `offset` through the torch views kept for that place."""
        views = self._places.get(offset) if ring is self._places_ring else None
        if views is None:
            views = _views(ring, offset, self._spans, self._dtype)
            self._places, self._places_ring = _PLACES[(self._spans, self._dtype)], ring
        for view, array in zip(views, arrays):
            view.copy_(array)


# The views are kept for the process, not per collector: its ring (one per process, taken over by each new writer
# process) and its places outlive a training run, and a collector's first lap of the ring would otherwise make them
# all again (each place's views cost a collection ~30 us more once).
_RING = [None, {}]  # the ring the views are of; its flat torch arrays by dtype
_PLACES = {}  # (spans, dtype) -> {offset: the torch views of the arrays at that place}


def _views(ring, offset, spans, dtype):
    if ring is not _RING[0]:  # the first collection, or a writer process came with a new ring
        _RING[:] = [ring, {}]
        _PLACES.clear()
    flat = _RING[1].get(dtype)
    if flat is None:
        import torch
        from ..summary._ring import _HEADER
        itemsize = torch.empty((), dtype=dtype).element_size()
        flat = _RING[1][dtype] = torch.frombuffer(ring._map, dtype=dtype, offset=_HEADER,
                                                  count=ring._capacity // itemsize)
    places = _PLACES.setdefault((spans, dtype), {})
    if len(places) >= _MAX_PLACES:
        places.clear()
    start = flat.storage_offset() + offset // flat.element_size()
    # one `as_strided` per array (a slice and a view were two torch calls each, ~50 us a place with caches cold)
    views = places[offset] = [flat.as_strided(shape, _strides(shape), start + at) for at, shape in spans]
    return views


def _strides(shape):
    """The C-order strides (in elements) of `shape`."""
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= size
    return tuple(reversed(strides))
