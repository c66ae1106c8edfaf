"""The executor: an optimized IR graph becomes generated straight-line Python over backend arrays.

`compile_graph(graph, backend)` writes one Python function per graph (nested `if`/`while`/`call` subgraphs get
functions of their own) with one line per node:

    def graph_net(v0, *, xp=xp, k2=k2, p2=p2, w1=w1):
        v1 = w1.data_ref()                 # weight: read from its Parameter at every call
        v2 = k2(p2, xp, v0, v1)            # MatMul kernel, primitive bound at compile time
        del v0, v1                         # last use: the arrays can be freed / their buffers reused
        return [v2]

Kernels, primitives, constants and Parameters are bound as keyword-only defaults, so every name the body reads
is a fast local. There is no Tensor wrapping, no inference and no dispatch inside: the graph was inferred when
it was traced. Random kernels draw from the host RNG inside the kernel, in node order, so the stream matches
PyNative's; side-effecting kernels write in place into the Parameter's array.

The top-level function returns the flat list of the output's leaves (a `make_tuple` output or a tuple-valued
node is expanded recursively); subgraph functions return their output value as it is.

Given the graph's memory plan (`memory_optimize_level="O1"`), the top function runs in an arena (arena.py):
every planned tensor is written into its view of one preallocated buffer, and what leaves the step is copied
out of it if it still points into it:

    def graph_net(v0, *, xp=xp, k2=k2, p2=p2, w1=w1, A=arena, put=put):
        S = A.acquire()
        B, (a0,) = S
        v1 = w1.data_ref()
        v2 = put(a0, k2(p2, xp, v0, v1))   # the kernel's result, written at its planned offset
        ...
"""
import linecache
import os
import time
import weakref

from ..common.codegen import Bindings, failing_item, is_literal, load_source
from ..core.primitive import AbstractTensor
from ..core.tensor import Tensor

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_KERNEL_ERRORS = (ValueError, TypeError, IndexError, RuntimeError)
_serial = [0]


class CompiledGraph:
    """A callable `(*input_arrays) -> list of output arrays` with its generated `source` kept for debugging."""

    __slots__ = ("fn", "source", "graph", "backend", "filename", "lines", "compile_time", "out_dtypes", "arena",
                 "__weakref__")

    def __init__(self, fn, source, graph, backend, filename, lines, compile_time, out_dtypes):
        self.fn, self.source, self.graph, self.backend = fn, source, graph, backend
        self.filename, self.lines, self.compile_time = filename, lines, compile_time
        self.out_dtypes = out_dtypes  # per output leaf: its dtype, or None for a Python value
        self.arena = None  # the Arena (arena.py) of the top graph's planned tensors, if it runs in one

    def __call__(self, *arrays):
        try:
            return self.fn(*arrays)
        except _KERNEL_ERRORS as exc:
            node = self._failing_node(exc.__traceback__)
            if node is None:
                raise
            raise _located(exc, node, self.backend) from None

    def _failing_node(self, tb):
        """The node whose generated line raised (the innermost frame in our generated code)."""
        return failing_item(tb, self.filename, self.lines)

    def __repr__(self):
        return f"CompiledGraph(@{self.graph.name}, {len(self.graph.nodes)} nodes)"


def _located(exc, node, backend):
    where = node.scope + (f" @ {node.loc}" if node.loc else "")
    prefix = f"For '{node.op_name}', the {backend.name} kernel failed: " if node.is_primitive else ""
    msg = f"{prefix}{exc.args[0] if exc.args else exc}\n  in graph node {where or node.op_name}"
    try:
        new = type(exc)(msg)
    except Exception:  # an exception type with an unusual constructor: keep the original
        return exc
    new._openspore_located = True
    return new


