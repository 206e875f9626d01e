"""Krippendorff's alpha-reliability: nominal, ordinal, interval and ratio data (irr::kripp.alpha), or
agreement weights with Gwet's standard error (irrCAC::krippen.alpha.raw / .dist); one engine, one
result type."""

from __future__ import annotations

import functools
from numbers import Real

import numpy as np
import pandas as pd
from scipy import sparse

from .._core._exceptions import PredstabUndefinedWarning, warn_outside
from .._core._gate import check_categories_order, check_labels
from .._core._ratings import (
    as_numeric_matrix,
    as_rating_matrix,
    factorize_ratings,
    scaling_shift,
    unit_scaled,
)
from .._core._results import Result, r_rows, r_signif, result
from .._core._stack import (
    ItemWarnings,
    count_tables,
    is_stack,
    one_minus_ratio_items,
    small_integer_codes,
    stack_apply,
    vectorised_apply,
)
from .._core._utils import ConfidenceInterval, missing_mask
from .._core._validation import Interval, InvalidParameterError, Options, validate_params
from ._cac import TwoDefinitions, inference, pair_sums, r_function
from ._cac_tables import read_count_table
from ._common import convention_ratio
from ._docstrings import agreement_doc
from ._krippendorff_gwet import gwet_variance
from ._weights import WEIGHTS_CONSTRAINT

__all__ = ["krippendorff_alpha", "KrippendorffAlphaResult", "MAX_TABLE_BYTES"]

_SCALES = ("nominal", "ordinal", "interval", "ratio", "circular", "bipolar")

#: Memory budget (bytes) for the values x values tables that ordinal and ratio alpha
#: need (and for the dense units x values count table, above which a sparse one is
#: used). Nominal and interval alpha never build a values x values table.
MAX_TABLE_BYTES = 512 * 2**20


@result
class KrippendorffAlphaResult(TwoDefinitions, Result):
    """Result of :func:`krippendorff_alpha`.

    ``print(res)`` shows irr's layout (``print.irrlist`` of ``kripp.alpha``), or irrCAC's summary
    with ``weights`` or ``counts``; ``res.to_frame()`` is one row (with ``ci_low`` / ``ci_high``
    and the standard error on irrCAC's path: Krippendorff's alpha has no interval).

    Attributes
    ----------
    value : float
        Krippendorff's alpha, ``1 - observed / expected``.
    observed : float
        Observed disagreement :math:`D_o`.
    expected : float
        Expected disagreement :math:`D_e` (of ``reference`` when given). Interval data whose
        largest magnitude lies outside :math:`[2^{-100}, 2^{100}]` are first multiplied by a
        power of four :math:`4^m` (exactly; :math:`D` of such data may not be representable):
        ``observed`` and ``expected`` are then those of the rescaled data, :math:`16^m` times
        the data's, ``reference`` rescaled by the same factor, and ``value`` is unchanged.
    scale : str
        Level of measurement used (``"nominal"`` with ``weights``: the weights are the
        difference function, :math:`\\delta_{ck} = 1 - w_{ck}`; ``"custom"`` for a difference
        function given as ``scale``).
    n_units : int
        Units (objects) with at least two values (the pairable units).
    n_values : int
        Pairable values :math:`n_{..}`.
    n_objects, n_raters : int
        Shape of the matrix given (irr's ``subjects`` and ``raters``); on irrCAC's path the
        objects rated at least once and the raters (the largest row total of a count table).
    standard_error, confidence_interval, confidence_level, df : float, ConfidenceInterval, float, int
        irrCAC's ``coeff.se``, ``conf.int`` (upper bound capped at 1), ``conflev`` and the t
        distribution's degrees of freedom (``n_units - 1``), with ``weights`` or ``counts``;
        None otherwise.
    pvalue : float or None
        irrCAC's ``p.value`` (two-sided, t), with ``weights`` or ``counts``; None otherwise.
    pa, pe : float or None
        irrCAC's percent and chance agreement, :math:`p_a = 1 - (1 - 1/n_{..}) D_o` and
        :math:`p_e = 1 - (1 - 1/n_{..}) D_e` (with ``weights`` or ``counts``; None otherwise).
    weights : str or None
        irrCAC's ``w.name`` (a weight family, ``"unweighted"`` or ``"custom"``); None without weights.
    categories : tuple or None
        The categories of ``weight_matrix``'s rows and columns (irrCAC's path).
    weight_matrix : numpy.ndarray of shape (q, q) or None
        The weights used (irrCAC's ``weights``).
    """

    value: float
    observed: float
    expected: float
    scale: str
    n_units: int
    n_values: int
    n_objects: int = 0
    n_raters: int = 0
    standard_error: float | None = None
    confidence_interval: ConfidenceInterval | None = None
    confidence_level: float | None = None
    df: int | None = None
    pvalue: float | None = None
    pa: float | None = None
    pe: float | None = None
    weights: str | None = None
    categories: tuple | None = None
    weight_matrix: np.ndarray | None = None
    _function: str = ""

    _renamed_attributes = {"level": "scale"}

    _coefficient_name = "Krippendorff's Alpha"
    _irr_frame_fields = ("value", "observed", "expected", "scale", "n_units", "n_values", "n_objects",
                         "n_raters")

    def _irr_lines(self):
        # irr 0.84.1 print.irrlist: names right-aligned to 9 characters, format(x, digits = 3)
        return [" Krippendorff's alpha", "", *r_rows([("Subjects", self.n_objects), ("Raters", self.n_raters),
                                                     ("alpha", r_signif(self.value, 3))])]


