"""tune_num_learners: the three methods against their definitions, on tiny pools and grids.

Every value is pinned against an independent computation written here: forests refitted with
the derived seeds, out-of-bag predictions from scikit-learn's ``estimators_samples_``,
forest importances by scikit-learn's formula, the pool's own groups of trees.
"""

import dataclasses
import re
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import make_classification, make_regression
from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor
from sklearn.linear_model import LinearRegression

from predstab import (
    PredstabDataWarning,
    PredstabWarning,
    TreePool,
    fit_2pl,
    fleiss_kappa,
    icc,
    importance_stability,
    phi,
    psi,
    tune_num_learners,
)
from predstab._core._utils import check_rng, seeds_from
from tests._forests import oob_mean, oob_of, refit_forests

X, Y = make_regression(70, 6, noise=25, random_state=0)
XTR, YTR, XTE = X[:50], Y[:50], X[50:]
EST = RandomForestRegressor(max_features=2, min_samples_leaf=3)
GRID = (4, 8, 16, 32)



def order_interval(values, level):
    """The recommendation interval by hand: the k-th smallest and k-th largest of the B values,
    k = floor((B + 1) (1 - level) / 2), at least 1."""
    ranked = sorted(values)
    k = max(int(np.floor((len(ranked) + 1) * (1 - level) / 2)), 1)
    return (ranked[k - 1], ranked[len(ranked) - k])

def _quiet(**kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PredstabWarning)
        args = {"X_test": XTE} | kwargs
        return tune_num_learners(EST, XTR, YTR, grid=GRID, n_repeats=3, n_bootstrap=0, random_state=0, **args)


def _refits(estimator, grid, n_repeats, X, y, seed=0):
    """The forests of method="refit": seeds drawn as tune_num_learners draws them."""
    return refit_forests(estimator, grid, n_repeats, X, y, seed)[0]


# ----------------------------------------------------------------------------------------- methods
def test_refit_is_refits_with_derived_seeds():
    res = _quiet(method="refit", measures=("icc",))
    forests = _refits(EST, GRID, 3, XTR, YTR)
    for gi, n in enumerate(GRID):
        m = np.column_stack([f.predict(XTE) for f in forests[n]])
        assert res.table.loc[gi, "icc"] == pytest.approx(icc(m).value, rel=1e-12)
    assert (res.table["n_forests"] == 3).all() and (res.table["seconds"] > 0).all()


def test_pool_is_disjoint_groups_of_one_pool():
    res = _quiet(method="pool", measures=("icc", "selection"), pool_size=96)
    pool = TreePool(EST, n_learners=96, random_state=0).fit(XTR, YTR, XTE, oob=False)
    for gi, n in enumerate(GRID):
        assert res.table.loc[gi, "icc"] == pytest.approx(icc(pool.forests(n, n_forests=3)).value, rel=1e-12)
    assert res.table["n_forests"].tolist() == [3, 3, 3, 3]


def test_closed_form_is_the_pools_closed_form_and_recommendation_is_optRFs():
    res = _quiet(method="closed_form", measures=("icc", "phi", "psi"), pool_size=64)
    pool = TreePool(EST, n_learners=64, random_state=0).fit(XTR, YTR, XTE)
    # psi's fixed baseline: the out-of-bag predictions of the first max(grid) = 32 trees of the pool
    trees = list(zip(pool.ensemble_.estimators_[:32], pool.ensemble_.estimators_samples_[:32], strict=True))
    baseline = oob_mean(trees, XTR)
    np.testing.assert_allclose(res.table["icc"], pool.closed_form(GRID), rtol=1e-12)
    np.testing.assert_allclose(res.table["psi"], pool.closed_form(GRID, measure="psi", baseline=baseline),
                               rtol=1e-12)
    fit = fit_2pl(GRID, res.table["icc"])
    assert res.fits["icc"].p1 == fit.p1 and res.recommendation == fit.recommend()
    assert res.n_for_target == fit.num_learners_for(0.95)
    assert res.summary.loc["icc", "recommended"] == res.recommendation
    assert res.recommendations["icc"].unrounded == fit.recommend(round_to="none", minimum=0)
    assert "one forest of 32 learners" in res.psi_baseline


