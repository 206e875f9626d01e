r"""Two raters' C x C table: irr's rater bias and the Stuart-Maxwell and Bhapkar tests of
marginal homogeneity (irr 0.84.1).

Each takes the ratings of two raters (objects with a missing rating dropped, as irr's
``na.omit``) or, for ``rater_bias`` and ``stuart_maxwell``, a ready-made table of counts; the
table over the sorted categories is one ``np.bincount``.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from .._core._exceptions import PredstabUndefinedWarning, warn_outside
from .._core._results import result
from .._core._validation import validate_params
from ._common import IrrResult, two_rater_table
from ._docstrings import agreement_doc

__all__ = ["rater_bias", "RaterBiasResult", "stuart_maxwell", "StuartMaxwellResult", "bhapkar",
           "BhapkarResult", "fleiss_levin_paik", "FleissLevinPaikResult"]


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
class RaterBiasResult(IrrResult):
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


@agreement_doc
@validate_params({"table": ["boolean"]})
def rater_bias(ratings, /, *, table=False):
    r"""Systematic bias of one rater against another (two raters).

    Matches `irr::rater.bias` called on the C x C table of (rater 1, rater 2) over the sorted
    categories; see validation/.

    With :math:`b` the objects above the diagonal (rater 1's category earlier than rater 2's)
    and :math:`c` those below: ratio :math:`b / (b + c)`, :math:`\chi^2 = (b - c)^2 / (b + c)`.

    Parameters
    ----------
    %(two_rater_table)s

    Returns
    -------
    RaterBiasResult

    Warns
    -----
    PredstabUndefinedWarning
        When the raters never disagree (b + c = 0): the value is NaN (irr: NaN, silently).

    Notes
    -----
    The categories must be in a meaningful order (numbers, or text sorted as text): "before"
    is their order. irr's own ``n x 2`` path tables each rater's own categories, which is not
    square (nor aligned) when a rater never uses some category; predstab always uses both
    raters' categories.

    Examples
    --------
    >>> from predstab import rater_bias
    >>> rater_bias([[1, 2], [1, 2], [2, 1], [2, 2], [1, 3]]).value
    0.75
    """
    if table:
        counts, categories, n = _square_table(ratings)
    else:
        counts, categories, n = two_rater_table(ratings, "irr::rater.bias")
    b, c = float(np.triu(counts, 1).sum()), float(np.tril(counts, -1).sum())
    if b + c == 0:
        warn_outside("The raters never disagree: the share b / (b + c) of the disagreements in the "
                     "upper triangle is undefined and set to nan.", PredstabUndefinedWarning)
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
class StuartMaxwellResult(IrrResult):
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
        warn_outside(f"the covariance matrix of the {test} test is singular; the statistic is undefined "
                     "(NaN, where R's solve() stops with an error).", PredstabUndefinedWarning)
        return float("nan")


@agreement_doc
@validate_params({"table": ["boolean"]})
def stuart_maxwell(ratings, /, *, table=False):
    r"""Stuart-Maxwell test of marginal homogeneity for two raters.

    Matches `irr::stuart.maxwell.mh` called on the C x C table over the sorted categories; see
    validation/.

    Categories whose two marginals are equal are dropped (as irr does); with :math:`d` the
    differences of the remaining first :math:`K-1` marginals and :math:`S` their covariance
    (:math:`S_{ii} = n_{i.} + n_{.i} - 2 n_{ii}`, :math:`S_{ij} = -(n_{ij} + n_{ji})`):
    :math:`\chi^2 = d^\top S^{-1} d` on :math:`K - 1` degrees of freedom. With three categories
    this is the Fleiss-Everitt closed form of Stuart's test (contingencytables'
    ``FleissEveritt_test_paired_cxc``: T = 14.000, P = 0.000912 for Fleiss et al.'s (2003)
    Table 13.6).

    Parameters
    ----------
    %(two_rater_table)s

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
    .. [2] Fleiss, J. L. & Everitt, B. S. (1971). Comparing the marginal totals of square
       contingency tables. British Journal of Mathematical and Statistical Psychology 24,
       117-123. https://doi.org/10.1111/j.2044-8317.1971.tb00455.x

    Examples
    --------
    >>> from predstab import stuart_maxwell
    >>> round(stuart_maxwell([[1, 2], [1, 2], [2, 1], [2, 2], [1, 3], [3, 3]]).statistic, 4)
    1.3333
    """
    if table:
        counts, categories, n = _square_table(ratings)
    else:
        counts, categories, n = two_rater_table(ratings, "irr::stuart.maxwell.mh")
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
class BhapkarResult(IrrResult):
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
    table, categories, n = two_rater_table(ratings, "irr::bhapkar")
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


@result
class FleissLevinPaikResult(IrrResult):
    """Result of :func:`fleiss_levin_paik`: ``.statistic`` (:math:`\\chi^2`, also ``.value``),
    ``.df`` (1), ``.pvalue``, ``.table``."""

    value: float
    statistic: float
    df: int
    pvalue: float
    categories: tuple
    table: np.ndarray
    n_objects: int
    n_raters: int
    _value_name = "Chisq"
    _title = "Fleiss-Levin-Paik test of a shift in a three-level ordinal outcome"

    def _stat_name(self):
        return "Chisq(1)"


@agreement_doc
@validate_params({"table": ["boolean"]})
def fleiss_levin_paik(ratings, /, *, table=False):
    r"""Fleiss-Levin-Paik test: has a three-level ordinal outcome shifted between two ratings?

    For paired ratings on an ordered scale of three categories (low, middle, high; e.g. a
    model's graded prediction before and after a change), with :math:`d_i = n_{i.} - n_{.i}`
    and :math:`\bar n_{ij} = (n_{ij} + n_{ji}) / 2`:

    .. math::

        \chi^2 = \frac{(d_1 - d_3)^2}{2(\bar n_{12} + 4\bar n_{13} + \bar n_{23})}

    on 1 degree of freedom. It spends its one degree of freedom on the shift
    :math:`d_1 - d_3` that an ordered scale makes meaningful, where Stuart's test
    (:func:`stuart_maxwell`) spends two on any difference of the marginals.

    Matches contingencytables' `FleissLevinPaik_test_paired_cxc` (Fagerland, Lydersen & Laake
    2017, chapter 9).

    Parameters
    ----------
    %(two_rater_table)s

    Returns
    -------
    FleissLevinPaikResult

    Notes
    -----
    With equal marginals (every :math:`d_i = 0`, no off-diagonal case among them)
    contingencytables stops ("No differences
    between the marginal sums"); predstab returns :math:`\chi^2 = 0` and p = 1, as
    :func:`stuart_maxwell` does.

    References
    ----------
    .. [1] Fleiss, J. L., Levin, B. & Paik, M. C. (2003). *Statistical Methods for Rates and
       Proportions*, 3rd ed., section 13.2. Wiley. https://doi.org/10.1002/0471445428

    Examples
    --------
    >>> from predstab import fleiss_levin_paik
    >>> r = fleiss_levin_paik([[596, 18, 6], [0, 2, 0], [0, 0, 42]], table=True)
    >>> round(r.statistic, 3), round(r.pvalue, 6)
    (21.429, 4e-06)
    """
    if table:
        counts, categories, n = _square_table(ratings)
    else:
        counts, categories, n = two_rater_table(ratings, "contingencytables::FleissLevinPaik_test_paired_cxc")
    if counts.shape != (3, 3):
        raise ValueError(f"`ratings` must have three ordered categories for the Fleiss-Levin-Paik test; got "
                         f"{counts.shape[0]} ({list(categories)!r:.80}).")
    d = counts.sum(axis=1) - counts.sum(axis=0)
    pairs = (counts + counts.T) / 2
    denominator = 2 * (pairs[0, 1] + 4 * pairs[0, 2] + pairs[1, 2])
    # unequal marginals need an off-diagonal case, so the denominator is positive whenever d is not 0
    statistic = float((d[0] - d[2]) ** 2 / denominator) if d.any() else 0.0
    return FleissLevinPaikResult(value=statistic, statistic=statistic, df=1,
                                 pvalue=float(stats.chi2.sf(statistic, 1)),
                                 categories=tuple(categories.tolist()), table=counts, n_objects=n, n_raters=2)
