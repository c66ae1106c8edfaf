"""The static memory planner (compiler/memory): lifetimes, heuristics, the exact mode, and plans of real
compiled graphs (every graph compiled for a sample of networks: train steps with forward, backward and
optimizer, control-flow subgraphs, a compiled backward)."""
import itertools
import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import openspore as ms
from openspore import backends, nn, ops
from openspore.compiler.memory import check_plan, plan_graph, plan_memory
from openspore.compiler.memory.exact import available_solvers, solve_exact
from openspore.compiler.memory.heuristics import Placement, place, solve
from openspore.compiler.memory.lifetimes import TensorLife, lower_bound, tensor_lifetimes
from openspore.ir.parser import parse_graph
from openspore.nn import cell as cell_module
from openspore.runtime.arena import check_arena


# ---- lifetimes -------------------------------------------------------------------------------------
def test_lifetimes_follow_tuples_and_outputs():
    g = parse_graph('''graph @f(%0 x: f32[4, 256]) {
      %1 = Exp(%0) : f32[4, 256]
      %2 = Neg(%0) : f32[4, 256]
      %3 = make_tuple(%1, %2) : (f32[4, 256], f32[4, 256])
      %4 = tuple_get_item[1](%3) : f32[4, 256]
      %5 = Sin(%0) : f32[4, 256]
      %6 = Mul(%4, %5) : f32[4, 256]
      return %6
    }''')
    spans = {t.name.split(":")[1]: (t.start, t.end, t.raw_size) for t in tensor_lifetimes(g)}
    # Exp is held by the tuple until the tuple's last reader (position 3), as the executor's tuple holds it;
    # Neg is read through the tuple by Mul at position 5; the output lives to the end (6 = len(nodes))
    assert spans == {"Exp": (0, 3, 4096), "Neg": (1, 5, 4096), "Sin": (4, 5, 4096), "Mul": (5, 6, 4096)}


def test_lower_bound_is_the_most_bytes_live_at_once():
    ts = [TensorLife(i, s, s, a, b, str(i)) for i, (s, a, b) in enumerate([(512, 0, 3), (1024, 1, 1), (2048, 2, 4)])]
    assert lower_bound(ts) == 512 + 2048


# ---- heuristics and the checker -------------------------------------------------------------------
_lifetime = st.tuples(st.integers(1, 8), st.integers(0, 10), st.integers(0, 4))


def _tensors(specs):
    return [TensorLife(i, units * 512, units * 512, start, start + length, f"t{i}")
            for i, (units, start, length) in enumerate(specs)]


class _Plan:
    def __init__(self, tensors, placement):
        self.graph_name, self.tensors, self.offsets, self.peak = "g", tensors, placement.offsets, placement.peak


@settings(max_examples=60, deadline=None)
@given(st.lists(_lifetime, min_size=1, max_size=25))
def test_every_heuristic_places_without_overlap(specs):
    ts = _tensors(specs)
    best, tried = solve(ts)
    assert len(tried) == 10 and best.peak == min(p.peak for p in tried)
    for p in tried:
        check_plan(_Plan(ts, p))
        assert lower_bound(ts) <= p.peak <= sum(t.size for t in ts)


def test_checker_names_overlapping_live_tensors():
    ts = _tensors([(1, 0, 2), (1, 1, 2), (1, 5, 0)])
    check_plan(_Plan(ts, Placement({0: 0, 1: 512, 2: 0}, 1024, "ok")))  # t2 reuses t0's bytes after it died
    with pytest.raises(AssertionError, match="t0 .* and t1 .* overlap while both live"):
        check_plan(_Plan(ts, Placement({0: 0, 1: 256, 2: 0}, 1024, "bad")))
    with pytest.raises(AssertionError, match="outside the arena"):
        check_plan(_Plan(ts, Placement({0: 0, 1: 512, 2: 0}, 512, "short")))


def _brute_force(ts):
    """The optimum: every order, each tensor at its lowest free offset (this reaches any optimal placement)."""
    return min(place(ts, list(order), "firstfit")[1] for order in itertools.permutations(ts))


@pytest.mark.parametrize("solver", ["cpsat", "highs"])
@settings(max_examples=25, deadline=None)
@given(specs=st.lists(_lifetime, min_size=2, max_size=6))
def test_exact_mode_matches_brute_force(solver, specs):
    if solver not in available_solvers():
        pytest.skip(f"{solver} is not installed")
    ts = _tensors(specs)
    best, _ = solve(ts)
    result = solve_exact(ts, best, lower_bound(ts), time_limit=20, solver=solver)
    assert result.status == "optimal" and result.gap == 0.0
    assert result.placement.peak == _brute_force(ts) == result.bound
    check_plan(_Plan(ts, result.placement))


