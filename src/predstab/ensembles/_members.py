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
from joblib import Parallel, delayed

from .._core._gate import check_orientation, check_row_names, numbers_if_numeric, refuse_masked, unmask
from .._core._ratings import scaling_shift
from .._core._utils import check_rng, missing_mask, seeds_from
from .._core._validation import Interval, Options, validate_params
from ._repeated import _run_all

__all__ = ["from_predictions", "from_members", "from_fit_predict", "closed_form_units"]

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
    named_rows = check_row_names(predictions, name=name)  # then no orientation: that column would decide
    if classes is None or np.ndim(predictions) == 3:
        # numbers are numbers however they come (object arrays, nullable Int64 / Float64 frames, masked
        # cells as NaN); complex numbers and dates are refused
        values = numbers_if_numeric(predictions, name=name)
    else:  # `classes` given: the values are labels, numbers too (a masked cell is a missing label)
        raw = predictions.to_numpy() if hasattr(predictions, "to_numpy") else predictions
        values = np.asarray(unmask(raw))
        if values.dtype.kind in "cmM":
            raise TypeError(f"`{name}` must hold real numbers or class labels; got dtype {values.dtype}.")
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
        # members x objects x classes (np.stack of predict_proba): judged on the last class's probability
        check_orientation(values[:, :, -1], name=name, fix=f"{name}.transpose(1, 0, 2)")
        return _check_probabilities(values, classes, name)
    if not named_rows:
        check_orientation(values, name=name)
    if classes is not None or values.dtype.kind not in "iuf":
        votes, classes, missing = _labels_to_votes(values, classes, name)
        if len(classes) < 2:
            raise ValueError(f"`{name}` must hold at least 2 distinct class labels (or pass `classes`); "
                             f"got {classes.tolist()!r}.")
        return votes, classes, missing
    # no copy of a float64 matrix; float32 stays float32 (half the memory; the closed forms
    # accumulate in float64 either way, as for TreePool(dtype="float32"))
    values = values if values.dtype in (np.float32, np.float64) else values.astype(np.float64)
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
    """The checked cache: ``(test, train or None, oob or None, classes or None, y or None)``."""
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
        y = _y_iv(y, classes)
    return test, train, mask, classes, y


def _y_iv(y, classes):
    """The observed responses, checked against the pool: finite numbers for a pool of numbers,
    labels among ``classes`` for a pool of classes (phi would otherwise be NaN or compare
    nothing)."""
    y = np.asarray(unmask(y.to_numpy() if hasattr(y, "to_numpy") else y))
    if y.ndim != 1 or len(y) < 2 or missing_mask(y).any():
        raise ValueError(f"`y` must be the observed responses (one-dimensional, at least 2, no missing "
                         f"value); got {_shape_text(y)}" + (" with missing values" if y.ndim == 1 and
                                                             missing_mask(y).any() else "") + ".")
    if classes is None:  # a pool of numbers: y must be numbers
        numbers = numbers_if_numeric(y, name="y")
        if numbers.dtype.kind not in "iufb":
            shown = ", ".join(repr(v) for v in list(dict.fromkeys(y.tolist()))[:3])
            raise ValueError(f"`y` must hold numbers for a pool of numeric predictions; got {shown}, ... "
                             "(for class labels, give the pool's `classes` or class predictions).")
        numbers = numbers.astype(float)
        if not np.isfinite(numbers).all():
            raise ValueError(f"`y` must hold finite values; got {int(np.isinf(numbers).sum())} infinite "
                             "value(s).")
        return numbers
    known = set(classes.tolist())
    absent = [v for v in dict.fromkeys(y.tolist()) if v not in known]
    if absent:
        raise ValueError(f"`y` holds label(s) {absent[:5]!r} that are not among the pool's classes "
                         f"{classes.tolist()!r}; `y` must be the observed classes of the training objects.")
    return y


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


# --------------------------------------------------------------------------- closed-form units
def closed_form_units(pool):
    """``(predictions, shift)``: the pool's test predictions as its closed forms read them.

    The metric closed forms are ratios of variances, the same for predictions ``x`` and
    ``c x``, but their sums of squares overflow from about 1e154 and underflow below about
    1e-154 (ICC = phi = 1 "collapsed" at 1e-170, NaN at 1e200). Predictions of such a
    magnitude are multiplied by the exact power of four of
    :func:`predstab._core._ratings.unit_scaled` (``4**(shift / 2)``; ``shift`` 0 in the safe
    range and for classes, whose votes are in [0, 1]); a baseline's D_e must be computed in
    the same units (``expected_disagreement(..., shift=shift)``). The rescaled copy, made
    only for extreme predictions, is kept with the array it was made from. A pool on a Dask
    cluster (``DaskTreePool``) is read as it is: its blocks are never gathered to be rescaled.
    """
    preds = pool.test_predictions_
    if pool.is_classifier_ or not isinstance(preds, np.ndarray):  # classes; a cluster's lazy blocks
        return preds, 0
    cached = getattr(pool, "_closed_form_units", None)
    if cached is None or cached[0] is not preds:
        shift = scaling_shift(preds)
        cached = (preds, shift, np.ldexp(preds, shift).astype(preds.dtype, copy=False) if shift else preds)
        pool._closed_form_units = cached
    return cached[2], cached[1]


