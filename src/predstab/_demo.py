"""The demo job (``predstab demo``) and the tree-count job behind ``predstab tune``.

Both run the same steps on a training set, a test set and a grid of tree counts:

1. for every number of trees n in the grid, refit a random forest ``n_repeats`` times with new
   seeds (:func:`predstab.repeated_predictions`) and measure φ (training responses as baseline),
   ψ (out-of-bag predictions as baseline) and optRF's prediction stability (ICC(1) for metric
   predictions, Fleiss' κ for classes);
2. fit optRF's 2PL curve to each measure (:func:`predstab.fit_2pl`) and recommend a number of
   trees by optRF 1.2.1's rule and for a target stability of 0.95; as
   :func:`predstab.tune_num_learners` does, give the recommendation a bootstrap interval
   (test objects resampled; trees for the closed form) and fit the linear run-time model
   ``seconds per forest = intercept + slope * n``;
3. print the table and the recommendation, write ``stability.csv``, ``stability.json``,
   ``stability.png`` (the curves) and ``per_object.png`` (ψ of every test object for the
   largest forest).

ψ uses one fixed baseline for the whole grid: the out-of-bag predictions of the refits of the
largest forest. The OOB predictions of a small forest are noisy, so a per-forest baseline
would make ψ's denominator move with n and bend the curve (see the tuning issue); a fixed
baseline measures every forest against the same yardstick.
"""

from __future__ import annotations

import dataclasses
import time
import warnings
from pathlib import Path

import numpy as np

from ._io import InputError, fresh_directory, write_figure, write_text

__all__ = ["TuneJob", "run_job", "run_demo", "load_dataset", "holdout", "compute_curve"]

OUTPUTS = ("stability.csv", "stability.json", "stability.png", "per_object.png")
_DATASETS = ("diabetes", "breast_cancer", "wine", "ordinal")
TARGET_STABILITY = 0.95


@dataclasses.dataclass
class TuneJob:
    """Everything one tree-count run needs (built by the CLI)."""

    task: str  # "regression" | "classification" | "ordinal"
    X: np.ndarray
    y: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    grid: list
    n_repeats: int = 10
    method: str = "refit"
    seed: int = 0
    n_jobs: int | None = None
    levels: list | None = None
    title: str = ""
    voting: str = "hard"  # classes: ranger's majority vote, as optRF and tune_num_learners
    n_bootstrap: int = 100  # resamples for the recommendation's interval (tune_num_learners' default)


@dataclasses.dataclass
class Curve:
    """What :func:`compute_curve` measured."""

    table: object  # pandas DataFrame: n, one column per measure, seconds per forest
    fits: dict  # measure -> TwoPL
    recommendations: dict  # measure -> (optRF rule n or None, reason, n for TARGET_STABILITY or None)
    final_phi: object  # StabilityResult of the largest forest
    final_psi: object
    optrf_measure: str
    method: str
    interval: object = None  # ConfidenceInterval of the optRF measure's recommendation (NaN: none)
    runtime: tuple = (float("nan"), float("nan"))  # (intercept, slope) of seconds per forest
    n_bootstrap: int = 0


def load_dataset(name, *, seed=0):
    """``(X, y, task, levels, title)`` of one of scikit-learn's bundled data sets."""
    from sklearn import datasets

    if name == "diabetes":
        X, y = datasets.load_diabetes(return_X_y=True)
        return X, y, "regression", None, "diabetes progression (regression, scikit-learn's diabetes data)"
    if name == "breast_cancer":
        data = datasets.load_breast_cancer()
        y = data.target_names[data.target].astype(object)
        return data.data, y, "classification", None, "breast cancer: malignant / benign (2 classes)"
    if name == "wine":
        data = datasets.load_wine()
        y = data.target_names[data.target].astype(object)
        return data.data, y, "classification", None, "wine cultivar (3 classes)"
    if name == "ordinal":
        X, y = datasets.load_diabetes(return_X_y=True)
        levels = ["Q1", "Q2", "Q3", "Q4"]
        cuts = np.quantile(y, [0.25, 0.5, 0.75])
        y = np.array(levels, dtype=object)[np.searchsorted(cuts, y, side="right")]
        return X, y, "ordinal", levels, "diabetes progression in quartiles Q1 < Q2 < Q3 < Q4 (ordinal)"
    raise InputError(f"--dataset must be one of {_DATASETS}; got {name!r}")


