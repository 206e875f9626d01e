"""Paired bootstrap of any metric (F1, ROC AUC, corpus-level scores) for two models."""

from __future__ import annotations

import inspect
from dataclasses import field
from numbers import Integral

import numpy as np
import pandas as pd
from scipy import stats

from .._core._docstrings import fill_doc
from .._core._exceptions import PredstabDegenerateWarning, PredstabUndefinedWarning, warn_outside
from .._core._results import Result, r_pvalue, r_signif, result
from .._core._utils import ConfidenceInterval, check_rng
from .._core._validation import Interval, Options, validate_params
from ._common import CONFIDENCE, DOC, read_scores, refuse_masked, rng_keyword
from ._resampling import BLOCK_BYTES, bootstrap_means, bootstrap_unit_means, scaled_std
from ._results import StatisticPvalue

__all__ = ["paired_bootstrap", "PairedBootstrapResult", "bootstrap_ci", "BootstrapResult",
           "bootstrap_interval", "null_centred_pvalue"]

_METHODS = ("percentile", "basic", "bca")


@result
class PairedBootstrapResult(StatisticPvalue, Result):
    """Result of :func:`paired_bootstrap`.

    Unpacks to ``(statistic, pvalue)`` (the difference B - A and its bootstrap p-value), as
    SciPy's test results do.

    Attributes
    ----------
    score_a, score_b, difference : float
        Metric of A and B on all cases, and ``score_b - score_a``.
    confidence_interval : ConfidenceInterval
        Interval of the difference B - A (also ``ci_difference``).
    ci_a, ci_b : ConfidenceInterval
        Bootstrap intervals of A's and B's metric.
    standard_error_a, standard_error_b, standard_error_difference : float
        Bootstrap standard errors (SD of the bootstrap distribution).
    bootstrap_distribution : ndarray of shape (n_resamples, 3)
        Bootstrap replicates of (score_a, score_b, difference).
    pvalue : float
        Two-sided bootstrap p-value for "no difference" (null: the metric's difference
        B - A is 0), by the null-centred rule: the share of replicates whose distance to the
        observed difference is at least the observed difference's distance to 0,
        ``(+1)/(n+1)`` corrected so it is never 0 (:func:`null_centred_pvalue`; ties, as in
        accuracy, count like any replicate).
    confidence_level : float
    method : str
        "percentile", "basic" or "bca".
    n_units : int
        Resampled units (cases, or clusters when ``groups`` is given).
    """

    score_a: float
    score_b: float
    difference: float
    confidence_interval: ConfidenceInterval
    ci_a: ConfidenceInterval
    ci_b: ConfidenceInterval
    standard_error_a: float
    standard_error_b: float
    standard_error_difference: float
    bootstrap_distribution: np.ndarray = field(repr=False)
    pvalue: float
    confidence_level: float
    method: str
    n_units: int

    _renamed_attributes = {"se_a": "standard_error_a", "se_b": "standard_error_b",
                           "se_difference": "standard_error_difference",
                           "distribution": "bootstrap_distribution"}

    @property
    def statistic(self) -> float:
        """The observed difference ``score_b - score_a``."""
        return self.difference

    @property
    def ci_difference(self) -> ConfidenceInterval:
        """Interval of the difference (``confidence_interval``)."""
        return self.confidence_interval

    def summary_frame(self) -> pd.DataFrame:
        """One row each for A, B and the difference: estimate, standard error, interval."""
        ci = (self.ci_a, self.ci_b, self.confidence_interval)
        return pd.DataFrame({
            "quantity": ["A", "B", "B - A"],
            "estimate": [self.score_a, self.score_b, self.difference],
            "standard_error": [self.standard_error_a, self.standard_error_b, self.standard_error_difference],
            "ci_low": [c.low for c in ci],
            "ci_high": [c.high for c in ci],
        })

    def to_frame(self) -> pd.DataFrame:
        """One row: the difference B - A with its interval (``ci_low`` / ``ci_high``), both scores
        and the p-value; :meth:`summary_frame` has A, B and B - A in three rows."""
        return pd.DataFrame({"score_a": [self.score_a], "score_b": [self.score_b],
                             "difference": [self.difference],
                             "standard_error_difference": [self.standard_error_difference],
                             "pvalue": [self.pvalue], "ci_low": [self.confidence_interval.low],
                             "ci_high": [self.confidence_interval.high]})

    def _str_lines(self):
        pct = f"{100 * self.confidence_level:g}"

        def ci(c):
            return f"{r_signif(c.low)} to {r_signif(c.high)}"

        n_resamples = self.bootstrap_distribution.shape[0]
        return [f" Paired bootstrap ({self.method} intervals, {n_resamples} resamples of {self.n_units} "
                "units)", "",
                f"A = {r_signif(self.score_a)} ({pct}% CI {ci(self.ci_a)}); "
                f"B = {r_signif(self.score_b)} ({pct}% CI {ci(self.ci_b)})",
                f"B - A = {r_signif(self.difference)} ({pct}% CI {ci(self.confidence_interval)}), "
                + r_pvalue(self.pvalue)]


