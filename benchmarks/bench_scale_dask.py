"""Benchmark: tuning beyond one machine -- DaskTreePool against the in-memory TreePool (issue 37, item 4).

The job of ``bench_scale.py`` (regression, 2,000 training rows x 20 features of Friedman #1,
``RandomForestRegressor(max_features="sqrt", min_samples_split=5)``, grid 50, 100, 200, ICC(1)
with its 95 % band from 200 bootstrap resamples of the trees, per-tree predictions in float32)
at sizes ``N`` test objects x ``P`` trees, each run in a fresh process:

- ``dask``: :class:`predstab.DaskTreePool` on a ``LocalCluster`` of 2 worker processes (1 thread
  each) with ``--memory-limit`` per worker: the trees fitted on the workers, the test objects
  generated on the workers (``dask.array.random``, chunks of 10^5 rows), predicted and reduced
  chunk by chunk there (``chunk_bytes`` 64 MiB): the objects x trees matrix is never gathered;
- ``memory``: :class:`predstab.TreePool` in one thread on the same test objects (computed into
  the client).

Reported: ``fit`` (the ``fit()`` call: trees, and the training rows' cache), ``bands`` (one
``closed_form(grid, n_resamples=200)``: for Dask the pass that predicts and reduces the test
objects), the bands' seconds per test object and per tree-object, the client's peak memory
above its start, each worker's peak resident memory, and the ICC(1) curve (the same numbers on
both paths).

Usage::

    python benchmarks/bench_scale_dask.py --runs dask:1e5:1000 memory:1e5:1000 \\
        --json /tmp/scale_dask.json --markdown docs/benchmarks/scale-cluster.md
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))

GRID = [50, 100, 200]
N_RESAMPLES = 200


def _peak_bytes():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _data():
    from sklearn.datasets import make_friedman1

    X, y = make_friedman1(2000, 20, noise=1.0, random_state=0)
    return X.astype(np.float32), y


def _test_objects(n_test):
    import dask.array as da

    return da.random.RandomState(1).uniform(size=(int(n_test), 20), chunks=(100_000, 20)).astype(np.float32)


def _estimator():
    from sklearn.ensemble import RandomForestRegressor

    return RandomForestRegressor(max_features="sqrt", min_samples_split=5)


def one_run(mode, n_test, pool_size, memory_limit):
    X, y = _data()
    X_test = _test_objects(n_test)
    before = _peak_bytes()
    out = {"mode": mode, "n_test": int(n_test), "pool": int(pool_size), "load_start": os.getloadavg()}
    if mode == "memory":
        from threadpoolctl import threadpool_limits

        from predstab import TreePool

        X_test = X_test.compute(scheduler="synchronous")
        before = _peak_bytes()
        with threadpool_limits(1):
            start, cpu = time.perf_counter(), _cpu()
            pool = TreePool(_estimator(), n_learners=pool_size, random_state=0, dtype="float32")
            pool.fit(X, y, X_test)
            out["fit"], out["fit_cpu"] = time.perf_counter() - start, _cpu() - cpu
            start, cpu = time.perf_counter(), _cpu()
            res = pool.closed_form(GRID, n_resamples=N_RESAMPLES, random_state=0)
            out["bands"], out["bands_cpu"] = time.perf_counter() - start, _cpu() - cpu
        out["worker_peaks"] = []
    else:
        from distributed import Client, LocalCluster

        from predstab import DaskTreePool

        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, memory_limit=memory_limit,
                          dashboard_address=None) as cluster, Client(cluster) as client:
            def cpu():  # the client's and the workers' CPU seconds
                return _cpu() + sum(client.run(_cpu).values())

            client.run(_warm_up)  # workers started and their imports done, as on a running cluster
            start, used = time.perf_counter(), cpu()
            pool = DaskTreePool(_estimator(), n_learners=pool_size, random_state=0, dtype="float32").fit(
                X, y, X_test)
            out["fit"], out["fit_cpu"] = time.perf_counter() - start, cpu() - used
            start, used = time.perf_counter(), cpu()
            res = pool.closed_form(GRID, n_resamples=N_RESAMPLES, random_state=0)
            out["bands"], out["bands_cpu"] = time.perf_counter() - start, cpu() - used
            peaks = client.run(lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)
            out["worker_peaks"] = sorted(peaks.values())
            out["chunks"] = len(pool.test_predictions_.array.chunks[0])
            out["chunk_rows"] = int(pool.test_predictions_.array.chunks[0][0])
    out["client_peak"] = _peak_bytes() - before
    out["forest_bytes"] = len(pickle.dumps(pool.ensemble_))  # what every worker holds besides its chunks
    out["curve"] = [float(v) for v in res.curve]
    out["low"] = [float(v) for v in res.low]
    out["high"] = [float(v) for v in res.high]
    out["load_end"] = os.getloadavg()
    return out


def _cpu():
    """User + system CPU seconds of this process."""
    t = os.times()
    return t[0] + t[1]


def _warm_up():
    import sklearn.ensemble  # noqa: F401

    import predstab.ensembles._distributed  # noqa: F401 -- what the tasks import


def _gb(b):
    return f"{b / 1e9:.2f}"


def markdown(runs, memory_limit, command):
    import sklearn

    lines = ["# Tuning on a cluster: DaskTreePool at scale", "",
             f"Generated by `{command}`; do not edit by hand.", "",
             "Regression, 2,000 training rows x 20 features (Friedman #1), "
             "`RandomForestRegressor(max_features=\"sqrt\", min_samples_split=5)`, grid 50, 100, 200, "
             f"ICC(1) with its 95 % band from {N_RESAMPLES} bootstrap resamples of the trees, per-tree "
             "predictions in float32. **dask**: `DaskTreePool` on a `LocalCluster` of 2 worker processes "
             f"(1 thread each, memory limit {memory_limit} per worker), test objects generated on the "
             "workers and predicted and reduced there in chunks of 64 MiB of predictions (the matrix is "
             "never gathered); **memory**: `TreePool` in one thread, the test objects in the client. "
             "Each run in a fresh process.", "",
             f"Machine: {platform.machine()}, {os.cpu_count()} cores, 24 GB, shared with other jobs; "
             f"Python {platform.python_version()}, numpy {np.__version__}, "
             f"scikit-learn {sklearn.__version__}. "
             "Load average (1 min) at the start and end of each run in the table: the 2 cores are shared "
             "by up to 8 jobs, so absolute seconds are inflated by an unknown factor (compare rows of "
             "similar load).", "",
             "- **fit**: the `fit()` call (the trees -- on the workers for dask -- and the training rows' "
             "cache); **bands**: one `closed_form(grid, n_resamples=200)` (dask: the pass that predicts the "
             "test objects with every tree and reduces them); **us / object**, **ns / tree-object**: bands "
             "over N and over N x P; **matrix**: the objects x trees matrix in float32 (what the client "
             "would gather); **client peak**: the client process's peak resident memory above its start "
             "(the fitted forest and the training-row cache included); **worker peak**: each worker "
             "process's peak resident memory (its baseline, the forest it holds, its chunks).", "",
             "| run | N | P | fit s (CPU s) | bands s (CPU s) | CPU ns / tree-object (bands) | matrix GB "
             "| client peak GB | worker peak GB | load | ICC(1) at 50, 100, 200 |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in runs:
        n, p = r["n_test"], r["pool"]
        workers = ", ".join(_gb(b) for b in r["worker_peaks"]) or "-"
        lines.append(f"| {r['mode']} | {n:,} | {p:,} | {r['fit']:.1f} ({r['fit_cpu']:.1f}) | "
                     f"{r['bands']:.1f} ({r['bands_cpu']:.1f}) | {1e9 * r['bands_cpu'] / (n * p):.2f} | "
                     f"{_gb(4 * n * p)} | "
                     f"{_gb(r['client_peak'])} | {workers} | "
                     f"{r['load_start'][0]:.1f} / {r['load_end'][0]:.1f} | "
                     + ", ".join(f"{v:.6f}" for v in r["curve"]) + " |")
    lines += ["", *_extrapolation(runs)]
    return "\n".join(lines) + "\n"


def _extrapolation(runs):
    """Per-tree and per-tree-object CPU costs of the Dask runs, and what they predict."""
    dask = [r for r in runs if r["mode"] == "dask"]
    memory = {(r["n_test"], r["pool"]): r for r in runs if r["mode"] == "memory"}
    if not dask:
        return []
    lines = ["CPU seconds are the client's and the workers' user + system time: on this machine the "
             "kernel shares the cores between the sessions of its users (autogroup scheduling), so a "
             "session's processes together get about the same CPU whatever their number, and the wall "
             "time of 2 workers is not a measure of what 2 free cores do. CPU costs per unit (dask rows; "
             "in brackets the in-memory run of the same size, whose bands pass does not predict: its "
             "fit did):", "",
             "| N | P | fit CPU ms / tree | bands pass CPU ns / tree-object | forest MB / tree "
             "| CPU dask / memory (fit + bands) |",
             "|---|---|---|---|---|---|"]
    for r in dask:
        n, p = r["n_test"], r["pool"]
        same = memory.get((n, p))
        ratio = (f"{(r['fit_cpu'] + r['bands_cpu']) / (same['fit_cpu'] + same['bands_cpu']):.2f}"
                 if same else "-")
        lines.append(f"| {n:,} | {p:,} | {1e3 * r['fit_cpu'] / p:.1f} | {1e9 * r['bands_cpu'] / (n * p):.1f}"
                     + (f" ({1e9 * same['bands_cpu'] / (n * p):.1f})" if same else "")
                     + f" | {r['forest_bytes'] / p / 1e6:.3f} | {ratio} |")
    big = max(dask, key=lambda r: r["n_test"] * r["pool"])
    fit_tree, pass_unit = big["fit_cpu"] / big["pool"], big["bands_cpu"] / (big["n_test"] * big["pool"])
    n, p = 10**6, 10_000
    cpu = fit_tree * p + pass_unit * n * p
    share = sum(r["fit_cpu"] + r["bands_cpu"] for r in dask) / sum(r["fit"] + r["bands"] for r in dask)
    full = big["n_test"] * big["pool"] >= n * p
    source = ("measured in the 10^6 x 10,000 run" if full else "extrapolated from the largest run "
              f"({big['n_test']:,} x {big['pool']:,}; its CPU costs per unit)")
    forest_gb = big["forest_bytes"] / big["pool"] * p / 1e9
    lines += ["", f"**10^6 test objects x 10,000 trees** (40 GB if gathered), {source}: "
              f"{fit_tree * p / 60:.0f} CPU min to fit and {pass_unit * n * p / 60:.0f} CPU min for the "
              f"bands pass, {cpu / 3600:.2f} CPU h in all: on 2 free cores {cpu / 2 / 60:.0f} min; on 10 "
              "machines of 2 cores (20 worker threads; the fit splits by trees, the pass by chunks of "
              f"objects: about {-(-n * p * 4 // 2**26):,} chunks of 64 MiB, enough for every thread) about "
              f"{cpu / 20 / 60:.1f} min, on 10 machines of 16 cores about "
              f"{cpu / 160 / 60:.1f} min, plus sending the forest to every worker once "
              f"({forest_gb:.2f} GB for 10,000 trees of this job: about {8 * forest_gb:.0f} s per worker "
              "on a 1 Gbit/s network). Memory per worker: one chunk of predictions "
              "(64 MiB) and its float64 temporaries per thread, plus the forest: it does not grow with the "
              "test objects (the worker peaks in the table). The CPU per tree-object of the pass includes "
              "predicting (the in-memory pool predicted in its fit) and the cluster's own work (scheduler, "
              "heartbeats, moving chunks), which grows with the wall time the shared cores stretch."]
    if full:
        lines += ["", f"The 10^6 x 10,000 run took {(big['fit'] + big['bands']) / 60:.0f} min of wall time "
                  f"({share:.2f} cores on average: CPU over wall seconds of the dask rows, the cores being "
                  "shared with the other jobs). The in-memory path cannot run it: the 4-byte matrix alone is "
                  "40 GB, this machine has 24 GB."]
    else:
        lines += ["", "The 10^6 x 10,000 run itself was not attempted: at the share of the cores these runs "
                  f"got ({share:.2f} cores: CPU over wall seconds of the dask rows) it takes about "
                  f"{cpu / share / 3600:.1f} h on this shared machine; the rows above are its scaled "
                  "versions, and the bands pass grows linearly in objects x trees (compare the CPU ns / "
                  "tree-object of the rows). The in-memory path holds the 4-byte matrix in the client "
                  "(40 GB at 10^6 x 10,000, which does not fit in this machine's 24 GB)."]
    notes = [f"- {r['mode']} {r['n_test']:,} x {r['pool']:,}: {r['note']}" for r in runs if r.get("note")]
    if notes:
        lines += ["", "Scheduling of the runs (recorded with the runs):", "", *notes]
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", nargs="*", default=["dask:1e4:1000", "memory:1e4:1000"],
                        help="MODE:N:P with MODE dask or memory")
    parser.add_argument("--memory-limit", default="4GiB")
    parser.add_argument("--json", default=None, help="append each run's result to this JSON file")
    parser.add_argument("--markdown", default=None)
    parser.add_argument("--one", nargs=3, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--command", default=None, help="the command line printed on the page")
    args = parser.parse_args(argv)
    if args.one:
        mode, n, p = args.one
        print(json.dumps(one_run(mode, int(float(n)), int(float(p)), args.memory_limit)))
        return
    runs = []
    if args.json and Path(args.json).exists():
        runs = json.loads(Path(args.json).read_text())
    for spec in args.runs:
        mode, n, p = spec.split(":")
        done = proc = subprocess.run([sys.executable, __file__, "--one", mode, n, p, "--memory-limit",
                                      args.memory_limit], capture_output=True, text=True)
        if proc.returncode:
            print(proc.stderr[-3000:], file=sys.stderr)
            continue
        result = json.loads(done.stdout.strip().splitlines()[-1])
        runs.append(result)
        print(json.dumps(result), flush=True)
        if args.json:
            Path(args.json).write_text(json.dumps(runs, indent=1))
    if args.markdown:
        command = args.command or "python benchmarks/bench_scale_dask.py --runs " + " ".join(args.runs)
        Path(args.markdown).write_text(markdown(runs, args.memory_limit, command))


if __name__ == "__main__":
    main()
