"""selection_stability / importance_stability: optRF's selection rule and agreement statistics."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from predstab import fleiss_kappa, icc, importance_stability, selection_stability
from validation._table import load_json


def _fleiss_two_categories(selected):
    """Fleiss' kappa written out for selected / rejected (Fleiss 1971)."""
    k = selected.shape[1]
    n_sel = selected.sum(axis=1)
    p_i = (n_sel * (n_sel - 1) + (k - n_sel) * (k - n_sel - 1)) / (k * (k - 1))
    share = n_sel.sum() / selected.size
    p_e = share**2 + (1 - share) ** 2
    return (p_i.mean() - p_e) / (1 - p_e)


def _icc1(x):
    """ICC(1) written out from the one-way ANOVA (Shrout & Fleiss 1979, case 1)."""
    n, k = x.shape
    grand = x.mean()
    msr = k * ((x.mean(axis=1) - grand) ** 2).sum() / (n - 1)
    msw = ((x - x.mean(axis=1, keepdims=True)) ** 2).sum() / (n * (k - 1))
    return (msr - msw) / (msr + (k - 1) * msw)


def test_impurity_importances_of_refitted_forests():
    """optRF's VI_stability on scikit-learn's (normalised) impurity importances of seeded refits."""
    from sklearn.ensemble import RandomForestRegressor

    rng = np.random.default_rng(3)
    X = rng.normal(size=(120, 8))
    y = 3 * X[:, 0] + 2 * X[:, 1] + X[:, 2] + rng.normal(size=120)
    forests = [RandomForestRegressor(n_estimators=15, random_state=s).fit(X, y) for s in range(4)]
    imp = np.column_stack([f.feature_importances_ for f in forests])
    np.testing.assert_allclose(imp.sum(axis=0), 1.0, rtol=1e-12)  # normalised per refit
    res = importance_stability(imp, fraction=0.25)
    assert res.value == pytest.approx(_icc1(imp), rel=1e-12)
    # the two informative variables are the top quarter (2 of 8) in every refit
    assert res.selection_size == 2 and res.selection == 1.0
    assert res.selected[:2].all() and not res.selected[2:].any()
    # un-normalised importances (another scale per refit) give another ICC: the scale matters
    raw = imp * np.array([1.0, 2.0, 0.5, 3.0])
    assert importance_stability(raw, fraction=0.25).value == pytest.approx(_icc1(raw), rel=1e-12)
    assert abs(_icc1(raw) - _icc1(imp)) > 0.05


def test_top_fraction_and_kappa():
    rng = np.random.default_rng(0)
    pred = rng.normal(size=(40, 6)) + np.linspace(0, 3, 40)[:, None]
    res = selection_stability(pred, fraction=0.15)
    assert res.selection_size == 6  # round(40 * 0.15)
    assert (res.selected.sum(axis=0) == 6).all()
    top = np.argsort(-pred[:, 0], kind="stable")[:6]
    assert set(np.flatnonzero(res.selected[:, 0])) == set(top)
    assert res.value == pytest.approx(_fleiss_two_categories(res.selected), rel=1e-12)


def test_selection_size_uses_r_rounding():
    pred = np.tile(np.arange(30.0)[:, None], (1, 3))
    # R: round(30 * 0.15) = round(4.5) = 4 (half to even); round(50 * 0.15) = round(7.5) = 8
    assert selection_stability(pred, fraction=0.15).selection_size == 4
    assert selection_stability(np.tile(np.arange(50.0)[:, None], (1, 3))).selection_size == 8
    assert selection_stability(pred, fraction=5).selection_size == 5


def test_low_zero_and_ties():
    pred = np.array([[3.0, 3.0], [-0.1, 0.2], [1.0, 1.0], [1.0, -5.0]])
    low = selection_stability(pred, fraction=1, select_for="low").selected
    assert low[:, 0].tolist() == [False, True, False, False]
    zero = selection_stability(pred, fraction=1, select_for="zero").selected
    assert zero[:, 1].tolist() == [False, True, False, False]
    # ties keep the original order (R's order() is stable): object 2 before object 3
    high = selection_stability(pred, fraction=2, select_for="high").selected
    assert high[:, 0].tolist() == [True, False, True, False]


