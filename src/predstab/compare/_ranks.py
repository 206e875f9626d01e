"""Many methods over many data sets: Friedman test, Nemenyi and Bonferroni-Dunn critical differences.

Their critical-difference diagrams are drawn by :func:`predstab.plotting.plot_cd_diagram`
(``result.plot()``), like every plot of predstab.
"""

from __future__ import annotations

import math
from dataclasses import field
from numbers import Integral

import numpy as np
import pandas as pd
from scipy import stats

from .._core._docstrings import fill_doc
from .._core._gate import check_row_names
from .._core._results import Result, r_signif, result
from .._core._validation import Interval, validate_params
from ._common import DOC, PROBABILITY, read_scores
from ._results import StatisticPvalue, htest_lines
from ._rmath import tukey_quantile_secant

__all__ = ["friedman_nemenyi", "FriedmanNemenyiResult", "bonferroni_dunn", "BonferroniDunnResult"]


@result
class FriedmanNemenyiResult(StatisticPvalue, Result):
    """Result of :func:`friedman_nemenyi`.

    Unpacks to ``(statistic, pvalue)`` (Friedman's chi-squared and its p-value), as SciPy's
    test results do; ``.plot()`` draws the critical-difference diagram.

    Attributes
    ----------
    statistic : float
        Friedman's :math:`\\chi^2_F` (tie-corrected as R's ``friedman.test``).
    pvalue : float
        p-value of :math:`\\chi^2_F` on ``k - 1`` degrees of freedom.
    df : int
        ``k - 1``.
    average_ranks : ndarray of shape (k,)
        Mean rank of each method over data sets (1 = best; ties averaged).
    critical_difference : float
        Nemenyi CD :math:`q_\\alpha \\sqrt{k(k+1)/(6N)}`.
    q_alpha : float
        Studentized range quantile over :math:`\\sqrt 2`.
    significant : tuple of (str, str)
        Pairs (better, worse) whose average ranks differ by at least the CD.
    names : tuple of str
        Method names (columns).
    ranks : ndarray of shape (N, k)
        Ranks within each data set.
    n_datasets : int
    significance : float
        Significance level of the CD and of ``significant``.
    iman_davenport : float
        Iman–Davenport :math:`F_F = (N-1)\\chi^2_F / (N(k-1) - \\chi^2_F)`.
    iman_davenport_pvalue : float
        Its p-value on ``(k - 1, (k - 1)(N - 1))`` degrees of freedom.
    nemenyi_q : ndarray of shape (k, k)
        Pairwise studentized range statistics
        :math:`q_{ij} = \\sqrt2\\,|R_i - R_j| / \\sqrt{k(k+1)/(6N)}`.
    nemenyi_pvalues : ndarray of shape (k, k)
        Pairwise Nemenyi p-values :math:`P(Q_{k,\\infty} > q_{ij})` (1 on the diagonal).
    """

    statistic: float
    pvalue: float
    df: int
    average_ranks: np.ndarray
    critical_difference: float
    q_alpha: float
    significant: tuple
    names: tuple
    ranks: np.ndarray = field(repr=False)
    n_datasets: int
    significance: float
    iman_davenport: float
    iman_davenport_pvalue: float
    nemenyi_q: np.ndarray = field(default=None, repr=False)
    nemenyi_pvalues: np.ndarray = field(default=None, repr=False)

    _renamed_attributes = {"alpha": "significance"}

    def _str_lines(self):
        lines = htest_lines("Friedman rank sum test", data="scores", statistic_name="Friedman chi-squared",
                            statistic=self.statistic, parameters=[("df", self.df)], pvalue=self.pvalue)
        lines += ["", f"Nemenyi critical difference (alpha = {self.significance:g}): "
                      f"{r_signif(self.critical_difference)} over {self.n_datasets} data sets",
                  "average ranks (1 = best):"]
        order = np.argsort(self.average_ranks, kind="stable")
        lines += [f"  {self.names[j]}: {r_signif(self.average_ranks[j])}" for j in order]
        return lines

    def ranks_frame(self) -> pd.DataFrame:
        """One row per method: its average rank, sorted best first."""
        frame = pd.DataFrame({"method": list(self.names), "average_rank": self.average_ranks})
        return frame.sort_values("average_rank", kind="stable").reset_index(drop=True)

    def pvalues_frame(self) -> pd.DataFrame:
        """The pairwise Nemenyi p-values as a methods x methods DataFrame."""
        return pd.DataFrame(self.nemenyi_pvalues, index=list(self.names), columns=list(self.names))

    def cliques(self) -> list[tuple[str, ...]]:
        """Maximal groups of methods (in rank order) whose ranks all lie within less than the CD."""
        return _cliques(self.average_ranks, self.critical_difference, self.names)

    @validate_params({})
    def plot(self, **kwargs):
        """The critical-difference diagram with the Nemenyi cliques:
        :func:`predstab.plotting.plot_cd_diagram` of this result (keyword arguments go there).

        Returns
        -------
        matplotlib.figure.Figure
        """
        from ..plotting import plot_cd_diagram  # the one upward edge: a result draws itself

        return plot_cd_diagram(self, **kwargs)

    @validate_params({"significance": PROBABILITY})
    def at_significance(self, significance):
        """The same test at another significance level: the CD, ``q_alpha``, ``significant``
        and the cliques at ``significance`` (the ranks, the statistic and the p-values are
        unchanged).

        Returns
        -------
        FriedmanNemenyiResult

        Examples
        --------
        >>> ranks = np.array([[1, 2, 3]] * 3 + [[1, 3, 2]] + [[2, 1, 3]] * 5 + [[3, 1, 2]] * 2 + [[2, 3, 1]])
        >>> r = friedman_nemenyi(4 - ranks)
        >>> round(r.critical_difference, 2), round(r.at_significance(0.01).critical_difference, 2)
        (0.96, 1.19)
        """
        # the ranks of the ranks are the ranks: one engine, friedman_nemenyi, at the new level
        return friedman_nemenyi(pd.DataFrame(self.ranks, columns=list(self.names)),
                                significance=significance, higher_is_better=False)


