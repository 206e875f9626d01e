"""ICC(1)'s closed form where the between-object variance estimate is below 0 (issue 35, item 4).

The closed form floors ``B`` at 0, so the curve is 0 at every n; the result says so, gives the
unfloored ICC(1) of one learner (``single_icc``: irr::icc's oneway single value) and keeps its
band inside the curve's range [0, 1]; tune_num_learners recommends nothing and advises no grid.
"""

import numpy as np
import pytest

import predstab
from predstab import TreePool, tune_num_learners
from predstab.ensembles._closed_form import percentile_band

# five members of pure noise on 40 objects: the object means spread less than the noise predicts
NOISE = np.random.default_rng(1).normal(size=(40, 5))
# R 4.2.2, irr 0.84.1, the same numbers (np.savetxt(..., fmt="%.17g")):
#   m <- as.matrix(read.csv("noise.csv", header = FALSE))
#   print(icc(m, model = "oneway", unit = "single")$value, digits = 15)
R_ICC1 = -0.0724852932774128


def _oneway_single(t):
    """ICC(1) by hand: (MSB - MSW) / (MSB + (k - 1) MSW) (Shrout & Fleiss 1979, ICC(1,1))."""
    k = t.shape[1]
    msb = k * t.mean(axis=1).var(ddof=1)
    msw = t.var(axis=1, ddof=1).mean()
    return (msb - msw) / (msb + (k - 1) * msw)


def test_a_floored_curve_gives_the_unfloored_icc_of_one_learner_and_a_band_from_zero():
    res = TreePool.from_predictions(NOISE, random_state=0).closed_form([1, 2, 5], n_resamples=50,
                                                                       random_state=0)
    np.testing.assert_array_equal(res.curve, [0.0, 0.0, 0.0])
    assert res.single_icc == pytest.approx(R_ICC1, rel=1e-12)
    assert res.single_icc == pytest.approx(_oneway_single(NOISE), rel=1e-12)
    assert res.single_icc == pytest.approx(predstab.icc(NOISE).value, rel=1e-12)
    # the band lies in ICC(1)'s range: from 0 (the floor; resampled errors reach below it) upwards
    np.testing.assert_array_equal(res.low, [0.0, 0.0, 0.0])
    assert np.all(res.high > 0) and np.all(res.high <= 1)
    assert np.any(res.curve + np.quantile(res.errors, 0.025, axis=0) < 0)  # what the cap removed
    text = " ".join(str(res).split())
    assert (f"the between-object variance estimate is below 0 (ICC(1) of one learner {R_ICC1:.4f} without "
            "the floor") in text and "ICC(1) is 0 at every number of learners" in text


def test_with_signal_the_single_icc_is_the_curve_at_one_learner():
    rng = np.random.default_rng(2)
    t = rng.normal(size=(30, 1)) + 0.7 * rng.normal(size=(30, 6))
    res = TreePool.from_predictions(t, random_state=0).closed_form([1, 3], n_resamples=20, random_state=0)
    assert res.single_icc == pytest.approx(res.curve[0], rel=1e-12)
    assert res.single_icc == pytest.approx(_oneway_single(t), rel=1e-12)
    assert "floored" not in str(res)
    pool = TreePool.from_predictions(t, y=rng.normal(size=20), random_state=0)
    phi = pool.closed_form([1, 3], measure="phi")
    assert np.isnan(phi.single_icc)


def test_percentile_band_is_capped_from_below_only_when_asked():
    curve = np.array([0.0, 0.5])
    errors = np.array([[-0.3, -0.2], [0.1, 0.1], [0.2, 0.3]] * 10)
    plain = percentile_band(curve, errors, 0.9)
    capped = percentile_band(curve, errors, 0.9, lowest=0.0)
    assert plain.low[0] == pytest.approx(-0.3) and capped.low[0] == 0.0
    assert capped.low[1] == plain.low[1] == pytest.approx(0.3)
    np.testing.assert_array_equal(capped.high, plain.high)


def test_tuning_a_floored_pool_recommends_nothing_and_advises_no_grid():
    pool = TreePool.from_predictions(NOISE, random_state=0)
    with pytest.warns(predstab.PredstabWarning, match="between-object variance estimate is below 0"):
        res = tune_num_learners(pool, method="closed_form", n_resamples=20, random_state=0)
    np.testing.assert_array_equal(res.table["icc"], 0.0)
    assert res.recommendation is None and not res.reliable and res.n_for_target is None
    rec, fit = res.recommendations["icc"], res.fits["icc"]
    assert rec.rule == "none" and rec.value is None and not fit.converged
    assert fit.message == "curve floored at 0"
    assert f"ICC(1) of one member {R_ICC1:.4f} without the floor" in res.message
    assert "no number of members reaches icc = 0.95, and no larger grid would change that" in res.message
    assert "grid up to" not in res.message and "grid up to" not in str(res)
    assert np.all(res.table["icc_low"] == 0.0)


def test_a_pool_of_members_is_told_in_members_and_a_forest_in_learners():
    # issue 35: a pool built from given predictions (networks, any members) printed "learners"
    signal = np.random.default_rng(2).normal(size=(40, 1)) * 2 + NOISE
    res = TreePool.from_predictions(signal).closed_form([1, 2, 4], measure="icc", n_resamples=30,
                                                        random_state=0)
    text = str(res)
    assert "pool of members" in text and "pool = 5 members" in text
    assert "bootstrap over members, 30 resamples" in text and "n_members" in text
    assert "learners" not in text
    assert res.unit == "members" and res.covers.startswith("members only")
    assert set(res.to_frame()["ci_covers"]) == {"members only"}
    # the numbers are those of the one-way ICC of the members' means: n k-member ensembles
    icc1 = _oneway_single(signal)
    np.testing.assert_allclose(res.curve, [icc1 * n / (1 + (n - 1) * icc1) for n in (1, 2, 4)],
                               rtol=1e-12)
    from sklearn.ensemble import RandomForestRegressor
    X = np.random.default_rng(3).normal(size=(60, 3))
    forest = TreePool(RandomForestRegressor(max_depth=3), n_learners=20, random_state=0).fit(
        X, X[:, 0], X[:10])
    fit = forest.closed_form([1, 2], measure="icc")
    assert fit.unit == "learners" and "pool = 20 learners" in str(fit)


def test_the_tuning_interval_of_members_says_members_and_quotes_no_forest_figure():
    signal = np.random.default_rng(2).normal(size=(40, 1)) * 2 + NOISE
    res = tune_num_learners(TreePool.from_predictions(signal), method="closed_form", random_state=0)
    assert res.interval_covers.startswith("test objects and the pool's members resampled together")
    assert "learners+objects" in res.interval_covers  # the API's option name is kept
    assert "0.985" not in res.interval_covers and "pools of members" in res.interval_covers
    assert "pool's learners" not in res.interval_covers
