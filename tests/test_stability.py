"""APS prediction stability (phi, psi): parity with APS 1.0.1, conventions and inputs.

Reference numbers come from ``validation/r-reference/aps/expected/aps_cases.json``,
produced by ``validation/r-reference/aps/generate.R`` with APS 1.0.1 (R 4.2.2), e.g.
``APS::calculate_phi(prediction_matrix, training_observations, scale = "ordinal",
ordinal_levels = lv)``.
"""

import math
import warnings

import numpy as np
import pandas as pd
import pytest

import predstab
from predstab import (
    PredstabDataWarning,
    PredstabDegenerateWarning,
    PredstabUndefinedWarning,
    StabilityResult,
    calculate_phi,
    calculate_psi,
    phi,
    psi,
)
from validation.aps import DIFFERENCES, case_inputs, load_cases, run_case
from validation.aps.naive import naive_stability

CASES = load_cases()
BY_ID = {c["id"]: c for c in CASES}
VALUED = [c for c in CASES if c["result"] is not None]
ERRORS = [c for c in CASES if c["result"] is None and c["id"] not in DIFFERENCES]
RTOL = 1e-12  # APS 1.0.1 vs predstab: worst case seen 2e-14


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def _close(r_value, value, rtol=RTOL):
    if r_value is None:
        return math.isnan(value)
    return abs(value - r_value) <= rtol * abs(r_value)


# ----------------------------------------------------------------------------- APS parity


@pytest.mark.parametrize("case", VALUED, ids=[c["id"] for c in VALUED])
def test_matches_aps_reference(case):
    # R: APS::calculate_phi / calculate_psi(pm, base, scale = case$scale,
    #                                       ordinal_levels = case$ordinal_levels)
    res, exc, _ = run_case(case)
    assert exc is None, exc
    r = case["result"]
    assert _close(r["prediction_stability"], res.value)  # rtol 1e-12
    assert _close(r["observed_instability"], res.observed)  # rtol 1e-12
    assert _close(r["expected_instability"], res.expected)  # rtol 1e-12
    assert res.description == r["description"]
    if isinstance(r["printed"], list):  # exact: capture.output(print(res)) in R
        assert str(res).split("\n") == r["printed"]


@pytest.mark.parametrize("case", ERRORS, ids=[c["id"] for c in ERRORS])
def test_raises_where_aps_raises(case):
    # R: the same call stops with case$error; predstab raises ValueError naming the argument
    res, exc, _ = run_case(case)
    assert isinstance(exc, ValueError), f"no error, got {res}"
    assert "`" in str(exc)  # names the argument in backticks


def test_aps_error_phrases():
    # the phrases of APS's own messages, where the wording can be kept
    def message(cid):
        return str(run_case(BY_ID[cid])[1])
    assert "Some prediction values do not occur in the training data" in message("cat_unknown_pred_error")
    assert "Some values do not occur in 'ordinal_levels'" in message("ord_base_not_in_levels_error")
    assert "doesn't match the data type which is 'character'" in message("err_metric_on_text")
    assert "must contain predictions from at least two repetitions" in message("err_one_column")
    assert "must contain at least two elements" in message("err_short_baseline")
    assert "Type mismatch between the prediction matrix and the training data" in message("err_type_mismatch")
    assert "requires setting `ordinal_levels`" in message("ord_missing_levels_error")


def test_difference_missing_categorical_prediction_equals_aps_with_na_baseline():
    # APS raises on cat_na_pred_phi; predstab drops the NAs. APS's value for the same data with an
    # NA appended to the baseline (cat_na_pred_na_base_phi) is therefore predstab's value.
    res = _quiet(run_case, BY_ID["cat_na_pred_phi"])[0]
    ref = BY_ID["cat_na_pred_na_base_phi"]["result"]
    assert _close(ref["prediction_stability"], res.value)  # rtol 1e-12
    assert _close(ref["observed_instability"], res.observed)
    assert _close(ref["expected_instability"], res.expected)


