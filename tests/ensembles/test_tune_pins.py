"""Pins found by the mutation runs of the tuning modules (issue 33: _tune, _recommend, _tune_config,
_tune_table, _tune_strategies; seed-7 samples of 2026-12-07).

Each test pins a value or a text a surviving mutant changed without any test of the tuning files
failing.
"""

import warnings

import numpy as np
import pytest

from predstab import PredstabDataWarning, PredstabWarning, TreePool, phi, psi, tune_num_learners
from tests.ensembles._forests import oob_mean
from tests.ensembles._tuning import EST, GRID, XTE, XTR, YTR, _group_predictions, _groups, _tune


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


def test_closed_form_only_runs_keep_the_largest_forests_full_results():
    # a closed-form-only run reads the pool's disjoint groups at the largest grid value alone:
    # largest_phi / largest_psi are phi and psi of the 3 forests of the first 8, 8 and 8 learners
    # (kills _tune_strategies' `n != max(grid)` -> `==`, which left them None)
    res = _tune(method="closed_form", pool_size=24, measures=("icc", "phi", "psi"))
    pool = TreePool(EST, n_learners=24, random_state=0).fit(XTR, YTR, XTE)
    preds8 = _group_predictions(pool, 8, 3, XTE)  # mean of trees 0-7, 8-15, 16-23 on the test rows
    baseline = oob_mean(_groups(pool, 8, 1)[0], XTR)  # psi's fixed baseline: the first 8 learners, out of bag
    with warnings.catch_warnings():  # 3 forests; a training row every tree saw
        warnings.simplefilter("ignore", PredstabDataWarning)
        expected_phi, expected_psi = phi(preds8, YTR), psi(preds8, baseline)
    assert res.largest_phi.value == pytest.approx(expected_phi.value, rel=1e-10)
    assert res.largest_psi.value == pytest.approx(expected_psi.value, rel=1e-10)
    np.testing.assert_allclose(res.largest_phi.per_object, expected_phi.per_object, rtol=1e-10)
    np.testing.assert_allclose(res.largest_psi.per_object, expected_psi.per_object, rtol=1e-10)
    assert res.table["n_forests"].tolist() == [0, 0, 0]  # no grid value measured on groups


def _class_members(n_members, seed=0):
    """Hard votes ("no" / "yes") of ``n_members`` members on 20 objects, most members agreeing."""
    rng = np.random.default_rng(seed)
    truth = rng.random(20) < 0.5
    flips = rng.random((20, n_members)) < 0.2
    votes = np.where(truth[:, None] ^ flips, "yes", "no")
    return TreePool.from_predictions(votes, classes=["no", "yes"], voting="hard")


def test_a_small_class_pool_of_members_warns_which_grid_keeps_the_bands_coverage():
    # 45 members, grid up to 9: below 10 x 9 = 90; a tenth of 45 is 4 members (45 // 10, a whole
    # number of members); 20 members: a tenth is 2, and no grid of 3 sizes fits below 3
    # (kills _tune_config's `size // 10` -> `/` and `top >= 3` -> `or True`, and the text's mutant)
    head = ("the closed-form bands of classes for n above a tenth of the pool cover less than 95 % near tied "
            "votes (0.920 at a quarter, 0.85 at half); ")
    cases = [(45, (2, 4, 9), "The pool of 45 members is below 10 x the largest grid value (9): " + head
              + "use a grid up to 4."),
             (20, (1, 2, 3), "The pool of 20 members is below 10 x the largest grid value (3): " + head
              + "no grid of 3 sizes fits a tenth of 20 members: train at least 30 members for bands that "
              "keep their coverage.")]
    for size, grid, text in cases:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            res = tune_num_learners(_class_members(size), grid=grid, method="closed_form",
                                    measures=("fleiss",), n_resamples=0, random_state=0)
        small = [str(w.message) for w in caught if "is below 10 x" in str(w.message)]
        assert small == [text]
        assert all(w.category is PredstabDataWarning for w in caught if "is below 10 x" in str(w.message))
        assert res.pool_size == size


def test_a_given_pool_that_holds_two_groups_is_tuned_by_the_pool_method_by_default():
    # method=None: "pool" when a grid is given (or the default grid fits twice), told by its name
    # (kills _tune_config's method default "pool" -> "XXpoolXX" of a given pool)
    pool = _class_members(24)
    res = _quiet(pool, grid=(2, 4, 8), measures=("fleiss",), n_resamples=0, random_state=0)
    assert res.method == "pool" and res.settings["method"] == "pool"
    # disjoint groups of the 24 members: min(n_repeats = 10, 24 // n)
    assert res.table["n_forests"].tolist() == [min(10, 24 // n) for n in (2, 4, 8)] == [10, 6, 3]


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
