"""Tree pools on a dask.distributed cluster: the objects x learners matrix is never gathered.

:class:`DaskTreePool` is a :class:`~predstab.TreePool` whose per-learner predictions of the test
objects live on the workers as a lazy Dask array (:class:`ClusterPredictions`, objects in row
chunks, every learner in each chunk). The closed forms, their bands, the forests and the
learners+objects interval of :func:`predstab.tune_num_learners` are the in-memory engine's per-block
reductions (:func:`~._closed_form.metric_block`, :func:`~._closed_form.jackknife_block`,
:func:`~._closed_form.class_agreement`, :func:`~._recommendation_interval.resampled_metric_block`),
run by each worker on the blocks of test objects it predicts and combined in the client; only the
reductions travel. The same seeds give the same numbers as in memory (metric closed forms and
bands bit for bit: the blocks are those of the in-memory pass and are added in the same order;
class curves and the learners+objects interval to rounding, about 1e-15).

Dask is an optional dependency (``pip install predstab[dask]``); this module imports it lazily.
"""

from __future__ import annotations

import copy
import time
import warnings
from numbers import Integral

import numpy as np

from .._core._gate import check_fit_data
from .._core._utils import ConfidenceInterval, check_rng, seeds_from
from .._core._validation import Interval, Options, check_param, validate_params
from ._closed_form import (
    ClosedFormResult,
    _block_rows,
    _metric_stats,
    _orderings,
    class_agreement,
    curve_from_stats,
    jackknife_block,
    jackknife_stats,
    metric_block,
    percentile_band,
)
from ._forest import inbag_mask, is_bagging_ensemble, learner_predictions
from ._members import _check_probabilities, _labels_to_votes
from ._pool import TreePool, _join_ensembles, _pool_iv, check_test_data
from ._recommendation_interval import (
    _pivot,
    learner_counts,
    resampled_metric_block,
    resampled_metric_stats,
)
from ._tune_table import _closed_baselines

__all__ = ["DaskTreePool", "ClusterPredictions"]

CHUNK_BYTES = 64 * 2**20  # default bytes of one chunk of per-learner predictions on a worker
_CLASS_ELEMENTS = 10_000_000  # running vote totals of one sub-block of a class pass (float64 elements)


def _dask():
    """``(dask, dask.array, distributed)``, or an ImportError saying how to install them."""
    try:
        import dask
        import dask.array as da
        import distributed
    except ImportError as exc:  # pragma: no cover - the optional extra
        raise ImportError("DaskTreePool needs dask.distributed: pip install 'predstab[dask]' "
                          f"(dask[distributed]); {exc}") from None
    return dask, da, distributed


def _get_client(client):
    _, _, distributed = _dask()
    if client is not None:
        return client
    try:
        return distributed.get_client()
    except ValueError:
        raise ValueError("`client`: no dask.distributed Client is active; start one (Client(...)) or pass "
                         "`client`.") from None


