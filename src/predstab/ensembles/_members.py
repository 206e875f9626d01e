"""Pools of members of any ensemble: :class:`~predstab.TreePool` from predictions, fitted
models or a ``fit_predict(seed)`` callable.

The closed forms of :class:`~predstab.TreePool` read only the members' predictions (objects x
members, or objects x members x classes) and, for out-of-bag / held-out predictions, which
member did not train on which object. So the member-count curve of any ensemble whose members
are exchangeable -- deep ensembles of networks with different seeds, bagged models of any base
learner, repeated MCMC runs -- comes from the same engine. The three constructors here build
that cache and return a fitted pool; they are bound to :class:`~predstab.TreePool` as class
methods (``cls`` is the class, so this module does not import it).
"""

from __future__ import annotations

import time
from numbers import Integral

import numpy as np

from .._core._utils import check_rng, missing_mask, seeds_from
from .._core._validation import Interval, Options, validate_params
from ._repeated import _run_all

__all__ = ["from_predictions", "from_members", "from_fit_predict"]

_VOTING = ("soft", "hard")
_TOLERANCE = 1e-6  # probabilities of one member for one object must sum to 1 within this


# --------------------------------------------------------------------------- validation


def _shape_text(values):
    return f"shape {tuple(np.shape(values))}"


def _first_bad(mask):
    """The first (row, member[, class]) index where ``mask`` is True, as text."""
    where = tuple(int(v) for v in np.argwhere(mask)[0])
    return "(" + ", ".join(map(str, where)) + ")"


def _labels_to_votes(labels, classes, name):
    """One-hot votes (objects x members x classes) of a label matrix; missing labels: no vote."""
    labels = np.asarray(labels)
    missing = missing_mask(labels)
    present = labels[~missing]
    try:
        distinct, inverse = np.unique(present, return_inverse=True)
    except TypeError as exc:
        raise ValueError(f"`{name}` must hold class labels of one type; got {exc}.") from None
    if classes is None:
        classes = distinct
    index = {v: k for k, v in enumerate(classes.tolist())}
    codes_of_distinct = np.array([index.get(v, -1) for v in distinct.tolist()], dtype=np.intp)
    if (codes_of_distinct < 0).any():
        value = distinct.tolist()[np.flatnonzero(codes_of_distinct < 0)[0]]
        where = tuple(int(v) for v in np.argwhere(~missing & (labels == value))[0])
        raise ValueError(f"`{name}` holds the label {value!r} at {where} that is not among `classes` "
                         f"{classes.tolist()}.")
    codes = np.full(labels.shape, -1, dtype=np.intp)
    codes[~missing] = codes_of_distinct[inverse.ravel()]
    votes = np.zeros(labels.shape + (len(classes),))
    rows, cols = np.nonzero(codes >= 0)
    votes[rows, cols, codes[rows, cols]] = 1.0
    return votes, np.asarray(classes), missing


def _check_probabilities(values, classes, name):
    """A float cube of class probabilities, its classes and where it is missing (objects x members)."""
    values = np.asarray(values, dtype=float)
    missing = np.isnan(values).any(axis=2)
    if np.isinf(values).any():
        raise ValueError(f"`{name}` must hold finite probabilities; got an infinite value at "
                         f"{_first_bad(np.isinf(values))}.")
    present = values[~missing]
    if present.size and (present.min() < 0 or present.max() > 1):
        raise ValueError(f"`{name}` must hold probabilities in [0, 1]; got values from {present.min():g} "
                         f"to {present.max():g}.")
    sums = np.where(missing, 1.0, values.sum(axis=2))
    off = np.abs(sums - 1) > _TOLERANCE
    if off.any():
        where = _first_bad(off)
        raise ValueError(f"`{name}` must hold class probabilities that sum to 1 over the last axis (one "
                         f"row of probabilities per object and member); at {where} they sum to "
                         f"{sums[tuple(np.argwhere(off)[0])]:.6g}.")
    if classes is None:
        classes = np.arange(values.shape[2])
    if len(classes) != values.shape[2]:
        raise ValueError(f"`classes` must name the {values.shape[2]} classes of the last axis of `{name}`; "
                         f"got {len(classes)} labels.")
    return values, np.asarray(classes), missing


