"""predstab.krippendorff_alpha: Krippendorff (2011), irr::kripp.alpha (and its defect), krippendorff."""

import warnings
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import sparse

import predstab.agreement._krippendorff as kmod
from predstab import PredstabDegenerateWarning, PredstabUndefinedWarning, krippendorff_alpha
from predstab._core._validation import InvalidParameterError
from validation._table import REFERENCE, load_json
from validation.suites.classic import KRIPPENDORFF_2011, irr_defect_undone, irr_kripp_alpha, r_codes

IRR = load_json("classic", "expected", "irr_kripp_alpha.json")
LEVELS = ("nominal", "ordinal", "interval", "ratio")
# Krippendorff (2011), "Computing Krippendorff's alpha-reliability", section C (3 decimals)
PUBLISHED = {"nominal": 0.743, "ordinal": 0.815, "interval": 0.849, "ratio": 0.797}


def case(name):
    return r_codes(pd.read_csv(REFERENCE / "classic" / "cases" / f"{name}.csv").to_numpy())


@pytest.mark.parametrize("level", LEVELS)
def test_worked_example(level):
    res = krippendorff_alpha(KRIPPENDORFF_2011.T, scale=level)
    assert res.value == pytest.approx(PUBLISHED[level], abs=5e-4)  # published to 3 decimals
    assert (res.n_units, res.n_values) == (11, 40)  # unit 12 has a single value: not pairable


def test_worked_example_nominal_exact_fraction():
    # Krippendorff (2011), section C: coincidence diagonal (7, 10, 8, 4, 3), n_c = (9, 13, 10, 5, 3),
    # n = 40; nominal alpha = 1 - (n - 1) (n - sum_c o_cc) / (n^2 - sum_c n_c^2)
    expected = 1 - 39 * (40 - 32) / (40**2 - (81 + 169 + 100 + 25 + 9))
    assert krippendorff_alpha(KRIPPENDORFF_2011.T).value == pytest.approx(expected, rel=1e-14)


@pytest.mark.parametrize("level", LEVELS)
def test_matches_krippendorff_package(level):
    krippendorff = pytest.importorskip("krippendorff")
    rng = np.random.default_rng(7)
    m = rng.integers(1, 6, size=(30, 4)).astype(float)
    m[rng.random(m.shape) < 0.1] = np.nan
    ref = krippendorff.alpha(reliability_data=m.T, level_of_measurement=level)
    assert krippendorff_alpha(m, scale=level).value == pytest.approx(ref, rel=1e-12)


@pytest.mark.parametrize("name", sorted(IRR))
def test_irr_where_irr_follows_the_definition_and_its_defect_elsewhere(name):
    m = case(name)
    complete = not np.isnan(m).any()
    for r in IRR[name]:
        if r["value"] is None:  # R skipped ratio alpha on values <= 0
            continue
        ours = krippendorff_alpha(m, scale=r["method"])
        # R: irr::kripp.alpha(t(codes), method)$value  (irr 0.84.1)
        if not complete or m.shape[1] == 2:
            assert ours.value == pytest.approx(r["value"], rel=1e-10)
        else:
            # irr leaves out the 1/(m_u - 1) of the coincidences on complete data;
            # a port of irr's code reproduces its number, and undoing it gives ours
            assert irr_kripp_alpha(m.T, r["method"]) == pytest.approx(r["value"], rel=1e-10)
            corrected = irr_defect_undone(r["value"], ours.n_values, m.shape[1])
            assert ours.value == pytest.approx(corrected, rel=1e-10)
            assert abs(ours.value - r["value"]) > 1e-4  # the difference is real, not rounding


def test_port_equals_definition_when_one_value_is_missing():
    m = case("c_50x4_ordinal")
    m[0, 0] = np.nan
    for level in LEVELS:
        assert irr_kripp_alpha(m.T, level) == pytest.approx(krippendorff_alpha(m, scale=level).value,
                                                            rel=1e-12)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from(LEVELS))