@result
class BootstrapResult(Result):
    """Result of :func:`bootstrap_ci`.

    Attributes
    ----------
    value : float
        The statistic on the observed scores.
    confidence_interval : ConfidenceInterval
    standard_error : float
        SD of the bootstrap distribution.
    confidence_level : float
    method : str
        "percentile", "basic" or "bca".
    n_resamples : int
    bootstrap_distribution : ndarray of shape (n_resamples,)
    note : str
        Empty, or (fewer than :data:`FEW_SCORES` scores) the warning that the interval is
        too narrow at this size and which interval to use instead.
    """

    value: float
    confidence_interval: ConfidenceInterval
    standard_error: float
    confidence_level: float
    method: str
    n_resamples: int
    bootstrap_distribution: np.ndarray = field(repr=False)
    note: str = ""

    _renamed_attributes = {"distribution": "bootstrap_distribution"}

    def _str_lines(self):
        lo, hi = self.confidence_interval
        return [f" Bootstrap {self.method} interval ({self.n_resamples} resamples)", "",
                f"statistic = {r_signif(self.value)}, standard error = {r_signif(self.standard_error)}",
                f"{100 * self.confidence_level:g} percent confidence interval:",
                f" {r_signif(lo, 7)} {r_signif(hi, 7)}"] + (["", "Note: " + self.note] if self.note else [])


#: below this many scores :func:`bootstrap_ci`'s result carries a note: its intervals under-cover
FEW_SCORES = 30


def _few_scores_note(n, statistic):
    if n >= FEW_SCORES:
        return ""
    instead = ("use mean_ci (the t interval: 0.95 at 10 normal scores)" if statistic is np.mean else
               "prefer an interval with a small-sample justification")
    return (f"with {n} scores bootstrap intervals are too narrow (a 95 % percentile interval of a mean "
            f"covers about 0.91 at 10 normal scores, 0.79 at 10 lognormal ones); {instead}.")


