"""Speed and memory of ``compare.probability_of_improvement`` at up to a million runs per arm.

Usage::

    PYTHONPATH=src python benchmarks/bench_improvement.py                # 1e4 -> 1e6 runs per arm
    PYTHONPATH=src python benchmarks/bench_improvement.py --quick        # 1e4 and 1e5
    PYTHONPATH=src python benchmarks/bench_improvement.py --markdown docs/benchmarks/improvement.md

Issue 33 item 6: the function built an n x n table (200,000 scores asked for 298 GiB), then
counted by ranks but drew its 2,000 bootstrap resamples run by run (minutes at a million runs).
Each row times the default call (``n_resamples=2000``, interval and all) on fresh continuous
scores, its first call and the best of 3, against, on the same data in the same process:

- **the floor**: ``np.sort`` of both arms, the least any rank count does;
- **scipy**: ``scipy.stats.mannwhitneyu(b, a)`` (the same U statistic, its asymptotic p-value,
  no interval);
- **run by run**: the percentile bootstrap drawn run by run (``interval="percentile"``, what
  the default did before), timed on 20 resamples and scaled to 2,000 (its cost is linear in
  the resamples).

Peak extra memory: tracemalloc's peak during one more default call, over the size of the two
arms. The machine is shared: the load average is printed before and after.
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np
import scipy
from scipy import stats

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src")]

from predstab import compare  # noqa: E402

N_RESAMPLES = 2000
PROBE = 20     # resamples timed run by run, scaled to N_RESAMPLES


def _timed(func):
    t0 = time.perf_counter()
    out = func()
    return time.perf_counter() - t0, out


def _peak(func):
    gc.collect()
    tracemalloc.start()
    func()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def row(name, a, b):
    """One case: the default call against the floor, scipy and the run-by-run bootstrap."""
    def ours():
        return compare.probability_of_improvement(a, b, n_resamples=N_RESAMPLES, random_state=0)

    first, r = _timed(ours)
    best, floor, peer = first, float("inf"), float("inf")
    for _ in range(3):       # alternating, so that all see the same load
        floor = min(floor, _timed(lambda: (np.sort(a, axis=0), np.sort(b, axis=0)))[0])
        if a.ndim == 1:
            peer = min(peer, _timed(lambda: stats.mannwhitneyu(b, a))[0])
        best = min(best, _timed(ours)[0])
    probe, _ = _timed(lambda: compare.probability_of_improvement(
        a, b, n_resamples=PROBE, random_state=0, interval="percentile"))
    run_by_run = probe * N_RESAMPLES / PROBE
    extra = _peak(ours) / (a.nbytes + b.nbytes)
    lo, hi = r.confidence_interval
    out = dict(case=name, first=first, best=best, floor=floor, scipy=peer if a.ndim == 1 else None,
               run_by_run=run_by_run, extra=extra, method=r.method, value=r.value, lo=lo, hi=hi)
    peer_text = f"{peer:8.3f}" if a.ndim == 1 else f"{'-':>8s}"
    print(f"{name:34s} {first:8.3f} {best:8.3f} {floor:8.3f} {best / floor:8.1f}x {peer_text} "
          f"{run_by_run:10.1f} {extra:7.2f}x  {r.method:10s} {r.value:.5f} [{lo:.5f}, {hi:.5f}]")
    return out


def cases(quick):
    rng = np.random.default_rng(0)
    sizes = [10_000, 100_000] if quick else [10_000, 100_000, 1_000_000]
    for n in sizes:
        yield f"{n:.0e} runs each, 1 task", rng.normal(size=n), rng.normal(0.05, 1.0, size=n)
    n = sizes[-1]
    yield f"{n:.0e} runs of B against 10 of A", rng.normal(size=10), rng.normal(0.3, 1.0, size=n)
    tasks = n // 10
    yield (f"10 runs x {tasks:.0e} tasks each", rng.normal(size=(10, tasks)),
           rng.normal(0.05, 1.0, size=(10, tasks)))


def markdown(rows, meta):
    lines = [
        "# Speed of `compare.probability_of_improvement` at a million runs",
        "",
        f"Measured with `{meta['command']}` (one run, one process, {meta['date']}) on {meta['machine']}; "
        f"**load average {meta['load0']} before and {meta['load1']} after** (the machine is shared "
        "with other jobs: absolute times vary with the load, the ratios in one row less so).",
        "",
        "Each row times the default call (`n_resamples=2000`, interval included) on fresh continuous "
        "scores: its first call and the best of 3, against the floor (`np.sort` of both arms, the "
        "least a rank count does) and scipy's `mannwhitneyu(b, a)` (the same U, an asymptotic "
        "p-value, no interval), alternating with them. \"Run by run\" is the percentile bootstrap "
        "drawn run by run (`interval=\"percentile\"`: what the default did before), 20 resamples "
        "timed and scaled to 2,000. Peak extra memory: tracemalloc's peak during one more default "
        "call, over the size of the two arms. \"Interval\" is the result's `.method`.",
        "",
        "| case | first call | best | floor | best / floor | scipy | run by run (2,000) | "
        "peak extra | interval | P(B > A) [95 % interval] |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        peer = f"{r['scipy']:.3f} s" if r["scipy"] is not None else "—"
        lines.append(f"| {r['case']} | {r['first']:.3f} s | {r['best']:.3f} s | {r['floor']:.3f} s | "
                     f"{r['best'] / r['floor']:.1f}× | {peer} | {r['run_by_run']:.1f} s | "
                     f"{r['extra']:.2f}× | {r['method']} | {r['value']:.4f} [{r['lo']:.4f}, {r['hi']:.4f}] |")
    lines += [
        "",
        "How (issue 33 item 6): the U statistic is counted by ranks (one sort of A per task, a "
        "binary search of each run of B). While the bootstrap draws at most 1e8 indices "
        "(`n_resamples` × all runs) the resamples are drawn run by run, the values of earlier "
        "versions. Beyond, when the smaller arm has at least 1,000 runs summed over tasks, the "
        "interval is normal with the bootstrap distribution's exact variance (closed form from the "
        "placements: no resample drawn; `.method == \"normal\"`); with fewer, the same bootstrap is "
        "drawn as multinomial counts of groups of runs that no resample can tell apart (linear in "
        "the smaller arm per resample). The values are pinned in "
        "`tests/compare/test_rliable_aggregates.py` (the variance against every resample "
        "enumerated, the groups against run-by-run counts, the memory with tracemalloc).",
        "",
    ]
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="1e4 and 1e5 runs only")
    parser.add_argument("--markdown", type=Path, help="write the table to this Markdown file")
    args = parser.parse_args(argv)
    load0 = " ".join(f"{v:.1f}" for v in os.getloadavg())
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2 ** 30
    machine = (f"{platform.machine()}, {os.cpu_count()} cores, {mem:.0f} GB; Python "
               f"{platform.python_version()}, numpy {np.__version__}, scipy {scipy.__version__}")
    print(f"{machine}; load average {load0} (the machine is shared)")
    compare.probability_of_improvement(np.arange(5.0), np.arange(5.0), n_resamples=10)   # imports
    print(f"{'case':34s} {'first s':>8s} {'best s':>8s} {'floor s':>8s} {'best/fl':>9s} {'scipy s':>8s} "
          f"{'run-by-run':>10s} {'peak':>8s}  interval   value [interval]")
    rows = [row(name, a, b) for name, a, b in cases(args.quick)]
    load1 = " ".join(f"{v:.1f}" for v in os.getloadavg())
    print(f"load average after the run: {load1}")
    if args.markdown:
        meta = dict(command="PYTHONPATH=src python benchmarks/bench_improvement.py"
                    + (" --quick" if args.quick else ""), machine=machine, load0=load0, load1=load1,
                    date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
        args.markdown.write_text(markdown(rows, meta), encoding="utf-8")
        print(f"wrote {args.markdown}")


if __name__ == "__main__":
    main()
