"""Concordance and correlation of raters (irr 0.84.1): Kendall's W and the mean (rank)
correlation over pairs of raters.

Every function takes objects in rows and raters in columns and drops objects with a missing
rating, as irr does (``na.omit``). Ranks are computed in one pass over the data (counting for
ratings on a grid, one argsort per rater otherwise), so Kendall's W is linear in
objects x raters up to the sort.
"""

from __future__ import annotations

import numpy as np
from scipy import special, stats

from .._core._exceptions import (
    PredstabDataWarning,
    PredstabUndefinedWarning,
    warn_outside,
)
from .._core._ratings import unit_scaled
from .._core._results import r_block, r_pvalue, r_signif, result
from .._core._stack import is_stack, stack_apply
from .._core._validation import validate_params
from ._common import IrrResult, complete_numeric, two_sided_p
from ._docstrings import agreement_doc

__all__ = ["kendall_w", "KendallWResult", "mean_correlation", "mean_spearman", "MeanCorrelationResult"]


# --------------------------------------------------------------------------- ranks
#: Decimal places tried by :func:`_grid_codes` (ratings on a grid of 1, 0.1 or 0.01).
_GRID_DECIMALS = (0, 1, 2)


def _grid_codes(x):
    """Integer codes and their range when every rating has at most 2 decimals, else None.

    Returns (codes, low, width): float integers ``codes`` with ``x == codes / 10**d`` exactly
    (``x == codes`` for d = 0) for the first d in ``_GRID_DECIMALS`` that fits, their minimum
    and ``width = max - min + 1``; None when no d fits, a code exceeds 2**31 in size or the
    range is wider than ``2 n + 256``. ``codes / 10**d`` is correctly rounded, hence monotone,
    and distinct codes below 2**31 give distinct quotients, so the codes order and tie the
    ratings exactly as the ratings themselves do. The first 256 values screen each d first.
    """
    n = x.shape[0]
    head = x.ravel()[:256]
    for d in _GRID_DECIMALS:
        scale = 10.0**d
        if d == 0:
            if not np.array_equal(np.rint(head), head):
                continue
            codes = np.rint(x)
            if not np.array_equal(codes, x):
                continue
        else:
            if not np.array_equal(np.rint(head * scale) / scale, head):
                continue
            codes = np.multiply(x, scale)
            np.rint(codes, out=codes)
            if not np.array_equal(codes / scale, x):
                continue
        low, high = float(codes.min()), float(codes.max())
        if max(-low, high) >= 2.0**31 or high - low + 1 > 2 * n + 256:
            return None
        return codes, low, int(high - low) + 1
    return None


def _rank_sums(x):
    """Per-object sums of each rater's average ranks (``rank`` in R) and the sizes of the tie runs.

    Ratings on a grid of at most 2 decimals (:func:`_grid_codes`; integers, Likert scores,
    ranks) are ranked by counting: one ``np.bincount`` of (rater, code) gives each rater's
    counts per value, whose cumulative sums give each value's average rank. Other ratings take
    one unstable (SIMD) argsort per rater: every position in a run of equal values gets the
    run's average rank (start + (size - 1) / 2 + 1), so the order within a run is irrelevant.
    Either way the ranks are half-integers and their sums exact, equal to
    ``scipy.stats.rankdata``'s; the run sizes are the same multiset.
    """
    n, m = x.shape
    grid = _grid_codes(x)
    if grid is not None:
        codes, low, width = grid
        codes += np.arange(m) * float(width) - low  # rater j's values at j * width + code - low
        cell = codes.astype(np.intp)
        counts = np.bincount(cell.ravel(), minlength=m * width)
        # values below each cell within its rater (the cells of rater j follow j n ratings)
        before = np.cumsum(counts) - counts - np.repeat(np.arange(0, m * n, n), width)
        average = before + (counts + 1) / 2
        return average[cell].sum(axis=1), counts[counts > 0].astype(float)
    xt = np.ascontiguousarray(x.T)
    order = np.argsort(xt, axis=1)
    flat = (order + np.arange(0, m * n, n)[:, None]).ravel()  # positions in xt.ravel()
    s = xt.ravel().take(flat).reshape(m, n)
    new = np.ones(s.shape, dtype=bool)
    new[:, 1:] = s[:, 1:] != s[:, :-1]
    starts = np.flatnonzero(new.ravel())
    sizes = np.diff(np.append(starts, s.size))
    average = (starts % n) + (sizes - 1) / 2 + 1
    ranks = np.repeat(average, sizes)
    return np.bincount(order.ravel(), weights=ranks, minlength=n), sizes.astype(float)


def _ties(x):
    """irr's test for ties: some rater gives two objects the same value."""
    s = np.sort(np.ascontiguousarray(x.T), axis=1)
    return bool((s[:, 1:] == s[:, :-1]).any())