def compile_graph(graph, backend, observer=None, plan=None):
    """Generate, compile and return a `CompiledGraph` for `graph` on `backend` (a backend object).
    `observer` (runtime/events.py): dump/debugger hooks are generated into the code only when one is given.
    `plan`: the graph's GraphPlan (compiler/memory): its tensors are then placed in one arena (not with hooks,
    which keep values past their planned lifetimes)."""
    t0 = time.perf_counter()
    gen = _Codegen(backend, observer.for_graph(graph, backend) if observer is not None else None)
    if plan is not None and observer is None:
        gen.arena_for(graph, plan)
    top = gen.function(graph, top=True)
    source = "\n".join(gen.lines) + "\n"
    _serial[0] += 1
    filename = os.path.join(_PACKAGE_DIR, "runtime", f"<graph {graph.name} #{_serial[0]}>")
    fn = load_source(source, filename, gen.bindings)[top]
    compiled = CompiledGraph(fn, source, graph, backend, filename, gen.line_nodes, time.perf_counter() - t0,
                             gen.out_dtypes)
    compiled.arena = gen.arena
    weakref.finalize(compiled, linecache.cache.pop, filename, None)  # tracebacks show the code while it lives
    return compiled


class _Codegen(Bindings):
    """Writes the functions of one compile into `lines`; `bindings` is the module namespace they read."""

    def __init__(self, backend, hook=None):
        super().__init__({"xp": backend.xp})
        self.backend = backend
        self.hook = hook  # debugger/dump hook (events.py), or None: then no hook code is generated at all
        self.lines = []
        self.line_nodes = {}  # line number (1-based) -> node, for error messages
        self.done = {}        # (id(graph), flags) -> function name: a subgraph used twice is compiled once
        self.out_dtypes = []
        self.arena = None        # Arena of the top graph, when it runs on its memory plan
        self.arena_graph = None
        self.slots = {}          # node id -> slot index (or a tuple of them per leaf) in the arena's views

    def arena_for(self, graph, plan):
        """Run `graph` (the top graph) in an arena laid out by `plan`, if it can (arena.arena_slots)."""
        from .arena import Arena, arena_slots
        found = arena_slots(graph, plan)
        if found is None:
            return
        layout, self.slots, keys = found
        self.arena, self.arena_graph = Arena(self.backend, plan.peak, layout, keys), graph

    def function(self, graph, top=False, wrap_tuple=False):
        """Emit the function for `graph` (subgraph functions first); returns its module-level name.
        `wrap_tuple`: a loop body always returns a tuple of the next loop-carried values."""
        key = (id(graph), top, wrap_tuple)
        if key in self.done:
            return self.done[key]
        subs = {}
        for n in graph.nodes:
            if n.op == "if":
                subs[n.id] = (self.function(n.graphs[0]), self.function(n.graphs[1]))
            elif n.op == "while":
                subs[n.id] = (self.function(n.graphs[0]), self.function(n.graphs[1], wrap_tuple=True))
            elif n.op == "call":
                subs[n.id] = (self.function(n.graphs[0]),)
        self.serial += 1
        fname = f"graph{self.serial}_{_identifier(graph.name)}"
        self.done[key] = fname
        fn = _Function(self, graph, subs)
        body = fn.body(top, wrap_tuple)
        self.lines.append(fn.header(fname))
        for text, node in body:
            for k, line in enumerate(text.split("\n")):
                self.lines.append("    " + line)
                if node is not None and k == 0:
                    self.line_nodes[len(self.lines)] = node
        self.lines.append("")
        return fname


