r"""Chance-corrected agreement coefficients of irrCAC, from raw ratings or a count table.

Percent agreement, Gwet's AC1/AC2, Brennan-Prediger, Conger's kappa, and irrCAC's
(weighted) Fleiss' kappa and Krippendorff's alpha, each with irrCAC 1.0's standard error
(Gwet's linearisation, with the variation of chance agreement), t-based confidence
interval and p-value, using every available rating when some are missing.

Every coefficient is computed from the (objects x categories) count table :math:`n_{ik}`
(the number of raters who put object :math:`i` in category :math:`k`; statsmodels'
``aggregate_raters`` layout), built with one ``np.bincount``; the weighted counts
:math:`n^\star_{ik} = \sum_l w_{kl} n_{il}` are one matrix product. Time and memory are
linear in objects x raters (plus :math:`q^2` for the weights). Conger's kappa also needs
the (raters x categories) table, and one lookup per rating for its variance.
"""

from __future__ import annotations

import numbers
import warnings
from numbers import Real

import numpy as np
import pandas as pd
from scipy import special

from .._core._convention import one_minus_ratio
from .._core._exceptions import PredstabDataWarning
from .._core._ratings import as_numeric_matrix, as_rating_matrix, categorical_codes, factorize_ratings
from .._core._results import Result, r_block, r_pvalue, r_signif, result
from .._core._stack import is_stack, stack_apply
from .._core._utils import ConfidenceInterval, missing_mask
from .._core._validation import Interval, validate_params
from ._weights import WEIGHTS_CONSTRAINT, weight_matrix

__all__ = ["AgreementCoefficientResult", "percent_agreement", "gwet_ac1", "brennan_prediger",
           "conger_kappa", "cac_fleiss_kappa", "cac_krippendorff_alpha"]

#: The declared constraint of every ``weights`` parameter.
_COMMON = {
    "weights": WEIGHTS_CONSTRAINT,
    "confidence_level": [Interval(Real, 0, 1, closed="neither")],
    "counts": ["boolean"],
    "categories": [None, "array-like"],
}


@result
class AgreementCoefficientResult(Result):
    """Result of irrCAC's coefficients (:func:`gwet_ac1`, :func:`percent_agreement`, ...).

    Attributes
    ----------
    value : float
        The coefficient, irrCAC's ``coeff.val`` (unrounded; irrCAC rounds to 5 decimals).
    standard_error : float
        irrCAC's ``coeff.se`` (unrounded).
    confidence_interval : ConfidenceInterval
        irrCAC's ``conf.int``: ``value -/+ t_{df} * standard_error``, the upper bound
        capped at 1 (unrounded; irrCAC rounds to 3 decimals).
    pvalue : float
        irrCAC's ``p.value``: two-sided, from a t distribution with ``df`` degrees of freedom.
    observed : float
        Percent agreement, irrCAC's ``pa`` (also ``.pa``).
    expected : float
        Chance agreement, irrCAC's ``pe`` (also ``.pe``; 0 for percent agreement).
    df : int
        Degrees of freedom of the t distribution (number of objects - 1).
    coefficient : str
        irrCAC's ``coeff.name`` (``"AC1"``, ``"AC2"``, ``"Fleiss' Kappa"``, ...).
    weights : str
        irrCAC's ``w.name``: the weight family, ``"unweighted"`` or ``"custom"``.
    n_objects, n_raters, n_ratings : int
        Objects rated at least once, raters (columns; the largest row total for a count
        table) and ratings used (irrCAC's ``tot.obs``).
    confidence_level : float
        Level of ``confidence_interval``.
    categories : tuple
        Categories, in the order of the rows and columns of ``weight_matrix``.
    weight_matrix : numpy.ndarray of shape (q, q)
        The weights used (irrCAC's ``weights``).
    """

    value: float
    standard_error: float
    confidence_interval: ConfidenceInterval
    pvalue: float
    observed: float
    expected: float
    df: int
    coefficient: str
    weights: str
    n_objects: int
    n_raters: int
    n_ratings: int
    confidence_level: float
    categories: tuple
    weight_matrix: np.ndarray
    _function: str = ""

    _frame_fields = ("value", "standard_error", "pvalue", "observed", "expected", "coefficient", "weights",
                     "n_objects", "n_raters", "confidence_level")

    @property
    def pa(self) -> float:
        """irrCAC's name of :attr:`observed`."""
        return self.observed

    @property
    def pe(self) -> float:
        """irrCAC's name of :attr:`expected`."""
        return self.expected

    def _str_lines(self):
        level = f"{100 * self.confidence_level:g}%"
        ci = self.confidence_interval
        rows = [("Subjects", self.n_objects), ("Raters", self.n_raters), ("Weights", self.weights),
                ("Percent agreement (pa)", r_signif(self.observed, 5)),
                ("Chance agreement (pe)", r_signif(self.expected, 5)),
                (self.coefficient, r_signif(self.value, 5)),
                ("Standard error", r_signif(self.standard_error, 5)),
                (f"{level} CI", f"({r_signif(ci.low, 4)}, {r_signif(ci.high, 4)})"),
                ("p-value", r_pvalue(self.pvalue).removeprefix("p-value ").lstrip("= "))]
        title = f"{self.coefficient} for {self.n_raters} raters"
        if self._function:
            title += f" ({self._function})"
        return r_block(title, rows)


# --------------------------------------------------------------------------- input
def _is_numeric_categories(values) -> bool:
    arr = np.asarray(values)
    if arr.dtype.kind in "iuf":
        return True
    return arr.dtype.kind == "O" and arr.size > 0 and all(
        isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_)) for v in arr.tolist())