def bootstrap_interval(replicates, estimate, level, method, jackknife=None):
    """Percentile, basic or BCa interval from bootstrap replicates (one statistic).

    ``jackknife`` holds the leave-one-unit-out estimates needed for BCa's acceleration.

    One rule for every statistic (the degenerate cases of ``predstab._core._convention``):

    - a constant bootstrap distribution gives the point interval ``(c, c)`` at its value,
      with a :class:`~predstab.PredstabDegenerateWarning` (no spread to measure);
    - BCa's bias correction counts replicates equal to the estimate half below, half above
      (as :func:`scipy.stats.bootstrap`); discrete statistics (a median of 0/1 scores,
      accuracy) hit the estimate exactly;
    - BCa's acceleration is 0 when the jackknife estimates do not vary (a median of 0/1
      scores: every leave-one-out median is the same; :func:`scipy.stats.bootstrap` divides
      0 by 0 there and returns ``(nan, nan)``); the interval is then the bias-corrected
      percentile interval;
    - when every replicate lies strictly on one side of the estimate, BCa is undefined
      (an infinite bias correction): the interval is ``(nan, nan)`` with a
      :class:`~predstab.PredstabUndefinedWarning` that names the percentile interval as the
      one to use.
    """
    reps = np.asarray(replicates, dtype=float)
    alpha = (1.0 - level) / 2.0
    if np.ptp(reps) == 0.0:
        warn_outside(f"The bootstrap distribution is a single point ({r_signif(float(reps[0]))}); the "
                     "interval has no width.", PredstabDegenerateWarning)
        return ConfidenceInterval(float(reps[0]), float(reps[0]))
    if method == "percentile":
        probs = np.array([alpha, 1.0 - alpha])
    elif method == "basic":  # reflect the percentile interval about the estimate
        low, high = np.quantile(reps, [1.0 - alpha, alpha])
        return ConfidenceInterval(float(2.0 * estimate - low), float(2.0 * estimate - high))
    elif method == "bca":
        # ties count half: discrete metrics (accuracy, F1) often hit the estimate exactly
        share_below = np.mean(reps < estimate) + 0.5 * np.mean(reps == estimate)
        if not 0.0 < share_below < 1.0:
            warn_outside("BCa interval is undefined (the bootstrap distribution lies entirely on one "
                         "side of the estimate); returning NaN. Use method='percentile'.",
                         PredstabUndefinedWarning)
            return ConfidenceInterval(float("nan"), float("nan"))
        z0 = stats.norm.ppf(share_below)
        acc = _acceleration(jackknife)
        z = stats.norm.ppf([alpha, 1.0 - alpha])
        probs = stats.norm.cdf(z0 + (z0 + z) / (1.0 - acc * (z0 + z)))
        if not np.all(np.isfinite(probs)):
            warn_outside("BCa interval is undefined (the jackknife acceleration is not finite); "
                         "returning NaN. Use method='percentile'.", PredstabUndefinedWarning)
            return ConfidenceInterval(float("nan"), float("nan"))
    else:
        raise ValueError(f"`method` must be one of {_METHODS}; got {method!r}.")
    low, high = np.quantile(reps, probs)
    return ConfidenceInterval(float(low), float(high))


def _acceleration(jackknife):
    """BCa's acceleration :math:`\\sum d^3 / (6 (\\sum d^2)^{3/2})` of the jackknife deviations
    ``d = mean - theta_(i)``, scaled first (no overflow at 1e300); 0 when they do not vary."""
    jk = np.asarray(jackknife, dtype=float)
    dev = jk.mean() - jk
    top = np.max(np.abs(dev))
    if not top > 0.0:
        return 0.0
    dev = dev / top
    return float(np.sum(dev ** 3) / (6.0 * np.sum(dev ** 2) ** 1.5))


def null_centred_pvalue(replicates, observed):
    r"""Two-sided bootstrap p-value of "no difference" by the null-centred rule.

    The bootstrap distribution of :math:`\hat d^* - \hat d` stands for that of
    :math:`\hat d - d` under the null :math:`d = 0` (Hall & Wilson 1991; the "shifted"
    test of Berg-Kirkpatrick et al. 2012): the p-value is the share of replicates with
    :math:`|\hat d^* - \hat d| \ge |\hat d|`, :math:`(+1)/(R+1)` corrected. Replicates that
    tie, as accuracy differences do (a resample without any discordant case gives exactly
    0), are counted by the same rule, so identical predictions give ``p = 1`` and one
    improvement without any regression is far from significant (p near 0.6). Counting the
    share of replicates on either side of 0 instead, as before predstab 0.2.0, ignored the
    ties and rejected 40 % of true nulls at 20 cases. ``|d* - d| >= |d|`` is compared with a
    relative tolerance of :math:`10^{-12}` (the two sides round differently).

    Examples
    --------
    >>> null_centred_pvalue(np.zeros(99), 0.0)
    1.0
    >>> round(null_centred_pvalue(np.array([0.0, 1.0, 2.0, 1.0]), 1.0), 3)
    0.6
    """
    d = np.asarray(replicates, dtype=float)
    obs = float(observed)
    # halve both sides: |d* - d| at 1e308 scale would overflow
    far = np.abs(0.5 * d - 0.5 * obs) >= 0.5 * abs(obs) * (1.0 - 1e-12)
    return float(min(1.0, (np.count_nonzero(far) + 1) / (d.size + 1)))


