"""Any ensemble's members: TreePool of bagging of any base learner (closed forms against every
way to cut the pool by hand), of a list of fitted models, and of a ``fit_predict(seed)``
callable."""

import itertools

import numpy as np
import pytest
from joblib import parallel_config
from numpy.testing import assert_allclose
from sklearn.datasets import make_classification
from sklearn.ensemble import BaggingClassifier, BaggingRegressor, ExtraTreesRegressor
from sklearn.linear_model import LogisticRegression
from sklearn.neighbors import KNeighborsRegressor

from predstab import TreePool, tune_num_learners
from tests.ensembles._pools import X, Y, icc_by_hand, oob_by_hand, per_tree


def _partitions(items, size):
    """Every way to cut ``items`` into groups of ``size`` (unordered groups)."""
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for others in itertools.combinations(rest, size - 1):
        left = [i for i in rest if i not in others]
        for tail in _partitions(left, size):
            yield [(first, *others), *tail]


@pytest.fixture(scope="module")
def knn_bagging():
    est = BaggingRegressor(KNeighborsRegressor(n_neighbors=3))
    return TreePool(est, n_learners=6, random_state=0).fit(X[:30], Y[:30], X[30:])


def test_bagged_knn_curve_is_the_mean_over_every_cut_of_the_pool(knn_bagging):
    pool = knn_bagging
    t = per_tree(pool.ensemble_, X[30:])  # each fitted member's own predict, on its features
    assert_allclose(pool.test_predictions_, t, rtol=0, atol=1e-12)
    assert_allclose(pool.forests(6)[:, 0], pool.ensemble_.predict(X[30:]), rtol=0, atol=1e-12)
    # the expected between-forest variance of forests of n members (W / n in the closed forms):
    # the variance across the disjoint forests of a cut, averaged over every cut of the 6 members
    phi = pool.closed_form([1, 2, 3], measure="phi").curve
    for k, n in enumerate([1, 2, 3]):
        cuts = list(_partitions(list(range(6)), n))
        spread = np.mean([np.mean(np.var(np.column_stack([t[:, list(g)].mean(axis=1) for g in cut]), axis=1,
                                         ddof=1)) for cut in cuts])
        assert len(cuts) == {1: 1, 2: 15, 3: 10}[n]
        assert (1 - phi[k]) * np.var(Y[:30], ddof=1) == pytest.approx(spread, rel=1e-12)
    assert_allclose(pool.closed_form([1, 2, 3]).curve, icc_by_hand(t, [1, 2, 3])[0], rtol=0, atol=1e-12)


def test_bagged_knn_psi_has_its_out_of_bag_baseline(knn_bagging):
    pool = knn_bagging
    oob = oob_by_hand(pool.ensemble_, 30)  # from estimators_samples_
    assert np.array_equal(pool.oob_, oob)
    train = per_tree(pool.ensemble_, X[:30])
    with np.errstate(invalid="ignore"):
        baseline = np.where(oob, train, 0).sum(axis=1) / oob.sum(axis=1)
    assert_allclose(pool.oob_baseline(), baseline, rtol=0, atol=1e-12, equal_nan=True)
    t = pool.test_predictions_
    w = t.var(axis=1, ddof=1).mean()
    psi = pool.closed_form([1, 2, 3], measure="psi").curve
    assert_allclose(psi, 1 - w / np.array([1, 2, 3]) / np.nanvar(baseline, ddof=1), rtol=0, atol=1e-12)


