"""predstab.compare against base R (validation/r-reference/compare/expected/r_tests.json).

Each record holds its inputs and R's outputs; the R call is written above each test and
generate.R in the same folder made the file (R 4.2.2, seed 1).
"""

import numpy as np
import pytest

from predstab import compare
from validation._table import load_json

RECORDS = load_json("compare", "expected", "r_tests.json")


def _records(kind):
    recs = [r for r in RECORDS if r["test"] == kind]
    assert recs, kind
    return recs


def test_reference_has_all_56_records():
    assert len(RECORDS) == 56


@pytest.mark.parametrize("rec", _records("mcnemar_exact"))
def test_mcnemar_exact(rec):
    # binom.test(min(b, c), b + c, 0.5)$p.value
    r = compare.mcnemar([[rec["a"], rec["b"]], [rec["c"], rec["d"]]])
    assert r.pvalue == pytest.approx(rec["pvalue"], rel=1e-10)


@pytest.mark.parametrize("rec", _records("binom"))
def test_binom_test(rec):
    # r <- binom.test(x, n, 0.5); r$p.value; r$conf.int (Clopper-Pearson)
    r = compare.win_rate_test(rec["x"], rec["n"])
    assert r.pvalue == pytest.approx(rec["pvalue"], rel=1e-10)
    assert r.confidence_interval.low == pytest.approx(rec["conf_low"], rel=1e-10)
    assert r.confidence_interval.high == pytest.approx(rec["conf_high"], rel=1e-10)


@pytest.mark.parametrize("rec", _records("t_paired"))
def test_paired_t(rec):
    # t.test(y, x, paired = TRUE)
    r = compare.ttest(rec["x"], rec["y"], paired=True)
    for got, key in ((r.statistic, "statistic"), (r.df, "df"), (r.pvalue, "pvalue"),
                     (r.confidence_interval.low, "conf_low"), (r.confidence_interval.high, "conf_high")):
        assert got == pytest.approx(rec[key], rel=1e-10), key


@pytest.mark.parametrize("rec", _records("t_welch") + _records("t_pooled"))
def test_two_sample_t(rec):
    # t.test(y, x, var.equal = FALSE) and t.test(B, A, var.equal = TRUE)
    r = compare.ttest(rec["x"], rec["y"], equal_var=rec["test"] == "t_pooled")
    for got, key in ((r.statistic, "statistic"), (r.df, "df"), (r.pvalue, "pvalue")):
        assert got == pytest.approx(rec[key], rel=1e-10), key


@pytest.mark.parametrize("rec", _records("wilcoxon_paired"))
def test_wilcoxon(rec):
    # wilcox.test(y, x, paired = TRUE): V, p-value and R's method string
    r = compare.wilcoxon(rec["x"], rec["y"])
    assert r.statistic == pytest.approx(rec["statistic"], rel=1e-10)
    assert r.pvalue == pytest.approx(rec["pvalue"], rel=1e-10)
    assert r.method == rec["method"]


@pytest.mark.parametrize("rec", _records("friedman"))
def test_friedman(rec):
    # friedman.test(m); colMeans(t(apply(m, 1, rank)))
    r = compare.friedman_nemenyi(np.asarray(rec["scores"]), higher_is_better=False)
    assert r.statistic == pytest.approx(rec["statistic"], rel=1e-10)
    assert r.df == rec["df"]
    assert r.pvalue == pytest.approx(rec["pvalue"], rel=1e-10)
    np.testing.assert_allclose(r.average_ranks, rec["average_ranks"], rtol=1e-10)


@pytest.mark.parametrize("rec", _records("power_t_n"))
def test_power_t_n(rec):
    # power.t.test(delta = d, sd = 1, sig.level = 0.05, power = 0.8, strict = strict)$n
    # R solves with uniroot (tol = eps^0.25); predstab runs the same Brent iteration: 1e-10
    n = compare.power_ttest_n(rec["d"], strict=rec["strict"])
    assert n == pytest.approx(rec["n"], rel=1e-10)
    assert compare.seeds_needed(rec["d"], strict=rec["strict"]) == rec["n_ceiling"]


@pytest.mark.parametrize("rec", _records("power_t_power"))
def test_power_t_power(rec):
    # power.t.test(n = n, delta = 0.5, sd = 1, sig.level = 0.05, strict = strict)$power
    p = compare.power_ttest(rec["d"], rec["n"], strict=rec["strict"])
    assert p == pytest.approx(rec["power"], rel=1e-10)


@pytest.mark.parametrize("rec", _records("nemenyi_q"))
def test_nemenyi_q(rec):
    # qtukey(0.95, k, Inf) / sqrt(2)
    k = rec["k"]
    q = compare.friedman_nemenyi(np.arange(2.0 * k).reshape(2, k)).q_alpha
    assert q == pytest.approx(rec["q"], rel=1e-10)
    # R's qtukey stops its secant iteration at 1e-4; the exact quantile is within 1e-7 relative
    from scipy import stats
    assert q == pytest.approx(stats.studentized_range.ppf(0.95, k, np.inf) / np.sqrt(2), rel=1e-7)


