"""openspore IR `Graph` → lite `Program` (the first step of every conversion).

Reading a MindIR file creates Parameters and constant Tensors; `load_mindir_program` does it with the numpy
backend in force for this thread (`backends.scoped`), so no torch is imported whatever the process context
says, and every array the program keeps is a plain numpy array.

Structural IR nodes dissolve: `make_tuple` becomes a sequence input or several block outputs, `tuple_get_item`
picks one output tensor of a multi-output operator, `call` is inlined, `if`/`while` keep their structure as
operators owning blocks.
"""
import numpy as np

from .. import backends
from ..core.primitive import AbstractTensor
from .program import Block, Lit, Op, Program


class LoweringError(ValueError):
    pass


class _Tup(tuple):
    """A tuple value in the IR (make_tuple, or a multi-output operator's outputs)."""


def numpy_scope():
    """The block in which openspore's readers create numpy-backed tensors (see module docstring)."""
    return backends.scoped(backends.get("numpy"))


def load_mindir_program(path):
    """Read a `.mindir` file into a Program (no optimisation)."""
    from ..serialization.load import load
    with numpy_scope():
        loaded = load(path)
        program = lower_graph(loaded.graph)
    program.meta.update(source=str(path), producer=loaded.info.get("producer_name", ""))
    return program


def lower_graph(graph):
    """A Program computing `graph` (call inside `numpy_scope()` when the graph holds Tensors)."""
    lw = _Lowering()
    ins = []
    for n in graph.inputs:
        if not isinstance(n.abstract, AbstractTensor):
            raise LoweringError(f"graph input '{n.name}' is not a tensor ({n.abstract!r}); lite models take tensors.")
        ins.append(lw.tensor(n.name or f"input{len(ins)}", n.abstract, "input"))
    lw.program.main = lw.block(graph, ins)
    return lw.program


class _Lowering:
    def __init__(self):
        self.program = Program()
        self.params = {}  # id(Parameter) -> tensor id
        self.names = set()

    def unique(self, name):
        base, k = name or "t", 1
        while name in self.names or not name:
            name = f"{base}_{k}"
            k += 1
        self.names.add(name)
        return name

    def tensor(self, name, abstract, kind="act", data=None):
        dtype = abstract.dtype.np_dtype
        return self.program.add_tensor(self.unique(name), abstract.shape, dtype, kind, data)

    def block(self, graph, input_ids):
        env = {n.id: t for n, t in zip(graph.inputs, input_ids)}
        ops = []
        for n in graph.nodes:
            env[n.id] = self.node(n, env, ops)
        outputs = [self.as_tensor(v, ops, f"{graph.name}_out") for v in _leaves(env[graph.output.id])]
        return Block(ops, input_ids, outputs)

    def as_tensor(self, value, ops, name):
        """A tensor id for an output value (constants become const tensors)."""
        if type(value) is int:
            return value
        if isinstance(value, Lit) and isinstance(value.value, (int, float, bool, np.ndarray, np.generic)):
            arr = np.asarray(value.value)
            if arr.dtype == np.float64:
                arr = arr.astype(np.float32)
            return self.program.add_tensor(self.unique(name), arr.shape, arr.dtype, "const", arr)
        raise LoweringError(f"a graph output is a {type(value).__name__} ({value!r}), not a tensor.")

    def node(self, n, env, ops):
        op = n.op
        if op == "weight":
            key = id(n.value)
            if key not in self.params:
                data = np.ascontiguousarray(n.value.asnumpy())
                self.params[key] = self.program.add_tensor(self.unique(n.value.name), data.shape, data.dtype,
                                                           "param", data)
            return self.params[key]
        if op == "const":
            return self.const(n)
        ins = [env[i.id] for i in n.inputs]
        if op == "make_tuple":
            return _Tup(ins)
        if op == "tuple_get_item":
            return ins[0][n.index]
        if op == "call":
            sub = n.graphs[0]
            inner = {g.id: v for g, v in zip(sub.inputs, ins)}
            for m in sub.nodes:
                inner[m.id] = self.node(m, inner, ops)
            return inner[sub.output.id]
        if op in ("if", "while"):
            return self.control(n, ins, ops)
        return self.primitive(n, ins, ops)

    def const(self, n):
        value = n.value
        if hasattr(value, "asnumpy"):
            value = value.asnumpy()
        if isinstance(value, np.ndarray):
            data = np.ascontiguousarray(value)
            return self.program.add_tensor(self.unique(n.name or "const"), data.shape, data.dtype, "const", data)
        return Lit(value)

    def primitive(self, n, ins, ops):
        inputs = [self.input_item(v, n) for v in ins]
        abstract = n.abstract
        leaves = list(abstract) if isinstance(abstract, tuple) else [abstract]
        if not all(isinstance(a, AbstractTensor) for a in leaves):
            raise LoweringError(f"node {n.op_name} ({n.scope}) returns {abstract!r}; lite operators return tensors.")
        base = (n.scope or n.op_name).rpartition("/")[2] or n.op_name
        outs = [self.tensor(base if len(leaves) == 1 else f"{base}:{k}", a) for k, a in enumerate(leaves)]
        attrs = dict(n.op.attrs)
        if isinstance(abstract, tuple) and len(leaves) == 1:
            attrs["__tuple_out__"] = True  # the kernel returns a one-element tuple
        ops.append(Op(n.op.name, attrs, inputs, outs, n.scope))
        return _Tup(outs) if isinstance(abstract, tuple) else outs[0]

    def input_item(self, value, n):
        if type(value) is int or isinstance(value, Lit):
            return value
        if isinstance(value, _Tup):
            if all(type(v) is int for v in value):
                return list(value)
            if all(isinstance(v, Lit) for v in value):
                return Lit(tuple(v.value for v in value))
        raise LoweringError(f"node {n.op_name} ({n.scope}): unsupported input {value!r} (a tuple mixing tensors "
                            "and constants).")

    def control(self, n, ins, ops):
        operands = ins[1:] if n.op == "if" else ins
        tensors = [self.as_tensor(v, ops, "operand") for v in operands]
        blocks = []
        for g in n.graphs:
            params = [self.tensor(i.name or "arg", i.abstract) for i in g.inputs]
            blocks.append(self.block(g, params))
        leaves = _abstract_leaves(n.abstract)
        outs = [self.tensor(f"{n.op}_out", a) for a in leaves]
        if n.op == "if":
            cond = self.as_tensor(ins[0], ops, "cond")
            if any(len(b.outputs) != len(outs) for b in blocks):
                raise LoweringError("the branches of an `if` return different numbers of values.")
            ops.append(Op("if", {}, [cond, *tensors], outs, n.scope, blocks))
        else:
            ops.append(Op("while", {}, tensors, outs, n.scope, blocks))
        return _Tup(outs) if isinstance(n.abstract, tuple) else outs[0]


def _leaves(value):
    if isinstance(value, _Tup):
        out = []
        for v in value:
            out.extend(_leaves(v))
        return out
    return [value]


def _abstract_leaves(abstract):
    if isinstance(abstract, tuple):
        out = []
        for a in abstract:
            out.extend(_abstract_leaves(a))
        return out
    if not isinstance(abstract, AbstractTensor):
        raise LoweringError(f"a control-flow result is {abstract!r}, not a tensor.")
    return [abstract]

