"""report.html beside every CLI output: one self-contained page per run, opened in a real browser.

Every command that writes an output folder (demo, tune, tune --predictions) writes report.html
into it, staged with the other files; a command whose ``--out`` is one file (stability, agree,
compare) writes ``NAME.report.html`` beside it. The page is parsed (tags nest, tables are
whole, no script, nothing fetched from outside), holds what the terminal printed, every PNG
of the folder byte for byte (base64), the result's table and the command that made it. At
10^5 test objects it stays under 5 MB. A slow test opens it in headless Chromium and checks
the screenshot shows the figures (matplotlib's blue) at 10, 115 and 5,000 test objects.
"""

from __future__ import annotations

import base64
import os
import re
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import predstab
from tests._htmlcheck import _check_page
from tests.surfaces._cli import run

EVIL = "<script>alert(1)</script>"
CHROMIUM = "/usr/bin/chromium"


def _page(path):
    text = Path(path).read_text(encoding="utf-8")
    return text, _check_page(text)


def _check_report(path, stdout, *, command):
    """The report holds the printed text, the command, the versions, and every PNG beside it."""
    text, tree = _page(path)
    words = "".join(tree.text)
    printed = "\n".join(line for line in stdout.splitlines() if not line.startswith("wrote "))
    assert printed.strip().splitlines()[0].strip() in words
    for line in printed.splitlines():
        assert line.strip() in words, line
    assert command in words and f"predstab {predstab.__version__}" in words and "numpy" in words
    folder = Path(path).parent
    for png in folder.glob("*.png"):  # every figure of the folder, embedded byte for byte
        assert base64.b64encode(png.read_bytes()).decode() in text, png.name
    return text, tree


@pytest.fixture
def members_csv(tmp_path):
    rng = np.random.default_rng(4)
    values = rng.normal(size=(60, 1)) * 3 + rng.normal(size=(60, 24))
    frame = pd.DataFrame(values, columns=[f"m{i}" for i in range(24)], index=[f"obj{i}" for i in range(60)])
    frame.to_csv(tmp_path / "members.csv")
    return tmp_path / "members.csv"


def test_tune_predictions_writes_report_html_in_its_folder(tmp_path, members_csv, capsys):
    out = tmp_path / "members"
    code, stdout, err = run(capsys, "tune", "--predictions", members_csv, "--out", out, "--resamples", "20")
    assert code == 0, err
    assert sorted(os.listdir(out)) == ["report.html", "stability.csv", "stability.json", "stability.png"]
    assert stdout.rstrip().endswith(f"{out / 'report.html'}")
    text, tree = _check_report(out / "report.html", stdout, command="predstab tune --predictions")
    res = predstab.tune_num_learners(predstab.TreePool.from_predictions(
        pd.read_csv(members_csv, index_col=0).to_numpy(), random_state=0), method="closed_form",
        n_resamples=20, random_state=0)
    words = "".join(tree.text)
    # the recommendation and how to read it, from the result itself
    # a pool of members is told in members (issue 35): the result's own explanations, in its unit
    assert "How to read it" in words and f"Recommended: {res.recommendation} members" in words
    for line in res.explanations.values():
        assert line in words
    # the result's table: the tuning table's first row, as the renderer prints numbers
    table = next(t for t in tree.tables if t[0][:2] == ["n_learners", res.primary])
    assert table[1][:2] == [str(int(res.table["n_learners"][0])), predstab._core._results.r_signif(
        res.table[res.primary][0])]


