"""Speed and memory of predstab's agreement coefficients against their Python peers.

Run from the project root (krippendorff and pingouin installed, e.g. ``pip install .[bench]``)::

    PYTHONPATH=src python benchmarks/bench_agreement.py

Everything runs in this one process on the same data, so the printed ratios compare like
with like. Times are the best of several repeats after a warm-up call; peak memory is
measured with tracemalloc (NumPy reports its allocations to it).

krippendorff builds an objects x values x values array: on continuous data it is run
only at sizes it survives (100 x 5, 200 x 5). Do NOT raise these: 300 x 5 needed 15.9 GB.
"""

from __future__ import annotations

import os
import platform
import time
import tracemalloc
import warnings
from importlib import metadata

import numpy as np
import pandas as pd

import predstab


def best_time(func, repeat):
    func()  # warm-up: imports, page faults
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return min(times)


def peak_bytes(func):
    tracemalloc.start()
    try:
        func()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def row(task, ours, theirs, peer, ratio_target, diff):
    ratio = theirs / ours if theirs else float("nan")
    verdict = "" if ratio_target is None else ("meets" if ratio >= ratio_target else "MISSES")
    target = "" if ratio_target is None else f">= {ratio_target:g}x"
    print(f"{task:<38} {ours * 1e3:>10.2f} {theirs * 1e3 if theirs else float('nan'):>10.2f} "
          f"{peer:<12} {ratio:>8.1f}x {target:>8} {verdict:<7} {diff:>9.1e}")


def large_fleiss():
    """Fleiss' kappa on large inputs, where statsmodels' aggregate_raters loops over objects in Python."""
    from statsmodels.stats import inter_rater

    rng = np.random.default_rng(20261201)
    n = 10_000_000
    two = rng.integers(0, 3, size=(n, 2)).astype(np.int8)
    two[:, 1] = np.where(rng.random(n) < 0.6, two[:, 0], two[:, 1])  # some agreement
    n, k = 1_000_000, 10
    truth = rng.integers(0, 5, size=(n, 1))
    ten = np.where(rng.random((n, k)) < 0.7, truth, rng.integers(0, 5, size=(n, k)))
    cases = (("Fleiss' kappa 1e7 x 2 int8, 3 cat.", two), ("Fleiss' kappa 1e6 x 10, 5 categories", ten))
    for task, x in cases:
        t_ours = best_time(lambda x=x: predstab.fleiss_kappa(x), 5)
        start = time.perf_counter()  # one run only: statsmodels takes seconds to minutes here
        theirs = inter_rater.fleiss_kappa(inter_rater.aggregate_raters(x)[0])
        t_sm = time.perf_counter() - start
        row(task, t_ours, t_sm, "statsmodels", None, abs(predstab.fleiss_kappa(x).value - theirs))
    # the same data in other forms (predstab only): nominal alpha, text, pandas Categoricals
    t_alpha = best_time(lambda: predstab.krippendorff_alpha(two, scale="nominal"), 3)
    print(f"{'':<38} same 1e7 x 2: nominal alpha {t_alpha * 1e3:.0f} ms")
    text = np.array(["a", "b", "c", "d", "e"], dtype=object)[ten]
    frame = pd.DataFrame({j: pd.Categorical.from_codes(ten[:, j], list("abcde")) for j in range(k)})
    t_text = best_time(lambda: predstab.fleiss_kappa(text), 3)
    t_frame = best_time(lambda: predstab.fleiss_kappa(frame), 3)
    print(f"{'':<38} same 1e6 x 10 as text (object array): {t_text * 1e3:.0f} ms; "
          f"as a DataFrame of Categoricals: {t_frame * 1e3:.0f} ms")
    # many categories (statsmodels would need a 1e6 x 4000 table: 30 GiB)
    many = rng.integers(0, 4000, size=(n, k))
    t_many = best_time(lambda: predstab.fleiss_kappa(many), 3)
    t_many2 = best_time(lambda: predstab.fleiss_kappa(many[:, :2]), 3)
    print(f"{'':<38} 1e6 x 10 with 4000 categories: {t_many * 1e3:.0f} ms; 1e6 x 2 of them: "
          f"{t_many2 * 1e3:.0f} ms")


