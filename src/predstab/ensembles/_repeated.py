"""Prediction matrices from repeated refits of an estimator (the thin layer over the core).

``repeated_predictions`` refits a scikit-learn estimator (or any ``fit_predict(seed)``
callable) with one integer seed per repetition and stacks its test predictions into an
objects x repetitions matrix, plus the matching out-of-sample predictions for the
training objects (out-of-bag or K-fold) that ``psi`` needs as its prediction space.
"""

from __future__ import annotations

import numbers
import warnings
from numbers import Integral

import numpy as np
import pandas as pd

from .._core._exceptions import PredstabDataWarning, warn_outside, warnings_outside
from .._core._gate import check_fit_data
from .._core._results import Result, r_rows, result
from .._core._utils import check_rng, missing_mask, seeds_from
from .._core._validation import HasMethods, Interval, Options, validate_params
from ..stability._registry import MEASURES
from ._forest import (
    aggregate,
    final_estimator,
    inbag_mask,
    is_bagging_ensemble,
    through_pipeline,
    tree_predictions,
)

__all__ = ["repeated_predictions", "RepeatedPredictions", "with_seed"]

_BASELINES = ("oob", "kfold", None)
_RESPONSES = ("predict", "predict_proba")
_VOTINGS = ("soft", "hard")
_STABILITY_SCALES = ("metric", "ordinal", "categorical")  # the scales of predstab.phi / psi


@result
class RepeatedPredictions(Result):
    """Prediction matrices of repeated refits (objects in rows, repetitions in columns).

    ``print(rp)`` and ``repr(rp)`` summarise the matrices (never print them); ``rp.to_frame()``
    is one row of that summary, :meth:`long_frame` the matrices in long format.

    Attributes
    ----------
    test : ndarray of shape (n_test, n_repeats)
        Predictions for the test objects; column ``r`` comes from the refit with seed
        ``seeds[r]``. Floats for regressors and ``response="predict_proba"``, class labels
        (the dtype of the estimator's ``classes_``) for classifiers.
    space : ndarray of shape (n_train, n_repeats) or None
        Out-of-sample predictions for the training objects (the prediction space of
        ``psi``): out-of-bag or out-of-fold, missing (NaN, or None for non-float labels)
        where undefined. None when ``baseline=None``.
    baseline : {"oob", "kfold", "custom"} or None
        How ``space`` was made ("custom": returned by a ``fit_predict`` callable).
    seeds : ndarray of int64, shape (n_repeats,)
        The seed of each repetition (every ``random_state`` of that refit is set to it;
        K-fold refits use seeds derived from it).
    y_train : ndarray of shape (n_train,) or None
        The training responses (the baseline of ``phi``).
    classes : ndarray or None
        The classifier's classes when ``test`` holds class labels (``response="predict"``):
        scikit-learn's ``classes_``, the sorted labels of ``y``. :meth:`phi` and :meth:`psi`
        then default to ``scale="categorical"``, and to these classes as the ``categories`` of
        ``scale="ordinal"``. None for regressors, probabilities and ``fit_predict`` callables.
    """

    test: np.ndarray
    space: np.ndarray | None
    baseline: str | None
    seeds: np.ndarray
    y_train: np.ndarray | None
    classes: np.ndarray | None = None

    _derived_fields = ("n_test", "n_train", "n_repeats")
    _frame_fields = ("baseline", "n_test", "n_train", "n_repeats")

    @property
    def n_repeats(self) -> int:
        """Number of repetitions (columns)."""
        return self.test.shape[1]

    @property
    def n_test(self) -> int:
        """Number of test objects (rows of ``test``)."""
        return self.test.shape[0]

    @property
    def n_train(self) -> int | None:
        """Number of training objects (rows of ``space``, else of ``y_train``; None if neither)."""
        if self.space is not None:
            return self.space.shape[0]
        return None if self.y_train is None else int(np.shape(self.y_train)[0])

    def _str_lines(self):
        return [" Repeated predictions (objects x repetitions)", "",
                *r_rows([("Test objects", self.n_test), ("Training objects", self.n_train),
                         ("Repetitions", self.n_repeats), ("Space", self.baseline)], width=17)]

    def long_frame(self):
        """Long format: one row per (matrix, object, repetition).

        Columns ``matrix`` ("test" | "space"), ``object`` (row index), ``repetition``,
        ``seed`` and ``prediction``.
        """
        frames = []
        for name, mat in (("test", self.test), ("space", self.space)):
            if mat is None:
                continue
            n_obj, n_rep = mat.shape
            frames.append(pd.DataFrame({
                "matrix": name,
                "object": np.repeat(np.arange(n_obj), n_rep),
                "repetition": np.tile(np.arange(n_rep), n_obj),
                "seed": np.tile(self.seeds, n_obj),
                "prediction": mat.reshape(-1),
            }))
        return pd.concat(frames, ignore_index=True)

    @validate_params({"scale": [Options(_STABILITY_SCALES), None], "categories": [None, "array-like"]},
                     renamed={"levels": "categories"})
    def phi(self, *, scale=None, categories=None):
        """APS's data-based stability :func:`predstab.phi` of ``test`` against ``y_train``.

        Class predictions of a classifier (``classes`` is set): ``scale`` defaults to
        "categorical", or to "ordinal" when ``categories`` is given; ``scale="ordinal"`` without
        ``categories`` orders the categories as ``classes`` (sorted; pass ``categories`` for another
        order). Otherwise ``scale`` and ``categories`` are those of :func:`predstab.phi`.
        """
        if self.y_train is None:
            raise ValueError("`y_train` is None: pass `y` to repeated_predictions to compute phi.")
        return self._stability("phi", self.y_train, scale, categories)

    @validate_params({"scale": [Options(_STABILITY_SCALES), None], "categories": [None, "array-like"]},
                     renamed={"levels": "categories"})
    def psi(self, *, scale=None, categories=None):
        """APS's model-based stability :func:`predstab.psi` of ``test`` against ``space``.

        ``scale`` and ``categories`` default as in :meth:`phi` (categories for a classifier's labels).
        """
        if self.space is None:
            raise ValueError("`space` is None: refit with baseline='oob' or 'kfold' to compute psi.")
        return self._stability("psi", self.space, scale, categories)

    def _stability(self, name, baseline, scale, categories):
        """phi / psi of ``test``; a classifier's labels are categories by default."""
        if self.classes is not None:
            if scale is None:
                scale = "categorical" if categories is None else "ordinal"
            if scale == "ordinal" and categories is None:
                categories = list(self.classes)
        with warnings_outside():  # the measure's warnings point at the user's rep.phi() / rep.psi() line
            return MEASURES[name].compute(self.test, baseline, scale=scale, categories=categories)


