"""repeated_predictions: refits, seeds, OOB and K-fold baselines, parallel determinism, errors."""

import warnings

import joblib
import numpy as np
import pytest
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.ensemble import (
    BaggingClassifier,
    BaggingRegressor,
    ExtraTreesRegressor,
    GradientBoostingClassifier,
    GradientBoostingRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)
from sklearn.linear_model import LinearRegression
from sklearn.model_selection import PredefinedSplit
from sklearn.neural_network import MLPClassifier, MLPRegressor
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from predstab import PredstabDataWarning, RepeatedPredictions, repeated_predictions
from predstab._core._utils import seeds_from


@pytest.fixture(scope="module")
def reg():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(70, 4))
    y = X[:, 0] + 0.5 * X[:, 1] ** 2 + rng.normal(scale=0.3, size=70)
    return X[:50], y[:50], X[50:]


@pytest.fixture(scope="module")
def clf():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(80, 4))
    score = X[:, 0] + 0.7 * X[:, 1] + rng.normal(scale=0.8, size=80)
    y = np.where(score < -0.5, "low", np.where(score < 0.6, "mid", "high"))
    return X[:60], y[:60], X[60:]


def test_random_forest_regressor_oob_matches_sklearn(reg):
    X, y, Xt = reg
    rp = repeated_predictions(RandomForestRegressor(n_estimators=12), X, y, Xt, n_repeats=3, random_state=7)
    assert isinstance(rp, RepeatedPredictions)
    assert rp.test.shape == (20, 3) and rp.space.shape == (50, 3)
    assert rp.baseline == "oob" and rp.test.dtype == np.float64
    np.testing.assert_array_equal(rp.seeds, seeds_from(7, 3))
    np.testing.assert_array_equal(rp.y_train, y)
    for r, seed in enumerate(rp.seeds):
        ref = RandomForestRegressor(n_estimators=12, oob_score=True, random_state=int(seed)).fit(X, y)
        np.testing.assert_allclose(rp.test[:, r], ref.predict(Xt), rtol=1e-12)
        defined = np.isfinite(rp.space[:, r])
        np.testing.assert_allclose(rp.space[defined, r], ref.oob_prediction_[defined], rtol=1e-12)
    # refits with different seeds differ
    assert not np.array_equal(rp.test[:, 0], rp.test[:, 1])


def test_random_forest_classifier_soft_and_hard(clf):
    X, y, Xt = clf
    est = RandomForestClassifier(n_estimators=9, min_samples_leaf=6)  # impure leaves: soft != hard
    soft = repeated_predictions(est, X, y, Xt, n_repeats=2, random_state=3)
    hard = repeated_predictions(est, X, y, Xt, n_repeats=2, random_state=3, voting="hard")
    assert set(np.unique(soft.test)) <= {"low", "mid", "high"}
    for r, seed in enumerate(soft.seeds):
        ref = RandomForestClassifier(n_estimators=9, min_samples_leaf=6, oob_score=True,
                                     random_state=int(seed)).fit(X, y)
        np.testing.assert_array_equal(soft.test[:, r], ref.predict(Xt))
        # hard voting: the majority of the trees' own predictions (ties to the first class)
        votes = np.stack([t.predict(Xt.astype(np.float32)) for t in ref.estimators_]).astype(int)
        counts = np.stack([(votes == c).sum(axis=0) for c in range(3)], axis=1)
        np.testing.assert_array_equal(hard.test[:, r], ref.classes_[counts.argmax(axis=1)])
        oob_soft = ref.classes_[ref.oob_decision_function_.argmax(axis=1)]
        defined = np.array([v is not None for v in soft.space[:, r]])
        np.testing.assert_array_equal(soft.space[defined, r].astype(str), oob_soft[defined])
    # with 9 trees the voting rule changes some out-of-bag predictions
    assert (soft.space != hard.space).any()


