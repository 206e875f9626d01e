"""DaskTreePool on one in-process cluster (2 worker threads): the numbers of the in-memory pool,
fast enough to measure ``ensembles/_distributed``'s mutation score (issue 33). The same paths
as tests/ensembles/test_distributed.py (which keeps a LocalCluster of 2 worker processes, issue
37 item 2) on tiny data, plus the chunk edges, every kind of member pool and the module's block
reductions called directly, each pinned against the in-memory engine or a computation here."""

import copy
import warnings

import numpy as np
import pytest

distributed = pytest.importorskip("distributed", reason="DaskTreePool needs dask[distributed]")
da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")

from sklearn.datasets import make_classification, make_regression  # noqa: E402
from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor  # noqa: E402

from predstab import DaskTreePool, TreePool, tune_num_learners  # noqa: E402
from predstab.ensembles import _distributed as dist_mod  # noqa: E402
from predstab.ensembles._closed_form import jackknife_block, metric_block  # noqa: E402
from tests.ensembles._dask_checks import close, same_tuning, tuned_member_pools  # noqa: E402

FIELDS = ("curve", "errors", "low", "high")


@pytest.fixture(scope="module")
def cluster():
    # threads of this process: nothing pickled, the mutants of the module reach the workers. Closing
    # a client that joblib's Dask backend used under `as_current` leaves dask's scheduler setting at
    # "dask.distributed" (distributed's own config restore; a default Client does not): the outer
    # set puts back what the other tests' dask computations use
    with dask.config.set(scheduler=dask.config.get("scheduler", None)), \
            distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                     dashboard_address=None) as local, \
            distributed.Client(local, set_as_default=False) as client:
        yield client


@pytest.fixture
def client(cluster):
    with cluster.as_current():
        yield cluster


def _same(a, b):
    for field in FIELDS:
        np.testing.assert_array_equal(getattr(a, field), getattr(b, field), err_msg=field)


@pytest.fixture(scope="module")
def regression():
    X, y = make_regression(420, 5, noise=25, random_state=0)
    return X[:120], y[:120], X[120:]  # 300 test objects


def _forest(**kw):
    return RandomForestRegressor(n_estimators=5, max_features=2, min_samples_leaf=3, max_depth=5, **kw)


def _icc1(preds):
    """ICC(1) of forests of one learner, from the objects' means and variances over the learners."""
    mu, var = preds.mean(axis=1), preds.var(axis=1, ddof=1)
    between = np.var(mu, ddof=1) - var.mean() / preds.shape[1]
    return between / (between + var.mean())


# --------------------------------------------------------------------------- regression pools

@pytest.fixture(scope="module")
def regression_pools(cluster, regression):
    X, y, Xt = regression
    with cluster.as_current():
        mem = TreePool(_forest(), n_learners=20, random_state=1).fit(X, y, Xt)
        # 128 rows a chunk: 300 objects in chunks 128, 128, 44 (two engine blocks, two, one partial)
        dist = DaskTreePool(_forest(), n_learners=20, random_state=1, chunk_bytes=128 * 20 * 8).fit(X, y, Xt)
    return mem, dist


def test_regression_chunks_hold_whole_blocks_and_a_partial_last_one(client, regression_pools):
    mem, dist = regression_pools
    assert dist.test_predictions_.array.chunks[0] == (128, 128, 44)
    assert dist.test_predictions_.rows == 64
    # the metric pass's centring row, predicted in the client without a pass over a chunk
    np.testing.assert_array_equal(dist.test_predictions_._first_row(), mem.test_predictions_[0])
    assert dist.test_predictions_.shape == (300, 20)
    assert len(dist.test_predictions_) == 300 and dist.test_predictions_.ndim == 2
    assert dist.test_predictions_.dtype == np.float64
    np.testing.assert_array_equal(dist.test_predictions_.array.compute(), mem.test_predictions_)
    assert np.isnan(dist.predict_seconds_) and dist.fit_seconds_ > 0
    np.testing.assert_array_equal(mem.train_predictions_, dist.train_predictions_)
    np.testing.assert_array_equal(mem.oob_, dist.oob_)
    assert dist.ensemble_.n_estimators == 20 and len(dist.ensemble_.estimators_) == 20
    assert dist.seed_ == mem.seed_ and dist.voting_ == "soft" and dist.classes_ is None
    assert not dist.is_classifier_ and not dist.on_train_
    np.testing.assert_array_equal(dist.y_train_, mem.y_train_)


@pytest.mark.parametrize("measure", ["icc", "phi", "psi"])
def test_regression_closed_forms_and_bands_bit_for_bit(client, regression_pools, measure):
    mem, dist = regression_pools
    a = mem.closed_form([1, 3, 10, 20, 70], measure=measure, n_resamples=15)
    b = dist.closed_form([1, 3, 10, 20, 70], measure=measure, n_resamples=15)
    _same(a, b)
    assert a.curve[0] < a.curve[-1] < 1
    assert np.all(np.isfinite(b.low)) and np.all(b.low <= b.curve) and np.all(b.curve <= b.high)
    # no bands: the curve alone
    c = dist.closed_form([1, 3, 10], measure=measure)
    np.testing.assert_array_equal(c.curve, a.curve[:3])
    assert c.errors is None and np.all(np.isnan(c.low))


def test_regression_icc_at_one_learner_is_the_textbook_icc1(client, regression_pools):
    mem, dist = regression_pools
    res = dist.closed_form([1, 2], n_resamples=0)
    assert abs(res.curve[0] - _icc1(mem.test_predictions_)) < 1e-12