def _cliques(average_ranks, cd, names):
    order = np.argsort(average_ranks, kind="stable")
    r = np.asarray(average_ranks)[order]
    groups = []
    for i in range(len(r)):
        j = i
        while j + 1 < len(r) and r[j + 1] - r[i] < cd:
            j += 1
        if j > i and not any(g[0] <= i and j <= g[1] for g in groups):
            groups.append((i, j))
    return [tuple(names[order[t]] for t in range(i, j + 1)) for i, j in groups]


@result
class BonferroniDunnResult(Result):
    """Result of :func:`bonferroni_dunn`: every method against a control.

    The comparisons go control (A) to method (B): ``z`` is positive when the method ranks
    better than the control. ``.plot()`` draws the control's critical-difference diagram.

    Attributes
    ----------
    control : str
        The control method.
    others : tuple of str
        The other methods, in column order.
    z : ndarray of shape (k - 1,)
        :math:`z_j = (R_c - R_j) / \\sqrt{k(k+1)/(6N)}` on average ranks (1 = best): positive
        when method j ranks better than the control.
    pvalues : ndarray of shape (k - 1,)
        Two-sided normal p-values :math:`2\\Phi(-|z_j|)`.
    pvalues_adjusted : ndarray of shape (k - 1,)
        Bonferroni-adjusted :math:`\\min(1, (k-1) p_j)`.
    critical_difference : float
        :math:`z_{1-\\alpha/(2(k-1))} \\sqrt{k(k+1)/(6N)}`.
    significant : tuple of str
        Methods whose adjusted p-value is at most ``significance`` (rank difference at least
        the CD).
    average_ranks : ndarray of shape (k,)
    names : tuple of str
    n_datasets : int
    significance : float
    """

    control: str
    others: tuple
    z: np.ndarray
    pvalues: np.ndarray
    pvalues_adjusted: np.ndarray
    critical_difference: float
    significant: tuple
    average_ranks: np.ndarray
    names: tuple
    n_datasets: int
    significance: float

    _renamed_attributes = {"alpha": "significance"}

    def _str_lines(self):
        lines = [" Bonferroni-Dunn test against a control (Demsar 2006)", "",
                 f"control: {self.control}; {self.n_datasets} data sets; critical difference "
                 f"{r_signif(self.critical_difference)} (alpha = {self.significance:g})"]
        for name, z, p, pa in zip(self.others, self.z, self.pvalues, self.pvalues_adjusted, strict=True):
            lines.append(f"  {name}: z = {r_signif(z)}, p = {r_signif(p)}, adjusted p = {r_signif(pa)}")
        return lines

    @validate_params({})
    def plot(self, **kwargs):
        """The control's critical-difference diagram (its rank ± CD): keyword arguments go to
        :func:`predstab.plotting.plot_cd_diagram`.

        Returns
        -------
        matplotlib.figure.Figure
        """
        from ..plotting import plot_cd_diagram  # the one upward edge: a result draws itself

        return plot_cd_diagram(self, **kwargs)

    def comparisons_frame(self) -> pd.DataFrame:
        """One row per comparison with the control (``method``, ``z``, ``pvalue``, ``pvalue_adjusted``)."""
        return pd.DataFrame({"control": self.control, "method": list(self.others), "z": self.z,
                             "pvalue": self.pvalues, "pvalue_adjusted": self.pvalues_adjusted})


