"""Per-tree machinery of bagging ensembles, checked against scikit-learn's own predictions."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.ensemble import (
    BaggingClassifier,
    BaggingRegressor,
    ExtraTreesClassifier,
    ExtraTreesRegressor,
    GradientBoostingRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)
from sklearn.linear_model import LinearRegression
from sklearn.neighbors import KNeighborsClassifier
from sklearn.svm import SVC

from predstab import PredstabDataWarning
from predstab.ensembles._forest import (
    aggregate,
    inbag_mask,
    is_bagging_ensemble,
    oob_predict,
    tree_predictions,
)


@pytest.fixture(scope="module")
def reg_data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 4))
    y = X[:, 0] + 0.5 * X[:, 1] ** 2 + rng.normal(scale=0.3, size=60)
    return X, y


@pytest.fixture(scope="module")
def clf_data():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(80, 4))
    score = X[:, 0] + 0.7 * X[:, 1] + rng.normal(scale=0.8, size=80)
    y = np.where(score < -0.5, "low", np.where(score < 0.6, "mid", "high"))
    return X, y


REGRESSORS = [
    RandomForestRegressor(n_estimators=15, oob_score=True, random_state=3),
    ExtraTreesRegressor(n_estimators=15, bootstrap=True, oob_score=True, random_state=3),
    BaggingRegressor(n_estimators=15, oob_score=True, random_state=3),
    BaggingRegressor(LinearRegression(), n_estimators=15, max_features=0.5, oob_score=True,
                     random_state=3),
]
CLASSIFIERS = [
    RandomForestClassifier(n_estimators=15, oob_score=True, random_state=3),
    ExtraTreesClassifier(n_estimators=15, bootstrap=True, oob_score=True, random_state=3),
    BaggingClassifier(n_estimators=15, oob_score=True, random_state=3),
    BaggingClassifier(KNeighborsClassifier(3), n_estimators=15, max_features=0.5, oob_score=True,
                      random_state=3),
    # no predict_proba: scikit-learn votes with the learners' predictions
    BaggingClassifier(SVC(), n_estimators=15, oob_score=True, random_state=3),
]


def _name(est):
    return type(est).__name__ + "-" + type(getattr(est, "estimator", None)).__name__


@pytest.mark.parametrize("est", REGRESSORS, ids=_name)
def test_regressor_matches_sklearn(est, reg_data):
    X, y = reg_data
    est.fit(X, y)
    per_tree = tree_predictions(est, X[:10])
    assert per_tree.shape == (15, 10)
    np.testing.assert_allclose(aggregate(per_tree), est.predict(X[:10]), rtol=1e-12)
    oob = oob_predict(est, X)
    defined = np.isfinite(oob)
    assert defined.sum() >= 55  # 15 bootstrap draws: almost every object is out of bag once
    np.testing.assert_allclose(oob[defined], est.oob_prediction_[defined], rtol=1e-12)


@pytest.mark.parametrize("est", CLASSIFIERS, ids=_name)
def test_classifier_matches_sklearn(est, clf_data):
    X, y = clf_data
    est.fit(X, y)
    per_tree = tree_predictions(est, X)
    assert per_tree.shape == (15, 80, 3)
    soft = aggregate(per_tree, classes=est.classes_)
    np.testing.assert_array_equal(soft, est.predict(X))
    np.testing.assert_allclose(per_tree.mean(axis=0), est.predict_proba(X), rtol=1e-12, atol=1e-15)

    oob_mask = ~inbag_mask(est, len(y))
    defined = oob_mask.any(axis=0)
    expected_index = est.oob_decision_function_.argmax(axis=1)
    got_index = aggregate(per_tree, oob_mask, voting="soft")
    np.testing.assert_array_equal(got_index[defined], expected_index[defined])
    assert (got_index[~defined] == -1).all()
    # the mean out-of-bag probability itself, not only its argmax
    mean_proba = np.einsum("ts,tsc->sc", oob_mask, per_tree)[defined] / oob_mask.sum(0)[defined, None]
    np.testing.assert_allclose(mean_proba, est.oob_decision_function_[defined], rtol=1e-12, atol=1e-15)


def test_inbag_mask_matches_unsampled_objects(reg_data):
    # oob_score=False: the mask still comes from estimators_samples_
    X, y = reg_data
    rf = RandomForestRegressor(n_estimators=8, random_state=0).fit(X, y)
    mask = inbag_mask(rf, len(y))
    assert mask.dtype == bool and mask.shape == (8, 60)
    for t, idx in enumerate(rf.estimators_samples_):
        assert set(np.flatnonzero(mask[t])) == set(np.asarray(idx).tolist())
    # a bootstrap sample of 60 leaves about 1/e of the objects out
    assert 0.2 < (~mask).mean() < 0.5


@pytest.mark.parametrize("kind", ["regressor", "max_samples", "classifier", "extra_trees", "weighted",
                                  "bagging"])
def test_inbag_mask_is_the_forests_own_estimators_samples(kind, reg_data, monkeypatch):
    """Issue 37, item 6: a bootstrapped forest's rows are redrawn by reseeding one RandomState
    (scikit-learn builds one per tree, 0.4 ms each); the mask is the one of its own
    ``estimators_samples_`` (the property is called only where the forest has sample weights
    or is not a forest), and scikit-learn's per-tree draw is not called for a plain forest."""
    from sklearn.ensemble import _forest as sk_forest

    X, y = reg_data
    model, weights = {
        "regressor": (RandomForestRegressor(n_estimators=25, random_state=3), None),
        "max_samples": (RandomForestRegressor(n_estimators=25, max_samples=0.4, random_state=4), None),
        "classifier": (RandomForestClassifier(n_estimators=25, random_state=5), None),
        "extra_trees": (ExtraTreesRegressor(n_estimators=25, bootstrap=True, random_state=6), None),
        "weighted": (RandomForestRegressor(n_estimators=25, random_state=7), np.linspace(0.5, 2.0, len(y))),
        "bagging": (BaggingRegressor(n_estimators=25, random_state=8), None),
    }[kind]
    target = (y > np.median(y)).astype(int) if kind == "classifier" else y
    model.fit(X, target, sample_weight=weights)
    expected = np.zeros((25, len(y)), dtype=bool)
    for t, idx in enumerate(model.estimators_samples_):
        expected[t, np.asarray(idx)] = True
    draws = []
    original = sk_forest._generate_sample_indices
    monkeypatch.setattr(sk_forest, "_generate_sample_indices",
                        lambda *a, **k: draws.append(1) or original(*a, **k))
    np.testing.assert_array_equal(inbag_mask(model, len(y)), expected)
    # the fast path for plain forests, scikit-learn's own property for the others
    assert len(draws) == (25 if kind == "weighted" else 0)
    if kind == "max_samples":
        assert expected.sum(axis=1).max() <= int(0.4 * len(y))


