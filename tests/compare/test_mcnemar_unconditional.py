"""McNemar's exact unconditional test, as contingencytables has it (issue 38), pinned to the
peer's own values.

Each expected value was produced by the peer named beside it, run while the test was written
(not in CI); an independent computation in the test checks the definition where it is short.
"""

import numpy as np
import pytest


# --------------------------------------------------------------------------- McNemar, unconditional
def _enumerated_unconditional_p(table, gamma):
    """contingencytables' algorithm written out: every (x12, x21) of n cases, trinomial weights."""
    from math import comb

    from scipy.stats import beta

    (n11, n12), (n21, n22) = table
    n = n11 + n12 + n21 + n22
    t_obs = (n12 - n21) ** 2 / (n12 + n21)
    region = [(x, y) for x in range(n + 1) for y in range(n + 1 - x)
              if x + y > 0 and (x - y) ** 2 / (x + y) >= t_obs]
    m = n12 + n21
    low = beta.ppf(gamma / 2, m, n - m + 1) if gamma else 0.0
    high = beta.ppf(1 - gamma / 2, m + 1, n - m) if gamma else 1.0
    best = 0.0
    for pi in np.linspace(low, high, 1000):
        total = sum(comb(n, x) * comb(n - x, y) * (pi / 2) ** (x + y) * (1 - pi) ** (n - x - y)
                    for x, y in region)
        best = max(best, total)
    return min(best + gamma, 1.0)


# contingencytables 3.0 (R): McNemar_exact_unconditional_test_paired_2x2(n)$Pvalue, gamma = 0.0001;
# 0.034053 for Cavo et al. (2012) is its documented example (Fagerland, Lydersen & Laake 2017,
# Table 8.4), 0.542071 its unit test (floor(cavo / 10))
@pytest.mark.parametrize(("table", "expected"), [([[59, 6], [16, 80]], 0.034053),
                                                 ([[5, 0], [1, 8]], 0.542071)])
def test_mcnemar_unconditional_matches_contingencytables(table, expected):
    from predstab.compare import mcnemar

    res = mcnemar(table, method="unconditional")
    assert res.pvalue == pytest.approx(expected, abs=5e-7)
    assert res.statistic == pytest.approx((table[0][1] - table[1][0]) ** 2 / (table[0][1] + table[1][0]))
    assert res.method == "unconditional" and "exact unconditional" in str(res)


@pytest.mark.parametrize(("table", "gamma"), [([[12, 3], [9, 20]], 0.0), ([[1, 1], [7, 12]], 1e-4),
                                              ([[7, 25], [2, 68]], 1e-4), ([[3, 4], [4, 2]], 1e-4),
                                              ([[10, 0], [3, 0]], 0.0)])
def test_mcnemar_unconditional_equals_full_enumeration(table, gamma):
    from predstab.compare import mcnemar

    expected = _enumerated_unconditional_p(table, gamma)
    assert mcnemar(table, method="unconditional", gamma=gamma).pvalue == pytest.approx(expected, rel=1e-9)


def test_mcnemar_unconditional_edges_and_size():
    from predstab.compare import mcnemar

    assert mcnemar([[5, 0], [0, 8]], method="unconditional").pvalue == 1.0  # no discordant case
    with pytest.raises(ValueError, match="gamma"):
        mcnemar([[5, 1], [3, 8]], method="unconditional", gamma=1.0)
    # 100,000 cases: a window of the binomial weights per block of the grid (bounded time and memory);
    # with n12 = n21 every table is at least as extreme, so p = 1
    assert mcnemar([[49000, 500], [500, 50000]], method="unconditional").pvalue == 1.0
    big = mcnemar([[49000, 400], [480, 50120]], method="unconditional", gamma=0)
    assert big.pvalue == pytest.approx(mcnemar([[49000, 400], [480, 50120]], method="mid-p").pvalue, rel=0.1)
