"""rliable's aggregates of runs x tasks: the probability of improvement (B over A) and
performance profiles, by hand, by Mann-Whitney and against rliable when installed.
"""

import numpy as np
import pytest
from scipy import stats

from predstab import compare


def _poi_by_hand(x, y):
    # P(X > Y) + P(X = Y) / 2 per task, by a double loop over runs
    out = []
    for m in range(x.shape[1]):
        wins = sum((xi > yj) + 0.5 * (xi == yj) for xi in x[:, m] for yj in y[:, m])
        out.append(wins / (x.shape[0] * y.shape[0]))
    return np.array(out)


def test_probability_of_improvement_by_hand_and_mann_whitney():
    rng = np.random.default_rng(8)
    x = np.round(rng.normal(1.0, 0.3, size=(7, 4)), 1)   # rounded: ties
    y = np.round(rng.normal(0.9, 0.3, size=(5, 4)), 1)
    r = compare.probability_of_improvement(y, x, n_resamples=300, random_state=0)   # P(X > Y): X is B
    np.testing.assert_allclose(r.per_task, _poi_by_hand(x, y), rtol=1e-12)
    u = [stats.mannwhitneyu(x[:, m], y[:, m]).statistic / 35 for m in range(4)]
    assert r.value == pytest.approx(np.mean(u), rel=1e-12)
    swapped = compare.probability_of_improvement(x, y, n_resamples=0)
    assert swapped.value == pytest.approx(1 - r.value, rel=1e-12)
    assert r == compare.probability_of_improvement(y, x, n_resamples=300, random_state=0)
    assert r.confidence_interval.low < r.confidence_interval.high
    # the percentiles of the replicates expanded about the estimate by sqrt(5 / 4) (5 runs of A)
    assert r.expansion == np.sqrt(5 / 4)
    wide = r.value + np.sqrt(5 / 4) * (r.bootstrap_distribution - r.value)
    assert np.quantile(wide, 0.025) == pytest.approx(r.confidence_interval.low, rel=1e-12)
    plain = compare.probability_of_improvement(y, x, n_resamples=300, random_state=0, expand=False)
    assert plain.expansion == 1.0
    np.testing.assert_array_equal(plain.bootstrap_distribution, r.bootstrap_distribution)
    assert np.quantile(r.bootstrap_distribution, 0.975) == pytest.approx(plain.confidence_interval.high,
                                                                         rel=1e-12)
    with pytest.raises(ValueError, match="same tasks"):
        compare.probability_of_improvement(y[:, :3], x)


def test_probability_of_improvement_equals_rliable():
    metrics = pytest.importorskip("rliable.metrics")
    rng = np.random.default_rng(2)
    x, y = rng.normal(size=(10, 6)), rng.normal(0.2, size=(8, 6))
    got = compare.probability_of_improvement(y, x, n_resamples=0).value   # rliable's first argument is B
    assert got == pytest.approx(metrics.probability_of_improvement(x, y), rel=1e-12)


def test_performance_profile_by_hand():
    rng = np.random.default_rng(3)
    s = rng.normal(size=(6, 5))
    taus = np.linspace(-2, 2, 17)
    runs = compare.performance_profile(s, taus)
    mean = compare.performance_profile(s, taus, kind="mean")
    np.testing.assert_allclose(runs, [np.mean(s > t) for t in taus], rtol=0, atol=1e-15)
    np.testing.assert_allclose(mean, [np.mean(s.mean(axis=0) > t) for t in taus], rtol=0, atol=1e-15)
    # a score equal to tau is not above it
    assert compare.performance_profile([[1.0, 2.0]], [1.0]).tolist() == [0.5]


def test_performance_profile_equals_rliable():
    library = pytest.importorskip("rliable.library")  # needs arch: skipped without it
    rng = np.random.default_rng(4)
    s = rng.normal(size=(6, 5))
    taus = np.linspace(-2, 2, 9)
    np.testing.assert_allclose(compare.performance_profile(s, taus), library.score_distributions(s, taus))
    np.testing.assert_allclose(compare.performance_profile(s, taus, kind="mean"),
                               library.average_score_distributions(s, taus))


