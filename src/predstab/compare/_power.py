"""How many seeds, games or data sets: power of the two-sample t-test and of win rates."""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np
from scipy import stats

from .._utils import ConfidenceInterval, FrameMixin
from ._results import IntervalFrameMixin
from ._rmath import brent_zero

__all__ = [
    "power_ttest", "power_ttest_n", "seeds_needed", "detectable_effect",
    "win_rate_test", "WinRateResult", "games_needed", "GamesNeeded",
]


def _check_prob(value, name):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value):
        raise TypeError(f"`{name}` must be a real number; got {value!r}.")
    if not 0.0 < value < 1.0:
        raise ValueError(f"`{name}` must be strictly between 0 and 1; got {value!r}.")
    return float(value)


def _check_effect(d, name="d"):
    if isinstance(d, bool) or not isinstance(d, numbers.Real) or not np.isfinite(d):
        raise TypeError(f"`{name}` must be a finite real number; got {d!r}.")
    if d == 0:
        raise ValueError(f"`{name}` must be non-zero (a zero effect cannot be detected); got {d!r}.")
    return abs(float(d))


def _check_strict(strict):
    if not isinstance(strict, (bool, np.bool_)):
        raise TypeError(f"`strict` must be True or False; got {strict!r}.")
    return bool(strict)


def _power_two_sample(d, n, alpha, strict):
    """Power of the two-sided two-sample t-test with ``n`` per arm and effect ``d`` (in SDs)."""
    nu = 2.0 * (n - 1.0)
    q = stats.t.isf(alpha / 2.0, nu)
    ncp = math.sqrt(n / 2.0) * d
    upper = float(stats.nct.sf(q, nu, ncp))
    if not np.isfinite(upper):
        upper = 1.0 - float(stats.nct.cdf(q, nu, ncp))
    if not np.isfinite(upper):
        raise RuntimeError(f"noncentral t tail is not computable for df={nu}, ncp={ncp}.")
    if not strict:
        return upper
    # scipy.stats.nct.cdf returns NaN (and sometimes a too-large value) far in the lower tail
    # for a large noncentrality. P(T < -q) <= P(T < 0) = Phi(-ncp), a bound that is itself
    # negligible exactly where scipy fails, so it caps (and, if NaN, replaces) the value.
    bound = float(stats.norm.cdf(-ncp))
    lower = float(stats.nct.cdf(-q, nu, ncp))
    if not np.isfinite(lower):
        lower = float(stats.nct.sf(q, nu, -ncp))
    lower = bound if not np.isfinite(lower) else min(max(lower, 0.0), bound)
    return min(upper + lower, 1.0)


def _power_ttest_iv(d, n, alpha, strict):
    d = _check_effect(d)
    if isinstance(n, bool) or not isinstance(n, numbers.Real) or not np.isfinite(n):
        raise TypeError(f"`n` must be a finite real number (per arm); got {n!r}.")
    if n < 2:
        raise ValueError(f"`n` must be at least 2 per arm; got {n!r}.")
    return d, float(n), _check_prob(alpha, "alpha"), _check_strict(strict)


def power_ttest(d, n, *, alpha=0.05, strict=True):
    r"""Power of the two-sided two-sample t-test with ``n`` runs (seeds) per arm.

    With :math:`\nu = 2(n-1)`, :math:`\delta = d\sqrt{n/2}` and :math:`q = t_{1-\alpha/2,\nu}`,

    .. math::

        \text{power} = P(T_{\nu,\delta} > q) + P(T_{\nu,\delta} < -q),

    where :math:`T_{\nu,\delta}` is noncentral t. ``strict=False`` drops the second term
    (R's default ``power.t.test(strict = FALSE)``).

    Parameters
    ----------
    d : float
        Standardised effect (difference of means over the common SD), Cohen's d.
    n : float
        Runs per arm (may be fractional, as in R).
    alpha : float, default 0.05
        Two-sided significance level.
    strict : bool, default True
        Count both rejection tails.

    Returns
    -------
    float
        The power, never NaN (SciPy's noncentral t lower tail is guarded).

    See Also
    --------
    seeds_needed, detectable_effect

    References
    ----------
    Cohen, J. (1988). *Statistical Power Analysis for the Behavioral Sciences* (2nd ed.).
    https://doi.org/10.4324/9780203771587

    Matches `stats::power.t.test(n, delta = d, sd = 1, strict = strict)$power`; see validation/.

    Examples
    --------
    >>> round(power_ttest(0.5, 64), 4)
    0.8015
    >>> round(power_ttest(0.5, 3), 4), round(power_ttest(0.5, 3, strict=False), 4)
    (0.0768, 0.0698)
    """
    d, n, alpha, strict = _power_ttest_iv(d, n, alpha, strict)
    return _power_two_sample(d, n, alpha, strict)


