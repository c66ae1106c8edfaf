"""fuse: inference fusions that save passes over memory.

* Conv2D(x, w) → [BatchNorm (inference)] → [BiasAdd / Add of a per-channel constant] → [ReLU / ReLU6] becomes one
  `LiteConv2D(x, w', b')`: BatchNorm folds into the weights (w' = w·γ/√(σ²+ε), b' = β − μ·γ/√(σ²+ε) + b·…);
* MatMul(x, w) (w a stored 2-D weight) → [BiasAdd / Add of a vector] → [ReLU / ReLU6] becomes
  `LiteDense(x, w', b')` with w' kept (out, in) so the kernel computes x @ w'.T.
An intermediate result joins a fusion only when that operator is its sole reader and it is no block output.
"""
import numpy as np

from ..program import Block, Op

_ACT = {"ReLU": "relu", "ReLU6": "relu6"}


def fuse(program):
    p = program.copy_structure()
    readers = {}
    for op in p.main.all_ops():
        for t in op.tensor_inputs():
            readers.setdefault(t, []).append(op)
        for b in op.blocks:
            for t in b.outputs:
                readers.setdefault(t, []).append(None)
    for t in p.main.outputs:
        readers.setdefault(t, []).append(None)
    p.main = _Fuser(p, readers).block(p.main)
    return p


class _Fuser:
    def __init__(self, program, readers):
        self.p, self.readers = program, readers
        self.t = program.tensors

    def stored(self, item):
        return type(item) is int and self.t[item].data is not None and self.t[item].kind in ("const", "param")

    def sole_reader(self, tid):
        r = self.readers.get(tid, [])
        return r[0] if len(r) == 1 and r[0] is not None else None

    def block(self, b):
        fused_at, absorbed = {}, set()
        for op in b.ops:
            if id(op) in absorbed:
                continue
            chain = None
            if op.type == "Conv2D" and op.attrs.get("data_format", "NCHW") == "NCHW" and self.stored(op.inputs[1]):
                chain = self.conv_chain(op)
            elif (op.type == "MatMul" and not op.attrs.get("transpose_a") and self.stored(op.inputs[1])
                  and len(self.t[op.inputs[1]].shape) == 2 and len(self.t[op.inputs[0]].shape) == 2):
                chain = self.dense_chain(op)
            if chain is not None:
                fused, members = chain
                absorbed.update(id(m) for m in members)
                fused_at[id(members[-1])] = fused  # its inputs are all computed by the last absorbed op
        ops = []
        for op in b.ops:
            if id(op) in fused_at:
                ops.append(fused_at[id(op)])
            elif id(op) not in absorbed:
                op.blocks = [self.block(x) for x in op.blocks]
                ops.append(op)
        return Block(ops, b.inputs, b.outputs)

    def bias_of(self, op, tid, channels, shapes):
        """The per-channel bias vector `op` adds to `tid`, or None."""
        if op is None:
            return None
        if op.type == "BiasAdd" and op.inputs[0] == tid and self.stored(op.inputs[1]):
            b = self.t[op.inputs[1]].data
            return b.reshape(-1) if b.shape == (channels,) else None
        if op.type == "Add" and len(op.inputs) == 2 and tid in op.inputs:
            other = op.inputs[1] if op.inputs[0] == tid else op.inputs[0]
            if self.stored(other) and self.t[other].data.shape in shapes:
                return self.t[other].data.reshape(-1)
        return None

    def tail(self, members, tid, channels, shapes, bias):
        """Extend a chain ending in `tid` by a bias add and an activation; returns (tid, bias, activation)."""
        nxt = self.sole_reader(tid)
        b = self.bias_of(nxt, tid, channels, shapes)
        if b is not None:
            bias = b.astype(np.float32) if bias is None else bias + b.astype(np.float32)
            members.append(nxt)
            tid = nxt.outputs[0]
            nxt = self.sole_reader(tid)
        act = None
        if nxt is not None and nxt.type in _ACT and nxt.inputs[0] == tid:
            act, tid = _ACT[nxt.type], nxt.outputs[0]
            members.append(nxt)
        return tid, bias, act

    def conv_chain(self, conv):
        src = self.t[conv.inputs[1]]
        if src.data.dtype != np.float32:
            return None
        o = src.data.shape[0]
        members, tid, bias, w_id = [conv], conv.outputs[0], None, conv.inputs[1]
        bn = self.sole_reader(tid)
        if bn is not None and bn.type == "BatchNorm" and not bn.attrs.get("is_training") and bn.inputs[0] == tid \
                and all(self.stored(i) for i in bn.inputs[1:5]) \
                and not any(self.readers.get(x) for x in bn.outputs[1:]):
            gamma, beta, mean, var = (self.t[i].data.astype(np.float64) for i in bn.inputs[1:5])
            scale = gamma / np.sqrt(var + float(bn.attrs.get("epsilon", 1e-5)))
            weight = (src.data * scale[:, None, None, None]).astype(np.float32)
            bias = (beta - mean * scale).astype(np.float32)
            w_id = self.p.add_tensor(src.name + "_bn", weight.shape, np.float32, src.kind, weight)
            members.append(bn)
            tid = bn.outputs[0]
        tid, bias, act = self.tail(members, tid, o, ((o,), (o, 1, 1), (1, o, 1, 1)), bias)
        if len(members) == 1:
            return None  # nothing to fuse: the plain Conv2D kernel is the same im2col GEMM
        attrs = {k: v for k, v in conv.attrs.items() if not k.startswith("__")}
        attrs.update(activation=act, has_bias=bias is not None)
        ins = [conv.inputs[0], w_id]
        if bias is not None:
            ins.append(self.p.add_tensor(src.name + "_bias", bias.shape, np.float32, src.kind, bias))
        return Op("LiteConv2D", attrs, ins, [tid], conv.name), members

    def dense_chain(self, mm):
        src = self.t[mm.inputs[1]]
        if src.data.dtype != np.float32:
            return None
        w_id = mm.inputs[1]
        if not mm.attrs.get("transpose_b"):
            w = np.ascontiguousarray(src.data.T)
            w_id = self.p.add_tensor(src.name + "_t", w.shape, w.dtype, src.kind, w)
        o = self.t[w_id].shape[0]
        members = [mm]
        tid, bias, act = self.tail(members, mm.outputs[0], o, ((o,), (1, o)), None)
        ins = [mm.inputs[0], w_id]
        if bias is not None:
            ins.append(self.p.add_tensor(src.name + "_bias", bias.shape, np.float32, src.kind, bias))
        return Op("LiteDense", {"activation": act, "has_bias": bias is not None}, ins, [tid], mm.name), members
