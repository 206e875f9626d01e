"""TreePool.from_predictions: the same pool as a fitted TreePool fed the same per-tree
predictions (closed forms, bands, forests, the tuning), and its input checks."""

import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose
from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor

from predstab import PredstabWarning, TreePool, tune_num_learners
from predstab.ensembles import _members
from tests.ensembles._pools import XC, YC, X, Y, icc_by_hand

N = [1, 2, 3, 5, 8]


@pytest.fixture(scope="module")
def regression():
    pool = TreePool(RandomForestRegressor(max_features=2, max_depth=4), n_learners=16,
                    random_state=np.random.default_rng(0)).fit(X[:30], Y[:30], X[30:])
    return pool


@pytest.fixture(scope="module", params=["hard", "soft"])
def classes(request):
    pool = TreePool(RandomForestClassifier(max_features=2, max_depth=3), n_learners=16, voting=request.param,
                    random_state=0).fit(XC[:30], YC[:30], XC[30:])
    return pool


def _same(a, b):
    assert_allclose(a.curve, b.curve, rtol=0, atol=1e-12)
    assert_allclose(a.low, b.low, rtol=0, atol=1e-12)
    assert_allclose(a.high, b.high, rtol=0, atol=1e-12)
    assert_allclose(a.errors, b.errors, rtol=0, atol=1e-12)


def test_metric_pool_from_its_predictions_is_the_pool(regression):
    pool = regression
    rebuilt = TreePool.from_predictions(pool.test_predictions_, oob=pool.oob_,
                                        oob_predictions=pool.train_predictions_, y=Y[:30])
    for measure in ("icc", "phi", "psi"):
        _same(pool.closed_form(N, measure=measure, n_resamples=40, random_state=5),
              rebuilt.closed_form(N, measure=measure, n_resamples=40, random_state=5))
    for n in (1, 4, 8):
        assert np.array_equal(pool.forests(n), rebuilt.forests(n))
        assert np.array_equal(pool.forests(n, on="oob"), rebuilt.forests(n, on="oob"), equal_nan=True)
    assert np.array_equal(pool.oob_baseline(), rebuilt.oob_baseline(), equal_nan=True)
    # and the curve is the ICC(1) of the per-tree predictions by hand
    assert_allclose(rebuilt.closed_form(N).curve, icc_by_hand(pool.test_predictions_, N)[0], rtol=0,
                    atol=1e-12)


def test_out_of_bag_pool_from_its_predictions_is_the_pool():
    # fitted without X_test: the training rows predicted out of bag, the mask in every closed form
    pool = TreePool(RandomForestRegressor(max_features=2, max_depth=4), n_learners=16,
                    random_state=2).fit(X[:30], Y[:30])
    rebuilt = TreePool.from_predictions(pool.train_predictions_, oob=pool.oob_, y=Y[:30])
    assert rebuilt.on_train_
    for measure in ("icc", "phi", "psi"):
        _same(pool.closed_form(N, measure=measure, n_resamples=30, random_state=1),
              rebuilt.closed_form(N, measure=measure, n_resamples=30, random_state=1))
    assert np.array_equal(pool.forests(4), rebuilt.forests(4), equal_nan=True)


def test_class_pool_from_its_probabilities_is_the_pool(classes):
    pool = classes
    rebuilt = TreePool.from_predictions(pool.test_predictions_, classes=pool.classes_, voting=pool.voting_,
                                        oob=pool.oob_, oob_predictions=pool.train_predictions_, y=YC[:30])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PredstabWarning)  # n = 16 > half the pool: extrapolated
        for measure in ("fleiss", "phi", "psi"):
            _same(pool.closed_form([1, 2, 4, 8, 16], measure=measure, n_resamples=8, random_state=3),
                  rebuilt.closed_form([1, 2, 4, 8, 16], measure=measure, n_resamples=8, random_state=3))
    for n in (1, 3, 8):
        assert np.array_equal(pool.forests(n), rebuilt.forests(n))


