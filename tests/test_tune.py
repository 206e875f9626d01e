"""tune_num_learners: the three methods against their definitions, on tiny pools and grids."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import make_classification, make_regression
from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor
from sklearn.linear_model import LinearRegression

from predstab import PredstabDataWarning, PredstabWarning, TreePool, fit_2pl, icc, tune_num_learners
from predstab._utils import check_rng, seeds_from

X, Y = make_regression(70, 6, noise=25, random_state=0)
XTR, YTR, XTE = X[:50], Y[:50], X[50:]
EST = RandomForestRegressor(max_features=2, min_samples_leaf=3)
GRID = (4, 8, 16, 32)


def _quiet(**kwargs):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PredstabWarning)
        args = {"X_test": XTE} | kwargs
        return tune_num_learners(EST, XTR, YTR, grid=GRID, n_repeats=3, n_bootstrap=0, random_state=0, **args)


def test_refit_is_refits_with_derived_seeds():
    res = _quiet(method="refit", measures=("icc",))
    seeds = seeds_from(check_rng(0), len(GRID) * 3).reshape(len(GRID), 3)
    for gi, n in enumerate(GRID):
        fits = [clone(EST).set_params(n_estimators=n, random_state=int(s)).fit(XTR, YTR) for s in seeds[gi]]
        m = np.column_stack([f.predict(XTE) for f in fits])
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
    np.testing.assert_allclose(res.table["icc"], pool.closed_form(GRID), rtol=1e-12)
    np.testing.assert_allclose(res.table["psi"], pool.closed_form(GRID, measure="psi"), rtol=1e-12)
    fit = fit_2pl(GRID, res.table["icc"])
    assert res.fits["icc"].p1 == fit.p1 and res.recommendation == fit.recommend()
    assert res.n_for_target == fit.num_learners_for(0.95)
    assert res.summary.loc["icc", "recommended"] == res.recommendation


def test_pool_too_small_is_said():
    with pytest.warns(PredstabDataWarning, match="fewer than n_repeats=3"):
        tune_num_learners(EST, XTR, YTR, XTE, grid=GRID, n_repeats=3, measures=("icc",), pool_size=64,
                          n_bootstrap=0, random_state=0)
    with pytest.raises(ValueError, match="at least 2 disjoint forests"):
        tune_num_learners(EST, XTR, YTR, XTE, grid=GRID, pool_size=40, random_state=0)


def test_unflattened_curve_is_reported_with_a_grid():
    with pytest.warns(PredstabWarning, match="not flattened"):
        res = tune_num_learners(EST, XTR, YTR, XTE, grid=(1, 2, 3), n_repeats=3, measures=("icc",),
                                method="closed_form", pool_size=100, n_bootstrap=0, random_state=0)
    assert not res.reliable and "would resolve it" in res.message


def test_bootstrap_interval_and_runtime_model():
    res = _quiet(method="closed_form", measures=("icc",), pool_size=64)
    assert np.isnan(res.confidence_interval.low)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PredstabWarning)
        res = tune_num_learners(EST, XTR, YTR, XTE, grid=GRID, measures=("icc",), method="closed_form",
                                pool_size=64, n_bootstrap=20, random_state=0)
    low, high = res.confidence_interval
    assert low <= high and "icc" in res.bands
    assert low % 1000 == 0 and high % 1000 == 0  # resampled recommendations, not interpolations
    band = res.bands["icc"]
    assert (band["low"] <= res.table["icc"]).all() and (res.table["icc"] <= band["high"]).all()
    first = f"{band['low'][0]:.4f} to {band['high'][0]:.4f}"
    assert "95% bootstrap bands" in str(res) and first in str(res)
    assert res.seconds_for(100) == pytest.approx(res.runtime[0] + 100 * res.runtime[1])


def test_classifier_measures_and_progress():
    Xc, yc = make_classification(80, 6, n_informative=3, random_state=3)
    labels = np.where(yc == 1, "high", "low")
    calls = []
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PredstabWarning)
        res = tune_num_learners(RandomForestClassifier(max_features=2), Xc[:60], labels[:60], Xc[60:],
                                grid=(3, 6, 12), n_repeats=3, method="refit", select_for="high",
                                measures=("fleiss", "selection", "phi", "psi"), n_bootstrap=0,
                                random_state=0, progress=lambda d, t: calls.append((d, t)))
    assert calls[-1] == (9, 9)
    # selecting one of two classes relabels the predictions: optRF reports equal values
    np.testing.assert_allclose(res.table["selection"], res.table["fleiss"], rtol=1e-12)


def test_importance_and_moving_psi_baseline():
    res = _quiet(method="pool", measures=("importance", "importance_selection", "psi"), pool_size=96,
                 psi_baseline="per_forest", importance_fraction=0.5)
    assert res.table[["importance", "importance_selection", "psi"]].notna().all().all()
    imp = _quiet(method="refit", measures=("importance",), importance="impurity", importance_fraction=0.5)
    assert imp.table["importance"].notna().all()



def test_training_rows_out_of_bag():
    res = _quiet(method="refit", measures=("icc",), X_test=None)
    assert len(res.table) == len(GRID)


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [({"method": "fast"}, ValueError, "`method`"), ({"grid": (10, 20)}, ValueError, "`grid`"),
     ({"grid": (10, 10, 20)}, ValueError, "repeat"), ({"n_repeats": 1}, ValueError, "`n_repeats`"),
     ({"measures": ("kappa",)}, ValueError, "`measures`"), ({"measures": ("fleiss",)}, ValueError, "fleiss"),
     ({"psi_baseline": "moving"}, ValueError, "`psi_baseline`"), ({"target": 1.5}, ValueError, "`target`"),
     ({"select_for": "middle"}, ValueError, "`select_for`"), ({"progress": 3}, TypeError, "`progress`"),
     ({"method": "closed_form", "psi_baseline": "per_forest"}, ValueError, "no closed form"),
     ({"measures": ("selection",), "select_fraction": 0.01}, ValueError, "`select_fraction`"),
     ({"measures": ("importance",)}, ValueError, "`importance_fraction`"),
     ({"measures": ("importance",), "importance": "gini"}, ValueError, "`importance`")],
)
def test_bad_arguments(kwargs, exc, match):
    args = {"grid": GRID, "n_bootstrap": 0} | kwargs
    with pytest.raises(exc, match=match):
        tune_num_learners(EST, XTR, YTR, XTE, **args)


def test_not_an_ensemble():
    with pytest.raises(TypeError, match="`estimator`"):
        tune_num_learners(LinearRegression(), XTR, YTR, XTE)


def test_poor_fit_gives_no_recommendation_but_keeps_optRFs_number():
    import pandas as pd

    from predstab._tune import _summarise
    from validation._table import load_json

    curve = load_json("aps", "expected", "aps_maize.json")["curve"]  # ranger, psi with moving OOB baseline
    table = pd.DataFrame({"n_learners": [p["num_trees"] for p in curve], "psi": [p["psi"] for p in curve],
                          "seconds": [0.01 * p["num_trees"] for p in curve]})
    with pytest.warns(PredstabWarning, match="fits poorly"):
        res = _summarise(table, ("psi",), "refit", table["n_learners"].tolist(), None, None, None, 0.95,
                         1e-6, "thousand", 0, None, {})
    assert res.recommendation is None and not res.reliable
    assert res.summary.loc["psi", "recommended"] == fit_2pl(table["n_learners"], table["psi"]).recommend()
    assert res.runtime[1] == pytest.approx(0.01)


@pytest.mark.filterwarnings("ignore::predstab.PredstabDataWarning")
def test_kfold_psi_baseline_is_fixed_out_of_fold_predictions():
    from sklearn.model_selection import KFold, cross_val_predict

    from predstab import psi

    res = _quiet(method="pool", measures=("psi",), psi_baseline="kfold", pool_size=96)
    rng = check_rng(0)
    seed = int(seeds_from(rng, 1)[0])  # the first seed drawn goes to the K-fold forest
    space = cross_val_predict(clone(EST).set_params(n_estimators=32, random_state=seed), XTR, YTR,
                              cv=KFold(5, shuffle=True, random_state=seed))
    pool = TreePool(EST, n_learners=96, random_state=rng).fit(XTR, YTR, XTE, oob=False)
    assert res.table.loc[0, "psi"] == pytest.approx(psi(pool.forests(4, n_forests=3), space).value, rel=1e-12)
    closed = _quiet(method="closed_form", measures=("psi",), psi_baseline="kfold", pool_size=64)
    assert closed.table["psi"].is_monotonic_increasing
    assert np.isnan(closed.recommendation_seconds) or closed.recommendation_seconds > 0


def test_psi_without_out_of_bag_rows_needs_kfold():
    from sklearn.ensemble import ExtraTreesRegressor

    with pytest.raises(ValueError, match="psi_baseline='kfold'"):
        tune_num_learners(ExtraTreesRegressor(), XTR, YTR, XTE, grid=GRID, measures=("psi",))
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PredstabWarning)
        res = tune_num_learners(ExtraTreesRegressor(max_features=2), XTR, YTR, XTE, grid=GRID, n_repeats=3,
                                measures=("icc", "psi"), psi_baseline="kfold", pool_size=96, n_bootstrap=0,
                                random_state=0)
    assert res.table["psi"].notna().all()


def test_str_reports_table_fits_and_recommendation():
    res = _quiet(method="closed_form", measures=("icc", "phi"), pool_size=64)
    text = str(res)
    for n in GRID:
        assert f"\n{n:>11d} " in text  # one table row per grid value
    assert f"icc: p1 {res.fits['icc'].p1:.4g}" in text and "phi: p1" in text
    if res.recommendation is None:
        assert "No recommendation" in text
    else:
        assert f"{res.recommendation} learners" in text


def test_closed_form_precision_grows_the_pool():
    import warnings

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
    import predstab._tune as tune_module

    monkeypatch.setattr(tune_module, "_MAX_POOL", 150)
    with pytest.warns(PredstabWarning, match=r"`precision`=0.001 not reached.*pool of 150 learners"):
        res = tune_num_learners(EST, XTR, YTR, XTE, grid=GRID, measures=("icc",), method="closed_form",
                                pool_size=100, precision=0.001, n_bootstrap=0, random_state=0)
    assert res.pool_size == 150


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"method": "pool", "precision": 0.02}, "applies to method='closed_form'"),
    ({"method": "closed_form", "precision": 0}, "band half-width in"),
    ({"method": "closed_form", "precision": True}, "band half-width in"),
])
def test_precision_rejects_bad_use(kwargs, match):
    with pytest.raises(ValueError, match=match):
        tune_num_learners(EST, XTR, YTR, XTE, grid=GRID, **kwargs)


def test_classifier_defaults_select_the_last_class():
    # the default measures include "selection"; optRF's "high" is no class of 0/1 labels, so a
    # classifier selects its last class (scikit-learn's positive class) unless told otherwise
    import warnings

    Xc, yc = make_classification(80, 6, n_informative=3, random_state=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PredstabWarning)
        res = tune_num_learners(RandomForestClassifier(max_features=2), Xc[:60], yc[:60], Xc[60:],
                                grid=(3, 6, 12), n_repeats=3, n_bootstrap=0, random_state=0)
        named = tune_num_learners(RandomForestClassifier(max_features=2), Xc[:60], yc[:60], Xc[60:],
                                  grid=(3, 6, 12), n_repeats=3, n_bootstrap=0, random_state=0, select_for=1)
    assert "selection" in res.table
    np.testing.assert_allclose(res.table["selection"], named.table["selection"], rtol=1e-12)
    with pytest.raises(ValueError, match="some but not all classes"):
        tune_num_learners(RandomForestClassifier(), Xc[:60], yc[:60], Xc[60:], grid=(3, 6, 12),
                          select_for="high")