# ----------------------------------------------------------------------------------------- bugs
def test_training_rows_are_predicted_out_of_bag():
    # without X_test every refit predicts its training rows out of bag (optRF's behaviour); an
    # in-sample prediction would make every forest agree far more
    grid = (8, 16, 32)
    res = tune_num_learners(EST, XTR, YTR, grid=grid, n_repeats=3, method="refit", measures=("icc", "phi"),
                            n_bootstrap=0, random_state=0)
    forests = _refits(EST, grid, 3, XTR, YTR)
    for gi, n in enumerate(grid):
        oob = np.column_stack([oob_of(f, XTR) for f in forests[n]])
        assert res.table.loc[gi, "icc"] == pytest.approx(icc(oob).value, rel=1e-12)
        in_sample = np.column_stack([f.predict(XTR) for f in forests[n]])
        assert abs(icc(in_sample).value - icc(oob).value) > 0.01  # the test tells the two apart
    np.testing.assert_allclose(res.largest_phi.per_object,
                               phi(np.column_stack([oob_of(f, XTR) for f in forests[32]]), YTR).per_object,
                               rtol=1e-12)


@pytest.mark.parametrize("method", ["pool", "refit"])
def test_per_forest_psi_baseline_is_each_forests_out_of_bag_predictions(method):
    res = _quiet(method=method, measures=("psi",), psi_baseline="per_forest", pool_size=96)
    if method == "pool":
        pool = TreePool(EST, n_learners=96, random_state=0).fit(XTR, YTR, XTE)
        trees = list(zip(pool.ensemble_.estimators_, pool.ensemble_.estimators_samples_, strict=True))
        groups = {n: [trees[j * n:(j + 1) * n] for j in range(3)] for n in GRID}
    else:
        forests = _refits(EST, GRID, 3, XTR, YTR)
        groups = {n: [list(zip(f.estimators_, f.estimators_samples_, strict=True)) for f in forests[n]]
                  for n in GRID}
    for gi, n in enumerate(GRID):
        test = np.column_stack([np.mean([t.predict(XTE) for t, _ in g], axis=0) for g in groups[n]])
        space = np.column_stack([oob_mean(g, XTR) for g in groups[n]])
        assert res.table.loc[gi, "psi"] == pytest.approx(psi(test, space).value, rel=1e-10)
    assert res.psi_baseline.startswith("each forest's own out-of-bag")


def _forest_importance(trees):
    """scikit-learn's ``feature_importances_`` of a forest: the mean over trees with a split,
    renormalised to sum 1."""
    split = [t.feature_importances_ for t in trees if t.tree_.node_count > 1]
    mean = np.mean(split, axis=0)
    return mean / mean.sum()


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
                            n_bootstrap=0, random_state=0)
    pool = TreePool(est, n_learners=60, random_state=0).fit(Xi, yi)
    trees = pool.ensemble_.estimators_
    assert any(t.tree_.node_count == 1 for t in trees)  # the case the renormalisation is for
    for gi, n in enumerate(grid):
        imp = np.column_stack([_forest_importance(trees[j * n:(j + 1) * n]) for j in range(3)])
        expected = importance_stability(imp, fraction=1)  # the default: 5% of 10 variables is none; one
        assert res.table.loc[gi, "importance"] == pytest.approx(expected.value, rel=1e-10)
        assert res.table.loc[gi, "importance_selection"] == pytest.approx(expected.selection, rel=1e-10)
    assert res.settings["importance_fraction"] == 1


def test_impurity_importances_of_refits_are_the_forests():
    res = _quiet(method="refit", measures=("importance",), importance={"kind": "impurity", "fraction": 0.5})
    forests = _refits(EST, GRID, 3, XTR, YTR)
    for gi, n in enumerate(GRID):
        imp = np.column_stack([_forest_importance(f.estimators_) for f in forests[n]])
        assert res.table.loc[gi, "importance"] == pytest.approx(
            importance_stability(imp, fraction=0.5).value, rel=1e-10)


# ----------------------------------------------------------------------------------------- defaults
def test_default_pool_gives_every_grid_value_its_n_repeats_forests():
    # issue 22 item 19: one rule for Python and the CLI, n_repeats x max(grid) (the old Python
    # default, 2 x max(grid), silently cut n_repeats to 2 forests at the largest grid value)
    grid = (5, 10, 20)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = tune_num_learners(RandomForestRegressor(n_estimators=1), XTR, YTR, XTE, grid=grid, n_repeats=4,
                                measures=("icc",), n_bootstrap=0, random_state=0)
    assert not [w for w in caught if "pool" in str(w.message)]
    assert res.pool_size == 4 * 20 and res.table["n_forests"].tolist() == [4, 4, 4]
    assert not any("fewer than n_repeats" in note for note in res.notes)
    assert res.settings["pool_size"] == "n_repeats x the largest grid value (the default)"
    assert str(res).splitlines()[0] == (" Stability against the number of learners (method pool; a pool of "
                                        "80 learners = n_repeats x the largest grid value, the default)")
    given = tune_num_learners(RandomForestRegressor(n_estimators=1), XTR, YTR, XTE, grid=grid, n_repeats=2,
                              measures=("icc",), pool_size=40, n_bootstrap=0, random_state=0)
    assert given.settings["pool_size"] == "given" and "the default" not in str(given).splitlines()[0]
    with pytest.warns(PredstabDataWarning, match="fewer than n_repeats=3"):
        tune_num_learners(EST, XTR, YTR, XTE, grid=GRID, n_repeats=3, measures=("icc",), pool_size=64,
                          n_bootstrap=0, random_state=0)
    with pytest.raises(ValueError, match="at least 2 disjoint forests"):
        tune_num_learners(EST, XTR, YTR, XTE, grid=GRID, pool_size=40, random_state=0)


