"""predstab.icc / icc_table against irr::icc, psych::ICC, Shrout & Fleiss (1979) and pingouin."""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from predstab import PredstabDataWarning, PredstabDegenerateWarning, PredstabUndefinedWarning, icc, icc_table
from predstab._core._validation import InvalidParameterError
from predstab.agreement._icc import _mean_squares
from validation._table import REFERENCE, load_json

from .conftest import SHROUT_FLEISS, classic_case

IRR = load_json("classic", "expected", "irr_icc.json")
PSYCH = load_json("classic", "expected", "psych_ICC.json")

# Shrout & Fleiss (1979), Table 2: 6 targets x 4 judges; Table 4 gives the six ICCs (2 decimals)
SHROUT_FLEISS_ICC = {"ICC1": 0.17, "ICC2": 0.29, "ICC3": 0.71, "ICC1k": 0.44, "ICC2k": 0.62, "ICC3k": 0.91}


case = classic_case


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
    m = SHROUT_FLEISS.astype(int).astype(object)  # integers as objects, with None and pd.NA
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
    # psych's table too: perfect agreement, every interval (1, 1) -- ICC2's from its own
    # Satterthwaite bounds, which are 0 / 0 here
    table = icc_table(m)
    assert table["ICC"].tolist() == [1.0] * 6 and table["F"].tolist() == [np.inf] * 6
    assert table["ci_low"].tolist() == [1.0] * 6 and table["ci_high"].tolist() == [1.0] * 6


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


# --------------------------------------------------------- value-pinning checks (mutation testing)
# Value-pinning checks of predstab.icc / icc_table written to kill mutmut's surviving mutants.
#
# The R references (irr_icc.json, psych_ICC.json) hold r0 = 0 at the 95 % level only; here an
# independent transcription of irr 0.84.1's ``icc`` (loops over the ANOVA sums, scipy.stats.f
# for R's ``pf``/``qf``) checks every form at r0 > 0 and other confidence levels, and the
# degenerate cases follow what the docstrings promise (shared convention, perfect agreement).


# mse == 1 exactly (and msw, msc not 0 or 1): a mutant taking mse == 1 for "perfect" shows here
MSE_ONE = np.array([[3, 1, 3], [2, 0, 2], [0, 1, 3]], dtype=float)
FORMS = [(m, t, u) for m, t in (("oneway", "consistency"), ("twoway", "consistency"), ("twoway", "agreement"))
         for u in ("single", "average")]


def anova(x):
    """Mean squares by the textbook sums (loops, no vectorisation)."""
    n, k = x.shape
    grand = sum(sum(r) for r in x) / (n * k)
    rows = [sum(r) / k for r in x]
    cols = [sum(x[i][j] for i in range(n)) / n for j in range(k)]
    ss_r = k * sum((r - grand) ** 2 for r in rows)
    ss_c = n * sum((c - grand) ** 2 for c in cols)
    ss_w = sum((x[i][j] - rows[i]) ** 2 for i in range(n) for j in range(k))
    ss_e = sum((x[i][j] - rows[i] - cols[j] + grand) ** 2 for i in range(n) for j in range(k))
    return ss_r / (n - 1), ss_w / (n * (k - 1)), ss_c / (k - 1), ss_e / ((n - 1) * (k - 1))


