"""TreePool: forests by aggregation equal the ensemble's own predictions; closed forms."""

import numpy as np
import pytest
from scipy import stats
from sklearn.datasets import make_classification, make_regression
from sklearn.ensemble import (
    BaggingRegressor,
    ExtraTreesRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)
from sklearn.linear_model import LinearRegression

from predstab import PredstabWarning, TreePool, fit_2pl, fleiss_kappa, icc
from predstab.ensembles._closed_form import closed_form_stats, curve_from_stats
from predstab.ensembles._forest import oob_predict


@pytest.fixture(scope="module")
def reg():
    X, y = make_regression(90, 6, noise=15, random_state=0)
    pool = TreePool(RandomForestRegressor(max_features=2), n_learners=120, random_state=0)
    return pool.fit(X[:60], y[:60], X[60:]), X, y


@pytest.fixture(scope="module")
def clf():
    X, y = make_classification(120, 6, n_informative=3, random_state=1)
    labels = np.where(y == 1, "b", "a")
    pool = TreePool(RandomForestClassifier(max_features=2), n_learners=90, voting="hard", random_state=0)
    return pool.fit(X[:80], labels[:80], X[80:]), X, labels


def test_whole_pool_is_the_fitted_forest(reg, clf):
    pool, X, _ = reg
    whole = pool.forests(120, n_forests=1)[:, 0]
    np.testing.assert_allclose(whole, pool.ensemble_.predict(X[60:]), rtol=1e-12)
    cpool, Xc, _ = clf
    soft = cpool.forests(90, n_forests=1, voting="soft")[:, 0]
    assert soft.tolist() == cpool.ensemble_.predict(Xc[80:]).tolist()


def test_forests_are_disjoint_groups(reg):
    pool, _, _ = reg
    m = pool.forests(30)
    assert m.shape == (30, 4)
    expected = pool.test_predictions_[:, 30:60].mean(axis=1)
    np.testing.assert_allclose(m[:, 1], expected, rtol=1e-12)


def test_hard_voting_majority_and_ties(clf):
    pool, _, _ = clf
    votes = pool.test_predictions_.argmax(axis=2)[:, :4]  # forests of 4 trees: ties possible
    hard = pool.forests(4, n_forests=1, voting="hard")[:, 0]
    ones = votes.sum(axis=1)
    expected = np.where(ones > 2, "b", "a")  # a 2-2 tie goes to the first class, "a"
    assert hard.tolist() == expected.tolist()


def test_oob_baseline_matches_forest_oob(reg):
    pool, X, _ = reg
    np.testing.assert_allclose(pool.oob_baseline(), oob_predict(pool.ensemble_, X[:60]), rtol=1e-12)


def test_closed_form_icc_is_a_2pl_with_slope_one(reg):
    pool, _, _ = reg
    t = pool.test_predictions_
    w = t.var(axis=1, ddof=1).mean()
    b = t.mean(axis=1).var(ddof=1) - w / t.shape[1]
    n = np.array([1, 5, 20, 100, 1000])
    np.testing.assert_allclose(pool.closed_form(n).curve, b / (b + w / n), rtol=1e-12)
    fit = fit_2pl(n, pool.closed_form(n).curve)
    assert fit.p2 == pytest.approx(1.0, rel=1e-6) and fit.p1 == pytest.approx(w / b, rel=1e-6)


def test_closed_form_phi_psi(reg):
    pool, _, y = reg
    t = pool.test_predictions_
    w = t.var(axis=1, ddof=1).mean()
    np.testing.assert_allclose(pool.closed_form([10], measure="phi").curve, 1 - w / 10 / y[:60].var(ddof=1))
    d_e = pool.oob_baseline().var(ddof=1)
    np.testing.assert_allclose(pool.closed_form([10], measure="psi").curve, 1 - w / 10 / d_e)


def test_closed_form_icc_close_to_disjoint_forests(reg):
    pool, _, _ = reg
    # the expected ICC(1) of 4 forests of 30 trees; sampling error of one draw ~0.05
    assert pool.closed_form([30]).curve[0] == pytest.approx(icc(pool.forests(30)).value, abs=0.1)