# ----------------------------------------------------------------------------------------- issue 16
RARE_X, RARE_Y = make_classification(700, 10, n_informative=3, weights=[0.95], flip_y=0.05, class_sep=0.5,
                                     random_state=3)
RARE_EST = RandomForestClassifier(max_features="sqrt", min_samples_leaf=3)
RARE_GRID = (5, 10, 25, 50, 100, 250)


@pytest.fixture(scope="module")
def rare():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PredstabWarning)
        res = tune_num_learners(RARE_EST, RARE_X[:400], RARE_Y[:400], RARE_X[400:], grid=RARE_GRID,
                                measures=("fleiss", "phi", "psi"), method="pool", voting="hard",
                                pool_size=500, n_bootstrap=0, random_state=0)
    pool = TreePool(RARE_EST, n_learners=500, voting="hard", random_state=0).fit(RARE_X[:400], RARE_Y[:400],
                                                                                 RARE_X[400:])
    return res, pool


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


def test_a_measure_that_fails_at_one_n_is_nan_there_with_no_band(monkeypatch):
    import predstab.ensembles._tune as tune_module

    real = tune_module._measure

    def failing(name, gv, spec, rows=None):
        if name == "psi" and gv.n == 8 and rows is None:
            raise ValueError("psi cannot be computed here")
        return real(name, gv, spec, rows)

    monkeypatch.setattr(tune_module, "_measure", failing)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PredstabWarning)
        res = tune_num_learners(EST, XTR, YTR, XTE, grid=GRID, n_repeats=3, measures=("icc", "psi"),
                                pool_size=96, n_bootstrap=10, random_state=0)
    assert np.isnan(res.table.loc[1, "psi"]) and res.table["psi"].drop(index=1).notna().all()
    assert res.table.loc[1, ["psi_low", "psi_high"]].isna().all()  # no band about a missing value
    assert res.table.drop(index=1)[["psi_low", "psi_high"]].notna().all().all()
    note = "psi could not be computed at n = 8 (NaN there): ValueError: psi cannot be computed here"
    assert note in res.notes
    assert res.fits["psi"].n.tolist() == [4, 16, 32]  # the fit uses the other points
    assert "psi could not be computed at n = 8" in str(res)


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


def test_rare_class_every_measure_gets_its_fit_and_recommendation_printed(rare):
    res, _ = rare
    fit = fit_2pl(RARE_GRID, res.table["phi"])  # phi has no degenerate point: all six fitted
    rec = res.recommendations["phi"]
    assert res.fits["phi"].p1 == fit.p1 and rec.value == fit.recommend() and rec.rule == "optRF"
    assert rec.n_for_target == fit.num_learners_for(0.95)
    text = str(res)
    row = next(line for line in text.splitlines() if line.split()[:1] == ["phi"])
    assert row.split()[1:] == [f"{fit.p1:.4g}", f"{fit.p2:.4g}", f"{fit.r_squared:.4f}".rstrip("0"),
                               str(rec.value), "optRF", f"{rec.unrounded:.0f}", str(rec.n_for_target)]
    assert "fleiss" in text and "Notes:" in text


# ----------------------------------------------------------------------------------------- issue 13
def test_recommendation_explains_itself_and_follows_the_rule_options():
    res = _quiet(method="closed_form", measures=("icc", "phi"), pool_size=64, rec_thresh=1e-4,
                 round_to="hundred", target=0.9)
    fit = fit_2pl(GRID, res.table["icc"])
    rec = res.recommendations["icc"]
    assert rec.value == fit.recommend(rec_thresh=1e-4, round_to="hundred")
    assert rec.unrounded == fit.recommend(rec_thresh=1e-4, round_to="none", minimum=0)
    assert rec.n_for_target == fit.num_learners_for(0.9) == res.n_for_target
    assert rec.beyond_grid == (rec.value > 32) and f"{rec.value / 32:.3g} x" in rec.explain()
    text = str(res)
    assert "below rec_thresh = 0.0001, rounded to the nearest hundred, at least 500" in text
    assert f"Recommendation: {rec.value} learners" in text and f"from {rec.unrounded:.0f} learners" in text
    assert "beyond the grid" in text