# --------------------------------------------------------------------------- Kendall's W
@result
class KendallWResult(IrrResult):
    """Result of :func:`kendall_w`.

    Attributes
    ----------
    value : float
        Kendall's W (``Wt`` with ``correction=True``).
    statistic : float
        :math:`\\chi^2 = m (n - 1) W`.
    df : int
        n - 1.
    pvalue : float
        Upper tail of the :math:`\\chi^2` distribution.
    correction : bool
        Whether the tie correction was applied (irr's ``correct``).
    ties : bool
        Some rater gave two objects the same value (irr then notes "Coefficient may be incorrect
        due to ties" when ``correction=False``).
    n_objects, n_raters : int
    """

    value: float
    statistic: float
    df: int
    pvalue: float
    correction: bool
    ties: bool
    n_objects: int
    n_raters: int

    _renamed_attributes = {"correct": "correction"}

    @property
    def _value_name(self):
        return "Wt" if self.correction else "W"

    def _method(self):
        return f"Kendall's coefficient of concordance {self._value_name}"

    def _stat_name(self):
        return f"Chisq({self.df})"

    def _str_lines(self):
        lines = super()._str_lines()
        if self.ties and not self.correction:
            lines += ["", " Coefficient may be incorrect due to ties"]
        return lines


@agreement_doc
@validate_params({"correction": ["boolean"]}, renamed={"correct": "correction"})
def kendall_w(ratings, /, *, correction=False):
    r"""Kendall's coefficient of concordance W, with or without the correction for ties.

    Matches `irr::kendall`; see validation/.

    Each rater's ratings are ranked over the objects (average ranks for ties); with :math:`R_i`
    the rank sum of object :math:`i`, :math:`S = \sum_i (R_i - \bar R)^2`, :math:`n` objects and
    :math:`m` raters:

    .. math::

        W = \frac{12 S}{m^2 (n^3 - n) - m \sum_j T_j},\qquad T_j = \sum_{\text{ties}} (t^3 - t)

    (:math:`T_j = 0` without ``correction``), tested with :math:`\chi^2 = m (n-1) W` on
    :math:`n - 1` degrees of freedom.

    Parameters
    ----------
    %(irr_numbers)s
        %(stack)s
    correction : bool, default False
        Correct for ties (irr's ``correct``, giving ``Wt``).

    Returns
    -------
    KendallWResult
        ``.value``, ``.statistic``, ``.df``, ``.pvalue``, ``.ties``.

    References
    ----------
    .. [1] Kendall, M. G. & Babington Smith, B. (1939). The problem of m rankings. Annals of
       Mathematical Statistics 10(3), 275-287. https://doi.org/10.1214/aoms/1177732186

    Examples
    --------
    >>> from predstab import kendall_w
    >>> round(kendall_w([[1, 2, 1], [2, 1, 2], [3, 3, 3], [4, 4, 4]]).value, 4)
    0.9111
    """
    if is_stack(ratings):  # (..., n_objects, n_raters): a result of arrays (predstab._core._stack)
        return stack_apply(kendall_w, ratings, name="ratings",
                           correction=correction)
    x = complete_numeric(ratings, "irr::kendall")
    n, m = x.shape
    sums, runs = _rank_sums(x)
    s = float(np.sum((sums - sums.mean()) ** 2))
    ties = bool((runs > 1).any())
    denominator = m**2 * (n**3 - n)
    if correction:
        denominator = denominator - m * float(np.sum(runs**3 - runs))
    with np.errstate(divide="ignore", invalid="ignore"):
        value = float(12 * s / np.float64(denominator))
    statistic = m * (n - 1) * value
    return KendallWResult(
        value=value,
        statistic=statistic,
        df=n - 1,
        pvalue=float(special.chdtrc(n - 1, statistic)),  # stats.chi2.sf without its argument checks
        correction=bool(correction),
        ties=ties,
        n_objects=n,
        n_raters=m,
    )


# --------------------------------------------------------------------------- mean correlations
@result
class MeanCorrelationResult(IrrResult):
    """Result of :func:`mean_correlation` and :func:`mean_spearman`.

    Attributes
    ----------
    value : float
        Mean correlation over the pairs of raters (back-transformed mean Fisher z with
        ``fisher=True``).
    statistic, pvalue : float
        irr's z = value / sqrt(1 / (n - 3)) and its two-sided p-value (NaN without ``fisher``).
    method : str
        "pearson" or "spearman".
    fisher : bool
    n_dropped : int
        Perfect correlations (|r| = 1) left out of the Fisher average, as irr does.
    ties : bool
        Some rater gave two objects the same value (for "spearman": irr's note on ties).
    pairwise : ndarray of shape (n_raters, n_raters)
        The correlation matrix.
    n_objects, n_raters : int
    """

    value: float
    statistic: float
    pvalue: float
    method: str
    fisher: bool
    n_dropped: int
    ties: bool
    pairwise: np.ndarray
    n_objects: int
    n_raters: int

    @property
    def _value_name(self):
        return "Rho" if self.method == "spearman" else "R"

    def _method(self):
        return (
            "Mean of bivariate rank correlations Rho"
            if self.method == "spearman"
            else "Mean of bivariate correlations R"
        )

    def _str_lines(self):
        lines = r_block(
            self._method(),
            [
                ("Subjects", self.n_objects),
                ("Raters", self.n_raters),
                (self._value_name, r_signif(self.value, 3)),
            ],
        )
        if self.fisher:
            lines += ["", f"{'z':>9} = {r_signif(self.statistic, 3)}", f"  {r_pvalue(self.pvalue, 3)}"]
        if self.n_dropped:
            lines += ["", f" {self.n_dropped} perfect correlation(s) dropped before averaging"]
        if self.method == "spearman" and self.ties:
            lines += ["", " Coefficient may be incorrect due to ties"]
        return lines


