"""Robust summaries of run scores: IQM, rliable's aggregates, t intervals, stratified bootstrap,
best-of-K bias."""

from __future__ import annotations

import math
from dataclasses import field
from numbers import Integral, Real

import numpy as np
from scipy import integrate, stats

from .._core._docstrings import fill_doc
from .._core._results import Result, r_signif, result
from .._core._utils import ConfidenceInterval, check_rng
from .._core._validation import Interval, Options, validate_params
from ._bootstrap import bootstrap_interval
from ._common import CONFIDENCE, DOC, read_scores
from ._resampling import scaled_std

__all__ = ["iqm", "aggregate_mean", "aggregate_median", "optimality_gap", "mean_ci", "MeanCI",
           "stratified_bootstrap_ci", "StratifiedBootstrapResult", "expected_max_normal"]

#: the schemes that draw the runs of a stratified bootstrap (``resampling=``)
RESAMPLING = ("predstab", "rliable")


@validate_params({"x": ["array-like"]})
def iqm(x, /):
    r"""Interquartile mean: the mean of the middle half of the scores.

    Sorts the ``n`` values (all runs × tasks pooled), drops :math:`\lfloor n/4 \rfloor` from
    each end and averages the rest — robust to a few diverged runs, yet far less noisy than
    the median.

    Parameters
    ----------
    x : array-like of any shape
        Scores (pooled over all axes).

    Returns
    -------
    float

    References
    ----------
    Agarwal, R., Schwarzer, M., Castro, P. S., Courville, A. & Bellemare, M. G. (2021). Deep
    reinforcement learning at the edge of the statistical precipice. *NeurIPS*.
    https://doi.org/10.48550/arXiv.2108.13264

    Equals R's `mean(x, trim = 0.25)` and ``scipy.stats.trim_mean(x, 0.25)``.

    Examples
    --------
    >>> iqm([40, 42, 44, 45, 46, 47, 48, 49, 50, 51])
    46.5
    >>> round(iqm([5, 8, 10, 12, 30, 33, 35, 38, 40, 420]), 4)
    26.3333
    """
    return _iqm(read_scores(x, "x", ndim=range(33)))


def _iqm(arr):
    """:func:`iqm` of a float array as read (also each resample of :func:`stratified_bootstrap_ci`,
    without reading it again: the checks cost about 40 % of such a call)."""
    v = np.sort(arr.ravel())
    cut = v.size // 4
    return float(v[cut:v.size - cut].mean())


def _task_means(scores):
    # a 1-D array is one task: its mean (a scalar, whose mean and median are itself)
    return read_scores(scores, "scores", ndim=(1, 2)).mean(axis=0)


@validate_params({"scores": ["array-like"]})
def aggregate_mean(scores, /):
    """Mean over tasks of each task's mean score (rliable's ``aggregate_mean``).

    Parameters
    ----------
    scores : array-like of shape (n_runs, n_tasks)
        One score per run (row) and task (column); a 1-D array is one task.

    Returns
    -------
    float

    References
    ----------
    Agarwal, R. et al. (2021). Deep reinforcement learning at the edge of the statistical
    precipice. *NeurIPS*. https://doi.org/10.48550/arXiv.2108.13264

    Computed as rliable's ``metrics.aggregate_mean`` (the mean of the task means, in that
    order); no base-R function.

    Examples
    --------
    >>> aggregate_mean([[0.2, 1.5, 3.0], [0.4, 0.5, 1.0]])
    1.1
    """
    return float(np.mean(_task_means(scores)))


@validate_params({"scores": ["array-like"]})
def aggregate_median(scores, /):
    """Median over tasks of each task's mean score (rliable's ``aggregate_median``).

    Not the median of all the scores: each task's runs are averaged first, then the median
    is taken over the tasks.

    Parameters
    ----------
    scores : array-like of shape (n_runs, n_tasks)
        One score per run (row) and task (column); a 1-D array is one task.

    Returns
    -------
    float

    References
    ----------
    Agarwal, R. et al. (2021). Deep reinforcement learning at the edge of the statistical
    precipice. *NeurIPS*. https://doi.org/10.48550/arXiv.2108.13264

    Computed as rliable's ``metrics.aggregate_median``; R's ``median(colMeans(scores))``.

    Examples
    --------
    >>> aggregate_median([[0.2, 1.5, 3.0], [0.4, 0.5, 1.0]])
    1.0
    """
    return float(np.median(_task_means(scores)))


