"""The one convention for degenerate data, shared by every measure.

Every measure in predstab is (or can be written as) ``1 - D_o / D_e``: observed
disagreement over the disagreement expected under a baseline. Degenerate data are
handled here, once, following APS 1.0.1:

============================  =========================  ==================================
``D_e``                       ``D_o``                    result
============================  =========================  ==================================
``> 0``                       any                        ``1 - D_o / D_e``
``0``                         ``0``                      ``1`` and a ``PredstabDegenerateWarning``
``0``                         ``> 0``                    NaN and a ``PredstabUndefinedWarning``
NaN (not computable)          any                        NaN, no extra warning
============================  =========================  ==================================

Callers must compute *exact* zeros for degenerate inputs (e.g. a variance of a
constant vector is set to 0.0 structurally rather than left at 1e-33 from rounding).

A zero that only exact arithmetic sees is detected with :func:`negligible`: a sum of
squares that is zero for exact data (equal row means of a Latin square, equal row totals)
comes out of floating point as rounding noise of order ``eps`` times the data's own sum of
squares, e.g. 3e-31 against 1 (``icc([[4, 3, 2], [2, 4, 3], [3, 2, 4]], unit="average")``
was -3.4e30). So a part is taken as zero when ``part <= n * eps * whole``, with ``whole``
the total sum of squares of the same data and ``n`` the number of terms summed: a
relative size below ~1e-15 n cannot be told from rounding. The caller then sets it to an
exact 0.0, and the table above applies.
"""


import numpy as np

from ._exceptions import PredstabDegenerateWarning, PredstabUndefinedWarning, warn_outside

__all__ = ["negligible", "one_minus_ratio", "one_minus_ratio_array"]

_EPS = float(np.finfo(float).eps)


def negligible(part, whole, n):
    """True when ``part`` is zero up to the rounding of a sum of ``n`` terms of size ``whole``.

    ``part <= n * eps * whole`` (module docstring). ``part`` and ``whole`` are sums of squares
    (non-negative) of the same data; a negative ``part`` (e.g. a difference of sums) is
    negligible too.

    Examples
    --------
    >>> negligible(3e-31, 1.0, 9), negligible(1e-10, 1.0, 9)
    (True, False)
    """
    return bool(part <= n * _EPS * whole)

_COLLAPSED = (
    "Both expected and observed {what} are zero; {name} is set to 1 (perfect agreement). "
    "This may indicate that the model collapsed to a single value."
)
_UNDEFINED = (
    "Expected {what} is zero but observed is not; {name} is undefined and set to {fallback}."
)


def one_minus_ratio(d_o, d_e, *, name="stability", what="disagreement", fallback=np.nan):
    """Return ``1 - d_o / d_e`` under the shared degenerate-data convention.

    Parameters
    ----------
    d_o, d_e : float
        Observed and expected disagreement (non-negative, or NaN).
    name : str
        Name of the statistic, used in warning messages.
    what : str
        Name of the disagreement ("instability" for APS, "disagreement" otherwise).
    fallback : float, default np.nan
        Value returned when the statistic is undefined.

    Returns
    -------
    float

    Examples
    --------
    >>> one_minus_ratio(0.5, 2.0)
    0.75
    """
    d_o = float(d_o)
    d_e = float(d_e)
    if np.isnan(d_o) or np.isnan(d_e):
        return float("nan")
    if d_e == 0.0:
        if d_o == 0.0:
            warn_outside(_COLLAPSED.format(what=what, name=name), PredstabDegenerateWarning)
            return 1.0
        warn_outside(_UNDEFINED.format(what=what, name=name, fallback=fallback), PredstabUndefinedWarning)
        return float(fallback)
    return 1.0 - d_o / d_e


def one_minus_ratio_array(d_o, d_e, *, fallback=np.nan):
    """Vectorised ``1 - d_o / d_e`` with the same convention, without warnings.

    Used for per-object values, where the caller has already warned once for the
    aggregate. ``d_o`` and ``d_e`` broadcast against each other.

    Examples
    --------
    >>> one_minus_ratio_array(np.array([0.0, 1.0, 0.0]), np.array([2.0, 0.0, 0.0]))
    array([ 1., nan,  1.])
    """
    d_o, d_e = np.asarray(d_o, dtype=float), np.asarray(d_e, dtype=float)
    if d_e.ndim == 0 and (d_e > 0 or d_e < 0) and d_o.ndim:  # one D_e that divides: 1 - d_o / d_e
        out = d_o / d_e  # two passes over the objects instead of ten (issue 33: phi at 1e6 objects)
        np.subtract(1.0, out, out=out)
        return out
    d_o, d_e = np.broadcast_arrays(d_o, d_e)
    out = np.full(d_o.shape, np.nan)
    pos = (d_e > 0) | (d_e < 0)  # a negative D_e (ICC(A,k) of irr) divides as in one_minus_ratio
    np.divide(d_o, d_e, out=out, where=pos)
    out = np.where(pos, 1.0 - out, np.nan)
    zero = d_e == 0
    out = np.where(zero & (d_o == 0), 1.0, out)
    out = np.where(zero & (d_o > 0), fallback, out)
    return out