# ------------------------------------------------------------------ r_tests2.json (generate2.R)
RECORDS2 = load_json("compare", "expected", "r_tests2.json")
ALT = {"two.sided": "two-sided", "less": "less", "greater": "greater"}


def _records2(kind):
    recs = [r for r in RECORDS2 if r["test"] == kind]
    assert recs, kind
    return recs


def _r_number(v):
    return float(v.replace("Inf", "inf")) if isinstance(v, str) else v


def test_reference2_has_all_49_records():
    assert len(RECORDS2) == 49
    kinds = {r["test"] for r in RECORDS2}
    assert kinds == {"mcnemar_chisq", "mcnemar_bowker", "wilcoxon_paired_opts", "wilcoxsign_coin",
                     "power_t_onesided", "t_paired_onesided", "t_one_sample_onesided", "nemenyi_pvalues",
                     "bonferroni_dunn", "binom_onesided"}


@pytest.mark.parametrize("rec", _records2("mcnemar_chisq") + _records2("mcnemar_bowker"))
def test_mcnemar_asymptotic_and_bowker(rec):
    # r <- mcnemar.test(tab, correct = correct); r$statistic, r$parameter, r$p.value, r$method
    r = compare.mcnemar(rec["table"], method="asymptotic", correction=rec.get("correct", True))
    assert r.statistic == pytest.approx(rec["statistic"], rel=1e-10)
    assert r.df == rec["parameter"]
    assert r.pvalue == pytest.approx(rec["p.value"], rel=1e-10)
    assert r.r_method == rec["method"]
    by_hand = _bowker(np.asarray(rec["table"]), rec.get("correct", True))
    assert r.statistic == pytest.approx(by_hand, rel=1e-12)


def _bowker(t, correct):
    # independent: the textbook sum over i < j, with the 2 x 2 continuity correction
    k = t.shape[0]
    total = 0.0
    for i in range(k):
        for j in range(i + 1, k):
            diff = abs(t[i, j] - t[j, i]) - (1 if (k == 2 and correct) else 0)
            total += diff ** 2 / (t[i, j] + t[j, i])
    return total


@pytest.mark.parametrize("rec", _records2("wilcoxon_paired_opts"))
def test_wilcoxon_options(rec):
    # wilcox.test(y, x, paired = TRUE, alternative =, exact =, correct =)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = compare.wilcoxon(rec["x"], rec["y"], alternative=ALT[rec["alternative"]], exact=rec["exact"],
                             correction=rec["correct"])
    assert r.statistic == rec["statistic"]
    assert r.pvalue == pytest.approx(rec["p.value"], rel=1e-10)
    assert r.method == rec["method"]
    assert r.n_zero == rec["n_zero"]


@pytest.mark.parametrize("rec", _records2("wilcoxsign_coin"))
def test_wilcoxon_pratt_and_wilcox_zero_methods_match_coin(rec):
    # coin::wilcoxsign_test(y ~ x, zero.method = "Pratt" / "Wilcoxon", distribution = "asymptotic")
    zm = "pratt" if rec["zero.method"] == "Pratt" else "wilcox"
    r = compare.wilcoxon(rec["x"], rec["y"], zero_method=zm, exact=False, correction=False)
    assert r.statistic == rec["linear"]
    assert r.expectation == rec["expectation"] and r.variance == rec["variance"]
    assert r.z == pytest.approx(rec["statistic"], rel=1e-10)
    assert r.pvalue == pytest.approx(rec["pvalue"], rel=1e-10)


def test_wilcoxon_pratt_by_hand():
    # Pratt: rank |d| with the zeros, drop the zeros' ranks; E = sum(r)/2, Var = sum(r^2)/4
    d = np.array([0.0, 0.0, 1.0, -2.0, 3.0, 3.0, 4.0, -5.0])
    r = compare.wilcoxon(np.zeros(8), d, zero_method="pratt", exact=False, correction=False)
    ranks = np.array([3, 4, 5.5, 5.5, 7, 8])  # ranks of 1, 2, 3, 3, 4, 5 among all eight |d|
    signs = np.array([1, -1, 1, 1, 1, -1])
    v = ranks[signs > 0].sum()
    z = (v - ranks.sum() / 2) / np.sqrt((ranks ** 2).sum() / 4)
    assert r.statistic == v and r.z == pytest.approx(z, rel=1e-12)
    from scipy import stats
    assert r.pvalue == pytest.approx(2 * stats.norm.sf(abs(z)), rel=1e-12)


