"""The recommendation of tune_num_learners: each measure's 2PL fit against fit_2pl on the same
points, optRF's rule against TwoPL.recommend, the "already stable" rule, the notes and messages
of poor, unflattened and beyond-the-grid fits, and the recommendation's interval (order
statistics of the resampled curves' recommendations).
"""

import math
import warnings

import numpy as np
import pytest
from sklearn.ensemble import RandomForestClassifier

import predstab.ensembles._recommend as recommend_module
import predstab.ensembles._recommendation_interval as interval_module
from predstab import (
    PredstabWarning,
    TreePool,
    fit_2pl,
    icc,
    phi,
    tune_num_learners,
)
from predstab._core._utils import check_rng
from tests.ensembles._tuning import (
    EST,
    GRID,
    GRID32,
    RARE_GRID,
    XTE,
    XTE20,
    XTR,
    XTR50,
    YTR,
    YTR50,
    _group_predictions,
    _quiet50,
    _tune,
    order_interval,
)

OPTRF_THOUSAND = recommend_module.Rule("optRF", 0.95, 1e-6, "thousand")  # optRF 1.2.1's defaults
OPTRF_HUNDRED = recommend_module.Rule("optRF", 0.95, 1e-6, "hundred")

# the independent computations measure few forests (PredstabDataWarning: fewer than 5)
pytestmark = pytest.mark.filterwarnings("ignore::predstab.PredstabDataWarning")


# ----------------------------------------------------------------------------------------- issue 13
def test_recommendation_explains_itself_and_follows_the_rule_options():
    res = _quiet50(method="closed_form", measures=("icc", "phi"), pool_size=64, rec_thresh=1e-4,
                 round_to="hundred", target=0.9)
    fit = fit_2pl(GRID32, res.table["icc"])
    rec = res.recommendations["icc"]
    assert rec.value == fit.recommend(rec_thresh=1e-4, round_to="hundred")
    assert rec.unrounded == fit.recommend(rec_thresh=1e-4, round_to="none", minimum=0)
    assert rec.n_for_target == fit.num_learners_for(0.9) == res.n_for_target
    assert rec.beyond_grid == (rec.value > 32) and f"{rec.value / 32:.3g} x" in rec.explain()
    text = str(res)
    assert "below rec_thresh = 0.0001, rounded to the nearest hundred, at least 500" in text
    assert f"Recommendation: {rec.value} learners" in text and f"from {rec.unrounded:.0f} learners" in text
    assert "beyond the grid" in text


def test_rare_class_every_measure_gets_its_fit_and_recommendation_printed(rare):
    res, _ = rare
    fit = fit_2pl(RARE_GRID, res.table["phi"])  # phi has no degenerate point: all six fitted
    rec = res.recommendations["phi"]
    assert res.fits["phi"].p1 == fit.p1 and rec.value == fit.recommend() and rec.rule == "optRF"
    assert rec.n_for_target == fit.num_learners_for(0.95)
    text = str(res)
    row = next(line for line in text.splitlines() if line.split()[:1] == ["phi"])
    assert row.split()[1:] == [f"{fit.p1:.4g}", f"{fit.p2:.4g}", f"{fit.r_squared:.4f}".rstrip("0"),
                               str(rec.value), "optRF", f"{rec.unrounded:.0f}", str(rec.n_for_target)]
    assert "fleiss" in text and "Notes:" in text


def test_flat_curve_is_already_stable():
    # two far-apart blobs: every forest from 5 trees on classifies every object alike, kappa = 1
    rng = np.random.default_rng(0)
    Xf = np.vstack([rng.normal(0, 1, (40, 3)), rng.normal(12, 1, (40, 3))])
    yf = np.repeat(["a", "b"], 40)
    test = np.vstack([rng.normal(0, 1, (10, 3)), rng.normal(12, 1, (10, 3))])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = tune_num_learners(RandomForestClassifier(max_features=1), Xf, yf, test, grid=(5, 10, 20, 40),
                                n_repeats=4, measures=("fleiss", "phi"), method="pool", pool_size=160,
                                n_resamples=0, random_state=0)
    assert res.table["fleiss"].tolist() == [1.0, 1.0, 1.0, 1.0] and not res.fits["fleiss"].converged
    assert res.recommendation == 5 and res.reliable and res.recommendations["fleiss"].rule == "already stable"
    assert "no larger grid is needed" in res.message and "would resolve" not in str(res)
    assert not [w for w in caught if issubclass(w.category, PredstabWarning)]