def _given_categories(categories, name="categories"):
    cats = np.asarray(list(categories) if not isinstance(categories, np.ndarray) else categories)
    if cats.ndim != 1 or cats.size == 0:
        raise ValueError(f"`{name}` must be a non-empty one-dimensional sequence; got shape {cats.shape}.")
    if len(pd.unique(cats)) != cats.size:
        raise ValueError(f"`{name}` must not repeat a category; got {cats.size} entries, "
                         f"{len(pd.unique(cats))} distinct.")
    return cats


def _raw_codes(ratings, categories):
    """Integer codes (n, r) with -1 for missing, and the categories in weight order."""
    categorical = categorical_codes(ratings) if categories is None else None
    if categorical is not None:
        codes, cats = categorical
        codes = codes.astype(np.int64)
        arr = as_rating_matrix(codes)
        used = np.flatnonzero(np.bincount(codes[codes >= 0], minlength=len(cats)))
        cats = np.asarray(cats)[used]
        order = np.argsort(cats, kind="stable") if _is_numeric_categories(cats) else np.arange(len(used))
        remap = np.full(len(categorical[1]) + 1, -1, dtype=np.int64)
        remap[used[order]] = np.arange(len(used))
        return remap[codes], cats[order]
    arr = as_rating_matrix(ratings)
    if arr.dtype.kind == "f" and np.isinf(arr).any():
        raise ValueError(f"`ratings` must not hold infinite values; got {int(np.isinf(arr).sum())}.")
    if categories is None:
        codes, cats = factorize_ratings(arr)
        return np.asarray(codes, dtype=np.int64), np.asarray(cats)
    cats = _given_categories(categories)
    if _is_numeric_categories(cats):
        cats = np.sort(cats)  # irrCAC's weights sort numeric categories
    missing = missing_mask(arr)
    codes = pd.Index(cats).get_indexer(arr.ravel()).reshape(arr.shape).astype(np.int64)
    unknown = (codes < 0) & ~missing
    if unknown.any():
        raise ValueError(f"`ratings` holds {int(unknown.sum())} value(s) not in `categories`, e.g. "
                         f"{arr[unknown].ravel()[:1].tolist()[0]!r}.")
    codes[missing] = -1
    return codes, cats


_SMALL = 256  # raters x categories up to which counting compares codes (no scatter); bincount above


def _count_table(codes, q):
    """The count table, category-major: ``table[k, i]`` raters who put object i in category k.

    Category-major so that every category is one contiguous vector of objects: the sums over
    categories below are additions of vectors, not reductions along a short axis.
    """
    n, m = codes.shape
    if m * q <= _SMALL:  # few raters and categories: compare and add, no scatter
        dtype = np.int16 if m < 2**15 else np.int64
        table = np.zeros((q, n), dtype=dtype)
        for column in np.ascontiguousarray(codes.T):
            for k in range(q):
                table[k] += column == k
        return table
    flat = codes * n + np.arange(n, dtype=np.int64)[:, None]
    flat = flat[codes >= 0]
    return np.bincount(flat, minlength=q * n).reshape(q, n)


def _read_counts(ratings, categories):
    arr = as_rating_matrix(ratings, min_replicates=1)
    values = as_numeric_matrix(arr)
    if np.isnan(values).any():
        raise ValueError("`ratings` (a count table with counts=True) must not hold missing values; "
                         f"got {int(np.isnan(values).sum())}.")
    if (values < 0).any() or not np.array_equal(values, np.round(values)):
        raise ValueError("`ratings` (a count table with counts=True) must hold non-negative integer counts.")
    q = values.shape[1]
    if categories is None:
        # irrCAC's default categories are 1..q; a DataFrame's column labels name them
        cats = np.asarray(ratings.columns) if isinstance(ratings, pd.DataFrame) else np.arange(1, q + 1)
    else:
        cats = _given_categories(categories)
        if cats.size != q:
            raise ValueError(f"`categories` must name the {q} columns of the count table; got {cats.size}.")
        if _is_numeric_categories(cats) and not _increasing(cats):
            raise ValueError("`categories` of a count table must be increasing when they are numbers "
                             "(the weights sort numeric categories).")
    return values, cats


def _increasing(values):
    try:
        v = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        return False
    return bool(np.all(np.diff(v) > 0))


def _drop_unrated(table, codes, stacklevel=6):
    """Leave out objects (columns of the category-major ``table``) with no rating.

    Returns the table, the codes and every kept object's number of ratings r_i.
    """
    totals = table.sum(axis=0)
    empty = totals == 0
    if empty.any():
        warnings.warn(f"{int(empty.sum())} of {table.shape[1]} objects have no rating and were left out "
                      "(irrCAC asks to exclude them; it returns NaN otherwise).", PredstabDataWarning,
                      stacklevel=stacklevel)
        table = table[:, ~empty]
        totals = totals[~empty]
        codes = None if codes is None else codes[~empty]
    if table.shape[1] == 0:
        raise ValueError("`ratings` must have at least one rated object; got none.")
    return table, codes, totals


