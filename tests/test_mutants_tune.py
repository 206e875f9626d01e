"""Value-pinning checks of tune_num_learners written to kill mutmut's surviving mutants.

Tiny data (30 training rows, 10 test rows, grids of 3 values of 2-8 trees, 3 forests) so that
the whole file runs in seconds. Every table row is recomputed here from forests fitted with
scikit-learn and the documented seeds (``seeds_from(check_rng(random_state), ...)``) or from
the same :class:`TreePool` (its disjoint groups of trees, out-of-bag predictions from
``estimators_samples_``), measured with the public measures (icc, phi, psi, selection
stability, importance stability); the 2PL fits are compared with :func:`predstab.fit_2pl` on
the same points, the recommendations with :meth:`TwoPL.recommend`, the run-time model with
``numpy.polyfit`` on clock readings injected through a fake ``time.perf_counter``.
"""

import re
import time
import types
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.datasets import make_classification, make_regression
from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor

import predstab.ensembles._recommend as recommend_module
import predstab.ensembles._recommendation_interval as interval_module
import predstab.ensembles._tune_config as config_module
import predstab.ensembles._tune_strategies as strategies
import predstab.ensembles._tune_table as table_module
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
    selection_stability,
    tune_num_learners,
)
from predstab._core._utils import check_rng, seeds_from
from predstab.ensembles._forest import tree_permutation_importances
from tests._forests import oob_mean, oob_of, refit_forests

# the independent computations below measure 3 forests (PredstabDataWarning: fewer than 5)
pytestmark = pytest.mark.filterwarnings("ignore::predstab.PredstabDataWarning")

X, Y = make_regression(40, 4, noise=20, random_state=1)
XTR, YTR, XTE = X[:30], Y[:30], X[30:]
EST = RandomForestRegressor(max_features=2, min_samples_leaf=3)
GRID = (2, 4, 8)
ESTIMATOR_TEXT = ("RandomForestRegressor(max_features=2, min_samples_leaf=3, max_samples=None, "
                  "bootstrap=True, "
                  "max_depth=None, criterion='squared_error')")



def order_interval(values, level):
    """The recommendation interval by hand: the k-th smallest and k-th largest of the B values,
    k = floor((B + 1) (1 - level) / 2), at least 1."""
    ranked = sorted(values)
    k = max(int(np.floor((len(ranked) + 1) * (1 - level) / 2)), 1)
    return (ranked[k - 1], ranked[len(ranked) - k])

def _tune(**kwargs):
    args = {"grid": GRID, "n_repeats": 3, "n_resamples": 0, "random_state": 0} | kwargs
    X_test = args.pop("X_test", XTE)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PredstabWarning)
        return tune_num_learners(args.pop("estimator", EST), args.pop("X", XTR), args.pop("y", YTR), X_test,
                                 **args)


def _refits(grid=GRID, n_repeats=3, estimator=EST, X=XTR, y=YTR, seed=0):
    """The forests of method="refit" and their seeds, as tune_num_learners draws them."""
    return refit_forests(estimator, grid, n_repeats, X, y, seed)


def _optrf_recommendations(curves, grid=GRID, **rule):
    """optRF's rule on each resampled curve (warnings of flat fits silenced): the rounded
    recommendations and, for the same curves, the unrounded ones."""
    rounded, raw = [], []
    for curve in curves:
        fit = fit_2pl(grid, curve)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PredstabWarning)
            rec = fit.recommend(**rule)
        if rec is not None:
            rounded.append(rec)
            raw.append(fit.recommend(**{**rule, "round_to": "none"}, minimum=0))
    return rounded, raw


def _groups(pool, n, k):
    trees = list(zip(pool.ensemble_.estimators_, pool.ensemble_.estimators_samples_, strict=True))
    return [trees[j * n:(j + 1) * n] for j in range(k)]


def _group_predictions(pool, n, k, X):
    return np.column_stack([np.mean([t.predict(X) for t, _ in g], axis=0) for g in _groups(pool, n, k)])


class _Clock:
    """A fake ``perf_counter``: each call advances by the next of ``steps`` (cycled)."""

    def __init__(self, steps):
        self.steps, self.now, self.calls = list(steps), 100.0, 0

    def __call__(self):
        self.now += self.steps[self.calls % len(self.steps)]
        self.calls += 1
        return self.now


def _flat_from(n, values, target):
    """The smallest grid value from which the observed values stay at or above ``target``."""
    ok = [bool(np.isfinite(v) and v >= target) for v in values]
    if not ok or not ok[-1]:
        return None
    first = len(ok) - 1
    while first > 0 and ok[first - 1]:
        first -= 1
    return int(n[first])


def _na(value):
    return np.nan if value is None else value  # None in a DataFrame column of numbers


def _assert_fits_and_recommendations(res, measures, *, target=0.95, rec_thresh=1e-6, round_to="thousand"):
    """Each measure's fit is fit_2pl on its table column, its recommendation TwoPL.recommend."""
    n = res.table["n_learners"].to_numpy(float)
    for m in measures:
        values = res.table[m].to_numpy(float)
        fit = fit_2pl(n, values)
        got = res.fits[m]
        np.testing.assert_equal((got.p1, got.p2, got.r_squared, got.converged, got.poor_fit, got.flattened),
                                (fit.p1, fit.p2, fit.r_squared, fit.converged, fit.poor_fit, fit.flattened))
        np.testing.assert_array_equal(got.n, n)
        rec = res.recommendations[m]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PredstabWarning)
            value = fit.recommend(rec_thresh=rec_thresh, round_to=round_to)
            unrounded = fit.recommend(rec_thresh=rec_thresh, round_to="none", minimum=0)
        n_t = fit.num_learners_for(target) if fit.converged and not fit.poor_fit else None  # trusted fits
        rule = "optRF" if value is not None else "none"
        flat = _flat_from(n, values, target) if not fit.converged or fit.poor_fit else None
        if flat is not None:
            value, unrounded, rule, n_t = flat, None, "already stable", flat
        assert rec.measure == m and rec.value == value and rec.unrounded == unrounded and rec.rule == rule
        assert (rec.rec_thresh, rec.round_to, rec.minimum, rec.target, rec.grid_max) == (
            rec_thresh, round_to, 500, target, int(n.max()))
        assert rec.n_for_target == n_t
        assert rec.beyond_grid == (value is not None and value > n.max())
        expected = float(fit.stability(value)) if value is not None and fit.converged else np.nan
        np.testing.assert_allclose(rec.expected_stability, expected, rtol=1e-12)
        row = res.summary.loc[m]
        np.testing.assert_equal(
            (row["p1"], row["p2"], row["r_squared"], row["poor_fit"], row["flattened"], row["recommended"],
             row["rule"], row["unrounded"], row["n_for_target"], row["beyond_grid"], row["suggested_max"],
             row["note"]),
            (fit.p1, fit.p2, fit.r_squared, fit.poor_fit, fit.flattened, _na(value), rule, _na(unrounded),
             _na(n_t), rec.beyond_grid, fit.suggested_max, rec.note))


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
        "scale": "metric", "categories": None, "voting": None, "target": 0.95, "rec_thresh": 1e-6,
        "round_to": "thousand", "n_resamples": 0, "confidence_level": 0.95, "select_fraction": 0.15}
    assert np.isnan(res.confidence_interval.low) and np.isnan(res.unrounded_interval.high)
    assert seeds.shape == (3, 3)


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