def test_flat_curve_is_already_stable_and_printed_so():
    rng = np.random.default_rng(0)
    Xb = np.vstack([rng.normal(0, 1, (15, 2)), rng.normal(12, 1, (15, 2))])
    yb = np.repeat(["a", "b"], 15).astype(object)
    test = np.vstack([rng.normal(0, 1, (4, 2)), rng.normal(12, 1, (4, 2))])
    with warnings.catch_warnings():
        warnings.simplefilter("error", PredstabWarning)  # an already flat curve is no problem
        res = tune_num_learners(RandomForestClassifier(max_features=1), Xb, yb, test, grid=(2, 4, 8),
                                n_repeats=3, measures=("fleiss",), method="pool", pool_size=24, n_resamples=5,
                                random_state=0)
    rec = res.recommendations["fleiss"]
    assert res.table["fleiss"].tolist() == [1.0, 1.0, 1.0] and res.table["degenerate"].tolist() == [""] * 3
    assert (res.recommendation, rec.rule, res.n_for_target, res.reliable) == (2, "already stable", 2, True)
    note = ("already stable: fleiss >= 0.95 at every grid value from 2 learners on (the 2PL fit failed on a "
            "flat curve); no larger grid is needed")
    assert rec.note == note and res.message == f"fleiss: {note}."
    assert np.isnan(res.confidence_interval.low)  # no interval about a rule that is not optRF's
    lines = str(res).splitlines()
    assert f" Recommendation: 2 learners -- {rec.explain()}." in lines
    assert f"  fleiss: {note}." in lines
    # the 2PL failed on the flat curve: no line says what "the fitted curve" reaches (issue 35 walk)
    assert not [line for line in lines if "on the fitted curve" in line]
    assert abs(res.runtime[0]) < 1e-9  # pool times are proportional to n: printed as 0
    assert lines[-1] == (f" Run time: seconds per forest ~ 0 + {res.runtime[1]:.4g} * "
                         f"learners; 2 learners: about {res.seconds_for(2):.3g} s per forest")
    assert res.recommendation_seconds == pytest.approx(res.runtime[0] + 2 * res.runtime[1], rel=1e-12)


@pytest.mark.parametrize(("values", "expected"), [
    ([0.5, 0.97, 0.96], 4), ([0.97, 0.9, 0.96], 8), ([0.97, 0.98, 0.99], 2), ([0.97, 0.98, 0.9], None),
    ([0.95, 0.95, 0.95], 2), ([np.nan, 0.97, 0.99], 4), ([0.97, 0.97, np.nan], None), ([], None),
])
def test_already_stable_is_the_first_grid_value_staying_above_target(values, expected):
    assert recommend_module._already_stable(np.array([2, 4, 8][: len(values)]), np.array(values, dtype=float),
                                       0.95) == expected


# ------------------------------------------------------------------------- rules, messages, intervals
def _curve_fit(p1, p2, n=(10, 20, 40, 80), noise=0.0):
    n = np.array(n, dtype=float)
    values = 1 / (1 + (p1 / n) ** p2) + noise * np.array([1, -1, 1, -1])[: n.size]
    return n, values, fit_2pl(n, values)


