"""Paired McNemar tests of two models judged on the same cases: exact, mid-p, asymptotic, Bowker."""

from __future__ import annotations

import numbers
from numbers import Real

import numpy as np
import pandas as pd
from scipy import stats

from .._core._exceptions import PredstabDataWarning, PredstabUndefinedWarning, warn_outside
from .._core._results import Result, r_signif, result
from .._core._utils import missing_mask
from .._core._validation import Interval, Options, validate_params
from ._common import read_counts, refuse_masked
from ._power import binomial_two_sided_p
from ._results import StatisticPvalue, htest_lines
from ._unconditional import mcnemar_unconditional_p

__all__ = ["mcnemar", "McNemarResult"]

_METHODS = ("exact", "mid-p", "asymptotic", "unconditional")


@result
class McNemarResult(StatisticPvalue, Result):
    """Result of :func:`mcnemar`.

    Unpacks to ``(statistic, pvalue)``, as SciPy's test results do.

    Attributes
    ----------
    statistic : float
        Exact and mid-p: ``min(n12, n21)``, the smaller discordant count (statsmodels'
        convention). Asymptotic: McNemar's (or Bowker's) chi-squared; unconditional: McNemar's
        uncorrected chi-squared.
    pvalue : float
        Two-sided p-value; NaN when there are no cases.
    table : tuple
        2 x 2: ``(n11, n12, n21, n22)``: both succeed, regressions (A succeeds, B fails),
        improvements (A fails, B succeeds), both fail. k x k: the table as a tuple of rows.
    n : int
        Cases used.
    discordant : int
        Off-diagonal cases (``b + c`` for 2 x 2).
    delta_pp : float
        Change in success rate B minus A, percentage points: ``100 (n21 - n12) / n``
        (NaN for k x k).
    method : str
        "exact", "mid-p", "asymptotic" or "unconditional".
    df : int or None
        Degrees of freedom of the chi-squared (asymptotic only).
    correction : bool
        Continuity correction applied (asymptotic 2 x 2 only).
    """

    statistic: float
    pvalue: float
    table: tuple
    n: int
    discordant: int
    delta_pp: float
    method: str = "exact"
    df: int | None = None
    correction: bool = False

    @property
    def mid_p(self) -> bool:
        """True for the mid-p test."""
        return self.method == "mid-p"

    @property
    def regressions(self) -> int:
        """``n12``: cases A got right and B wrong (2 x 2 only)."""
        return self.table[1] if len(self.table) == 4 else None

    @property
    def improvements(self) -> int:
        """``n21``: cases A got wrong and B right (2 x 2 only)."""
        return self.table[2] if len(self.table) == 4 else None

    @property
    def r_method(self) -> str:
        """R's ``method`` string."""
        if self.method == "asymptotic":
            return "McNemar's Chi-squared test" + (" with continuity correction" if self.correction else "")
        if self.method == "unconditional":
            return "McNemar exact unconditional test"
        return ("Exact" if self.method == "exact" else "Mid-p") + " McNemar test (binomial, n12 vs n21)"

    def _str_lines(self):
        if self.method == "unconditional":
            return htest_lines(self.r_method, data="table", statistic_name="McNemar's chi-squared",
                               statistic=self.statistic, parameters=[("discordant", self.discordant)],
                               pvalue=self.pvalue) + [
                f"change in success rate: {r_signif(self.delta_pp)} percentage points (n = {self.n})"]
        if self.method == "asymptotic":
            return htest_lines(self.r_method, data="table", statistic_name="McNemar's chi-squared",
                               statistic=self.statistic, parameters=[("df", self.df)], pvalue=self.pvalue)
        return htest_lines(self.r_method, data="table",
                           statistic_name="min(n12, n21)", statistic=self.statistic,
                           parameters=[("discordant", self.discordant)], pvalue=self.pvalue) + [
            f"change in success rate: {r_signif(self.delta_pp)} percentage points (n = {self.n})"]


