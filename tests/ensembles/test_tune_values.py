"""Values of the tuning's configuration, table and result, each against a computation written here."""

import dataclasses
import math
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import make_classification, make_regression
from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor
from sklearn.model_selection import KFold, cross_val_predict

from predstab import PredstabWarning, TreePool, fleiss_kappa, phi, psi, tune_num_learners
from predstab._core._utils import check_rng, seeds_from
from predstab._core._validation import InvalidParameterError
from predstab.ensembles._recommendation_interval import LEARNER_OBJECT_COVERS
from predstab.ensembles._tune_config import _settings
from predstab.ensembles._tune_result import Recommendation, _plain_fields, runtime_model
from tests.ensembles._forests import refit_forests
from tests.ensembles._tuning import CLF, EST, LABELS, XC, XTE, XTR, YC, YTR, _config, _tune, member_pool

pytestmark = pytest.mark.filterwarnings("ignore::predstab.PredstabDataWarning")


# ------------------------------------------------------------------------- the configuration
@pytest.fixture(scope="module")
def pool():
    return member_pool(5)


def _pool_config(pool, **kwargs):
    return _config(pool, None, None, None, **({"method": "closed_form", "grid": (1, 2, 4)} | kwargs))


def test_a_given_pool_configuration_holds_its_size_and_its_rule(pool):
    config = _pool_config(pool, measures=("icc", "psi"))
    assert config.pool_size == 24 and not config.explicit_pool and config.pool is pool
    assert config.rule == "target"  # members' predictions: no fitted ensemble behind them


@pytest.mark.parametrize(("name", "value"), [("precision", 0.02), ("pool_size", 10)])
def test_a_given_pool_refuses_precision_and_pool_size_naming_the_value(pool, name, value):
    with pytest.raises(ValueError) as err:
        _pool_config(pool, **{name: value})
    assert str(err.value) == (f"`{name}` does not apply to a fitted TreePool (its size is its members'); "
                              f"got {value!r}.")


def test_a_given_pool_smaller_than_psis_fixed_baseline_is_refused(pool):
    with pytest.raises(ValueError) as err:
        _pool_config(pool, measures=("icc", "psi"), grid=(1, 2, 30))
    assert str(err.value) == ("psi's fixed baseline is a forest of max(grid) = 30 members; the pool has 24. "
                              "Use a smaller grid.")


@pytest.mark.parametrize(("name", "value", "text"), [
    ("target", 0.0, "`target` must be a float in (0, 1); got 0.0."),
    ("target", 1.0, "`target` must be a float in (0, 1); got 1.0."),
    ("round_to", "tens", "`round_to` must be one of ['hundred', 'none', 'ten', 'thousand']; got 'tens'."),
    ("method", "bagging", "`method` must be one of ('pool', 'refit', 'closed_form'); got 'bagging'."),
    ("psi_baseline", "oob", "`psi_baseline` must be one of ('fixed', 'kfold', 'per_forest'); got 'oob'."),
    ("confidence_level", 1.5, "`confidence_level` must be a float in (0, 1); got 1.5."),
])
def test_the_configuration_checks_its_options_itself(name, value, text):
    # tune_num_learners' declared constraints check these first; the configuration checks them
    # again for calls that skip the declared checks (an engine calling with skip_nested_validation)
    with pytest.raises(ValueError) as err:
        _config(EST, XTR, YTR, XTE, **{name: value})
    assert str(err.value) == text


def test_a_single_test_row_is_named_x_test_for_the_selection():
    with pytest.raises(InvalidParameterError) as err:
        _config(EST, XTR, YTR, XTE[:1], measures=("icc", "selection"))
    assert str(err.value) == ("`X_test` must have at least 2 rows for the 'selection' measure (it selects "
                              "some but not all objects); got 1. Pass more rows or leave 'selection' out "
                              "of `measures`.")
    with pytest.raises(InvalidParameterError, match=r"^`X` must have at least 2 rows .* got 1\."):
        _config(EST, XTR[:1], YTR[:1], None, measures=("icc", "selection"))


