"""Features other Python packages have, each pinned to the peer's own values (issue 38).

Each expected value was produced by the peer named beside it, run while the test was written
(not in CI); an independent computation in the test checks the definition where it is short.
"""

import numpy as np
import pytest
from scipy import special

from predstab.compare import wilcoxon

# --------------------------------------------------------------------------- Wilcoxon, zsplit
A = np.array([0.80, 0.71, 0.65, 0.90, 0.55, 0.60, 0.70, 0.70, 0.61, 0.50])
B = np.array([0.82, 0.75, 0.64, 0.98, 0.60, 0.60, 0.70, 0.72, 0.61, 0.55])  # three zero differences


# scipy 1.17.1: stats.wilcoxon(B - A, zero_method="zsplit", method="approx", correction=c,
# alternative=alt).pvalue
@pytest.mark.parametrize(("correction", "alternative", "expected"), [
    (True, "two-sided", 0.040962980412525496), (True, "greater", 0.020481490206262748),
    (True, "less", 0.9840674892774014), (False, "two-sided", 0.03617080275646433),
    (False, "greater", 0.018085401378232165), (False, "less", 0.9819145986217679)])
def test_wilcoxon_zsplit_matches_scipy(correction, alternative, expected):
    res = wilcoxon(A, B, zero_method="zsplit", correction=correction, alternative=alternative)
    assert res.pvalue == pytest.approx(expected, rel=1e-12)
    assert res.zero_method == "zsplit" and res.n_zero == 3


def test_wilcoxon_zsplit_statistic_by_hand():
    d = B - A
    # ranks of |d| over all ten differences, ties averaged: the three zeros share ranks 1-3
    ranks = np.argsort(np.argsort(np.abs(d), kind="stable"), kind="stable") + 1.0
    for value in np.unique(np.abs(d)):
        ranks[np.abs(d) == value] = ranks[np.abs(d) == value].mean()
    zero = d == 0
    v = ranks[d > 0].sum() + ranks[zero].sum() / 2  # scipy's min(r+, r-) is 7 = 55 - 48
    res = wilcoxon(A, B, zero_method="zsplit", correction=False)
    assert res.statistic == v == 48.0
    assert res.expectation == ranks.sum() / 2
    assert res.variance == pytest.approx(np.sum(ranks**2) / 4, rel=1e-15)
    z = (v - ranks.sum() / 2) / np.sqrt(np.sum(ranks**2) / 4)
    assert res.z == pytest.approx(z, rel=1e-12)
    assert res.pvalue == pytest.approx(2 * special.ndtr(-z), rel=1e-12)  # no correction: the normal tail
    assert res.method == "Wilcoxon signed rank test, zeros split"
    # pratt and wilcox differ from zsplit on these zeros
    assert wilcoxon(A, B, zero_method="pratt").pvalue != pytest.approx(res.pvalue, rel=1e-3)


def test_wilcoxon_zsplit_refuses_exact():
    with pytest.raises(ValueError, match="`exact=True` is not available with zero_method='zsplit'"):
        wilcoxon(A, B, zero_method="zsplit", exact=True)
    # without zeros or ties zsplit is the plain signed-rank test's normal approximation
    a, b = np.array([1.0, 2.0, 3.5, 4.0, 5.5]), np.array([1.5, 2.2, 3.0, 4.9, 6.6])
    assert wilcoxon(a, b, zero_method="zsplit").pvalue == pytest.approx(
        wilcoxon(a, b, exact=False).pvalue, rel=1e-14)


# --------------------------------------------------------------------------- McNemar, unconditional
def _enumerated_unconditional_p(table, gamma):
    """contingencytables' algorithm written out: every (x12, x21) of n cases, trinomial weights."""
    from math import comb

    from scipy.stats import beta

    (n11, n12), (n21, n22) = table
    n = n11 + n12 + n21 + n22
    t_obs = (n12 - n21) ** 2 / (n12 + n21)
    region = [(x, y) for x in range(n + 1) for y in range(n + 1 - x)
              if x + y > 0 and (x - y) ** 2 / (x + y) >= t_obs]
    m = n12 + n21
    low = beta.ppf(gamma / 2, m, n - m + 1) if gamma else 0.0
    high = beta.ppf(1 - gamma / 2, m + 1, n - m) if gamma else 1.0
    best = 0.0
    for pi in np.linspace(low, high, 1000):
        total = sum(comb(n, x) * comb(n - x, y) * (pi / 2) ** (x + y) * (1 - pi) ** (n - x - y)
                    for x, y in region)
        best = max(best, total)
    return min(best + gamma, 1.0)


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
                                              ([[10, 0], [3, 0]], 0.0)])
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


