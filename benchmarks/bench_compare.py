"""Speed of predstab.compare against its peers, run in the same process.

    PYTHONPATH=src python benchmarks/bench_compare.py

Prints, per task, the median wall time of predstab and of the peer (scipy / statsmodels)
and the ratio predstab / peer (< 1: predstab faster). Medians of several repeats.
"""

from __future__ import annotations

import statistics
import time

import numpy as np
import pandas as pd
from scipy import stats
from statsmodels.stats.contingency_tables import SquareTable
from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar
from statsmodels.stats.power import TTestIndPower

from predstab import compare


def timeit(fn, repeat=5):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main():
    rng = np.random.default_rng(0)
    a = rng.normal(0.80, 0.05, 30)
    b = a + rng.normal(0.01, 0.03, 30)
    old = rng.integers(0, 2, 100_000)
    new = np.where(rng.random(100_000) < 0.9, old, 1 - old)
    table = [[int(np.sum((old == 1) & (new == 1))), int(np.sum((old == 1) & (new == 0)))],
             [int(np.sum((old == 0) & (new == 1))), int(np.sum((old == 0) & (new == 0)))]]
    scores = rng.random((30, 8)) + np.linspace(0, 0.2, 8)
    bowker = rng.integers(1, 30, (4, 4)) + np.diag(rng.integers(30, 60, 4))
    runs_x, runs_y = rng.normal(1.0, 0.3, (10, 57)), rng.normal(0.9, 0.3, (10, 57))
    x = rng.exponential(size=500)
    zeros = np.zeros(500)

    def mean_metric(t, p):
        return float(np.mean(p))

    def accuracy(t, p):
        return float(np.mean(t == p))

    y = rng.integers(0, 2, 500)
    pa = np.where(rng.random(500) < 0.8, y, 1 - y)
    pb = np.where(rng.random(500) < 0.85, y, 1 - y)

    tasks = [
        ("mcnemar, 2x2 table", lambda: compare.mcnemar(table),
         "statsmodels mcnemar(exact=True)", lambda: sm_mcnemar(np.array(table), exact=True)),
        ("mcnemar asymptotic (Bowker), 4x4 table", lambda: compare.mcnemar(bowker, method="asymptotic"),
         "statsmodels SquareTable.symmetry (Bowker)", lambda: SquareTable(bowker).symmetry()),
        ("mcnemar, 100k case records", lambda: compare.mcnemar(old, new),
         "pandas crosstab + statsmodels", lambda: sm_mcnemar(pd.crosstab(old, new).to_numpy(), exact=True)),
        ("paired permutation, n=30, 9999",
         lambda: compare.mean_permutation_test(a, b, paired=True, random_state=0),
         "scipy permutation_test (samples)", lambda: stats.permutation_test(
             (b - a,), lambda d, axis: np.mean(d, axis=axis), permutation_type="samples",
             n_resamples=9999, vectorized=True, random_state=0)),
        ("two-sample permutation, 30+30, 9999", lambda: compare.mean_permutation_test(a, b, random_state=0),
         "scipy permutation_test (independent)", lambda: stats.permutation_test(
             (b, a), lambda u, v, axis: np.mean(u, axis=axis) - np.mean(v, axis=axis),
             n_resamples=9999, vectorized=True, random_state=0)),
        ("paired bootstrap (mean), n=500, 2000", lambda: compare.paired_bootstrap(
            zeros, zeros, x, metric=mean_metric, n_resamples=2000, random_state=0),
         "scipy bootstrap percentile (vectorized)", lambda: stats.bootstrap(
             (x,), np.mean, n_resamples=2000, method="percentile", random_state=0)),
        ("paired bootstrap (accuracy diff), n=500, 1000", lambda: compare.paired_bootstrap(
            y, pa, pb, metric=accuracy, n_resamples=1000, random_state=0),
         "scipy bootstrap paired, vectorized=False", lambda: stats.bootstrap(
             (y, pa, pb), lambda t, u, v: accuracy(t, v) - accuracy(t, u), paired=True,
             vectorized=False, n_resamples=1000, method="percentile", random_state=0)),
        ("bootstrap_ci (mean), n=500, 2000", lambda: compare.bootstrap_ci(
            x, n_resamples=2000, random_state=0),
         "scipy bootstrap percentile (vectorized)", lambda: stats.bootstrap(
             (x,), np.mean, n_resamples=2000, method="percentile", random_state=0)),
        ("friedman_nemenyi 30x8", lambda: compare.friedman_nemenyi(scores),
         "scipy friedmanchisquare + studentized_range.ppf", lambda: (
             stats.friedmanchisquare(*scores.T), stats.studentized_range.ppf(0.95, 8, np.inf))),
        ("wilcoxon n=30", lambda: compare.wilcoxon(a, b),
         "scipy wilcoxon", lambda: stats.wilcoxon(b - a)),
        ("power_ttest_n(0.5)", lambda: compare.power_ttest_n(0.5),
         "statsmodels TTestIndPower.solve_power",
         lambda: TTestIndPower().solve_power(0.5, nobs1=None, alpha=0.05, power=0.8)),
    ]
    try:  # rliable is not a dependency; compared when installed
        from rliable.metrics import probability_of_improvement as rl_poi
    except ImportError:
        rl_poi = None
    if rl_poi is not None:
        # P(X > Y): rliable's first argument improves, predstab's second (B over A)
        tasks.append(("probability_of_improvement 10x57, no CI", lambda: compare.probability_of_improvement(
            runs_y, runs_x, n_resamples=0), "rliable.metrics.probability_of_improvement",
            lambda: rl_poi(runs_x, runs_y)))
    print(f"{'task':46s} {'predstab ms':>12s} {'peer ms':>10s} {'ratio':>7s}  peer")
    for name, ours, peer_name, peer in tasks:
        ours(), peer()  # warm up
        t_ours, t_peer = timeit(ours), timeit(peer)
        print(f"{name:46s} {1e3 * t_ours:12.2f} {1e3 * t_peer:10.2f} {t_ours / t_peer:7.2f}  {peer_name}")
    print("note: the scipy bootstrap row is vectorised over resamples for a mean; paired_bootstrap calls an "
          "arbitrary metric once per resample and model (what F1/AUC need).")


if __name__ == "__main__":
    main()
