"""tune_num_learners' closed-form method: its columns are the pool's closed forms with their
bands over the learners, the recommendation's interval resamples test objects and learners
together (pivoted resampled pools, checked against copied pools), and ``precision`` grows the
pool as the square of the band ratio.
"""

import warnings

import numpy as np
import pytest

import predstab.ensembles._recommendation_interval as interval_module
import predstab.ensembles._tune_strategies as strategies
import predstab.ensembles._tune_table as table_module
from predstab import (
    PredstabWarning,
    TreePool,
    fit_2pl,
    selection_stability,
    tune_num_learners,
)
from predstab._core._utils import check_rng
from tests.ensembles._forests import oob_mean
from tests.ensembles._tuning import (
    CLF,
    EST,
    ESTIMATOR_TEXT,
    GRID,
    GRID32,
    XC,
    XTE,
    XTE20,
    XTR,
    XTR50,
    YC,
    YTR,
    YTR50,
    _assert_fits_and_recommendations,
    _group_predictions,
    _groups,
    _optrf_recommendations,
    _quiet50,
    _tune,
    order_interval,
)

# the independent computations measure few forests (PredstabDataWarning: fewer than 5)
pytestmark = pytest.mark.filterwarnings("ignore::predstab.PredstabDataWarning")


def test_closed_form_is_the_pools_closed_form_and_recommendation_is_optRFs():
    res = _quiet50(method="closed_form", measures=("icc", "phi", "psi"), pool_size=64)
    pool = TreePool(EST, n_learners=64, random_state=0).fit(XTR50, YTR50, XTE20)
    # psi's fixed baseline: the out-of-bag predictions of the first max(grid) = 32 trees of the pool
    trees = list(zip(pool.ensemble_.estimators_[:32], pool.ensemble_.estimators_samples_[:32], strict=True))
    baseline = oob_mean(trees, XTR50)
    np.testing.assert_allclose(res.table["icc"], pool.closed_form(GRID32).curve, rtol=1e-12)
    np.testing.assert_allclose(res.table["psi"], pool.closed_form(GRID32, measure="psi",
                                                                  baseline=baseline).curve,
                               rtol=1e-12)
    fit = fit_2pl(GRID32, res.table["icc"])
    assert res.fits["icc"].p1 == fit.p1 and res.recommendation == fit.recommend()
    assert res.n_for_target == fit.num_learners_for(0.95)
    assert res.summary.loc["icc", "recommended"] == res.recommendation
    assert res.recommendations["icc"].unrounded == fit.recommend(round_to="none", minimum=0)
    assert "one forest of 32 learners" in res.psi_baseline


# ------------------------------------------------------------------------------------ closed form
def test_closed_form_columns_bands_and_learner_interval():
    res = _tune(method="closed_form", pool_size=24, measures=("icc", "phi", "psi"), n_resamples=10,
                interval="learners")
    pool = TreePool(EST, n_learners=24, random_state=0).fit(XTR, YTR, XTE)
    baseline = oob_mean(_groups(pool, 8, 1)[0], XTR)
    for m in ("icc", "phi", "psi"):
        bands = pool.closed_form(GRID, measure=m, baseline=baseline if m == "psi" else None,
                                       n_resamples=10)
        np.testing.assert_allclose(res.table[m], bands.curve, rtol=1e-10)
        np.testing.assert_allclose(res.table[f"{m}_low"], bands.low, rtol=1e-10)
        np.testing.assert_allclose(res.table[f"{m}_high"], bands.high, rtol=1e-10)
    errors = pool.closed_form(GRID, n_resamples=10).errors
    rounded, raw = _optrf_recommendations(np.minimum(res.table["icc"].to_numpy() + errors, 1.0))
    assert tuple(res.confidence_interval) == order_interval(rounded, 0.95)
    assert tuple(res.unrounded_interval) == order_interval(raw, 0.95)
    _assert_fits_and_recommendations(res, ("icc", "phi", "psi"))
    assert res.table["n_forests"].tolist() == [0, 0, 0]
    assert res.settings["interval"] == "learners" and res.settings["measures"] == ["icc", "phi", "psi"]
    assert res.interval_covers == ("the pool's learners resampled: only the error from the pool's finite "
                                   "number "
                                   "of learners, not the sampling of the test objects "
                                   "(interval=\"learners\")")


def test_closed_form_without_bootstrap_has_no_bands():
    res = _tune(method="closed_form", pool_size=24, measures=("icc", "phi"))
    assert list(res.table.columns) == ["n_learners", "icc", "phi", "degenerate", "seconds", "n_forests"]
    assert res.bands == {} and "bootstrap bands" not in str(res)


