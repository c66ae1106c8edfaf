"""to_nhwc: run float convolutions channels-last (kernels/nhwc.py says why), converting layouts only at the edges.

Walking the main block in order, each tensor is available in NCHW (as the model defines it), in NHWC (a new
tensor id with the permuted shape), or both:
* a float `LiteConv2D` (or plain `Conv2D`) of group 1 becomes `layout='NHWC'`, its weight packed (kh·kw·C, O) and its input taken
  in NHWC (a `LiteLayout` transpose is inserted the first time an NCHW tensor is needed in NHWC);
* elementwise operators (`Add`, `Sub`, `Mul`, `ReLU`, `ReLU6`, `Sigmoid`, `Tanh`) whose tensor inputs are all
  NHWC activations of one shape, and tiling `MaxPool`/`AvgPool` on an NHWC input, stay NHWC;
* a `ReduceMean` over H and W (global average pooling) of an NHWC activation averages its axes (1, 2), whose
  (N, C) result is already in NCHW order (ResNet's head: no transpose back);
* everything else reads NCHW: an NHWC result is transposed back (once) before its first NCHW reader, and
  before the block returns it, so the model's outputs stay NCHW.
Then a residual `Add` of an NHWC convolution's output (its sole reader) and another NHWC tensor of that shape,
with the ReLU/ReLU6 that may follow, is fused into the convolution (ResNet's shortcut), and a tiling NHWC
`MaxPool` that is the sole reader of a convolution without residual becomes its `pool` attribute (LeNet), and
an NHWC → NCHW transpose read only by a flatten (`Reshape` to (N, -1)) read only by a `LiteDense` is dropped:
the dense weight's columns are permuted to (h, w, c) order instead (LeNet's classifier; the weight is renamed
`<name>_hwc`, as packed convolution weights are renamed `<name>_nhwc`).
Programs with control flow are left as they are; quantized weights are not packed (quantization works per
output channel of the NCHW weight).
"""
import numpy as np

from ..kernels.nhwc import tiling_pool
from ..program import Block, Lit, Op
from .dce import eliminate_dead

_ELEMENTWISE = {"Add", "Sub", "Mul", "ReLU", "ReLU6", "Sigmoid", "Tanh"}
_ACT = {"ReLU": "relu", "ReLU6": "relu6"}
TO_NHWC, TO_NCHW = (0, 2, 3, 1), (0, 3, 1, 2)


def to_nhwc(program):
    if any(op.blocks for op in program.main.ops) or not any(_convertible_conv(program, op)
                                                            for op in program.main.ops):
        return program
    p = program.copy_structure()
    relayout = _Relayout(p)
    p.main = _fold_flatten(p, _fuse_pool(_fuse_residual(p, relayout.block(p.main), relayout.computed)))
    return eliminate_dead(p)  # the NCHW weights are no longer read


def _convertible_conv(p, op):
    if op.type not in ("LiteConv2D", "Conv2D") or op.attrs.get("layout") == "NHWC" \
            or int(op.attrs.get("group", 1)) != 1 or (op.type == "Conv2D" and len(op.inputs) != 2):
        return False
    x, w = p.tensors[op.inputs[0]], p.tensors[op.inputs[1]]
    return (len(x.shape) == 4 and w.data is not None and w.quant is None and w.data.ndim == 4
            and np.dtype(w.data.dtype).kind == "f" and op.attrs.get("data_format", "NCHW") == "NCHW")


