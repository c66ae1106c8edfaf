"""How each shardable operator splits: names for its dimensions (labels), which labels its result sums over
when they are split (partial), which may not be split at all (protected), and the local computation on the
blocks. `_sharding` turns a strategy (or the layouts its inputs arrive in) into splits of the labels.

* MatMul / BatchMatMul: rows m, contraction k, columns n (batch dims b0, b1, ...); k split = partial sums.
* elementwise ops, with broadcasting: the output dimensions; a broadcast (size-1) dimension is not split.
* Softmax / LogSoftmax: like elementwise, the softmax axes protected.
* ReduceSum / ReduceMean: the reduced dimensions split = partial results (the mean scaled by the local share);
  ReduceMax / ReduceMin: the local extremum, gathered along the split reduced dimensions, reduced again.
* LayerNorm: the normalised dimensions (from begin_norm_axis) protected; gamma/beta not split.
* Gather (embedding, axis 0): table (vocab v, columns c) and the indices' dimensions. Column split: each rank
  looks up its columns. Row split (MindSpore's semantics): each rank holds rows [lo, hi), looks up the indices
  in its range, zeroes the others, and the ranks' results are summed (partial over v).

>>> import numpy as np, openspore as ms
>>> spec = RULES["MatMul"](ms.ops.MatMul(), (ms.Tensor(np.ones((2, 3))), ms.Tensor(np.ones((3, 4)))))
>>> spec.labels, spec.outputs, spec.partial
([['m', 'k'], ['k', 'n']], [['m', 'n']], ['k'])
"""
from ..core.dispatch import bind
from ..core.parameter import Parameter
from ..core.primitive import PRIMITIVES
from ._tensor_layout import layout_of

ELEMENTWISE = {"Add", "Sub", "Mul", "RealDiv", "Div", "Maximum", "Minimum", "ReLU", "Tanh", "Sigmoid", "GeLU",
               "Exp", "Neg", "Sqrt", "Square", "Abs", "FastGeLU", "SiLU", "Log", "Pow", "BiasAdd", "Cast", "Erf",
               "Rsqrt", "Reciprocal", "SquaredDifference", "Softplus", "Select", "Equal", "NotEqual", "Greater",
               "GreaterEqual", "Less", "LessEqual", "Sin", "Cos", "ReLU6", "HSwish", "Mish"}


class Spec:
    """`positions`: argument indices of the tensor inputs; `labels`: one label (or None) per dimension of each;
    `outputs`: labels of each output; `partial`: labels the result is a sum over; `protected`: labels never
    split; `compute(plan, args)`: the local result(s) from the blocks (args with blocks in place)."""

    def __init__(self, positions, labels, outputs, compute, partial=(), protected=()):
        self.positions, self.labels, self.outputs = list(positions), labels, outputs
        self.compute, self.partial, self.protected = compute, list(partial), set(protected)


def full_shape(t):
    """The shape of the whole tensor a local block stands for."""
    if isinstance(t, Parameter) and t.sliced:
        return t.shard_layout.full_shape
    lay = layout_of(t)
    return tuple(t.shape) if lay is None else tuple(s * k for s, k in zip(t.shape, lay.splits))


def _is_tensor(a):
    return hasattr(a, "shape") and hasattr(a, "dtype")


def _plain(prim):
    return lambda plan, args: bind(prim, *args)


def matmul(prim, args):
    a, b = args[0], args[1]
    ta = getattr(prim, "transpose_a", False) or getattr(prim, "adj_x", False)
    tb = getattr(prim, "transpose_b", False) or getattr(prim, "adj_y", False)
    batch = [f"b{i}" for i in range(a.ndim - 2)]
    la = batch + (["k", "m"] if ta else ["m", "k"])
    if b.ndim == 2:
        lb = ["n", "k"] if tb else ["k", "n"]
    elif b.ndim == a.ndim:
        lb = batch + (["n", "k"] if tb else ["k", "n"])
    else:
        raise ValueError(f"For '{prim.name}.shard', the inputs must have the same rank or the second must be 2-D, "
                         f"but the shapes are {list(full_shape(a))} and {list(full_shape(b))}.")
    return Spec([0, 1], [la, lb], [batch + ["m", "n"]], _plain(prim), partial=["k"])


def elementwise(prim, args, protected_dims=()):
    positions = [i for i, a in enumerate(args) if _is_tensor(a)]
    shapes = [full_shape(args[i]) for i in positions]
    out_ndim = max(len(s) for s in shapes)
    out_shape = [max((s[d - out_ndim + len(s)] for s in shapes if d - out_ndim + len(s) >= 0), default=1)
                 for d in range(out_ndim)]
    labels = [[None if (size == 1 and out_shape[j + out_ndim - len(shape)] != 1) else j + out_ndim - len(shape)
               for j, size in enumerate(shape)] for shape in shapes]
    protected = {d % out_ndim for d in protected_dims} if out_ndim else set()
    return Spec(positions, labels, [list(range(out_ndim))], _plain(prim), protected=protected)