def irr_icc(x, model, type, unit, r0, conf_level):
    """irr::icc (irr 0.84.1), line by line: (name, value, F, df1, df2, p, lbound, ubound)."""
    n, k = x.shape
    msr, msw, msc, mse = anova(x)
    alpha = 1 - conf_level
    qf = stats.f.ppf
    if model == "oneway":
        df1, df2 = n - 1, n * (k - 1)
        fl = (msr / msw) / qf(1 - alpha / 2, df1, df2)
        fu = (msr / msw) * qf(1 - alpha / 2, df2, df1)
        if unit == "single":
            name, value = "ICC(1)", (msr - msw) / (msr + (k - 1) * msw)
            f = msr / msw * ((1 - r0) / (1 + (k - 1) * r0))
            low, high = (fl - 1) / (fl + (k - 1)), (fu - 1) / (fu + (k - 1))
        else:
            name, value = f"ICC({k})", (msr - msw) / msr
            f = msr / msw * (1 - r0)
            low, high = 1 - 1 / fl, 1 - 1 / fu
    elif type == "consistency":
        df1, df2 = n - 1, (n - 1) * (k - 1)
        fl = (msr / mse) / qf(1 - alpha / 2, df1, df2)
        fu = (msr / mse) * qf(1 - alpha / 2, df2, df1)
        if unit == "single":
            name, value = "ICC(C,1)", (msr - mse) / (msr + (k - 1) * mse)
            f = msr / mse * ((1 - r0) / (1 + (k - 1) * r0))
            low, high = (fl - 1) / (fl + (k - 1)), (fu - 1) / (fu + (k - 1))
        else:
            name, value = f"ICC(C,{k})", (msr - mse) / msr
            f = msr / mse * (1 - r0)
            low, high = 1 - 1 / fl, 1 - 1 / fu
    else:
        df1 = n - 1
        if unit == "single":
            name = "ICC(A,1)"
            value = (msr - mse) / (msr + (k - 1) * mse + (k / n) * (msc - mse))
            a = (k * r0) / (n * (1 - r0))
            b = 1 + (k * r0 * (n - 1)) / (n * (1 - r0))
        else:
            name = f"ICC(A,{k})"
            value = (msr - mse) / (msr + (msc - mse) / n)
            a = r0 / (n * (1 - r0))
            b = 1 + (r0 * (n - 1)) / (n * (1 - r0))
        f = msr / (a * msc + b * mse)
        a = (k * value) / (n * (1 - value))
        b = 1 + (k * value * (n - 1)) / (n * (1 - value))
        df2 = (a * msc + b * mse) ** 2 / ((a * msc) ** 2 / (k - 1) + (b * mse) ** 2 / ((n - 1) * (k - 1)))
        fl = qf(1 - alpha / 2, n - 1, df2)
        fu = qf(1 - alpha / 2, df2, n - 1)
        if unit == "single":
            spread = k * msc + (k * n - k - n) * mse
            low = (n * (msr - fl * mse)) / (fl * spread + n * msr)
            high = (n * (fu * msr - mse)) / (spread + n * fu * msr)
        else:
            low = (n * (msr - fl * mse)) / (fl * (msc - mse) + n * msr)
            high = (n * (fu * msr - mse)) / (msc - mse + n * fu * msr)
    p = stats.f.sf(f, df1, df2)
    return name, value, f, df1, df2, p, low, high


def check(res, ref):
    name, value, f, df1, df2, p, low, high = ref
    assert res.name == name
    assert res.value == pytest.approx(value, rel=1e-9)
    assert res.statistic == pytest.approx(f, rel=1e-9)
    assert (res.df1, res.df2) == (pytest.approx(df1, rel=1e-12), pytest.approx(df2, rel=1e-9))
    assert res.pvalue == pytest.approx(p, rel=1e-7, abs=1e-300)
    assert res.confidence_interval.low == pytest.approx(low, rel=1e-9)
    assert res.confidence_interval.high == pytest.approx(high, rel=1e-9)


def matrices():
    rng = np.random.default_rng(12)
    m20 = pd.read_csv(REFERENCE / "classic" / "cases" / "m_20x3.csv").to_numpy(dtype=float)
    return {"shrout_fleiss": SHROUT_FLEISS, "mse_one": MSE_ONE, "m_20x3": m20,
            "random_9x5": rng.normal(size=(9, 5)) + rng.normal(size=(9, 1)) * 2}


@pytest.mark.parametrize("name", ["shrout_fleiss", "mse_one", "m_20x3", "random_9x5"])
@pytest.mark.parametrize("r0,confidence_level", [(0.0, 0.95), (0.3, 0.9), (0.55, 0.99)])
def test_every_form_matches_irr_transcription(name, r0, confidence_level):
    x = matrices()[name]
    for model, type, unit in FORMS:
        res = icc(x, model=model, type=type, unit=unit, r0=r0, confidence_level=confidence_level)
        check(res, irr_icc(x, model, type, unit, r0, confidence_level))
        assert (res.model, res.type, res.unit, res.r0, res.confidence_level) == (
            model, type, unit, r0, confidence_level)


