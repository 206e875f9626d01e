"""phi / psi pinned where mutmut's surviving mutants of ``_stability.py`` showed gaps (docs/mutation.md).

``StabilityResult.per_object_frame``'s layout: its column and index names, the row labels of a
DataFrame input, and the order -- least stable first, ties in input order (a stable sort: with
more than 16 tied objects numpy's default quicksort would reorder them).

The code paths the other stability tests do not reach, each value checked against an
independent computation written here: the share of disagreeing ordered pairs counted per
object with :class:`collections.Counter`, Krippendorff's ordinal distances from the level
counts, the variance of a list, Clopper-Pearson bounds from beta quantiles, scipy's SLSQP for
the least sum of squares over a box, scipy's bootstrap. The paths: many categories (the sparse
count table, the (N x K) @ (K x K) product of more than 16 ordinal levels), integer codes that do
not start at 0, objects whose every prediction is missing, categories absent from the baseline
(psi), pandas Categoricals, narrow class intervals, and the names each entry point gives in its
errors.
"""

from collections import Counter

import numpy as np
import pandas as pd
import pytest

from predstab import PredstabDataWarning, calculate_phi, calculate_psi, phi, psi
from tests._intervals import bonferroni_box, box_simplex_range


def predictions():
    # 40 objects x 5 refits of class predictions: most objects split 2:3, every 7th 3:2 in
    # another pattern, object 5 unanimous -- many exact ties
    p = np.tile(np.array([[0, 0, 1, 1, 1]]), (40, 1))
    p[::7] = [0, 1, 0, 1, 0]
    p[5] = [1, 1, 1, 1, 1]
    return p


def test_per_object_frame_layout_and_stable_order():
    p = predictions()
    y = np.array([0, 1] * 10)
    res = phi(p, y, scale="categorical")
    frame = res.per_object_frame()
    assert frame.columns.tolist() == ["stability", "ci_low", "ci_high", "observed_instability",
                                      "n_predictions"]
    assert frame.index.name == "object"
    order = np.argsort(res.per_object, kind="stable")
    assert frame.index.tolist() == order.tolist()
    assert frame["stability"].tolist() == res.per_object[order].tolist()
    assert frame["ci_high"].tolist() == np.asarray(res.per_object_high)[order].tolist()
    assert frame["observed_instability"].tolist() == np.asarray(res.per_object_observed)[order].tolist()
    assert frame["n_predictions"].tolist() == [5] * 40
    assert frame.index[-1] == 5  # the unanimous object is the most stable
    unsorted = res.per_object_frame(sort=False)
    assert unsorted.index.tolist() == list(range(40)) and unsorted.index.name == "object"


def test_per_object_frame_keeps_row_labels_and_puts_nan_last():
    p = predictions().astype(float)
    p[3, 1:] = np.nan  # one prediction left: the object is dropped (NaN stability)
    labels = [f"plot{i}" for i in range(40)]
    with pytest.warns(PredstabDataWarning, match=r"excluded .* \(0-based rows 3\)"):
        res = phi(pd.DataFrame(p, index=labels), np.array([0.0, 1.0] * 10))
    frame = res.per_object_frame()
    assert frame.index[-1] == "plot3" and np.isnan(frame["stability"].iloc[-1])
    kept = [i for i in np.argsort(res.per_object, kind="stable") if i != 3]
    assert frame.index[:-1].tolist() == [labels[i] for i in kept]
    assert res.per_object_frame(sort=False).index.tolist() == labels


# ----------------------------------------------------------------------------- references


def pair_disagreement(row):
    """Share of ordered pairs of a row's non-missing predictions that differ."""
    values = [v for v in row if v is not None and not (isinstance(v, float) and np.isnan(v))]
    r = len(values)
    if r < 2:
        return np.nan
    same = sum(n * n for n in Counter(values).values())
    return (r * r - same) / (r * (r - 1))


