"""The member-count answer for networks (issue 25, item 3): the closed forms of a pool of
scikit-learn MLP members, each trained with its own seed, against independent ensembles of
``n`` networks built from disjoint groups of *other* members (new seeds), the check that showed
pool forests behave like refitted forests.

Networks trained with different seeds are exchangeable members: independent draws of one random
procedure given the training data. An ensemble of ``n`` of them is the mean (or majority vote)
of ``n`` draws, so ``TreePool.from_predictions`` of one pool of members predicts the stability
of ensembles of any size. Here the prediction comes from pool A (seeds 0, 1, ...) and is
compared with what happens: ensembles of ``n`` members made from disjoint groups of pool B
(seeds 1000, 1001, ...), measured by ``phi`` / ``icc`` / ``fleiss_kappa`` of their
(objects x ensembles) matrix: means of MLPRegressor members, majority votes of MLPClassifier
members' classes and argmax of their mean probabilities (soft voting). (The same members on
both sides would agree by construction: the closed form is the average over every way to cut
the pool into disjoint groups.)

Tolerance: the difference has two sources of sampling error, pool A's members and pool B's
ensembles. Each is estimated by the jackknife (leave one member of A out and recompute the
closed form; leave one ensemble of B out and recompute the measure), and the difference must be
within 4 standard errors (fixed seeds: the test is deterministic; a correct closed form fails a
4-SE bound with probability about 6e-5 under normality). Each test also shows that the bound is
tight enough to reject a wrong rate of averaging.

Not exchangeable: snapshots of one training run (the epochs of one network) are dependent and
ordered. Their spread says nothing about how a new run would differ, so the closed form of a
snapshot pool overstates the stability of snapshot ensembles; the last test pins that.
"""

import warnings

import numpy as np
import pytest
from sklearn.datasets import make_classification, make_friedman1
from sklearn.exceptions import ConvergenceWarning
from sklearn.neural_network import MLPClassifier, MLPRegressor

from predstab import TreePool, fleiss_kappa, icc, phi

pytestmark = pytest.mark.slow  # about 100 networks per fixture

Z = 4.0  # standard errors allowed between the closed form and the disjoint ensembles


def jackknife_se(values):
    """Jackknife standard error from the leave-one-out values of a statistic."""
    values = np.asarray(values, dtype=float)
    k = len(values)
    return float(np.sqrt((k - 1) / k * np.sum((values - values.mean()) ** 2)))


def disjoint_ensembles(members, n, combine):
    """(objects, K) predictions of the K = n_members // n ensembles of n consecutive members."""
    k = members.shape[1] // n
    groups = members[:, :k * n].reshape(members.shape[0], k, n)
    return combine(groups)


def closed_form_and_se(members, n, measure, **pool_args):
    """The closed form at n from the whole pool, and its jackknife SE over the members."""
    def value(m):
        return TreePool.from_predictions(m, **pool_args).closed_form([n], measure=measure).curve[0]

    loo = [value(np.delete(members, j, axis=1)) for j in range(members.shape[1])]
    return value(members), jackknife_se(loo)


def empirical_and_se(ensembles, statistic):
    """The measure over independent ensembles, and its jackknife SE over the ensembles."""
    loo = [statistic(np.delete(ensembles, k, axis=1)) for k in range(ensembles.shape[1])]
    return statistic(ensembles), jackknife_se(loo)


# --------------------------------------------------------------------------- regression
@pytest.fixture(scope="module")
def regression_members():
    X, y = make_friedman1(120, noise=1.0, random_state=0)
    y = (y - y.mean()) / y.std()
    X_train, y_train, X_test = X[:60], y[:60], X[60:]

    def members(seeds):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            return np.column_stack([
                MLPRegressor(hidden_layer_sizes=(16,), max_iter=150, learning_rate_init=0.01, random_state=s)
                .fit(X_train, y_train).predict(X_test) for s in seeds])

    return members(range(36)), members(range(1000, 1072)), X, y_train


def test_mlp_regressor_closed_form_matches_disjoint_ensembles(regression_members):
    pool_a, pool_b, _, y_train = regression_members
    statistics = {"phi": lambda m: phi(m, y_train).value, "icc": lambda m: icc(m).value}
    for n in (1, 2, 4, 8):
        ensembles = disjoint_ensembles(pool_b, n, lambda g: g.mean(axis=2))  # 72 / n ensembles of n networks
        for measure, statistic in statistics.items():
            closed, se_closed = closed_form_and_se(pool_a, n, measure, y=y_train)
            seen, se_seen = empirical_and_se(ensembles, statistic)
            se = np.hypot(se_closed, se_seen)
            assert abs(closed - seen) < Z * se, (n, measure, closed, seen, se)
            assert 0 < se < 0.01  # the networks disagree: the comparison has something to see
    # the bound is tight enough to see a wrong averaging rate: D_o = W / (2n) (twice the
    # averaging) at small n, W / sqrt(n) (too little) at large n, instead of W / n
    w = pool_a.var(axis=1, ddof=1).mean()
    for n, divisor in ((1, 2), (2, 4), (8, np.sqrt(8))):
        seen, se_seen = empirical_and_se(disjoint_ensembles(pool_b, n, lambda g: g.mean(axis=2)),
                                         lambda m: phi(m, y_train).value)
        wrong = 1 - w / divisor / y_train.var(ddof=1)
        assert abs(wrong - seen) > Z * se_seen, (n, wrong, seen, se_seen)


