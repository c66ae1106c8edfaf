"""The graph-mode entry points: `ms.jit`, GRAPH_MODE `Cell.__call__`, `JitConfig`, `jit_class`, `lazy_inline`,
`no_inline` (facts §1.12, §3.1).

A jitted function runs compiled whatever the global mode is. Two situations run the Python function itself
instead (the PyNative path, same results):
* `MS_JIT=0` in the environment (`context.jit_disabled()`);
* a graph is being traced: a jitted function or a Cell called inside another compiled function is inlined into
  the outer graph.
Under an active PyNative gradient transform (`ms.grad(f)(x)` where `f` calls a jitted function) the compiled
call is recorded as one autodiff node whose backward is a compiled vjp graph (grad_call.py).

Optimisation level: `jit(jit_level=...)`, else the Cell's `set_jit_config(JitConfig(jit_level=...))`, else a
`set_context(jit_level=...)` made by the user, else `DEFAULT_LEVEL` ('O1': inlining, dead-branch elimination,
constant folding, algebraic simplification, CSE and DCE — they cost milliseconds and remove work from every call).
"""
import functools
import inspect
import logging
import types
import weakref

from .. import context
from ..core import autograd
from ..core.dispatch import current_tracer
from .cache import GraphCache
from .grad_call import call_recording

logger = logging.getLogger("openspore.jit")

DEFAULT_LEVEL = "O1"
_LEVELS = ("O0", "O1", "O2")
_CAPTURE_MODES = ("ast", "bytecode", "trace")
_user_level = {"set": False}


def _on_context(key, value):
    if key == "jit_level":
        _user_level["set"] = True


context.add_listener(_on_context)


def _context_level():
    return context.get_context("jit_level") if _user_level["set"] else None


def _check_level(level, where):
    if level not in _LEVELS:
        raise ValueError(f"For '{where}', the 'jit_level' should be one of {list(_LEVELS)}, but got {level!r}.")
    return level


# ---- JitConfig ------------------------------------------------------------------------------------
class JitConfig:
    """`JitConfig(jit_level='', exc_mode='auto', jit_syntax_level='', debug_level='RELEASE', infer_boost='off',
    **kwargs)`: compile options for a Cell (`cell.set_jit_config(cfg)`) or `ms.jit(jit_config=cfg)`."""

    def __init__(self, jit_level="", exc_mode="auto", jit_syntax_level="", debug_level="RELEASE", infer_boost="off",
                 **kwargs):
        for name, value, choices in (("jit_level", jit_level, ("",) + _LEVELS),
                                     ("exc_mode", exc_mode, ("auto", "sink", "no_sink")),
                                     ("jit_syntax_level", jit_syntax_level, ("", "STRICT", "COMPATIBLE", "LAX")),
                                     ("debug_level", debug_level, ("RELEASE", "DEBUG")),
                                     ("infer_boost", infer_boost, ("on", "off"))):
            if value not in choices:
                raise ValueError(f"For 'JitConfig', the '{name}' should be one of {list(choices)}, but got {value!r}.")
        self.jit_config_dict = dict(kwargs, jit_level=jit_level, exc_mode=exc_mode,
                                    jit_syntax_level=jit_syntax_level, debug_level=debug_level,
                                    infer_boost=infer_boost)

    def __repr__(self):
        return f"JitConfig({', '.join(f'{k}={v!r}' for k, v in self.jit_config_dict.items())})"


def _config_level(config):
    if config is None:
        return None
    d = getattr(config, "jit_config_dict", config)
    if not isinstance(d, dict):
        raise TypeError(f"For 'jit', the 'jit_config' should be a JitConfig, but got {type(config).__name__}.")
    return d.get("jit_level") or None


