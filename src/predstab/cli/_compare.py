"""``predstab compare`` (did B beat A? one test of :mod:`predstab.compare` on a file of scores,
case results or predictions) and ``predstab power`` (how many seeds or games?)."""

from __future__ import annotations

import numpy as np

from .. import compare
from .._core._reading import (
    InputError,
    cell_location,
    column,
    common_labels,
    label_matrix,
    numeric_matrix,
    parse_list,
    read_table,
    unique_columns,
)
from .._core._writing import check_output_file, report_beside, write_figure
from ._inputs import Recorder, beyond_reach, in_cli_words, reading, warn_ignored, write_csv
from ._options import (
    Command,
    add_confidence_level_option,
    add_output_file_options,
    add_reading_options,
    add_significance_option,
    non_negative_int,
    positive_float,
    positive_int,
    probability,
)

__all__ = ["COMMANDS"]

# ----------------------------------------------------------------------------- compare
_COMPARE_EXAMPLE = """\
example:
  # scores.csv: one row per data set, one column per method
  predstab compare scores.csv --test friedman --significance 0.05 --plot cd.png
  predstab compare scores.csv --test wilcoxon --a A --b B        # two methods over data sets
  # cases.csv: columns id, old, new (0/1 per case: right or wrong)
  predstab compare cases.csv --test mcnemar --a old --b new --id id
  # preds.csv: the truth and two models' predicted labels; each is right where it equals the truth
  predstab compare preds.csv --test mcnemar --truth y --a old --b new
  # runs.csv: one column per algorithm, one row per seed
  predstab compare runs.csv --test permutation --a A --b B --seed 1
  # preds.csv: the truth and two models' predictions per test case
  predstab compare preds.csv --test bootstrap --truth y --a old --b new --metric accuracy \\
      --confidence-level 0.95 --resamples 2000 --seed 1 --out boot.csv
  # cv.csv: fold-by-fold scores of 10 x 10-fold CV on 1000 cases
  predstab compare cv.csv --test corrected-t --a A --b B --n-train 900 --n-test 100

--a and --b name the columns of the two models; every difference is B minus A. bootstrap
resamples cases (the same ones for A and B) and prints each score and the difference with
percentile (or --interval bca) intervals; metrics: accuracy (class labels), mse and mae
(numbers). corrected-t is Nadeau and Bengio's t-test for repeated CV or random splits. --out
writes the numbers as CSV (never overwriting without --force).
"""

_TESTS = ("friedman", "mcnemar", "permutation", "bootstrap", "corrected-t", "wilcoxon")
_AB = ("mcnemar", "permutation", "bootstrap", "corrected-t", "wilcoxon")
# which tests use each test-specific option (the others warn that they ignore it)
_COMPARE_OPTIONS = {
    "significance": ("friedman",), "plot": ("friedman",), "lower_is_better": ("friedman",),
    "id": ("mcnemar", "friedman"), "mid_p": ("mcnemar",),
    "a": _AB, "b": _AB, "paired": ("permutation",), "truth": ("bootstrap", "mcnemar"),
    "metric": ("bootstrap",),
    "resamples": ("bootstrap",), "interval": ("bootstrap",), "confidence_level": ("bootstrap", "corrected-t"),
    "n_train": ("corrected-t",), "n_test": ("corrected-t",), "correction": ("wilcoxon",),
    "seed": ("permutation", "bootstrap"),
}


def _accuracy(y_true, y_pred):
    return float(np.mean(y_true == y_pred))


def _mse(y_true, y_pred):
    return float(np.mean((y_true - y_pred) ** 2))


def _mae(y_true, y_pred):
    return float(np.mean(np.abs(y_true - y_pred)))


_METRICS = {"accuracy": _accuracy, "mse": _mse, "mae": _mae}