def gini(values):
    counts = np.array(list(Counter(values).values()), dtype=float)
    p = counts / counts.sum()
    return 1.0 - float(np.sum(p * p))


def ordinal_reference(pred, base, levels):
    """Krippendorff's ordinal D_o per object and D_e, pair by pair, from the level counts."""
    m = np.array([sum(1 for b in base if b == lev) for lev in levels], dtype=float)
    pos = {lev: float(m[: j].sum() + m[j] / 2.0) for j, lev in enumerate(levels)}
    d_o = []
    for row in pred:
        r = len(row)
        total = sum((pos[a] - pos[b]) ** 2 for i, a in enumerate(row) for j, b in enumerate(row) if i != j)
        d_o.append(total / (r * (r - 1)))
    n = len(base)
    d_e = sum((pos[a] - pos[b]) ** 2 for a in base for b in base) / (n * n)
    return np.array(d_o), d_e


def quiet(fn, *args, **kwargs):
    with pytest.warns(PredstabDataWarning):
        return fn(*args, **kwargs)


# ----------------------------------------------------------------------------- many categories


def test_many_text_classes_use_the_sparse_table_with_missing_rows():
    # 2,000 objects x 5 refits over 600 labels: more count cells than the dense limit (2**20)
    rng = np.random.default_rng(3)
    labels = np.array([f"c{j:03d}" for j in range(600)], dtype=object)
    pred = labels[rng.integers(0, 600, size=(2000, 5))].astype(object)
    pred[17, 2] = None
    pred[-1, :] = None  # the last object has no prediction at all: dropped
    base = list(labels) + list(labels[:100])
    with pytest.warns(PredstabDataWarning, match="missing"):
        res = phi(pred, np.array(base, dtype=object), scale="categorical")
    expected_rows = np.array([pair_disagreement(row) for row in pred])
    np.testing.assert_allclose(res.per_object_observed, expected_rows, rtol=1e-12, equal_nan=True)
    assert np.isnan(res.per_object_observed[-1])
    assert res.per_object_count[17] == 4 and res.per_object_count[-1] == 0
    assert res.per_object_count[:17].tolist() == [5] * 17
    assert res.expected == pytest.approx(gini(base), rel=1e-12)
    assert res.observed == pytest.approx(np.nanmean(expected_rows), rel=1e-12)
    assert res.value == pytest.approx(1 - np.nanmean(expected_rows) / gini(base), rel=1e-12)


def test_integer_codes_not_starting_at_zero_on_the_sparse_table():
    # 50,000 x 5 integers 1..20 are read as direct codes (offset 1) and counted sparsely
    rng = np.random.default_rng(4)
    pred = rng.integers(1, 21, size=(50_000, 5))
    base = np.tile(np.arange(1, 21), 3)
    res = phi(pred, base, scale="categorical")
    counts = np.stack([(pred == v).sum(axis=1) for v in range(1, 21)], axis=1)
    d_o = (25 - (counts ** 2).sum(axis=1)) / 20
    np.testing.assert_allclose(res.per_object_observed, d_o, rtol=1e-12)
    assert res.expected == pytest.approx(1 - 1 / 20, rel=1e-12)
    assert res.categories == tuple(range(1, 21))
    # the same data shifted to 0..19 give the same stability
    shifted = phi(pred - 1, base - 1, scale="categorical")
    assert shifted.value == pytest.approx(res.value, rel=1e-12)