def test_invariances(seed, level):
    rng = np.random.default_rng(seed)
    m = rng.integers(1, 6, size=(12, 4)).astype(float)
    m[rng.random(m.shape) < 0.15] = np.nan
    base = krippendorff_alpha(m, scale=level).value
    perm = m[rng.permutation(12)][:, rng.permutation(4)]
    assert krippendorff_alpha(perm, scale=level).value == pytest.approx(base, rel=1e-10, abs=1e-12)
    if level in ("interval", "ratio"):
        assert krippendorff_alpha(2.5 * m, scale=level).value == pytest.approx(base, rel=1e-10, abs=1e-12)
    if level == "interval":
        assert krippendorff_alpha(m - 7, scale=level).value == pytest.approx(base, rel=1e-10, abs=1e-12)
    if level == "ordinal":  # any increasing relabelling
        assert krippendorff_alpha(m**3, scale=level).value == pytest.approx(base, rel=1e-10, abs=1e-12)
    if level == "nominal":  # any relabelling, strings included
        labels = np.array(["v", "w", "x", "y", "z"], dtype=object)[rng.permutation(5)]
        relabelled = np.where(np.isnan(m), None, labels[np.nan_to_num(m).astype(int) - 1])
        assert krippendorff_alpha(relabelled).value == pytest.approx(base, rel=1e-10, abs=1e-12)


def test_missing_value_spellings():
    m = KRIPPENDORFF_2011.T
    obj = m.astype(object)
    obj[np.isnan(m)] = None
    na = pd.DataFrame(m).astype("Float64")  # pd.NA
    values = {krippendorff_alpha(x, scale="interval").value for x in (m, obj, na)}
    assert len(values) == 1


def test_string_ordinal_with_levels():
    words = np.array(["low", "mid", "high"], dtype=object)
    m = np.array([[0, 0, 1], [1, 1, 1], [2, 1, 2], [0, 1, 0], [2, 2, 2]])
    as_words = words[m]
    ours = krippendorff_alpha(as_words, scale="ordinal", categories=["low", "mid", "high"])
    assert ours.value == pytest.approx(krippendorff_alpha(m, scale="ordinal").value, rel=1e-14)
    # an unused extra category does not change alpha
    more = krippendorff_alpha(as_words, scale="ordinal", categories=["none", "low", "mid", "high"])
    assert more.value == pytest.approx(ours.value, rel=1e-14)
    with pytest.raises(ValueError, match="not in `categories`"):
        krippendorff_alpha(as_words, scale="ordinal", categories=["low", "mid"])
    with pytest.raises(ValueError, match="needs `categories`"):
        krippendorff_alpha(as_words, scale="ordinal")


def test_degenerate_and_undefined():
    with pytest.warns(PredstabDegenerateWarning):
        assert krippendorff_alpha(np.full((4, 3), 2.0), scale="interval").value == 1.0
    with pytest.warns(PredstabDegenerateWarning):
        assert krippendorff_alpha([["a", "a"], ["a", "a"], ["a", None]]).value == 1.0
    with pytest.warns(PredstabUndefinedWarning):
        assert np.isnan(krippendorff_alpha([[1.0, np.nan], [np.nan, 2.0]]).value)


def test_large_continuous_interval_is_linear():
    rng = np.random.default_rng(0)
    m = rng.normal(size=(200_000, 1)) + rng.normal(scale=0.5, size=(200_000, 5))
    res = krippendorff_alpha(m, scale="interval")
    assert 0.7 < res.value < 0.9 and res.n_values == m.size


