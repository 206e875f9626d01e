"""Benchmark: the closed form and its bands at scale (issue 15, items 5 and 7).

The job of the issue: regression, 2,000 training rows x 20 features (Friedman #1 with 15
noise features), a pool of 1,000 trees (``RandomForestRegressor(max_features="sqrt",
min_samples_split=5)``, ranger's defaults as optRF calls it), grid 50, 100, 200, ICC(1) with
its 95 % band from 200 bootstrap resamples of the pool's trees, on 10^3 ... 10^6 test
objects. Each size runs in a fresh process (so its peak memory is its own) and reports:

- ``fit``: fitting the pool's 1,000 trees (``TreePool.fit_seconds_``);
- ``predict``: caching every tree's prediction on the test objects (``predict_seconds_``;
  scikit-learn's own ``predict`` of the same forest, which keeps no per-tree values, is
  printed beside it up to 10^5 objects);
- ``curve``: ``TreePool.closed_form(grid)``, the estimate alone;
- ``bands``: ``TreePool.closed_form(grid, n_resamples=200)``, estimate and band;
- ``total``: the whole ``fit()`` call (training-row cache for out-of-bag baselines
  included) plus ``bands``, and ``total / (fit + predict)`` (goal: at most 1.5);
- ``peak``: the process's peak resident memory above what it held before fitting
  (``resource.getrusage``), over the per-tree prediction matrix (goal: at most 1.5; the
  fitted forest itself, about 0.1 GB, and the training-row cache are in it).

With ``--dask SIZE`` the same measurement runs at one size with the pool fitted on a
``dask.distributed.LocalCluster`` of 2 worker processes (1 thread each) through joblib's dask
backend (``joblib.parallel_config(backend="dask")`` around ``TreePool.fit``: scikit-learn's
tree-building tasks run on the workers; the per-tree prediction cache runs in the client's
threads, as many as the cluster has worker threads; the curve and bands are numpy in the
client). Needs ``dask[distributed]``.

With ``--jobs`` the n_jobs = 2 speed-up of the fit, the prediction cache, the curve and the
bands is measured at one size (BLAS threads set by ``threadpoolctl`` to match).

Usage::

    python benchmarks/bench_scale.py                                  # 1e3 ... 1e5, then --jobs
    python benchmarks/bench_scale.py --sizes 1e3 1e4 1e5 1e6 --jobs 1e4 --dask 1e6 \\
        --markdown docs/benchmarks/scale.md
    python benchmarks/bench_scale.py --quick                          # small smoke run
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "2")  # --jobs limits them per step with threadpoolctl

import numpy as np  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))

GRID = [50, 100, 200]


def _rss_bytes():
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _peak_bytes():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # kB on Linux


def _data(n_test, seed=0):
    from sklearn.datasets import make_friedman1

    X, y = make_friedman1(2000, 20, noise=1.0, random_state=seed)
    X_test = np.random.default_rng(seed + 1).uniform(size=(int(n_test), 20)).astype(np.float32)
    return X.astype(np.float32), y, X_test


def _estimator():
    from sklearn.ensemble import RandomForestRegressor

    return RandomForestRegressor(max_features="sqrt", min_samples_split=5)


def one_size(n_test, pool_size, n_bootstrap, dtype, sklearn_predict, dask=False):
    """Measure one size in this process; return a dict.

    ``dask``: fit the pool through joblib's dask backend on a LocalCluster of 2 worker
    processes (started before the measurement; their memory is not in ``peak``).
    """
    import contextlib

    X, y, X_test = _data(n_test)
    with contextlib.ExitStack() as stack:
        backend = contextlib.nullcontext()
        stream = None
        if dask:
            import joblib
            from dask import distributed

            cluster = stack.enter_context(distributed.LocalCluster(
                n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None))
            client = stack.enter_context(distributed.Client(cluster))
            stream = distributed.get_task_stream(client)
            backend = contextlib.ExitStack()
            backend.enter_context(joblib.parallel_config(backend="dask"))
            backend.enter_context(stream)
        out = _measure(X, y, X_test, pool_size, n_bootstrap, dtype, sklearn_predict, backend, dask)
        if stream is not None:  # the tree-building tasks really ran on the cluster's workers
            out["dask_tasks"] = len(stream.data)
            out["dask_workers"] = len({t["worker"] for t in stream.data})
        return out


def _measure(X, y, X_test, pool_size, n_bootstrap, dtype, sklearn_predict, backend, dask):
    from threadpoolctl import threadpool_limits

    from predstab import TreePool

    n_test = len(X_test)
    before = _rss_bytes()
    with threadpool_limits(1):
        start = time.perf_counter()
        with backend:
            pool = TreePool(_estimator(), n_learners=pool_size, random_state=0, dtype=dtype).fit(X, y, X_test)
        fit_call = time.perf_counter() - start
        pool.closed_form(GRID[:1], n_resamples=2)  # warm-up (imports, caches)
        start = time.perf_counter()
        pool.closed_form(GRID)
        curve_s = time.perf_counter() - start
        start = time.perf_counter()
        res = pool.closed_form(GRID, n_resamples=n_bootstrap, random_state=0)
        bands_s = time.perf_counter() - start
        peak = _peak_bytes() - before
        sk = None
        if sklearn_predict:
            start = time.perf_counter()
            pool.ensemble_.predict(X_test)
            sk = time.perf_counter() - start
    return {
        "n_test": int(n_test), "pool": pool_size, "dtype": dtype, "dask": dask, "fit": pool.fit_seconds_,
        "predict": pool.predict_seconds_, "sklearn_predict": sk, "fit_call": fit_call, "curve": curve_s,
        "bands": bands_s, "total": fit_call + bands_s, "matrix_bytes": int(pool.test_predictions_.nbytes),
        "peak_bytes": int(peak), "icc": res.curve.tolist(), "low": res.low.tolist(),
        "high": res.high.tolist(),
    }


def jobs(n_test, pool_size, n_bootstrap, dtype):
    """Seconds of fit / prediction cache / curve / bands with 1 and 2 jobs (threads)."""
    from threadpoolctl import threadpool_limits

    from predstab import TreePool

    X, y, X_test = _data(n_test)
    out = {}
    for n_jobs in (1, 2):
        with threadpool_limits(n_jobs):
            pool = TreePool(_estimator(), n_learners=pool_size, random_state=0, dtype=dtype, n_jobs=n_jobs)
            pool.fit(X, y, X_test, oob=False)
            pool.closed_form(GRID[:1], n_resamples=2)  # warm-up (imports, caches)
            start = time.perf_counter()
            pool.closed_form(GRID)
            curve_s = time.perf_counter() - start
            start = time.perf_counter()
            pool.closed_form(GRID, n_resamples=n_bootstrap, random_state=0)
            bands_s = time.perf_counter() - start
        out[n_jobs] = {"fit": pool.fit_seconds_, "predict": pool.predict_seconds_, "curve": curve_s,
                       "bands": bands_s}
    return {"n_test": int(n_test), "jobs": out}


def tune_vs_forest(n_test, pool_size, n_jobs, profile=False):
    """``tune_num_learners(method="closed_form", n_jobs=n_jobs, pool_size=pool_size)`` against the
    same forest's own ``fit`` + ``predict`` with the same ``n_jobs``, in this process (issue 37,
    item 6). The forest runs first, then the tuning, then the forest again (the forest's time is the
    mean of its two runs: a load that changes during the run touches both sides). ``profile``: one
    more, profiled, tuning run gives the seconds of its steps (:data:`STEPS`)."""
    from sklearn.ensemble import RandomForestRegressor
    from threadpoolctl import threadpool_limits

    from predstab import tune_num_learners

    X, y, X_test = _data(n_test)
    forest = {"fit": [], "predict": []}
    cpu = {"forest": [], "tune": []}  # (CPU seconds of the calling thread, of the whole process)

    def clocks():
        return np.array([time.thread_time(), time.process_time()])

    def own():
        model = RandomForestRegressor(max_features="sqrt", min_samples_split=5, n_estimators=pool_size,
                                      n_jobs=n_jobs, random_state=0)
        before = clocks()
        start = time.perf_counter()
        model.fit(X, y)
        forest["fit"].append(time.perf_counter() - start)
        start = time.perf_counter()
        model.predict(X_test)
        forest["predict"].append(time.perf_counter() - start)
        cpu["forest"].append((clocks() - before).tolist())

    def tune():
        return tune_num_learners(_estimator(), X, y, X_test, grid=GRID, method="closed_form",
                                 pool_size=pool_size, n_jobs=n_jobs, random_state=0)

    with threadpool_limits(n_jobs):
        tune_num_learners(_estimator(), X[:200], y[:200], X_test[:200], grid=(5, 10, 20),
                          method="closed_form", pool_size=60, n_jobs=n_jobs, random_state=0)  # warm-up
        own()
        before = clocks()
        start = time.perf_counter()
        res = tune()
        tune_s = time.perf_counter() - start
        cpu["tune"].append((clocks() - before).tolist())
        own()
        steps = _profiled_steps(tune) if profile else None
    table = res.table
    digest = __import__("hashlib").sha256(
        table.drop(columns=["seconds"]).to_csv(float_format="%.17g").encode()
        + repr(res.recommendation).encode() + repr(res.confidence_interval).encode()).hexdigest()[:16]
    out = {"n_test": int(n_test), "pool": pool_size, "n_jobs": n_jobs, "tune": tune_s,
           "forest_fit": float(np.mean(forest["fit"])), "forest_predict": float(np.mean(forest["predict"])),
           "forest_runs": forest, "recommendation": res.recommendation, "digest": digest,
           "load": os.getloadavg(), "autogroup": _autogroup(), "cpu": cpu}
    if steps is not None:
        out["steps"] = steps
    return out


# where a tuning's time goes: (label, file, function) of cProfile's cumulative wall seconds in the
# calling thread (a step that waits for its worker threads counts their wall time)
STEPS = [
    ("pool fit (scikit-learn's forest fit)", "_pool.py", "_fit_in_steps"),
    ("- of it: scikit-learn's serial estimator construction", "_base.py", "_make_estimator"),
    ("prediction cache (test objects and training rows)", "_forest.py", "learner_predictions"),
    ("out-of-bag rows of every tree (serial)", "_forest.py", "inbag_mask"),
    ("closed forms and bands of ICC, phi, psi", "_tune_strategies.py", "closed_columns"),
    ("recommendation interval: learners+objects resampled", "_recommendation_interval.py",
     "_learner_object_curves"),
    ("recommendation interval: 2PL fits of the resampled curves (serial)", "_recommendation_interval.py",
     "_interval"),
    ("whole tune_num_learners call", "_tune.py", "tune_num_learners"),
]


def _profiled_steps(call):
    """Cumulative seconds of :data:`STEPS` in one more, profiled, run of ``call``."""
    import cProfile
    import pstats

    prof = cProfile.Profile()
    prof.runcall(call)
    stats = pstats.Stats(prof).stats
    out = {}
    for label, filename, function in STEPS:
        out[label] = sum(v[3] for k, v in stats.items() if k[0].endswith(filename) and k[2] == function)
    return out


def steps_table(rows):
    """The profiled steps at each n_jobs (medians over the runs)."""
    have = [r for r in rows if "steps" in r]
    if not have:
        return []
    jobs = sorted({r["n_jobs"] for r in have})
    lines = ["| step (cProfile, seconds) | " + " | ".join(f"n_jobs {j}" for j in jobs) + " | speed-up |",
             "|---" * (len(jobs) + 2) + "|"]
    for label, _, _ in STEPS:
        med = [float(np.median([r["steps"][label] for r in have if r["n_jobs"] == j])) for j in jobs]
        speed = f"{med[0] / med[-1]:.2f}" if len(med) > 1 and med[-1] > 0 else "-"
        lines.append(f"| {label} | " + " | ".join(f"{v:.2f}" for v in med) + f" | {speed} |")
    return lines


def _autogroup():
    """This process's scheduling group and its nice (Linux autogroups: the kernel shares the cores
    between sessions first, whatever their processes' own nice)."""
    try:
        with open("/proc/self/autogroup") as fh:
            return fh.read().strip()
    except OSError:
        return None


