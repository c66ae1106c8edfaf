"""The collecting `step_end` of a `SummaryCollector` in one straight pass (`FastCollection`).

A collection takes the loss, the learning rate, the input batch and the histogram weights and copies the arrays
into the summary writer's shared ring (`..summary._ring`). The general way (`SummaryCollector._collect`) finds each
of them afresh: a dozen helper calls, each checking what its value is, a numpy array made of the input batch, and
a numpy view made of the ring for the copy. Right after a training step, with the CPU's caches full of the step's
data, each of those costs the training thread microseconds: making one numpy array of a torch tensor, or one view
of the ring, ~10-25 us. At `collect_freq=1` they cost LeNet's training thread more than the copy itself.

Once a collection has gone the general way into the ring, the collector keeps what it found here: the histogram
weights' torch arrays and where their memory lies, the learning rate's host view, the input batch's shape and
dtype and the ring layout. Each later collection then checks in a few lines that all of it still holds and hands
the writer (place, source, bytes) of each weight (a bytes memoryview of its memory, made once: copied by slice
assignment, no ctypes call after the step) and of the batch (its address: one `ctypes.memmove`), each copied
from the torch array's memory to its place, in the same locked pass that posts the "collection" message
(`SharedRing.collect`). No torch `copy_`, no numpy array, no view of the ring: a `copy_` cost ~1.5 us more per
array after a training step, and a view made for each new place in the ring ~40 us, which a writer lagging behind
made at nearly every collection. Where the writer process can read this process's memory and the batches are new
arrays of the dataset's batch operation (`fresh_batches`), the batch is not copied at all: the ring holds the
batch's torch array and the message names its address, and the writer process reads it from here when it packs
the collection (`..summary._pull`); on LeNet that was 128 KiB of the 160 KiB copied, out of the caches after the
step (~30 us). The files are byte for byte what the general way writes. The weights' storages
are held (`_pins`), so their memory outlives any change made to an array behind the collector's back. Anything
else (a summary op's value waiting, a weight's array replaced, a Cell attribute changed, another batch shape, a
batch not contiguous, the writer not ready or the ring full, a loss that is not a 0-d array, a backend other than
torch on the CPU) makes `__call__` return False having done nothing, and the collector goes the general way.

    >>> FastCollection.make(collector=None, record=None, layout=None) is None
    True
"""
from ... import backends
from ...common.generations import CHANGES
from ...ops.defs.summary import cache_has_values
from ...train.summary._pull import bytes_at

# collections posted the straight way in this process (tests check that it runs). Not a class attribute: writing
# one changes the class's version tag, so every attribute read of a FastCollection in the next collection missed
# the interpreter's specialised caches (measured warm: a method reading three slots and one such write 714 ns a
# call, 230 ns with this list instead)
POSTED = [0]


