"""The counting engines of phi and psi on every path: blocks of rows, the dense and the sparse
count tables (many categories, integer codes not starting at 0, Categoricals over several
blocks), the (N x K) @ (K x K) product of more than 16 ordinal levels; each against the share
of disagreeing ordered pairs counted per object here.
"""

import numpy as np
import pandas as pd
import pytest

from predstab import (
    PredstabDataWarning,
    phi,
)
from tests.stability._phi_psi import (
    _quiet,
    gini,
    ordinal_reference,
    pair_disagreement,
)
from validation.aps.naive import naive_stability


def test_block_boundaries_do_not_matter(monkeypatch):
    from predstab.stability import _disagreement, _object_intervals, _result

    rng = np.random.default_rng(6)
    x = rng.normal(size=(50, 9))
    x[rng.random(x.shape) < 0.1] = np.nan
    c = rng.integers(0, 4, size=(50, 9))
    ref_m = _quiet(phi, x, rng.normal(size=20))
    ref_c = _quiet(phi, c, np.arange(4), scale="categorical")
    for mod in (_disagreement, _object_intervals, _result):  # every pass in blocks of 2 rows
        monkeypatch.setattr(mod, "_BLOCK", 20)
    assert _quiet(phi, x, rng.normal(size=20)).observed == ref_m.observed
    np.testing.assert_array_equal(_quiet(phi, c, np.arange(4), scale="categorical").per_object,
                                  ref_c.per_object)


@pytest.mark.parametrize("scale", ["categorical", "ordinal"])
def test_many_categories_sparse_path_equals_definition(scale, monkeypatch):
    # many distinct values and a small dense-table limit: counts go through the sparse table
    import predstab.stability._disagreement as mod

    monkeypatch.setattr(mod, "_DENSE_CELLS", 0)
    rng = np.random.default_rng(7)
    pred = rng.integers(0, 150, size=(300, 5)) * 2 + 1000  # spread out: no direct integer codes
    base = np.concatenate([np.unique(pred), rng.choice(np.unique(pred), 50)])
    levels = np.unique(base).tolist() if scale == "ordinal" else None
    res = phi(pred.astype(float), base.astype(float), scale=scale, categories=levels)
    s, d_o, d_e = naive_stability(pred.tolist(), base.tolist(), scale, levels)
    assert res.value == pytest.approx(s, abs=1e-13)  # S is near 0 here: absolute tolerance
    assert res.observed == pytest.approx(d_o, rel=1e-12)
    assert res.expected == pytest.approx(d_e, rel=1e-12)


def test_many_text_classes_use_the_sparse_table_with_missing_rows():
    # 2,000 objects x 5 refits over 600 labels: more count cells than the dense limit (2**20)
    rng = np.random.default_rng(3)
    labels = np.array([f"c{j:03d}" for j in range(600)], dtype=object)
    pred = labels[rng.integers(0, 600, size=(2000, 5))].astype(object)
    pred[17, 2] = None
    pred[-1, :] = None  # the last object has no prediction at all: dropped
    base = list(labels) + list(labels[:100])
    with pytest.warns(PredstabDataWarning, match="missing"):
        res = phi(pred, np.array(base, dtype=object), scale="categorical")
    expected_rows = np.array([pair_disagreement(row) for row in pred])
    np.testing.assert_allclose(res.per_object_observed, expected_rows, rtol=1e-12, equal_nan=True)
    assert np.isnan(res.per_object_observed[-1])
    assert res.per_object_count[17] == 4 and res.per_object_count[-1] == 0
    assert res.per_object_count[:17].tolist() == [5] * 17
    assert res.expected == pytest.approx(gini(base), rel=1e-12)
    assert res.observed == pytest.approx(np.nanmean(expected_rows), rel=1e-12)
    assert res.value == pytest.approx(1 - np.nanmean(expected_rows) / gini(base), rel=1e-12)


