"""The exact mode: minimum-arena placement as a constraint model, under a time limit, warm-started.

Each tensor is a rectangle: its lifetime on the time axis (fixed) and `[offset, offset + size)` on the address
axis (the unknown); rectangles must not overlap and the arena peak is minimised. Sizes and offsets are counted
in alignment units (every size is a multiple of the 512 B alignment), which keeps the numbers small.

Solvers, the first one importable:
* OR-Tools CP-SAT (`pip install ortools`): `AddNoOverlap2D` over interval variables, hinted with the best
  heuristic's offsets, the heuristic peak as upper bound and the live-bytes maximum as lower bound. (ortools
  wheels pin protobuf 6 while openspore needs protobuf 7, so pip cannot resolve it inside an extra of ours; it
  runs with protobuf 7 installed beside it.)
* HiGHS through `scipy.optimize.milp`: the same model as a MILP, one binary per pair of tensors whose lifetimes
  overlap ("i below j" or "j below i", big-M = the heuristic peak). HiGHS takes no hint here, so the heuristic
  placement is kept whenever it is not beaten.

The result carries the proven bound and the gap `(peak - bound) / peak` (0 when optimal).
"""
import time

from .heuristics import Placement, conflicts
from .lifetimes import ALIGNMENT


class ExactResult:
    """`placement` (never worse than the warm start), `solver`, `status` ('optimal' | 'feasible' | 'timeout'),
    `bound` (bytes no placement can beat), `gap`, `seconds`."""

    __slots__ = ("placement", "solver", "status", "bound", "gap", "seconds")

    def __init__(self, placement, solver, status, bound, seconds):
        self.placement, self.solver, self.status, self.bound, self.seconds = placement, solver, status, bound, seconds
        peak = placement.peak
        self.gap = 0.0 if peak == 0 else max(0.0, (peak - bound) / peak)

    def __repr__(self):
        return (f"ExactResult({self.solver}, {self.status}, peak={self.placement.peak}, bound={self.bound}, "
                f"gap={self.gap:.2%}, {self.seconds:.2f} s)")


def available_solvers():
    """Names of the exact solvers importable here, preferred first."""
    out = []
    try:
        from ortools.sat.python import cp_model  # noqa: F401
        out.append("cpsat")
    except ImportError:
        pass
    try:
        from scipy.optimize import milp  # noqa: F401
        out.append("highs")
    except ImportError:
        pass
    return out


def solve_exact(tensors, warm, lower, time_limit=10.0, solver=None, unit=ALIGNMENT):
    """Minimise the arena for `tensors` starting from `warm` (a Placement); `lower`: bytes live at the peak."""
    start = time.perf_counter()
    choices = available_solvers()
    if solver is None:
        if not choices:
            raise RuntimeError("the exact memory planner needs OR-Tools (pip install ortools) or SciPy "
                               "(pip install scipy); neither is importable")
        solver = choices[0]
    elif solver not in ("cpsat", "highs"):
        raise ValueError(f"exact memory planning: solver must be 'cpsat' or 'highs', got {solver!r}")
    elif solver not in choices:
        raise RuntimeError(f"exact memory planning: solver {solver!r} is not importable here (available: {choices})")
    if not tensors or warm.peak <= lower:
        return ExactResult(warm, solver, "optimal", warm.peak, time.perf_counter() - start)
    if any(t.size % unit for t in tensors):
        unit = 1
    run = _cpsat if solver == "cpsat" else _highs
    offsets, status, bound_units = run(tensors, warm, lower, time_limit, unit)
    bound = max(lower, bound_units * unit)
    if offsets is not None:
        peak = max(offsets[t.key] + t.size for t in tensors)
        if peak < warm.peak:
            return ExactResult(Placement(offsets, peak, f"exact ({solver})"), solver, status,
                               min(bound, peak), time.perf_counter() - start)
        if peak == warm.peak and status == "optimal":
            bound = peak
    return ExactResult(warm, solver, status, min(bound, warm.peak), time.perf_counter() - start)


