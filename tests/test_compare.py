"""predstab.compare: the figures of issue #7, invariances, degenerate cases and bad input."""

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from predstab import ConfidenceInterval, PredstabDataWarning, PredstabUndefinedWarning, compare

A = [40, 42, 44, 45, 46, 47, 48, 49, 50, 51]
B = [5, 8, 10, 12, 30, 33, 35, 38, 40, 420]
# 12 data sets x 3 methods with average ranks 1.8333, 1.5833, 2.5833 (issue #7)
RANKS = np.array([[1, 2, 3]] * 3 + [[1, 3, 2]] + [[2, 1, 3]] * 5 + [[3, 1, 2]] * 2 + [[2, 3, 1]])


# ---------------------------------------------------------------- McNemar
@pytest.mark.parametrize("table, p, delta", [
    ((146, 4, 14, 36), 0.030884, 5.0),   # issue figures, p printed to 6 decimals
    ((110, 40, 50, 0), 0.342833, 5.0),
    ((8, 0, 0, 2), 1.0, 0.0),
])
def test_mcnemar_issue_figures(table, p, delta):
    a, b, c, d = table
    r = compare.mcnemar([[a, b], [c, d]])
    assert r.pvalue == pytest.approx(p, abs=5e-7)
    assert r.delta_pp == pytest.approx(delta, abs=1e-12)
    assert r.table == table and r.n == sum(table) and r.discordant == b + c
    assert (r.regressions, r.improvements) == (b, c)


def test_mcnemar_empty_is_undefined_not_one():
    with pytest.warns(PredstabUndefinedWarning, match="no cases"):
        r = compare.mcnemar([[0, 0], [0, 0]])
    assert np.isnan(r.pvalue) and r.n == 0
    with pytest.warns(PredstabUndefinedWarning):
        assert np.isnan(compare.mcnemar([], []).pvalue)


@pytest.mark.parametrize("table", [(146, 4, 14, 36), (110, 40, 50, 0), (3, 7, 1, 9), (5, 0, 3, 1)])
def test_mcnemar_equals_statsmodels_exact(table):
    from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar

    a, b, c, d = table
    ref = sm_mcnemar(np.array([[a, b], [c, d]]), exact=True)
    r = compare.mcnemar([[a, b], [c, d]])
    assert r.pvalue == pytest.approx(ref.pvalue, rel=1e-12)
    assert r.statistic == ref.statistic


def test_mcnemar_mid_p():
    # mid-p = exact p - P[X = min(b, c)], X ~ Binomial(b + c, 1/2) (Fagerland et al. 2013)
    r = compare.mcnemar([[146, 4], [14, 36]], mid_p=True)
    assert r.pvalue == pytest.approx(0.0308837890625 - stats.binom.pmf(4, 18, 0.5), rel=1e-12)
    # b = c: the exact p is 1 and the mid-p value 1 - P[X = b] / 2, not 1 (Fagerland et al. 2013)
    assert compare.mcnemar([[1, 5], [5, 1]], mid_p=True).pvalue == pytest.approx(
        1 - stats.binom.pmf(5, 10, 0.5) / 2, rel=1e-12)
    assert compare.mcnemar([[1, 5], [5, 1]], method="mid-p") == compare.mcnemar([[1, 5], [5, 1]], mid_p=True)
    # mid-p as P(|X - m/2| > |b - m/2|) + P(|X - m/2| = |b - m/2|) / 2, by enumeration
    for b, c in ((4, 14), (5, 5), (0, 3), (7, 6)):
        m = b + c
        x = np.arange(m + 1)
        pmf = stats.binom.pmf(x, m, 0.5)
        dist, obs = np.abs(x - m / 2), abs(b - m / 2)
        want = pmf[dist > obs + 1e-9].sum() + 0.5 * pmf[np.abs(dist - obs) < 1e-9].sum()
        assert compare.mcnemar([[3, b], [c, 2]], method="mid-p").pvalue == pytest.approx(want, rel=1e-12)


def test_mcnemar_from_arrays_and_records_agree_with_table():
    rng = np.random.default_rng(3)
    old = rng.integers(0, 2, 300)
    new = np.where(rng.random(300) < 0.8, old, 1 - old)
    r = compare.mcnemar(old, new, ids=np.arange(300))
    a = int(np.sum((old == 1) & (new == 1)))
    b = int(np.sum((old == 1) & (new == 0)))
    c = int(np.sum((old == 0) & (new == 1)))
    assert r.table == (a, b, c, 300 - a - b - c)
    assert r.pvalue == compare.mcnemar([[a, b], [c, 300 - a - b - c]]).pvalue
    records = [(f"case{i}", bool(o), bool(n)) for i, (o, n) in enumerate(zip(old, new, strict=True))]
    ids, o, n = zip(*records, strict=True)
    assert compare.mcnemar(o, n, ids=ids).table == r.table
    assert compare.mcnemar(records).table == r.table
    frame = pd.DataFrame(records, columns=["id", "old", "new"])
    assert compare.mcnemar(frame).table == r.table
    with pytest.raises(ValueError, match="`ids` must be unique"):
        compare.mcnemar(records + records[:1])
    # shuffling the cases changes nothing
    perm = rng.permutation(300)
    assert compare.mcnemar(old[perm], new[perm]).table == r.table