# ------------------------------------------------------------------------- the result
def test_runtime_model_reads_missing_seconds_as_unknown():
    # None (a time not measured) is NaN as a float: no run-time model
    intercept, slope = runtime_model([2, 4, 8], [None, None, None])
    assert math.isnan(intercept) and math.isnan(slope)
    assert runtime_model([2, 4, 8], [1, 2, 4]) == pytest.approx((0.0, 0.5), abs=1e-12)


def test_explain_without_an_unrounded_value_says_nan():
    rec = Recommendation(measure="icc", value=500, unrounded=None, rule="optRF", rec_thresh=1e-6,
                         round_to="thousand", minimum=500, n_for_target=None, target=0.95, grid_max=8,
                         beyond_grid=False, expected_stability=float("nan"))
    assert rec.explain() == ("icc: 500 learners by optRF 1.2.1's rule (fitted gain per added learner below "
                             "1e-06 from nan learners; rounded to the nearest thousand, at least 500)")


@dataclasses.dataclass
class _Pair:
    first: object
    second: object


def test_plain_fields_turns_dataclasses_into_dicts_recursively():
    assert _plain_fields({"x": _Pair(1, _Pair(2, {"y": _Pair(3, 4)}))}) == {
        "x": {"first": 1, "second": {"first": 2, "second": {"y": {"first": 3, "second": 4}}}}}
    assert _plain_fields(_Pair) is _Pair  # a class stays a class


@pytest.fixture(scope="module")
def interval_result():
    """A pool result of the tiny data with a bootstrap interval of its recommendation."""
    res = _tune(method="pool", pool_size=24, measures=("icc",), n_resamples=10)
    assert res.recommendation is not None and np.isfinite(res.confidence_interval.low)
    return res


def test_a_result_without_timings_in_its_table_equals_its_copy(interval_result):
    untimed = dataclasses.replace(interval_result, table=interval_result.table.drop(columns="seconds"))
    assert untimed == dataclasses.replace(untimed)
    assert untimed == interval_result  # the seconds are left out of == either way


def test_printed_degenerate_points_and_distrusted_interval(interval_result):
    table = interval_result.table.copy()
    table["degenerate"] = ["icc", "", ""]
    message = "The 2PL fit of icc is poor."
    res = dataclasses.replace(interval_result, table=table, message=message)
    lines = str(res).splitlines()
    header = next(i for i, line in enumerate(lines) if line.split() == ["n_learners", "icc", "degenerate"])
    rows = [line.split() for line in lines[header + 1:header + 4]]
    assert [(r[0], r[-1]) for r in rows] == [("2", "icc"), ("4", "-"), ("8", "-")]
    at = next(i for i, line in enumerate(lines) if line.startswith("  95% bootstrap interval:"))
    assert lines[at + 1:at + 3] == [
        "  The interval assumes a 2PL that fits the curve (R^2 >= 0.9) and a curve that flattens within the "
        "grid; as said below, that fails here: do not trust it.",
        f"  {message}"]


@pytest.fixture(scope="module")
def bare_pool():
    """24 members' predictions of 30 objects, nothing else (no observations, no out-of-bag rows)."""
    rng = np.random.default_rng(6)
    return TreePool.from_predictions(rng.normal(size=(30, 1)) + 0.5 * rng.normal(size=(30, 24)))


@pytest.fixture(scope="module")
def class_pool():
    """40 members' labels ("a" / "b") of 30 objects: a pool of hard votes."""
    rng = np.random.default_rng(7)
    p = rng.uniform(0.1, 0.9, size=(30, 1))
    return TreePool.from_predictions(np.where(rng.random((30, 40)) < p, "a", "b"))


def test_a_given_pool_without_observations_or_oob_rows_names_what_is_missing(bare_pool):
    config = _pool_config(bare_pool, grid=None)
    # the default measures are those the pool can give; the default grid is member_grid(24):
    # np.rint(np.geomspace(1, 6, 6)) = 1, 1, 2, 3, 4, 6
    assert config.measures == ("icc",) and config.grid == (1, 2, 3, 4, 6)
    for measure, what in (("phi", "`y` (the training observations)"), ("psi", "`oob` (out-of-bag rows)")):
        with pytest.raises(ValueError) as err:
            _pool_config(bare_pool, measures=("icc", measure))
        assert str(err.value) == (f"`measures`: {measure!r} needs {what}; this pool has none (pass it to "
                                  "TreePool.from_predictions).")
    with pytest.raises(ValueError) as err:
        _pool_config(bare_pool, measures=("icc", "importance"), method="pool")
    assert str(err.value) == ("`measures`: 'importance' needs the features; a TreePool of predictions has "
                              "none.")


