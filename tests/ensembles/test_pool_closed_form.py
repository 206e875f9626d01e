"""TreePool.closed_form: the expected stability of forests of ``n`` learners from the pool's
per-tree predictions (the variance decomposition of the TreePool Notes for metric predictions;
the average over every way to cut the pool for classes), against simulated and disjoint forests,
and its bands (resampled pools about the plug-in), as one ClosedFormResult.
"""

import warnings

import numpy as np
import pytest
from scipy import stats
from sklearn.datasets import make_classification, make_regression
from sklearn.ensemble import (
    RandomForestClassifier,
    RandomForestRegressor,
)

from predstab import PredstabDegenerateWarning, PredstabWarning, TreePool, fit_2pl, fleiss_kappa, icc
from predstab._core._validation import InvalidParameterError
from predstab.ensembles._closed_form import closed_form_stats, curve_from_stats
from tests.ensembles._pools import (
    LABELS,
    XC,
    X,
    Y,
    icc_by_hand,
    jackknife_scaled,
    one_hot_two,
    per_tree,
    percentile_band,
)


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
    assert pool.closed_form([n], measure="fleiss", voting="hard").curve[0] == pytest.approx(expected,
                                                                                            abs=0.02)
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


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
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


# ----------------------------------------------------------------------------- closed forms
def test_closed_form_metric_measures(tiny_reg):
    t = tiny_reg.test_predictions_
    n = np.array([1, 3, 40])
    expected, w = icc_by_hand(t, n)
    np.testing.assert_allclose(tiny_reg.closed_form(n).curve, expected, rtol=1e-12)
    np.testing.assert_allclose(tiny_reg.closed_form(3).curve, expected[1:2], rtol=1e-12)  # a scalar n
    np.testing.assert_allclose(tiny_reg.closed_form(n, measure="phi").curve, 1 - w / n / Y[:30].var(ddof=1),
                               rtol=1e-12)
    base = np.array([1.0, 3.0, 2.0, 7.0])
    np.testing.assert_allclose(tiny_reg.closed_form(n, measure="phi", baseline=base).curve,
                               1 - w / n / base.var(ddof=1),
                               rtol=1e-12)
    oob = tiny_reg.oob_baseline()
    np.testing.assert_allclose(tiny_reg.closed_form(n, measure="psi").curve, 1 - w / n / oob.var(ddof=1),
                               rtol=1e-12)
    np.testing.assert_allclose(tiny_reg.closed_form(n, measure="psi", baseline=base).curve,
                               1 - w / n / base.var(ddof=1),
                               rtol=1e-12)
    with pytest.raises(ValueError, match="`measure`='fleiss' needs classes"):
        tiny_reg.closed_form(n, measure="fleiss")


def test_closed_form_on_training_rows_is_out_of_bag():
    pool = TreePool(RandomForestRegressor(max_features=2), n_learners=10, random_state=3).fit(X[:30], Y[:30])
    t, oob = pool.test_predictions_, pool.oob_
    rows = oob.sum(axis=1) > 1
    var = np.array([t[i, oob[i]].var(ddof=1) for i in np.flatnonzero(rows)])
    rate = oob[rows].sum(axis=1) / 10
    k = np.arange(1, 5)[:, None]
    pmf = stats.binom.pmf(k, 4, rate)
    d_o = np.mean(var * (pmf / k).sum(axis=0) / pmf.sum(axis=0))
    np.testing.assert_allclose(pool.closed_form([4], measure="phi").curve, 1 - d_o / Y[:30].var(ddof=1),
                               rtol=1e-10)