def test_mcnemar_missing_judgment_dropped_not_failure():
    with pytest.warns(PredstabDataWarning, match="missing"):
        r = compare.mcnemar([1, 1, 0, None, 1], [1, 0, 1, 1, np.nan])
    assert r.table == (1, 1, 1, 0) and r.n == 3
    old = pd.array([1, 1, 0, pd.NA], dtype="Int64")
    new = pd.array([True, False, True, True], dtype="boolean")
    with pytest.warns(PredstabDataWarning, match="1 case"):
        assert compare.mcnemar(old, new).table == (1, 1, 1, 0)
    # the warning points at the caller, also for records
    with pytest.warns(PredstabDataWarning) as caught:
        compare.mcnemar([("a", 1, 1), ("b", None, 0), ("c", 0, 1)])
    assert caught[0].filename == __file__


@pytest.mark.parametrize("args, kwargs, match", [
    (([1, 0, 1], [1, 1, 0]), dict(ids=["a", "b", "a"]), "`ids` must be unique"),
    (([1, 2], [1, 0]), {}, "`a` must contain only 0/1"),
    (([1, 0], [1, "yes"]), {}, "`b` must contain only 0/1"),
    (([1, 0], [1]), {}, "same length"),
    (([1, 0], [1, 0]), dict(ids=[1]), "`ids` must have one entry"),
])
def test_mcnemar_rejects_bad_records(args, kwargs, match):
    with pytest.raises(ValueError, match=match):
        compare.mcnemar(*args, **kwargs)


def test_mcnemar_bad_table():
    with pytest.raises(ValueError, match="`a` must be a square"):
        compare.mcnemar([1, 2, 3, 4])
    with pytest.raises(ValueError, match="`a` must be a 2 x 2"):
        compare.mcnemar(np.ones((4, 4), dtype=int))
    with pytest.raises(ValueError, match="`method`"):
        compare.mcnemar([[1, 2], [3, 4]], method="chisq")
    with pytest.raises(ValueError, match="non-negative whole"):
        compare.mcnemar([[1, -2], [3, 4]])
    with pytest.raises(TypeError, match="not both"):       # a table carries no case ids
        compare.mcnemar([[1, 2], [3, 4]], ids=[1, 2])
    with pytest.raises(ValueError, match="`a` must be one-dimensional"):   # a table and judgments
        compare.mcnemar([[1, 2], [3, 4]], [1, 0])
    with pytest.raises(TypeError, match="`mid_p`"):
        compare.mcnemar([[1, 2], [3, 4]], mid_p="yes")


def test_mcnemar_to_frame():
    f = compare.mcnemar([[146, 4], [14, 36]]).to_frame()
    assert f.shape[0] == 1 and f["pvalue"].iloc[0] == pytest.approx(0.0308837890625)


# ---------------------------------------------------------------- t, permutation
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


def test_ttest_constant_differences_undefined():
    with pytest.warns(PredstabUndefinedWarning, match="constant"):
        r = compare.ttest([1.0, 2.0, 3.0], [2.0, 3.0, 4.0], paired=True)
    assert np.isnan(r.statistic) and np.isnan(r.pvalue) and r.estimate == 1.0


# ---------------------------------------------------------------- CV-aware tests
def test_corrected_resampled_ttest_formula():
    a = np.array([0.80, 0.82, 0.79, 0.81, 0.80, 0.83, 0.78, 0.80, 0.82, 0.81])
    d = np.array([0.02, 0.01, 0.01, 0.03, 0.00, 0.02, 0.02, 0.01, 0.02, 0.01])
    r = compare.corrected_resampled_ttest(a, a + d, n_train=900, n_test=100)
    # by hand: mean 0.015, var 0.0000722..., se = sqrt((1/10 + 100/900) var)
    var = np.sum((d - 0.015) ** 2) / 9
    t = 0.015 / np.sqrt((0.1 + 1 / 9) * var)
    assert r.statistic == pytest.approx(t, rel=1e-9)
    assert r.pvalue == pytest.approx(2 * stats.t.sf(t, 9), rel=1e-9)
    # without the overlap term it is the paired t-test: the correction only widens
    naive = compare.ttest(a, a + d, paired=True)
    tiny = compare.corrected_resampled_ttest(a, a + d, n_train=1e12, n_test=1e-3)
    assert tiny.statistic == pytest.approx(naive.statistic, rel=1e-9)
    assert r.pvalue > naive.pvalue
    # a (repeats x folds) table is the same as its flattened scores
    r2 = compare.corrected_resampled_ttest(a.reshape(2, 5), (a + d).reshape(2, 5), n_train=900, n_test=100)
    assert r2.statistic == r.statistic


