"""TreePool.from_members' pass-through of classes and y, and the pool's progress steps
(value-pinning checks written for surviving mutants of ensembles/_pool.py)."""

import numpy as np
import pytest
from sklearn.datasets import make_classification, make_regression
from sklearn.ensemble import BaggingRegressor, RandomForestRegressor
from sklearn.linear_model import LogisticRegression
from sklearn.tree import DecisionTreeRegressor

from predstab import TreePool


def test_from_members_aligns_probabilities_on_the_given_classes_and_keeps_y():
    X, y = make_classification(90, 4, n_informative=3, n_redundant=0, n_classes=3, random_state=0)
    members = [LogisticRegression(C=c).fit(X[:60], y[:60]) for c in (0.1, 1.0, 10.0)]
    pool = TreePool.from_members(members, X[60:], classes=[2, 1, 0], y=y[:60])
    assert pool.classes_.tolist() == [2, 1, 0]
    for j, m in enumerate(members):
        expected = m.predict_proba(X[60:])[:, ::-1]
        np.testing.assert_allclose(pool.test_predictions_[:, j, :], expected, rtol=1e-12)
    np.testing.assert_array_equal(pool.y_train_, y[:60])
    default = TreePool.from_members(members, X[60:])
    assert default.classes_.tolist() == [0, 1, 2]


def _calls(estimator, n):
    X, y = make_regression(40, 3, random_state=0)
    seen = []
    pool = TreePool(estimator, n_learners=n, random_state=0)
    pool.fit(X[:30], y[:30], X[30:], progress=lambda done, total: seen.append((done, total)))
    return seen[:seen.index((n, n)) + 1]  # the fitting step (the predictions' step follows)


def test_a_forest_grows_in_twenty_warm_started_steps_that_tick_the_progress():
    seen = _calls(RandomForestRegressor(max_depth=2), 40)
    assert seen == [(k, 40) for k in range(2, 41, 2)]
    assert _calls(RandomForestRegressor(max_depth=2), 7) == [(k, 7) for k in range(1, 8)]


def test_a_warm_started_forest_and_bagging_are_fitted_in_one_step():
    # the user's warm_start=True forest and Bagging (its out-of-bag seeds) are fitted at once
    assert _calls(RandomForestRegressor(max_depth=2, warm_start=True), 40) == [(40, 40)]
    assert _calls(BaggingRegressor(DecisionTreeRegressor(max_depth=2)), 12) == [(12, 12)]


def test_from_members_names_a_class_missing_from_classes():
    X, y = make_classification(60, 4, n_informative=3, n_redundant=0, n_classes=3, random_state=0)
    members = [LogisticRegression(C=c).fit(X[:40], y[:40]) for c in (0.1, 1.0)]
    with pytest.raises(ValueError, match=r"^`classes` must contain every class of the members; member 0 has "
                                         r"\[0, 1, 2\], `classes` \[0, 1\]\.$"):
        TreePool.from_members(members, X[40:], classes=[0, 1])


def _fails(seed):
    raise ValueError(f"no data for {seed}")


def test_a_failing_fit_predict_is_named_with_its_seed():
    seed = int(np.random.default_rng(3).integers(0, 2**31 - 1, size=4)[0])
    with pytest.raises(ValueError, match=rf"^_fails failed for seed {seed} \(repetition 0\): ValueError: "
                                         rf"no data for {seed}$"):
        TreePool.from_fit_predict(_fails, 4, random_state=3)


def test_from_members_predicts_with_n_jobs_threads(monkeypatch):
    from predstab.ensembles import _members

    seen = []
    parallel = _members.Parallel

    def spy(*args, **kwargs):
        seen.append((kwargs.get("n_jobs"), kwargs.get("prefer")))
        return parallel(*args, **kwargs)

    X, y = make_regression(50, 3, random_state=1)
    members = [DecisionTreeRegressor(max_depth=d, random_state=0).fit(X[:40], y[:40]) for d in (1, 2, 3)]
    monkeypatch.setattr(_members, "Parallel", spy)
    pool = TreePool.from_members(members, X[40:], n_jobs=2)
    assert seen == [(2, "threads")]
    expected = np.column_stack([m.predict(X[40:]) for m in members])
    np.testing.assert_array_equal(pool.test_predictions_, expected)


