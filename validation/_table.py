"""Rows of the parity table and the comparison rules every suite uses.

A suite is a module ``validation/suites/<name>.py`` with a function
``rows() -> Iterable[Row]``. Each row compares one quantity of one case: the R
value (from ``validation/r-reference``), predstab's value, the tolerance and
whether it passed. Tolerances are written into the row, never loosened to pass.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

REFERENCE = Path(__file__).resolve().parent / "r-reference"


def load_json(*parts):
    """Read a JSON file below ``validation/r-reference``."""
    with open(REFERENCE.joinpath(*parts), encoding="utf-8") as fh:
        return json.load(fh)


@dataclass(frozen=True)
class Row:
    suite: str
    case: str
    quantity: str
    r_value: object
    predstab_value: object
    difference: float | None
    tolerance: str
    passed: bool
    note: str = ""


def _num(x):
    return None if x is None else float(x)


def rel(suite, case, quantity, r_value, value, *, rtol=1e-10, atol=0.0, note=""):
    """Compare numbers: pass when ``|value - r| <= max(rtol * |r|, atol)``.

    Two NaN/None (undefined on both sides) compare equal.
    """
    r, v = _num(r_value), _num(value)
    r_undef = r is None or math.isnan(r)
    v_undef = v is None or math.isnan(v)
    if r_undef or v_undef:
        ok = r_undef and v_undef
        diff = None
    else:
        diff = abs(v - r)
        ok = diff <= max(rtol * abs(r), atol)
    tol = f"{rtol:.0e} rel" + (f", {atol:.0e} abs" if atol else "")
    return Row(suite, case, quantity, r_value, value, diff, tol, ok, note)


def absolute(suite, case, quantity, r_value, value, *, atol, note=""):
    """Compare numbers with an absolute tolerance (for R output that is rounded)."""
    r, v = _num(r_value), _num(value)
    if r is None or v is None or math.isnan(r) or math.isnan(v):
        ok = (r is None or math.isnan(r)) and (v is None or math.isnan(v))
        diff = None
    else:
        diff = abs(v - r)
        ok = diff <= atol
    return Row(suite, case, quantity, r_value, value, diff, f"{atol:.0e} abs", ok, note)


def exact(suite, case, quantity, r_value, value, *, note=""):
    """Compare integers, strings or other values for equality."""
    return Row(suite, case, quantity, r_value, value, None, "exact", r_value == value, note)


def raises(suite, case, r_message, func, *, match=None, note=""):
    """R raised ``r_message``; predstab must raise ValueError/TypeError (containing ``match``)."""
    try:
        func()
    except (ValueError, TypeError) as exc:
        ok = match is None or match in str(exc)
        return Row(suite, case, "error", r_message, f"{type(exc).__name__}: {exc}", None,
                   "raises" + (f" '{match}'" if match else ""), ok, note)
    return Row(suite, case, "error", r_message, "no error", None, "raises", False, note)


def _fmt(x, width):
    if isinstance(x, float):
        s = "NaN" if math.isnan(x) else f"{x:.10g}"
    elif x is None:
        s = "NA"
    else:
        s = str(x).replace("\n", " ")
    return s if len(s) <= width else s[: width - 1] + "…"


COLUMNS = (("suite", 8), ("case", 34), ("quantity", 22), ("R", 18), ("predstab", 18),
           ("|diff|", 9), ("tolerance", 16), ("", 4))


def format_row(row: Row) -> str:
    cells = (row.suite, row.case, row.quantity, row.r_value, row.predstab_value,
             "" if row.difference is None else f"{row.difference:.1e}", row.tolerance,
             "ok" if row.passed else "FAIL")
    return "  ".join(_fmt(c, w).ljust(w) for c, (_, w) in zip(cells, COLUMNS, strict=True))


def header() -> str:
    line = "  ".join(name.ljust(w) for name, w in COLUMNS)
    return line + "\n" + "-" * len(line)


def markdown(rows) -> str:
    out = ["| suite | case | quantity | R | predstab | abs. difference | tolerance | result | note |",
           "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        diff = "" if r.difference is None else f"{r.difference:.1e}"
        cells = [r.suite, r.case, r.quantity, _fmt(r.r_value, 60), _fmt(r.predstab_value, 60), diff,
                 r.tolerance, "pass" if r.passed else "**FAIL**", r.note]
        out.append("| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |")
    return "\n".join(out) + "\n"