def test_forests_and_oob_baseline_equal_in_memory(client, regression_pools):
    mem, dist = regression_pools
    got = dist.forests(7)
    assert got.shape == (300, 2)
    np.testing.assert_array_equal(mem.forests(7), got)
    # the first forest is the mean of the first 7 learners' predictions
    np.testing.assert_allclose(got[:, 0], mem.test_predictions_[:, :7].mean(axis=1), rtol=1e-14)
    np.testing.assert_array_equal(mem.forests(4, n_forests=3), dist.forests(4, n_forests=3))
    np.testing.assert_array_equal(mem.oob_baseline(), dist.oob_baseline())


def test_the_matrix_is_never_gathered(regression_pools):
    _, dist = regression_pools
    message = ("The objects x learners matrix of a DaskTreePool stays on the cluster and is never gathered "
               "((300, 20)); use its reductions, or `.array` to compute parts of it.")
    for convert in (np.asarray, lambda p: p[:3], lambda p: p[0]):
        with pytest.raises(RuntimeError) as raised:
            convert(dist.test_predictions_)
        assert str(raised.value) == message


def test_the_jackknife_needs_the_resampling_pass_first(client, regression):
    X, y, Xt = regression
    pool = DaskTreePool(_forest(), n_learners=6, random_state=1).fit(X, y, Xt, oob=False)
    with pytest.raises(RuntimeError, match="follows the pass of metric_moments"):
        pool.test_predictions_.jackknife_stats()
    mu, var, count = pool.test_predictions_.metric_moments()
    with pytest.raises(RuntimeError, match="follows the pass of metric_moments"):
        pool.test_predictions_.jackknife_stats()  # a pass without counts has no jackknife
    full = pool.test_predictions_.array.compute()
    np.testing.assert_allclose(mu, full.mean(axis=1), rtol=1e-13)
    np.testing.assert_allclose(var, full.var(axis=1, ddof=1), rtol=1e-10)
    np.testing.assert_array_equal(count, np.full(300, 6.0))
    assert pool.train_predictions_ is None and pool.oob_ is None


def test_the_cached_pass_is_reused_and_replaced(client, regression_pools):
    _, dist = regression_pools
    preds = dist.test_predictions_
    counts = np.ones((3, 20), dtype=np.int64)
    first = preds.metric_moments(counts)
    again = preds.metric_moments(counts.copy())
    assert again[0] is first[0]  # the same counts: the pass is not run again
    other = preds.metric_moments(None)
    assert other[0] is not first[0] and list(preds._cache) == [None]  # one pass kept, the last
    np.testing.assert_array_equal(other[0], first[0])


def test_extend_fits_on_the_cluster_as_in_memory(client, regression):
    X, y, Xt = regression
    mem = TreePool(_forest(), n_learners=8, random_state=3).fit(X, y, Xt).extend(6)
    dist = DaskTreePool(_forest(), n_learners=8, random_state=3, chunk_bytes=64 * 14 * 8).fit(X, y, Xt)
    seconds = dist.fit_seconds_
    assert dist.extend(6) is dist and dist.ensemble_.n_estimators == 14
    assert dist.fit_seconds_ > seconds
    assert dist.test_predictions_.shape == (300, 14)
    assert dist.test_predictions_.array.chunks[0] == (64, 64, 64, 64, 44)
    _same(mem.closed_form([1, 5, 14], n_resamples=10), dist.closed_form([1, 5, 14], n_resamples=10))
    np.testing.assert_array_equal(mem.forests(7), dist.forests(7))
    np.testing.assert_array_equal(mem.train_predictions_, dist.train_predictions_)
    np.testing.assert_array_equal(mem.oob_, dist.oob_)
    assert dist.train_predictions_.shape == (120, 14) and dist.oob_.shape == (120, 14)
    # without the training rows: nothing to append
    bare = DaskTreePool(_forest(), n_learners=4, random_state=3).fit(X, y, Xt, oob=False).extend(2)
    assert bare.train_predictions_ is None and bare.oob_ is None
    small = TreePool(_forest(), n_learners=4, random_state=3).fit(X, y, Xt, oob=False).extend(2)
    np.testing.assert_array_equal(bare.test_predictions_.array.compute(), small.test_predictions_)


def test_float32_pool(client, regression):
    X, y, Xt = regression
    mem = TreePool(_forest(), n_learners=10, random_state=5, dtype="float32").fit(X, y, Xt)
    dist = DaskTreePool(_forest(), n_learners=10, random_state=5, dtype="float32",
                        chunk_bytes=128 * 10 * 4).fit(X, y, Xt)
    # float32: 128 rows of 10 learners in 5,120 bytes (64 rows in float64)
    assert dist.test_predictions_.dtype == np.float32
    assert dist.test_predictions_.array.chunks[0] == (128, 128, 44)
    np.testing.assert_array_equal(dist.test_predictions_.array.compute(), mem.test_predictions_)
    _same(mem.closed_form([1, 4, 10], n_resamples=8), dist.closed_form([1, 4, 10], n_resamples=8))


# --------------------------------------------------------------------------- classes

@pytest.fixture(scope="module")
def classification():
    X, y = make_classification(330, 5, n_informative=3, flip_y=0.2, random_state=0)
    return X[:90], y[:90], X[90:]  # 240 test objects


