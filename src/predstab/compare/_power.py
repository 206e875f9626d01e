"""How many seeds, games or data sets: power of t-tests and of win rates."""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np
from scipy import stats

from .._core._docstrings import fill_doc
from .._core._results import Result, result
from .._core._utils import ConfidenceInterval
from .._core._validation import Interval, Options, validate_params
from ._common import ALTERNATIVE, CONFIDENCE, DOC, PROBABILITY
from ._results import StatisticPvalue, htest_lines
from ._rmath import R_UNIROOT_TOL, brent_zero

__all__ = [
    "power_ttest", "power_ttest_n", "seeds_needed", "detectable_effect",
    "win_rate_test", "WinRateResult", "games_needed", "GamesNeeded",
]

_TESTS = ("two-sample", "one-sample", "paired")
_SIDES = ("two-sided", "one-sided")
_EFFECT = [Interval(Real, None, None, closed="neither")]
_N = [Interval(Real, 2, None)]
_DESIGN = {"strict": ["boolean"], "test": [Options(_TESTS)], "alternative": [Options(_SIDES)]}
_ALPHA = {"alpha": "significance"}   # the name before predstab 0.2.0


def _check_effect(d, alternative):
    if not np.isfinite(d):
        raise ValueError(f"`d` must be a finite real number; got {d!r}.")
    if d == 0:
        raise ValueError(f"`d` must be non-zero (a zero effect cannot be detected); got {d!r}.")
    # two-sided: the sign does not matter (R takes abs(delta)); one-sided: the test looks for
    # a positive effect (B better than A), so a negative d has power below the significance
    # level, as in R
    return abs(float(d)) if alternative == "two-sided" else float(d)


def _finite(name, value):
    if value is not None and not np.isfinite(value):
        raise ValueError(f"`{name}` must be finite; got {value!r}.")


def _power_exceeds_significance(power, significance):
    if power <= significance:
        raise ValueError(f"`power` must exceed `significance`; got power={power}, "
                         f"significance={significance}.")


def _sample_size_iv(d, significance, power, test, alternative, ratio):
    """The effect to solve for (:func:`_check_effect`) after the checks :func:`power_ttest_n` and
    :func:`seeds_needed` share."""
    if test != "two-sample" and ratio != 1.0:
        raise ValueError(f"`ratio` applies to test='two-sample' only; got test={test!r}.")
    _finite("ratio", ratio)
    _power_exceeds_significance(power, significance)
    d = _check_effect(d, alternative)
    if d < 0:
        raise ValueError(f"`d` must be positive for a one-sided test (it looks for B better than A: "
                         f"its power stays below `significance` for d < 0); got {d!r}.")
    return d


def _noncentral_t_sf(q, nu, ncp):
    upper = float(stats.nct.sf(q, nu, ncp))
    if not np.isfinite(upper):
        upper = 1.0 - float(stats.nct.cdf(q, nu, ncp))
    if not np.isfinite(upper):
        # scipy's series fails for a huge noncentrality. T = (Z + ncp) / S, S^2 ~ chi2(nu) / nu:
        # P(T > q) = E[Phi(ncp - q S)], a step at S = ncp / q of width ~ 1 / q next to ncp / q,
        # so P(S < ncp / q) to a relative ~ 40 / |ncp| (exact 0 or 1 where scipy gives up)
        if abs(ncp) < 1e3:
            raise ValueError(f"the noncentral t tail is not computable for df={nu}, ncp={ncp}; choose "
                             "another `d` or `n`.")
        ratio = ncp / q if q != 0.0 else math.copysign(math.inf, ncp)
        if q <= 0.0:
            upper = 1.0 if ncp > 0 else float(stats.chi2.sf(nu * ratio * ratio, nu))
        else:
            upper = float(stats.chi2.cdf(nu * ratio * ratio, nu)) if ncp > 0 else 0.0
    return upper