def test_integer_codes_not_starting_at_zero_on_the_sparse_table():
    # 50,000 x 5 integers 1..20 are read as direct codes (offset 1) and counted sparsely
    rng = np.random.default_rng(4)
    pred = rng.integers(1, 21, size=(50_000, 5))
    base = np.tile(np.arange(1, 21), 3)
    res = phi(pred, base, scale="categorical")
    counts = np.stack([(pred == v).sum(axis=1) for v in range(1, 21)], axis=1)
    d_o = (25 - (counts ** 2).sum(axis=1)) / 20
    np.testing.assert_allclose(res.per_object_observed, d_o, rtol=1e-12)
    assert res.expected == pytest.approx(1 - 1 / 20, rel=1e-12)
    assert res.categories == tuple(range(1, 21))
    # the same data shifted to 0..19 give the same stability
    shifted = phi(pred - 1, base - 1, scale="categorical")
    assert shifted.value == pytest.approx(res.value, rel=1e-12)


def test_seventeen_ordinal_levels_take_the_matrix_product_path():
    rng = np.random.default_rng(5)
    levels = list(range(17))
    base = list(np.repeat(levels, 2)) + [3, 3, 8, 16]
    pred = rng.integers(0, 17, size=(30, 6))
    pred[0] = 4  # unanimous
    res = phi(pred, np.array(base), scale="ordinal", categories=levels)
    d_o, d_e = ordinal_reference(pred.tolist(), base, levels)
    np.testing.assert_allclose(res.per_object_observed, d_o, rtol=1e-12, atol=1e-12)
    assert res.expected == pytest.approx(d_e, rel=1e-12)
    assert res.value == pytest.approx(1 - d_o.mean() / d_e, rel=1e-12)
    # the same computation over 5 levels (pair loop) agrees with the reference too
    small = np.clip(pred, 0, 4)
    res5 = phi(small, np.clip(np.array(base), 0, 4), scale="ordinal", categories=levels[:5])
    d_o5, d_e5 = ordinal_reference(small.tolist(), list(np.clip(base, 0, 4)), levels[:5])
    np.testing.assert_allclose(res5.per_object_observed, d_o5, rtol=1e-12, atol=1e-12)
    assert res5.expected == pytest.approx(d_e5, rel=1e-12)


def test_categoricals_over_several_blocks_of_rows():
    # 60,000 objects x 5 refits as a DataFrame of Categoricals: counted in several blocks
    rng = np.random.default_rng(7)
    codes = rng.integers(0, 3, size=(60_000, 5))
    labels = np.array(["x", "y", "z"], dtype=object)
    frame = pd.DataFrame({f"r{j}": pd.Categorical.from_codes(codes[:, j], categories=["x", "y", "z"])
                          for j in range(5)})
    base = np.array(["x", "y", "z", "z"], dtype=object)
    res = phi(frame, base)
    counts = np.stack([(codes == k).sum(axis=1) for k in range(3)], axis=1)
    d_o = (25 - (counts ** 2).sum(axis=1)) / 20
    np.testing.assert_allclose(res.per_object_observed, d_o, rtol=1e-12)
    plain = phi(labels[codes], base, scale="categorical")
    assert plain.value == pytest.approx(res.value, rel=1e-12)


def test_ordinal_levels_on_the_sparse_table():
    # 800 ordinal levels (direct integer codes), 1,400 objects x 200 refits: the sparse table's
    # ordinal product table @ delta2
    rng = np.random.default_rng(10)
    pred = rng.integers(0, 800, size=(1400, 200))
    pred[0, :2] = [0, 799]
    base = np.arange(800)
    levels = list(range(800))
    res = phi(pred, base, scale="ordinal", categories=levels)
    pos = np.arange(800) + 0.5  # one baseline count per level: positions 0.5, 1.5, ...
    for i in (0, 1, 1399):
        p = pos[pred[i]]
        d_o = ((p[:, None] - p[None, :]) ** 2).sum() / (200 * 199)
        assert res.per_object_observed[i] == pytest.approx(d_o, rel=1e-12)
    assert res.expected == pytest.approx(((pos[:, None] - pos[None, :]) ** 2).mean(), rel=1e-12)