@pytest.mark.parametrize(("X", "y", "X_test", "name"), [
    (XTR, None, None, "X"), (None, YTR, None, "y"), (None, None, XTE, "X_test")])
def test_a_given_pool_refuses_data(bare_pool, X, y, X_test, name):
    with pytest.raises(ValueError) as err:
        _config(bare_pool, X, y, X_test, method="closed_form", grid=(1, 2, 4))
    assert str(err.value) == (f"`{name}` must be omitted when `estimator` is a fitted TreePool (its members' "
                              "predictions are the data).")


def test_a_given_pool_names_precision_before_pool_size(pool):
    with pytest.raises(ValueError, match=r"^`precision` does not apply .* got 0\.02\.$"):
        _pool_config(pool, precision=0.02, pool_size=10)


def test_a_given_pool_configuration_keeps_the_options(pool):
    config = _pool_config(pool, measures=("icc", "selection"), method="pool", interval="learners",
                          psi_baseline="fixed")
    assert not config.is_classifier and config.psi_baseline == "fixed" and config.interval == "learners"
    # optRF's default fraction 0.15 (round(30 x 0.15) = 4 objects) of the highest predictions
    assert dict(config.measure_options) == {"icc": {}, "selection": {"fraction": 0.15, "select_for": "high"}}


def test_a_given_class_pool_is_a_classifier_with_its_votes(class_pool):
    config = _pool_config(class_pool, grid=(1, 2, 4))
    assert config.is_classifier is True and config.measures == ("fleiss",)
    assert config.scale == "categorical" and config.voting == "hard"
    with pytest.raises(ValueError) as err:
        _pool_config(class_pool, grid=(1, 2, 4), voting="soft")
    assert str(err.value) == "`voting` is the pool's ('hard'); got 'soft'. Build the pool with voting='soft'."


@pytest.mark.parametrize("n", [2.5, -1])
def test_the_configuration_checks_n_resamples_itself(n):
    with pytest.raises(ValueError) as err:
        _config(EST, XTR, YTR, XTE, n_resamples=n)
    assert str(err.value) == f"`n_resamples` must be a non-negative integer; got {n!r}."


def test_the_configuration_checks_progress():
    with pytest.raises(TypeError, match=r"^`progress` must be True, a callable progress\(done, total\) or "
                                        r"None; got str\.$"):
        _config(EST, XTR, YTR, XTE, progress="bar")


def test_ordinal_categories_must_be_one_list():
    categories = [[0, 1], [1, 0]]
    with pytest.raises(ValueError) as err:
        _config(CLF, XC[:30], YC[:30], XC[30:], scale="ordinal", categories=categories, method="pool")
    assert str(err.value) == ("`categories` must list the ordered categories for scale='ordinal'; got "
                              "[[0, 1], [1, 0]].")


def test_two_test_rows_select_one_object():
    # round(2 x 0.15) = 0: the default fraction is then one object, which two rows allow
    config = _config(EST, XTR, YTR, XTE[:2], measures=("icc", "selection"))
    assert config.select_fraction == 1 and config.measure_options["selection"]["fraction"] == 1


def test_settings_list_the_estimators_other_options_but_not_those_set_per_refit():
    est = RandomForestRegressor(max_features=2, min_samples_split=4, n_estimators=7, random_state=3, n_jobs=2)
    settings = _settings(_config(est, XTR, YTR, XTE))
    assert settings["estimator_params"] == {
        "max_features": 2, "min_samples_leaf": 1, "max_samples": None, "bootstrap": True, "max_depth": None,
        "criterion": "squared_error", "min_samples_split": 4}


@pytest.mark.parametrize(("X", "y"), [(XTR, None), (None, YTR)])
def test_an_estimator_needs_x_and_y(X, y):
    with pytest.raises(ValueError) as err:
        _config(EST, X, y, XTE)
    assert str(err.value) == ("`X` and `y` are required to tune RandomForestRegressor (only a fitted "
                              "TreePool brings its own predictions).")