def test_inbag_mask_wrong_n_samples(reg_data):
    X, y = reg_data
    rf = RandomForestRegressor(n_estimators=3, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="`n_samples`"):
        inbag_mask(rf, 59)


def test_hard_voting_majority_and_ties():
    # object 0: two trees say class 1 (prob .6), one says class 0 strongly
    p = np.array([
        [[0.4, 0.6, 0.0], [0.5, 0.5, 0.0]],
        [[0.4, 0.6, 0.0], [0.0, 0.0, 1.0]],
        [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
    ])
    classes = np.array([10, 20, 30])
    # hard: object 0 -> 20 (2 votes), object 1 -> tie 10/20/30 one vote each -> first class (10)
    np.testing.assert_array_equal(aggregate(p, voting="hard", classes=classes), [20, 10])
    # soft: object 0 mean (.6, .4, 0) -> 10
    np.testing.assert_array_equal(aggregate(p, voting="soft", classes=classes)[0], 10)


def test_hard_voting_mask_per_object():
    p = np.array([[[1.0, 0.0]], [[0.0, 1.0]], [[0.0, 1.0]]])
    mask = np.array([[True], [False], [False]])
    assert aggregate(p, mask, voting="hard").tolist() == [0]
    assert aggregate(p, voting="hard").tolist() == [1]


def test_tree_subset_1d_mask(reg_data):
    X, y = reg_data
    rf = RandomForestRegressor(n_estimators=10, random_state=0).fit(X, y)
    per_tree = tree_predictions(rf, X)
    first = np.zeros(10, dtype=bool)
    first[:4] = True
    np.testing.assert_allclose(aggregate(per_tree, first), per_tree[:4].mean(axis=0), rtol=1e-14)


def test_objects_never_out_of_bag_are_missing(clf_data):
    X, y = clf_data
    rf = RandomForestClassifier(n_estimators=2, random_state=0).fit(X, y)
    with pytest.warns(PredstabDataWarning, match="in the bag of every learner"):
        oob = oob_predict(rf, X)
    never = inbag_mask(rf, len(y)).all(axis=0)
    assert never.any()
    assert oob.dtype == object
    assert all(v is None for v in oob[never])
    assert all(v in {"low", "mid", "high"} for v in oob[~never])

    reg = RandomForestRegressor(n_estimators=2, random_state=0).fit(X, np.arange(80.0))
    with pytest.warns(PredstabDataWarning):
        oob = oob_predict(reg, X)
    assert np.isnan(oob[inbag_mask(reg, 80).all(axis=0)]).all()


def test_float_labels_missing_as_nan():
    p = np.array([[[1.0, 0.0]], [[0.0, 1.0]]])
    out = aggregate(p, np.array([[False], [False]]), classes=np.array([1.5, 2.5]))
    assert out.dtype.kind == "f" and np.isnan(out[0])


def test_is_bagging_ensemble():
    assert is_bagging_ensemble(RandomForestRegressor())
    assert not is_bagging_ensemble(RandomForestRegressor(bootstrap=False))
    assert is_bagging_ensemble(ExtraTreesClassifier(bootstrap=True))
    assert not is_bagging_ensemble(ExtraTreesClassifier())
    assert is_bagging_ensemble(BaggingRegressor())
    assert not is_bagging_ensemble(BaggingRegressor(bootstrap=False))
    assert is_bagging_ensemble(BaggingRegressor(bootstrap=False, max_samples=0.5))
    assert not is_bagging_ensemble(GradientBoostingRegressor(subsample=0.5))
    assert not is_bagging_ensemble(LinearRegression())


def test_errors(reg_data):
    X, y = reg_data
    with pytest.raises(TypeError, match="`forest`"):
        tree_predictions(LinearRegression().fit(X, y), X)
    with pytest.raises(ValueError, match="`forest` has no out-of-bag"):
        oob_predict(RandomForestRegressor(n_estimators=2, bootstrap=False).fit(X, y), X)
    with pytest.raises(ValueError, match="`voting`"):
        aggregate(np.zeros((2, 3, 2)), voting="majority")
    with pytest.raises(ValueError, match="`tree_mask`"):
        aggregate(np.zeros((2, 3)), np.ones((3,), dtype=bool))
    with pytest.raises(TypeError, match="`tree_mask`"):
        aggregate(np.zeros((2, 3)), np.ones((2,)))
    with pytest.raises(ValueError, match="`per_tree`"):
        aggregate(np.zeros(3))
    with pytest.raises(ValueError, match="`classes`"):
        aggregate(np.zeros((2, 3, 2)), classes=["a"])
    with pytest.raises(ValueError, match="single output"):
        tree_predictions(RandomForestRegressor(n_estimators=2).fit(X, np.c_[y, y]), X)



@settings(max_examples=40, deadline=None)
@given(st.integers(1, 6), st.integers(1, 5), st.integers(2, 4), st.data())
def test_aggregate_properties(n_trees, n_samples, n_classes, data):
    raw = data.draw(arrays(np.float64, (n_trees, n_samples, n_classes), elements=st.floats(0.01, 1.0)))
    proba = raw / raw.sum(axis=2, keepdims=True)
    mask = data.draw(arrays(bool, (n_trees, n_samples)))
    perm = data.draw(st.permutations(range(n_trees)))
    for voting in ("soft", "hard"):
        got = aggregate(proba, mask, voting=voting)
        # objects without a tree are -1; the others get a valid class index
        assert ((got == -1) == ~mask.any(axis=0)).all()
        assert ((got >= 0) | ~mask.any(axis=0)).all() and (got < n_classes).all()
        # the order of the trees does not matter for hard votes (integer counts)
        if voting == "hard":
            np.testing.assert_array_equal(aggregate(proba[perm], mask[perm], voting=voting), got)
        # a per-object mask that selects every tree is the same as no mask
        np.testing.assert_array_equal(aggregate(proba, np.ones_like(mask), voting=voting),
                                      aggregate(proba, voting=voting))
    # regression: the masked mean is the mean of the selected trees, object by object
    values = proba[:, :, 0]
    mean = aggregate(values, mask)
    for j in range(n_samples):
        if mask[:, j].any():
            np.testing.assert_allclose(mean[j], values[mask[:, j], j].mean(), rtol=1e-12)
        else:
            assert np.isnan(mean[j])