def _median_runs(rows, n_jobs):
    mine = [r for r in rows if r["n_jobs"] == n_jobs]
    return {k: float(np.median([r[k] for r in mine])) for k in ("forest_fit", "forest_predict", "tune")}


def _tune_row(k, r):
    own = r["forest_fit"] + r["forest_predict"]
    return (f"| {k} | {r['n_jobs']} | {r['forest_fit']:.2f} | {r['forest_predict']:.2f} | {own:.2f} | "
            f"{r['tune']:.2f} | {r['tune'] / own:.2f} | {r['load'][0]:.2f} | `{r['digest']}` |")


def tune_section(rows):
    """The tuning against the forest's own fit + predict at n_jobs 1 and 2: every run, the
    medians, the speed-ups and the Amdahl estimate for 64 cores."""
    lines = ["| run | n_jobs | forest fit s | forest predict s | fit + predict s | tune s | "
             "tune / (fit + predict) | load (1 min) | table digest |", "|---" * 9 + "|"]
    lines += [_tune_row(k, r) for k, r in enumerate(rows, 1)]
    med = {j: _median_runs(rows, j) for j in (1, 2)}
    lines += ["", "Medians over the runs:", "",
              "| n_jobs | forest fit s | forest predict s | fit + predict s | tune s | "
              "tune / (fit + predict) |", "|---" * 6 + "|"]
    for j, m in med.items():
        own = m["forest_fit"] + m["forest_predict"]
        lines.append(f"| {j} | {m['forest_fit']:.2f} | {m['forest_predict']:.2f} | {own:.2f} | "
                     f"{m['tune']:.2f} | {m['tune'] / own:.2f} |")
    one, two = med[1], med[2]
    own1, own2 = one["forest_fit"] + one["forest_predict"], two["forest_fit"] + two["forest_predict"]
    speed = {"forest fit": one["forest_fit"] / two["forest_fit"],
             "forest predict": one["forest_predict"] / two["forest_predict"],
             "forest fit + predict": own1 / own2, "tune": one["tune"] / two["tune"]}
    lines += ["", "| speed-up from n_jobs 1 to 2 (medians) | parallel fraction p (Amdahl) | "
              "speed-up on 64 cores from p |", "|---|---|---|"]
    for name, value in speed.items():
        p, s64 = amdahl(value, 64)
        lines.append(f"| {name}: {value:.2f} | {p:.2f} | {s64:.1f} |")
    lines += cpu_section(rows)
    digests = {r["digest"] for r in rows}
    lines += ["", "Tables bit-identical for every run and n_jobs: "
              + ("yes (one digest)." if len(digests) == 1 else f"NO ({len(digests)} digests).")]
    return lines


