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