def _forest_importance(trees):
    """scikit-learn's ``feature_importances_``: the mean over trees with a split, renormalised."""
    split = [t.feature_importances_ for t in trees if t.tree_.node_count > 1]
    mean = np.mean(split, axis=0)
    return mean / mean.sum()


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
    np.testing.assert_allclose(res.table["psi"], pool.closed_form(GRID, measure="psi", baseline=baseline).curve,
                               rtol=1e-10)
    assert res.psi_baseline == ("out-of-bag predictions of one forest of 8 learners (fitted for the "
                                "baseline: "
                                "the pool has 6), the same for every n")
    assert res.table["n_forests"].tolist() == [0, 0, 0]  # closed forms only: no forests behind a value


def test_closed_form_result_prints_its_method_and_its_bands_resamples():
    res = _tune(method="closed_form", pool_size=6, measures=("psi",))
    lines = str(res).splitlines()
    assert " closed form; scale metric" in lines and " Estimator: " + ESTIMATOR_TEXT in lines
    assert lines[0] == " Stability against the number of learners (method closed_form; a pool of 6 learners)"
    res = _tune(method="closed_form", pool_size=24, measures=("icc",), n_resamples=10)
    assert res.interval_covers.startswith("test objects and the pool's learners resampled together")
    assert (" 95% bootstrap bands (learners only: these test objects and this training set, "
        "variation from the trees):") in str(res).splitlines()  # the bands' own


# ------------------------------------------------------------------------------------ closed form
def test_closed_form_columns_bands_and_learner_interval():
    res = _tune(method="closed_form", pool_size=24, measures=("icc", "phi", "psi"), n_resamples=10,
                interval="learners")
    pool = TreePool(EST, n_learners=24, random_state=0).fit(XTR, YTR, XTE)
    baseline = oob_mean(_groups(pool, 8, 1)[0], XTR)
    for m in ("icc", "phi", "psi"):
        bands = pool.closed_form(GRID, measure=m, baseline=baseline if m == "psi" else None,
                                       n_resamples=10)
        np.testing.assert_allclose(res.table[m], bands.curve, rtol=1e-10)
        np.testing.assert_allclose(res.table[f"{m}_low"], bands.low, rtol=1e-10)
        np.testing.assert_allclose(res.table[f"{m}_high"], bands.high, rtol=1e-10)
    errors = pool.closed_form(GRID, n_resamples=10).errors
    rounded, raw = _optrf_recommendations(np.minimum(res.table["icc"].to_numpy() + errors, 1.0))
    assert tuple(res.confidence_interval) == order_interval(rounded, 0.95)
    assert tuple(res.unrounded_interval) == order_interval(raw, 0.95)
    _assert_fits_and_recommendations(res, ("icc", "phi", "psi"))
    assert res.table["n_forests"].tolist() == [0, 0, 0]
    assert res.settings["interval"] == "learners" and res.settings["measures"] == ["icc", "phi", "psi"]
    assert res.interval_covers == ("the pool's learners resampled: only the error from the pool's finite "
                                   "number "
                                   "of learners, not the sampling of the test objects "
                                   "(interval=\"learners\")")


def _hand_icc(preds, n, *, plug_in=False):
    """ICC(1) of forests of ``n`` learners in closed form: b / (b + mean var / n)."""
    mu, var = preds.mean(axis=1), preds.var(axis=1, ddof=1)
    noise = 0.0 if plug_in else np.mean(var / preds.shape[1])
    b = max(np.var(mu, ddof=1) - noise, 0.0)
    return b / (b + np.mean(var) / np.asarray(n, dtype=float))


def test_closed_form_interval_resamples_objects_and_learners():
    res = _tune(method="closed_form", pool_size=24, measures=("icc",), n_resamples=10, round_to="ten",
                rec_thresh=1e-4)
    rng = check_rng(0)
    pool = TreePool(EST, n_learners=24, random_state=rng).fit(XTR, YTR, XTE, oob=False)
    rows = rng.integers(0, len(XTE), (10, len(XTE)))
    cols = rng.integers(0, 24, (10, 24))
    preds = pool.test_predictions_.astype(float)
    curve = _hand_icc(preds, GRID)
    np.testing.assert_allclose(res.table["icc"], curve, rtol=1e-10)
    truth = _hand_icc(preds, GRID, plug_in=True)
    resampled = [np.minimum(curve - (_hand_icc(preds[r][:, c], GRID) - truth), 1.0)
                 for r, c in zip(rows, cols, strict=True)]
    rounded, raw = _optrf_recommendations(resampled, rec_thresh=1e-4, round_to="ten")
    assert len(rounded) >= 5
    assert tuple(res.confidence_interval) == order_interval(rounded, 0.95)
    assert tuple(res.unrounded_interval) == order_interval(raw, 0.95)
    _assert_fits_and_recommendations(res, ("icc",), rec_thresh=1e-4, round_to="ten")
    assert res.interval_covers.startswith("test objects and the pool's learners resampled together")
    assert res.settings["interval"] == "learners+objects"


def test_closed_form_with_a_pool_measure_too_few_forests_is_nan_with_a_note():
    res = _tune(method="closed_form", pool_size=12, measures=("icc", "selection"))
    pool = TreePool(EST, n_learners=12, random_state=0).fit(XTR, YTR, XTE, oob=False)
    np.testing.assert_allclose(res.table["icc"], pool.closed_form(GRID).curve, rtol=1e-10)
    for gi, n in enumerate((2, 4)):
        expected = selection_stability(_group_predictions(pool, n, 3, XTE), fraction=0.15).value
        assert res.table.loc[gi, "selection"] == pytest.approx(expected, rel=1e-10)
    assert np.isnan(res.table.loc[2, "selection"])
    assert res.table["n_forests"].tolist() == [3, 3, 1]
    assert res.notes == ("selection could not be computed at n = 8 (NaN there): fewer than 2 disjoint "
                         "forests "
                         "in the pool of 12 learners; increase `pool_size`",)
    assert res.fits["selection"].converged is False
    assert res.fits["selection"].message == "fewer than 3 usable grid points (2 of 3)"
    assert res.fits["selection"].n.tolist() == [2.0, 4.0, 8.0]
    assert res.fits["selection"].suggested_max == 32
    rec = res.recommendations["selection"]
    assert res.table["selection"].iloc[:2].min() >= 0.95  # flat from 2 learners on: already stable
    assert (rec.value, rec.rule, rec.n_for_target, rec.unrounded) == (2, "already stable", 2, None)
    assert rec.note == ("already stable: selection >= 0.95 at every grid value from 2 learners on (the "
                        "2PL fit "
                        "failed on a flat curve); no larger grid is needed")


