"""make_stability_scorer inside scikit-learn's model selection."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_diabetes, load_wine
from sklearn.ensemble import GradientBoostingRegressor, RandomForestClassifier, RandomForestRegressor
from sklearn.model_selection import GridSearchCV, cross_validate
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import predstab
from predstab import make_stability_scorer


@pytest.fixture(scope="module")
def diabetes():
    X, y = load_diabetes(return_X_y=True)
    return X[:240], y[:240]


@pytest.fixture(scope="module")
def wine():
    X, y = load_wine(return_X_y=True)
    return X, np.array(["a", "b", "c"], dtype=object)[y]


def test_grid_search_tunes_for_accuracy_and_stability(diabetes):
    X, y = diabetes
    scoring = {"r2": "r2", "phi": make_stability_scorer("phi"), "psi": make_stability_scorer("psi"),
               "icc": make_stability_scorer("icc"), "alpha": make_stability_scorer("alpha")}
    search = GridSearchCV(RandomForestRegressor(random_state=0, max_features="sqrt"),
                          {"n_estimators": [3, 60], "min_samples_leaf": [1, 10]}, cv=3,
                          scoring=scoring, refit="psi", error_score="raise")
    search.fit(X, y)
    res = search.cv_results_
    for name in ("phi", "psi", "icc", "alpha"):
        scores = np.column_stack([res[f"split{k}_test_{name}"] for k in range(3)])
        assert np.isfinite(scores).all() and (scores <= 1).all()
        # more trees -> more stable predictions, in every split and at every leaf size
        params = res["params"]
        for leaf in (1, 10):
            few = scores[[p == {"n_estimators": 3, "min_samples_leaf": leaf} for p in params]][0]
            many = scores[[p == {"n_estimators": 60, "min_samples_leaf": leaf} for p in params]][0]
            assert (many > few).all(), (name, leaf, few, many)
    assert search.best_params_["n_estimators"] == 60


def test_cross_validate_classifier(wine):
    X, y = wine
    scoring = {"acc": "accuracy", "fleiss": make_stability_scorer("fleiss"),
               "phi": make_stability_scorer("phi"), "alpha": make_stability_scorer("alpha", voting="hard")}
    cv = cross_validate(RandomForestClassifier(n_estimators=25, random_state=0), X, y, cv=3, scoring=scoring,
                        error_score="raise", return_estimator=True, return_indices=True)
    for k, (forest, test) in enumerate(zip(cv["estimator"], cv["indices"]["test"], strict=True)):
        # each split's score is the measure of the replicate forests written out by hand
        soft = _hand_forests(forest, X[test], n_repeats=10, random_state=0)
        hard = _hand_forests(forest, X[test], n_repeats=10, random_state=0, voting="hard")
        assert cv["test_fleiss"][k] == pytest.approx(predstab.fleiss_kappa(soft).value, rel=1e-12)
        assert cv["test_phi"][k] == pytest.approx(
            predstab.phi(soft, y[test], scale="categorical").value, rel=1e-12)
        assert cv["test_alpha"][k] == pytest.approx(predstab.krippendorff_alpha(hard).value, rel=1e-12)


def test_randomized_search_with_stability_refit(wine):
    from sklearn.model_selection import RandomizedSearchCV

    X, y = wine
    search = RandomizedSearchCV(RandomForestClassifier(random_state=0),
                                {"n_estimators": [2, 40], "max_features": ["sqrt", None]}, n_iter=4, cv=3,
                                scoring={"acc": "accuracy", "psi": make_stability_scorer("psi")},
                                refit="psi", random_state=0, error_score="raise")
    search.fit(X, y)
    psi = search.cv_results_["mean_test_psi"]
    assert np.isfinite(psi).all()
    assert search.best_params_["n_estimators"] == 40  # more trees, more stable votes


def test_phi_uses_the_scored_y_or_the_given_training_observations(diabetes):
    X, y = diabetes
    rf = RandomForestRegressor(n_estimators=20, random_state=0).fit(X[:160], y[:160])
    scorer = make_stability_scorer("phi", random_state=5)
    matrix, how = scorer.replicate_predictions(rf, X[160:])
    assert how == "trees" and matrix.shape == (80, 10)
    # default: D_e from the y handed to the scorer (the held-out responses)
    assert scorer(rf, X[160:], y[160:]) == predstab.phi(matrix, y[160:]).value
    # training_observations: D_e from the training responses, exactly as predstab.phi
    with_train = make_stability_scorer("phi", training_observations=y[:160], random_state=5)
    assert with_train(rf, X[160:], y[160:]) == predstab.phi(matrix, y[:160]).value


def test_psi_baseline_is_the_models_own_out_of_sample_predictions(diabetes):
    X, y = diabetes
    rf = RandomForestRegressor(n_estimators=20, random_state=0).fit(X[:160], y[:160])
    scorer = make_stability_scorer("psi", random_state=1)
    matrix, _ = scorer.replicate_predictions(rf, X[160:])
    assert scorer(rf, X[160:], y[160:]) == predstab.psi(matrix, rf.predict(X[160:])).value
    space = np.linspace(0, 300, 50)
    fixed = make_stability_scorer("psi", prediction_space=space, random_state=1)
    assert fixed(rf, X[160:], y[160:]) == predstab.psi(matrix, space).value


def test_fitted_forest_is_not_refit(diabetes, monkeypatch):
    X, y = diabetes
    rf = RandomForestRegressor(n_estimators=15, random_state=0).fit(X, y)

    def no_fit(*args, **kwargs):
        raise AssertionError("the scorer refit a fitted bagging ensemble")

    monkeypatch.setattr(RandomForestRegressor, "fit", no_fit)
    scorer = make_stability_scorer("icc")
    value = scorer(rf, X[:50], y[:50])
    # independent computation: 10 forests of 15 trees drawn with replacement from the fitted ones
    matrix = _hand_forests(rf, X[:50], n_repeats=10, random_state=0)
    assert value == pytest.approx(predstab.icc(matrix).value, rel=1e-12)
    assert value == scorer(rf, X[:50], y[:50])  # same random_state, same trees drawn


def _hand_forests(forest, X, *, n_repeats, random_state, voting="soft"):
    """Replicate forests written out: trees drawn with replacement, each forest votes or averages."""
    rng = np.random.default_rng(random_state)
    trees = forest.estimators_
    columns = []
    for _ in range(n_repeats):
        pick = rng.integers(0, len(trees), size=len(trees))
        if not hasattr(forest, "classes_"):
            columns.append(np.mean([trees[t].predict(X) for t in pick], axis=0))
            continue
        proba = np.stack([trees[t].predict_proba(X) for t in pick])  # trees x objects x classes
        if voting == "soft":
            columns.append(forest.classes_[proba.mean(axis=0).argmax(axis=1)])
        else:  # ranger's majority of the trees' own votes, ties to the first class
            votes = np.stack([(proba.argmax(axis=2) == c).sum(axis=0) for c in range(len(forest.classes_))])
            columns.append(forest.classes_[votes.argmax(axis=0)])
    return np.column_stack(columns)


@pytest.mark.parametrize("voting", ["soft", "hard"])
def test_replicate_forests_of_a_classifier_vote_by_the_chosen_rule(wine, voting):
    X, y = wine
    rf = RandomForestClassifier(n_estimators=9, min_samples_leaf=8, random_state=0).fit(X, y)
    scorer = make_stability_scorer("fleiss", voting=voting, random_state=4)
    matrix, how = scorer.replicate_predictions(rf, X)
    expected = _hand_forests(rf, X, n_repeats=10, random_state=4, voting=voting)
    assert how == "trees"
    np.testing.assert_array_equal(matrix, expected)
    assert scorer(rf, X, y) == pytest.approx(predstab.fleiss_kappa(expected).value, rel=1e-12)


def test_the_two_voting_rules_differ_on_impure_leaves(wine):
    X, y = wine
    rf = RandomForestClassifier(n_estimators=9, min_samples_leaf=8, random_state=0).fit(X, y)
    soft, _ = make_stability_scorer("fleiss", random_state=4).replicate_predictions(rf, X)
    hard, _ = make_stability_scorer("fleiss", voting="hard", random_state=4).replicate_predictions(rf, X)
    assert (soft != hard).any()


def test_a_one_tree_forest_resampled_from_itself_is_perfectly_stable(diabetes):
    X, y = diabetes
    rf = RandomForestRegressor(n_estimators=1, random_state=0).fit(X, y)
    with pytest.warns(predstab.PredstabDataWarning, match="identical"):
        assert make_stability_scorer("phi")(rf, X[:40], y[:40]) == 1.0


def test_pipeline_ending_in_a_forest_uses_its_trees(diabetes):
    X, y = diabetes
    pipe = make_pipeline(StandardScaler(), RandomForestRegressor(n_estimators=10, random_state=0)).fit(X, y)
    matrix, how = make_stability_scorer("phi").replicate_predictions(pipe, X[:30])
    assert how == "trees"
    # the forest's trees on the scaled data, as the pipeline's own predict sees them
    expected = _hand_forests(pipe[-1], pipe[:-1].transform(X[:30]), n_repeats=10, random_state=0)
    np.testing.assert_allclose(matrix, expected, rtol=1e-12)


def test_nested_pipeline_ending_in_a_forest_uses_its_trees(diabetes):
    # every level's preprocessing reaches the forest, outermost first; a one-step outer pipeline too
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import MinMaxScaler

    X, y = diabetes
    inner = make_pipeline(MinMaxScaler(), RandomForestRegressor(n_estimators=10, random_state=0))
    nested = Pipeline([("scale", StandardScaler()), ("model", inner)]).fit(X, y)
    matrix, how = make_stability_scorer("phi").replicate_predictions(nested, X[:30])
    assert how == "trees"
    seen = inner[:-1].transform(nested[:-1].transform(X[:30]))
    expected = _hand_forests(inner[-1], seen, n_repeats=10, random_state=0)
    np.testing.assert_allclose(matrix, expected, rtol=1e-12)
    one_step = Pipeline([("model", make_pipeline(StandardScaler(), RandomForestRegressor(
        n_estimators=10, random_state=0)))]).fit(X, y)
    matrix1, how1 = make_stability_scorer("phi").replicate_predictions(one_step, X[:30])
    forest = one_step[-1][-1]
    assert how1 == "trees"
    np.testing.assert_allclose(matrix1, _hand_forests(forest, one_step[-1][:-1].transform(X[:30]),
                                                      n_repeats=10, random_state=0), rtol=1e-12)


def test_other_estimators_are_refit_with_new_seeds(diabetes):
    X, y = diabetes
    gb = GradientBoostingRegressor(n_estimators=15, subsample=0.5, random_state=0).fit(X, y)
    with pytest.raises(TypeError, match="fit_data"):
        make_stability_scorer("icc")(gb, X[:30], y[:30])
    scorer = make_stability_scorer("icc", n_repeats=4, fit_data=(X, y), random_state=2)
    matrix, how = scorer.replicate_predictions(gb, X[:30])
    assert how == "refits" and matrix.shape == (30, 4)
    assert len({tuple(col) for col in matrix.T}) == 4  # each refit got its own seed
    assert scorer(gb, X[:30], y[:30]) == predstab.icc(matrix).value


def test_ordinal_levels(diabetes):
    X, y = diabetes
    levels = ["low", "mid", "high"]
    labels = np.array(levels, dtype=object)[np.digitize(y, np.quantile(y, [1 / 3, 2 / 3]))]
    rf = RandomForestClassifier(n_estimators=15, random_state=0).fit(X, labels)
    scorer = make_stability_scorer("phi", categories=levels)
    matrix, _ = scorer.replicate_predictions(rf, X[:60])
    expected = predstab.phi(matrix, labels[:60], scale="ordinal", categories=levels).value
    assert scorer(rf, X[:60], labels[:60]) == expected


@pytest.mark.parametrize("kwargs, match", [
    ({"measure": "kappa"}, "`measure`"),
    ({"n_repeats": 1}, "`n_repeats`"),
    ({"n_repeats": 2.5}, "`n_repeats`"),
    ({"scale": "nominal"}, "`scale`"),
    ({"categories": ["only"]}, "`categories`"),
    ({"voting": "majority"}, "`voting`"),
    ({"fit_data": np.zeros(3)}, "`fit_data`"),
    ({"options": ["model"]}, "`options`"),
])
def test_bad_parameters(kwargs, match):
    measure = kwargs.pop("measure", "psi")
    with pytest.raises((ValueError, TypeError), match=match):
        make_stability_scorer(measure, **kwargs)


def test_undefined_measure_is_nan_with_warning(diabetes):
    X, y = diabetes
    rf = RandomForestRegressor(n_estimators=5, random_state=0).fit(X, y)
    scorer = make_stability_scorer("phi", training_observations=np.full(10, 3.0))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = scorer(rf, X[:20], y[:20])
    assert np.isnan(value)
    assert any(issubclass(w.category, predstab.PredstabUndefinedWarning) for w in caught)


# --------------------------------------------------------------------------- RefitEnsemble
from sklearn.tree import DecisionTreeClassifier  # noqa: E402
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

from predstab import RefitEnsemble  # noqa: E402


@parametrize_with_checks([RefitEnsemble(n_repeats=2), RefitEnsemble(DecisionTreeClassifier(), n_repeats=2)])
def test_refit_ensemble_is_a_scikit_learn_estimator(estimator, check):
    check(estimator)


def test_refit_ensemble_in_a_grid_search_needs_no_fit_data(diabetes):
    X, y = diabetes
    model = RefitEnsemble(GradientBoostingRegressor(n_estimators=20), n_repeats=4, random_state=0)
    search = GridSearchCV(model, {"estimator__subsample": [0.3, 1.0]}, cv=3,
                          scoring={"r2": "r2", "icc": make_stability_scorer("icc")}, refit="r2",
                          error_score="raise")
    search.fit(X, y)
    icc = dict(zip([p["estimator__subsample"] for p in search.cv_results_["params"]],
                   search.cv_results_["mean_test_icc"], strict=True))
    # without subsampling gradient boosting varies only through tied splits: refits nearly agree
    assert icc[1.0] > 0.99
    assert icc[0.3] < icc[1.0]


@pytest.mark.parametrize("params, name", [({"n_repeats": 0}, "n_repeats"), ({"n_repeats": 2.0}, "n_repeats"),
                                          ({"random_state": -1}, "random_state"),
                                          ({"estimator": "tree"}, "estimator")])
def test_refit_ensemble_checks_its_parameters_in_fit(diabetes, params, name):
    from predstab._core._validation import InvalidParameterError

    X, y = diabetes
    with pytest.raises(InvalidParameterError, match=f"^`{name}` must"):
        RefitEnsemble(**params).fit(X[:20], y[:20])


def test_refit_ensemble_predicts_by_consensus(wine):
    X, y = wine
    model = RefitEnsemble(RandomForestClassifier(n_estimators=3), n_repeats=5, random_state=1).fit(X, y)
    matrix = model.replicate_predictions(X)
    assert matrix.shape == (len(X), 5) and len(set(model.seeds_)) == 5
    order = list(model.classes_)
    majority = [max(order, key=lambda c, row=list(row): (row.count(c), -order.index(c))) for row in matrix]
    assert list(model.predict(X)) == majority
    scorer = make_stability_scorer("fleiss")
    got, how = scorer.replicate_predictions(model, X)
    assert how == "ensemble" and (got == matrix).all()
    assert scorer(model, X, y) == predstab.fleiss_kappa(matrix).value


# ------------------------------------------------------------------ issue 13, item 19
def test_in_cross_validate_the_message_points_to_refit_ensemble(diabetes):
    from sklearn.model_selection import KFold

    X, y = diabetes
    X, y = X[:120], y[:120]
    gb = GradientBoostingRegressor(n_estimators=10, subsample=0.5, random_state=0)
    scorer = make_stability_scorer("icc")
    advice = r"predstab\.RefitEnsemble\(GradientBoostingRegressor\(\.\.\.\)"
    with pytest.raises(TypeError, match=advice) as info:
        cross_validate(gb, X, y, scoring=scorer, cv=3, error_score="raise")
    assert "cannot change per fold" in str(info.value)  # fit_data is not the advice for cross-validation
    # scikit-learn's default (error_score=nan) shows the same advice in its warning
    with pytest.warns(UserWarning, match="RefitEnsemble"):
        cross_validate(gb, X, y, scoring=scorer, cv=3)
    # and the advice works: each fold's score is the ICC(1) of that fold's refits on its test rows
    folds = KFold(3)
    res = cross_validate(RefitEnsemble(gb, n_repeats=4, random_state=0), X, y, scoring=scorer, cv=folds,
                         error_score="raise", return_estimator=True)
    for (_, test), model, score in zip(folds.split(X), res["estimator"], res["test_score"], strict=True):
        assert score == predstab.icc(model.replicate_predictions(X[test])).value
    assert len(set(res["test_score"])) == 3 and np.all(res["test_score"] < 1)