def test_seventeen_ordinal_levels_take_the_matrix_product_path():
    rng = np.random.default_rng(5)
    levels = list(range(17))
    base = list(np.repeat(levels, 2)) + [3, 3, 8, 16]
    pred = rng.integers(0, 17, size=(30, 6))
    pred[0] = 4  # unanimous
    res = phi(pred, np.array(base), scale="ordinal", categories=levels)
    d_o, d_e = ordinal_reference(pred.tolist(), base, levels)
    np.testing.assert_allclose(res.per_object_observed, d_o, rtol=1e-12, atol=1e-12)
    assert res.expected == pytest.approx(d_e, rel=1e-12)
    assert res.value == pytest.approx(1 - d_o.mean() / d_e, rel=1e-12)
    # the same computation over 5 levels (pair loop) agrees with the reference too
    small = np.clip(pred, 0, 4)
    res5 = phi(small, np.clip(np.array(base), 0, 4), scale="ordinal", categories=levels[:5])
    d_o5, d_e5 = ordinal_reference(small.tolist(), list(np.clip(base, 0, 4)), levels[:5])
    np.testing.assert_allclose(res5.per_object_observed, d_o5, rtol=1e-12, atol=1e-12)
    assert res5.expected == pytest.approx(d_e5, rel=1e-12)


# ----------------------------------------------------------------------------- levels and scales


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


def test_integers_need_a_scale_and_the_message_says_which_arguments():
    with pytest.raises(ValueError, match=r"`scale` is needed: `predictions` holds integers.*"
                                         r"scale='categorical' or scale='ordinal' \(with `categories`\)"):
        phi(np.array([[1, 2, 1, 1, 2]]), np.array([1, 2]))


def test_all_missing_predictions_take_the_baselines_type():
    # no prediction at all: the scale is read from the baseline (text: classes), and the
    # error says that no object is left, not that a scale is needed
    pred = np.full((2, 5), None, dtype=object)
    with pytest.raises(ValueError, match="no object with at least two non-missing predictions"):
        quiet(phi, pred, np.array(["a", "b", "a"], dtype=object))
    with pytest.raises(ValueError, match="no object with at least two non-missing predictions"):
        quiet(phi, np.full((2, 5), np.nan), np.array([0.5, 1.5, 2.0]))


# ----------------------------------------------------------------------------- psi, absent classes


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
    with pytest.raises(ValueError, match=r"contains \['c', 'd', 'e', 'f', 'g'\] but"):
        psi(six, np.array(["a", "a", "b"], dtype=object), scale="ordinal", categories=["a", "b"])


def test_psi_categorical_absent_numbers_become_python_levels():
    res = psi(np.array([[0, 1, 2, 2, 0], [2, 2, 2, 1, 2]]), np.array([0, 1, 1, 0]), scale="categorical")
    assert res.categories == (0, 1, 2) and all(type(v) is int for v in res.categories)
    assert res.absent_from_baseline == (2,)
    np.testing.assert_allclose(res.per_object_observed,
                               [pair_disagreement([0, 1, 2, 2, 0]), pair_disagreement([2, 2, 2, 1, 2])])
    assert res.expected == 0.5


# ----------------------------------------------------------------------------- names in errors


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


# ----------------------------------------------------------------------------- bootstrap_interval's `by`


def test_bootstrap_by_auto_resamples_objects_from_two_objects_on():
    rng = np.random.default_rng(6)
    two = rng.normal(size=(2, 8)) + np.array([[0.0], [3.0]])
    res = phi(two, rng.normal(size=50) * 2)
    auto = res.bootstrap_interval(n_resamples=200, random_state=3)
    objects = res.bootstrap_interval(n_resamples=200, by="objects", random_state=3)
    assert auto == objects
    one = phi(two[:1], rng.normal(size=50) * 2)
    auto1 = one.bootstrap_interval(n_resamples=200, random_state=3)
    assert auto1 == one.bootstrap_interval(n_resamples=200, by="replicates", random_state=3)
    with pytest.raises(ValueError,
                       match=r"`by`='objects' needs at least two objects with predictions; got 1"):
        one.bootstrap_interval(by="objects")
    with pytest.raises(ValueError, match=r"`by`='replicates' resamples the repetitions of a single object; "
                                         r"the result has 2 objects \(2 with at least two predictions\)\. "
                                         r"Use by='objects'\.$"):
        res.bootstrap_interval(by="replicates")
    # one of two objects left: neither objects nor its repetitions can be resampled here
    with pytest.warns(PredstabDataWarning):
        left = phi(np.vstack([two[:1], np.full(8, np.nan)]), rng.normal(size=50) * 2)
    with pytest.raises(ValueError, match=r"has 2 objects \(1 with at least two predictions\)\. With one "
                                         r"object left, pass that object's row alone"):
        left.bootstrap_interval()


