"""The one measure registry (predstab.stability.MEASURES): every consumer offers exactly its
names, every entry computes what its public function computes, and the closed forms are the
formulas of the TreePool Notes."""

import subprocess
import sys
import warnings

import numpy as np
import pytest
from sklearn.ensemble import RandomForestRegressor

import predstab
from predstab import (
    fleiss_kappa,
    icc,
    importance_stability,
    krippendorff_alpha,
    phi,
    psi,
    selection_stability,
)
from predstab._core._validation import InvalidParameterError
from predstab.stability import MEASURES, StabilityMeasure, measure_names

RNG = np.random.default_rng(7)
METRIC = RNG.normal(size=(12, 1)) * 2 + RNG.normal(size=(12, 5))  # 12 objects x 5 refits
CLASSES = np.array(["a", "b", "c"], dtype=object)[RNG.integers(0, 3, size=(12, 5))]
Y_METRIC = RNG.normal(size=30) * 2
Y_CLASSES = np.array(["a", "b", "c"], dtype=object)[RNG.integers(0, 3, size=30)]


def test_names_of_each_use_in_the_registrys_order():
    assert measure_names() == ("icc", "fleiss", "alpha", "phi", "psi", "selection", "importance",
                               "importance_selection")
    assert measure_names("tune") == ("icc", "fleiss", "phi", "psi", "selection", "importance",
                                     "importance_selection")
    assert measure_names("scorer") == ("icc", "fleiss", "alpha", "phi", "psi")
    assert measure_names("agree") == ("icc", "fleiss", "alpha")
    assert measure_names("closed_form") == ("icc", "fleiss", "phi", "psi")
    with pytest.raises(InvalidParameterError, match="`use` must be"):
        measure_names("plot")


def test_the_registry_is_read_only():
    with pytest.raises(TypeError):
        MEASURES["kappa"] = MEASURES["icc"]  # a mappingproxy
    with pytest.raises(AttributeError):
        MEASURES["icc"].title = "ICC"  # a frozen dataclass
    assert all(isinstance(m, StabilityMeasure) and m.name == name for name, m in MEASURES.items())


def test_every_consumer_offers_the_registrys_names():
    from predstab._scorer import make_stability_scorer
    from predstab.cli import build_parser

    assert predstab.TreePool.closed_form._parameter_constraints["measure"][0].options == \
        measure_names("closed_form")
    assert make_stability_scorer._parameter_constraints["measure"][0].options == measure_names("scorer")
    agree = next(a for a in build_parser()._subparsers._group_actions[0].choices["agree"]._actions
                 if a.dest == "measure")
    assert tuple(agree.choices) == measure_names("agree")
    with pytest.raises(ValueError, match=r"`measures` must be among \('icc', 'fleiss', 'phi', 'psi', "
                                         r"'selection', 'importance', 'importance_selection'\); got 'alpha'"):
        predstab.tune_num_learners(RandomForestRegressor(), np.zeros((4, 2)), np.zeros(4),
                                   measures=("alpha",))


def test_each_entry_computes_its_public_function():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert MEASURES["icc"].value(METRIC) == icc(METRIC.astype(float)).value
        assert MEASURES["fleiss"].value(CLASSES) == fleiss_kappa(CLASSES).value
        interval = krippendorff_alpha(METRIC, scale="interval").value
        assert MEASURES["alpha"].value(METRIC, scale="metric") == interval
        assert MEASURES["alpha"].value(CLASSES, scale="categorical") == krippendorff_alpha(CLASSES).value
        ordinal = MEASURES["alpha"].value(CLASSES, scale="ordinal", categories=["c", "a", "b"])
        assert ordinal == krippendorff_alpha(CLASSES, scale="ordinal", categories=["c", "a", "b"]).value
        assert MEASURES["phi"].value(METRIC, Y_METRIC) == phi(METRIC, Y_METRIC).value
        assert MEASURES["psi"].value(CLASSES, Y_CLASSES, scale="ordinal", categories=["c", "a", "b"]) == psi(
            CLASSES, Y_CLASSES, scale="ordinal", categories=["c", "a", "b"]).value
        assert MEASURES["phi"].compute(CLASSES, Y_CLASSES) == phi(CLASSES, Y_CLASSES)
        assert MEASURES["selection"].value(METRIC, fraction=0.25, select_for="low") == selection_stability(
            METRIC, fraction=0.25, select_for="low").value
        both = importance_stability(METRIC, fraction=0.3)
        assert MEASURES["importance"].value(METRIC, fraction=0.3) == both.value
        assert MEASURES["importance_selection"].value(METRIC, fraction=0.3) == both.selection
    assert MEASURES["icc"].function is icc and MEASURES["psi"].function is psi


def test_the_entries_say_what_they_read():
    assert [m for m, e in MEASURES.items() if e.baseline == "training_observations"] == ["phi"]
    assert [m for m, e in MEASURES.items() if e.baseline == "prediction_space"] == ["psi"]
    reading_importances = [m for m, e in MEASURES.items() if e.reads == "importances"]
    assert reading_importances == ["importance", "importance_selection"]
    assert [m for m, e in MEASURES.items() if "metric" not in e.scales] == ["fleiss"]
    assert [m for m, e in MEASURES.items() if "categorical" not in e.scales] == ["icc"]
    assert [(e.optrf_task, m) for m, e in MEASURES.items() if e.optrf_task] == [("regression", "icc"),
                                                                                ("classification", "fleiss")]


def test_closed_forms_are_the_formulas_of_the_pool():
    d_o = np.array([0.5, 0.25, 0.0])
    b = 1.5
    curve, expected = MEASURES["icc"].closed_form({"b": b}, d_o, None)
    np.testing.assert_allclose(curve, b / (b + d_o), rtol=1e-15)
    np.testing.assert_allclose(expected, b + d_o, rtol=1e-15)
    share = np.array([[0.5, 0.5], [0.8, 0.2], [1.0, 0.0]])
    curve, expected = MEASURES["fleiss"].closed_form({"share": share}, d_o, None)
    np.testing.assert_allclose(expected, [0.5, 0.32, 0.0], rtol=1e-15)
    # 1 - D_o / D_e, and the convention where no disagreement is expected: 0 / 0 gives 1
    np.testing.assert_allclose(curve, [0.0, 1 - 0.25 / 0.32, 1.0], rtol=1e-12)
    for name in ("phi", "psi"):
        curve, expected = MEASURES[name].closed_form({}, d_o, 2.0)
        np.testing.assert_allclose(curve, [0.75, 0.875, 1.0], rtol=1e-15)
        np.testing.assert_array_equal(expected, [2.0, 2.0, 2.0])
    undefined, _ = MEASURES["phi"].closed_form({}, np.array([0.5, 0.0]), 0.0)
    assert np.isnan(undefined[0]) and undefined[1] == 1.0  # D_e = 0 < D_o: NaN; 0 / 0: 1
    assert MEASURES["alpha"].closed_form is None and MEASURES["selection"].closed_form is None


def test_reading_the_names_loads_no_measure():
    # predstab agree's choices: the command line starts without the measures' modules (scipy.stats)
    code = ("import sys; import predstab.stability as s; names = s.measure_names('agree'); "
            "print(names, any(m.startswith(('predstab.agreement', 'predstab.stability._stability')) "
            "for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "('icc', 'fleiss', 'alpha') False"