def _power(d, n, significance, strict, test="two-sample", alternative="two-sided", n_b=None):
    """Power of the t-test as R's ``power.t.test`` (and ``pwr.t2n.test`` for ``n_b``) computes it."""
    if test == "two-sample":
        n_b = n if n_b is None else n_b
        nu = n + n_b - 2.0
        # n n_b overflows beyond 1e154 runs (a tiny d): the same ratio, factored
        share = n_b / (n + n_b)
        root = math.sqrt(n * share) if n * n_b >= 1e300 else math.sqrt(n * n_b / (n + n_b))
        ncp = d * root
    else:  # one-sample, or paired (d: mean difference over the SD of the differences)
        nu = n - 1.0
        ncp = d * math.sqrt(n)
    sides = 2.0 if alternative == "two-sided" else 1.0
    q = float(stats.t.isf(significance / sides, nu))
    upper = _noncentral_t_sf(q, nu, ncp)
    if not strict or sides == 1.0:
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



@fill_doc(**DOC)
@validate_params({"d": _EFFECT, "n": _N, "significance": PROBABILITY, "n_b": [Interval(Real, 2, None), None],
                  **_DESIGN}, renamed=_ALPHA)
def power_ttest(d, n, *, significance=0.05, strict=True, test="two-sample", alternative="two-sided",
                n_b=None):
    r"""Power of the t-test: two-sample with ``n`` runs (seeds) per arm, one-sample or paired.

    With :math:`\nu` degrees of freedom, noncentrality :math:`\delta` and
    :math:`q = t_{1-\alpha/s,\nu}` (:math:`\alpha` the ``significance``, :math:`s = 2`
    two-sided, 1 one-sided),

    .. math::

        \text{power} = P(T_{\nu,\delta} > q) + P(T_{\nu,\delta} < -q),

    where :math:`T_{\nu,\delta}` is noncentral t; two-sample: :math:`\nu = n_a + n_b - 2`,
    :math:`\delta = d\sqrt{n_a n_b/(n_a + n_b)}` (:math:`2(n-1)` and :math:`d\sqrt{n/2}` for
    equal arms); one-sample and paired: :math:`\nu = n - 1`, :math:`\delta = d\sqrt n`.
    ``strict=False`` and one-sided tests drop the second term (R's default
    ``power.t.test(strict = FALSE)``).

    Parameters
    ----------
    d : float
        Standardised effect B minus A: difference of means over the common SD (Cohen's d);
        for ``test="paired"`` the mean difference over the SD of the differences; for
        ``"one-sample"`` (mean - mu) / SD. One-sided tests look for ``d > 0``.
    n : float
        Runs per arm (two-sample), observations or pairs (may be fractional, as in R).
    %(significance)s
    %(strict)s
    %(test)s
    %(sides)s
    n_b : float, optional
        Runs of the second arm when the arms differ in size (two-sample only; ``n`` is then
        the first arm), as ``pwr::pwr.t2n.test``.

    Returns
    -------
    float
        The power, never NaN (SciPy's noncentral t lower tail is guarded).

    See Also
    --------
    seeds_needed, power_ttest_n, detectable_effect

    References
    ----------
    Cohen, J. (1988). *Statistical Power Analysis for the Behavioral Sciences* (2nd ed.).
    https://doi.org/10.4324/9780203771587

    Matches `stats::power.t.test(n, delta = d, sd = 1, sig.level = significance, type =, alternative =,
    strict =)$power`
    (and ``pwr::pwr.t2n.test(n1, n2, d)`` for unequal arms); see validation/.

    Examples
    --------
    >>> round(power_ttest(0.5, 64), 4)
    0.8015
    >>> round(power_ttest(0.5, 3), 4), round(power_ttest(0.5, 3, strict=False), 4)
    (0.0768, 0.0698)
    >>> round(power_ttest(0.487, 18, test="one-sample", alternative="one-sided"), 6)
    0.632341
    """
    if test != "two-sample" and n_b is not None:
        raise ValueError(f"`n_b` (the second arm) applies to test='two-sample' only; got test={test!r}.")
    _finite("n", n)
    _finite("n_b", n_b)
    d = _check_effect(d, alternative)
    return _power(d, float(n), float(significance), bool(strict), test, alternative,
                  None if n_b is None else float(n_b))