@pytest.mark.parametrize("cid", ["ord_na_pred_phi", "ord_na_pred_na_base_phi"])
def test_difference_missing_ordinal_values_follow_the_definition(cid):
    # APS 1.0.1 has no value for these (it raises); predstab equals the pairwise definition
    case = BY_ID[cid]
    pm, base = case_inputs(case)
    res = _quiet(run_case, case)[0]
    rows = [[None if pd.isna(v) else v for v in row] for row in pm.to_numpy(dtype=object).tolist()]
    flat = [None if pd.isna(v) else v for v in base.tolist()]
    s, d_o, d_e = naive_stability(rows, flat, "ordinal", case["ordinal_levels"])
    assert res.value == pytest.approx(s, rel=1e-12)
    assert res.observed == pytest.approx(d_o, rel=1e-12)
    assert res.expected == pytest.approx(d_e, rel=1e-12)


def test_difference_print_of_undefined_shows_na():
    # APS's print fails ("unsupported type") when the stability is NA; predstab prints NA
    res = _quiet(run_case, BY_ID["metric_constant_base_nonzero_obs"])[0]
    lines = str(res).split("\n")
    assert lines[3] == "Prediction stability:     NA "
    assert lines[5] == "Expected instability:      0 "


def test_warning_cases_warn():
    # every APS case with a warning warns in predstab too, with the same topics
    from validation.aps import aps_topics, predstab_topics

    for case in VALUED:
        _, _, caught = run_case(case)
        assert aps_topics(case["warnings"]) == predstab_topics(caught), case["id"]


# ----------------------------------------------------------------------------- conventions


def test_single_object_is_valid():
    res = phi([[1.0, 2.0, 3.0, 2.0, 1.0]], [0.0, 10.0, 5.0])
    assert res.n_objects == 1
    assert res.per_object[0] == pytest.approx(res.value)
    assert res.value == pytest.approx(1 - np.var([1, 2, 3, 2, 1], ddof=1) / np.var([0, 10, 5], ddof=1))


def test_identical_repetitions_give_one():
    pred = np.repeat(np.array([["a"], ["b"], ["c"]]), 6, axis=1)
    with pytest.warns(PredstabDataWarning, match="identical across repetitions"):
        res = phi(pred, ["a", "b", "c", "a"])
    assert res.value == 1.0 and res.observed == 0.0


def test_metric_constant_rows_are_exact_zeros():
    # 0.1 * 3 / 3 != 0.1 in floating point: the variance must still be exactly 0
    pred = np.full((4, 7), 0.1)
    with pytest.warns(PredstabDataWarning, match="identical"):
        res = phi(pred, [0.3, 0.1, 0.7])
    assert np.all(res.per_object_observed == 0.0)


def test_many_constant_rows_are_fast_and_exact():
    pred = np.tile(np.array([[0.1], [0.7], [1 / 3]]), (20000, 9))
    pred[::2, 0] = np.nan
    res = _quiet(phi, pred, [0.0, 1.0])
    assert np.all(res.per_object_observed == 0.0) and res.value == 1.0


def test_warnings_point_at_the_callers_line():
    # every warning is attributed to this file (stacklevel), not to predstab's internals
    cases = [
        lambda: phi([[1.0, 2.0], [1.0, 3.0]], [0.0, 1.0]),  # fewer than 5 repetitions
        lambda: phi([[1.0, np.nan, 2.0, 2.0, 2.0], [np.nan] * 4 + [1.0]], [0.0, np.nan, 1.0]),
        lambda: phi([["a"] * 5], ["a", "a"]),  # identical, collapsed
        lambda: phi([[1.0, 2.0, 3.0, 4.0, 5.0]], [2.0, 2.0]),  # undefined
    ]
    for case in cases:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            case()
        assert caught and all(w.filename == __file__ for w in caught), [(w.filename, str(w.message))
                                                                         for w in caught]


def test_zero_expected_instability_conventions():
    # D_e = 0 and D_o = 0 -> 1 (the model may have collapsed); D_e = 0 and D_o > 0 -> NaN
    with pytest.warns(PredstabDegenerateWarning, match="collapsed"):
        assert _quiet_keep(PredstabDegenerateWarning, phi, [["a"] * 5], ["a", "a"]).value == 1.0
    with pytest.warns(PredstabUndefinedWarning, match="undefined"):
        res = phi([[1.0, 2.0, 3.0, 4.0, 5.0]], [2.0, 2.0, 2.0])
    assert math.isnan(res.value)
    assert math.isnan(res.per_object[0])