def test_mean_squares_match_textbook_sums():
    for x in matrices().values():
        ms = _mean_squares(x)
        assert (ms.n, ms.k) == x.shape
        np.testing.assert_allclose([ms.msr, ms.msw, ms.msc, ms.mse], anova(x), rtol=1e-12, atol=1e-14)


def test_mean_squares_constant_rows_are_exact():
    # every rater agrees on each object: within, rater and residual sums exactly 0; the
    # between-object mean square still k * sum((row mean - grand)^2) / (n - 1)
    x = np.array([[0.1] * 3, [0.7] * 3, [0.3] * 3, [0.9] * 3])
    ms = _mean_squares(x)
    assert (ms.msw, ms.msc, ms.mse) == (0.0, 0.0, 0.0)
    grand = (0.1 + 0.7 + 0.3 + 0.9) / 4
    assert ms.msr == pytest.approx(3 * sum((v - grand) ** 2 for v in (0.1, 0.7, 0.3, 0.9)) / 3, rel=1e-12)
    ms = _mean_squares(np.array([[1.0, 1.0], [2.0, 2.0], [4.0, 4.0]]))
    assert ms.msr == pytest.approx(14 / 3, rel=1e-14)  # 2 * (16 + 1 + 25) / 9 / 2
    # a constant matrix: every mean square exactly 0 (the mean of three 0.1 is not 0.1 in
    # floating point: the sums of squares would be ~1e-33, not 0)
    for n in (3, 5, 6):
        ms = _mean_squares(np.full((n, 3), 0.1))
        assert (ms.msr, ms.msw, ms.msc, ms.mse) == (0.0, 0.0, 0.0, 0.0)


@pytest.mark.parametrize("model,type,unit", FORMS)
def test_perfect_agreement_on_differing_objects(model, type, unit):
    # no within-object variation: ICC 1, F infinite, p 0, interval (1, 1), and no numpy
    # division warning escapes (msr / 0)
    x = np.array([[0.1] * 3, [0.7] * 3, [0.3] * 3, [0.2] * 3])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = icc(x, model=model, type=type, unit=unit)
    assert res.value == 1.0
    assert res.statistic == np.inf and res.pvalue == 0.0
    assert tuple(res.confidence_interval) == (1.0, 1.0)