# ------------------------------------------------------------------------- the steps reported
def _steps(**kwargs):
    """The result and ``{step: [(done, total), ...]}`` reported to a progress(done, total, step=)."""
    seen = {}

    def progress(done, total, step):
        seen.setdefault(step, []).append((done, total))

    return _tune(progress=progress, **kwargs), seen


def _counted(total):
    return [(k, total) for k in range(1, total + 1)]


def test_refit_reports_its_forests_bands_and_interval():
    res, seen = _steps(method="refit", n_resamples=5, measures=("icc", "psi"))
    assert list(seen) == ["fitting forests", "bootstrap bands", "recommendation interval"]
    # 3 grid values x 3 forests, then 5 resamples twice
    assert seen["fitting forests"] == _counted(9)
    assert seen["bootstrap bands"] == seen["recommendation interval"] == _counted(5)
    assert res.recommendation is not None


def test_closed_form_reports_its_bands_and_the_learner_object_resamples():
    res, seen = _steps(method="closed_form", n_resamples=5, measures=("icc",), pool_size=40)
    assert list(seen) == ["fitting the pool", "predicting", "closed form and bands (icc)",
                          "bands (objects and learners)", "recommendation interval"]
    assert seen["fitting the pool"][-1] == seen["predicting"][-1] == (40, 40)
    assert seen["bands (objects and learners)"] == seen["recommendation interval"] == _counted(5)


def test_closed_form_without_a_closed_primary_resamples_the_objects():
    res, seen = _steps(method="closed_form", n_resamples=5, measures=("selection", "icc"), pool_size=40)
    assert list(seen)[2:4] == ["closed form and bands (icc)", "bootstrap bands"]
    assert seen["bootstrap bands"] == _counted(5)
    assert list(res.table.columns[:7]) == ["n_learners", "selection", "selection_low", "selection_high",
                                           "icc", "icc_low", "icc_high"]


def test_precision_reports_the_learners_it_adds():
    res, seen = _steps(method="closed_form", n_resamples=5, measures=("icc",), precision=0.05, pool_size=24)
    assert list(seen) == ["fitting the pool", "predicting", "precision bands (icc)",
                          "closed form and bands (icc)", "bands (objects and learners)",
                          "recommendation interval"]
    # the pool of 24 fitted, then enlarged once: its added learners counted on their own
    fitted = [t for t in seen["fitting the pool"] if t[1] == 24]
    added = seen["fitting the pool"][len(fitted):]
    assert fitted[-1] == (24, 24) and added[-1][0] == added[-1][1] > 0
    assert {total for _, total in added} == {added[-1][1]} and res.pool_size == 24 + added[-1][1]
    assert len(seen["precision bands (icc)"]) == 2  # before and after the enlargement


# ------------------------------------------------------------------------- refits
def test_soft_voting_refits_are_the_forests_own_predict():
    # leaves of at least 6 rows hold class proportions, so soft and hard votes differ here
    est = RandomForestClassifier(max_features=2, min_samples_leaf=6)
    grid = (2, 4, 6)
    res = _tune(estimator=est, X=XC[:30], y=LABELS[:30], X_test=XC[30:], method="refit", grid=grid,
                measures=("fleiss",), voting="soft")
    forests, _ = refit_forests(est, grid, 3, XC[:30], LABELS[:30])
    for gi, n in enumerate(grid):
        preds = np.column_stack([f.predict(XC[30:]) for f in forests[n]])
        assert res.table.loc[gi, "fleiss"] == pytest.approx(fleiss_kappa(preds).value, abs=1e-12)
    # e.g. at 2 trees the soft votes agree in every forest, the majority votes do not
    assert res.table.loc[0, "fleiss"] == 1.0


class _Threads(RandomForestRegressor):
    """A forest that records the n_jobs of every fit and predict."""

    calls = []

    def fit(self, X, y, sample_weight=None):
        _Threads.calls.append(("fit", self.n_jobs))
        return super().fit(X, y, sample_weight)

    def predict(self, X):
        _Threads.calls.append(("predict", self.n_jobs))
        return super().predict(X)


