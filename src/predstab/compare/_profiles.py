"""rliable's aggregate comparisons of runs x tasks: probability of improvement, performance profiles."""

from __future__ import annotations

import math
from dataclasses import field
from numbers import Integral

import numpy as np

from .._core._docstrings import fill_doc
from .._core._results import Result, r_signif, result
from .._core._utils import ConfidenceInterval, check_rng
from .._core._validation import Interval, Options, validate_params
from ._bootstrap import bootstrap_interval
from ._common import CONFIDENCE, DOC, read_scores
from ._summaries import expanded

__all__ = ["probability_of_improvement", "ProbabilityOfImprovement", "performance_profile"]


def _placements(x, y):
    """For each run ``x[i, t]``: how many runs of ``y`` in task ``t`` lie below it and how many
    are equal to it, from one sort of each column of ``y`` (``n log n``, no ``n_x x n_y`` table).

    Returns ``(order, below, equal)``: ``order`` sorts each column of ``y``; ``below`` /
    ``below + equal`` are the left / right insertion points of ``x[i, t]`` into sorted
    ``y[:, t]``.
    """
    order = np.argsort(y, axis=0, kind="stable")
    ys = np.take_along_axis(y, order, axis=0)
    below = np.empty(x.shape, dtype=np.int64)
    upto = np.empty(x.shape, dtype=np.int64)
    for t in range(x.shape[1]):
        below[:, t] = np.searchsorted(ys[:, t], x[:, t], side="left")
        upto[:, t] = np.searchsorted(ys[:, t], x[:, t], side="right")
    return order, below, upto - below


def _per_task(x, y):
    """P(X > Y) + P(X = Y) / 2 per task (column): the Mann-Whitney U over n_x n_y, by ranks."""
    _, below, equal = _placements(x, y)
    return (below.sum(axis=0) + 0.5 * equal.sum(axis=0)) / (x.shape[0] * y.shape[0])


def _resampled_per_task(idx_x, idx_y, placements):
    """:func:`_per_task` of the resample ``x[idx_x, t]``, ``y[idx_y, t]`` from the placements of
    the original runs (linear in the runs): with ``c_x``, ``c_y`` the times each run is drawn,
    :math:`U^* = \\sum_i c_x(i) \\,(C_y(\\text{below}_i) + \\tfrac12 [C_y(\\text{below}_i +
    \\text{equal}_i) - C_y(\\text{below}_i)])`, :math:`C_y` the cumulated counts of ``y`` in
    sorted order. Integer and half sums: exactly the pairwise count."""
    order, below, equal = placements
    (n_x, n_tasks), n_y = idx_x.shape, idx_y.shape[0]
    tasks = np.arange(n_tasks)
    c_x = np.bincount((idx_x + n_x * tasks).ravel(), minlength=n_x * n_tasks).reshape(n_tasks, n_x).T
    c_y = np.bincount((idx_y + n_y * tasks).ravel(), minlength=n_y * n_tasks).reshape(n_tasks, n_y).T
    cum = np.zeros((n_y + 1, n_tasks))
    np.cumsum(np.take_along_axis(c_y, order, axis=0), axis=0, out=cum[1:])
    low = np.take_along_axis(cum, below, axis=0)
    if not equal.any():             # no run of x equals one of y (continuous scores)
        return (c_x * low).sum(axis=0) / (n_x * n_y)
    high = np.take_along_axis(cum, below + equal, axis=0)
    return (c_x * (low + 0.5 * (high - low))).sum(axis=0) / (n_x * n_y)