def test_labels_are_one_hot_votes(classes):
    # the hard votes of the class pool as labels: the forests and curves of hard voting
    pool = classes
    labels = pool.classes_[pool.test_predictions_.argmax(axis=2)]
    votes = TreePool.from_predictions(labels, classes=pool.classes_)  # numbers are labels through `classes`
    assert TreePool.from_predictions(labels).classes_ is None  # ... else metric values
    assert votes.voting_ == "hard" and votes.classes_.tolist() == [0, 1]
    assert_allclose(votes.test_predictions_, np.eye(2)[pool.test_predictions_.argmax(axis=2)], rtol=0, atol=0)
    hard = TreePool.from_predictions(pool.test_predictions_, classes=pool.classes_, voting="hard")
    assert np.array_equal(votes.forests(4), hard.forests(4))
    _same(votes.closed_form([1, 2, 4, 8], measure="fleiss", n_resamples=5, random_state=0),
          hard.closed_form([1, 2, 4, 8], measure="fleiss", n_resamples=5, random_state=0))
    # text labels
    text = TreePool.from_predictions(np.where(labels == 1, "yes", "no"))
    assert text.classes_.tolist() == ["no", "yes"]
    assert text.forests(4).tolist() == np.where(votes.forests(4) == 1, "yes", "no").tolist()
    numeric = TreePool.from_predictions(labels.astype(float), classes=[0, 1])
    assert np.array_equal(numeric.test_predictions_, votes.test_predictions_)


def test_tuning_a_rebuilt_pool_is_tuning_the_estimator():
    est = RandomForestRegressor(max_features=2, max_depth=4)
    kw = dict(grid=(2, 4, 8, 16), method="closed_form", n_resamples=20, random_state=0)
    direct = tune_num_learners(est, X[:30], Y[:30], X[30:], pool_size=64, **kw)
    # the pool tune_num_learners fits: its seed is the first draw of random_state's generator
    pool = TreePool(est, n_learners=64, random_state=np.random.default_rng(0)).fit(X[:30], Y[:30], X[30:])
    rebuilt = TreePool.from_predictions(pool.test_predictions_, oob=pool.oob_,
                                        oob_predictions=pool.train_predictions_, y=Y[:30], random_state=0)
    assert rebuilt.seed_ == pool.seed_  # the closed forms' default generator: the same bands
    given = tune_num_learners(rebuilt, **kw)
    columns = [c for c in direct.table.columns if c not in ("seconds", "degenerate")]
    assert_allclose(given.table[columns].to_numpy(float), direct.table[columns].to_numpy(float), rtol=0,
                    atol=1e-12)
    assert given.fits["icc"].p1 == pytest.approx(direct.fits["icc"].p1, abs=1e-9)
    assert given.n_for_target == direct.n_for_target
    assert given.settings["estimator"] == "TreePool of 64 members (built from its members' predictions)"
    assert given.psi_baseline == direct.psi_baseline


@pytest.mark.filterwarnings("ignore:icc. the curve has not flattened")
def test_tuning_a_pool_defaults(regression):
    rebuilt = TreePool.from_predictions(regression.test_predictions_)  # no y, no oob: icc only
    res = tune_num_learners(rebuilt, method="closed_form", n_resamples=0)
    assert res.table["n_learners"].tolist() == [1, 2, 3, 4]  # up to a quarter of 16 members (at least 3)
    assert list(res.fits) == ["icc"]
    assert_allclose(res.table["icc"], icc_by_hand(regression.test_predictions_, [1, 2, 3, 4])[0], rtol=0,
                    atol=1e-12)
    assert np.isnan(res.runtime[0]) and "Run time: not known" in str(res)
    pool = TreePool.from_predictions(np.random.default_rng(0).normal(size=(10, 1000)))
    assert tune_num_learners(pool, n_resamples=0, method="closed_form").settings["grid"] == \
        [1, 2, 5, 11, 23, 52, 114, 250]


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"X": X}, "`X` must be omitted"),
    ({"method": "refit"}, "'refit' refits an estimator"),
    ({"measures": ("icc", "phi")}, "'phi' needs `y`"),
    ({"measures": ("icc", "psi")}, "'psi' needs `oob`"),
    ({"pool_size": 100}, "`pool_size` does not apply"),
    ({"grid": (2, 4, 8, 16), "method": "pool"}, "at least 2 disjoint groups"),
])
def test_tuning_a_pool_refuses_what_it_cannot_do(regression, kwargs, message):
    rebuilt = TreePool.from_predictions(regression.test_predictions_)
    with pytest.raises(ValueError, match=message):
        tune_num_learners(rebuilt, n_resamples=0, **kwargs)


def test_a_pool_of_predictions_cannot_be_extended(regression):
    with pytest.raises(ValueError, match="built from its members' predictions"):
        TreePool.from_predictions(regression.test_predictions_).extend(4)
    with pytest.raises(ValueError, match="`baseline`"):
        TreePool.from_predictions(regression.test_predictions_).closed_form([2], measure="phi")


