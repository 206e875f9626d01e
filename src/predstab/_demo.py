"""The jobs behind ``predstab demo`` and ``predstab tune``: a surface over tune_num_learners.

Both build a random forest from the command line's options, call
:func:`predstab.tune_num_learners` once (φ with the training responses as baseline, ψ with
out-of-bag predictions as baseline, and optRF's prediction stability: ICC(1) for metric
predictions, Fleiss' κ for classes), print its :class:`~predstab.TuningResult` and write its
table (``stability.csv``), everything else it holds (``stability.json``) and two plots
(``stability.png``, ``per_object.png``). No number is computed here: every number printed or
written is a field of the result.
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

import numpy as np

from . import tune_num_learners
from ._core._exceptions import warn_outside
from ._core._gate import check_target_kind
from ._core._progress import ProgressBar
from ._core._reading import InputError, InputNote
from ._core._writing import (
    REPORT,
    check_output_dir,
    dumps,
    staged_output_dir,
    write_figure,
    write_report,
    write_text,
)
from .plotting import plot_per_object, plot_stability_curve

__all__ = ["TuneJob", "run_job", "run_demo", "load_dataset", "holdout", "forest", "tune_arguments", "compute"]

OUTPUTS = ("stability.csv", "stability.json", "stability.png", "per_object.png", REPORT)
_DATASETS = ("diabetes", "breast_cancer", "wine", "ordinal")
_LOADERS = {"diabetes": "load_diabetes", "breast_cancer": "load_breast_cancer", "wine": "load_wine",
            "ordinal": "load_diabetes"}
_METHODS = {"refit": "refit", "pool": "pool", "closed-form": "closed_form"}


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
    method: str = "pool"
    seed: int = 0
    n_jobs: int | None = None
    categories: list | None = None  # the target's categories in order (ordinal)
    title: str = ""
    voting: str = "hard"  # classes: ranger's majority vote, as optRF and tune_num_learners
    n_resamples: int = 100  # resamples for the bands and the recommendation's interval
    target: float = 0.95
    rec_thresh: float = 1e-6
    round_to: str = "thousand"
    max_features: object = "sqrt"
    min_samples_leaf: int | None = None  # None: ranger's 5 (regression) / 1 (classes)
    max_samples: float | None = None
    target_name: str = "target"  # the target column's name, for messages
    # the test objects' names as the user knows them (R's row names of the file, else their
    # 0-based row in it), and how to say so; None: the 0-based rows of X_test
    test_labels: list | None = None
    test_labels_are: str = "0-based row"


def load_dataset(name, *, seed=0):
    """``(X, y, task, categories, title)`` of one of scikit-learn's bundled data sets."""
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
        categories = ["Q1", "Q2", "Q3", "Q4"]
        cuts = np.quantile(y, [0.25, 0.5, 0.75])
        y = np.array(categories, dtype=object)[np.searchsorted(cuts, y, side="right")]
        return X, y, "ordinal", categories, "diabetes progression in quartiles Q1 < Q2 < Q3 < Q4 (ordinal)"
    raise InputError(f"--dataset must be one of {_DATASETS}; got {name!r}")


def holdout(X, y, *, seed=0, test_size=0.2, labels=None):
    """A seeded train/test split (stratified for classes): ``X_train, X_test, y_train, y_test``,
    and the test objects' entries of ``labels`` (one per row of ``X``) when given."""
    from sklearn.model_selection import train_test_split

    y = np.asarray(y)
    stratify = y if y.dtype.kind in "OUSb" else None
    if labels is None:
        return train_test_split(X, y, test_size=test_size, random_state=seed, stratify=stratify)
    X_train, X_test, y_train, y_test, _, labels_test = train_test_split(
        X, y, np.asarray(labels, dtype=object), test_size=test_size, random_state=seed, stratify=stratify)
    return X_train, X_test, y_train, y_test, [str(v) for v in labels_test]


def forest(task, *, max_features="sqrt", min_samples_leaf=None, max_samples=None):
    """A ranger-like forest: sqrt(p) features per split, ranger's leaf sizes (5 / 1) by default."""
    from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor

    if task == "regression":
        leaf = 5 if min_samples_leaf is None else min_samples_leaf
        return RandomForestRegressor(max_features=max_features, min_samples_leaf=leaf,
                                     max_samples=max_samples)
    if task in ("classification", "ordinal"):
        leaf = 1 if min_samples_leaf is None else min_samples_leaf
        return RandomForestClassifier(max_features=max_features, min_samples_leaf=leaf,
                                      max_samples=max_samples)
    raise InputError(f"--task must be regression, classification or ordinal; got {task!r}")


