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
