"""TreePool: fitting the pool (scikit-learn's forest of the documented seed, the cached per-tree
predictions and out-of-bag rows), forests of any size by aggregation (means and votes of
consecutive trees, out of bag), ``extend`` (the next seed of the generator) and the errors.
"""

import time

import numpy as np
import pytest
from sklearn.datasets import make_classification, make_regression
from sklearn.ensemble import (
    BaggingClassifier,
    BaggingRegressor,
    ExtraTreesRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)
from sklearn.linear_model import LinearRegression

from predstab import TreePool
from predstab._core._validation import InvalidParameterError
from predstab.ensembles._forest import learner_predictions, oob_predict
from predstab.ensembles._pool import _join_ensembles
from tests.ensembles._pools import (
    LABELS,
    XC,
    YC,
    X,
    Y,
    icc_by_hand,
    oob_by_hand,
    per_tree,
    seeds,
)


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


@pytest.mark.parametrize("make", [
    lambda: RandomForestRegressor(n_estimators=37, max_features=2, random_state=0).fit(X, Y),
    lambda: RandomForestClassifier(n_estimators=37, max_depth=4, random_state=0).fit(XC, np.arange(40) % 3),
])
def test_learner_predictions_are_each_trees_prediction_in_every_chunking(make):
    # chunks of trees over all rows (issue 37, item 6): every chunk size, thread count and progress
    # reporting gives each tree's own predict / predict_proba, exactly
    forest = make()
    rows = np.random.default_rng(1).normal(size=(301, X.shape[1]))
    expected = per_tree(forest, rows.astype(np.float32))
    for n_jobs in (1, 3):
        for chunk_bytes in (1, 3 * 301 * 8 * 3, 2**30):  # one tree, a few trees, every tree per chunk
            ticks = []
            got = learner_predictions(forest, rows, n_jobs=n_jobs, chunk_bytes=chunk_bytes,
                                      progress=lambda done, total, seen=ticks: seen.append((done, total)))
            np.testing.assert_array_equal(got, expected)
            assert ticks[-1] == (37, 37) and [d for d, _ in ticks] == sorted({d for d, _ in ticks})
    single = learner_predictions(forest, rows, dtype=np.float32, n_jobs=2, chunk_bytes=1)
    assert single.dtype == np.float32
    np.testing.assert_array_equal(single, expected.astype(np.float32))


@pytest.mark.parametrize("make", [
    lambda: RandomForestRegressor(n_estimators=37, max_features=2, random_state=0).fit(X, Y),
    lambda: RandomForestClassifier(n_estimators=37, max_depth=4, random_state=0).fit(XC, np.arange(40) % 3),
])
def test_learner_predictions_copied_in_tiles_of_rows_are_each_trees_prediction(make, monkeypatch):
    # each chunk of trees is copied into the object-major cache in tiles of rows (issue 37, item 6):
    # tiles of 1 row, of a few rows with a shorter last tile, and one tile, in float64 and float32
    import predstab.ensembles._forest as forest_module

    forest = make()
    rows = np.random.default_rng(2).normal(size=(301, X.shape[1]))
    expected = per_tree(forest, rows.astype(np.float32))
    for tile_bytes in (1, 3 * 8 * 3 * 7, 2**30):  # 3 trees of up to 3 classes a chunk: tiles of 7 rows
        monkeypatch.setattr(forest_module, "_TILE_BYTES", tile_bytes)
        for dtype in (np.float64, np.float32):
            got = learner_predictions(forest, rows, dtype=dtype, n_jobs=2, chunk_bytes=3 * 301 * 8 * 3)
            np.testing.assert_array_equal(got, expected.astype(dtype))


def test_fresh_array_of_its_own_mapping_is_an_ordinary_writable_array():
    # the prediction cache from a mapping of its own (4 kB pages on Linux; issue 37, item 6):
    # writable, C-ordered, the requested dtype and shape, kept alive by its views, pickled by value
    import pickle
    import sys

    from predstab.ensembles._forest import fresh_array

    for small_pages_from in (0, 2**40):  # a mapping of its own (on Linux) / np.empty
        a = fresh_array((300, 7, 2), np.float32, small_pages_from=small_pages_from)
        assert (a.shape, a.dtype) == ((300, 7, 2), np.float32)
        assert a.flags.c_contiguous and a.flags.writeable
        own = small_pages_from == 0 and sys.platform.startswith("linux")
        assert (a.base is not None) == own
        a[...] = np.arange(a.size, dtype=np.float32).reshape(a.shape)
        view = a[10:12]
        del a
        np.testing.assert_array_equal(view, np.arange(140, 168, dtype=np.float32).reshape(2, 7, 2))
        copy = pickle.loads(pickle.dumps(view))
        np.testing.assert_array_equal(copy, view)
        assert copy.flags.writeable


