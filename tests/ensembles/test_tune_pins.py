"""Pins found by the mutation runs of the tuning modules (issue 33: _tune, _recommend, _tune_config,
_tune_table, _tune_strategies; seed-7 samples of 2026-12-07).

Each test pins a value or a text a surviving mutant changed without any test of the tuning files
failing.
"""

import warnings

import numpy as np

from predstab import PredstabWarning, TreePool, tune_num_learners
from tests.ensembles._tuning import EST, GRID, XTE, XTR, YTR


def _quiet(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PredstabWarning)
        return tune_num_learners(*args, **kwargs)


def test_a_given_forest_pool_is_told_in_learners_and_a_pool_of_members_in_members():
    forest = TreePool(EST, n_learners=24, random_state=0).fit(XTR, YTR, XTE)
    res = _quiet(forest, grid=GRID, measures=("icc",), method="closed_form", n_resamples=0, random_state=0)
    assert res.settings["pool_size"] == "the learners of the given TreePool"
    members = TreePool.from_predictions(forest.test_predictions_)
    res = _quiet(members, grid=GRID, measures=("icc",), method="closed_form", n_resamples=0, random_state=0)
    assert res.settings["pool_size"] == "the members of the given TreePool"
    np.testing.assert_array_equal(res.table["n_learners"], GRID)
