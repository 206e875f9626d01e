r"""Cronbach's alpha and its companions, as ``psych::alpha`` reports them."""

from __future__ import annotations

import dataclasses
import warnings
from numbers import Real

import numpy as np
import pandas as pd
from scipy import special

from .._core._convention import negligible
from .._core._exceptions import PredstabUndefinedWarning, warn_outside
from .._core._ratings import as_numeric_matrix, as_rating_matrix, unit_scaled
from .._core._results import Result, r_signif, result
from .._core._stack import is_stack, stack_apply
from .._core._utils import ConfidenceInterval
from .._core._validation import Interval, validate_params
from ._docstrings import agreement_doc

__all__ = ["cronbach_alpha", "CronbachAlphaResult"]

_DROP_COLUMNS = ["raw_alpha", "std.alpha", "G6(smc)", "average_r", "S/N", "alpha se", "var.r", "med.r"]
_ITEM_COLUMNS = ["n", "raw.r", "std.r", "r.cor", "r.drop", "mean", "sd"]


@result
class CronbachAlphaResult(Result):
    """Result of :func:`cronbach_alpha` (``psych::alpha``).

    Attributes
    ----------
    value : float
        Raw alpha (psych's ``raw_alpha``), from the item covariances.
    standardized : float
        Standardised alpha (``std.alpha``), from the item correlations.
    g6 : float or None
        Guttman's lambda 6 (``G6(smc)``), from the squared multiple correlations; None with
        ``detail=False``.
    average_r : float
        Mean inter-item correlation (``average_r``).
    median_r : float or None
        Median inter-item correlation (``median_r``); None with ``detail=False``.
    signal_noise : float
        Signal/noise ratio :math:`k \\bar r / (1 - \\bar r)` (``S/N``).
    standard_error : float or None
        psych's ``ase`` (Duhachek & Iacobucci's asymptotic standard error); None with
        ``detail=False``.
    mean, sd : float
        Mean and standard deviation of the per-object item means (``mean``, ``sd``).
    confidence_interval : ConfidenceInterval
        Feldt's interval for alpha (psych's ``feldt``) at ``confidence_level``.
    confidence_level : float
        Level of ``confidence_interval``.
    n_objects, n_items : int
        Objects (rows) and items (columns).
    alpha_drop : pandas.DataFrame or None
        Alpha if an item is dropped (psych's ``alpha.drop``), one row per item, columns
        ``raw_alpha``, ``std.alpha``, ``G6(smc)``, ``average_r``, ``S/N``, ``alpha se``,
        ``var.r``, ``med.r``; None with ``detail=False``.
    item_stats : pandas.DataFrame or None
        Item statistics (psych's ``item.stats``): ``n``, ``raw.r``, ``std.r``, ``r.cor``,
        ``r.drop``, ``mean``, ``sd``; None with ``detail=False``.
    """

    value: float
    standardized: float
    g6: float | None
    average_r: float
    median_r: float | None
    signal_noise: float
    standard_error: float | None
    mean: float
    sd: float
    confidence_interval: ConfidenceInterval
    confidence_level: float
    n_objects: int
    n_items: int
    alpha_drop: pd.DataFrame | None = dataclasses.field(repr=False)  # tables: not in repr / to_frame
    item_stats: pd.DataFrame | None = dataclasses.field(repr=False)

    _title = "Reliability analysis (psych::alpha)"
    # the same columns for both values of ``detail`` (None where not computed)
    _frame_fields = ("value", "standardized", "g6", "average_r", "median_r", "signal_noise", "standard_error",
                     "mean", "sd", "confidence_level", "n_objects", "n_items")

    def _str_lines(self):
        lines = [" Reliability analysis (psych::alpha)", ""]
        head = ["raw_alpha", "std.alpha", "G6(smc)", "average_r", "S/N", "ase", "mean", "sd", "median_r"]
        vals = [self.value, self.standardized, self.g6, self.average_r, self.signal_noise,
                self.standard_error, self.mean, self.sd, self.median_r]
        shown = [(h, v) for h, v in zip(head, vals, strict=True) if v is not None]  # None: not computed
        cells = [r_signif(v, 2) for _, v in shown]
        width = [max(len(h), len(c)) for (h, _), c in zip(shown, cells, strict=True)]
        lines.append("  " + " ".join(h.rjust(w) for (h, _), w in zip(shown, width, strict=True)))
        lines.append("  " + " ".join(c.rjust(w) for c, w in zip(cells, width, strict=True)))
        ci = self.confidence_interval
        lines += ["", f" {100 * self.confidence_level:g}% confidence boundaries (Feldt)",
                  "  lower alpha upper",
                  f"  {r_signif(ci.low, 2):>5} {r_signif(self.value, 2):>5} {r_signif(ci.high, 2):>5}"]
        if self.alpha_drop is None:
            lines += ["", " Not computed (detail = FALSE): G6(smc), ase, median_r, the item-dropped table",
                      " and the item statistics (they need the k x k covariance matrix)."]
        else:
            lines += ["", " Reliability if an item is dropped:",
                      *("  " + row for row in self.alpha_drop.round(2).to_string().splitlines())]
        return lines