def _judgments(values, name):
    values = refuse_masked(values, name)
    try:
        arr = np.asarray(values)
    except ValueError:  # numpy refuses ragged nested sequences
        raise ValueError(f"`{name}` must be one-dimensional; got a ragged nested sequence.") from None
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



def _is_count_frame(frame):
    """A DataFrame of counts (``pd.crosstab(a, b)``) rather than (id, a, b) records:
    not 3 columns, or 3 columns labelled like its rows (a 3 x 3 crosstab)."""
    if frame.shape[1] != 3:
        return True
    return set(frame.index.tolist()) == set(frame.columns.tolist())


def _count_frame(frame):
    """The counts of a crosstab as an array, rows and columns aligned on the union of the labels.

    0/1 (or False/True) labels are put success first, the order of ``[[n11, n12], [n21, n22]]``
    (``pd.crosstab`` sorts 0 before 1); other labels keep the order of the rows, then the
    columns not among them.
    """
    labels = list(dict.fromkeys([*frame.index.tolist(), *frame.columns.tolist()]))
    try:
        binary = all(v in (0, 1) for v in labels)
    except TypeError:
        binary = False
    if binary:
        labels = sorted(labels, reverse=True)
    return frame.reindex(index=labels, columns=labels, fill_value=0).to_numpy()


def _table_or_records(table, method):
    """``(counts, None)`` for a table of counts, ``(None, (ids, a, b))`` for case records."""
    if isinstance(table, pd.DataFrame) and _is_count_frame(table):
        table = _count_frame(table)
    if isinstance(table, pd.DataFrame):
        if table.shape[1] != 3:
            raise ValueError(f"`a` as a DataFrame of records must have 3 columns (id, a, b); got "
                             f"{table.shape[1]}.")
        tab = np.asarray(list(table.itertuples(index=False, name=None)), dtype=object)
        is_records = True
    else:
        tab = np.asarray(table, dtype=object)
        # (n, 3) are case records (id, a, b); a 3 x 3 table of counts only asymptotically
        is_records = tab.ndim == 2 and tab.shape[1] == 3 and not (method == "asymptotic"
                                                                 and tab.shape[0] == 3)
    if is_records:
        if tab.ndim != 2:
            raise ValueError(f"`a` records must be (id, a, b) triples; got shape {tab.shape}.")
        return None, (tab[:, 0], tab[:, 1], tab[:, 2])
    counts = read_counts(tab, "a")
    if counts.shape != (2, 2) and method != "asymptotic":
        raise ValueError(f"`a` must be a 2 x 2 table [[n11, n12], [n21, n22]] for method={method!r} (k x k "
                         f"tables take method='asymptotic', Bowker's test); got shape {counts.shape}.")
    return counts, None


def _mcnemar_iv(a, b, ids, method, mid_p):
    if mid_p:
        if method not in ("exact", "mid-p"):
            raise ValueError(f"`mid_p=True` asks for the mid-p test; got method={method!r} as well.")
        method = "mid-p"
    if b is None:  # a table of counts, or case records
        if ids is not None:
            raise TypeError("`ids` goes with per-case judgments `a` and `b`; a table or records in `a` "
                            "alone carry their own (give either, not both).")
        counts, records = _table_or_records(a, method)
        if counts is not None:
            return counts, method
        ids, a, b = records
    a_arr, b_arr = _judgments(a, "a"), _judgments(b, "b")
    if len(a_arr) != len(b_arr):
        raise ValueError(f"`a` and `b` must have the same length; got {len(a_arr)} and {len(b_arr)}.")
    if ids is not None:
        ids_arr = np.asarray(ids)
        if ids_arr.shape != a_arr.shape:
            raise ValueError(f"`ids` must have one entry per case ({len(a_arr)}); got shape "
                             f"{ids_arr.shape}.")
        dup = pd.Index(ids_arr).duplicated()
        if dup.any():
            raise ValueError(f"`ids` must be unique; duplicated: {list(ids_arr[dup][:5])}.")
    keep = ~(missing_mask(a_arr) | missing_mask(b_arr))
    if not keep.all():
        warn_outside(f"{int((~keep).sum())} case(s) with a missing judgment were dropped "
                     "(never counted as failures).", PredstabDataWarning)
    ja, jb = _zero_one(a_arr[keep], "a"), _zero_one(b_arr[keep], "b")
    counts = np.bincount(2 * (1 - ja) + (1 - jb), minlength=4).reshape(2, 2)
    return counts.astype(np.int64), method