@pytest.mark.parametrize("model,type,unit", FORMS)
def test_additive_raters(model, type, unit):
    # x = object effect + rater effect: residual 0 (consistency is perfect), rater mean square
    # exactly 1, within-object variation > 0 (one-way and agreement are not perfect)
    x = np.array([[0.0, 1.0], [3.0, 4.0]])
    ms = _mean_squares(x)
    assert (ms.mse, ms.msc) == (0.0, 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = icc(x, model=model, type=type, unit=unit)
    if (model, type) == ("twoway", "consistency"):
        assert (res.value, res.statistic, res.pvalue) == (1.0, np.inf, 0.0)
        assert tuple(res.confidence_interval) == (1.0, 1.0)
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            ref = irr_icc(x, model, type, unit, 0.0, 0.95)
        check(res, ref)
        assert res.confidence_interval.high < 1.0


@pytest.mark.parametrize("model,type,unit", FORMS)
def test_constant_matrix_is_one_with_the_convention_warning(model, type, unit):
    # D_e = D_o = 0: ICC 1 with the shared message; F = 0 / 0 is undefined (as R's NaN), and
    # numpy's invalid-value warning stays inside
    x = np.full((4, 3), 0.1)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        res = icc(x, model=model, type=type, unit=unit)
    assert [(w.category, str(w.message)) for w in record] == [(
        PredstabDegenerateWarning,
        "Both expected and observed variance are zero; ICC is set to 1 (perfect agreement). "
        "This may indicate that the model collapsed to a single value.")]
    assert res.value == 1.0
    assert np.isnan(res.statistic) and np.isnan(res.pvalue)
    assert np.isnan(res.confidence_interval.low) and np.isnan(res.confidence_interval.high)


def test_equal_object_means_average_form_undefined():
    # every object has the same mean: MS_R = 0 < MS_W, so ICC(k) = 1 - MS_W / 0 -> NaN, and the
    # bounds 1 - 1 / 0 are -inf without a numpy warning
    x = np.array([[1.0, 2.0], [2.0, 1.0], [1.0, 2.0]])
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        res = icc(x, unit="average")
    assert [(w.category, str(w.message)) for w in record] == [(
        PredstabUndefinedWarning,
        "Expected variance is zero but observed is not; ICC is undefined and set to nan.")]
    assert np.isnan(res.value) and res.statistic == 0.0 and res.pvalue == 1.0
    assert tuple(res.confidence_interval) == (-np.inf, -np.inf)


def test_confidence_level_whose_quantile_is_infinite():
    # 1 - alpha / 2 rounds to 1.0: qf is infinite, the upper F bound infinite; the single-form
    # bound takes its limit 1 (not NaN), the lower is -1/(k - 1); the average form 1 - 1/0
    level = 1 - 1e-16
    k = SHROUT_FLEISS.shape[1]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        single = icc(SHROUT_FLEISS, confidence_level=level)
        average = icc(SHROUT_FLEISS, unit="average", confidence_level=level)
    assert tuple(single.confidence_interval) == (pytest.approx(-1 / (k - 1), rel=1e-14), 1.0)
    assert tuple(average.confidence_interval) == (-np.inf, 1.0)


def test_missing_objects_warning_names_the_r_function():
    m = SHROUT_FLEISS.copy()
    m[2, 1] = np.nan
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        icc(m)
        icc_table(m)
    assert [(w.category, str(w.message)) for w in record] == [
        (PredstabDataWarning, "1 of 6 objects have a missing value and were dropped "
         "(as irr::icc does with na.omit)."),
        (PredstabDataWarning, "1 of 6 objects have a missing value and were dropped "
         "(as psych::ICC on na.omit(x) does with na.omit).")]


def test_too_few_complete_objects_message():
    m = np.array([[1.0, 2.0, 3.0], [np.nan, 1.0, 2.0]])
    for f in (icc, icc_table):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PredstabDataWarning)
            with pytest.raises(ValueError) as info:
                f(m)
        assert str(info.value) == ("`ratings` must have at least 2 complete objects (rows); got 1 after "
                                   "dropping objects with a missing value.")


def test_print_digits_follow_irr():
    # irr print.icclist: F(df1 with 7 significant digits, df2 with 3), "H0: r0 = " signif(r0, 7),
    # the level as round(100 * conf.level, 1)
    rng = np.random.default_rng(3)
    x = rng.normal(size=(12346, 2)) + rng.normal(size=(12346, 1))
    lines = str(icc(x, r0=0.12345678, confidence_level=0.91234)).splitlines()
    assert " F-Test, H0: r0 = 0.1234568 ; H1: r0 > 0.1234568" in lines
    assert any(line.lstrip().startswith("F(12345,12346) = ") for line in lines)
    assert " 91.2%-Confidence Interval for ICC Population Values:" in lines


def _icc_stack_items(seed=5, m=6, n=9, k=4):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(m, n, k)) + 2 * rng.normal(size=(m, n, 1))
    x[1] = 2.5  # constant item: ICC 1 with the convention's warning
    x[2] = x[2][:, :1]  # identical raters, objects differ: ICC 1, F infinite
    values = rng.normal(size=n) * 10.1
    x[3] = np.stack([rng.permutation(values) for _ in range(k)], axis=1)  # equal column means
    x[4, :, 1] = x[4, :, 0] + 1.0  # a rater shifted: consistency 1, agreement below 1
    # within-object mean square exactly 1 (each row's sum of squares 3 over k - 1 = 3), objects differ
    x[5] = np.arange(n)[:, None] * 3.0 + np.where(np.arange(n)[:, None] % 2, [2.0, 0, 0, 0], [0, 0, 0, 2.0])
    return x


@pytest.mark.parametrize("model,type", [("oneway", "consistency"), ("twoway", "consistency"),
                                        ("twoway", "agreement")])
