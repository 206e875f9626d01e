"""tune_num_learners' refit and pool methods against their definitions: every table row
recomputed from forests refitted with the documented seeds or from the same pool's disjoint groups
of trees, psi's baselines (fixed, K-fold, per forest), importances, classifiers and ordinal
scales, degenerate points and measures that fail at some n.
"""

import time
import types
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import make_classification, make_regression
from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor

import predstab.ensembles._tune_strategies as strategies
import predstab.ensembles._tune_table as table_module
from predstab import (
    PredstabDataWarning,
    PredstabWarning,
    TreePool,
    fleiss_kappa,
    icc,
    importance_stability,
    phi,
    psi,
    selection_stability,
    tune_num_learners,
)
from predstab._core._utils import check_rng, seeds_from
from predstab.ensembles._forest import tree_permutation_importances
from tests.ensembles._forests import oob_mean, oob_of, refit_forests
from tests.ensembles._tuning import (
    CLF,
    EST,
    ESTIMATOR_TEXT,
    GRID,
    GRID32,
    LABELS,
    RARE_GRID,
    RARE_Y,
    XC,
    XTE,
    XTE20,
    XTR,
    XTR50,
    YC,
    YTR,
    YTR50,
    _assert_fits_and_recommendations,
    _Clock,
    _defaults,
    _forest_importance,
    _group_predictions,
    _groups,
    _optrf_recommendations,
    _quiet50,
    _refits,
    _tune,
    order_interval,
)

# the independent computations measure few forests (PredstabDataWarning: fewer than 5)
pytestmark = pytest.mark.filterwarnings("ignore::predstab.PredstabDataWarning")


def _refits50(estimator, grid, n_repeats, X, y, seed=0):
    """The forests of method="refit": seeds drawn as tune_num_learners draws them."""
    return refit_forests(estimator, grid, n_repeats, X, y, seed)[0]


# ----------------------------------------------------------------------------------------- methods
def test_refit_is_refits_with_derived_seeds():
    res = _quiet50(method="refit", measures=("icc",))
    forests = _refits50(EST, GRID32, 3, XTR50, YTR50)
    for gi, n in enumerate(GRID32):
        m = np.column_stack([f.predict(XTE20) for f in forests[n]])
        assert res.table.loc[gi, "icc"] == pytest.approx(icc(m).value, rel=1e-12)
    assert (res.table["n_forests"] == 3).all() and (res.table["seconds"] > 0).all()


# ------------------------------------------------------------------------------------------ refit
def test_refit_rows_are_the_measures_of_refits_with_the_documented_seeds(monkeypatch):
    # one fit takes 0.1 + 0.01 n + 0.001 r seconds (r: the repeat); the clock is read before and after
    fits = [(n, r) for n in sorted(GRID, reverse=True) for r in range(3)]  # the largest forests first
    steps = [s for n, r in fits for s in (1.0, 0.1 + 0.01 * n + 0.001 * r)]
    monkeypatch.setattr(strategies, "time", types.SimpleNamespace(perf_counter=_Clock(steps)))
    calls = []
    res = _tune(method="refit", measures=("icc", "phi", "psi", "selection"),
                progress=lambda done, total: calls.append((done, total)))
    forests, seeds = _refits()
    baseline = oob_of(forests[8][0], XTR)  # psi's fixed baseline: the first refit of the largest n
    for gi, n in enumerate(GRID):
        preds = np.column_stack([f.predict(XTE) for f in forests[n]])
        row = res.table.loc[gi]
        assert row["n_learners"] == n and row["n_forests"] == 3 and row["degenerate"] == ""
        assert row["icc"] == pytest.approx(icc(preds).value, rel=1e-12)
        assert row["phi"] == pytest.approx(phi(preds, YTR).value, rel=1e-12)
        assert row["psi"] == pytest.approx(psi(preds, baseline).value, rel=1e-12)
        assert row["selection"] == pytest.approx(selection_stability(preds, fraction=0.15).value, rel=1e-12)
        assert row["seconds"] == pytest.approx(0.1 + 0.01 * n + 0.001, rel=1e-9)  # the mean over r
    assert calls == [(i, 9) for i in range(1, 10)]
    assert list(res.table.columns) == ["n_learners", "icc", "phi", "psi", "selection", "degenerate",
                                       "seconds", "n_forests"]
    slope, intercept = np.polyfit(res.table["n_learners"], res.table["seconds"], 1)
    assert res.runtime == pytest.approx((intercept, slope), rel=1e-9)
    assert res.runtime == pytest.approx((0.101, 0.01), rel=1e-9)
    assert res.seconds_for(600) == pytest.approx(0.101 + 6.0, rel=1e-9)
    _assert_fits_and_recommendations(res, ("icc", "phi", "psi", "selection"))
    preds8 = np.column_stack([f.predict(XTE) for f in forests[8]])
    np.testing.assert_allclose(res.largest_phi.per_object, phi(preds8, YTR).per_object, rtol=1e-12)
    np.testing.assert_allclose(res.largest_psi.per_object, psi(preds8, baseline).per_object, rtol=1e-12)
    assert res.psi_baseline == ("out-of-bag predictions of one forest of 8 learners (the first refit of the "
                                "largest grid value), the same for every n")
    assert res.method == "refit" and res.pool_size is None and res.primary == "icc"
    assert res.measures == ("icc", "phi", "psi", "selection")
    assert res.settings == {
        "estimator": ESTIMATOR_TEXT,
        "estimator_params": {"max_features": 2, "min_samples_leaf": 3, "max_samples": None, "bootstrap": True,
                             "max_depth": None, "criterion": "squared_error"},
        "grid": [2, 4, 8], "n_repeats": 3, "method": "refit", "measures": ["icc", "phi", "psi", "selection"],
        "scale": "metric", "categories": None, "voting": None, "target": 0.95, "rule": "optRF",
        "rec_thresh": 1e-6, "round_to": "thousand", "n_resamples": 0, "confidence_level": 0.95,
        "select_fraction": 0.15}
    assert np.isnan(res.confidence_interval.low) and np.isnan(res.unrounded_interval.high)
    assert seeds.shape == (3, 3)


