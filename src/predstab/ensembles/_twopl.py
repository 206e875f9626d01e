"""The two-parameter logistic (2PL) curve of stability against the number of learners.

optRF (Lange et al. 2025) models the stability of a random forest with ``n`` trees as

    stability(n) = 1 / (1 + (p1 / n) ** p2)

fits it with ``minpack.lm::nlsLM`` (MINPACK ``lmdif``) from fixed start values and turns
the fitted curve into a recommended number of trees. This module reproduces the fit
(same algorithm, same start values, same tolerances) and the recommendation rule of
optRF 1.2.1, and adds what optRF lacks: a fit status instead of an error, R^2 and
residuals, a poor-fit flag and a statement of whether the curve flattened within the grid.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from numbers import Real

import numpy as np
from scipy.optimize import leastsq

from .._core._exceptions import PredstabWarning, warn_outside
from .._core._gate import refuse_masked
from .._core._ratings import as_real_vector
from .._core._results import Result, r_signif, result
from .._core._validation import Interval, Options, check_param, validate_params

__all__ = ["fit_2pl", "TwoPL"]

# MINPACK settings of minpack.lm::nls.lm.control() as optRF calls it: ftol = ptol =
# sqrt(machine eps), gtol = 0, factor = 100, epsfcn = 0, maxfev = 100 * (n_par + 1).
_TOL = math.sqrt(np.finfo(float).eps)
_MAXFEV = 300
# R^2 below which a fit is called poor (every well-behaved reference curve has R^2 > 0.98;
# the non-monotone psi-OOB curves of aps_maize.json have 0.74-0.80).
_R2_POOR = 0.9
# The curve counts as flattened within the grid once the fitted stability at the largest
# grid value reaches this level: the 2PL's elasticity d log s / d log n = p2 (1 - s) is then
# at most 0.2 p2, so each doubling of the forest adds little.
_FLAT = 0.8
# optRF: test_seq = seq(10, 1e6, 10), numbers of trees at which the fitted curve is scanned.
_STEP = 10
_ROUND_DIGITS = {"thousand": -3, "hundred": -2, "ten": -1, "none": 0}
_POSITIVE_FINITE = Interval(Real, 0, math.inf, closed="neither")
_LEARNERS = Interval(Real, 0, math.inf, closed="left")  # a non-negative finite number of learners


def _curve(n, p1, p2):
    # the same expression optRF's TwoPLmodel evaluates, so that borderline thresholds agree
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        return 1.0 / (1.0 + (p1 / np.asarray(n, dtype=float)) ** p2)


def _round_half_even(x, digits):
    """R's ``round(x, digits)`` for the multiples of 10 optRF rounds (ties go to even)."""
    scale = 10.0 ** (-digits)
    return float(np.round(x / scale) * scale)


def _rank_deficient(n, p1, p2):
    """R's check in ``nlsModel`` (called by ``nlsLM`` after MINPACK returns).

    R builds a forward-difference gradient (``numericDeriv``, step ``sqrt(eps) * |p|``) and
    stops with "singular gradient matrix" when LINPACK's ``dqrdc2`` (tolerance 1e-7) finds
    rank < 2, or with an error when the gradient is not finite.
    """
    pars = np.array([p1, p2], dtype=float)
    base = _curve(n, *pars)
    grad = np.empty((len(n), 2))
    for j in range(2):
        step = _TOL * abs(pars[j]) if pars[j] != 0 else _TOL
        shifted = pars.copy()
        shifted[j] += step
        grad[:, j] = (_curve(n, *shifted) - base) / step
    if not np.all(np.isfinite(grad)) or not np.all(np.isfinite(base)):
        return True
    norms = np.linalg.norm(grad, axis=0)
    if np.any(norms == 0):
        return True
    # dqrdc2: the second column is negligible if what remains of it after removing its
    # projection on the first is below 1e-7 times its original norm
    first = grad[:, 0] / norms[0]
    rest = grad[:, 1] - first * (first @ grad[:, 1])
    return bool(np.linalg.norm(rest) < 1e-7 * norms[1])