def _chunk_rows(n_obj, size, width, itemsize, chunk_bytes):
    """Rows per chunk: a multiple of the engine's block rows (so a chunk holds whole in-memory
    blocks) with about ``chunk_bytes`` of predictions."""
    rows = _block_rows(n_obj, size)
    per_row = max(size * width * itemsize, 1)
    return rows, int(max(rows, (int(chunk_bytes) // per_row) // rows * rows))


# --------------------------------------------------------------------------- per-chunk work (workers)


def _predict_chunk(X_chunk, model, dtype):
    """Each learner's predictions of one chunk of test objects, as :meth:`TreePool.fit` caches them."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # feature names of a DataFrame turned into an array
        X_chunk = check_test_data(model, X_chunk)
    return learner_predictions(model, X_chunk, dtype=dtype)


def _fit_trees(model, X, y, start, stop):
    """Trees ``start ... stop - 1`` of the forest ``model`` (a clone, seeded): fitted with warm start
    after ``start`` placeholder trees, scikit-learn draws and skips the first trees' seeds, so these
    are the trees that one call grows (as :meth:`TreePool.fit` with ``progress`` relies on)."""
    from sklearn.base import clone

    forest = clone(model).set_params(n_estimators=int(stop), warm_start=True, n_jobs=1)
    if "oob_score" in forest.get_params():
        forest.set_params(oob_score=False)
    forest.estimators_ = [None] * int(start)
    forest.fit(X, y)
    forest.estimators_ = forest.estimators_[int(start):]
    return forest


def _fit_on_workers(client, model, X, y):
    """``model`` fitted with its trees grown on the workers: a forest in groups of trees (tasks of
    :func:`_fit_trees`), any other ensemble through joblib's Dask backend."""
    import joblib
    from sklearn.ensemble._forest import BaseForest

    if not isinstance(model, BaseForest):
        with joblib.parallel_config(backend="dask", n_jobs=-1):
            return model.fit(X, y)
    size = model.get_params()["n_estimators"]
    workers = max(1, sum(client.nthreads().values()))
    edges = np.unique(np.linspace(0, size, min(size, 4 * workers) + 1).astype(int))
    # hash=False: the same data scattered again under its content key races with the release of
    # the last fit's copy and cancels this fit's tasks (dask/distributed issue 3703)
    data = client.scatter([X, y], broadcast=True, hash=False)
    parts = client.gather([client.submit(_fit_trees, model, *data, int(a), int(b), pure=False)
                           for a, b in zip(edges[:-1], edges[1:], strict=True)])
    fitted = parts[0]
    fitted.estimators_ = [tree for part in parts for tree in part.estimators_]
    fitted.set_params(**{k: v for k, v in model.get_params(deep=False).items()})
    return fitted


def _metric_chunk(chunk, rows, ref, weights, jack):
    """The engine's blocks of one chunk (``rows`` each, as in memory): per object mean and variance,
    per block the bootstrap sums (with ``weights``) and the jackknife sums (with ``jack``)."""
    mu, var, boots, jacks = [], [], [], []
    for start in range(0, len(chunk), rows):
        block = chunk[start:start + rows]
        m, v, part = metric_block(block, ref, weights)
        mu.append(m)
        var.append(v)
        boots.append(part)
        if jack:
            jacks.append(jackknife_block(block, ref))
    return np.concatenate(mu), np.concatenate(var), boots, jacks


def _fold(acc, result):
    """Adds a chunk's block sums to the running totals, block by block in order (the in-memory
    pass adds them the same way, so the totals are the same bits)."""
    sums, jack = (None, None) if acc is None else acc
    _, _, boots, jacks = result
    for part in boots:
        if part is not None:
            sums = np.zeros_like(part) if sums is None else sums
            sums = sums + part
    for part in jacks:
        jack = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0] if jack is None else jack
        jack = [a + b for a, b in zip(jack, part, strict=True)]
    return sums, jack


def _moments(result):
    return result[0], result[1]


def _class_stage(values, n, voting, rng, population, n_perm, cols=None, weights=None):
    """One closed-form class step (``class_agreement`` on ``values[:, cols]``) on sub-blocks of
    rows, each drawing from a copy of ``rng``: the draws (random orderings) do not depend on the
    objects, so every sub-block and every worker draws what the in-memory step draws. Returns the
    (weighted) sums over objects of the agreement and of the class shares with their counts, and
    the generator after the step."""
    size, n_classes = values.shape[1], values.shape[2]
    width = size if cols is None else len(cols)
    if n_classes == 2 and voting == "hard" and not population and np.any(2 * np.asarray(n) > width):
        # beyond half the pool two-class majority votes are estimated by empirical Bayes over the
        # vote counts of all the objects (_vote_mixture): a fit to the whole call, not per block
        raise ValueError("Hard votes of two classes beyond half the pool are estimated from the vote counts "
                         "of all the test objects at once (_vote_mixture), which a cluster's blocks do not "
                         "hold; use a pool of at least twice the largest `n`, or the in-memory TreePool.")
    sub = int(max(1, _CLASS_ELEMENTS // ((width + 1) * n_classes)))
    agree_sum, agree_n = np.zeros(len(n)), np.zeros(len(n))
    pi_sum, pi_n = np.zeros((len(n), n_classes)), np.zeros((len(n), n_classes))
    end = None
    for start in range(0, len(values), sub):
        here = values[start:start + sub]
        if cols is not None:
            here = here[:, cols]
        g = copy.deepcopy(rng)
        agree, pi = class_agreement(here, None, n, voting, g, population=population, n_perm=n_perm)
        w = np.ones(len(here)) if weights is None else np.asarray(weights[start:start + sub], dtype=float)
        ok = np.isfinite(agree)
        agree_sum += np.where(ok, agree, 0.0) @ w
        agree_n += ok @ w
        ok = np.isfinite(pi)
        pi_sum += np.einsum("kic,i->kc", np.where(ok, pi, 0.0), w)
        pi_n += np.einsum("kic,i->kc", ok.astype(float), w)
        state = g.bit_generator.state
        if end is not None and state != end.bit_generator.state:
            raise ValueError("The class closed form draws random numbers per object here (more than two "
                             "classes beyond half the pool): it cannot be split over blocks of objects; "
                             "use a pool of at least twice the largest `n`, or the in-memory TreePool.")
        end = g
    if end is None:  # an empty chunk: the step's draws all the same
        end = copy.deepcopy(rng)
        class_agreement(values[:1], None, n, voting, end, population=population, n_perm=n_perm)
    return np.stack([agree_sum, agree_n]), np.stack([pi_sum, pi_n]), end


def _class_bands_chunk(chunk, n, voting, rng, n_resamples, n_obj):
    """The steps of :func:`~._closed_form.closed_form_bands` for classes on one chunk: the curve's
    statistics, the bootstrap world's, the resampling counts, each resampled pool's."""
    rng = copy.deepcopy(rng)
    size = chunk.shape[1]
    out = []
    parts = _class_stage(chunk, n, voting, rng, False, _orderings(n_obj))
    out.append(parts[:2])
    rng = parts[2]
    if n_resamples:
        parts = _class_stage(chunk, n, voting, rng, True, _orderings(n_obj))
        out.append(parts[:2])
        rng = parts[2]
        counts = rng.multinomial(size, np.full(size, 1.0 / size), size=n_resamples)
        n_perm = max(5, _orderings(n_obj) // 8)
        for b in range(n_resamples):
            cols = np.repeat(np.arange(size), counts[b])
            parts = _class_stage(chunk, n, voting, rng, True, n_perm, cols=cols)
            out.append(parts[:2])
            rng = parts[2]
    return out, rng


def _class_object_chunk(chunk, n, voting, rng, cols, counts, n_obj):
    """The class steps of the learners+objects interval on one chunk (objects weighted by how
    often each resample drew them): the bootstrap world's statistics, then each resample's."""
    rng = copy.deepcopy(rng)
    agree, pi, rng = _class_stage(chunk, n, voting, rng, True, _orderings(n_obj))
    out = [(agree, pi)]
    n_perm = max(5, _orderings(n_obj) // 8)
    for b in range(len(cols)):
        agree, pi, rng = _class_stage(chunk, n, voting, rng, False, n_perm, cols=cols[b],
                                      weights=counts[:, b])
        out.append((agree, pi))
    return out, rng


def _resampled_metric_chunk(chunk, rows, counts, weights, ref):
    """The learners+objects sums of one chunk, block by block (``rows`` each, as in memory)."""
    total = None
    for start in range(0, len(chunk), rows):
        part = resampled_metric_block(chunk[start:start + rows], counts[start:start + rows], weights, ref)
        total = part if total is None else tuple(a + b for a, b in zip(total, part, strict=True))
    return total


def _aggregate_chunk(chunk, stub, n, n_forests, voting):
    return TreePool._aggregate(stub, chunk, None, n, n_forests, voting)


def _convert_chunk(chunk, classes, kind):
    """One chunk of members' outputs as the pool's cache: values (float), one-hot votes of labels,
    or checked probabilities (the checks of :meth:`TreePool.from_predictions`)."""
    if kind == "labels":
        votes, _, missing = _labels_to_votes(chunk, classes, "predictions")
    elif kind == "probabilities":
        votes, _, missing = _check_probabilities(chunk, classes, "predictions")
    else:
        votes = chunk if chunk.dtype in (np.float32, np.float64) else chunk.astype(np.float64)
        missing = ~np.isfinite(votes)
    if missing is not None and missing.any():
        raise ValueError("`predictions` has a missing or infinite value; a pool on a cluster takes complete "
                         "predictions of the test objects.")
    return votes


def _call_member(fit_predict, seed):
    return np.asarray(fit_predict(int(seed)))


def _labels_of(values):
    return np.unique(values[~np.array([v is None or v != v for v in values.ravel()]).reshape(values.shape)])


# --------------------------------------------------------------------------- the lazy matrix (client)


def _sum_stages(results):
    """Adds the chunks' class sums step by step: ``[(agree (2, k), pi (2, k, c)), ...]``."""
    total = None
    for steps, _ in results:
        total = steps if total is None else [(a + c, p + d)
                                             for (a, p), (c, d) in zip(total, steps, strict=True)]
    return [{"d_o": 1.0 - agree[0] / agree[1], "share": pi[0] / pi[1]} for agree, pi in total]


def _same_end(results, rng):
    """Moves ``rng`` to where the chunks' generators ended (the same on every chunk)."""
    ends = [end.bit_generator.state for _, end in results]
    if any(state != ends[0] for state in ends[1:]):
        raise ValueError("The class closed form drew different random numbers on different blocks of "
                         "objects; it cannot be computed on a cluster for this pool.")
    rng.bit_generator.state = ends[0]


class ClusterPredictions:
    """Per-learner predictions of the test objects on a cluster: a lazy Dask array (``array``:
    objects x learners [x classes], row chunks of whole engine blocks) that is never gathered.

    Converting it to a NumPy array or indexing it raises: every computation runs on the workers
    through the methods below, which the in-memory engine calls when it meets this object
    (``metric_moments``, ``jackknife_stats``, ``class_bands``, ``learner_object_curves``).

    What travels, for ``N`` test objects, ``P`` learners, ``B`` resamples, ``C`` classes and grid
    size ``K``. Once: the training data to every worker and the fitted ensemble back to the client
    and to every worker (its size: about 0.1 MB per tree of 2,000 training rows). Per pass, to the
    workers: one small graph per chunk of objects (``B`` x ``P`` resampling counts, 4 bytes each,
    broadcast once). Back: the metric closed form and bands -- 16 bytes per object (its mean and
    variance over the learners), ``3 B`` bootstrap sums and ``3 P + 3`` jackknife sums, folded
    chunk after chunk on the workers in block order; the class closed form and bands -- ``(B + 2)
    x 2 K (1 + C)`` sums per chunk; the learners+objects interval of
    :func:`predstab.tune_num_learners` -- out ``B`` counts per object (2 bytes each) and ``B P``
    learner counts, back ``3 B`` sums per chunk (metric) or ``(B + 1) x 2 K (1 + C)`` (classes);
    forests -- their predictions, objects x forests. Nothing of size ``N x P`` moves; a worker
    holds at most one chunk of it per thread (``chunk_bytes``).
    """

    def __init__(self, array, client, rows, first_row=None):
        self.array = array
        self.client = client
        self.rows = int(rows)  # the engine's block rows (chunks hold whole blocks)
        self._first_row = first_row  # the first object's predictions without a pass over a chunk
        self._cache = {}

    @property
    def shape(self):
        return self.array.shape

    @property
    def dtype(self):
        return self.array.dtype

    @property
    def ndim(self):
        return self.array.ndim

    def __len__(self):
        return self.array.shape[0]

    def __array__(self, *args, **kwargs):
        raise RuntimeError("The objects x learners matrix of a DaskTreePool stays on the cluster and is "
                           f"never gathered ({self.shape}); use its reductions, or `.array` to compute "
                           "parts of it.")

    def __getitem__(self, key):
        self.__array__()

    def _compute(self, tasks):
        futures = self.client.compute(list(tasks))
        return self.client.gather(futures)

    def _chunks(self):
        return list(self.array.to_delayed().ravel())

    # -- metric: the closed form's pass (moments, bootstrap sums, jackknife sums) -----------
    def _metric_pass(self, counts):
        """``(mu, var, sums, jack)`` of one pass: what ``metric_moments`` and
        ``_metric_jackknife_stats`` compute in memory, the blocks folded in order."""
        key = None if counts is None else hash(np.asarray(counts).tobytes())
        if key in self._cache:
            return self._cache[key]
        dask, _, _ = _dask()
        size = self.shape[1]
        if self._first_row is not None:
            first = self._first_row()
        else:  # on this pool's client (a pool of members' columns are futures of that client)
            first = np.asarray(self._compute([self.array[:1]])[0])[0]
        ref = float(np.mean(first, dtype=np.float64))
        weights = None if counts is None else np.ascontiguousarray(counts.T, dtype=np.float32)
        if weights is not None:
            [weights] = self.client.scatter([weights], broadcast=True)
        jack = counts is not None and size >= 3
        results = [dask.delayed(_metric_chunk, pure=True)(c, self.rows, ref, weights, jack)
                   for c in self._chunks()]
        acc = None
        for r in results:  # the fold: a chain of small tasks on the workers, in block order
            acc = dask.delayed(_fold, pure=True)(acc, r)
        moments = [dask.delayed(_moments, pure=True)(r) for r in results]
        *parts, (sums, jack_sums) = self._compute([*moments, acc])
        mu = np.concatenate([p[0] for p in parts])
        var = np.concatenate([p[1] for p in parts])
        jack = None if jack_sums is None else jackknife_stats([jack_sums], self.shape[0], size)
        out = (mu, var, sums, jack)
        self._cache = {key: out}
        self._moments = (mu, var)
        return out

    def metric_moments(self, counts=None):
        mu, var, sums, _ = self._metric_pass(counts)
        count = np.full(len(mu), float(self.shape[1]))
        return (mu, var, count) if counts is None else (mu, var, count, sums)

    def jackknife_stats(self):
        if not self._cache or next(iter(self._cache.values()))[3] is None:
            raise RuntimeError("jackknife_stats follows the pass of metric_moments with resampling counts.")
        return next(iter(self._cache.values()))[3]

    # -- classes: the bands' steps in one pass -----------------------------------------------
    def class_bands(self, n, d_e, *, voting, n_resamples, confidence_level, rng):
        """:func:`~._closed_form.closed_form_bands` for classes: the same steps, each chunk running
        them all on its objects (one pass), the sums over objects added in the client."""
        dask, _, _ = _dask()
        n_obj, size = self.shape[0], self.shape[1]
        tasks = [dask.delayed(_class_bands_chunk, pure=True)(c, n, voting, rng, n_resamples, n_obj)
                 for c in self._chunks()]
        results = self._compute(tasks)
        steps = _sum_stages(results)
        _same_end(results, rng)
        curves = {m: curve_from_stats(steps[0], n, m, value, warn=True) for m, value in d_e.items()}
        out = {}
        for m, value in d_e.items():
            errors, band = None, None
            if n_resamples:
                truth = curve_from_stats(steps[1], n, m, value)
                errors = np.stack([curve_from_stats(s, n, m, value) for s in steps[2:]]) - truth
                band = percentile_band(curves[m], errors, confidence_level)
            else:
                band = ConfidenceInterval(np.full(len(n), np.nan), np.full(len(n), np.nan))
            out[m] = ClosedFormResult(measure=m, n_learners=np.asarray(n, dtype=float).copy(),
                                      curve=curves[m],
                                      confidence_interval=band, errors=errors, n_resamples=n_resamples,
                                      confidence_level=confidence_level, pool_size=size, voting=voting)
        return out

    # -- the learners+objects interval of tune_num_learners ----------------------------------
    def learner_object_curves(self, pool, grid, measure, spec, curve, n_bootstrap, rng):
        """:func:`~._recommendation_interval._learner_object_curves` on the cluster: the same draws
        (objects then learners, from ``rng``), each chunk weighing its objects by their counts."""
        dask, _, _ = _dask()
        n_obj, size = self.shape[0], self.shape[1]
        classifier, voting = pool.is_classifier_, pool.voting_
        d_e = pool._closed_form_expected(measure, _closed_baselines(spec).get(measure), voting)
        n = np.asarray(grid, dtype=float)
        n_boot = int(n_bootstrap)
        counts = np.empty((n_obj, n_boot), dtype=np.uint16)
        for b in range(n_boot):  # the rows of _learner_object_draws, one resample at a time (same stream)
            counts[:, b] = np.bincount(rng.integers(0, n_obj, n_obj), minlength=n_obj)
        cols = rng.integers(0, size, (n_boot, size))
        starts = np.cumsum((0,) + self.array.chunks[0])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if not classifier:
                mu, var = self._moments if hasattr(self, "_moments") else self.metric_moments(None)[:2]
                truth_stats = _metric_stats(mu, var, np.full(n_obj, float(size)), n, size, False, True)
                [w] = self.client.scatter([learner_counts(cols, size)], broadcast=True)
                ref = float(np.mean(mu))
                tasks = [dask.delayed(_resampled_metric_chunk, pure=True)(
                    c, self.rows, counts[starts[k]:starts[k + 1]].astype(np.float64), w, ref)
                    for k, c in enumerate(self._chunks())]
                parts = self._compute(tasks)
                sums = [sum(p[i] for p in parts) for i in range(3)]
                stats = resampled_metric_stats(*sums, n_obj, size, n)
            else:
                tasks = [dask.delayed(_class_object_chunk, pure=True)(
                    c, n, voting, rng, cols, counts[starts[k]:starts[k + 1]], n_obj)
                    for k, c in enumerate(self._chunks())]
                results = self._compute(tasks)
                steps = _sum_stages(results)
                _same_end(results, rng)
                truth_stats, stats = steps[0], steps[1:]
            truth = curve_from_stats(truth_stats, n, measure, d_e)
            return np.stack([_pivot(curve, curve_from_stats(s, n, measure, d_e), truth, classifier)
                             for s in stats])

    # -- forests ---------------------------------------------------------------------------
    def aggregate(self, stub, n, n_forests, voting):
        dask, _, _ = _dask()
        tasks = [dask.delayed(_aggregate_chunk, pure=True)(c, stub, n, n_forests, voting)
                 for c in self._chunks()]
        return np.concatenate(self._compute(tasks))


class _Stub:
    """What :meth:`TreePool._aggregate` reads of a pool, shipped to the workers."""

    def __init__(self, is_classifier, classes):
        self.is_classifier_ = is_classifier
        self.classes_ = classes


# --------------------------------------------------------------------------- the pool


class DaskTreePool(TreePool):
    """A :class:`~predstab.TreePool` on a dask.distributed cluster: the objects x learners matrix of
    the test objects is never gathered.

    The learners are fitted on the workers (joblib's Dask backend; the same learners as
    :class:`~predstab.TreePool` with the same seed), the fitted ensemble is sent once to every
    worker, and each worker predicts the chunks of test objects it is given and reduces them to
    what the closed forms, their bands, the forests and :func:`predstab.tune_num_learners` need
    (:class:`ClusterPredictions` says what travels and its size). Every call that needs the
    learners' predictions is one pass over the test objects (the trees predict them again; the
    metric closed form's pass is shared by the measures of one tuning).

    Parameters
    ----------
    estimator, n_learners, voting, random_state, dtype :
        As for :class:`~predstab.TreePool`.
    client : distributed.Client, optional
        The cluster; default the active client (``distributed.get_client()``).
    chunk_bytes : int, default 64 MiB
        Predictions per chunk of test objects on a worker (rows: a multiple of the in-memory
        engine's blocks). A worker thread holds one chunk of predictions, its rows of ``X_test``,
        the engine's float64 temporaries of one block (about 4 MB, at least 64 objects) and the
        fitted ensemble; so its peak memory is about ``chunk_bytes`` plus the ensemble.

    Attributes
    ----------
    test_predictions_ : ClusterPredictions
        The lazy per-learner predictions of the test objects (never gathered: converting raises).
    train_predictions_, oob_ :
        The training rows' predictions and out-of-bag mask, in the client as for
        :class:`~predstab.TreePool` (training rows x learners; psi's baseline).

    Notes
    -----
    The same seed gives the same numbers as the in-memory pool: the metric closed forms and
    bands bit for bit (the chunks hold the in-memory pass's blocks and their sums are added in
    its order), the class closed forms and the learners+objects interval to rounding (sums over
    objects in another order; tested to 1e-12). ``X_test`` is required (out-of-bag closed forms
    on the training rows stay in memory); :meth:`extend` fits the added learners on the workers as
    well. More than two
    classes beyond half the pool (whose extrapolation draws random numbers per object) and hard
    votes of two classes beyond half the pool (an empirical-Bayes fit to all the objects' vote
    counts) raise.

    Examples
    --------
    See docs/concepts.md ("Tuning on a cluster").
    """

    def __init__(self, estimator, *, n_learners=1000, voting="soft", random_state=None, dtype="float64",
                 client=None, chunk_bytes=CHUNK_BYTES):
        super().__init__(estimator, n_learners=n_learners, voting=voting, random_state=random_state,
                         dtype=dtype)
        self.client = client
        self.chunk_bytes = chunk_bytes

    @validate_params({"oob": ["boolean"], "progress": ["callable", Options((True,)), None]})
    def fit(self, X, y, X_test=None, *, oob=True, progress=None):
        """Fit the pool on the cluster; the test objects' predictions stay there, lazily.

        Parameters
        ----------
        X, y :
            Training data (in the client; sent to the workers to fit the learners).
        X_test : array-like, Dask array or Dask DataFrame of shape (n_test, n_features)
            The test objects, read chunk by chunk on the workers (e.g. ``dask.dataframe.read_parquet``
            or ``dask.array.from_zarr``).
        oob : bool, default True
            Also predict the training rows (in the client) for out-of-bag predictions and psi's
            baseline.
        progress : ignored
            Follow the cluster's dashboard.

        Returns
        -------
        self
        """
        from sklearn.base import clone, is_classifier

        _, da, _ = _dask()
        client = _get_client(self.client)
        estimator, n_learners, voting, rng = _pool_iv(self.estimator, self.n_learners, self.voting,
                                                      self.random_state)
        check_param("dtype", self.dtype, [Options({"float64", "float32", np.float64, np.float32})])
        if X_test is None:
            raise ValueError("`X_test` is required on a cluster (the training rows' out-of-bag closed forms "
                             "stay in memory: use TreePool).")
        if not (isinstance(self.chunk_bytes, (int, np.integer)) and self.chunk_bytes > 0):
            raise ValueError(f"`chunk_bytes` must be a positive number of bytes; got {self.chunk_bytes!r}.")
        X, y, X_test = check_fit_data(X, y, X_test)  # the gate of TreePool.fit (a Dask X_test as given)
        y = np.asarray(y)
        model = clone(estimator)
        self.seed_ = int(seeds_from(rng, 1)[0])
        params = {"n_estimators": n_learners, "random_state": self.seed_}
        if "n_jobs" in model.get_params():
            params["n_jobs"] = None
        model.set_params(**params)
        self.rng_, self.voting_ = rng, voting
        start = time.perf_counter()
        model = _fit_on_workers(client, model, X, y)
        self.fit_seconds_ = time.perf_counter() - start
        self.is_classifier_ = bool(is_classifier(model))
        self.classes_ = np.asarray(model.classes_) if self.is_classifier_ else None
        self.y_train_, self.ensemble_, self.on_train_ = y, model, False
        self._data = (X, y, X_test, oob)  # for extend()
        self._attach(client, model, self._test_array(X_test, model))
        self.train_predictions_, self.oob_ = None, None
        if oob:
            self.train_predictions_ = learner_predictions(model, X, dtype=self.dtype)
            if is_bagging_ensemble(model):
                self.oob_ = ~inbag_mask(model, len(y)).T
        return self

    def _attach(self, client, model, X_test):
        """The lazy per-learner predictions of ``X_test`` (a Dask array) by ``model``, sent once to
        every worker, in chunks of about ``chunk_bytes`` predictions."""
        n_learners = len(model.estimators_)
        width = len(self.classes_) if self.is_classifier_ else 1
        itemsize = np.dtype(self.dtype).itemsize
        rows, chunk = _chunk_rows(X_test.shape[0], n_learners, width, itemsize, self.chunk_bytes)
        X_test = X_test.rechunk((chunk, X_test.shape[1]))
        [remote] = client.scatter([model], broadcast=True, hash=False)
        out_chunks = (X_test.chunks[0], (n_learners,)) + (((width,),) if self.is_classifier_ else ())
        new_axis = {"new_axis": 2} if self.is_classifier_ else {}
        array = X_test.map_blocks(_predict_chunk, remote, self.dtype, dtype=np.dtype(self.dtype),
                                  chunks=out_chunks, **new_axis)
        dtype = self.dtype

        def first_row():
            return _predict_chunk(np.asarray(X_test[:1].compute()), model, dtype)[0]

        self.test_predictions_ = ClusterPredictions(array, client, rows, first_row=first_row)
        self.predict_seconds_ = float("nan")  # lazy: each pass predicts

    @staticmethod
    def _test_array(X_test, model):
        """``X_test`` as a Dask array of rows, checked against the training data as in memory."""
        dask, da, _ = _dask()
        if hasattr(X_test, "to_dask_array"):  # a Dask DataFrame: names checked on its first rows
            check_test_data(model, X_test.head(2, npartitions=-1))
            return X_test.to_dask_array(lengths=True)
        if isinstance(X_test, da.Array):
            if np.isnan(X_test.shape[0]):
                X_test = X_test.compute_chunk_sizes()
            check_test_data(model, X_test[:2].compute())
            return X_test
        X_test = check_test_data(model, X_test)
        return da.from_array(X_test, chunks=(max(len(X_test), 1), X_test.shape[1]))

    @validate_params({"n_learners": [Interval(Integral, 2, None)],
                      "progress": ["callable", Options((True,)), None]})
    def extend(self, n_learners, *, progress=None):
        """Add ``n_learners`` learners, fitted on the workers, as :meth:`TreePool.extend` does: one
        more ensemble seeded from the pool's generator (the same learners as the in-memory pool's
        ``extend``), joined to ``ensemble_`` and sent again to every worker; the test objects'
        predictions stay lazy (the next pass predicts with every learner), the training rows'
        predictions and out-of-bag rows are appended. ``progress`` is ignored.

        Returns
        -------
        self
        """
        self._check_fitted()
        X, y, X_test, oob = self._data
        client = _get_client(self.client)
        more = DaskTreePool(self.estimator, n_learners=n_learners, voting=self.voting, random_state=self.rng_,
                            dtype=self.dtype, client=client, chunk_bytes=self.chunk_bytes)
        more.fit(X, y, X_test, oob=oob)
        if self.train_predictions_ is not None:
            self.train_predictions_ = np.concatenate([self.train_predictions_, more.train_predictions_],
                                                     axis=1)
        if self.oob_ is not None:
            self.oob_ = np.concatenate([self.oob_, more.oob_], axis=1)
        self.fit_seconds_ += more.fit_seconds_
        _join_ensembles(self.ensemble_, more.ensemble_)
        self._attach(client, self.ensemble_, self._test_array(X_test, self.ensemble_))
        return self

    def _aggregate(self, learner_preds, mask, n, n_forests, voting):
        if isinstance(learner_preds, ClusterPredictions):
            return learner_preds.aggregate(_Stub(self.is_classifier_, self.classes_), n, n_forests, voting)
        return super()._aggregate(learner_preds, mask, n, n_forests, voting)

    @classmethod
    def from_fit_predict(cls, fit_predict, n_members, *, classes=None, voting="soft", y=None,
                         random_state=None, client=None, chunk_bytes=CHUNK_BYTES):
        """:meth:`TreePool.from_fit_predict` on a cluster: each ``fit_predict(seed)`` runs on a worker
        and its predictions stay there; the members' columns are regrouped into chunks of test objects
        (Dask's rechunk) and reduced as for a fitted pool. The seeds and numbers are the in-memory
        pool's. Labels are read as labels when ``classes`` is given or they are not numbers."""
        dask, da, _ = _dask()
        client = _get_client(client)
        n_members = int(n_members)
        if n_members < 2:
            raise ValueError(f"`n_members` must be at least 2; got {n_members}.")
        rng = check_rng(random_state)
        seeds = seeds_from(rng, n_members)
        start = time.perf_counter()
        futures = [client.submit(_call_member, fit_predict, int(s), pure=False) for s in seeds]
        metas = client.gather([client.submit(lambda a: (a.shape, a.dtype.str), f) for f in futures])
        shapes = {m[0] for m in metas}
        if len(shapes) != 1 or len(metas[0][0]) not in (1, 2):
            raise ValueError(f"`fit_predict` must return predictions of one shape, (n_objects,) or "
                             f"(n_objects, n_classes), for every seed; got shapes {sorted(shapes)}.")
        shape = metas[0][0]
        kinds = {np.dtype(m[1]).kind for m in metas}
        columns = [da.from_delayed(f, shape=shape, dtype=np.dtype(metas[0][1])) for f in futures]
        array = da.stack(columns, axis=1)
        if len(shape) == 2:
            kind = "probabilities"
            classes = np.arange(shape[1]) if classes is None else np.asarray(classes)
        elif classes is not None or kinds - set("iufb"):
            kind = "labels"
            if kinds - set("iufb"):
                array = array.astype(object)
            if classes is None:
                labels = client.gather([client.submit(_labels_of, f) for f in futures])
                classes = np.unique(np.concatenate(labels))
            classes = np.asarray(classes)
        else:
            kind = "values"
        width = len(classes) if kind != "values" else 1
        rows, chunk = _chunk_rows(shape[0], n_members, width, 8, chunk_bytes)
        array = array.rechunk((chunk,) + array.shape[1:])
        out_chunks = (array.chunks[0], (n_members,)) + (((width,),) if kind != "values" else ())
        out_dtype = np.float64 if kind != "values" or array.dtype.kind != "f" else array.dtype
        array = array.map_blocks(_convert_chunk, classes if kind != "values" else None, kind, dtype=out_dtype,
                                 chunks=out_chunks, **({"new_axis": 2} if kind == "labels" else {}))
        hard = kind == "labels"
        pool = cls(None, n_learners=n_members, voting="hard" if hard else voting, random_state=rng,
                   client=client, chunk_bytes=chunk_bytes)
        pool.rng_ = rng
        pool.seed_ = int(seeds_from(rng, 1)[0])
        pool.voting_ = "hard" if hard else voting
        pool.ensemble_ = None
        pool.dtype = "float32" if out_dtype == np.float32 else "float64"
        pool.is_classifier_ = kind != "values"
        pool.classes_ = classes if kind != "values" else None
        pool.y_train_ = None if y is None else np.asarray(y)
        pool.on_train_ = False
        pool.test_predictions_ = ClusterPredictions(array, client, rows)
        pool.train_predictions_, pool.oob_ = None, None
        pool.seeds_ = seeds
        pool.fit_seconds_ = time.perf_counter() - start
        pool.predict_seconds_ = float("nan")
        return pool

