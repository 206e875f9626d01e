"""What every function of ``predstab.compare`` shares: the reader of scores and counts, the
declared constraints of the common options, and the one spelling of the legacy ``level``.

One reader (:func:`read_scores`) turns score vectors and tables into float arrays with the
package's message style ("`scores_a` must ...; got ..."); the option parameters are declared
with :func:`predstab._core._validation.validate_params` using the constraints below, so a count is
an integer everywhere (``3.0`` is rejected, as by every other predstab function).
"""

from __future__ import annotations

import inspect
from numbers import Integral, Real

import numpy as np

from .._core._validation import Interval, Options

__all__ = ["rng_keyword", "read_scores", "read_counts", "CONFIDENCE", "PROBABILITY", "COUNT",
           "POSITIVE_COUNT", "ALTERNATIVE", "ALTERNATIVES", "alternative_name"]

#: ``confidence_level``: a float in (0, 1)
CONFIDENCE = [Interval(Real, 0, 1, closed="neither")]
#: a probability or significance level in (0, 1)
PROBABILITY = [Interval(Real, 0, 1, closed="neither")]
#: a number of resamples or permutations
COUNT = [Interval(Integral, 1, None)]
POSITIVE_COUNT = COUNT
ALTERNATIVES = ("two-sided", "greater", "less")
ALTERNATIVE = [Options(ALTERNATIVES)]

_R_ALTERNATIVE = {"two-sided": "two.sided", "greater": "greater", "less": "less"}


def rng_keyword(func, generator) -> dict:
    """``{"rng": generator}`` for SciPy >= 1.15, ``{"random_state": generator}`` before."""
    name = "rng" if "rng" in inspect.signature(func).parameters else "random_state"
    return {name: generator}


def alternative_name(alternative) -> str:
    """R's spelling of an alternative ("two.sided", "greater", "less")."""
    return _R_ALTERNATIVE[alternative]


def read_scores(values, name, *, ndim=1, min_size=1):
    """Scores as a finite float array (the one reader of ``predstab.compare``).

    ``ndim`` is the accepted number of dimensions (an int or a tuple of ints).

    Examples
    --------
    >>> read_scores([1, 2, 3], "scores_a")
    array([1., 2., 3.])
    >>> read_scores([1, float("nan")], "scores_a")
    Traceback (most recent call last):
    ...
    ValueError: `scores_a` must not contain NaN or infinite values; got 1 such entries.
    """
    try:
        if np.iscomplexobj(values):  # np.asarray would drop the imaginary part with only a warning
            raise TypeError
        arr = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"`{name}` must be numeric scores; got {type(values).__name__}.") from None
    dims = (ndim,) if isinstance(ndim, int) else tuple(ndim)
    if arr.ndim not in dims:
        shown = " or ".join(str(d) for d in dims)
        raise ValueError(f"`{name}` must be {shown}-dimensional; got shape {arr.shape}.")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"`{name}` must not contain NaN or infinite values; got "
                         f"{int((~np.isfinite(arr)).sum())} such entries.")
    if arr.size < min_size:
        raise ValueError(f"`{name}` must have at least {min_size} scores; got {arr.size}.")
    return arr


def read_counts(values, name, *, square=True):
    """A table of non-negative whole counts as an int64 array (square unless ``square=False``)."""
    tab = np.asarray(values, dtype=object)
    if tab.ndim != 2 or (square and tab.shape[0] != tab.shape[1]) or min(tab.shape) < 2:
        raise ValueError(f"`{name}` must be a square k x k table of counts (k >= 2); got shape {tab.shape}.")
    counts = []
    for v in tab.ravel():
        ok = isinstance(v, (Real, np.number)) and not isinstance(v, (bool, np.bool_))
        if not ok or not np.isfinite(float(v)) or not float(v).is_integer() or v < 0:
            raise ValueError(f"`{name}` must hold non-negative whole counts; got {v!r}.")
        counts.append(int(v))
    return np.array(counts, dtype=np.int64).reshape(tab.shape)