def _integer_table(ratings, need_codes):
    """Fast path for integer (or boolean) ratings in a small range: counts by comparing values.

    No factorisation and no scatter: the ratings, shifted to start at 0, are compared with each
    value in ``[min, max]`` and the matches of all raters added in one reduction; values nobody
    used are dropped afterwards. The table is int8 for fewer than 128 raters (counts <= raters).
    None when it does not apply.
    """
    if isinstance(ratings, pd.DataFrame):
        if not all(d.kind in "biu" for d in ratings.dtypes):
            return None
        arr = ratings.to_numpy()
    elif isinstance(ratings, np.ndarray) and ratings.dtype.kind in "biu":
        arr = ratings
    else:
        return None
    arr = as_rating_matrix(arr)
    if arr.dtype.kind not in "biu":  # nullable Int64 columns come as objects (pd.NA): the general path
        return None
    is_bool = arr.dtype.kind == "b"
    if is_bool:
        arr = arr.view(np.uint8)
    n, m = arr.shape
    lo, hi = arr.min(), arr.max()
    span = int(hi) - int(lo) + 1
    if span * m > _SMALL:
        return None
    # at least two raters, so span <= 128: the shift, done modulo 2^8 in int8, is exact because its
    # result lies in [0, span); the int8 copy makes the transpose move 8 times fewer bytes than int64
    shifted = np.ascontiguousarray(np.subtract(arr, lo.astype(arr.dtype), dtype=np.int8, casting="unsafe").T)
    dtype = np.int8 if m < 128 else np.int16  # m <= 256 here
    table = np.empty((span, n), dtype=dtype)
    for k in range(span):  # a bool is one byte 0 / 1: viewed as int8, added in the table's type
        np.add.reduce((shifted == k).view(np.int8), axis=0, dtype=dtype, out=table[k])
    used = np.flatnonzero(table.any(axis=1))
    values = np.arange(int(lo), int(hi) + 1)[used]
    cats = values.astype(bool) if is_bool else values.astype(arr.dtype)
    codes = None
    if need_codes:
        lookup = np.full(span, -1, dtype=np.int64)
        lookup[used] = np.arange(len(used))
        codes = lookup[shifted.T]
    return (table if len(used) == span else table[used]), cats, codes, m


def _prepare(ratings, counts, categories, weights, *, depth=0, need_codes=False):
    """The count table (category-major, integer or float counts) and what the coefficients need.

    ``r_i`` is each object's number of ratings, or one int when every object has the same
    number (complete integer ratings: the fast path of ``_integer_table``).
    """
    fast = None if counts or categories is not None else _integer_table(ratings, need_codes)
    if fast is not None:
        table, cats, codes, n_raters = fast
        r_i = n_raters  # no missing values: every object has every rater's rating
        weight_values = cats
    elif counts:
        values, cats = _read_counts(ratings, categories)
        table, codes, r_i = _drop_unrated(np.ascontiguousarray(values.T), None, 6 + depth)
        n_raters = int(r_i.max())
        given_numbers = categories is not None and _is_numeric_categories(cats)
        weight_values = cats if given_numbers else np.arange(1, len(cats) + 1)
    else:
        codes, cats = _raw_codes(ratings, categories)
        if len(cats) == 0:
            raise ValueError("`ratings` must hold at least one rating; every value is missing.")
        table, codes, r_i = _drop_unrated(_count_table(codes, len(cats)), codes, 6 + depth)
        n_raters = codes.shape[1]
        weight_values = cats
    w = weight_matrix(weights, weight_values)
    if isinstance(weights, str):
        w_name = weights if weights != "identity" else "unweighted"
    elif weights is None:
        w_name = "unweighted"
    else:
        w_name = "custom"
    return table, r_i, codes, tuple(np.asarray(cats).tolist()), w, w_name, n_raters


# --------------------------------------------------------------------------- core
def _pair_sums(table, w):
    """sum_k n_ik n*_ik for every object, with the weighted counts n*_ki = sum_l w_kl n_li.

    Unweighted, sum_k n_ik^2 in integers for an integer table (exact; int8 counts are below 128,
    so their squares' sums fit int16, int16 counts' fit int32). Weighted, one einsum for the
    q x q by q x n product (no BLAS call for so small a q).
    """
    if np.array_equal(w, np.eye(len(w))):
        if table.dtype.kind == "f":
            return np.einsum("kn,kn->n", table, table)
        wide = {1: np.int16, 2: np.int32}.get(table.dtype.itemsize, np.int64)
        return np.einsum("kn,kn->n", table, table, dtype=wide)
    return np.einsum("kn,kn->n", table, np.einsum("kl,ln->kn", w, table))


def _category_shares(table, r_i):
    """pi_k = mean_i n_ik / r_i (with one ``r_i`` for all objects, the category totals / (n r))."""
    n = table.shape[1]
    if np.ndim(r_i) == 0:
        return table.sum(axis=1, dtype=np.int32 if n * r_i < 2**31 else np.int64) / (n * r_i)
    return np.einsum("kn,n->k", table, 1 / r_i) / n


def _per_object(v, table, r_i):
    """sum_k v_k n_ik / r_i for every object (one product over the table)."""
    if np.ndim(r_i) == 0:
        return np.einsum("k,kn->n", v / r_i, table)
    return np.einsum("k,kn->n", v, table) / r_i


def _agreement_parts(table, w, r_i):
    """irrCAC's common quantities: sum_q_i, pa_i (0 when r_i < 2), which r_i >= 2, n2more and pa.

    ``r_i`` is one int when every object has that many ratings (then at least two): ``two`` is
    then True for all.
    """
    sum_q = _pair_sums(table, w) - r_i  # sum_k n_ik (n*_ik - 1)
    if np.ndim(r_i) == 0:
        pa_i = sum_q / (r_i * (r_i - 1))
        n2more = table.shape[1]
        return sum_q, pa_i, True, n2more, float(np.sum(pa_i) / n2more)
    den = r_i * (r_i - 1)
    den[den == 0] = -1  # as irrCAC: objects with one rating have sum_q = 0, hence pa_i = 0
    pa_i = sum_q / den
    two = r_i >= 2
    n2more = int(two.sum())
    with np.errstate(invalid="ignore", divide="ignore"):
        pa = float(np.sum(pa_i[two]) / n2more)
    return sum_q, pa_i, two, n2more, pa