def cpu_section(rows):
    """At n_jobs = 2: the CPU seconds of the calling thread (what runs alone: dispatch, the serial
    steps) and of the worker threads, and the parallel fraction they imply (load-independent,
    unlike the wall-clock speed-up; a lower bound of the serial time, as it assumes the parallel
    work splits evenly between the threads)."""
    two = [r for r in rows if r["n_jobs"] == 2 and "cpu" in r]
    if not two:
        return []
    lines = ["", "CPU seconds at n_jobs = 2 (medians over the runs; `time.thread_time` of the calling "
             "thread, `time.process_time` of the process): the calling thread's share is serial, the rest "
             "ran in the worker threads.", "",
             "| n_jobs 2 | CPU s, calling thread | CPU s, worker threads | parallel fraction p | "
             "speed-up on 2 cores from p | on 64 cores |", "|---|---|---|---|---|---|"]
    for name, key in (("forest fit + predict", "forest"), ("tune", "tune")):
        main = float(np.median([np.mean([c[0] for c in r["cpu"][key]]) for r in two]))
        total = float(np.median([np.mean([c[1] for c in r["cpu"][key]]) for r in two]))
        p = (total - main) / total if total > 0 else 0.0
        lines.append(f"| {name} | {main:.2f} | {total - main:.2f} | {p:.2f} | {1 / ((1 - p) + p / 2):.2f} | "
                     f"{1 / ((1 - p) + p / 64):.1f} |")
    return lines


