"""Krippendorff's alpha with his circular and bipolar metrics, with a user's difference function and
with the expected disagreement of reference data (issue 38), against fast-krippendorff 0.9.0, whose
``level_of_measurement`` takes a callable.

The expected values were produced with ``krippendorff.alpha(data.T, level_of_measurement=f)`` and
``f`` Krippendorff's (2011) difference function written as fast-krippendorff's callable
(``f(v1, v2, i1, i2, n_v, dtype)``): ``np.sin(np.pi * (v1 - v2) / (hi - lo + 1)) ** 2`` (circular),
``(v1 - v2) ** 2 / ((v1 + v2 - 2 lo) (2 hi - v1 - v2))`` (bipolar, 0 on the diagonal).
"""

import numpy as np
import pandas as pd
import pytest

from predstab import PredstabDegenerateWarning, PredstabUndefinedWarning, krippendorff_alpha

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


def test_irrcac_weights_with_the_scale_of_categories():
    # irrCAC 1.0 circular.weights(1:8) / bipolar.weights(1:8) = 1 - delta^2 / max(delta^2): a
    # constant factor on delta^2, so the same alpha as Krippendorff's metric over the same scale
    for scale in ("circular", "bipolar"):
        weighted = krippendorff_alpha(DAYS, weights=scale, categories=range(1, 9))
        assert weighted.value == pytest.approx(
            krippendorff_alpha(DAYS, scale=scale, categories=range(1, 9)).value, rel=1e-12)
    # an 8-point circle, 8 never used (fast-krippendorff 0.9.0 above)
    assert krippendorff_alpha(DAYS, weights="circular", categories=range(1, 9)).value == pytest.approx(
        0.23143658688565605, rel=1e-12)


@pytest.mark.parametrize("factor", [1e154, 1e200, 2.0 ** 1000, 1e-160, 1e-200, 1e-300])
def test_bipolar_alpha_is_scale_invariant(factor):
    # (c - k)^2 overflowed from about 1e154 (alpha NaN) and underflowed below 1e-154 (alpha 1)
    for categories in (None, [factor, 5 * factor]):
        res = krippendorff_alpha(OBSERVERS * factor, scale="bipolar", categories=categories)
        assert res.value == pytest.approx(0.8349905200237362, rel=1e-12)  # fast-krippendorff, above


# --------------------------------------------------------------------------- expected disagreement
# of reference data: fast-krippendorff 0.9.0 has no option for it (its issue #35 asks for one);
# each value below is fast-krippendorff's own pieces, with ``from krippendorff.krippendorff import
# _coincidences, _random_coincidences, _distances, _distance_metric, _reliability_data_to_value_counts``
# and ``sub``, ``full`` (coders x units) as in the test, ``domain = np.unique(full[~np.isnan(full)])``:
#     o = _coincidences(_reliability_data_to_value_counts(sub, domain))
#     n_v = _coincidences(_reliability_data_to_value_counts(full, domain)).sum(axis=0)
#     e = _random_coincidences(n_v)
#     d = _distances(domain, _distance_metric(level), n_v)
#     alpha = 1 - ((o * d).sum() / o.sum()) / ((e * d).sum() / e.sum())
# (o sums to the subsample's pairable values, e to all the data's: fast-krippendorff's
# ``1 - (o * d).sum() / (e * d).sum()`` with this e would be off by their ratio.) ``level`` is the
# level of measurement, or f as in the module's docstring with lo, hi = 1, 5 (OBSERVERS), 1, 7 (DAYS),
# or ``|v1 - v2|`` for "absolute".
def _absolute(c, k):
    return np.abs(c - k)


