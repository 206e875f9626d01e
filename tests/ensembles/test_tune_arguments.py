"""tune_num_learners' arguments: every bad value is named in its message (before anything is
fitted), and the validation fills in the defaults that depend on the data (the measures, the
pool's size, the voting, the selection's class and fractions) into the frozen configuration.
"""

import re

import numpy as np
import pytest
from sklearn.ensemble import RandomForestRegressor
from sklearn.linear_model import LinearRegression

from predstab import (
    icc,
    importance_stability,
    selection_stability,
    tune_num_learners,
)
from tests.ensembles._tuning import (
    CLF,
    EST,
    GRID,
    GRID32,
    LABELS,
    XC,
    XTE,
    XTE20,
    XTR,
    XTR50,
    YC,
    YTR,
    YTR50,
    _config,
    _defaults,
    _forest_importance,
    _refits,
    _tune,
)

# the independent computations measure few forests (PredstabDataWarning: fewer than 5)
pytestmark = pytest.mark.filterwarnings("ignore::predstab.PredstabDataWarning")


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
    (_CLF | {"scale": "ordinal"},
     "`categories` must list the ordered categories for scale='ordinal'; got None."),
    (_CLF | {"scale": "ordinal", "categories": [[0, 1]]},
     "`categories` must list the ordered categories for scale='ordinal'; got [[0, 1]]."),
    (_CLF | {"scale": "ordinal", "categories": [0]},
     "`categories` must list the ordered categories for scale='ordinal'; got [0]."),
    (_CLF | {"scale": "ordinal", "categories": [1, 2]},
     "`categories` must contain every value of `y`; missing ['0']."),
    (_CLF | {"y": YC[:30] * 7 + np.arange(30) % 6, "scale": "ordinal", "categories": ["a", "b"]},
     "`categories` must contain every value of `y`; missing ['0', '1', '10', '11', '12']."),
    (_CLF | {"scale": "ordinal", "categories": [0, 1], "method": "closed_form",
             "measures": ("fleiss", "phi")},
     "`scale`='ordinal' has no closed form for phi / psi; use method='pool'."),
    (_CLF | {"scale": "ordinal", "categories": [0, 1], "method": "closed_form",
             "measures": ("fleiss", "psi")},
     "`scale`='ordinal' has no closed form for phi / psi; use method='pool'."),
    (_CLF | {"selection": {"select_for": [0, 1]}, "measures": ("fleiss", "selection")},
     f"{_SELECT_CLASSES}; got [0, 1]."),
    (_CLF | {"selection": {"select_for": 2}, "measures": ("fleiss", "selection")},
     f"{_SELECT_CLASSES}; got 2."),
    (_CLF | {"selection": {"select_for": []}, "measures": ("fleiss", "selection")},
     f"{_SELECT_CLASSES}; got []."),
    (_CLF | {"selection": {"select_for": [0, 2]}, "measures": ("fleiss", "selection")},
     f"{_SELECT_CLASSES}; got [0, 2]."),
])
def test_bad_arguments_are_named_in_the_message(kwargs, message):
    args = {"grid": GRID, "n_resamples": 0, "random_state": 0} | kwargs
    estimator, X_, y_, X_test = (args.pop(k, d) for k, d in (("estimator", EST), ("X", XTR), ("y", YTR),
                                                             ("X_test", XTE)))
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        tune_num_learners(estimator, X_, y_, X_test, **args)


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
     ({"scale": "ordinal"}, ValueError, "`scale`"), ({"categories": ["a", "b"]}, ValueError, "`categories`"),
     ({"confidence_level": 95}, ValueError, "`confidence_level`")],
)
def test_bad_arguments(kwargs, exc, match):
    args = {"grid": GRID32, "n_resamples": 0} | kwargs
    with pytest.raises(exc, match=re.escape(match)):
        tune_num_learners(EST, XTR50, YTR50, XTE20, **args)


def test_not_an_ensemble_is_a_type_error_naming_the_estimator():
    from sklearn.linear_model import LinearRegression

    with pytest.raises(TypeError, match=re.escape(
            "`estimator` must be a scikit-learn ensemble with an `n_estimators` parameter (RandomForest*, "
            "ExtraTrees*, Bagging*); got LinearRegression.")):
        tune_num_learners(LinearRegression(), XTR, YTR, XTE, grid=GRID)


def test_not_an_ensemble():
    with pytest.raises(TypeError, match="`estimator`"):
        tune_num_learners(LinearRegression(), XTR50, YTR50, XTE20)


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"method": "pool", "precision": 0.02}, "applies to method='closed_form'"),
    ({"method": "closed_form", "precision": 0}, "`precision` must be a float in the open interval"),
    ({"method": "closed_form", "precision": True}, "`precision`"),
])
def test_precision_rejects_bad_use(kwargs, match):
    with pytest.raises(ValueError, match=match):
        tune_num_learners(EST, XTR50, YTR50, XTE20, grid=GRID32, **kwargs)


def test_interval_option_is_validated():
    with pytest.raises(ValueError, match="`interval` must be"):
        tune_num_learners(EST, XTR50, YTR50, XTE20, grid=GRID32, method="closed_form", interval="objects")


