"""Speed of compare's resampling engines against the NumPy floor and scipy, in one process.

    PYTHONPATH=src python benchmarks/bench_resampling.py                  # small: 1e4 pairs
    PYTHONPATH=src python benchmarks/bench_resampling.py --sizes 5e4 1e5 1e6 --boot-sizes 1e4 5e4 1e5 1e6 \
        --more-sizes 5e4 1e5 1e6 --markdown docs/benchmarks/resampling.md

Paired permutation test of the mean difference (``compare.mean_permutation_test(a, b,
paired=True)``) and the bootstrap of the mean (``compare.bootstrap_ci(x)``) on per-example
losses, against

- **the NumPy floor**, the plain loop issue 23 item 10 describes: for the permutation test,
  blocks of random +-1 sign matrices (``rng.integers(0, 2, (rows, n), dtype=np.int8) * 2 - 1``,
  at most 64 MiB each) times the difference vector (a matrix-vector product) and a count of
  ``|T| >= |t|``; for the bootstrap, blocks of random index matrices
  (``rng.integers(0, n, (rows, n))``) and the mean along each row (indices and values at most
  64 MiB);
- **scipy**: ``scipy.stats.permutation_test((d,), mean, permutation_type="samples",
  vectorized=True)`` and ``scipy.stats.bootstrap((x,), np.mean, method="percentile")``,
  with ``batch`` set so that each block is about 64 MiB (without it scipy holds every
  resample at once: 4 GB of indices at 5e4 pairs; the bootstrap row ``scipy, batch=None``
  is the call predstab made before, where it fits in memory).

and, for the other bootstrap-style functions of ``predstab.compare`` (``--more-sizes``):
``paired_bootstrap`` with ``per_case=True`` (a mean of per-case scores, cases or clusters),
with an arbitrary metric (a loop), ``bootstrap_ci`` with the median, the two-sample
``mean_permutation_test``, ``stratified_bootstrap_ci`` and ``probability_of_improvement``,
each against the same resampling written as a plain batched NumPy loop.

Ratios are of times per resample (scipy runs fewer resamples where its full count would take
minutes; the counts are in the table). One BLAS thread. Timings are medians of ``--repeat``
runs (one run for tasks over ~10 s); the machine is shared, so the load average is reported.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import scipy
from scipy import stats
from threadpoolctl import threadpool_limits

from predstab import compare

BLOCK = 64 * 2 ** 20


def floor_permutation(d, n_permutations, rng):
    """Blocks of int8 +-1 sign matrices times d; the (hits + 1) / (B + 1) p-value."""
    n = d.size
    rows = max(1, BLOCK // n)
    observed = abs(d.sum())
    hits = 0
    for r0 in range(0, n_permutations, rows):
        bits = rng.integers(0, 2, (min(rows, n_permutations - r0), n), dtype=np.int8)
        signs = bits * np.int8(2) - np.int8(1)
        hits += int(np.count_nonzero(np.abs(signs @ d) >= observed))
    return (hits + 1) / (n_permutations + 1)


def floor_bootstrap(x, n_resamples, rng):
    """Blocks of index matrices and the mean of each row; the 2.5 % and 97.5 % quantiles."""
    n = x.size
    rows = max(1, BLOCK // (16 * n))
    reps = np.empty(n_resamples)
    for r0 in range(0, n_resamples, rows):
        r1 = min(n_resamples, r0 + rows)
        reps[r0:r1] = x[rng.integers(0, n, (r1 - r0, n))].mean(axis=1)
    return np.quantile(reps, [0.025, 0.975])


def scipy_permutation(d, n_permutations, rng):
    res = stats.permutation_test((d,), lambda v, axis: np.abs(np.mean(v, axis=axis)),
                                 permutation_type="samples", vectorized=True, n_resamples=n_permutations,
                                 alternative="greater",
                                 batch=max(1, BLOCK // (8 * d.size)), rng=rng)
    return res.pvalue


def scipy_bootstrap(x, n_resamples, rng, batch="bounded"):
    batch = max(1, BLOCK // (16 * x.size)) if batch == "bounded" else None
    res = stats.bootstrap((x,), np.mean, n_resamples=n_resamples, method="percentile", batch=batch, rng=rng)
    return tuple(res.confidence_interval)


def floor_paired_means(ca, cb, n_resamples, rng):
    """Index blocks (indices and one gathered vector at most 64 MiB) and both row means."""
    n = ca.size
    rows = max(1, BLOCK // (16 * n))
    reps = np.empty((n_resamples, 2))
    for r0 in range(0, n_resamples, rows):
        r1 = min(n_resamples, r0 + rows)
        idx = rng.integers(0, n, (r1 - r0, n))
        reps[r0:r1, 0] = ca[idx].mean(axis=1)
        reps[r0:r1, 1] = cb[idx].mean(axis=1)
    return np.quantile(reps[:, 1] - reps[:, 0], [0.025, 0.975])


def floor_cluster_means(ca, cb, codes, n_resamples, rng):
    """Blocks of cluster indices gathering the clusters' score totals and sizes."""
    k = int(codes.max()) + 1
    ta, tb = np.bincount(codes, weights=ca, minlength=k), np.bincount(codes, weights=cb, minlength=k)
    size = np.bincount(codes, minlength=k)
    rows = max(1, BLOCK // (16 * k))
    diff = np.empty(n_resamples)
    for r0 in range(0, n_resamples, rows):
        r1 = min(n_resamples, r0 + rows)
        idx = rng.integers(0, k, (r1 - r0, k))
        m = size[idx].sum(axis=1)
        diff[r0:r1] = tb[idx].sum(axis=1) / m - ta[idx].sum(axis=1) / m
    return np.quantile(diff, [0.025, 0.975])


def floor_metric_loop(y, a, b, metric, n_resamples, rng):
    """One resample at a time: the metric of A and of B on the resampled cases."""
    n = y.size
    diff = np.empty(n_resamples)
    for r in range(n_resamples):
        idx = rng.integers(0, n, n)
        diff[r] = metric(y[idx], b[idx]) - metric(y[idx], a[idx])
    return np.quantile(diff, [0.025, 0.975])


def floor_statistic(x, statistic, n_resamples, rng):
    """Index blocks (indices and gathered values at most 64 MiB) and ``statistic(axis=-1)``."""
    n = x.size
    rows = max(1, BLOCK // (16 * n))
    reps = np.empty(n_resamples)
    for r0 in range(0, n_resamples, rows):
        r1 = min(n_resamples, r0 + rows)
        reps[r0:r1] = statistic(x[rng.integers(0, n, (r1 - r0, n))], axis=-1)
    return np.quantile(reps, [0.025, 0.975])


def floor_two_sample(a, b, n_permutations, rng):
    """One shuffled copy of the pooled values per permutation (``rng.permuted``; blocks of 64 MiB
    of copies are several times slower, the block leaving the cache); B's share is the last
    n_b values; the (hits + 1) / (B + 1) p-value of |mean(B) - mean(A)|."""
    pooled = np.concatenate([a, b])
    total = pooled.sum()
    observed = abs(b.mean() - a.mean())
    sb = np.array([rng.permuted(pooled)[a.size:].sum() for _ in range(n_permutations)])
    hits = int(np.count_nonzero(np.abs(sb / b.size - (total - sb) / a.size) >= observed))
    return (hits + 1) / (n_permutations + 1)


def floor_stratified(table, statistic, n_resamples, rng):
    """The loop of a stratified bootstrap: runs resampled within each task, one table per resample."""
    n_runs, n_tasks = table.shape
    cols = np.arange(n_tasks)
    reps = np.array([statistic(table[rng.integers(0, n_runs, (n_runs, n_tasks)), cols])
                     for _ in range(n_resamples)])
    return np.quantile(reps, [0.025, 0.975])


def floor_improvement(x, y, n_resamples, rng):
    """The same loop for P(X > Y): both tables resampled within each task, a broadcast comparison."""
    cols = np.arange(x.shape[1])
    reps = np.empty(n_resamples)
    for r in range(n_resamples):
        xi = x[rng.integers(0, x.shape[0], x.shape), cols]
        yi = y[rng.integers(0, y.shape[0], y.shape), cols]
        diff = xi[:, None, :] - yi[None, :, :]
        wins = (diff > 0).sum(axis=(0, 1)) + 0.5 * (diff == 0).sum(axis=(0, 1))
        reps[r] = wins.mean() / (x.shape[0] * y.shape[0])
    return np.quantile(reps, [0.025, 0.975])


def scipy_paired_means(ca, cb, n_resamples, rng):
    res = stats.bootstrap((ca, cb), lambda u, v, axis: np.mean(v, axis=axis) - np.mean(u, axis=axis),
                          paired=True, vectorized=True, n_resamples=n_resamples, method="percentile",
                          batch=max(1, BLOCK // (16 * ca.size)), rng=rng)
    return tuple(res.confidence_interval)


def scipy_two_sample(a, b, n_permutations, rng):
    def gap(u, v, axis):
        return np.abs(np.mean(v, axis=axis) - np.mean(u, axis=axis))

    res = stats.permutation_test((a, b), gap, permutation_type="independent", vectorized=True,
                                 n_resamples=n_permutations, alternative="greater",
                                 batch=max(1, BLOCK // (8 * (a.size + b.size))), rng=rng)
    return res.pvalue


def f1(t, p):
    """F1 of the positive class, 2 TP / (2 TP + FP + FN), in NumPy (sklearn's costs ~10x more)."""
    tp = np.count_nonzero(t & p)
    return 2.0 * tp / (2.0 * tp + np.count_nonzero(t ^ p))


def correct(t, p):
    return t == p


def labels(n, seed=0):
    """Labels and two classifiers' predictions; B is right slightly more often."""
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.3
    a = np.where(rng.random(n) < 0.85, y, ~y)
    b = np.where(rng.random(n) < 0.86, y, ~y)
    return y, a, b


def more_rows(sizes, repeat):
    """Rows of every other bootstrap-style function: (function, variant, n, times, counts)."""
    rows = []

    def add(**row):
        rows.append(row)
        print(row, flush=True)

    for n in sizes:
        big = n >= 5e5
        y, a, b = labels(n)
        ca, cb = (a == y).astype(float), (b == y).astype(float)
        n_res, n_scipy = (999, 99) if big else (9999, 999)
        t_ours, r = timed(repeat, compare.paired_bootstrap, y, a, b, metric=correct, per_case=True,
                          n_resamples=n_res, random_state=1)
        t_bca, _ = timed(1, compare.paired_bootstrap, y, a, b, metric=correct, per_case=True,
                         n_resamples=n_res, method="bca", random_state=1)
        t_floor, ci_floor = timed(repeat, floor_paired_means, ca, cb, n_res, np.random.default_rng(2))
        t_scipy, _ = timed(1, scipy_paired_means, ca, cb, n_scipy, np.random.default_rng(3))
        n_loop = 20 if big else 200
        t_loop, _ = timed(1, compare.paired_bootstrap, y, a, b, metric=lambda t, p: float(np.mean(t == p)),
                          n_resamples=n_loop, random_state=1)
        add(kind="paired_cases", n=n, n_res=n_res, ours=t_ours, bca=t_bca, floor=t_floor, n_scipy=n_scipy,
            scipy=t_scipy, n_loop=n_loop, loop=t_loop, ci_ours=list(r.confidence_interval),
            ci_floor=[float(v) for v in ci_floor])
        codes = np.random.default_rng(4).integers(0, n // 10, n)     # clusters of 10 cases on average
        t_ours, r = timed(repeat, compare.paired_bootstrap, y, a, b, metric=correct, per_case=True,
                          groups=codes, n_resamples=n_res, random_state=1)
        t_bca, _ = timed(1, compare.paired_bootstrap, y, a, b, metric=correct, per_case=True, groups=codes,
                         n_resamples=n_res, method="bca", random_state=1)
        t_floor, ci_floor = timed(repeat, floor_cluster_means, ca, cb, codes, n_res, np.random.default_rng(2))
        t_loop, _ = timed(1, compare.paired_bootstrap, y, a, b, metric=lambda t, p: float(np.mean(t == p)),
                          groups=codes, n_resamples=n_loop, random_state=1)
        add(kind="paired_clusters", n=n, n_units=r.n_units, n_res=n_res, ours=t_ours, bca=t_bca,
            floor=t_floor, n_loop=n_loop, loop=t_loop, ci_ours=list(r.confidence_interval),
            ci_floor=[float(v) for v in ci_floor])
        n_f1 = 20 if big else 200
        t_ours, r = timed(1, compare.paired_bootstrap, y, a, b, metric=f1, n_resamples=n_f1, random_state=1)
        t_floor, ci_floor = timed(1, floor_metric_loop, y, a, b, f1, n_f1, np.random.default_rng(2))
        add(kind="paired_f1", n=n, n_res=n_f1, ours=t_ours, floor=t_floor,
            ci_ours=list(r.confidence_interval), ci_floor=[float(v) for v in ci_floor])
        x = losses(n)[0]
        n_med = 199 if big else 1999
        t_ours, r = timed(1, compare.bootstrap_ci, x, np.median, n_resamples=n_med, random_state=1)
        t_floor, ci_floor = timed(1, floor_statistic, x, np.median, n_med, np.random.default_rng(2))
        add(kind="median", n=n, n_res=n_med, ours=t_ours, floor=t_floor, ci_ours=list(r.confidence_interval),
            ci_floor=[float(v) for v in ci_floor])
        la, lb = losses(n)
        n_perm = 99 if big else 999
        t_ours, r = timed(1, compare.mean_permutation_test, la, lb, n_resamples=n_perm, random_state=1)
        t_floor, p_floor = timed(1, floor_two_sample, la, lb, n_perm, np.random.default_rng(2))
        t_scipy, p_scipy = timed(1, scipy_two_sample, la, lb, n_perm, np.random.default_rng(3))
        add(kind="two_sample", n=n, n_res=n_perm, ours=t_ours, floor=t_floor, scipy=t_scipy, p_ours=r.pvalue,
            p_floor=float(p_floor), p_scipy=float(p_scipy))
    rng = np.random.default_rng(5)
    for n_runs, n_tasks in ((10, 5000), (10, 50_000)):
        table = rng.normal(1, 0.3, (n_runs, n_tasks))
        t_ours, r = timed(repeat, compare.stratified_bootstrap_ci, table, n_resamples=200, random_state=1)
        t_floor, ci_floor = timed(repeat, floor_stratified, table, compare.iqm, 200, np.random.default_rng(2))
        add(kind="stratified", n=table.size, shape=[n_runs, n_tasks], n_res=200, ours=t_ours, floor=t_floor,
            ci_ours=list(r.confidence_interval), ci_floor=[float(v) for v in ci_floor])
        other = rng.normal(1.02, 0.3, (n_runs, n_tasks))
        # P(table > other), as the floor computes it: predstab's second argument is the one improving
        t_ours, r = timed(repeat, compare.probability_of_improvement, other, table, n_resamples=200,
                          random_state=1)
        t_floor, ci_floor = timed(repeat, floor_improvement, table, other, 200, np.random.default_rng(2))
        add(kind="improvement", n=table.size, shape=[n_runs, n_tasks], n_res=200, ours=t_ours, floor=t_floor,
            ci_ours=list(r.confidence_interval), ci_floor=[float(v) for v in ci_floor])
    return rows


def timed(repeat, fn, *args, **kwargs):
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn(*args, **kwargs)
        times.append(time.perf_counter() - t0)
        if times[-1] > 10:
            break
    return statistics.median(times), out


def losses(n, seed=0):
    """Per-example squared errors of two regressors; B is slightly better on average."""
    rng = np.random.default_rng(seed)
    y = rng.normal(size=n)
    a = (y - (y + rng.normal(0, 1.0, n))) ** 2
    b = (y - (y + rng.normal(0, 0.995, n))) ** 2
    return a, b


def permutation_rows(sizes, repeat, counts):
    rows = []
    for n in sizes:
        a, b = losses(n)
        d = b - a
        n_perm, n_scipy = counts(n)
        t_ours, r = timed(repeat, compare.mean_permutation_test, a, b, paired=True, n_resamples=n_perm,
                          random_state=1)
        t_floor, p_floor = timed(repeat, floor_permutation, d, n_perm, np.random.default_rng(2))
        t_scipy, p_scipy = timed(1, scipy_permutation, d, n_scipy, np.random.default_rng(3))
        rows.append(dict(n=n, n_perm=n_perm, n_scipy=n_scipy, ours=t_ours, floor=t_floor, scipy=t_scipy,
                         p_ours=float(r.pvalue), p_floor=float(p_floor), p_scipy=float(p_scipy)))
        print(rows[-1], flush=True)
    return rows


def bootstrap_rows(sizes, repeat, counts):
    rows = []
    for n in sizes:
        x = losses(n)[0]
        n_res, n_scipy = counts(n)
        t_ours, r = timed(repeat, compare.bootstrap_ci, x, n_resamples=n_res, random_state=1)
        t_bca, _ = timed(1, compare.bootstrap_ci, x, n_resamples=n_res, method="bca", random_state=1)
        t_floor, ci_floor = timed(repeat, floor_bootstrap, x, n_res, np.random.default_rng(2))
        t_scipy, ci_scipy = timed(1, scipy_bootstrap, x, n_scipy, np.random.default_rng(3))
        t_none = None
        if n * n_scipy * 16 <= 2 * 2 ** 30:      # scipy's batch=None (the old call) where it fits in 2 GB
            t_none, _ = timed(1, scipy_bootstrap, x, n_scipy, np.random.default_rng(3), batch=None)
        rows.append(dict(n=n, n_res=n_res, n_scipy=n_scipy, ours=t_ours, bca=t_bca, floor=t_floor,
                         scipy=t_scipy, scipy_none=t_none, ci_ours=[float(v) for v in r.confidence_interval],
                         ci_floor=[float(v) for v in ci_floor], ci_scipy=[float(v) for v in ci_scipy]))
        print(rows[-1], flush=True)
    return rows


def _n(v):
    return f"{v:,}"


_KINDS = {
    "paired_cases": "`paired_bootstrap(y, a, b, metric=correct, per_case=True)` (accuracy)",
    "paired_clusters": "`paired_bootstrap(..., per_case=True, groups=g)` (clusters of ~10 cases)",
    "paired_f1": "`paired_bootstrap(y, a, b, metric=f1)` (an arbitrary metric: a loop)",
    "median": "`bootstrap_ci(x, np.median)`",
    "two_sample": "`mean_permutation_test(a, b)` (two-sample; n per group)",
    "stratified": "`stratified_bootstrap_ci(table)` (statistic `iqm`)",
    "improvement": "`probability_of_improvement(a, b)`",
}


def _interval(ci):
    return f"{ci[0]:.5f} to {ci[1]:.5f}"


def _per_resample(old, new):
    return f"{1e3 * old:.2f} ms per resample against {1e3 * new:.2f} ms ({old / new:.1f} times)"


def more_markdown(rows):
    if not rows:
        return []
    out = ["## The other bootstrap-style functions", "",
           "Each against its **NumPy floor**, the same resampling written as a plain batched loop in "
           "the script (`floor_*`): index blocks of at most 64 MiB and the row means of both models' "
           "per-case scores (`floor_paired_means`); blocks of cluster indices gathering the clusters' "
           "score totals and sizes (`floor_cluster_means`); for an arbitrary metric, the loop calling "
           "it on each resample, which is the floor itself (`floor_metric_loop`); index blocks and "
           "`np.median(axis=-1)` (`floor_statistic`); one `rng.permuted` copy of the pooled values "
           "per permutation (`floor_two_sample`; 64 MiB blocks of copies are slower); and for the "
           "runs x tasks tables the loop over resamples "
           "(`floor_stratified`, `floor_improvement`). Data: 0/1 correctness of two classifiers "
           "(`labels()`), the squared errors of `losses()`, normal tables of 10 runs.", "",
           "| function | examples | resamples | predstab s | floor s | predstab / floor | also | "
           "interval or p: predstab; floor |",
           "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        also = ""
        if r["kind"] == "paired_cases":
            per_old = r["loop"] / r["n_loop"]
            also = (f"BCa {r['bca']:.2f} s; scipy paired bootstrap {r['scipy']:.2f} s ({_n(r['n_scipy'])}), "
                    f"predstab / scipy {(r['ours'] / r['n_res']) / (r['scipy'] / r['n_scipy']):.3f}; "
                    f"`per_case=False` with `metric=accuracy` {r['loop']:.2f} s ({_n(r['n_loop'])}): "
                    f"{_per_resample(per_old, r['ours'] / r['n_res'])}")
        elif r["kind"] == "paired_clusters":
            per_old = r["loop"] / r["n_loop"]
            also = (f"{_n(r['n_units'])} clusters; BCa {r['bca']:.2f} s; `per_case=False` with "
                    f"`metric=accuracy` {r['loop']:.2f} s ({_n(r['n_loop'])}): "
                    f"{_per_resample(per_old, r['ours'] / r['n_res'])}")
        elif r["kind"] == "two_sample":
            also = (f"scipy `permutation_test` {r['scipy']:.2f} s (the engine predstab called before), "
                    f"predstab / scipy {r['ours'] / r['scipy']:.2f}")
        elif r["kind"] == "median":
            also = "predstab calls `scipy.stats.bootstrap` (vectorised, 64 MiB blocks)"
        elif r["kind"] in ("stratified", "improvement"):
            also = f"{r['shape'][0]} runs x {_n(r['shape'][1])} tasks"
        if r["kind"] == "two_sample":
            res = f"{r['p_ours']:.4f}; {r['p_floor']:.4f} (scipy {r['p_scipy']:.4f})"
        else:
            res = f"{_interval(r['ci_ours'])}; {_interval(r['ci_floor'])}"
        out.append(f"| {_KINDS[r['kind']]} | {_n(r['n'])} | {_n(r['n_res'])} | {r['ours']:.2f} | "
                   f"{r['floor']:.2f} | {r['ours'] / r['floor']:.2f} | {also} | {res} |")
    ratios = [r["ours"] / r["floor"] for r in rows]
    out += ["", f"predstab / floor: {min(ratios):.2f} to {max(ratios):.2f} (goal: at most 3).", "",
            "Resample counts: 9,999 (paired bootstrap), 1,999 (median) and 999 (two-sample "
            "permutations) below 5e5 examples; 999, 199 and 99 at 1e6, where the floor's own loop "
            "would take minutes; an arbitrary metric runs 200 (20 at 1e6) resamples, and so does "
            "`per_case=False` in the \"also\" column (the loop over resamples that a mean of per-case "
            "scores needed before; its BCa, n^2 work, is not measured). `per_case=True` (the mean of "
            "per-case scores: accuracy, squared error, log loss) computes every resample from the same draws "
            "as the loop, in 64 MiB blocks, and its BCa jackknife in closed form. On single cases the "
            "loop over resamples was already close to the floor (each resample gathers n values "
            "either way; the per-resample Python overhead is small next to that at 5e4 cases): the "
            "gains are for clusters, whose loop concatenated the clusters' cases on every resample, "
            "and for BCa, whose loop calls the metric on n leave-one-out samples. An arbitrary metric "
            "(F1, ROC AUC) is called on each resample; that loop is the floor, so the ratio is about 1 "
            "and only a faster metric helps (here a NumPy F1; `sklearn.metrics.f1_score` costs about "
            "10 times more per call). `bootstrap_ci` with a statistic other than the mean hands the "
            "resampling to `scipy.stats.bootstrap` in 64 MiB blocks, within the goal of its floor, so "
            "it is unchanged. The two-sample test handed its random splits to "
            "`scipy.stats.permutation_test`, beyond the goal at 1e6 values per group (a permutation of "
            "indices, then a gather: the scipy time in the \"also\" column), after deciding whether "
            "to enumerate with `math.comb(n_a + n_b, n_a)`, which alone took seconds at 1e6 (now "
            "built term by term and abandoned past `n_resamples`); it now shuffles one copy "
            "of the pooled values per permutation, as the floor does (exact enumeration still goes "
            "to scipy). `stratified_bootstrap_ci` and `probability_of_improvement` resample tables of "
            "runs x tasks with a callable statistic, one vectorised table per resample: the loop is "
            "the floor. The intervals and p-values of predstab and the floor use different draws; "
            "they agree within Monte Carlo error. `corrected_resampled_ttest`, `cv5x2_ttest` and "
            "`cv5x2_ftest` take the scores of the user's own resampling (folds) and resample nothing.",
            ""]
    return out


def markdown(perm, boot, meta, more=()):
    out = ["# Resampling: permutation tests and bootstraps", "",
           f"Generated by `{meta['command']}` (run of {meta.get('date', 'unknown date')}; "
           "`--json` keeps the rows, `--render` redraws this page from them); do not edit by hand.", "",
           f"Machine: {meta['machine']}. Load average (1, 5, 15 min) at start {meta['load0']}; at end "
           f"{meta['load1']} (2 cores shared with other jobs: absolute seconds are inflated by an "
           "unknown factor; the ratios compare runs of the same process). One BLAS thread.", "",
           *([f"The first two tables are of an earlier run, `{meta['reused']['command']}` "
              f"({meta['reused']['date']}; load {meta['reused']['load0']} at start, "
              f"{meta['reused']['load1']} at end), reused with `--reuse`: their code did not change "
              "since; this run measured the last table.", ""] if meta.get("reused") else []),
           "**NumPy floor**: the plain loop of issue 23 item 10. Permutation test: blocks (at most "
           "64 MiB) of `rng.integers(0, 2, (rows, n), dtype=np.int8) * 2 - 1` sign matrices times the "
           "difference vector, and the count of `|T| >= |t|`. Bootstrap: blocks of "
           "`rng.integers(0, n, (rows, n))` index matrices and the mean of each row (indices and gathered "
           "values at most 64 MiB). **scipy**: `scipy.stats.permutation_test((d,), mean, "
           "permutation_type=\"samples\", vectorized=True)` and `scipy.stats.bootstrap((x,), np.mean, "
           "method=\"percentile\")` with `batch` set to about 64 MiB per block; it runs fewer resamples "
           "where the full count would take minutes, and the ratios are "
           "of seconds per resample. Data: per-example squared errors of two regressors (`losses()` in the "
           "script).", "",
           "## Paired permutation test, `mean_permutation_test(a, b, paired=True)`", "",
           "| pairs | permutations | predstab s | floor s | scipy s (permutations) | predstab / floor "
           "| predstab / scipy | p: predstab, floor, scipy |",
           "|---|---|---|---|---|---|---|---|"]
    for r in perm:
        per = r["ours"] / r["n_perm"]
        out.append(f"| {_n(r['n'])} | {_n(r['n_perm'])} | {r['ours']:.2f} | {r['floor']:.2f} | "
                   f"{r['scipy']:.2f} ({_n(r['n_scipy'])}) | {r['ours'] / r['floor']:.2f} | "
                   f"{per / (r['scipy'] / r['n_scipy']):.3f} | {r['p_ours']:.4f}, {r['p_floor']:.4f}, "
                   f"{r['p_scipy']:.4f} |")
    ratios = [r["ours"] / r["floor"] for r in perm]
    out += ["", "The three p-values use different random draws; they agree within their Monte Carlo error "
            "(about 0.005 at 9,999 permutations, 0.016 at 999, 0.05 at 99). From 5e5 pairs on, predstab "
            "and the floor run 999 permutations and scipy 99 (`perm_counts` in the script): the full "
            "counts would take minutes on this shared machine. The floor streams each 64 MiB sign block "
            "and its float64 cast through memory; predstab draws 1 bit per pair and reads tables that "
            "stay in cache, so the floor's time varies more with the load of the machine."] if perm else [""]
    if perm:
        out += ["", f"predstab / floor: {min(ratios):.2f} to {max(ratios):.2f} (goal: at most 3).", ""]
    out += [
            "## Bootstrap of the mean, `bootstrap_ci(x)`", "",
            "| values | resamples | predstab s (BCa s) | floor s | scipy s (resamples) | scipy, batch=None s "
            "| predstab / floor | predstab / scipy | 95 % interval: predstab; floor |",
            "|---|---|---|---|---|---|---|---|---|"]
    for r in boot:
        per = r["ours"] / r["n_res"]
        none = "-" if r["scipy_none"] is None else f"{r['scipy_none']:.2f}"
        lo, hi = r["ci_ours"]
        flo, fhi = r["ci_floor"]
        out.append(f"| {_n(r['n'])} | {_n(r['n_res'])} | {r['ours']:.2f} ({r['bca']:.2f}) | "
                   f"{r['floor']:.2f} | {r['scipy']:.2f} ({_n(r['n_scipy'])}) | {none} | "
                   f"{r['ours'] / r['floor']:.2f} | {per / (r['scipy'] / r['n_scipy']):.3f} | "
                   f"{lo:.5f} to {hi:.5f}; {flo:.5f} to {fhi:.5f} |")
    out += ["", "predstab draws the same resamples as scipy from the same generator "
            "(tests/compare/test_resampling_engines.py); its BCa interval takes the jackknife of the mean in "
            "closed form, so it costs what the percentile interval costs (scipy's BCa evaluates the "
            "mean on n leave-one-out samples: n^2 work). "
            "scipy, batch=None: the call `bootstrap_ci` made before, with the resamples of the scipy "
            "column all at once (`-`: more than 2 GB).", ""]
    if boot:
        ratios = [r["ours"] / r["floor"] for r in boot]
        out += [f"predstab / floor: {min(ratios):.2f} to {max(ratios):.2f} (goal: at most 3; predstab runs "
                "the floor's own loop, so the ratio is 1 up to timing noise).", ""]
    out += more_markdown(list(more))
    return "\n".join(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=float, nargs="*", default=[1e4], help="pairs of the permutation test")
    ap.add_argument("--boot-sizes", type=float, nargs="*", default=[1e4], help="values of the bootstrap")
    ap.add_argument("--more-sizes", type=float, nargs="*", default=[1e4],
                    help="examples of the other bootstrap-style functions")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", type=Path, help="write the measured rows to this JSON file")
    ap.add_argument("--render", type=Path, help="do not measure: render the rows of this JSON file")
    ap.add_argument("--reuse", type=Path, help="take the permutation and bootstrap-of-the-mean rows from "
                    "this JSON file (an earlier --json) and measure only --more-sizes")
    ap.add_argument("--markdown", type=Path, help="write the tables to this Markdown file")
    args = ap.parse_args(argv)
    if args.render:
        saved = json.loads(args.render.read_text(encoding="utf-8"))
        perm, boot, meta = saved["permutation"], saved["bootstrap"], saved["meta"]
        more = saved.get("more", [])
    else:
        perm, boot, more, meta = measure(args, sys.argv[1:] if argv is None else argv)
        if args.reuse:
            saved = json.loads(args.reuse.read_text(encoding="utf-8"))
            perm, boot, meta["reused"] = saved["permutation"], saved["bootstrap"], saved["meta"]
    if args.json:
        args.json.write_text(json.dumps({"meta": meta, "permutation": perm, "bootstrap": boot, "more": more},
                                        indent=1), encoding="utf-8")
    text = markdown(perm, boot, meta, more)
    print(text)
    if args.markdown:
        args.markdown.parent.mkdir(parents=True, exist_ok=True)
        args.markdown.write_text(text, encoding="utf-8")
        print(f"wrote {args.markdown}")


def measure(args, shown):
    load0 = ", ".join(f"{v:.2f}" for v in os.getloadavg())

    def perm_counts(n):        # (predstab and floor, scipy)
        return (9999, 999) if n < 5e5 else (999, 99)

    def boot_counts(n):
        return (9999, 9999 if n <= 1e4 else 999) if n < 5e5 else (999, 99)

    with threadpool_limits(1):
        if args.reuse:
            args.sizes, args.boot_sizes = [], []
        perm = permutation_rows([int(n) for n in args.sizes], args.repeat, perm_counts)
        boot = bootstrap_rows([int(n) for n in args.boot_sizes], args.repeat, boot_counts)
        more = more_rows([int(n) for n in args.more_sizes], args.repeat)
    load1 = ", ".join(f"{v:.2f}" for v in os.getloadavg())
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2 ** 30
    meta = dict(command="python benchmarks/bench_resampling.py " + " ".join(shown),
                machine=f"{platform.machine()}, {os.cpu_count()} cores, {mem:.0f} GB; Python "
                        f"{platform.python_version()}, numpy {np.__version__}, scipy {scipy.__version__}",
                load0=load0, load1=load1, date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
    return perm, boot, more, meta


if __name__ == "__main__":
    main()
