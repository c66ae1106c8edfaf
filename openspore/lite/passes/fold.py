"""fold_constants: an operator whose inputs are all known tensors (consts, and weights in an inference model)
is evaluated once by its kernel; its outputs become stored tensors. A result computed from a weight stays a
weight (`param`, replaceable by `update_weights` under its new name); from consts only, a const."""
import numpy as np

from ...core.primitive import PRIMITIVES
from .. import kernels
from ..program import Block, TensorSpec


def _foldable(op):
    if op.blocks or op.type.startswith("Lite"):
        return False
    cls = PRIMITIVES.get(op.type)
    return cls is not None and not cls.side_effect and not cls.random and kernels.supported(op.type)


def fold_constants(program, kinds=("const", "param")):
    p = program.copy_structure()
    t = p.tensors

    def known(i):
        return t[i].kind in kinds and t[i].data is not None

    def block(b):
        ops = []
        for op in b.ops:
            ins = op.tensor_inputs()
            if ins and _foldable(op) and all(known(i) for i in ins):
                args = [_value(item, t) for item in op.inputs]
                with np.errstate(all="ignore"):  # IEEE results are the answer, as when the model runs
                    out = kernels.make(op)(*args)
                outs = out if (len(op.outputs) > 1 or op.attrs.get("__tuple_out__")) else [out]
                kind = "param" if any(t[i].kind == "param" for i in ins) else "const"
                for tid, arr in zip(op.outputs, outs):
                    arr = np.ascontiguousarray(arr)
                    t[tid] = TensorSpec(t[tid].name, arr.shape, arr.dtype, kind, arr)
                continue
            op.blocks = [block(x) for x in op.blocks]
            ops.append(op)
        return Block(ops, b.inputs, b.outputs)

    p.main = block(p.main)
    return p


def _value(item, tensors):
    if type(item) is int:
        return tensors[item].data
    if type(item) is list:
        return [tensors[i].data for i in item]
    return item.value
