"""One test per row of the bad-input table in docs/reliability.md.

Every public function that takes a matrix is fed the same bad input; each must give the
documented result or raise a ValueError/TypeError whose message names the parameter (in
backticks), says what was expected and what was seen.
"""

import re
import warnings

import numpy as np
import pandas as pd
import pytest

import predstab
from predstab import (
    PredstabDataWarning,
    PredstabDegenerateWarning,
    PredstabUndefinedWarning,
    fleiss_kappa,
    icc,
    icc_table,
    importance_stability,
    krippendorff_alpha,
    phi,
    psi,
    selection_stability,
)
from predstab import compare as cmp

# every function that takes an (objects x replicates) matrix, with the name of that argument
MATRIX_FUNCTIONS = {
    "icc": (lambda x: icc(x), "ratings"),
    "icc_table": (lambda x: icc_table(x), "ratings"),
    "fleiss_kappa": (lambda x: fleiss_kappa(x), "ratings"),
    "krippendorff_alpha": (lambda x: krippendorff_alpha(x, scale="interval"), "ratings"),
    "phi": (lambda x: phi(x, [0.0, 1.0, 2.0], scale="metric"), "predictions"),
    "psi": (lambda x: psi(x, [0.0, 1.0, 2.0], scale="metric"), "predictions"),
    "calculate_phi": (lambda x: predstab.calculate_phi(x, [0.0, 1.0, 2.0]), "prediction_matrix"),
    "calculate_psi": (lambda x: predstab.calculate_psi(x, [0.0, 1.0, 2.0]), "prediction_matrix"),
    "selection_stability": (lambda x: selection_stability(x, fraction=0.5), "predictions"),
    "importance_stability": (lambda x: importance_stability(x, fraction=0.5), "importances"),
}
NAMES = list(MATRIX_FUNCTIONS)
STACKS = {"icc", "icc_table", "fleiss_kappa", "krippendorff_alpha", "phi", "psi"}  # take (..., n, r)
# small matrices have fewer than 5 replicates; that warning is the stability tests' subject
pytestmark = pytest.mark.filterwarnings("ignore:.*fewer than 5 repeated:predstab.PredstabDataWarning")


