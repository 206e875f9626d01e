"""Benchmark: the number of trees for stable predictions, predstab against optRF.

The same work as optRF 1.2.1's ``opt_prediction`` example: SNPdata (optRF's own data),
train on rows 1-200, test on rows 201-250, grid 250, 500, 750, 1000, 2000, 10 repeats,
one thread. predstab runs ``tune_num_learners`` with ``method="refit"`` (what optRF does),
``"pool"`` and ``"closed_form"`` in this process and prints seconds, ratios and the ICC at
each grid value per method.

R is not needed: optRF's time on this machine kind (42.5 s, from the project's issue) is
printed as the reference. When ``Rscript`` with optRF is installed, optRF is also run here.

Usage::

    python benchmarks/bench_tuning.py            # full benchmark (the refit part takes minutes)
    python benchmarks/bench_tuning.py --quick    # grid / 10 and 3 repeats, for a smoke test
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from sklearn.ensemble import RandomForestRegressor  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))

from predstab import PredstabWarning, tune_num_learners  # noqa: E402

OPTRF_SECONDS = 42.5  # optRF 1.2.1 opt_prediction, same work, same machine kind (issue 5)
OPTRF_ICC = "0.52 -> 0.87 (2PL p1 254, p2 0.88; recommends 19,000 trees)"
R_SCRIPT = """
suppressMessages(library(optRF)); data(SNPdata); set.seed(1)
t0 <- Sys.time()
r <- opt_prediction(y = SNPdata[1:200, 1], X = SNPdata[1:200, -1], X_Test = SNPdata[201:250, -1],
                    num.trees_values = c({grid}), number_repetitions = {repeats}, verbose = FALSE,
                    num.threads = 1)
cat(as.numeric(difftime(Sys.time(), t0, units = "secs")), "\\n")
"""


def load_snp():
    path = HERE / "data" / "SNPdata.csv"
    if not path.exists():
        path = HERE.parent.parent / "shared" / "data" / "SNPdata.csv"
    df = pd.read_csv(path, index_col=0)
    y = df["Yield"].to_numpy(dtype=float)
    X = df.drop(columns="Yield").to_numpy(dtype=np.float32)
    return X[:200], y[:200], X[200:250]


def optrf_seconds(grid, repeats):
    """optRF's seconds when Rscript with optRF is installed, else None."""
    rscript = shutil.which("Rscript")
    if rscript is None:
        return None
    check = subprocess.run([rscript, "-e", "library(optRF)"], capture_output=True)
    if check.returncode != 0:
        return None
    with tempfile.NamedTemporaryFile("w", suffix=".R", delete=False) as fh:
        fh.write(R_SCRIPT.format(grid=", ".join(map(str, grid)), repeats=repeats))
    out = subprocess.run([rscript, fh.name], capture_output=True, text=True)
    os.unlink(fh.name)
    return float(out.stdout.split()[-1]) if out.returncode == 0 else None


def run(method, X, y, X_test, grid, repeats, seed=1, **kwargs):
    # ranger's defaults as optRF calls them: mtry = floor(sqrt(p)), min.node.size = 5
    # (the minimal size of a node that may be split), sampling with replacement
    est = RandomForestRegressor(max_features="sqrt", min_samples_split=5, n_jobs=1)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PredstabWarning)
        res = tune_num_learners(est, X, y, X_test, grid=grid, n_repeats=repeats, measures=("icc",),
                                method=method, random_state=seed, n_bootstrap=0, **kwargs)
    return time.perf_counter() - start, res


