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
    statistic : float
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
    arr = np.asarray(values)
    if arr.dtype.kind not in "biuf":
        arr = np.asarray(values, dtype=object)
    if arr.ndim != 1:
        raise ValueError(f"`{name}` must be one-dimensional; got shape {arr.shape}.")
    return arr


def _zero_one(arr, name):
    """Validated 0/1 integer array (numeric arrays checked vectorised, object arrays per item)."""
    if arr.dtype.kind in "biuf":
        bad = ~((arr == 0) | (arr == 1))
        if bad.any():
            raise ValueError(f"`{name}` must contain only 0/1 (or True/False) judgments; got "
                             f"{arr[bad][:5].tolist()}.")
        return arr.astype(np.int8)
    ok = np.array([isinstance(v, (numbers.Real, np.bool_)) and v in (0, 1) for v in arr], dtype=bool)
    if not ok.all():
        raise ValueError(f"`{name}` must contain only 0/1 (or True/False) judgments; got "
                         f"{arr[~ok][:5].tolist()}.")
    return arr.astype(np.int8)


def _mcnemar_iv(table, old, new, ids, mid_p):
    if not isinstance(mid_p, (bool, np.bool_)):
        raise TypeError(f"`mid_p` must be True or False; got {mid_p!r}.")
    if table is not None:
        if old is not None or new is not None or ids is not None:
            raise TypeError("Give either `table` or `old`/`new` (with optional `ids`), not both.")
        if isinstance(table, pd.DataFrame):
            if table.shape[1] != 3:
                raise ValueError(f"`table` as a DataFrame must have 3 columns (id, old, new); got "
                                 f"{table.shape[1]}.")
            table = list(table.itertuples(index=False, name=None))
        tab = np.asarray(table, dtype=object)
        if tab.ndim == 2 and tab.shape[1] == 3:  # records (id, old, new)
            ids, old, new, table = tab[:, 0], tab[:, 1], tab[:, 2], None
    if table is not None:
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
        ids_arr = np.asarray(ids)
        if ids_arr.shape != old_arr.shape:
            raise ValueError(f"`ids` must have one entry per case ({len(old_arr)}); got shape "
                             f"{ids_arr.shape}.")
        dup = pd.Index(ids_arr).duplicated()
        if dup.any():
            raise ValueError(f"`ids` must be unique; duplicated: {list(ids_arr[dup][:5])}.")
    keep = ~(missing_mask(old_arr) | missing_mask(new_arr))
    if not keep.all():
        warnings.warn(f"{int((~keep).sum())} case(s) with a missing judgment were dropped "
                      "(never counted as failures).", PredstabDataWarning, stacklevel=3)
    judged = [_zero_one(old_arr[keep], "old"), _zero_one(new_arr[keep], "new")]
    o, n = judged
    a, b, c, d = (int(v) for v in np.bincount(2 * (1 - o) + (1 - n), minlength=4))
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
    table : array-like of shape (2, 2) or (n_cases, 3), or DataFrame, optional
        The counts ``[[a, b], [c, d]]``, or case records ``(id, old, new)`` (a sequence of
        triples or a 3-column DataFrame). Give this or ``old`` and ``new``.
    old, new : array-like of shape (n_cases,), optional
        Per-case judgments, 1 = success, 0 = failure (booleans accepted). A missing
        judgment (None/NaN/pd.NA) drops the case with a warning; it is never imputed as a
        failure.
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
    >>> mcnemar([("q1", 1, 1), ("q2", 0, 1), ("q3", 1, 0), ("q4", 0, 1)]).table
    (1, 1, 2, 0)
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