# --- issue 33 item 6: P(improvement) by ranks, its bootstrap linear in the runs ------------------


def _pairwise(x, y):
    """The n_x x n_y table the function built before (the definition, for small data)."""
    diff = x[:, None, :] - y[None, :, :]
    return ((diff > 0).sum(axis=(0, 1)) + 0.5 * (diff == 0).sum(axis=(0, 1))) / (x.shape[0] * y.shape[0])


def test_probability_of_improvement_by_ranks_equals_the_pairwise_count_with_ties():
    rng = np.random.default_rng(11)
    a = rng.integers(0, 5, size=(6, 4)).astype(float)       # many ties
    b = rng.integers(1, 6, size=(9, 4)).astype(float)
    r = compare.probability_of_improvement(a, b, n_resamples=300, random_state=5)
    np.testing.assert_array_equal(r.per_task, _pairwise(b, a))
    # the same draws as before (x = B, y = A; rows of indices per resample), exactly the same values
    gen = np.random.default_rng(5)
    cols = np.arange(4)
    reps = []
    for _ in range(300):
        xi = b[gen.integers(0, 9, size=b.shape), cols]
        yi = a[gen.integers(0, 6, size=a.shape), cols]
        reps.append(_pairwise(xi, yi).mean())
    np.testing.assert_array_equal(r.bootstrap_distribution, reps)
    # continuous scores (no ties: the shortcut without the upper placements)
    a, b = rng.normal(size=(5, 3)), rng.normal(0.3, 1.0, size=(4, 3))
    r = compare.probability_of_improvement(a, b, n_resamples=200, random_state=6)
    gen, cols = np.random.default_rng(6), np.arange(3)
    reps = []
    for _ in range(200):
        xi = b[gen.integers(0, 4, size=b.shape), cols]
        reps.append(_pairwise(xi, a[gen.integers(0, 5, size=a.shape), cols]).mean())
    np.testing.assert_allclose(r.bootstrap_distribution, reps, rtol=0, atol=1e-15)


def test_probability_of_improvement_memory_is_linear():
    """30,000 scores asked for 7 GB (a 30,000 x 30,000 table), 200,000 for 298 GiB."""
    import tracemalloc

    rng = np.random.default_rng(0)
    a, b = rng.normal(size=30_000), rng.normal(0.1, 1.0, size=30_000)
    tracemalloc.start()
    r = compare.probability_of_improvement(a, b, n_resamples=3, random_state=0)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 64 * 30_000 * 2            # a few arrays of the runs, not their pairs
    # the value is scipy's Mann-Whitney U over n_x n_y
    assert r.value == pytest.approx(stats.mannwhitneyu(b, a).statistic / 30_000**2, rel=1e-12)


@pytest.mark.slow
def test_probability_of_improvement_of_a_million_scores():
    # the default 2,000 resamples: minutes run by run; the normal interval (timed in
    # benchmarks/bench_improvement.py)
    rng = np.random.default_rng(1)
    a, b = rng.normal(size=1_000_000), rng.normal(0.1, 1.0, size=1_000_000)
    r = compare.probability_of_improvement(a, b, random_state=0)
    # P(N(0.1, 1) > N(0, 1)) = Phi(0.1 / sqrt(2)) = 0.52819, within sampling error (sd 0.0003)
    assert r.value == pytest.approx(stats.norm.cdf(0.1 / np.sqrt(2)), abs=0.0015)
    assert r.method == "normal"
    assert r.standard_error == pytest.approx(np.sqrt(1e6 / (1e6 - 1)) * _delong_se(a, b), rel=1e-9)


# --- issue 33 item 6: the bootstrap of a million runs in seconds (normal beyond a size, groups) --