# ---------------------------------------------------------------------------- validation


def _repeated_predictions_iv(estimator, X, y, X_test, baseline, cv, response):
    # the options are declared on repeated_predictions; this reads the data and checks what
    # depends on it (the estimator's kind, the targets)
    is_estimator = hasattr(estimator, "fit") and hasattr(estimator, "get_params")
    if not is_estimator:
        y = None if y is None else np.asarray(y)
        return None, None, y, None, None
    if X is None or y is None or X_test is None:
        raise ValueError("`X`, `y` and `X_test` are required when `estimator` is a scikit-learn estimator.")
    from sklearn.base import is_classifier
    from sklearn.utils import check_consistent_length

    X, y, X_test = check_fit_data(X, y, X_test)
    y = np.asarray(y)
    check_consistent_length(X, y)
    if (X_test.shape[0] if hasattr(X_test, "shape") else len(X_test)) < 1:
        raise ValueError("`X_test` must contain at least one object; got 0.")
    if missing_mask(y).any():
        raise ValueError("`y` contains missing values; drop those training objects first.")
    if response == "predict_proba":
        if not is_classifier(estimator):
            raise ValueError("`response`='predict_proba' needs a classifier; got a regressor.")
        if np.unique(y).size != 2:
            raise ValueError(
                "`response`='predict_proba' is supported for binary targets (probability of the second "
                f"class); got {np.unique(y).size} classes. Use response='predict'."
            )
    splits = None
    if baseline == "kfold":
        splits = cv  # declared: an int >= 2, a splitter or an iterable of (train, test)
    elif baseline == "oob":
        if not is_bagging_ensemble(final_estimator(estimator)):
            raise ValueError(
                f"`baseline`='oob' needs a bagging ensemble (RandomForest*, ExtraTrees* with bootstrap=True, "
                f"Bagging*); got {type(estimator).__name__}. Use baseline='kfold' for any estimator."
            )
    return estimator, X, y, X_test, splits