class _Function:
    """The body of one generated function: local names for values, keyword-only defaults for bound objects."""

    def __init__(self, gen, graph, subs):
        self.gen, self.graph, self.subs = gen, graph, subs
        self.names = {}      # node id -> local expression (a variable, a bound object or a literal)
        self.defaults = {"xp": "xp"}  # local name -> module-level name
        self.pos = 0
        self.native = None   # local name of the backend's native array class, once a weight read needs it

    def header(self, fname):
        params = ", ".join(self.names[n.id] for n in self.graph.inputs)
        kw = ", ".join(f"{local}={glob}" for local, glob in self.defaults.items())
        if kw:
            params = f"{params}, *, {kw}" if params else f"*, {kw}"
        return f"def {fname}({params}):"

    def _local(self, prefix, glob):
        local = f"{prefix}{self.pos}"
        while local in self.defaults:
            local += "_"
        self.defaults[local] = glob
        return local

    def _bind(self, prefix, value):
        return self._local(prefix, self.gen.bind(prefix, value))

    def _var(self, node):
        name = self.names[node.id] = f"v{self.pos}"
        return name

    def body(self, top, wrap_tuple):
        g = self.graph
        for self.pos, n in enumerate(g.inputs):
            self._var(n)
        base = len(g.inputs)
        dead_after, used = _liveness(g)
        as_list = _list_tuples(g)
        self.first_only = _first_only(g)
        out = []
        self.arena = self.gen.arena if top and g is self.gen.arena_graph else None
        if self.arena is not None:
            self.defaults["A"] = self.gen.bind("A", self.arena)
            self.defaults["put"] = self.gen.bind("put", self.gen.backend.copy_into)
            views = ", ".join(f"a{i}" for i in range(len(self.arena.layout)))
            out.append(("S = A.acquire()", None))
            out.append((f"B, ({views},) = S", None))
        for k, n in enumerate(g.nodes):
            self.pos = base + k
            needed = n.id in used or (n is g.output and n.op != "make_tuple")
            text = self._node(n, needed, as_list)
            if text is not None:
                out.append((text, n))
            dead = [self.names[i] for i in dead_after.get(k, ()) if self.names.get(i, "").startswith("v")]
            if dead:
                out.append((f"del {', '.join(dead)}", None))
        hook = self.gen.hook
        if hook is not None and top:  # a step of the top graph is one dump iteration
            o = self._bind("o", hook)
            out.insert(0, (f"{o}.begin([{', '.join(self.names[n.id] for n in g.inputs)}])", None))
            out.append((f"{o}.end()", None))
        out.append((self._return(g.output, top, wrap_tuple), None))
        return out

    def _ref(self, node):
        try:
            return self.names[node.id]
        except KeyError:
            raise ValueError(f"graph @{self.graph.name}: a node uses {node!r}, which is not defined before it in "
                             "this graph (subgraphs must receive outer values as operands)") from None

    def _node(self, n, used, as_list):
        op = n.op
        if op == "const":
            self.names[n.id] = self._const(n.value)
            return None
        if not used and op in ("weight", "make_tuple", "tuple_get_item"):
            return None  # reading nothing has no effect
        if op == "weight":
            w, native = self._bind("w", n.value), self.gen.backend.native_type
            if native is None or not hasattr(n.value, "_data"):
                return f"{self._var(n)} = {w}.data_ref()"
            # the array itself when it is already the backend's (data_ref's checks cost ~1.5 µs a read: 56 reads
            # are 3% of a GPT decode step); data_ref when it is lazy (None) or another backend's
            if self.native is None:
                self.native = self._bind("nt", native)
            return f"{self._var(n)} = {w}._data if {w}._data.__class__ is {self.native} else {w}.data_ref()"
        args = ", ".join(self._ref(i) for i in n.inputs)
        if op == "make_tuple":
            if n.id in as_list:
                return f"{self._var(n)} = [{args}]"
            return f"{self._var(n)} = {_tuple_expr(args, len(n.inputs))}"
        if op == "tuple_get_item":
            return f"{self._var(n)} = {self._ref(n.inputs[0])}[{int(n.index)}]"
        if op == "if":
            then_fn, else_fn = (self._local("g", name) for name in self.subs[n.id])
            operands = ", ".join(self._ref(i) for i in n.inputs[1:])
            call = f"{then_fn}({operands}) if {self._ref(n.inputs[0])} else {else_fn}({operands})"
            return f"{self._var(n)} = {call}" if used else call
        if op == "while":
            cond_fn, body_fn = (self._local("g", name) for name in self.subs[n.id])
            state = self._var(n)
            return (f"{state} = {_tuple_expr(args, len(n.inputs))}\n"
                    f"while {cond_fn}(*{state}):\n"
                    f"    {state} = {body_fn}(*{state})")
        if op == "call":
            fn = self._local("g", self.subs[n.id][0])
            return f"{self._var(n)} = {fn}({args})" if used else f"{fn}({args})"
        backend = self.gen.backend
        partial = backend.partial_dtypes and _touches(n, backend.partial_dtypes)
        first = None
        if n.id in self.first_only and not partial and self.gen.hook is None and n.id not in self.gen.slots:
            first = backend.first_kernel(op)
        bound = None
        if not partial and self.gen.hook is None and n.id not in self.gen.slots:
            bound = backend.bound_kernel(op, [i.value if i.op == "const" else i.abstract for i in n.inputs],
                                         n.id in self.first_only)
        if bound is not None:  # specialised for this node's fixed shapes: no primitive or xp to hand over
            call = f"{self._bind('kb', bound)}({args})"
            return f"{self._var(n)} = {call}" if used else call
        if first is not None:  # only output 0 is read: a kernel that computes only it, as a 1-tuple
            k = self._bind("k", first)
        else:
            k = self._bind("k", backend.guarded_kernel(op) if partial else backend.kernel(op))
        p = self._bind("p", op)
        call = f"{k}({p}, xp, {args})" if args else f"{k}({p}, xp)"
        if self.gen.hook is not None:
            return self._hooked(n, call, args)
        if used and self.arena is not None and n.id in self.gen.slots:
            call = self._into_arena(n, self.gen.slots[n.id], call, p, args)
        return f"{self._var(n)} = {call}" if used else call

    def _into_arena(self, n, slot, call, p, args):
        """The kernel call with its result written into the node's arena view(s): by the kernel itself when the
        primitive has an out= kernel (it falls back to its plain kernel when the operands do not fit), else
        copied by `put` (nothing is copied when the result already is the view)."""
        into = self.gen.backend.out_kernel(n.op)
        if isinstance(slot, tuple):
            views = "(" + ", ".join("None" if s is None else f"a{s}" for s in slot) + ",)"
            if into is not None:  # the out= kernel takes the tuple of views
                call = f"{self._bind('ko', into)}({p}, xp, {views}, {args})"
            return f"A.copy_leaves({views}, {call})"
        if into is not None:
            call = f"{self._bind('ko', into)}({p}, xp, a{slot}, {args})"
        return f"put(a{slot}, {call})"

    def _hooked(self, n, call, args):
        """The kernel call with the dump/debugger hook around it (only what the hook asked for this node)."""
        want_inputs, want_output = self.gen.hook.wants(n)
        if not (want_inputs or want_output):
            return f"{self._var(n)} = {call}"
        o = self._bind("o", self.gen.hook)
        lines = [f"{o}.inputs({n.id}, [{args}])"] if want_inputs else []
        lines.append(f"{self._var(n)} = {call}")
        if want_output:
            lines.append(f"{o}.output({n.id}, {self.names[n.id]})")
        return "\n".join(lines)

    def _const(self, value):
        if is_literal(value):
            return repr(value)
        if isinstance(value, Tensor):
            value = self.gen.backend.adopt(value.data_ref())
        return self._bind("c", value)

    def _return(self, output, top, wrap_tuple):
        if top:
            leaves = self._leaves(output)
            self.gen.out_dtypes = [a.dtype if isinstance(a, AbstractTensor) else None for _, a in leaves]
            if self.arena is not None:  # nothing that leaves the step may point into the arena
                owned = ", ".join(f"A.own(B, {expr})" for expr, _ in leaves)
                return f"R = [{owned}]\nA.release(S)\nreturn R"
            return f"return [{', '.join(expr for expr, _ in leaves)}]"
        if output.op == "make_tuple" and output.id not in self.names:
            return f"return {_tuple_expr(', '.join(self._ref(i) for i in output.inputs), len(output.inputs))}"
        ref = self._ref(output)
        if wrap_tuple and not _is_tuple_valued(output):
            return f"return ({ref},)"
        return f"return {ref}"

    def _leaves(self, node):
        """(expression, abstract) for the flat output leaves of `node` (nested make_tuples, tuple-valued nodes)."""
        if node.op == "make_tuple":
            out = []
            for i in node.inputs:
                out.extend(self._leaves(i))
            return out
        abstract = node.abstract
        if node.op == "const" and isinstance(node.value, Tensor):
            abstract = AbstractTensor(node.value.shape, node.value.dtype)
        return _abstract_leaves(abstract, self._ref(node))


