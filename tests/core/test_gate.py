"""Issue 32: one gate for every input (``predstab._core._gate``).

The mistakes a Python user makes -- members stacked in rows, numbers given to a measure of
categories, R's row names read by pandas, a bad ``y``, masked arrays, an ordered Categorical
against ``categories=``, inputs that never end -- give an error or a warning that names the
parameter, in the API as in the command line. Every test here fails on the code before the
gate (checked against commit 47fb43c).
"""

import os
import re
import signal
import subprocess
import sys
import time
import warnings

import numpy as np
import pandas as pd
import pytest

import predstab
from predstab import PredstabDataWarning, PredstabOrientationWarning, PredstabWarning, TreePool
from predstab import compare as cmp
from predstab._core import _gate, _reading
from predstab._core._reading import InputError, InputNote

SRC = os.path.join(os.path.dirname(__file__), "..", "..", "src")


def _oneway_icc(x):
    """irr::icc(x) (oneway, consistency, single) from its mean squares, written out here."""
    n, k = x.shape
    msr = k * ((x.mean(axis=1) - x.mean()) ** 2).sum() / (n - 1)
    msw = ((x - x.mean(axis=1, keepdims=True)) ** 2).sum() / (n * (k - 1))
    return (msr - msw) / (msr + (k - 1) * msw)


@pytest.fixture(scope="module")
def regression_data():
    from sklearn.datasets import make_regression

    X, y = make_regression(n_samples=300, n_features=5, noise=10.0, random_state=0)
    return X[:100], y[:100], X[100:]


@pytest.fixture(scope="module")
def forest_stack(regression_data):
    """``np.stack`` of the trees' predictions of a fitted RandomForestRegressor: 20 trees x 200 objects."""
    from sklearn.ensemble import RandomForestRegressor

    X, y, X_test = regression_data
    forest = RandomForestRegressor(n_estimators=20, random_state=0).fit(X, y)
    return np.stack([tree.predict(X_test) for tree in forest.estimators_]), y


@pytest.fixture(scope="module")
def mlp_stack(regression_data):
    """``np.stack`` of a deep ensemble's predictions: 5 MLPs (seeds 0..4) x 200 objects."""
    from sklearn.neural_network import MLPRegressor

    X, y, X_test = regression_data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ConvergenceWarning of the small networks
        members = [MLPRegressor(hidden_layer_sizes=(16,), max_iter=300, random_state=seed).fit(X, y)
                   for seed in range(5)]
    return np.stack([m.predict(X_test) for m in members]), y


# ----------------------------------------------------------------------------- 1. orientation
@pytest.mark.parametrize("stack", ["forest_stack", "mlp_stack"])
def test_members_stacked_in_rows_warn_in_icc_phi_and_from_predictions(stack, request):
    P, y = request.getfixturevalue(stack)
    n_members = P.shape[0]
    calls = [("ratings", lambda m: predstab.icc(m)),
             ("predictions", lambda m: predstab.phi(m, y, scale="metric")),
             ("predictions", lambda m: TreePool.from_predictions(m))]
    for name, call in calls:
        pattern = rf"`{name}` has {n_members} rows and 200 columns.*looks transposed.*`{name}\.T`"
        with pytest.warns(PredstabOrientationWarning, match=pattern):
            call(P)
    # objects in rows: no warning, and the ICC is the one computed here from its mean squares
    with warnings.catch_warnings():
        warnings.simplefilter("error", PredstabOrientationWarning)
        right = predstab.icc(P.T).value
        TreePool.from_predictions(P.T)
    assert right == pytest.approx(_oneway_icc(P.T), rel=1e-10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PredstabOrientationWarning)
        wrong = predstab.icc(P).value
    assert wrong == pytest.approx(_oneway_icc(P), rel=1e-10)
    assert right > 0.5 > wrong  # the members agree; the transposed reading says they do not


def test_an_intended_orientation_is_said_by_filtering_the_category(forest_stack):
    P, _ = forest_stack
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", category=PredstabOrientationWarning)
        assert predstab.icc(P).value == pytest.approx(_oneway_icc(P), rel=1e-10)
    assert issubclass(PredstabOrientationWarning, PredstabDataWarning)


def test_labels_stacked_in_rows_warn_in_fleiss_kappa():
    from sklearn.datasets import make_classification
    from sklearn.ensemble import RandomForestClassifier

    X, y = make_classification(n_samples=260, n_features=6, n_informative=4, random_state=0)
    forest = RandomForestClassifier(n_estimators=15, random_state=0).fit(X[:60], y[:60])
    labels = np.array(["no", "yes"], dtype=object)
    P = np.stack([labels[tree.predict(X[60:]).astype(int)] for tree in forest.estimators_])  # 15 x 200
    codes = np.stack([tree.predict(X[60:]).astype(int) for tree in forest.estimators_])  # labels 0 / 1
    for stacked in (P, codes):
        with pytest.warns(PredstabOrientationWarning, match="`ratings` has 15 rows and 200 columns"):
            predstab.fleiss_kappa(stacked)
        with pytest.warns(PredstabOrientationWarning, match="`predictions` has 15 rows and 200 columns"):
            TreePool.from_predictions(stacked, classes=np.unique(stacked))
        with warnings.catch_warnings():
            warnings.simplefilter("error", PredstabOrientationWarning)
            predstab.fleiss_kappa(stacked.T)
            TreePool.from_predictions(stacked.T, classes=np.unique(stacked))


def test_probabilities_stacked_members_first_warn_in_from_predictions():
    from sklearn.datasets import make_classification
    from sklearn.neural_network import MLPClassifier

    X, y = make_classification(n_samples=300, n_features=6, n_informative=4, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ConvergenceWarning
        members = [MLPClassifier(hidden_layer_sizes=(16,), max_iter=300, random_state=seed)
                   .fit(X[:100], y[:100]) for seed in range(5)]
    P = np.stack([m.predict_proba(X[100:]) for m in members])  # 5 members x 200 objects x 2 classes
    with pytest.warns(PredstabOrientationWarning, match=r"`predictions` has 5 rows and 200 columns.*"
                                                        r"`predictions\.transpose\(1, 0, 2\)`"):
        TreePool.from_predictions(P)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PredstabOrientationWarning)
        pool = TreePool.from_predictions(P.transpose(1, 0, 2))
    np.testing.assert_array_equal(pool.test_predictions_, P.transpose(1, 0, 2))


def test_the_command_line_warns_once_through_the_gate(forest_stack, tmp_path, capsys):
    from predstab.cli import main

    P, _ = forest_stack
    pd.DataFrame(P).to_csv(tmp_path / "wide.csv", index=False)
    assert main(["agree", str(tmp_path / "wide.csv"), "--measure", "icc"]) == 0
    err = capsys.readouterr().err
    assert err.count("looks transposed") == 1 and "RATINGS '" in err and "add --transpose" in err
    assert main(["agree", str(tmp_path / "wide.csv"), "--measure", "icc", "--transpose"]) == 0
    assert "looks transposed" not in capsys.readouterr().err


def test_regression_targets_must_be_numbers_in_tune_num_learners():
    from sklearn.ensemble import RandomForestRegressor

    X = np.random.default_rng(0).normal(size=(40, 3))
    with pytest.raises(ValueError, match=r"`y` must hold numbers for a regression; got 'a', 'b'"):
        predstab.tune_num_learners(RandomForestRegressor(n_estimators=5), X, np.array(["a", "b"] * 20))


def test_the_orientation_rule_costs_nothing_on_a_tall_matrix():
    # objects in rows (the usual shape): decided by the shape alone, the data are never read
    class Shape:
        shape = (10**6, 100)

        def __array__(self, *args, **kwargs):  # pragma: no cover - must not be called
            raise AssertionError("the data were read")

    assert _gate.looks_transposed(Shape()) is False
    # a very wide matrix is judged on at most 4096 evenly spaced columns
    rng = np.random.default_rng(1)
    wide = rng.normal(size=(1, 20000)) + rng.normal(scale=0.1, size=(3, 20000))
    assert _gate.looks_transposed(wide) is True
    assert _gate.looks_transposed(rng.normal(size=(3, 20000))) is False


@pytest.fixture(scope="module")
def more_members_than_objects(regression_data):
    """Real stacks with more members than objects (``np.stack``, members in rows), neither side
    3 x the other: 60 trees of a forest x 25 objects, 12 MLPs (seeds 0..11) x 8 objects, and
    40 trees of a classification forest x 20 objects as the labels "no" / "yes"."""
    from sklearn.datasets import make_classification
    from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor
    from sklearn.neural_network import MLPRegressor

    X, y, X_test = regression_data
    forest = RandomForestRegressor(n_estimators=60, random_state=0).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ConvergenceWarning of the small networks
        mlps = [MLPRegressor(hidden_layer_sizes=(16,), max_iter=300, random_state=seed).fit(X, y)
                for seed in range(12)]
    Xc, yc = make_classification(n_samples=260, n_features=6, n_informative=4, random_state=1)
    trees = RandomForestClassifier(n_estimators=40, random_state=0).fit(Xc[:200], yc[:200]).estimators_
    labels = np.array(["no", "yes"], dtype=object)
    return {"forest": np.stack([tree.predict(X_test[:25]) for tree in forest.estimators_]),
            "mlp": np.stack([m.predict(X_test[:8]) for m in mlps]),
            "classes": np.stack([labels[tree.predict(Xc[200:220]).astype(int)] for tree in trees])}


