"""Inter- and intrarater reliability from repeated measurements (Eliasziw et al. 1994; irr's
``relInterIntra``): a balanced objects x raters x measurements ANOVA."""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np
from scipy import stats

from .._core._ratings import unit_scaled
from .._core._results import Result, r_block, r_signif, result
from .._core._validation import Interval, validate_params
from ._common import complete_numeric

__all__ = ["inter_intra_reliability", "InterIntraReliabilityResult"]


@result
class InterIntraReliabilityResult(Result):
    """Result of :func:`inter_intra_reliability` (Eliasziw et al. 1994; irr's ``relInterIntra``).

    Attributes
    ----------
    inter_random, intra_random, inter_fixed, intra_fixed : float
        Inter- and intrarater reliability with raters random or fixed (``rhohat.*``).
    intra_random_per_rater, intra_fixed_per_rater : ndarray of shape (n_raters,)
        Intrarater reliability of each rater (``rhohat.intra.*.part.*``).
    f_inter, f_intra : float
        F statistics of H0: inter = ``rho0_inter``, intra = ``rho0_intra`` (``Finter``, ``Fintra``).
    f_intra_per_rater : ndarray
    pvalue_inter, pvalue_intra : float
    pvalue_intra_per_rater : ndarray
    lower_inter_random, lower_inter_fixed, lower_intra : float
        One-sided lower confidence bounds at ``confidence_level`` (``lowinter.*``, ``lowintra``).
    lower_intra_per_rater : ndarray
    sem_intra, sem_inter_random, sem_inter_fixed : float
        Standard errors of measurement (``SEMintra``, ``SEMinter.*``).
    sem_intra_per_rater : ndarray
    confidence_level : float
    n_objects, n_raters, n_measurements : int
    """

    inter_random: float
    intra_random: float
    inter_fixed: float
    intra_fixed: float
    intra_random_per_rater: np.ndarray
    intra_fixed_per_rater: np.ndarray
    f_inter: float
    f_intra: float
    f_intra_per_rater: np.ndarray
    pvalue_inter: float
    pvalue_intra: float
    pvalue_intra_per_rater: np.ndarray
    lower_inter_random: float
    lower_inter_fixed: float
    lower_intra: float
    lower_intra_per_rater: np.ndarray
    sem_intra: float
    sem_intra_per_rater: np.ndarray
    sem_inter_random: float
    sem_inter_fixed: float
    confidence_level: float
    n_objects: int
    n_raters: int
    n_measurements: int

    def _str_lines(self):
        def row(*values):
            return ", ".join(r_signif(v, 3) for v in values)

        return r_block(
            "Inter/Intrarater reliability",
            [
                ("Subjects", self.n_objects),
                ("Raters", self.n_raters),
                (
                    "rhohat",
                    row(
                        self.inter_random,
                        self.intra_random,
                        self.inter_fixed,
                        self.intra_fixed,
                        *self.intra_random_per_rater,
                        *self.intra_fixed_per_rater,
                    ),
                ),
                ("F", row(self.f_inter, self.f_intra, *self.f_intra_per_rater)),
                ("p-value", row(self.pvalue_inter, self.pvalue_intra, *self.pvalue_intra_per_rater)),
                (
                    "lower bound",
                    row(
                        self.lower_inter_random,
                        self.lower_inter_fixed,
                        self.lower_intra,
                        *self.lower_intra_per_rater,
                    ),
                ),
                (
                    "SEM",
                    row(
                        self.sem_intra, *self.sem_intra_per_rater, self.sem_inter_random, self.sem_inter_fixed
                    ),
                ),
            ],
        )


