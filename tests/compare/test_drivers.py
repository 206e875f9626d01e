"""mlxtend's paired t-test drivers (issue 38), pinned to the peer's own values.

Each expected value was produced by the peer named beside it, run while the test was written
(not in CI); an independent computation in the test checks the definition where it is short.
"""

import numpy as np
import pytest


# --------------------------------------------------------------------------- mlxtend's drivers
def _iris_pair():
    from sklearn.datasets import load_iris
    from sklearn.linear_model import LogisticRegression
    from sklearn.tree import DecisionTreeClassifier

    X, y = load_iris(return_X_y=True)
    return LogisticRegression(max_iter=1000), DecisionTreeClassifier(random_state=0, max_depth=2), X, y


def _diabetes_pair():
    from sklearn.datasets import load_diabetes
    from sklearn.linear_model import Ridge
    from sklearn.tree import DecisionTreeRegressor

    X, y = load_diabetes(return_X_y=True)
    return Ridge(alpha=1.0), DecisionTreeRegressor(random_state=0, max_depth=3), X, y


# mlxtend 0.25.0, estimator1 = A, estimator2 = B (mlxtend's t is A - B, ours B - A), e.g.
#   paired_ttest_kfold_cv(A, B, X, y, cv=5, shuffle=True, random_seed=1) -> (2.3333333333333335, 0.07995...)
# and the same call of each row below with mlxtend's names (num_rounds, random_seed)
@pytest.mark.parametrize(("data", "driver", "kwargs", "t", "p"), [
    (_iris_pair, "paired_ttest_kfold_cv", {"cv": 5, "shuffle": True, "random_state": 1},
     2.3333333333333335, 0.0799596465455817),
    (_iris_pair, "paired_ttest_resampled", {"n_rounds": 10, "random_state": 1, "corrected": False},
     3.2504180333157664, 0.00999068484975513),
    (_iris_pair, "paired_ttest_5x2cv", {"random_state": 1}, 0.8770580193070278, 0.420591026914543),
    (_diabetes_pair, "paired_ttest_5x2cv", {"random_state": 2}, -0.20068720269053897, 0.8488511461354281),
    (_diabetes_pair, "paired_ttest_kfold_cv", {"cv": 10}, 2.7899087142499575, 0.021056983044946725),
    (_diabetes_pair, "paired_ttest_resampled",
     {"n_rounds": 15, "test_size": 0.25, "random_state": 3, "corrected": False},
     5.058199426872991, 0.00017465276162438842),
])
def test_drivers_match_mlxtend(data, driver, kwargs, t, p):
    from predstab import compare

    a, b, X, y = data()
    res = getattr(compare, driver)(a, b, X, y, **kwargs)
    assert res.statistic == pytest.approx(-t, rel=1e-9)  # B minus A
    assert res.pvalue == pytest.approx(p, rel=1e-9)


def test_resampled_driver_corrects_by_default():
    from predstab import compare

    a, b, X, y = _diabetes_pair()
    kwargs = dict(n_rounds=15, test_size=0.25, random_state=3)
    scores_a, scores_b = compare.paired_split_scores(a, b, X, y, design="resampled", **kwargs)
    res = compare.paired_ttest_resampled(a, b, X, y, **kwargs)
    n_test = int(np.ceil(0.25 * len(y)))  # 111 of 442
    expected = compare.corrected_resampled_ttest(scores_a, scores_b, n_train=len(y) - n_test, n_test=n_test)
    assert (res.statistic, res.pvalue) == (expected.statistic, expected.pvalue)
    # Nadeau and Bengio's factor sqrt(1/J + n_test/n_train) over sqrt(1/J) shrinks t
    d = scores_b - scores_a
    naive = d.mean() / (d.std(ddof=1) / np.sqrt(15))
    assert res.statistic == pytest.approx(naive / np.sqrt(1 + 15 * n_test / (len(y) - n_test)), rel=1e-12)


def test_split_scores_shapes_and_clones():
    from predstab import compare

    a, b, X, y = _iris_pair()
    sa, sb = compare.paired_split_scores(a, b, X, y, design="5x2", random_state=0)
    assert sa.shape == sb.shape == (5, 2)
    assert not hasattr(a, "coef_")  # the user's estimators are not fitted: clones are
    with pytest.raises(ValueError, match="design"):
        compare.paired_split_scores(a, b, X, y, design="loo")


def test_drivers_take_frames_and_a_scorer():
    import pandas as pd
    from sklearn.metrics import make_scorer, mean_absolute_error

    from predstab import compare

    a, b, X, y = _diabetes_pair()
    frame, series = pd.DataFrame(X), pd.Series(y)
    for design in ("kfold", "resampled", "5x2"):
        options = dict(design=design, n_splits=4, n_rounds=3, random_state=5)
        arrays = compare.paired_split_scores(a, b, X, y, **options)
        frames = compare.paired_split_scores(a, b, frame, series, **options)
        np.testing.assert_allclose(arrays, frames, rtol=1e-13)  # Ridge on a frame: rounding apart
    # a scorer by name and the same one as a callable; R^2 by default for regressors
    by_name = compare.paired_split_scores(a, b, X, y, design="kfold", n_splits=3,
                                          scoring="neg_mean_absolute_error")
    scorer = make_scorer(mean_absolute_error, greater_is_better=False)
    by_callable = compare.paired_split_scores(a, b, X, y, design="kfold", n_splits=3, scoring=scorer)
    np.testing.assert_allclose(by_name, by_callable, rtol=1e-15)
    default = compare.paired_split_scores(a, b, X, y, design="kfold", n_splits=3)
    r2 = compare.paired_split_scores(a, b, X, y, design="kfold", n_splits=3, scoring="r2")
    np.testing.assert_array_equal(default, r2)
    assert np.all(by_name[0] < 0) and not np.allclose(default, by_name)


