"""The compile story: which passes run, in which order, at each optimisation level.

    O0  inline, dce         (the graph as traced: calls inlined for the executor, dead values dropped)
    O1  inline, dead_branch, constant_folding, dead_branch (conditions folding made constant),
        algebraic_simplify, cse, pool_argmax_reuse, dce, dense_fusion, layout_channels_last, foreach_updates
    O2  O1, then a second round of simplification on what the first round exposed

Every pass is a pure function Graph -> Graph (openspore/compiler/passes/, one per file).

    >>> from openspore.compiler.pipeline import run_pipeline
    >>> optimized = run_pipeline(graph, level="O1", dump=lambda name, g: print(name), verify=True)
"""
import time

from ..ir import verifier
from .passes.algebraic_simplify import algebraic_simplify
from .passes.constant_folding import constant_folding
from .passes.cse import cse
from .passes.dce import dce
from .passes.dead_branch import dead_branch
from .passes.dense_fusion import dense_fusion
from .passes.foreach_updates import foreach_updates
from .passes.inline import inline
from .passes.layout_channels_last import layout_channels_last
from .passes.pool_argmax_reuse import pool_argmax_reuse

_SIMPLIFY = [
    ("dead_branch", dead_branch),
    ("constant_folding", constant_folding),
    ("dead_branch_after_folding", dead_branch),
    ("algebraic_simplify", algebraic_simplify),
    ("cse", cse),
    ("pool_argmax_reuse", pool_argmax_reuse),
    ("dce", dce),
]

PIPELINES = {
    "O0": [("inline", inline), ("dce", dce)],
    # channels-last pays off for convolution training steps on torch's CPU kernels (layout_channels_last.py)
    "O1": [("inline", inline)] + _SIMPLIFY + [("dense_fusion", dense_fusion),
                                              ("layout_channels_last", layout_channels_last),
                                              ("foreach_updates", foreach_updates)],
    "O2": [("inline", inline)] + _SIMPLIFY + [(f"{name}_2", fn) for name, fn in _SIMPLIFY[1:]]
    + [("dense_fusion", dense_fusion), ("layout_channels_last", layout_channels_last),
       ("foreach_updates", foreach_updates)],
}
DEFAULT_LEVEL = "O1"


def run_pipeline(graph, level=DEFAULT_LEVEL, dump=None, verify=False, timings=None):
    """run_pipeline(graph, level="O1", dump=None, verify=False, timings=None) -> optimized Graph.

    `dump(name, graph)` is called after each pass (`save_graphs`); `verify=True` checks the IR after each pass
    and names the pass that broke it; `timings`, a dict, receives seconds per pass name."""
    passes = PIPELINES.get(level)
    if passes is None:
        raise ValueError(f"For 'jit', the 'jit_level' must be one of {sorted(PIPELINES)}, but got {level!r}.")
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
