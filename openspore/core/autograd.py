"""Reverse-mode autodiff over the primitives' backward rules: grad, value_and_grad, vjp, jvp, GradOperation.

No tape exists outside a grad transform. Each transform opens a *level*; while it is active, `bind` links
every output that depends on a watched value to a `Node` (primitive, inputs, outputs). Backward walks the
nodes of that level in reverse topological order and calls each primitive's `bprop`, which is written with
openspore ops — so with an outer level still active, the backward pass is itself recorded and can be
differentiated again (higher-order gradients).
"""
import itertools

from ..common.errors import with_location
from .parameter import Parameter
from . import read_snapshots, registry
from .tensor import Tensor
from .tensor_hooks import EVER_REGISTERED, apply_grad_hooks

ACTIVE = []  # active levels, innermost last
_WANTED = [None]  # input indices whose gradient the running backward rule must produce (None: all)
# While a backward pass runs: the Node whose backward rule is running, or True between rules (gradient
# accumulation); None otherwise. Graph tracing reads it to name backward nodes after their forward node
# (`Gradients/...` scopes, the forward node's code stack); PyNative dumps to name backward kernels.
DIFFERENTIATING = [None]


GRAD_READY = []  # hooks(tensor, gradient) called when a differentiated input's gradient is final


def needs_input_grad(index):
    """Inside a backward rule: whether input `index` needs a gradient. Rules of expensive ops skip the rest
    (e.g. a network's first Conv2D never computes the gradient of the data batch)."""
    wanted = _WANTED[0]
    return wanted is None or index in wanted
_level_ids = itertools.count()


class Level:
    __slots__ = ("id",)

    def __init__(self):
        self.id = next(_level_ids)

    def __repr__(self):
        return f"Level({self.id})"


class Node:
    """One recorded op call. `parents`: (arg path, parent node, parent output index) per tracked input.
    `unpack`: the unpack hook of the saved-tensors hooks that packed `args` (None when they are kept as is)."""

    __slots__ = ("prim", "args", "outputs", "result", "parents", "bprop_fn", "unpack", "__weakref__")

    def __init__(self, prim, args, outputs, result, parents, bprop_fn=None):
        self.prim, self.args, self.outputs, self.result, self.parents, self.bprop_fn = \
            prim, args, outputs, result, parents, bprop_fn
        self.unpack = None

    def __repr__(self):
        return f"Node({self.prim.name if self.prim is not None else 'leaf'})"


SAVED_TENSORS_HOOKS = []  # (pack_hook, unpack_hook) pairs, innermost last (core/saved_tensors.py)


def _pack_args(node, args):
    """Replace the Tensors the backward rule will read by what the innermost pack hook makes of them."""
    pack, unpack = SAVED_TENSORS_HOOKS[-1]
    hooks = SAVED_TENSORS_HOOKS[:]
    SAVED_TENSORS_HOOKS.clear()  # the hook's own ops are not packed again
    try:
        node.args, where = _packed(pack, args)
    finally:
        SAVED_TENSORS_HOOKS[:] = hooks
    node.unpack = (unpack, where)


def _packed(pack, args):
    packed, where = [], []
    for i, a in enumerate(args):
        if isinstance(a, Tensor):
            packed.append(pack(a))
            where.append(i)
        elif type(a) in (tuple, list) and any(isinstance(b, Tensor) for b in a):
            packed.append(type(a)(pack(b) if isinstance(b, Tensor) else b for b in a))
            where.append((i, tuple(j for j, b in enumerate(a) if isinstance(b, Tensor))))
        else:
            packed.append(a)
    return tuple(packed), where


def _unpacked_args(node):
    unpack, where = node.unpack
    out = list(node.args)
    for w in where:
        if isinstance(w, tuple):
            i, inner = w
            out[i] = type(out[i])(unpack(b) if j in inner else b for j, b in enumerate(out[i]))
        else:
            out[w] = unpack(out[w])
    return tuple(out)


def _link(t, level, node, index):
    nodes = t._nodes
    if nodes is None:
        t._nodes = {level: (node, index)}
    else:
        nodes[level] = (node, index)


def _tracked_inputs(args, level):
    parents = []
    for i, a in enumerate(args):
        if isinstance(a, Tensor):
            nodes = a._nodes
            if nodes is not None:
                ref = nodes.get(level)
                if ref is not None:
                    parents.append((i, ref[0], ref[1]))
        elif type(a) in (tuple, list):
            for j, b in enumerate(a):
                if isinstance(b, Tensor) and b._nodes is not None:
                    ref = b._nodes.get(level)
                    if ref is not None:
                        parents.append(((i, j), ref[0], ref[1]))
    return parents