def _inference(coef, var, df, confidence_level):
    with np.errstate(invalid="ignore", divide="ignore"):
        se = float(np.sqrt(var))
        t = np.float64(coef) / se  # se = 0 (perfect agreement): t = inf and p = 0, as in R
    # Student's t tail and quantile (what stats.t.sf and stats.t.ppf call, without their checks)
    pvalue = float(2 * special.stdtr(df, -abs(t))) if df >= 1 and not np.isnan(t) else float("nan")
    if df >= 1:
        half = se * special.stdtrit(df, 1 - (1 - confidence_level) / 2)
        ci = ConfidenceInterval(float(coef - half), float(np.minimum(1.0, coef + half)))  # NaN stays NaN
    else:
        ci = ConfidenceInterval(float("nan"), float("nan"))
    return se, ci, pvalue


def _coefficient(pa, pe, q, name, stacklevel=7):
    """irrCAC's (pa - pe) / (1 - pe), written 1 - D_o / D_e with D_o = 1 - pa and D_e = 1 - pe.

    With one category irrCAC sets pe = 1e-15; here D_e = 0 and D_o = 0, so the shared
    convention gives 1 with a PredstabDegenerateWarning.
    """
    d_e = 1.0 - pe if q >= 2 else 0.0
    return one_minus_ratio(1.0 - pa, d_e, name=name, what="disagreement", stacklevel=stacklevel)


def _compute(kind, table, r_i, codes, w, confidence_level, depth=0):
    """Coefficient, variance, observed, expected and df of irrCAC's ``<kind>.raw`` / ``.dist``."""
    q, n = table.shape
    nan = float("nan")
    if kind == "krippendorff":
        return _krippendorff(table, r_i, w, confidence_level, depth)
    sum_q, pa_i, two, n2more, pa = _agreement_parts(table, w, r_i)
    if kind == "pa":
        value = _coefficient(pa, 0.0, 2, "percent agreement", 7 + depth)
        if q < 2:
            return value, nan, pa, 0.0, n - 1
        dev = pa_i * (n / n2more)
        dev -= pa
        var = float(dev @ dev) / (n * (n - 1)) if n >= 2 else nan
        return value, var, pa, 0.0, n - 1
    pi = _category_shares(table, r_i)
    if kind == "ac1":
        scale = w.sum() / (q * (q - 1)) if q >= 2 else nan
        pe = float(scale * np.sum(pi * (1 - pi))) if q >= 2 else nan
    elif kind == "bp":
        pe = float(w.sum() / q**2)
    elif kind == "fleiss":
        pe = float(np.sum(w * np.outer(pi, pi)))
    elif kind == "conger":
        n_raters = codes.shape[1]
        rater_table = np.bincount((codes + np.arange(n_raters) * q)[codes >= 0],
                                  minlength=n_raters * q).reshape(n_raters, q).astype(float)
        n_g = rater_table.sum(axis=1)
        p_gk = rater_table / n_g[:, None]
        p_mean = p_gk.mean(axis=0)
        s2 = (p_gk.T @ p_gk - n_raters * np.outer(p_mean, p_mean)) / (n_raters - 1)
        pe = float(np.sum(w * (np.outer(p_mean, p_mean) - s2 / n_raters)))
    else:
        raise ValueError(f"unknown coefficient {kind!r}")
    coef = _coefficient(pa, pe, q, _NAMES[kind][0], 7 + depth)
    if q < 2 or np.isnan(coef) or pe == 1.0:
        return coef, nan, pa, pe, n - 1
    # x_i - coef for irrCAC's x_i = c_i - 2 (1 - coef) (pe_i - pe) / (1 - pe) with
    # c_i = (n / n2more) (pa_i - pe) / (1 - pe), built in place: one pass over the objects a step
    dev = pa_i - pe * two
    dev *= (n / n2more) / (1 - pe)
    if kind != "bp":
        g = 2 * (1 - coef) / (1 - pe)
        if kind == "ac1":  # pe_i = scale sum_k (1 - pi_k) n_ik / r_i
            dev -= _per_object(g * scale * (1 - pi), table, r_i)
        elif kind == "fleiss":  # pe_i = sum_k pi*_k n_ik / r_i, pi* the symmetrised weighted shares
            dev -= _per_object(g * (w @ pi + w.T @ pi) / 2, table, r_i)
        else:  # conger: Gwet's lambda_ig, summed over the raters g
            a = (n_raters * p_mean[None, :] - p_gk) @ w  # a_gl = sum_k (r p_k - p_gk) w_kl
            b = np.einsum("gl,gl->g", p_gk, a)
            rated = codes >= 0
            a_at = np.where(rated, a[np.arange(n_raters)[None, :], np.where(rated, codes, 0)], 0.0)
            lam = (n / n_g)[None, :] * (a_at - (rated - (n_g / n)[None, :]) * b[None, :])
            dev -= lam.sum(axis=1) * (g / (n_raters * (n_raters - 1)))
        dev += g * pe
    dev -= coef
    var = float(dev @ dev) / (n * (n - 1)) if n >= 2 else nan
    return coef, var, pa, pe, n - 1


