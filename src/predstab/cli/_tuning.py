"""``predstab demo`` and ``predstab tune``: one call of :func:`predstab.tune_num_learners` on a
random forest each (the job itself is :mod:`predstab._demo`), or, with ``tune --predictions``, on
the pool of a saved matrix of any ensemble's member predictions
(:meth:`predstab.TreePool.from_predictions`)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .. import TreePool, _demo, tune_num_learners
from .._core._gate import check_target_kind
from .._core._reading import (
    InputError,
    cell_location,
    column,
    common_labels,
    label_matrix,
    numeric_matrix,
    parse_list,
    read_table,
)
from .._core._writing import (
    REPORT,
    check_output_dir,
    dumps,
    staged_output_dir,
    write_figure,
    write_report,
    write_text,
)
from ..plotting import plot_stability_curve
from ._inputs import categories_option, in_cli_words, reading, report_context, reword
from ._options import (
    Command,
    add_categories_option,
    add_reading_options,
    fraction,
    max_features,
    n_jobs,
    non_negative_int,
    positive_float,
    positive_int,
    probability,
)

__all__ = ["COMMANDS"]

# ----------------------------------------------------------------------------- options of both
def _fitting_options(p, out_default):
    p.add_argument("--seed", type=non_negative_int, default=0, help="random seed of the refits (default 0)")
    p.add_argument("--jobs", type=n_jobs, default=None, metavar="N",
                   help="parallel jobs of the forests' fits (joblib's n_jobs; -1: every core); not "
                        "with --predictions, where nothing is fitted")
    p.add_argument("--out", default=out_default, metavar="DIR", help=f"output folder (default {out_default})")
    p.add_argument("--force", action="store_true",
                   help="write into an output folder that holds files (files of the same names are replaced)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def _forest_and_rule_options(p):
    forest = p.add_argument_group("forest (scikit-learn's RandomForest*; ranger's names in brackets)")
    forest.add_argument("--max-features", type=max_features, default="sqrt", metavar="M",
                        help="features tried per split (mtry): sqrt (default), log2, all, a count "
                             "or a fraction in (0, 1]")
    forest.add_argument("--min-samples-leaf", type=positive_int, default=None, metavar="N",
                        help="smallest leaf (min_samples_leaf; ranger's min.node.size is "
                             "min_samples_split = min.node.size + 1); default 5 for regression, "
                             "1 for classes")
    forest.add_argument("--sample-fraction", type=fraction, default=None, metavar="F",
                        help="bootstrap sample per tree as a fraction of the rows (sample.fraction, "
                             "max_samples); default 1")
    rec = p.add_argument_group("recommendation")
    rec.add_argument("--target-stability", type=probability, default=0.95, metavar="S",
                     help="stability for 'n for target' (tune_num_learners' target; default 0.95)")
    rec.add_argument("--rec-thresh", type=positive_float, default=1e-6, metavar="G",
                     help="optRF's rule: gain in stability per added tree below which the curve "
                          "counts as flat (default 1e-6)")
    rec.add_argument("--round-to", choices=("thousand", "hundred", "ten", "none"), default="thousand",
                     help="rounding of optRF's recommendation (default thousand, as optRF)")


def _rule_options(args):
    """The recommendation rule's options (tune_num_learners' names)."""
    return {"target": args.target_stability, "rec_thresh": args.rec_thresh, "round_to": args.round_to}


def _tuning_options(args):
    """The TuneJob fields shared by demo and tune: the forest and the recommendation rule."""
    return {**_rule_options(args), "max_features": args.max_features,
            "min_samples_leaf": args.min_samples_leaf, "max_samples": args.sample_fraction}


def _grid_option(args):
    """``--grid`` as a sorted list of at least 3 distinct positive integers."""
    grid = parse_list(args.grid, option="--grid", convert=int)
    if any(g < 1 for g in grid) or len(set(grid)) != len(grid) or len(grid) < 3:
        raise InputError(f"--grid must hold at least 3 distinct positive integers; got {args.grid!r}")
    return sorted(grid)


# ----------------------------------------------------------------------------- demo
_DEMO_EXAMPLE = """\
example:
  predstab demo                      # diabetes regression, writes predstab-demo/
  predstab demo --dataset wine --out wine-demo --seed 3
  predstab demo --quick --quiet      # smaller grid, no progress bar

