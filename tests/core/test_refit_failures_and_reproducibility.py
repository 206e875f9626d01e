"""Long refit runs: a failure names its seed, and results reproduce.

- a refit that fails for one seed raises an error naming the seed and repeating the
  estimator's message; no partial matrix is ever returned;
- the same ``random_state`` gives bit-identical matrices, intervals, pools and tuning tables
  whatever ``n_jobs`` and joblib backend;
- an estimator that cannot be seeded is said to be one.

(The command line's side of long runs, interrupts and overwrites, is
tests/surfaces/test_atomic_writes_and_interrupts.py.)
"""

import warnings

import joblib
import numpy as np
import pytest
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor

import predstab
from predstab import PredstabDataWarning
from predstab._core._utils import seeds_from

RANDOM_STATE = 11
N_REPEATS = 5
FAILING = 3  # the repetition whose seed makes the estimator fail


class FailsForOneSeed(RegressorMixin, BaseEstimator):
    """Predicts the mean of y plus a seed-dependent shift; fails for one seed."""

    def __init__(self, random_state=None, fail_seed=None, error=ValueError):
        self.random_state = random_state
        self.fail_seed = fail_seed
        self.error = error

    def fit(self, X, y):
        if self.random_state == self.fail_seed:
            raise self.error(f"solver diverged at seed {self.random_state}")
        self.mean_ = float(np.mean(y)) + (self.random_state % 97) / 1000.0
        return self

    def predict(self, X):
        return np.full(len(X), self.mean_)


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    return X[:30], X[:30, 0] + rng.normal(size=30), X[30:]


def _failing_seed():
    return int(seeds_from(RANDOM_STATE, N_REPEATS)[FAILING])


@pytest.mark.slow  # starts loky worker processes
@pytest.mark.parametrize("n_jobs, backend", [(1, None), (2, "threading"), (2, "loky")])
@pytest.mark.filterwarnings("ignore:.*tasks have been successfully executed:UserWarning")  # joblib's
def test_a_failing_refit_names_its_seed_and_the_estimators_message(data, n_jobs, backend):
    X, y, X_test = data
    seed = _failing_seed()
    estimator = FailsForOneSeed(fail_seed=seed)
    done = []
    with joblib.parallel_config(backend=backend) if backend else _nothing():
        with pytest.raises(ValueError) as info:
            predstab.repeated_predictions(estimator, X, y, X_test, n_repeats=N_REPEATS, baseline=None,
                                          random_state=RANDOM_STATE, n_jobs=n_jobs,
                                          progress=lambda d, t: done.append((d, t)))
    message = str(info.value)
    assert f"seed {seed}" in message and f"repetition {FAILING}" in message
    assert "solver diverged" in message and "FailsForOneSeed" in message
    # never reported as complete: progress stops short of the total
    assert all(d < t for d, t in done)


def test_a_failing_fold_refit_names_seed_and_fold(data):
    X, y, X_test = data
    # fold refits take seeds derived from their repetition's seed
    rep_seed = int(seeds_from(RANDOM_STATE, N_REPEATS)[1])
    fold_seed = int(seeds_from(rep_seed, 3)[2])
    with pytest.raises(ValueError, match=rf"seed {fold_seed} \(repetition 1, fold 2\).*solver diverged"):
        predstab.repeated_predictions(FailsForOneSeed(fail_seed=fold_seed), X, y, X_test, n_repeats=N_REPEATS,
                                      baseline="kfold", cv=3, random_state=RANDOM_STATE)


def test_other_exceptions_become_runtime_errors_with_the_seed(data):
    X, y, X_test = data
    seed = _failing_seed()
    with pytest.raises(RuntimeError, match=rf"seed {seed}.*ZeroDivisionError: solver diverged"):
        predstab.repeated_predictions(FailsForOneSeed(fail_seed=seed, error=ZeroDivisionError), X, y, X_test,
                                      n_repeats=N_REPEATS, baseline=None, random_state=RANDOM_STATE)


