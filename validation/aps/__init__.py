"""APS 1.0.1 parity: every record of ``r-reference/aps/expected/aps_cases.json``.

For each of the 88 records (78 with a value, 10 where APS raises) the table compares
prediction stability, observed and expected instability (1e-12 relative; undefined on
both sides counts as equal), APS's printed layout line by line, the warnings, and
the errors. Three records are deliberate differences (see ``validation/aps/README.md``):
they show APS's error beside predstab's value and pass when predstab's value equals the
value of the equivalent data.

``python -m validation.aps`` prints just this table.
"""

from __future__ import annotations

import warnings

import pandas as pd

from .._table import REFERENCE, Row, exact, load_json, raises, rel
from .naive import naive_stability

SUITE = "aps"
RTOL = 1e-12  # S, D_o and D_e: observed worst case 2e-14 (ord_reordered_levels_phi)
CASES = REFERENCE / "aps" / "cases"

# APS warning -> topic; predstab's warnings are mapped to the same topics
_APS_TOPICS = (
    ("fewer than 5 repeated predictions", "few repetitions"),
    ("'prediction_matrix' contains missing values", "missing predictions"),
    ("Training data contains missing values", "missing baseline"),
    ("is excluded from stability calculation", "rows dropped"),
    ("identical across repetitions", "identical"),
    ("Both expected and observed instability are zero", "collapsed"),
    ("Expected instability is zero but observed is not", "undefined"),
)

# The three deliberate differences (issue 4); the reasons are in validation/aps/README.md.
DIFFERENCES = {
    "cat_na_pred_phi": (
        "APS 1.0.1 rejects a missing categorical prediction unless the baseline also has one; "
        "predstab drops missing predictions on every scale: equals APS on cat_na_pred_na_base_phi "
        "(the same data with an NA added to the baseline)"),
    "ord_na_pred_phi": (
        "as cat_na_pred_phi on the ordinal scale; APS has no value for this data, so predstab is "
        "checked against the pairwise definition (validation/aps/naive.py)"),
    "ord_na_pred_na_base_phi": (
        "APS 1.0.1 checks the ordinal levels before dropping NAs, so any NA in an ordinal baseline "
        "is an error; predstab drops it as on the other scales (checked against validation/aps/naive.py)"),
}
# case whose APS value is predstab's value for the equivalent data
_EQUIVALENT = {"cat_na_pred_phi": "cat_na_pred_na_base_phi"}
# the phrase of APS's error that predstab's message must contain
_ERROR_PHRASES = {
    "cat_unknown_pred_error": "Some prediction values do not occur in the training data",
    "ord_missing_levels_error": "'scale' = 'ordinal' requires setting `ordinal_levels`",
    "ord_base_not_in_levels_error": "Some values do not occur in 'ordinal_levels'",
    "err_metric_on_text": "'scale' = 'metric' doesn't match the data type which is 'character'",
    "err_one_column": "must contain predictions from at least two repetitions (columns)",
    "err_short_baseline": "must contain at least two elements",
    "err_type_mismatch": "Type mismatch between the prediction matrix and the training data",
}
PRINT_DIFFERENCE = ("APS's print method fails on an undefined stability (NA); predstab prints the "
                    "same layout with NA")


def load_cases():
    """The 88 records of ``aps_cases.json``."""
    return load_json("aps", "expected", "aps_cases.json")


def read_case_csv(name):
    """Read a case CSV as R wrote it: "NA" is missing; quoted columns are text (character)."""
    path = CASES / name
    lines = path.read_text(encoding="utf-8").splitlines()
    quoted = any('"' in line for line in lines[1:])
    return pd.read_csv(path, keep_default_na=False, na_values=["NA"], dtype=str if quoted else None)


def case_inputs(case):
    """``(prediction_matrix, baseline)`` of a record: a DataFrame, and a Series or DataFrame."""
    pm = read_case_csv(case["prediction_matrix"])
    base = read_case_csv(case["baseline"])
    if case["baseline_shape"] == "vector":
        base = base.iloc[:, 0]
    return pm, base


def run_case(case):
    """Call predstab as the R script called APS: ``calculate_phi/psi(pm, base, scale, levels)``.

    Returns ``(result or None, exception or None, [warnings])``.
    """
    import predstab

    pm, base = case_inputs(case)
    fn = predstab.calculate_phi if case["fn"] == "phi" else predstab.calculate_psi
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            return fn(pm, base, case["scale"], case["ordinal_levels"]), None, caught
        except (ValueError, TypeError) as exc:
            return None, exc, caught


def aps_topics(messages):
    """Topics of APS's warnings (sorted)."""
    out = []
    for msg in messages:
        topic = next((t for phrase, t in _APS_TOPICS if phrase in msg), f"other: {msg}")
        out.append(topic)
    return sorted(out)


# the phrase of predstab's warning that the refits' shape makes its per-object intervals unreliable
_INTERVAL_SHAPE = "may cover less than the nominal level"