GOOD = np.arange(12.0).reshape(4, 3)
PROBA = np.full((4, 3, 2), 0.5)


@pytest.mark.parametrize(("args", "kwargs", "message"), [
    ((np.arange(5.0),), {}, r"`predictions` must be objects x members .* got shape \(5,\)"),
    ((np.zeros((2, 2, 2, 2)),), {}, r"got shape \(2, 2, 2, 2\)"),
    ((np.zeros((4, 1)),), {}, r"at least 2 objects .* and 2 members .* got shape \(4, 1\)"),
    ((np.where(GOOD == 5, np.nan, GOOD),), {}, r"`predictions` has a missing value .* at \(1, 2\)"),
    ((np.where(GOOD == 5, np.inf, GOOD),), {}, r"finite values; got an infinite value at \(1, 2\)"),
    ((PROBA * 1.2,), {}, r"sum to 1 .* at \(0, 0\) they sum to 1\.2"),
    ((PROBA - 0.6,), {}, r"probabilities in \[0, 1\]; got values from -0\.1"),
    ((PROBA,), {"classes": ["a", "b", "c"]}, r"`classes` must name the 2 classes .* got 3 labels"),
    ((GOOD,), {"oob": np.ones((4, 2), bool)}, r"`oob` must have the shape \(4, 3\) .* got shape \(4, 2\)"),
    ((GOOD,), {"oob": np.full((4, 3), 0.5)}, r"`oob` must be a boolean mask .* got dtype float64"),
    ((np.array([["a", "b"], ["a", "c"]]),), {"classes": ["a", "b"]}, r"label 'c' at \(1, 1\) that is not"),
    ((GOOD,), {"oob_predictions": GOOD}, r"`oob_predictions` needs `oob`"),
    ((GOOD,), {"y": [1.0, np.nan, 2.0]}, r"`y` must be the observed responses .* with missing values"),
    ((GOOD,), {"voting": "mean"}, r"`voting`"),
])
def test_bad_predictions_are_named(args, kwargs, message):
    with pytest.raises(ValueError, match=message):
        TreePool.from_predictions(*args, **kwargs)


def test_missing_predictions_where_the_member_does_not_vote():
    oob = np.ones((4, 3), dtype=bool)
    oob[1, 2] = False
    values = np.where(GOOD == 5, np.nan, GOOD)
    pool = TreePool.from_predictions(values, oob=oob)
    # row 1 is predicted by members 0 and 1 only: (3 + 4) / 2 with n = 2 ... as the mask says
    assert_allclose(pool.forests(1, n_forests=2)[1], [3.0, 4.0])
    assert_allclose(pool.oob_baseline(), [1.0, 3.5, 7.0, 10.0])
    oob[1, 2] = True
    with pytest.raises(ValueError, match=r"allowed only where `oob` is False"):
        TreePool.from_predictions(values, oob=oob)


def test_float32_predictions_stay_float32(regression):
    t = regression.test_predictions_
    single = TreePool.from_predictions(t.astype(np.float32))
    assert single.test_predictions_.dtype == np.float32 and single.dtype == "float32"
    assert_allclose(single.closed_form(N).curve, icc_by_hand(t.astype(np.float32).astype(float), N)[0],
                    rtol=1e-10)
    assert TreePool.from_predictions(t.astype(int)).test_predictions_.dtype == np.float64


# ----------------------------------------------------------------------------- mutation survivors (issue 24)
def test_infinite_values_are_named_without_a_numpy_warning():
    both = GOOD.copy()
    both[0, 1], both[2, 0] = np.inf, -np.inf  # their sum is NaN: numpy would warn "invalid value"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match=r"finite values; got an infinite value at \(0, 1\)\.$"):
            TreePool.from_predictions(both)
    proba = PROBA.copy()
    proba[2, 1] = [np.inf, 0.0]
    with pytest.raises(ValueError, match=r"finite probabilities; got an infinite value at \(2, 1, 0\)\.$"):
        TreePool.from_predictions(proba)
    # finite data: one sum decides, no mask of missing values is built
    assert _members._all_finite(GOOD) is True and _members._all_finite(both) is False
    assert _members._matrix_iv(GOOD, None, "predictions")[2] is None


