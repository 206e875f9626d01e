"""Exact paired McNemar test of two models judged on the same cases."""

from __future__ import annotations

import numbers
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from .._exceptions import PredstabDataWarning, PredstabUndefinedWarning
from .._utils import FrameMixin, missing_mask
from ._power import binomial_two_sided_p

__all__ = ["mcnemar", "McNemarResult"]


@dataclass(frozen=True)
class McNemarResult(FrameMixin):
    """Result of :func:`mcnemar`.

    Attributes
    ----------
    statistic : int
        ``min(b, c)``, the smaller discordant count (statsmodels' convention).
    pvalue : float
        Exact (or mid-p) two-sided p-value; NaN when there are no cases.
    table : tuple of int
        ``(a, b, c, d)``: both succeed, regressions (old success, new failure),
        improvements (old failure, new success), both fail.
    n : int
        Cases used.
    discordant : int
        ``b + c``.
    delta_pp : float
        Change in success rate, percentage points: ``100 (c - b) / n``.
    mid_p : bool
    """

    statistic: float
    pvalue: float
    table: tuple
    n: int
    discordant: int
    delta_pp: float
    mid_p: bool

    @property
    def regressions(self) -> int:
        """``b``: cases the old model got right and the new one wrong."""
        return self.table[1]

    @property
    def improvements(self) -> int:
        """``c``: cases the old model got wrong and the new one right."""
        return self.table[2]


def _judgments(values, name):
    if values is None:
        raise TypeError(f"`{name}` is required when `table` is not given.")
    arr = np.asarray(values, dtype=object) if not isinstance(values, np.ndarray) else values
    if arr.ndim != 1:
        raise ValueError(f"`{name}` must be one-dimensional; got shape {arr.shape}.")
    return arr


def _mcnemar_iv(table, old, new, ids, mid_p):
    if not isinstance(mid_p, (bool, np.bool_)):
        raise TypeError(f"`mid_p` must be True or False; got {mid_p!r}.")
    if table is not None:
        if old is not None or new is not None or ids is not None:
            raise TypeError("Give either `table` or `old`/`new` (with optional `ids`), not both.")
        tab = np.asarray(table, dtype=object)
        if tab.shape != (2, 2):
            raise ValueError(f"`table` must be 2 x 2 [[a, b], [c, d]]; got shape {tab.shape}.")
        counts = []
        for v in tab.ravel():
            if isinstance(v, bool) or not isinstance(v, numbers.Real) or not float(v).is_integer() \
                    or v < 0:
                raise ValueError(f"`table` must hold non-negative whole counts; got {v!r}.")
            counts.append(int(v))
        return tuple(counts), bool(mid_p)
    old_arr, new_arr = _judgments(old, "old"), _judgments(new, "new")
    if len(old_arr) != len(new_arr):
        raise ValueError(f"`old` and `new` must have the same length; got {len(old_arr)} and "
                         f"{len(new_arr)}.")
    if ids is not None:
        ids_arr = np.asarray(ids, dtype=object)
        if ids_arr.shape != old_arr.shape:
            raise ValueError(f"`ids` must have one entry per case ({len(old_arr)}); got shape "
                             f"{ids_arr.shape}.")
        dup = pd.Index(ids_arr).duplicated()
        if dup.any():
            raise ValueError(f"`ids` must be unique; duplicated: {list(ids_arr[dup][:5])}.")
    keep = ~(missing_mask(np.asarray(old_arr, dtype=object))
             | missing_mask(np.asarray(new_arr, dtype=object)))
    if not keep.all():
        warnings.warn(f"{int((~keep).sum())} case(s) with a missing judgment were dropped "
                      "(never counted as failures).", PredstabDataWarning, stacklevel=3)
    judged = []
    for name, arr in (("old", old_arr), ("new", new_arr)):
        vals = np.asarray(arr, dtype=object)[keep]
        ok = np.array([isinstance(v, (numbers.Real, np.bool_)) and v in (0, 1) for v in vals], dtype=bool)
        if not ok.all():
            raise ValueError(f"`{name}` must contain only 0/1 (or True/False) judgments; got "
                             f"{vals[~ok][:5].tolist()}.")
        judged.append(vals.astype(int))
    o, n = judged
    a = int(np.sum((o == 1) & (n == 1)))
    b = int(np.sum((o == 1) & (n == 0)))
    c = int(np.sum((o == 0) & (n == 1)))
    d = int(np.sum((o == 0) & (n == 0)))
    return (a, b, c, d), bool(mid_p)