# ---- ms.jit --------------------------------------------------------------------------------------
def jit(function=None, *, capture_mode="ast", jit_level=None, dynamic=0, fullgraph=False, backend="", **options):
    """`jit(function=None, *, capture_mode='ast', jit_level='O0', dynamic=0, fullgraph=False, backend='',
    **options)`: compile a function, a Cell method or a Cell into a graph (cached per input signature).

    Usable as `@ms.jit`, `@ms.jit(...)`, `ms.jit(fn)` and `ms.jit(cell)` (the compiled construct). The 1.x
    keywords (`mode='PSJit'`, `input_signature`, `hash_args`, `jit_config`, `compile_once`, `fn`) are accepted.

    >>> import numpy as np, openspore as ms
    >>> @ms.jit
    ... def f(x, y):
    ...     return x * y + 1
    >>> f(ms.Tensor(np.ones(2, np.float32)), ms.Tensor(np.full(2, 3, np.float32)))
    Tensor(shape=[2], dtype=Float32, value= [ 4.00000000e+00,  4.00000000e+00])
    """
    if function is None and "fn" in options:
        function = options.pop("fn")
    if capture_mode not in _CAPTURE_MODES:
        raise ValueError(f"For 'jit', the 'capture_mode' should be one of {list(_CAPTURE_MODES)}, "
                         f"but got {capture_mode!r}.")
    mode = options.pop("mode", "PSJit")
    if mode not in ("PSJit", "PIJit"):
        raise ValueError(f"For 'jit', the 'mode' should be 'PSJit' or 'PIJit', but got {mode!r}.")
    if jit_level is not None:
        _check_level(jit_level, "jit")
    level = jit_level or _config_level(options.pop("jit_config", None))
    if not isinstance(fullgraph, bool):
        raise TypeError(f"For 'jit', the 'fullgraph' should be a bool, but got {type(fullgraph).__name__}.")

    def wrap(fn):
        if _is_cell(fn):
            construct = type(fn).construct
            raw = construct.fn if isinstance(construct, JitFunction) else construct
            return JitFunction(raw, level, options).__get__(fn, type(fn))
        if inspect.ismethod(fn):
            return JitFunction(fn.__func__, level, options).__get__(fn.__self__, type(fn.__self__))
        if isinstance(fn, JitFunction):
            return fn
        if not callable(fn):
            raise TypeError(f"For 'jit', the 'function' should be a function, a method or a Cell, "
                            f"but got {type(fn).__name__}.")
        return JitFunction(fn, level, options)

    return wrap if function is None else wrap(function)


def _is_cell(obj):
    return hasattr(obj, "construct") and hasattr(obj, "cells_and_names") and not isinstance(obj, type)


class JitFunction:
    """A function compiled per input signature; as a class attribute it binds like a method (`construct`)."""

    def __init__(self, fn, level=None, options=None):
        self.fn = fn
        self.level = level
        self.options = dict(options or {})
        self._caches = weakref.WeakKeyDictionary()  # owner -> GraphCache (methods)
        self._plain = None                            # GraphCache of a free function
        functools.update_wrapper(self, fn)

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return _BoundJit(self, obj)

    def __call__(self, *args, **kwargs):
        if _run_python():
            return self.fn(*args, **kwargs)
        cache = self._plain
        if cache is None:
            cache = self._plain = GraphCache(self.fn, _qualname(self.fn), self._level_for(None))
        return run_graph_or_eager(cache, args, kwargs, lambda: self.fn(*args, **kwargs))

    @property
    def graph_function(self):
        """The Python function a graph that calls this one inlines (rewritten like the caller's own code)."""
        return self.fn

    def cache_for(self, owner):
        try:
            cache = self._caches.get(owner)
        except TypeError:  # an owner that cannot be weakly referenced: cache by identity, forever
            cache = self.__dict__.setdefault("_by_id", {}).get(id(owner))
        if cache is None:
            name = f"{type(owner).__name__}.{self.fn.__name__}"
            cache = GraphCache(functools.partial(types.MethodType, self.fn), name, self._level_for(owner), owner,
                               cell_owner=_is_cell(owner))
            try:
                self._caches[owner] = cache
            except TypeError:
                self.__dict__["_by_id"][id(owner)] = cache
        return cache

    def _level_for(self, owner):
        return _LevelOf(self.level, owner)

    @property
    def compile_time(self):
        """Seconds the latest compile of the free function took (frontend + passes + codegen)."""
        return self._plain.compile_time if self._plain is not None else None

    @property
    def graph_cache(self):
        return self._plain


