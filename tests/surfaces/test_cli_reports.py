"""A new user's first hour: the ``predstab`` commands on real files.

Issue 13, items 9, 10, 12-16 from the command line (the other items: test_cli_files.py,
test_cli_inputs.py): the demo's recommendation explains itself and numbers objects as
``per_object_frame()`` does, results print in irr's layout, a continuous target given to
``--task classification`` is refused in the user's words before anything is fitted.

The demo of the module's fixture runs as a user runs it (the installed command); the other
commands run in this process (``predstab.cli.main``, tests/surfaces/_cli.py's ``predstab_main``).
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import predstab
from tests.surfaces._cli import one_line_error, predstab_cli, predstab_main


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    out = tmp_path_factory.mktemp("demo") / "d"
    proc = predstab_cli("demo", "--quick", "--quiet", "--out", out, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return proc, json.loads((out / "stability.json").read_text()), out


@pytest.mark.slow
def test_demo_prints_no_warning_about_its_own_defaults(demo):
    proc, _, _ = demo
    assert proc.stderr == ""  # item 16: no "pass pool_size >= ...", no importance_fraction clash


@pytest.mark.slow
def test_demo_recommendation_explains_itself(demo):
    proc, summary, _ = demo
    out = proc.stdout
    rec = summary["recommendations"][summary["primary"]]
    interval = summary["recommendation_interval"]
    # item 13: optRF's rule in words, the unrounded value and its interval
    assert "optRF 1.2.1's rule: the first n whose fitted gain in stability per added learner is below " \
           "rec_thresh = 1e-06, rounded to the nearest thousand, at least 500." in out
    assert f"Recommendation: {summary['recommendation']} learners" in out
    assert f"unrounded {rec['unrounded']:.0f}" in out
    assert f"{rec['n_for_target']} learners reach {summary['primary']} = 0.95 on the fitted curve" in out
    width = interval["high"] - interval["low"]
    u_width = interval["unrounded_high"] - interval["unrounded_low"]
    assert (f"95% bootstrap interval: {interval['low']:.0f} to {interval['high']:.0f} learners, width "
            f"{width:.0f} (unrounded {rec['unrounded']:.0f}: {interval['unrounded_low']:.0f} to "
            f"{interval['unrounded_high']:.0f}, width {u_width:.0f}; "
            "test objects resampled, the forests held fixed") in out
    # item 14: the quick grid stops at 50, so the recommendation is an extrapolation, by how much
    assert rec["beyond_grid"] and rec["grid_max"] == 50
    ratio = summary["recommendation"] / 50
    assert f"beyond the grid: {ratio:.3g} x its largest value 50" in out
    # item 17: the settings used are printed
    assert "Estimator: RandomForestRegressor(max_features='sqrt', min_samples_leaf=5" in out


@pytest.mark.slow
def test_demo_numbers_objects_as_per_object_frame(demo):
    # item 10: the least stable objects the demo names are those of the stored per-object psi
    # (the red bars of per_object.png), each named by its row in load_diabetes() -- not by its
    # position in the random hold-out, which the user never sees
    from sklearn.datasets import load_diabetes
    from sklearn.model_selection import train_test_split

    proc, summary, _ = demo
    rows = train_test_split(np.arange(load_diabetes().target.size), test_size=0.2, random_state=0)[1]
    assert summary["test_objects"] == [str(r) for r in rows]
    per = np.asarray(summary["largest_forest"]["psi"]["per_object"], dtype=float)
    worst = np.argsort(per, kind="stable")[:5]
    expected = ", ".join(f"{rows[i]} (psi {per[i]:.3f})" for i in worst)
    assert ("least stable test objects (red in per_object.png), by 0-based row of "
            f"load_diabetes(): {expected}") in proc.stdout
    # one empty line (not a line of spaces, not two) between APS's blocks
    aps = proc.stdout.split("least stable")[0]
    assert "\n  \n" not in aps and "\n\n\n" not in aps and "(phi) \n" in aps and "(psi) \n" in aps


@pytest.mark.slow
def test_demo_on_an_already_stable_forest_names_no_object(tmp_path):
    # wine: every test object has psi = 1 at 50 trees; none is called "least stable"
    proc = predstab_main("demo", "--quick", "--quiet", "--dataset", "wine", "--out", tmp_path / "w")
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    summary = json.loads((tmp_path / "w" / "stability.json").read_text())
    assert np.all(np.asarray(summary["largest_forest"]["psi"]["per_object"]) == 1.0)
    assert ("least stable test objects (red in per_object.png), by 0-based row of "
            "load_wine(): none (every object has psi = 1)") in proc.stdout


@pytest.mark.slow
def test_agree_prints_irr_layout(tmp_path):
    # item 12: irr's print.icclist / kappam.fleiss layout, not a pandas Series
    rng = np.random.default_rng(1)
    truth = rng.integers(1, 4, size=(40, 1))
    ratings = np.where(rng.random((40, 3)) < 0.9, truth, rng.integers(1, 4, size=(40, 3)))
    np.savetxt(tmp_path / "k.csv", ratings, delimiter=",", fmt="%d")
    proc = predstab_main("agree", tmp_path / "k.csv", "--measure", "fleiss", "--no-header")
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    result = predstab.fleiss_kappa(ratings)
    assert proc.stdout.strip() == str(result).strip()
    assert proc.stdout.splitlines()[0] == " Fleiss' Kappa for m Raters"
    assert f"    Kappa = {result.value:.3g}" in proc.stdout and "dtype" not in proc.stdout


@pytest.mark.slow
def test_classification_of_a_continuous_target_is_refused_before_fitting(tmp_path):
    # item 9: in the user's words, not "absent from `prediction_space`"
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 3))
    rows = [f"{a:.3f},{b:.3f},{c:.3f},{a + rng.normal():.3f}" for a, b, c in X]
    (tmp_path / "cont.csv").write_text("a,b,c,yield\n" + "\n".join(rows) + "\n")
    proc = predstab_main("tune", tmp_path / "cont.csv", "--target", "yield", "--task", "classification",
                        "--out", tmp_path / "o")
    one_line_error(proc, "the target 'yield' looks continuous", "use --task regression")
    assert "prediction_space" not in proc.stderr
    assert not (tmp_path / "o").exists()


@pytest.mark.slow
def test_confidence_level_has_one_name(tmp_path):
    rng = np.random.default_rng(3)
    ratings = rng.normal(size=(30, 1)) + 0.5 * rng.normal(size=(30, 4))
    np.savetxt(tmp_path / "r.csv", ratings, delimiter=",", fmt="%.5f")
    args = ("agree", tmp_path / "r.csv", "--measure", "icc", "--no-header")
    new = predstab_main(*args, "--confidence-level", "0.9")
    # the earlier name is refused, naming the one name (never read as something else)
    old = predstab_main(*args, "--conf-level", "0.9")
    one_line_error(old, "--conf-level was renamed --confidence-level")
    assert new.returncode == 0 and old.stdout == ""
    assert str(predstab.icc(np.round(ratings, 5), confidence_level=0.9)).strip() == new.stdout.strip()
