"""Per-tree machinery for fitted bagging ensembles (private).

Random forests, extra-trees with ``bootstrap=True`` and bagging ensembles are
averages of base learners that each saw a bootstrap sample of the training
objects. This module exposes what the stability measures need from them,
through scikit-learn's public attributes only (``estimators_``,
``estimators_samples_``, ``estimators_features_``, ``classes_``):

- :func:`tree_predictions` -- every base learner's prediction (regression) or
  class probabilities (classification) on new data;
- :func:`inbag_mask` -- which training objects each learner saw (works whether or
  not the ensemble was fitted with ``oob_score=True``);
- :func:`aggregate` -- the ensemble's prediction from any subset of its learners,
  per object if needed, by scikit-learn's soft voting or ranger's majority vote;
- :func:`oob_predict` -- the out-of-bag prediction of each training object.

Arrays are learner-major: ``(n_trees, n_samples)`` for regression and
``(n_trees, n_samples, n_classes)`` for classification, so that a subset of
trees is a slice along the first axis.
"""

from __future__ import annotations

import numpy as np

from .._core._exceptions import PredstabDataWarning, warn_outside

__all__ = ["is_bagging_ensemble", "tree_predictions", "inbag_mask", "aggregate", "oob_predict",
           "tree_permutation_importances"]

_VOTINGS = ("soft", "hard")
# bytes of one tile of rows of a chunk of trees copied into the object-major cache (in L2)
_TILE_BYTES = 128 * 2**10


def _ensemble_kind(est):
    """Return ``"forest"``, ``"bagging"`` or None for a (fitted or unfitted) estimator."""
    from sklearn.ensemble import (
        BaggingClassifier,
        BaggingRegressor,
        ExtraTreesClassifier,
        ExtraTreesRegressor,
        RandomForestClassifier,
        RandomForestRegressor,
    )

    if isinstance(est, (RandomForestClassifier, RandomForestRegressor, ExtraTreesClassifier,
                        ExtraTreesRegressor)):
        return "forest"
    if isinstance(est, (BaggingClassifier, BaggingRegressor)):
        return "bagging"
    return None


def final_estimator(estimator):
    """The estimator at the end of a (nested) Pipeline -- the ensemble whose trees are read --
    else ``estimator`` itself."""
    from sklearn.pipeline import Pipeline

    while isinstance(estimator, Pipeline):
        estimator = estimator.steps[-1][1]
    return estimator


def through_pipeline(fitted, X):
    """``(final estimator, X transformed)``: every level of a fitted (nested) Pipeline applies its
    preprocessing to ``X``, outermost first; ``(fitted, X)`` for anything else."""
    from sklearn.pipeline import Pipeline

    while isinstance(fitted, Pipeline):
        if len(fitted.steps) > 1:
            X = fitted[:-1].transform(X)
        fitted = fitted.steps[-1][1]
    return fitted, X


def is_bagging_ensemble(est) -> bool:
    """Whether ``est`` is a bagging ensemble with out-of-bag objects.

    True for ``RandomForest*`` and ``ExtraTrees*`` with ``bootstrap=True`` and for
    ``Bagging*`` that resample objects (``bootstrap=True``, or ``max_samples``
    below the full training set). Works on fitted and unfitted estimators.

    Examples
    --------
    >>> from sklearn.ensemble import ExtraTreesRegressor, RandomForestClassifier
    >>> is_bagging_ensemble(RandomForestClassifier())
    True
    >>> is_bagging_ensemble(ExtraTreesRegressor())  # bootstrap=False by default
    False
    """
    kind = _ensemble_kind(est)
    if kind == "forest":
        return bool(est.bootstrap)
    if kind == "bagging":
        max_samples = est.max_samples
        subsamples = max_samples is not None and not (
            isinstance(max_samples, float) and max_samples == 1.0
        )
        return bool(est.bootstrap) or subsamples
    return False


