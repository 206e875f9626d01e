"""Stability against the number of learners: tune_num_learners and its result.

The estimator-facing layer of the tuning area: it produces, for a grid of ensemble sizes,
the stability measures of refitted ensembles (by refitting, by aggregating a pool of
learners, or in closed form), fits optRF's 2PL curve to each measure (``_twopl``) and
turns the curves into recommendations.
"""

from __future__ import annotations

import dataclasses
import time
import warnings

import numpy as np
import pandas as pd

from ._exceptions import PredstabDataWarning, PredstabWarning
from ._utils import ConfidenceInterval, check_count, check_rng, seeds_from

__all__ = ["tune_num_learners", "TuningResult", "runtime_model"]

_METHODS = ("pool", "refit", "closed_form")
_PSI_BASELINES = ("fixed", "kfold", "per_forest")
_CLOSED = ("icc", "fleiss", "phi", "psi")
_ALL_MEASURES = ("icc", "fleiss", "phi", "psi", "selection", "importance", "importance_selection")


def runtime_model(n, seconds, /):
    """Least-squares line ``seconds = intercept + slope * n`` (optRF's ``lm(time ~ n)``).

    Parameters
    ----------
    n, seconds : array-like of shape (n_points,)
        Numbers of learners and seconds per fit.

    Returns
    -------
    tuple of float
        ``(intercept, slope)``.

    Examples
    --------
    >>> intercept, slope = runtime_model([100, 200, 300], [1.0, 2.0, 3.0])
    >>> round(intercept, 12) + 0.0, round(slope, 12)
    (0.0, 0.01)
    """
    n = np.asarray(n, dtype=float)
    seconds = np.asarray(seconds, dtype=float)
    design = np.column_stack([np.ones_like(n), n])
    (intercept, slope), *_ = np.linalg.lstsq(design, seconds, rcond=None)
    return float(intercept), float(slope)


@dataclasses.dataclass(frozen=True, eq=False)  # eq on arrays is ambiguous
class TuningResult:
    """Result of :func:`tune_num_learners`.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per grid value: ``n_learners``, one column per measure, ``seconds`` (per
        forest; estimated as pool time x n / pool size for the pool methods) and
        ``n_forests`` (forests behind each value; 0 for closed forms).
    fits : dict of str -> TwoPL
        The 2PL fit of each measure.
    summary : pandas.DataFrame
        Per measure: p1, p2, R^2, ``poor_fit``, ``flattened``, optRF's recommendation
        (``recommended``), the learners for the target stability (``n_for_target``) and a
        grid maximum that would resolve the curve (``suggested_max``).
    primary : str
        The measure the recommendation is for ("icc" for regression, "fleiss" for
        classification: prediction stability as optRF computes it, unless changed).
    recommendation : int or None
        optRF 1.2.1's recommendation from the primary measure's curve; None when the fit
        failed or is poor (R^2 < 0.9) -- optRF's number is still in ``summary``.
    reliable : bool
        False when the primary fit failed, is poor (R^2 < 0.9) or has not flattened within
        the grid; ``message`` then says why and what grid would help.
    message : str
    target : float
        Target stability; ``n_for_target`` learners reach it on the primary curve.
    n_for_target : int or None
    confidence_interval : ConfidenceInterval
        Bootstrap percentile interval of the recommendation (objects resampled for
        "refit"/"pool", learners for "closed_form"); NaN if not computed.
    runtime : tuple of float
        ``(intercept, slope)`` of seconds per forest against learners.
    method : str
    bands : dict of str -> pandas.DataFrame
        "closed_form" only: bootstrap-over-learners bands (``low``, ``high``) per measure.
    pool_size : int or None
        Learners in the pool ("pool", "closed_form"; after enlarging it for ``precision``).
    """

    table: pd.DataFrame
    fits: dict
    summary: pd.DataFrame
    primary: str
    recommendation: int | None
    reliable: bool
    message: str
    target: float
    n_for_target: int | None
    confidence_interval: ConfidenceInterval
    runtime: tuple
    method: str
    bands: dict = dataclasses.field(default_factory=dict, repr=False)
    pool_size: int | None = None

    @property
    def recommendation_seconds(self):
        """Predicted seconds to fit one forest of the recommended size (NaN without one)."""
        return float("nan") if self.recommendation is None else float(self.seconds_for(self.recommendation))

    def seconds_for(self, n):
        """Predicted seconds to fit one forest of ``n`` learners (linear run-time model)."""
        return self.runtime[0] + self.runtime[1] * np.asarray(n, dtype=float)

    def to_frame(self) -> pd.DataFrame:
        """The per-grid-value table (a copy)."""
        return self.table.copy()

    def __str__(self):
        measures = [c for c in self.table.columns if c not in ("n_learners", "seconds", "n_forests")]
        pool = "" if self.pool_size is None else f", pool of {self.pool_size} learners"
        lines = [f"Stability against the number of learners ({self.method}{pool})",
                 self.table[["n_learners", *measures]].to_string(index=False, float_format="%.4f"),
                 ""]
        if self.bands:
            # the closed form's sampling error: it comes from the pool's finite number of learners
            bands = pd.DataFrame({"n_learners": self.table["n_learners"]})
            for m, band in self.bands.items():
                bands[m] = [f"{lo:.4f} to {hi:.4f}" for lo, hi in zip(band["low"], band["high"], strict=True)]
            lines += ["95% bootstrap bands (learners of the pool resampled):",
                      bands.to_string(index=False), ""]
        lines.append("2PL fits, stability(n) = 1 / (1 + (p1 / n)^p2):")
        for m, fit in self.fits.items():
            lines.append(f"  {m}: p1 {fit.p1:.4g}, p2 {fit.p2:.4g}, R^2 {fit.r_squared:.4f}"
                         + (" (poor fit)" if fit.poor_fit else ""))
        if self.recommendation is None:
            lines.append(f"No recommendation: {self.message}")
        else:
            low, high = self.confidence_interval
            lines.append(f"Recommendation ({self.primary}, optRF 1.2.1's rule): {self.recommendation} "
                         f"learners (bootstrap interval {low:g} to {high:g})")
            if self.message:
                lines.append(self.message)
        if self.n_for_target is not None:
            lines.append(f"{self.n_for_target} learners reach {self.primary} = {self.target:g}")
        return "\n".join(lines)


