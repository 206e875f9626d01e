"""The ``predstab`` command line: ``demo``, ``tune``, ``stability``, ``agree``, ``compare``,
``power``.

Every command is a thin layer over the library: it reads files, calls one public function,
prints the result and writes outputs atomically (never replacing a file without
``--force``). Every input problem is reported as one line on stderr with exit code 2;
``--help`` on each command ends with a worked example.

Examples
--------
>>> main(["--version"])  # doctest: +ELLIPSIS
predstab ...
0
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import warnings
from pathlib import Path

import numpy as np

from ._core._io import (
    COMMITTED,
    InputError,
    InputNote,
    ProgressBar,
    cell_location,
    check_orientation,
    check_output_file,
    column,
    common_labels,
    dumps,
    label_matrix,
    numeric_matrix,
    parse_list,
    read_table,
    signals_as_interrupts,
    unique_columns,
    write_figure,
    write_text,
)

__all__ = ["main", "ProgressBar", "dumps"]  # ProgressBar and dumps live in _io

EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, what the shell reports for `yes | head`


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr (exit code 2), not usage + error."""

    def error(self, message):
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _formatter(prog):
    return argparse.RawDescriptionHelpFormatter(prog, max_help_position=32)


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
(everything the result holds), stability.png and per_object.png. An existing output
directory that holds files is never touched: the run stops before fitting and names a free
folder to use instead (predstab-demo-2, ...), unless --force is given; an existing empty
folder is used.
"""


def _tuning_options(args):
    """The TuneJob fields shared by demo and tune: the forest and the recommendation rule."""
    return {"target": args.target_stability, "rec_thresh": args.rec_thresh, "round_to": args.round_to,
            "max_features": args.max_features, "min_samples_leaf": args.min_samples_leaf,
            "max_samples": args.sample_fraction}


def _cmd_demo(args, out):
    from . import _demo

    return _demo.run_demo(dataset=args.dataset, out=args.out, force=args.force, seed=args.seed,
                          n_jobs=args.jobs, quick=args.quick, quiet=args.quiet, stdout=out,
                          **_tuning_options(args))


# ----------------------------------------------------------------------------- tune
_TUNE_EXAMPLE = """\
example:
  predstab tune train.csv --target yield --test test.csv --grid 50,100,200,400 \\
      --repeats 10 --jobs 2 --seed 1 --out tuned/
  predstab tune train.csv --target yield --max-features 0.33 --min-samples-leaf 5 \\
      --sample-fraction 0.632 --round-to hundred --target-stability 0.99

