"""Ready-made tables and intervals: rater_bias / stuart_maxwell with ``table=True``,
``compare.mcnemar`` on a ``pd.crosstab`` DataFrame, and ``confidence_level`` on the irrCAC path
of fleiss_kappa / krippendorff_alpha."""


import numpy as np
import pandas as pd
import pytest
from scipy import stats

from predstab import fleiss_kappa, krippendorff_alpha, rater_bias, stuart_maxwell
from predstab.compare import mcnemar
from validation.suites.cac import read_case as cac_case
from validation.suites.cac import records as cac_records
from validation.suites.irr import expected, read_case

from .conftest import quiet

RTOL = 1e-10
CASES = list(expected("irr_stuart_maxwell_mh"))


# --------------------------------------------------------------------------- C x C tables
@pytest.mark.parametrize("case", list(expected("irr_rater_bias")))
def test_rater_bias_table_is_r_call_and_raw_ratings(case):
    r = expected("irr_rater_bias")[case]
    # R: irr::rater.bias(tab) with tab = r["table"], the C x C table over the sorted categories
    res = rater_bias(np.array(r["table"]), table=True)
    assert res.value == pytest.approx(r["value"], rel=RTOL)
    assert res.statistic == pytest.approx(r["statistic"], rel=RTOL)
    assert res.pvalue == pytest.approx(r["p.value"], abs=1e-12)
    raw = quiet(rater_bias, read_case(case))
    assert (res.value, res.statistic, res.pvalue) == (raw.value, raw.statistic, raw.pvalue)
    np.testing.assert_array_equal(res.table, raw.table)


@pytest.mark.parametrize("case", CASES)
def test_stuart_maxwell_table_is_r_call_and_raw_ratings(case):
    r = expected("irr_stuart_maxwell_mh")[case]
    if "statistic" not in r:  # R stopped on this table (recorded as an error)
        pytest.skip("R gives no statistic for this table")
    # R: irr::stuart.maxwell.mh(tab) with tab = r["table"]
    res = quiet(stuart_maxwell, np.array(r["table"]), table=True)
    assert res.statistic == pytest.approx(r["statistic"], rel=RTOL)
    assert res.pvalue == pytest.approx(r["p.value"], abs=1e-12)
    assert res.n_used == r["subjects"]
    raw = quiet(stuart_maxwell, read_case(case))
    assert (res.statistic, res.df, res.pvalue, res.n_used) == (raw.statistic, raw.df, raw.pvalue, raw.n_used)


def test_table_from_crosstab_keeps_labels():
    x = np.array([["a", "b"], ["a", "b"], ["b", "a"], ["b", "b"], ["a", "c"], ["c", "c"], ["c", "a"]])
    tab = pd.crosstab(x[:, 0], x[:, 1])
    res = stuart_maxwell(tab, table=True)
    raw = stuart_maxwell(x)
    assert res.categories == ("a", "b", "c") == raw.categories
    assert res.statistic == raw.statistic
    # independent: the Stuart-Maxwell quadratic form written out on the crosstab
    t = tab.to_numpy().astype(float)
    rows, cols = t.sum(1), t.sum(0)
    keep = rows != cols
    t = t[np.ix_(keep, keep)]
    d = (t.sum(1) - t.sum(0))[:-1]
    s = -(t + t.T)[:-1, :-1]
    np.fill_diagonal(s, (t.sum(1) + t.sum(0) - 2 * np.diag(t))[:-1])
    assert res.statistic == pytest.approx(float(d @ np.linalg.solve(s, d)), rel=1e-13)
    assert rater_bias(tab, table=True).value == rater_bias(x).value == pytest.approx(3 / 5, rel=1e-15)


@pytest.mark.parametrize("bad", [[[1, 2, 3], [4, 5, 6]], [[1, -1], [2, 3]], [[1.5, 1], [2, 3]], [[1]]])
def test_table_must_be_square_counts(bad):
    for func in (rater_bias, stuart_maxwell):
        with pytest.raises(ValueError, match="`ratings` as a table"):
            func(bad, table=True)
    with pytest.raises(ValueError, match="`table`"):
        rater_bias([[1, 2]], table="yes")


