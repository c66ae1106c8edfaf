"""Graph control flow for symbolic conditions: branches and loop bodies traced into subgraphs, `if`/`while` nodes.

A subgraph is traced by a child Tracer. Tensors of enclosing graphs that it uses are captured (tracer.py); the
control-flow node passes them as operands, after the loop-carried values for a `while`. Both branches of an
`if` take the same operand list (the union of what either captured). Results are joined leaf by leaf:

* tensors must agree in shape and dtype; a Python number meeting a tensor is MindSpore's TypeError (the rewrite's
  own `_os_` flags excepted: there the number becomes a constant of that tensor);
* different functions (Cells, primitives) become a `SwitchCallable` that picks one by the condition when called;
* equal Python values stay Python values; different Python numbers (e.g. flags) become 0-d tensors
  (bool, int64 or float32); other differing Python values are an error;
* a variable defined in one branch only becomes `Missing` (an error when used later).

A loop-carried value must keep its shape and dtype; Python numbers carried by a symbolic loop become 0-d
tensors (widened once if the body changes their dtype); other Python values must not change in the body.
"""
import numpy as np

from ...common import dtype as mstype
from ...core import autograd, dispatch
from ...core.primitive import AbstractTensor
from ...core.tensor import Tensor
from ...ir.node import Graph, Node
from . import cf_grad
from .cf_switch import SwitchCallable, is_function_value
from .control_flow import NORET, UNDEFINED, Missing
from .errors import GraphCaptureError, GraphTypeError, GraphValueError, located
from .symbolic import SymbolicTensor

_NUMBER = (bool, int, float)


def _is_number(v):
    return type(v) in _NUMBER


def _abstract(t):
    return AbstractTensor(t.shape, t.dtype)


def _kind(value):
    return "Tensor" if isinstance(value, Tensor) else type(value).__name__


def _fmt(a):
    return f"Tensor[{a.dtype}] of shape {list(a.shape)}"


def run_sub(sub, fn, args):
    """Run `fn(*args)` with `sub` as the active tracer, outside any grad level (the control-flow node is
    differentiated as a whole by its own backward rule)."""
    saved = autograd.ACTIVE[:]
    autograd.ACTIVE.clear()
    dispatch.push_tracer(sub)
    try:
        out = fn(*args)
        if sub._rebinds:  # outer tensors updated in place (`y[0] = v`): return their new values, then undo
            out = _fresh(out, {id(r[0]) for r in sub._rebinds})
        return out
    finally:
        dispatch.pop_tracer(sub)
        autograd.ACTIVE[:] = saved
        sub.restore_rebinds()


def _fresh(value, rebound):
    if isinstance(value, SymbolicTensor) and id(value) in rebound:
        alias = value._alias()
        alias._nodes = value._nodes
        return alias
    if type(value) in (tuple, list):
        return type(value)(_fresh(v, rebound) for v in value)
    if type(value) is dict:
        return {k: _fresh(v, rebound) for k, v in value.items()}
    return value


def probe(tracer, cond_fn, state):
    """Evaluate a loop condition without leaving nodes behind (a symbolic result is traced again as a subgraph)."""
    from .tracer import Tracer
    return run_sub(Tracer(tracer.name + "_probe", tracer.shared, tracer), cond_fn, state)


def as_condition(pred):
    """A bool scalar tensor from an `if`/`while` condition (a Python value becomes a constant)."""
    from ...ops import functional as F
    if not isinstance(pred, Tensor):
        return Tensor(bool(pred))
    if pred.size != 1:
        raise GraphCaptureError(located(f"the condition of an `if`/`while` must be a one-element tensor, but got "
                                        f"shape {list(pred.shape)}"))
    if pred.dtype is not mstype.bool_:
        pred = F.not_equal(pred, 0)
    if pred.shape != ():
        pred = F.reshape(pred, ())
    return pred


def _operand_union(*subs):
    seen, out = set(), []
    for sub in subs:
        for value, _ in sub.captures:
            if id(value) not in seen:
                seen.add(id(value))
                out.append(value)
    return out