def test_bootstrap_interval_of_the_rounded_and_unrounded_recommendation():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = tune_num_learners(EST, XTR, YTR, XTE, grid=GRID, n_repeats=3, measures=("icc", "phi"),
                                method="pool", pool_size=96, n_bootstrap=20, random_state=0)
    # the same pool, then the resamples drawn from the generator after it (rows shared by all n)
    rng = check_rng(0)
    pool = TreePool(EST, n_learners=96, random_state=rng).fit(XTR, YTR, XTE, oob=False)
    forests = {n: pool.forests(n, n_forests=3) for n in GRID}
    rounded, raw, icc_curves, phi_curves = [], [], [], []
    for _ in range(20):
        rows = rng.integers(0, len(XTE), len(XTE))
        curve = [icc(forests[n][rows]).value for n in GRID]
        icc_curves.append(curve)
        phi_curves.append([phi(forests[n][rows], YTR).value for n in GRID])
        fit = fit_2pl(GRID, curve)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PredstabWarning)
            rec = fit.recommend()
        if rec is not None:
            rounded.append(rec)
            raw.append(fit.recommend(round_to="none", minimum=0))
    low, high = order_interval(rounded, 0.95)
    assert tuple(res.confidence_interval) == (low, high)
    assert tuple(res.unrounded_interval) == order_interval(raw, 0.95)
    band_low, band_high = np.quantile(np.array(icc_curves), [0.025, 0.975], axis=0)
    np.testing.assert_allclose(res.table["icc_low"], band_low, rtol=1e-12)
    np.testing.assert_allclose(res.table["icc_high"], band_high, rtol=1e-12)
    band_low, band_high = np.quantile(np.array(phi_curves), [0.025, 0.975], axis=0)
    np.testing.assert_allclose(res.table["phi_low"], band_low, rtol=1e-12)
    np.testing.assert_allclose(res.table["phi_high"], band_high, rtol=1e-12)
    assert res.seconds_for(100) == pytest.approx(res.runtime[0] + 100 * res.runtime[1])
    assert "test objects resampled" in res.interval_covers


def test_closed_form_learner_interval_says_it_covers_only_the_pools_learners():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PredstabWarning)
        res = tune_num_learners(EST, XTR, YTR, XTE, grid=GRID, measures=("icc",), method="closed_form",
                                pool_size=64, n_bootstrap=20, random_state=0, interval="learners")
    low, high = res.confidence_interval
    assert low % 1000 == 0 and high % 1000 == 0  # resampled recommendations, not interpolations
    assert "pool's learners resampled" in res.interval_covers
    assert "not the sampling of the test objects" in str(res)
    pool = TreePool(EST, n_learners=64, random_state=0).fit(XTR, YTR, XTE)
    curve, band_low, band_high = pool.closed_form(GRID, n_bootstrap=20)
    np.testing.assert_allclose(res.table["icc_low"], band_low, rtol=1e-12)
    first = f"{band_low[0]:.4f} to {band_high[0]:.4f}"
    assert "95% bootstrap bands" in str(res) and first in str(res)


def test_flat_curve_is_already_stable():
    # two far-apart blobs: every forest from 5 trees on classifies every object alike, kappa = 1
    rng = np.random.default_rng(0)
    Xf = np.vstack([rng.normal(0, 1, (40, 3)), rng.normal(12, 1, (40, 3))])
    yf = np.repeat(["a", "b"], 40)
    test = np.vstack([rng.normal(0, 1, (10, 3)), rng.normal(12, 1, (10, 3))])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = tune_num_learners(RandomForestClassifier(max_features=1), Xf, yf, test, grid=(5, 10, 20, 40),
                                n_repeats=4, measures=("fleiss", "phi"), method="pool", pool_size=160,
                                n_bootstrap=0, random_state=0)
    assert res.table["fleiss"].tolist() == [1.0, 1.0, 1.0, 1.0] and not res.fits["fleiss"].converged
    assert res.recommendation == 5 and res.reliable and res.recommendations["fleiss"].rule == "already stable"
    assert "no larger grid is needed" in res.message and "would resolve" not in str(res)
    assert not [w for w in caught if issubclass(w.category, PredstabWarning)]


