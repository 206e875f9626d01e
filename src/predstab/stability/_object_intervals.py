"""Intervals per object (``per_object_low`` / ``per_object_high``) and the variances that
the overall interval of phi / psi combines.

Metric refits: the chi-square interval of a variance, with Satterthwaite's degrees of freedom
from the kurtosis pooled over the objects, or Bonett's (2006) interval. Classes: exact
Clopper-Pearson intervals of the vote shares and the range of the disagreement over their
(Bonferroni) box on the simplex. Quantile functions are evaluated once per distinct key
(:func:`_on_unique`), so the cost stays linear in the data. The targets and assumptions are
stated in :func:`predstab.phi` (Notes).
"""

from __future__ import annotations

import functools
import math

import numpy as np
import pandas as pd
from scipy import special, stats

from ._disagreement import _BLOCK, _first_of_each, _ordinal_delta2  # noqa: F401  (_first_of_each: tests read it here)
from ._shape_check import _heaviest_tails, _shape_outliers
from ._share_box import (  # noqa: F401  (names kept here: tests and benchmarks read them)
    _SIMPLEX_MAX_CATEGORIES,
    _largest_weighted_share,
    _largest_weighted_share_sparse,
    _least_sum_of_squares,
    _least_sum_of_squares_sparse,
    _line_positions,
    _line_range,
    _simplex_faces,
    _simplex_range,
    _unique_rows,
)


