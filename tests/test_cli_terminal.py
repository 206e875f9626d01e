"""Issue 22, items 13-20: what the command line (and the Python API behind it) says.

CLI items run through the installed ``predstab`` command (tests/_cli.py).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from _cli import one_line_error, predstab_cli
from sklearn.datasets import load_diabetes
from sklearn.ensemble import RandomForestRegressor
from sklearn.model_selection import cross_validate

import predstab
from predstab import fit_2pl
from predstab._tune import _recommend


# --------------------------------------------------------------------------- item 13
@pytest.mark.parametrize("args, shown", [
    (["seeds", "--effect", "1e9"], "--effect 1e+09"),
    (["seeds", "--effect", "1e-300"], "--effect 1e-300"),
    (["effect", "--n", "1e12"], "--n 1e+12"),
    (["power", "--effect", "0.5", "--n", "1e300"], "--effect 0.5 with --n 1e+300"),
    (["games", "--win-rate", "0.5000001"], "--win-rate 0.5000001"),
])
def test_power_beyond_reach_is_a_clean_exit_2_naming_the_value(args, shown):
    proc = predstab_cli("power", *args)
    one_line_error(proc, f"predstab power: error: {shown}")
    assert "internal error" not in proc.stderr


@pytest.mark.slow
def test_fleiss_on_a_huge_continuous_matrix_is_a_clean_exit_2(tmp_path):
    # 5 objects x 100000 raters of continuous numbers: 500000 categories, a 373 GiB count table
    path = tmp_path / "cont.csv"
    values = np.random.default_rng(0).normal(size=(5, 100000))
    pd.DataFrame(values, columns=[f"r{j}" for j in range(values.shape[1])]).to_csv(path, index=False)
    proc = predstab_cli("agree", path, "--measure", "fleiss")
    one_line_error(proc, "--measure fleiss on RATINGS", "(5 x 100000;", "needs more memory", "--measure icc")


# --------------------------------------------------------------------------- item 14
def test_stability_per_object_prints_and_writes_the_intervals(tmp_path):
    rng = np.random.default_rng(1)
    pred = rng.normal(size=(6, 8)) + np.arange(6)[:, None]
    y = rng.normal(size=40) * 3
    pd.DataFrame(pred).to_csv(tmp_path / "p.csv", index=False)
    pd.DataFrame({"y": y}).to_csv(tmp_path / "y.csv", index=False)
    proc = predstab_cli("stability", tmp_path / "p.csv", "--training-observations", tmp_path / "y.csv",
                        "--scale", "metric", "--per-object", "--out", tmp_path / "per.csv")
    assert proc.returncode == 0, proc.stderr
    expected = predstab.phi(pred, y, scale="metric").per_object_frame().reset_index()
    written = pd.read_csv(tmp_path / "per.csv")
    assert list(written.columns) == ["object", "stability", "ci_low", "ci_high", "observed_instability",
                                     "n_predictions"]
    np.testing.assert_array_equal(written["object"], expected["object"])
    for col in ("stability", "ci_low", "ci_high", "observed_instability"):
        np.testing.assert_allclose(written[col], expected[col], rtol=1e-12)
    assert "ci_low" in proc.stdout and "95% interval of each object's stability" in proc.stdout
    first = expected.iloc[0]
    assert f"{first['ci_low']:.5g}" in proc.stdout and f"{first['ci_high']:.5g}" in proc.stdout


# --------------------------------------------------------------------------- item 17
def test_tune_on_a_zero_one_target_says_how_to_classify(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    frame = pd.DataFrame(X, columns=list("abc"))
    frame["y"] = (X[:, 0] > 0).astype(int)
    frame.to_csv(tmp_path / "d.csv", index=False)
    proc = predstab_cli("tune", tmp_path / "d.csv", "--target", "y", "--grid", "2,4,8", "--repeats", "2",
                        "--bootstrap", "0", "--quiet", "--out", tmp_path / "o")
    assert proc.returncode == 0, proc.stderr
    assert ("predstab tune: note: the target 'y' holds only the two values 0 and 1: --task regression "
            "(the default) fits a regression forest") in proc.stderr
    assert "add --task classification" in proc.stderr


# --------------------------------------------------------------------------- item 18
def _curve(n, p1, p2):
    return 1.0 / (1.0 + (p1 / n) ** p2)


def _first_below(p1, p2, threshold):
    """optRF's scan written out: n = 10, 20, ... and gain = diff(stability) / 10."""
    grid = np.arange(10, 1_000_001, 10, dtype=float)
    gain = np.diff(_curve(grid, p1, p2)) / 10
    return grid[1:][np.argmax(gain < threshold)]


