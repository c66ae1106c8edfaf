"""Upload and download compression (MindSpore's CompressType): QUANT and DIFF_SPARSE_QUANT.

QUANT (download): 8 bits per weight, per tensor: scale = (max − min) / 255, q = round((x − min) / scale) − 128.
DIFF_SPARSE_QUANT (upload): the difference to the global model the client received, kept on a random fraction
`upload_sparse_rate` of the positions, then 8-bit quantised. The positions come from a seed both ends derive from
(job, iteration, fl_id), so no indices travel: an upload is one byte per kept weight plus two floats per tensor.

>>> import numpy as np
>>> w = {"w": np.linspace(-1, 1, 5, dtype=np.float32)}
>>> bool(np.abs(dequantize_map(quantize_map(w), w)["w"] - w["w"]).max() < 2 / 255)
True
"""
import hashlib

import numpy as np

from .wire import WireError, decode_array, encode_array

BITS = 8


def quantize(x):
    x = np.asarray(x, np.float32)
    lo, hi = (float(x.min()), float(x.max())) if x.size else (0.0, 0.0)
    scale = (hi - lo) / (2 ** BITS - 1) or 1.0
    q = np.rint((x - lo) / scale) - 2 ** (BITS - 1)
    return q.astype(np.int8), lo, hi


def dequantize(q, lo, hi):
    scale = (hi - lo) / (2 ** BITS - 1) or 1.0
    return ((q.astype(np.float32) + 2 ** (BITS - 1)) * scale + lo).astype(np.float32)


def quantize_map(weights):
    out = []
    for k, v in weights.items():
        q, lo, hi = quantize(v)
        out.append({"weight_fullname": k, "compress_data": encode_array(q.ravel()), "min_val": lo, "max_val": hi,
                    "shape": list(np.shape(v))})
    return out


def _items(items, where):
    if not isinstance(items, list):
        raise WireError(f"{where}: compress_feature_map must be a list")
    for k, item in enumerate(items):
        if (not isinstance(item, dict) or not isinstance(item.get("weight_fullname"), str)
                or not all(isinstance(item.get(f), (int, float)) and not isinstance(item.get(f), bool)
                           for f in ("min_val", "max_val"))):
            raise WireError(f"{where}[{k}]: expected {{weight_fullname, compress_data, min_val, max_val}}")
        q = decode_array(item.get("compress_data"), f"{where}[{item['weight_fullname']!r}]")
        if q.dtype != np.int8 or q.ndim != 1:
            raise WireError(f"{where}[{item['weight_fullname']!r}]: compress_data must be a 1-D int8 array")
        yield item["weight_fullname"], q, float(item["min_val"]), float(item["max_val"]), item


def dequantize_map(items, like, where="compress_feature_map"):
    """The QUANT download back to float32 arrays shaped as `like` (the client's model)."""
    out = {}
    for name, q, lo, hi, item in _items(items, where):
        shape = tuple(like[name].shape) if name in like else tuple(item.get("shape", (q.size,)))
        if q.size != int(np.prod(shape)):
            raise WireError(f"{where}[{name!r}]: {q.size} values for shape {list(shape)}")
        out[name] = dequantize(q, lo, hi).reshape(shape)
    return out


def sparse_seed(fl_name, iteration, fl_id):
    return int.from_bytes(hashlib.sha256(f"{fl_name}|{iteration}|{fl_id}".encode()).digest()[:8], "little")


def sparse_masks(like, seed, rate):
    rng = np.random.default_rng(seed)
    return {k: rng.random(np.size(like[k])) < rate for k in sorted(like)}


def encode_diff_sparse(weights, global_weights, seed, rate):
    masks = sparse_masks(global_weights, seed, rate)
    diff = {k: (np.asarray(weights[k], np.float32) - global_weights[k]).ravel()[masks[k]] for k in sorted(weights)}
    return quantize_map(diff)


def decode_diff_sparse(items, global_weights, seed, rate, where):
    """A DIFF_SPARSE_QUANT upload back to full weights: the global model plus the kept differences."""
    masks = sparse_masks(global_weights, seed, rate)
    out = {}
    for name, q, lo, hi, _ in _items(items, f"{where}.compress_feature_map"):
        if name not in global_weights:
            raise WireError(f"{where}: unknown weight {name!r}")
        if q.size != int(masks[name].sum()):
            raise WireError(f"{where}: weight {name!r} carries {q.size} values, {int(masks[name].sum())} expected")
        flat = global_weights[name].astype(np.float32).ravel().copy()
        flat[masks[name]] += dequantize(q, lo, hi)
        out[name] = flat.reshape(global_weights[name].shape)
    return out