def _on_unique(fn, *keys):
    """``fn(*keys)`` evaluated once per distinct combination of the non-negative integer keys.

    The quantile functions below cost about a microsecond per call; the keys (repetition
    counts, vote counts) take few distinct values, so a lookup table keeps the intervals
    linear in the data and cheap.
    """
    keys = [np.asarray(k, dtype=np.int64) for k in np.broadcast_arrays(*keys)]
    shape = keys[0].shape
    if keys[0].size and all(k.min() == k.max() for k in keys):
        # one distinct key (every object refitted as often, no missing value: the metric case):
        # a read-only view of its one value, not an (objects x values) table and its codes
        values = np.asarray(fn(*(np.array([float(k.flat[0])]) for k in keys)))
        return np.broadcast_to(values[0], shape + values.shape[1:])
    code = np.zeros(shape, dtype=np.int64)
    strides = []
    stride = 1
    for k in keys:
        strides.append(stride)
        code += k * stride
        stride *= int(k.max(initial=0)) + 1
    if stride <= 4 * code.size + 4096:  # a dense lookup table: linear
        present = np.flatnonzero(np.bincount(code.ravel(), minlength=1))
        inverse = None
    else:  # many possible keys (several vote counts, thousands of repetitions): hash them (linear;
        # sorting 1e6 codes took a fifth of categorical phi's time)
        inverse, present = pd.factorize(code.ravel())
    parts = [(present // st) % (int(k.max(initial=0)) + 1) for k, st in zip(keys, strides, strict=True)]
    values = np.asarray(fn(*(p.astype(float) for p in parts)))
    if inverse is not None:
        return values[inverse].reshape(shape + values.shape[1:])
    table = np.zeros((stride,) + values.shape[1:], dtype=values.dtype)
    table[present] = values
    return table[code]


# metric per-object methods: what ``object_interval`` accepts ("auto" is "pooled"; "checked" is
# "pooled" plus the per-object shape check of :mod:`._shape_check`, opt-in for its cost)
_METRIC_METHODS = ("auto", "pooled", "checked", "bonett", "chi2")
_METHOD_NAMES = {
    "pooled": "pooled-kurtosis chi-square",
    "assumed": "assumed-kurtosis chi-square",
    "bonett": "Bonett",
    "bonett+chi2": "Bonett (chi-square below 6 refits)",
    "chi2": "chi-square",
    "classes": "Clopper-Pearson",
}
# warn above this pooled excess kurtosis (beyond what the coverage study covers)
_POOLED_WARN_EXCESS = 6.0
_BONETT_WARN_EXCESS = 3.0
_BONETT_MIN_COUNT = 6  # Bonett's trimmed mean cuts 1 / (2 sqrt(n - 4)) of each tail
# the pooled-kurtosis interval of an object is at most this many times as wide as its chi-square
# interval: the excess kurtosis its upper end uses is capped where that width is reached (``_min_df``)
_WIDTH_BUDGET = 2.0
# the upper end of a pooled interval uses this multiple of the kurtosis (calibrated on the skewed
# mixture of docs/benchmarks/coverage.md; the width budget bounds it)
_SKEW_ALLOWANCE = 1.3
# the excess kurtosis assumed when no object has 4 refits (about t5's or lognormal(0.5)'s)
_ASSUMED_EXCESS = 6.0


# The quantiles of a phi / psi call, as scipy.stats computes them (its distributions' own
# ``_ppf`` formulas: the same bits) for 0 < q < 1, without the generic argument handling of
# ``stats.<dist>.ppf`` (0.4-0.7 ms a call: about 40 % of a 20 x 5 phi call, where 13 are made).
# NaN where a degrees-of-freedom value is not positive (or NaN), as scipy gives.
def _chi2_ppf(q, df):
    """``scipy.stats.chi2.ppf(q, df)``: ``2 gammaincinv(df / 2, q)``."""
    df = np.asarray(df, dtype=float)
    with np.errstate(invalid="ignore"):
        return np.where(df > 0, 2 * special.gammaincinv(df / 2, q), np.nan)[()]


def _t_ppf(q, df):
    """``scipy.stats.t.ppf(q, df)``: ``stdtrit(df, q)``."""
    df = np.asarray(df, dtype=float)
    with np.errstate(invalid="ignore"):
        return np.where(df > 0, special.stdtrit(df, q), np.nan)[()]


def _norm_ppf(q):
    """``scipy.stats.norm.ppf(q)``: ``ndtri(q)``."""
    return special.ndtri(q)


@functools.lru_cache(maxsize=64)
def _lowest_df(alpha):
    """The df minimising ``nu / chi^2_{nu, 1-alpha/2}`` (the lower end of a variance over s^2),
    on a grid of 241 values of ``log nu`` in ``[1e-3, 10]``."""
    grid = np.logspace(-3, 1, 241)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        factor = grid / _chi2_ppf(1 - alpha / 2, grid)
    return float(grid[np.nanargmin(np.where(np.isfinite(factor), factor, np.nan))])


def _min_df(n, alpha, low):
    """Per count ``n``: the degrees of freedom at which the upper end ``nu s^2 / chi^2_{nu, alpha/2}``
    of the variance lies ``_WIDTH_BUDGET`` times the chi-square interval's width (``nu = n - 1``)
    above the lower end ``low s^2``, so that the interval is at most that wide.

    ``nu / chi^2_{nu, alpha/2}`` falls with ``nu``; bisection on ``log nu`` in ``[1e-3, n - 1]``,
    all counts at once (called once per distinct count by :func:`_on_unique`).
    """
    n = np.asarray(n, dtype=float)
    df0 = np.maximum(n - 1.0, 1.0)

    def upper(df):
        # chi2.ppf(q, df) is 2 gammaincinv(df / 2, q) (scipy's own _ppf, the same bits): called
        # directly, 49 calls cost 0.4 ms instead of 6.5 ms of argument checks; _chi2_ppf's guard
        # for df <= 0 is not needed here (df > 0) and would add 0.3 ms to each call of _min_df
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return df / (2.0 * special.gammaincinv(df / 2.0, alpha / 2))

    target = _WIDTH_BUDGET * (upper(df0) - df0 / _chi2_ppf(1 - alpha / 2, df0)) + low
    lo, hi = np.full(n.shape, math.log(1e-3)), np.log(df0)
    for _ in range(48):
        mid = (lo + hi) / 2
        wide = ~(upper(np.exp(mid)) <= target)  # inf / NaN (chi2.ppf underflows at tiny df): wide
        lo, hi = np.where(wide, mid, lo), np.where(wide, hi, mid)
    return np.exp(hi)


def _row_moments(x):
    """Per row: non-missing count, ``sum d^2``, ``sum d^4`` (``d`` deviations from the row mean)."""
    n_rows, n_cols = x.shape
    out = np.empty((3, n_rows))
    step = max(1, _BLOCK // max(n_cols, 1))
    for start in range(0, n_rows, step):
        block = x[start:start + step]
        total = block.sum(axis=1)
        if np.isfinite(total).all():  # no missing value in the block: the plain two passes
            c = np.full(len(block), n_cols)
            d2 = block - (total / n_cols)[:, None]
            d2 *= d2
        else:
            miss = np.isnan(block)
            c = n_cols - miss.sum(axis=1)
            with np.errstate(invalid="ignore", divide="ignore"):
                m = np.where(miss, 0.0, block).sum(axis=1) / c
            d2 = np.where(miss, 0.0, block - m[:, None]) ** 2
        out[0, start:start + len(block)] = c
        out[1, start:start + len(block)] = d2.sum(axis=1)
        out[2, start:start + len(block)] = np.einsum("ij,ij->i", d2, d2)
    return out


def _pooled_excess_kurtosis(count, s2, s4):
    """Excess kurtosis shared by the objects' refits: ``sum k_4,i / sum sigma^4_i-hat``.

    ``k_4`` (Fisher's unbiased fourth cumulant) and ``(k_2^2 - k_4 / n)(n - 1)/(n + 1)``
    (unbiased for ``sigma^4``) per object with at least 4 refits, summed over the objects:
    a ratio estimator that is consistent when the refits of every object have the same shape
    (location and scale may differ). NaN when no object has 4 refits. Summed block by block
    (65,536 objects): the temporaries of the formula stay a few MB at any number of objects
    (they were eight arrays of the objects at once, 0.08x the input at 100 refits).
    """
    n_ok, sum_k4, total, step = 0, 0.0, 0.0, _BLOCK // 4
    for start in range(0, count.shape[0], step):
        c = count[start:start + step]
        ok = c >= 4
        if not ok.any():
            continue
        n_ok += int(np.count_nonzero(ok))
        n = c[ok]
        m2, m4 = s2[start:start + step][ok] / n, s4[start:start + step][ok] / n
        k2 = n * m2 / (n - 1)
        k4 = n * n * ((n + 1) * m4 - 3 * (n - 1) * m2 ** 2) / ((n - 1) * (n - 2) * (n - 3))
        sigma4 = (k2 * k2 - k4 / n) * (n - 1) / (n + 1)
        sum_k4 += float(np.sum(k4))
        total += float(np.sum(sigma4))
    if not n_ok:
        return float("nan"), 0
    if not total > 0:
        return float("nan"), n_ok
    return float(sum_k4 / total), n_ok


def _bonett_kurtosis(x, count, s2):
    """Bonett's (2006) kurtosis estimate per row, times the small-sample factor ``(n+1)/(n-1)``.

    ``n sum (x - m)^4 / (sum (x - xbar)^2)^2`` with ``m`` the mean trimmed by
    ``1 / (2 sqrt(n - 4))`` in each tail (as ``scipy.stats.trim_mean`` cuts). NaN for rows
    with fewer than ``_BONETT_MIN_COUNT`` values.
    """
    out = np.full(x.shape[0], np.nan)
    step = max(1, _BLOCK // max(x.shape[1], 1))
    for start in range(0, x.shape[0], step):
        block = np.sort(x[start:start + step], axis=1)  # NaN last
        cnt = count[start:start + step]
        for c in np.unique(cnt[cnt >= _BONETT_MIN_COUNT]):
            rows = np.flatnonzero(cnt == c)
            c = int(c)
            cut = int(c / (2.0 * np.sqrt(c - 4.0)))
            vals = block[rows, :c]
            m = vals[:, cut:c - cut].mean(axis=1)
            num = ((vals - m[:, None]) ** 4).sum(axis=1)
            den = s2[start + rows]
            with np.errstate(invalid="ignore", divide="ignore"):
                out[start + rows] = c * num / den ** 2 * (c + 1) / (c - 1)
    return out


def _metric_object_intervals(d_o_i, count, confidence_level, method="chi2", x=None, moments=None, *,
                             check_shapes=False):
    """Per-object interval for the variance ``sigma_i^2`` of an object's refits.

    ``method``:

    - ``"chi2"``: ``(R_i - 1) s_i^2 / sigma_i^2 ~ chi^2_{R_i - 1}``, exact for normal refits.
    - ``"pooled"``: the scaled chi-square ``nu_i s_i^2 / chi^2_{nu_i}`` with Satterthwaite's
      ``nu_i = 2 / (2 / (R_i - 1) + kappa / R_i)``. ``kappa`` is the excess kurtosis pooled over
      the objects (:func:`_pooled_excess_kurtosis`, ``M`` refits in the objects with at least 4)
      plus twice its normal-theory standard error ``sqrt(24 / M)`` (a few refits understate
      heavy tails), at least 0; the upper end of the variance uses ``1.3 kappa``, capped at the df of
      :func:`_min_df`: an object's interval is never wider than
      ``_WIDTH_BUDGET`` times its chi-square interval. Assumption: the refits of every object
      share one shape. Target: coverage >= 0.93 at R = 3-20 for refits up to gamma(2), t5 or
      lognormal(0.5) tails (docs/benchmarks/coverage.md); Satterthwaite's moment match is
      conservative at few refits, so the cap costs little coverage. Where the estimate is above
      the cap (heavier tails than R refits can resolve within that width) ``info["capped"]``
      says so; with no object of 4 refits (R = 3) the kurtosis cannot be estimated and an excess
      kurtosis of ``_ASSUMED_EXCESS`` is assumed (``info["assumed"]``). The result states both
      in ``interval_note``.
    - ``"bonett"``: Bonett's (2006) interval ``exp(ln(c s^2) +- z c sqrt((g_4 - (R-3)/R)/(R-1)))``,
      ``c = R / (R - z)``, with each object's own kurtosis estimate (:func:`_bonett_kurtosis`);
      objects with fewer than 6 refits get the ``"chi2"`` interval (``info["bonett_rows"]``
      counts the objects that got Bonett's, so the label says what was computed).

    ``x`` is the (objects x refits) matrix (NaN missing); ``moments`` its :func:`_row_moments`
    when already computed. ``check_shapes`` (``"pooled"`` only): flag the objects whose refits are
    far from the pooled shape (:func:`._shape_check._shape_outliers`, ``info["outliers"]``; else
    ``None``: not checked). Returns ``(var_low, var_high, info)``; ``info`` holds the pooled
    excess kurtosis (or NaN), the kurtosis used, and whether the warning threshold is exceeded.
    """
    alpha = 1.0 - confidence_level
    info = {"kurtosis": float("nan"), "heavy": 0, "used": 0.0, "capped": False, "assumed": False,
            "bonett_rows": 0, "outliers": None, "n_checked": 0, "alpha": alpha, "tails": None}
    kappa = 0.0  # the chi-square interval: Satterthwaite's df with no excess kurtosis
    if method == "pooled":
        if moments is None:
            moments = _row_moments(x)
        kappa, n_pooled = _pooled_excess_kurtosis(moments[0], moments[1], moments[2])
        if n_pooled and not np.isfinite(kappa):  # sigma^4's estimate not positive: extreme outliers
            kappa = math.inf
        info["kurtosis"] = kappa
        if not np.isnan(kappa):
            n_refits = float(np.sum(moments[0], where=moments[0] >= 4))  # integers: exact, no copy
            se = math.sqrt(24.0 / n_refits)  # the normal-theory standard error of a kurtosis
            # warn when the tails are heavy beyond the estimate's noise (one object of 5 refits: often
            # huge by chance, as the estimate of sigma^4 can be near 0)
            info["heavy"] = int(kappa - 2.0 * se > _POOLED_WARN_EXCESS)
            # heavy tails: the objects of heaviest-tailed refits, named in the note (no test; free)
            info["tails"] = _heaviest_tails(moments, kappa, se)
            kappa = max(kappa + 2.0 * se, 0.0)  # a few refits understate heavy tails: two standard errors
            if check_shapes and x is not None:  # objects far heavier-tailed than the pooled shape
                info["outliers"], info["n_checked"] = _shape_outliers(x, moments, alpha)
        else:  # no object with 4 refits: tails as heavy as t5's or lognormal(0.5)'s are assumed
            kappa = _ASSUMED_EXCESS
            info["assumed"] = True
    elif method not in ("chi2", "bonett"):  # the public functions declare `object_interval`
        raise ValueError(f"unknown metric interval method {method!r}")

    def quantiles(n):
        n1 = np.maximum(n - 1, 1)
        if kappa == 0.0:
            df_low = df_high = df_min = n1
        else:
            # Satterthwaite's df; the lower end of the variance with the kurtosis as estimated: heavy
            # tails make s^2 often far above sigma^2, and that end costs little width
            with np.errstate(divide="ignore"):
                df_low = 2.0 / (2.0 / n1 + kappa / np.maximum(n, 1))
                # Satterthwaite matches the variance of s^2, not its skewness: right-skewed refits
                # leave s^2 below sigma^2 more often than the scaled chi-square allows (the skewed
                # mixture: 0.92-0.93 at R = 20); the upper end takes _SKEW_ALLOWANCE x the kurtosis,
                # at most the df of the width budget (the kurtosis capped)
                df_high = 2.0 / (2.0 / n1 + _SKEW_ALLOWANCE * kappa / np.maximum(n, 1))
        # nu / chi^2_{nu, 1-a/2} falls with nu down to about nu = 0.1 (a = 0.05), then explodes: the
        # lower end never uses fewer df than that minimum (an unbounded kurtosis included)
        df_low = np.maximum(df_low, _lowest_df(alpha))
        low = df_low / _chi2_ppf(1 - alpha / 2, df_low)
        if kappa != 0.0:
            df_min = _min_df(n, alpha, low)
            df_high = np.maximum(df_high, df_min)
        per_count["n"], per_count["df_min"] = n, np.broadcast_to(df_min, n.shape)
        return np.stack([df_high / _chi2_ppf(alpha / 2, df_high), low, df_min], axis=-1)

    per_count = {}  # the distinct counts and their df_min, as computed once per count
    with np.errstate(invalid="ignore", divide="ignore"):
        table = _on_unique(quantiles, count)
        var_high = table[..., 0] * d_o_i
        var_low = table[..., 1] * d_o_i
        if method == "pooled":
            # the largest kurtosis the upper end uses (Satterthwaite's at the budget's df, over 1.3),
            # over the distinct counts (a function of the count alone: the same maximum as over the
            # objects, without four arrays of the objects)
            kept = per_count["n"] >= 2
            n_kept, df_min = per_count["n"][kept], per_count["df_min"][kept]
            cap = n_kept * (2.0 / df_min - 2.0 / np.maximum(n_kept - 1.0, 1.0)) / _SKEW_ALLOWANCE
            info["used"] = float(min(kappa, float(np.max(cap, initial=0.0))))
            # the estimate itself (not only with its standard errors) beyond what the width allows
            info["capped"] = bool(not np.isnan(info["kurtosis"]) and np.any(info["kurtosis"] > cap))
        if method == "bonett":
            s2 = d_o_i * np.maximum(count - 1, 0)
            g4 = _bonett_kurtosis(x, count, s2)
            n = count.astype(float)
            z = _norm_ppf(1 - alpha / 2)
            c = n / (n - z)
            se = c * np.sqrt(np.maximum(g4 - (n - 3) / n, 0.0) / (n - 1))
            use = np.isfinite(g4)
            info["bonett_rows"] = int(use.sum())
            var_low = np.where(use, c * d_o_i * np.exp(-z * se), var_low)
            var_high = np.where(use, c * d_o_i * np.exp(z * se), var_high)
            # only a one-object result warns: its interval is the headline `confidence_interval`
            info["heavy"] = int(g4.size == 1 and g4[0] - 3.0 > _BONETT_WARN_EXCESS)
    return var_low, var_high, info


def _metric_label(method, info, count):
    """``(key of _METHOD_NAMES, interval_note)``: what the metric per-object intervals computed,
    in a name and in words (the note is empty when nothing beyond the method needs saying)."""
    if method == "chi2":
        return "chi2", ""
    if method == "bonett":
        n_rows = int(np.sum(count >= 2))
        if info["bonett_rows"] == 0:
            return "chi2", (f"Bonett's interval needs {_BONETT_MIN_COUNT} refits of an object: every object "
                            "got the chi-square interval (exact for normal refits only).")
        if info["bonett_rows"] < n_rows:
            return "bonett+chi2", (f"{n_rows - info['bonett_rows']} object(s) with fewer than "
                                   f"{_BONETT_MIN_COUNT} refits got the chi-square interval.")
        return "bonett", ""
    budget = f"{_WIDTH_BUDGET:g} x"
    covers = ("Measured coverage is at least 0.93 for refits of normal, gamma(2), t5, lognormal(0.5), "
              "mixture or beta shape (docs/benchmarks/coverage.md); heavier tails may cover less.")
    key, note = "pooled", ""
    if info["assumed"]:
        key, note = "assumed", (
            "No object has 4 refits, so the refits' kurtosis cannot be estimated: the per-object intervals "
            f"assume an excess kurtosis of {_ASSUMED_EXCESS:g} (tails like t5's or lognormal(0.5)'s), their "
            f"upper ends of the variance at most {budget} the chi-square interval's width. " + covers
            + " " + _few_refits_sentence(count, info["alpha"]))
    elif info["capped"]:
        note = (f"The refits' pooled excess kurtosis ({info['kurtosis']:.3g}) is more than so few refits can "
                f"resolve within {budget} the chi-square interval's width: the upper ends of the per-object "
                f"variances use at most {info['used']:.2f}. " + covers)
    outliers = info["outliers"]
    if outliers is not None and outliers.any():
        rows = np.flatnonzero(outliers)
        shown = ", ".join(map(str, rows[:10])) + (" ..." if rows.size > 10 else "")
        note = (note + " " if note else "") + (
            f"{rows.size} object(s) (0-based rows {shown}; `per_object_shape_outlier`) have refits far "
            "heavier-tailed than the pooled shape the per-object intervals assume (sample kurtosis above "
            f"the 1 - {info['alpha']:g} / {info['n_checked']} quantile of the pooled shape's): "
            "their intervals may cover well below the nominal level (random forests with t2 noise: the "
            "worst object 0.74 at 20 refits, docs/benchmarks/coverage.md).")
    elif info["tails"] is not None:
        rows, b2, average = info["tails"]
        note = (note + " " if note else "") + (
            f"The refits are heavy-tailed (pooled excess kurtosis {info['kurtosis']:.3g}): the per-object "
            "intervals assume that every object's refits share that shape, and an object whose refits are "
            "heavier-tailed than the others' covers less than nominal, most when its rare extreme refits "
            "are missing from these (random forests with t2 noise: the worst of 30 objects 0.74 at 20 "
            "refits, docs/benchmarks/coverage.md). Heaviest-tailed here: 0-based rows "
            + ", ".join(map(str, rows)) + " (sample kurtosis " + ", ".join(f"{v:.3g}" for v in b2)
            + f" against their average {average:.3g}); object_interval=\"checked\" tests each object against "
            "the pooled shape.")
    return key, note


def _few_refits_sentence(count, alpha):
    """In words: how wide the chi-square interval of a variance is with the fewest refits."""
    n_min = int(np.min(count[count >= 2], initial=3))
    low, high = (n_min - 1) / _chi2_ppf(np.array([1 - alpha / 2, alpha / 2]), n_min - 1)
    return (f"With {n_min} refits even normal refits' variance is known only within {low:.2g} to "
            f"{high:.3g} x its estimate (the chi-square interval): intervals of stability this wide, "
            "reaching far below 0, are what so few refits support.")


def _share_bounds(counts, r, alpha):
    """Two-sided Clopper-Pearson bounds at level ``1 - alpha`` for the shares ``counts / r``."""
    def bounds(k, n):
        with np.errstate(invalid="ignore", divide="ignore"):
            low = np.where(k > 0, stats.beta.ppf(alpha / 2, np.maximum(k, 1), n - k + 1), 0.0)
            high = np.where(k < n, stats.beta.ppf(1 - alpha / 2, k + 1, np.maximum(n - k, 1)), 1.0)
        return np.stack([low, high], axis=-1)

    counts = np.asarray(counts, dtype=np.int64)
    r = np.broadcast_to(np.asarray(r, dtype=np.int64), counts.shape)
    if counts.size == 0:
        empty = np.zeros(counts.shape)
        return empty, empty.copy()
    both = _on_unique(bounds, counts, r)
    return both[..., 0], both[..., 1]


def _class_object_intervals(table, r, delta2, confidence_level, distinct=None):
    """Per-object interval for the disagreement ``theta_i = p_i' Delta p_i`` from the vote counts.

    Two categories: ``theta = 2 delta^2 p (1 - p)``; its range over the exact Clopper-Pearson
    interval of ``p`` (coverage at least nominal). More categories: simultaneous Bonferroni
    Clopper-Pearson intervals ``[L_c, U_c]`` of the shares (each at level ``1 - alpha / K``, so
    the box holds the true shares with probability at least ``1 - alpha``) and the range of
    ``theta`` over the box *on the simplex* (``sum_c p_c = 1``). ``theta`` is concave there
    (``1 - sum p^2``, or twice the variance of the ordinal positions), so its minimum is at a
    vertex of the box-simplex polytope and its maximum at a stationary point of one of its
    faces: both are enumerated exactly up to ``_SIMPLEX_MAX_CATEGORIES`` categories. Beyond,
    the lower bound ``L' Delta L`` ignores the simplex (valid, wider) and the upper bound is
    water filling (categories) or ``U' Delta U`` (ordinal), capped at the largest possible
    disagreement. ``distinct``: the table's :func:`_first_of_each`, when known (each distinct vote
    table is solved once either way).
    """
    alpha = 1.0 - confidence_level
    n_categories = table.shape[1]
    if delta2 is None:
        cap = 1.0 - 1.0 / n_categories  # largest Gini disagreement over K categories
    else:
        cap = float(delta2.max()) / 2.0  # largest 2 Var of positions on a line
    if n_categories == 2:
        first = np.asarray(table[:, 0].toarray() if hasattr(table, "toarray") else table[:, 0]).ravel()
        low, high = _share_bounds(first, r, alpha)
        weight = 2.0 * (1.0 if delta2 is None else float(delta2[0, 1]))
        f_low, f_high = weight * low * (1 - low), weight * high * (1 - high)
        theta_low = np.minimum(f_low, f_high)
        theta_high = np.where((low <= 0.5) & (high >= 0.5), weight / 4.0, np.maximum(f_low, f_high))
        return theta_low, theta_high
    level = alpha / n_categories
    if n_categories <= _SIMPLEX_MAX_CATEGORIES:
        dense = np.asarray(table.toarray() if hasattr(table, "toarray") else table)  # integer counts
        if dense.dtype.kind not in "iu":
            dense = dense.astype(np.int64)
        d2 = np.ones((n_categories,) * 2) - np.eye(n_categories) if delta2 is None else delta2

        def bounds(*keys):  # once per distinct vote table, a block of tables at a time (memory)
            counts = np.stack(keys[:-1], axis=1).astype(np.int64)
            total = keys[-1].astype(np.int64)[:, None]
            both = np.empty((len(counts), 2))
            step = max(1, _BLOCK // (4 * n_categories))
            for start in range(0, len(counts), step):
                low, high = _share_bounds(counts[start:start + step], total[start:start + step], level)
                both[start:start + step, 0], both[start:start + step, 1] = _simplex_range(low, high, d2)
            return both

        keys = [*dense.T, r]
        if distinct is not None:  # the distinct tables known: each solved once, no second hashing
            first, inverse = distinct
            keys = [k[first] for k in keys]
            if delta2 is None:  # Gini: the range is that of the sorted counts (as _simplex_range sorts)
                keys, inverse = _sorted_tables(keys, inverse)
            both = bounds(*keys)
            # the ends gathered to the objects one at a time (the cap on the small array)
            return both[:, 0][inverse], np.minimum(both[:, 1], cap)[inverse]
        elif sum(math.log2(int(k.max(initial=0)) + 1) for k in keys) < 62:  # codes fit in int64
            both = _on_unique(bounds, *keys)
        else:  # very many refits: sort the distinct tables instead
            unique, inverse = np.unique(np.column_stack(keys), axis=0, return_inverse=True)
            both = bounds(*unique.T)[inverse.ravel()]
        return both[..., 0], np.minimum(both[..., 1], cap)
    if delta2 is None and hasattr(table, "toarray"):
        # many categories: sums over the non-zero counts, every zero count has the same bounds
        coo = table.tocoo()
        low, high = _share_bounds(coo.data, r[coo.row], level)
        n_rows = table.shape[0]
        nnz = np.bincount(coo.row, minlength=n_rows)
        _, high0 = _share_bounds(np.zeros(n_rows), r, level)
        sum_l = np.bincount(coo.row, low, minlength=n_rows)
        sum_l2 = np.bincount(coo.row, low * low, minlength=n_rows)
        # as the dense table's (issue 34), the zero counts as one item of room n_zero x high0
        n_zero = n_categories - nnz
        theta_low = np.maximum(sum_l ** 2 - sum_l2, 1.0 - _largest_weighted_share_sparse(
            coo.row, low, high, n_zero, high0))
        # water filling as for a dense table (the zero counts' lower bounds are 0)
        theta_high = 1.0 - _least_sum_of_squares_sparse(coo.row, low, high, n_categories - nnz, high0)
    else:
        dense = np.asarray(table.toarray() if hasattr(table, "toarray") else table)
        low, high = _share_bounds(dense, r[:, None], level)
        if delta2 is None:  # Delta = 11' - I: x' Delta x = (sum x)^2 - sum x^2
            theta_low = np.maximum(low.sum(axis=1) ** 2 - np.einsum("ij,ij->i", low, low),
                                   1.0 - _largest_weighted_share(low, high))
            theta_high = 1.0 - _least_sum_of_squares(low, high)
        else:
            theta_low = np.einsum("ij,ij->i", low @ delta2, low)
            theta_high = np.einsum("ij,ij->i", high @ delta2, high)
    return theta_low, np.minimum(theta_high, cap)


def _sorted_tables(keys, inverse):
    """The distinct vote tables ``keys`` (count columns, then the repetitions) with each table's
    counts sorted, once per distinct sorted table, and ``inverse`` mapped to them.

    The Gini disagreement treats the categories alike, so tables whose counts are permutations of
    each other have one range over their boxes: :func:`_share_box._simplex_range` sorts the boxes
    by their lower bounds, which rise with the count, so it sees the same sorted box either way
    (uniform random votes of 1e6 objects, 100 refits, 5 classes: 111,734 distinct tables, about
    3,000 sorted ones). Unchanged when sorting hardly merges tables."""
    counts = np.sort(np.column_stack(keys[:-1]), axis=1)
    merged = _first_of_each(np.column_stack([counts, keys[-1]]))
    if merged is None:
        return keys, inverse
    first, to_sorted = merged
    return [*counts[first].T, keys[-1][first]], to_sorted[inverse]


def _to_stability(d, d_e):
    """``1 - D / D_e`` of one end of an interval of ``D`` (NaN when ``D_e`` is not positive): the
    lower end of stability from the upper end of ``D`` and the reverse. One end at a time, so that
    the caller can let each ``D`` bound go once mapped (issue 33: phi's peak memory)."""
    if not d_e > 0:
        return np.full(np.shape(d), np.nan)
    return 1.0 - np.asarray(d, dtype=float) / d_e


# --------------------------------------------------------------------------- variances of the parts


def _refit_variances(d_o_i, count, moments=None, table=None, delta2=None, distinct=None):
    """Jackknife variance (over each object's refits) of every ``D_o,i``: the refit noise alone.

    Metric: the leave-one-out sample variances are ``((n-1) s^2 - n d_j^2 / (n-1)) / (n-2)``,
    so the jackknife variance is ``(n-1)/n (n/((n-1)(n-2)))^2 sum_j (d_j^2 - mean d^2)^2``.
    Classes: leaving out one vote of category ``c`` leaves ``(P - 2 (Delta n)_c) / ((R-1)(R-2))``
    (``P = n' Delta n`` the disagreeing pairs). Objects with two refits get the normal-theory
    ``2 D_o,i^2`` (metric) or ``D_o,i^2`` (classes) instead. ``distinct``: the table's
    :func:`_first_of_each`, when known (each distinct vote table is computed once).
    """
    with np.errstate(invalid="ignore", divide="ignore"):
        if moments is not None:
            # in place, the factor of n from a table of the counts, block by block: one array of
            # the objects besides the squares (six before: 0.05x the input at 100 refits); the
            # same values
            _, s2, s4 = moments
            var = s2 * s2
            var /= count
            np.subtract(s4, var, out=var)
            np.maximum(var, 0.0, out=var)
            k = np.arange(int(count.max(initial=0)) + 1, dtype=float)
            factor, step = (k - 1) / k * (k / ((k - 1) * (k - 2))) ** 2, 1 << 14
            for start in range(0, var.size, step):
                var[start:start + step] *= factor[count[start:start + step].astype(np.intp, copy=False)]
            few = np.flatnonzero(count < 3)
            var[few] = 2.0 * d_o_i[few] ** 2
            return var
        if distinct is not None:
            # once per distinct vote table (D_o,i and R_i are functions of it): 111,734 tables in 1e6
            # objects of uniform random votes (100 refits, 5 classes), 54,165 at 80 % agreement
            first, inverse = distinct
            return _class_refit_variances(d_o_i[first], count[first], table[first], delta2)[inverse]
        return _class_refit_variances(d_o_i, count, table, delta2)


def _class_refit_variances(d_o_i, count, table, delta2):
    """:func:`_refit_variances` of classes, row by row."""
    with np.errstate(invalid="ignore", divide="ignore"):
        # block by block of objects (five (objects x categories) temporaries of the whole table
        # were 2x the int8 input at 5 categories); the same values row by row
        out = np.empty(count.shape[0])
        step = max(256, (1 << 15) // max(table.shape[1], 1))
        for start in range(0, out.size, step):
            sl = slice(start, start + step)
            block, c, d = table[sl], count[sl], d_o_i[sl]
            n = c.astype(float)
            # C order (the table is in Fortran order): einsum sums each row in the same order as before
            dense = np.asarray(block.toarray() if hasattr(block, "toarray") else block, dtype=float,
                               order="C")
            if delta2 is None:
                delta_n = n[:, None] - dense  # (11' - I) n
            else:
                delta_n = dense @ delta2
            pairs = d * n * (n - 1)
            loo = (pairs[:, None] - 2.0 * delta_n) / ((n - 1) * (n - 2))[:, None]
            mean = np.einsum("ij,ij->i", dense, loo) / n
            var = (n - 1) / n * np.einsum("ij,ij->i", dense, (loo - mean[:, None]) ** 2)
            out[sl] = np.where(c >= 3, var, d ** 2)
    return out


def _baseline_variance(base_values, scale, base_counts, delta2):
    """Delta-method variance of ``D_e`` from the ``n`` baseline values (independent draws).

    Metric: ``Var(s^2) = mu_4 / n - sigma^4 (n - 3) / (n (n - 1))`` with the sample moments.
    Categories: ``D_e = 1 - sum p^2`` has gradient ``-2 p`` and ``Var = 4 (sum p^3 - (sum p^2)^2) / n``.
    Ordinal: ``Delta`` itself depends on the baseline counts, so the gradient of ``S`` (not
    only of ``D_e``) is needed: :func:`_ordinal_baseline_gradient`.
    """
    if scale == "metric":
        x = np.asarray(base_values, dtype=float)
        n = x.size
        d = x - x.mean()
        m4 = float(np.mean(d ** 4))
        s2 = float(np.sum(d * d) / (n - 1))
        return max(m4 / n - s2 * s2 * (n - 3) / (n * (n - 1)), 0.0)
    p = base_counts / base_counts.sum()
    return max(4.0 * (np.sum(p ** 3) - np.sum(p * p) ** 2) / base_counts.sum(), 0.0)


def _ordinal_baseline_variance_of_s(base_counts, pair_weights):
    """Delta-method variance of ``S`` over the baseline's multinomial sampling (ordinal scale).

    ``S(p) = 1 - sum(W * Delta(p)) / (p' Delta(p) p)`` with ``W`` the objects' mean
    ``n_i n_i' / (R_i (R_i - 1))`` and ``Delta(p)`` Krippendorff's squared distances from the
    shares (``S`` does not change when the counts are scaled). Central differences give the
    gradient; ``Cov(p) = (diag p - p p') / n``.
    """
    n = float(base_counts.sum())
    p0 = base_counts / n

    def s_of(p):
        d2 = _ordinal_delta2(p)
        return 1.0 - float(np.sum(pair_weights * d2)) / float(p @ d2 @ p)

    k = p0.size
    grad = np.zeros(k)
    h = 1e-6
    for c in range(k):
        e = np.zeros(k)
        e[c] = h
        grad[c] = (s_of(p0 + e) - s_of(p0 - e)) / (2 * h)
    cov = (np.diag(p0) - np.outer(p0, p0)) / n
    return max(float(grad @ cov @ grad), 0.0)
