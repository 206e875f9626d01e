"""What phi and psi read: the scale inferred or given, the ordered categories, every input type
(pandas, nullable dtypes, Categoricals, integer codes of any dtype, numbers against text),
missing values and dropped objects, and the errors -- each naming the entry point's own
argument (``categories`` for phi / psi, APS's ``ordinal_levels`` for calculate_*).
"""

import math

import numpy as np
import pandas as pd
import pytest

from predstab import (
    PredstabDataWarning,
    calculate_phi,
    calculate_psi,
    phi,
    psi,
)
from tests.stability._phi_psi import (
    _quiet,
    ordinal_reference,
    pair_disagreement,
    quiet,
)


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


def test_integers_need_a_scale_and_the_message_says_which_arguments():
    with pytest.raises(ValueError, match=r"`scale` is needed: `predictions` holds integers.*"
                                         r"scale='categorical' or scale='ordinal' \(with `categories`\)"):
        phi(np.array([[1, 2, 1, 1, 2]]), np.array([1, 2]))


def test_scale_messages_in_full():
    text = np.array([["a", "b", "a", "a", "b"]], dtype=object)
    two = np.array(["a", "b"], dtype=object)
    numbers = np.array([[1.0, 2.0, 1.0, 1.0, 2.0]])
    with pytest.raises(ValueError, match=r"use scale='categorical' or scale='ordinal' for class labels\.$"):
        phi(text, two, scale="metric")
    # no prediction at all: the baseline's type decides that text cannot be metric
    metric_on_text = r"'scale' = 'metric' doesn't match the data type which is 'character'"
    with pytest.raises(ValueError, match=metric_on_text):
        phi(np.full((1, 5), None, dtype=object), two, scale="metric")
    needs_levels = (r"requires setting `categories` to a vector containing the levels in the correct order, "
                    r"e\.g\. categories=\['low', 'mid', 'high'\]\.$")
    with pytest.raises(ValueError, match=needs_levels):
        phi(text, two, scale="ordinal")
    for scale in ("metric", "categorical"):
        with pytest.raises(ValueError,
                           match=rf"it cannot be used with scale='{scale}'\. Pass scale='ordinal'"):
            phi(numbers, np.array([1.0, 2.0]), scale=scale, categories=[1.0, 2.0])
    mismatch = (r"^Type mismatch between the prediction matrix and the training data: "
                r"`predictions` is numeric, `prediction_space` is character\.$")
    with pytest.raises(ValueError, match=mismatch):
        psi(numbers, two)
    with pytest.raises(TypeError, match=r"^`prediction_space` must hold numbers, booleans or text of one"):
        psi(numbers, np.array(["a", 1, 2.5], dtype=object))


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


def test_unordered_categoricals_are_read_as_classes():
    cats = pd.Categorical(["x", "y", "x", "y", "y", "x"], categories=["x", "y", "z"])
    columns = [["x", "y"], ["x", "y"], ["y", "y"], ["x", "z"], ["x", "y"]]
    pred = pd.DataFrame({f"r{j}": pd.Categorical(col, categories=["x", "y", "z"])
                         for j, col in enumerate(columns)})
    res = psi(pred, cats)
    assert res.scale == "categorical"
    rows = [["x", "x", "y", "x", "x"], ["y", "y", "y", "z", "y"]]
    expected_d_o = np.array([pair_disagreement(r) for r in rows])
    np.testing.assert_allclose(res.per_object_observed, expected_d_o, rtol=1e-12)
    assert res.expected == pytest.approx(0.5, rel=1e-12)
    assert res.absent_from_baseline == ("z",)
    ordered = pd.Categorical(["lo", "hi", "lo"], categories=["lo", "hi"], ordered=True)
    res_o = phi(pd.DataFrame({f"r{j}": pd.Categorical(["lo", "hi"], categories=["lo", "hi"], ordered=True)
                              for j in range(5)}), ordered)
    assert res_o.scale == "ordinal" and res_o.categories == ("lo", "hi")


