"""Pins of irrCAC's linearised variance of Krippendorff's alpha at its undefined points
(``agreement/_krippendorff_gwet``, issue 33's mutation table): chance agreement of 1 and a
single pairable unit give a standard error of NaN (a float, as irrCAC's NA), without numpy's
division warnings.
"""

import math
import warnings

import numpy as np

import predstab


def _quiet(ratings, **kwargs):
    """The result, with numpy's RuntimeWarnings (0 / 0) turned into errors; predstab's own
    undefined-value warning is expected and ignored."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", predstab.PredstabWarning)
        warnings.simplefilter("error", RuntimeWarning)
        return predstab.krippendorff_alpha(ratings, **kwargs)


def test_chance_agreement_of_one_gives_no_variance_and_no_numpy_warning():
    # every value in category 1 of the categories {1, 2}: pi = (1, 0), so pe = w[0, 0] = 1 (as
    # irrCAC 1.0's krippen.alpha.raw: pe 1, coeff.se NA)
    res = _quiet(np.ones((4, 3)), weights="identity", categories=[1, 2])
    assert res.pe == 1.0 and res.pa == 1.0
    assert isinstance(res.standard_error, float) and math.isnan(res.standard_error)


def test_one_pairable_unit_gives_a_nan_standard_error():
    # one unit with two or more values (n = 1): the variance divides by n (n - 1) = 0
    ratings = np.array([[1, 2, 1], [np.nan, np.nan, 2], [2, np.nan, np.nan]])
    res = _quiet(ratings, weights="identity")
    assert res.n_units == 1
    # pa = pe = 5/9 by hand: agreeing pairs 2 of 6 ordered pairs -> pa' = 1/3, eps = 1/3,
    # pa = (2/3)(1/3) + 1/3; pi = (2/3, 1/3), pe = 4/9 + 1/9
    assert abs(res.pa - 5 / 9) < 1e-12
    assert abs(res.pe - 5 / 9) < 1e-12
    assert isinstance(res.standard_error, float) and math.isnan(res.standard_error)
    assert isinstance(res.pvalue, float) and math.isnan(res.pvalue)


def test_one_category_has_chance_agreement_one_as_irrcac():
    # irrCAC 1.0 (R 4.2.2), krippen.alpha.raw(matrix(1, 4, 3)): pa 1, pe 1, se NA (its coeff.val
    # NA; predstab's value follows its convention for data without variation, docs/conventions.md)
    res = _quiet(np.ones((4, 3)), weights="identity")
    assert res.pe == 1.0 and res.pa == 1.0
    assert math.isnan(res.standard_error)
