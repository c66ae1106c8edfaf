"""One summary `Event` (a step's scalars, images, histograms, tensors) as the bytes protobuf would serialize.

The writer process packs an Event per collection. Building it as protobuf messages (a `Summary.Value` per value,
copied into the Event, the histogram buckets parsed back into objects, the PNG copied in and out) cost ~70 us of
the ~1.1 ms a LeNet collection took; here the wire bytes are joined directly: `Event` = wall_time (field 1,
double), step (2, varint), summary (5) = the values (field 1 each) = tag (1) and a scalar (3, float), image (4:
height 1, width 2, colorspace 3, PNG 4) or histogram (9, `_histograms.py`: all of a step's histograms together).
Proto2 fields in field order, set ones only, as protobuf writes them: the same bytes (tested against protobuf). A
tensor value, or a tag that is not a `str`, goes through protobuf (`_pack.pack_value`) and its bytes are joined in.

    >>> import numpy as np
    >>> from openspore.train.summary import summary_pb2
    >>> data = [("scalar", "loss", np.float32(0.5)), ("histogram", "w", np.arange(4.0))]
    >>> event_bytes(3, data, 1.0) == summary_pb2.Event(wall_time=1.0, step=3, summary=summary_pb2.Summary(
    ...     value=[pack_value(p, t, v) for p, t, v in data])).SerializeToString()
    True
"""
import logging
import operator
import struct
import time

import numpy as np

from ._histograms import histogram_bytes, varint as _varint
from ._pack import _image_png, pack_value

_WALL_TIME = struct.Struct("<Bd")
_SCALAR = struct.Struct("<Bf")  # the Value's scalar_value: field 3, 32-bit
_INT64 = 1 << 64


def event_bytes(step, data, wall_time=None):
    """One serialized `Event` for `step` holding `data`, a list of (plugin, tag, ndarray); None when nothing in it
    could be packed (MindSpore drops an unpackable value with an error log and keeps writing)."""
    return events_bytes([(step, data, wall_time)])[0]


def events_bytes(events):
    """`event_bytes` of each (step, data, wall_time) in `events`, in order; the histograms of all of them are
    computed together (their numpy calls' fixed cost, most of a small weight's histogram, is paid once)."""
    prepared, histograms = [], []
    for step, data, wall_time in events:
        wall_time = time.time() if wall_time is None else float(wall_time)
        step = operator.index(step)
        if not -(1 << 63) <= step < (1 << 63):
            raise ValueError(f"summary step {step} is out of the int64 range")
        arrays = []
        for plugin, tag, value in data:
            try:
                array = np.asarray(value)
            except (ValueError, TypeError) as exc:
                _dropped(plugin, tag, step, exc)
                array = None
            arrays.append(array)
            if plugin == "histogram" and array is not None and type(tag) is str:
                histograms.append(array)
        prepared.append((step, data, wall_time, arrays))
    histograms = iter(histogram_bytes(histograms) if histograms else ())
    return [_event(step, data, wall_time, arrays, histograms) for step, data, wall_time, arrays in prepared]


def _event(step, data, wall_time, arrays, histograms):
    values = []
    for (plugin, tag, _), array in zip(data, arrays):
        if array is None:
            continue
        try:
            if plugin == "histogram" and type(tag) is str:
                packed = next(histograms)
                if isinstance(packed, Exception):
                    raise packed
                value = b"".join((_tag(tag), b"\x4a", _varint(len(packed)), packed))
            elif plugin == "scalar" and type(tag) is str:
                value = _tag(tag) + _SCALAR.pack(0x1D, float(np.float32(array.reshape(-1)[0])))
            elif plugin == "image" and type(tag) is str:
                height, width, png = _image_png(array)
                image = b"".join((b"\x08", _varint(height), b"\x10", _varint(width), b"\x18\x03\x22",
                                  _varint(len(png)), png))
                value = b"".join((_tag(tag), b"\x22", _varint(len(image)), image))
            else:  # a tensor (or an unknown plugin: pack_value says so)
                value = pack_value(plugin, tag, array).SerializeToString()
        except (ValueError, TypeError) as exc:
            _dropped(plugin, tag, step, exc)
            continue
        values.append(b"\x0a" + _varint(len(value)))
        values.append(value)
    if not values:
        return None
    summary = b"".join(values)
    return b"".join((_WALL_TIME.pack(0x09, wall_time), b"\x10", _varint(step % _INT64), b"\x2a",
                     _varint(len(summary)), summary))


def _dropped(plugin, tag, step, exc):
    logging.getLogger("openspore.summary").error("summary %s %r at step %d dropped: %s", plugin, tag, step, exc)


def _tag(tag):
    encoded = tag.encode()
    return b"\x0a" + _varint(len(encoded)) + encoded
