"""New input shapes for a converted program.

Shapes are not stored per operator (numpy kernels size their outputs from their inputs); what does depend on the
batch are shape constants baked into the graph at export: a Reshape target `(16, 400)`, a convolution
gradient's `input_size`. `rebatch` rewrites the constant inputs of shape-taking operators whose leading entry is
the old batch size to the new one. Other shape constants stay as exported, so a model that flattens the batch
into another dimension (`(batch * seq, d)`) keeps its exported batch; the caller checks by running once.
"""
from .program import Lit, TensorSpec

SHAPE_INPUTS = {"Reshape": 1, "Conv2DBackpropInput": 2}  # operator type -> index of its shape input


def rebatch(program, input_shapes):
    p = program.copy_structure()
    old_n = new_n = None
    for tid, shape in zip(p.inputs, input_shapes):
        spec = p.tensors[tid]
        if len(shape) != len(spec.shape):
            raise ValueError(f"resize: input '{spec.name}' has {len(spec.shape)} dimensions, but the new shape "
                             f"{list(shape)} has {len(shape)}.")
        if old_n is None and spec.shape:
            old_n, new_n = spec.shape[0], shape[0]
        p.tensors[tid] = TensorSpec(spec.name, shape, spec.dtype, spec.kind, spec.data)
    if old_n is None or old_n == new_n:
        return p
    for op in p.main.all_ops():
        k = SHAPE_INPUTS.get(op.type)
        if k is None or k >= len(op.inputs):
            continue
        item = op.inputs[k]
        if isinstance(item, Lit) and isinstance(item.value, tuple) and item.value and item.value[0] == old_n:
            op.inputs[k] = Lit((new_n,) + tuple(item.value[1:]))
    return p
