"""rliable's aggregate comparisons of runs x tasks: probability of improvement, performance profiles."""

from __future__ import annotations

import math
from dataclasses import field
from numbers import Integral

import numpy as np
from scipy import stats

from .._core._docstrings import fill_doc
from .._core._exceptions import PredstabDegenerateWarning, warn_outside
from .._core._results import Result, r_signif, result
from .._core._utils import ConfidenceInterval, check_rng
from .._core._validation import Interval, Options, validate_params
from ._bootstrap import bootstrap_interval
from ._common import CONFIDENCE, DOC, read_scores
from ._summaries import expanded

__all__ = ["probability_of_improvement", "ProbabilityOfImprovement", "performance_profile"]

#: ``interval="auto"``: :func:`probability_of_improvement` draws its resamples run by run (the
#: same numbers as before) while that draws at most this many indices, ``n_resamples`` times
#: all runs of A and B (about a second); beyond, see :data:`NORMAL_RUNS`
DRAW_BUDGET = 100_000_000
#: beyond :data:`DRAW_BUDGET`, the interval is normal (the exact bootstrap variance) when the
#: smaller arm has at least this many runs summed over tasks (the bootstrap distribution's
#: skewness shrinks as one over the square root of that number); with fewer, the same bootstrap
#: is drawn as multinomial counts of groups of runs (cost linear in the smaller arm)
NORMAL_RUNS = 1_000


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
        # the runs of x searched in sorted order (each search starts where the last one ended:
        # in cache; unsorted, a million searches in a million took seconds of cache misses), then
        # put back; a small y stays in cache anyway
        ox = np.argsort(x[:, t], kind="stable") if y.shape[0] > 4096 else slice(None)
        xs = x[ox, t]
        below[ox, t] = np.searchsorted(ys[:, t], xs, side="left")
        upto[ox, t] = np.searchsorted(ys[:, t], xs, side="right")
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


def _bootstrap_variance(x, y, placements):
    r"""Exact variance of the stratified bootstrap distribution of each task's
    :math:`U / (n_x n_y)`, in closed form (no resample drawn; :math:`O(n \log n)`).

    With :math:`h_{ij} = \mathbf 1[x_i > y_j] + \tfrac12 \mathbf 1[x_i = y_j]`, :math:`p_i` the
    mean of row ``i`` (the share of ``y`` that run ``x_i`` beats), :math:`q_j` the mean of column
    ``j`` and :math:`c` the multinomial counts of the resample (:math:`E[c_i c_{i'}] =
    \delta_{ii'} + 1 - 1/n`),

    .. math::

        \operatorname{Var}^*(U^*) = \Bigl(1 - \frac1{n_y}\Bigr)\frac{\operatorname{var}(p)}{n_x}
        + \Bigl(1 - \frac1{n_x}\Bigr)\frac{\operatorname{var}(q)}{n_y}
        + \frac{\overline{h^2} - U^2}{n_x n_y},

    variances with divisor ``n`` (DeLong's variance of the AUC up to its ``n - 1`` divisors and
    the last term, the pairs' own spread).
    """
    _, below, equal = placements
    n_x, n_y = x.shape[0], y.shape[0]
    p = (below + 0.5 * equal) / n_y
    xs = np.sort(x, axis=0)
    ys = np.take_along_axis(y, placements[0], axis=0)   # sorted keys: the searches stay in cache
    q = np.empty(y.shape)                                # (in y's sorted order: var(q) needs no other)
    for t in range(y.shape[1]):
        both = np.searchsorted(xs[:, t], ys[:, t], side="left")    # runs of x below y_j
        both += np.searchsorted(xs[:, t], ys[:, t], side="right")  # ... plus those at most y_j
        q[:, t] = 1.0 - 0.5 * both / n_x
    u = p.mean(axis=0)
    pairs = np.maximum((below.sum(axis=0) + 0.25 * equal.sum(axis=0)) / (n_x * n_y) - u * u, 0.0)
    return (1.0 - 1.0 / n_y) * p.var(axis=0) / n_x + (1.0 - 1.0 / n_x) * q.var(axis=0) / n_y \
        + pairs / (n_x * n_y)


def _groups(below, equal, n_y):
    """One task's runs in groups the resample need not tell apart: the runs of x by their
    placement ``(below, equal)`` in y, the sorted runs of y by the segments between those
    placements. Returns ``(w_x, w_y, lo, hi)``: the groups' sizes, and for each group of x the
    cut (index into the cumulated counts of y's segments) of ``below`` and ``below + equal``."""
    keys, w_x = np.unique(below * (n_y + 1) + equal, return_counts=True)
    low, high = keys // (n_y + 1), keys // (n_y + 1) + keys % (n_y + 1)
    cuts = np.unique(np.concatenate([[0, n_y], low, high]))
    return w_x, np.diff(cuts), np.searchsorted(cuts, low), np.searchsorted(cuts, high)


