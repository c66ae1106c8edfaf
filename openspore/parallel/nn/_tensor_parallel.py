"""Megatron-style tensor parallelism as reusable cells.

A column-parallel Dense keeps rows [r*out/n, (r+1)*out/n) of the (out, in) weight on rank r and yields those
output features; a row-parallel Dense keeps the matching input columns and sums the ranks' partial products
with one AllReduce. Between them the activations stay split (no communication). A sub-block (the MLP, the
attention) therefore costs one AllReduce forward (ForwardAllReduce after the row-parallel Dense) and one
backward (MirrorOperator at the sub-block's input sums the input gradients). Attention heads are split across
ranks: q, k, v are column-parallel (rank r computes heads [r*h/n, (r+1)*h/n)), the output projection is
row-parallel.

Every rank builds the full initial weight (the same on all ranks: pass tensors, or seed the RNG alike) and
keeps its slice (`openspore.parallel.slice_parameter`), so `gather_full` and checkpoints see the layout. The
collectives follow the replicated-cotangent convention of operator sharding: train with TrainOneStepCell in
stand_alone or semi_auto_parallel mode (data_parallel would all-reduce the gradients a second time).

>>> import numpy as np, openspore as ms
>>> mlp = ParallelMLP(4, 8)
>>> mlp(ms.Tensor(np.ones((2, 4), np.float32))).shape
(2, 4)
"""
from ... import ops
from ...common.initializer import Normal, Zero
from ...core.primitive import PRIMITIVES
from ...nn.cell import Cell
from ...nn.layer._common import make_param
from ...nn.layer.normalization import LayerNorm
from ...ops.defs import _comm_world as world
from .._param_shard import ShardLayout, slice_parameter


def _group_of(group):
    return world.state()["world"] if group is None else group


def _split_param(param, axis, group):
    """Keep this rank's block of `param` along `axis` (n equal blocks over `group`)."""
    n, r = world.group_size(group), world.group_rank(group)
    if n == 1:
        return param
    if param.shape[axis] % n:
        raise ValueError(f"Tensor parallelism over {n} ranks splits dimension {axis} of parameter '{param.name}' "
                         f"(shape {param.shape}), which must divide by {n}.")
    tmap = tuple(0 if d == axis else -1 for d in range(len(param.shape)))
    coords = tuple(r if d == axis else 0 for d in range(len(param.shape)))
    return slice_parameter(param, ShardLayout(param.shape, (n,), tmap, coords))


def copy_to_parallel(x, group=None):
    """x unchanged; its gradient is summed over the group (the backward AllReduce of a sub-block)."""
    group = _group_of(group)
    return x if world.group_size(group) == 1 else PRIMITIVES["MirrorOperator"](group=group)(x)


def reduce_from_parallel(x, group=None):
    """The sum of the ranks' partial results (the forward AllReduce of a sub-block)."""
    group = _group_of(group)
    return x if world.group_size(group) == 1 else PRIMITIVES["ForwardAllReduce"](group=group)(x)


class ColumnParallelDense(Cell):
    """`ColumnParallelDense(in_channels, out_channels, weight_init=Normal(0.02), bias_init=Zero(), has_bias=True,
    gather_output=False, copy_input=True, group=None)`: y = x @ W.T + b with W's output rows split over the
    group. The output is this rank's slice of features unless `gather_output`. `copy_input=False` when the
    caller already entered the parallel region (several column-parallel cells sharing one input)."""

    def __init__(self, in_channels, out_channels, weight_init=None, bias_init=None, has_bias=True,
                 gather_output=False, copy_input=True, group=None):
        super().__init__()
        self.group = _group_of(group)
        self.weight = _split_param(make_param(Normal(0.02) if weight_init is None else weight_init,
                                              (out_channels, in_channels), _f32(), "weight"), 0, self.group)
        self.bias = None
        if has_bias:
            self.bias = _split_param(make_param(Zero() if bias_init is None else bias_init, (out_channels,),
                                                _f32(), "bias"), 0, self.group)
        self.gather_output, self.copy_input = gather_output, copy_input
        self.dense = ops.Dense()

    def construct(self, x):
        if self.copy_input:
            x = copy_to_parallel(x, self.group)
        y = self.dense(x, self.weight, self.bias)
        if self.gather_output and world.group_size(self.group) > 1:
            y = PRIMITIVES["ForwardAllGather"](axis=y.ndim - 1, group=self.group)(y)
        return y