def test_exact_mode_beats_a_heuristic_gap():
    # greedy by size puts the long 2-unit tensor first, at the bottom; the optimum stacks the short ones
    # under it. Whatever the heuristics find, the exact mode closes the gap to the brute-force optimum.
    ts = _tensors([(2, 0, 5), (3, 0, 1), (1, 2, 1), (3, 4, 2), (2, 2, 0), (1, 6, 0)])
    best, _ = solve(ts)
    result = solve_exact(ts, best, lower_bound(ts), time_limit=20)
    assert result.placement.peak == _brute_force(ts) <= best.peak


def test_exact_mode_refuses_an_unknown_solver():
    ts = _tensors([(1, 0, 1)])
    with pytest.raises(ValueError, match="solver must be 'cpsat' or 'highs'"):
        solve_exact(ts, solve(ts)[0], 512, solver="glpk")


# ---- every graph compiled for a sample of networks -------------------------------------------------
class _Block(nn.Cell):
    def __init__(self, c):
        super().__init__()
        self.conv, self.bn, self.relu = nn.Conv2d(c, c, 3, pad_mode="pad", padding=1), nn.BatchNorm2d(c), nn.ReLU()

    def construct(self, x):
        return self.relu(self.bn(self.conv(x)) + x)


class _ConvNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.stem, self.blocks = nn.Conv2d(3, 8, 3, pad_mode="pad", padding=1), nn.SequentialCell([_Block(8), _Block(8)])
        self.pool, self.flatten, self.fc = nn.AdaptiveAvgPool2d((1, 1)), nn.Flatten(), nn.Dense(8, 10)

    def construct(self, x):
        return self.fc(self.flatten(self.pool(self.blocks(self.stem(x)))))


class _Encoder(nn.Cell):
    def __init__(self, d=32):
        super().__init__()
        self.ln, self.fc1, self.fc2, self.gelu = nn.LayerNorm((d,)), nn.Dense(d, 4 * d), nn.Dense(4 * d, d), nn.GELU()
        self.head = nn.Dense(d, 10)

    def construct(self, x):
        y = x + self.fc2(self.gelu(self.fc1(self.ln(x))))
        return self.head(y.mean(axis=1))


def _train(net, x, y):
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.Momentum(net.trainable_params(), 0.01, 0.9))
    step.set_train()
    step(x, y)
    return step  # the graph caches are keyed weakly by the cell: the caller keeps it alive


@pytest.fixture
def memory_o1(monkeypatch):
    monkeypatch.setenv("OPENSPORE_O1_ARENA", "1")  # the executed placement is checked too
    ms.set_context(memory_optimize_level="O1")
    yield
    ms.set_context(memory_optimize_level="O0")


def _compiled_plans(caches):
    out = []
    for cache in caches:
        for entry in cache.entries.values():
            assert entry.memory_plan is not None, cache.name
            out.append((cache.name, entry.graph, entry.memory_plan, entry.compiled))
            if entry.vjp is not None:
                out.extend(_compiled_plans([entry.vjp]))
    return out