def _paired_bootstrap_iv(y_true, a, b, groups):
    y = np.asarray(refuse_masked(y_true, "y_true"))
    pa, pb = np.asarray(refuse_masked(a, "a")), np.asarray(refuse_masked(b, "b"))
    if y.ndim == 0 or len(y) < 2:
        raise ValueError(f"`y_true` must hold at least 2 cases; got shape {y.shape}.")
    for name, arr in (("a", pa), ("b", pb)):
        if arr.ndim == 0 or len(arr) != len(y):
            raise ValueError(f"`{name}` must have one prediction per case ({len(y)}); got shape {arr.shape}.")
    if groups is None:
        codes = np.arange(len(y))
    else:
        g = np.asarray(groups)
        if g.shape != (len(y),):
            raise ValueError(f"`groups` must have one label per case ({len(y)}); got shape {g.shape}.")
        _, codes = np.unique(g, return_inverse=True)
        if codes.max() < 1:
            raise ValueError("`groups` must contain at least 2 distinct clusters; got 1.")
    return y, pa, pb, codes


@fill_doc(**DOC)
@validate_params({"y_true": ["array-like"], "a": ["array-like"], "b": ["array-like"],
                  "metric": ["callable"], "n_resamples": [Interval(Integral, 2, None)],
                  "confidence_level": CONFIDENCE, "method": [Options(_METHODS)],
                  "groups": ["array-like", None], "random_state": ["random_state"],
                  "per_case": ["boolean"]}, renamed={"pred_a": "a", "pred_b": "b"})
