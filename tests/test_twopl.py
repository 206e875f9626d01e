"""fit_2pl / TwoPL against minpack.lm::nlsLM fits and optRF 1.2.1's recommendation rule."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from predstab import PredstabWarning, fit_2pl
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