@validate_params({"scores": ["array-like"], "gamma": [Interval(Real, None, None)]})
def optimality_gap(scores, /, *, gamma=1.0):
    r"""Optimality gap: how far the scores fall short of ``gamma`` on average (rliable).

    .. math::

        \gamma - \frac{1}{NM}\sum_{n,m} \min(x_{n,m}, \gamma),

    over all ``N`` runs and ``M`` tasks: scores above ``gamma`` count as ``gamma`` (beating
    the target on one task does not make up for missing it on another). Lower is better.

    Parameters
    ----------
    scores : array-like of any shape
        Scores (pooled over all axes), e.g. human-normalised returns.
    gamma : float, default 1.0
        Target score.

    Returns
    -------
    float

    References
    ----------
    Agarwal, R. et al. (2021). Deep reinforcement learning at the edge of the statistical
    precipice. *NeurIPS*. https://doi.org/10.48550/arXiv.2108.13264

    Computed as rliable's ``metrics.aggregate_optimality_gap(scores, gamma)``; no base-R
    function.

    Examples
    --------
    >>> optimality_gap([[0.2, 1.5], [0.4, 0.5]])
    0.475
    >>> round(optimality_gap([[0.2, 1.5], [0.4, 0.5]], gamma=0.5), 6)   # 0.5 - mean(0.2, 0.5, 0.4, 0.5)
    0.1
    """
    g = float(gamma)
    return float(g - np.mean(np.minimum(read_scores(scores, "scores", ndim=range(33)), g)))


@result
class MeanCI(Result):
    """Mean with its t confidence interval.

    Attributes
    ----------
    value : float
        Sample mean.
    standard_error : float
        Standard error :math:`s/\\sqrt n`.
    df : int
    confidence_interval : ConfidenceInterval
    confidence_level : float
    """

    value: float
    standard_error: float
    df: int
    confidence_interval: ConfidenceInterval
    confidence_level: float

    _renamed_attributes = {"se": "standard_error"}

    def _str_lines(self):
        lo, hi = self.confidence_interval
        return [" Mean with Student's t confidence interval", "",
                f"mean = {r_signif(self.value)}, standard error = {r_signif(self.standard_error)}, "
                f"df = {self.df}",
                f"{_pct(self.confidence_level)} percent confidence interval:",
                f" {r_signif(lo, 7)} {r_signif(hi, 7)}"]


def _pct(level):
    return f"{100 * level:g}"


@fill_doc(**DOC)
@validate_params({"x": ["array-like"], "confidence_level": CONFIDENCE})
def mean_ci(x, /, *, confidence_level=0.95):
    r"""Mean of run scores with Student's t confidence interval.

    .. math::

        \bar x \pm t_{1-(1-\text{level})/2,\ n-1}\ s/\sqrt n.

    Parameters
    ----------
    x : array-like of shape (n_runs,)
    %(confidence_level)s

    Returns
    -------
    MeanCI
        ``.value``, ``.standard_error``, ``.df``, ``.confidence_interval``.

    References
    ----------
    Student (1908). The probable error of a mean. *Biometrika* 6, 1-25.
    https://doi.org/10.1093/biomet/6.1.1

    Matches `stats::t.test(x)$conf.int`.

    Examples
    --------
    >>> r = mean_ci([40, 42, 44, 45, 46, 47, 48, 49, 50, 51])
    >>> [round(v, 3) for v in r.confidence_interval]
    [43.681, 48.719]
    """
    arr, level = read_scores(x, "x", min_size=2), float(confidence_level)
    n = arr.size
    se = scaled_std(arr) / math.sqrt(n)
    half = float(stats.t.isf((1.0 - level) / 2.0, n - 1)) * se
    m = float(arr.mean())
    return MeanCI(value=m, standard_error=se, df=n - 1,
                  confidence_interval=ConfidenceInterval(m - half, m + half), confidence_level=level)


