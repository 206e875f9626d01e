"""optRF: 2PL fits (minpack.lm::nlsLM), recommendations and estimate_numtrees of optRF 1.2.1.

Sources: classic/expected/optRF_2pl.json (9 fits), aps/expected/aps_maize.json (fits of the
ranger curves), optrf/expected/optRF_runs.json and optRF_importance.json (complete optRF runs
on the SNP data; predstab starts from each run's result table).
"""

from predstab.ensembles._tune_result import runtime_model
from predstab.ensembles._twopl import fit_2pl

from .._table import exact, load_json, rel

SUITE = "optrf"
FIT_RTOL = 1e-6  # nlsLM stops at sqrt(eps) relative reduction; both sides agree to ~1e-8 here


def _fit_rows(case, n, stability, r_p1, r_p2, note=""):
    fit = fit_2pl(n, stability)
    yield exact(SUITE, case, "fit succeeded", r_p1 is not None, fit.converged)
    if r_p1 is not None:
        yield rel(SUITE, case, "p1", r_p1, fit.p1, rtol=FIT_RTOL, note=note)
        yield rel(SUITE, case, "p2", r_p2, fit.p2, rtol=FIT_RTOL, note=note)


def _classic():
    for case, d in load_json("classic", "expected", "optRF_2pl.json").items():
        yield from _fit_rows(f"2pl {case}", d["n"], d["stability"], d.get("p1"), d.get("p2"))


def _maize():
    maize = load_json("aps", "expected", "aps_maize.json")
    for curve, prefix, measures in (("curve", "twopl_", ("phi", "psi", "icc_oneway")),
                                    ("curve_categorical", "twopl_categorical_", ("phi", "psi", "fleiss"))):
        points = maize[curve]
        n = [p["num_trees"] for p in points]
        for measure in measures:
            stability = [p[measure] for p in points]
            ref = maize[prefix + measure]
            fit = fit_2pl(n, stability)
            case = f"maize {curve} {measure}"
            # the non-monotone psi-OOB curves and the near-zero Fleiss curve: predstab matches
            # R's parameters and flags them (R^2 < 0.9); R reports no fit quality
            poor = measure in ("psi", "fleiss")
            note = f"R^2 = {fit.r_squared:.3f}" + (": predstab flags this fit as poor" if poor else "")
            yield from _fit_rows(case, n, stability, ref["p1"], ref["p2"], note=note)
            yield exact(SUITE, case, "poor_fit flag", poor, fit.poor_fit,
                        note="expected by predstab's rule (R^2 < 0.9); R has no such flag")


def _runs():
    runs = load_json("optrf", "expected", "optRF_runs.json")
    for name, run in runs.items():
        table = run["result_table"]
        n = [row["num.trees_values"] for row in table]
        seconds = [row["computation_time"] for row in table]
        fits = {}
        for row_name, column in (("Prediction_stability", "pred_stability"),
                                 ("Selection_stability", "selection_stability")):
            ref = next(p for p in run["model_parameters"] if p["_row"] == row_name)
            fits[row_name] = fit_2pl(n, [row[column] for row in table])
            yield from _fit_rows(f"{name} {row_name}", n, [row[column] for row in table],
                                 ref["Inflection_point"], ref["Slope"])
        pred = fits["Prediction_stability"]
        rec = pred.recommend()
        yield exact(SUITE, name, "recommendation", run["recommendation"], rec)
        intercept, slope = runtime_model(n, seconds)
        expected = {e["_row"]: e["Value"] for e in run["expected_RF_stability"]}
        yield rel(SUITE, name, "expected Prediction_stability", expected["Prediction_stability"],
                  pred.stability(rec), rtol=FIT_RTOL)
        yield rel(SUITE, name, "expected Selection_stability", expected["Selection_stability"],
                  fits["Selection_stability"].stability(rec), rtol=FIT_RTOL)
        yield rel(SUITE, name, "expected Computation_time", expected["Computation_time"],
                  intercept + slope * rec, rtol=1e-9)
        for est in run["estimate_numtrees"]:
            s = est["prediction_stability"]
            yield exact(SUITE, name, f"estimate_numtrees({s})", est["opt_numtrees"],
                        int(pred.num_learners_for(s)))
            raw = pred.p1 / (1 / s - 1) ** (1 / pred.p2)
            yield rel(SUITE, name, f"time for stability {s}", est["computation_time"],
                      intercept + slope * raw, rtol=FIT_RTOL)


def _importance():
    ref = load_json("optrf", "expected", "optRF_importance.json")
    table = ref["result_table"]
    n = [row["num.trees_values"] for row in table]
    for column in ("VI_stability", "selection_stability"):
        fit = fit_2pl(n, [row[column] for row in table])
        case = f"opt_importance {column}"
        # optRF 1.2.1 returns no model with a 4-point grid (nlsLM takes the 4-column result
        # table for a data variable); predstab fits the curve and says it has not flattened
        yield exact(SUITE, case, "curve flattened", False, fit.flattened,
                    note=f"R: no 2PL, no recommendation; predstab p1 = {fit.p1:.0f}, p2 = {fit.p2:.2f}, "
                         f"s({max(n)}) = {fit.stability(max(n)):.2f}; suggested grid up to "
                         f"{fit.suggested_max}")


def rows():
    yield from _classic()
    yield from _maize()
    yield from _runs()
    yield from _importance()
