"""Hypothesis property tests of the invariances every measure promises (see tests/_registry.py).

Data are drawn on a grid of eighths in [-25, 25] (exact in binary floating point), so that
permuting and transforming only reorders sums; degenerate draws (constant matrices, equal
row means) are part of the domain and must give the same NaN / 1 after the change.
Bounded: ``max_examples`` per property and measure keeps the file well under a minute.
"""

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from tests._registry import MEASURES, RELABEL, lower_bound, transform

IDS = [m.name for m in MEASURES]
SETTINGS = settings(max_examples=12, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@st.composite
def matrices(draw, measure, min_objects=4, max_objects=9, min_replicates=2, max_replicates=5):
    n = draw(st.integers(min_objects, max_objects))
    k = draw(st.integers(min_replicates, max_replicates))
    if measure.kind in ("nominal", "ordinal"):
        x = draw(arrays(np.int64, (n, k), elements=st.integers(0, 3)))
        x[0, 0], x[1, 0] = 0, 1  # category 0 (the class selected by class-based selection) and one more
        return x
    low = 1 if measure.kind == "ratio" else -200
    elements = st.integers(low, 200).map(lambda v: v / 8.0)
    return draw(arrays(np.float64, (n, k), elements=elements, unique=measure.ties_matter))


def _value(measure, x, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # degenerate draws warn; the warnings are tested in test_common
        return measure.func(x, **kw)


def _same(a, b, rtol=1e-9):
    # exact-grid data: only the order of additions differs; NaN (undefined) must stay NaN
    np.testing.assert_allclose(a, b, rtol=rtol, atol=1e-10, equal_nan=True)


def _property(prop):
    """Run ``prop(measure, data)`` as a hypothesis test for every measure."""
    @pytest.mark.parametrize("measure", MEASURES, ids=IDS)
    @SETTINGS
    @given(data=st.data())
    def test(measure, data):
        prop(measure, data)
    test.__doc__ = prop.__doc__
    return test


def _permuting_objects(measure, data):
    """Permuting the objects (rows) changes nothing."""
    x = data.draw(matrices(measure))
    order = data.draw(st.permutations(range(x.shape[0])))
    _same(_value(measure, x[list(order)]), _value(measure, x))


def _permuting_replicates(measure, data):
    """Permuting the replicates (columns) changes nothing."""
    x = data.draw(matrices(measure))
    order = data.draw(st.permutations(range(x.shape[1])))
    _same(_value(measure, x[:, list(order)]), _value(measure, x))


def _transforming(measure, data):
    """Relabelling nominal categories, monotone maps of ordinal data, affine maps of interval data
    and rescaling of ratio data change nothing (where the level of measurement allows it)."""
    x = data.draw(matrices(measure))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    expected = _value(measure, x)
    for kind in measure.invariances:
        new, mapping = transform(kind, x, rng)
        # a x + b with a in [0.1, 10] is not exact: values agree to rounding of the sums of squares
        _same(_value(measure, new, target=None if mapping is None else mapping.get(0)), expected, rtol=1e-7)


def _identical_replicates(measure, data):
    """Identical replicates of objects that differ give the documented maximum (1)."""
    x = data.draw(matrices(measure))
    column = x[:, :1]
    if np.unique(column).size < 2:
        column = column.copy()
        column[0, 0], column[1, 0] = (0, 1) if x.dtype.kind == "i" else (1.0, 2.0)
    k = data.draw(st.integers(2, 5))
    assert _value(measure, np.repeat(column, k, axis=1)) == pytest.approx(1.0, rel=1e-12, abs=1e-12)


def _in_range(measure, data):
    """Values stay in the documented range (NaN only for undefined data)."""
    x = data.draw(matrices(measure))
    value = _value(measure, x)
    if not np.isnan(value):
        assert lower_bound(measure, x.shape[1]) - 1e-9 <= value <= measure.high + 1e-9


test_permuting_objects_changes_nothing = _property(_permuting_objects)
test_permuting_replicates_changes_nothing = _property(_permuting_replicates)
test_invariant_under_level_preserving_transformations = _property(_transforming)
test_identical_replicates_give_the_maximum = _property(_identical_replicates)
test_values_stay_in_range = _property(_in_range)


@pytest.mark.parametrize("measure", [m for m in MEASURES if RELABEL in m.invariances],
                         ids=[m.name for m in MEASURES if RELABEL in m.invariances])
@SETTINGS
@given(data=st.data())
def test_relabelling_with_any_distinct_numbers_changes_nothing(measure, data):
    x = data.draw(matrices(measure))
    codes = np.array(data.draw(st.lists(st.integers(-10**6, 10**6), min_size=4, max_size=4, unique=True)))
    _same(_value(measure, codes[x], target=int(codes[0])), _value(measure, x))


_WITH_MISSING = [m for m in MEASURES
                 if not m.name.startswith(("selection_stability", "importance_stability"))]


@pytest.mark.parametrize("measure", _WITH_MISSING, ids=[m.name for m in _WITH_MISSING])
@SETTINGS
@given(data=st.data())
def test_permutations_change_nothing_with_missing_values(measure, data):
    """Missing values (dropped objects for ICC and kappa, dropped values for alpha, phi, psi)
    travel with their object: permuting rows or columns changes nothing, an error stays an error."""
    x = data.draw(matrices(measure)).astype(float)
    mask = data.draw(arrays(np.bool_, x.shape, elements=st.sampled_from([False, False, False, True])))
    x[mask] = np.nan
    rows = list(data.draw(st.permutations(range(x.shape[0]))))
    cols = list(data.draw(st.permutations(range(x.shape[1]))))

    def outcome(m):
        try:
            return _value(measure, m)
        except ValueError as exc:  # e.g. too few complete objects: the same error either way
            return type(exc).__name__

    expected, got = outcome(x), outcome(x[rows][:, cols])
    if isinstance(expected, str) or isinstance(got, str):
        assert expected == got
    else:
        _same(got, expected)
