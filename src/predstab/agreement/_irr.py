"""The rest of irr 0.84.1: percent agreement, Kendall's W, Finn, Robinson's A, mean (rank)
correlations, Maxwell's RE, rater bias, Stuart-Maxwell and Bhapkar tests, iota and
Eliasziw et al.'s inter/intrarater reliability.

Every function takes objects in rows and raters in columns and drops objects with a missing
rating, as irr does (``na.omit``). Sums of squares, ranks and C x C tables are computed in one
pass over the data (``np.bincount``, matrix products), so everything is linear in
objects x raters.
"""

from __future__ import annotations

import math
import warnings
from numbers import Integral, Real

import numpy as np
from scipy import special, stats

from .._core._convention import one_minus_ratio
from .._core._exceptions import PredstabDataWarning, PredstabUndefinedWarning
from .._core._ratings import (
    as_numeric_matrix,
    as_rating_matrix,
    drop_incomplete_objects,
    factorize_ratings,
    unit_scaled,
)
from .._core._results import Result, r_block, r_pvalue, r_signif, result
from .._core._stack import is_stack, stack_apply
from .._core._validation import Interval, Options, validate_params
from ._cohen import _complete_codes, _pair_table
from ._icc import _mean_squares

__all__ = [
    "agree",
    "AgreeResult",
    "kendall_w",
    "KendallWResult",
    "finn",
    "FinnResult",
    "robinson_a",
    "RobinsonAResult",
    "mean_correlation",
    "mean_spearman",
    "MeanCorrelationResult",
    "maxwell_re",
    "MaxwellREResult",
    "rater_bias",
    "RaterBiasResult",
    "stuart_maxwell",
    "StuartMaxwellResult",
    "bhapkar",
    "BhapkarResult",
    "iota",
    "IotaResult",
    "inter_intra_reliability",
    "InterIntraReliabilityResult",
]


# --------------------------------------------------------------------------- shared pieces
def _complete_numeric(ratings, function, *, name="ratings", min_objects=2, stacklevel=5):
    x = as_numeric_matrix(as_rating_matrix(ratings, name=name), name=name)
    x = drop_incomplete_objects(x, np.isnan(x), name=name, function=function, stacklevel=stacklevel)
    if x.shape[0] < min_objects:
        raise ValueError(
            f"`{name}` must have at least {min_objects} complete objects (rows); got {x.shape[0]}."
        )
    return x


def _two_sided_p(z):
    return float(2 * special.ndtr(-abs(z)))


class _IrrResult(Result):
    """irr's ``print.irrlist`` layout: method, Subjects, Raters, value; statistic and p-value."""

    _value_name = "value"
    _stat_name = ""

    def _method(self):
        return self._title

    def _str_lines(self):
        lines = r_block(
            self._method(),
            [
                ("Subjects", self.n_objects),
                ("Raters", self.n_raters),
                (self._value_name, r_signif(self.value, 3)),
            ],
        )
        if self._stat_name:
            lines += [
                "",
                f"{self._stat_name():>9} = {r_signif(self.statistic, 3)}",
                f"  {r_pvalue(self.pvalue, 3)}",
            ]
        return lines


def _tie_sizes(x):
    """Sizes of the runs of equal values of each rater (column), over all raters, one sort per rater."""
    s = np.sort(np.ascontiguousarray(x.T), axis=1)
    new = np.ones(s.shape, dtype=bool)
    new[:, 1:] = s[:, 1:] != s[:, :-1]
    starts = np.flatnonzero(new.ravel())
    return np.diff(np.append(starts, s.size)).astype(float)


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


# --------------------------------------------------------------------------- agree
@result
class AgreeResult(_IrrResult):
    """Result of :func:`agree`.

    Attributes
    ----------
    value : float
        Percentage (0-100) of objects on which all raters agree within ``tolerance``.
    tolerance : float
        The tolerance used (0 for non-numeric ratings, as irr sets it).
    n_objects, n_raters : int
    """

    value: float
    tolerance: float
    n_objects: int
    n_raters: int
    _value_name = "%-agree"

    def _method(self):
        return f"Percentage agreement (Tolerance={self.tolerance:g})"


@validate_params({"tolerance": [Interval(Real, 0, None)]})
def agree(ratings, /, *, tolerance=0):
    """Percentage of objects on which all raters agree (within ``tolerance`` for numbers).

    Matches `irr::agree`; see validation/.

    Parameters
    ----------
    ratings : array-like of shape (n_objects, n_raters)
        Numbers, strings or booleans; objects with a missing rating are dropped, as irr does.
    tolerance : float, default 0
        Largest range (max - min) of an object's ratings that still counts as agreement. Ignored
        (set to 0) for non-numeric ratings, as irr does; booleans are not numbers here (R's
        ``is.numeric`` of a logical is FALSE).

    Returns
    -------
    AgreeResult
        ``.value`` in percent.

    Notes
    -----
    irr counts the distinct values of each object with ``apply(ratings, 1, table)``, which R
    simplifies to a matrix when every object has the same number of distinct values; irr then
    reports 100 % (or 200 %) for text ratings where every object has two distinct values.
    predstab counts them correctly.

    Examples
    --------
    >>> from predstab import agree
    >>> agree([[1, 1, 1], [1, 2, 1], [3, 3, 3], [2, 4, 3]]).value
    50.0
    >>> agree([[1, 1, 1], [1, 2, 1], [3, 3, 3], [2, 4, 3]], tolerance=1).value
    75.0
    """
    arr = as_rating_matrix(ratings)
    numeric = arr.dtype.kind in "iuf"
    if arr.dtype.kind == "O":
        try:
            as_numeric_matrix(arr)
            numeric = True
        except TypeError:
            numeric = False
    if numeric:
        x = _complete_numeric(arr, "irr::agree", min_objects=1)
        agreed = (x.max(axis=1) - x.min(axis=1)) <= tolerance
    else:
        codes, _ = _complete_codes(arr, "irr::agree")
        agreed = (codes == codes[:, :1]).all(axis=1)
        tolerance = 0
    n, m = agreed.shape[0], arr.shape[1]
    return AgreeResult(
        value=100 * float(np.count_nonzero(agreed)) / n, tolerance=float(tolerance), n_objects=n, n_raters=m
    )