def _counting_scorer(sizes):
    """R² of the fitted estimator, recording the size of every test set it is called on."""
    from sklearn.metrics import r2_score

    def scorer(estimator, X, y):
        sizes.append(len(y))
        return r2_score(y, estimator.predict(X))
    return scorer


def test_driver_defaults():
    # the documented defaults, each against the explicit call: 10 unshuffled folds, 30 rounds of
    # test_size 0.3 (train_test_split's ceil(0.3 n) test cases), corrected resampled t by default
    from sklearn.linear_model import LinearRegression, Ridge

    from predstab import compare

    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, 3))
    y = X @ np.array([1.0, -0.5, 0.2]) + rng.normal(size=40)
    a, b = LinearRegression(), Ridge(alpha=5.0)
    sizes = []
    sa, sb = compare.paired_split_scores(a, b, X, y, design="kfold", scoring=_counting_scorer(sizes))
    assert sizes == [4] * 20 and sa.shape == (10,)  # 10 folds of 4, both estimators
    np.testing.assert_array_equal(sa, compare.paired_split_scores(a, b, X, y, design="kfold", n_splits=10,
                                                                  shuffle=False, scoring="r2")[0])
    sizes.clear()
    sa, sb = compare.paired_split_scores(a, b, X, y, design="resampled", random_state=4,
                                         scoring=_counting_scorer(sizes))
    assert sizes == [12] * 60  # 30 rounds, ceil(0.3 x 40) = 12 test cases
    kfold = compare.paired_ttest_kfold_cv(a, b, X, y)
    explicit = compare.ttest(*compare.paired_split_scores(a, b, X, y, design="kfold", n_splits=10),
                             paired=True)
    assert (kfold.statistic, kfold.pvalue) == (explicit.statistic, explicit.pvalue)
    resampled = compare.paired_ttest_resampled(a, b, X, y, random_state=4)
    expected = compare.corrected_resampled_ttest(sa, sb, n_train=28, n_test=12)
    assert (resampled.statistic, resampled.pvalue) == (expected.statistic, expected.pvalue)


@pytest.mark.parametrize(("options", "match"), [
    ({"design": "kfold", "n_splits": 1}, "n_splits"), ({"design": "resampled", "n_rounds": 1}, "n_rounds"),
    ({"design": "resampled", "test_size": 1.0}, "test_size"), ({"design": "resampled", "test_size": 0.0},
                                                                 "test_size"),
    ({"design": "5x2", "random_state": -1}, "random_state"), ({"design": "5x2", "random_state": 2**32},
                                                                "random_state"),
])
def test_split_scores_bad_options(options, match):
    from sklearn.linear_model import LinearRegression

    from predstab import compare

    X, y = np.arange(20.0).reshape(10, 2), np.arange(10.0)
    with pytest.raises(ValueError, match=match):
        compare.paired_split_scores(LinearRegression(), LinearRegression(), X, y, **options)


@pytest.mark.parametrize("seed", [2**32 - 1, 24646])
def test_split_scores_seeds_as_mlxtend_draws_them(seed):
    # random_state up to 2**32 - 1 (numpy's RandomState range); 24646's second draw of
    # randint(0, 32768) would be 32767, which randint(0, 32767) rejects and draws again
    from sklearn.linear_model import LinearRegression
    from sklearn.model_selection import train_test_split

    from predstab import compare

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(12, 2)), rng.normal(size=12)
    sa, _ = compare.paired_split_scores(LinearRegression(), LinearRegression(), X, y, design="5x2",
                                        random_state=seed)
    # mlxtend's halvings written out: one RandomState(seed).randint(0, 32767) per halving, test_size 0.5
    draws = np.random.RandomState(seed)
    expected = []
    for _ in range(5):
        split = int(draws.randint(low=0, high=32767))
        X1, X2, y1, y2 = train_test_split(X, y, test_size=0.5, random_state=split)
        expected.append([LinearRegression().fit(X1, y1).score(X2, y2),
                         LinearRegression().fit(X2, y2).score(X1, y1)])
    np.testing.assert_allclose(sa, expected, rtol=1e-12)


def test_kfold_folds_keep_a_frame():
    # the folds of a DataFrame are DataFrames: a pipeline that selects columns by name works
    import pandas as pd
    from sklearn.compose import ColumnTransformer
    from sklearn.linear_model import LinearRegression
    from sklearn.pipeline import make_pipeline

    from predstab import compare

    rng = np.random.default_rng(1)
    X = pd.DataFrame(rng.normal(size=(30, 3)), columns=["a", "b", "c"])
    y = X["a"] * 2.0 + rng.normal(size=30)
    by_name = make_pipeline(ColumnTransformer([("keep", "passthrough", ["a"])]), LinearRegression())
    sa, sb = compare.paired_split_scores(by_name, LinearRegression(), X, y, design="kfold", n_splits=3)
    # A is the regression on column a alone, each fold's R^2 written out
    from sklearn.model_selection import KFold

    expected = [LinearRegression().fit(X[["a"]].iloc[train], y.iloc[train]).score(X[["a"]].iloc[test],
                                                                                     y.iloc[test])
                for train, test in KFold(3).split(X)]
    np.testing.assert_allclose(sa, expected, rtol=1e-12)
