"""Runtime helpers called by rewritten code (see ast_transform.py): `if`, `while`, `x if c else y`, `and`/`or`/
`not`, and the call-site conversion of user functions.

Each helper looks at its condition first. A Python value or a concrete Tensor runs ordinary Python control flow
(so rewritten code also runs correctly, and without graph overhead, in PyNative); a `SymbolicTensor` condition
hands over to `cf_graph`, which traces the branches / the loop into subgraphs and emits an `if` / `while` node.

Rewritten code passes variables in and out explicitly: `cond_if(pred, then_fn, else_fn, values, out_names)`
calls a branch function with the current values of the variables the branches assign and returns the values
of those still read afterwards. A variable not yet defined is passed as `UNDEFINED`; rewritten code deletes a
name that comes back `UNDEFINED`, so reading it later fails as in Python.
"""
import builtins
import inspect
import types

from ... import context
from ...common.errors import is_user_file
from ...core.dispatch import current_tracer
from .errors import GraphCaptureError, GraphUnboundLocalError, located, user_location
from .scope import is_cell
from .graph_builtins import BUILTINS as GRAPH_BUILTINS, bit_op, bound_builtin  # noqa: F401  (bit_op: `_os_cf.bit_op`)
from .symbolic import SymbolicTensor
from .graph_operators import (  # noqa: F401  (the operators rewritten graph code calls as `_os_cf.<name>`)
    GRAPH_RAISE_TYPES, _as_bool_tensor, _symbolic_now, _truth, is_, is_not, member_in, member_not_in,
    not_, unsupported_exception, user_and_, user_or_)


class _Sentinel:
    __slots__ = ("_name",)

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return self._name

    def __reduce__(self):
        return self._name


UNDEFINED = _Sentinel("UNDEFINED")  # a variable without a value (yet)
NORET = _Sentinel("NORET")          # the return value slot before a `return` inside a loop was reached


class Missing:
    """The value of a variable that graph control flow could not give one (defined in one branch only, or only
    inside a loop): any use raises, naming the variable and the reason."""

    __slots__ = ("message",)

    def __init__(self, name, reason, loc):
        self.message = located(f"the variable '{name}' {reason}", loc)

    def _fail(self, *args, **kwargs):
        raise GraphUnboundLocalError(self.message)

    def __getattr__(self, item):
        if item.startswith("__") and item.endswith("__"):
            raise AttributeError(item)
        self._fail()

    def __repr__(self):
        return f"Missing({self.message!r})"


for _dunder in ("__bool__", "__len__", "__iter__", "__getitem__", "__call__", "__index__", "__int__", "__float__",
                "__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__", "__rtruediv__",
                "__matmul__", "__rmatmul__", "__pow__", "__neg__", "__lt__", "__le__", "__gt__", "__ge__",
                "__and__", "__or__", "__invert__", "__floordiv__", "__mod__"):
    setattr(Missing, _dunder, Missing._fail)


def check_defined(value, what):
    """Raise if a value about to leave the graph is (or holds) a Missing / UNDEFINED variable."""
    if isinstance(value, Missing):
        value._fail()
    if value is UNDEFINED or value is NORET:
        raise GraphCaptureError(located(f"{what} has no value on every path through the graph's control flow"))
    if type(value) in (tuple, list):
        for v in value:
            check_defined(v, what)
    elif type(value) is dict:
        for v in value.values():
            check_defined(v, what)


# ---- helpers used by rewritten code --------------------------------------------------------------
def fetch(scope, names):
    """Current values of `names` in a `locals()` dict; UNDEFINED for unbound ones."""
    return tuple(scope.get(n, UNDEFINED) for n in names)


def is_undefined(value):
    return value is UNDEFINED


def is_true(value):
    """True only when `value` is known to be true now (a symbolic flag may still be true at run time)."""
    if isinstance(value, SymbolicTensor):
        return False
    return bool(value)