def test_ordinal_scale_for_phi_and_psi_fleiss_for_optrf():
    rng = np.random.default_rng(1)
    Xo = rng.normal(size=(90, 4))
    levels = ["low", "mid", "high"]
    yo = np.array(levels, dtype=object)[np.digitize(Xo[:, 0] + 0.5 * rng.normal(size=90), [-0.5, 0.5])]
    est = RandomForestClassifier(max_features=2)
    grid = (3, 6, 12)
    res = tune_num_learners(est, Xo[:70], yo[:70], Xo[70:], grid=grid, n_repeats=3,
                            measures=("fleiss", "phi", "psi"), scale="ordinal", levels=levels, pool_size=36,
                            n_bootstrap=0, random_state=0)
    pool = TreePool(est, n_learners=36, voting="hard", random_state=0).fit(Xo[:70], yo[:70], Xo[70:])
    baseline = pool.forests(12, n_forests=1, on="oob")[:, 0]
    for gi, n in enumerate(grid):
        forests = pool.forests(n, n_forests=3)
        assert res.table.loc[gi, "phi"] == pytest.approx(
            phi(forests, yo[:70], scale="ordinal", levels=levels).value, rel=1e-12)
        assert res.table.loc[gi, "psi"] == pytest.approx(
            psi(forests, baseline, scale="ordinal", levels=levels).value, rel=1e-12)
        assert res.table.loc[gi, "fleiss"] == pytest.approx(fleiss_kappa(forests).value, rel=1e-12)
    assert res.settings["scale"] == "ordinal"
    with pytest.raises(ValueError, match="`levels`"):
        tune_num_learners(est, Xo[:70], yo[:70], Xo[70:], grid=grid, scale="ordinal", levels=["low", "mid"])


# ----------------------------------------------------------------------------------------- issue 15
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
                                        measures=("psi",), method=method, pool_size=96, n_bootstrap=0,
                                        random_state=seed)
                assert "one forest of 16 learners" in res.psi_baseline, method
                curves[method].append(res.table["psi"].to_numpy())
    runs = {m: np.array(c) for m, c in curves.items()}
    for method in ("pool", "closed_form"):
        diff = runs[method].mean(axis=0) - runs["refit"].mean(axis=0)
        se = np.sqrt(runs[method].var(axis=0, ddof=1) / 5 + runs["refit"].var(axis=0, ddof=1) / 5)
        assert np.all(np.abs(diff) < 3 * se), (method, diff, se)


# ----------------------------------------------------------------------------------------- result
def test_result_convention():
    res = _quiet(method="closed_form", measures=("icc", "phi"), pool_size=64)
    again = _quiet(method="closed_form", measures=("icc", "phi"), pool_size=64)
    assert len(repr(res)) < 300 and repr(res).startswith("TuningResult(primary='icc'")
    # == compares the numbers, not the measured run time (the table's seconds, runtime)
    assert res == res and res == again
    timed = res.table.assign(seconds=res.table["seconds"] + 1.0)
    assert dataclasses.replace(res, table=timed, runtime=(9.0, 9.0)) == res
    changed = res.table.assign(icc=res.table["icc"] + 1e-9)
    assert dataclasses.replace(res, table=changed) != res
    assert res != _quiet(method="closed_form", measures=("icc",), pool_size=64)
    frame = res.to_frame()
    assert len(frame) == 1 and frame.loc[0, "recommendation"] == res.recommendation
    assert {"ci_low", "ci_high"} <= set(frame.columns)
    text = str(res)
    for n in GRID:
        assert any(line.split()[:1] == [str(n)] for line in text.splitlines())  # a table row per n
    assert f"icc {res.fits['icc'].p1:.4g}" in " ".join(text.split())


def test_unflattened_curve_is_reported_with_a_grid():
    with pytest.warns(PredstabWarning, match="not flattened"):
        res = tune_num_learners(EST, XTR, YTR, XTE, grid=(1, 2, 3), n_repeats=3, measures=("icc",),
                                method="closed_form", pool_size=100, n_bootstrap=0, random_state=0)
    assert not res.reliable and "would resolve it" in res.message


