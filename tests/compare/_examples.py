"""The example data of the compare tests, and one valid call of every public function.

``CALLS`` is the one table of valid calls of ``predstab.compare``: the conventions tests here and
the package-wide registry (tests/_registry.py) generate their bad values and example results from
it. The data are the seeds' figures of issue #7 (``A``, ``B``, ``RANKS``) and small seeded draws.
"""

import numpy as np
from sklearn.dummy import DummyRegressor
from sklearn.linear_model import Ridge

# ten seeds of A and of B; one run of B exploded to 420 (issue #7)
A = [40, 42, 44, 45, 46, 47, 48, 49, 50, 51]
B = [5, 8, 10, 12, 30, 33, 35, 38, 40, 420]
# 12 data sets x 3 methods with average ranks 1.8333, 1.5833, 2.5833 (issue #7)
RANKS = np.array([[1, 2, 3]] * 3 + [[1, 3, 2]] + [[2, 1, 3]] * 5 + [[3, 1, 2]] * 2 + [[2, 3, 1]])
# five paired scores, B a little higher
SA = [0.80, 0.82, 0.79, 0.81, 0.84]
SB = [0.83, 0.85, 0.80, 0.82, 0.88]
RNG = np.random.default_rng(0)
Y = RNG.integers(0, 2, 60)
PA = np.where(RNG.random(60) < 0.7, Y, 1 - Y)
PB = np.where(RNG.random(60) < 0.8, Y, 1 - Y)
TABLE = RNG.normal(1.0, 0.3, size=(6, 4))


def accuracy(t, p):
    return float(np.mean(t == p))


def classifier_predictions(n=300, seed=0):
    """Labels and two classifiers' predictions whose errors are correlated."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    a = np.where(rng.random(n) < 0.75, y, 1 - y)
    # B fixes about half of A's errors and breaks a few of its successes: correlated errors
    b = np.where((a != y) & (rng.random(n) < 0.5), y, a)
    b = np.where((a == y) & (rng.random(n) < 0.03), 1 - y, b)
    return y, a, b


# two regressors and a small regression (the drivers that fit estimators)
_X = np.linspace(0, 1, 40).reshape(20, 2)
_Y = _X @ np.array([1.0, -2.0]) + np.sin(np.arange(20.0))
_ESTIMATORS = (DummyRegressor(), Ridge())

# function -> (positional arguments, keyword arguments) of a valid call
CALLS = {
    "mcnemar": (([[146, 4], [14, 36]],), {}),
    "paired_bootstrap": ((Y, PA, PB), {"metric": accuracy, "n_resamples": 20, "random_state": 0}),
    "bootstrap_ci": ((A,), {"n_resamples": 50, "random_state": 0}),
    "mean_permutation_test": ((A, B), {"n_resamples": 50, "random_state": 0}),
    "ttest": ((A, B), {}),
    "wilcoxon": ((A, B), {}),
    "corrected_resampled_ttest": ((A, B), {"n_train": 90, "n_test": 10}),
    "cv5x2_ttest": ((np.arange(10.0).reshape(5, 2), np.arange(10.0).reshape(5, 2) ** 1.1), {}),
    "cv5x2_ftest": ((np.arange(10.0).reshape(5, 2), np.arange(10.0).reshape(5, 2) ** 1.1), {}),
    "friedman_nemenyi": ((4 - RANKS,), {}),
    "bonferroni_dunn": ((4 - RANKS,), {"control": 1}),
    "friedman_posthoc": ((4 - RANKS,), {"method": "quade", "p_adjust": "holm"}),
    "paired_split_scores": ((*_ESTIMATORS, _X, _Y), {"design": "5x2", "random_state": 0}),
    "paired_ttest_kfold_cv": ((*_ESTIMATORS, _X, _Y), {"cv": 3}),
    "paired_ttest_resampled": ((*_ESTIMATORS, _X, _Y), {"n_rounds": 3, "random_state": 0}),
    "paired_ttest_5x2cv": ((*_ESTIMATORS, _X, _Y), {"random_state": 0}),
    "seeds_needed": ((0.5,), {}),
    "power_ttest": ((0.5, 10), {}),
    "power_ttest_n": ((0.5,), {}),
    "detectable_effect": ((10,), {}),
    "win_rate_test": ((55, 100), {}),
    "games_needed": ((0.6,), {}),
    "iqm": ((A,), {}),
    "mean_ci": ((A,), {}),
    "stratified_bootstrap_ci": ((TABLE,), {"n_resamples": 30, "random_state": 0}),
    "expected_max_normal": ((5,), {}),
    "probability_of_improvement": ((TABLE, TABLE[::-1] * 0.9), {"n_resamples": 20, "random_state": 0}),
    "performance_profile": ((TABLE, [0.5, 1.0]), {}),
    "performance_profile_ci": ((TABLE, [0.5, 1.0, 1.5]), {"n_resamples": 30, "random_state": 0}),
    "aggregate_mean": ((TABLE,), {}),
    "aggregate_median": ((TABLE,), {}),
    "optimality_gap": ((TABLE,), {"gamma": 1.2}),
    "variance_components": ((TABLE,), {}),
}