def test_cv5x2_tests_by_hand():
    a = np.zeros((5, 2))
    p = np.array([[0.04, 0.02], [0.03, 0.02], [0.01, 0.04], [0.03, 0.03], [0.02, 0.04]])
    # s_i^2 = (p_i1 - mean)^2 + (p_i2 - mean)^2 = (p_i1 - p_i2)^2 / 2
    s2 = np.array([0.0002, 0.00005, 0.00045, 0.0, 0.0002])
    t = compare.cv5x2_ttest(a, p)
    assert t.statistic == pytest.approx(0.04 / np.sqrt(s2.mean()), rel=1e-9)
    assert t.pvalue == pytest.approx(2 * stats.t.sf(t.statistic, 5), rel=1e-9)
    f = compare.cv5x2_ftest(a, p)
    assert f.statistic == pytest.approx(np.sum(p ** 2) / (2 * s2.sum()), rel=1e-9)
    assert f.pvalue == pytest.approx(stats.f.sf(f.statistic, 10, 5), rel=1e-9)
    with pytest.raises(ValueError, match=r"shape \(5, 2\)"):
        compare.cv5x2_ttest(np.zeros((2, 5)), np.zeros((2, 5)))
    with pytest.warns(PredstabUndefinedWarning):
        assert np.isnan(compare.cv5x2_ftest(a, np.ones((5, 2))).pvalue)


def test_wilcoxon_ties_use_normal_approximation_like_r():
    a = np.array([0.80, 0.71, 0.65, 0.90, 0.55, 0.60])
    b = a + np.array([0.02, 0.03, -0.01, 0.05, 0.05, 0.0])
    r = compare.wilcoxon(a, b)
    assert r.method == "Wilcoxon signed rank test with continuity correction"
    # scipy's normal approximation with the same corrections (zeros dropped)
    ref = stats.wilcoxon(b - a, zero_method="wilcox", correction=True, method="approx")
    assert r.pvalue == pytest.approx(ref.pvalue, rel=1e-6)
    with pytest.warns(PredstabUndefinedWarning):
        assert np.isnan(compare.wilcoxon(a, a).pvalue)


# ---------------------------------------------------------------- Friedman / Nemenyi
def test_friedman_nemenyi_issue_figures():
    r = compare.friedman_nemenyi(4 - RANKS)
    np.testing.assert_allclose(r.average_ranks, [22 / 12, 19 / 12, 31 / 12], rtol=1e-12)
    assert r.statistic == pytest.approx(6.50, abs=5e-3)      # issue: chi2_F = 6.50
    assert r.pvalue == pytest.approx(0.0388, abs=5e-5)       # issue: p = 0.0388
    assert r.critical_difference == pytest.approx(0.96, abs=5e-3)
    assert r.q_alpha == pytest.approx(2.3437, abs=5e-5)      # q_0.05 for k = 3
    # only the 1.00 gap exceeds the CD
    assert r.significant == (("method 2", "method 3"),)
    assert r.cliques() == [("method 2", "method 1"), ("method 1", "method 3")]
    # Demsar's formula (no ties)
    n, k = RANKS.shape
    chi2 = 12 * n / (k * (k + 1)) * (np.sum(r.average_ranks ** 2) - k * (k + 1) ** 2 / 4)
    assert r.statistic == pytest.approx(chi2, rel=1e-12)
    ff = r.ranks_frame()
    assert ff["method"].tolist() == ["method 2", "method 1", "method 3"]


def test_friedman_invariances():
    rng = np.random.default_rng(5)
    s = rng.random((15, 4))
    r = compare.friedman_nemenyi(s)
    r_rows = compare.friedman_nemenyi(s[rng.permutation(15)])
    assert r_rows.statistic == pytest.approx(r.statistic, rel=1e-12)
    perm = np.array([2, 0, 3, 1])
    r_cols = compare.friedman_nemenyi(s[:, perm])
    np.testing.assert_allclose(r_cols.average_ranks, r.average_ranks[perm], rtol=1e-12)
    # ranking the negated scores the other way round is the same
    r_neg = compare.friedman_nemenyi(-s, higher_is_better=False)
    np.testing.assert_array_equal(r_neg.average_ranks, r.average_ranks)
    # monotone transformation changes nothing
    assert compare.friedman_nemenyi(np.exp(s)).statistic == pytest.approx(r.statistic, rel=1e-12)


