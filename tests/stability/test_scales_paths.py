"""How each input type reaches phi / psi: the reading paths of stability/_scales.py, pinned to values."""

import warnings

import numpy as np
import pandas as pd
import pytest

import predstab
from predstab.stability._scales import ColumnCodes, encode, match_keys, r_text, read_values


def _phi(pred, base, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", predstab.PredstabDataWarning)
        return predstab.phi(pred, base, **kw)


# --------------------------------------------------------------------------- one input type at a time

def test_bool_arrays_are_logical_without_the_integer_flag():
    v = read_values(np.array([[True, False], [False, False]]), "p")
    assert (v.family, v.integer, v.array.dtype) == ("logical", False, np.dtype(bool))
    assert v.array.tolist() == [[True, False], [False, False]]


def test_nullable_bool_and_integer_frames_without_missing_cells_keep_numpy_dtypes():
    v = read_values(pd.DataFrame({"a": pd.array([True, False], dtype="boolean"),
                                  "b": pd.array([False, False], dtype="boolean")}), "p")
    assert (v.family, v.array.dtype) == ("logical", np.dtype(bool))
    assert v.array.tolist() == [[True, False], [False, False]]
    v = read_values(pd.DataFrame({"a": pd.array([1, 2], dtype="Int64"),
                                  "b": pd.array([3, 3], dtype="Int64")}), "p")
    assert (v.family, v.integer, v.array.dtype) == ("numeric", True, np.dtype(np.int64))
    assert v.array.tolist() == [[1, 3], [2, 3]]
    # with a missing cell: floats with NaN, still integers for the scale's inference
    v = read_values(pd.DataFrame({"a": pd.array([1, None], dtype="Int64"),
                                  "b": pd.array([3, 3], dtype="Int64")}), "p")
    assert (v.family, v.integer, v.array.dtype) == ("numeric", True, np.dtype(float))
    np.testing.assert_array_equal(v.array, [[1.0, 3.0], [np.nan, 3.0]])


def test_nullable_integer_predictions_give_the_categories_as_integers():
    # (1, 2, 2, 2) and (1, 1, 1, 1): 2 * 3 * 1 of 4 * 3 ordered pairs disagree (0.5) and none;
    # baseline (1, 2, 1, 2): D_e = 0.5, so phi_i = 0 and 1
    pred = pd.DataFrame([[1, 2, 2, 2], [1, 1, 1, 1]]).astype("Int64")
    res = _phi(pred, np.array([1, 2, 1, 2]), scale="categorical")
    np.testing.assert_allclose(res.per_object, [0.0, 1.0], atol=1e-12)
    assert res.categories == (1, 2)
    assert [type(c) for c in res.categories] == [int, int]


@pytest.mark.parametrize("arr, expected, kind", [
    (np.array([["a", "b"], ["c", "d"]]), [["a", "b"], ["c", "d"]], str),
    (np.array([[b"a", b"b"]]), [[b"a", b"b"]], bytes),
])
def test_fixed_width_text_arrays_become_object_arrays_of_python_text(arr, expected, kind):
    v = read_values(arr, "p")
    assert (v.family, v.array.dtype) == ("character", np.dtype(object))
    assert v.array.tolist() == expected
    assert type(v.array[0, 0]) is kind


def test_object_text_arrays_are_used_as_given():
    arr = np.array([["a", "b"], ["c", None]], dtype=object)
    v = read_values(arr, "p")
    assert v.family == "character"
    assert v.array is arr  # no copy


def test_a_numeric_series_is_a_vector_and_a_frame_keeps_its_labels():
    v = read_values(pd.Series([1.5, 2.0, np.nan]), "base")
    assert v.array.shape == (3,) and v.labels is None
    np.testing.assert_array_equal(v.array, [1.5, 2.0, np.nan])
    frame = pd.DataFrame([["a", "b", "a"], ["b", "b", "b"]], index=["o1", "o2"])
    assert list(read_values(frame, "p").labels) == ["o1", "o2"]
    # (a, b, a): 2 * 2 * 1 of 3 * 2 ordered pairs disagree; baseline (a, b, b): D_e = 1 - 5 / 9
    res = _phi(frame, np.array(["a", "b", "b"]))
    assert list(res.object_labels) == ["o1", "o2"]
    np.testing.assert_allclose(res.per_object, [1 - (2 / 3) / (4 / 9), 1.0], atol=1e-12)


def test_small_range_integers_are_their_own_codes():
    arr = np.array([[3, 5], [4, 3]])
    source, offset, uniques = encode(read_values(arr, "p"))
    assert source is arr and offset == 3
    assert uniques.tolist() == [3, 4, 5] and uniques.dtype == object
    # one row of two refits: a range of 8 codes is the limit (1 x 8 <= 4 x 2 cells)
    arr = np.array([[0, 7]], dtype=np.int16)
    source, offset, uniques = encode(read_values(arr, "p"))
    assert source is arr and offset == 0 and uniques.tolist() == list(range(8))
    source, offset, uniques = encode(read_values(np.array([[0, 8]]), "p"))
    assert source.tolist() == [[0, 1]] and offset == 0 and uniques.tolist() == [0, 8]


def test_object_numbers_with_none_become_floats_with_nan():
    v = read_values([[1, None], [2.5, 3]], "p")
    assert (v.family, v.integer, v.array.dtype) == ("numeric", False, np.dtype(float))
    np.testing.assert_array_equal(v.array, [[1.0, np.nan], [2.5, 3.0]])


# --------------------------------------------------------------------------- Categorical frames

def test_two_categorical_columns_with_other_category_orders_are_read_by_value():
    # the second column's codes mean other labels: (x, x) agrees, (y, x) and (x, y) disagree
    # in 2 of 2 ordered pairs; baseline (x, y, y, x): D_e = 0.5
    frame = pd.DataFrame({"a": pd.Categorical(["x", "y", "x"], categories=["x", "y"]),
                          "b": pd.Categorical(["x", "x", "y"], categories=["y", "x"])})
    res = _phi(frame, np.array(["x", "y", "y", "x"]))
    np.testing.assert_allclose(res.per_object, [1.0, 1 - 1 / 0.5, 1 - 1 / 0.5], atol=1e-12)
    assert res.categories == ("x", "y")


def test_ordered_categorical_frame_with_the_same_categories_is_ordinal():
    cats = ["lo", "mid", "hi"]
    rows = [["lo", "lo", "mid"], ["hi", "mid", "hi"], ["mid", "mid", "mid"], ["lo", "hi", "hi"]]
    frame = pd.DataFrame({k: pd.Categorical([r[j] for r in rows], categories=cats, ordered=True)
                          for j, k in enumerate("abc")})
    base = ["lo", "mid", "hi", "mid"]
    res = _phi(frame, pd.Series(pd.Categorical(base, categories=cats, ordered=True)))
    plain = _phi(np.array(rows), np.array(base), scale="ordinal", categories=cats)
    assert res.scale == "ordinal"
    assert res.value == pytest.approx(plain.value, abs=1e-12)
    np.testing.assert_allclose(res.per_object, plain.per_object, atol=1e-12)
    v = read_values(frame, "p")
    assert v.ordered and list(v.categories) == cats
    assert isinstance(v.array, ColumnCodes)
    assert v.array.dtype == np.int8
    assert v.array.shape == (4, 3) and v.array.size == 12
    np.testing.assert_array_equal(np.asarray(v.array), [[0, 0, 1], [2, 1, 2], [1, 1, 1], [0, 2, 2]])
    assert encode(v)[2].tolist() == cats and encode(v)[2].dtype == object
    # integer categories: Python objects too
    uniques = encode(read_values(pd.Categorical([2, 1, 2]), "p"))[2]
    assert uniques.tolist() == [1, 2] and uniques.dtype == object


def test_a_one_column_categorical_frame_is_its_code_column():
    col = pd.Categorical(["b", "a", "b"], categories=["a", "b"])
    frame = pd.DataFrame({"a": col})
    v = read_values(frame, "base")
    assert isinstance(v.array, np.ndarray)
    assert v.array.shape == (3, 1)
    assert v.array.tolist() == [[1], [0], [1]]
    assert np.shares_memory(v.array, frame["a"].array.codes)  # a view, not a copy


def test_categories_of_dates_are_refused_by_their_dtype():
    dates = pd.Categorical(pd.to_datetime(["2020-01-01", "2020-01-02"]))
    with pytest.raises(TypeError, match=r"^`p` must hold numbers, booleans or text; got an array of dtype "
                                        r"datetime64\[.s\]\.$"):
        read_values(pd.DataFrame({"a": dates, "b": dates}), "p")


# --------------------------------------------------------------------------- R's texts and matching

def test_r_text_is_r_as_character():
    assert [r_text(False), r_text(np.True_), r_text(True), r_text(np.bool_(False))] == [
        "FALSE", "TRUE", "TRUE", "FALSE"]
    assert [r_text(np.int64(3)), r_text(2.0), r_text(0.1 + 0.2), r_text(1e15), r_text("a")] == [
        "3", "2", "0.3", "1e+15", "a"]


def test_match_keys_as_text_matches_values_not_spellings():
    table = [1.0, "a", True, 2, "3"]
    got = match_keys(["1", "a", "TRUE", " 2.0 ", 3, "b", "FALSE"], table, True)
    assert got.tolist() == [0, 1, 2, 3, 4, -1, -1]
    # without as_text, "1" is not 1.0
    assert match_keys(["1", 1, "a", 2.0], table, False).tolist() == [-1, 0, 1, 3]


# --------------------------------------------------------------------------- counting (_disagreement.py)

def test_the_pooled_baseline_keeps_its_family_and_drops_missing_values():
    from predstab.stability._disagreement import _baseline_vector
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", predstab.PredstabDataWarning)
        v = _baseline_vector(read_values(np.array([[3, 1], [2, 3]]), "b"), "b")
        assert (v.family, v.integer, v.array.tolist()) == ("numeric", True, [3, 1, 2, 3])
        v = _baseline_vector(read_values(np.array(["a", None, "b"], dtype=object), "b"), "b")
        assert (v.family, v.integer, v.array.tolist()) == ("character", False, ["a", "b"])
        cat = pd.Series(pd.Categorical([2, None, 1, 2], categories=[1, 2], ordered=True))
        v = _baseline_vector(read_values(cat, "b"), "b")
    assert (v.family, v.integer, v.ordered, v.array.tolist(), list(v.categories)) == (
        "numeric", True, True, [1, 0, 1], [1, 2])


def test_text_labels_that_read_as_one_number_are_different_labels():
    # "1" and "1.0" are two classes: 2 x 2 x 2 of 4 x 3 ordered pairs disagree; D_e = 0.5
    res = _phi(np.array([["1", "1.0", "1", "1.0"]]), np.array(["1", "1.0", "1.0", "1"]))
    assert res.value == pytest.approx(1 - (8 / 12) / 0.5, abs=1e-12)
    assert res.categories == ("1", "1.0")


def test_ordinal_levels_given_as_text_match_numeric_predictions_by_value():
    pred = np.array([[1, 2, 2, 3], [3, 3, 3, 2]])
    base = np.array([1, 2, 3, 3, 2])
    as_text = _phi(pred, base, scale="ordinal", categories=["1", "2", "3"])
    as_numbers = _phi(pred, base, scale="ordinal", categories=[1, 2, 3])
    assert as_text.value == pytest.approx(as_numbers.value, abs=1e-12)
    np.testing.assert_allclose(as_text.per_object, as_numbers.per_object, atol=1e-12)


def test_psi_names_a_predicted_value_that_is_no_level():
    with pytest.raises(ValueError) as err:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", predstab.PredstabDataWarning)
            predstab.psi(np.array([["a", "x", "b"], ["b", "b", "c"]]), np.array(["a", "b", "c"]),
                         scale="ordinal", categories=["a", "b", "c"])
    assert str(err.value) == ("Some prediction values do not occur in 'categories' (`categories`): "
                              "`predictions` contains ['x'] but the levels are ['a', 'b', 'c'].")


def test_pair_sums_against_the_double_sum():
    from predstab.stability._disagreement import _pair_sums
    rng = np.random.default_rng(5)
    for n_columns in (3, 17):  # vector operations, one matrix product
        category = np.arange(n_columns) + 1  # the categories 1.. of a larger Delta
        position = rng.permutation(n_columns + 2) / 2.0
        delta2 = (position[:, None] - position[None, :]) ** 2
        delta2[1, 2] = delta2[2, 1] = 0.5
        columns = [rng.integers(0, 4, size=6) for _ in range(n_columns)]
        expected = [sum(columns[a][i] * columns[b][i] * delta2[category[a], category[b]]
                        for a in range(n_columns) for b in range(n_columns)) for i in range(6)]
        np.testing.assert_allclose(_pair_sums(columns, category, delta2), expected, rtol=1e-12)


def test_pair_weights_are_the_mean_of_the_objects_vote_products():
    from predstab.stability._disagreement import _pair_weights
    table = np.array([[2, 1, 0], [0, 3, 1], [5, 0, 0]])
    count = table.sum(axis=1)
    kept = np.array([True, True, False])
    expected = (np.outer(table[0], table[0]) / 6 + np.outer(table[1], table[1]) / 12) / 2
    np.testing.assert_allclose(_pair_weights(table, count, kept), expected, rtol=1e-12)
    from scipy import sparse
    np.testing.assert_allclose(_pair_weights(sparse.csr_matrix(table), count, kept), expected, rtol=1e-12)


def test_ordinal_baseline_error_is_the_same_from_a_sparse_count_table(monkeypatch):
    from predstab.stability import _disagreement
    levels = [f"l{j:02d}" for j in range(20)]
    rng = np.random.default_rng(8)
    codes = np.clip(rng.integers(0, 8, size=(10, 4)) + 2 * np.arange(10)[:, None], 0, 19)
    assert 10 * (len(np.unique(codes)) + 1) > 4 * codes.size  # more cells than 4 x the input
    pred = np.array(levels, dtype=object)[codes]
    base = np.array(levels, dtype=object)[np.r_[np.arange(20), rng.integers(0, 20, size=40)]]
    kw = dict(scale="ordinal", categories=levels, baseline_error=True)
    dense = _phi(pred, base, **kw)
    monkeypatch.setattr(_disagreement, "_DENSE_CELLS", 0)  # 20 values > 4 x 4 refits: a sparse table
    from_sparse = _phi(pred, base, **kw)
    assert from_sparse.value == pytest.approx(dense.value, rel=1e-12)
    assert tuple(from_sparse.confidence_interval) == pytest.approx(tuple(dense.confidence_interval), rel=1e-9)
    np.testing.assert_allclose(from_sparse.per_object_low, dense.per_object_low, rtol=1e-12)


# --- mutation survivors of stability/_scales (sample 60, seed 7; issue 33) -----------------------


def test_a_baseline_frame_of_categoricals_is_pooled_like_its_values():
    # a baseline matrix of Categorical columns is read column by column (ColumnCodes) and pooled
    rng = np.random.default_rng(0)
    dtype = pd.CategoricalDtype(list("abc"))
    frame = pd.DataFrame({j: pd.Categorical.from_codes(rng.integers(0, 3, 50), dtype=dtype)
                          for j in range(6)})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pooled = predstab.phi(frame, frame)
        flat = predstab.phi(frame, np.asarray(frame, dtype=object).ravel())
    p = np.bincount(frame.apply(lambda c: c.cat.codes).to_numpy().ravel(), minlength=3) / 300
    assert pooled.expected == flat.expected == pytest.approx(1 - np.sum(p * p), rel=1e-12)
    assert pooled.value == flat.value


def test_categories_contradicting_an_ordered_categorical_name_the_predictions():
    dtype = pd.CategoricalDtype(["low", "mid", "high"], ordered=True)
    pred = pd.DataFrame({j: pd.Categorical(["low", "mid", "high", "mid"], dtype=dtype) for j in range(5)})
    with pytest.raises(ValueError, match="ordered Categorical `predictions`"):
        predstab.phi(pred, ["low", "mid", "high"], categories=["high", "mid", "low"])


def test_a_scalar_text_baseline_is_refused_by_its_size():
    # a 0-D baseline is reshaped to one value keeping its family, integer flag and categories
    pred = np.array([["a", "b", "a"], ["b", "b", "a"]])
    with pytest.raises(ValueError, match="at least two elements"):
        predstab.phi(pred, "a")
    with pytest.raises(ValueError, match="at least two elements"):
        predstab.phi(np.array([[1.0, 2.0, 3.0], [2.0, 3.0, 5.0]]), 3.0)


def test_ragged_predictions_are_named_in_the_error():
    with pytest.raises(ValueError, match="`predictions` must be a rectangular array"):
        predstab.phi([[1.0, 2.0, 3.0], [1.0, 2.0]], [1.0, 2.0, 3.0])