def _krippendorff(table, r_all, w, confidence_level, depth=0):
    q, n0 = table.shape
    nan = float("nan")
    r_all = np.broadcast_to(r_all, n0)
    keep = r_all >= 2
    table = table[:, keep] if not keep.all() else table
    r_i = r_all[keep]
    n = table.shape[1]
    if n == 0:
        return nan, nan, nan, nan, n0 - 1
    r_mean = r_i.mean()
    eps = 1 / r_i.sum()
    sum_q = _pair_sums(table, w) - r_i
    pa_prime = float(np.sum(sum_q / (r_mean * (r_i - 1))) / n)
    pa = (1 - eps) * pa_prime + eps
    pi = table.sum(axis=1) / r_mean / n
    pe = float(np.sum(w * np.outer(pi, pi))) if q >= 2 else nan
    coef = _coefficient(pa, pe, q, "Krippendorff's alpha", stacklevel=8 + depth)
    if q < 2 or pe == 1.0:
        return coef, nan, pa, pe, n - 1
    coef_prime = (pa_prime - pe) / (1 - pe)
    # irrCAC 1.0 centres with pa (its 2021 revision: pa'), and uses n - 1 degrees of freedom over
    # the objects rated at least twice (2021: over every object)
    pa_i = sum_q / (r_mean * (r_i - 1)) - pa * (r_i - r_mean) / r_mean
    k_i = (pa_i - pe) / (1 - pe)
    pi_w = (w @ pi + w.T @ pi) / 2
    pe_i = np.einsum("k,kn->n", pi_w, table) / r_mean - pe * (r_i - r_mean) / r_mean
    x_i = k_i - 2 * (1 - coef_prime) * (pe_i - pe) / (1 - pe)
    var = np.sum((x_i - coef_prime) ** 2) / (n * (n - 1)) if n >= 2 else nan
    return coef, var, pa, pe, n - 1


_NAMES = {"pa": ("Percent Agreement", "pa.coeff"), "ac1": ("AC1", "gwet.ac1"),
          "bp": ("Brennan-Prediger", "bp.coeff"), "conger": ("Conger's Kappa", "conger.kappa"),
          "fleiss": ("Fleiss' Kappa", "fleiss.kappa"),
          "krippendorff": ("Krippendorff's Alpha", "krippen.alpha")}


def _run(kind, ratings, weights, confidence_level, counts, categories, depth=0):
    """Read, compute, infer; ``depth``: extra frames between the user and the public function."""
    name, r_name = _NAMES[kind]
    function = f"irrCAC::{r_name}.{'dist' if counts else 'raw'}"
    if kind == "conger" and counts:
        raise ValueError("`counts` must be False for Conger's kappa: it needs each rater's ratings, "
                         "which a count table does not keep (irrCAC has no conger.kappa.dist either).")
    table, r_i, codes, cats, w, w_name, n_raters = _prepare(ratings, counts, categories, weights, depth=depth,
                                                            need_codes=kind == "conger")
    coef, var, pa, pe, df = _compute(kind, table, r_i, codes, w, confidence_level, depth)
    se, ci, pvalue = _inference(coef, var, df, confidence_level)
    if kind == "ac1":
        name = "AC1" if len(cats) == 1 or w.sum() == len(cats) else "AC2"
    return AgreementCoefficientResult(
        value=float(coef), standard_error=se, confidence_interval=ci, pvalue=pvalue, observed=float(pa),
        expected=float(pe), df=int(df), coefficient=name, weights=w_name,
        n_objects=int(df) + 1,
        n_raters=int(n_raters), n_ratings=int(np.sum(np.broadcast_to(r_i, table.shape[1]))),
        confidence_level=float(confidence_level),
        categories=cats, weight_matrix=w, _function=function)


@validate_params(_COMMON)
def percent_agreement(ratings, /, *, weights=None, confidence_level=0.95, counts=False, categories=None):
    r"""Percent agreement among any number of raters, with irrCAC's standard error.

    Matches `irrCAC::pa.coeff.raw` (and ``pa.coeff.dist`` with ``counts=True``); see validation/.

    .. math::

        p_a = \frac{1}{n'} \sum_{i: r_i \ge 2} \sum_k \frac{n_{ik}(n^\star_{ik} - 1)}{r_i(r_i - 1)},
        \qquad n^\star_{ik} = \sum_l w_{kl} n_{il}

    over the :math:`n'` objects rated at least twice (:math:`r_i` ratings of object i).

    Parameters
    ----------
    ratings : array-like of shape (n_objects, n_raters) or (n_objects, n_categories)
        Ratings, objects in rows and raters in columns: numbers, strings or booleans, NaN
        / None for a missing rating (every available rating is used, as irrCAC does).
        Objects with no rating at all are left out with a ``PredstabDataWarning``. With
        ``counts=True``, a table of counts: entry (i, k) is the number of raters who put
        object i in category k (statsmodels' ``aggregate_raters`` layout; irrCAC's
        ``*.dist`` functions).
        A stack of shape ``(..., n_objects, n_raters)`` (a Dask array too) gives one result whose
        numbers are arrays of shape ``(...)``, as a loop over the matrices would.
    weights : None, str or array-like of shape (q, q), default None
        None (or ``"unweighted"``/``"identity"``) for the unweighted coefficient; one of
        ``"linear"``, ``"quadratic"``, ``"ordinal"``, ``"radical"``, ``"ratio"``,
        ``"circular"``, ``"bipolar"`` (see :mod:`predstab.agreement._weights`); or a matrix whose rows
        and columns follow ``.categories``. Numeric categories are weighted by their
        values, other categories by their positions (1, ..., q) in sorted order (or in the
        order of ``categories``, or of a Categorical's categories).
    confidence_level : float, default 0.95
        Level of the confidence interval (irrCAC's ``conflev``).
    counts : bool, default False
        Whether ``ratings`` is an (objects x categories) count table.
    categories : array-like, optional
        Raw ratings: every category raters could choose, in their order (irrCAC's
        ``categ.labels``); unused ones count in the chance agreement of AC1 and
        Brennan-Prediger. Count table: the category of each column (irrCAC's ``categ``);
        by default the weights use the positions 1..q, as irrCAC does.

    Returns
    -------
    AgreementCoefficientResult
        ``.value``, ``.standard_error``, ``.confidence_interval``, ``.pvalue``,
        ``.observed`` (``.pa``), ``.expected`` (``.pe``), ``.weight_matrix``, ``.categories``.

    Notes
    -----
    irrCAC rounds ``coeff.val`` and ``coeff.se`` to 5 decimals and the interval to 3;
    predstab does not round (validation/ compares both). irrCAC upper-cases and trims text
    labels (so ``"a"`` and ``" A"`` are one category); predstab keeps labels as given.
    p-values use the t survival function, accurate in the tail where irrCAC's
    ``2 * (1 - pt(|t|, n - 1))`` rounds to 0. With a single category irrCAC sets
    :math:`p_e = 10^{-15}`; predstab returns 1 with a ``PredstabDegenerateWarning`` and a
    NaN standard error.

    Examples
    --------
    >>> from predstab import percent_agreement
    >>> res = percent_agreement([["a", "a"], ["a", "b"], ["b", "b"], ["c", "c"]])
    >>> res.value, round(res.standard_error, 4)
    (0.75, 0.25)
    """
    if is_stack(ratings):  # (..., n_objects, n_raters): a result of arrays (predstab._core._stack)
        return stack_apply(percent_agreement, ratings, name="ratings", stacklevel=3, weights=weights,
                           confidence_level=confidence_level, counts=counts, categories=categories)
    return _run("pa", ratings, weights, confidence_level, counts, categories)