def _power_ttest_n_iv(d, alpha, power, strict):
    d = _check_effect(d)
    alpha = _check_prob(alpha, "alpha")
    power = _check_prob(power, "power")
    if power <= alpha:
        raise ValueError(f"`power` must exceed `alpha`; got power={power}, alpha={alpha}.")
    return d, alpha, power, _check_strict(strict)


def power_ttest_n(d, *, alpha=0.05, power=0.8, strict=True):
    r"""Fractional runs per arm at which the two-sample t-test reaches ``power`` (R's ``n``).

    Solves :func:`power_ttest` ``(d, n) = power`` for ``n`` on :math:`[2, 10^7]` with Brent's
    method and R's tolerance (``.Machine$double.eps^0.25``), so the value is R's to 1e-10; it
    is within about 1e-4 of the exact root. Use :func:`seeds_needed` for the integer answer.

    Parameters
    ----------
    d : float
        Standardised effect.
    alpha : float, default 0.05
    power : float, default 0.8
    strict : bool, default True

    Returns
    -------
    float

    References
    ----------
    Brent, R. P. (1973). *Algorithms for Minimization without Derivatives*. Prentice-Hall.

    Matches `stats::power.t.test(delta = d, sd = 1, power = power, strict = strict)$n`; see
    validation/.

    Examples
    --------
    >>> round(power_ttest_n(0.5), 3)
    63.766
    """
    d, alpha, power, strict = _power_ttest_n_iv(d, alpha, power, strict)

    def gap(n):
        return _power_two_sample(d, n, alpha, strict) - power

    # R's bracket; like uniroot(extendInt = "upX") it is widened only for tiny effects
    upper = 1e7
    while gap(upper) < 0:
        upper *= 10.0
    return brent_zero(gap, 2.0, upper)


def seeds_needed(d, *, alpha=0.05, power=0.8, strict=True):
    r"""Smallest whole number of runs (seeds) per arm for the two-sample t-test to reach ``power``.

    The power of the t-test increases with ``n``, so the answer is the ceiling of the exact
    root of ``power_ttest(d, n) = power``, checked on the integers either side. The normal
    approximation is :math:`2(z_{1-\alpha/2} + z_{power})^2 / d^2` (15.6978/d² by default).

    Parameters
    ----------
    d : float
        Standardised effect (Cohen's d) to detect.
    alpha : float, default 0.05
    power : float, default 0.8
    strict : bool, default True

    Returns
    -------
    int
        Runs per arm.

    References
    ----------
    Colas, C., Sigaud, O. & Oudeyer, P.-Y. (2018). How many random seeds? Statistical power
    analysis in deep reinforcement learning experiments. arXiv:1806.08295.
    https://doi.org/10.48550/arXiv.1806.08295

    Matches `ceiling(stats::power.t.test(delta = d, power = power)$n)`; see validation/.

    Examples
    --------
    >>> [seeds_needed(d) for d in (0.2, 0.5, 1.0, 1.5, 2.0, 3.0)]
    [394, 64, 17, 9, 6, 4]
    """
    d, alpha, power, strict = _power_ttest_n_iv(d, alpha, power, strict)

    def gap(n):
        return _power_two_sample(d, n, alpha, strict) - power

    if gap(2.0) >= 0:
        return 2
    upper = 1e7
    while gap(upper) < 0:
        upper *= 10.0
    root = brent_zero(gap, 2.0, upper, tol=1e-9)
    n = max(2, math.ceil(root))
    while n > 2 and gap(n - 1) >= 0:
        n -= 1
    while gap(n) < 0:
        n += 1
    return int(n)


def _detectable_effect_iv(n, alpha, power):
    if isinstance(n, bool) or not isinstance(n, numbers.Real) or not np.isfinite(n):
        raise TypeError(f"`n` must be a finite real number (per arm); got {n!r}.")
    if n < 2:
        raise ValueError(f"`n` must be at least 2 per arm; got {n!r}.")
    alpha = _check_prob(alpha, "alpha")
    power = _check_prob(power, "power")
    if power <= alpha:
        raise ValueError(f"`power` must exceed `alpha`; got power={power}, alpha={alpha}.")
    return float(n), alpha, power


