"""openspore IR `Graph` → MindIR `ModelProto`, written the way MindSpore 2.10 writes it (facts §2.2).

Conventions reproduced (compare the fixture exports in shared/fixtures/mindspore):
* Names: graphs `<id>_<id>_<module>_<Class>_construct_<id>` (branches `…_✓<module>…` / `…_✗<module>…`); values
  `<graph>:CNode_<id>:<n>` with `output[0] == name`; constants `ValueNode_<id>` without the graph prefix; one
  counter numbers values and primitives (`Load:2`, `MatMul:4`), another the debug ids.
* Ops: `REF::<primitive>` into `ModelProto.primitives` (PRIMITIVE_FUNCTION primitives shared per op type);
  `shape` attribute = the inferred abstract value; `domain` = scope with per-scope op numbering
  (`Default/fc1-Dense/MatMul-op0`); main-graph ops carry `node_attr checkpoint = True`.
* Weights: `graph.parameter` (name `<graph>:<param>`, `ref_key` = Parameter.name, raw little-endian bytes).
  Each read is `Load(param, U)` on the UMONAD constant; the loads since the last update are gathered by
  `MakeTuple` into `UpdateState(U, tuple)`; in-place ops take the parameter itself and the monad and are
  followed by `UpdateState`; the output is `Depend(result, U)`.
* `if`: branch graphs in `ModelProto.functions` taking the operands plus a `u` monad and ending in
  `Depend(result, u)`; the caller builds `Partial(branch, operands…, U)` twice, `Switch(cond, p_true, p_false)`
  and calls it with a node whose op_type is `REF::<switch value>` and which has no inputs.
"""
import itertools
import re
import time

from ..core.primitive import AbstractTensor
from ..core.tensor import Tensor
from . import mind_ir_pb2 as pb
from .export_graph import ExportError, unsupported_report
from .mindir_encode import (EncodeError, closure_attribute, const_key, fill_tensor, primitive_attribute, set_constant,
                            shape_attribute, value_info)
from .mindir_values import MONAD
from .mindir_write_ops import ALIASES, PRIMITIVE, Const, encode, supported

_ATTR = pb.AttributeProto
_OP_SUFFIX = re.compile(r".+-op\d+$")
# Plumbing primitives: all PRIMITIVE; Depend and Partial propagate side effects.
_PLUMBING_ATTRS = {"Depend": [("side_effect_propagate", 1)], "Partial": [("side_effect_propagate", 1)]}


class _Ref:
    """A Parameter reference: a weight of the main graph or a branch input bound to one. Read through `Load`."""

    __slots__ = ("name", "scope", "abstract")

    def __init__(self, name, scope, abstract):
        self.name, self.scope, self.abstract = name, scope, abstract


class _Const:
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