def _krippendorff_alpha_iv(ratings, scale, categories, reference=None):
    """``(codes, x, n_values, metric, rows)``: the data coded for the scale (``codes`` into the
    ``n_values`` distinct values, or the numbers ``x`` for interval alpha), ``metric`` the
    ``(values, ends)`` of the value-based difference functions, and ``rows`` None, or with a
    ``reference`` the number of rows and columns of ``ratings``: the two matrices are coded as one
    (:func:`_with_reference`), their rows one below the other."""
    check_categories_order(ratings, categories)
    if categories is None and scale == "ordinal" and isinstance(ratings, pd.DataFrame):
        dtypes = set(ratings.dtypes)
        only = dtypes.pop() if len(dtypes) == 1 else None
        if isinstance(only, pd.CategoricalDtype) and only.ordered:
            categories = only  # an ordered categorical carries the order of its categories
    arr = as_rating_matrix(ratings)
    rows = None
    if reference is not None:
        check_categories_order(reference, categories, name="reference")
        rows = arr.shape
        arr = _with_reference(arr, as_rating_matrix(reference, name="reference"))
    codes, x, n_values, metric = _coded(arr, scale, categories, "`ratings`" if rows is None else
                                        "`ratings` or `reference`")
    return codes, x, n_values, metric, rows


def _with_reference(arr, ref):
    """``arr`` above ``ref`` in one matrix, the narrower padded with missing cells, so that both are
    coded alike: the same distinct values (and order), the same ends of a circular or bipolar
    scale, the same power-of-two rescaling of extreme numbers (D_o and D_e in one unit)."""
    kinds = arr.dtype.kind + ref.dtype.kind
    if arr.shape[1] == ref.shape[1] and (arr.dtype.kind == ref.dtype.kind or set(kinds) <= set("biuf")):
        return np.concatenate([arr, ref])
    numbers = set(kinds) <= set("biuf")
    out = np.full((len(arr) + len(ref), max(arr.shape[1], ref.shape[1])), np.nan if numbers else None,
                  dtype=float if numbers else object)
    out[:len(arr), :arr.shape[1]] = arr
    out[len(arr):, :ref.shape[1]] = ref
    return out


def _coded(arr, scale, categories, who):
    if arr.dtype.kind == "f" and _has_infinite(arr):  # as ICC and Fleiss' kappa, for every scale
        n_inf = int(np.isinf(arr).sum())
        raise ValueError(f"{who} must hold finite values; got {n_inf} infinite value(s).")
    if scale in ("circular", "bipolar") or callable(scale):
        codes, values, ends = _metric_values(arr, scale, categories, who)
        return codes, None, len(values), (values, ends)
    if categories is not None:
        if scale not in ("nominal", "ordinal"):
            raise ValueError(
                f"`categories` fixes the order of ordinal (or the set of nominal) categories; it cannot be "
                f"used with scale={scale!r}."
            )
        categories = _category_list(categories)
        lookup = {v: i for i, v in enumerate(categories)}
        codes, uniques = factorize_ratings(arr)
        unknown = [u for u in uniques.tolist() if u not in lookup]
        if unknown:
            raise ValueError(
                f"{who} holds value(s) {unknown[:5]!r} that are not in `categories` {categories!r}."
            )
        # -1 appended: a slot for missing codes, so that an all-missing matrix indexes something
        position = np.array([lookup[u] for u in uniques.tolist()] + [-1], dtype=np.int64)
        codes = position[codes]
        return codes, None, len(categories), None
    if scale in ("interval", "ratio"):
        x = as_numeric_matrix(arr)
        if scale == "ratio" and (x < 0).any():
            raise ValueError(f"{who} must be non-negative for scale='ratio'; got negative values.")
        x = unit_scaled(x)[0]  # scale invariant: extreme magnitudes rescaled
        if scale == "interval":
            return None, x, None, None
        codes, values = factorize_ratings(x)
        return codes, x, len(values), (values.astype(float), None)
    if scale == "ordinal" and arr.dtype.kind not in "biuf":
        kind = pd.api.types.infer_dtype(arr[~missing_mask(arr)], skipna=True)
        if kind not in ("integer", "floating", "mixed-integer-float", "boolean", "empty"):
            raise ValueError(
                f"scale='ordinal' with non-numeric ratings (kind {kind!r}) needs `categories` to give "
                "the order of the categories, e.g. categories=['low', 'mid', 'high']."
            )
    codes, uniques = factorize_ratings(arr)
    if scale == "nominal":
        check_labels(uniques, arr.size, use="krippendorff_alpha(scale='interval') or icc()")
    return codes, None, len(uniques), None


def _has_infinite(arr):
    """Whether a float array holds an infinite value: two reductions that skip NaN, no (objects x
    raters) mask (``np.isinf(arr).any()`` was 0.125x the input at its peak, issue 33)."""
    if not arr.size:
        return False
    return bool(np.fmax.reduce(arr, axis=None) == np.inf or np.fmin.reduce(arr, axis=None) == -np.inf)


