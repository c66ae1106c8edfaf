"""graph_kernel_attention: a training step's softmax attention, forward and backward, as two fused kernels.

Runs only when graph-kernel fusion is on (compiler/graph_kernel), before `graph_kernel_expand`; MindSpore's
FlashAttention fusion pattern, on CPU. The forward

    %s = BatchMatMul(%q, %kt)          %p = Softmax[axis=-1](%a)           %f = FusedAttention[scale=c](%q, %kt, %v, %mask)
    %m = Mul(%s, c)                    %o = BatchMatMul(%p, %v)      →     %o = tuple_get_item[0](%f)
    %a = Add(%m, %mask)   (optional; the mask a constant)

and the backward autodiff made for it (the products with %p, its SoftmaxGrad and the scale)

    %dp = BatchMatMul[tb](%do, %v)     %ds = SoftmaxGrad(%p, %dp)          %g = FusedAttentionGrad[scale=c](%do, %q, %kt,
    %dv = BatchMatMul[ta](%p, %do)     %dm = Mul(%ds, c)             →                        %v, %o, %lse, %mask)
    %dq = BatchMatMul[tb](%dm, %kt)    %dkt = BatchMatMul[ta](%q, %dm)     %dq, %dkt, %dv = tuple_get_item[0..2](%g)

become FusedAttention and FusedAttentionGrad (graph_kernel/attention.py). Which way they run is chosen here from
the mask and the shapes: a causal mask (`is_causal_mask`, GPT's) becomes `causal=True` with no mask input, ATen's
causal flash kernels, which skip the masked keys; otherwise for short sequences (`keeps_probabilities`) the
forward keeps the probabilities for the backward (its second output, L×S) and the products run on OpenBLAS
straight from the projection's memory; for longer ones ATen's CPU flash-attention kernels, which never write the
L×L probabilities and recompute them in the backward from the row log-sum-exp (then the second output). When
the backward's three gradients are only merged back into the qkv projection's layout (Transposes, Reshapes and
a Concat), FusedAttentionGrad writes the merged gradient itself (`heads_merged`).
Only the whole pattern is rewritten: the probabilities must have exactly those three readers (so nothing else
needs them), every intermediate one reader, the scale one scalar constant used on both sides; anything else (an
inference graph with no backward, a mask that is not a constant, a dropout on the probabilities) is left as it
is. `--disable_cluster_ops=FlashAttention` switches the pattern off. Only the top graph is rewritten.

>>> from openspore.ir.parser import parse_graph
>>> g = parse_graph('''graph @f(%0 x: f32[4]) {
...   %1 = Neg(%0) : f32[4]
...   return %1
... }''')
>>> graph_kernel_attention(g) is g   # no attention: the same graph back
True
"""
import numpy as np

from ...core.primitive import AbstractTensor
from ...ir.node import Node
from ...ir.rewrite import rewrite
from ..graph_kernel.attention import FusedAttention, FusedAttentionGrad, is_causal_mask, keeps_probabilities
from ..graph_kernel.ops import attention_ops


def graph_kernel_attention(graph, flags=None):
    """graph_kernel_attention(graph, flags=None) -> Graph with each whole attention pattern as two fused nodes."""
    if "FlashAttention" not in attention_ops(flags):
        return graph
    matches = _find(graph)
    if not matches:
        return graph
    role = {}  # old node id -> (match, what the node is in it)
    for m in matches:
        for name in ("s", "m", "a", "p", "dp", "ds", "dm"):
            if m.get(name) is not None:
                role[m[name].id] = (m, "drop")
        role[m["o"].id] = (m, "o")
        for name in ("dv", "dq", "dkt"):
            role[m[name].id] = (m, name)
        for n in m.get("merge_nodes", ()):
            role[n.id] = (m, "drop")
        if m.get("concat") is not None:
            role[m["concat"].id] = (m, "packed")
    position = {n.id: k for k, n in enumerate(graph.nodes)}
    for m in matches:  # the backward kernel goes where the first of the backward products was
        m["first_backward"] = min((m["dp"], m["dv"]), key=lambda n: position[n.id]).id

    def visit(n, inputs, rw):
        found = role.get(n.id)
        if found is None:
            return rw.keep(n, inputs)
        m, what = found
        if n.id == m["first_backward"]:
            _emit_backward(m, rw)
        if what == "o":
            return _emit_forward(m, rw)
        if what == "drop" or (what in ("dq", "dkt", "dv") and m.get("concat") is not None):
            return None
        return m["new"][what]

    return rewrite(graph, visit)