def _capture_inputs(sub, operands):
    """One input of `sub` per operand: its capture, or an unused input when `sub` did not use it."""
    inputs = []
    for value in operands:
        node = sub._captured.get(id(value))
        inputs.append(node if node is not None else Node("input", abstract=_abstract(value), name="unused"))
    return inputs


def _side_effect(sub):
    return any(n.has_side_effect for n in sub.nodes)


def _const_tensor(value, like):
    return Tensor(np.full(tuple(like.shape), value, dtype=like.dtype.np_dtype), dtype=like.dtype)


def _zeros_like_value(value):
    if isinstance(value, Tensor):
        return _const_tensor(0, value)
    if type(value) in (tuple, list):
        return type(value)(_zeros_like_value(v) for v in value)
    return value


def _join_failure(a, b):
    """MindSpore's words for two tensor abstracts that do not join: 'Type Join Failed' / 'Shape Join Failed'."""
    if a.dtype != b.dtype:
        return f"Type Join Failed: dtype1 = {a.dtype}, dtype2 = {b.dtype}"
    return f"Shape Join Failed: shape1 = {list(a.shape)}, shape2 = {list(b.shape)}"


def _join_error_kind(a, b):
    """A dtype that does not join is MindSpore's TypeError, a shape its ValueError."""
    return GraphTypeError if a.dtype != b.dtype else GraphValueError


# ---- if ----------------------------------------------------------------------------------------
class _Join:
    """Joins the then/else results leaf by leaf, collecting each branch's output nodes."""

    def __init__(self, then_sub, else_sub, loc, pred=None):
        self.subs = (then_sub, else_sub)
        self.nodes = ([], [])
        self.loc = loc
        self.pred = pred

    def _error(self, name, what, kind=GraphCaptureError):
        return kind(located(f"the variable '{name}' {what} (both branches of an `if` on a tensor must give each "
                            "variable a value of the same kind)", self.loc))

    def _leaf(self, a, b):
        self.nodes[0].append(self.subs[0].node_of(a))
        self.nodes[1].append(self.subs[1].node_of(b))
        return ("T", len(self.nodes[0]) - 1)

    def join(self, a, b, name):
        if a is b:
            return ("C", a)
        if isinstance(a, Missing) or isinstance(b, Missing):
            return ("C", a if isinstance(a, Missing) else b)
        if a is UNDEFINED or b is UNDEFINED:
            side = "else" if a is UNDEFINED else "then"
            return ("C", Missing(name, f"is assigned only in the {side}-branch of the `if` on a tensor here, so "
                                       "it has no value after it; assign it before the `if` or in both branches",
                                 self.loc))
        if a is NORET:
            a = _zeros_like_value(b)
        elif b is NORET:
            b = _zeros_like_value(a)
        ta, tb = isinstance(a, Tensor), isinstance(b, Tensor)
        if ta and tb:
            if _abstract(a) != _abstract(b):
                aa, ab = _abstract(a), _abstract(b)
                raise self._error(name, f"is a {_fmt(aa)} in the then-branch but a {_fmt(ab)} in the else-branch "
                                        f"({_join_failure(aa, ab)})", _join_error_kind(aa, ab))
            return self._leaf(a, b)
        if (ta and _is_number(b)) or (tb and _is_number(a)):
            if not name.startswith("_os_"):  # MindSpore joins no tensor with a scalar; the rewrite's flags may
                raise TypeError(located(
                    f"Cannot join the return values of different branches, perhaps you need to make them equal. "
                    f"Type Join Failed: the variable '{name}' is a {_kind(a)} in the then-branch but a {_kind(b)} "
                    f"in the else-branch (a Tensor can not join a Python scalar: make both tensors)", self.loc))
            return self._leaf(a, _const_tensor(b, a)) if ta else self._leaf(_const_tensor(a, b), b)
        if _is_number(a) and _is_number(b):
            if type(a) is type(b) and a == b:
                return ("C", a)
            dtype = mstype.bool_ if type(a) is bool and type(b) is bool else (
                mstype.float32 if float in (type(a), type(b)) else mstype.int64)
            like = AbstractTensor((), dtype)
            return self._leaf(_const_tensor(a, like), _const_tensor(b, like))
        if type(a) in (tuple, list) and type(b) is type(a) and len(a) == len(b):
            return (type(a).__name__, tuple(self.join(x, y, f"{name}[{i}]") for i, (x, y) in enumerate(zip(a, b))))
        if type(a) is dict and type(b) is dict and list(a) == list(b):
            return ("dict", tuple(a), tuple(self.join(a[k], b[k], f"{name}[{k!r}]") for k in a))
        if not (ta or tb) and is_function_value(a) and is_function_value(b) and self.pred is not None:
            try:
                same = bool(a == b)  # bound methods are equal, not identical, each time they are looked up
            except Exception:
                same = False
            return ("C", a if same else SwitchCallable.by_condition(self.pred, a, b, self.loc))
        if ta or tb or type(a) is not type(b):
            raise self._error(name, f"is a {_kind(a)} in the then-branch but a {_kind(b)} in the else-branch")
        try:
            same = bool(a == b)
        except Exception:  # values without a plain equality (arrays...): only identity counts
            same = False
        if not same:
            raise self._error(name, f"is the Python value {a!r} in the then-branch but {b!r} in the else-branch; "
                                    "only tensors may differ between branches")
        return ("C", a)