def graph_enumerate(iterable, start=0):
    """`enumerate` as MindSpore's graph compiler checks it: a TypeError naming the argument for a `start` that
    is not an int or a first input that can not be iterated (Python's own messages name neither).

    >>> list(graph_enumerate((7, 8), 1))
    [(1, 7), (2, 8)]
    """
    if type(start) is not int:  # bool is an int to Python, not to the graph compiler
        # MindSpore's words, quotes included (its message is the repr of its own).
        raise TypeError(located(f"'For 'enumerate', the 'start' should be a const int number, but got "
                                f"{start!r:.40}.' (a {type(start).__name__}, an int was expected)"))
    try:
        iterator = iter(iterable)
    except TypeError:
        raise TypeError(located(f"For 'enumerate', the 'first input' should be a tuple, list, dict or Tensor, "
                                f"but got {type(iterable).__name__}.")) from None
    return builtins.enumerate(iterator, start)


# Builtins whose graph-mode version checks its arguments as MindSpore does; looked up by identity, so a
# user's own function of the same name is left alone.
_GRAPH_BUILTINS = {builtins.enumerate: graph_enumerate, **GRAPH_BUILTINS}


def call(fn):
    """The callee of a call in rewritten code: user functions and methods are rewritten too."""
    kind = type(fn)
    if kind is types.FunctionType or kind is types.MethodType:
        from .ast_transform import convert
        return convert(fn)
    if kind is types.BuiltinFunctionType or kind is type:
        if kind is types.BuiltinFunctionType and not isinstance(getattr(fn, "__self__", None), types.ModuleType):
            return bound_builtin(fn) or fn
        return _GRAPH_BUILTINS.get(fn, fn)
    # a @jit function called from graph code: its body is inlined (rewritten), not compiled on its own
    if isinstance(getattr(kind, "graph_function", None), property) and current_tracer() is not None:
        from .ast_transform import convert
        return convert(fn.graph_function)
    return fn


def callee(fn):
    """The callee of a call in rewritten code (`call`), refusing what can not be called as MindSpore's graph
    compiler does: with a ValueError. While tracing, a user function's call counts towards `max_call_depth`."""
    if not callable(fn):
        if getattr(type(fn), "__ms_class__", False):  # MindSpore's words for a jit_class object
            raise ValueError(located(f"MsClassObject: '{type(fn).__name__}' has no __call__ function, please check "
                                     "the code."))
        raise ValueError(located(f"The object is not callable: a {type(fn).__name__} ({fn!r:.60}) is called."))
    kind = type(fn)
    target = call(fn)
    if (kind is not types.FunctionType and kind is not types.MethodType and target is fn) \
            or current_tracer() is None:
        return target

    if kind is types.MethodType and isinstance(fn.__self__, type) and _user_code(fn.__func__):
        return _classmethod_call(fn)

    def counted(*args, **kwargs):
        key = _call_key(fn, args, kwargs)
        if key is not None and key in _ACTIVE_CALLS:
            raise _endless_recursion(fn, key, _ACTIVE_CALLS[key])
        if key is not None:
            _ACTIVE_CALLS[key] = current_tracer()
        try:
            with CALL_DEPTH:
                return target(*args, **kwargs)
        finally:
            if key is not None:
                _ACTIVE_CALLS.pop(key, None)
    return counted


def _endless_recursion(fn, key, first_tracer):
    """The error for a call of `fn` on the same abstract inputs as a call of it still being traced: tracing would
    unroll it without end. MindSpore 2.10 compiles such a recursion of a plain function (stopped by a tensor
    condition) into a recursive graph and runs it; openspore has no recursive graphs, so the function runs op by
    op instead (runtime/jit.py reads `needed_by_library`: at every syntax level, as MindSpore runs it at every
    level). A method's recursion MindSpore refuses at its call depth limit, and so does openspore, with its words."""
    limit = context.get_context("max_call_depth")
    name = getattr(fn, "__qualname__", fn)
    # Stopped by a tensor's value: the call is inside a branch (a subgraph) traced since the first call began, and
    # has tensor inputs (key[4]); a call on the same level would recur for ever, in Python too.
    if type(fn) is not types.MethodType and key[4] and current_tracer().has_ancestor(first_tracer):
        err = RuntimeError(located(
            f"Exceed function call depth: '{name}' calls itself with inputs of the same shapes, dtypes and Python "
            f"values: a recursion stopped by a tensor's value, which needs a recursive graph (the function runs "
            f"op by op instead)."))
        err.needed_by_library = True
        return err
    return RuntimeError(located(
        f"Exceed function call depth limit {limit}, (function call depth: {limit + 1}, simulate call depth: "
        f"{limit // 2 + 1}). '{name}' calls itself with inputs of the same shapes, dtypes and Python values, so "
        f"compiling it would recurse without end (an infinite recursion, or a method's recursion stopped by a "
        f"tensor's value, which MindSpore refuses too). Bound the recursion by Python values, write it as a "
        f"`while` loop, or run it in PYNATIVE_MODE."))


