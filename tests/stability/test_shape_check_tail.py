"""Issue 34, item 4: the shape check of ``object_interval="checked"`` with many objects.

Target: objects that share one shape are seldom flagged (Bonferroni over the ``M`` objects). The
null draws are capped (at most 2e5 values), so at the level ``alpha / M`` of thousands of objects
they cannot resolve the quantile; the threshold was then about the draws' maximum, which flagged
about ``M / draws`` objects of normal refits (4 of 2e4 objects of 100 refits here). Rule: beyond
the draws' resolution (fewer than ``0.5 M / alpha`` draws), at least the quantile of a Pareto tail
fitted to the draws above their 0.95 quantile (written out in ``_flags_by_hand``).
"""

import warnings

import numpy as np

from predstab import phi
from tests.stability.test_intervals_shape import BASE, _flags_by_hand


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def test_twenty_thousand_objects_of_normal_refits_are_not_flagged():
    rng = np.random.default_rng(2)
    x = rng.normal(size=(20_000, 100)) * rng.uniform(0.3, 1.0, size=(20_000, 1))
    res = _quiet(phi, x, BASE, object_interval="checked")
    assert res.n_shape_outliers == 0  # 4 before (the draws' maximum as the threshold)
    x[7, 3] = 20.0  # one far refit among 100: still flagged, alone
    res = _quiet(phi, x, BASE, object_interval="checked")
    assert np.flatnonzero(res.per_object_shape_outlier).tolist() == [7]


def test_beyond_the_draws_the_flags_are_those_of_the_rule():
    # 2,000 objects of 20 refits: 10,000 draws against the 40,000 the level 0.05 / 2000 needs
    # (the threshold 13.9 extrapolated, the draws' 1 - 2.5e-5 quantile 9.2)
    rng = np.random.default_rng(7)
    x = rng.normal(size=(2000, 20)) * rng.uniform(0.5, 1.0, size=(2000, 1))
    x[100, 4] = 15.0  # sample kurtosis 16.7
    x[200, 4] = 6.0
    res = _quiet(phi, x, BASE, object_interval="checked")
    expected = _flags_by_hand(x)
    np.testing.assert_array_equal(res.per_object_shape_outlier, expected)
    assert np.flatnonzero(expected).tolist() == [100]