def test_closed_form_bands_default_generator_and_tuple(tiny_reg):
    n = np.array([2.0, 6.0])
    band = tiny_reg.closed_form(n, n_resamples=30, confidence_level=0.9, random_state=1)
    curve, low, high = band.curve, band.low, band.high
    res = tiny_reg.closed_form(n, n_resamples=30, confidence_level=0.9, random_state=1)
    np.testing.assert_array_equal(res.curve, curve)
    np.testing.assert_array_equal(res.low, low)
    np.testing.assert_array_equal(res.high, high)
    assert res.confidence_level == 0.9 and res.n_resamples == 30 and res.pool_size == 12
    # independent: the resampled pools of the multinomial counts of that generator
    t = tiny_reg.test_predictions_
    counts = np.random.default_rng(1).multinomial(12, np.full(12, 1 / 12), size=30)

    def plug_in(m):
        w = m.var(axis=1, ddof=1).mean()
        b = m.mean(axis=1).var(ddof=1)
        return b / (b + w / n)

    errors = np.stack([icc_by_hand(t[:, np.repeat(np.arange(12), c)], n)[0] for c in counts]) - plug_in(t)
    # metric test objects: scaled up to the leave-one-learner-out jackknife SE where that is larger
    errors = jackknife_scaled(errors, t, lambda m: icc_by_hand(m, n)[0])
    np.testing.assert_allclose(res.errors, errors, atol=1e-5)
    np.testing.assert_allclose(np.c_[low, high], np.c_[percentile_band(curve, errors, 0.9)], atol=1e-5)
    # the default generator derives from the pool's seed and size
    default = tiny_reg.closed_form(n, n_resamples=30)
    counts = np.random.default_rng([tiny_reg.seed_, 12]).multinomial(12, np.full(12, 1 / 12), size=30)
    errors = np.stack([icc_by_hand(t[:, np.repeat(np.arange(12), c)], n)[0] for c in counts]) - plug_in(t)
    errors = jackknife_scaled(errors, t, lambda m: icc_by_hand(m, n)[0])
    np.testing.assert_allclose(default.errors, errors, atol=1e-5)
    assert default.n_resamples == 30 and tiny_reg.closed_form(n).n_resamples == 0  # no band by default
    assert default.confidence_level == 0.95
    np.testing.assert_allclose(default.high, percentile_band(default.curve, errors, 0.95)[1], atol=1e-5)
    band = tiny_reg.closed_form(n, n_resamples=30)  # the same defaults
    curve, low, high = band.curve, band.low, band.high
    np.testing.assert_array_equal(low, default.low)
    np.testing.assert_array_equal(high, default.high)
    assert tiny_reg.closed_form(n, n_resamples=30, confidence_level=0.9,
                                 random_state=np.random.default_rng(1)) == res
    bare = tiny_reg.closed_form(n, n_resamples=0).curve
    assert isinstance(bare, np.ndarray) and bare.shape == (2,)


def test_closed_form_bad_options(tiny_reg):
    for bad, name in (([0.5], "n"), ([np.inf], "n"), ([np.nan], "n")):
        with pytest.raises(ValueError, match=f"`{name}`"):
            tiny_reg.closed_form(bad)
    for kwargs, name in (({"n_resamples": -1}, "n_resamples"),
                         ({"confidence_level": 0.0}, "confidence_level"),
                         ({"confidence_level": 1.0}, "confidence_level"), ({"measure": "alpha"}, "measure"),
                         ({"voting": "mean"}, "voting"), ({"random_state": -1}, "random_state"),
                         ({"baseline": 3}, "baseline")):
        with pytest.raises(InvalidParameterError, match=f"`{name}`"):
            tiny_reg.closed_form([2], **kwargs)
    # the smallest valid values
    assert tiny_reg.closed_form([1], n_resamples=1, confidence_level=0.01).curve.shape == (1,)