def _quiet_keep(category, fn, *args, **kwargs):
    """Call fn ignoring every warning except ``category``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        warnings.simplefilter("always", category)
        return fn(*args, **kwargs)


def test_dropped_rows_and_missing_values():
    pred = np.array([[1.0, 2.0, np.nan, 4.0, 5.0], [np.nan] * 4 + [3.0], [2.0, 2.5, 3.0, 3.5, 4.0]])
    with pytest.warns(PredstabDataWarning) as record:
        res = phi(pred, [0.0, 4.0, 8.0])
    messages = " ".join(str(w.message) for w in record)
    assert "5 out of 15 values are missing (33.33%)" in messages
    assert "excluded" in messages and "0-based rows 1" in messages
    assert math.isnan(res.per_object[1]) and math.isnan(res.per_object_observed[1])
    assert res.observed == pytest.approx(np.mean([np.var([1, 2, 4, 5], ddof=1), np.var([2, 2.5, 3, 3.5, 4],
                                                                                         ddof=1)]))


def test_all_rows_dropped_is_an_error():
    with pytest.raises(ValueError, match="no object with at least two"):
        _quiet(phi, [[1.0, np.nan], [np.nan, np.nan]], [1.0, 2.0])


def test_few_repetitions_warn():
    with pytest.warns(PredstabDataWarning, match="fewer than 5 repeated predictions"):
        phi([[1.0, 2.0], [3.0, 3.5]], [1.0, 5.0])


# ----------------------------------------------------------------------------- the definition


def _random_case(rng, scale, n=7, r=6, k=4):
    levels = [f"L{i}" for i in range(k)]
    if scale == "metric":
        return rng.normal(size=(n, r)), rng.normal(size=30), None
    pred = rng.choice(levels, size=(n, r))
    base = np.concatenate([levels, rng.choice(levels, size=25)])
    return pred, base, levels if scale == "ordinal" else None


@pytest.mark.parametrize("scale", ["metric", "categorical", "ordinal"])
@pytest.mark.parametrize("seed", range(5))
def test_equals_pairwise_definition(scale, seed):
    rng = np.random.default_rng(seed)
    pred, base, levels = _random_case(rng, scale)
    pred = pred.astype(object)
    pred[rng.random(pred.shape) < 0.1] = None
    res = _quiet(phi, pred, base, scale=scale, categories=levels)
    s, d_o, d_e = naive_stability(pred.tolist(), list(base), scale, levels)
    assert res.value == pytest.approx(s, rel=1e-12)
    assert res.observed == pytest.approx(d_o, rel=1e-12)
    assert res.expected == pytest.approx(d_e, rel=1e-12)


@pytest.mark.parametrize("scale", ["metric", "categorical", "ordinal"])
def test_invariant_to_permuting_objects_and_repetitions(scale):
    rng = np.random.default_rng(3)
    pred, base, levels = _random_case(rng, scale, n=12, r=8)
    ref = phi(pred, base, scale=scale, categories=levels)
    rows, cols = rng.permutation(pred.shape[0]), rng.permutation(pred.shape[1])
    res = phi(pred[rows][:, cols], rng.permutation(base), scale=scale, categories=levels)
    assert res.value == pytest.approx(ref.value, rel=1e-12)
    np.testing.assert_allclose(res.per_object, ref.per_object[rows], rtol=1e-12)


def test_categorical_invariant_to_relabelling():
    rng = np.random.default_rng(4)
    pred, base, _ = _random_case(rng, "categorical", n=15, r=9)
    relabel = {"L0": "z", "L1": "y", "L2": "x", "L3": "w"}
    ref = phi(pred, base)
    res = phi(np.vectorize(relabel.get)(pred), [relabel[v] for v in base])
    assert res.value == pytest.approx(ref.value, rel=1e-12)


def test_ordinal_uses_level_order_not_labels():
    # the same data with levels renamed in the same order give the same value
    rng = np.random.default_rng(5)
    pred, base, levels = _random_case(rng, "ordinal", n=10, r=7)
    codes = {lev: i for i, lev in enumerate(levels)}
    ref = phi(pred, base, scale="ordinal", categories=levels)
    res = phi(np.vectorize(codes.get)(pred), [codes[v] for v in base], scale="ordinal", categories=range(4))
    assert res.value == pytest.approx(ref.value, rel=1e-12)


def test_krippendorff_ordinal_distance_from_counts():
    # baseline counts m = (1, 1, 2): positions 0.5, 1.5, 3 -> delta^2 = 1, 6.25, 2.25
    res = psi([["L1", "L2", "L2", "L2", "L2"]], ["L1", "L2", "L3", "L3"], categories=["L1", "L2", "L3"])
    assert res.expected == pytest.approx(2.25, rel=1e-15)  # 2 * (1/16 + 6.25/8 + 2.25/8)
    assert res.observed == pytest.approx(8 / 20, rel=1e-15)  # 2 * 1 * 4 * delta^2(L1, L2) / (5 * 4)


def test_block_boundaries_do_not_matter(monkeypatch):
    from predstab.stability import _disagreement, _object_intervals, _result

    rng = np.random.default_rng(6)
    x = rng.normal(size=(50, 9))
    x[rng.random(x.shape) < 0.1] = np.nan
    c = rng.integers(0, 4, size=(50, 9))
    ref_m = _quiet(phi, x, rng.normal(size=20))
    ref_c = _quiet(phi, c, np.arange(4), scale="categorical")
    for mod in (_disagreement, _object_intervals, _result):  # every pass in blocks of 2 rows
        monkeypatch.setattr(mod, "_BLOCK", 20)
    assert _quiet(phi, x, rng.normal(size=20)).observed == ref_m.observed
    np.testing.assert_array_equal(_quiet(phi, c, np.arange(4), scale="categorical").per_object,
                                  ref_c.per_object)


@pytest.mark.parametrize("scale", ["categorical", "ordinal"])
def test_many_categories_sparse_path_equals_definition(scale, monkeypatch):
    # many distinct values and a small dense-table limit: counts go through the sparse table
    import predstab.stability._disagreement as mod

    monkeypatch.setattr(mod, "_DENSE_CELLS", 0)
    rng = np.random.default_rng(7)
    pred = rng.integers(0, 150, size=(300, 5)) * 2 + 1000  # spread out: no direct integer codes
    base = np.concatenate([np.unique(pred), rng.choice(np.unique(pred), 50)])
    levels = np.unique(base).tolist() if scale == "ordinal" else None
    res = phi(pred.astype(float), base.astype(float), scale=scale, categories=levels)
    s, d_o, d_e = naive_stability(pred.tolist(), base.tolist(), scale, levels)
    assert res.value == pytest.approx(s, abs=1e-13)  # S is near 0 here: absolute tolerance
    assert res.observed == pytest.approx(d_o, rel=1e-12)
    assert res.expected == pytest.approx(d_e, rel=1e-12)


# ----------------------------------------------------------------------------- inputs and scales


def test_scale_inference():
    assert phi(np.ones((2, 5)) + np.arange(5), [1.0, 2.0]).scale == "metric"
    assert phi([["a", "b", "a", "a", "a"]], ["a", "b"]).scale == "categorical"
    assert phi(np.array([[True, False, True, True, True]]), [True, False]).scale == "categorical"
    dtype = pd.CategoricalDtype(["lo", "mid", "hi"], ordered=True)
    ordered = pd.DataFrame({f"r{j}": pd.Series(["lo", "hi" if j else "mid"], dtype=dtype) for j in range(5)})
    res = phi(ordered, pd.Series(["lo", "mid", "hi"], dtype=dtype))
    assert res.scale == "ordinal" and res.categories == ("lo", "mid", "hi")
    assert phi([["a", "b", "a", "a", "a"]], ["a", "b", "c"], categories=["a", "b", "c"]).scale == "ordinal"
    with pytest.raises(ValueError, match="`scale` is needed"):
        phi(np.ones((2, 5), dtype=int), [1, 2])


def test_integer_input_with_explicit_scales():
    pred = np.array([[1, 2, 2, 2, 3], [3, 3, 3, 3, 2]])
    base = [1, 2, 3, 3]
    m = phi(pred, base, scale="metric")
    assert m.expected == pytest.approx(np.var(base, ddof=1))
    c = phi(pred, base, scale="categorical")
    assert c.categories == (1, 2, 3)
    o = phi(pred, base, scale="ordinal", categories=[1, 2, 3])
    o_text = phi(pred.astype(str), [str(b) for b in base], scale="ordinal", categories=["1", "2", "3"])
    assert o.value == pytest.approx(o_text.value, rel=1e-15)


@pytest.mark.parametrize("make", [
    lambda a: a,
    lambda a: a.tolist(),
    lambda a: pd.DataFrame(a),
    lambda a: pd.DataFrame(a).astype("string"),
    lambda a: pd.DataFrame(a).astype("category"),
    lambda a: pd.DataFrame(a, dtype=object).where(pd.DataFrame(a) != "c", None).fillna("c"),
])
def test_categorical_input_types_agree(make):
    rng = np.random.default_rng(8)
    a = rng.choice(["a", "b", "c"], size=(6, 5))
    ref = phi(a, ["a", "b", "c", "c"])
    res = phi(make(a), pd.Series(["a", "b", "c", "c"]))
    assert res.value == pytest.approx(ref.value, rel=1e-15)
    assert res.scale == "categorical"


def test_nullable_and_pd_na_missing_values():
    df = pd.DataFrame({"a": [1.5, None, 2.0], "b": [1.0, 2.0, 2.5], "c": [1.25, 2.5, pd.NA],
                       "d": [1.0, 2.25, 2.0], "e": [1.75, 2.0, 2.0]}).astype("Float64")
    expected = np.array([[1.5, np.nan, 2.0], [1.0, 2.0, 2.5], [1.25, 2.5, np.nan], [1.0, 2.25, 2.0],
                         [1.75, 2.0, 2.0]]).T
    with pytest.warns(PredstabDataWarning, match="missing"):
        res = phi(df, pd.array([1.0, 2.0, None, 4.0], dtype="Float64"))
    ref = _quiet(phi, expected, [1.0, 2.0, 4.0])
    assert res.value == pytest.approx(ref.value, rel=1e-15)
    text = pd.DataFrame([["x", pd.NA, "y", "x", "x"], ["y", "y", "y", None, "y"]], dtype="string")
    res = _quiet(phi, text, ["x", "y"])
    assert res.per_object_count.tolist() == [4, 4]
    boolean = pd.DataFrame([[True, pd.NA, False, True, True]], dtype="boolean")
    assert _quiet(phi, boolean, [True, False]).per_object_count.tolist() == [4]


def test_pandas_arrays_as_baseline():
    dtype = pd.CategoricalDtype(["lo", "mid", "hi"], ordered=True)
    pred = [["lo", "mid", "mid", "hi", "mid"]]
    res = psi(pred, pd.Categorical(["lo", "mid", "hi", "hi"], dtype=dtype))
    assert res.scale == "ordinal" and res.categories == ("lo", "mid", "hi")
    ref = psi(pred, ["lo", "mid", "hi", "hi"], categories=["lo", "mid", "hi"])
    assert res.value == ref.value
    assert psi(pred, pd.Index(["lo", "mid", "hi", "hi"])).value == psi(pred, ["lo", "mid", "hi", "hi"]).value


def test_pooled_matrix_baseline_equals_vector():
    rng = np.random.default_rng(9)
    pred, space = rng.normal(size=(5, 6)), rng.normal(size=(20, 6))
    assert psi(pred, space).expected == psi(pred, space.ravel(order="F")).expected


@pytest.mark.parametrize("dtype", [np.int8, np.int64, np.uint8, np.uint64, float])
def test_integer_codes_of_any_dtype(dtype):
    rng = np.random.default_rng(13)
    labels = np.array([3, 7, 250]) if dtype in (np.uint8, np.uint64) else np.array([-5, 0, 7])
    codes = rng.integers(0, 3, size=(30, 6))
    ref = phi(np.array(["a", "b", "c"])[codes], ["a", "b", "c", "c"], scale="categorical")
    res = phi(labels[codes].astype(dtype), labels[[0, 1, 2, 2]].astype(dtype), scale="categorical")
    assert res.value == pytest.approx(ref.value, rel=1e-15)
    ref_o = phi(np.array(["a", "b", "c"])[codes], ["a", "b", "c", "c"], categories=["a", "b", "c"])
    res_o = phi(labels[codes].astype(dtype), labels[[0, 1, 2, 2]].astype(dtype), categories=labels.tolist())
    assert res_o.value == pytest.approx(ref_o.value, rel=1e-15)


def test_numeric_categories_match_text_like_r():
    # APS turns numbers into text on the categorical scale: 1 and 1.0 are the same class
    res = phi(np.array([[1, 1, 2, 2, 1]]), [1.0, 2.0, 3.0], scale="categorical")
    assert res.categories == (1.0, 2.0, 3.0)


# ----------------------------------------------------------------------------- errors


@pytest.mark.parametrize("kwargs, match", [
    (dict(predictions=[[1.0], [2.0]]), "`predictions` must contain predictions from at least two"),
    (dict(predictions=np.empty((0, 5))), "`predictions` must contain at least one object"),
    (dict(predictions=[1.0, 2.0, 3.0]), "`predictions` must be a 2-D matrix"),
    (dict(baseline=[1.0]), "`training_observations`\\) must contain at least two elements"),
    (dict(baseline=[1.0, np.nan]), "must contain at least two elements"),
    (dict(baseline=["a", "b"]), "Type mismatch .* is numeric, `training_observations` is character"),
    (dict(scale="interval"), "`scale` must be one of"),
    (dict(scale="Metric"), "`scale` must be one of"),
    (dict(scale=["metric"]), "`scale` must be one of"),
    (dict(baseline=np.ones((2, 2, 2))), "`training_observations` must be a vector or"),
])
def test_phi_input_errors(kwargs, match):
    args = dict(predictions=[[1.0, 2.0, 3.0, 4.0, 5.0]], baseline=[1.0, 2.0, 3.0], scale=None)
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        _quiet(phi, args["predictions"], args["baseline"], scale=args["scale"])


def test_categorical_and_ordinal_errors():
    with pytest.raises(ValueError, match="Some prediction values do not occur in the training data.*'z'"):
        phi([["a", "z", "a", "a", "a"]], ["a", "b"])
    with pytest.raises(ValueError, match=r"Some values do not occur in 'categories'.*\['c'\]"):
        phi([["a", "b", "a", "a", "a"]], ["a", "b", "c"], categories=["a", "b"])
    with pytest.raises(ValueError, match="requires setting `categories`"):
        phi([["a", "b", "a", "a", "a"]], ["a", "b"], scale="ordinal")
    with pytest.raises(ValueError, match="doesn't match the data type which is 'character'"):
        phi([["a", "b", "a", "a", "a"]], ["a", "b"], scale="metric")
    with pytest.raises(ValueError, match="`categories` orders the categories of the ordinal scale"):
        phi([["a", "b", "a", "a", "a"]], ["a", "b"], scale="categorical", categories=["a", "b"])
    with pytest.raises(ValueError, match="`categories` must not repeat"):
        phi([["a", "b", "a", "a", "a"]], ["a", "b"], categories=["a", "b", "a"])
    with pytest.raises(ValueError, match="`prediction_space`"):
        psi([["a", "b", "a", "a", "a"]], ["a"])
    with pytest.raises(TypeError, match="`predictions` must hold numbers, booleans or text"):
        phi(np.array([[1, "a", 2.0, 3, 4]], dtype=object), [1.0, 2.0])


def test_calculate_functions_follow_aps_defaults():
    pred = [[1.0, 1.2, 0.9, 1.1, 1.0], [2.0, 2.1, 2.2, 2.0, 1.9]]
    assert calculate_phi(pred, [0.5, 1.5, 2.5]).scale == "metric"  # APS default scale
    assert calculate_psi(pred, [0.5, 1.5, 2.5]).kind == "psi"
    # APS ignores ordinal_levels on the other scales
    assert calculate_phi(pred, [0.5, 1.5, 2.5], "metric", ["x"]).categories is None
    with pytest.raises(ValueError, match="`prediction_matrix` must contain predictions from at least two"):
        calculate_phi([[1.0], [2.0]], [1.0, 2.0])


# ----------------------------------------------------------------------------- result object


def test_result_fields_frames_and_str():
    rng = np.random.default_rng(10)
    pred = pd.DataFrame(rng.normal(size=(6, 5)) * np.arange(1, 7)[:, None],
                        index=[f"obj{i}" for i in range(6)])
    res = phi(pred, rng.normal(size=40) * 3)
    assert isinstance(res, StabilityResult)
    assert (res.kind, res.scale, res.n_objects, res.n_replicates) == ("phi", "metric", 6, 5)
    frame = res.to_frame()
    assert frame.loc[0, "value"] == res.value and list(frame.columns)[:2] == ["kind", "scale"]
    per = res.per_object_frame()
    assert per.index[0] == "obj5"  # the noisiest object is the least stable
    assert per["stability"].is_monotonic_increasing
    assert per.loc["obj0", "n_predictions"] == 5
    assert list(res.per_object_frame(sort=False).index) == list(pred.index)
    text = str(res).split("\n")
    assert text[1] == "Data-based prediction stability (phi) " and text[2] == "-" * 37
    assert text[3] == f"Prediction stability: {res.value:6.5g} "
    with pytest.raises(TypeError, match="`sort`"):
        res.per_object_frame(sort="yes")
    with pytest.raises(AttributeError):
        res.value = 1.0  # frozen


def test_confidence_interval_over_objects():
    rng = np.random.default_rng(11)
    pred = rng.normal(size=(200, 10)) + rng.normal(size=(200, 1)) * 5
    res = phi(pred, rng.normal(size=100) * 5)
    ci = res.bootstrap_interval(random_state=0, n_resamples=500)
    assert ci.low < res.value < ci.high
    assert ci == res.bootstrap_interval(random_state=0, n_resamples=500)  # reproducible
    wider = res.bootstrap_interval(0.99, random_state=0, n_resamples=500)
    assert wider.low <= ci.low and wider.high >= ci.high


@pytest.mark.parametrize("scale", ["metric", "categorical", "ordinal"])
def test_confidence_interval_single_object_resamples_repetitions(scale):
    rng = np.random.default_rng(12)
    pred, base, levels = _random_case(rng, scale, n=1, r=40)
    res = phi(pred, base, scale=scale, categories=levels)
    ci = res.bootstrap_interval(random_state=1, n_resamples=300)
    assert ci.low <= ci.high
    assert ci.low - 0.5 < res.value < ci.high + 0.5


def test_confidence_interval_errors_and_undefined():
    res = phi([[1.0, 2.0, 3.0, 4.0, 5.0], [1.0, 2.0, 2.0, 2.0, 5.0]], [0.0, 4.0, 9.0])
    for kwargs, match in [(dict(confidence_level=1.5), "`confidence_level`"),
                          (dict(n_resamples=0), "`n_resamples`"),
                          (dict(method="bcx"), "`method`"), (dict(by="rows"), "`by`"),
                          (dict(by="replicates"), "`by`='replicates'")]:
        with pytest.raises(ValueError, match=match):
            res.bootstrap_interval(**kwargs)
    undefined = _quiet(phi, [[1.0, 2.0, 3.0, 4.0, 5.0]], [2.0, 2.0])
    with pytest.warns(PredstabUndefinedWarning):
        ci = undefined.bootstrap_interval(random_state=0)
    assert math.isnan(ci.low) and math.isnan(ci.high)


def test_validation_aps_module_runs(capsys, monkeypatch):
    import runpy
    import sys

    monkeypatch.setattr(sys, "argv", ["validation.aps", "--failures-only"])
    with pytest.raises(SystemExit) as exit_info:
        runpy.run_module("validation.aps", run_name="__main__", alter_sys=False)
    assert exit_info.value.code == 0
    assert " 0 failed" in capsys.readouterr().out


def test_public_api_exports():
    for name in ("phi", "psi", "calculate_phi", "calculate_psi"):
        assert getattr(predstab, name).__module__ == "predstab.stability._stability"
    assert predstab.StabilityResult.__module__ == "predstab.stability._result"
