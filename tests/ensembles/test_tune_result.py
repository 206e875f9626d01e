"""The TuningResult: printed line by line, written as plain JSON of its fields, equal without
its timings, the result convention, the run-time model and the per-object plot.
"""

import dataclasses
import time
import types

import numpy as np
import pandas as pd
import pytest

import predstab.ensembles._tune_strategies as strategies
from tests.ensembles._tuning import (
    ESTIMATOR_TEXT,
    GRID32,
    _Clock,
    _quiet50,
    _tune,
)

# the independent computations measure few forests (PredstabDataWarning: fewer than 5)
pytestmark = pytest.mark.filterwarnings("ignore::predstab.PredstabDataWarning")


# ------------------------------------------------------------------------- the printed and written result
def _pool_result(monkeypatch, **kwargs):
    monkeypatch.setattr(time, "perf_counter", _Clock([1.5]))
    try:
        return _tune(method="pool", pool_size=24, measures=("icc", "psi"), n_resamples=10, **kwargs)
    finally:
        monkeypatch.undo()


def test_printed_result_line_by_line(monkeypatch):
    from predstab._core._results import r_signif

    res = _pool_result(monkeypatch)
    table = res.table
    icc_rec, psi_rec = res.recommendations["icc"], res.recommendations["psi"]
    assert icc_rec.rule == "optRF" and icc_rec.beyond_grid and res.recommendation == icc_rec.value
    fits = pd.DataFrame([{"measure": m, "p1": r_signif(res.fits[m].p1), "p2": r_signif(res.fits[m].p2),
                          "R^2": r_signif(res.fits[m].r_squared), "recommended": str(r.value), "rule": r.rule,
                          "unrounded": f"{r.unrounded:.0f}", "n for 0.95": str(r.n_for_target)}
                         for m, r in (("icc", icc_rec), ("psi", psi_rec))])
    bands = pd.DataFrame({"n_learners": table["n_learners"]})
    for m in ("icc", "psi"):
        bands[m] = [f"{lo:.4f} to {hi:.4f}"
                    for lo, hi in zip(table[f"{m}_low"], table[f"{m}_high"], strict=True)]
    shown = table[["n_learners", "icc", "psi"]].to_string(index=False, float_format="%.4f")
    value, unrounded = icc_rec.value, icc_rec.unrounded
    explain = (f"icc: {value} learners by optRF 1.2.1's rule (fitted gain per added learner below 1e-06 from "
               f"{unrounded:.0f} learners; rounded to the nearest thousand, at least 500); beyond the grid: "
               f"{value / 8:.3g} x its largest value 8 (an extrapolation of the fitted curve)")
    assert icc_rec.explain() == explain
    low, high = res.confidence_interval
    u_low, u_high = res.unrounded_interval
    expected = [
        " Stability against the number of learners (method pool; a pool of 24 learners)", "",
        f" Estimator: {ESTIMATOR_TEXT}", " 3 forests per grid value; scale metric",
        f" psi baseline: {res.psi_baseline}", "",
        *(" " + line for line in shown.splitlines()), "",
        " 95% bootstrap bands (test objects resampled, the forests held fixed):",
        *("  " + line for line in bands.to_string(index=False).splitlines()), "",
        " 2PL fits, stability(n) = 1 / (1 + (p1 / n)^p2), and each measure's recommendation:",
        *("  " + line for line in fits.to_string(index=False).splitlines()),
        " optRF 1.2.1's rule: the first n whose fitted gain in stability per added learner is below "
        "rec_thresh = "
        "1e-06, rounded to the nearest thousand, at least 500.",
        f"  note (psi): {psi_rec.note}", "",
        f" Recommendation: {value} learners -- {explain}.",
        f"  95% bootstrap interval: {low:g} to {high:g} learners, width {high - low:g} (unrounded "
        f"{unrounded:.0f}: {u_low:.0f} to {u_high:.0f}, width {u_high - u_low:.0f}; {res.interval_covers})",
        f" {res.n_for_target} learners reach icc = 0.95 on the fitted curve",
        f" Run time: seconds per forest ~ 0 + 0.0625 * learners; {value} learners: about {value / 16:.3g} "
        f"s per "
        "forest",
    ]
    assert str(res).splitlines() == expected
    assert psi_rec.note == (f"beyond the grid: {psi_rec.value} is {psi_rec.value / 8:.3g} x the largest grid "
                            "value 8 (an extrapolation of the fitted curve)")