@pytest.mark.parametrize(("data", "rows", "scale", "categories", "expected"), [
    (OBSERVERS, slice(0, 6), "nominal", None, 0.6653318077803205),
    (OBSERVERS, slice(5, 12), "nominal", None, 0.6334586466165414),
    (OBSERVERS, slice(0, 6), "ordinal", None, 0.7200229864040644),   # no 5 in the subsample
    (OBSERVERS, slice(5, 12), "ordinal", None, 0.6975425195611438),
    (OBSERVERS, slice(0, 6), "interval", None, 0.7678571428571429),
    (OBSERVERS, slice(5, 12), "interval", None, 0.745748299319728),
    (OBSERVERS, slice(0, 6), "ratio", None, 0.7349161619792532),
    (OBSERVERS, slice(5, 12), "ratio", None, 0.6485055644669279),
    (OBSERVERS, slice(0, 6), "circular", None, 0.6997624426307357),  # the ends 1, 5 of all the data
    (OBSERVERS, slice(0, 6), "bipolar", None, 0.7719268106817591),
    (OBSERVERS, slice(5, 12), _absolute, None, 0.691070286079883),
    (DAYS, slice(0, 8), "circular", range(1, 8), 0.2229000657176159),
    (DAYS, slice(8, 15), "bipolar", range(1, 8), -0.2844478608648837),
    (DAYS, slice(0, 8), "ordinal", None, 0.2849093929656591),
    (DAYS, slice(8, 15), "nominal", None, 0.04904799020153683),
    (DAYS, slice(0, 8), "interval", None, 0.24820791854737323),
])
def test_reference_matches_fast_krippendorff(data, rows, scale, categories, expected):
    res = krippendorff_alpha(data[rows], scale=scale, categories=categories, reference=data)
    assert res.value == pytest.approx(expected, rel=1e-12, abs=1e-14)
    # D_o is the subsample's own, D_e all the data's
    own = krippendorff_alpha(data[rows], scale=scale, categories=categories)
    whole = krippendorff_alpha(data, scale=scale, categories=categories)
    assert res.expected == pytest.approx(whole.expected, rel=1e-12)
    # the ordinal differences are the reference's, and so are the ends of circular and bipolar scales
    # without `categories` (the first six units have no 5)
    if scale != "ordinal" and (categories is not None or scale not in ("circular", "bipolar")):
        assert res.observed == pytest.approx(own.observed, rel=1e-12)
    assert (res.n_units, res.n_values, res.n_objects) == (own.n_units, own.n_values, own.n_objects)


def test_reference_ordinal_differences_from_the_reference_frequencies():
    # units x 2 coders, values 1 < 2 < 3; reference frequencies n_1, n_2, n_3 = 4, 2, 2 (8 values)
    sub = np.array([[1, 2], [2, 3]])
    ref = np.array([[1, 2], [2, 3], [1, 1], [1, 3]])
    n_g = {1: 4, 2: 2, 3: 2}

    def delta(c, k):  # Krippendorff (2011): (sum_{g=c}^{k} n_g - (n_c + n_k) / 2)^2
        lo, hi = min(c, k), max(c, k)
        return (sum(n_g[g] for g in range(lo, hi + 1)) - (n_g[c] + n_g[k]) / 2) ** 2

    d_o = (2 * delta(1, 2) + 2 * delta(2, 3)) / 4      # both orders of each unit's pair, m_u - 1 = 1
    values = ref.ravel()
    d_e = sum(delta(c, k) for c in values for k in values) / (8 * 7)
    res = krippendorff_alpha(sub, scale="ordinal", reference=ref)
    assert res.observed == pytest.approx(d_o, rel=1e-12)
    assert res.expected == pytest.approx(d_e, rel=1e-12)
    assert res.value == pytest.approx(1 - d_o / d_e, rel=1e-12)
    # its own frequencies (1, 2, 1) give both pairs delta 2.25: another D_o
    assert krippendorff_alpha(sub, scale="ordinal").observed == pytest.approx((2 * 2.25 + 2 * 2.25) / 4)


@pytest.mark.parametrize("scale", ["nominal", "ordinal", "interval", "ratio", "circular", "bipolar",
                                   _absolute])
def test_reference_of_the_data_itself_is_plain_alpha(scale):
    plain = krippendorff_alpha(OBSERVERS, scale=scale)
    res = krippendorff_alpha(OBSERVERS, scale=scale, reference=OBSERVERS)
    assert (res.value, res.observed, res.expected) == pytest.approx(
        (plain.value, plain.observed, plain.expected), rel=1e-12)


@pytest.mark.parametrize("factor", [1e160, 1e-160, 2.0 ** 400])
def test_reference_interval_units_are_shared(factor):
    # the subsample's largest value (4) and all the data's (5) have other powers of two: rescaled
    # apart, D_o and D_e would be in different units
    sub = OBSERVERS[:6]
    res = krippendorff_alpha(sub * factor, scale="interval", reference=OBSERVERS * factor)
    assert res.value == pytest.approx(0.7678571428571429, rel=1e-12)
    assert krippendorff_alpha(sub * factor, scale="ratio", reference=OBSERVERS * factor).value == \
        pytest.approx(0.7349161619792532, rel=1e-12)


