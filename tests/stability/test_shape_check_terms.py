"""The shape check's and the heavy-tail note's terms (issue 34, item 4), pinned against
independent computations: the tail quantile of the null draws (``_upper_quantile``), the
threshold's dependence on the level (flags over a sweep of ``alpha`` against the rule written out
in test_intervals_shape.py), objects of exactly 4 refits in the note, and more objects than null
draws (the drawn rows' own means).
"""

import math
import warnings

import numpy as np
import pytest

from predstab import PredstabDataWarning, phi
from predstab.stability._object_intervals import _row_moments
from predstab.stability._shape_check import _shape_outliers, _upper_quantile
from tests.stability.test_intervals_shape import BASE, _flags_by_hand
from tests.stability.test_intervals_tails_note import _named, _rule_by_hand


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def _tail_by_hand(column, tail):
    """The 1 - tail quantile of the non-NaN values, at least a Pareto tail's above their 0.95
    quantile u (scale: the mean of log(v / u) over the values above u) where there are fewer
    than 0.5 / tail of them."""
    v = column[~np.isnan(column)]
    plain = np.quantile(v, 1 - tail)
    if v.size * tail >= 0.5:
        return plain
    u = np.quantile(v, 0.95)
    scale = np.mean(np.log(v[v > u] / u))
    return max(plain, u * math.exp(scale * math.log(0.05 / tail)))


def test_the_tail_quantile_per_column_with_missing_draws():
    # 201 draws (u = the 191st value exactly), two columns of different tails, NaN draws in one
    rng = np.random.default_rng(3)
    null = np.column_stack([1.0 + rng.pareto(3.0, 201), 2.0 + rng.exponential(1.0, 201)])
    null[[5, 17, 40], 1] = np.nan
    for tail in (0.01, 1e-4):
        got = _upper_quantile(null, tail)
        want = [_tail_by_hand(null[:, j], tail) for j in range(2)]
        np.testing.assert_allclose(got, want, rtol=1e-12)
    full = null[:, :1]  # no NaN: the plain quantile where the draws resolve it
    assert _upper_quantile(full, 0.01)[0] == pytest.approx(np.quantile(full, 0.99), rel=1e-12)
    assert _upper_quantile(full, 1e-4)[0] > np.max(full)  # beyond the draws: above their maximum


@pytest.mark.parametrize("seed", [0, 2, 3])
def test_the_flags_follow_the_rule_over_the_level(seed):
    # ten objects of t2.5 refits among 30: the level at which one more object is flagged, found by
    # bisection on alpha (12 steps), with the flags equal to the rule's at every level tried: the
    # threshold pinned to 1/4096 of the bracket
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(30, 20)) * rng.uniform(0.5, 1, (30, 1))
    x[:10] = rng.standard_t(2.5, size=(10, 20)) * 0.5

    def flags(alpha):
        res = _quiet(phi, x, BASE, confidence_level=1 - alpha, object_interval="checked")
        got = res.per_object_shape_outlier
        np.testing.assert_array_equal(got, _flags_by_hand(x, alpha=alpha), err_msg=f"alpha {alpha}")
        return int(got.sum())

    low, high = 0.05, 0.95
    n_low, n_high = flags(low), flags(high)
    assert n_high > n_low  # a transition inside
    for _ in range(12):
        mid = (low + high) / 2
        if flags(mid) > n_low:
            high = mid
        else:
            low = mid


def test_an_object_of_four_refits_counts_in_the_note():
    # ten objects, one of 4 refits: ten objects of 4 refits, so the note is given
    rng = np.random.default_rng(1)
    x = rng.standard_t(3, size=(10, 12)) * rng.uniform(0.5, 2, size=(10, 1))
    x[4, 4:] = np.nan
    given, rows, _, _ = _rule_by_hand(x)
    assert given
    assert _named(_quiet(phi, x, BASE).interval_note) == rows.tolist() == [0, 9, 2]


def test_more_objects_than_null_draws_use_the_drawn_rows_means():
    # 250,000 objects of 4 refits: 50,000 draws of 4 cells, fewer cells than objects
    rng = np.random.default_rng(5)
    x = rng.normal(size=(250_000, 4))
    flags, checked = _shape_outliers(x, _row_moments(x), 0.05)
    assert checked == 250_000 and flags.sum() == 0
    res = _quiet(phi, x, BASE, object_interval="checked")
    assert res.n_shape_outliers == 0


def test_shape_flags_with_missing_refits_do_not_move_with_each_objects_location():
    # the check standardises each drawn refit by its object's mean over the refits present
    # (np.nanmean's sum over count): shifting every object by its own constant changes no flag
    rng = np.random.default_rng(1)
    pred = rng.normal(size=(60, 8))
    heavy = rng.choice(60, size=3, replace=False)
    pred[heavy] = rng.standard_t(1.5, size=(3, 8))  # far heavier tails than the others
    pred[rng.random((60, 8)) < 0.15] = np.nan
    pred[:, :4] = np.where(np.isnan(pred[:, :4]), 0.1, pred[:, :4])  # at least 4 refits each
    y = rng.normal(size=200)
    shifted = pred + rng.uniform(-50, 50, size=(60, 1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PredstabDataWarning)
        a = phi(pred, y, scale="metric", object_interval="checked")
        b = phi(shifted, y, scale="metric", object_interval="checked")
    assert a.n_shape_outliers == b.n_shape_outliers == 1
    np.testing.assert_array_equal(a.per_object_shape_outlier, b.per_object_shape_outlier)
    assert np.flatnonzero(a.per_object_shape_outlier)[0] in heavy