def test_a_failed_run_writes_no_report(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    pd.DataFrame({"a": [1.0, 2.0], "b": ["x", "y"]}).to_csv(bad, index=False)
    code, _, _ = run(capsys, "tune", "--predictions", bad, "--out", tmp_path / "o")
    assert code == 2 and not (tmp_path / "o").exists()


@pytest.mark.parametrize("command", ["stability", "agree", "agree-table", "compare"])
def test_a_command_with_out_file_writes_its_report_beside_it(command, tmp_path, capsys):
    rng = np.random.default_rng(2)
    if command == "stability":
        pd.DataFrame(rng.normal(size=(30, 1)) + rng.normal(size=(30, 8))).add_prefix("r").to_csv(
            tmp_path / "p.csv", index=False)
        pd.DataFrame({"y": rng.normal(size=40) * 2}).to_csv(tmp_path / "y.csv", index=False)
        args = ["stability", tmp_path / "p.csv", "--training-observations", tmp_path / "y.csv",
                "--scale", "metric"]
    elif command.startswith("agree"):
        ratings = pd.DataFrame(rng.integers(1, 5, size=(20, 4)), columns=[EVIL, "b", "c", "d"])
        ratings.to_csv(tmp_path / "r.csv", index=False)
        args = ["agree", tmp_path / "r.csv", "--measure", "icc", *(["--table"] if "table" in command else [])]
    else:
        pd.DataFrame({"a": rng.normal(size=30), "b": rng.normal(size=30) + 0.5}).to_csv(
            tmp_path / "s.csv", index=False)
        args = ["compare", tmp_path / "s.csv", "--test", "permutation", "--a", "a", "--b", "b"]
    code, stdout, err = run(capsys, *args, "--out", tmp_path / "res.csv")
    assert code == 0, err
    report = tmp_path / "res.report.html"
    assert stdout.rstrip().endswith(f"wrote {report}")
    text, tree = _check_report(report, stdout, command=f"predstab {args[0]}")
    if command == "stability":  # the result's own figure (its per-object plot), embedded
        assert text.count("data:image/png;base64,") == 1
        res = predstab.phi(pd.read_csv(tmp_path / "p.csv").to_numpy(), pd.read_csv(tmp_path / "y.csv")["y"])
        rows = {r[0]: r for r in tree.tables[0]}
        assert rows["value"][1:] == [predstab._core._results.r_signif(v) for v in (res.value,
                                                                                   *res.confidence_interval)]
    if command == "agree":
        assert EVIL not in text  # the rater's name is escaped (and no script runs: _check_page)
        res = predstab.icc(pd.read_csv(tmp_path / "r.csv").to_numpy(dtype=float))
        assert {r[0]: r for r in tree.tables[0]}["value"][1] == predstab._core._results.r_signif(res.value)
    # an existing report is not replaced without --force, and nothing is computed then
    code, _, err = run(capsys, *args, "--out", tmp_path / "other.csv")
    assert code == 0
    (tmp_path / "new.report.html").write_text("mine")
    code, _, err = run(capsys, *args, "--out", tmp_path / "new.csv")
    assert code == 2 and "new.report.html" in err and "--force" in err
    assert not (tmp_path / "new.csv").exists() and (tmp_path / "new.report.html").read_text() == "mine"


@pytest.mark.slow
@pytest.mark.parametrize("command", ["tune --predictions", "stability"])
def test_report_stays_under_5_mb_at_1e5_test_objects(command, tmp_path, capsys):
    rng = np.random.default_rng(0)
    n = 100_000
    values = np.round(rng.normal(size=(n, 1)) * 3 + rng.normal(size=(n, 12)), 3)
    pd.DataFrame(values).add_prefix("m").to_csv(tmp_path / "m.csv", index=False)
    if command == "stability":
        pd.DataFrame({"y": rng.normal(size=500) * 3}).to_csv(tmp_path / "y.csv", index=False)
        args = ["stability", tmp_path / "m.csv", "--training-observations", tmp_path / "y.csv",
                "--scale", "metric", "--out", tmp_path / "po.csv"]
        report = tmp_path / "po.report.html"
    else:
        args = ["tune", "--predictions", tmp_path / "m.csv", "--out", tmp_path / "o", "--resamples", "10",
                "--grid", "1,2,3,6"]
        report = tmp_path / "o" / "report.html"
    code, stdout, err = run(capsys, *args)
    assert code == 0, err
    size = report.stat().st_size
    assert size < 5_000_000, size
    _, tree = _check_report(report, stdout, command=f"predstab {command}")
    assert sum(len(t) for t in tree.tables) < 200  # a summary of the objects, not 10^5 rows


# ----------------------------------------------------------------------------- in a browser
def _screenshot(page, png, *, height):
    proc = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                           f"--window-size=1200,{height}", f"--screenshot={png}", Path(page).as_uri()],
                          capture_output=True, text=True, timeout=120)
    assert png.is_file(), proc.stderr[-2000:]