def mcnemar(table=None, *, old=None, new=None, ids=None, mid_p=False):
    r"""Exact paired McNemar test: did the new model fix more cases than it broke?

    From the 2 × 2 table of paired judgments (rows: old success / failure; columns: new
    success / failure) only the discordant cases count: ``b`` regressions and ``c``
    improvements, :math:`m = b + c`. Under the null each discordant case is equally likely
    to go either way, so

    .. math::

        p = \min\{1,\ 2 P[X \le \min(b, c)]\},\qquad X \sim \text{Binomial}(m, 1/2),

    and the mid-p version subtracts :math:`P[X = \min(b, c)]`.

    Parameters
    ----------
    table : array-like of shape (2, 2), optional
        ``[[a, b], [c, d]]``. Give this or ``old`` and ``new``.
    old, new : array-like of shape (n_cases,), optional
        Per-case judgments, 1 = success, 0 = failure (booleans accepted). A missing
        judgment (None/NaN) drops the case with a warning; it is never imputed as a failure.
        Records ``(id, old, new)`` can be passed as ``ids, old, new = zip(*records)``.
    ids : array-like of shape (n_cases,), optional
        Case identifiers; duplicates are rejected.
    mid_p : bool, default False
        Return the mid-p value.

    Returns
    -------
    McNemarResult
        ``.pvalue``, ``.table`` ``(a, b, c, d)``, ``.n``, ``.discordant``, ``.delta_pp``.

    Warns
    -----
    PredstabUndefinedWarning
        No cases: the p-value is undefined (NaN), which is distinct from ``p = 1`` (cases
        but no discordant pairs).
    PredstabDataWarning
        Cases with a missing judgment were dropped.

    References
    ----------
    McNemar, Q. (1947). Note on the sampling error of the difference between correlated
    proportions or percentages. *Psychometrika* 12, 153-157. https://doi.org/10.1007/BF02295996

    Fagerland, M. W., Lydersen, S. & Laake, P. (2013). The McNemar test for binary
    matched-pairs data: mid-p and asymptotic are better than exact conditional.
    *BMC Med. Res. Methodol.* 13, 91. https://doi.org/10.1186/1471-2288-13-91

    Matches `stats::binom.test(min(b, c), b + c, 0.5)$p.value` (and statsmodels'
    ``mcnemar(exact=True)``); see validation/.

    Examples
    --------
    >>> r = mcnemar([[146, 4], [14, 36]])
    >>> round(r.pvalue, 6), r.delta_pp, r.discordant
    (0.030884, 5.0, 18)
    >>> mcnemar(old=[1, 1, 0, 0, 1], new=[1, 0, 1, 1, 1]).table
    (2, 1, 2, 0)
    """
    (a, b, c, d), mid_p = _mcnemar_iv(table, old, new, ids, mid_p)
    n = a + b + c + d
    m = b + c
    k = min(b, c)
    if n == 0:
        warnings.warn("There are no cases; the McNemar p-value is undefined and set to NaN.",
                      PredstabUndefinedWarning, stacklevel=2)
        pvalue = float("nan")
        delta = float("nan")
    else:
        delta = 100.0 * (c - b) / n
        if m == 0:
            pvalue = 1.0
        elif mid_p:
            pvalue = min(1.0, 2.0 * float(stats.binom.cdf(k, m, 0.5)) - float(stats.binom.pmf(k, m, 0.5)))
        else:
            pvalue = binomial_two_sided_p(k, m)
    return McNemarResult(statistic=float(k), pvalue=pvalue, table=(a, b, c, d), n=n, discordant=m,
                         delta_pp=delta, mid_p=mid_p)
