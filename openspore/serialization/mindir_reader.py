"""MindIR `ModelProto` → openspore IR `Graph` + Parameters (facts §2.2).

How MindSpore encodes a graph, and what each piece becomes here:
* `REF::<prim>` op types point into `ModelProto.primitives`; the primitive's `op_type` selects a converter
  in `mindir_ops` (PRIMITIVE attributes come from the PrimitiveProto, PRIMITIVE_FUNCTION ones are inputs).
* Monad plumbing is dissolved: `Load(param, U)` is the weight itself, `UpdateState` only orders effects (our
  IR keeps program order), `Depend(x, y)` is `x`, `MakeTuple` is a Python tuple until a node needs it.
* Control flow: `Switch(cond, Partial(g_true, a…), Partial(g_false, b…))` followed by a call of the Switch
  result becomes one `if` node whose operands are the union of the captured values; each branch graph is
  re-built over those operands. A call of a plain Partial or function graph is inlined.
* Value names carry the graph name as prefix (`<graph>:x:3`); Constant names do not. Lookup is by exact name.

Unsupported op types are collected over the whole model first and reported together, so a model either
loads completely or not at all.
"""
from collections import OrderedDict, namedtuple

import numpy as np

from ..core.parameter import Parameter
from ..core.primitive import AbstractTensor
from ..core.tensor import Tensor
from ..ir import Node
from . import mind_ir_pb2 as pb
from . import mindir_ops
from .mindir_builder import Builder
from .mindir_values import (MONAD, MindIRError, TensorSource, UnsupportedOpError, attribute_map, attribute_value,
                            tensor_dtype)

InputInfo = namedtuple("InputInfo", ["name", "shape", "dtype"])


class MindIRGraph:
    """A graph loaded from MindIR (what `load` returns; MindSpore's FuncGraph).

    `graph`: the openspore IR Graph; `parameters`: name → Parameter (the weights the graph reads);
    `inputs` / `outputs`: InputInfo(name, shape, dtype) as declared in the file; `file_name`; `info`: producer,
    versions. Run it with `nn.GraphCell(graph)`.
    """

    def __init__(self, graph, parameters, inputs, outputs, file_name="", info=None):
        self.graph = graph
        self.parameters = parameters
        self.inputs = inputs
        self.outputs = outputs
        self.file_name = file_name
        self.info = dict(info or {})

    def __repr__(self):
        ins = ", ".join(f"{i.name}: {i.dtype}{list(i.shape)}" for i in self.inputs)
        return f"MindIRGraph({self.graph.name}({ins}), {len(self.parameters)} parameters)"


class _Closure:
    """A function graph with some arguments already bound (`Partial`, or a bare graph reference)."""

    def __init__(self, graph, captured=()):
        self.graph, self.captured = graph, list(captured)


class _Switch:
    """The result of `Switch(cond, f_true, f_false)` with a computed condition: becomes `if` when called."""

    def __init__(self, cond, true, false):
        self.cond, self.true, self.false = cond, true, false


def read_model(model, file_name="", base_dir="."):
    """Convert a parsed ModelProto into a MindIRGraph."""
    return _Reader(model, file_name, base_dir).read()


