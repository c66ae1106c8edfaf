"""strip_training: an inference model's weights never change, so in-place updates (BatchNorm's moving statistics,
optimizer steps, step counters) whose results nobody reads are dropped. BatchNorm runs in inference mode."""
from ...core.primitive import PRIMITIVES
from ..program import Block, Op


def _writes_state(op_type):
    cls = PRIMITIVES.get(op_type)
    return cls is not None and cls.side_effect


def strip_training(program):
    p = program.copy_structure()
    used = set()
    for op in p.main.all_ops():
        used.update(op.tensor_inputs())
        for b in op.blocks:
            used.update(b.outputs)
    used.update(p.main.outputs)

    def block(b):
        ops = []
        for op in b.ops:
            if _writes_state(op.type) and not any(o in used for o in op.outputs):
                continue
            if op.type == "BatchNorm" and op.attrs.get("is_training"):
                op = Op(op.type, dict(op.attrs, is_training=False), op.inputs, op.outputs, op.name, op.blocks)
            ops.append(Op(op.type, op.attrs, op.inputs, op.outputs, op.name, [block(x) for x in op.blocks]))
        return Block(ops, b.inputs, b.outputs)

    p.main = block(p.main)
    return p