def _solve_n(d, significance, power, strict, test, alternative, ratio, tol):
    def gap(n):
        return _power(d, n, significance, strict, test, alternative,
                      None if ratio == 1.0 else ratio * n) - power

    # R's bracket; like uniroot(extendInt = "upX") it is widened only for tiny effects
    upper = 1e7
    while gap(upper) < 0:
        upper *= 10.0
        if upper > 1e300:
            raise ValueError(f"`d` is too small for any number of runs to reach power {power:g} "
                             f"(more than 1e300 needed); got {d!r}.")
    return gap, upper


@fill_doc(**DOC)
@validate_params({"d": _EFFECT, "significance": PROBABILITY, "power": PROBABILITY,
                  "ratio": [Interval(Real, 0, None, closed="neither")],
                  "tol": [Interval(Real, 0, None, closed="neither")], **_DESIGN}, renamed=_ALPHA)
def power_ttest_n(d, *, significance=0.05, power=0.8, strict=True, test="two-sample",
                  alternative="two-sided", ratio=1.0, tol=R_UNIROOT_TOL):
    r"""Fractional runs per arm (or pairs) at which the t-test reaches ``power`` (R's ``n``).

    Solves :func:`power_ttest` ``(d, n) = power`` for ``n`` on :math:`[2, 10^7]` with Brent's
    method as R's ``uniroot`` runs it; with R's tolerance (``.Machine$double.eps^0.25``, the
    default) the value is R's to 1e-10, within about 1e-4 of the exact root; ``tol=1e-10``
    gives R's ``power.t.test(..., tol = 1e-10)``. Use :func:`seeds_needed` for the integer
    answer.

    Parameters
    ----------
    d : float
        Standardised effect B minus A.
    %(power_design)s
    ratio : float, default 1
        Size of the second arm over the first (two-sample only): the answer is the first
        arm's size, the second is ``ratio * n``.
    tol : float, default ``.Machine$double.eps^0.25``
        Tolerance of the root (R's ``tol``).

    Returns
    -------
    float

    References
    ----------
    Brent, R. P. (1973). *Algorithms for Minimization without Derivatives*. Prentice-Hall.

    Matches `stats::power.t.test(delta = d, sd = 1, sig.level = significance, power = power, type =,
    alternative =, strict =, tol =)$n`; see validation/.

    Examples
    --------
    >>> round(power_ttest_n(0.5), 3)
    63.766
    """
    d = _sample_size_iv(d, significance, power, test, alternative, ratio)
    gap, upper = _solve_n(d, float(significance), float(power), bool(strict), test, alternative, float(ratio),
                          tol)
    return brent_zero(gap, 2.0, upper, tol=float(tol))


@fill_doc(**DOC)
@validate_params({"d": _EFFECT, "significance": PROBABILITY, "power": PROBABILITY,
                  "ratio": [Interval(Real, 0, None, closed="neither")], **_DESIGN}, renamed=_ALPHA)
def seeds_needed(d, *, significance=0.05, power=0.8, strict=True, test="two-sample", alternative="two-sided",
                 ratio=1.0):
    r"""Smallest whole number of runs (seeds) per arm for the t-test to reach ``power``.

    The power of the t-test increases with ``n``, so the answer is the ceiling of the exact
    root of ``power_ttest(d, n) = power``, checked on the integers either side. The normal
    approximation is :math:`2(z_{1-\alpha/2} + z_{power})^2 / d^2` (:math:`\alpha` the
    ``significance``; 15.6978/d² by default).

    Parameters
    ----------
    d : float
        Standardised effect B minus A (Cohen's d) to detect.
    %(power_design)s
    ratio : float, default 1
        Second arm over the first (two-sample); the second arm has ``ratio * n`` runs
        (rounded up by the caller).

    Returns
    -------
    int
        Runs per arm (pairs for ``"paired"``, observations for ``"one-sample"``).

    References
    ----------
    Colas, C., Sigaud, O. & Oudeyer, P.-Y. (2018). How many random seeds? Statistical power
    analysis in deep reinforcement learning experiments. arXiv:1806.08295.
    https://doi.org/10.48550/arXiv.1806.08295

    Matches `ceiling(stats::power.t.test(delta = d, sig.level = significance, power = power)$n)`;
    see validation/.

    Examples
    --------
    >>> [seeds_needed(d) for d in (0.2, 0.5, 1.0, 1.5, 2.0, 3.0)]
    [394, 64, 17, 9, 6, 4]
    """
    d = _sample_size_iv(d, significance, power, test, alternative, ratio)
    gap, upper = _solve_n(d, float(significance), float(power), bool(strict), test, alternative, float(ratio),
                          1e-9)
    if gap(2.0) >= 0:
        return 2
    root = brent_zero(gap, 2.0, upper, tol=1e-9)
    n = max(2, math.ceil(root))
    if n > 2 ** 52:                 # n - 1 and n are the same float: no integer to check
        return int(n)
    while n > 2 and gap(n - 1) >= 0:
        n -= 1
    while gap(n) < 0:
        n += 1
    return int(n)