def test_explanation_names_the_lowered_threshold_that_gave_the_number():
    n = np.array([1.0, 2, 5, 10, 20, 40])
    fit = fit_2pl(n, _curve(n, 5.0, 2.0))  # an exact 2PL curve: p1 = 5, p2 = 2
    first, lowered = _first_below(fit.p1, fit.p2, 1e-6), _first_below(fit.p1, fit.p2, 1e-7)
    assert (first, lowered) == (380.0, 800.0)  # 380 rounds to 0 < p1: optRF lowers the threshold
    rec = _recommend("icc", fit, n, _curve(n, 5.0, 2.0), 40, 0.95, 1e-6, "thousand")
    assert rec.value == 1000 and rec.steps == ((1e-6, 380.0, 0.0), (1e-7, 800.0, 1000.0))
    assert rec.explain().startswith(
        "icc: 1000 learners by optRF 1.2.1's rule (fitted gain per added learner below 1e-06 from 380 "
        "learners, which rounded to the nearest thousand is 0, below the inflection point p1 = 5; so, as "
        "optRF does, the threshold is lowered tenfold to 1e-07: below it from 800 learners; rounded to the "
        "nearest thousand, at least 500)")


def test_no_recommendation_on_a_curve_flat_before_p1_says_so():
    fit = fit_2pl([5, 10, 20, 40], [0.99934, 0.999998, 0.99999, 0.99999])
    assert fit.p1 > 0 and fit.p2 > 0  # an increasing curve: "p2 <= 0 or p1 <= 0" was wrong
    with pytest.warns(predstab.PredstabWarning) as caught:
        assert fit.recommend() is None
    message = str(caught[0].message)
    assert "p2 <= 0" not in message
    assert (f"falls below 1e-06 from {_first_below(fit.p1, fit.p2, 1e-6):.0f} learners, which rounded to "
            f"the nearest thousand is 0, below the inflection point p1 = {fit.p1:.3g}") in message
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert fit.recommend(round_to="ten") == 500  # the finer rounding the message suggests


def test_a_poor_fit_claims_no_learners_for_the_target(tmp_path):
    # --min-samples-leaf 1000 > rows: every tree predicts the mean, icc = -1 everywhere
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    frame = pd.DataFrame(X, columns=list("abc"))
    frame["y"] = X @ [1.0, 2.0, 3.0] + rng.normal(size=60)
    frame.to_csv(tmp_path / "d.csv", index=False)
    proc = predstab_cli("tune", tmp_path / "d.csv", "--target", "y", "--grid", "2,4,8", "--repeats", "2",
                        "--bootstrap", "0", "--quiet", "--min-samples-leaf", "1000", "--out", tmp_path / "o")
    assert proc.returncode == 0, proc.stderr
    table = pd.read_csv(tmp_path / "o" / "stability.csv")
    assert table["icc"].tolist() == [-1.0, -1.0, -1.0]
    assert "reach icc = 0.95" not in proc.stdout and "poorly" in proc.stdout