def _variance_components(x):
    """(between rows, between columns) variance components of the two-way layout of a complete
    float matrix, from its mean squares, written out here; and the F test's p of the columns."""
    from scipy import stats

    n, m = x.shape
    grand = x.mean()
    ms_rows = m * ((x.mean(axis=1) - grand) ** 2).sum() / (n - 1)
    ms_cols = n * ((x.mean(axis=0) - grand) ** 2).sum() / (m - 1)
    resid = x - x.mean(axis=1, keepdims=True) - x.mean(axis=0, keepdims=True) + grand
    ms_error = (resid ** 2).sum() / ((n - 1) * (m - 1))
    p_cols = stats.f.sf(ms_cols / ms_error, m - 1, (n - 1) * (m - 1))
    return (ms_rows - ms_error) / m, (ms_cols - ms_error) / n, p_cols


def test_stacks_of_more_members_than_objects_warn_in_the_api_and_the_cli(more_members_than_objects, tmp_path,
                                                                         capsys):
    from predstab.cli import main

    for kind, P in more_members_than_objects.items():
        n_members, n_objects = P.shape
        assert n_objects < n_members < 3 * n_objects  # the shape alone cannot tell
        pattern = rf"`(ratings|predictions)` has {n_members} rows and {n_objects} columns.*looks transposed"
        if kind == "classes":
            calls = [lambda m: predstab.fleiss_kappa(m), lambda m: predstab.krippendorff_alpha(m),
                     lambda m: TreePool.from_predictions(m, classes=["no", "yes"])]
        else:
            calls = [lambda m: predstab.icc(m), lambda m: predstab.phi(m, m.ravel(), scale="metric"),
                     lambda m: TreePool.from_predictions(m)]
        for call in calls:
            with pytest.warns(PredstabOrientationWarning, match=pattern):
                call(P)
            with warnings.catch_warnings():
                warnings.simplefilter("error", PredstabOrientationWarning)  # objects in rows: no false alarm
                call(P.T)
    # the CLI asks the same gate, names the file and its option; --transpose says it is meant
    pd.DataFrame(more_members_than_objects["forest"]).to_csv(tmp_path / "stack.csv", index=False)
    assert main(["agree", str(tmp_path / "stack.csv"), "--measure", "icc"]) == 0
    err = capsys.readouterr().err
    assert err.count("looks transposed") == 1 and "RATINGS '" in err and "add --transpose" in err
    assert main(["agree", str(tmp_path / "stack.csv"), "--measure", "icc", "--transpose"]) == 0
    assert "looks transposed" not in capsys.readouterr().err
    # the intended orientation, said by filtering the category: the matrix's own ICC, no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", category=PredstabOrientationWarning)
        P = more_members_than_objects["mlp"]
        wrong = predstab.icc(P).value
        assert wrong == pytest.approx(_oneway_icc(P), rel=1e-10)
    assert predstab.icc(P.T).value > 0.9 > 0.1 > wrong + 0.1  # what the warning saves


def test_the_square_rule_is_the_two_way_layout_computed_here(more_members_than_objects):
    # the components of the numeric stacks, computed in the test: members in rows -> the columns
    # (objects) dominate at least 4 x; objects in rows -> at most 0.26 x (the documented margins)
    for kind in ("forest", "mlp"):
        P = more_members_than_objects[kind]
        rows, cols, p = _variance_components(P)
        assert p < 1e-4 and cols > 4 * max(rows, 0)
        rows_t, cols_t, _ = _variance_components(P.T)
        assert cols_t < 0.26 * rows_t
        assert _gate._columns_dominate(P) and not _gate._columns_dominate(P.T)
    # the sums of squares, against the formula (numbers) and the indicators of each label (labels)
    rng = np.random.default_rng(4)
    x = rng.normal(size=(7, 5)) + 1e9  # an offset: the sums are of the centred, scaled values
    ss_rows, ss_cols, ss_error, n = _gate._two_way_sums(x)
    z = (x - x.mean()) / np.abs(x - x.mean()).max()
    assert n == 35
    assert ss_rows == pytest.approx(5 * ((z.mean(axis=1)) ** 2).sum(), rel=1e-6)
    assert ss_cols == pytest.approx(7 * ((z.mean(axis=0)) ** 2).sum(), rel=1e-6)
    residual = z - z.mean(axis=1, keepdims=True) - z.mean(axis=0, keepdims=True)
    assert ss_error == pytest.approx((residual ** 2).sum(), rel=1e-6)
    # an absent cell: the residual from the means of the cells present
    holed = x.copy()
    holed[2, 3] = np.nan
    holed[4, 1:] = np.nan  # a row with one value present
    z = np.ma.masked_invalid(holed)
    z = (z - z.mean()) / np.abs(z - z.mean()).max()
    residual = z - z.mean(axis=1)[:, None] - z.mean(axis=0)[None, :]
    want = (float((z.count(axis=1) * z.mean(axis=1) ** 2).sum()),
            float((z.count(axis=0) * z.mean(axis=0) ** 2).sum()), float((residual ** 2).sum()), 30)
    assert _gate._two_way_sums(holed) == pytest.approx(want, rel=1e-6)
    labels = np.array(["a", "b", "c"], dtype=object)[rng.integers(0, 3, size=(7, 5))]
    labels[1, 2] = None  # missing: one more label
    want = np.zeros(3)
    for label in ("a", "b", "c", None):
        indicator = np.array([[cell == label for cell in row] for row in labels], dtype=float)
        centred = indicator - indicator.mean()
        rows_ss, cols_ss = 5 * (centred.mean(axis=1) ** 2).sum(), 7 * (centred.mean(axis=0) ** 2).sum()
        want += [rows_ss, cols_ss, (centred ** 2).sum() - rows_ss - cols_ss]
    assert _gate._two_way_sums(labels) == pytest.approx((*want, 35), rel=1e-12)
    # numbers in an object array are numbers, text is labels; nothing present: nothing to tell
    assert _gate._two_way_sums(x.astype(object)) == pytest.approx(_gate._two_way_sums(x), rel=1e-12)
    assert _gate._two_way_sums(np.full((3, 3), None, dtype=object)) == (0.0, 0.0, 0.0, 9)
    assert _gate._two_way_sums(np.full((3, 3), np.nan)) == (0.0, 0.0, 0.0, 0)
    assert _gate._two_way_sums(np.full((3, 4), "a", dtype=object)) == (0.0, 0.0, 0.0, 12)
    assert _gate._two_way_sums(np.full((3, 4), 2.5)) == (0.0, 0.0, 0.0, 12)


def test_the_square_rules_f_test_is_the_one_computed_here():
    # 4 x 5 matrices: columns c_j times t, plus a fixed residual (no row effect): the rule's answer
    # is the F test of the two-way layout at 1e-4, with (m - 1, (n - 1)(m - 1)) degrees of freedom,
    # computed here; t crosses the threshold, so a changed df or level is seen
    from scipy import stats

    rng = np.random.default_rng(11)
    residual = rng.normal(size=(4, 5))
    residual -= residual.mean(axis=1, keepdims=True) + residual.mean(axis=0, keepdims=True) - residual.mean()
    columns = np.array([-2.0, -1.0, 0.0, 1.0, 2.0])
    answers = set()
    for t in np.geomspace(0.5, 20, 120):
        x = t * columns[None, :] + residual
        ms_cols = 4 * ((x.mean(axis=0) - x.mean()) ** 2).sum() / 4
        ms_error = (residual ** 2).sum() / 12
        want = stats.f.sf(ms_cols / ms_error, 4, 12) < 1e-4
        assert _gate._columns_dominate(x) == want, t
        answers.add(want)
    assert answers == {True, False}