def test_memory_budget(monkeypatch):
    monkeypatch.setattr(kmod, "MAX_TABLE_BYTES", 2**16)
    m = np.arange(400.0).reshape(100, 4)
    with pytest.raises(MemoryError, match="MAX_TABLE_BYTES"):
        krippendorff_alpha(m, scale="ratio")
    with pytest.raises(MemoryError, match="scale='interval'"):
        krippendorff_alpha(m, scale="ordinal")
    # nominal and interval never build a values x values table
    krippendorff_alpha(m, scale="interval")
    krippendorff_alpha(m, scale="nominal")


@pytest.mark.parametrize("level", LEVELS)
def test_sparse_counts_give_the_same_value(monkeypatch, level):
    m = case("c_50x4_ordinal")
    m[3, 1] = np.nan
    dense = krippendorff_alpha(m, scale=level).value
    monkeypatch.setattr(kmod, "MAX_TABLE_BYTES", 8 * 5 * 5 * 4)  # fits V x V, not units x V
    assert krippendorff_alpha(m, scale=level).value == pytest.approx(dense, rel=1e-13)


@pytest.mark.parametrize("ratings, kwargs, exc, match", [
    ([], {}, ValueError, "`ratings`"),
    (np.empty((0, 3)), {}, ValueError, "empty"),
    ([[1], [2]], {}, ValueError, "at least 2 replicates"),
    ([[1, 2], [3]], {}, ValueError, "rectangular"),
    ([["a", "b"], ["c", "d"]], {"scale": "interval"}, TypeError, "must hold numbers"),
    ([[1.0, -2.0], [3.0, 4.0]], {"scale": "ratio"}, ValueError, "non-negative"),
    ([[1, 2], [3, 4]], {"scale": "metric"}, ValueError, "`scale`"),
    ([[1, 2], [3, 4]], {"scale": "interval", "categories": [1, 2, 3, 4]}, ValueError, "`categories`"),
    ([[1, 2], [3, 4]], {"scale": "ordinal", "categories": [1, 1, 2]}, ValueError, "distinct"),
    (np.array([[1, "a"], ["b", 2]], dtype=object), {}, TypeError, "one comparable kind"),
])
def test_bad_input(ratings, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        krippendorff_alpha(ratings, **kwargs)


def brute_force_alpha(m, level):
    """Krippendorff (2011) step by step: pairs within units -> coincidences -> alpha."""
    values = np.unique(m[~np.isnan(m)])
    index = {v: i for i, v in enumerate(values)}
    o = np.zeros((len(values), len(values)))
    for unit in m:
        present = unit[~np.isnan(unit)]
        if len(present) < 2:
            continue
        for i, a in enumerate(present):
            for j, b in enumerate(present):
                if i != j:
                    o[index[a], index[b]] += 1 / (len(present) - 1)
    n_c = o.sum(axis=1)
    n = n_c.sum()
    delta = np.zeros_like(o)
    for c in range(len(values)):
        for k in range(len(values)):
            if level == "nominal":
                delta[c, k] = float(c != k)
            elif level == "ordinal":
                lo, hi = min(c, k), max(c, k)
                delta[c, k] = (n_c[lo:hi + 1].sum() - (n_c[c] + n_c[k]) / 2) ** 2 if c != k else 0.0
            elif level == "interval":
                delta[c, k] = (values[c] - values[k]) ** 2
            else:
                delta[c, k] = ((values[c] - values[k]) / (values[c] + values[k])) ** 2
    d_o = (o * delta).sum() / n
    d_e = (np.outer(n_c, n_c) * delta).sum() / (n * (n - 1))
    return 1 - d_o / d_e


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from(LEVELS), st.integers(2, 6), st.floats(0, 0.4))
def test_equals_brute_force_definition(seed, level, n_rep, p_missing):
    rng = np.random.default_rng(seed)
    m = rng.integers(1, 7, size=(10, n_rep)).astype(float)
    m[rng.random(m.shape) < p_missing] = np.nan
    paired = (np.count_nonzero(~np.isnan(m), axis=1) >= 2)
    if len(np.unique(m[paired][~np.isnan(m[paired])])) < 2:
        return  # degenerate: covered by test_degenerate_and_undefined
    expected = brute_force_alpha(m, level)
    assert krippendorff_alpha(m, scale=level).value == pytest.approx(expected, rel=1e-10, abs=1e-12)


