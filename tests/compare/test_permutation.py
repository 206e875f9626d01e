"""mean_permutation_test: the seeds' example, exact enumeration (paired and two-sample),
alternatives, reproducibility and the global generator left alone.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from predstab import compare
from tests.compare._examples import SA, SB, A, B


def test_seeds_example_t_and_permutation():
    r = compare.ttest(A, B, equal_var=True)
    assert r.estimate == pytest.approx(16.9, abs=1e-12)
    assert r.statistic == pytest.approx(0.4236, abs=5e-5)   # issue: t = 0.4236
    assert r.pvalue == pytest.approx(0.6769, abs=5e-5)      # issue: p = 0.6769
    p = compare.mean_permutation_test(A, B, random_state=0)
    assert p.statistic == pytest.approx(16.9, abs=1e-12)
    assert p.pvalue > 0.995                                  # issue: p ~ 1.0000 (outlier dominates)


def test_permutation_reproducible_and_valid():
    x = np.arange(8.0)
    y = x + np.array([0.5, 1.2, -0.3, 0.8, 1.1, 0.4, 0.9, 1.3])
    # 99 < 2^8 arrangements: Monte Carlo
    r1 = compare.mean_permutation_test(x, y, paired=True, n_resamples=99, random_state=7)
    r2 = compare.mean_permutation_test(x, y, paired=True, n_resamples=99, random_state=7)
    assert r1.pvalue == r2.pvalue and r1.method.startswith("Monte Carlo")
    assert r1.pvalue * 100 == pytest.approx(round(r1.pvalue * 100))   # (hits + 1) / (n + 1)
    assert 1 / 100 <= r1.pvalue <= 1
    g = np.random.default_rng(7)
    compare.mean_permutation_test(x, y, paired=True, n_resamples=10, random_state=g)
    assert g.bit_generator.state != np.random.default_rng(7).bit_generator.state


def test_paired_permutation_matches_exact_enumeration():
    # 2^8 sign flips enumerated; the Monte Carlo p must be close (SE < 0.005 at 20000 draws)
    import itertools

    d = np.array([0.5, 1.2, -0.3, 0.8, 1.1, 0.4, 0.9, -1.3])
    obs = abs(d.mean())
    flips = np.array(list(itertools.product([-1, 1], repeat=8)))
    exact = np.mean(np.abs(flips @ d / 8) >= obs - 1e-12)
    r = compare.mean_permutation_test(np.zeros(8), d, paired=True, n_resamples=2000, random_state=1)
    assert r.pvalue == pytest.approx(exact, abs=1e-15) and r.method.startswith("Exact")
    assert compare.mean_permutation_test(np.zeros(8), d, paired=True, n_resamples=256) == r  # any seed
    greater = np.mean(flips @ d / 8 >= d.mean() - 1e-12)
    assert compare.mean_permutation_test(np.zeros(8), d, paired=True, alternative="greater").pvalue == \
        pytest.approx(greater, abs=1e-15)
    # below 256 draws: Monte Carlo, close to the exact value
    r = compare.mean_permutation_test(np.zeros(8), d, paired=True, n_resamples=255, random_state=1)
    assert r.method.startswith("Monte Carlo") and r.pvalue == pytest.approx(exact, abs=0.1)


def test_two_sample_permutation_exact_by_enumeration():
    import itertools

    a, b = np.array([1.0, 2.5, 3.0, 0.5]), np.array([2.0, 4.0, 3.5, 5.0, 4.5])
    pooled = np.concatenate([a, b])
    obs = b.mean() - a.mean()
    stats_ = []
    for idx in itertools.combinations(range(9), 5):
        in_b = np.zeros(9, bool)
        in_b[list(idx)] = True
        stats_.append(pooled[in_b].mean() - pooled[~in_b].mean())
    stats_ = np.array(stats_)
    r = compare.mean_permutation_test(a, b)   # C(9, 5) = 126 <= 9999 arrangements: exact
    assert r.method == "Exact two-sample permutation test of the difference of means"
    assert r.pvalue == pytest.approx(np.mean(np.abs(stats_) >= abs(obs) - 1e-12), abs=1e-15)
    assert compare.mean_permutation_test(a, b, alternative="less").pvalue == pytest.approx(
        np.mean(stats_ <= obs + 1e-12), abs=1e-15)


def test_two_sample_permutation_detects_shift_and_alternatives():
    a = np.arange(10.0)
    b = a + 20
    r = compare.mean_permutation_test(a, b, n_resamples=999, random_state=0)
    # exact p = 2 / C(20, 10) ~ 1e-5: at most a couple of the 999 relabellings are as extreme
    assert 1 / 1000 <= r.pvalue <= 3 / 1000
    assert compare.mean_permutation_test(a, b, alternative="less", n_resamples=199,
                                    random_state=0).pvalue == 1.0
    with pytest.raises(ValueError, match="`alternative`"):
        compare.mean_permutation_test(a, b, alternative="two_sided")


def test_permutation_does_not_touch_global_rng():
    state = np.random.get_state()[1].copy()  # noqa: NPY002 -- checking the legacy global state
    compare.mean_permutation_test(A, B, n_resamples=50, random_state=None)
    assert np.array_equal(np.random.get_state()[1], state)  # noqa: NPY002


@settings(max_examples=25, deadline=None)
@given(st.integers(min_value=0, max_value=2**31 - 1))
def test_permutation_same_seed_same_p(seed):
    p1 = compare.mean_permutation_test(SA, SB, n_resamples=99, random_state=seed).pvalue
    p2 = compare.mean_permutation_test(SA, SB, n_resamples=99, random_state=seed).pvalue
    assert p1 == p2
    # swapping the groups only flips the sign of the statistic; with the same seed the
    # two-sided hits are the same
    r = compare.mean_permutation_test(SB, SA, n_resamples=99, random_state=seed)
    assert r.statistic == pytest.approx(-compare.mean_permutation_test(SA, SB, n_resamples=99,
                                                                  random_state=seed).statistic)
