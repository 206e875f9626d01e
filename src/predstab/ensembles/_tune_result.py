"""The results of :func:`predstab.tune_num_learners`: :class:`TuningResult` (everything
``predstab tune`` prints and writes) and each measure's :class:`Recommendation`; and the run-time
model of fitting a forest."""

from __future__ import annotations

import dataclasses
import re
from numbers import Real

import numpy as np
import pandas as pd

from .._core._results import Result, _equal, r_signif, result
from .._core._utils import ConfidenceInterval
from .._core._validation import validate_params
from ._closed_form_result import BAND_COVERS
from ._tune_config import CLASS_POOL_FACTOR
from ._tune_config import POOL_RULE as _POOL_RULE
from ._tune_config import ROUNDING as _ROUNDING

__all__ = ["TuningResult", "Recommendation", "runtime_model"]


def runtime_model(n, seconds, /):
    """Least-squares line ``seconds = intercept + slope * n`` (optRF's ``lm(time ~ n)``).

    Parameters
    ----------
    n, seconds : array-like of shape (n_points,)
        Numbers of learners and seconds per fit.

    Returns
    -------
    tuple of float
        ``(intercept, slope)``.

    Examples
    --------
    >>> intercept, slope = runtime_model([100, 200, 300], [1.0, 2.0, 3.0])
    >>> round(intercept, 12) + 0.0, round(slope, 12)
    (0.0, 0.01)
    """
    n = np.asarray(n, dtype=float)
    seconds = np.asarray(seconds, dtype=float)
    if not np.all(np.isfinite(seconds)):  # a pool built from predictions: no fitting time known
        return float("nan"), float("nan")
    design = np.column_stack([np.ones_like(n), n])
    (intercept, slope), *_ = np.linalg.lstsq(design, seconds, rcond=None)
    return float(intercept), float(slope)



# ----------------------------------------------------------------------------------------
# results
# ----------------------------------------------------------------------------------------
@result
class Recommendation(Result):
    """One measure's recommended number of learners (a field of :class:`TuningResult`).

    Attributes
    ----------
    measure : str
    value : int or None
        optRF 1.2.1's recommendation (``rule="optRF"``): the first ``n`` (scanned in steps of
        10 up to 1,000,000) whose fitted gain in stability per added learner is below
        ``rec_thresh``, rounded as ``round_to`` says, at least ``minimum``; the target's
        (``rule="target"``): the smallest whole ``n`` whose fitted stability reaches
        ``target``; or, for an already flat curve (``rule="already stable"``), the smallest
        grid value from which the observed stability stays at or above ``target``. None: no
        recommendation.
    unrounded : float or None
        optRF's scan before rounding and before the floor of ``minimum``; for the target
        rule, the fitted curve's (fractional) n at ``target``.
    rule : {"optRF", "target", "already stable", "none"}
    rec_thresh : float
    round_to : str
    minimum : int
    n_for_target : int or None
        Learners at which the fitted curve reaches ``target`` (optRF's ``estimate_numtrees``);
        None when the 2PL fit failed or fits poorly (a curve fitted to ``icc = -1`` everywhere
        reaches any target somewhere, which says nothing).
    target : float
    grid_max : int
        The largest grid value; ``beyond_grid`` says whether ``value`` exceeds it.
    beyond_grid : bool
    expected_stability : float
        The fitted stability at ``value`` (NaN without one).
    note : str
        Why there is no (trusted) recommendation, or that it is an extrapolation.
    steps : tuple of (float, float, float)
        optRF's scan as it went: ``(threshold, first n below it, that n rounded)``, the
        threshold lowered tenfold while the rounded n was below the inflection point ``p1``;
        the last step gave ``value`` (before the floor of ``minimum``).
    p1 : float
        The fit's inflection point (NaN without a fit).
    unit : str
        What is counted: "learners" (an estimator's), or "members" for a pool of members
        (:meth:`TreePool.from_predictions` and its kin), as the text says.
    """

    measure: str
    value: int | None
    unrounded: float | None
    rule: str
    rec_thresh: float
    round_to: str
    minimum: int
    n_for_target: int | None
    target: float
    grid_max: int
    beyond_grid: bool
    expected_stability: float
    note: str = ""
    steps: tuple = ()
    p1: float = float("nan")
    unit: str = "learners"

    @property
    def _title(self):
        return f"Recommended number of {self.unit}"

    def explain(self) -> str:
        """One line: the value and the rule that gave it."""
        if self.value is None:
            return f"{self.measure}: no recommendation ({self.note or 'no rule applies'})"
        noun = self.unit[:-1] if self.value == 1 else self.unit  # 1 member, 2 members
        if self.rule == "already stable":
            return (f"{self.measure}: {self.value} {noun} -- the curve is already flat: {self.measure} "
                    f">= {self.target:g} from {self.value} {noun} on, so the smallest such grid value "
                    "is enough")
        rounding = f"rounded to {_ROUNDING[self.round_to]}, at least {self.minimum}"
        if self.rule == "target":
            reach = "reaches" if self.value == 1 else "reach"
            text = (f"{self.measure}: {self.value} {noun} {reach} {self.measure} = {self.target:g} on the "
                    f"fitted curve ({self.unrounded:.3g} before rounding up; the target rule)")
        elif len(self.steps) > 1:  # the threshold was lowered: say so, with the numbers that decided
            (_, first, rounded), (threshold, last, _) = self.steps[0], self.steps[-1]
            text = (f"{self.measure}: {self.value} {noun} by optRF 1.2.1's rule (fitted gain per added "
                    f"{self.unit[:-1]} below {self.rec_thresh:g} from {first:.0f} {self.unit}, which rounded "
                    f"to "
                    f"{_ROUNDING[self.round_to]} is {rounded:.0f}, below the inflection point p1 = "
                    f"{self.p1:.3g}; so, as optRF does, the threshold is "
                    f"lowered tenfold to {threshold:g}: below it from {last:.0f} {self.unit}; {rounding})")
        else:
            text = (f"{self.measure}: {self.value} {noun} by optRF 1.2.1's rule (fitted gain per added "
                    f"{self.unit[:-1]} below {self.rec_thresh:g} from {self.unrounded or float('nan'):.0f} "
                    f"{self.unit}; "
                    f"{rounding})")
        if self.beyond_grid:
            text += (f"; beyond the grid: {self.value / self.grid_max:.3g} x its largest value "
                     f"{self.grid_max} (an extrapolation of the fitted curve)")
        return text