def test_missing_probabilities_where_the_member_does_not_vote():
    rng = np.random.default_rng(1)
    p = rng.random((6, 5))
    proba = np.stack([p, 1 - p], axis=2)
    oob = rng.random((6, 5)) < 0.7
    gaps = np.where(oob[..., None], proba, np.nan)
    pool = TreePool.from_predictions(gaps, oob=oob, random_state=0)
    # the members that do not vote count for nothing: any probabilities there give the same pool
    other = TreePool.from_predictions(np.where(oob[..., None], proba, 0.5), oob=oob, random_state=0)
    np.testing.assert_array_equal(pool.test_predictions_, np.where(oob[..., None], proba, 0.0))
    assert pool.classes_.tolist() == [0, 1] and pool.test_predictions_.dtype == np.float64
    a = pool.closed_form([1, 2], measure="fleiss", n_resamples=0)
    b = other.closed_form([1, 2], measure="fleiss", n_resamples=0)
    assert np.isfinite(a.curve).all()
    assert_allclose(a.curve, b.curve, rtol=0, atol=1e-15)
    # integer one-hot probabilities are read as floats
    votes = TreePool.from_predictions(np.eye(2, dtype=int)[(p > 0.5).astype(int)])
    assert votes.test_predictions_.dtype == np.float64
    np.testing.assert_array_equal(votes.test_predictions_[..., 1], (p > 0.5).astype(float))


def test_missing_out_of_bag_predictions_where_the_member_does_not_vote():
    oob = np.ones((4, 3), dtype=bool)
    oob[1, 2] = False
    values = np.where(GOOD == 5, np.nan, GOOD)
    pool = TreePool.from_predictions(GOOD + 100, oob=oob, oob_predictions=values)
    assert pool.train_predictions_[1, 2] == 0.0 and not pool.on_train_
    assert_allclose(pool.oob_baseline(), [1.0, 3.5, 7.0, 10.0])
    # on the test rows too: a zero where the member does not vote
    assert TreePool.from_predictions(values, oob=oob).test_predictions_[1, 2] == 0.0


@pytest.mark.parametrize(("args", "kwargs", "message"), [
    ((np.where(GOOD == 5, np.nan, GOOD),), {},
     r"^`predictions` has a missing value \(NaN / None\) at \(1, 2\)\.$"),
    ((GOOD,), {"y": [1.0, np.nan, 2.0]}, r"got shape \(3,\) with missing values\.$"),
    ((GOOD,), {"oob": np.ones((4, 3), bool), "oob_predictions": np.zeros((5, 2))},
     r"the members \(and classes\) of `predictions` \(3,\) after the rows; got shape \(5, 2\)\.$"),
    ((GOOD,), {"oob": np.ones((4, 3), bool), "oob_predictions": np.zeros((5, 3))},
     r"^`oob` must have the shape \(5, 3\) of `oob_predictions` \(objects x members\); got shape "
     r"\(4, 3\)\.$"),
    ((np.zeros((4, 3, 1)),), {}, r"^`predictions` must hold probabilities of at least 2 classes; got shape "
                                 r"\(4, 3, 1\)\.$"),
])
def test_bad_predictions_messages_in_full(args, kwargs, message):
    with pytest.raises(ValueError, match=message):
        TreePool.from_predictions(*args, **kwargs)


def test_two_objects_and_two_members_are_enough():
    t = np.array([[1.0, 2.0], [3.0, 5.0]])
    pool = TreePool.from_predictions(t)
    assert pool.n_learners == 2
    assert_allclose(pool.closed_form([1, 2], n_resamples=0).curve, icc_by_hand(t, [1, 2])[0], rtol=1e-12)


def test_a_pool_of_labels_reports_hard_voting():
    labels = np.array([["a", "b", "a"], ["b", "b", "a"], ["a", "a", "a"]])
    pool = TreePool.from_predictions(labels, classes=["a", "b"])
    assert pool.voting == "hard" and pool.voting_ == "hard"
    hard = TreePool.from_predictions(PROBA, voting="hard")
    assert hard.voting == "hard" and hard.voting_ == "hard"