def detectable_effect(n, *, alpha=0.05, power=0.8, strict=True):
    r"""Smallest standardised effect the two-sample t-test detects with ``power`` at ``n`` per arm.

    Solves ``power_ttest(d, n) = power`` for ``d`` (Brent's method to 1e-12).

    Parameters
    ----------
    n : float
        Runs per arm.
    alpha : float, default 0.05
    power : float, default 0.8
    strict : bool, default True

    Returns
    -------
    float

    References
    ----------
    Cohen, J. (1988). *Statistical Power Analysis for the Behavioral Sciences* (2nd ed.).
    https://doi.org/10.4324/9780203771587

    Matches `stats::power.t.test(n = n, power = power)$delta` (to R's uniroot tolerance).

    Examples
    --------
    >>> [round(detectable_effect(n), 2) for n in (3, 5, 10, 20, 30, 64, 100)]
    [3.07, 2.02, 1.32, 0.91, 0.74, 0.5, 0.4]
    """
    n, alpha, power = _detectable_effect_iv(n, alpha, power)
    strict = _check_strict(strict)

    def gap(d):
        return _power_two_sample(d, n, alpha, strict) - power

    hi = 1.0
    while gap(hi) < 0:
        hi *= 2.0
    return brent_zero(gap, 1e-8, hi, tol=1e-12)


@dataclass(frozen=True)
class WinRateResult(IntervalFrameMixin):
    """Exact binomial test of a win rate against 1/2.

    Attributes
    ----------
    statistic : float
        Observed win rate ``wins / n``.
    pvalue : float
        Exact two-sided p-value.
    wins, n : int
    confidence_interval : ConfidenceInterval
        Clopper–Pearson (exact) interval, as R's ``binom.test``.
    wald_interval : ConfidenceInterval
        Wald interval :math:`\\hat p \\pm z \\sqrt{\\hat p(1-\\hat p)/n}`.
    level : float
    """

    statistic: float
    pvalue: float
    wins: int
    n: int
    confidence_interval: ConfidenceInterval
    wald_interval: ConfidenceInterval
    level: float


def _check_count(value, name, *, minimum=0):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        if isinstance(value, numbers.Real) and float(value).is_integer():
            value = int(value)
        else:
            raise TypeError(f"`{name}` must be a whole number; got {value!r}.")
    if value < minimum:
        raise ValueError(f"`{name}` must be at least {minimum}; got {value!r}.")
    return int(value)


def _win_rate_test_iv(wins, n, level):
    wins = _check_count(wins, "wins")
    n = _check_count(n, "n", minimum=1)
    if wins > n:
        raise ValueError(f"`wins` must not exceed `n`; got wins={wins}, n={n}.")
    return wins, n, _check_prob(level, "level")


def binomial_two_sided_p(x, n):
    """Exact two-sided binomial p-value against 1/2: ``min(1, 2 P[X <= min(x, n - x)])``."""
    if n == 0:
        return float("nan")
    k = min(x, n - x)
    if 2 * k == n:
        return 1.0
    return min(1.0, 2.0 * float(stats.binom.cdf(k, n, 0.5)))


def win_rate_test(wins, n, *, level=0.95):
    r"""Is a win rate different from 1/2? Exact binomial test with exact and Wald intervals.

    .. math::

        p = \min\{1, 2 P[X \le \min(w, n - w)]\},\quad X \sim \text{Binomial}(n, 1/2).

    Parameters
    ----------
    wins : int
        Games (or tasks, or seeds) won by B.
    n : int
        Games played (ties removed beforehand, or counted as half wins by the caller).
    level : float, default 0.95

    Returns
    -------
    WinRateResult
        ``.statistic`` (win rate), ``.pvalue``, ``.confidence_interval`` (Clopper–Pearson),
        ``.wald_interval``.

    References
    ----------
    Clopper, C. J. & Pearson, E. S. (1934). The use of confidence or fiducial limits
    illustrated in the case of the binomial. *Biometrika* 26, 404-413.
    https://doi.org/10.1093/biomet/26.4.404

    Matches `stats::binom.test(wins, n, 0.5)`; see validation/.

    Examples
    --------
    >>> r = win_rate_test(55, 100)
    >>> round(r.pvalue, 4), [round(v, 3) for v in r.wald_interval]
    (0.3682, [0.452, 0.648])
    """
    wins, n, level = _win_rate_test_iv(wins, n, level)
    tail = (1.0 - level) / 2.0
    low = 0.0 if wins == 0 else float(stats.beta.ppf(tail, wins, n - wins + 1))
    high = 1.0 if wins == n else float(stats.beta.ppf(1.0 - tail, wins + 1, n - wins))
    rate = wins / n
    half = float(stats.norm.isf(tail)) * math.sqrt(rate * (1.0 - rate) / n)
    return WinRateResult(statistic=rate, pvalue=binomial_two_sided_p(wins, n), wins=wins, n=n,
                         confidence_interval=ConfidenceInterval(low, high),
                         wald_interval=ConfidenceInterval(rate - half, rate + half), level=level)