@result
class TwoPL(Result):
    """Result of :func:`fit_2pl`: a fitted 2PL curve of stability against learners.

    ``print(fit)`` shows the fit as R prints an ``nls`` model; ``fit.to_frame()`` is one row.

    Attributes
    ----------
    p1 : float
        Inflection point (the number of learners at which stability is 0.5); NaN if the
        fit failed. optRF calls it ``Inflection_point``.
    p2 : float
        Slope (optRF's ``Slope``); NaN if the fit failed.
    converged : bool
        Whether the fit succeeded (R's ``nlsLM`` would have returned a model).
    message : str
        MINPACK's termination message, or why the fit failed.
    r_squared : float
        ``1 - SS_res / SS_tot`` of the fit on the observed points.
    poor_fit : bool
        True when ``r_squared < 0.9`` or the fit failed: do not recommend from this curve.
    flattened : bool
        True when the fitted stability at the largest grid value is at least 0.8 (the
        curve's elasticity ``p2 (1 - s)`` is then small). False means the curve has not
        flattened within the grid and any recommendation is an extrapolation; see
        :meth:`suggested_grid`.
    suggested_max : int
        A grid maximum that would resolve the curve (see :meth:`suggested_grid`).
    n, observed, fitted, residuals : ndarray of shape (n_points,)
        The grid, the stabilities fitted, the fitted values and ``observed - fitted``.
    start : tuple of float
        Start values ``(p1, p2)`` (optRF's rule).
    n_evaluations : int
        Number of function evaluations used by MINPACK.
    """

    p1: float
    p2: float
    converged: bool
    message: str
    r_squared: float
    poor_fit: bool
    flattened: bool
    suggested_max: int
    n: np.ndarray = dataclasses.field(repr=False)
    observed: np.ndarray = dataclasses.field(repr=False)
    fitted: np.ndarray = dataclasses.field(repr=False)
    residuals: np.ndarray = dataclasses.field(repr=False)
    start: tuple = dataclasses.field(repr=False)
    n_evaluations: int = dataclasses.field(repr=False)

    _frame_fields = ("p1", "p2", "converged", "r_squared", "poor_fit", "flattened", "suggested_max",
                     "n_evaluations", "message")

    def _str_lines(self):
        # the layout of R's print.nls (optRF keeps the nlsLM model), plus predstab's diagnostics
        rss = float(np.sum(self.residuals ** 2)) if self.converged else float("nan")
        width = max(len(r_signif(self.p1)), len(r_signif(self.p2)), 2)
        return [
            "Nonlinear regression model",
            "  model: stability ~ 1/(1 + (p1/n)^p2)",
            f"   data: {self.n.size} numbers of learners, "
            f"{r_signif(self.n.min())} to {r_signif(self.n.max())}",
            f"{'p1':>{width}} {'p2':>{width}}",
            f"{r_signif(self.p1):>{width}} {r_signif(self.p2):>{width}}",
            f" residual sum-of-squares: {r_signif(rss)}",
            "",
            f"Number of function evaluations: {self.n_evaluations}",
            f"{'Converged' if self.converged else 'Not converged'}: {self.message}",
            f"R-squared: {r_signif(self.r_squared)}; poor fit: {'yes' if self.poor_fit else 'no'}; "
            f"flattened within the grid: {'yes' if self.flattened else 'no'}",
        ]

    @validate_params({"n": [Interval(Real, 0, None, closed="neither"), "array-like"]})
    def stability(self, n):
        """Stability predicted for ``n`` learners (optRF's ``estimate_stability``).

        Parameters
        ----------
        n : float or array-like
            Numbers of learners (optRF rounds them up with ``ceiling``; so does this).

        Returns
        -------
        float or ndarray
        """
        n = np.ceil(np.asarray(n, dtype=float))
        out = _curve(n, self.p1, self.p2)
        return float(out) if out.ndim == 0 else out

    def _learners_at(self, s):
        """The fitted curve's inverse before rounding, ``p1 / (1/s - 1)^(1/p2)`` (NaN / inf where
        it has none)."""
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return self.p1 / (1.0 / s - 1.0) ** (1.0 / self.p2)

    @validate_params({"stability": [Interval(Real, None, None), "array-like"]})
    def num_learners_for(self, stability):
        """Number of learners needed to reach ``stability`` (optRF 1.2.1 ``estimate_numtrees``).

        .. math:: n = \\lceil p_1 / (1/s - 1)^{1/p_2} \\rceil

        (optRF 0.4.x used the exponent ``p2`` instead of ``1/p2``, a bug fixed in 1.x.)

        Parameters
        ----------
        stability : float or array-like
            Target stabilities in (0, 1).

        Returns
        -------
        int or ndarray of int
            ``-1`` where the target is not in (0, 1) or the fit failed.
        """
        s = np.asarray(stability, dtype=float)
        raw = self._learners_at(s)
        ok = np.isfinite(raw) & (s > 0) & (s < 1)
        out = np.where(ok, np.ceil(np.where(ok, raw, 0.0)), -1).astype(np.int64)
        return int(out) if out.ndim == 0 else out

    @validate_params({"rec_thresh": [_POSITIVE_FINITE], "round_to": [Options(tuple(_ROUND_DIGITS))],
                      "minimum": [_LEARNERS], "max_learners": [_LEARNERS]})
    def recommend(self, *, rec_thresh=1e-6, round_to="thousand", minimum=500, max_learners=1_000_000):
        """Recommended number of learners by optRF 1.2.1's rule.

        The fitted curve is evaluated at ``n = 10, 20, ..., max_learners``; the gain per
        learner is ``diff(stability) / 10``. The recommendation is the first ``n`` whose
        gain is below ``rec_thresh``, rounded (R's ``round``, ties to even); it is trusted
        only at or above the inflection point ``p1``, otherwise the threshold is lowered
        tenfold and the scan repeated. Recommendations below ``minimum`` are raised to it.

        Parameters
        ----------
        rec_thresh : float, default 1e-6
            Gain in stability per added learner below which the curve counts as flat.
        round_to : {"thousand", "hundred", "ten", "none"}, default "thousand"
            Rounding of the recommendation (optRF's ``round_recommendation``).
        minimum : int, default 500
            optRF's floor for recommendations.
        max_learners : int, default 1_000_000
            End of the scan (optRF: 1e6, or 100 x the number of variables above 1e5).

        Returns
        -------
        int or None
            None when the fit failed or the gain never falls below the threshold within
            ``max_learners`` (optRF then gives no recommendation); a warning says why.

        Warns
        -----
        PredstabWarning
            When no recommendation can be made.
        """
        rec, reason = self._recommend_detail(rec_thresh=rec_thresh, round_to=round_to, minimum=minimum,
                                             max_learners=max_learners)
        if rec is None:
            warn_outside(reason, PredstabWarning)
        return rec

    def _recommend_detail(self, *, rec_thresh, round_to, minimum, max_learners):
        # the public recommend() declares these; _tune calls this directly, so they are checked here too
        # (finite: an infinite threshold never shrinks below the gain and the loop below never ends)
        check_param("rec_thresh", rec_thresh, [_POSITIVE_FINITE])
        check_param("round_to", round_to, [Options(tuple(_ROUND_DIGITS))])
        check_param("minimum", minimum, [_LEARNERS])
        check_param("max_learners", max_learners, [_LEARNERS])
        if not self.converged:
            return None, f"No recommendation: the 2PL fit failed ({self.message})."
        steps = self._rule_steps(rec_thresh=rec_thresh, round_to=round_to, max_learners=max_learners)
        threshold, first, rec = steps[-1]
        if first is None:
            return None, (
                f"No recommendation: the fitted curve's gain per learner never falls below "
                f"{threshold:g} up to {int(max_learners)} learners (optRF gives none either)."
            )
        if rec >= self.p1:
            return max(int(rec), int(minimum)), ""
        if self.p1 > 0 and self.p2 > 0:  # an increasing curve, flat before its rounded count reaches p1
            return None, (
                f"No recommendation: the fitted gain per learner falls below {rec_thresh:g} from "
                f"{steps[0][1]:.0f} learners, which rounded to {_ROUNDING_WORDS[round_to]} is {rec:.0f}, "
                f"below the inflection point p1 = {self.p1:.3g}; lowering the threshold tenfold "
                f"(optRF's rule) never moves it past p1, as the curve is flat from there on. Use a "
                "finer rounding (round_to='ten' or 'none')."
            )
        # only reachable for a decreasing curve, on which optRF 1.2.1 loops forever
        return None, "No recommendation: the fitted curve does not increase (p2 <= 0 or p1 <= 0)."

    def _rule_steps(self, *, rec_thresh, round_to, max_learners):
        """optRF 1.2.1's scan, step by step: ``[(threshold, first n below it or None, that n
        rounded), ...]``, the threshold lowered tenfold while the rounded n is below ``p1`` (until
        it underflows to 0). The last step is the one that decides."""
        digits = _ROUND_DIGITS[round_to]
        scan = _GainScan(self.p1, self.p2, int(max_learners))
        threshold = float(rec_thresh)
        steps = []
        start = 0
        while threshold > 0:
            # a gain below threshold / 10 is below threshold: the next first index is not earlier
            start = scan.first_below(threshold, start)
            if start is None:
                steps.append((threshold, None, None))
                break
            first = float(scan.n_at(start))
            rec = float(_round_half_even(first, digits))
            steps.append((threshold, first, rec))
            if rec >= self.p1:
                break
            threshold *= 0.1
        return steps

    def suggested_grid(self):
        """A grid of learner counts that would resolve this curve.

        Doubling from the smallest grid value up to :attr:`suggested_max`, which is at
        least twice the inflection point and the count where the fitted stability reaches
        0.8 (or four times the current maximum when the fit failed).

        Returns
        -------
        tuple of int
        """
        low = int(np.min(self.n))
        out = [low]
        while out[-1] < self.suggested_max:
            out.append(out[-1] * 2)
        return tuple(out)