class _Relayout:
    def __init__(self, program):
        self.p = program
        self.t = program.tensors
        self.nhwc = {}   # NCHW tensor id -> its NHWC twin
        self.computed = set()  # NHWC ids computed by an NHWC operator
        self.ops = []

    def twin(self, tid):
        """The NHWC version of NCHW tensor `tid`, transposing it here if it has none yet."""
        if tid not in self.nhwc:
            spec = self.t[tid]
            new = self.p.add_tensor(spec.name + "_nhwc", _perm(spec.shape, TO_NHWC), spec.dtype)
            self.ops.append(Op("LiteLayout", {"perm": TO_NHWC}, [tid], [new], spec.name + "/to_nhwc"))
            self.nhwc[tid] = new
        return self.nhwc[tid]

    def block(self, b):
        missing = set()  # NCHW ids whose value so far exists only as the NHWC twin
        for op in b.ops:
            kind = self.layout_of(op)
            if kind is None:
                for i in op.tensor_inputs():
                    self.materialize(i, missing)
                self.ops.append(op)
                continue
            if kind == "mean":
                self.global_mean(op)
                continue
            ins = list(op.inputs)
            if kind == "conv":
                ins[0] = self.twin(ins[0])
                ins[1] = self.pack(ins[1])
                attrs = {k: v for k, v in op.attrs.items() if not k.startswith("__")}
                attrs.setdefault("activation", None)
                attrs.setdefault("has_bias", False)
                attrs["layout"] = "NHWC"
            else:
                ins = [self.nhwc[i] for i in ins]
                attrs = dict(op.attrs, layout="NHWC") if kind == "pool" else dict(op.attrs)
            out = op.outputs[0]
            spec = self.t[out]
            new = self.p.add_tensor(spec.name + "_nhwc", _perm(spec.shape, TO_NHWC), spec.dtype)
            self.ops.append(Op("LiteConv2D" if kind == "conv" else op.type, attrs, ins, [new], op.name))
            self.nhwc[out] = new
            self.computed.add(new)
            missing.add(out)
        for i in b.outputs:
            self.materialize(i, missing)
        return Block(self.ops, b.inputs, b.outputs)

    def materialize(self, tid, missing):
        if tid in missing:
            name = self.t[tid].name
            self.ops.append(Op("LiteLayout", {"perm": TO_NCHW}, [self.nhwc[tid]], [tid], name + "/to_nchw"))
            missing.discard(tid)

    def layout_of(self, op):
        if len(op.outputs) != 1 or op.attrs.get("__tuple_out__"):
            return None
        if _convertible_conv(self.p, op):
            return "conv"
        ins = op.tensor_inputs()
        if op.type == "ReduceMean" and _spatial_mean(self.p, op) and self.nhwc.get(ins[0]) in self.computed:
            return "mean"
        if not ins or len(ins) != len(op.inputs) or any(self.nhwc.get(i) not in self.computed for i in ins):
            return None
        if op.type in _ELEMENTWISE and len({self.t[i].shape for i in ins}) == 1 \
                and self.t[op.outputs[0]].shape == self.t[ins[0]].shape:
            return "elementwise"
        if op.type in ("MaxPool", "AvgPool") and len(ins) == 1 and tiling_pool(op.attrs) \
                and op.attrs.get("data_format", "NCHW") == "NCHW":
            return "pool"
        return None

    def global_mean(self, op):
        """ReduceMean over H and W of an NHWC activation: the mean over its axes (1, 2) gives the (N, C) values in
        the NCHW result's order, so no transpose back is needed (ResNet's global pooling); with keep_dims a
        Reshape to (N, C, 1, 1) writes the operator's own output tensor."""
        out = op.outputs[0]
        n, c = self.t[out].shape[:2]
        keep = bool(op.attrs.get("keep_dims"))
        flat = self.p.add_tensor(self.t[out].name + "_nc", (n, c), self.t[out].dtype) if keep else out
        self.ops.append(Op("ReduceMean", dict(op.attrs, keep_dims=False), [self.nhwc[op.inputs[0]], Lit((1, 2))],
                           [flat], op.name))
        if keep:
            self.ops.append(Op("Reshape", {}, [flat, Lit(tuple(self.t[out].shape))], [out], op.name + "/keep_dims"))

    def pack(self, wid):
        spec = self.t[wid]
        o, c, kh, kw = spec.data.shape
        packed = np.ascontiguousarray(spec.data.transpose(2, 3, 1, 0).reshape(kh * kw * c, o))
        return self.p.add_tensor(spec.name + "_nhwc", packed.shape, packed.dtype, spec.kind, packed)


def _fuse_residual(p, b, nhwc):
    """NHWC conv → Add(conv, other NHWC) → [ReLU] into one conv with a residual input."""
    t = p.tensors
    readers = {}
    for op in b.ops:
        for i in op.tensor_inputs():
            readers.setdefault(i, []).append(op)
    for i in b.outputs:
        readers.setdefault(i, []).append(None)
    fused_at, absorbed = {}, set()
    for op in b.ops:
        if op.type != "LiteConv2D" or op.attrs.get("layout") != "NHWC" or op.attrs.get("activation") \
                or op.attrs.get("has_residual"):
            continue
        y = op.outputs[0]
        add = _sole(readers, y)
        if add is None or add.type != "Add" or len(add.inputs) != 2 or id(add) in absorbed:
            continue
        other = add.inputs[1] if add.inputs[0] == y else add.inputs[0]
        if type(other) is not int or other == y or other not in nhwc or t[other].shape != t[y].shape:
            continue
        members, out, act = [op, add], add.outputs[0], None
        nxt = _sole(readers, out)
        if nxt is not None and nxt.type in _ACT:
            members.append(nxt)
            out, act = nxt.outputs[0], _ACT[nxt.type]
        attrs = dict(op.attrs, has_residual=True, activation=act)
        fused = Op("LiteConv2D", attrs, list(op.inputs) + [other], [out], op.name)
        absorbed.update(id(m) for m in members)
        fused_at[id(members[-1])] = fused  # placed where the last member was: the residual is computed by then
    ops = [fused_at.get(id(op), op) for op in b.ops if id(op) not in absorbed or id(op) in fused_at]
    return Block(ops, b.inputs, b.outputs)