class RowParallelDense(Cell):
    """`RowParallelDense(in_channels, out_channels, weight_init=Normal(0.02), bias_init=Zero(), has_bias=True,
    input_is_parallel=True, group=None)`: W's input columns split over the group; the partial products are
    summed with one AllReduce, then the (replicated) bias is added."""

    def __init__(self, in_channels, out_channels, weight_init=None, bias_init=None, has_bias=True,
                 input_is_parallel=True, group=None):
        super().__init__()
        self.group = _group_of(group)
        self.weight = _split_param(make_param(Normal(0.02) if weight_init is None else weight_init,
                                              (out_channels, in_channels), _f32(), "weight"), 1, self.group)
        self.bias = make_param(Zero() if bias_init is None else bias_init, (out_channels,), _f32(), "bias") \
            if has_bias else None
        self.input_is_parallel = input_is_parallel
        self.dense = ops.Dense()

    def construct(self, x):
        n = world.group_size(self.group)
        if not self.input_is_parallel and n > 1:
            x = copy_to_parallel(x, self.group)
            x = ops.split(x, x.shape[-1] // n, axis=-1)[world.group_rank(self.group)]
        y = reduce_from_parallel(self.dense(x, self.weight, None), self.group)
        return y if self.bias is None else y + self.bias


class ParallelMLP(Cell):
    """`ParallelMLP(hidden_size, ffn_hidden_size, group=None)`: column-parallel Dense, GeLU, row-parallel Dense."""

    def __init__(self, hidden_size, ffn_hidden_size, weight_init=None, group=None):
        super().__init__()
        self.mapping = ColumnParallelDense(hidden_size, ffn_hidden_size, weight_init=_part(weight_init, "mapping"),
                                           group=group)
        self.projection = RowParallelDense(ffn_hidden_size, hidden_size, weight_init=_part(weight_init, "projection"),
                                           group=group)
        self.act = ops.GeLU()

    def construct(self, x):
        return self.projection(self.act(self.mapping(x)))


class ParallelSelfAttention(Cell):
    """`ParallelSelfAttention(hidden_size, num_heads, group=None)`: multi-head self-attention with the heads
    split over the group (num_heads must divide by the group size). Input (batch, seq, hidden)."""

    def __init__(self, hidden_size, num_heads, weight_init=None, group=None):
        super().__init__()
        self.group = _group_of(group)
        n = world.group_size(self.group)
        if hidden_size % num_heads or num_heads % n:
            raise ValueError(f"For 'ParallelSelfAttention', hidden_size ({hidden_size}) must divide by num_heads "
                             f"({num_heads}) and num_heads by the {n} ranks of the group.")
        self.local_heads, self.head_dim = num_heads // n, hidden_size // num_heads
        self.query, self.key, self.value = (
            ColumnParallelDense(hidden_size, hidden_size, weight_init=_part(weight_init, name), copy_input=False,
                                group=group) for name in ("query", "key", "value"))
        self.dense = RowParallelDense(hidden_size, hidden_size, weight_init=_part(weight_init, "dense"), group=group)
        self.softmax = ops.Softmax(axis=-1)
        self.scores = ops.BatchMatMul(transpose_b=True)
        self.context = ops.BatchMatMul()
        self.scale = 1.0 / float(self.head_dim) ** 0.5

    def _heads(self, x, batch, seq):
        return ops.transpose(ops.reshape(x, (batch, seq, self.local_heads, self.head_dim)), (0, 2, 1, 3))

    def construct(self, x):
        batch, seq = x.shape[0], x.shape[1]
        x = copy_to_parallel(x, self.group)  # one backward AllReduce for q, k and v together
        q, k, v = (self._heads(proj(x), batch, seq) for proj in (self.query, self.key, self.value))
        probs = self.softmax(self.scores(q, k) * self.scale)
        ctx = ops.transpose(self.context(probs, v), (0, 2, 1, 3))
        return self.dense(ops.reshape(ctx, (batch, seq, self.local_heads * self.head_dim)))


class ParallelTransformerBlock(Cell):
    """`ParallelTransformerBlock(hidden_size, num_heads, ffn_hidden_size, group=None)`: pre-LayerNorm block,
    x + attention(LN(x)), then + MLP(LN(.)); LayerNorm weights are replicated."""

    def __init__(self, hidden_size, num_heads, ffn_hidden_size, weight_init=None, group=None):
        super().__init__()
        self.layernorm1 = LayerNorm((hidden_size,))
        self.attention = ParallelSelfAttention(hidden_size, num_heads, weight_init=_part(weight_init, "attention"),
                                               group=group)
        self.layernorm2 = LayerNorm((hidden_size,))
        self.mlp = ParallelMLP(hidden_size, ffn_hidden_size, weight_init=_part(weight_init, "mlp"), group=group)

    def construct(self, x):
        x = x + self.attention(self.layernorm1(x))
        return x + self.mlp(self.layernorm2(x))


def _f32():
    from ...common import dtype as mstype
    return mstype.float32


def _part(weight_init, name):
    """`weight_init` may be one initializer for all, or a dict of per-sub-cell initializers (full tensors)."""
    return weight_init.get(name) if isinstance(weight_init, dict) else weight_init