# ---------------------------------------------------------------------------- refits


def with_seed(estimator, seed):
    """Clone ``estimator`` and set every ``random_state`` parameter (also nested) to ``seed``.

    The package's one way to seed a refit (repeated predictions, the tuning engine's refits,
    the stability scorer and :class:`~predstab.RefitEnsemble`).
    """
    from sklearn.base import clone

    est = clone(estimator)
    keys = [k for k in est.get_params(deep=True) if k == "random_state" or k.endswith("__random_state")]
    if keys:
        est.set_params(**dict.fromkeys(keys, int(seed)))
    return est


def _ensemble_predict(fitted, X, *, voting, response, oob):
    """Predictions of a fitted bagging ensemble (or pipeline ending in one) from its learners.

    Aggregating per-learner predictions ourselves makes the result independent of the
    ensemble's own ``n_jobs`` (its threaded sum is not order-stable) and lets
    ``voting`` choose the rule.
    """
    ensemble, X = through_pipeline(fitted, X)  # each (nested) pipeline's preprocessing, outermost first
    per_tree = tree_predictions(ensemble, X)
    mask = ~inbag_mask(ensemble, per_tree.shape[1]) if oob else None
    if per_tree.ndim == 2:
        return aggregate(per_tree, mask)
    if response == "predict_proba":
        w = np.ones(per_tree.shape[:2]) if mask is None else mask.astype(np.float64)
        counts = w.sum(axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.einsum("ts,ts->s", w, per_tree[:, :, 1]) / np.where(counts == 0, np.nan, counts)
    return aggregate(per_tree, mask, voting=voting, classes=ensemble.classes_)


def _predict(fitted, X, response, voting):
    if is_bagging_ensemble(final_estimator(fitted)):
        return _ensemble_predict(fitted, X, voting=voting, response=response, oob=False)
    if response == "predict":
        return np.asarray(fitted.predict(X))
    if response == "predict_proba":
        return np.asarray(fitted.predict_proba(X))[:, 1]
    raise ValueError(f"`response` must be one of {_RESPONSES}; got {response!r}.")


def _run_task(task, estimator, X, y, X_test, response, voting):
    """One refit; returns ``(task, test_pred, space_pred, error)``, error = (class, message).

    Errors are returned, not raised, so that the caller can name the seed whatever the
    joblib backend does to exceptions.
    """
    from sklearn.utils import _safe_indexing

    kind, rep, fold, seed, idx = task
    try:
        if kind == "callable":
            out = estimator(int(seed))
            if not (isinstance(out, tuple) and len(out) == 2):
                raise TypeError(
                    "fit_predict(seed) must return a tuple (test_predictions, space_predictions or None); "
                    f"got {type(out).__name__}."
                )
            return task, out[0], out[1], None
        est = with_seed(estimator, seed)
        with warnings.catch_warnings():
            # scikit-learn's own OOB warning duplicates ours (we count the objects and warn once)
            warnings.filterwarnings("ignore", message="Some inputs do not have OOB scores")
            if kind == "full":
                est.fit(X, y)
                test = _predict(est, X_test, response, voting)
                space = (_ensemble_predict(est, X, voting=voting, response=response, oob=True)
                         if idx == "oob" else None)
                return task, test, space, None
            train, held_out = idx
            est.fit(_safe_indexing(X, train), y[train])
            return task, None, _predict(est, _safe_indexing(X, held_out), response, voting), None
    except Exception as exc:  # noqa: BLE001 -- reported with the seed by the caller
        return task, None, None, (type(exc), f"{type(exc).__name__}: {exc}")


def _splits(cv, X, y, classifier, rng):
    from sklearn.model_selection import KFold, StratifiedKFold

    if isinstance(cv, numbers.Integral):
        seed = int(seeds_from(rng, 1)[0])
        kind = StratifiedKFold if classifier else KFold
        splitter = kind(n_splits=int(cv), shuffle=True, random_state=seed)
        return [(np.asarray(tr), np.asarray(te)) for tr, te in splitter.split(X, y)]
    if hasattr(cv, "split"):
        return [(np.asarray(tr), np.asarray(te)) for tr, te in cv.split(X, y)]
    return [(np.asarray(tr), np.asarray(te)) for tr, te in cv]


def _stack(columns, n_rows, what):
    """Stack per-repetition vectors into an (n_rows, n_repeats) matrix, missing-aware."""
    cols = [np.asarray(c).reshape(-1) for c in columns]
    for r, c in enumerate(cols):
        if c.shape[0] != n_rows:
            raise ValueError(f"{what} of repetition {r} has {c.shape[0]} values; expected {n_rows}.")
    kinds = {c.dtype.kind for c in cols}
    if kinds <= set("fiub"):
        return np.column_stack(cols).astype(np.float64 if "f" in kinds else np.result_type(*cols))
    return np.column_stack([c.astype(object) for c in cols])


def _fill_space(n_train, fold_results, splits):
    """Out-of-fold predictions of one repetition; objects in no test fold stay missing."""
    parts = [np.asarray(p).reshape(-1) for p in fold_results]
    covered = np.zeros(n_train, dtype=bool)
    for _, held_out in splits:
        covered[held_out] = True
    numeric = all(p.dtype.kind in "fiub" for p in parts)
    if covered.all():
        out = np.empty(n_train, dtype=np.result_type(*parts) if numeric else object)
    else:
        out = np.full(n_train, np.nan) if numeric else np.full(n_train, None, dtype=object)
    for (_, held_out), pred in zip(splits, parts, strict=True):
        out[held_out] = pred
    return out


@validate_params({
    "estimator": [HasMethods(["fit", "get_params"]), "callable"],
    "n_repeats": [Interval(Integral, 2, None)], "baseline": [Options(("oob", "kfold")), None],
    "cv": [Interval(Integral, 2, None), HasMethods(["split"]), "iterable"],
    "random_state": ["random_state"], "response": [Options(_RESPONSES)], "voting": [Options(_VOTINGS)],
    "n_jobs": [Interval(Integral, None, None), None], "progress": [None, "callable"],
})
def repeated_predictions(estimator, X=None, y=None, X_test=None, *, n_repeats=10, baseline="oob",
                         cv=5, random_state=None, response="predict", voting="soft", n_jobs=None,
                         progress=None) -> RepeatedPredictions:
    """Refit an estimator with new seeds and collect its prediction matrices.

    Each repetition ``r`` clones ``estimator``, sets every ``random_state`` parameter
    (also nested ones in pipelines and meta-estimators, found with
    ``get_params(deep=True)``) to the integer ``seeds[r]`` derived from
    ``random_state``, fits it on ``(X, y)`` and predicts ``X_test``. The same
    ``random_state`` gives bit-identical matrices whatever ``n_jobs`` or joblib
    backend (loky, threading, dask), because every refit is a pure function of its
    seed and results are placed by repetition, not by arrival.

    Parameters
    ----------
    estimator : scikit-learn estimator or callable
        An unfitted estimator, or ``fit_predict(seed) -> (test_predictions,
        space_predictions or None)`` (for models outside scikit-learn; then ``X``,
        ``X_test`` are ignored and may be None, ``y`` is only stored for ``phi``).
    X : array-like of shape (n_train, n_features)
    y : array-like of shape (n_train,)
    X_test : array-like of shape (n_test, n_features)
    n_repeats : int, default 10
        Number of refits (columns), at least 2.
    baseline : {"oob", "kfold", None}, default "oob"
        How to predict the training objects out of sample (``space``, for ``psi``):
        ``"oob"`` -- each training object by the learners of the same fit that did
        not see it (bagging ensembles only: RandomForest*, ExtraTrees* with
        ``bootstrap=True``, Bagging*, or a Pipeline ending in one; computed from
        ``estimators_samples_``, so ``oob_score`` need not be set). Objects in the bag
        of every learner are missing and ``psi`` drops them with a warning.
        ``"kfold"`` -- out-of-fold predictions from K extra refits per repetition,
        with folds fixed across repetitions and refit seeds derived from ``seeds[r]``;
        works for any estimator. None -- no ``space``.
    cv : int, scikit-learn splitter or iterable of (train, test), default 5
        Folds for ``baseline="kfold"``, made once. An int gives shuffled
        ``StratifiedKFold`` (classifiers) or ``KFold`` (regressors) seeded from
        ``random_state``.
    random_state : None, int or numpy.random.Generator
        Source of the refit seeds.
    response : {"predict", "predict_proba"}, default "predict"
        ``"predict"``: class labels (classifiers) or floats (regressors).
        ``"predict_proba"``: the probability of the second class of a binary
        classifier (metric scale).
    voting : {"soft", "hard"}, default "soft"
        How a bagging classifier combines its learners, for test and out-of-bag
        predictions alike: ``"soft"`` is scikit-learn's rule (argmax of the mean
        probability, what ``predict`` does); ``"hard"`` is ranger's majority vote
        (ties to the first class in ``classes_``). Ignored otherwise. The default is
        ``"soft"`` in every predstab function that aggregates learners
        (:func:`make_stability_scorer`, :class:`TreePool`), so that the test matrix is what
        the fitted model's own ``predict`` returns; ranger, and so optRF and APS, count hard
        votes: pass ``voting="hard"`` to reproduce them.
    n_jobs : int or None
        Refits run in parallel with :class:`joblib.Parallel`; None follows
        :func:`joblib.parallel_config` (e.g. ``backend="dask"`` for a cluster).
    progress : callable, optional
        ``progress(done, total)``, called in the main process as refits finish
        (``total`` counts every fit, K-fold refits included).

    Returns
    -------
    RepeatedPredictions
        ``.test`` (n_test, n_repeats), ``.space`` (n_train, n_repeats) or None,
        ``.baseline``, ``.seeds``, ``.y_train``; ``.phi()`` and ``.psi()``.

    Raises
    ------
    ValueError, TypeError
        Bad arguments; ``baseline="oob"`` with an estimator that is not a bagging
        ensemble (use "kfold"); a refit that fails (the message names the seed and
        repeats the estimator's message; no partial matrix is returned).

    Warns
    -----
    PredstabDataWarning
        The estimator has no ``random_state`` parameter (refits may be identical);
        training objects without out-of-bag prediction.

    Notes
    -----
    APS (Lange et al. 2025) builds these matrices by hand in R; this mirrors the
    reference cases (rows 1-200 train, 201-250 test, 10 fits, out-of-bag or 5-fold
    space with folds fixed across fits). The number of fits is ``n_repeats`` for
    ``"oob"``/None and ``n_repeats * (1 + K)`` for ``"kfold"``.

    References
    ----------
    .. [1] Lange, Schmitt & Heinrich (2025). Assessing the prediction stability of
       non-deterministic models. BMC Bioinformatics. doi:10.1186/s12859-025-06097-1

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.ensemble import RandomForestRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 3)); y = X[:, 0] + rng.normal(scale=0.5, size=60)
    >>> rp = repeated_predictions(RandomForestRegressor(n_estimators=20), X[:50], y[:50], X[50:],
    ...                          n_repeats=3, random_state=1)
    >>> rp.test.shape, rp.space.shape, rp.baseline
    ((10, 3), (50, 3), 'oob')
    """
    estimator_, X, y, X_test, cv = _repeated_predictions_iv(estimator, X, y, X_test, baseline, cv, response)
    rng = check_rng(random_state)
    seeds = seeds_from(rng, n_repeats)

    if estimator_ is None:
        tasks = [("callable", r, None, seeds[r], None) for r in range(n_repeats)]
        splits = []
    else:
        from sklearn.base import is_classifier

        params = estimator_.get_params(deep=True)
        if not any(k == "random_state" or k.endswith("__random_state") for k in params):
            warn_outside(
                f"{type(estimator_).__name__} has no `random_state` parameter: refits differ only if it "
                "draws from a global random state, so the matrices may be identical.", PredstabDataWarning)
        splits = (_splits(cv, X, y, is_classifier(estimator_), rng) if baseline == "kfold" else [])
        full_idx = "oob" if baseline == "oob" else None
        tasks = [("full", r, None, seeds[r], full_idx) for r in range(n_repeats)]
        for r in range(n_repeats):
            fold_seeds = seeds_from(int(seeds[r]), len(splits)) if splits else []
            tasks += [("fold", r, k, fold_seeds[k], splits[k]) for k in range(len(splits))]

    results = _run_all(tasks, estimator if estimator_ is None else estimator_, (X, y, X_test),
                       (response, voting), n_jobs, progress)

    main = "callable" if estimator_ is None else "full"
    test_cols = [results[(main, r, None)][0] for r in range(n_repeats)]
    n_test = np.asarray(test_cols[0]).reshape(-1).shape[0]
    test = _stack(test_cols, n_test, "test predictions")

    if estimator_ is None:
        spaces = [results[("callable", r, None)][1] for r in range(n_repeats)]
        given = [s is not None for s in spaces]
        if any(given) and not all(given):
            raise ValueError("fit_predict returned space predictions for some seeds and None for others.")
        space = _stack(spaces, np.asarray(spaces[0]).reshape(-1).shape[0], "space predictions") \
            if all(given) else None
        label = (baseline or "custom") if space is not None else None
    elif baseline == "oob":
        space = _stack([results[("full", r, None)][1] for r in range(n_repeats)], len(y), "space predictions")
        label = "oob"
    elif baseline == "kfold":
        space = _stack([_fill_space(len(y), [results[("fold", r, k)][1] for k in range(len(splits))], splits)
                        for r in range(n_repeats)], len(y), "space predictions")
        label = "kfold"
    elif baseline is None:
        space, label = None, None
    else:
        raise ValueError(f"`baseline` must be one of {_BASELINES}; got {baseline!r}.")

    if space is not None and estimator_ is not None:
        n_none = int(missing_mask(space).all(axis=1).sum())
        if n_none:
            warn_outside(
                f"{n_none} of {space.shape[0]} training objects have no {label} prediction in any "
                "repetition (in the bag of every learner, or in no test fold); psi will drop them.",
                PredstabDataWarning)
    classes = None
    if estimator_ is not None and response == "predict":
        from sklearn.base import is_classifier

        if is_classifier(estimator_):
            classes = np.unique(y)  # scikit-learn's classes_ (LabelEncoder: the sorted labels)
    return RepeatedPredictions(test=test, space=space, baseline=label, seeds=seeds, y_train=y,
                               classes=classes)


def _run_all(tasks, estimator, data, prediction, n_jobs, progress):
    """Run every refit with joblib; return ``{(kind, rep, fold): (test, space)}`` or raise
    (``data``: ``(X, y, X_test)``; ``prediction``: ``(response, voting)``)."""
    from joblib import Parallel, delayed

    try:
        parallel = Parallel(n_jobs=n_jobs, return_as="generator_unordered")
    except ValueError:  # backends without generator support (multiprocessing)
        parallel = Parallel(n_jobs=n_jobs, return_as="list")
    jobs = (delayed(_run_task)(task, estimator, *data, *prediction) for task in tasks)
    results = {}
    total = len(tasks)
    outputs = parallel(jobs)
    try:
        for done, (task, test, space, error) in enumerate(outputs, start=1):
            kind, rep, fold, seed, _ = task
            if error is not None:
                cls, message = error
                where = f"repetition {rep}" + ("" if fold is None else f", fold {fold}")
                name = getattr(estimator, "__name__", type(estimator).__name__)
                # keep the estimator's own ValueError/TypeError type; anything else is a RuntimeError
                raise (cls if cls in (ValueError, TypeError) else RuntimeError)(
                    f"{name} failed for seed {int(seed)} ({where}): {message}")
            results[(kind, rep, fold)] = (test, space)
            if progress is not None:
                progress(done, total)
    finally:
        if hasattr(outputs, "close"):
            outputs.close()  # stop pending refits after a failure
    return results
