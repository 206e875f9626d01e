"""Numerical procedures that R's answers depend on, reimplemented from their published sources.

Two R results are not the exact mathematical values but the output of a particular
iteration, stopped at a tolerance: ``power.t.test`` solves for ``n`` with ``uniroot``
(Brent's method with ``tol = .Machine$double.eps^0.25``) and ``qtukey`` runs a secant
iteration that stops when successive iterates differ by less than 1e-4. To agree with R to
1e-10 rather than to 1e-6, predstab runs the same iterations (from Brent 1973 and
Copenhaver & Holland 1988 / Odeh & Evans 1974, not from R's code) on SciPy's distribution
functions. The exact values differ from R's by at most a few 1e-7 relative; see
``validation/README.md``.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

__all__ = ["brent_zero", "tukey_quantile_secant", "R_UNIROOT_TOL"]

R_UNIROOT_TOL = float(np.finfo(float).eps) ** 0.25
_EPS = float(np.finfo(float).eps)


def brent_zero(f, a, b, *, tol=R_UNIROOT_TOL, maxiter=1000):
    """Zero of ``f`` in ``[a, b]`` by Brent's (1973) algorithm *zero*, as ``uniroot`` runs it.

    Parameters
    ----------
    f : callable
        Continuous function with ``f(a)`` and ``f(b)`` of opposite signs.
    a, b : float
        Bracket.
    tol : float
        Absolute tolerance of the bracket (R's default ``.Machine$double.eps^0.25``).
    maxiter : int
        Maximum number of iterations (R's default 1000).

    Returns
    -------
    float

    References
    ----------
    Brent, R. P. (1973). *Algorithms for Minimization without Derivatives*, ch. 4.
    Prentice-Hall.

    Examples
    --------
    >>> round(brent_zero(lambda x: x * x - 2.0, 0.0, 2.0, tol=1e-12), 10)
    1.4142135624
    """
    fa, fb = f(a), f(b)
    if fa == 0.0:
        return float(a)
    if fb == 0.0:
        return float(b)
    if np.sign(fa) == np.sign(fb):
        raise ValueError(f"`f` must change sign on [{a}, {b}]; got f(a) = {fa}, f(b) = {fb}.")
    c, fc = a, fa
    for _ in range(maxiter + 1):
        prev_step = b - a
        if abs(fc) < abs(fb):
            a, b, c = b, c, b
            fa, fb, fc = fb, fc, fb
        tol_act = 2.0 * _EPS * abs(b) + tol / 2.0
        new_step = (c - b) / 2.0
        if abs(new_step) <= tol_act or fb == 0.0:
            return float(b)
        # try interpolation only if the last step was large enough and in the right direction
        if abs(prev_step) >= tol_act and abs(fa) > abs(fb):
            cb = c - b
            if a == c:  # linear (secant) interpolation
                t1 = fb / fa
                p = cb * t1
                q = 1.0 - t1
            else:  # inverse quadratic interpolation
                q = fa / fc
                t1 = fb / fc
                t2 = fb / fa
                p = t2 * (cb * q * (q - t1) - (b - a) * (t1 - 1.0))
                q = (q - 1.0) * (t1 - 1.0) * (t2 - 1.0)
            if p > 0:
                q = -q
            else:
                p = -p
            if p < (0.75 * cb * q - abs(tol_act * q) / 2.0) and p < abs(prev_step * q / 2.0):
                new_step = p / q
        if abs(new_step) < tol_act:
            new_step = tol_act if new_step > 0 else -tol_act
        a, fa = b, fb
        b = b + new_step
        fb = f(b)
        if (fb > 0 and fc > 0) or (fb < 0 and fc < 0):
            c, fc = a, fa
    raise RuntimeError(f"Brent's method did not converge in {maxiter} iterations.")


def _tukey_start(p, k, df):
    """Initial estimate of the studentized-range quantile (Odeh & Evans 1974, AS 70)."""
    ps = 0.5 - 0.5 * p
    y = math.sqrt(math.log(1.0 / (ps * ps)))
    num = (((y * -0.453642210148e-04 - 0.204231210125) * y - 0.342242088547) * y - 1.0) * y \
        + 0.322232421088
    den = (((y * 0.38560700634e-02 + 0.103537752850) * y + 0.531103462366) * y
           + 0.588581570495) * y + 0.993484626060e-01
    t = y + num / den
    if df < 120.0:
        t += (t ** 3 + t) / df / 4.0
    q = 0.8832 - 0.2368 * t
    if df < 120.0:
        q += -1.214 / df + 1.208 * t / df
    return t * (q * math.log(k - 1.0) + 1.4142)


def tukey_quantile_secant(p, k, df=np.inf, *, eps=1e-4, maxiter=50):
    """Quantile of the studentized range by the secant iteration of Copenhaver & Holland (1988).

    The iteration starts at the AS 70 estimate, takes a second point one unit away, and
    stops when successive iterates differ by less than ``eps`` — as R's ``qtukey`` does —
    using :func:`scipy.stats.studentized_range.cdf` for the probabilities.

    Returns
    -------
    float

    References
    ----------
    Copenhaver, M. D. & Holland, B. S. (1988). Computation of the distribution of the maximum
    studentized range statistic with application to multiple significance testing of simple
    effects. *J. Stat. Comput. Simul.* 30, 1-15. https://doi.org/10.1080/00949658808811082

    Examples
    --------
    >>> round(tukey_quantile_secant(0.95, 3) / 2 ** 0.5, 6)
    2.343701
    """

    def g(x):
        return float(stats.studentized_range.cdf(x, k, df)) - p

    x0 = _tukey_start(p, k, df)
    v0 = g(x0)
    x1 = max(0.0, x0 - 1.0) if v0 > 0.0 else x0 + 1.0
    v1 = g(x1)
    ans = x1
    for _ in range(1, maxiter):
        ans = x1 - v1 * (x1 - x0) / (v1 - v0)
        v0, x0 = v1, x1
        ans = max(ans, 0.0)
        v1 = g(ans)
        x1 = ans
        if abs(x1 - x0) < eps:
            return ans
    return ans