def _row_groups(x):
    """``(grouped, rest, b)``: C-ordered ``x`` with groups of b consecutive rows viewed as one row of
    about 2048 elements (no copy), and the rows left over; None when that does not apply (other
    layouts, fewer than two groups).

    numpy reduces a C-ordered matrix down its columns one row at a time (an inner loop of only k
    elements per row); over the grouped view the inner loop runs over b k elements, and the b
    partial results per column are then added: the same sum in another order, b accumulators
    per column instead of one, so at least as accurate.
    """
    n, k = x.shape
    b = max(1, 2048 // k)
    if not x.flags.c_contiguous or n < 2 * b:
        return None
    q = n - n % b
    return x[:q].reshape(q // b, b * k), x[q:], b


def _column_sums(x):
    """``x.sum(axis=0)``, faster on C-ordered data (a NaN or inf still makes its column's sum non-finite).

    One BLAS product ``1' V`` over the grouped view ``V`` of :func:`_row_groups` (both cores, the
    data read once). NaN and inf propagate through the product.
    """
    groups = _row_groups(x)
    if groups is None:
        return x.sum(axis=0)
    grouped, rest, b = groups
    return (np.ones(len(grouped)) @ grouped).reshape(b, -1).sum(axis=0) + rest.sum(axis=0)


def _cronbach_alpha_iv(items):
    """Items as floats, their names, their column sums (None when some score is missing) and the scale.

    Extreme magnitudes are rescaled exactly (:func:`~predstab._core._ratings.unit_scaled`): the
    coefficients are scale invariant; means and sds are multiplied back by ``scale``.

    For numeric input the column sums (:func:`_column_sums`) are the one pass that both
    checks the data are finite and gives the item means; anything else goes through
    ``as_numeric_matrix``.
    """
    arr = as_rating_matrix(items, name="items")
    col_sum = None
    if arr.dtype.kind in "biuf":
        x = arr.astype(float, copy=False)
        col_sum = _column_sums(x)
        if not np.isfinite(col_sum).all():  # NaN (missing) or inf: the generic reader decides
            x, col_sum = as_numeric_matrix(arr, name="items"), None
    else:
        x = as_numeric_matrix(arr, name="items")
    if x.shape[0] < 3:
        raise ValueError(f"`items` must have at least 3 objects (rows); got shape {x.shape}.")
    if col_sum is None and np.isnan(x).all():
        raise ValueError(f"`items` has no score: all {x.size} values are missing.")
    if isinstance(items, pd.DataFrame):
        names = [str(c) for c in items.columns]
    else:
        names = [f"V{j + 1}" for j in range(x.shape[1])]
    x, scale = unit_scaled(x)
    if scale != 1.0 and col_sum is not None:
        col_sum = _column_sums(x)
    return x, names, col_sum, scale


#: psych's ``Pinv`` drops the singular values at most this times the largest (sqrt of the machine epsilon).
_PINV_TOL = float(np.sqrt(np.finfo(float).eps))


def _inverse(r):
    """R^-1 when psych's ``Pinv`` of R and of every R without one item is the plain inverse, else None.

    That holds when R is positive definite with every eigenvalue above ``_PINV_TOL`` times the
    largest: the eigenvalues of R without an item lie between R's (Cauchy's interlacing), so none
    of those matrices loses a singular value either. (numpy's inv: scipy.linalg.inv costs ~1000
    times more on small matrices, scipy 1.17.)
    """
    if np.isfinite(r).all():  # (an item of zero variance: NaN correlations, NaN statistics as before)
        eig = np.linalg.eigvalsh(r)
        if not eig[0] > _PINV_TOL * eig[-1] > 0:
            return None
    try:
        return np.linalg.inv(r)
    except np.linalg.LinAlgError:
        return None


def _psych_pinv(r):
    """psych's ``Pinv``: the pseudo-inverse from the SVD without the singular values at most
    ``_PINV_TOL`` times the largest."""
    u, d, vt = np.linalg.svd(r)
    keep = d > max(_PINV_TOL * d[0], 0.0)
    return (vt[keep].T / d[keep]) @ u[:, keep].T


def _smc(r, inv=None):
    """Squared multiple correlations as psych's ``smc``: ``1 - 1 / diag(Pinv(R))``, set into [0, 1].

    ``inv``: R^-1 from :func:`_inverse` when it applies (then psych's ``Pinv`` is that inverse);
    otherwise (a singular, nearly singular or indefinite R) psych's ``Pinv`` (:func:`_psych_pinv`).
    """
    if r.shape[0] == 1:
        return np.ones(1)
    if not np.isfinite(r).all():  # an item of zero variance: no correlations, no smc
        return np.full(r.shape[0], np.nan)
    if inv is None:
        inv = _inverse(r)
    if inv is None:
        inv = _psych_pinv(r)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.clip(1 - 1 / np.diag(inv), 0.0, 1.0)


def _drop_one_smc(p):
    """Squared multiple correlations of R without item i, for every i, from P = R^-1.

    The inverse of R without row and column i is the Schur complement
    P_-i,-i - P_-i,i P_i,-i / P_ii of P = R^-1, so its diagonal is P_jj - P_ji^2 / P_ii.
    Row i holds the smc of the other items (NaN at i), set into [0, 1] as psych's ``smc``.
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        diag_drop = np.diag(p)[None, :] - p**2 / np.diag(p)[:, None]
        out = np.clip(1 - 1 / diag_drop, 0.0, 1.0)
    np.fill_diagonal(out, np.nan)
    return out


def _raw_alpha(item_var_sum, total_var, n, k):
    """``k / (k - 1) (1 - sum v_j / V)``; NaN when the variance V of the totals is zero.

    V (the sum of the covariance matrix) is zero for equal row totals (a Latin square) but
    comes out as rounding noise, which gave -inf or -1e16: it is zero when
    ``predstab._core._convention.negligible`` against the sum of the item variances. The caller warns.
    A clearly negative V (pairwise-complete covariances need not be positive definite) gives
    psych's value, above k / (k - 1).
    """
    if negligible(abs(total_var), item_var_sum, n * k * k):
        return float("nan")
    return (1 - item_var_sum / total_var) * (k / (k - 1))


def _alpha_1(c, r, n, smc):
    """psych's internal ``alpha.1``: the summary statistics of one covariance / correlation pair
    (``smc``: the squared multiple correlations of ``r``)."""
    k = c.shape[0]
    sum_c, tr_c = c.sum(), np.trace(c)
    raw = _raw_alpha(tr_c, sum_c, n, k)
    sum_r = r.sum()
    std = (1 - k / sum_r) * (k / (k - 1))
    g6 = 1 - (k - smc.sum()) / sum_r
    av_r = (sum_r - k) / (k * (k - 1))
    off = r[~np.eye(k, dtype=bool)]
    med_r = float(np.median(off))
    sn = k * av_r / (1 - av_r)
    cc = c @ c
    q = (2 * k**2 / ((k - 1) ** 2 * sum_c**3)) * (sum_c * (np.trace(cc) + tr_c**2) - 2 * (tr_c * cc.sum()))
    # psych's ase: sqrt(Q / n) with n the number of objects
    return dict(raw=raw, std=std, g6=g6, av_r=av_r, sn=sn, ase=float(np.sqrt(q / n)), med_r=med_r)


#: Largest ratio E[x^2] / Var(x) of an item for which the covariance comes from the uncentred
#: Gram matrix X'X (one BLAS pass); the cancellation then costs at most log10 of it (2) digits
#: (relative error ~1e-14). Beyond it, the data are centred first (one more pass).
_MAX_UNCENTRED_RATIO = 1e2


def _covariance(x, mean):
    """Item covariance matrix of complete data, ``cov(x)`` in R.

    From the uncentred Gram matrix ``x.T @ x`` (one BLAS pass, no copy of the data) when every
    item's mean is small beside its spread, else from the centred data.
    """
    n = x.shape[0]
    gram = x.T @ x
    c = (gram - n * np.outer(mean, mean)) / (n - 1)
    var = np.diag(c)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.diag(gram) / ((n - 1) * var)
    if np.all(var > 0) and np.all(ratio <= _MAX_UNCENTRED_RATIO):
        return (c + c.T) / 2  # exactly symmetric, as the centred product is
    centred = x - mean
    return centred.T @ centred / (n - 1)


def _drop_one_medians(lower, k):
    """``np.median`` of the pair correlations left when item i is dropped, for every i, from one sort.

    ``lower`` holds the M = k (k - 1) / 2 pairs in ``np.tril_indices(k, -1)`` order (pair (a, b),
    a > b, at a (a - 1) / 2 + b). In the sorted pairs, with p_0 < p_1 < ... the sorted positions
    of item i's k - 1 pairs, the t-th smallest kept pair (from 0) sits at position
    t + #{j : p_j - j <= t}. The median is the mean of the two middle kept pairs ((a + a) / 2 = a
    for an odd count), computed as ``np.median`` does, and NaN when a kept pair is NaN.
    """
    n_pairs = lower.size
    m = n_pairs - (k - 1)
    items = np.arange(k)
    a = np.maximum(items[:, None], items[None, :])
    b = np.minimum(items[:, None], items[None, :])
    of_item = (a * (a - 1) // 2 + b)[~np.eye(k, dtype=bool)].reshape(k, k - 1)  # pairs of item i
    order = np.argsort(lower)  # NaN last, as in np.median's partition
    position = np.empty(n_pairs, dtype=np.intp)
    position[order] = np.arange(n_pairs)
    shifted = np.sort(position[of_item], axis=1) - np.arange(k - 1)
    ordered = lower[order]
    lo, hi = (m - 1) // 2, m // 2
    med = (ordered[lo + (shifted <= lo).sum(axis=1)] + ordered[hi + (shifted <= hi).sum(axis=1)]) / 2
    is_nan = np.isnan(lower)
    med[is_nan.sum() > is_nan[of_item].sum(axis=1)] = np.nan
    return med


def _alpha_drop_rows(c, r, n, inv):
    """psych's ``alpha.drop`` for every item at once (k > 2), from the sums of C and R.

    Dropping item i removes row and column i: sum(C_-i) = sum(C) - 2 rowsum_i + C_ii, the
    trace loses C_ii, tr(C_-i^2) = sum(C^2) - 2 sum_j C_ij^2 + C_ii^2, and the row sums of
    C_-i are rowsum_j - C_ij. The squared multiple correlations of R_-i come from one inverse
    of R, ``inv`` (:func:`_inverse`; None when it does not apply: then psych's ``Pinv`` of each
    R_-i); the medians of the remaining correlations from one sort (:func:`_drop_one_medians`).
    """
    k = c.shape[0]
    kk = k - 1
    dc, dr = np.diag(c), np.diag(r)
    rs_c, rs_r = c.sum(axis=0), r.sum(axis=0)
    sum_c = c.sum() - 2 * rs_c + dc
    tr_c = np.trace(c) - dc
    raw = (1 - tr_c / sum_c) * (kk / (kk - 1))
    sum_r = r.sum() - 2 * rs_r + dr
    std = (1 - kk / sum_r) * (kk / (kk - 1))
    keep = ~np.eye(k, dtype=bool)
    if inv is None:  # a singular or ill-conditioned R: psych's smc of each reduced matrix
        smc_sum = np.array([_smc(r[np.ix_(keep[i], keep[i])]).sum() for i in range(k)])
    else:
        smc_sum = _drop_one_smc(inv)[keep].reshape(k, k - 1).sum(axis=1)
    g6 = 1 - (kk - smc_sum) / sum_r
    av_r = (sum_r - kk) / (kk * (kk - 1))
    sn = kk * av_r / (1 - av_r)
    tr_cc = (c**2).sum() - 2 * (c**2).sum(axis=0) + dc**2
    cc_sum = ((rs_c[None, :] - c) ** 2).sum(axis=1) - (rs_c - dc) ** 2
    q = (2 * kk**2 / ((kk - 1) ** 2 * sum_c**3)) * (sum_c * (tr_cc + tr_c**2) - 2 * (tr_c * cc_sum))
    ase = np.sqrt(q / n)
    lower_i, lower_j = np.tril_indices(k, -1)
    lower = r[lower_i, lower_j]
    m = kk * (kk - 1) // 2  # pairs left after dropping an item
    if m > 1:  # var of the remaining correlations, about their overall mean (no cancellation)
        dev = np.where(keep, r - lower.mean(), 0.0)
        s1 = dev[lower_i, lower_j].sum() - dev.sum(axis=1)
        s2 = (dev[lower_i, lower_j] ** 2).sum() - (dev**2).sum(axis=1)
        var_r = (s2 - s1**2 / m) / (m - 1)
    else:
        var_r = np.full(k, np.nan)  # NA in R for one pair
    med_r = _drop_one_medians(lower, k)
    return np.column_stack([raw, std, g6, av_r, sn, ase, var_r, med_r])


def _two_item_drop_rows(c, r, smc):
    """psych's ``alpha.drop`` of two items (psych 2.2.9 writes these rows out): dropping item i
    leaves ``C_12 / C_jj`` (j the other item) as raw alpha, ``r_12`` as standardised alpha, mean
    and median correlation, the first item's smc as G6, ``r_12 / (1 - r_12)`` as S/N, no
    standard error and 0 as the variance of the correlations."""
    r12 = r[0, 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        raw = c[0, 1] / np.array([c[1, 1], c[0, 0]])
        sn = r12 / (1 - r12)
    common = [r12, smc[0], r12, sn, np.nan, 0.0, r12]
    return np.array([[raw[0], *common], [raw[1], *common]], dtype=float)


def _column_squares(x):
    """Column sums of squares of ``x``, over the grouped view of :func:`_row_groups` on C-ordered data."""
    groups = _row_groups(x)
    if groups is None:
        return np.einsum("ij,ij->j", x, x)
    grouped, rest, b = groups
    partial = np.einsum("ij,ij->j", grouped, grouped).reshape(b, -1).sum(axis=0)
    return partial + np.einsum("ij,ij->j", rest, rest)


def _summary_moments(x):
    """Item means and variances, and the variances of the row sums of ``x`` and of ``x / sd``, in O(n k).

    Returns ``(item_mean, item_var, total_var, standardized_total_var)``, or None when the
    shortcut does not apply (a NaN or inf, an item of zero variance): the caller then takes the
    full path. Four reads of the data, each one call over the whole matrix: the column sums and
    the column sums of squares, then the row sums of ``x`` and of ``x / sd`` (two BLAS products
    ``X 1`` and ``X a`` on both cores; a product with the two columns at once is slower). Item
    variances come from the uncentred sums of squares when every item's mean is small beside its
    spread (the bound of :func:`_covariance`), else from the centred data (one more pass). The
    variances of the row sums are taken about their mean (two passes over n numbers).
    """
    n, k = x.shape
    col_sum, col_sq = _column_sums(x), _column_squares(x)
    if not (np.isfinite(col_sum).all() and np.isfinite(col_sq).all()):
        return None
    item_mean = col_sum / n
    item_var = (col_sq - n * item_mean**2) / (n - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = col_sq / ((n - 1) * item_var)
    if not (np.all(item_var > 0) and np.all(ratio <= _MAX_UNCENTRED_RATIO)):
        centred = x - item_mean
        item_var = np.einsum("ij,ij->j", centred, centred) / (n - 1)
        if not np.all(item_var > 0):
            return None
    # the row sums of the items and of the standardised items: var(sum_j z_j) = sum(R)
    total, std_total = x @ np.ones(k), x @ (1 / np.sqrt(item_var))
    return item_mean, item_var, float(np.var(total, ddof=1)), float(np.var(std_total, ddof=1))


def _feldt(raw, n, k, confidence_level):
    """Feldt's interval for alpha (psych's ``feldt``) with (n - 1, (n - 1)(k - 1)) degrees of freedom."""
    a = 1 - confidence_level
    df1, df2 = n - 1, (n - 1) * (k - 1)
    # scipy.stats.f.ppf is special.fdtri after argument checks
    low = 1 - (1 - raw) * special.fdtri(df1, df2, 1 - a / 2)
    high = 1 - (1 - raw) * special.fdtri(df1, df2, a / 2)
    return ConfidenceInterval(float(low), float(high))


def _alpha_summary(items, confidence_level):
    """The O(n k) result of ``detail=False`` for complete numeric data, else None (full path).

    With item variances v_j, the variance V of the row totals and the variance V_z of the row
    sums of the standardised items (V_z = k + 2 sum_{i<j} r_ij = sum(R)): raw alpha is
    k / (k - 1) (1 - sum v / V), standardised alpha k / (k - 1) (1 - k / V_z), the mean
    correlation (V_z - k) / (k (k - 1)), and psych's sd of the per-object mean item sqrt(V) / k.
    """
    arr = as_rating_matrix(items, name="items")
    if arr.dtype.kind not in "biuf" or arr.ndim != 2 or arr.shape[0] < 3 or arr.shape[1] < 2:
        return None  # the full path reads, refuses or handles it
    x, scale = unit_scaled(arr.astype(float, copy=False))
    moments = _summary_moments(x)
    if moments is None:
        return None
    item_mean, item_var, total_var, sum_r = moments
    n, k = x.shape
    raw = _raw_alpha(item_var.sum(), total_var, n, k)
    sum_r = np.float64(sum_r)  # 0 for constant standardised totals: inf, not ZeroDivisionError
    std = (1 - k / sum_r) * (k / (k - 1))
    av_r = (sum_r - k) / (k * (k - 1))
    return CronbachAlphaResult(
        value=float(raw), standardized=float(std), g6=None, average_r=float(av_r), median_r=None,
        signal_noise=float(np.float64(k * av_r) / (1 - av_r)), standard_error=None,
        mean=float(item_mean.mean()) * scale,
        sd=float(np.sqrt(total_var) / k) * scale, confidence_interval=_feldt(raw, n, k, confidence_level),
        confidence_level=float(confidence_level), n_objects=int(n), n_items=int(k), alpha_drop=None,
        item_stats=None)


@agreement_doc
@validate_params({"confidence_level": [Interval(Real, 0, 1, closed="neither")], "detail": ["boolean"]})
def cronbach_alpha(items, /, *, confidence_level=0.95, detail=True):
    r"""Cronbach's alpha, standardised alpha, Guttman's lambda 6 and alpha if an item is dropped.

    Matches `psych::alpha` (psych 2.2.9, default arguments); see validation/.

    With :math:`C` the item covariance matrix, :math:`R` the correlation matrix and
    :math:`k` items:

    .. math::

        \alpha = \frac{k}{k-1}\Big(1 - \frac{\operatorname{tr} C}{\sum C}\Big),\quad
        \alpha_{std} = \frac{k}{k-1}\Big(1 - \frac{k}{\sum R}\Big),\quad
        \lambda_6 = 1 - \frac{k - \sum_j \mathrm{smc}_j}{\sum R}

    The standard error is psych's ``ase`` (Duhachek & Iacobucci 2004); the interval is
    Feldt's, :math:`1 - (1-\alpha) F_{1-a/2}` to :math:`1 - (1-\alpha) F_{a/2}`, with
    :math:`(n - 1, (n - 1)(k - 1))` degrees of freedom.

    Parameters
    ----------
    items : array-like of shape (n_objects, n_items)
        Item scores, objects (respondents) in rows and items in columns; NaN for a missing
        score. Covariances use pairwise-complete observations (psych's
        ``use = "pairwise"``). Items are not reversed (psych's ``check.keys = FALSE``).
        %(stack)s
    confidence_level : float, default 0.95
        Level of Feldt's interval (psych prints 95%).
    detail : bool, default True
        True: psych's full output, from the k x k covariance matrix (one ``X.T @ X``).
        False: only what needs no k x k matrix, in O(n k) (four reads of the data): raw
        and standardised alpha, ``average_r``, S/N, ``mean``, ``sd`` and Feldt's interval
        (what ``pingouin.cronbach_alpha`` returns, and more), from the item variances, the
        variance of the row totals and that of the row sums of the standardised items
        (:math:`\operatorname{var}(\sum_j z_j) = k + 2 \sum_{i<j} r_{ij} = \sum R`);
        ``g6``, ``median_r``, ``standard_error``, ``alpha_drop`` and ``item_stats`` are None.
        The values are those of ``detail=True`` up to rounding (about 1e-15 relative). With
        missing scores (pairwise-complete covariances) or an item of zero variance,
        ``detail=False`` takes the full path and drops those fields: the same numbers, not faster.

    Returns
    -------
    CronbachAlphaResult
        ``.value`` (raw alpha), ``.standardized``, ``.g6``, ``.average_r``,
        ``.signal_noise``, ``.standard_error`` (ase), ``.confidence_interval`` (Feldt),
        ``.alpha_drop`` and ``.item_stats`` (DataFrames, one row per item); with
        ``detail=False`` the fields that need the k x k matrix are None.

    Warns
    -----
    PredstabUndefinedWarning
        When the variance of the total score is zero (equal row totals, as in a Latin square,
        or constant data; detected against rounding by ``predstab._core._convention.negligible``):
        alpha is NaN. When an item has zero variance: raw alpha is defined, the standardised
        alpha and the correlation statistics are NaN. No numpy warning is raised.

    References
    ----------
    .. [1] Cronbach, L. J. (1951). Coefficient alpha and the internal structure of tests.
       Psychometrika 16(3), 297-334. https://doi.org/10.1007/BF02310555
    .. [2] Duhachek, A. & Iacobucci, D. (2004). Alpha's standard error (ASE): an accurate
       and precise confidence interval estimate. Journal of Applied Psychology 89(5),
       792-808. https://doi.org/10.1037/0021-9010.89.5.792
    .. [3] Feldt, L. S., Woodruff, D. J. & Salih, F. A. (1987). Statistical inference for
       coefficient alpha. Applied Psychological Measurement 11(1), 93-103.
       https://doi.org/10.1177/014662168701100107

    Examples
    --------
    >>> from predstab import cronbach_alpha
    >>> res = cronbach_alpha([[1, 2, 2], [2, 2, 3], [3, 4, 3], [4, 4, 5], [2, 3, 2]])
    >>> round(res.value, 4), round(res.standardized, 4)
    (0.9184, 0.9208)
    >>> short = cronbach_alpha([[1, 2, 2], [2, 2, 3], [3, 4, 3], [4, 4, 5], [2, 3, 2]], detail=False)
    >>> round(short.value, 4), round(short.standardized, 4), short.g6 is None
    (0.9184, 0.9208, True)
    """
    if is_stack(items):  # (..., n_objects, n_raters): a result of arrays (predstab._core._stack)
        return stack_apply(cronbach_alpha, items, name="items",
                           confidence_level=confidence_level, detail=detail)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        # numpy's own warnings on zero variances; the undefined values are reported once below
        warnings.filterwarnings("ignore", category=RuntimeWarning)
        if not detail:
            res = _alpha_summary(items, confidence_level)
            if res is None:
                # missing scores (pairwise-complete covariances), a constant item, one item: the full path
                res = dataclasses.replace(_psych_alpha(items, confidence_level), g6=None, median_r=None,
                                          standard_error=None, alpha_drop=None, item_stats=None)
        else:
            res = _psych_alpha(items, confidence_level)
    if np.isnan(res.value):
        warn_outside("The variance of the total score is zero or not computable (every object has the "
                     "same total, every score is the same, or an item has no score): Cronbach's alpha "
                     "is undefined and set to nan.", PredstabUndefinedWarning)
    elif np.isnan(res.standardized):
        warn_outside("An item has zero variance (or too few scores): its correlations are undefined, "
                     "so the standardised alpha and the correlation statistics are nan.",
                     PredstabUndefinedWarning)
    return res


def _psych_alpha(items, confidence_level):
    """The whole of ``psych::alpha`` (``detail=True``), from the k x k covariance matrix."""
    x, names, col_sum, scale = _cronbach_alpha_iv(items)
    n, k = x.shape
    item_mean = x.mean(axis=0) if col_sum is None else col_sum / n
    complete = bool(np.isfinite(item_mean).all())  # a NaN makes its column's mean NaN
    c = _covariance(x, item_mean) if complete else pd.DataFrame(x).cov().to_numpy()  # pairwise-complete
    sd_items = np.sqrt(np.diag(c))
    r = c / np.outer(sd_items, sd_items)
    inv = _inverse(r)  # one inverse for the smc of the total and of every item-dropped scale
    smc = _smc(r, inv)
    total = _alpha_1(c, r, n, smc)

    if k > 2:
        rows = _alpha_drop_rows(c, r, n, inv)
    elif k == 2:
        rows = _two_item_drop_rows(c, r, smc)
    else:
        rows = np.full((k, len(_DROP_COLUMNS)), np.nan)
    index = pd.Index(names)  # one (immutable) index for both tables
    alpha_drop = pd.DataFrame(rows, index=index, columns=_DROP_COLUMNS)

    # item statistics
    if complete:
        present_n = np.full(k, float(n))
        item_sd = np.sqrt(np.diag(c))
        row_mean = None  # psych's total (each object's mean item): its mean and sd follow from C
    else:
        present_n = (~np.isnan(x)).sum(axis=0).astype(float)
        item_mean = np.nanmean(x, axis=0)
        item_sd = np.nanstd(x, axis=0, ddof=1)
        row_mean = np.nanmean(x, axis=1)
    std_r = r.sum(axis=0) / np.sqrt(r.sum())
    rc = r.copy()
    np.fill_diagonal(rc, smc)
    r_cor = rc.sum(axis=0) / np.sqrt(rc.sum())
    rest_sum = c.sum() - 2 * c.sum(axis=0) + np.diag(c)  # sum of C without row and column i
    r_drop = (c.sum(axis=0) - np.diag(c)) / np.sqrt(np.diag(c) * rest_sum)
    if complete:  # cor(rowMeans(x), x_j) from C: cov = sum_l C_lj / k, var = sum(C) / k^2
        raw_r = c.sum(axis=0) / np.sqrt(c.sum() * np.diag(c))
    else:
        raw_r = np.array([pd.Series(row_mean).corr(pd.Series(x[:, j])) for j in range(k)])
    item_stats = pd.DataFrame(np.column_stack([present_n, raw_r, std_r, r_cor, r_drop, item_mean * scale,
                                               item_sd * scale]),
                              index=index, columns=_ITEM_COLUMNS)

    if complete:
        total_mean, total_sd = float(item_mean.mean()), float(np.sqrt(c.sum()) / k)
    else:
        valid_rows = row_mean[~np.isnan(row_mean)]
        total_mean, total_sd = float(valid_rows.mean()), float(np.std(valid_rows, ddof=1))
    return CronbachAlphaResult(
        value=float(total["raw"]), standardized=float(total["std"]), g6=float(total["g6"]),
        average_r=float(total["av_r"]), median_r=float(total["med_r"]), signal_noise=float(total["sn"]),
        standard_error=float(total["ase"]), mean=total_mean * scale, sd=total_sd * scale,
        confidence_interval=_feldt(total["raw"], n, k, confidence_level),
        confidence_level=float(confidence_level),
        n_objects=int(n), n_items=int(k), alpha_drop=alpha_drop, item_stats=item_stats)
