"""Values and messages of stability/_disagreement that its mutation sample of 2026-12-07 (third
round, seed 7) found unpinned: the metric moments phi's kurtosis term reads, and the categorical
path's error when every prediction is missing.
"""

import warnings

import numpy as np
import pytest

from predstab import psi
from predstab.stability._disagreement import _observed_metric


def _moments_by_hand(x):
    """Per row: non-missing count, sum of squared and of fourth-power deviations from the mean."""
    count, s2, s4 = [], [], []
    for row in x:
        v = row[~np.isnan(row)]
        dev = v - v.mean() if v.size else v
        count.append(v.size)
        s2.append(float(np.sum(dev ** 2)) if v.size >= 2 else np.nan)
        s4.append(float(np.sum(dev ** 4)))
    return np.array(count), np.array(s2), np.array(s4)


def test_metric_moments_read_as_a_sequence_of_three_arrays():
    x = np.array([[1.0, 2.0, 4.0, 7.0], [3.0, np.nan, 5.0, 10.0], [2.0, 2.0, 2.0, 2.0],
                  [np.nan, np.nan, 6.0, np.nan]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        d_o, count, _, moments = _observed_metric(x, "predictions")
    want_count, want_s2, want_s4 = _moments_by_hand(x)
    np.testing.assert_array_equal(count, want_count)
    assert len(moments) == 3
    first, second, third = moments
    np.testing.assert_array_equal(first, want_count)
    np.testing.assert_allclose(second, want_s2, rtol=1e-14, equal_nan=True)
    np.testing.assert_allclose(third, want_s4, rtol=1e-14, atol=1e-300)
    # negative indices read the same arrays as a tuple of three would
    np.testing.assert_array_equal(moments[-3], want_count)
    np.testing.assert_allclose(moments[-2], want_s2, rtol=1e-14, equal_nan=True)
    np.testing.assert_allclose(moments[1], want_s2, rtol=1e-14, equal_nan=True)
    np.testing.assert_allclose(moments[-1], want_s4, rtol=1e-14, atol=1e-300)
    # the squares are d_o (count - 1): d_o is the sample variance
    np.testing.assert_allclose(d_o[:3], want_s2[:3] / (want_count[:3] - 1), rtol=1e-14)


def test_categorical_psi_of_only_missing_predictions_says_so_in_full():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError) as info:
            psi(np.full((3, 4), np.nan), np.array([0.0, 1.0, 1.0, 2.0]), scale="categorical")
    assert str(info.value) == ("`predictions` has no object with at least two non-missing predictions; "
                               "stability cannot be computed.")


def test_continuous_numbers_read_as_classes_warn_and_categories_are_python_values():
    # floats read as labels (issue 32): 193 distinct numbers in 200 predictions, every one of them
    # in the training responses, read by scale='categorical' warn by name; and the categories a
    # result reports are the training values as Python numbers (numpy scalars print as np.int64(1))
    import predstab

    rng = np.random.default_rng(0)
    x = np.round(rng.normal(size=(40, 5)), 3)
    with pytest.warns(predstab.PredstabDataWarning, match=r"`predictions` looks continuous \(193 distinct "
                      r"numbers in 200 values"):
        predstab.phi(x, np.concatenate([x.ravel(), [0.5]]), scale="categorical")
    res = predstab.phi(np.array([[1, 2, 2, 1, 1], [1, 1, 1, 1, 1], [3, 3, 2, 3, 3]]), [1, 2, 3, 1, 2],
                       scale="categorical")
    assert res.categories == (1, 2, 3)
    assert [type(c) for c in res.categories] == [int, int, int]


def test_vote_tables_whose_keys_pass_2_to_the_32_stay_distinct():
    # 8 classes x 31 refits: a vote table's key is a base-32 number of 7 digits (the last class
    # follows from the total), 32^7 = 2^35 possible keys, so the distinct tables are hashed from
    # 64-bit keys. Object "a" (4 votes for class 0, 27 for class 7) and object "b" (31 for class 7)
    # have keys 4 * 32^6 = 2^32 apart: 32-bit keys would wrap onto one another and give "b" the
    # disagreement of "a". Checked against the counts by hand (categorical and ordinal).
    from fractions import Fraction

    from predstab import phi
    from predstab.stability._disagreement import _first_of_each

    n_refits, n_classes = 31, 8
    pure = [[c] * n_refits for c in range(n_classes - 1)]  # each class's count spans 0..31
    a, b = [0] * 4 + [7] * 27, [7] * n_refits
    x = np.array(pure + [a, b] + pure + [a, b])
    base = np.arange(n_classes).repeat(3)
    counts = np.stack([np.bincount(row, minlength=n_classes) for row in x])
    first, inverse = _first_of_each(counts, counts.sum(axis=1))
    np.testing.assert_array_equal(first, np.arange(9))
    np.testing.assert_array_equal(inverse, np.tile(np.arange(9), 2))

    # categorical: D_o,i = (R^2 - sum_c n_ic^2) / (R (R - 1)); a: (961 - 16 - 729) / 930 = 216 / 930
    d_o = [Fraction(n_refits ** 2 - int((row ** 2).sum()), n_refits * (n_refits - 1)) for row in counts]
    assert d_o[7] == d_o[16] == Fraction(216, 930) and d_o[8] == d_o[17] == 0
    d_e = 1 - sum(Fraction(3, 24) ** 2 for _ in range(n_classes))  # 8 classes of 3 training values
    want = 1 - sum(d_o) / len(d_o) / d_e  # 1 - (432/930 / 18) / (7/8) = 0.970506912...
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = phi(x, base, scale="categorical")
    assert res.value == pytest.approx(float(want), rel=1e-14)
    assert res.value == pytest.approx(0.9705069124423963, rel=1e-14)
    np.testing.assert_allclose(res.per_object_observed, [float(v) for v in d_o], rtol=1e-14, atol=0)

    # ordinal (levels 0..7, 3 training values each): delta^2(c, k) = (3 (k - c))^2
    delta2 = [[(3 * (k - c)) ** 2 for k in range(n_classes)] for c in range(n_classes)]
    d_o = [Fraction(sum(int(row[c]) * int(row[k]) * delta2[c][k] for c in range(n_classes)
                        for k in range(n_classes)), n_refits * (n_refits - 1)) for row in counts]
    d_e = Fraction(sum(delta2[c][k] for c in range(n_classes) for k in range(n_classes)), n_classes ** 2)
    want = 1 - sum(d_o) / len(d_o) / d_e
    res = phi(x, base, scale="ordinal", categories=list(range(n_classes)))
    assert res.value == pytest.approx(float(want), rel=1e-14)
    np.testing.assert_allclose(res.per_object_observed, [float(v) for v in d_o], rtol=1e-14, atol=0)


def test_categories_read_from_numpy_text_scalars_are_reported_as_python_text():
    # a baseline of numpy text scalars in an object array keeps them as such in its distinct values;
    # the result reports Python str (np.str_('a') is a str subclass, but prints as np.str_('a'))
    from predstab import phi

    t = np.str_
    x = np.array([[t("a"), t("b"), t("a"), t("a"), t("b")], [t("b")] * 5, [t("a")] * 5], dtype=object)
    base = np.array([t("a"), t("b"), t("a"), t("b"), t("b")], dtype=object)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # only 5 refits
        res = phi(x, base, scale="categorical")
    assert [type(c) for c in res.categories] == [str, str]
    assert repr(res.categories) == "('a', 'b')"
    # D_o: (25 - 9 - 4) / 20 = 0.6, 0, 0 -> 0.2; D_e = 1 - 0.4^2 - 0.6^2 = 0.48
    assert res.value == pytest.approx(1 - 0.2 / 0.48, rel=1e-14)


def test_psi_of_continuous_numbers_some_absent_from_the_space_warns_and_phi_names_it_in_its_error():
    # psi reads predictions absent from the prediction space as classes of share 0, so continuous
    # numbers read by scale='categorical' warn there too; phi refuses them, the hint in its error
    # (and no warning before it)
    import predstab

    rng = np.random.default_rng(0)
    x = np.round(rng.normal(size=(40, 5)), 3)
    space = np.concatenate([x.ravel()[:150], [0.5]])
    with pytest.warns(predstab.PredstabDataWarning, match=r"^`predictions` looks continuous \(193 distinct "
                      r"numbers in 200 values, e\.g\. 0\.126, -0\.132, 0\.64, \.\.\.\): each distinct "
                      r"number is "
                      r"read as a category of its own\. For numbers use scale='metric'"):
        res = predstab.psi(x, space, scale="categorical")
    # by hand: D_o,i = 1 - sum_c n_ic^2 / R^2 scaled by R / (R - 1); D_e = 1 - sum p_c^2 of the space
    d_o = [(25 - np.sum(np.unique(row, return_counts=True)[1] ** 2)) / 20 for row in x]
    p = np.unique(space, return_counts=True)[1] / space.size
    assert res.value == pytest.approx(1 - np.mean(d_o) / (1 - np.sum(p ** 2)), rel=1e-12)
    assert res.value == pytest.approx(-0.006844475845623865, rel=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match=r"absent from `training_observations`; `predictions` looks "
                                             r"continuous \(193 distinct numbers in 200 values\), and "
                                             r"scale='categorical' or "
                                             r"'ordinal' reads every distinct number as a class"):
            predstab.phi(x, space, scale="categorical")
