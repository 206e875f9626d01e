"""Values of predstab.compare's power functions that compare/_power's first mutation sample
(2026-12-07, seed 7) found unpinned: the noncentral t tail where SciPy gives up (|ncp| beyond
about 1e12), the sign of a two-sided effect, the `ratio` message, the win-rate test's print and
the exact two-sided binomial p-value of the upper tail.

The far-tail values are computed here independently: with one degree of freedom (one-sample,
n = 2) the t quantile is Cauchy's, q = cot(pi alpha), and S = |Z|, so for a noncentrality far
beyond 1 the power P((Z + ncp) / S > q) is P(S < ncp / q) = 2 Phi(ncp / q) - 1 (q > 0) or
P(S > ncp / q) = 2 (1 - Phi(ncp / q)) (q < 0), to a relative error ~ 1 / |ncp|.
"""

import math

import pytest
from scipy import stats

from predstab import compare
from predstab.compare._power import binomial_two_sided_p

ALPHA = 1e-13
Q = 1.0 / math.tan(math.pi * ALPHA)        # t quantile, 1 df: 3.18e12
D = Q / math.sqrt(2.0)                     # ncp = d sqrt(2) = q


def test_far_tail_where_scipy_gives_up_follows_the_chi_distribution():
    assert not math.isfinite(stats.nct.sf(Q, 1, Q))   # the fallback is what is tested
    one_sided = compare.power_ttest(D, 2, significance=ALPHA, test="one-sample", alternative="one-sided")
    assert one_sided == pytest.approx(2.0 * stats.norm.cdf(1.0) - 1.0, rel=1e-9)    # 0.6827
    # two-sided at 2 alpha: the same q; the lower tail is 0 (Phi(-ncp) bounds it)
    two_sided = compare.power_ttest(D, 2, significance=2.0 * ALPHA, test="one-sample")
    assert two_sided == pytest.approx(2.0 * stats.norm.cdf(1.0) - 1.0, rel=1e-9)
    # a negative effect, one-sided: no power at all
    assert compare.power_ttest(-D, 2, significance=ALPHA, test="one-sample", alternative="one-sided") == 0.0
    # significance near 1: q < 0, P(S > ncp / q)
    sig = 1.0 - 1e-13
    q_low = -1.0 / math.tan(math.pi * (1.0 - sig))
    got = compare.power_ttest(-D, 2, significance=sig, test="one-sample", alternative="one-sided")
    assert got == pytest.approx(2.0 * stats.norm.sf(Q / -q_low), rel=1e-6)        # 0.3172


def test_far_tail_at_the_median_quantile_is_exactly_zero_or_one():
    # significance 0.5 one-sided: q = 0, so P(T > 0) = P(Z + ncp > 0): 1 for ncp >> 0, 0 for ncp << 0
    assert compare.power_ttest(2e12, 2, significance=0.5, test="one-sample", alternative="one-sided") == 1.0
    assert compare.power_ttest(-2e12, 2, significance=0.5, test="one-sample", alternative="one-sided") == 0.0


def test_two_sided_power_where_both_lower_tails_fail_is_one_not_nan():
    assert compare.power_ttest(1e12, 2) == 1.0
    assert compare.power_ttest(1e12, 2, test="paired") == 1.0


def test_two_sided_effects_count_by_size_not_sign():
    # R: power.t.test(n = 64, delta = -0.5)$power = 0.8014586234 (abs(delta); strict = FALSE)
    assert compare.power_ttest(-0.5, 64, strict=False) == pytest.approx(0.8014586234, abs=1e-9)
    assert compare.power_ttest(-0.5, 64, strict=False) == compare.power_ttest(0.5, 64, strict=False)
    assert compare.seeds_needed(-0.5) == 64
    # R: power.t.test(delta = -0.5, power = 0.8, strict = TRUE)$n = 63.76561017
    assert compare.power_ttest_n(-0.5) == pytest.approx(63.76561017, abs=1e-7)


def test_an_infinite_ratio_is_named():
    with pytest.raises(ValueError) as info:
        compare.seeds_needed(0.5, ratio=math.inf)
    assert str(info.value) == "`ratio` must be finite; got inf."


def test_win_rate_test_prints_r_binom_test():
    # R 4.2.2: binom.test(55, 100); binom.test(7, 20, p = 0.3, alternative = "greater", conf.level = 0.9)
    # (R prints the estimate as a named vector on two lines; predstab's results on one)
    assert str(compare.win_rate_test(55, 100)).strip("\n") == "\n".join([
        "\tExact binomial test",
        "",
        "data:  55 and 100",
        "number of successes = 55, number of trials = 100, p-value = 0.3682",
        "alternative hypothesis: true probability of success is not equal to 0.5",
        "95 percent confidence interval:",
        " 0.4472802 0.6496798",
        "sample estimates:",
        "probability of success: 0.55",
    ])
    text = str(compare.win_rate_test(7, 20, p=0.3, alternative="greater", confidence_level=0.9))
    assert "number of successes = 7, number of trials = 20, p-value = 0.392\n" in text
    assert "alternative hypothesis: true probability of success is greater than 0.3\n" in text
    assert "90 percent confidence interval:\n 0.206664 1\n" in text


@pytest.mark.parametrize("x, n", [(0, 1), (3, 10), (7, 10), (10, 10), (5, 10), (31, 40), (60, 100)])
def test_binomial_two_sided_p_equals_scipy_on_both_tails(x, n):
    assert binomial_two_sided_p(x, n) == pytest.approx(stats.binomtest(x, n, 0.5).pvalue, rel=1e-12)


def test_binomial_two_sided_p_of_no_trials_is_nan():
    assert math.isnan(binomial_two_sided_p(0, 0))
