"""Summaries of run scores: IQM, t intervals, the stratified bootstrap, the best-of-K bias
and the seed / split variance components.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from predstab import compare
from tests.compare._examples import A, B


def test_robust_summaries_issue_figures():
    assert compare.iqm(A) == 46.5
    assert compare.iqm(B) == pytest.approx(26.3333, abs=5e-5)
    assert np.mean(A) == 46.2 and np.mean(B) == pytest.approx(63.1)
    assert np.median(A) == 46.5 and np.median(B) == 31.5
    ca = compare.mean_ci(A).confidence_interval
    cb = compare.mean_ci(B).confidence_interval
    assert (ca.low, ca.high) == pytest.approx((43.681, 48.719), abs=5e-4)
    assert (cb.low, cb.high) == pytest.approx((-27.127, 153.327), abs=5e-4)
    # same as scipy's t interval
    lo, hi = stats.t.interval(0.95, 9, loc=np.mean(B), scale=stats.sem(B))
    assert (cb.low, cb.high) == pytest.approx((lo, hi), rel=1e-12)


def test_iqm_properties():
    rng = np.random.default_rng(0)
    x = rng.normal(size=37)
    assert compare.iqm(x) == compare.iqm(rng.permutation(x))
    assert compare.iqm(x) == pytest.approx(stats.trim_mean(x, 0.25), rel=1e-12)
    assert compare.iqm([1.0, 2.0, 9.0]) == 4.0          # n < 4: nothing dropped
    assert compare.iqm(x.reshape(1, -1)) == compare.iqm(x)
    with pytest.raises(ValueError, match="`x`"):
        compare.iqm([1.0, np.nan])


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(min_value=-100, max_value=100, allow_nan=False), min_size=1, max_size=40))
def test_iqm_between_min_and_max_and_order_free(x):
    v = compare.iqm(x)
    assert min(x) - 1e-9 <= v <= max(x) + 1e-9
    assert compare.iqm(sorted(x)) == pytest.approx(v, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("k, value", [(2, 1 / np.sqrt(np.pi)), (3, 3 / (2 * np.sqrt(np.pi)))])
def test_expected_max_normal_closed_forms(k, value):
    assert compare.expected_max_normal(k) == pytest.approx(value, rel=1e-12)


@pytest.mark.parametrize("k, value", [(5, 1.162964), (20, 1.867475), (100, 2.507594)])
def test_expected_max_normal_issue_figures(k, value):
    assert compare.expected_max_normal(k) == pytest.approx(value, abs=5e-7)


def test_expected_max_normal_edges():
    assert compare.expected_max_normal(1) == 0.0
    with pytest.raises(ValueError, match="`k`"):
        compare.expected_max_normal(0)


def test_stratified_bootstrap_follows_rng():
    rng = np.random.default_rng(0)
    table = rng.normal(1.0, 0.3, size=(10, 5))
    r1 = compare.stratified_bootstrap_ci(table, n_resamples=300, random_state=4)
    r2 = compare.stratified_bootstrap_ci(table, n_resamples=300, random_state=4)
    r3 = compare.stratified_bootstrap_ci(table, n_resamples=300, random_state=5)
    np.testing.assert_array_equal(r1.bootstrap_distribution, r2.bootstrap_distribution)
    assert not np.array_equal(r1.bootstrap_distribution, r3.bootstrap_distribution)
    assert r1.value == compare.iqm(table)
    # a task whose runs agree contributes no spread: resampling stays within tasks
    const = np.tile(np.arange(5.0), (6, 1))
    rc = compare.stratified_bootstrap_ci(const, statistic=np.mean, n_resamples=50, random_state=0)
    assert rc.standard_error == 0.0 and rc.confidence_interval == (2.0, 2.0)


def test_variance_components_exact_design():
    # split effects 0, 1, 2, 3 (sample variance 5/3); seed deviations -1, +1 in every split
    split = np.array([0.0, 1.0, 2.0, 3.0])
    x = split[:, None] + np.array([-1.0, 1.0])
    v = compare.variance_components(x)
    # MS_within = 2 ; MS_between = 2 * 5/3 ; split_var = (10/3 - 2) / 2 = 2/3
    assert v.seed_var == pytest.approx(2.0, rel=1e-12)
    assert v.split_var == pytest.approx(2 / 3, rel=1e-12)
    assert v.seed_share == pytest.approx(0.75, rel=1e-12)


def test_variance_components_recovers_synthetic_components():
    rng = np.random.default_rng(11)
    s, r = 400, 25
    split_effect = rng.normal(0, 2.0, size=(s, 1))     # sigma_split^2 = 4
    model_a = 70 + split_effect + rng.normal(0, 1.0, size=(s, r))       # sigma_seed^2 = 1
    model_b = 71 + split_effect + rng.normal(0, 1.0, size=(s, r))
    v = compare.variance_components(model_b, baseline=model_a)
    assert v.split_var == pytest.approx(4.0, rel=0.15)
    assert v.seed_var == pytest.approx(1.0, rel=0.05)
    assert v.split_share == pytest.approx(0.8, abs=0.03)
    # the shared split effect cancels in paired differences: only seed noise (2 x 1) remains
    assert v.paired.seed_var == pytest.approx(2.0, rel=0.05)
    assert v.paired.split_var < 0.1
    assert v.paired.mean == pytest.approx(1.0, abs=0.05)


def test_variance_components_constant_and_bad_input():
    v = compare.variance_components(np.full((3, 4), 0.9))
    assert v.seed_var == 0.0 and v.split_var == 0.0 and np.isnan(v.seed_share)
    with pytest.raises(ValueError, match="`scores`"):
        compare.variance_components(np.ones((1, 4)))
    with pytest.raises(ValueError, match="`baseline`"):
        compare.variance_components(np.ones((3, 4)), baseline=np.ones((3, 3)))


def test_mean_ci_prints_as_r_t_test():
    # R 4.2.2: print(t.test(c(40, 42, 44, 45, 46, 47, 48, 49, 50, 51))$conf.int, digits = 7):
    # 43.68097 48.71903; the standard error sqrt(111.6 / 9 / 10) = 1.113553
    x = [40, 42, 44, 45, 46, 47, 48, 49, 50, 51]
    assert str(compare.mean_ci(x)).splitlines() == [
        " Mean with Student's t confidence interval", "",
        "mean = 46.2, standard error = 1.114, df = 9",
        "95 percent confidence interval:", " 43.68097 48.71903"]
    # conf.level = 0.9: 46.2 -/+ qt(0.95, 9) * 1.113553
    half = stats.t.ppf(0.95, 9) * np.std(x, ddof=1) / np.sqrt(10)
    lines = str(compare.mean_ci(x, confidence_level=0.9)).splitlines()
    assert lines[-2:] == ["90 percent confidence interval:", f" {46.2 - half:.7g} {46.2 + half:.7g}"]
