"""`convert(fn)`: the graph-mode version of a user function, with control flow rewritten (ast_jumps.py,
ast_rewrite.py) so that `if`/`while` on tensors become graph control flow.

The source is read from the function's file, parsed, rewritten and compiled with the original file name and
line numbers. The new code object is cached per original code object; each function object gets a new
function over the cached code with the original globals, defaults and closure cells (plus a cell holding the
control-flow helpers), so closures and globals behave as before. Methods are compiled inside a class of the
same name so that private names (`self.__x`) are mangled as in the original.

Only user code is rewritten: functions defined in openspore itself, the standard library or installed
packages, lambdas and functions without readable source run unchanged.
"""
import ast
import functools
import inspect
import itertools
import linecache
import os
import sysconfig
import textwrap
import types

from ...common.errors import _PACKAGE_DIR
from . import control_flow
from .ast_jumps import JumpLowering, at
from .ast_names import walk_scope
from .ast_rewrite import ControlLowering, ExpressionRewriter, check_syntax, check_while_locals

_cache = {}          # original code -> rewritten code, or None (run the original)
_generated = set()   # rewritten code objects (never rewritten again)
_sources = {}        # rewritten code -> its source text (for `rewritten_source`)
_CF_CELL = types.CellType(control_flow)
_SYSTEM_DIRS = tuple(sorted({os.path.abspath(p) + os.sep for key, p in sysconfig.get_paths().items()
                             if key in ("stdlib", "platstdlib", "purelib", "platlib")}))


def is_user_code(code):
    filename = code.co_filename
    if code.co_name == "<lambda>":
        return False
    if filename.startswith("<"):  # notebooks keep cell sources in linecache; exec'd strings have none
        return not filename.startswith("<frozen") and bool(linecache.getlines(filename))
    path = os.path.abspath(filename)
    return not path.startswith(_PACKAGE_DIR + os.sep) and not path.startswith(_SYSTEM_DIRS)


def convert(fn):
    """The rewritten version of a function, bound method or functools.partial (`fn` itself when there is
    nothing to rewrite)."""
    if type(fn) is functools.partial:  # the function and any functions bound as arguments
        func, args = convert(fn.func), tuple(convert(a) if callable(a) else a for a in fn.args)
        if func is fn.func and all(a is b for a, b in zip(args, fn.args)):
            return fn
        return functools.partial(func, *args, **fn.keywords)
    if type(fn) is types.MethodType:
        func = convert(fn.__func__)
        return fn if func is fn.__func__ else types.MethodType(func, fn.__self__)
    if type(fn) is not types.FunctionType:
        return fn
    code = fn.__code__
    if code in _generated:
        return fn
    new_code = _cache.get(code, _cache)
    if new_code is _cache:
        new_code = _cache[code] = _rewrite(fn) if is_user_code(code) else None
    if new_code is None:
        return fn
    return _instantiate(fn, new_code)


def rewritten_source(fn):
    """The rewritten source of a function (None when it runs unchanged): for debugging and tests."""
    new = convert(fn)
    new = getattr(new, "__func__", new)
    return _sources.get(new.__code__)


def _instantiate(fn, new_code):
    cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    closure = tuple(cells[n] if n in cells else _CF_CELL for n in new_code.co_freevars)
    new = types.FunctionType(new_code, fn.__globals__, fn.__name__, fn.__defaults__, closure or None)
    new.__kwdefaults__ = fn.__kwdefaults__
    new.__qualname__ = fn.__qualname__
    new.__module__ = fn.__module__
    new.__doc__ = fn.__doc__
    new.__dict__.update(fn.__dict__)
    new.__wrapped__ = fn
    return new


