"""DaskTreePool on a LocalCluster of 2 worker processes (issue 37, items 1-3): the same numbers as
the in-memory TreePool, the objects x learners matrix never gathered, bounded worker memory."""

import warnings

import numpy as np
import pytest

distributed = pytest.importorskip("distributed", reason="DaskTreePool needs dask[distributed]")
da = pytest.importorskip("dask.array")

from sklearn.datasets import make_classification, make_regression  # noqa: E402
from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor  # noqa: E402

from predstab import DaskTreePool, TreePool, tune_num_learners  # noqa: E402
from tests.ensembles._dask_checks import close, same_tuning, tuned_member_pools  # noqa: E402

WORKER_LIMIT = 400 * 2**20  # bytes per worker: the memory test's matrix is twice that


@pytest.fixture
def client(dask_processes):
    # worker processes, as on a real cluster: the pool is pickled to them and nothing is shared
    # (tests/conftest.py starts the cluster once for the session, with WORKER_LIMIT per worker)
    with dask_processes.as_current():
        yield dask_processes


@pytest.fixture(scope="module")
def regression():
    X, y = make_regression(700, 6, noise=25, random_state=0)
    return X[:200], y[:200], X[200:]


def test_regression_closed_forms_bands_and_forests_equal_in_memory(client, regression):
    X, y, Xt = regression
    est = RandomForestRegressor(max_features=2, min_samples_leaf=3)
    mem = TreePool(est, n_learners=60, random_state=1).fit(X, y, Xt)
    # small chunks: 8 chunks of the 500 objects, several engine blocks each
    dist = DaskTreePool(est, n_learners=60, random_state=1, chunk_bytes=64 * 60 * 8).fit(X, y, Xt)
    assert len(dist.test_predictions_.array.chunks[0]) == 8
    for m in ("icc", "phi", "psi"):
        a = mem.closed_form([1, 3, 10, 60, 200], measure=m, n_resamples=40)
        b = dist.closed_form([1, 3, 10, 60, 200], measure=m, n_resamples=40)
        # bit for bit: the chunks hold the in-memory pass's blocks, whose sums are added in its order
        for field in ("curve", "errors", "low", "high"):
            np.testing.assert_array_equal(getattr(a, field), getattr(b, field))
        assert a.curve[0] < a.curve[-1] < 1  # a real curve, not a degenerate one
    np.testing.assert_array_equal(mem.forests(15), dist.forests(15))
    np.testing.assert_array_equal(mem.oob_baseline(), dist.oob_baseline())
    with pytest.raises(RuntimeError, match="never gathered"):  # no in-memory path can gather it
        np.asarray(dist.test_predictions_)


def test_extend_fits_the_added_learners_on_the_cluster_as_in_memory(client, regression):
    # extend: one more ensemble from the pool's generator, fitted on the workers, joined; the same
    # learners and numbers as the in-memory pool's extend (before, DaskTreePool.extend raised)
    X, y, Xt = regression
    est = RandomForestRegressor(max_features=2, min_samples_leaf=3)
    mem = TreePool(est, n_learners=40, random_state=3).fit(X, y, Xt).extend(30)
    dist = DaskTreePool(est, n_learners=40, random_state=3, chunk_bytes=64 * 70 * 8).fit(X, y, Xt)
    assert dist.extend(30) is dist and dist.ensemble_.n_estimators == 70
    assert dist.test_predictions_.shape == (500, 70)
    a = mem.closed_form([1, 5, 35, 100], n_resamples=30)
    b = dist.closed_form([1, 5, 35, 100], n_resamples=30)
    for field in ("curve", "errors", "low", "high"):
        np.testing.assert_array_equal(getattr(a, field), getattr(b, field))
    np.testing.assert_array_equal(mem.forests(35), dist.forests(35))  # the added learners are columns 40-69
    np.testing.assert_array_equal(mem.train_predictions_, dist.train_predictions_)
    np.testing.assert_array_equal(mem.oob_, dist.oob_)
    assert dist.fit_seconds_ > 0
    with pytest.raises(ValueError, match="`n_learners`"):
        dist.extend(1)


