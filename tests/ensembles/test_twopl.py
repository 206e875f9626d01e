"""fit_2pl / TwoPL against minpack.lm::nlsLM fits and optRF 1.2.1's recommendation rule.

The recommendation rule is also checked against an independent transcription of optRF 1.2.1's
scan (``test_seq = seq(10, max, 10)``, ``diff(stability) / 10 < rec.thresh``, threshold
lowered tenfold while the recommendation is below the inflection point), the print layout
against R's ``print.nls`` lines written out, the grid advice against the rule its docstring
states, and R's rank check against a QR decomposition of the analytic gradient.
"""

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from predstab import PredstabWarning, fit_2pl
from predstab._core._validation import InvalidParameterError
from predstab.ensembles._twopl import TwoPL, _curve, _rank_deficient, _suggested_max
from validation._table import load_json

RUNS = load_json("optrf", "expected", "optRF_runs.json")


@pytest.mark.parametrize("case", sorted(load_json("classic", "expected", "optRF_2pl.json")))
def test_fit_matches_nlsLM(case):
    # R: nlsLM(s ~ 1/(1+(p1/n)^p2), start = c(p1 = n[round(length(n)/2)], p2 = 0.5),
    #          control = nls.lm.control(maxiter = 1024))   (classic/generate.R)
    ref = load_json("classic", "expected", "optRF_2pl.json")[case]
    fit = fit_2pl(ref["n"], ref["stability"])
    assert fit.converged
    np.testing.assert_allclose([fit.p1, fit.p2], [ref["p1"], ref["p2"]], rtol=1e-6)


@pytest.mark.parametrize("run", sorted(RUNS))
def test_recommendation_and_estimates_match_optRF(run):
    # R: r <- opt_prediction(..., number_repetitions = 5); r$recommendation;
    #    estimate_numtrees(r, measure = "prediction", for_stability = c(0.8, 0.9, 0.95, 0.99))
    ref = RUNS[run]
    table = ref["result_table"]
    fit = fit_2pl([r["num.trees_values"] for r in table], [r["pred_stability"] for r in table])
    params = ref["model_parameters"][0]
    np.testing.assert_allclose([fit.p1, fit.p2], [params["Inflection_point"], params["Slope"]], rtol=1e-6)
    assert fit.recommend() == ref["recommendation"]  # exact integer
    wanted = [e["prediction_stability"] for e in ref["estimate_numtrees"]]
    got = fit.num_learners_for(wanted).tolist()
    assert got == [e["opt_numtrees"] for e in ref["estimate_numtrees"]]  # exact integers
    stab = {e["_row"]: e["Value"] for e in ref["expected_RF_stability"]}
    assert fit.stability(fit.recommend()) == pytest.approx(stab["Prediction_stability"], rel=1e-6)


def test_start_value_uses_r_rounding():
    # R: round(5/2) = 2 (half to even), 1-based -> second grid value; round(7/2) = 4
    assert fit_2pl([1, 2, 3, 4, 5], [0.1, 0.2, 0.3, 0.4, 0.5]).start == (2.0, 0.5)
    assert fit_2pl(np.arange(1, 8), np.linspace(0.1, 0.7, 7)).start == (4.0, 0.5)


def test_exact_curve_is_recovered_and_rounding_options():
    n = np.array([250, 500, 750, 1000, 2000])
    fit = fit_2pl(n, 1 / (1 + (300 / n) ** 0.9))
    assert fit.p1 == pytest.approx(300, rel=1e-6) and fit.p2 == pytest.approx(0.9, rel=1e-6)
    assert fit.r_squared == pytest.approx(1.0)
    recs = {r: fit.recommend(round_to=r) for r in ("thousand", "hundred", "ten", "none")}
    # independent computation of optRF's rule on the true curve: the first n of 20, 30, ... whose
    # gain per learner, (s(n) - s(n - 10)) / 10, is below the threshold (here far above p1 = 300)
    def first_flat(threshold):
        grid = np.arange(10, 1_000_001, 10, dtype=float)
        gain = np.diff(1 / (1 + (300 / grid) ** 0.9)) / 10
        return int(grid[1:][np.argmax(gain < threshold)])

    assert first_flat(1e-6) == 19820
    assert recs == {"none": 19820, "ten": 19820, "hundred": 19800, "thousand": 20000}
    # a lower threshold asks for a flatter curve, hence more learners: round(68_0x0, -3)
    assert fit.recommend(rec_thresh=1e-7) == round(first_flat(1e-7), -3) == 68000