Calls predstab.tune_num_learners on a random forest (regression, or classification / ordinal
with --task; --max-features and --sample-fraction set the forest as ranger's mtry and
sample.fraction do, --min-samples-leaf its smallest leaf, stricter than ranger's min.node.size,
which is scikit-learn's min_samples_split = min.node.size + 1) and prints its result: phi, psi and
ICC(1) / Fleiss' kappa per number of trees with bootstrap bands, each measure's 2PL fit and
recommendation (optRF 1.2.1's rule: the first n whose fitted gain per added tree is below
--rec-thresh, rounded to --round-to, at least 500; the unrounded value and its bootstrap
interval over --bootstrap resamples; the trees for --target-stability), flags a
recommendation beyond the grid and the run-time model (seconds per forest = intercept +
slope * trees). Writes stability.csv, stability.json, stability.png and per_object.png to
--out (refusing to overwrite without --force). Without --test, a random 20% of DATA is held
out. Feature columns must be numeric (encode categories first).
"""


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
    """The objects of a DATA / --test file as the user knows them (R's row names, else their
    0-based rows), and how to say so."""
    import pandas as pd

    if isinstance(index, pd.RangeIndex):
        return [str(i) for i in range(len(index))], f"0-based row of {what}"
    return [str(v) for v in index], f"row name in {what}"


def _cmd_tune(args, out):
    from . import _demo

    X, y, names, (rows, rows_are) = _read_xy(args.data, args.target, what="DATA", **_reading(args))
    if args.test is not None:
        X_test, y_test, test_names, (rows, rows_are) = _read_xy(args.test, args.target, what="--test",
                                                                **_reading(args))
        if test_names != names:
            raise InputError(f"--test '{args.test}' must have the same columns as DATA '{args.data}'")
    else:
        # the held-out objects keep DATA's row names (or rows): "13" must mean row 13 of the file
        X, X_test, y, y_test, rows = _demo.holdout(X, y.to_numpy(), seed=args.seed, labels=rows)
    grid = parse_list(args.grid, option="--grid", convert=int)
    if any(g < 1 for g in grid) or len(set(grid)) != len(grid) or len(grid) < 3:
        raise InputError(f"--grid must hold at least 3 distinct positive integers; got {args.grid!r}")
    if args.repeats < 2:
        raise InputError(f"--repeats must be at least 2; got {args.repeats}")
    y_arr = np.asarray(y)
    levels = parse_list(args.levels, option="--levels") if args.levels else None
    job = _demo.TuneJob(task=args.task, X=X, y=y_arr, X_test=X_test, y_test=np.asarray(y_test),
                        grid=sorted(grid), n_repeats=args.repeats, method=args.method, seed=args.seed,
                        n_jobs=args.jobs, levels=levels, title=f"{Path(args.data).name}: {args.target}",
                        voting=args.voting, n_resamples=args.bootstrap, target_name=str(args.target),
                        test_labels=rows, test_labels_are=rows_are,
                        **_tuning_options(args))
    return _demo.run_job(job, out_dir=Path(args.out), force=args.force, quiet=args.quiet, stdout=out,
                         inputs={"DATA": args.data, "--test": args.test})


# ----------------------------------------------------------------------------- stability
_STABILITY_EXAMPLE = """\
example:
  # a prediction matrix exported from R with write.csv(pred, "pred.csv", row.names = FALSE)
  predstab stability pred.csv --training-observations y_train.csv --scale metric
  predstab stability pred.csv --prediction-space oob.csv --scale ordinal --levels low,mid,high
  predstab stability pred.csv --training-observations y_train.csv --scale categorical \\
      --per-object --out per_object.csv

PREDICTIONS has one row per test object and one column per refit. With
--training-observations (one column, or the column named by --column) it prints APS's phi;
with --prediction-space (out-of-sample predictions of the training objects: one column, or a
matrix that is pooled) APS's psi. --per-object lists every object's stability, least stable
first: the single-forecast check.
"""


def _read_values(path, *, what, scale, col=None, header=None, sep=None, dec=None, transpose=False,
                 with_labels=False, one_column=False):
    """The values of a file as an array (objects in rows); with ``with_labels`` also the
    objects' labels: the file's row names (R's ``write.csv``), or 0-based row positions.
    ``one_column``: the file should hold one column (or ``col`` names it); two unnamed columns
    are refused (see :func:`_refuse_two_unnamed`)."""
    import pandas as pd

    frame = read_table(path, what=what, header=header, sep=sep, dec=dec)
    if col is not None:
        frame = column(frame, col, what=what).to_frame()
    elif one_column:
        _refuse_two_unnamed(frame, path, what)
    if scale == "metric":
        values = numeric_matrix(frame, what=what)
    else:
        values = label_matrix(frame)
    labels = frame.columns if transpose else frame.index
    if isinstance(labels, pd.RangeIndex) or (transpose and not _named(frame.columns)):
        labels = np.arange(len(labels))
    values = values.T if transpose else values
    return (values, np.asarray(labels)) if with_labels else values


def _refuse_two_unnamed(frame, path, what):
    """Where one column is expected, a headerless file of two columns is refused: every line
    ``d,d`` is far more often one column of decimal commas (``1,5``, which pandas and a comma
    separator read as 1 and 5) than two columns of responses, so neither guess is made."""
    if frame.shape[1] != 2 or _named(frame.columns) or "lines" not in frame.attrs:
        return
    line = int(frame.attrs["lines"][0])
    with open(path, encoding="utf-8-sig", errors="replace") as handle:
        text = next((raw for n, raw in enumerate(handle, 1) if n == line), "").strip()
    shown = text if len(text) <= 40 else text[:37] + "..."
    raise InputError(f"{what} file '{path}', line {line}: two columns without names ('{shown}') where one "
                     "column is expected; decimal commas (1,5)? Read the files with --sep ';' --dec ',' "
                     "(R's read.csv2); or name the column to use with --column V1 or --column V2")


def _named(columns) -> bool:
    """False for the V1..Vk names given to the columns of a headerless file."""
    return list(map(str, columns)) != [f"V{j + 1}" for j in range(len(columns))]


def _warn_ignored(args, selector, used_by):
    """Warn about options given (not at their default) that the chosen ``selector`` ignores.

    ``used_by`` maps an option's dest to the selector values that use it; the defaults are the
    parser's (``args.option_defaults``)."""
    chosen = getattr(args, selector)
    for dest, users in used_by.items():
        if chosen in users:
            continue
        if getattr(args, dest, None) != args.option_defaults.get(dest):
            flag = "--" + dest.replace("_", "-")
            warnings.warn(f"{flag} is only used with --{selector} {' / '.join(users)}; it is ignored with "
                          f"--{selector} {chosen}", UserWarning, stacklevel=2)


def _cmd_stability(args, out):
    import predstab

    if args.out:
        check_output_file(args.out, force=args.force,
                          inputs={"PREDICTIONS": args.predictions,
                                  "--training-observations": args.training_observations,
                                  "--prediction-space": args.prediction_space})
    pred, labels = _read_values(args.predictions, what="PREDICTIONS", scale=args.scale, **_reading(args),
                                transpose=args.transpose, with_labels=True)
    if not args.transpose:
        check_orientation(pred, what=f"PREDICTIONS '{args.predictions}'")
    if args.training_observations is not None:
        base = _read_values(args.training_observations, what="--training-observations",
                            scale=args.scale, col=args.column, one_column=True, **_reading(args))
        if base.shape[1] > 1:
            warnings.warn(f"--training-observations '{args.training_observations}' has {base.shape[1]} "
                          "columns; it should be one column of training responses. All "
                          f"{base.size} values are pooled as one sample; choose one column with "
                          "--column COL", UserWarning, stacklevel=1)
        func = predstab.phi
    else:
        base = _read_values(args.prediction_space, what="--prediction-space", scale=args.scale,
                            col=args.column, one_column=True, **_reading(args))
        func = predstab.psi
    if base.shape[1] == 1:
        base = base[:, 0]
    if args.scale != "metric":
        pred, base = _common_types(pred, base, args)
    levels = parse_list(args.levels, option="--levels") if args.levels else None
    if levels is not None and args.scale != "ordinal":
        raise InputError(f"--levels is only used with --scale ordinal; got --scale {args.scale}")
    if args.scale == "ordinal" and levels is None:
        raise InputError("--scale ordinal needs --levels (the categories in order, "
                         "e.g. --levels low,mid,high)")
    if levels is not None:
        levels = _as_data_type(levels, pred)
    result = func(pred, base, scale=args.scale, categories=levels)
    print(str(result), file=out)
    table = None
    if args.per_object or args.out:
        # the result's own per-object table (stability, its interval, observed instability,
        # predictions), objects numbered as everywhere in predstab: the input's row labels, else
        # the 0-based row position; NaN (undefined) objects first, then least stable first
        table = result.per_object_frame(sort=False).reset_index(drop=True)
        table.insert(0, "object", labels)
        table = table.sort_values("stability", kind="stable", na_position="first").reset_index(drop=True)
    if args.per_object:
        positions = labels.dtype.kind in "iu" and np.array_equal(labels, np.arange(len(labels)))
        where = "0-based row position" if positions else "row name"
        print(f"\nper object, least stable first (object = {where} in PREDICTIONS; ci_low / ci_high: "
              f"{100 * result.confidence_level:g}% interval of each object's stability):", file=out)
        print(table.to_string(index=False, float_format=lambda v: f"{v:.5g}"), file=out)
    if args.out:
        written = write_text(args.out, table.to_csv(index=False), force=args.force)
        print(f"\nwrote {written}", file=out)
    return 0


def _common_types(pred, base, args):
    """Labels read from files: numbers stay numbers only when both files hold numbers; else both
    are text, numbers in their shortest form (1, not 1.0)."""
    return common_labels(pred, base)


def _as_data_type(levels, pred):
    flat = [v for v in pred.ravel() if v is not None]
    if flat and all(isinstance(v, (int, np.integer)) for v in flat):
        return parse_list(",".join(levels), option="--levels", convert=int)
    if flat and all(isinstance(v, (float, np.floating, int, np.integer)) for v in flat):
        return parse_list(",".join(levels), option="--levels", convert=float)
    return levels


# ----------------------------------------------------------------------------- agree
_AGREE_EXAMPLE = """\
example:
  predstab agree ratings.csv --measure icc --model twoway --type agreement --unit single
  predstab agree ratings.csv --measure icc --table          # psych::ICC's six forms
  predstab agree ratings.csv --measure fleiss --detail
  predstab agree ratings.csv --measure alpha --level ordinal --levels low,mid,high

RATINGS has one row per object and one column per rater (or refit), like irr's matrices.
"""


def _cmd_agree(args, out):
    import pandas as pd

    import predstab

    _warn_ignored(args, "measure", {"model": ("icc",), "type": ("icc",), "unit": ("icc",), "table": ("icc",),
                                    "confidence_level": ("icc",), "exact": ("fleiss",), "detail": ("fleiss",),
                                    "level": ("alpha",), "levels": ("alpha",)})
    frame = read_table(args.ratings, what="RATINGS", **_reading(args))
    if args.transpose:
        frame = frame.T
    elif frame.shape[1] >= 3 * frame.shape[0]:
        numbers = all(pd.api.types.is_numeric_dtype(dtype) for dtype in frame.dtypes)
        matrix = frame.to_numpy(dtype=float) if numbers else label_matrix(frame)
        check_orientation(matrix, what=f"RATINGS '{args.ratings}'")
    if args.measure == "icc":
        ratings = numeric_matrix(frame, what="RATINGS")
        if args.table:
            print(predstab.icc_table(ratings, confidence_level=args.confidence_level).to_string(), file=out)
            return 0
        result = predstab.icc(ratings, model=args.model, type=args.type, unit=args.unit,
                              confidence_level=args.confidence_level)
    elif args.measure == "fleiss":
        ratings = label_matrix(frame)
        with _beyond_reach(f"--measure fleiss on RATINGS '{args.ratings}' ({ratings.shape[0]} x "
                           f"{ratings.shape[1]}; Fleiss' kappa counts categories: for numbers use "
                           "--measure icc or --measure alpha --level interval)"):
            result = predstab.fleiss_kappa(ratings, exact=args.exact, detail=args.detail)
    elif args.measure == "alpha":
        if args.level in ("interval", "ratio"):
            ratings = numeric_matrix(frame, what="RATINGS")
        else:
            ratings = label_matrix(frame)
        levels = parse_list(args.levels, option="--levels") if args.levels else None
        if levels is not None:
            levels = _as_data_type(levels, ratings)
        result = predstab.krippendorff_alpha(ratings, scale=args.level, categories=levels)
    else:
        raise InputError(f"--measure must be icc, fleiss or alpha; got {args.measure!r}")
    # with --detail the printed block already holds irr's per-category table (kappa, z, p.value)
    _print_result(result, out)
    return 0


def _print_result(result, out):
    """The result as R prints it: ``str(result)`` (irr's layout, R's p-values)."""
    print(str(result), file=out)


# ----------------------------------------------------------------------------- compare
_COMPARE_EXAMPLE = """\
example:
  # scores.csv: one row per data set, one column per method
  predstab compare scores.csv --test friedman --alpha 0.05 --plot cd.png
  predstab compare scores.csv --test wilcoxon --a A --b B        # two methods over data sets
  # cases.csv: columns id, old, new (0/1 per case)
  predstab compare cases.csv --test mcnemar --old old --new new --id id
  # runs.csv: one column per algorithm, one row per seed
  predstab compare runs.csv --test permutation --a A --b B --seed 1
  # preds.csv: the truth and two models' predictions per test case
  predstab compare preds.csv --test bootstrap --truth y --a old --b new --metric accuracy \\
      --confidence-level 0.95 --resamples 2000 --seed 1 --out boot.csv
  # cv.csv: fold-by-fold scores of 10 x 10-fold CV on 1000 cases
  predstab compare cv.csv --test corrected-t --a A --b B --n-train 900 --n-test 100

Every difference is B minus A. bootstrap resamples cases (the same ones for A and B) and
prints each score and the difference with percentile (or --interval bca) intervals; metrics:
accuracy (class labels), mse and mae (numbers). corrected-t is Nadeau and Bengio's t-test
for repeated CV or random splits. --out writes the numbers as CSV (never overwriting
without --force).
"""

_TESTS = ("friedman", "mcnemar", "permutation", "bootstrap", "corrected-t", "wilcoxon")
_AB = ("permutation", "bootstrap", "corrected-t", "wilcoxon")
# which tests use each test-specific option (the others warn that they ignore it)
_COMPARE_OPTIONS = {
    "alpha": ("friedman",), "plot": ("friedman",), "lower_is_better": ("friedman",),
    "old": ("mcnemar",), "new": ("mcnemar",), "id": ("mcnemar", "friedman"), "mid_p": ("mcnemar",),
    "a": _AB, "b": _AB, "paired": ("permutation",), "truth": ("bootstrap",), "metric": ("bootstrap",),
    "resamples": ("bootstrap",), "interval": ("bootstrap",), "confidence_level": ("bootstrap", "corrected-t"),
    "n_train": ("corrected-t",), "n_test": ("corrected-t",), "no_correct": ("wilcoxon",),
    "seed": ("permutation", "bootstrap"),
}


def _accuracy(y_true, y_pred):
    return float(np.mean(y_true == y_pred))


def _mse(y_true, y_pred):
    return float(np.mean((y_true - y_pred) ** 2))


def _mae(y_true, y_pred):
    return float(np.mean(np.abs(y_true - y_pred)))


_METRICS = {"accuracy": _accuracy, "mse": _mse, "mae": _mae}


def _score_column(frame, name, *, option, test):
    """One numeric column without missing values, named by ``option``."""
    if name is None:
        raise InputError(f"--test {test} needs {option} COL (a column of SCORES)")
    return numeric_matrix(column(frame, name, what="SCORES").to_frame(), what="SCORES",
                          allow_missing=False)[:, 0]


def _label_column(frame, name, *, option, test):
    """One column of class labels (any type) without missing values."""
    if name is None:
        raise InputError(f"--test {test} needs {option} COL (a column of SCORES)")
    values = label_matrix(column(frame, name, what="SCORES").to_frame())[:, 0]
    if any(v is None for v in values):
        i = next(i for i, v in enumerate(values) if v is None)
        raise InputError(f"SCORES {cell_location(frame, i, name)}: missing value (NA) not allowed here")
    return values


def _test_fields(result):
    fields = {"statistic": result.statistic}
    if result.df is not None:
        fields["df"] = result.df
    fields["pvalue"] = result.pvalue
    if np.isfinite(result.estimate):
        fields["estimate"] = result.estimate
    if result.confidence_interval is not None:
        fields["ci_low"], fields["ci_high"] = result.confidence_interval
    fields["method"] = result.method
    return fields


def _write_csv(args, frame, out):
    if args.out:
        print(f"wrote {write_text(args.out, frame.to_csv(index=False), force=args.force)}", file=out)


def _compare_bootstrap(frame, args, out):
    import pandas as pd

    from . import compare

    metric = args.metric
    if metric is None:
        truth = column(frame, args.truth, what="SCORES")
        if pd.api.types.is_numeric_dtype(truth):
            raise InputError(f"--test bootstrap: the truth column '{args.truth}' holds numbers; choose "
                             "--metric accuracy (class labels), mse or mae")
        metric = "accuracy"
    if metric == "accuracy":
        selected = ((args.truth, "--truth"), (args.a, "--a"), (args.b, "--b"))
        y, a, b = common_labels(*(_label_column(frame, name, option=option, test="bootstrap")
                                  for name, option in selected))
    elif metric in ("mse", "mae"):
        y, a, b = (_score_column(frame, name, option=option, test="bootstrap")
                   for name, option in ((args.truth, "--truth"), (args.a, "--a"), (args.b, "--b")))
    else:
        raise InputError(f"--metric must be one of {', '.join(_METRICS)}; got {metric!r}")
    result = compare.paired_bootstrap(y, a, b, metric=_METRICS[metric], n_resamples=args.resamples,
                                      method=args.interval, random_state=args.seed,
                                      confidence_level=args.confidence_level)
    print(f"paired bootstrap of {metric}, A = '{args.a}', B = '{args.b}': {args.resamples} resamples of "
          f"{result.n_units} cases, {100 * args.confidence_level:g}% {args.interval} intervals "
          f"(seed {args.seed})",
          file=out)
    table = result.summary_frame()
    print(table.to_string(index=False, float_format=lambda v: f"{v:.6g}"), file=out)
    print(f"pvalue  {result.pvalue:.6g}  (two-sided, B - A = 0)", file=out)
    table["pvalue"] = [np.nan, np.nan, result.pvalue]
    _write_csv(args, table, out)
    return 0


def _cmd_compare(args, out):
    import pandas as pd

    from . import compare

    for option in ("plot", "out"):
        if getattr(args, option):
            check_output_file(getattr(args, option), force=args.force, option=f"--{option}",
                              inputs={"SCORES": args.scores})
    _warn_ignored(args, "test", _COMPARE_OPTIONS)
    frame = read_table(args.scores, what="SCORES", **_reading(args))
    unique_columns(frame, what="SCORES")  # methods and selectors are named by their columns
    if args.test == "friedman":
        if args.id is not None:
            column(frame, args.id, what="SCORES")
            frame = frame.drop(columns=[args.id])
        try:
            scores = numeric_matrix(frame, what="SCORES", allow_missing=False)
        except InputError as exc:
            if args.id is None and "expected a number" in str(exc):
                raise InputError(f"{exc} (a column of data-set names? give it with --id COL)") from None
            raise
        # a DataFrame: the result names the methods by the file's columns
        result = compare.friedman_nemenyi(pd.DataFrame(scores, columns=list(map(str, frame.columns))),
                                          significance=args.alpha, higher_is_better=not args.lower_is_better)
        ranks = dict(zip(result.names, np.asarray(result.average_ranks, dtype=float), strict=True))
        print(str(result), file=out)  # base R's print.htest layout, R's p-value, the ranks by name
        if args.plot:
            fig = result.plot(labels=list(map(str, frame.columns)))
            print(f"wrote {write_figure(args.plot, fig, force=args.force)}", file=out)
        _write_csv(args, pd.DataFrame({"method": list(ranks), "average_rank": list(ranks.values())}), out)
        return 0
    if args.test == "bootstrap":
        return _compare_bootstrap(frame, args, out)
    if args.test == "mcnemar":
        old = _score_column(frame, args.old, option="--old", test="mcnemar")
        new = _score_column(frame, args.new, option="--new", test="mcnemar")
        ids = column(frame, args.id, what="SCORES").to_numpy() if args.id else None
        result = compare.mcnemar(old, new, ids=ids, mid_p=args.mid_p)
        print(str(result), file=out)  # the result's R-style block, as the Python API prints it
        _write_csv(args, result.to_frame(), out)
        return 0
    a = _score_column(frame, args.a, option="--a", test=args.test)
    b = _score_column(frame, args.b, option="--b", test=args.test)
    if args.test == "permutation":
        result = compare.mean_permutation_test(a, b, paired=args.paired, random_state=args.seed)
    elif args.test == "corrected-t":
        if args.n_train is None or args.n_test is None:
            raise InputError("--test corrected-t needs --n-train and --n-test (the training and test "
                             "set sizes of one split)")
        result = compare.corrected_resampled_ttest(a, b, n_train=args.n_train, n_test=args.n_test,
                                                   confidence_level=args.confidence_level)
    elif args.test == "wilcoxon":
        result = compare.wilcoxon(a, b, correction=not args.no_correct)
    else:
        raise InputError(f"--test must be one of {', '.join(_TESTS)}; got {args.test!r}")
    print(str(result), file=out)  # the result's R-style block (print.htest), as the Python API prints it
    _write_csv(args, pd.DataFrame([_test_fields(result)]), out)
    return 0


# ----------------------------------------------------------------------------- power
_POWER_EXAMPLE = """\
example:
  predstab power seeds --effect 0.5            # seeds per arm to detect d = 0.5: 64
  predstab power seeds --effect 0.2,0.5,1,2    # a table, one row per effect
  predstab power power --effect 0.5 --n 3,10,30,64   # power of 3, 10, ... seeds per arm
  predstab power effect --n 10,30,100          # smallest effect found with power 0.8
  predstab power games --win-rate 0.55         # games to show a 55% win rate: 786
  predstab power seeds --effect 0.5 --r-default --out seeds.csv

seeds, power and effect are about the two-sided two-sample t-test of runs (seeds) per
arm with a standardised effect d (Cohen's d = difference of means / SD); the power counts
both rejection tails (power.t.test(strict = TRUE)); --r-default counts only the far one, as
R's power.t.test does by default. games is the exact binomial test of a win rate against
1/2 (the exact power is saw-toothed in n, so every n is checked).
"""


def _positive_numbers(text, *, option, minimum=0.0):
    values = parse_list(text, option=option, convert=float)
    bad = [v for v in values if not (np.isfinite(v) and v > minimum)]
    if bad:
        limit = "positive" if minimum == 0 else f"at least {minimum:g}"
        raise InputError(f"{option} must hold {limit} numbers; got {text!r}")
    return values


@contextlib.contextmanager
def _beyond_reach(what):
    """Turn an answer the library cannot compute (a RuntimeError: a tail that underflows, a
    MemoryError: an array too large to hold, an OverflowError) into the CLI's one-line input
    error naming ``what`` (the option and its value)."""
    try:
        yield
    except MemoryError as exc:
        raise InputError(f"{what} needs more memory than this machine has ({_one_line(exc)})") from None
    except (RuntimeError, OverflowError) as exc:
        raise InputError(f"{what} is beyond what can be computed in floating point "
                         f"({_one_line(exc)})") from None


def _cmd_power(args, out):
    import pandas as pd

    from . import compare

    def need(value, option):
        if value is None:
            raise InputError(f"predstab power {args.question} needs {option}")
        return value

    def unused(value, option):
        if value is not None:
            raise InputError(f"{option} is not used by predstab power {args.question}")

    if args.out:
        check_output_file(args.out, force=args.force)
    strict = not args.r_default
    if args.question in ("seeds", "power", "effect") and args.win_rate is not None:
        raise InputError(f"--win-rate is only used by predstab power games; got {args.question}")
    if args.question == "seeds":
        unused(args.n, "--n")
        effects = _positive_numbers(need(args.effect, "--effect"), option="--effect")
        rows = []
        for d in effects:
            with _beyond_reach(f"--effect {d:g}"):
                n = compare.seeds_needed(d, significance=args.alpha, power=args.power, strict=strict)
                rows.append({"d": d, "n_per_arm": n,
                             "power": compare.power_ttest(d, n, significance=args.alpha, strict=strict)})
        title = f"seeds (runs) per arm for power {args.power:g} at alpha {args.alpha:g}"
    elif args.question == "power":
        effects = _positive_numbers(need(args.effect, "--effect"), option="--effect")
        ns = _positive_numbers(need(args.n, "--n"), option="--n", minimum=1.999999)
        rows = []
        for d in effects:
            for n in ns:
                with _beyond_reach(f"--effect {d:g} with --n {n:g}"):
                    rows.append({"d": d, "n_per_arm": n,
                                 "power": compare.power_ttest(d, n, significance=args.alpha, strict=strict)})
        title = f"power of the two-sample t-test at alpha {args.alpha:g}"
    elif args.question == "effect":
        unused(args.effect, "--effect")
        ns = _positive_numbers(need(args.n, "--n"), option="--n", minimum=1.999999)
        rows = []
        for n in ns:
            with _beyond_reach(f"--n {n:g}"):
                d = compare.detectable_effect(n, significance=args.alpha, power=args.power, strict=strict)
                rows.append({"n_per_arm": n, "d": d})
        title = f"smallest effect d detected with power {args.power:g} at alpha {args.alpha:g}"
    elif args.question == "games":
        unused(args.effect, "--effect")
        unused(args.n, "--n")
        rates = _positive_numbers(need(args.win_rate, "--win-rate"), option="--win-rate")
        bad = [p for p in rates if not 0 < p < 1 or p == 0.5]
        if bad:
            raise InputError("--win-rate must hold numbers between 0 and 1 other than 0.5; "
                             f"got {args.win_rate!r}")
        rows = []
        for p in rates:
            with _beyond_reach(f"--win-rate {p:.10g} (so close to 0.5 that the exact test needs "
                               "too many games; choose a win rate farther from 0.5)"):
                g = compare.games_needed(p, significance=args.alpha, power=args.power)
            rows.append({"win_rate": p, "n_games": g.n, "power": g.power, "n_normal": g.n_normal})
        title = (f"games for the exact binomial test (vs 1/2) to reach power {args.power:g} at alpha "
                 f"{args.alpha:g} (n_normal: normal approximation)")
    else:
        raise InputError(f"QUESTION must be seeds, power, effect or games; got {args.question!r}")
    table = pd.DataFrame(rows)
    if args.question != "games":
        title += ", two-sided" + (", far tail only (R's default)" if args.r_default else "")
    print(title + ":", file=out)
    print(table.to_string(index=False, float_format=lambda v: f"{v:.6g}"), file=out)
    _write_csv(args, table, out)
    return 0


# ----------------------------------------------------------------------------- parser
def _checked(parse, accept, expected):
    """An argparse ``type`` that parses with ``parse`` and accepts values where ``accept`` holds."""

    def convert(text):
        try:
            value = parse(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}") from None
        if not accept(value):
            raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}")
        return value

    return convert


_positive_int = _checked(int, lambda v: v >= 1, "a positive integer")
_non_negative_int = _checked(int, lambda v: v >= 0, "a whole number >= 0")
_probability = _checked(float, lambda v: 0 < v < 1, "a number between 0 and 1")
_positive_float = _checked(float, lambda v: bool(np.isfinite(v) and v > 0), "a positive number")
_fraction = _checked(float, lambda v: 0 < v <= 1, "a fraction in (0, 1]")


def _max_features(text):
    """--max-features: sqrt, log2, all (None), a count (int) or a fraction (float in (0, 1])."""
    if text in ("sqrt", "log2"):
        return text
    if text in ("all", "none", "None"):
        return None
    expected = f"expected sqrt, log2, all, a count or a fraction, got {text!r}"
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(expected) from None
    if value.is_integer() and value >= 1 and "." not in text:
        return int(value)
    if 0 < value <= 1:
        return value
    raise argparse.ArgumentTypeError(expected)


def add_header_option(p):
    """``--header`` / ``--no-header`` (whether the first line names the columns), ``--sep`` and
    ``--dec`` (R's ``sep`` and ``dec``): how every command reads its CSV files
    (:func:`predstab.read_table`'s ``header``, ``sep``, ``dec``; detected by default)."""
    p.add_argument("--header", action=argparse.BooleanOptionalAction, default=None,
                   help="the first CSV line names the columns (default: yes unless it holds only "
                        "bare numbers, which is then read as data, with a note)")
    # metavars: argparse would show the choices as "{,,;,tab,space}" and "{.,,}"
    p.add_argument("--sep", choices=[",", ";", "tab", "space"], default=None, metavar="SEP",
                   help="field separator of CSV files: ',', ';', tab or space (default: detected; "
                        "';' with decimal commas is R's write.csv2, tab R's write.table(sep = '\\t'))")
    p.add_argument("--dec", choices=[".", ","], default=None, metavar="DEC",
                   help="decimal mark of CSV files: '.' or ',' (default: ',' with --sep ';', else '.')")


def _reading(args) -> dict:
    """How ``args`` says to read CSV files: :func:`predstab.read_table`'s keywords."""
    return {"header": args.header, "sep": args.sep, "dec": args.dec}


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``predstab`` (one sub-parser per command)."""
    from . import __version__
    from .stability import measure_names  # the registry's names: no measure loads for them

    parser = _Parser(prog="predstab", formatter_class=_formatter,
                     description="Prediction stability of non-deterministic models (APS phi/psi), "
                                 "agreement coefficients and tree-count tuning.",
                     epilog="example:\n  predstab demo\n  predstab stability --help")
    parser.add_argument("--version", action="version", version=f"predstab {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks of unexpected errors")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    def command(name, help_, example):
        p = sub.add_parser(name, help=help_, description=help_, epilog=example, formatter_class=_formatter)
        p.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
        return p

    def fitting_options(p, out_default):
        p.add_argument("--seed", type=int, default=0, help="random seed of the refits (default 0)")
        p.add_argument("--jobs", type=int, default=None, metavar="N", help="parallel jobs (joblib n_jobs)")
        p.add_argument("--out", default=out_default, metavar="DIR", help=f"output directory ({out_default})")
        p.add_argument("--force", action="store_true", help="overwrite existing output files")
        p.add_argument("--quiet", action="store_true", help="no progress bar")

    def tuning_options(p):
        forest = p.add_argument_group("forest (scikit-learn's RandomForest*; ranger's names in brackets)")
        forest.add_argument("--max-features", type=_max_features, default="sqrt", metavar="M",
                            help="features tried per split (mtry): sqrt (default), log2, all, a count "
                                 "or a fraction in (0, 1]")
        forest.add_argument("--min-samples-leaf", type=_positive_int, default=None, metavar="N",
                            help="smallest leaf (min_samples_leaf; ranger's min.node.size is "
                                 "min_samples_split = min.node.size + 1); default 5 for regression, "
                                 "1 for classes")
        forest.add_argument("--sample-fraction", type=_fraction, default=None, metavar="F",
                            help="bootstrap sample per tree as a fraction of the rows (sample.fraction, "
                                 "max_samples); default 1")
        rec = p.add_argument_group("recommendation")
        rec.add_argument("--target-stability", type=_probability, default=0.95, metavar="S",
                         help="stability for 'n for target' (default 0.95)")
        rec.add_argument("--rec-thresh", type=_positive_float, default=1e-6, metavar="G",
                         help="optRF's rule: gain in stability per added tree below which the curve "
                              "counts as flat (default 1e-6)")
        rec.add_argument("--round-to", choices=("thousand", "hundred", "ten", "none"), default="thousand",
                         help="rounding of optRF's recommendation (default thousand, as optRF)")

    p = command("demo", "Run the main job on scikit-learn's bundled data (phi, psi, tree count).",
                _DEMO_EXAMPLE)
    p.add_argument("--dataset", choices=("diabetes", "breast_cancer", "wine", "ordinal"), default="diabetes",
                   help="diabetes (metric), breast_cancer (2 classes), wine (3 classes), "
                        "ordinal (diabetes target in quartiles); default diabetes")
    p.add_argument("--quick", action="store_true", help="smaller grid and fewer refits")
    fitting_options(p, "predstab-demo")
    tuning_options(p)
    p.set_defaults(func=_cmd_demo)

    p = command("tune", "Stability versus number of trees of a random forest, with optRF's 2PL "
                        "recommendation.", _TUNE_EXAMPLE)
    p.add_argument("data", metavar="DATA", help="CSV or Parquet with the features and the target")
    add_header_option(p)
    p.add_argument("--target", required=True, metavar="COL", help="name of the target column")
    p.add_argument("--task", choices=("regression", "classification", "ordinal"), default="regression")
    p.add_argument("--levels", metavar="A,B,C", help="ordered categories for --task ordinal")
    p.add_argument("--test", metavar="TESTDATA", help="CSV or Parquet of test objects (same columns)")
    p.add_argument("--grid", default="50,100,200,400", metavar="N1,N2,...",
                   help="numbers of trees (default 50,100,200,400)")
    p.add_argument("--repeats", type=int, default=10, help="refits per grid value (default 10)")
    p.add_argument("--bootstrap", type=_non_negative_int, default=100, metavar="B",
                   help="resamples for the recommendation's interval, as tune_num_learners' "
                        "n_resamples (default 100; 0: none)")
    p.add_argument("--voting", choices=("hard", "soft"), default="hard",
                   help="classes: hard = majority vote of the trees (ranger, optRF; default), "
                        "soft = mean probability (scikit-learn's predict)")
    p.add_argument("--method", choices=("pool", "refit", "closed-form"), default="pool",
                   help="pool: one pool of trees split into disjoint forests; refit: fit every "
                        "forest; closed-form: expected curves from the pool's per-tree predictions "
                        "with bootstrap bands, not for ordinal targets (default pool)")
    fitting_options(p, "predstab-tune")
    tuning_options(p)
    p.set_defaults(func=_cmd_tune)

    p = command("stability", "APS's phi or psi of a prediction matrix (objects x refits).",
                _STABILITY_EXAMPLE)
    p.add_argument("predictions", metavar="PREDICTIONS",
                   help="CSV/Parquet: objects in rows, refits in columns")
    base = p.add_mutually_exclusive_group(required=True)
    base.add_argument("--training-observations", metavar="FILE", help="training responses -> phi")
    base.add_argument("--prediction-space", metavar="FILE", help="out-of-sample predictions -> psi")
    p.add_argument("--column", metavar="COL", help="column of the baseline file to use (default: all)")
    p.add_argument("--scale", required=True, choices=("categorical", "ordinal", "metric"))
    p.add_argument("--levels", metavar="A,B,C", help="ordinal categories in order")
    p.add_argument("--per-object", action="store_true", help="print every object's stability")
    p.add_argument("--out", metavar="FILE", help="write the per-object table as CSV")
    p.add_argument("--force", action="store_true", help="overwrite --out")
    p.add_argument("--transpose", action="store_true",
                   help="PREDICTIONS has refits in rows and objects in columns")
    add_header_option(p)
    p.set_defaults(func=_cmd_stability)

    p = command("agree", "Agreement of raters or refits: ICC, Fleiss' kappa, Krippendorff's alpha.",
                _AGREE_EXAMPLE)
    p.add_argument("ratings", metavar="RATINGS", help="CSV/Parquet: objects in rows, raters in columns")
    p.add_argument("--measure", required=True, choices=measure_names("agree"))
    p.add_argument("--model", choices=("oneway", "twoway"), default="oneway", help="icc (irr::icc)")
    p.add_argument("--type", choices=("consistency", "agreement"), default="consistency", help="icc")
    p.add_argument("--unit", choices=("single", "average"), default="single", help="icc")
    p.add_argument("--table", action="store_true", help="icc: all six forms of psych::ICC")
    p.add_argument("--confidence-level", "--conf-level", dest="confidence_level", type=_probability,
                   default=0.95,
                   help="icc: confidence level of the interval (irr's conf.level; default 0.95)")
    p.add_argument("--exact", action="store_true", help="fleiss: Conger's exact kappa")
    p.add_argument("--detail", action="store_true", help="fleiss: per-category kappas")
    p.add_argument("--level", choices=("nominal", "ordinal", "interval", "ratio"), default="nominal",
                   help="alpha (default nominal)")
    p.add_argument("--levels", metavar="A,B,C", help="alpha: ordinal categories in order")
    p.add_argument("--transpose", action="store_true",
                   help="RATINGS has raters (refits) in rows and objects in columns")
    add_header_option(p)
    p.set_defaults(func=_cmd_agree)

    p = command("compare", "Did B beat A? Friedman-Nemenyi, McNemar, permutation, paired bootstrap, "
                           "corrected resampled t and Wilcoxon tests.", _COMPARE_EXAMPLE)
    p.add_argument("scores", metavar="SCORES", help="CSV/Parquet of scores, case results or predictions")
    p.add_argument("--test", required=True, choices=_TESTS)
    p.add_argument("--alpha", type=_probability, default=0.05, help="friedman: significance level")
    p.add_argument("--plot", metavar="FILE", help="friedman: write the critical-difference diagram")
    p.add_argument("--lower-is-better", action="store_true",
                   help="friedman: scores are errors or losses (rank 1 = lowest)")
    p.add_argument("--old", default="old", metavar="COL", help="mcnemar: old model's 0/1 column")
    p.add_argument("--new", default="new", metavar="COL", help="mcnemar: new model's 0/1 column")
    p.add_argument("--id", metavar="COL",
                   help="mcnemar: case id column; friedman: a column of data-set names (not scores)")
    p.add_argument("--mid-p", action="store_true", help="mcnemar: mid-p value")
    p.add_argument("--a", metavar="COL", help="scores (or predictions, bootstrap) of A")
    p.add_argument("--b", metavar="COL", help="scores (or predictions, bootstrap) of B")
    p.add_argument("--paired", action="store_true", help="permutation: paired (sign flips)")
    p.add_argument("--truth", default="truth", metavar="COL", help="bootstrap: true values (default truth)")
    p.add_argument("--metric", choices=tuple(_METRICS),
                   help="bootstrap: accuracy (class labels; default for a text truth column), mse, mae")
    p.add_argument("--resamples", type=_positive_int, default=2000, metavar="N",
                   help="bootstrap: resamples (default 2000)")
    p.add_argument("--interval", choices=("percentile", "bca"), default="percentile",
                   help="bootstrap: interval method (default percentile)")
    # --confidence-level as everywhere in predstab (agree's --level is a measurement level);
    # --level, the earlier name, still works
    p.add_argument("--confidence-level", "--level", dest="confidence_level", type=_probability, default=0.95,
                   help="bootstrap, corrected-t: confidence level (default 0.95)")
    p.add_argument("--n-train", type=_positive_float, metavar="N",
                   help="corrected-t: training cases of one split")
    p.add_argument("--n-test", type=_positive_float, metavar="N", help="corrected-t: test cases of one split")
    p.add_argument("--no-correct", action="store_true",
                   help="wilcoxon: no continuity correction in the normal approximation")
    p.add_argument("--seed", type=int, default=0, help="permutation, bootstrap: random seed (default 0)")
    p.add_argument("--out", metavar="FILE", help="write the numbers as CSV")
    p.add_argument("--force", action="store_true", help="overwrite --plot / --out")
    add_header_option(p)
    p.set_defaults(func=_cmd_compare)

    p = command("power", "How many seeds or games? Power of the two-sample t-test and of win rates.",
                _POWER_EXAMPLE)
    p.add_argument("question", metavar="QUESTION", choices=("seeds", "power", "effect", "games"),
                   help="seeds: runs per arm needed (seeds_needed); power: power at --n (power_ttest); "
                        "effect: smallest detectable d at --n (detectable_effect); games: games needed "
                        "for a win rate (games_needed)")
    p.add_argument("--effect", metavar="D[,D...]", help="standardised effect(s) d (Cohen's d)")
    p.add_argument("--n", metavar="N[,N...]", help="runs (seeds) per arm")
    p.add_argument("--win-rate", metavar="P[,P...]", help="games: true win rate(s) of B")
    p.add_argument("--alpha", type=_probability, default=0.05, help="significance level (default 0.05)")
    p.add_argument("--power", type=_probability, default=0.8, help="target power (default 0.8)")
    p.add_argument("--r-default", action="store_true",
                   help="count only the far rejection tail (power.t.test's strict = FALSE)")
    p.add_argument("--out", metavar="FILE", help="write the table as CSV")
    p.add_argument("--force", action="store_true", help="overwrite --out")
    p.set_defaults(func=_cmd_power)
    for p in sub.choices.values():  # what "given" means for options a choice ignores
        p.set_defaults(option_defaults={a.dest: a.default for a in p._actions})
    return parser


def _silence(stream):
    """Point ``stream``'s file descriptor at /dev/null so the interpreter's final flush of the
    broken pipe raises nothing (the recipe of Python's signal documentation)."""
    import os

    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)


def _one_line(message) -> str:
    return " ".join(str(message).split())


def main(argv=None, *, stdout=None) -> int:
    """Run ``predstab`` with ``argv`` (default ``sys.argv[1:]``); return the exit code.

    Exit codes: 0 success, 2 bad input or usage (one line on stderr), 1 unexpected error,
    130 interrupted, 128 + N ended by signal N (SIGTERM: 143); no partial output is left behind.
    """
    out = sys.stdout if stdout is None else stdout
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help / --version / usage errors
        return int(exc.code or 0)
    if args.command is None:
        parser.print_help(out)
        return 0
    prog = f"predstab {args.command}"

    def show(message, category, filename, lineno, file=None, line=None):
        kind = "note" if issubclass(category, InputNote) else "warning"
        print(f"{prog}: {kind}: {_one_line(message)}", file=sys.stderr)

    committed = len(COMMITTED)
    with warnings.catch_warnings(), signals_as_interrupts():
        warnings.simplefilter("default")
        warnings.showwarning = show
        try:
            code = int(args.func(args, out) or 0)
            out.flush()  # a closed pipe shows up here, not at interpreter exit
            return code
        except BrokenPipeError:
            # `predstab ... | head`: the reader has gone; stop quietly, as Unix tools do
            _silence(out)
            return EXIT_BROKEN_PIPE
        except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM / SIGHUP (signals_as_interrupts)
            signum = getattr(exc, "signum", None)
            how = "interrupted" if signum is None else f"terminated ({exc})"
            if len(COMMITTED) > committed:  # the signal came while the outputs were moved in: held back
                print(f"{prog}: {how} after its output was written in full to "
                      f"{', '.join(map(str, COMMITTED[committed:]))}", file=sys.stderr)
            else:
                print(f"{prog}: {how}; no partial output was written", file=sys.stderr)
            return EXIT_INTERRUPTED if signum is None else 128 + signum
        except (InputError, ValueError, TypeError, FileNotFoundError, PermissionError) as exc:
            if args.debug:
                raise
            print(f"{prog}: error: {_one_line(exc)}", file=sys.stderr)
            return EXIT_USAGE
        except Exception as exc:  # a bug: still one line, with a way to see the traceback
            if args.debug:
                raise
            print(f"{prog}: internal error: {type(exc).__name__}: {_one_line(exc)} "
                  "(rerun with --debug for the traceback)", file=sys.stderr)
            return 1


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