# ----------------------------------------------------------------------------- metric paths


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


def test_infinite_values_are_refused_naming_the_argument():
    pred = np.array([[1.0, 2.0, np.inf, 1.5, 1.0], [1.0, 2.0, 3.0, 1.5, 1.0]])
    with pytest.raises(ValueError, match=r"^`predictions` must hold finite values on the metric scale; "
                                         r"got 1 infinite value\(s\)\.$"):
        phi(pred, np.array([0.0, 1.0, 2.0]))
    with pytest.raises(ValueError, match=r"^`prediction_space` must hold finite values on the metric scale; "
                                         r"got 2 infinite value\(s\)\.$"):
        psi(pred[1:], np.array([0.0, np.inf, 2.0, -np.inf]))


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


def test_objects_with_exactly_two_predictions_have_a_chi_square_interval_with_one_df():
    from scipy import stats

    pred = np.array([[1.0, 3.0, np.nan, np.nan, np.nan], [1.0, np.nan, np.nan, np.nan, np.nan],
                     [0.5, 1.0, 2.0, 1.0, 0.0]])
    base = np.array([0.0, 2.0, 4.0, 1.0, 3.0])
    with pytest.warns(PredstabDataWarning):
        res = phi(pred, base)
    d_e = np.var(base, ddof=1)
    s2 = np.var([1.0, 3.0], ddof=1)
    assert res.per_object_observed[0] == s2 and res.per_object_count[0] == 2
    assert np.isnan(res.per_object_observed[1])
    low = 1 - (1 * s2 / stats.chi2.ppf(0.025, 1)) / d_e
    high = 1 - (1 * s2 / stats.chi2.ppf(0.975, 1)) / d_e
    assert res.per_object_low[0] == pytest.approx(low, rel=1e-12)
    assert res.per_object_high[0] == pytest.approx(high, rel=1e-12)
    s2_5 = np.var(pred[2], ddof=1)
    assert res.per_object_low[2] == pytest.approx(1 - (4 * s2_5 / stats.chi2.ppf(0.025, 4)) / d_e, rel=1e-12)


# ----------------------------------------------------------------------------- class intervals, long rows


def _box_min_sum_of_squares(low, high):
    """min sum p^2 on {low <= p <= high, sum p = 1} by scipy's SLSQP (an independent method)."""
    from scipy.optimize import minimize

    x0 = np.clip(np.full(len(low), 1 / len(low)), low, high)
    x0 = x0 / x0.sum()
    out = minimize(lambda p: p @ p, x0, jac=lambda p: 2 * p, bounds=list(zip(low, high, strict=True)),
                   constraints=[{"type": "eq", "fun": lambda p: p.sum() - 1,
                                 "jac": lambda p: np.ones_like(p)}],
                   method="SLSQP", options={"ftol": 1e-15, "maxiter": 500})
    return out.fun


def test_many_repetitions_class_bounds_below_the_cap():
    # 300 refits split 240 / 45 / 15: the simultaneous Clopper-Pearson box is narrow, so the
    # upper disagreement is the box's least sum of squares, well below the cap 2/3
    from scipy import stats

    counts = np.array([240, 45, 15])
    row = np.repeat(["a", "b", "c"], counts)
    res = phi(row[None, :], np.array(["a", "b", "c", "a"]), scale="categorical")
    alpha = 0.05 / 3
    lo = stats.beta.ppf(alpha / 2, counts, 300 - counts + 1)
    hi = stats.beta.ppf(1 - alpha / 2, counts + 1, 300 - counts)
    theta_high = 1 - _box_min_sum_of_squares(lo, hi)
    theta_low, _ = box_simplex_range(lo, hi, np.ones((3, 3)) - np.eye(3))  # on the simplex
    assert theta_high < 0.6
    d_e = 1 - (0.5 ** 2 + 0.25 ** 2 + 0.25 ** 2)
    assert res.per_object_low[0] == pytest.approx(1 - theta_high / d_e, abs=1e-7)
    assert res.per_object_high[0] == pytest.approx(1 - theta_low / d_e, rel=1e-9)
    assert res.confidence_interval == (res.per_object_low[0], res.per_object_high[0])