def test_numbers_stored_as_categoricals_are_read_on_the_metric_scale():
    values = [[1.5, 2.5, 1.5, 4.0, 2.5], [4.0, 4.0, 1.5, np.nan, 4.0]]
    cats = [1.5, 2.5, 4.0]
    frame = pd.DataFrame({f"r{j}": pd.Categorical([row[j] for row in values], categories=cats)
                          for j in range(5)})
    base = pd.Series(pd.Categorical([1.5, 4.0, 2.5, 2.5, 1.5], categories=cats))
    with pytest.warns(PredstabDataWarning, match=r"`predictions` contains missing values \(NAs\): "
                                                 r"1 out of 10 values are missing \(10%\)"):
        res = phi(frame, base, scale="metric")
    rows = [np.array(r, dtype=float) for r in values]
    expected_d_o = [np.var(r[~np.isnan(r)], ddof=1) for r in rows]
    np.testing.assert_allclose(res.per_object_observed, expected_d_o, rtol=1e-12)
    assert res.expected == pytest.approx(np.var([1.5, 4.0, 2.5, 2.5, 1.5], ddof=1), rel=1e-12)
    assert res.per_object_count.tolist() == [5, 4]


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


def test_a_baseline_matrix_is_pooled_and_its_missing_values_dropped():
    rng = np.random.default_rng(9)
    pred = rng.normal(size=(6, 5))
    base = rng.normal(size=(3, 2))
    pooled = phi(pred, base.ravel())
    assert phi(pred, base) == pooled
    gap = base.copy()
    gap[1, 0] = np.nan
    with pytest.warns(PredstabDataWarning, match=r"The training data \(`training_observations`\) contains "
                                                 r"missing values \(NAs\): 1 out of 6 values are missing "
                                                 r"\(16.67%\); they are dropped\."):
        res = phi(pred, gap)
    assert res.expected == pytest.approx(np.var(np.delete(base.ravel(), 2), ddof=1), rel=1e-12)
    cats = pd.Series(pd.Categorical(["a", None, "b", "b", "a", "b"]))
    with pytest.warns(PredstabDataWarning, match=r"`prediction_space`\) contains missing values \(NAs\): "
                                                 r"1 out of 6"):
        res_c = psi(np.array([["a", "b", "b", "b", "a"]], dtype=object), cats)
    assert res_c.expected == pytest.approx(1 - (0.4 ** 2 + 0.6 ** 2), rel=1e-12)
    with pytest.raises(ValueError, match=r"^The training data \(`training_observations`\) must contain at "
                                         r"least two elements \(non-missing\); got 1\.$"):
        phi(pred, 3.0)


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


def test_levels_as_index_and_numpy_scalars_come_back_as_python_values():
    pred = np.array([["lo", "mid", "hi", "mid", "mid"], ["hi", "hi", "hi", "mid", "hi"]], dtype=object)
    base = np.array(["lo", "lo", "mid", "hi", "hi", "mid"], dtype=object)
    as_list = phi(pred, base, scale="ordinal", categories=["lo", "mid", "hi"])
    as_index = phi(pred, base, scale="ordinal", categories=pd.Index(["lo", "mid", "hi"]))
    assert as_index.value == as_list.value and as_index.categories == ("lo", "mid", "hi")
    d_o, d_e = ordinal_reference(pred.tolist(), list(base), ["lo", "mid", "hi"])
    assert as_list.value == pytest.approx(1 - d_o.mean() / d_e, rel=1e-12)
    numbers = phi(np.array([[1, 2, 3, 2, 2]]), np.array([1, 2, 3, 3]), scale="ordinal",
                  categories=np.array([1, 2, 3]))
    assert numbers.categories == (1, 2, 3)
    assert all(type(v) is int for v in numbers.categories)


