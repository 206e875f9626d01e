"""predstab.compare against base R's stats package and coin (r-reference/compare/expected/).

Every record of r_tests.json (generate.R) and r_tests2.json (generate2.R) becomes rows here;
tolerances are 1e-10 relative (R's binom.test, t.test, wilcox.test, mcnemar.test,
friedman.test, power.t.test, qtukey; coin's wilcoxsign_test) unless a row says otherwise:
ptukey's p-values agree to 1e-9 relative (R's and SciPy's quadratures), and the roots R finds
with ``tol = 1e-10`` to 1e-9 relative. One-sided intervals have an infinite bound, compared
exactly. The seeds' published figures (issue #7), rounded as printed, are rows too.
"""

from __future__ import annotations

import warnings

import numpy as np

from predstab import compare
from predstab.compare._rmath import R_UNIROOT_TOL
from validation._table import absolute, exact, load_json, raises, rel

SUITE = "compare"


def _r_records():
    return load_json("compare", "expected", "r_tests.json")


def _record_rows(i, rec):
    t = rec["test"]
    case = f"{t}#{i}"
    if t == "mcnemar_exact":
        # binom.test(min(b, c), b + c, 0.5)$p.value
        r = compare.mcnemar([[rec["a"], rec["b"]], [rec["c"], rec["d"]]])
        yield rel(SUITE, case, "pvalue", rec["pvalue"], r.pvalue)
    elif t == "binom":
        # binom.test(x, n, 0.5): p-value and Clopper-Pearson interval
        r = compare.win_rate_test(rec["x"], rec["n"])
        yield rel(SUITE, case, "pvalue", rec["pvalue"], r.pvalue)
        yield rel(SUITE, case, "conf_low", rec["conf_low"], r.confidence_interval.low)
        yield rel(SUITE, case, "conf_high", rec["conf_high"], r.confidence_interval.high)
    elif t == "t_paired":
        # t.test(y, x, paired = TRUE)
        r = compare.ttest(rec["x"], rec["y"], paired=True)
        yield rel(SUITE, case, "statistic", rec["statistic"], r.statistic)
        yield rel(SUITE, case, "df", rec["df"], r.df)
        yield rel(SUITE, case, "pvalue", rec["pvalue"], r.pvalue)
        yield rel(SUITE, case, "conf_low", rec["conf_low"], r.confidence_interval.low)
        yield rel(SUITE, case, "conf_high", rec["conf_high"], r.confidence_interval.high)
    elif t in ("t_welch", "t_pooled"):
        # t.test(y, x, var.equal = FALSE / TRUE)
        r = compare.ttest(rec["x"], rec["y"], equal_var=(t == "t_pooled"))
        yield rel(SUITE, case, "statistic", rec["statistic"], r.statistic)
        yield rel(SUITE, case, "df", rec["df"], r.df)
        yield rel(SUITE, case, "pvalue", rec["pvalue"], r.pvalue)
    elif t == "wilcoxon_paired":
        # wilcox.test(y, x, paired = TRUE)
        r = compare.wilcoxon(rec["x"], rec["y"])
        yield rel(SUITE, case, "statistic V", rec["statistic"], r.statistic)
        yield rel(SUITE, case, "pvalue", rec["pvalue"], r.pvalue)
        yield exact(SUITE, case, "method", rec["method"], r.method)
    elif t == "friedman":
        # friedman.test(m); colMeans(t(apply(m, 1, rank))) -- R ranks ascending
        r = compare.friedman_nemenyi(np.asarray(rec["scores"]), higher_is_better=False)
        yield rel(SUITE, case, "statistic", rec["statistic"], r.statistic)
        yield exact(SUITE, case, "df", rec["df"], r.df)
        yield rel(SUITE, case, "pvalue", rec["pvalue"], r.pvalue)
        for j, (rv, pv) in enumerate(zip(rec["average_ranks"], r.average_ranks, strict=True)):
            yield rel(SUITE, case, f"average_rank[{j}]", rv, pv)
    elif t == "power_t_n":
        # power.t.test(delta = d, sd = 1, sig.level = 0.05, power = 0.8, strict = strict)$n
        s = rec["strict"]
        yield rel(SUITE, case, f"n (strict={s})", rec["n"],
                  compare.power_ttest_n(rec["d"], strict=s), rtol=1e-10,
                  note="R's uniroot tolerance is reproduced (Brent, tol = eps^0.25)")
        yield exact(SUITE, case, f"ceiling(n) (strict={s})", rec["n_ceiling"],
                    compare.seeds_needed(rec["d"], strict=s))
    elif t == "power_t_power":
        # power.t.test(n = n, delta = 0.5, sd = 1, sig.level = 0.05, strict = strict)$power
        s = rec["strict"]
        yield rel(SUITE, case, f"power (strict={s})", rec["power"],
                  compare.power_ttest(rec["d"], rec["n"], strict=s))
    elif t == "nemenyi_q":
        # qtukey(0.95, k, Inf) / sqrt(2)
        k = rec["k"]
        scores = np.arange(2 * k, dtype=float).reshape(2, k)
        yield rel(SUITE, case, f"q_0.05 (k={k})", rec["q"], compare.friedman_nemenyi(scores).q_alpha,
                  note="R's qtukey secant iteration (stops at 1e-4) is reproduced")
    else:
        raise ValueError(f"unknown record type {t!r} in r_tests.json")