def _metric_values(arr, scale, categories, who):
    """Codes and values of ``arr`` for Krippendorff's circular and bipolar metrics (numbers; the
    scale's ends from ``categories`` when given, else the observed range) or a user's difference
    function (any values). Returns ``(codes, values, ends)``."""
    if callable(scale):
        if categories is not None:
            raise ValueError("`categories` cannot be used with a difference function `scale`: the function "
                             "sees the values themselves.")
        codes, values = factorize_ratings(arr)
        return codes, values, None
    x = as_numeric_matrix(arr)
    codes, values = factorize_ratings(x)
    values = values.astype(float)
    if categories is None:
        ends = (float(values.min()), float(values.max())) if values.size else (0.0, 0.0)
    else:
        ends_of = np.asarray(_category_list(categories), dtype=float)
        ends = (float(ends_of.min()), float(ends_of.max()))
        if values.size and (values.min() < ends[0] or values.max() > ends[1]):
            raise ValueError(f"{who} holds values outside the scale [{ends[0]:g}, {ends[1]:g}] that "
                             f"`categories` gives for scale={scale!r}.")
    return codes, values, ends


def _metric_delta(scale, values, ends):
    r"""delta^2 of every pair of distinct values: Krippendorff's (2011) circular
    :math:`\sin^2(\pi (c - k) / U)` (U = max - min + 1, the values on the circle) and bipolar
    :math:`(c - k)^2 / ((c + k - 2 v_{min})(2 v_{max} - c - k))`, or a user's function."""
    if callable(scale):
        delta = np.asarray(scale(values[:, None], values[None, :]), dtype=float)
        n = len(values)
        if delta.shape != (n, n) or not np.isfinite(delta).all() or (delta < 0).any():
            raise ValueError(f"`scale`, a difference function, must return finite non-negative squared "
                             f"differences of shape ({n}, {n}) for the {n} distinct values; got "
                             f"{delta.shape if delta.shape != (n, n) else 'negative or non-finite ones'}.")
        if np.diag(delta).any() or not np.allclose(delta, delta.T, rtol=1e-12, atol=0):
            raise ValueError("`scale`, a difference function, must give 0 for equal values and the same "
                             "difference for (c, k) and (k, c).")
        return delta
    low, high = ends
    if scale == "circular":
        return np.sin(np.pi * (values[:, None] - values[None, :]) / (high - low + 1.0)) ** 2
    # bipolar is scale invariant, its products are not: (c - k)^2 overflows from |c| ~ 1e154 (and
    # underflows below 1e-154); the ends bound every value, so scaling by a power of two brings all
    # into the safe range (exact: the same delta for data already there)
    shift = scaling_shift(np.array([low, high]))
    values, low, high = np.ldexp(values, shift), np.ldexp(low, shift), np.ldexp(high, shift)
    diff = values[:, None] - values[None, :]
    total = values[:, None] + values[None, :]
    denominator = (total - 2.0 * low) * (2.0 * high - total)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(denominator > 0, diff * diff / denominator, 0.0)  # 0 / 0 only where c = k


def _category_list(categories):
    """``categories`` (a sequence or a ``pd.CategoricalDtype``) as a list of distinct categories."""
    if not isinstance(categories, pd.CategoricalDtype) and np.ndim(categories) != 1:
        raise InvalidParameterError(f"`categories` must be a 1-D sequence of categories; got {categories!r}.")
    categories = list(categories.categories if isinstance(categories, pd.CategoricalDtype) else categories)
    if len(categories) == 0 or len(set(categories)) != len(categories):
        raise InvalidParameterError(f"`categories` must list distinct categories; got {categories!r}.")
    return categories


def _table_error(n_distinct, scale, nbytes):
    return MemoryError(
        f"scale={scale!r} needs a {n_distinct} x {n_distinct} table of distinct values "
        f"({nbytes / 2**20:.0f} MiB, several times over), above "
        "predstab.agreement._krippendorff.MAX_TABLE_BYTES "
        f"({MAX_TABLE_BYTES / 2**20:.0f} MiB). Round or bin the ratings to fewer distinct values, use "
        "scale='interval' (which needs no such table), or raise MAX_TABLE_BYTES."
    )


def _unit_counts(codes, n_values):
    """Pairable units x values counts n_uv (dense when small, else sparse CSR) and m_u."""
    n_rep = codes.shape[1]
    if codes.min() >= 0:  # complete data: every unit is pairable
        m_u = np.full(codes.shape[0], n_rep)
        if codes.shape[0] * n_values * 8 <= MAX_TABLE_BYTES:
            flat = (codes + (np.arange(codes.shape[0]) * n_values)[:, None]).ravel()
            counts = np.bincount(flat, minlength=codes.shape[0] * n_values)
            return counts.reshape(codes.shape[0], n_values).astype(float), m_u
        rows = np.repeat(np.arange(codes.shape[0]), n_rep)
        flat_codes = codes.ravel()
    else:
        present = codes >= 0
        m_u = np.count_nonzero(present, axis=1)
        pairable = m_u >= 2
        codes, m_u, present = codes[pairable], m_u[pairable], present[pairable]
        keep = present.ravel()
        rows = np.repeat(np.arange(codes.shape[0]), n_rep)[keep]
        flat_codes = codes.ravel()[keep]
    n_units = len(m_u)
    if n_units * n_values * 8 <= MAX_TABLE_BYTES:
        counts = np.bincount(rows * n_values + flat_codes, minlength=n_units * n_values)
        counts = counts.reshape(n_units, n_values).astype(float)
    else:
        counts = sparse.csr_matrix((np.ones(len(flat_codes)), (rows, flat_codes)),
                                   shape=(n_units, n_values))
        counts.sum_duplicates()
    return counts, m_u