def test_minimum_recommendation_is_500():
    n = np.array([5, 10, 20, 40])
    fit = fit_2pl(n, 1 / (1 + (2 / n) ** 2.0))
    # gain 8 / n^3 falls below 1e-6 at n = 200
    assert fit.recommend(round_to="hundred") == 500
    assert fit.recommend(round_to="hundred", minimum=0) == 200
    # round(200, -3) = 0 is below the inflection point, so optRF lowers the threshold
    # tenfold until a rounded value (1000) is at or above p1
    assert fit.recommend() == 1000


def test_poor_fit_and_not_flattened_are_reported():
    # non-monotone psi-OOB curve of aps_maize.json
    maize = load_json("aps", "expected", "aps_maize.json")["curve"]
    fit = fit_2pl([p["num_trees"] for p in maize], [p["psi"] for p in maize])
    assert fit.converged and fit.poor_fit and fit.r_squared < 0.9
    n = np.array([250, 500, 1000, 2000])
    slow = fit_2pl(n, 1 / (1 + (5000 / n) ** 1.0))
    assert not slow.flattened
    grid = slow.suggested_grid()
    assert grid[0] == 250 and grid[-1] >= slow.num_learners_for(0.8)


def test_failed_fit_is_reported_not_raised():
    # constant stability: the gradient in p1 and p2 vanishes -> R's nlsLM stops
    fit = fit_2pl([10, 20, 30, 40], [0.3, 0.3, 0.3, 0.3])
    assert not fit.converged and fit.poor_fit
    assert np.isnan(fit.p1) and np.isnan(fit.p2) and np.isnan(fit.r_squared)
    assert fit.message.startswith("MINPACK did not converge (info = 5)")  # maxfev = 300 reached
    with pytest.warns(PredstabWarning, match="fit failed"):
        assert fit.recommend() is None
    assert fit.suggested_max == 160  # 4 x the largest grid value


def test_decreasing_curve_gives_no_recommendation():
    n = np.array([100, 200, 400, 800, 1600])
    fit = fit_2pl(n, [0.9, 0.8, 0.7, 0.6, 0.5])
    with pytest.warns(PredstabWarning, match="No recommendation"):
        assert fit.recommend() is None


def test_print_is_r_style_and_frame_one_row():
    fit = fit_2pl([250, 500, 750, 1000, 2000], [0.488, 0.679, 0.704, 0.772, 0.870])
    lines = str(fit).splitlines()
    # R's print.nls: title, model, the estimates under their names, the residual sum of squares
    assert lines[:2] == ["Nonlinear regression model", "  model: stability ~ 1/(1 + (p1/n)^p2)"]
    assert lines[3].split() == ["p1", "p2"] and lines[4].split() == ["253.3", "0.9021"]
    rss = float(np.sum((np.array([0.488, 0.679, 0.704, 0.772, 0.870]) - fit.stability(
        [250, 500, 750, 1000, 2000])) ** 2))
    assert lines[5] == f" residual sum-of-squares: {rss:.4g}"
    frame = fit.to_frame()
    assert frame.shape == (1, 9) and frame.loc[0, "p2"] == fit.p2 and frame.loc[0, "suggested_max"] == 2000


@pytest.mark.parametrize(
    ("args", "match"),
    [(([1, 2], [0.1, 0.2]), "at least 3"), (([1, 2, 3], [0.1, 0.2]), "same length"),
     (([0, 2, 3], [0.1, 0.2, 0.3]), "positive"), (([1, 2, 3], [0.1, np.nan, 0.3]), "finite"),
     (([[1, 2, 3]], [[0.1, 0.2, 0.3]]), "1-D")],
)
def test_bad_input_raises(args, match):
    with pytest.raises(ValueError, match=match):
        fit_2pl(*args)


