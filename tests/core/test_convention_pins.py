"""Values and messages of the one convention for degenerate data (``predstab._core._convention``),
pinned to the table of its docstring: the warnings' exact words and categories, the fallback, the
rounding bound of ``negligible`` at its edge, and the array rule element by element.
"""

import warnings

import numpy as np
import pytest

from predstab import PredstabDegenerateWarning, PredstabUndefinedWarning
from predstab._core._convention import negligible, one_minus_ratio, one_minus_ratio_array
from tests._memory import traced_peak

_EPS = 2.0 ** -52


def _one_warning(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = call()
    assert len(caught) == 1, [str(w.message) for w in caught]
    return value, caught[0]


def test_collapsed_data_give_one_with_the_collapse_warning_in_the_callers_words():
    value, w = _one_warning(lambda: one_minus_ratio(0.0, 0.0))
    assert value == 1.0 and type(value) is float
    assert w.category is PredstabDegenerateWarning
    assert str(w.message) == ("Both expected and observed disagreement are zero; stability is set to 1 "
                              "(perfect agreement). This may indicate that the model collapsed to a single "
                              "value.")
    value, w = _one_warning(lambda: one_minus_ratio(0, 0, name="phi", what="instability"))
    assert value == 1.0
    assert str(w.message) == ("Both expected and observed instability are zero; phi is set to 1 "
                              "(perfect agreement). This may indicate that the model collapsed to a single "
                              "value.")


def test_zero_expected_with_observed_disagreement_is_undefined_and_says_its_fallback():
    value, w = _one_warning(lambda: one_minus_ratio(0.3, 0.0))
    assert np.isnan(value) and type(value) is float
    assert w.category is PredstabUndefinedWarning
    assert str(w.message) == ("Expected disagreement is zero but observed is not; stability is undefined and "
                              "set to nan.")
    value, w = _one_warning(lambda: one_minus_ratio(2, 0, name="kappa", what="instability", fallback=0.0))
    assert value == 0.0 and type(value) is float
    assert str(w.message) == ("Expected instability is zero but observed is not; kappa is undefined and "
                              "set to 0.0.")


@pytest.mark.parametrize("d_o, d_e", [(np.nan, 1.0), (1.0, np.nan), (np.nan, 0.0), (0.0, np.nan),
                                      (np.nan, np.nan)])
def test_not_computable_is_nan_without_a_warning(d_o, d_e):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        value = one_minus_ratio(d_o, d_e)
    assert np.isnan(value) and type(value) is float


def test_the_regular_ratio_divides_by_any_nonzero_expected_disagreement():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert one_minus_ratio(1.0, 4.0) == 0.75
        assert one_minus_ratio(np.float32(3.0), np.int64(2)) == -0.5
        assert type(one_minus_ratio(np.float32(3.0), np.int64(2))) is float
        assert one_minus_ratio(1.0, -2.0) == 1.5  # a negative D_e (ICC(A,k) of irr) divides
        assert one_minus_ratio(0.0, 5e-324) == 1.0
        assert one_minus_ratio(1e-300, 1e-300) == 0.0


def test_negligible_is_part_at_most_n_eps_whole():
    # the bound itself is negligible, the next float above it is not; a negative part always is
    n, whole = 9, 1.0
    edge = n * _EPS * whole
    assert negligible(edge, whole, n) is True
    assert negligible(np.nextafter(edge, 1.0), whole, n) is False
    assert negligible(np.nextafter(edge, 0.0), whole, n) is True
    assert negligible(3e-31, 1.0, 9) is True and negligible(1e-10, 1.0, 9) is False
    assert negligible(-1.0, 1.0, 9) is True
    assert negligible(0.0, 0.0, 1) is True
    assert negligible(1e-300, 0.0, 9) is False
    # it scales with n and with the whole: 2e-15 is negligible among 10 terms of size 1, not among 9
    assert negligible(2e-15, 1.0, 10) is True and negligible(2e-15, 1.0, 9) is False
    assert negligible(1.9e-5, 1e10, 9) is True and negligible(1.9e-5, 1e9, 9) is False
    assert negligible(np.float64(edge), np.float64(whole), np.int64(n)) is True  # a Python bool


def test_the_array_rule_element_by_element_with_its_fallback():
    d_o = np.array([[0.0, 0.5, 0.0, 2.0, np.nan, 1.0], [3.0, 0.0, 0.5, 0.0, 1.0, np.nan]])
    d_e = np.array([[1.0, 0.0, 0.0, 1.0, 1.0, np.nan], [-2.0, -1.0, 0.0, 4.0, 0.0, 0.0]])
    want = np.array([[1.0, np.nan, 1.0, -1.0, np.nan, np.nan], [2.5, 1.0, np.nan, 1.0, np.nan, np.nan]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning: the caller warned once for the aggregate
        got = one_minus_ratio_array(d_o, d_e)
        np.testing.assert_array_equal(got, want)
        assert got.dtype == float and got.shape == (2, 6)
        # the fallback only where D_e is 0 and D_o positive
        got = one_minus_ratio_array(d_o, d_e, fallback=-7.0)
        np.testing.assert_array_equal(got, np.where([[0, 1, 0, 0, 0, 0], [0, 0, 1, 0, 1, 0]], -7.0, want))
        # broadcast: one D_o against a row of D_e; one D_e against objects (the divide-once path)
        np.testing.assert_array_equal(one_minus_ratio_array(0.5, np.array([1.0, 0.0, 2.0, -0.5])),
                                      [0.5, np.nan, 0.75, 2.0])
        np.testing.assert_array_equal(one_minus_ratio_array(np.array([0.0, 0.5, 3.0]), 0.0, fallback=9.0),
                                      [1.0, 9.0, 9.0])
        np.testing.assert_array_equal(one_minus_ratio_array(np.array([0.0, 0.5, 3.0]), -2.0),
                                      [1.0, 1.25, 2.5])
        np.testing.assert_array_equal(one_minus_ratio_array(np.array([0.0, 0.5]), np.nan), [np.nan, np.nan])
        np.testing.assert_array_equal(one_minus_ratio_array([1, 3], 4), [0.75, 0.25])  # lists and ints
        zero_d = one_minus_ratio_array(1.0, 4.0)
        assert zero_d.shape == () and zero_d == 0.75
        zero_d = one_minus_ratio_array(1.0, 0.0, fallback=5.0)
        assert zero_d.shape == () and zero_d == 5.0


@pytest.mark.parametrize("d_e", [0.5, 1.0, 1e-300, 2.0, -0.5])
def test_one_expected_disagreement_divides_once_in_the_objects_memory(d_e):
    # issue 33 (phi at 1e6 objects): with one D_e that divides, the objects' values cost one array
    # of their size and nothing else, for D_e below 1 too (every categorical D_e = 1 - sum p^2 is);
    # the general rule (masks, np.where) would peak at about 3x
    d_o = np.random.default_rng(0).random(200_000)
    got, peak = traced_peak(lambda: one_minus_ratio_array(d_o, d_e))
    assert peak <= 1.25 * d_o.nbytes, peak / d_o.nbytes
    np.testing.assert_array_equal(got, 1.0 - d_o / d_e)


def test_the_array_rule_reads_every_input_as_float64():
    # extended precision, float32 or integers in: the float64 rule out (values of the float64 inputs)
    third = np.array([1, 1, 2], dtype=np.longdouble) / 3
    want = 1.0 - np.array([1 / 3, 1 / 3, 2 / 3]) / 0.7
    for d_o, d_e in ((third, 0.7), (third.astype(float), np.longdouble(0.7)), (third, np.array([0.7] * 3)),
                     (third.astype(float), np.array([0.7] * 3, dtype=np.longdouble))):
        got = one_minus_ratio_array(d_o, d_e)
        assert got.dtype == np.float64
        np.testing.assert_array_equal(got, want)
    got = one_minus_ratio_array(np.array([1, 3], dtype=np.int8), np.float32(4))
    assert got.dtype == np.float64 and got.tolist() == [0.75, 0.25]
