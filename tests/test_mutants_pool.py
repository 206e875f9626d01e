"""Value-pinning checks of predstab.TreePool on tiny data (issue 12, item 8).

Independent computations: the pool against scikit-learn forests fitted with the seeds the
documented generator gives (``seed_``: one integer from ``random_state``; ``extend``: the next
integer of the same generator), per-tree predictions from ``estimators_``, out-of-bag rows from
``estimators_samples_``, forests of ``n`` trees as means / votes of ``estimators_[k n:(k + 1) n]``,
and the closed forms from the per-object variance decomposition of the TreePool Notes.
"""

import time
import warnings

import numpy as np
import pytest
from scipy import stats
from sklearn.datasets import make_classification, make_regression
from sklearn.ensemble import (
    BaggingClassifier,
    BaggingRegressor,
    ExtraTreesRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)

from predstab import PredstabDegenerateWarning, PredstabWarning, TreePool
from predstab._core._validation import InvalidParameterError
from predstab.ensembles._pool import _join_ensembles
from tests.test_mutants_closed_form import jackknife_scaled, percentile_band

X, Y = make_regression(40, 4, noise=10, random_state=0)
XC, YC = make_classification(40, 4, n_informative=2, n_redundant=0, random_state=3)
LABELS = np.where(YC == 1, "yes", "no")


def seeds(random_state, k):
    rng = np.random.default_rng(random_state)
    return [int(rng.integers(0, 2**31 - 1)) for _ in range(k)]


def per_tree(forest, X_):
    """Objects x trees (x classes) from each fitted tree of an sklearn ensemble."""
    features = getattr(forest, "estimators_features_", None) or [slice(None)] * len(forest.estimators_)
    pairs = list(zip(forest.estimators_, features, strict=True))
    if hasattr(forest, "classes_"):
        return np.stack([t.predict_proba(X_[:, f]) for t, f in pairs], axis=1)
    return np.column_stack([t.predict(X_[:, f]) for t, f in pairs])


def one_hot(labels):
    return np.eye(2)[labels]


def oob_by_hand(forest, n_rows):
    inbag = np.zeros((len(forest.estimators_), n_rows), dtype=bool)
    for j, rows in enumerate(forest.estimators_samples_):
        inbag[j, rows] = True
    return ~inbag.T


def icc_by_hand(t, n):
    var = t.var(axis=1, ddof=1)
    w = var.mean()
    b = max(t.mean(axis=1).var(ddof=1) - w / t.shape[1], 0.0)
    return b / (b + w / np.asarray(n, dtype=float)), w


@pytest.fixture(scope="module")
def reg():
    return TreePool(RandomForestRegressor(max_features=2), n_learners=12, random_state=5).fit(X[:30], Y[:30],
                                                                                              X[30:])


@pytest.fixture(scope="module")
def clf():
    pool = TreePool(RandomForestClassifier(max_features=2, max_depth=3), n_learners=10, voting="hard",
                    random_state=2)
    return pool.fit(XC[:30], LABELS[:30], XC[30:])


# ----------------------------------------------------------------------------- fit
def test_pool_is_the_sklearn_forest_of_its_seed(reg):
    seed = seeds(5, 1)[0]
    assert reg.seed_ == seed
    forest = RandomForestRegressor(max_features=2, n_estimators=12, random_state=seed).fit(X[:30], Y[:30])
    assert reg.ensemble_.n_estimators == 12 and reg.ensemble_.random_state == seed
    np.testing.assert_array_equal(reg.test_predictions_, per_tree(forest, X[30:]))
    np.testing.assert_array_equal(reg.train_predictions_, per_tree(forest, X[:30]))
    np.testing.assert_array_equal(reg.oob_, oob_by_hand(forest, 30))
    np.testing.assert_array_equal(reg.y_train_, Y[:30])
    assert reg.classes_ is None and not reg.is_classifier_ and not reg.on_train_
    assert reg.test_predictions_.dtype == np.float64 and reg.voting_ == "soft"
    # the estimator given is cloned, not fitted
    assert not hasattr(reg.estimator, "estimators_") and reg.estimator.n_estimators == 100


