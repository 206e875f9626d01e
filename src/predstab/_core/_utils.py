"""Small shared helpers: random generators, missing values, counts and fractions, intervals."""

from __future__ import annotations

import numbers
from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
import pandas as pd

from ._validation import Interval, InvalidParameterError, check_param

__all__ = ["ConfidenceInterval", "check_rng", "seeds_from", "missing_mask", "check_fraction", "check_count"]


class ConfidenceInterval(NamedTuple):
    """A two-sided confidence interval ``(low, high)``."""

    low: float
    high: float


def check_rng(random_state=None) -> np.random.Generator:
    """Turn ``None``, an int, a ``SeedSequence`` or a ``Generator`` into a ``Generator``.

    Never touches NumPy's global random state.

    Examples
    --------
    >>> bool(check_rng(0).integers(10) == check_rng(0).integers(10))
    True
    """
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool) and random_state < 0:
        raise InvalidParameterError(f"`random_state` must be a non-negative integer; got {random_state!r}.")
    if random_state is None or (isinstance(random_state, (numbers.Integral, np.random.SeedSequence))
                                and not isinstance(random_state, bool)):
        return np.random.default_rng(random_state)
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        raise InvalidParameterError(
            "`random_state` must be None, an int or a numpy.random.Generator; got a legacy "
            "RandomState. Use numpy.random.default_rng(seed) instead."
        )
    raise InvalidParameterError(
        "`random_state` must be None, an int or a numpy.random.Generator; "
        f"got {type(random_state).__name__}."
    )


def seeds_from(random_state, n) -> np.ndarray:
    """Derive ``n`` integer seeds (for estimator refits) from ``random_state``.

    Examples
    --------
    >>> seeds_from(1, 3).tolist() == seeds_from(1, 3).tolist()
    True
    """
    rng = check_rng(random_state)
    return rng.integers(0, 2**31 - 1, size=int(n), dtype=np.int64)


def check_fraction(value, name) -> float:
    """Validate a level or probability strictly between 0 and 1 (bools rejected).

    The same check as the declaration ``Interval(Real, 0, 1, closed="neither")``: raises
    :class:`~predstab._core._validation.InvalidParameterError` (a ValueError and a TypeError).

    Examples
    --------
    >>> check_fraction(0.95, "confidence_level")
    0.95
    """
    return float(check_param(name, value, [Interval(Real, 0, 1, closed="neither")]))


def check_count(value, name, minimum=2) -> int:
    """Validate an integer count of at least ``minimum`` (bools and floats such as 3.0 rejected).

    The same check as the declaration ``Interval(Integral, minimum, None)``: raises
    :class:`~predstab._core._validation.InvalidParameterError` (a ValueError and a TypeError).

    Examples
    --------
    >>> check_count(10, "n_repeats")
    10
    """
    return int(check_param(name, value, [Interval(Integral, minimum, None)]))


def missing_mask(values) -> np.ndarray:
    """Boolean mask of missing entries (None, NaN, pd.NA, NaT) in an array of any dtype.

    Examples
    --------
    >>> missing_mask(np.array([1.0, np.nan])).tolist()
    [False, True]
    >>> missing_mask(np.array(["a", None], dtype=object)).tolist()
    [False, True]
    """
    arr = np.asarray(values)
    if arr.dtype.kind in "fc":
        return np.isnan(arr)
    if arr.dtype.kind in "iub":
        return np.zeros(arr.shape, dtype=bool)
    return np.asarray(pd.isna(arr), dtype=bool)