def _mean_correlation(x, method, fisher, function):
    n, m = x.shape
    data = stats.rankdata(np.ascontiguousarray(x.T), axis=1).T if method == "spearman" else x
    centred = data - data.mean(axis=0)
    cross = centred.T @ centred
    diag = np.diag(cross)
    with np.errstate(divide="ignore", invalid="ignore"):
        # sqrt(fl(s * s)) == s: identical raters correlate exactly 1, so irr's |r| = 1 rule finds them
        r = np.clip(cross / np.sqrt(np.outer(diag, diag)), -1.0, 1.0)
    pairs = r[np.triu_indices(m, 1)]
    nan = float("nan")
    constant = np.flatnonzero(diag == 0)
    if constant.size:
        warn_outside(f"{constant.size} rater(s) give every object the same rating (column(s) "
                     f"{constant.tolist()}): their correlations are undefined, so the mean is nan.",
                     PredstabUndefinedWarning)
    n_dropped = 0
    if fisher:
        keep = (pairs < 1) & (pairs > -1)
        n_dropped = int(np.count_nonzero(~keep & ~np.isnan(pairs)))
        if n_dropped:
            warn_outside(f"{n_dropped} perfect correlation(s) dropped before averaging (as {function} does).",
                         PredstabDataWarning)
        pairs = pairs[keep | np.isnan(pairs)]
        if not pairs.size:
            warn_outside("Every correlation is perfect and was dropped: the Fisher mean is undefined and "
                         "set to nan.", PredstabUndefinedWarning)
        with np.errstate(divide="ignore", invalid="ignore"):
            value = float(np.tanh(np.mean(np.arctanh(pairs)))) if pairs.size else nan
            statistic = float(value / np.sqrt(1 / np.float64(n - 3)))
        pvalue = float(two_sided_p(statistic))
    else:
        value, statistic, pvalue = float(np.mean(pairs)), nan, nan
    return MeanCorrelationResult(
        value=value,
        statistic=statistic,
        pvalue=pvalue,
        method=method,
        fisher=bool(fisher),
        n_dropped=n_dropped,
        ties=_ties(x),
        pairwise=r,
        n_objects=n,
        n_raters=m,
    )


@agreement_doc
@validate_params({"fisher": ["boolean"]})
def mean_correlation(ratings, /, *, fisher=True):
    r"""Mean of the Pearson correlations between every pair of raters.

    Matches `irr::meancor`; see validation/.

    With ``fisher=True`` the correlations are averaged as Fisher z values,
    :math:`\bar r = \tanh(\overline{\operatorname{atanh} r})`, perfect correlations left out as
    irr does, and tested with :math:`z = \bar r \sqrt{n - 3}`.

    %(mean_correlation_sections)s

    Warns
    -----
    PredstabDataWarning
        When perfect correlations are left out of the Fisher average (irr's ``error`` note).
    PredstabUndefinedWarning
        When a rater is constant (its correlations are undefined) or every correlation is
        perfect (nothing left to average): the value is NaN.

    Examples
    --------
    >>> from predstab import mean_correlation
    >>> round(mean_correlation([[1, 2, 1], [2, 1, 2], [3, 3, 4], [4, 4, 3], [5, 6, 5]]).value, 4)
    0.8802
    """
    x = unit_scaled(complete_numeric(ratings, "irr::meancor"))[0]  # scale invariant
    return _mean_correlation(x, "pearson", fisher, "irr::meancor")


@agreement_doc
@validate_params({"fisher": ["boolean"]})
def mean_spearman(ratings, /, *, fisher=True):
    r"""Mean of the Spearman rank correlations between every pair of raters.

    Matches `irr::meanrho`; see validation/. As :func:`mean_correlation` on the ranks (average
    ranks for ties, as R's ``cor(method = "spearman")``).

    %(mean_correlation_sections)s

    Examples
    --------
    >>> from predstab import mean_spearman
    >>> round(mean_spearman([[1, 2, 1], [2, 1, 2], [3, 3, 4], [4, 4, 3], [5, 6, 5]]).value, 4)
    0.8735
    """
    x = complete_numeric(ratings, "irr::meanrho")
    return _mean_correlation(x, "spearman", fisher, "irr::meanrho")
