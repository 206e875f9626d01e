"""The arguments of :func:`predstab.tune_num_learners`, checked once, as one frozen configuration.

:func:`_tune_num_learners_iv` reads every argument, fills in the defaults that depend on the
data (the measures, the scale, the pool's size, the selection fractions, the voting) and
returns a :class:`_TuneConfig`; the strategies (refit, pool, closed form) and the measuring of
the grid read it and never check an argument again.
"""

from __future__ import annotations

import dataclasses
from numbers import Real
from types import MappingProxyType, SimpleNamespace

import numpy as np

from .._core._exceptions import PredstabDataWarning, warn_outside
from .._core._gate import check_fit_data, check_responses
from .._core._progress import check_progress
from .._core._utils import check_count
from .._core._validation import Interval, InvalidParameterError, Options, check_param
from ..stability._importance import _selection_size
from ..stability._registry import MEASURES, measure_names, optrf_measure
from ._forest import is_bagging_ensemble

METHODS = ("pool", "refit", "closed_form")
PSI_BASELINES = ("fixed", "kfold", "per_forest")
INTERVALS = ("learners+objects", "learners")  # closed form: what its interval resamples
ROUNDING = {"thousand": "the nearest thousand", "hundred": "the nearest hundred", "ten": "the nearest ten",
            "none": "no rounding"}
POOL_RULE = "n_repeats x the largest grid value (the default)"
CLOSED_POOL_RULE = ("1,000 learners (classes: at least 10 x the largest grid value), grown until the "
                    "recommendation's learners-only SD is at most 10 % of it (the default)")
# class pools of at least 10 x max(grid): near tied votes the closed-form bands cover 0.85 at
# n = P / 2, 0.920 at P / 4 and 0.935 or more for n <= P / 10 (1,000 simulated pools;
# docs/benchmarks/coverage-tuning.md)
CLASS_POOL_FACTOR = 10
_GROUPS = {"selection": {"fraction": None, "select_for": None},
           "importance": {"fraction": None, "kind": "permutation"}}
_GROUP_CHECKS = {
    ("selection", "fraction"): [Interval(Real, 0, None, closed="neither"), None],
    ("importance", "fraction"): [Interval(Real, 0, None, closed="neither"), None],
    ("importance", "kind"): [Options(("permutation", "impurity"))],
}


@dataclasses.dataclass(frozen=True, eq=False)
class _TuneConfig:
    """Everything the tuning reads, checked and completed by :func:`_tune_num_learners_iv`."""

    # the data
    estimator: object
    X: object
    y: np.ndarray
    X_test: object
    is_classifier: bool
    # the forests of each grid value
    grid: tuple
    n_repeats: int
    method: str
    voting: str
    n_jobs: int | None
    pool_size: int  # the pool as asked: given, or the default rule's size
    explicit_pool: bool
    precision: float | None
    # what is measured
    measures: tuple
    scale: str
    categories: list | None
    psi_baseline: str
    measure_options: MappingProxyType  # {measure: keyword arguments}, from `selection=` / `importance=`
    select_fraction: float
    select_for: object
    importance_fraction: float
    importance: str | None  # the kind of importance, when an importance measure is asked for
    # resampling and the recommendation
    n_resamples: int
    confidence_level: float
    interval: str
    target: float
    rec_thresh: float
    round_to: str
    rule: str = "optRF"  # "optRF" (trees) or "target" (members that cost a training run each)
    pool: object = None  # a fitted TreePool given in place of an estimator (its members are the learners)
    # the closed forms' generator: None, the pool's own (fitted here from `random_state`); a given
    # pool's closed forms and bands get a seed derived from `random_state` (issue 34, item 9)
    closed_seed: int | None = None

    def closed_rng(self, pool_size):
        """The generator of one closed-form call (None: the pool's default, derived from its seed).

        Every call gets a fresh generator from the same seed, so the measures share their
        orderings and resamples."""
        return None if self.closed_seed is None else np.random.default_rng([self.closed_seed, int(pool_size)])

    @property
    def primary(self) -> str:
        """The measure the recommendation is for."""
        return self.measures[0]

    @property
    def reads_space(self) -> tuple:
        """The measures against out-of-sample predictions (psi)."""
        return _with(self.measures, baseline="prediction_space")

    @property
    def needs_space(self) -> bool:
        """Whether forests must deliver out-of-bag predictions (psi's fixed or per-forest baseline)."""
        return bool(self.reads_space) and self.psi_baseline != "kfold"

    @property
    def closed(self) -> tuple:
        """The measures computed in closed form (method "closed_form")."""
        if self.method != "closed_form":
            return ()
        return tuple(m for m in self.measures if MEASURES[m].closed_form is not None)


