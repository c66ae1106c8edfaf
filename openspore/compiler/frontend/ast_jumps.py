"""First stage of the rewrite: `break` / `continue` / `return` inside loops become flags, then early returns
become if/else, so that every `if` and `while` can turn into a call over branch / body functions.

    for i in range(n):                 _os_brk1 = False
        if x.sum() > i:                for i in range(n):
            break              →           if _os_cf.is_true(_os_brk1): break   # Python break when known
        x = x * 2                          if not _os_brk1:
                                               if x.sum() > i: _os_brk1 = True
                                               if _os_cf.live(_os_brk1): x = x * 2

A `while` gets `not _os_brk1 and <test>` as its condition. A `return v` in a loop sets `_os_rv = v`,
`_os_rf = True` and breaks; after the loop `if _os_rf: return _os_rv`. Early returns are then removed by moving
the statements after an `if` that returns into the branches that do not (`if c: return a` + rest →
`if c: return a else: rest`); every path of the function ends in a `return`.
"""
import ast
import copy

from .ast_names import walk_scope

RV, RF = "_os_rv", "_os_rf"


def at(new, old):
    """Give a generated node the position of `old`'s first line (a generated call spanning a whole `if`
    statement would otherwise report that statement's last line)."""
    if old is not None and hasattr(old, "lineno"):
        new.lineno = new.end_lineno = old.lineno
        new.col_offset = new.end_col_offset = old.col_offset
    return new


def cf_attr(name, node=None):
    out = ast.Attribute(value=ast.Name(id="_os_cf", ctx=ast.Load()), attr=name, ctx=ast.Load())
    return at(out, node)


def cf_call(name, args, node):
    return at(ast.Call(func=cf_attr(name, node), args=list(args), keywords=[]), node)


def assign(name, value, node):
    value = value if isinstance(value, ast.AST) else ast.Constant(value=value)
    return at(ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())], value=value), node)


def name(n, node):
    return at(ast.Name(id=n, ctx=ast.Load()), node)


def is_raw_if(node):
    """Ifs the rewrite itself emits for Python-level checks (never turned into graph control flow)."""
    test = node.test
    return (isinstance(test, ast.Call) and isinstance(test.func, ast.Attribute)
            and isinstance(test.func.value, ast.Name) and test.func.value.id == "_os_cf"
            and test.func.attr in ("is_true", "is_undefined"))


def _loop_jumps(stmts):
    """The jump kinds ('break', 'continue', 'return') of a loop body that belong to this loop."""
    found = set()
    todo = list(stmts)
    while todo:
        s = todo.pop()
        if isinstance(s, ast.Break):
            found.add("break")
        elif isinstance(s, ast.Continue):
            found.add("continue")
        elif isinstance(s, ast.Return):
            found.add("return")
        elif isinstance(s, ast.If):
            todo.extend(s.body + s.orelse)
    return found


def has_return(stmt):
    return any(isinstance(n, ast.Return) for n in walk_scope(stmt))