def record(prim, args, outs, result, bprop_fn=None):
    """Called by bind for each op while a transform is active."""
    for level in ACTIVE:
        parents = _tracked_inputs(args, level)
        if parents:
            node = Node(prim, args, outs, result, parents, bprop_fn)
            read_snapshots.note(node, args)
            if SAVED_TENSORS_HOOKS:
                _pack_args(node, args)
            for k, o in enumerate(outs):
                if isinstance(o, Tensor):
                    _link(o, level, node, k)


# ---- backward ------------------------------------------------------------------------------------
def _topological(roots):
    order, seen = [], set()
    for root in roots:
        if id(root) in seen:
            continue
        stack = [(root, False)]
        while stack:
            node, done = stack.pop()
            if done:
                order.append(node)
                continue
            if id(node) in seen:
                continue
            seen.add(id(node))
            stack.append((node, True))
            for _, parent, _ in node.parents:
                if id(parent) not in seen:
                    stack.append((parent, False))
    return order  # parents before children


def _add(a, b):
    if a is None:
        return b
    if b is None:
        return a
    if a.shape != b.shape:
        raise RuntimeError(f"gradient shapes disagree during accumulation: {a.shape} vs {b.shape}")
    return registry.prim("Add")(a, b)


def zeros_like(t):
    return registry.prim("ZerosLike")(t)


def ones_like(t):
    return registry.prim("OnesLike")(t)


def _walk(roots):
    grads = {}
    for node, k, sens in roots:
        slot = grads.setdefault(id(node), [None] * len(node.outputs))
        slot[k] = _add(slot[k], sens)
    order = _topological([n for n, _, _ in roots])
    leaves = {}
    ready = _LeafReadiness(order, grads) if GRAD_READY else None
    for node in reversed(order):
        douts = grads.pop(id(node), None)
        if douts is not None and EVER_REGISTERED[0]:  # Tensor.register_hook: the summed gradient of an output goes through its hooks
            douts = [apply_grad_hooks(o, d) for o, d in zip(node.outputs, douts)]
        if node.prim is None:  # leaf
            if douts is not None:
                leaves[id(node)] = douts[0]
                if ready is not None:
                    ready.reached(node, douts[0])
            continue
        if ready is not None:  # this node's contributions are in once its rule has run (below) or if it has none
            ready.pending.append(node)
        if douts is None or all(d is None for d in douts):
            if ready is not None:
                ready.settle()
            continue
        if not getattr(node.prim, "none_cotangents", False):  # (custom-bprop and jit nodes are not Primitives)
            douts = [d if d is not None else zeros_like(o) for d, o in zip(douts, node.outputs)]
        out = node.result
        dout = douts[0] if not isinstance(out, tuple) else tuple(douts)
        _WANTED[0] = {p[0] if isinstance(p, tuple) else p for p, _, _ in node.parents}
        DIFFERENTIATING[0] = node
        try:
            args = node.args if node.unpack is None else _unpacked_args(node)
            if node.bprop_fn is not None:
                in_grads = node.bprop_fn(*args, out, dout)
            else:
                in_grads = node.prim.bprop(*args, out, dout)
        except (ValueError, TypeError) as exc:
            new = type(exc)(f"In the backward rule of '{node.prim.name}': {exc}")
            new._openspore_located = getattr(exc, "_openspore_located", False)  # one source location is enough
            raise with_location(new) from None
        DIFFERENTIATING[0] = True
        if not isinstance(in_grads, (tuple, list)):
            in_grads = (in_grads,)
        for path, parent, k in node.parents:
            if isinstance(path, tuple):
                g = in_grads[path[0]]
                g = g[path[1]] if g is not None else None
            else:
                g = in_grads[path] if path < len(in_grads) else None
            if g is None:
                continue
            if not isinstance(g, Tensor):
                raise TypeError(f"the backward rule of '{node.prim.name}' returned {type(g).__name__} for input {path}, "
                                "expected a Tensor or None")
            slot = grads.setdefault(id(parent), [None] * len(parent.outputs))
            slot[k] = _add(slot[k], g)
        if ready is not None:
            ready.settle()
    _WANTED[0] = None
    return leaves


