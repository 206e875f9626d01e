"""Data and independent computations shared by the tuning tests (tests/ensembles/test_tune_*.py):
forests refitted with the seeds tune_num_learners draws, the pool's groups of trees, optRF's rule
on fitted curves, the recommendation interval by hand, a fake clock.
"""

import warnings

import numpy as np
from sklearn.datasets import make_classification, make_regression
from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor

import predstab.ensembles._tune_config as config_module
from predstab import (
    PredstabWarning,
    TreePool,
    fit_2pl,
    tune_num_learners,
)
from tests.ensembles._forests import refit_forests

# tiny data of most tests: 30 training rows, 10 test rows, grids of 2-8 trees, 3 forests
X, Y = make_regression(40, 4, noise=20, random_state=1)
XTR, YTR, XTE = X[:30], Y[:30], X[30:]
EST = RandomForestRegressor(max_features=2, min_samples_leaf=3)
GRID = (2, 4, 8)
ESTIMATOR_TEXT = ("RandomForestRegressor(max_features=2, min_samples_leaf=3, max_samples=None, "
                  "bootstrap=True, "
                  "max_depth=None, criterion='squared_error')")
XC, YC = make_classification(40, 4, n_informative=2, n_redundant=0, random_state=0)
CLF = RandomForestClassifier(max_features=2)
LABELS = np.where(YC == 1, "yes", "no").astype(object)
# a small data set with a longer grid: 50 training rows, 20 test rows, 4-32 trees
X70, Y70 = make_regression(70, 6, noise=25, random_state=0)
XTR50, YTR50, XTE20 = X70[:50], Y70[:50], X70[50:]
GRID32 = (4, 8, 16, 32)
# a rare class (5 %) predicted by few small forests: Fleiss' kappa degenerate at small n, psi's
# out-of-bag baseline without the rare class (issue 16; the `rare` fixture of conftest.py)
RARE_X, RARE_Y = make_classification(700, 10, n_informative=3, weights=[0.95], flip_y=0.05, class_sep=0.5,
                                     random_state=3)
RARE_EST = RandomForestClassifier(max_features="sqrt", min_samples_leaf=3)
RARE_GRID = (5, 10, 25, 50, 100, 250)


def order_interval(values, level):
    """The recommendation interval by hand: the k-th smallest and k-th largest of the B values,
    k = floor((B + 1) (1 - level) / 2), at least 1."""
    ranked = sorted(values)
    k = max(int(np.floor((len(ranked) + 1) * (1 - level) / 2)), 1)
    return (ranked[k - 1], ranked[len(ranked) - k])


def _quiet50(**kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PredstabWarning)
        args = {"X_test": XTE20} | kwargs
        return tune_num_learners(EST, XTR50, YTR50, grid=GRID32, n_repeats=3, n_resamples=0, random_state=0,
                                 **args)


def _forest_importance(trees):
    """scikit-learn's ``feature_importances_`` of a forest: the mean over trees with a split,
    renormalised to sum 1."""
    split = [t.feature_importances_ for t in trees if t.tree_.node_count > 1]
    mean = np.mean(split, axis=0)
    return mean / mean.sum()


def _tune(**kwargs):
    args = {"grid": GRID, "n_repeats": 3, "n_resamples": 0, "random_state": 0} | kwargs
    X_test = args.pop("X_test", XTE)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PredstabWarning)
        return tune_num_learners(args.pop("estimator", EST), args.pop("X", XTR), args.pop("y", YTR), X_test,
                                 **args)


def _refits(grid=GRID, n_repeats=3, estimator=EST, X=XTR, y=YTR, seed=0):
    """The forests of method="refit" and their seeds, as tune_num_learners draws them."""
    return refit_forests(estimator, grid, n_repeats, X, y, seed)


def _optrf_recommendations(curves, grid=GRID, **rule):
    """optRF's rule on each resampled curve (warnings of flat fits silenced): the rounded
    recommendations and, for the same curves, the unrounded ones."""
    rounded, raw = [], []
    for curve in curves:
        fit = fit_2pl(grid, curve)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PredstabWarning)
            rec = fit.recommend(**rule)
        if rec is not None:
            rounded.append(rec)
            raw.append(fit.recommend(**{**rule, "round_to": "none"}, minimum=0))
    return rounded, raw


def _groups(pool, n, k):
    trees = list(zip(pool.ensemble_.estimators_, pool.ensemble_.estimators_samples_, strict=True))
    return [trees[j * n:(j + 1) * n] for j in range(k)]


def _group_predictions(pool, n, k, X):
    return np.column_stack([np.mean([t.predict(X) for t, _ in g], axis=0) for g in _groups(pool, n, k)])