def test_bad_recommend_options_raise():
    fit = fit_2pl([250, 500, 750, 1000], [0.5, 0.6, 0.7, 0.75])
    with pytest.raises(ValueError, match="`round_to`"):
        fit.recommend(round_to="thousands")
    with pytest.raises(ValueError, match="`rec_thresh`"):
        fit.recommend(rec_thresh=0)
    assert fit.num_learners_for(1.5) == -1
    assert fit.to_frame().loc[0, "p1"] == fit.p1


@settings(max_examples=25, deadline=None)
@given(st.floats(50, 3000), st.floats(0.4, 2.0))
def test_noise_free_curves_are_recovered(p1, p2):
    n = np.array([100, 250, 500, 1000, 2000, 4000])
    fit = fit_2pl(n, 1 / (1 + (p1 / n) ** p2))
    assert fit.converged
    np.testing.assert_allclose([fit.p1, fit.p2], [p1, p2], rtol=1e-4)
    assert fit.num_learners_for(0.5) == int(np.ceil(fit.p1))


def two_pl(p1, p2, *, n=(250.0, 500.0, 1000.0), converged=True, message="converged", suggested_max=1000):
    n = np.asarray(n, dtype=float)
    fitted = 1 / (1 + (p1 / n) ** p2) if converged else np.full(n.shape, np.nan)
    observed = fitted + np.array([0.01, -0.02, 0.005])[: n.size]
    return TwoPL(p1=p1, p2=p2, converged=converged, message=message, r_squared=0.97, poor_fit=False,
                 flattened=True, suggested_max=suggested_max, n=n, observed=observed, fitted=fitted,
                 residuals=observed - fitted, start=(500.0, 0.5), n_evaluations=12)


def optrf_recommend(p1, p2, rec_thresh, digits, minimum, max_learners):
    """optRF 1.2.1's recommendation, written from its R source with plain Python floats."""
    seq = list(range(10, int(max_learners) + 1, 10))
    s = [1 / (1 + (p1 / m) ** p2) for m in seq]
    gain = [(b - a) / 10 for a, b in zip(s[:-1], s[1:], strict=True)]
    thresh = rec_thresh
    while thresh > 0:
        hits = [seq[i + 1] for i, g in enumerate(gain) if g < thresh]
        if not hits:
            return None
        rec = round(hits[0], digits)  # Python's round: ties to even, as R's
        if rec >= p1:
            return max(int(rec), minimum)
        thresh *= 0.1
    return None


def test_curve_limits_without_numpy_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _curve(np.array([0.0]), 5.0, 1.0)[0] == 0.0  # p1 / 0 = inf (divide)
        assert _curve(np.array([1e-300]), 1e10, 50.0)[0] == 0.0  # (1e310) overflows to inf
        assert np.isnan(_curve(np.array([0.0]), 0.0, 1.0)[0])  # 0 / 0 (invalid)
        assert _curve([500, 1000], 500.0, 2.0).tolist() == [0.5, 0.8]


def qr_ratio(n, p1, p2):
    """|R22| / ||column 2|| of the QR of the analytic gradient (what dqrdc2 compares to 1e-7)."""
    n = np.asarray(n, dtype=float)
    s = 1 / (1 + (p1 / n) ** p2)
    u = (p1 / n) ** p2
    d1 = -s**2 * u * p2 / p1
    d2 = -s**2 * u * np.log(p1 / n)
    r = np.linalg.qr(np.column_stack([d1, d2]), mode="r")
    return abs(r[1, 1]) / np.linalg.norm(d2)


def test_rank_check_on_a_well_conditioned_grid():
    n = np.array([250.0, 500.0, 1000.0, 2000.0])
    assert qr_ratio(n, 300.0, 0.9) > 1e-2
    assert _rank_deficient(n, 300.0, 0.9) is False