def test_one_ordinal_level_is_allowed_and_degenerate():
    with pytest.warns(Warning) as record:
        res = phi(np.array([["a"] * 5, ["a"] * 5]), np.array(["a", "a", "a"]), scale="ordinal",
                  categories=["a"])
    assert res.value == 1.0 and res.expected == 0.0
    assert any("identical" in str(w.message) for w in record)


@pytest.mark.parametrize("levels, message", [
    ("abc", "`categories` must be an array-like or None; got 'abc'"),
    ([["a", "b"]], "`categories` must be a sequence of levels in their order"),
    ([], "`categories` must list at least one level; got an empty sequence"),
    (["a", None], "`categories` must not contain missing values"),
    (["a", float("nan")], "`categories` must not contain missing values"),
    (["a", pd.NA], "`categories` must not contain missing values"),
    (["a", "b", "a"], "`categories` must not repeat a level"),
])
def test_bad_levels_are_named(levels, message):
    pred = np.array([["a", "b", "a", "a", "b"]], dtype=object)
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace("[", r"\[")):
        phi(pred, np.array(["a", "b"], dtype=object), scale="ordinal", categories=levels)


def test_psi_ordinal_prediction_of_a_level_absent_from_the_space():
    levels = ["lo", "mid", "hi"]
    space = np.array(["mid", "hi", "hi", "mid"], dtype=object)  # "lo" never predicted out of sample
    pred = np.array([["lo", "mid", "mid", "mid", "lo"], ["hi", "hi", "mid", "hi", "hi"]], dtype=object)
    res = psi(pred, space, scale="ordinal", categories=levels)
    d_o, d_e = ordinal_reference(pred.tolist(), list(space), levels)
    np.testing.assert_allclose(res.per_object_observed, d_o, rtol=1e-12)
    assert res.expected == pytest.approx(d_e, rel=1e-12)
    assert res.categories == ("lo", "mid", "hi")
    numeric = psi(np.array([[1, 2, 2, 2, 1], [3, 3, 2, 3, 3]]), np.array([2, 3, 3, 2]), scale="ordinal",
                  categories=[1, 2, 3])
    assert numeric.value == pytest.approx(res.value, rel=1e-12)


def test_psi_ordinal_values_outside_the_levels_are_listed_five_at_most():
    pred = np.array([["a", "b", "c", "d", "e", "f", "g"]], dtype=object)
    with pytest.raises(ValueError) as info:
        psi(pred, np.array(["a", "a", "b"], dtype=object), scale="ordinal", categories=["a", "b"])
    message = str(info.value)
    assert "`predictions` contains ['c', 'd', 'e', 'f', 'g'] but the levels are ['a', 'b']" in message
    six = np.array([["a", "b", "c", "d", "e", "f", "g", "h"]], dtype=object)
    with pytest.raises(ValueError, match=r"contains \['c', 'd', 'e', 'f', 'g'\] \.\.\. but"):
        psi(six, np.array(["a", "a", "b"], dtype=object), scale="ordinal", categories=["a", "b"])


def test_psi_categorical_absent_numbers_become_python_levels():
    res = psi(np.array([[0, 1, 2, 2, 0], [2, 2, 2, 1, 2]]), np.array([0, 1, 1, 0]), scale="categorical")
    assert res.categories == (0, 1, 2) and all(type(v) is int for v in res.categories)
    assert res.absent_from_baseline == (2,)
    np.testing.assert_allclose(res.per_object_observed,
                               [pair_disagreement([0, 1, 2, 2, 0]), pair_disagreement([2, 2, 2, 1, 2])])
    assert res.expected == 0.5