def test_huge_finite_values_are_kept_without_a_numpy_warning():
    # their sum overflows to inf: the exact check then finds no NaN or infinity
    values = np.array([[1e308, 1e308], [1e308, -1e308], [1.0, 2.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pool = TreePool.from_predictions(values)
    np.testing.assert_array_equal(pool.test_predictions_, values)


def test_members_that_do_not_vote_hold_no_vote():
    # a partly missing probability row and a missing label where the member trained on the object
    oob = np.ones((4, 3), dtype=bool)
    oob[1, 2] = False
    proba = np.stack([np.full((4, 3), 0.25), np.full((4, 3), 0.75)], axis=2)
    proba[1, 2] = [np.nan, 0.75]
    pool = TreePool.from_predictions(proba, oob=oob)
    np.testing.assert_array_equal(pool.test_predictions_[1, 2], [0.0, 0.0])
    np.testing.assert_array_equal(pool.test_predictions_[0, 2], [0.25, 0.75])
    labels = np.array([["a", "b", "a"], ["b", "b", None], ["a", "a", "a"], ["b", "a", "b"]], dtype=object)
    votes = TreePool.from_predictions(labels, oob=oob, classes=["a", "b"])
    np.testing.assert_array_equal(votes.test_predictions_[1], [[0, 1], [0, 1], [0, 0]])
    np.testing.assert_array_equal(votes.test_predictions_[3], [[0, 1], [1, 0], [0, 1]])


@pytest.mark.parametrize(("args", "kwargs", "message"), [
    ((GOOD,), {"oob_predictions": GOOD},
     r"^`oob_predictions` needs `oob`, the mask of which member did not train on which of its rows\.$"),
    ((GOOD,), {"oob": np.ones((4, 3), bool), "oob_predictions": np.where(GOOD == 5, np.inf, GOOD)},
     r"^`oob_predictions` must hold finite values; got an infinite value at \(1, 2\)\.$"),
    ((np.array([["a", "b"], ["a", "c"]]),), {"classes": ["a", "b"]},
     r"^`predictions` holds the label 'c' at \(1, 1\) that is not among `classes` \['a', 'b'\]\.$"),
    ((np.array([["a", "b"], ["a", "a"]]),), {"classes": ["a"]},
     r"^`classes` must list at least 2 distinct class labels; got \['a'\]\.$"),
])
def test_more_messages_in_full(args, kwargs, message):
    with pytest.raises(ValueError, match=message):
        TreePool.from_predictions(*args, **kwargs)


@pytest.mark.parametrize("c", [1e-300, 1e-170, 1e154, 1e200, 1e300])
def test_closed_forms_of_extreme_predictions_are_those_of_the_data_at_scale_one(c):
    # issue 33: ICC = phi = 1 at 1e-170 (sums of squares underflowed, "collapsed"), NaN with numpy
    # warnings from 1e154; the closed forms by hand: ICC(1) of n members b / (b + w / n) and phi
    # 1 - (w / n) / var(y), with w the mean within-object variance and b the between-object
    # variance less the pool's noise w / P
    rng = np.random.default_rng(5)
    m = rng.normal(size=(30, 1)) + 0.6 * rng.normal(size=(30, 40))
    y = 1.5 * rng.normal(size=60)
    n = np.array([1, 2, 5, 10, 40])
    w = m.var(axis=1, ddof=1).mean()
    b = m.mean(axis=1).var(ddof=1) - w / 40
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no numpy overflow, no "collapsed" warning
        pool = TreePool.from_predictions(m * c, y=y * c, random_state=0)
        np.testing.assert_allclose(pool.closed_form(n).curve, b / (b + w / n), rtol=1e-9)
        np.testing.assert_allclose(pool.closed_form(n, measure="phi").curve, 1 - w / n / y.var(ddof=1),
                                   rtol=1e-9)
        res = tune_num_learners(pool, method="closed_form", n_resamples=20, random_state=0)
    reference = tune_num_learners(TreePool.from_predictions(m, y=y, random_state=0), method="closed_form",
                                  n_resamples=20, random_state=0)
    assert res.recommendation == reference.recommendation > 1
    np.testing.assert_allclose(res.table["icc"], reference.table["icc"], rtol=1e-9)
    np.testing.assert_allclose(res.table["phi_high"], reference.table["phi_high"], rtol=1e-6)


# ----------------------------------------------------------------------------- mutation survivors (issue 32)
@pytest.mark.parametrize(("args", "kwargs", "error", "message"), [
    ((GOOD,), {"oob": np.ones((4, 2), bool)}, ValueError,
     r"^`oob` must have the shape \(4, 3\) of `predictions` \(objects x members\); got shape \(4, 2\)\.$"),
    ((np.full((4, 3, 2), "a"),), {}, ValueError,
     r"^`predictions` of shape \(4, 3, 2\) must hold class probabilities \(numbers\); got dtype <U1\.$"),
    ((GOOD,), {"y": np.array([1 + 1j, 2, 3, 4])}, TypeError,
     r"^`y` must hold real numbers or class labels; got dtype complex128\.$"),
    ((GOOD,), {"y": [1.0, np.inf, 2.0, -np.inf]}, ValueError,
     r"^`y` must hold finite values; got 2 infinite value\(s\)\.$"),
    ((GOOD,), {"y": ["a", "b", "a", "c"]}, ValueError,
     r"^`y` must hold numbers for a pool of numeric predictions; got 'a', 'b', 'c', \.\.\. \(for class "
     r"labels, give the pool's `classes` or class predictions\)\.$"),
])
def test_predictions_and_y_messages_in_full(args, kwargs, error, message):
    with pytest.raises(error, match=message):
        TreePool.from_predictions(*args, **kwargs)


def test_a_pandas_y_is_read_as_its_values():
    pd = pytest.importorskip("pandas")
    pool = TreePool.from_predictions(GOOD, y=pd.Series([1.0, 2.5, None, 4.0], dtype="Float64").fillna(3.0))
    np.testing.assert_array_equal(pool.y_train_, [1.0, 2.5, 3.0, 4.0])
    assert pool.y_train_.dtype == np.float64
    with pytest.raises(ValueError, match=r"^`y` must be the observed responses .* got shape \(4,\) with "
                                         r"missing values\.$"):
        TreePool.from_predictions(GOOD, y=pd.Series([1.0, 2.5, None, 4.0], dtype="Float64"))


def test_a_pool_is_shown_with_what_it_holds():
    pool = TreePool.from_predictions(GOOD + 100, oob=np.ones((5, 3), bool),
                                     oob_predictions=np.arange(15.0).reshape(5, 3), y=np.arange(5.0))
    assert repr(pool) == ("TreePool(source='member predictions', n_learners=3, task='regression', "
                          "n_test_objects=4, n_train_objects=5, out_of_bag=True, observed_y=True)")
    assert _members.pool_items(TreePool.from_predictions(GOOD))[3:5] == [("n_test_objects", 4),
                                                                      ("n_train_objects", None)]
    labels = TreePool.from_predictions(np.array([["a", "b"], ["b", "b"], ["a", "a"]]), classes=["a", "b"])
    assert repr(labels) == ("TreePool(source='member predictions', n_learners=2, task='classification "
                            "(2 classes)', n_test_objects=3, n_train_objects=None, out_of_bag=False, "
                            "observed_y=False, voting='hard')")
    from sklearn.linear_model import LinearRegression
    assert repr(TreePool(LinearRegression(), n_learners=3)) == ("TreePool(source='LinearRegression', "
                                                                "n_learners=3, fitted=False)")


def test_x_test_of_another_width_is_named_before_the_members_predict():
    from sklearn.linear_model import LinearRegression

    rng = np.random.default_rng(0)
    features = rng.normal(size=(20, 4))
    members = [LinearRegression().fit(features, features[:, 0] + k) for k in range(3)]
    with pytest.raises(ValueError, match=r"^`X_test` has 3 columns \(features\), but member 0 "
                                         r"\(LinearRegression\) was fitted on 4; give `X_test` the features "
                                         r"the members were trained on\.$"):
        TreePool.from_members(members, features[:, :3])


def test_closed_form_units_copy_only_extreme_predictions_and_keep_the_copy():
    pool = TreePool.from_predictions(GOOD)
    units, shift = _members.closed_form_units(pool)
    assert shift == 0 and units is pool.test_predictions_  # no copy in the safe range
    huge = TreePool.from_predictions(GOOD * 1e200)
    first, shift = _members.closed_form_units(huge)
    assert shift < 0 and huge._closed_form_units[0] is huge.test_predictions_
    np.testing.assert_allclose(first, np.ldexp(GOOD * 1e200, shift), rtol=0)
    assert _members.closed_form_units(huge)[0] is first  # made once, then read from the pool
    huge.test_predictions_ = GOOD * 1e-200  # another array: made again for it
    again, shift_again = _members.closed_form_units(huge)
    assert shift_again > 0 and again is not first
    np.testing.assert_allclose(again, np.ldexp(GOOD * 1e-200, shift_again), rtol=0)