def _user_code(func):
    code = getattr(func, "__code__", None)
    return code is not None and is_user_file(code.co_filename)


def _classmethod_call(fn):
    """A classmethod called in graph code. MindSpore's graph compiler does not bind its class: the call's arguments
    go to the function's parameters from the first one (`cls`) on, so a count that does not match is its
    TypeError, and a parameter left without a value (keywords filled the others) its RuntimeError."""
    func = fn.__func__
    signature = inspect.signature(func)
    params = list(signature.parameters.values())

    def run(*args, **kwargs):
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError:
            positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
            missing = [p.name for p in positional[len(args):] if p.name not in kwargs and p.default is p.empty]
            if kwargs and missing:
                raise RuntimeError(located(f"Miss argument input for parameter:{missing[0]}")) from None
            raise TypeError(located(
                f"The parameters number of the function is {len(params)}, but the number of provided arguments "
                f"is {len(args) + len(kwargs)}. (In graph mode a classmethod is called without its class: "
                f"'{fn.__qualname__}' gets the call's arguments from its first parameter on; make it a "
                f"staticmethod or a plain function.)")) from None
        bound.apply_defaults()
        return callee(func)(*bound.args, **bound.kwargs)
    return run


def method(obj, name):
    """The callee of `obj.name(...)` in rewritten code. A dict answers as a graph dict does in MindSpore:
    `keys()` and `values()` give tuples, `items()` a list of (key, value) tuples, `has_key(k)` says whether
    `k` is a key; anything else is `callee(getattr(obj, name))`."""
    if type(obj) is dict:
        special = _DICT_METHODS.get(name)
        if special is not None:
            return lambda *args: special(obj, *args)
    if name in _MUTATORS.get(type(obj), ()) and current_tracer() is not None:
        _note_mutation(obj)
    return callee(getattr(obj, name))


# A list or dict changed by a method call while a graph is traced (`GLOBAL_LIST.append(x)`): in MindSpore the graph
# works on its own value of it, and the Python object keeps what it held. The frontend notes each one's contents
# before the first change and puts them back once the trace has taken its result (api.trace, `undo_mutations`).
_MUTATORS = {list: frozenset({"append", "extend", "insert", "pop", "remove", "reverse", "sort", "clear"}),
             dict: frozenset({"update", "pop", "popitem", "clear", "setdefault"})}
MUTATED = []  # [(object, its contents before the trace changed it)]


def _note_mutation(obj):
    if not any(o is obj for o, _ in MUTATED):
        MUTATED.append((obj, list(obj) if type(obj) is list else dict(obj)))


def undo_mutations(mark):
    """Give the lists and dicts noted since `len(MUTATED)` was `mark` their contents back."""
    while len(MUTATED) > mark:
        obj, before = MUTATED.pop()
        if type(obj) is list:
            obj[:] = before
        else:
            obj.clear()
            obj.update(before)


_DICT_METHODS = {"keys": lambda d: tuple(d.keys()), "values": lambda d: tuple(d.values()),
                 "items": lambda d: list(d.items()), "has_key": lambda d, key: key in d}


_ACTIVE_CALLS = {}  # keys of the user-function calls being traced now (see `_call_key`) -> the tracer they began in


def _closure_key(fn):
    """What a closure captured: two closures of one code over different objects (the `wrapper`s of
    `GradOperation()(net)` and `GradOperation()(grad_net)`, nested for a second derivative) are different calls,
    not a recursion. A closure re-made around the same objects keys the same."""
    cells = getattr(fn, "__closure__", None) or ()
    try:
        return tuple(id(c.cell_contents) for c in cells)
    except ValueError:  # a cell not filled yet
        return None