def _check_job(job):
    if job.task == "ordinal":
        if not job.categories:
            raise InputError("--task ordinal needs --categories (the target's categories in order)")
        seen = set(map(str, job.y))
        unknown = sorted(seen - set(map(str, job.categories)))
        if unknown:
            raise InputError(f"--categories {','.join(map(str, job.categories))} does not contain the "
                             f"target value(s) {', '.join(unknown[:5])}")
        job.y = np.array([str(v) for v in job.y], dtype=object)
        job.y_test = np.array([str(v) for v in job.y_test], dtype=object)
        job.categories = [str(v) for v in job.categories]
        if job.method == "closed-form":
            raise InputError("--method closed-form supports regression and classification; "
                             "use --method pool for an ordinal target")
    elif job.task == "classification":
        check_target_kind(job.y, "classification", name=job.target_name)
        job.y = np.asarray(job.y).astype(str).astype(object)
        job.y_test = np.asarray(job.y_test).astype(str).astype(object)
    elif job.task == "regression":
        check_target_kind(job.y, "regression", name=job.target_name)
        job.y = np.asarray(job.y, dtype=float)
        distinct = np.unique(job.y)
        if distinct.size == 2:  # 0/1 (or any two values): most likely classes given as numbers
            warn_outside(f"the target '{job.target_name}' holds only the two values "
                         f"{distinct[0]:g} and {distinct[1]:g}: --task regression (the default) fits a "
                         "regression forest to them and measures the stability of its numbers (ICC); "
                         "to treat them as classes (Fleiss' kappa of the predicted labels) add "
                         "--task classification", InputNote)
    else:
        raise InputError(f"--task must be regression, classification or ordinal; got {job.task!r}")
    if job.method not in _METHODS:
        raise InputError(f"--method must be one of {sorted(_METHODS)}; got {job.method!r}")
    if job.X.shape[0] < 10:
        raise InputError(f"need at least 10 training rows; got {job.X.shape[0]}")


def tune_arguments(job):
    """``(estimator, X, y, X_test, keyword arguments)`` of the one tune_num_learners call."""
    _check_job(job)
    estimator = forest(job.task, max_features=job.max_features, min_samples_leaf=job.min_samples_leaf,
                       max_samples=job.max_samples)
    primary = "icc" if job.task == "regression" else "fleiss"
    kwargs = {
        "grid": sorted(job.grid), "n_repeats": job.n_repeats, "measures": (primary, "phi", "psi"),
        "method": _METHODS[job.method], "voting": job.voting if job.task != "regression" else None,
        "scale": "ordinal" if job.task == "ordinal" else None, "categories": job.categories,
        "target": job.target, "rec_thresh": job.rec_thresh, "round_to": job.round_to,
        "n_resamples": job.n_resamples, "random_state": job.seed, "n_jobs": job.n_jobs,
    }
    # the pool: tune_num_learners' default (n_repeats forests of every grid value), one rule for both
    return estimator, job.X, job.y, job.X_test, kwargs


def compute(job, *, progress=None):
    """The job's :class:`~predstab.TuningResult`."""
    estimator, X, y, X_test, kwargs = tune_arguments(job)
    return tune_num_learners(estimator, X, y, X_test, progress=progress, **kwargs)


def _report(res, job, elapsed):
    """The text printed by demo and tune: the job, the largest forest's phi / psi, the result."""
    lines = [f"Data: {job.title}",
             f"  {job.X.shape[0]} training objects, {job.X_test.shape[0]} test objects, "
             f"{job.X.shape[1]} features; seed {job.seed}", ""]
    n_max = int(res.table["n_learners"].max())
    if res.largest_phi is not None or res.largest_psi is not None:
        lines.append(f"Prediction stability of the {n_max}-tree forests (APS):")
        for stab in (res.largest_phi, res.largest_psi):
            if stab is not None:
                # APS's block, indented, with one empty line before it (not a line of spaces)
                block = "\n".join(f"  {line}" if line.strip() else "" for line in str(stab).splitlines())
                lines += ["", block.strip("\n")]
        lines.append("")
    if res.largest_psi is not None:
        per = np.asarray(res.largest_psi.per_object, dtype=float)
        # the red bars of per_object.png, named as there (which prints only the names its bars have room for)
        order = np.argsort(np.where(np.isnan(per), np.inf, per), kind="stable")[:_N_LABELLED]
        names, how = _test_names(res, job)
        worst = ", ".join(f"{names[i]} (psi {per[i]:.3f})" for i in order
                          if np.isfinite(per[i]) and per[i] < 1)
        lines += [f"  least stable test objects (red in per_object.png), by {how}: "
                  f"{worst or 'none (every object has psi = 1)'}", ""]
    lines.append(str(res))
    lines.append(f"(finished in {elapsed:.1f} s)")
    return "\n".join(lines)