class FastCollection:
    """What a collection needs, found by the general way and checked each time (see the module docstring)."""

    __slots__ = ("_collector", "_record", "_writer", "_layout", "_weights", "_arrays", "_metric", "_lr_tensor",
                 "_lr_data", "_lr_value", "_generation", "_image", "_image_shape", "_image_nbytes", "_dtype",
                 "_sources", "_pins", "_pull_layout", "_pull_sources")

    @classmethod
    def make(cls, collector, record, layout, dataset=None):
        """A `FastCollection` for what `collector` just posted with `layout`, or None where its values do not allow
        the straight pass (a learning-rate schedule, weights not on the host as torch arrays, no layout).
        `dataset`: the training dataset; where its batches are new arrays nothing writes into later (a batch
        operation of its own), the writer process may read the input batch from here (`post_straight`'s
        `pulled`)."""
        if collector is None or layout is None or getattr(backends.current(), "name", None) != "torch" or \
                str(getattr(backends.current(), "device", "cpu")) != "cpu":
            return None  # (a batch on the CPU is then a CPU torch array: its memory is this process's)
        import torch  # the torch backend is in use: torch is imported already
        weights = collector._histogram_params or []
        arrays = [view.tensor._data for view in weights]
        if any(type(a) is not torch.Tensor or a.is_cuda or not a.is_contiguous() for a in arrays):
            return None  # a device array, or one whose memory is not one block: the general way
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
        entries = layout.entries[image:]
        if any(a.numel() * a.element_size() != _nbytes(entry, layout.dtype) for a, entry in zip(arrays, entries)):
            return None
        self = cls()
        self._collector, self._record, self._writer, self._layout = collector, record, record._summary, layout
        self._weights, self._arrays = weights, arrays
        self._metric = metric
        # a fixed rate: its tensor, the torch array it had (held: its memory stays valid) and a typed memoryview of
        # that memory, read at each collection (`float()` of a numpy view of it cost ~3 us after a training step,
        # a ctypes float's `value` more than the memoryview's item)
        self._lr_tensor = self._lr_data = self._lr_value = self._generation = None
        if has_lr:
            lr = source[2]._data
            code = {torch.float32: "f", torch.float64: "d"}.get(lr.dtype)
            if type(lr) is not torch.Tensor or code is None or lr.is_cuda or lr.dim():
                return None
            self._lr_tensor, self._lr_data, self._generation = source[2].tensor, lr, source[1]
            self._lr_value = bytes_at(lr.data_ptr(), lr.element_size()).cast(code)
        self._image = image
        self._image_shape = layout.entries[0][3] if image else None
        self._image_nbytes = _nbytes(layout.entries[0], layout.dtype) if image else 0
        self._dtype = dtype
        # (place in the collection, a bytes memoryview of its memory, bytes) of each weight (`SharedRing.collect`'s
        # copies: no ctypes call); its storage held, so that the memory stays valid
        self._sources = tuple((entry[4], bytes_at(a.data_ptr(), a.numel() * a.element_size()),
                               a.numel() * a.element_size()) for a, entry in zip(arrays, entries))
        self._pins = [a.untyped_storage() for a in arrays]
        self._pull_layout = self._pull_sources = None
        if image and arrays and fresh_batches(dataset):
            # the same arrays, the batch read by the writer process instead of copied: the weights start at 0
            self._pull_layout = layout.with_first_pulled()
            self._pull_sources = tuple((entry[4], view, nbytes) for entry, (_, view, nbytes)
                                       in zip(self._pull_layout.entries[1:], self._sources))
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
            loss = float(data.item())  # (`float(data)` goes a longer way, through torch, to the same value)
            scalars.append(loss)
        if self._lr_value is not None:
            if CHANGES[0] != self._generation or self._lr_tensor._data is not self._lr_data:
                return False  # an optimizer attribute set, or its rate's array replaced: found afresh
            scalars.append(self._lr_value[0])
        copies, pulled = self._sources, None
        if self._image:
            element = cb["train_dataset_element"]
            first = element[0] if type(element) is tuple or type(element) is list else element
            batch = getattr(first, "_data", None)
            # torch's own attributes: a batch of another shape or dtype, or not one block of memory, goes the
            # general way
            if getattr(batch, "shape", None) != self._image_shape or batch.dtype != self._dtype or \
                    not batch.is_contiguous():
                return False
            address = batch.data_ptr()
            copies = ((0, address, self._image_nbytes),) + copies  # (`batch` keeps it alive meanwhile)
            if self._pull_layout is not None:
                pulled = (self._pull_layout, self._pull_sources, address, batch)
        for view, array in zip(self._weights, self._arrays):
            if view.tensor._data is not array:  # `set_data` gave it another array
                return False
        posted = self._writer.post_straight(step, self._layout, scalars, copies, pulled)
        if posted:
            POSTED[0] += 1
            if self._metric:
                self._collector._last_loss = loss
        return posted


def fresh_batches(dataset):
    """Whether `dataset`'s batches are arrays made for each batch that nothing writes into afterwards: a batch
    operation's (`np.array` of the rows, or padded), not one whose `per_batch_map` returns arrays of its own."""
    from ...dataset.engine.batch import BatchDataset  # (the collector runs in Model.train: the dataset is loaded)
    return type(dataset) is BatchDataset and dataset.per_batch_map is None


def _nbytes(entry, dtype):
    """Bytes of a layout entry's array: (plugin, tag, dtype, shape, place)."""
    count = 1
    for size in entry[3]:
        count *= size
    return count * dtype.itemsize