class _FailingCall:  # a callable object without __name__
    def __call__(self, seed):
        raise ValueError("broken")


def test_a_failing_callable_object_is_named_by_its_class():
    with pytest.raises(ValueError, match=r"^_FailingCall failed for seed \d+ \(repetition 0\): ValueError: "
                                         r"broken$"):
        TreePool.from_fit_predict(_FailingCall(), 3, random_state=0)


@pytest.mark.parametrize("oob", [True, False])
def test_the_predictions_step_ticks_training_rows_then_test_rows(oob):
    # with out-of-bag rows the pool predicts the 30 training rows, then the 10 test objects: one
    # step of 2 x 6 learner passes; without them only the test objects (6 passes)
    X, y = make_regression(40, 3, random_state=0)
    seen = []
    TreePool(RandomForestRegressor(max_depth=2), n_learners=6, random_state=0).fit(
        X[:30], y[:30], X[30:], oob=oob, progress=lambda done, total: seen.append((done, total)))
    passes = 2 if oob else 1
    assert seen == [(k, 6) for k in range(1, 7)] + [(k, 6 * passes) for k in range(1, 6 * passes + 1)]


def test_test_data_of_other_ensembles_is_validated_as_their_predict_does():
    from scipy import sparse

    X, y = make_regression(40, 3, random_state=0)

    def pool(X_train, X_test):
        bagging = BaggingRegressor(DecisionTreeRegressor(max_depth=2))
        return TreePool(bagging, n_learners=4, random_state=0).fit(X_train, y[:30], X_test)

    dense = pool(X[:30], X[30:])
    csr = pool(sparse.csr_matrix(X[:30]), sparse.csr_matrix(X[30:]))  # sparse rows, as Bagging accepts them
    csc = pool(X[:30], sparse.csc_matrix(X[30:]))
    np.testing.assert_allclose(csr.test_predictions_, dense.test_predictions_, rtol=1e-6)
    np.testing.assert_allclose(csc.test_predictions_, dense.test_predictions_, rtol=1e-6)
    expected = np.stack([m.predict(X[30:][:, f]) for m, f in zip(dense.ensemble_.estimators_,
                                                                 dense.ensemble_.estimators_features_,
                                                                 strict=True)], axis=1)
    np.testing.assert_allclose(dense.test_predictions_, expected, rtol=1e-6)
    with pytest.raises(ValueError) as info:
        pool(X[:30], X[30:, :2])
    assert str(info.value) == ("`X_test` does not match the training data `X`: X has 2 features, but "
                               "BaggingRegressor is expecting 3 features as input.")


def test_closed_forms_without_a_baseline_say_what_to_pass():
    rng = np.random.default_rng(0)
    pool = TreePool.from_predictions(rng.normal(size=(10, 6)))  # no y, no out-of-bag rows
    with pytest.raises(ValueError) as info:
        pool.closed_form([2], measure="phi")
    assert str(info.value) == ("`measure`='phi' needs `baseline` (the training observations): this pool has "
                               "none; pass `baseline`, or `y` to from_predictions.")
    with pytest.raises(ValueError) as info:
        pool.closed_form([2], measure="psi")
    assert str(info.value) == ("`measure`='psi' needs `baseline` (the prediction space): this pool has no "
                               "out-of-bag rows; pass `baseline`, or `oob` to from_predictions.")


def test_from_members_passes_random_state_to_the_pool():
    # the closed forms' orderings and resamples follow the pool's seed: two pools of the same
    # members and seed give the same bands, and the ones of another seed differ
    X, y = make_regression(50, 3, random_state=1)
    members = [DecisionTreeRegressor(max_depth=d, random_state=s).fit(X[:40], y[:40])
               for d in (1, 2, 3) for s in (0, 1)]

    def bands(seed):
        pool = TreePool.from_members(members, X[40:], random_state=seed)
        res = pool.closed_form([1, 2], measure="icc", n_resamples=30)
        return np.concatenate([res.low, res.high])

    np.testing.assert_array_equal(bands(5), bands(5))
    assert not np.array_equal(bands(5), bands(6))