def _grouped_u(c_x, c_y, lo, hi, n):
    """U / n of resamples (rows) from the counts of the groups of :func:`_groups`: exactly
    :func:`_resampled_per_task` of any draws with these group counts (integers and halves)."""
    cum = np.zeros((c_y.shape[0], c_y.shape[1] + 1))
    np.cumsum(c_y, axis=1, out=cum[:, 1:])
    low = cum[:, lo]
    return (c_x * (low + 0.5 * (cum[:, hi] - low))).sum(axis=1) / n


def _grouped_replicates(placements, n_x, n_y, n_resamples, rng):
    """The stratified bootstrap drawn as multinomial counts of :func:`_groups` (the same
    distribution as run-by-run draws, other random numbers): per task and resample, time and
    memory linear in the number of groups, at most about three times the smaller arm's runs."""
    _, below, equal = placements
    reps = np.zeros(n_resamples)
    for t in range(below.shape[1]):
        w_x, w_y, lo, hi = _groups(below[:, t], equal[:, t], n_y)
        chunk = max(1, (1 << 21) // (w_x.size + w_y.size + 1))
        for start in range(0, n_resamples, chunk):
            size = min(chunk, n_resamples - start)
            c_x = rng.multinomial(n_x, w_x / n_x, size=size)
            c_y = rng.multinomial(n_y, w_y / n_y, size=size)
            reps[start:start + size] += _grouped_u(c_x, c_y, lo, hi, n_x * n_y)
    return reps / below.shape[1]


def _normal_interval(value, se, level):
    """``value -+ z se`` within [0, 1]; a point (with the percentile path's warning) when the
    bootstrap variance is 0."""
    if not se > 0.0:
        warn_outside(f"The bootstrap distribution is a single point ({r_signif(value)}); the "
                     "interval has no width.", PredstabDegenerateWarning)
        return ConfidenceInterval(value, value)
    half = float(stats.norm.ppf(0.5 + level / 2.0)) * se
    return ConfidenceInterval(max(0.0, value - half), min(1.0, value + half))


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
        Stratified bootstrap interval (runs resampled within each task, for A and B
        independently), expanded by ``expansion``: the percentile interval of the replicates
        (``method="percentile"``) or ``value -+ z standard_error`` within [0, 1]
        (``method="normal"``); NaN bounds when ``n_resamples=0`` (and ``interval`` is not
        "normal").
    confidence_level : float
    n_resamples : int
        Replicates drawn (0 for the normal interval).
    bootstrap_distribution : ndarray of shape (n_resamples,)
        The replicates as drawn (before the expansion).
    expansion : float
        :math:`\\sqrt{m/(m-1)}` with ``m`` the smaller number of runs (1 with ``expand=False``).
    method : str
        "percentile" or "normal": which interval ``confidence_interval`` is.
    standard_error : float
        The standard deviation of the bootstrap distribution, exact (in closed form, not from
        the replicates), times ``expansion``.
    """

    _renamed_attributes = {"distribution": "bootstrap_distribution"}

    value: float
    per_task: np.ndarray
    confidence_interval: ConfidenceInterval
    confidence_level: float
    n_resamples: int
    bootstrap_distribution: np.ndarray = field(repr=False)
    expansion: float = 1.0
    method: str = "percentile"
    standard_error: float = float("nan")

    def _str_lines(self):
        lo, hi = self.confidence_interval
        kind = ("normal interval (exact bootstrap variance)" if self.method == "normal" else
                f"stratified bootstrap interval ({self.n_resamples} resamples)")
        return [" Probability of improvement (Agarwal et al. 2021)", "",
                f"P(B > A) = {r_signif(self.value)} over {len(self.per_task)} tasks, standard error "
                f"{r_signif(self.standard_error)}",
                f"{100 * self.confidence_level:g} percent {kind}: {r_signif(lo)} {r_signif(hi)}"]


def _runs_tasks(values, name):
    arr = read_scores(values, name, ndim=(1, 2))
    return arr[:, None] if arr.ndim == 1 else arr


@fill_doc(**DOC)
@validate_params({"a": ["array-like"], "b": ["array-like"],
                  "n_resamples": [Interval(Integral, 0, None)], "confidence_level": CONFIDENCE,
                  "random_state": ["random_state"], "expand": ["boolean"],
                  "interval": [Options(("auto", "percentile", "normal"))]},
                 renamed={"scores_x": "b", "scores_y": "a"})
def probability_of_improvement(a, b, /, *, n_resamples=2000, confidence_level=0.95, random_state=None,
                               expand=True, interval="auto"):
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
    placements and the number of times each run is drawn, linear in the runs; while that draws
    at most :data:`DRAW_BUDGET` (1e8) indices in all (``n_resamples`` times all runs of A and
    B), the resamples are drawn run by run (``method="percentile"``, the values of earlier
    versions). Beyond, with ``interval="auto"``:

    - when the smaller arm has at least :data:`NORMAL_RUNS` (1,000) runs summed over tasks,
      the interval is normal, ``value -+ z standard_error`` (``method="normal"``, no resample
      drawn): the bootstrap distribution's variance is known exactly in closed form (the
      multinomial counts' moments; DeLong's variance with divisors ``n`` and one more term, the
      pairs' own spread), and its skewness is of order one over the square root of that
      number of runs, below the Monte Carlo error of 2,000 percentiles. A million runs each:
      about two seconds, a few arrays the size of the data;
    - with fewer, the same bootstrap is drawn as multinomial counts of groups of runs that no
      resample can tell apart (the runs of the larger arm by their placement among the
      smaller one's, the smaller one's by the segments between those placements): the same
      distribution as run-by-run draws, other random numbers, time and memory linear in the
      smaller arm per resample (a million runs against ten: under a second).

    ``interval="percentile"`` always gives the percentile interval (run by run within the
    budget, by groups beyond when the smaller arm has fewer than a twelfth of all runs: the
    groups are then the cheaper draw), ``interval="normal"`` always the normal one.

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
    interval : {"auto", "percentile", "normal"}, default "auto"
        Which interval (see Cost above; ``.method`` says which one was given).

    Returns
    -------
    ProbabilityOfImprovement
        ``.value``, ``.per_task``, ``.confidence_interval``, ``.method``, ``.standard_error``.

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
    >>> r = probability_of_improvement(a, b, interval="normal")
    >>> r.method, round(r.standard_error, 4), [round(v, 4) for v in r.confidence_interval]
    ('normal', 0.1814, [0.3388, 1.0])
    """
    # x: the runs that may improve (B), y: the reference (A); rliable's and the resamples' order
    y, x = _runs_tasks(a, "a"), _runs_tasks(b, "b")
    if x.shape[1] != y.shape[1]:
        raise ValueError(f"`a` and `b` must have the same tasks (columns); got {y.shape[1]} and "
                         f"{x.shape[1]}.")
    placements = _placements(x, y)
    (n_x, n_tasks), n_y = x.shape, y.shape[0]
    per_task = (placements[1].sum(axis=0) + 0.5 * placements[2].sum(axis=0)) / (n_x * n_y)
    value = float(per_task.mean())
    level = float(confidence_level)
    m = min(n_x, n_y)
    factor = math.sqrt(m / (m - 1.0)) if expand and m > 1 else 1.0
    se = factor * math.sqrt(float(_bootstrap_variance(x, y, placements).sum())) / n_tasks
    n_draws = int(n_resamples) * (n_x + n_y) * n_tasks
    if interval == "auto":
        interval = ("percentile" if n_draws <= DRAW_BUDGET or m * n_tasks < NORMAL_RUNS
                    else "normal")
    reps = np.empty(0)
    if interval == "normal":
        ci = _normal_interval(value, se, level)
    elif not n_resamples:
        ci = ConfidenceInterval(float("nan"), float("nan"))
    else:
        rng = check_rng(random_state)
        if n_draws <= DRAW_BUDGET or 12 * m >= n_x + n_y:   # groups: up to about 3 m of them
            reps = np.empty(int(n_resamples))
            for r in range(reps.size):
                idx_x = rng.integers(0, n_x, size=x.shape)
                idx_y = rng.integers(0, n_y, size=y.shape)
                reps[r] = _resampled_per_task(idx_x, idx_y, placements).mean()
        else:
            reps = _grouped_replicates(placements, n_x, n_y, int(n_resamples), rng)
        ci = bootstrap_interval(expanded(reps, value, factor), value, level, "percentile")
    return ProbabilityOfImprovement(value=value, per_task=per_task, confidence_interval=ci,
                                    confidence_level=level, n_resamples=reps.size,
                                    bootstrap_distribution=reps, expansion=factor, method=interval,
                                    standard_error=se)


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
    return _profile(_runs_tasks(scores, "scores"), read_scores(taus, "taus"), kind)


def _profile(arr, t, kind):
    """:func:`performance_profile` of the runs x tasks table ``arr`` as read (also each bootstrap
    resample of :func:`performance_profile_ci`, without reading it again)."""
    values = arr.ravel() if kind == "runs" else arr.mean(axis=0)
    # share above each tau: one sort, then a search per threshold (linear in the data)
    ordered = np.sort(values)
    return 1.0 - np.searchsorted(ordered, t, side="right") / ordered.size