def _check_mask(oob, shape, name, what):
    oob = np.asarray(oob)
    if oob.dtype != bool:
        if oob.dtype.kind in "iuf" and np.isin(oob, (0, 1)).all():
            oob = oob.astype(bool)
        else:
            raise ValueError(f"`{name}` must be a boolean mask (True: the member did not train on the "
                             f"object); got dtype {oob.dtype}.")
    if oob.shape != shape:
        raise ValueError(f"`{name}` must have the shape {shape} of {what} (objects x members); got "
                         f"{_shape_text(oob)}.")
    return oob


def _matrix_iv(predictions, classes, name):
    """``(cache, classes or None, missing)``: metric values (objects x members) or class
    probabilities / one-hot votes (objects x members x classes)."""
    if hasattr(predictions, "to_numpy"):  # a DataFrame: its values, objects in rows
        predictions = predictions.to_numpy()
    values = np.asarray(predictions)
    if values.ndim not in (2, 3):
        raise ValueError(f"`{name}` must be objects x members (values or class labels) or objects x members "
                         f"x classes (probabilities); got {_shape_text(values)}.")
    if classes is not None:
        classes = np.asarray(classes)
        if classes.ndim != 1 or len(classes) < 2 or len(set(classes.tolist())) != len(classes):
            raise ValueError(f"`classes` must list at least 2 distinct class labels; got "
                             f"{classes.tolist()!r}.")
    if values.ndim == 3:
        if values.dtype.kind not in "iuf":
            raise ValueError(f"`{name}` of {_shape_text(values)} must hold class probabilities (numbers); "
                             f"got dtype {values.dtype}.")
        if values.shape[2] < 2:
            raise ValueError(f"`{name}` must hold probabilities of at least 2 classes; got "
                             f"{_shape_text(values)}.")
        return _check_probabilities(values, classes, name)
    if classes is not None or values.dtype.kind not in "iuf":
        votes, classes, missing = _labels_to_votes(values, classes, name)
        if len(classes) < 2:
            raise ValueError(f"`{name}` must hold at least 2 distinct class labels (or pass `classes`); "
                             f"got {classes.tolist()!r}.")
        return votes, classes, missing
    values = np.asarray(values, dtype=float)  # no copy of a float64 matrix
    if _all_finite(values):
        return values, None, None
    if np.isinf(values).any():
        raise ValueError(f"`{name}` must hold finite values; got an infinite value at "
                         f"{_first_bad(np.isinf(values))}.")
    return values, None, np.isnan(values)


def _all_finite(values):
    """Whether every value is finite, in one pass without a mask the size of ``values``: a NaN or
    an infinity makes the sum non-finite (an overflowing sum of finite values only sends the
    caller to the exact check)."""
    with np.errstate(over="ignore", invalid="ignore"):
        return bool(np.isfinite(np.sum(values)))


def _from_predictions_iv(predictions, oob, oob_predictions, classes, y):
    """The checked cache: ``(test, train or None, oob or None, classes or None, y or None, kind)``."""
    test, classes, missing = _matrix_iv(predictions, classes, "predictions")
    n_obj, n_members = test.shape[:2]
    if n_members < 2 or n_obj < 2:
        raise ValueError(f"`predictions` must have at least 2 objects (rows) and 2 members (columns); got "
                         f"{_shape_text(predictions)}.")
    train, train_missing = None, None
    if oob_predictions is not None:
        if oob is None:
            raise ValueError("`oob_predictions` needs `oob`, the mask of which member did not train on which "
                             "of its rows.")
        train, train_classes, train_missing = _matrix_iv(oob_predictions, classes, "oob_predictions")
        if train.shape[1:] != test.shape[1:]:
            raise ValueError(f"`oob_predictions` must have the members (and classes) of `predictions` "
                             f"{test.shape[1:]} after the rows; got {_shape_text(oob_predictions)}.")
        if classes is not None and train_classes.tolist() != classes.tolist():
            raise ValueError(f"`oob_predictions` must hold the classes of `predictions` {classes.tolist()}; "
                             f"got {train_classes.tolist()}.")
    mask = None
    if oob is not None:
        held_out = train if train is not None else test
        what = "`oob_predictions`" if train is not None else "`predictions`"
        mask = _check_mask(oob, held_out.shape[:2], "oob", what)
    # a missing prediction is allowed only where the member does not vote (oob False)
    checks = ((missing, "predictions", train is None), (train_missing, "oob_predictions", True))
    for gaps, name, masked in checks:
        if gaps is None or not gaps.any():
            continue
        voting = mask if (mask is not None and masked) else True
        if (gaps & voting).any():
            raise ValueError(f"`{name}` has a missing value (NaN / None) at {_first_bad(gaps & voting)}"
                             + ("; missing values are allowed only where `oob` is False (the member trained "
                                "on the object and does not vote there)" if mask is not None and masked
                                else "") + ".")
    if y is not None:
        y = np.asarray(y)
        if y.ndim != 1 or len(y) < 2 or missing_mask(y).any():
            raise ValueError(f"`y` must be the observed responses (one-dimensional, at least 2, no missing "
                             f"value); got {_shape_text(y)}" + (" with missing values" if y.ndim == 1 and
                                                                 missing_mask(y).any() else "") + ".")
    return test, train, mask, classes, y