@pytest.mark.parametrize("est", [
    ExtraTreesRegressor(n_estimators=8, bootstrap=True),
    BaggingRegressor(n_estimators=8),
    make_pipeline(StandardScaler(), RandomForestRegressor(n_estimators=8)),
], ids=["extratrees", "bagging", "pipeline-forest"])
def test_other_bagging_regressors_oob(est, reg):
    X, y, Xt = reg
    rp = repeated_predictions(est, X, y, Xt, n_repeats=2, random_state=0)
    again = repeated_predictions(est, X, y, Xt, n_repeats=2, random_state=0)
    np.testing.assert_array_equal(rp.test, again.test)
    np.testing.assert_array_equal(rp.space, again.space)
    assert np.isfinite(rp.space).mean() > 0.9
    ref = est.set_params(**{k: int(rp.seeds[1]) for k in est.get_params() if k.endswith("random_state")})
    np.testing.assert_allclose(rp.test[:, 1], ref.fit(X, y).predict(Xt), rtol=1e-12)


def test_bagging_classifier_oob(clf):
    X, y, Xt = clf
    rp = repeated_predictions(BaggingClassifier(n_estimators=8), X, y, Xt, n_repeats=2, random_state=0)
    ref = BaggingClassifier(n_estimators=8, random_state=int(rp.seeds[0])).fit(X, y)
    np.testing.assert_array_equal(rp.test[:, 0], ref.predict(Xt))


def test_gradient_boosting_kfold_folds_fixed_seeds_not(reg):
    X, y, Xt = reg
    est = GradientBoostingRegressor(n_estimators=15, subsample=0.5)
    folds = np.arange(50) % 5
    rp = repeated_predictions(est, X, y, Xt, n_repeats=2, baseline="kfold", cv=PredefinedSplit(folds),
                              random_state=11)
    assert rp.baseline == "kfold" and rp.space.shape == (50, 2) and np.isfinite(rp.space).all()
    for r, seed in enumerate(rp.seeds):
        full = GradientBoostingRegressor(n_estimators=15, subsample=0.5, random_state=int(seed)).fit(X, y)
        np.testing.assert_array_equal(rp.test[:, r], full.predict(Xt))
        fold_seeds = seeds_from(int(seed), 5)
        for k in range(5):
            m = GradientBoostingRegressor(n_estimators=15, subsample=0.5, random_state=int(fold_seeds[k]))
            m.fit(X[folds != k], y[folds != k])
            np.testing.assert_array_equal(rp.space[folds == k, r], m.predict(X[folds == k]))
    assert not np.array_equal(rp.space[:, 0], rp.space[:, 1])


def test_kfold_int_cv_classifier_labels(clf):
    X, y, Xt = clf
    rp = repeated_predictions(GradientBoostingClassifier(n_estimators=5, subsample=0.7), X, y, Xt,
                              n_repeats=2, baseline="kfold", cv=3, random_state=2)
    assert rp.space.shape == (60, 2)
    assert set(np.unique(rp.space.astype(str))) <= {"low", "mid", "high"}
    again = repeated_predictions(GradientBoostingClassifier(n_estimators=5, subsample=0.7), X, y, Xt,
                                 n_repeats=2, baseline="kfold", cv=3, random_state=2)
    np.testing.assert_array_equal(rp.space, again.space)


def test_mlp_and_nested_pipeline_random_state(reg, clf):
    X, y, Xt = reg
    pipe = make_pipeline(StandardScaler(), MLPRegressor(hidden_layer_sizes=(5,), max_iter=50))
    with pytest.warns(Warning):  # ConvergenceWarning from the tiny MLP
        rp = repeated_predictions(pipe, X, y, Xt, n_repeats=2, baseline="kfold", cv=2, random_state=4)
    # the nested MLP got the repetition's seed
    ref = make_pipeline(StandardScaler(), MLPRegressor(hidden_layer_sizes=(5,), max_iter=50,
                                                       random_state=int(rp.seeds[0])))
    with pytest.warns(Warning):
        np.testing.assert_array_equal(rp.test[:, 0], ref.fit(X, y).predict(Xt))
    assert not np.array_equal(rp.test[:, 0], rp.test[:, 1])

    Xc, yc, Xct = clf
    with pytest.warns(Warning):
        rc = repeated_predictions(MLPClassifier(hidden_layer_sizes=(4,), max_iter=30), Xc, yc, Xct,
                                  n_repeats=2, baseline="kfold", cv=2, random_state=4)
    assert rc.test.shape == (20, 2) and set(np.unique(rc.test)) <= {"low", "mid", "high"}