def holdout(X, y, *, seed=0, test_size=0.2):
    """A seeded train/test split (stratified for classes)."""
    from sklearn.model_selection import train_test_split

    y = np.asarray(y)
    stratify = y if y.dtype.kind in "OUSb" else None
    return train_test_split(X, y, test_size=test_size, random_state=seed, stratify=stratify)


def _forest(task, n_trees):
    """A ranger-like forest: sqrt(p) features per split, ranger's leaf sizes (5 / 1)."""
    from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor

    if task == "regression":
        return RandomForestRegressor(n_estimators=n_trees, max_features="sqrt", min_samples_leaf=5)
    if task in ("classification", "ordinal"):
        return RandomForestClassifier(n_estimators=n_trees, max_features="sqrt", min_samples_leaf=1)
    raise InputError(f"--task must be regression, classification or ordinal; got {task!r}")


def _scale(job):
    return {"regression": "metric", "classification": "categorical", "ordinal": "ordinal"}[job.task]


def _optrf_measure(job):
    return "ICC(1)" if job.task == "regression" else "Fleiss kappa"


def _check_job(job):
    if job.task == "ordinal":
        if not job.levels:
            raise InputError("--task ordinal needs --levels (the target's categories in order)")
        seen = set(map(str, job.y))
        unknown = sorted(seen - set(map(str, job.levels)))
        if unknown:
            raise InputError(f"--levels {','.join(map(str, job.levels))} does not contain the target "
                             f"value(s) {', '.join(unknown[:5])}")
        job.y = np.array([str(v) for v in job.y], dtype=object)
        job.y_test = np.array([str(v) for v in job.y_test], dtype=object)
        job.levels = [str(v) for v in job.levels]
    elif job.task == "classification":
        job.y = np.asarray(job.y).astype(str).astype(object)
        job.y_test = np.asarray(job.y_test).astype(str).astype(object)
    elif job.task == "regression":
        try:
            job.y = np.asarray(job.y, dtype=float)
        except (TypeError, ValueError):
            raise InputError("the target column must be numeric for --task regression; "
                             "use --task classification or ordinal for categories") from None
    else:
        raise InputError(f"--task must be regression, classification or ordinal; got {job.task!r}")
    if job.X.shape[0] < 10:
        raise InputError(f"need at least 10 training rows; got {job.X.shape[0]}")


def _with_interval(row, name, value, interval):
    row[name] = value
    row[f"{name}_low"], row[f"{name}_high"] = (np.nan, np.nan) if interval is None else interval


def _measure_all(job, matrices, y_train, space):
    """Rows of the table (each measure with a 95% interval) and the largest forest's phi/psi."""
    from . import fleiss_kappa, icc, phi, psi

    scale, levels, optrf = _scale(job), job.levels, _optrf_measure(job)
    rows, final_phi, final_psi = [], None, None
    with warnings.catch_warnings():
        # the few-repeats and dropped-object warnings would repeat once per grid value
        warnings.simplefilter("ignore")
        for n_trees, (matrix, seconds) in matrices.items():
            final_phi = phi(matrix, y_train, scale=scale, levels=levels)
            final_psi = psi(matrix, space, scale=scale, levels=levels)
            row = {"n_trees": n_trees}
            for name, result in (("phi", final_phi), ("psi", final_psi)):
                # bootstrap over test objects, D_e fixed (StabilityResult.bootstrap_interval)
                interval = result.bootstrap_interval(0.95, n_resamples=400, random_state=job.seed)
                _with_interval(row, name, result.value, tuple(interval))
            if job.task == "regression":
                res = icc(np.asarray(matrix, dtype=float))
                _with_interval(row, optrf, res.value, tuple(res.confidence_interval))
            else:
                _with_interval(row, optrf, fleiss_kappa(matrix).value, None)
            row["seconds_per_forest"] = seconds
            rows.append(row)
    return rows, final_phi, final_psi