def test_rank_check_on_a_repeated_grid_point():
    # one distinct n: both gradient columns are proportional, rank 1
    n = np.full(4, 500.0)
    assert qr_ratio(n, 300.0, 0.9) < 1e-12
    assert _rank_deficient(n, 300.0, 0.9) is True


@pytest.mark.parametrize("spread,deficient", [(1e-9, True), (5e-7, False), (1e-4, False)])
def test_rank_check_near_the_tolerance(spread, deficient):
    # two nearly equal grid points: the ratio is ~ spread (x a constant); R's 1e-7 decides
    n = np.array([500.0, 500.0 * (1 + spread), 500.0])
    assert bool(qr_ratio(n, 300.0, 0.9) < 1e-7) is deficient
    assert _rank_deficient(n, 300.0, 0.9) is deficient


def test_rank_check_degenerate_parameters():
    n = np.array([250.0, 500.0, 1000.0])
    assert _rank_deficient(n, 300.0, 0.0) is True  # flat curve: d/dp1 is exactly 0
    assert _rank_deficient(n, np.inf, 0.9) is True  # s = 0 everywhere: d/dp1 is 0
    assert _rank_deficient(n, np.nan, 0.9) is True  # non-finite curve and gradient
    assert _rank_deficient(n, 0.0, 0.9) is True  # p1 = 0: s = 1, step sqrt(eps); d/dp2 is 0
    # p2 = 0 takes the absolute step sqrt(eps) (a relative one would be 0 and divide by 0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _rank_deficient(n, 300.0, 0.0) is True


def test_fit_with_a_repeated_grid_is_refused_as_r_does():
    fit = fit_2pl([500, 500, 500, 500], [0.6, 0.61, 0.59, 0.6])
    assert fit.converged is False and math.isnan(fit.p1) and math.isnan(fit.p2)
    assert fit.poor_fit is True and fit.flattened is False and math.isnan(fit.r_squared)


def test_recommendation_matches_optrf_transcription():
    fit = fit_2pl([250, 500, 750, 1000, 2000], [0.488, 0.679, 0.704, 0.772, 0.870])
    for rec_thresh, round_to, digits in ((1e-6, "thousand", -3), (1e-5, "hundred", -2), (3e-6, "ten", -1),
                                         (2e-5, "none", 0)):
        expected = optrf_recommend(fit.p1, fit.p2, rec_thresh, digits, 500, 1_000_000)
        assert fit.recommend(rec_thresh=rec_thresh, round_to=round_to) == expected
    assert fit._recommend_detail(rec_thresh=1e-6, round_to="thousand", minimum=500,
                                 max_learners=1_000_000) == (18000, "")


def test_recommendation_lowers_the_threshold_below_the_inflection_point():
    # a steep curve (p2 = 3): its gain is tiny at n = 20, far below p1, so the scan restarts
    # with 1e-7, 1e-8, ... until the first flat point lies past p1
    fit = two_pl(5000.0, 3.0)
    expected = optrf_recommend(5000.0, 3.0, 1e-6, -2, 500, 1_000_000)
    assert expected is not None and expected > 5000
    assert fit.recommend(round_to="hundred") == expected


def test_recommendation_exactly_at_the_inflection_point_is_kept():
    fit = two_pl(1000.0, 0.8)
    s = _curve(np.array([990.0, 1000.0]), 1000.0, 0.8)
    gain_1000 = (s[1] - s[0]) / 10
    thresh = gain_1000 * (1 + 1e-9)
    assert optrf_recommend(1000.0, 0.8, thresh, 0, 0, 2000) == 1000
    assert fit.recommend(rec_thresh=thresh, round_to="none", minimum=0, max_learners=2000) == 1000


