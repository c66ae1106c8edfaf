"""Replaying a backward pass kernel by kernel, for a `vjp_fn` called many times (`jacrev`: once per output
element, each time with another one-hot cotangent).

Each call walks the same graph and runs the same backward rules; only the cotangent's values change. The walk's
Python work (topological order, the rules, `bind`'s promotion, checks and wrapping: ~20 µs per op) is far more
than the kernels' on small tensors. So the second call with a given cotangent signature runs the ordinary walk
while noting every kernel call `bind` makes (which arrays it read: a cotangent, an earlier call's result or a
tensor that existed before the walk); later calls run just those kernels, in the same order, on the same
arguments. The kernels are the ones the walk would call, with the same shapes, dtypes and layouts, so the results
are bitwise the walk's, NaN and inf included; calls whose results reach no gradient are left out (they have no
effect: a kernel with side effects or randomness stops the capture).

Replay is only taken where the walk is known to be a fixed sequence of kernel calls:
- no grad transform is recording (a backward rule's ops would have to be recorded), no gradient hooks, no
  dispatch mode, graph tracer, layout hook or wrapped `Primitive.__call__` (profiler, dumps, debugger);
- every node's primitive class declares `bprop_replayable` itself (its rule computes only through primitive
  calls, from shapes, dtypes and attributes: no tensor value read in Python); custom bprops (`Cell.bprop`,
  `ops.custom`), subclasses overriding a rule, saved-tensor hooks and recompute nodes never qualify, so user
  rules run on every call as before;
- during the capture, every tensor a kernel reads is a cotangent, an earlier kernel's result or one the graph
  holds (a node's input or output); anything else (a tensor made outside primitive calls) stops the capture.
Before each replay the graph is checked to be unchanged: each node keeps the inputs it had and each tensor read
keeps its array (in-place writes into that array are seen, as by the walk). Otherwise the call walks again.
"""
import threading

from ..common import dtype as mstype
from . import autograd, dispatch
from .primitive import Primitive
from .tensor import Tensor

MAX_STEPS = 50000  # a longer backward is not captured (the capture keeps every intermediate gradient alive)
ENABLED = [True]  # False: every call walks (an A/B switch for measurements and reference results)
REPLAYED = [0]  # backward passes replayed so far (tests read it to know the replay path ran)
_PLAIN_VALUES = (int, float, bool, complex, str, type(None), slice, type(Ellipsis))


class CaptureStopped(Exception):
    """Raised inside the capture's bookkeeping only; never leaves this module."""


def replay_allowed():
    """Whether the state around the walk lets it be captured or replayed (see the module docstring)."""
    return (ENABLED[0] and not autograd.ACTIVE and not autograd.EVER_REGISTERED[0] and not autograd.GRAD_READY
            and not dispatch._dispatch_modes and not dispatch._tracers and dispatch._layout_hook is None
            and Primitive.__call__ is dispatch.bind)


def _plain(value):
    if type(value) in _PLAIN_VALUES:
        return True
    if type(value) in (tuple, list):
        return all(_plain(v) for v in value)
    return isinstance(value, mstype.Type)