def test_friedman_dataframe_names_and_ties():
    df = pd.DataFrame({"rf": [0.9, 0.8, 0.7, 0.8], "gbm": [0.9, 0.85, 0.75, 0.82], "lr": [0.7] * 4})
    r = compare.friedman_nemenyi(df)
    assert r.names == ("rf", "gbm", "lr")
    assert r.average_ranks.tolist() == [2.0, 1.125, 2.875]   # ties averaged within rows
    # identical columns: no difference, statistic 0 and p 1
    z = compare.friedman_nemenyi(np.ones((5, 3)))
    assert z.statistic == 0.0 and z.pvalue == 1.0 and z.significant == ()


@pytest.mark.parametrize("scores, exc, match", [
    (np.ones(5), ValueError, "2-dimensional"),
    (np.ones((1, 3)), ValueError, "at least 2 data sets"),
    (np.array([[1.0, np.nan], [1.0, 2.0]]), ValueError, "NaN"),
])
def test_friedman_bad_input(scores, exc, match):
    with pytest.raises(exc, match=match):
        compare.friedman_nemenyi(scores)


def test_friedman_bad_alpha():
    with pytest.raises(ValueError, match="`significance`"):
        compare.friedman_nemenyi(np.ones((3, 3)), significance=5)


def test_cd_diagram_renders(tmp_path):
    from matplotlib.figure import Figure

    from predstab.plotting import plot_cd_diagram

    r = compare.friedman_nemenyi(4 - RANKS)
    fig = plot_cd_diagram(r, labels=["Random forest", "Boosting", "Logistic"],
                          colors={"method 1": "C0"}, order="best_right")
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    out = tmp_path / "cd.png"
    fig.savefig(out, dpi=80)
    assert out.stat().st_size > 5000
    texts = [t.get_text() for t in ax.texts]
    assert "Boosting (1.58)" in texts and "CD = 0.96" in texts
    # a stricter significance level widens the CD: the one significant gap (1.00) is no longer significant
    ax = plot_cd_diagram(r, significance=0.01).axes[0]
    texts = [t.get_text() for t in ax.texts]
    cd01 = compare.friedman_nemenyi(4 - RANKS, significance=0.01).critical_difference
    assert f"CD = {cd01:.2f}" in texts and cd01 > 1.0
    assert r.at_significance(0.01) == compare.friedman_nemenyi(4 - RANKS, significance=0.01)
    with pytest.raises(ValueError, match="`significance`"):
        plot_cd_diagram(r, significance=2.0)
    with pytest.raises(ValueError, match="`order`"):
        plot_cd_diagram(r, order="left")
    with pytest.raises(ValueError, match="`labels`"):
        plot_cd_diagram(r, labels=["a"])
    with pytest.raises(TypeError, match="`result`"):
        plot_cd_diagram({"x": 1})


# ---------------------------------------------------------------- power, seeds, games
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


# ---------------------------------------------------------------- summaries
def test_robust_summaries_issue_figures():
    assert compare.iqm(A) == 46.5
    assert compare.iqm(B) == pytest.approx(26.3333, abs=5e-5)
    assert np.mean(A) == 46.2 and np.mean(B) == pytest.approx(63.1)
    assert np.median(A) == 46.5 and np.median(B) == 31.5
    ca = compare.mean_ci(A).confidence_interval
    cb = compare.mean_ci(B).confidence_interval
    assert (ca.low, ca.high) == pytest.approx((43.681, 48.719), abs=5e-4)
    assert (cb.low, cb.high) == pytest.approx((-27.127, 153.327), abs=5e-4)
    # same as scipy's t interval
    lo, hi = stats.t.interval(0.95, 9, loc=np.mean(B), scale=stats.sem(B))
    assert (cb.low, cb.high) == pytest.approx((lo, hi), rel=1e-12)


def test_iqm_properties():
    rng = np.random.default_rng(0)
    x = rng.normal(size=37)
    assert compare.iqm(x) == compare.iqm(rng.permutation(x))
    assert compare.iqm(x) == pytest.approx(stats.trim_mean(x, 0.25), rel=1e-12)
    assert compare.iqm([1.0, 2.0, 9.0]) == 4.0          # n < 4: nothing dropped
    assert compare.iqm(x.reshape(1, -1)) == compare.iqm(x)
    with pytest.raises(ValueError, match="`x`"):
        compare.iqm([1.0, np.nan])


@pytest.mark.parametrize("k, value", [(2, 1 / np.sqrt(np.pi)), (3, 3 / (2 * np.sqrt(np.pi)))])
def test_expected_max_normal_closed_forms(k, value):
    assert compare.expected_max_normal(k) == pytest.approx(value, rel=1e-12)


@pytest.mark.parametrize("k, value", [(5, 1.162964), (20, 1.867475), (100, 2.507594)])
def test_expected_max_normal_issue_figures(k, value):
    assert compare.expected_max_normal(k) == pytest.approx(value, abs=5e-7)