def _check_fitted_ensemble(forest):
    from sklearn.utils.validation import check_is_fitted

    if _ensemble_kind(forest) is None:
        raise TypeError(
            "`forest` must be a RandomForest*, ExtraTrees* or Bagging* estimator; "
            f"got {type(forest).__name__}."
        )
    check_is_fitted(forest)
    if getattr(forest, "n_outputs_", 1) != 1 or np.ndim(getattr(forest, "classes_", [])) > 1:
        raise ValueError("`forest` must have a single output; multi-output ensembles are not supported.")


def _is_classifier(forest) -> bool:
    from sklearn.base import is_classifier

    return is_classifier(forest)


def _learners(forest):
    """Yield ``(estimator, feature_indices_or_None)`` for each base learner."""
    features = getattr(forest, "estimators_features_", None)
    if features is None:
        for est in forest.estimators_:
            yield est, None
    else:
        yield from zip(forest.estimators_, features, strict=True)


def tree_predictions(forest, X) -> np.ndarray:
    """Every base learner's prediction on ``X``.

    Parameters
    ----------
    forest : fitted RandomForest*, ExtraTrees* or Bagging* estimator
    X : array-like of shape (n_samples, n_features)

    Returns
    -------
    ndarray
        Regressors: shape ``(n_trees, n_samples)`` of floats. Classifiers: shape
        ``(n_trees, n_samples, n_classes)`` of class probabilities in the order of
        ``forest.classes_``. A base learner without ``predict_proba`` (possible in
        ``Bagging*``) contributes a one-hot vote, as scikit-learn's bagging does;
        a learner that saw only some classes gets probability 0 for the others.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.ensemble import RandomForestRegressor
    >>> X = np.arange(20.0).reshape(10, 2); y = np.arange(10.0)
    >>> rf = RandomForestRegressor(n_estimators=3, random_state=0).fit(X, y)
    >>> tree_predictions(rf, X).shape
    (3, 10)
    """
    _check_fitted_ensemble(forest)
    from sklearn.utils.validation import check_array

    # Forests predict on float32 (their split thresholds are float32); converting
    # once reproduces forest.predict without a copy per tree.
    dtype = np.float32 if _ensemble_kind(forest) == "forest" else None
    X = check_array(X, dtype=dtype, accept_sparse=["csr", "csc"], ensure_all_finite=False)
    n_samples = X.shape[0]

    if not _is_classifier(forest):
        out = np.empty((len(forest.estimators_), n_samples), dtype=np.float64)
        for t, (est, feats) in enumerate(_learners(forest)):
            Xt = X if feats is None else X[:, feats]
            out[t] = np.asarray(est.predict(Xt), dtype=np.float64).reshape(n_samples)
        return out

    n_classes = len(forest.classes_)
    out = np.zeros((len(forest.estimators_), n_samples, n_classes), dtype=np.float64)
    rows = np.arange(n_samples)
    for t, (est, feats) in enumerate(_learners(forest)):
        Xt = X if feats is None else X[:, feats]
        # Base learners are fitted on integer-encoded targets (0..n_classes-1).
        est_classes = np.asarray(est.classes_).astype(np.intp)
        if hasattr(est, "predict_proba"):
            proba = est.predict_proba(Xt)
            out[t][:, est_classes] = proba[:, : len(est_classes)]
        else:
            out[t, rows, np.asarray(est.predict(Xt)).astype(np.intp)] = 1.0
    return out


def inbag_mask(forest, n_samples) -> np.ndarray:
    """Which training objects each base learner saw.

    Built from the public ``estimators_samples_``, so it works whether or not the
    ensemble was fitted with ``oob_score=True``.

    Parameters
    ----------
    forest : fitted RandomForest*, ExtraTrees* or Bagging* estimator
    n_samples : int
        Number of training objects the ensemble was fitted on.

    Returns
    -------
    ndarray of bool, shape (n_trees, n_samples)
        True where object ``j`` was drawn at least once for learner ``t``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.ensemble import RandomForestRegressor
    >>> X = np.arange(20.0).reshape(10, 2); y = np.arange(10.0)
    >>> rf = RandomForestRegressor(n_estimators=3, random_state=0).fit(X, y)
    >>> inbag_mask(rf, 10).shape
    (3, 10)
    """
    _check_fitted_ensemble(forest)
    n_fit = getattr(forest, "_n_samples", None)
    if n_fit is not None and int(n_samples) != int(n_fit):
        raise ValueError(
            f"`n_samples` must be the number of training objects the ensemble was fitted on ({n_fit}); "
            f"got {n_samples}."
        )
    samples = _forest_samples(forest)
    if samples is None:
        samples = forest.estimators_samples_
    mask = np.zeros((len(samples), int(n_samples)), dtype=bool)
    for t, idx in enumerate(samples):
        idx = np.asarray(idx)
        if idx.dtype == bool:  # older scikit-learn returned masks
            mask[t] = idx
        else:
            mask[t, idx] = True
    return mask


