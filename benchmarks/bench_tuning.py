"""Benchmark: the number of trees for stable predictions, predstab against optRF, in one run.

The same work as optRF 1.2.1's ``opt_prediction`` on optRF's own SNPdata (250 wheat lines,
yield and 5,000 SNPs; train on rows 1-200, predict rows 201-250, one thread):

- regression: grid 250, 500, 750, 1000, 2000, 10 repeats, ICC(1) (``irr::icc``, as optRF);
- classification: yield above its median ("high" / "low", a factor response), grid 50, 100,
  250, 500, 1000, 5 repeats, Fleiss' kappa (``irr::kappam.fleiss``), ``select_for = "high"``:
  the run of ``validation/r-reference/optrf`` (recommendation 42,000 trees).

Each of ``--runs`` runs (seed r = 1, 2, ...) times optRF (``Rscript``; the seconds are
measured inside R around ``opt_prediction``, R's start-up and ``library()`` excluded) and
predstab's ``tune_num_learners`` with ``method="pool"`` and ``"closed_form"`` (pools of
``--closed-pool`` trees) one after the other, printing the load average with every timing.
The median seconds of the runs and each method's precision -- the run-to-run standard
deviation of its stability at each grid value over the runs -- are printed side by side;
``--markdown`` writes them to ``docs/benchmarks/tuning.md``. ``--refit-runs`` adds
``method="refit"`` (what optRF does, with scikit-learn trees: minutes per run).

Usage::

    python benchmarks/bench_tuning.py --runs 3 --markdown docs/benchmarks/tuning.md
    python benchmarks/bench_tuning.py --quick                # small grids, 2 runs, smoke test
    python benchmarks/bench_tuning.py --precision 40         # sampling-error study (no R)
    python benchmarks/bench_tuning.py --importance           # opt_importance example (no R)
    python benchmarks/bench_tuning.py --nested-validation 5  # the checks skipped inside the engine
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import timeit
import warnings
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))

from predstab import PredstabWarning, TreePool, icc, tune_num_learners  # noqa: E402

TASKS = {
    # name: (grid, repeats, predstab measure)
    "regression": ((250, 500, 750, 1000, 2000), 10, "icc"),
    "classification": ((50, 100, 250, 500, 1000), 5, "fleiss"),
}
R_SCRIPT = """
suppressMessages({library(optRF); library(jsonlite)}); data(SNPdata)
a <- commandArgs(TRUE); task <- a[1]; seed <- as.integer(a[2]); reps <- as.integer(a[3])
grid <- as.numeric(strsplit(a[4], ",")[[1]])
y <- SNPdata[, 1]
extra <- list()
if (task == "classification") {
  y <- factor(ifelse(y > median(y), "high", "low")); extra <- list(select_for = "high")
}
set.seed(seed)
t0 <- Sys.time()
r <- do.call(opt_prediction, c(list(y = y[1:200], X = SNPdata[1:200, -1], X_Test = SNPdata[201:250, -1],
             num.trees_values = grid, number_repetitions = reps, recommendation = "prediction",
             verbose = FALSE, num.threads = 1), extra))
secs <- as.numeric(difftime(Sys.time(), t0, units = "secs"))
cat(toJSON(list(seconds = secs, stability = r$result.table$pred_stability,
                recommendation = if (is.null(r$recommendation)) NA else r$recommendation),
           auto_unbox = TRUE, digits = NA), "\\n")
"""


def load_snp(task="regression"):
    path = HERE / "data" / "SNPdata.csv"
    if not path.exists():
        path = HERE.parent.parent / "shared" / "data" / "SNPdata.csv"
    df = pd.read_csv(path, index_col=0)
    y = df["Yield"].to_numpy(dtype=float)
    if task == "classification":  # optRF's run: factor(ifelse(y > median(y), "high", "low"))
        y = np.where(y > np.median(y), "high", "low")
    X = df.drop(columns="Yield").to_numpy(dtype=np.float32)
    return X[:200], y[:200], X[200:250]


def _load():
    return os.getloadavg()[0]


def have_optrf():
    rscript = shutil.which("Rscript")
    if rscript is None:
        return None
    check = subprocess.run([rscript, "-e", "library(optRF); library(jsonlite)"], capture_output=True)
    return rscript if check.returncode == 0 else None


def optrf_run(rscript, task, grid, repeats, seed):
    """optRF's ``opt_prediction`` in Rscript: (seconds inside R, stability per grid value, recommendation)."""
    with tempfile.NamedTemporaryFile("w", suffix=".R", delete=False) as fh:
        fh.write(R_SCRIPT)
    try:
        out = subprocess.run([rscript, fh.name, task, str(seed), str(repeats), ",".join(map(str, grid))],
                             capture_output=True, text=True)
    finally:
        os.unlink(fh.name)
    if out.returncode != 0:
        raise RuntimeError(f"optRF failed: {out.stderr[-1500:]}")
    res = json.loads(out.stdout.strip().splitlines()[-1])
    return res["seconds"], np.asarray(res["stability"], dtype=float), res["recommendation"]


