"""Power and sample size: the issue's figures, far tails, unequal arms by integration,
one-sample and paired designs, win rates and the saw-toothed games_needed.
"""

import numpy as np
import pytest
from scipy import stats

from predstab import ConfidenceInterval, compare


@pytest.mark.parametrize("d, n, power", [
    (0.2, 394, 0.8006), (0.5, 64, 0.8015), (1.0, 17, 0.8070), (1.5, 9, 0.8476),
    (2.0, 6, 0.8764), (3.0, 4, 0.9389),
])
def test_seeds_needed_issue_figures(d, n, power):
    assert compare.seeds_needed(d) == n
    assert compare.power_ttest(d, n) == pytest.approx(power, abs=5e-5)   # 4 printed decimals
    assert compare.power_ttest(d, n - 1) < 0.8
    # normal approximation 15.6978 / d^2 is close (and below) for moderate d
    assert 2 * (stats.norm.isf(0.025) + stats.norm.ppf(0.8)) ** 2 == pytest.approx(15.6978, abs=5e-5)


@pytest.mark.parametrize("n, power, d", [
    (3, 0.0768, 3.07), (5, 0.1077, 2.02), (10, 0.1851, 1.32), (20, 0.3379, 0.91),
    (30, 0.4779, 0.74), (64, 0.8015, 0.50), (100, 0.9404, 0.40),
])
def test_power_and_detectable_effect_issue_figures(n, power, d):
    assert compare.power_ttest(0.5, n) == pytest.approx(power, abs=5e-5)
    found = compare.detectable_effect(n)
    assert found == pytest.approx(d, abs=5e-3)
    assert compare.power_ttest(found, n) == pytest.approx(0.8, abs=1e-10)


def test_power_strict_default_vs_r_default():
    # issue: n = 3 -> 0.0768 strict, 0.0698 R's default (far tail ignored)
    assert compare.power_ttest(0.5, 3, strict=False) == pytest.approx(0.0698, abs=5e-5)


@pytest.mark.parametrize("d, n", [(0.2, 61647), (25.0, 3), (30.0, 3), (40.0, 3), (20.0, 3.5), (3.0, 100),
                                  (0.01, 1e6)])
def test_power_never_nan_in_far_tail(d, n):
    # scipy.stats.nct.cdf returns NaN far in the lower tail: with df = 4 (n = 3) at d = 25 and
    # 30, and at (0.2, 61647), (3.0, 100) -- checked when this test was written
    p = compare.power_ttest(d, n)
    assert np.isfinite(p) and 0 <= p <= 1
    assert p >= compare.power_ttest(d, n, strict=False)


def test_tiny_effects_extend_the_search_like_uniroot_extendint():
    # the root lies beyond R's initial bracket [2, 1e7]; normal approximation 15.6978 / d^2
    n = compare.power_ttest_n(0.001)
    assert n == pytest.approx(15.6978 / 0.001 ** 2, rel=1e-3)
    assert compare.seeds_needed(0.001) == pytest.approx(n, abs=1.5)


def test_power_monotone_and_seeds_decreasing():
    ns = np.arange(2, 60)
    p = [compare.power_ttest(0.7, n) for n in ns]
    assert np.all(np.diff(p) > 0)
    seeds = [compare.seeds_needed(d) for d in (0.3, 0.6, 0.9, 1.2)]
    assert seeds == sorted(seeds, reverse=True)


def _power_by_integration(d, n_a, n_b, alpha):
    """Two-sided two-sample power by integrating over the chi-square of the pooled variance.

    T = (Z + ncp) / sqrt(V / nu), V ~ chi2(nu): P(|T| > q) = E_V[P(Z > q sqrt(V/nu) - ncp)
    + P(Z < -q sqrt(V/nu) - ncp)], independent of scipy's noncentral t.
    """
    from scipy import integrate

    nu = n_a + n_b - 2
    ncp = d * np.sqrt(n_a * n_b / (n_a + n_b))
    q = stats.t.isf(alpha / 2, nu)

    def f(v):
        s = q * np.sqrt(v / nu)
        return (stats.norm.sf(s - ncp) + stats.norm.cdf(-s - ncp)) * stats.chi2.pdf(v, nu)

    return integrate.quad(f, 0, np.inf, epsabs=1e-13, epsrel=1e-12, limit=200)[0]