def _coincidences(counts, m_u):
    """Coincidence matrix o_ck = sum_u (n_uc n_uk - [c = k] n_uc) / (m_u - 1) (V x V)."""
    w = 1.0 / (m_u - 1)
    if sparse.issparse(counts):
        weighted = sparse.diags(w) @ counts
        o = (counts.T @ weighted).toarray()
        n_c = np.asarray(weighted.sum(axis=0)).ravel()
    else:
        weighted = counts * w[:, None]
        o = counts.T @ weighted
        n_c = weighted.sum(axis=0)  # (vector @ matrix is a slow path in numpy for tall matrices)
    o[np.diag_indices_from(o)] -= n_c
    return o


def _agreement_disagreements(within, n, expected_pairs):
    """``D_o`` and ``D_e`` of alpha under agreement weights :math:`w` (:math:`\\delta = 1 - w`;
    nominal data: :math:`w = I`), the one formula of the nominal, the weighted and the stacked paths.

    ``within`` is :math:`\\sum_u (m_u^2 - \\sum_c n_{uc} n^\\star_{uc}) / (m_u - 1)` over the pairable
    units (:math:`n^\\star = w n`, the weighted counts: off-diagonal coincidences of unit u, an
    exact zero for a unanimous unit), ``n`` the number of pairable values and ``expected_pairs``
    :math:`\\sum_{ck} w_{ck} n_c n_k`: :math:`D_o` = ``within`` / n and
    :math:`D_e = (n^2 - \\sum_{ck} w_{ck} n_c n_k) / (n (n - 1))`. Scalars, or one per item.
    """
    return within / n, (n * n - expected_pairs) / (n * (n - 1))


def _nominal(codes, n_values):
    counts, m_u = _unit_counts(codes, n_values)
    if sparse.issparse(counts):
        sum_sq = np.asarray(counts.multiply(counts).sum(axis=1)).ravel()
        n_c = np.asarray(counts.sum(axis=0)).ravel()
    else:
        sum_sq = np.einsum("uv,uv->u", counts, counts)
        n_c = counts.sum(axis=0)
    n = float(m_u.sum())
    m_u = m_u.astype(float)
    d_o, d_e = _agreement_disagreements(float(np.sum((m_u * m_u - sum_sq) / (m_u - 1))), n, float(n_c @ n_c))
    return d_o, d_e, len(m_u), n


def _from_coincidences(codes, n_values, scale, values=None, ends=None, reference=None):
    """D_o and D_e from the coincidence matrix of the distinct values and their differences (ordinal,
    ratio, circular, bipolar and a user's difference function), and the pairable units and values.

    With ``reference`` (codes into the same values) D_e is the reference's, and so are the value
    frequencies :math:`n_g` the ordinal difference is computed from: one scale for D_o and D_e.
    """
    nbytes = 8 * n_values * n_values
    if 4 * nbytes > MAX_TABLE_BYTES:
        raise _table_error(n_values, scale, nbytes)
    counts, m_u = _unit_counts(codes, n_values)
    o = _coincidences(counts, m_u)
    n_o = float(m_u.sum())
    if reference is None:
        n_c, n = o.sum(axis=1), n_o
    else:
        ref_counts, ref_m_u = _unit_counts(reference, n_values)
        n_c, n = np.asarray(ref_counts.sum(axis=0), dtype=float).ravel(), float(ref_m_u.sum())
    if scale == "ordinal":
        # delta_ck = (sum_{g=c}^{k} n_g - (n_c + n_k) / 2)^2 from cumulative sums
        cum = np.concatenate(([0.0], np.cumsum(n_c)))
        idx = np.arange(n_values)
        span = cum[idx[None, :] + 1] - cum[idx[:, None]]
        delta = (span - (n_c[:, None] + n_c[None, :]) / 2) ** 2
        np.fill_diagonal(delta, 0.0)
        lower = np.tril_indices(n_values, -1)
        delta[lower] = delta.T[lower]
    elif scale == "ratio":
        with np.errstate(divide="ignore", invalid="ignore"):
            total = values[:, None] + values[None, :]
            delta = np.where(total > 0, ((values[:, None] - values[None, :]) / total) ** 2, 0.0)
    else:  # circular, bipolar or a user's difference function
        delta = _metric_delta(scale, values, ends)
    d_o = float(np.einsum("ck,ck->", o, delta)) / n_o
    d_e = float(n_c @ delta @ n_c) / (n * (n - 1))
    return d_o, d_e, len(m_u), n_o


_CHUNK_ROWS = 8192  # rows per block: keeps the temporaries of _interval in cache


