"""What the agreement modules share: readers of complete ratings and category codes, the C x C
table of two raters, irr's print layout, the two-sided normal p-value, and the shared
degenerate-data convention with its warnings pointed at the caller's line.

Every reader takes objects in rows and raters in columns. Warnings raised here (and by the
``predstab._core`` helpers called here) name the first line outside predstab, however many
frames of predstab lie between it and the warning (:func:`predstab._core._exceptions.outside_stacklevel`).
"""

from __future__ import annotations

import numpy as np
from scipy import special

from .._core._convention import one_minus_ratio
from .._core._gate import check_categories_order, check_labels, ordered_categories
from .._core._ratings import as_numeric_matrix, as_rating_matrix, drop_incomplete_objects, factorize_ratings
from .._core._results import Result, r_block, r_pvalue, r_signif

__all__ = ["convention_ratio", "drop_incomplete", "complete_numeric", "complete_matrix", "read_categories",
           "complete_codes", "pair_table", "used_categories", "two_rater_table", "two_sided_p", "IrrResult"]


# --------------------------------------------------------------------------- the shared convention
def convention_ratio(d_o, d_e, *, name, what="disagreement"):
    """``1 - d_o / d_e`` under ``predstab._core._convention``, its warning at the caller's line."""
    return one_minus_ratio(d_o, d_e, name=name, what=what)


def drop_incomplete(arr, mask, *, function, name="ratings"):
    """R's ``na.omit`` (:func:`predstab._core._ratings.drop_incomplete_objects`), its warning at
    the caller's line."""
    return drop_incomplete_objects(arr, mask, name=name, function=function)


# --------------------------------------------------------------------------- readers
def complete_numeric(ratings, function, *, name="ratings", min_objects=2):
    """The numeric (objects x raters) matrix of the objects without a missing rating (irr's
    ``na.omit``); a ValueError when fewer than ``min_objects`` are left."""
    return complete_matrix(as_rating_matrix(ratings, name=name), function, name=name,
                           min_objects=min_objects)


def complete_matrix(arr, function, *, name="ratings", min_objects=2):
    """:func:`complete_numeric` of a matrix :func:`~predstab._core._ratings.as_rating_matrix` has
    read (its checks and warnings not repeated)."""
    x = as_numeric_matrix(arr, name=name)
    if np.isnan(np.sum(x)):  # infinite values are refused above: a NaN sum means a missing value
        x = drop_incomplete(x, np.isnan(x), name=name, function=function)
    if x.shape[0] < min_objects:
        raise ValueError(f"`{name}` must have at least {min_objects} complete objects (rows); got "
                         f"{x.shape[0]} after dropping objects with a missing value.")
    return x


def read_categories(ratings, *, name="ratings", n_raters=None, categories=None, orientation=True):
    """Codes (int64, -1 = missing) into the categories of an (objects x raters) matrix, and those
    categories: the distinct values, sorted or, for an ordered pandas Categorical, in its order;
    or ``categories`` (in the user's order) when given. ``orientation=False``: ``ratings`` is a
    matrix the caller has already read (its orientation judged, and warned about, once)."""
    check_categories_order(ratings, categories, name=name)
    arr = as_rating_matrix(ratings, name=name, orientation=orientation)
    if n_raters is not None and arr.shape[1] != n_raters:
        raise ValueError(f"`{name}` must have exactly {n_raters} raters (columns); got shape {arr.shape}.")
    if arr.dtype.kind == "f" and np.isinf(arr).any():
        raise ValueError(
            f"`{name}` must hold finite values; got {int(np.isinf(arr).sum())} infinite value(s)."
        )
    codes, found = factorize_ratings(arr)
    check_labels(found, arr.size, name=name)
    if categories is None:
        own = ordered_categories(ratings)
        if own is None:
            return codes, found
        # the Categorical's order, not the labels' sorted one (the weights, the cells above and below
        # the diagonal of cohen_kappa, rater_bias, fleiss_levin_paik): the values found, in that order
        rank = {v: i for i, v in enumerate(own)}
        order = np.argsort([rank[v] for v in found.tolist()], kind="stable")
        lookup = np.empty(len(found) + 1, dtype=np.int64)
        lookup[order] = np.arange(len(found))
        lookup[-1] = -1  # code -1 (missing) reads the last entry
        return lookup[codes], found[order]
    given = np.asarray(categories, dtype=object if found.dtype.kind in "OUS" else None).ravel()
    if given.size == 0 or len(set(given.tolist())) != given.size:
        raise ValueError(f"`categories` must list distinct categories; got {given.tolist()!r}.")
    position = {v: i for i, v in enumerate(given.tolist())}
    try:
        lookup = np.array([position[v] for v in found.tolist()] + [-1], dtype=np.int64)
    except KeyError as exc:
        raise ValueError(
            f"`categories` must contain every category of `{name}`; {exc.args[0]!r} is missing."
        ) from None
    return lookup[codes], given


def complete_codes(ratings, function, *, n_raters=None, orientation=True):
    """Codes of the objects without a missing rating (as irr's ``na.omit``) and the categories
    they use, sorted (``orientation``: as in :func:`read_categories`)."""
    codes, categories = read_categories(ratings, n_raters=n_raters, orientation=orientation)
    kept = drop_incomplete(codes, codes < 0, function=function)
    if kept is not codes:
        used = np.flatnonzero(np.bincount(kept.ravel(), minlength=len(categories)))
        remap = np.full(len(categories), -1, dtype=np.int64)
        remap[used] = np.arange(len(used))
        kept, categories = remap[kept], categories[used]
    return kept, categories


# --------------------------------------------------------------------------- two raters' table
def pair_table(a, b, k, *, complete=False):
    """k x k counts of (rater a, rater b) over the objects both rated (``complete``: no code is -1)."""
    if not complete:
        both = (a >= 0) & (b >= 0)
        if not both.all():
            a, b = a[both], b[both]
    cell = a * k if k > 1 else np.zeros_like(a)
    cell += b
    return np.bincount(cell, minlength=k * k).reshape(k, k).astype(float)


def used_categories(table):
    """The table restricted to the categories either rater used, and their positions."""
    used = np.flatnonzero(table.sum(axis=0) + table.sum(axis=1))
    return table[np.ix_(used, used)], used


def two_rater_table(ratings, function):
    """C x C table of (rater 1, rater 2) over the sorted categories of the complete objects, the
    categories and the number of those objects."""
    codes, categories = complete_codes(ratings, function, n_raters=2)
    k = len(categories)
    return pair_table(codes[:, 0], codes[:, 1], k), categories, codes.shape[0]


# --------------------------------------------------------------------------- tests and printing
def two_sided_p(z):
    """``2 P(Z > |z|)``, accurate in the tails where R's ``2 * (1 - pnorm(abs(z)))`` rounds to 0."""
    return 2 * special.ndtr(-np.abs(z))


class IrrResult(Result):
    """irr's ``print.irrlist`` layout: method, Subjects, Raters, value; statistic and p-value."""

    _value_name = "value"
    _stat_name = ""

    def _method(self):
        return self._title

    def _str_lines(self):
        lines = r_block(self._method(), [("Subjects", self.n_objects), ("Raters", self.n_raters),
                                         (self._value_name, r_signif(self.value, 3))])
        if self._stat_name:
            lines += ["", f"{self._stat_name():>9} = {r_signif(self.statistic, 3)}",
                      f"  {r_pvalue(self.pvalue, 3)}"]
        return lines
