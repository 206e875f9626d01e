"""The interval of phi / psi over several objects (``confidence_interval``): its targets
("population", "objects"), the baseline's sampling error and the zero-inflated form for
classes; see :func:`predstab.phi` (Notes).

Targets and assumptions (coverage measured in docs/benchmarks/coverage.md):

- ``"population"``: the mean :math:`1 - E[\\theta_i] / D_e` over the population of objects
  the test objects are a random sample of (independent objects; ``D_e`` fixed).
- ``"objects"``: the mean :math:`1 - \\bar\\theta / D_e` over these objects; only the refits'
  noise counts (independent refits; ``D_e`` fixed).
- ``baseline_error=True``: either target with ``D_e`` random too (the baseline is a sample
  independent of the test objects), the two intervals joined on the log scale (MOVER).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from .._core._utils import ConfidenceInterval
from ._object_intervals import _chi2_ppf, _norm_ppf, _t_ppf

# from this many objects on, the upper end of the population's mean disagreement (the lower end
# of its stability) is at least the gamma form's at alpha / 4: the mean of right-skewed D_o,i is
# short of its upper quantile (lognormal(1) objects' variances: coverage 0.92 -> 0.94 at N = 10)
_SKEW_GUARD_MIN_OBJECTS = 5


@dataclass(frozen=True)
class _OverallInputs:
    """What one call hands to :func:`_overall_interval`.

    ``d_o_i`` and ``count``: each object's disagreement and number of refits (NaN ``D_o,i``:
    the object is left out); ``d_e``: the expected disagreement; ``scale``; ``delta2``: the
    ordinal squared distances (None otherwise); ``n_categories`` (None for metric data);
    ``object_low``: the per-object lower bounds of ``D_o,i``; ``refit_var``: the jackknife
    variances of the ``D_o,i`` (target ``"objects"``); ``base_var_d_e``: the delta-method
    variance of ``D_e`` and ``base_var_s``: of ``S`` from the baseline (ordinal), for
    ``baseline_error``.
    """

    d_o_i: np.ndarray
    count: np.ndarray
    d_e: float
    scale: str
    delta2: np.ndarray | None = None
    n_categories: int | None = None
    object_low: np.ndarray | None = None
    refit_var: np.ndarray | None = None
    base_var_d_e: float | None = None
    base_var_s: float | None = None


def _overall_interval(inputs, confidence_level, *, target, baseline_error, notes=None):
    """``confidence_interval`` for several objects; see :func:`phi` (Notes) for the targets.

    The interval of the mean disagreement ``D_o`` for ``target`` (:func:`_mean_bounds`),
    divided by ``D_e``; with ``baseline_error``, joined with ``D_e``'s own interval by MOVER on
    the log scale (:func:`_with_baseline_error`). Every refit agreeing (classes): a one-sided
    bound. ``notes`` (a list) receives what the interval says in words (``interval_note``).
    """
    alpha = 1.0 - confidence_level
    kept = ~np.isnan(inputs.d_o_i)
    n_obj = int(kept.sum())
    mean = float(np.mean(inputs.d_o_i[kept]))
    d_e = inputs.d_e
    weight = 1.0 if inputs.delta2 is None else float(inputs.delta2.max())  # theta <= max delta^2 * q
    if mean == 0.0 and inputs.scale != "metric":
        # every refit of every object agrees: a one-sided bound from the agreeing pairs. Under
        # "objects", m disjoint pairs per object agree with probability prod (1 - theta_i)^m
        # <= (1 - mean theta)^(N m) (AM-GM); under "population" the first pair of each object
        # agrees with probability (1 - theta_pop)^N. Either way the exact binomial (Clopper-
        # Pearson) upper bound of the disagreement probability q with no disagreement seen.
        pairs = n_obj * int(np.min(inputs.count[kept]) // 2) if target == "objects" else n_obj
        q_high = 1.0 - alpha ** (1.0 / pairs)
        if baseline_error:  # MOVER with a zero-width lower side: D_e at its own lower bound
            d_e = d_e * math.exp(-_log_baseline_halves(inputs, mean, alpha)[0])
        return ConfidenceInterval(1.0 - weight * q_high / d_e, 1.0)
    low_d, high_d = _mean_bounds(inputs, kept, alpha, target=target, weight=weight,
                                 notes=[] if notes is None else notes)
    if baseline_error and mean > 0:  # metric refits all equal keep the point [1, 1], D_e or not
        return _with_baseline_error(inputs, mean, low_d, high_d, alpha)
    return ConfidenceInterval(float(1.0 - high_d / d_e), float(1.0 - low_d / d_e))


def _mean_bounds(inputs, kept, alpha, *, target, weight, notes):
    """``(low, high)`` of the mean disagreement ``D_o`` for ``target``, ``D_e`` aside.

    ``"population"``: the variance of the mean is at least the refits' own noise
    ``sum v_i / N^2`` (issue 34, item 7), and the interval at most ``_OVERALL_WIDTH_CAP`` times
    the normal-theory (t) interval's width with that variance, ``2 z sqrt(var)`` (item 6: with
    3 objects the skewed forms reached hundreds of stability units); ``notes`` says when it is
    wider than ``_OVERALL_WIDTH_BUDGET`` times that or was capped. ``"objects"``: the variance
    ``sum v_i / N^2`` widened by ``(t_nu / z)^2``, ``nu = sum (R_i - 1)`` (the jackknife
    variances are estimated from few refits).
    """
    x = inputs.d_o_i[kept]
    n_obj = x.size
    if inputs.scale != "metric" and np.any(x == 0):
        return _zero_inflated_mean(
            x, inputs.count[kept], alpha, target=target,
            refit_var=None if inputs.refit_var is None else inputs.refit_var[kept], weight=weight,
            n_categories=inputs.n_categories,
            object_low=None if inputs.object_low is None else inputs.object_low[kept])
    mean = float(np.mean(x))
    if target == "objects":
        low_d, high_d = _objects_bounds(mean, inputs.refit_var[kept], inputs.count[kept], alpha)
        if inputs.scale != "metric":
            return low_d, high_d
        # the normal-theory variance of the mean of the objects' s^2: Var(s^2) = 2 sigma^4 / (R - 1),
        # sigma^4 estimated without bias by s^4 (R - 1) / (R + 1)
        var_normal = float(np.sum(2.0 * x * x / (inputs.count[kept] + 1.0))) / n_obj ** 2
        return _width_limited(low_d, high_d, mean, var_normal, alpha, notes, cap=_OBJECTS_WIDTH_CAP,
                              what=(f"the interval of these {n_obj} objects", "normal-theory",
                                    "objects' refits are too few or too far from normal"))
    if target == "population":
        # the variance of the mean, widened by (t_{N-1} / z)^2 for being estimated from N objects;
        # metric D_o,i can be strongly right-skewed over objects: the union with a bootstrap-t,
        # and the upper end at least the gamma's at alpha / 4
        var_mean = _widened_variance_of_mean(x, alpha)
        floor = 0.0
        if inputs.refit_var is not None:
            # at least the refits' own noise in the mean (issue 34): N objects can agree by chance
            # (two classes, every object split 3-2 of 5 votes: a sample variance of 0, the point
            # [-0.2, -0.2] before), while each D_o,i still varies over its refits
            floor = float(np.sum(inputs.refit_var[kept])) / n_obj ** 2
            var_mean = max(var_mean, floor)
        low_d, high_d = _gamma_mean(mean, var_mean, alpha)
        if inputs.scale == "metric":
            boot_low, boot_high = _bootstrap_t_mean(x, alpha)
            # a bootstrap-t lower bound cut at 0 (few non-zero D_o,i) says nothing: the gamma's stays
            low_d, high_d = min(low_d, boot_low) if boot_low > 0 else low_d, max(high_d, boot_high)
            if n_obj >= _SKEW_GUARD_MIN_OBJECTS:  # the whole gamma form at alpha / 2: tail alpha / 4
                guard = max(_widened_variance_of_mean(x, alpha / 2), floor)
                high_d = max(high_d, _gamma_mean(mean, guard, alpha / 2)[1])
        return _width_limited(low_d, high_d, mean, var_mean, alpha, notes, cap=_OVERALL_WIDTH_CAP,
                              what=("a population interval", "normal-theory (t)",
                                    f"{n_obj} objects' disagreements are too few or too skewed"))
    raise ValueError(f"unknown interval target {target!r}")  # the public functions declare it


def _objects_bounds(mean, refit_var, count, alpha):
    """Bounds of the mean of these objects' disagreements (target ``"objects"``): the gamma form
    with the variance ``sum v_i / N^2`` of the jackknife variances ``v_i``, widened by
    ``(t_nu / z)^2`` with Satterthwaite's ``nu = (sum v_i)^2 / sum (v_i^2 / (R_i - 1))``: a sum
    dominated by a few objects' variances has about their degrees of freedom, not ``sum (R_i - 1)``
    (lognormal(1) objects' variances, N = 5, R = 5: coverage 0.933 with the latter)."""
    df = np.maximum(count - 1, 1).astype(float)
    total = float(np.sum(refit_var))
    nu = total * total / float(np.sum(refit_var * refit_var / df)) if total > 0 else float(np.sum(df))
    widen = (_t_ppf(1 - alpha / 2, nu) / _norm_ppf(1 - alpha / 2)) ** 2
    return _gamma_mean(mean, widen * total / count.size ** 2, alpha)


# the population interval of D_o: at most _OVERALL_WIDTH_CAP x the normal-theory interval's width,
# that of these objects at most _OBJECTS_WIDTH_CAP x it; the note says when either is wider than
# _OVERALL_WIDTH_BUDGET x it (the goal of issue 34)
_OVERALL_WIDTH_BUDGET = 2.0
_OVERALL_WIDTH_CAP = 3.0
_OBJECTS_WIDTH_CAP = 10.0


def _width_limited(low_d, high_d, mean, var_ref, alpha, notes, *, cap, what):
    """``(low_d, high_d)`` with the upper end cut to ``low_d + cap x`` the width
    ``2 z sqrt(var_ref)`` of the normal-theory interval (population: ``var_ref`` the variance of
    the mean widened by ``(t_{N-1} / z)^2``, the t interval; these objects: the normal-theory
    variance of the mean of the objects' ``s^2``). With lognormal(1) objects' variances and 3-5
    normal refits the caps keep the coverage at least 0.94 for N = 3-10 (docs/benchmarks/coverage.md;
    a cap of 3 x on these objects cost t5 refits 0.91-0.92 at R = 5, hence 10 x);
    ``notes`` gets a sentence when the interval is wider than ``_OVERALL_WIDTH_BUDGET x`` it.
    ``what``: (the interval, the reference interval, why it is wide) in words."""
    reference = 2.0 * _norm_ppf(1 - alpha / 2) * math.sqrt(max(var_ref, 0.0))
    if not reference > 0 or high_d - low_d <= _OVERALL_WIDTH_BUDGET * reference:
        return low_d, high_d
    capped = high_d - low_d > cap * reference
    high_d = max(min(high_d, low_d + cap * reference), mean)
    subject, ref_name, reason = what
    notes.append(
        f"The {reason} for {subject} within {_OVERALL_WIDTH_BUDGET:g} x the {ref_name} interval's width "
        "at this level: "
        + (f"its upper end of the disagreement is cut at {cap:g} x that width, where the coverage study "
           "measured at least 0.94 at 3-10 objects with lognormal(1) objects' variances and normal "
           "refits; more skewed objects or heavier-tailed refits may cover less "
           "(docs/benchmarks/coverage.md)."
           if capped else f"it is {(high_d - low_d) / reference:.2g} x that width."))
    return low_d, high_d


def _log_baseline_halves(inputs, mean, alpha):
    """``(lower, upper)`` distances of ``log D_e``'s interval from ``log D_e``: the gamma form of
    ``D_e`` (a variance or a disagreement, right-skewed) with its delta-method variance; ordinal
    (``Delta`` moves with the baseline): ``z`` times the delta-method standard error of ``S``
    over ``D_o / D_e``, symmetric."""
    d_e = inputs.d_e
    if inputs.base_var_s is not None:
        z = _norm_ppf(1 - alpha / 2)
        half = z * math.sqrt(inputs.base_var_s) / (mean / d_e) if mean > 0 else 0.0
        return half, half
    e_low, e_high = _gamma_mean(d_e, inputs.base_var_d_e, alpha)
    return math.log(d_e) - math.log(e_low), math.log(e_high) - math.log(d_e)


def _with_baseline_error(inputs, mean, low_d, high_d, alpha):
    """The interval of ``S = 1 - D_o / D_e`` with ``D_e`` random: MOVER (Zou & Donner 2008) for
    ``log D_o - log D_e`` from the two intervals, each at the full level (independent samples).
    A lower end of ``D_o`` at 0 gives an upper end of ``S`` at 1."""
    e_down, e_up = _log_baseline_halves(inputs, mean, alpha)
    log_ratio = math.log(mean) - math.log(inputs.d_e)
    up = math.sqrt((math.log(high_d) - math.log(mean)) ** 2 + e_down ** 2)
    ratio_high = math.exp(log_ratio + up)
    ratio_low = 0.0
    if low_d > 0:
        down = math.sqrt((math.log(mean) - math.log(low_d)) ** 2 + e_up ** 2)
        ratio_low = math.exp(log_ratio - down)
    return ConfidenceInterval(float(1.0 - ratio_high), float(1.0 - ratio_low))


def _widened_variance_of_mean(x, alpha):
    n = x.size
    widen = (_t_ppf(1 - alpha / 2, n - 1) / _norm_ppf(1 - alpha / 2)) ** 2
    return float(np.var(x, ddof=1)) / n * widen


def _gamma_mean(mean, var_mean, alpha):
    """Bounds of a non-negative, right-skewed mean: a scaled chi-square (gamma) with its mean and
    variance, whose skewness the t interval lacks."""
    if not var_mean > 0:
        return mean, mean
    df = 2.0 * mean * mean / var_mean
    return (float(df * mean / _chi2_ppf(1 - alpha / 2, df)),
            float(df * mean / _chi2_ppf(alpha / 2, df)))


_BOOTSTRAP_T_RESAMPLES = 999
# beyond, the gamma form alone: the skewness of a mean falls as 1 / sqrt(N), the cost grows as B x N
_BOOTSTRAP_T_MAX_OBJECTS = 500


def _bootstrap_t_mean(x, alpha):
    """Studentized (bootstrap-t) bounds of the mean of ``x`` over objects (Efron & Tibshirani 1993,
    ch. 12; second-order accurate for skewed means, Hall 1992). 999 resamples from a fixed seed,
    so the interval is a function of the data. Resamples with zero spread are left out."""
    n = x.size
    m, s = float(np.mean(x)), float(np.std(x, ddof=1))
    if n > _BOOTSTRAP_T_MAX_OBJECTS or not s > 0:
        return m, m
    rng = np.random.default_rng(0)
    xb = x[rng.integers(0, n, size=(_BOOTSTRAP_T_RESAMPLES, n))]
    sb = np.std(xb, axis=1, ddof=1)
    ok = sb > 0
    t = (np.mean(xb[ok], axis=1) - m) / sb[ok]
    t_low, t_high = np.quantile(t, [alpha / 2, 1 - alpha / 2])
    return max(m - t_high * s, 0.0), m - t_low * s


def _zero_inflated_mean(x, count, alpha, *, target, refit_var, weight, n_categories, object_low):
    """Bounds of the mean disagreement of classes when some objects never disagreed (``D_o,i = 0``).

    The mean is the share of disagreeing objects times their mean, ``k/N * mean(x | x > 0)``;
    a gamma form of all ``N`` values is too short when only one or two disagree. Half of
    ``alpha`` goes to each factor (Bonferroni): ``"population"``: the exact Clopper-Pearson
    interval of the share of objects whose refits disagree at all times the gamma interval of
    the mean of the disagreeing ones (capped at the largest possible disagreement of ``R`` votes
    over ``K`` categories, ``weight`` times the share of disagreeing pairs of an even split; with
    one disagreeing object, that largest value).
    ``"objects"``: the objects that never disagreed contribute at most the exact binomial upper
    bound of their disagreement from their agreeing disjoint pairs (as in the all-agree bound),
    the others the gamma interval of their mean with the jackknife variances, its lower end
    lowered to the mean of their per-object (Clopper-Pearson) lower bounds ``object_low``.
    """
    n = x.size
    nonzero = x > 0
    k = int(nonzero.sum())
    a = alpha / 2
    # R votes disagree most when split evenly over the K categories: R^2 - sum n_c^2 ordered pairs
    r = count[nonzero].astype(int)
    per, extra = np.divmod(r, n_categories)
    same = (n_categories - extra) * per ** 2 + extra * (per + 1) ** 2
    largest = weight * float(np.max((r * r - same) / (r * (r - 1.0)))) if k else 0.0
    if target == "population":
        share_low = float(stats.beta.ppf(a / 2, k, n - k + 1)) if k > 0 else 0.0
        share_high = float(stats.beta.ppf(1 - a / 2, k + 1, n - k)) if k < n else 1.0
        if k >= 2:
            nz = x[nonzero]
            m_low, m_high = _gamma_mean(float(np.mean(nz)), _widened_variance_of_mean(nz, a), a)
            m_high = min(m_high, largest)
        else:
            m_low, m_high = float(np.sum(x[nonzero])), largest
        return share_low * m_low, share_high * m_high
    if target == "objects":
        pairs = int(np.sum(count[~nonzero] // 2))
        q_high = 1.0 - (a / 2) ** (1.0 / pairs)
        m_low, m_high = _gamma_mean(float(np.mean(x[nonzero])), float(np.sum(refit_var[nonzero])) / k ** 2, a)
        # the jackknife of one or two disagreeing objects' votes is poor: the lower bound is at
        # most the mean of their own exact (Clopper-Pearson) lower bounds
        low = min(k * m_low, float(np.sum(object_low[nonzero]))) / n
        return low, ((n - k) * weight * q_high + k * min(m_high, largest)) / n
    raise ValueError(f"unknown interval target {target!r}")
