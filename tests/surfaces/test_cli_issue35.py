"""What users see of the command line (issue 35): compare --test mcnemar --truth, headers decided per
file, the texts of tune on member pools and trees."""

from __future__ import annotations

import json
import re

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


# --- items 4 and 5: every sentence of tune's report true of the pool it describes ---------------

def _members(tmp_path, n_members, noise, seed=0):
    rng = np.random.default_rng(seed)
    truth = rng.normal(size=(80, 1))
    path = tmp_path / f"p{n_members}.csv"
    pd.DataFrame(truth + noise * rng.normal(size=(80, n_members)),
                 columns=[f"net{i}" for i in range(n_members)]).to_csv(path, index=False)
    pd.DataFrame({"y": truth[:, 0] + 0.3 * rng.normal(size=80)}).to_csv(tmp_path / "y.csv", index=False)
    return path


def test_member_pool_report_speaks_of_members_and_what_the_pool_holds(tmp_path, capsys):
    import json
    import math
    import re

    path = _members(tmp_path, 5, 0.5)
    code, out, err = run(capsys, "tune", "--predictions", path, "--observed", tmp_path / "y.csv",
                         "--out", tmp_path / "o")
    assert code == 0, err
    saved = json.loads((tmp_path / "o" / "stability.json").read_text())
    fit, target = saved["fits"]["icc"], saved["target"]
    # the target rule by hand: the smallest whole n with 1 / (1 + (p1 / n)^p2) >= target
    needed = math.ceil(fit["p1"] * (target / (1 - target)) ** (1 / fit["p2"]) - 1e-9)
    assert saved["recommendation"] == needed == 6
    assert f" Recommendation: {needed} members -- icc: {needed} members reach icc = 0.95" in out
    assert f"  The pool holds 5 members: train {needed - 5} more to reach {needed}." in out
    # networks are members, not learners (the table's column n_learners and interval="learners+objects"
    # are the API's names); no coverage measured on forests is quoted for them
    words = re.sub(r'n_learners|"learners\+objects"', "", out)
    assert "learner" not in words
    assert "regression forest" not in out and "imbalanced classifier" not in out
    assert "measured on random forests only" in out


def test_a_stable_member_pool_gets_no_grid_advice(tmp_path, capsys):
    path = _members(tmp_path, 10, 0.01)
    code, out, err = run(capsys, "tune", "--predictions", path, "--out", tmp_path / "o")
    assert code == 0, err
    assert " Recommendation: 1 member -- icc: 1 member reaches" in out or \
        " Recommendation: 1 member -- icc: 1 member reach" in out
    assert "A grid up to" not in out and "a grid up to" not in out and "has not flattened" not in out
    assert "The pool holds 10 members: enough." in out


@pytest.mark.parametrize("option, fragment", [
    (("--test-data", "{p}"), "--test-data goes with DATA"),
    (("--jobs", "2"), "--jobs is not used with --predictions"),
    (("--jobs", "0"), "argument --jobs: expected a non-zero integer"),
    (("--seed", "-1"), "argument --seed: expected a whole number >= 0"),
    (("--observed", "{one}"), "--observed '{one}' holds 1 response"),
])
def test_member_options_are_refused_or_honoured_and_blamed_right(tmp_path, capsys, option, fragment):
    path = _members(tmp_path, 5, 0.5)
    one = tmp_path / "one.csv"
    one.write_text("y\n0.5\n")
    option = [o.format(p=path, one=one) for o in option]
    code, _, err = run(capsys, "tune", "--predictions", path, *option, "--out", tmp_path / "o")
    assert code == 2 and fragment.format(one=one) in err, err
    assert "random_state" not in err and f"--predictions '{path}'" not in err  # blamed on the option given


def test_cli_and_api_grids_are_told_in_both_helps(capsys):
    import contextlib
    import io

    import predstab
    from predstab.cli import main

    shown = io.StringIO()
    with contextlib.redirect_stdout(shown), contextlib.suppress(SystemExit):
        main(["tune", "--help"])
    flat = " ".join(shown.getvalue().split())
    assert "default 50,100,200,400" in flat and "defaults to optRF's 250,500,750,1000,2000" in flat
    doc = " ".join(predstab.tune_num_learners.__doc__.split())
    assert "Default (250, 500, 750, 1000, 2000)" in doc and "defaults to the smaller 50, 100, 200, 400" in doc