def paired_bootstrap(y_true, a, b, /, *, metric, n_resamples=2000, confidence_level=0.95,
                     method="percentile", groups=None, random_state=None, per_case=False):
    r"""Paired bootstrap of a metric for two models scored on the same cases.

    Null hypothesis (the p-value): the metric's difference B - A is 0.

    Each replicate resamples cases (or whole clusters, ``groups=``) with replacement and
    evaluates ``metric`` for A and B on *the same* resample, so the difference keeps the
    pairing. Works for metrics that are not means of per-case values (F1, ROC AUC,
    corpus-level BLEU). Intervals are percentile, basic or BCa (Efron 1987); BCa's
    acceleration uses the leave-one-unit-out jackknife. (:func:`scipy.stats.bootstrap`
    resamples single observations, not clusters, and keeps no shared replicates of A, B and
    the difference; :func:`bootstrap_ci` uses it for one sample.)

    The p-value tests the null "the metric's difference B - A is 0" by the null-centred
    rule (:func:`null_centred_pvalue`): valid with the ties of discrete metrics, with a type I
    error at most the nominal level, up to Monte Carlo error, from 20 to 1,000 cases with
    3-15 % of them discordant (accuracy; docs/benchmarks/calibration.md). At few discordant
    cases it is conservative; :func:`mcnemar` (``method="mid-p"``) is the sharper test of
    accuracy on the same cases.

    Resample ``r`` draws ``rng.integers(0, n_units, n_units)`` units. An arbitrary ``metric``
    is called twice per resample (and twice per unit for BCa's jackknife): that loop is the
    cost. With ``per_case=True`` the metric is the mean of per-case scores (accuracy,
    squared error, log loss: ``metric`` returns one score per case), and every resample is
    computed at once from the same draws: blocks of resamples gather the units' score
    totals (``predstab.compare._resampling.bootstrap_unit_means``), with at most 64 MiB of
    working memory per block (16 bytes per unit and resample) on top of the
    ``(n_resamples, 3)`` replicates and the data, and the jackknife in closed form,
    :math:`\bar s_{(u)} = (\sum_i s_i - S_u) / (n - n_u)` for unit :math:`u` with score
    total :math:`S_u` over its :math:`n_u` cases. For the same seed the replicates equal,
    up to the rounding of the sums, those of ``metric=lambda y, p: np.mean(per_case_scores)``
    with ``per_case=False``.

    Parameters
    ----------
    y_true : array-like of shape (n_cases, ...)
    a, b : array-like of shape (n_cases, ...)
        Predictions (labels, scores or probabilities) of A and B, one per case. The
        difference is B minus A: ``metric(y_true, b) - metric(y_true, a)``.
    metric : callable
        ``metric(y_true, y_pred) -> float``, e.g. ``sklearn.metrics.f1_score``; with
        ``per_case=True``, ``metric(y_true, y_pred) -> array of shape (n_cases,)``, the
        per-case scores whose mean is the metric (e.g. ``lambda y, p: y == p`` for accuracy,
        ``lambda y, p: (y - p) ** 2`` for the mean squared error).
    n_resamples : int, default 2000
    %(confidence_level)s
    method : {"percentile", "basic", "bca"}, default "percentile"
    groups : array-like of shape (n_cases,), optional
        Cluster labels: whole clusters are resampled (e.g. several cases per patient).
    %(random_state)s
    per_case : bool, default False
        ``metric`` returns per-case scores and the metric is their mean: it is called once
        for A and once for B on all cases, and the resamples are batched (see above).

    Returns
    -------
    PairedBootstrapResult
        ``.score_a``, ``.score_b``, ``.difference``, ``.confidence_interval`` (of the
        difference), ``.ci_a``, ``.ci_b``, standard errors, ``.bootstrap_distribution``,
        ``.summary_frame()``; unpacks to ``(difference, pvalue)``.

    Warns
    -----
    PredstabUndefinedWarning
        A resample on which the metric is undefined (NaN) is dropped; BCa undefined.

    References
    ----------
    Efron, B. (1987). Better bootstrap confidence intervals. *JASA* 82, 171-185.
    https://doi.org/10.1080/01621459.1987.10478410

    Hall, P. & Wilson, S. R. (1991). Two guidelines for bootstrap hypothesis testing.
    *Biometrics* 47, 757-762. https://doi.org/10.2307/2532163

    Koehn, P. (2004). Statistical significance tests for machine translation evaluation.
    *EMNLP*. https://aclanthology.org/W04-3250

    No base-R equivalent (``boot::boot`` with a paired statistic is the nearest); BCa is
    checked against ``scipy.stats.bootstrap`` in the tests.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 200)
    >>> a = np.where(rng.random(200) < 0.75, y, 1 - y)
    >>> b = np.where(rng.random(200) < 0.85, y, 1 - y)
    >>> acc = lambda t, p: float(np.mean(t == p))
    >>> r = paired_bootstrap(y, a, b, metric=acc, n_resamples=500, random_state=1)
    >>> r.confidence_interval.low > 0
    True

    Accuracy as the mean of per-case correctness: the same draws, batched.

    >>> q = paired_bootstrap(y, a, b, metric=lambda t, p: t == p, per_case=True, n_resamples=500,
    ...                      random_state=1)
    >>> bool(np.allclose(q.bootstrap_distribution, r.bootstrap_distribution, rtol=0, atol=1e-12))
    True
    """
    y, pa, pb, codes = _paired_bootstrap_iv(y_true, a, b, groups)
    if per_case:
        return _paired_bootstrap_means((y, pa, pb, codes), metric, int(n_resamples), float(confidence_level),
                                       method, check_rng(random_state))
    n_res, level = int(n_resamples), float(confidence_level)
    rng = check_rng(random_state)
    n_units = int(codes.max()) + 1
    if groups is None:
        members = None
    else:
        order = np.argsort(codes, kind="stable")
        bounds = np.searchsorted(codes[order], np.arange(n_units + 1))
        members = [order[bounds[u]:bounds[u + 1]] for u in range(n_units)]

    def both(idx):
        sa = float(metric(y[idx], pa[idx]))
        sb = float(metric(y[idx], pb[idx]))
        return sa, sb, sb - sa

    def cases(units):
        return units if members is None else np.concatenate([members[u] for u in units])

    full = both(np.arange(len(y)))
    reps = np.empty((n_res, 3))
    for r in range(n_res):
        reps[r] = both(cases(rng.integers(0, n_units, n_units)))
    bad = ~np.all(np.isfinite(reps), axis=1)
    if bad.any():
        warn_outside(f"The metric was undefined (NaN) on {int(bad.sum())} of {n_res} resamples; they "
                     "were dropped.", PredstabUndefinedWarning)
        reps = reps[~bad]
        if len(reps) < 2:
            raise ValueError("`metric` is undefined on almost every resample; cannot bootstrap.")
    jack = None
    if method == "bca":
        jack = np.array([both(cases(np.delete(np.arange(n_units), u))) for u in range(n_units)])
    return _paired_result(full, reps, jack, level, method, n_units)


