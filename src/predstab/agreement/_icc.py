"""Intraclass correlation coefficients (irr::icc and the six Shrout-Fleiss forms of psych::ICC)."""

from __future__ import annotations

import math
import warnings
from numbers import Real
from typing import NamedTuple

import numpy as np
import pandas as pd
from scipy import special

from .._core._convention import _EPS, negligible
from .._core._exceptions import PredstabDataWarning, warn_outside
from .._core._ratings import as_rating_matrix, unit_scaled
from .._core._results import Result, r_round, r_rows, r_signif, result
from .._core._stack import (
    ItemWarnings,
    as_stack,
    dask_apply,
    is_dask,
    is_stack,
    loop_items,
    one_minus_ratio_items,
    stack_apply,
    stacked_result,
)
from .._core._utils import ConfidenceInterval
from .._core._validation import Interval, Options, validate_params
from ._common import complete_matrix, convention_ratio
from ._docstrings import agreement_doc

__all__ = ["icc", "icc_table", "ICCResult"]

_MODELS = ("oneway", "twoway")
_BLOCK_VALUES = 2**15  # values per block of rows of _mean_squares (256 KB of float64)
# largest magnitudes _mean_squares(checked=True) takes as surely inside unit_scaled's safe range
# [2^-100, 2^100] (its bounds are sums of rounded values: a wide margin)
_SURE_LOW, _SURE_HIGH = 2.0**-90, 2.0**90
_QUIET = {"over": "ignore", "under": "ignore", "invalid": "ignore", "divide": "ignore"}
_TYPES = ("consistency", "agreement")
_UNITS = ("single", "average")
#: psych's six rows and the (model, type, unit) of each
TYPES = ("ICC1", "ICC2", "ICC3", "ICC1k", "ICC2k", "ICC3k")
_FORMS = (("oneway", "consistency", "single"), ("twoway", "agreement", "single"),
          ("twoway", "consistency", "single"), ("oneway", "consistency", "average"),
          ("twoway", "agreement", "average"), ("twoway", "consistency", "average"))


class _MeanSquares(NamedTuple):
    n: int  # objects
    k: int  # raters
    msr: float  # between objects (rows)
    msw: float  # within objects
    msc: float  # between raters (columns)
    mse: float  # residual of the two-way model