@result
class StratifiedBootstrapResult(Result):
    """Result of :func:`stratified_bootstrap_ci`.

    Attributes
    ----------
    value : float
        Statistic on the observed scores.
    confidence_interval : ConfidenceInterval
    standard_error : float
        SD of the bootstrap replicates.
    bootstrap_distribution : ndarray of shape (n_resamples,)
        The replicates as drawn (before the expansion).
    confidence_level : float
    expansion : float
        Factor the replicates' deviations from ``value`` were multiplied by for the interval:
        :math:`\\sqrt{m/(m-1)}\\, t_{1-\\alpha/2,\\,M(m-1)} / z_{1-\\alpha/2}` for ``m`` runs
        per task and ``M`` tasks (the standard error is multiplied by :math:`\\sqrt{m/(m-1)}`);
        1 with ``expand=False``.
    """

    value: float
    confidence_interval: ConfidenceInterval
    standard_error: float
    bootstrap_distribution: np.ndarray = field(repr=False)
    confidence_level: float
    expansion: float = 1.0

    _renamed_attributes = {"se": "standard_error", "distribution": "bootstrap_distribution"}

    _title = "Stratified bootstrap percentile interval"


@fill_doc(**DOC)
@validate_params({"scores": ["array-like"], "statistic": ["callable"],
                  "n_resamples": [Interval(Integral, 2, None)],
                  "confidence_level": CONFIDENCE, "random_state": ["random_state"],
                  "expand": ["boolean"], "resampling": [Options(RESAMPLING)]})