def test_bagged_logistic_fleiss_is_every_pair_of_disjoint_forests():
    Xc, yc = make_classification(60, 4, n_informative=2, n_redundant=0, flip_y=0.2, random_state=4)
    est = BaggingClassifier(LogisticRegression(C=0.3))
    pool = TreePool(est, n_learners=8, voting="hard", random_state=1).fit(Xc[:40], yc[:40], Xc[40:])
    votes = per_tree(pool.ensemble_, Xc[40:]).argmax(axis=2)  # members' classes, objects x 8
    assert np.array_equal(pool.test_predictions_.argmax(axis=2), votes)
    assert 0 < votes.mean() < 1 and (votes.min(axis=1) != votes.max(axis=1)).any()  # members disagree

    def label(group):  # the majority vote; a tie goes to the first class
        return (2 * votes[:, list(group)].sum(axis=1) > len(group)).astype(int)

    for n in (2, 3, 4):
        subsets = list(itertools.combinations(range(8), n))
        pairs = [(a, b) for a in subsets for b in subsets if not set(a) & set(b)]
        agree = np.mean([label(a) == label(b) for a, b in pairs], axis=0)
        share1 = np.mean([label(a) for a in subsets])  # over forests and objects
        kappa = 1 - (1 - agree.mean()) / (1 - share1**2 - (1 - share1) ** 2)
        assert pool.closed_form([n], measure="fleiss").curve[0] == pytest.approx(kappa, abs=1e-12)


def test_extra_trees_without_bootstrap_have_no_out_of_bag_psi():
    pool = TreePool(ExtraTreesRegressor(max_depth=4), n_learners=12, random_state=0).fit(X[:30], Y[:30],
                                                                                          X[30:])
    assert pool.oob_ is None
    assert_allclose(pool.closed_form([1, 4]).curve, icc_by_hand(per_tree(pool.ensemble_, X[30:]), [1, 4])[0],
                    rtol=0, atol=1e-12)
    with pytest.raises(ValueError, match="no out-of-bag rows"):
        pool.closed_form([1, 4], measure="psi")


def _logistic_members(Xc, yc, k):
    """``k`` logistic regressions on bootstrap samples (seeds 0 ... k - 1) and their out-of-bag mask."""
    members, oob = [], np.zeros((len(yc), k), dtype=bool)
    for s in range(k):
        rows = np.random.default_rng(s).integers(0, len(yc), len(yc))
        members.append(LogisticRegression(C=0.3).fit(Xc[rows], yc[rows]))
        oob[:, s] = ~np.isin(np.arange(len(yc)), rows)
    return members, oob


def test_from_members_stacks_each_members_probabilities():
    Xc, yc = make_classification(60, 4, n_informative=2, n_redundant=0, flip_y=0.2, random_state=4)
    labels = np.where(yc == 1, "yes", "no")
    members, oob = _logistic_members(Xc[:40], labels[:40], 6)
    pool = TreePool.from_members(members, Xc[40:], X_oob=Xc[:40], oob=oob, y=labels[:40], voting="hard")
    expected = np.stack([m.predict_proba(Xc[40:]) for m in members], axis=1)
    assert_allclose(pool.test_predictions_, expected, rtol=0, atol=0)
    assert pool.classes_.tolist() == ["no", "yes"] and pool.voting_ == "hard"
    train_votes = np.stack([m.predict(Xc[:40]) == "yes" for m in members], axis=1)
    with np.errstate(invalid="ignore"):
        share = np.where(oob, train_votes, 0).sum(axis=1) / oob.sum(axis=1)
    expected_baseline = np.where(oob.sum(axis=1) == 0, None, np.where(share > 0.5, "yes", "no"))
    assert pool.oob_baseline().tolist() == expected_baseline.tolist()
    # labels of classifiers without probabilities: one-hot votes, the same hard forests
    by_label = TreePool.from_members(members, Xc[40:], response="predict")
    assert by_label.voting_ == "hard"
    assert by_label.forests(3).tolist() == pool.forests(3).tolist()


def test_from_members_refuses_what_is_not_a_member():
    with pytest.raises(ValueError, match="at least 2 fitted models; got 1"):
        TreePool.from_members([LogisticRegression()], X)
    with pytest.raises(TypeError, match="member 1 is a str"):
        TreePool.from_members([KNeighborsRegressor().fit(X, Y), "model"], X)
    with pytest.raises(ValueError, match="`X_oob` needs `oob`"):
        TreePool.from_members([KNeighborsRegressor().fit(X, Y)] * 2, X, X_oob=X)


