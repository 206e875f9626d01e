"""Value-pinning checks of predstab.krippendorff_alpha written to kill mutmut's surviving mutants.

The reference is Krippendorff's (2011) definition computed the slow way, pair by pair within
each unit (coincidences o_ck) and over all pairs of pairable values (expected disagreement),
with the four difference functions written out. It checks what the R references do not
reach: interval data longer than one block of rows (8192), ratio data with zeros, the
exact unanimity check, the missing-value slot of ``levels``, object arrays for ordinal data
and the error messages.
"""

import warnings
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from scipy import sparse

import predstab.agreement._krippendorff as kmod
from predstab import PredstabDegenerateWarning, krippendorff_alpha
from predstab._core._validation import InvalidParameterError


def reference_alpha(units, level):
    """(alpha, D_o, D_e, n pairable units, n pairable values) by the definition, pair by pair."""
    units = [[v for v in u if v is not None and not (isinstance(v, float) and np.isnan(v))] for u in units]
    units = [u for u in units if len(u) >= 2]
    values = sorted({v for u in units for v in u})
    n_c = Counter(v for u in units for v in u)
    n = sum(n_c.values())
    rank = {v: i for i, v in enumerate(values)}

    def delta(c, k):
        if level == "nominal":
            return float(c != k)
        if level == "interval":
            return float(c - k) ** 2
        if level == "ratio":
            return ((c - k) / (c + k)) ** 2 if c + k > 0 else 0.0
        lo, hi = sorted((rank[c], rank[k]))
        if lo == hi:
            return 0.0
        return (sum(n_c[values[g]] for g in range(lo, hi + 1)) - (n_c[c] + n_c[k]) / 2) ** 2

    d_o = sum(delta(u[i], u[j]) / (len(u) - 1) for u in units for i in range(len(u)) for j in range(len(u))
              if i != j) / n
    d_e = sum(n_c[c] * n_c[k] * delta(c, k) for c in values for k in values) / (n * (n - 1))
    return 1 - d_o / d_e, d_o, d_e, len(units), n


def check(res, units, level, rel=1e-10):
    value, d_o, d_e, n_units, n = reference_alpha(units, level)
    assert res.value == pytest.approx(value, rel=rel)
    assert res.observed == pytest.approx(d_o, rel=rel)
    assert res.expected == pytest.approx(d_e, rel=rel)
    assert (res.n_units, res.n_values) == (n_units, n)