def test_classifier_measures_and_progress():
    Xc, yc = make_classification(80, 6, n_informative=3, random_state=3)
    labels = np.where(yc == 1, "high", "low")
    calls = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PredstabWarning)
        res = tune_num_learners(RandomForestClassifier(max_features=2), Xc[:60], labels[:60], Xc[60:],
                                grid=(3, 6, 12), n_repeats=3, method="refit",
                                selection={"select_for": "high"},
                                measures=("fleiss", "selection", "phi", "psi"), n_bootstrap=0,
                                random_state=0, progress=lambda d, t: calls.append((d, t)))
    assert calls[-1] == (9, 9)
    # selecting one of two classes relabels the predictions: optRF reports equal values
    np.testing.assert_allclose(res.table["selection"], res.table["fleiss"], rtol=1e-12)


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [({"method": "fast"}, ValueError, "`method`"), ({"grid": (10, 20)}, ValueError, "`grid`"),
     ({"grid": (10, 10, 20)}, ValueError, "repeat"), ({"n_repeats": 1}, ValueError, "`n_repeats`"),
     ({"measures": ("kappa",)}, ValueError, "`measures`"), ({"measures": ("fleiss",)}, ValueError, "fleiss"),
     ({"psi_baseline": "moving"}, ValueError, "`psi_baseline`"), ({"target": 1.5}, ValueError, "`target`"),
     ({"selection": {"select_for": "middle"}}, ValueError, "`selection['select_for']`"),
     ({"progress": 3}, TypeError, "`progress`"),
     ({"method": "closed_form", "psi_baseline": "per_forest"}, ValueError, "no closed form"),
     ({"measures": ("selection",), "selection": {"fraction": 0.01}}, ValueError, "`selection['fraction']`"),
     ({"measures": ("importance",), "importance": {"fraction": 0.01}}, ValueError,
      "`importance['fraction']`"),
     ({"measures": ("importance",), "importance": {"kind": "gini"}}, ValueError, "`importance['kind']`"),
     ({"importance": {"kinds": "impurity"}}, ValueError, "`importance` must be a dict with keys"),
     ({"selection": "high"}, ValueError, "`selection`"),
     ({"scale": "ordinal"}, ValueError, "`scale`"), ({"levels": ["a", "b"]}, ValueError, "`levels`"),
     ({"confidence_level": 95}, ValueError, "`confidence_level`")],
)
def test_bad_arguments(kwargs, exc, match):
    args = {"grid": GRID, "n_bootstrap": 0} | kwargs
    with pytest.raises(exc, match=re.escape(match)):
        tune_num_learners(EST, XTR, YTR, XTE, **args)


def test_not_an_ensemble():
    with pytest.raises(TypeError, match="`estimator`"):
        tune_num_learners(LinearRegression(), XTR, YTR, XTE)


@pytest.mark.filterwarnings("ignore::predstab.PredstabDataWarning")
def test_kfold_psi_baseline_is_fixed_out_of_fold_predictions():
    from sklearn.model_selection import KFold, cross_val_predict

    res = _quiet(method="pool", measures=("psi",), psi_baseline="kfold", pool_size=96)
    rng = check_rng(0)
    seed = int(seeds_from(rng, 1)[0])  # the first seed drawn goes to the K-fold forest
    space = cross_val_predict(clone(EST).set_params(n_estimators=32, random_state=seed), XTR, YTR,
                              cv=KFold(5, shuffle=True, random_state=seed))
    pool = TreePool(EST, n_learners=96, random_state=rng).fit(XTR, YTR, XTE, oob=False)
    for gi, n in enumerate(GRID):
        assert res.table.loc[gi, "psi"] == pytest.approx(psi(pool.forests(n, n_forests=3), space).value,
                                                         rel=1e-12)
    assert res.psi_baseline.startswith("5-fold out-of-fold predictions of forests of 32 learners")


def test_psi_without_out_of_bag_rows_needs_kfold():
    from sklearn.ensemble import ExtraTreesRegressor
    from sklearn.model_selection import KFold, cross_val_predict

    with pytest.raises(ValueError, match="psi_baseline='kfold'"):
        tune_num_learners(ExtraTreesRegressor(), XTR, YTR, XTE, grid=GRID, measures=("psi",))
    est = ExtraTreesRegressor(max_features=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PredstabWarning)
        res = tune_num_learners(est, XTR, YTR, XTE, grid=GRID, n_repeats=3, measures=("icc", "psi"),
                                psi_baseline="kfold", pool_size=96, n_bootstrap=0, random_state=0)
    rng = check_rng(0)
    seed = int(seeds_from(rng, 1)[0])
    space = cross_val_predict(clone(est).set_params(n_estimators=32, random_state=seed), XTR, YTR,
                              cv=KFold(5, shuffle=True, random_state=seed))
    pool = TreePool(est, n_learners=96, random_state=rng).fit(XTR, YTR, XTE, oob=False)
    expected = psi(pool.forests(32, n_forests=3), space).value
    assert res.table.loc[3, "psi"] == pytest.approx(expected, rel=1e-12)


