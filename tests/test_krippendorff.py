"""predstab.krippendorff_alpha: Krippendorff (2011), irr::kripp.alpha (and its defect), krippendorff."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import predstab.agreement._krippendorff as kmod
from predstab import PredstabDegenerateWarning, PredstabUndefinedWarning, krippendorff_alpha
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
    res = krippendorff_alpha(KRIPPENDORFF_2011.T, level=level)
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
    assert krippendorff_alpha(m, level=level).value == pytest.approx(ref, rel=1e-12)


@pytest.mark.parametrize("name", sorted(IRR))
def test_irr_where_irr_follows_the_definition_and_its_defect_elsewhere(name):
    m = case(name)
    complete = not np.isnan(m).any()
    for r in IRR[name]:
        if r["value"] is None:  # R skipped ratio alpha on values <= 0
            continue
        ours = krippendorff_alpha(m, level=r["method"])
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
        assert irr_kripp_alpha(m.T, level) == pytest.approx(krippendorff_alpha(m, level=level).value,
                                                            rel=1e-12)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from(LEVELS))
def test_invariances(seed, level):
    rng = np.random.default_rng(seed)
    m = rng.integers(1, 6, size=(12, 4)).astype(float)
    m[rng.random(m.shape) < 0.15] = np.nan
    base = krippendorff_alpha(m, level=level).value
    perm = m[rng.permutation(12)][:, rng.permutation(4)]
    assert krippendorff_alpha(perm, level=level).value == pytest.approx(base, rel=1e-10, abs=1e-12)
    if level in ("interval", "ratio"):
        assert krippendorff_alpha(2.5 * m, level=level).value == pytest.approx(base, rel=1e-10, abs=1e-12)
    if level == "interval":
        assert krippendorff_alpha(m - 7, level=level).value == pytest.approx(base, rel=1e-10, abs=1e-12)
    if level == "ordinal":  # any increasing relabelling
        assert krippendorff_alpha(m**3, level=level).value == pytest.approx(base, rel=1e-10, abs=1e-12)
    if level == "nominal":  # any relabelling, strings included
        labels = np.array(["v", "w", "x", "y", "z"], dtype=object)[rng.permutation(5)]
        relabelled = np.where(np.isnan(m), None, labels[np.nan_to_num(m).astype(int) - 1])
        assert krippendorff_alpha(relabelled).value == pytest.approx(base, rel=1e-10, abs=1e-12)


def test_missing_value_spellings():
    m = KRIPPENDORFF_2011.T
    obj = m.astype(object)
    obj[np.isnan(m)] = None
    na = pd.DataFrame(m).astype("Float64")  # pd.NA
    values = {krippendorff_alpha(x, level="interval").value for x in (m, obj, na)}
    assert len(values) == 1


def test_string_ordinal_with_levels():
    words = np.array(["low", "mid", "high"], dtype=object)
    m = np.array([[0, 0, 1], [1, 1, 1], [2, 1, 2], [0, 1, 0], [2, 2, 2]])
    as_words = words[m]
    ours = krippendorff_alpha(as_words, level="ordinal", levels=["low", "mid", "high"])
    assert ours.value == pytest.approx(krippendorff_alpha(m, level="ordinal").value, rel=1e-14)
    # an unused extra category does not change alpha
    more = krippendorff_alpha(as_words, level="ordinal", levels=["none", "low", "mid", "high"])
    assert more.value == pytest.approx(ours.value, rel=1e-14)
    with pytest.raises(ValueError, match="not in `levels`"):
        krippendorff_alpha(as_words, level="ordinal", levels=["low", "mid"])
    with pytest.raises(ValueError, match="needs `levels`"):
        krippendorff_alpha(as_words, level="ordinal")


def test_degenerate_and_undefined():
    with pytest.warns(PredstabDegenerateWarning):
        assert krippendorff_alpha(np.full((4, 3), 2.0), level="interval").value == 1.0
    with pytest.warns(PredstabDegenerateWarning):
        assert krippendorff_alpha([["a", "a"], ["a", "a"], ["a", None]]).value == 1.0
    with pytest.warns(PredstabUndefinedWarning):
        assert np.isnan(krippendorff_alpha([[1.0, np.nan], [np.nan, 2.0]]).value)


def test_large_continuous_interval_is_linear():
    rng = np.random.default_rng(0)
    m = rng.normal(size=(200_000, 1)) + rng.normal(scale=0.5, size=(200_000, 5))
    res = krippendorff_alpha(m, level="interval")
    assert 0.7 < res.value < 0.9 and res.n_values == m.size


def test_memory_budget(monkeypatch):
    monkeypatch.setattr(kmod, "MAX_TABLE_BYTES", 2**16)
    m = np.arange(400.0).reshape(100, 4)
    with pytest.raises(MemoryError, match="MAX_TABLE_BYTES"):
        krippendorff_alpha(m, level="ratio")
    with pytest.raises(MemoryError, match="level='interval'"):
        krippendorff_alpha(m, level="ordinal")
    # nominal and interval never build a values x values table
    krippendorff_alpha(m, level="interval")
    krippendorff_alpha(m, level="nominal")


@pytest.mark.parametrize("level", LEVELS)
def test_sparse_counts_give_the_same_value(monkeypatch, level):
    m = case("c_50x4_ordinal")
    m[3, 1] = np.nan
    dense = krippendorff_alpha(m, level=level).value
    monkeypatch.setattr(kmod, "MAX_TABLE_BYTES", 8 * 5 * 5 * 4)  # fits V x V, not units x V
    assert krippendorff_alpha(m, level=level).value == pytest.approx(dense, rel=1e-13)


@pytest.mark.parametrize("ratings, kwargs, exc, match", [
    ([], {}, ValueError, "`ratings`"),
    (np.empty((0, 3)), {}, ValueError, "empty"),
    ([[1], [2]], {}, ValueError, "at least 2 replicates"),
    ([[1, 2], [3]], {}, ValueError, "rectangular"),
    ([["a", "b"], ["c", "d"]], {"level": "interval"}, TypeError, "must hold numbers"),
    ([[1.0, -2.0], [3.0, 4.0]], {"level": "ratio"}, ValueError, "non-negative"),
    ([[1, 2], [3, 4]], {"level": "metric"}, ValueError, "`level`"),
    ([[1, 2], [3, 4]], {"level": "interval", "levels": [1, 2, 3, 4]}, ValueError, "`levels`"),
    ([[1, 2], [3, 4]], {"level": "ordinal", "levels": [1, 1, 2]}, ValueError, "distinct"),
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
    assert krippendorff_alpha(m, level=level).value == pytest.approx(expected, rel=1e-10, abs=1e-12)


def test_ordered_categorical_frame_gives_the_order():
    order = pd.CategoricalDtype(["low", "mid", "high"], ordered=True)
    m = np.array([[0, 0, 1], [1, 1, 1], [2, 1, 2], [0, 1, 0], [2, 2, 2]])
    frame = pd.DataFrame(np.array(["low", "mid", "high"], dtype=object)[m]).astype(order)
    expected = krippendorff_alpha(m, level="ordinal").value
    assert krippendorff_alpha(frame, level="ordinal").value == pytest.approx(expected, rel=1e-14)
    assert krippendorff_alpha(frame.astype(object), level="ordinal",
                              levels=order).value == pytest.approx(expected, rel=1e-14)


@pytest.mark.parametrize("level", ["nominal", "ordinal"])
def test_small_integer_dtypes_with_a_wide_range(level):
    # int8 labels -100 .. 100: coding them must not wrap around in int8 (it used to raise)
    m = np.array([[-100, 100, 100], [0, 0, 1], [100, 100, 100], [-100, -100, 0]])
    assert krippendorff_alpha(m.astype(np.int8), level=level).value == \
        krippendorff_alpha(m, level=level).value


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
        "expected": krippendorff_alpha(m).expected, "level": "nominal", "n_units": 30, "n_values": 180,
        "n_objects": 30, "n_raters": 6}]