def _cpsat(tensors, warm, lower, time_limit, unit):
    from ortools.sat.python import cp_model
    model = cp_model.CpModel()
    top = warm.peak // unit
    peak = model.NewIntVar(-(-lower // unit), top, "peak")
    offs, xs, ys = {}, [], []
    for t in tensors:
        s = t.size // unit
        o = model.NewIntVar(0, top - s, f"o{t.key}")
        offs[t.key] = o
        xs.append(model.NewFixedSizeIntervalVar(t.start, t.end - t.start + 1, f"x{t.key}"))
        ys.append(model.NewFixedSizeIntervalVar(o, s, f"y{t.key}"))
        model.Add(o + s <= peak)
        model.AddHint(o, warm.offsets[t.key] // unit)
    model.AddNoOverlap2D(xs, ys)
    model.Minimize(peak)
    cp = cp_model.CpSolver()
    cp.parameters.max_time_in_seconds = float(time_limit)
    cp.parameters.num_workers = 2  # the machine this runs on is small and shared
    code = cp.Solve(model)
    if code not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return None, "timeout", int(cp.BestObjectiveBound()) if code != cp_model.INFEASIBLE else 0
    offsets = {t.key: cp.Value(offs[t.key]) * unit for t in tensors}
    status = "optimal" if code == cp_model.OPTIMAL else "feasible"
    return offsets, status, int(round(cp.BestObjectiveBound()))


def _highs(tensors, warm, lower, time_limit, unit):
    import numpy as np
    from scipy.optimize import Bounds, LinearConstraint, milp
    from scipy.sparse import coo_matrix
    neighbours = conflicts(tensors)
    index = {t.key: i for i, t in enumerate(tensors)}
    pairs = [(index[t.key], index[n.key]) for t in tensors for n in neighbours[t.key] if index[t.key] < index[n.key]]
    n, m = len(tensors), len(pairs)
    size = np.array([t.size // unit for t in tensors], float)
    big = warm.peak // unit
    # variables: offsets (n), peak (1), one binary per conflicting pair (m): 1 -> i below j
    nvar = n + 1 + m
    data, rows, cols, hi = [], [], [], []

    def add(entries, upper):  # one sparse row: sum(coef * var) <= upper
        r = len(hi)
        for col, coef in entries:
            rows.append(r), cols.append(col), data.append(coef)
        hi.append(upper)

    for i in range(n):
        add([(i, 1), (n, -1)], -size[i])                              # o_i + s_i <= peak
    for k, (i, j) in enumerate(pairs):
        z = n + 1 + k
        add([(i, 1), (j, -1), (z, big)], big - size[i])               # o_i + s_i <= o_j + M(1 - z)
        add([(j, 1), (i, -1), (z, -big)], -size[j])                   # o_j + s_j <= o_i + M z
    matrix = coo_matrix((data, (rows, cols)), shape=(len(hi), nvar)).tocsr()
    lo = np.full(len(hi), -np.inf)
    cost = np.zeros(nvar)
    cost[n] = 1
    integrality = np.concatenate([np.ones(n + 1), np.ones(m)])
    upper = np.concatenate([big - size, [big], np.ones(m)])
    lower_b = np.concatenate([np.zeros(n), [-(-lower // unit)], np.zeros(m)])
    res = milp(cost, constraints=LinearConstraint(matrix, lo, np.array(hi)), integrality=integrality,
               bounds=Bounds(lower_b, upper), options={"time_limit": float(time_limit), "disp": False})
    bound = getattr(res, "mip_dual_bound", None)
    bound = int(np.ceil(bound - 1e-9)) if bound is not None and np.isfinite(bound) else 0
    if res.x is None:
        return None, "timeout", bound
    offsets = {t.key: int(round(res.x[index[t.key]])) * unit for t in tensors}
    return offsets, "optimal" if res.status == 0 else "feasible", bound
