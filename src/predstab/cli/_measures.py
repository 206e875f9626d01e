"""``predstab stability`` (APS's phi and psi of a prediction matrix) and ``predstab agree``
(ICC, Fleiss' kappa, Krippendorff's alpha of a rating matrix): read a file, call one public
function, print the result as R prints it."""

from __future__ import annotations

import numpy as np

import predstab

from .._core._exceptions import warn_outside
from .._core._reading import (
    InputError,
    InputNote,
    common_labels,
    label_matrix,
    numeric_matrix,
    read_table,
)
from .._core._writing import check_output_file, report_beside, write_text
from ..stability import measure_names  # the registry's names: no measure module loads for them
from ._inputs import (
    Recorder,
    as_data_type,
    beyond_reach,
    categories_option,
    in_cli_words,
    read_values,
    reading,
    warn_ignored,
    write_cli_report,
)
from ._options import (
    Command,
    add_categories_option,
    add_confidence_level_option,
    add_reading_options,
)

__all__ = ["COMMANDS"]

# ----------------------------------------------------------------------------- stability
_STABILITY_EXAMPLE = """\
example:
  # a prediction matrix exported from R with write.csv(pred, "pred.csv", row.names = FALSE)
  predstab stability pred.csv --training-observations y_train.csv --scale metric
  predstab stability pred.csv --prediction-space oob.csv --scale ordinal --categories low,mid,high
  predstab stability pred.csv --training-observations y_train.csv --scale categorical \\
      --per-object --out per_object.csv

PREDICTIONS has one row per test object and one column per refit. With
--training-observations (one column, or the column named by --column) it prints APS's phi;
with --prediction-space (out-of-sample predictions of the training objects: one column, or a
matrix that is pooled) APS's psi. --per-object lists every object's stability, least stable
first: the single-forecast check.
"""


def _define_stability(p):
    p.add_argument("predictions", metavar="PREDICTIONS",
                   help="CSV/Parquet: objects in rows, refits in columns")
    base = p.add_mutually_exclusive_group(required=True)
    base.add_argument("--training-observations", metavar="FILE", help="training responses -> phi")
    base.add_argument("--prediction-space", metavar="FILE", help="out-of-sample predictions -> psi")
    p.add_argument("--column", metavar="COL", help="column of the baseline file to use (default: all)")
    p.add_argument("--scale", required=True, choices=("categorical", "ordinal", "metric"),
                   help="measurement level of the predictions (APS's scale)")
    add_categories_option(p, "the categories in order, for --scale ordinal")
    p.add_argument("--per-object", action="store_true", help="print every object's stability")
    p.add_argument("--out", metavar="FILE", help="write the per-object table as CSV")
    p.add_argument("--force", action="store_true", help="replace an existing --out")
    p.add_argument("--transpose", action="store_true",
                   help="PREDICTIONS has refits in rows and objects in columns")
    add_reading_options(p)


def _run_stability(args, out):
    if args.out:
        inputs = {"PREDICTIONS": args.predictions, "--training-observations": args.training_observations,
                  "--prediction-space": args.prediction_space}
        check_output_file(args.out, force=args.force, inputs=inputs)
        check_output_file(report_beside(args.out), force=args.force, option="--out's report", inputs=inputs)
    out = Recorder(out)
    pred, labels = read_values(args.predictions, what="PREDICTIONS", scale=args.scale,
                               **reading(args, args.predictions),
                               transpose=args.transpose, with_labels=True)
    if args.training_observations is not None:
        base = read_values(args.training_observations, what="--training-observations", scale=args.scale,
                           col=args.column, one_column=True, **reading(args, args.training_observations))
        if base.shape[1] > 1:
            warn_outside(f"--training-observations '{args.training_observations}' has {base.shape[1]} "
                         "columns; it should be one column of training responses. All "
                         f"{base.size} values are pooled as one sample; choose one column with "
                         "--column COL", UserWarning)
        func = predstab.phi
    else:
        base = read_values(args.prediction_space, what="--prediction-space", scale=args.scale,
                           col=args.column, one_column=True, **reading(args, args.prediction_space))
        func = predstab.psi
    if base.shape[1] == 1:
        base = base[:, 0]
    if args.scale != "metric":
        # labels: numbers stay numbers only when both files hold numbers, else both are text
        pred, base = common_labels(pred, base)
    categories = categories_option(args)
    if categories is not None and args.scale != "ordinal":
        raise InputError(f"--categories is only used with --scale ordinal; got --scale {args.scale}")
    if args.scale == "ordinal" and categories is None:
        raise InputError("--scale ordinal needs --categories (the categories in order, "
                         "e.g. --categories low,mid,high)")
    if categories is not None:
        categories = as_data_type(categories, pred)
    # phi's and psi's messages name the files and options the user typed (the gate's own say
    # how to turn the file)
    with in_cli_words(transposable=["predictions"], **_stability_words(args)):
        result = func(pred, base, scale=args.scale, categories=categories)
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
        write_cli_report(args, result, out, reading=_stability_reading(result))
    return 0


