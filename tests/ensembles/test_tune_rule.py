"""The recommendation's rule (issue 25): optRF's for trees, the target's for a pool of members."""

import math

import numpy as np
import pytest
from sklearn.ensemble import RandomForestRegressor

from predstab import TreePool, fit_2pl, tune_num_learners


@pytest.fixture(scope="module")
def members():
    rng = np.random.default_rng(0)
    truth = rng.normal(size=(60, 1))
    return truth + 0.6 * rng.normal(size=(60, 40))  # 60 objects x 40 exchangeable members


def _n_at(p1, p2, target):
    # optRF's estimate_numtrees before its ceiling, written out
    return p1 / (1 / target - 1) ** (1 / p2)


def test_a_pool_of_members_is_recommended_the_smallest_n_reaching_the_target(members):
    pool = TreePool.from_predictions(members)
    res = tune_num_learners(pool, method="closed_form", n_resamples=0, target=0.9)
    assert res.settings["rule"] == "target"
    table = res.table
    fit = fit_2pl(table["n_learners"].to_numpy(float), table["icc"].to_numpy(float))
    raw = _n_at(fit.p1, fit.p2, 0.9)
    rec = res.recommendations["icc"]
    assert (rec.rule, rec.minimum) == ("target", 1)
    assert rec.unrounded == pytest.approx(raw, rel=1e-9)
    assert res.recommendation == rec.value == math.ceil(raw)
    # the fitted curve is below the target one member earlier and at or above it here
    assert fit.stability(rec.value - 1) < 0.9 <= fit.stability(rec.value) + 1e-12
    # metric members: ICC(n) = B / (B + W / n) exactly, so the 2PL has p2 = 1 and n = (W / B) 0.9 / 0.1
    within = members.var(axis=1, ddof=1).mean()
    between = members.mean(axis=1).var(ddof=1) - within / members.shape[1]
    assert raw == pytest.approx(within / between * 9, rel=0.02)
    assert "The target rule: the smallest n whose fitted stability reaches target = 0.9" in str(res)


def test_rule_optrf_on_a_pool_of_members_and_the_interval_uses_the_rule(members):
    pool = TreePool.from_predictions(members)
    opt = tune_num_learners(pool, method="closed_form", n_resamples=0, rule="optRF")
    fit = opt.fits["icc"]
    assert opt.recommendation == fit.recommend() >= 500
    assert opt.recommendations["icc"].rule == "optRF"
    res = tune_num_learners(pool, method="closed_form", n_resamples=40, random_state=0)
    low, high = res.confidence_interval
    assert low <= res.recommendation <= high < 500  # the target rule on every resampled curve


def test_a_pool_fitted_from_an_estimator_keeps_optrfs_rule():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(80, 4))
    y = X[:, 0] + rng.normal(size=80)
    pool = TreePool(RandomForestRegressor(max_features=2), n_learners=80, random_state=0).fit(X[:60], y[:60],
                                                                                              X[60:])
    res = tune_num_learners(pool, method="closed_form", grid=(2, 5, 10, 20), n_resamples=0,
                            measures=("icc",))
    assert res.settings["rule"] == "optRF"
    assert res.recommendations["icc"].minimum == 500


def test_an_unknown_rule_is_refused_by_name(members):
    with pytest.raises(ValueError, match=r"`rule` must be one of .*optRF.*target.* got 'elbow'"):
        tune_num_learners(TreePool.from_predictions(members), method="closed_form", rule="elbow")


def test_the_target_rules_explanation_names_the_unrounded_n_and_an_extrapolation():
    from predstab.ensembles._tune_result import Recommendation

    rec = Recommendation(measure="icc", value=30, unrounded=29.2, rule="target", rec_thresh=1e-6,
                         round_to="thousand", minimum=1, n_for_target=30, target=0.99, grid_max=10,
                         beyond_grid=True, expected_stability=0.99)
    assert rec.explain() == ("icc: 30 learners reach icc = 0.99 on the fitted curve (29.2 before rounding "
                             "up; the target rule); beyond the grid: 3 x its largest value 10 (an "
                             "extrapolation of the fitted curve)")