@pytest.mark.parametrize("voting", ["hard", "soft"])
def test_two_class_closed_forms_equal_in_memory(client, classification, voting):
    X, y, Xt = classification
    est = RandomForestClassifier(n_estimators=5, max_features=2, max_depth=6)
    mem = TreePool(est, n_learners=24, voting=voting, random_state=2).fit(X, y, Xt)
    dist = DaskTreePool(est, n_learners=24, voting=voting, random_state=2,
                        chunk_bytes=64 * 24 * 2 * 8).fit(X, y, Xt)
    assert dist.test_predictions_.array.chunks[0] == (64, 64, 64, 48)
    assert dist.test_predictions_.shape == (240, 24, 2)
    np.testing.assert_array_equal(dist.classes_, [0, 1])
    assert dist.is_classifier_ and dist.voting_ == voting
    a = mem.closed_form([1, 3, 12], measure="fleiss", n_resamples=6)
    b = dist.closed_form([1, 3, 12], measure="fleiss", n_resamples=6)
    for field in FIELDS:
        close(getattr(a, field), getattr(b, field))
    assert 0 < a.curve[0] < a.curve[-1] < 1
    assert b.pool_size == 24 and b.n_resamples == 6 and b.voting == voting and b.measure == "fleiss"
    c = dist.closed_form([1, 3, 12], measure="fleiss")  # no bands
    close(c.curve, a.curve)
    assert c.errors is None and np.all(np.isnan(c.high))
    np.testing.assert_array_equal(mem.forests(5), dist.forests(5))
    np.testing.assert_array_equal(mem.forests(5, voting="hard"), dist.forests(5, voting="hard"))
    if voting == "hard":  # beyond half the pool: an empirical-Bayes fit to all the objects, refused
        with pytest.raises(ValueError) as raised:
            dist.closed_form([2, 13], measure="fleiss")
        assert str(raised.value) == (
            "Hard votes of two classes beyond half the pool are estimated from the vote counts of all the "
            "test objects at once (_vote_mixture), which a cluster's blocks do not hold; use a pool of at "
            "least twice the largest `n`, or the in-memory TreePool.")
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            close(mem.closed_form([13, 20], measure="fleiss").curve,
                   dist.closed_form([13, 20], measure="fleiss").curve)


def test_three_classes_equal_in_memory_and_refused_beyond_half_the_pool(client):
    X, y = make_classification(300, 6, n_informative=4, n_classes=3, flip_y=0.2, random_state=1)
    est = RandomForestClassifier(n_estimators=5, max_features=2, max_depth=6)
    mem = TreePool(est, n_learners=16, voting="hard", random_state=7).fit(X[:90], y[:90], X[90:])
    dist = DaskTreePool(est, n_learners=16, voting="hard", random_state=7,
                        chunk_bytes=64 * 16 * 3 * 8).fit(X[:90], y[:90], X[90:])
    assert dist.test_predictions_.array.chunks[0] == (64, 64, 64, 18)
    a = mem.closed_form([1, 2, 8], measure="fleiss", n_resamples=5)
    b = dist.closed_form([1, 2, 8], measure="fleiss", n_resamples=5)
    for field in FIELDS:
        close(getattr(a, field), getattr(b, field))
    # beyond half the pool three classes draw per object: the chunks' generators end apart
    with pytest.raises(ValueError, match="drew different random numbers on different blocks of objects"):
        dist.closed_form([2, 12], measure="fleiss")


def test_three_classes_beyond_half_the_pool_refused_within_a_chunk(client, monkeypatch):
    # sub-blocks of 10 objects within one chunk: the step itself sees the generators end apart
    monkeypatch.setattr(dist_mod, "_CLASS_ELEMENTS", 10 * 9 * 3)
    labels = np.random.default_rng(3).integers(0, 3, size=(40, 8))
    pool = DaskTreePool.from_fit_predict(lambda s: labels[:, s % 8], 8, classes=[0, 1, 2], random_state=0)
    assert len(pool.test_predictions_.array.chunks[0]) == 1
    with pytest.raises(ValueError, match="draws random numbers per object here"):
        pool.closed_form([2, 6], measure="fleiss")
    # up to half the pool: the same numbers as in memory, with sub-blocks
    mem = TreePool.from_fit_predict(lambda s: labels[:, s % 8], 8, classes=[0, 1, 2], random_state=0)
    a = mem.closed_form([1, 2, 4], measure="fleiss", n_resamples=4)
    b = pool.closed_form([1, 2, 4], measure="fleiss", n_resamples=4)
    for field in FIELDS:
        close(getattr(a, field), getattr(b, field))


# --------------------------------------------------------------------------- pools of members

def _values(seed):
    rng = np.random.default_rng(seed)
    return np.sin(np.arange(150) / 15) + rng.normal(scale=0.7, size=150)


def _values32(seed):
    return _values(seed).astype(np.float32)


def _integers(seed):
    return np.round(3 * _values(seed)).astype(np.int64)


def _labels(seed):
    return np.where(_values(seed) > 0.2, "yes", "no")


def _numbered_labels(seed):
    return (_values(seed) > 0.2).astype(np.int64)


def _probabilities(seed):
    p = 1 / (1 + np.exp(-2 * _values(seed)))
    return np.column_stack([1 - p, p])