def test_closed_form_result_prints_its_method_and_its_bands_resamples():
    res = _tune(method="closed_form", pool_size=6, measures=("psi",))
    lines = str(res).splitlines()
    assert " closed form; scale metric" in lines and " Estimator: " + ESTIMATOR_TEXT in lines
    assert lines[0] == " Stability against the number of learners (method closed_form; a pool of 6 learners)"
    res = _tune(method="closed_form", pool_size=24, measures=("icc",), n_resamples=10)
    assert res.interval_covers.startswith("test objects and the pool's learners resampled together")
    assert (" 95% bootstrap bands (learners only: these test objects and this training set, "
        "variation from the learners):") in str(res).splitlines()  # the bands' own


def test_closed_form_learner_interval_says_it_covers_only_the_pools_learners():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PredstabWarning)
        res = tune_num_learners(EST, XTR50, YTR50, XTE20, grid=GRID32, measures=("icc",),
                                method="closed_form",
                                pool_size=64, n_resamples=20, random_state=0, interval="learners")
    low, high = res.confidence_interval
    assert low % 1000 == 0 and high % 1000 == 0  # resampled recommendations, not interpolations
    assert "pool's learners resampled" in res.interval_covers
    assert "not the sampling of the test objects" in str(res)
    pool = TreePool(EST, n_learners=64, random_state=0).fit(XTR50, YTR50, XTE20)
    band = pool.closed_form(GRID32, n_resamples=20)
    band_low, band_high = band.low, band.high
    np.testing.assert_allclose(res.table["icc_low"], band_low, rtol=1e-12)
    first = f"{band_low[0]:.4f} to {band_high[0]:.4f}"
    assert "95% bootstrap bands" in str(res) and first in str(res)


# ----------------------------------------------------------------------------------------- issue 15.3
def _hand_icc(preds, n, *, plug_in=False):
    """ICC(1) of forests of ``n`` learners in closed form, written out: b / (b + mean var / n),
    b the between-object variance of the learners' means less their noise mean(var) / learners."""
    mu, var = preds.mean(axis=1), preds.var(axis=1, ddof=1)
    noise = 0.0 if plug_in else np.mean(var / preds.shape[1])
    b = max(np.var(mu, ddof=1) - noise, 0.0)
    return b / (b + np.mean(var) / np.asarray(n, dtype=float))


def _interval_of(curves, round_to):
    rounded, raw = [], []
    for curve in curves:
        fit = fit_2pl(GRID32, curve)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PredstabWarning)
            rec = fit.recommend(round_to=round_to)
        if rec is not None:
            rounded.append(rec)
            raw.append(fit.recommend(round_to="none", minimum=0))
    return order_interval(rounded, 0.95), order_interval(raw, 0.95)


def test_closed_form_interval_resamples_test_objects_and_learners_by_default():
    kwargs = dict(grid=GRID32, measures=("icc",), method="closed_form", pool_size=64, n_resamples=20,
                  random_state=0, round_to="ten")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PredstabWarning)
        both = tune_num_learners(EST, XTR50, YTR50, XTE20, **kwargs)
        learners = tune_num_learners(EST, XTR50, YTR50, XTE20, interval="learners", **kwargs)
    # the same pool, then the draws from the generator after it: all rows, then all learners
    rng = check_rng(0)
    pool = TreePool(EST, n_learners=64, random_state=rng).fit(XTR50, YTR50, XTE20, oob=False)
    rows = rng.integers(0, len(XTE20), (20, len(XTE20)))
    cols = rng.integers(0, 64, (20, 64))
    preds = pool.test_predictions_.astype(float)
    curve = _hand_icc(preds, GRID32)
    np.testing.assert_allclose(both.table["icc"], curve, rtol=1e-10)
    truth = _hand_icc(preds, GRID32, plug_in=True)  # the bootstrap world's exact value: pivot on it
    curves = [_odds_pivot(curve, _hand_icc(preds[r][:, c], GRID32), truth)
              for r, c in zip(rows, cols, strict=True)]
    rounded, raw = _interval_of(curves, "ten")
    assert tuple(both.confidence_interval) == rounded
    assert tuple(both.unrounded_interval) == raw
    # the learner-only interval: the bands' resampled curves, curve + errors
    errors = pool.closed_form(GRID32, n_resamples=20).errors
    l_rounded, l_raw = _interval_of(np.minimum(curve + errors, 1.0), "ten")
    assert tuple(learners.confidence_interval) == l_rounded
    assert tuple(learners.unrounded_interval) == l_raw
    low, high = both.confidence_interval
    assert high - low >= l_rounded[1] - l_rounded[0] > 0
    assert both.unrounded_interval.high - both.unrounded_interval.low >= l_raw[1] - l_raw[0]
    # bands are the learners' under either option; the interval says what it covers
    np.testing.assert_allclose(both.table["icc_low"], learners.table["icc_low"], rtol=0)
    assert both.interval_covers.startswith("test objects and the pool's learners resampled together")
    assert learners.interval_covers.startswith("the pool's learners resampled: only")
    assert both.settings["interval"] == "learners+objects" and learners.settings["interval"] == "learners"
    text = str(both)
    assert f"{low:g} to {high:g} learners, width {high - low:g}" in text
    assert 'interval="learners+objects"' in text
    assert ("95% bootstrap bands (learners only: these test objects and this training set, "
        "variation from the learners)") in text
    assert 'interval="learners"' in str(learners)