_ALT = {"two.sided": "two-sided", "less": "less", "greater": "greater"}


def _inf(v):
    return float(v.replace("Inf", "inf")) if isinstance(v, str) else v


def _bound(case, name, r_value, value):
    r_value = _inf(r_value)
    if np.isinf(r_value):
        return exact(SUITE, case, name, r_value, value)
    return rel(SUITE, case, name, r_value, value)


def _record2_rows(i, rec):
    t = rec["test"]
    case = f"{t}#{i}"
    if t in ("mcnemar_chisq", "mcnemar_bowker"):
        # mcnemar.test(table, correct = correct)  ('correct' only acts on 2 x 2 tables)
        r = compare.mcnemar(rec["table"], method="asymptotic", correction=rec.get("correct", True))
        yield rel(SUITE, case, "statistic", rec["statistic"], r.statistic)
        yield exact(SUITE, case, "df", rec["parameter"], r.df)
        yield rel(SUITE, case, "pvalue", rec["p.value"], r.pvalue)
        yield exact(SUITE, case, "method", rec["method"], r.r_method)
    elif t == "wilcoxon_paired_opts":
        # wilcox.test(y, x, paired = TRUE, alternative =, exact =, correct =)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = compare.wilcoxon(rec["x"], rec["y"], alternative=_ALT[rec["alternative"]], exact=rec["exact"],
                                 correction=rec["correct"])
        label = f"{rec['alternative']}, exact={rec['exact']}, correct={rec['correct']}"
        yield rel(SUITE, case, f"V ({label})", rec["statistic"], r.statistic)
        yield rel(SUITE, case, f"pvalue ({label})", rec["p.value"], r.pvalue)
        yield exact(SUITE, case, "method", rec["method"], r.method)
    elif t == "wilcoxsign_coin":
        # coin::wilcoxsign_test(y ~ x, zero.method =, distribution = "asymptotic")
        zm = rec["zero.method"]
        r = compare.wilcoxon(rec["x"], rec["y"], zero_method="pratt" if zm == "Pratt" else "wilcox",
                             exact=False, correction=False)
        yield rel(SUITE, case, f"Z ({zm})", rec["statistic"], r.z)
        yield rel(SUITE, case, f"linear statistic ({zm})", rec["linear"], r.statistic)
        yield rel(SUITE, case, f"expectation ({zm})", rec["expectation"], r.expectation)
        yield rel(SUITE, case, f"variance ({zm})", rec["variance"], r.variance)
        yield rel(SUITE, case, f"pvalue ({zm})", rec["pvalue"], r.pvalue)
    elif t == "power_t_onesided":
        # power.t.test(..., sd, sig.level, type, alternative = "one.sided") [and tol = 1e-10]
        test = {"one.sample": "one-sample", "paired": "paired"}[rec["type"]]
        sd, what = rec["sd"], rec["solve_for"]
        kw = dict(significance=rec["sig.level"], test=test, alternative="one-sided")
        if what == "power":
            yield rel(SUITE, case, f"power ({test})", rec["power"],
                      compare.power_ttest(rec["delta"] / sd, rec["n"], **kw))
            if "power_tol1e-10" in rec:  # the same power from R's run at tol = 1e-10 (no root to solve)
                yield rel(SUITE, case, f"power, tol = 1e-10 ({test})", rec["power_tol1e-10"],
                          compare.power_ttest(rec["delta"] / sd, rec["n"], **kw))
        elif what == "n":
            d = rec["delta"] / sd
            yield rel(SUITE, case, f"n ({test})", rec["n"],
                      compare.power_ttest_n(d, power=rec["power"], **kw),
                      note="R's uniroot (tol = eps^0.25) is reproduced")
            yield rel(SUITE, case, f"n, tol = 1e-10 ({test})", rec["n_tol1e-10"],
                      compare.power_ttest_n(d, power=rec["power"], tol=1e-10, **kw))
        else:
            yield rel(SUITE, case, f"delta, tol = 1e-10 ({test})", rec["delta_tol1e-10"],
                      sd * compare.detectable_effect(rec["n"], power=rec["power"], **kw), rtol=1e-9,
                      note="R's root at tol = 1e-10 against predstab's at 1e-12")
            yield rel(SUITE, case, f"delta, R's tol ({test})", rec["delta"],
                      sd * compare.detectable_effect(rec["n"], power=rec["power"], tol=R_UNIROOT_TOL, **kw),
                      note="R's uniroot (tol = eps^0.25) is reproduced")
    elif t in ("t_paired_onesided", "t_one_sample_onesided"):
        # t.test(y, x, paired = TRUE, alternative =) / t.test(x, mu =, alternative =)
        if t == "t_paired_onesided":
            r = compare.ttest(rec["x"], rec["y"], paired=True, alternative=rec["alternative"])
        else:
            r = compare.ttest(rec["x"], mu=rec["mu"], alternative=rec["alternative"])
        yield rel(SUITE, case, f"statistic ({rec['alternative']})", rec["statistic"], r.statistic)
        yield rel(SUITE, case, "df", rec["df"], r.df)
        yield rel(SUITE, case, "pvalue", rec["p.value"], r.pvalue)
        yield rel(SUITE, case, "estimate", rec["estimate"], r.estimate)
        yield _bound(case, "conf_low", rec["conf_low"], r.confidence_interval.low)
        yield _bound(case, "conf_high", rec["conf_high"], r.confidence_interval.high)
    elif t == "nemenyi_pvalues":
        # q = |R_i - R_j| / sqrt(k(k+1)/(6N)) * sqrt(2); ptukey(q, k, Inf, lower.tail = FALSE)
        r = compare.friedman_nemenyi(np.asarray(rec["scores"]), higher_is_better=False)
        k = rec["k"]
        for j in range(k):
            yield rel(SUITE, case, f"average_rank[{j}]", rec["average_ranks"][j], r.average_ranks[j])
        for a in range(k):
            for b in range(a + 1, k):
                yield rel(SUITE, case, f"q[{a},{b}]", rec["q"][a][b], r.nemenyi_q[a, b])
                yield rel(SUITE, case, f"pvalue[{a},{b}]", rec["pvalues"][a][b], r.nemenyi_pvalues[a, b],
                          rtol=1e-9, note="R's ptukey and SciPy's studentized_range.sf")
    elif t == "bonferroni_dunn":
        # z_j = (R_j - R_c) / sqrt(k(k+1)/(6N)) on ascending ranks; 2 pnorm(-|z|); pmin(1, (k-1) p)
        # predstab's ranks put 1 on the best (highest) score: R_c - R_j there is R's R_j - R_c
        r = compare.bonferroni_dunn(np.asarray(rec["scores"]), control=rec["control"] - 1)
        for j in range(rec["k"] - 1):
            name = f"[control {rec['control']} vs {rec['others'][j]}]"
            yield rel(SUITE, case, f"z {name}", rec["z"][j], r.z[j])
            yield rel(SUITE, case, f"pvalue {name}", rec["pvalues"][j], r.pvalues[j])
            yield rel(SUITE, case, f"adjusted {name}", rec["pvalues_adjusted"][j], r.pvalues_adjusted[j])
    elif t == "binom_onesided":
        # binom.test(x, n, p, alternative =): p-value and one-sided Clopper-Pearson bound
        r = compare.win_rate_test(rec["x"], rec["n"], p=rec["p"], alternative=rec["alternative"])
        yield rel(SUITE, case, f"pvalue ({rec['alternative']}, p = {rec['p']})", rec["pvalue"], r.pvalue)
        yield rel(SUITE, case, "estimate", rec["estimate"], r.statistic)
        yield rel(SUITE, case, "conf_low", rec["conf_low"], r.confidence_interval.low)
        yield rel(SUITE, case, "conf_high", rec["conf_high"], r.confidence_interval.high)
    else:
        raise ValueError(f"unknown record type {t!r} in r_tests2.json")