@validate_params(_COMMON)
def gwet_ac1(ratings, /, *, weights=None, confidence_level=0.95, counts=False, categories=None):
    r"""Gwet's AC1 (AC2 with weights) for any number of raters.

    Matches `irrCAC::gwet.ac1.raw` (and ``gwet.ac1.dist`` with ``counts=True``); see validation/.

    .. math::

        AC = \frac{p_a - p_e}{1 - p_e},\qquad
        p_e = \frac{\sum_{kl} w_{kl}}{q(q-1)} \sum_k \pi_k (1 - \pi_k),\qquad
        \pi_k = \frac{1}{n} \sum_i \frac{n_{ik}}{r_i}

    with :math:`p_a` as in :func:`percent_agreement`. The variance is Gwet's (2008)
    linearisation, :math:`\frac{1}{n(n-1)}\sum_i (AC_i^\star - AC)^2`.

    Parameters
    ----------
    ratings : array-like of shape (n_objects, n_raters) or (n_objects, n_categories)
        Ratings, objects in rows and raters in columns: numbers, strings or booleans, NaN
        / None for a missing rating (every available rating is used, as irrCAC does).
        Objects with no rating at all are left out with a ``PredstabDataWarning``. With
        ``counts=True``, a table of counts: entry (i, k) is the number of raters who put
        object i in category k (statsmodels' ``aggregate_raters`` layout; irrCAC's
        ``*.dist`` functions).
        A stack of shape ``(..., n_objects, n_raters)`` (a Dask array too) gives one result whose
        numbers are arrays of shape ``(...)``, as a loop over the matrices would.
    weights : None, str or array-like of shape (q, q), default None
        None (or ``"unweighted"``/``"identity"``) for the unweighted coefficient; one of
        ``"linear"``, ``"quadratic"``, ``"ordinal"``, ``"radical"``, ``"ratio"``,
        ``"circular"``, ``"bipolar"`` (see :mod:`predstab.agreement._weights`); or a matrix whose rows
        and columns follow ``.categories``. Numeric categories are weighted by their
        values, other categories by their positions (1, ..., q) in sorted order (or in the
        order of ``categories``, or of a Categorical's categories).
    confidence_level : float, default 0.95
        Level of the confidence interval (irrCAC's ``conflev``).
    counts : bool, default False
        Whether ``ratings`` is an (objects x categories) count table.
    categories : array-like, optional
        Raw ratings: every category raters could choose, in their order (irrCAC's
        ``categ.labels``); unused ones count in the chance agreement of AC1 and
        Brennan-Prediger. Count table: the category of each column (irrCAC's ``categ``);
        by default the weights use the positions 1..q, as irrCAC does.

    Returns
    -------
    AgreementCoefficientResult
        ``.value``, ``.standard_error``, ``.confidence_interval``, ``.pvalue``,
        ``.observed`` (``.pa``), ``.expected`` (``.pe``), ``.weight_matrix``, ``.categories``.

    Notes
    -----
    irrCAC rounds ``coeff.val`` and ``coeff.se`` to 5 decimals and the interval to 3;
    predstab does not round (validation/ compares both). irrCAC upper-cases and trims text
    labels (so ``"a"`` and ``" A"`` are one category); predstab keeps labels as given.
    p-values use the t survival function, accurate in the tail where irrCAC's
    ``2 * (1 - pt(|t|, n - 1))`` rounds to 0. With a single category irrCAC sets
    :math:`p_e = 10^{-15}`; predstab returns 1 with a ``PredstabDegenerateWarning`` and a
    NaN standard error.

    References
    ----------
    .. [1] Gwet, K. L. (2008). Computing inter-rater reliability and its variance in the
       presence of high agreement. British Journal of Mathematical and Statistical
       Psychology 61(1), 29-48. https://doi.org/10.1348/000711006X126600

    Examples
    --------
    >>> from predstab import gwet_ac1
    >>> res = gwet_ac1([[1, 1, 1], [1, 2, 1], [2, 2, 2], [3, 3, 2]])
    >>> round(res.value, 4), res.coefficient
    (0.5152, 'AC1')
    """
    if is_stack(ratings):  # (..., n_objects, n_raters): a result of arrays (predstab._core._stack)
        return stack_apply(gwet_ac1, ratings, name="ratings", stacklevel=3, weights=weights,
                           confidence_level=confidence_level, counts=counts, categories=categories)
    return _run("ac1", ratings, weights, confidence_level, counts, categories)