_N_LABELLED = 5  # least stable objects named in the report and marked in per_object.png


def _test_names(res, job):
    """``(names, how)``: the test objects' names and what they are, as the user knows them --
    ``job.test_labels`` (R's row names, or 0-based rows, of the file the test objects came
    from), else the psi result's row labels, else 0-based rows of the test objects."""
    n = len(res.largest_psi.per_object)
    if job.test_labels is not None and len(job.test_labels) == n:
        return [str(v) for v in job.test_labels], job.test_labels_are
    labels = getattr(res.largest_psi, "object_labels", None)
    if labels is not None and len(labels) == n:
        return [str(v) for v in labels], "row name"
    return [str(i) for i in range(n)], "0-based row"


def _summary(res, job):
    """stability.json: the job and everything the result holds (:meth:`TuningResult.to_dict`)."""
    summary = {"data": job.title, "task": job.task, "n_train": int(job.X.shape[0]),
               "n_test": int(job.X_test.shape[0]), "seed": job.seed}
    if job.test_labels is not None:
        # which object each entry of largest_forest's per_object is, as the report names them
        summary.update(test_objects=[str(v) for v in job.test_labels], test_objects_are=job.test_labels_are)
    return {**summary, **res.to_dict()}


def _figures(res, job):
    table = res.table
    # every measure's recommendation (as the printed table), unless its 2PL fit is poor; the
    # points, bands, fits and degenerate points come from the result as plot_stability_curve reads it
    recommended = {m: r.value for m, r in res.recommendations.items()
                   if r.value is not None and (r.rule == "already stable" or not res.fits[m].poor_fit)}
    # what the bars are: the bands' own words (the test objects resampled, or the learners only)
    bars = (f"\nbars: {res.confidence_level:.0%} bands, "
            + (res.interval_covers.split(":")[0] if res.method != "closed_form" else "learners only")
            if res.bands else "")
    curve_fig = plot_stability_curve(res, recommended=recommended,
                                     title=f"Stability vs number of trees — {job.title.split(' (')[0]}{bars}")
    per_fig = None
    if res.largest_psi is not None:
        per = np.asarray(res.largest_psi.per_object, dtype=float)
        unstable = int(np.sum(np.isfinite(per) & (per < 1)))  # objects at psi = 1 are not "least stable"
        names, how = _test_names(res, job)
        which = (f"least stable labelled by {how}" if unstable else
                 "every object at psi = 1: none is least stable")
        per_fig = plot_per_object(res.largest_psi, labels=names, n_labelled=min(_N_LABELLED, unstable),
                                  title=f"psi per test object, {int(table['n_learners'].max())} trees\n"
                                        f"({which})")  # two lines: the names' source can be long
    return curve_fig, per_fig


def reading(res) -> list:
    """How to read a tuning run (report.html): the curve, each measure's recommendation as its
    rule gave it, and what the recommendation's interval covers."""
    level = f"{100 * res.confidence_level:g}%"
    unit = res.unit  # "members" for a pool of members (networks, ...), else "learners"
    # the primary without a recommendation is told once, by the message below
    told = {m: line for m, line in res.explanations.items()
            if not (m == res.primary and res.recommendation is None and res.message)}
    out = [f"stability.png: each measure's stability (1 = identical predictions from refit to refit) "
           f"against the number of {unit}, with {level} bootstrap bands and the 2PL curve fitted to "
           "it as optRF fits it; the recommendation is marked where the fit is trusted.", *told.values()]
    if res.recommendation is not None:
        low, high = res.confidence_interval
        counted = unit[:-1] if res.recommendation == 1 else unit  # 1 member, 2 members
        if np.isfinite(low) and np.isfinite(high):
            interval = f"{level} interval {low:g} to {high:g} (what it covers: {res.interval_covers})"
        else:  # e.g. an already flat curve: the smallest grid value, no fitted value to resample
            rule = getattr(res.recommendations.get(res.primary), "rule", None)
            interval = ("no interval (the curve is already flat: the smallest grid value at the target, no "
                        "fitted value to resample)" if rule == "already stable" else
                        f"no interval (the {rule} rule gives no fitted value to resample)")
        out.append(f"Recommended: {res.recommendation} {counted} ({res.primary}); {interval}.")
    if res.message:
        out.append(res.message)
    return out