def test_the_square_rule_raises_no_false_alarm():
    # Shrout and Fleiss (1979), Table 2: 6 targets x 4 judges of very different leniency (the judges'
    # component is 2.05 x the targets'): read as given, and its ICC(1) the one computed here
    sf = np.array([[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]],
                  dtype=float)
    rows, cols, _ = _variance_components(sf)
    assert cols / rows == pytest.approx(2.05, abs=0.01)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PredstabOrientationWarning)
        assert predstab.icc(sf).value == pytest.approx(_oneway_icc(sf), rel=1e-10)
        assert predstab.icc(sf.T).value == pytest.approx(_oneway_icc(sf.T), rel=1e-10)
    # 4 of its targets (rows 1, 3, 4, 6): the judges' component is 5.4 x the targets', but a 4 x 4
    # table is not judged (square rule: 5 x 5 or more)
    assert not _gate.looks_transposed(sf[[0, 2, 3, 5]]) and _gate._columns_dominate(sf[[0, 2, 3, 5]])
    assert _gate.looks_transposed(np.repeat(np.arange(5.0)[None, :], 5, axis=0) + np.eye(5) * 0.1)
    assert not _gate.looks_transposed(np.repeat(np.arange(4.0)[None, :], 5, axis=0) + np.eye(5, 4) * 0.1)
    # unstructured square matrices: numbers, labels, with missing values
    rng = np.random.default_rng(7)
    for _ in range(300):
        shape = tuple(int(v) for v in rng.integers(3, 30, size=2))
        noise = rng.normal(size=shape)
        noise[rng.random(shape) < 0.1] = np.nan
        assert not _gate.looks_transposed(noise)
        assert not _gate.looks_transposed(rng.integers(0, 3, size=shape).astype(str).astype(object))
    # identical members (a converged forest): objects in rows pass, members in rows warn
    same = np.repeat(rng.normal(size=(12, 1)), 10, axis=1)
    assert not _gate.looks_transposed(same) and _gate.looks_transposed(same.T)
    assert not _gate.looks_transposed(np.ones((8, 8)))  # nothing differs: nothing to tell
    assert not _gate.looks_transposed(np.full((3, 3), 1e300) * rng.normal(size=(3, 3)))  # no overflow
    assert not _gate.looks_transposed(np.ones((2, 5)) + rng.normal(size=(2, 5)))  # 2 rows: no square rule


def test_the_square_rule_reads_a_bounded_sample():
    assert _gate._evenly(10, 512) == slice(None)
    assert _gate._evenly(1000, 4).tolist() == [0, 333, 666, 999]
    # a 2000 x 1500 stack: structure (members agree) only in the last half of its rows and columns
    # is seen through the 512 evenly spaced lines
    rng = np.random.default_rng(2)
    stack = rng.normal(size=(2000, 1500))
    stack[1000:, 750:] = rng.normal(size=(1, 750)) + 0.05 * rng.normal(size=(1000, 750))
    assert _gate.looks_transposed(stack) is True
    assert _gate.looks_transposed(stack.T) is False

    class Square:
        shape = (300, 200)

        def __array__(self, *args, **kwargs):
            raise RuntimeError("read")

    with pytest.raises(RuntimeError, match="read"):  # a square matrix is read: the shape cannot tell
        _gate.looks_transposed(Square())


# ----------------------------------------------------------------------------- 2. numbers as labels
def test_continuous_values_in_measures_of_categories_warn_naming_the_scale():
    x = np.random.default_rng(0).normal(size=(100, 10))
    with pytest.warns(PredstabDataWarning, match=r"`ratings` looks continuous \(1000 distinct numbers in "
                                                 r"1000 values.*For numbers use icc\(\)"):
        predstab.fleiss_kappa(x)
    with pytest.warns(PredstabDataWarning, match=r"looks continuous.*krippendorff_alpha\(scale='interval'\)"):
        predstab.krippendorff_alpha(x)
    with pytest.warns(PredstabDataWarning, match="`ratings` looks continuous"):
        predstab.cohen_kappa(x[:, :2])
    with pytest.warns(PredstabDataWarning, match="looks continuous.*scale='metric'"):
        predstab.psi(x, x[:, 0], scale="categorical")
    # class labels, also many of them, also half-points: no warning
    rng = np.random.default_rng(1)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PredstabDataWarning)
        predstab.fleiss_kappa(rng.integers(0, 5, size=(100, 10)))
        predstab.fleiss_kappa(rng.integers(0, 8, size=(100, 10)) / 2)
        predstab.fleiss_kappa(rng.integers(0, 30, size=(200, 10)))


def test_finn_and_agree_say_when_the_numbers_are_not_their_scale():
    # found by the walk (issue 32): finn of ratings off its n_categories levels (0..9 on a 5-level
    # scale: -3.41; normal floats: 0.53) and agree of measurements (0 %) came without a word
    rng = np.random.default_rng(0)
    off = rng.integers(0, 10, size=(50, 4))
    with pytest.warns(PredstabDataWarning, match=r"^`ratings` span 0 to 9, more than the 5 levels of "
                                                 r"`n_categories` \(a range of 4\): Finn's coefficient"):
        value = predstab.finn(off, n_categories=5).value
    # the value is still irr::finn's: 1 - (within-object mean square) / ((s^2 - 1) / 12)
    within = ((off - off.mean(axis=1, keepdims=True)) ** 2).sum() / (50 * 3)
    assert value == pytest.approx(1 - within / 2.0, rel=1e-12)
    with pytest.warns(PredstabDataWarning, match="more than the 5 levels of `n_categories`"):
        predstab.finn(rng.normal(size=(100, 10)), n_categories=5)
    with pytest.warns(PredstabDataWarning, match=r"`ratings` looks continuous \(1000 distinct numbers in "
                                                 r"1000 values.*For numbers use a `tolerance`"):
        assert predstab.agree(rng.normal(size=(100, 10))).value == 0.0
    # on its scale (a range of n_categories - 1 at most), and labels that never agree: no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error", PredstabDataWarning)
        predstab.finn(rng.integers(1, 6, size=(50, 4)), n_categories=5)
        predstab.finn(rng.integers(0, 5, size=(50, 4)), n_categories=5)
        assert predstab.agree(np.array([[1, 2], [2, 3], [3, 1]])).value == 0.0
        assert predstab.agree(rng.normal(size=(100, 10)), tolerance=0.5).value == 0.0


def test_phi_of_numbers_on_the_categorical_scale_says_which_scale():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match=r"do not occur in the training data.*looks continuous "
                                         r"\(1000 distinct numbers.*use scale='metric'"):
        predstab.phi(rng.normal(size=(100, 10)), rng.normal(size=50), scale="categorical")


def test_from_predictions_reads_numbers_as_numbers_whatever_their_container(forest_stack):
    P = forest_stack[0].T  # 200 objects x 20 trees
    reference = TreePool.from_predictions(P).closed_form([1, 5, 20], measure="icc").curve
    frame = pd.DataFrame(P).convert_dtypes()
    assert str(frame.dtypes.iloc[0]) == "Float64"
    for given in (P.astype(object), frame, pd.DataFrame(P).astype("Float64"), P.tolist()):
        pool = TreePool.from_predictions(given)
        assert pool.classes_ is None  # numbers, not 1,000s of classes
        np.testing.assert_array_equal(pool.test_predictions_, P)
        np.testing.assert_allclose(pool.closed_form([1, 5, 20], measure="icc").curve, reference, rtol=1e-12)
    refused = r"`predictions` must hold real numbers or class labels; got dtype "
    with pytest.raises(TypeError, match=refused + "complex"):
        TreePool.from_predictions(P.astype(complex))
    with pytest.raises(TypeError, match=refused + "datetime"):
        TreePool.from_predictions(np.arange(40).reshape(20, 2).astype("datetime64[D]"))
    with pytest.raises(TypeError, match=r"kind 'complex'"):
        TreePool.from_predictions(P.astype(complex).astype(object))


def test_nullable_integer_frame_is_numbers_with_missing_values():
    frame = pd.DataFrame({"a": [1, 2, 3, 4], "b": [1, 2, 4, pd.NA], "c": [2, 2, 3, 5]}, dtype="Int64")
    pool = TreePool.from_predictions(frame, oob=np.array([[True] * 3] * 3 + [[True, False, True]]))
    assert pool.classes_ is None
    np.testing.assert_array_equal(pool.test_predictions_[:3], frame.to_numpy(dtype=float)[:3])


# ----------------------------------------------------------------------------- 3. R's row names
def test_r_row_names_read_by_pandas_warn_naming_the_column(tmp_path):
    path = tmp_path / "written_by_r.csv"
    # write.csv(x, "written_by_r.csv") of a 6 x 3 matrix: quoted header with an empty first name
    path.write_text('"","rater1","rater2","rater3"\n"1",3,3,2\n"2",3,6,1\n"3",3,4,4\n"4",4,6,4\n'
                    '"5",5,2,3\n"6",5,4,2\n')
    matrix = np.array([[3, 3, 2], [3, 6, 1], [3, 4, 4], [4, 6, 4], [5, 2, 3], [5, 4, 2]], dtype=float)
    expected = predstab.icc(matrix, model="twoway", type="agreement").value
    naive = pd.read_csv(path)
    assert naive.columns[0] == "Unnamed: 0"
    with pytest.warns(PredstabDataWarning, match=r"first column of `ratings` \(named 'Unnamed: 0'\) "
                                                 r"looks like row names.*index_col=0.*predstab.read_table"):
        wrong = predstab.icc(naive, model="twoway", type="agreement").value
    assert wrong != pytest.approx(expected)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PredstabDataWarning)
        assert predstab.icc(pd.read_csv(path, index_col=0), model="twoway",
                            type="agreement").value == pytest.approx(expected, rel=1e-12)
        assert predstab.icc(predstab.read_table(path), model="twoway",
                            type="agreement").value == pytest.approx(expected, rel=1e-12)
    with pytest.warns(PredstabDataWarning, match="first column of `predictions`"):
        predstab.phi(naive, matrix[:, 0], scale="metric")
    with pytest.warns(PredstabDataWarning, match="first column of `predictions`"):
        TreePool.from_predictions(naive)