class _BoundJit:
    """`cell.construct` when construct is jitted: calls compile with the owner bound as `self`."""

    __slots__ = ("jit_fn", "owner")

    def __init__(self, jit_fn, owner):
        self.jit_fn, self.owner = jit_fn, owner

    @property
    def graph_function(self):
        return types.MethodType(self.jit_fn.fn, self.owner)

    def __call__(self, *args, **kwargs):
        if _run_python():
            return self.jit_fn.fn(self.owner, *args, **kwargs)
        cache = self.jit_fn.cache_for(self.owner)
        return run_graph_or_eager(cache, args, kwargs, lambda: self.jit_fn.fn(self.owner, *args, **kwargs))

    @property
    def graph_cache(self):
        return self.jit_fn.cache_for(self.owner)

    @property
    def compile_time(self):
        return self.graph_cache.compile_time

    @property
    def __wrapped__(self):
        return self.jit_fn.fn

    def __repr__(self):
        return f"<jit-compiled {type(self.owner).__name__}.{self.jit_fn.fn.__name__}>"


class _LevelOf:
    """The optimisation level of a call: explicit, else the owner's JitConfig, else the context, else default.
    Holds the owner weakly, like the cache that asks."""

    __slots__ = ("explicit", "owner")

    def __init__(self, explicit, owner):
        self.explicit = explicit
        try:
            self.owner = weakref.ref(owner) if owner is not None else None
        except TypeError:
            self.owner = lambda: owner

    def __call__(self):
        if self.explicit:
            return self.explicit
        owner = self.owner() if self.owner is not None else None
        if owner is not None:
            cfg = owner.__dict__.get("_jit_config_dict") or {}
            if cfg.get("jit_level"):
                return _check_level(cfg["jit_level"], "set_jit_config")
        return _context_level() or DEFAULT_LEVEL

    def fusion_requested(self):
        """Whether the user chose jit_level "O1" here (MindSpore 2.x: graph-kernel fusion on). openspore's own
        default level is also O1 (its cheap passes), so only an explicit choice switches fusion on."""
        if self.explicit:
            return self.explicit == "O1"
        owner = self.owner() if self.owner is not None else None
        if owner is not None:
            level = (owner.__dict__.get("_jit_config_dict") or {}).get("jit_level")
            if level:
                return level == "O1"
        return _context_level() == "O1"


def _run_python():
    """True when the Python function must run itself instead of its graph (see the module docstring)."""
    return current_tracer() is not None or context.jit_disabled()


def _qualname(fn):
    return getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or type(fn).__name__


# ---- GRAPH_MODE Cell.__call__ ---------------------------------------------------------------------
def make_cell_runner(slow_call):
    """The runner `nn.Cell` calls in GRAPH_MODE: compile the cell's construct per signature.

    `slow_call(cell, args, kwargs)` is the PyNative path for cells with hooks, a custom bprop or `to_float`;
    such a cell's graph is traced through it, so the casts and hooks land in the graph."""
    caches = weakref.WeakKeyDictionary()

    def python(cell, args, kwargs):
        if cell.__dict__["_plain_call"]:
            return cell.construct(*args, **kwargs)
        return slow_call(cell, args, kwargs)

    last = [(_dead_ref, None)]  # (weak reference to the last cell run, its cache): a repeated call's lookup

    def cache_of(cell):
        ref, cache = last[0]
        if ref() is cell:  # one tuple, replaced whole: threads never pair one cell with another's cache
            return cache
        cache = caches.get(cell)
        if cache is None:
            construct = type(cell).construct
            raw = construct.fn if isinstance(construct, JitFunction) else construct
            explicit = construct.level if isinstance(construct, JitFunction) else None
            fn = functools.partial(_traceable_construct, raw)
            cache = caches[cell] = GraphCache(fn, f"{type(cell).__name__}.construct",
                                              _LevelOf(explicit, cell), cell, cell_owner=True)
        last[0] = (weakref.ref(cell), cache)
        return cache

    def run(cell, args, kwargs):
        if _run_python():
            return python(cell, args, kwargs)
        return run_graph_or_eager(cache_of(cell), args, kwargs, lambda: python(cell, args, kwargs))

    def compile_only(cell, args, kwargs):
        """Compile the cell's graph for these inputs without running it (MindSpore's
        `_cell_graph_executor.compile`): graph-mode errors surface here."""
        cache_of(cell).lookup(args, kwargs)

    run.caches = caches
    run.compile = compile_only
    _CELL_CACHES.append(caches)
    return run


def _dead_ref():
    return None


_CELL_CACHES = []  # the caches of every GRAPH_MODE cell runner made (one, installed by `import openspore`)