def low_of(res):
    return res.confidence_interval.low


def test_written_result_is_plain_json_of_the_fields(monkeypatch):
    import json

    res = _pool_result(monkeypatch)
    out = json.loads(json.dumps(res.to_dict()))  # JSON-ready
    table = {c: [None if isinstance(v, float) and np.isnan(v) else v for v in res.table[c].tolist()]
             for c in res.table.columns}
    assert out["table"] == table
    assert {k: out[k] for k in ("method", "primary", "recommendation", "reliable", "message", "target",
                                "n_for_target", "pool_size", "psi_baseline", "notes")} == {
        "method": "pool", "primary": "icc", "recommendation": res.recommendation, "reliable": res.reliable,
        "message": res.message, "target": 0.95, "n_for_target": res.n_for_target, "pool_size": 24,
        "psi_baseline": res.psi_baseline, "notes": []}
    assert out["recommendation_interval"] == {
        "low": res.confidence_interval.low, "high": res.confidence_interval.high,
        "unrounded_low": res.unrounded_interval.low, "unrounded_high": res.unrounded_interval.high,
        "confidence_level": 0.95, "covers": res.interval_covers}
    assert out["runtime"] == {"intercept_seconds": pytest.approx(0.0, abs=1e-12),
                              "seconds_per_learner": pytest.approx(0.0625, rel=1e-12),
                              "recommended_seconds_per_forest": pytest.approx(res.recommendation / 16,
                                                                              rel=1e-9)}
    for m, fit in res.fits.items():
        assert out["fits"][m] == {"p1": fit.p1, "p2": fit.p2, "r_squared": fit.r_squared, "converged": True,
                                  "poor_fit": fit.poor_fit, "flattened": fit.flattened,
                                  "message": fit.message, "suggested_max": fit.suggested_max}
        rec = res.recommendations[m]
        assert out["recommendations"][m] == {
            "measure": m, "value": rec.value, "unrounded": rec.unrounded, "rule": "optRF", "rec_thresh": 1e-6,
            "round_to": "thousand", "minimum": 500, "n_for_target": rec.n_for_target, "target": 0.95,
            "grid_max": 8, "beyond_grid": rec.beyond_grid, "expected_stability": rec.expected_stability,
            "note": rec.note, "steps": [list(step) for step in rec.steps], "p1": fit.p1, "unit": "learners"}
    assert out["settings"] == json.loads(json.dumps(res.settings))
    largest = out["largest_forest"]
    assert largest["n_learners"] == 8 and largest["psi"]["value"] == res.largest_psi.value
    assert largest["phi"] is None  # phi was not asked for
    assert largest["psi"]["per_object"] == np.asarray(res.largest_psi.per_object, dtype=float).tolist()
    assert (largest["psi"]["observed"], largest["psi"]["expected"]) == (res.largest_psi.observed,
                                                                       res.largest_psi.expected)
    # NaN becomes None, numpy scalars plain numbers
    res2 = _tune(method="refit", measures=("icc",))
    out2 = res2.to_dict()
    assert out2["recommendation_interval"]["low"] is None and out2["pool_size"] is None
    assert type(out2["table"]["n_forests"][0]) is int and type(out2["fits"]["icc"]["converged"]) is bool
    assert out2["largest_forest"] == {"n_learners": 8, "phi": None, "psi": None}
    if res2.recommendation is None:
        assert out2["runtime"]["recommended_seconds_per_forest"] is None
    frame = res.to_frame()
    assert frame.loc[0, "recommendation"] == res.recommendation and frame.loc[0, "ci_low"] == low_of(res)


