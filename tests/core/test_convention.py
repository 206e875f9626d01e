"""The shared degenerate-data convention (APS's) and small helpers."""

import warnings

import numpy as np
import pytest

from predstab import PredstabDegenerateWarning, PredstabUndefinedWarning
from predstab._core._convention import one_minus_ratio, one_minus_ratio_array
from predstab._core._utils import check_rng, missing_mask, seeds_from


def test_regular_ratio():
    assert one_minus_ratio(1.0, 4.0) == 0.75


def test_both_zero_is_one_with_warning():
    with pytest.warns(PredstabDegenerateWarning, match="collapsed"):
        assert one_minus_ratio(0.0, 0.0) == 1.0


def test_expected_zero_observed_positive_is_undefined():
    with pytest.warns(PredstabUndefinedWarning, match="undefined"):
        assert np.isnan(one_minus_ratio(0.3, 0.0))


def test_nan_propagates():
    assert np.isnan(one_minus_ratio(np.nan, 1.0))


def test_array_version_matches_scalar_rule():
    d_o = np.array([0.0, 0.5, 0.0, 2.0, np.nan])
    d_e = np.array([1.0, 0.0, 0.0, 1.0, 1.0])
    np.testing.assert_array_equal(one_minus_ratio_array(d_o, d_e), [1.0, np.nan, 1.0, -1.0, np.nan])


@pytest.mark.parametrize("d_e", [2.0, -3.0, np.inf, 0.0, np.nan, 1e-300])
def test_array_version_with_one_expected_value_is_elementwise_one_minus_ratio(d_e):
    # one D_e divides once (issue 33: phi at 1e6 objects); the same values as the scalar rule
    d_o = np.array([0.0, 1.0, 2.5, np.nan, np.inf, -1.0, 1e300])
    got = one_minus_ratio_array(d_o, d_e)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = [one_minus_ratio(v, d_e) if not (d_e == 0 and v < 0) else np.nan for v in d_o]
    np.testing.assert_array_equal(got, want)
    assert got.shape == d_o.shape and got.dtype == float


def test_check_rng():
    g = np.random.default_rng(3)
    assert check_rng(g) is g
    assert check_rng(5).integers(1000) == np.random.default_rng(5).integers(1000)
    with pytest.raises(TypeError, match="random_state"):
        check_rng("seed")
    with pytest.raises(TypeError, match="RandomState"):
        check_rng(np.random.RandomState(0))


def test_seeds_reproducible_and_distinct():
    s = seeds_from(42, 50)
    assert s.tolist() == seeds_from(42, 50).tolist()
    assert len(set(s.tolist())) == 50


def test_missing_mask_all_dtypes():
    import pandas as pd

    assert missing_mask(np.array([1, 2])).tolist() == [False, False]
    assert missing_mask(np.array([1.0, np.nan])).tolist() == [False, True]
    assert missing_mask(np.array(["a", None, pd.NA, np.nan], dtype=object)).tolist() == [
        False, True, True, True]
