"""algebraic_simplify: local identities, as a rule table (see ir/pattern.py).

    x * 1 → x    x + 0 → x    x - 0 → x    x / 1 → x    neg(neg(x)) → x    cast(x, x.dtype) → x
    reshape(x, x.shape) → x    reshape(reshape(x, a), b) → reshape(x, b)    broadcast_to(x, x.shape) → x
    transpose(x, identity) → x    transpose(transpose(x, p), q) → transpose(x, p∘q)
    tuple_get_item(make_tuple(a, b, ...), i) → the i-th element

The 1 of `x * 1` is a constant or an OnesLike (whatever its input holds).
A rule replaces a node by a value only when that value's abstract (shape and dtype) is exactly the node's:
`x * ones((3, 4))` with x of shape (4,) broadcasts, so it stays. `x * 0` stays (NaN and inf give NaN).
In a graph that writes state (Assign and other in-place updates), a rule never replaces a node by a weight or a
graph input: the result would alias a Parameter, and a later write would change a value already computed
(`out = zero + w; assign(w, 6)` must keep out's old value, as MindSpore's Load does).
"""
from ...ir.node import Node
from ...ir.pattern import RuleTable, is_const_all, is_op

RULES = RuleTable()


_keep_copies = [False]  # set while simplifying a graph that writes state


def algebraic_simplify(graph):
    """algebraic_simplify(graph) -> Graph with the identities above applied (the input is not modified)."""
    _keep_copies[0] = any(n.is_primitive and n.op.side_effect for g in graph.all_graphs() for n in g.nodes)
    try:
        return RULES.apply(graph)
    finally:
        _keep_copies[0] = False


def _if_same(node, value):
    """`value` may stand for `node` only with the identical abstract (no broadcasting, no dtype change), and
    not when it would alias state that the graph writes."""
    if _keep_copies[0] and value.op in ("weight", "input"):
        return None
    return value if value.abstract == node.abstract else None


def _python_const(node):
    return node.value if node.op == "const" and node.abstract is None else None


def _all_equal(node, number):
    """`node` is known to hold `number` everywhere: a constant, or OnesLike for 1 (its value never depends on its
    input's: a training step's loss gradient seed, `Mul(dloss, OnesLike(loss))`, is one in every graph)."""
    if is_const_all(node, number):
        return True
    return number == 1 and node.op_name == "OnesLike" and getattr(node.abstract, "shape", None) is not None \
        and all(d > 0 for d in node.abstract.shape)


def _neutral_element(identity):
    """The rule of a commutative op whose neutral element is `identity`: x op e → x and e op x → x."""
    def rule(n):
        x, y = n.inputs
        if _all_equal(y, identity) and _if_same(n, x):
            return x
        if _all_equal(x, identity):
            return _if_same(n, y)
        return None
    return rule


RULES.rule("Mul")(_neutral_element(1))  # x * 1 → x
RULES.rule("Add")(_neutral_element(0))  # x + 0 → x


@RULES.rule("Sub")
def _minus_zero(n):
    x, y = n.inputs
    return _if_same(n, x) if is_const_all(y, 0) else None


@RULES.rule("RealDiv", "Div")
def _over_one(n):
    x, y = n.inputs
    return _if_same(n, x) if is_const_all(y, 1) else None


@RULES.rule("Neg")
def _neg_neg(n):
    x = n.inputs[0]
    return _if_same(n, x.inputs[0]) if is_op(x, "Neg") else None


@RULES.rule("Cast")
def _cast_same(n):
    return _if_same(n, n.inputs[0])


@RULES.rule("BroadcastTo")
def _broadcast_same(n):
    return _if_same(n, n.inputs[0])


@RULES.rule("Reshape")
def _reshape(n):
    x = n.inputs[0]
    if x.abstract == n.abstract:
        return _if_same(n, x)
    if is_op(x, "Reshape"):  # only the last shape matters
        return n.clone(inputs=(x.inputs[0], n.inputs[1]))
    return None


def _perm(node, ndim):
    perm = _python_const(node)
    if not isinstance(perm, (tuple, list)) or len(perm) != ndim or not all(isinstance(p, int) for p in perm):
        return None
    return tuple(p % ndim for p in perm) if ndim else ()


@RULES.rule("Transpose")
def _transpose(n):
    x = n.inputs[0]
    ndim = len(n.abstract.shape)
    perm = _perm(n.inputs[1], ndim)
    if perm is None:
        return None
    if perm == tuple(range(ndim)):
        return _if_same(n, x)
    if is_op(x, "Transpose"):
        inner = _perm(x.inputs[1], ndim)
        if inner is None:
            return None
        composed = tuple(inner[p] for p in perm)  # out[i] = mid[perm[i]] = src[inner[perm[i]]]
        const = Node("const", value=composed, loc=n.inputs[1].loc, scope=n.inputs[1].scope)
        return n.clone(inputs=(x.inputs[0], const))
    return None


@RULES.rule("tuple_get_item")
def _get_from_make_tuple(n):
    src = n.inputs[0]
    if src.op == "make_tuple":  # no copy either way: the element itself
        element = src.inputs[n.index]
        return element if element.abstract == n.abstract else None
    return None