# --------------------------------------------------------------------------- mcnemar on a crosstab
def test_mcnemar_on_crosstab_of_judgments():
    rng = np.random.default_rng(3)
    old = rng.integers(0, 2, 60)
    new = np.where(rng.random(60) < 0.7, old, 1 - old)
    tab = pd.crosstab(pd.Series(old, name="old"), pd.Series(new, name="new"))  # rows 0, 1
    for method in ("exact", "mid-p", "asymptotic"):
        got = mcnemar(tab, method=method)
        ref = mcnemar(old, new, method=method)
        assert got == ref
    # independently: b = old success & new failure, c = old failure & new success
    b, c = int(((old == 1) & (new == 0)).sum()), int(((old == 0) & (new == 1)).sum())
    assert mcnemar(tab).table[1:3] == (b, c)
    p = stats.binomtest(min(b, c), b + c, 0.5).pvalue  # R: binom.test(min(b, c), b + c)
    assert mcnemar(tab).pvalue == pytest.approx(p, rel=1e-12)
    assert mcnemar(tab, method="asymptotic").statistic == pytest.approx((abs(b - c) - 1) ** 2 / (b + c))


def test_mcnemar_on_crosstab_with_a_missing_column_and_bool_labels():
    old = np.array([True, True, False, True])
    new = np.array([True, True, True, True])  # never fails: crosstab has one column
    tab = pd.crosstab(old, new)
    assert tab.shape == (2, 1)
    assert mcnemar(tab).table == mcnemar(old, new).table == (3, 0, 1, 0)


def test_mcnemar_on_a_k_by_k_crosstab():
    x = pd.DataFrame([[24, 10, 10], [5, 30, 7], [5, 14, 14]], index=list("abc"), columns=list("abc"))
    # R: mcnemar.test(matrix(c(24, 5, 5, 10, 30, 14, 10, 7, 14), 3))$statistic = 5.666667
    stat = (10 - 5) ** 2 / 15 + (10 - 5) ** 2 / 15 + (7 - 14) ** 2 / 21
    assert mcnemar(x, method="asymptotic").statistic == pytest.approx(stat, rel=1e-14)
    # a 3-column DataFrame of (id, old, new) records is still records
    recs = pd.DataFrame({"id": ["q1", "q2", "q3"], "old": [1, 0, 1], "new": [1, 1, 0]})
    assert mcnemar(recs).table == (1, 1, 1, 0)


# --------------------------------------------------------------------------- intervals at 0.90
@pytest.mark.parametrize(("func", "key"),
                         [(fleiss_kappa, "fleiss_kappa"), (krippendorff_alpha, "krippen_alpha")])
@pytest.mark.parametrize("case", ["c_bin_40x2", "c_3cat_50x2_unused"])
def test_irrcac_interval_at_0_90(func, key, case):
    x = cac_case(case)
    n = int(x.notna().sum(axis=1).ge(2).sum())  # objects rated at least twice (every one here)
    for rec in [rec for c, rec in cac_records(key) if c == case]:
        res = func(x, weights=rec["weights"], confidence_level=0.90)
        # irrCAC: coeff -/+ se * qt(1 - (1 - conflev) / 2, n - 1), upper bound capped at 1;
        # coeff and se from R (coeff, coeff.se.exact), the quantile from scipy
        half = rec["coeff.se.exact"] * stats.t.ppf(0.95, n - 1)
        assert res.confidence_interval.low == pytest.approx(rec["coeff"] - half, rel=RTOL)
        assert res.confidence_interval.high == pytest.approx(min(1.0, rec["coeff"] + half), rel=RTOL)
        assert res.value == pytest.approx(rec["coeff"], rel=RTOL)
        default = func(x, weights=rec["weights"])
        assert default.confidence_interval.low == pytest.approx(rec["conf.int.exact"][0], rel=RTOL)


def test_confidence_level_needs_the_irrcac_path():
    x = [[1, 1], [1, 2], [2, 2]]
    with pytest.raises(ValueError, match="`confidence_level`"):
        fleiss_kappa(x, confidence_level=0.9)
    with pytest.raises(ValueError, match="`confidence_level`"):
        krippendorff_alpha(x, confidence_level=0.9)
    with pytest.raises(ValueError, match="`confidence_level`"):
        fleiss_kappa(x, weights="linear", confidence_level=1.5)
