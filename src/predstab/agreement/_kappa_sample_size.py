"""The number of objects two raters must rate to show that Cohen's kappa exceeds a value
(irr::N.cohen.kappa for binary ratings, irr::N2.cohen.kappa for categories)."""

from __future__ import annotations

import math
from numbers import Real

import numpy as np
from scipy import optimize, special

from .._core._exceptions import PredstabDataWarning, PredstabUndefinedWarning, warn_outside
from .._core._results import Result, r_block, r_signif, result
from .._core._validation import Interval, validate_params

__all__ = ["kappa_sample_size", "KappaSampleSizeResult"]


@result
class KappaSampleSizeResult(Result):
    """Result of :func:`kappa_sample_size`.

    Attributes
    ----------
    n_objects : int or float
        Objects needed (``ceiling`` of ``n_exact``, irr's return value); NaN when undefined.
    n_exact : float
        The sample size before rounding up.
    kappa1, kappa0 : float
        Kappa under the alternative and under the null hypothesis.
    significance, power : float
        Significance level and power of the test (``significance`` is irr's ``alpha``).
    two_sided : bool
    method : str
        "binary" (irr::N.cohen.kappa) or "categories" (irr::N2.cohen.kappa).
    tau_null, tau_alt : float
        For ``marginals``: the largest standard deviation of kappa (times sqrt(n)) under each
        hypothesis that the marginals allow (Flack et al. 1988); NaN otherwise.
    """

    n_objects: float
    n_exact: float
    kappa1: float
    kappa0: float
    significance: float
    power: float
    two_sided: bool
    method: str
    tau_null: float
    tau_alt: float

    _renamed_attributes = {"alpha": "significance"}

    def _str_lines(self):
        title = (
            "Sample size for Cohen's kappa, two raters, binary ratings"
            if self.method == "binary"
            else "Sample size for Cohen's kappa, two raters, categories with given marginals"
        )
        return r_block(
            title,
            [
                ("kappa0", r_signif(self.kappa0)),
                ("kappa1", r_signif(self.kappa1)),
                ("significance", r_signif(self.significance)),
                ("power", r_signif(self.power)),
                ("two-sided", self.two_sided),
                ("N", self.n_objects),
            ],
        )


def _n_binary(rate1, rate2, k1, k0, significance, power, two_sided):
    """irr::N.cohen.kappa, term by term (Cantor 1996)."""
    d = 2 if two_sided else 1
    pi2_, pi_2 = 1 - rate1, 1 - rate2
    pie = rate1 * rate2 + pi2_ * pi_2

    def q(kappa):
        pi0 = kappa * (1 - pie) + pie
        pi22 = (pi0 - rate1 + pi_2) / 2
        pi11 = pi0 - pi22
        pi12, pi21 = rate1 - pi11, rate2 - pi11
        return (1 - pie) ** (-4) * (
            pi11 * (1 - pie - (rate2 + rate1) * (1 - pi0)) ** 2
            + pi22 * (1 - pie - (pi_2 + pi2_) * (1 - pi0)) ** 2
            + (1 - pi0) ** 2 * (pi12 * (rate2 + pi2_) ** 2 + pi21 * (pi_2 + rate1) ** 2)
            - (pi0 * pie - 2 * pie + pi0) ** 2
        )

    q1, q0 = q(k1), q(k0)
    if q1 < 0 or q0 < 0:
        return float("nan")
    z_a, z_b = special.ndtri(1 - significance / d), special.ndtri(power)
    return ((z_a * math.sqrt(q0) + z_b * math.sqrt(q1)) / (k1 - k0)) ** 2


def _max_tau(mrg, kappa):
    """Largest sqrt(n) * SE of kappa over the tables with marginals ``mrg`` and agreement p_o (an LP)."""
    c = len(mrg)
    p_e = float(np.sum(mrg * mrg))
    p_0 = kappa + p_e * (1 - kappa)
    if not p_0 > 0:
        raise ValueError("`kappa0`/`kappa1` and `marginals` are an invalid set of inputs (agreement <= 0).")
    part1 = p_0 * (1 - p_e) ** 2
    part3 = (p_0 * p_e - 2 * p_e + p_0) ** 2
    m = (1 - p_0) ** 2 * np.add.outer(mrg, mrg) ** 2
    np.fill_diagonal(m, -(1 - p_0) * 2 * mrg * (2 * (1 - p_e) - (1 - p_0) * 2 * mrg))
    eye = np.eye(c)
    a_eq = np.vstack([np.kron(eye, np.ones(c)), np.kron(np.ones(c), eye), np.ones(c * c), eye.ravel()])
    b_eq = np.concatenate([mrg, mrg, [1.0, p_0]])
    lp = optimize.linprog(-m.ravel(), A_eq=a_eq, b_eq=b_eq, bounds=(0, None), method="highs")
    if lp.status != 0:
        raise ValueError(f"`marginals` admit no table with agreement {p_0:.6g}: {lp.message}")
    tau_sq = part1 - lp.fun - part3
    if not tau_sq > 0:
        raise ValueError("`kappa0`/`kappa1` and `marginals` are an invalid set of inputs (variance <= 0).")
    return math.sqrt(tau_sq) / (1 - p_e) ** 2