@validate_params(_COMMON)
def brennan_prediger(ratings, /, *, weights=None, confidence_level=0.95, counts=False, categories=None):
    r"""Brennan and Prediger's coefficient for any number of raters.

    Matches `irrCAC::bp.coeff.raw` (and ``bp.coeff.dist`` with ``counts=True``); see validation/.

    .. math::

        BP = \frac{p_a - p_e}{1 - p_e},\qquad p_e = \frac{1}{q^2}\sum_{kl} w_{kl}

    Parameters
    ----------
    ratings : array-like of shape (n_objects, n_raters) or (n_objects, n_categories)
        Ratings, objects in rows and raters in columns: numbers, strings or booleans, NaN
        / None for a missing rating (every available rating is used, as irrCAC does).
        Objects with no rating at all are left out with a ``PredstabDataWarning``. With
        ``counts=True``, a table of counts: entry (i, k) is the number of raters who put
        object i in category k (statsmodels' ``aggregate_raters`` layout; irrCAC's
        ``*.dist`` functions).
        A stack of shape ``(..., n_objects, n_raters)`` (a Dask array too) gives one result whose
        numbers are arrays of shape ``(...)``, as a loop over the matrices would.
    weights : None, str or array-like of shape (q, q), default None
        None (or ``"unweighted"``/``"identity"``) for the unweighted coefficient; one of
        ``"linear"``, ``"quadratic"``, ``"ordinal"``, ``"radical"``, ``"ratio"``,
        ``"circular"``, ``"bipolar"`` (see :mod:`predstab.agreement._weights`); or a matrix whose rows
        and columns follow ``.categories``. Numeric categories are weighted by their
        values, other categories by their positions (1, ..., q) in sorted order (or in the
        order of ``categories``, or of a Categorical's categories).
    confidence_level : float, default 0.95
        Level of the confidence interval (irrCAC's ``conflev``).
    counts : bool, default False
        Whether ``ratings`` is an (objects x categories) count table.
    categories : array-like, optional
        Raw ratings: every category raters could choose, in their order (irrCAC's
        ``categ.labels``); unused ones count in the chance agreement of AC1 and
        Brennan-Prediger. Count table: the category of each column (irrCAC's ``categ``);
        by default the weights use the positions 1..q, as irrCAC does.

    Returns
    -------
    AgreementCoefficientResult
        ``.value``, ``.standard_error``, ``.confidence_interval``, ``.pvalue``,
        ``.observed`` (``.pa``), ``.expected`` (``.pe``), ``.weight_matrix``, ``.categories``.

    Notes
    -----
    irrCAC rounds ``coeff.val`` and ``coeff.se`` to 5 decimals and the interval to 3;
    predstab does not round (validation/ compares both). irrCAC upper-cases and trims text
    labels (so ``"a"`` and ``" A"`` are one category); predstab keeps labels as given.
    p-values use the t survival function, accurate in the tail where irrCAC's
    ``2 * (1 - pt(|t|, n - 1))`` rounds to 0. With a single category irrCAC sets
    :math:`p_e = 10^{-15}`; predstab returns 1 with a ``PredstabDegenerateWarning`` and a
    NaN standard error.

    References
    ----------
    .. [1] Brennan, R. L. & Prediger, D. J. (1981). Coefficient kappa: some uses, misuses,
       and alternatives. Educational and Psychological Measurement 41(3), 687-699.
       https://doi.org/10.1177/001316448104100307

    Examples
    --------
    >>> from predstab import brennan_prediger
    >>> round(brennan_prediger([[1, 1], [1, 2], [2, 2], [2, 2]]).value, 4)
    0.5
    """
    if is_stack(ratings):  # (..., n_objects, n_raters): a result of arrays (predstab._core._stack)
        return stack_apply(brennan_prediger, ratings, name="ratings", stacklevel=3, weights=weights,
                           confidence_level=confidence_level, counts=counts, categories=categories)
    return _run("bp", ratings, weights, confidence_level, counts, categories)