def importance_example(X, y):
    """optRF's opt_importance run of validation/r-reference/optrf (R: 37.8 s, 2 threads)."""
    import json

    ref = json.loads((HERE.parent / "validation" / "r-reference" / "optrf" / "expected"
                      / "optRF_importance.json").read_text())
    est = RandomForestRegressor(max_features="sqrt", min_samples_split=5, n_jobs=1)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PredstabWarning)
        res = tune_num_learners(est, X, y, grid=ref["grid"], n_repeats=5, method="pool", n_bootstrap=0,
                                measures=("importance", "importance_selection"), random_state=1)
    secs = time.perf_counter() - start
    print(f"opt_importance example (permutation importance, pool): {secs:.1f} s; "
          f"optRF {ref['seconds']:.1f} s")
    for row, (_, mine) in zip(ref["result_table"], res.table.iterrows(), strict=True):
        print(f"  {row['num.trees_values']:>5} trees: VI stability {mine['importance']:.3f} (optRF "
              f"{row['VI_stability']:.3f}), selection {mine['importance_selection']:.3f} (optRF "
              f"{row['selection_stability']:.3f})")
    print(f"  {res.message}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="grid / 10, 3 repeats")
    parser.add_argument("--closed-pool", type=int, nargs="+", default=[500, 1000],
                        help="pool sizes for the closed form (default 500 1000)")
    parser.add_argument("--closed-seeds", type=int, default=1,
                        help="repeat each closed form with this many pool seeds to show its spread")
    parser.add_argument("--skip-refit", action="store_true",
                        help="skip method='refit' (minutes); ratios are then against the pool")
    parser.add_argument("--importance", action="store_true",
                        help="also optRF's opt_importance example (grid 250-2000, 5 repeats, pool)")
    args = parser.parse_args(argv)
    grid = (250, 500, 750, 1000, 2000)
    repeats = 10
    if args.quick:
        grid, repeats = tuple(g // 10 for g in grid), 3
        args.closed_pool = [max(p // 10, 50) for p in args.closed_pool]
    X, y, X_test = load_snp()
    if args.importance:
        importance_example(X, y)
    print(f"SNPdata: train {X.shape}, test {X_test.shape}; grid {grid}; {repeats} repeats; one thread; "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    runs = {} if args.skip_refit else {"refit": run("refit", X, y, X_test, grid, repeats)}
    runs["pool"] = run("pool", X, y, X_test, grid, repeats)
    for size in args.closed_pool:
        for seed in range(1, args.closed_seeds + 1):
            label = f"closed_form ({size})" + (f" s{seed}" if args.closed_seeds > 1 else "")
            runs[label] = run("closed_form", X, y, X_test, grid, repeats, seed=seed, pool_size=size)
    base = "pool" if args.skip_refit else "refit"
    refit_s = runs[base][0]
    measured = optrf_seconds(grid, repeats)
    reference = measured if measured is not None else (OPTRF_SECONDS if not args.quick else None)
    print()
    print(f"{'method':<22}{'seconds':>9}{'/ ' + base:>9}{'/ optRF':>9}   ICC at " + ", ".join(map(str, grid)))
    for name, (secs, res) in runs.items():
        vs = f"{secs / reference:9.3f}" if reference else f"{'-':>9}"
        iccs = ", ".join(f"{v:.3f}" for v in res.table["icc"])
        print(f"{name:<22}{secs:9.2f}{secs / refit_s:9.3f}{vs}   {iccs}")
    if measured is not None:
        print(f"{'optRF (R, measured)':<22}{measured:9.2f}{measured / refit_s:9.3f}{1:9.3f}")
    elif not args.quick:
        print(f"{'optRF (reference)':<22}{OPTRF_SECONDS:9.2f}{OPTRF_SECONDS / refit_s:9.3f}{1:9.3f}   "
              f"{OPTRF_ICC}  [R not installed: issue's figure]")
    print()
    refit_icc = runs[base][1].table["icc"].to_numpy()
    for name, (_, res) in runs.items():
        if name != base:
            dev = np.abs(res.table["icc"].to_numpy() - refit_icc)
            print(f"{name}: max |ICC - {base} ICC| = {dev.max():.3f} (target for the closed form <= 0.02)")
    for name, (_, res) in runs.items():
        fit = res.fits["icc"]
        print(f"{name}: 2PL p1 {fit.p1:.0f}, p2 {fit.p2:.2f}, R^2 {fit.r_squared:.3f}; optRF rule recommends "
              f"{res.recommendation}; {res.n_for_target} trees for ICC 0.95")


if __name__ == "__main__":
    main()
