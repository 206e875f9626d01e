"""The interval of the recommended number of learners: resampled curves refitted, and the
order statistics of their recommendations (moved here as one block from ``_tune``; the
intervals work of issue 21 owns these functions)."""

from __future__ import annotations

import warnings

import numpy as np
from scipy.special import expit, logit

from .._core._utils import ConfidenceInterval
from ._closed_form import _block_rows, _orderings, closed_form_stats, curve_from_stats, metric_moments
from ._members import closed_form_units
from ._recommend import apply_rule
from ._tune_table import _closed_baselines
from ._twopl import fit_2pl

# at or above this stability at the largest grid value the learners+objects interval is not trusted
FLAT_END = 0.99
LEARNER_OBJECT_COVERS = (
    "test objects and the pool's learners resampled together: the sampling of the test objects and the "
    "error from the pool's finite number of learners (interval=\"learners+objects\"; the bands resample the "
    "learners only). Measured coverage of optRF's recommendation (new objects, new learners; 200 pools "
    "each): 0.985 for a regression forest; 0.939-0.945 for classifiers (3 classes, balanced, label noise) "
    f"where the curve stays below {FLAT_END} within the grid; where it reaches {FLAT_END} not a 95 % "
    "interval (0.68 for an imbalanced classifier, on the logit scale classes used before) "
    "(docs/benchmarks/coverage-tuning.md)")


def _learner_object_draws(rng, n_bootstrap, n_objects, n_learners):
    """``(rows, cols)``: per resample, test objects and learners drawn with replacement
    (``rows``: n_bootstrap x n_objects, then ``cols``: n_bootstrap x n_learners, both from
    ``rng`` in that order, before anything else draws from it)."""
    rows = rng.integers(0, n_objects, (int(n_bootstrap), n_objects))
    cols = rng.integers(0, n_learners, (int(n_bootstrap), n_learners))
    return rows, cols