def test_values_missing_from_the_baseline_or_the_levels_are_listed():
    base = np.array(["a", "b"], dtype=object)
    pred = np.array([list("abcdefgh")], dtype=object)
    with pytest.raises(ValueError, match=r"^Some prediction values do not occur in the training data: "
                                         r"`predictions` contains \['c', 'd', 'e', 'f', 'g'\] \.\.\., "
                                         r"absent from `training_observations`\.$"):
        phi(pred, base, scale="categorical")
    with pytest.raises(ValueError, match=r"contains \['c', 'd'\], absent"):
        phi(np.array([list("abcd")], dtype=object), base, scale="categorical")
    with pytest.raises(ValueError, match=r"^Some values do not occur in 'categories' \(`categories`\): the "
                                         r"training data contain \['c', 'd', 'e', 'f', 'g'\] \.\.\. but "
                                         r"the levels are \['a', 'b'\]\.$"):
        phi(np.array([["a", "b", "a", "b", "a"]], dtype=object), np.array(list("abcdefgh"), dtype=object),
            scale="ordinal", categories=["a", "b"])
    with pytest.raises(ValueError, match=r"the training data contain \['z'\] but the levels"):
        phi(np.array([["a", "b", "a", "b", "a"]], dtype=object), np.array(list("abz"), dtype=object),
            scale="ordinal", categories=["a", "b"])


def test_all_missing_predictions_take_the_baselines_type():
    # no prediction at all: the scale is read from the baseline (text: classes), and the
    # error says that no object is left, not that a scale is needed
    pred = np.full((2, 5), None, dtype=object)
    with pytest.raises(ValueError, match="no object with at least two non-missing predictions"):
        quiet(phi, pred, np.array(["a", "b", "a"], dtype=object))
    with pytest.raises(ValueError, match="no object with at least two non-missing predictions"):
        quiet(phi, np.full((2, 5), np.nan), np.array([0.5, 1.5, 2.0]))


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
    with pytest.raises(ValueError) as info:
        _quiet(phi, [[1.0, np.nan], [np.nan, np.nan]], [1.0, 2.0])
    assert str(info.value) == ("`predictions` has no object with at least two non-missing predictions; "
                               "stability cannot be computed.")


def test_many_dropped_objects_are_listed_ten_at_most():
    pred = np.full((14, 5), np.nan)
    pred[12:] = [[1.0, 2.0, 3.0, 2.0, 1.0], [0.0, 2.0, 1.0, 2.0, 1.0]]
    with pytest.warns(PredstabDataWarning) as record:
        res = phi(pred, np.array([0.0, 2.0, 4.0]))
    text = " | ".join(str(w.message) for w in record)
    assert ("12 row(s) of `predictions` are excluded from the stability calculation as they have fewer "
            "than two non-missing values (0-based rows 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 ...)") in text
    d_o = [np.var(pred[12], ddof=1), np.var(pred[13], ddof=1)]
    assert res.observed == pytest.approx(np.mean(d_o), rel=1e-12)
    assert res.n_objects == 14 and res.n_replicates == 5


@pytest.mark.parametrize("n_dropped, suffix", [(10, ")"), (11, " ...)")])
def test_dropped_objects_ellipsis_starts_after_ten(n_dropped, suffix):
    pred = np.full((n_dropped + 2, 5), np.nan)
    pred[-2:] = [[1.0, 2.0, 3.0, 2.0, 1.0], [0.0, 2.0, 1.0, 2.0, 1.0]]
    with pytest.warns(PredstabDataWarning) as record:
        res = phi(pred, np.array([0.0, 2.0, 4.0]))
    rows = ", ".join(str(i) for i in range(10))
    assert any(f"(0-based rows {rows}{suffix}" in str(w.message) for w in record)
    assert res.absent_from_baseline == ()


def test_few_repetitions_warn():
    with pytest.warns(PredstabDataWarning, match="fewer than 5 repeated predictions"):
        phi([[1.0, 2.0], [3.0, 3.5]], [1.0, 5.0])