@pytest.mark.parametrize("d, n_a, n_b", [(0.6, 90, 60), (0.5, 10, 30), (1.2, 5, 8)])
def test_power_unequal_arms_by_integration(d, n_a, n_b):
    got = compare.power_ttest(d, n_a, n_b=n_b)
    assert got == pytest.approx(_power_by_integration(d, n_a, n_b, 0.05), rel=1e-8)
    assert compare.power_ttest(d, n_a, n_b=n_a) == compare.power_ttest(d, n_a)
    # the sample size solved with ratio = n_b / n_a gives the power back
    n = compare.power_ttest_n(d, power=got, ratio=n_b / n_a, tol=1e-12)
    assert n == pytest.approx(n_a, rel=1e-8)
    assert compare.seeds_needed(d, power=got - 1e-9, ratio=n_b / n_a) == n_a


def test_power_one_sample_equals_paired_and_rejects_n_b():
    assert compare.power_ttest(0.4, 20, test="paired") == compare.power_ttest(0.4, 20, test="one-sample")
    # one-sided power is the upper tail at alpha, two-sided at alpha / 2
    nu, ncp = 19, 0.4 * np.sqrt(20)
    assert compare.power_ttest(0.4, 20, test="paired", alternative="one-sided") == pytest.approx(
        stats.nct.sf(stats.t.isf(0.05, nu), nu, ncp), rel=1e-12)
    with pytest.raises(ValueError, match="`n_b`"):
        compare.power_ttest(0.4, 20, test="paired", n_b=10)
    with pytest.raises(ValueError, match="`test`"):
        compare.power_ttest(0.4, 20, test="two.sample")


def test_win_rate_issue_figures():
    for w, n, p in ((55, 100, 0.3682), (60, 100, 0.0569), (550, 1000, 0.0017)):
        assert compare.win_rate_test(w, n).pvalue == pytest.approx(p, abs=5e-5)
    r = compare.win_rate_test(55, 100)
    assert r.wald_interval.low == pytest.approx(0.452, abs=5e-4)
    assert r.wald_interval.high == pytest.approx(0.648, abs=5e-4)
    assert isinstance(r.confidence_interval, ConfidenceInterval)
    assert compare.win_rate_test(0, 5).confidence_interval.low == 0.0
    assert compare.win_rate_test(5, 5).confidence_interval.high == 1.0


def test_games_needed_sawtooth():
    from predstab.compare._power import _exact_binomial_power

    g = compare.games_needed(0.55)
    assert g.n == 786 and g.power == pytest.approx(0.8013, abs=5e-5)
    assert g.n_normal == pytest.approx(782.53, abs=5e-3)
    assert all(_exact_binomial_power(n, 0.55, 0.05) < 0.8 for n in range(700, 786))
    # saw-tooth: power drops again right after the answer
    assert _exact_binomial_power(787, 0.55, 0.05) < 0.8
    assert compare.games_needed(0.45).n == 786     # symmetric
    # the vectorised rejection region equals the one built from binom.test's p-values
    for n in (1, 5, 17, 100, 786):
        k = np.arange(n + 1)
        pv = np.minimum(1.0, 2.0 * stats.binom.cdf(np.minimum(k, n - k), n, 0.5))
        pv[2 * np.minimum(k, n - k) == n] = 1.0
        direct = stats.binom.pmf(k[pv <= 0.05], n, 0.55).sum()
        assert _exact_binomial_power(n, 0.55, 0.05) == pytest.approx(direct, rel=1e-12, abs=1e-300)
    g = compare.games_needed(0.51)            # far from 1/2 fast path: ~19,600 games
    assert g.n == pytest.approx(g.n_normal, rel=0.01) and g.power >= 0.8