def _with(measures, **attributes):
    """The ``measures`` whose registry entries have these attribute values."""
    return tuple(m for m in measures if all(getattr(MEASURES[m], k) == v for k, v in attributes.items()))


def _group(name, options):
    """The values of an option group (``selection=`` / ``importance=``), defaults filled in."""
    defaults = _GROUPS[name]
    options = {} if options is None else dict(options)
    unknown = sorted(set(options) - set(defaults), key=str)
    if unknown:
        raise InvalidParameterError(f"`{name}` must be a dict with keys among {sorted(defaults)}; "
                                    f"got unknown key(s) {unknown}.")
    values = {**defaults, **options}
    for key, value in values.items():
        if (name, key) in _GROUP_CHECKS:
            check_param(f"{name}['{key}']", value, _GROUP_CHECKS[(name, key)])
    return tuple(values.values())


def _default_pool_size(grid, n_repeats, method, classifier=False):
    """The one default pool (``tune_num_learners`` and ``predstab tune``): ``n_repeats`` disjoint
    forests of the largest grid value, so every grid value gets its ``n_repeats`` forests. For
    "closed_form" (no disjoint forests needed) 1,000 learners to start with -- the metric closed
    form's error shrinks as 1 / sqrt(pool_size), and on optRF's SNP data 1,000 trees already give
    its recommendation optRF's run-to-run precision (issue 37) -- and for a classifier at least ten
    times the largest grid value: near tied votes the class closed forms' learners-only bands
    cover only 0.85 at n = P / 2, 0.920 at n = P / 4, and 0.935 or more for n <= P / 10 (measured
    in docs/benchmarks/coverage-tuning.md). ``tune_num_learners`` then grows that pool until the
    recommendation is precise (``_tune_strategies._grown_for_recommendation``)."""
    size = int(max(grid)) * int(n_repeats)
    if method != "closed_form":
        return size
    # the closed form needs no disjoint forests: it starts from what its result needs (and
    # tune_num_learners grows it until the recommendation is precise, see _tune_strategies)
    return max(1000, CLASS_POOL_FACTOR * int(max(grid))) if classifier else 1000


# --------------------------------------------------------------------------- the checks, in order


DEFAULT_GRID = (250, 500, 750, 1000, 2000)  # optRF's num.trees_values, for an estimator


