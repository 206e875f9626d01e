"""Every scale-invariant or scale-equivariant function of predstab.compare gives the same
answer for ``x`` and ``c x``, 1e-300 <= c <= 1e300 (issue 33, item 3).

``corrected_resampled_ttest(a * 1e154, b * 1e154, ...)`` gave t = 0, p = 1 with numpy's overflow
warning and NaN ("scores are constant") at 1e-170; ``mean_ci``'s standard error was inf from
1e154 and 0 below 1e-160; ``bootstrap_ci``'s and ``paired_bootstrap``'s standard errors were inf
at 1e300 (their squares overflowed). Statistics and p-values are invariant; estimates,
intervals and standard errors scale with ``c`` (compared after dividing by ``c``). As in
tests/core/test_scale_invariance.py, no warning other than predstab's may be raised.
"""

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from predstab import PredstabWarning
from predstab import compare as cmp

SETTINGS = settings(max_examples=6, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])
TINY = np.finfo(float).tiny


def _t(res, c):
    return [res.statistic, res.pvalue, res.estimate / c, *(v / c for v in res.confidence_interval)]


def _interval(res, c):
    return [res.value / c, res.standard_error / c, *(v / c for v in res.confidence_interval)]


def _paired(res, c):
    return [res.pvalue, res.difference / c, res.standard_error_difference / c, res.standard_error_a / c,
            *(v / c for v in res.confidence_interval)]


# name -> f(x, c): the invariant numbers of the call on x (an (n, 2) array of positive scores,
# already multiplied by c)
FUNCTIONS = {
    "corrected_resampled_ttest": lambda x, c: _t(
        cmp.corrected_resampled_ttest(x[:, 0], x[:, 1], n_train=90, n_test=10), c),
    "cv5x2_ttest": lambda x, c: [(r := cmp.cv5x2_ttest(x[:10, 0].reshape(5, 2),
                                                       x[:10, 1].reshape(5, 2))).statistic, r.pvalue],
    "cv5x2_ftest": lambda x, c: [(r := cmp.cv5x2_ftest(x[:10, 0].reshape(5, 2),
                                                       x[:10, 1].reshape(5, 2))).statistic, r.pvalue],
    "ttest(paired)": lambda x, c: _t(cmp.ttest(x[:, 0], x[:, 1], paired=True), c),
    "mean_ci": lambda x, c: _interval(cmp.mean_ci(x[:, 0]), c),
    "bootstrap_ci(mean)": lambda x, c: _interval(cmp.bootstrap_ci(x[:, 0], n_resamples=300,
                                                                  random_state=1), c),
    "bootstrap_ci(mean, bca)": lambda x, c: _interval(
        cmp.bootstrap_ci(x[:, 0], n_resamples=300, method="bca", random_state=1), c),
    "bootstrap_ci(median, bca)": lambda x, c: _interval(
        cmp.bootstrap_ci(x[:, 0], np.median, n_resamples=300, method="bca", random_state=1), c),
    "paired_bootstrap(per_case)": lambda x, c: _paired(cmp.paired_bootstrap(
        np.zeros(len(x)), x[:, 0], x[:, 1], metric=lambda t, p: p, per_case=True, n_resamples=300,
        method="bca", random_state=2), c),
    "paired_bootstrap": lambda x, c: _paired(cmp.paired_bootstrap(
        np.zeros(len(x)), x[:, 0], x[:, 1], metric=lambda t, p: float(np.mean(p)), n_resamples=200,
        method="basic", random_state=2), c),
    "mean_permutation_test": lambda x, c: [cmp.mean_permutation_test(x[:, 0], x[:, 1], paired=True,
                                                                     random_state=0).pvalue],
    "wilcoxon": lambda x, c: [cmp.wilcoxon(x[:, 0], x[:, 1]).pvalue],
    "iqm": lambda x, c: [cmp.iqm(x[:, 0]) / c],
    "stratified_bootstrap_ci": lambda x, c: [
        (r := cmp.stratified_bootstrap_ci(x, n_resamples=200, random_state=3)).value / c,
        r.standard_error / c, *(v / c for v in r.confidence_interval)],
    "probability_of_improvement": lambda x, c: [
        (r := cmp.probability_of_improvement(x[:, 0], x[:, 1], n_resamples=200, random_state=4)).value,
        *r.confidence_interval],
}


def _value(name, x, c):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = np.asarray(FUNCTIONS[name](x, c), dtype=float)
    stray = [f"{w.category.__name__}: {w.message}" for w in caught
             if not issubclass(w.category, PredstabWarning)]
    assert not stray, stray
    assert np.all(np.isfinite(value)), value
    return value


@st.composite
def pairs(draw):
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    n = draw(st.integers(10, 16))
    a = 3.0 + rng.normal(size=n)
    return np.abs(np.column_stack([a, a + 0.3 + 0.5 * rng.normal(size=n)])) + 0.1


@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_compare_is_the_same_at_every_scale(name):
    @SETTINGS
    @given(x=pairs(), log_c=st.floats(-300, 300))
    def prop(x, log_c):
        c = 10.0**log_c
        y = x * c
        if not (np.isfinite(y).all() and np.abs(y).min() > TINY and np.abs(y).max() < 1e306):
            return
        np.testing.assert_allclose(_value(name, y, c), _value(name, x, 1.0), rtol=1e-9, atol=0)

    prop()


@pytest.mark.parametrize("name", list(FUNCTIONS))
@pytest.mark.parametrize("c", [1e-300, 1e-170, 1e154, 1e300])
def test_the_issue_s_magnitudes(name, c):
    x = np.abs(np.random.default_rng(8).normal(3.0, 1.0, size=(12, 2))) + 0.1
    x = x / np.abs(x).max()
    np.testing.assert_allclose(_value(name, x * c, c), _value(name, x, 1.0), rtol=1e-9)
    e = int(np.round(np.log2(c)))
    np.testing.assert_allclose(_value(name, np.ldexp(x, e), np.ldexp(1.0, e)), _value(name, x, 1.0),
                               rtol=1e-12)