def _curve_refit(job, grid, progress):
    from . import repeated_predictions

    total = len(grid) * job.n_repeats
    runs = {}
    for k, n_trees in enumerate(grid):
        def step(done, _total, offset=k * job.n_repeats):
            if progress is not None:
                progress(offset + done, total)

        start = time.perf_counter()
        rep = repeated_predictions(_forest(job.task, n_trees), job.X, job.y, job.X_test,
                                   n_repeats=job.n_repeats, baseline="oob", random_state=job.seed + k,
                                   voting=job.voting, n_jobs=job.n_jobs, progress=step)
        runs[n_trees] = (rep, (time.perf_counter() - start) / job.n_repeats)
    space = runs[grid[-1]][0].space  # fixed psi baseline: OOB predictions of the largest forests
    matrices = {n: (rep.test, sec) for n, (rep, sec) in runs.items()}
    boot = _Boot({n: {"test": m} for n, (m, _) in matrices.items()}, space, np.random.default_rng(job.seed))
    return (*_measure_all(job, matrices, job.y, space), boot)


@dataclasses.dataclass
class _Boot:
    """What the recommendation's bootstrap needs, in :func:`predstab.tune_num_learners`' terms."""

    data: dict  # n -> {"test": (objects x forests) matrix}
    space: object  # psi's fixed baseline
    rng: np.random.Generator
    closed_curves: object = None  # closed form: bootstrap curves of the optRF measure (rows)


def _fit_pool(job, grid, progress):
    """The pool of ``max(grid) * n_repeats`` trees and the generator it drew from.

    The generator is ``default_rng(seed)``, handed to the pool as tune_num_learners does, so
    after the fit it is in the state tune_num_learners' bootstrap starts from.
    """
    from . import TreePool

    if progress is not None:
        progress(0, len(grid) + 1)
    rng = np.random.default_rng(job.seed)
    pool = TreePool(_forest(job.task, 1), n_learners=max(grid) * job.n_repeats, voting=job.voting,
                    random_state=rng, n_jobs=job.n_jobs)
    pool.fit(job.X, job.y, job.X_test)
    if progress is not None:
        progress(1, len(grid) + 1)
    return pool, rng


def _curve_pool(job, grid, progress):
    pool, rng = _fit_pool(job, grid, progress)
    per_tree = pool.fit_seconds_ / pool.test_predictions_.shape[1]
    matrices = {}
    for k, n_trees in enumerate(grid):
        matrices[n_trees] = (pool.forests(n_trees, n_forests=job.n_repeats), per_tree * n_trees)
        if progress is not None:
            progress(k + 2, len(grid) + 1)
    space = pool.oob_baseline()
    boot = _Boot({n: {"test": m} for n, (m, _) in matrices.items()}, space, rng)
    return (*_measure_all(job, matrices, job.y, space), boot)


def _curve_closed_form(job, grid, progress):
    import pandas as pd

    if job.task == "ordinal":
        raise InputError("--method closed-form supports regression and classification; "
                         "use --method pool for an ordinal target")
    pool, rng = _fit_pool(job, grid, progress)
    per_tree = pool.fit_seconds_ / pool.test_predictions_.shape[1]
    optrf = _optrf_measure(job)
    table = pd.DataFrame({"n_trees": grid})
    optrf_closed = "icc" if job.task == "regression" else "fleiss"
    names = {"phi": "phi", "psi": "psi", optrf_closed: optrf}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # bootstrap-over-trees bands of the closed forms (TreePool.closed_form), always shown;
        # the optRF measure's resamples also give the recommendation's interval
        bands = pool._closed_form_bands(grid, tuple(names), n_bootstrap=job.n_bootstrap or 50)
    for measure, name in names.items():
        table[name], table[f"{name}_low"], table[f"{name}_high"], _ = bands[measure]
    table["seconds_per_forest"] = [per_tree * n for n in grid]
    # the per-object view of the largest forest still comes from actual forests of the pool
    _, final_phi, final_psi = _measure_all(
        job, {grid[-1]: (pool.forests(grid[-1], n_forests=job.n_repeats), 0.0)}, job.y, pool.oob_baseline())
    if progress is not None:
        progress(len(grid) + 1, len(grid) + 1)
    resampled = table[optrf].to_numpy(float) - bands[optrf_closed][3]
    boot = _Boot({}, pool.oob_baseline(), rng, closed_curves=resampled)
    return table.to_dict(orient="records"), final_phi, final_psi, boot


_ENGINES = {"refit": _curve_refit, "pool": _curve_pool, "closed-form": _curve_closed_form}


