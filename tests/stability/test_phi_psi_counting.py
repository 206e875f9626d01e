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


# --------------------------------------------------------------------------- issue 33, item 7:
# the fast paths of class phi (few codes counted by comparisons, the distinct vote tables found
# by a table of all codes, D_o,i once per distinct table, the Gini ranges once per sorted table),
# each against an independent computation or the general path


def _counts_by_hand(source, offset, n_codes):
    """(codes x objects) counts and missing counts, one comparison per code and row sum."""
    codes = np.asarray(source, dtype=np.int64) - offset
    counts = np.stack([(codes == c).sum(axis=1) for c in range(n_codes)])
    return counts, (codes < 0).sum(axis=1)


@pytest.mark.parametrize("n_cols", [1, 2, 3, 4, 5, 7, 100, 255, 256, 1020])
def test_few_codes_are_counted_as_by_hand(n_cols):
    from predstab.stability._disagreement import _row_counts, _row_counts_few

    rng = np.random.default_rng(n_cols)
    for n_codes, dtype, offset, missing in [(1, np.int8, 0, False), (5, np.int8, 0, True),
                                            (8, np.int64, -3, False), (3, np.uint8, 2, False),
                                            (6, np.int16, 0, True), (2, np.intp, 0, True)]:
        n_rows = max(3, 30_000 // n_cols)
        source = rng.integers(0, n_codes, size=(n_rows, n_cols)) + offset
        if missing:
            source[rng.random(source.shape) < 0.15] = -1
            source[0] = -1  # an object with no vote
        source = source.astype(dtype)
        if n_cols % 2:
            source = np.asfortranarray(source)
        want, want_missing = _counts_by_hand(source, offset, n_codes)
        for complete in ((False, True) if not missing else (False,)):
            got, got_missing = _row_counts_few(source, offset, n_codes, complete)
            assert got.dtype == (np.uint8 if n_cols <= 255 else np.uint16) and got.shape == (n_codes, n_rows)
            np.testing.assert_array_equal(got, want)
            np.testing.assert_array_equal(got_missing, want_missing)
            # the dispatcher takes this path, and gives what one np.bincount gives
            np.testing.assert_array_equal(_row_counts(source, offset, n_codes, complete)[0], want)


def test_more_codes_or_longer_rows_take_one_bincount(monkeypatch):
    from predstab.stability import _disagreement

    calls = []
    monkeypatch.setattr(_disagreement, "_row_counts_few", lambda *a: calls.append(a) or 1 / 0)
    rng = np.random.default_rng(2)
    for n_codes, n_cols in [(9, 20), (5, 1021)]:
        source = rng.integers(0, n_codes, size=(40, n_cols)).astype(np.int8)
        got, missing = _disagreement._row_counts(source, 0, n_codes)
        np.testing.assert_array_equal(got, _counts_by_hand(source, 0, n_codes)[0])
        assert not missing.any()
    assert calls == []
    # 8 codes of 1,020 values: the comparisons (byte lanes of at most 255 ones: no carry)
    source = np.full((3, 1020), 7, dtype=np.int8)
    monkeypatch.undo()
    np.testing.assert_array_equal(_disagreement._row_counts(source, 0, 8)[0][7], [1020] * 3)


def _first_by_hand(table):
    """(first, inverse) of the distinct rows, in the order of their first rows (np.unique)."""
    _, index, inverse = np.unique(table, axis=0, return_index=True, return_inverse=True)
    rank = np.empty(len(index), dtype=np.intp)
    rank[np.argsort(index)] = np.arange(len(index))
    return np.sort(index), rank[inverse.ravel()]


@pytest.mark.parametrize("case", ["dense codes", "hashed", "same totals", "one column"])
def test_distinct_vote_tables_as_by_hand(case):
    from predstab.stability._disagreement import _first_of_each

    rng = np.random.default_rng(len(case))
    n = 5_000
    if case == "dense codes":  # counts of 20 votes in 4 classes, missing votes: varying totals
        table = np.stack([rng.binomial(20, 0.2, size=n) for _ in range(4)], axis=1)
    elif case == "hashed":  # counts spread over 0..1000: the table of all codes would be too large
        table = rng.integers(0, 1000, size=(n, 3))
        table[rng.random(n) < 0.7] = [5, 6, 7]
    elif case == "same totals":  # 12 votes in 5 classes: the last class follows from the others
        table = rng.multinomial(12, [0.3, 0.2, 0.2, 0.2, 0.1], size=n)
    else:
        table = rng.integers(3, 9, size=(n, 1))
    table = np.asfortranarray(table.astype(np.int32))
    first, inverse = _first_of_each(table)
    want_first, want_inverse = _first_by_hand(table)
    np.testing.assert_array_equal(first, want_first)
    np.testing.assert_array_equal(inverse, want_inverse)
    np.testing.assert_array_equal(table[first][inverse], table)
    # hardly fewer distinct rows than rows: None (each row is then solved on its own)
    assert _first_of_each(np.arange(12).reshape(6, 2)) is None


@pytest.mark.parametrize("scale", ["categorical", "ordinal"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_fast_class_paths_equal_the_general_ones(scale, seed, monkeypatch):
    # every number of phi / psi by the fast paths equals that of the general paths (one
    # np.bincount, no distinct tables, each object's box solved on its own), bit for bit
    from predstab.stability import _disagreement

    rng = np.random.default_rng(seed)
    k, n, refits = [3, 5, 6][seed], [400, 3000, 800][seed], [7, 20, 12][seed]
    truth = rng.integers(0, k, size=(n, 1))
    votes = np.where(rng.random((n, refits)) < 0.6, truth, rng.integers(0, k, size=(n, refits)))
    votes[: n // 10] = votes[n // 10: 2 * (n // 10)]  # repeated vote tables, ties among counts
    gappy = votes.astype(float)
    gappy[rng.random(gappy.shape) < 0.1] = np.nan
    base = np.concatenate([np.arange(k), rng.integers(0, k, size=300)])
    kwargs = {"scale": scale, **({"categories": list(range(k))} if scale == "ordinal" else {})}
    cases = [(votes.astype(np.int8), base), (gappy, base), (votes, base.astype(float))]
    fast = [_quiet(phi, p, b, **kwargs) for p, b in cases]
    monkeypatch.setattr(_disagreement, "_FEW_CODES", 0)
    monkeypatch.setattr(_disagreement, "_first_of_each", lambda table, total=None: None)
    slow = [_quiet(phi, p, b, **kwargs) for p, b in cases]
    for a, b in zip(fast, slow, strict=True):
        for name in ("per_object", "per_object_observed", "per_object_low", "per_object_high",
                     "per_object_count"):
            np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
        assert (a.value, a.observed, tuple(a.confidence_interval)) == \
            (b.value, b.observed, tuple(b.confidence_interval))
    # and D_o,i is each object's disagreement over its ordered pairs of votes (by hand)
    rows = [row[~np.isnan(row)] for row in gappy[:200]]
    if scale == "categorical":
        want = [pair_disagreement(row) for row in rows]
    else:
        want = [ordinal_reference([row], base, list(range(k)))[0][0] if len(row) > 1 else np.nan
                for row in rows]
    np.testing.assert_allclose(fast[1].per_object_observed[:200], want, rtol=1e-12)