def member_grid(n_members, classifier=False):
    """The default grid of a given pool of ``n_members`` members: up to a quarter of the pool, a
    tenth for classes (where the class closed forms' bands keep their coverage, see
    :class:`TreePool`), at least 3 values, about evenly spaced on a log scale from 1."""
    top = max(int(n_members) // (CLASS_POOL_FACTOR if classifier else 4), 3)
    return tuple(int(v) for v in np.unique(np.rint(np.geomspace(1, top, min(top, 8)))))


def _grid_iv(a):
    if a.method not in METHODS:
        raise ValueError(f"`method` must be one of {METHODS}; got {a.method!r}.")
    grid = np.asarray(DEFAULT_GRID if a.grid is None else a.grid)
    if grid.ndim != 1 or grid.size < 3 or grid.dtype.kind not in "iuf" \
            or np.any(grid < 1) or np.any(grid != np.round(grid)):
        raise ValueError(
            f"`grid` must hold at least 3 positive integers (numbers of learners); got {a.grid!r}."
        )
    values = tuple(int(g) for g in grid)
    if len(set(values)) != len(values):
        raise ValueError(f"`grid` must not repeat values; got {a.grid!r}.")
    check_count(a.n_repeats, "n_repeats")
    return values


def _measures_iv(measures, method, is_clf):
    known = measure_names("tune")
    default = (optrf_measure(classifier=is_clf), "phi", "psi")
    # a classifier's selection (of the positive class) is its label for two classes: the Fleiss
    # column again, so it is not a default there
    default += () if method == "closed_form" or is_clf else ("selection",)
    if measures is not None and not isinstance(measures, str) and np.ndim(measures) != 1:
        raise ValueError(f"`measures` must be a measure name or a sequence of names; got {measures!r}.")
    measures = default if measures is None else (measures,) if isinstance(measures, str) else tuple(measures)
    if not measures:
        raise ValueError("`measures` must name at least one measure.")
    for m in measures:
        if m not in known:
            raise ValueError(f"`measures` must be among {known}; got {m!r}.")
    if len(set(measures)) != len(measures):
        raise ValueError(f"`measures` must not repeat a measure; got {measures!r}.")
    kind = "categorical" if is_clf else "metric"
    for m in measures:
        if kind not in MEASURES[m].scales:
            needs, other = ("metric", "a classifier") if is_clf else ("class", "a regressor")
            raise ValueError(f"`measures`: {m!r} needs {needs} predictions; use "
                             f"{optrf_measure(classifier=is_clf)!r} for {other}.")
    return measures


def _scale_iv(a, is_clf, measures):
    scale, categories = a.scale, a.categories
    if scale is None:
        scale = "categorical" if is_clf else "metric"
    if is_clf and scale not in ("categorical", "ordinal"):
        raise ValueError(f"`scale` must be 'categorical' or 'ordinal' for a classifier; got {scale!r}.")
    if not is_clf and scale != "metric":
        raise ValueError(f"`scale` must be 'metric' for a regressor; got {scale!r}.")
    if scale == "ordinal":
        listed = categories is not None and not isinstance(categories, str) and np.ndim(categories) == 1
        if not listed or len(categories) < 2:
            raise ValueError(f"`categories` must list the ordered categories for scale='ordinal'; "
                             f"got {categories!r}.")
        unknown = sorted(set(map(str, np.asarray(a.y, dtype=object))) - set(map(str, categories)))
        if unknown:
            raise ValueError(f"`categories` must contain every value of `y`; missing {unknown[:5]}.")
        with_baseline = [m for m in measures if MEASURES[m].baseline is not None]
        if a.method == "closed_form" and with_baseline:
            raise ValueError("`scale`='ordinal' has no closed form for phi / psi; use method='pool'.")
        categories = list(categories)
    elif categories is not None:
        raise ValueError(f"`categories` applies to scale='ordinal'; got scale={scale!r}.")
    return scale, categories


def _options_iv(a, measures):
    if a.psi_baseline not in PSI_BASELINES:
        raise ValueError(f"`psi_baseline` must be one of {PSI_BASELINES}; got {a.psi_baseline!r}.")
    reads_space = _with(measures, baseline="prediction_space")
    if a.method == "closed_form" and a.psi_baseline == "per_forest" and reads_space:
        raise ValueError("`psi_baseline`='per_forest' has no closed form; use 'fixed' or method='pool'.")
    if a.voting not in (None, "soft", "hard"):
        raise ValueError(f"`voting` must be 'soft', 'hard' or None; got {a.voting!r}.")
    if not (isinstance(a.target, float) and 0 < a.target < 1):
        raise ValueError(f"`target` must be a float in (0, 1); got {a.target!r}.")
    rec_thresh = a.rec_thresh
    if isinstance(rec_thresh, bool) or not (isinstance(rec_thresh, (int, float)) and 0 < rec_thresh < np.inf):
        raise ValueError(f"`rec_thresh` must be a positive finite number; got {rec_thresh!r}.")
    if not isinstance(a.round_to, str) or a.round_to not in ROUNDING:
        raise ValueError(f"`round_to` must be one of {sorted(ROUNDING)}; got {a.round_to!r}.")
    if not (isinstance(a.confidence_level, float) and 0 < a.confidence_level < 1):
        raise ValueError(f"`confidence_level` must be a float in (0, 1); got {a.confidence_level!r}.")
    n = a.n_resamples
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"`n_resamples` must be a non-negative integer; got {n!r}.")
    check_progress(a.progress)