def _define_compare(p):
    import argparse

    p.add_argument("scores", metavar="SCORES", help="CSV/Parquet of scores, case results or predictions")
    p.add_argument("--test", required=True, choices=_TESTS, help="the test to run (see the examples)")
    p.add_argument("--a", metavar="COL", help="column of model A: its scores, 0/1 case results "
                                              "(mcnemar) or predictions (bootstrap; mcnemar with --truth)")
    p.add_argument("--b", metavar="COL", help="column of model B, as --a")
    p.add_argument("--truth", metavar="COL",
                   help="column of true values. bootstrap: default truth; mcnemar: --a and --b are then "
                        "predictions, each right where it equals the truth (without it, 0/1 case results)")
    p.add_argument("--id", metavar="COL",
                   help="friedman: a column of data-set names (not scores); mcnemar: case ids")
    add_confidence_level_option(p, "bootstrap, corrected-t: ")
    p.add_argument("--seed", type=non_negative_int, default=0,
                   help="permutation, bootstrap: random seed (default 0)")
    add_output_file_options(p, "the numbers")
    friedman = p.add_argument_group("--test friedman (every column but --id is a method)")
    add_significance_option(friedman, "")
    friedman.add_argument("--plot", metavar="FILE", help="write the critical-difference diagram")
    friedman.add_argument("--lower-is-better", action="store_true",
                          help="scores are errors or losses (rank 1 = lowest)")
    p.add_argument_group("--test mcnemar").add_argument("--mid-p", action="store_true", help="mid-p value")
    p.add_argument_group("--test permutation").add_argument("--paired", action="store_true",
                                                            help="paired (sign flips)")
    boot = p.add_argument_group("--test bootstrap")
    boot.add_argument("--metric", choices=tuple(_METRICS),
                      help="accuracy (class labels; default for a text truth column), mse, mae")
    boot.add_argument("--resamples", type=positive_int, default=2000, metavar="N",
                      help="bootstrap resamples (n_resamples; default 2000)")
    boot.add_argument("--interval", choices=("percentile", "bca"), default="percentile",
                      help="interval method (default percentile)")
    cv = p.add_argument_group("--test corrected-t")
    cv.add_argument("--n-train", type=positive_float, metavar="N", help="training cases of one split")
    cv.add_argument("--n-test", type=positive_float, metavar="N", help="test cases of one split")
    p.add_argument_group("--test wilcoxon").add_argument(
        "--correction", action=argparse.BooleanOptionalAction, default=True,
        help="continuity correction of the normal approximation (default: on)")
    add_reading_options(p)


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


def _friedman(frame, args, out):
    import pandas as pd

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
                                      significance=args.significance,
                                      higher_is_better=not args.lower_is_better)
    ranks = dict(zip(result.names, np.asarray(result.average_ranks, dtype=float), strict=True))
    print(str(result), file=out)  # base R's print.htest layout, R's p-value, the ranks by name
    if args.plot:
        fig = result.plot(labels=list(map(str, frame.columns)))
        print(f"wrote {write_figure(args.plot, fig, force=args.force)}", file=out)
    write_csv(args, pd.DataFrame({"method": list(ranks), "average_rank": list(ranks.values())}), out, result)
    return 0


def _bootstrap(frame, args, out):
    import pandas as pd

    metric = args.metric
    args.truth = "truth" if args.truth is None else args.truth
    if metric is None:
        truth = column(frame, args.truth, what="SCORES")
        if pd.api.types.is_numeric_dtype(truth):
            raise InputError(f"--test bootstrap: the truth column '{args.truth}' holds numbers; choose "
                             "--metric accuracy (class labels), mse or mae")
        metric = "accuracy"
    selected = ((args.truth, "--truth"), (args.a, "--a"), (args.b, "--b"))
    if metric == "accuracy":
        y, a, b = common_labels(*(_label_column(frame, name, option=option, test="bootstrap")
                                  for name, option in selected))
    elif metric in ("mse", "mae"):
        y, a, b = (_score_column(frame, name, option=option, test="bootstrap") for name, option in selected)
    else:
        raise InputError(f"--metric must be one of {', '.join(_METRICS)}; got {metric!r}")
    result = compare.paired_bootstrap(y, a, b, metric=_METRICS[metric], n_resamples=args.resamples,
                                      method=args.interval, random_state=args.seed,
                                      confidence_level=args.confidence_level)
    print(f"paired bootstrap of {metric}, A = '{args.a}', B = '{args.b}': {args.resamples} resamples of "
          f"{result.n_units} cases, {100 * args.confidence_level:g}% {args.interval} intervals "
          f"(seed {args.seed})", file=out)
    table = result.summary_frame()
    print(table.to_string(index=False, float_format=lambda v: f"{v:.6g}"), file=out)
    print(f"pvalue  {result.pvalue:.6g}  (two-sided, B - A = 0)", file=out)
    table["pvalue"] = [np.nan, np.nan, result.pvalue]
    write_csv(args, table, out, result)
    return 0