def test_categoricals_over_several_blocks_of_rows():
    # 60,000 objects x 5 refits as a DataFrame of Categoricals: counted in several blocks
    rng = np.random.default_rng(7)
    codes = rng.integers(0, 3, size=(60_000, 5))
    labels = np.array(["x", "y", "z"], dtype=object)
    frame = pd.DataFrame({f"r{j}": pd.Categorical.from_codes(codes[:, j], categories=["x", "y", "z"])
                          for j in range(5)})
    base = np.array(["x", "y", "z", "z"], dtype=object)
    res = phi(frame, base)
    counts = np.stack([(codes == k).sum(axis=1) for k in range(3)], axis=1)
    d_o = (25 - (counts ** 2).sum(axis=1)) / 20
    np.testing.assert_allclose(res.per_object_observed, d_o, rtol=1e-12)
    plain = phi(labels[codes], base, scale="categorical")
    assert plain.value == pytest.approx(res.value, rel=1e-12)


def _cp(k, n, alpha):
    """Two-sided Clopper-Pearson bounds of k / n at level 1 - alpha, from the beta quantiles."""
    from scipy import stats

    low = 0.0 if k == 0 else stats.beta.ppf(alpha / 2, k, n - k + 1)
    high = 1.0 if k == n else stats.beta.ppf(1 - alpha / 2, k + 1, n - k)
    return low, high


def test_two_level_ordinal_object_interval_uses_the_ordinal_distance():
    # one object, 9 refits 6 "lo" / 3 "hi"; baseline 3 lo, 1 hi: delta^2 = ((3 + 1) / 2)^2 = 4
    res = phi(np.array([["lo"] * 6 + ["hi"] * 3]), np.array(["lo", "lo", "lo", "hi"]), scale="ordinal",
              categories=["lo", "hi"])
    d2 = 4.0
    d_e = 2 * d2 * 0.75 * 0.25
    low, high = _cp(6, 9, 0.05)
    thetas = [2 * d2 * low * (1 - low), 2 * d2 * high * (1 - high)]
    theta_high = 2 * d2 / 4 if low <= 0.5 <= high else max(thetas)
    assert res.expected == pytest.approx(d_e, rel=1e-12)
    assert res.per_object_low[0] == pytest.approx(1 - theta_high / d_e, rel=1e-12)
    assert res.per_object_high[0] == pytest.approx(1 - min(thetas) / d_e, rel=1e-12)
    assert res.confidence_interval == (res.per_object_low[0], res.per_object_high[0])


@pytest.mark.parametrize("n_first", [2, 19])
def test_single_object_two_class_interval_is_clopper_pearson(n_first):
    # the share of the first class (0): 2 of 20, and 19 of 20 (upper bound beta(20, 1))
    res = phi(np.array([[0] * n_first + [1] * (20 - n_first)]), np.array([0, 1, 1, 0]), scale="categorical")
    low, high = _cp(n_first, 20, 0.05)
    f = [2 * low * (1 - low), 2 * high * (1 - high)]
    assert not low <= 0.5 <= high
    assert res.per_object_low[0] == pytest.approx(1 - max(f) / 0.5, rel=1e-12)
    assert res.per_object_high[0] == pytest.approx(1 - min(f) / 0.5, rel=1e-12)