# ------------------------------------------------------------------------------------- validation
XC, YC = make_classification(40, 4, n_informative=2, n_redundant=0, random_state=0)
CLF = RandomForestClassifier(max_features=2)
_CLF = {"estimator": CLF, "X": XC[:30], "y": YC[:30], "X_test": XC[30:]}
_MEASURES = "('icc', 'fleiss', 'phi', 'psi', 'selection', 'importance', 'importance_selection')"
_SELECT_CLASSES = ("`selection['select_for']` must name some but not all classes of `y` ['0', '1'] for a "
                   "classifier")


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"selection": {"fractions": 1}},
     "`selection` must be a dict with keys among ['fraction', 'select_for']; got unknown key(s) "
     "['fractions']."),
    ({"selection": {1: 2, "a": 0}},
     "`selection` must be a dict with keys among ['fraction', 'select_for']; got unknown key(s) [1, 'a']."),
    ({"importance": {"kinds": "gini"}},
     "`importance` must be a dict with keys among ['fraction', 'kind']; got unknown key(s) ['kinds']."),
    ({"selection": {"fraction": 0}}, "`selection['fraction']` must be a float > 0 or None; got 0."),
    ({"importance": {"fraction": -1.0}}, "`importance['fraction']` must be a float > 0 or None; got -1.0."),
    ({"importance": {"kind": "gini"}},
     "`importance['kind']` must be one of {'permutation', 'impurity'}; got 'gini'."),
    ({"selection": {"fraction": 0.01}, "measures": ("selection",)},
     "`selection['fraction']` = 0.01 selects 0 of 10 items; at least 1 and fewer than all must be selected."),
    ({"importance": {"fraction": 0.01}, "measures": ("importance",)},
     "`importance['fraction']` = 0.01 selects 0 of 4 items; at least 1 and fewer than all must be selected."),
    ({"importance": {"fraction": 0.01}, "measures": ("importance_selection",)},
     "`importance['fraction']` = 0.01 selects 0 of 4 items; at least 1 and fewer than all must be selected."),
    ({"selection": {"select_for": "middle"}},
     "`selection['select_for']` must be 'high', 'low' or 'zero' for a regressor; got 'middle'."),
    ({"grid": (2, 4)}, "`grid` must hold at least 3 positive integers (numbers of learners); got (2, 4)."),
    ({"grid": (0, 2, 4)}, "`grid` must hold at least 3 positive integers (numbers of learners); got (0, "
                          "2, 4)."),
    ({"grid": (2.5, 4, 8)},
     "`grid` must hold at least 3 positive integers (numbers of learners); got (2.5, 4, 8)."),
    ({"grid": [[2, 4, 8]]}, "`grid` must hold at least 3 positive integers (numbers of learners); got "
                            "[[2, 4, 8]]."),
    ({"grid": ("a", "b", "c")},
     "`grid` must hold at least 3 positive integers (numbers of learners); got ('a', 'b', 'c')."),
    ({"grid": (2, 2, 4)}, "`grid` must not repeat values; got (2, 2, 4)."),
    ({"measures": [["icc"]]}, "`measures` must be a measure name or a sequence of names; got [['icc']]."),
    ({"measures": ()}, "`measures` must name at least one measure."),
    ({"measures": ("icc", "kappa")}, f"`measures` must be among {_MEASURES}; got 'kappa'."),
    ({"measures": "kappa"}, f"`measures` must be among {_MEASURES}; got 'kappa'."),
    ({"measures": ("icc", "icc")}, "`measures` must not repeat a measure; got ('icc', 'icc')."),
    ({"measures": ("fleiss",)}, "`measures`: 'fleiss' needs class predictions; use 'icc' for a regressor."),
    ({"scale": "categorical"}, "`scale` must be 'metric' for a regressor; got 'categorical'."),
    ({"categories": ["a", "b"]}, "`categories` applies to scale='ordinal'; got scale='metric'."),
    ({"target": np.float32(0.9)}, "`target` must be a float in (0, 1); got np.float32(0.9)."),
    ({"confidence_level": np.float32(0.9)},
     "`confidence_level` must be a float in (0, 1); got np.float32(0.9)."),
    ({"rec_thresh": np.inf}, "`rec_thresh` must be a positive finite number; got inf."),
    ({"rec_thresh": np.float32(1e-6)}, "`rec_thresh` must be a positive finite number; got "
                                       "np.float32(1e-06)."),
    ({"precision": np.float32(0.5), "method": "closed_form"},
     "`precision` must be a band half-width in (0, 1), e.g. 0.02; got np.float32(0.5)."),
    ({"precision": 0.02}, "`precision` applies to method='closed_form'; got method='pool'."),
    ({"pool_size": 15}, "`pool_size` (15) must hold at least 2 disjoint forests of the largest grid value "
                        "(8); "
                        "use pool_size >= 16 or method='refit'."),
    ({"method": "closed_form", "psi_baseline": "per_forest"},
     "`psi_baseline`='per_forest' has no closed form; use 'fixed' or method='pool'."),
    ({"y": YTR[:29]}, "`X` and `y` must have the same number of rows; got 30 and 29."),
    ({"estimator": RandomForestRegressor(bootstrap=False)},
     "`psi_baseline`='fixed' needs out-of-bag predictions, but RandomForestRegressor does not bootstrap; use "
     "psi_baseline='kfold' or bootstrap=True."),
    ({"estimator": RandomForestRegressor(bootstrap=False), "psi_baseline": "per_forest", "method": "refit"},
     "`psi_baseline`='per_forest' needs out-of-bag predictions, but RandomForestRegressor does not "
     "bootstrap; use "
     "psi_baseline='kfold' or bootstrap=True."),
    (_CLF | {"measures": ("icc",)}, "`measures`: 'icc' needs metric predictions; use 'fleiss' for a "
                                    "classifier."),
    (_CLF | {"scale": "metric"}, "`scale` must be 'categorical' or 'ordinal' for a classifier; got "
                                 "'metric'."),
    (_CLF | {"scale": "ordinal"}, "`categories` must list the ordered categories for scale='ordinal'; got None."),
    (_CLF | {"scale": "ordinal", "categories": [[0, 1]]},
     "`categories` must list the ordered categories for scale='ordinal'; got [[0, 1]]."),
    (_CLF | {"scale": "ordinal", "categories": [0]},
     "`categories` must list the ordered categories for scale='ordinal'; got [0]."),
    (_CLF | {"scale": "ordinal", "categories": [1, 2]}, "`categories` must contain every value of `y`; missing "
                                                    "['0']."),
    (_CLF | {"y": YC[:30] * 7 + np.arange(30) % 6, "scale": "ordinal", "categories": ["a", "b"]},
     "`categories` must contain every value of `y`; missing ['0', '1', '10', '11', '12']."),
    (_CLF | {"scale": "ordinal", "categories": [0, 1], "method": "closed_form", "measures": ("fleiss", "phi")},
     "`scale`='ordinal' has no closed form for phi / psi; use method='pool'."),
    (_CLF | {"scale": "ordinal", "categories": [0, 1], "method": "closed_form", "measures": ("fleiss", "psi")},
     "`scale`='ordinal' has no closed form for phi / psi; use method='pool'."),
    (_CLF | {"selection": {"select_for": [0, 1]}}, f"{_SELECT_CLASSES}; got [0, 1]."),
    (_CLF | {"selection": {"select_for": 2}}, f"{_SELECT_CLASSES}; got 2."),
    (_CLF | {"selection": {"select_for": []}}, f"{_SELECT_CLASSES}; got []."),
    (_CLF | {"selection": {"select_for": [0, 2]}}, f"{_SELECT_CLASSES}; got [0, 2]."),
])
def test_bad_arguments_are_named_in_the_message(kwargs, message):
    args = {"grid": GRID, "n_resamples": 0, "random_state": 0} | kwargs
    estimator, X_, y_, X_test = (args.pop(k, d) for k, d in (("estimator", EST), ("X", XTR), ("y", YTR),
                                                             ("X_test", XTE)))
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        tune_num_learners(estimator, X_, y_, X_test, **args)


def test_not_an_ensemble_is_a_type_error_naming_the_estimator():
    from sklearn.linear_model import LinearRegression

    with pytest.raises(TypeError, match=re.escape(
            "`estimator` must be a scikit-learn ensemble with an `n_estimators` parameter (RandomForest*, "
            "ExtraTrees*, Bagging*); got LinearRegression.")):
        tune_num_learners(LinearRegression(), XTR, YTR, XTE, grid=GRID)


