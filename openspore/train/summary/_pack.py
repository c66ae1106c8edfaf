"""Values to `Summary.Value` protobufs, encoded as MindSpore 2.10 encodes them (fact sheet §3.4).

    >>> import numpy as np
    >>> v = pack_value("histogram", "w", np.arange(12, dtype=np.float32))
    >>> [(b.left, b.width, b.count) for b in v.histogram.buckets]
    [(0.0, 5.5, 6), (5.5, 5.5, 6)]
    >>> pack_value("scalar", "loss", np.float32(0.5)).scalar_value
    0.5
"""
import io

import numpy as np

from . import anf_ir_pb2, summary_pb2

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
        canvas = image_canvas(array)
        value.image.height, value.image.width = canvas.shape[0], canvas.shape[1]
        value.image.colorspace = 3
        value.image.encoded_image = png_bytes(canvas)
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
    if flat.dtype.kind == "f":
        nan, pos, neg = np.isnan(flat), np.isposinf(flat), np.isneginf(flat)
        proto.nan_count, proto.pos_inf_count, proto.neg_inf_count = int(nan.sum()), int(pos.sum()), int(neg.sum())
        finite = flat[~(nan | pos | neg)]
    else:
        finite = flat
    bins = histogram_bins(finite.size)
    if finite.size == 0:
        return
    lo, hi = finite.min(), finite.max()
    proto.min, proto.max, proto.sum = float(lo), float(hi), float(finite.astype(np.float64).sum())
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    edges = np.linspace(lo, hi, bins + 1).astype(finite.dtype if finite.dtype.kind == "f" else np.float64)
    counts, _ = np.histogram(finite, bins=edges)
    for left, right, count in zip(edges[:-1], edges[1:], counts):
        proto.buckets.add(left=float(left), width=float(right) - float(left), count=int(count))


def image_canvas(array):
    """NCHW (C 1 or 3) → one HWC uint8 canvas: the N images tiled 8 to a row, values scaled as MindSpore does."""
    if array.ndim != 4 or array.shape[1] not in (1, 3):
        raise ValueError(f"summary image: expected NCHW with 1 or 3 channels, got shape {list(array.shape)}")
    if array.shape[1] == 1:
        array = np.repeat(array, 3, axis=1)
    if array.dtype != np.uint8:
        x = array.astype(np.float64)
        lo, hi = x.min(), x.max()
        if lo >= 0 and hi <= 1:
            x = x * 255
        elif hi != lo:
            x = (x - lo) * 255 / (hi - lo + 1)
        else:
            x = x - lo
        array = x.astype(np.uint8)
    n, _, h, w = array.shape
    cols = min(n, 8)
    rows = -(-n // 8)
    canvas = np.zeros((3, rows * h, cols * w), np.uint8)
    for i in range(n):
        r, c = divmod(i, 8)
        canvas[:, r * h:(r + 1) * h, c * w:(c + 1) * w] = array[i]
    return canvas.transpose(1, 2, 0)


def png_bytes(hwc):
    from PIL import Image
    buf = io.BytesIO()
    # the fastest zlib level: 8x less CPU than the default on a batch of inputs, for a file about as small
    Image.fromarray(np.ascontiguousarray(hwc), "RGB").save(buf, format="PNG", compress_level=1)
    return buf.getvalue()