def tune_page(rows, lines_tune, args):
    """The page's section of ``--tune-jobs`` (or ``--tune-from``)."""
    when = sorted({r.get("when", "") for r in rows} - {""})
    source = (f"the runs saved in `{args.tune_from}`" if args.tune_from is not None else "this run")
    return [
        TUNE_HEADING + ", n_jobs 1 and 2 (issue 37, item 6)", "",
        "`tune_num_learners(RandomForestRegressor(max_features=\"sqrt\", min_samples_split=5), X, y, "
        f"X_test, grid=(50, 100, 200), method=\"closed_form\", pool_size={rows[0]['pool']}, n_jobs=n_jobs, "
        f"random_state=0)` (the defaults otherwise: ICC, phi and psi with bands from 100 resamples, the "
        f"learners+objects recommendation interval) on {rows[0]['n_test']:,} test objects, against "
        f"`RandomForestRegressor(..., n_estimators={rows[0]['pool']}, n_jobs=n_jobs)`'s own `fit(X, y)` + "
        "`predict(X_test)` in the same process (forest, tuning, forest again: the forest's seconds are the "
        "mean of its two runs), BLAS threads limited to n_jobs (`tune_num_learners` itself runs BLAS in one "
        f"thread), every run in a fresh process, n_jobs 1 and 2 interleaved; from {source}"
        + (f" ({', '.join(when)})" if when else "") + ". Load: the 1-minute load average at the end of "
        "each run is in the table; " + (args.conditions or DEFAULT_CONDITIONS)
        + (f" Scheduling: {'; '.join(sorted({r['autogroup'] for r in rows if r.get('autogroup')}))} "
           "(the kernel shares the cores between sessions first; a session's autogroup nice sets its share "
           "against the other sessions, whose jobs ran at per-process nice 10, which does not count across "
           "sessions)." if any(r.get("autogroup") for r in rows) else ""), "",
        *lines_tune, "",
        "Parallel fraction ``p`` from a speed-up ``S`` on 2 cores (Amdahl: ``S(k) = 1 / ((1 - p) + p / k)``, "
        "so ``p = 2 (1 - 1 / S)``), and the speed-up it implies on 64 cores. Measured on 2 shared cores, "
        "``p`` is a lower bound: the other jobs' CPU time lowers every measured speed-up, the forest's "
        "own too.", ""]