@pytest.mark.parametrize(("kwargs", "settings"), [
    ({"X_test": XTE[:3], "measures": ("icc", "selection")}, {"select_fraction": 1}),  # 15% of 3 rounds to 0
    ({"X_test": XTE[:4], "measures": ("icc", "selection")}, {"select_fraction": 0.15}),  # round(0.6) = 1
    ({"measures": ("importance",), "importance": {"kind": "impurity"}},
     {"importance_fraction": 1, "importance": "impurity"}),  # 5% of 4 variables rounds to 0
])
def test_default_fractions_select_at_least_one_item(kwargs, settings):
    res = _tune(method="refit", grid=(2, 3, 4), n_repeats=2, **kwargs)
    assert {k: res.settings[k] for k in settings} == settings


def test_default_importance_fraction_of_many_variables_is_optRFs_alpha():
    Xw = np.random.default_rng(0).normal(size=(30, 20))
    res = _tune(method="refit", grid=(2, 3, 4), n_repeats=2, X=Xw, X_test=None, measures=("importance",),
                importance={"kind": "impurity"})
    assert res.settings["importance_fraction"] == 0.05
    forests, _ = _refits(grid=(2, 3, 4), n_repeats=2, X=Xw)
    imp = np.column_stack([_forest_importance(f.estimators_) for f in forests[4]])
    assert res.table.loc[2, "importance"] == pytest.approx(importance_stability(imp, fraction=0.05).value,
                                                           rel=1e-10)


def test_option_groups_pass_their_values_on():
    res = _tune(method="refit", measures=("selection",), selection={"fraction": 0.3, "select_for": "low"})
    forests, _ = _refits()
    for gi, n in enumerate(GRID):
        preds = np.column_stack([f.predict(XTE) for f in forests[n]])
        assert res.table.loc[gi, "selection"] == pytest.approx(
            selection_stability(preds, fraction=0.3, select_for="low").value, rel=1e-12)
    assert res.settings["select_fraction"] == 0.3


# ------------------------------------------------------------------------- the printed and written result
def _pool_result(monkeypatch, **kwargs):
    monkeypatch.setattr(time, "perf_counter", _Clock([1.5]))
    try:
        return _tune(method="pool", pool_size=24, measures=("icc", "psi"), n_resamples=10, **kwargs)
    finally:
        monkeypatch.undo()


def test_printed_result_line_by_line(monkeypatch):
    from predstab._core._results import r_signif

    res = _pool_result(monkeypatch)
    table = res.table
    icc_rec, psi_rec = res.recommendations["icc"], res.recommendations["psi"]
    assert icc_rec.rule == "optRF" and icc_rec.beyond_grid and res.recommendation == icc_rec.value
    fits = pd.DataFrame([{"measure": m, "p1": r_signif(res.fits[m].p1), "p2": r_signif(res.fits[m].p2),
                          "R^2": r_signif(res.fits[m].r_squared), "recommended": str(r.value), "rule": r.rule,
                          "unrounded": f"{r.unrounded:.0f}", "n for 0.95": str(r.n_for_target)}
                         for m, r in (("icc", icc_rec), ("psi", psi_rec))])
    bands = pd.DataFrame({"n_learners": table["n_learners"]})
    for m in ("icc", "psi"):
        bands[m] = [f"{lo:.4f} to {hi:.4f}"
                    for lo, hi in zip(table[f"{m}_low"], table[f"{m}_high"], strict=True)]
    shown = table[["n_learners", "icc", "psi"]].to_string(index=False, float_format="%.4f")
    value, unrounded = icc_rec.value, icc_rec.unrounded
    explain = (f"icc: {value} learners by optRF 1.2.1's rule (fitted gain per added learner below 1e-06 from "
               f"{unrounded:.0f} learners; rounded to the nearest thousand, at least 500); beyond the grid: "
               f"{value / 8:.3g} x its largest value 8 (an extrapolation of the fitted curve)")
    assert icc_rec.explain() == explain
    low, high = res.confidence_interval
    u_low, u_high = res.unrounded_interval
    expected = [
        " Stability against the number of learners (method pool; a pool of 24 learners)", "",
        f" Estimator: {ESTIMATOR_TEXT}", " 3 forests per grid value; scale metric",
        f" psi baseline: {res.psi_baseline}", "",
        *(" " + line for line in shown.splitlines()), "",
        " 95% bootstrap bands (test objects resampled, the forests held fixed):",
        *("  " + line for line in bands.to_string(index=False).splitlines()), "",
        " 2PL fits, stability(n) = 1 / (1 + (p1 / n)^p2), and each measure's recommendation:",
        *("  " + line for line in fits.to_string(index=False).splitlines()),
        " optRF 1.2.1's rule: the first n whose fitted gain in stability per added learner is below "
        "rec_thresh = "
        "1e-06, rounded to the nearest thousand, at least 500.",
        f"  note (psi): {psi_rec.note}", "",
        f" Recommendation: {value} learners -- {explain}.",
        f"  95% bootstrap interval: {low:g} to {high:g} learners, width {high - low:g} (unrounded "
        f"{unrounded:.0f}: {u_low:.0f} to {u_high:.0f}, width {u_high - u_low:.0f}; {res.interval_covers})",
        f" {res.n_for_target} learners reach icc = 0.95 on the fitted curve",
        f" Run time: seconds per forest ~ 0 + 0.0625 * learners; {value} learners: about {value / 16:.3g} "
        f"s per "
        "forest",
    ]
    assert str(res).splitlines() == expected
    assert psi_rec.note == (f"beyond the grid: {psi_rec.value} is {psi_rec.value / 8:.3g} x the largest grid "
                            "value 8 (an extrapolation of the fitted curve)")


def test_written_result_is_plain_json_of_the_fields(monkeypatch):
    import json

    res = _pool_result(monkeypatch)
    out = json.loads(json.dumps(res.to_dict()))  # JSON-ready
    table = {c: [None if isinstance(v, float) and np.isnan(v) else v for v in res.table[c].tolist()]
             for c in res.table.columns}
    assert out["table"] == table
    assert {k: out[k] for k in ("method", "primary", "recommendation", "reliable", "message", "target",
                                "n_for_target", "pool_size", "psi_baseline", "notes")} == {
        "method": "pool", "primary": "icc", "recommendation": res.recommendation, "reliable": res.reliable,
        "message": res.message, "target": 0.95, "n_for_target": res.n_for_target, "pool_size": 24,
        "psi_baseline": res.psi_baseline, "notes": []}
    assert out["recommendation_interval"] == {
        "low": res.confidence_interval.low, "high": res.confidence_interval.high,
        "unrounded_low": res.unrounded_interval.low, "unrounded_high": res.unrounded_interval.high,
        "confidence_level": 0.95, "covers": res.interval_covers}
    assert out["runtime"] == {"intercept_seconds": pytest.approx(0.0, abs=1e-12),
                              "seconds_per_learner": pytest.approx(0.0625, rel=1e-12),
                              "recommended_seconds_per_forest": pytest.approx(res.recommendation / 16,
                                                                              rel=1e-9)}
    for m, fit in res.fits.items():
        assert out["fits"][m] == {"p1": fit.p1, "p2": fit.p2, "r_squared": fit.r_squared, "converged": True,
                                  "poor_fit": fit.poor_fit, "flattened": fit.flattened,
                                  "message": fit.message, "suggested_max": fit.suggested_max}
        rec = res.recommendations[m]
        assert out["recommendations"][m] == {
            "measure": m, "value": rec.value, "unrounded": rec.unrounded, "rule": "optRF", "rec_thresh": 1e-6,
            "round_to": "thousand", "minimum": 500, "n_for_target": rec.n_for_target, "target": 0.95,
            "grid_max": 8, "beyond_grid": rec.beyond_grid, "expected_stability": rec.expected_stability,
            "note": rec.note, "steps": [list(step) for step in rec.steps], "p1": fit.p1}
    assert out["settings"] == json.loads(json.dumps(res.settings))
    largest = out["largest_forest"]
    assert largest["n_learners"] == 8 and largest["psi"]["value"] == res.largest_psi.value
    assert largest["phi"] is None  # phi was not asked for
    assert largest["psi"]["per_object"] == np.asarray(res.largest_psi.per_object, dtype=float).tolist()
    assert (largest["psi"]["observed"], largest["psi"]["expected"]) == (res.largest_psi.observed,
                                                                       res.largest_psi.expected)
    # NaN becomes None, numpy scalars plain numbers
    res2 = _tune(method="refit", measures=("icc",))
    out2 = res2.to_dict()
    assert out2["recommendation_interval"]["low"] is None and out2["pool_size"] is None
    assert type(out2["table"]["n_forests"][0]) is int and type(out2["fits"]["icc"]["converged"]) is bool
    assert out2["largest_forest"] == {"n_learners": 8, "phi": None, "psi": None}
    if res2.recommendation is None:
        assert out2["runtime"]["recommended_seconds_per_forest"] is None
    frame = res.to_frame()
    assert frame.loc[0, "recommendation"] == res.recommendation and frame.loc[0, "ci_low"] == low_of(res)