def _mcnemar_against_truth(frame, args, out):
    """mcnemar with --truth: A's and B's predicted labels, each case right where it equals the truth."""
    selected = ((args.truth, "--truth"), (args.a, "--a"), (args.b, "--b"))
    y, a, b = common_labels(*(_label_column(frame, name, option=option, test="mcnemar")
                              for name, option in selected))
    ids = column(frame, args.id, what="SCORES").to_numpy() if args.id else None
    result = compare.mcnemar((a == y).astype(int), (b == y).astype(int), ids=ids, mid_p=args.mid_p)
    print(f"A = '{args.a}' and B = '{args.b}' scored against the truth '{args.truth}': A right in "
          f"{int((a == y).sum())} of {len(y)} cases, B right in {int((b == y).sum())}", file=out)
    print(str(result), file=out)
    write_csv(args, result.to_frame(), out)
    return 0


def _compare_words(args) -> dict:
    """What the user typed for each parameter of the compare functions
    (:func:`~predstab.cli._inputs.reword`)."""
    return {"scores": f"SCORES '{args.scores}'", "a": f"--a '{args.a}'", "b": f"--b '{args.b}'",
            "y_true": f"--truth '{args.truth}'", "ids": f"--id '{args.id}'", "n_train": "--n-train",
            "n_test": "--n-test", "confidence_level": "--confidence-level", "significance": "--significance",
            "n_resamples": "--resamples", "random_state": "--seed", "method": "--interval",
            "mid_p": "--mid-p", "paired": "--paired", "correction": "--correction"}


def _run_compare(args, out):
    # the library's messages name the file, its columns and the options the user typed
    with in_cli_words(**_compare_words(args)):
        return _compare(args, out)


def _compare(args, out):
    import pandas as pd

    for option in ("plot", "out"):
        if getattr(args, option):
            check_output_file(getattr(args, option), force=args.force, option=f"--{option}",
                              inputs={"SCORES": args.scores})
    if args.out:  # NAME.report.html beside --out NAME.csv
        check_output_file(report_beside(args.out), force=args.force, option="--out's report",
                          inputs={"SCORES": args.scores})
    out = Recorder(out)
    warn_ignored(args, "test", _COMPARE_OPTIONS)
    frame = read_table(args.scores, what="SCORES", **reading(args, args.scores))
    unique_columns(frame, what="SCORES")  # methods and selectors are named by their columns
    if args.test == "friedman":
        return _friedman(frame, args, out)
    if args.test == "bootstrap":
        return _bootstrap(frame, args, out)
    if args.test == "mcnemar" and args.truth is not None:
        return _mcnemar_against_truth(frame, args, out)
    a = _score_column(frame, args.a, option="--a", test=args.test)
    b = _score_column(frame, args.b, option="--b", test=args.test)
    if args.test == "mcnemar":
        ids = column(frame, args.id, what="SCORES").to_numpy() if args.id else None
        result = compare.mcnemar(a, b, ids=ids, mid_p=args.mid_p)
        print(str(result), file=out)  # the result's R-style block, as the Python API prints it
        write_csv(args, result.to_frame(), out, result)
        return 0
    if args.test == "permutation":
        result = compare.mean_permutation_test(a, b, paired=args.paired, random_state=args.seed)
    elif args.test == "corrected-t":
        if args.n_train is None or args.n_test is None:
            raise InputError("--test corrected-t needs --n-train and --n-test (the training and test "
                             "set sizes of one split)")
        result = compare.corrected_resampled_ttest(a, b, n_train=args.n_train, n_test=args.n_test,
                                                   confidence_level=args.confidence_level)
    elif args.test == "wilcoxon":
        result = compare.wilcoxon(a, b, correction=args.correction)
    else:
        raise InputError(f"--test must be one of {', '.join(_TESTS)}; got {args.test!r}")
    # the result's R-style block (print.htest), as the Python API prints it, its data line naming
    # the columns as R names its variables ("data:  new and old", not the API's "b and a")
    print(str(result).replace("\ndata:  b and a\n", f"\ndata:  {args.b} and {args.a}\n", 1), file=out)
    write_csv(args, pd.DataFrame([_test_fields(result)]), out, result)
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


