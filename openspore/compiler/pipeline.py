"""The compile story: which passes run, in which order, at each optimisation level.

    O0  inline, dce         (the graph as traced: calls inlined for the executor, dead values dropped)
    O1  inline, dead_branch, constant_folding, dead_branch (conditions folding made constant),
        algebraic_simplify, cse, dce, dense_fusion, momentum_gemm_fusion, layout_channels_last,
        conv_backprop_merge
    O2  O1's simplification, then a second round on what the first round exposed
    INFERENCE (+ INFERENCE_TORCH)  eval-mode Cells and GraphCells (runtime/inference.py): O1's simplification,
        freeze_weights, constant folding, fold_batchnorm, dce, then conv_epilogue_fusion (or an ONNX engine)

With graph-kernel fusion on (`set_context(enable_graph_kernel=True)`, `graph_kernel_flags`, the
`MS_GRAPH_KERNEL_FLAGS` / `MS_DEV_GRAPH_KERNEL_FLAGS` environment variables or a user-chosen `jit_level="O1"`;
compiler/graph_kernel) every level's passes are followed by `GRAPH_KERNEL_PASSES`: graph_kernel_attention,
graph_kernel_cross_entropy, graph_kernel_batchnorm, graph_kernel_expand, graph_kernel_cluster,
graph_kernel_optimizer.

Under `memory_optimize_level="O1"` (priority memory) the level's passes (and fusion's) are followed by
`MEMORY_O1`: rematerialize (cheap values with distant readers, such as a training step's forward activations read
by its backward, are recomputed for those readers instead of kept alive). It runs last, so no pass merges a
recomputed copy back into its original.

After the passes, the static memory planner (compiler/memory, `plan_memory`) gives every tensor of the final graph
and of each control-flow subgraph an offset in one arena per graph: run under `memory_optimize_level="O1"` and
written by `save_graphs` next to the IR dumps.

Every pass is a pure function Graph -> Graph (openspore/compiler/passes/, one per file, each written with
`ir.rewrite.rewrite`). Layers emit the fused primitives themselves (Dense, argmax-keeping max pooling,
ForeachApplyMomentum / ForeachAdam) in PyNative and in captured graphs alike, so no pass has to undo a layer's
mode-specific structure. `dense_fusion` stays for graphs that arrive with MindSpore's MatMul + BiasAdd: loaded
MindIR files (`nn.GraphCell`) and networks that call those primitives themselves.

The order constraints between passes are data (`ORDER`): each is checked for every pipeline when this module is
imported, so a reordered or edited pipeline that breaks one fails at once, naming the rule.

`set_context(debug_level="DEBUG")` (MindSpore's own switch; default "RELEASE") makes every graph compile
verify the IR after each pass (`ir.verifier`), naming the pass that broke it.

>>> from openspore.compiler.pipeline import run_pipeline
>>> from openspore.ir.parser import parse_graph
>>> graph = parse_graph('''graph @f(%0 x: f32[2]) {
...   %1 = Neg(%0) : f32[2]
...   %2 = Neg(%1) : f32[2]
...   return %2
... }''')
>>> names = []
>>> print(run_pipeline(graph, level="O1", dump=lambda name, g: names.append(name), verify=True))
graph @f(%0 x: f32[2]) {
  return %0
}
>>> names[0], names[-1]
('inline', 'conv_backprop_merge')
"""
import functools
import time

from .. import context
from ..ir import verifier
from .passes.algebraic_simplify import algebraic_simplify
from .passes.constant_folding import constant_folding
from .passes.cse import cse
from .passes.dce import dce
from .passes.dead_branch import dead_branch
from .passes.dense_fusion import dense_fusion
from .passes.graph_kernel_attention import graph_kernel_attention
from .passes.graph_kernel_batchnorm import graph_kernel_batchnorm
from .passes.graph_kernel_cluster import graph_kernel_cluster
from .passes.graph_kernel_cross_entropy import graph_kernel_cross_entropy
from .passes.graph_kernel_expand import graph_kernel_expand
from .passes.graph_kernel_optimizer import graph_kernel_optimizer
from .passes.inline import inline
from .passes.layout_channels_last import layout_channels_last
from .passes.momentum_gemm_fusion import momentum_gemm_fusion
from .passes.freeze_weights import freeze_weights
from .passes.fold_batchnorm import fold_batchnorm
from .passes.conv_epilogue_fusion import conv_epilogue_fusion
from .passes.conv_backprop_merge import conv_backprop_merge
from .passes.rematerialize import rematerialize
from .memory import plan_memory  # noqa: F401  (the step after the passes; runtime/cache.py calls it)