def _stability_words(args) -> dict:
    """What the user typed for each parameter of phi / psi (:func:`~predstab.cli._inputs.reword`)."""
    if args.training_observations is not None:
        name, base = "training_observations", f"--training-observations '{args.training_observations}'"
    else:
        name, base = "prediction_space", f"--prediction-space '{args.prediction_space}'"
    # APS's "the training data" is the baseline file, named (psi's is not training data: the file alone)
    psi_base = {"The training data (`prediction_space`)": base} if name == "prediction_space" else {}
    return {**psi_base, "the training data contain": f"{base} contains",
            "predictions": f"PREDICTIONS '{args.predictions}'", name: base,
            "scale": "--scale", "categories": "--categories"}


def _stability_reading(result):
    """How to read phi / psi (report.html)."""
    baseline = ("the training responses vary" if result.kind == "phi" else
                "out-of-sample predictions of the training objects vary")
    low, high = result.confidence_interval
    return [f"{result.kind} = {result.value:.4g}: 1 means every refit predicts each object the same; 0 means "
            f"the refits disagree about an object as much as {baseline} (APS's {result.kind}).",
            f"{100 * result.confidence_level:g}% interval {low:.4g} to {high:.4g} ({result.interval_method}, "
            f"for the {result.interval_target}).",
            "The figure shows each object's stability, least stable first (a histogram for many objects): "
            "objects far below the others are the forecasts not to trust without more refits."]


# ----------------------------------------------------------------------------- agree
_AGREE_EXAMPLE = """\
example:
  predstab agree ratings.csv --measure icc --model twoway --type agreement --unit single
  predstab agree ratings.csv --measure icc --table          # psych::ICC's six forms
  predstab agree ratings.csv --measure fleiss --detail
  predstab agree ratings.csv --measure alpha --scale ordinal --categories low,mid,high

RATINGS has one row per object and one column per rater (or refit), like irr's matrices.
"""

# which measures use each measure-specific option (the others warn that they ignore it)
_AGREE_OPTIONS = {"model": ("icc",), "type": ("icc",), "unit": ("icc",), "table": ("icc",),
                  "confidence_level": ("icc",), "exact": ("fleiss",), "detail": ("fleiss",),
                  "scale": ("alpha",), "categories": ("alpha",)}


def _define_agree(p):
    p.add_argument("ratings", metavar="RATINGS", help="CSV/Parquet: objects in rows, raters in columns")
    p.add_argument("--measure", required=True, choices=measure_names("agree"),
                   help="icc (irr::icc), fleiss (irr::kappam.fleiss) or alpha (irr::kripp.alpha's "
                        "layout; Krippendorff's definition, which irr 0.84 departs from on complete "
                        "data of more than 2 raters: a note says so)")
    icc = p.add_argument_group("--measure icc")
    icc.add_argument("--model", choices=("oneway", "twoway"), default="oneway", help="default oneway")
    icc.add_argument("--type", choices=("consistency", "agreement"), default="consistency",
                     help="default consistency")
    icc.add_argument("--unit", choices=("single", "average"), default="single", help="default single")
    icc.add_argument("--table", action="store_true", help="all six forms of psych::ICC")
    add_confidence_level_option(icc, "")
    fleiss = p.add_argument_group("--measure fleiss")
    fleiss.add_argument("--exact", action="store_true", help="Conger's exact kappa")
    fleiss.add_argument("--detail", action="store_true", help="per-category kappas")
    alpha = p.add_argument_group("--measure alpha")
    alpha.add_argument("--scale", choices=("nominal", "ordinal", "interval", "ratio"), default="nominal",
                       help="measurement level of the ratings (default nominal)")
    add_categories_option(alpha, "the categories in order, for --scale ordinal")
    p.add_argument("--transpose", action="store_true",
                   help="RATINGS has raters (refits) in rows and objects in columns")
    p.add_argument("--out", metavar="FILE",
                   help="write the result as CSV, and NAME.report.html beside it (the page of the run)")
    p.add_argument("--force", action="store_true", help="replace an existing --out")
    add_reading_options(p)