def main():
    import krippendorff
    import pingouin

    rng = np.random.default_rng(20261130)
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}, numpy {np.__version__}, pandas {pd.__version__}; "
          f"load average {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    print(f"peers: krippendorff {metadata.version('krippendorff')}, pingouin {metadata.version('pingouin')}")
    print()
    print(f"{'task':<38} {'predstab ms':>10} {'peer ms':>10} {'peer':<12} {'speed-up':>9} {'target':>8} "
          f"{'':<7} {'|diff|':>9}")

    # ICC, 2e4 objects x 10 raters: predstab (matrix) vs pingouin (long format, as it requires)
    n, k = 20_000, 10
    m = rng.normal(size=(n, 1)) + rng.normal(scale=0.8, size=(n, k))
    long = pd.DataFrame({"target": np.repeat(np.arange(n), k), "rater": np.tile(np.arange(k), n),
                         "score": m.ravel()})

    def run_pingouin():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return pingouin.intraclass_corr(long, targets="target", raters="rater", ratings="score")

    ref = run_pingouin()
    t_pg = best_time(run_pingouin, 3)
    t_icc = best_time(lambda: predstab.icc(m), 20)
    diff = abs(predstab.icc(m).value - ref["ICC"].iloc[0])
    row("ICC(1) 2e4 x 10", t_icc, t_pg, "pingouin", 50, diff)
    t_table = best_time(lambda: predstab.icc_table(m), 20)
    diff = float(np.max(np.abs(predstab.icc_table(m)["ICC"].to_numpy() - ref["ICC"].to_numpy())))
    row("icc_table (6 forms) 2e4 x 10", t_table, t_pg, "pingouin", 50, diff)

    # nominal alpha, 1e5 objects x 10 replicates x 5 categories
    n, k = 100_000, 10
    truth = rng.integers(0, 5, size=(n, 1))
    cats = np.where(rng.random((n, k)) < 0.7, truth, rng.integers(0, 5, size=(n, k))).astype(float)
    t_ka = best_time(lambda: krippendorff.alpha(reliability_data=cats.T, level_of_measurement="nominal"), 5)
    t_ours = best_time(lambda: predstab.krippendorff_alpha(cats, scale="nominal"), 10)
    diff = abs(predstab.krippendorff_alpha(cats).value
               - krippendorff.alpha(reliability_data=cats.T, level_of_measurement="nominal"))
    row("nominal alpha 1e5 x 10, 5 categories", t_ours, t_ka, "krippendorff", 3, diff)

    # ordinal alpha on the same categories (values x values coincidences, 5 x 5)
    t_ka = best_time(lambda: krippendorff.alpha(reliability_data=cats.T, level_of_measurement="ordinal"), 5)
    t_ours = best_time(lambda: predstab.krippendorff_alpha(cats, scale="ordinal"), 10)
    diff = abs(predstab.krippendorff_alpha(cats, scale="ordinal").value
               - krippendorff.alpha(reliability_data=cats.T, level_of_measurement="ordinal"))
    row("ordinal alpha 1e5 x 10, 5 categories", t_ours, t_ka, "krippendorff", None, diff)

    # Fleiss' kappa on the same categories vs statsmodels (aggregate_raters + fleiss_kappa)
    from statsmodels.stats import inter_rater

    t_sm = best_time(lambda: inter_rater.fleiss_kappa(inter_rater.aggregate_raters(cats)[0]), 3)
    t_ours = best_time(lambda: predstab.fleiss_kappa(cats), 10)
    diff = abs(predstab.fleiss_kappa(cats).value
               - inter_rater.fleiss_kappa(inter_rater.aggregate_raters(cats)[0]))
    row("Fleiss' kappa 1e5 x 10, 5 categories", t_ours, t_sm, "statsmodels", None, diff)

    large_fleiss()

    # interval alpha on continuous data (the random-forest regression case)
    for n in (100, 200):
        x = rng.normal(size=(n, 1)) + rng.normal(scale=0.5, size=(n, 5))
        t_ka = best_time(lambda x=x: krippendorff.alpha(reliability_data=x.T,
                                                        level_of_measurement="interval"), 2)
        t_ours = best_time(lambda x=x: predstab.krippendorff_alpha(x, scale="interval"), 20)
        diff = abs(predstab.krippendorff_alpha(x, scale="interval").value
                   - krippendorff.alpha(reliability_data=x.T, level_of_measurement="interval"))
        row(f"interval alpha {n} x 5 continuous", t_ours, t_ka, "krippendorff", None, diff)
        mem_ka = peak_bytes(lambda x=x: krippendorff.alpha(reliability_data=x.T,
                                                           level_of_measurement="interval"))
        mem_ours = peak_bytes(lambda x=x: predstab.krippendorff_alpha(x, scale="interval"))
        print(f"{'':<38} peak memory: predstab {mem_ours / 2**20:.2f} MiB, "
              f"krippendorff {mem_ka / 2**20:.0f} MiB")

    n, k = 1_000_000, 10
    x = rng.normal(size=(n, 1)) + rng.normal(scale=0.5, size=(n, k))
    t_ours = best_time(lambda: predstab.krippendorff_alpha(x, scale="interval"), 5)
    mem_ours = peak_bytes(lambda: predstab.krippendorff_alpha(x, scale="interval"))
    print(f"{'interval alpha 1e6 x 10 continuous':<38} {t_ours * 1e3:>10.2f} "
          f"{'(krippendorff: not feasible)':<33}"
          f" target < 1000 ms: {'meets' if t_ours < 1 else 'MISSES'}; peak memory "
          f"{mem_ours / 2**20:.0f} MiB beyond the {x.nbytes / 2**20:.0f} MiB input")