# ----------------------------------------------------------------------------- fit
def test_pool_is_the_sklearn_forest_of_its_seed(tiny_reg):
    seed = seeds(5, 1)[0]
    assert tiny_reg.seed_ == seed
    forest = RandomForestRegressor(max_features=2, n_estimators=12, random_state=seed).fit(X[:30], Y[:30])
    assert tiny_reg.ensemble_.n_estimators == 12 and tiny_reg.ensemble_.random_state == seed
    np.testing.assert_array_equal(tiny_reg.test_predictions_, per_tree(forest, X[30:]))
    np.testing.assert_array_equal(tiny_reg.train_predictions_, per_tree(forest, X[:30]))
    np.testing.assert_array_equal(tiny_reg.oob_, oob_by_hand(forest, 30))
    np.testing.assert_array_equal(tiny_reg.y_train_, Y[:30])
    assert tiny_reg.classes_ is None and not tiny_reg.is_classifier_ and not tiny_reg.on_train_
    assert tiny_reg.test_predictions_.dtype == np.float64 and tiny_reg.voting_ == "soft"
    # the estimator given is cloned, not fitted
    assert not hasattr(tiny_reg.estimator, "estimators_") and tiny_reg.estimator.n_estimators == 100


def test_classifier_pool_caches_class_probabilities(tiny_clf):
    seed = seeds(2, 1)[0]
    forest = RandomForestClassifier(max_features=2, max_depth=3, n_estimators=10, random_state=seed)
    forest.fit(XC[:30], LABELS[:30])
    assert tiny_clf.is_classifier_ and tiny_clf.classes_.tolist() == ["no",
                                                                      "yes"] and tiny_clf.voting_ == "hard"
    np.testing.assert_array_equal(tiny_clf.test_predictions_, per_tree(forest, XC[30:]))
    np.testing.assert_array_equal(tiny_clf.oob_, oob_by_hand(forest, 30))


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
def test_forests_are_means_of_consecutive_trees(tiny_reg):
    forest = tiny_reg.ensemble_
    trees = per_tree(forest, X[30:])
    for n in (1, 3, 4, 5, 12):
        out = tiny_reg.forests(n)
        assert out.shape == (10, 12 // n)
        expected = np.column_stack([trees[:, k * n:(k + 1) * n].mean(axis=1) for k in range(12 // n)])
        np.testing.assert_allclose(out, expected, rtol=1e-12)
    np.testing.assert_allclose(tiny_reg.forests(12)[:, 0], forest.predict(X[30:]), rtol=1e-12)
    two = tiny_reg.forests(5, n_forests=2)
    np.testing.assert_allclose(two, tiny_reg.forests(5), rtol=0)
    np.testing.assert_allclose(tiny_reg.forests(4, n_forests=1)[:, 0], trees[:, :4].mean(axis=1), rtol=1e-12)
    np.testing.assert_allclose(tiny_reg.forests(6, n_forests=2), tiny_reg.forests(6),
                               rtol=0)  # the whole pool


def test_out_of_bag_forests(tiny_reg):
    trees = per_tree(tiny_reg.ensemble_, X[:30])
    oob = oob_by_hand(tiny_reg.ensemble_, 30)
    out = tiny_reg.forests(3, on="oob")
    for k in range(4):
        keep = oob[:, 3 * k:3 * k + 3]
        votes = trees[:, 3 * k:3 * k + 3]
        with np.errstate(invalid="ignore"):
            expected = np.where(keep.any(axis=1), (votes * keep).sum(axis=1) / keep.sum(axis=1), np.nan)
        np.testing.assert_allclose(out[:, k], expected, rtol=1e-12)
    assert np.isnan(out).any()  # rows in the bag of all three trees of a forest
    # the whole pool out of bag: psi's baseline, by hand from estimators_samples_
    expected = (trees * oob).sum(axis=1) / oob.sum(axis=1)
    np.testing.assert_allclose(tiny_reg.oob_baseline(), expected, rtol=1e-12)
    np.testing.assert_allclose(tiny_reg.forests(12, on="oob")[:, 0], expected, rtol=1e-12)


def test_class_forests_soft_hard_and_out_of_bag(tiny_clf):
    probs = tiny_clf.test_predictions_
    votes = probs.argmax(axis=2)
    hard = tiny_clf.forests(4)  # the pool's voting: hard
    for k in range(2):
        ones = votes[:, 4 * k:4 * k + 4].sum(axis=1)
        np.testing.assert_array_equal(hard[:, k], np.where(ones > 2, "yes", "no"))  # 2-2 ties: "no"
    assert hard.dtype == object
    soft = tiny_clf.forests(4, voting="soft")
    for k in range(2):
        mean = probs[:, 4 * k:4 * k + 4].mean(axis=1)
        np.testing.assert_array_equal(soft[:, k], tiny_clf.classes_[mean.argmax(axis=1)])
    forest = tiny_clf.ensemble_
    np.testing.assert_array_equal(tiny_clf.forests(10, voting="soft")[:, 0], forest.predict(XC[30:]))
    # out of bag: votes of the trees that did not see the row, None where none did
    train = per_tree(forest, XC[:30]).argmax(axis=2)
    oob = oob_by_hand(forest, 30)
    out = tiny_clf.forests(2, on="oob")
    for k in range(5):
        keep, v = oob[:, 2 * k:2 * k + 2], train[:, 2 * k:2 * k + 2]
        ones, n = (v * keep).sum(axis=1), keep.sum(axis=1)
        expected = np.where(n == 0, None, np.where(2 * ones > n, "yes", "no")).astype(object)
        assert out[:, k].tolist() == expected.tolist()
    assert any(v is None for v in out.ravel())
    ones, n = (train * oob).sum(axis=1), oob.sum(axis=1)
    baseline = tiny_clf.oob_baseline()
    assert baseline.tolist() == np.where(n == 0, None, np.where(2 * ones > n, "yes", "no")).tolist()
    assert None in baseline.tolist()  # a row in the bag of every tree
    soft_base = tiny_clf.oob_baseline(voting="soft")
    p = per_tree(forest, XC[:30])
    mean = (p * oob[..., None]).sum(axis=1)
    assert soft_base.tolist() == np.where(n == 0, None, tiny_clf.classes_[mean.argmax(axis=1)]).tolist()


def test_forests_bad_sizes(tiny_reg):
    with pytest.raises(ValueError, match="pool size 12.*at least 15 learners"):
        tiny_reg.forests(5, n_forests=3)
    with pytest.raises(ValueError, match="pool size 12.*at least 26 learners"):
        tiny_reg.forests(13)
    for kwargs, name in (({"n": 0}, "n"), ({"n": 2.0}, "n"), ({"n": 2, "n_forests": 0}, "n_forests"),
                         ({"n": 2, "on": "train"}, "on"), ({"n": 2, "voting": "majority"}, "voting")):
        with pytest.raises(InvalidParameterError, match=f"`{name}`"):
            tiny_reg.forests(**kwargs)
    with pytest.raises(InvalidParameterError, match="`voting`"):
        tiny_reg.oob_baseline(voting="mean")


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


# --- issue 35, item 7: a short repr and an R-style block, as every result has -----------------

def test_pool_repr_and_str_say_what_it_holds():
    from sklearn.ensemble import RandomForestClassifier

    rng = np.random.default_rng(7)
    X, y = rng.normal(size=(60, 3)), np.repeat(["a", "b", "c"], 20)
    pool = TreePool(RandomForestClassifier(), n_learners=12, random_state=0)
    assert repr(pool) == "TreePool(source='RandomForestClassifier', n_learners=12, fitted=False)"
    pool.fit(X[:45], y[:45], X[45:])
    assert repr(pool) == ("TreePool(source='RandomForestClassifier', n_learners=12, task='classification "
                          "(3 classes)', n_test_objects=15, n_train_objects=45, out_of_bag=True, "
                          "observed_y=True, voting='soft')")
    assert str(pool).splitlines()[:4] == [" Pool of trees", "", "  source = RandomForestClassifier",
                                          "  n_learners = 12"]
    members = TreePool.from_predictions(rng.normal(size=(30, 5)))
    assert repr(members) == ("TreePool(source='member predictions', n_learners=5, task='regression', "
                             "n_test_objects=30, n_train_objects=None, out_of_bag=False, observed_y=False)")
    assert str(members).splitlines()[0] == " Pool of members" and "  n_test_objects = 30" in str(members)
    assert len(repr(pool)) < 300 and "0x" not in repr(members)


@pytest.mark.parametrize("model", [RandomForestClassifier(n_estimators=4), BaggingRegressor(n_estimators=4),
                                   RandomForestRegressor(n_estimators=4)])
def test_several_responses_are_refused_by_name_before_fitting(model):
    # a y of two columns (or one column in a 2-D array) is refused by name by TreePool.fit and
    # tune_num_learners, as repeated_predictions does; it reached numpy's "inhomogeneous shape" (a
    # forest's 2-D classes_) or "cannot reshape array of size 60 into shape (30,)" (a Bagging
    # ensemble, which has no n_outputs_) until 2026-12-08
    from predstab import tune_num_learners

    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    two = np.column_stack([X[:, 0] > 0, X[:, 1] > 0]).astype(int)
    one_column = r"\(30, 1\) \(one column: pass its values, y.ravel\(\) or the column as a Series\)\.$"
    for y, said in ((two, r"\(30, 2\)\.$"), (two[:, :1], one_column)):
        message = r"^`y` must be one-dimensional \(one response per training row\); got shape " + said
        with pytest.raises(ValueError, match=message):
            TreePool(model).fit(X, y, X)
        with pytest.raises(ValueError, match=message):
            tune_num_learners(model, X, y, X, grid=[2, 4, 8])