@pytest.mark.parametrize("rec", _records2("power_t_onesided"))
def test_power_t_one_sided_one_sample_and_paired(rec):
    # power.t.test(n | delta | power, sd, sig.level, type = "one.sample" | "paired",
    #              alternative = "one.sided"); <field>_tol1e-10: the same call with tol = 1e-10
    from predstab.compare._rmath import R_UNIROOT_TOL

    test = {"one.sample": "one-sample", "paired": "paired"}[rec["type"]]
    kw = dict(significance=rec["sig.level"], test=test, alternative="one-sided")
    sd = rec["sd"]
    if rec["solve_for"] == "power":
        got = compare.power_ttest(rec["delta"] / sd, rec["n"], **kw)
        assert got == pytest.approx(rec["power"], rel=1e-10)
    elif rec["solve_for"] == "n":
        d = rec["delta"] / sd
        # R's uniroot iteration is reproduced: R's (imprecise) root to 1e-10
        assert compare.power_ttest_n(d, power=rec["power"], **kw) == pytest.approx(rec["n"], rel=1e-10)
        assert compare.power_ttest_n(d, power=rec["power"], tol=1e-10, **kw) == pytest.approx(
            rec["n_tol1e-10"], rel=1e-10)
    else:
        # the precise root against R's tol = 1e-10 root (only good to ~1e-10 absolute): 1e-9
        got = sd * compare.detectable_effect(rec["n"], power=rec["power"], **kw)
        assert got == pytest.approx(rec["delta_tol1e-10"], rel=1e-9)
        got = sd * compare.detectable_effect(rec["n"], power=rec["power"], tol=R_UNIROOT_TOL, **kw)
        assert got == pytest.approx(rec["delta"], rel=1e-10)


@pytest.mark.parametrize("rec", _records2("t_paired_onesided") + _records2("t_one_sample_onesided"))
def test_t_one_sided(rec):
    # t.test(y, x, paired = TRUE, alternative =) and t.test(x, mu = mu, alternative =)
    if rec["test"] == "t_paired_onesided":
        r = compare.ttest(rec["x"], rec["y"], paired=True, alternative=rec["alternative"])
    else:
        r = compare.ttest(rec["x"], mu=rec["mu"], alternative=rec["alternative"])
    for got, key in ((r.statistic, "statistic"), (r.df, "df"), (r.pvalue, "p.value"),
                     (r.estimate, "estimate")):
        assert got == pytest.approx(rec[key], rel=1e-10), key
    for got, key in ((r.confidence_interval.low, "conf_low"), (r.confidence_interval.high, "conf_high")):
        want = _r_number(rec[key])
        assert got == want if np.isinf(want) else got == pytest.approx(want, rel=1e-10), key


@pytest.mark.parametrize("rec", _records2("nemenyi_pvalues"))
def test_nemenyi_pairwise_pvalues(rec):
    # q <- abs(outer(R, R, "-")) / sqrt(k (k + 1) / (6 N)) * sqrt(2); ptukey(q, k, Inf, lower.tail = FALSE)
    r = compare.friedman_nemenyi(np.asarray(rec["scores"]), higher_is_better=False)
    np.testing.assert_allclose(r.average_ranks, rec["average_ranks"], rtol=1e-12)
    np.testing.assert_allclose(r.nemenyi_q, rec["q"], rtol=1e-12, atol=1e-14)
    # R's ptukey and SciPy's studentized_range.sf integrate differently: 1e-9 relative
    np.testing.assert_allclose(r.nemenyi_pvalues, rec["pvalues"], rtol=1e-9)
    assert list(r.pvalues_frame().columns) == list(r.names)


@pytest.mark.parametrize("rec", _records2("bonferroni_dunn"))
def test_bonferroni_dunn_against_control(rec):
    # z <- (R[-ctrl] - R[ctrl]) / se; 2 * pnorm(-abs(z)); pmin(1, (k - 1) * pz)  (R's ascending ranks)
    r = compare.bonferroni_dunn(np.asarray(rec["scores"]), control=rec["control"] - 1)
    k = rec["k"]
    np.testing.assert_allclose(k + 1 - r.average_ranks, rec["average_ranks"], rtol=1e-12)
    np.testing.assert_allclose(r.z, rec["z"], rtol=1e-10)
    np.testing.assert_allclose(r.pvalues, rec["pvalues"], rtol=1e-10)
    np.testing.assert_allclose(r.pvalues_adjusted, rec["pvalues_adjusted"], rtol=1e-10)
    assert r.others == tuple(f"method {j}" for j in rec["others"])
    named = compare.bonferroni_dunn(np.asarray(rec["scores"]), control=f"method {rec['control']}")
    assert named == r


@pytest.mark.parametrize("rec", _records2("binom_onesided"))
def test_binom_one_sided(rec):
    # binom.test(x, n, p, alternative =): p-value, estimate and the one-sided Clopper-Pearson interval
    r = compare.win_rate_test(rec["x"], rec["n"], p=rec["p"], alternative=rec["alternative"])
    assert r.pvalue == pytest.approx(rec["pvalue"], rel=1e-10)
    assert r.statistic == pytest.approx(rec["estimate"], rel=1e-12)
    assert r.confidence_interval.low == pytest.approx(rec["conf_low"], rel=1e-10, abs=0)
    assert r.confidence_interval.high == pytest.approx(rec["conf_high"], rel=1e-10)