def test_refits_fit_with_n_jobs_and_predict_in_one_thread():
    _Threads.calls.clear()
    _tune(estimator=_Threads(max_features=2, min_samples_leaf=3), method="refit", measures=("icc",), n_jobs=2)
    # 3 grid values x 3 forests; the threaded predict would sum the trees in a run-dependent order
    assert _Threads.calls == [("fit", 2), ("predict", 1)] * 9


def test_refit_kfold_baseline_takes_the_first_seed():
    res = _tune(method="refit", measures=("psi",), psi_baseline="kfold")
    rng = check_rng(0)
    seed = int(seeds_from(rng, 1)[0])  # the K-fold forest's; the refits' seeds follow
    space = cross_val_predict(clone(EST).set_params(n_estimators=8, random_state=seed), XTR, YTR,
                              cv=KFold(5, shuffle=True, random_state=seed))
    seeds = seeds_from(rng, 9).reshape(3, 3)
    for gi, n in enumerate((2, 4, 8)):
        preds = np.column_stack([clone(EST).set_params(n_estimators=n, random_state=int(s)).fit(XTR, YTR)
                                 .predict(XTE) for s in seeds[gi]])
        assert res.table.loc[gi, "psi"] == pytest.approx(psi(preds, space).value, rel=1e-12)


def test_closed_form_run_time_is_the_pools_per_learner_time():
    res = _tune(method="closed_form", measures=("icc",), pool_size=40)
    seconds = res.table["seconds"].to_numpy(float)
    # the pool's fitting time shared out: seconds = pool time x n / 40 at every grid value
    assert np.all(seconds > 0)
    np.testing.assert_allclose(seconds / np.array([2, 4, 8]), seconds[0] / 2, rtol=1e-12)
    assert res.runtime == pytest.approx((0.0, seconds[0] / 2), abs=1e-12)


# ------------------------------------------------------------------------- explanations and run time
def _rec(**kwargs):
    fields = dict(measure="icc", value=3000, unrounded=2600.0, rule="optRF", rec_thresh=1e-6,
                  round_to="thousand", minimum=500, n_for_target=None, target=0.95, grid_max=8,
                  beyond_grid=False, expected_stability=float("nan"))
    return Recommendation(**(fields | kwargs))


def test_explain_of_a_threshold_lowered_twice_names_the_first_and_the_last_step():
    rec = _rec(steps=((1e-6, 300.0, 0.0), (1e-7, 800.0, 1000.0), (1e-8, 2600.0, 3000.0)), p1=1500.0)
    assert rec.explain() == (
        "icc: 3000 learners by optRF 1.2.1's rule (fitted gain per added learner below 1e-06 from 300 "
        "learners, which rounded to the nearest thousand is 0, below the inflection point p1 = 1.5e+03; so, "
        "as optRF does, the threshold is lowered tenfold to 1e-08: below it from 2600 learners; rounded to "
        "the nearest thousand, at least 500)")


def test_explain_without_a_recommendation_or_note():
    assert _rec(value=None, rule="none").explain() == "icc: no recommendation (no rule applies)"
    assert _rec(value=None, rule="none", note="the fit failed").explain() == ("icc: no recommendation (the "
                                                                             "fit failed)")


def test_printed_run_time_shows_an_intercept_from_1e_9(interval_result):
    value = interval_result.recommendation
    for intercept, shown in ((1e-9, "1e-09"), (0.99e-9, "0"), (-2e-9, "-2e-09")):
        res = dataclasses.replace(interval_result, runtime=(intercept, 0.5))
        assert str(res).splitlines()[-1] == (f" Run time: seconds per forest ~ {shown} + 0.5 * learners; "
                                             f"{value} learners: about {intercept + 0.5 * value:.3g} s per "
                                             "forest")


