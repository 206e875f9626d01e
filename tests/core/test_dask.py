"""repeated_predictions on a real dask.distributed cluster: bit-identical to the serial run."""

import numpy as np
import pytest

distributed = pytest.importorskip("dask.distributed")

import joblib  # noqa: E402
from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor  # noqa: E402

from predstab import repeated_predictions  # noqa: E402


@pytest.fixture(scope="module")
def client():
    # processes=False: workers are threads of this process, which starts fast and reliably
    # on CI; the scheduler, workers and joblib's dask backend are the real ones.
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as c:
        yield c


def _data(seed, classes):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(60, 4))
    y = X[:, 0] + rng.normal(scale=0.5, size=60)
    if classes:
        y = np.where(y > 0.3, "yes", "no")
    return X[:45], y[:45], X[45:]


@pytest.mark.parametrize("classes", [False, True], ids=["regression", "classification"])
def test_dask_cluster_bit_identical(client, classes):
    X, y, Xt = _data(0, classes)
    est = (RandomForestClassifier if classes else RandomForestRegressor)(n_estimators=6)
    serial = repeated_predictions(est, X, y, Xt, n_repeats=4, baseline="kfold", cv=3, random_state=5,
                                  n_jobs=1)
    calls = []
    with joblib.parallel_config(backend="dask"), distributed.get_task_stream(client) as stream:
        dask = repeated_predictions(est, X, y, Xt, n_repeats=4, baseline="kfold", cv=3, random_state=5,
                                    progress=lambda done, total: calls.append((done, total)))
    np.testing.assert_array_equal(serial.test, dask.test)
    np.testing.assert_array_equal(serial.space, dask.space)
    assert calls == [(i, 16) for i in range(1, 17)]
    # the refits really ran as tasks on the cluster's workers
    assert len(stream.data) >= 1
    assert {t["worker"] for t in stream.data} <= set(client.scheduler_info()["workers"])


def test_dask_oob(client):
    X, y, Xt = _data(1, False)
    est = RandomForestRegressor(n_estimators=8)
    serial = repeated_predictions(est, X, y, Xt, n_repeats=3, random_state=2, n_jobs=1)
    with joblib.parallel_config(backend="dask"):
        dask = repeated_predictions(est, X, y, Xt, n_repeats=3, random_state=2)
    assert serial.test.tobytes() == dask.test.tobytes()
    assert serial.space.tobytes() == dask.space.tobytes()


@pytest.mark.slow
def test_dask_process_workers_bit_identical(dask_processes):
    # worker processes (tests/conftest.py's cluster, started once): the estimator, data and
    # predstab's task function travel by pickle
    X, y, Xt = _data(2, True)
    est = RandomForestClassifier(n_estimators=5)
    serial = repeated_predictions(est, X, y, Xt, n_repeats=3, random_state=4, n_jobs=1)
    client = dask_processes
    with client.as_current(), joblib.parallel_config(backend="dask"), \
            distributed.get_task_stream(client) as stream:
        dask = repeated_predictions(est, X, y, Xt, n_repeats=3, random_state=4)
        workers = set(client.scheduler_info()["workers"])
    assert stream.data and {t["worker"] for t in stream.data} <= workers
    np.testing.assert_array_equal(serial.test, dask.test)
    np.testing.assert_array_equal(serial.space, dask.space)


# ------------------------------------------------------------------ stacks of rating matrices (issue 26.2)
def _stack(seed, n_items=60):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n_items, 10, 3)) + 2 * rng.normal(size=(n_items, 10, 1))
    x[4] = 2.0  # a constant item: ICC 1 and a degenerate warning
    x[7, 3, 1] = np.nan  # a missing cell: irr's listwise rule for that item
    return x


