"""Stability against the number of learners: :func:`tune_num_learners`.

The estimator-facing layer of the tuning area: it produces, for a grid of ensemble sizes,
the stability measures of refitted ensembles (by refitting, by aggregating a pool of
learners, or in closed form), fits optRF's 2PL curve to each measure (``_twopl``) and
turns the curves into recommendations. Everything ``predstab tune`` and ``predstab demo``
print and write is a field of :class:`TuningResult`; those commands compute nothing of
their own.

Layout: the arguments are checked once into a frozen configuration (``_tune_config``), handed
to one strategy per method (``_tune_strategies``: refit, pool, closed form) that delivers the
forests of every grid value; the measures of the registry are computed on them
(``_tune_table``), fitted and turned into recommendations (``_recommend``), and the primary
measure's resampled curves give the recommendation's interval (``_recommendation_interval``).
The measures are called with nested validation skipped: the configuration is checked once,
not at every grid point and resample.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from numbers import Integral, Real

from threadpoolctl import threadpool_limits

from .._core._exceptions import PredstabWarning, warn_outside
from .._core._progress import Steps
from .._core._utils import ConfidenceInterval, check_rng, seeds_from
from .._core._validation import Interval, Options, validate_params
from ._closed_form import shared_passes
from ._recommend import RULES, Rule, _fits_and_recommendations, _primary_message, _summary_frame
from ._recommendation_interval import _interval, flat_curve_note
from ._tune_config import (
    CLOSED_POOL_RULE,
    INTERVALS,
    METHODS,
    POOL_RULE,
    PSI_BASELINES,
    ROUNDING,
    _default_pool_size,
    _settings,
    _tune_num_learners_iv,
    of_members,
)
from ._tune_result import Recommendation, TuningResult, member_factor, members_wording, runtime_model
from ._tune_strategies import STRATEGIES
from ._tune_table import _measure_grid, _ordered, _point_notes, _stability_result

__all__ = ["tune_num_learners", "TuningResult", "Recommendation", "runtime_model"]


@validate_params({
    "grid": ["array-like", None],
    "n_repeats": [Interval(Integral, 2, None)],
    "measures": [str, "array-like", None],
    "method": [Options(METHODS), None],
    "selection": [Mapping, None],
    "importance": [Mapping, None],
    "psi_baseline": [Options(PSI_BASELINES)],
    "interval": [Options(INTERVALS)],
    "pool_size": [Interval(Integral, 2, None), None],
    "precision": [Interval(Real, 0, 1, closed="neither"), None],
    "voting": [Options(("soft", "hard")), None],
    "scale": [Options(("metric", "categorical", "ordinal")), None],
    "categories": ["array-like", None],
    "target": [Interval(Real, 0, 1, closed="neither")],
    "rec_thresh": [Interval(Real, 0, None, closed="neither")],
    "round_to": [Options(tuple(ROUNDING))],
    "rule": [Options(RULES), None],
    "n_resamples": [Interval(Integral, 0, None)],
    "confidence_level": [Interval(Real, 0, 1, closed="neither")],
    "random_state": ["random_state"],
    "n_jobs": [Integral, None],
    "progress": ["callable", Options((True,)), None],
}, renamed={"levels": "categories", "n_bootstrap": "n_resamples"}, prefer_skip_nested_validation=True)
def tune_num_learners(estimator, X=None, y=None, X_test=None, *, grid=None, n_repeats=10,
                      measures=None, method=None, pool_size=None, voting=None, scale=None, categories=None,
                      target=0.95, rec_thresh=1e-6, round_to="thousand", n_resamples=100,
                      confidence_level=0.95, random_state=None, n_jobs=None, progress=None,
                      psi_baseline="fixed", precision=None, selection=None, importance=None,
                      interval="learners+objects", rule=None):
    """How many learners does a bagging ensemble need for stable predictions? (optRF, faster)

    For each number of learners ``n`` in ``grid`` the stability of ``n_repeats`` ensembles
    of ``n`` learners is measured, optRF's 2PL curve
    :math:`s(n) = 1 / (1 + (p_1 / n)^{p_2})` is fitted to each measure
    (:func:`predstab.fit_2pl`) and the number of learners is recommended, for every
    measure, by optRF 1.2.1's rule and for a target stability.

    Parameters
    ----------
    estimator : scikit-learn bagging-type ensemble or fitted TreePool
        ``RandomForest*``, ``ExtraTrees*`` or ``Bagging*`` (of any base learner); ``n_estimators``
        and ``random_state`` are set per fit. ranger's defaults (what optRF fits) are close to
        ``RandomForestRegressor(max_features="sqrt", min_samples_split=5)`` and
        ``RandomForestClassifier(max_features="sqrt")``. Or a fitted :class:`TreePool` -- e.g.
        :meth:`TreePool.from_predictions` of any ensemble's members (a deep ensemble's networks,
        a saved objects x members matrix), :meth:`TreePool.from_members`,
        :meth:`TreePool.from_fit_predict` -- whose members are the learners: then ``X``, ``y``,
        ``X_test``, ``pool_size`` and ``precision`` are omitted, ``method`` is "closed_form" or
        "pool", ``voting`` is the pool's, phi needs the pool's ``y`` and psi its ``oob``
        (the default measures are those it has), and nothing is fitted (``runtime`` is NaN for
        a pool built from predictions). A pool built from members is recommended by ``rule``
        "target" unless told otherwise: the smallest number of members reaching ``target``
        (optRF's rule, made for cheap trees, floors its recommendation at 500).
    X : array-like of shape (n_train, n_features)
        Required with an estimator.
    y : array-like of shape (n_train,)
        Required with an estimator.
    X_test : array-like of shape (n_test, n_features), optional
        Objects whose predictions are compared. Without it the training rows are predicted
        out of bag (optRF's behaviour).
    grid : sequence of int, optional
        Numbers of learners (optRF's ``num.trees_values``); at least 3. Default (250, 500, 750,
        1000, 2000) for an estimator, optRF's (``predstab tune`` on the command line defaults to
        the smaller 50, 100, 200, 400 for a first look; ``--grid`` sets it); for a fitted pool up
        to a quarter of its members (at least 3), about evenly spaced on a log scale from 1 (1,
        2, 5, 11, 23, 52, 114, 250 for 1,000 members).
    n_repeats : int, default 10
        Ensembles per grid value (optRF's ``number_repetitions``).
    measures : sequence of str, optional
        Names of the registry (``predstab.stability.measure_names("tune")``): among "icc"
        (regression) / "fleiss" (classification) -- prediction stability as
        optRF computes it (``irr::icc`` one-way single, ``irr::kappam.fleiss``); "phi",
        "psi" (APS); "selection" (optRF's selection stability); "importance",
        "importance_selection" (optRF ``opt_importance``: ICC of the variable importances and
        Fleiss' kappa of the top ``importance_fraction`` of variables). Default: the
        prediction measure, "phi", "psi" and, for a regressor (except with "closed_form"),
        "selection"; a classifier leaves selection out, because with two classes the
        selection of the positive class is the label itself and its stability is the Fleiss'
        kappa column again (give ``measures=`` to have it). The
        first one is ``primary``. A measure that cannot be computed at some ``n`` is NaN
        there (``notes`` says why); it never stops the run.
    method : {"pool", "refit", "closed_form"}, optional
        Default "pool"; for a fitted TreePool whose members cannot hold 2 disjoint groups of
        the default grid's largest value (e.g. 5 networks), "closed_form" (as ``predstab tune
        --predictions``), since no grid of 3 sizes fits such a pool for "pool".
        "refit": ``n_repeats`` new ensembles per grid value (what optRF does).
        "pool": one pool of ``pool_size`` learners; the ensembles of ``n`` learners are
        disjoint groups of it (exactly distributed as refits, see :class:`TreePool`); when
        the pool holds fewer than ``n_repeats`` groups of ``n``, fewer forests are used
        (``n_forests``; a warning when ``pool_size`` was given). "closed_form": icc / fleiss
        / phi / psi (the measures of the registry with a closed form) from a pool
        (:meth:`TreePool.closed_form`) with bootstrap
        bands; the other measures from the pool's groups.
    pool_size : int, optional
        Learners in the pool. Default (the same rule as ``predstab tune``): ``n_repeats *
        max(grid)`` for "pool", so every grid value gets its ``n_repeats`` disjoint forests. For
        "closed_form" (no disjoint forests needed) what the result needs: 1000 learners, for a
        classifier at least ``10 * max(grid)`` (near tied votes the class closed forms'
        learners-only bands cover 0.85 at half the pool, 0.920 at a quarter and 0.935 or more up
        to a tenth of it, docs/benchmarks/coverage-tuning.md; a smaller ``pool_size`` given
        explicitly warns), then grown (at most three times) until the learners-only standard
        deviation of the unrounded recommendation over 100 resampled pools is at most 10 % of
        it -- about the run-to-run precision of optRF's own refits on its regression example
        (docs/benchmarks/tuning.md).
        ``settings["pool_size"]`` and the printed result say which rule gave the pool. The metric
        closed form's sampling error shrinks as 1 / sqrt(pool_size): on optRF's SNP data a
        pool of 1,000 trees gives ICC(1) at 250 trees to +-0.034 (one standard deviation;
        see ``bands``).
    voting : {"soft", "hard"}, optional
        Classifier aggregation; default "hard" (ranger's majority vote, as optRF).
    scale : {"metric", "categorical", "ordinal"}, optional
        Scale of phi and psi: "metric" for a regressor, "categorical" (default) or "ordinal"
        (with ``categories``) for a classifier. Fleiss' kappa and selection treat classes as
        nominal whatever the scale (optRF's measure).
    categories : sequence, optional
        The ordered categories for ``scale="ordinal"`` (renamed from ``levels`` in 0.2.0).
    target : float, default 0.95
        Stability for ``n_for_target`` (and the recommendation of ``rule="target"``).
    rec_thresh, round_to :
        optRF's rule, as in :meth:`TwoPL.recommend` (floor 500 learners); ``rule="optRF"`` only.
    n_resamples : int, default 100
        Bootstrap resamples for the recommendation's confidence interval and the curves'
        bands (``<measure>_low`` / ``_high`` in ``table``). "refit" / "pool": the test
        objects are resampled (the forests held fixed). "closed_form": the bands resample
        the learners of the pool, so they reflect only the pool's finite number of
        learners; the recommendation's interval resamples what ``interval`` says. 0: none.
    confidence_level : float, default 0.95
        Of the bands and the recommendation's interval.
    random_state : None, int or numpy.random.Generator
        Everything random: the pool's seed, the refits' seeds, the baselines' folds, the closed
        forms' orderings and resamples (bands and interval). For a given :class:`TreePool` the
        closed forms' generator derives from ``random_state`` (None: from the pool's own seed),
        so one ``random_state`` gives the same numbers every time and different ones differ.
    n_jobs : int or None
        Passed to the ensemble's ``n_jobs`` for fitting (the K-fold baseline of psi runs its
        folds in parallel instead); the pool methods also predict in ``n_jobs`` threads over the
        trees and compute the closed forms, bands and interval in threads over blocks of test
        objects, summed in block order. Refit forests predict in one thread, and BLAS runs in
        one thread throughout (OpenBLAS's float32 products differ in the last bits with its
        thread count), so the tables are bit-identical for every ``n_jobs``.
    progress : True or callable, optional
        True: a progress bar on stderr, one line per step. A callable is called as
        ``progress(done, total)`` -- and, when it takes a keyword ``step``, as
        ``progress(done, total, step=...)`` with the step's name -- as each long step
        advances, ``done`` counting up to ``total`` within the step and starting again at
        the next: "fitting forests" (refit: after each ensemble, which is also predicted);
        "fitting the pool" (the pool's learners as they grow, ``total = pool_size``, in up to
        20 steps; see :meth:`TreePool.fit`) and "predicting" (the learners' predictions
        cached, in chunks of learners; ``total`` is the learners times the passes over
        training and test rows); the closed forms and their bands, per measure (the test
        objects or the resampled pools done); "bootstrap bands" (refit / pool: per resample
        of the test objects); "bands (objects and learners)" (closed form, per resample);
        "recommendation interval" (per resampled curve refitted). The results are the same
        with and without it.
    psi_baseline : {"fixed", "kfold", "per_forest"}, default "fixed"
        psi's prediction space. "fixed": the out-of-bag predictions of one forest of
        ``max(grid)`` learners, the same for every grid value and every method (refit: the
        first refit at ``max(grid)``; pool and closed form: the first ``max(grid)`` learners
        of the pool, or a forest of that size fitted for it when the pool is smaller);
        ``psi_baseline`` of the result says which.
        "kfold": 5-fold out-of-fold predictions of one forest of ``max(grid)`` learners
        (also fixed; works without bootstrapping, costs 5 extra fits).
        "per_forest": each ensemble's own out-of-bag predictions, as APS computes psi for a
        single forest size -- but then the baseline moves with ``n``: the out-of-bag
        predictions of a small forest are noisy, its D_e shrinks as learners are added and
        psi is not monotone in ``n`` (ranger on APS's maize yield: 0.68, 0.69, 0.73, 0.72,
        0.72, 0.78, 0.83, 0.90 for 5 ... 1000 trees; its 2PL fit is meaningless). The fixed
        baseline keeps D_e constant, so psi follows the same 2PL law as the other measures.
    interval : {"learners+objects", "learners"}, default "learners+objects"
        "closed_form" only: what the recommendation's interval resamples (recorded in
        ``interval_covers``). "learners+objects": in each resample the test objects (the
        rows of the pool's per-learner predictions) and the pool's learners are drawn with
        replacement, the closed-form curve of that pool is computed (its error against the
        bootstrap world's exact value moved onto the pool's curve: for metric predictions on
        the logit scale, where the 2PL is a line in log n; for classes on sqrt(1 - stability),
        the scale of a count of near-tied objects), the 2PL refitted and optRF's
        recommendation taken; the percentile interval of those covers the test objects'
        sampling as the pool method's does (measured 0.985 for a regression forest, 0.939-0.945
        for three classifiers), except where the curve is already 0.99 at the largest grid
        value: its recommendation then rests on rare near-tied objects the test set may lack
        (0.68 measured for an imbalanced classifier; ``interval_covers`` says so;
        docs/benchmarks/coverage-tuning.md).
        "learners": the learners only (the bands'
        resamples): the error of the pool's finite size alone -- another closed-form run on
        the same objects falls inside it, a refit run on other objects often does not.
        The refit and pool methods always resample the test objects.
    precision : float, optional
        "closed_form" only: the widest 95% band to accept, as a half-width (e.g. 0.02 for
        +-0.02). The pool's bands are measured (100 resamples at least) and, where any
        closed-form measure's band is wider at some grid value, learners are added to the pool
        (:meth:`TreePool.extend`) as the 1 / sqrt(pool) law asks (10% more; checked again, up
        to three enlargements and 100,000 learners, with a warning when that is not enough).
        On optRF's SNP data +-0.02 took 13,478 trees (38 s, one thread).
    selection : dict, optional
        Options of selection stability (rarely changed; optRF's ``opt_prediction``):

        - ``"fraction"``: optRF's ``alpha``; default 0.15 (one object when 15% of the
          objects round to none).
        - ``"select_for"``: {"high", "low", "zero"} or class label(s); optRF's
          ``select_for``. Default "high" for a regressor (optRF's default); for a classifier
          the last of its sorted classes (scikit-learn's positive class of a binary problem),
          so that the default measures work whatever the labels are.

        E.g. ``selection={"fraction": 0.1, "select_for": "low"}``.
    importance : dict, optional
        Options of the importance measures (rarely changed; optRF's ``opt_importance``):

        - ``"fraction"``: optRF ``opt_importance``'s ``alpha``; default 0.05 (one variable
          when 5% of the variables round to none, e.g. for 10 variables).
        - ``"kind"``: {"permutation", "impurity"}, default "permutation" (optRF's
          ``importance``): "permutation" is ranger's out-of-bag permutation importance,
          tree by tree (RandomForest* / ExtraTrees* with bootstrap); "impurity" is
          scikit-learn's ``feature_importances_``.

        E.g. ``importance={"kind": "impurity", "fraction": 0.2}``.
    rule : {"optRF", "target"}, optional
        How the fitted curve becomes the recommendation. "optRF" (the default for an
        estimator, and for a TreePool fitted from one): optRF 1.2.1's rule, the first n whose
        fitted gain per added learner is below ``rec_thresh``, rounded as ``round_to`` says, at
        least 500 -- made for trees, which cost little each. "target" (the default for a
        pool built from its members, ``TreePool.from_predictions`` / ``from_members`` /
        ``from_fit_predict``: networks, MCMC runs, any member that costs a training run): the
        smallest whole n whose fitted stability reaches ``target``, at least 1, not rounded.
        The recommendation's interval applies the same rule to every resampled curve.

    Returns
    -------
    TuningResult
        ``.table``, ``.fits``, ``.recommendations``, ``.summary``, ``.recommendation``,
        ``.reliable``, ``.message``, ``.n_for_target``, ``.confidence_interval``,
        ``.unrounded_interval``, ``.runtime``, ``.seconds_for(n)``, ``.bands``,
        ``.psi_baseline``, ``.largest_phi``, ``.largest_psi``, ``.notes``, ``.settings``.

    Warns
    -----
    PredstabWarning
        When the primary curve's fit failed, is poor or has not flattened within the grid
        (not when the curve is already flat at the target).
    PredstabDataWarning
        When a pool of the given ``pool_size`` holds fewer than ``n_repeats`` disjoint
        forests of some grid value.

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
    ...                         pool_size=160, n_resamples=0, random_state=0)
    >>> list(res.table.columns)
    ['n_learners', 'icc', 'degenerate', 'seconds', 'n_forests']
    >>> res.recommendation >= 500
    True
    """
    config = _tune_num_learners_iv(dict(locals()))  # every argument, by name
    rng = check_rng(random_state)
    if config.pool is not None and random_state is not None:
        # a given pool's closed forms follow `random_state`, not the pool's own seed (issue 34, item 9)
        config = dataclasses.replace(config, closed_seed=int(seeds_from(rng, 1)[0]))
    progress = Steps(progress)
    strategy = STRATEGIES[config.method]
    # BLAS in one thread: the threads are predstab's own (over blocks of test objects, summed in
    # block order), and OpenBLAS's float32 products differ in the last bits with its thread count,
    # so the numbers would depend on the machine's BLAS threads (issue 37, item 6)
    with threadpool_limits(limits=1, user_api="blas"):
        return _tuned(config, strategy, rng, progress)


def _tuned(config, strategy, rng, progress):
    """The body of :func:`tune_num_learners` after its checks."""
    forests = strategy.forests(config, rng, progress)
    with shared_passes():  # the measures' closed forms and the interval read the pool once (issue 37, item 6)
        measured = _measure_grid(config, forests, *strategy.closed_columns(config, forests, progress))
        return _tuned_summary(config, strategy, forests, measured, (rng, progress))


def _tuned_summary(config, strategy, forests, measured, randomness):
    """The settings and the TuningResult of :func:`_tuned` (``randomness``: generator, progress)."""
    rng, progress = randomness
    settings = _settings(config)
    if config.pool is not None:  # a fitted forest's pool is told in learners, a pool of members in members
        unit = "members" if of_members(config.pool) else "learners"
        settings["pool_size"] = f"the {unit} of the given TreePool"
    elif forests.pool_size is not None:
        default = _default_pool_size(config.grid, config.n_repeats, config.method, config.is_classifier)
        closed_default = config.method == "closed_form" and config.precision is None
        rule = ((CLOSED_POOL_RULE if closed_default else POOL_RULE) if forests.pool_size == default
                else "enlarged for `precision`" if config.precision is not None
                else CLOSED_POOL_RULE.replace(" (the default)", f" (the default; from {default})"))
        settings["pool_size"] = "given" if config.explicit_pool else rule
    res = _summarise(config, strategy, forests, measured, (rng, progress), settings)
    progress.close()  # the bar of progress=True ends its line
    return res


def _covers(config, strategy, table, interval):
    """``interval_covers``: what the interval resampled, and whether a flat curve defeats it."""
    covers = strategy.covers(config)
    if config.method == "closed_form" and config.interval == "learners+objects" and config.rule == "optRF":
        covers += flat_curve_note(table[config.primary].to_numpy(float), config.grid, interval)
    return members_wording(covers) if of_members(config.pool) else covers  # members: no forest figures


def _summarise(config, strategy, forests, measured, randomness, settings):
    """The TuningResult: fits and recommendations, bands, the primary's interval, run time
    (``randomness``: the generator and the progress steps of the run)."""
    rng, progress = randomness
    table, measures, grid, primary = measured.table, config.measures, config.grid, config.primary
    how = Rule(config.rule, config.target, config.rec_thresh, config.round_to)
    fits, recs = _fits_and_recommendations(table, measures, how, measured.floored)
    if of_members(config.pool):  # the text counts members, not learners
        recs = {m: dataclasses.replace(r, unit="members") for m, r in recs.items()}
    fit, rec = fits[primary], recs[primary]
    recommendation = rec.value if rec.rule == "already stable" or not fit.poor_fit else None
    excluded = [int(g) for g, d in zip(grid, table["degenerate"], strict=True) if primary in d.split(",")]
    problems, message = _primary_message(primary, fit, rec, list(grid), excluded, measured.floored)
    if of_members(config.pool):
        size = config.pool.test_predictions_.shape[1]
        factor = member_factor(config.method, config.is_classifier)
        message = members_wording(message, size, factor)
        recs = {m: dataclasses.replace(r, note=members_wording(r.note, size, factor))
                for m, r in recs.items()}
        rec = recs[primary]
    if problems:
        warn_outside(message, PredstabWarning)
    resampled = None
    if config.n_resamples:
        resampled = strategy.primary_resamples(config, forests, measured, rng, progress)
    interval = unrounded = ConfidenceInterval(float("nan"), float("nan"))
    if resampled is not None and rec.rule in RULES and recommendation is not None:
        interval, unrounded = _interval(resampled, list(grid), how,
                                        config.n_resamples, config.confidence_level,
                                        progress.callback("recommendation interval"))
    table = _ordered(table, measures)
    largest = forests.values.get(max(grid))
    return TuningResult(
        table=table, fits=fits, recommendations=recs, summary=_summary_frame(fits, recs), primary=primary,
        recommendation=recommendation, reliable=not problems, message=message, target=config.target,
        n_for_target=rec.n_for_target, confidence_interval=interval, unrounded_interval=unrounded,
        interval_covers=_covers(config, strategy, table, interval), confidence_level=config.confidence_level,
        runtime=runtime_model(table["n_learners"], table["seconds"]), method=config.method,
        pool_size=forests.pool_size, psi_baseline=forests.baseline_text if config.reads_space else "",
        largest_phi=_stability_result("phi", largest, config, forests),
        largest_psi=_stability_result("psi", largest, config, forests),
        notes=(*forests.notes, *_point_notes(measured)), settings=settings,
    )