def _mean_squares(x, *, checked=False) -> _MeanSquares | None:
    """Two-way ANOVA mean squares of a complete (n, k) matrix, vectorised.

    Sums of squares are set to exact zeros when the data make them zero (constant
    rows, constant matrix), so that degenerate data follow the shared convention
    instead of ratios of rounding noise. Equal row (or column) means, as in a Latin
    square, leave a between sum of squares of rounding noise: it is set to zero when
    ``predstab._core._convention.negligible`` against the total sum of squares.

    ``checked``: ``x`` has not been read for missing or infinite values nor for an extreme
    magnitude; None when it may have any (a non-finite mean or sum, or a largest ``|x|`` not
    surely inside ``unit_scaled``'s safe range, bounded from the sums themselves), so that the
    caller reads it the exact way. The separate passes of those checks (two sums and the largest
    magnitude) were 40 % of icc's time on 1e6 x 100 (issue 33).
    """
    n, k = x.shape
    # centred on the first row's mean: a mean of values near 1e15 rounds to ~0.1, which the sums
    # of squares would add up (icc(x + 1e15) of integers was 0.8344 for 0.8295); x - ref is exact
    # for values within a factor 2 of ref. Two passes over blocks of rows that stay in the cache,
    # centred into one buffer: no copy of the matrix (a full-size copy and its first touch were
    # most of icc's time on 1e6 x 100, with 1.1x the input in extra memory)
    ref = float(np.mean(x[0]))
    step = min(n, max(1, _BLOCK_VALUES // k))
    # one buffer for the centred blocks of a C-ordered matrix; others (a DataFrame's values are
    # F-ordered) as numpy lays them out, since BLAS rounds by the layout
    buffer = np.empty((step, k)) if x.flags.c_contiguous else None
    by_k, by_n = np.full(k, 1.0 / k), np.full(step, 1.0 / n)
    row_mean = np.empty(n)
    col_mean = np.zeros(k)
    same = True  # every rater gives each object the same value
    with np.errstate(**_QUIET if checked else {}):
        for start in range(0, n, step):
            block = np.subtract(x[start:start + step], ref, out=_rows(buffer, n - start))
            # sums by matrix-vector products (BLAS): much faster than axis=1 reductions on short rows
            row_mean[start:start + len(block)] = block @ by_k
            col_mean += by_n[:len(block)] @ block
            same = same and bool((block == block[:, :1]).all())
        # |x| <= |ref| + max |row mean - ref| + sqrt(ss_w); NaN and inf give a NaN or inf bound
        spread = max(abs(float(row_mean.max())), abs(float(row_mean.min())))  # no temporary of n
        high = abs(ref) + spread
        if checked and not high < _SURE_HIGH:
            return None
        grand = float(row_mean.mean())
        if same:
            # no within-object variation at all
            ss_w = ss_c = ss_e = 0.0
            ss_r = 0.0 if (x[:, 0] == x[0, 0]).all() else k * float(np.sum((row_mean - grand) ** 2))
        else:
            ss_w = ss_e = 0.0
            between_raters = col_mean - grand
            for start in range(0, n, step):
                within = np.subtract(x[start:start + step], ref, out=_rows(buffer, n - start))
                within -= row_mean[start:start + len(within), None]
                ss_w += float(np.einsum("ij,ij->", within, within))
                # residual computed directly (not as a difference of sums) to keep its precision
                within -= between_raters
                ss_e += float(np.einsum("ij,ij->", within, within))
            buffer = block = within = None  # before the temporaries of n below
            ss_r = k * float(np.sum((row_mean - grand) ** 2))
            ss_c = n * float(np.sum((col_mean - grand) ** 2))
            total = ss_r + ss_w
            if negligible(ss_r, total, n * k):
                ss_r = 0.0  # equal row means: no variance between objects
            if negligible(ss_c, total, n * k):
                ss_c = 0.0  # equal column means: no variance between raters
    if checked:
        # max |x| >= |ref|, >= max |row mean - ref| / 2 and >= sqrt(ss_w / (n k))
        low = max(abs(ref), spread / 2, math.sqrt(ss_w / (n * k)))
        if not (low >= _SURE_LOW and high + math.sqrt(ss_w) < _SURE_HIGH):
            return None
    # numpy scalars, so that x / 0 follows IEEE (inf/nan) under np.errstate
    return _MeanSquares(n, k, np.float64(ss_r / (n - 1)), np.float64(ss_w / (n * (k - 1))),
                        np.float64(ss_c / (k - 1)), np.float64(ss_e / ((n - 1) * (k - 1))))


def _rows(buffer, rows):
    """The first ``rows`` rows of ``buffer`` (None: numpy allocates the block, as it lays it out)."""
    return None if buffer is None else buffer[:rows]


def _read_mean_squares(ratings, function) -> _MeanSquares:
    """:func:`_mean_squares` of the complete objects of ``ratings``, rescaled when extreme (the
    ICCs are scale invariant): a numeric matrix in one go, anything else (or a matrix with a
    missing, infinite or extreme value) read and checked first."""
    arr = as_rating_matrix(ratings)
    if arr.dtype.kind in "biuf" and arr.shape[0] >= 2:
        # integers are finite and inside the safe range: no check
        ms = _mean_squares(arr.astype(float, copy=False), checked=arr.dtype.kind == "f")
        if ms is not None:
            return ms
    return _mean_squares(unit_scaled(complete_matrix(arr, function))[0])


@result
class ICCResult(Result):
    """Result of :func:`icc`.

    ``print(res)`` shows irr's ``print.icclist`` layout; ``res.to_frame()`` is one row with
    ``ci_low`` / ``ci_high``.

    Attributes
    ----------
    value : float
        The intraclass correlation coefficient.
    statistic : float
        F statistic of the test of ``H0: ICC = r0``.
    df1, df2 : float
        Numerator and denominator degrees of freedom of the F test (``df2`` is
        fractional for the two-way agreement forms).
    pvalue : float
        One-sided p-value ``P(F > statistic)``.
    confidence_interval : ConfidenceInterval
        ``(low, high)`` at ``confidence_level``.
    n_objects, n_raters : int
        Size of the matrix used (after dropping objects with a missing value).
    name : str
        irr's name of the form, e.g. ``"ICC(A,1)"``.
    model, type, unit : str
        The options that selected the form.
    r0, confidence_level : float
        Null value and confidence level used.
    """

    value: float
    statistic: float
    df1: float
    df2: float
    pvalue: float
    confidence_interval: ConfidenceInterval
    n_objects: int
    n_raters: int
    name: str
    model: str
    type: str
    unit: str
    r0: float
    confidence_level: float

    _frame_fields = ("name", "value", "statistic", "df1", "df2", "pvalue", "n_objects", "n_raters",
                     "model", "type", "unit", "r0", "confidence_level")

    def _str_lines(self):
        # irr 0.84.1 print.icclist: names right-aligned to 11 characters, format(x, digits = 3)
        # for the coefficient and the F test, round(x, 3) for the interval
        f_name = f"F({r_signif(self.df1, 7)},{r_signif(self.df2, 3)})"
        r0 = r_signif(self.r0, 7)
        return [
            f" {self.unit.capitalize()} Score Intraclass Correlation", "",
            f"   Model: {self.model}", f"   Type : {self.type}", "",
            *r_rows([("Subjects", self.n_objects), ("Raters", self.n_raters),
                     (self.name, r_signif(self.value, 3))], width=11), "",
            f" F-Test, H0: r0 = {r0} ; H1: r0 > {r0}",
            f"{f_name:>11} = {r_signif(self.statistic, 3)} , p = {r_signif(self.pvalue, 3)}", "",
            f" {r_round(self.confidence_level * 100, 1)}%-Confidence Interval for ICC Population Values:",
            f"  {r_round(self.confidence_interval.low)} < ICC < {r_round(self.confidence_interval.high)}",
        ]


def _ratio_bound(f_bound, k):
    """``(F - 1) / (F + k - 1)`` with its limit 1 for an infinite F (no within variance)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return 1.0 if np.isinf(f_bound) else (f_bound - 1) / (f_bound + (k - 1))


def _average_bound(f_bound):
    with np.errstate(divide="ignore"):
        return 1.0 - 1.0 / f_bound


def _form(ms: _MeanSquares, model, type, unit, r0, confidence_level):
    """Value, F test and confidence bounds of one irr::icc form (McGraw & Wong, 1996).

    When the raters agree perfectly on objects that differ (no within-object
    variance), the ICC is 1, F is infinite, p is 0 and the interval is (1, 1).
    """
    name, value, statistic, df1, df2, pvalue, ci = _form_raw(ms, model, type, unit, r0, confidence_level)
    perfect = ms.msr > 0 and (ms.msw == 0 if model == "oneway" else ms.mse == 0 and (
        type == "consistency" or ms.msc == 0))
    if perfect:
        statistic, pvalue, ci = np.inf, 0.0, ConfidenceInterval(1.0, 1.0)
    if value > 1:
        warn_outside(_above_one(name, f"{value:.4g}"), PredstabDataWarning)
    return name, value, statistic, df1, df2, pvalue, ci


def _above_one(name, value):
    """The warning of an ICC(A,k) above 1 (irr's value, kept): D_e = MS_R + (MS_C - MS_E) / n < 0."""
    return (f"{name} = {value} is outside [-1, 1]: the raters disagree more than the objects differ "
            "(MS_R + (MS_C - MS_E) / n < 0); the value is irr's formula's, not a correlation.")


def _agreement_parts(msr, msc, mse, n, k, single):
    """irr's ICC(A,1) / ICC(A,k) as ``1 - d_o / d_e`` of the mean squares, with the scale of its
    F test's ``a = scale r0 / (n (1 - r0))``. Scalars, or arrays of the items of a stack."""
    scale = k if single else 1
    between_raters = (msc - mse) / n * scale
    if single:
        d_o, d_e, size = k * mse + between_raters, msr + (k - 1) * mse + between_raters, msr + (k - 1) * mse
    else:
        d_o, d_e, size = mse + between_raters, msr + between_raters, msr
    # D_e is a difference of mean squares: a zero of exact arithmetic (MS_R = (MS_E - MS_C) / n)
    # comes out as rounding noise (4e-16 for [[5, 2], [2, 4], [4, 1]], whose ICC(A,k) was 4.7e15)
    # and is set to an exact zero, so that the convention applies (NaN, or 1 when D_o = 0 too)
    size = size + (msc + mse) / n * scale
    d_e = np.where(np.abs(d_e) <= 8 * _EPS * size, 0.0, d_e)
    return scale, d_o, d_e if d_e.ndim else np.float64(d_e)


def _agreement_bounds(value, msr, msc, mse, n, k, alpha, single):
    """Satterthwaite df (McGraw & Wong 1996) and the bounds of ICC(A,1) / ICC(A,k), as irr
    computes them: the coefficient itself is plugged in with k, for the single and the average
    form alike. Scalars, or arrays of the items of a stack."""
    a = k * value / (n * (1 - value))
    b = 1 + k * value * (n - 1) / (n * (1 - value))
    df2 = (a * msc + b * mse) ** 2 / ((a * msc) ** 2 / (k - 1) + (b * mse) ** 2 / ((n - 1) * (k - 1)))
    f_low = special.fdtri(n - 1, df2, 1 - alpha / 2)
    f_up = special.fdtri(df2, n - 1, 1 - alpha / 2)
    if single:
        spread = k * msc + (k * n - k - n) * mse
        low = n * (msr - f_low * mse) / (f_low * spread + n * msr)
        high = n * (f_up * msr - mse) / (spread + n * f_up * msr)
    else:
        low = n * (msr - f_low * mse) / (f_low * (msc - mse) + n * msr)
        high = n * (f_up * msr - mse) / (msc - mse + n * f_up * msr)
    return df2, low, high


def _form_raw(ms: _MeanSquares, model, type, unit, r0, confidence_level):
    n, k, msr, msw, msc, mse = ms
    alpha = 1 - confidence_level
    single = unit == "single"
    if model == "oneway":
        name = "ICC(1)" if single else f"ICC({k})"
        # ICC = 1 - d_o / d_e
        d_o, d_e = (k * msw, msr + (k - 1) * msw) if single else (msw, msr)
        value = convention_ratio(d_o, d_e, name="ICC", what="variance")
        with np.errstate(divide="ignore", invalid="ignore"):
            f_ratio = msr / msw
        statistic = f_ratio * ((1 - r0) / (1 + (k - 1) * r0) if single else (1 - r0))
        df1, df2 = n - 1, n * (k - 1)
    elif model == "twoway":
        with np.errstate(divide="ignore", invalid="ignore"):
            f_ratio = msr / mse
        df1 = n - 1
        if type == "consistency":
            name = f"ICC(C,{1 if single else k})"
            d_o, d_e = (k * mse, msr + (k - 1) * mse) if single else (mse, msr)
            value = convention_ratio(d_o, d_e, name="ICC", what="variance")
            statistic = f_ratio * ((1 - r0) / (1 + (k - 1) * r0) if single else (1 - r0))
            df2 = (n - 1) * (k - 1)
        elif type == "agreement":
            name = f"ICC(A,{1 if single else k})"
            # irr: single a = k r0 / (n (1 - r0)); average a = r0 / (n (1 - r0))
            scale, d_o, d_e = _agreement_parts(msr, msc, mse, n, k, single)
            value = convention_ratio(d_o, d_e, name="ICC", what="variance")
            a = scale * r0 / (n * (1 - r0))
            b = 1 + scale * r0 * (n - 1) / (n * (1 - r0))
            with np.errstate(divide="ignore", invalid="ignore"):
                statistic = msr / (a * msc + b * mse)
                df2, low, high = _agreement_bounds(np.float64(value), msr, msc, mse, n, k, alpha, single)
            pvalue = float(special.fdtrc(df1, df2, statistic))
            return (name, value, float(statistic), float(df1), float(df2), pvalue,
                    ConfidenceInterval(float(low), float(high)))
        else:
            raise ValueError(f"`type` must be 'consistency' or 'agreement'; got {type!r}.")
    else:
        raise ValueError(f"`model` must be 'oneway' or 'twoway'; got {model!r}.")
    pvalue = float(special.fdtrc(df1, df2, statistic))
    f_low = f_ratio / special.fdtri(df1, df2, 1 - alpha / 2)
    f_up = f_ratio * special.fdtri(df2, df1, 1 - alpha / 2)
    if single:
        low, high = _ratio_bound(f_low, k), _ratio_bound(f_up, k)
    else:
        low, high = _average_bound(f_low), _average_bound(f_up)
    return (name, value, float(statistic), float(df1), float(df2), pvalue,
            ConfidenceInterval(float(low), float(high)))


_CONFIDENCE_LEVEL = Interval(Real, 0, 1, closed="neither")


@agreement_doc
@validate_params({"ratings": ["array-like"], "model": [Options(_MODELS)], "type": [Options(_TYPES)],
                  "unit": [Options(_UNITS)], "r0": [Interval(Real, 0, 1, closed="left")],
                  "confidence_level": [_CONFIDENCE_LEVEL]})
def icc(ratings, /, *, model="oneway", type="consistency", unit="single", r0=0.0, confidence_level=0.95):
    r"""Intraclass correlation coefficient of an (objects x raters) matrix.

    Matches `irr::icc`; see validation/.

    With the two-way ANOVA mean squares of the :math:`n \times k` matrix (between
    objects :math:`MS_R`, within objects :math:`MS_W`, between raters :math:`MS_C`,
    residual :math:`MS_E`):

    .. math::

        \text{oneway: } ICC(1) = \frac{MS_R - MS_W}{MS_R + (k-1) MS_W},\qquad
        ICC(k) = \frac{MS_R - MS_W}{MS_R}

        \text{consistency: } ICC(C,1) = \frac{MS_R - MS_E}{MS_R + (k-1) MS_E}

        \text{agreement: } ICC(A,1) = \frac{MS_R - MS_E}{MS_R + (k-1) MS_E + \frac{k}{n}(MS_C - MS_E)}

    and the average-measure forms (McGraw & Wong, 1996). The F test, its degrees of
    freedom (Satterthwaite's for agreement) and the confidence interval are irr's.

    Parameters
    ----------
    ratings : array-like of shape (n_objects, n_raters)
        Numeric ratings, objects in rows and raters (replicates) in columns. Objects
        with a missing value (None, NaN, pd.NA) are dropped, as irr does.
        %(stack)s
    model : {"oneway", "twoway"}, default "oneway"
        One-way model (raters differ per object) or two-way model.
    type : {"consistency", "agreement"}, default "consistency"
        Two-way only (ignored for ``model="oneway"``, as in irr).
    unit : {"single", "average"}, default "single"
        Reliability of one rater or of the mean of the ``n_raters`` raters.
    r0 : float, default 0
        Value of the ICC under the null hypothesis, in [0, 1).
    confidence_level : float, default 0.95
        Confidence level of the interval.

    Returns
    -------
    ICCResult
        ``.value``, ``.statistic`` (F), ``.df1``, ``.df2``, ``.pvalue``,
        ``.confidence_interval`` (``.low``, ``.high``), ``.n_objects``, ``.n_raters``.

    Warns
    -----
    PredstabDataWarning
        When objects with a missing value are dropped (says how many).
    PredstabDegenerateWarning
        When the matrix is constant: the ICC is set to 1.
    PredstabUndefinedWarning
        When the denominator is zero but the numerator is not: NaN.

    References
    ----------
    .. [1] Shrout, P. E. & Fleiss, J. L. (1979). Intraclass correlations: uses in
       assessing rater reliability. Psychological Bulletin 86(2), 420-428.
       https://doi.org/10.1037/0033-2909.86.2.420
    .. [2] McGraw, K. O. & Wong, S. P. (1996). Forming inferences about some
       intraclass correlation coefficients. Psychological Methods 1(1), 30-46.
       https://doi.org/10.1037/1082-989X.1.1.30

    Examples
    --------
    >>> import numpy as np
    >>> from predstab import icc
    >>> ratings = np.array([[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8],
    ...                     [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]])
    >>> res = icc(ratings, model="twoway", type="agreement")
    >>> round(res.value, 4), res.name
    (0.2898, 'ICC(A,1)')
    >>> res.confidence_interval.low < res.value < res.confidence_interval.high
    True
    """
    if is_stack(ratings):  # (..., n_objects, n_raters): vectorised over the items
        return _icc_stack(ratings, model, type, unit, float(r0), float(confidence_level))
    # the options are checked by the declarations of icc()
    ms = _read_mean_squares(ratings, "irr::icc")
    r0, confidence_level = float(r0), float(confidence_level)
    name, value, statistic, df1, df2, pvalue, ci = _form(ms, model, type, unit, r0, confidence_level)
    return ICCResult(value=value, statistic=statistic, df1=df1, df2=df2, pvalue=pvalue,
                     confidence_interval=ci, n_objects=ms.n, n_raters=ms.k, name=name, model=model,
                     type=type if model == "twoway" else "consistency", unit=unit, r0=r0,
                     confidence_level=confidence_level)


@agreement_doc
@validate_params({"ratings": ["array-like"], "confidence_level": [_CONFIDENCE_LEVEL]})
def icc_table(ratings, /, *, confidence_level=0.95):
    r"""The six Shrout-Fleiss intraclass correlations, as ``psych::ICC`` reports them.

    Matches `psych::ICC` (``lmer = FALSE``, on complete objects); see validation/.

    Rows ICC1, ICC2, ICC3 are single-rater reliabilities of the one-way model, the
    two-way random model (absolute agreement) and the two-way mixed model
    (consistency); ICC1k, ICC2k, ICC3k are the same for the mean of the
    :math:`k` raters:

    .. math::

        ICC1 = \frac{MS_R - MS_W}{MS_R + (k-1) MS_W},\quad
        ICC2 = \frac{MS_R - MS_E}{MS_R + (k-1) MS_E + \frac{k}{n}(MS_C - MS_E)},\quad
        ICC3 = \frac{MS_R - MS_E}{MS_R + (k-1) MS_E}

    The values equal :func:`icc`'s, but psych's F test for ICC2/ICC2k uses
    :math:`MS_R/MS_E` with :math:`(n-1)(k-1)` df and its ICC2k interval is the
    Spearman-Brown step-up of the ICC2 interval, where irr uses Satterthwaite's df.

    Parameters
    ----------
    ratings : array-like of shape (n_objects, n_raters)
        Numeric ratings; objects with a missing value are dropped (with a warning).
        %(stack)s
    confidence_level : float, default 0.95
        Confidence level of the intervals.

    Returns
    -------
    pandas.DataFrame
        Indexed ``ICC1, ICC2, ICC3, ICC1k, ICC2k, ICC3k`` with columns
        ``ICC, F, df1, df2, p, ci_low, ci_high`` (psych's ``lower bound``, ``upper bound``).

    Warns
    -----
    PredstabDataWarning
        When objects with a missing value are dropped.
    PredstabDegenerateWarning, PredstabUndefinedWarning
        For degenerate matrices, as in :func:`icc`.

    References
    ----------
    .. [1] Shrout, P. E. & Fleiss, J. L. (1979). Intraclass correlations: uses in
       assessing rater reliability. Psychological Bulletin 86(2), 420-428.
       https://doi.org/10.1037/0033-2909.86.2.420

    Examples
    --------
    >>> import numpy as np
    >>> from predstab import icc_table
    >>> ratings = np.array([[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8],
    ...                     [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]])
    >>> icc_table(ratings)["ICC"].round(2).tolist()
    [0.17, 0.29, 0.71, 0.44, 0.62, 0.91]
    """
    if is_stack(ratings):  # one frame indexed by (item, form)
        return stack_apply(icc_table, ratings, confidence_level=confidence_level)
    table = _psych_table(_read_mean_squares(ratings, "psych::ICC on na.omit(x)"), float(confidence_level))
    return pd.DataFrame(table, index=list(TYPES),
                        columns=["ICC", "F", "df1", "df2", "p", "ci_low", "ci_high"])


def _psych_table(ms: _MeanSquares, confidence_level):
    """psych's six rows (value, F, df1, df2, p, low, high) from its mean squares.

    The one implementation of psych's table, for :func:`icc_table` (complete data) and
    ``icc_reml`` (mean squares from REML components). The forms, F tests and the ICC1/ICC3
    intervals are :func:`_form`'s; psych tests ICC2/ICC2k with the consistency F and bounds
    ICC2 with McGraw & Wong's Satterthwaite df written in ``F_j = MSJ / MSE`` (psych's code),
    ICC2k by the Spearman-Brown step-up of those bounds (-inf at a bound of -1/(k-1), as in
    psych). Each distinct warning of the forms is issued once, from any form that is degenerate
    or undefined -- not only from ICC1, which may be fine when ICC1k is NaN.
    """
    n, k, msr, _, msc, mse = ms
    alpha = 1 - confidence_level
    rows = {}
    caught = []
    for label, (model, type, unit) in zip(TYPES, _FORMS, strict=True):
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            _, value, f, df1, df2, p, ci = _form(ms, model, type, unit, 0.0, confidence_level)
        caught += [(w.category, str(w.message)) for w in record]
        rows[label] = [value, f, df1, df2, p, ci.low, ci.high]
    for category, message in dict.fromkeys(caught):
        warn_outside(message, category)
    for label in ("ICC2", "ICC2k"):
        rows[label][1:5] = rows["ICC3"][1:5]
    icc2 = rows["ICC2"][0]
    with np.errstate(divide="ignore", invalid="ignore"):
        f_j = np.float64(msc) / mse
        v_num = (k - 1) * (n - 1) * (k * icc2 * f_j + n * (1 + (k - 1) * icc2) - k * icc2) ** 2
        v_den = (n - 1) * k**2 * icc2**2 * f_j**2 + (n * (1 + (k - 1) * icc2) - k * icc2) ** 2
        v = v_num / v_den
        f_up = special.fdtri(n - 1, v, 1 - alpha / 2)
        f_low = special.fdtri(v, n - 1, 1 - alpha / 2)
        spread = k * msc + (k * n - k - n) * mse
        low = n * (msr - f_up * mse) / (f_up * spread + n * msr)
        high = n * (f_low * msr - mse) / (spread + n * f_low * msr)
        if msr > 0 and mse == 0 and msc == 0:
            low = high = 1.0
        rows["ICC2"][5:] = [float(low), float(high)]
        rows["ICC2k"][5:] = [float(np.float64(b) * k / (1 + np.float64(b) * (k - 1))) for b in (low, high)]
    return np.array([rows[t] for t in TYPES], dtype=float)



# --------------------------------------------------------------------------- stacks of matrices
# cells of the stack per block of items in _mean_squares_stack (1 MB of float64, at least two
# items): a block and its centred copy stay near the core (on 1e4 items of 100 x 100, blocks of
# 8 MB took 1.2x the CPU time, of 256 KB 1.1x: numpy's calls per block)
_STACK_BLOCK_CELLS = 1 << 17


class _StackSums(NamedTuple):
    """The first pass over a stack: per item, the centre (its first row's mean), the row and
    column means of the centred item and the sum of squares of the values as they are."""

    first: np.ndarray
    row_mean: np.ndarray
    col_mean: np.ndarray
    sum_sq: np.ndarray


def _stack_blocks(m, n, k):
    """Slices of the items a block at a time: at least two items a block (einsum sums a lone row in
    another order than the rows of a matrix), and no last block of one item."""
    step = max(2, _STACK_BLOCK_CELLS // max(n * k, 1))
    edges = [*range(0, m, step), m]
    if len(edges) > 2 and edges[-1] - edges[-2] == 1:
        del edges[-2]  # the last item joins the block before
    return [slice(start, stop) for start, stop in zip(edges[:-1], edges[1:], strict=True)]


def _stack_buffer(x, blocks):
    """One buffer for the centred blocks of a C-ordered stack (None for others, as in _mean_squares)."""
    if not x.flags.c_contiguous:
        return None
    return np.empty((max((b.stop - b.start for b in blocks), default=0), *x.shape[1:]))


def _stack_sums(x) -> _StackSums:
    """The first pass of :func:`_mean_squares_stack` over the (m, n, k) stack ``x``, with the sums
    of squares the per-item test of :func:`_icc_stack` reads (one pass over the data for both)."""
    m, n, k = x.shape
    blocks = _stack_blocks(m, n, k)
    buffer = _stack_buffer(x, blocks)
    by_k, by_n = np.full(k, 1.0 / k), np.full(n, 1.0 / n)
    # centred on each item's first row mean, as in _mean_squares
    first = x[:, 0, :] @ by_k
    # sums by matrix products (BLAS), as in _mean_squares: much faster than axis reductions
    row_mean, col_mean, sum_sq = np.empty((m, n)), np.empty((m, k)), np.empty(m)
    with np.errstate(**_QUIET):  # items with missing, infinite or extreme values go one by one
        for b in blocks:
            values = x[b].reshape(-1, n * k)  # row-wise dot products of 2-D arrays: einsum's fast path
            sum_sq[b] = np.einsum("ij,ij->i", values, values)
            centred = np.subtract(x[b], first[b, None, None], out=_rows(buffer, b.stop - b.start))
            row_mean[b] = centred @ by_k
            col_mean[b] = by_n @ centred
    return _StackSums(first, row_mean, col_mean, sum_sq)


def _mean_squares_stack(x, sums=None):
    """:func:`_mean_squares` of every complete (n, k) item of the (m, n, k) stack ``x`` at once
    (``sums``: its :func:`_stack_sums`, computed when None).

    The centred items (the copy the residuals need) are made a block of items at a time, twice:
    for the row and column means, then, with the grand means known, for the residuals (a centred
    copy of the whole stack was 1x its size, issue 33). The products over all items at once (the
    first rows' and the grand means) stay whole, so every number is the one of the whole stack:
    BLAS's matrix-vector products of a 2-D array round by the row's place in it.
    """
    m, n, k = x.shape
    first, row_mean, col_mean, sum_sq = _stack_sums(x) if sums is None else sums
    blocks = _stack_blocks(m, n, k)
    buffer = _stack_buffer(x, blocks)
    grand = row_mean @ np.full(n, 1.0 / n)
    dev_r = row_mean - grand[:, None]
    ss_r = k * np.einsum("ij,ij->i", dev_r, dev_r)
    dev_c = col_mean - grand[:, None]
    ss_c = n * np.einsum("ij,ij->i", dev_c, dev_c)
    ss_w, ss_e = np.empty(m), np.empty(m)
    for b in blocks:
        within = np.subtract(x[b], first[b, None, None], out=_rows(buffer, b.stop - b.start))
        within -= row_mean[b][:, :, None]
        flat = within.reshape(-1, n * k)  # a view: it follows the residuals below
        ss_w[b] = np.einsum("ij,ij->i", flat, flat)
        within -= dev_c[b][:, None, :]  # residual computed directly, as in _mean_squares
        ss_e[b] = np.einsum("ij,ij->i", flat, flat)
    total = ss_r + ss_w
    raw_r = ss_r
    ss_r = np.where(ss_r <= n * k * _EPS * total, 0.0, ss_r)
    ss_c = np.where(ss_c <= n * k * _EPS * total, 0.0, ss_c)
    # every rater gives each object the same value: no within-object variation at all. Such an
    # item has a within sum of squares of rounding only (a row mean of k equal values is exact
    # to k ulps), so the exact test runs on those below that bound
    bound = 4 * (k + 1) ** 2 * _EPS**2 * sum_sq
    same = np.zeros(m, dtype=bool)
    constant = np.zeros(m, dtype=bool)
    candidates = np.flatnonzero(ss_w <= bound)
    if candidates.size:
        sub = x[candidates]
        same[candidates] = (sub == sub[:, :, :1]).all(axis=(1, 2))
        constant[candidates] = same[candidates] & (sub[:, :, 0] == sub[:, :1, 0]).all(axis=1)
    ss_w, ss_c, ss_e = (np.where(same, 0.0, s) for s in (ss_w, ss_c, ss_e))
    ss_r = np.where(same, raw_r, ss_r)  # as _mean_squares: no negligible test for these
    ss_r = np.where(constant, 0.0, ss_r)
    return (ss_r / (n - 1), ss_w / (n * (k - 1)), ss_c / (k - 1), ss_e / ((n - 1) * (k - 1)))


def _form_stack(ms: _MeanSquares, model, type, unit, r0, confidence_level, caught):
    """:func:`_form` of every item at once (``ms``: arrays of mean squares of complete items)."""
    n, k, msr, msw, msc, mse = ms
    alpha = 1 - confidence_level
    single = unit == "single"
    with np.errstate(divide="ignore", invalid="ignore"):
        if model == "oneway":
            name = "ICC(1)" if single else f"ICC({k})"
            d_o, d_e = (k * msw, msr + (k - 1) * msw) if single else (msw, msr)
            f_ratio = msr / msw
            statistic = f_ratio * ((1 - r0) / (1 + (k - 1) * r0) if single else (1 - r0))
            df1, df2 = n - 1, n * (k - 1)
            perfect = (msr > 0) & (msw == 0)
        else:
            f_ratio = msr / mse
            df1 = n - 1
            perfect = (msr > 0) & (mse == 0)
            if type == "consistency":
                name = f"ICC(C,{1 if single else k})"
                d_o, d_e = (k * mse, msr + (k - 1) * mse) if single else (mse, msr)
                statistic = f_ratio * ((1 - r0) / (1 + (k - 1) * r0) if single else (1 - r0))
                df2 = (n - 1) * (k - 1)
            else:
                name = f"ICC(A,{1 if single else k})"
                perfect &= msc == 0
                scale, d_o, d_e = _agreement_parts(msr, msc, mse, n, k, single)
        value = one_minus_ratio_items(d_o, d_e, caught, name="ICC", what="variance")
        if model == "twoway" and type == "agreement":
            a = scale * r0 / (n * (1 - r0))
            b = 1 + scale * r0 * (n - 1) / (n * (1 - r0))
            statistic = msr / (a * msc + b * mse)
            df2, low, high = _agreement_bounds(value, msr, msc, mse, n, k, alpha, single)
        else:
            f_low = f_ratio / special.fdtri(df1, df2, 1 - alpha / 2)
            f_up = f_ratio * special.fdtri(df2, df1, 1 - alpha / 2)
            if single:
                low, high = (np.where(np.isinf(f), 1.0, (f - 1) / (f + (k - 1))) for f in (f_low, f_up))
            else:
                low, high = 1.0 - 1.0 / f_low, 1.0 - 1.0 / f_up
        pvalue = special.fdtrc(df1, df2, statistic)
    shape = value.shape
    caught.add(PredstabDataWarning, _above_one(name, "a value above 1"), int(np.count_nonzero(value > 1)))
    statistic = np.where(perfect, np.inf, statistic)
    pvalue = np.where(perfect, 0.0, pvalue)
    low, high = np.where(perfect, 1.0, low), np.where(perfect, 1.0, high)
    df1, df2 = np.broadcast_to(float(df1), shape), np.broadcast_to(df2, shape).astype(float)
    return name, value, statistic, df1, df2, pvalue, low, high


def _icc_stack(ratings, model, type, unit, r0, confidence_level):
    """:func:`icc` of every item of a stack (..., n, k); complete items vectorised.

    Items with a missing cell, a non-finite value or data of extreme magnitude go through
    :func:`icc` one by one (irr's listwise rule per item), as do stacks that are not numeric.
    """
    if is_dask(ratings):
        return dask_apply(lambda block: _icc_stack(block, model, type, unit, r0, confidence_level),
                          ratings)
    arr = as_stack(ratings, "ratings")
    kwargs = dict(model=model, type=type, unit=unit, r0=r0, confidence_level=confidence_level)
    n, k = arr.shape[-2:]
    if arr.dtype.kind not in "biuf" or n < 2 or k < 2:
        return stack_apply(icc, arr, **kwargs)
    shape = arr.shape[:-2]
    x = arr.reshape((math.prod(arr.shape[:-2]), n, k)).astype(float, copy=False)
    m = x.shape[0]
    # the per-item path: missing or infinite cells, or magnitudes unit_scaled would rescale.
    # From the sum of squares s (in the first pass): max|x| <= sqrt(s) and max|x| >= sqrt(s / (n k)),
    # so an item is surely in unit_scaled's safe range [2^-100, 2^100] when 2^-200 n k <= s < 2^198;
    # NaN, inf and overflow give a non-finite s, an underflow s = 0 (checked exactly).
    sums = _stack_sums(x)
    sum_sq = sums.sum_sq
    slow = ~((sum_sq >= np.ldexp(n * k, -200)) & (sum_sq < np.ldexp(1.0, 198)))
    if slow.any():
        flat = x.reshape(m, n * k)
        zero = np.flatnonzero(sum_sq == 0)
        slow[zero[(flat[zero] == 0).all(axis=1)]] = False  # all zeros: no rescaling either
    caught = ItemWarnings()
    fast = ~slow
    if slow.any():  # the numbers of the other items as a stack of their own (BLAS rounds by place)
        msr, msw, msc, mse = _mean_squares_stack(x[fast])
    else:
        msr, msw, msc, mse = _mean_squares_stack(x, sums)
    name, *columns = _form_stack(_MeanSquares(n, k, msr, msw, msc, mse), model, type, unit, r0,
                                 confidence_level, caught)
    out = [np.empty(m) for _ in columns]
    for o, c in zip(out, columns, strict=True):
        o[fast] = c
    n_objects = np.full(m, n)
    if slow.any():
        where = np.flatnonzero(slow)
        results, one_by_one = loop_items(icc, x[where], kwargs, name="ratings", shape=shape, indices=where)
        caught.merge(one_by_one)
        for i, res in zip(where, results, strict=True):
            for o, v in zip(out, (res.value, res.statistic, res.df1, res.df2, res.pvalue,
                                  *res.confidence_interval), strict=True):
                o[i] = v
            n_objects[i] = res.n_objects
    caught.emit(m)
    value, statistic, df1, df2, pvalue, low, high = (o.reshape(shape) for o in out)
    return stacked_result(ICCResult, dict(
        value=value, statistic=statistic, df1=df1, df2=df2, pvalue=pvalue,
        confidence_interval=ConfidenceInterval(low, high), n_objects=n_objects.reshape(shape),
        n_raters=np.full(shape, k), name=name, model=model, type=type if model == "twoway" else "consistency",
        unit=unit, r0=r0, confidence_level=confidence_level), shape)
