"""Fit two estimators on the same splits and test their paired scores (mlxtend's drivers).

Each driver only produces the scores (one engine, :func:`paired_split_scores`) and hands them to
the test predstab already has: :func:`ttest` (paired), :func:`corrected_resampled_ttest`,
:func:`cv5x2_ttest`.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import clone, is_classifier
from sklearn.metrics import get_scorer
from sklearn.model_selection import KFold, train_test_split

from .._core._validation import HasMethods, Interval, Options, validate_params
from ._cv import corrected_resampled_ttest, cv5x2_ttest, ttest

__all__ = ["paired_split_scores", "paired_ttest_kfold_cv", "paired_ttest_resampled", "paired_ttest_5x2cv"]

_DESIGNS = ("kfold", "resampled", "5x2")
_SEED = [Interval(Integral, 0, 2**32 - 1), None]
_ESTIMATOR = HasMethods(["fit", "get_params"])


def _rows(data, index):
    return data.iloc[index] if hasattr(data, "iloc") else np.asarray(data)[index]


def _split_seeds(random_state, count):
    """The seeds of ``count`` random splits, drawn as mlxtend draws them: one
    ``RandomState(random_state).randint(0, 32767)`` per split."""
    rng = np.random.RandomState(random_state)
    return [int(rng.randint(low=0, high=32767)) for _ in range(count)]


@validate_params({"estimator_a": [_ESTIMATOR], "estimator_b": [_ESTIMATOR], "X": ["array-like"],
                  "y": ["array-like"], "design": [Options(_DESIGNS)], "scoring": [str, "callable", None],
                  "n_splits": [Interval(Integral, 2, None)], "n_rounds": [Interval(Integral, 2, None)],
                  "test_size": [Interval(Real, 0, 1, closed="neither")], "shuffle": ["boolean"],
                  "random_state": _SEED})
def paired_split_scores(estimator_a, estimator_b, X, y, /, *, design, scoring=None, n_splits=10, n_rounds=30,
                        test_size=0.3, shuffle=False, random_state=None):
    """Scores of two estimators fitted and scored on the same splits.

    Parameters
    ----------
    estimator_a, estimator_b : scikit-learn estimators
        A (the baseline) and B; each split fits a clone of each.
    X : array-like or DataFrame of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    design : {"kfold", "resampled", "5x2"}
        ``"kfold"``: the ``n_splits`` folds of ``KFold(n_splits, shuffle=shuffle,
        random_state=random_state if shuffle else None)``; ``"resampled"``: ``n_rounds``
        random splits with ``test_size``; ``"5x2"``: five random halvings, each half used once
        for training and once for testing (Dietterich 1998).
    scoring : str or callable, optional
        A scikit-learn scorer name or ``scorer(estimator, X, y)``; default accuracy for
        classifiers and R² for regressors (as mlxtend).
    n_splits, n_rounds, test_size, shuffle : optional
        See ``design``.
    random_state : int, optional
        Seeds the splits. An int gives the splits of mlxtend's ``random_seed``: split i of the
        random designs uses ``train_test_split(random_state=r_i)``, with ``r_i`` the i-th
        ``np.random.RandomState(random_state).randint(0, 32767)``.

    Returns
    -------
    a, b : ndarray
        Shape (n_splits,), (n_rounds,) or (5, 2) (repetition x the half tested).
    """
    if scoring is None:
        scoring = "accuracy" if is_classifier(estimator_a) else "r2"
    scorer = get_scorer(scoring) if isinstance(scoring, str) else scoring

    def scores(train_X, train_y, test_X, test_y):
        return tuple(float(scorer(clone(estimator).fit(train_X, train_y), test_X, test_y))
                     for estimator in (estimator_a, estimator_b))

    if design == "kfold":
        folds = KFold(n_splits=n_splits, shuffle=shuffle, random_state=random_state if shuffle else None)
        pairs = [scores(_rows(X, train), _rows(y, train), _rows(X, test), _rows(y, test))
                 for train, test in folds.split(X)]
    elif design == "resampled":
        pairs = []
        for seed in _split_seeds(random_state, n_rounds):
            train_X, test_X, train_y, test_y = train_test_split(X, y, test_size=test_size, random_state=seed)
            pairs.append(scores(train_X, train_y, test_X, test_y))
    elif design == "5x2":
        pairs = []
        for seed in _split_seeds(random_state, 5):
            first_X, second_X, first_y, second_y = train_test_split(X, y, test_size=0.5, random_state=seed)
            pairs += [scores(first_X, first_y, second_X, second_y),
                      scores(second_X, second_y, first_X, first_y)]
    else:
        raise ValueError(f"`design` must be one of {', '.join(map(repr, _DESIGNS))}; got {design!r}.")
    a, b = np.array(pairs).T
    return (a.reshape(5, 2), b.reshape(5, 2)) if design == "5x2" else (a, b)


_COMMON = {"estimator_a": [_ESTIMATOR], "estimator_b": [_ESTIMATOR], "X": ["array-like"],
           "y": ["array-like"], "scoring": [str, "callable", None], "random_state": _SEED}


@validate_params({**_COMMON, "cv": [Interval(Integral, 2, None)], "shuffle": ["boolean"]})
def paired_ttest_kfold_cv(estimator_a, estimator_b, X, y, /, *, scoring=None, cv=10, shuffle=False,
                          random_state=None):
    """Paired t-test of B minus A over the folds of one k-fold cross-validation.

    The scores of :func:`paired_split_scores` (``design="kfold"``) go to
    ``ttest(a, b, paired=True)``. Its t is mlxtend's ``paired_ttest_kfold_cv`` with the sign of
    B minus A (mlxtend reports A minus B), and the same p-value for the same folds. The folds
    share training data, so the test is liberal (Dietterich 1998); prefer
    :func:`paired_ttest_5x2cv` or repeated CV with :func:`corrected_resampled_ttest`.

    Returns
    -------
    TestResult
        As :func:`ttest`.
    """
    a, b = paired_split_scores(estimator_a, estimator_b, X, y, design="kfold", scoring=scoring, n_splits=cv,
                               shuffle=shuffle, random_state=random_state)
    return ttest(a, b, paired=True)


@validate_params({**_COMMON, "n_rounds": [Interval(Integral, 2, None)],
                  "test_size": [Interval(Real, 0, 1, closed="neither")], "corrected": ["boolean"]})
def paired_ttest_resampled(estimator_a, estimator_b, X, y, /, *, scoring=None, n_rounds=30, test_size=0.3,
                           random_state=None, corrected=True):
    """Resampled paired t-test of B minus A over ``n_rounds`` random train/test splits.

    With ``corrected=True`` (default) the scores go to :func:`corrected_resampled_ttest`
    (Nadeau and Bengio's variance correction for overlapping training sets, with the split's
    ``n_train`` and ``n_test``); ``corrected=False`` gives the plain paired t-test, mlxtend's
    ``paired_ttest_resampled`` (same splits for the same ``random_state``; t with the sign of
    B minus A), whose type I error grows with the number of rounds (Dietterich 1998).

    Returns
    -------
    TestResult
    """
    a, b = paired_split_scores(estimator_a, estimator_b, X, y, design="resampled", scoring=scoring,
                               n_rounds=n_rounds, test_size=test_size, random_state=random_state)
    if not corrected:
        return ttest(a, b, paired=True)
    n = len(y)
    n_test = int(np.ceil(test_size * n))  # train_test_split's sizes
    return corrected_resampled_ttest(a, b, n_train=n - n_test, n_test=n_test)


@validate_params(_COMMON)
def paired_ttest_5x2cv(estimator_a, estimator_b, X, y, /, *, scoring=None, random_state=None):
    """Dietterich's 5x2cv paired t-test of B minus A, fitting both estimators.

    The (5, 2) scores of :func:`paired_split_scores` (``design="5x2"``) go to
    :func:`cv5x2_ttest`: mlxtend's ``paired_ttest_5x2cv`` for the same ``random_state``, with
    the sign of B minus A.

    Returns
    -------
    TestResult
    """
    a, b = paired_split_scores(estimator_a, estimator_b, X, y, design="5x2", scoring=scoring,
                               random_state=random_state)
    return cv5x2_ttest(a, b)