def test_binary_classes_selection_equals_fleiss_of_predictions():
    # optRF_runs.json, snp_classification: selection_stability == pred_stability in every row,
    # because selecting one of two classes relabels the predictions one to one
    table = load_json("optrf", "expected", "optRF_runs.json")["snp_classification"]["result_table"]
    assert all(r["selection_stability"] == r["pred_stability"] for r in table)
    rng = np.random.default_rng(1)
    pred = np.where(rng.random((30, 5)) < np.linspace(0.1, 0.9, 30)[:, None], "high", "low").astype(object)
    assert selection_stability(pred, select_for="high").value == pytest.approx(fleiss_kappa(pred).value,
                                                                                rel=1e-12)


def test_importance_stability_is_icc_and_top_selection():
    rng = np.random.default_rng(2)
    imp = rng.gamma(2.0, size=(60, 1)) + rng.normal(0, 0.3, size=(60, 5))
    res = importance_stability(imp, fraction=0.1)
    # R: irr::icc(D_VI)$value (oneway, consistency, single), as optRF's opt_importance
    assert res.value == pytest.approx(icc(imp).value, rel=1e-12)
    assert res.value == pytest.approx(_icc1(imp), rel=1e-12)
    assert res.selection_size == 6
    assert res.selection == pytest.approx(_fleiss_two_categories(res.selected), rel=1e-12)


@pytest.mark.parametrize(
    ("args", "kwargs", "exc", "match"),
    [((np.ones(5),), {}, ValueError, "2-D"), ((np.ones((5, 1)),), {}, ValueError, "at least 2 replicates"),
     ((np.ones((10, 2)),), {"fraction": 0}, ValueError, "`fraction`"),
     ((np.ones((10, 2)),), {"fraction": 0.01}, ValueError, "selects 0 of 10"),
     ((np.array([["a", "b"], ["b", "a"]], dtype=object),), {"select_for": []}, ValueError, "at least one"),
     ((np.ones((10, 2)),), {"select_for": "middle"}, ValueError, "`select_for`")],
)
def test_selection_bad_input(args, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        selection_stability(*args, **kwargs)


def test_importance_bad_input():
    with pytest.raises(ValueError, match="`importances`"):
        importance_stability(np.ones((3, 1)))
    with pytest.raises(ValueError, match="missing"):
        importance_stability(np.array([[1.0, np.nan], [2.0, 3.0], [1.0, 1.0]]), fraction=1)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000))
def test_permuting_objects_or_replicates_changes_nothing(seed):
    rng = np.random.default_rng(seed)
    pred = rng.normal(size=(25, 4)) + rng.normal(size=(25, 1))
    base = selection_stability(pred, fraction=0.2).value
    by_objects = selection_stability(pred[rng.permutation(25)], fraction=0.2).value
    by_replicates = selection_stability(pred[:, rng.permutation(4)], fraction=0.2).value
    assert by_objects == pytest.approx(base, abs=1e-12) and by_replicates == pytest.approx(base, abs=1e-12)
    imp = np.abs(pred)
    ref = importance_stability(imp, fraction=0.2)
    shuffled = importance_stability(imp[rng.permutation(25)][:, rng.permutation(4)], fraction=0.2)
    assert shuffled.value == pytest.approx(ref.value, abs=1e-12)
    assert shuffled.selection == pytest.approx(ref.selection, abs=1e-12)


def test_identical_replicates_give_one():
    pred = np.tile(np.arange(20.0)[:, None], (1, 3))
    assert selection_stability(pred).value == pytest.approx(1.0)
    assert importance_stability(pred + 1, fraction=0.1).value == pytest.approx(1.0)
