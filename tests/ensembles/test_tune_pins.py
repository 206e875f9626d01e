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


def test_a_member_pools_recommendation_note_says_the_closed_form_needs_no_training():
    # a pool of 12 members, grid (1, 2, 3): the note advises a grid up to about 16 members, beyond
    # the 12 the pool holds; the closed form of metric predictions gives the curve there from the
    # pool's own members (members_wording with factor 0), which the recommendation's note says too,
    # not only the message (kills _summarise's note left in forest words)
    forest = TreePool(EST, n_learners=24, random_state=0).fit(XTR, YTR, XTE)
    members = TreePool.from_predictions(forest.test_predictions_[:, :12])
    res = _quiet(members, grid=(1, 2, 3), measures=("icc",), method="closed_form", n_resamples=0,
                 random_state=0)
    rec = res.recommendations["icc"]
    assert (rec.unit, rec.value) == ("members", 16)
    assert rec.note.endswith(
        "; a grid up to about 16 members would resolve it (the closed form gives the curve there from the "
        "12 members the pool holds: no training needed), e.g. (1, 2, 4, 8, 16)")
    assert rec.note.startswith("the curve has not flattened within the grid (fitted stability ")