_SIMPLIFY = [
    ("dead_branch", dead_branch),
    ("constant_folding", constant_folding),
    ("dead_branch_after_folding", dead_branch),
    ("algebraic_simplify", algebraic_simplify),
    ("cse", cse),
    ("dce", dce),
]

PIPELINES = {
    "O0": [("inline", inline), ("dce", dce)],
    # channels-last pays off for convolution training steps on torch's CPU kernels (layout_channels_last.py)
    # one convolution_backward for both halves of a convolution's backward (conv_backprop_merge.py)
    # a Dense weight gradient accumulated into its Momentum by one GEMM (momentum_gemm_fusion.py)
    "O1": [("inline", inline)] + _SIMPLIFY + [("dense_fusion", dense_fusion),
                                              ("momentum_gemm_fusion", momentum_gemm_fusion),
                                              ("layout_channels_last", layout_channels_last),
                                              ("conv_backprop_merge", conv_backprop_merge)],
    "O2": [("inline", inline)] + _SIMPLIFY + [(f"{name}_2", fn) for name, fn in _SIMPLIFY[1:]]
    + [("dense_fusion", dense_fusion), ("momentum_gemm_fusion", momentum_gemm_fusion),
       ("layout_channels_last", layout_channels_last), ("conv_backprop_merge", conv_backprop_merge)],
}
DEFAULT_LEVEL = "O1"
# appended to the level's passes when graph-kernel fusion is on (each receives the GraphKernelFlags)
GRAPH_KERNEL_PASSES = [("graph_kernel_attention", graph_kernel_attention),
                       ("graph_kernel_cross_entropy", graph_kernel_cross_entropy),
                       ("graph_kernel_batchnorm", graph_kernel_batchnorm),
                       ("graph_kernel_expand", graph_kernel_expand), ("graph_kernel_cluster", graph_kernel_cluster),
                       ("graph_kernel_optimizer", graph_kernel_optimizer)]

# The inference path (runtime/inference.py: eval-mode graphs without side effects, set_context(inference_engine)):
# the level's simplification, then the Parameters as constants, folded, BatchNorm folded into convolutions and
# the convolution epilogues fused. No layout pass: the fused convolutions keep their values channels-last
# themselves, and an engine (ONNX Runtime, OpenVINO) receives the graph before the torch-only fusion.
INFERENCE = [("inline", inline)] + _SIMPLIFY + [("dense_fusion", dense_fusion), ("freeze_weights", freeze_weights),
                                                ("constant_folding_frozen", constant_folding),
                                                ("fold_batchnorm", fold_batchnorm),
                                                ("dce_frozen", dce)]
INFERENCE_TORCH = [("conv_epilogue_fusion", conv_epilogue_fusion)]
# memory_optimize_level="O1" (runtime/cache.py): after every other pass of the level and of fusion
MEMORY_O1 = [("rematerialize", rematerialize)]

