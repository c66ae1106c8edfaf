"""Values to `Summary.Value` protobufs, encoded as MindSpore 2.10 encodes them (fact sheet §3.4).

    >>> import numpy as np
    >>> v = pack_value("histogram", "w", np.arange(12, dtype=np.float32))
    >>> [(b.left, b.width, b.count) for b in v.histogram.buckets]
    [(0.0, 5.5, 6), (5.5, 5.5, 6)]
    >>> pack_value("scalar", "loss", np.float32(0.5)).scalar_value
    0.5
"""
import struct
import zlib

import numpy as np

from . import anf_ir_pb2, summary_pb2

try:  # ISA-L's deflate: a fifth of zlib's CPU for a PNG about as small; zlib where isal is missing
    from isal.isal_zlib import compress as _isal_compress, crc32 as _crc32  # ISA-L's CRC-32: a third of zlib's

    def _deflate(data):
        return _isal_compress(data, 2)
except ImportError:  # pragma: no cover - isal is a base dependency; a bare install still writes files
    from zlib import crc32 as _crc32

    def _deflate(data):
        return zlib.compress(data, 1)

_DT = {np.dtype(np.bool_): "DT_BOOL", np.dtype(np.int8): "DT_INT8", np.dtype(np.int16): "DT_INT16",
       np.dtype(np.int32): "DT_INT32", np.dtype(np.int64): "DT_INT64", np.dtype(np.uint8): "DT_UINT8",
       np.dtype(np.uint16): "DT_UINT16", np.dtype(np.uint32): "DT_UINT32", np.dtype(np.uint64): "DT_UINT64",
       np.dtype(np.float16): "DT_FLOAT16", np.dtype(np.float32): "DT_FLOAT32", np.dtype(np.float64): "DT_FLOAT64"}


def pack_value(plugin, tag, array):
    """A `Summary.Value` for one of the data plugins ('scalar', 'image', 'histogram', 'tensor')."""
    value = summary_pb2.Summary.Value(tag=tag)
    array = np.asarray(array)
    if plugin == "scalar":
        value.scalar_value = float(np.float32(array.reshape(-1)[0]))
    elif plugin == "tensor":
        fill_tensor(value.tensor, array)
    elif plugin == "histogram":
        fill_histogram(value.histogram, array)
    elif plugin == "image":
        value.image.height, value.image.width, value.image.encoded_image = _image_png(array)
        value.image.colorspace = 3
    else:
        raise ValueError(f"pack_value: unknown plugin {plugin!r}")
    return value


def fill_tensor(proto, array):
    """TensorProto with dims, data_type from the dtype, and every element in float_data (as MindSpore does)."""
    dtype = _DT.get(array.dtype)
    if dtype is None:
        raise TypeError(f"summary tensor: dtype {array.dtype} cannot be recorded (bool, ints, floats only)")
    proto.dims.extend(int(d) for d in array.shape)
    proto.data_type = anf_ir_pb2.DataType.Value(dtype)
    proto.float_data.extend(array.astype(np.float32).reshape(-1).tolist())


def histogram_bins(valid):
    if valid == 0:
        return 1
    if valid <= 5:
        return 2
    if valid <= 10:
        return 3
    if valid <= 880:
        return valid // 10 + 1
    return 90


def fill_histogram(proto, array):
    flat = array.reshape(-1)
    proto.count = int(flat.size)
    finite = flat
    if flat.dtype.kind == "f":
        ok = np.isfinite(flat)
        if ok.all():  # the usual case: one pass instead of three
            proto.nan_count = proto.pos_inf_count = proto.neg_inf_count = 0
        else:
            nan, pos = int(np.isnan(flat).sum()), int(np.isposinf(flat).sum())
            proto.nan_count, proto.pos_inf_count = nan, pos
            proto.neg_inf_count = int(flat.size - ok.sum()) - nan - pos
            finite = flat[ok]
    bins = histogram_bins(finite.size)
    if finite.size == 0:
        return
    lo, hi = finite.min(), finite.max()
    proto.min, proto.max, proto.sum = float(lo), float(hi), float(finite.astype(np.float64).sum())
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    edges = np.linspace(lo, hi, bins + 1).astype(finite.dtype if finite.dtype.kind == "f" else np.float64)
    counts = np.bincount(_bin_index(finite, edges), minlength=bins)
    proto.MergeFromString(_bucket_bytes(edges, counts))