def rebuild(spec, results):
    tag = spec[0]
    if tag == "T":
        return results[spec[1]]
    if tag == "C":
        return spec[1]
    if tag == "dict":
        return {k: rebuild(s, results) for k, s in zip(spec[1], spec[2])}
    if tag == "record":  # a namedtuple-like record (RowTensor, COOTensor, ...): spec = (tag, class, fields)
        return tuple.__new__(spec[1], [rebuild(s, results) for s in spec[2]])
    items = [rebuild(s, results) for s in spec[1]]
    return tuple(items) if tag == "tuple" else items


def symbolic_if(pred, then_fn, else_fn, values, out_names, returns, loc):
    """Trace both branches, join their results and emit an `if` node (see the module docstring)."""
    parent = dispatch.current_tracer()
    pred = as_condition(pred)
    then_sub, else_sub = parent.child("then"), parent.child("else")
    then_out = run_sub(then_sub, then_fn, values)
    else_out = run_sub(else_sub, else_fn, values)
    join = _Join(then_sub, else_sub, loc, pred)
    if returns:
        spec = join.join(then_out, else_out, "returned")
    else:
        spec = ("tuple", tuple(join.join(a, b, n) for a, b, n in zip(then_out, else_out, out_names)))
    if not join.nodes[0] and not (_side_effect(then_sub) or _side_effect(else_sub)):
        return rebuild(spec, ())
    operands = _operand_union(then_sub, else_sub)
    then_g = Graph(then_sub.name, _capture_inputs(then_sub, operands), then_sub.nodes,
                   then_sub.make_tuple(join.nodes[0]))
    else_g = Graph(else_sub.name, _capture_inputs(else_sub, operands), else_sub.nodes,
                   else_sub.make_tuple(join.nodes[1]))
    return rebuild(spec, emit_if(pred, operands, then_g, else_g))


def emit_if(pred, operands, then_g, else_g):
    """Append an `if` node over existing branch graphs to the active graph; returns its output tensors."""
    tracer = dispatch.current_tracer()
    inputs = [tracer.node_of(pred)] + [tracer.node_of(v) for v in operands]
    abstract = then_g.output.abstract
    node = tracer.structural("if", inputs, abstract, graphs=(then_g, else_g))
    results = tuple(tracer.symbolic(tracer.structural("tuple_get_item", (node,), a, index=i))
                    for i, a in enumerate(abstract))
    cf_grad.record_if(pred, operands, results, then_g, else_g)
    return results


# ---- while -------------------------------------------------------------------------------------
def _promote_numbers(value, flexible):
    """Python numbers in loop state become 0-d tensors (remembered as `flexible`: their dtype may widen)."""
    if _is_number(value):
        dtype = mstype.bool_ if type(value) is bool else mstype.int64 if type(value) is int else mstype.float32
        t = Tensor(np.asarray(value, dtype=dtype.np_dtype), dtype=dtype)
        flexible[id(t)] = t  # kept alive so that its id stays unique
        return t
    if type(value) in (tuple, list):
        return type(value)(_promote_numbers(v, flexible) for v in value)
    return value