@result
class ProbabilityOfImprovement(Result):
    """Result of :func:`probability_of_improvement`.

    Attributes
    ----------
    value : float
        :math:`\\frac1M\\sum_m P(B_m > A_m)`, ties counting half: above 1/2 when B tends to
        beat A.
    per_task : ndarray of shape (n_tasks,)
    confidence_interval : ConfidenceInterval
        Stratified bootstrap percentile interval (runs resampled within each task, for A and
        B independently), expanded by ``expansion``; NaN bounds when ``n_resamples=0``.
    confidence_level : float
    n_resamples : int
    bootstrap_distribution : ndarray of shape (n_resamples,)
        The replicates as drawn (before the expansion).
    expansion : float
        :math:`\\sqrt{m/(m-1)}` with ``m`` the smaller number of runs (1 with ``expand=False``).
    """

    _renamed_attributes = {"distribution": "bootstrap_distribution"}

    value: float
    per_task: np.ndarray
    confidence_interval: ConfidenceInterval
    confidence_level: float
    n_resamples: int
    bootstrap_distribution: np.ndarray = field(repr=False)
    expansion: float = 1.0

    def _str_lines(self):
        lo, hi = self.confidence_interval
        return [" Probability of improvement (Agarwal et al. 2021)", "",
                f"P(B > A) = {r_signif(self.value)} over {len(self.per_task)} tasks",
                f"{100 * self.confidence_level:g} percent stratified bootstrap interval: "
                f"{r_signif(lo)} {r_signif(hi)}"]


def _runs_tasks(values, name):
    arr = read_scores(values, name, ndim=(1, 2))
    return arr[:, None] if arr.ndim == 1 else arr


@fill_doc(**DOC)
@validate_params({"a": ["array-like"], "b": ["array-like"],
                  "n_resamples": [Interval(Integral, 0, None)], "confidence_level": CONFIDENCE,
                  "random_state": ["random_state"], "expand": ["boolean"]},
                 renamed={"scores_x": "b", "scores_y": "a"})
def probability_of_improvement(a, b, /, *, n_resamples=2000, confidence_level=0.95, random_state=None,
                               expand=True):
    r"""Probability that a run of B beats a run of A on a task, averaged over tasks (rliable).

    For task m with runs :math:`a_{1..K}` of A and :math:`b_{1..N}` of B,

    .. math::

        P(B_m > A_m) = \frac{1}{NK}\sum_{i,j} \left(\mathbf 1[b_i > a_j]
        + \tfrac12 \mathbf 1[b_i = a_j]\right),

    the Mann–Whitney U over :math:`NK`; the result is the mean over tasks, above 1/2 when B
    tends to beat A (B over A, as every comparison of ``predstab.compare``). Its interval
    is a stratified bootstrap: runs are resampled with replacement within each task, for A
    and B independently (the number of runs may differ). Resampling ``m`` runs shrinks their
    variance by ``(m-1)/m``: rliable's percentile interval covers 0.91 at 3 runs (95 %
    nominal). With ``expand=True`` (the default) the replicates' deviations from the estimate
    are multiplied by :math:`\sqrt{m/(m-1)}`, ``m`` the smaller number of runs, before the
    percentiles are taken: 0.97-0.98 at 3 runs per task, 0.95-0.97 from 5, 22 % wider at 3 runs
    (docs/benchmarks/calibration.md); ``expand=False`` gives rliable's interval.

    Cost: the U statistic is counted by ranks, one sort of A's runs per task and a binary
    search of each run of B (:math:`O(n \log n)`, not the :math:`N \times K` table of
    pairs: a million runs each take about a second). A resample is counted from the same
    placements and the number of times each run is drawn, linear in the runs: memory a few
    arrays the size of the data, time ``n_resamples`` times the draw of ``N + K`` indices
    (for a million runs per arm, ``n_resamples=2000`` takes minutes: the draws themselves).

    Parameters
    ----------
    a, b : array-like of shape (n_runs_a, n_tasks), (n_runs_b, n_tasks)
        Scores of A and B: one per run (row) and task (column); a 1-D array is one task.
    n_resamples : int, default 2000
        Bootstrap resamples (0: no interval).
    %(confidence_level)s
    %(random_state)s
    expand : bool, default True
        Expand the replicates about the estimate by :math:`\sqrt{m/(m-1)}` (see above);
        ``False``: rliable's percentile interval.

    Returns
    -------
    ProbabilityOfImprovement
        ``.value``, ``.per_task``, ``.confidence_interval``.

    References
    ----------
    Agarwal, R., Schwarzer, M., Castro, P. S., Courville, A. & Bellemare, M. G. (2021). Deep
    reinforcement learning at the edge of the statistical precipice. *NeurIPS*.
    https://doi.org/10.48550/arXiv.2108.13264

    Equals ``rliable.metrics.probability_of_improvement(b, a)`` (rliable's first argument is
    the one that improves; checked in the tests when rliable is installed) and the mean of
    ``scipy.stats.mannwhitneyu(b, a).statistic / (N K)``. For the same seed,
    ``probability_of_improvement(a, b)`` draws the resamples that ``(x, y) = (b, a)`` drew
    before predstab 0.2.0, whose first argument was the improving one.

    Examples
    --------
    >>> a = [[0.6, 0.5], [0.75, 0.7], [0.5, 0.3]]
    >>> b = [[0.9, 0.5], [0.8, 0.6], [0.7, 0.4]]
    >>> r = probability_of_improvement(a, b, n_resamples=0)
    >>> r.per_task.tolist(), round(r.value, 4)
    ([0.8888888888888888, 0.5], 0.6944)
    """
    # x: the runs that may improve (B), y: the reference (A); rliable's and the resamples' order
    y, x = _runs_tasks(a, "a"), _runs_tasks(b, "b")
    if x.shape[1] != y.shape[1]:
        raise ValueError(f"`a` and `b` must have the same tasks (columns); got {y.shape[1]} and "
                         f"{x.shape[1]}.")
    placements = _placements(x, y)
    per_task = (placements[1].sum(axis=0) + 0.5 * placements[2].sum(axis=0)) / (x.shape[0] * y.shape[0])
    value = float(per_task.mean())
    level = float(confidence_level)
    m = min(x.shape[0], y.shape[0])
    factor = math.sqrt(m / (m - 1.0)) if expand and m > 1 else 1.0
    reps = np.empty(int(n_resamples))
    if n_resamples:
        rng = check_rng(random_state)
        for r in range(reps.size):
            idx_x = rng.integers(0, x.shape[0], size=x.shape)
            idx_y = rng.integers(0, y.shape[0], size=y.shape)
            reps[r] = _resampled_per_task(idx_x, idx_y, placements).mean()
        ci = bootstrap_interval(expanded(reps, value, factor), value, level, "percentile")
    else:
        ci = ConfidenceInterval(float("nan"), float("nan"))
    return ProbabilityOfImprovement(value=value, per_task=per_task, confidence_interval=ci,
                                    confidence_level=level, n_resamples=int(n_resamples),
                                    bootstrap_distribution=reps, expansion=factor)


