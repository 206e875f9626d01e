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
    from scipy.special import gammaln, xlog1py, xlogy
    from scipy.stats import beta

    (n11, n12), (n21, n22) = table
    n = n11 + n12 + n21 + n22
    t_obs = (n12 - n21) ** 2 / (n12 + n21)
    region = np.array([(x, y) for x in range(n + 1) for y in range(n + 1 - x)
                       if x + y > 0 and (x - y) ** 2 / (x + y) >= t_obs], dtype=float)
    m = n12 + n21
    # Clopper-Pearson's interval, its ends 0 and 1 where the beta quantile is not defined
    low = beta.ppf(gamma / 2, m, n - m + 1) if gamma and m > 0 else 0.0
    high = beta.ppf(1 - gamma / 2, m + 1, n - m) if gamma and m < n else 1.0
    x, y = region.T
    # log of n! / (x! y! (n - x - y)!) (pi / 2)^(x + y) (1 - pi)^(n - x - y), every pi of the grid
    log_coef = gammaln(n + 1) - gammaln(x + 1) - gammaln(y + 1) - gammaln(n - x - y + 1)
    pi = np.linspace(low, high, 1000)[:, None]
    terms = np.exp(log_coef + xlogy(x + y, pi / 2) + xlog1py(n - x - y, -pi))
    return min(float(terms.sum(axis=1).max()) + gamma, 1.0)


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
                                              ([[10, 0], [3, 0]], 0.0),
                                              # the largest P(pi) at the first point of a block of the grid
                                              ([[1, 3], [6, 0]], 1e-4)])
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


def test_tail_mass_equals_enumeration_on_the_edges():
    # q_s = P[T(X, s - X) >= t_obs], X ~ Binomial(s, 1/2), by enumeration; t_obs from real tables
    # so that tables on the edge of the region (T == t_obs) occur
    from scipy import stats

    from predstab.compare._unconditional import _tail_mass

    n = 40
    for n12, n21 in [(0, 1), (1, 1), (2, 7), (5, 5), (3, 12), (0, 9), (13, 14), (1, 20)]:
        t_obs = (n12 - n21) ** 2 / (n12 + n21)
        expected = [sum(stats.binom.pmf(x, s, 0.5) for x in range(s + 1)
                        if s > 0 and (x - (s - x)) ** 2 / s >= t_obs) for s in range(n + 1)]
        np.testing.assert_allclose(_tail_mass(n, t_obs), expected, rtol=1e-12, atol=1e-300)


def test_large_tables_equal_the_full_sum_over_every_discordant_count():
    # the windows of the binomial weights leave nothing out: P(pi) summed over every s, in the test
    from scipy import special, stats

    from predstab.compare import mcnemar
    from predstab.compare._unconditional import _tail_mass

    # (0, 700, 3000): q_s = 0 (s < 700) over the whole window of the first block of the grid
    for (n12, n21, n, gamma) in [(40, 62, 3000, 1e-4), (40, 62, 3000, 0.0), (300, 200, 2500, 1e-3),
                                 (0, 700, 3000, 0.0)]:
        q = _tail_mass(n, (n12 - n21) ** 2 / (n12 + n21))
        m = n12 + n21
        low = special.betaincinv(m, n - m + 1, gamma / 2) if gamma else 0.0
        high = special.betaincinv(m + 1, n - m, 1 - gamma / 2) if gamma else 1.0
        grid = np.linspace(low, high, 1000)
        weights = stats.binom.pmf(np.arange(n + 1)[None, :], n, grid[:, None])
        expected = min(float((weights @ q).max()) + gamma, 1.0)
        table = [[n - m - 10, n12], [n21, 10]]
        got = mcnemar(table, method="unconditional", gamma=gamma).pvalue
        assert got == pytest.approx(expected, rel=1e-12)


def test_every_case_discordant():
    # m = n: the Clopper-Pearson interval reaches 1
    from predstab.compare import mcnemar

    table = [[0, 2], [9, 0]]
    assert mcnemar(table, method="unconditional").pvalue == pytest.approx(
        _enumerated_unconditional_p(table, 1e-4), rel=1e-9)


def test_no_numpy_warning_reaches_the_user():
    # the candidates of s = 0 discordant cases divide by zero (0 / 0 and 4 / 0): silenced inside
    import warnings

    from predstab.compare import mcnemar

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert mcnemar([[3, 1], [4, 5]], method="unconditional").pvalue == pytest.approx(
            _enumerated_unconditional_p([[3, 1], [4, 5]], 1e-4), rel=1e-9)
