r"""irrCAC's input read into the (categories x objects) count table :math:`n_{ik}`.

Raw ratings (numbers, strings, booleans, Categoricals; NaN / None missing) or a ready-made
(objects x categories) count table (irrCAC's ``*.dist`` input, statsmodels'
``aggregate_raters`` layout) become one category-major table, built with one ``np.bincount``
(or, for few raters and categories, by comparing codes: no scatter at all), with each
object's number of ratings :math:`r_i` and the weight matrix over the categories. Time and
memory are linear in objects x raters.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd

from .._core._exceptions import PredstabDataWarning, warn_outside
from .._core._gate import check_categories_order, check_labels
from .._core._ratings import as_numeric_matrix, as_rating_matrix, categorical_codes, factorize_ratings
from .._core._utils import missing_mask
from ._weights import is_numeric_categories, weight_matrix

__all__ = ["CountTable", "read_count_table", "given_categories"]


def given_categories(categories, name="categories"):
    cats = np.asarray(list(categories) if not isinstance(categories, np.ndarray) else categories)
    if cats.ndim != 1 or cats.size == 0:
        raise ValueError(f"`{name}` must be a non-empty one-dimensional sequence; got shape {cats.shape}.")
    if len(pd.unique(cats)) != cats.size:
        raise ValueError(f"`{name}` must not repeat a category; got {cats.size} entries, "
                         f"{len(pd.unique(cats))} distinct.")
    return cats


def _raw_codes(ratings, categories):
    """Integer codes (n, r) with -1 for missing, and the categories in weight order."""
    check_categories_order(ratings, categories)
    categorical = categorical_codes(ratings) if categories is None else None
    if categorical is not None:
        codes, cats = categorical
        codes = codes.astype(np.int64)
        arr = as_rating_matrix(codes)
        used = np.flatnonzero(np.bincount(codes[codes >= 0], minlength=len(cats)))
        cats = np.asarray(cats)[used]
        order = np.argsort(cats, kind="stable") if is_numeric_categories(cats) else np.arange(len(used))
        remap = np.full(len(categorical[1]) + 1, -1, dtype=np.int64)
        remap[used[order]] = np.arange(len(used))
        return remap[codes], cats[order]
    arr = as_rating_matrix(ratings)
    if arr.dtype.kind == "f" and np.isinf(arr).any():
        raise ValueError(f"`ratings` must not hold infinite values; got {int(np.isinf(arr).sum())}.")
    if categories is None:
        codes, cats = factorize_ratings(arr)
        check_labels(cats, arr.size)
        return np.asarray(codes, dtype=np.int64), np.asarray(cats)
    cats = given_categories(categories)
    if is_numeric_categories(cats):
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
    arr = as_rating_matrix(ratings, min_replicates=1, orientation=False)  # columns: categories
    values = as_numeric_matrix(arr)
    if np.isnan(values).any():
        raise ValueError("`ratings` (a count table with counts=True) must not hold missing values; "
                         f"got {int(np.isnan(values).sum())}.")
    if (values < 0).any() or not np.isfinite(values).all():
        raise ValueError("`ratings` (a count table with counts=True) must hold finite non-negative counts "
                         "(weighted counts need not be whole numbers).")
    q = values.shape[1]
    if categories is None:
        # irrCAC's default categories are 1..q; a DataFrame's column labels name them
        cats = np.asarray(ratings.columns) if isinstance(ratings, pd.DataFrame) else np.arange(1, q + 1)
    else:
        cats = given_categories(categories)
        if cats.size != q:
            raise ValueError(f"`categories` must name the {q} columns of the count table; got {cats.size}.")
        if is_numeric_categories(cats) and not _increasing(cats):
            raise ValueError("`categories` of a count table must be increasing when they are numbers "
                             "(the weights sort numeric categories).")
    return values, cats


def _increasing(values):
    try:
        v = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        return False
    return bool(np.all(np.diff(v) > 0))


def _drop_unrated(table, codes):
    """Leave out objects (columns of the category-major ``table``) with no rating.

    Returns the table, the codes and every kept object's number of ratings r_i.
    """
    totals = table.sum(axis=0)
    empty = totals == 0
    if empty.any():
        warn_outside(f"{int(empty.sum())} of {table.shape[1]} objects have no rating and were left out "
                     "(irrCAC asks to exclude them; it returns NaN otherwise).", PredstabDataWarning)
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


class CountTable(NamedTuple):
    """irrCAC's input, read: what every coefficient of :mod:`predstab.agreement._cac` starts from."""

    table: np.ndarray  # category-major counts: table[k, i] raters who put object i in category k
    r_i: np.ndarray | int  # ratings of each object (one int when every object has the same number)
    codes: np.ndarray | None  # (objects x raters) codes, -1 missing (None for a count table)
    categories: tuple  # in the order of the rows and columns of ``weight_matrix``
    weight_matrix: np.ndarray
    weights: str  # irrCAC's w.name: a family, "unweighted" or "custom"
    n_raters: int


def read_count_table(ratings, *, counts, categories, weights, need_codes=False, symmetric_part=True):
    """The count table (category-major, integer or float counts) and what the coefficients need.

    ``r_i`` is each object's number of ratings, or one int when every object has the same
    number (complete integer ratings: the fast path of ``_integer_table``). Objects without a
    rating are left out with a warning. ``need_codes``: the codes of raw ratings are kept
    (Conger's kappa needs each rater's ratings). ``symmetric_part``: an asymmetric weight matrix
    is replaced by its symmetric part (every coefficient but Conger's depends only on it).
    """
    fast = None if counts or categories is not None else _integer_table(ratings, need_codes)
    if fast is not None:
        table, cats, codes, n_raters = fast
        r_i = n_raters  # no missing values: every object has every rater's rating
        weight_values = cats
    elif counts:
        values, cats = _read_counts(ratings, categories)
        table, codes, r_i = _drop_unrated(np.ascontiguousarray(values.T), None)
        n_raters = int(r_i.max())
        given_numbers = categories is not None and is_numeric_categories(cats)
        weight_values = cats if given_numbers else np.arange(1, len(cats) + 1)
    else:
        codes, cats = _raw_codes(ratings, categories)
        if len(cats) == 0:
            raise ValueError("`ratings` must hold at least one rating; every value is missing.")
        table, codes, r_i = _drop_unrated(_count_table(codes, len(cats)), codes)
        n_raters = codes.shape[1]
        weight_values = cats
    w = weight_matrix(weights, weight_values, symmetric_part=symmetric_part)
    if isinstance(weights, str):
        w_name = weights if weights != "identity" else "unweighted"
    elif weights is None:
        w_name = "unweighted"
    else:
        w_name = "custom"
    return CountTable(table, r_i, codes, tuple(np.asarray(cats).tolist()), w, w_name, n_raters)
