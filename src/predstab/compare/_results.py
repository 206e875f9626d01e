"""The result object shared by the hypothesis tests of ``predstab.compare``."""

from __future__ import annotations

from dataclasses import dataclass

from .._utils import ConfidenceInterval, FrameMixin

__all__ = ["TestResult", "IntervalFrameMixin"]


class IntervalFrameMixin(FrameMixin):
    """``to_frame()`` that also reports ``confidence_interval`` as ``ci_low`` / ``ci_high``."""

    def to_frame(self):
        """Return the scalar fields and the interval bounds as a one-row DataFrame."""
        frame = super().to_frame()
        ci = getattr(self, "confidence_interval", None)
        if ci is not None:
            frame["ci_low"], frame["ci_high"] = ci.low, ci.high
        return frame


@dataclass(frozen=True)
class TestResult(IntervalFrameMixin):
    """Result of a paired or two-sample test of "B minus A".

    Attributes
    ----------
    statistic : float
        Test statistic (t, F, V, or a difference of means for permutation tests).
    pvalue : float
        p-value of the test.
    df : float or tuple or None
        Degrees of freedom (a pair for F tests), or None.
    estimate : float
        Estimated difference B - A (mean difference), or NaN where the test has none.
    confidence_interval : ConfidenceInterval or None
        Interval for ``estimate`` where the test provides one.
    method : str
        Name of the test (R's ``method`` string where there is one).
    """

    __test__ = False  # not a pytest test class

    statistic: float
    pvalue: float
    df: object = None
    estimate: float = float("nan")
    confidence_interval: ConfidenceInterval | None = None
    method: str = ""

    _frame_fields = ("statistic", "pvalue", "estimate", "method")
