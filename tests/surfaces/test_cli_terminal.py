"""Issue 22, items 13-20: what the command line (and the Python API behind it) says.

CLI items run in this process (``predstab.cli.main``, tests/surfaces/_cli.py's ``predstab_main``);
the refusal of item 13 and the progress bar on a terminal run the installed command.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_diabetes
from sklearn.ensemble import RandomForestRegressor
from sklearn.model_selection import cross_validate

import predstab
from predstab import fit_2pl
from predstab.ensembles._recommend import Rule, _recommend
from tests.surfaces._cli import one_line_error, predstab_cli, predstab_main


# --------------------------------------------------------------------------- item 13
def test_power_beyond_reach_is_a_clean_exit_2_naming_the_value():
    # the installed command: the library's refusal of d = 1e-300 named by the option given
    proc = predstab_cli("power", "seeds", "--effect", "1e-300")
    one_line_error(proc, "predstab power: error: --effect 1e-300: `d` is too small")
    assert "internal error" not in proc.stderr


@pytest.mark.parametrize(("args", "shown"), [
    # answered since issue 33 (items 4-5): seeds_needed of a huge d is the smallest design, 2 runs;
    # games_needed close to 1/2 by the normal approximation, said in the method column
    (["seeds", "--effect", "1e9"], "1e+09          2      1"),
    (["games", "--win-rate", "0.5000001"], "normal"),
    (["effect", "--n", "1e12"], "1e+12 3.96203e-06"),
    (["power", "--effect", "0.5", "--n", "1e300"], "0.5     1e+300      1"),
])
def test_power_at_extreme_values_answers(args, shown):
    proc = predstab_main("power", *args)
    assert proc.returncode == 0, proc.stderr
    assert shown in proc.stdout


@pytest.mark.slow
def test_fleiss_on_a_huge_continuous_matrix_is_a_clean_exit_2(tmp_path):
    # 5 objects x 100000 raters of continuous numbers: 500000 categories, a 373 GiB count table
    path = tmp_path / "cont.csv"
    values = np.random.default_rng(0).normal(size=(5, 100000))
    pd.DataFrame(values, columns=[f"r{j}" for j in range(values.shape[1])]).to_csv(path, index=False)
    proc = predstab_main("agree", path, "--measure", "fleiss")
    # the gate's one-line warning first (numbers read as categories, issue 32), then the one-line error
    warning, error = proc.stderr.strip().splitlines()
    assert warning.startswith(f"predstab agree: warning: RATINGS '{path}' looks continuous"), warning
    assert "Traceback" not in proc.stderr and proc.returncode == 2
    for fragment in ("--measure fleiss on RATINGS", "(5 x 100000;", "needs more memory", "--measure icc"):
        assert fragment in error, error


# --------------------------------------------------------------------------- item 14
@pytest.mark.slow
def test_stability_per_object_prints_and_writes_the_intervals(tmp_path):
    rng = np.random.default_rng(1)
    pred = rng.normal(size=(6, 8)) + np.arange(6)[:, None]
    y = rng.normal(size=40) * 3
    pd.DataFrame(pred).to_csv(tmp_path / "p.csv", index=False)
    pd.DataFrame({"y": y}).to_csv(tmp_path / "y.csv", index=False)
    proc = predstab_main("stability", tmp_path / "p.csv", "--training-observations", tmp_path / "y.csv",
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
@pytest.mark.slow
def test_tune_on_a_zero_one_target_says_how_to_classify(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    frame = pd.DataFrame(X, columns=list("abc"))
    frame["y"] = (X[:, 0] > 0).astype(int)
    frame.to_csv(tmp_path / "d.csv", index=False)
    proc = predstab_main("tune", tmp_path / "d.csv", "--target", "y", "--grid", "2,4,8", "--repeats", "2",
                        "--resamples", "0", "--quiet", "--out", tmp_path / "o")
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
    rec = _recommend("icc", fit, n, _curve(n, 5.0, 2.0), 40, Rule("optRF", 0.95, 1e-6, "thousand"))
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


@pytest.mark.slow
def test_a_poor_fit_claims_no_learners_for_the_target(tmp_path):
    # --min-samples-leaf 1000 > rows: every tree predicts the mean, icc = -1 everywhere
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    frame = pd.DataFrame(X, columns=list("abc"))
    frame["y"] = X @ [1.0, 2.0, 3.0] + rng.normal(size=60)
    frame.to_csv(tmp_path / "d.csv", index=False)
    proc = predstab_main("tune", tmp_path / "d.csv", "--target", "y", "--grid", "2,4,8", "--repeats", "2",
                        "--resamples", "0", "--quiet", "--min-samples-leaf", "1000", "--out", tmp_path / "o")
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
    from predstab._core import _exceptions
    assert _exceptions.outside_stacklevel() == 1  # called from here: this frame is outside
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _exceptions.warn_outside("x", predstab.PredstabWarning)
    assert (caught[0].filename, caught[0].lineno) == (__file__, _line_of_here("_exceptions.warn_outside("))


def _line_of_here(text):
    lines = open(__file__).read().splitlines()
    return next(i + 1 for i, line in enumerate(lines) if line.strip().startswith(text))


# --------------------------------------------------------------------------- item 16
_STEPS = {  # the long steps of each method, in order (tune_num_learners' `progress` docstring)
    "pool": ["fitting the pool", "predicting", "bootstrap bands", "recommendation interval"],
    # psi's closed form reads the pass icc's made (shared_passes, issue 37 item 6): no step of its own
    "closed_form": ["fitting the pool", "predicting", "closed form and bands (icc)",
                    "bands (objects and learners)", "recommendation interval"],
    "refit": ["fitting forests", "bootstrap bands", "recommendation interval"],
}


def _by_step(calls):
    """``[(step, [(done, total), ...]), ...]`` in the order the steps came."""
    out = []
    for step, done, total in calls:
        if not out or out[-1][0] != step:
            out.append((step, []))
        out[-1][1].append((done, total))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("method", ["pool", "closed_form", "refit"])
def test_progress_moves_through_every_step_and_changes_no_number(method):
    X, y = load_diabetes(return_X_y=True)
    calls, plain = [], []
    options = dict(grid=(5, 10, 20), n_repeats=3, measures=("icc", "psi"), n_resamples=20, random_state=0,
                   method=method, pool_size=None if method != "closed_form" else 100)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", predstab.PredstabWarning)
        ticked = predstab.tune_num_learners(
            RandomForestRegressor(), X[:200], y[:200], X[200:260],
            progress=lambda done, total, step=None: calls.append((step, done, total)), **options)
        two = predstab.tune_num_learners(RandomForestRegressor(), X[:200], y[:200], X[200:260],
                                         progress=lambda done, total: plain.append((done, total)), **options)
        silent = predstab.tune_num_learners(RandomForestRegressor(), X[:200], y[:200], X[200:260], **options)
    steps = _by_step(calls)
    assert [step for step, _ in steps] == _STEPS[method]
    for step, ticks in steps:  # each step counts up to its total
        dones, totals = zip(*ticks, strict=True)
        assert len(set(totals)) == 1 and dones[-1] == totals[0], (step, ticks)
        assert all(a < b for a, b in zip(dones[:-1], dones[1:], strict=True)), (step, ticks)
    assert plain == [(done, total) for _, done, total in calls]  # a callable without `step`: the same ticks
    counts = dict(steps)
    if method == "pool":  # 60 trees grow in 20 steps of 3, then are predicted in 20 chunks of 3 trees on
        # the training rows (psi's out-of-bag baseline) and on the test rows; 20 resamples each
        assert counts["fitting the pool"] == [(3 * k, 60) for k in range(1, 21)]
        assert counts["predicting"] == [(3 * k, 120) for k in range(1, 41)]
    if method == "closed_form":  # the 60 test objects in one block of the closed form's one pass
        assert counts["closed form and bands (icc)"] == [(60, 60)]
        assert counts["bands (objects and learners)"] == [(b, 20) for b in range(1, 21)]
    if method == "refit":
        assert counts["fitting forests"] == [(k, 9) for k in range(1, 10)]
    assert counts["bootstrap bands" if method != "closed_form" else "recommendation interval"] == \
        [(b, 20) for b in range(1, 21)]
    # bit-identical: every field (== leaves out only the measured seconds), the bands included
    assert ticked == silent and two == silent
    pd.testing.assert_frame_equal(ticked.table.drop(columns="seconds"), silent.table.drop(columns="seconds"),
                                  check_exact=True)
    assert "icc_low" in silent.table
    assert tuple(ticked.confidence_interval) == tuple(silent.confidence_interval)


def test_progress_true_draws_one_line_per_step_on_stderr(capsys):
    X, y = load_diabetes(return_X_y=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", predstab.PredstabWarning)
        shown = predstab.tune_num_learners(RandomForestRegressor(), X[:200], y[:200], X[200:260],
                                           grid=(5, 10, 20), n_repeats=3, measures=("icc", "psi"),
                                           n_resamples=20, random_state=0, progress=True)
        assert shown == predstab.tune_num_learners(RandomForestRegressor(), X[:200], y[:200], X[200:260],
                                                   grid=(5, 10, 20), n_repeats=3, measures=("icc", "psi"),
                                                   n_resamples=20, random_state=0)
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.split("\n")
    assert lines[-1] == "" and len(lines) == 5  # four steps, each its own line, the last one ended
    for line, (step, total) in zip(lines, [("fitting the pool", 60), ("predicting", 120),
                                           ("bootstrap bands", 20), ("recommendation interval", 20)],
                                   strict=False):
        last = line.split("\r")[-1]  # the line as the terminal shows it at the end
        assert last.startswith(f"{step} [{'#' * 28}] {total}/{total} "), line


@pytest.mark.slow
def test_the_pool_reports_fit_predict_and_bands_and_keeps_its_numbers(capsys):
    from sklearn.ensemble import RandomForestClassifier

    X, y = load_diabetes(return_X_y=True)
    labels = (y > np.median(y)).astype(int)
    calls = []

    def tick(done, total, *, step):
        calls.append((step, done, total))

    def pool():
        return predstab.TreePool(RandomForestClassifier(max_features=3), n_learners=40, voting="hard",
                                 random_state=0, n_jobs=2)

    ticked = pool().fit(X[:100], labels[:100], X[100:150], progress=tick)
    silent = pool().fit(X[:100], labels[:100], X[100:150])
    assert np.array_equal(ticked.test_predictions_, silent.test_predictions_)
    assert np.array_equal(ticked.train_predictions_, silent.train_predictions_)
    assert _by_step(calls) == [("fitting the pool", [(2 * k, 40) for k in range(1, 21)]),
                               ("predicting", [(2 * k, 80) for k in range(1, 41)])]
    calls.clear()
    bands = ticked.closed_form([5, 10], measure="fleiss", n_resamples=6, random_state=1, progress=tick)
    assert calls == [("bands", b, 6) for b in range(1, 7)]  # class bands: per resampled pool
    assert bands == silent.closed_form([5, 10], measure="fleiss", n_resamples=6, random_state=1)
    calls.clear()
    ticked.extend(10, progress=tick)
    silent.extend(10)
    assert np.array_equal(ticked.test_predictions_, silent.test_predictions_)
    assert _by_step(calls)[0] == ("fitting the pool", [(k, 10) for k in range(1, 11)])
    capsys.readouterr()
    pool().fit(X[:100], labels[:100], X[100:150], progress=True)
    err = capsys.readouterr().err
    shown = [line.split("\r")[-1].split(" [")[0] for line in err.split("\n")]
    assert shown == ["fitting the pool", "predicting", ""]
    with pytest.raises(TypeError, match="`progress`"):
        pool().fit(X[:100], labels[:100], progress="yes")


@pytest.mark.slow
def test_tune_draws_its_progress_bar_on_a_terminal_during_fit_predict_and_bands(tmp_path):
    import os
    import pty
    import subprocess

    from tests.surfaces._cli import _SCRIPT, cli_env

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    frame = pd.DataFrame(X, columns=list("abc"))
    frame["y"] = X @ [1.0, 2.0, 3.0] + rng.normal(size=60)
    frame.to_csv(tmp_path / "d.csv", index=False)
    master, slave = pty.openpty()
    env = cli_env()
    proc = subprocess.Popen([_SCRIPT, "tune", str(tmp_path / "d.csv"), "--target", "y", "--grid",
                             "50,100,400", "--repeats", "3", "--resamples", "30",
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
    drawn = {}  # step -> the counts drawn on its line
    for part in seen.replace(b"\n", b"\r").split(b"\r"):
        if b" [" in part and b"/" in part:
            step, rest = part.decode().split(" [", 1)
            done, total = rest.split("] ", 1)[1].split()[0].split("/")
            drawn.setdefault(step, []).append((int(done), int(total)))
    # the bar moved while 1200 trees grew, while their predictions on the 48 training and the 12
    # held-out rows were cached (2 x 1200), and through the 30 resamples of the bands and of the
    # recommendation's interval; each step its own line, ending at its total
    assert list(drawn)[:3] == ["fitting the pool", "predicting", "bootstrap bands"], seen[-300:]
    for step, total, moves in [("fitting the pool", 1200, 3), ("predicting", 2400, 2),
                               ("bootstrap bands", 30, 2)]:
        counts = [done for done, t in drawn[step] if t == total]
        assert len(set(counts)) >= moves and counts[-1] == total, (step, drawn[step])