def low_of(res):
    return res.confidence_interval.low


def test_equality_leaves_out_the_timings(monkeypatch):
    import dataclasses

    a = _tune(method="refit", measures=("icc", "phi"))
    monkeypatch.setattr(strategies, "time", types.SimpleNamespace(perf_counter=_Clock([3.0])))
    b = _tune(method="refit", measures=("icc", "phi"))
    monkeypatch.undo()
    assert not a.table["seconds"].equals(b.table["seconds"]) and a.runtime != b.runtime
    assert a == b and (a == 3) is False
    assert a != dataclasses.replace(b, recommendation=-1)
    changed = b.table.copy()
    changed.loc[0, "icc"] += 1e-9
    assert a != dataclasses.replace(b, table=changed)
    fits = dict(b.fits)
    fits["phi"] = dataclasses.replace(fits["phi"], p1=fits["phi"].p1 + 1e-9)
    assert a != dataclasses.replace(b, fits=fits)  # fits compared field by field
    assert a != dataclasses.replace(b, largest_phi=None)


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


LABELS = np.where(YC == 1, "yes", "no").astype(object)


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
    res = _tune(estimator=CLF, X=XC[:30], y=YC[:30], X_test=XC[30:], method="pool", grid=(2, 3, 4),
                pool_size=8)
    assert res.measures == ("fleiss", "phi", "psi", "selection") and res.pool_size == 8
    pool = TreePool(CLF, n_learners=8, voting="hard", random_state=0).fit(XC[:30], YC[:30], XC[30:])
    for gi, (n, k) in enumerate(((2, 3), (3, 2), (4, 2))):
        expected = selection_stability(pool.forests(n, n_forests=k), select_for=1).value  # the last class
        assert res.table.loc[gi, "selection"] == pytest.approx(expected, abs=1e-12)


def _defaults(estimator, y, X_test=XTE, **kwargs):
    """What the validation fills in: (measures, pool_size, voting, select_for, select_fraction)."""
    config = _config(estimator, XC[:30] if estimator is CLF else XTR, y, X_test, **kwargs)
    return (config.measures, config.pool_size, config.voting, config.select_for, config.select_fraction,
            config.explicit_pool, config.is_classifier)


def _config(estimator, X, y, X_test, **kwargs):
    """The frozen configuration the validation builds from a call's arguments."""
    args = dict(estimator=estimator, X=X, y=y, X_test=X_test, grid=(2, 3, 4), n_repeats=3, measures=None,
                method="pool", selection=None, importance=None, psi_baseline="fixed", pool_size=None,
                voting=None, target=0.95, n_resamples=0, progress=None, precision=None, scale=None,
                categories=None, confidence_level=0.95, rec_thresh=1e-6, round_to="thousand", n_jobs=None,
                random_state=None, interval="learners+objects") | kwargs
    return config_module._tune_num_learners_iv(args)


def test_defaults_filled_in_by_the_validation():
    # the pool: n_repeats x max(grid) (3 x 4 here), at least 1000 for closed_form (issue 22 item 19)
    assert _defaults(EST, YTR) == (("icc", "phi", "psi", "selection"), 12, "soft", "high", 0.15, False, False)
    assert _defaults(EST, YTR, method="closed_form") == (("icc", "phi", "psi"), 1000, "soft", "high", 0.15,
                                                          False, False)
    assert _defaults(EST, YTR, method="closed_form", grid=(2, 3, 700))[1] == 2100
    assert _defaults(EST, YTR, pool_size=50)[1:2] + _defaults(EST, YTR, pool_size=50)[5:6] == (50, True)
    assert _defaults(CLF, LABELS[:30], XC[30:]) == (("fleiss", "phi", "psi", "selection"), 12, "hard", "yes",
                                                     0.15, False, True)
    assert _defaults(CLF, LABELS[:30], XC[30:], method="closed_form") == (
        ("fleiss", "phi", "psi"), 1000, "hard", "yes", 0.15, False, True)
    # a classifier's closed form: at least 4 x max(grid) (its bands at n = P / 2 cover 0.86, issue 21)
    assert _defaults(CLF, LABELS[:30], XC[30:], method="closed_form", grid=(2, 3, 700))[1] == 2800
    assert _defaults(CLF, LABELS[:30], XC[30:], method="refit", grid=(2, 3, 700))[1] == 2100
    assert _defaults(CLF, LABELS[:30], XC[30:], voting="soft")[2] == "soft"
    assert _defaults(EST, YTR, measures="icc")[0] == ("icc",)
    assert _defaults(EST, YTR, X_test=None)[4] == 0.15  # 15% of the 30 training rows
    assert _defaults(EST, YTR, X_test=XTE[:3])[4] == 1
    spec = _config(CLF, XC[:30], YC[:30], XC[30:], measures=("fleiss", "phi"), scale="ordinal",
                   categories=(0, 1))
    assert spec.categories == [0, 1] and spec.scale == "ordinal"
    assert spec.y.tolist() == YC[:30].tolist()


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


def test_flat_curve_is_already_stable_and_printed_so():
    rng = np.random.default_rng(0)
    Xb = np.vstack([rng.normal(0, 1, (15, 2)), rng.normal(12, 1, (15, 2))])
    yb = np.repeat(["a", "b"], 15).astype(object)
    test = np.vstack([rng.normal(0, 1, (4, 2)), rng.normal(12, 1, (4, 2))])
    with warnings.catch_warnings():
        warnings.simplefilter("error", PredstabWarning)  # an already flat curve is no problem
        res = tune_num_learners(RandomForestClassifier(max_features=1), Xb, yb, test, grid=(2, 4, 8),
                                n_repeats=3, measures=("fleiss",), method="pool", pool_size=24, n_resamples=5,
                                random_state=0)
    rec = res.recommendations["fleiss"]
    assert res.table["fleiss"].tolist() == [1.0, 1.0, 1.0] and res.table["degenerate"].tolist() == [""] * 3
    assert (res.recommendation, rec.rule, res.n_for_target, res.reliable) == (2, "already stable", 2, True)
    note = ("already stable: fleiss >= 0.95 at every grid value from 2 learners on (the 2PL fit failed on a "
            "flat curve); no larger grid is needed")
    assert rec.note == note and res.message == f"fleiss: {note}."
    assert np.isnan(res.confidence_interval.low)  # no interval about a rule that is not optRF's
    lines = str(res).splitlines()
    assert f" Recommendation: 2 learners -- {rec.explain()}." in lines
    assert f"  fleiss: {note}." in lines
    assert " 2 learners reach fleiss = 0.95 on the fitted curve" in lines
    assert abs(res.runtime[0]) < 1e-9  # pool times are proportional to n: printed as 0
    assert lines[-1] == (f" Run time: seconds per forest ~ 0 + {res.runtime[1]:.4g} * "
                         f"learners; 2 learners: about {res.seconds_for(2):.3g} s per forest")
    assert res.recommendation_seconds == pytest.approx(res.runtime[0] + 2 * res.runtime[1], rel=1e-12)