def _emit_forward(m, rw):
    mask = () if m["mask"] is None or m["causal"] else (rw.get(m["mask"]),)
    q, kt, v = rw.get(m["q"]), rw.get(m["kt"]), rw.get(m["v"])
    o, s = m["o"], m["s"]
    saved_shape = tuple(s.abstract.shape) if m["keep"] else tuple(s.abstract.shape[:-1])
    lse_abstract = AbstractTensor(saved_shape, s.abstract.dtype)
    op = FusedAttention(scale=m["scale"], keep_probabilities=m["keep"], causal=m["causal"])
    op.sources = _sources(m, ("s", "m", "a", "p", "o"))
    fused = Node(op, (q, kt, v) + mask, abstract=(o.abstract, lse_abstract), loc=o.loc,
                 scope=_scope(o, "FusedAttention"))
    rw.emit(fused)
    out = rw.emit(Node("tuple_get_item", (fused,), abstract=o.abstract, loc=o.loc, scope=o.scope, index=0))
    m["new"] = {"o": out, "lse": rw.emit(Node("tuple_get_item", (fused,), abstract=lse_abstract, loc=o.loc,
                                              scope=o.scope, index=1))}
    return out


def _emit_backward(m, rw):
    new = m["new"]
    mask = () if m["mask"] is None or m["causal"] else (rw.get(m["mask"]),)
    inputs = (rw.get(m["do"]), rw.get(m["q"]), rw.get(m["kt"]), rw.get(m["v"]), new["o"], new["lse"]) + mask
    dq, dkt, dv, concat = m["dq"], m["dkt"], m["dv"], m.get("concat")
    op = FusedAttentionGrad(scale=m["scale"], keep_probabilities=m["keep"], heads_merged=concat is not None,
                            causal=m["causal"])
    names = ("dp", "dv", "ds", "dm", "dq", "dkt")
    op.sources = _sources(m, names) + ([(n.scope or n.op_name, n.op_name) for n in m["merge_nodes"]]
                                       if concat is not None else [])
    abstract = concat.abstract if concat is not None else (dq.abstract, dkt.abstract, dv.abstract)
    grad = Node(op, inputs, abstract=abstract, loc=dv.loc, scope=_scope(dv, "FusedAttentionGrad"))
    rw.emit(grad)
    if concat is not None:
        new["packed"] = grad
        return
    for k, (name, old) in enumerate((("dq", dq), ("dkt", dkt), ("dv", dv))):
        new[name] = rw.emit(Node("tuple_get_item", (grad,), abstract=old.abstract, loc=old.loc, scope=old.scope,
                                 index=k))


def _sources(m, names):
    """(scope, primitive) of the nodes a fused node stands for, for `--dump_as_text`."""
    return [(m[k].scope or m[k].op_name, m[k].op_name) for k in names if m.get(k) is not None]


def _scope(node, name):
    parent = node.scope.rpartition("/")[0]
    return f"{parent}/{name}-op{node.id}" if parent else f"{name}-op{node.id}"


# ---- matching ----------------------------------------------------------------------------------------------
def _prim(n, name):
    return n is not None and n.is_primitive and n.op_name == name


def _bmm(n, ta=False, tb=False):
    return (_prim(n, "BatchMatMul") and bool(n.attrs.get("transpose_a")) == ta
            and bool(n.attrs.get("transpose_b")) == tb and isinstance(n.abstract, AbstractTensor)
            and len(n.abstract.shape) == 4 and getattr(n.abstract.dtype, "kind", "") == "float")


def _scalar_const(n):
    if n is None or n.op != "const" or not isinstance(n.abstract, AbstractTensor) or tuple(n.abstract.shape) != ():
        return None
    value = n.value.asnumpy() if hasattr(n.value, "asnumpy") else n.value
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _last_axis_softmax(n):
    if not _prim(n, "Softmax"):
        return False
    axis = n.attrs.get("axis", -1)
    axis = axis if isinstance(axis, (tuple, list)) else (axis,)
    return len(axis) == 1 and axis[0] in (-1, 3)


def _find(graph):
    users = graph.users()
    if graph.output is not None:
        users.setdefault(graph.output.id, []).append(None)

    def only_user(n):
        u = users.get(n.id, [])
        return u[0] if len(u) == 1 else None

    matches = []
    for p in graph.nodes:
        if _last_axis_softmax(p):
            m = _match(p, users, only_user)
            if m is not None:
                # a causal mask: flash's causal kernels, which skip the masked keys (and take no mask)
                m["causal"] = m["mask"] is not None and is_causal_mask(np, _mask_array(m["mask"]))
                # else the probabilities themselves kept for the backward, or the row log-sum-exp (flash)
                m["keep"] = not m["causal"] and keeps_probabilities(*m["s"].abstract.shape[-2:])
                m.update(_merged_heads(m, users, only_user))
                matches.append(m)
    return matches