def test_closed_form_interval_resamples_objects_and_learners():
    res = _tune(method="closed_form", pool_size=24, measures=("icc",), n_resamples=10, round_to="ten",
                rec_thresh=1e-4)
    rng = check_rng(0)
    pool = TreePool(EST, n_learners=24, random_state=rng).fit(XTR, YTR, XTE, oob=False)
    rows = rng.integers(0, len(XTE), (10, len(XTE)))
    cols = rng.integers(0, 24, (10, 24))
    preds = pool.test_predictions_.astype(float)
    curve = _hand_icc(preds, GRID)
    np.testing.assert_allclose(res.table["icc"], curve, rtol=1e-10)
    truth = _hand_icc(preds, GRID, plug_in=True)
    resampled = [_odds_pivot(curve, _hand_icc(preds[r][:, c], GRID), truth)
                 for r, c in zip(rows, cols, strict=True)]
    rounded, raw = _optrf_recommendations(resampled, rec_thresh=1e-4, round_to="ten")
    assert len(rounded) >= 5
    assert tuple(res.confidence_interval) == order_interval(rounded, 0.95)
    assert tuple(res.unrounded_interval) == order_interval(raw, 0.95)
    _assert_fits_and_recommendations(res, ("icc",), rec_thresh=1e-4, round_to="ten")
    assert res.interval_covers.startswith("test objects and the pool's learners resampled together")
    assert res.settings["interval"] == "learners+objects"


# ------------------------------------------------------------- the closed form's objects+learners resamples
def _root_pivot(curve, resampled, truth):
    """Classes: the error moved on sqrt(1 - S) (S rounded above 1 read as 1), capped at 1."""
    def root(s):
        return np.sqrt(max(1 - s, 0.0))

    moved = [root(c) - (root(r) - root(t)) for c, r, t in zip(curve, resampled, truth, strict=True)]
    return np.array([1 - max(v, 0.0) ** 2 for v in moved])


def _odds_pivot(curve, resampled, truth):
    """The error moved on the logit scale: the odds S / (1 - S) of the curve times those of the
    bootstrap world's truth over those of the resample; additive (capped at 1) where one of the
    three is outside (0, 1)."""
    out = []
    for c, r, t in zip(curve, resampled, truth, strict=True):
        if all(0 < v < 1 for v in (c, r, t)):
            odds = c / (1 - c) * t / (1 - t) * (1 - r) / r
            out.append(odds / (1 + odds))
        else:
            out.append(min(c - (r - t), 1.0))
    return np.array(out)


