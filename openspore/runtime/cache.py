"""Compiled graphs of one function (or one Cell's construct), cached by call signature.

A `GraphCache` owns the entries of one function bound to one owner (a Cell instance or nothing). The key of a
call is (argument key, backend, optimisation level, owner state), where the owner state is each sub-cell's
`training` flag and the identity of its Parameters: a new Parameter VALUE does not recompile (weights are read
at call time), a replaced Parameter object or a flipped `set_train` does. Each compile is timed (frontend,
passes, codegen) and, with `log_recompile`, every recompile is logged with its reason.

Repeated calls skip building that key: `_FastPath` keeps the last call's entry with the generation counters
(common/generations.py) it was valid under. While no context setting, Cell structure or mode has changed since,
the backend and debugger generation are the same, and the call passes plain Tensors of the same shapes and
dtypes, the key would come out equal, so the entry is taken directly (a few attribute reads instead of walking
every sub-cell and Parameter). A frozen inference graph also needs its weights unchanged: when any tensor has
been written since, its arrays are compared in full (`Frozen.stale`) before it is trusted again. The
graph-kernel flags of the environment (MS_GRAPH_KERNEL_FLAGS) are read when a key is built: a first call, other
inputs, or after a context or Cell change (reading the environment would be a third of the fast path's cost).
"""
import logging
import os
import time
import weakref

from .. import backends, context
from . import events
from ..common.files import write_atomic
from ..common.generations import CHANGES, WRITES
from ..core.tensor import Tensor
from ..compiler.frontend.spec import TENSOR
from ..compiler.graph_kernel.flags import active_flags
from .executor import compile_graph
from .signature import describe_change, flatten_call, leaf_array, replace_mutables

logger = logging.getLogger("openspore.jit")
PLANS_CHECKED = [0]  # memory plans verified under debug_level="DEBUG" (a count, for test runs that check them)


class Entry:
    """One compiled graph: `compiled` (a CompiledGraph), the frontend's `unflatten`, output dtypes."""

    __slots__ = ("compiled", "unflatten", "out_dtypes", "compile_time", "times", "graph", "traced", "vjp",
                 "memory_plan", "frozen", "_engine", "single", "last_input")

    def __init__(self, compiled, traced, graph, times):
        self.compiled, self.traced, self.graph, self.times = compiled, traced, graph, times
        self.unflatten = traced.unflatten
        # one tensor out (an inference network's usual output): the leaf itself, without rebuilding a structure
        self.single = getattr(traced, "out_spec", None) == TENSOR
        self.out_dtypes = compiled.out_dtypes
        self.compile_time = sum(times.values())
        self.vjp = None  # the compiled backward of this graph, made on the first call under a grad transform
        self.memory_plan = None  # GraphPlans (compiler/memory) under memory_optimize_level O1 or save_graphs
        self.frozen = None  # inference path (runtime/inference.py): the Parameter arrays frozen into the graph
        self._engine = None  # inference path: "torch", "onnxruntime", "openvino" or "auto" (measured on first call)
        self.last_input = (None, None)  # (backend array, backend) of the last one-Tensor call (see `run`)

    @property
    def engine(self):
        """The inference path's engine: "torch", "onnxruntime" or "openvino" (under "auto", the one the first
        call measured fastest; "auto" before that call); None off the path."""
        return getattr(self.compiled, "chosen", None) or self._engine

    @engine.setter
    def engine(self, name):
        self._engine = name

    def run(self, leaves, backend):
        if self.single:  # one tensor out; with one Tensor in (batch-1 inference), no lists built on the way
            if len(leaves) == 1 and type(leaves[0]) is Tensor:
                data, last = leaves[0]._data, self.last_input
                if data is None or data is not last[0] or backend is not last[1]:
                    # `data_ref` asks torch whether the array is native (`is_cuda`); the same array object under
                    # the same backend was answered last call, and each torch call between two engine runs costs
                    # microseconds (runtime/engines.py `_HostViews`). Only inference entries remember it: a
                    # training step's input would be kept alive until the next step.
                    data = leaves[0].data_ref()
                    if self.frozen is not None:
                        self.last_input = (data, backend)
                out, dtype = self.compiled(data)[0], self.out_dtypes[0]
                return Tensor._wrap(out, dtype) if dtype is not None else out
            return self.run_flat(leaves, backend)[0]
        return self.unflatten(self.run_flat(leaves, backend))

    def run_flat(self, leaves, backend):
        """The output leaves as Tensors (Python values as they are)."""
        arrays = [t.data_ref() if type(t) is Tensor else leaf_array(t, backend) for t in leaves]
        outs = self.compiled(*arrays)
        wrap = Tensor._wrap
        return [wrap(o, d) if d is not None else o for o, d in zip(outs, self.out_dtypes)]