def test_scan_ends_at_max_learners():
    # the first point whose gain is below the threshold is n = 1010: found with a scan up to 1010,
    # not up to 1009 (R's seq(10, 1009, 10) stops at 1000) nor 1000
    fit = two_pl(100.0, 0.8)
    s = _curve(np.array([1000.0, 1010.0]), 100.0, 0.8)
    thresh = (s[1] - s[0]) / 10 * (1 + 1e-9)
    assert fit.recommend(rec_thresh=thresh, round_to="none", minimum=0, max_learners=1010) == 1010
    for max_learners in (1009, 1000):
        with pytest.warns(PredstabWarning) as record:
            assert fit.recommend(rec_thresh=thresh, round_to="none", minimum=0,
                                 max_learners=max_learners) is None
        assert str(record[0].message) == (
            f"No recommendation: the fitted curve's gain per learner never falls below {thresh:g} up to "
            f"{max_learners} learners (optRF gives none either).")


def _full_scan_steps(p1, p2, rec_thresh, digits, max_learners):
    """The scan's steps over the whole grid at once (numpy, the code before issue 37 item 6)."""
    grid = np.arange(10, int(max_learners) + 1, 10, dtype=float)
    gain = np.diff(1.0 / (1.0 + (p1 / grid) ** p2)) / 10
    grid, thresh, steps = grid[1:], rec_thresh, []
    while thresh > 0:
        below = gain < thresh
        if not below.any():
            return steps + [(thresh, None, None)]
        first = float(grid[np.argmax(below)])
        rec = float(np.round(first / 10.0 ** -digits) * 10.0 ** -digits)
        steps.append((thresh, first, rec))
        if rec >= p1:
            return steps
        thresh *= 0.1
    return steps


@pytest.mark.parametrize(("p1", "p2", "rec_thresh", "round_to", "max_learners"), [
    (253.0, 0.9, 1e-6, "thousand", 1_000_000),  # flat within the first chunk
    (2.0e5, 0.9, 1e-6, "none", 1_000_000),  # the first flat point far beyond the first chunk
    (5000.0, 3.0, 1e-6, "hundred", 1_000_000),  # the threshold lowered while below p1
    (1.0e6, 0.3, 1e-9, "ten", 1_000_000),  # never flat: every point evaluated
    (100.0, 0.8, 1e-6, "none", 40_970),  # a grid end that is not a chunk end
    (1000.0, -0.5, 1e-6, "none", 2000),  # a decreasing curve
])
def test_lazy_scan_is_the_full_scan(p1, p2, rec_thresh, round_to, max_learners, monkeypatch):
    """Issue 37, item 6: the scan evaluates the curve chunk by chunk until the first flat point
    (each resampled curve of the recommendation interval is scanned twice), with the steps of the
    whole grid's scan exactly; a usual curve, flat within a few thousand learners, costs a few
    thousand points, not 10^5."""
    import predstab.ensembles._twopl as twopl

    digits = {"thousand": -3, "hundred": -2, "ten": -1, "none": 0}[round_to]
    evaluated = []
    original = twopl._curve
    monkeypatch.setattr(twopl, "_curve", lambda n, a, b: evaluated.append(np.size(n)) or original(n, a, b))
    steps = two_pl(p1, p2)._rule_steps(rec_thresh=rec_thresh, round_to=round_to, max_learners=max_learners)
    assert steps == _full_scan_steps(p1, p2, rec_thresh, digits, max_learners)
    if p1 == 253.0:
        assert steps[-1][1] < 40_000 and sum(evaluated) == 4096


def _evaluations(monkeypatch):
    """The sizes of the grid slices the scan evaluates, in order."""
    import predstab.ensembles._twopl as twopl

    evaluated = []
    original = twopl._curve
    monkeypatch.setattr(twopl, "_curve", lambda n, a, b: evaluated.append(np.size(n)) or original(n, a, b))
    return evaluated