def _expected_learner_object_curves(pool, measure, baseline, curve, n_resamples, seed):
    """Each resample: the pool's per-learner predictions at drawn rows and columns (rows first, then
    columns), its closed form against the bootstrap world's exact value, moved onto ``curve`` on the
    logit scale."""
    from predstab.ensembles._closed_form import _orderings, closed_form_stats, curve_from_stats

    rng = np.random.default_rng(seed)
    preds = pool.test_predictions_
    mask = pool.oob_ if pool.on_train_ else None
    rows = rng.integers(0, preds.shape[0], (n_resamples, preds.shape[0]))
    cols = rng.integers(0, preds.shape[1], (n_resamples, preds.shape[1]))
    d_e = pool._closed_form_expected(measure, baseline, pool.voting_)
    n = np.asarray(GRID, dtype=float)
    kw = {"classifier": pool.is_classifier_, "voting": pool.voting_}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        stats = closed_form_stats(preds, mask, n, rng=rng, population=True, **kw)
        truth = curve_from_stats(stats, n, measure, d_e)
        n_perm = max(5, _orderings(preds.shape[0]) // 8) if pool.is_classifier_ else None
        out = []
        for r, c in zip(rows, cols, strict=True):
            stats = closed_form_stats(preds[r][:, c], None if mask is None else mask[r][:, c], n, rng=rng,
                                      n_perm=n_perm, **kw)
            pivot = _root_pivot if pool.is_classifier_ else _odds_pivot  # classes: issue 34, item 10
            out.append(pivot(curve, curve_from_stats(stats, n, measure, d_e), truth))
    return np.array(out)


def _spec(y, baseline=None, scale="metric"):
    """What the learners+objects curves read of a run: psi's fixed baseline."""
    return table_module._Forests(values={}, baseline=baseline)


@pytest.mark.parametrize("case", ["metric psi", "metric icc out of bag", "classes fleiss", "classes phi"])
def test_learner_object_curves_are_pivoted_resampled_pools(case):
    if case.startswith("metric"):
        on_train = "out of bag" in case
        pool = TreePool(EST, n_learners=12, random_state=0).fit(XTR, YTR, None if on_train else XTE)
        y = YTR
    else:
        pool = TreePool(CLF, n_learners=12, voting="hard", random_state=0).fit(XC[:30], YC[:30], XC[30:])
        y = YC[:30]
    measure = case.split()[1]
    baseline = pool.forests(8, n_forests=1, on="oob")[:, 0] if measure == "psi" else None
    curve = np.array([0.5, 0.7, 0.9])
    got = interval_module._learner_object_curves(pool, GRID, measure, _spec(y, baseline), curve, 3,
                                             np.random.default_rng(1))
    expected = _expected_learner_object_curves(pool, measure, baseline, curve, 3, 1)
    # test objects: float32 products of the deviations with the learner counts (issue 37, item 6;
    # 3e-8 measured), as the bands' resampling sums; out of bag and classes: float64
    np.testing.assert_allclose(got, expected, rtol=1e-7 if case == "metric psi" else 1e-10)
    assert np.ptp(expected, axis=0).max() > 1e-3  # the resamples differ


def test_learner_object_curves_of_three_classes_use_random_orderings():
    # more than two classes: the class closed form draws random orderings of the pool (a fixed
    # number per resample, an eighth of the default, at least 5), from the same generator
    levels = np.array(["lo", "mid", "hi"], dtype=object)
    y3 = levels[np.digitize(YTR, np.quantile(YTR, [1 / 3, 2 / 3]))]
    pool = TreePool(CLF, n_learners=12, voting="hard", random_state=0).fit(XTR, y3, XTE)
    assert len(set(pool.forests(1, n_forests=12).ravel().tolist())) == 3
    curve = np.array([0.5, 0.7, 0.9])
    got = interval_module._learner_object_curves(pool, GRID, "fleiss", _spec(y3), curve, 3,
                                             np.random.default_rng(2))
    np.testing.assert_allclose(got, _expected_learner_object_curves(pool, "fleiss", None, curve, 3, 2),
                               rtol=1e-10)


def test_resampled_metric_stats_equal_the_copied_pools():
    from predstab.ensembles._closed_form import closed_form_stats
    from predstab.ensembles._recommendation_interval import _learner_object_draws, _resampled_metric_stats

    preds = np.random.default_rng(3).normal(5.0, 2.0, (9000, 12))  # several blocks of objects
    rows, cols = _learner_object_draws(np.random.default_rng(4), 3, 9000, 12)
    n = np.array([2.0, 7.0])
    fast = _resampled_metric_stats(preds, rows, cols, n)
    for b in range(3):
        copied = closed_form_stats(preds[rows[b]][:, cols[b]], None, n, classifier=False, voting="soft",
                                   rng=None)
        for key in ("d_o", "b", "w"):  # float32 products of the deviations (1e-9 measured)
            np.testing.assert_allclose(fast[b][key], copied[key], rtol=1e-8)


def test_metric_resample_statistics_without_copies_equal_the_copied_pools():
    from predstab.ensembles._closed_form import closed_form_stats

    preds = np.random.default_rng(3).normal(5.0, 2.0, (4100, 5))  # several blocks of objects
    rows = np.random.default_rng(4).integers(0, 4100, (2, 4100))
    cols = np.array([[0, 0, 1, 3, 4], [2, 2, 2, 1, 0]])
    n = np.array([2.0, 7.0])
    fast = interval_module._resampled_metric_stats(preds, rows, cols, n)
    for b in range(2):
        copied = closed_form_stats(preds[rows[b]][:, cols[b]], None, n, classifier=False, voting="soft",
                                   rng=None)
        assert set(fast[b]) == {"d_o", "b", "w"}
        for key in ("d_o", "b", "w"):  # float32 products of the deviations (3e-10 measured)
            np.testing.assert_allclose(fast[b][key], copied[key], rtol=1e-8)
    # one learner drawn 5 times: no spread within objects, all between them
    same = interval_module._resampled_metric_stats(preds[:50], rows[:, :50] % 50, np.zeros((2, 5),
                                                                                           dtype=int), n)
    copied = closed_form_stats(preds[:50][rows[0, :50] % 50][:, [0] * 5], None, n, classifier=False,
                               voting="soft", rng=None)
    # float32 products: 0 up to the rounding of the squared deviations (9e-8 of a variance of 4)
    assert same[0]["w"] == pytest.approx(0.0, abs=1e-6)
    assert same[0]["b"] == pytest.approx(copied["b"], rel=1e-7)  # 2e-8 measured


def test_closed_form_with_a_pool_measure_too_few_forests_is_nan_with_a_note():
    res = _tune(method="closed_form", pool_size=12, measures=("icc", "selection"))
    pool = TreePool(EST, n_learners=12, random_state=0).fit(XTR, YTR, XTE, oob=False)
    np.testing.assert_allclose(res.table["icc"], pool.closed_form(GRID).curve, rtol=1e-10)
    for gi, n in enumerate((2, 4)):
        expected = selection_stability(_group_predictions(pool, n, 3, XTE), fraction=0.15).value
        assert res.table.loc[gi, "selection"] == pytest.approx(expected, rel=1e-10)
    assert np.isnan(res.table.loc[2, "selection"])
    assert res.table["n_forests"].tolist() == [3, 3, 1]
    assert res.notes == ("selection could not be computed at n = 8 (NaN there): fewer than 2 disjoint "
                         "forests "
                         "in the pool of 12 learners; increase `pool_size`",)
    assert res.fits["selection"].converged is False
    assert res.fits["selection"].message == "fewer than 3 usable grid points (2 of 3)"
    assert res.fits["selection"].n.tolist() == [2.0, 4.0, 8.0]
    assert res.fits["selection"].suggested_max == 32
    rec = res.recommendations["selection"]
    assert res.table["selection"].iloc[:2].min() >= 0.95  # flat from 2 learners on: already stable
    assert (rec.value, rec.rule, rec.n_for_target, rec.unrounded) == (2, "already stable", 2, None)
    assert rec.note == ("already stable: selection >= 0.95 at every grid value from 2 learners on (the "
                        "2PL fit "
                        "failed on a flat curve); no larger grid is needed")


def test_a_failing_closed_form_is_nan_everywhere_with_its_reason(monkeypatch):
    real = TreePool.closed_form

    def failing(self, n, *, measure="icc", **kwargs):
        if measure == "phi":
            raise ValueError("phi\n   cannot be   computed")
        return real(self, n, measure=measure, **kwargs)

    monkeypatch.setattr(TreePool, "closed_form", failing)
    res = _tune(method="closed_form", pool_size=24, measures=("icc", "phi"), n_resamples=5)
    assert res.table["phi"].isna().all() and res.table["phi_low"].isna().all()
    assert res.table["icc_low"].notna().all()
    assert res.notes == ("phi could not be computed at n = 2, 4, 8 (NaN there): ValueError: phi cannot be "
                         "computed",)
    res = _tune(method="closed_form", pool_size=24, measures=("icc", "phi"), n_resamples=0)
    assert "phi_low" not in res.table and res.table["phi"].isna().all()


def test_class_closed_form_beyond_half_the_pool_does_not_warn_from_tune():
    # TreePool warns that such a curve is extrapolated; tune_num_learners reports only its fit problems
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = tune_num_learners(CLF, XC[:30], YC[:30], XC[30:], grid=(2, 3, 8), n_repeats=3,
                                measures=("fleiss",), method="closed_form", pool_size=8, n_resamples=0,
                                random_state=0)
    assert not [w for w in caught if "extrapolated" in str(w.message)]
    pool = TreePool(CLF, n_learners=8, voting="hard", random_state=0)
    pool.fit(XC[:30], YC[:30], XC[30:], oob=False)
    with pytest.warns(PredstabWarning, match="is extrapolated"):  # the pool's own call warns
        expected = pool.closed_form((2, 3, 8), measure="fleiss").curve
    np.testing.assert_allclose(res.table["fleiss"], expected, rtol=1e-10)


@pytest.mark.slow
def test_closed_form_precision_grows_the_pool():
    def widest_band(**kwargs):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PredstabWarning)
            res = tune_num_learners(EST, XTR50, YTR50, XTE20, grid=GRID32, measures=("icc", "phi"),
                                    method="closed_form", pool_size=100, random_state=0, **kwargs)
        return res, max(((band["high"] - band["low"]) / 2).max() for band in res.bands.values())

    res, widest = widest_band(precision=0.01)
    _, widest_base = widest_band()
    assert widest_base > 0.01 and res.pool_size > 100
    # the 1 / sqrt(pool) law: the pool grew by about (widest_base / 0.01)^2, and the bands
    # (a fresh bootstrap of the final pool) are about as narrow as asked
    assert res.pool_size >= (widest_base / 0.01) ** 2 * 100
    assert widest <= 0.01 * 1.15
    assert f"pool of {res.pool_size} learners" in str(res)