def stratified_bootstrap_ci(scores, /, *, statistic=iqm, n_resamples=2000, confidence_level=0.95,
                            random_state=None, expand=True, resampling="predstab"):
    """Stratified bootstrap interval of an aggregate over runs × tasks (rliable's use case).

    Each replicate resamples the runs *within each task* (column) with replacement, so every
    task keeps its weight, and recomputes ``statistic`` on the resampled table; the interval
    is the percentile interval. The randomness follows ``random_state`` exactly: the same seed
    gives the same interval.

    With ``m`` runs per task, resampling within a task shrinks the variance by ``(m-1)/m``
    (a third at 3 runs), and rliable's percentile interval of the IQM covers 0.86-0.88 at 3
    runs per task and 0.90-0.92 at 5-10 (95 % nominal, 10 tasks;
    docs/benchmarks/calibration.md). With ``expand=True`` (the default) the replicates'
    deviations from the estimate are multiplied by :math:`\\sqrt{m/(m-1)}` (the standard error
    too) and, as a t interval replaces z by t, by :math:`t_{1-\\alpha/2,\\,M(m-1)} /
    z_{1-\\alpha/2}` for ``M`` tasks (the within-task degrees of freedom) before the
    percentiles are taken. The variance factor alone covered 0.91-0.95 at 3 runs depending on
    the seed; with the t factor 0.94-0.95 from 3 runs on normal and skewed scores, about 30 %
    wider than rliable's interval at 3 runs and 7 % at 10. ``expand=False`` gives rliable's
    interval.

    ``resampling="rliable"`` draws the runs as rliable does, so that ``expand=False`` gives
    rliable's endpoints for the same integer seed: rliable's ``StratifiedBootstrap`` (arch's
    ``IIDBootstrap``) draws, for each replicate in turn, one ``(n_runs, n_tasks)`` table of
    run indices by ``np.random.choice(n_runs, (n_runs, n_tasks))`` from NumPy's *global*
    legacy generator (its ``random_state`` argument does not reach these draws), and arch
    takes ``np.percentile`` of the replicates. Here the same draws come from a private
    ``numpy.random.RandomState(random_state)``: ``np.random.seed(s)`` followed by
    ``rliable.library.get_interval_estimates({"A": scores}, func)`` (or
    ``create_performance_profile``, see :func:`performance_profile_ci`) gives the interval of
    ``stratified_bootstrap_ci(scores, statistic=func, random_state=s, resampling="rliable",
    expand=False)``, equal to about 1e-15 (:func:`iqm` sorts where ``scipy.stats.trim_mean``
    partitions, so sums may differ in the last bit). Only the first entry of rliable's
    ``score_dict`` starts from the seed; later entries continue the global stream, so
    reproduce each by seeding before a call with that entry alone. The global generator is
    never read or changed here.

    Parameters
    ----------
    scores : array-like of shape (n_runs, n_tasks)
        One score per run (row) and task (column), e.g. human-normalised returns.
    statistic : callable, default :func:`iqm`
        ``statistic(table) -> float`` on a (runs × tasks) array: :func:`iqm`,
        :func:`aggregate_median`, :func:`aggregate_mean`, :func:`optimality_gap` (rliable's
        four aggregates), ``np.mean``, ...
    n_resamples : int, default 2000
        Replicates (rliable's ``reps``, default 50000 in ``get_interval_estimates``).
    %(confidence_level)s
    random_state : None, int or numpy.random.Generator
        Source of the resamples: the same seed gives the same result; never the global
        generator. With ``resampling="rliable"``: None or an int below 2**32 (the seed of
        rliable's ``np.random.seed``).
    expand : bool, default True
        Expand the replicates about the estimate by :math:`\\sqrt{m/(m-1)}` and the t factor
        (see above); ``False``: rliable's percentile interval.
    resampling : {"predstab", "rliable"}, default "predstab"
        How the runs are drawn: from ``numpy.random.default_rng(random_state)``, or in
        rliable's order from ``numpy.random.RandomState(random_state)`` (see above). The two
        give intervals of the same distribution; only the draws differ.

    Returns
    -------
    StratifiedBootstrapResult
        ``.value``, ``.confidence_interval``, ``.standard_error``, ``.bootstrap_distribution``.

    References
    ----------
    Agarwal, R. et al. (2021). Deep reinforcement learning at the edge of the statistical
    precipice. *NeurIPS*. https://doi.org/10.48550/arXiv.2108.13264

    No base-R equivalent (rliable's ``get_interval_estimates`` in Python; with
    ``resampling="rliable", expand=False`` its endpoints for the same seed, rliable 1.2.0
    with arch 7.2.0, checked in tests/compare/test_rliable_intervals.py).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> table = rng.normal(1.0, 0.3, size=(10, 5))
    >>> r = stratified_bootstrap_ci(table, n_resamples=500, random_state=2)
    >>> r.confidence_interval.low < r.value < r.confidence_interval.high
    True
    """
    arr = read_scores(scores, "scores", ndim=2)
    if arr.shape[0] < 2:
        raise ValueError(f"`scores` must have at least 2 runs (rows) per task; got shape {arr.shape}.")
    n_res, level = int(n_resamples), float(confidence_level)
    n_runs, n_tasks = arr.shape
    value = float(statistic(arr))
    each = _iqm if statistic is iqm else statistic  # a resample is a table already read
    reps = stratified_replicates(arr, lambda table: float(each(table)), n_res, random_state, resampling)
    factor = expansion_factor(n_runs, n_tasks, level) if expand else 1.0
    shrink = math.sqrt(n_runs / (n_runs - 1.0)) if expand else 1.0
    ci = bootstrap_interval(expanded(reps, value, factor), value, level, "percentile")
    return StratifiedBootstrapResult(value=value, confidence_interval=ci,
                                     standard_error=shrink * scaled_std(reps), bootstrap_distribution=reps,
                                     confidence_level=level, expansion=factor)


def expansion_factor(n_runs, n_tasks, level):
    """:math:`\\sqrt{m/(m-1)}\\, t_{1-\\alpha/2,\\,M(m-1)} / z_{1-\\alpha/2}` for ``m`` runs per
    task and ``M`` tasks: the expansion of :func:`stratified_bootstrap_ci` (``expand=True``)."""
    tail = (1.0 - level) / 2.0
    t_over_z = float(stats.t.isf(tail, n_tasks * (n_runs - 1)) / stats.norm.isf(tail))
    return math.sqrt(n_runs / (n_runs - 1.0)) * t_over_z