DEFAULT_CONDITIONS = ("the other sessions' jobs ran at the same time (the load is theirs plus this run's), "
                      "so a core was not always free for n_jobs = 2.")
TUNE_HEADING = "## tune_num_learners against the forest's own fit + predict"


def replace_tune_section(path, section, loads):
    """Replace the tune_num_learners section of a page written by ``--markdown`` (from its heading to
    the next paragraph that is not its own, the link to scale-cluster.md) with ``section``, saying
    which command generated it (and ``loads``, the load averages at its start and end, when it
    measured); the rest of the page stays as its own command generated it."""
    text = path.read_text(encoding="utf-8").split("\n")
    start = next(i for i, line in enumerate(text) if line.startswith(TUNE_HEADING))
    end = next(i for i, line in enumerate(text)
               if i > start and line.startswith("Beyond one machine's memory"))
    heading, *body = section
    argv = [a if sys.argv[k - 1] != "--conditions" else "TEXT" for k, a in enumerate(sys.argv[1:], 1)]
    note = f"This section was generated by `python benchmarks/bench_scale.py {' '.join(argv)}` alone"
    if loads is not None:  # measured now (with --tune-from: the runs' own loads are in the table)
        start_load, end_load = (", ".join(f"{v:.2f}" for v in load) for load in loads)
        note += f" (load average at its start {start_load}; at its end {end_load})"
    note += "; the tables above come from the command at the top of the page."
    path.write_text("\n".join(text[:start] + [heading, "", note, *body] + text[end:]), encoding="utf-8")
    print(f"wrote the tune_num_learners section of {path}")


