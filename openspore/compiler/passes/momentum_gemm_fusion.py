"""momentum_gemm_fusion: a Dense layer's weight gradient goes straight into its Momentum accumulation, in one GEMM.

    %15 = DenseGrad[input_grad=True, bias_grad=True](%14, %9, %10)      %50 = MatMul(%14, %10)        (d_input)
    %16 = tuple_get_item[0](%15)
    %17 = tuple_get_item[1](%15)                                  →     %51 = weight "moments.fc3.weight"
    %18 = tuple_get_item[2](%15)                                        %52 = DenseGradAccumulate(%51, %14, %9, %41)
    ...                                                                 %53 = weight "moments.fc3.bias"
    %42 = ForeachApplyMomentum(%31, %38, %39, %40, %41)                 %54 = BiasGradAccumulate(%53, %14, %41)
                                                                        ...
                                                                        %61 = ForeachApplyAccumulation(%60, %59, %39)

Why: ApplyMomentum (no Nesterov) is `accum = accum * momentum + grad; var -= lr * accum`. With `grad` a Dense
weight gradient `doutᵀ · x`, the first half is a GEMM with a beta term (`addmm_`): the gradient, as large as
the weight, is never written to memory and never read back by the optimizer; what is left at the optimizer's
place is `var -= lr * accum`. For the benchmark MLP that is 2.6 MB less written and read per step.

When: the Foreach's gradient i is the weight output of a DenseGrad over 2-D rows whose only reader is that
gradient tuple (its bias gradient, read the same way, goes into its accumulation by BiasGradAccumulate, a
matrix-vector product with a beta term); the accumulation i is a Parameter read nowhere else in the graph; no
other update in the graph writes the accumulations or the momentum (the accumulation now moves where the
DenseGrad stood, earlier than the optimizer, and reads the momentum there); no Nesterov. The parameters not fused
stay in a ForeachApplyMomentum. The DenseGrad's other outputs become MatMul (d_input) and, for a bias gradient
read elsewhere too, ReduceSum. Graphs holding control flow with side effects are left alone (an update inside a
branch could write what the moved accumulation reads). The results equal the unfused step's up to rounding: BLAS
adds the product into the scaled accumulation in one pass.
Runs after dce (the single-reader facts), at the top level of each graph and inside subgraphs.
"""
from ...core.primitive import PRIMITIVES, AbstractTensor
from ...ir.node import Node
from ...ir.rewrite import rewrite
from ...ops.defs import optim_split  # noqa: F401  (registers the accumulating primitives)


def momentum_gemm_fusion(graph):
    """momentum_gemm_fusion(graph) -> Graph with Dense weight gradients accumulated into Momentum by one GEMM."""
    return rewrite(graph, _visit, prepare=_plan)


def _is(n, name):
    return n.is_primitive and n.op.name == name


def _rank2(n):
    return isinstance(n.abstract, AbstractTensor) and len(n.abstract.shape) == 2


def _written_parameters(g, skip):
    """ids of the Parameters an update other than `skip` writes (first input, through make_tuple); None when an
    if/while/call with side effects could write anything."""
    written = set()
    for n in g.nodes:
        if n.op in ("if", "while", "call") and n.has_side_effect:
            return None
        if n.is_primitive and n.op.side_effect and n.id not in skip and n.inputs:
            first = n.inputs[0]
            for v in (first.inputs if first.op == "make_tuple" else (first,)):
                if v.op == "weight":
                    written.add(id(v.value))
    return written


def _plan(g):
    users = g.users()
    if g.output is not None:
        users.setdefault(g.output.id, []).append(None)
    foreach = [n for n in g.nodes if _is(n, "ForeachApplyMomentum") and not n.op.attrs.get("use_nesterov")]
    written = _written_parameters(g, {n.id for n in foreach}) if foreach else None
    plans, dense, getitems, moved, dropped = {}, {}, {}, {}, set()
    if written is None:
        return plans, dense, getitems, moved, dropped, {}
    param_reads = {}
    for n in g.nodes:
        if n.op == "weight":
            param_reads[id(n.value)] = param_reads.get(id(n.value), 0) + 1
    for f in foreach:
        variables, accums, _lr, grads, momentum = f.inputs
        if not all(t.op == "make_tuple" and users.get(t.id) == [f] for t in (accums, grads)) \
                or variables.op != "make_tuple" or momentum.op not in ("weight", "const") \
                or (momentum.op == "weight" and id(momentum.value) in written):
            continue
        fused = []
        for i, (acc, grad) in enumerate(zip(accums.inputs, grads.inputs)):
            entry = _fusable(grad, acc, grads, users, param_reads, written, dense)
            if entry is not None:
                dense[entry.id] = [acc, momentum, f.op.attrs.get("gradient_scale", 1.0), None, f.id]
                fused.append(i)
        for i, (acc, grad) in enumerate(zip(accums.inputs, grads.inputs)):  # their biases' gradients
            d = grad.inputs[0] if grad.op == "tuple_get_item" else None
            if d is not None and d.id in dense and dense[d.id][4] == f.id and d.op.attrs.get("bias_grad", True) \
                    and int(grad.index) == len(d.abstract) - 1 and _single_reader(grad, acc, grads, users,
                                                                                   param_reads, written):
                dense[d.id][3] = acc
                fused.append(i)
        if fused:
            plans[f.id] = fused
            dropped.update({accums.id, grads.id} | ({variables.id} if users.get(variables.id) == [f] else set()))
            moved[momentum.id] = None  # an input-less node (weight or const): emitted again at the first DenseGrad
            for i in fused:
                moved[accums.inputs[i].id] = None  # weight and bias accumulations alike
    for n in g.nodes:
        if n.op == "tuple_get_item" and n.inputs[0].id in dense:
            getitems[n.id] = n
    return plans, dense, getitems, moved, dropped, {}