class _FastPath:
    """The entry of a cache's last call and what it was valid under (see the module docstring). `entry_for(args)`
    is that entry when a new call with positional `args` would compute the same key, else None."""

    __slots__ = ("entry", "backend", "specs", "changes", "writes", "events")

    def __init__(self, entry, backend, args, changes, writes, events_generation):
        self.entry, self.backend = entry, backend
        self.specs = tuple((a.shape, a.dtype) for a in args)
        self.changes, self.writes, self.events = changes, writes, events_generation

    def entry_for(self, args):
        specs = self.specs
        if CHANGES[0] != self.changes or len(args) != len(specs) or events.generation != self.events \
                or backends.current() is not self.backend:
            return None
        for a, (shape, dtype) in zip(args, specs):
            if type(a) is not Tensor or a.shape != shape or a.dtype is not dtype:
                return None
        if WRITES[0] != self.writes:
            writes = WRITES[0]
            frozen = self.entry.frozen
            if frozen is not None and frozen.stale():
                return None  # the general path recompiles (or leaves the inference path), see `lookup`
            self.writes = writes
        return self.entry


class GraphCache:
    """The compiled graphs of `fn`, named `name` in logs and dumps.

    With an `owner`, `fn(owner)` returns the callable to trace (a bound method, so the frontend sees the cell);
    the owner is held weakly (caches live in weak dictionaries keyed by it). `cell_owner`: the owner is a Cell
    whose state is part of the key."""

    def __init__(self, fn, name, level_of, owner=None, cell_owner=False):
        self.fn = fn
        self.name = name
        self.level_of = level_of  # () -> 'O0' | 'O1' | 'O2', read at each call (JitConfig / context may change)
        self._owner = _weak(owner) if owner is not None else None
        self.cell_owner = cell_owner
        self.entries = {}
        self.last_key = None
        self.last_entry = None
        self._subcells = None
        self._subcells_seen = None  # CHANGES[0] when `_subcells` was listed
        self._fast = None  # _FastPath of the last call, or None
        # The inference path freezes the weights: right for serving, wrong for a network being trained while in
        # eval mode (MindSpore's Cells start with training=False, and custom loops need not call set_train). Such a
        # cache leaves the path for good once its frozen weights have changed twice; a differentiated call never
        # takes it (see `lookup`).
        self._weights_changed = 0
        # why this function runs op by op instead of as a graph (see jit.run_graph_or_eager), or None
        self.eager_reason = None

    def __call__(self, args, kwargs):
        fast = self._fast
        if fast is not None and not kwargs:
            entry = fast.entry_for(args)
            if entry is not None:
                return entry.run(args, fast.backend)
        entry, leaves, backend = self.lookup(args, kwargs)
        return entry.run(leaves, backend)

    def lookup(self, args, kwargs, differentiating=False):
        """(entry, graph-input leaves, backend) for a call, compiling on a cache miss. `differentiating`: the call
        records for autodiff (runtime/grad_call.py), so its weights must stay Parameters."""
        self._fast = None
        seen = (CHANGES[0], WRITES[0], events.generation)  # read before the state they vouch for
        arg_key, leaves = flatten_call(args, kwargs)
        backend = backends.current()
        key = (arg_key, backend.name, str(getattr(backend, "device", "")), self.level_of(), self._owner_state(),
               events.generation, (context.get_context("memory_optimize_level"),
                                   context.get_context("max_device_memory")),
               active_flags(getattr(self.level_of, "fusion_requested", _no)()),
               "off" if differentiating or self._weights_changed >= 2 else context.get_context("inference_engine"))
        entry = self.entries.get(key)
        if entry is not None and entry.frozen is not None and entry.frozen.stale():
            self._weights_changed += 1
            if self._weights_changed >= 2:  # being trained: compile for training from now on
                for old in [k for k, e in self.entries.items() if e.frozen is not None]:
                    del self.entries[old]
                key = key[:8] + ("off",)
                entry = self.entries.get(key)
            else:
                entry = None
        if entry is None:
            entry = self._compile(key, args, kwargs, backend)
        self.last_key, self.last_entry = key, entry
        if not differentiating and not kwargs and len(leaves) == len(args) \
                and all(type(a) is Tensor and a is t for a, t in zip(args, leaves)):
            self._fast = _FastPath(entry, backend, args, *seen)
        return entry, leaves, backend

    @property
    def owner(self):
        return self._owner() if self._owner is not None else None

    def _owner_state(self):
        if not self.cell_owner:
            return None
        owner = self._owner()
        if self._subcells is None or self._subcells_seen != CHANGES[0]:
            # sub-cells do not refer back to their parent, so holding them keeps the owner collectable; listed
            # again after any Cell changed (a sub-cell added or replaced)
            self._subcells_seen = CHANGES[0]
            self._subcells = [c.__dict__ for _, c in owner.cells_and_names()][1:]
        dicts = [owner.__dict__, *self._subcells]
        return (tuple([d["training"] for d in dicts]),
                tuple([id(p) for d in dicts for p in d["_params"].values()]),
                dicts[0]["_plain_call"])

    # ---- compiling ------------------------------------------------------------------------------
    def _compile(self, key, args, kwargs, backend):
        if self.last_key is not None and context.get_context("log_recompile"):
            logger.warning("recompiling %s: %s", self.name, "; ".join(self._reasons(self.last_key, key)))
        from ..compiler.frontend import trace      # the compiler packages sit beside the runtime
        from ..compiler.pipeline import run_pipeline
        times = {}
        t0 = time.perf_counter()
        trace_args, trace_kwargs = replace_mutables(args, kwargs)
        fn = self.fn if self._owner is None else self.fn(self._owner())
        traced = trace(fn, trace_args, trace_kwargs, name=self.name)
        t1 = time.perf_counter()
        dump = _Dumper(traced.graph) if context.get_context("save_graphs") else None
        if dump is not None:
            dump("trace", traced.graph)
        from . import inference
        infer_run = None
        # graph-kernel fusion (key[7]) asked for explicitly wins: its clusters, not the inference passes
        if key[8] != "off" and key[7] is None and self.cell_owner and not self.owner.training \
                and (not events.generation or events.graph_observer() is None) and inference.qualifies(traced.graph, backend):
            params = inference.graph_parameters(traced.graph)
            frozen = inference.Frozen(params)
            infer_run, graph, engine = inference.compile_inference(traced.graph, backend, self.name, dump=dump)
        else:
            # verified under debug_level="DEBUG"; key[7]: the graph-kernel fusion flags, or None (off)
            graph = run_pipeline(traced.graph, level=key[3], dump=dump, graph_kernel=key[7])
        level, cap = key[6]
        if level == "O1" and infer_run is None:   # priority memory: recompute cheap values instead of keeping them
            from ..compiler.pipeline import MEMORY_O1
            graph = run_pipeline(graph, level=MEMORY_O1, dump=dump)
        t2 = time.perf_counter()
        plans = None
        capped = cap != context.default("max_device_memory")
        if dump is not None or level == "O1" or capped:
            from ..compiler.pipeline import plan_memory
            plans = plan_memory(graph, aliases=backend.view_primitives)
            if context.get_context("debug_level") == "DEBUG":  # like the IR verifier after each pass
                from ..compiler.memory import check_plan
                for plan in plans:
                    check_plan(plan)
                PLANS_CHECKED[0] += len(plans)
            if dump is not None:
                dump.write_plan(graph, plans)
            if capped:  # before anything runs: a refused step leaves every Parameter as it was
                check_memory_cap(self.name, graph, plans, cap)
        t3 = time.perf_counter()
        if infer_run is not None:
            compiled = infer_run
        else:
            # with OPENSPORE_O1_ARENA=1, O1 runs the top graph in one arena laid out by its plan (runtime/arena.py:
            # off by default, it costs copies on the CPU); otherwise kernels allocate and the plan checks the cap
            from .arena import arena_enabled
            compiled = compile_graph(graph, backend, events.graph_observer() if events.generation else None,
                                     plan=plans[0] if level == "O1" and plans and arena_enabled() else None)
            if compiled.arena is not None and context.get_context("debug_level") == "DEBUG":
                from .arena import check_arena
                check_arena(compiled.arena, plans[0])
        t4 = time.perf_counter()
        times.update(frontend=t1 - t0, passes=t2 - t1, codegen=t4 - t3)
        if plans is not None:
            times["memory_plan"] = t3 - t2
        if infer_run is not None and getattr(compiled, "out_dtypes", None) is None:
            compiled.out_dtypes = compile_graph(graph, backend).out_dtypes  # engines: dtypes of the graph's leaves
        entry = Entry(compiled, traced, graph, times)
        entry.memory_plan = plans
        if infer_run is not None:
            entry.frozen, entry.engine = frozen, engine
        self.entries[key] = entry
        logger.debug("compiled %s in %.3f s (frontend %.3f s, passes %.3f s, codegen %.3f s): %d nodes",
                     self.name, entry.compile_time, times["frontend"], times["passes"], times["codegen"],
                     len(graph.nodes))
        return entry

    def _reasons(self, old, new):
        reasons = describe_change(old[0], new[0])
        if old[1:3] != new[1:3]:
            reasons.append(f"backend {old[1]}/{old[2]} -> {new[1]}/{new[2]}")
        if old[3] != new[3]:
            reasons.append(f"jit_level {old[3]} -> {new[3]}")
        if old[7] != new[7]:
            reasons.append(f"graph-kernel fusion {old[7]} -> {new[7]}")
        if old[8] != new[8]:
            reasons.append(f"inference_engine {old[8]!r} -> {new[8]!r} (\"off\": differentiated, or its weights "
                           "are being trained)")
        if old[6] != new[6]:
            reasons.append(f"memory settings (memory_optimize_level, max_device_memory) {old[6]} -> {new[6]}")
        if old[4] != new[4] and old[4] is not None and new[4] is not None:
            reasons.extend(self._owner_reasons(old[4], new[4]))
        return reasons or ["a new signature"]

    def _owner_reasons(self, old, new):
        out = []
        for (path, cell), a, b in zip(self.owner.cells_and_names(), old[0], new[0]):
            if a != b:
                out.append(f"training flag of {_cell_label(cell, path)} {a} -> {b}")
        if old[1] != new[1]:
            out.append("a Parameter of the cell was replaced by another Parameter object")
        if old[2] != new[2]:
            out.append("hooks, a custom bprop or to_float were set or removed on the cell")
        return out

    @property
    def compile_time(self):
        return self.last_entry.compile_time if self.last_entry is not None else None


