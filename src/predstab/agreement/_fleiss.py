"""Fleiss' kappa for m raters: irr's ``kappam.fleiss`` (with Conger's exact variant) and irrCAC's
``fleiss.kappa.raw`` / ``.dist`` (weights, count tables, every available rating), one result type."""

from __future__ import annotations

import functools
from numbers import Real

import numpy as np
import pandas as pd
from scipy import sparse

from .._core._convention import one_minus_ratio_array
from .._core._gate import check_labels
from .._core._ratings import as_rating_matrix, categorical_codes, factorize_codes, factorize_values
from .._core._results import Result, r_rows, r_signif, result
from .._core._stack import (
    ItemWarnings,
    count_tables,
    is_stack,
    one_minus_ratio_items,
    small_integer_codes,
    stack_apply,
    used_categories,
    vectorised_apply,
)
from .._core._utils import ConfidenceInterval
from .._core._validation import Interval, validate_params
from ._cac import AgreementNames, TwoDefinitions, compute, conger_chance_agreement, inference, r_function
from ._cac_tables import read_count_table
from ._common import convention_ratio, drop_incomplete, two_sided_p
from ._docstrings import agreement_doc
from ._weights import WEIGHTS_CONSTRAINT

__all__ = ["fleiss_kappa", "FleissKappaResult"]


@result
class FleissKappaResult(TwoDefinitions, AgreementNames, Result):
    """Result of :func:`fleiss_kappa`.

    ``print(res)`` shows irr's layout (``print.irrlist`` of ``kappam.fleiss``), or irrCAC's
    summary with ``weights`` or ``counts``; ``res.to_frame()`` is one row (with ``ci_low`` /
    ``ci_high`` and the standard error on irrCAC's path: irr reports no interval).

    Attributes
    ----------
    value : float
        Fleiss' kappa (Conger's exact kappa when ``exact=True``).
    statistic : float
        Test statistic of ``H0: kappa = 0``: irr's z (Fleiss, Nee & Landis 1979), NaN when
        ``exact=True`` (irr reports no test then); on irrCAC's path
        ``t = value / standard_error``.
    pvalue : float
        Two-sided p-value of ``statistic`` (normal; t on ``df`` degrees of freedom on irrCAC's path).
    observed : float
        Observed agreement :math:`\\bar P` (irrCAC's ``pa``, also ``.pa``).
    expected : float
        Chance agreement :math:`\\bar P_e` (irrCAC's ``pe``, also ``.pe``).
    n_objects, n_raters : int
        Size of the matrix used (after dropping objects with a missing value); on irrCAC's path
        the objects rated at least once and the raters (the largest row total of a count table).
    categories : tuple
        The categories, in the order of ``per_category`` (and of ``weight_matrix``).
    exact : bool
        Whether Conger's exact kappa was computed.
    per_category : pandas.DataFrame or None
        With ``detail=True``: kappa, z and p per category (index: category).
    standard_error, confidence_interval, confidence_level, df : float, ConfidenceInterval, float, int
        irrCAC's ``coeff.se``, ``conf.int`` (upper bound capped at 1), ``conflev`` and the t
        distribution's degrees of freedom, with ``weights`` or ``counts``; None otherwise.
    weights : str or None
        irrCAC's ``w.name`` (a weight family, ``"unweighted"`` or ``"custom"``); None on irr's path.
    weight_matrix : numpy.ndarray of shape (q, q) or None
        The weights used (irrCAC's ``weights``); None on irr's path.
    """

    value: float
    statistic: float
    pvalue: float
    observed: float
    expected: float
    n_objects: int
    n_raters: int
    categories: tuple
    exact: bool
    per_category: pd.DataFrame | None = None
    standard_error: float | None = None
    confidence_interval: ConfidenceInterval | None = None
    confidence_level: float | None = None
    df: int | None = None
    weights: str | None = None
    weight_matrix: np.ndarray | None = None
    _function: str = ""

    _coefficient_name = "Fleiss' Kappa"
    _irr_frame_fields = ("value", "statistic", "pvalue", "observed", "expected", "n_objects", "n_raters",
                         "exact")

    def _irr_lines(self):
        # irr 0.84.1 print.irrlist: names right-aligned to 9 characters, format(x, digits = 3)
        title = " Fleiss' Kappa for m Raters" + (" (exact value)" if self.exact else "")
        lines = [title, "", *r_rows([("Subjects", self.n_objects), ("Raters", self.n_raters),
                                     ("Kappa", r_signif(self.value, 3))])]
        if not self.exact:
            lines += ["", *r_rows([("z", r_signif(self.statistic, 3)),
                                   ("p-value", r_signif(self.pvalue, 3))])]
        if self.per_category is not None:
            table = self.per_category.rename(columns={"kappa": "Kappa", "p": "p.value"})
            table.index.name = None  # irr's table has no header for the categories
            lines += ["", *table.to_string(float_format=lambda v: f"{v:.3f}").splitlines()]
        return lines