def test_a_classifiers_default_measures_leave_out_selection_which_is_fleiss_again():
    import warnings

    from sklearn.datasets import load_breast_cancer
    from sklearn.ensemble import RandomForestClassifier

    import predstab

    X, y = load_breast_cancer(return_X_y=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        both = predstab.tune_num_learners(RandomForestClassifier(max_features=3), X[:300], y[:300],
                                          X[300:400], grid=(2, 5, 10), n_repeats=4, method="refit",
                                          measures=("fleiss", "selection"), random_state=0)
        default = predstab.tune_num_learners(RandomForestClassifier(max_features=3), X[:300], y[:300],
                                             X[300:400], grid=(2, 5, 10), n_repeats=4, method="pool",
                                             random_state=0)
    # two classes: selecting the positive class is the label, so selection stability is Fleiss' kappa
    np.testing.assert_allclose(both.table["selection"], both.table["fleiss"], rtol=1e-12)
    assert default.measures == ("fleiss", "phi", "psi")


def test_untrusted_fits_say_so_in_text_and_figure():
    import predstab
    from predstab.ensembles._recommend import _primary_message
    from predstab.ensembles._tune_result import Recommendation
    from predstab.plotting import plot_stability_curve

    n = np.array([50, 100, 200, 400])
    fit = predstab.fit_2pl(n, 1 / (1 + (900 / n) ** 1.0))  # far from flat at 400
    assert not fit.flattened
    rec = Recommendation(measure="icc", value=1000, unrounded=950.0, rule="optRF", rec_thresh=1e-6,
                         round_to="thousand", minimum=1000, n_for_target=None, target=0.95, grid_max=400,
                         beyond_grid=True, expected_stability=float("nan"), note="", steps=(), p1=fit.p1)
    _, message = _primary_message("icc", fit, rec, list(n), [])
    grid = fit.suggested_grid()
    assert f"A grid up to about {grid[-1]} learners would resolve it, e.g. {grid}." in message
    poor = predstab.fit_2pl(n, np.array([0.9, 0.2, 0.95, 0.1]))
    assert poor.poor_fit
    fig = plot_stability_curve(n, {"psi": [0.9, 0.2, 0.95, 0.1]}, fits={"psi": poor})
    (line,) = [ln for ln in fig.axes[0].get_lines() if ln.get_label().startswith("psi: poor 2PL fit")]
    assert line.get_linestyle() == ":" and f"R² {poor.r_squared:.2f}" in line.get_label()


def _noise_members(tmp_path):
    """Five members of pure noise on 40 objects, and observed responses: no between-object signal."""
    rng = np.random.default_rng(1)
    path = tmp_path / "noise.csv"
    pd.DataFrame(rng.normal(size=(40, 5)), columns=[f"net{i}" for i in range(5)]).to_csv(path, index=False)
    pd.DataFrame({"y": rng.normal(size=40)}).to_csv(tmp_path / "y_noise.csv", index=False)
    return path


def test_a_member_pool_without_signal_says_its_icc_is_floored_and_gives_agrees_value(tmp_path, capsys):
    # issue 35: the ICC column was 0.0000 at every n while its band ran from -0.13 and agree gave
    # -0.054, and the report advised a grid up to 16 members that no grid would help
    import json
    import re

    path = _noise_members(tmp_path)
    code, out, err = run(capsys, "tune", "--predictions", path, "--observed", tmp_path / "y_noise.csv",
                         "--out", tmp_path / "o")
    assert code == 0, err
    code, agreed, _ = run(capsys, "agree", path, "--measure", "icc")
    assert code == 0
    single = re.search(r"ICC\(1\) = (-?[0-9.]+)", agreed).group(1)
    assert single == "-0.0725"  # R: irr::icc(m, "oneway", unit = "single")$value = -0.0724852932774128
    text = " ".join(out.split())
    assert (f"Recommendation: none. icc: the between-object variance estimate is below 0 (ICC(1) of one "
            f"member {single} without the floor, irr::icc's oneway single value of the objects x members "
            "matrix): the objects' mean predictions differ less than the members' own noise predicts; it "
            "is floored at 0, so ICC(1) is 0 at every number of members; no number of members reaches "
            "icc = 0.95, and no larger grid would change that.") in text
    assert "would resolve it" not in out + err and "learner" not in re.sub(r"n_learners", "", out)
    assert "below 0" in err  # the warning says the same
    table = pd.read_csv(tmp_path / "o" / "stability.csv")
    assert (table["icc"] == 0).all() and (table["icc_low"] == 0).all() and (table["icc_high"] > 0).all()
    saved = json.loads((tmp_path / "o" / "stability.json").read_text())
    assert saved["recommendation"] is None and saved["fits"]["icc"]["message"] == "curve floored at 0"
    # phi's 2PL fits poorly: its target-rule number is shown in brackets as not trusted, and the
    # target rule's table has no second "n for 0.95" column saying otherwise
    phi = saved["recommendations"]["phi"]
    assert saved["fits"]["phi"]["poor_fit"] and phi["rule"] == "target"
    row = next(line for line in out.splitlines() if line.strip().startswith("phi ") and "target" in line)
    assert f"({phi['value']})" in row.split()
    assert "n for 0.95" not in out
    assert " (In brackets: from a 2PL that fits poorly (R^2 < 0.9), not trusted.)" in out


def test_grid_advice_for_members_says_whether_they_must_be_trained_first(tmp_path, capsys):
    # metric members: the closed form gives the curve at any number of members from the pool itself
    rng = np.random.default_rng(1)
    weak = tmp_path / "weak.csv"
    pd.DataFrame(rng.normal(size=(40, 1)) + 1.5 * rng.normal(size=(40, 5)),
                 columns=[f"net{i}" for i in range(5)]).to_csv(weak, index=False)
    code, out, err = run(capsys, "tune", "--predictions", weak, "--out", tmp_path / "o")
    assert code == 0, err
    advice = [line for line in (out + err).splitlines() if "would resolve it" in line]
    said = "members would resolve it (the closed form gives the curve there from the 5 members the pool " \
           "holds: no training needed)"
    assert advice and all(said in line and "learners" not in line for line in advice)
    grid = re.search(r"e\.g\. \(([0-9, ]+)\)", advice[0]).group(1).replace(" ", "")
    # ... and that grid, from the same five members, resolves it: no advice, the same recommendation
    saved = json.loads((tmp_path / "o" / "stability.json").read_text())
    code, again, err = run(capsys, "tune", "--predictions", weak, "--grid", grid, "--out", tmp_path / "o2")
    assert code == 0 and "would resolve it" not in again + err
    assert json.loads((tmp_path / "o2" / "stability.json").read_text())["recommendation"] == \
        saved["recommendation"]
    # class members: the disjoint-forest estimate needs the members themselves
    votes = tmp_path / "votes.csv"
    truth = rng.normal(size=(40, 1))
    pd.DataFrame(np.where(truth + 1.5 * rng.normal(size=(40, 40)) > 0.3, "yes", "no"),
                 columns=[f"m{i}" for i in range(40)]).to_csv(votes, index=False)
    code, out, err = run(capsys, "tune", "--predictions", votes, "--task", "classification", "--grid",
                         "1,3,5,9", "--out", tmp_path / "o3")
    assert code == 0, err
    advice = [line for line in (out + err).splitlines() if "would resolve it" in line]
    top = int(re.search(r"grid up to about (\d+) members", advice[0]).group(1))
    assert advice and all(f"(the pool holds 40: train more members first, about {10 * top} for bands that "
                          "keep their coverage)" in line for line in advice)
    # four class members: no grid of 3 sizes fits a tenth of the pool (the warning advised "a grid up to 1")
    four = tmp_path / "four.csv"
    pd.read_csv(votes).iloc[:, :4].to_csv(four, index=False)
    code, out, err = run(capsys, "tune", "--predictions", four, "--task", "classification", "--out",
                         tmp_path / "o4")
    assert code == 0, err
    assert "no grid of 3 sizes fits a tenth of 4 members: train at least 30 members" in err
    assert "use a grid up to 0" not in err and "use a grid up to 1" not in err


def test_a_floored_icc_is_named_in_the_legend_and_members_are_counted_in_whole_numbers():
    import warnings

    from predstab import TreePool, tune_num_learners
    from predstab.plotting import plot_stability_curve

    noise = np.random.default_rng(1).normal(size=(40, 5))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = tune_num_learners(TreePool.from_predictions(noise, random_state=0), method="closed_form",
                                n_resamples=20, random_state=0)
    fig = plot_stability_curve(res, xlabel="members in the ensemble")
    labels = fig.legends[0].get_texts()
    assert [t.get_text() for t in labels] == ["icc: no 2PL fit (curve floored at 0)"]
    fig.canvas.draw()
    ticks = [t for t in fig.axes[0].get_xticks() if 1 <= t <= 3]
    assert ticks == [1.0, 2.0, 3.0]  # no tick at 1.5 members


# R's write.csv(lab) of ../shared/r-files (generate.R, set.seed(1)): 6 objects x 4 raters, complete
_LABELS_R = '''"","V1","V2","V3","V4"
"1","mid","low","mid","mid"
"2","high","high","low","low"
"3","high","mid","low","low"
"4","low","high","low","high"
"5","low","low","low","high"
"6","low","low","high","high"
'''


def _nominal_alpha(rows):
    """Krippendorff's (2011) nominal alpha by hand: o_ck = sum over units of pairs (c, k) / (m_u - 1)."""
    cats = sorted({v for row in rows for v in row if v is not None})
    o = np.zeros((len(cats), len(cats)))
    for row in rows:
        values = [cats.index(v) for v in row if v is not None]
        for i, a in enumerate(values):
            for j, b in enumerate(values):
                if i != j:
                    o[a, b] += 1 / (len(values) - 1)
    n_c, n = o.sum(axis=1), o.sum()
    return 1 - (n - np.trace(o)) / ((n * n - np.sum(n_c**2)) / (n - 1))


def test_agree_alpha_says_where_irr_gives_another_value(tmp_path, capsys):
    # walk of issue 35: `agree --measure alpha` on R's complete 6 x 4 labels printed -0.00189 while
    # irr::kripp.alpha gives -0.0309 (R 4.2.2, irr 0.84.1:
    #   m <- as.matrix(read.csv("labels_writecsv.csv", row.names = 1))
    #   kripp.alpha(t(matrix(as.numeric(factor(m, levels = c("low", "mid", "high"))), 6)))$value),
    # and --help said "alpha (irr::kripp.alpha)" without a word
    path = tmp_path / "labels_writecsv.csv"
    path.write_text(_LABELS_R)
    rows = [line.split(",")[1:] for line in _LABELS_R.replace('"', "").splitlines()[1:]]
    code, out, err = run(capsys, "agree", path, "--measure", "alpha")
    assert code == 0 and f"{_nominal_alpha(rows):.3g}" == "-0.00189" and "alpha = -0.00189" in out
    assert "note: irr::kripp.alpha gives another value for these complete ratings of 4 raters" in err
    # with a missing rating irr divides by m_u - 1 too: the same value, no note
    # (R: kripp.alpha(...) of labels_na_writecsv.csv = 0.00709219858156007)
    path.write_text(_LABELS_R.replace('"2","high"', '"2",NA').replace('"mid","low","low"', 'NA,"low","low"'))
    rows[1][0], rows[2][1] = None, None
    code, out, err = run(capsys, "agree", path, "--measure", "alpha")
    assert _nominal_alpha(rows) == pytest.approx(0.00709219858156007, rel=1e-12)
    assert code == 0 and "alpha = 0.00709" in out and "irr::kripp.alpha" not in err


def test_a_fitted_forests_pool_is_told_in_learners_not_members():
    # walk of issue 35: tune_num_learners(TreePool(RandomForestRegressor()).fit(...)) printed "1000 members",
    # "The pool holds 400 members: train 600 more" and "coverage measured on random forests only ... not on
    # pools of members" about a random forest
    import warnings

    from sklearn.datasets import load_diabetes
    from sklearn.ensemble import RandomForestRegressor

    from predstab import TreePool, tune_num_learners

    X, y = load_diabetes(return_X_y=True)
    pool = TreePool(RandomForestRegressor(max_features=3, max_depth=4), n_learners=60, random_state=0)
    pool.fit(X[:200], y[:200], X[300:360])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = tune_num_learners(pool, grid=(2, 5, 10, 15), measures=("icc",), method="closed_form",
                                n_resamples=10, random_state=0)
    text = str(res)
    assert "member" not in text
    assert res.settings["estimator"] == "TreePool of 60 learners (RandomForestRegressor)"
    assert res.settings["pool_size"] == "the learners of the given TreePool"
    assert f" Recommendation: {res.recommendation} learners" in text


def test_a_member_pools_plot_counts_members_not_trees():
    # walk of issue 35 (a notebook with 5 MLPs): res.plot() said "number of trees" and "learners only"
    import warnings

    from predstab import TreePool, tune_num_learners

    rng = np.random.default_rng(4)
    mlps = pd.DataFrame(rng.normal(size=(50, 1)) + 0.2 * rng.normal(size=(50, 5)),
                        columns=[f"seed{s}" for s in range(5)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = tune_num_learners(TreePool.from_predictions(mlps), method="closed_form", n_resamples=10,
                                random_state=0)
    assert res.unit == "members"
    ax = res.plot().axes[0]
    assert ax.get_xlabel() == "number of members"
    title = " ".join(ax.figure.texts[0].get_text().split()) if ax.figure.texts else " ".join(
        ax.get_title().split())
    assert "number of members" in title and "members only" in title and "trees" not in title


def test_the_pool_method_on_five_members_advises_what_can_be_done():
    # walk of issue 35: tune_num_learners(pool) of 5 MLPs (method "pool", default grid 1, 2, 3) advised
    # "use a grid up to 2", which no grid of 3 sizes can follow
    from predstab import TreePool, tune_num_learners

    pool = TreePool.from_predictions(np.random.default_rng(5).normal(size=(20, 5)))
    with pytest.raises(ValueError) as caught:  # asked for; with no method the closed form runs
        tune_num_learners(pool, method="pool")
    said = str(caught.value)
    assert said == ("`grid`: the pool of 5 members must hold at least 2 disjoint groups of the largest grid "
                    "value (3); use method='closed_form' (the curves from the members as they are) or train "
                    "at least 6 members (a grid of 3 sizes, 2 groups of each).")
    pool8 = TreePool.from_predictions(np.random.default_rng(5).normal(size=(20, 8)))
    with pytest.raises(ValueError, match=r"largest grid value \(5\); use a grid up to 4 or use method="):
        tune_num_learners(pool8, grid=(1, 3, 5))


def test_a_lowered_threshold_is_explained_for_every_measure_not_only_the_primary():
    # walk of issue 35 (predstab demo --quick): phi's row read "recommended 1000, unrounded 400" with no
    # word of optRF lowering rec_thresh (400 rounds to 0, below p1; at 1e-07 the scan gives 1150)
    import dataclasses
    import warnings

    from predstab import TreePool, tune_num_learners

    rng = np.random.default_rng(6)
    t = rng.normal(size=(30, 1)) + 0.3 * rng.normal(size=(30, 40))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = tune_num_learners(TreePool.from_predictions(t, y=rng.normal(size=30)), method="closed_form",
                                rule="optRF", grid=(1, 2, 4, 8), n_resamples=0)
    phi = dataclasses.replace(res.recommendations["phi"], value=1000, unrounded=400.0, rule="optRF",
                              steps=((1e-6, 400.0, 0.0), (1e-7, 1150.0, 1000.0)), p1=0.44, note="")
    shown = dataclasses.replace(res, recommendations={**res.recommendations, "phi": phi})
    text = " ".join(str(shown).split())
    assert ("note (phi): 1000 members by optRF 1.2.1's rule (fitted gain per added member below 1e-06 from "
            "400 members, which rounded to the nearest thousand is 0, below the inflection point p1 = 0.44; "
            "so, as optRF does, the threshold is lowered tenfold to 1e-07: below it from 1150 members"
            ) in text


def test_the_demos_curve_says_what_its_bars_are():
    # walk of issue 35: stability.png of `predstab demo` drew 95% bands as bars without a word of them
    from predstab import _demo

    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 3))
    y = X[:, 0] + 0.5 * rng.normal(size=80)
    job = _demo.TuneJob(task="regression", X=X[:60], y=y[:60], X_test=X[60:], y_test=y[60:], grid=[2, 4, 8],
                        n_repeats=3, n_resamples=10, title="blobs")
    res = _demo.compute(job)
    curve, _ = _demo._figures(res, job)
    title = " ".join(curve.axes[0].get_title().split())
    assert title == ("Stability vs number of trees — blobs bars: 95% bands, test objects resampled, the "
                     "forests held fixed")
    assert res.interval_covers.startswith("test objects resampled, the forests held fixed")


def test_report_reading_of_a_member_pool_is_in_members_and_says_what_is_not_trusted(tmp_path, capsys):
    # walk of issue 35: report.html's "How to read it" said learners, told the floored icc twice, and
    # gave phi's "6 learners reach phi = 0.95" from a poor fit without a word
    from predstab import _demo

    path = _noise_members(tmp_path)
    code, _, err = run(capsys, "tune", "--predictions", path, "--observed", tmp_path / "y_noise.csv",
                       "--out", tmp_path / "o")
    assert code == 0, err
    from predstab import TreePool, tune_num_learners

    observed = pd.read_csv(tmp_path / "y_noise.csv")["y"]
    pool = TreePool.from_predictions(pd.read_csv(path).to_numpy(), y=observed, random_state=0)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = tune_num_learners(pool, method="closed_form", n_resamples=100, random_state=0)
    lines = _demo.reading(res)
    assert "against the number of members" in lines[0]
    assert not any("learner" in line for line in lines)
    assert sum("between-object variance estimate is below 0" in line for line in lines) == 1
    (phi,) = [line for line in lines if line.startswith("phi: ")]
    assert phi.endswith(f"; not trusted: its 2PL fits poorly (R^2 = {res.fits['phi'].r_squared:.2f})")
    html = (tmp_path / "o" / "report.html").read_text()
    assert "not trusted: its 2PL fits poorly" in html
    assert "no number of members reaches icc" in res.recommendations["icc"].note  # the result's own notes too