def test_ordered_categorical_frame_gives_the_order():
    order = pd.CategoricalDtype(["low", "mid", "high"], ordered=True)
    m = np.array([[0, 0, 1], [1, 1, 1], [2, 1, 2], [0, 1, 0], [2, 2, 2]])
    frame = pd.DataFrame(np.array(["low", "mid", "high"], dtype=object)[m]).astype(order)
    expected = krippendorff_alpha(m, scale="ordinal").value
    assert krippendorff_alpha(frame, scale="ordinal").value == pytest.approx(expected, rel=1e-14)
    assert krippendorff_alpha(frame.astype(object), scale="ordinal",
                              categories=order).value == pytest.approx(expected, rel=1e-14)


@pytest.mark.parametrize("level", ["nominal", "ordinal"])
def test_small_integer_dtypes_with_a_wide_range(level):
    # int8 labels -100 .. 100: coding them must not wrap around in int8 (it used to raise)
    m = np.array([[-100, 100, 100], [0, 0, 1], [100, 100, 100], [-100, -100, 0]])
    assert krippendorff_alpha(m.astype(np.int8), scale=level).value == \
        krippendorff_alpha(m, scale=level).value


def test_print_follows_irr_print_irrlist():
    # R: print(irr::kripp.alpha(t(c_10x2_ordinal), "nominal"))  (irr 0.84.1): alpha 0.0952
    # (irr_kripp_alpha.json, format(x, digits = 3)); irr's subjects are the units (our rows), its
    # raters its rows (our columns)
    two = pd.read_csv(REFERENCE / "classic" / "cases" / "c_10x2_ordinal.csv").to_numpy()
    assert str(krippendorff_alpha(two)).splitlines() == [
        " Krippendorff's alpha", "", " Subjects = 10", "   Raters = 2", "    alpha = 0.0952"]
    m = pd.read_csv(REFERENCE / "classic" / "cases" / "c_30x6_4cat.csv").to_numpy()
    assert krippendorff_alpha(m).to_frame().to_dict("records") == [{
        "value": krippendorff_alpha(m).value, "observed": krippendorff_alpha(m).observed,
        "expected": krippendorff_alpha(m).expected, "scale": "nominal", "n_units": 30, "n_values": 180,
        "n_objects": 30, "n_raters": 6}]


