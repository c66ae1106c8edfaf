"""Post-training quantization from the converter config (`[common_quant_param] quant_type=...`).

* WEIGHT_QUANT: weights of convolutions, matrix products and embeddings are stored as int8 with one scale per
  output channel (`bit_num` bits, 1–8); the model computes in float32 with the widened weights.
* FULL_QUANT: LiteConv2D / LiteDense become int8 kernels (kernels/quant.py) whose input ranges come from
  calibration: the float model runs on `[data_preprocess_param] calibrate_path` samples (`.npy` files, or raw
  `.bin` files of the input's dtype and shape) and each quantized input's range is its MAX_MIN, or for KL the
  clipping threshold that minimises the KL divergence between the 2048-bin histogram and its 128-level
  quantization. `per_channel=false` uses one weight scale per tensor.
* DYNAMIC_QUANT: the same int8 kernels with int8 weights; each input is quantized on every call from its own
  range, so no calibration data is needed.
`skip_quant_node` names nodes (operator names) left in float; `min_quant_weight_size` / `_channel` skip small
weights.
"""
import glob
import os

import numpy as np

from .executor import Executable
from .program import Op, TensorSpec
from .quantize import dequantize_int8, quantize_int8

_WEIGHT_INPUT = {"LiteConv2D": 1, "LiteDense": 1, "Conv2D": 1, "MatMul": 1, "BatchMatMul": 1, "Gather": 0}
_INT8 = {"LiteConv2D": "LiteQConv2D", "LiteDense": "LiteQDense"}


def quantize_program(program, config):
    common = config.get("common_quant_param", {})
    kind = common.get("quant_type", "").upper()
    skip = {s.strip() for s in common.get("skip_quant_node", "").split(",") if s.strip()}
    opts = {"bit_num": int(common.get("bit_num", 8)), "skip": skip,
            "min_size": int(common.get("min_quant_weight_size", 0)),
            "min_channel": int(common.get("min_quant_weight_channel", 16))}
    if kind == "WEIGHT_QUANT":
        if not 1 <= opts["bit_num"] <= 8:
            raise ValueError(f"quantization: WEIGHT_QUANT supports bit_num 1..8 here, but got {opts['bit_num']}.")
        out = weight_quant(program, opts)
    elif kind in ("FULL_QUANT", "DYNAMIC_QUANT"):
        if opts["bit_num"] != 8:
            raise ValueError(f"quantization: {kind} supports bit_num=8 only, but got {opts['bit_num']}.")
        full = config.get("full_quant_param", {})
        per_channel = full.get("per_channel", "true").lower() != "false"
        ranges = None
        if kind == "FULL_QUANT":
            method = full.get("activation_quant_method", "MAX_MIN").upper()
            if method not in ("MAX_MIN", "KL"):
                raise ValueError(f"quantization: activation_quant_method must be MAX_MIN or KL, but got {method}.")
            samples = calibration_inputs(program, config.get("data_preprocess_param", {}))
            ranges = calibrate(program, samples, method)
        out = int8_ops(program, opts, per_channel, ranges)
    else:
        raise ValueError(f"quantization: quant_type must be WEIGHT_QUANT, FULL_QUANT or DYNAMIC_QUANT, but got "
                         f"{common.get('quant_type')!r}.")
    out.meta["quant_type"] = kind
    return out


def _weights(program, opts):
    """(op, input index, tensor id) of the weights to quantize."""
    t = program.tensors
    for op in program.main.all_ops():
        k = _WEIGHT_INPUT.get(op.type)
        if k is None or op.name in opts["skip"] or k >= len(op.inputs) or type(op.inputs[k]) is not int:
            continue
        tid = op.inputs[k]
        spec = t[tid]
        if spec.data is None or spec.data.dtype != np.float32 or spec.data.ndim < 2:
            continue
        if spec.data.size <= opts["min_size"] or spec.data.shape[0] < opts["min_channel"]:
            continue
        yield op, k, tid


def weight_quant(program, opts):
    p = program.copy_structure()
    qmax = 2 ** (opts["bit_num"] - 1) - 1
    done = set()
    for _, _, tid in list(_weights(p, opts)):
        if tid in done:
            continue
        done.add(tid)
        spec = p.tensors[tid]
        axis = 0
        q, scale = quantize_int8(spec.data, axis)
        if qmax != 127:  # fewer bits: the same symmetric grid with fewer levels
            scale = (scale * 127.0 / qmax).astype(np.float32)
            q = np.clip(np.rint(spec.data / scale.reshape((-1,) + (1,) * (spec.data.ndim - 1))), -qmax, qmax
                        ).astype(np.int8)
        new = TensorSpec(spec.name, spec.shape, spec.dtype, spec.kind, dequantize_int8(q, scale, axis))
        new.quant = {"type": "weight_int8", "axis": axis, "q": q, "scale": scale}
        p.tensors[tid] = new
    return p