@fill_doc(**DOC)
@validate_params({"n": _N, "significance": PROBABILITY, "power": PROBABILITY,
                  "tol": [Interval(Real, 0, None, closed="neither")], **_DESIGN}, renamed=_ALPHA)
def detectable_effect(n, *, significance=0.05, power=0.8, strict=True, test="two-sample",
                      alternative="two-sided", tol=1e-12):
    r"""Smallest standardised effect the t-test detects with ``power`` at ``n`` per arm.

    Solves ``power_ttest(d, n) = power`` for ``d`` on R's bracket :math:`[10^{-7}, 10^7]`
    with Brent's method to ``tol`` (1e-12 by default; ``tol=R_UNIROOT_TOL`` gives R's
    ``uniroot`` answer, which is only within about 1e-4 of the root).

    Parameters
    ----------
    n : float
        Runs per arm (pairs, observations).
    %(power_design)s
    tol : float, default 1e-12

    Returns
    -------
    float

    References
    ----------
    Cohen, J. (1988). *Statistical Power Analysis for the Behavioral Sciences* (2nd ed.).
    https://doi.org/10.4324/9780203771587

    Matches `stats::power.t.test(n = n, sig.level = significance, power = power, type =, alternative =,
    tol =)$delta`; see validation/.

    Examples
    --------
    >>> [round(detectable_effect(n), 2) for n in (3, 5, 10, 20, 30, 64, 100)]
    [3.07, 2.02, 1.32, 0.91, 0.74, 0.5, 0.4]
    """
    _finite("n", n)
    _power_exceeds_significance(power, significance)
    significance, power, n = float(significance), float(power), float(n)

    def gap(d):
        return _power(d, n, significance, bool(strict), test, alternative) - power

    hi = 1e7
    while gap(hi) < 0:  # pragma: no cover - power at d = 1e7 is 1 for any n >= 2
        hi *= 10.0
    return brent_zero(gap, 1e-7, hi, tol=float(tol))


@result
class WinRateResult(StatisticPvalue, Result):
    r"""Exact binomial test of a win rate against ``p`` (1/2 by default).

    Unpacks to ``(statistic, pvalue)`` (the win rate and its p-value), as SciPy's test results do.

    Attributes
    ----------
    statistic : float
        Observed win rate ``wins / n``.
    pvalue : float
        Exact p-value (R's ``binom.test``).
    wins, n : int
    confidence_interval : ConfidenceInterval
        Clopper–Pearson (exact) interval, as R's ``binom.test`` (one-sided for a one-sided
        alternative: ``(0, high)`` or ``(low, 1)``).
    wald_interval : ConfidenceInterval
        Two-sided Wald interval :math:`\hat p \pm z \sqrt{\hat p(1-\hat p)/n}`.
    confidence_level : float
    p : float
        Win rate under the null.
    alternative : str
    """

    statistic: float
    pvalue: float
    wins: int
    n: int
    confidence_interval: ConfidenceInterval
    wald_interval: ConfidenceInterval
    confidence_level: float
    p: float = 0.5
    alternative: str = "two-sided"

    def _str_lines(self):
        return htest_lines("Exact binomial test", data=f"{self.wins} and {self.n}",
                           statistic_name="number of successes", statistic=self.wins,
                           parameters=[("number of trials", self.n)], pvalue=self.pvalue,
                           alternative=self.alternative, null_name="probability of success",
                           null_value=self.p, confidence_interval=self.confidence_interval,
                           confidence_level=self.confidence_level,
                           estimates=[("probability of success", self.statistic)])


