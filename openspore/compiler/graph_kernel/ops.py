"""Which primitives graph-kernel fusion expands and which it clusters (MindSpore's two default lists, for CPU).

* **Elementwise** primitives: every registered primitive built on the op table's elementwise bases (unary math,
  binary arithmetic with broadcasting, comparisons, predicates, activations and their gradients) plus `Select`,
  `Cast` and `Neg` — `elementwise_primitives()` lists them (the fusion tests run over this list).
* **Default cluster ops**: the elementwise primitives, reductions, free reshapes/broadcasts, and the
  normalisation composites (BatchNorm, LayerNorm, Softmax and their gradients) whose decomposition into basic
  reductions and elementwise ops the kernel compiler does as it lowers the cluster.
* **Default expand ops**: composites that `graph_kernel_expand` rewrites into basic primitives in the IR
  (Square, SquaredDifference, SiLU, AddN, BiasAdd, GeluExt, and GeluGradExt next to its forward GeluExt), so
  their pieces join a cluster.

* **Attention** (`attention_ops`): a training step's softmax attention, forward and backward, becomes two fused
  kernels (`graph_kernel_attention`); `--disable_cluster_ops=FlashAttention` keeps the unfused ops.
* **Loss** (`loss_ops`): a training step's sparse softmax cross-entropy loss and its gradient become one kernel
  (`graph_kernel_cross_entropy`); `--disable_cluster_ops=SparseSoftmaxCrossEntropyWithLogits` keeps the pair.
* **BatchNorm backward** (`norm_grad_ops`): a training step's ReluGrad (and the residual Add before it) and the
  BatchNormGrad reading it become one kernel (`graph_kernel_batchnorm`); `--disable_cluster_ops=BatchNormReluGrad`
  keeps them apart.
* **Optimizer updates** run in one pass over memory (`graph_kernel_optimizer`): ForeachAdam. They write their
  inputs in place, so they are a kernel choice, never a cluster member (and not in the cluster list, which other
  passes read as "cheap, side-effect-free ops"); `--disable_cluster_ops=ForeachAdam` (or an
  `--enable_cluster_ops_only` list without it) keeps the multi-tensor form.

`--enable_cluster_ops=A,B` / `--disable_cluster_ops=...` / `--enable_cluster_ops_only=...` and the expand
counterparts edit these sets by primitive name.

>>> "Add" in cluster_ops(None) and "Conv2D" not in cluster_ops(None)
True
>>> "ReLU" in elementwise_primitives()
True
"""
from ...core.primitive import PRIMITIVES

EXPAND_OPS = ("Square", "SquaredDifference", "SiLU", "AddN", "BiasAdd", "GeluExt", "GeluGradExt")
_REDUCTIONS = ("ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin")
_SHAPE = ("Reshape", "ExpandDims", "Squeeze", "BroadcastTo", "Flatten")
_COMPOSITES = ("BatchNorm", "LayerNorm", "LayerNormGrad", "Softmax", "SoftmaxGrad",
               "LogSoftmax", "GeluExt", "GeluGradExt", "BiasAdd", "BiasAddGrad", "AddN")
# BatchNormGrad is left out: the kernel compiler would compute its two per-channel sums in its own order, and
# ResNet-style training amplifies any rounding difference (even unfused ATen with 1 vs 2 threads) to ~1e-4 in
# the loss within three steps; `--enable_cluster_ops=BatchNormGrad` fuses it anyway (docs/graph_kernel.md).
_EXTRA_ELEMENTWISE = ("Select", "Cast", "Neg")
OPTIMIZER_OPS = ("ForeachAdam",)
ATTENTION_OPS = ("FlashAttention",)
LOSS_OPS = ("SparseSoftmaxCrossEntropyWithLogits",)
NORM_GRAD_OPS = ("BatchNormReluGrad",)
# outputs may share the input's storage (a view, or the input itself): see graph_kernel_cluster's scheduling
VIEW_OPS = frozenset(_SHAPE + ("Cast", "Transpose", "Identity"))