def _forest_samples(forest):
    """The rows each tree of a bootstrapped scikit-learn forest drew, as its
    ``estimators_samples_`` gives them, or None where that property is not the forest's
    (Bagging*, subclasses that override it, sample weights, no bootstrap): the fallback.

    scikit-learn draws tree ``t``'s rows as ``RandomState(seed_t).randint(0, n, n_bootstrap)``
    and builds a new ``RandomState`` per tree, whose construction first seeds a generator from
    the operating system's entropy (about 0.4 ms a tree: 0.4 s of 1,000 trees, issue 37 item 6);
    reseeding one ``RandomState`` gives the same state and so the same rows.
    """
    from sklearn.ensemble._forest import BaseForest

    cls = type(forest)
    if not (isinstance(forest, BaseForest) and cls.estimators_samples_ is BaseForest.estimators_samples_
            and cls._get_estimators_indices is BaseForest._get_estimators_indices
            and getattr(forest, "bootstrap", False) and getattr(forest, "_sample_weight", None) is None):
        return None
    n_fit, n_boot = getattr(forest, "_n_samples", None), getattr(forest, "_n_samples_bootstrap", None)
    seeds = [getattr(tree, "random_state", None) for tree in forest.estimators_]
    if n_fit is None or n_boot is None or not all(isinstance(s, (int, np.integer)) for s in seeds):
        return None
    draw = np.random.RandomState(0)
    out = []
    for seed in seeds:
        draw.seed(seed)
        out.append(draw.randint(0, n_fit, n_boot))
    return out