# --------------------------------------------------------------------------- Kendall's W
@result
class KendallWResult(_IrrResult):
    """Result of :func:`kendall_w`.

    Attributes
    ----------
    value : float
        Kendall's W (``Wt`` with ``correct=True``).
    statistic : float
        :math:`\\chi^2 = m (n - 1) W`.
    df : int
        n - 1.
    pvalue : float
        Upper tail of the :math:`\\chi^2` distribution.
    correct : bool
    ties : bool
        Some rater gave two objects the same value (irr then notes "Coefficient may be incorrect
        due to ties" when ``correct=False``).
    n_objects, n_raters : int
    """

    value: float
    statistic: float
    df: int
    pvalue: float
    correct: bool
    ties: bool
    n_objects: int
    n_raters: int

    @property
    def _value_name(self):
        return "Wt" if self.correct else "W"

    def _method(self):
        return f"Kendall's coefficient of concordance {self._value_name}"

    def _stat_name(self):
        return f"Chisq({self.df})"

    def _str_lines(self):
        lines = super()._str_lines()
        if self.ties and not self.correct:
            lines += ["", " Coefficient may be incorrect due to ties"]
        return lines


@validate_params({"correct": ["boolean"]})
def kendall_w(ratings, /, *, correct=False):
    r"""Kendall's coefficient of concordance W, with or without the correction for ties.

    Matches `irr::kendall`; see validation/.

    Each rater's ratings are ranked over the objects (average ranks for ties); with :math:`R_i`
    the rank sum of object :math:`i`, :math:`S = \sum_i (R_i - \bar R)^2`, :math:`n` objects and
    :math:`m` raters:

    .. math::

        W = \frac{12 S}{m^2 (n^3 - n) - m \sum_j T_j},\qquad T_j = \sum_{\text{ties}} (t^3 - t)

    (:math:`T_j = 0` without ``correct``), tested with :math:`\chi^2 = m (n-1) W` on
    :math:`n - 1` degrees of freedom.

    Parameters
    ----------
    ratings : array-like of shape (n_objects, n_raters)
        Numbers; objects with a missing rating are dropped, as irr does.
        A stack of shape ``(..., n_objects, n_raters)`` (a Dask array too) gives one result whose
        numbers are arrays of shape ``(...)``, as a loop over the matrices would.
    correct : bool, default False
        Correct for ties (irr's ``Wt``).

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
        return stack_apply(kendall_w, ratings, name="ratings", stacklevel=3, correct=correct)
    x = _complete_numeric(ratings, "irr::kendall")
    n, m = x.shape
    sums, runs = _rank_sums(x)
    s = float(np.sum((sums - sums.mean()) ** 2))
    ties = bool((runs > 1).any())
    denominator = m**2 * (n**3 - n)
    if correct:
        denominator = denominator - m * float(np.sum(runs**3 - runs))
    with np.errstate(divide="ignore", invalid="ignore"):
        value = float(12 * s / np.float64(denominator))
    statistic = m * (n - 1) * value
    return KendallWResult(
        value=value,
        statistic=statistic,
        df=n - 1,
        pvalue=float(special.chdtrc(n - 1, statistic)),  # stats.chi2.sf without its argument checks
        correct=bool(correct),
        ties=ties,
        n_objects=n,
        n_raters=m,
    )


# --------------------------------------------------------------------------- Finn
@result
class FinnResult(_IrrResult):
    """Result of :func:`finn`.

    Attributes
    ----------
    value : float
        Finn's coefficient.
    statistic : float
        F = expected variance / observed (within or residual) mean square.
    df1, df2 : float
        Infinity and :math:`n (m - 1)` (irr uses this df2 for both models).
    pvalue : float
    model : str
    n_levels : int
    n_objects, n_raters : int
    """

    value: float
    statistic: float
    df1: float
    df2: float
    pvalue: float
    model: str
    n_levels: int
    n_objects: int
    n_raters: int
    _value_name = "Finn"

    def _method(self):
        return f"Finn-Coefficient (Model={self.model})"

    def _stat_name(self):
        return f"F(Inf,{self.df2:g})"


@validate_params({"n_levels": [Interval(Integral, 2, None)], "model": [Options(("oneway", "twoway"))]})
def finn(ratings, /, *, n_levels, model="oneway"):
    r"""Finn's coefficient: observed variance against the variance of random ratings.

    Matches `irr::finn`; see validation/.

    With :math:`s` scale levels the variance of uniformly random ratings is
    :math:`\sigma^2_e = (s^2 - 1)/12`; Finn's coefficient is :math:`1 - MS/\sigma^2_e` with
    :math:`MS` the within-object mean square (``"oneway"``) or the residual mean square of the
    two-way model (``"twoway"``), tested with :math:`F = \sigma^2_e / MS` on
    (:math:`\infty`, :math:`n(m-1)`) degrees of freedom.

    Parameters
    ----------
    ratings : array-like of shape (n_objects, n_raters)
        Numbers; objects with a missing rating are dropped, as irr does.
    n_levels : int
        Number of levels of the rating scale (irr's ``s.levels``).
    model : {"oneway", "twoway"}, default "oneway"

    Returns
    -------
    FinnResult
        ``.value``, ``.statistic`` (F), ``.df1``, ``.df2``, ``.pvalue``.

    References
    ----------
    .. [1] Finn, R. H. (1970). A note on estimating the reliability of categorical data.
       Educational and Psychological Measurement 30, 71-76. https://doi.org/10.1177/001316447003000106

    Examples
    --------
    >>> from predstab import finn
    >>> round(finn([[1, 2], [3, 3], [5, 4], [2, 2]], n_levels=5).value, 4)
    0.875
    """
    # Finn compares the raters' variance with that of n_levels levels: not scale invariant, so the
    # mean squares of the exactly rescaled data are scaled back (inf past the float range)
    x, scale = unit_scaled(_complete_numeric(ratings, "irr::finn"))
    ms = _mean_squares(x)
    n, m = x.shape
    expected = (n_levels**2 - 1) / 12
    with np.errstate(over="ignore"):
        observed = (ms.msw if model == "oneway" else ms.mse) * scale * scale
    df2 = float(n * (m - 1))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        # numpy scalars: an infinite within variance (|x| >= 1e154) gives F = 0 and p = 1, no
        # ZeroDivisionError
        statistic = np.float64(expected) / observed
        # upper tail of F(Inf, df2) at f: P(chi2_df2 / df2 < 1 / f), as R's pf does for df1 = Inf
        pvalue = float(stats.chi2.cdf(np.float64(df2) / statistic, df2))
    return FinnResult(
        value=float(1 - observed / expected),
        statistic=statistic,
        df1=math.inf,
        df2=df2,
        pvalue=pvalue,
        model=model,
        n_levels=int(n_levels),
        n_objects=n,
        n_raters=m,
    )


# --------------------------------------------------------------------------- Robinson's A
@result
class RobinsonAResult(_IrrResult):
    """Result of :func:`robinson_a`: ``.value`` (Robinson's A), ``.n_objects``, ``.n_raters``."""

    value: float
    n_objects: int
    n_raters: int
    _value_name = "A"
    _title = "Robinson's A"


@validate_params({})
def robinson_a(ratings, /):
    r"""Robinson's A: between-object sum of squares over between-object plus residual.

    Matches `irr::robinson`; see validation/.

    .. math::

        A = \frac{SS_{\text{objects}}}{SS_{\text{objects}} + SS_{\text{residual}}}
          = 1 - \frac{SS_{\text{residual}}}{SS_{\text{objects}} + SS_{\text{residual}}}

    Parameters
    ----------
    ratings : array-like of shape (n_objects, n_raters)
        Numbers; objects with a missing rating are dropped, as irr does.

    Returns
    -------
    RobinsonAResult

    Warns
    -----
    PredstabDegenerateWarning
        When every rating is the same: A is 1 (``predstab._core._convention``), where irr gives NaN.

    References
    ----------
    .. [1] Robinson, W. S. (1957). The statistical measurement of agreement. American
       Sociological Review 22(1), 17-25. https://doi.org/10.2307/2088760

    Examples
    --------
    >>> from predstab import robinson_a
    >>> round(robinson_a([[1, 2], [3, 3], [5, 4], [2, 2]]).value, 4)
    0.913
    """
    x = unit_scaled(_complete_numeric(ratings, "irr::robinson"))[0]  # scale invariant
    ms = _mean_squares(x)
    n, m = x.shape
    ss_b, ss_e = float(ms.msr * (n - 1)), float(ms.mse * (n - 1) * (m - 1))
    value = one_minus_ratio(ss_e, ss_b + ss_e, name="Robinson's A", stacklevel=4)
    return RobinsonAResult(value=value, n_objects=n, n_raters=m)


# --------------------------------------------------------------------------- mean correlations
@result
class MeanCorrelationResult(_IrrResult):
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
        warnings.warn(f"{constant.size} rater(s) give every object the same rating (column(s) "
                      f"{constant.tolist()}): their correlations are undefined, so the mean is nan.",
                      PredstabUndefinedWarning, stacklevel=4)
    n_dropped = 0
    if fisher:
        keep = (pairs < 1) & (pairs > -1)
        n_dropped = int(np.count_nonzero(~keep & ~np.isnan(pairs)))
        if n_dropped:
            warnings.warn(
                f"{n_dropped} perfect correlation(s) dropped before averaging (as {function} does).",
                PredstabDataWarning,
                stacklevel=4,
            )
        pairs = pairs[keep | np.isnan(pairs)]
        if not pairs.size:
            warnings.warn("Every correlation is perfect and was dropped: the Fisher mean is undefined and "
                          "set to nan.", PredstabUndefinedWarning, stacklevel=4)
        with np.errstate(divide="ignore", invalid="ignore"):
            value = float(np.tanh(np.mean(np.arctanh(pairs)))) if pairs.size else nan
            statistic = float(value / np.sqrt(1 / np.float64(n - 3)))
        pvalue = _two_sided_p(statistic)
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


@validate_params({"fisher": ["boolean"]})
def mean_correlation(ratings, /, *, fisher=True):
    r"""Mean of the Pearson correlations between every pair of raters.

    Matches `irr::meancor`; see validation/.

    With ``fisher=True`` the correlations are averaged as Fisher z values,
    :math:`\bar r = \tanh(\overline{\operatorname{atanh} r})`, perfect correlations left out as
    irr does, and tested with :math:`z = \bar r \sqrt{n - 3}`.

    Parameters
    ----------
    ratings : array-like of shape (n_objects, n_raters)
        Numbers; objects with a missing rating are dropped, as irr does.
    fisher : bool, default True

    Returns
    -------
    MeanCorrelationResult
        ``.value``, ``.statistic`` (z), ``.pvalue``, ``.pairwise``.

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
    x = unit_scaled(_complete_numeric(ratings, "irr::meancor"))[0]  # scale invariant
    return _mean_correlation(x, "pearson", fisher, "irr::meancor")


@validate_params({"fisher": ["boolean"]})
def mean_spearman(ratings, /, *, fisher=True):
    r"""Mean of the Spearman rank correlations between every pair of raters.

    Matches `irr::meanrho`; see validation/. As :func:`mean_correlation` on the ranks (average
    ranks for ties, as R's ``cor(method = "spearman")``).

    Parameters
    ----------
    ratings : array-like of shape (n_objects, n_raters)
        Numbers; objects with a missing rating are dropped, as irr does.
    fisher : bool, default True

    Returns
    -------
    MeanCorrelationResult
        ``.value``, ``.statistic`` (z), ``.pvalue``, ``.pairwise``, ``.ties``.

    Examples
    --------
    >>> from predstab import mean_spearman
    >>> round(mean_spearman([[1, 2, 1], [2, 1, 2], [3, 3, 4], [4, 4, 3], [5, 6, 5]]).value, 4)
    0.8735
    """
    x = _complete_numeric(ratings, "irr::meanrho")
    return _mean_correlation(x, "spearman", fisher, "irr::meanrho")


# --------------------------------------------------------------------------- two raters, C x C table
def _two_rater_table(ratings, function):
    """C x C table of (rater 1, rater 2) over the sorted categories of the complete objects."""
    codes, categories = _complete_codes(ratings, function, n_raters=2, stacklevel=5)
    k = len(categories)
    return _pair_table(codes[:, 0], codes[:, 1], k), categories, codes.shape[0]


def _square_table(table, name="ratings"):
    """A ready-made C x C table of counts (rater 1 in rows), its categories and its total.

    Categories are a DataFrame's row labels (``pd.crosstab`` output), else 1..C as R numbers
    the rows of a matrix without dimnames.
    """
    import pandas as pd

    labels = None
    if isinstance(table, pd.DataFrame):
        if list(table.index) != list(table.columns):
            raise ValueError(f"`{name}` as a table must have the same labels, in the same order, on its rows "
                             f"and columns; got rows {list(table.index)!r:.80} and columns "
                             f"{list(table.columns)!r:.80}.")
        labels = np.asarray(table.index, dtype=object)
    try:
        t = np.asarray(table, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"`{name}` as a table must hold counts (numbers); got {table!r:.80}.") from None
    if t.ndim != 2 or t.shape[0] != t.shape[1] or t.shape[0] < 2:
        raise ValueError(f"`{name}` as a table must be a square C x C table of counts (C >= 2); got shape "
                         f"{t.shape}.")
    if not (np.isfinite(t).all() and (t >= 0).all() and (t == np.round(t)).all()):
        raise ValueError(f"`{name}` as a table must hold non-negative whole counts.")
    categories = labels if labels is not None else np.arange(1, t.shape[0] + 1)
    return t, categories, int(t.sum())


@result
class MaxwellREResult(_IrrResult):
    """Result of :func:`maxwell_re`: ``.value`` (Maxwell's RE), ``.n_objects``, ``.n_raters``."""

    value: float
    n_objects: int
    n_raters: int
    _value_name = "RE"
    _title = "Maxwell's RE"


@validate_params({})
def maxwell_re(ratings, /):
    r"""Maxwell's random error coefficient for two raters and binary ratings: :math:`RE = 2 p_o - 1`.

    Matches `irr::maxwell`; see validation/.

    Parameters
    ----------
    ratings : array-like of shape (n_objects, 2)
        Two categories (numbers, strings or booleans); objects with a missing rating are dropped.

    Returns
    -------
    MaxwellREResult

    References
    ----------
    .. [1] Maxwell, A. E. (1977). Coefficients of agreement between observers and their
       interpretation. British Journal of Psychiatry 130, 79-83. https://doi.org/10.1192/bjp.130.1.79

    Examples
    --------
    >>> from predstab import maxwell_re
    >>> maxwell_re([[0, 0], [1, 1], [1, 0], [0, 0]]).value
    0.5
    """
    table, categories, n = _two_rater_table(ratings, "irr::maxwell")
    if len(categories) > 2:
        raise ValueError(f"`ratings` must be binary (at most 2 categories); got {len(categories)}.")
    return MaxwellREResult(value=2 * float(np.trace(table)) / n - 1, n_objects=n, n_raters=2)


@result
class RaterBiasResult(_IrrResult):
    """Result of :func:`rater_bias`.

    Attributes
    ----------
    value : float
        Share of the disagreements where rater 1's category comes before rater 2's
        (upper triangle of the table).
    statistic : float
        :math:`\\chi^2 = (b - c)^2 / (b + c)` on 1 degree of freedom.
    pvalue : float
    categories : tuple
    table : ndarray
        The C x C table (rater 1 in rows).
    n_objects, n_raters : int
    """

    value: float
    statistic: float
    pvalue: float
    categories: tuple
    table: np.ndarray
    n_objects: int
    n_raters: int
    _value_name = "Ratio"
    _title = "Rater bias coefficient"

    def _stat_name(self):
        return "Chisq(1)"


@validate_params({"table": ["boolean"]})
def rater_bias(ratings, /, *, table=False):
    r"""Systematic bias of one rater against another (two raters).

    Matches `irr::rater.bias` called on the C x C table of (rater 1, rater 2) over the sorted
    categories; see validation/.

    With :math:`b` the objects above the diagonal (rater 1's category earlier than rater 2's)
    and :math:`c` those below: ratio :math:`b / (b + c)`, :math:`\chi^2 = (b - c)^2 / (b + c)`.

    Parameters
    ----------
    ratings : array-like of shape (n_objects, 2), or (C, C) with ``table=True``
        Categories in a meaningful order (numbers, or text sorted as text); objects with a
        missing rating are dropped. With ``table=True``: the C x C table of counts itself
        (rater 1 in rows, categories in their order), as irr also accepts; a DataFrame such
        as ``pd.crosstab`` output gives the categories by its labels.
    table : bool, default False
        ``ratings`` is a ready-made C x C table of counts.

    Returns
    -------
    RaterBiasResult

    Warns
    -----
    PredstabUndefinedWarning
        When the raters never disagree (b + c = 0): the value is NaN (irr: NaN, silently).

    Notes
    -----
    irr's own ``n x 2`` path tables each rater's own categories, which is not square (nor
    aligned) when a rater never uses some category; predstab always uses both raters' categories.

    Examples
    --------
    >>> from predstab import rater_bias
    >>> rater_bias([[1, 2], [1, 2], [2, 1], [2, 2], [1, 3]]).value
    0.75
    """
    if table:
        counts, categories, n = _square_table(ratings)
    else:  # called here, not through a helper: its warnings' stacklevel counts these frames
        counts, categories, n = _two_rater_table(ratings, "irr::rater.bias")
    b, c = float(np.triu(counts, 1).sum()), float(np.tril(counts, -1).sum())
    if b + c == 0:
        warnings.warn("The raters never disagree: the share b / (b + c) of the disagreements in the "
                      "upper triangle is undefined and set to nan.", PredstabUndefinedWarning, stacklevel=3)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = float(np.float64(b) / (b + c))
        statistic = float(np.float64(b - c) ** 2 / (b + c))
    return RaterBiasResult(
        value=value,
        statistic=statistic,
        pvalue=float(stats.chi2.sf(statistic, 1)),
        categories=tuple(categories.tolist()),
        table=counts,
        n_objects=n,
        n_raters=2,
    )


@result
class StuartMaxwellResult(_IrrResult):
    """Result of :func:`stuart_maxwell`.

    Attributes
    ----------
    statistic : float
        Stuart-Maxwell :math:`\\chi^2` (also ``value``, as irr).
    df : int
        Categories with unequal marginals, minus 1.
    pvalue : float
    n_used : int
        Objects in the categories with unequal marginals (irr's ``subjects``).
    categories : tuple
    table : ndarray
    n_objects, n_raters : int
    """

    value: float
    statistic: float
    df: int
    pvalue: float
    n_used: int
    categories: tuple
    table: np.ndarray
    n_objects: int
    n_raters: int
    _value_name = "Chisq"
    _title = "Stuart-Maxwell marginal homogeneity"

    def _stat_name(self):
        return f"Chisq({self.df})"


def _quadratic_form(d, s, test):
    try:
        return float(d @ np.linalg.solve(s, d))
    except np.linalg.LinAlgError:
        warnings.warn(
            f"the covariance matrix of the {test} test is singular; the statistic is undefined (NaN, "
            "where R's solve() stops with an error).",
            PredstabUndefinedWarning,
            stacklevel=4,
        )
        return float("nan")


@validate_params({"table": ["boolean"]})
def stuart_maxwell(ratings, /, *, table=False):
    r"""Stuart-Maxwell test of marginal homogeneity for two raters.

    Matches `irr::stuart.maxwell.mh` called on the C x C table over the sorted categories; see
    validation/.

    Categories whose two marginals are equal are dropped (as irr does); with :math:`d` the
    differences of the remaining first :math:`K-1` marginals and :math:`S` their covariance
    (:math:`S_{ii} = n_{i.} + n_{.i} - 2 n_{ii}`, :math:`S_{ij} = -(n_{ij} + n_{ji})`):
    :math:`\chi^2 = d^\top S^{-1} d` on :math:`K - 1` degrees of freedom.

    Parameters
    ----------
    ratings : array-like of shape (n_objects, 2), or (C, C) with ``table=True``
        Categories; objects with a missing rating are dropped. With ``table=True``: the C x C
        table of counts itself (rater 1 in rows), as irr also accepts; a DataFrame such as
        ``pd.crosstab`` output gives the categories by its labels.
    table : bool, default False
        ``ratings`` is a ready-made C x C table of counts.

    Returns
    -------
    StuartMaxwellResult

    Warns
    -----
    PredstabUndefinedWarning
        When :math:`S` is singular: statistic and p-value NaN, where R stops with an error.

    Notes
    -----
    When every category has equal marginals irr stops ("Too many equal marginals"); predstab
    returns :math:`\chi^2 = 0` (the marginals are homogeneous), ``df = 0`` and p = 1.

    References
    ----------
    .. [1] Stuart, A. (1955). A test for homogeneity of the marginal distributions in a two-way
       classification. Biometrika 42, 412-416. https://doi.org/10.1093/biomet/42.3-4.412

    Examples
    --------
    >>> from predstab import stuart_maxwell
    >>> round(stuart_maxwell([[1, 2], [1, 2], [2, 1], [2, 2], [1, 3], [3, 3]]).statistic, 4)
    1.3333
    """
    if table:
        counts, categories, n = _square_table(ratings)
    else:
        counts, categories, n = _two_rater_table(ratings, "irr::stuart.maxwell.mh")
    rows, cols = counts.sum(axis=1), counts.sum(axis=0)
    unequal = rows != cols
    t = counts[np.ix_(unequal, unequal)]
    if t.shape[0] < 2:
        statistic, df, pvalue = 0.0, 0, 1.0
    else:
        rows, cols = t.sum(axis=1), t.sum(axis=0)
        k1 = t.shape[0] - 1
        d = (rows - cols)[:k1]
        s = -(t + t.T)[:k1, :k1]
        np.fill_diagonal(s, rows[:k1] + cols[:k1] - 2 * np.diag(t)[:k1])
        statistic = _quadratic_form(d, s, "Stuart-Maxwell")
        df, pvalue = k1, float(stats.chi2.sf(statistic, k1))
    return StuartMaxwellResult(
        value=statistic,
        statistic=statistic,
        df=df,
        pvalue=pvalue,
        n_used=int(t.sum()),
        categories=tuple(categories.tolist()),
        table=counts,
        n_objects=n,
        n_raters=2,
    )


@result
class BhapkarResult(_IrrResult):
    """Result of :func:`bhapkar`: ``.statistic`` (:math:`\\chi^2`, also ``.value``), ``.df``, ``.pvalue``."""

    value: float
    statistic: float
    df: int
    pvalue: float
    n_objects: int
    n_raters: int
    _value_name = "Chisq"
    _title = "Bhapkar marginal homogeneity"

    def _stat_name(self):
        return f"Chisq({self.df})"


@validate_params({})
def bhapkar(ratings, /):
    r"""Bhapkar's test of marginal homogeneity for two raters.

    Matches `irr::bhapkar`; see validation/.

    With :math:`d` the differences of the first :math:`C-1` marginals of the C x C table and
    :math:`W = \operatorname{diag}(n_{i.} + n_{.i}) - (n_{ij} + n_{ji}) - d d^\top / n` over them:
    :math:`\chi^2 = d^\top W^{-1} d` on :math:`C - 1` degrees of freedom (which category is left out
    does not matter).

    Parameters
    ----------
    ratings : array-like of shape (n_objects, 2)
        Categories; objects with a missing rating are dropped, as irr does.

    Returns
    -------
    BhapkarResult

    Warns
    -----
    PredstabUndefinedWarning
        When :math:`W` is singular: statistic and p-value NaN, where R stops with an error.

    References
    ----------
    .. [1] Bhapkar, V. P. (1966). A note on the equivalence of two test criteria for hypotheses
       in categorical data. Journal of the American Statistical Association 61, 228-235.
       https://doi.org/10.1080/01621459.1966.10502021

    Examples
    --------
    >>> from predstab import bhapkar
    >>> round(bhapkar([[1, 2], [1, 2], [2, 1], [2, 2], [1, 3], [3, 3]]).statistic, 4)
    1.7143
    """
    table, categories, n = _two_rater_table(ratings, "irr::bhapkar")
    k1 = table.shape[0] - 1
    rows, cols = table.sum(axis=1)[:k1], table.sum(axis=0)[:k1]
    d = rows - cols
    t = table[:k1, :k1]
    w = np.diag(rows + cols) - t - t.T - np.outer(d, d) / n
    statistic = _quadratic_form(d, w, "Bhapkar")
    return BhapkarResult(
        value=statistic,
        statistic=statistic,
        df=k1,
        pvalue=float(stats.chi2.sf(statistic, k1)),
        n_objects=n,
        n_raters=2,
    )


# --------------------------------------------------------------------------- iota
@result
class IotaResult(_IrrResult):
    """Result of :func:`iota`: ``.value`` (iota), ``.level``, ``.standardize``, ``.n_variables``."""

    value: float
    level: str
    standardize: bool
    n_variables: int
    n_objects: int
    n_raters: int
    _value_name = "iota"

    def _method(self):
        plural = "variable" if self.n_variables == 1 else "variables"
        return f"iota for {self.level} data ({self.n_variables} {plural})"

    def _str_lines(self):
        lines = super()._str_lines()
        if self.standardize and self.level == "quantitative":
            lines += ["", " Variables have been z-standardized before the computation"]
        return lines


def _iota_ss(x):
    """Within-object SS and (m - 1) SS_total + SS_raters of one (objects x raters) variable."""
    n, m = x.shape
    row_mean = x.mean(axis=1)
    col_mean = x.mean(axis=0)
    grand = row_mean.mean()
    ss_w = float(np.sum((x - row_mean[:, None]) ** 2))
    ss_t = float(np.sum((x - grand) ** 2))
    ss_c = n * float(np.sum((col_mean - grand) ** 2))
    return ss_w, (m - 1) * ss_t + ss_c


@validate_params({"level": [Options(("quantitative", "nominal"))], "standardize": ["boolean"]})
def iota(ratings, /, *, level="quantitative", standardize=False):
    r"""Janson & Olsson's iota: agreement on several variables at once.

    Matches `irr::iota`; see validation/.

    For every variable (quantitative) or every category of every variable (nominal, coded as
    :math:`1/\sqrt 2` indicators), with :math:`SS_w` the within-object and :math:`SS_t`, :math:`SS_c`
    the total and between-rater sums of squares:

    .. math::

        \iota = 1 - \frac{m \sum_v SS_{w,v}}{\sum_v \big((m - 1) SS_{t,v} + SS_{c,v}\big)}

    Parameters
    ----------
    ratings : array-like of shape (n_objects, n_raters) or a sequence of them
        One (objects x raters) matrix per variable (irr's list of matrices), all of the same
        shape. Objects with a missing rating in any variable are dropped.
    level : {"quantitative", "nominal"}, default "quantitative"
        irr's ``scaledata``.
    standardize : bool, default False
        z-standardise each quantitative variable first (ignored for nominal data, as in irr).

    Returns
    -------
    IotaResult

    Warns
    -----
    PredstabDegenerateWarning
        When every rating is the same: iota is 1 (``predstab._core._convention``), where irr gives NaN.

    References
    ----------
    .. [1] Janson, H. & Olsson, U. (2001). A measure of agreement for interval or nominal
       multivariate observations. Educational and Psychological Measurement 61, 277-289.
       https://doi.org/10.1177/00131640121971239

    Examples
    --------
    >>> from predstab import iota
    >>> round(iota([[1, 2], [3, 3], [5, 4], [2, 2]]).value, 4)
    0.8261
    """
    several = isinstance(ratings, (list, tuple)) and len(ratings) > 0 and all(
        hasattr(v, "shape") or (isinstance(v, (list, tuple)) and v and isinstance(v[0], (list, tuple)))
        for v in ratings)
    arrays = list(ratings) if several else [ratings]
    arrays = [as_rating_matrix(a) for a in arrays]
    if not arrays:
        raise ValueError("`ratings` must hold at least one variable; got none.")
    shape = arrays[0].shape
    if any(a.shape != shape for a in arrays):
        raise ValueError(f"`ratings` must hold variables of one shape; got {[a.shape for a in arrays]}.")
    if level == "quantitative":
        # one factor for every variable: iota is invariant to a common scaling only
        arrays = list(unit_scaled(np.stack([as_numeric_matrix(a) for a in arrays]))[0])
        missing = np.any([np.isnan(a) for a in arrays], axis=0)
        codes = None
    else:
        coded = [factorize_ratings(a) for a in arrays]
        missing = np.any([c < 0 for c, _ in coded], axis=0)
        codes = [c for c, _ in coded]
    keep = ~missing.any(axis=1)
    if not keep.all():
        if not keep.any():
            raise ValueError("`ratings` has a missing value in every object.")
        warnings.warn(
            f"{int((~keep).sum())} of {keep.size} objects have a missing value and were dropped.",
            PredstabDataWarning,
            stacklevel=3,
        )
    n, m = int(keep.sum()), shape[1]
    d_o = d_e = 0.0
    if level == "quantitative":
        for x in arrays:
            x = x[keep]
            if standardize:
                x = (x - x.mean()) / x.std(ddof=1)
            ss_w, de = _iota_ss(x)
            d_o, d_e = d_o + ss_w, d_e + de
    else:
        for c in codes:
            c = c[keep]
            for category in np.unique(c):
                ss_w, de = _iota_ss((c == category) / math.sqrt(2))
                d_o, d_e = d_o + ss_w, d_e + de
    value = one_minus_ratio(m * d_o, d_e, name="iota", stacklevel=4)
    return IotaResult(
        value=value,
        level=level,
        standardize=bool(standardize),
        n_variables=len(arrays),
        n_objects=n,
        n_raters=m,
    )


# --------------------------------------------------------------------------- relInterIntra
@result
class InterIntraReliabilityResult(Result):
    """Result of :func:`inter_intra_reliability` (Eliasziw et al. 1994; irr's ``relInterIntra``).

    Attributes
    ----------
    inter_random, intra_random, inter_fixed, intra_fixed : float
        Inter- and intrarater reliability with raters random or fixed (``rhohat.*``).
    intra_random_per_rater, intra_fixed_per_rater : ndarray of shape (n_raters,)
        Intrarater reliability of each rater (``rhohat.intra.*.part.*``).
    f_inter, f_intra : float
        F statistics of H0: inter = ``rho0_inter``, intra = ``rho0_intra`` (``Finter``, ``Fintra``).
    f_intra_per_rater : ndarray
    pvalue_inter, pvalue_intra : float
    pvalue_intra_per_rater : ndarray
    lower_inter_random, lower_inter_fixed, lower_intra : float
        One-sided lower confidence bounds at ``confidence_level`` (``lowinter.*``, ``lowintra``).
    lower_intra_per_rater : ndarray
    sem_intra, sem_inter_random, sem_inter_fixed : float
        Standard errors of measurement (``SEMintra``, ``SEMinter.*``).
    sem_intra_per_rater : ndarray
    confidence_level : float
    n_objects, n_raters, n_measurements : int
    """

    inter_random: float
    intra_random: float
    inter_fixed: float
    intra_fixed: float
    intra_random_per_rater: np.ndarray
    intra_fixed_per_rater: np.ndarray
    f_inter: float
    f_intra: float
    f_intra_per_rater: np.ndarray
    pvalue_inter: float
    pvalue_intra: float
    pvalue_intra_per_rater: np.ndarray
    lower_inter_random: float
    lower_inter_fixed: float
    lower_intra: float
    lower_intra_per_rater: np.ndarray
    sem_intra: float
    sem_intra_per_rater: np.ndarray
    sem_inter_random: float
    sem_inter_fixed: float
    confidence_level: float
    n_objects: int
    n_raters: int
    n_measurements: int

    def _str_lines(self):
        def row(*values):
            return ", ".join(r_signif(v, 3) for v in values)

        return r_block(
            "Inter/Intrarater reliability",
            [
                ("Subjects", self.n_objects),
                ("Raters", self.n_raters),
                (
                    "rhohat",
                    row(
                        self.inter_random,
                        self.intra_random,
                        self.inter_fixed,
                        self.intra_fixed,
                        *self.intra_random_per_rater,
                        *self.intra_fixed_per_rater,
                    ),
                ),
                ("F", row(self.f_inter, self.f_intra, *self.f_intra_per_rater)),
                ("p-value", row(self.pvalue_inter, self.pvalue_intra, *self.pvalue_intra_per_rater)),
                (
                    "lower bound",
                    row(
                        self.lower_inter_random,
                        self.lower_inter_fixed,
                        self.lower_intra,
                        *self.lower_intra_per_rater,
                    ),
                ),
                (
                    "SEM",
                    row(
                        self.sem_intra, *self.sem_intra_per_rater, self.sem_inter_random, self.sem_inter_fixed
                    ),
                ),
            ],
        )


@validate_params(
    {
        "n_raters": [Interval(Integral, 1, None)],
        "rho0_inter": [Interval(Real, 0, 1, closed="left")],
        "rho0_intra": [Interval(Real, 0, 1, closed="left")],
        "confidence_level": [Interval(Real, 0, 1, closed="neither")],
    }
)
def inter_intra_reliability(ratings, /, *, n_raters, rho0_inter=0.6, rho0_intra=0.8, confidence_level=0.95):
    r"""Inter- and intrarater reliability from repeated measurements (Eliasziw et al. 1994).

    Matches `irr::relInterIntra`; see validation/.

    A balanced two-way ANOVA (objects x raters, with :math:`m` repeated measurements per cell)
    gives the mean squares :math:`MS_S, MS_R, MS_{SR}, MS_E` and each rater's own error mean
    square; the reliabilities, F tests, one-sided lower confidence bounds and standard errors of
    measurement follow Eliasziw et al.'s tables 2 and 3, term by term as irr computes them.

    Parameters
    ----------
    ratings : array-like of shape (n_objects, n_raters * n_measurements)
        Columns grouped by rater: rater 1's measurements 1..m, then rater 2's, ... (irr's layout).
        Objects with a missing value are dropped.
    n_raters : int
        Number of raters (irr's ``nrater``); the number of columns must be a multiple of it.
    rho0_inter, rho0_intra : float, default 0.6 and 0.8
        Null-hypothesis values of the inter- and intrarater reliability.
    confidence_level : float, default 0.95
        Level of the one-sided lower bounds (irr's ``conf.level``).

    Returns
    -------
    InterIntraReliabilityResult

    References
    ----------
    .. [1] Eliasziw, M., Young, S. L., Woodbury, M. G. & Fryday-Field, K. (1994). Statistical
       methodology for the concurrent assessment of interrater and intrarater reliability.
       Physical Therapy 74(8), 777-788. https://doi.org/10.1093/ptj/74.8.777

    Examples
    --------
    >>> import numpy as np
    >>> from predstab import inter_intra_reliability
    >>> x = np.array([[1, 1.2, 1.5, 1.4], [2, 2.3, 2.1, 2.4], [3, 2.8, 3.3, 3.4], [4, 4.1, 4.4, 4.2]])
    >>> round(inter_intra_reliability(x, n_raters=2).inter_random, 4)
    0.9625
    """
    x = _complete_numeric(ratings, "irr::relInterIntra", min_objects=2, stacklevel=5)
    nn, cols = x.shape
    tt = int(n_raters)
    if cols % tt or cols // tt < 2:
        raise ValueError(
            f"`n_raters` must divide the {cols} columns of `ratings` into at least 2 measurements "
            f"per rater; got n_raters={n_raters}."
        )
    mm = cols // tt
    cube = x.reshape(nn, tt, mm)
    grand = float(cube.mean())
    subj, rater, cell = cube.mean(axis=(1, 2)), cube.mean(axis=(0, 2)), cube.mean(axis=2)
    resid = cube - cell[:, :, None]
    mss = tt * mm * float(np.sum((subj - grand) ** 2)) / (nn - 1)
    msr = nn * mm * float(np.sum((rater - grand) ** 2)) / (tt - 1) if tt > 1 else float("nan")
    mssr = (
        mm * float(np.sum((cell - subj[:, None] - rater[None, :] + grand) ** 2)) / ((nn - 1) * (tt - 1))
        if tt > 1
        else float("nan")
    )
    mse = float(np.sum(resid**2)) / (nn * tt * (mm - 1))
    mse_part = np.sum(resid**2, axis=(0, 2)) / (nn * (mm - 1))

    s2_s_random = (mss - mssr) / (mm * tt)
    s2_r = (msr - mssr) / (mm * nn)
    s2_sr = (mssr - mse) / mm
    s2_s_fixed = (mss - mse) / (mm * tt)
    inter_random = s2_s_random / (s2_s_random + s2_r + s2_sr + mse)
    inter_fixed = (s2_s_fixed - s2_sr / tt) / (s2_s_fixed + (tt - 1) * s2_sr / tt + mse)
    intra_random = (s2_s_random + s2_r + s2_sr) / (s2_s_random + s2_r + s2_sr + mse)
    intra_fixed = (s2_s_fixed + (tt - 1) * s2_sr / tt) / (s2_s_fixed + (tt - 1) * s2_sr / tt + mse)
    intra_random_part = (s2_s_random + s2_r + s2_sr) / (s2_s_random + s2_r + s2_sr + mse_part)
    intra_fixed_part = (s2_s_fixed + (tt - 1) * s2_sr / tt) / (s2_s_fixed + (tt - 1) * s2_sr / tt + mse_part)

    f_inter = (1 - rho0_inter) * mss / ((1 + (tt - 1) * rho0_inter) * mssr)
    p_inter = float(stats.f.sf(f_inter, nn - 1, (nn - 1) * (tt - 1)))
    alpha = 1 - confidence_level
    r1, r2 = inter_random, inter_fixed
    nu1 = (
        (nn - 1)
        * (tt - 1)
        * (tt * r1 * (msr - mssr) + nn * (1 + (tt - 1) * r1) * mssr + nn * tt * (mm - 1) * r1 * mse) ** 2
        / (
            (nn - 1) * (tt * r1) ** 2 * msr**2
            + (nn * (1 + (tt - 1) * r1) - tt * r1) ** 2 * mssr**2
            + (nn - 1) * (tt - 1) * (nn * tt * (mm - 1)) * r1**2 * mse**2
        )
    )
    nu2 = (
        (nn - 1)
        * (tt - 1)
        * (nn * (1 + (tt - 1) * r2) * mssr + nn * tt * (mm - 1) * r2 * mse) ** 2
        / (
            (nn * (1 + (tt - 1) * r2)) ** 2 * mssr**2
            + (nn - 1) * (tt - 1) * (nn * tt * (mm - 1)) * r2**2 * mse**2
        )
    )
    f1 = float(stats.f.ppf(1 - alpha, nn - 1, nu1))
    f2 = float(stats.f.ppf(1 - alpha, nn - 1, nu2))
    low_inter_random = min(
        nn
        * (mss - f1 * mssr)
        / (nn * mss + f1 * (tt * (msr - mssr) + nn * (tt - 1) * mssr + nn * tt * (mm - 1) * mse)),
        1.0,
    )
    low_inter_fixed = min(
        nn * (mss - f2 * mssr) / (nn * mss + f2 * (nn * (tt - 1) * mssr + nn * tt * (mm - 1) * mse)), 1.0
    )
    f_intra = (1 - rho0_intra) * mss / ((1 + (mm - 1) * rho0_intra) * mse * tt)
    f_intra_part = (1 - rho0_intra) * mss / ((1 + (mm - 1) * rho0_intra) * mse_part * tt)
    df_intra = (nn - 1, nn * (mm - 1))
    f3 = float(stats.f.ppf(1 - alpha, *df_intra))
    low_intra = min((mss / tt - f3 * mse) / (mss / tt + f3 * (mm - 1) * mse), 1.0)
    low_intra_part = np.minimum((mss / tt - f3 * mse_part) / (mss / tt + f3 * (mm - 1) * mse_part), 1.0)
    return InterIntraReliabilityResult(
        inter_random=float(inter_random),
        intra_random=float(intra_random),
        inter_fixed=float(inter_fixed),
        intra_fixed=float(intra_fixed),
        intra_random_per_rater=intra_random_part,
        intra_fixed_per_rater=intra_fixed_part,
        f_inter=float(f_inter),
        f_intra=float(f_intra),
        f_intra_per_rater=f_intra_part,
        pvalue_inter=p_inter,
        pvalue_intra=float(stats.f.sf(f_intra, *df_intra)),
        pvalue_intra_per_rater=stats.f.sf(f_intra_part, *df_intra),
        lower_inter_random=float(low_inter_random),
        lower_inter_fixed=float(low_inter_fixed),
        lower_intra=float(low_intra),
        lower_intra_per_rater=low_intra_part,
        sem_intra=math.sqrt(mse),
        sem_intra_per_rater=np.sqrt(mse_part),
        sem_inter_random=math.sqrt(s2_r + s2_sr + mse),
        sem_inter_fixed=math.sqrt(s2_sr + mse),
        confidence_level=float(confidence_level),
        n_objects=nn,
        n_raters=tt,
        n_measurements=mm,
    )