@validate_params(_COMMON)
def conger_kappa(ratings, /, *, weights=None, confidence_level=0.95, counts=False, categories=None):
    r"""Conger's (1980) kappa for any number of raters, with Gwet's standard error.

    Matches `irrCAC::conger.kappa.raw`; see validation/. There is no count-table form
    (``counts=True`` raises): the chance agreement uses each rater's own category
    proportions :math:`p_{gk}`,

    .. math::

        p_e = \sum_{kl} w_{kl}\Big(\bar p_k \bar p_l - \frac{s^2_{kl}}{r}\Big),\qquad
        s^2_{kl} = \frac{1}{r-1}\sum_g (p_{gk} - \bar p_k)(p_{gl} - \bar p_l)

    Parameters
    ----------
    ratings : array-like of shape (n_objects, n_raters) or (n_objects, n_categories)
        Ratings, objects in rows and raters in columns: numbers, strings or booleans, NaN
        / None for a missing rating (every available rating is used, as irrCAC does).
        Objects with no rating at all are left out with a ``PredstabDataWarning``. With
        ``counts=True``, a table of counts: entry (i, k) is the number of raters who put
        object i in category k (statsmodels' ``aggregate_raters`` layout; irrCAC's
        ``*.dist`` functions).
        A stack of shape ``(..., n_objects, n_raters)`` (a Dask array too) gives one result whose
        numbers are arrays of shape ``(...)``, as a loop over the matrices would.
    weights : None, str or array-like of shape (q, q), default None
        None (or ``"unweighted"``/``"identity"``) for the unweighted coefficient; one of
        ``"linear"``, ``"quadratic"``, ``"ordinal"``, ``"radical"``, ``"ratio"``,
        ``"circular"``, ``"bipolar"`` (see :mod:`predstab.agreement._weights`); or a matrix whose rows
        and columns follow ``.categories``. Numeric categories are weighted by their
        values, other categories by their positions (1, ..., q) in sorted order (or in the
        order of ``categories``, or of a Categorical's categories).
    confidence_level : float, default 0.95
        Level of the confidence interval (irrCAC's ``conflev``).
    counts : bool, default False
        Whether ``ratings`` is an (objects x categories) count table.
    categories : array-like, optional
        Raw ratings: every category raters could choose, in their order (irrCAC's
        ``categ.labels``); unused ones count in the chance agreement of AC1 and
        Brennan-Prediger. Count table: the category of each column (irrCAC's ``categ``);
        by default the weights use the positions 1..q, as irrCAC does.

    Returns
    -------
    AgreementCoefficientResult
        ``.value``, ``.standard_error``, ``.confidence_interval``, ``.pvalue``,
        ``.observed`` (``.pa``), ``.expected`` (``.pe``), ``.weight_matrix``, ``.categories``.

    Notes
    -----
    irrCAC rounds ``coeff.val`` and ``coeff.se`` to 5 decimals and the interval to 3;
    predstab does not round (validation/ compares both). irrCAC upper-cases and trims text
    labels (so ``"a"`` and ``" A"`` are one category); predstab keeps labels as given.
    p-values use the t survival function, accurate in the tail where irrCAC's
    ``2 * (1 - pt(|t|, n - 1))`` rounds to 0. With a single category irrCAC sets
    :math:`p_e = 10^{-15}`; predstab returns 1 with a ``PredstabDegenerateWarning`` and a
    NaN standard error.

    References
    ----------
    .. [1] Conger, A. J. (1980). Integration and generalization of kappas for multiple
       raters. Psychological Bulletin 88(2), 322-328. https://doi.org/10.1037/0033-2909.88.2.322

    Examples
    --------
    >>> from predstab import conger_kappa
    >>> round(conger_kappa([[1, 1, 1], [1, 2, 1], [2, 2, 2], [3, 3, 2]]).value, 4)
    0.4839
    """
    if is_stack(ratings):  # (..., n_objects, n_raters): a result of arrays (predstab._core._stack)
        return stack_apply(conger_kappa, ratings, name="ratings", stacklevel=3, weights=weights,
                           confidence_level=confidence_level, counts=counts, categories=categories)
    return _run("conger", ratings, weights, confidence_level, counts, categories)


@validate_params(_COMMON)
def cac_fleiss_kappa(ratings, /, *, weights=None, confidence_level=0.95, counts=False, categories=None,
                     _depth=0):
    """irrCAC's Fleiss' kappa (``fleiss.kappa.raw`` / ``.dist``).

    Reached by ``fleiss_kappa(..., weights=...)`` or ``fleiss_kappa(..., counts=True)``.

    :math:`p_e = \\sum_{kl} w_{kl} \\pi_k \\pi_l`, :math:`\\pi_k` as in :func:`gwet_ac1`.
    """
    if is_stack(ratings):  # (..., n_objects, n_raters): a result of arrays (predstab._core._stack)
        return stack_apply(cac_fleiss_kappa, ratings, name="ratings", stacklevel=3, weights=weights,
                           confidence_level=confidence_level, counts=counts, categories=categories,
                           _depth=_depth)
    return _run("fleiss", ratings, weights, confidence_level, counts, categories, _depth)


@validate_params(_COMMON)
def cac_krippendorff_alpha(ratings, /, *, weights=None, confidence_level=0.95, counts=False,
                           categories=None, _depth=0):
    """irrCAC's Krippendorff's alpha (``krippen.alpha.raw`` / ``.dist``) with Gwet's standard error.

    Reached by ``krippendorff_alpha(..., weights=...)``. Only objects rated at least twice
    count (``n_objects``; ``df = n_objects - 1``), as irrCAC 1.0 does.
    """
    if is_stack(ratings):  # (..., n_objects, n_raters): a result of arrays (predstab._core._stack)
        return stack_apply(cac_krippendorff_alpha, ratings, name="ratings", stacklevel=3, weights=weights,
                           confidence_level=confidence_level, counts=counts, categories=categories,
                           _depth=_depth)
    return _run("krippendorff", ratings, weights, confidence_level, counts, categories, _depth)


def dispatch_fleiss(ratings, *, weights, counts, exact, detail, confidence_level=0.95):
    """``fleiss_kappa(..., weights=..., counts=...)``: irrCAC's Fleiss' kappa, irr's options checked."""
    if exact or detail:
        raise ValueError("`exact` and `detail` are options of irr's kappam.fleiss; with `weights` or "
                         "counts=True (irrCAC's fleiss.kappa.raw / .dist) they must be False.")
    return cac_fleiss_kappa(ratings, weights=weights, counts=counts, confidence_level=confidence_level,
                            _depth=3)  # + validate_params


def dispatch_krippendorff(ratings, *, weights, counts, level, levels, confidence_level=0.95):
    """``krippendorff_alpha(..., weights=..., counts=...)``: irrCAC's alpha; ``levels`` are its categories."""
    if level != "nominal":
        raise ValueError(f"`level` must be 'nominal' (the default) when `weights` are given: the weights "
                         f"replace the level of measurement (irrCAC's krippen.alpha.raw); got {level!r}.")
    categories = None if levels is None else (
        list(levels.categories) if isinstance(levels, pd.CategoricalDtype) else levels)
    return cac_krippendorff_alpha(ratings, weights=weights, counts=counts, categories=categories,
                                  confidence_level=confidence_level, _depth=3)  # + validate_params