def test_closed_form_precision_grows_the_pool():
    def widest_band(**kwargs):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PredstabWarning)
            res = tune_num_learners(EST, XTR, YTR, XTE, grid=GRID, measures=("icc", "phi"),
                                    method="closed_form", pool_size=100, random_state=0, **kwargs)
        return res, max(((band["high"] - band["low"]) / 2).max() for band in res.bands.values())

    res, widest = widest_band(precision=0.01)
    _, widest_base = widest_band()
    assert widest_base > 0.01 and res.pool_size > 100
    # the 1 / sqrt(pool) law: the pool grew by about (widest_base / 0.01)^2, and the bands
    # (a fresh bootstrap of the final pool) are about as narrow as asked
    assert res.pool_size >= (widest_base / 0.01) ** 2 * 100
    assert widest <= 0.01 * 1.15
    assert f"pool of {res.pool_size} learners" in str(res)


def test_closed_form_precision_out_of_reach_warns(monkeypatch):
    import predstab.ensembles._tune as tune_module

    monkeypatch.setattr(tune_module, "_MAX_POOL", 150)
    with pytest.warns(PredstabWarning, match=r"`precision`=0.001 not reached.*pool of 150 learners"):
        res = tune_num_learners(EST, XTR, YTR, XTE, grid=GRID, measures=("icc",), method="closed_form",
                                pool_size=100, precision=0.001, n_bootstrap=0, random_state=0)
    assert res.pool_size == 150


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"method": "pool", "precision": 0.02}, "applies to method='closed_form'"),
    ({"method": "closed_form", "precision": 0}, "`precision` must be a float in the open interval"),
    ({"method": "closed_form", "precision": True}, "`precision`"),
])
def test_precision_rejects_bad_use(kwargs, match):
    with pytest.raises(ValueError, match=match):
        tune_num_learners(EST, XTR, YTR, XTE, grid=GRID, **kwargs)


def test_classifier_defaults_select_the_last_class():
    # the default measures include "selection"; optRF's "high" is no class of 0/1 labels, so a
    # classifier selects its last class (scikit-learn's positive class) unless told otherwise
    Xc, yc = make_classification(80, 6, n_informative=3, random_state=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PredstabWarning)
        res = tune_num_learners(RandomForestClassifier(max_features=2), Xc[:60], yc[:60], Xc[60:],
                                grid=(3, 6, 12), n_repeats=3, n_bootstrap=0, random_state=0)
        named = tune_num_learners(RandomForestClassifier(max_features=2), Xc[:60], yc[:60], Xc[60:],
                                  grid=(3, 6, 12), n_repeats=3, n_bootstrap=0, random_state=0,
                                  selection={"select_for": 1})
    assert "selection" in res.table
    np.testing.assert_allclose(res.table["selection"], named.table["selection"], rtol=1e-12)
    with pytest.raises(ValueError, match="some but not all classes"):
        tune_num_learners(RandomForestClassifier(), Xc[:60], yc[:60], Xc[60:], grid=(3, 6, 12),
                          selection={"select_for": "high"})


def test_poor_fit_gives_no_recommendation_but_keeps_optRFs_number():
    from predstab.ensembles._tune import _primary_message, _recommend
    from validation._table import load_json

    curve = load_json("aps", "expected", "aps_maize.json")["curve"]  # ranger, psi with moving OOB baseline
    n = np.array([p["num_trees"] for p in curve], dtype=float)
    values = np.array([p["psi"] for p in curve])
    fit = fit_2pl(n, values)
    assert fit.poor_fit and fit.converged
    rec = _recommend("psi", fit, n, values, int(n.max()), 0.95, 1e-6, "thousand")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PredstabWarning)
        assert rec.value == fit.recommend() and rec.rule == "optRF"  # optRF's number stays visible
    assert "fits poorly" in rec.note
    problems, message = _primary_message("psi", fit, rec, n.astype(int).tolist(), [])
    assert problems and "fits poorly" in message and "would resolve it" in message


def test_per_object_plot_labels_no_object_that_is_perfectly_stable():
    from predstab import _demo

    rng = np.random.default_rng(0)
    Xf = np.vstack([rng.normal(0, 1, (40, 3)), rng.normal(12, 1, (40, 3))])
    yf = np.repeat(["a", "b"], 40).astype(object)
    job = _demo.TuneJob(task="classification", X=Xf[::2], y=yf[::2], X_test=Xf[1::2], y_test=yf[1::2],
                        grid=[5, 10, 20], n_repeats=3, n_resamples=0, title="blobs")
    res = _demo.compute(job)
    assert np.all(np.asarray(res.largest_psi.per_object) == 1)
    _, per_object = _demo._figures(res, job)
    assert [t.get_text() for t in per_object.axes[0].texts] == []


