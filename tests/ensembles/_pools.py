"""Independent computations shared by the tree-pool tests (tests/ensembles/test_pool*.py,
test_closed_form_functions.py): seeds of the documented generator, per-tree predictions from
``estimators_``, out-of-bag rows from ``estimators_samples_``, ICC(1) of a pool by hand, and the
bootstrap band by hand (percentile interval of the resampled errors, scaled to the jackknife).
"""


import numpy as np
from sklearn.datasets import make_classification, make_regression

# tiny data: 30 training rows, 10 test rows (pools of 10-12 trees)
X, Y = make_regression(40, 4, noise=10, random_state=0)
XC, YC = make_classification(40, 4, n_informative=2, n_redundant=0, random_state=3)
LABELS = np.where(YC == 1, "yes", "no")


def seeds(random_state, k):
    rng = np.random.default_rng(random_state)
    return [int(rng.integers(0, 2**31 - 1)) for _ in range(k)]


def per_tree(forest, X_):
    """Objects x trees (x classes) from each fitted tree of an sklearn ensemble."""
    features = getattr(forest, "estimators_features_", None) or [slice(None)] * len(forest.estimators_)
    pairs = list(zip(forest.estimators_, features, strict=True))
    if hasattr(forest, "classes_"):
        return np.stack([t.predict_proba(X_[:, f]) for t, f in pairs], axis=1)
    return np.column_stack([t.predict(X_[:, f]) for t, f in pairs])


def one_hot_two(labels):
    return np.eye(2)[labels]


def oob_by_hand(forest, n_rows):
    inbag = np.zeros((len(forest.estimators_), n_rows), dtype=bool)
    for j, rows in enumerate(forest.estimators_samples_):
        inbag[j, rows] = True
    return ~inbag.T


def icc_by_hand(t, n):
    var = t.var(axis=1, ddof=1)
    w = var.mean()
    b = max(t.mean(axis=1).var(ddof=1) - w / t.shape[1], 0.0)
    return b / (b + w / np.asarray(n, dtype=float)), w


def percentile_band(curve, errors, level):
    """The bands' interval by hand: order statistics of each column's finite errors at 1-based
    positions (B + 1) p (linear between neighbours, clipped to the sample), added to the curve,
    widened to contain it, capped at 1."""
    low, high = [], []
    for c, col in zip(curve, np.asarray(errors, dtype=float).T, strict=True):
        col = np.sort(col[np.isfinite(col)])
        if not col.size or not np.isfinite(c):
            low.append(np.nan), high.append(np.nan)
            continue

        def at(p, col=col):
            h = min(max((len(col) + 1) * p, 1.0), float(len(col))) - 1
            lo = int(np.floor(h))
            return col[lo] + (h - lo) * (col[min(lo + 1, len(col) - 1)] - col[lo])

        alpha = (1 - level) / 2
        low.append(min(min(c + at(alpha), 1.0), c))
        high.append(max(min(c + at(1 - alpha), 1.0), c))
    return np.array(low), np.array(high)


def jackknife_scaled(errors, t, of):
    """Metric test-object errors scaled up to the leave-one-learner-out jackknife SE of ``of``."""
    size = t.shape[1]
    jack = np.stack([of(np.delete(t, j, axis=1)) for j in range(size)])
    se = np.sqrt((size - 1) / size * np.sum((jack - jack.mean(axis=0)) ** 2, axis=0))
    return np.asarray(errors) * np.maximum(se / np.std(errors, axis=0, ddof=1), 1.0)
