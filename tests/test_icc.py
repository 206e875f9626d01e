"""predstab.icc / icc_table against irr::icc, psych::ICC, Shrout & Fleiss (1979) and pingouin."""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from predstab import PredstabDataWarning, PredstabDegenerateWarning, icc, icc_table
from predstab._core._validation import InvalidParameterError
from validation._table import REFERENCE, load_json

IRR = load_json("classic", "expected", "irr_icc.json")
PSYCH = load_json("classic", "expected", "psych_ICC.json")

# Shrout & Fleiss (1979), Table 2: 6 targets x 4 judges; Table 4 gives the six ICCs (2 decimals)
SHROUT_FLEISS = np.array([[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8],
                          [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]])
SHROUT_FLEISS_ICC = {"ICC1": 0.17, "ICC2": 0.29, "ICC3": 0.71, "ICC1k": 0.44, "ICC2k": 0.62, "ICC3k": 0.91}


def case(name):
    return pd.read_csv(REFERENCE / "classic" / "cases" / f"{name}.csv").to_numpy()


@pytest.mark.parametrize("name", sorted(IRR))
def test_icc_matches_irr(name):
    m = case(name)
    for form in IRR[name]:
        # R: irr::icc(m, model, type, unit, r0 = 0, conf.level = 0.95)  (irr 0.84.1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PredstabDataWarning)
            res = icc(m, model=form["model"], type=form["type"], unit=form["unit"])
        assert (res.n_objects, res.n_raters) == (form["subjects"], form["raters"])
        rtol = 1e-10
        assert res.value == pytest.approx(form["value"], rel=rtol)
        assert res.statistic == pytest.approx(form["Fvalue"], rel=rtol)
        assert res.df1 == pytest.approx(form["df1"], rel=rtol)
        assert res.df2 == pytest.approx(form["df2"], rel=rtol)
        assert res.pvalue == pytest.approx(form["p.value"], rel=rtol, abs=1e-15)
        assert res.confidence_interval.low == pytest.approx(form["lbound"], rel=rtol)
        assert res.confidence_interval.high == pytest.approx(form["ubound"], rel=rtol)


@pytest.mark.parametrize("name", sorted(PSYCH))
def test_icc_table_matches_psych(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PredstabDataWarning)
        table = icc_table(case(name))
    assert table.index.tolist() == ["ICC1", "ICC2", "ICC3", "ICC1k", "ICC2k", "ICC3k"]
    assert table.columns.tolist() == ["ICC", "F", "df1", "df2", "p", "ci_low", "ci_high"]
    for row in PSYCH[name]:
        # R: psych::ICC(na.omit(m), lmer = FALSE)$results  (psych 2.2.9)
        for ours, col in (("ICC", "ICC"), ("F", "F"), ("df1", "df1"), ("df2", "df2"), ("ci_low", "lower"),
                          ("ci_high", "upper")):
            assert table.loc[row["type"], ours] == pytest.approx(row[col], rel=1e-10), (row["type"], col)
        assert table.loc[row["type"], "p"] == pytest.approx(row["p"], rel=1e-10, abs=1e-15)


def test_shrout_fleiss_published_table():
    table = icc_table(SHROUT_FLEISS)
    for label, published in SHROUT_FLEISS_ICC.items():
        assert table.loc[label, "ICC"] == pytest.approx(published, abs=0.005)  # published to 2 decimals


def test_icc_forms_agree_with_icc_table():
    table = icc_table(SHROUT_FLEISS)
    for label, kwargs in {"ICC1": dict(model="oneway"), "ICC2": dict(model="twoway", type="agreement"),
                          "ICC3": dict(model="twoway"), "ICC1k": dict(model="oneway", unit="average"),
                          "ICC2k": dict(model="twoway", type="agreement", unit="average"),
                          "ICC3k": dict(model="twoway", unit="average")}.items():
        assert icc(SHROUT_FLEISS, **kwargs).value == pytest.approx(table.loc[label, "ICC"], rel=1e-12)


def test_matches_pingouin():
    pingouin = pytest.importorskip("pingouin")
    rng = np.random.default_rng(3)
    m = rng.normal(size=(40, 1)) + rng.normal(scale=0.7, size=(40, 5))
    long = pd.DataFrame({"target": np.repeat(np.arange(40), 5), "rater": np.tile(np.arange(5), 40),
                         "score": m.ravel()})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pingouin's own pandas deprecation warnings
        ref = pingouin.intraclass_corr(long, targets="target", raters="rater", ratings="score")
    ours = icc_table(m)
    # pingouin's row order is ICC(1,1), ICC(A,1), ICC(C,1), ICC(1,k), ICC(A,k), ICC(C,k) = ours
    np.testing.assert_allclose(ours["ICC"], ref["ICC"], rtol=1e-12)
    np.testing.assert_allclose(ours["F"], ref["F"], rtol=1e-12)


def test_r0_scales_the_f_statistic():
    # irr: F = MSr/MSw * (1 - r0) / (1 + (k - 1) r0) for the one-way single form
    k = SHROUT_FLEISS.shape[1]
    f0 = icc(SHROUT_FLEISS).statistic
    res = icc(SHROUT_FLEISS, r0=0.3)
    assert res.statistic == pytest.approx(f0 * 0.7 / (1 + (k - 1) * 0.3), rel=1e-12)
    assert res.pvalue > icc(SHROUT_FLEISS).pvalue
    assert res.value == icc(SHROUT_FLEISS).value