@result
class TuningResult(Result):
    """Result of :func:`tune_num_learners`: everything ``predstab tune`` prints and writes.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per grid value: ``n_learners``, one column per measure (NaN where a measure
        could not be computed, see ``notes``), ``<measure>_low`` / ``<measure>_high`` (the
        95% bands, when computed; for "closed_form" they cover the learners only -- these
        test objects, this training set, the trees' randomness -- and the print says so),
        ``degenerate`` (the measures whose value at that ``n``
        is a degenerate 0/0 set to 1 by predstab's convention, comma-separated; such points
        are left out of the 2PL fits), ``seconds`` (per forest; estimated as pool time x n /
        pool size for the pool methods) and ``n_forests`` (forests behind each value; 0 for
        closed forms).
    fits : dict of str -> TwoPL
        The 2PL fit of each measure (on its finite, non-degenerate points).
    recommendations : dict of str -> Recommendation
        Each measure's recommendation (optRF's rule, the unrounded value, the learners for
        ``target``; see :class:`Recommendation`).
    summary : pandas.DataFrame
        ``fits`` and ``recommendations`` as one row per measure.
    primary : str
        The measure ``recommendation`` is for (the first of ``measures``; "icc" for
        regression, "fleiss" for classification by default: optRF's prediction stability).
    recommendation : int or None
        The primary measure's recommendation; None when its fit failed or is poor
        (R^2 < 0.9) and its curve is not already flat -- optRF's number is still in
        ``recommendations``.
    reliable : bool
        False when the primary fit failed, is poor or has not flattened within the grid
        (and the curve is not already flat); ``message`` then says why.
    message : str
    target : float
    n_for_target : int or None
        The primary measure's learners for ``target``.
    confidence_interval : ConfidenceInterval
        95% (``confidence_level``) bootstrap percentile interval of the (rounded)
        recommendation; ``interval_covers`` says what was resampled. NaN if not computed.
        Target: optRF's recommendation from the true curve on the same grid -- with
        ``method="closed_form", interval="learners"`` the infinite-pool curve of these test
        objects and this training set. It is the resamples' order statistics ``k`` and
        ``B + 1 - k``, ``k = floor((B + 1) alpha / 2)``. Assumptions: the resampled curves
        spread as the curve's error does, the 2PL fits the curve and the curve flattens within
        the grid (``reliable``); otherwise the interval is not trusted and the print says so.
        Rounded to thousands it is often one value (width 0), and a discrete jump of the true
        recommendation (e.g. 16,000 to 17,000) falls inside it or not as a whole;
        docs/benchmarks/coverage-tuning.md gives the measured coverage and widths.
    unrounded_interval : ConfidenceInterval
        The same resamples' interval of the unrounded recommendation.
    interval_covers : str
        What the intervals and bands reflect: for "refit" / "pool" the test objects are
        resampled (the sampling of test objects; the forests are held fixed). For
        "closed_form" the bands resample the pool's learners; the recommendation's
        interval (``interval="learners+objects"``, the default) resamples the test objects
        and the learners together, so it covers the test objects' sampling as the pool
        method's does, or (``interval="learners"``) only the learners: then it covers only
        the error of the pool's finite number of learners and is narrower than the spread
        of refit runs on other test objects.
    confidence_level : float
    runtime : tuple of float
        ``(intercept, slope)`` of seconds per forest against learners.
    method : str
    pool_size : int or None
        Learners in the pool ("pool", "closed_form"; after enlarging it for ``precision``).
    psi_baseline : str
        What psi was measured against, e.g. "out-of-bag predictions of one forest of 250
        learners (the same for every n)".
    largest_phi, largest_psi : StabilityResult or None
        phi and psi of the forests of the largest grid value (the per-object view; None when
        the measure was not asked for or no two forests of that size exist).
    notes : tuple of str
        Measures that could not be computed at some n, degenerate points left out of a fit,
        forests fewer than ``n_repeats``.
    settings : dict
        The settings used: estimator and its main parameters, grid, repeats, voting, scale,
        the recommendation rule's options, bootstrap resamples.
    """

    table: pd.DataFrame
    fits: dict
    recommendations: dict
    summary: pd.DataFrame
    primary: str
    recommendation: int | None
    reliable: bool
    message: str
    target: float
    n_for_target: int | None
    confidence_interval: ConfidenceInterval
    unrounded_interval: ConfidenceInterval
    interval_covers: str
    confidence_level: float
    runtime: tuple
    method: str
    pool_size: int | None
    psi_baseline: str
    largest_phi: object = None
    largest_psi: object = None
    notes: tuple = ()
    settings: dict = dataclasses.field(default_factory=dict)

    @property
    def _title(self) -> str:
        """The heading of the HTML display: counts members for a pool of members (its ``unit``)."""
        return f"Stability against the number of {self.unit}"

    def __eq__(self, other):
        """Equal numbers, not equal timings: the table's ``seconds`` and ``runtime`` are
        measured run time, which differs from run to run, so ``==`` leaves them out."""
        # fits and stability results are dataclasses holding arrays: compare them field by field
        if other.__class__ is not self.__class__:
            return NotImplemented

        def untimed(res, name):
            value = getattr(res, name)
            return value.drop(columns="seconds", errors="ignore") if name == "table" else value

        return all(_equal(_plain_fields(untimed(self, f.name)), _plain_fields(untimed(other, f.name)))
                   for f in dataclasses.fields(self) if f.name != "runtime")

    @property
    def measures(self) -> tuple:
        """The measures, primary first."""
        return tuple(self.fits)

    @property
    def bands(self) -> dict:
        """``{measure: DataFrame(n_learners, low, high)}`` for the measures with bands."""
        out = {}
        for m in self.measures:
            if f"{m}_low" in self.table:
                out[m] = pd.DataFrame({"n_learners": self.table["n_learners"].to_numpy(),
                                       "low": self.table[f"{m}_low"].to_numpy(),
                                       "high": self.table[f"{m}_high"].to_numpy()})
        return out

    @property
    def unit(self) -> str:
        """What ``n_learners`` counts, in the print and the plot: "members" for a given pool of members
        (:meth:`TreePool.from_predictions <predstab.TreePool.from_predictions>` and its siblings:
        networks, bagged models, MCMC runs), "learners" otherwise."""
        return "members" if self.settings.get("pool_size") == _MEMBER_POOL else "learners"

    @property
    def explanations(self) -> dict:
        """``{measure: one line}``: each measure's recommendation and the rule that gave it
        (:meth:`Recommendation.explain`), in the result's own words (``unit``: members for a pool
        of members), saying where a number comes from a 2PL that fits poorly (not trusted)."""
        factor = member_factor(self.method, self.settings.get("voting") is not None)
        out = {}
        for m, rec in self.recommendations.items():
            text = rec.explain()
            fit = self.fits.get(m)
            if rec.value is not None and rec.rule in ("optRF", "target") and fit is not None and fit.poor_fit:
                text += f"; not trusted: its 2PL fits poorly (R^2 = {fit.r_squared:.2f})"
            out[m] = members_wording(text, self.pool_size, factor) if self.unit == "members" else text
        return out

    @property
    def recommendation_seconds(self):
        """Predicted seconds to fit one forest of the recommended size (NaN without one)."""
        return float("nan") if self.recommendation is None else float(self.seconds_for(self.recommendation))

    @validate_params({})
    def plot(self, **kwargs):
        """The stability curves: each measure's values (with their bands), its 2PL fit and the
        recommendation, as :func:`predstab.plotting.plot_stability_curve` draws them.

        Keyword arguments (``ax``, ``title``, ``logx``, ``errors``, ``fits``, ``recommended``, ``xlabel``)
        go to :func:`predstab.plotting.plot_stability_curve` through
        :func:`predstab.plotting.plot`.

        Returns
        -------
        matplotlib.figure.Figure
        """
        from ..plotting import plot  # the plotting surface, imported only when a plot is made

        return plot(self, **kwargs)

    @validate_params({"n": ["array-like", Real]})
    def seconds_for(self, n):
        """Predicted seconds to fit one forest of ``n`` learners (linear run-time model)."""
        return self.runtime[0] + self.runtime[1] * np.asarray(n, dtype=float)

    def to_dict(self) -> dict:
        """Everything as plain Python (JSON-ready: lists, numbers, strings, None for NaN)."""
        def plain(v):
            if isinstance(v, (np.floating, float)):
                return None if not np.isfinite(v) else float(v)
            if isinstance(v, (np.integer,)):
                return int(v)
            if isinstance(v, (np.bool_,)):
                return bool(v)
            if isinstance(v, np.ndarray):
                return [plain(x) for x in v.tolist()]
            if isinstance(v, dict):
                return {str(k): plain(x) for k, x in v.items()}
            if isinstance(v, (list, tuple)):
                return [plain(x) for x in v]
            return v

        def stability(res):
            if res is None:
                return None
            return {"value": res.value, "observed": res.observed, "expected": res.expected,
                    "per_object": np.asarray(res.per_object, dtype=float)}

        fits = {m: {"p1": f.p1, "p2": f.p2, "r_squared": f.r_squared, "converged": f.converged,
                    "poor_fit": f.poor_fit, "flattened": f.flattened, "message": f.message,
                    "suggested_max": f.suggested_max} for m, f in self.fits.items()}
        recs = {m: {f.name: getattr(r, f.name) for f in dataclasses.fields(r)}
                for m, r in self.recommendations.items()}
        return plain({
            "method": self.method, "primary": self.primary, "recommendation": self.recommendation,
            "reliable": self.reliable, "message": self.message, "target": self.target,
            "n_for_target": self.n_for_target,
            "recommendation_interval": {"low": self.confidence_interval.low,
                                        "high": self.confidence_interval.high,
                                        "unrounded_low": self.unrounded_interval.low,
                                        "unrounded_high": self.unrounded_interval.high,
                                        "confidence_level": self.confidence_level,
                                        "covers": self.interval_covers},
            "runtime": {"intercept_seconds": self.runtime[0], "seconds_per_learner": self.runtime[1],
                        "recommended_seconds_per_forest": self.recommendation_seconds},
            "pool_size": self.pool_size, "psi_baseline": self.psi_baseline,
            "table": {c: self.table[c].tolist() for c in self.table.columns},
            "fits": fits, "recommendations": recs, "notes": list(self.notes), "settings": self.settings,
            "largest_forest": {"n_learners": int(self.table["n_learners"].max()),
                               "phi": stability(self.largest_phi), "psi": stability(self.largest_psi)},
        })

    def _str_lines(self):
        pool = "" if self.pool_size is None else f"; a pool of {self.pool_size} learners"
        if self.settings.get("pool_size") == _POOL_RULE:
            pool += " = n_repeats x the largest grid value, the default"
        elif str(self.settings.get("pool_size", "")).startswith("1,000 learners"):
            pool += ": the default, grown for a precise recommendation"
        lines = [f" {self._title} (method {self.method}{pool})", ""]
        settings = self.settings
        if settings.get("estimator"):
            lines.append(f" Estimator: {settings['estimator']}")
        forests = ("closed form" if self.method == "closed_form"
                   else f"{settings.get('n_repeats')} forests per grid value")
        voting = f", {settings['voting']} voting" if settings.get("voting") else ""
        lines.append(f" {forests}{voting}; scale {settings.get('scale')}")
        if "psi" in self.measures:
            lines.append(f" psi baseline: {self.psi_baseline}")
        lines.append("")
        shown = self.table[["n_learners", *self.measures]].copy()
        if self.table["degenerate"].astype(bool).any():
            shown["degenerate"] = self.table["degenerate"].replace("", "-")
        lines += [" " + line for line in shown.to_string(index=False, float_format="%.4f").splitlines()]
        lines.append("")
        bands = self.bands
        if bands:
            shown = pd.DataFrame({"n_learners": self.table["n_learners"]})
            for m, band in bands.items():
                shown[m] = [f"{lo:.4f} to {hi:.4f}" for lo, hi in zip(band["low"], band["high"], strict=True)]
            if self.method == "closed_form":
                covers = BAND_COVERS
            else:
                covers = self.interval_covers.split(":")[0]
            lines += [f" {self.confidence_level:.0%} bootstrap bands ({covers}):"]
            lines += ["  " + line for line in shown.to_string(index=False).splitlines()] + [""]
        lines.append(" 2PL fits, stability(n) = 1 / (1 + (p1 / n)^p2), and each measure's recommendation:")
        rows, untrusted = [], False
        target_rule = self.settings.get("rule") == "target"
        for m, fit in self.fits.items():
            rec = self.recommendations[m]
            # a number from a poor fit is shown in brackets: the notes say it is not trusted
            poor = rec.value is not None and rec.rule in ("optRF", "target") and fit.poor_fit
            untrusted |= poor
            shown = "-" if rec.value is None else (f"({rec.value})" if poor else str(rec.value))
            row = {"measure": m, "p1": r_signif(fit.p1), "p2": r_signif(fit.p2),
                   "R^2": r_signif(fit.r_squared), "recommended": shown,
                   "rule": rec.rule,
                   "unrounded": "-" if rec.unrounded is None else (
                       f"{rec.unrounded:.3g}" if rec.rule == "target" else f"{rec.unrounded:.0f}")}
            if not target_rule:  # the target rule's recommendation is the n for target itself
                row[f"n for {self.target:g}"] = "-" if rec.n_for_target is None else str(rec.n_for_target)
            rows.append(row)
        lines += ["  " + line for line in pd.DataFrame(rows).to_string(index=False).splitlines()]
        if untrusted:
            lines.append(" (In brackets: from a 2PL that fits poorly (R^2 < 0.9), not trusted.)")
        any_rec = next(iter(self.recommendations.values()))
        if self.settings.get("rule") == "target":
            lines.append(f" The target rule: the smallest n whose fitted stability reaches target = "
                         f"{self.target:g} (each member costs a training run; optRF's rule, made for trees, "
                         "is rule='optRF').")
        else:
            lines.append(f" optRF 1.2.1's rule: the first n whose fitted gain in stability per added learner "
                         f"is below rec_thresh = {any_rec.rec_thresh:g}, rounded to "
                         f"{_ROUNDING[any_rec.round_to]}, at least {any_rec.minimum}.")
        for m, rec in self.recommendations.items():
            if m == self.primary:  # (its rule is explained under "Recommendation")
                continue
            if len(rec.steps) > 1 and rec.rule == "optRF":
                # the table's unrounded value is the first scan's; the number came from a lower threshold
                lines.append(f"  note ({m}): {rec.explain().split(': ', 1)[1]}")
            if rec.note:
                lines.append(f"  note ({m}): {rec.note}")
        lines.append("")
        rec = self.recommendations[self.primary]
        if self.recommendation is None:
            lines.append(f" Recommendation: none. {self.message}")
        else:
            lines.append(f" Recommendation: {self.recommendation} learners -- {rec.explain()}.")
            low, high = self.confidence_interval
            if np.isfinite(low):
                u_low, u_high = self.unrounded_interval
                # the target rule's unrounded values are small (members): 3 digits, as in the table
                digits = ".3g" if rec.rule == "target" else ".0f"
                lines.append(f"  {self.confidence_level:.0%} bootstrap interval: {low:g} to {high:g} "
                             f"learners, width {high - low:g} (unrounded {rec.unrounded:{digits}}: "
                             f"{u_low:{digits}} to {u_high:{digits}}, width {u_high - u_low:{digits}}; "
                             f"{self.interval_covers})")
                if self.message:
                    lines.append("  The interval assumes a 2PL that fits the curve (R^2 >= 0.9) and a curve "
                                 "that flattens within the grid; as said below, that fails here: do not "
                                 "trust it.")
            if self.message:
                lines.append(f"  {self.message}")
        fit = self.fits[self.primary]
        if self.n_for_target is not None and fit.converged and not fit.poor_fit:  # untrusted: said above
            lines.append(f" {self.n_for_target} learners {'reaches' if self.n_for_target == 1 else 'reach'} "
                         f"{self.primary} = {self.target:g} "
                         "on the fitted curve")
        intercept, slope = self.runtime
        shown_intercept = 0.0 if abs(intercept) < 1e-9 else intercept  # pool times are proportional to n
        at = "" if self.recommendation is None else (
            f"; {self.recommendation} learners: about {self.recommendation_seconds:.3g} s per forest")
        if np.isfinite(slope):
            lines.append(f" Run time: seconds per forest ~ {shown_intercept:.4g} + {slope:.4g} * "
                         f"learners{at}")
        else:
            lines.append(" Run time: not known (a pool built from its members' predictions)")
        if self.notes:
            lines += ["", " Notes:"] + [f"  - {note}" for note in self.notes]
        return _as_members(lines, self) if self.unit == "members" else lines


