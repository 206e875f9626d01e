"""Krippendorff's alpha-reliability for nominal, ordinal, interval and ratio data."""

from __future__ import annotations

import functools
import warnings
from numbers import Real

import numpy as np
import pandas as pd
from scipy import sparse

from .._core._convention import one_minus_ratio
from .._core._exceptions import PredstabUndefinedWarning
from .._core._ratings import as_numeric_matrix, as_rating_matrix, factorize_ratings, unit_scaled
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
from .._core._utils import missing_mask
from .._core._validation import Interval, InvalidParameterError, Options, validate_params
from ._weights import WEIGHTS_CONSTRAINT

__all__ = ["krippendorff_alpha", "KrippendorffAlphaResult", "MAX_TABLE_BYTES"]

_LEVELS = ("nominal", "ordinal", "interval", "ratio")

#: Memory budget (bytes) for the values x values tables that ordinal and ratio alpha
#: need (and for the dense units x values count table, above which a sparse one is
#: used). Nominal and interval alpha never build a values x values table.
MAX_TABLE_BYTES = 512 * 2**20


@result
class KrippendorffAlphaResult(Result):
    """Result of :func:`krippendorff_alpha`.

    ``print(res)`` shows irr's layout (``print.irrlist`` of ``kripp.alpha``); ``res.to_frame()``
    is one row (no confidence interval: irr reports none).

    Attributes
    ----------
    value : float
        Krippendorff's alpha, ``1 - observed / expected``.
    observed : float
        Observed disagreement :math:`D_o`.
    expected : float
        Expected disagreement :math:`D_e`.
    level : str
        Level of measurement used.
    n_units : int
        Units (objects) with at least two values (the pairable units).
    n_values : int
        Pairable values :math:`n_{..}`.
    n_objects, n_raters : int
        Shape of the matrix given (irr's ``subjects`` and ``raters``).
    """

    value: float
    observed: float
    expected: float
    level: str
    n_units: int
    n_values: int
    n_objects: int = 0
    n_raters: int = 0

    def _str_lines(self):
        # irr 0.84.1 print.irrlist: names right-aligned to 9 characters, format(x, digits = 3)
        return [" Krippendorff's alpha", "", *r_rows([("Subjects", self.n_objects), ("Raters", self.n_raters),
                                                     ("alpha", r_signif(self.value, 3))])]


def _krippendorff_alpha_iv(ratings, level, levels):
    if levels is None and level == "ordinal" and isinstance(ratings, pd.DataFrame):
        dtypes = set(ratings.dtypes)
        only = dtypes.pop() if len(dtypes) == 1 else None
        if isinstance(only, pd.CategoricalDtype) and only.ordered:
            levels = only  # an ordered categorical carries the order of its categories
    arr = as_rating_matrix(ratings)
    if arr.dtype.kind == "f" and np.isinf(arr).any():  # as ICC and Fleiss' kappa, for every level
        n_inf = int(np.isinf(arr).sum())
        raise ValueError(f"`ratings` must hold finite values; got {n_inf} infinite value(s).")
    if levels is not None:
        if level not in ("nominal", "ordinal"):
            raise ValueError(
                f"`levels` fixes the order of ordinal (or the set of nominal) categories; it cannot be "
                f"used with level={level!r}."
            )
        if not isinstance(levels, pd.CategoricalDtype) and np.ndim(levels) != 1:
            raise InvalidParameterError(f"`levels` must be a 1-D sequence of categories; got {levels!r}.")
        levels = list(levels.categories if isinstance(levels, pd.CategoricalDtype) else levels)
        if len(levels) == 0 or len(set(levels)) != len(levels):
            raise InvalidParameterError(f"`levels` must list distinct categories; got {levels!r}.")
        lookup = {v: i for i, v in enumerate(levels)}
        codes, uniques = factorize_ratings(arr)
        unknown = [u for u in uniques.tolist() if u not in lookup]
        if unknown:
            raise ValueError(
                f"`ratings` holds value(s) {unknown[:5]!r} that are not in `levels` {levels!r}."
            )
        # -1 appended: a slot for missing codes, so that an all-missing matrix indexes something
        position = np.array([lookup[u] for u in uniques.tolist()] + [-1], dtype=np.int64)
        codes = position[codes]
        return codes, None, len(levels), level
    if level in ("interval", "ratio"):
        x = as_numeric_matrix(arr)
        if level == "ratio" and (x < 0).any():
            raise ValueError("`ratings` must be non-negative for level='ratio'; got negative values.")
        return None, unit_scaled(x)[0], None, level  # scale invariant: extreme magnitudes rescaled
    if level == "ordinal" and arr.dtype.kind not in "biuf":
        kind = pd.api.types.infer_dtype(arr[~missing_mask(arr)], skipna=True)
        if kind not in ("integer", "floating", "mixed-integer-float", "boolean", "empty"):
            raise ValueError(
                f"level='ordinal' with non-numeric ratings (kind {kind!r}) needs `levels` to give "
                "the order of the categories, e.g. levels=['low', 'mid', 'high']."
            )
    codes, uniques = factorize_ratings(arr)
    return codes, None, len(uniques), level


