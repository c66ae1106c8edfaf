"""Name analysis for the control-flow rewrite: which names a block binds, reads, or reads before binding.

All three are conservative in the safe direction: `loads` over-approximates what is read later (so a value
that might be needed is passed out of a branch), `exposed` over-approximates what a block reads before it
binds it (so such a name is passed in), and `assigned` lists every name a block may bind in its own scope.
"""
import ast

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def walk_scope(node):
    """ast.walk that yields nested functions, lambdas and classes but does not enter them."""
    todo = [node]
    while todo:
        n = todo.pop()
        yield n
        if n is not node and isinstance(n, _SCOPES):
            continue
        todo.extend(ast.iter_child_nodes(n))


def walk_block(stmts):
    for s in stmts:
        yield from walk_scope(s)


class _Assigned(ast.NodeVisitor):
    def __init__(self):
        self.names = set()

    def visit_Name(self, node):
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            self.names.add(node.id)

    def visit_Subscript(self, node):
        # `x[i] = v` rebinds x when x is a tensor (setitem returns a new value under graph capture)
        if isinstance(node.ctx, (ast.Store, ast.Del)) and isinstance(node.value, ast.Name):
            self.names.add(node.value.id)
        self.generic_visit(node)

    def _scope(self, node):
        self.names.add(node.name)
        for d in node.decorator_list:
            self.visit(d)
        if not isinstance(node, ast.ClassDef):
            for d in node.args.defaults + [k for k in node.args.kw_defaults if k is not None]:
                self.visit(d)

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _scope

    def visit_Lambda(self, node):
        for d in node.args.defaults:
            self.visit(d)

    def visit_ListComp(self, node):
        self.visit(node.generators[0].iter)

    visit_SetComp = visit_DictComp = visit_GeneratorExp = visit_ListComp

    def visit_Import(self, node):
        for alias in node.names:
            self.names.add(alias.asname or alias.name.split(".")[0])

    visit_ImportFrom = visit_Import


def assigned(stmts):
    """Names the statements may bind in the enclosing scope."""
    v = _Assigned()
    for s in stmts:
        v.visit(s)
    return v.names


def loads(nodes):
    """Every name read anywhere in the nodes (nested scopes included); `x += 1` reads x."""
    if isinstance(nodes, ast.AST):
        nodes = [nodes]
    out = set()
    for node in nodes:
        for n in ast.walk(node):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                out.add(n.id)
            elif isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name):
                out.add(n.target.id)
    return out


def closure_loads(stmts):
    """Names read inside functions / lambdas defined in the statements (they may run at any later time).
    Lambdas made by the rewrite itself (`_os_gen`) are not user closures and are skipped."""
    out = set()
    for s in stmts:
        for n in ast.walk(s):
            if isinstance(n, (ast.FunctionDef, ast.Lambda)) and not getattr(n, "_os_gen", False):
                body = n.body if isinstance(n.body, list) else [n.body]
                out |= loads(body)
    return out


# ---- upward-exposed reads ------------------------------------------------------------------------
def exposed(stmts):
    """Names the block may read before binding them itself."""
    out = set()
    _block(stmts, set(), out)
    return out


def _expr(node, defined, out):
    if node is None:
        return
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id not in defined:
            out.add(n.id)


def _target(t, defined, out):
    if isinstance(t, ast.Name):
        defined.add(t.id)
    elif isinstance(t, (ast.Tuple, ast.List)):
        for e in t.elts:
            _target(e, defined, out)
    elif isinstance(t, ast.Starred):
        _target(t.value, defined, out)
    else:  # subscript / attribute store: the base (and index) are read
        _expr(t, defined, out)


def _block(stmts, defined, out):
    for s in stmts:
        _stmt(s, defined, out)


def _stmt(s, defined, out):
    if isinstance(s, ast.Assign):
        _expr(s.value, defined, out)
        for t in s.targets:
            _target(t, defined, out)
    elif isinstance(s, ast.AugAssign):
        if isinstance(s.target, ast.Name) and s.target.id not in defined:
            out.add(s.target.id)
        _expr(s.value, defined, out)
        _target(s.target, defined, out)
    elif isinstance(s, ast.AnnAssign):
        _expr(s.value, defined, out)
        if s.value is not None:
            _target(s.target, defined, out)
    elif isinstance(s, ast.If):
        _expr(s.test, defined, out)
        d1, d2 = set(defined), set(defined)
        _block(s.body, d1, out)
        _block(s.orelse, d2, out)
        defined |= d1 & d2
    elif isinstance(s, ast.While):
        _expr(s.test, defined, out)
        _block(s.body, set(defined), out)
        _block(s.orelse, set(defined), out)
    elif isinstance(s, ast.For):
        _expr(s.iter, defined, out)
        inner = set(defined)
        _target(s.target, inner, out)
        _block(s.body, inner, out)
        _block(s.orelse, set(defined), out)
    elif isinstance(s, (ast.FunctionDef, ast.ClassDef)):
        _expr_list(s.decorator_list, defined, out)
        out |= loads(s.body) - defined
        defined.add(s.name)
    elif isinstance(s, (ast.Import, ast.ImportFrom)):
        defined |= assigned([s])
    else:
        for child in ast.iter_child_nodes(s):
            _expr(child, defined, out)
        for n in walk_scope(s):
            if isinstance(n, ast.NamedExpr) and isinstance(n.target, ast.Name):
                defined.add(n.target.id)


def _expr_list(nodes, defined, out):
    for n in nodes:
        _expr(n, defined, out)
