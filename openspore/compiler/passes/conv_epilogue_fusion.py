"""conv_epilogue_fusion: Conv2D with the BiasAdd, residual Add and ReLU that follow it becomes one Conv2DFused.

    %2 = Conv2D[...](%0, %w) : f32[1,16,32,32]
    %3 = BiasAdd(%2, %b) : f32[1,16,32,32]              →    %5 = Conv2DFused[..., activation='relu'](%0, %w, %b, %r)
    %4 = Add(%3, %r) : f32[1,16,32,32]
    %5 = ReLU(%4) : f32[1,16,32,32]

Each part is optional; a node joins the chain only when it is the single reader of the previous one (so nothing
is computed twice) and, for Add, when both operands have the convolution's shape (no broadcasting). The fused
kernel (ops/defs/nn_conv_fused.py) is oneDNN's convolution with post-ops on torch's CPU backend and writes
channels-last memory; where a fused result is read by anything but another fused convolution or a reduction,
a `ToContiguous` is inserted before the reader (the identity when the value is contiguous already).
Inference pipeline only: a Conv2DFused in a training graph would hide the ReLU's input from its gradient.
"""
from ...core.primitive import PRIMITIVES
from ...ir.node import Node
from ...ir.rewrite import rewrite


def conv_epilogue_fusion(graph):
    """conv_epilogue_fusion(graph) -> Graph with Conv2D [+ BiasAdd] [+ Add] [+ ReLU] chains fused."""
    return rewrite(graph, _visit, prepare=_chains, finish=_contiguous_output)


def _next(node, users, output_id):
    """The single reader of `node`, or None (several readers, none, or `node` is the graph's result)."""
    readers = users.get(node.id, ())
    if node.id == output_id or len(readers) != 1 or readers[0] is None:
        return None
    return readers[0]


def _chain(conv, users, output_id, claimed):
    """{'last': node, 'bias': node|None, 'residual': node|None, 'relu': bool, 'members': [ids]} for `conv`."""
    cur, bias, residual, relu, members = conv, None, None, False, [conv.id]
    nxt = _next(cur, users, output_id)
    if nxt is not None and nxt.is_primitive and nxt.op_name == "BiasAdd" and nxt.inputs[0] is cur \
            and nxt.attrs.get("data_format", "NCHW") == "NCHW" and len(nxt.inputs[1].abstract.shape) == 1:
        cur, bias = nxt, nxt.inputs[1]
        members.append(cur.id)
        nxt = _next(cur, users, output_id)
    if nxt is not None and nxt.is_primitive and nxt.op_name == "Add" and nxt.id not in claimed:
        other = nxt.inputs[1] if nxt.inputs[0] is cur else nxt.inputs[0]
        if other is not cur and getattr(other.abstract, "shape", None) == cur.abstract.shape \
                and other.abstract.dtype == cur.abstract.dtype and nxt.abstract.shape == cur.abstract.shape:
            cur, residual = nxt, other
            members.append(cur.id)
            nxt = _next(cur, users, output_id)
    if nxt is not None and nxt.is_primitive and nxt.op_name == "ReLU":
        cur, relu = nxt, True
        members.append(cur.id)
    return {"conv": conv, "last": cur, "bias": bias, "residual": residual, "relu": relu, "members": members}


def _chains(g):
    users = g.users()
    output_id = g.output.id if g.output is not None else None
    claimed, by_last, dropped = set(), {}, set()
    for n in g.nodes:
        if n.is_primitive and n.op_name == "Conv2D" and n.attrs.get("data_format", "NCHW") == "NCHW" \
                and n.id not in claimed:
            chain = _chain(n, users, output_id, claimed)
            if len(chain["members"]) == 1:
                continue
            claimed.update(chain["members"])
            by_last[chain["last"].id] = chain
            dropped.update(chain["members"][:-1])
    return {"chains": by_last, "dropped": dropped, "fused": set(), "contiguous": {}}


def _visit(n, inputs, rw):
    facts = rw.facts
    if n.id in facts["dropped"]:
        return None
    chain = facts["chains"].get(n.id)
    if chain is not None:
        conv = chain["conv"]
        attrs = {k: conv.attrs[k] for k in ("out_channel", "kernel_size", "mode", "pad_mode", "pad", "stride",
                                            "dilation", "group", "data_format")}
        fused_prim = PRIMITIVES["Conv2DFused"](**attrs, activation="relu" if chain["relu"] else "none")
        operands = [rw.get(conv.inputs[0]), rw.get(conv.inputs[1])]
        none = Node("const", value=None, abstract=None, loc=conv.loc, scope=conv.scope)
        operands.append(rw.get(chain["bias"]) if chain["bias"] is not None else none)
        operands.append(rw.get(chain["residual"]) if chain["residual"] is not None else none)
        fused = Node(fused_prim, tuple(operands), abstract=n.abstract, loc=n.loc, scope=n.scope)
        facts["fused"].add(fused.id)
        return fused
    if not (n.is_primitive and (n.op_name == "Conv2DFused" or getattr(n.op, "channels_last", None) == "reads")):
        inputs = [_as_contiguous(rw, v) if v is not None and v.id in facts["fused"] else v for v in inputs]
    return rw.keep(n, inputs)


def _as_contiguous(rw, value):
    done = rw.facts["contiguous"].get(value.id)
    if done is None:
        done = rw.emit(Node(PRIMITIVES["ToContiguous"](), (value,), abstract=value.abstract, loc=value.loc,
                            scope=value.scope))
        rw.facts["contiguous"][value.id] = done
    return done


def _contiguous_output(rw, output):
    if output.id in rw.facts["fused"]:
        return _as_contiguous(rw, output)
    if output.op == "make_tuple" and any(i.id in rw.facts["fused"] for i in output.inputs):
        parts = [_as_contiguous(rw, i) if i.id in rw.facts["fused"] else i for i in output.inputs]
        return Node("make_tuple", parts, abstract=output.abstract, loc=output.loc, scope=output.scope)
    return output