def _fill_unused(values, mask):
    """Zeros where the member does not vote (``mask`` False) and its prediction is missing."""
    if mask is None or _all_finite(values):
        return values
    gaps = np.isnan(values) if values.ndim == 2 else np.isnan(values).any(axis=2)
    if not gaps.any():
        return values
    values = values.copy()
    values[gaps] = 0.0
    return values


# --------------------------------------------------------------------------- the constructors


_DECLARED = {"oob": ["array-like", None], "oob_predictions": ["array-like", None], "y": ["array-like", None],
             "classes": ["array-like", None], "voting": [Options(_VOTING)], "random_state": ["random_state"]}


@validate_params(_DECLARED)
def from_predictions(cls, predictions, *, oob=None, classes=None, voting="soft", random_state=None, y=None,
                     oob_predictions=None):
    """A fitted pool from the members' predictions: closed forms and forests of any ensemble.

    Parameters
    ----------
    predictions : array-like of shape (n_objects, n_members) or (n_objects, n_members, n_classes)
        Each member's prediction of each object, objects in rows: metric values, class labels
        (2-D; numbers are read as labels when ``classes`` is given), or class probabilities
        (3-D, summing to 1 over the classes). A DataFrame is read by its values.
    oob : array-like of bool, shape (n_objects, n_members), optional
        True where the member did not train on the object (out of bag / held out). Without
        ``oob_predictions`` it refers to the rows of ``predictions``, which are then
        predicted out of bag as :meth:`fit` without ``X_test`` does (each object by the
        members that did not see it; optRF's behaviour without test data), and psi's default
        baseline is the whole pool's out-of-bag prediction (:meth:`oob_baseline`). Missing
        predictions are allowed where it is False.
    classes : array-like, optional
        The class labels: of the last axis of probabilities (default ``0 ... n_classes - 1``),
        or the labels that a 2-D matrix holds (default its sorted distinct labels; give them
        to read numbers as labels, or to fix their order: ties go to the first).
    voting : {"soft", "hard"}, default "soft"
        How members' probabilities combine (as :class:`TreePool`). Class labels are one-hot
        votes, so both rules give the same forests; the pool then uses "hard", whose closed
        form beyond half the pool is exact Binomial votes.
    random_state : None, int or numpy.random.Generator
        The closed forms' default generator (``seed_``) and the tuning's resampling.
    y : array-like of shape (n_train,), optional
        The observed responses: phi's baseline (``y_train_``).
    oob_predictions : array-like, optional
        The members' predictions of the training rows (objects x members [x classes]) that
        ``oob`` refers to, when ``predictions`` are of test objects: then psi's baseline is
        their out-of-bag prediction, as for a pool fitted with ``X_test``.

    Returns
    -------
    TreePool
        Fitted: ``test_predictions_``, ``train_predictions_``, ``oob_``, ``classes_``,
        ``y_train_``, ``closed_form``, ``forests``, ``oob_baseline``; it is also what
        :func:`predstab.tune_num_learners` takes in place of an estimator. ``estimator`` and
        ``ensemble_`` are None (:meth:`extend` needs an estimator).

    Raises
    ------
    ValueError
        A shape, a missing or infinite value, probabilities outside [0, 1] or not summing to
        1, a label outside ``classes``, a mask of another shape; the message names the
        parameter and what it holds.

    Notes
    -----
    The members must be exchangeable: independent draws of one random procedure given the
    training data (different seeds of a network, bootstrap samples of a base learner,
    independent MCMC runs). Then ``R`` ensembles of ``n`` members are distributed as ``R``
    disjoint groups of the pool, and the closed forms of :class:`TreePool` hold. Snapshots of
    one training run (checkpoints, the epochs of one network, successive draws of one Markov
    chain) are not: they are dependent and ordered, the variance of their mean does not
    shrink as ``1 / n``, and the closed form does not apply.

    Fed the per-tree predictions of a fitted :class:`TreePool` (``test_predictions_``; with
    ``oob=pool.oob_`` for a pool fitted without ``X_test``), it gives the same closed forms,
    bands and forests (tests/ensembles/test_members.py checks this to 1e-12).

    Examples
    --------
    >>> import numpy as np
    >>> from predstab import TreePool
    >>> rng = np.random.default_rng(0)
    >>> truth = rng.normal(size=(50, 1))
    >>> members = truth + 0.5 * rng.normal(size=(50, 40))   # 40 members, 50 objects
    >>> pool = TreePool.from_predictions(members, random_state=0)
    >>> res = pool.closed_form([1, 5, 10], measure="icc")
    >>> bool(res.curve[0] < res.curve[1] < res.curve[2])
    True
    """
    test, train, mask, classes, y = _from_predictions_iv(predictions, oob, oob_predictions, classes, y)
    votes = _are_votes(predictions, classes)
    pool = _bare(cls, voting="hard" if votes else voting, random_state=random_state)
    pool.n_learners = test.shape[1]
    pool.is_classifier_ = classes is not None
    pool.classes_ = classes
    pool.y_train_ = y
    pool.on_train_ = mask is not None and train is None
    if pool.on_train_:
        test = _fill_unused(test, mask)
        train = test
    elif train is not None:
        train = _fill_unused(train, mask)
    pool.test_predictions_, pool.train_predictions_, pool.oob_ = test, train, mask
    return pool