# --------------------------------------------------------------------------- item 20
def test_warnings_point_at_the_callers_line():
    X, y = load_diabetes(return_X_y=True)
    rep = predstab.repeated_predictions(RandomForestRegressor(n_estimators=3), X[:60], y[:60], X[60:90],
                                        n_repeats=3, random_state=0)
    for method in (rep.psi, rep.phi):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            method()  # fewer than 5 repeated predictions: a PredstabDataWarning
        assert caught and {(w.filename, w.lineno) for w in caught} == {(__file__, _line_of("method()"))}
    model = predstab.RefitEnsemble(RandomForestRegressor(n_estimators=3), n_repeats=3, random_state=0)
    scorer = predstab.make_stability_scorer("phi")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cross_validate(model, X[:90], y[:90], scoring=scorer, cv=2, error_score="raise")
    ours = [w for w in caught if issubclass(w.category, predstab.PredstabWarning)]
    assert len(ours) == 2  # one per fold
    assert {(w.filename, w.lineno) for w in ours} == {(__file__, _line_of("cross_validate("))}


def _line_of(text):
    """The line of this file's item-20 test holding ``text`` (the caller's line)."""
    lines = open(__file__).read().splitlines()
    start = next(i for i, line in enumerate(lines) if "def test_warnings_point_at_the_callers_line" in line)
    return next(i + 1 for i in range(start, len(lines)) if lines[i].strip().startswith(text))


def test_outside_stacklevel_counts_the_frames_inside_predstab():
    from predstab import _exceptions

    assert _exceptions.outside_stacklevel() == 1  # called from here: this frame is outside
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _exceptions.warn_outside("x", predstab.PredstabWarning)
    assert (caught[0].filename, caught[0].lineno) == (__file__, _line_of_here("_exceptions.warn_outside("))


def _line_of_here(text):
    lines = open(__file__).read().splitlines()
    return next(i + 1 for i, line in enumerate(lines) if line.strip().startswith(text))


# --------------------------------------------------------------------------- item 16
def test_pool_progress_moves_while_the_pool_grows_and_changes_no_number():
    X, y = load_diabetes(return_X_y=True)
    calls = []
    options = dict(grid=(5, 10, 20), n_repeats=3, measures=("icc", "psi"), n_bootstrap=0, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", predstab.PredstabWarning)
        ticked = predstab.tune_num_learners(RandomForestRegressor(), X[:200], y[:200], X[200:260],
                                            progress=lambda *args: calls.append(args), **options)
        silent = predstab.tune_num_learners(RandomForestRegressor(), X[:200], y[:200], X[200:260], **options)
    # the pool of 3 x 20 = 60 trees ticks in 20 steps of 3 as it grows (then once when done)
    assert calls == [(3 * k, 60) for k in range(1, 21)] + [(1, 1)]
    pd.testing.assert_frame_equal(ticked.table.drop(columns="seconds"), silent.table.drop(columns="seconds"))


@pytest.mark.slow
def test_tune_draws_its_progress_bar_on_a_terminal_during_the_pool_fit(tmp_path):
    import os
    import pty
    import subprocess

    from _cli import _SCRIPT, ROOT

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    frame = pd.DataFrame(X, columns=list("abc"))
    frame["y"] = X @ [1.0, 2.0, 3.0] + rng.normal(size=60)
    frame.to_csv(tmp_path / "d.csv", index=False)
    master, slave = pty.openpty()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "src"), str(ROOT)]))
    proc = subprocess.Popen([_SCRIPT, "tune", str(tmp_path / "d.csv"), "--target", "y", "--grid",
                             "50,100,400", "--repeats", "3", "--bootstrap", "0",
                             "--out", str(tmp_path / "o")],
                            stdout=subprocess.DEVNULL, stderr=slave, env=env)
    os.close(slave)
    seen = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    proc.wait(timeout=120)
    os.close(master)
    assert proc.returncode == 0
    counts = {int(part.split(b"/")[0].split()[-1]) for part in seen.split(b"\r") if b"/1200 " in part}
    assert len(counts) >= 3 and max(counts) == 1200, seen[-300:]  # the bar moved while 1200 trees grew