def test_three_level_ordinal_bounds_are_taken_on_the_simplex():
    # few refits: U' Delta U exceeds the largest possible disagreement delta_max^2 / 2, but the
    # box on the simplex (shares summing to one) bounds the disagreement below the cap
    levels = ["a", "b", "c"]
    base = ["a", "a", "b", "c", "c", "c"]
    pred = np.array([["a", "b", "c", "b", "a"]], dtype=object)
    res = phi(pred, np.array(base, dtype=object), scale="ordinal", categories=levels)
    m = np.array([2.0, 1.0, 3.0])
    pos = np.cumsum(m) - m / 2
    delta2 = (pos[:, None] - pos[None, :]) ** 2
    d_o, d_e = ordinal_reference(pred.tolist(), base, levels)
    cap = delta2.max() / 2
    lo, hi = bonferroni_box([2, 2, 1])
    assert hi @ delta2 @ hi > cap
    theta_low, theta_high = box_simplex_range(lo, hi, delta2)
    assert res.per_object_low[0] == pytest.approx(1 - min(theta_high, cap) / d_e, rel=1e-7)
    assert res.per_object_high[0] == pytest.approx(1 - theta_low / d_e, rel=1e-9)
    assert theta_low > lo @ delta2 @ lo


def test_class_bounds_with_a_zero_count_and_an_almost_unanimous_class():
    # counts (299, 1, 0) and (150, 100, 50) of 300 refits: zero counts have lower bound 0 and a
    # count of R - 1 the upper bound beta(R, 1)
    rows = np.array([np.repeat([0, 1, 2], [299, 1, 0]), np.repeat([0, 1, 2], [150, 100, 50])])
    res = phi(rows, np.array([0, 1, 2, 0]), scale="categorical")
    alpha = 0.05 / 3
    d_e = 1 - (0.25 + 0.0625 + 0.0625)
    for i, counts in enumerate([(299, 1, 0), (150, 100, 50)]):
        bounds = np.array([_cp(k, 300, alpha) for k in counts])
        lo, hi = bounds[:, 0], bounds[:, 1]
        theta_low, _ = box_simplex_range(lo, hi, np.ones((3, 3)) - np.eye(3))
        theta_high = min(1 - _box_min_sum_of_squares(lo, hi), 2 / 3)
        assert res.per_object_high[i] == pytest.approx(1 - theta_low / d_e, rel=1e-9)
        assert res.per_object_low[i] == pytest.approx(1 - theta_high / d_e, abs=1e-7)


def test_sparse_table_bounds_with_few_used_codes_and_many_refits():
    # integers 0..799 read as direct codes, 1,400 objects x 200 refits: a sparse count table,
    # but only the codes 0, 400 and 799 occur, so K = 3 and the upper bound is below the cap
    rng = np.random.default_rng(8)
    codes = np.array([0, 400, 799])
    share = np.array([0.95, 0.04, 0.01])
    pred = codes[rng.choice(3, size=(1400, 200), p=share)]
    pred[:, 0] = 799
    pred[1] = np.r_[799, np.zeros(195, dtype=int), [799] * 4]  # code 400 absent from this row
    pred[2] = np.r_[799, [400] * 9, np.zeros(190, dtype=int)]  # code 799 once only
    res = phi(pred, codes, scale="categorical")
    alpha = 0.05 / 3
    for i in (0, 1, 2, 1399):
        counts = [(pred[i] == c).sum() for c in codes]
        bounds = np.array([_cp(k, 200, alpha) for k in counts])
        lo, hi = bounds[:, 0], bounds[:, 1]
        theta_low, theta_high = box_simplex_range(lo, hi, np.ones((3, 3)) - np.eye(3))
        theta_high = max(theta_high, res.per_object_observed[i])  # the interval holds its estimate
        assert theta_high < 2 / 3
        assert res.per_object_high[i] == pytest.approx(1 - theta_low / (2 / 3), rel=1e-9)
        assert res.per_object_low[i] == pytest.approx(1 - theta_high / (2 / 3), rel=1e-7)
        assert res.per_object_observed[i] == pytest.approx(pair_disagreement(pred[i].tolist()), rel=1e-12)


