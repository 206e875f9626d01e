"""irrCAC's ``*.dist`` functions (count tables, ``counts=True``) against irrCAC 1.0 itself.

Expected values: tests/data/irrcac-dist/expected.json, written by generate.R beside it
(irrCAC 1.0, R 4.2.2: ``<fn>.dist(table, weights = w, categ = categ)`` on each table of
tables/, categ the column names where they are numbers). The integer tables are the count
tables of validation's raw cases; frac_* hold weighted, non-integer counts (statsmodels'
``fleiss_kappa`` accepts those too).
"""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from predstab import brennan_prediger, fleiss_kappa, gwet_ac1, krippendorff_alpha, percent_agreement

HERE = Path(__file__).resolve().parents[1] / "data" / "irrcac-dist"
RECORDS = json.loads((HERE / "expected.json").read_text())
FUNCTIONS = {"krippen.alpha.dist": krippendorff_alpha, "fleiss.kappa.dist": fleiss_kappa,
             "gwet.ac1.dist": gwet_ac1, "bp.coeff.dist": brennan_prediger, "pa.coeff.dist": percent_agreement}
RTOL = 1e-10


def _table(name):
    table = pd.read_csv(HERE / "tables" / f"{name}.csv")
    try:
        categories = [float(c) for c in table.columns]
    except ValueError:
        categories = None
    return table, categories


IDS = [f"{r['function']}-{r['table']}-{r['weights']}" for r in RECORDS]


@pytest.mark.parametrize("rec", RECORDS, ids=IDS)
def test_every_irrcac_dist_record(rec):
    table, categories = _table(rec["table"])
    func = FUNCTIONS[rec["function"]]
    options = dict(counts=True, weights=rec["weights"])
    if func is not fleiss_kappa:
        options["categories"] = categories
    elif categories is not None:
        table = table.set_axis(categories, axis=1)
    res = func(table, **options)
    assert res.value == pytest.approx(rec["coeff"], rel=RTOL, abs=1e-12)
    assert res.pe == pytest.approx(rec["pe"], rel=RTOL, abs=1e-15)
    assert res.pa == pytest.approx(rec["pa"], rel=RTOL)
    # R's stderr of a coefficient whose terms all vanish is rounding noise (1e-13); so is ours
    assert res.standard_error == pytest.approx(rec["stderr"], rel=1e-8, abs=1e-12)


def test_weighted_counts_match_statsmodels():
    # statsmodels 0.14: fleiss_kappa([[6.99, 0.01], [6.99, 0.01]]) = -0.166667 ("fleiss") and
    # 0.993343 ("randolph", Brennan-Prediger's free-marginal kappa); issue 38's example
    table = np.array([[6.99, 0.01], [6.99, 0.01]])
    assert fleiss_kappa(table, counts=True).value == pytest.approx(-0.16666666666654992, rel=1e-9)
    assert brennan_prediger(table, counts=True).value == pytest.approx(0.9933428571428575, rel=1e-12)
    # an independent computation: p_j from the column totals, P_i from sum_j n_ij (n_ij - 1)
    n = table.sum(axis=1)[0]
    p = table.sum(axis=0) / table.sum()
    p_bar = np.mean((np.sum(table * table, axis=1) - n) / (n * (n - 1)))
    expected = (p_bar - p @ p) / (1 - p @ p)
    assert fleiss_kappa(table, counts=True).value == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize("bad", [[[1.5, -0.5], [2.0, 0.0]], [[np.inf, 1.0], [2.0, 0.0]]])
def test_counts_must_be_finite_and_non_negative(bad):
    with pytest.raises(ValueError, match="finite"):
        fleiss_kappa(np.array(bad), counts=True)