def _binomial_p(n12, n21, method):
    """Two-sided exact or mid-p value of min(n12, n21) in Binomial(n12 + n21, 1/2)."""
    m, k = n12 + n21, min(n12, n21)
    exact = binomial_two_sided_p(k, m)
    if method == "exact":
        return exact
    # mid-p: the exact p-value minus half the probability of the observed |n12 - n21|: when they
    # differ that is P(X = n12) + P(X = n21) = 2 P(X = k); when equal P(X = n12) alone, so
    # mid-p = 1 - P(X = n12) / 2 (Fagerland, Lydersen & Laake 2013)
    pmf = float(stats.binom.pmf(k, m, 0.5))
    return exact - (0.5 * pmf if n12 == n21 else pmf)


def _chi_square(counts, correction):
    """McNemar's (k = 2, optionally continuity-corrected) or Bowker's chi-squared and its df."""
    upper = np.triu_indices(counts.shape[0], 1)
    s = (counts + counts.T)[upper].astype(float)
    d = (counts - counts.T)[upper].astype(float)
    if counts.shape == (2, 2) and correction:
        d = np.abs(d) - 1.0
    used = s > 0  # a pair with no off-diagonal case carries no evidence (R: 0/0 = NaN)
    stat = float(np.sum(d[used] ** 2 / s[used]))
    df = int(len(s))
    return stat, df, float(stats.chi2.sf(stat, df))