def _fuse_pool(b):
    """NHWC conv (no residual) → tiling NHWC MaxPool, its sole reader, into one conv with `pool=(ph, pw)`."""
    readers = _readers(b)
    fused_at, absorbed = {}, set()
    for op in b.ops:
        if op.type != "LiteConv2D" or op.attrs.get("layout") != "NHWC" or op.attrs.get("has_residual") \
                or op.attrs.get("pool"):
            continue
        pool = _sole(readers, op.outputs[0])
        if pool is None or pool.type != "MaxPool" or pool.attrs.get("layout") != "NHWC" \
                or not tiling_pool(pool.attrs):
            continue
        window = tuple(int(k) for k in tuple(pool.attrs.get("kernel_size", (1,)))[-2:])
        if len(window) != 2:
            continue
        fused_at[id(pool)] = Op("LiteConv2D", dict(op.attrs, pool=window), op.inputs, pool.outputs, op.name)
        absorbed.add(id(op))
    ops = [fused_at.get(id(op), op) for op in b.ops if id(op) not in absorbed]
    return Block(ops, b.inputs, b.outputs)


def _fold_flatten(p, b):
    """LiteLayout(to NCHW) → Reshape(N, C·H·W) → LiteDense: the dense layer reads the NHWC tensor flattened."""
    t = p.tensors
    readers = _readers(b)
    replaced, dropped = {}, set()
    for op in b.ops:
        if op.type != "LiteLayout" or tuple(op.attrs.get("perm", ())) != TO_NCHW:
            continue
        src, nchw = op.inputs[0], op.outputs[0]
        flat = _sole(readers, nchw)
        if flat is None or flat.type != "Reshape" or len(flat.inputs) != 2 or type(flat.inputs[1]) is int \
                or type(flat.inputs[1]) is list or id(flat) in replaced:
            continue
        n, c, h, w = t[nchw].shape
        if tuple(flat.inputs[1].value) not in ((n, c * h * w), (n, -1)):
            continue
        dense = _sole(readers, flat.outputs[0])
        if dense is None or dense.type != "LiteDense" or dense.inputs[0] != flat.outputs[0]:
            continue
        wspec = t[dense.inputs[1]]
        if wspec.data is None or wspec.quant is not None or wspec.data.shape != (wspec.data.shape[0], c * h * w):
            continue
        o = wspec.data.shape[0]
        permuted = np.ascontiguousarray(wspec.data.reshape(o, c, h, w).transpose(0, 2, 3, 1).reshape(o, -1))
        new_w = p.add_tensor(wspec.name + "_hwc", permuted.shape, permuted.dtype, wspec.kind, permuted)
        replaced[id(flat)] = Op(flat.type, flat.attrs, [src, flat.inputs[1]], flat.outputs, flat.name)
        replaced[id(dense)] = Op(dense.type, dense.attrs, [dense.inputs[0], new_w] + list(dense.inputs[2:]),
                                 dense.outputs, dense.name)
        dropped.add(id(op))
    ops = [replaced.get(id(op), op) for op in b.ops if id(op) not in dropped]
    return Block(ops, b.inputs, b.outputs)


def _readers(b):
    readers = {}
    for op in b.ops:
        for i in op.tensor_inputs():
            readers.setdefault(i, []).append(op)
    for i in b.outputs:
        readers.setdefault(i, []).append(None)
    return readers


def _sole(readers, tid):
    r = readers.get(tid, [])
    return r[0] if len(r) == 1 and r[0] is not None else None


def _spatial_mean(p, op):
    """Whether ReduceMean `op` averages a 4-D float tensor over exactly its axes 2 and 3 (H, W)."""
    if len(op.inputs) != 2 or type(op.inputs[0]) is not int or type(op.inputs[1]) is not Lit:
        return False
    axis = op.inputs[1].value
    axis = (axis,) if type(axis) is int else axis
    if type(axis) not in (tuple, list) or len(p.tensors[op.inputs[0]].shape) != 4:
        return False
    return sorted(int(a) % 4 for a in axis) == [2, 3] and len(op.outputs) == 1


def _perm(shape, perm):
    return tuple(shape[k] for k in perm) if len(shape) == 4 else tuple(shape)