def test_r_files_read_by_pandas_warn_once_for_what_was_misread():
    # the files R's write.csv / write.table wrote (/work/shared/r-files), read as a notebook would
    folder = os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "r-files", "files")
    folder = folder if os.path.isdir(folder) else "/work/shared/r-files/files"
    if not os.path.isdir(folder):  # pragma: no cover - outside this project's machines
        pytest.skip("no R-written files")
    frame = pd.read_csv(os.path.join(folder, "pred_writecsv.csv"))  # "Unnamed: 0" holds R's row names 1..8
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        predstab.icc(frame)
        predstab.phi(frame, frame.iloc[:, 1], scale="metric")
        TreePool.from_predictions(frame)
    messages = [str(w.message) for w in caught if issubclass(w.category, PredstabDataWarning)]
    # one warning per call, naming the column; the row-names column is not taken for the orientation
    assert len(messages) == 3 and all("named 'Unnamed: 0'" in m for m in messages), messages
    # a file without a header (write.table(col.names = FALSE)) read with one: a row of data is lost
    headerless = os.path.join(folder, "pred_writetable_noheader.csv")
    pattern = (r"^the column names of `ratings` \(8\.747092, 11\.151563, 9\.967619, \.\.\.\) are "
               r"numbers: pandas\.read_csv read the first row of a file without a header as the names")
    with pytest.warns(PredstabDataWarning, match=pattern):
        lost = predstab.icc(pd.read_csv(headerless))
    assert lost.n_objects == 7 and predstab.icc(pd.read_csv(headerless, header=None)).n_objects == 8
    # y read with its row names: phi's baseline had both columns pooled (0.953 instead of 0.693)
    y = pd.read_csv(os.path.join(folder, "ytrain_writecsv.csv"))
    P = np.random.default_rng(0).normal(size=(20, 5)) + np.arange(20)[:, None]
    with pytest.warns(PredstabDataWarning, match=r"first column of `training_observations` \(named "
                                                 r"'Unnamed: 0'\) looks like row names"):
        predstab.phi(P, y, scale="metric")


def test_one_models_class_probabilities_are_not_replicates():
    from sklearn.datasets import make_classification
    from sklearn.linear_model import LogisticRegression

    X, y = make_classification(n_samples=300, n_features=6, n_informative=4, n_classes=3,
                               n_clusters_per_class=1, random_state=0)
    proba = LogisticRegression(max_iter=500).fit(X[:200], y[:200]).predict_proba(X[200:])  # 100 x 3
    pattern = (r"^every row of `(ratings|predictions)` sums to 1 \(3 columns of numbers in \[0, 1\]\): it "
               r"looks like the class probabilities of one model \(predict_proba: classes in columns\)")
    with pytest.warns(PredstabDataWarning, match=pattern):
        predstab.phi(proba, y[:200], scale="metric")
    # the rows' means are all 1/k: ICC(1) = -1 / (k - 1) whatever the model, -0.5 here
    with pytest.warns(PredstabDataWarning, match=pattern):
        assert predstab.icc(proba).value == pytest.approx(-0.5, abs=1e-12)
    warnings.simplefilter("ignore", PredstabDataWarning)  # (the rule's answers below; reset by pytest)
    assert _gate.check_probabilities(proba[:, :2]) is False           # rows no longer sum to 1
    assert _gate.check_probabilities(np.array([[1, 0], [0, 1], [1, 0]])) is False  # whole numbers: labels
    assert _gate.check_probabilities(np.full((4, 2), 0.5) + [0, 1e-7]) is True     # within 1e-6
    assert _gate.check_probabilities(np.full((4, 2), 0.5) + [0, 1e-5]) is False
    assert _gate.check_probabilities(np.array([[1.5, -0.5], [0.5, 0.5]])) is False  # outside [0, 1]
    assert _gate.check_probabilities(np.full((4, 33), 1 / 33)) is False             # more than 32 columns
    assert _gate.check_probabilities(np.full((4, 32), 1 / 32)) is True
    assert _gate.check_probabilities(np.full((1, 3), 1 / 3)) is False               # one row
    assert _gate.check_probabilities(np.full((4, 1), 1.0)) is False                 # one column
    rows = np.full((1000, 2), 0.5)
    rows[1] = [0.9, 0.3]  # a row off the 256 evenly spaced ones is not looked at (bounded cost)
    assert _gate.check_probabilities(rows) is True
    rows[999] = [0.9, 0.3]  # the last row is
    assert _gate.check_probabilities(rows) is False


def test_the_probabilities_warning_and_the_categories_order_error_word_for_word():
    with pytest.warns(PredstabDataWarning) as caught:
        assert _gate.check_probabilities(np.full((4, 2), 0.5), name="predictions") is True
    assert [str(w.message) for w in caught] == [
        "every row of `predictions` sums to 1 (2 columns of numbers in [0, 1]): it looks like the class "
        "probabilities of one model (predict_proba: classes in columns), not replicates (refits, members) in "
        "columns. For a classifier's members, give their predicted classes as objects x members, or their "
        "predict_proba stacked as objects x members x classes (TreePool.from_predictions)"]
    values = pd.Series(pd.Categorical(["low", "high", "mid"], categories=["low", "mid", "high"],
                                      ordered=True))
    with pytest.raises(ValueError) as info:
        _gate.check_categories_order(values, ["mid", "low"])
    assert str(info.value) == ("`categories` ['mid', 'low'] contradicts the order of the ordered Categorical "
                               "`ratings` ['low', 'mid', 'high']: one of the two orders would be ignored; "
                               "give "
                               "the categories in the Categorical's order.")
    assert _gate.check_categories_order(values, ["low", "high", "extra"]) is None  # the shared ones agree


def test_a_square_matrix_with_no_residual_degree_of_freedom_is_not_judged_transposed():
    # 9 of 25 cells present: the two-way layout has 9 - 5 - 5 + 1 = 0 residual degrees of freedom,
    # so the square rule cannot test its columns (and must not divide by zero); the columns differ
    # by far, yet the matrix is read as given and icc refuses it for its own reason
    m = np.full((5, 5), np.nan)
    m[0, :] = [1.0, 10.0, 20.0, 30.0, 40.0]
    m[1:, 0] = [1.2, 0.9, 1.1, 1.0]
    ss_rows, ss_cols, ss_error, n_present = _gate._two_way_sums(m)
    assert n_present == 9 and ss_cols > 0
    assert _gate._columns_dominate(m) is False
    assert _gate.looks_transposed(m) is False
    with pytest.warns(PredstabDataWarning, match=r"^4 of 5 objects have a missing value and were dropped"):
        with pytest.raises(ValueError,
                           match=r"^`ratings` must have at least 2 complete objects \(rows\); got 1 "):
            predstab.icc(m)


def test_check_row_names_names_ratings_by_default():
    frame = pd.DataFrame({"Unnamed: 0": [1, 2, 3], "a": [0.5, 0.7, 0.1], "b": [0.4, 0.9, 0.2]})
    with pytest.warns(PredstabDataWarning, match=r"^the first column of `ratings` \(named 'Unnamed: 0'\)"):
        assert _gate.check_row_names(frame) is True
    with pytest.warns(PredstabDataWarning, match=r"^the first column of `x` \('c', holding 1, 2, \.\.\., "
                                                 r"3,\)"):
        assert _gate.check_row_names(frame.rename(columns={"Unnamed: 0": "c"}), name="x") is True


def test_check_column_names_only_for_numbers_that_are_not_counters():
    data = np.ones((3, 3))
    for names in (["0", "1", "2"], ["1", "2", "3"], ["a", "1", "2"], [0, 1, 2], ["nan", "x", "1"]):
        assert _gate.check_column_names(pd.DataFrame(data, columns=names)) is False, names
    assert _gate.check_column_names(pd.DataFrame(data[:, :1], columns=["1.5"])) is False  # one column
    assert _gate.check_column_names(data) is False
    with pytest.warns(PredstabDataWarning, match=r"^the column names of `p` \(1, 0, 0\.1\) are numbers"):
        assert _gate.check_column_names(pd.DataFrame(data, columns=["1", "0", "0.1"]), name="p") is True
    with pytest.warns(PredstabDataWarning, match=r"\(2, 3, 4, \.\.\.\) are numbers.*header=None\) or "
                                                 r"predstab\.read_table\(path\)$"):
        _gate.check_column_names(pd.DataFrame(np.ones((2, 4)), columns=["2", "3", "4", "5"]))