def test_predict_proba_binary(clf):
    X, y, Xt = clf
    yb = (y == "high")
    rp = repeated_predictions(RandomForestClassifier(n_estimators=10), X, yb, Xt, n_repeats=2,
                              response="predict_proba", random_state=0)
    ref = RandomForestClassifier(n_estimators=10, random_state=int(rp.seeds[0])).fit(X, yb)
    np.testing.assert_allclose(rp.test[:, 0], ref.predict_proba(Xt)[:, 1], rtol=1e-12)
    assert rp.space.dtype == np.float64
    with pytest.raises(ValueError, match="`response`='predict_proba' is supported for binary"):
        repeated_predictions(RandomForestClassifier(), X, y, Xt, response="predict_proba")


def test_callable_form():
    def fit_predict(seed):
        rng = np.random.default_rng(seed)
        return rng.normal(size=4), rng.normal(size=6)

    rp = repeated_predictions(fit_predict, n_repeats=3, random_state=5, y=np.arange(6.0))
    assert rp.test.shape == (4, 3) and rp.space.shape == (6, 3) and rp.baseline == "oob"
    np.testing.assert_array_equal(rp.test[:, 2], np.random.default_rng(int(rp.seeds[2])).normal(size=4))

    only_test = repeated_predictions(lambda s: (np.full(3, s % 7), None), n_repeats=2, random_state=0)
    assert only_test.space is None and only_test.baseline is None and only_test.y_train is None
    with pytest.raises(ValueError, match="pass `y`"):
        only_test.phi(scale="metric")
    with pytest.raises(ValueError, match="`space` is None"):
        only_test.psi(scale="metric")
    with pytest.raises(TypeError, match="must return a tuple"):
        repeated_predictions(lambda s: np.zeros(3), n_repeats=2, random_state=0)


@pytest.mark.parametrize("backend,n_jobs",
                         [("loky", 2), ("threading", 2), ("multiprocessing", 2), ("loky", 1)])
def test_bit_identical_across_n_jobs_and_backends(backend, n_jobs, clf):
    X, y, Xt = clf
    est = RandomForestClassifier(n_estimators=6)
    serial = repeated_predictions(est, X, y, Xt, n_repeats=3, random_state=9, n_jobs=1)
    with joblib.parallel_config(backend=backend):
        par = repeated_predictions(est, X, y, Xt, n_repeats=3, random_state=9, n_jobs=n_jobs)
    np.testing.assert_array_equal(serial.test, par.test)
    np.testing.assert_array_equal(serial.space, par.space)
    np.testing.assert_array_equal(serial.seeds, par.seeds)


def test_bit_identical_kfold_regression_parallel(reg):
    X, y, Xt = reg
    est = RandomForestRegressor(n_estimators=5, n_jobs=2)  # the forest's own threads too
    a = repeated_predictions(est, X, y, Xt, n_repeats=2, baseline="kfold", cv=3, random_state=1, n_jobs=1)
    b = repeated_predictions(est, X, y, Xt, n_repeats=2, baseline="kfold", cv=3, random_state=1, n_jobs=2)
    assert a.test.tobytes() == b.test.tobytes() and a.space.tobytes() == b.space.tobytes()


def test_progress_callback(reg):
    X, y, Xt = reg
    calls = []
    repeated_predictions(RandomForestRegressor(n_estimators=3), X, y, Xt, n_repeats=2, baseline="kfold",
                         cv=2, random_state=0, progress=lambda done, total: calls.append((done, total)))
    assert calls == [(i, 6) for i in range(1, 7)]


class _FailsForOneSeed(RegressorMixin, BaseEstimator):
    def __init__(self, random_state=None, bad_seed=None):
        self.random_state = random_state
        self.bad_seed = bad_seed

    def fit(self, X, y):
        if self.random_state == self.bad_seed:
            raise ArithmeticError("singular matrix")
        self.mean_ = float(np.mean(y))
        return self

    def predict(self, X):
        return np.full(len(X), self.mean_)


