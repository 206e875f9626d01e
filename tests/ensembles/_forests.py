"""Independent forests for the tuning tests: refits with the seeds tune_num_learners draws, and
out-of-bag predictions rebuilt from scikit-learn's bootstrap indices (``estimators_samples_``)."""

from __future__ import annotations

import numpy as np
from sklearn.base import clone

from predstab._core._utils import check_rng, seeds_from


def refit_forests(estimator, grid, n_repeats, X, y, seed=0):
    """The forests of method="refit" and their seeds (one row of ``n_repeats`` per grid value)."""
    seeds = seeds_from(check_rng(seed), len(grid) * n_repeats).reshape(len(grid), n_repeats)
    forests = {n: [clone(estimator).set_params(n_estimators=n, random_state=int(s)).fit(X, y)
                   for s in seeds[gi]] for gi, n in enumerate(grid)}
    return forests, seeds


def oob_mean(trees, X):
    """Out-of-bag prediction of every training row: the mean over the ``(tree, sample)`` pairs
    whose bootstrap sample missed it; NaN where every tree saw it."""
    total, count = np.zeros(len(X)), np.zeros(len(X))
    for tree, sample in trees:
        oob = np.ones(len(X), dtype=bool)
        oob[sample] = False
        total[oob] += tree.predict(X[oob])
        count[oob] += 1
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / np.maximum(count, 1), np.nan)


def oob_of(forest, X):
    return oob_mean(zip(forest.estimators_, forest.estimators_samples_, strict=True), X)