def test_missing_objects_dropped_with_count():
    m = SHROUT_FLEISS.astype(object)
    m[1, 2] = None
    m[4, 0] = pd.NA
    with pytest.warns(PredstabDataWarning, match="2 of 6 objects"):
        res = icc(m, model="twoway")
    expected = icc(np.delete(SHROUT_FLEISS, [1, 4], axis=0), model="twoway")
    assert res.value == expected.value and res.n_objects == 4


def test_constant_matrix_is_degenerate_one():
    with pytest.warns(PredstabDegenerateWarning):
        assert icc(np.full((5, 3), 0.1)).value == 1.0
    with pytest.warns(PredstabDegenerateWarning):
        table = icc_table(np.full((5, 3), 2.0))
    assert (table["ICC"] == 1.0).all()


def test_identical_raters_give_one_without_warning():
    m = np.repeat(np.arange(6.0)[:, None] * 0.1, 4, axis=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = icc(m, model="twoway", type="agreement")
    assert res.value == 1.0


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from(["oneway", "twoway"]),
       st.sampled_from(["consistency", "agreement"]), st.sampled_from(["single", "average"]))
def test_permutation_and_shift_invariance(seed, model, type, unit):
    rng = np.random.default_rng(seed)
    m = rng.normal(size=(12, 1)) + rng.normal(size=(12, 4))
    base = icc(m, model=model, type=type, unit=unit).value
    perm = m[rng.permutation(12)][:, rng.permutation(4)]
    assert icc(perm, model=model, type=type, unit=unit).value == pytest.approx(base, rel=1e-9, abs=1e-12)
    assert icc(3 * m + 7, model=model, type=type, unit=unit).value == pytest.approx(base, rel=1e-9, abs=1e-12)


def test_to_frame():
    frame = icc(SHROUT_FLEISS).to_frame()
    res = icc(SHROUT_FLEISS)
    assert frame.shape[0] == 1
    assert {"value", "statistic", "pvalue", "ci_low", "ci_high"} <= set(frame.columns)
    assert frame.loc[0, "ci_low"] == res.confidence_interval.low
    assert frame.loc[0, "ci_high"] == res.confidence_interval.high
    assert frame.loc[0, "value"] == res.value and frame.loc[0, "name"] == "ICC(1)"


@pytest.mark.parametrize("ratings, exc, match", [
    ([], ValueError, "`ratings`"),
    (np.zeros((0, 3)), ValueError, "empty"),
    (np.ones((5, 1)), ValueError, "at least 2 replicates"),
    ([[1, 2], [3]], ValueError, "rectangular"),
    (np.ones(5), ValueError, "2-D"),
    ([["a", "b"], ["c", "d"]], TypeError, "must hold numbers"),
    (np.array([[1, "x"], [2, 3]], dtype=object), TypeError, "must hold numbers"),
    ([[1.0, np.inf], [2, 3]], ValueError, "finite"),
    ([[1.0, 2.0]], ValueError, "at least 2 complete objects"),
    ([[np.nan, 2.0], [1.0, np.nan]], ValueError, "every one of its"),
])
def test_bad_ratings(ratings, exc, match):
    with pytest.raises(exc, match=match):
        icc(ratings)


@pytest.mark.parametrize("kwargs, match", [
    (dict(model="one-way"), "`model`"), (dict(type="absolute"), "`type`"), (dict(unit="avg"), "`unit`"),
    (dict(r0=1.0), "`r0`"), (dict(r0=-0.1), "`r0`"), (dict(confidence_level=1.5), "`confidence_level`"),
    (dict(model="ONEWAY"), "`model`"), (dict(r0=np.nan), "`r0`"),
    (dict(confidence_level=np.nan), "`confidence_level`"),
    (dict(confidence_level="95%"), "`confidence_level`"),
])
def test_bad_options(kwargs, match):
    with pytest.raises(InvalidParameterError, match=match):
        icc(SHROUT_FLEISS, **kwargs)
    if "confidence_level" in kwargs:
        with pytest.raises(InvalidParameterError, match=match):
            icc_table(SHROUT_FLEISS, **kwargs)


def test_print_follows_irr_print_icclist():
    # R: print(irr::icc(m_20x3, model = "twoway", type = "agreement"))  (irr 0.84.1), the values of
    # irr_icc.json laid out as print.icclist does (format(x, digits = 3); round(bounds, 3)); predstab
    # drops R's trailing spaces
    m = case("m_20x3")
    expected = """\
 Single Score Intraclass Correlation

   Model: twoway
   Type : agreement

   Subjects = 20
     Raters = 3
   ICC(A,1) = 0.907

 F-Test, H0: r0 = 0 ; H1: r0 > 0
 F(19,38.5) = 28.9 , p = 3.96e-17

 95%-Confidence Interval for ICC Population Values:
  0.816 < ICC < 0.959"""
    assert str(icc(m, model="twoway", type="agreement")) == expected
    oneway = str(icc(m, unit="average", confidence_level=0.9)).splitlines()
    assert oneway[0] == " Average Score Intraclass Correlation"
    assert oneway[3] == "   Type : consistency"  # irr prints the (ignored) type for oneway too
    assert oneway[-2] == " 90%-Confidence Interval for ICC Population Values:"
