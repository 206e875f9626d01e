"""Property tests (hypothesis) for phi/psi: the vectorised counts equal the pairwise definition,
and stability is invariant to the order of objects and repetitions and to nominal labels."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from predstab import phi, psi
from validation.aps.naive import naive_stability

LEVELS = ["lo", "mid", "high", "top"]


@st.composite
def label_matrices(draw, max_rows=8, max_cols=8):
    n = draw(st.integers(1, max_rows))
    r = draw(st.integers(2, max_cols))
    codes = draw(st.lists(st.integers(0, 3), min_size=n * r, max_size=n * r))
    pred = np.array([LEVELS[c] for c in codes], dtype=object).reshape(n, r)
    extra = draw(st.lists(st.integers(0, 3), min_size=1, max_size=12))
    # every predicted value occurs in the baseline (APS's requirement), plus some more
    base = sorted(set(pred.ravel())) + [LEVELS[c] for c in extra]
    return pred, base


@st.composite
def metric_matrices(draw, max_rows=8, max_cols=8):
    n = draw(st.integers(1, max_rows))
    r = draw(st.integers(2, max_cols))
    values = st.integers(-50, 50).map(lambda v: v / 4)  # quarter steps: sums are exact
    pred = np.array(draw(st.lists(values, min_size=n * r, max_size=n * r))).reshape(n, r)
    base = draw(st.lists(values, min_size=2, max_size=15))
    return pred, base


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def _same(a, b):
    return (np.isnan(a) and np.isnan(b)) or a == pytest.approx(b, rel=1e-10, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(label_matrices(), st.sampled_from(["categorical", "ordinal"]))
def test_counts_equal_pairwise_definition(data, scale):
    pred, base = data
    levels = LEVELS if scale == "ordinal" else None
    res = _quiet(phi, pred, base, scale=scale, categories=levels)
    s, d_o, d_e = naive_stability(pred.tolist(), base, scale, levels)
    assert _same(res.value, s) and _same(res.observed, d_o) and _same(res.expected, d_e)


@settings(max_examples=60, deadline=None)
@given(metric_matrices())
def test_metric_equals_definition(data):
    pred, base = data
    res = _quiet(psi, pred, base)
    s, d_o, d_e = naive_stability(pred.tolist(), base, "metric")
    assert _same(res.value, s) and _same(res.observed, d_o) and _same(res.expected, d_e)


@settings(max_examples=40, deadline=None)
@given(label_matrices(), st.randoms(use_true_random=False), st.sampled_from(["categorical", "ordinal"]))
def test_order_of_objects_and_repetitions_does_not_matter(data, random, scale):
    pred, base = data
    levels = LEVELS if scale == "ordinal" else None
    rows = list(range(pred.shape[0]))
    cols = list(range(pred.shape[1]))
    random.shuffle(rows)
    random.shuffle(cols)
    a = _quiet(phi, pred, base, scale=scale, categories=levels)
    b = _quiet(phi, pred[rows][:, cols], base[::-1], scale=scale, categories=levels)
    assert _same(a.value, b.value)
    np.testing.assert_allclose(b.per_object, a.per_object[rows], rtol=1e-12)


@settings(max_examples=40, deadline=None)
@given(label_matrices(), st.permutations(["w", "x", "y", "z"]))
def test_nominal_relabelling_does_not_matter(data, labels):
    pred, base = data
    relabel = dict(zip(LEVELS, labels, strict=True))
    a = _quiet(phi, pred, base, scale="categorical")
    b = _quiet(phi, np.vectorize(relabel.get, otypes=[object])(pred), [relabel[v] for v in base],
               scale="categorical")
    assert _same(a.value, b.value)


@settings(max_examples=40, deadline=None)
@given(label_matrices(), st.sampled_from(["categorical", "ordinal"]))
def test_identical_repetitions_are_perfectly_stable(data, scale):
    pred, base = data
    levels = LEVELS if scale == "ordinal" else None
    same = np.repeat(pred[:, :1], pred.shape[1], axis=1)
    res = _quiet(phi, same, base, scale=scale, categories=levels)
    assert res.observed == 0.0 and res.value == 1.0
