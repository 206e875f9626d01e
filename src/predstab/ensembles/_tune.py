"""Stability against the number of learners: tune_num_learners and its result.

The estimator-facing layer of the tuning area: it produces, for a grid of ensemble sizes,
the stability measures of refitted ensembles (by refitting, by aggregating a pool of
learners, or in closed form), fits optRF's 2PL curve to each measure (``_twopl``) and
turns the curves into recommendations. Everything ``predstab tune`` and ``predstab demo``
print and write is a field of :class:`TuningResult`; those commands compute nothing of
their own.

Layout: one function per method (:func:`_run_refit`, :func:`_run_pool`, the closed form in
:func:`_closed_columns`) fills one :class:`_GridValue` per grid value; :func:`_table`
measures them, :func:`_recommend_all` fits and recommends, :func:`_bootstrap` resamples.
"""

from __future__ import annotations

import dataclasses
import time
import warnings
from collections.abc import Mapping
from numbers import Integral, Real

import numpy as np
import pandas as pd

from .._core._exceptions import PredstabDataWarning, PredstabDegenerateWarning, PredstabWarning
from .._core._progress import Steps, check_progress
from .._core._results import Result, r_signif, result
from .._core._utils import ConfidenceInterval, check_count, check_rng, seeds_from
from .._core._validation import Interval, InvalidParameterError, Options, check_param, validate_params

__all__ = ["tune_num_learners", "TuningResult", "Recommendation", "runtime_model"]