def test_recommend_notes_poor_unflattened_and_beyond_the_grid():
    n, values, fit = _curve_fit(5, 1.5)  # a good, flattened fit: optRF's 1000, beyond the grid of 80
    rec = recommend_module._recommend("icc", fit, n, values, 80, OPTRF_THOUSAND)
    assert (rec.value, rec.unrounded, rec.rule, rec.n_for_target) == (1000, 790.0, "optRF", 36)
    assert rec.beyond_grid and rec.grid_max == 80
    assert rec.note == ("beyond the grid: 1000 is 12.5 x the largest grid value 80 (an extrapolation of the "
                        "fitted curve)")
    assert rec.expected_stability == pytest.approx(1 / (1 + (5 / 1000) ** 1.5), rel=1e-6)
    rec = recommend_module._recommend("icc", fit, n, values, 1000, OPTRF_THOUSAND)
    assert (rec.value, rec.beyond_grid, rec.note) == (1000, False, "")  # at the end of the grid, not beyond
    rec = recommend_module._recommend("icc", fit, n, values, 2000, OPTRF_HUNDRED)
    assert (rec.value, rec.beyond_grid, rec.note, rec.round_to) == (800, False, "", "hundred")
    n, values, fit = _curve_fit(200, 1.0)  # converged, not flattened within 80 learners
    rec = recommend_module._recommend("phi", fit, n, values, 80, OPTRF_THOUSAND)
    assert rec.note == (f"the curve has not flattened within the grid (fitted stability "
                        f"{fit.stability(80):.2f} "
                        f"at 80 learners); a grid up to about 1280 learners would resolve it, e.g. "
                        "(10, 20, 40, 80, 160, 320, 640, 1280)")  # issue 35: the advice quotes its grid
    assert (rec.value, rec.rule, rec.beyond_grid) == (14000, "optRF", True)
    problems, message = recommend_module._primary_message("phi", fit, rec, [10, 20, 40, 80], [])
    assert problems == [f"the curve has not flattened within the grid (fitted stability "
                        f"{fit.stability(80):.2f} "
                        f"at 80 learners, inflection point p1 = {fit.p1:.0f})"]
    assert message == (f"phi: {problems[0]}. A grid up to about 1280 learners would resolve it, e.g. "
                       "(10, 20, 40, 80, 160, 320, 640, 1280).")
    n, values, fit = _curve_fit(5, 1.5, noise=0.05)  # converged, poor
    rec = recommend_module._recommend("psi", fit, n, values, 80, OPTRF_THOUSAND)
    assert rec.note == f"the 2PL fits poorly (R^2 = {fit.r_squared:.2f}); optRF's number is not trusted"
    assert (rec.value, rec.rule) == (fit.recommend(), "optRF")
    problems, message = recommend_module._primary_message("psi", fit, rec, [10, 20, 40, 80], [])
    assert problems == [f"the 2PL fits poorly (R^2 = {fit.r_squared:.2f}); do not trust it"]
    problems, message = recommend_module._primary_message("psi", fit, rec, [10, 20, 40, 80], [20, 40])
    assert message == ("psi: the 2PL fit is poor on the points left after its degenerate ones (n = 20, "
                       "40; see "
                       "notes).")
    # poor but high: already stable from the first grid value on the observed curve
    flat = np.array([0.96, 0.99, 0.97, 0.99])
    fit = fit_2pl(n, flat)
    assert fit.poor_fit
    rec = recommend_module._recommend("psi", fit, n, flat, 80, OPTRF_THOUSAND)
    assert (rec.value, rec.rule, rec.unrounded, rec.n_for_target) == (10, "already stable", None, 10)
    assert rec.note == ("already stable: psi >= 0.95 at every grid value from 10 learners on (the 2PL "
                        "fits poorly "
                        "on a flat curve); no larger grid is needed")
    assert rec.expected_stability == pytest.approx(float(fit.stability(10)), rel=1e-12)
    assert recommend_module._primary_message("psi", fit, rec, [10, 20, 40, 80], []) == ([],
                                                                                        f"psi: {rec.note}.")
    failed = recommend_module._failed_fit(n, values, "no fit")
    problems, message = recommend_module._primary_message("icc", failed, rec.__class__(
        **{**rec.__dict__, "rule": "none"}), [10, 20, 40, 80], [])
    assert problems == ["the 2PL fit failed (no fit)"]
    assert message == ("icc: the 2PL fit failed (no fit). A grid up to about 320 learners would resolve it, "
                       f"e.g. {failed.suggested_grid()}.")


def test_unflattened_curve_is_reported_with_a_grid():
    with pytest.warns(PredstabWarning, match="not flattened"):
        res = tune_num_learners(EST, XTR50, YTR50, XTE20, grid=(1, 2, 3), n_repeats=3, measures=("icc",),
                                method="closed_form", pool_size=100, n_resamples=0, random_state=0)
    assert not res.reliable and "would resolve it" in res.message
    assert "learners would resolve it" in res.message and "members" not in res.message  # a forest's words