def _raises(call, exc, param, what=None):
    """``call()`` raises ``exc`` naming ``param`` in backticks (and ``what``, a regex, if given)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PredstabDataWarning)
        with pytest.raises(exc) as info:
            call()
    message = str(info.value)
    assert f"`{param}`" in message, message
    if what is not None:
        assert re.search(what, message), message
    return message


def _quiet(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PredstabDataWarning)
        return call()


# ---------------------------------------------------------------------------------- shapes


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("empty", [[], [[]], np.empty((0, 3)), np.empty((4, 0))],
                         ids=["[]", "[[]]", "0x3", "4x0"])
def test_empty_arrays(name, empty):
    func, param = MATRIX_FUNCTIONS[name]
    # the message says what was seen: the shape
    _raises(lambda: func(empty), ValueError, param, what=r"\(\d*,? ?\d*\)")


ONE_OBJECT = [[1.0, 2.0, 1.5, 1.0, 2.0]]


@pytest.mark.parametrize("name", ["icc", "icc_table", "selection_stability", "importance_stability"])
def test_one_object_is_an_error_where_variance_between_objects_is_needed(name):
    func, param = MATRIX_FUNCTIONS[name]
    _raises(lambda: func(ONE_OBJECT), ValueError, param, what="1")


def test_one_object_is_valid_for_kappa_alpha_phi_and_psi():
    # Fleiss, N = 1, m = 5, counts 2, 2, 1: P = (4 + 4 + 1 - 5) / 20 = 0.2, P_e = 0.4^2 + 0.4^2 + 0.2^2
    assert fleiss_kappa(ONE_OBJECT).value == pytest.approx((0.2 - 0.36) / (1 - 0.36), rel=1e-12)
    # one unit: alpha's D_o and D_e are computed from the same 5 values; interval D_e = 2 SS/(n-1)
    # and D_o = 2 SS/(n-1) (m_u = n) -> alpha = 0
    assert krippendorff_alpha(ONE_OBJECT, scale="interval").value == pytest.approx(0.0, abs=1e-12)
    # phi of one object (APS allows it): 1 - var(row) / var(baseline)
    row = np.array(ONE_OBJECT[0])
    base = [0.0, 1.0, 2.0, 3.0]
    assert phi(ONE_OBJECT, base).value == pytest.approx(1 - row.var(ddof=1) / np.var(base, ddof=1), rel=1e-12)
    assert psi(ONE_OBJECT, base).value == pytest.approx(1 - row.var(ddof=1) / np.var(base, ddof=1), rel=1e-12)


@pytest.mark.parametrize("name", NAMES)
def test_one_replicate(name):
    func, param = MATRIX_FUNCTIONS[name]
    _raises(lambda: func([[1.0], [2.0], [3.0]]), ValueError, param, what=r"\(3, 1\)")


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("ragged", [[[1.0, 2.0], [1.0]], [[1, 2, 3], [1, 2], [1, 2, 3]]])
def test_ragged_lists(name, ragged):
    func, param = MATRIX_FUNCTIONS[name]
    _raises(lambda: func(ragged), ValueError, param, what="rectangular|length")


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("bad", [np.zeros((2, 2, 2)), 3.0, "abc"], ids=["3-D", "scalar", "string"])
def test_not_a_matrix(name, bad):
    func, param = MATRIX_FUNCTIONS[name]
    if np.ndim(bad) == 3 and name in STACKS:
        # a stack of 2 matrices (issue 26): the values of the loop over them (tests/test_stacks.py)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got, want = func(bad), [func(item) for item in bad]
        if isinstance(got, pd.DataFrame):
            assert all(got.loc[i].equals(w) for i, w in enumerate(want))
        else:
            np.testing.assert_array_equal(got.value, [w.value for w in want])
        return
    _raises(lambda: func(bad), (ValueError, TypeError), param)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("dtype", ["complex128", "datetime64[D]"])
def test_complex_and_dates(name, dtype):
    if name == "fleiss_kappa" and dtype.startswith("datetime"):
        # dates are valid category labels for kappa
        assert fleiss_kappa((np.arange(12).reshape(4, 3) // 2).astype(dtype)).n_objects == 4
        return
    func, param = MATRIX_FUNCTIONS[name]
    _raises(lambda: func(np.ones((4, 3)).astype(dtype)), (ValueError, TypeError), param)


# ---------------------------------------------------------------------------- missing values

WITH_NAN = np.array([[1.0, np.nan, 2.0], [2.0, 2.0, 3.0], [1.0, 3.0, 1.0], [0.0, 1.0, 0.5], [4.0, 3.0, 3.5]])


@pytest.mark.parametrize("name", ["icc", "icc_table"])
def test_nan_in_ratings_drops_the_object_as_irr(name):
    func, _ = MATRIX_FUNCTIONS[name]
    with pytest.warns(PredstabDataWarning, match="1 of 5 objects"):
        got = func(WITH_NAN)
    expected = func(WITH_NAN[1:])
    if isinstance(got, pd.DataFrame):
        pd.testing.assert_frame_equal(got, expected)
    else:
        assert got.value == expected.value and got.n_objects == 4


def test_nan_in_ratings_fleiss_drops_the_object():
    x = np.where(np.isnan(WITH_NAN), np.nan, np.round(WITH_NAN))
    with pytest.warns(PredstabDataWarning, match="1 of 5 objects"):
        assert fleiss_kappa(x).value == fleiss_kappa(x[1:]).value


def test_nan_in_ratings_alpha_uses_every_pairable_value():
    # Krippendorff: a missing value only removes that value; object 0 still pairs 1.0 with 2.0
    got = krippendorff_alpha(WITH_NAN, scale="interval")
    assert got.n_values == WITH_NAN.size - 1 and got.n_units == 5


@pytest.mark.parametrize("func", [phi, psi])
def test_nan_in_predictions_is_dropped_with_the_count(func):
    with pytest.warns(PredstabDataWarning, match="1 out of 15 values are missing"):
        got = func(WITH_NAN, [0.0, 1.0, 2.0, 5.0])
    # the object keeps its 2 other predictions: D_o,0 = var([1, 2])
    assert got.per_object_observed[0] == pytest.approx(0.5, rel=1e-12)


@pytest.mark.parametrize("name", ["selection_stability", "importance_stability"])
def test_nan_is_an_error_when_ranking(name):
    func, param = MATRIX_FUNCTIONS[name]
    _raises(lambda: func(WITH_NAN), ValueError, param, what="missing")


def test_all_values_missing():
    allnan = np.full((4, 3), np.nan)
    for name in ("icc", "icc_table", "fleiss_kappa"):
        _raises(lambda name=name: MATRIX_FUNCTIONS[name][0](allnan), ValueError, "ratings", what="every")
    with pytest.warns(PredstabUndefinedWarning, match="No unit"):
        assert np.isnan(krippendorff_alpha(allnan).value)
    _raises(lambda: phi(allnan, [1.0, 2.0]), ValueError, "predictions", what="no object")
    nothing = np.full((4, 3), None, dtype=object)
    for scale in ("categorical", "ordinal"):
        levels = ["a", "b"] if scale == "ordinal" else None
        _raises(lambda scale=scale, levels=levels: psi(nothing, ["a", "b"], scale=scale, categories=levels),
                ValueError, "predictions", what="no object")


@pytest.mark.parametrize("func, param", [(phi, "training_observations"), (psi, "prediction_space")])
def test_nan_in_baselines(func, param):
    pred = [[1.0, 2.0, 1.5], [2.0, 2.5, 2.0]]
    with pytest.warns(PredstabDataWarning, match="1 out of 4 values are missing"):
        got = func(pred, [0.0, np.nan, 2.0, 4.0])
    assert got.expected == pytest.approx(np.var([0.0, 2.0, 4.0], ddof=1), rel=1e-12)
    _raises(lambda: func(pred, [np.nan, np.nan, 1.0]), ValueError, param, what="at least two")


# ---------------------------------------------------------------------------------- infinity

WITH_INF = np.array([[1.0, np.inf, 2.0], [2.0, 2.0, 3.0], [1.0, 3.0, 1.0], [0.0, 1.0, 0.5]])


@pytest.mark.parametrize("name", NAMES[:-2] + ["importance_stability"])
@pytest.mark.parametrize("sign", [1, -1])
def test_inf_in_numeric_ratings_and_predictions(name, sign):
    func, param = MATRIX_FUNCTIONS[name]
    _raises(lambda: func(WITH_INF * sign), ValueError, param, what="infinite|finite")


def test_inf_ranks_as_the_largest_prediction_in_a_selection():
    res = selection_stability(WITH_INF, fraction=0.25)
    assert res.selected[:, 1].tolist() == [True, False, False, False]


@pytest.mark.parametrize("func, param", [(phi, "training_observations"), (psi, "prediction_space")])
def test_inf_in_metric_baselines(func, param):
    _raises(lambda: func([[1.0, 2.0], [2.0, 2.0]], [0.0, np.inf, 2.0], scale="metric"), ValueError, param,
            what="infinite")


def test_inf_is_a_category_label_on_the_categorical_scale():
    # APS compares as.character() labels; "Inf" is a class like any other
    pred = np.array([[np.inf, np.inf, 1.0], [1.0, 1.0, 1.0]])
    got = phi(pred, [1.0, np.inf, 1.0, 1.0], scale="categorical")
    same = phi(np.where(np.isinf(pred), 2.0, pred), [1.0, 2.0, 1.0, 1.0], scale="categorical")
    assert got.value == same.value


# ------------------------------------------------------------------------- types and dtypes


@pytest.mark.parametrize("name", ["icc", "icc_table", "importance_stability"])
def test_strings_where_numbers_are_needed(name):
    func, param = MATRIX_FUNCTIONS[name]
    _raises(lambda: func([["a", "b"], ["b", "b"], ["a", "c"]]), TypeError, param, what="numer|number")


def test_strings_on_metric_scales():
    _raises(lambda: krippendorff_alpha([["a", "b"], ["b", "b"]], scale="interval"), TypeError, "ratings")
    _raises(lambda: phi([["a", "b"], ["b", "b"]], ["a", "b"], scale="metric"), ValueError, "scale",
            what="character")
    _raises(lambda: phi([["a", "b"], ["b", "b"]], [1.0, 2.0]), ValueError, "predictions", what="mismatch")


MIXED = np.array([[1, "a"], [2, 2], [1, 1], [0, 1]], dtype=object)


@pytest.mark.parametrize("call, param", [
    (lambda: icc(MIXED), "ratings"), (lambda: fleiss_kappa(MIXED), "ratings"),
    (lambda: krippendorff_alpha(MIXED), "ratings"),
    (lambda: phi(MIXED, [1, 2], scale="categorical"), "predictions"),
    (lambda: importance_stability(MIXED), "importances"),
    (lambda: selection_stability(MIXED), "select_for"),
])
def test_mixed_types(call, param):
    _raises(call, TypeError if param != "select_for" else ValueError, param)


BOOLS = np.array([[True, False, True], [True, True, True], [False, False, True], [True, False, False]])


def test_booleans():
    # numbers 0/1 for the ICC and interval alpha, categories for kappa, nominal alpha and phi
    assert icc(BOOLS).value == icc(BOOLS.astype(float)).value
    assert krippendorff_alpha(BOOLS, scale="interval").value == krippendorff_alpha(BOOLS.astype(float),
                                                                                  scale="interval").value
    assert fleiss_kappa(BOOLS).value == fleiss_kappa(BOOLS.astype(int)).value
    assert krippendorff_alpha(BOOLS).value == krippendorff_alpha(BOOLS.astype(int)).value
    got = _quiet(lambda: phi(BOOLS, [True, False, False]))  # logical -> categorical, as APS
    assert got.scale == "categorical"
    assert got.value == _quiet(lambda: phi(BOOLS.astype(int), [1, 0, 0], scale="categorical")).value
    _raises(lambda: phi(BOOLS, [True, False], scale="metric"), ValueError, "scale")
    assert selection_stability(BOOLS, select_for=True).value == selection_stability(
        BOOLS.astype(int), select_for=1).value
    _raises(lambda: importance_stability(BOOLS), TypeError, "importances")


def _categorical_frame(ordered=False):
    cats = pd.CategoricalDtype(["low", "mid", "high"], ordered=ordered)
    return pd.DataFrame({"r1": ["low", "mid", "high", "low"], "r2": ["low", "high", "high", "mid"],
                         "r3": ["mid", "mid", "high", "low"]}).astype(cats)


def test_pandas_categoricals():
    frame = _categorical_frame()
    plain = frame.astype(str).to_numpy()
    assert fleiss_kappa(frame).value == fleiss_kappa(plain).value
    assert krippendorff_alpha(frame).value == krippendorff_alpha(plain).value
    got = _quiet(lambda: phi(frame, frame["r1"]))
    assert got.scale == "categorical"
    assert got.value == _quiet(lambda: phi(plain, plain[:, 0], scale="categorical")).value
    # an ordered Categorical is ordinal with its categories, in their order, as levels
    ordered = _categorical_frame(ordered=True)
    got = _quiet(lambda: phi(ordered, ordered["r1"]))
    assert got.scale == "ordinal" and got.categories == ("low", "mid", "high")
    assert got.value == _quiet(lambda: phi(plain, plain[:, 0], scale="ordinal",
                                           categories=["low", "mid", "high"])).value
    assert krippendorff_alpha(ordered, scale="ordinal").value == krippendorff_alpha(
        plain, scale="ordinal", categories=["low", "mid", "high"]).value
    _raises(lambda: icc(frame), TypeError, "ratings")


def test_pandas_nullable_dtypes():
    values = np.array([[1.0, 2.0, 2.0], [3.0, 3.0, 4.0], [2.0, 2.0, 2.0], [5.0, 4.0, 4.0], [1.0, 1.0, 2.0]])
    ints = pd.DataFrame(values.astype(int)).astype("Int64")
    floats = pd.DataFrame(values / 2).astype("Float64")
    assert icc(ints).value == icc(values).value
    assert icc(floats).value == icc(values / 2).value
    assert krippendorff_alpha(floats, scale="interval").value == krippendorff_alpha(values / 2,
                                                                                    scale="interval").value
    assert _quiet(lambda: phi(floats, floats.iloc[:, 0])).value == _quiet(
        lambda: phi(values / 2, values[:, 0] / 2)).value
    assert selection_stability(floats, fraction=0.4).value == selection_stability(values, fraction=0.4).value
    assert importance_stability(floats, fraction=0.4).value == importance_stability(values / 2,
                                                                                   fraction=0.4).value
    # pd.NA is a missing value, like NaN
    with_na = ints.copy()
    with_na.iloc[0, 1] = pd.NA
    nan = values.copy()
    nan[0, 1] = np.nan
    with pytest.warns(PredstabDataWarning):
        assert icc(with_na).value == icc(values[1:]).value
    assert _quiet(lambda: phi(with_na, values[:, 0], scale="metric")).value == _quiet(
        lambda: phi(nan, values[:, 0], scale="metric")).value
    # object arrays holding pd.NA (what DataFrame.to_numpy() gives for Int64) read the same way
    assert _quiet(lambda: phi(with_na.to_numpy(), values.ravel(), scale="categorical")).value == _quiet(
        lambda: phi(nan, values.ravel(), scale="categorical")).value
    booleans = pd.DataFrame(BOOLS).astype("boolean")
    assert fleiss_kappa(booleans).value == fleiss_kappa(BOOLS).value


# ----------------------------------------------------------------------- categories and levels


def test_ordinal_value_not_in_levels():
    pred = [[1, 2, 2], [3, 3, 2]]
    _raises(lambda: phi(pred, [1, 2, 3, 4], scale="ordinal", categories=[1, 2, 3]), ValueError, "categories",
            what=r"\[4\]")
    _raises(lambda: psi(pred, [1, 2, 3], scale="ordinal", categories=[1, 3]), ValueError, "categories",
            what=r"\[2\]")
    _raises(lambda: predstab.calculate_phi(pred, [1, 2, 5], "ordinal", [1, 2, 3]), ValueError,
            "ordinal_levels", what=r"\[5\]")
    _raises(lambda: krippendorff_alpha(pred, scale="ordinal", categories=[1, 2]), ValueError, "categories",
            what=r"\[3\]")
    _raises(lambda: krippendorff_alpha([["a", "b"], ["b", "c"]], scale="ordinal"), ValueError, "categories")
    _raises(lambda: phi([["a", "b"], ["b", "c"]], ["a", "b", "c"], scale="ordinal"), ValueError, "categories")


def test_prediction_categories_absent_from_the_training_responses():
    pred = [["a", "b", "c"], ["a", "a", "a"]]
    _raises(lambda: phi(pred, ["a", "b", "a"]), ValueError, "training_observations", what=r"\['c'\]")
    # psi computes instead (issue 16): "c" has share 0 in D_e; tests/stability/test_stability_intervals.py
    assert psi(pred, ["a", "b"]).absent_from_baseline == ("c",)


def test_training_categories_absent_from_the_predictions_count_in_the_expected_disagreement():
    pred = [["a", "b", "a", "a", "a"], ["b", "b", "b", "b", "b"]]
    got = phi(pred, ["a", "b", "c", "c"])
    # D_e = 1 - sum p_c^2 over the training categories, the unused "c" included
    assert got.expected == pytest.approx(1 - (0.25**2 + 0.25**2 + 0.5**2), rel=1e-12)
    assert got.categories == ("a", "b", "c")


def test_baselines_of_any_length_shape_rules():
    pred = [[1.0, 2.0, 1.5], [2.0, 2.5, 2.0]]
    # a baseline is a separate (training) sample: any length >= 2 is valid, a matrix is pooled
    assert phi(pred, np.arange(7.0)).expected == pytest.approx(np.var(np.arange(7.0), ddof=1), rel=1e-12)
    assert psi(pred, np.arange(6.0).reshape(3, 2)).expected == pytest.approx(np.var(np.arange(6.0), ddof=1),
                                                                            rel=1e-12)
    _raises(lambda: phi(pred, [1.0]), ValueError, "training_observations", what="at least two")
    _raises(lambda: phi(pred, 3.0), ValueError, "training_observations", what="at least two")
    _raises(lambda: psi(pred, np.ones((2, 2, 2))), ValueError, "prediction_space", what="3-D")


@pytest.mark.parametrize("call, params", [
    (lambda: cmp.ttest([1.0, 2.0, 3.0], [1.0, 2.0], paired=True), "a"),
    (lambda: cmp.wilcoxon([1.0, 2.0, 3.0, 4.0], [1.0, 2.0]), "a"),
    (lambda: cmp.mcnemar([1, 0, 1], [1, 0]), "a"),
    (lambda: cmp.paired_bootstrap([1, 0, 1, 1], [1, 0, 1], [1, 1, 1, 1],
                                  metric=lambda t, p: float(np.mean(t == p))), "a"),
    (lambda: cmp.mean_permutation_test([1.0, 2.0, 3.0], [1.0, 2.0], paired=True), "a"),
    (lambda: predstab.fit_2pl([10, 20, 30], [0.1, 0.2]), "n"),
])
def test_paired_vectors_of_the_wrong_length(call, params):
    _raises(call, ValueError, params)


def test_negative_and_zero_values_with_the_ratio_metric():
    _raises(lambda: krippendorff_alpha([[1.0, -2.0], [2.0, 2.0], [3.0, 1.0]], scale="ratio"), ValueError,
            "ratings", what="non-negative")
    # zeros are valid: delta(0, 0) = 0 and delta(0, c) = 1 for c > 0
    x = np.array([[0.0, 0.0], [2.0, 2.0], [3.0, 1.0], [0.0, 4.0]])
    got = krippendorff_alpha(x, scale="ratio")
    # by the definition: o_ck from 4 units of 2 values; D_o = (2 * delta(3,1) + 2 * delta(0,4)) / 8
    d_o = (2 * (2 / 4) ** 2 + 2 * 1.0) / 8
    values = x.ravel()
    pairs = [((a - b) / (a + b)) ** 2 if a + b > 0 else 0.0 for i, a in enumerate(values)
             for j, b in enumerate(values) if i != j]
    d_e = sum(pairs) / (8 * 7)
    assert got.value == pytest.approx(1 - d_o / d_e, rel=1e-12)
    with pytest.warns(PredstabDegenerateWarning):
        assert krippendorff_alpha(np.zeros((3, 2)), scale="ratio").value == 1.0


# ----------------------------------------------------------------------------- large numbers

# 1e6 objects (not 1e7: a 1e7 x 2 int8 matrix takes 3-6 s per measure, see docs/reliability.md)
N_LARGE = 1_000_000
PATTERN = np.array([[0, 0], [0, 1], [1, 1], [2, 2], [1, 2]], dtype=np.int8)


@pytest.fixture(scope="module")
def large():
    return np.tile(PATTERN, (N_LARGE // len(PATTERN), 1))


def test_large_counts_kappa_and_phi_equal_the_pattern(large):
    # Fleiss' kappa and phi depend only on proportions: repeating the pattern changes nothing,
    # so any integer overflow in the counts (sum of squares ~ 4e12) would show
    assert fleiss_kappa(large).value == pytest.approx(fleiss_kappa(PATTERN).value, rel=1e-12)
    kw = dict(scale="categorical")
    assert _quiet(lambda: phi(large, large[:, 0], **kw)).value == pytest.approx(
        _quiet(lambda: phi(PATTERN, PATTERN[:, 0], **kw)).value, rel=1e-12)
    assert selection_stability(large, select_for=1).value == pytest.approx(
        selection_stability(PATTERN, select_for=1).value, rel=1e-12)


def test_large_counts_alpha_matches_the_closed_form(large):
    n = float(large.size)
    n_c = np.bincount(large.ravel()).astype(float)
    # each unit has 2 values: a disagreeing unit contributes 2 / (2 - 1) off-diagonal coincidences
    d_o = 2.0 * np.count_nonzero(large[:, 0] != large[:, 1]) / n
    d_e = (n * n - n_c @ n_c) / (n * (n - 1))
    assert krippendorff_alpha(large).value == pytest.approx(1 - d_o / d_e, rel=1e-12)


# ------------------------------------------------------------------------------ huge offsets


@pytest.mark.parametrize("form", [dict(), dict(unit="average"), dict(model="twoway"),
                                  dict(model="twoway", type="agreement"),
                                  dict(model="twoway", type="agreement", unit="average")])
def test_huge_offset_icc(form):
    noise = np.random.default_rng(0).normal(size=(200, 4)) + np.arange(200)[:, None] * 0.01
    # centred sums: 1e9 + noise has ~7 significant digits of noise left in float64
    assert icc(1e9 + noise, **form).value == pytest.approx(icc(noise, **form).value, rel=1e-6)


@pytest.mark.parametrize("form", [{}, dict(unit="average"), dict(model="twoway"),
                                  dict(model="twoway", type="agreement"),
                                  dict(model="twoway", type="agreement", unit="average")])
def test_offset_integers_give_the_icc_of_the_integers(form):
    # issue 33: integers + 1e15 are exact in float64, so the ICC is the integers' one exactly; a
    # row mean of values near 1e15 rounds to ~0.1, which the sums of squares added up (0.8344
    # for 0.8295) until the data were centred first. The stack path too.
    rng = np.random.default_rng(1)
    good = np.rint(rng.normal(size=(30, 1)) * 10 + rng.normal(size=(30, 4)) * 4)
    expected = icc(good, **form).value
    assert icc(good + 1e15, **form).value == pytest.approx(expected, rel=1e-12)
    np.testing.assert_allclose(icc(np.stack([good + 1e15, good - 3e15]), **form).value, expected, rtol=1e-12)
    # icc_reml: centred before the REML fit (the optimiser stopped short: ICC2 0.347 for 0.321)
    holes = good.copy()
    holes[0, 1] = holes[3, 2] = np.nan
    reference = predstab.icc_reml(holes)
    np.testing.assert_allclose(predstab.icc_reml(holes + 1e15).value, reference.value, rtol=1e-7)
    # and rescaled (NaN at 1e160 before): the components scale by c^2, -2 log L of the m - 1
    # REML residual dimensions by 2 (m - 1) log c
    for c in (1e-160, 1e160):
        res = predstab.icc_reml(holes * c)
        np.testing.assert_allclose(res.value, reference.value, rtol=1e-7)
        assert res.residual_variance == pytest.approx(reference.residual_variance * c * c, rel=1e-6)
        assert res.reml_criterion == pytest.approx(
            reference.reml_criterion + 2 * (res.n_ratings - 1) * np.log(c), rel=1e-9)


def test_huge_offset_alpha_interval_and_phi():
    rng = np.random.default_rng(1)
    noise = rng.normal(size=(300, 5)) + rng.normal(size=(300, 1))
    base = rng.normal(size=400) * 2
    assert krippendorff_alpha(1e9 + noise, scale="interval").value == pytest.approx(
        krippendorff_alpha(noise, scale="interval").value, rel=1e-6)
    assert phi(1e9 + noise, 1e9 + base).value == pytest.approx(phi(noise, base).value, rel=1e-6)
    assert psi(1e9 + noise, 1e9 + base).value == pytest.approx(psi(noise, base).value, rel=1e-6)


# ------------------------------------------------------------------- tuning: X_test and n_jobs

def _tune_data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 4))
    return X, X[:, 0] + rng.normal(size=60), rng.normal(size=(20, 4))


def _tune(X_test, method, **kw):
    from sklearn.ensemble import RandomForestRegressor

    X, y, _ = _tune_data()
    options = dict(grid=[5, 10, 20], n_repeats=3, random_state=0, measures=("icc", "phi"), n_resamples=0,
                   pool_size=60)
    options.update(kw)
    if method == "refit":
        options.pop("pool_size")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PredstabDataWarning)
        return predstab.tune_num_learners(RandomForestRegressor(max_depth=4), X, y, X_test=X_test,
                                          method=method, **options)


@pytest.mark.parametrize("method", ["pool", "closed_form", "refit"])
def test_x_test_with_other_features_is_refused_as_predict_refuses_it(method):
    # TreePool's cache called tree_.predict unchecked: 3 columns of a 4-feature fit read past
    # the array and gave a table (method="refit" raised scikit-learn's "X has 3 features")
    _, _, X_test = _tune_data()
    with pytest.raises(ValueError, match="3 features"):
        _tune(X_test[:, :3], method)


@pytest.mark.parametrize("method", ["pool", "closed_form", "refit"])
def test_x_test_error_names_x_test(method):
    _, _, X_test = _tune_data()
    _raises(lambda: _tune(X_test[:, :3], method), ValueError, "X_test", "expecting 4 features")


def test_tree_pool_checks_feature_names_and_converts_the_layout():
    from sklearn.ensemble import RandomForestRegressor

    X, y, X_test = _tune_data()
    names = ["a", "b", "c", "d"]
    frame, frame_test = pd.DataFrame(X, columns=names), pd.DataFrame(X_test, columns=names)
    pool = predstab.TreePool(RandomForestRegressor(max_depth=4), n_learners=20, random_state=0)
    reference = pool.fit(frame, y, frame_test).test_predictions_
    # the forest's own predict is the mean of the cached learners' predictions
    np.testing.assert_allclose(reference.mean(axis=1), pool.ensemble_.predict(frame_test), rtol=1e-12)
    with pytest.raises(ValueError, match="`X_test`.*feature names"):
        predstab.TreePool(RandomForestRegressor(max_depth=4), n_learners=20, random_state=0).fit(
            frame, y, frame_test[names[::-1]])
    fortran = predstab.TreePool(RandomForestRegressor(max_depth=4), n_learners=20, random_state=0).fit(
        X, y, np.asfortranarray(X_test)).test_predictions_
    np.testing.assert_array_equal(fortran, reference)
    with pytest.raises(ValueError, match="`X_test`"):
        predstab.TreePool(RandomForestRegressor(max_depth=4), n_learners=20, random_state=0).fit(
            X, y, X_test.astype(str).astype(object) + "x")


@pytest.mark.slow
def test_refit_tables_do_not_depend_on_n_jobs():
    # scikit-learn's threaded predict adds the trees in the order its threads finish: with
    # n_jobs=2 the predictions differed in the last bits (173 of 400 values over 10 forests)
    from types import SimpleNamespace

    from sklearn.ensemble import RandomForestRegressor

    from predstab.ensembles._tune_strategies import _refit_one

    X, y, X_test = _tune_data()
    for seed in range(2):
        one, two = (_refit_one(SimpleNamespace(estimator=RandomForestRegressor(max_depth=4), X=X, y=y,
                                               voting="soft", n_jobs=n_jobs, is_classifier=False),
                               80, seed, X_test, True) for n_jobs in (1, 2))
        np.testing.assert_array_equal(one[0], two[0])
        np.testing.assert_array_equal(one[1], two[1])
        # and both are the trees' mean added in their order, as one thread adds them
        forest = RandomForestRegressor(max_depth=4, n_estimators=80, random_state=seed).fit(X, y)
        by_hand = np.zeros(len(X_test))
        for tree in forest.estimators_:
            by_hand += tree.predict(X_test.astype(np.float32))
        np.testing.assert_array_equal(one[0], by_hand / 80)
    for method in ("refit", "pool", "closed_form"):  # docs/reliability.md: no table depends on n_jobs
        tables = [_tune(X_test, method, n_jobs=n_jobs, grid=[10, 20, 40], n_repeats=2, pool_size=80).table
                  .drop(columns="seconds") for n_jobs in (1, 2)]
        pd.testing.assert_frame_equal(tables[0], tables[1], check_exact=True)


def test_one_row_x_test_names_x_test_not_the_default_fraction():
    X, y, X_test = _tune_data()
    message = _raises(lambda: _tune(X_test[:1], "refit", measures=("icc", "selection")), ValueError, "X_test",
                      "at least 2 rows")
    assert "fraction" not in message
    # a fraction the user set is still named
    _raises(lambda: _tune(X_test[:1], "refit", measures=("selection",), selection={"fraction": 0.5}),
            ValueError, "selection['fraction']")


# ------------------------------------------------------------------------------ weight matrices

_TWO_RATERS = np.array([[1, 1], [1, 2], [2, 2], [2, 1], [1, 1], [2, 2], [1, 2]])
WEIGHTED = {
    "fleiss_kappa": lambda x, w: fleiss_kappa(x, weights=w),
    "krippendorff_alpha": lambda x, w: krippendorff_alpha(x, weights=w),
    "gwet_ac1": lambda x, w: predstab.gwet_ac1(x, weights=w),
    "brennan_prediger": lambda x, w: predstab.brennan_prediger(x, weights=w),
    "conger_kappa": lambda x, w: predstab.conger_kappa(x, weights=w),
    "percent_agreement": lambda x, w: predstab.percent_agreement(x, weights=w),
    "cohen_kappa": lambda x, w: predstab.cohen_kappa(x, weights=w),
}


@pytest.mark.parametrize("name", list(WEIGHTED))
@pytest.mark.parametrize("weights, what", [
    ([[1.0, 2.0], [2.0, 1.0]], r"in \[0, 1\].*2 at \[0, 1\]"),      # fleiss gave 7.92, alpha 7.54
    ([[1.0, -0.5], [-0.5, 1.0]], r"in \[0, 1\].*-0.5 at \[0, 1\]"),
    ([[0.5, 0.0], [0.0, 1.0]], r"1 on its diagonal.*0.5 at \[0, 0\]"),
    ([[1.0, 0.8], [0.0, 1.0]], r"symmetric.*0.8 at \[0, 1\] and 0 at \[1, 0\]"),  # conger 0.379, cohen 0.143
], ids=["above 1", "negative", "diagonal below 1", "asymmetric"])
def test_weight_matrices_follow_one_rule(name, weights, what):
    w = np.array(weights)
    if what.startswith("symmetric") and name not in ("conger_kappa", "cohen_kappa"):
        # issue 35 item 12: these depend only on the symmetric part, and irrCAC accepts W
        assert WEIGHTED[name](_TWO_RATERS, w).value == WEIGHTED[name](_TWO_RATERS, (w + w.T) / 2).value
        return
    _raises(lambda: WEIGHTED[name](_TWO_RATERS, w), ValueError, "weights", what)


@pytest.mark.parametrize("name", list(WEIGHTED))
def test_a_valid_user_matrix_equals_its_family(name):
    # the linear family over two categories is the identity; over three it has 0.5 off the diagonal
    x = np.array([[1, 1], [1, 2], [2, 3], [3, 3], [1, 3], [2, 2], [3, 2]])
    user = np.array([[1.0, 0.5, 0.0], [0.5, 1.0, 0.5], [0.0, 0.5, 1.0]])
    got, family = WEIGHTED[name](x, user), WEIGHTED[name](x, "linear")
    assert getattr(got, "value", None) == pytest.approx(family.value, rel=1e-15)


# ------------------------------------------------------------------------------- masked arrays

_MASKED_X = np.array([[1, 1, 2], [2, 2, 2], [1, 3, 3], [3, 3, 3], [2, 1, 2], [9, 9, 1]])
MASKED = {
    "icc": icc, "icc_table": lambda x: icc_table(x)["ICC"].to_numpy(),
    "fleiss_kappa": fleiss_kappa, "krippendorff_alpha": krippendorff_alpha,
    "krippendorff_alpha(interval)": lambda x: krippendorff_alpha(x, scale="interval"),
    "gwet_ac1": predstab.gwet_ac1, "conger_kappa": predstab.conger_kappa,
    "cronbach_alpha": predstab.cronbach_alpha, "mean_correlation": predstab.mean_correlation,
    "phi": lambda x: phi(x, [1.0, 2.0, 3.0, 2.0], scale="metric"),
    "psi": lambda x: psi(x, [1.0, 2.0, 3.0, 2.0], scale="categorical"),
}


@pytest.mark.parametrize("name", list(MASKED))
def test_masked_cells_are_missing_values(name):
    # np.asarray drops a mask: the 9s of the last row were read as ratings (icc 0.347, not 0.410)
    masked = np.ma.masked_array(_MASKED_X, mask=_MASKED_X == 9)
    with_nan = np.where(_MASKED_X == 9, np.nan, _MASKED_X)
    got, expected = (_quiet(lambda a=a: MASKED[name](a)) for a in (masked, with_nan))
    got, expected = (getattr(v, "value", v) for v in (got, expected))
    np.testing.assert_array_equal(got, expected)
    plain = getattr(_quiet(lambda: MASKED[name](_MASKED_X)), "value", None)
    assert not np.array_equal(plain, expected)


# ------------------------------------------------------------- mixed kinds: values, not spellings

@pytest.mark.parametrize("func", [phi, psi])
def test_numbers_against_text_levels_are_compared_as_values(func):
    # the levels' text was compared with R's spelling of the numbers: "1" matched 1.0 but
    # "1.0" did not ("Some values do not occur in 'levels'")
    pred = np.array([[1.0, 2.0, 1.0], [2.0, 2.0, 2.0], [1.0, 1.0, 3.0]])
    base = [1.0, 2.0, 3.0, 2.0]
    numeric = func(pred, base, scale="ordinal", categories=[1, 2, 3]).value
    for levels in (["1", "2", "3"], ["1.0", "2.0", "3.0"], ["1e0", "2", "3.00"]):
        assert func(pred, base, scale="ordinal", categories=levels).value == numeric
    # and text data against numeric levels
    text = func(pred.astype(str), [str(b) for b in base], scale="ordinal", categories=[1, 2, 3])
    assert text.value == numeric
    with pytest.raises(ValueError, match="categories"):
        func(pred, base, scale="ordinal", categories=["one", "two", "three"])


# ------------------------------------------------ zero expected disagreement hidden by rounding

LATIN = np.array([[4.0, 3.0, 2.0], [2.0, 4.0, 3.0], [3.0, 2.0, 4.0]])


def _warned(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = call()
    stray = [str(w.message) for w in caught if not issubclass(w.category, predstab.PredstabWarning)]
    assert not stray, stray
    return result, [w.category for w in caught]


@pytest.mark.parametrize("form", [dict(unit="average"), dict(model="twoway", unit="average")])
def test_equal_row_means_make_the_average_icc_undefined(form):
    # equal row means: MS_R is 3e-31 of rounding, the ICC was -3.38e30 with no warning
    res, categories = _warned(lambda: icc(LATIN, **form))
    assert np.isnan(res.value) and categories == [PredstabUndefinedWarning]
    assert res.statistic == 0.0 and res.pvalue == 1.0
    # random matrices whose rows are permutations of one row: MS_R is exactly 0 (54 of 275
    # such cases gave +-1e16 to 1e30)
    rng = np.random.default_rng(0)
    for _ in range(50):
        row = rng.integers(0, 10, size=int(rng.integers(3, 6))).astype(float)
        if np.ptp(row) == 0:
            continue
        x = np.array([rng.permutation(row) for _ in range(int(rng.integers(3, 9)))])
        res, categories = _warned(lambda x=x: icc(x, **form))
        assert np.isnan(res.value) and PredstabUndefinedWarning in categories


def test_icc_table_on_a_latin_square():
    table, categories = _warned(lambda: icc_table(LATIN))
    assert np.isnan(table.loc["ICC1k", "ICC"]) and np.isnan(table.loc["ICC3k", "ICC"])
    # ICC1 = (MS_R - MS_W) / (MS_R + 2 MS_W) with MS_R = 0: -1/2, by hand
    assert table.loc["ICC1", "ICC"] == pytest.approx(-0.5, rel=1e-12)
    assert PredstabUndefinedWarning in categories


def _agreement_parts_exact(x, single):
    """ICC(A,1) / ICC(A,k) as (D_o, D_e) in exact rational arithmetic (McGraw & Wong's mean squares)."""
    from fractions import Fraction
    n, k = len(x), len(x[0])
    cells = [[Fraction(int(v)) for v in row] for row in x]
    grand = sum(map(sum, cells)) / (n * k)
    rows = [sum(r) / k for r in cells]
    cols = [sum(cells[i][j] for i in range(n)) / n for j in range(k)]
    msr = k * sum((r - grand) ** 2 for r in rows) / (n - 1)
    msc = n * sum((c - grand) ** 2 for c in cols) / (k - 1)
    mse = sum((cells[i][j] - rows[i] - cols[j] + grand) ** 2
              for i in range(n) for j in range(k)) / ((n - 1) * (k - 1))
    if single:
        return k * mse + k * (msc - mse) / n, msr + (k - 1) * mse + k * (msc - mse) / n
    return mse + (msc - mse) / n, msr + (msc - mse) / n


def test_agreement_icc_with_zero_expected_disagreement_is_undefined(capsys):
    # D_e = MS_R + (MS_C - MS_E) / n is 0 in exact arithmetic, 4e-16 in floating point: the
    # ICC(A,2) was 4.7e15 with no warning, and the CLI printed "8.651 < ICC < 0.807"
    x = np.array([[5, 2], [2, 4], [4, 1]], float)
    res, categories = _warned(lambda: icc(x, model="twoway", type="agreement", unit="average"))
    assert np.isnan(res.value) and categories == [PredstabUndefinedWarning]
    assert np.isnan(res.confidence_interval.low) and np.isnan(res.confidence_interval.high)
    # every 3 x 2 matrix of values 1-4 (214 of the 4,096 gave up to +-3.6e16), both agreement
    # forms, against exact rational arithmetic; the stack path gives the same values
    import itertools
    grid = np.array(list(itertools.product(range(1, 5), repeat=6)), float).reshape(-1, 3, 2)
    for unit in ("single", "average"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", predstab.PredstabWarning)
            stacked = icc(grid, model="twoway", type="agreement", unit=unit).value
        n_undefined = 0
        for m, got in zip(grid, stacked, strict=True):
            d_o, d_e = _agreement_parts_exact(m, unit == "single")
            if d_e == 0:
                n_undefined += d_o != 0
                res, categories = _warned(
                    lambda m=m, unit=unit: icc(m, model="twoway", type="agreement", unit=unit))
                expected_category = PredstabUndefinedWarning if d_o else predstab.PredstabDegenerateWarning
                assert expected_category in categories, m
                assert (np.isnan(res.value) and np.isnan(got)) if d_o else res.value == got == 1.0
            else:
                assert got == pytest.approx(float(1 - d_o / d_e), rel=1e-9, abs=1e-12), m
        assert n_undefined == (264 if unit == "average" else 0)  # exact zeros (214 were not 0 in floats)
    # the CLI prints what icc returned: NA, not 4.72e15, and an interval of NA
    import pathlib
    import tempfile

    from predstab.cli import main

    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "m.csv"
        path.write_text("a,b\n5,2\n2,4\n4,1\n")
        main(["agree", str(path), "--measure", "icc", "--model", "twoway", "--type", "agreement",
              "--unit", "average"])
    out = capsys.readouterr().out
    assert "ICC(A,2) = NA" in out and "NA < ICC < NA" in out and "e+15" not in out


def test_agreement_icc_above_one_keeps_irrs_value_and_warns():
    # a Latin square: MS_R = MS_C = 0, MS_E = 1.5, so D_e = -MS_E / 3 and ICC(A,3) =
    # 1 - (MS_E - MS_E / 3) / (-MS_E / 3) = 3, irr's formula's value; it is outside [-1, 1]
    table, categories = _warned(lambda: icc_table(LATIN))
    assert table.loc["ICC2k", "ICC"] == pytest.approx(3.0, rel=1e-12)
    assert predstab.PredstabDataWarning in categories
    res, categories = _warned(lambda: icc(LATIN, model="twoway", type="agreement", unit="average"))
    assert res.value == pytest.approx(3.0, rel=1e-12) and categories == [predstab.PredstabDataWarning]
    # the stack path: the same value (it gave NaN, a negative D_e read as undefined) and warning
    with pytest.warns(predstab.PredstabDataWarning, match=r"1 of 2 items.*outside \[-1, 1\]"):
        values = icc(np.stack([LATIN, LATIN + np.arange(9.0).reshape(3, 3)]),
                     model="twoway", type="agreement", unit="average").value
    assert values[0] == pytest.approx(3.0, rel=1e-12)


def test_cronbach_alpha_with_equal_totals_is_undefined():
    # every row total is 9: var(total) is rounding noise, alpha was -inf with numpy warnings
    res, categories = _warned(lambda: predstab.cronbach_alpha(LATIN))
    assert np.isnan(res.value) and categories == [PredstabUndefinedWarning]


# ------------------------------------------------------------- NaN always comes with a warning

def test_cronbach_alpha_on_constant_and_missing_data():
    res, categories = _warned(lambda: predstab.cronbach_alpha(np.ones((5, 3))))
    assert np.isnan(res.value) and categories == [PredstabUndefinedWarning]
    # all missing: an error, as every other reader gives
    _raises(lambda: predstab.cronbach_alpha(np.full((5, 3), np.nan)), ValueError, "items", "missing")


def test_cronbach_alpha_with_a_constant_item():
    rng = np.random.default_rng(0)
    x = np.column_stack([rng.normal(size=(20, 3)) + np.arange(20)[:, None], np.ones(20)])
    res, categories = _warned(lambda: predstab.cronbach_alpha(x))
    assert categories == [PredstabUndefinedWarning]  # was NaN plus 4-15 RuntimeWarnings
    # raw alpha is defined: k / (k - 1) (1 - sum var_j / var(total)), by hand
    k = x.shape[1]
    by_hand = k / (k - 1) * (1 - x.var(axis=0, ddof=1).sum() / x.sum(axis=1).var(ddof=1))
    assert res.value == pytest.approx(by_hand, rel=1e-12)
    assert np.isnan(res.standardized)


@pytest.mark.parametrize("func", [predstab.mean_correlation, predstab.mean_spearman])
def test_mean_correlation_with_a_constant_rater(func):
    rng = np.random.default_rng(0)
    x = np.column_stack([rng.normal(size=(20, 3)) + np.arange(20)[:, None], np.ones(20)])
    res, categories = _warned(lambda: func(x))
    assert np.isnan(res.value) and categories == [PredstabUndefinedWarning]


def test_rater_bias_of_identical_raters():
    res, categories = _warned(lambda: predstab.rater_bias([[1, 1], [2, 2], [1, 1], [3, 3]]))
    assert np.isnan(res.value) and categories == [PredstabUndefinedWarning]