def _bucket_bytes(edges, counts):
    """The `buckets` field (number 1) of a Histogram as protobuf wire bytes, built with numpy instead of one
    `buckets.add` per bucket (a tenth of the CPU for 90 buckets): see `bucket_records`.

    >>> h = summary_pb2.Summary.Histogram()
    >>> size = h.ParseFromString(_bucket_bytes(np.array([0.0, 0.5, 1.0]), np.array([3, 300])))
    >>> [(b.left, b.width, b.count) for b in h.buckets]
    [(0.0, 0.5, 3), (0.5, 0.5, 300)]
    """
    left = edges[:-1].astype("<f8")
    return bucket_records(left, edges[1:].astype("<f8") - left, counts)[0]


def bucket_records(left, width, counts):
    """Buckets as protobuf wire bytes, and the length of each one's bytes (an int array; all 22 below 128 values a
    bucket). Each bucket is `0x0A len | 0x09 left (double) | 0x11 width (double) | 0x18 count (varint)`: proto2
    required fields, written in field order as protobuf writes them, so the serialized Event is the same bytes."""
    n = counts.size
    left, width = np.asarray(left, "<f8"), np.asarray(width, "<f8")
    groups = max(1, (int(counts.max()).bit_length() + 6) // 7)  # 7-bit varint groups of the largest count
    record = np.empty((n, 21 + groups), np.uint8)
    record[:, 0] = 0x0A
    record[:, 2] = 0x09
    record[:, 3:11] = left.view(np.uint8).reshape(n, 8)
    record[:, 11] = 0x11
    record[:, 12:20] = width.view(np.uint8).reshape(n, 8)
    record[:, 20] = 0x18
    if groups == 1:  # every count below 128: one byte each, the usual case below 128 values a bucket
        record[:, 1] = 20
        record[:, 21] = counts
        return record.tobytes(), np.full(n, 22, np.intp)
    counts = counts.astype(np.uint64)
    length = np.ones(n, np.intp)  # bytes of each count's varint
    for k in range(1, groups):
        length += counts >= np.uint64(1 << (7 * k))
    record[:, 1] = 19 + length
    for k in range(groups):
        group = ((counts >> np.uint64(7 * k)) & np.uint64(0x7F)).astype(np.uint8)
        group[k + 1 < length] |= 0x80
        record[:, 21 + k] = group
    return record[np.arange(21 + groups) < (21 + length)[:, None]].tobytes(), 21 + length


def _bin_index(values, edges):
    """np.histogram's bin of each value (bins [e_i, e_i+1), the last one closed) for equal-width `edges`, as numpy
    computes it: by arithmetic, then one step down or up where a rounded edge says otherwise. No sort, no binary
    search."""
    bins = edges.size - 1
    x = values if values.dtype == np.float64 else values.astype(np.float64)
    first, last = float(edges[0]), float(edges[-1])
    index = ((x - first) * (bins / (last - first))).astype(np.intp)
    np.minimum(index, bins - 1, out=index)  # np.clip's checks cost more than the clipping of a small array
    np.maximum(index, 0, out=index)
    index -= values < edges[index]
    index += (values >= edges[index + 1]) & (index != bins - 1)
    return index


def image_canvas(array):
    """NCHW (C 1 or 3) → one HWC uint8 canvas: the N images tiled 8 to a row, values scaled as MindSpore does
    (a gray image repeated to 3 channels)."""
    tiles = _tiles(array)
    return np.repeat(tiles, 3, axis=2) if tiles.shape[2] == 1 else tiles


def _image_png(array):
    """(height, width, PNG bytes) of the canvas of an NCHW batch. A gray batch is tiled and Up-filtered with one
    byte per pixel, and only the PNG rows repeat it to RGB (the filter commutes with that): the RGB transpose
    and filter were half the CPU of a LeNet input batch. Same pixels as `png_bytes(image_canvas(array))`."""
    tiles = _tiles(array)
    h, w, channels = tiles.shape
    if channels == 3:
        return h, w, png_bytes(tiles)
    gray = tiles.reshape(h, w)
    rows = np.empty((h, 1 + 3 * w), np.uint8)
    rows[:, 0] = 2  # filter type Up
    up = np.empty((h, w), np.uint8)
    up[0] = gray[0]
    np.subtract(gray[1:], gray[:-1], out=up[1:])
    rgb = rows[:, 1:].reshape(h, w, 3)
    for c in range(3):  # three strided stores: a tenth of np.repeat's time on the last axis
        rgb[:, :, c] = up
    return h, w, _png(rows, w, h)


def _tiles(array):
    """NCHW → (rows·H, cols·W, C) uint8: scaled as MindSpore scales, tiled 8 images to a row."""
    if array.ndim != 4 or array.shape[1] not in (1, 3):
        raise ValueError(f"summary image: expected NCHW with 1 or 3 channels, got shape {list(array.shape)}")
    if array.dtype != np.uint8:
        x = array.astype(np.float64)
        lo, hi = x.min(), x.max()
        if lo >= 0 and hi <= 1:
            x *= 255
        elif hi != lo:
            x -= lo
            x *= 255
            x /= hi - lo + 1
        else:
            x -= lo
        array = x.astype(np.uint8)
    n, channels, h, w = array.shape
    cols = min(n, 8)
    rows = -(-n // 8)
    if rows * cols != n:  # a last row with fewer than 8 images: pad it with black ones
        array = np.concatenate([array, np.zeros((rows * cols - n,) + array.shape[1:], np.uint8)])
    # (rows, cols, C, h, w) -> (rows, h, cols, w, C): one copy instead of a loop over the images
    return array.reshape(rows, cols, channels, h, w).transpose(0, 3, 1, 4, 2).reshape(rows * h, cols * w, channels)


def png_bytes(hwc):
    """An RGB HWC uint8 image as PNG: 8-bit RGB, every row with the "Up" filter (its difference to the row above,
    one numpy subtraction), deflated by ISA-L (zlib's fastest level without it). A fraction of OpenCV's CPU for a
    file about as small, and the writer process need not import OpenCV (a tenth of a second of its start).

    >>> import io; from PIL import Image
    >>> rgb = np.arange(24, dtype=np.uint8).reshape(2, 4, 3)
    >>> bool((np.asarray(Image.open(io.BytesIO(png_bytes(rgb)))) == rgb).all())
    True
    """
    if hwc.dtype != np.uint8 or hwc.ndim != 3 or hwc.shape[2] != 3:
        raise ValueError(f"summary image: expected an HWC uint8 RGB canvas, got {hwc.dtype} {list(hwc.shape)}")
    h, w, _ = hwc.shape
    flat = hwc.reshape(h, 3 * w)
    rows = np.empty((h, 1 + 3 * w), np.uint8)
    rows[:, 0] = 2  # filter type Up
    rows[0, 1:] = flat[0]  # the row above the first is zeros
    np.subtract(flat[1:], flat[:-1], out=rows[1:, 1:])  # modulo 256, as the filter is defined
    return _png(rows, w, h)


def _png(rows, w, h):
    """PNG bytes of filtered 8-bit RGB rows (each row: its filter byte, then 3·w bytes)."""
    header = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)  # width, height, bit depth 8, RGB, deflate, adaptive, no interlace
    return b"".join((b"\x89PNG\r\n\x1a\n", _png_chunk(b"IHDR", header),
                     _png_chunk(b"IDAT", _deflate(memoryview(rows).cast("B"))), _png_chunk(b"IEND", b"")))


def _png_chunk(kind, data):
    return b"".join((struct.pack(">I", len(data)), kind, data, struct.pack(">I", _crc32(data, _crc32(kind)))))