def test_classifier_pool_caches_class_probabilities(clf):
    seed = seeds(2, 1)[0]
    forest = RandomForestClassifier(max_features=2, max_depth=3, n_estimators=10, random_state=seed)
    forest.fit(XC[:30], LABELS[:30])
    assert clf.is_classifier_ and clf.classes_.tolist() == ["no", "yes"] and clf.voting_ == "hard"
    np.testing.assert_array_equal(clf.test_predictions_, per_tree(forest, XC[30:]))
    np.testing.assert_array_equal(clf.oob_, oob_by_hand(forest, 30))


def test_documented_defaults():
    pool = TreePool(RandomForestRegressor())
    settings = (pool.n_learners, pool.voting, pool.random_state, pool.n_jobs, pool.dtype)
    assert settings == (1000, "soft", None, None, "float64")


def test_fit_timings_are_wall_times():
    pool = TreePool(RandomForestRegressor(max_features=2), n_learners=6, random_state=0)
    start = time.perf_counter()
    pool.fit(X[:30], Y[:30], X[30:])
    total = time.perf_counter() - start
    assert 0 < pool.fit_seconds_ < total and 0 < pool.predict_seconds_ < total
    assert pool.fit_seconds_ + pool.predict_seconds_ < total


def test_n_jobs_reaches_the_ensemble_and_dtype_float32():
    pool = TreePool(RandomForestRegressor(max_features=2), n_learners=6, random_state=0, n_jobs=2,
                    dtype="float32").fit(X[:30], Y[:30], X[30:])
    assert pool.ensemble_.n_jobs == 2 and pool.test_predictions_.dtype == np.float32
    ref = TreePool(RandomForestRegressor(max_features=2), n_learners=6, random_state=0).fit(X[:30], Y[:30],
                                                                                            X[30:])
    np.testing.assert_allclose(pool.test_predictions_, ref.test_predictions_, rtol=1e-6)
    np.testing.assert_array_equal(pool.oob_, ref.oob_)
    # an ensemble without n_jobs (Bagging has one; a plain estimator with n_estimators may not)
    for dtype in (np.float32, np.float64, "float64"):
        TreePool(RandomForestRegressor(), n_learners=2, random_state=0, dtype=dtype).fit(X[:10], Y[:10])


def test_without_oob_rows_or_without_test_objects():
    no_oob = TreePool(RandomForestRegressor(max_features=2), n_learners=6, random_state=1)
    no_oob.fit(X[:30], Y[:30], X[30:], oob=False)
    assert no_oob.train_predictions_ is None and no_oob.oob_ is None
    with pytest.raises(ValueError, match="out-of-bag"):
        no_oob.forests(3, on="oob")
    with pytest.raises(ValueError, match="out-of-bag"):
        no_oob.oob_baseline()
    with pytest.raises(ValueError, match="out-of-bag"):
        no_oob.closed_form([3], measure="psi")
    # ExtraTrees do not bootstrap: training predictions but no out-of-bag rows
    extra = TreePool(ExtraTreesRegressor(), n_learners=4, random_state=1).fit(X[:30], Y[:30], X[30:])
    assert extra.oob_ is None and extra.train_predictions_.shape == (30, 4)
    with pytest.raises(ValueError, match="X_test"):
        TreePool(ExtraTreesRegressor(), n_learners=4).fit(X[:30], Y[:30])
    # on the training rows: test = train, out of bag
    train = TreePool(RandomForestRegressor(max_features=2), n_learners=6, random_state=1).fit(X[:30], Y[:30])
    assert train.on_train_ and train.test_predictions_ is train.train_predictions_
    np.testing.assert_array_equal(train.oob_, oob_by_hand(train.ensemble_, 30))
    # its forests are out-of-bag forests (NaN where all trees of a forest saw the row)
    trees, oob = per_tree(train.ensemble_, X[:30]), train.oob_
    with np.errstate(invalid="ignore"):
        expected = np.column_stack([(trees[:, k:k + 3] * oob[:, k:k + 3]).sum(axis=1)
                                    / oob[:, k:k + 3].sum(axis=1) for k in (0, 3)])
    np.testing.assert_allclose(train.forests(3), expected, rtol=1e-12)
    assert np.isnan(expected).any()
    # oob=False without X_test still caches the training rows (they are the test objects)
    again = TreePool(RandomForestRegressor(max_features=2), n_learners=6, random_state=1)
    again.fit(X[:30], Y[:30], oob=False)
    np.testing.assert_array_equal(again.test_predictions_, train.test_predictions_)
    np.testing.assert_array_equal(again.oob_, train.oob_)


