"""Tests of two ratings' C x C table beyond irr: the Fleiss-Everitt form of Stuart's test and the
Fleiss-Levin-Paik test, against contingencytables' own values (issue 38)."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from predstab import fleiss_levin_paik, stuart_maxwell

# contingencytables 3.0 unit tests (tests/testthat, chapter 9), R:
#   FleissEveritt_test_paired_cxc(rbind(c(35, 5, 0), c(15, 20, 5), c(10, 5, 5)))
#     "The Fleiss-Everitt version of the Stuart test: P = 0.000912, T = 14.000 (df=2)"
#   FleissLevinPaik_test_paired_cxc(rbind(c(596, 18, 6), c(0, 2, 0), c(0, 0, 42)))
#     "The Fleiss-Levin-Paik test: P = 0.000004, T = 21.429 (df=1)"
FLEISS_2003 = np.array([[35, 5, 0], [15, 20, 5], [10, 5, 5]])
PETERSON_2007 = np.array([[596, 18, 6], [0, 2, 0], [0, 0, 42]])


def test_stuart_maxwell_of_three_categories_is_fleiss_everitt():
    res = stuart_maxwell(FLEISS_2003, table=True)
    assert round(res.statistic, 3) == 14.000 and res.df == 2
    assert round(res.pvalue, 6) == 0.000912
    # Fleiss and Everitt's (1971) closed form, written out
    d = FLEISS_2003.sum(axis=1) - FLEISS_2003.sum(axis=0)
    n12, n13, n23 = [(FLEISS_2003[i, j] + FLEISS_2003[j, i]) / 2 for i, j in ((0, 1), (0, 2), (1, 2))]
    t = (n23 * d[0] ** 2 + n13 * d[1] ** 2 + n12 * d[2] ** 2) / (2 * (n12 * n23 + n12 * n13 + n13 * n23))
    assert res.statistic == pytest.approx(t, rel=1e-12)


def test_fleiss_levin_paik_matches_contingencytables():
    res = fleiss_levin_paik(PETERSON_2007, table=True)
    assert round(res.statistic, 3) == 21.429 and res.df == 1
    assert round(res.pvalue, 6) == 0.000004
    # (d1 - d3)^2 / (2 (n12 + 4 n13 + n23)) with d = (24, -18, -6) and mean pairs (9, 3, 0)
    assert res.statistic == pytest.approx(30**2 / (2 * (9 + 4 * 3 + 0)), rel=1e-15)
    assert res.pvalue == pytest.approx(stats.chi2.sf(res.statistic, 1), rel=1e-12)


def test_fleiss_levin_paik_from_ratings_and_a_crosstab():
    rows = np.repeat(np.arange(3), PETERSON_2007.sum(axis=1))
    cols = np.concatenate([np.repeat(np.arange(3), r) for r in PETERSON_2007])
    ratings = np.column_stack([rows, cols])
    from_ratings = fleiss_levin_paik(ratings)
    assert from_ratings.statistic == pytest.approx(fleiss_levin_paik(PETERSON_2007, table=True).statistic)
    crosstab = pd.crosstab(pd.Series(rows, name="before"), pd.Series(cols, name="after"))
    crosstab = crosstab.rename_axis(None).rename_axis(None, axis=1)
    assert fleiss_levin_paik(crosstab, table=True).n_objects == 664
    # the shift of the high against the low category, not any difference: swapping the raters
    # changes its sign, not the statistic
    assert fleiss_levin_paik(ratings[:, ::-1]).statistic == pytest.approx(from_ratings.statistic)


def test_fleiss_levin_paik_edges():
    # equal marginals (contingencytables stops): no shift, statistic 0 and p = 1
    for table in (np.ones((3, 3)), np.diag([3, 4, 5])):
        res = fleiss_levin_paik(table, table=True)
        assert (res.statistic, res.pvalue) == (0.0, 1.0)
    # a shift from low to high only through the middle category
    res = fleiss_levin_paik([[5, 4, 0], [0, 5, 4], [0, 0, 5]], table=True)
    assert res.statistic == pytest.approx((4 - (-4)) ** 2 / (2 * (2 + 0 + 2)), rel=1e-15)
    with pytest.raises(ValueError, match="three ordered categories"):
        fleiss_levin_paik(np.ones((4, 4)), table=True)