def test_a_first_column_counting_one_to_n_warns():
    frame = pd.DataFrame({"id": np.arange(1, 9), "a": [1, 2, 4, 4, 5, 6, 7, 8],
                          "b": [1, 2, 3, 5, 5, 6, 8, 8]})
    with pytest.warns(PredstabDataWarning, match=r"'id', holding 1, 2, \.\.\., 8"):
        predstab.icc(frame)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PredstabDataWarning)
        predstab.icc(frame[["a", "b"]])
        predstab.icc(frame[["b", "id"]])  # only the first column is looked at
        predstab.icc(frame.to_numpy())     # a numpy array has no column names to tell


# ----------------------------------------------------------------------------- 4. y of from_predictions
def test_from_predictions_checks_y_against_the_pool(forest_stack):
    P, y = forest_stack
    P = P.T
    bad_numbers = y.copy()
    bad_numbers[3] = np.inf
    with pytest.raises(ValueError, match=r"`y` must hold finite values; got 1 infinite"):
        TreePool.from_predictions(P, y=bad_numbers)
    with pytest.raises(ValueError, match=r"`y` must hold numbers for a pool of numeric predictions; got 'a'"):
        TreePool.from_predictions(P, y=np.array(["a", "b"] * 50))
    labels = np.array(["no", "yes"], dtype=object)[(P > np.median(P)).astype(int)]
    with pytest.raises(ValueError, match=r"`y` holds label\(s\) \[0, 1\] that are not among the pool's"):
        TreePool.from_predictions(labels, y=np.array([0, 1] * 50))
    with pytest.raises(ValueError, match=r"`y` holds label\(s\) \['maybe'\]"):
        TreePool.from_predictions(labels, y=np.array(["no", "yes", "maybe", "no"]))
    pool = TreePool.from_predictions(labels, y=np.array(["no", "yes", "yes", "no"]))
    assert pool.y_train_.tolist() == ["no", "yes", "yes", "no"]
    np.testing.assert_array_equal(TreePool.from_predictions(P, y=y).y_train_, y)


# ----------------------------------------------------------------------------- 5. masked arrays
_A = np.ma.masked_array([0.81, 0.79, 0.84, 0.80, -1e6, 0.83], mask=[0, 0, 0, 0, 1, 0])
_B = np.array([0.85, 0.82, 0.86, 0.83, 0.84, 0.88])
_MASKED_CALLS = {
    "ttest": lambda: cmp.ttest(_A, _B),
    "ttest paired": lambda: cmp.ttest(_A, _B, paired=True),
    "mean_permutation_test": lambda: cmp.mean_permutation_test(_A, _B, random_state=0),
    "corrected_resampled_ttest": lambda: cmp.corrected_resampled_ttest(_A, _B, n_train=90, n_test=10),
    "mean_ci": lambda: cmp.mean_ci(_A),
    "bootstrap_ci": lambda: cmp.bootstrap_ci(_A, random_state=0),
    "paired_bootstrap": lambda: cmp.paired_bootstrap(_B, _A, _B, metric=lambda t, p: float(np.mean(t - p)),
                                                     random_state=0),
    "wilcoxon": lambda: cmp.wilcoxon(_A, _B),
    "mcnemar": lambda: cmp.mcnemar(np.ma.masked_array([1, 0, 1, 1], mask=[0, 0, 1, 0]), [1, 1, 0, 1]),
    "probability_of_improvement": lambda: cmp.probability_of_improvement(_A, _B, random_state=0),
}


@pytest.mark.parametrize("call", sorted(_MASKED_CALLS))
def test_compare_refuses_masked_values_instead_of_reading_the_numbers_under_the_mask(call):
    with pytest.raises(ValueError, match=r"has 1 masked value\(s\): a masked value is a missing value"):
        _MASKED_CALLS[call]()


def test_a_masked_cell_is_a_missing_value_in_from_predictions_and_the_measures(forest_stack):
    P = forest_stack[0].T[:30].copy()
    masked = np.ma.masked_array(P, mask=np.zeros(P.shape, dtype=bool))
    masked.mask[4, 2] = True
    masked.data[4, 2] = 1e9  # the number under the mask must never be read
    with pytest.raises(ValueError, match=r"`predictions` has a missing value \(NaN / None\) at \(4, 2\)"):
        TreePool.from_predictions(masked)
    oob = np.ones(P.shape, dtype=bool)
    oob[4, 2] = False  # that member trained on the object: its prediction is not used
    with_nan = P.copy()
    with_nan[4, 2] = np.nan
    got = TreePool.from_predictions(masked, oob=oob)
    want = TreePool.from_predictions(with_nan, oob=oob)
    np.testing.assert_array_equal(got.test_predictions_, want.test_predictions_)
    # the agreement measures drop the object with a missing value, as R's na.omit
    with pytest.warns(PredstabDataWarning, match="1 of 30 objects have a missing value"):
        assert predstab.icc(masked).value == pytest.approx(_oneway_icc(np.delete(P, 4, axis=0)), rel=1e-10)


def test_masked_fit_data_are_refused_by_name_and_unmasked_data_pass_as_their_numbers():
    # check_fit_data: X, y and X_test, each refused by its own name with the features' advice
    # (rows to drop or impute), an array without a masked cell read as its data, None passed through
    X = np.arange(12.0).reshape(4, 3)
    y = np.array([1.0, 2.0, 3.0, 4.0])
    X_masked = np.ma.masked_array(X, mask=np.zeros(X.shape, dtype=bool))
    X_masked.mask[1, 2] = X_masked.mask[3, 0] = True
    y_masked = np.ma.masked_array(y, mask=[0, 0, 1, 0])
    cases = (((X_masked, y, X), "X", 2), ((X, y_masked, X), "y", 1), ((X, y, X_masked), "X_test", 2))
    for args, name, n in cases:
        with pytest.raises(ValueError) as info:
            _gate.check_fit_data(*args)
        assert str(info.value) == (
            f"`{name}` has {n} masked value(s): a masked value is a missing value, and a model is fitted and "
            f"predicts on complete features; drop the rows with a masked value (from `{name}` and its "
            "responses) or impute them first.")
    whole = np.ma.masked_array(X, mask=False)
    got = _gate.check_fit_data(whole, np.ma.masked_array(y, mask=False), None)
    assert len(got) == 3 and got[2] is None
    assert type(got[0]) is np.ndarray and type(got[1]) is np.ndarray
    np.testing.assert_array_equal(got[0], X)
    np.testing.assert_array_equal(got[1], y)
    assert _gate.check_fit_data(X, y, X)[0] is X


# ----------------------------------------------------------------------------- 6. ordered categoricals
def test_an_ordered_categorical_and_a_conflicting_categories_are_refused():
    levels = ["low", "mid", "high"]
    codes = np.array([[0, 0, 1], [1, 1, 1], [2, 2, 1], [0, 1, 0], [2, 2, 2], [1, 2, 1], [0, 0, 0], [2, 1, 2]])
    ordered = pd.CategoricalDtype(levels, ordered=True)
    frame = pd.DataFrame(np.array(levels, dtype=object)[codes]).astype(ordered)
    own = predstab.krippendorff_alpha(frame, scale="ordinal").value
    assert own == pytest.approx(predstab.krippendorff_alpha(codes, scale="ordinal").value, rel=1e-12)
    with pytest.raises(ValueError, match=r"`categories` \['mid', 'low', 'high'\] contradicts the order of "
                                         r"the ordered Categorical `ratings` \['low', 'mid', 'high'\]"):
        predstab.krippendorff_alpha(frame, scale="ordinal", categories=["mid", "low", "high"])
    assert predstab.krippendorff_alpha(frame, scale="ordinal", categories=levels).value == pytest.approx(own)
    with pytest.raises(ValueError, match="contradicts the order of the ordered Categorical `predictions`"):
        predstab.phi(frame, frame.iloc[:, 0], scale="ordinal", categories=["mid", "low", "high"])
    # weighted coefficients, whose weights follow the order of the categories
    two = frame.iloc[:, :2]
    for weighted in (lambda c: predstab.cohen_kappa(two, weights="linear", categories=c),
                     lambda c: predstab.gwet_ac1(frame, weights="linear", categories=c)):
        assert weighted(levels).value == pytest.approx(weighted(pd.Series(levels)).value)
        with pytest.raises(ValueError, match="contradicts the order of the ordered Categorical `ratings`"):
            weighted(["mid", "low", "high"])


