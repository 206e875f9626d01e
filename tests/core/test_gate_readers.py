"""The readers behind the gate (issue 32): ``predstab.compare``'s scores and counts
(``compare._common``) and the rating matrices (``_core._ratings``), each message and value
pinned, so that a change in what they accept or say is seen (their mutation scores)."""

import warnings

import numpy as np
import pandas as pd
import pytest

from predstab._core import _ratings
from predstab.compare import _common


# ----------------------------------------------------------------------------- compare._common
def test_read_scores_returns_floats_and_names_every_refusal():
    out = _common.read_scores([1, 2, 3], "a")
    assert out.dtype == float and out.tolist() == [1.0, 2.0, 3.0]
    assert _common.read_scores(np.ma.masked_array([1.0, 2.0], mask=False), "a").tolist() == [1.0, 2.0]
    with pytest.raises(ValueError, match=r"^`b` has 1 masked value\(s\): a masked value is a missing value"):
        _common.read_scores(np.ma.masked_array([1.0, 2.0], mask=[0, 1]), "b")
    with pytest.raises(TypeError, match=r"^`a` must be numeric scores; got ndarray\.$"):
        _common.read_scores(np.array([1 + 2j, 3]), "a")
    with pytest.raises(TypeError, match=r"^`s` must be numeric scores; got list\.$"):
        _common.read_scores(["x", "y"], "s")
    with pytest.raises(ValueError, match=r"^`a` must be 1-dimensional; got shape \(2, 2\)\.$"):
        _common.read_scores([[1, 2], [3, 4]], "a")
    with pytest.raises(ValueError, match=r"^`a` must be 1 or 2-dimensional; got shape \(\)\.$"):
        _common.read_scores(3.0, "a", ndim=(1, 2))
    assert _common.read_scores([[1, 2], [3, 4]], "a", ndim=(1, 2)).shape == (2, 2)
    with pytest.raises(ValueError, match=r"^`a` must not contain NaN or infinite values; got 2 such "
                                         r"entries\.$"):
        _common.read_scores([1.0, np.nan, np.inf], "a")
    with pytest.raises(ValueError, match=r"^`a` must have at least 3 scores; got 2\.$"):
        _common.read_scores([1.0, 2.0], "a", min_size=3)
    assert _common.read_scores([1.0, 2.0], "a", min_size=2).size == 2  # exactly the minimum
    assert _common.read_scores([5.0], "a").tolist() == [5.0]            # the default minimum: 1
    with pytest.raises(ValueError, match=r"at least 1 scores; got 0"):
        _common.read_scores([], "a")


def test_read_paired_names_a_and_b_and_their_shapes():
    a, b = _common.read_paired([1, 2], [3, 4])
    assert a.tolist() == [1.0, 2.0] and b.tolist() == [3.0, 4.0]
    with pytest.raises(ValueError, match=r"^`a` and `b` must be paired \(same shape\); got \(2,\) and "
                                         r"\(3,\)\.$"):
        _common.read_paired([1, 2], [3, 4, 5])
    with pytest.raises(ValueError, match=r"^`a` must have at least 2 scores; got 1\.$"):
        _common.read_paired([1], [2])
    with pytest.raises(ValueError, match=r"^`b` must not contain NaN"):
        _common.read_paired([1, 2], [np.nan, 2])
    assert _common.read_paired([1], [2], min_size=1)[0].tolist() == [1.0]
    with pytest.raises(ValueError, match=r"^`a` must be 1-dimensional"):
        _common.read_paired([[1, 2]], [[3, 4]])
    assert _common.read_paired([[1, 2]], [[3, 4]], ndim=2)[1].tolist() == [[3.0, 4.0]]