@validate_params({
    "a": ["array-like", pd.DataFrame],
    "b": ["array-like", None],
    "ids": ["array-like", None],
    "method": [Options(_METHODS)],
    "correction": ["boolean"],
    "mid_p": ["boolean"],
    "gamma": [Interval(Real, 0, 1, closed="left")],
}, renamed={"table": "a", "old": "a", "new": "b"})
def mcnemar(a, b=None, /, *, ids=None, method="exact", correction=True, mid_p=False, gamma=1e-4):
    r"""Paired McNemar test: did B fix more cases than it broke?

    Null hypothesis: among the cases A and B judge differently, B fixes a case as often as
    it breaks one (marginal homogeneity; ``b`` ~ Binomial(b + c, 1/2)).

    Like R's ``mcnemar.test(x, y = NULL)``: ``mcnemar(a, b)`` takes the per-case judgments
    of A and B, ``mcnemar(a)`` a table of counts (or case records). From the 2 × 2 table
    of paired judgments (rows: A's success / failure; columns: B's success / failure) only
    the discordant cases count: :math:`n_{12}` regressions (A right, B wrong) and
    :math:`n_{21}` improvements, :math:`m = n_{12} + n_{21}`. Under the null each
    discordant case is equally likely to go either way. The exact test (default) is

    .. math::

        p = \min\{1,\ 2 P[X \le \min(n_{12}, n_{21})]\},\qquad X \sim \text{Binomial}(m, 1/2);

    the mid-p test subtracts half the probability of the observed
    :math:`|n_{12} - n_{21}|` (:math:`P[X = \min(n_{12}, n_{21})]` when they differ,
    :math:`\tfrac12 P[X = n_{12}]` when they are equal, so that its p-value is
    :math:`1 - \tfrac12 P[X = n_{12}]` there, not 1); the asymptotic test refers

    .. math::

        \chi^2 = \frac{(|n_{12} - n_{21}| - 1)^2}{n_{12} + n_{21}}
        \quad(\text{``correction=False``: } (n_{12} - n_{21})^2/(n_{12} + n_{21}))

    to :math:`\chi^2_1`. The exact unconditional test (``method="unconditional"``, Suissa
    and Shuster 1991) refers the uncorrected statistic to its distribution over all tables of
    :math:`n` cases, maximised over the nuisance probability of a discordant case (with Berger
    and Boos' ``gamma``). A k × k table (k ≥ 3) gets Bowker's symmetry test,
    :math:`\chi^2 = \sum_{i<j} (n_{ij} - n_{ji})^2 / (n_{ij} + n_{ji})` on
    :math:`k(k-1)/2` degrees of freedom (``method="asymptotic"`` only). The change in
    success rate, ``.delta_pp``, is B minus A.

    Parameters
    ----------
    a : array-like of shape (n_cases,), (2, 2), (k, k) or (n_cases, 3), or DataFrame
        With ``b``: A's per-case judgments, 1 = success, 0 = failure (booleans accepted).
        Alone: the counts ``[[n11, n12], [n21, n22]]`` (or a k × k table: row = class given
        by A, column = by B), or case records ``(id, a, b)`` (a sequence of triples or a
        3-column DataFrame). A DataFrame of counts such as ``pd.crosstab(a, b)`` works too
        (a DataFrame that does not have 3 columns, or whose 3 columns carry its row labels):
        rows and columns are aligned on their labels (a category one classifier never gives
        counts 0), and 0/1 or False/True labels are put success (1) first, so
        ``pd.crosstab`` of 0/1 judgments gives the same test as ``mcnemar(a, b)``. With
        ``method="asymptotic"`` a 3 × 3 array is a table of counts, not three records.
    b : array-like of shape (n_cases,), optional
        B's per-case judgments, matched with ``a`` by position. A missing judgment
        (None/NaN/pd.NA) in ``a`` or ``b`` drops the case with a warning; it is never
        imputed as a failure.
    ids : array-like of shape (n_cases,), optional
        Case identifiers of the judgments; duplicates are rejected.
    method : {"exact", "mid-p", "asymptotic", "unconditional"}, default "exact"
    correction : bool, default True
        Continuity correction of the asymptotic 2 × 2 test (R's ``correct``); as in R it
        does not act on k × k tables.
    mid_p : bool, default False
        Same as ``method="mid-p"`` (the spelling before ``method``).
    gamma : float in [0, 1), default 1e-4
        ``method="unconditional"``: Berger and Boos' adjustment, the maximum is taken over
        the Clopper-Pearson :math:`1 - \gamma` interval of the discordant share (1,000
        equally spaced values) and :math:`\gamma` added; 0 maximises over [0, 1]. As
        contingencytables' ``gamma`` (and its ``num_pi_values = 1000``).

    Returns
    -------
    McNemarResult
        ``.statistic``, ``.pvalue``, ``.table``, ``.n``, ``.discordant``, ``.delta_pp``,
        ``.method``, ``.df`` (asymptotic); unpacks to ``(statistic, pvalue)``. With
        ``method="unconditional"`` the statistic is McNemar's uncorrected chi-squared.

    Warns
    -----
    PredstabUndefinedWarning
        No cases: the p-value is undefined (NaN), which is distinct from ``p = 1`` (cases
        but no discordant pairs).
    PredstabDataWarning
        Cases with a missing judgment were dropped.

    Notes
    -----
    Without discordant cases every method returns ``p = 1`` (statistic 0); R's
    ``mcnemar.test`` divides 0 by 0 there (NaN, or ``Inf`` with the correction). In Bowker's
    test a pair of cells that are both 0 contributes nothing (R: NaN) and still counts in the
    degrees of freedom, as in R.

    References
    ----------
    McNemar, Q. (1947). Note on the sampling error of the difference between correlated
    proportions or percentages. *Psychometrika* 12, 153-157. https://doi.org/10.1007/BF02295996

    Bowker, A. H. (1948). A test for symmetry in contingency tables. *JASA* 43, 572-574.
    https://doi.org/10.1080/01621459.1948.10483284

    Suissa, S. & Shuster, J. J. (1991). The 2 x 2 matched-pairs trial: exact unconditional
    design and analysis. *Biometrics* 47, 361-372. https://doi.org/10.2307/2532131

    Berger, R. L. & Boos, D. D. (1994). P values maximised over a confidence set for the
    nuisance parameter. *JASA* 89, 1012-1016. https://doi.org/10.1080/01621459.1994.10476836

    Fagerland, M. W., Lydersen, S. & Laake, P. (2013). The McNemar test for binary
    matched-pairs data: mid-p and asymptotic are better than exact conditional.
    *BMC Med. Res. Methodol.* 13, 91. https://doi.org/10.1186/1471-2288-13-91

    Matches `stats::binom.test(min(n12, n21), n12 + n21, 0.5)$p.value` (exact; statsmodels'
    ``mcnemar(exact=True)``) and `stats::mcnemar.test(table, correct = correction)` (asymptotic
    and Bowker); ``method="unconditional"`` matches contingencytables'
    `McNemar_exact_unconditional_test_paired_2x2(n, gamma)` (P = 0.034053 for Cavo et al.
    2012's table ``[[59, 6], [16, 80]]``).

    Examples
    --------
    >>> r = mcnemar([[146, 4], [14, 36]])
    >>> round(r.pvalue, 6), r.delta_pp, r.discordant
    (0.030884, 5.0, 18)
    >>> round(mcnemar([[76, 4], [7, 20]], method="asymptotic").pvalue, 6)
    0.546494
    >>> round(mcnemar([[24, 10, 10], [5, 30, 7], [5, 14, 14]], method="asymptotic").statistic, 4)
    5.6667
    >>> r = mcnemar([1, 1, 0, 0, 1], [1, 0, 1, 1, 1])
    >>> r.table, r.delta_pp
    ((2, 1, 2, 0), 20.0)
    >>> mcnemar([("q1", 1, 1), ("q2", 0, 1), ("q3", 1, 0), ("q4", 0, 1)]).table
    (1, 1, 2, 0)
    >>> import pandas as pd
    >>> a, b = pd.Series([1, 1, 0, 0, 1], name="A"), pd.Series([1, 0, 1, 1, 1], name="B")
    >>> mcnemar(pd.crosstab(a, b)).table
    (2, 1, 2, 0)
    """
    counts, method = _mcnemar_iv(a, b, ids, method, mid_p)
    n = int(counts.sum())
    two = counts.shape == (2, 2)
    shown = tuple(int(v) for v in counts.ravel()) if two else tuple(tuple(int(v) for v in row)
                                                                   for row in counts)
    off = int(n - np.trace(counts))
    corrected = bool(correction and two and method == "asymptotic")
    df = None
    if n == 0:
        warn_outside("There are no cases; the McNemar p-value is undefined and set to NaN.",
                     PredstabUndefinedWarning)
        stat, pvalue, delta = float("nan"), float("nan"), float("nan")
        if method == "asymptotic":
            df = int(counts.shape[0] * (counts.shape[0] - 1) // 2)
    else:
        n12, n21 = int(counts[0, 1]), int(counts[1, 0])
        delta = 100.0 * (n21 - n12) / n if two else float("nan")
        if method == "asymptotic":
            stat, df, pvalue = _chi_square(counts, corrected)
            if off == 0:
                stat, pvalue = 0.0, 1.0
        elif method == "unconditional":
            stat = float((n12 - n21) ** 2 / off) if off else 0.0
            pvalue = mcnemar_unconditional_p(n12, n21, n, gamma=gamma)
        else:
            stat = float(min(n12, n21))
            pvalue = 1.0 if off == 0 else _binomial_p(n12, n21, method)
    return McNemarResult(statistic=stat, pvalue=pvalue, table=shown, n=n, discordant=off, delta_pp=delta,
                         method=method, df=df, correction=corrected)