def _tuple_expr(args, n):
    return f"({args},)" if n == 1 else f"({args})"


def _abstract_leaves(abstract, expr):
    """(expression, abstract) per leaf of a value of this abstract."""
    if isinstance(abstract, tuple):
        out = []
        for i, a in enumerate(abstract):
            out.extend(_abstract_leaves(a, f"{expr}[{i}]"))
        return out
    return [(expr, abstract)]


def _touches(node, dtypes):
    """Whether the node's result or an operand may have one of `dtypes` (an operand of unknown type may)."""
    for source in (node, *node.inputs):
        if source.op == "const":  # a Python value (shape, axis) or a constant tensor
            if getattr(source.value, "dtype", None) in dtypes:
                return True
            continue
        for _, leaf in _abstract_leaves(source.abstract, ""):
            if leaf is None or (isinstance(leaf, AbstractTensor) and leaf.dtype in dtypes):
                return True
    return False


def _is_tuple_valued(node):
    return node.op in ("make_tuple", "while") or isinstance(node.abstract, tuple)


def _identifier(name):
    return "".join(c if c.isalnum() or c == "_" else "_" for c in str(name))[:40] or "graph"


def _liveness(graph):
    """(position -> ids of values whose last use is the node at that position, ids of values some node uses).

    The output's values (and the leaves of an output make_tuple) live to the end; they are never deleted."""
    last = {}
    for pos, n in enumerate(graph.nodes):
        for i in n.inputs:
            last[i.id] = pos
    keep = _output_ids(graph.output)
    dead_after = {}
    for vid, pos in last.items():
        if vid not in keep:
            dead_after.setdefault(pos, []).append(vid)
    return dead_after, set(last)


def _first_only(graph):
    """Ids of primitive nodes with several outputs of which only output 0 is read (by tuple_get_item nodes; not
    the graph's output): their backend's `first_kernel`, when the primitive has one, computes only that output."""
    readers = {}
    for n in graph.nodes:
        for i in n.inputs:
            readers.setdefault(i.id, []).append(n)
    keep = _output_ids(graph.output)
    return {n.id for n in graph.nodes
            if n.is_primitive and isinstance(n.abstract, tuple) and n.id in readers and n.id not in keep
            and all(r.op == "tuple_get_item" and int(r.index) == 0 for r in readers[n.id])}


def _output_ids(output):
    ids = {output.id}
    if output.op == "make_tuple":
        for i in output.inputs:
            ids |= _output_ids(i)
    return ids


def _list_tuples(graph):
    """make_tuple nodes that feed a primitive with tensors inside: kernels receive tensor sequences as lists,
    as PyNative's bind hands them over."""
    out = set()
    for n in graph.nodes:
        if n.is_primitive:
            for i in n.inputs:
                if i.op == "make_tuple" and i.inputs and isinstance(i.inputs[0].abstract, AbstractTensor):
                    out.add(i.id)
    return out