def test_class_closed_forms_and_the_extrapolation_warning(tiny_clf):
    # hard votes of two classes on test objects: the exact average over splits of the pool
    votes = tiny_clf.test_predictions_.argmax(axis=2)
    from itertools import combinations

    def kappa(n):
        agree, pi = [], []
        for first in combinations(range(10), n):
            rest = [j for j in range(10) if j not in first]
            for second in combinations(rest, n):
                a = votes[:, list(first)].sum(axis=1) * 2 > n
                b = votes[:, list(second)].sum(axis=1) * 2 > n
                agree.append(a == b)
                pi.append(a)
        pi1 = np.mean(pi, axis=0)
        share = pi1.mean()
        return 1 - (1 - np.mean(agree)) / (1 - share**2 - (1 - share) ** 2)

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        curve = tiny_clf.closed_form([1, 2, 5], measure="fleiss").curve
    np.testing.assert_allclose(curve, [kappa(1), kappa(2), kappa(5)], rtol=1e-10)
    message = r"n = \[6\] learners is extrapolated.*pool of 10.*at least 12"
    with pytest.warns(PredstabWarning, match=message):
        tiny_clf.closed_form([4, 5, 6], measure="fleiss")
    with pytest.raises(ValueError, match="`measure`='icc' needs metric"):
        tiny_clf.closed_form([2], measure="icc")
    # psi's default baseline: the pool's out-of-bag votes; phi's: the training labels
    base = [v for v in tiny_clf.oob_baseline() if v is not None]
    share = np.mean(np.array(base) == "yes")
    d_e = 1 - share**2 - (1 - share) ** 2
    d_o = 1 - np.mean([np.mean(votes[:, a] == votes[:, b]) for a in range(10) for b in range(10) if a != b])
    np.testing.assert_allclose(tiny_clf.closed_form([1], measure="psi").curve, 1 - d_o / d_e, rtol=1e-10)
    share = np.mean(LABELS[:30] == "yes")
    d_e = 1 - share**2 - (1 - share) ** 2
    np.testing.assert_allclose(tiny_clf.closed_form([1], measure="phi").curve, 1 - d_o / d_e, rtol=1e-10)
    # a voting override also sets psi's default baseline: the pool's soft out-of-bag votes (a pool
    # whose soft and hard baselines differ in their class shares)
    other = TreePool(RandomForestClassifier(max_features=2, max_depth=3), n_learners=10, voting="hard",
                     random_state=0).fit(XC[:30], LABELS[:30], XC[30:])
    p, oob = per_tree(other.ensemble_, XC[:30]), other.oob_
    votes = other.test_predictions_.argmax(axis=2)
    d_o = 1 - np.mean([np.mean(votes[:, a] == votes[:, b]) for a in range(10) for b in range(10) if a != b])
    shares = {}
    for voting, scores in (("hard", one_hot_two(p.argmax(axis=2))), ("soft", p)):
        totals = (scores * oob[..., None]).sum(axis=1)
        share = np.mean(totals.argmax(axis=1)[oob.any(axis=1)] == 1)  # class 1: "yes"
        shares[voting] = 1 - share**2 - (1 - share) ** 2
    assert shares["soft"] != pytest.approx(shares["hard"], rel=1e-3)
    for voting in ("soft", "hard"):  # one learner: its soft and hard votes agree, so does D_o
        np.testing.assert_allclose(other.closed_form([1], measure="psi", voting=voting, random_state=0).curve,
                                   1 - d_o / shares[voting], rtol=1e-10)
    # soft votes: a different closed form (probabilities, random orderings of the pool)
    soft = tiny_clf.closed_form([2], measure="fleiss", voting="soft", random_state=0).curve
    assert not np.allclose(soft, curve[1:2])
    again = tiny_clf.closed_form([2], measure="fleiss", voting="soft", random_state=0).curve
    np.testing.assert_array_equal(soft, again)


def test_metric_pools_never_warn_about_the_extrapolation(tiny_reg):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tiny_reg.closed_form([7, 100])


def test_degenerate_pool_follows_the_convention():
    y = np.full(30, 3.0)
    pool = TreePool(RandomForestRegressor(), n_learners=4, random_state=0).fit(X[:30], y, X[30:])
    with pytest.warns(PredstabDegenerateWarning):
        np.testing.assert_array_equal(pool.closed_form([1, 3]).curve, [1.0, 1.0])


def test_extrapolation_warning_says_how_each_kind_of_pool_is_estimated():
    # beyond half the pool: empirical Bayes for hard votes of two classes on test objects only;
    # every other pool (soft votes, three classes, rows the members were trained on) extrapolates
    rng = np.random.default_rng(8)
    two = rng.integers(0, 2, size=(20, 8))
    three = rng.integers(0, 3, size=(20, 8))
    oob = rng.random((20, 8)) < 0.4
    oob[:, :2] = [True, False]  # every row out of bag for some member and in bag for another
    bayes = ("estimated from the vote counts by empirical Bayes, nearly unbiased but noisier than up to "
             "half the pool")
    shares = "the extrapolation from its vote shares overstates stability where votes are close"
    cases = [(TreePool.from_predictions(two, classes=[0, 1], voting="hard"), "hard", bayes),
             (TreePool.from_predictions(two, classes=[0, 1], voting="hard"), "soft", shares),
             (TreePool.from_predictions(three, classes=[0, 1, 2], voting="hard"), "hard", shares),
             (TreePool.from_predictions(two, oob=oob, classes=[0, 1], voting="hard"), "hard", shares)]
    for pool, voting, how in cases:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            pool.closed_form([2, 5], measure="fleiss", voting=voting, n_resamples=0)
        messages = [str(w.message) for w in caught if issubclass(w.category, PredstabWarning)]
        assert (f"Class stability for n = [5] learners is extrapolated: the pool of 8 learners holds no two "
                f"disjoint forests of that size, and {how}; fit a pool of at least 10 learners.") in messages