def _interval(x):
    """D_o and D_e of interval alpha from variances, linear in the data, no table at all.

    One pass over row blocks: per block the within-unit sum of squares and the
    block's mean and sum of squares, merged with Chan et al.'s pairwise update.
    """
    n_rep = x.shape[1]
    ones = np.ones(n_rep)
    n_units = 0
    n = 0.0
    weighted_ss_u = 0.0  # sum_u m_u SS_u / (m_u - 1)
    mean = ss_total = largest = 0.0
    # one buffer of deviations for every block (a new one per block held two at once: the previous
    # block's until the assignment, 0.16x the input's size at 1e5 x 100)
    buffer = np.empty((min(_CHUNK_ROWS, x.shape[0]), n_rep))
    for start in range(0, x.shape[0], _CHUNK_ROWS):
        block = x[start:start + _CHUNK_ROWS]
        row_sums = block @ ones
        present = None  # a block without missing values (its row sums tell) needs no mask
        if not np.isnan(row_sums).any():
            m_u = np.full(block.shape[0], float(n_rep))
            filled = block
        else:
            present = ~np.isnan(block)
            m_u = np.count_nonzero(present, axis=1).astype(float)
            pairable = m_u >= 2
            present = present[pairable]
            m_u = m_u[pairable]
            filled = np.where(present, block[pairable], 0.0)
        if m_u.size == 0:
            continue
        n_b = float(m_u.sum())
        mean_u = (row_sums if present is None else filled @ ones) / m_u
        dev = np.subtract(filled, mean_u[:, None], out=buffer[:filled.shape[0]])
        if present is not None:
            dev[~present] = 0.0
        ss_u = np.einsum("uj,uj->u", dev, dev)
        weighted_ss_u += float((m_u / (m_u - 1.0)) @ ss_u)
        # a bound on the largest magnitude without another pass: |x| <= |unit mean| + sqrt(SS_u)
        # (it only sets the rounding threshold below, past which the data are checked exactly)
        largest = max(largest, float(np.max(np.abs(mean_u) + np.sqrt(ss_u))))
        mean_b = float(mean_u @ m_u) / n_b
        np.subtract(filled, mean_b, out=dev)
        if present is not None:
            dev[~present] = 0.0
        ss_b = float(np.einsum("uj,uj->", dev, dev))
        delta = mean_b - mean
        ss_total += ss_b + delta * delta * n * n_b / (n + n_b)
        mean += delta * n_b / (n + n_b)
        n += n_b
        n_units += m_u.size
    # the rounding of equal values' mean leaves sums of squares of about n (eps x)^2: 0.1 x 30
    # gave 5.8e-34 and 3.6e-33, hence alpha 0.84 instead of 1
    rounding = n * (8.0 * np.finfo(float).eps * largest) ** 2
    if weighted_ss_u < 1e-20 * ss_total or ss_total <= rounding:
        # possibly all units unanimous (or all values equal): decide exactly, not from rounding
        present = ~np.isnan(x)
        first = x[np.arange(x.shape[0]), np.argmax(present, axis=1)]
        if ((x == first[:, None]) | ~present).all():
            weighted_ss_u = 0.0
            values = x[present]
            if (values == values[0]).all():
                ss_total = 0.0
    # sum over ordered pairs within a unit of (c - k)^2 = 2 m_u SS_u; over all pairable values: 2 n SS
    d_o = 2.0 * weighted_ss_u / n
    d_e = 2.0 * ss_total / (n - 1)
    return d_o, d_e, n_units, n


@agreement_doc
@validate_params({"ratings": ["array-like"], "scale": [Options(_SCALES), "callable"],
                  "categories": [None, "array-like", pd.CategoricalDtype], "weights": WEIGHTS_CONSTRAINT,
                  "counts": ["boolean"], "confidence_level": [Interval(Real, 0, 1, closed="neither"), None],
                  "reference": [None, "array-like"]},
                 renamed={"level": "scale", "levels": "categories"})