def test_precision_enlarges_the_pool_at_most_three_times(monkeypatch):
    import predstab.ensembles._tune_strategies as strategies

    sizes = []

    def never_reached(pool, config, baselines, progress):
        sizes.append(pool.test_predictions_.shape[1])
        return 1.0  # the widest band's half-width, whatever the pool

    monkeypatch.setattr(strategies, "_widest_band", never_reached)
    with pytest.warns(PredstabWarning) as caught:
        res = tune_num_learners(EST, XTR, YTR, XTE, grid=(2, 4, 8), n_repeats=3, method="closed_form",
                                measures=("icc",), precision=0.7, pool_size=24, n_resamples=0, random_state=0)
    # each step asks for ceil(1.1 x pool x (1 / 0.7)^2) learners: 53.9, 121.2, 273.9
    expected = [24]
    for _ in range(3):
        expected.append(math.ceil(1.1 * expected[-1] / 0.49))
    assert sizes == expected == [24, 54, 122, 274] and res.pool_size == 274
    assert [str(w.message) for w in caught if w.category is PredstabWarning] == [
        "`precision`=0.7 not reached: the 95% bands of a pool of 274 learners reach +-1.000 (at most 100000 "
        "learners, three enlargements)."]


# ------------------------------------------------------------------------- the result's summary
@pytest.fixture(scope="module")
def flat():
    """Data whose icc curve is above 0.99 at 80 trees (a regression with little noise)."""
    X, y = make_regression(60, 4, noise=1, random_state=2)
    return RandomForestRegressor(max_features=3), X[:40], y[:40], X[40:]


def _flat_tune(flat, **kwargs):
    est, X, y, X_test = flat
    args = {"grid": (5, 20, 80), "n_repeats": 3, "method": "closed_form", "measures": ("icc",),
            "pool_size": 160, "n_resamples": 20, "random_state": 0} | kwargs
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PredstabWarning)
        return tune_num_learners(est, X, y, X_test, **args)


def test_a_curve_flat_at_the_grid_end_is_said_to_defeat_the_learners_objects_interval(flat):
    res = _flat_tune(flat)
    end = res.table["icc"].iloc[-1]
    assert end >= 0.99 and np.isfinite(res.confidence_interval.low)
    assert res.interval_covers == LEARNER_OBJECT_COVERS + (
        f"; here the curve is already {end:.3f} at 80 learners: its recommendation rests on the few objects "
        "whose votes are near a tie, which these test objects may lack, so the interval is likely too low -- "
        "not a 95 % interval")
    # measured for the closed form's learners+objects interval and optRF's rule only
    assert _flat_tune(flat, interval="learners").interval_covers == (
        "the pool's learners resampled: only the error from the pool's finite number of learners, not the "
        "sampling of the test objects (interval=\"learners\")")
    assert _flat_tune(flat, rule="target").interval_covers == LEARNER_OBJECT_COVERS
    pool = _flat_tune(flat, method="pool")
    assert pool.table["icc"].iloc[-1] >= 0.99 and np.isfinite(pool.confidence_interval.low)
    assert pool.interval_covers == ("test objects resampled, the forests held fixed: the sampling of the "
                                    "test objects, not of new forests")


def test_without_psi_the_result_names_no_baseline():
    assert _tune(method="refit", measures=("icc",)).psi_baseline == ""
    assert _tune(method="refit", measures=("icc", "psi")).psi_baseline == (
        "out-of-bag predictions of one forest of 8 learners (the first refit of the largest grid value), the "
        "same for every n")


def test_a_poor_primary_fit_gives_no_recommendation():
    # the refits' selection of the tiny data: 0.375, 0.583, 0.583; the 2PL fits it with R^2 0.75
    res = _tune(method="refit", measures=("selection", "icc"))
    fit, rec = res.fits["selection"], res.recommendations["selection"]
    assert fit.poor_fit and fit.r_squared < 0.9 and rec.rule == "optRF" and rec.value == 6000
    assert res.recommendation is None and not res.reliable


