"""Pins found by the mutation runs of ensembles/_closed_form and _closed_form_result (issue 33).

Each test pins a value or a text a surviving mutant changed without any test failing.
"""

import numpy as np
import pytest

from predstab import TreePool

# five members of pure noise on 40 objects (test_floored_icc.py's NOISE): ICC(1) floored at 0
NOISE = np.random.default_rng(1).normal(size=(40, 5))
# R 4.2.2, irr 0.84.1: icc(m, model = "oneway", unit = "single")$value (test_floored_icc.py)
R_ICC1 = -0.0724852932774128


def test_the_floored_line_of_the_print_says_why_in_full():
    res = TreePool.from_predictions(NOISE, random_state=0).closed_form([1, 2], n_resamples=20, random_state=0)
    text = " ".join(str(res).split())
    assert ("floored = the between-object variance estimate is below 0 (ICC(1) of one learner -0.0725 "
            "without the floor, irr::icc's oneway single value of the objects x learners matrix): the "
            "objects' mean predictions differ less than the learners' own noise predicts; it is floored "
            "at 0, so ICC(1) is 0 at every number of learners") in text
    assert f"{R_ICC1:.4f}" == "-0.0725"
    assert res.single_icc == pytest.approx(R_ICC1, rel=1e-12)