def aggregate(per_tree, tree_mask=None, *, voting="soft", classes=None) -> np.ndarray:
    """The ensemble's prediction from a subset of its base learners.

    Parameters
    ----------
    per_tree : ndarray of shape (n_trees, n_samples) or (n_trees, n_samples, n_classes)
        Output of :func:`tree_predictions`: regression predictions (2-D) or class
        probabilities (3-D).
    tree_mask : None, bool array of shape (n_trees,) or (n_trees, n_samples)
        Learners to use: all (None), the same subset for every object (1-D) or a
        subset per object (2-D; e.g. ``~inbag_mask(...)`` for out-of-bag
        predictions). An object with no learner gets a missing value.
    voting : {"soft", "hard"}, default "soft"
        Classification only. ``"soft"``: the class with the largest mean
        probability (scikit-learn's rule). ``"hard"``: the class most learners
        predict, each learner voting for the argmax of its probabilities
        (ranger's majority vote). Ties (in either rule) go to the class that comes
        first in ``classes`` (scikit-learn's ``argmax`` rule; ranger breaks ties at
        random), so the result is deterministic.
    classes : array-like of shape (n_classes,), optional
        Classification only: the labels (``forest.classes_``). When given, labels
        are returned; otherwise class indices.

    Returns
    -------
    ndarray of shape (n_samples,)
        Regression: the mean over the chosen learners, NaN where none.
        Classification with ``classes``: labels, with missing values (NaN for
        float labels, None otherwise, in an object array) where no learner was
        chosen. Without ``classes``: int indices, -1 where no learner was chosen.

    Examples
    --------
    >>> import numpy as np
    >>> p = np.array([[[0.6, 0.4]], [[0.6, 0.4]], [[0.0, 1.0]]])  # 3 trees, 1 object
    >>> aggregate(p, voting="soft", classes=np.array(["a", "b"])).tolist()
    ['b']
    >>> aggregate(p, voting="hard", classes=np.array(["a", "b"])).tolist()
    ['a']
    """
    per_tree = np.asarray(per_tree, dtype=np.float64)
    if per_tree.ndim not in (2, 3):
        raise ValueError(
            "`per_tree` must have shape (n_trees, n_samples) or (n_trees, n_samples, n_classes); "
            f"got shape {per_tree.shape}."
        )
    n_trees, n_samples = per_tree.shape[:2]
    if tree_mask is None:
        weights = None
    else:
        tree_mask = np.asarray(tree_mask)
        if tree_mask.dtype != bool:
            raise TypeError(f"`tree_mask` must be a boolean array; got dtype {tree_mask.dtype}.")
        if tree_mask.shape == (n_trees,):
            per_tree = per_tree[tree_mask]
            weights = None
        elif tree_mask.shape == (n_trees, n_samples):
            weights = tree_mask.astype(np.float64)
        else:
            raise ValueError(
                f"`tree_mask` must have shape ({n_trees},) or ({n_trees}, {n_samples}); "
                f"got shape {tree_mask.shape}."
            )
    counts = (np.full(n_samples, per_tree.shape[0], dtype=np.float64) if weights is None
              else weights.sum(axis=0))
    empty = counts == 0

    if per_tree.ndim == 2:
        if voting not in _VOTINGS:
            raise ValueError(f"`voting` must be one of {_VOTINGS}; got {voting!r}.")
        total = per_tree.sum(axis=0) if weights is None else np.einsum("ts,ts->s", weights, per_tree)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(empty, np.nan, total / np.where(empty, 1.0, counts))

    n_classes = per_tree.shape[2]
    if voting == "soft":
        scores = per_tree.sum(axis=0) if weights is None else np.einsum("ts,tsc->sc", weights, per_tree)
    elif voting == "hard":
        votes = per_tree.argmax(axis=2)  # (n_trees, n_samples)
        w = np.ones(votes.shape) if weights is None else weights
        # bincount on (object, class) offsets: one vectorised pass, no one-hot cube
        flat = (np.arange(votes.shape[1])[None, :] * n_classes + votes).ravel()
        scores = np.bincount(flat, weights=w.ravel(), minlength=n_samples * n_classes)
        scores = scores.reshape(n_samples, n_classes)
    else:
        raise ValueError(f"`voting` must be one of {_VOTINGS}; got {voting!r}.")
    index = scores.argmax(axis=1)
    index[empty] = -1
    if classes is None:
        return index
    classes = np.asarray(classes)
    if classes.shape != (n_classes,):
        raise ValueError(f"`classes` must have shape ({n_classes},); got shape {classes.shape}.")
    labels = classes.take(np.where(empty, 0, index))
    if empty.any():
        if labels.dtype.kind == "f":
            labels[empty] = np.nan
        else:
            labels = labels.astype(object)
            labels[empty] = None
    return labels


def oob_predict(forest, X, *, voting="soft") -> np.ndarray:
    """Out-of-bag prediction of each training object of a fitted bagging ensemble.

    Each object is predicted by the learners that did not see it. Objects that
    every learner saw get a missing value (NaN, or None for non-float labels) and
    a :class:`~predstab.PredstabDataWarning`.

    Parameters
    ----------
    forest : fitted bagging ensemble (see :func:`is_bagging_ensemble`)
    X : array-like of shape (n_samples, n_features)
        The training data the ensemble was fitted on, in the same order.
    voting : {"soft", "hard"}, default "soft"
        Classification rule, see :func:`aggregate`.

    Returns
    -------
    ndarray of shape (n_samples,)
        Floats (regression) or labels from ``forest.classes_`` (classification).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.ensemble import RandomForestRegressor
    >>> rng = np.random.default_rng(0); X = rng.normal(size=(40, 3)); y = X[:, 0]
    >>> rf = RandomForestRegressor(n_estimators=20, random_state=0).fit(X, y)
    >>> bool(np.isfinite(oob_predict(rf, X)).all())
    True
    """
    if not is_bagging_ensemble(forest):
        raise ValueError(
            "`forest` has no out-of-bag objects: use RandomForest*/ExtraTrees* with bootstrap=True "
            f"or Bagging*; got {type(forest).__name__}."
        )
    per_tree = tree_predictions(forest, X)
    oob = ~inbag_mask(forest, per_tree.shape[1])
    n_none = int((~oob.any(axis=0)).sum())
    if n_none:
        warn_outside(
            f"{n_none} of {oob.shape[1]} training objects are in the bag of every learner and have no "
            "out-of-bag prediction (missing); use more learners.", PredstabDataWarning)
    classes = getattr(forest, "classes_", None) if _is_classifier(forest) else None
    return aggregate(per_tree, oob, voting=voting, classes=classes)