def binomial_two_sided_p(x, n):
    """Exact two-sided binomial p-value against 1/2: ``min(1, 2 P[X <= min(x, n - x)])``.

    What :func:`scipy.stats.binomtest` and R's ``binom.test`` give for p = 1/2 (the
    distribution is symmetric), without binomtest's search for the other tail (10x faster).
    """
    if n == 0:
        return float("nan")
    k = min(x, n - x)
    if 2 * k == n:
        return 1.0
    return min(1.0, 2.0 * float(stats.binom.cdf(k, n, 0.5)))


@fill_doc(**DOC)
@validate_params({"wins": [Interval(Integral, 0, None)], "n": [Interval(Integral, 1, None)],
                  "p": PROBABILITY, "alternative": ALTERNATIVE, "confidence_level": CONFIDENCE})
def win_rate_test(wins, n, /, *, p=0.5, alternative="two-sided", confidence_level=0.95):
    r"""Is a win rate different from 1/2 (or ``p``)? Exact binomial test with exact and Wald intervals.

    Null hypothesis: the games are independent and B wins each with probability ``p``.

    .. math::

        p = \min\{1, 2 P[X \le \min(w, n - w)]\},\quad X \sim \text{Binomial}(n, 1/2)

    for the two-sided test of 1/2; other ``p`` and one-sided alternatives follow R's
    ``binom.test`` (via :func:`scipy.stats.binomtest`).

    Parameters
    ----------
    wins : int
        Games (or tasks, or seeds) won by B.
    n : int
        Games played (ties removed beforehand, or counted as half wins by the caller).
    p : float, default 0.5
        Win rate under the null.
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        "greater": B wins more often than ``p``; "less": less often.
    %(confidence_level)s

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

    Matches `stats::binom.test(wins, n, p, alternative =)`; see validation/.

    Examples
    --------
    >>> r = win_rate_test(55, 100)
    >>> round(r.pvalue, 4), [round(v, 3) for v in r.wald_interval]
    (0.3682, [0.452, 0.648])
    """
    if wins > n:
        raise ValueError(f"`wins` must not exceed `n`; got wins={wins}, n={n}.")
    wins, n, level = int(wins), int(n), float(confidence_level)
    test = stats.binomtest(wins, n, float(p), alternative=alternative)
    ci = test.proportion_ci(confidence_level=level, method="exact")
    rate = wins / n
    half = float(stats.norm.isf((1.0 - level) / 2.0)) * math.sqrt(rate * (1.0 - rate) / n)
    return WinRateResult(statistic=rate, pvalue=float(test.pvalue), wins=wins, n=n,
                         confidence_interval=ConfidenceInterval(float(ci.low), float(ci.high)),
                         wald_interval=ConfidenceInterval(rate - half, rate + half), confidence_level=level,
                         p=float(p), alternative=alternative)


@result
class GamesNeeded(Result):
    """Games needed to show a true win rate ``p`` differs from 1/2.

    Attributes
    ----------
    n : int
        Smallest number of games whose exact binomial test has at least the target power
        (``method="exact"``), or the normal approximation rounded up (``method="normal"``,
        beyond :data:`EXACT_GAMES_LIMIT` games).
    power : float
        Exact power at ``n`` (with ``method="normal"`` it may fall a little short of the
        target: the saw-tooth; beyond 2**53 games, where binomial counts are no longer exact
        in floating point, the normal approximation of the power).
    n_normal : float
        Normal-approximation answer (fractional).
    method : str
        "exact" (every ``n`` searched) or "normal" (the approximation, too many games to search).
    """

    n: int
    power: float
    n_normal: float
    method: str = "exact"

    _title = "Games needed for the exact binomial test of a win rate against 1/2"


#: beyond this normal-approximation answer, :func:`games_needed` returns the approximation
#: (the exact search would evaluate the power at about a tenth as many ``n``: minutes and GiB
#: near p = 0.5001, where the approximation is within 0.02 % of the exact answer)
EXACT_GAMES_LIMIT = 100_000


