"""Turning user input into an (objects x replicates) rating matrix, or a vector of numbers.

The one reader of matrices of the core measures: the agreement coefficients (``_icc``,
``_fleiss``, ``_krippendorff``) and optRF's selection and importance stability
(``_importance``) read their matrix with :func:`as_rating_matrix`, the 2PL fit its grid
with :func:`as_real_vector`, so that every one of them rejects the same bad input with the
same message ("`ratings` must ...; got ..."). The baselines of phi / psi are read by
``_scales.read_values``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ._exceptions import PredstabDataWarning, warn_outside
from ._gate import check_orientation, check_row_names, unmask
from ._utils import missing_mask
from ._validation import InvalidParameterError

__all__ = ["unmask", "unit_scaled", "scaling_shift",
           "as_rating_matrix", "as_numeric_matrix", "as_real_vector", "categorical_codes",
           "drop_incomplete_objects", "factorize_codes", "factorize_ratings", "factorize_values"]

# what pandas.api.types.infer_dtype reports for arrays that hold only numbers (and missing values)
_NUMERIC_INFERRED = {"integer", "floating", "mixed-integer-float", "decimal", "boolean", "empty"}


def as_rating_matrix(ratings, *, name="ratings", min_replicates=2, nullable_as_float=False,
                     orientation=True) -> np.ndarray:
    """Return ``ratings`` as a 2-D array of shape (n_objects, n_replicates), any dtype.

    Raises ValueError for ragged, empty, non-2-D input or fewer than
    ``min_replicates`` columns. Masked cells of a numpy masked array are missing values.
    The gate (:mod:`predstab._core._gate`) warns about a matrix that looks transposed (unless
    ``orientation`` is False: a table whose columns are not replicates) and about R's row
    names read as a first column.
    ``nullable_as_float``: a DataFrame of nullable numeric
    columns (Int64, Float64) becomes floats with NaN for pd.NA (for readers that rank or
    average the values); otherwise it becomes an object array, whose integers stay labels.
    """
    ratings = unmask(ratings)
    # R's row names read as a first column would decide the orientation: not judged then
    orientation = orientation and not check_row_names(ratings, name=name)
    if nullable_as_float and isinstance(ratings, pd.DataFrame) and ratings.shape[1] and all(
            _is_number_dtype(dtype) for dtype in ratings.dtypes) and any(
            isinstance(dtype, pd.api.extensions.ExtensionDtype) for dtype in ratings.dtypes):
        # nullable Int64 / Float64 columns as floats (pd.NA -> NaN): otherwise they would become an
        # object array, read as labels; plain numpy columns keep their dtype (integer labels stay integers)
        arr = ratings.to_numpy(dtype=float, na_value=np.nan)
    elif isinstance(ratings, (pd.DataFrame, pd.Series)):
        arr = ratings.to_numpy()
    else:
        try:
            arr = np.asarray(ratings)
        except ValueError:  # numpy refuses ragged nested sequences: say which lengths it saw
            try:
                lengths = sorted({len(row) for row in ratings})
            except TypeError:
                lengths = None
            seen = f"rows of lengths {lengths}" if lengths else "rows of different lengths"
            raise ValueError(f"`{name}` must be a rectangular (n_objects, n_replicates) array; "
                             f"got {seen}.") from None
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
    if orientation:
        check_orientation(arr, name=name)
    return arr


def _is_number_dtype(dtype):
    return pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)


def as_real_vector(values, *, name) -> np.ndarray:
    """``values`` as a float array; anything that is not real numbers raises naming ``name``.

    Examples
    --------
    >>> as_real_vector([1, 2.5], name="n").tolist()
    [1.0, 2.5]
    """
    try:
        if np.iscomplexobj(values):
            raise TypeError
        return np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise InvalidParameterError(f"`{name}` must be a 1-D sequence of real numbers; "
                                    f"got {values!r:.80}.") from None


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
    with np.errstate(invalid="ignore"):  # inf + -inf in the sum: NaN, and no RuntimeWarning
        finite_sum = np.isfinite(np.sum(out))
    if not finite_sum and np.isinf(out).any():
        n_inf = int(np.isinf(out).sum())
        raise ValueError(f"`{name}` must hold finite values; got {n_inf} infinite value(s).")
    return out


#: Data whose largest magnitude lies outside [2^-100, 2^100] are rescaled by :func:`unit_scaled`:
#: within it, sums of squares and products of variances of any realistic size stay far from
#: overflow (~1.8e308) and underflow (~2.2e-308); outside, x^2 * y^2 can leave the range.
_SAFE_EXPONENT = 100


def unit_scaled(x):
    """``(x * 4**m, 4**m)``: the data rescaled by a power of four when their magnitude is extreme.

    For the scale-invariant measures (ICC, Robinson's A, iota, Pearson correlations,
    Cronbach's alpha, interval and ratio alpha, metric phi / psi): their value is the same
    for ``x`` and ``c x``, but their sums of squares overflow for ``|x| >= 1e155`` and
    underflow for ``|x| <= 1e-155``. Multiplying by a power of two is exact (no rounding, as
    long as nothing under- or overflows), and by a power of *four* also commutes with
    ``sqrt``, so every intermediate is the unscaled one times an exact power of two and the
    value is bit-identical to the exact-arithmetic scaling: data in the safe range are
    returned unchanged (and uncopied). ``m`` brings the largest finite ``|x|`` into
    [1/4, 4). NaN (missing) cells are left as they are.
    """
    shift = scaling_shift(x)
    if shift == 0:
        return x, 1.0
    return np.ldexp(x, shift), float(np.ldexp(1.0, -shift))


def scaling_shift(*arrays) -> int:
    """The even exponent of two :func:`unit_scaled` multiplies by (0 in the safe range); one for all."""
    largest = 0.0
    for x in arrays:
        largest = max(largest, _largest_magnitude(x))
    if largest == 0.0:
        return 0
    exponent = int(np.frexp(largest)[1])
    if -_SAFE_EXPONENT <= exponent <= _SAFE_EXPONENT:
        return 0
    return -2 * (exponent // 2)


def _largest_magnitude(x) -> float:
    """The largest finite ``|x|`` (0 for no finite value), without a copy of ``x``.

    Two reductions that skip NaN (``np.fmax`` / ``np.fmin``): ``np.abs(x[np.isfinite(x)])``
    made two copies of the data, 90 % of metric phi's time on 1e6 x 100 (issue 33). Only when
    an infinite value is present are the finite values gathered.
    """
    if not x.size:
        return 0.0
    hi, lo = float(np.fmax.reduce(x, axis=None)), float(np.fmin.reduce(x, axis=None))
    if np.isfinite(hi) and np.isfinite(lo):
        return max(hi, -lo)
    if np.isnan(hi):  # every value missing
        return 0.0
    finite = x[np.isfinite(x)]
    return float(np.abs(finite).max()) if finite.size else 0.0


def drop_incomplete_objects(arr, mask, *, name="ratings", function=""):
    """Drop objects (rows) with a missing value, as R's ``na.omit`` does, with a warning.

    Returns the kept rows. Raises ValueError when no complete object is left. The warning
    points at the first frame outside predstab, the user's call.
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
    warn_outside(f"{n_dropped} of {arr.shape[0]} objects have a missing value and were dropped "
                 f"(as {function} does with na.omit).", PredstabDataWarning)
    return arr[~incomplete]


def categorical_codes(ratings):
    """Codes and categories of a DataFrame of Categorical columns sharing one set of categories.

    Returns ``(codes, categories)``, codes of shape (n_objects, n_replicates) with -1 for
    a missing value, read from the Categoricals without converting the data to objects;
    None for any other input.
    """
    if not isinstance(ratings, pd.DataFrame) or ratings.shape[1] == 0:
        return None
    dtypes = list(ratings.dtypes)
    if not all(isinstance(d, pd.CategoricalDtype) for d in dtypes):
        return None
    if any(not dtypes[0].categories.equals(d.categories) for d in dtypes[1:]):
        return None  # different categories per column: the values decide
    codes = np.stack([ratings.iloc[:, j].array.codes for j in range(ratings.shape[1])], axis=1)
    return codes, dtypes[0].categories.to_numpy()


def _sorted_codes(codes, uniques):
    """Recode ``codes`` (into ``uniques``, -1 for missing) so that the distinct values are sorted."""
    try:
        order = np.argsort(uniques, kind="stable")
    except TypeError:
        kinds = sorted({type(v).__name__ for v in uniques.tolist()})
        raise TypeError("`ratings` must hold values of one comparable kind (all numbers or all strings); "
                        f"got a mix of {', '.join(kinds)}.") from None
    lookup = np.empty(len(uniques) + 1, dtype=np.int64)
    lookup[order] = np.arange(len(uniques))
    lookup[-1] = -1  # code -1 (missing) reads the last entry
    return lookup[codes], uniques[order]


def factorize_codes(codes, categories, *, all_used=False):
    """:func:`factorize_ratings` for codes into ``categories`` (-1 for missing), e.g. a Categorical's.

    Only the categories in use are kept, sorted by value as :func:`factorize_ratings` sorts them.
    ``all_used=True`` says that every category occurs in ``codes`` (no count needed).
    """
    if all_used and _is_sorted(np.asarray(categories)):
        return codes, np.asarray(categories)
    n_used = np.bincount(codes[codes >= 0], minlength=len(categories)) if codes.min() < 0 else \
        np.bincount(codes.ravel(), minlength=len(categories))
    used = np.flatnonzero(n_used)
    uniques = np.asarray(categories)[used]
    if len(used) == len(categories) and _is_sorted(uniques):
        return codes.astype(np.int64, copy=False), uniques  # already the codes of the sorted values
    remap = np.full(len(categories) + 1, -1, dtype=np.int64)
    remap[used] = np.arange(len(used))
    return _sorted_codes(remap[codes], uniques)


def _is_sorted(values):
    try:
        return bool(np.all(values[:-1] < values[1:]))
    except TypeError:  # a mix of kinds: _sorted_codes says so
        return False


def _small_integer_codes(arr):
    """Fast path of :func:`factorize_ratings`: booleans and integer-valued numbers in a small range.

    Returns None when it does not apply.
    """
    dtype = arr.dtype
    if dtype.kind == "b":
        arr = arr.view(np.uint8)
    elif dtype.kind not in "iuf":
        return None
    missing = np.isnan(arr) if dtype.kind == "f" else None
    if missing is not None and missing.all():
        return None
    lo = np.fmin.reduce(arr, axis=None) if missing is not None else arr.min()
    hi = np.fmax.reduce(arr, axis=None) if missing is not None else arr.max()
    if not float(hi) - float(lo) < 2**16:  # floats: no integer overflow at the int64 extremes
        return None
    span = int(hi - lo) if dtype.kind == "f" else int(hi) - int(lo)
    if dtype.kind == "f":
        shifted = arr - lo
        if missing is not None:
            shifted[missing] = span + 1  # a slot of its own, ignored below
        as_int = shifted.astype(np.int64)
        if not (as_int == shifted).all():
            return None  # not integer-valued
    elif arr.dtype.kind == "u":
        as_int = (arr - lo).astype(np.int64)  # no wrap-around: arr >= lo
    else:
        as_int = arr.astype(np.int64)  # in int64: arr - lo can overflow arr's dtype (int8: 100 - -100)
        as_int -= np.int64(lo)
    used = np.bincount(as_int.ravel(), minlength=span + 2)[: span + 1] > 0
    uniques = (np.flatnonzero(used).astype(arr.dtype) + lo).astype(dtype)
    if used.all() and (missing is None or not missing.any()):
        return as_int, uniques  # labels lo, lo + 1, ..., hi all used: the shift is the code
    lookup = np.append(np.cumsum(used) - 1, -1)
    return lookup[as_int], uniques


def factorize_values(arr):
    """Integer codes of the distinct values (-1 for missing) and the distinct values, in any order.

    Counting (``np.bincount``) for booleans and small-range integer labels, hash-based
    (pandas.factorize) otherwise, so linear in the data.
    """
    small = _small_integer_codes(arr)
    if small is not None:
        return small
    if arr.flags.f_contiguous and not arr.flags.c_contiguous:  # e.g. DataFrame.to_numpy(): no copy
        codes, uniques = pd.factorize(arr.T.ravel(), use_na_sentinel=True)
        return codes.reshape(arr.shape[::-1]).T, np.asarray(uniques)
    codes, uniques = pd.factorize(arr.ravel(), use_na_sentinel=True)
    return codes.reshape(arr.shape), np.asarray(uniques)


def factorize_ratings(arr):
    """Integer codes of the distinct values (-1 for missing) and the sorted distinct values.

    :func:`factorize_values`, then only the few distinct values are sorted.
    """
    codes, uniques = factorize_values(arr)
    if uniques.size == 0 or _is_sorted(uniques):  # nothing to rank, or ranked already
        return codes, uniques
    return _sorted_codes(codes, uniques)