def _fusable(grad, acc, grads, users, param_reads, written, dense):
    """The DenseGrad whose weight gradient `grad` is, when it can accumulate into `acc` itself; else None."""
    if grad.op != "tuple_get_item" or not _single_reader(grad, acc, grads, users, param_reads, written):
        return None
    d = grad.inputs[0]
    if not _is(d, "DenseGrad") or d.id in dense or int(grad.index) != int(bool(d.op.attrs.get("input_grad", True))):
        return None
    if not (_rank2(d.inputs[0]) and _rank2(d.inputs[1])):
        return None
    if any(u is None or u.op != "tuple_get_item" for u in users.get(d.id, ())):
        return None
    return d


def _single_reader(grad, acc, grads, users, param_reads, written):
    """Whether the gradient is read by the gradient tuple only (once), and the accumulation is a Parameter read
    only there and written by no other update."""
    return (users.get(grad.id) == [grads] and list(grads.inputs).count(grad) == 1 and acc.op == "weight"
            and param_reads.get(id(acc.value)) == 1 and id(acc.value) not in written)


def _copy_leaf(n):
    return Node(n.op, (), abstract=n.abstract, loc=n.loc, scope=n.scope, value=n.value, name=n.name)


def _early(rw, node):
    """`node` (weight or const) in the new graph before its own place: emitted once, aliased at its place."""
    moved = rw.facts[3]
    if moved.get(node.id) is None:
        moved[node.id] = rw.emit(_copy_leaf(node))
    return moved[node.id]


def _visit(n, inputs, rw):
    plans, dense, getitems, moved, dropped, made = rw.facts
    if n.id in moved:
        return _early(rw, n)
    if n.id in dropped:
        return None
    if n.id in dense:
        return _split(n, rw)
    if n.id in getitems:
        return made[(n.inputs[0].id, int(n.index))]
    if n.id in plans:
        return _optimizer(n, rw)
    return rw.keep(n, inputs)


def _split(d, rw):
    """The DenseGrad `d` as MatMul / ReduceSum / DenseGradAccumulate nodes, by output index in `made`."""
    made = rw.facts[5]
    acc, momentum, scale, bias_acc, _ = rw.facts[1][d.id]
    dout, x, weight = (rw.get(i) for i in d.inputs)
    outs = list(d.abstract)
    index = 0
    if d.op.attrs.get("input_grad", True):
        made[(d.id, index)] = rw.emit(Node(PRIMITIVES["MatMul"](), (dout, weight), abstract=outs[index], loc=d.loc,
                                           scope=d.scope))
        index += 1
    update = rw.emit(Node(PRIMITIVES["DenseGradAccumulate"](gradient_scale=scale),
                          (_early(rw, acc), dout, x, _early(rw, momentum)), abstract=outs[index], loc=d.loc,
                          scope=d.scope))
    made[(d.id, index)] = update
    if bias_acc is not None:
        made[(d.id, index + 1)] = rw.emit(Node(PRIMITIVES["BiasGradAccumulate"](gradient_scale=scale),
                                               (_early(rw, bias_acc), dout, _early(rw, momentum)),
                                               abstract=outs[index + 1], loc=d.loc, scope=d.scope))
    elif d.op.attrs.get("bias_grad", True):
        axis = rw.emit(Node("const", value=(0,), loc=d.loc, scope=d.scope))
        made[(d.id, index + 1)] = rw.emit(Node(PRIMITIVES["ReduceSum"](keep_dims=False), (dout, axis),
                                               abstract=outs[index + 1], loc=d.loc, scope=d.scope))
    return update


def _optimizer(f, rw):
    """ForeachApplyMomentum `f` as a ForeachApplyMomentum over its unfused parameters (if any) and a
    ForeachApplyAccumulation over the fused ones; a tuple of the variables in `f`'s order when it is read."""
    fused = set(rw.facts[0][f.id])
    variables, accums, lr, grads, momentum = f.inputs
    count = len(variables.inputs)
    rest = [i for i in range(count) if i not in fused]
    pieces = {}

    def tuple_of(values, like):
        return rw.emit(Node("make_tuple", tuple(values), abstract=tuple(v.abstract for v in values), loc=like.loc,
                            scope=like.scope))

    def emit_update(op, args, which):
        var_tuple = args[0]
        node = rw.emit(Node(op, args, abstract=var_tuple.abstract, loc=f.loc, scope=f.scope))
        for j, i in enumerate(which):
            pieces[i] = (node, j)
        return node

    last = None
    if rest:
        last = emit_update(PRIMITIVES["ForeachApplyMomentum"](**f.op.attrs),
                           (tuple_of([rw.get(variables.inputs[i]) for i in rest], variables),
                            tuple_of([rw.get(accums.inputs[i]) for i in rest], accums), rw.get(lr),
                            tuple_of([rw.get(grads.inputs[i]) for i in rest], grads), rw.get(momentum)), rest)
    order = sorted(fused)
    last = emit_update(PRIMITIVES["ForeachApplyAccumulation"](),
                       (tuple_of([rw.get(variables.inputs[i]) for i in order], variables),
                        tuple_of([rw.get(grads.inputs[i]) for i in order], grads), rw.get(lr)), order)
    if not _read(rw.old, f):
        return last
    items = [rw.emit(Node("tuple_get_item", (pieces[i][0],), abstract=pieces[i][0].abstract[pieces[i][1]],
                          loc=f.loc, scope=f.scope, index=pieces[i][1])) for i in range(count)]
    return tuple_of(items, f)


def _read(g, node):
    return g.output is node or any(node in n.inputs for n in g.nodes)