def test_reference_labels_shapes_and_frames():
    letters = np.array(list("-abcde"), dtype=object)
    labels = np.where(np.isnan(OBSERVERS), None, letters[np.nan_to_num(OBSERVERS).astype(int)])
    order = list("abcde")
    # strings over numbers, a reference with more coders (padding) and a DataFrame of an ordered
    # categorical: the same alpha as on the numbers
    ref = np.column_stack([labels, np.full(len(labels), None, dtype=object)])
    res = krippendorff_alpha(labels[:6], scale="ordinal", categories=order, reference=ref)
    assert res.value == pytest.approx(0.7200229864040644, rel=1e-12)
    frame = pd.DataFrame(labels[:6]).astype(pd.CategoricalDtype(order, ordered=True))
    assert krippendorff_alpha(frame, scale="ordinal", reference=labels).value == pytest.approx(
        0.7200229864040644, rel=1e-12)
    # an order of `categories` that contradicts the ordered categorical's, in either matrix
    backwards = order[::-1]
    with pytest.raises(ValueError, match="contradicts the order of the ordered Categorical `ratings`"):
        krippendorff_alpha(frame, scale="ordinal", categories=backwards, reference=labels)
    with pytest.raises(ValueError, match="contradicts the order of the ordered Categorical `reference`"):
        krippendorff_alpha(labels[:6], scale="ordinal", categories=backwards, reference=frame)
    # integers over floats with a narrower subsample
    sub = np.array([[1, 2], [3, 3], [2, 2]])
    wide = np.column_stack([OBSERVERS, OBSERVERS[:, :1]])
    both = krippendorff_alpha(sub, scale="interval", reference=wide)
    assert both.expected == pytest.approx(krippendorff_alpha(wide, scale="interval").expected, rel=1e-12)
    assert both.observed == pytest.approx(krippendorff_alpha(sub, scale="interval").observed, rel=1e-12)


def test_reference_with_a_stack():
    items = np.stack([OBSERVERS[:6], OBSERVERS[6:12]])
    res = krippendorff_alpha(np.nan_to_num(items, nan=3.0), scale="interval", reference=OBSERVERS)
    for i in range(2):
        one = krippendorff_alpha(np.nan_to_num(items[i], nan=3.0), scale="interval", reference=OBSERVERS)
        assert res.value[i] == pytest.approx(one.value, rel=1e-12)


def test_reference_errors():
    with pytest.raises(ValueError, match="`reference` .* applies to Krippendorff's alpha without"):
        krippendorff_alpha(OBSERVERS, weights="linear", reference=OBSERVERS)
    with pytest.raises(ValueError, match="`reference` must have a unit"):
        krippendorff_alpha(OBSERVERS, reference=np.array([[1.0, nan], [nan, 2.0]]))
    with pytest.raises(ValueError, match="`ratings` or `reference` holds values outside the scale"):
        krippendorff_alpha(DAYS, scale="circular", categories=range(1, 8), reference=DAYS + 1)
    with pytest.raises(ValueError, match="`ratings` or `reference` must be non-negative"):
        krippendorff_alpha(OBSERVERS, scale="ratio", reference=-OBSERVERS)
    with pytest.raises(ValueError, match="`reference` must be a 2-D array"):
        krippendorff_alpha(OBSERVERS, reference=[1, 2, 3])
    # D_o > 0 but nothing to expect (the reference's values all equal): undefined
    with pytest.warns(PredstabUndefinedWarning):
        assert np.isnan(krippendorff_alpha(OBSERVERS, reference=np.full((3, 2), 2.0)).value)


def test_ordinal_order_only_from_one_shared_ordered_categorical():
    # two ordered categoricals of opposite orders: neither order is taken, so labels need `categories`
    frame = pd.DataFrame({"coder 1": ["a", "b", "c", "a"], "coder 2": ["a", "c", "c", "b"]})
    frame["coder 1"] = frame["coder 1"].astype(pd.CategoricalDtype(list("abc"), ordered=True))
    frame["coder 2"] = frame["coder 2"].astype(pd.CategoricalDtype(list("cba"), ordered=True))
    with pytest.raises(ValueError, match="needs `categories`"):
        krippendorff_alpha(frame, scale="ordinal")
    # given, the order is the user's: the same alpha as on the codes 1 < 2 < 3
    codes = np.array([[1, 1], [2, 3], [3, 3], [1, 2]])
    assert krippendorff_alpha(frame, scale="ordinal", categories=list("abc")).value == pytest.approx(
        krippendorff_alpha(codes, scale="ordinal").value, rel=1e-12)
