"""The three ways :func:`predstab.tune_num_learners` gets forests of ``n`` learners.

One strategy per ``method``, each reading the frozen :class:`~._tune_config._TuneConfig`:

- :class:`_Refit` -- ``n_repeats`` new forests per grid value (what optRF does);
- :class:`_Pool` -- one pool of learners (:class:`~predstab.TreePool`), whose disjoint groups
  are the forests (exactly distributed as refits);
- :class:`_ClosedForm` -- the pool (enlarged for ``precision``), the closed-form measures of the
  registry from its per-learner predictions with their bands over the learners, the other
  measures from its groups.

Each delivers a :class:`~._tune_table._Forests`; the closed form also its columns and the
primary measure's resampled curves.
"""

from __future__ import annotations

import time
import warnings

import numpy as np

from .._core._exceptions import PredstabDataWarning, PredstabWarning, warn_outside
from .._core._utils import seeds_from
from ._distributed import DaskTreePool
from ._forest import aggregate, inbag_mask, oob_predict, tree_permutation_importances, tree_predictions
from ._pool import TreePool, check_test_data
from ._recommend import Rule, apply_rule
from ._recommendation_interval import LEARNER_OBJECT_COVERS, _learner_object_curves
from ._repeated import with_seed
from ._tune_table import _closed_baselines, _Forests, _GridValue, _object_bands
from ._twopl import fit_2pl

MAX_POOL = 100_000  # the largest pool `precision` may ask for
# the default closed-form pool grows until the learners-only standard deviation of the (unrounded)
# recommendation is at most this share of its median: about the precision of optRF's own refit runs
# on its regression example (SD 1,370 of 16,100 over 10 seeds, issue 37)
REC_PRECISION = 0.10
REC_RESAMPLES = 100
_COVERS = {
    "learners+objects": LEARNER_OBJECT_COVERS,
    "closed_form": "the pool's learners resampled: only the error from the pool's finite number of learners, "
                   "not the sampling of the test objects (interval=\"learners\")",
    "objects": "test objects resampled, the forests held fixed: the sampling of the test objects, "
               "not of new forests",
}


# --------------------------------------------------------------------------- one forest


def _forest_with(estimator, n, seed, n_jobs):
    """A clone with ``n`` learners, every random_state set to ``seed`` and ``n_jobs``."""
    model = with_seed(estimator, seed)
    params = {"n_estimators": int(n)}
    if "n_jobs" in model.get_params():
        params["n_jobs"] = n_jobs
    return model.set_params(**params)


def _refit_one(config, n, seed, X_test, want_space, importance=None):
    """One forest of ``n`` learners fitted on ``config.X``, ``config.y``: ``(test predictions,
    out-of-bag baseline or None, importances or None, seconds)``; ``X_test`` None predicts the
    training rows out of bag."""
    X, y, voting = config.X, config.y, config.voting
    model = _forest_with(config.estimator, n, seed, config.n_jobs)
    start = time.perf_counter()
    model.fit(X, y)
    if X_test is not None:
        X_test = check_test_data(model, X_test)  # the pool's check: the error names `X_test`
    if "n_jobs" in model.get_params():
        # scikit-learn's threaded predict adds the trees' predictions in the order the threads
        # finish, so its last bits depend on n_jobs: predict in one thread (the trees' fixed
        # order); the fit, where the time goes, keeps its threads and is deterministic
        model.set_params(n_jobs=1)
    if X_test is None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PredstabDataWarning)
            test = oob_predict(model, X, voting=voting)
    elif config.is_classifier and voting == "hard":
        test = aggregate(tree_predictions(model, X_test), voting="hard", classes=model.classes_)
    else:
        test = model.predict(X_test)
    seconds = time.perf_counter() - start
    space = None
    if want_space:
        if X_test is None:
            space = test
        else:
            space = aggregate(tree_predictions(model, X), ~inbag_mask(model, len(y)), voting=voting,
                              classes=model.classes_ if config.is_classifier else None)
    if importance == "permutation":
        imp = tree_permutation_importances(model, X, y, np.random.default_rng(seed)).mean(axis=1)
    elif importance == "impurity":
        imp = np.asarray(model.feature_importances_, dtype=float)
    else:
        imp = None
    return test, space, imp, seconds