def predstab_topics(caught):
    """Topics of predstab's warnings (sorted), by class and phrase."""
    from predstab import PredstabDataWarning, PredstabDegenerateWarning, PredstabUndefinedWarning

    out = []
    for w in caught:
        msg = str(w.message)
        if _INTERVAL_SHAPE in msg:
            continue  # about predstab's confidence intervals, which APS does not compute
        if issubclass(w.category, PredstabDegenerateWarning):
            out.append("collapsed")
        elif issubclass(w.category, PredstabUndefinedWarning):
            out.append("undefined")
        elif issubclass(w.category, PredstabDataWarning):
            if "fewer than 5 repeated predictions" in msg:
                out.append("few repetitions")
            elif "contains missing values" in msg and msg.startswith("The training data"):
                out.append("missing baseline")
            elif "contains missing values" in msg:
                out.append("missing predictions")
            elif "excluded from the stability calculation" in msg:
                out.append("rows dropped")
            elif "identical across repetitions" in msg:
                out.append("identical")
            else:
                out.append(f"other: {msg}")
        else:
            out.append(f"other: {w.category.__name__}: {msg}")
    return sorted(out)


def _naive_value(case):
    pm, base = case_inputs(case)
    rows = [[None if pd.isna(v) else v for v in row] for row in pm.to_numpy(dtype=object).tolist()]
    flat = [None if pd.isna(v) else v for v in pd.DataFrame(base).to_numpy(dtype=object).ravel().tolist()]
    return naive_stability(rows, flat, case["scale"], case["ordinal_levels"])


def _difference_rows(case, by_id):
    cid = case["id"]
    res, exc, _ = run_case(case)
    reason = DIFFERENCES[cid]
    r_error = f"APS error: {case['error']}"
    if res is None:
        return [Row(SUITE, cid, "documented difference", r_error, f"raised {exc!r}", None,
                    "value expected", False, reason)]
    if cid in _EQUIVALENT:
        ref_case = by_id[_EQUIVALENT[cid]]
        ref = ref_case["result"]
        ref_values = (ref["prediction_stability"], ref["observed_instability"], ref["expected_instability"])
        tol = f"1e-12 rel vs APS on {ref_case['id']}"
    else:
        ref_values = _naive_value(case)
        tol = "1e-12 rel vs naive.py"
    rows = []
    values = (res.value, res.observed, res.expected)
    for quantity, r_value, value in zip(("S", "D_o", "D_e"), ref_values, values, strict=True):
        diff = abs(value - r_value)
        ok = diff <= RTOL * abs(r_value)
        shown = r_error if quantity == "S" else r_value  # APS's error beside predstab's value
        rows.append(Row(SUITE, cid, f"documented difference ({quantity})", shown, value, diff, tol, ok,
                        reason))
    return rows


def _print_difference_row(case, res):
    """APS's print crashes on NA; predstab's lines must be APS's layout with NA."""
    r = case["result"]
    desc = r["description"]

    def fmt(x):
        return "    NA" if x is None else f"{x:6.5g}"
    expected = ["", desc + " ", "-" * len(desc), f"Prediction stability: {fmt(r['prediction_stability'])} ",
                f"Observed instability: {fmt(r['observed_instability'])} ",
                f"Expected instability: {fmt(r['expected_instability'])} ", ""]
    got = str(res).split("\n")
    return Row(SUITE, case["id"], "documented difference (print)", r["printed"], " | ".join(got), None,
               "APS layout with NA", got == expected, PRINT_DIFFERENCE)


def rows():
    """Every check of the APS suite, in the order of ``aps_cases.json``."""
    cases = load_cases()
    by_id = {c["id"]: c for c in cases}
    for case in cases:
        cid = case["id"]
        if cid in DIFFERENCES:
            yield from _difference_rows(case, by_id)
            continue
        if case["result"] is None:
            yield raises(SUITE, cid, case["error"], lambda case=case: _raise_if_error(case),
                         match=_ERROR_PHRASES[cid], note=case["note"])
            continue
        res, exc, caught = run_case(case)
        r = case["result"]
        if res is None:
            yield Row(SUITE, cid, "S", r["prediction_stability"], f"raised {exc!r}", None, "-", False)
            continue
        yield rel(SUITE, cid, "S (prediction stability)", r["prediction_stability"], res.value, rtol=RTOL,
                  note=case["note"])
        yield rel(SUITE, cid, "D_o (observed)", r["observed_instability"], res.observed, rtol=RTOL)
        yield rel(SUITE, cid, "D_e (expected)", r["expected_instability"], res.expected, rtol=RTOL)
        if isinstance(r["printed"], str):  # APS's print failed
            yield _print_difference_row(case, res)
        else:
            yield exact(SUITE, cid, "printed", " | ".join(r["printed"]), " | ".join(str(res).split("\n")))
        yield exact(SUITE, cid, "warnings", aps_topics(case["warnings"]), predstab_topics(caught))


def _raise_if_error(case):
    res, exc, _ = run_case(case)
    if exc is not None:
        raise exc
    return res
