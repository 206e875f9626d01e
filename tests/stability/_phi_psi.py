"""Data and independent computations shared by the phi / psi tests: APS's reference cases,
the share of disagreeing ordered pairs per object, Krippendorff's ordinal distances from the
level counts, Clopper-Pearson bounds, the least sum of squares over a box.
"""

import math
import warnings
from collections import Counter

import numpy as np
import pytest

from predstab import (
    PredstabDataWarning,
)
from validation.aps import DIFFERENCES, load_cases

CASES = load_cases()


BY_ID = {c["id"]: c for c in CASES}


VALUED = [c for c in CASES if c["result"] is not None]


ERRORS = [c for c in CASES if c["result"] is None and c["id"] not in DIFFERENCES]


RTOL = 1e-12  # APS 1.0.1 vs predstab: worst case seen 2e-14


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def _close(r_value, value, rtol=RTOL):
    if r_value is None:
        return math.isnan(value)
    return abs(value - r_value) <= rtol * abs(r_value)


def _quiet_keep(category, fn, *args, **kwargs):
    """Call fn ignoring every warning except ``category``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        warnings.simplefilter("always", category)
        return fn(*args, **kwargs)


def _random_case(rng, scale, n=7, r=6, k=4):
    levels = [f"L{i}" for i in range(k)]
    if scale == "metric":
        return rng.normal(size=(n, r)), rng.normal(size=30), None
    pred = rng.choice(levels, size=(n, r))
    base = np.concatenate([levels, rng.choice(levels, size=25)])
    return pred, base, levels if scale == "ordinal" else None


def predictions():
    # 40 objects x 5 refits of class predictions: most objects split 2:3, every 7th 3:2 in
    # another pattern, object 5 unanimous -- many exact ties
    p = np.tile(np.array([[0, 0, 1, 1, 1]]), (40, 1))
    p[::7] = [0, 1, 0, 1, 0]
    p[5] = [1, 1, 1, 1, 1]
    return p


def pair_disagreement(row):
    """Share of ordered pairs of a row's non-missing predictions that differ."""
    values = [v for v in row if v is not None and not (isinstance(v, float) and np.isnan(v))]
    r = len(values)
    if r < 2:
        return np.nan
    same = sum(n * n for n in Counter(values).values())
    return (r * r - same) / (r * (r - 1))


def gini(values):
    counts = np.array(list(Counter(values).values()), dtype=float)
    p = counts / counts.sum()
    return 1.0 - float(np.sum(p * p))


def ordinal_reference(pred, base, levels):
    """Krippendorff's ordinal D_o per object and D_e, pair by pair, from the level counts."""
    m = np.array([sum(1 for b in base if b == lev) for lev in levels], dtype=float)
    pos = {lev: float(m[: j].sum() + m[j] / 2.0) for j, lev in enumerate(levels)}
    d_o = []
    for row in pred:
        r = len(row)
        total = sum((pos[a] - pos[b]) ** 2 for i, a in enumerate(row) for j, b in enumerate(row) if i != j)
        d_o.append(total / (r * (r - 1)))
    n = len(base)
    d_e = sum((pos[a] - pos[b]) ** 2 for a in base for b in base) / (n * n)
    return np.array(d_o), d_e


def quiet(fn, *args, **kwargs):
    with pytest.warns(PredstabDataWarning):
        return fn(*args, **kwargs)


def _box_min_sum_of_squares(low, high):
    """min sum p^2 on {low <= p <= high, sum p = 1} by scipy's SLSQP (an independent method)."""
    from scipy.optimize import minimize

    x0 = np.clip(np.full(len(low), 1 / len(low)), low, high)
    x0 = x0 / x0.sum()
    out = minimize(lambda p: p @ p, x0, jac=lambda p: 2 * p, bounds=list(zip(low, high, strict=True)),
                   constraints=[{"type": "eq", "fun": lambda p: p.sum() - 1,
                                 "jac": lambda p: np.ones_like(p)}],
                   method="SLSQP", options={"ftol": 1e-15, "maxiter": 500})
    return out.fun


def _cp(k, n, alpha):
    """Two-sided Clopper-Pearson bounds of k / n at level 1 - alpha, from the beta quantiles."""
    from scipy import stats

    low = 0.0 if k == 0 else stats.beta.ppf(alpha / 2, k, n - k + 1)
    high = 1.0 if k == n else stats.beta.ppf(1 - alpha / 2, k + 1, n - k)
    return low, high