def test_closed_form_classes_against_simulated_forests(clf):
    pool, _, _ = clf
    rng = np.random.default_rng(5)
    votes = pool.test_predictions_.argmax(axis=2)  # (objects, trees)
    n = 7
    # forests of n distinct learners of the pool: what the closed form averages over
    draws = [votes[:, rng.permutation(votes.shape[1])[:n]].sum(axis=1) > n / 2 for _ in range(4000)]
    sims = np.stack(draws, axis=1)
    pi = sims.mean(axis=1)
    d_o = np.mean(1 - pi**2 - (1 - pi) ** 2)
    share = pi.mean()
    expected = 1 - d_o / (1 - share**2 - (1 - share) ** 2)
    assert pool.closed_form([n], measure="fleiss", voting="hard").curve[0] == pytest.approx(expected, abs=0.02)
    with pytest.warns(PredstabWarning, match=r"n = \[50\] learners is extrapolated.*at least 100 learners"):
        soft = pool.closed_form([n, 50], measure="fleiss", voting="soft").curve
    assert soft[0] < soft[1] <= 1


def test_closed_form_classes_unbiased_near_tied_votes():
    # Pools of 100 learners whose votes at 40 objects are Bernoulli(p_i), p_i in 0.4 ... 0.6:
    # a forest of n = 50 votes class 1 with probability P(Binomial(50, p_i) > 25), known
    # exactly. Taking the pool's vote shares as exact (the extrapolation beyond half the
    # pool) overstates kappa by about 0.07 here (0.386 for 0.312); disjoint forests of the
    # pool do not.
    X, y = make_classification(60, 4, random_state=0)
    pool = TreePool(RandomForestClassifier(n_estimators=1), n_learners=100, voting="hard", random_state=0)
    pool.fit(X[:20], y[:20], X[20:])
    rng = np.random.default_rng(0)
    p = np.linspace(0.4, 0.6, 40)
    pi = stats.binom.sf(25, 50, p)
    share = pi.mean()
    truth = 1 - np.mean(1 - pi**2 - (1 - pi) ** 2) / (1 - share**2 - (1 - share) ** 2)
    closed, extrapolated = [], []
    for _ in range(40):
        votes = rng.random((40, 100)) < p[:, None]
        pool.test_predictions_ = np.stack([~votes, votes], axis=2).astype(float)
        closed.append(pool.closed_form([50], measure="fleiss").curve[0])
        # the pool's vote shares taken as exact: the bootstrap world's value for two classes
        stats_ = closed_form_stats(pool.test_predictions_, None, [50.0], classifier=True, voting="hard",
                                   rng=rng, population=True)
        extrapolated.append(curve_from_stats(stats_, np.array([50.0]), "fleiss")[0])
    assert np.mean(closed) == pytest.approx(truth, abs=0.025)  # sd of the mean about 0.008
    assert np.mean(extrapolated) - truth > 0.04


def test_bootstrap_band_brackets_curve(reg):
    pool, _, _ = reg
    band = pool.closed_form([5, 50], n_resamples=30)
    curve, low, high = band.curve, band.low, band.high
    assert np.all(low <= curve) and np.all(curve <= high)


def test_training_rows_out_of_bag_without_test_set():
    X, y = make_regression(50, 4, random_state=2)
    pool = TreePool(RandomForestRegressor(max_features=2), n_learners=40, random_state=1).fit(X, y)
    m = pool.forests(20)
    assert m.shape == (50, 2)
    with pytest.raises(ValueError, match="X_test"):
        TreePool(ExtraTreesRegressor(), n_learners=10).fit(X, y)


def test_bagging_ensembles_are_supported():
    X, y = make_regression(50, 4, random_state=2)
    pool = TreePool(BaggingRegressor(max_features=0.5), n_learners=20, random_state=1)
    pool.fit(X[:40], y[:40], X[40:])
    whole = pool.forests(20, n_forests=1)[:, 0]
    np.testing.assert_allclose(whole, pool.ensemble_.predict(X[40:]), rtol=1e-12)


def test_errors(reg):
    pool, _, _ = reg
    with pytest.raises(ValueError, match="pool size 120"):
        pool.forests(50, n_forests=3)
    with pytest.raises(ValueError, match="`measure`"):
        pool.closed_form([10], measure="fleiss")
    with pytest.raises(ValueError, match="`on`"):
        pool.forests(10, on="train")
    with pytest.raises(TypeError, match="`estimator`"):  # checked in fit, as scikit-learn does
        TreePool(LinearRegression()).fit([[0.0]] * 4, [0, 1, 2, 3])
    with pytest.raises(ValueError, match="`voting`"):
        TreePool(RandomForestRegressor(), voting="majority").fit([[0.0]] * 4, [0, 1, 2, 3])
    with pytest.raises(ValueError, match="not fitted"):
        TreePool(RandomForestRegressor()).forests(10)