def krippendorff_alpha(ratings, /, *, scale="nominal", categories=None, weights=None, counts=False,
                       confidence_level=None, reference=None):
    r"""Krippendorff's alpha-reliability of an (objects x replicates) matrix.

    Krippendorff's (2011) canonical definition. Missing values (None, NaN, pd.NA)
    are allowed; units (objects) with fewer than two values are not pairable and
    are left out. Note the orientation: rows are objects (units) and columns are
    replicates (coders, refits), whereas ``irr::kripp.alpha`` takes raters in rows.

    .. math::

        \alpha = 1 - \frac{D_o}{D_e},\quad
        D_o = \frac{1}{n}\sum_c\sum_k o_{ck}\,\delta^2_{ck},\quad
        D_e = \frac{1}{n(n-1)}\sum_c\sum_k n_c n_k\,\delta^2_{ck},\quad
        o_{ck} = \sum_u \frac{\#\{(c,k) \text{ pairs in unit } u\}}{m_u - 1}

    with :math:`\delta^2` the nominal (0/1), ordinal (ranks from the marginal
    counts :math:`n_g`), interval :math:`(c-k)^2` or ratio
    :math:`((c-k)/(c+k))^2` difference, or :math:`1 - w_{ck}` for agreement weights
    ``weights``. Interval alpha is computed from variances
    (:math:`\sum_{i \ne j}(x_i - x_j)^2 = 2 m\,SS`), in time and memory linear in
    the data; nominal and weighted alpha from per-unit value counts; ordinal and ratio alpha
    from the coincidence matrix of distinct values, which must fit
    ``predstab.agreement._krippendorff.MAX_TABLE_BYTES`` (512 MiB) or a ``MemoryError``
    explains what to do.

    Equals ``irr::kripp.alpha`` when the data have a missing value or 2 raters.
    On complete data with more than 2 raters irr 0.84.1/0.85 does not divide the
    coincidences by :math:`m_u - 1`, which amounts to replacing :math:`n - 1` by
    :math:`n - 1/(m-1)`; predstab follows the definition (see validation/).

    With ``weights`` or ``counts`` it matches ``irrCAC::krippen.alpha.raw`` / ``.dist``: Gwet's
    form :math:`(p_a - p_e) / (1 - p_e)` is this alpha with :math:`\delta = 1 - w`
    (:math:`1 - p_a = (1 - 1/n) D_o`, :math:`1 - p_e = (1 - 1/n) D_e`), computed by the same
    engine; irrCAC adds
    %(cac_inference)s
    Quadratic weights over the observed values give interval alpha, and ratio weights
    ratio alpha (the difference functions are proportional), unweighted nominal alpha.

    Parameters
    ----------
    ratings : array-like of shape (n_objects, n_replicates)
        Values, objects (units) in rows and replicates (coders) in columns. Numbers
        for interval and ratio data (non-negative for ratio); numbers, strings or
        booleans for nominal and ordinal data.
        %(stack)s
    scale : {"nominal", "ordinal", "interval", "ratio", "circular", "bipolar"} or callable, default "nominal"
        Level of measurement (difference function). "circular" and "bipolar" are
        Krippendorff's (2011) metrics for numbers: :math:`\delta^2_{ck} = \sin^2(\pi(c-k)/U)`
        with :math:`U = v_{max} - v_{min} + 1` (the points on the circle, e.g. 7 for days of
        the week) and :math:`\delta^2_{ck} = (c-k)^2 / ((c+k-2v_{min})(2v_{max}-c-k))`, with
        :math:`v_{min}, v_{max}` the ends of the scale: ``categories`` (numbers) when given,
        else the smallest and largest value observed (with ``reference``, in either). Bipolar
        alpha is scale invariant (extreme magnitudes are rescaled); circular alpha is not
        (:math:`U` counts points). irrCAC's ``circular.weights`` and ``bipolar.weights`` are
        :math:`w_{ck} = 1 - \delta^2_{ck} / \max \delta^2` over its categories (the observed
        values, or ``categ.labels``; ranks :math:`1..q` for labels), and alpha does not change
        when :math:`\delta^2` is multiplied by a constant: ``weights="circular"`` (or
        ``"bipolar"``) with the same ``categories`` gives this alpha, with Gwet's standard
        error; without ``categories`` both take the observed range. A
        callable ``scale(c, k)`` is a difference function: given two broadcastable arrays of
        values it returns :math:`\delta^2_{ck}` (0 for equal values, symmetric, finite, non-negative),
        as fast-krippendorff's ``level_of_measurement`` callables do.
    categories : sequence or pandas.CategoricalDtype, optional
        The points of the scale for ``scale="circular"`` or "bipolar" (their smallest and
        largest give the ends); the ordered categories for ``scale="ordinal"`` (required when the categories
        are not numbers, unless ``ratings`` is a DataFrame whose columns share one
        ordered categorical dtype); with ``"nominal"`` the set of allowed categories.
        Every value must be one of them. Categories in ``categories`` that are never used
        do not change alpha. With ``weights``: irrCAC's ``categ.labels``, the categories the
        weights refer to.
    weights, counts : optional
        Given weights (None by default; any of ``predstab.gwet_ac1``'s, ``"unweighted"``
        included; ``scale`` must then stay "nominal") or ``counts=True`` (an objects x
        categories count table, whole or weighted counts), irrCAC's ``krippen.alpha.raw`` /
        ``.dist`` is computed, with Gwet's standard error, confidence interval and p-value
        (``.dist``'s linearisation differs from ``.raw``'s: the same alpha, another standard
        error; each matches its R function). An asymmetric weight matrix is accepted, as
        irrCAC accepts it: alpha depends only on its symmetric part :math:`(W + W^\top)/2`,
        which is used (and reported as ``.weight_matrix``).
    confidence_level : float, optional
        Level of that ``.confidence_interval`` (irrCAC's ``conflev``; 0.95 when
        None). Only with ``weights`` or ``counts=True``.
    reference : array-like of shape (n_reference_objects, n_reference_replicates), optional
        The reliability data the expected disagreement :math:`D_e` is taken from, e.g. all
        the units when ``ratings`` is a subsample of them (a coder's units, a period, a
        category of items): :math:`D_o` is that of ``ratings``, :math:`D_e` that of
        ``reference``'s pairable values (:math:`n` and :math:`n_c` in the formula above are
        the reference's), so that subsamples are measured against one chance baseline
        (fast-krippendorff issue #35: its ``alpha`` computes the random coincidences from the
        data given; predstab equals fast-krippendorff 0.9.0's coincidences of the subsample
        over its distances and random coincidences of all the data, each divided by its
        total). Both matrices are coded together: one set of values (ordered by
        ``categories`` when given), one pair of ends for circular and bipolar data, one
        rescaling of extreme numbers. For ordinal data the differences come from the
        reference's value frequencies :math:`n_g`, in :math:`D_o` as in :math:`D_e` (the
        ranks are a property of the whole data; a subsample's own frequencies would give its
        :math:`D_o` another scale than :math:`D_e`). ``reference=ratings`` gives the plain
        alpha. Not with ``weights`` or ``counts``.

    Returns
    -------
    KrippendorffAlphaResult
        ``.value``, ``.observed`` (:math:`D_o`), ``.expected`` (:math:`D_e`),
        ``.n_units``, ``.n_values``; with ``weights`` or ``counts`` also ``.standard_error``,
        ``.confidence_interval``, ``.pvalue``, irrCAC's ``.pa`` and ``.pe`` and ``.weight_matrix``.

    Warns
    -----
    PredstabDegenerateWarning
        When all pairable values are equal (:math:`D_o = D_e = 0`): alpha is 1.
    PredstabUndefinedWarning
        When :math:`D_e = 0` but :math:`D_o > 0` (cannot happen with complete
        pairs) or there is no pairable unit: NaN.

    Raises
    ------
    MemoryError
        For ordinal or ratio data with so many distinct values that the values x
        values table exceeds ``MAX_TABLE_BYTES``.

    References
    ----------
    .. [1] Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability.
       Annenberg School for Communication, University of Pennsylvania.
       https://repository.upenn.edu/asc_papers/43
    .. [2] Hayes, A. F. & Krippendorff, K. (2007). Answering the call for a standard
       reliability measure for coding data. Communication Methods and Measures 1(1),
       77-89. https://doi.org/10.1080/19312450709336664
    .. [3] Gwet, K. L. (2014). Handbook of Inter-Rater Reliability, 4th ed. Advanced
       Analytics, Gaithersburg, MD.

    Examples
    --------
    Krippendorff's (2011) worked example: 4 observers x 12 units, transposed to
    units in rows.

    >>> import numpy as np
    >>> from predstab import krippendorff_alpha
    >>> nan = np.nan
    >>> observers = np.array([
    ...     [1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
    ...     [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
    ...     [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan],
    ...     [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan]])
    >>> [round(krippendorff_alpha(observers.T, scale=s).value, 3)
    ...  for s in ("nominal", "ordinal", "interval", "ratio")]
    [0.743, 0.815, 0.849, 0.797]
    >>> round(krippendorff_alpha(observers.T, weights="quadratic").value, 3)  # interval alpha
    0.849
    """
    if is_stack(ratings):  # (..., n_objects, n_raters): a result of arrays (predstab._core._stack)
        options = dict(scale=scale, categories=categories, weights=weights, counts=counts,
                       confidence_level=confidence_level, reference=reference)
        if (categories is None and weights is None and counts is False and confidence_level is None
                and reference is None and scale in ("nominal", "interval")):
            return vectorised_apply(functools.partial(_krippendorff_core, scale), krippendorff_alpha,
                                    ratings, cls=KrippendorffAlphaResult,
                                    **options)
        return stack_apply(krippendorff_alpha, ratings, name="ratings",
                           **options)
    if weights is not None or counts is not False:
        if reference is not None:
            raise ValueError("`reference` (the data of the expected disagreement) applies to Krippendorff's "
                             "alpha without `weights` or `counts` (irrCAC's inference assumes one data set).")
        return _irrcac_alpha(ratings, weights=weights, counts=counts, scale=scale, categories=categories,
                             confidence_level=0.95 if confidence_level is None else confidence_level)
    if confidence_level is not None:
        raise ValueError(f"`confidence_level` applies to irrCAC's alpha, with `weights` or counts=True "
                         f"(Krippendorff's alpha has no interval); got {confidence_level!r} without them.")
    codes, x, n_values, metric, rows = _krippendorff_alpha_iv(ratings, scale, categories, reference)
    name = scale if isinstance(scale, str) else "custom"  # a user's difference function
    data = x if codes is None else codes
    ref = None
    if rows is not None:  # ratings above reference, coded as one: take them apart
        data, ref = data[:rows[0], :rows[1]], data[rows[0]:]
        ref_present = ~np.isnan(ref) if codes is None else ref >= 0
        if not (np.count_nonzero(ref_present, axis=1) >= 2).any():
            raise ValueError("`reference` must have a unit (row) with two or more values, for the expected "
                             "disagreement; it has none.")
    if _missing_and_unpairable(data, numeric=codes is None):
        _warn_no_pairable_unit()
        return KrippendorffAlphaResult(value=float("nan"), observed=float("nan"), expected=float("nan"),
                                       scale=name, n_units=0, n_values=0, n_objects=data.shape[0],
                                       n_raters=data.shape[1])
    if scale == "nominal":
        d_o, d_e, n_units, n = _nominal(data, n_values)
        if ref is not None:
            d_e = _nominal(ref, n_values)[1]
    elif scale == "interval":
        d_o, d_e, n_units, n = _interval(data)
        if ref is not None:
            d_e = _interval(ref)[1]
    elif scale == "ordinal" or metric is not None:  # ratio, circular, bipolar or a difference function
        d_o, d_e, n_units, n = _from_coincidences(data, n_values, scale, *(metric or (None, None)),
                                                  reference=ref)
    else:
        raise ValueError(f"`scale` must be one of {', '.join(map(repr, _SCALES))}; got {scale!r}.")
    value = convention_ratio(d_o, d_e, name="Krippendorff's alpha")
    return KrippendorffAlphaResult(value=value, observed=float(d_o), expected=float(d_e), scale=name,
                                   n_units=int(n_units), n_values=int(n), n_objects=data.shape[0],
                                   n_raters=data.shape[1])