def _warn_small_class_pool(subject, size, grid, remedy):
    """The one warning of a class pool below :data:`CLASS_POOL_FACTOR` x the largest grid value."""
    if size < CLASS_POOL_FACTOR * max(grid):
        warn_outside(f"{subject} is below {CLASS_POOL_FACTOR} x the largest grid value ({max(grid)}): the "
                     "closed-form bands of classes for n above a tenth of the pool cover less than 95 % "
                     f"near tied votes (0.920 at a quarter, 0.85 at half); {remedy}.", PredstabDataWarning)


def holds_two_groups(size, grid):
    """Whether a pool of ``size`` learners or members holds 2 disjoint groups of the largest grid
    value, as method "pool" needs (an estimator's pool and a given TreePool alike)."""
    return size // max(grid) >= 2


def of_members(pool):
    """Whether ``pool`` (a given TreePool, or None) holds members' predictions, not a fitted
    estimator's learners (:meth:`TreePool.from_predictions` / ``from_members`` /
    ``from_fit_predict``, which leave ``estimator`` and ``ensemble_`` None)."""
    return pool is not None and getattr(pool, "estimator", None) is None


def _pool_iv(a, grid, measures, is_clf):
    """``(pool_size, explicit)``: the pool as asked, checked against the method and the grid."""
    explicit = a.pool_size is not None
    pool_size = a.pool_size if explicit else _default_pool_size(grid, a.n_repeats, a.method, is_clf)
    check_count(pool_size, "pool_size")
    if explicit and a.method == "closed_form" and is_clf:
        _warn_small_class_pool(f"`pool_size` ({pool_size})", pool_size, grid,
                               f"use pool_size >= {CLASS_POOL_FACTOR * max(grid)}")
    precision = a.precision
    if precision is not None:
        if a.method != "closed_form":
            raise ValueError(f"`precision` applies to method='closed_form'; got method={a.method!r}.")
        if isinstance(precision, bool) or not isinstance(precision, (int, float)) or not 0 < precision < 1:
            raise ValueError(f"`precision` must be a band half-width in (0, 1), e.g. 0.02; "
                             f"got {precision!r}.")
    if a.method == "pool" and not holds_two_groups(pool_size, grid):
        raise ValueError(
            f"`pool_size` ({pool_size}) must hold at least 2 disjoint forests of the largest grid value "
            f"({max(grid)}); use pool_size >= {2 * max(grid)} or method='refit'."
        )
    reads_space = _with(measures, baseline="prediction_space")
    if reads_space and a.psi_baseline != "kfold" and not is_bagging_ensemble(a.estimator):
        raise ValueError(
            f"`psi_baseline`={a.psi_baseline!r} needs out-of-bag predictions, but "
            f"{type(a.estimator).__name__} does not bootstrap; use psi_baseline='kfold' or bootstrap=True."
        )
    return int(pool_size), explicit


def _select_for_iv(select_for, is_clf):
    if select_for is None and not is_clf:
        select_for = "high"
    if isinstance(select_for, str) and select_for not in ("high", "low", "zero") and not is_clf:
        raise InvalidParameterError(f"`selection['select_for']` must be 'high', 'low' or 'zero' for a "
                                    f"regressor; got {select_for!r}.")
    return select_for


