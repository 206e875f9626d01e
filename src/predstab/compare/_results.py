"""The result objects shared by the hypothesis tests of ``predstab.compare``.

Every result follows the package's one convention (:mod:`predstab._core._results`): ``==`` never
raises, a short ``repr``, ``to_frame()`` as one row with ``ci_low`` / ``ci_high``, and a
``str`` laid out as base R's ``print.htest`` prints a test. A result with a ``statistic`` and a
``pvalue`` unpacks to that pair, as SciPy's test results do (:class:`StatisticPvalue`).
"""

from __future__ import annotations

import dataclasses
import math

from .._core._results import Result, r_pvalue, r_signif, result
from .._core._utils import ConfidenceInterval

__all__ = ["TestResult", "WilcoxonResult", "StatisticPvalue", "htest_lines"]

_ALT_TEXT = {"two-sided": "not equal to", "greater": "greater than", "less": "less than"}


def _fmt(x, digits):
    if isinstance(x, (tuple, list)):
        return ", ".join(_fmt(v, digits) for v in x)
    if isinstance(x, float) and math.isfinite(x) and x == int(x) and abs(x) < 1e15:
        return str(int(x))
    return r_signif(x, digits) if isinstance(x, (int, float)) else str(x)


class StatisticPvalue:
    """Unpacks to ``(statistic, pvalue)``, as SciPy's test results do (its ``_tuple_bunch``).

    ``statistic, pvalue = compare.ttest(a, b)`` works, ``len(result)`` is 2 and
    ``result[0]`` / ``result[1]`` index the pair, while every attribute stays where it is.

    Examples
    --------
    >>> from scipy import stats
    >>> from predstab import compare
    >>> a, b = [1.0, 2.0, 3.0, 4.0], [2.0, 2.5, 4.5, 5.0]
    >>> t, p = compare.ttest(a, b, paired=True)
    >>> round(t, 4), round(p, 4)
    (4.899, 0.0163)
    >>> (t, p) == tuple(stats.ttest_rel(b, a))
    True
    """

    __slots__ = ()

    def _pair(self):
        return (self.statistic, self.pvalue)

    def __iter__(self):
        return iter(self._pair())

    def __len__(self):
        return 2

    def __getitem__(self, index):
        return self._pair()[index]


def htest_lines(method, *, data="b and a", statistic_name=None, statistic=None,
                parameters=(), pvalue=None, alternative=None, null_name="difference in means",
                null_value=0.0, confidence_interval=None, confidence_level=None, estimates=()):
    """Lines of base R's ``print.htest`` (``digits = 7``: statistics to 5, p-values to 4 digits).

    Examples
    --------
    >>> print("\\n".join(htest_lines("McNemar's Chi-squared test", data="table",
    ...                              statistic_name="McNemar's chi-squared", statistic=5.6667,
    ...                              parameters=[("df", 3)], pvalue=0.129)))
    <BLANKLINE>
    \tMcNemar's Chi-squared test
    <BLANKLINE>
    data:  table
    McNemar's chi-squared = 5.6667, df = 3, p-value = 0.129
    """
    lines = ["", "\t" + method, "", f"data:  {data}"]
    out = []
    if statistic_name is not None and statistic is not None:
        out.append(f"{statistic_name} = {_fmt(statistic, 5)}")
    out += [f"{name} = {_fmt(value, 5)}" for name, value in parameters if value is not None]
    if pvalue is not None:
        shown = r_pvalue(pvalue, 4)
        out.append(shown.replace("p-value = <", "p-value <"))
    lines.append(", ".join(out))
    if alternative is not None:
        lines.append(f"alternative hypothesis: true {null_name} is {_ALT_TEXT[alternative]} "
                     f"{_fmt(float(null_value), 7)}")
    if confidence_interval is not None and confidence_level is not None:
        lines.append(f"{_fmt(100 * confidence_level, 7)} percent confidence interval:")
        lines.append(f" {_fmt(confidence_interval[0], 7)} {_fmt(confidence_interval[1], 7)}")
    if estimates:
        lines.append("sample estimates:")
        lines += [f"{name}: {_fmt(value, 7)}" for name, value in estimates]
    return lines


@result
class TestResult(StatisticPvalue, Result):
    """Result of a paired, one-sample or two-sample test of "B minus A".

    Unpacks to ``(statistic, pvalue)`` like SciPy's results: ``t, p = compare.ttest(a, b)``.

    Attributes
    ----------
    statistic : float
        Test statistic (t, F, V, or a difference of means for permutation tests).
    pvalue : float
        p-value of the test.
    df : float or tuple or None
        Degrees of freedom (a pair for F tests), or None.
    estimate : float
        Estimated difference B - A (mean difference; the mean for a one-sample test), or NaN
        where the test has none.
    confidence_interval : ConfidenceInterval or None
        Interval for ``estimate`` at ``confidence_level`` where the test provides one.
    method : str
        Name of the test (R's ``method`` string where there is one).
    alternative : {"two-sided", "greater", "less"}
    confidence_level : float or None
    """

    __test__ = False  # not a pytest test class

    statistic: float
    pvalue: float
    df: object = None
    estimate: float = float("nan")
    confidence_interval: ConfidenceInterval | None = None
    method: str = ""
    alternative: str = "two-sided"
    confidence_level: float | None = None
    statistic_name: str = dataclasses.field(default="statistic", repr=False)
    null_value: float = dataclasses.field(default=0.0, repr=False)

    def _str_lines(self):
        df = self.df
        params = [("df", df)] if not isinstance(df, tuple) else [("num df", df[0]), ("denom df", df[1])]
        if "One Sample" in self.method:
            name = "mean of x"
        elif self.method.startswith("Paired"):
            name = "mean difference"
        elif self.statistic_name == "t":
            name = "difference in means (B - A)"
        else:
            name = "estimate (B - A)"
        estimates = [] if self.estimate is None or math.isnan(self.estimate) else [(name, self.estimate)]
        return htest_lines(self.method, statistic_name=self.statistic_name, statistic=self.statistic,
                           parameters=params, pvalue=self.pvalue, alternative=self.alternative,
                           null_name="mean" if "One Sample" in self.method else "difference in means",
                           null_value=self.null_value,
                           confidence_interval=self.confidence_interval,
                           confidence_level=self.confidence_level, estimates=estimates)


@result
class WilcoxonResult(TestResult):
    """Result of :func:`~predstab.compare.wilcoxon`: a :class:`TestResult` with the parts of V.

    Attributes
    ----------
    statistic : float
        V, the sum of the ranks of the positive differences B - A (R's ``V``, coin's
        ``statistic(type = "linear")``).
    z : float
        Standardised statistic :math:`(V - E[V]) / \\sqrt{Var[V]}` without continuity
        correction (coin's ``statistic()``); NaN for the exact test.
    expectation, variance : float
        :math:`E[V]` and :math:`Var[V]` given the ranks (tie- and zero-adjusted).
    n_zero : int
        Zero differences (dropped by ``zero_method="wilcox"``, ranked then dropped by "pratt").
    zero_method : str
    """

    z: float = float("nan")
    expectation: float = float("nan")
    variance: float = float("nan")
    n_zero: int = 0
    zero_method: str = "wilcox"

    def _str_lines(self):
        return htest_lines(self.method, statistic_name="V", statistic=self.statistic,
                           pvalue=self.pvalue, alternative=self.alternative,
                           null_name="location shift", null_value=0.0)
