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
    assert np.quantile(r.bootstrap_distribution, 0.025) == pytest.approx(r.confidence_interval.low, rel=1e-12)
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