@dataclass(frozen=True)
class GamesNeeded(FrameMixin):
    """Games needed to show a true win rate ``p`` differs from 1/2.

    Attributes
    ----------
    n : int
        Smallest number of games whose exact binomial test has at least the target power.
    power : float
        Exact power at ``n``.
    n_normal : float
        Normal-approximation answer (fractional).
    """

    n: int
    power: float
    n_normal: float


def _exact_binomial_power(n, p, alpha):
    """Power of the exact two-sided binomial test of 1/2 with ``n`` games at true rate ``p``.

    ``n`` may be an array. The test rejects when ``x <= k`` or ``x >= n - k``, with ``k`` the
    largest count whose two-sided p-value ``2 P[X <= k]`` is at most ``alpha`` (none: power 0).
    """
    n = np.asarray(n, dtype=np.int64)
    k = stats.binom.ppf(alpha / 2.0, n, 0.5).astype(np.int64)
    # ppf gives the smallest k with cdf >= alpha/2; step to the last k with 2 cdf(k) <= alpha
    for _ in range(3):
        k = np.where(2.0 * stats.binom.cdf(k, n, 0.5) > alpha, k - 1, k)
    for _ in range(3):
        k = np.where(2.0 * stats.binom.cdf(k + 1, n, 0.5) <= alpha, k + 1, k)
    power = np.where(k >= 0, stats.binom.cdf(k, n, p) + stats.binom.sf(n - k - 1, n, p), 0.0)
    return power if power.ndim else float(power)


def _games_needed_iv(p, alpha, power):
    p = _check_prob(p, "p")
    if p == 0.5:
        raise ValueError("`p` must differ from 0.5 (no difference cannot be detected); got 0.5.")
    alpha = _check_prob(alpha, "alpha")
    power = _check_prob(power, "power")
    if power <= alpha:
        raise ValueError(f"`power` must exceed `alpha`; got power={power}, alpha={alpha}.")
    return p, alpha, power


def games_needed(p, *, alpha=0.05, power=0.8):
    r"""Games needed for the exact binomial test to detect a true win rate ``p`` (vs 1/2).

    The exact power is saw-toothed in ``n`` (the rejection region grows in steps), so the
    search walks up every ``n`` from well below the normal approximation

    .. math::

        n \approx \left(\frac{z_{1-\alpha/2}/2 + z_{power}\sqrt{p(1-p)}}{p - 1/2}\right)^2

    and returns the first ``n`` whose exact power reaches the target.

    Parameters
    ----------
    p : float
        True win rate of B.
    alpha : float, default 0.05
    power : float, default 0.8

    Returns
    -------
    GamesNeeded
        ``.n``, ``.power`` (exact, at ``n``), ``.n_normal``.

    References
    ----------
    Chernick, M. R. & Liu, C. Y. (2002). The saw-toothed behavior of power versus sample
    size and software solutions. *The American Statistician* 56, 149-155.
    https://doi.org/10.1198/000313002317572835

    No base-R function; the exact power uses the rejection region of `stats::binom.test`.

    Examples
    --------
    >>> g = games_needed(0.55)
    >>> g.n, round(g.power, 4), round(g.n_normal, 2)
    (786, 0.8013, 782.53)
    """
    p, alpha, power = _games_needed_iv(p, alpha, power)
    z_a, z_b = stats.norm.isf(alpha / 2.0), stats.norm.ppf(power)
    n_normal = ((z_a * 0.5 + z_b * math.sqrt(p * (1.0 - p))) / (p - 0.5)) ** 2
    # every n is checked (vectorised), in blocks, from well below the normal answer: at
    # 0.9 n_normal the power is about 0.76 (at 0.8 target), far below the saw-tooth's reach
    # once n is large; for smaller n start at half
    start = max(1, int(0.5 * n_normal) - 10) if n_normal < 10_000 else int(0.9 * n_normal)
    block = max(1000, int(0.02 * n_normal))
    while True:
        ns = np.arange(start, start + block)
        got = _exact_binomial_power(ns, p, alpha)
        hit = np.flatnonzero(got >= power)
        if hit.size:
            i = int(hit[0])
            return GamesNeeded(n=int(ns[i]), power=float(got[i]), n_normal=float(n_normal))
        start = int(ns[-1]) + 1