def cell_cache(cell):
    """The GraphCache of `cell`'s GRAPH_MODE calls, or None when it has not run compiled."""
    for caches in _CELL_CACHES:
        cache = caches.get(cell)
        if cache is not None:
            return cache
    return None


def _lax_fallback(exc):
    """The user's code asked for a traced tensor's value (`x.asnumpy()`, `int(x)`...), which MindSpore's LAX syntax
    level (the default) runs in Python (its JIT Fallback); STRICT refuses it."""
    return getattr(exc, "runs_in_python", False) and context.get_context("jit_syntax_level") == context.LAX


def run_graph_or_eager(cache, args, kwargs, eager):
    """Run `cache`'s graph for the call, or `eager()` (the Python function, op by op) once tracing has failed
    because something needs a tensor's value while compiling, where MindSpore still runs the code:
    * an openspore function inside (a composite such as SegmentMax or MirrorPad whose work depends on its inputs'
      values: MindSpore compiles those as dynamic-shape kernels);
    * the user's own code (`x.asnumpy()`, numpy on tensors, `int(x)`, `bool(x)` through builtins, a `raise` under
      a tensor condition): MindSpore's JIT fallback runs that Python at run time (compiler/frontend/symbolic.py).
    At the STRICT syntax level the user's own code is refused; what MindSpore's compiler rejects still raises
    (`range(x)`, a shape made of tensors).

    One function for both steps (graph or eager, then the bare-Exception rule below): it runs on every call of
    every compiled Cell, where each Python frame is a visible share of a batch-1 inference call's overhead."""
    try:
        if cache.eager_reason is None:
            try:
                if autograd.ACTIVE:
                    return call_recording(cache, args, kwargs, eager)
                return cache(args, kwargs)
            except Exception as exc:  # noqa: BLE001 - only the marked ones are handled, the rest re-raised
                if not (getattr(exc, "needed_by_library", False) or _lax_fallback(exc)):
                    raise
                cache.eager_reason = (str(exc).splitlines() or [type(exc).__name__])[0]
                logger.info("%s runs op by op: %s", cache.name, cache.eager_reason)
        return eager()
    except Exception as exc:  # noqa: BLE001 - only a bare Exception is changed, the rest re-raised as they are
        if type(exc) is not Exception:
            raise
        # MindSpore 2.10's graph mode reports the user's `raise Exception(...)` as a RuntimeError with the same
        # message (`raise Exception` alone: an empty one); the other graph raise rules are in
        # compiler/frontend/graph_operators.py
        raise RuntimeError(str(exc)) from exc


def _traceable_construct(construct, cell):
    """What the frontend traces for a cell: its construct bound to it, or (hooks, custom bprop, to_float) a call
    of the cell, which the tracer runs through the slow path so the casts and hooks land in the graph."""
    if cell.__dict__["_plain_call"]:
        return types.MethodType(construct, cell)

    def call_cell(*args, **kwargs):
        return cell(*args, **kwargs)
    call_cell.__name__ = f"{type(cell).__name__}.construct"
    return call_cell


# ---- decorators accepted for compatibility ---------------------------------------------------------
def jit_class(cls):
    """`jit_class(cls)`: mark a user class whose instances may be used inside compiled functions."""
    if not isinstance(cls, type):
        raise TypeError(f"Decorator jit_class can only be used for class type, but got {cls}.")
    if any(base.__name__ == "Cell" and base.__module__.startswith("openspore.nn") for base in cls.__mro__):
        raise TypeError(f"Decorator jit_class is used for user-defined classes and cannot be used for nn.Cell: {cls}.")
    cls.__ms_class__ = True
    return cls


def lazy_inline(fn=None, attrs=None, policy=None):
    """`lazy_inline(fn=None, attrs=None, policy=None)`: decorates a Cell's `__init__`; graphs are always inlined
    here, so the cell is unchanged."""
    def wrap(f):
        if not callable(f):
            raise TypeError("For 'lazy_inline', the decorated object should be a function, "
                            f"but got {type(f).__name__}.")
        return f
    return wrap if fn is None else wrap(fn)


def no_inline(fn=None):
    """`no_inline(fn=None)`: accepted for compatibility (the function is compiled inline with its caller)."""
    def wrap(f):
        if not callable(f):
            raise TypeError(f"For 'no_inline', the decorated object should be a function, but got {type(f).__name__}.")
        return f
    return wrap if fn is None else wrap(fn)