def _missing_and_unpairable(data, *, numeric):
    """Whether ``data`` has a missing value and no unit with two values (numbers: NaN missing;
    codes: -1), block by block of ``_CHUNK_ROWS`` units: a mask of the whole matrix was 0.125x the
    input alive through the computation (issue 33). Stops at the first pairable unit."""
    missing = False
    for start in range(0, data.shape[0], _CHUNK_ROWS):
        block = data[start:start + _CHUNK_ROWS]
        present = ~np.isnan(block) if numeric else block >= 0
        if (np.count_nonzero(present, axis=1) >= 2).any():
            return False
        missing = missing or not present.all()
    return missing


def _warn_no_pairable_unit():
    warn_outside("No unit (object) has two or more values; Krippendorff's alpha is undefined and set to nan.",
                 PredstabUndefinedWarning)


# --------------------------------------------------------------------------- irrCAC's weighted alpha
def _irrcac_alpha(ratings, *, weights, counts, scale, categories, confidence_level):
    r"""``krippendorff_alpha(..., weights=..., counts=...)``: alpha with :math:`\delta = 1 - w` from the
    (categories x objects) count table of irrCAC's reader, and irrCAC 1.0's inference."""
    if scale != "nominal":
        raise ValueError(f"`scale` must be 'nominal' (the default) when `weights` are given: the weights "
                         f"replace the level of measurement (irrCAC's krippen.alpha.raw); got {scale!r}.")
    if isinstance(categories, pd.CategoricalDtype):
        categories = list(categories.categories)
    ct = read_count_table(ratings, counts=counts, categories=categories, weights=weights)
    table, w = ct.table, ct.weight_matrix
    r_i = np.broadcast_to(ct.r_i, table.shape[1])
    pairable = r_i >= 2
    if not pairable.all():
        table, r_i = table[:, pairable], r_i[pairable]
    n_units = table.shape[1]
    nan = float("nan")
    common = dict(scale="nominal", n_objects=int(ct.table.shape[1]), n_raters=int(ct.n_raters),
                  confidence_level=float(confidence_level), weights=ct.weights, categories=ct.categories,
                  weight_matrix=w, _function=r_function("krippendorff", counts))
    if n_units == 0:
        _warn_no_pairable_unit()
        return KrippendorffAlphaResult(value=nan, observed=nan, expected=nan, n_units=0, n_values=0,
                                       standard_error=nan, confidence_interval=ConfidenceInterval(nan, nan),
                                       df=-1, pvalue=nan, pa=nan, pe=nan, **common)
    m_u = r_i.astype(float)
    n = float(m_u.sum())
    n_c = table.sum(axis=1).astype(float)
    within = float(np.sum((m_u * m_u - pair_sums(table, w)) / (m_u - 1)))
    d_o, d_e = _agreement_disagreements(within, n, float(n_c @ w @ n_c))
    value = convention_ratio(d_o, d_e, name="Krippendorff's alpha")
    pa, pe, var = gwet_variance(table, r_i, w, dist=bool(counts))
    inferred = inference(value, var, n_units - 1, confidence_level)
    return KrippendorffAlphaResult(
        value=value, observed=float(d_o), expected=float(d_e), n_units=n_units, n_values=int(n),
        standard_error=inferred.standard_error, confidence_interval=inferred.confidence_interval,
        df=n_units - 1, pvalue=inferred.pvalue, pa=pa, pe=pe, **common)