def test_precision_grows_the_pool_as_the_square_of_the_band_ratio():
    def widest(pool, measures, baseline=None):
        return max(float(np.nanmax((b.high - b.low) / 2)) for b in (
            pool.closed_form(GRID, measure=m, baseline=baseline, n_resamples=100) for m in measures))

    pool = TreePool(EST, n_learners=24, random_state=check_rng(0)).fit(XTR, YTR, XTE)
    baseline = oob_mean(_groups(pool, 8, 1)[0], XTR)
    first = widest(pool, ("psi",), baseline)
    precision = round(first / 1.5, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PredstabWarning)
        res = tune_num_learners(EST, XTR, YTR, XTE, grid=GRID, measures=("psi",), method="closed_form",
                                pool_size=24, precision=precision, n_resamples=0, random_state=0)
    # the documented rule: 10% more than (widest / precision)^2 times the pool, checked again, at most 3 times
    size, band = 24, first
    for _ in range(3):
        if band <= precision:
            break
        needed = int(np.ceil(1.1 * size * (band / precision) ** 2))
        pool.extend(max(needed - size, 2))
        size = pool.test_predictions_.shape[1]
        band = widest(pool, ("psi",), baseline)
    assert size > 24 and res.pool_size == size
    np.testing.assert_allclose(res.table["psi"], pool.closed_form(GRID, measure="psi",
                                                                  baseline=baseline).curve,
                               rtol=1e-10)