class _Clock:
    """A fake ``perf_counter``: each call advances by the next of ``steps`` (cycled)."""

    def __init__(self, steps):
        self.steps, self.now, self.calls = list(steps), 100.0, 0

    def __call__(self):
        self.now += self.steps[self.calls % len(self.steps)]
        self.calls += 1
        return self.now


def _flat_from(n, values, target):
    """The smallest grid value from which the observed values stay at or above ``target``."""
    ok = [bool(np.isfinite(v) and v >= target) for v in values]
    if not ok or not ok[-1]:
        return None
    first = len(ok) - 1
    while first > 0 and ok[first - 1]:
        first -= 1
    return int(n[first])


def _na(value):
    return np.nan if value is None else value  # None in a DataFrame column of numbers


def _assert_fits_and_recommendations(res, measures, *, target=0.95, rec_thresh=1e-6, round_to="thousand"):
    """Each measure's fit is fit_2pl on its table column, its recommendation TwoPL.recommend."""
    n = res.table["n_learners"].to_numpy(float)
    for m in measures:
        values = res.table[m].to_numpy(float)
        fit = fit_2pl(n, values)
        got = res.fits[m]
        np.testing.assert_equal((got.p1, got.p2, got.r_squared, got.converged, got.poor_fit, got.flattened),
                                (fit.p1, fit.p2, fit.r_squared, fit.converged, fit.poor_fit, fit.flattened))
        np.testing.assert_array_equal(got.n, n)
        rec = res.recommendations[m]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PredstabWarning)
            value = fit.recommend(rec_thresh=rec_thresh, round_to=round_to)
            unrounded = fit.recommend(rec_thresh=rec_thresh, round_to="none", minimum=0)
        n_t = fit.num_learners_for(target) if fit.converged and not fit.poor_fit else None  # trusted fits
        rule = "optRF" if value is not None else "none"
        flat = _flat_from(n, values, target) if not fit.converged or fit.poor_fit else None
        if flat is not None:
            value, unrounded, rule, n_t = flat, None, "already stable", flat
        assert rec.measure == m and rec.value == value and rec.unrounded == unrounded and rec.rule == rule
        assert (rec.rec_thresh, rec.round_to, rec.minimum, rec.target, rec.grid_max) == (
            rec_thresh, round_to, 500, target, int(n.max()))
        assert rec.n_for_target == n_t
        assert rec.beyond_grid == (value is not None and value > n.max())
        expected = float(fit.stability(value)) if value is not None and fit.converged else np.nan
        np.testing.assert_allclose(rec.expected_stability, expected, rtol=1e-12)
        row = res.summary.loc[m]
        np.testing.assert_equal(
            (row["p1"], row["p2"], row["r_squared"], row["poor_fit"], row["flattened"], row["recommended"],
             row["rule"], row["unrounded"], row["n_for_target"], row["beyond_grid"], row["suggested_max"],
             row["note"]),
            (fit.p1, fit.p2, fit.r_squared, fit.poor_fit, fit.flattened, _na(value), rule, _na(unrounded),
             _na(n_t), rec.beyond_grid, fit.suggested_max, rec.note))


def _defaults(estimator, y, X_test=XTE, **kwargs):
    """What the validation fills in: (measures, pool_size, voting, select_for, select_fraction)."""
    config = _config(estimator, XC[:30] if estimator is CLF else XTR, y, X_test, **kwargs)
    return (config.measures, config.pool_size, config.voting, config.select_for, config.select_fraction,
            config.explicit_pool, config.is_classifier)


def _config(estimator, X, y, X_test, **kwargs):
    """The frozen configuration the validation builds from a call's arguments."""
    args = dict(estimator=estimator, X=X, y=y, X_test=X_test, grid=(2, 3, 4), n_repeats=3, measures=None,
                method="pool", selection=None, importance=None, psi_baseline="fixed", pool_size=None,
                voting=None, target=0.95, n_resamples=0, progress=None, precision=None, scale=None,
                categories=None, confidence_level=0.95, rec_thresh=1e-6, round_to="thousand", n_jobs=None,
                random_state=None, interval="learners+objects", rule=None) | kwargs
    return config_module._tune_num_learners_iv(args)


def member_pool(seed):
    """A pool of 24 members' predictions of 30 objects, with out-of-bag rows and observations."""
    rng = np.random.default_rng(seed)
    truth = rng.normal(size=(30, 1))
    test = truth + 0.5 * rng.normal(size=(30, 24))
    train = rng.normal(size=(40, 1)) + 0.5 * rng.normal(size=(40, 24))
    oob = rng.random((40, 24)) < 0.4
    return TreePool.from_predictions(test, oob=oob, oob_predictions=train, y=train.mean(axis=1))