def _selection_iv(a, groups, measures, is_clf, y):
    """``(select_fraction, select_for, importance_fraction)``: optRF's defaults (never fewer than
    one item), checked on these data before any fitting."""
    select_fraction, select_for, importance_fraction, importance = groups
    if importance not in ("permutation", "impurity"):
        raise InvalidParameterError(f"`importance['kind']` must be 'permutation' or 'impurity'; "
                                    f"got {importance!r}.")
    selects = _with(measures, option_group="selection")
    n_objects = len(a.X if a.X_test is None else a.X_test)
    if selects and not is_clf and select_fraction is None and n_objects < 2:
        # the default fraction was not the user's choice: name the data that leave nothing to select
        data = "X" if a.X_test is None else "X_test"
        raise InvalidParameterError(
            f"`{data}` must have at least 2 rows for the 'selection' measure (it selects some but not "
            f"all objects); got {n_objects}. Pass more rows or leave 'selection' out of `measures`."
        )
    if select_fraction is None:
        select_fraction = 0.15 if round(n_objects * 0.15) >= 1 else 1
    if importance_fraction is None:
        importance_fraction = 0.05 if round(np.shape(a.X)[1] * 0.05) >= 1 else 1
    if selects and not is_clf:
        _selection_size(n_objects, select_fraction, "selection['fraction']")
    if _with(measures, reads="importances"):
        _selection_size(np.shape(a.X)[1], importance_fraction, "importance['fraction']")
    if is_clf and select_for is None:
        select_for = np.unique(y)[-1]
    if is_clf and selects:
        wanted = set(np.atleast_1d(np.asarray(select_for, dtype=object)).tolist())
        classes = set(np.unique(y).tolist())
        if not wanted or not wanted <= classes or wanted == classes:
            # optRF: "select_for must be a subset of its classes" and "cannot include all classes"
            raise ValueError(
                f"`selection['select_for']` must name some but not all classes of `y` "
                f"{sorted(map(str, classes))} "
                f"for a classifier; got {select_for!r}."
            )
    return select_fraction, select_for, importance_fraction


def _tune_num_learners_iv(arguments):
    """The checked :class:`_TuneConfig` of a call of ``tune_num_learners`` (``arguments``: its
    arguments by name)."""
    from sklearn.base import is_classifier  # scikit-learn only once an estimator is tuned

    a = SimpleNamespace(**arguments)
    if hasattr(a.estimator, "from_predictions") and hasattr(a.estimator, "closed_form"):  # a TreePool
        return _given_pool_iv(a)
    a.method = "pool" if a.method is None else a.method
    if not hasattr(a.estimator, "get_params") or "n_estimators" not in a.estimator.get_params():
        raise TypeError(
            "`estimator` must be a scikit-learn ensemble with an `n_estimators` parameter "
            f"(RandomForest*, ExtraTrees*, Bagging*); got {type(a.estimator).__name__}. A fitted TreePool "
            "(e.g. TreePool.from_predictions of any ensemble's members) is taken too."
        )
    if a.X is None or a.y is None:
        raise ValueError(f"`X` and `y` are required to tune {type(a.estimator).__name__} (only a fitted "
                         "TreePool brings its own predictions).")
    select_fraction, select_for = _group("selection", a.selection)
    importance_fraction, importance = _group("importance", a.importance)
    grid = _grid_iv(a)
    is_clf = bool(is_classifier(a.estimator))
    measures = _measures_iv(a.measures, a.method, is_clf)
    scale, categories = _scale_iv(a, is_clf, measures)
    _options_iv(a, measures)
    select_for = _select_for_iv(select_for, is_clf)
    pool_size, explicit = _pool_iv(a, grid, measures, is_clf)
    y = check_responses(a.y, numbers=not is_clf)
    select_fraction, select_for, importance_fraction = _selection_iv(
        a, (select_fraction, select_for, importance_fraction, importance), measures, is_clf, y)
    if len(y) != len(a.X):
        raise ValueError(f"`X` and `y` must have the same number of rows; got {len(a.X)} and {len(y)}.")
    groups = {"selection": {"fraction": select_fraction, "select_for": select_for},
              "importance": {"fraction": importance_fraction}}
    options = {m: groups.get(MEASURES[m].option_group, {}) for m in measures}
    reads_importances = bool(_with(measures, reads="importances"))
    X, y, X_test = check_fit_data(a.X, y, a.X_test)  # y: checked above, a plain array
    return _TuneConfig(
        estimator=a.estimator, X=X, y=y, X_test=X_test, is_classifier=is_clf, grid=grid,
        n_repeats=int(a.n_repeats), method=a.method, voting=a.voting or ("hard" if is_clf else "soft"),
        n_jobs=a.n_jobs, pool_size=pool_size, explicit_pool=explicit, precision=a.precision,
        measures=measures, scale=scale, categories=categories, psi_baseline=a.psi_baseline,
        measure_options=MappingProxyType(options), select_fraction=select_fraction, select_for=select_for,
        importance_fraction=importance_fraction, importance=importance if reads_importances else None,
        n_resamples=int(a.n_resamples), confidence_level=a.confidence_level, interval=a.interval,
        target=a.target, rec_thresh=a.rec_thresh, round_to=a.round_to,
        rule="optRF" if a.rule is None else a.rule)


