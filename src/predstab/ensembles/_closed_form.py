"""Closed forms of the stability curves of forests built from a tree pool (pure functions).

Everything here is a function of the arrays a :class:`~predstab.TreePool` caches -- the
per-learner predictions ``preds`` (objects x learners, or objects x learners x classes)
and, for out-of-bag predictions on the training rows, the out-of-bag mask ``mask``
(objects x learners, True where the learner did not see the row) -- and of an explicit
random generator. The same arguments give the same numbers.

- :func:`closed_form_stats` -- what every measure is computed from, per forest size;
- :func:`curve_from_stats` -- ICC(1), Fleiss' kappa, phi or psi from those statistics,
  degenerate cases through :mod:`predstab._core._convention`;
- :func:`closed_form_bands` -- the curves with their bootstrap-over-learners bands, as
  :class:`ClosedFormResult` objects (one per measure; the measures share the resampled pools).

The formulas are in the Notes of :class:`~predstab.TreePool`.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import hashlib
import warnings

import numpy as np
from joblib import effective_n_jobs
from scipy import stats as sps

from .._core import (
    _convention,  # the one degenerate-data convention (not a registry measure: no matrix input)
)
from .._core._utils import ConfidenceInterval, check_rng
from ..stability._registry import MEASURES, measure_names
from ._closed_form_result import ClosedFormResult
from ._vote_mixture import two_class_vote_agreement, two_class_vote_mixture

__all__ = ["closed_form_stats", "curve_from_stats", "closed_form_curves",
           "closed_form_bands", "expected_disagreement", "class_probabilities"]

# objects per block of the chunked metric computations: bounds the float64 temporaries
# to a few MB whatever the number of test objects (blocks that stay in the cache: the closed
# form of 1e5 objects x 1,000 members took 0.77 s in blocks of 8,192 objects, 0.46 s in
# blocks of 4 MB; benchmarks/bench_members.py)
_ROWS = 8192
_BLOCK_BYTES = 4 * 2**20
def expected_disagreement(values, *, classes, shift=0):
    """D_e of phi / psi: the variance (``ddof=1``) of a metric baseline (read times ``2**shift``,
    the units of ``_members.closed_form_units``), or the chance that two draws of a class baseline
    differ (``1 - sum_c p_c**2``); missing entries dropped. Exactly 0 for a constant baseline."""
    values = np.asarray(values).ravel()
    if classes:
        values = values[np.array([v is not None and v == v for v in values], dtype=bool)]
        _, counts = np.unique(values.astype(str), return_counts=True)
        share = counts / counts.sum()
        return 1.0 - float(np.sum(share**2))
    values = np.ldexp(values.astype(float), shift)
    values = values[~np.isnan(values)]
    return float(np.var(values, ddof=1)) if np.ptp(values) > 0 else 0.0


# --------------------------------------------------------------------------- metric
def _block_rows(n_obj, size):
    """Objects per block of the metric passes: temporaries of about 4 MB (objects x ``size``
    learners in float64; at least 64, at most 8,192 objects), and at most an eighth of the
    objects (small inputs stay small)."""
    return int(np.clip(min(n_obj // 8, _BLOCK_BYTES // (8 * max(int(size), 1))), 64, _ROWS))


_SHARED = contextvars.ContextVar("predstab_shared_passes", default=None)


@contextlib.contextmanager
def shared_passes():
    """Within it, the metric passes over a pool (:func:`metric_moments` with the resampling sums,
    the jackknife sums) run once per predictions array, mask and counts: ``tune_num_learners``
    computes ICC, phi and psi with one generator (three passes became one; issue 37, item 6).
    For a scope in which the arrays are not changed in place; the memo ends with it."""
    token = _SHARED.set({})
    try:
        yield
    finally:
        _SHARED.reset(token)


def _shared(kind, arrays, counts, compute):
    """``compute()``, or its result in the :func:`shared_passes` scope for the same ``arrays`` (by
    identity; the memo holds them) and ``counts`` (by value; None: any, the moments are the same)."""
    memo = _SHARED.get()
    if memo is None:
        return compute()
    results = memo.setdefault((kind, *map(id, arrays)), (arrays, {}))[1]
    digest = None if counts is None else hashlib.sha1(np.ascontiguousarray(counts).tobytes()).hexdigest()
    if digest not in results and digest is None and results:
        return next(iter(results.values()))[:3]
    if digest not in results:
        results[digest] = compute()
    return results[digest]


def metric_moments(preds, mask=None, counts=None, *, n_jobs=None, progress=None):
    """Per object: the mean and variance (``ddof=1``) of the (voting) learners' predictions
    and their number, in float64, in blocks of objects (no full-size temporary).

    With ``mask``, only rows with at least two voting learners are returned. With
    ``counts`` (resampling counts, n_resamples x learners; test objects only), the same
    pass also returns the sums over objects that the resampled pools' statistics need
    (see :func:`_metric_bootstrap`). ``n_jobs``: threads over the blocks of test objects
    (numpy and BLAS release the GIL); the blocks' sums are added in block order, so the
    numbers do not depend on it. ``progress(done, total)``: the objects done, block by block.
    """
    return _shared("moments", (preds, mask), counts,
                   lambda: _metric_moments(preds, mask, counts, n_jobs=n_jobs, progress=progress))


def _metric_moments(preds, mask, counts, *, n_jobs, progress):
    """:func:`metric_moments` without the memo of :func:`shared_passes`."""
    if hasattr(preds, "metric_moments"):  # per-learner predictions on a cluster (_distributed)
        return preds.metric_moments(counts)
    n_obj, size = preds.shape
    mu, var = np.empty(n_obj), np.empty(n_obj)
    count, rows = np.full(n_obj, float(size)), _block_rows(n_obj, size)
    if mask is None:
        weights = None if counts is None else np.ascontiguousarray(counts.T, dtype=np.float32)
        ref = float(np.mean(preds[0], dtype=np.float64))  # keeps the sums of squares exact

        def one_block(start):
            here = slice(start, min(start + rows, n_obj))
            mu[here], var[here], part = metric_block(preds[here], ref, weights)
            return part

        def ticked(blocks):  # the blocks' results in block order, reported as they come
            for start, part in zip(starts, blocks, strict=True):
                if progress is not None:
                    progress(min(start + rows, n_obj), n_obj)
                yield part

        starts = range(0, n_obj, rows)
        workers = min(effective_n_jobs(n_jobs), len(starts))
        if workers > 1:
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(workers) as pool:
                parts = list(ticked(pool.map(one_block, starts)))
        else:
            parts = list(ticked(one_block(start) for start in starts))
        if counts is None:
            return mu, var, count
        sums = np.zeros((3, len(counts)))  # per resample: sum of var*, of mu* - ref, of its square
        for part in parts:
            sums += part
        return mu, var, count, sums
    for start in range(0, n_obj, rows):
        here = slice(start, min(start + rows, n_obj))
        block = np.asarray(preds[here], dtype=np.float64)
        keep = mask[here]
        count[here] = keep.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            mu[here] = np.where(keep, block, 0).sum(axis=1) / count[here]
            var[here] = np.where(keep, (block - mu[here, None]) ** 2, 0).sum(axis=1) / (count[here] - 1)
        if progress is not None:
            progress(here.stop, n_obj)
    ok = count > 1
    return mu[ok], var[ok], count[ok]


def metric_block(block, ref, weights=None):
    """One block of objects (rows x learners): per object mean and variance (float64), with ``weights``
    its bootstrap sums (:func:`_bootstrap_sums`). Shared by :func:`metric_moments` and the cluster."""
    size = block.shape[1]
    mu = block.mean(axis=1, dtype=np.float64)
    dev = block - mu[:, None]  # float64
    var = np.einsum("ij,ij->i", dev, dev) / (size - 1)
    return mu, var, weights if weights is None else _bootstrap_sums(dev.astype(np.float32), mu - ref, weights,
                                                                     size)


def _bootstrap_sums(dev, offset, weights, size):
    """One block of objects' contribution to the resampled pools' sums (see
    :func:`_metric_bootstrap`): rows sum of var*, of mu* - ref, of its square per resample.

    ``dev``: the block's predictions minus their pool means (float32, overwritten);
    ``offset``: the pool means minus a fixed reference. A resampled pool holds learner ``j``
    ``counts[b, j]`` times, so its per-object sums are one product of the deviations with the
    counts: s1 = sum_j w_j d_ij, s2 = sum_j w_j d_ij^2.
    """
    s1 = (dev @ weights).astype(np.float64)
    np.square(dev, out=dev)
    s2 = (dev @ weights).astype(np.float64)
    resampled_mu = offset[:, None] + s1 / size
    return np.stack([(np.maximum(s2 - s1**2 / size, 0.0) / (size - 1)).sum(axis=0), resampled_mu.sum(axis=0),
                     (resampled_mu**2).sum(axis=0)])


def _metric_stats(mu, var, count, n, pool_size, masked, plug_in):
    """``{"d_o", "b", "w"}`` of metric predictions from the per-object moments."""
    # the between-refit variance of a forest's prediction at object i: var_i / n, or, out of
    # bag, var_i * E[1 / K_i | K_i > 0] with K_i ~ Binomial(n, oob rate of i) the trees of the
    # forest that vote for row i
    within = (var[None, :] / n[:, None] if not masked
              else var[None, :] * mean_inverse_count(n, count / pool_size))
    # the pool's means carry noise of variance var / count: subtract it from the
    # between-object variance (the plug-in keeps it: there the pool is everything)
    noise = 0.0 if plug_in else float(np.mean(var / count))
    between = float(np.var(mu, ddof=1)) - noise  # below 0 when the means spread less than the noise
    return {"d_o": within.mean(axis=1), "b": max(between, 0.0), "w": float(np.mean(var)),
            "b_unfloored": between}


def mean_inverse_count(n, rate):
    """E[1 / K | K > 0] for K ~ Binomial(n, rate): shape (len(n), len(rate))."""
    # out-of-bag rates are counts / pool size: few distinct values however many rows
    rates, where = np.unique(rate, return_inverse=True)
    out = np.empty((len(n), len(rates)))
    for k, size in enumerate(np.asarray(n, dtype=float)):
        if size <= 20000:
            counts = np.arange(1, int(size) + 1)[:, None]
            pmf = sps.binom.pmf(counts, int(size), rates[None, :])
            out[k] = (pmf / counts).sum(axis=0) / pmf.sum(axis=0)
        else:  # second-order expansion (relative error ~ 2 / (n rate)^2); K = 0 is impossible here
            lam = size * rates
            out[k] = 1 / lam + (1 - rates) / lam**2
    return out[:, where.ravel()]


def _metric_bootstrap(preds, mask, n, counts, sums=None):
    """Stats of the resampled pools given by the resampling ``counts`` (n_resamples x learners).

    Test objects: from the per-resample sums over objects that :func:`metric_moments`
    accumulated in its pass (two float32 products of the deviations, objects x learners, by
    the counts, learners x resamples, block by block: cost linear in objects, no copy of the
    pool). Out of bag: the per-object sums of every resample at once.
    """
    n_obj, size = preds.shape
    n_boot = len(counts)
    if mask is None:
        w = sums[0] / n_obj
        between = (sums[2] - sums[1] ** 2 / n_obj) / (n_obj - 1)
        b = np.maximum(between - w / size, 0.0)  # the resampled pool's own noise, as the estimate
        return [{"d_o": w[k] / n, "b": float(b[k]), "w": float(w[k])} for k in range(n_boot)]
    weights = np.ascontiguousarray(counts.T, dtype=np.float32)  # learners x resamples
    # out of bag (training rows, usually few): per-object sums of every resample at once
    keep = mask.astype(np.float32)
    values = np.where(mask, preds, 0.0)
    centre = np.where(mask.sum(axis=1) > 0, values.sum(axis=1) / np.maximum(mask.sum(axis=1), 1), 0.0)
    dev = np.where(mask, values - centre[:, None], 0.0)
    s0 = (keep @ weights).astype(np.float64)
    s1 = (dev.astype(np.float32) @ weights).astype(np.float64)
    s2 = ((dev**2).astype(np.float32) @ weights).astype(np.float64)
    out = []
    for k in range(n_boot):
        count = np.rint(s0[:, k])
        ok = count > 1
        c, m1, m2 = count[ok], s1[ok, k], s2[ok, k]
        var = np.maximum(m2 - m1**2 / c, 0.0) / (c - 1)
        out.append(_metric_stats(centre[ok] + m1 / c, var, c, n, size, True, False))
    return out


def _metric_jackknife_stats(preds, n_jobs=None):
    """The closed-form statistics of the pool without learner ``j``, for every ``j`` (test
    objects): ``{"w", "b"}`` arrays of shape (n_learners,), from three sums over objects per
    learner of the deviations ``d_ij`` from the object means (one pass, blocks of objects).

    Without learner ``j`` an object's mean is ``mu_i - d_ij / (P - 1)`` and its sum of squared
    deviations ``(P - 1) var_i - P d_ij^2 / (P - 1)``. ``n_jobs``: threads over the blocks,
    whose sums are added in block order (the numbers do not depend on it); shared within
    :func:`shared_passes`.
    """
    return _shared("jackknife", (preds,), None, lambda: _jackknife_pass(preds, n_jobs))


def _jackknife_pass(preds, n_jobs):
    if hasattr(preds, "jackknife_stats"):  # per-learner predictions on a cluster (_distributed)
        return preds.jackknife_stats()
    n_obj, size = preds.shape
    rows = _block_rows(n_obj, size)
    ref = float(np.mean(preds[0], dtype=np.float64))
    starts = range(0, n_obj, rows)

    def one_block(start):
        return jackknife_block(preds[start:start + rows], ref)

    workers = min(effective_n_jobs(n_jobs), len(starts))
    if workers > 1:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(workers) as pool:
            return jackknife_stats(list(pool.map(one_block, starts)), n_obj, size)
    return jackknife_stats(map(one_block, starts), n_obj, size)


def jackknife_block(block, ref):
    """One block's sums behind :func:`_metric_jackknife_stats` (in memory and on a cluster)."""
    block = np.asarray(block, dtype=np.float64)
    mu = block.mean(axis=1)
    dev = block - mu[:, None]
    var, centred = np.einsum("ij,ij->i", dev, dev) / (block.shape[1] - 1), mu - ref
    return (var.sum(), centred.sum(), centred @ centred, dev.sum(axis=0), np.einsum("ij,ij->j", dev, dev),
            centred @ dev)