# ----------------------------------------------------------------------------------------- issue 15.3
def _hand_icc(preds, n, *, plug_in=False):
    """ICC(1) of forests of ``n`` learners in closed form, written out: b / (b + mean var / n),
    b the between-object variance of the learners' means less their noise mean(var) / learners."""
    mu, var = preds.mean(axis=1), preds.var(axis=1, ddof=1)
    noise = 0.0 if plug_in else np.mean(var / preds.shape[1])
    b = max(np.var(mu, ddof=1) - noise, 0.0)
    return b / (b + np.mean(var) / np.asarray(n, dtype=float))


def _interval_of(curves, round_to):
    rounded, raw = [], []
    for curve in curves:
        fit = fit_2pl(GRID, curve)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PredstabWarning)
            rec = fit.recommend(round_to=round_to)
        if rec is not None:
            rounded.append(rec)
            raw.append(fit.recommend(round_to="none", minimum=0))
    return order_interval(rounded, 0.95), order_interval(raw, 0.95)


def test_closed_form_interval_resamples_test_objects_and_learners_by_default():
    kwargs = dict(grid=GRID, measures=("icc",), method="closed_form", pool_size=64, n_bootstrap=20,
                  random_state=0, round_to="ten")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PredstabWarning)
        both = tune_num_learners(EST, XTR, YTR, XTE, **kwargs)
        learners = tune_num_learners(EST, XTR, YTR, XTE, interval="learners", **kwargs)
    # the same pool, then the draws from the generator after it: all rows, then all learners
    rng = check_rng(0)
    pool = TreePool(EST, n_learners=64, random_state=rng).fit(XTR, YTR, XTE, oob=False)
    rows = rng.integers(0, len(XTE), (20, len(XTE)))
    cols = rng.integers(0, 64, (20, 64))
    preds = pool.test_predictions_.astype(float)
    curve = _hand_icc(preds, GRID)
    np.testing.assert_allclose(both.table["icc"], curve, rtol=1e-10)
    truth = _hand_icc(preds, GRID, plug_in=True)  # the bootstrap world's exact value: pivot on it
    curves = [np.minimum(curve - (_hand_icc(preds[r][:, c], GRID) - truth), 1.0)
              for r, c in zip(rows, cols, strict=True)]
    rounded, raw = _interval_of(curves, "ten")
    assert tuple(both.confidence_interval) == rounded
    assert tuple(both.unrounded_interval) == raw
    # the learner-only interval: the bands' resampled curves, curve + errors
    errors = pool.closed_form_bands(GRID, n_bootstrap=20).errors
    l_rounded, l_raw = _interval_of(np.minimum(curve + errors, 1.0), "ten")
    assert tuple(learners.confidence_interval) == l_rounded
    assert tuple(learners.unrounded_interval) == l_raw
    low, high = both.confidence_interval
    assert high - low >= l_rounded[1] - l_rounded[0] > 0
    assert both.unrounded_interval.high - both.unrounded_interval.low >= l_raw[1] - l_raw[0]
    # bands are the learners' under either option; the interval says what it covers
    np.testing.assert_allclose(both.table["icc_low"], learners.table["icc_low"], rtol=0)
    assert both.interval_covers.startswith("test objects and the pool's learners resampled together")
    assert learners.interval_covers.startswith("the pool's learners resampled: only")
    assert both.settings["interval"] == "learners+objects" and learners.settings["interval"] == "learners"
    text = str(both)
    assert f"{low:g} to {high:g} learners, width {high - low:g}" in text
    assert 'interval="learners+objects"' in text
    assert ("95% bootstrap bands (learners only: these test objects and this training set, "
        "variation from the trees)") in text
    assert 'interval="learners"' in str(learners)


def test_interval_option_is_validated():
    with pytest.raises(ValueError, match="`interval` must be"):
        tune_num_learners(EST, XTR, YTR, XTE, grid=GRID, method="closed_form", interval="objects")


def test_resampled_metric_stats_equal_the_copied_pools():
    from predstab.ensembles._closed_form import closed_form_stats
    from predstab.ensembles._tune import _learner_object_draws, _resampled_metric_stats

    preds = np.random.default_rng(3).normal(5.0, 2.0, (9000, 12))  # two blocks of objects
    rows, cols = _learner_object_draws(np.random.default_rng(4), 3, 9000, 12)
    n = np.array([2.0, 7.0])
    fast = _resampled_metric_stats(preds, rows, cols, n)
    for b in range(3):
        copied = closed_form_stats(preds[rows[b]][:, cols[b]], None, n, classifier=False, voting="soft",
                                   rng=None)
        for key in ("d_o", "b", "w"):
            np.testing.assert_allclose(fast[b][key], copied[key], rtol=1e-10)