@pytest.mark.parametrize("fit_predict, measure, options", [
    (_values, "icc", {}), (_values32, "icc", {}), (_integers, "icc", {}),
    (_labels, "fleiss", {}), (_numbered_labels, "fleiss", {"classes": [0, 1]}),
    (_probabilities, "fleiss", {}), (_probabilities, "fleiss", {"voting": "hard"}),
], ids=["values", "float32", "integers", "labels", "numbered-labels", "probabilities", "probabilities-hard"])
def test_from_fit_predict_equals_in_memory(client, fit_predict, measure, options):
    mem = TreePool.from_fit_predict(fit_predict, 8, random_state=4, **options)
    dist = DaskTreePool.from_fit_predict(fit_predict, 8, random_state=4, chunk_bytes=64 * 8 * 2 * 8,
                                         y=np.arange(150.0), **options)
    np.testing.assert_array_equal(mem.seeds_, dist.seeds_)
    assert dist.seed_ == mem.seed_ and dist.voting_ == mem.voting_ and dist.ensemble_ is None
    assert dist.is_classifier_ == mem.is_classifier_ and dist.dtype == mem.dtype
    np.testing.assert_array_equal(dist.y_train_, np.arange(150.0))
    if mem.classes_ is None:
        assert dist.classes_ is None
    else:
        np.testing.assert_array_equal(mem.classes_, dist.classes_)
    preds = dist.test_predictions_
    assert preds.array.chunks[0] == ((128, 22) if measure == "icc" else (64, 64, 22))
    assert preds.shape == mem.test_predictions_.shape  # the lazy array's metadata: classes too
    np.testing.assert_array_equal(preds.array.compute(), mem.test_predictions_)
    assert preds.dtype == mem.test_predictions_.dtype
    a = mem.closed_form([1, 2, 4], measure=measure, n_resamples=6)
    b = dist.closed_form([1, 2, 4], measure=measure, n_resamples=6)
    for field in FIELDS:
        close(getattr(a, field), getattr(b, field))
    assert dist.fit_seconds_ > 0 and np.isnan(dist.predict_seconds_)
    assert dist.train_predictions_ is None and dist.oob_ is None and not dist.on_train_


def test_from_fit_predict_keeps_the_client_and_times_the_members(cluster):
    import time

    start = time.perf_counter()
    pool = DaskTreePool.from_fit_predict(_values, 4, random_state=0, client=cluster)
    elapsed = time.perf_counter() - start
    assert pool.client is cluster and pool.test_predictions_.client is cluster
    assert 0 < pool.fit_seconds_ <= elapsed
    mem = TreePool.from_fit_predict(_values, 4, random_state=0)
    _same(mem.closed_form([1, 2], n_resamples=3), pool.closed_form([1, 2], n_resamples=3))


def test_from_fit_predict_probabilities_are_checked_by_name(client):
    pool = DaskTreePool.from_fit_predict(lambda s: _probabilities(s) * 1.5, 3, random_state=0)
    with pytest.raises(ValueError, match=r"^`predictions` must hold probabilities in \[0, 1\]; got values"):
        pool.closed_form([1, 2], measure="fleiss")


def test_from_fit_predict_refusals(client):
    with pytest.raises(ValueError, match="`n_members` must be at least 2; got 1"):
        DaskTreePool.from_fit_predict(_values, 1)
    with pytest.raises(ValueError, match=r"one shape.*got shapes \[\(149,\), \(150,\)\]"):
        DaskTreePool.from_fit_predict(lambda s: _values(s)[: 149 + s % 2], 6, random_state=0)
    with pytest.raises(ValueError, match=r"one shape.*got shapes \[\(2, 2, 2\)\]"):
        DaskTreePool.from_fit_predict(lambda s: np.zeros((2, 2, 2)), 3)

    def gaps(seed):
        v = _values(seed)
        v[5] = np.nan
        return v

    pool = DaskTreePool.from_fit_predict(gaps, 3, random_state=0)
    with pytest.raises(ValueError, match="`predictions` has a missing or infinite value"):
        pool.closed_form([1, 2])


def test_labels_of_leave_out_missing_values():
    values = np.array([["b", None], [float("nan"), "a"], ["b", "c"]], dtype=object)
    assert dist_mod._labels_of(values).tolist() == ["a", "b", "c"]


def test_convert_chunk_kinds():
    values = np.arange(6, dtype=np.int64).reshape(3, 2)
    got = dist_mod._convert_chunk(values, None, "values")
    assert got.dtype == np.float64 and got.tolist() == values.tolist()
    f32 = values.astype(np.float32)
    assert dist_mod._convert_chunk(f32, None, "values") is f32
    labels = np.array([["a", "b"], ["b", "b"]], dtype=object)
    votes = dist_mod._convert_chunk(labels, np.array(["a", "b"]), "labels")
    np.testing.assert_array_equal(votes, [[[1, 0], [0, 1]], [[0, 1], [0, 1]]])
    with pytest.raises(ValueError, match="missing or infinite"):
        dist_mod._convert_chunk(np.array([[1.0, np.inf]]), None, "values")


# --------------------------------------------------------------------------- tune_num_learners

@pytest.mark.parametrize("method", ["closed_form", "pool"])
def test_tune_num_learners_equals_in_memory(client, regression, method):
    X, y, Xt = regression
    mem = TreePool(_forest(), n_learners=24, random_state=1).fit(X, y, Xt)
    dist = DaskTreePool(_forest(), n_learners=24, random_state=1, chunk_bytes=128 * 24 * 8).fit(X, y, Xt)
    options = {"grid": [2, 4, 8, 12] if method == "closed_form" else [2, 4, 6], "method": method,
               "n_resamples": 12, "random_state": 3, "n_repeats": 3}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = tune_num_learners(mem, **options)
        b = tune_num_learners(dist, **options)
    assert set(a.table.columns) >= {"icc", "phi", "psi"}
    if method == "closed_form":
        assert a.settings["interval"] == "learners+objects"
    same_tuning(a, b)


