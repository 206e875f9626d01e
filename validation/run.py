"""Run the parity suites and print the table; exit non-zero on any failure.

Usage::

    python -m validation                 # every suite
    python -m validation classic aps     # some suites
    python -m validation --markdown validation/REPORT.md
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
import traceback
from pathlib import Path

from . import suites
from ._table import Row, format_row, header, markdown


def available_suites() -> list[str]:
    return sorted(m.name for m in pkgutil.iter_modules(suites.__path__) if not m.name.startswith("_"))


def run_suite(name: str) -> list[Row]:
    """All rows of one suite; an exception inside a suite becomes one failing row."""
    module = importlib.import_module(f"validation.suites.{name}")
    try:
        return list(module.rows())
    except Exception as exc:  # a crashing suite must show up as a failure, not vanish
        tb = traceback.format_exc(limit=3)
        return [Row(name, "<suite crashed>", "exception", None, f"{type(exc).__name__}: {exc}",
                    None, "-", False, tb)]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m validation", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("suites", nargs="*", help=f"suites to run (default all: {available_suites()})")
    parser.add_argument("--markdown", type=Path, help="also write the table as markdown to this file")
    parser.add_argument("--failures-only", action="store_true", help="print only failing rows")
    args = parser.parse_args(argv)
    names = args.suites or available_suites()
    unknown = sorted(set(names) - set(available_suites()))
    if unknown:
        parser.error(f"unknown suite(s) {unknown}; available: {available_suites()}")
    rows = [row for name in names for row in run_suite(name)]
    print(header())
    for row in rows:
        if row.passed and args.failures_only:
            continue
        print(format_row(row))
    n_fail = sum(not r.passed for r in rows)
    print(f"\n{len(rows) - n_fail} passed, {n_fail} failed ({len(rows)} checks in {len(names)} suites)")
    if args.markdown:
        args.markdown.write_text(markdown(rows), encoding="utf-8")
    if not rows:
        print("no checks ran", file=sys.stderr)
        return 1
    return 1 if n_fail else 0