def _fleiss_kappa_iv(ratings, exact, detail):
    categorical = categorical_codes(ratings)
    if categorical is not None:  # the Categoricals' own codes: no conversion of the data to objects
        arr = as_rating_matrix(categorical[0])
        arr = drop_incomplete(arr, arr < 0, function="irr::kappam.fleiss")
        codes, categories = factorize_codes(arr, categorical[1])
    else:
        arr = as_rating_matrix(ratings)
        if arr.dtype.kind == "f" and np.isinf(arr).any():
            raise ValueError(f"`ratings` must not hold infinite values; got {int(np.isinf(arr).sum())}.")
        # missing values get code -1: no separate scan for them (slow on objects); the
        # categories are ranked after dropping, so that only the kept objects' values must compare
        codes, uniques = factorize_values(arr)
        check_labels(uniques, arr.size)
        kept = drop_incomplete(codes, codes < 0, function="irr::kappam.fleiss")
        codes, categories = factorize_codes(kept, uniques, all_used=kept is codes)
    return codes, tuple(categories.tolist()), bool(exact), bool(detail)


_BLOCK_CELLS = 1 << 16  # count-table cells (or values) per block of objects: temporaries stay in cache
# Relative cost per object of the three ways to get sum_i n_ij^2, measured with numpy 2.4:
# a dense block of the count table (~3 (m + q)), comparing every pair of raters (~5 m (m - 1) / 2),
# a sparse table (~30 m, sorting included). The cheapest is used; all three count exactly.
_COST_DENSE, _COST_PAIR, _COST_SPARSE = 3, 5, 30


