"""The batched resampling engines of predstab.compare (paired permutation test, bootstrap of
the mean): same draws as an unbatched reference written here, exact enumeration, ties in
exact arithmetic, block-size invariance and the memory bound.

Speed is measured by benchmarks/bench_resampling.py, not asserted here.
"""

import itertools
import tracemalloc
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from predstab import compare
from predstab.compare import _resampling

ALTERNATIVES = ("two-sided", "greater", "less")


def _reference_pvalue(d, n_permutations, seed, alternative):
    """Unbatched: all sign words in one draw, a +-1 matrix, one matrix-vector product."""
    rng = np.random.default_rng(seed)
    words = rng.integers(0, 2 ** 64, size=(n_permutations, -(-d.size // 64)), dtype=np.uint64)
    bits = np.unpackbits(words.astype("<u8").view(np.uint8), axis=1, bitorder="little")[:, :d.size]
    permuted = (2.0 * bits - 1.0) @ d            # sum of s_i d_i; bit set = sign kept
    observed = d.sum()
    tol = 1e-9 * np.abs(d).sum()
    if alternative == "two-sided":
        hits = np.sum(np.abs(permuted) >= abs(observed) - tol)
    elif alternative == "greater":
        hits = np.sum(permuted >= observed - tol)
    else:
        hits = np.sum(permuted <= observed + tol)
    return (hits + 1) / (n_permutations + 1)


def _differences(kind, n, seed=0):
    rng = np.random.default_rng(seed)
    if kind == "continuous":
        return rng.standard_t(3, n) + 0.02
    # per-example 0/1 losses of two classifiers: differences in {-1, 0, 1}, many exact ties
    a = (rng.random(n) < 0.5).astype(float)      # no difference on average: p not at its floor
    b = np.where(rng.random(n) < 0.9, a, 1.0 - a)
    return b - a


@pytest.mark.parametrize("kind, n", [("continuous", 130), ("continuous", 5000), ("losses", 4097)])
@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_paired_monte_carlo_equals_unbatched_reference(kind, n, alternative):
    # n = 130 crosses a 64-pair word; 5000 pairs need three 2,048-pair chunks of the tables
    d = _differences(kind, n)
    expected = _reference_pvalue(d, 300, 11, alternative)
    for batch in (1, 7, 1000):
        r = compare.mean_permutation_test(np.zeros(n), d, paired=True, n_resamples=300,
                                          alternative=alternative, random_state=11, batch=batch)
        assert r.pvalue == expected, batch
    assert r.method == "Monte Carlo paired permutation test of the difference of means"
    assert r.statistic == pytest.approx(d.mean(), rel=1e-12)


def test_paired_block_memory_cap_does_not_change_the_draws(monkeypatch):
    d = _differences("continuous", 3000, seed=3)
    full = compare.mean_permutation_test(np.zeros(3000), d, paired=True, n_resamples=200, random_state=5)
    monkeypatch.setattr(_resampling, "BLOCK_BYTES", 1)      # one sign pattern per block
    assert _resampling.block_rows(3000, 1000) == 1
    one = compare.mean_permutation_test(np.zeros(3000), d, paired=True, n_resamples=200, random_state=5)
    assert one.pvalue == full.pvalue == _reference_pvalue(d, 200, 5, "two-sided")


def test_paired_exact_enumeration_counts_ties_of_exact_arithmetic():
    # decimal differences (0.1 + 0.2 = 0.3) are not binary fractions: sign patterns with equal
    # decimal sums give doubles that differ in the last bits, and must still count as ties
    d = np.array([0.1, 0.2, 0.3, -0.1, -0.2, 0.3, 0.1, 0.1, -0.3, 0.2, 0.6, -0.1])
    exact_d = [Fraction(repr(float(v))) for v in d]     # the decimals, exactly
    total = sum(exact_d)
    counts = dict.fromkeys(ALTERNATIVES, 0)
    float_counts = dict.fromkeys(ALTERNATIVES, 0)
    for signs in itertools.product((-1, 1), repeat=d.size):
        t = sum(s * v for s, v in zip(signs, exact_d, strict=True))
        counts["two-sided"] += abs(t) >= abs(total)
        counts["greater"] += t >= total
        counts["less"] += t <= total
        tf = float(np.dot(signs, d))
        float_counts["two-sided"] += abs(tf) >= abs(float(total))
        float_counts["greater"] += tf >= float(total)
        float_counts["less"] += tf <= float(total)
    assert float_counts != counts          # naive float comparisons would miscount the ties
    for alt in ALTERNATIVES:
        r = compare.mean_permutation_test(np.zeros(12), d, paired=True, alternative=alt,
                                          n_resamples=4096)
        assert r.method.startswith("Exact")
        assert r.pvalue == counts[alt] / 4096, alt


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_paired_monte_carlo_within_binomial_se_of_enumeration(seed):
    rng = np.random.default_rng(100 + seed)
    d = rng.exponential(size=11) - 0.6
    flips = np.array(list(itertools.product((-1.0, 1.0), repeat=11)))
    exact = {"two-sided": np.mean(np.abs(flips @ d) >= abs(d.sum()) - 1e-12),
             "greater": np.mean(flips @ d >= d.sum() - 1e-12),
             "less": np.mean(flips @ d <= d.sum() + 1e-12)}
    for alt, p in exact.items():
        r = compare.mean_permutation_test(np.zeros(11), d, paired=True, alternative=alt, n_resamples=2000,
                                          random_state=seed)
        assert r.method.startswith("Monte Carlo")      # 2000 < 2^11 = 2048 arrangements
        se = np.sqrt(p * (1 - p) / 2000)
        assert abs(r.pvalue - p) <= 3 * se + 1 / 2001, (alt, r.pvalue, p)


def test_paired_memory_is_bounded():
    n = 200_000
    d = _differences("continuous", n, seed=4)
    zeros = np.zeros(n)
    tracemalloc.start()
    try:
        compare.mean_permutation_test(zeros, d, paired=True, n_resamples=300, random_state=0, batch=10_000)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # 64 MiB per block + the tables (32 bytes per pair) + a few copies of the data (8 bytes per pair)
    assert peak < _resampling.BLOCK_BYTES + 32 * n + 6 * 8 * n


@pytest.mark.parametrize("method", ["percentile", "basic", "bca"])
def test_bootstrap_mean_engine_matches_scipy_and_unbatched_draws(method, monkeypatch):
    x = np.random.default_rng(7).lognormal(size=300)
    r = compare.bootstrap_ci(x, n_resamples=999, method=method, random_state=3)
    # unbatched reference: one index matrix, the mean of each row
    idx = np.random.default_rng(3).integers(0, 300, size=(999, 300))
    np.testing.assert_array_equal(r.bootstrap_distribution, x[idx].mean(axis=1))
    ref = stats.bootstrap((x,), np.mean, n_resamples=999, method={"bca": "BCa"}.get(method, method),
                          random_state=np.random.default_rng(3))
    assert tuple(r.confidence_interval) == pytest.approx(tuple(ref.confidence_interval), rel=1e-12)
    assert r.standard_error == pytest.approx(ref.standard_error, rel=1e-12)
    monkeypatch.setattr(_resampling, "BLOCK_BYTES", 1)      # one resample per block
    small = compare.bootstrap_ci(x, n_resamples=999, method=method, random_state=3)
    np.testing.assert_array_equal(small.bootstrap_distribution, r.bootstrap_distribution)
    assert small.confidence_interval == r.confidence_interval


def test_bootstrap_mean_bca_acceleration_is_the_closed_form_jackknife():
    # a = sum((x - m)^3) / (6 sum((x - m)^2)^1.5) for the mean; BCa quantiles by hand
    x = np.random.default_rng(8).exponential(size=40)
    r = compare.bootstrap_ci(x, n_resamples=2000, method="bca", random_state=1)
    dev = x - x.mean()
    acc = np.sum(dev ** 3) / (6 * np.sum(dev ** 2) ** 1.5)
    reps = r.bootstrap_distribution
    z0 = stats.norm.ppf(np.mean(reps < x.mean()) + 0.5 * np.mean(reps == x.mean()))
    z = stats.norm.ppf([0.025, 0.975])
    probs = stats.norm.cdf(z0 + (z0 + z) / (1 - acc * (z0 + z)))
    assert tuple(r.confidence_interval) == pytest.approx(tuple(np.quantile(reps, probs)), rel=1e-12)


def test_bootstrap_memory_is_bounded():
    # the old call, scipy.stats.bootstrap without `batch`, held 400 x 50,000 indices and values
    # at once (320 MB); now 64 MiB per block
    x = np.random.default_rng(9).normal(size=50_000)
    tracemalloc.start()
    try:
        compare.bootstrap_ci(x, n_resamples=400, random_state=0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < _resampling.BLOCK_BYTES + 8 * 400 + 6 * 8 * x.size


def _classifications(n, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    a = np.where(rng.random(n) < 0.8, y, 1 - y)
    b = np.where(rng.random(n) < 0.83, y, 1 - y)
    return y, a, b


def _correct(t, p):
    return t == p


def _accuracy(t, p):
    return float(np.mean(t == p))


@pytest.mark.parametrize("n", [301, 1000])      # 301: odd, so blocks split the 32-bit draws oddly
def test_paired_bootstrap_per_case_equals_unbatched_reference(n, monkeypatch):
    y, a, b = _classifications(n)
    r = compare.paired_bootstrap(y, a, b, metric=_correct, per_case=True, n_resamples=500, random_state=4)
    # unbatched reference: one index matrix for all resamples, the means of each row
    idx = np.random.default_rng(4).integers(0, n, size=(500, n))
    ca, cb = (a == y).astype(float), (b == y).astype(float)
    ref = np.column_stack([ca[idx].mean(axis=1), cb[idx].mean(axis=1)])
    ref = np.column_stack([ref, ref[:, 1] - ref[:, 0]])
    np.testing.assert_allclose(r.bootstrap_distribution, ref, rtol=0, atol=1e-13)
    assert (r.score_a, r.score_b) == (ca.mean(), cb.mean())
    lo, hi = np.quantile(ref[:, 2], [0.025, 0.975])
    assert tuple(r.confidence_interval) == pytest.approx((lo, hi), abs=1e-13)
    # the same draws as the loop over resamples that calls a metric returning the accuracy
    loop = compare.paired_bootstrap(y, a, b, metric=_accuracy, n_resamples=500, random_state=4)
    np.testing.assert_allclose(r.bootstrap_distribution, loop.bootstrap_distribution, rtol=0, atol=1e-13)
    monkeypatch.setattr(_resampling, "BLOCK_BYTES", 1)      # one resample per block
    one = compare.paired_bootstrap(y, a, b, metric=_correct, per_case=True, n_resamples=500, random_state=4)
    np.testing.assert_array_equal(one.bootstrap_distribution, r.bootstrap_distribution)


def test_paired_bootstrap_per_case_clusters_equal_the_loop_over_clusters():
    rng = np.random.default_rng(5)
    n = 700
    loss_a, loss_b = rng.exponential(size=n), rng.exponential(size=n) * 0.9
    groups = rng.choice(np.array([f"p{i:03d}" for i in range(90)]), size=n)   # clusters of unequal size

    def sq(t, p):
        return p                   # the per-case losses themselves

    r = compare.paired_bootstrap(loss_a, loss_a, loss_b, metric=sq, per_case=True, groups=groups,
                                 n_resamples=300, random_state=6)
    labels, codes = np.unique(groups, return_inverse=True)
    members = [np.flatnonzero(codes == u) for u in range(labels.size)]
    draw = np.random.default_rng(6)
    ref = np.empty((300, 3))
    for k in range(300):         # the resampled cases, written out; the mean of their losses
        cases = np.concatenate([members[u] for u in draw.integers(0, labels.size, labels.size)])
        ref[k] = loss_a[cases].mean(), loss_b[cases].mean(), loss_b[cases].mean() - loss_a[cases].mean()
    np.testing.assert_allclose(r.bootstrap_distribution, ref, rtol=1e-12, atol=1e-13)   # sums in other orders
    assert r.n_units == 90


@pytest.mark.parametrize("grouped", [False, True])
def test_paired_bootstrap_per_case_bca_jackknife_equals_the_explicit_one(grouped):
    # the closed-form leave-one-unit-out means against the loop, which refits the metric
    # on every jackknife sample
    y, a, b = _classifications(240, seed=2)
    groups = np.repeat(np.arange(60), 4)[np.random.default_rng(3).permutation(240)] if grouped else None
    fast = compare.paired_bootstrap(y, a, b, metric=_correct, per_case=True, method="bca", groups=groups,
                                    n_resamples=400, random_state=9)
    slow = compare.paired_bootstrap(y, a, b, metric=_accuracy, method="bca", groups=groups,
                                    n_resamples=400, random_state=9)
    for name in ("confidence_interval", "ci_a", "ci_b"):
        assert tuple(getattr(fast, name)) == pytest.approx(tuple(getattr(slow, name)), abs=1e-12), name
    assert fast.pvalue == slow.pvalue


def test_paired_bootstrap_per_case_rejects_bad_metric_output():
    y, a, b = _classifications(50)
    with pytest.raises(ValueError, match=r"`metric` must return one score per case \(shape \(50,\)\).*\(\)"):
        compare.paired_bootstrap(y, a, b, metric=_accuracy, per_case=True, n_resamples=10)
    with pytest.raises(ValueError, match="`metric` must return finite per-case scores.*1 NaN"):
        compare.paired_bootstrap(y, a, b, metric=lambda t, p: np.where(np.arange(50) == 3, np.nan, 1.0),
                                 per_case=True, n_resamples=10)
    with pytest.raises(TypeError, match="`metric` must return numeric per-case scores"):
        compare.paired_bootstrap(y, a, b, metric=lambda t, p: np.array(["x"] * 50), per_case=True,
                                 n_resamples=10)
    with pytest.raises(Exception, match="per_case"):
        compare.paired_bootstrap(y, a, b, metric=_correct, per_case="yes", n_resamples=10)


def test_paired_bootstrap_per_case_memory_is_bounded():
    n = 200_000
    y, a, b = _classifications(n, seed=1)
    tracemalloc.start()
    try:
        compare.paired_bootstrap(y, a, b, metric=_correct, per_case=True, n_resamples=400, random_state=0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # 64 MiB per block + the replicates + a few per-case vectors (the scores, the totals)
    assert peak < _resampling.BLOCK_BYTES + 2 * 3 * 8 * 400 + 8 * 8 * n


def _clustered_correctness(rng, n_clusters, size):
    # per-case 0/1 correctness of A and B; cluster effects (one shared, one B's own) make the
    # cases of a cluster alike, so a bootstrap of single cases understates the variance
    effect = rng.normal(0, 1.2, n_clusters).repeat(size)
    own = rng.normal(0, 1.0, n_clusters).repeat(size)
    a = rng.random(effect.size) < 1 / (1 + np.exp(-(1.0 + effect)))
    b = rng.random(effect.size) < 1 / (1 + np.exp(-(1.3 + effect + own)))
    return a.astype(float), b.astype(float), np.arange(n_clusters).repeat(size)


def test_paired_bootstrap_per_case_coverage_on_clustered_discrete_data():
    # target: the difference of the expected accuracies, B - A, computed by quadrature;
    # percentile intervals, 95 %, 300 data sets of 40 clusters of 5 cases (fixed seeds)
    z, w = np.polynomial.hermite_e.hermegauss(80)
    w = w / w.sum()
    sd_b = np.sqrt(1.2 ** 2 + 1.0 ** 2)
    truth = float(np.sum(w / (1 + np.exp(-(1.3 + sd_b * z)))) - np.sum(w / (1 + np.exp(-(1.0 + 1.2 * z)))))
    rng = np.random.default_rng(2024)
    hits = {"clusters": 0, "cases": 0}
    for k in range(300):
        a, b, g = _clustered_correctness(rng, 40, 5)
        for name, groups in (("clusters", g), ("cases", None)):
            r = compare.paired_bootstrap(a, a, b, metric=lambda t, p: p, per_case=True, groups=groups,
                                         n_resamples=499, random_state=k)
            lo, hi = r.confidence_interval
            assert lo <= r.difference <= hi
            hits[name] += lo <= truth <= hi
    assert 0.90 <= hits["clusters"] / 300 <= 0.98, hits      # SE of a 95 % coverage: 0.013
    assert hits["cases"] / 300 < hits["clusters"] / 300 - 0.05, hits


def _reference_two_sample(a, b, n_permutations, seed, alternative):
    """Unbatched: every shuffled copy in one call, then the group means of each row."""
    pooled = np.concatenate([a, b])
    rows = np.random.default_rng(seed).permuted(np.tile(pooled, (n_permutations, 1)), axis=1)
    permuted = rows[:, a.size:].mean(axis=1) - rows[:, :a.size].mean(axis=1)
    observed = b.mean() - a.mean()
    tol = 1e-9 * np.abs(pooled).sum() / min(a.size, b.size)
    if alternative == "two-sided":
        hits = np.sum(np.abs(permuted) >= abs(observed) - tol)
    elif alternative == "greater":
        hits = np.sum(permuted >= observed - tol)
    else:
        hits = np.sum(permuted <= observed + tol)
    return (hits + 1) / (n_permutations + 1)


@pytest.mark.parametrize("kind", ["continuous", "losses"])
@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_two_sample_monte_carlo_equals_unbatched_reference(kind, alternative):
    rng = np.random.default_rng(12)
    if kind == "continuous":
        a, b = rng.standard_t(3, 300), rng.standard_t(3, 251) + 0.1
    else:                     # 0/1 losses: many exact ties between permuted and observed sums
        a, b = (rng.random(300) < 0.3).astype(float), (rng.random(251) < 0.33).astype(float)
    r = compare.mean_permutation_test(a, b, n_resamples=400, alternative=alternative, random_state=13)
    assert r.method == "Monte Carlo two-sample permutation test of the difference of means"
    assert r.pvalue == _reference_two_sample(a, b, 400, 13, alternative)
    for batch in (1, 50):           # `batch` never changes the draws
        assert compare.mean_permutation_test(a, b, n_resamples=400, alternative=alternative,
                                             random_state=13, batch=batch).pvalue == r.pvalue


def test_two_sample_monte_carlo_within_binomial_se_of_enumeration():
    # C(13, 6) = 1716 splits enumerated; 1500 random ones (< 1716: Monte Carlo)
    rng = np.random.default_rng(14)
    a, b = rng.exponential(size=6), rng.exponential(size=7) + 0.4
    pooled = np.concatenate([a, b])
    t = []
    for idx in itertools.combinations(range(13), 7):
        in_b = np.zeros(13, bool)
        in_b[list(idx)] = True
        t.append(pooled[in_b].mean() - pooled[~in_b].mean())
    t, obs = np.array(t), b.mean() - a.mean()
    exact = {"two-sided": np.mean(np.abs(t) >= abs(obs) - 1e-12), "greater": np.mean(t >= obs - 1e-12),
             "less": np.mean(t <= obs + 1e-12)}
    for alt, p in exact.items():
        r = compare.mean_permutation_test(a, b, n_resamples=1500, alternative=alt, random_state=15)
        assert r.method.startswith("Monte Carlo")
        assert abs(r.pvalue - p) <= 3 * np.sqrt(p * (1 - p) / 1500) + 1 / 1501, (alt, r.pvalue, p)


def test_two_sample_memory_is_bounded():
    rng = np.random.default_rng(16)
    a, b = rng.normal(size=150_000), rng.normal(size=150_000)
    tracemalloc.start()
    try:
        compare.mean_permutation_test(a, b, n_resamples=20, random_state=0, batch=10_000)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # the old path (scipy, batch 13 here) held 13 permutations of indices and values (62 MB);
    # now one shuffled copy and a few copies of the data
    assert peak < 6 * 8 * 300_000


def test_two_sample_enumeration_decision_equals_the_binomial_coefficient():
    # decided term by term (math.comb(2e6, 1e6) took 35 s before any permutation was drawn)
    from math import comb

    from predstab.compare._permutation import _enumerable
    for n_a in range(1, 13):
        for n_b in range(1, 13):
            for count in (1, 2, 12, 126, 127, 924, 9999):
                assert _enumerable(False, n_a, n_b, count) == (comb(n_a + n_b, n_a) <= count)
                assert _enumerable(True, n_a, n_a, count) == (2 ** n_a <= count)
    assert not _enumerable(False, 10 ** 6, 10 ** 6, 9999) and not _enumerable(True, 10 ** 6, 10 ** 6, 9999)
