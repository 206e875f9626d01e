"""repeated_predictions: refits, seeds, out-of-bag and K-fold baselines, callables, parallel
determinism, errors, and the RepeatedPredictions result (its frames, phi and psi).

Independent computations: every refit is compared with an estimator built here with
``random_state`` set to the seed derived as documented; out-of-bag predictions are recomputed
from ``estimators_`` and ``estimators_samples_``, K-fold ones with
``sklearn.model_selection.cross_val_predict`` (for an estimator that ignores its seed) or one
refit per fold written out. Tiny data (30 training rows, 6 test rows, 2-4 trees) for most of them.
"""

import warnings

import joblib
import numpy as np
import pandas as pd
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
from sklearn.model_selection import KFold, PredefinedSplit, StratifiedKFold, cross_val_predict
from sklearn.naive_bayes import GaussianNB
from sklearn.neural_network import MLPClassifier, MLPRegressor
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

import predstab
from predstab import PredstabDataWarning, RepeatedPredictions, repeated_predictions
from predstab._core._utils import seeds_from
from predstab.ensembles._repeated import with_seed


@pytest.fixture(scope="module")
def regression_data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(70, 4))
    y = X[:, 0] + 0.5 * X[:, 1] ** 2 + rng.normal(scale=0.3, size=70)
    return X[:50], y[:50], X[50:]


@pytest.fixture(scope="module")
def class_data():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(80, 4))
    score = X[:, 0] + 0.7 * X[:, 1] + rng.normal(scale=0.8, size=80)
    y = np.where(score < -0.5, "low", np.where(score < 0.6, "mid", "high"))
    return X[:60], y[:60], X[60:]


def test_random_forest_regressor_oob_matches_sklearn(regression_data):
    X, y, Xt = regression_data
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


def test_random_forest_classifier_soft_and_hard(class_data):
    X, y, Xt = class_data
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
def test_other_bagging_regressors_oob(est, regression_data):
    X, y, Xt = regression_data
    rp = repeated_predictions(est, X, y, Xt, n_repeats=2, random_state=0)
    again = repeated_predictions(est, X, y, Xt, n_repeats=2, random_state=0)
    np.testing.assert_array_equal(rp.test, again.test)
    np.testing.assert_array_equal(rp.space, again.space)
    assert np.isfinite(rp.space).mean() > 0.9
    ref = est.set_params(**{k: int(rp.seeds[1]) for k in est.get_params() if k.endswith("random_state")})
    np.testing.assert_allclose(rp.test[:, 1], ref.fit(X, y).predict(Xt), rtol=1e-12)


def test_bagging_classifier_oob(class_data):
    X, y, Xt = class_data
    rp = repeated_predictions(BaggingClassifier(n_estimators=8), X, y, Xt, n_repeats=2, random_state=0)
    ref = BaggingClassifier(n_estimators=8, random_state=int(rp.seeds[0])).fit(X, y)
    np.testing.assert_array_equal(rp.test[:, 0], ref.predict(Xt))


def test_gradient_boosting_kfold_folds_fixed_seeds_not(regression_data):
    X, y, Xt = regression_data
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


def test_kfold_int_cv_classifier_labels(class_data):
    X, y, Xt = class_data
    rp = repeated_predictions(GradientBoostingClassifier(n_estimators=5, subsample=0.7), X, y, Xt,
                              n_repeats=2, baseline="kfold", cv=3, random_state=2)
    assert rp.space.shape == (60, 2)
    assert set(np.unique(rp.space.astype(str))) <= {"low", "mid", "high"}
    again = repeated_predictions(GradientBoostingClassifier(n_estimators=5, subsample=0.7), X, y, Xt,
                                 n_repeats=2, baseline="kfold", cv=3, random_state=2)
    np.testing.assert_array_equal(rp.space, again.space)


def test_mlp_and_nested_pipeline_random_state(regression_data, class_data):
    X, y, Xt = regression_data
    pipe = make_pipeline(StandardScaler(), MLPRegressor(hidden_layer_sizes=(5,), max_iter=50))
    with pytest.warns(Warning):  # ConvergenceWarning from the tiny MLP
        rp = repeated_predictions(pipe, X, y, Xt, n_repeats=2, baseline="kfold", cv=2, random_state=4)
    # the nested MLP got the repetition's seed
    ref = make_pipeline(StandardScaler(), MLPRegressor(hidden_layer_sizes=(5,), max_iter=50,
                                                       random_state=int(rp.seeds[0])))
    with pytest.warns(Warning):
        np.testing.assert_array_equal(rp.test[:, 0], ref.fit(X, y).predict(Xt))
    assert not np.array_equal(rp.test[:, 0], rp.test[:, 1])

    Xc, yc, Xct = class_data
    with pytest.warns(Warning):
        rc = repeated_predictions(MLPClassifier(hidden_layer_sizes=(4,), max_iter=30), Xc, yc, Xct,
                                  n_repeats=2, baseline="kfold", cv=2, random_state=4)
    assert rc.test.shape == (20, 2) and set(np.unique(rc.test)) <= {"low", "mid", "high"}


def test_predict_proba_binary(class_data):
    X, y, Xt = class_data
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
                         [pytest.param("loky", 2, marks=pytest.mark.slow),  # starts worker processes
                          ("threading", 2), ("multiprocessing", 2), ("loky", 1)])
def test_bit_identical_across_n_jobs_and_backends(backend, n_jobs, class_data):
    X, y, Xt = class_data
    est = RandomForestClassifier(n_estimators=6)
    serial = repeated_predictions(est, X, y, Xt, n_repeats=3, random_state=9, n_jobs=1)
    with joblib.parallel_config(backend=backend):
        par = repeated_predictions(est, X, y, Xt, n_repeats=3, random_state=9, n_jobs=n_jobs)
    np.testing.assert_array_equal(serial.test, par.test)
    np.testing.assert_array_equal(serial.space, par.space)
    np.testing.assert_array_equal(serial.seeds, par.seeds)