# ----------------------------------------------------------------------------------------- bugs
def test_training_rows_are_predicted_out_of_bag():
    # without X_test every refit predicts its training rows out of bag (optRF's behaviour); an
    # in-sample prediction would make every forest agree far more
    grid = (8, 16, 32)
    res = tune_num_learners(EST, XTR50, YTR50, grid=grid, n_repeats=3, method="refit", measures=("icc",
                                                                                                 "phi"),
                            n_resamples=0, random_state=0)
    forests = _refits50(EST, grid, 3, XTR50, YTR50)
    for gi, n in enumerate(grid):
        oob = np.column_stack([oob_of(f, XTR50) for f in forests[n]])
        assert res.table.loc[gi, "icc"] == pytest.approx(icc(oob).value, rel=1e-12)
        in_sample = np.column_stack([f.predict(XTR50) for f in forests[n]])
        assert abs(icc(in_sample).value - icc(oob).value) > 0.01  # the test tells the two apart
    np.testing.assert_allclose(res.largest_phi.per_object,
                               phi(np.column_stack([oob_of(f, XTR50) for f in forests[32]]),
                                   YTR50).per_object,
                               rtol=1e-12)


def test_refit_without_test_rows_predicts_out_of_bag_and_per_forest_baselines():
    res = _tune(method="refit", X_test=None, measures=("icc", "psi"), psi_baseline="per_forest")
    forests, _ = _refits()
    for gi, n in enumerate(GRID):
        oob = np.column_stack([oob_of(f, XTR) for f in forests[n]])
        assert res.table.loc[gi, "icc"] == pytest.approx(icc(oob).value, rel=1e-12)
        assert res.table.loc[gi, "psi"] == pytest.approx(psi(oob, oob).value, rel=1e-12)
    assert res.psi_baseline == "each forest's own out-of-bag predictions (moves with n)"


def test_refit_per_forest_baseline_with_test_rows():
    res = _tune(method="refit", measures=("psi",), psi_baseline="per_forest")
    forests, _ = _refits()
    for gi, n in enumerate(GRID):
        preds = np.column_stack([f.predict(XTE) for f in forests[n]])
        space = np.column_stack([oob_of(f, XTR) for f in forests[n]])
        assert res.table.loc[gi, "psi"] == pytest.approx(psi(preds, space).value, rel=1e-12)
    np.testing.assert_allclose(res.largest_psi.per_object,
                               psi(np.column_stack([f.predict(XTE) for f in forests[8]]),
                                   np.column_stack([oob_of(f, XTR) for f in forests[8]])).per_object,
                               rtol=1e-12)


@pytest.mark.parametrize("method", ["pool", "refit"])
def test_per_forest_psi_baseline_is_each_forests_out_of_bag_predictions(method):
    res = _quiet50(method=method, measures=("psi",), psi_baseline="per_forest", pool_size=96)
    if method == "pool":
        pool = TreePool(EST, n_learners=96, random_state=0).fit(XTR50, YTR50, XTE20)
        trees = list(zip(pool.ensemble_.estimators_, pool.ensemble_.estimators_samples_, strict=True))
        groups = {n: [trees[j * n:(j + 1) * n] for j in range(3)] for n in GRID32}
    else:
        forests = _refits50(EST, GRID32, 3, XTR50, YTR50)
        groups = {n: [list(zip(f.estimators_, f.estimators_samples_, strict=True)) for f in forests[n]]
                  for n in GRID32}
    for gi, n in enumerate(GRID32):
        test = np.column_stack([np.mean([t.predict(XTE20) for t, _ in g], axis=0) for g in groups[n]])
        space = np.column_stack([oob_mean(g, XTR50) for g in groups[n]])
        assert res.table.loc[gi, "psi"] == pytest.approx(psi(test, space).value, rel=1e-10)
    assert res.psi_baseline.startswith("each forest's own out-of-bag")


def test_refit_importances_impurity_and_permutation():
    forests, seeds = _refits()
    res = _tune(method="refit", measures=("importance", "importance_selection"),
                importance={"kind": "impurity", "fraction": 0.5})
    for gi, n in enumerate(GRID):
        imp = np.column_stack([_forest_importance(f.estimators_) for f in forests[n]])
        expected = importance_stability(imp, fraction=0.5)
        assert res.table.loc[gi, "importance"] == pytest.approx(expected.value, rel=1e-10)
        assert res.table.loc[gi, "importance_selection"] == pytest.approx(expected.selection, rel=1e-10)
    assert res.settings["importance"] == "impurity" and res.settings["importance_fraction"] == 0.5
    assert "select_fraction" not in res.settings
    res = _tune(method="refit", measures=("importance",), importance={"fraction": 0.5})
    for gi, n in enumerate(GRID):
        imp = np.column_stack([tree_permutation_importances(f, XTR, YTR, np.random.default_rng(int(s)))
                               .mean(axis=1) for f, s in zip(forests[n], seeds[gi], strict=True)])
        assert res.table.loc[gi, "importance"] == pytest.approx(
            importance_stability(imp, fraction=0.5).value, rel=1e-10)
    assert res.settings["importance"] == "permutation"


def test_impurity_importances_of_refits_are_the_forests():
    res = _quiet50(method="refit", measures=("importance",), importance={"kind": "impurity", "fraction": 0.5})
    forests = _refits50(EST, GRID32, 3, XTR50, YTR50)
    for gi, n in enumerate(GRID32):
        imp = np.column_stack([_forest_importance(f.estimators_) for f in forests[n]])
        assert res.table.loc[gi, "importance"] == pytest.approx(
            importance_stability(imp, fraction=0.5).value, rel=1e-10)


def test_pool_is_disjoint_groups_of_one_pool():
    res = _quiet50(method="pool", measures=("icc", "selection"), pool_size=96)
    pool = TreePool(EST, n_learners=96, random_state=0).fit(XTR50, YTR50, XTE20, oob=False)
    for gi, n in enumerate(GRID32):
        assert res.table.loc[gi, "icc"] == pytest.approx(icc(pool.forests(n, n_forests=3)).value, rel=1e-12)
    assert res.table["n_forests"].tolist() == [3, 3, 3, 3]


