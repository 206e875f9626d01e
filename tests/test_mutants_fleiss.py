"""Value-pinning checks of predstab.fleiss_kappa written to kill mutmut's surviving mutants.

Reference: Fleiss (1971) and irr 0.84.1's ``kappam.fleiss`` (standard errors of Fleiss,
Nee & Landis 1979) written out below; the data have a missing value, so that the dropped
object's category (4) must vanish from the categories, as it does after R's ``na.omit``.
"""

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from predstab import PredstabDataWarning, fleiss_kappa

X = np.array([[1, 2, 2], [1, 1, 1], [3, 3, 2], [2, 2, 2], [1, 3, 3], [np.nan, 4, 4]])


def irr_kappam_fleiss(x):
    x = x[~np.isnan(x).any(axis=1)]
    n, m = x.shape
    cats = sorted(set(x.ravel().tolist()))
    counts = np.array([[np.sum(row == c) for c in cats] for row in x], dtype=float)
    p = counts.sum(axis=0) / (n * m)
    q = 1 - p
    p_i = (np.sum(counts**2, axis=1) - m) / (m * (m - 1))
    p_e = np.sum(p**2)
    kappa = (p_i.mean() - p_e) / (1 - p_e)
    pq = np.sum(p * q)
    se = math.sqrt(2) / (pq * math.sqrt(n * m * (m - 1))) * math.sqrt(pq**2 - np.sum(p * q * (q - p)))
    z = kappa / se
    kappa_j = 1 - np.sum(counts * (m - counts), axis=0) / (n * m * (m - 1) * p * q)
    z_j = kappa_j / math.sqrt(2 / (n * m * (m - 1)))
    return cats, kappa, z, 2 * stats.norm.sf(abs(z)), kappa_j, z_j, 2 * stats.norm.sf(np.abs(z_j))


@pytest.mark.parametrize("as_frame", [None, "category", "shared categories"])
def test_detail_after_dropping_an_object(as_frame):
    # a DataFrame of Categoricals sharing one set of categories is read from its codes
    shared = pd.CategoricalDtype([1.0, 2.0, 3.0, 4.0])
    ratings = X if as_frame is None else pd.DataFrame(X).astype(
        "category" if as_frame == "category" else shared)
    with pytest.warns(PredstabDataWarning) as record:
        res = fleiss_kappa(ratings, detail=True)
    assert [str(w.message) for w in record] == [
        "1 of 6 objects have a missing value and were dropped (as irr::kappam.fleiss does with na.omit)."]
    cats, kappa, z, p, kappa_j, z_j, p_j = irr_kappam_fleiss(X)
    assert res.value == pytest.approx(kappa, rel=1e-12)
    assert res.statistic == pytest.approx(z, rel=1e-12)
    assert res.pvalue == pytest.approx(p, rel=1e-12)
    assert res.per_category.index.tolist() == cats == [1.0, 2.0, 3.0]
    np.testing.assert_allclose(res.per_category["kappa"], kappa_j, rtol=1e-12)
    np.testing.assert_allclose(res.per_category["z"], z_j, rtol=1e-12)
    np.testing.assert_allclose(res.per_category["p"], p_j, rtol=1e-12)


def test_print_layout():
    # irr print.irrlist: format(x, digits = 3) for kappa, z and p; the detail table to 3 decimals
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PredstabDataWarning)
        res = fleiss_kappa(X, detail=True)
    assert res.statistic == pytest.approx(2.1317383, rel=1e-7)
    assert str(res).splitlines() == [
        " Fleiss' Kappa for m Raters", "",
        " Subjects = 5", "   Raters = 3", "    Kappa = 0.392", "",
        "        z = 2.13", "  p-value = 0.033", "",
        "     Kappa     z  p.value",
        "1.0  0.400 1.549    0.121",
        "2.0  0.444 1.721    0.085",
        "3.0  0.318 1.232    0.218",
    ]