@pytest.mark.slow
def test_bit_identical_kfold_regression_parallel(regression_data):
    X, y, Xt = regression_data
    est = RandomForestRegressor(n_estimators=5, n_jobs=2)  # the forest's own threads too
    a = repeated_predictions(est, X, y, Xt, n_repeats=2, baseline="kfold", cv=3, random_state=1, n_jobs=1)
    b = repeated_predictions(est, X, y, Xt, n_repeats=2, baseline="kfold", cv=3, random_state=1, n_jobs=2)
    assert a.test.tobytes() == b.test.tobytes() and a.space.tobytes() == b.space.tobytes()


def test_progress_callback(regression_data):
    X, y, Xt = regression_data
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


def test_failing_refit_names_seed(regression_data):
    X, y, Xt = regression_data
    bad = int(seeds_from(3, 2)[1])
    with pytest.raises(RuntimeError, match=rf"seed {bad} \(repetition 1\): ArithmeticError: singular matrix"):
        repeated_predictions(_FailsForOneSeed(bad_seed=bad), X, y, Xt, n_repeats=2, baseline=None,
                             random_state=3)


def test_errors(regression_data):
    X, y, Xt = regression_data
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


def test_no_random_state_warns(regression_data):
    X, y, Xt = regression_data
    with pytest.warns(PredstabDataWarning, match="no `random_state`"):
        rp = repeated_predictions(LinearRegression(), X, y, Xt, n_repeats=2, baseline="kfold", cv=2)
    np.testing.assert_array_equal(rp.test[:, 0], rp.test[:, 1])


def test_never_out_of_bag_warns(regression_data):
    X, y, Xt = regression_data
    with pytest.warns(PredstabDataWarning, match="no oob prediction in any repetition"):
        rp = repeated_predictions(RandomForestRegressor(n_estimators=1), X, y, Xt, n_repeats=2,
                                  random_state=0)
    assert np.isnan(rp.space).any()


def test_phi_psi_methods(regression_data, class_data):
    import predstab

    X, y, Xt = regression_data
    rp = repeated_predictions(RandomForestRegressor(n_estimators=10), X, y, Xt, n_repeats=5, random_state=0)
    phi = rp.phi()
    assert phi.kind == "phi" and phi.value == predstab.phi(rp.test, y).value
    assert 0 < phi.value < 1
    with pytest.warns(PredstabDataWarning):  # 10 trees: some training objects never out of bag
        psi = rp.psi(scale="metric")
    with pytest.warns(PredstabDataWarning):
        assert psi.value == predstab.psi(rp.test, rp.space, scale="metric").value

    Xc, yc, Xct = class_data
    levels = ["low", "mid", "high"]
    rc = repeated_predictions(RandomForestClassifier(n_estimators=30), Xc, yc, Xct, n_repeats=5,
                              baseline="kfold", cv=3, random_state=0)
    ordinal = rc.psi(scale="ordinal", categories=levels)
    assert ordinal.scale == "ordinal" and ordinal.value == predstab.psi(
        rc.test, rc.space, scale="ordinal", categories=levels).value
    assert rc.phi(scale="categorical").value == predstab.phi(rc.test, yc, scale="categorical").value


def test_to_frame_is_one_row_and_long_frame_the_matrices(regression_data):
    X, y, Xt = regression_data
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


N_TRAIN, N_TEST = 30, 6


def derived_seeds(random_state, n):
    """The documented derivation: ``n`` draws in [0, 2**31 - 1) of numpy's default_rng(random_state)."""
    return np.random.default_rng(random_state).integers(0, 2**31 - 1, size=n, dtype=np.int64)


def split_seed_after(random_state, n_repeats):
    """The seed of an int ``cv``'s splitter: the same generator's next draw after the refit seeds."""
    rng = np.random.default_rng(random_state)
    rng.integers(0, 2**31 - 1, size=n_repeats, dtype=np.int64)
    return int(rng.integers(0, 2**31 - 1, size=1, dtype=np.int64)[0])


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(12)
    X = rng.normal(size=(N_TRAIN + N_TEST, 3)) * [1.0, 2.0, 0.5] + [3.0, -1.0, 0.0]
    y = X[:, 0] + 0.5 * X[:, 1] ** 2 + rng.normal(scale=0.3, size=len(X))
    score = X[:, 0] - 3 + 0.5 * (X[:, 1] + 1) + rng.normal(scale=0.6, size=len(X))
    labels = np.where(score < -0.4, "a", np.where(score < 0.5, "b", "c"))
    return {"X": X[:N_TRAIN], "Xt": X[N_TRAIN:], "y": y[:N_TRAIN], "labels": labels[:N_TRAIN],
            "codes": np.searchsorted(["a", "b", "c"], labels[:N_TRAIN]), "binary": score[:N_TRAIN] > 0.1}


def quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PredstabDataWarning)
        return fn(*args, **kwargs)


def oob_rows(forest, X):
    """Per-tree predictions (regression) or probabilities on X and the out-of-bag mask, by hand."""
    n = X.shape[0]
    if hasattr(forest, "classes_"):
        per_tree = np.stack([t.predict_proba(X) for t in forest.estimators_])
    else:
        per_tree = np.stack([t.predict(X) for t in forest.estimators_])
    oob = np.ones((len(forest.estimators_), n), dtype=bool)
    for t, idx in enumerate(forest.estimators_samples_):
        oob[t, idx] = False
    return per_tree, oob


def hand_oob_regression(forest, X):
    per_tree, oob = oob_rows(forest, X)
    out = np.full(X.shape[0], np.nan)
    for j in range(X.shape[0]):
        if oob[:, j].any():
            out[j] = per_tree[oob[:, j], j].mean()
    return out


