"""The interval of phi / psi over several objects (``confidence_interval``): its targets
("population", "objects"), the baseline's sampling error and the zero-inflated form for
classes; see :func:`predstab.phi` (Notes)."""

from __future__ import annotations

import numpy as np

from .._core._utils import ConfidenceInterval


def _overall_interval(d_o_i, count, d_e, confidence_level, *, target, baseline_error, refit_var,
                      scale, delta2, base_var_d_e=None, base_var_s=None, n_categories=None, object_low=None):
    """``confidence_interval`` for several objects; see :func:`phi` (Notes) for the targets.

    ``refit_var`` holds the jackknife variances of the ``D_o,i`` (target ``"objects"``).
    """
    from scipy import stats

    alpha = 1.0 - confidence_level
    kept = ~np.isnan(d_o_i)
    x = d_o_i[kept]
    n_obj = x.size
    mean = float(np.mean(x))
    if mean == 0.0 and scale != "metric":
        # every refit of every object agrees: a one-sided bound from the agreeing pairs. Under
        # "objects", m disjoint pairs per object agree with probability prod (1 - theta_i)^m
        # <= (1 - mean theta)^(N m) (AM-GM); under "population" the first pair of each object
        # agrees with probability (1 - theta_pop)^N. Either way the exact binomial (Clopper-
        # Pearson) upper bound of the disagreement probability q with no disagreement seen.
        pairs = n_obj * int(np.min(count[kept]) // 2) if target == "objects" else n_obj
        q_high = 1.0 - alpha ** (1.0 / pairs)
        weight = 1.0 if delta2 is None else float(delta2.max())  # theta <= max delta^2 * q
        return ConfidenceInterval(1.0 - weight * q_high / d_e, 1.0)
    ratio = mean / d_e
    if baseline_error:
        if target == "objects":
            var_mean = float(np.sum(refit_var[kept])) / n_obj ** 2
        elif target == "population":
            widen = (stats.t.ppf(1 - alpha / 2, n_obj - 1) / stats.norm.ppf(1 - alpha / 2)) ** 2
            var_mean = float(np.var(x, ddof=1)) / n_obj * widen
        else:  # the public functions declare `interval_target`
            raise ValueError(f"unknown interval target {target!r}")
        # log(D_o / D_e) from independent samples: relative variances add
        rel = var_mean / mean ** 2
        rel += base_var_s / ratio ** 2 if base_var_s is not None else base_var_d_e / d_e ** 2
        half = stats.norm.ppf(1 - alpha / 2) * np.sqrt(rel)
        return ConfidenceInterval(float(1.0 - ratio * np.exp(half)), float(1.0 - ratio * np.exp(-half)))
    if scale != "metric" and np.any(x == 0):
        low_d, high_d = _zero_inflated_mean(
            x, count[kept], alpha, target=target, refit_var=None if refit_var is None else refit_var[kept],
            weight=1.0 if delta2 is None else float(delta2.max()), n_categories=n_categories,
            object_low=None if object_low is None else object_low[kept])
    elif target == "objects":
        low_d, high_d = _gamma_mean(mean, float(np.sum(refit_var[kept])) / n_obj ** 2, alpha)
    elif target == "population":
        # the variance of the mean, widened by (t_{N-1} / z)^2 for being estimated from N objects;
        # metric D_o,i can be strongly right-skewed over objects: the union with a bootstrap-t
        low_d, high_d = _gamma_mean(mean, _widened_variance_of_mean(x, alpha), alpha)
        if scale == "metric":
            boot_low, boot_high = _bootstrap_t_mean(x, alpha)
            # a bootstrap-t lower bound cut at 0 (few non-zero D_o,i) says nothing: the gamma's stays
            low_d, high_d = min(low_d, boot_low) if boot_low > 0 else low_d, max(high_d, boot_high)
    else:  # the public functions declare `interval_target`
        raise ValueError(f"unknown interval target {target!r}")
    return ConfidenceInterval(float(1.0 - high_d / d_e), float(1.0 - low_d / d_e))


def _widened_variance_of_mean(x, alpha):
    from scipy import stats

    n = x.size
    widen = (stats.t.ppf(1 - alpha / 2, n - 1) / stats.norm.ppf(1 - alpha / 2)) ** 2
    return float(np.var(x, ddof=1)) / n * widen


def _gamma_mean(mean, var_mean, alpha):
    """Bounds of a non-negative, right-skewed mean: a scaled chi-square (gamma) with its mean and
    variance, whose skewness the t interval lacks."""
    from scipy import stats

    if not var_mean > 0:
        return mean, mean
    df = 2.0 * mean * mean / var_mean
    return (float(df * mean / stats.chi2.ppf(1 - alpha / 2, df)),
            float(df * mean / stats.chi2.ppf(alpha / 2, df)))


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
    from scipy import stats

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
