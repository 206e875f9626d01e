"""Independent references for the per-object class intervals (used by several test files)."""

import numpy as np
from scipy import optimize, stats


def cp(k, n, alpha):
    """Two-sided Clopper-Pearson bounds of k / n at level 1 - alpha, from the beta quantiles."""
    low = 0.0 if k == 0 else stats.beta.ppf(alpha / 2, k, n - k + 1)
    high = 1.0 if k == n else stats.beta.ppf(1 - alpha / 2, k + 1, n - k)
    return low, high


def bonferroni_box(counts, alpha=0.05):
    """Simultaneous Clopper-Pearson box of the shares: each at level 1 - alpha / K."""
    counts = np.asarray(counts)
    bounds = np.array([cp(k, counts.sum(), alpha / counts.size) for k in counts])
    return bounds[:, 0], bounds[:, 1]


def box_simplex_range(low, high, delta2, n_directions=150, seed=0):
    """min and max of p' Delta p over {low <= p <= high, sum p = 1}, by other means.

    The minimum of a concave function over a polytope is at a vertex: the vertices are found
    as the solutions of linear programs (scipy's HiGHS) in random directions. The maximum is
    found by SLSQP from several starting points.
    """
    k = len(low)
    rng = np.random.default_rng(seed)
    bounds = list(zip(low, high, strict=True))
    vertices = []
    for _ in range(n_directions):
        res = optimize.linprog(rng.normal(size=k), A_eq=np.ones((1, k)), b_eq=[1.0], bounds=bounds,
                               method="highs")
        vertices.append(res.x)
    theta_min = min(float(v @ delta2 @ v) for v in vertices)
    best = -np.inf
    for start in vertices[:20]:
        res = optimize.minimize(lambda p: -(p @ delta2 @ p), start, jac=lambda p: -2 * delta2 @ p,
                                bounds=bounds, method="SLSQP",
                                constraints=[{"type": "eq", "fun": lambda p: p.sum() - 1,
                                              "jac": lambda p: np.ones_like(p)}],
                                options={"ftol": 1e-15, "maxiter": 500})
        # scipy >= 1.16's SLSQP meets sum p = 1 only to about 3e-5 (the value then overshoots by
        # twice that): move the excess onto the coordinates' slack, inside the box, and evaluate there
        p = np.clip(res.x, low, high)
        excess = p.sum() - 1.0
        slack = (p - low) if excess > 0 else (high - p)
        if slack.sum() > 0:
            p = np.clip(p - excess * slack / slack.sum(), low, high)
        best = max(best, float(p @ delta2 @ p))
    return theta_min, best