def hand_oob_labels(forest, X, voting):
    per_tree, oob = oob_rows(forest, X)
    out = np.full(X.shape[0], None, dtype=object)
    for j in range(X.shape[0]):
        trees = np.flatnonzero(oob[:, j])
        if trees.size == 0:
            continue
        if voting == "soft":
            score = per_tree[trees, j].sum(axis=0)
        else:
            score = np.bincount(per_tree[trees, j].argmax(axis=1), minlength=len(forest.classes_))
        out[j] = forest.classes_[int(np.argmax(score))]  # ties: the first class
    return out


def test_each_refit_is_an_independent_fit_with_the_derived_seed(data):
    X, y, Xt = data["X"], data["y"], data["Xt"]
    rp = quiet(repeated_predictions, RandomForestRegressor(n_estimators=3), X, y, Xt, n_repeats=3,
               random_state=21)
    np.testing.assert_array_equal(rp.seeds, derived_seeds(21, 3))
    assert rp.seeds.dtype == np.int64 and rp.baseline == "oob" and rp.classes is None
    for r, seed in enumerate(derived_seeds(21, 3)):
        ref = RandomForestRegressor(n_estimators=3, random_state=int(seed)).fit(X, y)
        np.testing.assert_allclose(rp.test[:, r], ref.predict(Xt), rtol=1e-12, atol=0)
        np.testing.assert_allclose(rp.space[:, r], hand_oob_regression(ref, X), rtol=1e-12, atol=0)
    assert rp.test.dtype == rp.space.dtype == np.float64
    np.testing.assert_array_equal(rp.y_train, y)
    assert (rp.n_test, rp.n_train, rp.n_repeats) == (N_TEST, N_TRAIN, 3)
    # the three seeds differ, so do the refits
    assert len({tuple(rp.test[:, r]) for r in range(3)}) == 3


def test_default_number_of_repeats_and_a_generator_as_random_state(data):
    X, y, Xt = data["X"], data["y"], data["Xt"]
    rng = np.random.default_rng(5)
    rp = quiet(repeated_predictions, DecisionTreeRegressor(max_depth=2, max_features=1), X, y, Xt,
               baseline=None, random_state=rng)
    np.testing.assert_array_equal(rp.seeds, derived_seeds(5, 10))  # n_repeats=10 by default
    for r in (0, 9):
        ref = DecisionTreeRegressor(max_depth=2, max_features=1, random_state=int(rp.seeds[r])).fit(X, y)
        np.testing.assert_array_equal(rp.test[:, r], ref.predict(Xt))


def test_no_baseline_keeps_y_and_counts_its_training_objects(data):
    X, y, Xt = data["X"], data["y"], data["Xt"]
    rp = repeated_predictions(DecisionTreeRegressor(max_features=1), X, list(y), Xt, n_repeats=2,
                              baseline=None, random_state=3)
    assert rp.space is None and rp.baseline is None
    assert isinstance(rp.y_train, np.ndarray)
    np.testing.assert_array_equal(rp.y_train, y)
    assert rp.n_train == N_TRAIN
    assert rp.to_frame().to_dict("records") == [
        {"baseline": None, "n_test": N_TEST, "n_train": N_TRAIN, "n_repeats": 2}]


def test_with_seed_sets_every_random_state_and_leaves_the_original_alone():
    bag = BaggingClassifier(estimator=DecisionTreeClassifier(), n_estimators=2)
    pipe = make_pipeline(StandardScaler(), bag)
    seeded = with_seed(pipe, np.int64(77))
    params = seeded.get_params(deep=True)
    assert params["baggingclassifier__random_state"] == 77
    assert params["baggingclassifier__estimator__random_state"] == 77
    assert pipe.get_params(deep=True)["baggingclassifier__random_state"] is None  # a clone
    assert pipe.get_params(deep=True)["baggingclassifier__estimator__random_state"] is None
    forest = with_seed(RandomForestRegressor(n_estimators=2, max_depth=3), 5)
    expected = RandomForestRegressor(n_estimators=2, max_depth=3, random_state=5)
    assert forest.get_params() == expected.get_params()
    # nothing to seed: an unchanged clone
    lr = with_seed(LinearRegression(fit_intercept=False), 5)
    assert lr.get_params() == LinearRegression(fit_intercept=False).get_params()


def test_callable_gets_plain_int_seeds_and_its_columns_in_order():
    seen = []

    def fit_predict(seed):
        seen.append(seed)
        assert type(seed) is int
        return np.array([seed, seed + 1]), np.array([seed % 5, seed % 7, seed % 11])

    rp = repeated_predictions(fit_predict, n_repeats=3, random_state=8, y=[1.0, 2.0, 3.0])
    seeds = derived_seeds(8, 3)
    assert sorted(seen) == sorted(seeds.tolist())
    np.testing.assert_array_equal(rp.test, np.stack([seeds, seeds + 1]))
    np.testing.assert_array_equal(rp.space, np.stack([seeds % 5, seeds % 7, seeds % 11]))
    assert rp.test.dtype == np.int64  # integer predictions stay integers
    assert rp.baseline == "oob" and rp.classes is None
    np.testing.assert_array_equal(rp.y_train, [1.0, 2.0, 3.0])
    assert rp.n_train == 3
    # the label of a callable's space follows `baseline`; "custom" when baseline=None
    for baseline, label in [("kfold", "kfold"), (None, "custom")]:
        rp = repeated_predictions(fit_predict, n_repeats=2, baseline=baseline, random_state=0)
        assert rp.baseline == label