def test_equality_leaves_out_the_timings(monkeypatch):
    import dataclasses

    a = _tune(method="refit", measures=("icc", "phi"))
    monkeypatch.setattr(strategies, "time", types.SimpleNamespace(perf_counter=_Clock([3.0])))
    b = _tune(method="refit", measures=("icc", "phi"))
    monkeypatch.undo()
    assert not a.table["seconds"].equals(b.table["seconds"]) and a.runtime != b.runtime
    assert a == b and (a == 3) is False
    assert a != dataclasses.replace(b, recommendation=-1)
    changed = b.table.copy()
    changed.loc[0, "icc"] += 1e-9
    assert a != dataclasses.replace(b, table=changed)
    fits = dict(b.fits)
    fits["phi"] = dataclasses.replace(fits["phi"], p1=fits["phi"].p1 + 1e-9)
    assert a != dataclasses.replace(b, fits=fits)  # fits compared field by field
    assert a != dataclasses.replace(b, largest_phi=None)


# ----------------------------------------------------------------------------------------- result
def test_result_convention():
    res = _quiet50(method="closed_form", measures=("icc", "phi"), pool_size=64)
    again = _quiet50(method="closed_form", measures=("icc", "phi"), pool_size=64)
    assert len(repr(res)) < 300 and repr(res).startswith("TuningResult(primary='icc'")
    # == compares the numbers, not the measured run time (the table's seconds, runtime)
    assert res == res and res == again
    timed = res.table.assign(seconds=res.table["seconds"] + 1.0)
    assert dataclasses.replace(res, table=timed, runtime=(9.0, 9.0)) == res
    changed = res.table.assign(icc=res.table["icc"] + 1e-9)
    assert dataclasses.replace(res, table=changed) != res
    assert res != _quiet50(method="closed_form", measures=("icc",), pool_size=64)
    frame = res.to_frame()
    assert len(frame) == 1 and frame.loc[0, "recommendation"] == res.recommendation
    assert {"ci_low", "ci_high"} <= set(frame.columns)
    text = str(res)
    for n in GRID32:
        assert any(line.split()[:1] == [str(n)] for line in text.splitlines())  # a table row per n
    assert f"icc {res.fits['icc'].p1:.4g}" in " ".join(text.split())


def test_refit_result_prints_its_run_time_model(monkeypatch):
    clock = _Clock([1.0, 0.5, 1.0, 0.25])  # fits of 0.5 and 0.25 s, in turn
    monkeypatch.setattr(strategies, "time", types.SimpleNamespace(perf_counter=clock))
    res = _tune(method="refit", measures=("icc",), grid=(2, 4, 8), n_repeats=2)
    lines = str(res).splitlines()
    assert lines[0] == " Stability against the number of learners (method refit)"
    assert " 2 forests per grid value; scale metric" in lines
    intercept, slope = res.runtime
    assert (intercept, slope) == pytest.approx((0.375, 0.0), abs=1e-12)  # 0.5 and 0.25 s per forest
    at = "" if res.recommendation is None else (
        f"; {res.recommendation} learners: about {res.recommendation_seconds:.3g} s per forest")
    assert lines[-1] == f" Run time: seconds per forest ~ 0.375 + {slope:.4g} * learners{at}"


def test_result_without_recommendation_prints_no_forest_time(monkeypatch):
    import dataclasses

    clock = _Clock([1.0, 0.5])
    monkeypatch.setattr(strategies, "time", types.SimpleNamespace(perf_counter=clock))
    res = dataclasses.replace(_tune(method="refit", measures=("icc",), n_repeats=2), recommendation=None)
    assert np.isnan(res.recommendation_seconds)
    last = str(res).splitlines()[-1]
    assert last == f" Run time: seconds per forest ~ 0.5 + {res.runtime[1]:.4g} * learners"


def test_per_object_plot_labels_no_object_that_is_perfectly_stable():
    from predstab import _demo

    rng = np.random.default_rng(0)
    Xf = np.vstack([rng.normal(0, 1, (40, 3)), rng.normal(12, 1, (40, 3))])
    yf = np.repeat(["a", "b"], 40).astype(object)
    job = _demo.TuneJob(task="classification", X=Xf[::2], y=yf[::2], X_test=Xf[1::2], y_test=yf[1::2],
                        grid=[5, 10, 20], n_repeats=3, n_resamples=0, title="blobs")
    res = _demo.compute(job)
    assert np.all(np.asarray(res.largest_psi.per_object) == 1)
    _, per_object = _demo._figures(res, job)
    assert [t.get_text() for t in per_object.axes[0].texts] == []