def test_tune_num_learners_with_dask_test_objects_fits_on_the_cluster(client, regression):
    X, y, Xt = regression
    options = {"grid": [2, 4, 8], "method": "closed_form", "pool_size": 16, "n_resamples": 10,
               "random_state": 3}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = tune_num_learners(_forest(), X, y, Xt, **options)
        with distributed.get_task_stream(client) as stream:
            b = tune_num_learners(_forest(), X, y, da.from_array(Xt, chunks=(100, 5)), **options)
    keys = [str(task["key"]) for task in stream.data]
    assert any("_predict_chunk" in k for k in keys) and any("_fit_trees" in k for k in keys)
    same_tuning(a, b)


@pytest.mark.parametrize(("fit_predict", "width"), [(_labels, 2), (_probabilities, 2), (_values, 1)],
                         ids=["hard", "soft", "values"])
def test_tune_num_learners_learners_and_objects_interval(client, fit_predict, width):
    # the learners+objects interval of member pools on the cluster: classes (hard and soft votes)
    # and values, chunks of 64 objects
    a, b = tuned_member_pools(fit_predict, 10, width, [1, 2, 3, 5], 8)
    same_tuning(a, b, fit_rtol=1e-6)


# --------------------------------------------------------------------------- inputs

def test_test_objects_as_dask_array_and_dataframe(client):
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    X, y = make_regression(250, 4, noise=10, random_state=5)
    names = ["a", "b", "c", "d"]
    frame = pd.DataFrame(X, columns=names)
    est = RandomForestRegressor(n_estimators=5, max_features=2, max_depth=5)
    mem = TreePool(est, n_learners=10, random_state=6).fit(frame[:80], y[:80], frame[80:])
    want = mem.closed_form([1, 5, 10], n_resamples=6)
    from_array = DaskTreePool(est, n_learners=10, random_state=6).fit(
        frame[:80], y[:80], da.from_array(X[80:], chunks=(70, 4)))
    from_frame = DaskTreePool(est, n_learners=10, random_state=6).fit(
        frame[:80], y[:80], dd.from_pandas(frame[80:], npartitions=3))
    # rows of unknown length (a filtered frame's array): measured before the chunks are set
    unknown = DaskTreePool(est, n_learners=10, random_state=6).fit(
        frame[:80], y[:80], dd.from_pandas(frame[80:], npartitions=3).to_dask_array())
    for pool in (from_array, from_frame, unknown):
        assert pool.test_predictions_.shape == (170, 10)
        np.testing.assert_array_equal(pool.test_predictions_.array.compute(), mem.test_predictions_)
        _same(want, pool.closed_form([1, 5, 10], n_resamples=6))
    with pytest.raises(ValueError, match="`X_test` does not match"):
        DaskTreePool(est, n_learners=10, random_state=6).fit(frame[:80], y[:80],
                                                           dd.from_pandas(frame[80:][names[::-1]], 2))
    with pytest.raises(ValueError, match="`X_test`"):
        DaskTreePool(est, n_learners=10, random_state=6).fit(frame[:80], y[:80],
                                                           da.from_array(X[80:, :3], chunks=(70, 3)))


def test_errors_name_the_parameter(client, regression):
    X, y, Xt = regression
    with pytest.raises(ValueError, match="`X_test` is required on a cluster"):
        DaskTreePool(_forest(), n_learners=4).fit(X, y)
    for bad in (0, -5, 2.5, "64"):
        message = rf"`chunk_bytes` must be a positive number of bytes; got {bad!r}"
        with pytest.raises(ValueError, match=message):
            DaskTreePool(_forest(), n_learners=4, chunk_bytes=bad).fit(X, y, Xt)
    with pytest.raises(ValueError, match="`dtype`"):
        DaskTreePool(_forest(), n_learners=4, dtype="int8").fit(X, y, Xt)


def test_no_active_client_is_named(regression):
    X, y, Xt = regression
    with pytest.raises(ValueError, match=r"`client`: no dask.distributed Client is active"):
        dist_mod._get_client(None)
    with pytest.raises(ValueError, match=r"`client`: no dask.distributed Client is active"):
        DaskTreePool(_forest(), n_learners=4).fit(X, y, Xt)


def test_an_explicit_client_is_used(cluster, regression):
    X, y, Xt = regression
    assert dist_mod._get_client(cluster) is cluster
    pool = DaskTreePool(_forest(), n_learners=4, random_state=0, client=cluster).fit(X, y, Xt, oob=False)
    assert pool.test_predictions_.client is cluster
    mem = TreePool(_forest(), n_learners=4, random_state=0).fit(X, y, Xt, oob=False)
    got = cluster.compute(pool.test_predictions_.array).result()
    np.testing.assert_array_equal(got, mem.test_predictions_)
    _same(mem.closed_form([1, 2, 4], n_resamples=5), pool.closed_form([1, 2, 4], n_resamples=5))


# --------------------------------------------------------------------------- the block reductions

def test_chunk_rows_are_whole_blocks():
    # 64 rows a block below 512 objects; a chunk of about chunk_bytes, in whole blocks, at least one
    assert dist_mod._chunk_rows(300, 20, 1, 8, 128 * 20 * 8) == (64, 128)
    assert dist_mod._chunk_rows(300, 20, 1, 8, 191 * 20 * 8) == (64, 128)
    assert dist_mod._chunk_rows(300, 20, 1, 8, 192 * 20 * 8) == (64, 192)
    assert dist_mod._chunk_rows(300, 20, 1, 8, 1) == (64, 64)
    assert dist_mod._chunk_rows(300, 20, 2, 4, 128 * 20 * 2 * 4) == (64, 128)
    assert dist_mod._chunk_rows(8000, 10, 1, 8, 10**9) == (1000, 12_500_000)  # an eighth of the objects
    assert dist_mod._chunk_rows(10, 0, 1, 8, 100) == (64, 64)  # no learners: one byte a row