def test_ordinal_largest_phi_keeps_the_categories_order():
    X, y = make_classification(50, 4, n_informative=3, n_redundant=0, n_classes=3, random_state=0)
    labels = np.array(["low", "mid", "high"], dtype=object)[y]
    order = ["low", "mid", "high"]  # not the sorted order
    est = RandomForestClassifier(max_features=2)
    res = _tune(estimator=est, X=X[:35], y=labels[:35], X_test=X[35:], method="pool", pool_size=24,
                measures=("fleiss", "phi"), scale="ordinal", categories=order)
    forests = TreePool(est, n_learners=24, voting="hard", random_state=0).fit(X[:35], labels[:35], X[35:]) \
        .forests(8, n_forests=3)
    expected = phi(forests, labels[:35], scale="ordinal", categories=order)
    assert res.largest_phi.value == pytest.approx(expected.value, abs=1e-12) == res.table["phi"].iloc[-1]
    np.testing.assert_allclose(res.largest_phi.per_object, expected.per_object, atol=1e-12)
    # in the sorted order ("high", "low", "mid") phi is another number
    assert phi(forests, labels[:35], scale="ordinal", categories=sorted(order)).value != pytest.approx(
        expected.value, abs=1e-3)


def test_phi_and_psi_resamples_come_from_one_call_per_grid_value(monkeypatch):
    # phi and psi hold D_e fixed: each resample is 1 - mean(D_o,i over its rows) / D_e from the
    # per-object view of one call, never a call per resample (icc is called per resample)
    import predstab.ensembles._tune_table as table_module

    direct = []
    measured = table_module._resampled

    def counted(name, *args):
        direct.append(name)
        return measured(name, *args)

    monkeypatch.setattr(table_module, "_resampled", counted)
    res = _tune(method="pool", pool_size=24, measures=("psi", "phi", "icc"), n_resamples=5)
    assert direct == ["icc"] * 15  # 5 resamples x 3 grid values
    assert np.all(np.isfinite(res.table[["psi_low", "psi_high", "phi_low", "phi_high"]].to_numpy()))
    # the same with responses in thousands: D_e below 1 (any positive D_e will do)
    direct.clear()
    res = _tune(method="pool", pool_size=24, measures=("psi", "phi", "icc"), n_resamples=5, y=YTR / 1000)
    assert 0 < res.largest_phi.expected < 1 and 0 < res.largest_psi.expected < 1
    assert direct == ["icc"] * 15


# ------------------------------------------------------------------------- more of the configuration's words
def test_an_unfitted_pool_and_a_refit_of_a_pool_are_refused():
    with pytest.raises(ValueError) as err:
        _config(TreePool(EST, n_learners=4), None, None, None, method="closed_form")
    assert str(err.value) == ("`estimator` is a TreePool that is not fitted; fit it or build it with "
                              "TreePool.from_predictions / from_members / from_fit_predict.")


def test_a_given_pool_refuses_refits_and_kfold(pool):
    with pytest.raises(ValueError) as err:
        _pool_config(pool, method="refit")
    assert str(err.value) == ("`method`='refit' refits an estimator; a fitted TreePool takes "
                              "method='closed_form' or 'pool'.")
    with pytest.raises(ValueError) as err:
        _pool_config(pool, measures=("icc", "psi"), psi_baseline="kfold")
    assert str(err.value) == ("`psi_baseline`='kfold' refits an estimator; a TreePool takes 'fixed' (or "
                              "'per_forest' with method='pool').")


def test_an_estimator_without_n_estimators_is_refused():
    from sklearn.linear_model import LinearRegression

    with pytest.raises(TypeError) as err:
        _config(LinearRegression(), XTR, YTR, XTE)
    assert str(err.value) == (
        "`estimator` must be a scikit-learn ensemble with an `n_estimators` parameter (RandomForest*, "
        "ExtraTrees*, Bagging*); got LinearRegression. A fitted TreePool (e.g. TreePool.from_predictions of "
        "any ensemble's members) is taken too.")


def test_a_given_pools_settings_name_its_ensemble(bare_pool):
    fitted = TreePool(EST, n_learners=12, random_state=0).fit(XTR, YTR, XTE)
    assert _settings(_pool_config(fitted))["estimator"] == "TreePool of 12 learners (RandomForestRegressor)"
    assert _settings(_pool_config(bare_pool))["estimator"] == ("TreePool of 24 members (built from its "
                                                               "members' predictions)")