def _run_agree(args, out):
    if args.out:
        check_output_file(args.out, force=args.force, inputs={"RATINGS": args.ratings})
        check_output_file(report_beside(args.out), force=args.force, option="--out's report",
                          inputs={"RATINGS": args.ratings})
    out = Recorder(out)
    warn_ignored(args, "measure", _AGREE_OPTIONS)
    frame = read_table(args.ratings, what="RATINGS", **reading(args, args.ratings))
    if args.transpose:
        frame = frame.T
    # the library's messages name the file and options the user typed (the gate's own say how to
    # turn the file)
    with in_cli_words(transposable=["ratings"], **_agree_words(args)):
        return _agree(args, frame, out)


def _agree_words(args) -> dict:
    """What the user typed for each parameter of icc / fleiss_kappa / krippendorff_alpha
    (:func:`~predstab.cli._inputs.reword`); the measures a message advises, as options."""
    return {"krippendorff_alpha(scale='interval')": "--measure alpha --scale interval",
            "icc()": "--measure icc", "ratings": f"RATINGS '{args.ratings}'", "scale": "--scale",
            "categories": "--categories", "confidence_level": "--confidence-level", "model": "--model",
            "type": "--type", "unit": "--unit", "exact": "--exact", "detail": "--detail"}


def _agree(args, frame, out):
    if args.measure == "icc":
        ratings = numeric_matrix(frame, what="RATINGS")
        if args.table:
            table = predstab.icc_table(ratings, confidence_level=args.confidence_level)
            print(table.to_string(), file=out)
            _agree_out(args, table.reset_index(), out, table)
            return 0
        result = predstab.icc(ratings, model=args.model, type=args.type, unit=args.unit,
                              confidence_level=args.confidence_level)
    elif args.measure == "fleiss":
        ratings = label_matrix(frame)
        with beyond_reach(f"--measure fleiss on RATINGS '{args.ratings}' ({ratings.shape[0]} x "
                          f"{ratings.shape[1]}; Fleiss' kappa counts categories: for numbers use "
                          "--measure icc or --measure alpha --scale interval)"):
            result = predstab.fleiss_kappa(ratings, exact=args.exact, detail=args.detail)
    elif args.measure == "alpha":
        if args.scale in ("interval", "ratio"):
            ratings = numeric_matrix(frame, what="RATINGS")
        else:
            ratings = label_matrix(frame)
        categories = categories_option(args)
        if categories is not None:
            categories = as_data_type(categories, ratings)
        result = predstab.krippendorff_alpha(ratings, scale=args.scale, categories=categories)
        if result.n_raters > 2 and result.n_values == result.n_objects * result.n_raters:
            warn_outside(f"irr::kripp.alpha gives another value for these complete ratings of "
                         f"{result.n_raters} raters: irr 0.84 does not divide each unit's coincidences by "
                         "m_u - 1; predstab follows Krippendorff's definition (Krippendorff 2011), as "
                         "irr does on data with a missing rating or 2 raters", InputNote)
    else:
        raise InputError(f"--measure must be icc, fleiss or alpha; got {args.measure!r}")
    # the result as R prints it (irr's layout, R's p-values); with --detail the block already
    # holds irr's per-category table (kappa, z, p.value)
    print(str(result), file=out)
    _agree_out(args, result.to_frame(), out, result)
    return 0


def _agree_out(args, frame, out, shown):
    if args.out:
        print(f"\nwrote {write_text(args.out, frame.to_csv(index=False), force=args.force)}", file=out)
        write_cli_report(args, shown, out)


COMMANDS = (
    Command("stability", "APS's phi or psi of a prediction matrix (objects x refits).",
            _STABILITY_EXAMPLE, _define_stability, _run_stability),
    Command("agree", "Agreement of raters or refits: ICC, Fleiss' kappa, Krippendorff's alpha.",
            _AGREE_EXAMPLE, _define_agree, _run_agree),
)
