"""Wilcoxon's zsplit, as scipy has it (issue 38), pinned to the peer's own values.

Each expected value was produced by the peer named beside it, run while the test was written
(not in CI); an independent computation in the test checks the definition where it is short.
"""

import numpy as np
import pytest
from scipy import special

from predstab.compare import wilcoxon

# --------------------------------------------------------------------------- Wilcoxon, zsplit
A = np.array([0.80, 0.71, 0.65, 0.90, 0.55, 0.60, 0.70, 0.70, 0.61, 0.50])
B = np.array([0.82, 0.75, 0.64, 0.98, 0.60, 0.60, 0.70, 0.72, 0.61, 0.55])  # three zero differences


# scipy 1.17.1: stats.wilcoxon(B - A, zero_method="zsplit", method="approx", correction=c,
# alternative=alt).pvalue
@pytest.mark.parametrize(("correction", "alternative", "expected"), [
    (True, "two-sided", 0.040962980412525496), (True, "greater", 0.020481490206262748),
    (True, "less", 0.9840674892774014), (False, "two-sided", 0.03617080275646433),
    (False, "greater", 0.018085401378232165), (False, "less", 0.9819145986217679)])
def test_wilcoxon_zsplit_matches_scipy(correction, alternative, expected):
    res = wilcoxon(A, B, zero_method="zsplit", correction=correction, alternative=alternative)
    assert res.pvalue == pytest.approx(expected, rel=1e-12)
    assert res.zero_method == "zsplit" and res.n_zero == 3


def test_wilcoxon_zsplit_statistic_by_hand():
    d = B - A
    # ranks of |d| over all ten differences, ties averaged: the three zeros share ranks 1-3
    ranks = np.argsort(np.argsort(np.abs(d), kind="stable"), kind="stable") + 1.0
    for value in np.unique(np.abs(d)):
        ranks[np.abs(d) == value] = ranks[np.abs(d) == value].mean()
    zero = d == 0
    v = ranks[d > 0].sum() + ranks[zero].sum() / 2  # scipy's min(r+, r-) is 7 = 55 - 48
    res = wilcoxon(A, B, zero_method="zsplit", correction=False)
    assert res.statistic == v == 48.0
    assert res.expectation == ranks.sum() / 2
    assert res.variance == pytest.approx(np.sum(ranks**2) / 4, rel=1e-15)
    z = (v - ranks.sum() / 2) / np.sqrt(np.sum(ranks**2) / 4)
    assert res.z == pytest.approx(z, rel=1e-12)
    assert res.pvalue == pytest.approx(2 * special.ndtr(-z), rel=1e-12)  # no correction: the normal tail
    assert res.method == "Wilcoxon signed rank test, zeros split"
    # pratt and wilcox differ from zsplit on these zeros
    assert wilcoxon(A, B, zero_method="pratt").pvalue != pytest.approx(res.pvalue, rel=1e-3)


def test_wilcoxon_zsplit_refuses_exact():
    with pytest.raises(ValueError, match="`exact=True` is not available with zero_method='zsplit'"):
        wilcoxon(A, B, zero_method="zsplit", exact=True)
    # without zeros or ties zsplit is the plain signed-rank test's normal approximation
    a, b = np.array([1.0, 2.0, 3.5, 4.0, 5.5]), np.array([1.5, 2.2, 3.0, 4.9, 6.6])
    assert wilcoxon(a, b, zero_method="zsplit").pvalue == pytest.approx(
        wilcoxon(a, b, exact=False).pvalue, rel=1e-14)
