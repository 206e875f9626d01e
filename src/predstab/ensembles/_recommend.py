"""optRF's recommendation from a fitted 2PL curve, for every measure of the tuning.

Each measure's curve gets its 2PL fit (on its finite, non-degenerate points) and a
:class:`Recommendation`: by optRF 1.2.1's rule (trees: the first n whose fitted gain per added
learner is negligible) or by the target rule (members that cost a training run each: the
smallest n whose fitted stability reaches ``target``) when the fit is trusted, "already stable"
for a flat curve, or none with the reason; the primary measure's problems become the result's
message.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._core._exceptions import PredstabWarning
from ._closed_form_result import floored_icc_text
from ._tune_result import Recommendation
from ._twopl import TwoPL, fit_2pl

MINIMUM = 500  # optRF's floor for recommendations
MAX_LEARNERS = 1_000_000  # end of optRF's scan
RULES = ("optRF", "target")


@dataclass(frozen=True)
class Rule:
    """How a fitted curve becomes a number of learners: ``name`` "optRF" (optRF 1.2.1's scan
    with ``rec_thresh``, rounded as ``round_to`` says, at least 500) or "target" (the smallest
    whole n whose fitted stability reaches ``target``, at least 1, not rounded)."""

    name: str
    target: float
    rec_thresh: float
    round_to: str

    @property
    def minimum(self):
        return MINIMUM if self.name == "optRF" else 1


def _failed_fit(n, values, reason):
    n = np.asarray(n, dtype=float)
    values = np.asarray(values, dtype=float)
    nan = np.full(n.shape, np.nan)
    return TwoPL(p1=float("nan"), p2=float("nan"), converged=False, message=reason,
                 r_squared=float("nan"), poor_fit=True, flattened=False,
                 suggested_max=int(4 * n.max()) if n.size else 0, n=n, observed=values, fitted=nan,
                 residuals=nan, start=(float("nan"), float("nan")), n_evaluations=0)


def _fit(n, values, usable):
    if usable.sum() < 3:
        return _failed_fit(n, values,
                           f"fewer than 3 usable grid points ({int(usable.sum())} of {len(n)})")
    return fit_2pl(n[usable], values[usable])


def _optrf_rule(fit, rec_thresh, round_to, minimum):
    """``(value, reason)`` of optRF 1.2.1's rule (TwoPL.recommend; its warning becomes the reason)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", PredstabWarning)
        value = fit.recommend(rec_thresh=rec_thresh, round_to=round_to, minimum=minimum,
                              max_learners=MAX_LEARNERS)
    reason = str(caught[-1].message) if value is None and caught else ""
    return value, reason


def _target_rule(fit, target):
    """``(value, unrounded, reason)``: the smallest whole n whose fitted stability reaches
    ``target`` (at least 1), from a converged fit."""
    if not fit.converged:
        return None, None, f"the 2PL fit failed ({fit.message})"
    n_t = float(fit._learners_at(target))  # optRF's estimate_numtrees, unrounded
    if not np.isfinite(n_t) or n_t < 0:
        return None, None, f"the fitted curve does not reach target = {target:g}"
    return max(1, math.ceil(n_t)), n_t, ""


def apply_rule(fit, rule):
    """``(value, unrounded, reason)`` of ``rule`` (a :class:`Rule`) on a fitted curve, None and
    why where it gives none: what the recommendation and each resample of its interval use."""
    if rule.name == "target":
        return _target_rule(fit, rule.target)
    value, reason = _optrf_rule(fit, rule.rec_thresh, rule.round_to, MINIMUM)
    unrounded, _ = _optrf_rule(fit, rule.rec_thresh, "none", 0)
    return value, unrounded, reason


def _already_stable(n, values, target):
    """The smallest grid value from which the observed curve stays at or above ``target``."""
    ok = np.isfinite(values) & (values >= target)
    if not ok.size or not ok[-1]:
        return None
    first = len(ok) - np.argmin(ok[::-1]) if not ok.all() else 0
    return int(n[first])


def _recommend(measure, fit, n, values, grid_max, how):
    """``measure``'s :class:`Recommendation` by the rule ``how`` (a :class:`Rule`)."""
    target, rec_thresh, round_to = how.target, how.rec_thresh, how.round_to
    value, unrounded, reason = apply_rule(fit, how)
    steps = ()
    if how.name == "optRF" and value is not None and fit.converged:
        steps = tuple(fit._rule_steps(rec_thresh=rec_thresh, round_to=round_to, max_learners=MAX_LEARNERS))
    # the curve's n for target only from a trusted fit (a poor one, e.g. of icc = -1 everywhere,
    # reaches any target somewhere)
    n_t = fit.num_learners_for(target) if fit.converged and not fit.poor_fit else -1
    rule, note = (how.name if value is not None else "none"), reason
    # the target rule needs no flat curve when the target is reached within the grid
    needs_flat = how.name == "optRF" or value is None or value > grid_max
    if fit.converged and fit.poor_fit:
        note = (f"the 2PL fits poorly (R^2 = {fit.r_squared:.2f}); "
                f"{'optRF' if how.name == 'optRF' else 'the target rule'}'s number is not trusted")
    elif fit.converged and not fit.flattened and needs_flat:
        grid = fit.suggested_grid()
        note = (f"the curve has not flattened within the grid (fitted stability "
                f"{fit.stability(grid_max):.2f} at {grid_max} learners); a grid up to about "
                f"{grid[-1]} learners would resolve it, e.g. {grid}")
    if not fit.converged or fit.poor_fit:
        flat = _already_stable(np.asarray(n), np.asarray(values, dtype=float), target)
        if flat is not None:
            value, rule, unrounded, steps = flat, "already stable", None, ()
            why = "the 2PL fit failed" if not fit.converged else "the 2PL fits poorly"
            note = (f"already stable: {measure} >= {target:g} at every grid value from {flat} learners on "
                    f"({why} on a flat curve); no larger grid is needed")
            n_t = flat
    if rule in RULES and value > grid_max and not note:
        note = (f"beyond the grid: {value} is {value / grid_max:.3g} x the largest grid value {grid_max} "
                "(an extrapolation of the fitted curve)")
    expected = float(fit.stability(value)) if value is not None and fit.converged else float("nan")
    return Recommendation(
        measure=measure, value=None if value is None else int(value),
        unrounded=None if unrounded is None else float(unrounded), rule=rule, rec_thresh=float(rec_thresh),
        round_to=round_to, minimum=how.minimum, n_for_target=None if n_t is None or n_t < 0 else int(n_t),
        target=float(target), grid_max=grid_max, beyond_grid=bool(value is not None and value > grid_max),
        expected_stability=expected, note=note, steps=steps, p1=float(fit.p1))


