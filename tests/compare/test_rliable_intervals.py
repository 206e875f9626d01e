"""rliable's aggregate intervals with its own resampling (issue 38 item 6): IQM, median, mean and
optimality gap with ``stratified_bootstrap_ci(..., resampling="rliable")``, and performance
profiles with bands (``performance_profile_ci``).

The reference values were produced by rliable 1.2.0 with arch 7.2.0 (numpy 2.4.6, Python 3.11),
run while writing these tests, never imported here; the call is beside each value. rliable
draws its runs from NumPy's global generator (``np.random.choice`` in
``StratifiedBootstrap.update_indices``), so every reference call is preceded by
``np.random.seed(seed)``. Tolerance 1e-12 relative: the draws are identical; only the last bit
of a sum can differ (``iqm`` sorts where ``scipy.stats.trim_mean`` partitions).
"""

import re

import numpy as np
import pytest
from scipy import stats

from predstab import compare
from predstab._core._validation import InvalidParameterError

# 5 runs x 6 tasks: np.round(rng.gamma(2, 0.5, (5, 6)) * rng.uniform(0.5, 2, 6), 3) with
# rng = np.random.default_rng(38), written out
S = np.array([[3.724, 2.779, 1.059, 1.591, 0.264, 1.47], [3.365, 1.041, 0.988, 0.155, 0.994, 1.636],
              [1.404, 1.13, 2.106, 1.622, 0.777, 0.297], [1.067, 0.618, 0.459, 1.101, 2.211, 2.232],
              [0.638, 1.001, 0.665, 0.799, 0.61, 3.514]])
RTOL = 1e-12

# rliable: np.random.seed(seed); library.get_interval_estimates({"A": S}, lambda s:
#   np.array([metrics.aggregate_<name>(s)]), reps=reps, confidence_interval_size=level)
GET_INTERVAL_ESTIMATES = [
    # statistic, seed, reps, level, point estimate, lower, upper
    (compare.iqm, 0, 2000, 0.95, 1.1465625, 0.9235578124999998, 1.4799656249999997),
    (compare.aggregate_median, 1, 2000, 0.95, 1.1845999999999999, 0.9319725, 1.6229224999999998),
    (compare.aggregate_mean, 2, 2000, 0.90, 1.3772333333333335, 1.12578, 1.6230349999999998),
    (compare.optimality_gap, 3, 2000, 0.95, 0.1578666666666667, 0.07959833333333334, 0.2558),
    (compare.iqm, 12345, 500, 0.95, 1.1465625, 0.8972390625000001, 1.4508046875),
    # np.random.seed(0); get_interval_estimates(..., reps=300, random_state=np.random.RandomState(5)):
    # rliable's random_state does not reach the draws (the interval is the one without it)
    (compare.iqm, 0, 300, 0.95, 1.1465625, 0.9253218750000001, 1.4768499999999998),
]


@pytest.mark.parametrize("statistic, seed, reps, level, point, low, high", GET_INTERVAL_ESTIMATES,
                         ids=["iqm", "median", "mean-90", "optimality-gap", "iqm-500",
                              "iqm-random-state-ignored"])
def test_rliable_resampling_reproduces_get_interval_estimates(statistic, seed, reps, level, point, low, high):
    r = compare.stratified_bootstrap_ci(S, statistic=statistic, n_resamples=reps, confidence_level=level,
                                        random_state=seed, resampling="rliable", expand=False)
    assert r.value == pytest.approx(point, rel=RTOL)
    assert tuple(r.confidence_interval) == pytest.approx((low, high), rel=RTOL)
    assert r.expansion == 1.0 and r.bootstrap_distribution.shape == (reps,)