# --------------------------------------------------------------------------- the constructors


_DECLARED = {"oob": ["array-like", None], "oob_predictions": ["array-like", None], "y": ["array-like", None],
             "classes": ["array-like", None], "voting": [Options(_VOTING)], "random_state": ["random_state"]}


@validate_params(_DECLARED)
def from_predictions(cls, predictions, *, oob=None, classes=None, voting="soft", random_state=None, y=None,
                     oob_predictions=None):
    """The engine of :meth:`predstab.TreePool.from_predictions` (whose docstring says what it does);
    ``cls`` is the class."""
    test, train, mask, classes, y = _from_predictions_iv(predictions, oob, oob_predictions, classes, y)
    votes = classes is not None and np.ndim(predictions) == 2  # labels read as one-hot votes
    pool = _bare(cls, voting="hard" if votes else voting, random_state=random_state)
    pool.n_learners = test.shape[1]
    pool.dtype = "float32" if test.dtype == np.float32 else "float64"
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


def pool_items(pool):
    """``(name, value)`` pairs that a :class:`~predstab.TreePool`'s ``repr`` and ``str`` show: what
    the pool holds, no arrays."""
    source = "member predictions" if pool.estimator is None else type(pool.estimator).__name__
    if not hasattr(pool, "test_predictions_"):
        return [("source", source), ("n_learners", pool.n_learners), ("fitted", False)]
    task = f"classification ({len(pool.classes_)} classes)" if pool.is_classifier_ else "regression"
    train = pool.train_predictions_
    return [("source", source), ("n_learners", pool.test_predictions_.shape[1]), ("task", task),
            ("n_test_objects", pool.test_predictions_.shape[0]),
            ("n_train_objects", None if train is None else train.shape[0]),
            ("out_of_bag", pool.oob_ is not None), ("observed_y", pool.y_train_ is not None),
            *([("voting", pool.voting_)] if pool.is_classifier_ else [])]


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


def _predict_members(members, X, proba, n_jobs, name):
    """Every member's output for ``X``; a member that cannot predict ``X`` (not fitted, or ``X`` of
    another width than it was fitted on) is named, with the parameter, instead of scikit-learn's
    message alone."""
    _check_members_fitted(members)
    X = refuse_masked(X, name, rows=True)
    width = np.shape(X)[1] if np.ndim(X) == 2 else None
    for j, member in enumerate(members):
        expected = getattr(member, "n_features_in_", None)
        if width is not None and expected is not None and int(expected) != width:
            raise ValueError(f"`{name}` has {width} columns (features), but member {j} "
                             f"({type(member).__name__}) was fitted on {int(expected)}; give `{name}` the "
                             "features the members were trained on.")
    try:
        # threads: the members are fitted models in this process, predict releases the GIL in numpy
        return Parallel(n_jobs=n_jobs, prefer="threads")(delayed(_member_output)(m, X, proba)
                                                         for m in members)
    except (ValueError, TypeError) as exc:
        kind = TypeError if isinstance(exc, TypeError) and not isinstance(exc, ValueError) else ValueError
        raise kind(f"the members could not predict `{name}` of shape {np.shape(X)}: {exc}") from exc


def _check_members_fitted(members):
    """A ValueError naming the first member scikit-learn says is not fitted."""
    try:
        from sklearn.base import BaseEstimator
        from sklearn.exceptions import NotFittedError
        from sklearn.utils.validation import check_is_fitted
    except ImportError:  # pragma: no cover - scikit-learn is a dependency
        return
    for j, member in enumerate(members):
        if not isinstance(member, BaseEstimator):
            continue  # not scikit-learn's: its own predict says
        try:
            check_is_fitted(member)
        except NotFittedError:
            raise ValueError(f"`members` must be fitted models; member {j} ({type(member).__name__}) is not "
                             "fitted: call its fit first.") from None


@validate_params({**{k: v for k, v in _DECLARED.items() if k != "oob_predictions"}, "members": ["array-like"],
                  "n_jobs": [Integral, None], "response": [Options(("auto", "predict", "predict_proba"))]})
def from_members(cls, members, X_test, *, X_oob=None, oob=None, y=None, classes=None, voting="soft",
                 response="auto", random_state=None, n_jobs=None):
    """The engine of :meth:`predstab.TreePool.from_members` (whose docstring says what it does);
    ``cls`` is the class."""
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
    test, classes_out = _stack_outputs(_predict_members(members, X_test, proba, n_jobs, "X_test"), classes)
    train = None
    if X_oob is not None:
        if oob is None:
            raise ValueError("`X_oob` needs `oob`, the mask of which member did not train on which row.")
        train, _ = _stack_outputs(_predict_members(members, X_oob, proba, n_jobs, "X_oob"), classes_out)
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
    """The engine of :meth:`predstab.TreePool.from_fit_predict` (whose docstring says what it does);
    ``cls`` is the class."""
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