def test_bad_arguments_name_the_parameter():
    from sklearn.linear_model import LinearRegression

    with pytest.raises(TypeError, match="`estimator`"):
        TreePool(LinearRegression()).fit(X, Y)
    with pytest.raises(TypeError, match="`estimator`"):
        TreePool(object()).fit(X, Y)
    with pytest.raises(InvalidParameterError, match="`n_learners`"):
        TreePool(RandomForestRegressor(), n_learners=1).fit(X, Y)
    with pytest.raises(ValueError, match="`voting`"):
        TreePool(RandomForestRegressor(), voting="majority").fit(X, Y)
    with pytest.raises(InvalidParameterError, match="`random_state`"):
        TreePool(RandomForestRegressor(), random_state="x").fit(X, Y)
    with pytest.raises(InvalidParameterError, match="`dtype`"):
        TreePool(RandomForestRegressor(), dtype="int8").fit(X, Y)
    with pytest.raises(InvalidParameterError, match="`oob`"):
        TreePool(RandomForestRegressor(), n_learners=2).fit(X, Y, oob="yes")
    pool = TreePool(RandomForestRegressor(), n_learners=2)
    for call in (lambda: pool.forests(1), lambda: pool.oob_baseline(), lambda: pool.closed_form([1]).curve,
                 lambda: pool.extend(2)):
        with pytest.raises(ValueError, match="not fitted"):
            call()
    assert TreePool(RandomForestRegressor(), n_learners=2, random_state=0).fit(X, Y).oob_.shape == (40, 2)