def softmax(prim, args):
    axes = prim.axis if isinstance(prim.axis, (tuple, list)) else (prim.axis,)
    return elementwise(prim, args[:1], protected_dims=axes)


def _reduced_axes(prim, x, axis):
    ndim = x.ndim
    if axis is None or axis == () or axis == []:
        return list(range(ndim))
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    return sorted({int(a) % ndim for a in axes}) if ndim else []


def _reduce_out(dims, reduced, keep):
    return [None if d in reduced else lb for d, lb in enumerate(dims)] if keep else \
        [lb for d, lb in enumerate(dims) if d not in reduced]


def reduce_sum_mean(prim, args):
    x, axis = args[0], (args[1] if len(args) > 1 else ())
    reduced = _reduced_axes(prim, x, axis)
    dims = list(range(x.ndim))

    def compute(plan, blocks):
        local = bind(prim, *blocks)
        share = 1
        for d in reduced:
            share *= plan.split(dims[d])
        if prim.name == "ReduceMean" and share > 1:  # the mean of the block, weighted by its share of the count
            local = PRIMITIVES["Mul"]()(local, 1.0 / share)
        return local
    return Spec([0], [dims], [_reduce_out(dims, reduced, prim.keep_dims)], compute,
                partial=[dims[d] for d in reduced])


def reduce_extremum(prim, args):
    x, axis = args[0], (args[1] if len(args) > 1 else ())
    reduced = _reduced_axes(prim, x, axis)
    dims = list(range(x.ndim))

    def compute(plan, blocks):
        from ._redistribute import all_gather
        split = [d for d in reduced if plan.split(dims[d]) > 1]
        if not split:
            return bind(prim, *blocks)
        local = bind(type(prim)(keep_dims=True), blocks[0], tuple(reduced))
        for d in split:  # the ranks' extrema side by side, then the extremum of those
            local = all_gather(local, plan.dm, plan.axis[dims[d]], d)
        return bind(type(prim)(keep_dims=prim.keep_dims), local, tuple(reduced))
    return Spec([0], [dims], [_reduce_out(dims, reduced, prim.keep_dims)], compute)


def layer_norm(prim, args):
    x = args[0]
    ndim = x.ndim
    norm_axis = prim.begin_norm_axis % ndim
    params_axis = prim.begin_params_axis % ndim
    dims = list(range(ndim))
    param_dims = dims[params_axis:]
    stats = [d if d < norm_axis else None for d in dims]
    return Spec([0, 1, 2], [dims, param_dims, param_dims], [dims, stats, stats], _plain(prim),
                protected=range(norm_axis, ndim))


def gather(prim, args):
    params, indices = args[0], args[1]
    axis = args[2] if len(args) > 2 else 0
    if getattr(prim, "batch_dims", 0) or params.ndim != 2 or axis != 0:
        raise NotImplementedError(f"'{prim.name}.shard' supports an embedding lookup (a 2-D table, axis 0, "
                                  f"batch_dims 0), but got a table of shape {list(full_shape(params))} and "
                                  f"axis {axis}.")
    idx = [f"i{d}" for d in range(indices.ndim)]

    def compute(plan, blocks):
        table, ids = blocks[0], blocks[1]
        rows = plan.split("v")
        if rows == 1:
            return bind(prim, *blocks)
        from ..ops.defs import _comm_world as world
        size = table.shape[0]
        lo = plan.dm.coords(world.state()["rank"])[plan.axis["v"]] * size
        shifted = PRIMITIVES["Sub"]()(ids, lo)
        inside = PRIMITIVES["LogicalAnd"]()(PRIMITIVES["GreaterEqual"]()(shifted, 0),
                                           PRIMITIVES["Less"]()(shifted, size))
        safe = PRIMITIVES["Select"]()(inside, shifted, PRIMITIVES["ZerosLike"]()(shifted))
        found = bind(prim, table, safe, 0)
        mask = PRIMITIVES["ExpandDims"]()(PRIMITIVES["Cast"]()(inside, found.dtype), -1)
        return PRIMITIVES["Mul"]()(found, mask)
    return Spec([0, 1], [["v", "c"], idx], [idx + ["c"]], compute, partial=["v"])


RULES = {"MatMul": matmul, "BatchMatMul": matmul, "Softmax": softmax, "LogSoftmax": softmax,
         "ReduceSum": reduce_sum_mean, "ReduceMean": reduce_sum_mean, "ReduceMax": reduce_extremum,
         "ReduceMin": reduce_extremum, "LayerNorm": layer_norm, "Gather": gather}
RULES.update({name: elementwise for name in ELEMENTWISE})
