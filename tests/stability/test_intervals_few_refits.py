"""Issue 34: intervals for the refits people can afford (3 to 20), items 1-3 and 5 (metric
per-object intervals).

Target: per-object coverage >= 0.93 at R = 3, 5, 10, 20 for refits of normal, gamma(2), t5,
lognormal(0.5), bimodal-mixture, skewed-mixture, beta(0.5, 0.5) and beta(2, 5) shape, in calls
of 5, 20 and 200 objects whose variances differ, with no interval wider than twice the
chi-square interval of the same object; one object alone >= 0.90. Assumption: the refits of the
objects of a call share one shape (location and scale free). Where the data cannot show the
tails (no object with 4 refits, or a kurtosis beyond what R refits resolve within that width)
the result says so in ``interval_note``. Coverage by simulation with fixed seeds; the numbers
of the full grid, with their Monte Carlo errors, are in docs/benchmarks/coverage.md.
"""

import math
import warnings

import numpy as np
import pytest
from scipy import optimize, stats

from predstab import phi


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def refits(shape, size, rng):
    """Standardised refit noise (mean 0, variance 1) of the shapes of issue 34."""
    if shape == "normal":
        return rng.normal(size=size)
    if shape == "gamma(2)":
        return (rng.gamma(2.0, size=size) - 2.0) / math.sqrt(2.0)
    if shape == "t5":
        return rng.standard_t(5, size=size) / math.sqrt(5 / 3)
    if shape == "lognormal(0.5)":
        v = (math.exp(0.25) - 1) * math.exp(0.25)
        return (rng.lognormal(0.0, 0.5, size=size) - math.exp(0.125)) / math.sqrt(v)
    if shape == "bimodal mixture":  # N(-1.5, 0.5^2) and N(1.5, 0.5^2), equal weights
        x = np.where(rng.random(size) < 0.5, rng.normal(-1.5, 0.5, size), rng.normal(1.5, 0.5, size))
        return x / math.sqrt(2.5)
    if shape == "skewed mixture":  # 0.9 N(0, 1) + 0.1 N(4, 1): skewness 1.2, excess kurtosis 1.8
        x = np.where(rng.random(size) < 0.1, rng.normal(4.0, 1.0, size), rng.normal(0.0, 1.0, size))
        return (x - 0.4) / math.sqrt(2.44)
    a, b = {"beta(0.5, 0.5)": (0.5, 0.5), "beta(2, 5)": (2.0, 5.0)}[shape]
    mean, var = a / (a + b), a * b / ((a + b) ** 2 * (a + b + 1))
    return (rng.beta(a, b, size) - mean) / math.sqrt(var)


SHAPES = ["normal", "gamma(2)", "t5", "lognormal(0.5)", "bimodal mixture", "skewed mixture",
          "beta(0.5, 0.5)", "beta(2, 5)"]
BASE = np.array([-1.0, 1.0]) * math.sqrt(0.5)  # D_e = 1: stability 1 - sigma^2


def chi_square_width(d_o_i, n_refits, level=0.95):
    """Width (in stability units, D_e = 1) of the normal-theory chi-square interval."""
    df = n_refits - 1
    a = 1 - level
    return d_o_i * df * (1 / stats.chi2.ppf(a / 2, df) - 1 / stats.chi2.ppf(1 - a / 2, df))


def low_factor(n_refits, kappa, level=0.95):
    """The lower end of the variance over s^2: Satterthwaite's df with the kurtosis used."""
    df = 2 / (2 / (n_refits - 1) + kappa / n_refits)
    return df / stats.chi2.ppf(0.5 + level / 2, df)


def min_df(n_refits, kappa, level=0.95):
    """The df at which ``df / chi2_{df, a/2}`` (the upper end of the variance over s^2) lies twice
    the chi-square interval's width above the lower end."""
    a, df = 1 - level, n_refits - 1
    width = df * (1 / stats.chi2.ppf(a / 2, df) - 1 / stats.chi2.ppf(1 - a / 2, df))
    low = low_factor(n_refits, kappa, level)
    return optimize.brentq(lambda v: v / stats.chi2.ppf(a / 2, v) - 2 * width - low, 0.1, df, xtol=1e-14)


