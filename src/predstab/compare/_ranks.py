"""Many methods over many data sets: Friedman test, Nemenyi critical difference, CD diagram."""

from __future__ import annotations

import math
from dataclasses import field
from numbers import Integral

import numpy as np
import pandas as pd
from scipy import stats

from .._core._results import Result, r_signif, result
from .._core._validation import HasMethods, Interval, Options, validate_params
from ._common import PROBABILITY, read_scores
from ._results import htest_lines
from ._rmath import tukey_quantile_secant

__all__ = ["friedman_nemenyi", "FriedmanNemenyiResult", "bonferroni_dunn", "BonferroniDunnResult",
           "plot_cd_diagram"]


@result
class FriedmanNemenyiResult(Result):
    """Result of :func:`friedman_nemenyi`.

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
    alpha : float
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
    alpha: float
    iman_davenport: float
    iman_davenport_pvalue: float
    nemenyi_q: np.ndarray = field(default=None, repr=False)
    nemenyi_pvalues: np.ndarray = field(default=None, repr=False)

    def _str_lines(self):
        lines = htest_lines("Friedman rank sum test", data="scores", statistic_name="Friedman chi-squared",
                            statistic=self.statistic, parameters=[("df", self.df)], pvalue=self.pvalue)
        lines += ["", f"Nemenyi critical difference (alpha = {self.alpha:g}): "
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
        """The critical-difference diagram (:func:`plot_cd_diagram`; keyword arguments go there).

        Returns the Figure, like every plot of predstab (:func:`predstab.plotting.plot` gives
        the same diagram); :func:`plot_cd_diagram` itself returns its Axes.

        Returns
        -------
        matplotlib.figure.Figure
        """
        # the diagram is drawn here, in predstab.compare, and not through predstab.plotting,
        # which imports predstab.compare: calling it would make an import cycle
        return plot_cd_diagram(self, **kwargs).figure


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
        Methods whose adjusted p-value is at most ``alpha`` (rank difference at least the CD).
    average_ranks : ndarray of shape (k,)
    names : tuple of str
    n_datasets : int
    alpha : float
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
    alpha: float

    def _str_lines(self):
        lines = [" Bonferroni-Dunn test against a control (Demsar 2006)", "",
                 f"control: {self.control}; {self.n_datasets} data sets; critical difference "
                 f"{r_signif(self.critical_difference)} (alpha = {self.alpha:g})"]
        for name, z, p, pa in zip(self.others, self.z, self.pvalues, self.pvalues_adjusted, strict=True):
            lines.append(f"  {name}: z = {r_signif(z)}, p = {r_signif(p)}, adjusted p = {r_signif(pa)}")
        return lines

    def comparisons_frame(self) -> pd.DataFrame:
        """One row per comparison with the control (``method``, ``z``, ``pvalue``, ``pvalue_adjusted``)."""
        return pd.DataFrame({"control": self.control, "method": list(self.others), "z": self.z,
                             "pvalue": self.pvalues, "pvalue_adjusted": self.pvalues_adjusted})


def _friedman_nemenyi_iv(scores, alpha, higher_is_better):
    names = None
    if isinstance(scores, pd.DataFrame):
        names = tuple(str(c) for c in scores.columns)
        scores = scores.to_numpy()
    arr = read_scores(scores, "scores", ndim=2)
    if arr.shape[0] < 2 or arr.shape[1] < 2:
        raise ValueError(f"`scores` needs at least 2 data sets (rows) and 2 methods (columns); got "
                         f"shape {arr.shape}.")
    if names is None:
        names = tuple(f"method {j + 1}" for j in range(arr.shape[1]))
    return arr, float(alpha), bool(higher_is_better), names


@validate_params({"scores": ["array-like", pd.DataFrame], "alpha": PROBABILITY,
                  "higher_is_better": ["boolean"]})
def friedman_nemenyi(scores, *, alpha=0.05, higher_is_better=True):
    r"""Friedman test and Nemenyi critical difference for k methods over N data sets.

    Methods are ranked within each data set (1 = best; ties get average ranks); with
    average ranks :math:`R_j`,

    .. math::

        \chi^2_F = \frac{12N}{k(k+1)}\left[\sum_j R_j^2 - \frac{k(k+1)^2}{4}\right],
        \qquad CD = q_\alpha\sqrt{\frac{k(k+1)}{6N}},

    where :math:`q_\alpha` is the studentized range quantile (infinite df) over
    :math:`\sqrt2`. With ties the statistic carries R's tie correction. Two methods differ
    significantly when their average ranks differ by at least the CD.

    Parameters
    ----------
    scores : array-like or DataFrame of shape (n_datasets, n_methods)
        One score per method (column) and data set (row). DataFrame columns name the methods.
    alpha : float, default 0.05
    higher_is_better : bool, default True
        Rank 1 goes to the highest score; ``False`` ranks the lowest first (error rates,
        and R's ``friedman.test`` ranks).

    Returns
    -------
    FriedmanNemenyiResult
        ``.statistic``, ``.pvalue``, ``.average_ranks``, ``.critical_difference``,
        ``.significant`` (pairs), ``.cliques()``, ``.nemenyi_pvalues`` (pairwise), and
        ``.ranks_frame()``; draw it with :func:`plot_cd_diagram`.

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

    Matches `stats::friedman.test(scores)`, `qtukey(1 - alpha, k, Inf) / sqrt(2)` and
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
    arr, alpha, higher_is_better, names = _friedman_nemenyi_iv(scores, alpha, higher_is_better)
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
    q = tukey_quantile_secant(1.0 - alpha, k) / math.sqrt(2.0)
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
        significant=significant, names=names, ranks=ranks, n_datasets=n, alpha=alpha,
        iman_davenport=float(ff), iman_davenport_pvalue=ff_p, nemenyi_q=q_ij, nemenyi_pvalues=p_ij,
    )