def test_precision_reached_keeps_the_pool_and_out_of_reach_warns(monkeypatch):
    with warnings.catch_warnings():
        warnings.simplefilter("error", PredstabWarning)
        res = tune_num_learners(EST, XTR, YTR, XTE, grid=GRID, measures=("icc",), method="closed_form",
                                pool_size=24, precision=0.9, n_resamples=0, random_state=0)
    assert res.pool_size == 24
    monkeypatch.setattr(strategies, "MAX_POOL", 40)
    with pytest.warns(PredstabWarning) as caught:
        res = tune_num_learners(EST, XTR, YTR, XTE, grid=GRID, measures=("icc", "phi"), method="closed_form",
                                pool_size=24, precision=0.001, n_resamples=0, random_state=0)
    pool = TreePool(EST, n_learners=24, random_state=check_rng(0)).fit(XTR, YTR, XTE, oob=False)
    pool.extend(16)  # to the largest pool allowed, once
    widest = max(float(np.nanmax((b.high - b.low) / 2))
                 for b in (pool.closed_form(GRID, measure=m, n_resamples=100) for m in ("icc", "phi")))
    assert res.pool_size == 40
    assert str(caught[0].message) == (f"`precision`=0.001 not reached: the 95% bands of a pool of 40 "
                                      f"learners "
                                      f"reach +-{widest:.3f} (at most 40 learners, three enlargements).")
    np.testing.assert_allclose(res.table["icc"], pool.closed_form(GRID).curve, rtol=1e-10)


def test_closed_form_precision_out_of_reach_warns(monkeypatch):
    import predstab.ensembles._tune_strategies as strategies

    monkeypatch.setattr(strategies, "MAX_POOL", 150)
    with pytest.warns(PredstabWarning, match=r"`precision`=0.001 not reached.*pool of 150 learners"):
        res = tune_num_learners(EST, XTR50, YTR50, XTE20, grid=GRID32, measures=("icc",),
                                method="closed_form",
                                pool_size=100, precision=0.001, n_resamples=0, random_state=0)
    assert res.pool_size == 150


@pytest.mark.parametrize("classes", [False, True])
def test_bands_of_a_given_pool_follow_random_state(classes):
    """Issue 34, item 9: the closed-form bands of a pool given without a seed (the tutorials'
    ``from_members(...)``) come from ``tune_num_learners(random_state=...)``: the same seed gives
    identical bands (and the resampled errors behind the interval), other seeds other bands.
    Before, they resampled with the pool's own unseeded generator and differed call to call."""
    rng = np.random.default_rng(3)
    if classes:  # hard votes of 4 classes: the closed form's random orderings and the resampling
        shares = rng.dirichlet(np.ones(4), size=25)
        votes = np.stack([rng.choice(4, size=40, p=p) for p in shares])
        members, grid, measures = votes, (1, 2, 3, 5), ("fleiss",)
    else:
        members = rng.normal(size=(40, 1)) + 0.5 * rng.normal(size=(40, 30))
        grid, measures = (1, 2, 3, 5), ("icc", "phi")
    y = rng.normal(size=60)

    def bands(seed):
        pool = TreePool.from_predictions(members, classes=[0, 1, 2, 3] if classes else None,
                                         y=None if classes else y)  # no random_state
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = tune_num_learners(pool, method="closed_form", grid=grid, measures=measures,
                                    n_resamples=40, random_state=seed)
        cols = [f"{m}_{side}" for m in measures for side in ("low", "high")]
        return res.table[cols].to_numpy(), res.unrounded_interval

    first, again, other = bands(0), bands(0), bands(5)
    np.testing.assert_array_equal(first[0], again[0])
    assert np.array_equal(np.asarray(first[1]), np.asarray(again[1]), equal_nan=True)
    assert not np.array_equal(first[0], other[0])


