"""The options of the commands: their types (one-line errors naming the value), the options
several commands share (reading CSV files, output files, the vocabulary of the Python API:
``--categories``, ``--confidence-level``, ``--significance``), and :class:`Command`, how a
command module declares a command."""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Callable

import numpy as np

__all__ = ["Command", "positive_int", "non_negative_int", "n_jobs", "probability", "positive_float",
           "fraction", "max_features", "add_reading_options", "add_output_file_options",
           "add_categories_option", "add_confidence_level_option", "add_significance_option"]


@dataclasses.dataclass(frozen=True)
class Command:
    """One ``predstab`` command: its name, one-line summary, worked example (the end of its
    ``--help``), ``define(parser)`` adding its options and ``run(args, out)`` returning the exit
    code."""

    name: str
    summary: str
    example: str
    define: Callable
    run: Callable


# ----------------------------------------------------------------------------- option types
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


positive_int = _checked(int, lambda v: v >= 1, "a positive integer")
non_negative_int = _checked(int, lambda v: v >= 0, "a whole number >= 0")
probability = _checked(float, lambda v: 0 < v < 1, "a number between 0 and 1")
positive_float = _checked(float, lambda v: bool(np.isfinite(v) and v > 0), "a positive number")
fraction = _checked(float, lambda v: 0 < v <= 1, "a fraction in (0, 1]")
n_jobs = _checked(int, lambda v: v != 0, "a non-zero integer (joblib's n_jobs: -1 for every core)")


def max_features(text):
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


# ----------------------------------------------------------------------------- shared options
def add_reading_options(p):
    """``--header`` / ``--no-header`` (whether the first line names the columns), ``--sep`` and
    ``--dec`` (R's ``sep`` and ``dec``): how every command reads its CSV files
    (:func:`predstab.read_table`'s ``header``, ``sep``, ``dec``; detected by default)."""
    group = p.add_argument_group("reading CSV files (R's read.csv arguments; detected by default)")
    group.add_argument("--header", action=argparse.BooleanOptionalAction, default=None,
                       help="the first line of every file names its columns (--no-header: is data). "
                            "Default: decided per file, yes unless the line holds only bare numbers "
                            "(then it is data, with a note); a bare '0,1,...,k-1' (k >= 3) is pandas' "
                            "column numbers (a header, with a note); a bare '0' or '0,1' is refused "
                            "(header or data?): say which with --header-in / --no-header-in")
    group.add_argument("--header-in", action="append", default=[], metavar="FILE",
                       help="the first line of FILE names its columns (that file only; repeatable)")
    group.add_argument("--no-header-in", action="append", default=[], metavar="FILE",
                       help="the first line of FILE is data (that file only; repeatable), e.g. a "
                            "column of 0/1 responses written without a name")
    # metavars: argparse would show the choices as "{,,;,tab,space}" and "{.,,}"
    group.add_argument("--sep", choices=[",", ";", "tab", "space"], default=None, metavar="SEP",
                       help="field separator: ',', ';', tab or space (';' with decimal commas is "
                            "R's write.csv2, tab R's write.table(sep = '\\t'))")
    group.add_argument("--dec", choices=[".", ","], default=None, metavar="DEC",
                       help="decimal mark: '.' or ',' (default: ',' with --sep ';', else '.')")


def add_output_file_options(p, what):
    """``--out FILE`` (CSV of ``what``) and ``--force``."""
    p.add_argument("--out", metavar="FILE", help=f"write {what} as CSV")
    p.add_argument("--force", action="store_true", help="replace existing output files")


def add_categories_option(p, what):
    p.add_argument("--categories", metavar="A,B,C", help=what)


def add_confidence_level_option(p, what):
    p.add_argument("--confidence-level", type=probability, default=0.95, metavar="L",
                   help=f"{what}confidence level of the interval (default 0.95)")


def add_significance_option(p, what):
    p.add_argument("--significance", type=probability, default=0.05, metavar="S",
                   help=f"{what}significance level of the test (alpha; default 0.05)")