def _is_record(value):
    """A namedtuple-like record (the sparse tensors are ones): carried through a loop field by field."""
    return isinstance(value, tuple) and type(value) is not tuple and hasattr(type(value), "_fields")


class _LoopState:
    """Loop-carried values split into tensor slots and static Python values."""

    def __init__(self, names, values, loc):
        self.names, self.values, self.loc = names, list(values), loc
        self.slots = []  # init tensors

    def spec(self, value):
        if isinstance(value, Tensor):
            self.slots.append(value)
            return ("T", len(self.slots) - 1)
        if type(value) in (tuple, list):
            return (type(value).__name__, tuple(self.spec(v) for v in value))
        if _is_record(value):
            return ("record", type(value), tuple(self.spec(v) for v in value))
        return ("C", value)

    def error(self, name, what, kind=GraphCaptureError):
        return kind(located(f"the loop variable '{name}' {what} (a value carried by a `while` on a tensor must "
                            "keep its kind, shape and dtype)", self.loc))

    def reconcile(self, name, init, out, flexible):
        """(new init value, changed) so that the body maps init's kind to itself; raises when it cannot."""
        if isinstance(init, Tensor):
            if _is_number(out):
                return init, False
            if not isinstance(out, Tensor):
                raise self.error(name, f"is a Tensor before the loop but a {_kind(out)} after its body")
            a, b = _abstract(init), _abstract(out)
            if a == b:
                return init, False
            if id(init) in flexible and a.shape == b.shape:
                widened = Tensor(np.asarray(init._scalar(float) if b.dtype.kind == "float" else init._scalar(int),
                                            dtype=b.dtype.np_dtype), dtype=b.dtype)
                flexible[id(widened)] = widened
                return widened, True
            raise self.error(name, f"is a {_fmt(a)} before the loop but a {_fmt(b)} after its body "
                                   f"({_join_failure(a, b)})", _join_error_kind(a, b))
        if init is NORET and out is not NORET:
            new = _promote_numbers(_zeros_like_value(out), flexible)
            return new, True
        if type(init) in (tuple, list) or _is_record(init):
            if type(out) is not type(init) or len(out) != len(init):
                raise self.error(name, f"changes structure in the loop body ({_kind(init)} of {len(init)} → "
                                       f"{_kind(out)})")
            pairs = [self.reconcile(f"{name}[{i}]", x, y, flexible) for i, (x, y) in enumerate(zip(init, out))]
            kind = type(init)
            same = (kind(p[0] for p in pairs) if kind in (tuple, list) else
                    tuple.__new__(kind, [p[0] for p in pairs]))
            return same, any(p[1] for p in pairs)
        if out is init:
            return init, False
        try:
            same = type(out) is type(init) and bool(out == init)
        except Exception:
            same = False
        if not same:
            raise self.error(name, f"is the Python value {init!r} before the loop but {out!r} after its body; only "
                                   "tensors and numbers may change in a loop on a tensor")
        return init, False


def _slot_outputs(sub, spec, out, state, outs):
    tag = spec[0]
    if tag == "T":
        like = state.slots[spec[1]]
        outs.append(sub.node_of(_const_tensor(out, like) if _is_number(out) else out))
    elif tag in ("tuple", "list"):
        for s, o in zip(spec[1], out):
            _slot_outputs(sub, s, o, state, outs)
    elif tag == "record":
        for s, o in zip(spec[2], out):
            _slot_outputs(sub, s, o, state, outs)


