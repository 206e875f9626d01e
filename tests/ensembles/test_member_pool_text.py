"""Every sentence about a pool of members (TreePool.from_predictions of e.g. 5 networks) is true of
it: no ranger forest, no "learners", no Python None in R-style blocks, a default that runs."""
import numpy as np
import pytest

from predstab import tune_num_learners
from predstab._core._html import render
from predstab.ensembles import TreePool


def _five_members():
    rng = np.random.default_rng(0)  # 40 objects x 5 members that agree closely (networks' seeds)
    preds = rng.normal(size=(40, 1)) + 0.1 * rng.normal(size=(40, 5))
    return TreePool.from_predictions(preds, y=rng.normal(size=40))


def test_a_member_pool_prints_no_python_none():
    text = str(_five_members())
    assert "None" not in text and "n_train_objects" not in text  # no training rows were given
    assert text.splitlines()[0] == " Pool of members" and "  observed_y = True" in text


def test_the_default_call_on_5_members_runs_in_closed_form():
    res = tune_num_learners(_five_members(), measures=["icc"])  # no grid, no method: nothing to refuse
    assert res.method == "closed_form"
    assert res.table["n_learners"].tolist() == [1, 2, 3]  # member_grid(5): at least 3 values
    with pytest.raises(ValueError, match="^`grid`: the pool of 5 members"):  # asked for: still refused
        tune_num_learners(_five_members(), measures=["icc"], method="pool")


def test_recommendation_and_captions_speak_of_members():
    res = tune_num_learners(_five_members(), grid=[1, 2, 3], measures=["icc"], method="closed_form")
    rec = res.recommendations["icc"]
    assert rec.unit == "members" and str(rec).splitlines()[0] == " Recommended number of members"
    assert rec.explain().startswith("icc: 1 member reaches icc = 0.95")
    pages = render(res) + render(rec) + render(_five_members())
    assert "ranger&#x27;s forest" not in pages and "reproduces optRF::opt_prediction)" not in pages
    assert "optRF::opt_prediction&#x27;s 2PL fit and rule, applied to a pool of members" in pages
    assert "a pool of members&#x27; predictions; no ranger forest" in pages


def test_an_unrounded_none_prints_as_r_na():
    from dataclasses import replace
    res = tune_num_learners(_five_members(), grid=[1, 2, 3], measures=["icc"], method="closed_form")
    rec = replace(res.recommendations["icc"], unrounded=None)
    assert "  unrounded = NA" in str(rec).splitlines() and "None" not in str(rec)
