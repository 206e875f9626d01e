"""Pins of the recommendation of an ICC(1) curve floored at 0 (``_recommend._floored_recommendation``,
issue 33's mutation table): its expected stability is NaN (no number of learners is recommended,
so there is none to expect) and its failed fit keeps the curve's points, so that ``res.fits``
still plots and prints what was measured.
"""

import math
import warnings

import numpy as np
import pytest

from predstab import TreePool, tune_num_learners

# five members of pure noise on 40 objects (as in test_floored_icc.py): the object means spread
# less than the noise predicts, so the closed form floors ICC(1) at 0 at every number of members
NOISE = np.random.default_rng(1).normal(size=(40, 5))


@pytest.fixture(scope="module")
def floored():
    pool = TreePool.from_predictions(NOISE, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the floored warning is tested in test_floored_icc.py
        return tune_num_learners(pool, method="closed_form", grid=[1, 2, 4], n_resamples=20,
                                 random_state=0)


def test_a_floored_curve_expects_no_stability(floored):
    rec = floored.recommendations["icc"]
    assert rec.rule == "none" and rec.value is None
    assert isinstance(rec.expected_stability, float) and math.isnan(rec.expected_stability)
    assert math.isnan(rec.p1)


def test_a_floored_curves_fit_keeps_its_points(floored):
    fit = floored.fits["icc"]
    assert not fit.converged and fit.message == "curve floored at 0"
    # the measured points: the grid and the floored curve (0 at every n), as in the table
    np.testing.assert_array_equal(fit.n, [1.0, 2.0, 4.0])
    np.testing.assert_array_equal(fit.observed, [0.0, 0.0, 0.0])
    np.testing.assert_array_equal(fit.observed, floored.table["icc"].to_numpy())
    assert fit.fitted.shape == fit.residuals.shape == (3,) and np.isnan(fit.fitted).all()
    assert fit.suggested_max == 16  # 4 x the largest n measured