def test_measures_of_ordered_categories_use_the_categoricals_order():
    # found by the walk (issue 32): cohen_kappa's weights, rater_bias's cells above / below the
    # diagonal and Fleiss-Levin-Paik's ordered test read an ordered Categorical in the sorted order
    # of its labels ('high' < 'low' < 'mid'): weighted kappa 0.484 instead of 0.652, silently
    levels = ["low", "mid", "high"]
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 3, size=(40, 2))
    codes[:, 1] = np.clip(codes[:, 0] + rng.integers(0, 2, 40), 0, 2)
    ordered = pd.CategoricalDtype(levels, ordered=True)
    frame = pd.DataFrame(np.array(levels, dtype=object)[codes]).astype(ordered)
    # linear-weighted kappa by hand over low < mid < high (the codes' order)
    table = np.zeros((3, 3))
    np.add.at(table, (codes[:, 0], codes[:, 1]), 1)
    p = table / table.sum()
    w = 1 - np.abs(np.subtract.outer(np.arange(3), np.arange(3))) / 2
    p_o, p_e = (w * p).sum(), (w * np.outer(p.sum(axis=1), p.sum(axis=0))).sum()
    want = (p_o - p_e) / (1 - p_e)
    assert predstab.cohen_kappa(frame, weights="linear").value == pytest.approx(want, rel=1e-12)
    assert predstab.cohen_kappa(frame, weights="linear").categories == tuple(levels)
    # rater.bias: the share of the off-diagonal pairs in which rater 1 rates higher (above the diagonal)
    above, below = np.triu(table, 1).sum(), np.tril(table, -1).sum()
    assert predstab.rater_bias(frame).value == pytest.approx(above / (above + below), rel=1e-12)
    assert predstab.fleiss_levin_paik(frame).statistic == pytest.approx(
        predstab.fleiss_levin_paik(codes).statistic, rel=1e-12)
    # the same as text labels with their order given
    text = frame.astype(str)
    assert predstab.cohen_kappa(text, weights="linear", categories=levels).value == pytest.approx(
        predstab.cohen_kappa(frame, weights="linear").value, rel=1e-12)


# ----------------------------------------------------------------------------- 7. inputs that never end
@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_a_device_that_never_ends_is_refused_within_seconds(device):
    if not os.path.exists(device):  # pragma: no cover - not a Unix system
        pytest.skip(f"no {device}")
    start = time.perf_counter()
    with pytest.raises(InputError, match=rf"^RATINGS file '{device}' is a device, not a file or a pipe: a "
                                         r"device such as /dev/zero or /dev/urandom never ends"):
        predstab.read_table(device, what="RATINGS")
    # behind a pipe the device is not seen, its bytes are: a NUL byte, or bytes that are no UTF-8
    writer = subprocess.Popen(["cat", device], stdout=subprocess.PIPE)
    try:
        with pytest.raises(InputError, match=r"is not (a text table: it holds a NUL|UTF-8 text).*"
                                             r"\(byte \d+, line"):
            predstab.read_table(f"/dev/fd/{writer.stdout.fileno()}")
    finally:
        writer.kill()
        writer.wait()
    assert time.perf_counter() - start < 5


@pytest.mark.slow  # two runs of the command (its start-up); the device check is tested in-process above
def test_the_command_line_refuses_a_device_as_a_file_and_as_standard_input():
    for args, stdin in ((["agree", "/dev/zero", "--measure", "icc"], None),
                        (["agree", "-", "--measure", "icc"], "/dev/zero")):
        with open(stdin or os.devnull, "rb") as handle:
            proc = subprocess.run([sys.executable, "-m", "predstab", *args], stdin=handle,
                                  capture_output=True, timeout=60,
                                  env={**os.environ, "PYTHONPATH": os.path.abspath(SRC)})
        err = proc.stderr.decode().strip()
        assert proc.returncode == 2 and len(err.splitlines()) == 1, err
        assert "is a device, not a file or a pipe" in err and "Traceback" not in err


def test_a_stream_without_line_ends_is_refused_at_the_line_bound():
    # tr turns /dev/zero into endless 'a's: valid UTF-8, no NUL, no line end
    with open("/dev/zero", "rb") as zeros:
        writer = subprocess.Popen(["tr", "\\0", "a"], stdin=zeros, stdout=subprocess.PIPE)
    try:
        start = time.perf_counter()
        with pytest.raises(InputError, match=r"': line 1 is longer than 64 MiB without a line end: not a "
                                             r"text table \(a stream that never ends\?\)$"):
            predstab.read_table(f"/dev/fd/{writer.stdout.fileno()}")
        assert time.perf_counter() - start < 30
    finally:
        writer.kill()
        writer.wait()
    assert _reading._MAX_LINE == 64 << 20


def test_the_line_bound_counts_from_the_last_line_end(monkeypatch, tmp_path):
    monkeypatch.setattr(_reading, "_CHUNK", 8)
    monkeypatch.setattr(_reading, "_MAX_LINE", 20)
    (tmp_path / "ok.csv").write_bytes(b"a,b\n" + b"1,2\n" * 40)  # 164 bytes in short lines: read
    assert predstab.read_table(tmp_path / "ok.csv").shape == (40, 2)
    (tmp_path / "edge.csv").write_bytes(b"a,b\n" + b"1" * 19 + b",2\n")  # 21 bytes + line end
    assert predstab.read_table(tmp_path / "edge.csv").shape == (1, 2)
    (tmp_path / "long.csv").write_bytes(b"a,b\n1,2\n" + b"3" * 30 + b",4\n")
    with pytest.raises(InputError, match=r"long\.csv': line 3 is longer than 0 MiB without a line end"):
        predstab.read_table(tmp_path / "long.csv")


def _cli(args, *, stdin=None):
    env = {**os.environ, "PYTHONPATH": os.path.abspath(SRC)}
    return subprocess.run([sys.executable, "-m", "predstab", *args], input=stdin, capture_output=True,
                          env=env, timeout=120)


_TABLE = b"a,b,c\n1,2,2\n2,3,3\n3,3,4\n5,6,6\n"
_ROWS = [[1, 2, 2], [2, 3, 3], [3, 3, 4], [5, 6, 6]]


def test_pipes_and_fifos_are_read(tmp_path):
    read, write = os.pipe()
    os.write(write, _TABLE)
    os.close(write)
    try:
        assert predstab.read_table(f"/dev/fd/{read}").to_numpy().tolist() == _ROWS
    finally:
        os.close(read)
    # a FIFO (a named pipe: not a device)
    import threading

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_bytes(_TABLE))
    writer.start()
    try:
        assert predstab.read_table(fifo).to_numpy().tolist() == _ROWS
    finally:
        writer.join(timeout=10)


