"""One word per idea (issue 35, item 11): the columns of a prediction or rating matrix are its
replicates, ``n_replicates``, in docstrings, errors, results and the conventions page."""

import re
from pathlib import Path

import numpy as np
import pytest

import predstab

ROOT = Path(__file__).resolve().parents[2]


def test_the_columns_are_n_replicates_in_every_text():
    texts = [*(ROOT / "src").rglob("*.py"), *(ROOT / "docs").rglob("*.md"), ROOT / "README.md"]
    other = {p.relative_to(ROOT).as_posix(): sorted(set(re.findall(r"n_repetitions|n_reps\b", p.read_text())))
             for p in texts}
    assert not {p: words for p, words in other.items() if words}


@pytest.mark.parametrize("function", [predstab.phi, predstab.psi])
def test_phi_and_psi_say_n_replicates(function):
    assert "(n_objects, n_replicates)" in function.__doc__
    with pytest.raises(ValueError, match=r"shape \(n_objects, n_replicates\)"):
        function(np.array([1.0, 2.0]), np.array([1.0, 2.0]), scale="metric")
    res = function(np.array([[1.0, 1.2], [2.0, 2.1], [3.0, 2.9]]), np.arange(1.0, 4.0), scale="metric")
    assert res.n_replicates == 2