@pytest.mark.parametrize(("k", "max_learners"), [
    (4094, 1_000_000),  # the first chunk's last gain (the curve at its 4,096 points)
    (4095, 1_000_000),  # the second chunk's first gain: its left point is the first chunk's last
    (8191, 1_000_000),  # the third chunk's first gain
    (16382, 1_000_000),  # the third chunk's last gain
    (4095, 40_970),  # the grid's last gain, alone in a second chunk (4,097 grid values)
    (8191, 81_930),  # the grid's last gain, alone in a third chunk (8,193 grid values)
])
def test_a_first_flat_point_on_a_chunk_edge_is_the_full_scans(k, max_learners, monkeypatch):
    """The lazy scan's chunk edges (issue 37, item 6): a threshold between gains k - 1 and k of the
    whole grid's scan (computed here in one piece) makes gain k the first below it, at n = 10 (k + 2)
    learners; a threshold equal to gain k is not above it (optRF's ``<``): the next gain, or none
    when k is the grid's last."""
    p1, p2 = 100.0, 0.8  # the gain decreases at every n
    grid = np.arange(10, max_learners + 1, 10, dtype=float)
    gain = np.diff(1.0 / (1.0 + (p1 / grid) ** p2)) / 10
    assert gain[k - 1] > gain[k] and (k + 1 == gain.size or gain[k] > gain[k + 1])
    evaluated = _evaluations(monkeypatch)
    between = float((gain[k - 1] + gain[k]) / 2)
    assert two_pl(p1, p2)._rule_steps(rec_thresh=between, round_to="none", max_learners=max_learners) == [
        (between, 10.0 * (k + 2), 10.0 * (k + 2))]
    assert sum(evaluated) == min(4096 * 2 ** math.ceil(math.log2((k + 2) / 4096)), grid.size)
    at = float(gain[k])
    nxt = None if k + 1 == gain.size else 10.0 * (k + 3)
    assert two_pl(p1, p2)._rule_steps(rec_thresh=at, round_to="none", max_learners=max_learners) == [
        (at, nxt, nxt)]


def test_the_scan_evaluates_4096_points_then_doubles_each_point_once(monkeypatch):
    """A curve never flat up to 10^6 learners: the curve at every one of the 10^5 grid points,
    each once, in chunks of 4,096, 4,096, 8,192, ... (the last one up to the grid's end)."""
    evaluated = _evaluations(monkeypatch)
    steps = two_pl(1.0e6, 0.3)._rule_steps(rec_thresh=1e-9, round_to="ten", max_learners=1_000_000)
    assert steps == [(1e-9, None, None)]
    assert evaluated == [4096, 4096, 8192, 16384, 32768, 100_000 - 65536]
    evaluated.clear()
    assert two_pl(100.0, 0.8)._rule_steps(rec_thresh=1e-15, round_to="none", max_learners=40_970) == [
        (1e-15, None, None)]
    assert evaluated == [4096, 1]


def test_decreasing_or_failed_fit_says_why_there_is_no_recommendation():
    fit = two_pl(1000.0, -0.5)
    with pytest.warns(PredstabWarning) as record:
        assert fit.recommend(max_learners=2000) is None
    assert str(record[0].message) == (
        "No recommendation: the fitted curve does not increase (p2 <= 0 or p1 <= 0).")
    failed = two_pl(float("nan"), float("nan"), converged=False, message="MINPACK said no")
    assert failed._recommend_detail(rec_thresh=1e-6, round_to="none", minimum=0, max_learners=100) == (
        None, "No recommendation: the 2PL fit failed (MINPACK said no).")


def test_curve_flat_before_p1_says_why_there_is_no_recommendation():
    # p1 = 1e-16, p2 = 1: 1 + (p1 / n)^p2 rounds to 1 from n = 10 on, so the curve is exactly 1
    # and every gain 0: below any threshold from the second grid point, n = 20 (optRF's
    # seq(10, max, 10)), which rounds to 0 learners, below p1, however far the threshold is lowered
    fit = two_pl(1e-16, 1.0)
    assert optrf_recommend(1e-16, 1.0, 1e-6, -3, 0, 1000) is None
    with pytest.warns(PredstabWarning) as record:
        assert fit.recommend(rec_thresh=1e-6, round_to="thousand", minimum=0, max_learners=1000) is None
    assert str(record[0].message) == (
        "No recommendation: the fitted gain per learner falls below 1e-06 from 20 learners, which "
        "rounded to the nearest thousand is 0, below the inflection point p1 = 1e-16; lowering the "
        "threshold tenfold (optRF's rule) never moves it past p1, as the curve is flat from there on. "
        "Use a finer rounding (round_to='ten' or 'none').")