_METHODS = ("pool", "refit", "closed_form")
_PSI_BASELINES = ("fixed", "kfold", "per_forest")
_INTERVALS = ("learners+objects", "learners")  # closed form: what its interval resamples
_CLOSED = ("icc", "fleiss", "phi", "psi")
_ALL_MEASURES = ("icc", "fleiss", "phi", "psi", "selection", "importance", "importance_selection")
_IMPORTANCE = ("importance", "importance_selection")
_MINIMUM = 500  # optRF's floor for recommendations
_MAX_LEARNERS = 1_000_000  # end of optRF's scan
_MAX_POOL = 100_000
_ROUNDING = {"thousand": "the nearest thousand", "hundred": "the nearest hundred", "ten": "the nearest ten",
             "none": "no rounding"}


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
        ``rec_thresh``, rounded as ``round_to`` says, at least ``minimum``; or, for an
        already flat curve (``rule="already stable"``), the smallest grid value from which
        the observed stability stays at or above ``target``. None: no recommendation.
    unrounded : float or None
        optRF's scan before rounding and before the floor of ``minimum``.
    rule : {"optRF", "already stable", "none"}
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
    _title = "Recommended number of learners"

    def explain(self) -> str:
        """One line: the value and the rule that gave it."""
        if self.value is None:
            return f"{self.measure}: no recommendation ({self.note or 'no rule applies'})"
        if self.rule == "already stable":
            return (f"{self.measure}: {self.value} learners -- the curve is already flat: {self.measure} "
                    f">= {self.target:g} from {self.value} learners on, so the smallest such grid value "
                    "is enough")
        rounding = f"rounded to {_ROUNDING[self.round_to]}, at least {self.minimum}"
        if len(self.steps) > 1:  # the threshold was lowered: say so, with the numbers that decided
            (_, first, rounded), (threshold, last, _) = self.steps[0], self.steps[-1]
            text = (f"{self.measure}: {self.value} learners by optRF 1.2.1's rule (fitted gain per added "
                    f"learner below {self.rec_thresh:g} from {first:.0f} learners, which rounded to "
                    f"{_ROUNDING[self.round_to]} is {rounded:.0f}, below the inflection point p1 = "
                    f"{self.p1:.3g}; so, as optRF does, the threshold is "
                    f"lowered tenfold to {threshold:g}: below it from {last:.0f} learners; {rounding})")
        else:
            text = (f"{self.measure}: {self.value} learners by optRF 1.2.1's rule (fitted gain per added "
                    f"learner below {self.rec_thresh:g} from {self.unrounded or float('nan'):.0f} learners; "
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

    _title = "Stability against the number of learners"

    def __eq__(self, other):
        """Equal numbers, not equal timings: the table's ``seconds`` and ``runtime`` are
        measured run time, which differs from run to run, so ``==`` leaves them out."""
        # fits and stability results are dataclasses holding arrays: compare them field by field
        from .._core._results import _equal

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
    def recommendation_seconds(self):
        """Predicted seconds to fit one forest of the recommended size (NaN without one)."""
        return float("nan") if self.recommendation is None else float(self.seconds_for(self.recommendation))

    @validate_params({})
    def plot(self, **kwargs):
        """The stability curves: each measure's values (with their bands), its 2PL fit and the
        recommendation, as :func:`predstab.plotting.plot_stability_curve` draws them.

        Keyword arguments (``ax``, ``title``, ``logx``, ``errors``, ``fits``, ``recommended``)
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
                from ._closed_form import BAND_COVERS

                covers = BAND_COVERS
            else:
                covers = self.interval_covers.split(":")[0]
            lines += [f" {self.confidence_level:.0%} bootstrap bands ({covers}):"]
            lines += ["  " + line for line in shown.to_string(index=False).splitlines()] + [""]
        lines.append(" 2PL fits, stability(n) = 1 / (1 + (p1 / n)^p2), and each measure's recommendation:")
        rows = []
        for m, fit in self.fits.items():
            rec = self.recommendations[m]
            rows.append({"measure": m, "p1": r_signif(fit.p1), "p2": r_signif(fit.p2),
                         "R^2": r_signif(fit.r_squared),
                         "recommended": "-" if rec.value is None else str(rec.value),
                         "rule": rec.rule,
                         "unrounded": "-" if rec.unrounded is None else f"{rec.unrounded:.0f}",
                         f"n for {self.target:g}": "-" if rec.n_for_target is None
                         else str(rec.n_for_target)})
        lines += ["  " + line for line in pd.DataFrame(rows).to_string(index=False).splitlines()]
        any_rec = next(iter(self.recommendations.values()))
        lines.append(f" optRF 1.2.1's rule: the first n whose fitted gain in stability per added learner is "
                     f"below rec_thresh = {any_rec.rec_thresh:g}, rounded to {_ROUNDING[any_rec.round_to]}, "
                     f"at least {any_rec.minimum}.")
        for m, rec in self.recommendations.items():
            if rec.note and m != self.primary:
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
                lines.append(f"  {self.confidence_level:.0%} bootstrap interval: {low:g} to {high:g} "
                             f"learners, width {high - low:g} (unrounded {rec.unrounded:.0f}: {u_low:.0f} "
                             f"to {u_high:.0f}, width {u_high - u_low:.0f}; {self.interval_covers})")
                if self.message:
                    lines.append("  The interval assumes a 2PL that fits the curve (R^2 >= 0.9) and a curve "
                                 "that flattens within the grid; as said below, that fails here: do not "
                                 "trust it.")
            if self.message:
                lines.append(f"  {self.message}")
        if self.n_for_target is not None:
            lines.append(f" {self.n_for_target} learners reach {self.primary} = {self.target:g} "
                         "on the fitted curve")
        intercept, slope = self.runtime
        shown_intercept = 0.0 if abs(intercept) < 1e-9 else intercept  # pool times are proportional to n
        at = "" if self.recommendation is None else (
            f"; {self.recommendation} learners: about {self.recommendation_seconds:.3g} s per forest")
        lines.append(f" Run time: seconds per forest ~ {shown_intercept:.4g} + {slope:.4g} * learners{at}")
        if self.notes:
            lines += ["", " Notes:"] + [f"  - {note}" for note in self.notes]
        return lines


def _plain_fields(value):
    """Dataclasses (TwoPL, StabilityResult) as dicts of their fields, recursively, for ``==``."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type) and not isinstance(value, Result):
        return {f.name: _plain_fields(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {k: _plain_fields(v) for k, v in value.items()}
    return value


# ----------------------------------------------------------------------------------------
# what one grid value holds and what the measures need
# ----------------------------------------------------------------------------------------
@dataclasses.dataclass
class _GridValue:
    """The forests of one grid value: predictions, baselines, importances, time."""

    n: int
    test: np.ndarray | None  # (objects, forests); None: too few forests in the pool
    space: np.ndarray | None = None  # per-forest out-of-bag baselines (psi_baseline="per_forest")
    importances: np.ndarray | None = None  # (features, forests)
    seconds: float = float("nan")
    n_forests: int = 0


@dataclasses.dataclass
class _Spec:
    """The validated options every measure reads (what used to travel in a dict)."""

    y: np.ndarray
    scale: str
    levels: list | None
    psi_baseline: str
    select_fraction: float
    select_for: object
    importance_fraction: float
    baseline: np.ndarray | None = None  # psi's fixed baseline
    baseline_text: str = ""


def _measure(name, gv, spec, rows=None):
    """Value of one measure at one grid value (``rows`` resamples objects); may raise."""
    from ..agreement._fleiss import fleiss_kappa
    from ..agreement._icc import icc
    from ..stability._importance import importance_stability, selection_stability
    from ..stability._stability import phi, psi

    if name in _IMPORTANCE:
        imp = gv.importances if rows is None else gv.importances[rows]
        res = importance_stability(imp, fraction=spec.importance_fraction)
        return res.value if name == "importance" else res.selection
    test = gv.test if rows is None else gv.test[rows]
    if name == "icc":
        return icc(test.astype(float)).value
    if name == "fleiss":
        return fleiss_kappa(test).value
    if name == "phi":
        return phi(test, spec.y, scale=spec.scale, levels=spec.levels).value
    if name == "psi":
        space = gv.space if spec.psi_baseline == "per_forest" else spec.baseline
        return psi(test, space, scale=spec.scale, levels=spec.levels).value
    if name == "selection":
        return selection_stability(test, fraction=spec.select_fraction, select_for=spec.select_for).value
    raise ValueError(f"unknown measure {name!r}")  # unreachable after validation


def _measure_point(name, gv, spec):
    """``(value, degenerate, error)``: a measure that cannot be computed is NaN, never raised."""
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            value = float(_measure(name, gv, spec))
    except Exception as exc:  # noqa: BLE001 -- no single measure may abort the run
        return float("nan"), False, f"{type(exc).__name__}: {' '.join(str(exc).split())}"
    degenerate = any(issubclass(w.category, PredstabDegenerateWarning) for w in caught)
    return value, degenerate, ""


def _resampled(name, gv, spec, rows):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return float(_measure(name, gv, spec, rows))
    except Exception:  # noqa: BLE001 -- a resample where the measure is undefined
        return float("nan")


# ----------------------------------------------------------------------------------------
# the three ways to get forests of n learners
# ----------------------------------------------------------------------------------------
def _forest_with(estimator, n, seed, n_jobs):
    """A clone with ``n`` learners, every random_state set to ``seed`` and ``n_jobs``."""
    from ._repeated import with_seed

    model = with_seed(estimator, seed)
    params = {"n_estimators": int(n)}
    if "n_jobs" in model.get_params():
        params["n_jobs"] = n_jobs
    return model.set_params(**params)


def _refit_one(estimator, n, seed, X, y, X_test, need_space, voting, n_jobs, is_clf, importance):
    """One forest: ``(test predictions, out-of-bag baseline or None, importances or None, seconds)``."""
    from ._forest import aggregate, inbag_mask, oob_predict, tree_predictions

    model = _forest_with(estimator, n, seed, n_jobs)
    start = time.perf_counter()
    model.fit(X, y)
    if X_test is not None:
        from ._pool import check_test_data

        X_test = check_test_data(model, X_test)  # the pool's check: the error names `X_test`
    if "n_jobs" in model.get_params():
        # scikit-learn's threaded predict adds the trees' predictions in the order the threads
        # finish, so its last bits depend on n_jobs: predict in one thread (the trees' fixed
        # order); the fit, where the time goes, keeps its threads and is deterministic
        model.set_params(n_jobs=1)
    if X_test is None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PredstabDataWarning)
            test = oob_predict(model, X, voting=voting)
    elif is_clf and voting == "hard":
        test = aggregate(tree_predictions(model, X_test), voting="hard", classes=model.classes_)
    else:
        test = model.predict(X_test)
    seconds = time.perf_counter() - start
    space = None
    if need_space:
        if X_test is None:
            space = test
        else:
            space = aggregate(tree_predictions(model, X), ~inbag_mask(model, len(y)), voting=voting,
                              classes=model.classes_ if is_clf else None)
    if importance == "permutation":
        from ._forest import tree_permutation_importances

        imp = tree_permutation_importances(model, X, y, np.random.default_rng(seed)).mean(axis=1)
    elif importance == "impurity":
        imp = np.asarray(model.feature_importances_, dtype=float)
    else:
        imp = None
    return test, space, imp, seconds


def _kfold_space(estimator, X, y, n, rng, n_jobs, is_clf):
    """Out-of-fold predictions of forests of n learners: psi's fixed K-fold baseline."""
    from sklearn.model_selection import KFold, StratifiedKFold, cross_val_predict

    seed = int(seeds_from(rng, 1)[0])
    folds = (StratifiedKFold if is_clf else KFold)(5, shuffle=True, random_state=seed)
    # forests in one thread each (their threaded predict sums in a run-dependent order), the folds
    # in parallel: cross_val_predict puts each fold's predictions back in place, whatever n_jobs
    return cross_val_predict(_forest_with(estimator, n, seed, 1), X, y, cv=folds, n_jobs=n_jobs)


def _run_refit(estimator, X, y, X_test, grid, n_repeats, spec, rng, opts):
    """``n_repeats`` new forests per grid value; the first of the largest gives psi's baseline."""
    seeds = seeds_from(rng, len(grid) * n_repeats).reshape(len(grid), n_repeats)
    total, done, values = len(grid) * n_repeats, 0, {}
    for gi in np.argsort(grid)[::-1]:  # the largest forests first
        n, outs = grid[gi], []
        for r in range(n_repeats):
            want_space = opts.need_space and (spec.psi_baseline == "per_forest" or spec.baseline is None)
            outs.append(_refit_one(estimator, n, seeds[gi, r], X, y, X_test, want_space, opts.voting,
                                   opts.n_jobs, opts.is_clf, opts.importance))
            if opts.need_space and spec.baseline is None and spec.psi_baseline == "fixed":
                spec.baseline = outs[0][1]
                spec.baseline_text = (f"out-of-bag predictions of one forest of {n} learners (the first "
                                      "refit of the largest grid value), the same for every n")
            done += 1
            opts.progress.tick("fitting forests", done, total)
        per_forest = spec.psi_baseline == "per_forest" and opts.need_space
        values[n] = _GridValue(
            n=n, test=np.column_stack([o[0] for o in outs]),
            space=np.column_stack([o[1] for o in outs]) if per_forest else None,
            importances=None if opts.importance is None else np.column_stack([o[2] for o in outs]),
            seconds=float(np.mean([o[3] for o in outs])), n_forests=n_repeats)
    return values


def _tree_importances(ensemble):
    return np.stack([t.feature_importances_ for t in ensemble.estimators_], axis=1)  # (features, trees)


def _grouped_importances(tree_imp, n, n_forests, *, normalise):
    """Forest importances of disjoint groups of trees: the mean over a group's trees
    (ranger's permutation importance), renormalised to sum 1 for impurity importance as
    scikit-learn's ``feature_importances_`` does (its mean leaves out trees without a split)."""
    groups = tree_imp[:, : n * n_forests].reshape(tree_imp.shape[0], n_forests, n).mean(axis=2)
    if not normalise:
        return groups
    totals = groups.sum(axis=0, keepdims=True)
    return np.divide(groups, totals, out=np.zeros_like(groups), where=totals > 0)


def _fit_pool(estimator, X, y, X_test, grid, measures, spec, rng, opts, pool_size, precision, n_bootstrap):
    """The pool (enlarged for ``precision``) and psi's fixed baseline from it."""
    from ._pool import TreePool

    pool = TreePool(estimator, n_learners=pool_size, voting=opts.voting, random_state=rng, n_jobs=opts.n_jobs)
    pool.fit(X, y, X_test, oob=opts.need_space, progress=opts.progress)  # ticks as it grows and predicts
    n_max = max(grid)
    if opts.need_space and spec.psi_baseline == "fixed":
        spec.baseline, spec.baseline_text = _pool_baseline(pool, estimator, X, y, n_max, rng, opts)
    if precision is not None:
        closed = [m for m in measures if m in _CLOSED]
        for steps in range(4):  # the 1 / sqrt(pool) law is close: a second step is rare
            widest = _widest_band(pool, grid, closed, _closed_baselines(spec), max(n_bootstrap, 100),
                                  opts.progress)
            if widest <= precision or steps == 3 or pool_size >= _MAX_POOL:
                break
            needed = min(_MAX_POOL, int(np.ceil(1.1 * pool_size * (widest / precision) ** 2)))
            pool.extend(max(needed - pool_size, 2), progress=opts.progress)
            pool_size = pool.test_predictions_.shape[1]
        if widest > precision:
            warnings.warn(
                f"`precision`={precision} not reached: the 95% bands of a pool of {pool_size} learners "
                f"reach +-{widest:.3f} (at most {_MAX_POOL} learners, three enlargements).",
                PredstabWarning, stacklevel=3,
            )
    return pool, pool_size


def _pool_baseline(pool, estimator, X, y, n_max, rng, opts):
    """psi's fixed baseline for the pool methods: the out-of-bag predictions of one forest of
    ``max(grid)`` learners -- the first ``max(grid)`` learners of the pool, or (a pool smaller
    than that) one forest of that size fitted for it -- as for ``method="refit"``."""
    size = pool.test_predictions_.shape[1]
    if size >= n_max:
        return (pool.forests(n_max, n_forests=1, on="oob")[:, 0],
                f"out-of-bag predictions of one forest of {n_max} learners (the first {n_max} of the pool), "
                "the same for every n")
    seed = int(seeds_from(rng, 1)[0])
    _, space, _, _ = _refit_one(estimator, n_max, seed, X, y, X, True, opts.voting, opts.n_jobs, opts.is_clf,
                                None)
    return space, (f"out-of-bag predictions of one forest of {n_max} learners (fitted for the baseline: the "
                   f"pool has {size}), the same for every n")


def _default_pool_size(grid, n_repeats, method, classifier=False):
    """The one default pool (``tune_num_learners`` and ``predstab tune``): ``n_repeats`` disjoint
    forests of the largest grid value, so every grid value gets its ``n_repeats`` forests; for
    "closed_form" at least 1,000 learners (the metric closed form's error shrinks as 1 /
    sqrt(pool_size)), and for a classifier at least four times the largest grid value: the class
    closed forms are unbiased up to half the pool (see :class:`TreePool`), but their learners-only
    bands cover only 0.86 at n = P / 2 near tied votes and at least 0.93 for n <= P / 4
    (docs/benchmarks/coverage-tuning.md)."""
    size = int(max(grid)) * int(n_repeats)
    if method != "closed_form":
        return size
    return max(size, 1000, _CLASS_POOL_FACTOR * int(max(grid))) if classifier else max(size, 1000)


# the closed-form bands of classes reach 0.93 for n up to a quarter of the pool
_CLASS_POOL_FACTOR = 4


_POOL_RULE = "n_repeats x the largest grid value (the default)"


def _run_pool(pool, X, y, grid, n_repeats, spec, rng, opts, measures, pool_size, method, explicit_pool):
    """Disjoint groups of the pool's learners as the forests of each grid value."""
    from ._forest import tree_permutation_importances

    if opts.importance == "permutation":
        tree_imp = tree_permutation_importances(pool.ensemble_, X, y, rng)
    elif opts.importance == "impurity":
        tree_imp = _tree_importances(pool.ensemble_)
    else:
        tree_imp = None
    only_closed = method == "closed_form" and set(measures) <= set(_CLOSED)
    values, short = {}, []
    for n in grid:
        k = min(n_repeats, pool_size // n)
        seconds = pool.fit_seconds_ * n / pool_size
        if k < 2:
            values[n] = _GridValue(n=n, test=None, seconds=seconds, n_forests=0 if only_closed else k)
            continue
        if k < n_repeats and not only_closed:
            short.append(f"{n} ({k})")
        values[n] = _GridValue(
            n=n, test=pool.forests(n, n_forests=k),
            space=pool.forests(n, n_forests=k, on="oob")
            if opts.need_space and spec.psi_baseline == "per_forest" else None,
            importances=None if tree_imp is None
            else _grouped_importances(tree_imp, n, k, normalise=opts.importance == "impurity"),
            seconds=seconds, n_forests=0 if only_closed else k)
    notes = []
    if short:
        text = (f"The pool of {pool_size} learners holds fewer than n_repeats={n_repeats} disjoint forests "
                f"for n = {', '.join(short)} (forests used in brackets)")
        if explicit_pool:
            warnings.warn(f"{text}; pass pool_size >= {n_repeats * max(grid)} for {n_repeats} forests "
                          "everywhere.", PredstabDataWarning, stacklevel=3)
        notes.append(text + ".")
    return values, notes


def _closed_baselines(spec):
    """Baselines of the closed forms: psi's fixed one (the same as the other methods')."""
    return {} if spec.baseline is None else {"psi": spec.baseline}


def _widest_band(pool, grid, measures, baselines, n_bootstrap, progress=None):
    """Largest half-width of the pool's 95% closed-form bands over measures and grid values."""
    bands = [pool.closed_form_bands(grid, measure=m, baseline=baselines.get(m), n_bootstrap=n_bootstrap,
                                    progress=_tick(progress, f"precision bands ({m})"))
             for m in measures]
    return max(float(np.nanmax((r.high - r.low) / 2)) for r in bands)


def _tick(progress, step):
    """``tick(done, total)`` of one step of a :class:`~predstab._core._progress.Steps`, or None."""
    return None if progress is None else progress.callback(step)


def _closed_columns(pool, grid, measures, spec, n_bootstrap, confidence_level, progress=None):
    """``{measure: (curve, low, high, errors)}`` of the closed forms; a measure that fails is NaN.

    One :meth:`TreePool.closed_form_bands` call per measure: with the pool's default
    ``random_state`` every call draws the same orderings and resamples, so the measures share
    them (as one call over all measures would).
    """
    baselines = _closed_baselines(spec)
    out, failed = {}, {}
    for m in (m for m in measures if m in _CLOSED):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", PredstabWarning)
                r = pool.closed_form_bands(grid, measure=m, baseline=baselines.get(m),
                                           n_bootstrap=n_bootstrap, confidence_level=confidence_level,
                                           progress=_tick(progress, f"closed form and bands ({m})"))
            out[m] = (r.curve, r.low, r.high, r.errors) if n_bootstrap else (r.curve, None, None, None)
        except Exception as exc:  # noqa: BLE001 -- the other measures still count
            nan = np.full(len(grid), np.nan)
            out[m] = (nan, nan if n_bootstrap else None, nan if n_bootstrap else None, None)
            failed[m] = f"{type(exc).__name__}: {' '.join(str(exc).split())}"
    return out, failed


# ----------------------------------------------------------------------------------------
# fits and recommendations
# ----------------------------------------------------------------------------------------
def _failed_fit(n, values, reason):
    from ._twopl import TwoPL

    n = np.asarray(n, dtype=float)
    values = np.asarray(values, dtype=float)
    nan = np.full(n.shape, np.nan)
    return TwoPL(p1=float("nan"), p2=float("nan"), converged=False, message=reason,
                 r_squared=float("nan"), poor_fit=True, flattened=False,
                 suggested_max=int(4 * n.max()) if n.size else 0, n=n, observed=values, fitted=nan,
                 residuals=nan, start=(float("nan"), float("nan")), n_evaluations=0)


def _fit(n, values, usable):
    from ._twopl import fit_2pl

    if usable.sum() < 3:
        return _failed_fit(n, values,
                           f"fewer than 3 usable grid points ({int(usable.sum())} of {len(n)})")
    return fit_2pl(n[usable], values[usable])


def _optrf_rule(fit, rec_thresh, round_to, minimum):
    """``(value, reason)`` of optRF 1.2.1's rule (TwoPL.recommend; its warning becomes the reason)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", PredstabWarning)
        value = fit.recommend(rec_thresh=rec_thresh, round_to=round_to, minimum=minimum,
                              max_learners=_MAX_LEARNERS)
    reason = str(caught[-1].message) if value is None and caught else ""
    return value, reason


def _already_stable(n, values, target):
    """The smallest grid value from which the observed curve stays at or above ``target``."""
    ok = np.isfinite(values) & (values >= target)
    if not ok.size or not ok[-1]:
        return None
    first = len(ok) - np.argmin(ok[::-1]) if not ok.all() else 0
    return int(n[first])


def _recommend(measure, fit, n, values, grid_max, target, rec_thresh, round_to):
    value, reason = _optrf_rule(fit, rec_thresh, round_to, _MINIMUM)
    unrounded, _ = _optrf_rule(fit, rec_thresh, "none", 0)
    # the curve's n for target only from a trusted fit (a poor one, e.g. of icc = -1 everywhere,
    # reaches any target somewhere)
    n_t = fit.num_learners_for(target) if fit.converged and not fit.poor_fit else -1
    steps = ()
    if value is not None and fit.converged:
        steps = tuple(fit._rule_steps(rec_thresh=rec_thresh, round_to=round_to, max_learners=_MAX_LEARNERS))
    rule, note = ("optRF" if value is not None else "none"), reason
    if fit.converged and fit.poor_fit:
        note = f"the 2PL fits poorly (R^2 = {fit.r_squared:.2f}); optRF's number is not trusted"
    elif fit.converged and not fit.flattened:
        note = (f"the curve has not flattened within the grid (fitted stability "
                f"{fit.stability(grid_max):.2f} at {grid_max} learners); a grid up to about "
                f"{fit.suggested_max} learners would resolve it")
    if not fit.converged or fit.poor_fit:
        flat = _already_stable(np.asarray(n), np.asarray(values, dtype=float), target)
        if flat is not None:
            value, rule, unrounded, steps = flat, "already stable", None, ()
            why = "the 2PL fit failed" if not fit.converged else "the 2PL fits poorly"
            note = (f"already stable: {measure} >= {target:g} at every grid value from {flat} learners on "
                    f"({why} on a flat curve); no larger grid is needed")
            n_t = flat
    if rule == "optRF" and value > grid_max and not note:
        note = (f"beyond the grid: {value} is {value / grid_max:.3g} x the largest grid value {grid_max} "
                "(an extrapolation of the fitted curve)")
    expected = float(fit.stability(value)) if value is not None and fit.converged else float("nan")
    return Recommendation(
        measure=measure, value=None if value is None else int(value),
        unrounded=None if unrounded is None else float(unrounded), rule=rule, rec_thresh=float(rec_thresh),
        round_to=round_to, minimum=_MINIMUM, n_for_target=None if n_t is None or n_t < 0 else int(n_t),
        target=float(target), grid_max=grid_max, beyond_grid=bool(value is not None and value > grid_max),
        expected_stability=expected, note=note, steps=steps, p1=float(fit.p1))


def _primary_message(primary, fit, rec, grid, excluded):
    """``(problems, message)`` about the primary measure's recommendation."""
    if rec.rule == "already stable":
        return [], f"{primary}: {rec.note}."
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
        if not fit.flattened:
            problems.append(
                "the curve has not flattened within the grid (fitted stability "
                f"{fit.stability(max(grid)):.2f} at {max(grid)} learners, inflection point p1 = {fit.p1:.0f})"
            )
    if not problems:
        return [], ""
    return problems, (f"{primary}: " + "; ".join(problems) + ". A grid up to about "
                      f"{fit.suggested_max} learners would resolve it, e.g. {fit.suggested_grid()}.")


# ----------------------------------------------------------------------------------------
# bootstrap: bands and the recommendation's interval
# ----------------------------------------------------------------------------------------
def _bootstrap_objects(values, grid, measures, primary, spec, n_bootstrap, rng, progress=None):
    """``{measure: (n_bootstrap, len(grid)) resampled curves}``: objects resampled (the same rows
    for every grid value and every measure of the primary's kind: test objects, or variables
    for the importance measures)."""
    kind = primary in _IMPORTANCE
    same = [m for m in measures if (m in _IMPORTANCE) == kind]
    first = values[grid[0]]
    n_objects = len(first.importances if kind else first.test)
    # phi and psi hold D_e fixed, so a resample's value is 1 - mean(D_o,i over its rows) / D_e:
    # the per-object disagreements of one call give every resample (as the direct call would)
    parts = {(m, n): _per_object_parts(m, values[n], spec) for m in same if m in ("phi", "psi") for n in grid}
    curves = {m: np.empty((int(n_bootstrap), len(grid))) for m in same}
    for b in range(int(n_bootstrap)):
        rows = rng.integers(0, n_objects, n_objects)
        for m in same:
            curves[m][b] = [_resampled(m, values[n], spec, rows) if parts.get((m, n)) is None
                            else _from_parts(parts[(m, n)], rows) for n in grid]
        if progress is not None:
            progress(b + 1, int(n_bootstrap))
    return curves


def _per_object_parts(name, gv, spec):
    """``(per-object observed disagreement, D_e)`` of phi / psi, or None (then computed directly)."""
    res = _largest(gv, spec, name, (name,))
    if res is None or not (np.isfinite(res.expected) and res.expected > 0):
        return None
    return np.asarray(res.per_object_observed, dtype=float), float(res.expected)


def _from_parts(parts, rows):
    observed, expected = parts
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # every resampled object dropped
        return float(1.0 - np.nanmean(observed[rows]) / expected)


def _interval(curves, grid, rec_thresh, round_to, n_bootstrap, confidence_level, progress=None):
    """Percentile intervals of the rounded and the unrounded recommendation over resampled curves."""
    from ._twopl import fit_2pl

    rounded, raw = [], []
    n_grid = np.asarray(grid, dtype=float)
    for b, curve in enumerate(curves):
        if np.all(np.isfinite(curve)):
            fit = fit_2pl(n_grid, curve)
            rec, _ = _optrf_rule(fit, rec_thresh, round_to, _MINIMUM)
            if rec is not None:
                rounded.append(rec)
                raw.append(_optrf_rule(fit, rec_thresh, "none", 0)[0])
        if progress is not None:
            progress(b + 1, len(curves))
    nan = ConfidenceInterval(float("nan"), float("nan"))
    if len(rounded) < n_bootstrap / 2:
        return nan, nan
    raw = [r for r in raw if r is not None]
    return (_order_statistic_interval(rounded, confidence_level),
            _order_statistic_interval(raw, confidence_level) if raw else nan)


def _order_statistic_interval(values, confidence_level):
    """``(x_(k), x_(B + 1 - k))`` of ``B`` resampled recommendations, ``k = floor((B + 1) alpha / 2)``
    (at least 1): resampled values, not interpolations (recommendations are rounded counts), at
    the order statistics whose expected coverage ``(B + 1 - 2k) / (B + 1)`` is at least the
    confidence level. The inverted-CDF percentiles used before (the 3rd and 98th of 100) had
    expected coverage 0.94 for a perfect pivot."""
    ranked = np.sort(np.asarray(values, dtype=float))
    k = max(int(np.floor((len(ranked) + 1) * (1 - confidence_level) / 2)), 1)
    return ConfidenceInterval(float(ranked[k - 1]), float(ranked[len(ranked) - k]))


# ----------------------------------------------------------------------------------------
# validation
# ----------------------------------------------------------------------------------------
@dataclasses.dataclass
class _Opts:
    """How forests are fitted and what they must deliver."""

    is_clf: bool
    voting: str
    n_jobs: int | None
    need_space: bool
    importance: str | None
    progress: Steps  # the `progress` argument's steps (never None; falsy when silent)


_GROUP_CHECKS = {
    ("selection", "fraction"): [Interval(Real, 0, None, closed="neither"), None],
    ("importance", "fraction"): [Interval(Real, 0, None, closed="neither"), None],
    ("importance", "kind"): [Options(("permutation", "impurity"))],
}


def _group(name, options, defaults):
    """The values of an option group (``selection=`` / ``importance=``), defaults filled in."""
    options = {} if options is None else dict(options)
    unknown = sorted(set(options) - set(defaults), key=str)
    if unknown:
        raise InvalidParameterError(f"`{name}` must be a dict with keys among {sorted(defaults)}; "
                                    f"got unknown key(s) {unknown}.")
    values = {**defaults, **options}
    for key, value in values.items():
        if (name, key) in _GROUP_CHECKS:
            check_param(f"{name}['{key}']", value, _GROUP_CHECKS[(name, key)])
    return tuple(values.values())


def _tune_num_learners_iv(estimator, X, y, X_test, grid, n_repeats, measures, method, select_fraction,
                          select_for, importance_fraction, importance, psi_baseline, pool_size, voting,
                          target, n_bootstrap, progress, precision, scale, levels, confidence_level,
                          rec_thresh, round_to):
    from sklearn.base import is_classifier

    from ..stability._importance import _selection_size

    if not hasattr(estimator, "get_params") or "n_estimators" not in estimator.get_params():
        raise TypeError(
            "`estimator` must be a scikit-learn ensemble with an `n_estimators` parameter "
            f"(RandomForest*, ExtraTrees*, Bagging*); got {type(estimator).__name__}."
        )
    if method not in _METHODS:
        raise ValueError(f"`method` must be one of {_METHODS}; got {method!r}.")
    grid_arr = np.asarray(grid)
    if grid_arr.ndim != 1 or grid_arr.size < 3 or grid_arr.dtype.kind not in "iuf" \
            or np.any(grid_arr < 1) or np.any(grid_arr != np.round(grid_arr)):
        raise ValueError(
            f"`grid` must hold at least 3 positive integers (numbers of learners); got {grid!r}."
        )
    grid_list = [int(g) for g in grid_arr]
    if len(set(grid_list)) != len(grid_list):
        raise ValueError(f"`grid` must not repeat values; got {grid!r}.")
    check_count(n_repeats, "n_repeats")
    is_clf = bool(is_classifier(estimator))
    default = ("fleiss" if is_clf else "icc", "phi", "psi")
    default += () if method == "closed_form" else ("selection",)
    if measures is not None and not isinstance(measures, str) and np.ndim(measures) != 1:
        raise ValueError(f"`measures` must be a measure name or a sequence of names; got {measures!r}.")
    measures = default if measures is None else (measures,) if isinstance(measures, str) else tuple(measures)
    if not measures:
        raise ValueError("`measures` must name at least one measure.")
    for m in measures:
        if m not in _ALL_MEASURES:
            raise ValueError(f"`measures` must be among {_ALL_MEASURES}; got {m!r}.")
    if len(set(measures)) != len(measures):
        raise ValueError(f"`measures` must not repeat a measure; got {measures!r}.")
    if is_clf and "icc" in measures:
        raise ValueError("`measures`: 'icc' needs metric predictions; use 'fleiss' for a classifier.")
    if not is_clf and "fleiss" in measures:
        raise ValueError("`measures`: 'fleiss' needs class predictions; use 'icc' for a regressor.")
    if scale is None:
        scale = "categorical" if is_clf else "metric"
    if is_clf and scale not in ("categorical", "ordinal"):
        raise ValueError(f"`scale` must be 'categorical' or 'ordinal' for a classifier; got {scale!r}.")
    if not is_clf and scale != "metric":
        raise ValueError(f"`scale` must be 'metric' for a regressor; got {scale!r}.")
    if scale == "ordinal":
        if levels is None or isinstance(levels, str) or np.ndim(levels) != 1 or len(levels) < 2:
            raise ValueError(f"`levels` must list the ordered categories for scale='ordinal'; "
                             f"got {levels!r}.")
        unknown = sorted(set(map(str, np.asarray(y, dtype=object))) - set(map(str, levels)))
        if unknown:
            raise ValueError(f"`levels` must contain every value of `y`; missing {unknown[:5]}.")
        if method == "closed_form" and ({"phi", "psi"} & set(measures)):
            raise ValueError("`scale`='ordinal' has no closed form for phi / psi; use method='pool'.")
        levels = list(levels)
    elif levels is not None:
        raise ValueError(f"`levels` applies to scale='ordinal'; got scale={scale!r}.")
    if psi_baseline not in _PSI_BASELINES:
        raise ValueError(f"`psi_baseline` must be one of {_PSI_BASELINES}; got {psi_baseline!r}.")
    if method == "closed_form" and psi_baseline == "per_forest" and "psi" in measures:
        raise ValueError("`psi_baseline`='per_forest' has no closed form; use 'fixed' or method='pool'.")
    if voting not in (None, "soft", "hard"):
        raise ValueError(f"`voting` must be 'soft', 'hard' or None; got {voting!r}.")
    if not (isinstance(target, float) and 0 < target < 1):
        raise ValueError(f"`target` must be a float in (0, 1); got {target!r}.")
    if isinstance(rec_thresh, bool) or not (isinstance(rec_thresh, (int, float)) and 0 < rec_thresh < np.inf):
        raise ValueError(f"`rec_thresh` must be a positive finite number; got {rec_thresh!r}.")
    if not isinstance(round_to, str) or round_to not in _ROUNDING:
        raise ValueError(f"`round_to` must be one of {sorted(_ROUNDING)}; got {round_to!r}.")
    if not (isinstance(confidence_level, float) and 0 < confidence_level < 1):
        raise ValueError(f"`confidence_level` must be a float in (0, 1); got {confidence_level!r}.")
    if isinstance(n_bootstrap, bool) or not isinstance(n_bootstrap, (int, np.integer)) or n_bootstrap < 0:
        raise ValueError(f"`n_bootstrap` must be a non-negative integer; got {n_bootstrap!r}.")
    check_progress(progress)
    if select_for is None and not is_clf:
        select_for = "high"
    if isinstance(select_for, str) and select_for not in ("high", "low", "zero") and not is_clf:
        raise InvalidParameterError(f"`selection['select_for']` must be 'high', 'low' or 'zero' for a "
                                    f"regressor; got {select_for!r}.")
    explicit_pool = pool_size is not None
    if pool_size is None:
        pool_size = _default_pool_size(grid_list, n_repeats, method, is_clf)
    check_count(pool_size, "pool_size")
    small = pool_size < _CLASS_POOL_FACTOR * max(grid_list)
    if explicit_pool and method == "closed_form" and is_clf and small:
        warnings.warn(
            f"`pool_size` ({pool_size}) is below {_CLASS_POOL_FACTOR} x the largest grid value "
            f"({max(grid_list)}): the closed-form bands of classes for n above a quarter of the pool "
            f"cover less than 95 % (0.86 at half the pool near tied votes); use pool_size >= "
            f"{_CLASS_POOL_FACTOR * max(grid_list)}.", PredstabDataWarning, stacklevel=3)
    if precision is not None:
        if method != "closed_form":
            raise ValueError(f"`precision` applies to method='closed_form'; got method={method!r}.")
        if isinstance(precision, bool) or not isinstance(precision, (int, float)) or not 0 < precision < 1:
            raise ValueError(f"`precision` must be a band half-width in (0, 1), e.g. 0.02; "
                             f"got {precision!r}.")
    if method == "pool" and pool_size // max(grid_list) < 2:
        raise ValueError(
            f"`pool_size` ({pool_size}) must hold at least 2 disjoint forests of the largest grid value "
            f"({max(grid_list)}); use pool_size >= {2 * max(grid_list)} or method='refit'."
        )
    from ._forest import is_bagging_ensemble

    if "psi" in measures and psi_baseline != "kfold" and not is_bagging_ensemble(estimator):
        raise ValueError(
            f"`psi_baseline`={psi_baseline!r} needs out-of-bag predictions, but {type(estimator).__name__} "
            "does not bootstrap; use psi_baseline='kfold' or bootstrap=True."
        )
    if importance not in ("permutation", "impurity"):
        raise InvalidParameterError(f"`importance['kind']` must be 'permutation' or 'impurity'; "
                                    f"got {importance!r}.")
    # fail before any fitting: the selection sizes optRF's alpha gives on these data. The
    # defaults (None) are optRF's alphas, but never fewer than one item.
    n_objects = len(X if X_test is None else X_test)
    if "selection" in measures and not is_clf and select_fraction is None and n_objects < 2:
        # the default fraction was not the user's choice: name the data that leave nothing to select
        data = "X" if X_test is None else "X_test"
        raise InvalidParameterError(
            f"`{data}` must have at least 2 rows for the 'selection' measure (it selects some but not "
            f"all objects); got {n_objects}. Pass more rows or leave 'selection' out of `measures`."
        )
    if select_fraction is None:
        select_fraction = 0.15 if round(n_objects * 0.15) >= 1 else 1
    if importance_fraction is None:
        importance_fraction = 0.05 if round(np.shape(X)[1] * 0.05) >= 1 else 1
    if "selection" in measures and not is_clf:
        _selection_size(n_objects, select_fraction, "selection['fraction']")
    if set(_IMPORTANCE) & set(measures):
        _selection_size(np.shape(X)[1], importance_fraction, "importance['fraction']")
    voting = voting or ("hard" if is_clf else "soft")
    y = np.asarray(y)
    if is_clf and select_for is None:
        select_for = np.unique(y)[-1]
    if is_clf and "selection" in measures:
        wanted = set(np.atleast_1d(np.asarray(select_for, dtype=object)).tolist())
        classes = set(np.unique(y).tolist())
        if not wanted or not wanted <= classes or wanted == classes:
            # optRF: "select_for must be a subset of its classes" and "cannot include all classes"
            raise ValueError(
                f"`selection['select_for']` must name some but not all classes of `y` "
                f"{sorted(map(str, classes))} "
                f"for a classifier; got {select_for!r}."
            )
    if len(y) != len(X):
        raise ValueError(f"`X` and `y` must have the same number of rows; got {len(X)} and {len(y)}.")
    spec = _Spec(y=y, scale=scale, levels=levels, psi_baseline=psi_baseline, select_fraction=select_fraction,
                 select_for=select_for, importance_fraction=importance_fraction)
    return grid_list, measures, is_clf, int(pool_size), explicit_pool, voting, spec


def _settings(estimator, grid, n_repeats, method, spec, opts, target, rec_thresh, round_to, n_bootstrap,
              confidence_level, measures):
    params = estimator.get_params(deep=False)
    names = ("max_features", "min_samples_leaf", "max_samples", "bootstrap", "max_depth", "criterion")
    main = {k: params[k] for k in names if k in params}
    # and every other option the estimator was given (min_samples_split, ...), but not those the
    # tuning sets on each refit itself (the number of learners, the seed, the jobs)
    try:
        defaults = type(estimator)().get_params(deep=False)
    except TypeError:  # an estimator without defaults for every parameter: list them all
        defaults = {}
    set_per_refit = {"n_estimators", "random_state", "n_jobs"}
    main.update({k: v for k, v in params.items() if k not in main and k not in set_per_refit
                 and (k not in defaults or repr(v) != repr(defaults[k]))})
    settings = {"estimator": type(estimator).__name__ + "(" + ", ".join(f"{k}={v!r}" for k, v in main.items())
                + ")", "estimator_params": main, "grid": list(grid), "n_repeats": n_repeats,
                "method": method, "measures": list(measures), "scale": spec.scale, "levels": spec.levels,
                "voting": opts.voting if opts.is_clf else None, "target": target, "rec_thresh": rec_thresh,
                "round_to": round_to, "n_bootstrap": int(n_bootstrap), "confidence_level": confidence_level}
    if "selection" in measures:
        settings["select_fraction"] = spec.select_fraction
    if set(_IMPORTANCE) & set(measures):
        settings["importance_fraction"] = spec.importance_fraction
        settings["importance"] = opts.importance
    return settings


# ----------------------------------------------------------------------------------------
@validate_params({
    "grid": ["array-like"],
    "n_repeats": [Interval(Integral, 2, None)],
    "measures": [str, "array-like", None],
    "method": [Options(_METHODS)],
    "selection": [Mapping, None],
    "importance": [Mapping, None],
    "psi_baseline": [Options(_PSI_BASELINES)],
    "interval": [Options(_INTERVALS)],
    "pool_size": [Interval(Integral, 2, None), None],
    "precision": [Interval(Real, 0, 1, closed="neither"), None],
    "voting": [Options(("soft", "hard")), None],
    "scale": [Options(("metric", "categorical", "ordinal")), None],
    "levels": ["array-like", None],
    "target": [Interval(Real, 0, 1, closed="neither")],
    "rec_thresh": [Interval(Real, 0, None, closed="neither")],
    "round_to": [Options(tuple(_ROUNDING))],
    "n_bootstrap": [Interval(Integral, 0, None)],
    "confidence_level": [Interval(Real, 0, 1, closed="neither")],
    "random_state": ["random_state"],
    "n_jobs": [Integral, None],
    "progress": ["callable", Options((True,)), None],
})
def tune_num_learners(estimator, X, y, X_test=None, *, grid=(250, 500, 750, 1000, 2000), n_repeats=10,
                      measures=None, method="pool", pool_size=None, voting=None, scale=None, levels=None,
                      target=0.95, rec_thresh=1e-6, round_to="thousand", n_bootstrap=100,
                      confidence_level=0.95, random_state=None, n_jobs=None, progress=None,
                      psi_baseline="fixed", precision=None, selection=None, importance=None,
                      interval="learners+objects"):
    """How many learners does a bagging ensemble need for stable predictions? (optRF, faster)

    For each number of learners ``n`` in ``grid`` the stability of ``n_repeats`` ensembles
    of ``n`` learners is measured, optRF's 2PL curve
    :math:`s(n) = 1 / (1 + (p_1 / n)^{p_2})` is fitted to each measure
    (:func:`predstab.fit_2pl`) and the number of learners is recommended, for every
    measure, by optRF 1.2.1's rule and for a target stability.

    Parameters
    ----------
    estimator : scikit-learn bagging-type ensemble
        ``RandomForest*``, ``ExtraTrees*`` or ``Bagging*``; ``n_estimators`` and
        ``random_state`` are set per fit. ranger's defaults (what optRF fits) are close to
        ``RandomForestRegressor(max_features="sqrt", min_samples_split=5)`` and
        ``RandomForestClassifier(max_features="sqrt")``.
    X : array-like of shape (n_train, n_features)
    y : array-like of shape (n_train,)
    X_test : array-like of shape (n_test, n_features), optional
        Objects whose predictions are compared. Without it the training rows are predicted
        out of bag (optRF's behaviour).
    grid : sequence of int, default (250, 500, 750, 1000, 2000)
        Numbers of learners (optRF's ``num.trees_values``); at least 3.
    n_repeats : int, default 10
        Ensembles per grid value (optRF's ``number_repetitions``).
    measures : sequence of str, optional
        Among "icc" (regression) / "fleiss" (classification) -- prediction stability as
        optRF computes it (``irr::icc`` one-way single, ``irr::kappam.fleiss``); "phi",
        "psi" (APS); "selection" (optRF's selection stability); "importance",
        "importance_selection" (optRF ``opt_importance``: ICC of the variable importances and
        Fleiss' kappa of the top ``importance_fraction`` of variables). Default: the
        prediction measure, "phi", "psi" and (except for "closed_form") "selection". The
        first one is ``primary``. A measure that cannot be computed at some ``n`` is NaN
        there (``notes`` says why); it never stops the run.
    method : {"pool", "refit", "closed_form"}, default "pool"
        "refit": ``n_repeats`` new ensembles per grid value (what optRF does).
        "pool": one pool of ``pool_size`` learners; the ensembles of ``n`` learners are
        disjoint groups of it (exactly distributed as refits, see :class:`TreePool`); when
        the pool holds fewer than ``n_repeats`` groups of ``n``, fewer forests are used
        (``n_forests``; a warning when ``pool_size`` was given). "closed_form": icc / fleiss
        / phi / psi in closed form from a pool (:meth:`TreePool.closed_form`) with bootstrap
        bands; the other measures from the pool's groups.
    pool_size : int, optional
        Learners in the pool. Default (the same rule as ``predstab tune``): ``n_repeats *
        max(grid)``, so every grid value gets its ``n_repeats`` disjoint forests; for
        "closed_form" at least 1000, and for a classifier at least ``4 * max(grid)``: class
        closed forms are estimated without bias only up to half the pool (see
        :class:`TreePool`), and their learners-only bands reach 0.93 coverage only up to a
        quarter of it (0.86 at half the pool near tied votes; docs/benchmarks/coverage-tuning.md;
        a smaller ``pool_size`` given explicitly warns). ``settings["pool_size"]`` and the
        printed result say which rule gave the pool. The metric
        closed form's sampling error shrinks as 1 / sqrt(pool_size): on optRF's SNP data a
        pool of 1,000 trees gives ICC(1) at 250 trees to +-0.034 (one standard deviation;
        see ``bands``).
    voting : {"soft", "hard"}, optional
        Classifier aggregation; default "hard" (ranger's majority vote, as optRF).
    scale : {"metric", "categorical", "ordinal"}, optional
        Scale of phi and psi: "metric" for a regressor, "categorical" (default) or "ordinal"
        (with ``levels``) for a classifier. Fleiss' kappa and selection treat classes as
        nominal whatever the scale (optRF's measure).
    levels : sequence, optional
        The ordered categories for ``scale="ordinal"``.
    target : float, default 0.95
        Stability for ``n_for_target``.
    rec_thresh, round_to :
        optRF's rule, as in :meth:`TwoPL.recommend` (floor 500 learners).
    n_bootstrap : int, default 100
        Bootstrap resamples for the recommendation's confidence interval and the curves'
        bands (``<measure>_low`` / ``_high`` in ``table``). "refit" / "pool": the test
        objects are resampled (the forests held fixed). "closed_form": the bands resample
        the learners of the pool, so they reflect only the pool's finite number of
        learners; the recommendation's interval resamples what ``interval`` says. 0: none.
    confidence_level : float, default 0.95
        Of the bands and the recommendation's interval.
    random_state : None, int or numpy.random.Generator
    n_jobs : int or None
        Passed to the ensemble's ``n_jobs`` for fitting (the K-fold baseline of psi runs its
        folds in parallel instead). Refit forests predict in one thread, so the tables are
        bit-identical for every ``n_jobs``.
    progress : True or callable, optional
        True: a progress bar on stderr, one line per step. A callable is called as
        ``progress(done, total)`` -- and, when it takes a keyword ``step``, as
        ``progress(done, total, step=...)`` with the step's name -- as each long step
        advances, ``done`` counting up to ``total`` within the step and starting again at
        the next: "fitting forests" (refit: after each ensemble, which is also predicted);
        "fitting the pool" (the pool's learners as they grow, ``total = pool_size``, in up to
        20 steps; see :meth:`TreePool.fit`) and "predicting" (the learners' predictions
        cached, in chunks of learners; ``total`` is the learners times the passes over
        training and test rows); the closed forms and their bands, per measure (the test
        objects or the resampled pools done); "bootstrap bands" (refit / pool: per resample
        of the test objects); "bands (objects and learners)" (closed form, per resample);
        "recommendation interval" (per resampled curve refitted). The results are the same
        with and without it.
    psi_baseline : {"fixed", "kfold", "per_forest"}, default "fixed"
        psi's prediction space. "fixed": the out-of-bag predictions of one forest of
        ``max(grid)`` learners, the same for every grid value and every method (refit: the
        first refit at ``max(grid)``; pool and closed form: the first ``max(grid)`` learners
        of the pool, or a forest of that size fitted for it when the pool is smaller);
        ``psi_baseline`` of the result says which.
        "kfold": 5-fold out-of-fold predictions of one forest of ``max(grid)`` learners
        (also fixed; works without bootstrapping, costs 5 extra fits).
        "per_forest": each ensemble's own out-of-bag predictions, as APS computes psi for a
        single forest size -- but then the baseline moves with ``n``: the out-of-bag
        predictions of a small forest are noisy, its D_e shrinks as learners are added and
        psi is not monotone in ``n`` (ranger on APS's maize yield: 0.68, 0.69, 0.73, 0.72,
        0.72, 0.78, 0.83, 0.90 for 5 ... 1000 trees; its 2PL fit is meaningless). The fixed
        baseline keeps D_e constant, so psi follows the same 2PL law as the other measures.
    interval : {"learners+objects", "learners"}, default "learners+objects"
        "closed_form" only: what the recommendation's interval resamples (recorded in
        ``interval_covers``). "learners+objects": in each resample the test objects (the
        rows of the pool's per-learner predictions) and the pool's learners are drawn with
        replacement, the closed-form curve of that pool is computed (pivoted on the
        bootstrap world's exact value, as the bands are), the 2PL refitted and optRF's
        recommendation taken; the percentile interval of those covers the test objects'
        sampling as the pool method's does. "learners": the learners only (the bands'
        resamples): the error of the pool's finite size alone -- another closed-form run on
        the same objects falls inside it, a refit run on other objects often does not.
        The refit and pool methods always resample the test objects.
    precision : float, optional
        "closed_form" only: the widest 95% band to accept, as a half-width (e.g. 0.02 for
        +-0.02). The pool's bands are measured (100 resamples at least) and, where any
        closed-form measure's band is wider at some grid value, learners are added to the pool
        (:meth:`TreePool.extend`) as the 1 / sqrt(pool) law asks (10% more; checked again, up
        to three enlargements and 100,000 learners, with a warning when that is not enough).
        On optRF's SNP data +-0.02 took 13,478 trees (38 s, one thread).
    selection : dict, optional
        Options of selection stability (rarely changed; optRF's ``opt_prediction``):

        - ``"fraction"``: optRF's ``alpha``; default 0.15 (one object when 15% of the
          objects round to none).
        - ``"select_for"``: {"high", "low", "zero"} or class label(s); optRF's
          ``select_for``. Default "high" for a regressor (optRF's default); for a classifier
          the last of its sorted classes (scikit-learn's positive class of a binary problem),
          so that the default measures work whatever the labels are.

        E.g. ``selection={"fraction": 0.1, "select_for": "low"}``.
    importance : dict, optional
        Options of the importance measures (rarely changed; optRF's ``opt_importance``):

        - ``"fraction"``: optRF ``opt_importance``'s ``alpha``; default 0.05 (one variable
          when 5% of the variables round to none, e.g. for 10 variables).
        - ``"kind"``: {"permutation", "impurity"}, default "permutation" (optRF's
          ``importance``): "permutation" is ranger's out-of-bag permutation importance,
          tree by tree (RandomForest* / ExtraTrees* with bootstrap); "impurity" is
          scikit-learn's ``feature_importances_``.

        E.g. ``importance={"kind": "impurity", "fraction": 0.2}``.

    Returns
    -------
    TuningResult
        ``.table``, ``.fits``, ``.recommendations``, ``.summary``, ``.recommendation``,
        ``.reliable``, ``.message``, ``.n_for_target``, ``.confidence_interval``,
        ``.unrounded_interval``, ``.runtime``, ``.seconds_for(n)``, ``.bands``,
        ``.psi_baseline``, ``.largest_phi``, ``.largest_psi``, ``.notes``, ``.settings``.

    Warns
    -----
    PredstabWarning
        When the primary curve's fit failed, is poor or has not flattened within the grid
        (not when the curve is already flat at the target).
    PredstabDataWarning
        When a pool of the given ``pool_size`` holds fewer than ``n_repeats`` disjoint
        forests of some grid value.

    References
    ----------
    .. [1] Lange, T. M. et al. (2025). optRF: Optimising random forest stability by
       determining the optimal number of trees. BMC Bioinformatics 26, 95.
       https://doi.org/10.1186/s12859-025-06097-1

    Matches optRF 1.2.1's ``opt_prediction`` (2PL fits and recommendation exact to R from
    the same result table); see validation/.

    Examples
    --------
    >>> from sklearn.datasets import make_regression
    >>> from sklearn.ensemble import RandomForestRegressor
    >>> X, y = make_regression(80, 6, noise=20, random_state=0)
    >>> res = tune_num_learners(RandomForestRegressor(max_features=2), X[:60], y[:60], X[60:],
    ...                         grid=(5, 10, 20, 40), n_repeats=4, measures=("icc",),
    ...                         pool_size=160, n_bootstrap=0, random_state=0)
    >>> list(res.table.columns)
    ['n_learners', 'icc', 'degenerate', 'seconds', 'n_forests']
    >>> res.recommendation >= 500
    True
    """
    select_fraction, select_for = _group("selection", selection, {"fraction": None, "select_for": None})
    importance_fraction, importance = _group("importance", importance,
                                             {"fraction": None, "kind": "permutation"})
    grid, measures, is_clf, pool_size, explicit_pool, voting, spec = _tune_num_learners_iv(
        estimator, X, y, X_test, grid, n_repeats, measures, method, select_fraction, select_for,
        importance_fraction, importance, psi_baseline, pool_size, voting, target, n_bootstrap, progress,
        precision, scale, levels, confidence_level, rec_thresh, round_to)
    rng = check_rng(random_state)
    y = spec.y
    opts = _Opts(is_clf=is_clf, voting=voting, n_jobs=n_jobs,
                 need_space="psi" in measures and psi_baseline != "kfold",
                 importance=importance if set(_IMPORTANCE) & set(measures) else None,
                 progress=Steps(progress))
    if "psi" in measures and psi_baseline == "kfold":
        spec.baseline = _kfold_space(estimator, X, y, max(grid), rng, n_jobs, is_clf)
        spec.baseline_text = (f"5-fold out-of-fold predictions of forests of {max(grid)} learners, "
                              "the same for every n")
    elif psi_baseline == "per_forest":
        spec.baseline_text = "each forest's own out-of-bag predictions (moves with n)"
    notes, pool = [], None
    if method == "refit":
        values = _run_refit(estimator, X, y, X_test, grid, n_repeats, spec, rng, opts)
        pool_size = None
    else:
        pool, pool_size = _fit_pool(estimator, X, y, X_test, grid, measures, spec, rng, opts, pool_size,
                                    precision, n_bootstrap)
        values, notes = _run_pool(pool, X, y, grid, n_repeats, spec, rng, opts, measures, pool_size, method,
                                  explicit_pool)
    table, closed, failed, degenerate = _table(values, grid, measures, spec, pool, method, n_bootstrap,
                                               confidence_level, pool_size, opts.progress)
    notes += _point_notes(failed, degenerate)
    settings = _settings(estimator, grid, n_repeats, method, spec, opts, target, rec_thresh, round_to,
                         n_bootstrap, confidence_level, measures)
    if method == "closed_form":
        settings["interval"] = interval
    if pool_size is not None:
        settings["pool_size"] = ("given" if explicit_pool else _POOL_RULE
                                 if pool_size == _default_pool_size(grid, n_repeats, method, is_clf)
                                 else "enlarged for `precision`")
    res = _summarise(table, values, grid, measures, spec, method, closed, target, rec_thresh, round_to,
                     n_bootstrap, confidence_level, rng, pool_size, notes, settings, pool=pool,
                     interval_kind=interval, progress=opts.progress)
    opts.progress.close()  # the bar of progress=True ends its line
    return res


def _table(values, grid, measures, spec, pool, method, n_bootstrap, confidence_level, pool_size,
           progress=None):
    """The grid table; closed-form columns (with their resampled errors); failures; degenerate points."""
    columns = {"n_learners": list(grid)}
    failed, degenerate = {}, {}
    closed, closed_failed = ({}, {}) if method != "closed_form" else _closed_columns(
        pool, grid, measures, spec, n_bootstrap, confidence_level, progress)
    for m, reason in closed_failed.items():
        failed[m] = {n: reason for n in grid}
    for m in measures:
        if m in closed:
            curve, low, high, _ = closed[m]
            columns[m] = np.asarray(curve, dtype=float)
            if low is not None:
                columns[f"{m}_low"], columns[f"{m}_high"] = np.asarray(low, float), np.asarray(high, float)
            continue
        column = []
        for n in grid:
            gv = values[n]
            if gv.test is None:
                column.append(float("nan"))
                failed.setdefault(m, {})[n] = (f"fewer than 2 disjoint forests in the pool of {pool_size} "
                                               "learners; increase `pool_size`")
                continue
            value, flat, error = _measure_point(m, gv, spec)
            column.append(value)
            if error:
                failed.setdefault(m, {})[n] = error
            if flat:
                degenerate.setdefault(m, []).append(n)
        columns[m] = np.asarray(column, dtype=float)
    columns["degenerate"] = [",".join(m for m in measures if n in degenerate.get(m, ())) for n in grid]
    columns["seconds"] = [values[n].seconds for n in grid]
    columns["n_forests"] = [values[n].n_forests for n in grid]
    return pd.DataFrame(columns), closed, failed, degenerate


def _point_notes(failed, degenerate):
    notes = []
    for m, where in failed.items():
        reasons = {}
        for n, reason in where.items():
            reasons.setdefault(reason, []).append(n)
        for reason, ns in reasons.items():
            notes.append(f"{m} could not be computed at n = {', '.join(map(str, ns))} (NaN there): {reason}")
    for m, ns in degenerate.items():
        what = ("every forest predicted one class for every object" if m in ("fleiss", "selection")
                else "no disagreement observed and none expected")
        irr = "; irr's kappam.fleiss returns NaN there" if m == "fleiss" else ""
        notes.append(f"{m} at n = {', '.join(map(str, ns))} is degenerate ({what}: 0/0, set to 1 by "
                     f"predstab's convention{irr}); marked in the table's `degenerate` column and left "
                     "out of the 2PL fit")
    return notes


def _summarise(table, values, grid, measures, spec, method, closed, target, rec_thresh, round_to, n_bootstrap,
               confidence_level, rng, pool_size, notes, settings, *, pool=None, interval_kind="learners",
               progress=None):
    """The TuningResult: fits and recommendations, bands, the primary's interval, run time."""
    fits, recs = _fits_and_recommendations(table, measures, target, rec_thresh, round_to)
    primary = measures[0]
    fit, rec = fits[primary], recs[primary]
    recommendation = rec.value if rec.rule == "already stable" or not fit.poor_fit else None
    excluded = [int(g) for g, d in zip(grid, table["degenerate"], strict=True) if primary in d.split(",")]
    problems, message = _primary_message(primary, fit, rec, grid, excluded)
    if problems:
        warnings.warn(message, PredstabWarning, stacklevel=3)
    resampled = _bands(table, values, grid, measures, primary, closed, spec, method, n_bootstrap,
                       confidence_level, rng, progress)
    both = method == "closed_form" and interval_kind == "learners+objects" and primary in closed
    if both and resampled is not None:  # the bands stay the learners'; the interval also resamples objects
        resampled = _learner_object_curves(pool, grid, primary, spec, table[primary].to_numpy(float),
                                           n_bootstrap, rng, _tick(progress, "bands (objects and learners)"))
    interval = unrounded = ConfidenceInterval(float("nan"), float("nan"))
    if resampled is not None and rec.rule == "optRF" and recommendation is not None:
        interval, unrounded = _interval(resampled, grid, rec_thresh, round_to, n_bootstrap, confidence_level,
                                        _tick(progress, "recommendation interval"))
    table = _ordered(table, measures)
    largest = values.get(max(grid))
    return TuningResult(
        table=table, fits=fits, recommendations=recs, summary=_summary_frame(fits, recs), primary=primary,
        recommendation=recommendation, reliable=not problems, message=message, target=target,
        n_for_target=rec.n_for_target, confidence_interval=interval, unrounded_interval=unrounded,
        interval_covers=_covers(method, primary in closed, interval_kind),
        confidence_level=confidence_level, runtime=runtime_model(table["n_learners"], table["seconds"]),
        method=method, pool_size=pool_size, psi_baseline=spec.baseline_text if "psi" in measures else "",
        largest_phi=_largest(largest, spec, "phi", measures),
        largest_psi=_largest(largest, spec, "psi", measures), notes=tuple(notes), settings=settings,
    )


def _covers(method, closed_primary, interval_kind):
    """What the recommendation's interval resampled (``interval_covers``)."""
    if method != "closed_form" or not closed_primary:
        return _COVERS["objects"]
    return _COVERS["learners+objects" if interval_kind == "learners+objects" else "closed_form"]


_COVERS = {
    "learners+objects": "test objects and the pool's learners resampled together: the sampling of the test "
                        "objects and the error from the pool's finite number of learners "
                        "(interval=\"learners+objects\"; the bands resample the learners only). Not a "
                        "95 % interval: its coverage of the true recommendation (new objects, new "
                        "learners) was measured below 0.93 for a regression forest and an imbalanced "
                        "classifier (docs/benchmarks/coverage-tuning.md); read it as a rough range",
    "closed_form": "the pool's learners resampled: only the error from the pool's finite number of learners, "
                   "not the sampling of the test objects (interval=\"learners\")",
    "objects": "test objects resampled, the forests held fixed: the sampling of the test objects, "
               "not of new forests",
}


def _fits_and_recommendations(table, measures, target, rec_thresh, round_to):
    """Each measure's 2PL fit (finite, non-degenerate points) and recommendation."""
    n = table["n_learners"].to_numpy(dtype=float)
    fits, recs = {}, {}
    for m in measures:
        curve = table[m].to_numpy(dtype=float)
        flagged = np.array([m in d.split(",") for d in table["degenerate"]], dtype=bool)
        usable = np.isfinite(curve) & ~flagged
        fits[m] = _fit(n, curve, usable)
        recs[m] = _recommend(m, fits[m], n[usable], curve[usable], int(n.max()), target, rec_thresh, round_to)
    return fits, recs


def _bands(table, values, grid, measures, primary, closed, spec, method, n_bootstrap, confidence_level, rng,
           progress=None):
    """Add the object-bootstrap bands to ``table`` (refit / pool); return the primary measure's
    resampled curves (rows) for its recommendation interval, or None."""
    if not n_bootstrap:
        return None
    if method == "closed_form" and primary in closed:
        errors = closed[primary][3]  # resampled pools' errors about the pool's own curve
        # the bands' resampled curves (ClosedFormResult.errors: curve + errors)
        return None if errors is None else np.minimum(table[primary].to_numpy(float) + errors, 1.0)
    if not all(values[g].test is not None for g in grid):
        return None
    curves = _bootstrap_objects(values, grid, [m for m in measures if m not in closed], primary, spec,
                                n_bootstrap, rng, _tick(progress, "bootstrap bands"))
    alpha = (1 - confidence_level) / 2
    for m, c in curves.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns
            low, high = np.nanquantile(c, [alpha, 1 - alpha], axis=0)
        undefined = ~np.isfinite(table[m].to_numpy(dtype=float))  # no band about a value that is not there
        table[f"{m}_low"] = np.where(undefined, np.nan, low)
        table[f"{m}_high"] = np.where(undefined, np.nan, high)
    return curves.get(primary)


def _learner_object_draws(rng, n_bootstrap, n_objects, n_learners):
    """``(rows, cols)``: per resample, test objects and learners drawn with replacement
    (``rows``: n_bootstrap x n_objects, then ``cols``: n_bootstrap x n_learners, both from
    ``rng`` in that order, before anything else draws from it)."""
    rows = rng.integers(0, n_objects, (int(n_bootstrap), n_objects))
    cols = rng.integers(0, n_learners, (int(n_bootstrap), n_learners))
    return rows, cols


def _learner_object_curves(pool, grid, measure, spec, curve, n_bootstrap, rng, progress=None):
    """``(n_bootstrap, len(grid))`` closed-form curves with test objects and learners resampled.

    Each resample is the pool's per-learner predictions at resampled rows (test objects, or
    the training rows out of bag) and resampled columns (learners), drawn by
    :func:`_learner_object_draws`. As for the learners' bands (:func:`closed_form_bands`)
    the interval is pivotal: the resample's closed form minus the exact value of the same
    estimator in the bootstrap world (the pool and its objects as the population) is the
    error, subtracted from the pool's curve; phi's / psi's D_e stays fixed (their baselines
    are not the test objects), as in the object bootstrap of the pool method.
    """
    from ._closed_form import _orderings, closed_form_stats, curve_from_stats

    preds = pool.test_predictions_
    mask = pool.oob_ if pool.on_train_ else None
    classifier, voting = pool.is_classifier_, pool.voting_
    d_e = pool._closed_form_expected(measure, _closed_baselines(spec).get(measure), voting)
    n = np.asarray(grid, dtype=float)
    rows, cols = _learner_object_draws(rng, n_bootstrap, preds.shape[0], preds.shape[1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # degenerate resamples are NaN or 1 by the convention
        truth = curve_from_stats(closed_form_stats(preds, mask, n, classifier=classifier, voting=voting,
                                                   rng=rng, population=True), n, measure, d_e)
        n_perm = max(5, _orderings(preds.shape[0]) // 8) if classifier else None
        out = np.empty((int(n_bootstrap), len(n)))
        fast = None if classifier or mask is not None else _resampled_metric_stats(preds, rows, cols, n)
        for b in range(int(n_bootstrap)):
            if fast is not None:
                stats = fast[b]
            else:
                here = preds[rows[b]][:, cols[b]]
                here_mask = None if mask is None else mask[rows[b]][:, cols[b]]
                stats = closed_form_stats(here, here_mask, n, classifier=classifier, voting=voting, rng=rng,
                                          n_perm=n_perm)
            out[b] = curve - (curve_from_stats(stats, n, measure, d_e) - truth)
            if progress is not None:
                progress(b + 1, int(n_bootstrap))
    return np.minimum(out, 1.0)


def _resampled_metric_stats(preds, rows, cols, n):
    """The closed-form statistics of ``preds[rows[b]][:, cols[b]]`` for every resample ``b``
    (metric test predictions) without copying the pool: a resampled pool holds learner ``j``
    ``w_bj`` times, so each object's resampled mean and variance follow from one product of
    the deviations from its pool mean with the counts, and a resampled set of objects weighs
    object ``i`` by its count ``r_bi`` (blocks of objects; float64)."""
    n_obj, size = preds.shape
    n_boot = len(rows)
    weights = np.stack([np.bincount(c, minlength=size) for c in cols], axis=1).astype(np.float64)
    r = np.stack([np.bincount(x, minlength=n_obj) for x in rows], axis=1).astype(np.float64)
    sum_var, sum_mu, sum_mu2 = np.zeros(n_boot), np.zeros(n_boot), np.zeros(n_boot)
    ref = float(np.mean(preds, dtype=np.float64))  # keeps the sums of squares exact
    for start in range(0, n_obj, 4096):
        here = slice(start, min(start + 4096, n_obj))
        block = np.asarray(preds[here], dtype=np.float64)
        mu = block.mean(axis=1)
        dev = block - mu[:, None]
        s1 = dev @ weights
        s2 = (dev * dev) @ weights
        var = np.maximum(s2 - s1**2 / size, 0.0) / (size - 1)
        centred = (mu - ref)[:, None] + s1 / size
        counts = r[here]
        sum_var += (counts * var).sum(axis=0)
        sum_mu += (counts * centred).sum(axis=0)
        sum_mu2 += (counts * centred**2).sum(axis=0)
    mean_var = sum_var / n_obj
    between = (sum_mu2 - sum_mu**2 / n_obj) / (n_obj - 1)
    return [{"d_o": mean_var[b] / n, "b": max(float(between[b] - mean_var[b] / size), 0.0),
             "w": float(mean_var[b])} for b in range(n_boot)]


def _summary_frame(fits, recs):
    return pd.DataFrame([{
        "measure": m, "p1": fits[m].p1, "p2": fits[m].p2, "r_squared": fits[m].r_squared,
        "poor_fit": fits[m].poor_fit, "flattened": fits[m].flattened, "recommended": r.value,
        "rule": r.rule, "unrounded": r.unrounded, "n_for_target": r.n_for_target,
        "beyond_grid": r.beyond_grid, "suggested_max": fits[m].suggested_max, "note": r.note}
        for m, r in recs.items()]).set_index("measure")


def _ordered(table, measures):
    """Columns: n_learners, each measure with its band, degenerate, seconds, n_forests."""
    order = ["n_learners"]
    for m in measures:
        order += [c for c in (m, f"{m}_low", f"{m}_high") if c in table]
    order += ["degenerate", "seconds", "n_forests"]
    return table[order]


def _largest(gv, spec, name, measures):
    """phi or psi of the largest grid value's forests (the per-object view), or None."""
    from ..stability._stability import phi, psi

    if name not in measures or gv is None or gv.test is None:
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if name == "phi":
                return phi(gv.test, spec.y, scale=spec.scale, levels=spec.levels)
            space = gv.space if spec.psi_baseline == "per_forest" else spec.baseline
            return psi(gv.test, space, scale=spec.scale, levels=spec.levels)
    except Exception:  # noqa: BLE001 -- the per-object view is optional; the table has the NaN and the note
        return None
