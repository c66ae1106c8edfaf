"""Second stage of the rewrite: syntax check, expressions, and `if`/`while` into calls of control_flow helpers.

    if x.sum() > 0:                    def _os_then_1(y):
        y = y * 2                          y = y * 2
    else:                      →           return (y,)
        y = y - 1                      def _os_else_1(y):
                                           y = y - 1
                                           return (y,)
                                       (y,) = _os_cf.cond_if(x.sum() > 0, _os_then_1, _os_else_1,
                                                             _os_cf.fetch(locals(), ('y',)), ('y',))

Branch functions take the variables the branches assign and read (or pass through), and return those read
after the `if`; a `while` becomes `while_loop(cond_fn, body_fn, values, names)` over the variables the body
assigns and the loop or later code reads. `a and b`, `a or b`, `not a` and `a if c else b` become helper
calls (logical ops on symbolic tensors), and every call's callee goes through `_os_cf.call` so that user
functions called from graph code are rewritten too. Generated code keeps the line of the statement it
replaces, so errors and node locations point at the user's lines.
"""
import ast

from .ast_jumps import at, cf_call, has_return, is_raw_if
from .ast_names import assigned, closure_loads, exposed, loads, walk_scope
from .graph_operators import GRAPH_RAISE_TYPES
from .errors import GraphSyntaxTypeError, GraphUnboundLocalError, located, syntax_error

_UNSUPPORTED_STMT = {ast.Try: "Try", ast.AsyncWith: "AsyncWith", ast.AsyncFor: "AsyncFor",
                     ast.AsyncFunctionDef: "AsyncFunctionDef", ast.Global: "Global", ast.Nonlocal: "Nonlocal",
                     ast.Match: "Match", ast.Delete: "Delete"}
if hasattr(ast, "TryStar"):
    _UNSUPPORTED_STMT[ast.TryStar] = "TryStar"
_UNSUPPORTED_EXPR = {ast.Yield: "Yield", ast.YieldFrom: "YieldFrom", ast.Await: "Await", ast.NamedExpr: "NamedExpr",
                     ast.Set: "Set", ast.SetComp: "SetComp"}
_REASONS = {
    "Try": "Exceptions can not be caught inside a graph; check conditions with `if` instead",
    "Global": "Graph code may read module globals but not assign them",
    "Nonlocal": "Graph code may read enclosing variables but not assign them",
    "Yield": "Generators do not run inside a graph",
    "YieldFrom": "Generators do not run inside a graph",
    "Delete": "Names and attributes can not be deleted inside a graph; assign None instead",
    "NamedExpr": "Assign the value in a statement of its own",
    "Set": "Use a tuple or a list",
    "SetComp": "Use a list comprehension",
}
# Callees left alone: builtins whose identity matters (`super()` needs the direct call) or that never hold
# graph control flow.
# (`print`, `type`, `round`, `map`, `filter` and `enumerate` do go through `_os_cf.call`: graph_builtins.py.)
_PLAIN_CALLEES = {"super", "len", "range", "isinstance", "issubclass", "int", "float", "bool", "str",
                  "tuple", "list", "dict", "set", "zip", "min", "max", "abs", "getattr", "hasattr",
                  "setattr", "iter", "next", "reversed", "sorted", "any", "all", "id", "repr",
                  "callable", "locals", "divmod", "sum", "slice", "hash", "format", "vars"}


# MindSpore's graph compiler refuses list/tuple displays nested deeper than this (a literal like
# `[1, [2, [3, [4, [5, [6, [7]]]]]]]`); sequences built from variables are not counted.
MAX_DISPLAY_NESTING = 6


def _display_depth(node):
    if not isinstance(node, (ast.List, ast.Tuple)) or not isinstance(node.ctx, ast.Load):
        return 0
    return 1 + max((_display_depth(e) for e in node.elts), default=0)