_MEMBER_POOL = "the members of the given TreePool"  # settings["pool_size"] of a pool of members
_FOREST_COVERAGE = re.compile(r"\. Measured coverage of optRF's recommendation .*?coverage-tuning\.md\)")


def member_factor(method, classifier):
    """Members a grid up to ``N`` needs, per ``N``: 0 for the closed form of metric predictions
    (any ``N`` from the pool as it is), :data:`CLASS_POOL_FACTOR` for class closed forms (bands that
    keep their coverage), 2 for the pool method (two disjoint groups)."""
    if method == "closed_form":
        return CLASS_POOL_FACTOR if classifier else 0
    return 2


def members_wording(line, pool_size=None, factor=0):
    """``line`` about a pool of members (networks, bagged models, MCMC runs) in its own words:
    members, not learners (the API's names ``n_learners`` and ``"learners+objects"`` kept); a grid
    up to ``N`` advised beyond the ``pool_size`` members says how many it needs (``factor`` x ``N``,
    :func:`member_factor`) -- or, for the closed form of metric predictions (``factor`` 0), which
    gives the curve at any number of members, that the pool's members give it there; no coverage
    figure measured on forests."""
    words = {"learners": "members", "learner": "member"}
    line = re.sub(r"(?<![\w\"'+])(learners?)\b(?![+\"])", lambda m: words[m.group(1)], line)
    line = re.sub(r"\b1 members\b", "1 member", line)
    def beyond(top):
        if not factor:
            return (f" (the closed form gives the curve there from the {pool_size} members the pool holds: "
                    "no training needed)")
        why = ("for bands that keep their coverage" if factor == CLASS_POOL_FACTOR
               else "for two disjoint groups")
        return (f" (the pool holds {pool_size}: train more members first, about {factor * top} {why})"
                if factor * top > pool_size else "")

    if pool_size:
        line = re.sub(r"([Aa] grid up to about (\d+) members would resolve it)(?! \(the )",
                      lambda m: m.group(1) + (beyond(int(m.group(2))) if int(m.group(2)) > pool_size
                                              or factor * int(m.group(2)) > pool_size else ""), line)
    return _FOREST_COVERAGE.sub(". Its coverage was measured on random forests only "
                                "(docs/benchmarks/coverage-tuning.md), not on pools of members", line)


def _as_members(lines, res):
    """The block of a pool of members in its own words (:func:`members_wording`), and what the
    recommendation means for a pool that holds fewer members than it recommends."""
    out = []
    factor = member_factor(res.method, res.settings.get("voting") is not None)
    for line in lines:
        line = members_wording(line, res.pool_size, factor)
        out.append(line)
        if line.startswith(" Recommendation: ") and res.recommendation is not None and res.pool_size:
            more = res.recommendation - res.pool_size
            out.append(f"  The pool holds {res.pool_size} member{'s' * (res.pool_size != 1)}: "
                       + (f"train {more} more to reach {res.recommendation}." if more > 0 else "enough."))
    return out


def _plain_fields(value):
    """Dataclasses (TwoPL, StabilityResult) as dicts of their fields, recursively, for ``==``."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type) and not isinstance(value, Result):
        return {f.name: _plain_fields(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {k: _plain_fields(v) for k, v in value.items()}
    return value