class _GainScan:
    """optRF's gain per learner ``diff(stability(n)) / 10`` at ``n = 20, 30, ..., max_learners``,
    evaluated lazily: :meth:`first_below` extends the evaluated part chunk by chunk (4,096 points,
    then doubling) until it finds the first gain below a threshold, so the usual scan, which
    stops within a few thousand learners, does not evaluate the 10^5 points up to 10^6 learners.
    Each point is the same elementwise expression as the whole scan (:func:`_curve` of the same
    grid values), so the numbers are the same."""

    def __init__(self, p1, p2, max_learners):
        self.p1, self.p2 = p1, p2
        self.grid = np.arange(_STEP, int(max_learners) + 1, _STEP, dtype=float)
        self.gain = np.empty(0)
        self._last = None  # the curve at the last grid value evaluated

    def n_at(self, k):
        """The number of learners of gain ``k`` (the later of its two grid values)."""
        return self.grid[k + 1]

    def _extend(self):
        done = len(self.gain)  # gains 0 .. done - 1 evaluated: curve at grid[0 .. done]
        if done >= len(self.grid) - 1:
            return False
        stop = min(len(self.grid), max(2 * (done + 1), 4096))
        lo = done + 1 if self._last is not None else 0
        values = _curve(self.grid[lo:stop], self.p1, self.p2)
        if self._last is not None:
            values = np.concatenate(([self._last], values))
        self.gain = np.concatenate((self.gain, np.diff(values) / _STEP))
        self._last = values[-1]
        return True

    def first_below(self, threshold, start=0):
        """The first gain index from ``start`` on with a gain below ``threshold``, or None."""
        while True:
            below = np.flatnonzero(self.gain[start:] < threshold)
            if below.size:
                return start + int(below[0])
            start = max(start, len(self.gain))
            if not self._extend():
                return None