def _elementwise_bases():
    from ...ops.defs import activation, activation_smooth, math, math_logic, math_unary  # noqa: F401
    return (math._Binary, math_unary._Unary, math_logic._Compare, math_logic._Predicate,
            activation.Activation, activation.ActivationGrad)


def elementwise_primitives():
    """Names of the op table's elementwise primitives (deterministic, sorted), random ones excluded."""
    bases = _elementwise_bases()
    names = {name for name, cls in PRIMITIVES.items()
             if isinstance(cls, type) and issubclass(cls, bases) and not getattr(cls, "random", False)}
    names.update(n for n in _EXTRA_ELEMENTWISE if n in PRIMITIVES)
    return sorted(names)


_defaults = {}


def default_cluster_ops():
    if "cluster" not in _defaults:
        _defaults["cluster"] = frozenset(elementwise_primitives()) | frozenset(_REDUCTIONS + _SHAPE + _COMPOSITES)
    return _defaults["cluster"]


def _edited(default, only, enable, disable):
    if only:
        return frozenset(only)
    return (frozenset(default) | frozenset(enable)) - frozenset(disable)


def cluster_ops(flags):
    """The primitive names a cluster may hold under `flags` (a GraphKernelFlags, or None for the defaults)."""
    if flags is None:
        return default_cluster_ops()
    return _edited(default_cluster_ops(), flags.enable_cluster_ops_only, flags.enable_cluster_ops,
                   flags.disable_cluster_ops)


def _cluster_choice(names, flags):
    """`names` narrowed by the cluster-op flags: `enable_cluster_ops_only` keeps only those listed, otherwise
    `disable_cluster_ops` removes its names; no flags keep them all."""
    if flags is None:
        return frozenset(names)
    if flags.enable_cluster_ops_only:
        return frozenset(names) & frozenset(flags.enable_cluster_ops_only)
    return frozenset(names) - frozenset(flags.disable_cluster_ops)


def optimizer_ops(flags):
    """The optimizer primitives run in one pass under `flags` (None: the defaults).

    >>> sorted(optimizer_ops(None))
    ['ForeachAdam']
    """
    return _cluster_choice(OPTIMIZER_OPS, flags)


def attention_ops(flags):
    """The attention patterns fused under `flags` (None: the defaults): FlashAttention, the softmax attention's
    forward and backward as two fused kernels (compiler/passes/graph_kernel_attention.py).

    >>> sorted(attention_ops(None))
    ['FlashAttention']
    """
    return _cluster_choice(ATTENTION_OPS, flags)


def loss_ops(flags):
    """The loss patterns fused under `flags` (None: the defaults): SparseSoftmaxCrossEntropyWithLogits, a
    training step's loss and gradient from one softmax (compiler/passes/graph_kernel_cross_entropy.py).

    >>> sorted(loss_ops(None))
    ['SparseSoftmaxCrossEntropyWithLogits']
    """
    return _cluster_choice(LOSS_OPS, flags)


def norm_grad_ops(flags):
    """The BatchNorm-backward patterns fused under `flags` (None: the defaults): BatchNormReluGrad, a training
    step's ReluGrad (+ residual Add) and BatchNormGrad as one kernel (compiler/passes/graph_kernel_batchnorm.py).

    >>> sorted(norm_grad_ops(None))
    ['BatchNormReluGrad']
    """
    return _cluster_choice(NORM_GRAD_OPS, flags)


def expand_ops(flags):
    """The composite primitive names `graph_kernel_expand` rewrites under `flags` (None: the defaults)."""
    if flags is None:
        return frozenset(EXPAND_OPS)
    return _edited(EXPAND_OPS, flags.enable_expand_ops_only, flags.enable_expand_ops, flags.disable_expand_ops)