def test_every_compiled_graph_of_sample_networks_is_planned_without_overlap(memory_o1):
    rng = np.random.default_rng(0)
    ms.set_context(mode=ms.GRAPH_MODE)
    runner = cell_module._graph_runner
    before = set(runner.caches.keys())
    keep = [_train(_ConvNet(), ms.Tensor(rng.standard_normal((4, 3, 8, 8), np.float32)),
                   ms.Tensor(rng.integers(0, 10, 4).astype(np.int32)))]
    keep.append(_train(_Encoder(), ms.Tensor(rng.standard_normal((2, 6, 32), np.float32)),
           ms.Tensor(rng.integers(0, 10, 2).astype(np.int32))))
    ms.set_context(mode=ms.PYNATIVE_MODE)

    @ms.jit
    def loop(x, n):
        i = ms.Tensor(0, ms.int32)
        while i < n:
            if x.sum() > 0:
                x = ops.sin(x) * 2
            else:
                x = x + 1
            i = i + 1
        return x

    @ms.jit
    def smooth(x):
        return (ops.tanh(x) * ops.exp(x)).sum()

    loop(ms.Tensor(np.ones((3, 4), np.float32)), ms.Tensor(3, ms.int32))
    ms.grad(lambda v: smooth(v) * 2)(ms.Tensor(np.linspace(-1, 1, 12, dtype=np.float32)))  # compiled backward
    caches = [c for k, c in runner.caches.items() if k not in before] + [loop.graph_cache, smooth.graph_cache]
    compiled = _compiled_plans(caches)
    assert len(compiled) >= 5
    subgraphs = arenas = 0
    for name, graph, plans, runner_fn in compiled:
        if getattr(runner_fn, "arena", None) is not None:  # the placement as executed, from the views' addresses
            check_arena(runner_fn.arena, plans[0])
            arenas += 1
        graphs = {id(g): g for g in graph.all_graphs()}
        assert len(plans) == len(graphs), name  # one plan per graph, control-flow subgraphs included
        subgraphs += len(plans) - 1
        for plan, g in zip(plans, graphs.values()):
            check_plan(plan)
            assert plan.graph_name == g.name
            assert plan.lower_bound <= plan.peak <= plan.no_reuse
            views = backends.current().view_primitives  # they make no array: no planned tensor
            produced = sum(1 for n in g.nodes if n.is_primitive and hasattr(n.abstract, "shape")
                           and n.abstract.size > 0 and n.op_name not in views and n.op_name != "Depend"
                           and not n.op.side_effect)
            assert len(plan.tensors) >= produced, name
    assert subgraphs >= 3  # the while condition and body, the if branches
    assert arenas >= 3  # the two train steps and the compiled backward ran in arenas


def test_train_step_plan_reuses_memory():
    rng = np.random.default_rng(1)
    ms.set_context(mode=ms.GRAPH_MODE, memory_optimize_level="O1")
    try:
        step = _train(_ConvNet(), ms.Tensor(rng.standard_normal((8, 3, 16, 16), np.float32)),
               ms.Tensor(rng.integers(0, 10, 8).astype(np.int32)))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE, memory_optimize_level="O0")
    (entry,) = cell_module._graph_runner.caches[step].entries.values()
    plan = entry.memory_plan[0]
    # the forward activations are freed as the backward consumes them: the arena is well under no reuse
    assert plan.peak < 0.6 * plan.no_reuse and plan.ratio <= 1.05


def test_default_level_plans_nothing_and_o1_recompiles_with_a_plan():
    @ms.jit
    def f(x):
        return ops.exp(x) + 1

    x = ms.Tensor(np.ones(4, np.float32))
    f(x)
    assert f.graph_cache.last_entry.memory_plan is None  # O0 (MindSpore's default): no planning cost
    ms.set_context(memory_optimize_level="O1")
    try:
        f(x)
    finally:
        ms.set_context(memory_optimize_level="O0")
    plans = f.graph_cache.last_entry.memory_plan
    assert plans is not None and plans[0].peak >= plans[0].lower_bound > 0


def test_plan_text_lists_every_tensor():
    g = parse_graph('''graph @f(%0 x: f32[300]) {
      %1 = Neg(%0) : f32[300]
      %2 = Exp(%1) : f32[300]
      return %2
    }''')
    plan = plan_graph(g, exact=True, time_limit=5)
    # 1200 B each, aligned to 1536 B; both live at position 1 (Exp reads Neg while writing its output)
    assert [(t.raw_size, t.size) for t in plan.tensors] == [(1200, 1536), (1200, 1536)]
    text = plan.to_text()
    assert "lower bound 3072 B, planned peak 3072 B (ratio 1.0000)" in text and "exact (" in text
    assert text.count("\toffset ") == 2


def test_save_graphs_writes_the_plan(tmp_path):
    @ms.jit
    def f(x):
        return ops.sin(x) * ops.cos(x)

    ms.set_context(save_graphs=True, save_graphs_path=str(tmp_path))
    try:
        f(ms.Tensor(np.ones((8, 8), np.float32)))
    finally:
        ms.set_context(save_graphs=False, save_graphs_path=".")
    (plan_file,) = [f for f in os.listdir(tmp_path) if f.endswith("_memory_plan.txt")]
    text = (tmp_path / plan_file).read_text()
    assert "lower bound" in text and "planned peak" in text and "Sin" in text and "Mul" in text


def test_plan_memory_covers_nested_subgraphs_once():
    g = parse_graph('''graph @f(%0 x: f32[64]) {
      %1 = Neg(%0) : f32[64]
      return %1
    }''')
    assert [p.graph_name for p in plan_memory(g)] == ["f"]