def _enumerated(x, y):
    """Every equally likely stratified resample of one task (tiny x, y): the exact bootstrap
    distribution of P(X > Y) + P(X = Y) / 2, as (values, probabilities)."""
    import itertools

    vals = [_pairwise(x[list(i)][:, None], y[list(j)][:, None])[0]
            for i in itertools.product(range(len(x)), repeat=len(x))
            for j in itertools.product(range(len(y)), repeat=len(y))]
    return np.unique(vals, return_counts=True)


def test_the_standard_error_is_the_exact_bootstrap_sd_by_enumeration():
    # two tasks with ties; every one of the 4^4 x 3^3 resamples per task enumerated
    a = np.array([[0.6, 1.0], [0.75, 2.0], [0.5, 2.0]])
    b = np.array([[0.9, 2.0], [0.5, 1.0], [0.5, 3.0], [0.6, 0.0]])
    var = []
    for t in range(2):
        vals, counts = _enumerated(b[:, t], a[:, t])
        p = counts / counts.sum()
        var.append(np.sum(p * vals**2) - np.sum(p * vals) ** 2)
    sd = np.sqrt(np.sum(var)) / 2                   # the mean of two independent tasks
    plain = compare.probability_of_improvement(a, b, n_resamples=0, expand=False)
    assert plain.standard_error == pytest.approx(sd, rel=1e-12)
    assert plain.method == "percentile" and np.isnan(plain.confidence_interval.low)
    r = compare.probability_of_improvement(a, b, interval="normal")
    assert r.method == "normal" and r.n_resamples == 0 and r.bootstrap_distribution.size == 0
    assert r.standard_error == pytest.approx(np.sqrt(3 / 2) * sd, rel=1e-12)   # expanded (3 runs of A)
    z = stats.norm.ppf(0.975)
    assert r.confidence_interval.low == pytest.approx(r.value - z * r.standard_error, rel=1e-12)
    assert r.confidence_interval.high == pytest.approx(min(1.0, r.value + z * r.standard_error), rel=1e-12)
    assert "normal interval (exact bootstrap variance)" in str(r)


def test_the_grouped_counts_give_exactly_the_run_by_run_replicates():
    from predstab.compare._profiles import _grouped_u, _groups, _placements

    rng = np.random.default_rng(3)
    x = rng.integers(0, 6, size=40).astype(float)[:, None]   # ties between and within the arms
    y = rng.integers(0, 8, size=9).astype(float)[:, None]
    _, below, equal = placements = _placements(x, y)
    w_x, w_y, lo, hi = _groups(below[:, 0], equal[:, 0], 9)
    assert w_x.sum() == 40 and w_y.sum() == 9 and w_x.size <= 2 * 9 + 1
    key = below[:, 0] * 10 + equal[:, 0]
    group_x = np.searchsorted(np.unique(key), key)          # each run of x: its group
    cuts = np.concatenate([[0], np.cumsum(w_y)])
    position = np.argsort(placements[0][:, 0])              # each run of y: its place in sorted y
    group_y = np.searchsorted(cuts, position, side="right") - 1
    for _ in range(50):
        ix, iy = rng.integers(0, 40, size=40), rng.integers(0, 9, size=9)
        c_x = np.bincount(group_x[ix], minlength=w_x.size)[None, :]
        c_y = np.bincount(group_y[iy], minlength=w_y.size)[None, :]
        assert _grouped_u(c_x, c_y, lo, hi, 360)[0] == _pairwise(x[ix], y[iy])[0]


def test_the_grouped_bootstrap_draws_the_exact_bootstrap_distribution():
    from predstab.compare._profiles import _grouped_replicates, _placements

    a, b = np.array([0.6, 0.75, 0.5]), np.array([0.9, 0.5, 0.5, 0.6])
    vals, counts = _enumerated(b, a)
    reps = _grouped_replicates(_placements(b[:, None], a[:, None]), 4, 3, 20_000, np.random.default_rng(1))
    got = np.array([np.sum(np.isclose(reps, v, rtol=0, atol=1e-12)) for v in vals])
    assert got.sum() == 20_000                               # only values a resample can take
    chi2 = np.sum((got - 20_000 * counts / counts.sum()) ** 2 / (20_000 * counts / counts.sum()))
    assert stats.chi2.sf(chi2, vals.size - 1) > 1e-3