def _per_case_scores(metric, y, pred, name):
    """``metric(y, pred)`` as a finite float vector of one score per case."""
    raw = metric(y, pred)
    try:
        s = np.asarray(raw, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"`metric` must return numeric per-case scores when `per_case=True`; got "
                        f"{type(raw).__name__} for `{name}`.") from None
    if s.shape != (len(y),):
        raise ValueError(f"`metric` must return one score per case (shape ({len(y)},)) when "
                         f"`per_case=True`; got shape {s.shape} for `{name}`.")
    if not np.all(np.isfinite(s)):
        raise ValueError(f"`metric` must return finite per-case scores when `per_case=True`; got "
                         f"{int((~np.isfinite(s)).sum())} NaN or infinite scores for `{name}`.")
    return s


def _paired_bootstrap_means(data, metric, n_res, level, method, rng):
    """:func:`paired_bootstrap` of a mean of per-case scores, all resamples batched (``data``:
    the checked ``(y, pa, pb, codes)``)."""
    y, pa, pb, codes = data
    sa = _per_case_scores(metric, y, pa, "a")
    sb = _per_case_scores(metric, y, pb, "b")
    n_units = int(codes.max()) + 1
    if n_units == len(y):            # one case per unit: `codes` is 0..n-1 in some order
        totals = np.empty((n_units, 2))
        totals[codes, 0], totals[codes, 1] = sa, sb
        sizes = None
    else:
        totals = np.column_stack([np.bincount(codes, weights=sa, minlength=n_units),
                                  np.bincount(codes, weights=sb, minlength=n_units)])
        sizes = np.bincount(codes, minlength=n_units)
    means = bootstrap_unit_means(totals, sizes, n_res, rng)
    reps = np.column_stack([means, means[:, 1] - means[:, 0]])
    full = (float(np.mean(sa)), float(np.mean(sb)))
    full = (*full, full[1] - full[0])
    jack = None
    if method == "bca":     # leave unit u out: (total - S_u) / (n - n_u)
        left = len(y) - (1 if sizes is None else sizes)
        jack = np.empty((n_units, 3))
        jack[:, 0] = (totals[:, 0].sum() - totals[:, 0]) / left
        jack[:, 1] = (totals[:, 1].sum() - totals[:, 1]) / left
        jack[:, 2] = jack[:, 1] - jack[:, 0]
    return _paired_result(full, reps, jack, level, method, n_units)


def _paired_result(full, reps, jack, level, method, n_units):
    cis = [bootstrap_interval(reps[:, j], full[j], level, method, None if jack is None else jack[:, j])
           for j in range(3)]
    pvalue = null_centred_pvalue(reps[:, 2], full[2])
    se = scaled_std(reps)
    return PairedBootstrapResult(
        score_a=full[0], score_b=full[1], difference=full[2], confidence_interval=cis[2], ci_a=cis[0],
        ci_b=cis[1], standard_error_a=float(se[0]), standard_error_b=float(se[1]),
        standard_error_difference=float(se[2]), bootstrap_distribution=reps,
        pvalue=pvalue, confidence_level=level, method=method, n_units=n_units,
    )


