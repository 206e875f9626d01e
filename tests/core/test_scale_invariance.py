"""Every scale-invariant measure gives the same value for ``x`` and ``c x``, 1e-300 <= c <= 1e300.

Issue 23, item 4: finite data >= 1e155 gave NaN with RuntimeWarnings (their sums of squares
overflowed), data <= 1e-170 gave 1 and "the model may have collapsed" (they underflowed),
``mean_correlation(x * 1e80)`` was 0.0 and ``compare.ttest(a * 1e-300, b * 1e-300)`` had
p = 0. The measures rescale extreme data once, exactly, by a power of four
(``predstab._core._ratings.unit_scaled``). The property is checked at every ``c`` for which the
scaled data stay finite and normal (``c max|x| < 1e308``, ``c min|x| > 2.2e-308``), and no
warning other than predstab's may be raised on the way.
"""

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import predstab
from predstab import PredstabWarning
from predstab import compare as cmp

SETTINGS = settings(max_examples=8, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])
TINY = np.finfo(float).tiny


def _icc_form(**form):
    return lambda x: predstab.icc(x, **form).value


# The registry: name -> value(x) for an (objects x replicates) matrix ``x`` of positive numbers
# (5-20 objects, 5-6 replicates), one dict per domain; ``MEASURES`` joins them. Add a function by
# adding a line to its domain's dict; ``TOLERANCE`` holds the rtol of an entry whose value is not
# reproduced to 1e-9 (none is to 1e-13 for an exact power of two, which scales exactly).
AGREEMENT = {
    "icc(1)": _icc_form(),
    "icc(k)": _icc_form(unit="average"),
    "icc(C,1)": _icc_form(model="twoway"),
    "icc(A,1)": _icc_form(model="twoway", type="agreement"),
    "icc(A,k)": _icc_form(model="twoway", type="agreement", unit="average"),
    "icc_table": lambda x: predstab.icc_table(x)["ICC"].to_numpy(),
    "icc CI": lambda x: np.array(predstab.icc(x, model="twoway", type="agreement").confidence_interval),
    # a stack of matrices: the vectorised path sends items of extreme magnitude one by one
    "icc(stack)": lambda x: predstab.icc(np.stack([x, x[::-1] * 2]), model="twoway").value,
    # REML components of an incomplete design (issue 33: NaN at 1e160, 1e-160 underflowed)
    "icc_reml": lambda x: np.concatenate([(r := predstab.icc_reml(_holes(x))).value, r.ci_low, r.ci_high]),
    "krippendorff_alpha(interval)": lambda x: predstab.krippendorff_alpha(x, scale="interval").value,
    "krippendorff_alpha(ratio)": lambda x: predstab.krippendorff_alpha(x, scale="ratio").value,
    "robinson_a": lambda x: predstab.robinson_a(x).value,
    "iota": lambda x: predstab.iota(x).value,
    "iota(2 variables)": lambda x: predstab.iota([x, x[::-1]]).value,
    "mean_correlation": lambda x: predstab.mean_correlation(x).value,
    "mean_spearman": lambda x: predstab.mean_spearman(x).value,
    "kendall_w": lambda x: predstab.kendall_w(x).value,
    "cronbach_alpha": lambda x: np.array([(r := predstab.cronbach_alpha(x)).value, r.standardized, r.g6]),
    "cronbach_alpha(detail=False)": lambda x: np.array(
        [(r := predstab.cronbach_alpha(x, detail=False)).value, r.standardized]),
    # issue 33: ZeroDivisionError at 1e-300 (its standard errors of measurement scale with x)
    "inter_intra_reliability": lambda x: np.array(
        [(r := predstab.inter_intra_reliability(x[:, :4], n_raters=2)).inter_random, r.inter_fixed,
         r.intra_random, r.lower_inter_random, r.lower_intra, r.pvalue_inter]),
}

STABILITY = {
    "phi": lambda x: predstab.phi(x, x.ravel()[::3] * 1.5, scale="metric").value,
    "psi": lambda x: predstab.psi(x, x[:, 0] * 0.5, scale="metric").value,
    "phi CI": lambda x: np.array(predstab.phi(x, x.ravel()[::3] * 1.5, scale="metric").confidence_interval),
    "calculate_phi": lambda x: predstab.calculate_phi(x, x.ravel()[::3] * 1.5).value,
    "calculate_psi": lambda x: predstab.calculate_psi(x, x[:, 0] * 0.5).value,
}


def _holes(x):
    """``x`` with two missing ratings (an incomplete design for icc_reml)."""
    x = x.copy()
    x[0, 1] = x[3, 2] = np.nan
    return x


def _pool(x, **kwargs):
    # the matrix as a pool of members' predictions (objects x members), observed responses y
    return predstab.TreePool.from_predictions(x, y=x.ravel()[::3] * 1.5, random_state=0, **kwargs)


def _oob(x):
    """An out-of-bag mask: every member votes for two thirds of the rows, every row has votes."""
    n, k = x.shape
    return (np.arange(n)[:, None] + np.arange(k)[None, :]) % 3 != 0


def _closed_form(x, measure, **kwargs):
    res = _pool(x, **kwargs).closed_form([1, 2, 5, 20], measure=measure, n_resamples=20, random_state=1,
                                         baseline=x[:, 0] * 0.5 if measure == "psi" else None)
    return np.concatenate([res.curve, res.low, res.high])