@pytest.mark.parametrize("call, exc, match", [
    (lambda: compare.seeds_needed(0), ValueError, "`d`"),
    (lambda: compare.seeds_needed(0.5, power=1.2), ValueError, "`power`"),
    (lambda: compare.seeds_needed(0.5, significance=0.9, power=0.8), ValueError, "`power` must exceed"),
    (lambda: compare.power_ttest(0.5, 1), ValueError, "`n`"),
    (lambda: compare.power_ttest(0.5, 10, strict="yes"), TypeError, "`strict`"),
    (lambda: compare.detectable_effect(1.5), ValueError, "`n`"),
    (lambda: compare.win_rate_test(11, 10), ValueError, "`wins`"),
    (lambda: compare.win_rate_test(1.5, 10), TypeError, "`wins`"),
    (lambda: compare.games_needed(0.5), ValueError, "`p`"),
    (lambda: compare.seeds_needed("big"), TypeError, "`d`"),
])
def test_power_bad_input(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


# --- issue 33 items 4 and 5: no hang, bounded memory, a result or a clear error ----------------


def _normal_games(p, significance=0.05, power=0.8):
    z_a, z_b = stats.norm.isf(significance / 2), stats.norm.ppf(power)
    return ((z_a / 2 + z_b * np.sqrt(p * (1 - p))) / (p - 0.5)) ** 2


@pytest.mark.parametrize("p", [0.5001, 0.50001, 0.4999999, 0.5000001, 0.5 + 1e-12])
def test_games_needed_near_one_half_is_bounded(p):
    """0.5001 took 425 s, 0.50001 allocated 2.9 GiB, 0.5000001 raised MemoryError (28.6 TiB)."""
    import time
    import tracemalloc

    tracemalloc.start()
    t0 = time.perf_counter()
    g = compare.games_needed(p)
    elapsed = time.perf_counter() - t0
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert elapsed < 5.0 and peak < 2 ** 20            # well under a second on a quiet machine
    assert g.method == "normal"
    assert g.n_normal == pytest.approx(_normal_games(p), rel=1e-9)
    assert g.n == int(np.ceil(g.n_normal))
    assert g.power == pytest.approx(0.8, abs=1e-3)      # the exact power there (saw-tooth)


def test_games_needed_switches_to_the_approximation_at_the_documented_size():
    from predstab.compare._power import EXACT_GAMES_LIMIT, _exact_binomial_power

    assert EXACT_GAMES_LIMIT == 100_000
    g = compare.games_needed(0.5045)                    # n_normal 96,951: still searched exactly
    assert g.method == "exact" and _normal_games(0.5045) < EXACT_GAMES_LIMIT
    assert g.power >= 0.8 and _exact_binomial_power(g.n - 1, 0.5045, 0.05) < 0.8
    assert g.n == pytest.approx(g.n_normal, rel=0.005)
    g = compare.games_needed(0.5044)
    assert g.method == "normal" and _normal_games(0.5044) > EXACT_GAMES_LIMIT


def test_power_games_cli_finishes_near_one_half(tmp_path, capsys):
    from predstab.cli import main

    code = main(["power", "games", "--win-rate", "0.5001", "--out", str(tmp_path / "g.csv")])
    assert code == 0
    import pandas as pd

    row = pd.read_csv(tmp_path / "g.csv").iloc[0]
    assert row["n_games"] == compare.games_needed(0.5001).n and row["method"] == "normal"


@pytest.mark.parametrize("test", ["two-sample", "paired"])
def test_seeds_needed_huge_and_tiny_effects(test):
    # seeds_needed(1e9) raised "noncentral t tail is not computable"
    assert compare.seeds_needed(1e9, test=test) == 2
    assert compare.seeds_needed(1e300, test=test, alternative="one-sided") == 2
    assert compare.power_ttest(1e9, 2, test=test) == 1.0
    # a tiny effect: n is the normal approximation's 2 (z + z)^2 / d^2 (twice for two-sample)
    z = stats.norm.isf(0.025) + stats.norm.ppf(0.8)
    per = 2.0 if test == "two-sample" else 1.0
    assert compare.seeds_needed(1e-100, test=test) == pytest.approx(per * z**2 / 1e-200, rel=1e-5)
    with pytest.raises(ValueError, match="`d` is too small"):
        compare.seeds_needed(1e-200, test=test)
    # one-sided with d < 0: the power never exceeds the significance (the search never ended)
    with pytest.raises(ValueError, match="`d` must be positive for a one-sided test"):
        compare.seeds_needed(-0.5, test=test, alternative="one-sided")