def _friedman_nemenyi_iv(scores, significance, higher_is_better):
    names = None
    if isinstance(scores, pd.DataFrame):
        names = tuple(str(c) for c in scores.columns)
        check_row_names(scores, name="scores", column_names=False)  # R's row names: one more method
        scores = scores.to_numpy()
    arr = read_scores(scores, "scores", ndim=2)
    if arr.shape[0] < 2 or arr.shape[1] < 2:
        raise ValueError(f"`scores` needs at least 2 data sets (rows) and 2 methods (columns); got "
                         f"shape {arr.shape}.")
    if names is None:
        names = tuple(f"method {j + 1}" for j in range(arr.shape[1]))
    return arr, float(significance), bool(higher_is_better), names


@fill_doc(**DOC)
@validate_params({"scores": ["array-like", pd.DataFrame], "significance": PROBABILITY,
                  "higher_is_better": ["boolean"]}, renamed={"alpha": "significance"})
def friedman_nemenyi(scores, /, *, significance=0.05, higher_is_better=True):
    r"""Friedman test and Nemenyi critical difference for k methods over N data sets.

    Null hypothesis: the k methods are exchangeable within each data set (every ranking
    equally likely); Nemenyi: two methods' average ranks differ by chance alone.

    Methods are ranked within each data set (1 = best; ties get average ranks); with
    average ranks :math:`R_j`,

    .. math::

        \chi^2_F = \frac{12N}{k(k+1)}\left[\sum_j R_j^2 - \frac{k(k+1)^2}{4}\right],
        \qquad CD = q_\alpha\sqrt{\frac{k(k+1)}{6N}},

    where :math:`q_\alpha` is the studentized range quantile (infinite df) at
    :math:`\alpha` = ``significance``, over :math:`\sqrt2`. With ties the statistic carries
    R's tie correction. Two methods differ significantly when their average ranks differ by
    at least the CD.

    Parameters
    ----------
    scores : array-like or DataFrame of shape (n_datasets, n_methods)
        One score per method (column) and data set (row). DataFrame columns name the methods.
    %(significance)s
    %(higher_is_better)s

    Returns
    -------
    FriedmanNemenyiResult
        ``.statistic``, ``.pvalue``, ``.average_ranks``, ``.critical_difference``,
        ``.significant`` (pairs), ``.cliques()``, ``.nemenyi_pvalues`` (pairwise), and
        ``.ranks_frame()``; ``.plot()`` draws the CD diagram
        (:func:`predstab.plotting.plot_cd_diagram`).

    Notes
    -----
    :math:`q_\alpha` is found by the secant iteration R's ``qtukey`` uses (stopping when
    iterates differ by less than 1e-4) so that it equals R's value; it differs from the exact
    quantile (SciPy's ``studentized_range.ppf``) by at most about 6e-8 relative for k ≤ 10.

    References
    ----------
    Demšar, J. (2006). Statistical comparisons of classifiers over multiple data sets.
    *JMLR* 7, 1-30. https://jmlr.org/papers/v7/demsar06a.html

    Friedman, M. (1937). The use of ranks to avoid the assumption of normality implicit in
    the analysis of variance. *JASA* 32, 675-701. https://doi.org/10.1080/01621459.1937.10503522

    Matches `stats::friedman.test(scores)`, `qtukey(1 - significance, k, Inf) / sqrt(2)` and
    `ptukey(q, k, Inf, lower.tail = FALSE)` (pairwise p-values); see validation/.

    Examples
    --------
    >>> ranks = np.array([[1, 2, 3]] * 3 + [[1, 3, 2]] + [[2, 1, 3]] * 5 + [[3, 1, 2]] * 2 + [[2, 3, 1]])
    >>> r = friedman_nemenyi(4 - ranks)
    >>> r.average_ranks.round(4).tolist(), round(r.statistic, 2), round(r.critical_difference, 2)
    ([1.8333, 1.5833, 2.5833], 6.5, 0.96)
    >>> r.significant
    (('method 2', 'method 3'),)
    """
    arr, significance, higher_is_better, names = _friedman_nemenyi_iv(scores, significance, higher_is_better)
    n, k = arr.shape
    ranks = stats.rankdata(-arr if higher_is_better else arr, axis=1)
    avg = ranks.mean(axis=0)
    tie_term = 0.0
    for row in ranks:
        _, t = np.unique(row, return_counts=True)
        tie_term += float(np.sum(t ** 3 - t))
    rank_sums = ranks.sum(axis=0)
    denom = n * k * (k + 1) - tie_term / (k - 1)
    if denom == 0.0:  # every data set ties every method: no evidence of any difference
        chi2 = 0.0
    else:
        chi2 = 12.0 * float(np.sum((rank_sums - n * (k + 1) / 2.0) ** 2)) / denom
    pvalue = float(stats.chi2.sf(chi2, k - 1))
    df2 = (k - 1) * (n - 1)
    id_den = n * (k - 1) - chi2
    ff = (n - 1) * chi2 / id_den if id_den > 0 else float("inf")
    ff_p = float(stats.f.sf(ff, k - 1, df2)) if np.isfinite(ff) else 0.0
    q = tukey_quantile_secant(1.0 - significance, k) / math.sqrt(2.0)
    cd = q * math.sqrt(k * (k + 1) / (6.0 * n))
    order = np.argsort(avg, kind="stable")
    significant = tuple(
        (names[order[i]], names[order[j]])
        for i in range(k) for j in range(i + 1, k)
        if avg[order[j]] - avg[order[i]] >= cd
    )
    se = math.sqrt(k * (k + 1) / (6.0 * n))
    q_ij = np.abs(avg[:, None] - avg[None, :]) / se * math.sqrt(2.0)
    p_ij = stats.studentized_range.sf(q_ij, k, np.inf)
    np.fill_diagonal(p_ij, 1.0)
    return FriedmanNemenyiResult(
        statistic=chi2, pvalue=pvalue, df=k - 1, average_ranks=avg, critical_difference=cd, q_alpha=q,
        significant=significant, names=names, ranks=ranks, n_datasets=n, significance=significance,
        iman_davenport=float(ff), iman_davenport_pvalue=ff_p, nemenyi_q=q_ij, nemenyi_pvalues=p_ij,
    )