def _are_votes(predictions, classes):
    """Whether ``predictions`` are class labels (2-D labels, not values or probabilities)."""
    values = predictions.to_numpy() if hasattr(predictions, "to_numpy") else np.asarray(predictions)
    return values.ndim == 2 and (classes is not None or values.dtype.kind not in "iuf")


def _bare(cls, *, voting, random_state):
    """An unfitted instance of ``cls`` with the attributes every pool has."""
    pool = cls(None, n_learners=2, voting=voting, random_state=random_state)
    pool.rng_ = check_rng(random_state)
    pool.seed_ = int(seeds_from(pool.rng_, 1)[0])
    pool.voting_ = voting
    pool.ensemble_ = None
    pool.fit_seconds_ = float("nan")
    pool.predict_seconds_ = float("nan")
    return pool


def _member_output(member, X, proba):
    """One member's predictions of ``X``: probabilities with its classes, or values / labels."""
    if proba:
        return np.asarray(member.predict_proba(X), dtype=float), np.asarray(member.classes_)
    return np.asarray(member.predict(X)).reshape(-1), None


def _stack_outputs(outputs, classes):
    """Objects x members (values / labels) or objects x members x classes (probabilities aligned
    on ``classes``, a member that never saw a class giving it probability 0)."""
    if outputs[0][1] is None:
        return np.column_stack([o[0] for o in outputs]), classes
    if classes is None:
        classes = np.unique(np.concatenate([o[1] for o in outputs]))
    classes = np.asarray(classes)
    out = np.zeros((len(outputs[0][0]), len(outputs), len(classes)))
    for j, (proba, own) in enumerate(outputs):
        where = [int(np.flatnonzero(classes == c)[0]) if (classes == c).any() else -1 for c in own]
        if min(where) < 0:
            raise ValueError(f"`classes` must contain every class of the members; member {j} has "
                             f"{own.tolist()}, `classes` {classes.tolist()}.")
        out[:, j, where] = proba
    return out, classes