def _given_pool_iv(a):
    """The :class:`_TuneConfig` of a fitted TreePool given in place of an estimator: its members
    are the learners, its test objects the objects; nothing is fitted."""
    pool = a.estimator
    if not hasattr(pool, "test_predictions_"):
        raise ValueError("`estimator` is a TreePool that is not fitted; fit it or build it with "
                         "TreePool.from_predictions / from_members / from_fit_predict.")
    given = [name for name in ("X", "y", "X_test") if getattr(a, name) is not None]
    if given:
        raise ValueError(f"`{given[0]}` must be omitted when `estimator` is a fitted TreePool (its members' "
                         "predictions are the data).")
    if a.method == "refit":
        raise ValueError("`method`='refit' refits an estimator; a fitted TreePool takes method='closed_form' "
                         "or 'pool'.")
    if a.precision is not None or a.pool_size is not None:
        name = "precision" if a.precision is not None else "pool_size"
        raise ValueError(f"`{name}` does not apply to a fitted TreePool (its size is its members'); got "
                         f"{getattr(a, name)!r}.")
    is_clf, size = bool(pool.is_classifier_), pool.test_predictions_.shape[1]
    if a.method is None:  # "pool" unless the default grid cannot fit it (then the members as they are)
        fits = a.grid is not None or holds_two_groups(size, member_grid(size, is_clf))
        a.method = "pool" if fits else "closed_form"
    if a.voting is not None and a.voting != pool.voting_:
        raise ValueError(f"`voting` is the pool's ({pool.voting_!r}); got {a.voting!r}. Build the pool with "
                         f"voting={a.voting!r}.")
    known = {"phi": pool.y_train_ is not None, "psi": pool.oob_ is not None}
    measures = a.measures
    if measures is None:
        measures = tuple(m for m in (optrf_measure(classifier=is_clf), "phi", "psi") if known.get(m, True))
    measures = _measures_iv(measures, a.method, is_clf)
    for m in measures:
        if _with((m,), reads="importances"):
            raise ValueError(f"`measures`: {m!r} needs the features; a TreePool of predictions has none.")
        if not known.get(m, True):
            what = "`y` (the training observations)" if m == "phi" else "`oob` (out-of-bag rows)"
            raise ValueError(f"`measures`: {m!r} needs {what}; this pool has none (pass it to "
                             "TreePool.from_predictions).")
    a.grid = member_grid(size, is_clf) if a.grid is None else a.grid
    grid = _grid_iv(a)
    a.y = pool.classes_ if is_clf else pool.y_train_  # the labels the options are checked against
    scale, categories = _scale_iv(a, is_clf, measures)
    _options_iv(a, measures)
    if _with(measures, baseline="prediction_space") and a.psi_baseline == "kfold":
        raise ValueError("`psi_baseline`='kfold' refits an estimator; a TreePool takes 'fixed' (or "
                         "'per_forest' with method='pool').")
    if _with(measures, baseline="prediction_space") and a.psi_baseline == "fixed" and size < max(grid):
        raise ValueError(f"psi's fixed baseline is a forest of max(grid) = {max(grid)} members; the pool has "
                         f"{size}. Use a smaller grid.")
    if a.method == "pool" and not holds_two_groups(size, grid):
        # a grid holds 3 sizes at least: below 3, only the closed form (or more members) helps
        smaller = f"use a grid up to {size // 2} or " if size // 2 >= 3 else ""
        raise ValueError(f"`grid`: the pool of {size} members must hold at least 2 disjoint groups of the "
                         f"largest grid value ({max(grid)}); {smaller}use method='closed_form' (the "
                         "curves from the members as they are)"
                         + ("" if smaller else " or train at least 6 members (a grid of 3 sizes, 2 groups "
                                               "of each)") + ".")
    if a.method == "closed_form" and is_clf:
        top = size // CLASS_POOL_FACTOR  # a grid holds 3 values at least: below 3, no grid fits
        _warn_small_class_pool(f"The pool of {size} members", size, grid,
                               f"use a grid up to {top}" if top >= 3 else
                               f"no grid of 3 sizes fits a tenth of {size} members: train at least "
                               f"{3 * CLASS_POOL_FACTOR} members for bands that keep their coverage")
    groups = (*_group("selection", a.selection), *_group("importance", a.importance))
    n_objects = pool.test_predictions_.shape[0]
    checks = SimpleNamespace(X=np.empty((n_objects, 1)), X_test=None)
    select_fraction, select_for, _ = _selection_iv(
        checks, (groups[0], _select_for_iv(groups[1], is_clf), None, "permutation"), measures, is_clf,
        np.asarray(a.y if a.y is not None else []))
    options = {m: {"fraction": select_fraction, "select_for": select_for}
               if MEASURES[m].option_group == "selection" else {} for m in measures}
    return _TuneConfig(
        estimator=pool, X=None, y=pool.y_train_, X_test=None, is_classifier=is_clf, grid=grid,
        n_repeats=int(a.n_repeats), method=a.method, voting=pool.voting_, n_jobs=a.n_jobs, pool_size=size,
        explicit_pool=False, precision=None, measures=measures, scale=scale, categories=categories,
        psi_baseline=a.psi_baseline, measure_options=MappingProxyType(options),
        select_fraction=select_fraction, select_for=select_for, importance_fraction=1, importance=None,
        n_resamples=int(a.n_resamples), confidence_level=a.confidence_level, interval=a.interval,
        target=a.target, rec_thresh=a.rec_thresh, round_to=a.round_to,
        rule=_pool_rule(pool) if a.rule is None else a.rule, pool=pool)