_ROUNDING_WORDS = {"thousand": "the nearest thousand", "hundred": "the nearest hundred",
                   "ten": "the nearest ten", "none": "a whole number"}


def _suggested_max(n_max, p1, p2, converged):
    if not converged or not np.isfinite(p1) or p1 <= 0 or p2 <= 0:
        return int(4 * n_max)
    at_flat = p1 / (1.0 / _FLAT - 1.0) ** (1.0 / p2)
    target = max(2.0 * p1, at_flat, n_max)
    magnitude = 10 ** max(int(math.floor(math.log10(target))) - 1, 1)
    return int(math.ceil(target / magnitude) * magnitude)


def _fit_2pl_iv(n, stability):
    # a masked point is a missing one, which the fit refuses (it read the number under the mask)
    n = as_real_vector(refuse_masked(n, "n"), name="n")
    stability = as_real_vector(refuse_masked(stability, "stability"), name="stability")
    if n.ndim != 1 or stability.ndim != 1:
        raise ValueError(
            f"`n` and `stability` must be 1-D; got shapes {n.shape} and {stability.shape}."
        )
    if n.shape != stability.shape:
        raise ValueError(
            f"`n` and `stability` must have the same length; got {n.size} and {stability.size}."
        )
    if n.size < 3:
        raise ValueError(f"`n` must have at least 3 grid points to fit 2 parameters; got {n.size}.")
    if not np.all(np.isfinite(n)) or np.any(n <= 0):
        raise ValueError(f"`n` must contain positive finite numbers of learners; got {n.tolist()}.")
    if not np.all(np.isfinite(stability)):
        raise ValueError(f"`stability` must be finite; got {stability.tolist()}.")
    # every stability measure is at most 1; an estimate a little above it (noise, a bias
    # correction) is a point of a curve, a value far above it (a count of learners) is not
    above = stability > 1.5
    if above.any():
        first = int(np.flatnonzero(above)[0])
        raise ValueError(f"`stability` must hold stabilities (at most 1, estimates a little above it); got "
                         f"{stability[first]:g} at position {first}. Are `n` and `stability` swapped? "
                         "fit_2pl(n, stability).")
    return n, stability