def _predict_members(members, X, proba, n_jobs):
    from joblib import Parallel, delayed

    # threads: the members are fitted models in this process, predict releases the GIL in numpy
    return Parallel(n_jobs=n_jobs, prefer="threads")(delayed(_member_output)(m, X, proba) for m in members)


@validate_params({**{k: v for k, v in _DECLARED.items() if k != "oob_predictions"}, "members": ["array-like"],
                  "n_jobs": [Integral, None], "response": [Options(("auto", "predict", "predict_proba"))]})
def from_members(cls, members, X_test, *, X_oob=None, oob=None, y=None, classes=None, voting="soft",
                 response="auto", random_state=None, n_jobs=None):
    """A fitted pool from a list of fitted models (the members of any ensemble).

    Each member predicts ``X_test`` (and ``X_oob``); the predictions go to
    :meth:`from_predictions`, whose Notes say when the closed forms apply (exchangeable
    members: independent fits with different seeds or bootstrap samples).

    Parameters
    ----------
    members : sequence of fitted estimators
        At least 2, each with ``predict`` (and ``predict_proba`` and ``classes_`` for class
        probabilities).
    X_test : array-like of shape (n_test, n_features)
        The objects whose prediction stability is measured.
    X_oob : array-like of shape (n_train, n_features), optional
        Training rows, predicted by every member for psi's baseline; ``oob`` says which
        member did not train on which row.
    oob : array-like of bool, optional
        ``(n_train, n_members)`` with ``X_oob``; else ``(n_test, n_members)``: the rows of
        ``X_test`` are then training rows predicted out of bag (see :meth:`from_predictions`).
    y, classes, voting, random_state :
        As for :meth:`from_predictions`.
    response : {"auto", "predict", "predict_proba"}, default "auto"
        "auto": class probabilities when every member has ``predict_proba`` and ``classes_``
        (a classifier), else ``predict`` (values, or labels of classifiers without
        probabilities).
    n_jobs : int or None
        Threads over the members (joblib).

    Returns
    -------
    TreePool
        As :meth:`from_predictions`; ``predict_seconds_`` is the wall time of the predictions.

    Examples
    --------
    >>> from sklearn.datasets import make_regression
    >>> from sklearn.linear_model import SGDRegressor
    >>> from predstab import TreePool
    >>> X, y = make_regression(60, 3, noise=5, random_state=0)
    >>> fits = [SGDRegressor(random_state=s).fit(X[:40], y[:40]) for s in range(4)]  # seeds: the members
    >>> TreePool.from_members(fits, X[40:], y=y[:40]).test_predictions_.shape
    (20, 4)
    """
    members = list(members)
    if len(members) < 2:
        raise ValueError(f"`members` must hold at least 2 fitted models; got {len(members)}.")
    lacking = [j for j, m in enumerate(members) if not hasattr(m, "predict")]
    if lacking:
        raise TypeError(f"`members` must be fitted models with `predict`; member {lacking[0]} is a "
                        f"{type(members[lacking[0]]).__name__}.")
    can_proba = all(hasattr(m, "predict_proba") and hasattr(m, "classes_") for m in members)
    if response == "predict_proba" and not can_proba:
        raise ValueError("`response`='predict_proba' needs members with `predict_proba` and `classes_`.")
    proba = can_proba if response == "auto" else response == "predict_proba"
    start = time.perf_counter()
    test, classes_out = _stack_outputs(_predict_members(members, X_test, proba, n_jobs), classes)
    train = None
    if X_oob is not None:
        if oob is None:
            raise ValueError("`X_oob` needs `oob`, the mask of which member did not train on which row.")
        train, _ = _stack_outputs(_predict_members(members, X_oob, proba, n_jobs), classes_out)
    seconds = time.perf_counter() - start
    if not proba and classes is None and hasattr(members[0], "classes_") and test.dtype.kind in "iuf":
        classes_out = np.unique(np.concatenate([np.asarray(m.classes_) for m in members]))
    pool = from_predictions.__wrapped__(cls, test, oob=oob, classes=classes_out, voting=voting,
                                        random_state=random_state, y=y, oob_predictions=train)
    pool.predict_seconds_ = seconds
    return pool