def test_default_pool_grows_until_the_recommendation_is_precise(monkeypatch):
    """Issue 37, item 5: the default closed-form pool is 1,000 learners, grown by
    1.1 x pool x (spread / goal)^2 while the learners-only SD of the unrounded recommendation over
    100 resampled pools (over its median) exceeds the goal -- the spread computed here from a pool
    of the same seed. Before, the default was n_repeats x max(grid) whatever the result needed."""
    grid = (8, 16, 32, 64)

    def tune():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return tune_num_learners(EST, XTR50, YTR50, XTE20, method="closed_form", grid=grid, n_repeats=40,
                                     measures=("icc",), n_resamples=0, random_state=3)

    pool = TreePool(EST, n_learners=1000, random_state=check_rng(3)).fit(XTR50, YTR50, XTE20, oob=False)
    res = pool.closed_form(grid, measure="icc", n_resamples=strategies.REC_RESAMPLES)
    recs = []
    for curve in np.minimum(res.curve + res.errors, 1.0):
        fit = fit_2pl(np.asarray(grid, dtype=float), curve)
        recs.append(fit.recommend(round_to="none", minimum=0))
    spread = np.std(recs, ddof=1) / np.median(recs)
    assert 0.005 < spread < 0.5
    monkeypatch.setattr(strategies, "REC_PRECISION", 2 * spread)  # precise enough: no growth
    kept = tune()
    assert kept.pool_size == 1000  # not n_repeats x max(grid) = 2,560
    assert kept.settings["pool_size"].startswith("1,000 learners")
    monkeypatch.setattr(strategies, "REC_PRECISION", spread / 1.2)
    monkeypatch.setattr(strategies, "MAX_POOL", 1_000_000)
    grown = tune()
    assert grown.pool_size == int(np.ceil(1.1 * 1000 * 1.2**2))
    assert "from 1000" in grown.settings["pool_size"]
    assert "grown for a precise recommendation" in str(grown)