# --------------------------------------------------------------------------- classes
@pytest.fixture(scope="module")
def classifier_members():
    X, y = make_classification(200, 6, n_informative=3, flip_y=0.1, class_sep=0.7, random_state=0)
    X_train, y_train, X_test = X[:80], y[:80], X[80:]

    def members(seeds):
        """(objects, members, 2) probabilities of class 1 and 0 ... of networks of these seeds."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            return np.stack([
                MLPClassifier(hidden_layer_sizes=(16,), max_iter=150, learning_rate_init=0.01, random_state=s)
                .fit(X_train, y_train).predict_proba(X_test) for s in seeds], axis=1)

    return members(range(30)), members(range(1000, 1060)), y_train


def test_mlp_classifier_closed_form_matches_disjoint_majority_votes(classifier_members):
    proba_a, proba_b, y_train = classifier_members
    pool_a, pool_b = proba_a.argmax(axis=2), proba_b.argmax(axis=2)  # each network's class (its predict)
    # the members disagree on a third of the test objects
    assert 0.2 < np.mean((pool_b != pool_b[:, :1]).any(axis=1)) < 0.6
    statistics = {"fleiss": lambda m: fleiss_kappa(m).value,
                  "phi": lambda m: phi(m, y_train, scale="categorical").value}
    for n in (1, 3, 5, 9):  # odd: a majority of n votes has no ties
        ensembles = disjoint_ensembles(pool_b, n, lambda g: (g.mean(axis=2) > 0.5).astype(int))
        for measure, statistic in statistics.items():
            closed, se_closed = closed_form_and_se(pool_a, n, measure, classes=[0, 1], y=y_train)
            seen, se_seen = empirical_and_se(ensembles, statistic)
            se = np.hypot(se_closed, se_seen)
            assert abs(closed - seen) < Z * se, (n, measure, closed, seen, se)
    # soft voting (the ensemble's class is the argmax of its members' mean probability), from the
    # probabilities: ensembles of even size too
    for n in (2, 4, 8):
        ensembles = disjoint_ensembles(proba_b[:, :, 1], n, lambda g: (g.mean(axis=2) > 0.5).astype(int))
        closed, se_closed = closed_form_and_se(proba_a, n, "fleiss", voting="soft")
        seen, se_seen = empirical_and_se(ensembles, statistics["fleiss"])
        assert abs(closed - seen) < Z * np.hypot(se_closed, se_seen), (n, closed, seen)
    # tight enough to tell one network from a vote of nine
    one, se_one = empirical_and_se(pool_b, statistics["fleiss"])
    nine, se_nine = closed_form_and_se(pool_a, 9, "fleiss", classes=[0, 1])
    assert nine - one > Z * np.hypot(se_one, se_nine)


# --------------------------------------------------------------------------- snapshots
def snapshot_run(X_train, y_train, X_test, seed, *, epochs, keep):
    """One network trained epoch by epoch: its predictions after each of the last ``keep`` epochs."""
    net = MLPRegressor(hidden_layer_sizes=(16,), max_iter=1, learning_rate_init=0.01, warm_start=True,
                       random_state=seed)
    snapshots = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for epoch in range(epochs):
            net.fit(X_train, y_train)  # warm_start, max_iter=1: one more epoch
            if epoch >= epochs - keep:
                snapshots.append(net.predict(X_test))
    return np.column_stack(snapshots)


def test_snapshots_of_one_run_are_not_exchangeable_members(regression_members):
    # A snapshot ensemble averages the last n epochs of one run. Its stability across runs (new
    # seeds) is what a user would get; the closed form of one run's snapshots predicts far more,
    # because the snapshots of a run are alike whatever the run's seed made of the network.
    pool_a, _, X, y_train = regression_members
    X_train, X_test = X[:60], X[60:]
    n = 5
    one_run = snapshot_run(X_train, y_train, X_test, 0, epochs=150, keep=40)
    closed, se_closed = closed_form_and_se(one_run, n, "phi", y=y_train)
    runs = np.column_stack([snapshot_run(X_train, y_train, X_test, 1000 + r, epochs=150, keep=n).mean(axis=1)
                            for r in range(16)])
    seen, se_seen = empirical_and_se(runs, lambda m: phi(m, y_train).value)
    assert closed - seen > Z * np.hypot(se_closed, se_seen), (closed, seen)
    # five snapshots are worth far less than five networks of their own seeds (whose closed form
    # the first test checked against independent ensembles)
    members, se_members = closed_form_and_se(pool_a, n, "phi", y=y_train)
    assert members - seen > Z * np.hypot(se_members, se_seen), (members, seen)
