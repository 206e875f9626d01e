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


def test_dask_process_workers_bit_identical():
    # worker processes: the estimator, data and predstab's task function travel by pickle
    X, y, Xt = _data(2, True)
    est = RandomForestClassifier(n_estimators=5)
    serial = repeated_predictions(est, X, y, Xt, n_repeats=3, random_state=4, n_jobs=1)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client, \
            joblib.parallel_config(backend="dask"), distributed.get_task_stream(client) as stream:
        dask = repeated_predictions(est, X, y, Xt, n_repeats=3, random_state=4)
        workers = set(client.scheduler_info()["workers"])
    assert stream.data and {t["worker"] for t in stream.data} <= workers
    np.testing.assert_array_equal(serial.test, dask.test)
    np.testing.assert_array_equal(serial.space, dask.space)