def test_callable_dtypes_and_missing_space_without_warning():
    def bools(seed):
        return np.array([True, seed % 2 == 0]), None

    rb = repeated_predictions(bools, n_repeats=2, random_state=0)
    assert rb.test.dtype == np.bool_ and rb.space is None and rb.baseline is None
    assert rb.y_train is None and rb.n_train is None
    mixed = iter([(np.array([1, 2]), None), (np.array([0.5, 1.5]), None)])
    rm = repeated_predictions(lambda s: next(mixed), n_repeats=2, random_state=0)
    assert rm.test.dtype == np.float64
    np.testing.assert_array_equal(rm.test, [[1.0, 0.5], [2.0, 1.5]])
    # single-precision outputs (common outside scikit-learn) become float64 too
    r32 = repeated_predictions(lambda s: (np.array([0.1, 0.2], dtype=np.float32), None), n_repeats=2,
                               random_state=0)
    assert r32.test.dtype == np.float64
    np.testing.assert_array_equal(r32.test[:, 1], np.array([0.1, 0.2], dtype=np.float32).astype(np.float64))
    # every numeric kind at once (int, float, unsigned, bool): still one float matrix
    kinds = iter([np.array([1, 2]), np.array([0.5, 1.5]), np.array([3, 4], dtype=np.uint8),
                  np.array([True, False])])
    rk = repeated_predictions(lambda s: (next(kinds), None), n_repeats=4, random_state=0)
    assert rk.test.dtype == np.float64
    np.testing.assert_array_equal(rk.test, [[1.0, 0.5, 3.0, 1.0], [2.0, 1.5, 4.0, 0.0]])
    words = repeated_predictions(lambda s: (np.array(["x", str(s % 3)]), None), n_repeats=2, random_state=1)
    assert words.test.dtype == object
    np.testing.assert_array_equal(words.test[0], ["x", "x"])
    np.testing.assert_array_equal(words.test[1], [str(s % 3) for s in derived_seeds(1, 2)])
    # a callable's missing space values are its own business: no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rn = repeated_predictions(lambda s: (np.ones(2), np.array([np.nan, 1.0])), n_repeats=2,
                                  random_state=0)
    assert np.isnan(rn.space[0]).all()


@pytest.mark.parametrize("voting", ["soft", "hard"])
def test_classifier_oob_from_the_learners_and_both_votings(data, voting):
    X, y, Xt = data["X"], data["labels"], data["Xt"]
    est = RandomForestClassifier(n_estimators=4, min_samples_leaf=4)
    rp = quiet(repeated_predictions, est, X, y, Xt, n_repeats=2, random_state=4, voting=voting)
    np.testing.assert_array_equal(rp.classes, ["a", "b", "c"])
    assert rp.test.dtype == object
    for r, seed in enumerate(derived_seeds(4, 2)):
        ref = RandomForestClassifier(n_estimators=4, min_samples_leaf=4, random_state=int(seed)).fit(X, y)
        np.testing.assert_array_equal(rp.test[:, r], hand_oob_labels_test(ref, Xt, voting))
        np.testing.assert_array_equal(rp.space[:, r], hand_oob_labels(ref, X, voting))
    if voting == "soft":
        ref = RandomForestClassifier(n_estimators=4, min_samples_leaf=4, random_state=int(rp.seeds[0]))
        np.testing.assert_array_equal(rp.test[:, 0], ref.fit(X, y).predict(Xt))


def hand_oob_labels_test(forest, Xt, voting):
    """All learners' vote on new objects (no bag to exclude)."""
    per_tree = np.stack([t.predict_proba(Xt) for t in forest.estimators_])
    score = per_tree.sum(axis=0) if voting == "soft" else np.stack(
        [np.bincount(p.argmax(axis=1), minlength=len(forest.classes_)) for p in per_tree.transpose(1, 0, 2)])
    return forest.classes_[score.argmax(axis=1)]


def test_soft_and_hard_votes_differ_here(data):
    X, y, Xt = data["X"], data["labels"], data["Xt"]
    est = RandomForestClassifier(n_estimators=4, min_samples_leaf=4)
    soft = quiet(repeated_predictions, est, X, y, Xt, n_repeats=2, random_state=4)
    hard = quiet(repeated_predictions, est, X, y, Xt, n_repeats=2, random_state=4, voting="hard")
    assert not np.array_equal(soft.space, hard.space)


def test_probability_oob_from_the_learners_with_never_out_of_bag_objects(data):
    X, y, Xt = data["X"], data["binary"], data["Xt"]
    with pytest.warns(PredstabDataWarning) as record:
        rp = repeated_predictions(RandomForestClassifier(n_estimators=2), X, y, Xt, n_repeats=2,
                                  response="predict_proba", random_state=6)
    assert rp.classes is None and rp.test.dtype == rp.space.dtype == np.float64
    missing = np.ones(N_TRAIN, dtype=bool)
    for r, seed in enumerate(derived_seeds(6, 2)):
        ref = RandomForestClassifier(n_estimators=2, random_state=int(seed)).fit(X, y)
        np.testing.assert_allclose(rp.test[:, r], ref.predict_proba(Xt)[:, 1], rtol=1e-12, atol=1e-15)
        per_tree, oob = oob_rows(ref, X)
        with np.errstate(invalid="ignore"):
            expected = (oob * per_tree[:, :, 1]).sum(axis=0) / np.where(oob.sum(axis=0) == 0, np.nan,
                                                                        oob.sum(axis=0))
        np.testing.assert_allclose(rp.space[:, r], expected, rtol=1e-12, atol=1e-15)
        missing &= ~oob.any(axis=0)
    n_none = int(missing.sum())
    assert n_none > 0
    messages = [str(w.message) for w in record if w.category is PredstabDataWarning]
    assert messages == [f"{n_none} of {N_TRAIN} training objects have no oob prediction in any repetition "
                        "(in the bag of every learner, or in no test fold); psi will drop them."]


def test_sklearns_own_oob_warning_is_not_repeated(data):
    X, y, Xt = data["X"], data["y"], data["Xt"]
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        repeated_predictions(RandomForestRegressor(n_estimators=2, oob_score=True), X, y, Xt, n_repeats=2,
                             random_state=6)
    assert [w.category for w in record] == [PredstabDataWarning]


