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
