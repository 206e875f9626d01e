"""phi and psi: parity with APS 1.0.1, the definition and the conventions.

Reference numbers come from ``validation/r-reference/aps/expected/aps_cases.json``,
produced by ``validation/r-reference/aps/generate.R`` with APS 1.0.1 (R 4.2.2), e.g.
``APS::calculate_phi(prediction_matrix, training_observations, scale = "ordinal",
ordinal_levels = lv)``; the definition is written out in ``validation/aps/naive.py`` (every
pair of refits) and here (the share of disagreeing ordered pairs counted with
:class:`collections.Counter`, Krippendorff's ordinal distances from the level counts).
"""

import math
import warnings

import numpy as np
import pandas as pd
import pytest

from predstab import (
    PredstabDataWarning,
    PredstabDegenerateWarning,
    PredstabUndefinedWarning,
    calculate_phi,
    calculate_psi,
    phi,
    psi,
)
from tests.stability._phi_psi import (
    BY_ID,
    ERRORS,
    VALUED,
    _close,
    _quiet,
    _quiet_keep,
    _random_case,
    pair_disagreement,
)
from validation.aps import case_inputs, run_case
from validation.aps.naive import naive_stability


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


def test_calculate_functions_follow_aps_defaults():
    pred = [[1.0, 1.2, 0.9, 1.1, 1.0], [2.0, 2.1, 2.2, 2.0, 1.9]]
    assert calculate_phi(pred, [0.5, 1.5, 2.5]).scale == "metric"  # APS default scale
    assert calculate_psi(pred, [0.5, 1.5, 2.5]).kind == "psi"
    # APS ignores ordinal_levels on the other scales
    assert calculate_phi(pred, [0.5, 1.5, 2.5], "metric", ["x"]).categories is None
    with pytest.raises(ValueError, match="`prediction_matrix` must contain predictions from at least two"):
        calculate_phi([[1.0], [2.0]], [1.0, 2.0])


def test_validation_aps_module_runs(capsys, monkeypatch):
    import runpy
    import sys

    monkeypatch.setattr(sys, "argv", ["validation.aps", "--failures-only"])
    with pytest.raises(SystemExit) as exit_info:
        runpy.run_module("validation.aps", run_name="__main__", alter_sys=False)
    assert exit_info.value.code == 0
    assert " 0 failed" in capsys.readouterr().out


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


def test_constant_rows_are_exactly_stable_despite_rounding():
    # the mean of seven 1000000.1 is not 1000000.1 in floating point (a naive variance is
    # ~1e-20); 0.1 x 6 likewise; with and without a missing value
    pred = np.array([[1000000.1] * 7, [0.1] * 6 + [np.nan], [1000000.1] * 6 + [np.nan],
                     [1.0, 2, 3, 4, 5, 6, 7]])
    with pytest.warns(PredstabDataWarning, match="missing"):
        res = phi(pred, np.array([0.0, 10.0, 20.0]))
    assert res.per_object_observed[:3].tolist() == [0.0, 0.0, 0.0]
    assert res.per_object[:3].tolist() == [1.0, 1.0, 1.0]
    assert res.per_object_observed[3] == pytest.approx(np.var(np.arange(1, 8), ddof=1), rel=1e-14)


def test_zero_expected_instability_conventions():
    # D_e = 0 and D_o = 0 -> 1 (the model may have collapsed); D_e = 0 and D_o > 0 -> NaN
    with pytest.warns(PredstabDegenerateWarning, match="collapsed"):
        assert _quiet_keep(PredstabDegenerateWarning, phi, [["a"] * 5], ["a", "a"]).value == 1.0
    with pytest.warns(PredstabUndefinedWarning, match="undefined"):
        res = phi([[1.0, 2.0, 3.0, 4.0, 5.0]], [2.0, 2.0, 2.0])
    assert math.isnan(res.value)
    assert math.isnan(res.per_object[0])
    # the messages name the measure and its disagreement ("instability", as APS says)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        phi([["a"] * 5], ["a", "a"])
        phi([[1.0, 2.0, 3.0, 4.0, 5.0]], [2.0, 2.0, 2.0])
    messages = [str(w.message) for w in caught if w.category in (PredstabDegenerateWarning,
                                                                   PredstabUndefinedWarning)]
    assert messages == [
        "Both expected and observed instability are zero; prediction stability is set to 1 (perfect "
        "agreement). This may indicate that the model collapsed to a single value.",
        "Expected instability is zero but observed is not; prediction stability is undefined and set "
        "to nan."]


@pytest.mark.parametrize("exponent", [130, -130, 600, -600])
def test_rescaled_metric_data_report_their_parts_in_the_datas_units(exponent):
    # beyond ~1e30 (2^100) in magnitude the data are multiplied by an exact power of four and
    # D_o, D_e, D_o,i scaled back: scaling every value by 2^e scales each variance by exactly
    # 2^(2e), and phi itself is unchanged
    pred = np.array([[1.0, 2.0, 4.0, 3.0, 5.0], [2.0, 2.0, 2.5, 3.0, 1.0], [0.0, 1.0, 0.0, 1.0, 0.5]])
    base = np.array([0.0, 3.0, 6.0, 1.0])
    ref = phi(pred, base)
    factor = 2.0 ** exponent
    got = _quiet(phi, pred * factor, base * factor)
    assert got.value == ref.value
    np.testing.assert_array_equal(got.per_object, ref.per_object)
    with np.errstate(over="ignore", under="ignore"):
        scale = np.ldexp(1.0, 2 * exponent)  # inf / 0 beyond the float range, as the docstring says
        assert got.expected == ref.expected * scale
        assert got.observed == ref.observed * scale
        np.testing.assert_array_equal(got.per_object_observed, ref.per_object_observed * scale)