@fill_doc(**DOC)
@validate_params({"scores": ["array-like"], "statistic": ["callable"],
                  "n_resamples": [Interval(Integral, 2, None)], "confidence_level": CONFIDENCE,
                  "method": [Options(_METHODS)], "random_state": ["random_state"]})
def bootstrap_ci(scores, /, statistic=np.mean, *, n_resamples=9999, confidence_level=0.95,
                 method="percentile", random_state=None):
    r"""Bootstrap confidence interval of a statistic of one sample (e.g. the mean score over seeds).

    Resamples the scores with replacement ``n_resamples`` times and computes the interval
    from the replicates :math:`\hat\theta^*`: percentile
    :math:`(\hat\theta^*_{\alpha/2}, \hat\theta^*_{1-\alpha/2})`, basic
    :math:`(2\hat\theta - \hat\theta^*_{1-\alpha/2}, 2\hat\theta - \hat\theta^*_{\alpha/2})`, or
    BCa (bias-corrected and accelerated, Efron 1987), quantiles by linear interpolation as
    :func:`scipy.stats.bootstrap` takes them.

    The default ``statistic=numpy.mean`` runs a batched engine: blocks of
    ``rng.integers(0, n, size=(rows, n))`` indices (the resamples
    :func:`scipy.stats.bootstrap` draws from the same generator) and the mean of each row,
    with BCa's jackknife in closed form, :math:`\hat\theta_{(i)} = (\sum_j x_j - x_i)/(n-1)`;
    working memory at most 64 MiB per block on top of the ``n_resamples`` replicates and the
    data. Any other statistic is resampled by :func:`scipy.stats.bootstrap` (vectorised when it
    takes ``axis=``) in blocks of the same size; BCa's jackknife then costs ``n`` evaluations
    on ``n - 1`` values (vectorised in blocks of at most 64 MiB when it takes ``axis=``).

    Parameters
    ----------
    scores : array-like of shape (n,)
    statistic : callable, default numpy.mean
        ``statistic(sample) -> float``; one taking ``axis=`` is called vectorised.
    n_resamples : int, default 9999
    %(confidence_level)s
    method : {"percentile", "basic", "bca"}, default "percentile"
    %(random_state)s

    Returns
    -------
    BootstrapResult
        ``.value``, ``.confidence_interval``, ``.standard_error``, ``.bootstrap_distribution``.

    BCa follows one rule for every statistic (:func:`bootstrap_interval`): replicates equal to
    the estimate count half below it, and the acceleration is 0 when the jackknife values do
    not vary, so a median of 0/1 scores gets an interval (:func:`scipy.stats.bootstrap`
    returns ``(nan, nan)`` there).

    Few scores: with fewer than 30 (:data:`FEW_SCORES`) the result's ``note`` says that the
    interval is too narrow and which to use instead: the 95 % percentile interval of a mean
    covers 0.91 at 10 normal scores and 0.94 at 30, 0.79 / 0.89 at 10 / 30 lognormal ones,
    where :func:`mean_ci` covers 0.95 at 10 normal scores (0.83 / 0.89 lognormal: no interval
    of a mean is right at 10 skewed scores; docs/benchmarks/calibration.md).

    Warns
    -----
    PredstabUndefinedWarning
        Constant scores: the interval is ``(value, value)``. BCa undefined (every replicate
        strictly on one side of the estimate): ``(nan, nan)``, use ``method="percentile"``.
    PredstabDegenerateWarning
        The bootstrap distribution is a single point (e.g. a median of scores that are
        mostly equal): the interval is that point.

    References
    ----------
    Efron, B. (1987). Better bootstrap confidence intervals. *JASA* 82, 171-185.
    https://doi.org/10.1080/01621459.1987.10478410

    Davison, A. C. & Hinkley, D. V. (1997). *Bootstrap Methods and their Application*, ch. 5.
    Cambridge University Press. https://doi.org/10.1017/CBO9780511802843

    The intervals of `boot::boot.ci(type = "perc" | "basic" | "bca")` (R's quantile rule
    differs slightly); equal to :func:`scipy.stats.bootstrap`'s for the same generator.

    Examples
    --------
    >>> r = bootstrap_ci([40, 42, 44, 45, 46, 47, 48, 49, 50, 51], method="basic", random_state=0)
    >>> round(r.value, 1), r.confidence_interval.low < 46.2 < r.confidence_interval.high
    (46.2, True)
    """
    x = read_scores(scores, "scores", min_size=2)
    level = float(confidence_level)
    value = float(statistic(x))
    if np.ptp(x) == 0.0:
        warn_outside("The scores are constant; the bootstrap distribution is a single point and the "
                     "interval is (value, value).", PredstabUndefinedWarning)
        reps = np.full(int(n_resamples), value)
        return BootstrapResult(value=value, confidence_interval=ConfidenceInterval(value, value),
                               standard_error=0.0, confidence_level=level, method=method,
                               n_resamples=int(n_resamples), bootstrap_distribution=reps)
    n_res = int(n_resamples)
    rng = check_rng(random_state)
    if statistic is np.mean:
        # the same resamples as scipy.stats.bootstrap, in blocks; the jackknife in closed form
        reps = bootstrap_means(x, n_res, rng)
        jack = (np.sum(x) - x) / (x.size - 1) if method == "bca" else None
        ci = bootstrap_interval(reps, value, level, method, jack)
        return BootstrapResult(value=value, confidence_interval=ci,
                               standard_error=scaled_std(reps), confidence_level=level,
                               method=method, n_resamples=n_res, bootstrap_distribution=reps,
                               note=_few_scores_note(x.size, statistic))
    batch = max(1, BLOCK_BYTES // (16 * x.size))   # bounds scipy's resamples and jackknife blocks
    # scipy draws the resamples (its BCa returns (nan, nan) when the jackknife does not vary, e.g.
    # a median of 0/1 scores); the interval is bootstrap_interval's, one rule for every statistic
    with np.errstate(over="ignore", under="ignore"):   # scipy's own SE squares the replicates
        res = stats.bootstrap((x,), statistic, n_resamples=n_res, confidence_level=level, batch=batch,
                              method="percentile", **rng_keyword(stats.bootstrap, rng))
    reps = np.asarray(res.bootstrap_distribution, dtype=float)
    jack = _jackknife(x, statistic) if method == "bca" else None
    ci = bootstrap_interval(reps, value, level, method, jack)
    return BootstrapResult(value=value, confidence_interval=ci,
                           standard_error=scaled_std(reps), confidence_level=level, method=method,
                           n_resamples=n_res, bootstrap_distribution=reps,
                           note=_few_scores_note(x.size, statistic))


def _jackknife(x, statistic):
    """Leave-one-out values of ``statistic``: vectorised in blocks of at most
    :data:`BLOCK_BYTES` when it takes ``axis=``, one call per value otherwise."""
    n = x.size
    try:
        vectorised = "axis" in inspect.signature(statistic).parameters
    except (TypeError, ValueError):
        vectorised = False
    if not vectorised:
        return np.array([float(statistic(np.delete(x, i))) for i in range(n)])
    out = np.empty(n)
    rows = max(1, BLOCK_BYTES // (16 * n))
    for i0 in range(0, n, rows):
        i1 = min(n, i0 + rows)
        keep = np.ones((i1 - i0, n), dtype=bool)
        keep[np.arange(i1 - i0), np.arange(i0, i1)] = False
        out[i0:i1] = statistic(np.broadcast_to(x, keep.shape)[keep].reshape(i1 - i0, n - 1), axis=-1)
    return out