def test_same_seed_same_pool():
    X, y = make_regression(40, 4, random_state=3)
    a = TreePool(RandomForestRegressor(), n_learners=10, random_state=7).fit(X[:30], y[:30], X[30:])
    b = TreePool(RandomForestRegressor(), n_learners=10, random_state=7).fit(X[:30], y[:30], X[30:])
    np.testing.assert_array_equal(a.test_predictions_, b.test_predictions_)


def test_tree_permutation_importances():
    from predstab.ensembles._forest import tree_permutation_importances

    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 5))
    y = 3 * X[:, 0] + 0.1 * rng.normal(size=120)
    forest = RandomForestRegressor(n_estimators=20, max_features=2, random_state=0).fit(X, y)
    imp = tree_permutation_importances(forest, X, y, np.random.default_rng(1))
    assert imp.shape == (5, 20)
    for t, tree in enumerate(forest.estimators_):
        unused = np.setdiff1d(np.arange(5), tree.tree_.feature[tree.tree_.feature >= 0])
        assert (imp[unused, t] == 0).all()
    mean = imp.mean(axis=1)
    assert mean[0] > 10 * np.abs(mean[1:]).max()  # the only informative variable dominates
    with pytest.raises(ValueError, match="impurity"):
        tree_permutation_importances(BaggingRegressor(n_estimators=3).fit(X, y), X, y, rng)


def test_closed_form_out_of_bag_on_training_rows():
    X, y = make_regression(60, 4, noise=5, random_state=4)
    pool = TreePool(RandomForestRegressor(max_features=2), n_learners=80, random_state=2).fit(X, y)
    oob = pool.oob_
    t = np.where(oob, pool.test_predictions_, np.nan)
    var = np.nanvar(t, axis=1, ddof=1)
    # an out-of-bag forest of 5 trees averages the K_i ~ Binomial(5, r_i) trees that did not
    # see row i (r_i: the row's out-of-bag rate in the pool); its variance is var_i E[1/K_i | K_i > 0]
    rate = oob.sum(axis=1) / oob.shape[1]
    k = np.arange(1, 6)[:, None]
    pmf = stats.binom.pmf(k, 5, rate)
    inverse = (pmf / k).sum(axis=0) / pmf.sum(axis=0)
    expected = 1 - np.mean(var * inverse) / y.var(ddof=1)
    np.testing.assert_allclose(pool.closed_form([5], measure="phi").curve, expected, rtol=1e-10)
    assert np.all(np.diff(pool.closed_form([2, 5, 50], measure="icc").curve) > 0)