def _table_error(n_distinct, level, nbytes):
    return MemoryError(
        f"level={level!r} needs a {n_distinct} x {n_distinct} table of distinct values "
        f"({nbytes / 2**20:.0f} MiB, several times over), above "
        "predstab.agreement._krippendorff.MAX_TABLE_BYTES "
        f"({MAX_TABLE_BYTES / 2**20:.0f} MiB). Round or bin the ratings to fewer distinct values, use "
        "level='interval' (which needs no such table), or raise MAX_TABLE_BYTES."
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


def _nominal(codes, n_values):
    counts, m_u = _unit_counts(codes, n_values)
    if sparse.issparse(counts):
        sum_sq = np.asarray(counts.multiply(counts).sum(axis=1)).ravel()
        n_c = np.asarray(counts.sum(axis=0)).ravel()
    else:
        sum_sq = np.einsum("uv,uv->u", counts, counts)
        n_c = counts.sum(axis=0)
    n = float(m_u.sum())
    # off-diagonal coincidences of unit u: (m_u^2 - sum_c n_uc^2) / (m_u - 1), an exact zero
    # for a unanimous unit; D_o = sum_u of that / n, D_e = (n^2 - sum_c n_c^2) / (n (n - 1))
    m_u = m_u.astype(float)
    d_o = float(np.sum((m_u * m_u - sum_sq) / (m_u - 1))) / n
    d_e = (n * n - float(n_c @ n_c)) / (n * (n - 1))
    return d_o, d_e, len(m_u), n


def _ordinal_or_ratio(codes, n_values, level, values=None):
    nbytes = 8 * n_values * n_values
    if 4 * nbytes > MAX_TABLE_BYTES:
        raise _table_error(n_values, level, nbytes)
    counts, m_u = _unit_counts(codes, n_values)
    o = _coincidences(counts, m_u)
    n_c = o.sum(axis=1)
    n = float(m_u.sum())
    if level == "ordinal":
        # delta_ck = (sum_{g=c}^{k} n_g - (n_c + n_k) / 2)^2 from cumulative sums
        cum = np.concatenate(([0.0], np.cumsum(n_c)))
        idx = np.arange(n_values)
        span = cum[idx[None, :] + 1] - cum[idx[:, None]]
        delta = (span - (n_c[:, None] + n_c[None, :]) / 2) ** 2
        np.fill_diagonal(delta, 0.0)
        lower = np.tril_indices(n_values, -1)
        delta[lower] = delta.T[lower]
    elif level == "ratio":
        with np.errstate(divide="ignore", invalid="ignore"):
            total = values[:, None] + values[None, :]
            delta = np.where(total > 0, ((values[:, None] - values[None, :]) / total) ** 2, 0.0)
    else:
        raise ValueError(f"`level` must be 'ordinal' or 'ratio' here; got {level!r}.")
    d_o = float(np.einsum("ck,ck->", o, delta)) / n
    d_e = float(n_c @ delta @ n_c) / (n * (n - 1))
    return d_o, d_e, len(m_u), n


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
    mean = ss_total = 0.0
    for start in range(0, x.shape[0], _CHUNK_ROWS):
        block = x[start:start + _CHUNK_ROWS]
        present = ~np.isnan(block)
        if present.all():
            m_u = np.full(block.shape[0], float(n_rep))
            filled = block
        else:
            m_u = np.count_nonzero(present, axis=1).astype(float)
            pairable = m_u >= 2
            present = present[pairable]
            m_u = m_u[pairable]
            filled = np.where(present, block[pairable], 0.0)
        if m_u.size == 0:
            continue
        n_b = float(m_u.sum())
        mean_u = (filled @ ones) / m_u
        dev = filled - mean_u[:, None]
        dev[~present] = 0.0
        weighted_ss_u += float((m_u / (m_u - 1.0)) @ np.einsum("uj,uj->u", dev, dev))
        mean_b = float(mean_u @ m_u) / n_b
        np.subtract(filled, mean_b, out=dev)
        dev[~present] = 0.0
        ss_b = float(np.einsum("uj,uj->", dev, dev))
        delta = mean_b - mean
        ss_total += ss_b + delta * delta * n * n_b / (n + n_b)
        mean += delta * n_b / (n + n_b)
        n += n_b
        n_units += m_u.size
    if weighted_ss_u < 1e-20 * ss_total or ss_total == 0.0:
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


@validate_params({"ratings": ["array-like"], "level": [Options(_LEVELS)],
                  "levels": [None, "array-like", pd.CategoricalDtype], "weights": WEIGHTS_CONSTRAINT,
                  "counts": ["boolean"], "confidence_level": [Interval(Real, 0, 1, closed="neither"), None]})
def krippendorff_alpha(ratings, /, *, level="nominal", levels=None, weights=None, counts=False,
                       confidence_level=None):
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
    :math:`((c-k)/(c+k))^2` difference. Interval alpha is computed from variances
    (:math:`\sum_{i \ne j}(x_i - x_j)^2 = 2 m\,SS`), in time and memory linear in
    the data; nominal alpha from per-unit value counts; ordinal and ratio alpha
    from the coincidence matrix of distinct values, which must fit
    ``predstab.agreement._krippendorff.MAX_TABLE_BYTES`` (512 MiB) or a ``MemoryError``
    explains what to do.

    Equals ``irr::kripp.alpha`` when the data have a missing value or 2 raters.
    On complete data with more than 2 raters irr 0.84.1/0.85 does not divide the
    coincidences by :math:`m_u - 1`, which amounts to replacing :math:`n - 1` by
    :math:`n - 1/(m-1)`; predstab follows the definition (see validation/).

    Parameters
    ----------
    ratings : array-like of shape (n_objects, n_replicates)
        Values, objects (units) in rows and replicates (coders) in columns. Numbers
        for interval and ratio data (non-negative for ratio); numbers, strings or
        booleans for nominal and ordinal data.
        A stack of shape ``(..., n_objects, n_raters)`` (a Dask array too) gives one result whose
        numbers are arrays of shape ``(...)``, as a loop over the matrices would.
    level : {"nominal", "ordinal", "interval", "ratio"}, default "nominal"
        Level of measurement (difference function).
    levels : sequence or pandas.CategoricalDtype, optional
        The ordered categories for ``level="ordinal"`` (required when the categories
        are not numbers, unless ``ratings`` is a DataFrame whose columns share one
        ordered categorical dtype); with ``"nominal"`` the set of allowed categories.
        Every value must be one of them. Categories in ``levels`` that are never used
        do not change alpha.
    weights, counts : optional
        Given weights (None by default; any of ``predstab.gwet_ac1``'s, ``"unweighted"``
        included; ``level`` must then stay "nominal" and ``levels`` lists the categories)
        or ``counts=True`` (an objects x categories count table), irrCAC's
        ``krippen.alpha.raw`` / ``.dist`` is computed instead, with Gwet's standard
        error, and an ``AgreementCoefficientResult`` is returned.
    confidence_level : float, optional
        Level of that result's ``.confidence_interval`` (irrCAC's ``conflev``; 0.95 when
        None). Only with ``weights`` or ``counts=True``.

    Returns
    -------
    KrippendorffAlphaResult
        ``.value``, ``.observed`` (:math:`D_o`), ``.expected`` (:math:`D_e`),
        ``.n_units``, ``.n_values``.

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
    >>> [round(krippendorff_alpha(observers.T, level=lv).value, 3)
    ...  for lv in ("nominal", "ordinal", "interval", "ratio")]
    [0.743, 0.815, 0.849, 0.797]
    """
    if is_stack(ratings):  # (..., n_objects, n_raters): a result of arrays (predstab._core._stack)
        if (levels is None and weights is None and counts is False and confidence_level is None
                and level in ("nominal", "interval")):
            return vectorised_apply(functools.partial(_krippendorff_core, level), krippendorff_alpha,
                                    ratings, cls=KrippendorffAlphaResult, stacklevel=3, level=level,
                                    levels=levels, weights=weights, counts=counts,
                                    confidence_level=confidence_level)
        return stack_apply(krippendorff_alpha, ratings, name="ratings", stacklevel=3, level=level,
                           levels=levels, weights=weights, counts=counts, confidence_level=confidence_level)
    if weights is not None or counts is not False:  # irrCAC's Krippendorff's alpha (predstab.agreement._cac)
        from ._cac import dispatch_krippendorff
        return dispatch_krippendorff(ratings, weights=weights, counts=counts, level=level, levels=levels,
                                     confidence_level=0.95 if confidence_level is None else confidence_level)
    if confidence_level is not None:
        raise ValueError(f"`confidence_level` applies to irrCAC's alpha, with `weights` or counts=True "
                         f"(Krippendorff's alpha has no interval); got {confidence_level!r} without them.")
    codes, x, n_values, level = _krippendorff_alpha_iv(ratings, level, levels)
    shape = (codes if x is None else x).shape
    present = codes >= 0 if x is None else ~np.isnan(x)
    if not present.all() and not (np.count_nonzero(present, axis=1) >= 2).any():
        warnings.warn("No unit (object) has two or more values; Krippendorff's alpha is undefined "
                      "and set to nan.", PredstabUndefinedWarning,
                      stacklevel=3)  # 3: through the validate_params wrapper
        return KrippendorffAlphaResult(value=float("nan"), observed=float("nan"), expected=float("nan"),
                                       level=level, n_units=0, n_values=0, n_objects=shape[0],
                                       n_raters=shape[1])
    if level == "nominal":
        d_o, d_e, n_units, n = _nominal(codes, n_values)
    elif level == "ordinal":
        d_o, d_e, n_units, n = _ordinal_or_ratio(codes, n_values, level)
    elif level == "interval":
        d_o, d_e, n_units, n = _interval(x)
    elif level == "ratio":
        codes, values = factorize_ratings(x)
        values = values.astype(float)
        d_o, d_e, n_units, n = _ordinal_or_ratio(codes, len(values), level, values)
    else:
        raise ValueError(f"`level` must be one of {', '.join(map(repr, _LEVELS))}; got {level!r}.")
    value = one_minus_ratio(d_o, d_e, name="Krippendorff's alpha", what="disagreement", stacklevel=4)
    return KrippendorffAlphaResult(value=value, observed=float(d_o), expected=float(d_e), level=level,
                                   n_units=int(n_units), n_values=int(n), n_objects=shape[0],
                                   n_raters=shape[1])


# --------------------------------------------------------------------------- stacks of matrices
def _krippendorff_core(level, items):
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
    if level == "nominal":
        coded = small_integer_codes(arr)
        if coded is None:
            return None
        codes, _ = coded
        sum_sq, totals, _ = count_tables(codes)
        d_o = (n_obj * m * m - sum_sq) / (m - 1) / n
        d_e = (n * n - np.einsum("ij,ij->i", totals, totals).astype(float)) / (n * (n - 1))

    else:
        if arr.dtype.kind not in "iuf" or n_obj < 1 or m < 2:
            return None
        x = arr.reshape((arr.shape[0], n_obj, m)).astype(float, copy=False)
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
    return dict(value=value, observed=d_o, expected=d_e, level=level, n_units=np.full(shape, n_obj),
                n_values=np.full(shape, int(n)), n_objects=np.full(shape, n_obj),
                n_raters=np.full(shape, m)), caught