def test_expected_max_normal_edges():
    assert compare.expected_max_normal(1) == 0.0
    with pytest.raises(ValueError, match="`k`"):
        compare.expected_max_normal(0)


def test_stratified_bootstrap_follows_rng():
    rng = np.random.default_rng(0)
    table = rng.normal(1.0, 0.3, size=(10, 5))
    r1 = compare.stratified_bootstrap_ci(table, n_resamples=300, random_state=4)
    r2 = compare.stratified_bootstrap_ci(table, n_resamples=300, random_state=4)
    r3 = compare.stratified_bootstrap_ci(table, n_resamples=300, random_state=5)
    np.testing.assert_array_equal(r1.bootstrap_distribution, r2.bootstrap_distribution)
    assert not np.array_equal(r1.bootstrap_distribution, r3.bootstrap_distribution)
    assert r1.value == compare.iqm(table)
    # a task whose runs agree contributes no spread: resampling stays within tasks
    const = np.tile(np.arange(5.0), (6, 1))
    rc = compare.stratified_bootstrap_ci(const, statistic=np.mean, n_resamples=50, random_state=0)
    assert rc.standard_error == 0.0 and rc.confidence_interval == (2.0, 2.0)


# ---------------------------------------------------------------- variance components
def test_variance_components_exact_design():
    # split effects 0, 1, 2, 3 (sample variance 5/3); seed deviations -1, +1 in every split
    split = np.array([0.0, 1.0, 2.0, 3.0])
    x = split[:, None] + np.array([-1.0, 1.0])
    v = compare.variance_components(x)
    # MS_within = 2 ; MS_between = 2 * 5/3 ; split_var = (10/3 - 2) / 2 = 2/3
    assert v.seed_var == pytest.approx(2.0, rel=1e-12)
    assert v.split_var == pytest.approx(2 / 3, rel=1e-12)
    assert v.seed_share == pytest.approx(0.75, rel=1e-12)


def test_variance_components_recovers_synthetic_components():
    rng = np.random.default_rng(11)
    s, r = 400, 25
    split_effect = rng.normal(0, 2.0, size=(s, 1))     # sigma_split^2 = 4
    model_a = 70 + split_effect + rng.normal(0, 1.0, size=(s, r))       # sigma_seed^2 = 1
    model_b = 71 + split_effect + rng.normal(0, 1.0, size=(s, r))
    v = compare.variance_components(model_b, baseline=model_a)
    assert v.split_var == pytest.approx(4.0, rel=0.15)
    assert v.seed_var == pytest.approx(1.0, rel=0.05)
    assert v.split_share == pytest.approx(0.8, abs=0.03)
    # the shared split effect cancels in paired differences: only seed noise (2 x 1) remains
    assert v.paired.seed_var == pytest.approx(2.0, rel=0.05)
    assert v.paired.split_var < 0.1
    assert v.paired.mean == pytest.approx(1.0, abs=0.05)


def test_variance_components_constant_and_bad_input():
    v = compare.variance_components(np.full((3, 4), 0.9))
    assert v.seed_var == 0.0 and v.split_var == 0.0 and np.isnan(v.seed_share)
    with pytest.raises(ValueError, match="`scores`"):
        compare.variance_components(np.ones((1, 4)))
    with pytest.raises(ValueError, match="`baseline`"):
        compare.variance_components(np.ones((3, 4)), baseline=np.ones((3, 3)))


