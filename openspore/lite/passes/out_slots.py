"""share_outputs: channels-last convolutions whose results are never alive at the same time write one buffer.

A compiled NHWC convolution (kernels/nhwc_serial.py) writes its result into a buffer it owns and returns that same
array at every call, so a model holds one output buffer per convolution (ResNet20: 19, 0.8 MB), and a call walks
through all of them; on a busy machine whose caches other processes keep evicting, the bytes a call touches cost
time. This pass gives each such convolution an `out_slot` attribute: convolutions with the same slot and output
shape share one buffer (per thread, kernels/nhwc.py). Two convolutions get the same slot only when the later one
runs after the last reader of the earlier one's result, so the overwrite never destroys a value still needed.

A reader is followed through views: any operator other than a convolution (which copies its input into its own
buffers) and a `LiteDense` (a new array) may return a view of its input (a Reshape, a LiteLayout into NHWC), so
the readers of its result count as readers of the convolution's result too. A result the block returns is alive
to the end. Programs with control flow are left as they are (the layout pass converts none of them).

>>> from openspore.lite.program import Program, Op
>>> p = Program()
>>> x, w, a, b, c = (p.add_tensor(n, (1, 4, 4, 8), "float32") for n in "xwabc")
>>> p.main.inputs, p.main.outputs = [x], [c]
>>> conv = lambda i, o: Op("LiteConv2D", {"layout": "NHWC"}, [i, w], [o])
>>> p.main.ops = [conv(x, a), conv(a, b), conv(b, c)]
>>> [op.attrs["out_slot"] for op in share_outputs(p).main.ops]    # a is dead once b is computed
[0, 1, 0]
"""
_COPYING = {"LiteConv2D", "LiteDense"}


def share_outputs(program):
    block = program.main
    if any(op.blocks for op in block.ops):
        return program
    convs = [k for k, op in enumerate(block.ops) if _slotted(op)]
    if not convs:
        return program
    end = len(block.ops)
    last = {t: end for t in block.outputs}  # tensor id -> index of the last op reading it or a view of it
    for k in range(end - 1, -1, -1):  # backwards: an op's outputs' last reads are known before its inputs
        op = block.ops[k]
        reach = k
        if op.type not in _COPYING:
            reach = max([k] + [last.get(t, k) for t in op.outputs])
        for t in op.tensor_inputs():
            last[t] = max(last.get(t, -1), reach)
    p = program.copy_structure()
    free_at = []  # slot -> index after which its last occupant is dead
    for k in convs:
        op = p.main.ops[k]
        out = op.outputs[0]
        dies = last.get(out, k)
        slot = next((s for s, f in enumerate(free_at) if f < k), None)
        if slot is None:
            slot = len(free_at)
            free_at.append(dies)
        else:
            free_at[slot] = dies
        op.attrs = dict(op.attrs, out_slot=slot)
    return p


def _slotted(op):
    return op.type == "LiteConv2D" and op.attrs.get("layout") == "NHWC" and len(op.outputs) == 1