def _kfold_baseline(config, rng):
    """psi's fixed K-fold baseline: out-of-fold predictions of forests of ``max(grid)`` learners,
    with its description."""
    from sklearn.model_selection import KFold, StratifiedKFold, cross_val_predict

    n = max(config.grid)
    seed = int(seeds_from(rng, 1)[0])
    folds = (StratifiedKFold if config.is_classifier else KFold)(5, shuffle=True, random_state=seed)
    # forests in one thread each (their threaded predict sums in a run-dependent order), the folds
    # in parallel: cross_val_predict puts each fold's predictions back in place, whatever n_jobs
    space = cross_val_predict(_forest_with(config.estimator, n, seed, 1), config.X, config.y, cv=folds,
                              n_jobs=config.n_jobs)
    return space, f"5-fold out-of-fold predictions of forests of {n} learners, the same for every n"


def _fixed_baseline(config, rng):
    """psi's baseline known before any forest is fitted: K-fold (fitted here), per forest (none),
    or None when the strategy provides it (or psi is not measured)."""
    if not config.reads_space:
        return None, ""
    if config.psi_baseline == "kfold":
        return _kfold_baseline(config, rng)
    if config.psi_baseline == "per_forest":
        return None, "each forest's own out-of-bag predictions (moves with n)"
    return None, ""


# --------------------------------------------------------------------------- the strategies


class _Refit:
    """``n_repeats`` new forests per grid value; the first of the largest gives psi's baseline."""

    def forests(self, config, rng, progress):
        baseline, text = _fixed_baseline(config, rng)
        grid, n_repeats = config.grid, config.n_repeats
        seeds = seeds_from(rng, len(grid) * n_repeats).reshape(len(grid), n_repeats)
        total, done, values = len(grid) * n_repeats, 0, {}
        first_is_baseline = config.needs_space and config.psi_baseline == "fixed"
        per_forest = config.needs_space and config.psi_baseline == "per_forest"
        for gi in np.argsort(grid)[::-1]:  # the largest forests first
            n, outs = grid[gi], []
            for r in range(n_repeats):
                want_space = per_forest or (first_is_baseline and baseline is None)
                outs.append(_refit_one(config, n, seeds[gi, r], config.X_test, want_space, config.importance))
                if first_is_baseline and baseline is None:
                    baseline = outs[0][1]
                    text = (f"out-of-bag predictions of one forest of {n} learners (the first "
                            "refit of the largest grid value), the same for every n")
                done += 1
                progress.tick("fitting forests", done, total)
            values[n] = _GridValue(
                n=n, test=np.column_stack([o[0] for o in outs]),
                space=np.column_stack([o[1] for o in outs]) if per_forest else None,
                importances=None if config.importance is None else np.column_stack([o[2] for o in outs]),
                seconds=float(np.mean([o[3] for o in outs])), n_forests=n_repeats)
        return _Forests(values=values, baseline=baseline, baseline_text=text)

    def closed_columns(self, config, forests, progress):
        """``({measure: (curve, low, high, errors)}, {measure: reason}, {measure: single_icc})``:
        none here."""
        return {}, {}, {}

    def primary_resamples(self, config, forests, measured, rng, progress):
        """The bands of the measures (added to the table) and the primary measure's resampled
        curves for its recommendation interval (or None): the test objects resampled."""
        return _object_bands(config, forests, measured.table, config.measures, rng, progress)

    def covers(self, config):
        """What the recommendation's interval resampled (``interval_covers``)."""
        return _COVERS["objects"]