def _call_key(fn, args, kwargs):
    """(code, owner, abstract inputs) of a call while tracing, or None when its inputs can not be keyed."""
    from .spec import flatten, static_key
    try:
        leaves, spec = flatten((tuple(args), dict(kwargs)))
        key = (getattr(fn, "__code__", None) or getattr(getattr(fn, "__func__", None), "__code__", None),
               id(getattr(fn, "__self__", None)), _closure_key(fn), static_key(spec),
               tuple((tuple(t.shape), str(t.dtype)) for t in leaves))
        hash(key)
    except Exception:  # values without a key (unhashable Python objects): no check
        return None
    return key


class _CallDepth:
    """The depth of graph calls (user functions, cells, `if` branches) while a graph is traced. MindSpore's
    compiler refuses to go deeper than `max_call_depth` (`set_context(max_call_depth=...)` or
    `set_recursion_limit(...)`, default 1000) with a RuntimeError; a recursion in graph code stops there too,
    instead of exhausting Python's stack."""

    def __init__(self):
        self.depth = 0

    def __enter__(self):
        limit = context.get_context("max_call_depth")
        if self.depth >= limit:
            raise RuntimeError(located(
                f"Exceed function call depth limit {limit}, (function call depth: {self.depth + 1}). The graph "
                f"code recurses too deep: an infinite recursion or loop, or a recursion on a tensor condition "
                f"(graph mode unrolls calls while compiling); raise the limit with "
                f"mindspore.set_recursion_limit(...) or set_context(max_call_depth=...) if the depth is wanted."))
        self.depth += 1
        return self

    def __exit__(self, *exc):
        self.depth -= 1
        return False


CALL_DEPTH = _CallDepth()
# MindSpore's compiler unrolls a `for` loop of graph code into nested calls, so a long loop stops at
# `max_call_depth` there; the rewritten `for` counts the same way while a graph is traced. Measured on 2.10 with a
# loop in a Cell's construct: n iterations need a limit of about 4 + 2n (1 iteration fails at 5 and compiles at 8,
# 9 fail at 20 and compile at 25, 479 compile under the default 1000, 519 do not).
FOR_LOOP_DEPTH = 4
FOR_ITERATION_DEPTH = 2


def unrolled_for(iterable):
    """The iterator of a `for` statement in rewritten graph code: the loop holds FOR_LOOP_DEPTH levels of
    CALL_DEPTH from its first iteration and each iteration FOR_ITERATION_DEPTH more, until the loop ends (a
    RuntimeError past the limit, as in MindSpore)."""
    if current_tracer() is None:
        yield from iterable
        return
    held = 0
    try:
        for item in iterable:
            for _ in range(FOR_ITERATION_DEPTH + (FOR_LOOP_DEPTH if held == 0 else 0)):
                CALL_DEPTH.__enter__()
                held += 1
            yield item
    finally:
        for _ in range(held):
            CALL_DEPTH.__exit__()


def _decided(pred):
    """`pred` itself, or its truth value when it is traced but computed from graph constants only (cf_fold)."""
    if _symbolic_now(pred):
        from .cf_fold import constant_condition
        known = constant_condition(pred)
        if known is not None:
            return known
    return pred


def cond_if(pred, then_fn, else_fn, values, out_names, returns=False):
    """`if pred:` with branch functions over `values`; returns the outputs (or the return value)."""
    with CALL_DEPTH:  # a branch is a subgraph call, as in MindSpore's count
        pred = _decided(pred)
        if _symbolic_now(pred):
            from .cf_graph import symbolic_if
            try:
                return symbolic_if(pred, then_fn, else_fn, values, out_names, returns, user_location())
            except Exception as exc:
                _mark_user_raise(exc)
                raise
        return then_fn(*values) if pred else else_fn(*values)


def _mark_user_raise(exc):
    """A `raise` of the user's own under a tensor condition: MindSpore compiles it into the graph and raises
    only when the branch is taken at run time. Tracing both branches met it, so the function runs in Python
    instead (runtime/jit.py `run_graph_or_eager`), where the condition's real value decides."""
    if isinstance(exc, GraphCaptureError) or getattr(exc, "runs_in_python", False):
        return
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is not None and is_user_file(tb.tb_frame.f_code.co_filename):
        try:
            exc.runs_in_python = True
        except AttributeError:  # an exception type with __slots__: it stays a compile-time error
            pass


