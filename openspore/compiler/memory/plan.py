"""The memory plan of a compiled graph: every tensor's offset in one arena per graph, with its figures.

`plan_memory(graph)` plans the graph and each nested control-flow subgraph (`if` branches, `while` condition and
body, `call` targets) on its own: a subgraph's tensors live while it runs, inside the node that runs it. Each
`GraphPlan` reports the lower bound (most bytes live at any schedule position), the planned peak, their ratio,
the heuristic that won and, in exact mode, the solver's status, proven bound and gap.

>>> from openspore.ir.parser import parse_graph
>>> g = parse_graph('''graph @f(%0 x: f32[256]) {
...   %1 = Neg(%0) : f32[256]
...   %2 = Exp(%1) : f32[256]
...   %3 = Neg(%2) : f32[256]
...   %4 = Exp(%3) : f32[256]
...   return %4
... }''')
>>> plan = plan_memory(g)[0]
>>> plan.lower_bound, plan.peak, plan.no_reuse
(2048, 2048, 4096)
>>> check_plan(plan)  # no two simultaneously-live tensors share a byte
"""
from . import heuristics
from .exact import solve_exact
from .lifetimes import ALIGNMENT, lower_bound, tensor_lifetimes


class GraphPlan:
    """The plan of one graph: `tensors` (TensorLife list), `offsets` (key -> byte offset), `peak`,
    `lower_bound`, `no_reuse` (every tensor its own bytes), `heuristic` (winning placement), `tried`
    ({heuristic name: peak}), `exact` (ExactResult or None)."""

    __slots__ = ("graph_name", "tensors", "offsets", "peak", "lower_bound", "no_reuse", "heuristic", "tried",
                 "exact", "schedule_length")

    def __init__(self, graph_name, tensors, placement, lower, tried, exact, schedule_length):
        self.graph_name, self.tensors, self.schedule_length = graph_name, tensors, schedule_length
        self.offsets, self.peak, self.heuristic = placement.offsets, placement.peak, placement.name
        self.lower_bound = lower
        self.no_reuse = sum(t.size for t in tensors)
        self.tried = {p.name: p.peak for p in tried}
        self.exact = exact

    @property
    def ratio(self):
        """planned peak / lower bound (1.0 is the best any placement can do)."""
        return self.peak / self.lower_bound if self.lower_bound else 1.0

    def summary(self):
        line = (f"@{self.graph_name}: {len(self.tensors)} tensors, lower bound {self.lower_bound} B, planned peak "
                f"{self.peak} B (ratio {self.ratio:.4f}), no reuse {self.no_reuse} B, placement: "
                f"{self.heuristic}")
        if self.exact is not None:
            e = self.exact
            line += (f"; exact ({e.solver}): {e.status}, bound {e.bound} B, gap {e.gap:.2%}, "
                     f"{e.seconds:.2f} s")
        return line

    def to_text(self):
        """The report `save_graphs` writes: the figures, every heuristic's peak, then one line per tensor."""
        lines = [self.summary(), "heuristics (peak bytes):"]
        lines += [f"  {name}: {peak}" for name, peak in self.tried.items()]
        lines.append("tensors (name, offset, size, lifetime [start, end] in schedule positions):")
        for t in self.tensors:
            lines.append(f"  {t.name}\toffset {self.offsets[t.key]}\tsize {t.size}\t[{t.start}, {t.end}]")
        return "\n".join(lines) + "\n"

    def __repr__(self):
        return f"GraphPlan({self.summary()})"


def plan_graph(graph, exact=False, time_limit=10.0, solver=None, alignment=ALIGNMENT, aliases=()):
    """The GraphPlan of `graph` alone (not its subgraphs); `aliases`: see lifetimes.tensor_lifetimes."""
    tensors = tensor_lifetimes(graph, alignment, aliases)
    lower = lower_bound(tensors)
    best, tried = heuristics.solve(tensors)
    result = None
    if exact:
        result = solve_exact(tensors, best, lower, time_limit=time_limit, solver=solver, unit=alignment)
        best = result.placement
    return GraphPlan(graph.name, tensors, best, lower, tried, result, len(graph.nodes))


def plan_memory(graph, exact=False, time_limit=10.0, solver=None, alignment=ALIGNMENT, aliases=()):
    """GraphPlans of `graph` and every nested subgraph (each planned once), the top graph first. `aliases`: the
    primitives whose kernels return views on the backend that runs the graph (`backend.view_primitives`)."""
    plans, seen = [], set()
    for g in graph.all_graphs():
        if id(g) in seen:
            continue
        seen.add(id(g))
        plans.append(plan_graph(g, exact, time_limit, solver, alignment, aliases))
    return plans


def check_plan(plan):
    """Raise AssertionError naming the first two simultaneously-live tensors that share bytes, or a tensor
    outside the planned peak. Checked pair by pair, independently of the planner's conflict lists."""
    ts = plan.tensors
    for t in ts:
        off = plan.offsets[t.key]
        if off < 0 or off + t.size > plan.peak:
            raise AssertionError(f"@{plan.graph_name}: {t.name} at [{off}, {off + t.size}) lies outside the "
                                 f"arena of {plan.peak} B")
    for i, a in enumerate(ts):
        oa = plan.offsets[a.key]
        for b in ts[i + 1:]:
            if a.start <= b.end and b.start <= a.end:
                ob = plan.offsets[b.key]
                if oa < ob + b.size and ob < oa + a.size:
                    raise AssertionError(f"@{plan.graph_name}: {a.name} [{oa}, {oa + a.size}) and {b.name} "
                                         f"[{ob}, {ob + b.size}) overlap while both live (lifetimes "
                                         f"[{a.start}, {a.end}] and [{b.start}, {b.end}])")