class _Single:
    """The call of an `if` whose result is a one-element tuple: element 0 is the call's value itself."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name


def is_writable(node):
    if node.op == "while":
        return "while (a loop whose condition is a tensor)"
    if node.is_primitive and not supported(node.op_name) and node.op_name != "Depend":
        return node.op_name
    return True


def build_model(captured):
    """The ModelProto of a `Captured` network (see `export_graph.capture`)."""
    unsupported_report(captured.graph, is_writable, "export", "MINDIR")
    return _ModelWriter(captured).write()


class _ModelWriter:
    def __init__(self, captured):
        self.cap = captured
        self.module = captured.module.replace(".", "_")
        self.model = pb.ModelProto(ir_version="1.1", producer_name="MindSpore", model_version="2.10.0",
                                   little_endian=True, mind_ir_version=3)
        self.seq = itertools.count(1)       # the `:<n>` of value names and primitive names
        self.debug = itertools.count(1)     # graph ids, CNode_<id>, ValueNode_<id>
        self.prims = {}                     # key -> primitive name
        self.op_counts = {}                 # (scope prefix, op type) -> next op number
        self.params = {}                    # checkpoint name -> Parameter (weights the graphs read)

    def graph_name(self, mark=""):
        a, b, c = next(self.debug), next(self.debug), next(self.debug)
        return f"{a}_{b}_{mark}{self.module}_{self.cap.class_name}_construct_{c}"

    def primitive(self, op_type, prim_type, instance_name="", attrs=()):
        protos = [primitive_attribute(k, v) for k, v in attrs]
        key = (op_type, prim_type, instance_name, tuple(p.SerializeToString(deterministic=True) for p in protos))
        name = self.prims.get(key)
        if name is None:
            name = self.prims[key] = f"{op_type}:{next(self.seq)}"
            proto = self.model.primitives.add(name=name, op_type=op_type, instance_name=instance_name,
                                              prim_type=prim_type)
            proto.attribute.extend(protos)
        return name

    def domain(self, scope, op_type):
        prefix = scope or "Default"
        head, _, last = prefix.rpartition("/")
        if head and _OP_SUFFIX.match(last):
            prefix = head
        k = self.op_counts.get((prefix, op_type), 0)
        self.op_counts[(prefix, op_type)] = k + 1
        return f"{prefix}/{op_type}-op{k}"

    def write(self):
        graph, gp = self.cap.graph, self.model.graph
        gp.name = self.graph_name()
        w = _GraphWriter(self, graph, gp, main=True)
        for node in graph.inputs:
            name = w.unique(node.name or "input")
            w.env[node.id] = name
            value_info(gp.input.add(), name, node.abstract)
        w.write_nodes()
        out, abstract = w.finish(graph.output)
        value_info(gp.output.add(), out, abstract)
        # MindSpore's order: the owning cells in network order, each cell's parameters as its construct reads them.
        cells = self.cap.param_cells
        use = {n: i for i, n in enumerate(self.params)}
        for pname in sorted(self.params, key=lambda n: (cells.get(n, len(cells)), use[n])):
            tp = gp.parameter.add()
            try:
                fill_tensor(tp, self.params[pname], name=f"{gp.name}:{pname}")
            except EncodeError as exc:
                raise ExportError(f"For 'export', parameter '{pname}': {exc}") from None
            tp.ref_key = pname
            tp.compression_type = pb.TensorProto.NO_COMPRESSION
        gp.bprop_hash = ""
        gp.bprop_filepath = ""
        self._graph_flags(gp)
        return self.model

    def _graph_flags(self, gp):
        phase = f"export.mindir.{time.time_ns()}.{id(self.cap.net)}.0"
        flags = [("has_shard", False), ("flash_sp_send_recv_has_attached", True), ("phase", "export"),
                 ("check_set_strategy_valid_once_only", True), ("FLASH_SP_RUN_ONCE_ONLY", True),
                 ("FIAS_SP_RUN_ONCE_ONLY", True), ("compile_phase", phase), ("less_bn", False),
                 ("training", self.cap.training), ("auto_parallel_finish_pre_action", True)]
        for k, v in flags:
            set_constant(gp.attribute.add(name=k), v)

    def branch(self, graph, operands, mark):
        """Write `graph` (an `if` branch) into `functions`; `operands` are the caller's entries for its inputs."""
        gp = self.model.functions.add()
        gp.name = self.graph_name(mark)
        w = _GraphWriter(self, graph, gp, main=False)
        for node, outer in zip(graph.inputs, operands):
            base = outer.name.rpartition(":")[2] if isinstance(outer, _Ref) else (node.name or "arg")
            name = w.unique(base)
            w.env[node.id] = _Ref(name, outer.scope, outer.abstract) if isinstance(outer, _Ref) else name
            value_info(gp.input.add(), name, node.abstract)
        w.u = w.unique("u")
        value_info(gp.input.add(), w.u, MONAD)
        single = isinstance(graph.output.abstract, tuple) and len(graph.output.abstract) == 1
        # A one-element result is returned as the element itself: its make_tuple is not written.
        w.write_nodes(skip=graph.output.id if single and graph.output.op == "make_tuple" else None)
        out, abstract = w.finish(graph.output, single=single)
        value_info(gp.output.add(), out, abstract)
        for k, v in (("defer_inline", False), ("undeterminate", False), ("training", self.cap.training)):
            set_constant(gp.attribute.add(name=k), v)
        return gp.name