def test_metric_chunk_and_fold_are_the_engines_blocks():
    rng = np.random.default_rng(0)
    preds = rng.normal(size=(150, 6))
    weights = rng.integers(0, 3, size=(6, 4)).astype(np.float32)
    ref = float(preds[0].mean())
    mu, var, boots, jacks = dist_mod._metric_chunk(preds, 64, ref, weights, True)
    assert len(boots) == len(jacks) == 3  # blocks of 64, 64, 22
    np.testing.assert_allclose(mu, preds.mean(axis=1), rtol=1e-13)
    np.testing.assert_allclose(var, preds.var(axis=1, ddof=1), rtol=1e-12)
    sums = None
    jack = [0.0] * 6
    for start in range(0, 150, 64):
        block = preds[start:start + 64]
        m, v, part = metric_block(block, ref, weights)
        np.testing.assert_array_equal(m, mu[start:start + 64])
        sums = part if sums is None else sums + part
        jack = [a + b for a, b in zip(jack, jackknife_block(block, ref), strict=True)]
    got_sums, got_jack = dist_mod._fold(None, (mu, var, boots, jacks))
    np.testing.assert_array_equal(got_sums, sums)
    assert got_sums.dtype == sums.dtype == np.float64  # float sums, not Python objects
    for a, b in zip(got_jack, jack, strict=True):
        np.testing.assert_array_equal(a, b)
    # folded chunk after chunk: the same as one chunk of all the blocks
    acc = dist_mod._fold(None, dist_mod._metric_chunk(preds[:128], 64, ref, weights, True))
    acc = dist_mod._fold(acc, dist_mod._metric_chunk(preds[128:], 64, ref, weights, True))
    np.testing.assert_array_equal(acc[0], sums)
    for a, b in zip(acc[1], jack, strict=True):
        np.testing.assert_array_equal(a, b)
    # without resampling weights and jackknife: moments only
    mu2, var2, boots2, jacks2 = dist_mod._metric_chunk(preds, 64, ref, None, False)
    np.testing.assert_array_equal(mu2, mu)
    assert jacks2 == [] and dist_mod._fold(None, (mu2, var2, boots2, jacks2)) == (None, None)
    assert dist_mod._moments((mu, var, boots, jacks)) == (mu, var)


def test_class_stage_sums_over_sub_blocks_with_weights(monkeypatch):
    from predstab.ensembles._closed_form import class_agreement

    rng = np.random.default_rng(1)
    labels = rng.integers(0, 2, size=(90, 7))
    votes = np.eye(2)[labels]
    n = np.array([1.0, 2.0, 3.0])
    weights = rng.integers(0, 3, size=90)
    g = np.random.default_rng(5)
    agree, pi = class_agreement(votes, None, n, "hard", copy.deepcopy(g), population=True, n_perm=10)
    want_agree = np.stack([np.where(np.isfinite(agree), agree, 0) @ weights, np.isfinite(agree) @ weights])
    want_pi = np.einsum("kic,i->kc", np.nan_to_num(pi), weights)
    # sub-blocks of 20 objects: each draws from a copy of the generator
    monkeypatch.setattr(dist_mod, "_CLASS_ELEMENTS", 20 * 8 * 2)
    got_agree, got_pi, end = dist_mod._class_stage(votes, n, "hard", g, True, 10, weights=weights)
    close(got_agree, want_agree)
    close(got_pi[0], want_pi)
    close(got_pi[1], np.einsum("kic,i->kc", np.isfinite(pi).astype(float), weights))
    assert g.bit_generator.state == np.random.default_rng(5).bit_generator.state  # rng itself untouched
    g2 = copy.deepcopy(g)
    class_agreement(votes[:1], None, n, "hard", g2, population=True, n_perm=10)
    assert end.bit_generator.state == g2.bit_generator.state
    # columns chosen (a resample of the learners), no weights: each object once
    cols = np.array([0, 0, 3, 5, 6, 6, 6])
    agree, pi = class_agreement(votes[:, cols], None, n, "hard", copy.deepcopy(g), population=False,
                                n_perm=10)
    got_agree, got_pi, _ = dist_mod._class_stage(votes, n, "hard", g, False, 10, cols=cols)
    close(got_agree, np.stack([np.nansum(agree, axis=1), np.isfinite(agree).sum(axis=1)]))
    # an empty chunk: zero sums, the generator moved as a step moves it
    got_agree, got_pi, end = dist_mod._class_stage(votes[:0], n, "hard", g, True, 10)
    assert not got_agree.any() and not got_pi.any()
    assert end.bit_generator.state == g2.bit_generator.state


def test_sum_stages_and_same_end():
    g = np.random.default_rng(0)
    a = [(np.array([[1.0, 2.0], [2.0, 4.0]]), np.array([[[1.0, 1.0], [0.0, 2.0]], [[2.0, 2.0], [2.0, 2.0]]]))]
    b = [(np.array([[1.0, 0.0], [2.0, 4.0]]), np.array([[[1.0, 1.0], [2.0, 0.0]], [[2.0, 2.0], [2.0, 2.0]]]))]
    steps = dist_mod._sum_stages([(a, g), (b, g)])
    assert len(steps) == 1
    np.testing.assert_array_equal(steps[0]["d_o"], [0.5, 0.75])
    np.testing.assert_array_equal(steps[0]["share"], [[0.5, 0.5], [0.5, 0.5]])
    target = np.random.default_rng(9)
    h = np.random.default_rng(0)
    h.random()
    dist_mod._same_end([(a, h), (b, copy.deepcopy(h))], target)
    assert target.bit_generator.state == h.bit_generator.state
    with pytest.raises(ValueError, match="drew different random numbers on different blocks"):
        dist_mod._same_end([(a, g), (b, h)], target)


