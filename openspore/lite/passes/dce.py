"""eliminate_dead: drop operators whose outputs nobody reads (state updates and random draws stay), then
renumber the tensor table so that only referenced tensors remain."""
from ...core.primitive import PRIMITIVES
from ..program import Block, Op, Program


def _keep_always(op):
    cls = PRIMITIVES.get(op.type)
    return bool(op.blocks) or (cls is not None and (cls.side_effect or cls.random))


def eliminate_dead(program, keep=()):
    p = program.copy_structure()
    keep = set(keep) | set(p.meta.get("keep_tensors", ()))

    def block(b, live):
        live = set(live) | set(b.outputs) | keep
        ops = []
        for op in reversed(b.ops):
            if not _keep_always(op) and not any(o in live for o in op.outputs):
                continue
            op.blocks = [block(x, ()) for x in op.blocks]
            live.update(op.tensor_inputs())
            ops.append(op)
        return Block(reversed(ops), b.inputs, b.outputs)

    p.main = block(p.main, ())
    return compact(p)


def compact(program):
    """The same program with its tensor table reduced to referenced tensors (ids renumbered)."""
    order = []
    seen = set()

    def visit(t):
        if t not in seen:
            seen.add(t)
            order.append(t)

    def walk(b):
        for t in b.inputs:
            visit(t)
        for op in b.ops:
            for t in op.tensor_inputs():
                visit(t)
            for x in op.blocks:
                walk(x)
            for t in op.outputs:
                visit(t)
        for t in b.outputs:
            visit(t)

    walk(program.main)
    for t in program.meta.get("keep_tensors", ()):
        visit(t)
    new_id = {old: k for k, old in enumerate(order)}
    q = Program()
    q.tensors = [program.tensors[t] for t in order]
    q.meta = remap_meta(program.meta, new_id)

    def remap(b):
        ops = []
        for op in b.ops:
            ins = [new_id[i] if type(i) is int else ([new_id[j] for j in i] if type(i) is list else i)
                   for i in op.inputs]
            ops.append(Op(op.type, op.attrs, ins, [new_id[o] for o in op.outputs], op.name,
                          [remap(x) for x in op.blocks]))
        return Block(ops, [new_id[t] for t in b.inputs], [new_id[t] for t in b.outputs])

    q.main = remap(program.main)
    return q


def remap_meta(meta, new_id):
    """Tensor ids inside meta (training info) follow a renumbering; entries ending in `_tensor(s)` hold ids."""
    out = {}
    for k, v in meta.items():
        if k.endswith("_tensor") and isinstance(v, int):
            out[k] = new_id.get(v, -1)
        elif k.endswith("_tensors") and isinstance(v, (list, tuple)):
            out[k] = [new_id[t] for t in v if t in new_id]
        else:
            out[k] = v
    return out

