"""Calibration of predstab.compare at the sizes people run: type I errors and coverage.

Usage::

    PYTHONPATH=src python benchmarks/bench_calibration.py           # writes docs/benchmarks/calibration.md
    PYTHONPATH=src python benchmarks/bench_calibration.py --quick   # a tenth of the replications, prints only
    PYTHONPATH=src python benchmarks/bench_calibration.py --case coverage-mean   # one case, prints only

Each case simulates data with a known truth (fixed seeds), calls the public functions of
``predstab.compare`` and counts rejections (type I error, the null true) or intervals that
contain the truth (coverage). Every rate has its Monte Carlo standard error
``sqrt(r (1 - r) / replications)`` beside it; intervals have their mean width. The goals:
type I error at most 0.05 + 2 MC SE; coverage at least 0.93 (95 % nominal). Numbers that miss
their goal are in **bold**.
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy import stats

from predstab import compare

OUT = Path(__file__).resolve().parents[1] / "docs" / "benchmarks" / "calibration.md"
ALPHA = 0.05
COVER_GOAL = 0.93


@dataclass
class Case:
    name: str
    title: str
    text: str
    run: Callable


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def _se(rate, reps):
    return math.sqrt(max(rate * (1 - rate), 1e-12) / reps)


def _rate(hits, reps, *, kind):
    """``rate (MC SE)``, bold when it misses its goal."""
    rate = hits / reps
    se = _se(rate, reps)
    bad = rate > ALPHA + 2 * se if kind == "type1" else rate < COVER_GOAL
    text = f"{rate:.3f} ({se:.3f})"
    return f"**{text}**" if bad else text


# --------------------------------------------------------------------------- type I errors


def _accuracy_pair(rng, n, discordant):
    """Correctness of A and B on n cases, equally good: a discordant case favours either."""
    disc = rng.random(n) < discordant
    a = np.where(disc, rng.random(n) < 0.5, rng.random(n) < 0.8)
    b = np.where(disc, ~a, a)
    return a, b


def _paired_bootstrap_type1(quick):
    reps = 200 if quick else 1000
    header = ["cases", "discordant", "replications", "null-centred (now)", "either side of 0 (before)"]
    rows = []
    for n in (20, 50, 200, 1000):
        for disc in (0.03, 0.15):
            rng = np.random.default_rng(n * 100 + int(disc * 100))
            now = before = 0
            y = np.zeros(n)
            for _ in range(reps):
                a, b = _accuracy_pair(rng, n, disc)
                r = _quiet(compare.paired_bootstrap, y, a.astype(float), b.astype(float),
                           metric=lambda t, p: p, per_case=True, n_resamples=499, random_state=rng)
                now += r.pvalue <= ALPHA
                d = r.bootstrap_distribution[:, 2]
                sides = ((np.sum(d > 0) + 1) / (d.size + 1), (np.sum(d < 0) + 1) / (d.size + 1))
                old = min(1.0, 2 * min(sides))
                before += old <= ALPHA
            rows.append([n, f"{disc:.0%}", reps, _rate(now, reps, kind="type1"),
                         _rate(before, reps, kind="type1")])
    return header, rows


def _mcnemar_type1(quick):
    reps = 400 if quick else 4000
    header = ["cases", "discordant", "replications", "exact", "mid-p", "asymptotic, corrected (default)",
              "asymptotic, uncorrected"]
    rows = []
    for n in (20, 50, 200, 1000):
        for disc in (0.03, 0.15):
            rng = np.random.default_rng(7 + n + int(disc * 100))
            hits = np.zeros(4)
            for _ in range(reps):
                a, b = _accuracy_pair(rng, n, disc)
                calls = (dict(method="exact"), dict(method="mid-p"), dict(method="asymptotic"),
                         dict(method="asymptotic", correction=False))
                for j, kw in enumerate(calls):
                    p = _quiet(compare.mcnemar, a, b, **kw).pvalue
                    hits[j] += (p <= ALPHA) if np.isfinite(p) else 0
            rows.append([n, f"{disc:.0%}", reps, *(_rate(h, reps, kind="type1") for h in hits)])
    return header, rows


def _cv_scores(rng, n, repetitions, folds=10):
    """Squared-error scores of two equally good learners over repeated k-fold CV: with
    ``y = x1 + x2 + e`` (independent standard normals), A is the least-squares line of y on
    x1 and B that on x2, so their expected errors are equal by symmetry."""
    x1, x2 = rng.normal(size=n), rng.normal(size=n)
    y = x1 + x2 + rng.normal(size=n)
    a, b = [], []
    for _ in range(repetitions):
        order = rng.permutation(n)
        for k in range(folds):
            test = order[k::folds]
            train = np.setdiff1d(order, test)
            for x, out in ((x1, a), (x2, b)):
                slope, intercept = np.polyfit(x[train], y[train], 1)
                out.append(np.mean((y[test] - intercept - slope * x[test]) ** 2))
    return np.array(a), np.array(b)


def _corrected_t_type1(quick):
    reps = 300 if quick else 2000
    header = ["cases", "10-fold CV repetitions", "scores", "replications", "corrected resampled t",
              "paired t (uncorrected)"]
    rows = []
    for repetitions in (1, 2, 10):
        rng = np.random.default_rng(30 + repetitions)
        hits = np.zeros(2)
        for _ in range(reps):
            a, b = _cv_scores(rng, 100, repetitions)
            hits[0] += _quiet(compare.corrected_resampled_ttest, a, b, n_train=90, n_test=10).pvalue <= ALPHA
            hits[1] += _quiet(compare.ttest, a, b, paired=True).pvalue <= ALPHA
        rows.append([100, repetitions, 10 * repetitions, reps, *(_rate(h, reps, kind="type1") for h in hits)])
    return header, rows


def _two_sample_type1(quick):
    reps = 200 if quick else 1000
    header = ["sizes A:B", "spreads A:B", "replications", "permutation, mean", "permutation, welch",
              "ttest (Welch)"]
    rows = []
    for (n_a, n_b), (s_a, s_b) in (((10, 40), (3, 1)), ((40, 10), (3, 1)), ((10, 10), (3, 1)),
                                   ((5, 5), (1, 1))):
        rng = np.random.default_rng(n_a * 7 + n_b)
        hits = np.zeros(3)
        for _ in range(reps):
            a, b = rng.normal(0, s_a, n_a), rng.normal(0, s_b, n_b)
            seed = int(rng.integers(2**31))
            hits[0] += compare.mean_permutation_test(a, b, n_resamples=499, random_state=seed).pvalue <= ALPHA
            hits[1] += compare.mean_permutation_test(a, b, n_resamples=499, random_state=seed,
                                                     statistic="welch").pvalue <= ALPHA
            hits[2] += compare.ttest(a, b).pvalue <= ALPHA
        rows.append([f"{n_a}:{n_b}", f"{s_a}:{s_b}", reps, *(_rate(h, reps, kind="type1") for h in hits)])
    return header, rows


def _symmetry_type1(quick):
    reps = 200 if quick else 1000
    header = ["pairs", "differences", "replications", "sign-flip permutation", "wilcoxon", "paired t"]
    rows = []
    for n in (10, 30):
        for shape in ("normal", "exponential - 1"):
            rng = np.random.default_rng(n + len(shape))
            hits = np.zeros(3)
            for _ in range(reps):
                d = rng.normal(size=n) if shape == "normal" else rng.exponential(size=n) - 1.0
                a = np.zeros(n)
                hits[0] += compare.mean_permutation_test(a, d, paired=True, n_resamples=499,
                                                         random_state=rng).pvalue <= ALPHA
                hits[1] += _quiet(compare.wilcoxon, a, d).pvalue <= ALPHA
                hits[2] += compare.ttest(a, d, paired=True).pvalue <= ALPHA
            rows.append([n, shape, reps, *(_rate(h, reps, kind="type1") for h in hits)])
    return header, rows


# --------------------------------------------------------------------------- coverage


def _draw(rng, shape, size):
    if shape == "normal":
        return rng.normal(size=size)
    return rng.lognormal(0.0, 1.0, size=size)     # mean exp(1/2)


def _coverage_mean(quick):
    reps = 300 if quick else 2000
    header = ["scores", "shape", "replications", "bootstrap_ci percentile", "width", "bootstrap_ci bca",
              "width", "mean_ci (t)", "width"]
    rows = []
    for shape in ("normal", "lognormal"):
        truth = 0.0 if shape == "normal" else math.exp(0.5)
        for n in (10, 30, 100):
            rng = np.random.default_rng(n + (0 if shape == "normal" else 1000))
            hits, widths = np.zeros(3), np.zeros(3)
            for _ in range(reps):
                x = _draw(rng, shape, n)
                bca = compare.bootstrap_ci(x, n_resamples=999, method="bca", random_state=rng)
                cis = (compare.bootstrap_ci(x, n_resamples=999, random_state=rng).confidence_interval,
                       bca.confidence_interval, compare.mean_ci(x).confidence_interval)
                for j, (lo, hi) in enumerate(cis):
                    hits[j] += lo <= truth <= hi
                    widths[j] += hi - lo
            cells = []
            for h, w in zip(hits, widths, strict=True):
                cells += [_rate(h, reps, kind="cover"), f"{w / reps:.3f}"]
            rows.append([n, shape, reps, *cells])
    return header, rows


_TASKS = 10


def _cover_cells(hits, widths, reps):
    cells = []
    for h, w in zip(hits, widths, strict=True):
        cells += [_rate(h, reps, kind="cover"), f"{w / reps:.3f}"]
    return cells


def _task_means():
    return np.random.default_rng(123).normal(0.0, 1.0, _TASKS)


def _runs(rng, shape, m, shift=0.0):
    if shape == "normal":
        e = rng.normal(size=(m, _TASKS))
    else:
        e = rng.lognormal(0.0, 1.0, (m, _TASKS)) - math.exp(0.5)
    return _task_means() + shift + e


def _coverage_iqm(quick):
    reps = 200 if quick else 800
    header = ["runs per task", "tasks", "shape", "replications", "rliable (expand=False)", "width",
              "expand=True (default)", "width"]
    rows = []
    for shape in ("normal", "lognormal"):
        truth = stats.trim_mean(_runs(np.random.default_rng(9), shape, 100_000).ravel(), 0.25)
        for m in (3, 5, 10):
            rng = np.random.default_rng(m + (0 if shape == "normal" else 50))
            hits, widths = np.zeros(2), np.zeros(2)
            for _ in range(reps):
                r = compare.stratified_bootstrap_ci(_runs(rng, shape, m), n_resamples=500, random_state=rng)
                _tally_plain_and_own(r, truth, hits, widths)
            rows.append([m, _TASKS, shape, reps, *_cover_cells(hits, widths, reps)])
    return header, rows


def _tally_plain_and_own(result, truth, hits, widths):
    """Add to ``hits`` / ``widths`` whether (and how wide) the plain percentile interval of the
    result's bootstrap distribution [0] and the result's own interval [1] hold ``truth``."""
    plain = np.quantile(result.bootstrap_distribution, [0.025, 0.975])
    for j, (lo, hi) in enumerate((plain, result.confidence_interval)):
        hits[j] += lo <= truth <= hi
        widths[j] += hi - lo


def _coverage_improvement(quick):
    reps = 200 if quick else 600
    header = ["runs per task", "tasks", "shape", "replications", "rliable (expand=False)", "width",
              "expand=True (default)", "width"]
    rows = []
    shift = 0.3
    for shape in ("normal", "lognormal"):
        if shape == "normal":
            truth = stats.norm.cdf(shift / math.sqrt(2))
        else:
            big = np.random.default_rng(5)
            e_a, e_b = big.lognormal(0, 1, 2_000_000), big.lognormal(0, 1, 2_000_000)
            truth = float(np.mean(e_b + shift > e_a))
        for m in (3, 5, 10):
            rng = np.random.default_rng(300 + m + (0 if shape == "normal" else 50))
            hits, widths = np.zeros(2), np.zeros(2)
            for _ in range(reps):
                a, b = _runs(rng, shape, m), _runs(rng, shape, m, shift)
                r = compare.probability_of_improvement(a, b, n_resamples=400, random_state=rng)
                _tally_plain_and_own(r, truth, hits, widths)
            rows.append([m, _TASKS, shape, reps, *_cover_cells(hits, widths, reps)])
    return header, rows


def _power_helpers(quick):
    reps = 1000 if quick else 10000
    header = ["seeds per arm", "d", "replications", "power_ttest (pooled t)", "simulated pooled t",
              "simulated Welch t (ttest default)"]
    rows = []
    for n, d in ((3, 2.0), (5, 1.5), (10, 1.0), (20, 0.8)):
        rng = np.random.default_rng(n)
        a, b = rng.normal(size=(reps, n)), rng.normal(d, 1.0, size=(reps, n))
        pooled = np.mean(stats.ttest_ind(b, a, axis=1).pvalue <= ALPHA)
        welch = np.mean(stats.ttest_ind(b, a, axis=1, equal_var=False).pvalue <= ALPHA)
        predicted = compare.power_ttest(d, n)
        rows.append([n, d, reps, f"{predicted:.3f}", f"{pooled:.3f} ({_se(pooled, reps):.3f})",
                     f"{welch:.3f} ({_se(welch, reps):.3f})"])
    return header, rows


CASES = [
    Case("paired-bootstrap", "paired_bootstrap: type I error with ties (accuracy)",
         "Two classifiers equally good: each case is discordant with the given probability and then "
         "favours A or B with probability 1/2; `paired_bootstrap(..., per_case=True)` of accuracy, "
         "499 resamples. 'before' is the rule of predstab < 0.2.0 (twice the smaller share of "
         "replicates on either side of 0) on the same replicates.", _paired_bootstrap_type1),
    Case("mcnemar", "mcnemar: type I error",
         "The same data. Fagerland, Lydersen & Laake (2013) recommend the uncorrected asymptotic test "
         "or the mid-p test; the continuity-corrected default is as conservative as the exact test.",
         _mcnemar_type1),
    Case("corrected-t", "corrected_resampled_ttest: type I error",
         "Two equally good learners (least-squares lines of y = x1 + x2 + e on x1 and on x2) scored by "
         "squared error on 100 normal cases over repeated 10-fold CV; n_train / n_test = 90 / 10.",
         _corrected_t_type1),
    Case("two-sample", "Two-sample tests of equal means with unequal spreads",
         "Normal scores of mean 0. The permutation test of the difference of means tests "
         "exchangeability (one distribution); `statistic=\"welch\"` permutes Welch's t and tests equal "
         "means. 499 permutations.", _two_sample_type1),
    Case("symmetry", "Paired tests: their null is symmetry about 0",
         "Differences of mean 0, normal or skewed (exponential - 1). The sign-flip permutation test and "
         "Wilcoxon's test assume symmetry: on skewed differences of mean 0 they reject more often than "
         "the level. The paired t's null is a zero mean, but its t distribution needs near-normal "
         "differences: at 10-30 skewed pairs it is off too.", _symmetry_type1),
    Case("coverage-mean", "Coverage of an interval of a mean at few scores",
         "95 % intervals of the mean of n scores (normal, or lognormal(0, 1) with mean exp(1/2)); "
         "999 resamples. `bootstrap_ci` notes below 30 scores that its interval is too narrow and "
         "points to `mean_ci`.", _coverage_mean),
    Case("coverage-iqm", "Coverage of stratified_bootstrap_ci of the IQM (rliable's design)",
         "Runs x 10 tasks (fixed task means, run noise normal or centred lognormal); truth: the IQM of the "
         "population mixture (100,000 runs per task). 500 resamples. Resampling m runs shrinks the "
         "within-task variance by (m-1)/m; `expand=True` multiplies the replicates' deviations by "
         "sqrt(m/(m-1)) and by t over z with 10 (m-1) degrees of freedom.", _coverage_iqm),
    Case("coverage-improvement", "Coverage of probability_of_improvement's interval",
         "Runs x 10 tasks, B = A + 0.3 in distribution (normal: truth Phi(0.3/sqrt 2) = 0.584; lognormal: "
         "by 2,000,000 draws). 400 resamples. `expand=True` multiplies the replicates' deviations by "
         "sqrt(m/(m-1)).", _coverage_improvement),
    Case("power", "Power helpers: pooled t, while ttest defaults to Welch",
         "`power_ttest` (and `seeds_needed`, `detectable_effect`) compute the power of the pooled "
         "two-sample t-test, as R's `power.t.test`; `ttest` defaults to Welch's test, which has less power "
         "at 3-5 seeds per arm. Simulated: normal scores, equal variances.", _power_helpers),
]


def _table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--case", choices=[c.name for c in CASES])
    args = parser.parse_args(argv)
    cases = [c for c in CASES if args.case in (None, c.name)]
    start = time.perf_counter()
    sections = []
    for case in cases:
        t0 = time.perf_counter()
        header, rows = case.run(args.quick)
        sections += [f"## {case.title}", "", case.text, "", *_table(header, rows), "",
                     f"*{time.perf_counter() - t0:.0f} s.*", ""]
        print("\n".join(sections[-len(rows) - 8:]), flush=True)
    elapsed = time.perf_counter() - start
    if args.quick or args.case:
        return sections
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    lines = [
        "# Calibration of predstab.compare at few runs",
        "",
        "Generated by `PYTHONPATH=src python benchmarks/bench_calibration.py` (fixed seeds; "
        f"{elapsed:.0f} s on {platform.machine()} with {os.cpu_count()} cores, load average {load:.1f} at "
        "the end). Do not edit by hand.",
        "",
        "Each cell is a rate over the replications with its Monte Carlo standard error in brackets. "
        f"Type I errors (nominal {ALPHA}) in **bold** exceed {ALPHA} + 2 MC SE; coverages (95 % nominal) in "
        f"**bold** are below {COVER_GOAL}. Widths are mean interval widths on the data's scale.",
        "",
        *sections,
    ]
    OUT.write_text("\n".join(lines), encoding="utf-8")
    print(f"wrote {OUT}")
    return sections


if __name__ == "__main__":
    main()