def _define_power(p):
    p.add_argument("question", metavar="QUESTION", choices=("seeds", "power", "effect", "games"),
                   help="seeds: runs per arm needed (seeds_needed); power: power at --n (power_ttest); "
                        "effect: smallest detectable d at --n (detectable_effect); games: games needed "
                        "for a win rate (games_needed)")
    p.add_argument("--effect", metavar="D[,D...]", help="standardised effect(s) d (Cohen's d)")
    p.add_argument("--n", metavar="N[,N...]", help="runs (seeds) per arm")
    p.add_argument("--win-rate", metavar="P[,P...]", help="games: true win rate(s) of B")
    add_significance_option(p, "")
    p.add_argument("--power", type=probability, default=0.8, metavar="P", help="target power (default 0.8)")
    p.add_argument("--r-default", action="store_true",
                   help="count only the far rejection tail (power.t.test's strict = FALSE)")
    add_output_file_options(p, "the table")


def _positive_numbers(text, *, option, minimum=0.0):
    values = parse_list(text, option=option, convert=float)
    bad = [v for v in values if not (np.isfinite(v) and v > minimum)]
    if bad:
        # "at least 2 numbers" read as a count of numbers: the bound is on each one
        limit = "positive numbers" if minimum == 0 else f"numbers of at least {minimum:g} each"
        raise InputError(f"{option} must hold {limit}; got {text!r}")
    return values


def _run_power(args, out):
    import pandas as pd

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
    level = args.significance
    if args.question in ("seeds", "power", "effect") and args.win_rate is not None:
        raise InputError(f"--win-rate is only used by predstab power games; got {args.question}")
    rows = []
    if args.question == "seeds":
        unused(args.n, "--n")
        for d in _positive_numbers(need(args.effect, "--effect"), option="--effect"):
            with beyond_reach(f"--effect {d:g}"):
                n = compare.seeds_needed(d, significance=level, power=args.power, strict=strict)
                rows.append({"d": d, "n_per_arm": n,
                             "power": compare.power_ttest(d, n, significance=level, strict=strict)})
        title = f"seeds (runs) per arm for power {args.power:g} at significance level {level:g}"
    elif args.question == "power":
        effects = _positive_numbers(need(args.effect, "--effect"), option="--effect")
        ns = _positive_numbers(need(args.n, "--n"), option="--n", minimum=1.999999)
        for d in effects:
            for n in ns:
                with beyond_reach(f"--effect {d:g} with --n {n:g}"):
                    rows.append({"d": d, "n_per_arm": n,
                                 "power": compare.power_ttest(d, n, significance=level, strict=strict)})
        title = f"power of the two-sample t-test at significance level {level:g}"
    elif args.question == "effect":
        unused(args.effect, "--effect")
        for n in _positive_numbers(need(args.n, "--n"), option="--n", minimum=1.999999):
            with beyond_reach(f"--n {n:g}"):
                d = compare.detectable_effect(n, significance=level, power=args.power, strict=strict)
                rows.append({"n_per_arm": n, "d": d})
        title = f"smallest effect d detected with power {args.power:g} at significance level {level:g}"
    elif args.question == "games":
        unused(args.effect, "--effect")
        unused(args.n, "--n")
        rates = _positive_numbers(need(args.win_rate, "--win-rate"), option="--win-rate")
        if any(not 0 < p < 1 or p == 0.5 for p in rates):
            raise InputError("--win-rate must hold numbers between 0 and 1 other than 0.5; "
                             f"got {args.win_rate!r}")
        for p in rates:
            with beyond_reach(f"--win-rate {p:.10g} (so close to 0.5 that the exact test needs "
                              "too many games; choose a win rate farther from 0.5)"):
                g = compare.games_needed(p, significance=level, power=args.power)
            rows.append({"win_rate": p, "n_games": g.n, "power": g.power, "n_normal": g.n_normal,
                         "method": g.method})
        title = (f"games for the exact binomial test (vs 1/2) to reach power {args.power:g} at "
                 f"significance level {level:g} (n_normal: normal approximation)")
    else:
        raise InputError(f"QUESTION must be seeds, power, effect or games; got {args.question!r}")
    table = pd.DataFrame(rows)
    if args.question != "games":
        title += ", two-sided" + (", far tail only (R's default)" if args.r_default else "")
    print(title + ":", file=out)
    print(table.to_string(index=False, float_format=lambda v: f"{v:.6g}"), file=out)
    write_csv(args, table, out)
    return 0


COMMANDS = (
    Command("compare", "Did B beat A? Friedman-Nemenyi, McNemar, permutation, paired bootstrap, "
                       "corrected resampled t and Wilcoxon tests.", _COMPARE_EXAMPLE, _define_compare,
            _run_compare),
    Command("power", "How many seeds or games? Power of the two-sample t-test and of win rates.",
            _POWER_EXAMPLE, _define_power, _run_power),
)
