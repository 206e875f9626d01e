"""Suite ``cac``: irrCAC's coefficients from raw ratings and psych's ``alpha``.

Inputs: ``r-reference/agreement/cases/*.csv`` (objects x raters, empty = NA); R outputs:
``agreement/expected/irrCAC_*_raw.json`` (irrCAC 1.0) and ``psych_alpha.json`` (psych 2.2.9),
made by ``agreement/generate.R``.

irrCAC rounds ``coeff.val`` and ``coeff.se`` to 5 decimals and ``conf.int`` to 3 (a
string); the JSON lists those fields in ``rounded`` and gives ``coeff`` ((pa - pe) / (1 - pe)
from the returned pa and pe), ``coeff.se.exact`` and ``conf.int.exact`` from irrCAC's own
code with ``round`` made the identity. Exact fields are compared at 1e-10 relative; rounded
fields after rounding predstab's value as R did; p-values (R: ``2 * (1 - pt(...))``) at
1e-12 absolute.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from predstab import (
    brennan_prediger,
    conger_kappa,
    cronbach_alpha,
    fleiss_kappa,
    gwet_ac1,
    krippendorff_alpha,
    percent_agreement,
)
from validation._table import REFERENCE, Row, absolute, exact, load_json, rel

SUITE = "cac"
RTOL = 1e-10
P_ATOL = 1e-12  # irrCAC computes 2 * (1 - pt(|t|, n - 1)): cancellation below ~1e-15

FUNCTIONS = {
    "pa_coeff": ("pa.coeff.raw", percent_agreement),
    "gwet_ac1": ("gwet.ac1.raw", gwet_ac1),
    "bp_coeff": ("bp.coeff.raw", brennan_prediger),
    "conger_kappa": ("conger.kappa.raw", conger_kappa),
    "fleiss_kappa": ("fleiss.kappa.raw", lambda x, weights: fleiss_kappa(x, weights=weights)),
    "krippen_alpha": ("krippen.alpha.raw", lambda x, weights: krippendorff_alpha(x, weights=weights)),
}


def read_case(name):
    """An (objects x raters) matrix as R wrote it (empty = NA)."""
    return pd.read_csv(REFERENCE / "agreement" / "cases" / f"{name}.csv")


def records(key):
    """``(case, record)`` pairs of ``irrCAC_<key>_raw.json``."""
    data = load_json("agreement", "expected", f"irrCAC_{key}_raw.json")
    return [(case, rec) for case, recs in data.items() for rec in recs]


def run(key, case, rec):
    """predstab's result for one irrCAC record (the weights as irrCAC's ``weights`` argument)."""
    func = FUNCTIONS[key][1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return func(read_case(case), weights=rec["weights"])


def r_round_text(x, digits=3):
    """``as.character(round(x, digits))`` as irrCAC pastes it into ``conf.int``."""
    text = f"{round(float(x), digits):.15g}"
    return "0" if text == "-0" else text


def r_text(value):
    """``as.character`` of a category: numbers with 15 significant digits (2.0 -> "2")."""
    return f"{value:.15g}" if isinstance(value, (int, float)) and not isinstance(value, bool) else str(value)


def cac_rows(key, case, rec):
    """One row per R field of one irrCAC record."""
    r_name = FUNCTIONS[key][0]
    label = f"{r_name} {case} {rec['weights']}"
    res = run(key, case, rec)
    yield rel(SUITE, label, "coeff", rec["coeff"], res.value, rtol=RTOL)
    yield rel(SUITE, label, "pa", rec["pa"], res.pa, rtol=RTOL)
    yield rel(SUITE, label, "pe", rec["pe"], res.pe, rtol=RTOL, atol=1e-15)
    yield rel(SUITE, label, "coeff.se (exact)", rec["coeff.se.exact"], res.standard_error, rtol=RTOL)
    low, high = rec["conf.int.exact"]
    yield rel(SUITE, label, "conf.int (exact) low", low, res.confidence_interval.low, rtol=RTOL)
    yield rel(SUITE, label, "conf.int (exact) high", high, res.confidence_interval.high, rtol=RTOL)
    yield absolute(SUITE, label, "p.value", rec["p.value"], res.pvalue, atol=P_ATOL)
    if "coeff.val" in rec["rounded"]:
        yield absolute(SUITE, label, "coeff.val (round 5)", rec["coeff.val"], round(res.value, 5), atol=1e-12)
    else:
        yield rel(SUITE, label, "coeff.val", rec["coeff.val"], res.value, rtol=RTOL)
    yield absolute(SUITE, label, "coeff.se (round 5)", rec["coeff.se"], round(res.standard_error, 5),
                   atol=1e-12)
    ci_text = f"({r_round_text(res.confidence_interval.low)},{r_round_text(res.confidence_interval.high)})"
    yield exact(SUITE, label, "conf.int (round 3)", rec["conf.int"], ci_text)
    yield exact(SUITE, label, "coeff.name", rec["coeff.name"], res.coefficient)
    yield exact(SUITE, label, "w.name", rec["w.name"], res.weights)
    # irrCAC upper-cases text labels; predstab keeps them as given
    yield exact(SUITE, label, "categories", rec["categories"], [r_text(c).upper() for c in res.categories])
    diff = float(np.max(np.abs(np.asarray(rec["weights.matrix"], dtype=float) - res.weight_matrix)))
    yield Row(SUITE, label, "weights (matrix)", "q x q", f"{res.weight_matrix.shape}", diff, "1e-15 abs",
              diff <= 1e-15)


ALPHA_TOTAL = {"raw_alpha": "value", "std.alpha": "standardized", "G6(smc)": "g6", "average_r": "average_r",
               "S/N": "signal_noise", "ase": "standard_error", "mean": "mean", "sd": "sd",
               "median_r": "median_r"}


def alpha_rows(case, rec):
    """One row per field of ``psych::alpha(x)``: total, alpha.drop, item.stats, feldt."""
    label = f"psych::alpha {case}"
    res = cronbach_alpha(read_case(case))
    for r_field, attr in ALPHA_TOTAL.items():
        yield rel(SUITE, label, f"total {r_field}", rec["total"][r_field], getattr(res, attr), rtol=RTOL)
    for item, fields in rec["alpha.drop"].items():
        for r_field, value in fields.items():
            yield rel(SUITE, label, f"alpha.drop {item} {r_field}", value, res.alpha_drop.loc[item, r_field],
                      rtol=RTOL)
    for item, fields in rec["item.stats"].items():
        for r_field, value in fields.items():
            yield rel(SUITE, label, f"item.stats {item} {r_field}", value, res.item_stats.loc[item, r_field],
                      rtol=RTOL)
    feldt, ci = rec["feldt"], res.confidence_interval
    yield rel(SUITE, label, "feldt lower.ci", feldt["lower.ci"], ci.low, rtol=RTOL)
    yield rel(SUITE, label, "feldt alpha", feldt["alpha"], res.value, rtol=RTOL)
    yield rel(SUITE, label, "feldt upper.ci", feldt["upper.ci"], ci.high, rtol=RTOL)


def rows():
    for key in FUNCTIONS:
        for case, rec in records(key):
            yield from cac_rows(key, case, rec)
    for case, rec in load_json("agreement", "expected", "psych_alpha.json").items():
        yield from alpha_rows(case, rec)
