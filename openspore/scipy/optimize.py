"""`mindspore.scipy.optimize`: `minimize` (BFGS with a backtracking Armijo line search, gradients from
openspore's autodiff), `linear_sum_assignment` (shortest augmenting paths) and `line_search` (strong Wolfe,
in line_search.py).

>>> import numpy as np, openspore as ms
>>> from openspore.scipy.optimize import minimize, linear_sum_assignment
>>> res = minimize(lambda x: ((x - 3.0) ** 2).sum(), ms.Tensor(np.zeros(2, np.float32)), method="BFGS")
>>> np.round(res.x.asnumpy(), 4).tolist(), bool(res.success)
([3.0, 3.0], True)
>>> [t.asnumpy().tolist() for t in linear_sum_assignment(ms.Tensor([[4.0, 1.0], [2.0, 0.5]]), False)]
[[0, 1], [1, 0]]
"""
from collections import namedtuple

import numpy as np

from ..core.grad_api import value_and_grad
from ..core.tensor import Tensor
from .line_search import LineSearchResults, line_search  # noqa: F401

__all__ = ["minimize", "linear_sum_assignment", "line_search"]

OptimizeResults = namedtuple("OptimizeResults", ["x", "success", "status", "fun", "jac", "hess_inv", "nfev",
                                                 "njev", "nit"])


def _bfgs(func, x0, args, tol, maxiter):
    dtype = x0.dtype
    vg = value_and_grad(lambda x: func(x, *args))

    def evaluate(x):
        f, g = vg(Tensor(x.astype(dtype.np_dtype)))
        return float(f.asnumpy()), g.asnumpy().astype(np.float64)

    x = x0.asnumpy().astype(np.float64).reshape(-1)
    n = x.size
    f, g = evaluate(x)
    nfev = njev = 1
    h = np.eye(n)
    status, nit = 1, 0
    for nit in range(1, maxiter + 1):  # noqa: B007  (the result reports the last iteration)
        if np.linalg.norm(g, np.inf) <= tol:
            status = 0
            break
        p = -h @ g
        slope = float(g @ p)
        if slope >= 0:  # not a descent direction: restart from steepest descent
            h, p, slope = np.eye(n), -g, -float(g @ g)
        step = 1.0
        while True:
            f_new, g_new = evaluate(x + step * p)
            nfev += 1
            njev += 1
            if f_new <= f + 1e-4 * step * slope or step < 1e-12:
                break
            step *= 0.5
        if step < 1e-12:
            status = 2  # the line search found no decrease: precision lost
            break
        s, y = step * p, g_new - g
        x, f, g = x + s, f_new, g_new
        sy = float(s @ y)
        if sy > 1e-12:
            rho = 1.0 / sy
            v = np.eye(n) - rho * np.outer(s, y)
            h = v @ h @ v.T + rho * np.outer(s, s)
    else:
        status = 0 if np.linalg.norm(g, np.inf) <= tol else 1
    cast = dtype.np_dtype
    return OptimizeResults(x=Tensor(x.astype(cast).reshape(x0.shape)), success=status == 0, status=status,
                           fun=Tensor(np.asarray(f, cast)), jac=Tensor(g.astype(cast).reshape(x0.shape)),
                           hess_inv=Tensor(h.astype(cast)), nfev=nfev, njev=njev, nit=nit)


def minimize(func, x0, args=(), method=None, jac=None, hess=None, hessp=None, bounds=None, constraints=(),
             tol=None, callback=None, options=None):
    """Minimise a scalar function of a 1-D Tensor with BFGS ('BFGS'; the default). `options`: maxiter (default
    200·size) and gtol (the gradient ∞-norm to stop at; `tol` sets it too, default 1e-5)."""
    if method is not None and str(method).upper() != "BFGS":
        raise ValueError(f"For 'minimize', openspore implements method 'BFGS' only, but got {method!r}.")
    if not isinstance(x0, Tensor):
        x0 = Tensor(np.asarray(x0, np.float32))
    options = dict(options or {})
    maxiter = int(options.get("maxiter", 200 * max(x0.size, 1)))
    gtol = float(options.get("gtol", tol if tol is not None else 1e-5))
    return _bfgs(func, x0, tuple(args), gtol, maxiter)


def _assign(cost):
    """Row → column assignment of minimal total cost for rows ≤ columns (shortest augmenting paths with
    potentials, O(n² m))."""
    n, m = cost.shape
    u, v = np.zeros(n + 1), np.zeros(m + 1)
    match = np.zeros(m + 1, int)  # match[j] = 1-based row assigned to column j (0: free)
    way = np.zeros(m + 1, int)
    for i in range(1, n + 1):
        match[0], j0 = i, 0
        best = np.full(m + 1, np.inf)
        used = np.zeros(m + 1, bool)
        while True:
            used[j0] = True
            i0, delta, j1 = match[j0], np.inf, 0
            for j in range(1, m + 1):
                if not used[j]:
                    reduced = cost[i0 - 1, j - 1] - u[i0] - v[j]
                    if reduced < best[j]:
                        best[j], way[j] = reduced, j0
                    if best[j] < delta:
                        delta, j1 = best[j], j
            for j in range(m + 1):
                if used[j]:
                    u[match[j]] += delta
                    v[j] -= delta
                else:
                    best[j] -= delta
            j0 = j1
            if match[j0] == 0:
                break
        while j0:
            j1 = way[j0]
            match[j0] = match[j1]
            j0 = j1
    rows = np.array([match[j] - 1 for j in range(1, m + 1) if match[j]], int)
    cols = np.array([j - 1 for j in range(1, m + 1) if match[j]], int)
    order = np.argsort(rows)
    return rows[order], cols[order]


def linear_sum_assignment(cost_matrix, maximize, dimension_limit=None):
    """(row indices, column indices) of the assignment with minimal (or maximal) total cost; rectangular
    matrices assign every row or every column. `dimension_limit` uses only the first that many columns."""
    cost = np.asarray(cost_matrix.asnumpy() if isinstance(cost_matrix, Tensor) else cost_matrix, np.float64)
    if cost.ndim != 2:
        raise ValueError(f"For 'linear_sum_assignment', the cost matrix must be 2-D, but got shape {cost.shape}.")
    if dimension_limit is not None:
        limit = int(dimension_limit.asnumpy() if isinstance(dimension_limit, Tensor) else dimension_limit)
        cost = cost[:, :limit]
    if np.isnan(cost).any():
        raise ValueError("For 'linear_sum_assignment', the cost matrix contains NaN.")
    if maximize:
        cost = -cost
    transposed = cost.shape[0] > cost.shape[1]
    rows, cols = _assign(cost.T if transposed else cost)
    if transposed:
        rows, cols = cols, rows
        order = np.argsort(rows)
        rows, cols = rows[order], cols[order]
    return Tensor(rows.astype(np.int64)), Tensor(cols.astype(np.int64))