@pytest.mark.parametrize("name,value", [("rec_thresh", 0.0), ("rec_thresh", math.inf), ("round_to", "tens"),
                                        ("minimum", -1), ("max_learners", -5)])
def test_recommend_detail_checks_its_options(name, value):
    # _tune calls _recommend_detail directly: it checks the options itself, naming them
    options = dict(rec_thresh=1e-6, round_to="thousand", minimum=500, max_learners=1000)
    options[name] = value
    with pytest.raises(InvalidParameterError, match=f"^`{name}` must"):
        two_pl(300.0, 0.9)._recommend_detail(**options)


def suggested(n_max, p1, p2):
    """The docstring's rule: at least 2 p1, the n where s = 0.8, and n_max, rounded up at the
    second significant digit (but to at least a multiple of 10)."""
    target = max(2 * p1, p1 * 4 ** (1 / p2), n_max)  # s = 0.8 <=> (p1 / n)^p2 = 1/4
    magnitude = 10 ** max(len(str(int(target))) - 2, 1)
    return int(math.ceil(target / magnitude) * magnitude)


@pytest.mark.parametrize("n_max,p1,p2", [(2000.0, 1000.0, 0.5), (500.0, 1000.0, 10.0), (1000.0, 1172.5, 10.0),
                                         (100.0, 117.25, 10.0), (2000.0, 0.5, 0.9)])
def test_suggested_max_follows_its_rule(n_max, p1, p2):
    assert _suggested_max(n_max, p1, p2, True) == suggested(n_max, p1, p2)


def test_suggested_max_literal_values():
    assert _suggested_max(2000.0, 1000.0, 0.5, True) == 16000  # 1000 / 0.25^2
    assert _suggested_max(500.0, 1000.0, 10.0, True) == 2000  # 2 p1
    assert _suggested_max(1000.0, 1172.5, 10.0, True) == 2400  # 2345 up to the hundred
    assert _suggested_max(100.0, 117.25, 10.0, True) == 240  # 234.5 up to the ten


@pytest.mark.parametrize("p1,p2,converged", [(300.0, 0.9, False), (0.0, 0.9, True), (300.0, 0.0, True),
                                             (300.0, -0.5, True), (-3.0, 0.9, True), (np.nan, 0.9, True),
                                             (np.inf, 0.9, True)])
def test_suggested_max_without_a_usable_curve(p1, p2, converged):
    assert _suggested_max(2000.0, p1, p2, converged) == 8000  # four times the grid's maximum


def test_suggested_grid_doubles_up_to_the_maximum():
    assert two_pl(300.0, 0.9, suggested_max=1000).suggested_grid() == (250, 500, 1000)
    assert two_pl(300.0, 0.9, suggested_max=1001).suggested_grid() == (250, 500, 1000, 2000)
    assert two_pl(300.0, 0.9, suggested_max=250).suggested_grid() == (250,)


def test_print_layout_of_a_converged_fit():
    fit = two_pl(253.3, 0.9)
    rss = float(np.sum(fit.residuals**2))
    assert rss == pytest.approx(0.000525, rel=1e-12)
    assert str(fit).splitlines() == [
        "Nonlinear regression model",
        "  model: stability ~ 1/(1 + (p1/n)^p2)",
        "   data: 3 numbers of learners, 250 to 1000",
        "   p1    p2",
        "253.3   0.9",
        " residual sum-of-squares: 0.000525",
        "",
        "Number of function evaluations: 12",
        "Converged: converged",
        "R-squared: 0.97; poor fit: no; flattened within the grid: yes",
    ]
    # the wider of the two numbers sets the column width
    assert str(two_pl(5.0, 0.90215)).splitlines()[3:5] == ["    p1     p2", "     5 0.9022"]
    assert str(two_pl(5.0, 1.0)).splitlines()[3:5] == ["p1 p2", " 5  1"]