# (pass, relation, other pass, why). Relations: "first" (the pass opens every pipeline that has it), "after"
# (every run of the pass comes after some run of the other, when both are present), "last" (nothing but the
# passes listed in `other` follow it). Pass names are compared without the "_2" suffix of O2's second round.
ORDER = [
    ("inline", "first", None, "the other passes and the executor work on call-free graphs"),
    ("dead_branch_after_folding", "after", "constant_folding", "it resolves the conditions folding made constant"),
    ("dce", "after", "cse", "merged duplicates and folded-away inputs are dropped by dce"),
    ("dense_fusion", "after", "dce", "a MatMul also read by a dead node has two users and is not fused"),
    ("layout_channels_last", "last", ("conv_backprop_merge", "graph_kernel_attention", "graph_kernel_cross_entropy",
                                      "graph_kernel_batchnorm", "graph_kernel_expand", "graph_kernel_cluster", "graph_kernel_optimizer"),
     "its conversions are placed for the final graph; a later rewrite could leave a channels-last value read by a "
     "layout-blind op (the merged convolution backward and the graph-kernel passes may follow: their kernels "
     "read any memory layout)"),
    ("momentum_gemm_fusion", "after", "dce", "it fuses only gradients and accumulations with a single reader, "
     "counted after cse merged duplicates and dce dropped dead readers"),
    ("conv_backprop_merge", "after", "layout_channels_last",
     "the layout pass knows the two backward halves (its anchors), not the merged node"),
    ("graph_kernel_cluster", "after", "graph_kernel_expand", "expanded composites' pieces join clusters"),
    ("graph_kernel_cluster", "after", "graph_kernel_batchnorm",
     "the ReluGrad and Add that BatchNorm's fused backward takes in must not be clustered away from it first"),
    ("graph_kernel_expand", "after", "graph_kernel_attention",
     "the attention pattern is matched on the unexpanded graph (its Softmax and SoftmaxGrad, not their pieces)"),
]


def _base(name):
    return name[:-2] if name.endswith("_2") else name


def check_order(pipelines=None):
    """The ORDER rules each pipeline breaks, as messages (empty when all hold)."""
    problems = []
    for level, passes in (pipelines or PIPELINES).items():
        names = [_base(n) for n, _ in passes]
        for name, relation, other, why in ORDER:
            where = [i for i, n in enumerate(names) if n == name]
            if not where:
                continue
            if relation == "first" and where != [0]:
                problems.append(f"{level}: '{name}' must run first only ({why})")
            elif relation == "last" and any(n not in (other or ()) for n in names[where[-1] + 1:]):
                problems.append(f"{level}: '{name}' must run last ({why})")
            elif relation == "after" and other in names and not all(
                    any(names[j] == other for j in range(i)) for i in where):
                problems.append(f"{level}: '{name}' must run after '{other}' ({why})")
    return problems


_problems = check_order(dict(PIPELINES, infer=INFERENCE + INFERENCE_TORCH)) + check_order(
    {f"{level}+graph_kernel": passes + GRAPH_KERNEL_PASSES for level, passes in PIPELINES.items()})
if _problems:
    raise RuntimeError("compiler/pipeline.py breaks its own pass order rules:\n  " + "\n  ".join(_problems))


def run_pipeline(graph, level=DEFAULT_LEVEL, dump=None, verify=None, timings=None, graph_kernel=None):
    """run_pipeline(graph, level="O1", dump=None, verify=None, timings=None, graph_kernel=None) -> optimized Graph.

    `level` names a pipeline of PIPELINES or is a list of (name, pass) itself (INFERENCE, INFERENCE_TORCH).

    `dump(name, graph)` is called after each pass (`save_graphs`); `verify=True` checks the IR after each pass
    and names the pass that broke it (None: when `set_context(debug_level="DEBUG")`); `timings`, a dict,
    receives seconds per pass name; `graph_kernel`, a GraphKernelFlags (compiler/graph_kernel/flags.py), adds
    the graph-kernel fusion passes."""
    passes = PIPELINES.get(level) if isinstance(level, str) else level
    if passes is None:
        raise ValueError(f"For 'jit', the 'jit_level' must be one of {sorted(PIPELINES)}, but got {level!r}.")
    if graph_kernel is not None:
        passes = passes + [(name, functools.partial(fn, flags=graph_kernel)) for name, fn in GRAPH_KERNEL_PASSES]
    if verify is None:
        verify = context.get_context("debug_level") == "DEBUG"
    if verify:
        _verify_after(graph, "the input graph")
    for name, fn in passes:
        start = time.perf_counter()
        graph = fn(graph)
        if timings is not None:
            timings[name] = timings.get(name, 0.0) + time.perf_counter() - start
        if dump is not None:
            dump(name, graph)
        if verify:
            _verify_after(graph, f"pass '{name}'")
    return graph


def _verify_after(graph, what):
    try:
        verifier.verify(graph)
    except verifier.IRVerificationError as exc:
        raise verifier.IRVerificationError(f"after {what}: {exc}") from None
