"""How weights are stored: float32, float16 (`--fp16=on`) or int8 with per-channel scales (weight quantization).

int8 weights are symmetric: q = round(w / s) clipped to [-127, 127] with one scale s = max|w| / 127 per output
channel (axis 0), or per tensor. A weight-quantized model computes in float32 (weights are widened once at load);
full and dynamic quantization (quant_passes.py) keep int8 weights for their int8 kernels.

>>> import numpy as np
>>> q, s = quantize_int8(np.array([[1.0, -0.5], [0.25, 0.125]], np.float32), axis=0)
>>> q.tolist(), [round(float(v), 6) for v in s]
([[127, -64], [127, 64]], [0.007874, 0.001969])
"""
import numpy as np


def quantize_int8(w, axis=0):
    """(int8 values, float32 scales) of `w`, one scale per slice along `axis` (None: one for the tensor)."""
    w = np.asarray(w, np.float32)
    if axis is None:
        amax = np.array([np.abs(w).max() if w.size else 0.0], np.float32)
        scale = np.where(amax > 0, amax / 127.0, 1.0).astype(np.float32)
        q = np.clip(np.rint(w / scale[0]), -127, 127).astype(np.int8)
        return q, scale
    moved = np.moveaxis(w, axis, 0).reshape(w.shape[axis], -1)
    amax = np.abs(moved).max(axis=1) if moved.size else np.zeros(w.shape[axis], np.float32)
    scale = np.where(amax > 0, amax / 127.0, 1.0).astype(np.float32)
    shape = [1] * w.ndim
    shape[axis] = -1
    q = np.clip(np.rint(w / scale.reshape(shape)), -127, 127).astype(np.int8)
    return q, scale


def dequantize_int8(q, scale, axis=0):
    if axis is None or scale.size == 1:
        return q.astype(np.float32) * scale.reshape(()) if scale.size == 1 else q.astype(np.float32) * scale
    shape = [1] * q.ndim
    shape[axis] = -1
    return q.astype(np.float32) * scale.reshape(shape)


def encode_weight(t, fp16):
    """(arrays to store, quant description for the header) of stored tensor `t`."""
    q = t.quant
    if q and q.get("type") == "weight_int8":
        return [q["q"], q["scale"]], {"type": "weight_int8", "axis": q["axis"]}
    data = t.data
    if fp16 and data.dtype == np.float32 and data.size > 1:
        return [data.astype(np.float16)], {"type": "fp16"}
    return [data], None


def decode_weight(spec, arrays, quant):
    """(runtime data, in-memory quant description) from the stored arrays."""
    if quant is None:
        return arrays[0].reshape(spec.shape), None
    kind = quant.get("type")
    if kind == "fp16":
        return arrays[0].astype(np.float32).reshape(spec.shape), None
    if kind == "weight_int8":
        q, scale = arrays[0].reshape(spec.shape), arrays[1]
        axis = quant.get("axis")
        return dequantize_int8(q, scale, axis), {"type": "weight_int8", "axis": axis, "q": q, "scale": scale}
    raise ValueError(f"unknown weight encoding {kind!r} for tensor {spec.name!r}.")