# --------------------------------------------------------------------------- Friedman post-hoc tests
# 12 data sets x 4 methods, rounded to one decimal so that some data sets tie two methods
POSTHOC_SCORES = np.array([
    [0.3, 1.3, 1.3, -1.1], [0.9, 0.9, 0.5, 0.8], [0.4, 0.8, 1.0, 0.7], [-0.7, 0.3, 0.5, 0.8],
    [0.0, 0.2, 0.2, -0.1], [0.0, 0.2, 2.3, 1.2], [-2.7, -1.4, 0.8, -0.2], [0.2, 0.7, 3.1, -0.9],
    [-0.4, 2.5, 1.6, 0.9], [-0.5, -1.1, 1.2, 0.3], [-1.2, -0.2, 0.9, -0.7], [-0.1, 0.6, 1.0, -0.3]])
# scikit-posthocs 0.17.1: sp.posthoc_<test>(POSTHOC_SCORES, p_adjust=adj).to_numpy()[np.triu_indices(4, 1)]
# (posthoc_conover_friedman, posthoc_durbin, posthoc_miller_friedman, posthoc_siegel_friedman, posthoc_quade)
POSTHOC_EXPECTED = [
    ("conover", None, [0.00833225811804654, 7.732806576572035e-05, 0.2781446637880369, 0.09775578863381953,
                       0.09775578863381953, 0.001738782887356724]),
    ("conover", "holm", [0.03332903247218616, 0.0004639683945943221, 0.29326736590145863, 0.29326736590145863,
                         0.29326736590145863, 0.00869391443678362]),
    ("conover", "fdr_bh", [0.01666451623609308, 0.0004639683945943221, 0.2781446637880369,
                           0.11730694636058343, 0.11730694636058343, 0.005216348662070172]),
    ("conover", "bonferroni", [0.04999354870827924, 0.0004639683945943221, 1.0, 0.5865347318029173,
                               0.5865347318029173, 0.010432697324140344]),
    ("conover", "single-step", [0.02576584989301156, 3.820720526526156e-05, 0.6878839366633561,
                                0.3214350883102173, 0.3214350883102173, 0.0036539272740118145]),
    ("durbin", "holm", [0.03332903247218613, 0.0004639683945943205, 0.29326736590145835, 0.29326736590145835,
                        0.29326736590145835, 0.008693914436783582]),
    ("miller", None, [0.17926780368434983, 0.005442151320553441, 0.8599002255768708, 0.61357581107341,
                      0.6135758110734106, 0.06506174110683889]),
    ("siegel", None, [0.026856695507524446, 0.00037431224710860237, 0.3845046293802693, 0.17895873315069943,
                      0.17895873315069977, 0.007189517250165056]),
    ("siegel", "bonferroni", [0.16114017304514666, 0.002245873482651614, 1.0, 1.0, 1.0,
                              0.043137103500990336]),
    ("quade", None, [0.0155934882355448, 6.900198193082136e-05, 0.19303595262756879, 0.053799678083856266,
                     0.23058742866935658, 0.002867165732680013]),
    ("quade", "fdr_bh", [0.0311869764710896, 0.00041401189158492816, 0.23058742866935658, 0.08069951712578441,
                         0.23058742866935658, 0.00860149719804004]),
]


@pytest.mark.parametrize(("method", "p_adjust", "expected"), POSTHOC_EXPECTED)
def test_friedman_posthoc_matches_scikit_posthocs(method, p_adjust, expected):
    from predstab.compare import friedman_posthoc

    res = friedman_posthoc(POSTHOC_SCORES, method=method, p_adjust=p_adjust)
    upper = np.triu_indices(4, 1)
    np.testing.assert_allclose(res.pvalues[upper], expected, rtol=1e-12)
    np.testing.assert_array_equal(res.pvalues, res.pvalues.T)
    assert np.all(np.diag(res.pvalues) == 1.0)


def test_friedman_posthoc_statistics_by_hand():
    from predstab.compare import friedman_nemenyi, friedman_posthoc

    x = POSTHOC_SCORES
    n, k = x.shape
    ranks = np.array([np.argsort(np.argsort(row)) + 1.0 for row in x])
    for row, values in zip(ranks, x, strict=True):  # average the ties
        for v in np.unique(values):
            row[values == v] = row[values == v].mean()
    z = abs(ranks[:, 0].mean() - ranks[:, 2].mean()) / np.sqrt(k * (k + 1) / (6 * n))
    siegel = friedman_posthoc(x, method="siegel")
    assert siegel.statistics[0, 2] == pytest.approx(z, rel=1e-12)
    assert siegel.pvalues[0, 2] == pytest.approx(2 * special.ndtr(-z), rel=1e-12)
    # Miller's and Nemenyi's tests use the same z: chi-squared(k - 1) and the studentized range
    assert friedman_posthoc(x, method="miller").pvalues[0, 2] == pytest.approx(
        float(__import__("scipy").stats.chi2.sf(z**2, k - 1)), rel=1e-12)
    assert friedman_nemenyi(x).nemenyi_pvalues[0, 2] < friedman_posthoc(x, method="miller").pvalues[0, 2]
    # the average ranks follow friedman_nemenyi's direction (1 = best, higher scores better)
    np.testing.assert_allclose(siegel.average_ranks, friedman_nemenyi(x).average_ranks, rtol=1e-15)
    assert list(siegel.pvalues_frame().columns) == ["method 1", "method 2", "method 3", "method 4"]