def _assert_same(a, b):
    for name in ("value", "statistic", "pvalue", "df1", "df2", "n_objects"):
        np.testing.assert_allclose(getattr(a, name), getattr(b, name), rtol=1e-12, atol=1e-12, err_msg=name)
    for got, want in zip(a.confidence_interval, b.confidence_interval, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_dask_stack_icc_chunk_by_chunk(client):
    da = pytest.importorskip("dask.array")
    from predstab import PredstabDegenerateWarning, icc

    x = _stack(3)
    with pytest.warns(PredstabDegenerateWarning):
        want = icc(x, model="twoway", type="agreement")
    lazy = da.from_array(x, chunks=(16, 10, 3))  # 4 chunks of at most 16 items
    with distributed.get_task_stream(client) as stream, \
            pytest.warns(PredstabDegenerateWarning, match="^1 of 60 items"):
        got = icc(lazy, model="twoway", type="agreement")
    _assert_same(got, want)
    assert got.value.shape == (60,) and isinstance(got.value, np.ndarray)
    # one task per chunk ran on the cluster's workers (plus dask's own for slicing the chunks)
    assert {t["worker"] for t in stream.data} <= set(client.scheduler_info()["workers"])
    assert sum("run_block" in t["key"] if isinstance(t["key"], str) else "run_block" in str(t["key"])
               for t in stream.data) == 4


def test_dask_stack_several_axes_and_generic_path(client):
    da = pytest.importorskip("dask.array")
    from predstab import fleiss_kappa, krippendorff_alpha

    rng = np.random.default_rng(4)
    x = rng.integers(0, 3, size=(4, 6, 12, 4)).astype(float)
    x[1, 2, 5, 1] = np.nan
    lazy = da.from_array(x, chunks=(2, 3, 12, 4))
    got = krippendorff_alpha(lazy)
    want = krippendorff_alpha(x)
    assert got.value.shape == (4, 6)
    np.testing.assert_allclose(got.value, want.value, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got.expected, want.expected, rtol=1e-12, atol=1e-12)
    complete = np.nan_to_num(x, nan=0.0)
    np.testing.assert_allclose(fleiss_kappa(da.from_array(complete, chunks=(1, 6, 12, 4))).value,
                               fleiss_kappa(complete).value, rtol=1e-12, atol=1e-12)


def test_dask_stack_of_prediction_matrices_phi(client):
    da = pytest.importorskip("dask.array")
    import predstab

    rng = np.random.default_rng(9)
    x = rng.normal(size=(6, 10, 5)) + rng.normal(size=(6, 10, 1))
    y = rng.normal(size=30)
    got = predstab.phi(da.from_array(x, chunks=(2, 10, 5)), y)
    want = [predstab.phi(item, y) for item in x]  # the loop over the items
    np.testing.assert_allclose(got.value, [w.value for w in want], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got.confidence_interval[0], [w.confidence_interval.low for w in want],
                               rtol=1e-12, atol=1e-12)

@pytest.mark.slow
def test_dask_stack_process_workers(dask_processes):
    da = pytest.importorskip("dask.array")
    from predstab import icc

    x = _stack(5, n_items=30)
    x[4] += np.arange(10.0)[:, None]  # no degenerate item: no warning expected here
    want = icc(x)
    with dask_processes.as_current(), distributed.get_task_stream(dask_processes) as stream:
        got = icc(da.from_array(x, chunks=(10, 10, 3)))
    _assert_same(got, want)
    assert any("run_block" in str(t["key"]) for t in stream.data)  # computed on the worker processes


def test_dask_stack_memory_is_one_chunk():
    # each task receives one chunk of items, never the whole stack (the synchronous scheduler
    # runs the tasks in this thread, so that they can record what they were given)
    da = pytest.importorskip("dask.array")
    import dask

    from predstab import icc
    from predstab._core._stack import dask_apply

    x = _stack(6)
    x[4] += np.arange(10.0)[:, None]
    x[7, 3, 1] = 0.0
    seen = []

    def compute(block):
        seen.append(block.shape)
        return icc(block)

    with dask.config.set(scheduler="synchronous"):
        got = dask_apply(compute, da.from_array(x, chunks=(16, 10, 3)))
    assert sorted(seen) == [(12, 10, 3), (16, 10, 3), (16, 10, 3), (16, 10, 3)]
    _assert_same(got, icc(x))


def test_dask_stack_table_and_loop_path(client):
    # icc_table (a frame per item) and cohen_kappa (the generic loop) chunk by chunk
    da = pytest.importorskip("dask.array")
    import pandas as pd

    from predstab import cohen_kappa, icc_table

    rng = np.random.default_rng(7)
    x = rng.normal(size=(10, 8, 3))
    pd.testing.assert_frame_equal(icc_table(da.from_array(x, chunks=(3, 8, 3))), icc_table(x),
                                  rtol=1e-12, atol=1e-12)
    y = rng.integers(0, 3, size=(2, 5, 10, 2))
    got, want = cohen_kappa(da.from_array(y, chunks=(1, 2, 10, 2))), cohen_kappa(y)
    np.testing.assert_allclose(got.value, want.value, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got.confidence_interval.high, want.confidence_interval.high, rtol=1e-12,
                               atol=1e-12)