@pytest.mark.parametrize("unit", ["single", "average"])
def test_icc_of_a_stack_with_r0_equals_each_items_icc(model, type, unit):
    # the vectorised stack path against the one-matrix icc (itself pinned to irr above), with a
    # null value r0 (the F statistic's and the agreement bounds' r0 terms) and a 90 % interval
    x = _icc_stack_items()
    options = dict(model=model, type=type, unit=unit, r0=0.3, confidence_level=0.9)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = icc(x, **options)
        want = [icc(item, **options) for item in x]
    for field in ("value", "statistic", "df1", "df2", "pvalue"):
        np.testing.assert_allclose(getattr(got, field), [getattr(w, field) for w in want], rtol=1e-12,
                                   atol=1e-12, err_msg=field)
    np.testing.assert_allclose(got.confidence_interval.low, [w.confidence_interval.low for w in want],
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got.confidence_interval.high, [w.confidence_interval.high for w in want],
                               rtol=1e-12, atol=1e-12)
    assert got.r0 == 0.3 and got.confidence_level == 0.9


def test_icc_of_a_dask_stack_keeps_r0_and_the_confidence_level():
    da = pytest.importorskip("dask.array")
    import dask

    x = _icc_stack_items()
    options = dict(model="twoway", type="agreement", r0=0.2, confidence_level=0.8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = icc(x, **options)
        with dask.config.set(scheduler="synchronous"):
            got = icc(da.from_array(x, chunks=(2, 9, 4)), **options)
    np.testing.assert_allclose(got.statistic, want.statistic, rtol=1e-12)
    np.testing.assert_allclose(got.confidence_interval.low, want.confidence_interval.low, rtol=1e-12)
    np.testing.assert_allclose(got.confidence_interval.high, want.confidence_interval.high, rtol=1e-12)


def test_icc_of_a_stack_warns_in_words_with_the_item_count():
    x = _icc_stack_items()
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        icc(x)
    assert [str(w.message) for w in record if w.category is PredstabDegenerateWarning] == [
        "1 of 6 items: Both expected and observed variance are zero; ICC is set to 1 (perfect agreement). "
        "This may indicate that the model collapsed to a single value."]


def test_agreement_forms_whose_expected_disagreement_is_zero_are_undefined():
    # issue 33: D_e = MS_R + (MS_C - MS_E) / n is 0 in exact arithmetic for [[5, 2], [2, 4], [4, 1]]
    # (MS_R = 1/2, MS_C = 8/3, MS_E = 25/6) but 4e-16 in floats: ICC(A,2) was 4.7e15. The single
    # form's D_e = MS_R + (k - 1) MS_E + k (MS_C - MS_E) / n = 1/2 + 25/6 - 1 = 11/3 is not zero:
    # 1 - D_o / D_e with D_o = k MS_E + k (MS_C - MS_E) / n = 25/3 - 1 = 22/3, i.e. -1
    x = np.array([[5, 2], [2, 4], [4, 1]], float)
    with pytest.warns(PredstabUndefinedWarning, match="Expected variance is zero"):
        res = icc(x, model="twoway", type="agreement", unit="average")
    assert np.isnan(res.value) and np.isnan(res.confidence_interval.low)
    assert icc(x, model="twoway", type="agreement").value == pytest.approx(-1.0, rel=1e-12)
    with pytest.warns(PredstabUndefinedWarning, match="1 of 2 items"):
        values = icc(np.stack([x, x[::-1] * 2 + np.arange(6.0).reshape(3, 2)]), model="twoway",
                     type="agreement", unit="average").value
    assert np.isnan(values[0]) and np.isfinite(values[1])
    # a Latin square: MS_R = MS_C = 0, D_e = -MS_E / 3 < 0, irr's ICC(A,3) = 3 kept, with a warning
    latin = np.array([[4.0, 3.0, 2.0], [2.0, 4.0, 3.0], [3.0, 2.0, 4.0]])
    with pytest.warns(PredstabDataWarning, match=r"ICC\(A,3\) = 3 is outside \[-1, 1\]"):
        assert icc(latin, model="twoway", type="agreement", unit="average").value == pytest.approx(3.0)


def test_mean_squares_over_several_blocks_of_rows():
    # _mean_squares sums blocks of 2**15 values (2,520 rows of 13 here: a full block and a
    # partial one): the textbook sums over the whole matrix, offset integers exact, and rows that
    # agree in the first block only still give the within-object sums of the others
    rng = np.random.default_rng(21)
    x = np.rint(rng.normal(size=(3000, 1)) * 10 + rng.normal(size=(3000, 13)) * 4)
    np.testing.assert_allclose(_mean_squares(x)[2:], anova(x), rtol=1e-11)
    shifted = _mean_squares(x + 1e15)
    np.testing.assert_allclose(shifted[2:], anova(x), rtol=1e-11)
    x[:2600] = x[:2600, :1]  # every rater agrees on the first 2,600 objects (past the first block)
    ms = _mean_squares(x)
    assert ms.msw > 0 and ms.mse > 0
    np.testing.assert_allclose(ms[2:], anova(x), rtol=1e-11)
    x[:] = x[:, :1]  # and on every object: exact zeros
    ms = _mean_squares(x)
    assert (ms.msw, ms.msc, ms.mse) == (0.0, 0.0, 0.0)
    np.testing.assert_allclose(ms.msr, anova(x)[0], rtol=1e-11)


def test_icc_above_one_warns_in_words_for_a_matrix_and_for_a_stack():
    # a Latin square: MS_R = MS_C = 0, MS_E = 1.5; irr's ICC(A,3) = 1 - D_o / D_e with
    # D_o = MS_E + (MS_C - MS_E) / 3 = 1 and D_e = MS_R + (MS_C - MS_E) / 3 = -0.5: 3 exactly, kept,
    # and said; a stack counts its items. Rows shifted by 0, 3, 6: MS_R = 27, D_e = 26.5
    latin = np.array([[4.0, 3.0, 2.0], [2.0, 4.0, 3.0], [3.0, 2.0, 4.0]])
    spread = latin + np.array([[0.0], [3.0], [6.0]])  # the objects differ: an ordinary ICC
    tail = ("is outside [-1, 1]: the raters disagree more than the objects differ (MS_R + (MS_C - MS_E) / n "
            "< 0); the value is irr's formula's, not a correlation.")
    form = dict(model="twoway", type="agreement", unit="average")
    for x, words, value in [(latin, f"ICC(A,3) = 3 {tail}", 3.0),
                            (np.stack([latin, spread, latin]),
                             f"2 of 3 items: ICC(A,3) = a value above 1 {tail}", [3.0, 1 - 1 / 26.5, 3.0])]:
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            res = icc(x, **form)
        assert [str(w.message) for w in record if w.category is PredstabDataWarning] == [words]
        np.testing.assert_allclose(res.value, value, rtol=1e-12)
    for x in (spread, np.stack([spread, spread])):  # nothing above 1: no warning
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            icc(x, **form)


def test_the_icc_of_a_stack_copies_no_item_twice(monkeypatch):
    # issue 33: the centred copy of the whole stack (1.04x the input at 1e4 items of 100 x 100); now
    # a block of items at a time, and the numbers are those of the whole stack at once
    import tracemalloc

    import predstab.agreement._icc as icc_module

    rng = np.random.default_rng(12)
    stack = rng.normal(size=(2001, 100, 1)) * 3 + rng.normal(size=(2001, 100, 50))
    stack[7] = np.round(stack[7])
    monkeypatch.setattr(icc_module, "_STACK_BLOCK_CELLS", 1 << 40)  # every item in one block
    whole = icc_module._mean_squares_stack(stack)
    for cells in (1 << 16, 3 * 5000, 2 * 5000):  # blocks of 13, 3 and 2 items (the last: 2, 3 or 2)
        monkeypatch.setattr(icc_module, "_STACK_BLOCK_CELLS", cells)
        for a, b in zip(icc_module._mean_squares_stack(stack), whole, strict=True):
            np.testing.assert_array_equal(a, b)
        monkeypatch.setattr(icc_module, "_STACK_BLOCK_CELLS", 1 << 16)
    icc(stack[:3])
    tracemalloc.start()
    try:
        res = icc(stack)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 0.1 * stack.nbytes
    for i in (0, 7, 2000):  # each item as icc computes it alone (to rounding: BLAS sums by place)
        assert res.value[i] == pytest.approx(icc(stack[i]).value, rel=1e-12)


def _counting(monkeypatch, module, name):
    """Replace ``module.name`` by a wrapper that counts its calls."""
    calls = []
    real = getattr(module, name)

    def counted(*args, **kwargs):
        calls.append(name)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    return calls


def test_icc_reads_a_numeric_matrix_in_its_own_two_passes(monkeypatch):
    # issue 33: the checks of missing, infinite and extreme values were three more passes over the
    # matrix (two sums and unit_scaled's largest magnitude), 40 % of icc's time on 1e6 x 100. They
    # are now read from the mean squares' passes; the exact reader runs only when those say it must
    import predstab.agreement._icc as icc_module

    calls = _counting(monkeypatch, icc_module, "unit_scaled")
    rng = np.random.default_rng(33)
    x = rng.normal(size=(2520, 1)) * 3 + rng.normal(size=(2520, 13))  # a full block and a partial one
    form = dict(model="twoway", type="agreement", unit="single")
    for data in (x, np.rint(x * 4).astype(np.int64), pd.DataFrame(x), x[:, :2] * 2.0**80):
        check(icc(data, **form), irr_icc(np.asarray(data, dtype=float), *form.values(), 0.0, 0.95))
    np.testing.assert_allclose(icc_table(x)["ICC"], [v for v in icc_table(x[:, ::-1])["ICC"]], rtol=1e-12)
    assert calls == []
    plain = icc(x, **form)
    nan_row = x.copy()
    nan_row[1000, 5] = np.nan
    with pytest.warns(PredstabDataWarning, match="1 of 2520 objects have a missing value"):
        dropped = icc(nan_row, **form)
    check(dropped, irr_icc(np.delete(x, 1000, axis=0), *form.values(), 0.0, 0.95))
    # extreme or near-extreme magnitudes: the exact path, the value of x itself (powers of two)
    for scale in (2.0**-400, 2.0**-95, 2.0**95, 2.0**400):
        assert icc(x * scale, **form).value == plain.value
    for bad in (np.inf, -np.inf):
        inf_row = x.copy()
        inf_row[0, 0] = bad
        with pytest.raises(ValueError, match="must hold finite values; got 1 infinite"):
            icc(inf_row, **form)
    assert calls == ["unit_scaled"] * 5  # the infinite values are refused before it


@pytest.mark.parametrize("values,sure", [
    # the largest |x| 2^89 (bounded by 2^89.6 from the sums): surely inside [2^-100, 2^100]
    ([[1.0, 1.0], [1.0, 1.0], [1.0, 0.5]], True),
    ([[2.0, 2.0], [2.0, 2.0], [2.0, 1.0]], False),  # 2^90: not surely
    ([[0.5, 0.5], [0.5, 0.5], [0.5, 0.25]], True),
])
def test_mean_squares_say_when_the_magnitude_is_surely_safe(values, sure):
    x = np.array(values) * 2.0**89
    checked = _mean_squares(x, checked=True)
    assert (checked is not None) == sure
    if sure:
        assert checked == _mean_squares(x)
    low = np.array(values) * 2.0**-89 / 2  # the smallest: 2^-91 .. 2^-90
    assert (_mean_squares(low, checked=True) is not None) == (low.max() >= 2.0**-90)
    for cell in (np.nan, np.inf):
        y = x.copy()
        y[1, 1] = cell
        assert _mean_squares(y, checked=True) is None


def test_the_icc_of_a_stack_reads_it_in_blocks(monkeypatch):
    # issue 33: two more passes over the whole stack (the sums of squares of the per-item test and
    # of the exact test of items without within-object variation) are now read in the first pass
    # over cache-sized blocks: no einsum sees more than a block
    import predstab.agreement._icc as icc_module

    rng = np.random.default_rng(7)
    stack = rng.normal(size=(40, 30, 1)) * 2 + rng.normal(size=(40, 30, 20))
    stack[3] = stack[3][:, :1]  # raters agree on every object: exact zeros
    shapes = []
    real = np.einsum

    def einsum(*args, **kwargs):
        shapes.extend(np.shape(a) for a in args[1:])
        return real(*args, **kwargs)

    monkeypatch.setattr(icc_module, "_STACK_BLOCK_CELLS", 1800)  # blocks of 3 items
    monkeypatch.setattr(np, "einsum", einsum)
    res = icc(stack, model="twoway", type="agreement")
    monkeypatch.setattr(np, "einsum", real)
    assert max(np.prod(s) for s in shapes) <= 4 * 600
    for i in (0, 39):
        assert res.value[i] == pytest.approx(irr_icc(stack[i], "twoway", "agreement", "single", 0, 0.95)[1],
                                             rel=1e-12)
    assert res.value[3] == 1.0


@pytest.mark.parametrize("model,type,unit", FORMS)
def test_perfect_agreement_on_differing_objects_in_a_stack(model, type, unit):
    # as test_perfect_agreement_on_differing_objects, item by item (MS_R = 0.22 < 1 here)
    x = np.array([[0.1] * 3, [0.7] * 3, [0.3] * 3, [0.2] * 3])
    other = np.array([[1.0, 2.0, 1.5], [4.0, 3.0, 5.0], [2.0, 2.5, 1.0], [7.0, 6.0, 6.5]])  # an ordinary item
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = icc(np.stack([x, other, x * 3]), model=model, type=type, unit=unit)
    for i in (0, 2):
        assert res.value[i] == 1.0 and res.statistic[i] == np.inf and res.pvalue[i] == 0.0
        assert (res.confidence_interval.low[i], res.confidence_interval.high[i]) == (1.0, 1.0)
    assert res.confidence_interval.high[1] < 1.0


def test_confidence_level_whose_quantile_is_infinite_in_a_stack():
    # as test_confidence_level_whose_quantile_is_infinite, for each item of a stack
    level = 1 - 1e-16
    k = SHROUT_FLEISS.shape[1]
    stack = np.stack([SHROUT_FLEISS, SHROUT_FLEISS[::-1] * 2.0 + 1.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        single = icc(stack, confidence_level=level)
        average = icc(stack, unit="average", confidence_level=level)
    np.testing.assert_allclose(single.confidence_interval.low, -1 / (k - 1), rtol=1e-14)
    assert single.confidence_interval.high.tolist() == [1.0, 1.0]
    assert average.confidence_interval.low.tolist() == [-np.inf, -np.inf]
    assert average.confidence_interval.high.tolist() == [1.0, 1.0]


@pytest.mark.parametrize("m", [3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31, 33])
def test_a_stack_never_ends_in_a_block_of_one_item(monkeypatch, m):
    # blocks of two items: an odd stack would end in a lone item, whose einsum sums in another
    # order than the rows of a matrix (the last bits differ for about one item in four); it
    # joins the block before, so every number is the one of the whole stack at once
    import predstab.agreement._icc as icc_module

    rng = np.random.default_rng(m)
    stack = rng.normal(size=(m, 40, 1)) * 3 + rng.normal(size=(m, 40, 25)) * 1.7 + 11.0
    monkeypatch.setattr(icc_module, "_STACK_BLOCK_CELLS", 1 << 40)
    whole = icc_module._mean_squares_stack(stack)
    monkeypatch.setattr(icc_module, "_STACK_BLOCK_CELLS", 2 * 40 * 25)
    assert icc_module._stack_blocks(m, 40, 25)[-1] == slice(m - 3, m)
    for a, b in zip(icc_module._mean_squares_stack(stack), whole, strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("value,n,k", [(443.9913996466691, 20, 3), (-0.009856329807340457, 18, 10),
                                       (0.030555031406944266, 23, 3)])
def test_a_constant_item_of_a_stack_is_the_constant_matrix(value, n, k):
    # the centre (a mean of k equal values) and the grand mean round, so the rounded between sum of
    # squares of these constants is ~1e-60, not 0: the exact test of a constant item sets it to 0,
    # and the item follows the convention as the matrix does (ICC 1, no F test), not "perfect
    # agreement on differing objects" (F infinite, interval (1, 1))
    rng = np.random.default_rng(3)
    stack = np.stack([np.full((n, k), value), rng.normal(size=(n, k))])
    with pytest.warns(PredstabDegenerateWarning):
        res = icc(stack, model="twoway", type="agreement")
    with pytest.warns(PredstabDegenerateWarning):
        alone = icc(stack[0], model="twoway", type="agreement")
    assert res.value[0] == alone.value == 1.0
    assert np.isnan(res.statistic[0]) and np.isnan(alone.statistic)
    assert np.isnan(res.confidence_interval.low[0]) and np.isnan(res.confidence_interval.high[0])