# ----------------------------------------------------------------------------- baselines, messages


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


def test_prediction_matrix_shape_errors():
    with pytest.raises(ValueError, match=r"^`predictions` must contain at least one object \(row\); "
                                         r"got shape \(0, 5\)\.$"):
        phi(np.zeros((0, 5)), np.array([0.0, 1.0]))
    with pytest.raises(ValueError, match=r"^`predictions` must contain predictions from at least two "
                                         r"repetitions \(columns\); got shape \(3, 1\)\.$"):
        phi(np.zeros((3, 1)), np.array([0.0, 1.0]))


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


def test_one_object_left_gives_its_own_interval():
    pred = np.array([[np.nan, 1.0, np.nan, np.nan, np.nan], [1.0, 2.0, 4.0, 2.0, 1.0]])
    with pytest.warns(PredstabDataWarning):
        res = phi(pred, np.array([0.0, 2.0, 4.0, 6.0]))
    assert res.confidence_interval == (res.per_object_low[1], res.per_object_high[1])
    from scipy import stats

    s2, d_e = np.var(pred[1], ddof=1), np.var([0.0, 2.0, 4.0, 6.0], ddof=1)
    expected_low = 1 - 4 * s2 / stats.chi2.ppf(0.025, 4) / d_e
    assert res.confidence_interval.low == pytest.approx(expected_low, rel=1e-12)
    assert np.isnan(res.per_object_low[0]) and np.isnan(res.per_object[0])


def test_bootstrap_over_one_objects_refits_matches_scipy():
    from scipy import stats

    row = np.array([1.0, np.nan, 2.5, 0.5, 3.0, 1.5, 2.0])
    base = np.array([0.0, 1.0, 3.0, 5.0])
    with pytest.warns(PredstabDataWarning):
        res = phi(row[None, :], base)
    got = res.bootstrap_interval(n_resamples=500, by="replicates", random_state=11)
    d_e = np.var(base, ddof=1)
    ref = stats.bootstrap((row[~np.isnan(row)],), lambda x, axis=-1: 1 - np.var(x, axis=axis, ddof=1) / d_e,
                          n_resamples=500, rng=np.random.default_rng(11), vectorized=True,
                          method="percentile")
    assert got.low == pytest.approx(ref.confidence_interval.low, rel=1e-12)
    assert got.high == pytest.approx(ref.confidence_interval.high, rel=1e-12)
    # classes (psi with a class the space lacks): the refits as codes in the order of res.categories
    labels = np.array(["b", "c", "b", "a", "b", "c", "b", "b"], dtype=object)
    res_c = psi(labels[None, :], np.array(["a", "b", "b", "a"], dtype=object), scale="categorical")
    assert res_c.categories == ("a", "b", "c")
    codes = np.sort(np.searchsorted(["a", "b", "c"], labels.astype(str)))
    d_e_c = 0.5

    def gini_stat(x, axis=-1):
        x = np.moveaxis(x, axis, -1)
        r = x.shape[-1]
        n = (x[..., None] == np.arange(3)).sum(axis=-2)
        return 1 - ((r * r - (n * n).sum(axis=-1)) / (r * (r - 1))) / d_e_c
    got_c = res_c.bootstrap_interval(n_resamples=400, by="replicates", random_state=5)
    ref_c = stats.bootstrap((codes,), gini_stat, n_resamples=400, rng=np.random.default_rng(5),
                            vectorized=True, method="percentile")
    assert got_c.low == pytest.approx(ref_c.confidence_interval.low, rel=1e-12)
    assert got_c.high == pytest.approx(ref_c.confidence_interval.high, rel=1e-12)