def _category_counts(codes, q):
    """Per rater and category counts (m x q) and per category sum_i n_ij^2 (int64).

    Never an objects x categories table: by blocks of objects, either one bincount of
    ``row * q + code`` per block (few categories), or a bincount of the agreements of
    every pair of raters, since sum_i n_ij^2 = n_j + 2 * #{(i, a < b): both raters chose j}
    (few raters, many categories); or a sparse table when both are many.
    """
    n, m = codes.shape
    rater_offsets = np.arange(m) * q
    costs = {"dense": _COST_DENSE * (m + q), "pairs": _COST_PAIR * m * (m - 1) // 2,
             "sparse": _COST_SPARSE * m}
    method = min(costs, key=costs.get)
    if method == "sparse":
        rater_table = np.bincount((codes + rater_offsets).ravel(), minlength=m * q).reshape(m, q)
        table = sparse.csr_matrix((np.ones(codes.size, dtype=np.int64), (np.repeat(np.arange(n), m),
                                                                         codes.ravel())), shape=(n, q))
        table.sum_duplicates()
        return rater_table, np.asarray(table.multiply(table).sum(axis=0)).ravel()
    elif method == "dense":
        step = max(16, _BLOCK_CELLS // q)
        row_offsets = (np.arange(min(step, n)) * q)[:, None]
    elif method == "pairs":
        step = _BLOCK_CELLS
    else:
        raise ValueError(f"unknown counting method {method!r}")
    by_block = q <= step  # per-block rater counts only while they are smaller than the block
    rater_table = np.zeros(m * q, dtype=np.int64)
    col_sq = np.zeros(q + 1, dtype=np.int64)  # (+ 1: the pairs that disagree land in slot q)
    for start in range(0, n, step):
        block = codes[start:start + step]
        if by_block:
            rater_table += np.bincount((block + rater_offsets).ravel(), minlength=m * q)
        if method == "dense":
            rows = block.shape[0]
            table = np.bincount((block + row_offsets[:rows]).ravel(), minlength=rows * q).reshape(rows, q)
            col_sq[:q] += np.einsum("ij,ij->j", table, table)
        else:
            for a in range(m - 1):
                first = block[:, a]
                for b in range(a + 1, m):
                    col_sq += np.bincount(np.where(first == block[:, b], first, q), minlength=q + 1)
    rater_table = rater_table.reshape(m, q)
    if not by_block:
        rater_table = np.stack([np.bincount(codes[:, j], minlength=q) for j in range(m)])
    if method == "pairs":
        return rater_table, rater_table.sum(axis=0) + 2 * col_sq[:q]
    return rater_table, col_sq[:q]


def _kappa_parts(sum_sq, totals, n, m, q, expected=None):
    """irr's observed and chance agreement and the ``D_o``, ``D_e`` of ``kappa = 1 - D_o / D_e``.

    From :math:`\\sum_{ij} n_{ij}^2` (``sum_sq``) and the category totals of ``n`` complete objects
    rated by ``m`` raters into ``q`` used categories; ``expected`` is Conger's chance agreement
    when given (``exact=True``), else :math:`\\sum_j p_j^2`. Scalars for one matrix, arrays with
    one entry per item for a stack (``totals`` of shape (n_items, Q)): one formula for both.
    ``D_o`` is written from the integer ``sum_sq`` so that it is an exact zero when every
    object is unanimous, and ``D_e`` is an exact zero when a single category is used.
    """
    nm = n * m
    observed = (sum_sq - nm) / (nm * (m - 1))
    if expected is None:
        expected = np.sum(totals.astype(float) ** 2, axis=-1) / nm**2
    d_o = (nm * m - sum_sq) / (nm * (m - 1))
    d_e = np.where(q == 1, 0.0, 1.0 - expected)
    return observed, expected, d_o, d_e


def _z_test(value, p_j, nm, m):
    """The z statistic of ``H0: kappa = 0`` with the variance of Fleiss, Nee & Landis (1979), and
    its two-sided p-value; per item for a stack (``p_j`` of shape (n_items, Q))."""
    pq = p_j * (1 - p_j)
    spq = np.sum(pq, axis=-1)  # numpy: 0 / 0 is NaN (one category), not an exception
    with np.errstate(divide="ignore", invalid="ignore"):
        var0 = 2 / (spq**2 * nm * (m - 1)) * (spq**2 - np.sum(pq * (1 - 2 * p_j), axis=-1))
        statistic = value / np.sqrt(var0)
    return statistic, two_sided_p(statistic)


@agreement_doc
@validate_params({"ratings": ["array-like"], "exact": ["boolean"], "detail": ["boolean"],
                  "weights": WEIGHTS_CONSTRAINT, "counts": ["boolean"],
                  "confidence_level": [Interval(Real, 0, 1, closed="neither"), None]})
def fleiss_kappa(ratings, /, *, exact=False, detail=False, weights=None, counts=False, confidence_level=None):
    r"""Fleiss' kappa for an (objects x raters) matrix of categories.

    Matches `irr::kappam.fleiss`, and `irrCAC::fleiss.kappa.raw` / ``fleiss.kappa.dist`` with
    ``weights`` or ``counts``; see validation/.

    With :math:`n_{ij}` the number of the :math:`m` raters who put object :math:`i`
    (of :math:`N`) in category :math:`j` and :math:`p_j = \sum_i n_{ij} / (N m)`:

    .. math::

        \bar P = \frac{\sum_{ij} n_{ij}^2 - N m}{N m (m-1)},\qquad
        \bar P_e = \sum_j p_j^2,\qquad
        \kappa = 1 - \frac{1 - \bar P}{1 - \bar P_e}

    Conger's exact kappa (``exact=True``) subtracts the between-rater variance of
    the category proportions from :math:`\bar P_e`: it is :func:`~predstab.conger_kappa` of
    the complete objects, and both use the one implementation of that chance agreement. The
    z test uses the standard error under :math:`H_0` of Fleiss, Nee & Landis (1979).

    Two R definitions, one result type: irr's (objects with a missing rating dropped, z test)
    by default, irrCAC's (every available rating used, weights, Gwet's standard error) with
    ``weights`` or ``counts``. On complete data without weights both give the same kappa.

    Parameters
    ----------
    ratings : array-like of shape (n_objects, n_raters)
        Categories (numbers, strings or booleans), objects in rows and raters
        (replicates) in columns. Objects with a missing value are dropped, as irr does.
        A DataFrame of pandas Categoricals with one set of categories is counted from
        its codes, without converting the data.
        %(stack)s
    exact : bool, default False
        Conger's (1980) exact kappa. No z test then (``statistic``/``pvalue`` NaN).
    detail : bool, default False
        Also compute kappa, z and p per category in ``.per_category``. irr rounds
        these to 3 decimals; predstab does not.
    weights, counts : optional
        Given weights (None by default; any of ``predstab.gwet_ac1``'s, ``"unweighted"``
        included) or ``counts=True`` (``ratings`` is an objects x categories count table,
        whole or weighted counts: statsmodels' ``fleiss_kappa(table)`` is this value),
        irrCAC's ``fleiss.kappa.raw`` / ``fleiss.kappa.dist`` is computed instead, every
        available rating used, with
        %(cac_inference)s
        An asymmetric weight matrix is accepted, as irrCAC accepts it: Fleiss' kappa (value
        and variance) depends only on its symmetric part :math:`(W + W^\top)/2`, which is
        used (and reported as ``.weight_matrix``).
    confidence_level : float, optional
        Level of that ``.confidence_interval`` (irrCAC's ``conflev``; 0.95 when None). Only
        with ``weights`` or ``counts=True``: irr's kappam.fleiss gives no interval.

    Returns
    -------
    FleissKappaResult
        ``.value``, ``.statistic`` (z), ``.pvalue``, ``.observed``, ``.expected``
        and, with ``detail=True``, ``.per_category``; with ``weights`` or ``counts`` also
        ``.standard_error``, ``.confidence_interval`` and ``.weight_matrix``.

    Warns
    -----
    PredstabDataWarning
        When objects with a missing value are dropped.
    PredstabDegenerateWarning
        When every rating is the same category (:math:`\bar P = \bar P_e = 1`):
        kappa is set to 1, where irr returns NaN.

    Notes
    -----
    p-values use the normal survival function, which stays accurate in the tail;
    irr's ``2 * (1 - pnorm(|z|))`` loses everything below about 1e-16.

    References
    ----------
    .. [1] Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters.
       Psychological Bulletin 76(5), 378-382. https://doi.org/10.1037/h0031619
    .. [2] Fleiss, J. L., Nee, J. C. M. & Landis, J. R. (1979). Large sample variance
       of kappa in the case of different sets of raters. Psychological Bulletin
       86(5), 974-977. https://doi.org/10.1037/0033-2909.86.5.974
    .. [3] Conger, A. J. (1980). Integration and generalization of kappas for
       multiple raters. Psychological Bulletin 88(2), 322-328.
       https://doi.org/10.1037/0033-2909.88.2.322

    Examples
    --------
    >>> from predstab import fleiss_kappa
    >>> ratings = [["a", "a", "a"], ["a", "b", "a"], ["b", "b", "b"], ["c", "c", "b"]]
    >>> res = fleiss_kappa(ratings, detail=True)
    >>> round(res.value, 4), round(res.statistic, 3)
    (0.4667, 2.169)
    >>> res.per_category.index.tolist()
    ['a', 'b', 'c']
    """
    if is_stack(ratings):  # (..., n_objects, n_raters): a result of arrays (predstab._core._stack)
        if weights is None and counts is False and confidence_level is None and not detail:
            return vectorised_apply(functools.partial(_fleiss_core, bool(exact)), fleiss_kappa, ratings,
                                    cls=FleissKappaResult, exact=exact,
                                    detail=detail, weights=weights, counts=counts,
                                    confidence_level=confidence_level)
        return stack_apply(fleiss_kappa, ratings, name="ratings",
                           exact=exact, detail=detail, weights=weights, counts=counts,
                           confidence_level=confidence_level)
    if weights is not None or counts is not False:
        return _irrcac_fleiss_kappa(ratings, weights=weights, counts=counts, exact=exact, detail=detail,
                                    confidence_level=0.95 if confidence_level is None else confidence_level)
    if confidence_level is not None:
        raise ValueError(f"`confidence_level` applies to irrCAC's Fleiss' kappa, with `weights` or "
                         f"counts=True (irr's kappam.fleiss has no interval); got {confidence_level!r}.")
    codes, categories, exact, detail = _fleiss_kappa_iv(ratings, exact, detail)
    n, m = codes.shape
    q = len(categories)
    rater_table, col_sq = _category_counts(codes, q)
    totals = rater_table.sum(axis=0)
    nm = n * m
    sum_sq = int(col_sq.sum())
    conger = float(conger_chance_agreement(rater_table / n)) if exact else None
    observed, expected, d_o, d_e = _kappa_parts(sum_sq, totals, n, m, q, conger)
    value = convention_ratio(d_o, d_e, name="Fleiss' kappa")
    p_j = totals / nm
    if exact:
        statistic = pvalue = float("nan")
    else:
        statistic, pvalue = (float(v) for v in _z_test(value, p_j, nm, m))

    per_category = None
    if detail:
        with np.errstate(divide="ignore", invalid="ignore"):
            p_jk = (col_sq - totals) / (nm * (m - 1) * p_j)
            kappa_j = one_minus_ratio_array(1 - p_jk, np.where(totals == nm, 0.0, 1 - p_j))
            z_j = kappa_j / np.sqrt(2 / (nm * (m - 1)))
        per_category = pd.DataFrame({"kappa": kappa_j, "z": z_j, "p": two_sided_p(z_j)},
                                    index=pd.Index(list(categories), name="category"))
    return FleissKappaResult(value=value, statistic=statistic, pvalue=pvalue, observed=float(observed),
                             expected=float(expected), n_objects=n, n_raters=m, categories=categories,
                             exact=exact, per_category=per_category)


def _irrcac_fleiss_kappa(ratings, *, weights, counts, exact, detail, confidence_level):
    """``fleiss_kappa(..., weights=..., counts=...)``: irrCAC's Fleiss' kappa (:mod:`._cac`'s engine)."""
    if exact or detail:
        raise ValueError("`exact` and `detail` are options of irr's kappam.fleiss; with `weights` or "
                         "counts=True (irrCAC's fleiss.kappa.raw / .dist) they must be False.")
    ct = read_count_table(ratings, counts=counts, categories=None, weights=weights)
    coef, var, pa, pe, df = compute("fleiss", ct)
    inferred = inference(coef, var, df, confidence_level)
    return FleissKappaResult(
        value=float(coef), statistic=inferred.statistic, pvalue=inferred.pvalue, observed=float(pa),
        expected=float(pe), n_objects=int(df) + 1, n_raters=int(ct.n_raters), categories=ct.categories,
        exact=False, standard_error=inferred.standard_error, confidence_interval=inferred.confidence_interval,
        confidence_level=float(confidence_level), df=int(df), weights=ct.weights,
        weight_matrix=ct.weight_matrix, _function=r_function("fleiss", counts))


# --------------------------------------------------------------------------- stacks of matrices
def _fleiss_core(exact, items):
    """The fields of :func:`fleiss_kappa` of complete items (n_items, n, m) of small integer codes.

    The counts come from :func:`predstab._core._stack.count_tables` (one ``np.bincount`` per block of
    items); kappa, the chance agreement (Conger's with ``exact``) and the z test from the
    functions of the one-matrix path, vectorised. None (the items go through the 2-D function)
    unless every value is an integer and they span at most ``_stack.MAX_CODES`` values.
    """
    coded = small_integer_codes(items)
    if coded is None:
        return None
    codes, low = coded
    n_items, n, m = codes.shape
    sum_sq, totals = count_tables(codes)
    used = totals > 0
    q = used.sum(axis=1)
    nm = n * m
    conger = None
    if exact:  # each item's (raters x categories) table, one bincount for all
        n_codes = totals.shape[1]
        offsets = (np.arange(n_items * m) * n_codes).reshape(n_items, 1, m)
        rater_tables = np.bincount((codes + offsets).ravel(), minlength=n_items * m * n_codes)
        conger = conger_chance_agreement(rater_tables.reshape(n_items, m, n_codes) / n)
    observed, expected, d_o, d_e = _kappa_parts(sum_sq, totals, n, m, q, conger)
    caught = ItemWarnings()
    value = one_minus_ratio_items(d_o, d_e, caught, name="Fleiss' kappa")
    if exact:
        statistic = pvalue = np.full(n_items, np.nan)
    else:
        statistic, pvalue = _z_test(value, totals / nm, nm, m)
    return dict(value=value, statistic=statistic, pvalue=pvalue, observed=observed, expected=expected,
                n_objects=np.full(n_items, n), n_raters=np.full(n_items, m),
                categories=used_categories(used, low, items.dtype, (n_items,)), exact=exact,
                per_category=None), caught