def _floored_recommendation(measure, n, values, single_icc, how, grid_max):
    """``(fit, recommendation)`` of an ICC(1) curve floored at 0 at every ``n`` (its between-object
    variance estimate below 0, ``single_icc`` the ICC(1) of one learner without the floor): no 2PL
    is fitted and no number of learners is recommended, whatever the grid."""
    note = (f"{floored_icc_text(single_icc)}; no number of learners reaches {measure} = {how.target:g}, "
            "and no larger grid would change that")
    fit = _failed_fit(n, values, "curve floored at 0")
    return fit, Recommendation(
        measure=measure, value=None, unrounded=None, rule="none", rec_thresh=float(how.rec_thresh),
        round_to=how.round_to, minimum=how.minimum, n_for_target=None, target=float(how.target),
        grid_max=grid_max, beyond_grid=False, expected_stability=float("nan"), note=note, steps=(),
        p1=float("nan"))


def _primary_message(primary, fit, rec, grid, excluded, floored=()):
    """``(problems, message)`` about the primary measure's recommendation. A curve that has not
    flattened is a problem for optRF's rule, and for the target rule only when the target lies
    beyond the grid (or is not reached). A curve floored at 0 (``primary in floored``) gets no
    grid advice: no grid would raise it."""
    if rec.rule == "already stable":
        return [], f"{primary}: {rec.note}."
    if primary in floored:
        return [rec.note], f"{primary}: {rec.note}."
    if excluded and (not fit.converged or fit.poor_fit):
        how = "failed" if not fit.converged else "is poor"
        problems = [f"the 2PL fit {how} on the points left after its "
                    f"degenerate ones (n = {', '.join(map(str, excluded))}; see notes)"]
        return problems, f"{primary}: {problems[0]}."
    problems = []
    if not fit.converged:
        problems.append(f"the 2PL fit failed ({fit.message})")
    else:
        if fit.poor_fit:
            problems.append(f"the 2PL fits poorly (R^2 = {fit.r_squared:.2f}); do not trust it")
        if not fit.flattened and (rec.rule != "target" or rec.value is None or rec.beyond_grid):
            problems.append(
                "the curve has not flattened within the grid (fitted stability "
                f"{fit.stability(max(grid)):.2f} at {max(grid)} learners, inflection point p1 = {fit.p1:.0f})"
            )
    if not problems:
        return [], ""
    suggested = fit.suggested_grid()  # the advice quotes the grid it gives, end included
    return problems, (f"{primary}: " + "; ".join(problems) + ". A grid up to about "
                      f"{suggested[-1]} learners would resolve it, e.g. {suggested}.")



def _fits_and_recommendations(table, measures, how, floored=None):
    """Each measure's 2PL fit (finite, non-degenerate points) and recommendation by the rule
    ``how`` (a :class:`Rule`); the ICC(1) curves floored at 0 (``floored``: ``{measure: ICC(1) of
    one learner without the floor}``) get none (:func:`_floored_recommendation`)."""
    n = table["n_learners"].to_numpy(dtype=float)
    fits, recs = {}, {}
    for m in measures:
        curve = table[m].to_numpy(dtype=float)
        if m in (floored or {}):
            fits[m], recs[m] = _floored_recommendation(m, n, curve, floored[m], how, int(n.max()))
            continue
        flagged = np.array([m in d.split(",") for d in table["degenerate"]], dtype=bool)
        usable = np.isfinite(curve) & ~flagged
        fits[m] = _fit(n, curve, usable)
        recs[m] = _recommend(m, fits[m], n[usable], curve[usable], int(n.max()), how)
    return fits, recs



def _summary_frame(fits, recs):
    return pd.DataFrame([{
        "measure": m, "p1": fits[m].p1, "p2": fits[m].p2, "r_squared": fits[m].r_squared,
        "poor_fit": fits[m].poor_fit, "flattened": fits[m].flattened, "recommended": r.value,
        "rule": r.rule, "unrounded": r.unrounded, "n_for_target": r.n_for_target,
        "beyond_grid": r.beyond_grid, "suggested_max": fits[m].suggested_max, "note": r.note}
        for m, r in recs.items()]).set_index("measure")