# ----------------------------------------------------------------------------------------
# measures over the matrices of one grid value
# ----------------------------------------------------------------------------------------
def _measure(name, data, ctx, rows=None):
    """Value of one measure from one grid value's matrices (``rows`` resamples objects)."""
    from ._fleiss import fleiss_kappa
    from ._icc import icc
    from ._importance import importance_stability, selection_stability
    from ._stability import phi, psi

    importance = name in ("importance", "importance_selection")
    test = data["test"] if rows is None or importance else data["test"][rows]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if name == "icc":
            return icc(test.astype(float)).value
        if name == "fleiss":
            return fleiss_kappa(test).value
        if name == "phi":
            return phi(test, ctx["y"], scale=ctx["scale"]).value
        if name == "psi":
            space = data["space"] if ctx["psi_baseline"] == "per_forest" else ctx["fixed_space"]
            return psi(test, space, scale=ctx["scale"]).value
        if name == "selection":
            return selection_stability(test, fraction=ctx["select_fraction"],
                                       select_for=ctx["select_for"]).value
        if name in ("importance", "importance_selection"):
            imp = data["importances"] if rows is None else data["importances"][rows]
            res = importance_stability(imp, fraction=ctx["importance_fraction"])
            return res.value if name == "importance" else res.selection
    raise ValueError(f"unknown measure {name!r}")  # unreachable after validation


# ----------------------------------------------------------------------------------------
# the three ways to get forests of n learners
# ----------------------------------------------------------------------------------------
def _forest_with(estimator, n, seed, n_jobs):
    from sklearn.base import clone

    model = clone(estimator)
    params = {"n_estimators": int(n), "random_state": int(seed)}
    if "n_jobs" in model.get_params():
        params["n_jobs"] = n_jobs
    return model.set_params(**params)


def _refit_one(estimator, n, seed, X, y, X_test, need_space, voting, n_jobs, is_clf, importance):
    from ._forest import aggregate, inbag_mask, oob_predict, tree_predictions

    model = _forest_with(estimator, n, seed, n_jobs)
    start = time.perf_counter()
    model.fit(X, y)
    if X_test is None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PredstabDataWarning)
            test = oob_predict(model, X, voting=voting)
    elif is_clf and voting == "hard":
        test = aggregate(tree_predictions(model, X_test), voting="hard", classes=model.classes_)
    else:
        test = model.predict(X_test)
    seconds = time.perf_counter() - start
    space = None
    if need_space:
        if X_test is None:
            space = test
        else:
            per_tree = tree_predictions(model, X)
            space = aggregate(per_tree, ~inbag_mask(model, len(y)), voting=voting,
                              classes=model.classes_ if is_clf else None)
    if importance == "permutation":
        from ._pool import tree_permutation_importances

        imp = tree_permutation_importances(model, X, y, np.random.default_rng(seed)).mean(axis=1)
    elif importance == "impurity":
        imp = np.asarray(model.feature_importances_, dtype=float)
    else:
        imp = None
    return test, space, imp, seconds