def test_rliable_draws_do_not_depend_on_the_statistic():
    # np.random.seed(7); library.get_interval_estimates({"A": S}, lambda s: np.array([
    #   aggregate_median(s), aggregate_iqm(s), aggregate_mean(s), aggregate_optimality_gap(s)]),
    #   reps=1000): rliable's README computes the four at once; one seed, the same draws each
    expected = {compare.aggregate_median: (0.9651525000000001, 1.6106025),
                compare.iqm: (0.9029984375, 1.5082171874999997),
                compare.aggregate_mean: (1.0855741666666667, 1.6998708333333332),
                compare.optimality_gap: (0.0710708333333333, 0.25010333333333334)}
    for statistic, (low, high) in expected.items():
        r = compare.stratified_bootstrap_ci(S, statistic=statistic, n_resamples=1000, random_state=7,
                                            resampling="rliable", expand=False)
        assert tuple(r.confidence_interval) == pytest.approx((low, high), rel=RTOL), statistic.__name__


def test_optimality_gap_with_gamma_reproduces_rliable():
    # np.random.seed(4); library.get_interval_estimates({"A": S}, lambda s: np.array(
    #   [metrics.aggregate_optimality_gap(s, gamma=1.5)]), reps=1000)
    r = compare.stratified_bootstrap_ci(S, statistic=lambda s: compare.optimality_gap(s, gamma=1.5),
                                        n_resamples=1000, random_state=4, resampling="rliable", expand=False)
    assert r.value == pytest.approx(0.44876666666666676, rel=RTOL)
    assert tuple(r.confidence_interval) == pytest.approx((0.3062225, 0.5965516666666666), rel=RTOL)


TAUS = np.linspace(0.0, 3.0, 7)


@pytest.mark.parametrize("kind, seed, profile, low, high", [
    # np.random.seed(5); library.create_performance_profile({"A": S}, np.linspace(0, 3, 7), reps=1000)
    ("runs", 5,
     [1.0, 0.8666666666666667, 0.6, 0.3333333333333333, 0.23333333333333334, 0.13333333333333333, 0.1],
     [1.0, 0.7333333333333333, 0.4658333333333341, 0.16666666666666666, 0.1, 0.03333333333333333,
      0.03333333333333333],
     [1.0, 0.9666666666666667, 0.7666666666666667, 0.5, 0.4, 0.23333333333333334, 0.2]),
    # np.random.seed(6); library.create_performance_profile({"A": S}, np.linspace(0, 3, 7),
    #   use_score_distribution=False, reps=1000)
    ("mean", 6, [1.0, 1.0, 0.8333333333333334, 0.3333333333333333, 0.16666666666666666, 0.0, 0.0],
     [1.0, 0.8333333333333334, 0.3333333333333333, 0.0, 0.0, 0.0, 0.0],
     [1.0, 1.0, 1.0, 0.5041666666666629, 0.3333333333333333, 0.16666666666666666, 0.16666666666666666]),
])
def test_performance_profile_bands_reproduce_rliable(kind, seed, profile, low, high):
    r = compare.performance_profile_ci(S, TAUS, kind=kind, n_resamples=1000, random_state=seed,
                                       resampling="rliable", expand=False)
    np.testing.assert_allclose(r.value, profile, rtol=RTOL, atol=1e-15)
    np.testing.assert_allclose(r.confidence_interval.low, low, rtol=RTOL, atol=1e-15)
    np.testing.assert_allclose(r.confidence_interval.high, high, rtol=RTOL, atol=1e-15)
    np.testing.assert_array_equal(r.taus, TAUS)
    assert r.kind == kind and r.n_resamples == 1000 and r.expansion == 1.0


def _rliable_replicates(scores, statistic, seed, reps):
    """rliable's scheme written out: one np.random.choice table per replicate (arch's loop)."""
    legacy = np.random.RandomState(seed)          # the state np.random.seed(seed) sets
    cols = np.arange(scores.shape[1])
    return np.array([statistic(scores[legacy.choice(scores.shape[0], scores.shape, replace=True), cols])
                     for _ in range(reps)])