def symbolic_while(cond_fn, body_fn, values, names, loc):
    """Trace the loop body and condition over the loop-carried values and emit a `while` node."""
    parent = dispatch.current_tracer()
    flexible = {}
    values = [_promote_numbers(v, flexible) for v in values]
    # A variable whose kind changes in the body need not be carried when no iteration reads the value it enters
    # with (the body assigns it first): MindSpore drops such a dead loop phi. It is retraced as unreadable (a read
    # brings back the original error) and has no value after the loop.
    dropped = {}
    for _ in range(len(names) + 4):
        state = _LoopState(names, values, loc)
        specs = [None if v is UNDEFINED else state.spec(v) for v in values]
        body = parent.child("body")
        syms = [body.add_input(f"s{i}", _abstract(t)) for i, t in enumerate(state.slots)]
        args = [_unreadable(n, loc) if n in dropped else UNDEFINED if s is None else rebuild(s, syms)
                for n, s in zip(names, specs)]
        out = _run_dropping(body, body_fn, args, dropped)
        changed = False
        for i, (name, s) in enumerate(zip(names, specs)):
            if s is not None:
                try:
                    values[i], c = state.reconcile(name, values[i], out[i], flexible)
                except GraphTypeError as exc:
                    dropped[name] = exc
                    values[i], c = UNDEFINED, True
                changed = changed or c
        if not changed:
            break
    else:
        raise GraphCaptureError(located("the loop-carried values of this `while` do not settle", loc))
    slot_outs = []
    for s, o in zip(specs, out):
        if s is not None:
            _slot_outputs(body, s, o, state, slot_outs)
    cond = parent.child("cond")
    csyms = [cond.add_input(f"s{i}", _abstract(t)) for i, t in enumerate(state.slots)]
    cargs = [_unreadable(n, loc) if n in dropped else UNDEFINED if s is None else rebuild(s, csyms)
             for n, s in zip(names, specs)]
    c = _run_dropping(cond, lambda *a: cond.node_of(as_condition(cond_fn(*a))), cargs, dropped)
    operands = _operand_union(body, cond)
    body_caps = _capture_inputs(body, operands)
    body_g = Graph(body.name, [t.node for t in syms] + body_caps, body.nodes, body.make_tuple(slot_outs + body_caps))
    cond_g = Graph(cond.name, [t.node for t in csyms] + _capture_inputs(cond, operands), cond.nodes, c)
    results = emit_while(list(state.slots) + operands, cond_g, body_g)
    final = []
    for name, s, o in zip(names, specs, out):
        if s is not None:
            final.append(rebuild(s, results))
        elif name in dropped:
            final.append(_Dropped(name, dropped[name], loc))
        elif o is UNDEFINED:
            final.append(UNDEFINED)
        else:
            final.append(Missing(name, "is assigned inside a `while` loop on a tensor but not defined before it, so "
                                       "the graph can not carry it out of the loop; assign it before the loop", loc))
    return tuple(final)


class _Dropped(Missing):
    """After the loop, a variable whose kind changed in it: a use raises that kind-change error (as MindSpore's
    type join does when the value is live after the loop)."""

    __slots__ = ("error",)

    def __init__(self, name, error, loc):
        super().__init__(name, "changes its kind in a `while` loop on a tensor", loc)
        self.error = error

    def _fail(self, *args, **kwargs):
        raise self.error


for _name, _value in list(vars(Missing).items()):
    if _value is Missing._fail:
        setattr(_Dropped, _name, _Dropped._fail)


def _unreadable(name, loc):
    return Missing(name, "is read in a `while` loop on a tensor before the body assigns it", loc)


def _run_dropping(sub, fn, args, dropped):
    """run_sub; when it fails on a dropped variable's read, the error of that variable's kind change instead."""
    try:
        return run_sub(sub, fn, args)
    except GraphCaptureError as exc:
        for name, original in dropped.items():
            if f"'{name}' is read in a `while` loop" in str(exc):
                raise original from None
        raise


def emit_while(operands, cond_g, body_g):
    """Append a `while` node over existing graphs to the active graph; returns all its output tensors."""
    tracer = dispatch.current_tracer()
    inputs = [tracer.node_of(v) for v in operands]
    abstract = tuple(n.abstract for n in inputs)
    node = tracer.structural("while", inputs, abstract, graphs=(cond_g, body_g))
    results = tuple(tracer.symbolic(tracer.structural("tuple_get_item", (node,), a, index=i))
                    for i, a in enumerate(abstract))
    cf_grad.record_while(operands, results, cond_g, body_g)
    return results