def test_failing_refit_names_seed(reg):
    X, y, Xt = reg
    bad = int(seeds_from(3, 2)[1])
    with pytest.raises(RuntimeError, match=rf"seed {bad} \(repetition 1\): ArithmeticError: singular matrix"):
        repeated_predictions(_FailsForOneSeed(bad_seed=bad), X, y, Xt, n_repeats=2, baseline=None,
                             random_state=3)


def test_errors(reg):
    X, y, Xt = reg
    with pytest.raises(ValueError, match="bagging ensemble.*baseline='kfold'"):
        repeated_predictions(GradientBoostingRegressor(), X, y, Xt)
    with pytest.raises(ValueError, match="`baseline`"):
        repeated_predictions(RandomForestRegressor(), X, y, Xt, baseline="bootstrap")
    with pytest.raises(ValueError, match="`n_repeats`"):
        repeated_predictions(RandomForestRegressor(), X, y, Xt, n_repeats=1)
    with pytest.raises(ValueError, match="`voting`"):
        repeated_predictions(RandomForestRegressor(), X, y, Xt, voting="majority")
    with pytest.raises(ValueError, match="`response`"):
        repeated_predictions(RandomForestRegressor(), X, y, Xt, response="decision_function")
    with pytest.raises(ValueError, match="`cv`"):
        repeated_predictions(LinearRegression(), X, y, Xt, baseline="kfold", cv=1)
    with pytest.raises(TypeError, match="`cv`"):
        repeated_predictions(LinearRegression(), X, y, Xt, baseline="kfold", cv=2.5)
    with pytest.raises(TypeError, match="`estimator`"):
        repeated_predictions("forest", X, y, Xt)
    with pytest.raises(ValueError, match="`X`, `y` and `X_test` are required"):
        repeated_predictions(RandomForestRegressor(), X, y)
    with pytest.raises(ValueError, match="`y` must be one-dimensional"):
        repeated_predictions(RandomForestRegressor(), X, np.c_[y, y], Xt)
    with pytest.raises(ValueError, match="missing"):
        repeated_predictions(RandomForestRegressor(), X, np.r_[np.nan, y[1:]], Xt)
    with pytest.raises(TypeError, match="`progress`"):
        repeated_predictions(RandomForestRegressor(), X, y, Xt, progress=3)


def test_no_random_state_warns(reg):
    X, y, Xt = reg
    with pytest.warns(PredstabDataWarning, match="no `random_state`"):
        rp = repeated_predictions(LinearRegression(), X, y, Xt, n_repeats=2, baseline="kfold", cv=2)
    np.testing.assert_array_equal(rp.test[:, 0], rp.test[:, 1])


def test_never_out_of_bag_warns(reg):
    X, y, Xt = reg
    with pytest.warns(PredstabDataWarning, match="no oob prediction in any repetition"):
        rp = repeated_predictions(RandomForestRegressor(n_estimators=1), X, y, Xt, n_repeats=2,
                                  random_state=0)
    assert np.isnan(rp.space).any()


def test_phi_psi_methods(reg, clf):
    import predstab

    X, y, Xt = reg
    rp = repeated_predictions(RandomForestRegressor(n_estimators=10), X, y, Xt, n_repeats=5, random_state=0)
    phi = rp.phi()
    assert phi.kind == "phi" and phi.value == predstab.phi(rp.test, y).value
    assert 0 < phi.value < 1
    with pytest.warns(PredstabDataWarning):  # 10 trees: some training objects never out of bag
        psi = rp.psi(scale="metric")
    with pytest.warns(PredstabDataWarning):
        assert psi.value == predstab.psi(rp.test, rp.space, scale="metric").value

    Xc, yc, Xct = clf
    levels = ["low", "mid", "high"]
    rc = repeated_predictions(RandomForestClassifier(n_estimators=30), Xc, yc, Xct, n_repeats=5,
                              baseline="kfold", cv=3, random_state=0)
    ordinal = rc.psi(scale="ordinal", categories=levels)
    assert ordinal.scale == "ordinal" and ordinal.value == predstab.psi(
        rc.test, rc.space, scale="ordinal", categories=levels).value
    assert rc.phi(scale="categorical").value == predstab.phi(rc.test, yc, scale="categorical").value


