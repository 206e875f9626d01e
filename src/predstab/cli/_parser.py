"""The argument parser of ``predstab``: one sub-parser per command (declared by the command
modules as :class:`~predstab.cli._options.Command`), and the earlier names of renamed options.

One name per option across commands, spelled as the Python parameter it sets where there is
one (``--scale``, ``--categories``, ``--confidence-level``, ``--significance``;
``--resamples`` for ``n_resamples``, ``--repeats`` for ``n_repeats``, ``--jobs`` for
``n_jobs``). An option's earlier name is refused with a usage error naming the new one
(exit code 2), never read as something else: :data:`RENAMED`.
"""

from __future__ import annotations

import argparse

from .. import __version__
from . import _compare, _measures, _tuning

__all__ = ["build_parser", "EXIT_USAGE", "RENAMED"]

EXIT_USAGE = 2

# command -> {earlier option: (the option now, what it is)}; CHANGELOG.md lists them too
RENAMED = {
    "tune": {"--levels": ("--categories", "the target's categories in order, for --task ordinal"),
             "--bootstrap": ("--resamples", "resamples for the recommendation's interval"),
             "--test": ("--test-data", "the file of test objects; compare's --test is the test to run")},
    "stability": {"--levels": ("--categories", "the ordinal categories in order")},
    "agree": {"--level": ("--scale", "the measurement level of --measure alpha"),
              "--levels": ("--categories", "the ordinal categories in order"),
              "--conf-level": ("--confidence-level", "the confidence level of the interval")},
    "compare": {"--alpha": ("--significance", "the significance level of friedman"),
                "--level": ("--confidence-level", "the confidence level of the interval"),
                "--old": ("--a", "the column of model A; B is --b"),
                "--new": ("--b", "the column of model B; A is --a"),
                "--no-correct": ("--no-correction", "wilcoxon without continuity correction")},
    "power": {"--alpha": ("--significance", "the significance level of the test")},
}


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr (exit code 2), not usage + error; an
    option is never abbreviated (``--cat`` is not ``--categories``)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, allow_abbrev=False, **kwargs)

    def error(self, message):
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


class _Renamed(argparse.Action):
    """An option's earlier name: using it is a usage error that names the option now."""

    def __init__(self, option_strings, dest, *, now, meaning, **kwargs):
        # nargs="?": "--level ordinal" and a bare "--no-correct" both reach this message
        super().__init__(option_strings, argparse.SUPPRESS, nargs="?", default=argparse.SUPPRESS,
                         help=argparse.SUPPRESS)
        self.now, self.meaning = now, meaning

    def __call__(self, parser, namespace, values, option_string=None):
        parser.error(f"{option_string} was renamed {self.now} in predstab 0.2.0 ({self.meaning})")


def _formatter(prog):
    return argparse.RawDescriptionHelpFormatter(prog, max_help_position=32)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``predstab`` (one sub-parser per command)."""
    parser = _Parser(prog="predstab", formatter_class=_formatter,
                     description="Prediction stability of non-deterministic models (APS phi/psi), "
                                 "agreement coefficients, tree-count tuning and model comparison.",
                     epilog="example:\n  predstab demo\n  predstab stability --help\n\n"
                            "Every command reads objects in rows and refits (raters) in columns and "
                            "prints R's layout.")
    parser.add_argument("--version", action="version", version=f"predstab {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks of unexpected errors")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for command in (*_tuning.COMMANDS, *_measures.COMMANDS, *_compare.COMMANDS):
        p = sub.add_parser(command.name, help=command.summary, description=command.summary,
                           epilog=command.example, formatter_class=_formatter)
        p.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
        command.define(p)
        for old, (now, meaning) in RENAMED.get(command.name, {}).items():
            p.add_argument(old, action=_Renamed, now=now, meaning=meaning)
        # what "given" means for options a choice ignores: the defaults
        p.set_defaults(func=command.run, option_defaults={a.dest: a.default for a in p._actions})
    return parser