class _LeafReadiness:
    """Calls GRAD_READY for a leaf as soon as every node that feeds its gradient has run its backward rule —
    not when the walk reaches the leaf itself, which a depth-first order puts after the whole backward — so a
    data-parallel reducer can send the last layers' gradients while the first layers' are being computed."""

    def __init__(self, order, grads):
        self.grads, self.pending, self.fired = grads, [], set()
        self.remaining = {}
        for n in order:
            for _, parent, _ in n.parents:
                if parent.prim is None:
                    self.remaining[id(parent)] = self.remaining.get(id(parent), 0) + 1

    def settle(self):
        for node in self.pending:
            for _, parent, _ in node.parents:
                key = id(parent)
                if parent.prim is not None or key not in self.remaining:
                    continue
                self.remaining[key] -= 1
                slot = self.grads.get(key)
                if self.remaining[key] == 0 and slot is not None and slot[0] is not None:
                    self._fire(parent, slot[0])
        self.pending = []

    def reached(self, leaf, grad):
        self._fire(leaf, grad)  # a leaf whose feeders never settled it (it is final here in any case)

    def _fire(self, leaf, grad):
        if id(leaf) in self.fired:
            return
        self.fired.add(id(leaf))
        for hook in GRAD_READY:  # its gradient is final now: a data-parallel reducer may send it already
            hook(leaf.outputs[0], grad)


def backward(roots):
    """roots: list of (Node, output index, sensitivity Tensor). Returns {id(leaf node): gradient}.
    Keeps the caller's wanted-set intact across nested backward passes (control-flow backward rules)."""
    saved, differentiating = _WANTED[0], DIFFERENTIATING[0]
    DIFFERENTIATING[0] = True
    try:
        return _walk(roots)
    finally:
        _WANTED[0], DIFFERENTIATING[0] = saved, differentiating


def release(roots, level):
    """Free the graph of a finished level at once: outputs link to their nodes and nodes hold their outputs, so
    without this the activations would wait for Python's cycle collector."""
    for node in _topological(roots):
        for o in node.outputs:
            nodes = o._nodes if isinstance(o, Tensor) else None
            if nodes and level in nodes:
                o._nodes = {k: v for k, v in nodes.items() if k is not level} or None
        node.args, node.outputs, node.result, node.parents, node.bprop_fn = (), (), None, [], None


def make_leaf(t, level):
    """Mark `t` as a differentiation input at `level` (keeps the links of outer levels)."""
    leaf = Node(None, (), (t,), t, [])
    _link(t, level, leaf, 0)
    return leaf


def box(x, level):
    """A new Tensor sharing `x`'s data, tracked at `level` and still linked to `x` at the outer levels."""
    if not isinstance(x, Tensor):
        raise TypeError(f"Gradients can only be taken with respect to Tensors, but the input is {type(x).__name__}.")
    b = x._alias()
    if x._nodes:
        b._nodes = dict(x._nodes)
    hooks = x.__dict__.get("_grad_hooks")
    if hooks:  # Tensor.register_hook on a differentiation input (the same dict: a later remove() counts)
        b.__dict__["_grad_hooks"] = hooks
    return b, make_leaf(b, level)


class _Scope:
    """Opens a level for the duration of a forward computation."""

    def __init__(self):
        self.level = Level()
        self.saved = []

    def watch_parameter(self, p):
        self.saved.append((p, p._nodes))
        nodes = dict(p._nodes) if p._nodes else {}
        p._nodes = nodes
        return make_leaf(p, self.level)

    def __enter__(self):
        ACTIVE.append(self.level)
        return self

    def __exit__(self, *exc):
        ACTIVE.remove(self.level)
        if not ACTIVE:
            read_snapshots.forget()
        return False

    def restore(self):
        for p, nodes in reversed(self.saved):
            p._nodes = nodes
        self.saved = []


def _strip(value, level):
    """Drop this level's links from returned values (the level is finished)."""
    if isinstance(value, Tensor):
        if value._nodes and level in value._nodes:
            value._nodes = {k: v for k, v in value._nodes.items() if k is not level} or None
    elif isinstance(value, (tuple, list)):
        for v in value:
            _strip(v, level)
    elif isinstance(value, dict):
        for v in value.values():
            _strip(v, level)
    return value


def _flatten_tensors(value):
    if isinstance(value, Tensor):
        return [value]
    if isinstance(value, (tuple, list)):
        out = []
        for v in value:
            out.extend(_flatten_tensors(v))
        return out
    return []