@validate_params(
    {
        "kappa1": [Interval(Real, -1, 1)],
        "kappa0": [Interval(Real, -1, 1)],
        "rate1": [None, Interval(Real, 0, 1, closed="neither")],
        "rate2": [None, Interval(Real, 0, 1, closed="neither")],
        "marginals": [None, "array-like"],
        "significance": [Interval(Real, 0, 1, closed="neither")],
        "power": [Interval(Real, 0, 1, closed="neither")],
        "two_sided": ["boolean"],
    },
    renamed={"alpha": "significance"},
)
def kappa_sample_size(
    kappa1, kappa0, *, rate1=None, rate2=None, marginals=None, significance=0.05, power=0.8, two_sided=False
):
    r"""Number of objects two raters must rate to show that kappa exceeds ``kappa0``.

    Matches `irr::N.cohen.kappa` (binary ratings, ``rate1`` and ``rate2`` given) and
    `irr::N2.cohen.kappa` (C categories, ``marginals`` given); see validation/.

    .. math::

        N = \left\lceil \left(\frac{z_{1-a/d}\,\tau_0 + z_{\text{power}}\,\tau_1}
        {\kappa_1 - \kappa_0}\right)^2 \right\rceil

    with :math:`a` the significance level, :math:`d = 2` for a two-sided test and :math:`\tau` the
    standard deviation of
    :math:`\sqrt{n}\,\hat\kappa` under each hypothesis: Cantor's (1996) closed form for binary
    ratings, the largest one the marginals allow (a linear program, Flack et al. 1988) for
    categories.

    Parameters
    ----------
    kappa1, kappa0 : float
        Kappa under the alternative and the null hypothesis (irr's ``k1``, ``k0``).
    rate1, rate2 : float, optional
        Probability that rater 1 / rater 2 says "positive" (binary ratings).
    marginals : array-like of shape (n_categories,), optional
        Marginal probabilities of the categories (irr's ``mrg``), summing to 1.
    significance : float, default 0.05
        Significance level of the test (irr's ``alpha``).
    power : float, default 0.8
    two_sided : bool, default False

    Returns
    -------
    KappaSampleSizeResult
        ``.n_objects`` (irr's value), ``.n_exact`` before rounding up.

    Notes
    -----
    irr insists on ``sum(mrg) == 1`` exactly and on at most 10 categories; predstab accepts a sum
    within 1e-12 of 1 and any number of categories. The linear program is solved with HiGHS
    (scipy) where irr uses lpSolve.

    References
    ----------
    .. [1] Cantor, A. B. (1996). Sample-size calculations for Cohen's kappa. Psychological
       Methods 1(2), 150-153. https://doi.org/10.1037/1082-989X.1.2.150
    .. [2] Flack, V. F., Afifi, A. A., Lachenbruch, P. A. & Schouten, H. J. A. (1988). Sample size
       determinations for the two rater kappa statistic. Psychometrika 53(3), 321-325.
       https://doi.org/10.1007/BF02294215

    Examples
    --------
    >>> from predstab import kappa_sample_size
    >>> kappa_sample_size(0.7, 0.85, rate1=0.5, rate2=0.5).n_objects
    96
    >>> kappa_sample_size(0.6, 0.4, marginals=[0.2, 0.25, 0.55]).n_objects
    101
    """
    binary = rate1 is not None or rate2 is not None
    if binary and marginals is not None:
        raise ValueError("`marginals` and `rate1`/`rate2` exclude each other; give one or the other.")
    if not binary and marginals is None:
        raise ValueError("`rate1` and `rate2` (binary ratings) or `marginals` (categories) must be given.")
    if kappa1 == kappa0:
        raise ValueError(f"`kappa1` must differ from `kappa0`; got {kappa1!r} for both.")
    if power <= significance:
        warn_outside("`power` is less than `significance`.", PredstabDataWarning)
    nan = float("nan")
    if binary:
        if rate1 is None or rate2 is None:
            raise ValueError("`rate1` and `rate2` must both be given for binary ratings.")
        raw = _n_binary(float(rate1), float(rate2), float(kappa1), float(kappa0), significance, power,
                        two_sided)
        tau0 = tau1 = nan
        method = "binary"
        if math.isnan(raw):
            warn_outside("the variance of kappa is negative for these rates and kappas; the sample size is "
                         "undefined (NaN, as irr gives).", PredstabUndefinedWarning)
    else:
        mrg = np.asarray(marginals, dtype=float).ravel()
        if mrg.size < 2:
            raise ValueError(f"`marginals` must give at least 2 categories; got {mrg.size}.")
        if (mrg < 0).any() or not np.isfinite(mrg).all():
            raise ValueError(f"`marginals` must be non-negative probabilities; got {mrg.tolist()!r}.")
        if abs(math.fsum(mrg) - 1) > 1e-12:
            raise ValueError(f"`marginals` must sum to 1; got {math.fsum(mrg)!r}.")
        tau0, tau1 = _max_tau(mrg, float(kappa0)), _max_tau(mrg, float(kappa1))
        z_a = special.ndtri(1 - significance / (2 if two_sided else 1))
        raw = float(((z_a * tau0 + special.ndtri(power) * tau1) / (kappa0 - kappa1)) ** 2)
        method = "categories"
    n = nan if math.isnan(raw) else int(math.ceil(raw))
    return KappaSampleSizeResult(
        n_objects=n,
        n_exact=float(raw),
        kappa1=float(kappa1),
        kappa0=float(kappa0),
        significance=float(significance),
        power=float(power),
        two_sided=bool(two_sided),
        method=method,
        tau_null=tau0,
        tau_alt=tau1,
    )