def _source_def(code):
    """The function's FunctionDef, with the file's line numbers, or None when the source is unavailable."""
    lines = linecache.getlines(code.co_filename)
    if not lines or code.co_firstlineno > len(lines):
        return None
    try:
        block = inspect.getblock(lines[code.co_firstlineno - 1:])
    except (IndentationError, SyntaxError, IndexError):
        return None
    source = textwrap.dedent("".join(block))
    offset = code.co_firstlineno - 1
    try:
        tree = ast.parse(source)
    except SyntaxError:  # a continuation line less indented than the def: parse it inside a block
        try:
            tree = ast.parse("if 1:\n" + "".join(block)).body[0]
            offset -= 1
        except SyntaxError:
            return None
    if not tree.body or not isinstance(tree.body[0], (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    fdef = tree.body[0]
    if fdef.name != code.co_name:
        return None
    ast.increment_lineno(fdef, offset)
    fdef.decorator_list = []
    return fdef


def _function_defs(fdef):
    """fdef and the functions nested in it (not in nested classes), outer ones first."""
    out, todo = [], [fdef]
    while todo:
        node = todo.pop(0)
        if isinstance(node, ast.FunctionDef):
            out.append(node)
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, ast.ClassDef):
                todo.append(child)
    return out


def _owner_class(fn):
    parts = fn.__qualname__.split(".")
    return parts[-2] if len(parts) >= 2 and parts[-2] != "<locals>" else None


def _rewrite(fn):
    code = fn.__code__
    fdef = _source_def(code)
    if fdef is None:
        return None
    filename = code.co_filename
    check_syntax(fdef, filename)
    check_while_locals(fdef, filename)
    read_first = _globals_read_first(fdef, fn.__globals__)
    counter = itertools.count(1)
    for d in reversed(_function_defs(fdef)):  # inner functions first: outer rewrites may copy them
        JumpLowering(counter).run(d)
    ExpressionRewriter().visit(fdef)
    _prepend_global_reads(fdef, read_first)
    owner = _owner_class(fn)

    def mangle(name):
        if owner and name.startswith("__") and not name.endswith("__"):
            return f"_{owner.lstrip('_')}{name}"
        return name
    ControlLowering(counter, mangle).scope(fdef)
    holder = fdef
    if owner or _names_itself(fdef):
        # a class body around the def: Python mangles `__name`s by it as by the owner (leading underscores do not
        # count), and a name of its own keeps the owner's name (`Net.helper(x)` in Net's construct) and the
        # function's (a recursion) globals, not factory locals, which would make the rewrite give up
        holder = ast.ClassDef(name="___" + owner if owner else "_os_holder", bases=[], keywords=[], body=[fdef],
                              decorator_list=[])
    params = sorted(set(code.co_freevars) | {"_os_cf"})
    factory = ast.FunctionDef(
        name="_os_factory", args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=p) for p in params], vararg=None,
                                               kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
        body=[holder, ast.Return(value=None)], decorator_list=[], returns=None, type_comment=None)
    module = ast.Module(body=[at(factory, fdef)], type_ignores=[])
    if holder is not fdef:
        at(holder, fdef)
    ast.fix_missing_locations(module)
    compiled = compile(module, filename, "exec", dont_inherit=True)
    new_code = _find_code(compiled, code.co_name, 3 if holder is not fdef else 2)
    if new_code is None:
        return None
    unknown = set(new_code.co_freevars) - set(code.co_freevars) - {"_os_cf"}
    if unknown:  # cannot happen for well-formed sources; run the original rather than guess
        return None
    _generated.add(new_code)
    _sources[new_code] = ast.unparse(fdef)
    return new_code


def _globals_read_first(fdef, module_globals):
    """The module globals that the function reads before assigning them (`z += i` on a global `z`): in a graph
    they start from the global's value, as MindSpore's parser resolves them (Python would raise
    UnboundLocalError). Read from the source as written (every node has its line)."""
    params = {a.arg for a in fdef.args.posonlyargs + fdef.args.args + fdef.args.kwonlyargs}
    params |= {a.arg for a in (fdef.args.vararg, fdef.args.kwarg) if a is not None}
    first = {}  # name -> (line, 0 for a read / 1 for a write): the value of a statement is read before its targets
    for stmt in fdef.body:
        for node in walk_scope(stmt):
            if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
                event = (node.target.id, (node.lineno, 0))
            elif isinstance(node, ast.Name):
                event = (node.id, (node.lineno, 0 if isinstance(node.ctx, ast.Load) else 1))
            else:
                continue
            if event[0] not in first or event[1] < first[event[0]]:
                first[event[0]] = event[1]
    stored = {n.id for stmt in fdef.body for n in walk_scope(stmt)
              if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    return sorted(name for name in stored - params if first[name][1] == 0 and name in module_globals)


def _prepend_global_reads(fdef, names):
    """`z = globals()['z']` at the top of the function for each name (after the call rewrite: `globals` must be
    called directly, in the function's own module)."""
    prologue = [at(ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())],
                              value=ast.Subscript(value=ast.Call(func=ast.Name(id="globals", ctx=ast.Load()),
                                                                 args=[], keywords=[]),
                                                  slice=ast.Constant(value=name), ctx=ast.Load())), fdef.body[0])
                for name in names]
    fdef.body[:0] = prologue


def _names_itself(fdef):
    """Does the function's body read its own name (a recursive call)?"""
    return any(isinstance(n, ast.Name) and n.id == fdef.name and isinstance(n.ctx, ast.Load)
               for stmt in fdef.body for n in ast.walk(stmt))


def _find_code(code, name, depth):
    """The code object `name` at `depth` levels of nesting below the module (factory, [class,] function)."""
    level = [code]
    for _ in range(depth - 1):
        level = [c for parent in level for c in parent.co_consts if isinstance(c, types.CodeType)]
    for c in level:
        for k in c.co_consts:
            if isinstance(k, types.CodeType) and k.co_name == name:
                return k
    return None