def test_default_pool_of_a_psi_primary_is_checked_against_psis_baseline(monkeypatch):
    """The default pool's precision check (``recommendation_spread``) reads the primary's closed form
    with the primary's own baseline: psi's fixed one, the out-of-bag predictions of the first
    max(grid) = 64 learners of the pool (the same seed's pool, rebuilt here); the spread it finds is
    the one computed here from that pool and baseline (as the icc test above)."""
    grid = (8, 16, 32, 64)
    spreads = []
    spread_of = strategies.recommendation_spread
    monkeypatch.setattr(strategies, "recommendation_spread",
                        lambda *args: spreads.append(spread_of(*args)) or spreads[-1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = tune_num_learners(EST, XTR50, YTR50, XTE20, method="closed_form", grid=grid, n_repeats=40,
                                measures=("psi",), n_resamples=0, random_state=3)
    pool = TreePool(EST, n_learners=1000, random_state=check_rng(3)).fit(XTR50, YTR50, XTE20)
    trees = list(zip(pool.ensemble_.estimators_[:64], pool.ensemble_.estimators_samples_[:64], strict=True))
    baseline = oob_mean(trees, XTR50)
    curve = pool.closed_form(grid, measure="psi", baseline=baseline).curve
    np.testing.assert_allclose(res.table["psi"], curve, rtol=1e-12)
    assert res.recommendation == fit_2pl(np.asarray(grid, dtype=float), curve).recommend()
    bands = pool.closed_form(grid, measure="psi", baseline=baseline, n_resamples=strategies.REC_RESAMPLES)
    recs = [fit_2pl(np.asarray(grid, dtype=float), c).recommend(round_to="none", minimum=0)
            for c in np.minimum(bands.curve + bands.errors, 1.0)]
    spread = np.std(recs, ddof=1) / np.median(recs)
    assert spreads == [pytest.approx(spread, rel=1e-12)] and spread <= strategies.REC_PRECISION
    assert res.pool_size == 1000  # precise enough: not grown


def test_closed_form_tuning_is_bit_identical_for_every_n_jobs():
    """Issue 37, item 6: threads over blocks of test objects (the bands' pass, the learners+objects
    resamples) add the blocks' sums in block order: the same table (ICC, phi and psi with their
    bands; phi's and psi's baselines from the out-of-bag rows), recommendation and interval for
    n_jobs 1, 2 and -1, with test objects in several blocks of the resampled statistics (524 objects each)."""
    from joblib import effective_n_jobs
    from sklearn.datasets import make_friedman1
    from sklearn.ensemble import RandomForestRegressor
    from threadpoolctl import threadpool_limits

    X, y = make_friedman1(5060, 6, noise=1.0, random_state=4)
    runs = []
    for n_jobs in (1, 2, -1):  # and the machine's BLAS threads (OpenBLAS's float32 products depend on them)
        with warnings.catch_warnings(), threadpool_limits(effective_n_jobs(n_jobs)):
            warnings.simplefilter("ignore")
            runs.append(tune_num_learners(RandomForestRegressor(max_features=2, max_depth=6), X[:60], y[:60],
                                          X[60:], method="closed_form", grid=(2, 4, 8, 16),
                                          pool_size=1000, n_resamples=100, random_state=5, n_jobs=n_jobs))
    one = runs[0]
    cols = [c for c in one.table.select_dtypes("number").columns if c != "seconds"]
    assert {"icc_low", "phi_low", "psi_high"} <= set(cols)
    assert np.isfinite(one.unrounded_interval.low)
    for other in runs[1:]:
        np.testing.assert_array_equal(one.table[cols].to_numpy(float), other.table[cols].to_numpy(float))
        assert np.array_equal(np.asarray(one.unrounded_interval), np.asarray(other.unrounded_interval),
                              equal_nan=True)
        assert one.recommendation == other.recommendation
        assert tuple(one.confidence_interval) == tuple(other.confidence_interval)


def test_resampled_metric_stats_threads_add_blocks_in_order():
    from predstab.ensembles._recommendation_interval import _learner_object_draws, _resampled_metric_stats

    preds = np.random.default_rng(2).gamma(2.0, size=(9000, 12))
    rows, cols = _learner_object_draws(np.random.default_rng(3), 6, 9000, 12)
    n = np.array([1.0, 4.0])
    one = _resampled_metric_stats(preds, rows, cols, n)
    two = _resampled_metric_stats(preds, rows, cols, n, n_jobs=2)
    for a, b in zip(one, two, strict=True):
        assert a["b"] == b["b"] and a["w"] == b["w"]
        np.testing.assert_array_equal(a["d_o"], b["d_o"])


def test_bands_of_a_given_pool_are_the_pools_own_with_the_derived_seed():
    """The seed behind a given pool's bands, written out: the first of ``seeds_from(random_state)``
    and the pool's size, ``default_rng([seed, size])``, fresh for each measure; without
    ``random_state`` the pool's own generator (a pool with a seed: the same bands every time)."""
    rng = np.random.default_rng(11)
    members = rng.normal(size=(30, 1)) + 0.6 * rng.normal(size=(30, 16))
    y = rng.normal(size=50)
    grid = (1, 2, 4, 8)

    def tuned(pool, random_state):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return tune_num_learners(pool, method="closed_form", grid=grid, measures=("icc", "phi"),
                                     n_resamples=25, random_state=random_state).table

    seed = int(np.random.default_rng(7).integers(0, 2**31 - 1, size=1)[0])
    table = tuned(TreePool.from_predictions(members, y=y), 7)
    for measure in ("icc", "phi"):
        own = TreePool.from_predictions(members, y=y).closed_form(
            grid, measure=measure, n_resamples=25, random_state=np.random.default_rng([seed, 16]))
        np.testing.assert_array_equal(table[f"{measure}_low"].to_numpy(), own.low)
        np.testing.assert_array_equal(table[f"{measure}_high"].to_numpy(), own.high)
    seeded = TreePool.from_predictions(members, y=y, random_state=4)
    own = seeded.closed_form(grid, measure="icc", n_resamples=25)
    table = tuned(TreePool.from_predictions(members, y=y, random_state=4), None)
    np.testing.assert_array_equal(table["icc_low"].to_numpy(), own.low)
    np.testing.assert_array_equal(table["icc_high"].to_numpy(), own.high)


@pytest.mark.parametrize("scale", [2.0**-530, 1e-160, 2.0**500])
def test_object_bands_of_phi_are_scale_invariant(scale):
    """Issue 33: the object-bootstrap bands of phi read its per-object parts in the units phi
    computed them in; the reported parts of predictions near 1e-160 are denormals (the bands moved
    by 1e-5 to 1e-4). The table at any scale equals the one of the unscaled predictions."""
    rng = np.random.default_rng(12)
    members = rng.normal(size=(30, 1)) + 0.6 * rng.normal(size=(30, 16))
    y = rng.normal(size=50)

    def table(c):
        pool = TreePool.from_predictions(members * c, y=y * c, random_state=0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = tune_num_learners(pool, method="pool", grid=(1, 2, 4), measures=("phi",), n_resamples=30,
                                    random_state=3)
        return res.table[["phi", "phi_low", "phi_high"]].to_numpy(dtype=float)

    np.testing.assert_allclose(table(scale), table(1.0), rtol=1e-12, atol=0)
