"""Speed of compare's resampling engines against the NumPy floor and scipy, in one process.

    PYTHONPATH=src python benchmarks/bench_resampling.py                  # small: 1e4 pairs
    PYTHONPATH=src python benchmarks/bench_resampling.py --sizes 5e4 1e5 1e6 --boot-sizes 1e4 5e4 1e5 1e6 \
        --markdown docs/benchmarks/resampling.md

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
        t_ours, r = timed(repeat, compare.mean_permutation_test, a, b, paired=True, n_permutations=n_perm,
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


def markdown(perm, boot, meta):
    out = ["# Resampling: permutation test and bootstrap", "",
           f"Generated by `{meta['command']}` (run of {meta.get('date', 'unknown date')}; "
           "`--json` keeps the rows, `--render` redraws this page from them); do not edit by hand.", "",
           f"Machine: {meta['machine']}. Load average (1, 5, 15 min) at start {meta['load0']}; at end "
           f"{meta['load1']} (2 cores shared with other jobs: absolute seconds are inflated by an "
           "unknown factor; the ratios compare runs of the same process). One BLAS thread.", "",
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
            "(tests/test_compare_resampling.py); its BCa interval takes the jackknife of the mean in "
            "closed form, so it costs what the percentile interval costs (scipy's BCa evaluates the "
            "mean on n leave-one-out samples: n^2 work). "
            "scipy, batch=None: the call `bootstrap_ci` made before, with the resamples of the scipy "
            "column all at once (`-`: more than 2 GB).", ""]
    if boot:
        ratios = [r["ours"] / r["floor"] for r in boot]
        out += [f"predstab / floor: {min(ratios):.2f} to {max(ratios):.2f} (goal: at most 3; predstab runs "
                "the floor's own loop, so the ratio is 1 up to timing noise).", ""]
    return "\n".join(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=float, nargs="*", default=[1e4], help="pairs of the permutation test")
    ap.add_argument("--boot-sizes", type=float, nargs="*", default=[1e4], help="values of the bootstrap")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", type=Path, help="write the measured rows to this JSON file")
    ap.add_argument("--render", type=Path, help="do not measure: render the rows of this JSON file")
    ap.add_argument("--markdown", type=Path, help="write the tables to this Markdown file")
    args = ap.parse_args(argv)
    if args.render:
        saved = json.loads(args.render.read_text(encoding="utf-8"))
        perm, boot, meta = saved["permutation"], saved["bootstrap"], saved["meta"]
    else:
        perm, boot, meta = measure(args, sys.argv[1:] if argv is None else argv)
    if args.json:
        args.json.write_text(json.dumps({"meta": meta, "permutation": perm, "bootstrap": boot}, indent=1),
                             encoding="utf-8")
    text = markdown(perm, boot, meta)
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
        perm = permutation_rows([int(n) for n in args.sizes], args.repeat, perm_counts)
        boot = bootstrap_rows([int(n) for n in args.boot_sizes], args.repeat, boot_counts)
    load1 = ", ".join(f"{v:.2f}" for v in os.getloadavg())
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2 ** 30
    meta = dict(command="python benchmarks/bench_resampling.py " + " ".join(shown),
                machine=f"{platform.machine()}, {os.cpu_count()} cores, {mem:.0f} GB; Python "
                        f"{platform.python_version()}, numpy {np.__version__}, scipy {scipy.__version__}",
                load0=load0, load1=load1, date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
    return perm, boot, meta


if __name__ == "__main__":
    main()