def test_ordinal_levels_on_the_sparse_table():
    # 800 ordinal levels (direct integer codes), 1,400 objects x 200 refits: the sparse table's
    # ordinal product table @ delta2
    rng = np.random.default_rng(10)
    pred = rng.integers(0, 800, size=(1400, 200))
    pred[0, :2] = [0, 799]
    base = np.arange(800)
    levels = list(range(800))
    res = phi(pred, base, scale="ordinal", categories=levels)
    pos = np.arange(800) + 0.5  # one baseline count per level: positions 0.5, 1.5, ...
    for i in (0, 1, 1399):
        p = pos[pred[i]]
        d_o = ((p[:, None] - p[None, :]) ** 2).sum() / (200 * 199)
        assert res.per_object_observed[i] == pytest.approx(d_o, rel=1e-12)
    assert res.expected == pytest.approx(((pos[:, None] - pos[None, :]) ** 2).mean(), rel=1e-12)


def test_interval_over_objects_with_mostly_unanimous_objects():
    # most objects are unanimous: the t interval's mean - half-width of D_o was negative and cut
    # at 0 (upper bound exactly 1); the gamma form of the mean stays positive, below 1, united
    # (metric data) with the bootstrap-t over objects: 999 resamples of the 12 objects, seed 0
    from scipy import stats

    pred = np.zeros((12, 5))
    pred[0] = [0.0, 1.0, 0.0, 1.0, 0.0]
    res = phi(pred, np.array([0.0, 1.0, 2.0]))  # D_e = 1
    d_o = np.r_[np.var(pred[0], ddof=1), np.zeros(11)]
    var = d_o.var(ddof=1) / 12 * (stats.t.ppf(0.975, 11) / stats.norm.ppf(0.975)) ** 2
    df = 2 * d_o.mean() ** 2 / var
    gamma = (df * d_o.mean() / stats.chi2.ppf(0.975, df), df * d_o.mean() / stats.chi2.ppf(0.025, df))
    boot = d_o[np.random.default_rng(0).integers(0, 12, size=(999, 12))]
    spread = boot.std(axis=1, ddof=1)
    t = (boot.mean(axis=1)[spread > 0] - d_o.mean()) / spread[spread > 0]
    s = d_o.std(ddof=1)
    boot_t = (max(d_o.mean() - np.quantile(t, 0.975) * s, 0.0), d_o.mean() - np.quantile(t, 0.025) * s)
    # one non-zero D_o,i: the bootstrap-t's lower bound is cut at 0 and left out
    assert boot_t[0] == 0.0
    assert res.confidence_interval.high == pytest.approx(1 - gamma[0], rel=1e-12)
    assert res.confidence_interval.low == pytest.approx(1 - max(gamma[1], boot_t[1]), rel=1e-12)
    assert res.confidence_interval.high < 1.0
    # a constant baseline: no interval at all, per object neither
    with pytest.warns(Warning):
        flat = phi(pred, np.array([2.0, 2.0, 2.0]))
    assert np.isnan(flat.confidence_interval.low) and np.isnan(flat.confidence_interval.high)
    assert np.isnan(flat.per_object_low).all() and np.isnan(flat.per_object_high).all()


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


@pytest.mark.parametrize("n_dropped, suffix", [(10, ")"), (11, " ...)")])
def test_dropped_objects_ellipsis_starts_after_ten(n_dropped, suffix):
    pred = np.full((n_dropped + 2, 5), np.nan)
    pred[-2:] = [[1.0, 2.0, 3.0, 2.0, 1.0], [0.0, 2.0, 1.0, 2.0, 1.0]]
    with pytest.warns(PredstabDataWarning) as record:
        res = phi(pred, np.array([0.0, 2.0, 4.0]))
    rows = ", ".join(str(i) for i in range(10))
    assert any(f"(0-based rows {rows}{suffix}" in str(w.message) for w in record)
    assert res.absent_from_baseline == ()