def _write_report(stage, res, job, text, context):
    """report.html of demo / tune, from the files already in ``stage``."""
    figures = [(caption, stage / name) for name, caption in (
        ("stability.png", "stability.png: stability against the number of trees"),
        ("per_object.png", "per_object.png: psi per test object of the largest forests"))
        if (stage / name).exists()]
    per_object = ["per_object.png: each test object's psi in the largest forests, least stable first; "
                  "an object far below 1 gets different predictions from forests that differ only in "
                  "their random seed."] if res.largest_psi is not None else []
    write_report(stage / REPORT, title=f"predstab: {job.title}", command=context.get("command", "predstab"),
                 text=text, results=[(res, False)], figures=figures, reading=reading(res) + per_object,
                 warnings=context.get("warnings", ()), files=[n for n in OUTPUTS if n != REPORT])


def run_job(job, *, out_dir, force=False, quiet=False, stdout=None, inputs=None, context=None):
    """Tune, write the outputs (with report.html), print; return the exit code (0).

    ``context``: ``{"command": the command line, "warnings": the list the run's warnings go
    to}``, for report.html.

    The output folder follows the one rule of :func:`predstab._core._writing.check_output_dir`, checked
    before anything is fitted (an existing empty folder is used; one that holds files is
    refused unless ``force``; none of the outputs' names may be a folder, a link, a device or
    one of ``inputs``). The outputs are written by :func:`predstab._core._writing.staged_output_dir`: all
    of them at once, or none (Ctrl-C, SIGTERM, a closed pipe, another run into the same folder).
    They are written before anything is printed, so ``predstab demo | head -1`` still writes them.
    """
    import sys

    stdout = sys.stdout if stdout is None else stdout
    out_dir = check_output_dir(Path(out_dir), force=force, names=OUTPUTS, inputs=inputs)
    bar = ProgressBar("fitting forests", enabled=False if quiet else None)
    start = time.perf_counter()
    try:
        res = compute(job, progress=bar)
    finally:
        bar.close()
    elapsed = time.perf_counter() - start
    report = _report(res, job, elapsed)
    curve_fig, per_fig = _figures(res, job)
    with staged_output_dir(out_dir, force=force, names=OUTPUTS, inputs=inputs) as stage:
        write_text(stage / "stability.csv", res.table.to_csv(index=False))
        write_text(stage / "stability.json", dumps(_summary(res, job)))
        write_figure(stage / "stability.png", curve_fig)
        if per_fig is not None:
            write_figure(stage / "per_object.png", per_fig)
        _write_report(stage, res, job, report, context or {})
        written = sorted(p.name for p in stage.iterdir())
    written = [out_dir / name for name in OUTPUTS if name in written]
    print(report, file=stdout)
    print(f"\nwrote {', '.join(str(p) for p in written)}", file=stdout)
    return 0


def run_demo(*, dataset="diabetes", out="predstab-demo", force=False, seed=0, n_jobs=None, quick=False,
             quiet=False, stdout=None, context=None, **options):
    """``predstab demo``: the tree-count job on one of scikit-learn's bundled data sets.

    ``options`` are further :class:`TuneJob` fields (``target``, ``rec_thresh``, ``round_to``,
    ``max_features``, ``min_samples_leaf``, ``max_samples``).
    """
    X, y, task, categories, title = load_dataset(dataset)
    X_train, X_test, y_train, y_test, rows = holdout(X, y, seed=seed, labels=np.arange(len(y)))
    grid = [2, 5, 10, 25, 50] if quick else [2, 5, 10, 25, 50, 100, 250]
    job = TuneJob(task=task, X=X_train, y=y_train, X_test=X_test, y_test=y_test, grid=grid,
                  n_repeats=5 if quick else 10, method="pool", seed=seed,
                  n_jobs=-1 if n_jobs is None else n_jobs, categories=categories, title=title,
                  test_labels=rows, test_labels_are=f"0-based row of {_LOADERS[dataset]}()", **options)
    return run_job(job, out_dir=Path(out), force=force, quiet=quiet, stdout=stdout, context=context)