# ------------------------------------------------------------------------------------------- pool
def test_pool_rows_bands_interval_and_run_time(monkeypatch):
    clock = _Clock([1.5])  # every reading 1.5 s after the last: the pool's fit takes 1.5 s
    monkeypatch.setattr(time, "perf_counter", clock)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PredstabWarning)
        res = tune_num_learners(EST, XTR, YTR, XTE, grid=GRID, n_repeats=3, method="pool", pool_size=24,
                                measures=("icc", "phi", "psi", "selection"), n_resamples=10, random_state=0)
    monkeypatch.undo()
    rng = check_rng(0)
    pool = TreePool(EST, n_learners=24, random_state=rng).fit(XTR, YTR, XTE)
    baseline = oob_mean(_groups(pool, 8, 1)[0], XTR)  # the first max(grid) = 8 learners of the pool
    preds = {n: _group_predictions(pool, n, 3, XTE) for n in GRID}
    measures = {"icc": lambda p: icc(p).value, "phi": lambda p: phi(p, YTR).value,
                "psi": lambda p: psi(p, baseline).value,
                "selection": lambda p: selection_stability(p, fraction=0.15).value}
    for m, f in measures.items():
        np.testing.assert_allclose(res.table[m], [f(preds[n]) for n in GRID], rtol=1e-10)
    # the bands: the test objects resampled after the pool, the same rows for every n and measure
    curves = {m: [] for m in measures}
    for _ in range(10):
        rows = rng.integers(0, len(XTE), len(XTE))
        for m, f in measures.items():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                curves[m].append([f(preds[n][rows]) for n in GRID])
    for m in measures:
        low, high = np.nanquantile(np.array(curves[m]), [0.025, 0.975], axis=0)
        np.testing.assert_allclose(res.table[f"{m}_low"], low, rtol=1e-10)
        np.testing.assert_allclose(res.table[f"{m}_high"], high, rtol=1e-10)
        np.testing.assert_allclose(res.bands[m]["low"], low, rtol=1e-10)
        np.testing.assert_allclose(res.bands[m]["high"], high, rtol=1e-10)
        assert res.bands[m]["n_learners"].tolist() == [2, 4, 8]
    assert list(res.table.columns) == ["n_learners", "icc", "icc_low", "icc_high", "phi", "phi_low",
                                       "phi_high", "psi", "psi_low", "psi_high", "selection", "selection_low",
                                       "selection_high", "degenerate", "seconds", "n_forests"]
    # the recommendation's interval: optRF's rule on each resampled icc curve, percentiles of those
    rounded, raw = _optrf_recommendations(curves["icc"])
    assert len(rounded) >= 5
    assert tuple(res.confidence_interval) == order_interval(rounded, 0.95)
    assert tuple(res.unrounded_interval) == order_interval(raw, 0.95)
    _assert_fits_and_recommendations(res, tuple(measures))
    assert res.recommendation == res.recommendations["icc"].value
    # run time: the pool's fit time spread over its learners, seconds = 1.5 n / 24
    np.testing.assert_allclose(res.table["seconds"], [1.5 * n / 24 for n in GRID], rtol=1e-12)
    assert res.runtime == pytest.approx((0.0, 1.5 / 24), abs=1e-12)
    assert res.recommendation_seconds == pytest.approx(res.recommendation * 1.5 / 24, rel=1e-9)
    assert res.table["n_forests"].tolist() == [3, 3, 3] and res.pool_size == 24
    assert res.psi_baseline == ("out-of-bag predictions of one forest of 8 learners (the first 8 of the "
                                "pool), "
                                "the same for every n")
    assert res.interval_covers == ("test objects resampled, the forests held fixed: the sampling of the test "
                                   "objects, not of new forests")
    np.testing.assert_allclose(res.largest_phi.per_object, phi(preds[8], YTR).per_object, rtol=1e-10)


# ----------------------------------------------------------------------------------------- defaults
def test_default_pool_gives_every_grid_value_its_n_repeats_forests():
    # issue 22 item 19: one rule for Python and the CLI, n_repeats x max(grid) (the old Python
    # default, 2 x max(grid), silently cut n_repeats to 2 forests at the largest grid value)
    grid = (5, 10, 20)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = tune_num_learners(RandomForestRegressor(n_estimators=1), XTR50, YTR50, XTE20, grid=grid,
                                n_repeats=4,
                                measures=("icc",), n_resamples=0, random_state=0)
    assert not [w for w in caught if "pool" in str(w.message)]
    assert res.pool_size == 4 * 20 and res.table["n_forests"].tolist() == [4, 4, 4]
    assert not any("fewer than n_repeats" in note for note in res.notes)
    assert res.settings["pool_size"] == "n_repeats x the largest grid value (the default)"
    assert str(res).splitlines()[0] == (" Stability against the number of learners (method pool; a pool of "
                                        "80 learners = n_repeats x the largest grid value, the default)")
    given = tune_num_learners(RandomForestRegressor(n_estimators=1), XTR50, YTR50, XTE20, grid=grid,
                              n_repeats=2,
                              measures=("icc",), pool_size=40, n_resamples=0, random_state=0)
    assert given.settings["pool_size"] == "given" and "the default" not in str(given).splitlines()[0]
    with pytest.warns(PredstabDataWarning, match="fewer than n_repeats=3"):
        tune_num_learners(EST, XTR50, YTR50, XTE20, grid=GRID32, n_repeats=3, measures=("icc",), pool_size=64,
                          n_resamples=0, random_state=0)
    with pytest.raises(ValueError, match="at least 2 disjoint forests"):
        tune_num_learners(EST, XTR50, YTR50, XTE20, grid=GRID32, pool_size=40, random_state=0)


def test_pool_too_small_for_n_repeats_uses_fewer_forests_with_a_note_and_a_warning():
    with pytest.warns(PredstabDataWarning) as caught:
        res = tune_num_learners(EST, XTR, YTR, XTE, grid=(2, 4, 9), n_repeats=3, method="pool", pool_size=20,
                                measures=("icc",), n_resamples=0, random_state=0)
    text = ("The pool of 20 learners holds fewer than n_repeats=3 disjoint forests for n = 9 (2) "
            "(forests used in brackets)")
    assert [str(w.message) for w in caught if w.category is PredstabDataWarning] == [
        f"{text}; pass pool_size >= 27 for 3 forests everywhere."]
    assert res.notes == (text + ".",)
    assert res.table["n_forests"].tolist() == [3, 3, 2]
    pool = TreePool(EST, n_learners=20, random_state=0).fit(XTR, YTR, XTE, oob=False)
    for gi, (n, k) in enumerate([(2, 3), (4, 3), (9, 2)]):
        assert res.table.loc[gi, "icc"] == pytest.approx(icc(_group_predictions(pool, n, k, XTE)).value,
                                                         rel=1e-10)
    # the default pool (n_repeats x max(grid)) holds n_repeats forests of every grid value
    with warnings.catch_warnings():
        warnings.simplefilter("error", PredstabDataWarning)
        res = _tune(method="pool", measures=("icc",), grid=(2, 4, 9))
    assert res.pool_size == 27 and res.table["n_forests"].tolist() == [3, 3, 3] and res.notes == ()