def _kfold_space(estimator, X, y, n, rng, n_jobs, is_clf):
    """Out-of-fold predictions of forests of n learners: psi's fixed K-fold baseline."""
    from sklearn.model_selection import KFold, StratifiedKFold, cross_val_predict

    seed = int(seeds_from(rng, 1)[0])
    folds = (StratifiedKFold if is_clf else KFold)(5, shuffle=True, random_state=seed)
    return cross_val_predict(_forest_with(estimator, n, seed, n_jobs), X, y, cv=folds)


def _tree_importances(ensemble):
    return np.stack([t.feature_importances_ for t in ensemble.estimators_], axis=1)  # (features, trees)


def _grouped_importances(tree_imp, n, n_forests, *, normalise):
    """Forest importances of disjoint groups of trees: the mean over a group's trees
    (ranger's permutation importance), renormalised to sum 1 for impurity importance as
    scikit-learn's ``feature_importances_`` does."""
    groups = tree_imp[:, : n * n_forests].reshape(tree_imp.shape[0], n_forests, n).mean(axis=2)
    if not normalise:
        return groups
    totals = groups.sum(axis=0, keepdims=True)
    return np.divide(groups, totals, out=np.zeros_like(groups), where=totals > 0)


# ----------------------------------------------------------------------------------------
# validation
# ----------------------------------------------------------------------------------------
def _tune_num_learners_iv(estimator, X, y, X_test, grid, n_repeats, measures, method, select_fraction,
                          select_for, importance_fraction, importance, psi_baseline, pool_size, voting,
                          target, n_bootstrap, progress, precision=None):
    from sklearn.base import is_classifier

    from ._importance import _selection_size

    if not hasattr(estimator, "get_params") or "n_estimators" not in estimator.get_params():
        raise TypeError(
            "`estimator` must be a scikit-learn ensemble with an `n_estimators` parameter "
            f"(RandomForest*, ExtraTrees*, Bagging*); got {type(estimator).__name__}."
        )
    if method not in _METHODS:
        raise ValueError(f"`method` must be one of {_METHODS}; got {method!r}.")
    grid_arr = np.asarray(grid)
    if grid_arr.ndim != 1 or grid_arr.size < 3 or grid_arr.dtype.kind not in "iuf" \
            or np.any(grid_arr < 1) or np.any(grid_arr != np.round(grid_arr)):
        raise ValueError(
            f"`grid` must hold at least 3 positive integers (numbers of learners); got {grid!r}."
        )
    grid_list = [int(g) for g in grid_arr]
    if len(set(grid_list)) != len(grid_list):
        raise ValueError(f"`grid` must not repeat values; got {grid!r}.")
    check_count(n_repeats, "n_repeats")
    is_clf = bool(is_classifier(estimator))
    default = ("fleiss" if is_clf else "icc", "phi", "psi")
    default += () if method == "closed_form" else ("selection",)
    if measures is not None and not isinstance(measures, str) and np.ndim(measures) != 1:
        raise ValueError(f"`measures` must be a measure name or a sequence of names; got {measures!r}.")
    measures = default if measures is None else (measures,) if isinstance(measures, str) else tuple(measures)
    if not measures:
        raise ValueError("`measures` must name at least one measure.")
    for m in measures:
        if m not in _ALL_MEASURES:
            raise ValueError(f"`measures` must be among {_ALL_MEASURES}; got {m!r}.")
    if is_clf and "icc" in measures:
        raise ValueError("`measures`: 'icc' needs metric predictions; use 'fleiss' for a classifier.")
    if not is_clf and "fleiss" in measures:
        raise ValueError("`measures`: 'fleiss' needs class predictions; use 'icc' for a regressor.")
    if psi_baseline not in _PSI_BASELINES:
        raise ValueError(f"`psi_baseline` must be one of {_PSI_BASELINES}; got {psi_baseline!r}.")
    if method == "closed_form" and psi_baseline == "per_forest" and "psi" in measures:
        raise ValueError("`psi_baseline`='per_forest' has no closed form; use 'fixed' or method='pool'.")
    if voting not in (None, "soft", "hard"):
        raise ValueError(f"`voting` must be 'soft', 'hard' or None; got {voting!r}.")
    if not (isinstance(target, float) and 0 < target < 1):
        raise ValueError(f"`target` must be a float in (0, 1); got {target!r}.")
    if isinstance(n_bootstrap, bool) or not isinstance(n_bootstrap, (int, np.integer)) or n_bootstrap < 0:
        raise ValueError(f"`n_bootstrap` must be a non-negative integer; got {n_bootstrap!r}.")
    if progress is not None and not callable(progress):
        raise TypeError(f"`progress` must be callable(done, total) or None; got {type(progress).__name__}.")
    if select_for is None and not is_clf:
        select_for = "high"
    if isinstance(select_for, str) and select_for not in ("high", "low", "zero") and not is_clf:
        raise ValueError(f"`select_for` must be 'high', 'low' or 'zero' for a regressor; got {select_for!r}.")
    if pool_size is None:
        # class closed forms are unbiased up to half the pool (TreePool's Notes)
        pool_size = max(grid_list) * 2 if method == "pool" or is_clf else 1000
        pool_size = max(pool_size, 1000) if method == "closed_form" else pool_size
    check_count(pool_size, "pool_size")
    if precision is not None:
        if method != "closed_form":
            raise ValueError(f"`precision` applies to method='closed_form'; got method={method!r}.")
        if isinstance(precision, bool) or not isinstance(precision, (int, float)) or not 0 < precision < 1:
            raise ValueError(f"`precision` must be a band half-width in (0, 1), e.g. 0.02; "
                             f"got {precision!r}.")
    if method == "pool" and pool_size // max(grid_list) < 2:
        raise ValueError(
            f"`pool_size` ({pool_size}) must hold at least 2 disjoint forests of the largest grid value "
            f"({max(grid_list)}); use pool_size >= {2 * max(grid_list)} or method='refit'."
        )
    from ._forest import is_bagging_ensemble

    if "psi" in measures and psi_baseline != "kfold" and not is_bagging_ensemble(estimator):
        raise ValueError(
            f"`psi_baseline`={psi_baseline!r} needs out-of-bag predictions, but {type(estimator).__name__} "
            "does not bootstrap; use psi_baseline='kfold' or bootstrap=True."
        )
    if importance not in ("permutation", "impurity"):
        raise ValueError(f"`importance` must be 'permutation' or 'impurity'; got {importance!r}.")
    # fail before any fitting: the selection sizes optRF's alpha gives on these data
    if "selection" in measures and not is_clf:
        _selection_size(len(X if X_test is None else X_test), select_fraction, "select_fraction")
    if {"importance", "importance_selection"} & set(measures):
        _selection_size(np.shape(X)[1], importance_fraction, "importance_fraction")
    voting = voting or ("hard" if is_clf else "soft")
    y = np.asarray(y)
    if is_clf and select_for is None:
        select_for = np.unique(y)[-1]
    if is_clf and "selection" in measures:
        wanted = set(np.atleast_1d(np.asarray(select_for, dtype=object)).tolist())
        classes = set(np.unique(y).tolist())
        if not wanted or not wanted <= classes or wanted == classes:
            # optRF: "select_for must be a subset of its classes" and "cannot include all classes"
            raise ValueError(
                f"`select_for` must name some but not all classes of `y` {sorted(map(str, classes))} "
                f"for a classifier; got {select_for!r}."
            )
    if len(y) != len(X):
        raise ValueError(f"`X` and `y` must have the same number of rows; got {len(X)} and {len(y)}.")
    return grid_list, measures, is_clf, int(pool_size), voting, y, select_for