def _sparse_values_field(x):
    """Position of `values` in a sparse tensor (COOTensor, CSRTensor, RowTensor: namedtuples of Tensors), else None."""
    fields = getattr(type(x), "_fields", None)
    if isinstance(x, tuple) and fields and "values" in fields:
        return fields.index("values")
    return None


def _box_input(x, level):
    """box(x); a sparse tensor input is differentiated through its values (its gradient is the same sparse type
    holding the values' gradient, as MindSpore gives)."""
    k = _sparse_values_field(x)
    if k is None:
        return box(x, level)
    parts = list(x)
    parts[k], leaf = box(x[k], level)
    return type(x)(*parts), leaf


def run_with_grad(fn, args, kwargs, positions, weights, sens=None, has_aux=False):
    """Run fn under a new level and differentiate. Returns (output, input grads tuple, weight grads tuple)."""
    return differentiate(record_forward(fn, args, kwargs, positions, weights), sens, has_aux)


class Recorded:
    """A forward run kept for a later backward: its output, the nodes of each output Tensor at the run's level,
    and the leaves of the differentiated inputs and weights. The level is already closed (nothing links to it
    any more), so holding a record between calls changes no other computation."""

    def __init__(self, out, level, args, positions, input_leaves, weights, weight_leaves, out_nodes):
        self.out, self.level, self.args, self.positions = out, level, args, positions
        self.input_leaves, self.weights, self.weight_leaves = input_leaves, weights, weight_leaves
        self.out_nodes = out_nodes  # per flattened output Tensor: (node, index) at `level`, or None
        self.spent = False

    def drop(self):
        """Free the graph now (a record that will not be differentiated)."""
        if not self.spent:
            self.spent = True
            release([n for n in (x[0] for x in self.out_nodes if x) if n is not None], self.level)


def record_forward(fn, args, kwargs, positions, weights):
    """Run fn(*args) with `args[positions]` and `weights` differentiable; the backward is left for
    `differentiate`."""
    scope = _Scope()
    boxed = list(args)
    input_leaves = []
    for p in positions:
        if p >= len(args):
            raise ValueError(f"grad_position {p} is out of range: the function got {len(args)} positional inputs.")
        boxed[p], leaf = _box_input(args[p], scope.level)
        input_leaves.append(leaf)
    weight_leaves = [scope.watch_parameter(w) for w in weights]
    try:
        with scope:
            out = fn(*boxed, **kwargs)
    except BaseException:
        scope.restore()
        raise
    # Read the output links before the weights get their outer links back: a watched Parameter returned as an
    # output (`return res, x, self.w`) is its own leaf, and its contribution (d w / d w = 1) must count.
    out_nodes = [o._nodes[scope.level] if isinstance(o, Tensor) and o._nodes and scope.level in o._nodes else None
                 for o in _flatten_tensors(out)]
    scope.restore()
    _strip(out, scope.level)
    for b in boxed:
        if isinstance(b, Tensor):
            _strip(b, scope.level)
    return Recorded(out, scope.level, list(args), tuple(positions), input_leaves, tuple(weights), weight_leaves,
                    out_nodes)


def differentiate(rec, sens=None, has_aux=False):
    """The backward of a recorded forward with the sensitivity `sens` (ones by default); frees its graph.
    Returns (output, input grads tuple, weight grads tuple)."""
    out, level, args = rec.out, rec.level, rec.args
    roots = []
    try:
        if has_aux:
            if not isinstance(out, (tuple, list)) or not out:
                raise ValueError("With has_aux=True the function must return a tuple (output, aux...).")
            diff_out = [out[0]]
            nodes = rec.out_nodes[:1] if isinstance(out[0], Tensor) else [None]
        else:
            diff_out = _flatten_tensors(out)
            nodes = rec.out_nodes
        if sens is not None:
            sens_list = _flatten_tensors(sens) if isinstance(sens, (tuple, list)) else [sens]
            if len(sens_list) != len(diff_out):
                raise ValueError(f"sens has {len(sens_list)} tensors but the function returned {len(diff_out)} outputs.")
            for o, s in zip(diff_out, sens_list):
                if isinstance(o, Tensor) and isinstance(s, Tensor) and tuple(s.shape) != tuple(o.shape):
                    raise ValueError(f"sens must have the shape of the output it scales: output shape "
                                     f"{list(o.shape)}, sens shape {list(s.shape)}.")
        else:
            sens_list = [None] * len(diff_out)
        for o, s, at in zip(diff_out, sens_list, nodes):
            if isinstance(o, Tensor) and at is not None:
                node, k = at
                roots.append((node, k, s if s is not None else ones_like(o)))
        leaves = backward(roots) if roots else {}
    finally:
        rec.spent = True
        release([n for n in (x[0] for x in rec.out_nodes if x) if n is not None], level)

    def grad_of(leaf, like):
        g = leaves.get(id(leaf))
        if g is None:
            return zeros_like(like)
        if g.dtype is not like.dtype and like.dtype.kind in ("float", "complex"):
            from .dispatch import cast
            g = cast(g, like.dtype)
        return g

    def input_grad(leaf, x):
        k = _sparse_values_field(x)
        if k is None:
            return grad_of(leaf, x)
        parts = list(x)
        parts[k] = grad_of(leaf, x[k])
        return type(x)(*parts)

    in_grads = tuple(input_grad(leaf, args[p]) for leaf, p in zip(rec.input_leaves, rec.positions))
    w_grads = tuple(grad_of(leaf, w) for leaf, w in zip(rec.weight_leaves, rec.weights))
    return out, in_grads, w_grads


