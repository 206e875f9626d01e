"""Turning user input into an (objects x replicates) rating matrix.

Shared by the agreement coefficients (``_icc``, ``_fleiss``, ``_krippendorff``) so
that every one of them rejects the same bad input with the same message.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from ._exceptions import PredstabDataWarning
from ._utils import missing_mask

__all__ = ["as_rating_matrix", "as_numeric_matrix", "drop_incomplete_objects", "factorize_ratings"]

# what pandas.api.types.infer_dtype reports for arrays that hold only numbers (and missing values)
_NUMERIC_INFERRED = {"integer", "floating", "mixed-integer-float", "decimal", "boolean", "empty"}


def as_rating_matrix(ratings, *, name="ratings", min_replicates=2) -> np.ndarray:
    """Return ``ratings`` as a 2-D array of shape (n_objects, n_replicates), any dtype.

    Raises ValueError for ragged, empty, non-2-D input or fewer than
    ``min_replicates`` columns.
    """
    if isinstance(ratings, (pd.DataFrame, pd.Series)):
        arr = ratings.to_numpy()
    else:
        try:
            arr = np.asarray(ratings)
        except ValueError as exc:  # numpy refuses ragged nested sequences
            raise ValueError(
                f"`{name}` must be a rectangular (n_objects, n_replicates) array; "
                f"got rows of different lengths ({exc})."
            ) from None
    if arr.dtype == object and arr.ndim == 1 and arr.size and all(np.ndim(r) == 1 for r in arr):
        lengths = sorted({len(r) for r in arr})
        raise ValueError(
            f"`{name}` must be a rectangular (n_objects, n_replicates) array; "
            f"got rows of lengths {lengths}."
        )
    if arr.ndim != 2:
        raise ValueError(
            f"`{name}` must be a 2-D array of shape (n_objects, n_replicates); got {arr.ndim} "
            f"dimension(s) with shape {arr.shape}."
        )
    if arr.size == 0:
        raise ValueError(f"`{name}` must not be empty; got shape {arr.shape}.")
    if arr.shape[1] < min_replicates:
        raise ValueError(
            f"`{name}` must have at least {min_replicates} replicates (columns) per object; "
            f"got shape {arr.shape}."
        )
    if arr.dtype.kind == "c":
        raise TypeError(f"`{name}` must hold real values; got complex dtype {arr.dtype}.")
    return arr


def as_numeric_matrix(arr, *, name="ratings") -> np.ndarray:
    """Float copy of a rating matrix; missing values (None, NaN, pd.NA) become NaN.

    Raises TypeError when a non-missing entry is not a number (strings, dates...).
    """
    kind = arr.dtype.kind
    if kind in "biuf":
        out = arr.astype(float, copy=False)
    elif kind == "O":
        mask = missing_mask(arr)
        present = arr[~mask]
        inferred = pd.api.types.infer_dtype(present, skipna=True)
        if inferred not in _NUMERIC_INFERRED:
            raise TypeError(
                f"`{name}` must hold numbers (or None/NaN/pd.NA for missing values); "
                f"got values of kind {inferred!r}."
            )
        out = np.full(arr.shape, np.nan)
        out[~mask] = present.astype(float)
    else:
        raise TypeError(
            f"`{name}` must hold numbers (or None/NaN/pd.NA for missing values); got dtype {arr.dtype}."
        )
    # one pass over the data in the common case: a finite sum means no inf and no NaN
    if not np.isfinite(np.sum(out)) and np.isinf(out).any():
        n_inf = int(np.isinf(out).sum())
        raise ValueError(f"`{name}` must hold finite values; got {n_inf} infinite value(s).")
    return out


def drop_incomplete_objects(arr, mask, *, name="ratings", function="", stacklevel=4):
    """Drop objects (rows) with a missing value, as R's ``na.omit`` does, with a warning.

    Returns the kept rows. Raises ValueError when no complete object is left.
    """
    if not mask.any():
        return arr
    incomplete = mask.any(axis=1)
    n_dropped = int(incomplete.sum())
    if n_dropped == 0:
        return arr
    if n_dropped == arr.shape[0]:
        raise ValueError(
            f"`{name}` has a missing value in every one of its {arr.shape[0]} objects; "
            "nothing is left after dropping incomplete objects."
        )
    warnings.warn(
        f"{n_dropped} of {arr.shape[0]} objects have a missing value and were dropped "
        f"(as {function} does with na.omit).",
        PredstabDataWarning,
        stacklevel=stacklevel,
    )
    return arr[~incomplete]


def _small_integer_codes(arr):
    """Fast path of :func:`factorize_ratings`: integer-valued numbers in a small range (labels).

    Returns None when it does not apply.
    """
    if arr.dtype.kind not in "iuf":
        return None
    missing = np.isnan(arr) if arr.dtype.kind == "f" else None
    if missing is not None and missing.all():
        return None
    lo = np.fmin.reduce(arr, axis=None) if missing is not None else arr.min()
    hi = np.fmax.reduce(arr, axis=None) if missing is not None else arr.max()
    if not float(hi) - float(lo) < 2**16:  # floats: no integer overflow at the int64 extremes
        return None
    shifted = arr - lo
    if missing is not None:
        shifted[missing] = hi - lo + 1  # a slot of its own, ignored below
    as_int = shifted.astype(np.int64)
    if arr.dtype.kind == "f" and not (as_int == shifted).all():
        return None  # not integer-valued
    used = np.bincount(as_int.ravel(), minlength=int(hi - lo) + 2)[: int(hi - lo) + 1] > 0
    uniques = (lo + np.flatnonzero(used)).astype(arr.dtype)
    if used.all() and (missing is None or not missing.any()):
        return as_int, uniques  # labels lo, lo + 1, ..., hi all used: the shift is the code
    lookup = np.append(np.cumsum(used) - 1, -1)
    return lookup[as_int], uniques


def factorize_ratings(arr):
    """Integer codes of the distinct values (-1 for missing) and the sorted distinct values.

    Hash-based (pandas.factorize), so linear in the data; only the few distinct
    values are sorted.
    """
    small = _small_integer_codes(arr)
    if small is not None:
        return small
    codes, uniques = pd.factorize(arr.ravel(), use_na_sentinel=True)
    uniques = np.asarray(uniques)
    try:
        order = np.argsort(uniques, kind="stable")
    except TypeError:
        kinds = sorted({type(v).__name__ for v in uniques.tolist()})
        raise TypeError("`ratings` must hold values of one comparable kind (all numbers or all strings); "
                        f"got a mix of {', '.join(kinds)}.") from None
    rank = np.empty(len(uniques), dtype=np.int64)
    rank[order] = np.arange(len(uniques))
    codes = np.where(codes >= 0, rank[np.maximum(codes, 0)], -1).reshape(arr.shape)
    return codes, uniques[order]