# --------------------------------------------------------- value-pinning checks (mutation testing)
# Value-pinning checks of predstab.krippendorff_alpha written to kill mutmut's surviving mutants.
#
# The reference is Krippendorff's (2011) definition computed the slow way, pair by pair within
# each unit (coincidences o_ck) and over all pairs of pairable values (expected disagreement),
# with the four difference functions written out. It checks what the R references do not
# reach: interval data longer than one block of rows (8192), ratio data with zeros, the
# exact unanimity check, the missing-value slot of ``categories``, object arrays for ordinal data
# and the error messages.


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
    res = krippendorff_alpha(x, scale="interval")
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
    check(krippendorff_alpha(tail, scale="interval"), tail.tolist(), "interval")


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def test_small_matrix_with_missing_values_every_level(level):
    x = np.array([[0.0, 0.0, np.nan], [0.2, 0.5, 0.5], [3.0, np.nan, 2.0], [0.5, 0.2, 0.0],
                  [np.nan, np.nan, 1.0], [1.0, 3.0, 3.0], [0.0, 0.2, np.nan]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no numpy warning (ratio: 0 / 0 for the pair (0, 0))
        res = krippendorff_alpha(x, scale=level)
    check(res, x.tolist(), level)


def test_unanimous_units_are_exactly_one():
    # every unit unanimous, values that are not binary fractions: D_o exactly 0, alpha exactly 1,
    # also when a unit's first replicate is missing
    x = np.array([[0.1, 0.1, np.nan], [np.nan, 0.7, 0.7], [0.3, 0.3, 0.3], [np.nan, np.nan, 0.9]] * 3)
    res = krippendorff_alpha(x, scale="interval")
    assert res.observed == 0.0 and res.value == 1.0
    assert res.expected == pytest.approx(reference_alpha(x.tolist(), "interval")[2], rel=1e-10)
    # one value everywhere: D_e exactly 0 too -> 1 with the convention's warning
    y = np.where(np.isnan(x), np.nan, 0.1)
    with pytest.warns(PredstabDegenerateWarning, match="Krippendorff's alpha is set to 1"):
        res = krippendorff_alpha(y, scale="interval")
    assert (res.value, res.observed, res.expected) == (1.0, 0.0, 0.0)


def test_levels_keep_missing_values_missing():
    x = np.array([["a", "b", None], ["b", "b", "c"], [None, "c", "c"], ["a", None, None], ["c", "a", "b"]],
                 dtype=object)
    for level in ("nominal", "ordinal"):
        res = krippendorff_alpha(x, scale=level, categories=["a", "b", "c", "d"])
        assert res == krippendorff_alpha(np.where(x == None, np.nan, np.vectorize(  # noqa: E711
            lambda v: {"a": 0.0, "b": 1.0, "c": 2.0}.get(v, np.nan))(x)), scale=level)
        check(res, [[{"a": 0, "b": 1, "c": 2}[v] for v in u if v is not None] for u in x.tolist()], level)


def test_single_category_levels_are_allowed():
    with pytest.warns(PredstabDegenerateWarning):
        assert krippendorff_alpha([["a", "a"], ["a", "a"]], categories=["a"]).value == 1.0


@pytest.mark.parametrize("column", [[1, 2, None, 3, 1, 2], [1.5, 2.5, None, 3.5, 1.5, 2.5],
                                    [1, 2.5, None, 3, 1, 2.5], [True, False, None, True, True, False]])
def test_ordinal_object_columns_of_numbers(column):
    # numbers (or booleans) held in an object array are ordered as numbers
    x = np.array([column, column[1:] + column[:1], column[2:] + column[:2]], dtype=object).T
    numeric = np.array([[np.nan if v is None else float(v) for v in row] for row in x.tolist()])
    assert krippendorff_alpha(x, scale="ordinal") == krippendorff_alpha(numeric, scale="ordinal")


def test_ordinal_all_missing_object_matrix():
    with pytest.warns(Warning, match="No unit"):
        res = krippendorff_alpha(np.array([[None, None], [None, None]], dtype=object), scale="ordinal")
    assert np.isnan(res.value)


def test_ordinal_dataframe_of_numbers():
    df = pd.DataFrame({"a": [1, 2, 3, 3, 2], "b": [1, 3, 3, 2, 2], "c": [2, 2, 3, 3, 1]})
    assert krippendorff_alpha(df, scale="ordinal") == krippendorff_alpha(df.to_numpy(), scale="ordinal")
    check(krippendorff_alpha(df, scale="ordinal"), df.to_numpy().tolist(), "ordinal")


def test_error_messages():
    cases = [
        (dict(ratings=[[1.0, np.inf], [np.inf, 2.0]]), ValueError,
         "`ratings` must hold finite values; got 2 infinite value(s)."),
        (dict(ratings=[[1, 2], [2, 1]], scale="interval", categories=[1, 2]), ValueError,
         "`categories` fixes the order of ordinal (or the set of nominal) categories; it cannot be used "
         "with scale='interval'."),
        (dict(ratings=[[1, 2], [2, 1]], categories=[[1, 2]]), InvalidParameterError,
         "`categories` must be a 1-D sequence of categories; got [[1, 2]]."),
        (dict(ratings=[[1, 2], [2, 1]], categories=[]), InvalidParameterError,
         "`categories` must list distinct categories; got []."),
        (dict(ratings=[[1, 2, 3, 4, 5, 6], [7, 1, 2, 3, 4, 5]], categories=[1]), ValueError,
         "`ratings` holds value(s) [2, 3, 4, 5, 6] that are not in `categories` [1]."),
        (dict(ratings=[[1.0, -2.0], [2.0, 1.0]], scale="ratio"), ValueError,
         "`ratings` must be non-negative for scale='ratio'; got negative values."),
        (dict(ratings=[["lo", "hi"], ["hi", "lo"]], scale="ordinal"), ValueError,
         "scale='ordinal' with non-numeric ratings (kind 'string') needs `categories` to give the order "
         "of the categories, e.g. categories=['low', 'mid', 'high']."),
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
        krippendorff_alpha(x, scale="ordinal")
    assert str(info.value) == (
        "scale='ordinal' needs a 600 x 600 table of distinct values (3 MiB, several times over), above "
        "predstab.agreement._krippendorff.MAX_TABLE_BYTES (3 MiB). Round or bin the ratings to fewer "
        "distinct values, use scale='interval' (which needs no such table), or raise MAX_TABLE_BYTES.")


@pytest.mark.parametrize("level", ["nominal", "ordinal", "ratio"])
def test_sparse_count_table_gives_the_same_alpha(monkeypatch, level):
    # above the memory budget for the dense units x values table, a sparse one is used
    x = np.array([[1.0, 2.0, 2.0], [3.0, 3.0, np.nan], [1.0, 1.0, 4.0], [4.0, 2.0, 3.0], [2.0, 2.0, 2.0]] * 5)
    dense = krippendorff_alpha(x, scale=level)
    full = x[~np.isnan(x).any(axis=1)]
    dense_full = krippendorff_alpha(full, scale=level)
    # 4 distinct values: the 4 x 4 table (x 4) fits in 512 bytes, the 20 or 25 units x 4 values do not
    monkeypatch.setattr(kmod, "MAX_TABLE_BYTES", 4 * 4 * 8 * 4)
    counts, _ = kmod._unit_counts(np.zeros((20, 3), dtype=np.int64) + [0, 1, 3], 4)
    assert sparse.issparse(counts) and counts.shape == (20, 4)
    for data, ref in ((x, dense), (full, dense_full)):
        res = krippendorff_alpha(data, scale=level)
        assert res.value == pytest.approx(ref.value, rel=1e-12)
        assert (res.observed, res.expected) == (pytest.approx(ref.observed, rel=1e-12),
                                                pytest.approx(ref.expected, rel=1e-12))
        check(res, data.tolist(), level)


def _irrcac_alpha_by_hand(x):
    """irrCAC 1.0's krippen.alpha.raw, unweighted, written from its R source with loops: alpha,
    pa, pe and the variance over the units rated at least twice (n - 1 degrees of freedom)."""
    rows = [[v for v in row if v == v] for row in np.asarray(x, dtype=float).tolist()]
    rows = [row for row in rows if len(row) >= 2]
    cats = sorted({v for row in rows for v in row})
    counts = [[row.count(c) for c in cats] for row in rows]
    n = len(rows)
    r = [len(row) for row in rows]
    r_mean = sum(r) / n
    eps = 1 / sum(r)
    sum_q = [sum(c * (c - 1) for c in cnt) for cnt in counts]
    pa_prime = sum(s / (r_mean * (ri - 1)) for s, ri in zip(sum_q, r, strict=True)) / n
    pa = (1 - eps) * pa_prime + eps
    pi = [sum(cnt[k] for cnt in counts) / r_mean / n for k in range(len(cats))]
    pe = sum(p * p for p in pi)
    alpha_prime = (pa_prime - pe) / (1 - pe)
    x_i = []
    for s, ri, cnt in zip(sum_q, r, counts, strict=True):
        pa_i = s / (r_mean * (ri - 1)) - pa * (ri - r_mean) / r_mean
        pe_i = sum(c * p for c, p in zip(cnt, pi, strict=True)) / r_mean - pe * (ri - r_mean) / r_mean
        x_i.append((pa_i - pe) / (1 - pe) - 2 * (1 - alpha_prime) * (pe_i - pe) / (1 - pe))
    var = sum((v - alpha_prime) ** 2 for v in x_i) / (n * (n - 1))
    return (pa - pe) / (1 - pe), pa, pe, var


def test_weighted_alpha_of_two_pairable_units_has_one_degree_of_freedom():
    # the smallest sample with a variance: two units rated at least twice (a third rated once is
    # left out), a t interval with n - 1 = 1 degree of freedom
    from scipy import stats

    x = np.array([[1, 1, 2], [2, 2, 2], [1, np.nan, np.nan]])
    alpha, pa, pe, var = _irrcac_alpha_by_hand(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = krippendorff_alpha(x, weights="unweighted")
    assert (res.value, res.pa, res.pe) == pytest.approx((alpha, pa, pe), rel=1e-13)
    assert res.standard_error == pytest.approx(np.sqrt(var), rel=1e-13)
    assert (res.n_units, res.n_objects, res.df, res.n_values) == (2, 3, 1, 6)
    assert res.pvalue == pytest.approx(2 * stats.t.sf(abs(alpha) / np.sqrt(var), 1), rel=1e-12)
    assert res.value == pytest.approx(krippendorff_alpha(x).value, rel=1e-13)  # nominal alpha


def test_weighted_alpha_without_a_pairable_unit_is_undefined_in_every_field():
    x = np.array([[1, np.nan], [np.nan, 2], [3, np.nan]])
    with pytest.warns(PredstabUndefinedWarning) as record:
        res = krippendorff_alpha(x, weights="quadratic")
    assert [str(w.message) for w in record] == [
        "No unit (object) has two or more values; Krippendorff's alpha is undefined and set to nan."]
    for name in ("value", "observed", "expected", "standard_error", "pvalue", "pa", "pe"):
        assert np.isnan(getattr(res, name)), name
    assert np.isnan(res.confidence_interval.low) and np.isnan(res.confidence_interval.high)
    assert (res.n_units, res.n_values, res.df, res.n_objects, res.n_raters) == (0, 0, -1, 3, 2)
    assert res.scale == "nominal" and res.weights == "quadratic"


@pytest.mark.parametrize("value", [0.1, 1000000.1, 1e-200, 7e150])
def test_equal_values_whose_mean_rounds_are_perfect_agreement(value):
    # found while killing a mutant of the stack path: the mean of thirty 0.1 is not 0.1, so the
    # interval path's sums of squares were rounding noise (5.8e-34 and 3.6e-33) and alpha 0.84; the
    # convention says 1 with a PredstabDegenerateWarning (D_o = D_e = 0), as for 0.3 or 4.0
    x = np.full((10, 3), value)
    with pytest.warns(PredstabDegenerateWarning, match="Both expected and observed disagreement are zero"):
        res = krippendorff_alpha(x, scale="interval")
    assert (res.value, res.observed, res.expected) == (1.0, 0.0, 0.0)
    x[4, 1] = np.nan  # a missing value: the same
    with pytest.warns(PredstabDegenerateWarning):
        assert krippendorff_alpha(x, scale="interval").value == 1.0


@pytest.mark.parametrize("extreme", ["large", "small", "both", "none"])
def test_interval_alpha_of_a_stack_of_extreme_magnitudes_equals_each_items_alpha(extreme):
    # the vectorised stack path takes stacks of complete items of ordinary magnitude; a stack with
    # an item beyond 2^100 or below 2^-100 goes item by item through the one-matrix function,
    # which rescales it; every value equal (0.1, whose mean rounds) is exactly unanimous
    rng = np.random.default_rng(21)
    x = rng.normal(size=(6, 10, 3)) + rng.normal(size=(6, 10, 1))
    if extreme in ("large", "both"):
        x[1] *= 1e200
    if extreme in ("small", "both"):
        x[2] *= 1e-200
    x[3] = 0.1  # every value equal: D_e = D_o = 0, alpha 1 by the convention
    x[4, :, :] = x[4, :, :1]  # unanimous units that differ: alpha 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = krippendorff_alpha(x, scale="interval")
        want = [krippendorff_alpha(item, scale="interval") for item in x]
    for field in ("value", "observed", "expected"):
        np.testing.assert_allclose(getattr(got, field), [getattr(w, field) for w in want], rtol=1e-12,
                                   atol=0, err_msg=field)
    assert got.value[3] == 1.0 and got.expected[3] == 0.0 and got.value[4] == 1.0


def test_alpha_of_a_stack_warns_in_words_with_the_item_count():
    x = np.random.default_rng(22).integers(0, 3, size=(5, 8, 3))
    x[2] = 1
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        krippendorff_alpha(x)
    assert [str(w.message) for w in record if w.category is PredstabDegenerateWarning] == [
        "1 of 5 items: Both expected and observed disagreement are zero; Krippendorff's alpha is set to 1 "
        "(perfect agreement). This may indicate that the model collapsed to a single value."]


def test_interval_alpha_extra_memory_is_small():
    # issue 33: a mask of the whole matrix alive through the computation (0.125x the input), the
    # infinity check's mask (0.125x) and two blocks of deviations: 0.143x the input at 1e6 x 100
    import tracemalloc

    rng = np.random.default_rng(11)
    x = rng.normal(size=(200_000, 1)) * 3 + rng.normal(size=(200_000, 100))
    krippendorff_alpha(x[:100], scale="interval")
    tracemalloc.start()
    try:
        res = krippendorff_alpha(x, scale="interval")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 0.1 * x.nbytes
    # the value from the definition: D_o from the units' variances, D_e from the pooled one
    d_o = 2.0 * np.sum(np.var(x, axis=1, ddof=1) * 100) / x.size
    d_e = 2.0 * np.var(x) * x.size / (x.size - 1)
    assert res.value == pytest.approx(1 - d_o / d_e, rel=1e-12)


def test_no_pairable_unit_is_found_block_by_block(monkeypatch):
    monkeypatch.setattr(kmod, "_CHUNK_ROWS", 4)
    x = np.full((10, 3), np.nan)
    x[np.arange(10), np.arange(10) % 3] = 1.0                  # one value per unit: none pairable
    assert kmod._missing_and_unpairable(x, numeric=True)
    y = x.copy()
    y[9, :2] = [1.0, 2.0]                                     # a pairable unit in the last block
    assert not kmod._missing_and_unpairable(y, numeric=True)
    assert not kmod._missing_and_unpairable(np.ones((10, 1)), numeric=True)  # complete: no missing
    codes = np.where(np.isnan(x), -1, 0)
    assert kmod._missing_and_unpairable(codes, numeric=False)
    codes[9, :2] = 0
    assert not kmod._missing_and_unpairable(codes, numeric=False)
    with pytest.warns(PredstabUndefinedWarning, match="No unit"):
        assert np.isnan(krippendorff_alpha(x, scale="interval").value)
    assert kmod._has_infinite(np.array([[1.0, np.nan], [-np.inf, 2.0]]))
    assert kmod._has_infinite(np.array([np.inf, np.nan]))
    assert not kmod._has_infinite(np.array([[1e308, np.nan], [-1e308, 2.0]]))
    assert not kmod._has_infinite(np.empty((0, 2)))
    with pytest.raises(ValueError, match="1 infinite"):
        krippendorff_alpha(np.array([[1.0, np.inf], [2.0, 3.0]]), scale="interval")