def test_pool_smaller_than_the_largest_forest_fits_a_baseline_forest():
    # closed form with a pool of 6 learners: the fixed baseline is one forest of 8 fitted for it
    res = _tune(method="closed_form", pool_size=6, measures=("psi",))
    rng = check_rng(0)
    pool = TreePool(EST, n_learners=6, random_state=rng).fit(XTR, YTR, XTE)
    seed = int(seeds_from(rng, 1)[0])
    forest = clone(EST).set_params(n_estimators=8, random_state=seed).fit(XTR, YTR)
    baseline = oob_of(forest, XTR)
    np.testing.assert_allclose(res.table["psi"], pool.closed_form(GRID, measure="psi",
                                                                  baseline=baseline).curve,
                               rtol=1e-10)
    assert res.psi_baseline == ("out-of-bag predictions of one forest of 8 learners (fitted for the "
                                "baseline: "
                                "the pool has 6), the same for every n")
    assert res.table["n_forests"].tolist() == [0, 0, 0]  # closed forms only: no forests behind a value


def test_pool_per_forest_baselines_and_importances():
    res = _tune(method="pool", pool_size=24, measures=("psi", "importance", "importance_selection"),
                psi_baseline="per_forest", importance={"fraction": 0.5})
    rng = check_rng(0)
    pool = TreePool(EST, n_learners=24, random_state=rng).fit(XTR, YTR, XTE)
    tree_imp = tree_permutation_importances(pool.ensemble_, XTR, YTR, rng)  # drawn after the pool
    for gi, n in enumerate(GRID):
        space = np.column_stack([oob_mean(g, XTR) for g in _groups(pool, n, 3)])
        expected = psi(_group_predictions(pool, n, 3, XTE), space).value
        assert res.table.loc[gi, "psi"] == pytest.approx(expected, rel=1e-10)
        # ranger's permutation importance of a forest: the mean over its trees
        imp = np.column_stack([tree_imp[:, j * n:(j + 1) * n].mean(axis=1) for j in range(3)])
        stab = importance_stability(imp, fraction=0.5)
        assert res.table.loc[gi, "importance"] == pytest.approx(stab.value, rel=1e-10)
        assert res.table.loc[gi, "importance_selection"] == pytest.approx(stab.selection, rel=1e-10)


def test_pool_impurity_importances_are_renormalised_means():
    res = _tune(method="pool", pool_size=24, measures=("importance",),
                importance={"kind": "impurity", "fraction": 0.5})
    pool = TreePool(EST, n_learners=24, random_state=0).fit(XTR, YTR, XTE, oob=False)
    for gi, n in enumerate(GRID):
        imp = np.column_stack([_forest_importance([t for t, _ in g]) for g in _groups(pool, n, 3)])
        assert res.table.loc[gi, "importance"] == pytest.approx(
            importance_stability(imp, fraction=0.5).value, rel=1e-10)


def test_impurity_importances_of_pool_forests_are_normalised():
    # y is 0 except one row: every bootstrap sample without that row gives a tree without a
    # split (importances all 0), so the mean over a group sums to less than 1 unless
    # renormalised as scikit-learn's forests are
    rng = np.random.default_rng(5)
    Xi = rng.normal(size=(30, 10))
    yi = np.zeros(30)
    yi[0] = 1.0
    est = RandomForestRegressor(max_depth=2)
    grid = (5, 10, 20)
    res = tune_num_learners(est, Xi, yi, grid=grid, n_repeats=3, method="pool", pool_size=60,
                            measures=("importance", "importance_selection"), importance={"kind": "impurity"},
                            n_resamples=0, random_state=0)
    pool = TreePool(est, n_learners=60, random_state=0).fit(Xi, yi)
    trees = pool.ensemble_.estimators_
    assert any(t.tree_.node_count == 1 for t in trees)  # the case the renormalisation is for
    for gi, n in enumerate(grid):
        imp = np.column_stack([_forest_importance(trees[j * n:(j + 1) * n]) for j in range(3)])
        expected = importance_stability(imp, fraction=1)  # the default: 5% of 10 variables is none; one
        assert res.table.loc[gi, "importance"] == pytest.approx(expected.value, rel=1e-10)
        assert res.table.loc[gi, "importance_selection"] == pytest.approx(expected.selection, rel=1e-10)
    assert res.settings["importance_fraction"] == 1


def test_impurity_importances_of_groups_with_unsplit_trees_are_renormalised():
    # y is 0 except one row: a bootstrap sample without that row gives a tree without a split
    # (importances all 0), so a group's mean sums to less than 1 unless renormalised
    rng = np.random.default_rng(5)
    Xi = rng.normal(size=(30, 4))
    yi = np.zeros(30)
    yi[0] = 1.0
    est = RandomForestRegressor(max_depth=2)
    res = _tune(estimator=est, X=Xi, y=yi, X_test=None, method="pool", pool_size=24,
                measures=("importance", "importance_selection"),
                importance={"kind": "impurity", "fraction": 0.5})
    pool = TreePool(est, n_learners=24, random_state=0).fit(Xi, yi)
    trees = pool.ensemble_.estimators_
    assert any(t.tree_.node_count == 1 for t in trees)
    for gi, n in enumerate(GRID):
        imp = np.column_stack([_forest_importance(trees[j * n:(j + 1) * n]) for j in range(3)])
        expected = importance_stability(imp, fraction=0.5)
        assert res.table.loc[gi, "importance"] == pytest.approx(expected.value, rel=1e-10)
        assert res.table.loc[gi, "importance_selection"] == pytest.approx(expected.selection, rel=1e-10)