# ------------------------------------------------------------------------- rules, messages, intervals
def _curve_fit(p1, p2, n=(10, 20, 40, 80), noise=0.0):
    n = np.array(n, dtype=float)
    values = 1 / (1 + (p1 / n) ** p2) + noise * np.array([1, -1, 1, -1])[: n.size]
    return n, values, fit_2pl(n, values)


@pytest.mark.parametrize(("values", "expected"), [
    ([0.5, 0.97, 0.96], 4), ([0.97, 0.9, 0.96], 8), ([0.97, 0.98, 0.99], 2), ([0.97, 0.98, 0.9], None),
    ([0.95, 0.95, 0.95], 2), ([np.nan, 0.97, 0.99], 4), ([0.97, 0.97, np.nan], None), ([], None),
])
def test_already_stable_is_the_first_grid_value_staying_above_target(values, expected):
    assert recommend_module._already_stable(np.array([2, 4, 8][: len(values)]), np.array(values, dtype=float),
                                       0.95) == expected


def test_recommend_notes_poor_unflattened_and_beyond_the_grid():
    n, values, fit = _curve_fit(5, 1.5)  # a good, flattened fit: optRF's 1000, beyond the grid of 80
    rec = recommend_module._recommend("icc", fit, n, values, 80, 0.95, 1e-6, "thousand")
    assert (rec.value, rec.unrounded, rec.rule, rec.n_for_target) == (1000, 790.0, "optRF", 36)
    assert rec.beyond_grid and rec.grid_max == 80
    assert rec.note == ("beyond the grid: 1000 is 12.5 x the largest grid value 80 (an extrapolation of the "
                        "fitted curve)")
    assert rec.expected_stability == pytest.approx(1 / (1 + (5 / 1000) ** 1.5), rel=1e-6)
    rec = recommend_module._recommend("icc", fit, n, values, 1000, 0.95, 1e-6, "thousand")
    assert (rec.value, rec.beyond_grid, rec.note) == (1000, False, "")  # at the end of the grid, not beyond
    rec = recommend_module._recommend("icc", fit, n, values, 2000, 0.95, 1e-6, "hundred")
    assert (rec.value, rec.beyond_grid, rec.note, rec.round_to) == (800, False, "", "hundred")
    n, values, fit = _curve_fit(200, 1.0)  # converged, not flattened within 80 learners
    rec = recommend_module._recommend("phi", fit, n, values, 80, 0.95, 1e-6, "thousand")
    assert rec.note == (f"the curve has not flattened within the grid (fitted stability "
                        f"{fit.stability(80):.2f} "
                        f"at 80 learners); a grid up to about 810 learners would resolve it")
    assert (rec.value, rec.rule, rec.beyond_grid) == (14000, "optRF", True)
    problems, message = recommend_module._primary_message("phi", fit, rec, [10, 20, 40, 80], [])
    assert problems == [f"the curve has not flattened within the grid (fitted stability "
                        f"{fit.stability(80):.2f} "
                        f"at 80 learners, inflection point p1 = {fit.p1:.0f})"]
    assert message == (f"phi: {problems[0]}. A grid up to about 810 learners would resolve it, e.g. "
                       "(10, 20, 40, 80, 160, 320, 640, 1280).")
    n, values, fit = _curve_fit(5, 1.5, noise=0.05)  # converged, poor
    rec = recommend_module._recommend("psi", fit, n, values, 80, 0.95, 1e-6, "thousand")
    assert rec.note == f"the 2PL fits poorly (R^2 = {fit.r_squared:.2f}); optRF's number is not trusted"
    assert (rec.value, rec.rule) == (fit.recommend(), "optRF")
    problems, message = recommend_module._primary_message("psi", fit, rec, [10, 20, 40, 80], [])
    assert problems == [f"the 2PL fits poorly (R^2 = {fit.r_squared:.2f}); do not trust it"]
    problems, message = recommend_module._primary_message("psi", fit, rec, [10, 20, 40, 80], [20, 40])
    assert message == ("psi: the 2PL fit is poor on the points left after its degenerate ones (n = 20, "
                       "40; see "
                       "notes).")
    # poor but high: already stable from the first grid value on the observed curve
    flat = np.array([0.96, 0.99, 0.97, 0.99])
    fit = fit_2pl(n, flat)
    assert fit.poor_fit
    rec = recommend_module._recommend("psi", fit, n, flat, 80, 0.95, 1e-6, "thousand")
    assert (rec.value, rec.rule, rec.unrounded, rec.n_for_target) == (10, "already stable", None, 10)
    assert rec.note == ("already stable: psi >= 0.95 at every grid value from 10 learners on (the 2PL "
                        "fits poorly "
                        "on a flat curve); no larger grid is needed")
    assert rec.expected_stability == pytest.approx(float(fit.stability(10)), rel=1e-12)
    assert recommend_module._primary_message("psi", fit, rec, [10, 20, 40, 80], []) == ([], f"psi: {rec.note}.")
    failed = recommend_module._failed_fit(n, values, "no fit")
    problems, message = recommend_module._primary_message("icc", failed, rec.__class__(
        **{**rec.__dict__, "rule": "none"}), [10, 20, 40, 80], [])
    assert problems == ["the 2PL fit failed (no fit)"]
    assert message == ("icc: the 2PL fit failed (no fit). A grid up to about 320 learners would resolve it, "
                       f"e.g. {failed.suggested_grid()}.")


def test_interval_needs_half_of_the_resamples_to_recommend():
    n = np.array([10.0, 20.0, 40.0, 80.0])
    curves = [1 / (1 + (p1 / n) ** 1.5) for p1 in (4.0, 5.0, 6.0, 7.0)]
    rounded, raw = [], []
    for curve in curves:
        fit = fit_2pl(n, curve)
        rounded.append(fit.recommend(round_to="hundred"))
        raw.append(fit.recommend(round_to="none", minimum=0))
    interval, unrounded = interval_module._interval(curves + [np.full(4, np.nan)] * 4, [10, 20, 40, 80], 1e-6,
                                                "hundred", 8, 0.5)
    assert tuple(interval) == order_interval(rounded, 0.5)
    assert tuple(unrounded) == order_interval(raw, 0.5)
    interval, unrounded = interval_module._interval(curves + [np.full(4, np.nan)] * 5, [10, 20, 40, 80], 1e-6,
                                                "hundred", 9, 0.5)
    assert np.isnan(interval.low) and np.isnan(unrounded.high)  # 4 of 9 resamples recommend


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


