"""Shared checks for the pass tests: a pass turns IR text `before` into `after`, leaves its input untouched,
passes the verifier, and computes the same values (ir.interpret.run_graph on concrete Tensors)."""
import numpy as np

import openspore as ms
from openspore.common import dtype as mstype
from openspore.ir import print_graph
from openspore.ir.interpret import run_graph
from openspore.ir.parser import parse_graph
from openspore.ir.verifier import verify


def weights_for(text, seed=0):
    """A Parameter for every `weight "name"` in the text (shapes from the abstracts)."""
    g = parse_graph(text)
    rng = np.random.default_rng(seed)
    found = {}
    for sub in g.all_graphs():
        for n in sub.nodes:
            if n.op == "weight" and n.name not in found:
                a = n.abstract
                found[n.name] = ms.Parameter(ms.Tensor(rng.uniform(0.5, 1.5, a.shape).astype(a.dtype.np_dtype)),
                                             name=n.name)
    return found


def _random_args(graph, seed=0):
    rng = np.random.default_rng(seed)
    args = []
    for n in graph.inputs:
        a = n.abstract
        if a.dtype == mstype.bool_:
            args.append(ms.Tensor(rng.uniform(size=a.shape) < 0.5))
        else:
            args.append(ms.Tensor(rng.uniform(-2, 2, a.shape).astype(a.dtype.np_dtype)))
    return args


def _flat(value):
    if isinstance(value, tuple):
        return [x for v in value for x in _flat(v)]
    return [value]


def _run(graph, args, weights):
    """Outputs and final Parameter values, with Parameters restored afterwards (passes may keep Assigns)."""
    saved = {k: p.asnumpy().copy() for k, p in weights.items()}
    ms.set_seed(7)
    out = [v.asnumpy() if hasattr(v, "asnumpy") else v for v in _flat(run_graph(graph, args))]
    after = {k: p.asnumpy().copy() for k, p in weights.items()}
    for k, p in weights.items():
        p.set_data(ms.Tensor(saved[k]))
    return out, after


def assert_same_values(before, after, weights, seeds=(0, 1)):
    for seed in seeds:
        args = _random_args(before, seed)
        want, want_w = _run(before, args, weights)
        got, got_w = _run(after, args, weights)
        assert len(want) == len(got)
        for w, g in zip(want, got):
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
        for k in want_w:
            np.testing.assert_allclose(got_w[k], want_w[k], rtol=1e-5, atol=1e-6)


def check(pass_fn, before, after, run=True):
    """`pass_fn` turns IR text `before` into `after`, leaves its input intact, verifies, computes the same."""
    weights = weights_for(before)
    g = parse_graph(before, weights=weights)
    verify(g)
    original = print_graph(g)
    out = pass_fn(g)
    assert print_graph(g) == original, "the pass modified its input graph"
    verify(out)
    # the expected text goes through the parser too, so it may leave out default attributes
    assert print_graph(out, with_debug=False) == print_graph(parse_graph(after), with_debug=False)
    if run:
        assert_same_values(g, out, weights)
    return out