class _GraphWriter:
    """Writes the nodes of one IR graph into one GraphProto."""

    def __init__(self, mw, graph, gp, main):
        self.mw, self.graph, self.gp, self.main = mw, graph, gp, main
        self.env = {}        # IR node id -> value name | _Ref | _Const | _Single
        self.consts = {}     # constant key -> ValueNode name
        self.loads = {}      # IR node id -> name of its Load
        self.pending = []    # (name, abstract) of the loads since the last UpdateState
        self.u = None        # the current monad value
        self.names = set()

    def unique(self, base):
        name, k = f"{self.gp.name}:{base}", 1
        while name in self.names:
            name, k = f"{self.gp.name}:{base}_{k}", k + 1
        self.names.add(name)
        return name

    # ---- emitting -------------------------------------------------------------------------------------
    def emit(self, op_type, inputs, abstract, scope="", prim_type=PRIMITIVE, instance_name="", attrs=(),
             ref=None, domain=None):
        name = f"{self.gp.name}:CNode_{next(self.mw.debug)}:{next(self.mw.seq)}"
        target = ref or self.mw.primitive(op_type, prim_type, instance_name, attrs)
        node = self.gp.node.add(input=inputs, output=[name], name=name, op_type=f"REF::{target}")
        if isinstance(abstract, _Closure):
            node.attribute.append(closure_attribute(abstract))
        elif abstract is not None:
            node.attribute.append(shape_attribute(abstract))
        node.domain = domain if domain is not None else self.mw.domain(scope, op_type)
        if self.main and ref is None:
            node.node_attr.add(name="checkpoint", type=_ATTR.BOOL, i=1)
        return name

    def plumbing(self, op_type, inputs, abstract, scope=""):
        return self.emit(op_type, inputs, abstract, scope, attrs=_PLUMBING_ATTRS.get(op_type, ()))

    def constant(self, value):
        key = const_key(value)
        name = self.consts.get(key)
        if name is None:
            attr = _ATTR(name="value")
            try:
                set_constant(attr, value)
            except EncodeError as exc:
                raise ExportError(f"For 'export', in graph '{self.gp.name}': {exc}") from None
            name = self.consts[key] = f"ValueNode_{next(self.mw.debug)}"
            self.gp.node.add(output=[name], name=name, op_type="Constant", attribute=[attr])
        return name

    def monad(self):
        if self.u is None:
            self.u = self.constant(MONAD)
        return self.u

    def flush(self):
        """Order the pending loads before what follows: U = UpdateState(U, loads)."""
        u = self.monad()
        if self.pending:
            names, abstracts = zip(*self.pending)
            tup = names[0] if len(names) == 1 else self.plumbing("MakeTuple", list(names), tuple(abstracts))
            self.u = self.plumbing("UpdateState", [u, tup], MONAD)
            self.pending = []
        return self.u

    # ---- values ---------------------------------------------------------------------------------------
    def value(self, node, ref=False):
        entry = self.env[node.id]
        if isinstance(entry, str):
            return entry
        if isinstance(entry, _Single):
            return entry.name
        if isinstance(entry, _Const):
            return self.constant(entry.value)
        if ref:
            return entry.name
        name = self.loads.get(node.id)
        if name is None:
            name = self.loads[node.id] = self.plumbing("Load", [entry.name, self.monad()], entry.abstract,
                                                       entry.scope)
            self.pending.append((name, entry.abstract))
        return name

    def arg(self, item, ref=False):
        return self.constant(item.value) if isinstance(item, Const) else self.value(item, ref)

    # ---- nodes ----------------------------------------------------------------------------------------
    def write_nodes(self, skip=None):
        for n in self.graph.nodes:
            if n.id == skip:
                continue
            if n.op == "weight":
                param = n.value
                self.mw.params.setdefault(param.name, param)
                self.env[n.id] = _Ref(f"{self.gp.name}:{param.name}", n.scope, n.abstract)
            elif n.op == "const":
                self.env[n.id] = _Const(n.value)
            elif n.op == "make_tuple":
                self._make_tuple(n)
            elif n.op == "tuple_get_item":
                self._get_item(n)
            elif n.op == "if":
                self._if(n)
            elif n.op == "input":
                raise ExportError(f"For 'export', graph '{self.graph.name}' has an input node among its body nodes.")
            else:
                self._primitive(n)

    def _make_tuple(self, n):
        entries = [self.env[i.id] for i in n.inputs]
        if all(isinstance(e, _Const) for e in entries):
            self.env[n.id] = _Const(tuple(e.value for e in entries))
        else:
            self.env[n.id] = self.plumbing("MakeTuple", [self.value(i) for i in n.inputs], n.abstract, n.scope)

    def _get_item(self, n):
        src, entry = n.inputs[0], self.env[n.inputs[0].id]
        if isinstance(entry, _Single):
            self.env[n.id] = entry.name
        elif src.op == "make_tuple":
            self.env[n.id] = self.env[src.inputs[n.index].id]
        elif isinstance(entry, _Const):
            self.env[n.id] = _Const(entry.value[n.index])
        else:
            self.env[n.id] = self.plumbing("TupleGetItem", [self.value(src), self.constant(n.index)], n.abstract,
                                           n.scope)

    def _primitive(self, n):
        if n.op_name in ALIASES:
            self.env[n.id] = self.env[n.inputs[0].id]
            return
        if n.op_name == "Depend":
            self.env[n.id] = self.plumbing("Depend", [self.value(i) for i in n.inputs], n.abstract, n.scope)
            return
        try:
            enc = encode(n)
        except ValueError as exc:
            raise ExportError(f"For 'export', node {n.op_name} at {n.scope or self.graph.name}: {exc}") from None
        in_place = n.op.side_effect
        inputs = [self.arg(item, ref=in_place) for item in enc.inputs]
        if in_place:
            inputs.append(self.flush())
        name = self.emit(enc.op_type, inputs, enc.abstract, n.scope, enc.prim_type, enc.instance_name, enc.attrs)
        if in_place:
            self.u = self.plumbing("UpdateState", [self.u, name], MONAD, n.scope)
        self.env[n.id] = name

    def _if(self, n):
        cond = self.value(n.inputs[0])
        operands = []
        for op in n.inputs[1:]:
            entry = self.env[op.id]
            operands.append(entry if isinstance(entry, _Ref) else _Named(self.value(op)))
        names = [self.mw.branch(g, operands, mark) for g, mark in zip(n.graphs, ("✓", "✗"))]
        args = [self.value(op, ref=True) if isinstance(self.env[op.id], _Ref) else o.name
                for op, o in zip(n.inputs[1:], operands)]
        u = self.flush()
        partials = [self.plumbing("Partial", [g, *args, u], _Closure(g), n.scope) for g in names]
        switch = self.plumbing("Switch", [cond, *partials], _Closure(*names), n.scope)
        single = isinstance(n.abstract, tuple) and len(n.abstract) == 1
        abstract = n.abstract[0] if single else n.abstract
        call = self.emit("call", [], abstract, ref=switch, domain="0")
        self.u = self.plumbing("UpdateState", [u, call], MONAD, n.scope)
        self.env[n.id] = _Single(call) if single else call

    def finish(self, output, single=False):
        """Write the graph's result (with the monad chain) and return (output value name, abstract)."""
        abstract = output.abstract
        if single:
            if output.op == "make_tuple":
                output, abstract = output.inputs[0], output.inputs[0].abstract
            elif isinstance(self.env[output.id], _Single):
                abstract = abstract[0]
            else:
                result = self.plumbing("TupleGetItem", [self.value(output), self.constant(0)], abstract[0])
                return self._depend(result, abstract[0])
        if abstract is None:
            abstract = _const_abstract(self.env[output.id])
        return self._depend(self.value(output), abstract)

    def _depend(self, result, abstract):
        if self.u is None and not self.pending:
            return result, abstract
        return self.plumbing("Depend", [result, self.flush()], abstract), abstract


class _Named:
    """An operand passed to a branch by value name."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name


class _Closure(tuple):
    """The abstract value of a Partial (one graph) or a Switch (two): written as FUNCGRAPHCLOSURE values."""

    def __new__(cls, *names):
        return super().__new__(cls, names)


def _const_abstract(entry):
    if isinstance(entry, _Const) and isinstance(entry.value, Tensor):
        return AbstractTensor(entry.value.shape, entry.value.dtype)
    raise ExportError("For 'export', the network must return tensors, but it returns a constant "
                      f"{getattr(entry, 'value', entry)!r:.60}.")