class _Reader:
    def __init__(self, model, file_name, base_dir):
        self.model = model
        self.file = file_name or "<memory>"
        self.tensors = TensorSource(base_dir, model.little_endian if model.HasField("little_endian") else True)
        self.prims = {p.name: p for p in model.primitives}
        self.functions = {g.name: g for g in model.functions}
        self.params = OrderedDict()   # ref_key -> Parameter
        self.param_values = {}        # value name (with graph prefix) -> Parameter
        self._prim_attrs = {}
        self._active = []             # graph names being converted (recursion guard)

    def fail(self, message):
        return MindIRError(f"Failed to load the MindIR file {self.file}: {message}")

    # ---- whole model ------------------------------------------------------------------------------------
    def read(self):
        if not self.model.HasField("graph") or not self.model.graph.output:
            raise self.fail("it contains no graph (the file is empty or not a MindIR model).")
        main = self.model.graph
        self._check_supported([main, *self.model.functions])
        for gp in [main, *self.model.functions]:
            self._read_parameters(gp)
        b = Builder(main.name)
        args, inputs = [], []
        for vi in main.input:
            if _is_monad_input(vi):
                args.append(MONAD)
                continue
            info = self._input_info(main, vi)
            inputs.append(info)
            args.append(b.input(info.name, AbstractTensor(info.shape, info.dtype)))
        out = self._inline(main, args, b)
        self._check_output(out, main)
        graph = b.finish(out)
        outputs = [self._input_info(main, vi) for vi in main.output if vi.tensor]
        info = {"producer_name": self.model.producer_name, "model_version": self.model.model_version,
                "ir_version": self.model.ir_version, "mind_ir_version": self.model.mind_ir_version}
        return MindIRGraph(graph, self.params, inputs, outputs, self.file, info)

    def _check_supported(self, graphs):
        values = {out for gp in graphs for node in gp.node for out in (*node.output, node.name)}
        bad = OrderedDict()
        for gp in graphs:
            for node in gp.node:
                op = node.op_type
                if op == "Constant":
                    continue
                if op.startswith("REF::"):
                    ref = op[5:]
                    if ref in self.prims:
                        op = self.prims[ref].op_type
                    elif ref in self.functions or ref in values:
                        continue
                    else:
                        op = f"{op} (unresolved reference)"
                if op not in mindir_ops.CONVERTERS and op not in mindir_ops.PLUMBING:
                    bad.setdefault(op, []).append(f"graph '{gp.name}', node '{node.name}'")
        if bad:
            lines = "\n".join(f"  {op}: {'; '.join(places)}" for op, places in bad.items())
            raise UnsupportedOpError(f"Failed to load the MindIR file {self.file}: {len(bad)} unsupported operator "
                                     f"type(s) {list(bad)}:\n{lines}")

    def _read_parameters(self, gp):
        for tp in gp.parameter:
            where = f"graph '{gp.name}', parameter '{tp.name}'"
            key = tp.ref_key or _short(tp.name, gp.name)
            param = self.params.get(key)
            if param is None:
                try:
                    array = self.tensors.array(tp, where)
                except MindIRError as exc:
                    raise self.fail(str(exc)) from None
                dtype = tensor_dtype(tp.data_type, where)
                param = self.params[key] = Parameter(Tensor(array, dtype=dtype), name=key)
            self.param_values[tp.name] = param

    def _input_info(self, gp, vi):
        where = f"{self.file}: graph '{gp.name}', value '{vi.name}'"
        if len(vi.tensor) != 1:
            raise MindIRError(f"{where}: only tensor inputs and outputs are supported.")
        t = vi.tensor[0]
        shape = tuple(int(d) for d in t.dims)
        if any(d < -1 for d in shape):
            raise MindIRError(f"{where}: invalid dims {list(shape)}.")
        return InputInfo(_short(vi.name, gp.name), shape, tensor_dtype(t.data_type, where))

    def _check_output(self, value, gp):
        if isinstance(value, (_Closure, _Switch)) or value is MONAD:
            raise self.fail(f"graph '{gp.name}' returns a function or monad, which is not supported.")
        if isinstance(value, (tuple, list)):
            for v in value:
                self._check_output(v, gp)

    # ---- one graph --------------------------------------------------------------------------------------
    def _inline(self, gp, args, b):
        """Convert graph `gp` applied to `args` into builder `b`; returns the output value."""
        if gp.name in self._active:
            raise self.fail(f"graph '{gp.name}' calls itself; recursive graphs are not supported.")
        if len(args) != len(gp.input):
            raise self.fail(f"graph '{gp.name}' takes {len(gp.input)} inputs, but is called with {len(args)}.")
        self._active.append(gp.name)
        env = {vi.name: a for vi, a in zip(gp.input, args)}
        for node in gp.node:
            value = self._node(gp, node, env, b)
            for name in (*node.output, node.name):
                env[name] = value
        outs = [self._lookup(vi.name, env, b, f"graph '{gp.name}' output") for vi in gp.output]
        if not outs:
            raise self.fail(f"graph '{gp.name}' has no output.")
        self._active.pop()
        return outs[0] if len(outs) == 1 else tuple(outs)

    def _lookup(self, name, env, b, where):
        if name in env:
            return env[name]
        param = self.param_values.get(name)
        if param is not None:
            return b.weight(param)
        if name in self.functions:
            return _Closure(self.functions[name])
        raise self.fail(f"{where}: the value '{name}' is used before it is defined.")

    def _node(self, gp, node, env, b):
        where = f"graph '{gp.name}', node '{node.name}' ({node.op_type})"
        b.scope, b.label = node.domain, _short(node.name, gp.name)
        try:
            if node.op_type == "Constant":
                attr = next((a for a in node.attribute if a.name == "value"), None)
                if attr is None:
                    raise MindIRError("the Constant has no 'value' attribute.")
                return attribute_value(attr, "the constant", self.tensors)
            args = [self._lookup(n, env, b, where) for n in node.input]
            op = node.op_type
            if not op.startswith("REF::"):
                attrs = attribute_map([a for a in node.attribute if a.name != "shape"], "the node", self.tensors)
                return self._apply(op, args, attrs, b)
            ref = op[5:]
            if ref in self.prims:
                kind = self.prims[ref].op_type
                return self._apply(kind, args, {} if kind in mindir_ops.PLUMBING else self._attrs_of(ref), b)
            return self._call(self._lookup(ref, env, b, where), args, b)
        except MindIRError as exc:
            if str(exc).startswith("Failed to load"):
                raise
            raise self.fail(f"{where}: {exc}") from exc
        except Exception as exc:  # noqa: BLE001 - untrusted input: every failure is reported as a load error
            raise self.fail(f"{where}: {type(exc).__name__}: {exc}") from exc

    def _attrs_of(self, ref):
        attrs = self._prim_attrs.get(ref)
        if attrs is None:
            attrs = self._prim_attrs[ref] = attribute_map(self.prims[ref].attribute, f"primitive '{ref}'",
                                                          self.tensors)
        return attrs

    def _apply(self, op, args, attrs, b):
        if op in _ARITY and len(args) not in _ARITY[op]:
            raise ValueError(f"{op} takes {' or '.join(map(str, _ARITY[op]))} inputs, but got {len(args)}.")
        if op in ("Load", "Depend"):
            return args[0]
        if op == "UpdateState":
            return MONAD
        if op in ("MakeTuple", "MakeList"):
            return tuple(args)
        if op in ("TupleGetItem", "ListGetItem"):
            return b.get_item(args[0], args[1])
        if op == "Partial":
            if not args or not isinstance(args[0], _Closure):
                raise ValueError("Partial needs a function graph as its first input.")
            return _Closure(args[0].graph, args[0].captured + args[1:])
        if op == "Switch":
            cond, true, false = args
            if isinstance(cond, np.ndarray) and cond.size == 1:
                cond = bool(cond.reshape(()))
            if isinstance(cond, (bool, int)):
                return true if cond else false
            return _Switch(cond, true, false)
        values = [a for a in args if a is not MONAD]
        for v in values:
            if isinstance(v, (_Closure, _Switch)):
                raise ValueError("a function value is used as an operator input, which is not supported.")
        return mindir_ops.CONVERTERS[op](b, op, values, attrs)

    # ---- calls and control flow -------------------------------------------------------------------------
    def _call(self, fn, args, b):
        if isinstance(fn, _Closure):
            return self._inline(fn.graph, fn.captured + args, b)
        if isinstance(fn, _Switch):
            return self._branch(fn, args, b)
        raise ValueError(f"the called value is not a function (got {type(fn).__name__}).")

    def _branch(self, sw, args, b):
        if not isinstance(sw.cond, Node) or not isinstance(sw.cond.abstract, AbstractTensor):
            raise ValueError("the Switch condition must be a tensor.")
        branches = (sw.true, sw.false)
        if not all(isinstance(f, _Closure) for f in branches):
            raise ValueError("both Switch branches must be function graphs.")
        bound = [[b.node(v) if _holds_node(v) else v for v in f.captured + args] for f in branches]
        operands, seen = [], set()
        for values in bound:
            for v in values:
                if isinstance(v, Node) and v.id not in seen:
                    seen.add(v.id)
                    operands.append(v)
        graphs = []
        for f, values in zip(branches, bound):
            sub = Builder(f.graph.name)
            placeholders = {op.id: sub.input(op.name or f"arg{i}", op.abstract) for i, op in enumerate(operands)}
            inner = [placeholders[v.id] if isinstance(v, Node) else v for v in values]
            out = self._inline(f.graph, inner, sub)
            self._check_output(out, f.graph)
            graphs.append(sub.finish(out))
        if graphs[0].output.abstract != graphs[1].output.abstract:
            raise ValueError(f"the branches return different types: {graphs[0].output.abstract!r} and "
                             f"{graphs[1].output.abstract!r}.")
        return b.branch(sw.cond, operands, *graphs)


_ARITY = {"Load": (1, 2), "Depend": (2,), "TupleGetItem": (2,), "ListGetItem": (2,), "Switch": (3,)}


def _holds_node(value):
    return isinstance(value, (tuple, list)) and any(isinstance(v, Node) or _holds_node(v) for v in value)


def _is_monad_input(vi):
    monads = (pb.AttributeProto.UMONAD, pb.AttributeProto.IOMONAD)
    return not vi.tensor and (vi.denotation.endswith("MonadType") or vi.attr_info.type in monads)


def _short(name, graph_name):
    prefix = graph_name + ":"
    return name[len(prefix):] if name.startswith(prefix) else name