def compute_curve(job, *, progress=None) -> Curve:
    """Measure φ, ψ and optRF's stability for every grid value, fit the 2PL curves."""
    import pandas as pd

    from . import fit_2pl
    from ._tune import runtime_model

    _check_job(job)
    if job.method not in _ENGINES:
        raise InputError(f"--method must be one of {sorted(_ENGINES)}; got {job.method!r}")
    grid = sorted(job.grid)
    rows, final_phi, final_psi, boot = _ENGINES[job.method](job, grid, progress)
    table = pd.DataFrame(rows)
    optrf = _optrf_measure(job)
    fits, recommendations = {}, {}
    for measure in ("phi", "psi", optrf):
        fit = fit_2pl(table["n_trees"].to_numpy(float), table[measure].to_numpy(float))
        fits[measure] = fit
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            rec = fit.recommend()
        reason = str(caught[0].message) if rec is None and caught else ""
        if fit.converged and fit.poor_fit:
            reason = (reason + " " if reason else "") + f"poor fit (R² {fit.r_squared:.2f})."
        if fit.converged and not fit.flattened:
            reason = (reason + " " if reason else "") + (
                f"The curve has not flattened within the grid; a grid up to {fit.suggested_max} "
                "trees would resolve it.")
        target = fit.num_learners_for(TARGET_STABILITY) if fit.converged else -1
        recommendations[measure] = (rec, reason, None if target < 0 else int(target))
    interval = _recommendation_interval(job, grid, boot, fits[optrf], recommendations[optrf][0])
    runtime = runtime_model(table["n_trees"].to_numpy(float), table["seconds_per_forest"].to_numpy(float))
    return Curve(table, fits, recommendations, final_phi, final_psi, optrf, job.method, interval, runtime,
                 job.n_bootstrap)


def _recommendation_interval(job, grid, boot, fit, recommendation):
    """tune_num_learners' bootstrap interval of the optRF measure's recommendation.

    The same computation (``_tune._bootstrap_recommendation``) on the same forests with the
    generator in the same state, so ``--method pool`` gives tune_num_learners' numbers for
    the same seed. NaN (as there) without a recommendation, for a poor fit or without
    resamples.
    """
    from ._tune import _bootstrap_recommendation
    from ._utils import ConfidenceInterval

    if not job.n_bootstrap or recommendation is None or fit.poor_fit:
        return ConfidenceInterval(float("nan"), float("nan"))
    primary = "icc" if job.task == "regression" else "fleiss"
    ctx = {"y": job.y, "scale": _scale(job), "psi_baseline": "fixed", "fixed_space": boot.space,
           "select_fraction": 0.15, "select_for": "high", "importance_fraction": 0.05}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # resamples with a poor fit are part of the distribution
        return _bootstrap_recommendation(primary, grid, boot.data, ctx, boot.closed_curves, 1e-6, "thousand",
                                         job.n_bootstrap, boot.rng)


def _report(curve, job, elapsed):
    """The text printed by demo and tune."""
    import pandas as pd

    lines = [f"Data: {job.title}",
             f"  {job.X.shape[0]} training objects, {job.X_test.shape[0]} test objects, "
             f"{job.X.shape[1]} features; random forest refit {job.n_repeats} times per tree count "
             f"(seed {job.seed}, method {curve.method}"
             + (f", {job.voting} voting)" if job.task != "regression" else ")"), ""]
    n_max = int(curve.table["n_trees"].max())
    lines.append(f"Prediction stability of the {n_max}-tree forest (APS):")
    for result in (curve.final_phi, curve.final_psi):
        lines.extend("  " + line for line in str(result).splitlines())
        lines.append("")
    per = np.asarray(curve.final_psi.per_object, dtype=float)
    if np.isfinite(per).any():
        order = np.argsort(np.where(np.isnan(per), np.inf, per), kind="stable")[:3]
        worst = ", ".join(f"#{i + 1} (psi {per[i]:.3f})" for i in order if np.isfinite(per[i]))
        lines.append(f"  least stable test objects: {worst}")
        lines.append("")
    lines.append("Stability versus number of trees:")
    shown = curve.table[[c for c in curve.table.columns if not c.endswith(("_low", "_high"))]]
    shown = shown.rename(columns={"n_trees": "trees", "seconds_per_forest": "s/forest"})
    lines.extend("  " + line for line in shown.to_string(index=False, float_format=lambda v: f"{v:.4f}")
                 .splitlines())
    lines.append("")
    lines.append("2PL fits, stability(n) = 1 / (1 + (p1 / n)^p2), and recommendations:")
    fit_rows = []
    for measure, fit in curve.fits.items():
        rec, reason, target = curve.recommendations[measure]
        fit_rows.append({"measure": measure, "p1": fit.p1, "p2": fit.p2, "R2": fit.r_squared,
                         "optRF rule": "-" if rec is None else f"{rec}",
                         f"n for {TARGET_STABILITY}": "-" if target is None else f"{target}"})
    lines.extend("  " + line for line in pd.DataFrame(fit_rows).to_string(
        index=False, float_format=lambda v: f"{v:.4g}").splitlines())
    for measure in curve.fits:
        reason = curve.recommendations[measure][1]
        if reason:
            lines.append(f"  note ({measure}): {reason}")
    lines.append("")
    lines.append(_headline(curve))
    lines.extend(_interval_and_runtime(curve))
    lines.append(f"(finished in {elapsed:.1f} s)")
    return "\n".join(lines)