def test_a_pool_of_members_is_advised_in_members():
    # a pool built from 12 members' predictions whose curve has not flattened: the message (and
    # its warning) speaks of members and says the metric closed form needs no more members for it
    rng = np.random.default_rng(5)
    members = 0.3 * rng.normal(size=(40, 1)) + rng.normal(size=(40, 12))
    pool = TreePool.from_predictions(members, random_state=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = tune_num_learners(pool, method="closed_form", grid=(1, 2, 3), measures=("icc",), n_resamples=0,
                                random_state=1)
    fit = res.fits["icc"]
    grid = fit.suggested_grid()
    assert res.message == (f"icc: the curve has not flattened within the grid (fitted stability "
                           f"{fit.stability(3):.2f} at 3 members, inflection point p1 = {fit.p1:.0f}). A "
                           f"grid up to about {grid[-1]} members would resolve it (the closed form gives "
                           f"the curve there from the 12 members the pool holds: no training needed), "
                           f"e.g. {grid}.")
    assert grid[-1] > 12 and res.message in [str(w.message) for w in caught]


def test_poor_fit_gives_no_recommendation_but_keeps_optRFs_number():
    from predstab.ensembles._recommend import _primary_message, _recommend
    from validation._table import load_json

    curve = load_json("aps", "expected", "aps_maize.json")["curve"]  # ranger, psi with moving OOB baseline
    n = np.array([p["num_trees"] for p in curve], dtype=float)
    values = np.array([p["psi"] for p in curve])
    fit = fit_2pl(n, values)
    assert fit.poor_fit and fit.converged
    rec = _recommend("psi", fit, n, values, int(n.max()), OPTRF_THOUSAND)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PredstabWarning)
        assert rec.value == fit.recommend() and rec.rule == "optRF"  # optRF's number stays visible
    assert "fits poorly" in rec.note
    problems, message = _primary_message("psi", fit, rec, n.astype(int).tolist(), [])
    assert problems and "fits poorly" in message and "would resolve it" in message


def test_bootstrap_interval_of_the_rounded_and_unrounded_recommendation():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = tune_num_learners(EST, XTR50, YTR50, XTE20, grid=GRID32, n_repeats=3, measures=("icc", "phi"),
                                method="pool", pool_size=96, n_resamples=20, random_state=0)
    # the same pool, then the resamples drawn from the generator after it (rows shared by all n)
    rng = check_rng(0)
    pool = TreePool(EST, n_learners=96, random_state=rng).fit(XTR50, YTR50, XTE20, oob=False)
    forests = {n: pool.forests(n, n_forests=3) for n in GRID32}
    rounded, raw, icc_curves, phi_curves = [], [], [], []
    for _ in range(20):
        rows = rng.integers(0, len(XTE20), len(XTE20))
        curve = [icc(forests[n][rows]).value for n in GRID32]
        icc_curves.append(curve)
        phi_curves.append([phi(forests[n][rows], YTR50).value for n in GRID32])
        fit = fit_2pl(GRID32, curve)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PredstabWarning)
            rec = fit.recommend()
        if rec is not None:
            rounded.append(rec)
            raw.append(fit.recommend(round_to="none", minimum=0))
    low, high = order_interval(rounded, 0.95)
    assert tuple(res.confidence_interval) == (low, high)
    assert tuple(res.unrounded_interval) == order_interval(raw, 0.95)
    band_low, band_high = np.quantile(np.array(icc_curves), [0.025, 0.975], axis=0)
    np.testing.assert_allclose(res.table["icc_low"], band_low, rtol=1e-12)
    np.testing.assert_allclose(res.table["icc_high"], band_high, rtol=1e-12)
    band_low, band_high = np.quantile(np.array(phi_curves), [0.025, 0.975], axis=0)
    np.testing.assert_allclose(res.table["phi_low"], band_low, rtol=1e-12)
    np.testing.assert_allclose(res.table["phi_high"], band_high, rtol=1e-12)
    assert res.seconds_for(100) == pytest.approx(res.runtime[0] + 100 * res.runtime[1])
    assert "test objects resampled" in res.interval_covers


def test_interval_needs_half_of_the_resamples_to_recommend():
    n = np.array([10.0, 20.0, 40.0, 80.0])
    curves = [1 / (1 + (p1 / n) ** 1.5) for p1 in (4.0, 5.0, 6.0, 7.0)]
    rounded, raw = [], []
    for curve in curves:
        fit = fit_2pl(n, curve)
        rounded.append(fit.recommend(round_to="hundred"))
        raw.append(fit.recommend(round_to="none", minimum=0))
    interval, unrounded = interval_module._interval(curves + [np.full(4, np.nan)] * 4, [10, 20, 40, 80],
                                                OPTRF_HUNDRED, 8, 0.5)
    assert tuple(interval) == order_interval(rounded, 0.5)
    assert tuple(unrounded) == order_interval(raw, 0.5)
    interval, unrounded = interval_module._interval(curves + [np.full(4, np.nan)] * 5, [10, 20, 40, 80],
                                                OPTRF_HUNDRED, 9, 0.5)
    assert np.isnan(interval.low) and np.isnan(unrounded.high)  # 4 of 9 resamples recommend