def _issue_rows():
    """The figures printed in issue #7, at half a unit of their last printed digit."""
    c = "issue-7"
    r = compare.mcnemar([[146, 4], [14, 36]])
    yield absolute(SUITE, c, "McNemar (146,4,14,36) p", 0.030884, r.pvalue, atol=5e-7)
    yield rel(SUITE, c, "McNemar (146,4,14,36) delta_pp", 5.0, r.delta_pp)
    r = compare.mcnemar([[110, 40], [50, 0]])
    yield absolute(SUITE, c, "McNemar (110,40,50,0) p", 0.342833, r.pvalue, atol=5e-7)
    yield rel(SUITE, c, "McNemar (8,0,0,2) p", 1.0, compare.mcnemar([[8, 0], [0, 2]]).pvalue)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield rel(SUITE, c, "McNemar empty p (undefined)", None, compare.mcnemar([[0, 0], [0, 0]]).pvalue)
    yield raises(SUITE, c, "duplicate case ids", lambda: compare.mcnemar(
        [1, 0], [1, 1], ids=["x", "x"]), match="`ids`")
    A = [40, 42, 44, 45, 46, 47, 48, 49, 50, 51]
    B = [5, 8, 10, 12, 30, 33, 35, 38, 40, 420]
    r = compare.ttest(A, B, equal_var=True)
    yield absolute(SUITE, c, "A vs B mean difference", 16.9, r.estimate, atol=5e-12)
    yield absolute(SUITE, c, "A vs B pooled t", 0.4236, r.statistic, atol=5e-5)
    yield absolute(SUITE, c, "A vs B pooled p", 0.6769, r.pvalue, atol=5e-5)
    p = compare.mean_permutation_test(A, B, n_resamples=9999, random_state=0).pvalue
    yield absolute(SUITE, c, "A vs B permutation p", 1.0, p, atol=5e-3,
                   note="Monte Carlo, 9999 permutations, random_state=0")
    ranks = np.array([[1, 2, 3]] * 3 + [[1, 3, 2]] + [[2, 1, 3]] * 5 + [[3, 1, 2]] * 2 + [[2, 3, 1]])
    r = compare.friedman_nemenyi(4 - ranks)
    for j, v in enumerate((1.8333, 1.5833, 2.5833)):
        yield absolute(SUITE, c, f"Friedman average rank[{j}]", v, r.average_ranks[j], atol=5e-5)
    yield absolute(SUITE, c, "Friedman chi2_F", 6.50, r.statistic, atol=5e-3)
    yield absolute(SUITE, c, "Friedman p", 0.0388, r.pvalue, atol=5e-5)
    yield absolute(SUITE, c, "Nemenyi CD (N=12, k=3)", 0.96, r.critical_difference, atol=5e-3)
    yield absolute(SUITE, c, "Nemenyi q_0.05 (k=3)", 2.343, r.q_alpha, atol=1e-3,
                   note="the issue truncates 2.3437 to 2.343; the nemenyi_q rows check it to 1e-10")
    yield exact(SUITE, c, "significant pairs", 1, len(r.significant))
    for d, n, pw in ((0.2, 394, 0.8006), (0.5, 64, 0.8015), (1.0, 17, 0.8070), (1.5, 9, 0.8476),
                     (2.0, 6, 0.8764), (3.0, 4, 0.9389)):
        yield exact(SUITE, c, f"seeds_needed(d={d})", n, compare.seeds_needed(d))
        yield absolute(SUITE, c, f"power at seeds_needed(d={d})", pw, compare.power_ttest(d, n), atol=5e-5)
    for n, pw in ((3, 0.0768), (5, 0.1077), (10, 0.1851), (20, 0.3379), (30, 0.4779), (64, 0.8015),
                  (100, 0.9404)):
        yield absolute(SUITE, c, f"power_ttest(0.5, n={n})", pw, compare.power_ttest(0.5, n), atol=5e-5)
    for n, d in ((3, 3.07), (5, 2.02), (10, 1.32), (20, 0.91), (30, 0.74), (64, 0.50), (100, 0.40)):
        yield absolute(SUITE, c, f"detectable_effect(n={n})", d, compare.detectable_effect(n), atol=5e-3)
    for w, n, pv in ((55, 100, 0.3682), (60, 100, 0.0569), (550, 1000, 0.0017)):
        yield absolute(SUITE, c, f"win_rate_test({w}/{n}) p", pv, compare.win_rate_test(w, n).pvalue,
                       atol=5e-5)
    wald = compare.win_rate_test(55, 100).wald_interval
    yield absolute(SUITE, c, "Wald CI 55/100 low", 0.452, wald.low, atol=5e-4)
    yield absolute(SUITE, c, "Wald CI 55/100 high", 0.648, wald.high, atol=5e-4)
    g = compare.games_needed(0.55)
    yield exact(SUITE, c, "games_needed(0.55) exact", 786, g.n)
    yield absolute(SUITE, c, "games_needed(0.55) power", 0.8013, g.power, atol=5e-5)
    yield absolute(SUITE, c, "games_needed(0.55) normal", 782.53, g.n_normal, atol=5e-3)
    yield absolute(SUITE, c, "IQM A", 46.5, compare.iqm(A), atol=1e-12)
    yield absolute(SUITE, c, "IQM B", 26.3333, compare.iqm(B), atol=5e-5)
    for name, x, lo, hi in (("A", A, 43.681, 48.719), ("B", B, -27.127, 153.327)):
        ci = compare.mean_ci(x).confidence_interval
        yield absolute(SUITE, c, f"t CI {name} low", lo, ci.low, atol=5e-4)
        yield absolute(SUITE, c, f"t CI {name} high", hi, ci.high, atol=5e-4)
    yield rel(SUITE, c, "E[max of 2 normals] = 1/sqrt(pi)", 1 / np.sqrt(np.pi),
              compare.expected_max_normal(2), rtol=1e-12)
    for k, v in ((5, 1.162964), (20, 1.867475), (100, 2.507594)):
        yield absolute(SUITE, c, f"E[max of {k} normals]", v, compare.expected_max_normal(k), atol=5e-7)


def rows():
    for i, rec in enumerate(_r_records()):
        yield from _record_rows(i, rec)
    for i, rec in enumerate(load_json("compare", "expected", "r_tests2.json")):
        yield from _record2_rows(i, rec)
    yield from _issue_rows()