@validate_params({"scores": ["array-like"], "taus": ["array-like"],
                  "kind": [Options(("runs", "mean"))]})
def performance_profile(scores, taus, /, *, kind="runs"):
    r"""Performance profile: the share of scores above each threshold :math:`\tau` (rliable).

    ``kind="runs"`` (rliable's *score distribution*, its default) is
    :math:`\frac{1}{NM}\sum_{n,m} \mathbf 1[x_{n,m} > \tau]` over all runs and tasks;
    ``kind="mean"`` (the *average score distribution*) is the share of tasks whose mean score
    over runs exceeds :math:`\tau`.

    Parameters
    ----------
    scores : array-like of shape (n_runs, n_tasks)
    taus : array-like of shape (n_taus,)
        Thresholds.
    kind : {"runs", "mean"}, default "runs"

    Returns
    -------
    ndarray of shape (n_taus,)

    References
    ----------
    Agarwal, R. et al. (2021). Deep reinforcement learning at the edge of the statistical
    precipice. *NeurIPS*. https://doi.org/10.48550/arXiv.2108.13264

    Dolan, E. D. & Moré, J. J. (2002). Benchmarking optimization software with performance
    profiles. *Math. Program.* 91, 201-213. https://doi.org/10.1007/s101070100263

    Equals rliable's ``score_distributions`` / ``average_score_distributions`` (the
    profiles of ``rliable.library.create_performance_profile``, without its bootstrap bands).

    Examples
    --------
    >>> performance_profile([[0.2, 1.5], [0.9, 1.1]], [0.0, 1.0, 2.0]).tolist()
    [1.0, 0.5, 0.0]
    >>> performance_profile([[0.2, 1.5], [0.9, 1.1]], [0.5, 1.0], kind="mean").tolist()
    [1.0, 0.5]
    """
    arr = _runs_tasks(scores, "scores")
    t = read_scores(taus, "taus")
    values = arr.ravel() if kind == "runs" else arr.mean(axis=0)
    # share above each tau: one sort, then a search per threshold (linear in the data)
    ordered = np.sort(values)
    return 1.0 - np.searchsorted(ordered, t, side="right") / ordered.size