class _Shift(BaseEstimator):
    """A transformer that adds a constant (so that a forest given untransformed data predicts wrong)."""

    def __init__(self, by=0.0):
        self.by = by

    def fit(self, X, y=None):
        self.offset_ = float(self.by)
        return self

    def transform(self, X):
        return np.asarray(X) + self.offset_


@pytest.mark.parametrize("kind", ["one-step", "flat", "nested"])
def test_pipelines_ending_in_a_forest(data, kind):
    # regression test: a one-step pipeline failed and a nested one skipped the inner preprocessing
    X, y, Xt = data["X"], data["y"], data["Xt"]

    def build(seed=None):
        forest = RandomForestRegressor(n_estimators=3, max_depth=3, random_state=seed)
        if kind == "one-step":
            return Pipeline([("forest", forest)])
        if kind == "flat":
            return make_pipeline(StandardScaler(), _Shift(by=2.0), forest)
        return Pipeline([("scale", StandardScaler()),
                         ("inner", Pipeline([("shift", _Shift(by=-5.0)), ("forest", forest)]))])

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PredstabDataWarning)
        rp = repeated_predictions(build(), X, y, Xt, n_repeats=2, random_state=2)
    for r, seed in enumerate(derived_seeds(2, 2)):
        ref = build(int(seed)).fit(X, y)
        np.testing.assert_allclose(rp.test[:, r], ref.predict(Xt), rtol=1e-12, atol=0)
        Xin, forest = (X, ref[-1]) if kind == "one-step" else (ref[:-1].transform(X), ref[-1])
        if kind == "nested":
            Xin, forest = ref[-1][:-1].transform(Xin), ref[-1][-1]
        np.testing.assert_allclose(rp.space[:, r], hand_oob_regression(forest, Xin), rtol=1e-12, atol=0)


def test_a_forest_without_bootstrap_has_no_oob(data):
    from sklearn.ensemble import ExtraTreesRegressor

    X, y, Xt = data["X"], data["y"], data["Xt"]
    with pytest.raises(ValueError, match="^`baseline`='oob' needs a bagging ensemble .*got ExtraTreesRegr"):
        repeated_predictions(ExtraTreesRegressor(n_estimators=2), X, y, Xt)
    with pytest.raises(ValueError, match="got Pipeline"):
        repeated_predictions(make_pipeline(StandardScaler(), LinearRegression()), X, y, Xt)


