"""Pins found by the mutation run of ensembles/_forest (issue 33; sample 60, seed 7).

Each test pins a value, a plan or a boundary that a surviving mutant changed without any test
of test_forest.py / test_pool.py failing.
"""

import concurrent.futures
import sys

import numpy as np
import pytest
from sklearn.ensemble import BaggingRegressor, RandomForestClassifier, RandomForestRegressor

from predstab.ensembles._forest import (
    aggregate,
    fresh_array,
    learner_predictions,
    tree_permutation_importances,
)
from tests._memory import traced_peak
from tests.ensembles._pools import XC, YC, X, Y, per_tree


def test_float32_predictions_are_averaged_in_float64():
    # aggregate reads per-tree predictions in float64 (a float32 cache gives the same mean as
    # its float64 copy): the sum of 7 float32 values in float32 rounds differently
    per = np.random.default_rng(0).random((7, 50)).astype(np.float32)
    expected = per.astype(np.float64).sum(axis=0) / 7
    got = aggregate(per)
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got, expected)
    assert not np.array_equal(per.sum(axis=0, dtype=np.float32).astype(np.float64) / 7, expected)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the mapping of its own is Linux only")
def test_fresh_array_maps_from_exactly_small_pages_from_bytes():
    nbytes = 300 * 7 * 2 * 4  # (300, 7, 2) float32
    at = fresh_array((300, 7, 2), np.float32, small_pages_from=nbytes)
    below = fresh_array((300, 7, 2), np.float32, small_pages_from=nbytes + 1)
    assert at.base is not None  # its own mapping (np.frombuffer of an mmap)
    assert below.base is None  # np.empty


class _Recording(concurrent.futures.ThreadPoolExecutor):
    """A ThreadPoolExecutor that records the chunks of trees handed to its threads."""

    chunks: list = []

    def map(self, fn, *iterables, **kwargs):
        items = list(iterables[0])
        _Recording.chunks.append([len(c) for c in items])
        return super().map(fn, items, **kwargs)


@pytest.mark.parametrize(("n_jobs", "chunk_rows", "expected"), [
    (1, 2**20, [10, 10, 10, 7]),  # at least 4 chunks per thread: ceil(37 / 4) = 10 trees
    (3, 2**20, [4] * 9 + [1]),  # ceil(37 / 12) = 4
    (1, 3, [3] * 12 + [1]),  # the memory budget: 3 trees' rows
])
def test_the_cache_is_filled_in_the_documented_chunks_of_trees(monkeypatch, n_jobs, chunk_rows, expected):
    # learner_predictions' plan: trees per chunk within chunk_bytes, at most 64, and at least 4
    # chunks per thread (the chunks' sizes do not change any value: test_pool.py)
    forest = RandomForestRegressor(n_estimators=37, max_features=2, random_state=0).fit(X, Y)
    rows = np.random.default_rng(1).normal(size=(301, X.shape[1]))
    monkeypatch.setattr(concurrent.futures, "ThreadPoolExecutor", _Recording)
    _Recording.chunks = []
    got = learner_predictions(forest, rows, n_jobs=n_jobs, chunk_bytes=chunk_rows * 301 * 8)
    assert _Recording.chunks == [expected]
    np.testing.assert_array_equal(got, per_tree(forest, rows.astype(np.float32)))


def test_a_bagging_ensembles_cache_reports_its_progress_once():
    # Bagging* with feature subsets: the per-learner predictions of tree_predictions, then
    # progress(done, total) once, at the end
    bag = BaggingRegressor(n_estimators=5, max_features=0.5, random_state=0).fit(X, Y)
    ticks = []
    got = learner_predictions(bag, X[:9], progress=lambda done, total: ticks.append((done, total)))
    assert ticks == [(5, 5)]
    np.testing.assert_array_equal(got, per_tree(bag, X[:9]))


def _importances_by_hand(forest, X_, target, rng):
    """ranger's permutation importance per tree, from scikit-learn's own bootstrap rows: a tree's
    error on its out-of-bag rows (misclassification rate of the classes' positions, or mean squared
    error) after minus before permuting each variable it splits on, in order; trees with fewer
    than 2 out-of-bag rows are skipped (0)."""
    X_ = X_.astype(np.float32)
    out = np.zeros((X_.shape[1], len(forest.estimators_)))
    for t, (tree, drawn) in enumerate(zip(forest.estimators_, forest.estimators_samples_, strict=True)):
        rows = np.setdiff1d(np.arange(len(target)), drawn)
        if rows.size < 2:
            continue

        def error(data, tree=tree, rows=rows):
            pred = tree.predict(data)
            return np.mean(pred != target[rows]) if hasattr(forest, "classes_") else np.mean(
                (pred - target[rows]) ** 2)

        base = error(X_[rows])
        for j in sorted(set(tree.tree_.feature[tree.tree_.feature >= 0].tolist())):
            permuted = X_[rows].copy()
            permuted[:, j] = permuted[rng.permutation(rows.size), j]
            out[j, t] = error(permuted) - base
    return out


def test_permutation_importances_of_a_classifier_with_string_labels():
    # the labels are read as positions in classes_ (the trees predict positions)
    labels = np.array(["no", "yes"])[YC]
    forest = RandomForestClassifier(n_estimators=15, max_features=2, random_state=0).fit(XC, labels)
    got = tree_permutation_importances(forest, XC, labels, np.random.default_rng(4))
    expected = _importances_by_hand(forest, XC, YC.astype(float), np.random.default_rng(4))
    np.testing.assert_array_equal(got, expected)
    assert (got > 0).any()


def test_a_tree_without_two_out_of_bag_rows_is_skipped_not_the_end():
    # 6 training rows: about a quarter of the trees leave fewer than 2 out of bag; the trees after
    # the first such tree still get their importances
    rng = np.random.default_rng(5)
    X6 = rng.normal(size=(6, 3))
    y6 = X6[:, 0] * 3 + rng.normal(scale=0.1, size=6)
    forest = RandomForestRegressor(n_estimators=30, max_features=2, random_state=2).fit(X6, y6)
    few = [t for t, drawn in enumerate(forest.estimators_samples_) if 6 - len(np.unique(drawn)) < 2]
    got = tree_permutation_importances(forest, X6, y6, np.random.default_rng(6))
    expected = _importances_by_hand(forest, X6, y6, np.random.default_rng(6))
    np.testing.assert_array_equal(got, expected)
    assert few and few[0] < 29 and (expected[:, few[0] + 1:] != 0).any()


def test_a_bagging_ensembles_float64_cache_is_its_predictions_not_a_copy():
    # the Bagging* cache in float64 is tree_predictions' array seen object-major (no second copy of
    # learners x rows): peak traced memory 1.27 x the result (with a copy: over 2 x)
    bag = BaggingRegressor(n_estimators=20, max_features=0.5, random_state=0).fit(X, Y)
    rows = np.random.default_rng(3).normal(size=(2000, X.shape[1]))
    got, peak = traced_peak(lambda: learner_predictions(bag, rows))
    assert peak < 1.5 * got.nbytes
    np.testing.assert_array_equal(got, per_tree(bag, rows))