def _pool_rule(pool):
    """The default rule for a given pool: optRF's for a fitted ensemble (trees are cheap), the
    target's for a pool of members (each a training run: a network, an MCMC run)."""
    return "target" if of_members(pool) else "optRF"


def _pool_description(pool):
    """``TuningResult.settings["estimator"]`` of a given pool."""
    size = pool.test_predictions_.shape[1]
    if of_members(pool):
        return f"TreePool of {size} members (built from its members' predictions)"
    return f"TreePool of {size} learners ({type(pool.ensemble_).__name__})"


def _settings(config):
    """``TuningResult.settings``: the estimator and its main parameters, and the options used."""
    estimator = config.estimator
    if config.pool is not None:
        return {"estimator": _pool_description(config.pool), "estimator_params": {}, **_options(config)}
    params = estimator.get_params(deep=False)
    names = ("max_features", "min_samples_leaf", "max_samples", "bootstrap", "max_depth", "criterion")
    main = {k: params[k] for k in names if k in params}
    # and every other option the estimator was given (min_samples_split, ...), but not those the
    # tuning sets on each refit itself (the number of learners, the seed, the jobs)
    try:
        defaults = type(estimator)().get_params(deep=False)
    except TypeError:  # an estimator without defaults for every parameter: list them all
        defaults = {}
    set_per_refit = {"n_estimators", "random_state", "n_jobs"}
    main.update({k: v for k, v in params.items() if k not in main and k not in set_per_refit
                 and (k not in defaults or repr(v) != repr(defaults[k]))})
    return {"estimator": type(estimator).__name__ + "(" + ", ".join(f"{k}={v!r}" for k, v in main.items())
            + ")", "estimator_params": main, **_options(config)}


def _options(config):
    """The options of ``TuningResult.settings`` (after the estimator)."""
    settings = {"grid": list(config.grid), "n_repeats": config.n_repeats,
                "method": config.method, "measures": list(config.measures), "scale": config.scale,
                "categories": config.categories, "voting": config.voting if config.is_classifier else None,
                "target": config.target, "rule": config.rule, "rec_thresh": config.rec_thresh,
                "round_to": config.round_to,
                "n_resamples": config.n_resamples, "confidence_level": config.confidence_level}
    if _with(config.measures, option_group="selection"):
        settings["select_fraction"] = config.select_fraction
    if config.importance is not None:
        settings["importance_fraction"] = config.importance_fraction
        settings["importance"] = config.importance
    if config.method == "closed_form":
        settings["interval"] = config.interval
    return settings