def test_read_counts_accepts_whole_non_negative_counts_only():
    out = _common.read_counts([[1, 2], [3.0, 0]], "table")
    assert out.dtype == np.int64 and out.tolist() == [[1, 2], [3, 0]]
    assert _common.read_counts([[1, 2, 3], [4, 5, 6]], "t", square=False).shape == (2, 3)
    shape_error = r"^`t` must be a square k x k table of counts \(k >= 2\); got shape "
    with pytest.raises(ValueError, match=shape_error + r"\(2, 3\)\.$"):
        _common.read_counts([[1, 2, 3], [4, 5, 6]], "t")
    with pytest.raises(ValueError, match=shape_error + r"\(1, 1\)\.$"):
        _common.read_counts([[1]], "t")
    with pytest.raises(ValueError, match=shape_error + r"\(1, 3\)\.$"):
        _common.read_counts([[1, 2, 3]], "t", square=False)
    with pytest.raises(ValueError, match=shape_error + r"\(4,\)\.$"):
        _common.read_counts([1, 2, 3, 4], "t")
    for bad, shown in ((True, "True"), (np.bool_(False), "np.False_|False"), (-1, "-1"), (1.5, "1.5"),
                       (np.inf, "inf"), (np.nan, "nan"), ("3", "'3'"), (None, "None")):
        with pytest.raises(ValueError, match=rf"^`t` must hold non-negative whole counts; got ({shown})\.$"):
            _common.read_counts([[1, 2], [3, bad]], "t")
    assert _common.read_counts([[np.int8(1), np.float32(2)], [0, 0]], "t").tolist() == [[1, 2], [0, 0]]


def test_rng_keyword_and_alternative_name():
    def new(x, *, rng=None):
        return x

    def old(x, *, random_state=None):
        return x

    generator = np.random.default_rng(0)
    assert _common.rng_keyword(new, generator) == {"rng": generator}
    assert _common.rng_keyword(old, generator) == {"random_state": generator}
    assert [_common.alternative_name(a) for a in _common.ALTERNATIVES] == ["two.sided", "greater", "less"]
    assert _common.ALTERNATIVES == ("two-sided", "greater", "less")


# ----------------------------------------------------------------------------- _core._ratings
def test_as_rating_matrix_names_what_it_refuses():
    assert _ratings.as_rating_matrix([[1, 2], [3, 4]]).tolist() == [[1, 2], [3, 4]]
    with pytest.raises(ValueError, match=r"^`r` must be a rectangular \(n_objects, n_replicates\) array; "
                                         r"got rows of lengths \[1, 3\]\.$"):
        _ratings.as_rating_matrix([[1, 2, 3], [1]], name="r")
    with pytest.raises(ValueError, match=r"^`ratings` must be a 2-D array of shape \(n_objects, "
                                         r"n_replicates\); got 1 dimension\(s\) with shape \(3,\)\.$"):
        _ratings.as_rating_matrix([1, 2, 3])
    with pytest.raises(ValueError, match=r"^`ratings` must not be empty; got shape \(0, 2\)\.$"):
        _ratings.as_rating_matrix(np.empty((0, 2)))
    with pytest.raises(ValueError, match=r"^`ratings` must have at least 2 replicates \(columns\) per "
                                         r"object; got shape \(3, 1\)\.$"):
        _ratings.as_rating_matrix([[1], [2], [3]])
    assert _ratings.as_rating_matrix([[1], [2], [3]], min_replicates=1).shape == (3, 1)
    with pytest.raises(TypeError, match=r"^`ratings` must hold real values; got complex dtype complex128\.$"):
        _ratings.as_rating_matrix(np.array([[1j, 2], [3, 4]]))
    # a masked cell is missing; a nullable frame is floats only when asked
    masked = _ratings.as_rating_matrix(np.ma.masked_array([[1, 2], [3, 4]], mask=[[0, 1], [0, 0]]))
    assert masked.tolist() == [[1, None], [3, 4]]
    nullable = pd.DataFrame({"a": pd.array([1, None, 3], dtype="Int64"),
                             "b": pd.array([1, 2, 3], dtype="Int64")})
    as_float = _ratings.as_rating_matrix(nullable, nullable_as_float=True)
    assert as_float.dtype == float and np.isnan(as_float[1, 0]) and as_float[2, 1] == 3.0
    assert _ratings.as_rating_matrix(nullable).dtype == object
    plain = pd.DataFrame({"a": [2, 1, 3], "b": [4, 5, 6]})
    assert _ratings.as_rating_matrix(plain, nullable_as_float=True).dtype == np.int64