def test_printed_target_rule_with_its_unrounded_n_and_the_notes(bare_pool, interval_result):
    res = tune_num_learners(bare_pool, method="closed_form", grid=(1, 2, 3, 4, 6), n_resamples=0)
    rec = res.recommendations["icc"]
    assert rec.rule == "target" and rec.value == math.ceil(rec.unrounded) == 4
    lines = str(res).splitlines()
    # the target rule's recommendation is its n for target: one column, not two (issue 35)
    row = next(line.split() for line in lines if line.split()[:1] == ["icc"] and len(line.split()) == 7)
    assert row[4:7] == ["4", "target", f"{rec.unrounded:.3g}"] and row[6] == "3.58"
    assert not any("n for 0.95" in line for line in lines)
    assert (" The target rule: the smallest n whose fitted stability reaches target = 0.95 (each member "
            "costs a training run; optRF's rule, made for trees, is rule='optRF').") in lines
    noted = dataclasses.replace(interval_result, notes=("first note", "second note"))
    assert str(noted).splitlines()[-4:] == ["", " Notes:", "  - first note", "  - second note"]


def test_psi_bands_against_a_constant_baseline_are_computed_per_resample():
    # a constant out-of-bag baseline has D_e = 0: no per-object shortcut; members agreeing on every
    # object give psi = 0 / 0 = 1 by the convention (degenerate) in every resample too
    rng = np.random.default_rng(0)
    test = np.repeat(rng.normal(size=(30, 1)), 24, axis=1)
    oob = rng.random((40, 24)) < 0.4
    agreeing = TreePool.from_predictions(test, oob=oob, oob_predictions=np.zeros((40, 24)),
                                         y=rng.normal(size=40))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = tune_num_learners(agreeing, method="pool", measures=("icc", "psi"), grid=(1, 2, 4),
                                n_resamples=5, random_state=0)
    assert res.table[["psi", "psi_low", "psi_high"]].to_numpy().tolist() == [[1.0, 1.0, 1.0]] * 3
    assert res.table["degenerate"].tolist() == ["psi"] * 3


def test_a_pool_of_exactly_max_grid_learners_is_psis_fixed_baseline():
    res = _tune(method="closed_form", measures=("icc", "psi"), pool_size=8)
    assert res.psi_baseline == ("out-of-bag predictions of one forest of 8 learners (the first 8 of the "
                                "pool), the same for every n")


def test_a_per_forest_baseline_without_psi_reads_no_out_of_bag_rows():
    res = _tune(method="pool", pool_size=24, measures=("icc",), psi_baseline="per_forest")
    expected = _tune(method="pool", pool_size=24, measures=("icc",))
    assert res.table["icc"].tolist() == expected.table["icc"].tolist() and res.psi_baseline == ""


def test_precision_adds_at_least_two_learners(monkeypatch):
    import predstab.ensembles._tune_strategies as strategies

    widths = iter([1.0, 0.5])
    monkeypatch.setattr(strategies, "_widest_band", lambda pool, config, baselines, progress: next(widths))
    # ceil(1.1 x 4 x (1 / 0.99)^2) = 5 asks for one learner more; the pool grows by 2
    res = _tune(method="closed_form", measures=("icc",), precision=0.99, pool_size=4, grid=(1, 2, 4))
    assert math.ceil(1.1 * 4 / 0.99**2) == 5 and res.pool_size == 6


def test_printed_target_rule_interval_keeps_three_digits_of_its_unrounded_values(bare_pool):
    # the members' recommendations are small numbers: here "3 to 6 learners ... (unrounded 3.58:
    # 2.3 to 5.96, width 3.66", 3 digits as the table prints them; rounded to whole members they
    # read "unrounded 4: 2 to 6", an unrounded interval below the rounded one
    res = tune_num_learners(bare_pool, method="closed_form", grid=(1, 2, 3, 4, 6), n_resamples=20,
                            random_state=0)
    rec = res.recommendations["icc"]
    low, high = res.confidence_interval
    u_low, u_high = res.unrounded_interval
    assert rec.rule == "target" and u_low != round(u_low)
    line = next(line for line in str(res).splitlines() if "bootstrap interval:" in line)
    assert line.startswith(f"  95% bootstrap interval: {low:g} to {high:g} members, width {high - low:g} "
                           f"(unrounded {rec.unrounded:.3g}: {u_low:.3g} to {u_high:.3g}, "
                           f"width {u_high - u_low:.3g}; ")