# --------------------------------------------------------------------------- stacks of matrices
def _krippendorff_core(scale, items):
    """The fields of :func:`krippendorff_alpha` of complete items (n_items, n, m) (nominal, interval).

    Nominal: small integer codes, counted by :func:`predstab._core._stack.count_tables`; interval:
    finite numbers in the safe range of magnitudes, from variances. With every cell present,
    every unit is pairable with ``m`` values, so that (``n = N m`` pairable values)
    ``D_o = sum_u (m^2 - sum_c n_uc^2) / ((m - 1) n)`` and ``D_e = (n^2 - sum_c n_c^2) / (n (n - 1))``
    (nominal), ``D_o = 2 m / (m - 1) sum_u SS_u / n`` and ``D_e = 2 SS / (n - 1)`` (interval).
    None (the items go through the 2-D function) for labels, non-integer nominal values or
    interval values of extreme magnitude.
    """
    arr = items
    n_obj, m = arr.shape[-2:]
    shape = (arr.shape[0],)
    n = float(n_obj * m)
    if scale == "nominal":
        coded = small_integer_codes(arr)
        if coded is None:
            return None
        codes, _ = coded
        sum_sq, totals = count_tables(codes)
        d_o, d_e = _agreement_disagreements((n_obj * m * m - sum_sq) / (m - 1), n,
                                            np.einsum("ij,ij->i", totals, totals).astype(float))

    else:
        if arr.dtype.kind not in "iuf" or n_obj < 1 or m < 2:
            return None
        x = arr.astype(float, copy=False)  # (n_items, n_obj, m)
        magnitude = np.abs(x).max(axis=(1, 2))
        if not np.isfinite(magnitude).all() or np.frexp(magnitude.max())[1] > 100 or (
                (magnitude > 0) & (np.frexp(magnitude)[1] < -100)).any():
            return None  # missing, infinite or extreme values: the 2-D path, item by item
        unit_mean = x @ np.full(m, 1.0 / m)
        within = x - unit_mean[:, :, None]
        ss_u = np.square(within).reshape(len(x), -1) @ np.ones(n_obj * m)
        grand = unit_mean @ np.full(n_obj, 1.0 / n_obj)
        dev = x - grand[:, None, None]
        ss_total = np.square(dev).reshape(len(x), -1) @ np.ones(n_obj * m)
        unanimous = (x == x[:, :, :1]).all(axis=(1, 2))
        ss_u = np.where(unanimous, 0.0, ss_u)
        ss_total = np.where(unanimous & (x[:, :, 0] == x[:, :1, 0]).all(axis=1), 0.0, ss_total)
        d_o = 2.0 * (m / (m - 1.0)) * ss_u / n
        d_e = 2.0 * ss_total / (n - 1)

    caught = ItemWarnings()
    value = one_minus_ratio_items(d_o, d_e, caught, name="Krippendorff's alpha")
    return dict(value=value, observed=d_o, expected=d_e, scale=scale, n_units=np.full(shape, n_obj),
                n_values=np.full(shape, int(n)), n_objects=np.full(shape, n_obj),
                n_raters=np.full(shape, m)), caught