def test_fit_trees_are_the_forests_trees(regression):
    X, y, _ = regression
    model = RandomForestRegressor(n_estimators=9, max_depth=3, random_state=4, oob_score=True, n_jobs=2)
    whole = RandomForestRegressor(n_estimators=9, max_depth=3, random_state=4).fit(X, y)
    part = dist_mod._fit_trees(model, X, y, 3, 7)
    assert len(part.estimators_) == 4 and part.n_jobs == 1 and part.oob_score is False
    for mine, theirs in zip(part.estimators_, whole.estimators_[3:7], strict=True):
        np.testing.assert_array_equal(mine.predict(X), theirs.predict(X))
    assert model.n_estimators == 9 and model.oob_score is True  # the caller's model untouched


# --------------------------------------------------------------------------- what the pool stores

def test_defaults_and_the_fitted_ensemble_are_the_in_memory_pools(client, regression):
    pool = DaskTreePool(_forest())
    assert pool.chunk_bytes == 64 * 2**20 == dist_mod.CHUNK_BYTES and pool.client is None
    assert (pool.n_learners, pool.voting, pool.dtype, pool.random_state) == (1000, "soft", "float64", None)
    X, y, Xt = regression
    est = _forest(oob_score=True)
    mem = TreePool(est, n_learners=6, random_state=2).fit(X, y, Xt)
    dist = DaskTreePool(est, n_learners=6, random_state=2).fit(X, y, Xt)
    # the trees were grown in groups with warm start and one job each; the ensemble's own
    # parameters are the in-memory pool's
    assert dist.ensemble_.get_params() == mem.ensemble_.get_params()
    assert dist.ensemble_.warm_start is False and dist.ensemble_.oob_score is True
    np.testing.assert_array_equal(mem.forests(3, on="oob"), dist.forests(3, on="oob"))
    np.testing.assert_array_equal(mem.forests(2, on="oob", n_forests=2),
                                  dist.forests(2, on="oob", n_forests=2))


def test_other_ensembles_fit_through_joblibs_dask_backend(client, regression):
    from sklearn.ensemble import BaggingRegressor
    from sklearn.tree import DecisionTreeRegressor

    X, y, Xt = regression
    est = BaggingRegressor(DecisionTreeRegressor(max_depth=4), max_features=0.6)
    mem = TreePool(est, n_learners=6, random_state=8).fit(X, y, Xt)
    dist = DaskTreePool(est, n_learners=6, random_state=8).fit(X, y, Xt)
    np.testing.assert_array_equal(dist.test_predictions_.array.compute(), mem.test_predictions_)
    _same(mem.closed_form([1, 3], n_resamples=5), dist.closed_form([1, 3], n_resamples=5))
    np.testing.assert_array_equal(mem.oob_, dist.oob_)