# ---------------------------------------------------------------- paired bootstrap
def _data(n=300, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    a = np.where(rng.random(n) < 0.75, y, 1 - y)
    # B fixes about half of A's errors and breaks a few of its successes: correlated errors
    b = np.where((a != y) & (rng.random(n) < 0.5), y, a)
    b = np.where((a == y) & (rng.random(n) < 0.03), 1 - y, b)
    return y, a, b


def _acc(t, p):
    return float(np.mean(t == p))


def test_paired_bootstrap_same_indices_and_reproducible():
    y, a, b = _data()
    r1 = compare.paired_bootstrap(y, a, b, metric=_acc, n_resamples=400, random_state=3)
    r2 = compare.paired_bootstrap(y, a, b, metric=_acc, n_resamples=400, random_state=3)
    np.testing.assert_array_equal(r1.bootstrap_distribution, r2.bootstrap_distribution)
    np.testing.assert_allclose(r1.bootstrap_distribution[:, 2],
                               r1.bootstrap_distribution[:, 1] - r1.bootstrap_distribution[:, 0])
    assert r1.difference == pytest.approx(_acc(y, b) - _acc(y, a)) == r1.statistic
    assert r1.confidence_interval == r1.ci_difference
    # pairing: the SE of the difference is smaller than the unpaired sqrt(se_a^2 + se_b^2)
    assert r1.standard_error_difference < np.hypot(r1.standard_error_a, r1.standard_error_b)
    assert r1.ci_difference.low > 0 and r1.pvalue < 0.01
    assert "95% CI" in str(r1)
    assert r1.summary_frame().shape == (3, 5)
    row = r1.to_frame()  # the one-row convention: the difference and its interval
    assert row.shape == (1, 7)
    assert row.loc[0, "difference"] == r1.difference and row.loc[0, "ci_low"] == r1.confidence_interval.low


def test_paired_bootstrap_non_mean_metric_and_bca():
    from sklearn.metrics import f1_score, roc_auc_score

    y, a, b = _data(80, seed=2)
    rng = np.random.default_rng(1)
    sa = y + rng.normal(0, 0.8, 80)
    sb = y + rng.normal(0, 0.5, 80)
    r = compare.paired_bootstrap(y, sa, sb, metric=roc_auc_score, n_resamples=150, method="bca",
                                 random_state=0)
    assert r.score_b > r.score_a and r.ci_b.low < r.score_b < r.ci_b.high
    r = compare.paired_bootstrap(y, a, b, metric=f1_score, n_resamples=100, random_state=0)
    assert r.score_a == pytest.approx(f1_score(y, a))


def test_paired_bootstrap_bca_agrees_with_scipy_for_the_mean():
    rng = np.random.default_rng(4)
    x = rng.exponential(size=60)
    zeros = np.zeros(60)
    r = compare.paired_bootstrap(zeros, zeros, x, metric=lambda t, p: float(np.mean(p)), n_resamples=4000,
                                 method="bca", random_state=0)
    ref = stats.bootstrap((x,), np.mean, n_resamples=4000, method="BCa", random_state=0).confidence_interval
    width = ref.high - ref.low
    assert r.ci_b.low == pytest.approx(ref.low, abs=0.05 * width)   # Monte Carlo agreement
    assert r.ci_b.high == pytest.approx(ref.high, abs=0.05 * width)


def test_bca_undefined_when_estimate_outside_distribution():
    from predstab.compare._bootstrap import bootstrap_interval

    with pytest.warns(PredstabUndefinedWarning, match="BCa"):
        ci = bootstrap_interval([1.0, 2.0, 3.0], 5.0, 0.95, "bca", jackknife=[1.0, 2.0])
    assert np.isnan(ci.low) and np.isnan(ci.high)
    assert bootstrap_interval([2.0, 2.0], 2.0, 0.95, "bca", jackknife=[2.0, 2.0]) == (2.0, 2.0)


def test_paired_bootstrap_clusters():
    y, a, b = _data(120, seed=5)
    groups = np.repeat(np.arange(30), 4)
    r = compare.paired_bootstrap(y, a, b, metric=_acc, n_resamples=200, groups=groups, random_state=0)
    assert r.n_units == 30
    with pytest.raises(ValueError, match="`groups`"):
        compare.paired_bootstrap(y, a, b, metric=_acc, groups=groups[:-1])


@pytest.mark.parametrize("kwargs, exc, match", [
    (dict(metric="accuracy"), TypeError, "`metric`"),
    (dict(metric=_acc, method="BCa"), ValueError, "`method`"),   # "bca" is the one spelling
    (dict(metric=_acc, confidence_level=95), ValueError, "`confidence_level`"),
    (dict(metric=_acc, n_resamples=200.0), ValueError, "`n_resamples`"),
    (dict(metric=_acc, n_resamples=1), ValueError, "`n_resamples`"),
])
def test_paired_bootstrap_bad_input(kwargs, exc, match):
    y, a, b = _data(20)
    with pytest.raises(exc, match=match):
        compare.paired_bootstrap(y, a, b, **kwargs)


def test_paired_bootstrap_length_mismatch():
    y, a, b = _data(20)
    with pytest.raises(ValueError, match="`b`"):
        compare.paired_bootstrap(y, a, b[:-1], metric=_acc)


# ---------------------------------------------------------------- public API
def test_public_api_docstrings_and_homes():
    for name in compare.__all__:
        obj = getattr(compare, name)
        assert obj.__doc__, name
        assert obj.__module__.startswith("predstab.compare._"), name


def test_to_frame_reports_intervals():
    f = compare.mean_ci(A).to_frame()
    assert f.shape[0] == 1 and f["ci_low"].iloc[0] == pytest.approx(43.681, abs=5e-4)
    f = compare.ttest(A, B).to_frame()
    assert {"statistic", "pvalue", "estimate", "ci_low", "ci_high"} <= set(f.columns)
    f = compare.win_rate_test(55, 100).to_frame()
    assert f["ci_high"].iloc[0] == pytest.approx(0.649679770760328, rel=1e-10)  # binom.test conf.int
    v = compare.variance_components(np.arange(12.0).reshape(3, 4), baseline=np.zeros((3, 4))).to_frame()
    assert "paired" not in v.columns and v.shape == (1, 10)


def test_results_are_frozen():
    import dataclasses

    r = compare.mcnemar([[1, 2], [3, 4]])
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.pvalue = 0.5


def test_no_warnings_on_regular_use():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compare.mcnemar([[146, 4], [14, 36]])
        compare.friedman_nemenyi(4 - RANKS)
        compare.ttest(A, B)


def _repeated_cv_rejections(rng, n_datasets, n_repeats, n=100, k=5):
    """Share of data sets where the naive and the corrected test reject at 0.05, for two
    equally good threshold classifiers (one on each of two equally informative features)."""
    naive = corrected = 0
    for _ in range(n_datasets):
        y = rng.integers(0, 2, n)
        X = y[:, None] + rng.normal(0, 1, (n, 2))
        scores = [[], []]
        for _ in range(n_repeats):
            for fold in np.array_split(rng.permutation(n), k):
                train = np.ones(n, bool)
                train[fold] = False
                for j in (0, 1):
                    cut = (X[train & (y == 1), j].mean() + X[train & (y == 0), j].mean()) / 2
                    scores[j].append(np.mean((X[fold, j] > cut) == y[fold]))
        a, b = np.array(scores[0]), np.array(scores[1])
        naive += compare.ttest(a, b, paired=True).pvalue < 0.05
        nb = compare.corrected_resampled_ttest(a, b, n_train=n * (k - 1) / k, n_test=n / k)
        corrected += nb.pvalue < 0.05
    return naive / n_datasets, corrected / n_datasets


def test_repeated_cv_naive_test_inflates_with_repetitions_corrected_does_not():
    # the claim the docs make: fold scores of repeated CV are correlated, so the naive paired
    # t-test rejects ever more often as repetitions are added although A and B are equally
    # good; the Nadeau-Bengio correction keeps the rejection rate near the nominal 5 %
    rng = np.random.default_rng(0)
    naive_2, corrected_2 = _repeated_cv_rejections(rng, 150, n_repeats=2)
    naive_10, corrected_10 = _repeated_cv_rejections(rng, 150, n_repeats=10)
    assert naive_10 > 0.3 and naive_10 > naive_2 + 0.2
    assert corrected_10 < 0.1 and corrected_2 < 0.1


# ---------------------------------------------------------------- additions of issue 14
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


def test_mcnemar_asymptotic_degenerate_and_records_vs_table():
    # no discordant cases: p = 1 (R divides 0 by 0)
    r = compare.mcnemar([[5, 0], [0, 7]], method="asymptotic")
    assert (r.statistic, r.pvalue, r.df) == (0.0, 1.0, 1)
    # a 3 x 3 array is a table of counts for the asymptotic method, records otherwise
    t = [[3, 1, 0], [2, 4, 1], [0, 3, 5]]
    assert compare.mcnemar(t, method="asymptotic").table == tuple(map(tuple, t))
    assert compare.mcnemar([[1, 1, 0], [2, 0, 1], [3, 1, 1]]).table == (1, 1, 1, 0)
    # Bowker's statistic on 2 x 2 without correction is McNemar's
    two = compare.mcnemar([[10, 3], [9, 4]], method="asymptotic", correction=False)
    assert two.statistic == pytest.approx((3 - 9) ** 2 / 12, rel=1e-14)
    with pytest.raises(ValueError, match="`mid_p=True`"):
        compare.mcnemar([[10, 3], [9, 4]], method="asymptotic", mid_p=True)


# ---------------------------------------------------------------- one-sample bootstrap, rliable
def test_bootstrap_ci_percentile_basic_bca_by_hand():
    x = np.array(A, dtype=float)
    per = compare.bootstrap_ci(x, method="percentile", n_resamples=2000, random_state=4)
    bas = compare.bootstrap_ci(x, method="basic", n_resamples=2000, random_state=4)
    # the same resamples (same seed): basic is the percentile interval reflected about the mean
    np.testing.assert_array_equal(per.bootstrap_distribution, bas.bootstrap_distribution)
    p_lo, p_hi = per.confidence_interval
    assert bas.confidence_interval == pytest.approx((2 * x.mean() - p_hi, 2 * x.mean() - p_lo), rel=1e-12)
    # percentile: the 2.5 % and 97.5 % points of the replicates; replicates are means of resamples
    lo, hi = np.percentile(per.bootstrap_distribution, [2.5, 97.5])
    assert per.confidence_interval == pytest.approx((lo, hi), abs=0.05)
    assert per.standard_error == pytest.approx(np.std(per.bootstrap_distribution, ddof=1), rel=1e-12)
    assert per.standard_error == pytest.approx(x.std(ddof=0) / np.sqrt(x.size), rel=0.1)  # bootstrap SE
    bca = compare.bootstrap_ci(x, np.median, method="bca", n_resamples=999, random_state=1)
    ref = stats.bootstrap((x,), np.median, n_resamples=999, method="BCa",
                          random_state=np.random.default_rng(1))
    assert bca.value == 46.5
    assert bca.confidence_interval == pytest.approx(tuple(ref.confidence_interval), rel=1e-12)
    assert compare.bootstrap_ci(x, random_state=3) == compare.bootstrap_ci(x, random_state=3)
    with pytest.warns(PredstabUndefinedWarning, match="constant"):
        assert compare.bootstrap_ci([2.0, 2.0, 2.0]).confidence_interval == (2.0, 2.0)
    with pytest.raises(ValueError, match="`method`"):
        compare.bootstrap_ci(x, method="BCa")


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


def test_cd_diagram_with_a_control():
    from predstab.plotting import plot_cd_diagram

    r = compare.bonferroni_dunn(4 - RANKS, control=2, significance=0.05)
    # CD = z_{1 - 0.05 / 4} sqrt(k (k + 1) / (6 N)) = 2.2414 * sqrt(12 / 72)
    assert r.critical_difference == pytest.approx(stats.norm.isf(0.0125) * np.sqrt(1 / 6), rel=1e-12)
    ax = plot_cd_diagram(r, labels=["A", "B", "C"]).axes[0]
    assert ax.get_title() == "Critical difference (Bonferroni-Dunn vs C, alpha = 0.05): CD = 0.92"
    # the control's band: from R_c - CD (clipped at rank 1) to R_c + CD (clipped at k = 3)
    rc = 31 / 12
    band = [line for line in ax.lines if line.get_linewidth() == 4]
    assert len(band) == 1
    np.testing.assert_allclose(band[0].get_xdata(), [rc - r.critical_difference, 3.0], rtol=1e-12)
    bold = [t.get_text() for t in ax.texts if t.get_fontweight() == "bold"]
    assert bold == ["C (2.58)"]
    drawn_by_the_result = r.plot(labels=["A", "B", "C"]).axes[0]
    assert [t.get_text() for t in drawn_by_the_result.texts] == [t.get_text() for t in ax.texts]
    with pytest.raises(ValueError, match="`significance`"):
        plot_cd_diagram(r, significance=0.1)


def test_wilcoxon_exact_with_ties_warns_and_uses_the_normal_approximation():
    # R: wilcox.test(y, x, paired = TRUE, exact = TRUE) warns "cannot compute exact p-value with ties"
    a, b = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [2.0, 3.0, 5.0, 6.0, 4.0, 9.0]   # |d| = 1, 1, 2, 2, 1, 3
    with pytest.warns(PredstabDataWarning, match="exact"):
        r = compare.wilcoxon(a, b, exact=True)
    assert r == compare.wilcoxon(a, b, exact=False)
    assert r.method == "Wilcoxon signed rank test with continuity correction"


def test_ttest_mu_and_one_sided_by_hand():
    a, b = np.array(A, float), np.array(B, float)
    # two-sample with mu: t.test(B, A, mu = 5): t of (mean B - mean A - 5), interval of mean B - mean A
    r, shifted = compare.ttest(a, b, mu=5.0), compare.ttest(a, b - 5.0)
    assert r.statistic == pytest.approx(shifted.statistic, rel=1e-12)
    assert r.pvalue == pytest.approx(shifted.pvalue, rel=1e-12)
    assert r.confidence_interval == pytest.approx(tuple(np.add(shifted.confidence_interval, 5.0)), rel=1e-12)
    assert r.estimate == pytest.approx(16.9, rel=1e-12)
    # paired with mu, against the one-sample test of the differences
    p = compare.ttest(a, b, paired=True, mu=2.0)
    d = b - a
    t = (d.mean() - 2.0) / (d.std(ddof=1) / np.sqrt(10))
    assert p.statistic == pytest.approx(t, rel=1e-12)
    assert p.pvalue == pytest.approx(2 * stats.t.sf(abs(t), 9), rel=1e-12)
    # one-sided corrected resampled t: half the two-sided p on the side of the estimate
    x = [0.80, 0.82, 0.79, 0.81, 0.80, 0.83, 0.78, 0.80, 0.82, 0.81]
    y = [0.82, 0.83, 0.80, 0.84, 0.80, 0.85, 0.80, 0.81, 0.84, 0.82]
    two = compare.corrected_resampled_ttest(x, y, n_train=900, n_test=100)
    up = compare.corrected_resampled_ttest(x, y, n_train=900, n_test=100, alternative="greater")
    down = compare.corrected_resampled_ttest(x, y, n_train=900, n_test=100, alternative="less")
    assert up.pvalue == pytest.approx(two.pvalue / 2, rel=1e-12)
    assert down.pvalue == pytest.approx(1 - two.pvalue / 2, rel=1e-12)
    assert up.confidence_interval.high == np.inf and down.confidence_interval.low == -np.inf