def _no():
    return False


def check_memory_cap(name, graph, plans, cap):
    """Raise MemoryError when the graph's Parameters, inputs and planned arenas need more than `cap` bytes."""
    allowed = context.memory_size_bytes(cap)
    seen, params = set(), 0
    for g in graph.all_graphs():
        for n in g.nodes:
            if n.op == "weight" and id(n.value) not in seen:
                seen.add(id(n.value))
                params += _abstract_bytes(getattr(n, "abstract", None))
    inputs = sum(_abstract_bytes(n.abstract) for n in graph.inputs)
    arena = sum(p.peak for p in plans)  # subgraph arenas are nested inside the top graph's run
    needed = params + inputs + arena
    if needed > allowed:
        raise MemoryError(
            f"For '{name}', the compiled graph needs {needed} bytes ({needed / 2**20:.1f} MB: Parameters {params} B, "
            f"inputs {inputs} B, planned activations {arena} B, lower bound {sum(p.lower_bound for p in plans)} B) "
            f"but max_device_memory allows {allowed} bytes ({cap!r}); nothing was run. Raise max_device_memory "
            "(set_context or ms.runtime.set_memory(max_size=...)), lower the batch, or recompute cells "
            "(Cell.recompute()).")


def _abstract_bytes(abstract):
    from ..core.primitive import AbstractTensor
    if isinstance(abstract, AbstractTensor) and getattr(abstract.dtype, "itemsize", None):
        return abstract.size * abstract.dtype.itemsize
    if isinstance(abstract, tuple):
        return sum(_abstract_bytes(a) for a in abstract)
    return 0