@validate_params({"n": ["array-like"], "stability": ["array-like"]})
def fit_2pl(n, stability, /):
    """Fit optRF's 2PL curve of stability against the number of learners.

    .. math:: s(n) = \\frac{1}{1 + (p_1 / n)^{p_2}}

    Least squares by Levenberg-Marquardt (MINPACK ``lmdif`` through
    :func:`scipy.optimize.leastsq`, the routine behind ``minpack.lm::nlsLM``) with optRF's
    start values ``p1 = n[round(len(n) / 2)]`` (R's 1-based index and round-half-even) and
    ``p2 = 0.5``, and ``nls.lm.control``'s tolerances. A fit R would reject (MINPACK failure,
    non-finite or rank-deficient gradient at the solution) is returned with
    ``converged=False`` and NaN parameters rather than raised.

    Parameters
    ----------
    n : array-like of shape (n_points,)
        Numbers of learners (positive), in the order optRF would see them.
    stability : array-like of shape (n_points,)
        Stability measured at each ``n``.

    Returns
    -------
    TwoPL
        ``.p1``, ``.p2``, ``.converged``, ``.message``, ``.r_squared``, ``.poor_fit``,
        ``.flattened``, ``.residuals``; methods ``.stability(n)``, ``.num_learners_for(s)``,
        ``.recommend(...)``.

    Raises
    ------
    ValueError
        If ``n`` and ``stability`` differ in length, have fewer than 3 points, or hold
        non-finite values.

    Notes
    -----
    Matches optRF's ``non_linear_modelling`` (``minpack.lm::nlsLM``); see validation/.
    With exactly four grid points optRF 1.2.1 fails for a reason unrelated to the data
    (``nlsLM`` mistakes its result table, which has four columns, for a data variable);
    predstab fits those curves.

    References
    ----------
    .. [1] Lange, T. M., Gültas, M., Schmitt, A. O., Heinrich, F. (2025). optRF: Optimising
       random forest stability by determining the optimal number of trees. BMC
       Bioinformatics 26, 95. https://doi.org/10.1186/s12859-025-06097-1
    .. [2] Moré, J. J. (1978). The Levenberg-Marquardt algorithm: implementation and
       theory. Lecture Notes in Mathematics 630, 105-116. https://doi.org/10.1007/BFb0067700

    Examples
    --------
    >>> fit = fit_2pl([250, 500, 750, 1000, 2000], [0.488, 0.679, 0.704, 0.772, 0.870])
    >>> round(fit.p1), round(fit.p2, 2), fit.converged, fit.poor_fit
    (253, 0.9, True, False)
    >>> fit.recommend()
    18000
    >>> int(fit.num_learners_for(0.95))
    6626
    """
    n, stability = _fit_2pl_iv(n, stability)
    start = (float(n[round(n.size / 2) - 1]), 0.5)

    def residuals(p):
        return stability - _curve(n, p[0], p[1])

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        params, _, info, message, ier = leastsq(
            residuals, np.array(start), full_output=True, ftol=_TOL, xtol=_TOL, gtol=0.0,
            maxfev=_MAXFEV, epsfcn=0.0, factor=100.0,
        )
    p1, p2 = (float(v) for v in params)
    message = " ".join(str(message).split())
    converged = ier in (1, 2, 3, 4)
    if not converged:
        message = f"MINPACK did not converge (info = {ier}): {message}"
    elif not (np.isfinite(p1) and np.isfinite(p2)) or _rank_deficient(n, p1, p2):
        converged = False
        message = "singular gradient at the solution (R's nlsLM stops here)"
    if not converged:
        p1 = p2 = float("nan")
    fitted = _curve(n, p1, p2)
    resid = stability - fitted
    ss_tot = float(np.sum((stability - stability.mean()) ** 2))
    r_squared = 1.0 - float(np.sum(resid**2)) / ss_tot if ss_tot > 0 and converged else float("nan")
    poor = (not converged) or not (r_squared >= _R2_POOR)
    return TwoPL(
        p1=p1, p2=p2, converged=converged, message=message, r_squared=r_squared, poor_fit=poor,
        flattened=bool(converged and _curve(n.max(), p1, p2) >= _FLAT),
        suggested_max=_suggested_max(float(n.max()), p1, p2, converged),
        n=n, observed=stability, fitted=fitted, residuals=resid, start=start,
        n_evaluations=int(info["nfev"]),
    )