def while_loop(cond_fn, body_fn, values, names):
    """`while cond:` over the loop-carried `values`; returns their final values."""
    state = tuple(values)
    tracer = current_tracer()
    while True:
        if tracer is None:
            c = cond_fn(*state)
        else:
            from .cf_graph import probe
            c = probe(tracer, cond_fn, state)
        if isinstance(c, SymbolicTensor):
            from .cf_graph import symbolic_while
            return symbolic_while(cond_fn, body_fn, state, names, user_location())
        if not c:
            return state
        state = tuple(body_fn(*state))


def with_enter(obj):
    """`with obj` in graph code: `obj.__enter__()`, for instances of jit_class classes and Cells only (MindSpore's
    TypeError otherwise)."""
    if not (getattr(type(obj), "__ms_class__", False) or is_cell(obj)):
        raise TypeError(located(f"Only support jit_class instance, but got PythonObject(type: {type(obj)}, value: "
                                f"{obj!r}) in a `with` statement of graph code"))
    return obj.__enter__()


def with_item(callee, make):
    """The object of `with callee(...)` in graph code: `make()`, unless `callee` is a Python builtin function,
    whose result is never a jit_class instance — refused before the call runs (MindSpore's compile-time TypeError)."""
    if isinstance(callee, types.BuiltinFunctionType):
        raise TypeError(located(f"Only support jit_class instance, but got the result of the Python builtin "
                                f"{callee.__name__}() in a `with` statement of graph code"))
    return make()


def with_exit(obj):
    """The end of a `with obj` block in graph code: `obj.__exit__(None, None, None)`."""
    obj.__exit__(None, None, None)


def getitem(obj, index):
    """`obj[index]` for a computed index: a tuple/list of functions indexed by a traced tensor picks one at run
    time (cf_switch.py); anything else is plain indexing."""
    if isinstance(index, SymbolicTensor):
        from .cf_switch import getitem as switch_getitem
        return switch_getitem(obj, index)
    return obj[index]


def if_exp(test, then_fn, else_fn):
    """`a if test else b` with the branches as thunks."""
    test = _decided(test)
    if _symbolic_now(test):
        from .cf_graph import symbolic_if
        return symbolic_if(test, then_fn, else_fn, (), (), True, user_location())
    return then_fn() if test else else_fn()


def _same_number_tensors(a, b):
    """One-element non-bool tensors of one dtype and shape: `and`/`or` can pick one of them, as in Python."""
    from ...core.tensor import Tensor
    from ...common import dtype as mstype
    if not (isinstance(a, Tensor) and isinstance(b, Tensor)):
        return False
    size = 1
    for d in a.shape:
        size *= d
    return a.dtype == b.dtype and a.dtype is not mstype.bool_ and tuple(a.shape) == tuple(b.shape) and size == 1


def and_(value, *thunks):
    """`a and b and ...`: Python short-circuit semantics, `logical_and` once an operand is symbolic."""
    for thunk in thunks:
        if _symbolic_now(value):
            from ...ops import functional as F
            other = thunk()
            if _same_number_tensors(value, other):  # MindSpore gives the operand: y if x else x
                value = F.select(_as_bool_tensor(value), other, value)
            else:
                value = F.logical_and(_as_bool_tensor(value), _as_bool_tensor(other))
        elif not _truth(value):
            return value
        else:
            value = thunk()
    return value


def or_(value, *thunks):
    """`a or b or ...`: Python short-circuit semantics, `logical_or` once an operand is symbolic."""
    for thunk in thunks:
        if _symbolic_now(value):
            from ...ops import functional as F
            other = thunk()
            if _same_number_tensors(value, other):  # x if x else y
                value = F.select(_as_bool_tensor(value), value, other)
            else:
                value = F.logical_or(_as_bool_tensor(value), _as_bool_tensor(other))
        elif _truth(value):
            return value
        else:
            value = thunk()
    return value


def live(*flags):
    """`not (brk or cont)` for the flags that replace break/continue: True while the loop body should run."""
    out = True
    for flag in flags:
        out = and_(out, (lambda f: lambda: not_(f))(flag))
    return out