def test_rliable_draws_by_hand_and_the_global_generator_untouched():
    table = np.random.default_rng(3).normal(size=(4, 7))
    np.random.seed(99)                            # noqa: NPY002 (the global generator, on purpose)
    before = np.random.random()                   # noqa: NPY002
    np.random.seed(99)                            # noqa: NPY002
    r = compare.stratified_bootstrap_ci(table, statistic=np.mean, n_resamples=300, random_state=11,
                                        resampling="rliable", expand=False)
    assert np.random.random() == before           # noqa: NPY002 (predstab neither reads nor moves it)
    reps = _rliable_replicates(table, np.mean, 11, 300)
    np.testing.assert_array_equal(r.bootstrap_distribution, reps)
    # arch's conf_int: np.percentile at 100 alpha and 100 (1 - alpha), alpha = (1 - 0.95) / 2
    alpha = (1.0 - 0.95) / 2
    assert tuple(r.confidence_interval) == pytest.approx(
        tuple(np.percentile(reps, [100 * alpha, 100 * (1 - alpha)])), rel=1e-14)
    # a seed above 2**31 (RandomState takes up to 2**32 - 1)
    big = compare.stratified_bootstrap_ci(table, statistic=np.mean, n_resamples=20, random_state=2**32 - 1,
                                          resampling="rliable")
    np.testing.assert_array_equal(big.bootstrap_distribution,
                                  _rliable_replicates(table, np.mean, 2**32 - 1, 20))


def test_rliable_resampling_with_the_expansion():
    r = compare.stratified_bootstrap_ci(S, n_resamples=400, random_state=5, resampling="rliable")
    plain = compare.stratified_bootstrap_ci(S, n_resamples=400, random_state=5, resampling="rliable",
                                            expand=False)
    np.testing.assert_array_equal(r.bootstrap_distribution, plain.bootstrap_distribution)
    f = np.sqrt(5 / 4) * stats.t.ppf(0.975, 6 * 4) / stats.norm.ppf(0.975)
    assert r.expansion == pytest.approx(f, rel=1e-12)
    wide = r.value + f * (r.bootstrap_distribution - r.value)
    assert tuple(r.confidence_interval) == pytest.approx(tuple(np.quantile(wide, [0.025, 0.975])), rel=1e-12)
    assert r.standard_error == pytest.approx(np.sqrt(5 / 4) * np.std(plain.bootstrap_distribution, ddof=1),
                                             rel=1e-12)


def test_predstab_resampling_is_unchanged_by_the_option():
    # the draws of predstab's scheme, written out (as before the option existed)
    gen, cols = np.random.default_rng(8), np.arange(6)
    reps = [compare.iqm(S[gen.integers(0, 5, size=(5, 6)), cols]) for _ in range(200)]
    r = compare.stratified_bootstrap_ci(S, n_resamples=200, random_state=8)
    assert r == compare.stratified_bootstrap_ci(S, n_resamples=200, random_state=8, resampling="predstab")
    np.testing.assert_array_equal(r.bootstrap_distribution, reps)
    other = compare.stratified_bootstrap_ci(S, n_resamples=200, random_state=8, resampling="rliable")
    assert not np.array_equal(other.bootstrap_distribution, reps)


def test_rliable_aggregates_by_hand():
    x = np.array([[0.2, 1.5, 3.0, 0.9], [0.4, 0.5, 1.0, 0.7], [0.9, 0.1, 2.0, 0.2]])
    means = [0.5, 0.7, 2.0, 0.6]                       # the task means
    assert compare.aggregate_mean(x) == pytest.approx(np.mean(means), rel=1e-15)
    assert compare.aggregate_median(x) == pytest.approx(0.65, rel=1e-15)   # (0.6 + 0.7) / 2
    assert compare.aggregate_median(x[:, :3]) == pytest.approx(0.7, rel=1e-15)
    assert compare.aggregate_median(x) != pytest.approx(np.median(x))    # not the median of the runs
    # gamma - mean(min(x, gamma)): 1.5, 3.0 and 2.0 count as 1
    clipped = [0.2, 1.0, 1.0, 0.9, 0.4, 0.5, 1.0, 0.7, 0.9, 0.1, 1.0, 0.2]
    assert compare.optimality_gap(x) == pytest.approx(1 - np.mean(clipped), rel=1e-14)
    assert compare.optimality_gap(x, gamma=0.5) == pytest.approx(
        0.5 - np.mean(np.minimum(x, 0.5)), rel=1e-14)
    assert compare.optimality_gap(x, gamma=10) == pytest.approx(10 - x.mean(), rel=1e-14)
    # a 1-D array is one task
    assert compare.aggregate_median([1.0, 2.0, 6.0]) == 3.0 == compare.aggregate_mean([1.0, 2.0, 6.0])