def test_interval_over_several_blocks_of_rows():
    # four blocks of 8192 rows, with missing values and a mean far from 0; the second block has
    # no pairable unit and the third exactly one: the blocks are merged by Chan's update (the
    # running mean included), none is skipped
    rng = np.random.default_rng(5)
    x = np.round(5 + rng.normal(size=(30000, 3)) + 3 * rng.normal(size=(30000, 1)), 1)
    x[rng.random(x.shape) < 0.2] = np.nan
    x[8192:24576, 1:] = np.nan
    x[19000, :2] = [17.0, 17.5]
    res = krippendorff_alpha(x, level="interval")
    # the reference by variances of the pairable values (the pair-by-pair sums are too slow here)
    keep = np.count_nonzero(~np.isnan(x), axis=1) >= 2
    xs = x[keep]
    m_u = np.count_nonzero(~np.isnan(xs), axis=1)
    ss_u = np.nansum((xs - np.nanmean(xs, axis=1)[:, None]) ** 2, axis=1)
    vals = xs[~np.isnan(xs)]
    n = vals.size
    d_o = 2 * np.sum(m_u * ss_u / (m_u - 1)) / n
    d_e = 2 * np.sum((vals - vals.mean()) ** 2) / (n - 1)
    assert res.n_units == int(keep.sum()) and res.n_values == n
    assert res.observed == pytest.approx(d_o, rel=1e-10)
    assert res.expected == pytest.approx(d_e, rel=1e-10)
    assert res.value == pytest.approx(1 - d_o / d_e, rel=1e-10)
    # and the same reference agrees with the pair-by-pair definition on the last rows
    tail = x[18990:19010]
    check(krippendorff_alpha(tail, level="interval"), tail.tolist(), "interval")


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def test_small_matrix_with_missing_values_every_level(level):
    x = np.array([[0.0, 0.0, np.nan], [0.2, 0.5, 0.5], [3.0, np.nan, 2.0], [0.5, 0.2, 0.0],
                  [np.nan, np.nan, 1.0], [1.0, 3.0, 3.0], [0.0, 0.2, np.nan]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no numpy warning (ratio: 0 / 0 for the pair (0, 0))
        res = krippendorff_alpha(x, level=level)
    check(res, x.tolist(), level)


def test_unanimous_units_are_exactly_one():
    # every unit unanimous, values that are not binary fractions: D_o exactly 0, alpha exactly 1,
    # also when a unit's first replicate is missing
    x = np.array([[0.1, 0.1, np.nan], [np.nan, 0.7, 0.7], [0.3, 0.3, 0.3], [np.nan, np.nan, 0.9]] * 3)
    res = krippendorff_alpha(x, level="interval")
    assert res.observed == 0.0 and res.value == 1.0
    assert res.expected == pytest.approx(reference_alpha(x.tolist(), "interval")[2], rel=1e-10)
    # one value everywhere: D_e exactly 0 too -> 1 with the convention's warning
    y = np.where(np.isnan(x), np.nan, 0.1)
    with pytest.warns(PredstabDegenerateWarning, match="Krippendorff's alpha is set to 1"):
        res = krippendorff_alpha(y, level="interval")
    assert (res.value, res.observed, res.expected) == (1.0, 0.0, 0.0)


def test_levels_keep_missing_values_missing():
    x = np.array([["a", "b", None], ["b", "b", "c"], [None, "c", "c"], ["a", None, None], ["c", "a", "b"]],
                 dtype=object)
    for level in ("nominal", "ordinal"):
        res = krippendorff_alpha(x, level=level, levels=["a", "b", "c", "d"])
        assert res == krippendorff_alpha(np.where(x == None, np.nan, np.vectorize(  # noqa: E711
            lambda v: {"a": 0.0, "b": 1.0, "c": 2.0}.get(v, np.nan))(x)), level=level)
        check(res, [[{"a": 0, "b": 1, "c": 2}[v] for v in u if v is not None] for u in x.tolist()], level)


def test_single_category_levels_are_allowed():
    with pytest.warns(PredstabDegenerateWarning):
        assert krippendorff_alpha([["a", "a"], ["a", "a"]], levels=["a"]).value == 1.0


@pytest.mark.parametrize("column", [[1, 2, None, 3, 1, 2], [1.5, 2.5, None, 3.5, 1.5, 2.5],
                                    [1, 2.5, None, 3, 1, 2.5], [True, False, None, True, True, False]])
def test_ordinal_object_columns_of_numbers(column):
    # numbers (or booleans) held in an object array are ordered as numbers
    x = np.array([column, column[1:] + column[:1], column[2:] + column[:2]], dtype=object).T
    numeric = np.array([[np.nan if v is None else float(v) for v in row] for row in x.tolist()])
    assert krippendorff_alpha(x, level="ordinal") == krippendorff_alpha(numeric, level="ordinal")


def test_ordinal_all_missing_object_matrix():
    with pytest.warns(Warning, match="No unit"):
        res = krippendorff_alpha(np.array([[None, None], [None, None]], dtype=object), level="ordinal")
    assert np.isnan(res.value)


def test_ordinal_dataframe_of_numbers():
    df = pd.DataFrame({"a": [1, 2, 3, 3, 2], "b": [1, 3, 3, 2, 2], "c": [2, 2, 3, 3, 1]})
    assert krippendorff_alpha(df, level="ordinal") == krippendorff_alpha(df.to_numpy(), level="ordinal")
    check(krippendorff_alpha(df, level="ordinal"), df.to_numpy().tolist(), "ordinal")


def test_error_messages():
    cases = [
        (dict(ratings=[[1.0, np.inf], [np.inf, 2.0]]), ValueError,
         "`ratings` must hold finite values; got 2 infinite value(s)."),
        (dict(ratings=[[1, 2], [2, 1]], level="interval", levels=[1, 2]), ValueError,
         "`levels` fixes the order of ordinal (or the set of nominal) categories; it cannot be used with "
         "level='interval'."),
        (dict(ratings=[[1, 2], [2, 1]], levels=[[1, 2]]), InvalidParameterError,
         "`levels` must be a 1-D sequence of categories; got [[1, 2]]."),
        (dict(ratings=[[1, 2], [2, 1]], levels=[]), InvalidParameterError,
         "`levels` must list distinct categories; got []."),
        (dict(ratings=[[1, 2, 3, 4, 5, 6], [7, 1, 2, 3, 4, 5]], levels=[1]), ValueError,
         "`ratings` holds value(s) [2, 3, 4, 5, 6] that are not in `levels` [1]."),
        (dict(ratings=[[1.0, -2.0], [2.0, 1.0]], level="ratio"), ValueError,
         "`ratings` must be non-negative for level='ratio'; got negative values."),
        (dict(ratings=[["lo", "hi"], ["hi", "lo"]], level="ordinal"), ValueError,
         "level='ordinal' with non-numeric ratings (kind 'string') needs `levels` to give the order of "
         "the categories, e.g. levels=['low', 'mid', 'high']."),
    ]
    for kwargs, error, message in cases:
        ratings = kwargs.pop("ratings")
        with pytest.raises(error) as info:
            krippendorff_alpha(np.array(ratings, dtype=object if isinstance(ratings[0][0], str) else None),
                               **kwargs)
        assert str(info.value) == message


def test_table_too_large_message(monkeypatch):
    monkeypatch.setattr(kmod, "MAX_TABLE_BYTES", 3 * 2**20)
    x = np.arange(600, dtype=float).reshape(300, 2)  # 600 distinct values: 600^2 * 8 B = 2.7 MiB
    with pytest.raises(MemoryError) as info:
        krippendorff_alpha(x, level="ordinal")
    assert str(info.value) == (
        "level='ordinal' needs a 600 x 600 table of distinct values (3 MiB, several times over), above "
        "predstab.agreement._krippendorff.MAX_TABLE_BYTES (3 MiB). Round or bin the ratings to fewer "
        "distinct values, use level='interval' (which needs no such table), or raise MAX_TABLE_BYTES.")


@pytest.mark.parametrize("level", ["nominal", "ordinal", "ratio"])
def test_sparse_count_table_gives_the_same_alpha(monkeypatch, level):
    # above the memory budget for the dense units x values table, a sparse one is used
    x = np.array([[1.0, 2.0, 2.0], [3.0, 3.0, np.nan], [1.0, 1.0, 4.0], [4.0, 2.0, 3.0], [2.0, 2.0, 2.0]] * 5)
    dense = krippendorff_alpha(x, level=level)
    full = x[~np.isnan(x).any(axis=1)]
    dense_full = krippendorff_alpha(full, level=level)
    # 4 distinct values: the 4 x 4 table (x 4) fits in 512 bytes, the 20 or 25 units x 4 values do not
    monkeypatch.setattr(kmod, "MAX_TABLE_BYTES", 4 * 4 * 8 * 4)
    counts, _ = kmod._unit_counts(np.zeros((20, 3), dtype=np.int64) + [0, 1, 3], 4)
    assert sparse.issparse(counts) and counts.shape == (20, 4)
    for data, ref in ((x, dense), (full, dense_full)):
        res = krippendorff_alpha(data, level=level)
        assert res.value == pytest.approx(ref.value, rel=1e-12)
        assert (res.observed, res.expected) == (pytest.approx(ref.observed, rel=1e-12),
                                                pytest.approx(ref.expected, rel=1e-12))
        check(res, data.tolist(), level)
