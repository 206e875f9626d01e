"""Objects whose refits are far from the pooled shape (issue 34, item 4): the check behind
``per_object_shape_outlier``. The pooled-kurtosis intervals of :mod:`._object_intervals` assume
that every object's refits share one shape; this flags the objects whose refits' kurtosis says
otherwise (the rule in :func:`_shape_outliers`; coverage and false alarms in
docs/benchmarks/coverage.md).
"""

from __future__ import annotations

import math

import numpy as np

# the shape check (issue 34, item 4): at least this many null draws, at most this many draws x
# refits (beyond, fewer draws: the threshold is then at most the draws' maximum)
_SHAPE_MIN_DRAWS = 2000
_SHAPE_MAX_CELLS = 200_000
_SHAPE_MIN_OBJECTS = 3  # objects of at least 4 refits the pooled shape needs to be compared with
# the default's note on heavy tails (issue 34, item 4): the pooled excess kurtosis less two standard
# errors above this, in at least this many objects of 4 refits; at most this many objects named
_TAILS_NOTE_EXCESS = 1.0
_TAILS_NOTE_OBJECTS = 10
_TAILS_NOTE_SHOWN = 3


# beyond the draws' resolution the threshold is extrapolated from a Pareto tail fitted to this
# upper share of the draws (issue 34, item 4: the draws' maximum let 4-35 of 2e4 objects of
# 100 normal refits through)
_TAIL_FIT = 0.05


def _upper_quantile(null, tail):
    """Per column of ``null`` (draws x levels): its ``1 - tail`` quantile (NaN draws ignored).

    Where the draws cannot resolve it (fewer than ``0.5 / tail`` of them: the Bonferroni level
    of many objects, as the draws are capped), the quantile of a Pareto tail fitted to the
    draws above their ``1 - _TAIL_FIT`` quantile ``u`` (an exponential tail of ``log b_2``),
    ``u exp(mean(log(b_2 / u)) log(_TAIL_FIT / tail))``, if larger. Fitted to 2,000 draws it
    lies above the true quantile of the kurtosis of normal and t5 values (10-100 of them, at
    ``tail`` 5e-5; an exponential tail of ``b_2`` itself lay below for normal values, 6.5
    against 7.1 at 100), so the threshold errs high (fewer flags), never at the draws' maximum
    (which flagged about ``M / draws`` objects that share the shape: 4-35 of 2e4 objects of
    100 normal refits).
    """
    q = 1.0 - tail
    with np.errstate(invalid="ignore"):  # an infinite kurtosis (a draw of one distinct value and zeros)
        missing = np.isnan(null).any()
        plain = np.quantile(null, q, axis=0) if not missing else np.nanquantile(null, q, axis=0)
        valid = np.count_nonzero(~np.isnan(null), axis=0)
        short = valid * tail < 0.5
        if not short.any():
            return plain
        u = (np.quantile(null, 1.0 - _TAIL_FIT, axis=0) if not missing
             else np.nanquantile(null, 1.0 - _TAIL_FIT, axis=0))
        over = null > u
        log_excess = np.where(over, np.log(np.where(over, null, 1.0) / u), 0.0)
        scale = np.sum(log_excess, axis=0) / np.maximum(np.count_nonzero(over, axis=0), 1)
        extrapolated = u * np.exp(scale * math.log(_TAIL_FIT / tail))
    return np.where(short, np.maximum(plain, extrapolated), plain)