def test_predict_chunk_silences_only_the_feature_names_warning(regression):
    pd = pytest.importorskip("pandas")
    X, y, Xt = regression
    model = _forest(random_state=0).fit(pd.DataFrame(X, columns=list("abcde")), y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the array chunk of a frame-fitted forest: no warning escapes
        got = dist_mod._predict_chunk(Xt[:10], model, "float32")
    assert got.shape == (10, 5) and got.dtype == np.float32
    np.testing.assert_allclose(got.mean(axis=1), model.predict(pd.DataFrame(Xt[:10], columns=list("abcde"))),
                               rtol=1e-5)


def test_a_pool_of_three_learners_has_the_jackknife_and_two_do_not(client):
    # the jackknife of the bands needs at least 3 learners, in memory and on the cluster alike
    for members in (2, 3):
        mem = TreePool.from_fit_predict(_values, members, random_state=1)
        dist = DaskTreePool.from_fit_predict(_values, members, random_state=1, chunk_bytes=64 * members * 8)
        assert dist.test_predictions_.shape == (150, members)
        a = mem.closed_form([1, 2, 5], n_resamples=7)
        b = dist.closed_form([1, 2, 5], n_resamples=7)
        _same(a, b)
        jack = dist.test_predictions_.metric_moments(np.ones((2, members), dtype=np.int64))
        assert len(jack) == 4
        if members == 2:
            with pytest.raises(RuntimeError, match="follows the pass"):
                dist.test_predictions_.jackknife_stats()
        else:
            assert dist.test_predictions_.jackknife_stats() is not None


def test_from_fit_predict_probabilities_with_named_classes_and_no_y(client):
    mem = TreePool.from_fit_predict(_probabilities, 6, classes=["lo", "hi"], random_state=2)
    dist = DaskTreePool.from_fit_predict(_probabilities, 6, classes=["lo", "hi"], random_state=2)
    assert dist.y_train_ is None and dist.classes_.tolist() == ["lo", "hi"] == mem.classes_.tolist()
    assert dist.test_predictions_.array.chunks == ((150,), (6,), (2,))
    np.testing.assert_array_equal(mem.forests(3), dist.forests(3))
    np.testing.assert_array_equal(mem.forests(2, voting="hard"), dist.forests(2, voting="hard"))
    close(mem.closed_form([1, 3], measure="fleiss", n_resamples=4).curve,
           dist.closed_form([1, 3], measure="fleiss", n_resamples=4).curve)


def test_class_bands_fields_and_the_extrapolation_warning(client, classification):
    X, y, Xt = classification
    est = RandomForestClassifier(n_estimators=5, max_features=2, max_depth=6)
    mem = TreePool(est, n_learners=10, random_state=2).fit(X, y, Xt)
    dist = DaskTreePool(est, n_learners=10, random_state=2).fit(X, y, Xt)
    with pytest.warns(UserWarning, match="extrapolated"):
        a = mem.closed_form([2, 8], measure="fleiss", n_resamples=5, confidence_level=0.8)
    with pytest.warns(UserWarning, match="extrapolated"):
        b = dist.closed_form([2, 8], measure="fleiss", n_resamples=5, confidence_level=0.8)
    np.testing.assert_array_equal(b.n_learners, [2.0, 8.0])
    assert b.n_learners.dtype == np.float64
    assert b.confidence_level == 0.8 and b.pool_size == 10 and b.n_resamples == 5
    for field in FIELDS:
        close(getattr(a, field), getattr(b, field))


def test_class_sub_blocks_are_the_documented_size(client, monkeypatch):
    # _CLASS_ELEMENTS running vote totals a sub-block: (pool + 1) x classes per object
    from predstab.ensembles import _closed_form

    sizes = []
    real = dist_mod.class_agreement

    def spy(values, *args, **kwargs):
        sizes.append(len(values))
        return real(values, *args, **kwargs)

    monkeypatch.setattr(dist_mod, "class_agreement", spy)
    monkeypatch.setattr(dist_mod, "_CLASS_ELEMENTS", 10 * (8 + 1) * 2 + 17)
    votes = np.eye(2)[np.random.default_rng(4).integers(0, 2, size=(35, 8))]
    agree, pi, _ = dist_mod._class_stage(votes, np.array([1.0, 3.0]), "soft", np.random.default_rng(0),
                                         False, 10)
    assert sizes == [10, 10, 10, 5]
    want, _ = _closed_form.class_agreement(votes, None, np.array([1.0, 3.0]), "soft",
                                           np.random.default_rng(0), population=False, n_perm=10)
    close(agree[0], want.sum(axis=1))
    close(agree[1], [35, 35])


def test_dask_missing_is_an_import_error_naming_the_extra(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "distributed", None)
    message = r"DaskTreePool needs dask.distributed: pip install 'predstab\[dask\]' \(dask\[distributed\]\); "
    with pytest.raises(ImportError, match=message):
        dist_mod._dask()


def test_fitting_again_on_the_same_data_never_loses_the_scattered_data(client, regression):
    # the training data scattered again under the same content key while the release of the last
    # fit's copy is on its way cancelled the new fit's tasks ("lost dependencies"; dask/distributed
    # issue 3703): each fit scatters its own copy
    X, y, _ = regression
    model = RandomForestRegressor(n_estimators=4, max_depth=2, random_state=0)
    want = RandomForestRegressor(n_estimators=4, max_depth=2, random_state=0).fit(X, y).predict(X)
    for _ in range(25):
        fitted = dist_mod._fit_on_workers(client, model, X, y)
        np.testing.assert_array_equal(fitted.predict(X), want)


def test_tune_num_learners_for_psi_reads_its_fixed_baseline_on_the_cluster(client, regression):
    # psi first: the learners+objects interval is psi's, against the tuning's fixed out-of-bag baseline
    X, y, Xt = regression
    mem = TreePool(_forest(), n_learners=16, random_state=6).fit(X, y, Xt)
    dist = DaskTreePool(_forest(), n_learners=16, random_state=6, chunk_bytes=128 * 16 * 8).fit(X, y, Xt)
    options = {"grid": [2, 4, 8], "method": "closed_form", "measures": ["psi", "icc"], "n_resamples": 10,
               "random_state": 5}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = tune_num_learners(mem, **options)
        b = tune_num_learners(dist, **options)
    assert a.primary == "psi" and a.settings["interval"] == "learners+objects"
    same_tuning(a, b, fit_rtol=1e-6)


def test_fit_data_are_checked_by_the_gate_of_tree_pool(client, regression):
    # the same refusals as TreePool.fit, before anything is sent to the workers: a y of two
    # columns, a masked feature (DaskTreePool.fit read them as numpy did until 2026-12-08)
    X, y, Xt = regression
    with pytest.raises(ValueError, match=r"^`y` must be one-dimensional \(one response per training row\); "
                                         r"got shape \(120, 2\)\.$"):
        DaskTreePool(_forest(), n_learners=4, random_state=1).fit(X, np.c_[y, y], Xt)
    masked = np.ma.masked_array(X, mask=np.zeros_like(X, dtype=bool))
    masked.mask[3, 1] = True
    with pytest.raises(ValueError, match=r"^`X` has 1 masked value\(s\): a masked value is a missing value"):
        DaskTreePool(_forest(), n_learners=4, random_state=1).fit(masked, y, Xt)
    # a masked array without masked cells is its data: the pool of the plain arrays
    plain = DaskTreePool(_forest(), n_learners=4, random_state=1).fit(X, y, da.from_array(Xt, chunks=100))
    unmasked = DaskTreePool(_forest(), n_learners=4, random_state=1).fit(
        np.ma.masked_array(X), np.ma.masked_array(y), da.from_array(Xt, chunks=100))
    _same(plain.closed_form([1, 2, 4], measure="icc", n_resamples=0),
          unmasked.closed_form([1, 2, 4], measure="icc", n_resamples=0))