The demo calls predstab.tune_num_learners on a random forest and prints its result: phi
(training responses as baseline), psi (out-of-bag predictions of one forest of the largest
grid value as baseline) and ICC(1) / Fleiss' kappa per number of trees, each measure's 2PL
fit and recommendation (optRF 1.2.1's rule: the first n whose fitted gain per added tree is
below --rec-thresh, rounded to --round-to, at least 500; and the trees for
--target-stability). It writes stability.csv (the result's table), stability.json
(everything the result holds), stability.png and per_object.png. An existing output folder
that holds files is never touched: the run stops before fitting and names a free folder to
use instead (predstab-demo-2, ...), unless --force is given; an existing empty folder is used.
"""


def _define_demo(p):
    p.add_argument("--dataset", choices=("diabetes", "breast_cancer", "wine", "ordinal"), default="diabetes",
                   help="diabetes (metric), breast_cancer (2 classes), wine (3 classes), "
                        "ordinal (diabetes target in quartiles); default diabetes")
    p.add_argument("--quick", action="store_true", help="smaller grid and fewer refits")
    _fitting_options(p, "predstab-demo")
    _forest_and_rule_options(p)


def _run_demo(args, out):
    return _demo.run_demo(dataset=args.dataset, out=args.out, force=args.force, seed=args.seed,
                          n_jobs=args.jobs, quick=args.quick, quiet=args.quiet, stdout=out,
                          context=report_context(args), **_tuning_options(args))


# ----------------------------------------------------------------------------- tune
_TUNE_EXAMPLE = """\
example:
  predstab tune train.csv --target yield --test-data test.csv --grid 50,100,200,400 \\
      --repeats 10 --jobs 2 --seed 1 --out tuned/
  predstab tune train.csv --target yield --max-features 0.33 --min-samples-leaf 5 \\
      --sample-fraction 0.632 --round-to hundred --target-stability 0.99
  predstab tune grades.csv --target grade --task ordinal --categories low,mid,high

  predstab tune --predictions members.csv --out members/      # any ensemble's members
  predstab tune --predictions votes.csv --task classification --grid 1,2,5,10,25

Calls predstab.tune_num_learners on a random forest (regression, or classification / ordinal
with --task; --max-features and --sample-fraction set the forest as ranger's mtry and
sample.fraction do, --min-samples-leaf its smallest leaf, stricter than ranger's min.node.size,
which is scikit-learn's min_samples_split = min.node.size + 1) and prints its result: phi, psi
and ICC(1) / Fleiss' kappa per number of trees with bootstrap bands, each measure's 2PL fit
and recommendation (optRF 1.2.1's rule: the first n whose fitted gain per added tree is
below --rec-thresh, rounded to --round-to, at least 500; the unrounded value and its
bootstrap interval over --resamples resamples; the trees for --target-stability), flags a
recommendation beyond the grid and the run-time model (seconds per forest = intercept +
slope * trees). Writes stability.csv, stability.json, stability.png and per_object.png to
--out (refusing to overwrite without --force). Without --test-data, a random 20% of DATA is
held out. Feature columns must be numeric (encode categories first).

With --predictions FILE (instead of DATA and --target), FILE is a saved matrix of member
predictions, objects in rows and members in columns (a header row, as pandas' to_csv and R's
write.csv write it; R's row names name the objects): numbers (--task regression, the default)
or class labels (--task classification), e.g. the networks of a deep ensemble with different
seeds, or any ensemble whose members are independent draws (not snapshots of one training
run). predstab.TreePool.from_predictions builds the pool of members and tune_num_learners
gives the member curve in closed form (--method closed-form, the default here; or pool),
its 2PL fit and recommendation: the smallest number of members whose fitted stability
reaches --target-stability (the members' rule; --rec-thresh and --round-to, optRF's rule for
cheap trees, are not used). With --observed FILE (the observed responses of the objects the
members trained on, one column or the one --target names), phi is added: stability against
the spread of the responses (the members' out-of-bag predictions for psi: the Python API,
TreePool.from_predictions(oob=...)). The grid defaults to up to a quarter of the members.
Writes stability.csv, stability.json and stability.png (the curve with its fit).
"""


def _define_tune(p):
    p.add_argument("data", metavar="DATA", nargs="?", default=None,
                   help="CSV or Parquet with the features and the target (or --predictions)")
    p.add_argument("--target", metavar="COL", help="name of the target column (required with DATA)")
    p.add_argument("--predictions", metavar="FILE",
                   help="CSV or Parquet of member predictions, objects x members, instead of DATA: the "
                        "member curve of any ensemble (see below)")
    p.add_argument("--observed", metavar="FILE",
                   help="with --predictions: CSV or Parquet of the observed responses of the training "
                        "objects (one column, or the one --target names): adds phi, whose baseline "
                        "they are")
    p.add_argument("--transpose", action="store_true",
                   help="with --predictions: FILE has members in rows and objects in columns")
    p.add_argument("--task", choices=("regression", "classification", "ordinal"), default="regression",
                   help="default regression")
    add_categories_option(p, "the target's categories in order, for --task ordinal")
    p.add_argument("--test-data", metavar="FILE",
                   help="CSV or Parquet of test objects, the columns of DATA (default: 20%% of DATA)")
    p.add_argument("--grid", default="50,100,200,400", metavar="N1,N2,...",
                   help="numbers of trees (default 50,100,200,400, small enough for a first look "
                        "at the command line; the Python API's tune_num_learners defaults to optRF's "
                        "250,500,750,1000,2000); with --predictions: up to a quarter of the members")
    p.add_argument("--repeats", type=int, default=10, metavar="R",
                   help="forests per grid value (n_repeats; default 10)")
    p.add_argument("--resamples", type=non_negative_int, default=100, metavar="B",
                   help="bootstrap resamples for the bands and the recommendation's interval "
                        "(n_resamples; default 100; 0: none)")
    p.add_argument("--voting", choices=("hard", "soft"), default="hard",
                   help="classes: hard = majority vote of the trees (ranger, optRF; default), "
                        "soft = mean probability (scikit-learn's predict)")
    p.add_argument("--method", choices=("pool", "refit", "closed-form"), default=None,
                   help="pool: one pool of trees split into disjoint forests; refit: fit every "
                        "forest; closed-form: expected curves from the pool's per-tree predictions "
                        "with bootstrap bands, not for ordinal targets (default pool; with "
                        "--predictions closed-form)")
    _fitting_options(p, "predstab-tune")
    _forest_and_rule_options(p)
    add_reading_options(p)


def _read_xy(path, target, *, what, header=None, sep=None, dec=None):
    frame = read_table(path, what=what, header=header, sep=sep, dec=dec)
    y = column(frame, target, what=what)
    features = frame.drop(columns=[target])
    if features.shape[1] == 0:
        raise InputError(f"{what} '{path}' has no feature columns besides the target '{target}'")
    X = numeric_matrix(features, what=what, allow_missing=False)
    if y.isna().any():
        i = int(np.flatnonzero(y.isna().to_numpy())[0])
        raise InputError(f"{what} {cell_location(frame, i)}: target column '{target}' has a missing value")
    return X, y, list(features.columns), _object_names(frame.index, what=what)


def _object_names(index, *, what):
    """The objects of a DATA / --test-data file as the user knows them (R's row names, else
    their 0-based rows), and how to say so."""
    import pandas as pd

    if isinstance(index, pd.RangeIndex):
        return [str(i) for i in range(len(index))], f"0-based row of {what}"
    return [str(v) for v in index], f"row name in {what}"


def _run_tune(args, out):
    if args.predictions is not None:
        return _run_members(args, out)
    if args.observed is not None:
        raise InputError("--observed goes with --predictions (DATA holds its own target, named by --target)")
    if args.transpose:
        raise InputError("--transpose goes with --predictions (DATA has its objects in rows, its features "
                         "and target in columns)")
    if args.data is None or args.target is None:
        raise InputError("tune needs DATA and --target (a random forest is fitted), or --predictions FILE "
                         "(a saved objects x members matrix)")
    X, y, names, (rows, rows_are) = _read_xy(args.data, args.target, what="DATA",
                                              **reading(args, args.data))
    if args.test_data is not None:
        X_test, y_test, test_names, (rows, rows_are) = _read_xy(
            args.test_data, args.target, what="--test-data", **reading(args, args.test_data))
        if test_names != names:
            raise InputError(f"--test-data '{args.test_data}' must have the same columns as DATA "
                             f"'{args.data}'")
    else:
        # the held-out objects keep DATA's row names (or rows): "13" must mean row 13 of the file
        X, X_test, y, y_test, rows = _demo.holdout(X, y.to_numpy(), seed=args.seed, labels=rows)
    grid = _grid_option(args)
    if args.repeats < 2:
        raise InputError(f"--repeats must be at least 2; got {args.repeats}")
    job = _demo.TuneJob(task=args.task, X=X, y=np.asarray(y), X_test=X_test, y_test=np.asarray(y_test),
                        grid=grid, n_repeats=args.repeats, method=args.method or "pool",
                        seed=args.seed, n_jobs=args.jobs, categories=categories_option(args),
                        title=f"{Path(args.data).name}: {args.target}", voting=args.voting,
                        n_resamples=args.resamples, target_name=str(args.target), test_labels=rows,
                        test_labels_are=rows_are, **_tuning_options(args))
    return _demo.run_job(job, out_dir=Path(args.out), force=args.force, quiet=args.quiet, stdout=out,
                         inputs={"DATA": args.data, "--test-data": args.test_data},
                         context=report_context(args))


# ----------------------------------------------------------------------------- tune --predictions
_MEMBER_OUTPUTS = ("stability.csv", "stability.json", "stability.png", REPORT)


def _member_options(args):
    """tune_num_learners' options of ``tune --predictions``: the grid (default: the library's, up
    to a quarter of the members), the method (closed form unless --method pool) and the rule."""
    defaults = args.option_defaults
    if args.data is not None:
        raise InputError("give DATA (with --target) or --predictions, not both")
    if args.task == "ordinal":
        raise InputError("--predictions reads numbers (--task regression) or class labels (--task "
                         "classification); an ordinal target has no member closed form")
    if args.method == "refit":
        raise InputError("--method refit fits forests; --predictions takes closed-form (its default) or pool")
    if args.target is not None and args.observed is None:
        raise InputError("--target names a column of DATA, or with --predictions of --observed; "
                         "--predictions without --observed has no target")
    if args.test_data is not None:
        raise InputError("--test-data goes with DATA (the forest fitted on DATA predicts it); with "
                         "--predictions the members' predictions of the test objects are the file itself")
    if args.jobs is not None:
        raise InputError("--jobs is not used with --predictions: nothing is fitted (--jobs runs the "
                         "forests of DATA in parallel)")
    grid = _grid_option(args) if args.grid != defaults.get("grid") else None
    return {"grid": grid, "method": "pool" if args.method == "pool" else "closed_form",
            "n_resamples": args.resamples, "random_state": args.seed, "n_jobs": args.jobs,
            **_rule_options(args)}


def _observed(args):
    """The observed training responses of ``--observed`` (phi's baseline): the file's one column,
    or the one ``--target`` names; numbers for regression, labels for classes."""
    frame = read_table(args.observed, what="--observed", **reading(args, args.observed))
    if args.target is not None:
        frame = column(frame, args.target, what="--observed").to_frame()
    elif frame.shape[1] != 1:
        raise InputError(f"--observed '{args.observed}' has {frame.shape[1]} columns "
                         f"({', '.join(map(str, frame.columns))}); name the responses' column with --target")
    if frame.shape[0] < 2:
        raise InputError(f"--observed '{args.observed}' holds {frame.shape[0]} response; phi's baseline "
                         "needs at least 2 (the observed responses of the objects the members trained on)")
    if args.task == "regression":
        return numeric_matrix(frame, what="--observed", allow_missing=False)[:, 0]
    labels = label_matrix(frame)[:, 0]
    check_target_kind(labels, args.task, subject=f"--observed '{args.observed}'")
    missing = [i for i, v in enumerate(labels) if v is None]
    if missing:
        raise InputError(f"--observed {cell_location(frame, missing[0])}: a missing response")
    return labels


def _member_words(args) -> dict:
    """What the user typed for each parameter of TreePool.from_predictions / tune_num_learners
    (:func:`~predstab.cli._inputs.reword`)."""
    return {"method='closed_form'": "--method closed-form",  # the option's value is spelled with a hyphen
            "predictions": f"--predictions '{args.predictions}'", "y": f"--observed '{args.observed}'",
            "random_state": "--seed", "grid": "--grid", "n_resamples": "--resamples", "method": "--method",
            "target": "--target-stability", "rec_thresh": "--rec-thresh", "round_to": "--round-to"}


# the API's options that `predstab tune` has not, quoted in the result's text: left out here
_NOT_CLI_OPTIONS = {"; optRF's rule, made for trees, is rule='optRF')": "; optRF's rule is made for trees)",
                    '(interval="learners+objects"; the bands resample': "(the bands resample"}


def _run_members(args, out):
    """``predstab tune --predictions FILE``: the pool of the saved members, tuned; print, write."""
    options = _member_options(args)
    path = args.predictions
    frame = read_table(path, what="--predictions", **reading(args, path))
    values = (numeric_matrix(frame, what="--predictions", allow_missing=False) if args.task == "regression"
              else label_matrix(frame))
    if args.transpose:
        values = values.T
    if args.task == "classification":  # numbers of a regression read as labels: one class per cell
        check_target_kind(values, args.task, subject=f"--predictions '{path}'", unit="cells")
    observed = None if args.observed is None else _observed(args)
    if observed is not None and args.task == "classification":  # (ordinal is refused above)
        values, observed = common_labels(values, observed)
    inputs = {"--predictions": path, "--observed": args.observed}
    out_dir = check_output_dir(Path(args.out), force=args.force, names=_MEMBER_OUTPUTS, inputs=inputs)
    # the library's messages name the files and options the user typed (the gate's own say how to
    # turn the file)
    with in_cli_words(transposable=["predictions"], **_member_words(args)):
        pool = TreePool.from_predictions(values, random_state=args.seed, y=observed)
        res = tune_num_learners(pool, **options)
    n_objects, n_members = values.shape
    summary = {"predictions": str(path), "observed": args.observed, "task": args.task, "n_objects": n_objects,
               "n_members": n_members, "seed": args.seed, **res.to_dict()}
    text = (f"Member predictions: {Path(path).name}\n  {n_objects} objects, {n_members} members "
            f"({'values' if args.task == 'regression' else 'class labels'}); seed {args.seed}\n\n"
            f"{reword(str(res), _NOT_CLI_OPTIONS)}")
    context = report_context(args)
    with staged_output_dir(out_dir, force=args.force, names=_MEMBER_OUTPUTS, inputs=inputs) as stage:
        write_text(stage / "stability.csv", res.table.to_csv(index=False))
        write_text(stage / "stability.json", dumps(summary))
        # the curve, its bands and 2PL fit, the recommendation (the target rule's for members)
        bars = (f"\nbars: {res.confidence_level:.0%} bands, members only (these objects, this training set)"
                if args.resamples else "")
        write_figure(stage / "stability.png", plot_stability_curve(
            res, xlabel="members in the ensemble",
            title=f"Stability vs number of members: {Path(path).name}{bars}"))
        write_report(stage / REPORT, title=f"predstab tune --predictions {Path(path).name}",
                     command=context["command"], text=text, results=[(pool, False), (res, False)],
                     figures=[("stability.png: stability against the number of members",
                               stage / "stability.png")],
                     reading=_demo.reading(res), warnings=context["warnings"], files=_MEMBER_OUTPUTS[:-1])
    print(text, file=out)
    print(f"\nwrote {', '.join(str(out_dir / name) for name in _MEMBER_OUTPUTS)}", file=out)
    return 0


COMMANDS = (
    Command("demo", "Run the main job on scikit-learn's bundled data (phi, psi, tree count).",
            _DEMO_EXAMPLE, _define_demo, _run_demo),
    Command("tune", "Stability versus number of trees of a random forest, with optRF's 2PL "
                    "recommendation.", _TUNE_EXAMPLE, _define_tune, _run_tune),
)
