"""Suite ``lmer``: ``psych::ICC(x, missing = FALSE, lmer = TRUE)`` on incomplete designs.

Inputs: ``r-reference/lmer/cases/*.csv`` (objects x raters, empty = missing rating); R outputs:
``lmer/expected/psych_ICC_lmer.json`` (psych 2.2.9, lme4 1.1.31), made by ``lmer/generate.R``.
predstab: :func:`predstab.icc_reml` (statsmodels' MixedLM as the REML engine).

Two optimisers stop at slightly different points of the same flat optimum (lme4: BOBYQA;
predstab: L-BFGS-B on statsmodels' restricted log-likelihood), so the tolerances are those of
the optimisers, not of floating point:

- variance components: 2e-4 relative (a component R puts at exactly 0 must be exactly 0);
- the six ICCs and their interval bounds: 1e-4 absolute;
- F: 4e-4 relative (a ratio of two mean squares, each within 2e-4);
- p: 2e-2 relative or 1e-4 absolute (p falls steeply with F: at p = 1e-25 a relative change
  of F moves p about 40 times as much);
- df, n.obs, n.judge: exact.

The REML optimum itself is checked with a criterion written here independently of
statsmodels (lme4's REMLcrit as the dense formula ``(N-1)(1 + log(2 pi r2/(N-1))) + log|V| +
log|X'V^-1 X|``, profiled over the residual variance):

- ``REMLcrit``: predstab's ``reml_criterion`` equals it at predstab's solution (1e-9 relative);
- ``criterion <= lme4's``: at predstab's solution it is no larger than at R's variance
  components (1e-7 absolute): predstab's optimum is at least as good as lme4's;
- ``gradient``: central differences in the log variance ratios are below 1e-4 (interior
  components); at a component on the boundary the one-sided derivative is >= 0.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from predstab import icc_reml
from validation._table import REFERENCE, Row, absolute, exact, rel

SUITE = "lmer"
VAR_RTOL = 2e-4
ICC_ATOL = 1e-4
F_RTOL = 4e-4
P_RTOL, P_ATOL = 2e-2, 1e-4
FIELDS = (("ICC", "value"), ("lower", "ci_low"), ("upper", "ci_high"))


def read_case(folder, name):
    """An (objects x raters) matrix as R wrote it (empty = NA)."""
    return pd.read_csv(Path(folder) / "cases" / f"{name}.csv")


def load_cases(folder):
    """``(name, record)`` pairs of ``<folder>/expected/psych_ICC_lmer.json``."""
    with open(Path(folder) / "expected" / "psych_ICC_lmer.json", encoding="utf-8") as fh:
        return list(json.load(fh).items())


def reml_criterion(x, object_variance, rater_variance, residual_variance=None):
    """lme4's REMLcrit of ``y ~ 1 + (1|object) + (1|rater)`` at the given variance components.

    Written from the formula, independently of statsmodels: with the ratios
    ``r = variance / residual variance`` and ``V = I + Z D Z'`` (``D = diag(r_o, ..., r_r, ...)``),
    ``REMLcrit = (N-1)(1 + log(2 pi r2 / (N-1))) + log|V| + log(1'V^-1 1)``, ``r2`` the generalised
    residual sum of squares, the residual variance profiled out. ``log|V|`` and ``V^-1`` come from
    the small matrix ``M = I + D^1/2 Z'Z D^1/2`` (Sylvester's determinant identity and Woodbury's
    formula, as lme4 computes them). Only the ratios matter; ``residual_variance=None`` means they
    are given as ratios.
    """
    x = np.asarray(x, dtype=float)
    obj, rat = np.nonzero(~np.isnan(x))
    y = x[obj, rat]
    m = y.size
    scale = 1.0 if residual_variance is None else residual_variance
    n, k = x.shape
    z = np.hstack([obj[:, None] == np.arange(n), rat[:, None] == np.arange(k)]).astype(float)
    d_half = np.sqrt(np.r_[np.full(n, object_variance / scale), np.full(k, rater_variance / scale)])
    zd = z * d_half
    chol = np.linalg.cholesky(np.eye(z.shape[1]) + zd.T @ zd)

    def v_inv(u):  # V^-1 u = u - Z D^1/2 M^-1 D^1/2 Z' u
        w = np.linalg.solve(chol.T, np.linalg.solve(chol, zd.T @ u))
        return u - zd @ w

    one = np.ones(m)
    v_inv_one = v_inv(one)
    xtvx = one @ v_inv_one
    e = y - (v_inv_one @ y) / xtvx
    r2 = e @ v_inv(e)
    log_det_v = 2.0 * np.sum(np.log(np.diag(chol)))
    return float((m - 1) * (1 + np.log(2 * np.pi * r2 / (m - 1))) + log_det_v + np.log(xtvx))


def optimum_rows(suite, label, x, res, r_variance):
    """Criterion and gradient checks of predstab's REML optimum (and a comparison with lme4's)."""
    s_o, s_r, s_e = res.object_variance, res.rater_variance, res.residual_variance
    ratios = np.array([s_o, s_r]) / s_e
    crit = reml_criterion(x, *ratios)
    yield rel(suite, label, "REMLcrit (independent)", crit, res.reml_criterion, rtol=1e-9)
    r_crit = reml_criterion(x, r_variance["ID"], r_variance["Items"], r_variance["Residual"])
    yield Row(suite, label, "criterion <= lme4's", r_crit, crit, max(crit - r_crit, 0.0), "1e-7 abs",
              crit <= r_crit + 1e-7)
    for i, name in enumerate(("object", "rater")):
        step = np.zeros(2)
        if ratios[i] > 0:
            h = 1e-5  # in log ratio
            up, down = ratios.copy(), ratios.copy()
            up[i] *= np.exp(h)
            down[i] *= np.exp(-h)
            grad = (reml_criterion(x, *up) - reml_criterion(x, *down)) / (2 * h)
            yield Row(suite, label, f"gradient ({name}, log ratio)", 0.0, grad, abs(grad), "1e-4 abs",
                      abs(grad) <= 1e-4)
        else:
            step[i] = 1e-6
            slope = (reml_criterion(x, *(ratios + step)) - crit) / step[i]
            yield Row(suite, label, f"one-sided slope at 0 ({name})", ">= 0", slope, None, ">= 0",
                      slope >= 0)


def case_rows(suite, folder, name, rec):
    """Every field of one psych::ICC(lmer = TRUE) record, and the optimum checks."""
    label = f"psych::ICC(lmer) {name}"
    x = read_case(folder, name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = icc_reml(x)
    yield exact(suite, label, "n.obs", rec["n_obs"], res.n_objects)
    yield exact(suite, label, "n.judge", rec["n_judge"], res.n_raters)
    for r_name, value in (("ID", res.object_variance), ("Items", res.rater_variance),
                          ("Residual", res.residual_variance)):
        r_value = rec["variance"][r_name]
        if r_value == 0:
            yield exact(suite, label, f"variance {r_name} (boundary)", 0.0, value)
        else:
            yield rel(suite, label, f"variance {r_name}", r_value, value, rtol=VAR_RTOL)
    for i, r_row in enumerate(rec["results"]):
        form = r_row["type"]
        yield exact(suite, label, f"{form} type", form, res.types[i])
        for r_field, attr in FIELDS:
            yield absolute(suite, label, f"{form} {r_field}", r_row[r_field], getattr(res, attr)[i],
                           atol=ICC_ATOL)
        yield rel(suite, label, f"{form} F", r_row["F"], res.statistic[i], rtol=F_RTOL)
        yield rel(suite, label, f"{form} p", r_row["p"], res.pvalue[i], rtol=P_RTOL, atol=P_ATOL)
        yield exact(suite, label, f"{form} df1", float(r_row["df1"]), float(res.df1[i]))
        yield exact(suite, label, f"{form} df2", float(r_row["df2"]), float(res.df2[i]))
    yield exact(suite, label, "converged", True, res.converged)
    yield from optimum_rows(suite, label, x.to_numpy(dtype=float), res, rec["variance"])


def rows():
    folder = REFERENCE / "lmer"
    for name, rec in load_cases(folder):
        yield from case_rows(SUITE, folder, name, rec)