def _match(p, users, only_user):
    a = p.inputs[0]
    mask = None
    if _prim(a, "Add") and only_user(a) is p and a.inputs[1].op == "const" \
            and isinstance(a.inputs[1].abstract, AbstractTensor) \
            and getattr(a.inputs[1].abstract.dtype, "kind", "") == "float":
        mask, m_node = a.inputs[1], a.inputs[0]
    else:
        m_node, a = a, None
    if not (_prim(m_node, "Mul") and only_user(m_node) is (a or p)):
        return None
    s, scale = m_node.inputs[0], _scalar_const(m_node.inputs[1])
    if scale is None or not _bmm(s) or only_user(s) is not m_node:
        return None
    q, kt = s.inputs
    readers = users.get(p.id, [])
    o = next((u for u in readers if _bmm(u) and u.inputs[0] is p), None)
    dv = next((u for u in readers if _bmm(u, ta=True) and u.inputs[0] is p), None)
    ds = next((u for u in readers if _prim(u, "SoftmaxGrad") and u.inputs[0] is p), None)
    if None in (o, dv, ds) or len(readers) != 3 or not _last_axis_grad(ds):
        return None
    v, do = o.inputs[1], dv.inputs[1]
    dp = ds.inputs[1]
    if not (_bmm(dp, tb=True) and dp.inputs[0] is do and dp.inputs[1] is v and only_user(dp) is ds):
        return None
    dm = only_user(ds)
    if not (_prim(dm, "Mul") and dm.inputs[0] is ds and _scalar_const(dm.inputs[1]) == scale):
        return None
    dm_readers = users.get(dm.id, [])
    dq = next((u for u in dm_readers if _bmm(u, tb=True) and u.inputs[0] is dm and u.inputs[1] is kt), None)
    dkt = next((u for u in dm_readers if _bmm(u, ta=True) and u.inputs[0] is q and u.inputs[1] is dm), None)
    if None in (dq, dkt) or len(dm_readers) != 2:
        return None
    return {"q": q, "kt": kt, "v": v, "mask": mask, "scale": scale, "s": s, "m": m_node, "a": a, "p": p,
            "o": o, "do": do, "dp": dp, "ds": ds, "dm": dm, "dv": dv, "dq": dq, "dkt": dkt}


def _mask_array(n):
    value = n.value
    return value.asnumpy() if hasattr(value, "asnumpy") else np.asarray(value)


def _const_value(n):
    return n.value if n is not None and n.op == "const" else None


def _merged_heads(m, users, only_user):
    """The nodes after the backward that put dq, dkᵀ, dv back into the projection's [B, L, 3·H·D] layout (the
    backward of `split(qkv)` and of the head reshapes): each gradient's Transpose to [B, L, H, D] and Reshape to
    [B, L, H·D], and the Concat of the three in q, k, v order along the last axis. Found, the backward kernel
    writes the concatenated gradient itself ({"concat": node, "merge_nodes": [...]}); else {"concat": None}."""
    none = {"concat": None, "merge_nodes": ()}
    shape = tuple(m["dq"].abstract.shape)
    if len(shape) != 4:
        return none
    b, h, l, d = shape
    tail, tuples = [], set()
    for name, perm in (("dq", (0, 2, 1, 3)), ("dkt", (0, 3, 1, 2)), ("dv", (0, 2, 1, 3))):
        t = only_user(m[name])
        if not (_prim(t, "Transpose") and t.inputs[0] is m[name] and _const_value(t.inputs[1]) == perm):
            return none
        r = only_user(t)
        if not (_prim(r, "Reshape") and r.inputs[0] is t and tuple(r.abstract.shape) == (b, l, h * d)):
            return none
        pack = only_user(r)
        if pack is None or pack.op not in ("make_tuple", "make_list"):
            return none
        tail += [t, r]
        tuples.add(pack.id)
    if len(tuples) != 1 or tuple(pack.inputs) != tuple(tail[1::2]) or tuple(m["dv"].abstract.shape) != shape:
        return none
    concat = only_user(pack)
    if not (_prim(concat, "Concat") and concat.inputs[0] is pack and concat.attrs.get("axis") in (2, -1)):
        return none
    return {"concat": concat, "merge_nodes": tail + [pack]}


def _last_axis_grad(ds):
    axis = ds.attrs.get("axis", -1)
    axis = axis if isinstance(axis, (tuple, list)) else (axis,)
    return len(axis) == 1 and axis[0] in (-1, 3)