def test_performance_profile_band_expansion_by_hand():
    r = compare.performance_profile_ci(S, TAUS, n_resamples=300, random_state=2)
    plain = compare.performance_profile_ci(S, TAUS, n_resamples=300, random_state=2, expand=False)
    np.testing.assert_array_equal(r.bootstrap_distribution, plain.bootstrap_distribution)
    f = np.sqrt(5 / 4) * stats.t.ppf(0.975, 24) / stats.norm.ppf(0.975)
    assert r.expansion == pytest.approx(f, rel=1e-12)
    wide = r.value + f * (r.bootstrap_distribution - r.value)
    low, high = np.quantile(wide, [0.025, 0.975], axis=0)
    np.testing.assert_allclose(r.confidence_interval.low, np.clip(low, 0, 1), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(r.confidence_interval.high, np.clip(high, 0, 1), rtol=1e-12, atol=1e-15)
    assert low[-1] < 0 and r.confidence_interval.low[-1] == 0.0   # kept in [0, 1] at tau = 3
    np.testing.assert_allclose(plain.confidence_interval.low,
                               np.quantile(plain.bootstrap_distribution, 0.025, axis=0), rtol=1e-12)
    # each resample's profile, by hand
    gen, cols = np.random.default_rng(2), np.arange(6)
    first = S[gen.integers(0, 5, size=(5, 6)), cols]
    np.testing.assert_allclose(r.bootstrap_distribution[0], [np.mean(first > t) for t in TAUS], atol=1e-15)
    frame = r.to_frame()
    assert frame.columns.tolist() == ["tau", "value", "ci_low", "ci_high"] and len(frame) == 7
    text = str(r)
    assert "runs above tau" in text and "n_resamples = 300" in text


def test_performance_profile_ci_mean_kind_by_hand():
    r = compare.performance_profile_ci(S, TAUS, kind="mean", n_resamples=50, random_state=1)
    np.testing.assert_allclose(r.value, [np.mean(S.mean(axis=0) > t) for t in TAUS], atol=1e-15)
    gen, cols = np.random.default_rng(1), np.arange(6)
    first = S[gen.integers(0, 5, size=(5, 6)), cols]
    np.testing.assert_allclose(r.bootstrap_distribution[0], [np.mean(first.mean(axis=0) > t) for t in TAUS],
                               atol=1e-15)
    assert "tasks whose mean is above tau" in str(r)


@pytest.mark.parametrize("call, error, text", [
    (lambda: compare.stratified_bootstrap_ci(S, random_state=np.random.default_rng(0), resampling="rliable"),
     ValueError, "`random_state` must be None or an int in [0, 2**32) with resampling='rliable' (the seed "
                 "of rliable's np.random.seed); got Generator."),
    (lambda: compare.stratified_bootstrap_ci(S, random_state=2**32, resampling="rliable"), ValueError,
     "got 4294967296"),
    (lambda: compare.stratified_bootstrap_ci(S, resampling="arch"), InvalidParameterError, "`resampling`"),
    (lambda: compare.performance_profile_ci(S, TAUS, random_state=np.random.SeedSequence(1),
                                            resampling="rliable"), ValueError, "SeedSequence"),
    (lambda: compare.performance_profile_ci(S[:1], TAUS), ValueError, "at least 2 runs"),
    (lambda: compare.performance_profile_ci(S[:, 0], TAUS), ValueError, "`scores`"),
    (lambda: compare.performance_profile_ci(S, TAUS, kind="median"), InvalidParameterError, "`kind`"),
    (lambda: compare.optimality_gap(S, gamma="1"), InvalidParameterError, "`gamma`"),
    (lambda: compare.aggregate_median(np.ones((2, 2, 2))), ValueError, "`scores`"),
])
def test_bad_input_names_the_parameter(call, error, text):
    with pytest.raises(error, match=re.escape(text)):
        call()


def test_rliable_resampling_with_no_seed_varies():
    a = compare.stratified_bootstrap_ci(S, n_resamples=50, resampling="rliable")
    b = compare.stratified_bootstrap_ci(S, n_resamples=50, resampling="rliable")
    assert not np.array_equal(a.bootstrap_distribution, b.bootstrap_distribution)


@pytest.mark.slow
@pytest.mark.parametrize("runs, least", [(3, 0.85), (5, 0.90)])
def test_performance_profile_band_covers(runs, least):
    """Pointwise coverage of the share of runs above tau (taus -0.5 and 0.5), 8 normal tasks,
    95 % nominal, 300 simulations (Monte Carlo sd 0.013-0.017). Measured (seeds 0-299): at 3 runs
    the expanded band 0.90 / 0.93, rliable's percentile band 0.81 / 0.85; at 5 runs 0.94 / 0.95
    and 0.89 / 0.89. The share is discrete (multiples of 1/24 at 3 runs): the expansion does not
    reach 0.95 at 3 runs. Bounds: the measured coverage less three Monte Carlo sd."""
    mu = np.linspace(-1.0, 1.0, 8)
    taus = np.array([-0.5, 0.5])
    truth = np.array([np.mean(stats.norm.sf(t - mu)) for t in taus])
    sims = 300
    hits, plain_hits = np.zeros(2), np.zeros(2)
    for seed in range(sims):
        rng = np.random.default_rng(seed)
        x = mu + rng.normal(size=(runs, 8))
        r = compare.performance_profile_ci(x, taus, n_resamples=200, random_state=rng)
        p = compare.performance_profile_ci(x, taus, n_resamples=200, random_state=seed, expand=False)
        hits += (r.confidence_interval.low <= truth) & (truth <= r.confidence_interval.high)
        plain_hits += (p.confidence_interval.low <= truth) & (truth <= p.confidence_interval.high)
    cover, plain = hits / sims, plain_hits / sims
    assert np.all(cover >= least), cover
    assert np.all(plain < cover), (plain, cover)


def test_performance_profile_result_prints_its_table():
    # 9 runs: 7 above 0.5 (7/9 = 0.7778), 3 above 1 (3/9), none above 12.5; the 5 % band end 5/9
    sc = [[0.2, 1.5, 0.7], [0.9, 1.1, 0.4], [0.6, 1.3, 0.8]]
    r = compare.performance_profile_ci(sc, [0.5, 1.0, 12.5], n_resamples=200, random_state=0, expand=False,
                                       confidence_level=0.9)
    assert r.confidence_interval.low[0] == pytest.approx(5 / 9, rel=1e-12)
    assert str(r).splitlines() == [
        " Performance profile with stratified bootstrap band (Agarwal et al. 2021)", "",
        "share of runs above tau; n_resamples = 200, expansion = 1",
        " tau  share         90% band",
        " 0.5 0.7778      0.5556 to 1",
        "   1 0.3333 0.3333 to 0.3333",
        "12.5      0           0 to 0"]
    # task means 0.5667, 1.3, 0.6333: all above 0.5, one above 1; expansion sqrt(3/2) t(0.975, 6) / z
    m = compare.performance_profile_ci(sc, [0.5, 1.0], kind="mean", n_resamples=100, random_state=0)
    f = np.sqrt(3 / 2) * stats.t.ppf(0.975, 6) / stats.norm.ppf(0.975)
    assert m.expansion == pytest.approx(f, rel=1e-12) and f"{f:.4g}" == "1.529"
    assert str(m).splitlines() == [
        " Performance profile with stratified bootstrap band (Agarwal et al. 2021)", "",
        "share of tasks whose mean is above tau; n_resamples = 100, expansion = 1.529",
        "tau  share         95% band",
        "0.5      1           0 to 1",
        "  1 0.3333 0.3333 to 0.3333"]
