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


# --- item 3: headers decided per file; --help says what happens --------------------------------

def test_a_header_is_said_per_file(tmp_path, capsys):
    import predstab

    rng = np.random.default_rng(3)
    pred = rng.integers(0, 2, size=(12, 5))
    y = np.r_[0, rng.integers(0, 2, size=29)]
    pd.DataFrame(pred, columns=list("abcde")).to_csv(tmp_path / "p.csv", index=False)  # a header
    np.savetxt(tmp_path / "y01.csv", y, fmt="%d")  # no header; "0" first: header or value?
    args = ("stability", tmp_path / "p.csv", "--training-observations", tmp_path / "y01.csv",
            "--scale", "categorical")
    code, _, err = run(capsys, *args)
    assert code == 2 and "--no-header-in FILE" in err  # the refusal says how to answer for that file
    code, out, err = run(capsys, *args, "--no-header-in", tmp_path / "y01.csv")
    assert code == 0, err
    assert str(predstab.phi(pred, y, scale="categorical")) in out  # 12 objects, 30 training responses
    # --no-header for every file would read p.csv's names as a row of data: the per-file choice wins
    code, out, err = run(capsys, *args, "--no-header", "--header-in", tmp_path / "p.csv")
    assert code == 0, err
    assert str(predstab.phi(pred, y, scale="categorical")) in out
    # a file the command does not read is refused, not ignored
    code, _, err = run(capsys, *args, "--no-header-in", tmp_path / "other.csv")
    assert code == 2 and "--no-header-in" in err and "names none of the files" in err


def test_header_help_matches_what_happens(tmp_path, capsys):
    import contextlib
    import io

    from predstab.cli import main

    help_text = io.StringIO()
    with contextlib.redirect_stdout(help_text), contextlib.suppress(SystemExit):
        main(["agree", "--help"])
    flat = " ".join(help_text.getvalue().split())
    assert "a bare '0' or '0,1' is refused" in flat and "--no-header-in FILE" in flat
    assert "'0,1,...,k-1' (k >= 3) is pandas' column numbers" in flat
    cases = {"0\n1\n1\n": "refused", "0,1\n1,1\n0,0\n": "refused", "0,1,2\n1,1,0\n0,0,1\n": "header",
             "1,0,1\n1,1,0\n0,0,1\n": "data"}
    for k, (text, what) in enumerate(cases.items()):
        path = tmp_path / f"r{k}.csv"
        path.write_text(text)
        code, out, err = run(capsys, "agree", path, "--measure", "fleiss")
        if what == "refused":
            assert code == 2 and "--header-in FILE or --no-header-in FILE" in err, err
        else:
            assert code == 0, err
            n = {"header": 2, "data": 3}[what]
            assert f"Subjects = {n}" in out and "note:" in err, (out, err)