def _estimator(task, n_jobs=1):
    # ranger's defaults as optRF calls them: mtry = floor(sqrt(p)), sampling with replacement;
    # min.node.size = 5 for regression (the minimal size of a node that may be split), 1 for classes
    if task == "classification":
        return RandomForestClassifier(max_features="sqrt", n_jobs=n_jobs)
    return RandomForestRegressor(max_features="sqrt", min_samples_split=5, n_jobs=n_jobs)


def run(method, X, y, X_test, grid, repeats, seed=1, task="regression", measure="icc", **kwargs):
    est = _estimator(task)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PredstabWarning)
        res = tune_num_learners(est, X, y, X_test, grid=grid, n_repeats=repeats, measures=(measure,),
                                method=method, random_state=seed, n_resamples=0, **kwargs)
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
        res = tune_num_learners(est, X, y, grid=ref["grid"], n_repeats=5, method="pool", n_resamples=0,
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
    curves = [pool.closed_form(grid, n_resamples=200) for pool in pools]  # ClosedFormResult each
    closed, low, high = (np.array([getattr(c, part) for c in curves]) for part in ("curve", "low", "high"))
    trees = np.concatenate([pool.test_predictions_ for pool in pools], axis=1)
    pooled = pools[0]
    pooled.test_predictions_ = trees  # every tree: the closed form of n_pools * pool_size trees
    precise = pooled.closed_form(grid).curve
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
bands (closed_form(..., n_resamples=200)) that contain E[refit].""")


def nested_validation_study(runs):
    """What skipping nested validation saves (issue 24, item 4): ``tune_num_learners`` checks its
    arguments once and runs its body with the declared functions it calls (``icc``, ``phi``,
    ``selection_stability``, ``fit_2pl``, ``TwoPL.recommend``, ``TreePool.closed_form``, ...)
    skipping their constraint checks; calling the body through ``__wrapped__`` checks them at every
    grid point and resample, as before. Same seeds, the two alternating, ``runs`` times each; the
    checks are counted by wrapping ``check_param``. SNP data, the default measures, 100 resamples
    (the default), grids a tenth of optRF's."""
    from predstab._core import _validation

    real = _validation.check_param
    rows = []
    for task, method in (("regression", "pool"), ("regression", "closed_form"), ("classification", "pool")):
        X, y, X_test = load_snp(task)
        grid = tuple(g // 10 for g in TASKS[task][0])
        kwargs = dict(grid=grid, n_repeats=TASKS[task][1], method=method, random_state=1)
        timings = {"skipped": [], "checked": []}
        counts = {}
        for _ in range(runs):
            for mode, call in (("skipped", tune_num_learners), ("checked", tune_num_learners.__wrapped__)):
                n_checks = [0]

                def counting(*args, n_checks=n_checks):
                    n_checks[0] += 1
                    return real(*args)

                _validation.check_param = counting
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore", PredstabWarning)
                        start = time.perf_counter()
                        res = call(_estimator(task), X, y, X_test, **kwargs)
                        timings[mode].append(time.perf_counter() - start)
                finally:
                    _validation.check_param = real
                counts[mode] = n_checks[0]
                table = res.table.drop(columns="seconds")
                if mode == "skipped":
                    first = table
                else:  # the same numbers either way
                    pd.testing.assert_frame_equal(first, table, check_exact=True)
        skipped, checked = (statistics.median(timings[m]) for m in ("skipped", "checked"))
        rows.append((task, method, counts["checked"] - counts["skipped"], checked, skipped))
    print(f"\nNested validation inside tune_num_learners ({runs} runs each, median seconds, load "
          f"{_load():.1f})\n")
    print(f"{'task':<16}{'method':<13}{'checks skipped':>15}{'checked':>10}{'skipped':>10}{'saved':>10}")
    for task, method, n, checked, skipped in rows:
        print(f"{task:<16}{method:<13}{n:>15}{checked:>10.2f}{skipped:>10.2f}"
              f"{100 * (checked - skipped) / checked:>9.1f}%")
    # one call of the measures the engine calls most, with and without its checks (a grid point's
    # forests: 50 test objects x 10 forests)
    from predstab import fit_2pl, icc, phi
    from predstab._core._validation import skip_nested_validation

    rng = np.random.default_rng(0)
    matrix, baseline = rng.normal(size=(50, 10)), rng.normal(size=200)
    calls = {"icc": lambda: icc(matrix), "phi": lambda: phi(matrix, baseline),
             "fit_2pl": lambda: fit_2pl([25, 50, 75, 100, 200], [0.5, 0.6, 0.7, 0.75, 0.8])}
    print(f"\n{'one call':<10}{'checked (us)':>14}{'skipped (us)':>14}")
    for name, call in calls.items():
        def skipping(call=call):
            with skip_nested_validation():
                call()
        checked, skipped = (min(timeit.repeat(f, number=200, repeat=5)) / 200 * 1e6 for f in (call, skipping))
        print(f"{name:<10}{checked:>14.1f}{skipped:>14.1f}")
    return rows


def _machine(rscript):
    import sklearn

    try:
        with open("/proc/meminfo") as fh:
            mem = f"{int(fh.readline().split()[1]) / 2**20:.0f} GB"
    except OSError:
        mem = "? GB"
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as fh:
            cpu = next(line.split(":", 1)[1].strip() for line in fh if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    text = (f"{cpu}, {os.cpu_count()} cores, {mem}; Python {platform.python_version()}, numpy "
            f"{np.__version__}, scikit-learn {sklearn.__version__}")
    if rscript:
        code = ('cat(R.version$major, R.version$minor, format(packageVersion("optRF")), '
                'format(packageVersion("ranger")))')
        out = subprocess.run([rscript, "-e", code], capture_output=True, text=True)
        major, minor, optrf, ranger = out.stdout.split()
        text += f"; R {major}.{minor}, optRF {optrf}, ranger {ranger}"
    return text


def _methods(task, args):
    names = ["optRF"] + ([] if args.skip_pool else ["pool"])
    pools = args.closed_pool if task == "regression" else args.class_pool
    names += [f"closed_form ({p})" for p in pools]
    if args.default:
        names.append("closed_form (default)")
    if task == "regression" and args.refit_runs:
        names.append("refit")
    return names


def same_run(args):
    """optRF and predstab, run after run, in this process tree; returns the records."""
    rscript = have_optrf()
    if rscript is None:
        raise SystemExit("Rscript with optRF and jsonlite is needed (bash ../shared/r-peers/install.sh)")
    tasks = {k: v for k, v in TASKS.items() if k in args.tasks}
    if args.quick:
        tasks = {k: (tuple(max(g // 10, 5) for g in grid), 3, m) for k, (grid, _, m) in tasks.items()}
    machine = _machine(rscript)
    print(machine)
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    data = {task: load_snp(task) for task in tasks}
    records = {task: {m: [] for m in _methods(task, args)} for task in tasks}
    for r in range(1, args.runs + 1):
        for task, (grid, repeats, measure) in tasks.items():
            X, y, X_test = data[task]
            for name in records[task]:
                if name == "refit" and r > args.refit_runs:
                    continue
                load_before = _load()
                if name == "optRF":
                    secs, stab, rec = optrf_run(rscript, task, grid, repeats, r)
                else:
                    kw = {}
                    if name.startswith("closed_form") and "default" not in name:
                        kw["pool_size"] = int(name.split("(")[1].rstrip(")"))
                    secs, res = run(name.split(" ")[0], X, y, X_test, grid, repeats, seed=r, task=task,
                                    measure=measure, **kw)
                    stab, rec = res.table[measure].to_numpy(dtype=float), res.recommendation
                load = (load_before + _load()) / 2
                rec = None if rec is None or rec != rec else int(rec)
                size = None if name == "optRF" else res.pool_size
                records[task][name].append({"run": r, "seconds": secs, "load": load,
                                            "stability": stab.tolist(), "recommendation": rec,
                                            "pool_size": size})
                print(f"run {r} {task:<14} {name:<22} {secs:8.2f} s  load {load:4.2f}  "
                      + ", ".join(f"{v:.3f}" for v in stab) + f"  rec {rec}  pool {size}", flush=True)
        if args.json:  # the runs so far (a long benchmark stopped early keeps its complete runs)
            args.json.write_text(json.dumps({"machine": machine, "load_end": list(os.getloadavg()),
                                             "tasks": tasks, "records": records, "argv": sys.argv[1:]}))
    return {"machine": machine, "load_end": list(os.getloadavg()), "tasks": tasks, "records": records,
            "argv": sys.argv[1:]}


def class_subpool_study(total, sizes, votes_file=None):
    """Issue 37: the class closed form's recommendation per pool size from disjoint pools of one
    large pool (the trees are i.i.d., so disjoint subsets are independent pools): mean and SD of
    Fleiss' kappa at each grid value and of optRF's recommendation, against the whole pool's
    (unbiased up to half of it). ``votes_file``: the saved objects x trees class indices of an
    earlier run (``.npy``), else a pool of ``total`` trees is fitted (seed 123) and saved there."""
    from predstab import fit_2pl

    grid = np.asarray(TASKS["classification"][0], dtype=float)
    if votes_file is not None and Path(votes_file).exists():
        votes = np.load(votes_file)
    else:
        X, y, X_test = load_snp("classification")
        pool = TreePool(_estimator("classification"), n_learners=total, voting="hard", random_state=123,
                        dtype="float32").fit(X, y, X_test, oob=False)
        votes = pool.test_predictions_.argmax(axis=2).astype(np.int8)
        if votes_file is not None:
            np.save(votes_file, votes)

    def curve(v):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PredstabWarning)
            return TreePool.from_predictions(v, classes=[0, 1], random_state=0).closed_form(
                grid, measure="fleiss").curve

    def recommend(c):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fit_2pl(grid, c).recommend(round_to="thousand", minimum=500)

    whole = curve(votes)
    print(f"\nClass pools cut from {votes.shape[1]:,} trees (SNP data, hard votes, Fleiss' kappa at "
          f"{', '.join(map(str, grid.astype(int)))}); all trees: "
          + ", ".join(f"{v:.3f}" for v in whole) + f", recommendation {recommend(whole):,}\n")
    print("| pool | pools | mean kappa at each n | SD at each n | (mean - all) / SE | "
          "recommendation mean | SD |")
    print("|---|---|---|---|---|---|---|")
    for size in sizes:
        k = votes.shape[1] // size
        curves = np.array([curve(votes[:, j * size:(j + 1) * size]) for j in range(k)])
        recs = np.array([recommend(c) or np.nan for c in curves], dtype=float)
        sd = curves.std(axis=0, ddof=1)
        print(f"| {size:,} | {k} | " + ", ".join(f"{v:.3f}" for v in curves.mean(axis=0)) + " | "
              + ", ".join(f"{v:.3f}" for v in sd) + " | "
              + ", ".join(f"{v:+.1f}" for v in (curves.mean(axis=0) - whole) / (sd / np.sqrt(k))) + " | "
              + f"{np.nanmean(recs):,.0f} | {np.nanstd(recs, ddof=1):,.0f} |", flush=True)


def _sd(values):
    return np.std(values, axis=0, ddof=1) if len(values) > 1 else np.full(np.shape(values)[1], np.nan)


def summarise(out):
    """Markdown lines of the same-run tables, one section per task."""
    lines = []
    goals = []
    for task, (grid, repeats, measure) in out["tasks"].items():
        recs = out["records"][task]
        ref = recs["optRF"]
        ref_secs = np.array([x["seconds"] for x in ref])
        ref_sd = _sd(np.array([x["stability"] for x in ref]))
        by_run = {x["run"]: x["seconds"] for x in ref}
        label = "ICC(1)" if measure == "icc" else "Fleiss' kappa"
        lines += [f"### {task.capitalize()}: {label}, grid {', '.join(map(str, grid))}, {repeats} repeats",
                  "",
                  "| method | runs | median s (min - max) | load | / optRF, same run (median) | "
                  f"mean {label} at each n | run-to-run SD at each n | max SD / optRF's SD | "
                  "recommendations | est. s at optRF's precision | / optRF |",
                  "|" + "---|" * 11]
        for name, xs in recs.items():
            secs = np.array([x["seconds"] for x in xs])
            stab = np.array([x["stability"] for x in xs])
            sd = _sd(stab)
            ratio = statistics.median(x["seconds"] / by_run[x["run"]] for x in xs)
            med = float(np.median(secs))
            worst = float(np.nanmax(sd / ref_sd)) if len(xs) > 1 else float("nan")
            if name == "optRF":
                eq, eq_ratio = med, 1.0
            elif np.isfinite(worst):
                # the sampling SD falls as 1 / sqrt(learners) (closed form: pool; pool: its forests),
                # and the time is about linear in the learners: scale by the worst SD ratio squared
                eq = med * max(worst, 1.0) ** 2
                eq_ratio = eq / float(np.median(ref_secs))
            else:
                eq = eq_ratio = float("nan")
            rec_text = ", ".join(f"{x['recommendation']:,}" if x["recommendation"] else "-" for x in xs)
            lines.append(
                f"| {name} | {len(xs)} | {med:.2f} ({secs.min():.2f} - {secs.max():.2f}) | "
                f"{min(x['load'] for x in xs):.1f} - {max(x['load'] for x in xs):.1f} | {ratio:.4f} | "
                + ", ".join(f"{v:.3f}" for v in stab.mean(axis=0)) + " | "
                + ", ".join(f"{v:.3f}" for v in sd)
                + f" | {worst:.2f} | {rec_text} | {eq:.1f} | {eq_ratio:.3f} |")
            if name.startswith("closed_form") and len(xs) > 1:
                met_sd = bool(np.all(sd <= ref_sd))
                met = met_sd and ratio <= 0.01
                goals.append(
                    f"- {task}, {name}: run-to-run SD <= optRF's at every n: **{'yes' if met_sd else 'no'}** "
                    f"(worst SD ratio {worst:.2f}); time {ratio:.4f} of optRF's same run "
                    f"({'within' if ratio <= 0.01 else 'above'} 1/100)"
                    + ("" if met_sd else f"; at optRF's precision (extrapolated) {eq_ratio:.3f} of optRF")
                    + f": goal **{'met' if met else 'missed'}**.")
        lines.append("")
        lines += _recommendation_table(recs, by_run, goals, task)
    return lines, goals


def _rec_stats(xs):
    values = np.array([x["recommendation"] for x in xs if x["recommendation"]], dtype=float)
    sd = float(np.std(values, ddof=1)) if len(values) > 1 else float("nan")
    return values, float(values.mean()) if len(values) else float("nan"), sd


def _recommendation_table(recs, by_run, goals, task):
    """Issue 37's table: each method's recommendations over the runs (mean, SD, the mean's standard
    error) and its time over optRF's same run, with the goal's verdict for the closed forms:
    optRF's SD or less, in <= 0.1 of its time, the mean within one standard error of optRF's."""
    _, ref_mean, ref_sd = _rec_stats(recs["optRF"])
    ref_n = len(_rec_stats(recs["optRF"])[0])
    ref_se = ref_sd / np.sqrt(ref_n) if ref_n > 1 else float("nan")
    lines = ["Recommendations over the runs (issue 37: optRF's SD or less in <= 0.1 of its time, the mean "
             "within one standard error of optRF's):", "",
             "| method | pool (trees) | runs with a recommendation | mean | SD | SE of the mean | "
             "mean - optRF's, in optRF's SE | / optRF's time, same run (median) |",
             "|---|---|---|---|---|---|---|---|"]
    for name, xs in recs.items():
        values, mean, sd = _rec_stats(xs)
        se = sd / np.sqrt(len(values)) if len(values) > 1 else float("nan")
        ratio = statistics.median(x["seconds"] / by_run[x["run"]] for x in xs)
        sizes = sorted({x.get("pool_size") for x in xs if x.get("pool_size")})
        pool = "-" if not sizes else (f"{sizes[0]:,}" if len(sizes) == 1 else f"{sizes[0]:,} - {sizes[-1]:,}")
        off = (mean - ref_mean) / ref_se if name != "optRF" else 0.0
        lines.append(f"| {name} | {pool} | {len(values)} / {len(xs)} | {mean:,.0f} | {sd:,.0f} | {se:,.0f} | "
                     f"{off:+.2f} | {ratio:.3f} |")
        if name.startswith("closed_form") and len(values) > 1:
            ok_sd, ok_time, ok_mean = sd <= ref_sd, ratio <= 0.1, abs(off) <= 1
            goals.append(f"- issue 37, {task}, {name}: SD {sd:,.0f} vs optRF's {ref_sd:,.0f} "
                         f"(**{'yes' if ok_sd else 'no'}**), time {ratio:.3f} of optRF's (<= 0.1: "
                         f"**{'yes' if ok_time else 'no'}**), mean {mean:,.0f} vs {ref_mean:,.0f} "
                         f"({off:+.2f} SE: **{'yes' if ok_mean else 'no'}**): goal "
                         f"**{'met' if ok_sd and ok_time and ok_mean else 'missed'}**.")
    return [*lines, ""]


def reference_check(out):
    """optRF's seed-1 classification run against the stored reference of validation/r-reference/optrf."""
    path = HERE.parent / "validation" / "r-reference" / "optrf" / "expected" / "optRF_runs.json"
    if "classification" not in out["records"] or not path.exists():
        return []
    stored = json.loads(path.read_text())["snp_classification"]
    first = next((x for x in out["records"]["classification"]["optRF"] if x["run"] == 1), None)
    if first is None or list(out["tasks"]["classification"][0]) != stored["grid"]:
        return []
    ref = [row["pred_stability"] for row in stored["result_table"]]
    dev = float(np.max(np.abs(np.array(first["stability"]) - ref)))
    return [f"optRF's classification run 1 (set.seed(1)) against the stored reference "
            f"(`validation/r-reference/optrf`, recommendation {stored['recommendation']:,}): recommendation "
            f"{first['recommendation']:,}, max |kappa difference| {dev:.2g}."]


MARKER = "<!-- end of the generated part: what follows is kept by bench_tuning.py --markdown -->"


def write_markdown(path, out, lines, goals, check, argv):
    command = "`python benchmarks/bench_tuning.py " + " ".join(out.get("argv", argv)) + "`"
    if "--from-json" in argv:
        command += (" (records written with `--json`), then `python benchmarks/bench_tuning.py "
                    + " ".join(argv) + "`")
    kept = ""
    if path.exists():
        text = path.read_text(encoding="utf-8")
        if MARKER in text:
            kept = text.split(MARKER, 1)[1]
    load_end = out["load_end"]
    head = [
        "# Speed of `tune_num_learners` against optRF, in the same run", "",
        f"Generated by {command}; do not edit this part by hand.", "",
        "optRF 1.2.1's `opt_prediction` on its own SNPdata (train rows 1-200, predict rows 201-250, one "
        "thread), run by `Rscript` in the same benchmark run as predstab's `tune_num_learners`, run after "
        "run (run r uses seed r in R and in Python; within a run the closed-form pools of different sizes "
        "share that seed, so they are nested). optRF's seconds are measured inside R around "
        "`opt_prediction`; predstab's around `tune_num_learners` (`n_resamples=0`, as optRF computes no "
        "bands). predstab fits `RandomForestRegressor(max_features=\"sqrt\", min_samples_split=5)` and "
        "`RandomForestClassifier(max_features=\"sqrt\")` (ranger's defaults as optRF calls it).", "",
        f"Machine: {out['machine']}. Load average (1 min) during each timing in the table; at the end "
        f"{load_end[0]:.2f}, {load_end[1]:.2f}, {load_end[2]:.2f}. The 2 cores are shared with other "
        "jobs, so absolute seconds are inflated by a varying factor; the same-run ratio (each method's "
        "seconds over optRF's seconds of the same run, median over runs) is the figure to quote.", "",
        "**Precision** is the run-to-run standard deviation of the stability at each grid value over the "
        "runs (seeds); with 3 runs each SD is itself uncertain by a factor of about 2 (a 95 % interval for "
        "an SD from 3 values spans 0.52-6.3 times the estimate). **est. s at optRF's precision**: the "
        "median seconds times (max SD / optRF's SD)^2 when that ratio exceeds 1 (the sampling SD falls as "
        "1 / sqrt(trees) and the time is about linear in the trees), i.e. the pool that would match "
        "optRF's run-to-run SD at its worst grid value -- an extrapolation, not a measurement.", "",
    ]
    body = [*head, *lines]
    if check:
        body += [*check, ""]
    body += ["## Against the goals of issue 15 (closed form at optRF's precision in <= 1/100 of its time) "
             "and issue 37 (recommendations: optRF's SD in <= 0.1 of its time, mean within one SE)", "",
             *goals, "", MARKER]
    path.write_text("\n".join(body) + (kept if kept else "\n"), encoding="utf-8")
    print(f"wrote {path}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3, help="same-run repetitions (seeds 1..RUNS; default 3)")
    parser.add_argument("--tasks", nargs="+", default=list(TASKS), choices=list(TASKS))
    parser.add_argument("--quick", action="store_true", help="grids / 10, 3 repeats, 2 runs, small pools")
    parser.add_argument("--closed-pool", type=int, nargs="+", default=[500, 1000],
                        help="regression: pool sizes of the closed form (default 500 1000)")
    parser.add_argument("--class-pool", type=int, nargs="+", default=[2000],
                        help="classification: pool sizes of the closed form (default 2000, twice the "
                             "largest grid value)")
    parser.add_argument("--default", action="store_true",
                        help="also method='closed_form' with its default pool (issue 37)")
    parser.add_argument("--skip-pool", action="store_true", help="leave out method='pool'")
    parser.add_argument("--refit-runs", type=int, default=0,
                        help="also method='refit' (regression) in the first REFIT_RUNS runs (minutes each)")
    parser.add_argument("--markdown", type=Path, help="write the same-run tables to this Markdown file "
                        "(keeping what follows its marker line)")
    parser.add_argument("--json", type=Path, help="also write the raw records as JSON")
    parser.add_argument("--from-json", type=Path, help="no run: summarise the records of an earlier --json")
    parser.add_argument("--importance", action="store_true",
                        help="only optRF's opt_importance example (grid 250-2000, 5 repeats, pool; no R)")
    parser.add_argument("--nested-validation", type=int, metavar="RUNS", default=0,
                        help="only the saving of skipped nested validation: RUNS runs of each mode (no R)")
    parser.add_argument("--precision", type=int, metavar="POOLS", default=0,
                        help="only the sampling-error study: POOLS independent pools of 1,000 trees "
                             "(40: about 1.5 min; no R)")
    parser.add_argument("--class-subpools", type=int, nargs="+", metavar="SIZE", default=None,
                        help="only the class pools study: one pool of --subpool-total trees cut into "
                             "disjoint pools of each SIZE (no R)")
    parser.add_argument("--subpool-total", type=int, default=20_000)
    parser.add_argument("--votes", type=Path,
                        help="--class-subpools: the saved votes (.npy) to reuse or write")
    args = parser.parse_args(argv)
    if args.class_subpools:
        class_subpool_study(args.subpool_total, args.class_subpools, args.votes)
        return
    if args.nested_validation:
        nested_validation_study(args.nested_validation)
        return
    if args.importance or args.precision:
        X, y, X_test = load_snp()
        if args.importance:
            importance_example(X, y)
        if args.precision:
            precision_study(X, y, X_test, TASKS["regression"][0], TASKS["regression"][1], args.precision)
        return
    if args.quick:
        args.runs = min(args.runs, 2)
        args.closed_pool = [max(p // 10, 50) for p in args.closed_pool]
        args.class_pool = [max(p // 10, 50) for p in args.class_pool]
    if args.from_json:
        out = json.loads(args.from_json.read_text())
        out["tasks"] = {k: tuple(v) for k, v in out["tasks"].items()}
    else:
        out = same_run(args)
    lines, goals = summarise(out)
    check = reference_check(out)
    print()
    print("\n".join(lines))
    print("\n".join(check))
    print("\n".join(goals))
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))
    if args.markdown:
        write_markdown(args.markdown, out, lines, goals, check, sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":
    main()