@pytest.mark.slow  # two runs of the command (its start-up); the reading itself is tested above
def test_the_command_line_reads_standard_input_and_process_substitution():
    want = predstab.icc(np.array(_ROWS, dtype=float))
    proc = _cli(["agree", "-", "--measure", "icc"], stdin=_TABLE)
    assert proc.returncode == 0, proc.stderr
    assert f"ICC(1) = {want.value:.3g}" in proc.stdout.decode()
    env = {**os.environ, "PYTHONPATH": os.path.abspath(SRC)}
    command = (f"'{sys.executable}' -m predstab agree <(printf 'a,b,c\\n1,2,2\\n2,3,3\\n3,3,4\\n5,6,6\\n') "
               "--measure icc")
    proc = subprocess.run(["bash", "-c", command], capture_output=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert f"ICC(1) = {want.value:.3g}" in proc.stdout.decode()


# ----------------------------------------------------------------------------- 8. messages
def test_messages_name_the_parameter_the_user_passed():
    from sklearn.ensemble import RandomForestRegressor
    from sklearn.linear_model import LinearRegression

    X = np.random.default_rng(0).normal(size=(40, 3))
    y = X[:, 0].copy()
    y[[3, 7]] = np.nan
    with pytest.raises(ValueError, match=r"`y` has 2 missing value\(s\) \(NaN / None\), first at "
                                         r"row\(s\) \[3, 7\]"):
        predstab.tune_num_learners(RandomForestRegressor(n_estimators=5), X, y)
    with pytest.raises(ValueError, match=r"`members` must be fitted models; member 0 \(LinearRegression\)"):
        TreePool.from_members([LinearRegression(), LinearRegression()], X)
    fitted = [LinearRegression().fit(X, X[:, 0]), LinearRegression().fit(X, X[:, 1])]
    with pytest.raises(ValueError, match=r"`X_test` has 2 columns \(features\), but member 0 "
                                         r"\(LinearRegression\) was fitted on 3"):
        TreePool.from_members(fitted, X[:, :2])
    with pytest.raises(ValueError, match=r"`ratings` must be a rectangular \(n_objects, n_replicates\) "
                                         r"array; got rows of lengths \[1, 2\]\.$"):
        predstab.cohen_kappa([[1, 2], [1]])
    assert issubclass(InputNote, PredstabWarning)


def _numpy_loaded(pid) -> bool:
    """Whether process ``pid`` has mapped numpy's compiled core (it is importing the package)."""
    try:
        with open(f"/proc/{pid}/maps") as maps:
            return "_multiarray_umath" in maps.read()
    except OSError:  # ended, or no /proc
        return False


@pytest.mark.slow  # runs the command twice, waiting for it
def test_ctrl_c_while_the_command_starts_prints_one_line():
    env = {**os.environ, "PYTHONPATH": os.path.abspath(SRC)}
    for moment in ("numpy", 1.0):
        command = [sys.executable, "-m", "predstab", "agree", "missing.csv", "--measure", "icc"]
        proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        if moment == "numpy" and os.path.exists(f"/proc/{proc.pid}/maps"):
            # the first heavy import of the package: the quiet handler is in place before it, whatever
            # the machine's load (a fixed delay could still fall in the interpreter's own start-up)
            deadline = time.monotonic() + 60
            while proc.poll() is None and not _numpy_loaded(proc.pid) and time.monotonic() < deadline:
                time.sleep(0.002)
        else:
            time.sleep(1.0 if moment == "numpy" else moment)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        lines = err.decode().strip().splitlines()
        if proc.returncode == 2 or "does not exist" in err.decode():
            # the command had already run (a fast machine), or the signal came while it was exiting
            # after its one-line error: nothing left to interrupt at start-up
            continue
        assert proc.returncode == 130 and len(lines) == 1, err.decode()
        assert "interrupted" in lines[0] and "Traceback" not in err.decode()


def test_the_quiet_ctrl_c_is_installed_before_anything_else_of_the_package():
    import ast

    # predstab/__init__.py imports _startup before any other module (importlib included)
    init = ast.parse(open(os.path.join(SRC, "predstab", "__init__.py")).read())
    first = next(node for node in init.body if isinstance(node, (ast.Import, ast.ImportFrom)))
    assert isinstance(first, ast.ImportFrom) and first.module == "_core" and first.names[0].name == "_startup"
    # and _startup imports nothing that is not built in (signal, enum and threading took 10 ms)
    code = ("import importlib.util, sys; before = set(sys.modules); "
            "spec = importlib.util.spec_from_file_location("
            f"'probe', {os.path.join(SRC, 'predstab', '_core', '_startup.py')!r}); "
            "module = importlib.util.module_from_spec(spec); spec.loader.exec_module(module); "
            "print(sorted(set(sys.modules) - before))")
    new = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert set(eval(new.stdout)) <= {"_signal"}, new.stdout


# ----------------------------------------------------------------------------- the gate's rules, one by one
def test_check_responses_names_rows_counts_and_kinds():
    y = np.array([1.0, np.nan, 3.0, np.nan, 5.0, np.inf])
    with pytest.raises(ValueError, match=r"^`y` has 2 missing value\(s\) \(NaN / None\), first at "
                                         r"row\(s\) \[1, 3\]; a model cannot be fitted to them: drop those "
                                         r"rows from `X` and `y`\.$"):
        _gate.check_responses(y)
    with pytest.raises(ValueError, match=r"^`target` must hold finite values; got 2 infinite value\(s\), "
                                         r"first at row 2\.$"):
        _gate.check_responses(np.array([1.0, 2.0, -np.inf, np.inf]), name="target")
    with pytest.raises(ValueError, match=r"got 1 infinite value\(s\), first at row 1\.$"):
        _gate.check_responses(np.array([[1.0, 2.0], [3.0, np.inf], [4.0, 5.0]]))  # two outputs
    masked = np.ma.masked_array([1.0, 2.0, 3.0], mask=[0, 1, 0])
    with pytest.raises(ValueError, match=r"1 missing value\(s\) \(NaN / None\), first at row\(s\) \[1\]"):
        _gate.check_responses(masked)
    # numbers written as objects or a nullable Series are numbers; text is refused for a regression only
    assert _gate.check_responses(np.array([1, 2.5], dtype=object)).tolist() == [1.0, 2.5]
    assert _gate.check_responses(pd.Series([1, 2], dtype="Int64")).tolist() == [1, 2]
    with pytest.raises(ValueError, match=r"^`y` must hold numbers for a regression; got 'a', 'b', \.\.\. "
                                         r"\(class labels need a classifier\)\.$"):
        _gate.check_responses(np.array(["a", "b", "a"]))
    assert _gate.check_responses(np.array(["a", "b", "a"]), numbers=False).tolist() == ["a", "b", "a"]
    assert _gate.check_responses(np.array([np.inf, 1.0]), numbers=False)[0] == np.inf


def test_check_target_kind_by_the_rule_of_looks_continuous():
    _gate.check_target_kind([0, 1, 1, 0], "classification")
    _gate.check_target_kind(["a", "b"], "ordinal")
    _gate.check_target_kind([0.5, 1.5], "regression")
    with pytest.raises(InputError, match=r"looks continuous \(1 distinct numbers in 2 rows"):
        _gate.check_target_kind([0.5, 0.5], "classification")  # a fraction is no class label
    with pytest.raises(InputError, match=r"^the target 'y' looks continuous \(2 distinct numbers in 3 rows, "
                                         r"e\.g\. 0\.5, 1, \.\.\.\): --task ordinal needs class labels"):
        _gate.check_target_kind([0.5, 1.0, 1.0], "ordinal", name="y")
    with pytest.raises(InputError, match=r"^--observed 'o\.csv' looks continuous \(30 distinct numbers in "
                                         r"30 cells"):
        _gate.check_target_kind(np.arange(30), "classification", subject="--observed 'o.csv'", unit="cells")
    with pytest.raises(InputError, match=r"^--task must be regression, classification or ordinal; got 'x'"):
        _gate.check_target_kind([1], "x")
    assert _gate.looks_continuous(np.arange(21), 42) is False    # 21 whole numbers in 42 values: labels
    assert _gate.looks_continuous(np.arange(22), 42) is True     # more than half of the values distinct
    assert _gate.looks_continuous(np.arange(11) / 2, 1000) is True
    assert _gate.looks_continuous(np.arange(10) / 2, 1000) is False   # 10 half-points: a rating scale
    assert _gate.looks_continuous(np.array([True, False]), 2) is False
    assert _gate.looks_continuous(np.array(["a", "b"] * 30, dtype=object), 60) is False
    assert _gate.looks_continuous(np.array([0.5 + k for k in range(11)] + [None], dtype=object), 1000) is True


def test_looks_transposed_reads_whole_numbers_also_as_labels():
    rng = np.random.default_rng(3)
    objects = rng.integers(0, 2, size=200)
    members = np.where(rng.random((6, 200)) < 0.85, objects, 1 - objects)  # 6 members x 200 objects
    values = members.astype(float)
    assert _gate.looks_transposed(values) is True    # 0/1 labels: the variances alone do not tell
    with_missing = values.copy()
    with_missing[0, :5] = np.nan
    assert _gate.looks_transposed(with_missing) is True
    assert _gate.looks_transposed(values + 0.25) is False  # not whole: measurements, variances decide
    assert _gate.looks_transposed(members.astype(str).astype(object)) is True
    # fewer than 3 x more columns than rows: the square rule (the two-way layout) sees it too
    assert _gate.looks_transposed(members[:, :17]) is True
    assert _gate.looks_transposed(members[:, :17].T) is False
    assert _gate.looks_transposed(members[:, :2]) is False   # 3 x more rows than columns: tall
    assert _gate.looks_transposed(members[:1]) is False      # one row
    # a very wide matrix: its sample of 4096 columns is evenly spread, so a structure only in the
    # second half is seen too
    wide = rng.normal(size=(3, 20000))
    wide[:, 10000:] = rng.normal(size=(1, 10000)) + 0.01 * rng.normal(size=(3, 10000))
    assert _gate.looks_transposed(wide) is True
    assert _gate.looks_transposed(wide[:, :10000]) is False


def test_numbers_if_numeric_reads_every_container():
    assert _gate.numbers_if_numeric(pd.Series([1, None], dtype="Float64"), name="p").tolist()[0] == 1.0
    assert np.isnan(_gate.numbers_if_numeric(pd.Series([1, None], dtype="Float64"), name="p")[1])
    flags = _gate.numbers_if_numeric(pd.Series([True, False]), name="p")
    assert flags.dtype == bool  # booleans stay booleans (labels)
    mixed = _gate.numbers_if_numeric(np.array([1, None, 2.5], dtype=object), name="p")
    assert mixed.dtype == float and mixed[0] == 1.0 and np.isnan(mixed[1]) and mixed[2] == 2.5
    text = np.array(["a", None], dtype=object)
    assert _gate.numbers_if_numeric(text, name="p") is not None
    assert _gate.numbers_if_numeric(text, name="p").tolist() == ["a", None]
    assert _gate.numbers_if_numeric(np.array([], dtype=object), name="p").size == 0
    assert _gate.numbers_if_numeric(pd.DataFrame({"a": ["x", "y"]}), name="p").tolist() == [["x"], ["y"]]
    with pytest.raises(TypeError, match=r"^`p` must hold real numbers or class labels; got values of "
                                        r"kind 'date"):
        _gate.numbers_if_numeric(np.array([pd.Timestamp("2020-01-01").date(), None], dtype=object), name="p")
    import datetime

    with pytest.raises(TypeError, match=r"^`p` must hold real numbers or class labels; got values of kind "
                                        r"'datetime64'\.$"):
        _gate.numbers_if_numeric(np.array([np.datetime64("2020-01-01"), None], dtype=object), name="p")
    with pytest.raises(TypeError, match=r"got values of kind 'datetime'"):
        _gate.numbers_if_numeric(np.array([datetime.datetime(2020, 1, 1), None], dtype=object), name="p")
    with pytest.raises(TypeError, match=r"^`p` must hold real numbers or class labels; got dtype timedelta"):
        _gate.numbers_if_numeric(np.array([1, 2], dtype="timedelta64[s]"), name="p")


# ----------------------------------------------------------------------------- mutation survivors (issue 32)
def test_the_orientation_and_row_name_messages_in_full():
    stack = np.arange(5.0)[None, :] + np.eye(5) * 0.1  # 5 members (rows) x 5 objects
    with pytest.warns(PredstabOrientationWarning) as caught:
        _gate.check_orientation(stack, name="ratings")
    assert str(caught[0].message) == (
        "`ratings` has 5 rows and 5 columns, and its values agree more down the columns than along the rows: "
        "it looks transposed. Objects belong in rows and refits (members, raters) in columns; pass "
        "`ratings.T` (np.stack([m.predict(X) for m in members]) puts the members in rows; np.column_stack "
        "puts them in columns); if the orientation is intended, filter the warning: "
        "warnings.filterwarnings('ignore', category=predstab.PredstabOrientationWarning)")
    # one row is enough for a column named 'Unnamed: 0'
    one_row = pd.DataFrame({"Unnamed: 0": [1], "a": [2.0], "b": [3.0]})
    with pytest.warns(PredstabDataWarning) as caught:
        assert _gate.check_row_names(one_row)
    assert str(caught[0].message) == (
        "the first column of `ratings` (named 'Unnamed: 0') looks like row names read as data "
        "(pandas.read_csv of a file R's write.csv wrote): it is read as data (one more replicate, rater or "
        "set of values). Read the file with pd.read_csv(path, index_col=0) or predstab.read_table(path), or "
        "drop the column")
    assert not _gate.check_row_names(pd.DataFrame({"Unnamed: 0": [], "a": []}))


def test_the_square_rule_on_absent_and_huge_values_raises_no_numpy_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # one value present: nothing to tell, and its count; none present: no division by zero
        one = np.full((5, 5), np.nan)
        one[2, 3] = 4.0
        assert _gate._two_way_sums(one) == (0.0, 0.0, 0.0, 1)
        assert _gate._two_way_sums(np.full((5, 5), np.nan)) == (0.0, 0.0, 0.0, 0)
        assert not _gate.looks_transposed(np.full((6, 6), np.nan))
        # finite values whose sum overflows: read through the path of absent values, no overflow warning
        huge = np.full((5, 5), 1e308) * np.where(np.eye(5) > 0, -1.0, 1.0)
        assert _gate._two_way_sums(huge)[3] == 25
        _gate.looks_transposed(huge)


def test_the_square_rules_components_are_the_ones_computed_here():
    # 10 x 10: row effects, column effects t times larger, a fixed residual; the rule's answer is the F
    # test at 1e-4 and the columns' component (ms_cols - ms_error) / n_rows above 4 times the rows'
    # (ms_rows - ms_error) / n_cols, all computed here: t crosses the 4-times boundary where the F test
    # already rejects, so a changed component is seen
    from scipy import stats

    rng = np.random.default_rng(3)
    residual = rng.normal(size=(10, 10))
    residual -= residual.mean(axis=1, keepdims=True) + residual.mean(axis=0, keepdims=True) - residual.mean()
    rows, cols = np.linspace(-1, 1, 10), rng.permutation(np.linspace(-1, 1, 10))
    answers = set()
    for t in np.geomspace(1.0, 4.0, 300):
        x = 3 * rows[:, None] + t * 3 * cols[None, :] + 2 * residual
        ms_rows = 10 * ((x.mean(axis=1) - x.mean()) ** 2).sum() / 9
        ms_cols = 10 * ((x.mean(axis=0) - x.mean()) ** 2).sum() / 9
        ms_error = ((2 * residual) ** 2).sum() / 81
        want = bool(stats.f.sf(ms_cols / ms_error, 9, 81) < 1e-4
                    and (ms_cols - ms_error) / 10 > 4 * max((ms_rows - ms_error) / 10, 0.0))
        assert _gate._columns_dominate(x) == want, t
        answers.add(want)
    assert answers == {True, False}


def test_more_gate_messages_and_edges_in_full():
    # check_column_names names the parameter it is given, through check_row_names too
    with pytest.warns(PredstabDataWarning) as caught:
        _gate.check_row_names(pd.DataFrame(np.ones((3, 3)), columns=["1", "0", "0.1"]), name="predictions")
    assert str(caught[0].message) == (
        "the column names of `predictions` (1, 0, 0.1) are numbers: pandas.read_csv read the first row of a "
        "file without a header as the names, and that object is lost. Read the file with "
        "pd.read_csv(path, header=None) or predstab.read_table(path)")
    # the continuous-values warning shows the first distinct values, comma-separated
    with pytest.warns(PredstabDataWarning) as caught:
        _gate.check_labels(np.arange(30) + 0.5, 60)
    assert str(caught[0].message) == (
        "`ratings` looks continuous (30 distinct numbers in 60 values, e.g. 0.5, 1.5, 2.5, ...): each "
        "distinct number is read as a category of its own. For numbers use icc() or "
        "krippendorff_alpha(scale='interval'); for classes, round or cut the values into classes first")
    # one model's probabilities with a certain row (a probability of exactly 1) are still probabilities
    proba = np.array([[0.3, 0.7], [1.0, 0.0], [0.6, 0.4], [0.0, 1.0], [0.5, 0.5]])
    with pytest.warns(PredstabDataWarning, match="every row of `ratings` sums to 1"):
        assert _gate.check_probabilities(proba)
    # an ordered Categorical Series has its order; a column with one value present has that value as mean
    series = pd.Series(pd.Categorical(["b", "a", "c"], categories=["c", "a", "b"], ordered=True))
    assert _gate.ordered_categories(series) == ["c", "a", "b"]
    assert _gate.ordered_categories(pd.Series(["b", "a"])) is None
    holed = np.array([[1.0, 2.0, 4.0], [2.0, 3.0, np.nan], [4.0, 4.0, np.nan]])
    z = np.ma.masked_invalid(holed)
    z = (z - z.mean()) / np.abs(z - z.mean()).max()
    want_cols = float((z.count(axis=0) * z.mean(axis=0) ** 2).sum())  # column 3: one value, its own mean
    assert _gate._two_way_sums(holed)[1] == pytest.approx(want_cols, rel=1e-12)


def test_complex_numbers_and_dates_are_neither_numbers_nor_labels():
    # numbers_if_numeric refuses them by name whatever the container (the dtype check before the
    # object arrays' kinds), and passes plain numbers through as floats
    for values in (np.array([1 + 2j, 3.0]), np.array(["2020-01-01", "2021-06-30"], dtype="datetime64[D]"),
                   np.array([1, 2], dtype="timedelta64[s]")):
        message = f"`y` must hold real numbers or class labels; got dtype {values.dtype}."
        with pytest.raises(TypeError, match=f"^{re.escape(message)}$"):
            _gate.numbers_if_numeric(values, name="y")
    got = _gate.numbers_if_numeric(np.array([1, None, 2.5], dtype=object), name="y")
    np.testing.assert_array_equal(got, [1.0, np.nan, 2.5])


def test_missing_and_infinite_values_do_not_make_whole_numbers_look_continuous():
    # 11 whole numbers and a NaN / an inf among the distinct values: the non-finite ones are left
    # out (NaN != round(NaN) would otherwise read as a fractional value); a 12th value with a
    # fraction does make them continuous
    whole = np.arange(11.0)
    assert not _gate.looks_continuous(np.r_[whole, np.nan], 100)
    assert not _gate.looks_continuous(np.r_[whole, np.inf, -np.inf], 100)
    assert _gate.looks_continuous(np.r_[whole, 0.5], 100)