def _timed(func):
    start = time.perf_counter()
    func()
    return time.perf_counter() - start


def safety_cost(n=1_000_000, k=100):
    """icc, interval alpha and a stack of ICCs against a NumPy floor on the same data (issue 33,
    item 7: the functions that gained ``unit_scaled``): the first call on fresh data (imports
    warmed on a small matrix), the best of 4 alternating with the floor's calls and tracemalloc's
    peak over the input's size.
    Floors, as ``bench_stability.py``'s: icc, the row variances ``np.var(x, axis=-1, ddof=1)``
    and the column means (the two-way ANOVA's sums of squares; per item for the stack);
    interval alpha, the row variances and the total variance."""
    rng = np.random.default_rng(33)
    print(f"\nthe safety layer's cost: {n:.0e} x {k} (stack: {n // 100:.0e} items of 100 x {k}) against a "
          "NumPy floor, same data, same process")
    print(f"{'function':34s} {'first s':>8s} {'best s':>8s} {'floor s':>8s} {'first/floor':>12s} "
          f"{'best/floor':>11s} {'peak extra':>11s}")

    def anova_floor(x):
        return np.var(x, axis=-1, ddof=1), x.mean(axis=-2)

    cases = (
        ("icc (oneway, single)", lambda x: predstab.icc(x), False, anova_floor),
        ("icc (twoway, agreement)", lambda x: predstab.icc(x, model="twoway", type="agreement"), False,
         anova_floor),
        ("krippendorff_alpha (interval)", lambda x: predstab.krippendorff_alpha(x, scale="interval"), False,
         lambda x: (np.var(x, axis=1, ddof=1), np.var(x))),
        ("icc of a stack (twoway)", lambda x: predstab.icc(x, model="twoway"), True, anova_floor),
    )
    out = []
    for name, func, stacked, floor_call in cases:
        shape = (n // 100, 100, k) if stacked else (n, k)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            func(rng.normal(size=shape[:-2] + (50, k)) if stacked else rng.normal(size=(50, k)))
            x = rng.normal(size=shape[:-1] + (1,)) + rng.normal(scale=0.5, size=shape)
            first = _timed(lambda x=x, func=func: func(x))
            best, floor = first, float("inf")
            for _ in range(3):  # alternating, so that both see the same load (the machine is shared)
                floor = min(floor, _timed(lambda x=x, floor_call=floor_call: floor_call(x)))
                best = min(best, _timed(lambda x=x, func=func: func(x)))
            extra = peak_bytes(lambda x=x, func=func: func(x)) / x.nbytes
        out.append((name, first, best, floor, extra))
        print(f"{name:34s} {first:8.3f} {best:8.3f} {floor:8.3f} {first / floor:11.2f}x "
              f"{best / floor:10.2f}x {extra:10.3f}x")
        del x
    return out


if __name__ == "__main__":
    import sys

    if len(sys.argv) > 2 and sys.argv[1] == "--cost":  # only the safety layer's cost, at N x 100
        print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores; load average "
              f"{' '.join(f'{v:.1f}' for v in os.getloadavg())} (the machine is shared)")
        safety_cost(int(float(sys.argv[2])))
        print(f"load average after: {' '.join(f'{v:.1f}' for v in os.getloadavg())}")
    else:
        main()
        safety_cost()