class JumpLowering:
    """Rewrites one function body (not the functions nested in it)."""

    def __init__(self, counter):
        self.counter = counter
        self.uses_return_flags = False

    def run(self, fdef):
        body = self.block(fdef.body)
        first = fdef.body[0] if fdef.body else fdef
        if self.uses_return_flags:
            body = [assign(RF, False, first), assign(RV, cf_attr("NORET", first), first)] + body
        if not body or not isinstance(body[-1], ast.Return):
            body.append(at(ast.Return(value=None), body[-1] if body else fdef))
        fdef.body = restructure_returns(body)

    def block(self, stmts):
        out = []
        for s in stmts:
            if isinstance(s, (ast.For, ast.While)):
                s.body = self.block(s.body)
                s.orelse = self.block(s.orelse)
                out.extend(self.loop(s))
            elif isinstance(s, ast.If):
                s.body = self.block(s.body)
                s.orelse = self.block(s.orelse)
                out.append(s)
            else:
                out.append(s)
        return out

    def loop(self, loop):
        jumps = _loop_jumps(loop.body)
        orelse, loop.orelse = loop.orelse, []
        if not jumps:
            return [loop] + orelse  # no break: the else clause always runs
        k = next(self.counter)
        brk = f"_os_brk{k}" if jumps & {"break", "return"} else None
        cnt = f"_os_cnt{k}" if "continue" in jumps else None
        flags = [f for f in (brk, cnt) if f]
        body = _guard(self._replace(loop.body, brk, cnt), flags, loop)
        if cnt:
            body = [assign(cnt, False, loop)] + body
        if isinstance(loop, ast.While):
            if brk:
                loop.test = at(ast.BoolOp(op=ast.And(), values=[
                    at(ast.UnaryOp(op=ast.Not(), operand=name(brk, loop)), loop), loop.test]), loop)
                loop.test._os_gen = True  # our own flag test: the lenient `and_`, not the user-code rules
        elif brk:
            stop = at(ast.If(test=cf_call("is_true", [name(brk, loop)], loop),
                                            body=[at(ast.Break(), loop)], orelse=[]), loop)
            run = at(ast.If(test=at(ast.UnaryOp(op=ast.Not(), operand=name(brk, loop)),
                                                                  loop), body=body, orelse=[]), loop)
            body = [stop, run]
        loop.body = body
        post = []
        if orelse and brk:
            post.append(at(ast.If(test=at(
                ast.UnaryOp(op=ast.Not(), operand=name(brk, loop)), loop), body=orelse, orelse=[]), loop))
        elif orelse:
            post.extend(orelse)
        if "return" in jumps:
            self.uses_return_flags = True
            post.append(at(ast.If(test=name(RF, loop), body=[
                at(ast.Return(value=name(RV, loop)), loop)], orelse=[]), loop))
        return [assign(f, False, loop) for f in flags] + [loop] + post

    def _replace(self, stmts, brk, cnt):
        out = []
        for s in stmts:
            if isinstance(s, ast.Break):
                out.append(assign(brk, True, s))
            elif isinstance(s, ast.Continue):
                out.append(assign(cnt, True, s))
            elif isinstance(s, ast.Return):
                value = s.value if s.value is not None else at(ast.Constant(value=None), s)
                out += [assign(RV, value, s), assign(RF, True, s), assign(brk, True, s)]
            elif isinstance(s, ast.If):
                s.body = self._replace(s.body, brk, cnt)
                s.orelse = self._replace(s.orelse, brk, cnt)
                out.append(s)
            else:
                out.append(s)
        return out


def _sets_flag(stmt, flags):
    return any(isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id in flags for n in walk_scope(stmt))


def _guard(stmts, flags, loop):
    """Run what follows a possible flag set only while no flag is set."""
    out = []
    for i, s in enumerate(stmts):
        if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name) \
                and s.targets[0].id in flags:
            out.append(s)
            return out  # the rest of this block is unreachable
        if isinstance(s, ast.If) and _sets_flag(s, flags):
            s.body = _guard(s.body, flags, loop)
            s.orelse = _guard(s.orelse, flags, loop)
            out.append(s)
            rest = stmts[i + 1:]
            if rest:
                test = cf_call("live", [name(f, s) for f in flags], s)
                out.append(at(ast.If(test=test, body=_guard(rest, flags, loop), orelse=[]), rest[0]))
            return out
        out.append(s)
    return out


def restructure_returns(stmts):
    """Move what follows an `if` containing a `return` into its branches; drop code after a `return`."""
    for i, s in enumerate(stmts):
        if isinstance(s, ast.Return):
            return stmts[:i + 1]
        if isinstance(s, ast.If) and not is_raw_if(s) and has_return(s):
            rest = stmts[i + 1:]
            s.body = restructure_returns(s.body + copy.deepcopy(rest))
            s.orelse = restructure_returns(s.orelse + rest)
            return stmts[:i + 1]
    return stmts