def amdahl(speedup, cores, base=2):
    """Parallel fraction ``p`` from a measured speed-up on ``base`` cores, and the speed-up it gives
    on ``cores``: ``S(k) = 1 / ((1 - p) + p / k)``."""
    p = (1 - 1 / speedup) / (1 - 1 / base)
    p = min(max(p, 0.0), 1.0)
    return p, 1 / ((1 - p) + p / cores)


def _child(args_list):
    """Run one measurement in a fresh interpreter; return its JSON line."""
    proc = subprocess.run([sys.executable, __file__, *args_list], capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr[-2000:])
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _machine():
    load = os.getloadavg()
    try:
        with open("/proc/meminfo") as fh:
            mem = int(fh.readline().split()[1]) / 2**20
    except OSError:
        mem = float("nan")
    import sklearn

    return (f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, {mem:.0f} GB; Python "
            f"{platform.python_version()}, numpy {np.__version__}, scikit-learn {sklearn.__version__}"), load


def _gb(x):
    return f"{x / 1e9:.2f}"


def table(rows):
    head = ("| test objects | fit s | predict s (sklearn predict) | curve s | bands s | total s | "
            "total / (fit + predict) | matrix GB | peak GB | peak / matrix |")
    lines = [head, "|" + "---|" * 10]
    for r in rows:
        sk = f" ({r['sklearn_predict']:.1f})" if r["sklearn_predict"] is not None else ""
        name = f"{r['n_test']:,}" + (" (Dask, 2 workers)" if r.get("dask") else "")
        lines.append(
            f"| {name} | {r['fit']:.1f} | {r['predict']:.1f}{sk} | {r['curve']:.2f} | "
            f"{r['bands']:.2f} | "
            f"{r['total']:.1f} | {r['total'] / (r['fit'] + r['predict']):.2f} | {_gb(r['matrix_bytes'])} | "
            f"{_gb(r['peak_bytes'])} | {r['peak_bytes'] / r['matrix_bytes']:.2f} |")
    return lines