# ----------------------------------------------------------------------------------------
def tune_num_learners(estimator, X, y, X_test=None, *, grid=(250, 500, 750, 1000, 2000), n_repeats=10,
                      measures=None, method="pool", select_fraction=0.15, select_for=None,
                      importance_fraction=0.05, importance="permutation", psi_baseline="fixed",
                      pool_size=None, precision=None, voting=None,
                      target=0.95, rec_thresh=1e-6, round_to="thousand", n_bootstrap=100,
                      random_state=None, n_jobs=None, progress=None):
    """How many learners does a bagging ensemble need for stable predictions? (optRF, faster)

    For each number of learners ``n`` in ``grid`` the stability of ``n_repeats`` ensembles
    of ``n`` learners is measured, optRF's 2PL curve
    :math:`s(n) = 1 / (1 + (p_1 / n)^{p_2})` is fitted to each measure
    (:func:`predstab.fit_2pl`) and the number of learners is recommended by optRF 1.2.1's
    rule and for a target stability.

    Parameters
    ----------
    estimator : scikit-learn bagging-type ensemble
        ``RandomForest*``, ``ExtraTrees*`` or ``Bagging*``; ``n_estimators`` and
        ``random_state`` are set per fit. ranger's defaults (what optRF fits) are close to
        ``RandomForestRegressor(max_features="sqrt", min_samples_split=5)`` and
        ``RandomForestClassifier(max_features="sqrt")``.
    X : array-like of shape (n_train, n_features)
    y : array-like of shape (n_train,)
    X_test : array-like of shape (n_test, n_features), optional
        Objects whose predictions are compared. Without it the training rows are predicted
        out of bag (optRF's behaviour).
    grid : sequence of int, default (250, 500, 750, 1000, 2000)
        Numbers of learners (optRF's ``num.trees_values``); at least 3.
    n_repeats : int, default 10
        Ensembles per grid value (optRF's ``number_repetitions``).
    measures : sequence of str, optional
        Among "icc" (regression) / "fleiss" (classification) -- prediction stability as
        optRF computes it (``irr::icc`` one-way single, ``irr::kappam.fleiss``); "phi",
        "psi" (APS); "selection" (optRF's selection stability); "importance",
        "importance_selection" (optRF ``opt_importance``: ICC of the variable importances and
        Fleiss' kappa of the top ``importance_fraction`` of variables). Default: the
        prediction measure, "phi", "psi" and (except for "closed_form") "selection". The
        first one is ``primary``.
    method : {"pool", "refit", "closed_form"}, default "pool"
        "refit": ``n_repeats`` new ensembles per grid value (what optRF does).
        "pool": one pool of ``pool_size`` learners; the ensembles of ``n`` learners are
        disjoint groups of it (exactly distributed as refits, see :class:`TreePool`); when
        the pool holds fewer than ``n_repeats`` groups of ``n``, fewer forests are used and
        a warning says so. "closed_form": icc / fleiss / phi / psi in closed form from a pool
        (:meth:`TreePool.closed_form`) with bootstrap bands; the other measures from the
        pool's groups.
    select_fraction : float, default 0.15
        optRF's ``alpha`` for selection stability.
    select_for : {"high", "low", "zero"}, class label(s) or None, default None
        optRF's ``select_for``; for a classifier, the class(es) selected. None: "high" for a
        regressor (optRF's default); for a classifier the last of its sorted classes
        (scikit-learn's positive class of a binary problem), so that the default measures
        work whatever the labels are.
    importance_fraction : float, default 0.05
        optRF ``opt_importance``'s ``alpha``.
    importance : {"permutation", "impurity"}, default "permutation"
        Variable importance for the importance measures (optRF's ``importance``):
        "permutation" is ranger's out-of-bag permutation importance, tree by tree
        (RandomForest* / ExtraTrees* with bootstrap); "impurity" is scikit-learn's
        ``feature_importances_``.
    psi_baseline : {"fixed", "kfold", "per_forest"}, default "fixed"
        psi's prediction space. "fixed": the out-of-bag predictions of the largest forest
        (the pool, or the first refit at ``max(grid)``), the same for every grid value.
        "kfold": 5-fold out-of-fold predictions of one forest of ``max(grid)`` learners
        (also fixed; works without bootstrapping, costs 5 extra fits).
        "per_forest": each ensemble's own out-of-bag predictions, as APS computes psi for a
        single forest size -- but then the baseline moves with ``n``: the out-of-bag
        predictions of a small forest are noisy, its D_e shrinks as learners are added and
        psi is not monotone in ``n`` (ranger on APS's maize yield: 0.68, 0.69, 0.73, 0.72,
        0.72, 0.78, 0.83, 0.90 for 5 ... 1000 trees; its 2PL fit is meaningless). The fixed
        baseline keeps D_e constant, so psi follows the same 2PL law as the other measures.
    pool_size : int, optional
        Learners in the pool. "pool": default ``2 * max(grid)``. "closed_form": 1000 for
        regressors, ``max(1000, 2 * max(grid))`` for classifiers (class closed forms are
        estimated without bias only up to half the pool, see :class:`TreePool`). The metric
        closed form's sampling error shrinks as 1 / sqrt(pool_size): on optRF's SNP data a
        pool of 1,000 trees gives ICC(1) at 250 trees to +-0.034 (one standard deviation;
        see ``bands``).
    precision : float, optional
        "closed_form" only: the widest 95% band to accept, as a half-width (e.g. 0.02 for
        +-0.02). The pool's bands are measured (100 resamples at least) and, where any
        closed-form measure's band is wider at some grid value, learners are added to the pool
        (:meth:`TreePool.extend`) as the 1 / sqrt(pool) law asks (10% more; checked again, up
        to three enlargements and 100,000 learners, with a warning when that is not enough).
        On optRF's SNP data +-0.02 took 13,478 trees (38 s, one thread).
    voting : {"soft", "hard"}, optional
        Classifier aggregation; default "hard" (ranger's majority vote, as optRF).
    target : float, default 0.95
        Stability for ``n_for_target``.
    rec_thresh, round_to :
        Passed to :meth:`TwoPL.recommend`.
    n_bootstrap : int, default 100
        Bootstrap resamples for the recommendation's confidence interval and, for
        "closed_form", the curves' 95% bands (``bands``; learners of the pool resampled).
        0: none.
    random_state : None, int or numpy.random.Generator
    n_jobs : int or None
        Passed to the ensemble's ``n_jobs``.
    progress : callable, optional
        ``progress(done, total)`` after each fitted ensemble.

    Returns
    -------
    TuningResult
        ``.table``, ``.fits``, ``.summary``, ``.recommendation``, ``.reliable``,
        ``.message``, ``.n_for_target``, ``.confidence_interval``, ``.runtime``,
        ``.seconds_for(n)``, ``.bands``.

    Warns
    -----
    PredstabWarning
        When the primary curve's fit failed, is poor or has not flattened within the grid.
    PredstabDataWarning
        When the pool holds fewer than ``n_repeats`` disjoint forests of some grid value.

    References
    ----------
    .. [1] Lange, T. M. et al. (2025). optRF: Optimising random forest stability by
       determining the optimal number of trees. BMC Bioinformatics 26, 95.
       https://doi.org/10.1186/s12859-025-06097-1

    Matches optRF 1.2.1's ``opt_prediction`` (2PL fits and recommendation exact to R from
    the same result table); see validation/.

    Examples
    --------
    >>> from sklearn.datasets import make_regression
    >>> from sklearn.ensemble import RandomForestRegressor
    >>> X, y = make_regression(80, 6, noise=20, random_state=0)
    >>> res = tune_num_learners(RandomForestRegressor(max_features=2), X[:60], y[:60], X[60:],
    ...                         grid=(5, 10, 20, 40), n_repeats=4, measures=("icc",),
    ...                         pool_size=160, n_bootstrap=0, random_state=0)
    >>> list(res.table.columns)
    ['n_learners', 'icc', 'seconds', 'n_forests']
    >>> res.recommendation >= 500
    True
    """
    from ._pool import TreePool

    grid, measures, is_clf, pool_size, voting, y, select_for = _tune_num_learners_iv(
        estimator, X, y, X_test, grid, n_repeats, measures, method, select_fraction, select_for,
        importance_fraction, importance, psi_baseline, pool_size, voting, target, n_bootstrap, progress,
        precision)
    rng = check_rng(random_state)
    ctx = {"y": y, "scale": "categorical" if is_clf else "metric", "psi_baseline": psi_baseline,
           "select_fraction": select_fraction, "select_for": select_for,
           "importance_fraction": importance_fraction, "fixed_space": None}
    need_space = "psi" in measures and psi_baseline != "kfold"
    need_imp = importance if {"importance", "importance_selection"} & set(measures) else None
    if "psi" in measures and psi_baseline == "kfold":
        ctx["fixed_space"] = _kfold_space(estimator, X, y, max(grid), rng, n_jobs, is_clf)
    data, seconds, n_forests = {}, {}, {}
    pool = None
    if method == "refit":
        seeds = seeds_from(rng, len(grid) * n_repeats).reshape(len(grid), n_repeats)
        total, done = len(grid) * n_repeats, 0
        # the largest forests first: the first of them gives psi's fixed baseline
        for gi in np.argsort(grid)[::-1]:
            n = grid[gi]
            outs = []
            for r in range(n_repeats):
                want_space = need_space and (psi_baseline == "per_forest" or ctx["fixed_space"] is None)
                outs.append(_refit_one(estimator, n, seeds[gi, r], X, y, X_test, want_space,
                                       voting, n_jobs, is_clf, need_imp))
                if need_space and ctx["fixed_space"] is None:
                    ctx["fixed_space"] = outs[0][1]
                done += 1
                if progress is not None:
                    progress(done, total)
            data[n] = {"test": np.column_stack([o[0] for o in outs]),
                       "space": (np.column_stack([o[1] for o in outs])
                                 if psi_baseline == "per_forest" and need_space else None),
                       "importances": None if need_imp is None else np.column_stack([o[2] for o in outs])}
            seconds[n] = float(np.mean([o[3] for o in outs]))
            n_forests[n] = n_repeats
    else:
        pool = TreePool(estimator, n_learners=pool_size, voting=voting, random_state=rng, n_jobs=n_jobs)
        pool.fit(X, y, X_test, oob=need_space)
        if precision is not None:
            closed = [m for m in measures if m in _CLOSED]
            for steps in range(4):  # the 1 / sqrt(pool) law is close: a second step is rare
                widest = _widest_band(pool, grid, closed, _closed_baselines(ctx, psi_baseline),
                                      max(n_bootstrap, 100))
                if widest <= precision or steps == 3 or pool_size >= _MAX_POOL:
                    break
                needed = min(_MAX_POOL, int(np.ceil(1.1 * pool_size * (widest / precision) ** 2)))
                pool.extend(max(needed - pool_size, 2))
                pool_size = pool.test_predictions_.shape[1]
            if widest > precision:
                warnings.warn(
                    f"`precision`={precision} not reached: the 95% bands of a pool of {pool_size} learners "
                    f"reach +-{widest:.3f} (at most {_MAX_POOL} learners, three enlargements).",
                    PredstabWarning, stacklevel=2,
                )
        if progress is not None:
            progress(1, 1)
        if need_space:
            ctx["fixed_space"] = pool.oob_baseline()
        if need_imp == "permutation":
            from ._pool import tree_permutation_importances

            tree_imp = tree_permutation_importances(pool.ensemble_, X, y, rng)
        elif need_imp == "impurity":
            tree_imp = _tree_importances(pool.ensemble_)
        else:
            tree_imp = None
        short = []
        for n in grid:
            k = min(n_repeats, pool_size // n)
            n_forests[n] = 0 if method == "closed_form" and set(measures) <= set(_CLOSED) else k
            seconds[n] = pool.fit_seconds_ * n / pool_size
            if k < 2:
                data[n] = None
                continue
            if k < n_repeats and not (method == "closed_form" and set(measures) <= set(_CLOSED)):
                short.append(f"{n} ({k})")
            data[n] = {"test": pool.forests(n, n_forests=k),
                       "space": pool.forests(n, n_forests=k, on="oob")
                       if need_space and psi_baseline == "per_forest" else None,
                       "importances": None if tree_imp is None
                       else _grouped_importances(tree_imp, n, k, normalise=need_imp == "impurity")}
        if short:
            warnings.warn(
                f"The pool of {pool_size} learners holds fewer than n_repeats={n_repeats} disjoint forests "
                f"for n = {', '.join(short)} (forests used in brackets); pass pool_size >= "
                f"{n_repeats * max(grid)} for {n_repeats} forests everywhere.",
                PredstabDataWarning, stacklevel=2,
            )

    # the table
    columns = {"n_learners": grid}
    bands, errors = {}, {}
    closed = [m for m in measures if method == "closed_form" and m in _CLOSED]
    if closed:
        # one bootstrap for all closed forms: its errors give the bands and, for the primary
        # measure, the recommendation's interval
        closed = pool._closed_form_bands(grid, closed, baselines=_closed_baselines(ctx, psi_baseline),
                                         n_bootstrap=n_bootstrap)
    for m in measures:
        if m in closed:
            columns[m], low, high, errors[m] = closed[m]
            if n_bootstrap:
                bands[m] = pd.DataFrame({"n_learners": grid, "low": low, "high": high})
        else:
            missing = [n for n in grid if data[n] is None]
            if missing:
                raise ValueError(
                    f"measure {m!r} needs at least 2 disjoint forests; the pool of {pool_size} learners has "
                    f"fewer for n = {missing}. Increase `pool_size`."
                )
            columns[m] = [_measure(m, data[n], ctx) for n in grid]
    columns["seconds"] = [seconds[n] for n in grid]
    columns["n_forests"] = [n_forests[n] for n in grid]
    table = pd.DataFrame(columns)
    closed_curves = {m: table[m].to_numpy(dtype=float) - e for m, e in errors.items() if e is not None}
    result = _summarise(table, measures, method, grid, data, ctx, closed_curves, target, rec_thresh, round_to,
                        n_bootstrap, rng, bands)
    return result if pool is None else dataclasses.replace(result, pool_size=pool_size)


def _summarise(table, measures, method, grid, data, ctx, closed_curves, target, rec_thresh, round_to,
               n_bootstrap, rng, bands):
    from ._twopl import fit_2pl

    fits, rows = {}, []
    for m in measures:
        fit = fit_2pl(table["n_learners"].to_numpy(), table[m].to_numpy(dtype=float))
        rec, _ = fit._recommend_detail(rec_thresh=rec_thresh, round_to=round_to, minimum=500,
                                       max_learners=1_000_000)
        n_t = fit.num_learners_for(target) if fit.converged else -1
        fits[m] = fit
        rows.append({"measure": m, "p1": fit.p1, "p2": fit.p2, "r_squared": fit.r_squared,
                     "poor_fit": fit.poor_fit, "flattened": fit.flattened, "recommended": rec,
                     "n_for_target": None if n_t < 0 else int(n_t), "suggested_max": fit.suggested_max})
    summary = pd.DataFrame(rows).set_index("measure")
    primary = measures[0]
    fit = fits[primary]
    recommendation = summary.loc[primary, "recommended"]
    recommendation = None if recommendation is None or pd.isna(recommendation) else int(recommendation)
    problems = []
    if not fit.converged:
        problems.append(f"the 2PL fit failed ({fit.message})")
    else:
        if fit.poor_fit:
            problems.append(f"the 2PL fits poorly (R^2 = {fit.r_squared:.2f}); do not trust it")
        if not fit.flattened:
            problems.append(
                "the curve has not flattened within the grid (fitted stability "
                f"{fit.stability(max(grid)):.2f} "
                f"at {max(grid)} learners, inflection point p1 = {fit.p1:.0f})"
            )
    if fit.poor_fit:
        # a recommendation from a curve the data do not follow would only look precise;
        # optRF's number stays visible in summary["recommended"]
        recommendation = None
    message = ""
    if problems:
        message = (f"{primary}: " + "; ".join(problems) + ". A grid up to about "
                   f"{fit.suggested_max} learners would resolve it, e.g. {fit.suggested_grid()}.")
        warnings.warn(message, PredstabWarning, stacklevel=3)
    intercept, slope = runtime_model(table["n_learners"], table["seconds"])
    ci = ConfidenceInterval(float("nan"), float("nan"))
    if n_bootstrap and recommendation is not None:
        ci = _bootstrap_recommendation(primary, grid, data, ctx, closed_curves.get(primary), rec_thresh,
                                       round_to, n_bootstrap, rng)
    n_t = summary.loc[primary, "n_for_target"]
    return TuningResult(
        table=table, fits=fits, summary=summary, primary=primary, recommendation=recommendation,
        reliable=not problems, message=message, target=target,
        n_for_target=None if n_t is None or pd.isna(n_t) else int(n_t), confidence_interval=ci,
        runtime=(intercept, slope), method=method, bands=bands,
    )


_MAX_POOL = 100_000


def _closed_baselines(ctx, psi_baseline):
    """Baselines for TreePool's closed forms: psi's k-fold one; the pool's own otherwise."""
    return {"psi": ctx["fixed_space"]} if psi_baseline == "kfold" else {}


def _widest_band(pool, grid, measures, baselines, n_bootstrap):
    """Largest half-width of the pool's 95% closed-form bands over measures and grid values."""
    bands = pool._closed_form_bands(grid, measures, baselines=baselines, n_bootstrap=n_bootstrap)
    return max(float(np.nanmax((high - low) / 2)) for _, low, high, _ in bands.values())


def _bootstrap_recommendation(primary, grid, data, ctx, closed_curves, rec_thresh, round_to, n_bootstrap,
                              rng):
    """Percentile interval of optRF's recommendation over bootstrap curves.

    ``closed_curves`` (closed forms): resampled curves, one row each -- the estimate minus a
    resampled pool's error about its population, the bootstrap behind
    ``TreePool.closed_form``'s bands. Otherwise the objects of ``data`` are resampled.
    """
    from ._twopl import fit_2pl

    recs = []
    closed = closed_curves is not None
    n_grid = np.asarray(grid, dtype=float)
    key = "importances" if primary in ("importance", "importance_selection") else "test"
    n_objects = None if closed else len(data[grid[0]][key])
    for b in range(int(n_bootstrap)):
        if closed:
            curve = np.minimum(closed_curves[b], 1.0)
        else:
            rows = rng.integers(0, n_objects, n_objects)
            curve = np.array([_measure(primary, data[n], ctx, rows=rows) for n in grid])
        if not np.all(np.isfinite(curve)):
            continue
        fit = fit_2pl(n_grid, curve)
        rec, _ = fit._recommend_detail(rec_thresh=rec_thresh, round_to=round_to, minimum=500,
                                       max_learners=1_000_000)
        if rec is not None:
            recs.append(rec)
    if len(recs) < n_bootstrap / 2:
        return ConfidenceInterval(float("nan"), float("nan"))
    # recommendations are rounded counts: report resampled values, not interpolations
    low, high = np.percentile(recs, [2.5, 97.5], method="inverted_cdf")
    return ConfidenceInterval(float(low), float(high))