def _run_draws(random_state, resampling, shape):
    """A function drawing one ``shape`` table of run indices per call (a stratified resample's
    rows): from a Generator (``"predstab"``) or in rliable's order from a private legacy
    ``RandomState`` (``np.random.choice(n, shape)`` is ``randint(0, n, size=shape)``)."""
    n_runs = shape[0]
    if resampling == "predstab":
        rng = check_rng(random_state)
        return lambda: rng.integers(0, n_runs, size=shape)
    elif resampling == "rliable":
        if random_state is not None and not (isinstance(random_state, Integral)
                                             and 0 <= random_state < 2**32):
            seen = (repr(random_state) if isinstance(random_state, Integral)
                    else type(random_state).__name__)
            raise ValueError("`random_state` must be None or an int in [0, 2**32) with "
                             "resampling='rliable' (the seed of rliable's np.random.seed); "
                             f"got {seen}.")
        legacy = np.random.RandomState(random_state)
        return lambda: legacy.randint(0, n_runs, size=shape)
    else:
        raise ValueError(f"`resampling` must be one of {RESAMPLING}; got {resampling!r}.")


def stratified_replicates(arr, statistic, n_resamples, random_state, resampling):
    """``statistic`` of ``n_resamples`` stratified resamples of the runs × tasks table ``arr``
    (runs drawn with replacement within each task, by :func:`_run_draws`), stacked: shape
    ``(n_resamples,) + shape of the statistic``."""
    draw = _run_draws(random_state, resampling, arr.shape)
    cols = np.arange(arr.shape[1])
    return np.array([statistic(arr[draw(), cols]) for _ in range(n_resamples)], dtype=float)


def expanded(replicates, estimate, factor):
    """``estimate + factor * (replicates - estimate)``: the replicates' deviations from the
    estimate multiplied by ``factor`` (the replicates unchanged for ``factor = 1``); halved
    first so that values near 1e308 do not overflow."""
    if factor == 1.0:
        return replicates
    half = 0.5 * replicates - 0.5 * estimate
    return estimate + 2.0 * (factor * half)


@validate_params({"k": [Interval(Integral, 1, None)]})
def expected_max_normal(k):
    r"""Expected maximum of ``k`` independent standard normals: the best-checkpoint bias.

    Picking the best of ``k`` seeds or checkpoints by a noisy score overstates its
    performance by about :math:`\sigma\, E[\max_{i \le k} Z_i]` standard deviations of the
    score noise, where

    .. math::

        E[\max_{i \le k} Z_i] = \int_{-\infty}^{\infty} k\, z\, \varphi(z)\, \Phi(z)^{k-1}\, dz .

    Parameters
    ----------
    k : int
        Number of draws (seeds, checkpoints, configurations).

    Returns
    -------
    float

    References
    ----------
    Tippett, L. H. C. (1925). On the extreme individuals and the range of samples taken from
    a normal population. *Biometrika* 17, 364-387. https://doi.org/10.1093/biomet/17.3-4.364

    No base-R function; checked against the closed forms for k = 2, 3.

    Examples
    --------
    >>> round(expected_max_normal(2), 7)   # 1 / sqrt(pi)
    0.5641896
    >>> [round(expected_max_normal(k), 6) for k in (5, 20, 100)]
    [1.162964, 1.867475, 2.507594]
    """
    k = int(k)
    if k == 1:
        return 0.0

    def integrand(z):
        return k * z * math.exp(stats.norm.logpdf(z) + (k - 1) * stats.norm.logcdf(z))

    value, _ = integrate.quad(integrand, -12.0, 12.0, epsabs=1e-14, epsrel=1e-13, limit=200,
                              points=[float(stats.norm.ppf(0.5 ** (1.0 / k)))])
    return float(value)