def test_as_numeric_matrix_and_as_real_vector():
    assert _ratings.as_numeric_matrix(np.array([[1, None], [pd.NA, 2.5]], dtype=object)).tolist()[1][1] == 2.5
    out = _ratings.as_numeric_matrix(np.array([[1, None], [pd.NA, 2.5]], dtype=object))
    assert np.isnan(out[0, 1]) and np.isnan(out[1, 0]) and out[0, 0] == 1.0
    with pytest.raises(TypeError, match=r"^`x` must hold numbers \(or None/NaN/pd\.NA for missing values\); "
                                        r"got values of kind 'string'\.$"):
        _ratings.as_numeric_matrix(np.array([["a", "b"]], dtype=object), name="x")
    with pytest.raises(TypeError, match=r"got dtype <U1\.$"):
        _ratings.as_numeric_matrix(np.array([["a", "b"]]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # inf - inf in the check's sum: no RuntimeWarning leaks
        with pytest.raises(ValueError, match=r"^`ratings` must hold finite values; got 2 infinite "
                                             r"value\(s\)\.$"):
            _ratings.as_numeric_matrix(np.array([[np.inf, 1.0], [-np.inf, np.nan]]))
    assert np.isnan(_ratings.as_numeric_matrix(np.array([[np.nan, 1.0]]))[0, 0])  # NaN alone is missing
    assert _ratings.as_numeric_matrix(np.array([[True, False]])).tolist() == [[1.0, 0.0]]
    assert _ratings.as_real_vector([1, 2.5], name="n").tolist() == [1.0, 2.5]
    with pytest.raises(Exception, match=r"^`n` must be a 1-D sequence of real numbers; got \[1j\]\.$"):
        _ratings.as_real_vector([1j], name="n")
    with pytest.raises(Exception, match=r"^`n` must be a 1-D sequence of real numbers; got \['a'\]\.$"):
        _ratings.as_real_vector(["a"], name="n")


def test_unit_scaling_is_by_an_exact_power_of_four():
    x = np.array([3e200, -1e199, np.nan])
    scaled, unit = _ratings.unit_scaled(x)
    shift = _ratings.scaling_shift(x)
    assert shift % 2 == 0 and 0.25 <= np.nanmax(np.abs(scaled)) < 4
    assert unit == np.ldexp(1.0, -shift) and np.isnan(scaled[2])
    np.testing.assert_array_equal(scaled[:2] * unit, x[:2])
    same, one = _ratings.unit_scaled(np.array([1.0, 2.0]))
    assert one == 1.0 and same.tolist() == [1.0, 2.0]
    # the safe range is [2^-100, 2^100] of the largest finite magnitude, infinities and NaN left out
    assert _ratings.scaling_shift(np.array([2.0 ** 99])) == 0
    assert _ratings.scaling_shift(np.array([2.0 ** 100])) == -100
    assert _ratings.scaling_shift(np.array([2.0 ** -101])) == 0
    assert _ratings.scaling_shift(np.array([2.0 ** -102])) == 102
    assert _ratings.scaling_shift(np.array([np.inf, 2.0 ** 150, np.nan])) == -150
    assert _ratings.scaling_shift(np.array([-np.inf, -(2.0 ** 150)])) == -150
    assert _ratings.scaling_shift(np.array([np.nan, np.nan])) == 0
    assert _ratings.scaling_shift(np.array([np.inf])) == 0
    assert _ratings.scaling_shift(np.array([])) == 0
    assert _ratings.scaling_shift(np.array([0.0])) == 0
    assert _ratings.scaling_shift(np.array([1.0]), np.array([2.0 ** 200])) == -200  # one shift for all


def test_drop_incomplete_objects_warns_with_the_counts():
    arr = np.arange(6.0).reshape(3, 2)
    none = np.zeros((3, 2), dtype=bool)
    assert _ratings.drop_incomplete_objects(arr, none) is arr
    mask = none.copy()
    mask[1, 0] = True
    with pytest.warns(Warning, match=r"^1 of 3 objects have a missing value and were dropped \(as irr::f "
                                     r"does with na\.omit\)\.$"):
        kept = _ratings.drop_incomplete_objects(arr, mask, function="irr::f")
    assert kept.tolist() == [[0.0, 1.0], [4.0, 5.0]]
    with pytest.raises(ValueError, match=r"^`r` has a missing value in every one of its 3 objects; "
                                         r"nothing is left after dropping incomplete objects\.$"):
        _ratings.drop_incomplete_objects(arr, np.ones((3, 2), dtype=bool), name="r")


def test_factorizing_ratings_sorts_the_values_and_marks_missing():
    codes, uniques = _ratings.factorize_ratings(np.array([[3, 1], [2, 3]]))
    assert codes.tolist() == [[2, 0], [1, 2]] and uniques.tolist() == [1, 2, 3]
    codes, uniques = _ratings.factorize_ratings(np.array([[3.0, np.nan], [1.0, 3.0]]))
    assert codes.tolist() == [[1, -1], [0, 1]] and uniques.tolist() == [1.0, 3.0]
    codes, uniques = _ratings.factorize_ratings(np.array([[True, False]]))
    assert codes.tolist() == [[1, 0]] and uniques.tolist() == [False, True]
    codes, uniques = _ratings.factorize_ratings(np.array([["b", None], ["a", "b"]], dtype=object))
    assert codes.tolist() == [[1, -1], [0, 1]] and uniques.tolist() == ["a", "b"]
    codes, uniques = _ratings.factorize_ratings(np.array([[0.5, 2.5], [2.5, 0.5]]))  # not whole: hashed
    assert codes.tolist() == [[0, 1], [1, 0]] and uniques.tolist() == [0.5, 2.5]
    wide = np.array([[0, 2 ** 17], [5, 0]], dtype=np.int64)  # a range beyond 2^16: hashed
    codes, uniques = _ratings.factorize_ratings(wide)
    assert codes.tolist() == [[0, 2], [1, 0]] and uniques.tolist() == [0, 5, 2 ** 17]
    codes, uniques = _ratings.factorize_ratings(np.array([[200, 10]], dtype=np.uint8))
    assert codes.tolist() == [[1, 0]] and uniques.tolist() == [10, 200] and uniques.dtype == np.uint8
    codes, uniques = _ratings.factorize_ratings(np.array([[100, -100]], dtype=np.int8))
    assert codes.tolist() == [[1, 0]] and uniques.tolist() == [-100, 100]
    fortran = np.asfortranarray(np.array([["b", "a"], ["a", "c"]], dtype=object))
    codes, uniques = _ratings.factorize_ratings(fortran)
    assert codes.tolist() == [[1, 0], [0, 2]] and uniques.tolist() == ["a", "b", "c"]
    codes, uniques = _ratings.factorize_ratings(np.full((2, 2), np.nan))
    assert (codes == -1).all() and uniques.size == 0
    with pytest.raises(TypeError, match=r"^`ratings` must hold values of one comparable kind \(all "
                                        r"numbers or all strings\); got a mix of int, str\.$"):
        _ratings.factorize_ratings(np.array([[1, "a"]], dtype=object))


def test_categorical_codes_and_factorize_codes():
    frame = pd.DataFrame({"a": pd.Categorical(["x", "y", None], categories=["y", "x", "z"]),
                          "b": pd.Categorical(["y", "y", "x"], categories=["y", "x", "z"])})
    codes, categories = _ratings.categorical_codes(frame)
    assert codes.tolist() == [[1, 0], [0, 0], [-1, 1]] and categories.tolist() == ["y", "x", "z"]
    # only the used categories, sorted by value
    recoded, used = _ratings.factorize_codes(codes, categories)
    assert used.tolist() == ["x", "y"] and recoded.tolist() == [[0, 1], [1, 1], [-1, 0]]
    assert _ratings.categorical_codes(np.zeros((2, 2))) is None
    assert _ratings.categorical_codes(pd.DataFrame({"a": [1]})) is None
    assert _ratings.categorical_codes(pd.DataFrame(index=[0])) is None
    other = pd.DataFrame({"a": pd.Categorical(["x"], categories=["x", "y"]),
                          "b": pd.Categorical(["x"], categories=["y", "x"])})
    assert _ratings.categorical_codes(other) is None
    sorted_all = np.array([[0, 1], [1, 0]])
    out, cats = _ratings.factorize_codes(sorted_all, np.array([1, 2]), all_used=True)
    assert out is sorted_all and cats.tolist() == [1, 2]
    out, cats = _ratings.factorize_codes(sorted_all, np.array([1, 2, 3]))  # 3 unused: dropped
    assert out.tolist() == [[0, 1], [1, 0]] and cats.tolist() == [1, 2]
    out, cats = _ratings.factorize_codes(np.array([[0, 2]]), np.array([5, 1, 3]))
    assert out.tolist() == [[1, 0]] and cats.tolist() == [3, 5]


def test_a_huge_integer_range_is_hashed_not_counted():
    # the counting path is for a range under 2^16: a range of 2^40 would allocate a table of 2^40 counts
    codes, uniques = _ratings.factorize_ratings(np.array([[-(2 ** 40), 0], [0, 7]]))
    assert codes.tolist() == [[0, 1], [1, 2]] and uniques.tolist() == [-(2 ** 40), 0, 7]
    codes, uniques = _ratings.factorize_ratings(np.array([[2.0 ** 40, 0.0], [np.nan, 3.0]]))
    assert codes.tolist() == [[2, 0], [-1, 1]] and uniques.tolist() == [0.0, 3.0, 2.0 ** 40]


def test_the_orientation_is_not_judged_on_row_names_nor_when_told_not_to():
    from predstab import PredstabOrientationWarning

    rng = np.random.default_rng(0)
    stacked = rng.normal(size=(1, 12)) + 0.05 * rng.normal(size=(4, 12))  # 4 members x 12 objects
    with warnings.catch_warnings():
        warnings.simplefilter("error", PredstabOrientationWarning)
        _ratings.as_rating_matrix(stacked, orientation=False)  # a table whose columns are not replicates
    with pytest.warns(PredstabOrientationWarning):
        _ratings.as_rating_matrix(stacked)
    # R's row names 1..8 read as a first column: one warning, about them; that column would decide
    # the orientation (its values differ from the others'), so it is not judged
    frame = pd.DataFrame(rng.normal(loc=10, size=(8, 5)) + rng.normal(size=(8, 1)))
    frame.insert(0, "Unnamed: 0", np.arange(1, 9))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _ratings.as_rating_matrix(frame)
    assert [w.category.__name__ for w in caught] == ["PredstabDataWarning"], [str(w.message) for w in caught]
    assert "named 'Unnamed: 0'" in str(caught[0].message)


def test_scores_read_with_r_row_names_warn_in_every_matrix_of_scores():
    # found by the walk (issue 32): pd.read_csv of R's write.csv of a scores table keeps the row names
    # as a first column 'Unnamed: 0' (1..n), which predstab.compare read as one more method, silently
    # (bonferroni_dunn's control became 'Unnamed: 0', aggregate_mean 2.19 for scores of about 0.75)
    import io

    import predstab.compare as cmp
    from predstab import PredstabDataWarning

    scores = np.array([[0.79, 0.68, 0.61], [0.60, 0.84, 0.87], [0.71, 0.75, 0.80], [0.66, 0.70, 0.72],
                       [0.81, 0.77, 0.69], [0.74, 0.79, 0.83]])
    text = '"","rf","gbm","mlp"\n' + "".join(f'"{i + 1}",' + ",".join(map(str, row)) + "\n"
                                             for i, row in enumerate(scores))
    frame = pd.read_csv(io.StringIO(text))
    assert frame.columns[0] == "Unnamed: 0"
    calls = [lambda s: cmp.friedman_nemenyi(s), lambda s: cmp.bonferroni_dunn(s),
             lambda s: cmp.friedman_posthoc(s), lambda s: cmp.aggregate_mean(s), lambda s: cmp.iqm(s),
             lambda s: cmp.optimality_gap(s),
             lambda s: cmp.performance_profile(s, [0.7]), lambda s: cmp.variance_components(s),
             lambda s: cmp.stratified_bootstrap_ci(s, n_resamples=50, random_state=0)]
    for call in calls:
        with pytest.warns(PredstabDataWarning, match=r"^the first column of `(scores|x)` \(named "
                                                     r"'Unnamed: 0'\) looks like row names read as data"):
            call(frame)
    # read with its index (index_col=0): the scores' own values, no warning; methods named by numbers
    # (learning rates) are no misread header for scores
    with warnings.catch_warnings():
        warnings.simplefilter("error", PredstabDataWarning)
        indexed = pd.read_csv(io.StringIO(text), index_col=0)
        assert cmp.aggregate_mean(indexed) == pytest.approx(scores.mean())
        assert cmp.bonferroni_dunn(indexed).control == "rf"
        numbered = pd.DataFrame(scores, columns=["0.01", "0.1", "0.5"])
        assert cmp.aggregate_mean(numbered) == pytest.approx(scores.mean())
    with pytest.warns(PredstabDataWarning, match=r"holding 1, 2, \.\.\., 6"):
        _common.read_scores(pd.DataFrame({"id": np.arange(1, 7), "a": scores[:, 0]}), "scores", ndim=2)
