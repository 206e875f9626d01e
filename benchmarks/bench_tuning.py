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

from predstab import PredstabWarning, TreePool, icc, tune_num_learners  # noqa: E402

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


def precision_study(X, y, X_test, grid, repeats, n_pools, pool_size=1000):
    """How far apart a closed form and a refit run can be, from sampling error alone.

    Fits ``n_pools`` independent pools of ``pool_size`` trees (seeds 1..n_pools). Each pool
    gives one closed-form curve, as ``method="closed_form"`` computes it. The trees of all
    pools together are i.i.d. draws of the forest's trees, so disjoint groups of
    ``repeats`` forests of ``n`` trees are distributed exactly as ``repeats`` refits: every
    such group is one refit run, and its ICC(1) is what ``method="refit"`` reports. The mean
    over runs is the expected refit ICC; the closed form of all trees together is the most
    precise estimate of the same curve.
    """
    need = -(-2 * repeats * max(grid) // pool_size)
    if n_pools < need:
        raise SystemExit(f"--precision needs at least {need} pools: two refit runs of {repeats} forests of "
                         f"{max(grid)} trees")
    est = RandomForestRegressor(max_features="sqrt", min_samples_split=5, n_jobs=1)
    start = time.perf_counter()
    pools = [TreePool(est, n_learners=pool_size, random_state=seed).fit(X, y, X_test, oob=False)
             for seed in range(1, n_pools + 1)]
    curves = [pool.closed_form(grid, n_bootstrap=200) for pool in pools]  # (curve, low, high) each
    closed, low, high = (np.array([c[i] for c in curves]) for i in range(3))  # (n_pools, len(grid))
    trees = np.concatenate([pool.test_predictions_ for pool in pools], axis=1)
    pooled = pools[0]
    pooled.test_predictions_ = trees  # every tree: the closed form of n_pools * pool_size trees
    precise = pooled.closed_form(grid)
    print(f"\nPrecision study: {n_pools} pools of {pool_size} trees ({trees.shape[1]} trees, "
          f"{time.perf_counter() - start:.0f} s); refit runs = disjoint groups of {repeats} forests\n")
    print(f"{'n':>6}{'runs':>6}{'E[refit]':>10}{'SD refit':>10}{'closed, all':>13}{'closed mean':>13}"
          f"{'SD closed':>11}{'|bias|':>8}{'P(cf~E)':>9}{'P(cf~run)':>11}{'P(run~run)':>12}"
          f"{'band covers':>13}")
    for k, n in enumerate(grid):
        runs = trees.shape[1] // (repeats * n)
        # run r: forests of trees r*repeats*n ... (r+1)*repeats*n - 1, n consecutive trees each
        forests = trees[:, :runs * repeats * n].reshape(len(trees), runs, repeats, n).mean(axis=3)
        values = np.array([icc(forests[:, r]).value for r in range(runs)])
        expected = values.mean()
        pairs = np.abs(closed[:, k][:, None] - values[None, :])
        run_pairs = np.abs(values[:, None] - values[None, :])[np.triu_indices(runs, 1)]
        print(f"{n:>6}{runs:>6}{expected:>10.3f}{values.std(ddof=1) if runs > 1 else np.nan:>10.3f}"
              f"{precise[k]:>13.3f}{closed[:, k].mean():>13.3f}{closed[:, k].std(ddof=1):>11.3f}"
              f"{abs(closed[:, k].mean() - expected):>8.3f}"
              f"{np.mean(np.abs(closed[:, k] - expected) <= 0.02):>9.2f}{np.mean(pairs <= 0.02):>11.2f}"
              f"{np.mean(run_pairs <= 0.02) if runs > 1 else np.nan:>12.2f}"
              f"{np.mean((low[:, k] <= expected) & (expected <= high[:, k])):>13.2f}")
    print(f"""
E[refit]: mean ICC(1) over the refit runs; SD refit: spread of one run; closed, all: closed form
of all {trees.shape[1]} trees; closed mean / SD closed: over the {n_pools} closed forms of {pool_size} trees;
|bias| = |closed mean - E[refit]|; P(cf~E): share of closed forms within 0.02 of E[refit];
P(cf~run): share of (closed form, refit run) pairs within 0.02; P(run~run): share of pairs of
refit runs within 0.02 of each other; band covers: share of the closed forms' 95% bootstrap
bands (closed_form(..., n_bootstrap=200)) that contain E[refit].""")


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
    parser.add_argument("--closed-precision", type=float, default=0.0, metavar="HALF_WIDTH",
                        help="also the closed form with tune_num_learners(precision=HALF_WIDTH), e.g. 0.02")
    parser.add_argument("--threads", type=int, default=1,
                        help="also time the closed form with this many threads (the comparison with "
                             "optRF is one thread)")
    parser.add_argument("--precision", type=int, metavar="POOLS", default=0,
                        help="sampling-error study: POOLS independent pools of 1,000 trees "
                             "(40: about 1.5 min)")
    args = parser.parse_args(argv)
    grid = (250, 500, 750, 1000, 2000)
    repeats = 10
    if args.quick:
        grid, repeats = tuple(g // 10 for g in grid), 3
        args.closed_pool = [max(p // 10, 50) for p in args.closed_pool]
    X, y, X_test = load_snp()
    if args.importance:
        importance_example(X, y)
    if args.precision:
        precision_study(X, y, X_test, grid, repeats, args.precision)
        return
    print(f"SNPdata: train {X.shape}, test {X_test.shape}; grid {grid}; {repeats} repeats; one thread; "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    runs = {} if args.skip_refit else {"refit": run("refit", X, y, X_test, grid, repeats)}
    runs["pool"] = run("pool", X, y, X_test, grid, repeats)
    for size in args.closed_pool:
        for seed in range(1, args.closed_seeds + 1):
            label = f"closed_form ({size})" + (f" s{seed}" if args.closed_seeds > 1 else "")
            runs[label] = run("closed_form", X, y, X_test, grid, repeats, seed=seed, pool_size=size)
    if args.closed_precision:  # the closed form made as precise as asked (a larger pool)
        label = f"closed_form +-{args.closed_precision:g}"
        runs[label] = run("closed_form", X, y, X_test, grid, repeats, precision=args.closed_precision)
    if args.threads > 1:  # not the one-thread comparison: shows what a second core buys
        for size in args.closed_pool:
            runs[f"closed_form ({size}) {args.threads} thr"] = run("closed_form", X, y, X_test, grid, repeats,
                                                                  pool_size=size, n_jobs=args.threads)
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
        pool = "" if res.pool_size is None else f" (pool of {res.pool_size})"
        print(f"{name}{pool}: 2PL p1 {fit.p1:.0f}, p2 {fit.p2:.2f}, R^2 {fit.r_squared:.3f}; optRF rule "
              f"recommends {res.recommendation}; {res.n_for_target} trees for ICC 0.95")


if __name__ == "__main__":
    main()