def test_warning_cases_warn():
    # every APS case with a warning warns in predstab too, with the same topics
    from validation.aps import aps_topics, predstab_topics

    for case in VALUED:
        _, _, caught = run_case(case)
        assert aps_topics(case["warnings"]) == predstab_topics(caught), case["id"]


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


def test_no_numpy_warning_reaches_the_user():
    # 0/0 for objects with fewer than two predictions, beta quantiles at counts 0 and R,
    # inf - inf before an infinite value is refused: numpy's RuntimeWarnings stay inside
    import warnings

    metric = np.array([[1.0, np.nan, np.nan, np.nan, np.nan], [1.0, 2.0, 3.0, 2.0, np.nan],
                       [2.0, 2.0, 2.0, 2.0, 2.0]])
    classes = np.array([["a", None, None, None, None], ["a", "a", "a", "a", "a"], ["a", "b", "c", "b", "a"]],
                       dtype=object)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        warnings.simplefilter("ignore", PredstabDataWarning)
        res_m = phi(metric, np.array([0.0, 1.0, 3.0]))
        res_c = phi(classes, np.array(["a", "b", "c", "c"], dtype=object), scale="categorical")
        res_2 = phi(classes[:2], np.array(["a", "b"], dtype=object), scale="categorical")
        res_o = phi(classes, np.array(["a", "b", "c", "c"], dtype=object), scale="ordinal",
                    categories=["a", "b", "c"])
        with pytest.raises(ValueError, match="must hold finite values"):
            phi(np.array([[np.inf, 1.0, 2.0, 1.0, 1.0]]), np.array([0.0, 1.0]))
        with pytest.raises(ValueError, match="must hold finite values"):
            phi(np.array([[0.0, 1.0, 2.0, 1.0, 1.0]]), np.array([0.0, -np.inf, np.inf]))
    assert np.isnan(res_m.per_object_observed[0]) and np.isnan(res_c.per_object_observed[0])
    assert res_m.per_object_observed[1:].tolist() == [np.var([1.0, 2.0, 3.0, 2.0], ddof=1), 0.0]
    assert res_c.per_object_observed[1:].tolist() == [0.0, pair_disagreement(["a", "b", "c", "b", "a"])]
    assert res_2.per_object_high[1] == 1.0 and res_o.per_object_observed[1] == 0.0


def test_bonett_intervals_of_several_objects_equal_each_object_alone():
    # Bonett's per-object interval uses each object's own kurtosis estimate: with objects of
    # different shapes and refit counts measured together, each keeps the interval it has alone
    rng = np.random.default_rng(31)
    pred = np.vstack([rng.normal(size=12), rng.exponential(size=12), rng.standard_t(3, size=12),
                      rng.uniform(size=12), rng.normal(size=12) * 5])
    pred[3, :3] = np.nan  # nine refits: another group of counts
    base = rng.normal(size=40)
    together = _quiet(phi, pred, base, object_interval="bonett")
    for i in range(len(pred)):
        alone = _quiet(phi, pred[i:i + 1], base, object_interval="bonett")
        assert together.per_object_low[i] == pytest.approx(alone.per_object_low[0], rel=1e-12), i
        assert together.per_object_high[i] == pytest.approx(alone.per_object_high[0], rel=1e-12), i


def test_row_moments_against_numpy(monkeypatch):
    # the per-row count, sum of squared and of fourth-power deviations from the row mean that the
    # pooled kurtosis uses, with missing values, in blocks of two rows (the block size made small)
    import predstab.stability._object_intervals as oi

    monkeypatch.setattr(oi, "_BLOCK", 10)
    rng = np.random.default_rng(32)
    x = rng.normal(size=(7, 5)) * [[1.0], [2.0], [0.5], [3.0], [1.0], [1.0], [4.0]]
    x[2, 1] = x[5, [0, 3]] = np.nan
    got = oi._row_moments(x)
    for i, row in enumerate(x):
        r = row[~np.isnan(row)]
        d = r - r.mean()
        assert got[0, i] == r.size
        assert got[1, i] == pytest.approx(np.sum(d**2), rel=1e-13)
        assert got[2, i] == pytest.approx(np.sum(d**4), rel=1e-13)


def test_psi_categories_absent_from_the_space_are_python_values():
    # predicted classes the prediction space lacks join the categories with share 0 in D_e:
    # D_e = 1 - (0.5^2 + 0.5^2) = 0.5; each row has counts 3, 1, 1: D_o,i = (25 - 11) / 20 = 0.7
    res = _quiet(psi, np.array([[1, 2, 3, 3, 3], [1, 1, 1, 2, 4]]), np.array([1, 2, 2, 1]),
                 scale="categorical")
    assert res.value == pytest.approx(1 - 0.7 / 0.5, rel=1e-14)
    assert res.categories == (1, 2, 3, 4) and res.absent_from_baseline == (3, 4)
    assert all(type(c) is int for c in res.categories + res.absent_from_baseline)
    labels = _quiet(psi, np.array([["a", "b", "c", "c", "c"]]), np.array(["a", "b"]), scale="categorical")
    assert labels.categories == ("a", "b", "c") and all(type(c) is str for c in labels.categories)
