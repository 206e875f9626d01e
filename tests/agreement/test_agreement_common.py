"""Checks every agreement coefficient must pass, driven by one registry (as scikit-learn's test_common)."""

import warnings

import numpy as np
import pytest

import predstab
from predstab import fleiss_kappa, icc, krippendorff_alpha

# name -> (function returning the coefficient, whether it takes categories rather than numbers)
MEASURES = {
    "icc oneway single": (lambda r: icc(r).value, False),
    "icc oneway average": (lambda r: icc(r, unit="average").value, False),
    "icc twoway consistency": (lambda r: icc(r, model="twoway").value, False),
    "icc twoway agreement": (lambda r: icc(r, model="twoway", type="agreement").value, False),
    "icc twoway agreement average": (
        lambda r: icc(r, model="twoway", type="agreement", unit="average").value, False),
    "fleiss_kappa": (lambda r: fleiss_kappa(r).value, True),
    "fleiss_kappa exact": (lambda r: fleiss_kappa(r, exact=True).value, True),
    "krippendorff nominal": (lambda r: krippendorff_alpha(r).value, True),
    "krippendorff ordinal": (lambda r: krippendorff_alpha(r, scale="ordinal").value, True),
    "krippendorff interval": (lambda r: krippendorff_alpha(r, scale="interval").value, False),
    "krippendorff ratio": (lambda r: krippendorff_alpha(r, scale="ratio").value, False),
}


def sample(categorical, seed=0, shape=(20, 4)):
    rng = np.random.default_rng(seed)
    if categorical:
        truth = rng.integers(1, 5, size=(shape[0], 1))
        return np.where(rng.random(shape) < 0.6, truth, rng.integers(1, 5, size=shape))
    return rng.uniform(5, 10, size=(shape[0], 1)) + rng.uniform(-1, 1, size=shape)  # positive (ratio)


@pytest.mark.parametrize("name", MEASURES)
def test_identical_replicates_give_one(name):
    func, categorical = MEASURES[name]
    column = sample(categorical)[:, :1]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # objects differ: not degenerate, so no warning either
        assert func(np.repeat(column, 3, axis=1)) == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize("name", MEASURES)
def test_permuting_objects_or_replicates_changes_nothing(name):
    func, categorical = MEASURES[name]
    ratings = sample(categorical, seed=1)
    rng = np.random.default_rng(2)
    base = func(ratings)
    assert func(ratings[rng.permutation(ratings.shape[0])]) == pytest.approx(base, rel=1e-10, abs=1e-13)
    assert func(ratings[:, rng.permutation(ratings.shape[1])]) == pytest.approx(base, rel=1e-10, abs=1e-13)


@pytest.mark.parametrize("name", MEASURES)
def test_one_replicate_is_rejected_naming_the_parameter(name):
    func, categorical = MEASURES[name]
    with pytest.raises(ValueError, match="`ratings` must have at least 2 replicates"):
        func(sample(categorical)[:, :1])


@pytest.mark.parametrize("name", MEASURES)
def test_constant_matrix_follows_the_convention(name):
    func, _ = MEASURES[name]
    from predstab import PredstabDegenerateWarning

    with pytest.warns(PredstabDegenerateWarning):
        assert func(np.full((6, 3), 2)) == 1.0


# --------------------------------------------------------------------------- where warnings point
_NAN = np.nan
_WARNING_CALLS = {
    # predstab.agreement._common: the convention, na.omit and the readers, however deep the call
    "cohen_kappa, a missing rating": lambda: predstab.cohen_kappa([[1, 2], [2, _NAN], [1, 1], [2, 2]]),
    "cohen_kappa, one category": lambda: predstab.cohen_kappa([[1, 1], [1, 1], [1, 1]]),
    "light_kappa, a missing rating": lambda: predstab.light_kappa([[1, 2, 1], [2, _NAN, 2], [1, 1, 2]]),
    "rater_bias, never disagreeing": lambda: predstab.rater_bias([[1, 1], [2, 2], [1, 1]]),
    "stuart_maxwell, singular": lambda: predstab.stuart_maxwell([[1, 2], [1, 2], [3, 4]]),
    "kendall_w, a missing rating": lambda: predstab.kendall_w([[1, 2], [2, _NAN], [3, 1], [4, 4]]),
    "iota, a missing rating": lambda: predstab.iota([[1.0, 2], [2, _NAN], [3, 1], [4, 4]]),
    "mean_correlation, a constant rater": lambda: predstab.mean_correlation([[1, 2, 3], [1, 3, 2],
                                                                            [1, 4, 4]]),
    "robinson_a, constant": lambda: predstab.robinson_a(np.ones((4, 3))),
    "kappa_sample_size, power below significance": lambda: predstab.kappa_sample_size(
        0.6, 0.4, rate1=0.5, rate2=0.5, power=0.01),
    "cronbach_alpha, equal totals": lambda: predstab.cronbach_alpha([[1, 2, 3], [2, 3, 1], [3, 1, 2]]),
    # irrCAC's path: the reader and the engine
    "gwet_ac1, an unrated object": lambda: predstab.gwet_ac1([[1, 2], [_NAN, _NAN], [2, 2], [1, 1]]),
    "fleiss_kappa(weights), one category": lambda: predstab.fleiss_kappa(np.ones((3, 3)), weights="linear"),
    "krippendorff_alpha(weights), one category": lambda: predstab.krippendorff_alpha(np.ones((3, 3)),
                                                                                     weights="linear"),
    "krippendorff_alpha(weights), no pairable unit": lambda: predstab.krippendorff_alpha(
        [[1, _NAN], [_NAN, 2]], weights="linear"),
    # stacks: item by item, and the vectorised cores
    "kendall_w stack, missing ratings": lambda: predstab.kendall_w(
        np.array([[[1, 2], [2, _NAN], [3, 1]], [[1, 2], [2, 3], [3, 1]]])),
    "fleiss_kappa stack, one category": lambda: predstab.fleiss_kappa(np.ones((2, 4, 3))),
    "icc stack, constant": lambda: predstab.icc(np.ones((2, 4, 3))),
}


@pytest.mark.parametrize("case", sorted(_WARNING_CALLS))
def test_warnings_point_at_the_callers_line(case):
    # warn_outside / outside_stacklevel: the first frame outside predstab is this file, whatever
    # the number of predstab frames between (wrappers, readers, engines, stacks)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _WARNING_CALLS[case]()
    ours = [w for w in caught if issubclass(w.category, predstab.PredstabWarning)]
    assert ours, case
    assert all(w.filename == __file__ for w in ours), [(w.filename, w.lineno, str(w.message)) for w in ours]