def test_friedman_posthoc_refuses_single_step_outside_conover():
    from predstab.compare import friedman_posthoc

    with pytest.raises(ValueError, match="single-step"):
        friedman_posthoc(POSTHOC_SCORES, method="quade", p_adjust="single-step")
    with pytest.raises(ValueError, match="method"):
        friedman_posthoc(POSTHOC_SCORES, method="nemenyi")


# --------------------------------------------------------------------------- mlxtend's drivers
def _iris_pair():
    from sklearn.datasets import load_iris
    from sklearn.linear_model import LogisticRegression
    from sklearn.tree import DecisionTreeClassifier

    X, y = load_iris(return_X_y=True)
    return LogisticRegression(max_iter=1000), DecisionTreeClassifier(random_state=0, max_depth=2), X, y


def _diabetes_pair():
    from sklearn.datasets import load_diabetes
    from sklearn.linear_model import Ridge
    from sklearn.tree import DecisionTreeRegressor

    X, y = load_diabetes(return_X_y=True)
    return Ridge(alpha=1.0), DecisionTreeRegressor(random_state=0, max_depth=3), X, y


# mlxtend 0.25.0, estimator1 = A, estimator2 = B (mlxtend's t is A - B, ours B - A), e.g.
#   paired_ttest_kfold_cv(A, B, X, y, cv=5, shuffle=True, random_seed=1) -> (2.3333333333333335, 0.07995...)
# and the same call of each row below with mlxtend's names (num_rounds, random_seed)
@pytest.mark.parametrize(("data", "driver", "kwargs", "t", "p"), [
    (_iris_pair, "paired_ttest_kfold_cv", {"cv": 5, "shuffle": True, "random_state": 1},
     2.3333333333333335, 0.0799596465455817),
    (_iris_pair, "paired_ttest_resampled", {"n_rounds": 10, "random_state": 1, "corrected": False},
     3.2504180333157664, 0.00999068484975513),
    (_iris_pair, "paired_ttest_5x2cv", {"random_state": 1}, 0.8770580193070278, 0.420591026914543),
    (_diabetes_pair, "paired_ttest_5x2cv", {"random_state": 2}, -0.20068720269053897, 0.8488511461354281),
    (_diabetes_pair, "paired_ttest_kfold_cv", {"cv": 10}, 2.7899087142499575, 0.021056983044946725),
    (_diabetes_pair, "paired_ttest_resampled",
     {"n_rounds": 15, "test_size": 0.25, "random_state": 3, "corrected": False},
     5.058199426872991, 0.00017465276162438842),
])
def test_drivers_match_mlxtend(data, driver, kwargs, t, p):
    from predstab import compare

    a, b, X, y = data()
    res = getattr(compare, driver)(a, b, X, y, **kwargs)
    assert res.statistic == pytest.approx(-t, rel=1e-9)  # B minus A
    assert res.pvalue == pytest.approx(p, rel=1e-9)


def test_resampled_driver_corrects_by_default():
    from predstab import compare

    a, b, X, y = _diabetes_pair()
    kwargs = dict(n_rounds=15, test_size=0.25, random_state=3)
    scores_a, scores_b = compare.paired_split_scores(a, b, X, y, design="resampled", **kwargs)
    res = compare.paired_ttest_resampled(a, b, X, y, **kwargs)
    n_test = int(np.ceil(0.25 * len(y)))  # 111 of 442
    expected = compare.corrected_resampled_ttest(scores_a, scores_b, n_train=len(y) - n_test, n_test=n_test)
    assert (res.statistic, res.pvalue) == (expected.statistic, expected.pvalue)
    # Nadeau and Bengio's factor sqrt(1/J + n_test/n_train) over sqrt(1/J) shrinks t
    d = scores_b - scores_a
    naive = d.mean() / (d.std(ddof=1) / np.sqrt(15))
    assert res.statistic == pytest.approx(naive / np.sqrt(1 + 15 * n_test / (len(y) - n_test)), rel=1e-12)


def test_split_scores_shapes_and_clones():
    from predstab import compare

    a, b, X, y = _iris_pair()
    sa, sb = compare.paired_split_scores(a, b, X, y, design="5x2", random_state=0)
    assert sa.shape == sb.shape == (5, 2)
    assert not hasattr(a, "coef_")  # the user's estimators are not fitted: clones are
    with pytest.raises(ValueError, match="design"):
        compare.paired_split_scores(a, b, X, y, design="loo")