def _delong_se(a, b):
    """The bootstrap SD from ranks (scipy), independently of the function's placements."""
    n_x, n_y = b.size, a.size
    pooled = stats.rankdata(np.concatenate([b, a]))
    p = (pooled[:n_x] - stats.rankdata(b)) / n_y            # share of A below each run of B
    q = 1.0 - (pooled[n_x:] - stats.rankdata(a)) / n_x      # share of B above each run of A
    u = p.mean()
    return np.sqrt((1 - 1 / n_y) * p.var() / n_x + (1 - 1 / n_x) * q.var() / n_y
                   + (u - u * u) / (n_x * n_y))              # continuous scores: h^2 = h


def test_beyond_the_budget_the_interval_is_normal_in_bounded_memory():
    """120,000 runs at 2,000 resamples drew 2.4e8 indices (seconds; a million each: minutes)."""
    import tracemalloc

    rng = np.random.default_rng(4)
    a, b = rng.normal(size=60_000), rng.normal(0.05, 1.0, size=60_000)
    tracemalloc.start()
    r = compare.probability_of_improvement(a, b, random_state=0)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 8 * (a.nbytes + b.nbytes)                  # a few arrays of the runs
    assert r.method == "normal" and r.n_resamples == 0
    se = np.sqrt(60_000 / 59_999) * _delong_se(a, b)
    assert r.standard_error == pytest.approx(se, rel=1e-9)
    z = stats.norm.ppf(0.975)
    assert tuple(r.confidence_interval) == pytest.approx((r.value - z * se, r.value + z * se), rel=1e-9)
    # the same interval as the percentile bootstrap's, within its Monte Carlo error
    boot = compare.probability_of_improvement(a, b, n_resamples=800, random_state=0,
                                              interval="percentile")
    assert boot.method == "percentile" and boot.n_resamples == 800
    assert np.std(boot.bootstrap_distribution) * np.sqrt(60_000 / 59_999) == pytest.approx(se, rel=0.1)
    assert tuple(boot.confidence_interval) == pytest.approx(tuple(r.confidence_interval), abs=0.3 * se)


def test_a_million_runs_against_ten_draw_groups():
    """One arm large, the other small: the percentile bootstrap by groups, linear in the ten."""
    rng = np.random.default_rng(5)
    a, b = rng.normal(size=10), rng.normal(0.3, 1.0, size=1_000_000)
    r = compare.probability_of_improvement(a, b, n_resamples=4_000, random_state=0, expand=False)
    assert r.method == "percentile" and r.n_resamples == 4_000
    # mean and SD of the replicates: the estimate and the exact bootstrap SD
    sem = r.standard_error / np.sqrt(4_000)
    assert r.bootstrap_distribution.mean() == pytest.approx(r.value, abs=4 * sem)
    assert r.bootstrap_distribution.std() == pytest.approx(r.standard_error, rel=0.07)
    # with ten runs of A the exact SD is (almost all) the spread of the shares of B above each
    q = np.array([np.mean(b > v) for v in a])
    assert r.standard_error == pytest.approx(np.sqrt(q.var() / 10), rel=1e-3)


def test_the_normal_interval_of_a_sure_improvement_is_a_point():
    from predstab import PredstabDegenerateWarning

    with pytest.warns(PredstabDegenerateWarning, match="single point"):
        r = compare.probability_of_improvement([[1.0], [2.0]], [[3.0], [4.0]], interval="normal")
    assert r.value == 1.0 and tuple(r.confidence_interval) == (1.0, 1.0) and r.standard_error == 0.0