def test_closed_form_out_of_bag_matches_out_of_bag_forests():
    # out of bag, a forest of n trees votes with about 0.37 n of them: the closed form used to
    # take all n (ICC(20) 0.92 where the forests give 0.78)
    X, y = make_regression(150, 6, noise=30, random_state=3)
    pool = TreePool(RandomForestRegressor(max_features=2, max_depth=5), n_learners=3000,
                    random_state=0).fit(X, y)
    for n in (20, 100):
        forests = pool.forests(n, n_forests=3000 // n)
        runs = [icc(forests[:, r:r + 10]).value for r in range(0, forests.shape[1] - 9, 10)
                if not np.isnan(forests[:, r:r + 10]).any()]
        assert pool.closed_form([n]).curve[0] == pytest.approx(np.mean(runs), abs=0.02)


def test_bootstrap_band_covers_the_expected_icc():
    # The closed form subtracts the pool's own noise from the between-object variance, so
    # resampled pools centre on the plug-in curve, not on the estimate. A band pivoting on
    # the estimate was shifted by that noise and covered the truth in about 60 % of pools
    # (SNP data: 57-70 %). Here the pools are small (the noise is a quarter of the signal at
    # n_star) and the truth is the closed form of 40 times as many trees.
    X, y = make_regression(100, 6, noise=30, random_state=3)
    est = RandomForestRegressor(max_features=2, max_depth=4)
    big = TreePool(est, n_learners=4000, random_state=0).fit(X[:70], y[:70], X[70:], oob=False)
    preds = big.test_predictions_
    n_star = preds.var(axis=1, ddof=1).mean() / preds.mean(axis=1).var(ddof=1)  # ICC(n_star) ~ 0.5
    truth = big.closed_form([n_star]).curve[0]
    covered, size = [], int(4 * n_star)
    for seed in range(40):
        pool = TreePool(est, n_learners=size, random_state=seed + 1).fit(X[:70], y[:70], X[70:], oob=False)
        band = pool.closed_form([n_star], n_resamples=200)
        _, low, high = band.curve, band.low, band.high
        covered.append(low[0] <= truth <= high[0])
    assert 0.4 < truth < 0.6
    assert np.mean(covered) >= 0.8  # nominal 0.95; 40 pools


def _exact_fleiss_of_disjoint_forests(preds, n, voting):
    """Fleiss' kappa of two forests of n learners, over every split of the pool into them."""
    from itertools import combinations

    scores = np.eye(preds.shape[2])[preds.argmax(axis=2)] if voting == "hard" else preds
    learners = range(preds.shape[1])
    agree, pi = [], []
    for first in combinations(learners, n):
        for second in combinations(sorted(set(learners) - set(first)), n):
            a = scores[:, list(first)].sum(axis=1).argmax(axis=1)
            b = scores[:, list(second)].sum(axis=1).argmax(axis=1)
            agree.append(a == b)
            pi.append(np.eye(preds.shape[2])[a])
    d_o = 1 - np.mean(agree, axis=0).mean()
    share = np.mean(pi, axis=0).mean(axis=0)
    return 1 - d_o / (1 - np.sum(share**2))


@pytest.mark.parametrize("voting", ["hard", "soft"])
def test_class_closed_form_is_the_average_over_splits_of_the_pool(voting):
    # three classes, a pool of 8 learners, forests of 3: the closed form estimates the mean
    # over every pair of disjoint forests of the pool (a U-statistic) by random orderings
    X, y = make_classification(90, 5, n_informative=3, n_classes=3, random_state=2)
    pool = TreePool(RandomForestClassifier(max_features=2), n_learners=8, voting=voting, random_state=0)
    pool.fit(X[:60], y[:60], X[60:])
    rng = np.random.default_rng(3)
    pool.test_predictions_ = rng.dirichlet([1.0, 1.0, 1.0], size=(30, 8))  # near-tied objects too
    exact = _exact_fleiss_of_disjoint_forests(pool.test_predictions_, 3, voting)
    assert pool.closed_form([3], measure="fleiss").curve[0] == pytest.approx(exact, abs=0.03)


def test_class_closed_form_out_of_bag_matches_out_of_bag_forests():
    # out of bag a forest of 10 trees votes with about 4 of them at each row; the closed form
    # used to let all 10 vote (kappa 0.89 where the forests give 0.69; 0.97 for 0.94 at 50)
    X, y = make_classification(150, 6, n_informative=3, flip_y=0.2, random_state=5)
    pool = TreePool(RandomForestClassifier(max_features=2, max_depth=4), n_learners=2000, voting="hard",
                    random_state=0).fit(X, y)
    for n in (10, 50):
        forests = pool.forests(n, n_forests=2000 // n)  # out-of-bag votes of each forest per row
        runs = []
        for r in range(0, forests.shape[1] - 9, 10):  # runs of 10 forests, rows voted on by all
            block = forests[:, r:r + 10]
            complete = np.array([all(v is not None for v in row) for row in block])
            runs.append(fleiss_kappa(block[complete].astype(int)).value)
        assert pool.closed_form([n], measure="fleiss").curve[0] == pytest.approx(np.mean(runs), abs=0.02)


@pytest.mark.parametrize("estimator", [RandomForestRegressor(max_features=2),
                                       BaggingRegressor(max_features=0.5)])
def test_extend_appends_independent_learners_consistently(estimator):
    from predstab.ensembles._forest import inbag_mask

    X, y = make_regression(60, 4, noise=5, random_state=4)
    pool = TreePool(estimator, n_learners=10, random_state=1).fit(X[:45], y[:45], X[45:])
    first = pool.test_predictions_.copy()
    pool.extend(15)
    assert pool.test_predictions_.shape == (15, 25) and pool.oob_.shape == (45, 25)
    np.testing.assert_array_equal(pool.test_predictions_[:, :10], first)
    # the pool is still one ensemble: its predictions, its out-of-bag rows
    whole = pool.test_predictions_.mean(axis=1)
    np.testing.assert_allclose(pool.ensemble_.predict(X[45:]), whole, rtol=1e-12)
    np.testing.assert_array_equal(pool.oob_, ~inbag_mask(pool.ensemble_, 45).T)
    # new seeds: no new learner repeats an old one
    old = {tuple(np.round(c, 9)) for c in first.T}
    assert not any(tuple(np.round(c, 9)) in old for c in pool.test_predictions_[:, 10:].T)


def test_extend_on_training_rows_keeps_test_and_train_the_same():
    X, y = make_classification(60, 4, random_state=0)
    pool = TreePool(RandomForestClassifier(max_features=2), n_learners=10, random_state=1).fit(X, y)
    pool.extend(6)
    assert pool.test_predictions_ is pool.train_predictions_ and pool.test_predictions_.shape[1] == 16
    with pytest.raises(ValueError, match="n_learners"):
        pool.extend(1)


def test_two_class_majority_votes_are_the_exact_average_over_splits():
    # two classes, hard voting, test objects: the closed form is the U-statistic itself
    X, y = make_classification(60, 4, random_state=0)
    pool = TreePool(RandomForestClassifier(max_features=2), n_learners=9, voting="hard", random_state=0)
    pool.fit(X[:40], y[:40], X[40:])
    rng = np.random.default_rng(4)
    votes = rng.random((20, 9)) < np.linspace(0.1, 0.9, 20)[:, None]
    pool.test_predictions_ = np.stack([~votes, votes], axis=2).astype(float)
    for n in (2, 3, 4):
        exact = _exact_fleiss_of_disjoint_forests(pool.test_predictions_, n, "hard")
        assert pool.closed_form([n], measure="fleiss").curve[0] == pytest.approx(exact, rel=1e-12, abs=1e-12)


# -- determinism, the bootstrap as resampled pools, the result object ----------------------------
def test_closed_form_same_random_state_same_numbers(reg, clf):
    pool, _, _ = reg
    first = pool.closed_form([5, 50], n_resamples=40, random_state=3)
    again = pool.closed_form([5, 50], n_resamples=40, random_state=3)
    for a, b in zip((first.curve, first.low, first.high), (again.curve, again.low, again.high), strict=True):
        np.testing.assert_array_equal(a, b)
    other = pool.closed_form([5, 50], n_resamples=40, random_state=4)
    assert not np.array_equal(first.low, other.low)  # the seed is used
    # the default (None) derives the generator from the pool's seed: repeated calls agree
    np.testing.assert_array_equal(pool.closed_form([5, 50], n_resamples=40).low,
                                  pool.closed_form([5, 50], n_resamples=40).low)
    # classes: soft votes go through random orderings of the pool, also in the estimate
    cpool, _, _ = clf
    kw = {"measure": "fleiss", "voting": "soft", "n_resamples": 20}
    a = cpool.closed_form([3, 9], random_state=11, **kw)
    b = cpool.closed_form([3, 9], random_state=11, **kw)
    assert a == b and a.errors.shape == (20, 2)
    assert cpool.closed_form([3, 9], **kw) == cpool.closed_form([3, 9], **kw)
    assert not np.array_equal(a.errors, cpool.closed_form([3, 9], random_state=12, **kw).errors)


def test_metric_bands_are_resampled_pools_about_the_plug_in(reg):
    # independent computation: the resampled pools of the same multinomial counts, column by
    # column, and the basic interval about the plug-in (pool-as-population) curve
    pool, _, _ = reg
    n, n_boot = np.array([5.0, 50.0]), 60
    res = pool.closed_form(n, n_resamples=n_boot, confidence_level=0.9, random_state=8)
    t = pool.test_predictions_
    size = t.shape[1]
    counts = np.random.default_rng(8).multinomial(size, np.full(size, 1 / size), size=n_boot)

    def icc_of(m, noise):
        w = m.var(axis=1, ddof=1).mean()
        b = max(m.mean(axis=1).var(ddof=1) - (w / size if noise else 0.0), 0.0)
        return b / (b + w / n)

    curve = icc_of(t, True)
    truth = icc_of(t, False)
    errors = np.stack([icc_of(t[:, np.repeat(np.arange(size), c)], True) for c in counts]) - truth
    # scaled up to the jackknife standard error where the bootstrap's is smaller: leave one
    # learner out, brute force (its noise term divides by the smaller pool's size)
    def icc_without(j):
        m = np.delete(t, j, axis=1)
        w = m.var(axis=1, ddof=1).mean()
        b = max(m.mean(axis=1).var(ddof=1) - w / (size - 1), 0.0)
        return b / (b + w / n)

    jack = np.stack([icc_without(j) for j in range(size)])
    se_jack = np.sqrt((size - 1) / size * np.sum((jack - jack.mean(axis=0)) ** 2, axis=0))
    errors = errors * np.maximum(se_jack / errors.std(axis=0, ddof=1), 1.0)
    np.testing.assert_allclose(res.curve, curve, rtol=1e-12)
    np.testing.assert_allclose(res.errors, errors, atol=2e-6)  # the products run in float32
    # the percentile interval of curve + errors, order statistics at (B + 1) p: 60 resamples,
    # p = 0.05 -> position 3.05 (1-based): the 3rd smallest plus 0.05 of the gap to the 4th
    ranked = np.sort(errors, axis=0)
    q_low = ranked[2] + 0.05 * (ranked[3] - ranked[2])
    q_high = ranked[-3] - 0.05 * (ranked[-3] - ranked[-4])
    np.testing.assert_allclose(res.low, np.minimum(np.minimum(curve + q_low, 1), curve), atol=2e-6)
    np.testing.assert_allclose(res.high, np.maximum(np.minimum(curve + q_high, 1), curve), atol=2e-6)


def test_out_of_bag_bands_are_resampled_pools():
    X, y = make_regression(40, 4, noise=5, random_state=4)
    pool = TreePool(RandomForestRegressor(max_features=2), n_learners=30, random_state=2).fit(X, y)
    n = np.array([4.0])
    res = pool.closed_form(n, measure="phi", n_resamples=15, random_state=5)
    t, oob = pool.test_predictions_, pool.oob_
    size = t.shape[1]
    counts = np.random.default_rng(5).multinomial(size, np.full(size, 1 / size), size=15)

    def phi_of(m, keep):
        votes = keep.sum(axis=1)
        ok = votes > 1
        var = np.nanvar(np.where(keep, m, np.nan)[ok], axis=1, ddof=1)
        k = np.arange(1, 5)[:, None]
        pmf = stats.binom.pmf(k, 4, votes[ok] / size)
        inverse = (pmf / k).sum(axis=0) / pmf.sum(axis=0)
        return 1 - np.mean(var * inverse) / y.var(ddof=1)

    base = phi_of(t, oob)
    errors = [phi_of(t[:, cols], oob[:, cols]) - base
              for cols in (np.repeat(np.arange(size), c) for c in counts)]
    np.testing.assert_allclose(res.curve, [base], rtol=1e-10)
    np.testing.assert_allclose(res.errors[:, 0], errors, atol=1e-6)


def test_closed_form_result_follows_the_result_convention(reg):
    pool, _, _ = reg
    res = pool.closed_form([5, 50], n_resamples=30, random_state=1)
    band = pool.closed_form([5, 50], n_resamples=30, random_state=1)
    curve, low, high = band.curve, band.low, band.high
    np.testing.assert_array_equal(res.curve, curve)
    np.testing.assert_array_equal(res.confidence_interval.low, low)
    np.testing.assert_array_equal(res.confidence_interval.high, high)
    assert len(repr(res)) < 300 and "array" not in repr(res)
    assert "ICC(1)" in str(res) and "120 learners" in str(res)
    frame = res.to_frame()
    np.testing.assert_array_equal(frame["ci_low"], low)
    np.testing.assert_array_equal(frame["value"], curve)
    assert res != pool.closed_form([5, 50], n_resamples=30, random_state=2)
    bare = pool.closed_form([5], n_resamples=0)
    assert np.isnan(bare.low).all() and bare.errors is None


def test_closed_form_degenerate_cases_follow_the_convention():
    from predstab import PredstabDegenerateWarning, PredstabUndefinedWarning

    pool = TreePool(RandomForestRegressor(max_features=2), n_learners=20, random_state=0)
    X, y = make_regression(40, 4, random_state=0)
    pool.fit(X[:30], y[:30], X[30:])
    saved = pool.test_predictions_
    pool.test_predictions_ = np.full_like(saved, 2.5)  # every learner predicts the same
    with pytest.warns(PredstabDegenerateWarning):
        np.testing.assert_array_equal(pool.closed_form([3, 10]).curve, [1.0, 1.0])
    pool.test_predictions_ = saved  # learners disagree, the baseline has no spread
    with pytest.warns(PredstabUndefinedWarning):
        assert np.isnan(pool.closed_form([3], measure="phi", baseline=np.ones(10)).curve).all()


@pytest.mark.parametrize("kwargs, name", [({"n_resamples": -1}, "n_resamples"),
                                          ({"confidence_level": 1.5}, "confidence_level"),
                                          ({"measure": "kappa"}, "measure"),
                                          ({"voting": "majority"}, "voting"),
                                          ({"random_state": "seed"}, "random_state")])
def test_closed_form_bad_options_name_the_parameter(reg, kwargs, name):
    from predstab._core._validation import InvalidParameterError

    pool, _, _ = reg
    with pytest.raises(InvalidParameterError, match=f"`{name}`"):
        pool.closed_form([5], **kwargs)


def test_soft_vote_bands_are_centred_on_the_estimate():
    # Soft votes of 10 learners whose class-1 probabilities are far from Normal (0.6-1.0 when
    # a learner votes for class 1, 0-0.4 otherwise). The resampled estimates are disjoint-forest
    # U-statistics; the bootstrap used to pivot on the Normal approximation of the mean
    # probability instead, which put the band about half a half-width above the estimate here
    # (mean offset 0.46; 0.017 too high at 10 trees on the pool of 1,000 trees, where
    # the estimate fell outside its band). Pivoting on the same estimator in the bootstrap world
    # (forests drawn with replacement from the pool) centres it: mean offset 0.06 (sd of the
    # mean of 5 pools about 0.06).
    from predstab.ensembles._closed_form import closed_form_bands

    offsets = []
    for seed in range(5):
        rng = np.random.default_rng(seed)
        p = rng.uniform(0.15, 0.85, 40)
        votes = rng.random((40, 400)) < p[:, None]
        prob1 = np.where(votes, rng.uniform(0.6, 1.0, votes.shape), rng.uniform(0.0, 0.4, votes.shape))
        preds = np.stack([1 - prob1, prob1], axis=2)
        res = closed_form_bands(preds, None, [10.0], {"fleiss": None}, classifier=True, voting="soft",
                                n_resamples=100, random_state=seed)["fleiss"]
        curve, low, high = res.curve[0], res.low[0], res.high[0]
        assert low < curve < high
        offsets.append(((low + high) / 2 - curve) / ((high - low) / 2))
    assert abs(np.mean(offsets)) < 0.2


def test_float32_cache_and_threads_give_the_same_predictions():
    X, y = make_regression(70, 5, noise=10, random_state=6)
    kw = {"n_learners": 30, "random_state": 3}
    base = TreePool(RandomForestRegressor(max_features=2), **kw).fit(X[:50], y[:50], X[50:])
    single = TreePool(RandomForestRegressor(max_features=2), dtype="float32", **kw)
    single.fit(X[:50], y[:50], X[50:])
    threads = TreePool(RandomForestRegressor(max_features=2), n_jobs=2, **kw).fit(X[:50], y[:50], X[50:])
    np.testing.assert_array_equal(threads.test_predictions_, base.test_predictions_)
    assert single.test_predictions_.dtype == np.float32
    np.testing.assert_allclose(single.test_predictions_, base.test_predictions_, rtol=1e-6)
    # the closed forms accumulate in float64: the float32 cache changes them by ~1e-7
    np.testing.assert_allclose(single.closed_form([3, 30]).curve, base.closed_form([3, 30]).curve, rtol=1e-5)
    # threads over blocks of objects: the same bands (the blocks' sums are added in order)
    big = TreePool(RandomForestRegressor(max_features=2, max_depth=3), n_learners=40, random_state=1)
    big.fit(X[:50], y[:50], np.random.default_rng(0).normal(size=(2000, 5)), oob=False)
    one = big.closed_form([3, 30], n_resamples=30, random_state=2)
    big.n_jobs = 2
    two = big.closed_form([3, 30], n_resamples=30, random_state=2)
    np.testing.assert_allclose(two.errors, one.errors, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(two.curve, one.curve, rtol=1e-12)
    with pytest.raises(ValueError, match="`dtype`"):
        TreePool(RandomForestRegressor(), dtype="int8").fit(X, y)