def check_syntax(fdef, filename):
    """Raise GraphSyntaxError for the first construct outside the graph subset."""
    for node in ast.walk(fdef):
        if isinstance(node, (ast.List, ast.Tuple)) and _display_depth(node) > MAX_DISPLAY_NESTING:
            raise RuntimeError(located(f"List, tuple and dict nesting is not allowed more than "
                                       f"{MAX_DISPLAY_NESTING} levels.", f"{filename}:{node.lineno}"))
        kind = _UNSUPPORTED_STMT.get(type(node))
        if kind is not None:
            raise syntax_error(filename, node.lineno, f"statement '{kind}'", _REASONS.get(kind, ""))
        if isinstance(node, (ast.For, ast.While)) and node.orelse:
            loop = "for" if isinstance(node, ast.For) else "while"
            raise syntax_error(filename, node.lineno, f"'{loop}...else...' statement",
                               f"The '{loop}...else...' statement is not supported now (MindSpore's wording); "
                               "put the `else` part after the loop, guarded by a flag the loop sets")
        kind = _UNSUPPORTED_EXPR.get(type(node))
        if kind is not None:
            raise syntax_error(filename, node.lineno, f"expression '{kind}'", _REASONS.get(kind, ""))
        if isinstance(node, (ast.ListComp, ast.GeneratorExp, ast.DictComp)) and len(node.generators) > 1:
            what = "DictComp" if isinstance(node, ast.DictComp) else "ListComp"
            raise GraphSyntaxTypeError(located(
                f"The 'generators' supports 1 'comprehension' in {what}/GeneratorExp, but got "
                f"{len(node.generators)} comprehensions.", f"{filename}:{node.lineno}"))
        if isinstance(node, (ast.If, ast.While)):
            for s in node.body + node.orelse:
                for n in walk_scope(s):
                    if isinstance(n, ast.Delete) and any(isinstance(t, ast.Name) for t in n.targets):
                        raise syntax_error(filename, n.lineno, "statement 'Delete' of a local variable",
                                           "Inside `if`/`while` a variable can not be deleted; assign None instead")


def check_while_locals(fdef, filename):
    """A variable first assigned inside a `while` body and read after the loop: MindSpore's parser rejects it
    (UnboundLocalError), even where the loop would run."""
    params = {a.arg for a in fdef.args.posonlyargs + fdef.args.args + fdef.args.kwonlyargs}
    params |= {a.arg for a in (fdef.args.vararg, fdef.args.kwarg) if a is not None}
    stores = [(n.lineno, n.id) for n in walk_scope(fdef) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]
    loads = [(n.lineno, n.id) for n in walk_scope(fdef) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]
    for loop in (n for n in walk_scope(fdef) if isinstance(n, ast.While)):
        before = params | {name for line, name in stores if line < loop.lineno}
        inside = {n.id for s in loop.body for n in walk_scope(s)
                  if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)} - before
        for line, name in sorted(loads):
            if line > loop.end_lineno and name in inside:
                raise GraphUnboundLocalError(located(
                    f"The local variable '{name}' defined in the 'while' loop body cannot be used outside of the "
                    f"loop body. Please define variable '{name}' before 'while'.", f"{filename}:{loop.lineno}"))


def _gen_lambda(body, node):
    lam = ast.Lambda(args=ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[],
                                        kwarg=None, defaults=[]), body=body)
    lam._os_gen = True
    return at(lam, node)


def _has_walrus(nodes):
    return any(isinstance(n, ast.NamedExpr) for node in nodes for n in ast.walk(node))