def test_confidence_level_of_the_bands_and_the_interval():
    res = _tune(method="closed_form", pool_size=24, measures=("icc", "phi"), n_resamples=10,
                interval="learners", confidence_level=0.5)
    pool = TreePool(EST, n_learners=24, random_state=0).fit(XTR, YTR, XTE, oob=False)
    for m in ("icc", "phi"):
        bands = pool.closed_form(GRID, measure=m, n_resamples=10, confidence_level=0.5)
        np.testing.assert_allclose(res.table[f"{m}_low"], bands.low, rtol=1e-10)
        np.testing.assert_allclose(res.table[f"{m}_high"], bands.high, rtol=1e-10)
    assert res.confidence_level == 0.5 and res.settings["confidence_level"] == 0.5
    assert (" 50% bootstrap bands (learners only: these test objects and this training set, "
        "variation from the learners):") in str(res).splitlines()
    res = _tune(method="pool", pool_size=24, measures=("icc",), n_resamples=10, confidence_level=0.5)
    rng = check_rng(0)
    pool = TreePool(EST, n_learners=24, random_state=rng).fit(XTR, YTR, XTE, oob=False)
    preds = {n: _group_predictions(pool, n, 3, XTE) for n in GRID}
    curves = []
    for _ in range(10):
        rows = rng.integers(0, len(XTE), len(XTE))
        curves.append([icc(preds[n][rows]).value for n in GRID])
    low, high = np.quantile(np.array(curves), [0.25, 0.75], axis=0)
    np.testing.assert_allclose(res.table["icc_low"], low, rtol=1e-10)
    np.testing.assert_allclose(res.table["icc_high"], high, rtol=1e-10)
    rounded = []
    for curve in curves:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PredstabWarning)
            rec = fit_2pl(GRID, curve).recommend()
        if rec is not None:
            rounded.append(rec)
    assert tuple(res.confidence_interval) == order_interval(rounded, 0.5)


def test_target_rule_needs_a_flat_curve_only_beyond_the_grid():
    # p1 = 200, p2 = 1 over 10-80 learners: converged, not flattened; the target rule's n is
    # p1 / (1 / target - 1) (50 for 0.2: within the grid; 200 for 0.5, 15 for 0.07: beyond / within)
    n, values, fit = _curve_fit(200, 1.0)
    assert fit.converged and not fit.flattened and not fit.poor_fit
    grid = [10, 20, 40, 80]
    unflat = (f"the curve has not flattened within the grid (fitted stability {fit.stability(80):.2f} at 80 "
              f"learners); a grid up to about {fit.suggested_grid()[-1]} learners would resolve it, e.g. "
              f"{fit.suggested_grid()}")
    problem = (f"the curve has not flattened within the grid (fitted stability {fit.stability(80):.2f} at 80 "
               f"learners, inflection point p1 = {fit.p1:.0f})")
    for target, want, note in [(0.2, 50, ""), (0.07, 16, ""), (0.5, 200, unflat)]:
        rec = recommend_module._recommend("icc", fit, n, values, 80,
                                          recommend_module.Rule("target", target, 1e-6, "none"))
        expected = math.ceil(200 / (1 / target - 1) * (1 - 1e-9))
        assert (rec.rule, rec.value, expected) == ("target", want, want)
        assert rec.note == note and rec.beyond_grid == (want > 80)
        problems, message = recommend_module._primary_message("icc", fit, rec, grid, [])
        assert problems == ([problem] if want > 80 else [])
        assert (message == "") == (want <= 80)
    # optRF's rule needs a flat curve whatever its number
    rec = recommend_module._recommend("icc", fit, n, values, 20000, OPTRF_THOUSAND)
    assert rec.note == unflat.replace("at 80 learners", "at 20000 learners").replace(
        f"{fit.stability(80):.2f} at", f"{fit.stability(20000):.2f} at")
    assert recommend_module._primary_message("icc", fit, rec, grid, [])[0] == [problem]
    # a target the curve never reaches: no number, the curve's problem said
    rec = recommend_module._recommend("icc", fit, n, values, 80,
                                    recommend_module.Rule("target", 1.5, 1e-6, "none"))
    assert (rec.value, rec.rule, rec.note) == (None, "none", unflat)
    assert recommend_module._primary_message("icc", fit, rec, grid, [])[0] == [problem]
    # a poor fit names the rule whose number is not trusted
    n, values, poor = _curve_fit(5, 1.5, noise=0.05)
    rec = recommend_module._recommend("psi", poor, n, values, 80,
                                    recommend_module.Rule("target", 0.99, 1e-6, "none"))
    assert rec.note == (f"the 2PL fits poorly (R^2 = {poor.r_squared:.2f}); the target rule's number is not "
                        "trusted")