@fill_doc(**DOC)
@validate_params({"scores": ["array-like", pd.DataFrame], "control": [Interval(Integral, 0, None), str],
                  "significance": PROBABILITY, "higher_is_better": ["boolean"]},
                 renamed={"alpha": "significance"})
def bonferroni_dunn(scores, /, *, control=0, significance=0.05, higher_is_better=True):
    r"""Bonferroni–Dunn test: every method against a control, on average ranks (Demšar 2006).

    Null hypothesis: a method and the control are exchangeable within each data set (their
    average ranks differ by chance alone).

    With average ranks :math:`R_j` (1 = best) over N data sets and k methods,

    .. math::

        z_j = \frac{R_c - R_j}{\sqrt{k(k+1)/(6N)}},\qquad
        p_j = 2\Phi(-|z_j|),\qquad p_j^{adj} = \min\{1, (k-1) p_j\},

    and method j differs from the control when :math:`p_j^{adj} \le \alpha` (the
    ``significance``), i.e. when its average rank is at least
    :math:`CD = z_{1-\alpha/(2(k-1))}\sqrt{k(k+1)/(6N)}` away. With only k - 1 comparisons
    it is more powerful than Nemenyi's all-pairs test. The direction is control to method:
    :math:`z_j > 0` when method j ranks better than the control.

    Parameters
    ----------
    scores : array-like or DataFrame of shape (n_datasets, n_methods)
    control : int or str, default 0
        Column index or name of the control method (e.g. the proposed method).
    %(significance)s
    %(higher_is_better)s

    Returns
    -------
    BonferroniDunnResult
        ``.z``, ``.pvalues``, ``.pvalues_adjusted``, ``.critical_difference``,
        ``.significant``; ``.plot()`` draws the control's CD diagram.

    References
    ----------
    Demšar, J. (2006). Statistical comparisons of classifiers over multiple data sets.
    *JMLR* 7, 1-30. https://jmlr.org/papers/v7/demsar06a.html

    Dunn, O. J. (1961). Multiple comparisons among means. *JASA* 56, 52-64.
    https://doi.org/10.1080/01621459.1961.10482090

    Matches R's `2 * pnorm(-abs((R_j - R_c) / sqrt(k (k + 1) / (6 N))))` on `rank()` averages
    (generate2.R); see validation/.

    Examples
    --------
    >>> ranks = np.array([[1, 2, 3]] * 3 + [[1, 3, 2]] + [[2, 1, 3]] * 5 + [[3, 1, 2]] * 2 + [[2, 3, 1]])
    >>> r = bonferroni_dunn(4 - ranks, control=2)
    >>> r.z.round(4).tolist(), r.significant
    ([1.8371, 2.4495], ('method 2',))
    """
    arr, significance, higher_is_better, names = _friedman_nemenyi_iv(scores, significance, higher_is_better)
    n, k = arr.shape
    if isinstance(control, str):
        if control not in names:
            raise ValueError(f"`control` must be a column index or one of the method names {list(names)}; "
                             f"got {control!r}.")
        c = names.index(control)
    else:
        if control >= k:
            raise ValueError(f"`control` must be a column index below {k}; got {control!r}.")
        c = int(control)
    avg = stats.rankdata(-arr if higher_is_better else arr, axis=1).mean(axis=0)
    se = math.sqrt(k * (k + 1) / (6.0 * n))
    others = [j for j in range(k) if j != c]
    z = (avg[c] - avg[others]) / se
    p = 2.0 * stats.norm.sf(np.abs(z))
    p_adj = np.minimum(1.0, (k - 1) * p)
    cd = float(stats.norm.isf(significance / (2.0 * (k - 1)))) * se
    return BonferroniDunnResult(
        control=names[c], others=tuple(names[j] for j in others), z=z, pvalues=p, pvalues_adjusted=p_adj,
        critical_difference=cd, significant=tuple(names[j] for j, pa in zip(others, p_adj, strict=True)
                                                  if pa <= significance),
        average_ranks=avg, names=names, n_datasets=n, significance=significance)