def test_a_failing_fit_predict_callable_names_its_seed():
    seed = _failing_seed()

    def fit_predict(s):
        if s == seed:
            raise ValueError("no convergence")
        return np.full(4, float(s % 7)), None

    with pytest.raises(ValueError, match=rf"fit_predict failed for seed {seed} .*no convergence"):
        predstab.repeated_predictions(fit_predict, n_repeats=N_REPEATS, random_state=RANDOM_STATE)


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


# ------------------------------------------------------------------------- reproducibility


def _matrices(n_jobs, backend, estimator, baseline, **kw):
    rng = np.random.default_rng(5)
    X = rng.normal(size=(60, 4))
    y = (X[:, 0] + rng.normal(size=60) > 0).astype(int) if "Classifier" in type(estimator).__name__ \
        else X[:, 0] + rng.normal(size=60)
    with joblib.parallel_config(backend=backend) if backend else _nothing():
        return predstab.repeated_predictions(estimator, X[:45], y[:45], X[45:], n_repeats=4,
                                             baseline=baseline, random_state=123, n_jobs=n_jobs, **kw)


@pytest.mark.slow  # starts loky worker processes
@pytest.mark.parametrize("estimator, baseline", [
    (RandomForestRegressor(n_estimators=8, max_depth=3), "oob"),
    (RandomForestClassifier(n_estimators=8, max_depth=3), "kfold"),
])
def test_bit_identical_across_n_jobs_and_backends(estimator, baseline):
    kw = {"cv": 3} if baseline == "kfold" else {}
    reference = _matrices(1, None, estimator, baseline, **kw)
    for n_jobs, backend in [(2, "threading"), (2, "loky"), (-1, "loky")]:
        got = _matrices(n_jobs, backend, estimator, baseline, **kw)
        for name in ("test", "space", "seeds"):
            a, b = getattr(reference, name), getattr(got, name)
            assert a.dtype == b.dtype and a.tobytes() == b.tobytes(), (name, n_jobs, backend)


def test_same_seed_same_confidence_interval_and_pool():
    rng = np.random.default_rng(9)
    pred = rng.normal(size=(40, 6)) + rng.normal(size=(40, 1))
    res = predstab.phi(pred, rng.normal(size=100) * 2)
    a = res.bootstrap_interval(n_resamples=200, random_state=4)
    b = res.bootstrap_interval(n_resamples=200, random_state=4)
    assert a == b
    X = rng.normal(size=(50, 3))
    y = X[:, 0] + rng.normal(size=50)
    forests = []
    for n_jobs in (1, 2):
        pool = predstab.TreePool(RandomForestRegressor(max_depth=3), n_learners=20, random_state=2,
                                 n_jobs=n_jobs).fit(X[:40], y[:40], X[40:])
        forests.append(pool.forests(5))
    assert forests[0].tobytes() == forests[1].tobytes()


def test_warning_when_the_estimator_cannot_be_seeded(data):
    class Unseeded(RegressorMixin, BaseEstimator):
        def fit(self, X, y):
            self.mean_ = float(np.mean(y))
            return self

        def predict(self, X):
            return np.full(len(X), self.mean_)

    X, y, X_test = data
    with pytest.warns(PredstabDataWarning, match="no `random_state`"):
        predstab.repeated_predictions(Unseeded(), X, y, X_test, n_repeats=2, baseline=None)


@pytest.mark.parametrize("method", ["refit", "pool"])
def test_tune_num_learners_is_bit_identical_across_n_jobs(method):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = X[:, 0] + rng.normal(size=60)
    tables = []
    for n_jobs in (1, 2):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # few repeats / few trees: data warnings are not the subject
            result = predstab.tune_num_learners(RandomForestRegressor(max_depth=3), X[:45], y[:45], X[45:],
                                                grid=(2, 4, 8), n_repeats=3, method=method, random_state=0,
                                                n_jobs=n_jobs, n_resamples=0)
        tables.append(result.table.drop(columns="seconds"))  # wall-clock time is the only difference
    a, b = tables
    assert list(a.columns) == list(b.columns) and a.shape == b.shape
    for col in a.columns:
        assert a[col].to_numpy().tobytes() == b[col].to_numpy().tobytes(), col