class _Pool(_Refit):
    """Disjoint groups of one pool's learners as the forests of each grid value."""

    def forests(self, config, rng, progress):
        baseline, text = _fixed_baseline(config, rng)
        pool = config.pool  # a fitted pool given in place of an estimator: nothing to fit
        if pool is None:
            if hasattr(config.X_test, "__dask_graph__"):  # Dask test objects: the pool on the active cluster
                pool = DaskTreePool(config.estimator, n_learners=config.pool_size, voting=config.voting,
                                    random_state=rng)
            else:
                pool = TreePool(config.estimator, n_learners=config.pool_size, voting=config.voting,
                                random_state=rng, n_jobs=config.n_jobs)
            # ticks as it grows and predicts
            pool.fit(config.X, config.y, config.X_test, oob=config.needs_space, progress=progress)
        if config.needs_space and config.psi_baseline == "fixed":
            baseline, text = _pool_baseline(pool, config, rng)
        pool = self._enlarged(pool, config, baseline, progress)
        return self._groups(pool, config, rng, (baseline, text))

    def _enlarged(self, pool, config, baseline, progress):
        """The pool as fitted (the closed form enlarges it for ``precision``)."""
        return pool

    def _groups(self, pool, config, rng, baseline):
        """The pool's disjoint groups for every grid value (fewer than ``n_repeats`` where the pool
        is short, with a note, and a warning when its size was given), with psi's ``baseline``
        ``(values, description)``."""
        pool_size, n_repeats, grid = pool.test_predictions_.shape[1], config.n_repeats, config.grid
        if config.importance == "permutation":  # (features, trees)
            tree_imp = tree_permutation_importances(pool.ensemble_, config.X, config.y, rng)
        elif config.importance == "impurity":
            tree_imp = np.stack([t.feature_importances_ for t in pool.ensemble_.estimators_], axis=1)
        else:
            tree_imp = None
        only_closed = set(config.measures) <= set(config.closed)
        per_forest = config.needs_space and config.psi_baseline == "per_forest"
        values, short = {}, []
        for n in grid:
            k = min(n_repeats, pool_size // n)
            seconds = pool.fit_seconds_ * n / pool_size
            # closed forms only: the groups are read at the largest n alone (largest_phi / largest_psi)
            if k < 2 or (only_closed and n != max(grid)):
                values[n] = _GridValue(n=n, test=None, seconds=seconds, n_forests=0 if only_closed else k)
                continue
            if k < n_repeats and not only_closed:
                short.append(f"{n} ({k})")
            values[n] = _GridValue(
                n=n, test=pool.forests(n, n_forests=k),
                space=pool.forests(n, n_forests=k, on="oob") if per_forest else None,
                importances=None if tree_imp is None
                else _grouped_importances(tree_imp, n, k, normalise=config.importance == "impurity"),
                seconds=seconds, n_forests=0 if only_closed else k)
        notes = []
        if short:
            text = (f"The pool of {pool_size} learners holds fewer than n_repeats={n_repeats} disjoint "
                    f"forests for n = {', '.join(short)} (forests used in brackets)")
            if config.explicit_pool:
                warn_outside(f"{text}; pass pool_size >= {n_repeats * max(grid)} for {n_repeats} forests "
                             "everywhere.", PredstabDataWarning)
            notes.append(text + ".")
        return _Forests(values=values, baseline=baseline[0], baseline_text=baseline[1], pool=pool,
                        pool_size=pool_size, notes=tuple(notes))


class _ClosedForm(_Pool):
    """The closed forms of the pool (:meth:`TreePool.closed_form`) for the measures that have
    one, the pool's groups for the others."""

    def _enlarged(self, pool, config, baseline, progress):
        """The pool, with learners added until the widest 95% band reaches ``precision``; without
        ``precision``, a default pool (neither given nor a given TreePool) until the recommendation
        is precise (:func:`_grown_for_recommendation`)."""
        precision = config.precision
        if precision is None:
            if config.explicit_pool or config.pool is not None:
                return pool
            return _grown_for_recommendation(pool, config, baseline, progress)
        pool_size = pool.test_predictions_.shape[1]
        baselines = _closed_baselines(_Forests(values={}, baseline=baseline))
        for steps in range(4):  # the 1 / sqrt(pool) law is close: a second step is rare
            widest = _widest_band(pool, config, baselines, progress)
            if widest <= precision or steps == 3 or pool_size >= MAX_POOL:
                break
            needed = min(MAX_POOL, int(np.ceil(1.1 * pool_size * (widest / precision) ** 2)))
            pool.extend(max(needed - pool_size, 2), progress=progress)
            pool_size = pool.test_predictions_.shape[1]
        if widest > precision:
            warn_outside(
                f"`precision`={precision} not reached: the 95% bands of a pool of {pool_size} learners "
                f"reach +-{widest:.3f} (at most {MAX_POOL} learners, three enlargements).", PredstabWarning)
        return pool

    def closed_columns(self, config, forests, progress):
        """``({measure: (curve, low, high, errors)}, {measure: reason}, {measure: single_icc})`` of
        the closed forms: a measure that fails is NaN; the last holds the ICC(1) of one learner
        where the between-object variance estimate was below 0 and the curve is floored at 0
        (:attr:`ClosedFormResult.single_icc`).

        One :meth:`TreePool.closed_form` call per measure, each with a fresh generator from the
        same seed (:meth:`_TuneConfig.closed_rng`: the pool's own, or for a given pool one derived
        from ``random_state``), so the measures share the orderings and resamples (as one call
        over all measures would) and one ``random_state`` gives the same bands every time.
        """
        baselines = _closed_baselines(forests)
        n_resamples = config.n_resamples
        out, failed, floored = {}, {}, {}
        for m in config.closed:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", PredstabWarning)
                    r = forests.pool.closed_form(
                        config.grid, measure=m, baseline=baselines.get(m), n_resamples=n_resamples,
                        confidence_level=config.confidence_level,
                        random_state=config.closed_rng(forests.pool_size),
                        progress=progress.callback(f"closed form and bands ({m})"))
                out[m] = (r.curve, r.low, r.high, r.errors) if n_resamples else (r.curve, None, None, None)
                if r.single_icc < 0:
                    floored[m] = r.single_icc
            except Exception as exc:  # noqa: BLE001 -- the other measures still count
                nan = np.full(len(config.grid), np.nan)
                out[m] = (nan, nan if n_resamples else None, nan if n_resamples else None, None)
                failed[m] = f"{type(exc).__name__}: {' '.join(str(exc).split())}"
        return out, failed, floored

    def primary_resamples(self, config, forests, measured, rng, progress):
        """The closed-form primary: its learners' resampled curves (the bands' errors), or with
        ``interval="learners+objects"`` the test objects and learners resampled together; a
        primary without a closed form: the test objects resampled."""
        table, primary = measured.table, config.primary
        if primary not in measured.closed:
            others = [m for m in config.measures if m not in measured.closed]
            return _object_bands(config, forests, table, others, rng, progress)
        errors = measured.closed[primary][3]  # resampled pools' errors about the pool's own curve
        if errors is None:
            return None
        if config.interval == "learners+objects":  # the bands stay the learners'; the interval also objects
            return _learner_object_curves(forests.pool, config.grid, primary, forests,
                                          table[primary].to_numpy(float), config.n_resamples, rng,
                                          progress.callback("bands (objects and learners)"))
        # the bands' resampled curves (ClosedFormResult.errors: curve + errors)
        return np.minimum(table[primary].to_numpy(float) + errors, 1.0)

    def covers(self, config):
        if config.primary not in config.closed:
            return _COVERS["objects"]
        return _COVERS["learners+objects" if config.interval == "learners+objects" else "closed_form"]


STRATEGIES = {"refit": _Refit(), "pool": _Pool(), "closed_form": _ClosedForm()}


# --------------------------------------------------------------------------- pool helpers


def _grouped_importances(tree_imp, n, n_forests, *, normalise):
    """Forest importances of disjoint groups of trees: the mean over a group's trees
    (ranger's permutation importance), renormalised to sum 1 for impurity importance as
    scikit-learn's ``feature_importances_`` does (its mean leaves out trees without a split)."""
    groups = tree_imp[:, : n * n_forests].reshape(tree_imp.shape[0], n_forests, n).mean(axis=2)
    if not normalise:
        return groups
    totals = groups.sum(axis=0, keepdims=True)
    return np.divide(groups, totals, out=np.zeros_like(groups), where=totals > 0)


def _pool_baseline(pool, config, rng):
    """psi's fixed baseline for the pool methods: the out-of-bag predictions of one forest of
    ``max(grid)`` learners -- the first ``max(grid)`` learners of the pool, or (a pool smaller
    than that) one forest of that size fitted for it -- as for ``method="refit"``."""
    size, n_max = pool.test_predictions_.shape[1], max(config.grid)
    if size >= n_max:
        return (pool.forests(n_max, n_forests=1, on="oob")[:, 0],
                f"out-of-bag predictions of one forest of {n_max} learners (the first {n_max} of the pool), "
                "the same for every n")
    seed = int(seeds_from(rng, 1)[0])
    _, space, _, _ = _refit_one(config, n_max, seed, config.X, True)
    return space, (f"out-of-bag predictions of one forest of {n_max} learners (fitted for the baseline: the "
                   f"pool has {size}), the same for every n")


def recommendation_spread(pool, config, baseline=None, progress=None):
    """The learners-only spread of the primary's unrounded recommendation: the standard deviation
    (``ddof=1``) of the recommendations of :data:`REC_RESAMPLES` resampled closed-form curves (the
    bands' ``curve + errors``, capped at 1) over their median; NaN when fewer than half of them
    give one (a flat or poorly fitted curve: nothing to make precise)."""
    primary = config.primary
    size = pool.test_predictions_.shape[1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PredstabWarning)
        res = pool.closed_form(config.grid, measure=primary, baseline=baseline, n_resamples=REC_RESAMPLES,
                               random_state=config.closed_rng(size),
                               progress=None if progress is None else progress.callback("pool size"))
        rule = Rule(config.rule, config.target, config.rec_thresh, "none")
        grid = np.asarray(config.grid, dtype=float)
        recs = []
        for curve in np.minimum(res.curve + res.errors, 1.0):
            if np.all(np.isfinite(curve)):
                _, unrounded, _ = apply_rule(fit_2pl(grid, curve), rule)
                if unrounded is not None and np.isfinite(unrounded):
                    recs.append(float(unrounded))
    if len(recs) < REC_RESAMPLES / 2 or np.median(recs) <= 0:
        return float("nan")
    return float(np.std(recs, ddof=1) / np.median(recs))


def _grown_for_recommendation(pool, config, baseline, progress):
    """The default closed-form pool, with learners added (at most three times, up to
    :data:`MAX_POOL`) until :func:`recommendation_spread` is at most :data:`REC_PRECISION`; the
    spread falls as 1 / sqrt(pool), so each step asks for 1.1 x pool x (spread / goal)^2."""
    if config.primary not in config.closed:
        return pool
    base = _closed_baselines(_Forests(values={}, baseline=baseline)).get(config.primary)
    for _ in range(3):
        spread = recommendation_spread(pool, config, base, progress)
        size = pool.test_predictions_.shape[1]
        if not spread > REC_PRECISION or size >= MAX_POOL:
            break
        needed = min(MAX_POOL, int(np.ceil(1.1 * size * (spread / REC_PRECISION) ** 2)))
        pool.extend(max(needed - size, 2), progress=progress)
    return pool


def _widest_band(pool, config, baselines, progress):
    """Largest half-width of the pool's 95% closed-form bands over measures and grid values."""
    bands = [pool.closed_form(config.grid, measure=m, baseline=baselines.get(m),
                              n_resamples=max(config.n_resamples, 100),
                              random_state=config.closed_rng(pool.test_predictions_.shape[1]),
                              progress=progress.callback(f"precision bands ({m})"))
             for m in config.closed]
    return max(float(np.nanmax((r.high - r.low) / 2)) for r in bands)