def test_kfold_int_cv_regressor_equals_cross_val_predict_with_the_derived_splitter(data):
    X, y, Xt = data["X"], data["y"], data["Xt"]
    # LinearRegression / GaussianNB draw nothing at random, so cross_val_predict is the reference
    with pytest.warns(PredstabDataWarning, match="LinearRegression has no `random_state` parameter"):
        rp = repeated_predictions(LinearRegression(), X, y, Xt, n_repeats=2, baseline="kfold",
                                  random_state=13)
    split_seed = split_seed_after(13, 2)
    expected = cross_val_predict(LinearRegression(), X, y, cv=KFold(5, shuffle=True, random_state=split_seed))
    assert rp.baseline == "kfold" and rp.space.dtype == np.float64
    for r in range(2):
        np.testing.assert_allclose(rp.space[:, r], expected, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(rp.test[:, r], LinearRegression().fit(X, y).predict(Xt), rtol=1e-12)


def test_kfold_int_cv_classifier_is_stratified_and_keeps_integer_labels(data):
    X, y, Xt = data["X"], data["codes"], data["Xt"]
    est = GaussianNB()
    rp = quiet(repeated_predictions, est, X, y, Xt, n_repeats=2, baseline="kfold", cv=3, random_state=14)
    split_seed = split_seed_after(14, 2)
    expected = cross_val_predict(est, X, y, cv=StratifiedKFold(3, shuffle=True, random_state=split_seed))
    assert not np.array_equal(expected, cross_val_predict(est, X, y, cv=KFold(3, shuffle=True,
                                                                                 random_state=split_seed)))
    assert rp.space.dtype == rp.test.dtype == np.int64
    np.testing.assert_array_equal(rp.classes, [0, 1, 2])
    for r in range(2):
        np.testing.assert_array_equal(rp.space[:, r], expected)


def test_kfold_probabilities_of_a_non_ensemble(data):
    X, y, Xt = data["X"], data["binary"], data["Xt"]
    est = GaussianNB()
    cv = StratifiedKFold(3, shuffle=True, random_state=0)  # a splitter that needs y
    rp = quiet(repeated_predictions, est, X, y, Xt, n_repeats=2, baseline="kfold", cv=cv,
               response="predict_proba", random_state=0)
    expected = cross_val_predict(est, X, y, cv=cv, method="predict_proba")[:, 1]
    np.testing.assert_allclose(rp.space[:, 1], expected, rtol=1e-12)
    np.testing.assert_allclose(rp.test[:, 0], est.fit(X, y).predict_proba(Xt)[:, 1], rtol=1e-12)
    assert rp.classes is None


def test_kfold_refits_use_seeds_derived_from_the_repetitions_seed(data):
    X, y, Xt = data["X"], data["y"], data["Xt"]
    folds = np.arange(N_TRAIN) % 3
    est = DecisionTreeRegressor(max_features=1, max_depth=3)
    calls = []
    rp = repeated_predictions(est, X, y, Xt, n_repeats=2, baseline="kfold", cv=PredefinedSplit(folds),
                              random_state=15, progress=lambda done, total: calls.append((done, total)))
    assert calls == [(i, 8) for i in range(1, 9)]  # 2 x (1 + 3) fits
    for r, seed in enumerate(derived_seeds(15, 2)):
        full = DecisionTreeRegressor(max_features=1, max_depth=3, random_state=int(seed)).fit(X, y)
        np.testing.assert_array_equal(rp.test[:, r], full.predict(Xt))
        for k, fold_seed in enumerate(derived_seeds(int(seed), 3)):
            m = DecisionTreeRegressor(max_features=1, max_depth=3, random_state=int(fold_seed))
            m.fit(X[folds != k], y[folds != k])
            np.testing.assert_array_equal(rp.space[folds == k, r], m.predict(X[folds == k]))


def test_kfold_folds_not_covering_every_object(data):
    X, y, Xt = data["X"], data["y"], data["Xt"]
    idx = np.arange(N_TRAIN)
    folds = [(idx[10:], idx[:5]), (idx[:10], idx[20:])]  # objects 5-19 never held out
    with pytest.warns(PredstabDataWarning, match="^15 of 30 training objects have no kfold prediction"):
        rp = repeated_predictions(LinearRegression(), X, y, Xt, n_repeats=2, baseline="kfold", cv=folds,
                                  random_state=0)
    expected = np.full(N_TRAIN, np.nan)
    expected[:5] = LinearRegression().fit(X[10:], y[10:]).predict(X[:5])
    expected[20:] = LinearRegression().fit(X[:10], y[:10]).predict(X[20:])
    np.testing.assert_allclose(rp.space[:, 0], expected, rtol=1e-12)
    # labels: missing values are None
    labels = data["labels"]
    with pytest.warns(PredstabDataWarning, match="^15 of 30"):
        rc = repeated_predictions(GaussianNB(), X, labels, Xt, n_repeats=2, baseline="kfold",
                                  cv=folds, random_state=0)
    assert rc.space.dtype == object
    assert all(v is None for v in rc.space[5:20].ravel())
    np.testing.assert_array_equal(rc.space[:5, 1],
                                  GaussianNB().fit(X[10:], labels[10:]).predict(X[:5]))


def test_n_jobs_one_and_two_give_identical_matrices(data):
    X, y, Xt = data["X"], data["labels"], data["Xt"]
    est = RandomForestClassifier(n_estimators=3)
    serial = quiet(repeated_predictions, est, X, y, Xt, n_repeats=3, random_state=16, n_jobs=1,
                   baseline="kfold", cv=2)
    with joblib.parallel_config(backend="threading"):
        par = quiet(repeated_predictions, est, X, y, Xt, n_repeats=3, random_state=16, n_jobs=2,
                    baseline="kfold", cv=2)
    assert serial == par
    np.testing.assert_array_equal(serial.space, par.space)


def test_str_repr_frames_of_the_result(data):
    X, y, Xt = data["X"], data["y"], data["Xt"]
    rp = quiet(repeated_predictions, RandomForestRegressor(n_estimators=2), X, y, Xt, n_repeats=2,
               random_state=17)
    assert str(rp) == ("\n".join([
        " Repeated predictions (objects x repetitions)", "",
        "     Test objects = 6", " Training objects = 30", "      Repetitions = 2",
        "            Space = oob"]))
    assert repr(rp) == ("RepeatedPredictions(baseline='oob', classes=None, n_test=6, n_train=30, "
                        "n_repeats=2, ...)")
    assert rp.to_frame().to_dict("records") == [
        {"baseline": "oob", "n_test": 6, "n_train": 30, "n_repeats": 2}]
    long = rp.long_frame()
    seeds = derived_seeds(17, 2)
    expected = pd.DataFrame({
        "matrix": ["test"] * 12 + ["space"] * 60,
        "object": np.r_[np.repeat(np.arange(6), 2), np.repeat(np.arange(30), 2)],
        "repetition": np.tile([0, 1], 36),
        "seed": np.tile(seeds, 36),
        "prediction": np.r_[rp.test.ravel(), rp.space.ravel()],
    })
    pd.testing.assert_frame_equal(long, expected)
    only_test = repeated_predictions(lambda s: (np.array([1.0, 2.0, 3.0]) * s, None), n_repeats=2,
                                     random_state=3)
    pd.testing.assert_frame_equal(only_test.long_frame(), pd.DataFrame({
        "matrix": ["test"] * 6, "object": [0, 0, 1, 1, 2, 2], "repetition": [0, 1] * 3,
        "seed": np.tile(derived_seeds(3, 2), 3), "prediction": (np.array([1.0, 2.0, 3.0])[:, None]
                                                                 * derived_seeds(3, 2)).ravel()}))


def test_phi_psi_scales_of_a_classifiers_labels(data):
    X, y, Xt = data["X"], data["codes"], data["Xt"]
    rp = quiet(repeated_predictions, RandomForestClassifier(n_estimators=3), X, y, Xt, n_repeats=3,
               random_state=18)
    np.testing.assert_array_equal(rp.classes, [0, 1, 2])
    assert rp.phi() == predstab.phi(rp.test, y, scale="categorical")
    assert quiet(rp.psi) == quiet(predstab.psi, rp.test, rp.space, scale="categorical")
    assert rp.phi(scale="ordinal") == predstab.phi(rp.test, y, scale="ordinal", categories=[0, 1, 2])
    assert quiet(rp.psi, scale="ordinal") == quiet(predstab.psi, rp.test, rp.space, scale="ordinal",
                                                   categories=[0, 1, 2])
    assert rp.phi(categories=[2, 0, 1]) == predstab.phi(rp.test, y, scale="ordinal", categories=[2, 0, 1])
    assert rp.phi(scale="metric") == predstab.phi(rp.test, y, scale="metric")
    assert rp.phi(scale="metric").value != rp.phi().value
    with pytest.raises(ValueError, match="`scale`"):
        rp.phi(scale="nominal")
    with pytest.raises(ValueError, match="`scale`"):
        rp.psi(scale="nominal")
    # a regressor's values keep the functions' defaults (metric)
    reg = quiet(repeated_predictions, RandomForestRegressor(n_estimators=2), X, data["y"], Xt, n_repeats=2,
                random_state=18)
    assert reg.phi() == predstab.phi(reg.test, data["y"])
    assert reg.phi(categories=None) == predstab.phi(reg.test, data["y"], scale="metric")


class _Fails(RegressorMixin, BaseEstimator):
    def __init__(self, random_state=None, bad_seed=None, error=ValueError):
        self.random_state = random_state
        self.bad_seed = bad_seed
        self.error = error

    def fit(self, X, y):
        if self.random_state == self.bad_seed:
            raise self.error("cannot fit")
        self.mean_ = float(np.mean(y))
        return self

    def predict(self, X):
        return np.full(len(X), self.mean_)


def test_a_failing_fold_names_seed_repetition_and_fold_and_keeps_the_error_type(data):
    X, y, Xt = data["X"], data["y"], data["Xt"]
    bad = int(derived_seeds(int(derived_seeds(19, 2)[1]), 2)[1])  # repetition 1, fold 1
    with pytest.raises(TypeError) as info:
        repeated_predictions(_Fails(bad_seed=bad, error=TypeError), X, y, Xt, n_repeats=2, baseline="kfold",
                             cv=PredefinedSplit(np.arange(N_TRAIN) % 2), random_state=19)
    assert str(info.value) == f"_Fails failed for seed {bad} (repetition 1, fold 1): TypeError: cannot fit"
    bad = int(derived_seeds(19, 2)[0])
    with pytest.raises(ValueError) as info:
        repeated_predictions(_Fails(bad_seed=bad), X, y, Xt, n_repeats=2, baseline=None, random_state=19)
    assert str(info.value) == f"_Fails failed for seed {bad} (repetition 0): ValueError: cannot fit"


def test_a_failing_callable_is_named_by_its_function_name():
    def my_model(seed):
        raise KeyError("no column")

    seed = int(derived_seeds(0, 2)[0])
    with pytest.raises(RuntimeError, match=rf"^my_model failed for seed {seed} \(repetition 0\): KeyError: "):
        repeated_predictions(my_model, n_repeats=2, random_state=0, n_jobs=1)


@pytest.mark.parametrize("bad", [np.zeros(3), [np.zeros(3), None], (np.zeros(3),), (np.zeros(3), None, 1)])
def test_a_callable_must_return_a_pair(bad):
    def fit_predict(seed):
        return bad

    with pytest.raises(TypeError) as info:
        repeated_predictions(fit_predict, n_repeats=2, random_state=0)
    seed = int(derived_seeds(0, 2)[0])
    assert str(info.value) == (
        f"fit_predict failed for seed {seed} (repetition 0): TypeError: fit_predict(seed) must return a "
        f"tuple (test_predictions, space_predictions or None); got {type(bad).__name__}.")


def test_inconsistent_callable_outputs():
    lengths = iter([3, 4])
    with pytest.raises(ValueError, match="^test predictions of repetition 1 has 4 values; expected 3.$"):
        repeated_predictions(lambda s: (np.zeros(next(lengths)), None), n_repeats=2, random_state=0)
    spaces = iter([np.zeros(2), None])
    with pytest.raises(ValueError, match="space predictions for some seeds and None for others"):
        repeated_predictions(lambda s: (np.zeros(3), next(spaces)), n_repeats=2, random_state=0)
    sizes = iter([2, 5])
    with pytest.raises(ValueError, match="^space predictions of repetition 1 has 5 values; expected 2.$"):
        repeated_predictions(lambda s: (np.zeros(3), np.zeros(next(sizes))), n_repeats=2, random_state=0)


def test_data_errors_name_the_argument(data):
    X, y, Xt = data["X"], data["y"], data["Xt"]
    rf = RandomForestRegressor(n_estimators=2)
    for args in [(None, y, Xt), (X, None, Xt), (X, y, None)]:
        with pytest.raises(ValueError, match="^`X`, `y` and `X_test` are required when `estimator` is a "):
            repeated_predictions(rf, *args)
    one_response = r"^`y` must be one-dimensional \(one response per training row\); got shape \(30, 2\)\.$"
    with pytest.raises(ValueError, match=one_response):
        repeated_predictions(rf, X, np.c_[y, y], Xt)
    with pytest.raises(ValueError, match="^Found input variables with inconsistent numbers of samples"):
        repeated_predictions(rf, X, y[:-1], Xt)
    with pytest.raises(ValueError, match="^`X_test` must contain at least one object; got 0.$"):
        repeated_predictions(rf, X, y, Xt[:0])
    with pytest.raises(ValueError, match="^`X_test` must contain at least one object; got 0.$"):
        repeated_predictions(rf, X, y, [])
    with pytest.raises(ValueError, match="^`y` contains missing values; drop those training objects first.$"):
        repeated_predictions(rf, X, np.r_[y[:-1], np.nan], Xt)
    with pytest.raises(ValueError, match="^`response`='predict_proba' needs a classifier; got a regressor.$"):
        repeated_predictions(rf, X, y, Xt, response="predict_proba")
    with pytest.raises(ValueError, match=r"^`response`='predict_proba' is supported for binary targets "
                       r"\(probability of the second class\); got 3 classes\. Use response='predict'\.$"):
        repeated_predictions(RandomForestClassifier(), X, data["labels"], Xt, response="predict_proba")
    for name, value in [("n_repeats", 1), ("cv", 1), ("baseline", "bootstrap"), ("voting", "majority"),
                        ("response", "decision_function"), ("n_jobs", 1.5), ("random_state", -1)]:
        with pytest.raises(ValueError, match=f"^`{name}` must "):
            repeated_predictions(rf, X, y, Xt, **{name: value})


def test_one_test_object_as_a_list(data):
    X, y, Xt = data["X"], data["y"], data["Xt"]
    one = [list(Xt[0])]
    rp = quiet(repeated_predictions, RandomForestRegressor(n_estimators=2), X, y, one, n_repeats=2,
               random_state=20)
    seed = int(derived_seeds(20, 2)[1])
    np.testing.assert_allclose(rp.test[:, 1], RandomForestRegressor(n_estimators=2, random_state=seed)
                               .fit(X, y).predict(one), rtol=1e-12)
    assert rp.test.shape == (1, 2)


def test_sparse_training_and_test_data(data):
    from scipy import sparse

    X, y, Xt = sparse.csr_matrix(data["X"]), data["y"], sparse.csr_matrix(data["Xt"])
    rp = quiet(repeated_predictions, RandomForestRegressor(n_estimators=2), X, y, Xt, n_repeats=2,
               random_state=22)
    seed = int(derived_seeds(22, 2)[0])
    ref = RandomForestRegressor(n_estimators=2, random_state=seed).fit(X, y)
    np.testing.assert_allclose(rp.test[:, 0], ref.predict(Xt), rtol=1e-12)
    np.testing.assert_allclose(rp.space[:, 0], hand_oob_regression(ref, X), rtol=1e-12)


def test_the_missing_random_state_warning_looks_into_pipelines(data):
    X, y, Xt = data["X"], data["y"], data["Xt"]
    with warnings.catch_warnings():
        warnings.simplefilter("error", PredstabDataWarning)
        repeated_predictions(make_pipeline(StandardScaler(), DecisionTreeRegressor()), X, y, Xt, n_repeats=2,
                             baseline=None, random_state=0)
    with pytest.warns(PredstabDataWarning, match="^Pipeline has no `random_state` parameter: refits differ"):
        repeated_predictions(make_pipeline(StandardScaler(), LinearRegression()), X, y, Xt, n_repeats=2,
                             baseline=None, random_state=0)


class _FitOnlyCallable:
    """A callable that also has a `fit` method but no `get_params`: used as fit_predict(seed)."""

    fit = None

    def __call__(self, seed):
        return np.array([seed % 3]), None


def test_a_callable_with_a_fit_attribute_is_still_a_callable():
    rp = repeated_predictions(_FitOnlyCallable(), n_repeats=2, random_state=0)
    np.testing.assert_array_equal(rp.test, [derived_seeds(0, 2) % 3])
    assert isinstance(rp, RepeatedPredictions) and rp.classes is None


def test_progress_is_reported_as_each_refit_finishes_and_a_failure_stops_the_rest():
    events = []

    def fit_predict(seed):
        events.append("fit")
        return np.zeros(2), None

    repeated_predictions(fit_predict, n_repeats=3, random_state=0, n_jobs=1,
                         progress=lambda done, total: events.append((done, total)))
    assert events == ["fit", (1, 3), "fit", (2, 3), "fit", (3, 3)]
    calls = []

    def fails(seed):
        calls.append(seed)
        raise ValueError("bad data")

    with pytest.raises(ValueError, match="repetition 0"):
        repeated_predictions(fails, n_repeats=4, random_state=0, n_jobs=1)
    assert len(calls) == 1  # no refit after the first failure (serial run)


def test_backends_without_generators_give_the_same_matrices(data):
    X, y, Xt = data["X"], data["y"], data["Xt"]
    est = DecisionTreeRegressor(max_features=1, max_depth=3)
    calls = []
    serial = repeated_predictions(est, X, y, Xt, n_repeats=2, baseline="kfold", cv=2, random_state=23)
    with joblib.parallel_config(backend="multiprocessing"):  # n_jobs=1: no process is started
        listed = repeated_predictions(est, X, y, Xt, n_repeats=2, baseline="kfold", cv=2, random_state=23,
                                      n_jobs=1, progress=lambda done, total: calls.append((done, total)))
    assert listed == serial
    assert calls == [(i, 6) for i in range(1, 7)]


def test_n_jobs_two_runs_two_refits_at_once():
    import threading

    barrier = threading.Barrier(2, timeout=20)

    def fit_predict(seed):
        barrier.wait()  # returns only when both refits run at the same time
        return np.array([seed % 10]), None

    with joblib.parallel_config(backend="threading"):
        rp = repeated_predictions(fit_predict, n_repeats=2, random_state=24, n_jobs=2)
    np.testing.assert_array_equal(rp.test, [derived_seeds(24, 2) % 10])


class _WarnsInFit(RegressorMixin, BaseEstimator):
    def __init__(self, random_state=None):
        self.random_state = random_state

    def fit(self, X, y):
        warnings.warn("the estimator's own warning", UserWarning, stacklevel=2)
        self.mean_ = float(np.mean(y))
        return self

    def predict(self, X):
        return np.full(len(X), self.mean_)


def test_the_estimators_own_warnings_reach_the_caller(data):
    X, y, Xt = data["X"], data["y"], data["Xt"]
    with pytest.warns(UserWarning, match="the estimator's own warning"):
        rp = repeated_predictions(_WarnsInFit(), X, y, Xt, n_repeats=2, baseline=None, random_state=0,
                                  n_jobs=1)
    np.testing.assert_array_equal(rp.test, np.full((N_TEST, 2), np.mean(y)))


def test_backends_without_generators_keep_n_jobs(monkeypatch):
    # multiprocessing cannot return an unordered generator: the list it returns instead runs with
    # the same n_jobs (recorded here; the spy then runs the refits in this process)
    seen = []

    class Spy(joblib.Parallel):
        def __init__(self, n_jobs=None, **kwargs):
            seen.append((n_jobs, kwargs.get("return_as")))
            super().__init__(n_jobs=1 if kwargs.get("return_as") == "list" else n_jobs, **kwargs)

    monkeypatch.setattr(joblib, "Parallel", Spy)
    with joblib.parallel_config(backend="multiprocessing"):
        rp = repeated_predictions(lambda seed: (np.array([seed % 7, 1.0]), None), n_repeats=3, random_state=4,
                                  n_jobs=2)
    assert seen == [(2, "generator_unordered"), (2, "list")]
    seeds = seeds_from(4, 3)
    np.testing.assert_array_equal(rp.test, [seeds % 7, [1.0, 1.0, 1.0]])