@pytest.mark.parametrize("voting", ["hard", "soft"])
def test_classification_closed_forms_equal_in_memory(client, voting):
    X, y = make_classification(450, 6, flip_y=0.2, random_state=0)
    est = RandomForestClassifier(max_features=2)
    mem = TreePool(est, n_learners=40, voting=voting, random_state=2).fit(X[:150], y[:150], X[150:])
    dist = DaskTreePool(est, n_learners=40, voting=voting, random_state=2,
                        chunk_bytes=64 * 40 * 2 * 8).fit(X[:150], y[:150], X[150:])
    # hard votes beyond half the pool: empirical Bayes over every object's votes, refused on a cluster
    grid = [2, 5, 30] if voting == "soft" else [2, 5, 20]
    if voting == "hard":
        with pytest.raises(ValueError, match="beyond half the pool"):
            dist.closed_form([2, 5, 30], measure="fleiss", n_resamples=12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # 30 learners: extrapolated beyond half the pool (both paths warn)
        a = mem.closed_form(grid, measure="fleiss", n_resamples=12)
        b = dist.closed_form(grid, measure="fleiss", n_resamples=12)
    close(a.curve, b.curve)
    close(a.errors, b.errors)
    close(a.low, b.low)
    assert 0 < a.curve[0] < a.curve[-1] < 1
    np.testing.assert_array_equal(mem.forests(5), dist.forests(5))


def _members(seed):
    rng = np.random.default_rng(seed)
    return np.sin(np.arange(400) / 15) + rng.normal(scale=0.7, size=400)


def _labels(seed):
    return np.where(_members(seed) > 0.2, "yes", "no")


@pytest.mark.parametrize("fit_predict, measure", [(_members, "icc"), (_labels, "fleiss")],
                         ids=["values", "labels"])
def test_from_fit_predict_equals_in_memory(client, fit_predict, measure):
    mem = TreePool.from_fit_predict(fit_predict, 24, random_state=4)
    dist = DaskTreePool.from_fit_predict(fit_predict, 24, random_state=4, chunk_bytes=64 * 24 * 2 * 8)
    np.testing.assert_array_equal(mem.seeds_, dist.seeds_)
    assert len(dist.test_predictions_.array.chunks[0]) > 1
    a = mem.closed_form([1, 2, 6], measure=measure, n_resamples=20)
    b = dist.closed_form([1, 2, 6], measure=measure, n_resamples=20)
    close(a.curve, b.curve)
    close(a.errors, b.errors)


@pytest.mark.parametrize("method", ["closed_form", "pool"])
def test_tune_num_learners_on_a_cluster_equals_in_memory(client, regression, method):
    X, y, Xt = regression
    est = RandomForestRegressor(max_features=2, min_samples_leaf=3)
    mem = TreePool(est, n_learners=80, random_state=1).fit(X, y, Xt)
    dist = DaskTreePool(est, n_learners=80, random_state=1, chunk_bytes=64 * 80 * 8).fit(X, y, Xt)
    options = {"grid": [2, 5, 10, 20] if method == "closed_form" else [2, 4, 8], "method": method,
               "n_resamples": 20, "random_state": 3, "n_repeats": 5}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = tune_num_learners(mem, **options)
        b = tune_num_learners(dist, **options)
    assert set(a.table.columns) >= {"icc", "phi", "psi"}
    same_tuning(a, b)


def test_tune_num_learners_with_dask_test_objects_fits_on_the_cluster(client, regression):
    X, y, Xt = regression
    est = RandomForestRegressor(max_features=2, min_samples_leaf=3)
    options = {"grid": [2, 5, 10, 20], "method": "closed_form", "pool_size": 60, "n_resamples": 20,
               "random_state": 3}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = tune_num_learners(est, X, y, Xt, **options)
        with distributed.get_task_stream(client) as stream:
            b = tune_num_learners(est, X, y, da.from_array(Xt, chunks=(100, 6)), **options)
    # the test objects were predicted on the workers, chunk by chunk
    assert any("_predict_chunk" in str(task["key"]) for task in stream.data)
    same_tuning(a, b)


def test_tune_num_learners_classes_learners_and_objects_interval(client):
    a, b = tuned_member_pools(_labels, 24, 2, [1, 2, 4, 6], 15)
    same_tuning(a, b, fit_rtol=1e-6)


def test_test_objects_as_dask_array_and_dataframe(client):
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    X, y = make_regression(400, 4, noise=10, random_state=5)
    names = ["a", "b", "c", "d"]
    frame = pd.DataFrame(X, columns=names)
    est = RandomForestRegressor(max_features=2)
    mem = TreePool(est, n_learners=30, random_state=6).fit(frame[:100], y[:100], frame[100:])
    want = mem.closed_form([1, 5, 30], n_resamples=10)
    from_array = DaskTreePool(est, n_learners=30, random_state=6).fit(
        frame[:100], y[:100], da.from_array(X[100:], chunks=(70, 4)))
    from_frame = DaskTreePool(est, n_learners=30, random_state=6).fit(
        frame[:100], y[:100], dd.from_pandas(frame[100:], npartitions=3))
    for pool in (from_array, from_frame):
        got = pool.closed_form([1, 5, 30], n_resamples=10)
        close(want.curve, got.curve)
        close(want.errors, got.errors)
    with pytest.raises(ValueError, match="`X_test` does not match"):
        DaskTreePool(est, n_learners=30, random_state=6).fit(frame[:100], y[:100],
                                                           dd.from_pandas(frame[100:][names[::-1]], 2))


def test_errors_name_the_parameter(client, regression):
    X, y, Xt = regression
    est = RandomForestRegressor()
    with pytest.raises(ValueError, match="`X_test` is required"):
        DaskTreePool(est, n_learners=10).fit(X, y)
    with pytest.raises(ValueError, match="`chunk_bytes`"):
        DaskTreePool(est, n_learners=10, chunk_bytes=0).fit(X, y, Xt)


def _client_peak(pool, n, n_resamples):
    """The closed form and the client's peak resident memory above its level before the call,
    sampled every 5 ms (tracemalloc would slow the client's event loop tenfold)."""
    import threading

    import psutil

    proc = psutil.Process()
    before, peak, done = proc.memory_info().rss, [0], threading.Event()

    def sample():
        while not done.is_set():
            peak[0] = max(peak[0], proc.memory_info().rss - before)
            done.wait(0.005)

    thread = threading.Thread(target=sample)
    thread.start()
    try:
        res = pool.closed_form(n, n_resamples=n_resamples)
    finally:
        done.set()
        thread.join()
    return res, peak[0]


def _textbook_icc1(pool, rows):
    """ICC(1) at n=1 of the first ``rows`` objects' per-learner predictions, from their means and
    variances (Dask's own reductions over the learners: an independent computation; both in one
    pass, which predicts the objects once)."""
    import dask

    part = pool.test_predictions_.array[:rows].astype(np.float64)
    mu, var = dask.compute(part.mean(axis=1), part.var(axis=1, ddof=1))
    size = part.shape[1]
    b = np.var(mu, ddof=1) - var.mean() / size
    return b / (b + var.mean())


@pytest.mark.slow
def test_matrix_never_gathered_in_the_client(client):
    """The client never holds the objects x learners matrix: converting it raises, and a closed
    form with bands grows the client by a small part of it (per object 16 bytes come back)."""
    X, y = make_regression(300, 4, noise=10, random_state=7)
    n_obj, size = 60_000, 200  # 96 MB in float64
    Xt = da.random.RandomState(0).normal(size=(n_obj, 4), chunks=(10_000, 4))
    pool = DaskTreePool(RandomForestRegressor(max_depth=4, max_features=2), n_learners=size, random_state=0,
                        chunk_bytes=4 * 2**20).fit(X, y, Xt, oob=False)
    with pytest.raises(RuntimeError, match="never gathered"):
        np.asarray(pool.test_predictions_)
    res, peak = _client_peak(pool, [1, 10, 100], 20)
    assert peak < n_obj * size * 8 / 4, peak
    assert abs(_textbook_icc1(pool, n_obj) - res.curve[0]) < 1e-9  # all objects: the same number


@pytest.mark.slow
def test_worker_memory_bounded_by_the_chunk_size(client):
    """A float64 matrix of 2 x the workers' memory limit (840 MB; 400 MiB per worker, which the
    nanny kills beyond 95 %): the closed form with bands runs on chunks of 16 MiB, and the client
    grows by a few MB."""
    X, y = make_regression(300, 4, noise=10, random_state=7)
    n_obj, size = 350_000, 300
    Xt = da.random.RandomState(0).normal(size=(n_obj, 4), chunks=(50_000, 4))
    assert n_obj * size * 8 >= 2 * WORKER_LIMIT
    assert {w["memory_limit"] for w in client.scheduler_info()["workers"].values()} == {WORKER_LIMIT}
    pool = DaskTreePool(RandomForestRegressor(max_depth=4, max_features=2), n_learners=size, random_state=0,
                        chunk_bytes=16 * 2**20).fit(X, y, Xt, oob=False)
    res, peak = _client_peak(pool, [1, 10, 100], 20)
    assert peak < 40 * n_obj + 30 * 2**20, peak
    assert 0 < res.curve[0] < res.curve[-1] < 1
    assert abs(_textbook_icc1(pool, 2000) - res.curve[0]) < 0.05  # 2,000 of 350,000 objects: close