def _shape_outliers(x, moments, alpha):
    """Objects whose refits are far heavier-tailed than the pooled shape: a boolean per object.

    The pooled interval assumes that every object's refits share one shape (location and scale
    free). Rule: object ``i`` with ``n_i >= 4`` refits is flagged when its sample kurtosis
    ``b_2,i = n_i sum d^4 / (sum d^2)^2`` lies above the ``1 - alpha / M`` quantile (Bonferroni
    over the ``M`` objects checked) of the kurtosis of ``n_i`` values drawn at random from the
    standardised refits ``e = d / sqrt(sum d^2 / n)`` of the ``M`` objects (the pooled shape).
    Deviations from an object's own mean are lighter-tailed than its refits (normal refits,
    30 x 20: 12 % of calls flagged with them alone), so the draws are scale-mixed, ``W e`` with
    ``log W^2 ~ N(-s / 2, s)`` (``E W^2 = 1``, ``E W^4 = exp(s)``), ``s = log((3 + kappa_-i) /
    mean e^4)``, at least 0: ``kappa_-i`` the pooled excess kurtosis of the *other* objects plus
    two standard errors ``sqrt(24 / their refits)`` (the interval's, without the object, which
    would otherwise set its own reference). ``B = max(2000, 20 M)`` draws from a fixed seed, at
    most ``2e5 / max n_i`` (beyond the draws' resolution, the quantile of an exponential tail
    fitted to their top 5 %, :func:`_upper_quantile`); the threshold
    rises with ``s``, so only objects above it at the least ``s`` of all objects are tested
    further, on a grid of 4 values of ``s`` from there to their largest (linear
    interpolation). Needs at least 3 objects of 4 refits (else no flag).
    Cost: ``B max n_i`` draws per grid value, not a pass over ``x``. Returns ``(flags, M)``.
    """
    count, s2, s4 = moments
    flags = np.zeros(count.shape, dtype=bool)
    with np.errstate(invalid="ignore"):
        ok = (count >= 4) & (s2 > 0)
    rows = np.flatnonzero(ok)
    n_checked = rows.size
    if n_checked < _SHAPE_MIN_OBJECTS:
        return flags, n_checked
    n = count[rows].astype(np.int64)
    n_max = int(n.max())
    draws = max(min(max(_SHAPE_MIN_DRAWS, 20 * n_checked), _SHAPE_MAX_CELLS // n_max), 200)
    rng = np.random.default_rng(0)
    # cells uniform over the checked objects' non-missing refits: a row, then a column, redrawn
    # where missing (a row is then drawn in proportion to its refits)
    pick = rows[rng.integers(n_checked, size=draws * n_max)]
    col = rng.integers(x.shape[1], size=pick.size)
    values = x[pick, col]
    for _ in range(1000):
        missing = np.flatnonzero(np.isnan(values))
        if missing.size == 0:
            break
        pick[missing] = rows[rng.integers(n_checked, size=missing.size)]
        col[missing] = rng.integers(x.shape[1], size=missing.size)
        values[missing] = x[pick[missing], col[missing]]
    full = bool(count.min(initial=x.shape[1]) == x.shape[1])  # no missing value
    # np.nanmean's own sum over its count (the same bits), without its warning for a row of
    # missing values only (never drawn, but averaged in the one-pass branch)
    with np.errstate(invalid="ignore", divide="ignore"):
        if pick.size < x.shape[0]:  # fewer draws than objects: the drawn rows' means
            used, where = np.unique(pick, return_inverse=True)
            mean = (x[used].mean(axis=1) if full else np.nansum(x[used], axis=1) / count[used])[where]
        else:  # every row's mean in one pass
            mean = (x.mean(axis=1) if full else np.nansum(x, axis=1) / count)[pick]
    values = ((values - mean) / np.sqrt(s2[pick] / count[pick])).reshape(draws, n_max)
    noise = rng.standard_normal(values.shape)
    levels = np.unique(n)
    level_of = np.searchsorted(levels, n)

    def thresholds(spread):
        """Per count in ``levels``: the 1 - alpha / M quantile of the draws' kurtosis."""
        v = values * np.exp((math.sqrt(spread) * noise - spread / 2) / 2) if spread > 0 else values
        v2 = v * v
        powers = (v, v2, v2 * v, v2 * v2)
        if levels.size == 1:  # every object refitted as often: plain sums
            m1, p2, p3, p4 = (w.sum(axis=1, keepdims=True) / levels for w in powers)
        else:  # the first n values of every draw for each count n present: running sums
            m1, p2, p3, p4 = (np.cumsum(w, axis=1)[:, levels - 1] / levels for w in powers)
        m2 = p2 - m1 * m1
        with np.errstate(invalid="ignore", divide="ignore"):
            null = (p4 - 4.0 * p3 * m1 + 6.0 * p2 * m1 * m1 - 3.0 * m1 ** 4) / (m2 * m2)
        # a draw of equal values (tied refits) has no kurtosis: it does not count
        return _upper_quantile(null, alpha / n_checked)

    b2 = n * s4[rows] / (s2[rows] * s2[rows])
    # each object's spread: the other objects' pooled excess kurtosis (as _pooled_excess_kurtosis)
    # plus two standard errors, against the mean e^4 of the cells drawn from
    m2_, m4_ = s2[rows] / n, s4[rows] / n
    k2 = n * m2_ / (n - 1)
    k4 = n * n * ((n + 1) * m4_ - 3 * (n - 1) * m2_ ** 2) / ((n - 1) * (n - 2) * (n - 3))
    sigma4 = (k2 * k2 - k4 / n) * (n - 1) / (n + 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        others = (np.sum(k4) - k4) / (np.sum(sigma4) - sigma4)
        others = np.where(np.isfinite(others), others, 0.0) + 2.0 * np.sqrt(24.0 / (np.sum(n) - n))
    pool = float(np.sum(n * b2) / np.sum(n))
    spread = np.log(np.maximum(3.0 + others, pool) / pool)
    # the threshold rises with the spread: objects below it at the least spread are not flagged
    least = float(spread.min())
    first = thresholds(least)
    c = np.flatnonzero(b2 > first[level_of])
    if c.size == 0:
        return flags, n_checked
    grid = np.linspace(least, float(spread[c].max()), 4)
    table = np.array([first, *(thresholds(g) for g in grid[1:])])  # (grid, levels)
    limit = np.array([np.interp(sp, grid, table[:, lv])
                      for sp, lv in zip(spread[c], level_of[c], strict=True)])
    flags[rows[c]] = b2[c] > limit
    return flags, n_checked


def _heaviest_tails(moments, kurtosis, se):
    """The objects with the heaviest-tailed refits, for the default's note (no test, no draws).

    The pooled-kurtosis intervals assume that every object's refits share one shape; where the
    refits are heavy-tailed, an object whose refits are heavier-tailed than the others' covers
    less than nominal (random forests with t2 noise: docs/benchmarks/coverage.md). Returned when
    the pooled excess kurtosis ``kurtosis`` less two standard errors ``se`` is above
    ``_TAILS_NOTE_EXCESS`` in at least ``_TAILS_NOTE_OBJECTS`` objects of 4 refits: ``(rows,
    b2, average)``, the (at most ``_TAILS_NOTE_SHOWN``) objects of largest sample kurtosis
    ``b_2,i = n_i sum d^4 / (sum d^2)^2`` among those above the objects' average ``sum n_i b_2,i /
    sum n_i`` (the same statistic: ``b_2`` of a few refits is biased low and at most about
    ``n_i``, so ``3 + kurtosis`` can lie above every object's), largest first; else ``None``.
    From the moments already computed: a few operations per object, no pass over the refits
    (about 1 ms at 1e5 objects; the test of ``object_interval="checked"`` costs 1.5-5.8x
    phi's time).
    """
    count, s2, s4 = moments
    if not kurtosis - 2.0 * se > _TAILS_NOTE_EXCESS:
        return None
    with np.errstate(invalid="ignore", divide="ignore"):
        b2 = np.where((count >= 4) & (s2 > 0), count * s4 / (s2 * s2), np.nan)
    if np.count_nonzero(~np.isnan(b2)) < _TAILS_NOTE_OBJECTS:
        return None
    ok = ~np.isnan(b2)
    average = float(np.sum(count[ok] * b2[ok]) / np.sum(count[ok]))
    above = np.flatnonzero(b2 > average)
    if above.size > _TAILS_NOTE_SHOWN:  # the largest few without sorting them all (linear)
        above = np.sort(above[np.argpartition(-b2[above], _TAILS_NOTE_SHOWN - 1)[:_TAILS_NOTE_SHOWN]])
    top = above[np.argsort(-b2[above], kind="stable")]
    return top, b2[top], average
