"""What users see of the command line (issue 35): compare --test mcnemar --truth, headers decided per
file, the texts of tune on member pools and trees."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from tests.surfaces._cli import run


def test_compare_mcnemar_scores_predictions_against_the_truth(tmp_path, capsys):
    # 60 cases: both right on 30, both wrong on 12, only A right on 3, only B right on 15
    y = np.array(["cat", "dog", "eel"] * 20)
    wrong = {"cat": "dog", "dog": "eel", "eel": "cat"}
    a, b = y.copy(), y.copy()
    for k in range(30, 42):
        a[k] = b[k] = wrong[y[k]]
    for k in range(42, 45):
        b[k] = wrong[y[k]]
    for k in range(45, 60):
        a[k] = wrong[y[k]]
    pd.DataFrame({"y": y, "old": a, "new": b}).to_csv(tmp_path / "p.csv", index=False)
    code, out, err = run(capsys, "compare", tmp_path / "p.csv", "--test", "mcnemar", "--truth", "y",
                         "--a", "old", "--b", "new", "--out", tmp_path / "m.csv")
    assert code == 0, err
    assert err == ""  # --truth is read, not ignored with a warning
    row = pd.read_csv(tmp_path / "m.csv").iloc[0]
    assert row["pvalue"] == pytest.approx(stats.binomtest(3, 18, 0.5).pvalue, rel=1e-9)  # 0.00754
    assert row["delta_pp"] == pytest.approx(100 * (45 - 33) / 60)  # B right on 45, A on 33
    assert "A right in 33 of 60 cases, B right in 45" in out
    # without --truth, the columns are 0/1 judgments: labels are refused, not read as right/wrong
    code, _, err = run(capsys, "compare", tmp_path / "p.csv", "--test", "mcnemar", "--a", "old", "--b", "new")
    assert code == 2 and "old" in err