def test_precision_reached_keeps_the_pool_and_out_of_reach_warns(monkeypatch):
    with warnings.catch_warnings():
        warnings.simplefilter("error", PredstabWarning)
        res = tune_num_learners(EST, XTR, YTR, XTE, grid=GRID, measures=("icc",), method="closed_form",
                                pool_size=24, precision=0.9, n_resamples=0, random_state=0)
    assert res.pool_size == 24
    monkeypatch.setattr(strategies, "MAX_POOL", 40)
    with pytest.warns(PredstabWarning) as caught:
        res = tune_num_learners(EST, XTR, YTR, XTE, grid=GRID, measures=("icc", "phi"), method="closed_form",
                                pool_size=24, precision=0.001, n_resamples=0, random_state=0)
    pool = TreePool(EST, n_learners=24, random_state=check_rng(0)).fit(XTR, YTR, XTE, oob=False)
    pool.extend(16)  # to the largest pool allowed, once
    widest = max(float(np.nanmax((b.high - b.low) / 2))
                 for b in (pool.closed_form(GRID, measure=m, n_resamples=100) for m in ("icc", "phi")))
    assert res.pool_size == 40
    assert str(caught[0].message) == (f"`precision`=0.001 not reached: the 95% bands of a pool of 40 "
                                      f"learners "
                                      f"reach +-{widest:.3f} (at most 40 learners, three enlargements).")
    np.testing.assert_allclose(res.table["icc"], pool.closed_form(GRID).curve, rtol=1e-10)


def test_a_failing_closed_form_is_nan_everywhere_with_its_reason(monkeypatch):
    real = TreePool.closed_form

    def failing(self, n, *, measure="icc", **kwargs):
        if measure == "phi":
            raise ValueError("phi\n   cannot be   computed")
        return real(self, n, measure=measure, **kwargs)

    monkeypatch.setattr(TreePool, "closed_form", failing)
    res = _tune(method="closed_form", pool_size=24, measures=("icc", "phi"), n_resamples=5)
    assert res.table["phi"].isna().all() and res.table["phi_low"].isna().all()
    assert res.table["icc_low"].notna().all()
    assert res.notes == ("phi could not be computed at n = 2, 4, 8 (NaN there): ValueError: phi cannot be "
                         "computed",)
    res = _tune(method="closed_form", pool_size=24, measures=("icc", "phi"), n_resamples=0)
    assert "phi_low" not in res.table and res.table["phi"].isna().all()


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


# ------------------------------------------------------------- the closed form's objects+learners resamples
def _expected_learner_object_curves(pool, measure, baseline, curve, n_resamples, seed):
    """Each resample: the pool's per-learner predictions at drawn rows and columns (rows first, then
    columns), its closed form minus the bootstrap world's exact value, subtracted from ``curve``."""
    from predstab.ensembles._closed_form import _orderings, closed_form_stats, curve_from_stats

    rng = np.random.default_rng(seed)
    preds = pool.test_predictions_
    mask = pool.oob_ if pool.on_train_ else None
    rows = rng.integers(0, preds.shape[0], (n_resamples, preds.shape[0]))
    cols = rng.integers(0, preds.shape[1], (n_resamples, preds.shape[1]))
    d_e = pool._closed_form_expected(measure, baseline, pool.voting_)
    n = np.asarray(GRID, dtype=float)
    kw = {"classifier": pool.is_classifier_, "voting": pool.voting_}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        stats = closed_form_stats(preds, mask, n, rng=rng, population=True, **kw)
        truth = curve_from_stats(stats, n, measure, d_e)
        n_perm = max(5, _orderings(preds.shape[0]) // 8) if pool.is_classifier_ else None
        out = []
        for r, c in zip(rows, cols, strict=True):
            stats = closed_form_stats(preds[r][:, c], None if mask is None else mask[r][:, c], n, rng=rng,
                                      n_perm=n_perm, **kw)
            out.append(np.minimum(curve - (curve_from_stats(stats, n, measure, d_e) - truth), 1.0))
    return np.array(out)


def _spec(y, baseline=None, scale="metric"):
    """What the learners+objects curves read of a run: psi's fixed baseline."""
    return table_module._Forests(values={}, baseline=baseline)


@pytest.mark.parametrize("case", ["metric psi", "metric icc out of bag", "classes fleiss", "classes phi"])
def test_learner_object_curves_are_pivoted_resampled_pools(case):
    if case.startswith("metric"):
        on_train = "out of bag" in case
        pool = TreePool(EST, n_learners=12, random_state=0).fit(XTR, YTR, None if on_train else XTE)
        y = YTR
    else:
        pool = TreePool(CLF, n_learners=12, voting="hard", random_state=0).fit(XC[:30], YC[:30], XC[30:])
        y = YC[:30]
    measure = case.split()[1]
    baseline = pool.forests(8, n_forests=1, on="oob")[:, 0] if measure == "psi" else None
    curve = np.array([0.5, 0.7, 0.9])
    got = interval_module._learner_object_curves(pool, GRID, measure, _spec(y, baseline), curve, 3,
                                             np.random.default_rng(1))
    expected = _expected_learner_object_curves(pool, measure, baseline, curve, 3, 1)
    np.testing.assert_allclose(got, expected, rtol=1e-10)
    assert np.ptp(expected, axis=0).max() > 1e-3  # the resamples differ


def test_metric_resample_statistics_without_copies_equal_the_copied_pools():
    from predstab.ensembles._closed_form import closed_form_stats

    preds = np.random.default_rng(3).normal(5.0, 2.0, (4100, 5))  # two blocks of 4096 objects
    rows = np.random.default_rng(4).integers(0, 4100, (2, 4100))
    cols = np.array([[0, 0, 1, 3, 4], [2, 2, 2, 1, 0]])
    n = np.array([2.0, 7.0])
    fast = interval_module._resampled_metric_stats(preds, rows, cols, n)
    for b in range(2):
        copied = closed_form_stats(preds[rows[b]][:, cols[b]], None, n, classifier=False, voting="soft",
                                   rng=None)
        assert set(fast[b]) == {"d_o", "b", "w"}
        for key in ("d_o", "b", "w"):
            np.testing.assert_allclose(fast[b][key], copied[key], rtol=1e-10)
    # one learner drawn 5 times: no spread within objects, all between them
    same = interval_module._resampled_metric_stats(preds[:50], rows[:, :50] % 50, np.zeros((2, 5), dtype=int), n)
    copied = closed_form_stats(preds[:50][rows[0, :50] % 50][:, [0] * 5], None, n, classifier=False,
                               voting="soft", rng=None)
    assert same[0]["w"] == pytest.approx(0.0, abs=1e-12)
    assert same[0]["b"] == pytest.approx(copied["b"], rel=1e-10)


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


def test_confidence_level_of_the_bands_and_the_interval():
    res = _tune(method="closed_form", pool_size=24, measures=("icc", "phi"), n_resamples=10,
                interval="learners", confidence_level=0.5)
    pool = TreePool(EST, n_learners=24, random_state=0).fit(XTR, YTR, XTE, oob=False)
    for m in ("icc", "phi"):
        bands = pool.closed_form(GRID, measure=m, n_resamples=10, confidence_level=0.5)
        np.testing.assert_allclose(res.table[f"{m}_low"], bands.low, rtol=1e-10)
        np.testing.assert_allclose(res.table[f"{m}_high"], bands.high, rtol=1e-10)
    assert res.confidence_level == 0.5 and res.settings["confidence_level"] == 0.5
    assert (" 50% bootstrap bands (learners only: these test objects and this training set, "
        "variation from the trees):") in str(res).splitlines()
    res = _tune(method="pool", pool_size=24, measures=("icc",), n_resamples=10, confidence_level=0.5)
    rng = check_rng(0)
    pool = TreePool(EST, n_learners=24, random_state=rng).fit(XTR, YTR, XTE, oob=False)
    preds = {n: _group_predictions(pool, n, 3, XTE) for n in GRID}
    curves = []
    for _ in range(10):
        rows = rng.integers(0, len(XTE), len(XTE))
        curves.append([icc(preds[n][rows]).value for n in GRID])
    low, high = np.quantile(np.array(curves), [0.25, 0.75], axis=0)
    np.testing.assert_allclose(res.table["icc_low"], low, rtol=1e-10)
    np.testing.assert_allclose(res.table["icc_high"], high, rtol=1e-10)
    rounded = []
    for curve in curves:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PredstabWarning)
            rec = fit_2pl(GRID, curve).recommend()
        if rec is not None:
            rounded.append(rec)
    assert tuple(res.confidence_interval) == order_interval(rounded, 0.5)


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


