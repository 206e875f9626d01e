"""The tuning configuration's pools and grids (value-pinning checks written for surviving
mutants of ensembles/_tune_config.py)."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.ensemble import RandomForestClassifier

from predstab import PredstabDataWarning, TreePool, tune_num_learners
from predstab.ensembles._tune_config import _default_pool_size, member_grid
from tests.ensembles._tuning import member_pool


def test_default_pool_is_the_largest_of_the_three_rules():
    # n_repeats x max(grid), 1000 for the closed form, 10 x max(grid) for a classifier's
    assert _default_pool_size((10, 50, 200), 12, "closed_form", True) == 2000  # 10 x max(grid)
    assert _default_pool_size((10, 50, 200), 2, "closed_form", True) == 2000
    assert _default_pool_size((10, 50, 80), 2, "closed_form", True) == 1000
    assert _default_pool_size((10, 50, 200), 12, "closed_form") == 1000  # no disjoint forests needed
    assert _default_pool_size((10, 50, 200), 3, "pool", True) == 600


def test_member_grids_are_whole_numbers_up_to_a_quarter_or_a_tenth():
    # np.rint(np.geomspace(1, 7, 7)) = 1, 1, 2, 3, 4, 5, 7
    assert member_grid(30) == (1, 2, 3, 4, 5, 7)
    assert member_grid(1000, True) == tuple(int(v) for v in np.unique(np.rint(np.geomspace(1, 100, 8))))
    assert member_grid(1000, True)[-1] == 100 and member_grid(1000)[-1] == 250
    assert all(type(v) is int for v in member_grid(30))


@pytest.fixture(scope="module")
def pool():
    return member_pool(3)


def test_a_given_pool_reports_its_size_and_refuses_a_kfold_baseline(pool):
    res = tune_num_learners(pool, method="closed_form", measures=("icc", "psi"), grid=(1, 2, 4),
                            n_resamples=0)
    assert res.pool_size == 24
    with pytest.raises(ValueError, match=r"`psi_baseline`='kfold' refits an estimator; a TreePool takes "
                                         r"'fixed'"):
        tune_num_learners(pool, method="closed_form", measures=("icc", "psi"), grid=(1, 2, 4),
                          n_resamples=0, psi_baseline="kfold")


def test_an_explicit_class_pool_below_ten_times_the_grid_warns():
    X, y = make_classification(60, 4, random_state=0)
    est = RandomForestClassifier(max_depth=2, max_features=1)
    with pytest.warns(PredstabDataWarning, match=r"`pool_size` \(40\) is below 10 x the largest grid value "
                                                 r"\(20\).*pool_size >= 200"):
        res = tune_num_learners(est, X[:45], y[:45], X[45:], grid=(5, 10, 20), n_repeats=2, pool_size=40,
                                method="closed_form", measures=["fleiss"], n_resamples=0, random_state=0)
    assert res.pool_size == 40
    with warnings.catch_warnings():
        warnings.simplefilter("error", PredstabDataWarning)
        tune_num_learners(est, X[:45], y[:45], X[45:], grid=(5, 10, 20), n_repeats=2, pool_size=40,
                          method="pool", measures=["fleiss"], n_resamples=0, random_state=0)


def test_a_given_pool_too_small_for_the_pool_method_says_which_grid_fits(pool):
    # 24 members hold 2 groups of 12 at most: the grid's largest value 13 needs 26
    with pytest.raises(ValueError) as info:
        tune_num_learners(pool, method="pool", grid=(1, 2, 13), n_resamples=0)
    assert str(info.value) == (
        "`grid`: the pool of 24 members must hold at least 2 disjoint groups of the largest grid value (13); "
        "use a grid up to 12 or use method='closed_form' (the curves from the members as they are).")
    five = TreePool.from_predictions(pool.test_predictions_[:, :5])  # 2 groups of 2 at most: no grid of 3
    with pytest.raises(ValueError) as info:
        tune_num_learners(five, method="pool", grid=(1, 2, 3), n_resamples=0)
    assert str(info.value) == (
        "`grid`: the pool of 5 members must hold at least 2 disjoint groups of the largest grid value (3); "
        "use method='closed_form' (the curves from the members as they are) or train at least 6 members "
        "(a grid of 3 sizes, 2 groups of each).")


def test_n_repeats_is_checked_by_name_when_the_declaration_is_skipped(pool):
    # a declared caller with prefer_skip_nested_validation=True skips tune_num_learners' declaration;
    # the configuration still checks the count and names it
    from predstab._core._validation import InvalidParameterError, skip_nested_validation

    with skip_nested_validation(), pytest.raises(InvalidParameterError) as info:
        tune_num_learners(pool, method="closed_form", grid=(1, 2, 4), n_repeats=1, n_resamples=0)
    assert str(info.value) == "`n_repeats` must be an integer >= 2; got 1."