def int8_ops(program, opts, per_channel, ranges):
    p = program.copy_structure()
    t = p.tensors
    targets = {id(op) for op, k, _ in _weights(p, opts) if op.type in _INT8}

    def convert(block):
        for i, op in enumerate(block.ops):
            for b in op.blocks:
                convert(b)
            if id(op) not in targets:
                continue
            x = op.inputs[0]
            if ranges is not None and x not in ranges:
                continue
            spec = t[op.inputs[1]]
            q, scale = quantize_int8(spec.data, 0 if per_channel else None)
            if scale.size == 1:
                scale = np.repeat(scale, spec.shape[0]).astype(np.float32)
            wq = p.add_tensor(spec.name + "_int8", q.shape, np.int8, spec.kind, q)
            ws = p.add_tensor(spec.name + "_scale", scale.shape, np.float32, "const", scale)
            attrs = dict(op.attrs)
            if ranges is None:
                attrs["dynamic"] = True
            else:
                attrs["x_scale"], attrs["x_zero_point"] = ranges[x]
            block.ops[i] = Op(_INT8[op.type], attrs, [x, wq, ws] + op.inputs[2:], op.outputs, op.name)
    convert(p.main)
    from .passes.dce import eliminate_dead
    return eliminate_dead(p)


# ---- calibration ----------------------------------------------------------------------------------------------
def calibration_inputs(program, prep):
    path = prep.get("calibrate_path", "")
    if not path:
        raise ValueError("quantization: FULL_QUANT needs [data_preprocess_param] calibrate_path=input_name:/dir.")
    kind = prep.get("input_type", "BIN").upper()
    if kind != "BIN":
        raise ValueError(f"quantization: input_type={kind} is not supported; give BIN (.npy or raw .bin files).")
    dirs = {}
    for part in path.split(","):
        name, _, d = part.strip().rpartition(":")
        dirs[name] = d
    t = program.tensors
    names = [t[i].name for i in program.inputs]
    missing = [n for n in names if n not in dirs]
    if missing:
        raise ValueError(f"quantization: calibrate_path has no directory for input(s) {missing} (inputs: {names}).")
    limit = int(prep.get("calibrate_size", 100))
    per_input = []
    for i in program.inputs:
        d = dirs[t[i].name]
        files = sorted(glob.glob(os.path.join(d, "*.npy")) + glob.glob(os.path.join(d, "*.bin")))[:limit]
        if not files:
            raise ValueError(f"quantization: no .npy or .bin calibration files in {d!r}.")
        arrays = []
        for f in files:
            a = np.load(f) if f.endswith(".npy") else np.fromfile(f, dtype=t[i].dtype)
            arrays.append(np.asarray(a, t[i].dtype).reshape(t[i].shape))
        per_input.append(arrays)
    return list(zip(*per_input))


def calibrate(program, samples, method):
    """{tensor id: (scale, zero point)} for the inputs of the operators int8 kernels will run."""
    watched = sorted({op.inputs[0] for op in program.main.all_ops() if op.type in _INT8})
    exe = Executable(program, keep=watched)
    lo, hi, seen = {}, {}, {k: [] for k in watched}
    for sample in samples:
        exe.run(list(sample))
        for k in watched:
            v = exe.kept[k] if k in exe.kept else sample[program.inputs.index(k)]
            lo[k] = min(lo.get(k, 0.0), float(v.min()))
            hi[k] = max(hi.get(k, 0.0), float(v.max()))
            if method == "KL":
                seen[k].append(np.abs(v).ravel())
    out = {}
    for k in watched:
        a, b = lo[k], hi[k]
        if method == "KL":
            threshold = kl_threshold(np.concatenate(seen[k]))
            a, b = max(a, -threshold), min(b, threshold)
        scale = (b - a) / 255.0 or 1.0
        out[k] = (scale, int(round(-128 - a / scale)))
    return out


def kl_threshold(values, bins=2048, levels=128):
    """The clipping threshold of |values| whose `levels`-level quantization loses the least information.
    Exact zeros (the ReLU floor, most of many activations) are left out: zero is exact at every threshold, and
    their spike would otherwise make a tiny threshold look best."""
    values = values[values > 0]
    amax = float(values.max()) if values.size else 0.0
    if amax == 0.0:
        return 1.0
    hist, edges = np.histogram(values, bins=bins, range=(0.0, amax))
    hist = hist.astype(np.float64)
    best, best_i = np.inf, bins
    for i in range(levels, bins + 1, 8):
        p = hist[:i].copy()
        p[-1] += hist[i:].sum()
        nz = p > 0
        chunks = np.array_split(np.arange(i), levels)
        q = np.zeros(i)
        for c in chunks:
            part = hist[c]
            count = (part > 0).sum()
            if count:
                q[c] = np.where(part > 0, part.sum() / count, 0.0)
        ps, qs = p / p.sum(), q / max(q.sum(), 1e-12)
        mask = nz & (qs > 0)
        kl = float(np.sum(ps[mask] * np.log(ps[mask] / qs[mask]))) + (1.0 if np.any(nz & (qs == 0)) else 0.0)
        if kl < best:
            best, best_i = kl, i
    return float(edges[best_i])