def kurtosis_cap(n_refits, kappa):
    """Satterthwaite's kurtosis at :func:`min_df` over 1.3: the largest the upper end uses."""
    return n_refits * (2 / min_df(n_refits, kappa) - 2 / (n_refits - 1)) / 1.3


def used(res):
    """The kurtosis used: the pooled estimate plus two standard errors over the refits."""
    return max(res.refit_kurtosis + 2 * math.sqrt(24 / np.sum(res.per_object_count)), 0.0)


def coverage(shape, n_refits, n_objects, n_calls, seed, **kwargs):
    """Share of per-object intervals holding 1 - sigma_i^2, sigma_i^2 ~ U(0.05, 1), and every
    interval's width over its chi-square interval's; plus the last result."""
    rng = np.random.default_rng(seed)
    hits, ratios = [], []
    for _ in range(n_calls):
        sigma2 = rng.uniform(0.05, 1.0, size=n_objects)
        pred = 5.0 + refits(shape, (n_objects, n_refits), rng) * np.sqrt(sigma2)[:, None]
        res = _quiet(phi, pred, BASE, **kwargs)
        hits.append((res.per_object_low <= 1 - sigma2) & (1 - sigma2 <= res.per_object_high))
        ratios.append((res.per_object_high - res.per_object_low)
                      / chi_square_width(res.per_object_observed, n_refits))
    return float(np.mean(np.concatenate(hits))), np.concatenate(ratios), res


# ----------------------------------------------------------------- item 1: R = 5, 20 objects


@pytest.mark.parametrize("shape", ["normal", "gamma(2)", "t5", "lognormal(0.5)"])
def test_five_refits_in_calls_of_twenty_objects_cover(shape):
    # before: 0.889-0.932 (the pooled kurtosis of 100 refits understates heavy tails)
    cover, ratios, res = coverage(shape, 5, 20, 150, seed=341)
    assert res.interval_method == "pooled-kurtosis chi-square"
    assert cover >= 0.93, cover
    assert ratios.max() <= 2.0 + 1e-9, ratios.max()


# ----------------------------------------------------------------- item 2: no absurd widths


@pytest.mark.parametrize("n_refits", [3, 5, 10, 20])
def test_no_interval_is_wider_than_twice_the_chi_square_one(n_refits):
    # before: up to 1e11-1e86 stability units when the pooled kurtosis was large; now the kurtosis
    # is capped where the width reaches 2 x the chi-square interval's, and the result says so
    for shape in SHAPES:
        _, ratios, res = coverage(shape, n_refits, 200, 1, seed=342 + n_refits)
        assert ratios.max() <= 2.0 + 1e-9, (shape, ratios.max())
        if n_refits == 3:  # no object with 4 refits: no kurtosis estimate, heavy tails assumed
            assert res.interval_method == "assumed-kurtosis chi-square"
            assert "cannot be estimated" in res.interval_note and "excess kurtosis of 6" in res.interval_note
        else:  # the note says when the estimate is beyond the largest kurtosis the width allows
            capped = res.refit_kurtosis > kurtosis_cap(n_refits, used(res))
            assert ("more than so few refits can resolve" in res.interval_note) == capped, shape
            if shape == "lognormal(0.5)":
                assert capped
            if shape in ("normal", "beta(0.5, 0.5)", "bimodal mixture"):
                # nothing about the kurtosis (the shape check of item 4 may flag an object by chance)
                assert "kurtosis (" not in res.interval_note