def _chosen(curve):
    """``(measure, trees)`` of the headline recommendation, or None."""
    for measure in (curve.optrf_measure, "psi", "phi"):
        rec = curve.recommendations[measure][0]
        fit = curve.fits[measure]
        if rec is not None and not fit.poor_fit and fit.flattened:
            return measure, rec
    return None


def _headline(curve):
    chosen = _chosen(curve)
    if chosen is None:
        return ("Recommendation: none; no measure's 2PL curve could be trusted on this grid. "
                f"Try a grid up to {max(f.suggested_max for f in curve.fits.values())} trees.")
    measure, rec = chosen
    target = curve.recommendations[measure][2]
    via = "optRF::opt_prediction's measure" if measure == curve.optrf_measure else "APS"
    extra = f"; {target} trees reach {measure} = {TARGET_STABILITY}" if target else ""
    return (f"Recommendation: {rec} trees (optRF 1.2.1's rule on {measure}, {via}; "
            f"expected {measure} {curve.fits[measure].stability(rec):.4f}{extra}).")


def _resampled(curve):
    return "trees" if curve.method == "closed-form" else "test objects"


def _interval_and_runtime(curve):
    """The recommendation's bootstrap interval and the run-time model, as printed."""
    lines = []
    low, high = curve.interval
    optrf_rec = curve.recommendations[curve.optrf_measure][0]
    if np.isfinite(low) and np.isfinite(high):
        lines.append(f"  95% bootstrap interval of the {curve.optrf_measure} recommendation ({optrf_rec}): "
                     f"{low:g} to {high:g} trees ({curve.n_bootstrap} resamples of the {_resampled(curve)}, "
                     "as tune_num_learners)")
    elif curve.n_bootstrap and optrf_rec is not None and not curve.fits[curve.optrf_measure].poor_fit:
        lines.append(f"  bootstrap interval of the {curve.optrf_measure} recommendation: undefined (fewer "
                     "than half of the resamples gave one)")
    intercept, slope = curve.runtime
    shown = 0.0 if abs(intercept) < 1e-9 else intercept  # the pool's times are proportional to n
    lines.append(f"Run time: seconds per forest ~ {shown:.4g} + {slope:.4g} * trees (least-squares "
                 "line over the grid, tune_num_learners' run-time model)")
    chosen = _chosen(curve)
    if chosen is not None:
        lines.append(f"  {chosen[1]} trees: about {intercept + slope * chosen[1]:.3g} s per forest")
    return lines


def _summary(curve, job):
    fits = {m: {"p1": f.p1, "p2": f.p2, "r_squared": f.r_squared, "converged": f.converged,
                "poor_fit": f.poor_fit, "recommended_n": curve.recommendations[m][0],
                "note": curve.recommendations[m][1],
                f"n_for_{TARGET_STABILITY}": curve.recommendations[m][2]} for m, f in curve.fits.items()}
    return {
        "data": job.title, "task": job.task, "n_train": int(job.X.shape[0]),
        "n_test": int(job.X_test.shape[0]), "n_repeats": job.n_repeats, "seed": job.seed,
        "method": curve.method, "table": curve.table.to_dict(orient="list"), "fits": fits,
        "largest_forest": {"n_trees": int(curve.table["n_trees"].max()),
                           "phi": {"value": curve.final_phi.value, "observed": curve.final_phi.observed,
                                   "expected": curve.final_phi.expected},
                           "psi": {"value": curve.final_psi.value, "observed": curve.final_psi.observed,
                                   "expected": curve.final_psi.expected,
                                   "per_object": np.asarray(curve.final_psi.per_object, dtype=float)}},
        "recommendation": _headline(curve),
        "recommended_n": None if _chosen(curve) is None else _chosen(curve)[1],
        "recommendation_interval": {
            "measure": curve.optrf_measure, "recommended_n": curve.recommendations[curve.optrf_measure][0],
            "low": curve.interval[0], "high": curve.interval[1], "level": 0.95,
            "n_bootstrap": curve.n_bootstrap, "resampled": _resampled(curve)},
        "runtime": {
            "intercept_seconds": curve.runtime[0], "seconds_per_tree": curve.runtime[1],
            "recommended_seconds_per_forest": None if _chosen(curve) is None
            else curve.runtime[0] + curve.runtime[1] * _chosen(curve)[1]},
    }