def learner_predictions(ensemble, X, *, dtype=np.float64, n_jobs=None, chunk_bytes=32 * 2**20, progress=None):
    """Object-major per-learner predictions: ``(n_rows, n_learners[, n_classes])`` in ``dtype``.

    The pool's cache (:class:`~predstab.TreePool`). Forests: each tree's leaves of all rows
    (``tree_.apply``, no input validation per tree) and its leaf values -- means for regression,
    class fractions for classification, as ``predict`` uses them -- taken in ``dtype``, in
    ``n_jobs`` threads over chunks of trees (the tree code releases the GIL). A thread fills its
    chunk learner-major (one tree's values of every row in a row: the tree stays in the cache
    while it reads all rows, as scikit-learn's own ``predict`` does) and copies it into the
    object-major result in tiles of rows of about 128 kB (in the core's cache), so the peak
    memory is the result plus one chunk per thread of at most ``chunk_bytes`` (1 to 64 trees):
    no leaf-index matrix, no stacked copy. (Blocks of 4,096
    rows through every tree, before, cost 1.35 x scikit-learn's ``predict`` in one thread and
    1.6 x with two; chunks of trees over all rows 1.0-1.1 x: issue 37, item 6.)
    ``progress(done, total)``: called after each of up to 20 chunks of learners (``total``
    the learners; other ensembles once, at the end); each learner's predictions are the
    same either way, and whatever ``n_jobs``.
    """
    learners = ensemble.estimators_
    if getattr(ensemble, "estimators_features_", None) is not None or not all(hasattr(e, "tree_")
                                                                              for e in learners):
        out = np.moveaxis(tree_predictions(ensemble, X), 0, 1).astype(dtype, copy=False)
        if progress is not None:
            progress(len(learners), len(learners))
        return out
    from concurrent.futures import ThreadPoolExecutor

    from joblib import effective_n_jobs
    from sklearn.utils.validation import check_array

    X = check_array(X, dtype=np.float32, accept_sparse=["csr"], ensure_all_finite=False)
    if hasattr(X, "tocsr"):
        X = X.tocsr()
    n_rows = X.shape[0]
    classes = getattr(ensemble, "classes_", None)
    width = () if classes is None else (len(classes),)
    out = fresh_array((n_rows, len(learners)) + width, dtype)
    workers = max(1, min(effective_n_jobs(n_jobs), len(learners)))
    cell_bytes = int(np.prod(width, dtype=int)) * np.dtype(dtype).itemsize  # one row of one learner
    row_bytes = max(n_rows, 1) * cell_bytes
    # trees per chunk: within the memory budget, at most 64, and at least 4 chunks per thread
    per_chunk = int(np.clip(min(chunk_bytes // row_bytes, -(-len(learners) // (4 * workers))), 1, 64))
    # chunks of learners only to report progress; a learner's predictions do not depend on them
    reports = [np.arange(len(learners))] if progress is None else [
        c for c in np.array_split(np.arange(len(learners)), min(20, len(learners))) if c.size]

    def fill(trees):
        # one thread's chunk of trees: each tree's leaf values of all rows (learner-major), then
        # copied into the object-major result by the same thread, in tiles of rows whose part of
        # the chunk stays in the core's cache (one copy of the whole chunk wrote the result a
        # column at a time: 1.2 x scikit-learn's predict in float64 instead of 1.0 x; issue 37, item 6)
        block = np.empty((len(trees), n_rows) + width, dtype=dtype)
        for k, j in enumerate(trees):
            tree = learners[j].tree_
            values = tree.value[:, 0, 0] if classes is None else tree.value[:, 0, :]
            np.take(values.astype(dtype, copy=False), tree.apply(X), axis=0, out=block[k])
        columns = slice(trees[0], trees[-1] + 1)
        tile = max(_TILE_BYTES // (len(trees) * cell_bytes), 1)
        for start in range(0, n_rows, tile):
            out[start:start + tile, columns] = np.moveaxis(block[:, start:start + tile], 0, 1)

    with ThreadPoolExecutor(workers) as pool:
        for report in reports:
            list(pool.map(fill, [report[i:i + per_chunk] for i in range(0, len(report), per_chunk)]))
            if progress is not None:
                progress(int(report[-1]) + 1, len(learners))
    return out


def fresh_array(shape, dtype, *, small_pages_from=64 * 2**20):
    """``np.empty(shape, dtype)``; from ``small_pages_from`` bytes on, on Linux, in an anonymous
    private mapping of its own, which the kernel backs with 4 kB pages when transparent huge pages
    are only given on request ("madvise", the common default): numpy requests them for every large
    array, and the first write into 2 MB pages cost 4 x that into 4 kB pages on the benchmark's
    virtual machine (0.9-1.1 s against 0.24 s of CPU for 400 MB; later passes 0.02-0.03 s either
    way; issue 37, item 6). The array owns the mapping (unmapped with it) and pickles by value."""
    import mmap
    import sys

    dtype = np.dtype(dtype)
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    if nbytes < small_pages_from or not sys.platform.startswith("linux"):
        return np.empty(shape, dtype=dtype)
    buffer = mmap.mmap(-1, nbytes, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    return np.frombuffer(buffer, dtype=dtype).reshape(shape)


def tree_permutation_importances(ensemble, X, y, rng):
    """Each tree's out-of-bag permutation importance (ranger's ``importance="permutation"``).

    For tree ``t`` with out-of-bag rows ``O_t``: the increase of its error on ``O_t`` (mean
    squared error; misclassification rate for classifiers) when variable ``j``'s values are
    permuted among ``O_t``. Variables the tree never splits on get 0 without being permuted
    (permuting them cannot change the tree's predictions). ranger's forest importance is the
    mean over its trees (unscaled, ranger's default).

    Parameters
    ----------
    ensemble : fitted RandomForest* or ExtraTrees* estimator
    X : array-like of shape (n_train, n_features)
        The training rows the ensemble was fitted on.
    y : array-like of shape (n_train,)
    rng : numpy.random.Generator
        Draws the permutations.

    Returns
    -------
    ndarray of shape (n_features, n_trees)
    """
    learners = ensemble.estimators_
    trees = all(hasattr(e, "tree_") for e in learners)
    if getattr(ensemble, "estimators_features_", None) is not None or not trees:
        raise ValueError(
            "permutation importance is implemented for RandomForest* / ExtraTrees*; got "
            f"{type(ensemble).__name__}. Use importance='impurity'."
        )
    X = np.ascontiguousarray(X, dtype=np.float32)
    y = np.asarray(y)
    classes = getattr(ensemble, "classes_", None)
    target = np.searchsorted(classes, y).astype(float) if classes is not None else y.astype(float)
    oob = ~inbag_mask(ensemble, len(y))
    out = np.zeros((X.shape[1], len(learners)))
    for t, tree in enumerate(learners):
        rows = np.flatnonzero(oob[t])
        if rows.size < 2:
            continue
        xo, yo = X[rows], target[rows]

        def error(data, tree=tree, yo=yo):
            pred = tree.predict(data, check_input=False)
            return float(np.mean(pred != yo)) if classes is not None else float(np.mean((pred - yo) ** 2))

        base = error(xo)
        used = np.unique(tree.tree_.feature[tree.tree_.feature >= 0])
        for j in used:
            original = xo[:, j].copy()
            xo[:, j] = original[rng.permutation(rows.size)]
            out[j, t] = error(xo) - base
            xo[:, j] = original
    return out