# ----------------------------------------------------------------------------- forests
def test_forests_are_means_of_consecutive_trees(reg):
    forest = reg.ensemble_
    trees = per_tree(forest, X[30:])
    for n in (1, 3, 4, 5, 12):
        out = reg.forests(n)
        assert out.shape == (10, 12 // n)
        expected = np.column_stack([trees[:, k * n:(k + 1) * n].mean(axis=1) for k in range(12 // n)])
        np.testing.assert_allclose(out, expected, rtol=1e-12)
    np.testing.assert_allclose(reg.forests(12)[:, 0], forest.predict(X[30:]), rtol=1e-12)
    two = reg.forests(5, n_forests=2)
    np.testing.assert_allclose(two, reg.forests(5), rtol=0)
    np.testing.assert_allclose(reg.forests(4, n_forests=1)[:, 0], trees[:, :4].mean(axis=1), rtol=1e-12)
    np.testing.assert_allclose(reg.forests(6, n_forests=2), reg.forests(6), rtol=0)  # the whole pool


def test_out_of_bag_forests(reg):
    trees = per_tree(reg.ensemble_, X[:30])
    oob = oob_by_hand(reg.ensemble_, 30)
    out = reg.forests(3, on="oob")
    for k in range(4):
        keep = oob[:, 3 * k:3 * k + 3]
        votes = trees[:, 3 * k:3 * k + 3]
        with np.errstate(invalid="ignore"):
            expected = np.where(keep.any(axis=1), (votes * keep).sum(axis=1) / keep.sum(axis=1), np.nan)
        np.testing.assert_allclose(out[:, k], expected, rtol=1e-12)
    assert np.isnan(out).any()  # rows in the bag of all three trees of a forest
    # the whole pool out of bag: psi's baseline, by hand from estimators_samples_
    expected = (trees * oob).sum(axis=1) / oob.sum(axis=1)
    np.testing.assert_allclose(reg.oob_baseline(), expected, rtol=1e-12)
    np.testing.assert_allclose(reg.forests(12, on="oob")[:, 0], expected, rtol=1e-12)


def test_class_forests_soft_hard_and_out_of_bag(clf):
    probs = clf.test_predictions_
    votes = probs.argmax(axis=2)
    hard = clf.forests(4)  # the pool's voting: hard
    for k in range(2):
        ones = votes[:, 4 * k:4 * k + 4].sum(axis=1)
        np.testing.assert_array_equal(hard[:, k], np.where(ones > 2, "yes", "no"))  # 2-2 ties: "no"
    assert hard.dtype == object
    soft = clf.forests(4, voting="soft")
    for k in range(2):
        mean = probs[:, 4 * k:4 * k + 4].mean(axis=1)
        np.testing.assert_array_equal(soft[:, k], clf.classes_[mean.argmax(axis=1)])
    forest = clf.ensemble_
    np.testing.assert_array_equal(clf.forests(10, voting="soft")[:, 0], forest.predict(XC[30:]))
    # out of bag: votes of the trees that did not see the row, None where none did
    train = per_tree(forest, XC[:30]).argmax(axis=2)
    oob = oob_by_hand(forest, 30)
    out = clf.forests(2, on="oob")
    for k in range(5):
        keep, v = oob[:, 2 * k:2 * k + 2], train[:, 2 * k:2 * k + 2]
        ones, n = (v * keep).sum(axis=1), keep.sum(axis=1)
        expected = np.where(n == 0, None, np.where(2 * ones > n, "yes", "no")).astype(object)
        assert out[:, k].tolist() == expected.tolist()
    assert any(v is None for v in out.ravel())
    ones, n = (train * oob).sum(axis=1), oob.sum(axis=1)
    baseline = clf.oob_baseline()
    assert baseline.tolist() == np.where(n == 0, None, np.where(2 * ones > n, "yes", "no")).tolist()
    assert None in baseline.tolist()  # a row in the bag of every tree
    soft_base = clf.oob_baseline(voting="soft")
    p = per_tree(forest, XC[:30])
    mean = (p * oob[..., None]).sum(axis=1)
    assert soft_base.tolist() == np.where(n == 0, None, clf.classes_[mean.argmax(axis=1)]).tolist()


def test_forests_bad_sizes(reg):
    with pytest.raises(ValueError, match="pool size 12.*at least 15 learners"):
        reg.forests(5, n_forests=3)
    with pytest.raises(ValueError, match="pool size 12.*at least 26 learners"):
        reg.forests(13)
    for kwargs, name in (({"n": 0}, "n"), ({"n": 2.0}, "n"), ({"n": 2, "n_forests": 0}, "n_forests"),
                         ({"n": 2, "on": "train"}, "on"), ({"n": 2, "voting": "majority"}, "voting")):
        with pytest.raises(InvalidParameterError, match=f"`{name}`"):
            reg.forests(**kwargs)
    with pytest.raises(InvalidParameterError, match="`voting`"):
        reg.oob_baseline(voting="mean")


# ----------------------------------------------------------------------------- extend
@pytest.mark.parametrize("make", [lambda: RandomForestRegressor(max_features=2),
                                  lambda: BaggingRegressor(max_features=0.5)])
def test_extend_appends_the_next_seed_of_the_generator(make):
    pool = TreePool(make(), n_learners=5, random_state=9).fit(X[:30], Y[:30], X[30:])
    pool.fit_seconds_, pool.predict_seconds_ = 100.0, 200.0
    start = time.perf_counter()
    pool.extend(7)
    took = time.perf_counter() - start
    assert 100 < pool.fit_seconds_ < 100 + took and 200 < pool.predict_seconds_ < 200 + took  # accumulated
    first, second = seeds(9, 2)
    a = make().set_params(n_estimators=5, random_state=first).fit(X[:30], Y[:30])
    b = make().set_params(n_estimators=7, random_state=second).fit(X[:30], Y[:30])
    np.testing.assert_allclose(pool.test_predictions_, np.hstack([per_tree(a, X[30:]), per_tree(b, X[30:])]),
                               rtol=1e-12)
    np.testing.assert_allclose(pool.train_predictions_,
                               np.hstack([per_tree(a, X[:30]), per_tree(b, X[:30])]), rtol=1e-12)
    np.testing.assert_array_equal(pool.oob_, np.hstack([oob_by_hand(a, 30), oob_by_hand(b, 30)]))
    # one ensemble of 12 learners: its prediction is the mean, its out-of-bag rows follow
    assert pool.ensemble_.n_estimators == 12 and len(pool.ensemble_.estimators_) == 12
    whole = pool.test_predictions_.mean(axis=1)
    np.testing.assert_allclose(pool.ensemble_.predict(X[30:]), whole, rtol=1e-12)
    np.testing.assert_array_equal(oob_by_hand(pool.ensemble_, 30), pool.oob_)
    np.testing.assert_allclose(pool.forests(6), pool.test_predictions_.reshape(10, 2, 6).mean(axis=2))
    # the closed forms use the whole extended pool
    expected, _ = icc_by_hand(pool.test_predictions_, [2, 8])
    np.testing.assert_allclose(pool.closed_form([2, 8]).curve, expected, rtol=1e-12)


def test_extend_keeps_the_pools_settings():
    pool = TreePool(RandomForestClassifier(max_features=2), n_learners=4, voting="hard", random_state=3,
                    dtype="float32").fit(XC[:30], LABELS[:30], XC[30:], oob=False)
    pool.extend(3)
    assert pool.test_predictions_.shape == (10, 7, 2) and pool.test_predictions_.dtype == np.float32
    assert pool.train_predictions_ is None and pool.oob_ is None
    first, second = seeds(3, 2)
    b = RandomForestClassifier(max_features=2, n_estimators=3, random_state=second).fit(XC[:30], LABELS[:30])
    np.testing.assert_allclose(pool.test_predictions_[:, 4:], per_tree(b, XC[30:]), rtol=1e-6)
    np.testing.assert_array_equal(pool.forests(7)[:, 0], np.where(
        pool.test_predictions_.argmax(axis=2).sum(axis=1) > 3, "yes", "no"))
    train = TreePool(RandomForestRegressor(max_features=2), n_learners=3, random_state=4).fit(X[:30], Y[:30])
    train.extend(2)
    assert train.test_predictions_ is train.train_predictions_ and train.oob_.shape == (30, 5)
    with pytest.raises(InvalidParameterError, match="`n_learners`"):
        train.extend(1)
    train.extend(2)
    assert train.test_predictions_.shape == (30, 7)


def test_join_ensembles_of_bagging_keeps_features_and_seeds():
    a = BaggingClassifier(n_estimators=3, max_features=0.5, random_state=0).fit(XC, YC)
    b = BaggingClassifier(n_estimators=2, max_features=0.5, random_state=1).fit(XC, YC)
    feats = list(a.estimators_features_) + list(b.estimators_features_)
    samples = list(a.estimators_samples_) + list(b.estimators_samples_)
    _join_ensembles(a, b)
    assert a.n_estimators == 5
    for mine, theirs in zip(a.estimators_features_, feats, strict=True):
        np.testing.assert_array_equal(mine, theirs)
    for mine, theirs in zip(a.estimators_samples_, samples, strict=True):
        np.testing.assert_array_equal(mine, theirs)


# ----------------------------------------------------------------------------- closed forms
def test_closed_form_metric_measures(reg):
    t = reg.test_predictions_
    n = np.array([1, 3, 40])
    expected, w = icc_by_hand(t, n)
    np.testing.assert_allclose(reg.closed_form(n).curve, expected, rtol=1e-12)
    np.testing.assert_allclose(reg.closed_form(3).curve, expected[1:2], rtol=1e-12)  # a scalar n
    np.testing.assert_allclose(reg.closed_form(n, measure="phi").curve, 1 - w / n / Y[:30].var(ddof=1), rtol=1e-12)
    base = np.array([1.0, 3.0, 2.0, 7.0])
    np.testing.assert_allclose(reg.closed_form(n, measure="phi", baseline=base).curve, 1 - w / n / base.var(ddof=1),
                               rtol=1e-12)
    oob = reg.oob_baseline()
    np.testing.assert_allclose(reg.closed_form(n, measure="psi").curve, 1 - w / n / oob.var(ddof=1), rtol=1e-12)
    np.testing.assert_allclose(reg.closed_form(n, measure="psi", baseline=base).curve, 1 - w / n / base.var(ddof=1),
                               rtol=1e-12)
    with pytest.raises(ValueError, match="`measure`='fleiss' needs classes"):
        reg.closed_form(n, measure="fleiss")


def test_closed_form_on_training_rows_is_out_of_bag():
    pool = TreePool(RandomForestRegressor(max_features=2), n_learners=10, random_state=3).fit(X[:30], Y[:30])
    t, oob = pool.test_predictions_, pool.oob_
    rows = oob.sum(axis=1) > 1
    var = np.array([t[i, oob[i]].var(ddof=1) for i in np.flatnonzero(rows)])
    rate = oob[rows].sum(axis=1) / 10
    k = np.arange(1, 5)[:, None]
    pmf = stats.binom.pmf(k, 4, rate)
    d_o = np.mean(var * (pmf / k).sum(axis=0) / pmf.sum(axis=0))
    np.testing.assert_allclose(pool.closed_form([4], measure="phi").curve, 1 - d_o / Y[:30].var(ddof=1), rtol=1e-10)


def test_closed_form_bands_default_generator_and_tuple(reg):
    n = np.array([2.0, 6.0])
    band = reg.closed_form(n, n_resamples=30, confidence_level=0.9, random_state=1)
    curve, low, high = band.curve, band.low, band.high
    res = reg.closed_form(n, n_resamples=30, confidence_level=0.9, random_state=1)
    np.testing.assert_array_equal(res.curve, curve)
    np.testing.assert_array_equal(res.low, low)
    np.testing.assert_array_equal(res.high, high)
    assert res.confidence_level == 0.9 and res.n_resamples == 30 and res.pool_size == 12
    # independent: the resampled pools of the multinomial counts of that generator
    t = reg.test_predictions_
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
    default = reg.closed_form(n, n_resamples=30)
    counts = np.random.default_rng([reg.seed_, 12]).multinomial(12, np.full(12, 1 / 12), size=30)
    errors = np.stack([icc_by_hand(t[:, np.repeat(np.arange(12), c)], n)[0] for c in counts]) - plug_in(t)
    errors = jackknife_scaled(errors, t, lambda m: icc_by_hand(m, n)[0])
    np.testing.assert_allclose(default.errors, errors, atol=1e-5)
    assert default.n_resamples == 30 and reg.closed_form(n).n_resamples == 0  # no band by default
    assert default.confidence_level == 0.95
    np.testing.assert_allclose(default.high, percentile_band(default.curve, errors, 0.95)[1], atol=1e-5)
    band = reg.closed_form(n, n_resamples=30)  # the same defaults
    curve, low, high = band.curve, band.low, band.high
    np.testing.assert_array_equal(low, default.low)
    np.testing.assert_array_equal(high, default.high)
    assert reg.closed_form(n, n_resamples=30, confidence_level=0.9,
                                 random_state=np.random.default_rng(1)) == res
    bare = reg.closed_form(n, n_resamples=0).curve
    assert isinstance(bare, np.ndarray) and bare.shape == (2,)


def test_closed_form_bad_options(reg):
    for bad, name in (([0.5], "n"), ([np.inf], "n"), ([np.nan], "n")):
        with pytest.raises(ValueError, match=f"`{name}`"):
            reg.closed_form(bad)
    for kwargs, name in (({"n_resamples": -1}, "n_resamples"),
                         ({"confidence_level": 0.0}, "confidence_level"),
                         ({"confidence_level": 1.0}, "confidence_level"), ({"measure": "alpha"}, "measure"),
                         ({"voting": "mean"}, "voting"), ({"random_state": -1}, "random_state"),
                         ({"baseline": 3}, "baseline")):
        with pytest.raises(InvalidParameterError, match=f"`{name}`"):
            reg.closed_form([2], **kwargs)
    # the smallest valid values
    assert reg.closed_form([1], n_resamples=1, confidence_level=0.01).curve.shape == (1,)


def test_class_closed_forms_and_the_extrapolation_warning(clf):
    # hard votes of two classes on test objects: the exact average over splits of the pool
    votes = clf.test_predictions_.argmax(axis=2)
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
        curve = clf.closed_form([1, 2, 5], measure="fleiss").curve
    np.testing.assert_allclose(curve, [kappa(1), kappa(2), kappa(5)], rtol=1e-10)
    message = r"n = \[6\] learners is extrapolated.*pool of 10.*at least 12"
    with pytest.warns(PredstabWarning, match=message):
        clf.closed_form([4, 5, 6], measure="fleiss")
    with pytest.raises(ValueError, match="`measure`='icc' needs metric"):
        clf.closed_form([2], measure="icc")
    # psi's default baseline: the pool's out-of-bag votes; phi's: the training labels
    base = [v for v in clf.oob_baseline() if v is not None]
    share = np.mean(np.array(base) == "yes")
    d_e = 1 - share**2 - (1 - share) ** 2
    d_o = 1 - np.mean([np.mean(votes[:, a] == votes[:, b]) for a in range(10) for b in range(10) if a != b])
    np.testing.assert_allclose(clf.closed_form([1], measure="psi").curve, 1 - d_o / d_e, rtol=1e-10)
    share = np.mean(LABELS[:30] == "yes")
    d_e = 1 - share**2 - (1 - share) ** 2
    np.testing.assert_allclose(clf.closed_form([1], measure="phi").curve, 1 - d_o / d_e, rtol=1e-10)
    # a voting override also sets psi's default baseline: the pool's soft out-of-bag votes (a pool
    # whose soft and hard baselines differ in their class shares)
    other = TreePool(RandomForestClassifier(max_features=2, max_depth=3), n_learners=10, voting="hard",
                     random_state=0).fit(XC[:30], LABELS[:30], XC[30:])
    p, oob = per_tree(other.ensemble_, XC[:30]), other.oob_
    votes = other.test_predictions_.argmax(axis=2)
    d_o = 1 - np.mean([np.mean(votes[:, a] == votes[:, b]) for a in range(10) for b in range(10) if a != b])
    shares = {}
    for voting, scores in (("hard", one_hot(p.argmax(axis=2))), ("soft", p)):
        totals = (scores * oob[..., None]).sum(axis=1)
        share = np.mean(totals.argmax(axis=1)[oob.any(axis=1)] == 1)  # class 1: "yes"
        shares[voting] = 1 - share**2 - (1 - share) ** 2
    assert shares["soft"] != pytest.approx(shares["hard"], rel=1e-3)
    for voting in ("soft", "hard"):  # one learner: its soft and hard votes agree, so does D_o
        np.testing.assert_allclose(other.closed_form([1], measure="psi", voting=voting, random_state=0).curve,
                                   1 - d_o / shares[voting], rtol=1e-10)
    # soft votes: a different closed form (probabilities, random orderings of the pool)
    soft = clf.closed_form([2], measure="fleiss", voting="soft", random_state=0).curve
    assert not np.allclose(soft, curve[1:2])
    again = clf.closed_form([2], measure="fleiss", voting="soft", random_state=0).curve
    np.testing.assert_array_equal(soft, again)


def test_metric_pools_never_warn_about_the_extrapolation(reg):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        reg.closed_form([7, 100])


def test_degenerate_pool_follows_the_convention():
    y = np.full(30, 3.0)
    pool = TreePool(RandomForestRegressor(), n_learners=4, random_state=0).fit(X[:30], y, X[30:])
    with pytest.warns(PredstabDegenerateWarning):
        np.testing.assert_array_equal(pool.closed_form([1, 3]).curve, [1.0, 1.0])