def _learner_object_curves(pool, grid, measure, spec, curve, n_bootstrap, rng, progress=None):
    """``(n_bootstrap, len(grid))`` closed-form curves with test objects and learners resampled.

    Each resample is the pool's per-learner predictions at resampled rows (test objects, or
    the training rows out of bag) and resampled columns (learners), drawn by
    :func:`_learner_object_draws`. The interval is pivotal: the resample's closed form against
    the exact value of the same estimator in the bootstrap world (the pool and its objects as
    the population) is the error, moved onto the pool's curve (:func:`_pivot`: on the logit
    scale for metric predictions, on the square root of ``1 - S`` for classes); phi's / psi's
    D_e stays fixed (their baselines are not the test objects), as in the object bootstrap of
    the pool method.
    """
    cluster = pool.test_predictions_
    if hasattr(cluster, "learner_object_curves"):  # on a cluster: one pass, the same draws (_distributed)
        return cluster.learner_object_curves(pool, grid, measure, spec, curve, n_bootstrap, rng)
    preds, shift = closed_form_units(pool)  # extreme magnitudes in exact power-of-four units
    mask = pool.oob_ if pool.on_train_ else None
    classifier, voting = pool.is_classifier_, pool.voting_
    d_e = pool._closed_form_expected(measure, _closed_baselines(spec).get(measure), voting, shift)
    n = np.asarray(grid, dtype=float)
    rows, cols = _learner_object_draws(rng, n_bootstrap, preds.shape[0], preds.shape[1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # degenerate resamples are NaN or 1 by the convention
        truth = curve_from_stats(closed_form_stats(preds, mask, n, classifier=classifier, voting=voting,
                                                   rng=rng, population=True), n, measure, d_e)
        n_perm = max(5, _orderings(preds.shape[0]) // 8) if classifier else None
        out = np.empty((int(n_bootstrap), len(n)))
        fast = (None if classifier or mask is not None
                else _resampled_metric_stats(preds, rows, cols, n, n_jobs=getattr(pool, "n_jobs", None)))
        for b in range(int(n_bootstrap)):
            if fast is not None:
                stats = fast[b]
            else:
                here = preds[rows[b]][:, cols[b]]
                here_mask = None if mask is None else mask[rows[b]][:, cols[b]]
                stats = closed_form_stats(here, here_mask, n, classifier=classifier, voting=voting, rng=rng,
                                          n_perm=n_perm)
            out[b] = _pivot(curve, curve_from_stats(stats, n, measure, d_e), truth, classifier)
            if progress is not None:
                progress(b + 1, int(n_bootstrap))
    return out


def _pivot(curve, resampled, truth, classifier):
    """The pivot of :func:`_learner_object_curves`: :func:`_class_pivot` for classes,
    :func:`_logit_pivot` for metric predictions."""
    return _class_pivot(curve, resampled, truth) if classifier else _logit_pivot(curve, resampled, truth)


def _class_pivot(curve, resampled, truth):
    """``curve`` moved by the error ``resampled - truth`` on the scale ``sqrt(1 - S)``.

    Target: optRF's recommendation on the stability curve of forests of n trees over the
    population the test objects were drawn from. For classes ``1 - S`` is (up to Fleiss'
    nearly constant ``D_e``) the mean disagreement of the test objects, and where the curve
    nears 1 it is carried by the few objects whose votes are near a tie: about a count. The
    assumption is that the error of ``sqrt(1 - S)`` (a count's variance-stabilising scale) of a
    resampled pool against the bootstrap world's exact curve is distributed as the pool's
    error against the truth. The logit scale used before (there a log of ``1 - S``) mirrored it
    the wrong way: a test set with more near-tied votes than the population resamples to much
    smaller counts, which the log turns into much larger ones, so its interval lay above the
    truth (3-class forests covered 0.909 +- 0.020, now 0.939 +- 0.017; balanced 0.945 and label
    noise 0.940, 200 replications each; docs/benchmarks/coverage-tuning.md). Where
    the assumption fails -- the curve reaches 0.99 within the grid, the test objects may hold
    no near-tied vote at all -- ``interval_covers`` says "not a 95 % interval"
    (:func:`flat_curve_note`). The scale is 0 at 1, so every stability <= 1 has a value (one
    rounded above 1 counts as 1); a resample that would move the curve beyond 1 gives 1."""
    curve, resampled, truth = (np.asarray(v, dtype=float) for v in (curve, resampled, truth))
    root = [np.sqrt(np.maximum(1.0 - v, 0.0)) for v in (curve, resampled, truth)]  # 1 + 2e-16 is 1
    return 1.0 - np.square(np.maximum(root[0] - (root[1] - root[2]), 0.0))


def _logit_pivot(curve, resampled, truth):
    """``curve`` moved by the error ``resampled - truth`` on the logit scale, where the 2PL curve
    ``1 / (1 + (p1 / n)^p2)`` is a line in ``log n`` (``logit S = p2 (log n - log p1)``): the
    error of a variance ratio such as ICC's ``p1 = W / B`` is about pivotal there, while on the
    stability scale its sign is skewed (the additive pivot used before covered the
    recommendation of a regression forest 0.875 of the time, docs/benchmarks/coverage-tuning.md).
    Where one of the three is outside (0, 1) (a negative or perfect stability), the additive
    pivot, capped at 1."""
    curve, resampled, truth = (np.asarray(v, dtype=float) for v in (curve, resampled, truth))
    inside = (curve > 0) & (curve < 1) & (resampled > 0) & (resampled < 1) & (truth > 0) & (truth < 1)
    additive = np.minimum(curve - (resampled - truth), 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        moved = expit(logit(curve) - (logit(resampled) - logit(truth)))
    return np.where(inside, moved, additive)


def flat_curve_note(curve, grid, interval):
    """The sentence ``interval_covers`` ends with when there is an ``interval`` and the curve
    reaches :data:`FLAT_END` at the largest grid value (else ""): its recommendation is set by
    rare objects whose votes are near a tie, which a sample of test objects may lack and no
    resampling of them makes up, so the learners+objects interval then falls short of the truth
    (0.68 coverage measured)."""
    end = float(np.asarray(curve, dtype=float)[-1])
    if not (end >= FLAT_END and np.isfinite(interval.low)):
        return ""
    return (f"; here the curve is already {end:.3f} at {int(max(grid))} learners: its recommendation rests "
            "on the few objects whose votes are near a tie, which these test objects may lack, so the "
            "interval is likely too low -- not a 95 % interval")


def _resampled_metric_stats(preds, rows, cols, n, n_jobs=None):
    """The closed-form statistics of ``preds[rows[b]][:, cols[b]]`` for every resample ``b``
    (metric test predictions) without copying the pool: a resampled pool holds learner ``j``
    ``w_bj`` times, so each object's resampled mean and variance follow from one product of
    the deviations from its pool mean with the counts, and a resampled set of objects weighs
    object ``i`` by its count ``r_bi`` (the blocks of objects of the closed form's own pass,
    :func:`~._closed_form._block_rows`, whose float32 products a cluster repeats chunk by chunk).
    ``n_jobs``: threads over the blocks (numpy and BLAS release the GIL); their sums are added
    in block order, so the numbers do not depend on it."""
    from concurrent.futures import ThreadPoolExecutor

    from joblib import effective_n_jobs

    n_obj, size = preds.shape
    n_boot = len(rows)
    weights = learner_counts(cols, size)
    r = np.empty((n_obj, n_boot))  # objects x resamples, filled a resample at a time
    for b, drawn in enumerate(rows):
        r[:, b] = np.bincount(drawn, minlength=n_obj)
    # the mean of the objects' means (the closed form's pass, shared within tune_num_learners; as on a
    # cluster): centring on it keeps the sums of squares exact, without another pass over the pool
    ref = float(np.mean(metric_moments(preds)[0]))
    block_rows = _block_rows(n_obj, size)

    def one_block(start):
        here = slice(start, min(start + block_rows, n_obj))
        return resampled_metric_block(preds[here], r[here], weights, ref)

    starts = range(0, n_obj, block_rows)
    workers = min(effective_n_jobs(n_jobs), len(starts))
    if workers > 1:
        with ThreadPoolExecutor(workers) as threads:
            parts = list(threads.map(one_block, starts))
    else:
        parts = [one_block(start) for start in starts]
    sum_var, sum_mu, sum_mu2 = np.zeros(n_boot), np.zeros(n_boot), np.zeros(n_boot)
    for part_var, part_mu, part_mu2 in parts:  # block order: the same sums for every n_jobs
        sum_var += part_var
        sum_mu += part_mu
        sum_mu2 += part_mu2
    return resampled_metric_stats(sum_var, sum_mu, sum_mu2, n_obj, size, n)


def learner_counts(cols, size):
    """Learners x resamples: how often each resample drew each learner (float32, exact)."""
    return np.stack([np.bincount(c, minlength=size) for c in cols], axis=1).astype(np.float32)


def resampled_metric_block(block, counts, weights, ref):
    """One block of objects' sums behind :func:`_resampled_metric_stats` (also computed on a
    cluster, :mod:`predstab.ensembles._distributed`): per resample the count-weighted sums of
    the resampled variances, centred means and their squares. ``weights``: :func:`learner_counts`;
    the products with them are float32 (as the bands' resampling sums,
    :func:`~._closed_form._bootstrap_sums`), of the deviations from the float64 object means:
    half the time of float64 products, the resampled statistics within about 1e-8 of them."""
    size = block.shape[1]
    mu = block.mean(axis=1, dtype=np.float64)
    dev = (block - mu[:, None]).astype(np.float32)
    s1 = (dev @ weights).astype(np.float64)
    np.square(dev, out=dev)
    s2 = (dev @ weights).astype(np.float64)
    var = np.maximum(s2 - s1**2 / size, 0.0) / (size - 1)
    centred = (mu - ref)[:, None] + s1 / size
    return (counts * var).sum(axis=0), (counts * centred).sum(axis=0), (counts * centred**2).sum(axis=0)


def resampled_metric_stats(sum_var, sum_mu, sum_mu2, n_obj, size, n):
    """The resampled pools' statistics from the sums of :func:`resampled_metric_block`."""
    n_boot = len(sum_var)
    mean_var = sum_var / n_obj
    between = (sum_mu2 - sum_mu**2 / n_obj) / (n_obj - 1)
    return [{"d_o": mean_var[b] / n, "b": max(float(between[b] - mean_var[b] / size), 0.0),
             "w": float(mean_var[b])} for b in range(n_boot)]



def _interval(curves, grid, rule, n_bootstrap, confidence_level, progress=None):
    """Percentile intervals of the rounded and the unrounded recommendation over resampled curves
    (``rule``: :class:`predstab.ensembles._recommend.Rule`)."""
    rounded, raw = [], []
    n_grid = np.asarray(grid, dtype=float)
    for b, curve in enumerate(curves):
        if np.all(np.isfinite(curve)):
            fit = fit_2pl(n_grid, curve)
            rec, unrounded, _ = apply_rule(fit, rule)
            if rec is not None:
                rounded.append(rec)
                raw.append(unrounded)
        if progress is not None:
            progress(b + 1, len(curves))
    nan = ConfidenceInterval(float("nan"), float("nan"))
    if len(rounded) < n_bootstrap / 2:
        return nan, nan
    raw = [r for r in raw if r is not None]
    return (_order_statistic_interval(rounded, confidence_level),
            _order_statistic_interval(raw, confidence_level) if raw else nan)


def _order_statistic_interval(values, confidence_level):
    """``(x_(k), x_(B + 1 - k))`` of ``B`` resampled recommendations, ``k = floor((B + 1) alpha / 2)``
    (at least 1): resampled values, not interpolations (recommendations are rounded counts), at
    the order statistics whose expected coverage ``(B + 1 - 2k) / (B + 1)`` is at least the
    confidence level. The inverted-CDF percentiles used before (the 3rd and 98th of 100) had
    expected coverage 0.94 for a perfect pivot."""
    ranked = np.sort(np.asarray(values, dtype=float))
    k = max(int(np.floor((len(ranked) + 1) * (1 - confidence_level) / 2)), 1)
    return ConfidenceInterval(float(ranked[k - 1]), float(ranked[len(ranked) - k]))

