"""Pairwise post-hoc tests after the Friedman test: Conover, Durbin, Miller, Siegel and Quade,
with p-value adjustments (scikit-posthocs' ``posthoc_*``; R's PMCMRplus)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy import stats

from .._core._docstrings import fill_doc
from .._core._results import Result, r_signif, result
from .._core._validation import Options, validate_params
from ._common import DOC
from ._ranks import _friedman_nemenyi_iv

__all__ = ["friedman_posthoc", "FriedmanPosthocResult"]

_METHODS = ("conover", "durbin", "miller", "siegel", "quade")
_ADJUST = ("bonferroni", "holm", "fdr_bh", "single-step")
_NAMES = {"conover": "Conover", "durbin": "Durbin", "miller": "Miller", "siegel": "Siegel",
          "quade": "Quade"}


@result
class FriedmanPosthocResult(Result):
    """Result of :func:`friedman_posthoc`: every pair of methods.

    Attributes
    ----------
    method : str
        The test ("conover", "durbin", "miller", "siegel" or "quade").
    p_adjust : str or None
        The adjustment of the pairwise p-values (None: unadjusted).
    statistics : ndarray of shape (k, k)
        The pairwise statistics (t, z, q or the Miller chi-squared root; 0 on the diagonal).
    pvalues : ndarray of shape (k, k)
        Pairwise p-values, adjusted by ``p_adjust``; 1 on the diagonal.
    average_ranks : ndarray of shape (k,)
        Average rank of each method over the data sets (1 = best).
    names : tuple of str
    n_datasets : int
    """

    method: str
    p_adjust: object
    statistics: np.ndarray
    pvalues: np.ndarray
    average_ranks: np.ndarray
    names: tuple
    n_datasets: int

    def _str_lines(self):
        adjust = "unadjusted" if self.p_adjust is None else f"p-values adjusted: {self.p_adjust}"
        lines = [f" {_NAMES[self.method]} post-hoc test after Friedman's ({adjust})", "",
                 f"{len(self.names)} methods over {self.n_datasets} data sets; pairwise p-values:"]
        for i in range(len(self.names)):
            for j in range(i + 1, len(self.names)):
                lines.append(f"  {self.names[i]} vs {self.names[j]}: statistic = "
                             f"{r_signif(self.statistics[i, j])}, p = {r_signif(self.pvalues[i, j])}")
        return lines

    def pvalues_frame(self) -> pd.DataFrame:
        """The k x k p-values, labelled by the methods (scikit-posthocs' return value)."""
        return pd.DataFrame(self.pvalues, index=list(self.names), columns=list(self.names))


def _pairwise(values):
    """|v_i - v_j| for every pair i < j, and the (rows, cols) of the upper triangle."""
    upper = np.triu_indices(len(values), 1)
    return np.abs(values[upper[0]] - values[upper[1]]), upper


def _upper_statistics(ranks, scores, method, p_adjust):
    """The statistics and (unadjusted, or Tukey's single-step) p-values of the pairs i < j."""
    n, k = ranks.shape
    if method in ("conover", "durbin"):
        # Conover (1999): rank sums against the residual variance of the within-block ranks; on
        # complete blocks Durbin's statistic is the same
        rank_sums = ranks.sum(axis=0)
        total = float(np.sum(ranks**2))
        centre = n * k * (k + 1.0) ** 2 / 4.0
        df = n * k - k - n + 1.0
        friedman = (k - 1.0) * float(np.sum((rank_sums - n * (k + 1.0) / 2.0) ** 2)) / (total - centre)
        scale = math.sqrt((total - centre) * 2.0 * n / df * (1.0 - friedman / (n * (k - 1.0))))
        diff, upper = _pairwise(rank_sums)
        t = diff / scale
        if p_adjust == "single-step":
            return t, stats.studentized_range.sf(math.sqrt(2.0) * t, k, np.inf), upper
        return t, 2.0 * stats.t.sf(t, df), upper
    if method == "quade":
        # Quade (1979): ranks centred in each block, weighted by the rank of the block's range
        weights = stats.rankdata(np.ptp(scores, axis=1))
        weighted = (ranks - (k + 1.0) / 2.0) * weights[:, None]
        sums = weighted.sum(axis=0)
        a = float(np.sum(weighted**2))
        b = float(np.sum(sums**2)) / n
        diff, upper = _pairwise(sums)
        t = diff / math.sqrt(2.0 * n * (a - b) / ((n - 1.0) * (k - 1.0)))
        return t, 2.0 * stats.t.sf(t, (n - 1) * (k - 1)), upper
    diff, upper = _pairwise(ranks.mean(axis=0))
    z = diff / math.sqrt(k * (k + 1.0) / (6.0 * n))
    if method == "siegel":  # Siegel and Castellan (1988): the normal tail
        return z, np.minimum(2.0 * stats.norm.sf(z), 1.0), upper
    if method == "miller":  # Miller (1966): z^2 against chi-squared on k - 1 df (simultaneous)
        return z, stats.chi2.sf(z**2, k - 1), upper
    raise ValueError(f"`method` must be one of {', '.join(map(repr, _METHODS))}; got {method!r}.")


@fill_doc(**DOC)
@validate_params({"scores": ["array-like", pd.DataFrame], "method": [Options(_METHODS)],
                  "p_adjust": [Options(_ADJUST), None], "higher_is_better": ["boolean"]})
def friedman_posthoc(scores, /, *, method="conover", p_adjust=None, higher_is_better=True):
    r"""Pairwise post-hoc tests after the Friedman test: which methods differ?

    The methods (columns) are ranked within each data set (row), ties averaged. With
    :math:`n` data sets, :math:`k` methods, rank sums :math:`R_j` and average ranks
    :math:`\bar R_j`:

    - ``"conover"`` (and ``"durbin"``, the same on complete blocks):
      :math:`t_{ij} = |R_i - R_j| / \sqrt{2 n (A - C)(1 - T / (n(k-1))) / \nu}` on
      :math:`\nu = (n - 1)(k - 1)` df, with :math:`A = \sum r^2`, :math:`C = nk(k+1)^2/4` and
      :math:`T` Friedman's statistic;
    - ``"siegel"``: :math:`z_{ij} = |\bar R_i - \bar R_j| / \sqrt{k(k+1)/(6n)}`, normal tail;
    - ``"miller"``: the same :math:`z^2_{ij}` against :math:`\chi^2_{k-1}` (simultaneous, no
      adjustment needed);
    - ``"quade"``: within-block ranks centred and weighted by the rank of the block's range,
      :math:`t_{ij} = |S_i - S_j| / \sqrt{2n(A - B)/((n-1)(k-1))}` on :math:`(n-1)(k-1)` df.

    Nemenyi's pairwise p-values are :func:`friedman_nemenyi`'s ``nemenyi_pvalues``. The
    p-values of the pairs are then adjusted by ``p_adjust`` (statsmodels'
    ``multipletests``): "bonferroni", "holm" or "fdr_bh" (Benjamini-Hochberg); "single-step"
    (Conover and Durbin only) refers :math:`\sqrt2 t` to the studentized range.

    Parameters
    ----------
    scores : array-like or DataFrame of shape (n_datasets, n_methods)
        One score per method (column) and data set (row). DataFrame columns name the methods.
    method : {"conover", "durbin", "miller", "siegel", "quade"}, default "conover"
    p_adjust : {"bonferroni", "holm", "fdr_bh", "single-step"} or None, default None
        None: unadjusted p-values (scikit-posthocs' default).
    %(higher_is_better)s
        Only the average ranks depend on it; the two-sided p-values do not.

    Returns
    -------
    FriedmanPosthocResult
        ``.statistics`` and ``.pvalues`` (k x k, symmetric), ``.average_ranks``,
        ``.pvalues_frame()``.

    References
    ----------
    Conover, W. J. (1999). *Practical Nonparametric Statistics*, 3rd ed. Wiley.

    Quade, D. (1979). Using weighted rankings in the analysis of complete blocks with
    additive block effects. *JASA* 74, 680-683. https://doi.org/10.1080/01621459.1979.10481670

    Pohlert, T. (2014). The pairwise multiple comparison of mean ranks package (PMCMR).
    https://CRAN.R-project.org/package=PMCMR

    Matches scikit-posthocs 0.17's ``posthoc_conover_friedman``, ``posthoc_durbin``,
    ``posthoc_miller_friedman``, ``posthoc_siegel_friedman`` and ``posthoc_quade`` (and their
    ``p_adjust``).

    Examples
    --------
    >>> x = np.array([[31, 27, 24], [31, 28, 31], [45, 29, 46], [21, 18, 48], [42, 36, 46], [32, 17, 40]])
    >>> friedman_posthoc(x).pvalues.round(4)
    array([[1.    , 0.0233, 0.4295],
           [0.0233, 1.    , 0.0057],
           [0.4295, 0.0057, 1.    ]])
    """
    arr, _, higher_is_better, names = _friedman_nemenyi_iv(scores, 0.05, higher_is_better)
    if p_adjust == "single-step" and method not in ("conover", "durbin"):
        raise ValueError(f"`p_adjust='single-step'` (Tukey's range) applies to method='conover' or "
                         f"'durbin'; got method={method!r}.")
    ranks = stats.rankdata(arr, axis=1)
    stat, p, upper = _upper_statistics(ranks, arr, method, p_adjust)
    if p_adjust in ("bonferroni", "holm", "fdr_bh"):
        from statsmodels.stats.multitest import multipletests  # the engine of the adjustments

        p = multipletests(p, method=p_adjust)[1]
    k = arr.shape[1]
    statistics, pvalues = np.zeros((k, k)), np.ones((k, k))
    statistics[upper], pvalues[upper] = stat, p
    statistics.T[upper], pvalues.T[upper] = stat, p
    average = stats.rankdata(-arr if higher_is_better else arr, axis=1).mean(axis=0)
    return FriedmanPosthocResult(method=method, p_adjust=p_adjust, statistics=statistics, pvalues=pvalues,
                                 average_ranks=average, names=names, n_datasets=arr.shape[0])