def _noisy(seed):
    """A member: the truth plus its own seed's noise (module level: picklable for joblib)."""
    return np.linspace(0, 1, 12) + np.random.default_rng(seed).normal(scale=0.2, size=12)


def _noisy_proba(seed):
    p = np.clip(np.linspace(0.1, 0.9, 12) + np.random.default_rng(seed).normal(scale=0.1, size=12), 0, 1)
    return np.column_stack([1 - p, p])


def test_from_fit_predict_is_one_call_per_seed_whatever_the_jobs():
    pool = TreePool.from_fit_predict(_noisy, 10, random_state=3)
    seeds = np.random.default_rng(3).integers(0, 2**31 - 1, size=10)  # seeds_from's documented draw
    assert pool.seeds_.tolist() == seeds.tolist()
    assert_allclose(pool.test_predictions_, np.column_stack([_noisy(s) for s in seeds]), rtol=0, atol=0)
    with parallel_config(backend="threading"):
        again = TreePool.from_fit_predict(_noisy, 10, random_state=3, n_jobs=2)
    assert np.array_equal(again.test_predictions_, pool.test_predictions_)
    assert pool.fit_seconds_ >= 0
    res = tune_num_learners(pool, method="closed_form", n_resamples=0, grid=(1, 2, 4))
    assert_allclose(res.table["icc"], icc_by_hand(pool.test_predictions_, [1, 2, 4])[0], rtol=0, atol=1e-12)


def test_from_fit_predict_probabilities_and_bad_shapes():
    pool = TreePool.from_fit_predict(_noisy_proba, 6, classes=["a", "b"], random_state=0)
    assert pool.test_predictions_.shape == (12, 6, 2) and pool.classes_.tolist() == ["a", "b"]
    assert_allclose(pool.test_predictions_[:, 2], _noisy_proba(int(pool.seeds_[2])), rtol=0, atol=0)

    def ragged(seed):
        return np.zeros(3 + seed % 2)

    with pytest.raises(ValueError, match=r"predictions of one shape.* got shapes \[\(3,\), \(4,\)\]"):
        TreePool.from_fit_predict(ragged, 6, random_state=0)


@pytest.mark.filterwarnings("ignore:icc. the curve has not flattened")
def test_tuning_bagged_knn_is_its_pools_closed_form():
    est = BaggingRegressor(KNeighborsRegressor(n_neighbors=3))
    res = tune_num_learners(est, X[:30], Y[:30], X[30:], grid=(1, 2, 3), pool_size=6, method="closed_form",
                            measures=("icc", "phi", "psi"), n_resamples=0, random_state=0)
    # the pool tune_num_learners fits: seeded by the first draw of random_state's generator
    pool = TreePool(est, n_learners=6, random_state=np.random.default_rng(0)).fit(X[:30], Y[:30], X[30:])
    t = per_tree(pool.ensemble_, X[30:])
    assert_allclose(res.table["icc"], icc_by_hand(t, [1, 2, 3])[0], rtol=0, atol=1e-12)
    w = t.var(axis=1, ddof=1).mean()
    assert_allclose(res.table["phi"], 1 - w / np.array([1, 2, 3]) / np.var(Y[:30], ddof=1), rtol=0,
                    atol=1e-12)
    # psi's fixed baseline: the out-of-bag predictions of the first max(grid) = 3 members
    oob = oob_by_hand(pool.ensemble_, 30)[:, :3]
    with np.errstate(invalid="ignore"):
        baseline = np.where(oob, per_tree(pool.ensemble_, X[:30])[:, :3], 0).sum(axis=1) / oob.sum(axis=1)
    assert_allclose(res.table["psi"], 1 - w / np.array([1, 2, 3]) / np.nanvar(baseline, ddof=1), rtol=0,
                    atol=1e-12)