def _figures(curve, job):
    from .plotting import plot_per_object, plot_stability_curve

    table = curve.table
    measures = ["phi", "psi", curve.optrf_measure]
    recommended = {m: curve.recommendations[m][0] for m in measures
                   if curve.recommendations[m][0] is not None and not curve.fits[m].poor_fit
                   and curve.fits[m].flattened}
    errors = {m: table[[f"{m}_low", f"{m}_high"]].to_numpy(float).T for m in measures
              if np.isfinite(table[f"{m}_low"]).all()}
    curve_fig = plot_stability_curve(
        table["n_trees"].to_numpy(float), {m: table[m].to_numpy(float) for m in measures}, errors=errors,
        fits={m: f for m, f in curve.fits.items() if f.converged}, recommended=recommended,
        title=f"Stability vs number of trees — {job.title.split(' (')[0]}")
    per_fig = plot_per_object(curve.final_psi, n_labelled=5,
                              title=f"psi per test object, {int(table['n_trees'].max())} trees "
                                    "(least stable labelled by row)")
    return curve_fig, per_fig


def run_job(job, *, out_dir, force=False, quiet=False, stdout=None, fresh=False, renamed_from=None):
    """Measure, print, write the four outputs; return the exit code (0)."""
    import sys

    from .cli import ProgressBar, dumps

    stdout = sys.stdout if stdout is None else stdout
    out_dir = Path(out_dir)
    if not fresh and not force:
        # fail before fitting anything, not after
        existing = [name for name in OUTPUTS if (out_dir / name).exists()]
        if existing:
            raise InputError(f"'{out_dir / existing[0]}' already exists; use --force to overwrite it "
                             "or --out to choose another directory")
    bar = ProgressBar("fitting forests", enabled=False if quiet else None)
    start = time.perf_counter()
    try:
        curve = compute_curve(job, progress=bar)
    finally:
        bar.close()
    elapsed = time.perf_counter() - start
    print(_report(curve, job, elapsed), file=stdout)
    if fresh:
        out_dir, renamed = fresh_directory(out_dir, force=force)
        if renamed:
            print(f"\n'{renamed_from or out_dir}' exists, so this run writes to '{out_dir}' "
                  "(nothing was overwritten; --force reuses the directory)", file=stdout)
    curve_fig, per_fig = _figures(curve, job)
    written = [
        write_text(out_dir / "stability.csv", curve.table.to_csv(index=False), force=force),
        write_text(out_dir / "stability.json", dumps(_summary(curve, job)), force=force),
        write_figure(out_dir / "stability.png", curve_fig, force=force),
        write_figure(out_dir / "per_object.png", per_fig, force=force),
    ]
    print(f"\nwrote {', '.join(str(p) for p in written)}", file=stdout)
    return 0


def run_demo(*, dataset="diabetes", out="predstab-demo", force=False, seed=0, n_jobs=None, quick=False,
             quiet=False, stdout=None):
    """``predstab demo``: the tree-count job on one of scikit-learn's bundled data sets."""
    X, y, task, levels, title = load_dataset(dataset)
    X_train, X_test, y_train, y_test = holdout(X, y, seed=seed)
    grid = [2, 5, 10, 25, 50] if quick else [2, 5, 10, 25, 50, 100, 250]
    job = TuneJob(task=task, X=X_train, y=y_train, X_test=X_test, y_test=y_test, grid=grid,
                  n_repeats=5 if quick else 10, method="pool", seed=seed,
                  n_jobs=-1 if n_jobs is None else n_jobs, levels=levels, title=title)
    return run_job(job, out_dir=Path(out), force=force, quiet=quiet, stdout=stdout, fresh=True,
                   renamed_from=out)
