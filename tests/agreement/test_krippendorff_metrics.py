"""Krippendorff's alpha with his circular and bipolar metrics and with a user's difference function
(issue 38), against fast-krippendorff 0.9.0, whose ``level_of_measurement`` takes a callable.

The expected values were produced with ``krippendorff.alpha(data.T, level_of_measurement=f)`` and
``f`` Krippendorff's (2011) difference function written as fast-krippendorff's callable
(``f(v1, v2, i1, i2, n_v, dtype)``): ``np.sin(np.pi * (v1 - v2) / (hi - lo + 1)) ** 2`` (circular),
``(v1 - v2) ** 2 / ((v1 + v2 - 2 lo) (2 hi - v1 - v2))`` (bipolar, 0 on the diagonal).
"""

import numpy as np
import pytest

from predstab import PredstabDegenerateWarning, krippendorff_alpha

nan = np.nan
# Krippendorff's (2011) worked example, 4 observers x 12 units, as units x observers
OBSERVERS = np.array([
    [1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
    [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan]]).T
# days of the week (1..7) coded by 4 coders for 15 units, two missing
DAYS = np.array([
    [2, 4, 4, 2], [7, 1, 1, 2], [1, nan, 1, 1], [1, 7, 2, 2], [2, 2, 7, 7], [3, 3, 4, 4], [2, 4, 2, 2],
    [3, 3, 1, nan], [7, 7, 2, 1], [1, 7, 1, 7], [2, 1, 7, 7], [3, 2, 2, 1], [1, 2, 2, 2], [3, 3, 1, 2],
    [1, 7, 7, 1]])


@pytest.mark.parametrize(("data", "scale", "categories", "expected"), [
    (OBSERVERS, "circular", None, 0.7899802678991507),     # lo, hi = 1, 5
    (OBSERVERS, "bipolar", None, 0.8349905200237362),
    (DAYS, "circular", range(1, 8), 0.3143211823441254),   # U = 7
    (DAYS, "circular", range(1, 9), 0.23143658688565605),  # a scale of 8 points, 8 never used
    (DAYS, "bipolar", range(1, 8), 0.0020514209721518295),
])
def test_circular_and_bipolar_match_fast_krippendorff(data, scale, categories, expected):
    res = krippendorff_alpha(data, scale=scale, categories=categories)
    assert res.value == pytest.approx(expected, rel=1e-12)
    assert res.scale == scale


def test_circular_on_the_circle_by_hand():
    # two units, two coders: (1, 7) and (2, 3) on a 7-point circle; 1 and 7 are neighbours
    data = np.array([[1.0, 7.0], [2.0, 3.0]])
    d2 = lambda c, k: np.sin(np.pi * (c - k) / 7) ** 2  # noqa: E731
    values = data.ravel()
    d_o = 2 * (d2(1, 7) + d2(2, 3)) / 4  # each unit's pair counted both ways, m_u - 1 = 1
    d_e = sum(d2(c, k) for c in values for k in values) / (4 * 3)
    res = krippendorff_alpha(data, scale="circular")
    assert res.observed == pytest.approx(d_o, rel=1e-12)
    assert res.expected == pytest.approx(d_e, rel=1e-12)
    assert res.value == pytest.approx(1 - d_o / d_e, rel=1e-12)
    # interval alpha puts 1 and 7 far apart: the circle is what makes the coders agree
    assert krippendorff_alpha(data, scale="interval").value < res.value


def test_irrcac_weights_are_the_normalised_metrics():
    for scale in ("circular", "bipolar"):
        assert krippendorff_alpha(OBSERVERS, weights=scale).value == pytest.approx(
            krippendorff_alpha(OBSERVERS, scale=scale).value, rel=1e-12)


def test_a_difference_function():
    squared = krippendorff_alpha(OBSERVERS, scale=lambda c, k: (c - k) ** 2)
    assert squared.value == pytest.approx(krippendorff_alpha(OBSERVERS, scale="interval").value, rel=1e-12)
    assert squared.scale == "custom"
    # on labels: a function of the labels themselves (here: nominal, so nominal alpha)
    labels = np.where(np.isnan(OBSERVERS), None, np.array(list("xabcde"), dtype=object)[
        np.nan_to_num(OBSERVERS).astype(int)])
    nominal = krippendorff_alpha(labels, scale=lambda c, k: (c != k).astype(float))
    assert nominal.value == pytest.approx(krippendorff_alpha(OBSERVERS).value, rel=1e-12)  # 0.743
    # fast-krippendorff 0.9.0, level_of_measurement = |v1 - v2| (not squared)
    absolute = krippendorff_alpha(OBSERVERS, scale=lambda c, k: np.abs(c - k))
    assert absolute.value == pytest.approx(0.800383877159309, rel=1e-12)


@pytest.mark.parametrize(("function", "match"), [
    (lambda c, k: c - k, "non-negative"),
    (lambda c, k: (c - k) ** 2 + 1, "0 for equal values"),
    (lambda c, k: np.maximum(c - k, 0.0), "0 for equal values and the same"),
    (lambda c, k: 1.0, "shape"),
])
def test_a_bad_difference_function_is_refused(function, match):
    with pytest.raises(ValueError, match=match):
        krippendorff_alpha(OBSERVERS, scale=function)


def test_metric_scale_errors_and_conventions():
    with pytest.raises(ValueError, match="outside the scale"):
        krippendorff_alpha(DAYS, scale="circular", categories=range(1, 7))
    with pytest.raises(ValueError, match="cannot be used with a difference function"):
        krippendorff_alpha(DAYS, scale=lambda c, k: (c - k) ** 2, categories=range(1, 8))
    with pytest.warns(PredstabDegenerateWarning):
        assert krippendorff_alpha(np.full((3, 2), 4.0), scale="circular").value == 1.0