def jobs_table(res):
    one, two = res["jobs"]["1"], res["jobs"]["2"]
    lines = [f"n_jobs = 1 and 2 at {res['n_test']:,} test objects (BLAS threads = n_jobs):", "",
             "| step | 1 job s | 2 jobs s | speed-up |", "|---|---|---|---|"]
    for step in ("fit", "predict", "curve", "bands"):
        lines.append(f"| {step} | {one[step]:.2f} | {two[step]:.2f} | {one[step] / two[step]:.2f} |")
    return lines


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", nargs="*", type=float, default=[1e3, 1e4, 1e5])
    ap.add_argument("--pool", type=int, default=1000)
    ap.add_argument("--n-bootstrap", type=int, default=200)
    ap.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    ap.add_argument("--jobs", type=float, default=1e4, help="size of the n_jobs comparison (0: skip)")
    ap.add_argument("--dask", type=float, default=0,
                    help="also this size with the pool fitted on a Dask LocalCluster of 2 workers (0: skip)")
    ap.add_argument("--markdown", type=Path, help="write the tables to this Markdown file")
    ap.add_argument("--quick", action="store_true", help="sizes 1e3, 1e4 and a pool of 200")
    ap.add_argument("--one", type=float, help=argparse.SUPPRESS)
    ap.add_argument("--one-jobs", type=float, help=argparse.SUPPRESS)
    ap.add_argument("--one-dask", type=float, help=argparse.SUPPRESS)
    ap.add_argument("--tune-jobs", type=float, default=0,
                    help="size of the tune_num_learners vs the forest's own fit + predict comparison at "
                         "n_jobs 1 and 2 (0: skip)")
    ap.add_argument("--profile", action="store_true",
                    help="with --tune-jobs: one more, profiled, tuning per run: the seconds of its steps")
    ap.add_argument("--repeats", type=int, default=2, help="with --tune-jobs: runs per n_jobs (interleaved)")
    ap.add_argument("--tune-json", type=Path, help="with --tune-jobs: also save its runs here")
    ap.add_argument("--tune-from", type=Path,
                    help="the --tune-jobs section from the runs saved by --tune-json (not measured again)")
    ap.add_argument("--tune-section", type=Path,
                    help="rewrite only the tune_num_learners section of this page (the rest as generated)")
    ap.add_argument("--conditions", help="with --tune-jobs / --tune-from: what else ran on the machine "
                                         "during the runs (the page's sentence after the load)")
    ap.add_argument("--one-tune", type=float, help=argparse.SUPPRESS)
    ap.add_argument("--n-jobs", type=int, default=1, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.one is not None:
        print(json.dumps(one_size(args.one, args.pool, args.n_bootstrap, args.dtype, args.one <= 1e5)))
        return
    if args.one_dask is not None:
        print(json.dumps(one_size(args.one_dask, args.pool, args.n_bootstrap, args.dtype, False, dask=True)))
        return
    if args.one_tune is not None:
        print(json.dumps(tune_vs_forest(args.one_tune, args.pool, args.n_jobs, args.profile)))
        return
    if args.one_jobs is not None:
        print(json.dumps(jobs(args.one_jobs, args.pool, args.n_bootstrap, args.dtype)))
        return
    if args.quick:
        args.sizes, args.pool = [1e3, 1e4], 200
    common = ["--pool", str(args.pool), "--n-bootstrap", str(args.n_bootstrap), "--dtype", args.dtype]
    machine, load_start = _machine()
    print(machine)
    print(f"load average at start: {load_start[0]:.2f} {load_start[1]:.2f} {load_start[2]:.2f}", flush=True)
    rows = []
    for size in args.sizes:
        rows.append(_child(["--one", str(size), *common]))
        print(table(rows)[-1], f"  (load {os.getloadavg()[0]:.2f})", flush=True)
    lines = table(rows)
    dask_row = None
    if args.dask:
        dask_row = _child(["--one-dask", str(args.dask), *common])
        print(table([dask_row])[-1], f"  (load {os.getloadavg()[0]:.2f})", flush=True)
        serial = next((r for r in rows if r["n_test"] == dask_row["n_test"]), None)
        lines = table(rows + [dask_row])
        dask_lines = [f"Dask row: the pool's {args.pool:,} trees fitted on a `LocalCluster(n_workers=2, "
                      "threads_per_worker=1, processes=True)` through "
                      "`joblib.parallel_config(backend=\"dask\")` around `TreePool.fit` "
                      f"({dask_row['dask_tasks']} tasks on {dask_row['dask_workers']} workers); the "
                      "prediction cache in the client's 2 threads (one per worker thread), curve and bands "
                      "in the client; peak memory of the client process only."]
        if serial is not None:
            dask_lines[0] += (" Against the one-thread row of the same size: fit "
                              f"{serial['fit'] / dask_row['fit']:.2f}x, predict "
                              f"{serial['predict'] / dask_row['predict']:.2f}x, total "
                              f"{serial['total'] / dask_row['total']:.2f}x as fast.")
        dask_lines.append("ICC(1) there: " + ", ".join(f"{n}: {c:.4f}" for n, c in zip(GRID, dask_row["icc"],
                                                                                        strict=True))
                          + (" (one-thread row: " + ", ".join(f"{c:.4f}" for c in serial["icc"]) + ")"
                             if serial is not None else ""))
        print("\n".join(dask_lines))
    jobs_res = None
    if args.jobs:
        jobs_res = _child(["--one-jobs", str(args.jobs), *common])
        lines_jobs = jobs_table(jobs_res)
        print("\n".join(lines_jobs))
    tune_rows = None
    if args.tune_from is not None:
        tune_rows = json.loads(args.tune_from.read_text(encoding="utf-8"))
    elif args.tune_jobs:
        tune_rows = []
        for _ in range(args.repeats):
            for n_jobs in (1, 2):
                tune_rows.append(_child(["--one-tune", str(args.tune_jobs), "--n-jobs", str(n_jobs),
                                         "--pool", str(args.pool)] + (["--profile"] if args.profile else [])))
                tune_rows[-1]["when"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
                print(_tune_row(len(tune_rows), tune_rows[-1]), flush=True)
        if args.tune_json is not None:
            args.tune_json.write_text(json.dumps(tune_rows, indent=1), encoding="utf-8")
    if tune_rows:
        lines_tune = tune_section(tune_rows) + [""] + steps_table(tune_rows)
        print("\n".join(lines_tune))
    load_end = os.getloadavg()
    if args.tune_section is not None and tune_rows:
        replace_tune_section(args.tune_section, tune_page(tune_rows, lines_tune, args),
                             None if args.tune_from is not None else (load_start, load_end))
    print(f"load average at end: {load_end[0]:.2f} {load_end[1]:.2f} {load_end[2]:.2f}")
    print("\n".join(lines))
    if args.markdown:
        text = [
            "# Closed form at scale", "",
            "Generated by `python benchmarks/bench_scale.py "
            + " ".join(sys.argv[1:]) + "`; do not edit by hand.", "",
            f"Regression, 2,000 training rows x 20 features (Friedman #1), a pool of {args.pool:,} trees "
            "(`RandomForestRegressor(max_features=\"sqrt\", min_samples_split=5)`), grid 50, 100, 200, "
            f"ICC(1) with its 95 % band from {args.n_bootstrap} bootstrap resamples of the trees; per-tree "
            f"predictions stored as {args.dtype}; one thread except in the n_jobs table. Each size ran in a "
            "fresh process.", "",
            f"Machine: {machine}. Load average (1, 5, 15 min) at start {load_start[0]:.2f}, "
            f"{load_start[1]:.2f}, {load_start[2]:.2f}; at end {load_end[0]:.2f}, {load_end[1]:.2f}, "
            f"{load_end[2]:.2f} (the 2 cores are shared with other jobs: absolute seconds are inflated by an "
            "unknown factor, the ratios within a row come from the same process).", "",
            "- **fit**: the pool's trees; **predict**: the per-tree prediction cache on the test objects "
            "(scikit-learn's own `predict` of the same forest in brackets, up to 10^5 objects); "
            "**curve**: `TreePool.closed_form(grid)`; **bands**: `TreePool.closed_form(grid, "
            "n_resamples=...)` (estimate and band); **total**: the `fit()` call plus the bands; "
            "**peak**: peak resident memory above the process's before fitting (the fitted forest, about "
            "0.1 GB, and the training-row cache included).", "",
            *lines, "",
        ]
        if dask_row is not None:
            text += [*dask_lines[:1], "", *dask_lines[1:], ""]
        if jobs_res is not None:
            text += [*lines_jobs, ""]
        if rows:
            last = rows[-1]
            bands = zip(GRID, last["icc"], last["low"], last["high"], strict=True)
            text += ["ICC(1) and band at the largest size: "
                     + ", ".join(f"{n}: {c:.4f} [{lo:.4f}, {hi:.4f}]" for n, c, lo, hi in bands), ""]
        if tune_rows:
            text += tune_page(tune_rows, lines_tune, args)
        text += ["Beyond one machine's memory (the objects x trees matrix never gathered: `DaskTreePool` on "
                 "a `LocalCluster`, up to 10^6 test objects x 10,000 trees): "
                 "[scale-cluster.md](scale-cluster.md), generated by `benchmarks/bench_scale_dask.py`.", ""]
        args.markdown.parent.mkdir(parents=True, exist_ok=True)
        args.markdown.write_text("\n".join(text), encoding="utf-8")
        print(f"wrote {args.markdown}")


if __name__ == "__main__":
    main()
