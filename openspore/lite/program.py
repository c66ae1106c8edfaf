"""The lite program: what a `.ms` file holds and what the runtime executes.

A `Program` is a table of tensors plus a `Block` of operators in execution order. Every value is a tensor id
(an index into `tensors`); an operator input is one of
* an `int` — a tensor id,
* a `Lit` — a Python constant the kernel receives as is (a shape tuple, an axis),
* a `list` of ints — a sequence of tensors (Concat's inputs).

Tensor kinds: `input` (fed by the caller), `const` (data folded in by the converter), `param` (a weight:
data in the file, replaced by `update_weights`, written by optimizers when training) and `act` (computed).
Control flow keeps its structure: an `if` operator holds two blocks (then, else) and reads
`(cond, *operands)`; a `while` holds (cond, body) blocks over its loop-carried operands. Blocks share the
program's tensor table: a block's `inputs` are the tensor ids its operands are bound to.

>>> p = Program()
>>> x = p.add_tensor("x", (2, 3), "float32", "input")
>>> y = p.add_tensor("y", (2, 3), "float32")
>>> p.main.ops.append(Op("ReLU", {}, [x], [y]))
>>> p.main.inputs, p.main.outputs = [x], [y]
>>> p.summary()
'1 ops (ReLU:1), 2 tensors, 0 weight bytes'
"""
from collections import Counter

import numpy as np

KINDS = ("input", "const", "param", "act")


class Lit:
    """A Python constant operator input."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __eq__(self, other):
        return isinstance(other, Lit) and type(other.value) is type(self.value) and other.value == self.value

    def __hash__(self):
        return hash(repr(self.value))

    def __repr__(self):
        return f"Lit({self.value!r})"


class TensorSpec:
    """One tensor: `name`, `shape` (tuple), `dtype` (numpy dtype name), `kind`, `data` (const/param)."""

    __slots__ = ("name", "shape", "dtype", "kind", "data", "quant")

    def __init__(self, name, shape, dtype, kind="act", data=None, quant=None):
        if kind not in KINDS:
            raise ValueError(f"tensor kind must be one of {KINDS}, got {kind!r}")
        self.name, self.shape, self.dtype, self.kind = name, tuple(shape), str(np.dtype(dtype)), kind
        self.data = data
        self.quant = quant  # how the stored data is quantized (see quantize.py), or None

    @property
    def nbytes(self):
        return int(np.prod(self.shape, dtype=np.int64)) * np.dtype(self.dtype).itemsize

    def __repr__(self):
        return f"TensorSpec({self.name!r}, {list(self.shape)}, {self.dtype}, {self.kind})"


class Op:
    """One operator: `type` (a primitive name or a lite kernel name), `attrs`, `inputs`, `outputs` (tensor
    ids), `name` (the scope it came from) and `blocks` (control flow)."""

    __slots__ = ("type", "attrs", "inputs", "outputs", "name", "blocks")

    def __init__(self, type, attrs, inputs, outputs, name="", blocks=()):
        self.type, self.attrs, self.inputs, self.outputs = type, dict(attrs), list(inputs), list(outputs)
        self.name, self.blocks = name, list(blocks)

    def tensor_inputs(self):
        """The tensor ids this op reads, in order (sequence inputs flattened)."""
        out = []
        for item in self.inputs:
            if type(item) is int:
                out.append(item)
            elif type(item) is list:
                out.extend(item)
        return out

    def __repr__(self):
        return f"Op({self.type}, in={self.inputs}, out={self.outputs})"


class Block:
    __slots__ = ("ops", "inputs", "outputs")

    def __init__(self, ops=(), inputs=(), outputs=()):
        self.ops, self.inputs, self.outputs = list(ops), list(inputs), list(outputs)

    def all_ops(self):
        """Every op of this block and its nested blocks, depth first."""
        for op in self.ops:
            yield op
            for b in op.blocks:
                yield from b.all_ops()


class Program:
    def __init__(self):
        self.tensors = []
        self.main = Block()
        self.meta = {}  # producer, train info, quantization, fp16 ...

    def add_tensor(self, name, shape, dtype, kind="act", data=None):
        self.tensors.append(TensorSpec(name, shape, dtype, kind, data))
        return len(self.tensors) - 1

    @property
    def inputs(self):
        return self.main.inputs

    @property
    def outputs(self):
        return self.main.outputs

    def params(self):
        return [i for i, t in enumerate(self.tensors) if t.kind == "param"]

    def producers(self):
        """tensor id -> the op (of any block) that writes it."""
        return {o: op for op in self.main.all_ops() for o in op.outputs}

    def users(self):
        """tensor id -> ops (of any block) reading it; block outputs count as a use by None."""
        out = {}
        for op in self.main.all_ops():
            for t in op.tensor_inputs():
                out.setdefault(t, []).append(op)
            for b in op.blocks:
                for t in b.outputs:
                    out.setdefault(t, []).append(None)
        for t in self.main.outputs:
            out.setdefault(t, []).append(None)
        return out

    def weight_bytes(self):
        return sum(t.data.nbytes for t in self.tensors if t.data is not None)

    def summary(self):
        counts = Counter(op.type for op in self.main.all_ops())
        kinds = ", ".join(f"{k}:{v}" for k, v in sorted(counts.items()))
        return (f"{sum(counts.values())} ops ({kinds}), {len(self.tensors)} tensors, "
                f"{self.weight_bytes()} weight bytes")

    def copy_structure(self):
        """A shallow copy sharing tensor specs and data (passes replace what they change)."""
        p = Program()
        p.tensors = list(self.tensors)
        p.main = _copy_block(self.main)
        p.meta = dict(self.meta)
        return p


def _copy_block(block):
    return Block([Op(op.type, op.attrs, op.inputs, op.outputs, op.name, [_copy_block(b) for b in op.blocks])
                  for op in block.ops], block.inputs, block.outputs)