def test_to_frame_is_one_row_and_long_frame_the_matrices(reg):
    X, y, Xt = reg
    rp = repeated_predictions(RandomForestRegressor(n_estimators=5), X, y, Xt, n_repeats=2, random_state=0)
    summary = rp.to_frame()
    assert summary.to_dict("records") == [{"baseline": "oob", "n_test": 20, "n_train": 50, "n_repeats": 2}]
    assert len(repr(rp)) < 300 and "array" not in repr(rp)
    assert rp == rp and rp == repeated_predictions(RandomForestRegressor(n_estimators=5), X, y, Xt,
                                                   n_repeats=2, random_state=0)
    assert rp != repeated_predictions(RandomForestRegressor(n_estimators=5), X, y, Xt, n_repeats=2,
                                      random_state=1)
    frame = rp.long_frame()
    assert len(frame) == 20 * 2 + 50 * 2
    test = frame[frame["matrix"] == "test"]
    np.testing.assert_array_equal(test["prediction"].to_numpy(), rp.test.reshape(-1))
    row = frame[(frame["matrix"] == "space") & (frame["object"] == 7) & (frame["repetition"] == 1)]
    np.testing.assert_array_equal(row["prediction"].to_numpy(), rp.space[7, 1])
    assert (row["seed"] == rp.seeds[1]).all()


# ------------------------------------------------------------------ issue 13, item 18
def _classifier_refits():
    from sklearn.ensemble import RandomForestClassifier

    rng = np.random.default_rng(4)
    X = rng.normal(size=(70, 4))
    y = np.digitize(X[:, 0] + rng.normal(scale=0.7, size=70), [-0.5, 0.5])  # integer classes 0, 1, 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PredstabDataWarning)
        return repeated_predictions(RandomForestClassifier(n_estimators=15), X[:50], y[:50], X[50:],
                                    n_repeats=5, random_state=1)


def test_a_classifiers_refits_default_to_the_categorical_scale():
    from predstab import phi, psi

    rp = _classifier_refits()
    np.testing.assert_array_equal(rp.classes, [0, 1, 2])
    # the plain functions cannot tell integer classes from counts: they ask for the scale ...
    with pytest.raises(ValueError, match="`scale`"):
        phi(rp.test, rp.y_train)
    # ... the refits know they came from a classifier
    assert rp.phi() == phi(rp.test, rp.y_train, scale="categorical")
    assert rp.psi() == psi(rp.test, rp.space, scale="categorical")
    assert rp.phi().scale == "categorical"
    # ordinal: the estimator's classes as the ordered levels, unless levels are given
    assert rp.phi(scale="ordinal") == phi(rp.test, rp.y_train, scale="ordinal", categories=[0, 1, 2])
    assert rp.psi(scale="ordinal") == psi(rp.test, rp.space, scale="ordinal", categories=[0, 1, 2])
    assert rp.phi(categories=[2, 0, 1]) == phi(rp.test, rp.y_train, scale="ordinal", categories=[2, 0, 1])
    assert rp.phi(categories=[2, 0, 1]).value != rp.phi(scale="ordinal").value
    # the categorical and the ordinal scale give different numbers here
    assert rp.phi().value != rp.phi(scale="ordinal").value


def test_regressor_and_probability_refits_keep_the_functions_defaults():
    from sklearn.ensemble import RandomForestRegressor

    from predstab import phi

    rng = np.random.default_rng(4)
    X = rng.normal(size=(40, 3))
    y = np.round(X[:, 0] * 3)  # integer-valued responses of a regressor: no class default
    rp = repeated_predictions(RandomForestRegressor(n_estimators=5), X[:30], y[:30], X[30:], n_repeats=5,
                              random_state=0)
    assert rp.classes is None
    assert rp.phi() == phi(rp.test, rp.y_train)