def _coloured_pixels(png):
    from PIL import Image

    rgb = np.asarray(Image.open(png).convert("RGB")).astype(int)
    # coloured pixels (channels apart by more than 60): the curves, points and intervals of the
    # figures in matplotlib's colours; the page's text, tables and rules are black or grey
    return int(np.sum(rgb.max(axis=2) - rgb.min(axis=2) > 60))


@pytest.mark.slow
@pytest.mark.skipif(not Path(CHROMIUM).exists(),
                    reason=f"no Chromium at {CHROMIUM} (apt-get install chromium)")
@pytest.mark.parametrize("n_test", [10, 115, 5000])
def test_report_in_headless_chromium_shows_figures_and_tables(n_test, tmp_path, capsys):
    rng = np.random.default_rng(n_test)
    n = 200 + n_test
    X = rng.normal(size=(n, 4))
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d"]).assign(y=X[:, 0] * 2 + rng.normal(size=n))
    frame.iloc[:200].to_csv(tmp_path / "train.csv", index=False)
    frame.iloc[200:].to_csv(tmp_path / "test.csv", index=False)
    out = tmp_path / "tuned"
    code, stdout, err = run(capsys, "tune", tmp_path / "train.csv", "--target", "y", "--test-data",
                            tmp_path / "test.csv", "--grid", "5,10,20", "--repeats", "3", "--resamples", "10",
                            "--quiet", "--out", out)
    assert code == 0, err
    _check_report(out / "report.html", stdout, command="predstab tune")
    shot = Path(os.environ.get("PREDSTAB_SCREENSHOTS", tmp_path)) / f"report-{n_test}.png"
    shot.parent.mkdir(parents=True, exist_ok=True)
    _screenshot(out / "report.html", shot, height=5000)
    blank = tmp_path / "blank.html"
    text = (out / "report.html").read_text(encoding="utf-8")
    blank.write_text(re.sub(r'src="data:image/png;base64,[^"]*"', 'src=""', text), encoding="utf-8")
    _screenshot(blank, tmp_path / "blank.png", height=5000)
    # the figures drawn (thousands of coloured pixels) and gone when their images are removed
    shown, without = _coloured_pixels(shot), _coloured_pixels(tmp_path / "blank.png")
    assert shown > 2000 and without < shown / 20, (shown, without)


def test_chromium_skip_reason_names_the_package():
    # the slow test above skips with a reason a reader can act on where Chromium is missing
    marks = test_report_in_headless_chromium_shows_figures_and_tables.pytestmark
    skip = next(m for m in marks if m.name == "skipif")
    assert "apt-get install chromium" in skip.kwargs["reason"]


def test_a_member_pools_html_heading_counts_members():
    # walk of issue 35: a deep ensemble's TuningResult printed "members" but its notebook display
    # was headed "Stability against the number of learners"
    rng = np.random.default_rng(5)
    members = rng.normal(size=(40, 1)) + rng.normal(scale=0.2, size=(40, 12))
    pool = predstab.TreePool.from_predictions(members, random_state=0)
    res = predstab.tune_num_learners(pool, method="closed_form", n_resamples=0, random_state=0)
    assert res.unit == "members"
    assert "<caption>Stability against the number of members <small>" in res._repr_html_()
    assert "number of learners" not in res._repr_html_()