def custom_bprop_call(fn, bprop, args, params=()):
    """Run fn(*args) as one node whose backward is the user's `bprop(*args, out, dout)` (Cell.bprop).

    `bprop` returns one gradient per input, or MindSpore's documented `((dx, ...), {param: dw})` to give the
    gradients of the cell's own `params` too (keyed by the Parameter or its name); params left out get none."""
    saved = ACTIVE[:]
    ACTIVE.clear()
    try:
        out = fn(*args)
    finally:
        ACTIVE.extend(saved)
    if ACTIVE:
        outs = tuple(_flatten_tensors(out))

        class _Custom:
            name = "CellBprop"

        def call_user(*a):
            inputs, o, d = a[:len(args)], a[-2], a[-1]
            grads = bprop(*inputs, o, d)
            param_grads = {}
            if isinstance(grads, tuple) and len(grads) == 2 and isinstance(grads[1], dict) \
                    and isinstance(grads[0], (tuple, list)):
                grads, param_grads = grads
            grads = tuple(grads) if isinstance(grads, (tuple, list)) else (grads,)
            by_name = {k: v for k, v in param_grads.items() if isinstance(k, str)}
            by_param = {id(k): v for k, v in param_grads.items() if not isinstance(k, str)}
            return grads + tuple(by_param.get(id(p), by_name.get(p.name)) for p in params)
        # Outputs are re-wrapped so each has a node of its own even if fn returned an input unchanged.
        fresh = tuple(o._alias() for o in outs)
        result = fresh[0] if isinstance(out, Tensor) else fresh
        # The parameters ride along as extra node inputs so a returned {param: dw} reaches them.
        record(_Custom(), tuple(args) + tuple(params), fresh, result, bprop_fn=call_user)
        return result
    return out


def recompute_call(fn, args, params=()):
    """Run fn(*args) keeping none of its intermediate values for the backward (`Cell.recompute()`).

    The forward runs unrecorded; the backward runs it again from the saved inputs and takes its vjp there. The
    inputs of the second run pass through `Depend(input, dout)`, so in a compiled graph the recomputed ops
    follow the output gradient (they run in the backward) and CSE cannot merge them with the first run."""
    from .grad_api import vjp
    positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]

    def rerun(*tensors):
        full = list(args)
        for i, t in zip(positions, tensors):
            full[i] = t
        return fn(*full)

    def bprop(*a):
        dout = a[-1]
        anchor = _flatten_tensors(dout)
        depend = registry.prim("Depend")
        inputs = [depend(a[i], anchor[0]) if anchor else a[i] for i in positions]
        _, pull = vjp(rerun, *inputs, weights=list(params) or None)
        grads = pull(dout)
        in_grads, w_grads = grads if params else (grads, ())
        dx = [None] * len(args)
        for i, g in zip(positions, in_grads):
            dx[i] = g
        return tuple(dx), {p: g for p, g in zip(params, w_grads)}

    return custom_bprop_call(fn, bprop, args, params)


def normalize_weights(weights):
    if weights is None:
        return ()
    if isinstance(weights, Parameter):
        return (weights,)
    items = tuple(weights)
    for i, w in enumerate(items):
        if not isinstance(w, Parameter):
            raise TypeError(f"weights must be Parameters (a ParameterTuple or list), but element {i} is {type(w).__name__}.")
    return items