def jackknife_stats(parts, n_obj, size):
    """``{"w", "b"}`` without each learner from the :func:`jackknife_block` sums, added in block order."""
    sum_var, sum_mu, sum_mu2, d1, d2, md = functools.reduce(
        lambda total, part: [a + b for a, b in zip(total, part, strict=True)], parts,
        [0.0] * 3 + [np.zeros(size)] * 3)
    k = size - 1
    w = ((size - 1) * sum_var - size / k * d2) / (size - 2) / n_obj
    s1 = sum_mu - d1 / k
    s2 = sum_mu2 - 2 * md / k + d2 / k**2
    between = (s2 - s1**2 / n_obj) / (n_obj - 1)
    return {"w": w, "b": np.maximum(between - w / k, 0.0)}


def _jackknife_calibrated(errors, preds, n, measure, d_e, n_jobs=None):
    """Metric bootstrap errors scaled up, per forest size, to the jackknife standard error
    where the bootstrap's is smaller.

    The bootstrap variance of the closed form is biased low in small pools of skewed learners
    (pools of 150 learners with exponential errors: 8-10 % below the actual standard
    deviation, coverage 0.91-0.92); the jackknife variance is conservative (Efron & Stein
    1981), costs one pass over the pool, and brings the coverage to nominal there. Where the
    bootstrap's is the larger (most pools of 1,000 learners) the errors are left unchanged.
    """
    size = preds.shape[1]
    if size < 3 or len(errors) < 2:
        return errors
    jack = _metric_jackknife_stats(preds, n_jobs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        # every learner left out at once (rows): the same elementwise operations as one curve each
        w, sizes = jack["w"][:, None], np.broadcast_to(n, (size, len(n)))
        stats = {"d_o": w / n, "b": np.broadcast_to(jack["b"][:, None], sizes.shape), "w": w}
        values = curve_from_stats(stats, sizes, measure, d_e)
        se_jack = np.sqrt((size - 1) / size * np.nansum((values - np.nanmean(values, axis=0)) ** 2, axis=0))
        se_boot = np.nanstd(errors, axis=0, ddof=1)
        scale = np.where(se_boot > 0, np.maximum(se_jack / np.where(se_boot > 0, se_boot, 1.0), 1.0), 1.0)
    return errors * np.where(np.isfinite(scale), scale, 1.0)


# --------------------------------------------------------------------------- classes
def class_probabilities(preds, mask, n, voting, rng, n_sim=2000):
    """pi[k, i, c]: probability that a forest of n[k] learners predicts class c at object i,
    the pool's vote shares taken as exact (learners drawn with replacement from the pool).
    Out of bag, a forest of n learners votes at row i with about n * (oob rate of i)."""
    n_obj, _, n_classes = preds.shape
    weights = np.ones(preds.shape[:2]) if mask is None else mask.astype(float)
    counts = weights.sum(axis=1)
    rate = counts / preds.shape[1]
    out = np.empty((len(n), len(preds), n_classes))
    if voting == "hard":
        votes = np.eye(n_classes)[preds.argmax(axis=2)] * weights[..., None]
        q = votes.sum(axis=1) / counts[:, None]
        for k, size in enumerate(n):
            sizes = np.maximum(np.rint(size * rate), 1).astype(int)
            if n_classes == 2:
                # class 1 wins only with a strict majority; a tie goes to the first class
                p1 = sps.binom.sf(sizes // 2, sizes, q[:, 1])
                out[k] = np.column_stack([1 - p1, p1])
            else:
                draws = np.stack([rng.multinomial(m, qi, size=n_sim)
                                  for m, qi in zip(sizes, q, strict=True)])
                out[k] = np.eye(n_classes)[draws.argmax(axis=2)].mean(axis=1)
        return out
    if voting != "soft":
        raise ValueError(f"`voting` must be 'soft' or 'hard'; got {voting!r}.")
    mu = (preds * weights[..., None]).sum(axis=1) / counts[:, None]
    centred = (preds - mu[:, None, :]) * np.sqrt(weights)[..., None]
    for k, size in enumerate(n):
        sizes = np.maximum(size * rate, 1.0)
        if n_classes == 2:
            sd = np.sqrt(np.einsum("ij,ij->i", centred[..., 1], centred[..., 1]) / (counts - 1) / sizes)
            with np.errstate(invalid="ignore", divide="ignore"):
                z = np.where(sd > 0, (mu[:, 1] - 0.5) / np.where(sd > 0, sd, 1.0),
                             np.where(mu[:, 1] > 0.5, np.inf, -np.inf))
            p1 = sps.norm.cdf(z)
            out[k] = np.column_stack([1 - p1, p1])
        else:
            for i in range(len(preds)):
                cov = centred[i].T @ centred[i] / (counts[i] - 1) / sizes[i]
                draws = rng.multivariate_normal(mu[i], cov, size=n_sim, method="eigh")
                out[k, i] = np.bincount(draws.argmax(axis=1), minlength=n_classes) / n_sim
    return out


def class_agreement(preds, mask, n, voting, rng, *, population=False, n_perm=None):
    """agree[k, i]: probability that two forests of n[k] learners predict the same class at
    object i; pi[k, i, c]: probability that one predicts class c.

    Up to half the pool (``2 n <= pool``) both are estimated without bias from disjoint
    forests of the pool itself (a U-statistic over every pair of disjoint forests): in
    closed form for majority votes of two classes without out-of-bag masks
    (:func:`two_class_vote_agreement`), otherwise by ``n_perm`` random orderings of the
    pool, each cut into forests of ``n`` learners, every pair of them compared. The
    curves average over objects, so the default takes fewer orderings the more objects
    there are: 200 for 50 objects or fewer, 10 from 1,000 objects on
    (the Monte Carlo error of the mean agreement stays below about 0.005). Beyond half
    the pool no two disjoint forests exist and the probabilities are extrapolated from
    the pool's vote shares (:func:`class_probabilities`), which treats the shares as
    exact and so overstates stability near a tied vote -- except for majority votes of two
    classes without out-of-bag masks, which beyond half the pool are estimated by empirical
    Bayes from the per-object vote counts (:mod:`predstab.ensembles._vote_mixture`; nearly
    unbiased, deterministic).

    ``population``: the exact value of that same estimator in the bootstrap world, where
    the pool is the population and a resampled pool holds learners drawn from it with
    replacement: the disjoint-forest U-statistic over forests drawn with replacement
    (Binomial vote counts for majority votes of two classes; random draws otherwise) up to
    half the pool, the extrapolation beyond. The bootstrap pivots on it.
    """
    n_classes = preds.shape[2]
    if mask is not None:
        keep = mask.sum(axis=1) > 1
        preds, mask = preds[keep], mask[keep]
    agree = np.empty((len(n), len(preds)))
    pi = np.empty((len(n), len(preds), n_classes))
    if n_perm is None:
        n_perm = _orderings(len(preds))
    disjoint = 2 * n <= preds.shape[1]
    exact_votes = mask is None and n_classes == 2 and voting == "hard"
    if population and exact_votes:
        # forests drawn with replacement: Binomial(n, q_i) votes, the extrapolation is exact
        disjoint = np.zeros(len(n), dtype=bool)
    if disjoint.any() and exact_votes:
        # majority votes of two classes: the U-statistic in closed form
        ones = (preds.argmax(axis=2) == 1).sum(axis=1)
        agree[disjoint], pi[disjoint] = two_class_vote_agreement(ones, preds.shape[1],
                                                                 n[disjoint].astype(int))
    elif disjoint.any():
        agree[disjoint], pi[disjoint] = disjoint_forests(preds, mask, n[disjoint].astype(int), voting, rng,
                                                         n_perm, with_replacement=population)
    if not disjoint.all() and exact_votes and not population:
        # majority votes of two classes beyond half the pool: empirical Bayes over the vote counts
        # (no unbiased estimator exists there; taking the shares as exact overstated stability)
        ones = (preds.argmax(axis=2) == 1).sum(axis=1)
        agree[~disjoint], pi[~disjoint] = two_class_vote_mixture(ones, preds.shape[1], n[~disjoint])
    elif not disjoint.all():
        pi[~disjoint] = class_probabilities(preds, mask, n[~disjoint], voting, rng)
        agree[~disjoint] = np.sum(pi[~disjoint] ** 2, axis=2)
    return agree, pi


def disjoint_forests(preds, mask, ns, voting, rng, n_perm, *, with_replacement=False,
                     max_elements=10_000_000):
    """Class agreement of pairs of disjoint forests of the pool (see ``class_agreement``).

    ``with_replacement``: the forests' learners are drawn with replacement from the pool
    (sequences of random learners instead of orderings), the bootstrap world's forests.
    """
    n_obj, size, n_classes = preds.shape
    # two classes: the second class wins when its votes (or probabilities; they sum to 1
    # per learner) exceed half the voting learners -- a tie goes to the first class -- so one
    # channel carries the vote
    binary = n_classes == 2
    votes = None
    if binary and voting == "hard":
        scores = (preds.argmax(axis=2) == 1).astype(np.int32)[..., None]
    elif binary:
        scores = np.asarray(preds[..., 1:], dtype=float)
    elif voting == "hard":
        # several classes, hard votes: each learner's class; the forests' vote counts are
        # integers (_hard_class_counts), the same counts as running totals of one-hot votes
        votes, scores = preds.argmax(axis=2).astype(np.int16), None
    else:
        scores = np.asarray(preds, dtype=float)
    if mask is not None and scores is not None:
        scores = scores * mask[..., None]
    agree = np.zeros((len(ns), n_obj))
    pairs_seen = np.zeros((len(ns), n_obj))
    pi = np.zeros((len(ns), n_obj, n_classes))
    forests_seen = np.zeros((len(ns), n_obj))
    chunk = int(np.clip(max_elements // (n_obj * (size + 1) * (1 if binary else n_classes)), 1, n_perm))
    for start in range(0, n_perm, chunk):
        m_orders = min(chunk, n_perm - start)
        if with_replacement:
            orders = rng.integers(0, size, (m_orders, size))
        else:
            orders = rng.permuted(np.tile(np.arange(size), (m_orders, 1)), axis=1)
        if votes is not None:
            forest_counts = _hard_class_counts(votes, mask, orders, ns, n_classes)
        else:
            forest_counts = _forest_class_counts(scores, mask, orders, ns, n_classes, voting)
        for k, counts in enumerate(forest_counts):  # (objects, orderings, classes): forests per class
            m = counts.sum(axis=2)
            with np.errstate(invalid="ignore", divide="ignore"):
                same = (np.sum(counts**2, axis=2) - m) / (m * (m - 1))  # share of agreeing pairs
                share = counts / m[..., None]
            agree[k] += np.where(m > 1, same, 0.0).sum(axis=1)
            pairs_seen[k] += (m > 1).sum(axis=1)
            pi[k] += np.where(m[..., None] > 0, share, 0.0).sum(axis=1)
            forests_seen[k] += (m > 0).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return agree / pairs_seen, pi / forests_seen[..., None]


def _forest_class_counts(scores, mask, orders, ns, n_classes, voting):
    """Per forest size ``n``: how many of the forests cut from each ordering predict each class,
    (objects, orderings, classes), from running totals of the learners' votes ``scores``."""
    n_obj, size = scores.shape[:2]
    binary = n_classes == 2
    # running vote totals along each ordering: (objects, orderings, learners + 1, channels)
    totals = np.zeros((n_obj, len(orders), size + 1, scores.shape[2]), dtype=scores.dtype)
    np.cumsum(scores[:, orders], axis=2, out=totals[:, :, 1:])
    if mask is not None:
        voters = np.zeros((n_obj, len(orders), size + 1), dtype=np.int32)
        np.cumsum(mask[:, orders], axis=2, out=voters[:, :, 1:])
    for n in ns:
        edges = np.arange(0, (size // n) * n + 1, n)
        forest = np.diff(totals[:, :, edges], axis=2)  # (objects, orderings, forests, channels)
        if forest.dtype.kind == "f":
            # differences of running totals carry rounding errors (0.5 became 0.5000000000000001):
            # rounded, exact ties of soft votes stay ties and go to the first class
            forest = np.round(forest, 9)
        voting_trees = n if mask is None else np.diff(voters[:, :, edges], axis=2)
        # the forest's class: the first of the largest totals, as TreePool.forests
        label = (2 * forest[..., 0] > voting_trees).astype(int) if binary else forest.argmax(axis=3)
        chosen = label[..., None] == np.arange(n_classes)
        if mask is not None:
            chosen &= (voting_trees > 0)[..., None]  # rows without votes
        yield chosen.sum(axis=2)


def _hard_class_counts(votes, mask, orders, ns, n_classes):
    """``_forest_class_counts`` for hard votes of several classes, ``votes`` the learners'
    classes (objects, learners): integer running counts per class along each ordering, the
    forest's class the first of its most voted (as ``argmax``); no rounding, no one-hot copies."""
    n_obj, size = votes.shape
    ordered = votes[:, orders]  # (objects, orderings, learners)
    ordered_mask = None if mask is None else mask[:, orders]
    count_type = np.int16 if size <= np.iinfo(np.int16).max else np.int32
    # running votes per class along each ordering: (objects, orderings, classes, learners + 1)
    totals = np.zeros((n_obj, len(orders), n_classes, size + 1), dtype=count_type)
    for c in range(n_classes):
        cast = ordered == c if ordered_mask is None else (ordered == c) & ordered_mask
        np.cumsum(cast, axis=2, dtype=count_type, out=totals[:, :, c, 1:])
    if mask is not None:
        voters = np.zeros((n_obj, len(orders), size + 1), dtype=np.int32)
        np.cumsum(ordered_mask, axis=2, out=voters[:, :, 1:])
    for n in ns:
        end = (size // n) * n
        forest = totals[..., n:end + 1:n] - totals[..., 0:end:n]  # (objects, orderings, classes, forests)
        best, label = forest[:, :, 0].copy(), np.zeros(forest.shape[:2] + forest.shape[3:], dtype=np.int16)
        for c in range(1, n_classes):  # a later class wins only with strictly more votes
            better = forest[:, :, c] > best
            np.copyto(best, forest[:, :, c], where=better)
            label[better] = c
        if mask is not None:
            label[(voters[..., n:end + 1:n] - voters[..., 0:end:n]) == 0] = -1  # rows without votes
        yield np.stack([np.count_nonzero(label == c, axis=2) for c in range(n_classes)], axis=2)


def _orderings(n_objects):
    """Random orderings of the pool behind a class closed form (see ``class_agreement``)."""
    return int(np.clip(np.ceil(10_000 / max(n_objects, 1)), 10, 200))


# --------------------------------------------------------------------------- measures
def closed_form_stats(preds, mask, n, *, classifier, voting, rng, population=False, n_perm=None):
    """What every closed-form measure is computed from, per forest size ``n``.

    Metric predictions: the expected observed disagreement ``d_o`` (``W / n``, or its
    out-of-bag form), the between-object variance ``b`` and the mean within-object variance
    ``w``. Classes: ``d_o`` and the class shares ``share``. ``population``: the exact value
    of the same estimator when the pool is the population (the bootstrap world of
    :func:`closed_form_bands`).
    """
    n = np.asarray(n, dtype=float)
    if not classifier:
        mu, var, count = metric_moments(preds, mask)
        return _metric_stats(mu, var, count, n, preds.shape[1], mask is not None, population)
    agree, pi = class_agreement(preds, mask, n, voting, rng, population=population, n_perm=n_perm)
    return {"d_o": 1.0 - np.nanmean(agree, axis=1), "share": np.nanmean(pi, axis=1)}


def curve_from_stats(stats, n, measure, d_e=None, *, warn=False):
    """The curve of ``measure`` at each forest size from :func:`closed_form_stats`.

    Every measure is ``1 - D_o / D_e``, with its ``D_e`` as the registry's closed form forms
    it (:data:`predstab.stability.MEASURES`; ICC(1): ``D_e = b + D_o``; Fleiss:
    ``D_e = 1 - sum_c share_c**2``; phi / psi: the baseline's ``d_e``), and the degenerate
    cases follow :mod:`predstab._core._convention`: ``D_e = D_o = 0`` gives 1, ``D_e = 0 < D_o``
    NaN, with the convention's warning once per curve when ``warn``.
    """
    d_o = np.broadcast_to(np.asarray(stats["d_o"], dtype=float), np.shape(n))
    entry = MEASURES.get(measure)
    if entry is None or entry.closed_form is None:
        raise ValueError(f"`measure` must be one of {measure_names('closed_form')}; got {measure!r}.")
    out, d_e = entry.closed_form(stats, d_o, d_e)
    if warn:
        zero = np.flatnonzero(d_e == 0)
        if zero.size:  # the convention's warning, once per curve
            _convention.one_minus_ratio(d_o[zero[0]], 0.0, name=entry.title)
    return out


def closed_form_curves(preds, mask, n, d_e, *, classifier, voting, random_state=None):
    """``{measure: curve}`` for the measures of ``d_e`` (``{measure: D_e or None}``)."""
    rng = check_rng(random_state)
    n = np.asarray(n, dtype=float)
    stats = closed_form_stats(preds, mask, n, classifier=classifier, voting=voting, rng=rng)
    return {m: curve_from_stats(stats, n, m, value, warn=True) for m, value in d_e.items()}


def percentile_band(curve, errors, confidence_level, *, lowest=None):
    """The band of :func:`closed_form_bands` from the bootstrap ``errors`` (resamples x sizes).

    The percentile interval of the resampled curves ``curve + errors`` (each resample's closed
    form minus the bootstrap world's exact value, added to the estimate), with the quantiles
    at positions ``(B + 1) p`` of the ``B`` finite errors (numpy's ``"weibull"`` method: an
    order statistic at ``k / (B + 1)`` has expected coverage ``k / (B + 1)``, so the band does
    not lose coverage at 100 resamples, as the default interpolation did: 0.93 for a perfect
    pivot), widened where needed to contain the estimate and capped at 1 -- and at ``lowest``
    from below where the measure cannot be lower (ICC(1), whose between-object variance is
    floored at 0, lies in [0, 1]).
    """
    alpha = (1 - confidence_level) / 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns
        q_low, q_high = np.nanquantile(errors, [alpha, 1 - alpha], axis=0, method="weibull")
    with np.errstate(invalid="ignore"):
        low = np.minimum(np.minimum(curve + q_low, 1.0), curve)
        high = np.maximum(np.minimum(curve + q_high, 1.0), curve)
        if lowest is not None:
            low = np.where(low < lowest, lowest, low)
    return ConfidenceInterval(low, high)


def closed_form_bands(preds, mask, n, d_e, *, classifier, voting, n_resamples=200, confidence_level=0.95,
                      random_state=None, n_jobs=None, progress=None):
    """Closed-form curves with bootstrap-over-learners bands: ``{measure: ClosedFormResult}``.

    Parameters
    ----------
    preds : ndarray of shape (n_objects, n_learners) or (n_objects, n_learners, n_classes)
        Per-learner predictions (any float dtype; float32 halves the memory).
    mask : ndarray of bool of shape (n_objects, n_learners) or None
        Out-of-bag mask (True: the learner votes for the row), or None for test objects.
    n : array-like of float
        Forest sizes.
    d_e : dict
        ``{measure: D_e}``: the measures to compute, with phi's / psi's expected
        disagreement (None for "icc" / "fleiss").
    classifier : bool
    voting : {"soft", "hard"}
        Classes only.
    n_resamples : int, default 200
        Resampled pools (0: curves only).
    confidence_level : float, default 0.95
    random_state : None, int or numpy.random.Generator
        The class closed forms' random orderings and the resampling.
    n_jobs : int or None
        Threads over blocks of test objects (metric predictions); the numbers do not depend
        on it.
    progress : callable, optional
        ``progress(done, total)`` as the work advances: metric predictions, the objects
        done (the one pass that also resamples); classes, the resampled pools done. The
        numbers do not depend on it.

    Notes
    -----
    The learners are resampled with replacement. In that bootstrap world the pool is the
    population, and the exact value of the estimator there (not the estimate) is what the
    resampled estimates centre on: the plug-in curve for metric predictions (the ICC's
    estimate subtracts the pool's noise from the between-object variance; pivoting on the
    estimate shifted the band by that noise: for ICC(1) at 250 of 1,000 SNP-data trees by
    0.06, and the bands covered the expected ICC in 57-70 % of pools), the disjoint-forest
    U-statistic over forests drawn with replacement for classes (pivoting on the Normal
    approximation of soft votes put the band 0.017 above the estimate at 10 trees). Metric
    errors are the resampled closed forms minus that value. Class errors are the same exact
    value computed in each resampled pool's own bootstrap world, minus the pool's: near a
    tied vote the disjoint-forest U-statistic of a pool holding few forests is nearly always
    far below its mean (it is unbiased only through rare large values), so its resamples
    did not reach the truth (coverage 0.57-0.63 at 250-500 of 1,000 trees, 85/15 classes),
    while the resampled pools' exact values spread as the truth's uncertainty does.

    Target and assumptions. The band is for the closed form's estimand: the expected
    stability of forests of ``n`` learners on *these* objects, grown on *this* training set
    (the infinite-pool value; learners only -- new test objects or training sets are not
    covered). It assumes that the pool's learners are i.i.d. (bagging) and that the error of
    the closed form behaves like its bootstrap error up to a monotone transformation. It is
    the percentile interval of the resampled curves ``curve + errors`` (:func:`percentile_band`:
    quantiles at positions ``(B + 1) p``, widened to contain the estimate, capped at 1, and for
    ICC(1), whose between-object variance is floored at 0, at 0 from below). The
    basic interval ``curve - quantiles(errors)`` used before reflects the skew of the errors
    the wrong way where a few near-tied objects dominate the class disagreement, and its
    default quantile interpolation lost coverage at 100 resamples (0.93 for a perfect
    pivot); benchmarks/bench_coverage_tuning.py measures the coverage
    (docs/benchmarks/coverage-tuning.md): 0.94 for a regression forest at every n; for classes
    near tied votes 0.85 at half the pool (where two forests hold the whole pool), 0.920 at a
    quarter of it, 0.935 or more up to a tenth (the default pool of ``tune_num_learners``).

    Metric predictions are resampled through one matrix product of the per-learner
    predictions with the multinomial resampling counts (cost linear in objects, no copy
    of the pool); classes resample the learners' columns and take an eighth of the random
    orderings per resampled pool.
    """
    rng = check_rng(random_state)
    n = np.asarray(n, dtype=float)
    size = preds.shape[1]
    n_resamples = int(n_resamples)
    if classifier and hasattr(preds, "class_bands"):  # on a cluster: the same steps in one pass
        return preds.class_bands(n, d_e, voting=voting, n_resamples=n_resamples,
                                 confidence_level=confidence_level, rng=rng)
    if classifier:
        stats = closed_form_stats(preds, mask, n, classifier=True, voting=voting, rng=rng)
    else:  # one pass over the pool: the estimate, the bootstrap world's value, the resamples
        counts = rng.multinomial(size, np.full(size, 1.0 / size), size=n_resamples) if n_resamples else None
        mu, var, count, *sums = metric_moments(preds, mask, None if mask is not None else counts,
                                               n_jobs=n_jobs, progress=progress)
        stats = _metric_stats(mu, var, count, n, size, mask is not None, False)
    curves = {m: curve_from_stats(stats, n, m, value, warn=True) for m, value in d_e.items()}
    errors = {m: None for m in d_e}
    if n_resamples:
        if classifier:
            population = closed_form_stats(preds, mask, n, classifier=True, voting=voting, rng=rng,
                                           population=True)
        else:
            population = _metric_stats(mu, var, count, n, size, mask is not None, True)
        truth = {m: curve_from_stats(population, n, m, value) for m, value in d_e.items()}
        if classifier:
            counts = rng.multinomial(size, np.full(size, 1.0 / size), size=n_resamples)
            n_perm = max(5, _orderings(len(preds)) // 8)
            resampled = []
            for b in range(n_resamples):
                cols = np.repeat(np.arange(size), counts[b])
                # the resample's own bootstrap-world value (its vote shares taken as exact), not its
                # U-statistic: near a tied vote the U-statistic of a pool of 2n learners is nearly
                # always far below its mean, so its resamples said little about where the truth is
                resampled.append(closed_form_stats(preds[:, cols], None if mask is None else mask[:, cols], n,
                                                   classifier=True, voting=voting, rng=rng, n_perm=n_perm,
                                                   population=True))
                if progress is not None:
                    progress(b + 1, n_resamples)
        else:
            resampled = _metric_bootstrap(preds, mask, n, counts, sums[0] if sums else None)
        errors = {m: np.stack([curve_from_stats(s, n, m, d_e[m]) for s in resampled]) - truth[m] for m in d_e}
        if not classifier and mask is None:
            errors = {m: _jackknife_calibrated(errors[m], preds, n, m, d_e[m], n_jobs) for m in d_e}
    out = {}
    for m in d_e:
        # ICC(1) lies in [0, 1] (its between-object variance is floored at 0): so does its band
        if n_resamples:
            band = percentile_band(curves[m], errors[m], confidence_level, lowest=0.0 if m == "icc" else None)
        else:
            band = ConfidenceInterval(np.full(len(n), np.nan), np.full(len(n), np.nan))
        single = (float(curve_from_stats({"d_o": stats["w"], "b": stats["b_unfloored"]}, [1.0], m)[0])
                  if m == "icc" else float("nan"))
        out[m] = ClosedFormResult(measure=m, n_learners=n.copy(), curve=curves[m], confidence_interval=band,
                                  errors=errors[m], n_resamples=n_resamples,
                                  confidence_level=confidence_level,
                                  pool_size=size, voting=voting if classifier else None, single_icc=single)
    return out