class _TestOnly:
    """``fit_predict(seed) -> predictions`` as the refit engine's callable, which returns
    ``(test, space)`` (picklable when ``fit_predict`` is, for joblib's processes)."""

    def __init__(self, fit_predict):
        self.fit_predict = fit_predict
        self.__name__ = getattr(fit_predict, "__name__", type(fit_predict).__name__)

    def __call__(self, seed):
        return self.fit_predict(seed), None


@validate_params({"fit_predict": ["callable"], "n_members": [Interval(Integral, 2, None)],
                  "classes": ["array-like", None], "voting": [Options(_VOTING)], "y": ["array-like", None],
                  "random_state": ["random_state"], "n_jobs": [Integral, None],
                  "progress": ["callable", None]})
def from_fit_predict(cls, fit_predict, n_members, *, classes=None, voting="soft", y=None, random_state=None,
                     n_jobs=None, progress=None):
    """A fitted pool of ``n_members`` members made by ``fit_predict(seed)`` (e.g. deep ensembles).

    Each member is one call ``fit_predict(seed)`` that trains a model with that integer seed
    and returns its predictions of the test objects; the seeds derive from ``random_state``.
    The calls run through the refit engine of :func:`predstab.repeated_predictions` (joblib,
    results placed by seed: the same pool whatever ``n_jobs``), and the predictions go to
    :meth:`from_predictions` (whose Notes say when the closed forms apply: the members must be
    independent draws -- different seeds -- not snapshots of one run).

    Parameters
    ----------
    fit_predict : callable
        ``fit_predict(seed) -> predictions``: array-like of shape (n_objects,) of values or
        class labels, or (n_objects, n_classes) of class probabilities. A PyTorch or Keras
        network fits here: seed it, train it, predict the test objects.
    n_members : int
        Members to make (at least 2).
    classes, voting, y :
        As for :meth:`from_predictions` (``classes``: the labels of the probabilities' columns).
    random_state : None, int or numpy.random.Generator
        The members' seeds (``seeds_``) and the pool's generator.
    n_jobs : int or None
        Parallel calls (joblib's ``n_jobs``; None follows :func:`joblib.parallel_config`).
    progress : callable, optional
        ``progress(done, total)`` as members finish.

    Returns
    -------
    TreePool
        As :meth:`from_predictions`, with ``seeds_`` (one per member, in column order) and
        ``fit_seconds_`` (the wall time of the calls).

    Examples
    --------
    >>> import numpy as np
    >>> from predstab import TreePool
    >>> X = np.linspace(0, 1, 30)[:, None]
    >>> def fit_predict(seed):
    ...     noise = np.random.default_rng(seed).normal(scale=0.1, size=30)
    ...     return X[:, 0] + noise
    >>> pool = TreePool.from_fit_predict(fit_predict, 8, random_state=0)
    >>> pool.test_predictions_.shape, len(pool.seeds_)
    ((30, 8), 8)
    """
    rng = check_rng(random_state)
    seeds = seeds_from(rng, n_members)
    tasks = [("callable", r, None, seeds[r], None) for r in range(int(n_members))]
    start = time.perf_counter()
    results = _run_all(tasks, _TestOnly(fit_predict), (None, None, None), ("predict", voting), n_jobs,
                       progress)
    seconds = time.perf_counter() - start
    columns = [np.asarray(results[("callable", r, None)][0]) for r in range(int(n_members))]
    shapes = {c.shape for c in columns}
    if len(shapes) != 1 or columns[0].ndim not in (1, 2):
        raise ValueError(f"`fit_predict` must return predictions of one shape, (n_objects,) or (n_objects, "
                         f"n_classes), for every seed; got shapes {sorted(shapes)}.")
    stacked = np.stack(columns, axis=1)
    if stacked.ndim == 2 and {c.dtype.kind for c in columns} - set("iufb"):
        stacked = np.column_stack([c.astype(object) for c in columns])
    pool = from_predictions.__wrapped__(cls, stacked, classes=classes, voting=voting, random_state=rng, y=y)
    pool.seeds_ = seeds
    pool.fit_seconds_ = seconds
    return pool