@validate_params({"scores": ["array-like", pd.DataFrame], "control": [Interval(Integral, 0, None), str],
                  "alpha": PROBABILITY, "higher_is_better": ["boolean"]})
def bonferroni_dunn(scores, *, control=0, alpha=0.05, higher_is_better=True):
    r"""Bonferroni–Dunn test: every method against a control, on average ranks (Demšar 2006).

    With average ranks :math:`R_j` (1 = best) over N data sets and k methods,

    .. math::

        z_j = \frac{R_c - R_j}{\sqrt{k(k+1)/(6N)}},\qquad
        p_j = 2\Phi(-|z_j|),\qquad p_j^{adj} = \min\{1, (k-1) p_j\},

    and method j differs from the control when :math:`p_j^{adj} \le \alpha`, i.e. when its
    average rank is at least :math:`CD = z_{1-\alpha/(2(k-1))}\sqrt{k(k+1)/(6N)}` away. With
    only k - 1 comparisons it is more powerful than Nemenyi's all-pairs test.

    Parameters
    ----------
    scores : array-like or DataFrame of shape (n_datasets, n_methods)
    control : int or str, default 0
        Column index or name of the control method (e.g. the proposed method).
    alpha : float, default 0.05
    higher_is_better : bool, default True

    Returns
    -------
    BonferroniDunnResult
        ``.z``, ``.pvalues``, ``.pvalues_adjusted``, ``.critical_difference``,
        ``.significant``; draw it with ``plot_cd_diagram(..., control=...)``.

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
    arr, alpha, higher_is_better, names = _friedman_nemenyi_iv(scores, alpha, higher_is_better)
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
    cd = float(stats.norm.isf(alpha / (2.0 * (k - 1)))) * se
    return BonferroniDunnResult(
        control=names[c], others=tuple(names[j] for j in others), z=z, pvalues=p, pvalues_adjusted=p_adj,
        critical_difference=cd, significant=tuple(names[j] for j, pa in zip(others, p_adj, strict=True)
                                                  if pa <= alpha),
        average_ranks=avg, names=names, n_datasets=n, alpha=alpha)


def _plot_cd_diagram_iv(result, alpha, labels, colors, order, show_cliques):
    if not isinstance(result, (FriedmanNemenyiResult, BonferroniDunnResult)):
        raise TypeError(f"`result` must be a FriedmanNemenyiResult from friedman_nemenyi() or a "
                        f"BonferroniDunnResult from bonferroni_dunn(); got {type(result).__name__}.")
    if isinstance(result, BonferroniDunnResult):
        if alpha is not None and alpha != result.alpha:
            raise ValueError(f"`alpha` of a Bonferroni-Dunn diagram is the test's ({result.alpha}); call "
                             f"bonferroni_dunn(..., alpha={alpha}) instead; got alpha={alpha}.")
    elif alpha is not None and alpha != result.alpha:
        # ranks of the ranks are the ranks: recompute CD and cliques at the new level
        result = friedman_nemenyi(pd.DataFrame(result.ranks, columns=list(result.names)), alpha=alpha,
                                  higher_is_better=False)
    k = len(result.names)
    if labels is None:
        labels = list(result.names)
    elif isinstance(labels, dict):
        labels = [str(labels.get(n, n)) for n in result.names]
    else:
        labels = [str(x) for x in labels]
        if len(labels) != k:
            raise ValueError(f"`labels` must have one entry per method ({k}); got {len(labels)}.")
    if colors is None:
        colors = ["black"] * k
    elif isinstance(colors, str):
        colors = [colors] * k
    elif isinstance(colors, dict):
        colors = [colors.get(n, "black") for n in result.names]
    else:
        colors = list(colors)
        if len(colors) != k:
            raise ValueError(f"`colors` must have one entry per method ({k}); got {len(colors)}.")
    if order == "best_left":
        reverse = False
    elif order == "best_right":
        reverse = True
    else:
        raise ValueError(f"`order` must be 'best_left' or 'best_right'; got {order!r}.")
    if not isinstance(show_cliques, (bool, np.bool_)):
        raise TypeError(f"`show_cliques` must be True or False; got {show_cliques!r}.")
    return result, labels, colors, reverse, bool(show_cliques)


@validate_params({"result": [FriedmanNemenyiResult, BonferroniDunnResult], "alpha": [*PROBABILITY, None],
                  "labels": ["array-like", dict, None], "colors": [str, "array-like", dict, None],
                  "ax": [None, HasMethods(["plot", "text", "set_xlim", "set_ylim", "axis"])],
                  "order": [Options(("best_left", "best_right"))], "show_cliques": ["boolean"],
                  "clique_color": [str], "title": [str, None], "decimals": [Interval(Integral, 0, None)]})
def plot_cd_diagram(result, *, alpha=None, ax=None, labels=None, colors=None, order="best_left",
                    show_cliques=True, clique_color="black", title=None, decimals=2):
    """Critical-difference diagram (Demšar 2006) of a Friedman-Nemenyi or a Bonferroni-Dunn result.

    Methods hang from a rank axis at their average rank, best half on one side and the
    rest on the other; thick bars join groups of methods whose average ranks lie within the
    critical difference (not significantly different at ``result.alpha``), and a bar on top
    shows the CD itself. For a Bonferroni–Dunn result (a control) one bar spans the
    control's average rank ± CD (Demšar's Fig. 2): methods outside it differ significantly
    from the control, whose name is set in bold.

    Parameters
    ----------
    result : FriedmanNemenyiResult or BonferroniDunnResult
    alpha : float, optional
        Significance level of the CD and cliques (default: ``result.alpha``).
    ax : matplotlib Axes, optional
        Axes to draw on; a new figure is made if omitted.
    labels : sequence of str or dict, optional
        Display names (default: ``result.names``).
    colors : str, sequence or dict, optional
        Colour of each method's line and label.
    order : {"best_left", "best_right"}, default "best_left"
        Where rank 1 goes.
    show_cliques : bool, default True
        Draw the bars joining non-significantly different methods (the control's interval
        for a Bonferroni–Dunn result).
    clique_color : str, default "black"
    title : str, optional
        Defaults to "Critical difference (Nemenyi, alpha = ...)".
    decimals : int, default 2
        Decimals of the average ranks printed next to the names.

    Returns
    -------
    matplotlib.axes.Axes

    References
    ----------
    Demšar, J. (2006). Statistical comparisons of classifiers over multiple data sets.
    *JMLR* 7, 1-30. https://jmlr.org/papers/v7/demsar06a.html

    Draws what ``scmamp::plotCD`` draws in R (not part of the validated numbers).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> ranks = np.array([[1, 2, 3]] * 3 + [[1, 3, 2]] + [[2, 1, 3]] * 5 + [[3, 1, 2]] * 2 + [[2, 3, 1]])
    >>> ax = plot_cd_diagram(friedman_nemenyi(4 - ranks), labels=["A", "B", "C"])
    >>> ax.get_title()
    'Critical difference (Nemenyi, alpha = 0.05): CD = 0.96'
    """
    import matplotlib.pyplot as plt

    result, labels, colors, reverse, show_cliques = _plot_cd_diagram_iv(
        result, alpha, labels, colors, order, show_cliques)
    k = len(labels)
    avg = np.asarray(result.average_ranks, dtype=float)
    cd = result.critical_difference
    control = result.control if isinstance(result, BonferroniDunnResult) else None
    n_side = math.ceil(k / 2)
    step = 0.9
    cliques = result.cliques() if (show_cliques and control is None) else []
    height = 2.2 + step * n_side * 0.45 + 0.25 * max(len(cliques), 1)
    if ax is None:
        _, ax = plt.subplots(figsize=(max(6.0, 1.1 * k + 2.0), height))

    def x(r):  # rank -> plot coordinate
        return (k + 1 - r) if reverse else r

    lo, hi = 1, k
    ax.plot([x(lo), x(hi)], [0, 0], color="black", lw=1.2)
    for t in range(1, k + 1):
        ax.plot([x(t), x(t)], [0, -0.12], color="black", lw=1.0)
        ax.text(x(t), -0.2, str(t), ha="center", va="bottom", fontsize=10)
    for t in np.arange(1.5, k, 1.0):
        ax.plot([x(t), x(t)], [0, -0.06], color="black", lw=0.8)
    # the CD bar, above the axis at the best end
    cd_y = -0.75
    ax.plot([x(1), x(1 + cd)], [cd_y, cd_y], color="black", lw=2)
    for end in (1, 1 + cd):
        ax.plot([x(end), x(end)], [cd_y - 0.07, cd_y + 0.07], color="black", lw=1.5)
    ax.text((x(1) + x(1 + cd)) / 2, cd_y - 0.1, f"CD = {cd:.{decimals}f}", ha="center", va="bottom",
            fontsize=10)
    # cliques: thick bars just below the axis
    index = {name: j for j, name in enumerate(result.names)}
    if control is not None and show_cliques:
        # Bonferroni-Dunn: the control's interval R_c +- CD; methods outside it differ from the control
        rc = avg[index[control]]
        lo_r, hi_r = max(1.0, rc - cd), min(float(k), rc + cd)
        ax.plot([x(lo_r), x(hi_r)], [0.25, 0.25], color=clique_color, lw=4, solid_capstyle="round")
        ax.plot([x(rc)], [0.25], marker="o", color="white", markeredgecolor=clique_color, ms=6)
    for c, members in enumerate(cliques):
        rs = [avg[index[m]] for m in members]
        y = 0.25 + 0.2 * c
        ax.plot([x(min(rs)) - 0.03 * (-1 if reverse else 1), x(max(rs)) + 0.03 * (-1 if reverse else 1)],
                [y, y], color=clique_color, lw=4, solid_capstyle="round")
    # method labels: best half to the "best" side, the rest to the other side
    order_idx = np.argsort(avg, kind="stable")
    top = 0.45 + 0.2 * max(len(cliques), 1)
    left_x, right_x = x(lo) - 0.35 * (-1 if reverse else 1), x(hi) + 0.35 * (-1 if reverse else 1)
    for pos, j in enumerate(order_idx):
        best_half = pos < n_side
        row = pos if best_half else (k - 1 - pos)
        y = top + step * 0.45 * row
        end_x = left_x if best_half else right_x
        ax.plot([x(avg[j]), x(avg[j]), end_x], [0, y, y], color=colors[j], lw=1.2)
        to_left = (end_x < x(avg[j]))
        ax.text(end_x + (-0.05 if to_left else 0.05), y, f"{labels[j]} ({avg[j]:.{decimals}f})",
                ha="right" if to_left else "left", va="center", fontsize=10, color=colors[j],
                fontweight="bold" if result.names[j] == control else "normal")
    bottom = top + step * 0.45 * (n_side - 1) + 0.4
    span = 0.35 + 0.12 * max(len(s) for s in labels) + 0.6
    ax.set_xlim(min(x(lo), x(hi)) - span, max(x(lo), x(hi)) + span)
    ax.set_ylim(bottom, cd_y - 0.45)
    ax.axis("off")
    test = "Nemenyi" if control is None else f"Bonferroni-Dunn vs {labels[index[control]]}"
    ax.set_title(title if title is not None else
                 f"Critical difference ({test}, alpha = {result.alpha:g}): CD = {cd:.{decimals}f}",
                 fontsize=11)
    return ax
