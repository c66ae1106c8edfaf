"""Operator-level sharding (`Primitive.shard`) in semi_auto_parallel / auto_parallel mode.

A sharded call runs in both modes the same way, because it is made of primitive calls that PyNative executes
and Graph mode traces: every input enters through MirrorOperator (its gradient is the sum of the members'
partial gradients), this member takes its block of each input (Split), runs the operator on the blocks, and the
result is redistributed back to the replicated layout — ForwardAllReduce when the contracted dimension was
split (each member holds a partial sum), ForwardAllGather along the output dimension that was split.

Scope (a stated limit): one dimension split across the whole world group per operator (strategies such as
((1, 2), (2, 1)), ((2, 1), (1, 1)), ((1, 1), (1, 2))); tensors between operators are replicated, so parameters
are stored whole and memory is not divided — the arithmetic of each sharded operator is.
"""
from .. import context
from ..core.dispatch import bind
from ..core.primitive import PRIMITIVES, set_shard_hook
from ..ops.defs import _comm_world as world

ELEMENTWISE = {"Add", "Sub", "Mul", "RealDiv", "Div", "Maximum", "Minimum", "ReLU", "Tanh", "Sigmoid", "GeLU",
               "Exp", "Neg", "Sqrt", "Square", "Abs", "FastGeLU", "SiLU", "Log", "Pow"}
_SEMI = ("semi_auto_parallel", "auto_parallel")


def _world():
    return world.state()["world"]


def _block(x, axis, n):
    """This member's block of x along `axis`, after MirrorOperator so the block's gradient is summed back."""
    mirrored = PRIMITIVES["MirrorOperator"](group=_world())(x)
    if axis is None:
        return mirrored
    return PRIMITIVES["Split"](axis=axis, output_num=n)(mirrored)[world.group_rank(_world())]


def _split_axes(op, strategy, n):
    """The one axis split n ways (None when unsplit); anything else is beyond this implementation."""
    axes = [k for k, d in enumerate(strategy) if d != 1]
    if len(axes) > 1 or any(strategy[k] != n for k in axes):
        raise ValueError(f"For '{op}.shard', openspore splits one dimension of each input across all {n} devices, "
                         f"but the strategy {strategy} asks for {len(axes)} split dimension(s) of "
                         f"{[strategy[k] for k in axes]}.")
    return axes[0] if axes else None


def _matmul(prim, args, n):
    a, b = args
    if getattr(prim, "transpose_a", False) or getattr(prim, "transpose_b", False):
        raise ValueError(f"For '{prim.name}.shard', transpose_a/transpose_b are not supported with a strategy; "
                         f"transpose the input with ops.transpose first.")
    sa, sb = prim.in_strategy
    if len(sa) != a.ndim or len(sb) != b.ndim:
        raise ValueError(f"For '{prim.name}.shard', the strategy {prim.in_strategy} must give one entry per "
                         f"dimension of the inputs (shapes {list(a.shape)} and {list(b.shape)}).")
    ka, kb = _split_axes(prim.name, sa, n), _split_axes(prim.name, sb, n)
    row_a, col_a, row_b, col_b = a.ndim - 2, a.ndim - 1, b.ndim - 2, b.ndim - 1
    if (ka == col_a) != (kb == row_b):
        raise ValueError(f"For '{prim.name}.shard', the contracted dimension must be split the same way in both "
                         f"inputs, but the strategy is {prim.in_strategy}.")
    if ka is not None and kb is not None and not (ka == col_a and kb == row_b) and \
            not (ka < row_a and kb < row_b and ka - row_a == kb - row_b):
        raise ValueError(f"For '{prim.name}.shard', the strategy {prim.in_strategy} splits two different output "
                         f"dimensions; split one.")
    local = bind(prim, _block(a, ka, n), _block(b, kb, n))
    out_ndim = local.ndim
    if ka == col_a:
        return PRIMITIVES["ForwardAllReduce"](group=_world())(local)
    if ka is not None:
        out_axis = ka + (out_ndim - a.ndim)
    elif kb is not None:
        out_axis = out_ndim - 1 if kb == col_b else kb + (out_ndim - b.ndim)
    else:
        return local
    return PRIMITIVES["ForwardAllGather"](axis=out_axis, group=_world())(local)


def _elementwise(prim, args, n, protected_axis=None):
    tensors = [a for a in args if hasattr(a, "shape")]
    strategies = prim.in_strategy
    if len(strategies) != len(tensors):
        raise ValueError(f"For '{prim.name}.shard', the strategy {strategies} must have one tuple per tensor input "
                         f"({len(tensors)}).")
    out_ndim = max(t.ndim for t in tensors)
    out_axis, blocks, it = None, [], iter(strategies)
    for a in args:
        if not hasattr(a, "shape"):
            blocks.append(a)
            continue
        s = next(it)
        if len(s) != a.ndim:
            raise ValueError(f"For '{prim.name}.shard', strategy {s} does not match an input of shape "
                             f"{list(a.shape)}.")
        k = _split_axes(prim.name, s, n)
        if k is not None:
            axis = k + out_ndim - a.ndim
            if out_axis not in (None, axis) or axis == protected_axis:
                raise ValueError(f"For '{prim.name}.shard', the strategy {strategies} splits the inputs along "
                                 f"different or unsplittable output dimensions.")
            out_axis = axis
        blocks.append(_block(a, k, n))
    for a, s in zip(tensors, strategies):  # an input that spans the split dimension must be split with it
        k = None if out_axis is None else out_axis - (out_ndim - a.ndim)
        if k is not None and k >= 0 and a.shape[k] != 1 and s[k] == 1:
            raise ValueError(f"For '{prim.name}.shard', every input spanning output dimension {out_axis} must be "
                             f"split there too, but the strategy is {strategies}.")
    local = bind(prim, *blocks)
    if out_axis is None:
        return local
    return PRIMITIVES["ForwardAllGather"](axis=out_axis, group=_world())(local)


def sharded_call(prim, args):
    if context.get_auto_parallel_context("parallel_mode") not in _SEMI or not world.is_inited():
        return bind(prim, *args)  # MindSpore ignores shard outside (semi-)auto parallel
    n = world.group_size(_world())
    if n == 1:
        return bind(prim, *args)
    if prim.name in ("MatMul", "BatchMatMul"):
        return _matmul(prim, args, n)
    if prim.name in ELEMENTWISE:
        return _elementwise(prim, args, n)
    if prim.name == "Softmax":
        axes = prim.axis if isinstance(prim.axis, (tuple, list)) else (prim.axis,)
        ndim = args[0].ndim
        return _elementwise(prim, args, n, protected_axis=axes[0] % ndim)
    raise NotImplementedError(f"'{prim.name}.shard' is not supported by openspore's operator-level sharding "
                              f"(supported: MatMul, BatchMatMul, Softmax, {sorted(ELEMENTWISE)}).")


set_shard_hook(sharded_call)