def _exact_binomial_power(n, p, significance):
    """Power of the exact two-sided binomial test of 1/2 with ``n`` games at true rate ``p``.

    ``n`` may be an array. The test rejects when ``x <= k`` or ``x >= n - k``, with ``k`` the
    largest count whose two-sided p-value ``2 P[X <= k]`` is at most ``significance`` (none:
    power 0).
    """
    n = np.asarray(n, dtype=np.int64)
    k = stats.binom.ppf(significance / 2.0, n, 0.5).astype(np.int64)
    # ppf gives the smallest k with cdf >= significance/2; step to the last k with 2 cdf(k) <= significance
    for _ in range(3):
        k = np.where(2.0 * stats.binom.cdf(k, n, 0.5) > significance, k - 1, k)
    for _ in range(3):
        k = np.where(2.0 * stats.binom.cdf(k + 1, n, 0.5) <= significance, k + 1, k)
    power = np.where(k >= 0, stats.binom.cdf(k, n, p) + stats.binom.sf(n - k - 1, n, p), 0.0)
    return power if power.ndim else float(power)


def _games_needed_iv(p, significance, power):
    if p == 0.5:
        raise ValueError("`p` must differ from 0.5 (no difference cannot be detected); got 0.5.")
    _power_exceeds_significance(power, significance)
    return float(p), float(significance), float(power)


@fill_doc(**DOC)
@validate_params({"p": PROBABILITY, "significance": PROBABILITY, "power": PROBABILITY}, renamed=_ALPHA)
def games_needed(p, *, significance=0.05, power=0.8):
    r"""Games needed for the exact binomial test to detect a true win rate ``p`` (vs 1/2).

    The exact power is saw-toothed in ``n`` (the rejection region grows in steps), so the
    search walks up every ``n`` from well below the normal approximation

    .. math::

        n \approx \left(\frac{z_{1-\alpha/2}/2 + z_{power}\sqrt{p(1-p)}}{p - 1/2}\right)^2

    (:math:`\alpha` the ``significance``) and returns the first ``n`` whose exact power
    reaches the target. Beyond :data:`EXACT_GAMES_LIMIT` (100,000) games of the
    approximation (win rates within about 0.0045 of 1/2 at the default significance and
    power), the search would take seconds to minutes and gigabytes, so ``n`` is the
    approximation rounded up, ``.method`` is "normal" and ``.power`` the exact power there
    (within the saw-tooth's reach of the target; the exact answer is within 0.02 % of the
    approximation from 490,000 games on). Any win rate in (0, 1) other than 1/2 answers in
    well under a second with bounded memory.

    Parameters
    ----------
    p : float
        True win rate of B.
    %(significance)s
    %(power)s

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
    >>> g.n, round(g.power, 4), round(g.n_normal, 2), g.method
    (786, 0.8013, 782.53, 'exact')
    >>> g = games_needed(0.5001)
    >>> g.n, g.method
    (196221992, 'normal')
    """
    p, significance, power = _games_needed_iv(p, significance, power)
    z_a, z_b = stats.norm.isf(significance / 2.0), stats.norm.ppf(power)
    n_normal = ((z_a * 0.5 + z_b * math.sqrt(p * (1.0 - p))) / (p - 0.5)) ** 2
    if not n_normal <= EXACT_GAMES_LIMIT:
        n = int(math.ceil(n_normal))
        if n <= 2 ** 53:            # counts exact in floating point: the exact power at n
            got = float(_exact_binomial_power(n, p, significance))
        else:                       # the binomial tails are not computable: the normal power
            got = float(stats.norm.cdf((abs(p - 0.5) * math.sqrt(n) - z_a * 0.5) / math.sqrt(p * (1.0 - p))))
        return GamesNeeded(n=n, power=got, n_normal=float(n_normal), method="normal")
    # every n is checked (vectorised), in blocks, from well below the normal answer: at
    # 0.9 n_normal the power is about 0.76 (at 0.8 target), far below the saw-tooth's reach
    # once n is large; for smaller n start at half
    start = max(1, int(0.5 * n_normal) - 10) if n_normal < 10_000 else int(0.9 * n_normal)
    block = max(1000, int(0.02 * n_normal))
    while True:
        ns = np.arange(start, start + block)
        got = _exact_binomial_power(ns, p, significance)
        hit = np.flatnonzero(got >= power)
        if hit.size:
            i = int(hit[0])
            return GamesNeeded(n=int(ns[i]), power=float(got[i]), n_normal=float(n_normal))
        start = int(ns[-1]) + 1