def test_defaults_filled_in_by_the_validation():
    # the pool: n_repeats x max(grid) (3 x 4 here), at least 1000 for closed_form (issue 22 item 19)
    assert _defaults(EST, YTR) == (("icc", "phi", "psi", "selection"), 12, "soft", "high", 0.15, False, False)
    assert _defaults(EST, YTR, method="closed_form") == (("icc", "phi", "psi"), 1000, "soft", "high", 0.15,
                                                          False, False)
    # the closed form needs no disjoint forests: 1000 to start with, whatever the grid (issue 37, item 5)
    assert _defaults(EST, YTR, method="closed_form", grid=(2, 3, 700))[1] == 1000
    assert _defaults(EST, YTR, pool_size=50)[1:2] + _defaults(EST, YTR, pool_size=50)[5:6] == (50, True)
    # (issue 35: no "selection" for a classifier, whose two-class selection is the Fleiss column again)
    assert _defaults(CLF, LABELS[:30], XC[30:]) == (("fleiss", "phi", "psi"), 12, "hard", "yes",
                                                     0.15, False, True)
    assert _defaults(CLF, LABELS[:30], XC[30:], method="closed_form") == (
        ("fleiss", "phi", "psi"), 1000, "hard", "yes", 0.15, False, True)
    # a classifier's closed form: at least 10 x max(grid) (near ties its bands cover 0.920 at P / 4, issue 21)
    assert _defaults(CLF, LABELS[:30], XC[30:], method="closed_form", grid=(2, 3, 700))[1] == 7000
    assert _defaults(CLF, LABELS[:30], XC[30:], method="refit", grid=(2, 3, 700))[1] == 2100
    assert _defaults(CLF, LABELS[:30], XC[30:], voting="soft")[2] == "soft"
    assert _defaults(EST, YTR, measures="icc")[0] == ("icc",)
    assert _defaults(EST, YTR, X_test=None)[4] == 0.15  # 15% of the 30 training rows
    assert _defaults(EST, YTR, X_test=XTE[:3])[4] == 1
    spec = _config(CLF, XC[:30], YC[:30], XC[30:], measures=("fleiss", "phi"), scale="ordinal",
                   categories=(0, 1))
    assert spec.categories == [0, 1] and spec.scale == "ordinal"
    assert spec.y.tolist() == YC[:30].tolist()


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


def test_options_of_measures_not_asked_for_are_not_checked_against_the_data():
    # 1% of 10 objects selects none: an error only when selection stability is measured
    res = _tune(method="refit", grid=(2, 3, 4), n_repeats=2, measures=("icc",), selection={"fraction": 0.01},
                importance={"fraction": 0.01})
    assert "select_fraction" not in res.settings and "importance_fraction" not in res.settings
    forests, _ = _refits(grid=(2, 3, 4), n_repeats=2)
    preds = np.column_stack([f.predict(XTE) for f in forests[4]])
    assert res.table.loc[2, "icc"] == pytest.approx(icc(preds).value, rel=1e-12)


# ------------------------------------------------------------------------- nested validation skipped
def test_declared_functions_skip_their_checks_inside_an_engine_that_prefers_it():
    from numbers import Real

    from predstab._core._validation import Interval, validate_params

    @validate_params({"share": [Interval(Real, 0, 1)]})
    def inner(*, share):
        return share

    @validate_params({"share": [Interval(Real, 0, 1)]}, prefer_skip_nested_validation=True)
    def engine(*, share):
        return inner(share=share * 2)  # a value the engine made: not checked again

    @validate_params({"share": [Interval(Real, 0, 1)]})
    def plain(*, share):
        return inner(share=share * 2)

    assert engine(share=0.75) == 1.5
    with pytest.raises(ValueError, match=r"`share` must be"):
        plain(share=0.75)  # without the preference the inner call is checked
    with pytest.raises(ValueError, match=r"`share` must be"):
        engine(share=1.5)  # the engine's own arguments are checked
    with pytest.raises(ValueError, match=r"`share` must be"):
        inner(share=1.5)  # and a user's call after the engine returned


def test_tune_checks_its_arguments_once_not_at_every_grid_point(monkeypatch):
    # the measures, fits and closed forms it calls (icc, phi, selection_stability, fit_2pl,
    # TwoPL.recommend, TreePool.closed_form) are not re-validated at every grid point and resample;
    # the numbers are those of the body run with every nested check (tune_num_learners.__wrapped__)
    from predstab._core import _validation

    real, calls = _validation.check_param, []

    def counting(name, value, constraints):
        calls.append(name)
        return real(name, value, constraints)

    monkeypatch.setattr(_validation, "check_param", counting)
    kwargs = dict(grid=GRID, n_repeats=3, measures=("icc", "phi", "selection"), pool_size=24, n_resamples=5,
                  random_state=0)
    skipped = tune_num_learners(EST, XTR, YTR, XTE, **kwargs)
    n_skipped = len(calls)
    calls.clear()
    checked = tune_num_learners.__wrapped__(EST, XTR, YTR, XTE, **kwargs)
    assert n_skipped == len(kwargs)  # its own arguments given in the call, nothing nested
    assert len(calls) > 20 * n_skipped and {"rec_thresh", "fraction", "categories"} <= set(calls)
    assert skipped == checked