def test_the_cap_is_where_the_upper_end_reaches_twice_the_chi_square_width():
    # 40 objects x 5 t3 refits: the pooled kurtosis is far above what 5 refits resolve
    rng = np.random.default_rng(343)
    pred = rng.standard_t(3, size=(40, 5)) * rng.uniform(0.5, 2.0, size=(40, 1))
    res = _quiet(phi, pred, BASE)
    d = res.per_object_observed
    kappa = res.refit_kurtosis + 2 * math.sqrt(24 / 200)  # the lower end: the kurtosis uncapped
    df_min = min_df(5, kappa)
    np.testing.assert_allclose(1 - res.per_object_low, df_min * d / stats.chi2.ppf(0.025, df_min), rtol=1e-9)
    np.testing.assert_allclose(1 - res.per_object_high, low_factor(5, kappa) * d, rtol=1e-10)
    assert f"use at most {kurtosis_cap(5, kappa):.2f}" in res.interval_note


@pytest.mark.slow
@pytest.mark.parametrize("n_refits", [3, 5, 10, 20])
def test_every_shape_covers_in_calls_of_twenty_objects(n_refits):
    for shape in SHAPES:
        cover, ratios, _ = coverage(shape, n_refits, 20, 100, seed=344 + n_refits)
        assert cover >= 0.93, (shape, cover)
        assert np.median(ratios) <= 2.0 + 1e-9 and ratios.max() <= 2.0 + 1e-9, shape


# ----------------------------------------------------------------- item 3: one object alone


@pytest.mark.parametrize("shape, n_refits, calls", [("skewed mixture", 20, 1500), ("gamma(2)", 5, 800),
                                                    ("lognormal(0.5)", 5, 800), ("skewed mixture", 5, 800)])
def test_one_object_alone_covers(shape, n_refits, calls):
    # before (Bonett's interval, or the chi-square below 6 refits): 0.894 / 0.888 / 0.874 / 0.873
    cover, ratios, res = coverage(shape, n_refits, 1, calls, seed=345)
    assert cover >= 0.90 + 2 * math.sqrt(0.09 / calls), cover  # 0.90 with two Monte Carlo errors to spare
    assert res.interval_target == "object" and res.interval_method == "pooled-kurtosis chi-square"
    assert ratios.max() <= 2.0 + 1e-9


# ----------------------------------------------------------------- item 5: the label


def test_bonett_below_six_refits_is_named_chi_square():
    rng = np.random.default_rng(346)
    base = np.array([0.0, 1.0, 3.0, 6.0])
    for n_refits in (3, 5):
        row = rng.gamma(2.0, size=(1, n_refits))
        res = phi(row, base, object_interval="bonett")
        chi = phi(row, base, object_interval="chi2")
        assert res.confidence_interval == chi.confidence_interval  # what was computed ...
        assert res.interval_method == "chi-square"  # ... is what the label says
        assert "needs 6 refits" in res.interval_note
    mixed = rng.gamma(2.0, size=(4, 8))
    mixed[:2, 5:] = np.nan  # two objects of 5 refits, two of 8
    res = _quiet(phi, mixed, base, object_interval="bonett")
    assert res.interval_method == "Bonett (chi-square below 6 refits)"
    assert res.interval_note.startswith("2 object(s) with fewer than 6 refits")


def test_thirty_objects_of_three_refits_under_auto_name_the_assumed_kurtosis():
    rng = np.random.default_rng(347)
    pred = rng.normal(size=(30, 3)) * rng.uniform(0.3, 1.0, size=(30, 1))
    res = phi(pred, BASE)
    assert res.interval_method == "assumed-kurtosis chi-square" and math.isnan(res.refit_kurtosis)
    d = res.per_object_observed
    # Satterthwaite with an excess kurtosis of 6 (lower end of the variance)
    df_min = min_df(3, 6.0)
    np.testing.assert_allclose(1 - res.per_object_high, low_factor(3, 6.0) * d, rtol=1e-10)
    np.testing.assert_allclose(1 - res.per_object_low, df_min * d / stats.chi2.ppf(0.025, df_min), rtol=1e-9)