class ExpressionRewriter(ast.NodeTransformer):
    """`and`/`or`/`not`/`x if c else y` → helpers; callees (and function-valued arguments) → `_os_cf.call`."""

    def visit_BoolOp(self, node):
        self.generic_visit(node)
        if _has_walrus(node.values[1:]):
            return node
        helper = "and_" if isinstance(node.op, ast.And) else "or_"
        if not getattr(node, "_os_gen", False):  # written by the user: MindSpore's branch-join rules
            helper = "user_" + helper
        return cf_call(helper, [node.values[0]] + [_gen_lambda(v, v) for v in node.values[1:]], node)

    def visit_Raise(self, node):
        # MindSpore's graph `raise` knows a fixed set of exception types, by name; any other class-like name
        # (an unknown one included) becomes its RuntimeError, built without evaluating the arguments
        exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
        if isinstance(exc, ast.Name) and exc.id[:1].isupper() and exc.id not in GRAPH_RAISE_TYPES:
            node.exc = cf_call("unsupported_exception", [at(ast.Constant(value=exc.id), node)], node)
            node.cause = None
            return node
        self.generic_visit(node)
        return node

    def visit_Compare(self, node):
        self.generic_visit(node)
        helpers = {ast.In: "member_in", ast.NotIn: "member_not_in", ast.Is: "is_", ast.IsNot: "is_not"}
        if len(node.ops) == 1 and type(node.ops[0]) in helpers:
            return cf_call(helpers[type(node.ops[0])], [node.left, node.comparators[0]], node)
        return node

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            return cf_call("not_", [node.operand], node)
        return node

    # `&`, `|`, `^`, `<<`, `>>` between Python scalars follow MindSpore's int64 scalar rules in graph code
    _BIT_SYMBOLS = {ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^", ast.LShift: "<<", ast.RShift: ">>"}

    def visit_BinOp(self, node):
        self.generic_visit(node)
        symbol = self._BIT_SYMBOLS.get(type(node.op))
        if symbol is None:
            return node
        return cf_call("bit_op", [at(ast.Constant(value=symbol), node), node.left, node.right], node)

    def visit_AugAssign(self, node):
        self.generic_visit(node)
        symbol = self._BIT_SYMBOLS.get(type(node.op))
        if symbol is None or not isinstance(node.target, ast.Name):
            return node
        current = at(ast.Name(id=node.target.id, ctx=ast.Load()), node)
        call = cf_call("bit_op", [at(ast.Constant(value=symbol), node), current, node.value,
                                  at(ast.Constant(value=True), node)], node)
        return at(ast.Assign(targets=[node.target], value=call), node)

    def visit_GeneratorExp(self, node):
        # graph code builds the sequence at once: MindSpore's generator expressions give lists
        self.generic_visit(node)
        return at(ast.ListComp(elt=node.elt, generators=node.generators), node)

    def visit_With(self, node):
        # `with obj as v: body` → `tmp = obj; v = _os_cf.with_enter(tmp); body; _os_cf.with_exit(tmp)` (objects of
        # jit_class classes and Cells only, as MindSpore allows)
        callees = [item.context_expr.func.id if isinstance(item.context_expr, ast.Call)
                   and isinstance(item.context_expr.func, ast.Name) else None for item in node.items]
        self.generic_visit(node)
        enters, exits = [], []
        for k, item in enumerate(node.items):
            tmp = f"_os_with_{node.lineno}_{node.col_offset}_{k}"
            value = item.context_expr
            if callees[k] is not None:
                # the callee goes first so a builtin's result (`open(...)`) is refused before the call runs, as
                # MindSpore refuses it while compiling
                value = cf_call("with_item", [at(ast.Name(id=callees[k], ctx=ast.Load()), node),
                                              _gen_lambda(value, node)], node)
            enters.append(at(ast.Assign(targets=[ast.Name(id=tmp, ctx=ast.Store())], value=value), node))
            entered = cf_call("with_enter", [at(ast.Name(id=tmp, ctx=ast.Load()), node)], node)
            enters.append(at(ast.Assign(targets=[item.optional_vars], value=entered) if item.optional_vars is not None
                             else ast.Expr(value=entered), node))
            exits.insert(0, at(ast.Expr(value=cf_call("with_exit", [at(ast.Name(id=tmp, ctx=ast.Load()), node)],
                                                      node)), node))
        return enters + node.body + exits

    def visit_IfExp(self, node):
        self.generic_visit(node)
        if _has_walrus([node.body, node.orelse]):
            return node
        return cf_call("if_exp", [node.test, _gen_lambda(node.body, node.body), _gen_lambda(node.orelse, node.orelse)],
                       node)

    def visit_Subscript(self, node):
        # `layers[i]` with a computed index may pick a function by a tensor (MindSpore's switch_layer); constant
        # indices and slices (the common case) stay plain subscripts, and so do stores and deletions
        self.generic_visit(node)
        if not isinstance(node.ctx, ast.Load) or isinstance(node.slice, (ast.Constant, ast.Slice, ast.Tuple)):
            return node
        return cf_call("getitem", [node.value, node.slice], node)

    def visit_Call(self, node):
        self.generic_visit(node)
        func = node.func
        if isinstance(func, ast.Name) and (func.id in _PLAIN_CALLEES or func.id.startswith("_os_")):
            return node
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "_os_cf":
            return node
        if isinstance(func, ast.Attribute) and not _is_private(func.attr):
            # `obj.name(...)` → `_os_cf.method(obj, "name")(...)`: graph dicts have methods of their own
            node.func = cf_call("method", [func.value, at(ast.Constant(value=func.attr), func)], func)
        else:
            node.func = cf_call("callee", [func], func)
        node.args = [self._arg(a) for a in node.args]
        for kw in node.keywords:
            kw.value = self._arg(kw.value)
        return node

    @staticmethod
    def _arg(a):
        # a function passed by name (`ms.grad(forward)`, `value_and_grad(self.net_fn)`) is rewritten as well
        return cf_call("call", [a], a) if isinstance(a, (ast.Name, ast.Attribute)) else a


def _is_private(attr):
    """A `__name` attribute, which Python mangles with the class name: it stays an attribute expression."""
    return attr.startswith("__") and not attr.endswith("__")


def _names_tuple(names, node, ctx=None, mangle=None):
    if ctx is not None:
        elts = [at(ast.Name(id=n, ctx=ctx()), node) for n in names]
    else:
        elts = [at(ast.Constant(value=mangle(n) if mangle else n), node) for n in names]
    return at(ast.Tuple(elts=elts, ctx=ctx() if ctx else ast.Load()), node)


def _fetch(names, node, mangle):
    if not names:
        return at(ast.Tuple(elts=[], ctx=ast.Load()), node)
    scope = at(ast.Call(func=at(ast.Name(id="locals", ctx=ast.Load()), node),
                                       args=[], keywords=[]), node)
    return cf_call("fetch", [scope, _names_tuple(names, node, mangle=mangle)], node)


def _def(name, params, body, node):
    args = ast.arguments(posonlyargs=[], args=[ast.arg(arg=p) for p in params], vararg=None, kwonlyargs=[],
                         kw_defaults=[], kwarg=None, defaults=[])
    return at(ast.FunctionDef(name=name, args=args, body=body, decorator_list=[], returns=None,
                                             type_comment=None), node)


def _ret_tuple(names, node):
    return at(ast.Return(value=_names_tuple(names, node, ast.Load)), node)


class ControlLowering:
    """`if` / `while` statements of one function scope (and its nested functions) → helper calls."""

    def __init__(self, counter, mangle):
        self.counter = counter
        self.mangle = mangle

    def scope(self, fdef):
        fdef.body = self.block(fdef.body, set(), closure_loads(fdef.body))

    def block(self, stmts, live_out, closure):
        after = [None] * len(stmts)
        acc = set(live_out)
        for i in range(len(stmts) - 1, -1, -1):
            after[i] = acc | closure
            acc = acc | loads(stmts[i])
        out = []
        for s, live in zip(stmts, after):
            if isinstance(s, ast.If) and not is_raw_if(s):
                out.extend(self.lower_if(s, live, closure))
            elif isinstance(s, ast.While):
                out.extend(self.lower_while(s, live, closure))
            elif isinstance(s, ast.For):
                s.iter = cf_call("unrolled_for", [s.iter], s.iter)  # counts call depth as MindSpore unrolls
                s.body = self.block(s.body, live | loads(s), closure)
                s.orelse = self.block(s.orelse, live, closure)
                out.append(s)
            elif isinstance(s, ast.FunctionDef):
                self.scope(s)
                out.append(s)
            else:
                out.append(s)
        return out

    def _undefine(self, names, node):
        """`if _os_cf.is_undefined(n): del n` for each output: a name the taken path left unbound stays so."""
        out = []
        for n in names:
            test = cf_call("is_undefined", [at(ast.Name(id=n, ctx=ast.Load()), node)], node)
            delete = at(ast.Delete(targets=[at(ast.Name(id=n, ctx=ast.Del()), node)]),
                                       node)
            out.append(at(ast.If(test=test, body=[delete], orelse=[]), node))
        return out

    def _bind(self, outputs, call, node):
        if not outputs:
            return [at(ast.Expr(value=call), node)]
        target = _names_tuple(outputs, node, ast.Store)
        return [at(ast.Assign(targets=[target], value=call), node)] + self._undefine(outputs, node)

    def lower_if(self, s, live, closure):
        k = next(self.counter)
        then_name, else_name = f"_os_then_{k}", f"_os_else_{k}"
        names = assigned(s.body) | assigned(s.orelse)
        reads = exposed(s.body) | exposed(s.orelse)
        if has_return(s):
            params = sorted(names & reads)
            then_body = self.block(s.body, set(), closure)
            else_body = self.block(s.orelse, set(), closure)
            call = cf_call("cond_if", [s.test, ast.Name(id=then_name, ctx=ast.Load()),
                                       ast.Name(id=else_name, ctx=ast.Load()), _fetch(params, s, self.mangle),
                                       ast.Tuple(elts=[], ctx=ast.Load()), ast.Constant(value=True)], s)
            return [_def(then_name, params, then_body, s), _def(else_name, params, else_body, s),
                    at(ast.Return(value=call), s)]
        outputs = sorted(names & live)
        params = sorted(names & (reads | set(outputs)))
        then_body = self.block(s.body, set(outputs), closure) + [_ret_tuple(outputs, s)]
        else_body = self.block(s.orelse, set(outputs), closure) + [_ret_tuple(outputs, s)]
        call = cf_call("cond_if", [s.test, ast.Name(id=then_name, ctx=ast.Load()),
                                   ast.Name(id=else_name, ctx=ast.Load()), _fetch(params, s, self.mangle),
                                   _names_tuple(outputs, s)], s)
        return [_def(then_name, params, then_body, s), _def(else_name, params, else_body, s)] + \
            self._bind(outputs, call, s)

    def lower_while(self, s, live, closure):
        k = next(self.counter)
        cond_name, body_name = f"_os_cond_{k}", f"_os_body_{k}"
        carried = sorted(assigned(s.body) & (exposed(s.body) | loads(s.test) | live))
        body = self.block(s.body, set(carried), closure) + [_ret_tuple(carried, s)]
        cond = [at(ast.Return(value=s.test), s)]
        call = cf_call("while_loop", [ast.Name(id=cond_name, ctx=ast.Load()), ast.Name(id=body_name, ctx=ast.Load()),
                                      _fetch(carried, s, self.mangle), _names_tuple(carried, s)], s)
        return [_def(cond_name, carried, cond, s), _def(body_name, carried, body, s)] + self._bind(carried, call, s)