def test_infinite_values_are_refused_naming_the_argument():
    pred = np.array([[1.0, 2.0, np.inf, 1.5, 1.0], [1.0, 2.0, 3.0, 1.5, 1.0]])
    with pytest.raises(ValueError, match=r"^`predictions` must hold finite values on the metric scale; "
                                         r"got 1 infinite value\(s\)\.$"):
        phi(pred, np.array([0.0, 1.0, 2.0]))
    with pytest.raises(ValueError, match=r"^`prediction_space` must hold finite values on the metric scale; "
                                         r"got 2 infinite value\(s\)\.$"):
        psi(pred[1:], np.array([0.0, np.inf, 2.0, -np.inf]))


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


def test_prediction_matrix_shape_errors():
    with pytest.raises(ValueError, match=r"^`predictions` must contain at least one object \(row\); "
                                         r"got shape \(0, 5\)\.$"):
        phi(np.zeros((0, 5)), np.array([0.0, 1.0]))
    with pytest.raises(ValueError, match=r"^`predictions` must contain predictions from at least two "
                                         r"repetitions \(columns\); got shape \(3, 1\)\.$"):
        phi(np.zeros((3, 1)), np.array([0.0, 1.0]))


@pytest.mark.parametrize("fn, args, kwargs, names", [
    (phi, (), {}, ("predictions", "training_observations", "categories")),
    (psi, (), {}, ("predictions", "prediction_space", "categories")),
    (calculate_phi, (), {}, ("prediction_matrix", "training_observations", "ordinal_levels")),
    (calculate_psi, (), {}, ("prediction_matrix", "prediction_space", "ordinal_levels")),
])
def test_each_entry_point_names_its_own_arguments(fn, args, kwargs, names):
    pred_name, base_name, levels_name = names
    levels_kw = "categories" if fn in (phi, psi) else "ordinal_levels"
    good = np.array([[0.1, 0.2, 0.3, 0.2, 0.1]])
    with pytest.raises(ValueError, match=rf"^`{pred_name}` must be a 2-D matrix"):
        fn(good[0], np.array([0.0, 1.0]), scale="metric")
    with pytest.raises(ValueError, match=rf"^`{base_name}` must be a vector or a"):
        fn(good, np.zeros((2, 2, 2)), scale="metric")
    with pytest.raises(ValueError, match=rf"requires setting `{levels_name}`"):
        fn(np.array([["a"] * 5]), np.array(["a", "b"]), scale="ordinal")
    if fn in (phi, psi):  # APS's calculate_* ignore the levels on the other scales
        with pytest.raises(ValueError, match=rf"`{levels_name}` orders the categories"):
            fn(good, np.array([0.0, 1.0]), scale="metric", **{levels_kw: [1, 2]})
    else:
        ignored = fn(good, np.array([0.0, 1.0]), scale="metric", **{levels_kw: [1, 2]})
        assert ignored.value == pytest.approx(1 - np.var(good, ddof=1) / np.var([0.0, 1.0], ddof=1))
    with pytest.raises(ValueError, match=rf"The training data \(`{base_name}`\) must contain at least two"):
        fn(good, np.array([1.0]), scale="metric")


@pytest.mark.parametrize("func,name", [(phi, "predictions"), (calculate_phi, "prediction_matrix")])
def test_missing_class_predictions_warning_names_the_entry_points_argument(func, name):
    pred = np.array([["a", "b", None, "a", "a"], ["b", "b", "b", "a", "b"]], dtype=object)
    with pytest.warns(PredstabDataWarning) as record:
        res = func(pred, np.array(["a", "b", "b"], dtype=object), scale="categorical")
    message = (f"`{name}` contains missing values (NAs): 1 out of 10 values are missing (10%); "
               "they are dropped.")
    assert message in [str(w.message) for w in record]
    # the object keeps its four predictions a, b, a, a: 16 - (3^2 + 1^2) = 6 of 4 x 3 ordered pairs disagree
    assert res.per_object_observed[0] == pytest.approx(6 / 12, rel=1e-14)