def test_closed_form_without_bootstrap_has_no_bands():
    res = _tune(method="closed_form", pool_size=24, measures=("icc", "phi"))
    assert list(res.table.columns) == ["n_learners", "icc", "phi", "degenerate", "seconds", "n_forests"]
    assert res.bands == {} and "bootstrap bands" not in str(res)


def test_precision_grows_the_pool_as_the_square_of_the_band_ratio():
    def widest(pool, measures, baseline=None):
        return max(float(np.nanmax((b.high - b.low) / 2)) for b in (
            pool.closed_form(GRID, measure=m, baseline=baseline, n_resamples=100) for m in measures))

    pool = TreePool(EST, n_learners=24, random_state=check_rng(0)).fit(XTR, YTR, XTE)
    baseline = oob_mean(_groups(pool, 8, 1)[0], XTR)
    first = widest(pool, ("psi",), baseline)
    precision = round(first / 1.5, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PredstabWarning)
        res = tune_num_learners(EST, XTR, YTR, XTE, grid=GRID, measures=("psi",), method="closed_form",
                                pool_size=24, precision=precision, n_resamples=0, random_state=0)
    # the documented rule: 10% more than (widest / precision)^2 times the pool, checked again, at most 3 times
    size, band = 24, first
    for _ in range(3):
        if band <= precision:
            break
        needed = int(np.ceil(1.1 * size * (band / precision) ** 2))
        pool.extend(max(needed - size, 2))
        size = pool.test_predictions_.shape[1]
        band = widest(pool, ("psi",), baseline)
    assert size > 24 and res.pool_size == size
    np.testing.assert_allclose(res.table["psi"], pool.closed_form(GRID, measure="psi", baseline=baseline).curve,
                               rtol=1e-10)


@pytest.mark.parametrize("select_for", ["high", "low", "zero"])
def test_regressor_selection_directions(select_for):
    res = _tune(method="refit", grid=(2, 3, 4), n_repeats=2, measures=("selection",),
                selection={"select_for": select_for})
    forests, _ = _refits(grid=(2, 3, 4), n_repeats=2)
    preds = np.column_stack([f.predict(XTE) for f in forests[4]])
    assert res.table.loc[2, "selection"] == pytest.approx(
        selection_stability(preds, fraction=0.15, select_for=select_for).value, rel=1e-12)


def test_options_of_measures_not_asked_for_are_not_checked_against_the_data():
    # 1% of 10 objects selects none: an error only when selection stability is measured
    res = _tune(method="refit", grid=(2, 3, 4), n_repeats=2, measures=("icc",), selection={"fraction": 0.01},
                importance={"fraction": 0.01})
    assert "select_fraction" not in res.settings and "importance_fraction" not in res.settings
    forests, _ = _refits(grid=(2, 3, 4), n_repeats=2)
    preds = np.column_stack([f.predict(XTE) for f in forests[4]])
    assert res.table.loc[2, "icc"] == pytest.approx(icc(preds).value, rel=1e-12)


def test_learner_object_curves_of_three_classes_use_random_orderings():
    # more than two classes: the class closed form draws random orderings of the pool (a fixed
    # number per resample, an eighth of the default, at least 5), from the same generator
    levels = np.array(["lo", "mid", "hi"], dtype=object)
    y3 = levels[np.digitize(YTR, np.quantile(YTR, [1 / 3, 2 / 3]))]
    pool = TreePool(CLF, n_learners=12, voting="hard", random_state=0).fit(XTR, y3, XTE)
    assert len(set(pool.forests(1, n_forests=12).ravel().tolist())) == 3
    curve = np.array([0.5, 0.7, 0.9])
    got = interval_module._learner_object_curves(pool, GRID, "fleiss", _spec(y3), curve, 3,
                                             np.random.default_rng(2))
    np.testing.assert_allclose(got, _expected_learner_object_curves(pool, "fleiss", None, curve, 3, 2),
                               rtol=1e-10)


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


def test_classifier_default_selects_the_last_of_three_sorted_classes():
    y3 = np.array(["lo", "mid", "hi"], dtype=object)[np.arange(30) % 3]
    assert _defaults(CLF, y3, XC[30:])[3] == "mid"  # sorted: hi, lo, mid


def test_refit_result_prints_its_run_time_model(monkeypatch):
    clock = _Clock([1.0, 0.5, 1.0, 0.25])  # fits of 0.5 and 0.25 s, in turn
    monkeypatch.setattr(strategies, "time", types.SimpleNamespace(perf_counter=clock))
    res = _tune(method="refit", measures=("icc",), grid=(2, 4, 8), n_repeats=2)
    lines = str(res).splitlines()
    assert lines[0] == " Stability against the number of learners (method refit)"
    assert " 2 forests per grid value; scale metric" in lines
    intercept, slope = res.runtime
    assert (intercept, slope) == pytest.approx((0.375, 0.0), abs=1e-12)  # 0.5 and 0.25 s per forest
    at = "" if res.recommendation is None else (
        f"; {res.recommendation} learners: about {res.recommendation_seconds:.3g} s per forest")
    assert lines[-1] == f" Run time: seconds per forest ~ 0.375 + {slope:.4g} * learners{at}"


def test_result_without_recommendation_prints_no_forest_time(monkeypatch):
    import dataclasses

    clock = _Clock([1.0, 0.5])
    monkeypatch.setattr(strategies, "time", types.SimpleNamespace(perf_counter=clock))
    res = dataclasses.replace(_tune(method="refit", measures=("icc",), n_repeats=2), recommendation=None)
    assert np.isnan(res.recommendation_seconds)
    last = str(res).splitlines()[-1]
    assert last == f" Run time: seconds per forest ~ 0.5 + {res.runtime[1]:.4g} * learners"


def test_class_closed_form_beyond_half_the_pool_does_not_warn_from_tune():
    # TreePool warns that such a curve is extrapolated; tune_num_learners reports only its fit problems
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = tune_num_learners(CLF, XC[:30], YC[:30], XC[30:], grid=(2, 3, 8), n_repeats=3,
                                measures=("fleiss",), method="closed_form", pool_size=8, n_resamples=0,
                                random_state=0)
    assert not [w for w in caught if "extrapolated" in str(w.message)]
    pool = TreePool(CLF, n_learners=8, voting="hard", random_state=0)
    pool.fit(XC[:30], YC[:30], XC[30:], oob=False)
    with pytest.warns(PredstabWarning, match="is extrapolated"):  # the pool's own call warns
        expected = pool.closed_form((2, 3, 8), measure="fleiss").curve
    np.testing.assert_allclose(res.table["fleiss"], expected, rtol=1e-10)