def test_print_layout_of_a_failed_fit():
    fit = TwoPL(p1=np.nan, p2=np.nan, converged=False, message="singular gradient", r_squared=np.nan,
                poor_fit=True, flattened=False, suggested_max=8000, n=np.array([10.0, 20.0, 40.0]),
                observed=np.array([0.1, 0.2, 0.3]), fitted=np.full(3, np.nan), residuals=np.full(3, np.nan),
                start=(20.0, 0.5), n_evaluations=3)
    assert str(fit).splitlines() == [
        "Nonlinear regression model",
        "  model: stability ~ 1/(1 + (p1/n)^p2)",
        "   data: 3 numbers of learners, 10 to 40",
        "p1 p2",
        "NA NA",
        " residual sum-of-squares: NA",
        "",
        "Number of function evaluations: 3",
        "Not converged: singular gradient",
        "R-squared: NA; poor fit: yes; flattened within the grid: no",
    ]


def test_input_errors_name_the_argument():
    with pytest.raises(InvalidParameterError, match="^`n` must be a 1-D sequence"):
        fit_2pl(["a", 2, 3], [0.1, 0.2, 0.3])
    with pytest.raises(InvalidParameterError, match="^`stability` must be a 1-D sequence"):
        fit_2pl([1, 2, 3], ["a", 0.2, 0.3])
    with pytest.raises(ValueError) as info:
        fit_2pl([[100, 200, 300]], [0.1, 0.2, 0.3])
    assert str(info.value) == "`n` and `stability` must be 1-D; got shapes (1, 3) and (3,)."
    with pytest.raises(ValueError) as info:
        fit_2pl([100, 200, 300], [[0.1, 0.2, 0.3]])
    assert str(info.value) == "`n` and `stability` must be 1-D; got shapes (3,) and (1, 3)."


def test_masked_points_and_swapped_arguments_are_refused():
    # found by the walk (issue 32): fit_2pl read the number under a mask (p1 6.665 instead of 3 here)
    # and fitted n and stability swapped (stability 1..50) without a word
    n = np.array([1, 2, 5, 10, 20, 50])
    curve = 1 - 1 / (1 + n / 3)  # the 2PL curve with p1 = 3, p2 = 1
    spoiled = curve.copy()
    spoiled[2] = 0.01
    with pytest.raises(ValueError, match=r"^`stability` has 1 masked value\(s\): a masked value is a missing "
                                         r"value"):
        fit_2pl(n, np.ma.masked_array(spoiled, mask=[0, 0, 1, 0, 0, 0]))
    with pytest.raises(ValueError, match=r"^`n` has 1 masked value"):
        fit_2pl(np.ma.masked_array(n, mask=[1, 0, 0, 0, 0, 0]), curve)
    kept = fit_2pl(np.delete(n, 2), np.delete(curve, 2))
    assert (kept.p1, kept.p2) == pytest.approx((3.0, 1.0), rel=1e-6)
    assert fit_2pl(np.ma.masked_array(n, mask=False), curve).p1 == pytest.approx(3.0, rel=1e-6)
    message = (r"^`stability` must hold stabilities \(at most 1, estimates a little above it\); got 2 at "
               r"position 1\. Are `n` and `stability` swapped\? fit_2pl\(n, stability\)\.$")
    with pytest.raises(ValueError, match=message):
        fit_2pl(curve, n)
    assert fit_2pl(n, np.minimum(curve * 1.3, 1.0)).converged  # a curve reaching 1 is a curve
    # estimates a little above 1 (noise around a flat curve) are points of a curve, not an error
    noisy = fit_2pl(n, np.minimum(curve * 1.3, 1.0) + np.array([0, 0, 0, 0.004, -0.002, 0.0077]))
    assert noisy.converged and noisy.stability(1e6) == pytest.approx(1.0, abs=0.01)
    with pytest.raises(ValueError, match=r"got 1\.6 at position 5"):
        fit_2pl(n, np.r_[curve[:5], 1.6])
