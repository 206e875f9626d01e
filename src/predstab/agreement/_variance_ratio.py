r"""Agreement as a ratio of variances (irr 0.84.1): Finn's coefficient, Robinson's A and Janson
& Olsson's iota, from the sums of squares of the (objects x raters) matrix.

Every function takes objects in rows and raters in columns and drops objects with a missing
rating, as irr does (``na.omit``). The sums of squares are those of ``_icc``'s two-way ANOVA
(:func:`~predstab.agreement._icc._mean_squares`), one pass over the data.
"""

from __future__ import annotations

import math
from numbers import Integral

import numpy as np
from scipy import stats

from .._core._exceptions import PredstabDataWarning, warn_outside
from .._core._ratings import as_numeric_matrix, as_rating_matrix, factorize_ratings, unit_scaled
from .._core._results import result
from .._core._validation import Interval, Options, validate_params
from ._common import IrrResult, complete_numeric, convention_ratio
from ._docstrings import agreement_doc
from ._icc import _mean_squares

__all__ = ["finn", "FinnResult", "robinson_a", "RobinsonAResult", "iota", "IotaResult"]


# --------------------------------------------------------------------------- Finn
@result
class FinnResult(IrrResult):
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
    n_categories : int
        Number of categories of the rating scale (irr's ``s.levels``).
    n_objects, n_raters : int
    """

    value: float
    statistic: float
    df1: float
    df2: float
    pvalue: float
    model: str
    n_categories: int
    n_objects: int
    n_raters: int
    _value_name = "Finn"
    _renamed_attributes = {"n_levels": "n_categories"}

    def _method(self):
        return f"Finn-Coefficient (Model={self.model})"

    def _stat_name(self):
        return f"F(Inf,{self.df2:g})"


@agreement_doc
@validate_params({"n_categories": [Interval(Integral, 2, None)], "model": [Options(("oneway", "twoway"))]},
                 renamed={"n_levels": "n_categories"})
def finn(ratings, /, *, n_categories, model="oneway"):
    r"""Finn's coefficient: observed variance against the variance of random ratings.

    Matches `irr::finn`; see validation/.

    With :math:`s` categories (scale levels) the variance of uniformly random ratings is
    :math:`\sigma^2_e = (s^2 - 1)/12`; Finn's coefficient is :math:`1 - MS/\sigma^2_e` with
    :math:`MS` the within-object mean square (``"oneway"``) or the residual mean square of the
    two-way model (``"twoway"``), tested with :math:`F = \sigma^2_e / MS` on
    (:math:`\infty`, :math:`n(m-1)`) degrees of freedom.

    Parameters
    ----------
    %(irr_numbers)s
    n_categories : int
        Number of categories (levels) of the rating scale (irr's ``s.levels``).
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
    >>> round(finn([[1, 2], [3, 3], [5, 4], [2, 2]], n_categories=5).value, 4)
    0.875
    """
    # Finn compares the raters' variance with that of n_categories levels: not scale invariant, so
    # the mean squares of the exactly rescaled data are scaled back (inf past the float range)
    raw = complete_numeric(ratings, "irr::finn")
    with np.errstate(over="ignore"):
        span = float(raw.max() - raw.min()) if raw.size else 0.0
    if span > n_categories - 1:  # ratings off the scale: Finn's reference variance is not theirs
        warn_outside(f"`ratings` span {float(raw.min()):.4g} to {float(raw.max()):.4g}, more than the "
                     f"{n_categories} levels of `n_categories` (a range of {n_categories - 1}): Finn's "
                     "coefficient "
                     "compares their variance with that of random ratings on those levels and means nothing "
                     "off them. Give `n_categories` the number of levels of the rating scale (for numbers "
                     "that are no scale levels use icc())", PredstabDataWarning)
    x, scale = unit_scaled(raw)
    ms = _mean_squares(x)
    n, m = x.shape
    expected = (n_categories**2 - 1) / 12
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
        n_categories=int(n_categories),
        n_objects=n,
        n_raters=m,
    )


# --------------------------------------------------------------------------- Robinson's A
@result
class RobinsonAResult(IrrResult):
    """Result of :func:`robinson_a`: ``.value`` (Robinson's A), ``.n_objects``, ``.n_raters``."""

    value: float
    n_objects: int
    n_raters: int
    _value_name = "A"
    _title = "Robinson's A"


@agreement_doc
@validate_params({})
def robinson_a(ratings, /):
    r"""Robinson's A: between-object sum of squares over between-object plus residual.

    Matches `irr::robinson`; see validation/.

    .. math::

        A = \frac{SS_{\text{objects}}}{SS_{\text{objects}} + SS_{\text{residual}}}
          = 1 - \frac{SS_{\text{residual}}}{SS_{\text{objects}} + SS_{\text{residual}}}

    Parameters
    ----------
    %(irr_numbers)s

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
    x = unit_scaled(complete_numeric(ratings, "irr::robinson"))[0]  # scale invariant
    ms = _mean_squares(x)
    n, m = x.shape
    ss_b, ss_e = float(ms.msr * (n - 1)), float(ms.mse * (n - 1) * (m - 1))
    value = convention_ratio(ss_e, ss_b + ss_e, name="Robinson's A")
    return RobinsonAResult(value=value, n_objects=n, n_raters=m)


# --------------------------------------------------------------------------- iota
@result
class IotaResult(IrrResult):
    """Result of :func:`iota`: ``.value`` (iota), ``.scale``, ``.standardize``, ``.n_variables``."""

    value: float
    scale: str
    standardize: bool
    n_variables: int
    n_objects: int
    n_raters: int
    _value_name = "iota"
    _renamed_attributes = {"level": "scale"}

    def _method(self):
        plural = "variable" if self.n_variables == 1 else "variables"
        return f"iota for {self.scale} data ({self.n_variables} {plural})"

    def _str_lines(self):
        lines = super()._str_lines()
        if self.standardize and self.scale == "quantitative":
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


@validate_params({"scale": [Options(("quantitative", "nominal"))], "standardize": ["boolean"]},
                 renamed={"level": "scale"})
def iota(ratings, /, *, scale="quantitative", standardize=False):
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
    scale : {"quantitative", "nominal"}, default "quantitative"
        Level of measurement (irr's ``scaledata``).
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
    if scale == "quantitative":
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
        warn_outside(f"{int((~keep).sum())} of {keep.size} objects have a missing value and were dropped.",
                     PredstabDataWarning)
    n, m = int(keep.sum()), shape[1]
    d_o = d_e = 0.0
    if scale == "quantitative":
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
    value = convention_ratio(m * d_o, d_e, name="iota")
    return IotaResult(
        value=value,
        scale=scale,
        standardize=bool(standardize),
        n_variables=len(arrays),
        n_objects=n,
        n_raters=m,
    )