class _Capture:
    """Notes the kernel calls of one walk (bind calls `run` instead of the kernel while this is installed)."""

    def __init__(self, cot_arrays, known):
        self.slot_of = {}      # id(array) -> slot, for the cotangents and the kernels' results
        self.keep = []         # every array noted: their ids stay unique while capturing
        self.known = known     # id -> Tensor the graph holds: the only tensors a kernel may read besides slots
        self.consts = []       # (Tensor, array, slot)
        self.const_slot = {}   # id(Tensor) -> slot
        self.steps = []        # (kernel, prim, xp, template args, fills [(position, slot)], list fills, out slots)
        self.nslots = 0
        self.ncots = len(cot_arrays)
        self.depth = 0
        self.thread = threading.get_ident()  # ops other threads run meanwhile are not this walk's
        self.stopped = None    # why the capture cannot be used
        for a in cot_arrays:
            if id(a) in self.slot_of:
                self.stopped = "two cotangents share an array"
            self._new_slot(a)

    def _new_slot(self, array):
        slot = self.nslots
        self.nslots += 1
        self.slot_of[id(array)] = slot
        self.keep.append(array)
        return slot

    def stop(self, why):
        if self.stopped is None:
            self.stopped = why

    def _slot(self, tensor, array):
        if array is not tensor._data:
            raise CaptureStopped("a tensor not held as a native array")
        slot = self.slot_of.get(id(array))
        if slot is not None:
            return slot
        slot = self.const_slot.get(id(tensor))
        if slot is not None:
            return slot
        if id(tensor) not in self.known:
            raise CaptureStopped("a tensor computed outside primitive calls")
        slot = self.nslots
        self.nslots += 1
        self.keep.append(array)
        self.const_slot[id(tensor)] = slot
        self.consts.append((tensor, array, slot))
        return slot

    def run(self, prim, kernel, xp, args, arrays):
        """bind's kernel call while capturing: run it and note it (a bind inside a kernel is part of that call)."""
        if self.depth or self.stopped is not None or threading.get_ident() != self.thread:
            return kernel(prim, xp, *arrays)
        self.depth += 1
        try:
            out = kernel(prim, xp, *arrays)
        finally:
            self.depth -= 1
        try:
            self._note(prim, kernel, xp, args, arrays, out)
        except CaptureStopped as why:
            self.stop(str(why))
        return out

    def _note(self, prim, kernel, xp, args, arrays, out):
        if prim.side_effect or prim.random:
            raise CaptureStopped(f"'{prim.name}' has side effects or draws random numbers")
        if len(self.steps) >= MAX_STEPS:
            raise CaptureStopped("too many kernel calls")
        template, fills, list_fills = list(arrays), [], []
        for i, (a, arr) in enumerate(zip(args, arrays)):
            if isinstance(a, Tensor):
                fills.append((i, self._slot(a, arr)))
            elif type(a) in (tuple, list) and arr is not a:  # a sequence of tensors, unwrapped by bind
                slots = [self._slot(b, x) if isinstance(b, Tensor) else None for b, x in zip(a, arr)]
                if None in slots:
                    raise CaptureStopped("a sequence mixing tensors and other values")
                list_fills.append((i, slots))
            elif not _plain(a):
                raise CaptureStopped(f"an argument of type {type(a).__name__}")
        outs = out if type(out) is tuple else (out,)
        out_slots = tuple(self._new_slot(o) for o in outs)
        self.steps.append((kernel, prim, xp, template, fills, list_fills, out_slots, type(out) is tuple))

    def finish(self, roots, leaves, nodes):
        """The Trace of this walk, or None (with `stopped` saying why)."""
        if self.stopped is not None:
            return None
        cots = [c for _, _, c in roots]
        outputs = {}
        for key, g in leaves.items():
            k = next((i for i, c in enumerate(cots) if c is g), None)
            if k is not None:
                outputs[key] = ("cot", k)
                continue
            slot = self.slot_of.get(id(g._data))
            if slot is not None:
                outputs[key] = ("slot", slot, g._dtype)
            elif id(g) in self.known:
                outputs[key] = ("const", g)
            else:
                self.stop("a gradient computed outside primitive calls")
                return None
        return Trace(self, outputs, nodes)


class Trace:
    """The kernel calls of one captured walk, pruned to those the gradients need, as one generated Python
    function of straight-line calls (`s7 = k3(p3, xp, s0, s5)`): no interpretation left per call."""

    def __init__(self, capture, outputs, nodes):
        self.outputs = outputs
        self.cot_types = [type(capture.keep[k]) for k in range(capture.ncots)]
        self.node_args = [(n, n.args) for n in nodes]
        result_slots = sorted({o[1] for o in outputs.values() if o[0] == "slot"})
        needed = set(result_slots)
        steps = []
        for step in reversed(capture.steps):  # dead calls dropped: they change nothing the gradients read
            kernel, prim, xp, template, fills, list_fills, out_slots, many = step
            if not any(s in needed for s in out_slots):
                continue
            needed.update(s for _, s in fills)
            for _, slots in list_fills:
                needed.update(slots)
            steps.append(step)
        steps.reverse()
        self.consts = [(t, a, s) for t, a, s in capture.consts if s in needed]
        self.result_slots = result_slots
        self.run = self._compile(steps, capture.ncots, result_slots)

    def _compile(self, steps, ncots, result_slots):
        names = {}  # the kernels, primitives and non-tensor arguments the code refers to

        def name_of(value, prefix):
            key = f"{prefix}{len(names)}"
            names[key] = value
            return key

        last_use = {}
        for i, (_, _, _, _, fills, list_fills, _, _) in enumerate(steps):
            for _, s in fills:
                last_use[s] = i
            for _, slots in list_fills:
                for s in slots:
                    last_use[s] = i
        frees = [[] for _ in steps]
        for s, i in last_use.items():
            if s not in result_slots:
                frees[i].append(s)  # dropped after its last reader, as the walk frees a used gradient
        inputs = list(range(ncots)) + [s for _, _, s in self.consts]
        lines = ["def run(v):"] + [f"    s{s} = v[{k}]" for k, s in enumerate(inputs)]
        for i, (kernel, prim, xp, template, fills, list_fills, out_slots, many) in enumerate(steps):
            args = {pos: f"s{s}" for pos, s in fills}
            args.update((pos, "[" + ", ".join(f"s{s}" for s in slots) + "]") for pos, slots in list_fills)
            # the other arguments (shapes, axes, dtypes) by name; the captured arrays are not kept
            args = [args[pos] if pos in args else name_of(a, "a") for pos, a in enumerate(template)]
            call = f"{name_of(kernel, 'k')}({name_of(prim, 'p')}, {name_of(xp, 'x')}, {', '.join(args)})"
            if many:
                lines.append(f"    r = {call}")
                lines.extend(f"    s{s} = r[{k}]" for k, s in enumerate(out_slots))
            else:
                lines.append(f"    s{out_slots[0]} = {call}")
            if frees[i]:
                lines.append("    del " + ", ".join(f"s{s}" for s in frees[i]))
        lines.append("    return (" + "".join(f"s{s}, " for s in result_slots) + ")")
        namespace = dict(names)
        exec(compile("\n".join(lines), "<backward replay>", "exec"), namespace)  # noqa: S102  (our own code)
        return namespace["run"]

    def replay(self, cots):
        """{id(leaf node): gradient} for these cotangents, or None when the graph changed since the capture."""
        for node, args in self.node_args:
            if node.args is not args:
                return None
        inputs = []
        for k, c in enumerate(cots):
            data = c._data
            if data.__class__ is not self.cot_types[k]:  # lazy or another backend's array: the walk converts it
                return None
            inputs.append(data)
        for t, array, _ in self.consts:
            if t._data is not array:
                return None
            inputs.append(array)
        values = dict(zip(self.result_slots, self.run(inputs)))
        REPLAYED[0] += 1
        grads, made = {}, {}
        for key, o in self.outputs.items():
            if o[0] == "cot":
                grads[key] = cots[o[1]]
            elif o[0] == "const":
                grads[key] = o[1]
            else:
                t = made.get(o[1])
                if t is None:
                    t = made[o[1]] = Tensor._wrap(values[o[1]], o[2])
                grads[key] = t
        return grads