def test_groups_of_unsplit_trees_have_zero_importances():
    # (features, trees): the first group's two trees have no split
    tree_imp = np.array([[0.0, 0.0, 0.5, 1.0], [0.0, 0.0, 0.5, 0.0], [0.0, 0.0, 0.0, 0.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no 0 / 0
        got = strategies._grouped_importances(tree_imp, 2, 2, normalise=True)
    np.testing.assert_array_equal(got, [[0.0, 0.75 / 1.0], [0.0, 0.25], [0.0, 0.0]])
    np.testing.assert_array_equal(strategies._grouped_importances(tree_imp, 2, 2, normalise=False),
                                  [[0.0, 0.75], [0.0, 0.25], [0.0, 0.0]])


def test_importance_primary_resamples_the_variables():
    res = _tune(method="pool", pool_size=24, measures=("importance", "icc"), n_resamples=5,
                importance={"kind": "impurity", "fraction": 0.5})
    rng = check_rng(0)
    pool = TreePool(EST, n_learners=24, random_state=rng).fit(XTR, YTR, XTE, oob=False)
    imp = {n: np.column_stack([_forest_importance([t for t, _ in g]) for g in _groups(pool, n, 3)])
           for n in GRID}
    curves = []
    for _ in range(5):
        rows = rng.integers(0, 4, 4)  # the variables resampled
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            curves.append([importance_stability(imp[n][rows], fraction=0.5).value for n in GRID])
    low, high = np.nanquantile(np.array(curves, dtype=float), [0.025, 0.975], axis=0)
    np.testing.assert_allclose(res.table["importance_low"], low, rtol=1e-10)
    np.testing.assert_allclose(res.table["importance_high"], high, rtol=1e-10)
    assert "icc_low" not in res.table  # another kind of object: no band from these resamples


@pytest.mark.filterwarnings("ignore::predstab.PredstabDataWarning")
def test_kfold_psi_baseline_is_fixed_out_of_fold_predictions():
    from sklearn.model_selection import KFold, cross_val_predict

    res = _quiet50(method="pool", measures=("psi",), psi_baseline="kfold", pool_size=96)
    rng = check_rng(0)
    seed = int(seeds_from(rng, 1)[0])  # the first seed drawn goes to the K-fold forest
    space = cross_val_predict(clone(EST).set_params(n_estimators=32, random_state=seed), XTR50, YTR50,
                              cv=KFold(5, shuffle=True, random_state=seed))
    pool = TreePool(EST, n_learners=96, random_state=rng).fit(XTR50, YTR50, XTE20, oob=False)
    for gi, n in enumerate(GRID32):
        assert res.table.loc[gi, "psi"] == pytest.approx(psi(pool.forests(n, n_forests=3), space).value,
                                                         rel=1e-12)
    assert res.psi_baseline.startswith("5-fold out-of-fold predictions of forests of 32 learners")


# ------------------------------------------------------------------------- baselines, precision, failures
def test_kfold_psi_baseline_of_the_pool():
    from sklearn.model_selection import KFold, cross_val_predict

    calls = []
    res = _tune(method="pool", pool_size=24, measures=("psi",), psi_baseline="kfold",
                progress=lambda d, t: calls.append((d, t)))
    rng = check_rng(0)
    seed = int(seeds_from(rng, 1)[0])
    space = cross_val_predict(clone(EST).set_params(n_estimators=8, random_state=seed), XTR, YTR,
                              cv=KFold(5, shuffle=True, random_state=seed))
    pool = TreePool(EST, n_learners=24, random_state=rng).fit(XTR, YTR, XTE, oob=False)
    for gi, n in enumerate(GRID):
        expected = psi(_group_predictions(pool, n, 3, XTE), space).value
        assert res.table.loc[gi, "psi"] == pytest.approx(expected, rel=1e-10)
    assert res.psi_baseline == "5-fold out-of-fold predictions of forests of 8 learners, the same for every n"
    # the pool ticks as it grows (20 warm-started steps of its 24 trees; the same trees, as the
    # psi values above show), then as its predictions are cached: 20 chunks of its 24 trees
    # (np.array_split: 4 of 2 trees, 16 of 1) on the test rows only (kfold: no out-of-bag cache)
    steps = sorted({24 * k // 20 for k in range(1, 21)})
    chunk_ends = np.cumsum([2] * 4 + [1] * 16)
    assert calls == [(k, 24) for k in steps] + [(int(k), 24) for k in chunk_ends]


def test_psi_without_out_of_bag_rows_needs_kfold():
    from sklearn.ensemble import ExtraTreesRegressor
    from sklearn.model_selection import KFold, cross_val_predict

    with pytest.raises(ValueError, match="psi_baseline='kfold'"):
        tune_num_learners(ExtraTreesRegressor(), XTR50, YTR50, XTE20, grid=GRID32, measures=("psi",))
    est = ExtraTreesRegressor(max_features=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PredstabWarning)
        res = tune_num_learners(est, XTR50, YTR50, XTE20, grid=GRID32, n_repeats=3, measures=("icc", "psi"),
                                psi_baseline="kfold", pool_size=96, n_resamples=0, random_state=0)
    rng = check_rng(0)
    seed = int(seeds_from(rng, 1)[0])
    space = cross_val_predict(clone(est).set_params(n_estimators=32, random_state=seed), XTR50, YTR50,
                              cv=KFold(5, shuffle=True, random_state=seed))
    pool = TreePool(est, n_learners=96, random_state=rng).fit(XTR50, YTR50, XTE20, oob=False)
    expected = psi(pool.forests(32, n_forests=3), space).value
    assert res.table.loc[3, "psi"] == pytest.approx(expected, rel=1e-12)


# ----------------------------------------------------------------------------------------- issue 15
@pytest.mark.slow
def test_one_psi_baseline_for_every_method_and_the_methods_agree():
    # the same definition for refit, pool and closed form (out-of-bag predictions of one forest
    # of max(grid) learners), so their psi curves estimate the same thing: over 5 seeds the mean
    # curves agree within 3 standard errors of their difference (the run-to-run spread, from
    # the forests and the baseline forest, measured here)
    Xa, ya = make_regression(100, 5, noise=30, random_state=2)
    grid = (2, 4, 8, 16)
    est = RandomForestRegressor(max_features=2, min_samples_leaf=3, max_depth=6)
    curves = {"refit": [], "pool": [], "closed_form": []}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PredstabWarning)
        for seed in range(5):
            for method in curves:
                res = tune_num_learners(est, Xa[:80], ya[:80], Xa[80:], grid=grid, n_repeats=4,
                                        measures=("psi",), method=method, pool_size=96, n_resamples=0,
                                        random_state=seed)
                assert "one forest of 16 learners" in res.psi_baseline, method
                curves[method].append(res.table["psi"].to_numpy())
    runs = {m: np.array(c) for m, c in curves.items()}
    for method in ("pool", "closed_form"):
        diff = runs[method].mean(axis=0) - runs["refit"].mean(axis=0)
        se = np.sqrt(runs[method].var(axis=0, ddof=1) / 5 + runs["refit"].var(axis=0, ddof=1) / 5)
        assert np.all(np.abs(diff) < 3 * se), (method, diff, se)


# ------------------------------------------------------------------------------------- classifiers
def _votes(forest, X, rows_mask=None):
    """Majority vote of the trees (each votes for its most probable class; ties to the first class),
    over the trees whose mask is True for a row; None where no tree votes."""
    labels = np.empty(len(X), dtype=object)
    votes = np.zeros((len(X), len(forest.classes_)))
    for j, tree in enumerate(forest.estimators_):
        choice = tree.predict_proba(X).argmax(axis=1)
        use = np.ones(len(X), dtype=bool) if rows_mask is None else rows_mask[j]
        votes[np.flatnonzero(use), choice[use]] += 1
    for i in range(len(X)):
        labels[i] = None if votes[i].sum() == 0 else forest.classes_[int(np.argmax(votes[i]))]
    return labels


def _oob_masks(forest, n_rows):
    masks = np.ones((len(forest.estimators_), n_rows), dtype=bool)
    for j, sample in enumerate(forest.estimators_samples_):
        masks[j, sample] = False
    return masks


def test_classifier_refit_hard_votes_and_its_measures():
    grid = (3, 5, 9)
    res = _tune(estimator=CLF, X=XC[:30], y=LABELS[:30], X_test=XC[30:], method="refit", grid=grid,
                measures=("fleiss", "phi", "psi", "selection"))
    forests, _ = _refits(grid=grid, estimator=CLF, X=XC[:30], y=LABELS[:30])
    baseline = _votes(forests[9][0], XC[:30], _oob_masks(forests[9][0], 30))
    for gi, n in enumerate(grid):
        preds = np.column_stack([_votes(f, XC[30:]) for f in forests[n]])
        row = res.table.loc[gi]
        assert row["fleiss"] == pytest.approx(fleiss_kappa(preds).value, abs=1e-12)
        assert row["phi"] == pytest.approx(phi(preds, LABELS[:30], scale="categorical").value, abs=1e-12)
        assert row["psi"] == pytest.approx(psi(preds, baseline, scale="categorical").value, abs=1e-12)
        expected = selection_stability(preds, select_for="yes").value  # the last of the sorted classes
        assert row["selection"] == pytest.approx(expected, abs=1e-12)
    assert res.primary == "fleiss" and res.settings["voting"] == "hard"
    assert res.settings["scale"] == "categorical"
    # soft voting: the forests' own predict
    res = _tune(estimator=CLF, X=XC[:30], y=LABELS[:30], X_test=XC[30:], method="refit", grid=grid,
                measures=("fleiss",), voting="soft")
    for gi, n in enumerate(grid):
        preds = np.column_stack([f.predict(XC[30:]) for f in forests[n]])
        assert res.table.loc[gi, "fleiss"] == pytest.approx(fleiss_kappa(preds).value, abs=1e-12)
    assert res.settings["voting"] == "soft"


def test_classifier_default_measures_and_selected_class():
    # (issue 35: selection is no default of a classifier, whose two-class selection is Fleiss' again)
    res = _tune(estimator=CLF, X=XC[:30], y=YC[:30], X_test=XC[30:], method="pool", grid=(2, 3, 4),
                pool_size=8, measures=("fleiss", "phi", "psi", "selection"))
    assert res.measures == ("fleiss", "phi", "psi", "selection") and res.pool_size == 8
    pool = TreePool(CLF, n_learners=8, voting="hard", random_state=0).fit(XC[:30], YC[:30], XC[30:])
    for gi, (n, k) in enumerate(((2, 3), (3, 2), (4, 2))):
        expected = selection_stability(pool.forests(n, n_forests=k), select_for=1).value  # the last class
        assert res.table.loc[gi, "selection"] == pytest.approx(expected, abs=1e-12)


def test_classifier_measures_and_progress():
    Xc, yc = make_classification(80, 6, n_informative=3, random_state=3)
    labels = np.where(yc == 1, "high", "low")
    calls = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PredstabWarning)
        res = tune_num_learners(RandomForestClassifier(max_features=2), Xc[:60], labels[:60], Xc[60:],
                                grid=(3, 6, 12), n_repeats=3, method="refit",
                                selection={"select_for": "high"},
                                measures=("fleiss", "selection", "phi", "psi"), n_resamples=0,
                                random_state=0, progress=lambda d, t: calls.append((d, t)))
    assert calls[-1] == (9, 9)
    # selecting one of two classes relabels the predictions: optRF reports equal values
    np.testing.assert_allclose(res.table["selection"], res.table["fleiss"], rtol=1e-12)


def test_classifier_defaults_select_the_last_class():
    # optRF's "high" is no class of 0/1 labels, so a classifier selects its last class
    # (scikit-learn's positive class) unless told otherwise
    Xc, yc = make_classification(80, 6, n_informative=3, random_state=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PredstabWarning)
        res = tune_num_learners(RandomForestClassifier(max_features=2), Xc[:60], yc[:60], Xc[60:],
                                grid=(3, 6, 12), n_repeats=3, n_resamples=0, random_state=0,
                                measures=("fleiss", "selection"))
        named = tune_num_learners(RandomForestClassifier(max_features=2), Xc[:60], yc[:60], Xc[60:],
                                  grid=(3, 6, 12), n_repeats=3, n_resamples=0, random_state=0,
                                  selection={"select_for": 1}, measures=("fleiss", "selection"))
    assert "selection" in res.table
    np.testing.assert_allclose(res.table["selection"], named.table["selection"], rtol=1e-12)
    with pytest.raises(ValueError, match="some but not all classes"):
        tune_num_learners(RandomForestClassifier(), Xc[:60], yc[:60], Xc[60:], grid=(3, 6, 12),
                          selection={"select_for": "high"}, measures=("fleiss", "selection"))


def test_classifier_default_selects_the_last_of_three_sorted_classes():
    y3 = np.array(["lo", "mid", "hi"], dtype=object)[np.arange(30) % 3]
    assert _defaults(CLF, y3, XC[30:])[3] == "mid"  # sorted: hi, lo, mid


def test_classifier_with_integer_labels_measures_psi_on_the_categorical_scale():
    res = _tune(estimator=CLF, X=XC[:30], y=YC[:30], X_test=XC[30:], method="pool", grid=(2, 3, 4),
                measures=("fleiss", "psi"), pool_size=8)
    pool = TreePool(CLF, n_learners=8, voting="hard", random_state=0).fit(XC[:30], YC[:30], XC[30:])
    baseline = pool.forests(4, n_forests=1, on="oob")[:, 0]
    for gi, (n, k) in enumerate(((2, 3), (3, 2), (4, 2))):
        forests = pool.forests(n, n_forests=k)
        expected = psi(forests, baseline, scale="categorical")
        assert res.table.loc[gi, "psi"] == pytest.approx(expected.value, abs=1e-12)
        assert expected.value != pytest.approx(psi(forests, baseline.astype(float), scale="metric").value)
    np.testing.assert_allclose(res.largest_psi.per_object, expected.per_object, atol=1e-12)


@pytest.mark.parametrize("select_for", ["high", "low", "zero"])
def test_regressor_selection_directions(select_for):
    res = _tune(method="refit", grid=(2, 3, 4), n_repeats=2, measures=("selection",),
                selection={"select_for": select_for})
    forests, _ = _refits(grid=(2, 3, 4), n_repeats=2)
    preds = np.column_stack([f.predict(XTE) for f in forests[4]])
    assert res.table.loc[2, "selection"] == pytest.approx(
        selection_stability(preds, fraction=0.15, select_for=select_for).value, rel=1e-12)


def test_ordinal_scale_for_phi_and_psi_fleiss_for_optrf():
    rng = np.random.default_rng(1)
    Xo = rng.normal(size=(90, 4))
    levels = ["low", "mid", "high"]
    yo = np.array(levels, dtype=object)[np.digitize(Xo[:, 0] + 0.5 * rng.normal(size=90), [-0.5, 0.5])]
    est = RandomForestClassifier(max_features=2)
    grid = (3, 6, 12)
    res = tune_num_learners(est, Xo[:70], yo[:70], Xo[70:], grid=grid, n_repeats=3,
                            measures=("fleiss", "phi",
                                      "psi"), scale="ordinal", categories=levels, pool_size=36,
                            n_resamples=0, random_state=0)
    pool = TreePool(est, n_learners=36, voting="hard", random_state=0).fit(Xo[:70], yo[:70], Xo[70:])
    baseline = pool.forests(12, n_forests=1, on="oob")[:, 0]
    for gi, n in enumerate(grid):
        forests = pool.forests(n, n_forests=3)
        assert res.table.loc[gi, "phi"] == pytest.approx(
            phi(forests, yo[:70], scale="ordinal", categories=levels).value, rel=1e-12)
        assert res.table.loc[gi, "psi"] == pytest.approx(
            psi(forests, baseline, scale="ordinal", categories=levels).value, rel=1e-12)
        assert res.table.loc[gi, "fleiss"] == pytest.approx(fleiss_kappa(forests).value, rel=1e-12)
    assert res.settings["scale"] == "ordinal"
    with pytest.raises(ValueError, match="`categories`"):
        tune_num_learners(est, Xo[:70], yo[:70], Xo[70:], grid=grid, scale="ordinal", categories=["low",
                                                                                                  "mid"])


def test_ordinal_pool_phi_and_psi():
    levels = ["lo", "mid", "hi"]
    yo = np.array(levels, dtype=object)[np.digitize(YTR, np.quantile(YTR, [1 / 3, 2 / 3]))]
    clf = RandomForestClassifier(max_features=2)
    res = _tune(estimator=clf, y=yo, method="pool", pool_size=24, measures=("fleiss", "phi", "psi"),
                scale="ordinal", categories=levels)
    pool = TreePool(clf, n_learners=24, voting="hard", random_state=0).fit(XTR, yo, XTE)
    baseline = pool.forests(8, n_forests=1, on="oob")[:, 0]
    for gi, n in enumerate(GRID):
        forests = pool.forests(n, n_forests=3)
        assert res.table.loc[gi, "phi"] == pytest.approx(
            phi(forests, yo, scale="ordinal", categories=levels).value, abs=1e-12)
        assert res.table.loc[gi, "psi"] == pytest.approx(
            psi(forests, baseline, scale="ordinal", categories=levels).value, abs=1e-12)
    assert res.settings["categories"] == levels and res.settings["scale"] == "ordinal"
    assert " 3 forests per grid value, hard voting; scale ordinal" in str(res).splitlines()


def test_rare_class_no_measure_aborts_the_run(rare):
    res, pool = rare
    baseline = pool.forests(250, n_forests=1, on="oob")[:, 0]
    for gi, n in enumerate(RARE_GRID):
        forests = pool.forests(n, n_forests=min(10, 500 // n))
        assert res.table.loc[gi, "fleiss"] == pytest.approx(fleiss_kappa(forests).value, abs=1e-12)
        expected_phi = phi(forests, RARE_Y[:400], scale="categorical").value
        assert res.table.loc[gi, "phi"] == pytest.approx(expected_phi, abs=1e-12)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                expected = psi(forests, baseline, scale="categorical").value
        except ValueError:  # APS's rule: a test class absent from the baseline is an error
            expected = np.nan
            assert any(note.startswith("psi could not be computed") and f"{n}" in note for note in res.notes)
        np.testing.assert_allclose(res.table.loc[gi, "psi"], expected, atol=1e-12)


def test_rare_class_degenerate_fleiss_is_marked_and_left_out_of_the_fit(rare):
    res, pool = rare
    one_class = [n for n in RARE_GRID
                 if len(set(pool.forests(n, n_forests=min(10, 500 // n)).ravel().tolist())) == 1]
    assert one_class == [100, 250]  # every forest predicts the majority class for every object
    flagged = [n for n, d in zip(RARE_GRID, res.table["degenerate"], strict=True) if "fleiss" in d.split(",")]
    assert flagged == one_class
    assert res.table.set_index("n_learners").loc[one_class, "fleiss"].tolist() == [1.0, 1.0]  # the convention
    assert res.fits["fleiss"].n.tolist() == [5, 10, 25, 50]  # the 2PL saw only the other points
    assert any("fleiss at n = 100, 250 is degenerate" in note for note in res.notes)
    assert "degenerate" in res.message and res.recommendation is None


# ------------------------------------------------------------------------------------- degenerate
def test_one_class_everywhere_is_degenerate_marked_and_left_out():
    # every test object in one blob: every forest predicts "a" for every object (0/0 of Fleiss' kappa)
    rng = np.random.default_rng(0)
    Xb = np.vstack([rng.normal(0, 1, (15, 2)), rng.normal(12, 1, (15, 2))])
    yb = np.repeat(["a", "b"], 15).astype(object)
    test = rng.normal(0, 1, (8, 2))
    with pytest.warns(PredstabWarning) as caught:
        res = tune_num_learners(RandomForestClassifier(max_features=1), Xb, yb, test, grid=(2, 4, 8),
                                n_repeats=3, measures=("fleiss", "phi", "selection"), method="pool",
                                pool_size=24, n_resamples=0, random_state=0)
    problem = ("the 2PL fit failed on the points left after its degenerate ones (n = 2, 4, 8; see notes)")
    assert res.message == f"fleiss: {problem}."
    assert [str(w.message) for w in caught if w.category is PredstabWarning] == [res.message]
    assert res.table["fleiss"].tolist() == [1.0, 1.0, 1.0] and res.table["selection"].tolist() == [1.0] * 3
    assert res.table["degenerate"].tolist() == ["fleiss,selection"] * 3
    assert res.notes == (
        "fleiss at n = 2, 4, 8 is degenerate (every forest predicted one class for every object: 0/0, set "
        "to 1 "
        "by predstab's convention; irr's kappam.fleiss returns NaN there); marked in the table's "
        "`degenerate` "
        "column and left out of the 2PL fit",
        "selection at n = 2, 4, 8 is degenerate (every forest predicted one class for every object: 0/0, "
        "set to "
        "1 by predstab's convention); marked in the table's `degenerate` column and left out of the 2PL fit")
    fit = res.fits["fleiss"]
    assert (fit.converged, fit.message, fit.poor_fit, fit.flattened, fit.suggested_max) == (
        False, "fewer than 3 usable grid points (0 of 3)", True, False, 32)
    assert fit.n.tolist() == [2.0, 4.0, 8.0] and fit.observed.tolist() == [1.0, 1.0, 1.0]
    assert np.isnan(fit.fitted).all() and np.isnan(fit.residuals).all() and fit.n_evaluations == 0
    assert np.isnan(fit.start).all() and np.isnan(fit.r_squared) and np.isnan(fit.p1) and np.isnan(fit.p2)
    rec = res.recommendations["fleiss"]
    assert (rec.value, rec.rule, rec.n_for_target, rec.unrounded) == (None, "none", None, None)
    assert rec.note == ("No recommendation: the 2PL fit failed (fewer than 3 usable grid points (0 of 3)).")
    assert rec.explain() == f"fleiss: no recommendation ({rec.note})"
    assert res.recommendation is None and not res.reliable
    # phi (categorical, D_e > 0) is 1 everywhere, not degenerate: already stable from the first n
    phi_rec = res.recommendations["phi"]
    assert res.table["phi"].tolist() == [1.0, 1.0, 1.0]
    assert (phi_rec.value, phi_rec.rule, phi_rec.n_for_target) == (2, "already stable", 2)
    assert phi_rec.explain() == ("phi: 2 learners -- the curve is already flat: phi >= 0.95 from 2 "
                                 "learners on, "
                                 "so the smallest such grid value is enough")
    lines = str(res).splitlines()
    assert " Recommendation: none. " + res.message in lines
    header = next(i for i, line in enumerate(lines) if line.split()[:1] == ["n_learners"])
    assert lines[header].split() == ["n_learners", "fleiss", "phi", "selection", "degenerate"]
    assert lines[header + 1].split() == ["2", "1.0000", "1.0000", "1.0000", "fleiss,selection"]
    assert "  note (phi): " + phi_rec.note in lines and " Notes:" in lines
    row = next(line for line in lines if line.split()[:1] == ["fleiss"])
    assert row.split() == ["fleiss", "NA", "NA", "NA", "-", "none", "-", "-"]
    assert "  - " + res.notes[0] in lines


def test_constant_response_is_degenerate_for_icc_and_phi():
    y0 = np.full(30, 3.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PredstabWarning)
        res = tune_num_learners(EST, XTR, y0, XTE, grid=GRID, n_repeats=3, method="pool", pool_size=24,
                                measures=("icc", "phi"), n_resamples=0, random_state=0)
    assert res.table["degenerate"].tolist() == ["icc,phi"] * 3
    what = "no disagreement observed and none expected"
    assert res.notes == tuple(
        f"{m} at n = 2, 4, 8 is degenerate ({what}: 0/0, set to 1 by predstab's convention); marked in the "
        "table's `degenerate` column and left out of the 2PL fit" for m in ("icc", "phi"))


def test_constant_response_bands_follow_the_convention():
    # phi's D_e = 0 (constant y) and D_o = 0: 1 by the convention in every resample too; impurity
    # importances of trees without a split are 0 (no 0 / 0)
    y0 = np.full(30, 3.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PredstabWarning)
        res = tune_num_learners(EST, XTR, y0, XTE, grid=GRID, n_repeats=3, method="pool", pool_size=24,
                                measures=("phi", "icc"), n_resamples=3, random_state=0)
        imp = tune_num_learners(EST, XTR, y0, XTE, grid=GRID, n_repeats=3, method="pool", pool_size=24,
                                measures=("importance",), importance={"kind": "impurity", "fraction": 0.5},
                                n_resamples=0, random_state=0)
    shown = res.table[["phi", "phi_low", "phi_high", "icc_low", "icc_high"]].to_numpy()
    assert shown.tolist() == [[1.0] * 5] * 3
    zeros = np.zeros((4, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = importance_stability(zeros, fraction=0.5).value
    np.testing.assert_array_equal(imp.table["importance"], [expected] * 3)


def test_a_measure_that_fails_at_one_n_is_nan_there_with_no_band(monkeypatch):
    import predstab.ensembles._tune_table as table_module

    real = table_module._measure

    def failing(name, gv, config, forests, rows=None):
        if name == "psi" and gv.n == 8 and rows is None:
            raise ValueError("psi cannot be computed here")
        return real(name, gv, config, forests, rows)

    monkeypatch.setattr(table_module, "_measure", failing)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PredstabWarning)
        res = tune_num_learners(EST, XTR50, YTR50, XTE20, grid=GRID32, n_repeats=3, measures=("icc", "psi"),
                                pool_size=96, n_resamples=10, random_state=0)
    assert np.isnan(res.table.loc[1, "psi"]) and res.table["psi"].drop(index=1).notna().all()
    assert res.table.loc[1, ["psi_low", "psi_high"]].isna().all()  # no band about a missing value
    assert res.table.drop(index=1)[["psi_low", "psi_high"]].notna().all().all()
    note = "psi could not be computed at n = 8 (NaN there): ValueError: psi cannot be computed here"
    assert note in res.notes
    assert res.fits["psi"].n.tolist() == [4, 16, 32]  # the fit uses the other points
    assert "psi could not be computed at n = 8" in str(res)


def test_a_failing_pool_measure_is_nan_with_its_reason(monkeypatch):
    real = table_module._measure

    def failing(name, gv, config, forests, rows=None):
        if name == "phi" and gv.n == 4:
            raise ValueError("phi here\n fails")
        return real(name, gv, config, forests, rows)

    monkeypatch.setattr(table_module, "_measure", failing)
    res = _tune(method="pool", pool_size=24, measures=("icc", "phi"), n_resamples=5)
    assert np.isnan(res.table.loc[1, "phi"]) and np.isnan(res.table.loc[1, "phi_low"])
    assert res.notes == ("phi could not be computed at n = 4 (NaN there): ValueError: phi here fails",)
    assert res.fits["phi"].message == "fewer than 3 usable grid points (2 of 3)"


def test_resamples_where_a_measure_fails_are_left_out_of_the_band(monkeypatch):
    real = table_module._measure

    def failing(name, gv, config, forests, rows=None):
        if name == "selection" and gv.n == 4 and rows is not None:
            raise ValueError("no selection in this resample")
        return real(name, gv, config, forests, rows)

    monkeypatch.setattr(table_module, "_measure", failing)
    res = _tune(method="pool", pool_size=24, measures=("icc", "selection"), n_resamples=4)
    assert np.isfinite(res.table.loc[1, "selection"]) and res.notes == ()
    assert res.table.loc[[0, 2], ["selection_low", "selection_high"]].notna().all().all()
    assert res.table.loc[1, ["selection_low", "selection_high"]].isna().all()