# ------------------------------------------------------------------------- a pool of members, its words
def test_members_wording_line_by_line():
    from predstab.ensembles._tune_result import members_wording

    cases = {
        " Recommendation: 20 learners (a learner more)": " Recommendation: 20 members (a member more)",
        "  1 learners recommended": "  1 member recommended",
        "  11 learners": "  11 members",
        # the API's names stay: n_learners, "learners+objects", quoted options, a compound word
        "  n_learners = 5; 'learners' and \"learners\"": "  n_learners = 5; 'learners' and \"learners\"",
        "  method learners+objects": "  method learners+objects",
        "  Learners at start": "  Learners at start",
        "  learnersX": "  learnersX",
    }
    for line, words in cases.items():
        assert members_wording(line) == words, line
    grid = "  A grid up to about 40 learners would resolve it."
    assert members_wording(grid) == "  A grid up to about 40 members would resolve it."
    # the metric closed form (factor 0) gives the curve at any number from the pool as it is
    assert members_wording(grid, 10) == ("  A grid up to about 40 members would resolve it (the closed form "
                                         "gives the curve there from the 10 members the pool holds: no "
                                         "training needed).")
    # the pool method needs two disjoint groups (factor 2), class closed forms 10 x N
    assert members_wording(grid, 10, 2) == (
        "  A grid up to about 40 members would resolve it (the pool holds "
        "10: train more members first, about 80 for two disjoint groups).")
    assert members_wording(grid, 40) == "  A grid up to about 40 members would resolve it."
    assert members_wording(grid, 80, 2) == "  A grid up to about 40 members would resolve it."
    assert members_wording("a grid up to about 41 members would resolve it", 40, 2) == (
        "a grid up to about 41 members would resolve it (the pool holds 40: train more members first, "
        "about 82 for two disjoint groups)")
    said = "A grid up to about 40 members would resolve it (the pool holds 10: train more members first)"
    assert members_wording(said, 10, 2) == said  # not said twice
    from predstab.ensembles._recommendation_interval import LEARNER_OBJECT_COVERS

    assert members_wording(f"  Interval covers {LEARNER_OBJECT_COVERS}.") == (
        "  Interval covers test objects and the pool's members resampled together: the sampling of the test "
        "objects and the error from the pool's finite number of members (interval=\"learners+objects\"; "
        "the bands resample the members only). Its coverage was measured on random forests only "
        "(docs/benchmarks/coverage-tuning.md), not on pools of members.")
    assert members_wording(". Measured coverage of optRF's recommendation x (docs/coverage-tuning.md) y") == (
        ". Its coverage was measured on random forests only (docs/benchmarks/coverage-tuning.md), not on "
        "pools of members y")


def test_members_block_says_how_many_members_to_train():
    from predstab.ensembles._tune_result import _as_members

    lines = [" Tuning", " Recommendation: 8 learners", "  next learners"]
    for pool_size, recommendation, added in [
            (5, 8, ["  The pool holds 5 members: train 3 more to reach 8."]),
            (1, 8, ["  The pool holds 1 member: train 7 more to reach 8."]),
            (8, 8, ["  The pool holds 8 members: enough."]),
            (10, 8, ["  The pool holds 10 members: enough."]),
            (10, None, []), (None, 8, [])]:
        res = types.SimpleNamespace(pool_size=pool_size, recommendation=recommendation, method="closed_form",
                                    settings={})
        assert _as_members(lines, res) == [" Tuning", " Recommendation: 8 members", *added, "  next members"]
    res = types.SimpleNamespace(pool_size=5, recommendation=8, method="closed_form", settings={})
    assert _as_members(["  Recommendation: 8 learners"], res) == ["  Recommendation: 8 members"]


def test_a_pool_of_members_prints_that_its_run_time_is_not_known():
    import warnings

    from predstab import TreePool, tune_num_learners

    rng = np.random.default_rng(2)
    pool = TreePool.from_predictions(rng.normal(size=(30, 1)) + rng.normal(size=(30, 12)), random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = tune_num_learners(pool, method="closed_form", grid=(1, 2, 3), measures=("icc",), n_resamples=0)
    assert " Run time: not known (a pool built from its members' predictions)" in str(res).splitlines()