def _tune(x, method):
    # a pool of 4 k members (the pool method needs two disjoint forests of the largest grid value)
    wide = np.hstack([x, x[:, ::-1] * 1.1, np.roll(x, 1, axis=1) * 0.9, np.roll(x, 2, axis=1) * 1.2])
    res = predstab.tune_num_learners(_pool(wide), method=method, random_state=0)
    numbers = res.table.drop(columns=["seconds"]).select_dtypes("number").to_numpy(float)
    # the pool method's interval refits 2PL curves to resampled curves: on a flat resample the
    # fit is ill-conditioned (7e-32 to 2e39 at c = 10, moved by 1e-4 by the rounding of x * 10)
    interval = list(res.unrounded_interval) if method == "closed_form" else []
    return np.concatenate([numbers.ravel(), [res.recommendation], interval])


# member pools (issue 33: the closed forms gave ICC = phi = 1 at 1e-170, NaN from 1e154). The
# bands come from float32 products of the deviations with the resampling counts: the rounding
# of x * c moves them by ~1e-8
MEMBER_POOLS = {
    "TreePool.closed_form(icc)": lambda x: _closed_form(x, "icc"),
    "TreePool.closed_form(phi)": lambda x: _closed_form(x, "phi"),
    "TreePool.closed_form(psi)": lambda x: _closed_form(x, "psi"),
    "TreePool.closed_form(icc, out of bag)": lambda x: _closed_form(x, "icc", oob=_oob(x)),
    "tune_num_learners(closed_form)": lambda x: _tune(x, "closed_form"),
    "tune_num_learners(pool)": lambda x: _tune(x, "pool"),
}

# predstab.compare: tests of scores (the compare engineer appends its functions here)
COMPARE = {
    "ttest(paired) p": lambda x: cmp.ttest(x[:, 0], x[:, 1], paired=True).pvalue,
    "ttest(welch) p": lambda x: cmp.ttest(x[:, 0], x[:, 1]).pvalue,
    "ttest(one sample) p": lambda x: cmp.ttest(x[:, 0] - x[:, 1]).pvalue,
}

MEASURES = {**AGREEMENT, **STABILITY, **MEMBER_POOLS, **COMPARE}
# (and the recommendation interval of the pool method refits 2PL curves: an optimiser's 1e-7)
TOLERANCE = dict.fromkeys(MEMBER_POOLS, 1e-6)


def _value(name, x):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = np.asarray(MEASURES[name](x), dtype=float)
    stray = [f"{w.category.__name__}: {w.message}" for w in caught
             if not issubclass(w.category, PredstabWarning)]
    assert not stray, stray
    return value


@st.composite
def matrices(draw):
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    n, k = draw(st.integers(5, 12)), draw(st.integers(5, 6))
    # positive (ratio alpha), with a clear object effect: every measure is well defined
    x = 3.0 + rng.normal(size=(n, 1)) + 0.5 * rng.normal(size=(n, k))
    return np.abs(x) + 0.1


@pytest.mark.parametrize("name", list(MEASURES))
def test_scale_invariant_measures_are_the_same_at_every_scale(name):
    @SETTINGS
    @given(x=matrices(), log_c=st.floats(-300, 300))
    def prop(x, log_c):
        c = 10.0**log_c
        y = x * c
        if not (np.isfinite(y).all() and np.abs(y).min() > TINY and np.abs(y).max() < 1e307):
            return
        reference = _value(name, x)
        # the data times c differ from c x by the rounding of the product (0.5 ulp per value)
        np.testing.assert_allclose(_value(name, y), reference, rtol=TOLERANCE.get(name, 1e-9), atol=0)

    prop()


@pytest.mark.parametrize("name", list(MEASURES))
@pytest.mark.parametrize("c", [1e-300, 1e-170, 1e-160, 1e154, 1e155, 1e160, 1e300])
def test_the_issue_s_magnitudes(name, c):
    # the magnitudes of issues 23 and 33: NaN, 1.0 or 0.0 before; a power of two scales exactly
    x = np.abs(np.random.default_rng(3).normal(size=(20, 5)) + np.arange(20)[:, None] * 0.3) + 0.1
    x = x / np.abs(x).max()
    np.testing.assert_allclose(_value(name, x * c), _value(name, x), rtol=TOLERANCE.get(name, 1e-9))
    e = int(np.round(np.log2(c)))
    np.testing.assert_allclose(_value(name, np.ldexp(x, e)), _value(name, x), rtol=1e-13)


def test_finn_scales_with_the_data_and_raises_nothing():
    # Finn compares the raters' variance with that of n_levels levels, so it is not scale
    # invariant: finn(x * 1e300) raised ZeroDivisionError. Its within variance overflows to
    # inf, so Finn's coefficient is -inf, F = 0 and p = 1 -- what exact arithmetic rounds to.
    x = np.random.default_rng(0).normal(size=(20, 4)) + np.arange(20)[:, None]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # (values of 1e300 are off any 30-level scale: that is said, issue 32; nothing else is)
        warnings.filterwarnings("ignore", message=r"`ratings` span .* more than the 30 levels",
                                category=predstab.PredstabDataWarning)
        res = predstab.finn(x * 1e300, n_categories=30)
        assert res.value == -np.inf and res.statistic == 0.0 and res.pvalue == 1.0
        # at 1e100 the within variance is finite: the coefficient is 1 - MS_W / ((30^2 - 1) / 12)
        ms_w = np.sum((x - x.mean(axis=1, keepdims=True)) ** 2) / (20 * 3) * 1e200
        assert predstab.finn(x * 1e100, n_categories=30).value == pytest.approx(1 - ms_w / (899 / 12),
                                                                                rel=1e-12)
