"""The command line speaks its own words (issue 35): what the library says about the input of
``stability``, ``agree``, ``tune --predictions`` and ``compare`` names the files and options the
user typed (PREDICTIONS 'p.csv', --training-observations 'y.csv', --scale, --categories, ...),
never the Python parameters (`predictions`, `training_observations`, scale='metric'); the
library's own messages stay as they are for Python users."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import predstab
from tests.surfaces._cli import predstab_cli, predstab_main


def _lines(text, kind):
    """The stderr lines of one kind ("error" or "warning"), without the "predstab CMD: kind: " prefix."""
    return [line.split(f": {kind}: ", 1)[1] for line in text.splitlines() if f": {kind}: " in line]


@pytest.fixture
def files(tmp_path):
    rng = np.random.default_rng(0)
    objects = rng.normal(size=30)
    pred = objects[:, None] + rng.normal(scale=0.3, size=(30, 8))
    paths = {}

    def save(name, frame):
        paths[name] = tmp_path / name
        frame.to_csv(paths[name], index=False, na_rep="NA")  # R's NA (a lone "" is a blank line to R)

    save("p.csv", pd.DataFrame(pred, columns=[f"r{j}" for j in range(8)]))
    save("p3.csv", pd.DataFrame(pred[:, :3], columns=list("abc")))
    save("p5.csv", pd.DataFrame(pred[:, :5], columns=list("abcde")))
    save("pT.csv", pd.DataFrame(pred.T, columns=[f"o{i}" for i in range(30)]))
    save("y1.csv", pd.DataFrame({"y": [1.5]}))
    y = rng.normal(size=50)
    save("y.csv", pd.DataFrame({"y": y}))
    y[3] = np.nan
    save("ynan.csv", pd.DataFrame({"y": y}))
    labels = np.where(pred > 0, "hi", "lo")
    save("lab.csv", pd.DataFrame(labels, columns=[f"r{j}" for j in range(8)]))
    save("ylab.csv", pd.DataFrame({"y": np.where(rng.normal(size=50) > 0, "hi", "lo")}))
    save("ymid.csv", pd.DataFrame({"y": np.where(rng.normal(size=50) > 0, "hi", "mid")}))
    save("r1.csv", pd.DataFrame({"a": rng.normal(size=20)}))
    save("rcont.csv", pd.DataFrame(rng.normal(size=(30, 3)), columns=list("abc")))
    save("s1.csv", pd.DataFrame({"old": [1.0], "new": [2.0]}))
    save("s10.csv", pd.DataFrame({"old": rng.normal(size=10), "new": rng.normal(size=10)}))
    save("ids.csv", pd.DataFrame({"old": [1, 0, 1], "new": [0, 1, 1], "id": ["a", "a", "b"]}))
    return paths


def test_stability_errors_name_the_files_and_options_typed(files):
    f = files
    cases = [
        (("p.csv", "--training-observations", "y1.csv", "--scale", "metric"),
         f"The training data (--training-observations '{f['y1.csv']}') must contain at least two elements "
         "(non-missing); got 1."),
        # psi's baseline is not training data: the file is named alone
        (("p.csv", "--prediction-space", "y1.csv", "--scale", "metric"),
         f"--prediction-space '{f['y1.csv']}' must contain at least two elements (non-missing); got 1."),
        (("lab.csv", "--training-observations", "ymid.csv", "--scale", "categorical"),
         f"Some prediction values do not occur in the training data: PREDICTIONS '{f['lab.csv']}' contains "
         f"['lo'], absent from --training-observations '{f['ymid.csv']}'."),
        (("lab.csv", "--training-observations", "ylab.csv", "--scale", "ordinal", "--categories", "lo,mid"),
         f"Some values do not occur in --categories: --training-observations '{f['ylab.csv']}' contains "
         "['hi'] but the levels are ['lo', 'mid']."),
        (("lab.csv", "--prediction-space", "ymid.csv", "--scale", "ordinal", "--categories", "hi,mid"),
         f"Some prediction values do not occur in --categories: PREDICTIONS '{f['lab.csv']}' contains "
         "['lo'] but the levels are ['hi', 'mid']."),
    ]
    for args, expected in cases:
        paths = [str(f[a]) if a in f else a for a in args]
        proc = predstab_main("stability", *paths)
        assert proc.returncode == 2, proc
        assert _lines(proc.stderr, "error") == [expected]


def test_a_wrong_scale_is_told_in_options(files):
    # numbers given --scale categorical: every distinct number would be a class of its own
    proc = predstab_main("stability", files["p.csv"], "--training-observations", files["y.csv"],
                         "--scale", "categorical")
    (line,) = _lines(proc.stderr, "error")
    assert line.startswith(f"Some prediction values do not occur in the training data: PREDICTIONS "
                           f"'{files['p.csv']}' contains [")
    assert line.endswith(f"..., absent from --training-observations '{files['y.csv']}'; PREDICTIONS "
                         f"'{files['p.csv']}' looks continuous (240 distinct numbers in 240 values), and "
                         "--scale categorical or ordinal reads every distinct number as a class: for numbers "
                         "use --scale metric.")


def test_stability_warnings_name_the_files_typed(files):
    proc = predstab_main("stability", files["p.csv"], "--training-observations", files["ynan.csv"],
                         "--scale", "metric")
    assert proc.returncode == 0
    assert _lines(proc.stderr, "warning") == [
        f"The training data (--training-observations '{files['ynan.csv']}') contains missing values (NAs): "
        "1 out of 50 values are missing (2%); they are dropped."]
    proc = predstab_main("stability", files["p3.csv"], "--training-observations", files["y.csv"],
                         "--scale", "metric")
    assert _lines(proc.stderr, "warning") == [
        f"PREDICTIONS '{files['p3.csv']}' contains fewer than 5 repeated predictions (3 columns); stability "
        "estimates may be unreliable."]
    proc = predstab_main("stability", files["pT.csv"], "--training-observations", files["y.csv"],
                         "--scale", "metric")
    (line,) = _lines(proc.stderr, "warning")
    assert line.startswith(f"PREDICTIONS '{files['pT.csv']}' has 8 rows and 30 columns")
    assert line.endswith("if the file has them the other way round, add --transpose")


def test_an_infinite_value_is_refused_where_the_file_is_read(files, tmp_path):
    y = pd.read_csv(files["y.csv"])
    y.loc[4, "y"] = np.inf
    y.to_csv(tmp_path / "yinf.csv", index=False)
    proc = predstab_main("stability", files["p.csv"], "--training-observations", tmp_path / "yinf.csv",
                         "--scale", "metric")
    assert _lines(proc.stderr, "error") == [
        f"--training-observations: '{tmp_path / 'yinf.csv'}', line 6, column 'y': infinite values are not "
        "allowed"]


def test_the_installed_command_says_the_same(files):
    proc = predstab_cli("stability", files["p.csv"], "--training-observations", files["y1.csv"],
                        "--scale", "metric")
    assert proc.returncode == 2
    assert proc.stderr.strip() == (
        f"predstab stability: error: The training data (--training-observations '{files['y1.csv']}') must "
        "contain at least two elements (non-missing); got 1.")


def test_the_python_api_keeps_its_parameter_names(files):
    pred = pd.read_csv(files["p.csv"]).to_numpy()
    with pytest.raises(ValueError) as caught:
        predstab.phi(pred, [1.5], scale="metric")
    assert str(caught.value) == ("The training data (`training_observations`) must contain at least two "
                                 "elements (non-missing); got 1.")
    with pytest.warns(predstab.PredstabDataWarning, match=r"^`predictions` contains fewer than 5"):
        predstab.phi(pred[:, :3], np.arange(10.0), scale="metric")


def test_agree_speaks_of_ratings_and_measures(files):
    first = pd.unique(pd.read_csv(files["rcont.csv"]).to_numpy().ravel())[:3]
    proc = predstab_main("agree", files["rcont.csv"], "--measure", "fleiss")
    assert _lines(proc.stderr, "warning") == [
        f"RATINGS '{files['rcont.csv']}' looks continuous (90 distinct numbers in 90 values, e.g. "
        f"{', '.join(f'{v:.4g}' for v in first)}, ...): each distinct number is read as a category of its "
        "own. For numbers use --measure icc or --measure alpha --scale interval; for classes, round or cut "
        "the values into classes first"]
    proc = predstab_main("agree", files["r1.csv"], "--measure", "icc")
    assert _lines(proc.stderr, "error") == [
        f"RATINGS '{files['r1.csv']}' must have at least 2 replicates (columns) per object; got shape "
        "(20, 1)."]
    proc = predstab_main("agree", files["lab.csv"], "--measure", "alpha", "--scale", "ordinal")
    assert _lines(proc.stderr, "error") == [
        "--scale ordinal with non-numeric ratings (kind 'string') needs --categories to give the order of "
        "the categories, e.g. --categories low,mid,high."]


def test_tune_predictions_names_its_file_once_and_offers_transpose(files, tmp_path):
    proc = predstab_main("tune", "--predictions", files["r1.csv"], "--out", tmp_path / "o1")
    assert _lines(proc.stderr, "error") == [
        f"--predictions '{files['r1.csv']}' must have at least 2 objects (rows) and 2 members (columns); "
        "got shape (20, 1)."]
    proc = predstab_main("tune", "--predictions", files["pT.csv"], "--out", tmp_path / "o2")
    warned = _lines(proc.stderr, "warning")
    assert warned[0].startswith(f"--predictions '{files['pT.csv']}' has 8 rows and 30 columns")
    assert warned[0].endswith("if the file has them the other way round, add --transpose")
    assert "np.stack" not in proc.stderr and "filterwarnings" not in proc.stderr
    # and --transpose does it: 30 objects, 8 members, no warning about the orientation
    proc = predstab_main("tune", "--predictions", files["pT.csv"], "--transpose", "--out", tmp_path / "o3")
    assert proc.returncode == 0, proc.stderr
    assert "30 objects, 8 members" in proc.stdout and "transposed" not in proc.stderr
    # the library's advice names the option and its value as typed (closed-form, not closed_form)
    proc = predstab_main("tune", "--predictions", files["p5.csv"], "--method", "pool",
                         "--out", tmp_path / "o5")
    assert _lines(proc.stderr, "error") == [
        "--grid: the pool of 5 members must hold at least 2 disjoint groups of the largest grid value (3); "
        "use --method closed-form (the curves from the members as they are) or train at least 6 members "
        "(a grid of 3 sizes, 2 groups of each)."]
    proc = predstab_main("tune", "--predictions", files["lab.csv"], "--task", "classification",
                         "--observed", files["ymid.csv"], "--out", tmp_path / "o4")
    assert _lines(proc.stderr, "error") == [
        f"--observed '{files['ymid.csv']}' holds label(s) ['mid'] that are not among the pool's classes "
        f"['hi', 'lo']; --observed '{files['ymid.csv']}' must be the observed classes of the training "
        "objects."]


def test_compare_names_the_columns_typed(files):
    cases = [
        (("s1.csv", "--test", "wilcoxon"), "--a 'old' must have at least 2 scores; got 1."),
        (("s1.csv", "--test", "permutation"),
         "--a 'old' and --b 'new' must each hold at least 2 scores for the two-sample test; got 1 and 1 "
         "(--paired compares pairs)."),
        (("ids.csv", "--test", "mcnemar", "--id", "id"), "--id 'id' must be unique; duplicated: ['a']."),
    ]
    for (name, *args), expected in cases:
        proc = predstab_main("compare", files[name], *args, "--a", "old", "--b", "new")
        assert _lines(proc.stderr, "error") == [expected]
    # the R-style block names the columns as R names its variables (data:  new and old)
    proc = predstab_main("compare", files["s10.csv"], "--test", "wilcoxon", "--a", "old", "--b", "new")
    assert "\ndata:  new and old\n" in proc.stdout


@pytest.mark.parametrize("test", ["wilcoxon", "permutation", "corrected-t"])
def test_compare_report_block_names_the_columns_as_stdout_does(files, tmp_path, test):
    """A guard (issue 35 walk, item 5): the report shows no "b and a" where stdout names the columns
    (on main the report renders the result without its R-style print, so none appears)."""
    out = tmp_path / f"{test}.csv"
    proc = predstab_main("compare", files["s10.csv"], "--test", test, "--a", "old", "--b", "new",
                         "--n-train", 80, "--n-test", 20, "--out", out)
    assert proc.returncode == 0, proc.stderr
    page = (tmp_path / f"{test}.report.html").read_text()
    assert "data:  new and old" in proc.stdout and "data:  new and old" in page  # the R-style print
    assert "b and a" not in page


def test_the_permutation_test_refuses_a_one_score_sample_in_its_own_words():
    # scipy's "each sample in `data` must contain two or more observations along `axis`" named neither
    with pytest.raises(ValueError, match=r"^`a` and `b` must each hold at least 2 scores .* got 1 and 3"):
        predstab.compare.mean_permutation_test([1.0], [2.0, 3.0, 4.0])
    assert predstab.compare.mean_permutation_test([1.0, 2.0], [3.0, 4.0]).pvalue == pytest.approx(1 / 3)


def test_no_python_parameter_reaches_the_terminal(files, tmp_path):
    # every message above, and a few more: none names a parameter in backticks or as name='value'
    runs = [("stability", files["p.csv"], "--training-observations", files["y1.csv"], "--scale", "metric"),
            ("stability", files["p.csv"], "--training-observations", files["y.csv"],
             "--scale", "categorical"),
            ("stability", files["lab.csv"], "--prediction-space", files["ymid.csv"], "--scale", "ordinal",
             "--categories", "hi,mid"),
            ("agree", files["rcont.csv"], "--measure", "alpha"),
            ("agree", files["r1.csv"], "--measure", "fleiss"),
            ("tune", "--predictions", files["pT.csv"], "--out", tmp_path / "t"),
            ("compare", files["s1.csv"], "--test", "corrected-t", "--a", "old", "--b", "new",
             "--n-train", "9", "--n-test", "1")]
    for args in runs:
        proc = predstab_main(*args)
        assert proc.stderr, args
        assert "`" not in proc.stderr and "='" not in proc.stderr, proc.stderr


def test_the_readers_advice_is_options_on_the_command_line_and_keywords_in_python(files, tmp_path):
    (tmp_path / "y01.csv").write_text("0\n1\n1\n0\n")  # "0": pandas' header or a first value?
    (tmp_path / "ycomma.csv").write_text("y\n1,5\n2,5\n3,0\n1\n")  # decimal commas read with sep ","
    (tmp_path / "pnum.csv").write_text("1.5,2,3\n3,4,5\n")  # a first row of numbers: data
    proc = predstab_main("stability", files["p.csv"], "--training-observations", tmp_path / "y01.csv",
                         "--scale", "categorical")
    assert _lines(proc.stderr, "error") == [
        f"--training-observations file '{tmp_path / 'y01.csv'}', line 1: is '0' the column numbers pandas "
        "writes as a header (to_csv of an unnamed matrix) or a first row of data (binary labels)? Say which "
        "for this file with --header-in FILE or --no-header-in FILE"]
    proc = predstab_main("stability", files["p.csv"], "--training-observations", tmp_path / "ycomma.csv",
                         "--scale", "metric")
    (line,) = _lines(proc.stderr, "error")
    assert "Files of R's write.csv2 are read with --sep ';' --dec ','; if the first column" in line
    proc = predstab_main("agree", tmp_path / "pnum.csv", "--measure", "icc")
    assert _lines(proc.stderr, "note") == [
        f"RATINGS file '{tmp_path / 'pnum.csv'}': its first row holds only numbers, so it is read as data "
        "(columns named V1..V3); pass --header-in FILE if it names the columns"]
    for text in (proc.stderr,):
        assert "header=True" not in text and "sep=';'" not in text
    # the Python reader speaks its own keywords, not the command line's options
    with pytest.raises(ValueError) as caught:
        predstab.read_table(tmp_path / "y01.csv")
    assert str(caught.value).endswith("Say which with header=True or header=False")
    with pytest.warns(UserWarning, match=r"pass header=True if it names the columns$"):
        predstab.read_table(tmp_path / "pnum.csv")


def test_the_reports_reading_counts_one_member_and_says_when_there_is_no_interval():
    # walk of issue 35: report.html of `tune --predictions` said "Recommended: 1 members (fleiss);
    # 95% interval nan to nan" for five class members already at the target
    from predstab import _demo

    rng = np.random.default_rng(11)
    # 120 objects, unanimous but for 3 split 3:2 (hard votes of 2 members tie: a curve that is not
    # monotone, all of it above 0.95)
    labels = np.repeat(np.array(["benign", "malignant"] * 60, dtype=object)[:, None], 5, axis=1)
    labels[:3] = [["benign", "malignant", "benign", "malignant", "benign"],
                  ["malignant", "malignant", "benign", "benign", "benign"],
                  ["benign", "malignant", "benign", "malignant", "benign"]]
    pool = predstab.TreePool.from_predictions(labels, classes=["benign", "malignant"],
                                              y=np.array(["benign", "malignant"] * 150), random_state=0)
    with pytest.warns(predstab.PredstabDataWarning):  # 5 class members: the bands' coverage
        res = predstab.tune_num_learners(pool, method="closed_form", random_state=0)
    assert res.recommendation == 1 and res.recommendations[res.primary].rule == "already stable"
    assert f"Recommended: 1 member ({res.primary}); no interval (the curve is already flat: the smallest " \
           "grid value at the target, no fitted value to resample)." in _demo.reading(res)
    # a fitted recommendation keeps its interval, its unit counted
    members = rng.normal(size=(60, 1)) + rng.normal(scale=0.3, size=(60, 8))
    res = predstab.tune_num_learners(predstab.TreePool.from_predictions(members, random_state=0),
                                     method="closed_form", random_state=0)
    low, high = res.confidence_interval
    counted = "member" if res.recommendation == 1 else "members"
    assert (f"Recommended: {res.recommendation} {counted} (icc); 95% interval {low:g} to {high:g} (what it "
            f"covers: {res.interval_covers}).") in _demo.reading(res)


def test_power_says_the_bound_is_on_each_number():
    # "--n must hold at least 2 numbers; got '1,5'" read as a count of numbers (two were given)
    proc = predstab_main("power", "effect", "--n", "1,5")
    assert _lines(proc.stderr, "error") == ["--n must hold numbers of at least 2 each; got '1,5'"]
    proc = predstab_main("power", "seeds", "--effect", "0.5,0")
    assert _lines(proc.stderr, "error") == ["--effect must hold positive numbers; got '0.5,0'"]
