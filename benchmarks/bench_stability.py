"""Speed and memory of predstab.phi against naive pairwise implementations, in one run.

Usage::

    PYTHONPATH=src python benchmarks/bench_stability.py            # 1e4 -> 1e6 objects x 100
    PYTHONPATH=src python benchmarks/bench_stability.py --quick    # 1e4 -> 1e5
    PYTHONPATH=src python benchmarks/bench_stability.py --cost 1e6 # only phi against NumPy floors
    PYTHONPATH=src python benchmarks/bench_stability.py --no-cost  # the size and naive tables only
    PYTHONPATH=src python benchmarks/bench_stability.py --others 1e6 # only icc, the alphas, the ICC stack

The last table (``cost_table``) is the safety layer's cost (issue 33): phi's first call and
best of 4 against a NumPy floor on the same matrix -- metric: row variances with ``np.var``;
classes: one ``np.bincount`` of ``row * K + code`` -- on 80 %-agreement votes and on uniform
random codes, with the peak extra memory. Goals: metric <= 1.5x with peak extra <= 0.1x the
input; categorical and ordinal <= 3x. The same table has the other functions that gained the
scale check -- ``icc``, ``krippendorff_alpha(scale="interval")``, ``cronbach_alpha`` and an ICC
stack -- against floors of the same kind (``_other_costs``).

Prints, per scale and size, the time of ``predstab.phi`` and its peak extra memory (traced
by tracemalloc, which sees numpy's buffers) relative to the input's size, then the ratio to
two naive implementations run on the same small matrix in the same process:

* ``naive-python``: ``validation/aps/naive.py``, the definition in Python loops over all
  ordered pairs of repetitions of every object (how APS 1.0.1 computes, in R);
* ``naive-numpy``: one object at a time, an R x R comparison table per object in numpy.

Categorical and ordinal inputs are integer-coded (int8 codes, 5 classes) or a pandas
Categorical (its codes are reused). Factorising text is slow in any library: the
``text`` row shows the one ``pd.factorize`` pass predstab makes for object arrays of str.
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import sys
import time
import tracemalloc
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

import predstab  # noqa: E402
from validation.aps.naive import naive_stability  # noqa: E402

R = 100
K = 5
LEVELS = list(range(K))


def _data(scale, n, rng):
    if scale == "metric":
        pred = rng.normal(size=(n, 1)) * 3 + rng.normal(size=(n, R))
        return pred, rng.normal(size=1000) * 3, {}
    truth = rng.integers(0, K, size=(n, 1), dtype=np.int8)
    noise = rng.integers(0, K, size=(n, R), dtype=np.int8)
    pred = np.where(rng.random((n, R)) < 0.8, truth, noise).astype(np.int8)
    base = rng.integers(0, K, size=1000, dtype=np.int8)
    if scale == "ordinal":
        return pred, base, {"scale": "ordinal", "categories": LEVELS}
    if scale == "categorical":
        return pred, base, {"scale": "categorical"}
    if scale == "categorical (pandas Categorical)":
        dtype = pd.CategoricalDtype(LEVELS)
        frame = pd.DataFrame({j: pd.Categorical.from_codes(pred[:, j], dtype=dtype) for j in range(R)})
        return frame, pd.Categorical.from_codes(base, dtype=dtype), {}
    if scale == "categorical (text)":
        names = np.array(["a", "b", "c", "d", "e"], dtype=object)
        return names[pred], names[base], {}
    raise ValueError(scale)


def _nbytes(x):
    if isinstance(x, pd.DataFrame):
        return int(x.memory_usage(deep=True, index=False).sum())
    return int(np.asarray(x).nbytes) if np.asarray(x).dtype != object else int(
        pd.DataFrame(x).memory_usage(deep=True, index=False).sum())


def _call(pred, base, kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return predstab.phi(pred, base, **kwargs)


def _run(pred, base, kwargs, repeat=1):
    """Best wall time of ``repeat`` calls, then the peak traced memory of one more call.

    Timing and memory are separate runs: tracemalloc slows allocation-heavy code down.
    """
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        t0 = time.perf_counter()
        res = _call(pred, base, kwargs)
        best = min(best, time.perf_counter() - t0)
    return res, best, _peak(lambda: _call(pred, base, kwargs))


def _peak(run):
    """Peak bytes traced by tracemalloc while ``run()`` runs (after a collection)."""
    gc.collect()
    tracemalloc.start()
    run()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak


def _cost_row(name, first, best, floor, extra):
    """One row of the cost table (first call, best of 3, floor, their ratios, peak extra / input),
    printed as it is measured."""
    row = (name, first, best, floor, first / floor, best / floor, extra)
    print(f"{name:30s} {first:8.3f} {best:8.3f} {floor:8.3f} {row[4]:11.2f}x {row[5]:10.2f}x {extra:10.3f}x")
    return row


def naive_numpy(pred, base, scale, levels=None):
    """One object at a time, an R x R table of pairwise distances (numpy, R-style loop)."""
    base = np.asarray(base)
    if scale == "metric":
        d_e = np.var(base, ddof=1)
        d_o = np.mean([np.var(row, ddof=1) for row in pred])
        return 1 - d_o / d_e
    if scale == "ordinal":
        m = np.array([(base == lev).sum() for lev in levels], dtype=float)
        pos = np.cumsum(m) - m / 2
        p = m / m.sum()
        d_e = np.sum(p[:, None] * p[None, :] * (pos[:, None] - pos[None, :]) ** 2)
        per_row = []
        for row in pred:
            t = pos[row]
            d2 = (t[:, None] - t[None, :]) ** 2
            per_row.append(d2.sum() / (len(row) * (len(row) - 1)))
    else:
        _, counts = np.unique(base, return_counts=True)
        p = counts / counts.sum()
        d_e = 1 - np.sum(p * p)
        per_row = []
        for row in pred:
            differ = row[:, None] != row[None, :]
            per_row.append(differ.sum() / (len(row) * (len(row) - 1)))
    return 1 - np.mean(per_row) / d_e


def _votes(n, rng, agreement):
    """int8 codes of K classes: each refit votes for the object's class with probability
    ``agreement``, else for a uniform random class (``agreement=0``: uniform random codes)."""
    noise = rng.integers(0, K, size=(n, R), dtype=np.int8)
    if not agreement:
        return noise
    truth = rng.integers(0, K, size=(n, 1), dtype=np.int8)
    return np.where(rng.random((n, R)) < agreement, truth, noise).astype(np.int8)


COST_CASES = (
    ("metric", None),
    ("categorical, 80 % agreement", 0.8),
    ("categorical, uniform codes", 0.0),
    ("ordinal, 80 % agreement", 0.8),
    ("ordinal, uniform codes", 0.0),
)


def _timed(func):
    t0 = time.perf_counter()
    func()
    return time.perf_counter() - t0


def cost_table(n):
    """phi against a NumPy floor on the same matrix, in this process (issue 33, item 7).

    Floors: metric, the row variances ``np.var(pred, axis=1, ddof=1)``; classes, one
    ``np.bincount`` of ``row * K + code`` (the index array built beforehand, so the floor is
    the count alone). phi is timed on its first call on the fresh matrix (what a user waits
    for; imports and caches are warmed on a small matrix first) and as the best of 4 calls;
    the floor as the best of 3, alternating with phi's calls (both see the same load). Peak
    extra memory: tracemalloc's peak during one more call, over the input's size.
    """
    rng = np.random.default_rng(0)
    print(f"\nthe safety layer's cost: phi on {n:.0e} x {R} against a NumPy floor "
          "(same matrix, same process)")
    print(f"{'case':30s} {'first s':>8s} {'best s':>8s} {'floor s':>8s} {'first/floor':>12s} "
          f"{'best/floor':>11s} {'peak extra':>11s}")
    rows = []
    for name, agreement in COST_CASES:
        scale = name.split(",")[0]
        kwargs = {"scale": scale} if scale != "ordinal" else {"scale": "ordinal", "categories": LEVELS}
        base = (rng.normal(size=1000) * 3 if scale == "metric"
                else rng.integers(0, K, size=1000, dtype=np.int8))
        small = (rng.normal(size=(100, R)) if scale == "metric" else _votes(100, rng, agreement))
        _call(small, base, kwargs)  # imports and caches, not the user's wait on the large matrix
        pred = rng.normal(size=(n, 1)) * 3 + rng.normal(size=(n, R)) if scale == "metric" \
            else _votes(n, rng, agreement)
        gc.collect()
        first = _timed(lambda pred=pred, base=base, kwargs=kwargs: _call(pred, base, kwargs))
        if scale == "metric":
            def floor_call(pred=pred):
                return np.var(pred, axis=1, ddof=1)
        else:
            index = (np.arange(n, dtype=np.int64)[:, None] * K + pred).ravel()

            def floor_call(index=index):
                return np.bincount(index, minlength=n * K)
        # phi and its floor alternate, so that both see the same load (the machine is shared)
        best, floor = first, float("inf")
        for _ in range(3):
            floor = min(floor, _timed(floor_call))
            best = min(best, _timed(lambda pred=pred, base=base, kwargs=kwargs: _call(pred, base, kwargs)))
        del floor_call
        if scale != "metric":
            del index
        peak = _peak(lambda pred=pred, base=base, kwargs=kwargs: _call(pred, base, kwargs))
        rows.append(_cost_row(name, first, best, floor, peak / pred.nbytes))
        del pred
        gc.collect()
    rows += _other_costs(n, rng)
    return rows


def _others(n, rng):
    """The other functions that gained the scale check (``unit_scaled``): ``(name, data, call,
    floor)``, on N x 100 metric ratings (the stack: N / 100 items of 100 objects x 100 raters)."""
    def ratings():
        return rng.normal(size=(n, 1)) * 3 + rng.normal(size=(n, R))

    return (
        ("icc, twoway agreement", ratings,
         lambda x: predstab.icc(x, model="twoway", type="agreement"),
         lambda x: (np.var(x, axis=1, ddof=1), x.mean(axis=0))),
        ("krippendorff_alpha, interval", ratings,
         lambda x: predstab.krippendorff_alpha(x, scale="interval"),
         lambda x: (np.var(x, axis=1, ddof=1), np.var(x))),
        ("cronbach_alpha, detail=False", ratings,
         lambda x: predstab.cronbach_alpha(x, detail=False),
         lambda x: (np.var(x, axis=0, ddof=1), np.var(x.sum(axis=1), ddof=1))),
        ("icc of a stack (N/100 items)",
         lambda: rng.normal(size=(n // R, R, 1)) * 3 + rng.normal(size=(n // R, R, R)),
         lambda x: predstab.icc(x, model="twoway", type="agreement"),
         lambda x: (np.var(x, axis=2, ddof=1), x.mean(axis=1))),
    )


def _other_costs(n, rng):
    """icc, Krippendorff's and Cronbach's alpha and an ICC stack against their floors, as phi:
    first call, best of 4, floor best of 3 alternating, peak extra memory over the input.
    Floors: icc, the row variances and the column means (the two-way ANOVA's sums of squares);
    Krippendorff's alpha (interval), the row variances and the total variance; Cronbach's alpha,
    the item variances and the variance of the total scores; the stack, the icc floor per item."""
    rows = []
    for name, make, call, floor_call in _others(n, rng):
        small = make()[:100] if name.startswith("icc of") else make()[:1000]
        _quiet(call, small)  # imports and caches
        x = make()
        gc.collect()
        first = _timed(lambda x=x, call=call: _quiet(call, x))
        best, floor = first, float("inf")
        for _ in range(3):
            floor = min(floor, _timed(lambda x=x, floor_call=floor_call: floor_call(x)))
            best = min(best, _timed(lambda x=x, call=call: _quiet(call, x)))
        peak = _peak(lambda x=x, call=call: _quiet(call, x))
        rows.append(_cost_row(name, first, best, floor, peak / x.nbytes))
        del x
        gc.collect()
    return rows


def _quiet(call, x):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call(x)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="sizes 1e4 and 1e5 only")
    parser.add_argument("--cost", type=float, default=None, metavar="N",
                        help="only the table of phi against NumPy floors, on N x 100 (e.g. 1e6)")
    parser.add_argument("--others", type=float, default=None, metavar="N",
                        help="only the table of icc, the alphas and the ICC stack against their floors, "
                             "on N x 100 (e.g. 1e6)")
    parser.add_argument("--no-cost", action="store_true",
                        help="the size and naive tables only (the cost table run on its own with --cost)")
    args = parser.parse_args(argv)
    print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores; load average "
          f"{' '.join(f'{v:.1f}' for v in os.getloadavg())} (the machine is shared)")
    if args.cost:
        cost_table(int(args.cost))
        return
    if args.others:
        print(f"icc, the alphas and an ICC stack on {args.others:.0e} x {R} against their floors "
              "(same data, same process)")
        print(f"{'case':30s} {'first s':>8s} {'best s':>8s} {'floor s':>8s} {'first/floor':>12s} "
              f"{'best/floor':>11s} {'peak extra':>11s}")
        _other_costs(int(args.others), np.random.default_rng(0))
        print(f"load average after the run: {' '.join(f'{v:.1f}' for v in os.getloadavg())}")
        return
    sizes = [10_000, 100_000] if args.quick else [10_000, 100_000, 1_000_000]
    rng = np.random.default_rng(0)
    print(f"predstab.phi on N objects x {R} repetitions ({K} classes for categorical/ordinal)")
    print(f"{'scale':34s} {'N':>9s} {'seconds':>9s} {'ns/value':>9s} {'input MB':>9s} {'peak extra':>11s}")
    scales = ("metric", "categorical", "ordinal", "categorical (pandas Categorical)", "categorical (text)")
    for scale in scales:
        for n in sizes:
            if scale == "categorical (text)" and n > 100_000:
                continue  # factorising 1e8 str objects: slow in any library (and ~6 GB of objects)
            pred, base, kwargs = _data(scale, n, rng)
            _, elapsed, peak = _run(pred, base, kwargs, repeat=3 if n <= 100_000 else 1)
            size = _nbytes(pred)
            print(f"{scale:34s} {n:9.0e} {elapsed:9.3f} {elapsed / (n * R) * 1e9:9.2f} {size / 2**20:9.1f} "
                  f"{peak / size:10.2f}x")
            del pred
            gc.collect()

    print("\nratio to naive pairwise implementations on the same matrix (same process)")
    print(f"{'scale':12s} {'N':>6s} {'predstab s':>11s} {'naive-numpy s':>14s} {'ratio':>8s} "
          f"{'naive-python s':>15s} {'ratio':>8s}")
    _call(*_data("categorical", 10, rng)[:2], {"scale": "categorical"})  # first-call imports
    for scale in ("metric", "categorical", "ordinal"):
        n = 200
        pred, base, kwargs = _data(scale, n, rng)
        res, t_ps, _ = _run(pred, base, kwargs, repeat=20)
        t0 = time.perf_counter()
        s_np = naive_numpy(pred, base, scale, LEVELS)
        t_np = time.perf_counter() - t0
        t0 = time.perf_counter()
        levels = LEVELS if scale == "ordinal" else None
        s_py, _, _ = naive_stability(pred.tolist(), base.tolist(), scale, levels)
        t_py = time.perf_counter() - t0
        if abs(s_np - res.value) > 1e-9 or abs(s_py - res.value) > 1e-9:
            raise RuntimeError(f"implementations disagree on {scale}: {res.value}, {s_np}, {s_py}")
        print(f"{scale:12s} {n:6d} {t_ps:11.4f} {t_np:14.4f} {t_np / t_ps:7.0f}x {t_py:15.3f} "
              f"{t_py / t_ps:7.0f}x")
    print("\nAPS 1.0.1 (R 4.2.2, one core, measured for issue 4; R is not installed here): metric 1e5 x 100 "
          "3.1 s, categorical 1e4 x 100 2.1 s, ordinal 1e4 x 100 3.8 s.")
    if not args.no_cost:
        cost_table(sizes[-1])
    print(f"load average after the run: {' '.join(f'{v:.1f}' for v in os.getloadavg())}")


if __name__ == "__main__":
    main()
