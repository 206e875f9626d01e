"""Shared fixtures of the ensembles tests (refits, tree pools, tuning)."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import make_classification, make_regression
from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor

from predstab import PredstabWarning, TreePool, tune_num_learners
from tests.ensembles._pools import LABELS, XC, X, Y
from tests.ensembles._tuning import RARE_EST, RARE_GRID, RARE_X, RARE_Y


@pytest.fixture(scope="session")
def rare():
    """The pool tuning of the rare class and its pool (fitted once for every test that reads them)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PredstabWarning)
        res = tune_num_learners(RARE_EST, RARE_X[:400], RARE_Y[:400], RARE_X[400:], grid=RARE_GRID,
                                measures=("fleiss", "phi", "psi"), method="pool", voting="hard",
                                pool_size=500, n_resamples=0, random_state=0)
    pool = TreePool(RARE_EST, n_learners=500, voting="hard", random_state=0).fit(RARE_X[:400], RARE_Y[:400],
                                                                                 RARE_X[400:])
    return res, pool


# tree pools: one of each per test module (some tests swap a pool's cache and restore it)
@pytest.fixture(scope="module")
def reg():
    X, y = make_regression(90, 6, noise=15, random_state=0)
    pool = TreePool(RandomForestRegressor(max_features=2), n_learners=120, random_state=0)
    return pool.fit(X[:60], y[:60], X[60:]), X, y


@pytest.fixture(scope="module")
def clf():
    X, y = make_classification(120, 6, n_informative=3, random_state=1)
    labels = np.where(y == 1, "b", "a")
    pool = TreePool(RandomForestClassifier(max_features=2), n_learners=90, voting="hard", random_state=0)
    return pool.fit(X[:80], labels[:80], X[80:]), X, labels


@pytest.fixture(scope="module")
def tiny_reg():
    return TreePool(RandomForestRegressor(max_features=2), n_learners=12, random_state=5).fit(X[:30], Y[:30],
                                                                                              X[30:])


@pytest.fixture(scope="module")
def tiny_clf():
    pool = TreePool(RandomForestClassifier(max_features=2, max_depth=3), n_learners=10, voting="hard",
                    random_state=2)
    return pool.fit(XC[:30], LABELS[:30], XC[30:])