def _weak(obj):
    try:
        return weakref.ref(obj)
    except TypeError:  # not weakly referenceable: the cache keeps it alive
        return lambda: obj


def _cell_label(cell, path):
    return f"{type(cell).__name__}" + (f" '{path}'" if path else "")


class _Dumper:
    """The pipeline's dump hook: writes `<graph name>_<NN>_<pass>.ir` into `save_graphs_path`."""

    def __init__(self, graph):
        self.count = 0
        self.dir = context.get_context("save_graphs_path") or "."
        os.makedirs(self.dir, exist_ok=True)

    def __call__(self, *args):
        from ..ir.printer import print_graph
        from ..ir.node import Graph
        graph = next(a for a in args if isinstance(a, Graph))
        pass_name = next((a for a in args if isinstance(a, str)), "pass")
        name = "".join(c if c.isalnum() or c in "_-" else "_" for c in graph.name)
        path = os.path.join(self.dir, f"{name}_{self.count:02d}_{pass_name}.ir")
        self.count += 1
        write_atomic(path, [(print_graph(graph) + "\n").encode("utf-8")], read_only=False)

    def write_plan(self, graph, plans):
        """`<graph name>_memory_plan.txt`: each planned graph's figures and tensor offsets (compiler/memory)."""
        name = "".join(c if c.isalnum() or c in "_-" else "_" for c in graph.name)
        path = os.path.join(self.dir, f"{name}_memory_plan.txt")
        text = "\n".join(p.to_text() for p in plans)
        write_atomic(path, [text.encode("utf-8")], read_only=False)
