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
    import time

    rng = np.random.default_rng(1)
    a, b = rng.normal(size=1_000_000), rng.normal(0.1, 1.0, size=1_000_000)
    t0 = time.perf_counter()
    r = compare.probability_of_improvement(a, b, n_resamples=2, random_state=0)
    assert time.perf_counter() - t0 < 30.0         # about 1 s on a quiet machine
    # P(N(0.1, 1) > N(0, 1)) = Phi(0.1 / sqrt(2)) = 0.52819, within sampling error (sd 0.0003)
    assert r.value == pytest.approx(stats.norm.cdf(0.1 / np.sqrt(2)), abs=0.0015)