@validate_params(
    {
        "n_raters": [Interval(Integral, 1, None)],
        "rho0_inter": [Interval(Real, 0, 1, closed="left")],
        "rho0_intra": [Interval(Real, 0, 1, closed="left")],
        "confidence_level": [Interval(Real, 0, 1, closed="neither")],
    }
)
def inter_intra_reliability(ratings, /, *, n_raters, rho0_inter=0.6, rho0_intra=0.8, confidence_level=0.95):
    r"""Inter- and intrarater reliability from repeated measurements (Eliasziw et al. 1994).

    Matches `irr::relInterIntra`; see validation/.

    A balanced two-way ANOVA (objects x raters, with :math:`m` repeated measurements per cell)
    gives the mean squares :math:`MS_S, MS_R, MS_{SR}, MS_E` and each rater's own error mean
    square; the reliabilities, F tests, one-sided lower confidence bounds and standard errors of
    measurement follow Eliasziw et al.'s tables 2 and 3, term by term as irr computes them.

    Parameters
    ----------
    ratings : array-like of shape (n_objects, n_raters * n_measurements)
        Columns grouped by rater: rater 1's measurements 1..m, then rater 2's, ... (irr's layout).
        Objects with a missing value are dropped.
    n_raters : int
        Number of raters (irr's ``nrater``); the number of columns must be a multiple of it.
    rho0_inter, rho0_intra : float, default 0.6 and 0.8
        Null-hypothesis values of the inter- and intrarater reliability.
    confidence_level : float, default 0.95
        Level of the one-sided lower bounds (irr's ``conf.level``).

    Returns
    -------
    InterIntraReliabilityResult

    References
    ----------
    .. [1] Eliasziw, M., Young, S. L., Woodbury, M. G. & Fryday-Field, K. (1994). Statistical
       methodology for the concurrent assessment of interrater and intrarater reliability.
       Physical Therapy 74(8), 777-788. https://doi.org/10.1093/ptj/74.8.777

    Examples
    --------
    >>> import numpy as np
    >>> from predstab import inter_intra_reliability
    >>> x = np.array([[1, 1.2, 1.5, 1.4], [2, 2.3, 2.1, 2.4], [3, 2.8, 3.3, 3.4], [4, 4.1, 4.4, 4.2]])
    >>> round(inter_intra_reliability(x, n_raters=2).inter_random, 4)
    0.9625
    """
    # ratios of variances: extreme magnitudes rescaled exactly (1e-300 raised ZeroDivisionError);
    # the standard errors of measurement are scaled back by ``back``
    x, back = unit_scaled(complete_numeric(ratings, "irr::relInterIntra", min_objects=2))
    nn, cols = x.shape
    tt = int(n_raters)
    if cols % tt or cols // tt < 2:
        raise ValueError(
            f"`n_raters` must divide the {cols} columns of `ratings` into at least 2 measurements "
            f"per rater; got n_raters={n_raters}."
        )
    mm = cols // tt
    cube = x.reshape(nn, tt, mm)
    grand = float(cube.mean())
    subj, rater, cell = cube.mean(axis=(1, 2)), cube.mean(axis=(0, 2)), cube.mean(axis=2)
    resid = cube - cell[:, :, None]
    mss = tt * mm * float(np.sum((subj - grand) ** 2)) / (nn - 1)
    msr = nn * mm * float(np.sum((rater - grand) ** 2)) / (tt - 1) if tt > 1 else float("nan")
    mssr = (
        mm * float(np.sum((cell - subj[:, None] - rater[None, :] + grand) ** 2)) / ((nn - 1) * (tt - 1))
        if tt > 1
        else float("nan")
    )
    mse = float(np.sum(resid**2)) / (nn * tt * (mm - 1))
    mse_part = np.sum(resid**2, axis=(0, 2)) / (nn * (mm - 1))

    s2_s_random = (mss - mssr) / (mm * tt)
    s2_r = (msr - mssr) / (mm * nn)
    s2_sr = (mssr - mse) / mm
    s2_s_fixed = (mss - mse) / (mm * tt)
    inter_random = s2_s_random / (s2_s_random + s2_r + s2_sr + mse)
    inter_fixed = (s2_s_fixed - s2_sr / tt) / (s2_s_fixed + (tt - 1) * s2_sr / tt + mse)
    intra_random = (s2_s_random + s2_r + s2_sr) / (s2_s_random + s2_r + s2_sr + mse)
    intra_fixed = (s2_s_fixed + (tt - 1) * s2_sr / tt) / (s2_s_fixed + (tt - 1) * s2_sr / tt + mse)
    intra_random_part = (s2_s_random + s2_r + s2_sr) / (s2_s_random + s2_r + s2_sr + mse_part)
    intra_fixed_part = (s2_s_fixed + (tt - 1) * s2_sr / tt) / (s2_s_fixed + (tt - 1) * s2_sr / tt + mse_part)

    f_inter = (1 - rho0_inter) * mss / ((1 + (tt - 1) * rho0_inter) * mssr)
    p_inter = float(stats.f.sf(f_inter, nn - 1, (nn - 1) * (tt - 1)))
    alpha = 1 - confidence_level
    r1, r2 = inter_random, inter_fixed
    nu1 = (
        (nn - 1)
        * (tt - 1)
        * (tt * r1 * (msr - mssr) + nn * (1 + (tt - 1) * r1) * mssr + nn * tt * (mm - 1) * r1 * mse) ** 2
        / (
            (nn - 1) * (tt * r1) ** 2 * msr**2
            + (nn * (1 + (tt - 1) * r1) - tt * r1) ** 2 * mssr**2
            + (nn - 1) * (tt - 1) * (nn * tt * (mm - 1)) * r1**2 * mse**2
        )
    )
    nu2 = (
        (nn - 1)
        * (tt - 1)
        * (nn * (1 + (tt - 1) * r2) * mssr + nn * tt * (mm - 1) * r2 * mse) ** 2
        / (
            (nn * (1 + (tt - 1) * r2)) ** 2 * mssr**2
            + (nn - 1) * (tt - 1) * (nn * tt * (mm - 1)) * r2**2 * mse**2
        )
    )
    f1 = float(stats.f.ppf(1 - alpha, nn - 1, nu1))
    f2 = float(stats.f.ppf(1 - alpha, nn - 1, nu2))
    low_inter_random = min(
        nn
        * (mss - f1 * mssr)
        / (nn * mss + f1 * (tt * (msr - mssr) + nn * (tt - 1) * mssr + nn * tt * (mm - 1) * mse)),
        1.0,
    )
    low_inter_fixed = min(
        nn * (mss - f2 * mssr) / (nn * mss + f2 * (nn * (tt - 1) * mssr + nn * tt * (mm - 1) * mse)), 1.0
    )
    f_intra = (1 - rho0_intra) * mss / ((1 + (mm - 1) * rho0_intra) * mse * tt)
    f_intra_part = (1 - rho0_intra) * mss / ((1 + (mm - 1) * rho0_intra) * mse_part * tt)
    df_intra = (nn - 1, nn * (mm - 1))
    f3 = float(stats.f.ppf(1 - alpha, *df_intra))
    low_intra = min((mss / tt - f3 * mse) / (mss / tt + f3 * (mm - 1) * mse), 1.0)
    low_intra_part = np.minimum((mss / tt - f3 * mse_part) / (mss / tt + f3 * (mm - 1) * mse_part), 1.0)
    return InterIntraReliabilityResult(
        inter_random=float(inter_random),
        intra_random=float(intra_random),
        inter_fixed=float(inter_fixed),
        intra_fixed=float(intra_fixed),
        intra_random_per_rater=intra_random_part,
        intra_fixed_per_rater=intra_fixed_part,
        f_inter=float(f_inter),
        f_intra=float(f_intra),
        f_intra_per_rater=f_intra_part,
        pvalue_inter=p_inter,
        pvalue_intra=float(stats.f.sf(f_intra, *df_intra)),
        pvalue_intra_per_rater=stats.f.sf(f_intra_part, *df_intra),
        lower_inter_random=float(low_inter_random),
        lower_inter_fixed=float(low_inter_fixed),
        lower_intra=float(low_intra),
        lower_intra_per_rater=low_intra_part,
        sem_intra=math.sqrt(mse) * back,
        sem_intra_per_rater=np.sqrt(mse_part) * back,
        sem_inter_random=math.sqrt(s2_r + s2_sr + mse) * back,
        sem_inter_fixed=math.sqrt(s2_sr + mse) * back,
        confidence_level=float(confidence_level),
        n_objects=nn,
        n_raters=tt,
        n_measurements=mm,
    )