def _graph(roots):
    """The nodes the walk visits and the id -> Tensor of every tensor they hold."""
    nodes = autograd._topological([n for n, _, _ in roots])
    known = {}
    for node in nodes:
        for v in (node.args, node.outputs, (node.result,)):
            for a in v:
                if isinstance(a, Tensor):
                    known[id(a)] = a
                elif type(a) in (tuple, list):
                    for b in a:
                        if isinstance(b, Tensor):
                            known[id(b)] = b
    for t in dispatch._scalar_cache.values():  # the 0-d tensors standing for Python scalars
        known[id(t)] = t
    return nodes, known


def _replayable_graph(nodes):
    for node in nodes:
        if node.prim is None:
            continue
        # the flag counts on the node's own class only: a subclass may override the rule (a user's `bprop`)
        if node.bprop_fn is not None or node.unpack is not None \
                or not type(node.prim).__dict__.get("bprop_replayable", False):
            return False
    return True


class BackwardReplay:
    """The backward of one vjp closure: walks on the first call of a cotangent signature, captures on the
    second, replays afterwards (the first walk pays nothing for a vjp_fn called once)."""

    def __init__(self):
        self.seen = {}    # signature -> calls so far
        self.traces = {}  # signature -> Trace, or False when the walk cannot be replayed

    def backward(self, roots):
        if not replay_allowed():
            return autograd.backward(roots)
        from .. import backends
        key = (id(backends.current()),) + tuple(
            (id(n), k, c.__class__, tuple(c.shape), c._dtype) for n, k, c in roots)
        trace = self.traces.get(key)
        if trace:
            got = trace.replay([c for _, _, c in roots])
            if got is not None:
                return got
            del self.traces[key]  # the graph changed: walk, and capture again next time
            self.seen[key] = 1
            return autograd.backward(roots)
        if trace is False:
            return autograd.backward(roots)
        calls = self.seen.get(key, 0) + 1
        self.seen[key] = calls
        if calls < 2:
            return autograd.backward(roots)
        return self._capture(key, roots)

    def _capture(self, key, roots):
        nodes, known = _graph(roots)
        if not _replayable_graph(nodes):
            self.traces[key] = False
            return autograd.backward(roots)
        cot_arrays = [c._data for _, _, c in roots]
        held = {id(t._data) for t in known.values()}
        if any(a is None or id(a) in held for a in cot_arrays):
            return autograd.backward(roots)  # lazy, or also a tensor of the graph (its slot would mix with it)
        capture = _Capture(cot_arrays, known)
        dispatch._capturing.append(capture)
        try:
            leaves = autograd.backward(roots)
        finally:
            dispatch._capturing.pop()
        trace = capture.finish(roots, leaves, nodes)
        if len(self.traces) > 8:
            self.traces.clear()
        self.traces[key] = trace if trace is not None else False
        return leaves
