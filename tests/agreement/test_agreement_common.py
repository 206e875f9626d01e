"""Checks every agreement coefficient must pass, driven by one registry (as scikit-learn's test_common)."""

import warnings

import numpy as np
import pytest

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
