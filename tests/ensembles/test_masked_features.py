"""Masked feature matrices (issue 32, item 5, found by the walk): a masked cell of ``X``,
``X_test`` or ``y`` is a missing value; the functions that fit or predict refuse it by name
instead of fitting on the number under the mask (what ``np.asarray`` keeps)."""

import numpy as np
import pytest
from sklearn.ensemble import RandomForestRegressor
from sklearn.linear_model import LinearRegression

import predstab

RNG = np.random.default_rng(0)
X = RNG.normal(size=(40, 3))
Y = X[:, 0] + RNG.normal(scale=0.3, size=40)


def _masked(values, cell):
    out = np.ma.masked_array(values, mask=np.zeros(np.shape(values), bool))
    out.mask[cell] = True
    return out


def _fit_pool(X_train, y_train, X_test):
    pool = predstab.TreePool(RandomForestRegressor(), n_learners=6, random_state=0)
    return pool.fit(X_train, y_train, X_test)


def _repeated(X_train, X_test):
    return predstab.repeated_predictions(RandomForestRegressor(n_estimators=4), X_train, Y[:30], X_test,
                                         n_repeats=2, random_state=0)


def _tune(X_train, X_test):
    return predstab.tune_num_learners(RandomForestRegressor(), X_train, Y[:30], X_test, grid=[2, 4, 8],
                                      n_repeats=2, random_state=0)


def _members(X_test):
    members = [LinearRegression().fit(X[:30] + s, Y[:30]) for s in range(3)]
    return predstab.TreePool.from_members(members, X_test)


CASES = {
    "pool X": (lambda: _fit_pool(_masked(X[:30], (2, 1)), Y[:30], X[30:]), "X"),
    "pool X_test": (lambda: _fit_pool(X[:30], Y[:30], _masked(X[30:], (0, 0))), "X_test"),
    "pool y": (lambda: _fit_pool(X[:30], _masked(Y[:30], 4), X[30:]), "y"),
    "repeated X": (lambda: _repeated(_masked(X[:30], (1, 2)), X[30:]), "X"),
    "repeated X_test": (lambda: _repeated(X[:30], _masked(X[30:], (3, 0))), "X_test"),
    "tune X": (lambda: _tune(_masked(X[:30], (5, 0)), X[30:]), "X"),
    "tune X_test": (lambda: _tune(X[:30], _masked(X[30:], (1, 1))), "X_test"),
    "members X_test": (lambda: _members(_masked(X[30:], (2, 2))), "X_test"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_masked_cell_is_refused_by_name(case):
    call, name = CASES[case]
    message = rf"^`{name}` has 1 masked value\(s\): a masked value is a missing value"
    with pytest.raises(ValueError, match=message):
        call()


def test_a_mask_without_masked_cells_is_its_data():
    plain = _fit_pool(X[:30], Y[:30], X[30:])
    masked = _fit_pool(np.ma.masked_array(X[:30]), np.ma.masked_array(Y[:30]), np.ma.masked_array(X[30:]))
    np.testing.assert_array_equal(masked.test_predictions_, plain.test_predictions_)
    np.testing.assert_array_equal(masked.train_predictions_, plain.train_predictions_)
