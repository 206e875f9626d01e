"""ICCs of incomplete designs from REML variance components (psych::ICC(x, lmer = TRUE)).

psych fits the crossed random-effects model ``values ~ 1 + (1 | id) + (1 | items)`` with
lme4's REML and turns the three variance components into mean squares
(``MSB = k s2_id + s2_e``, ``MSJ = n s2_items + s2_e``, ``MSE = s2_e``, ``MSW = s2_e + s2_items``,
with ``n = nrow(x)`` and ``k = ncol(x)``), from which it computes its six ICCs, F tests and
intervals with the same formulas as on complete data. Here statsmodels' ``MixedLM`` is the REML
engine (one group holding every rating, a variance component per factor); its restricted
log-likelihood and score, profiled over the intercept and the residual variance, are minimised
over the two variance ratios with bounds (lme4 also bounds them at 0), so that a component can
end exactly at 0 as in lme4. The six forms then reuse ``_icc``'s formulas.
"""

from __future__ import annotations

import warnings
from numbers import Real

import numpy as np
import pandas as pd
from scipy import optimize

from .._core._exceptions import PredstabDataWarning, PredstabUndefinedWarning, warn_outside
from .._core._ratings import as_numeric_matrix, as_rating_matrix, unit_scaled
from .._core._results import Result, r_signif, result
from .._core._validation import Interval, validate_params
from ._icc import TYPES, _MeanSquares, _psych_table

__all__ = ["icc_reml", "ICCRemlResult"]

# statsmodels cannot evaluate a variance ratio of exactly 0 (it inverts the covariance of the
# random effects), so the optimiser's lower bound is this ratio (relative to the residual
# variance); a ratio left at the bound is the boundary optimum 0 and is reported as 0
_LOWER = 1e-10
_GTOL = 1e-10  # on the gradient of the restricted log-likelihood (L-BFGS-B's projected gradient)
_KKT_TOL = 1e-4  # a solution is accepted as converged when its projected gradient is below this


@result
class ICCRemlResult(Result):
    """Result of :func:`icc_reml`: psych's six ICCs from REML variance components.

    Arrays are in psych's row order ``types`` = ICC1, ICC2, ICC3, ICC1k, ICC2k, ICC3k;
    ``table`` is psych's ``results`` as a DataFrame (the columns of :func:`icc_table`),
    ``to_frame()`` one row with the scalars and the six ICCs.

    Attributes
    ----------
    value, statistic, df1, df2, pvalue, ci_low, ci_high : numpy.ndarray of shape (6,)
        psych's ``ICC``, ``F``, ``df1``, ``df2``, ``p``, ``lower bound``, ``upper bound``.
    object_variance, rater_variance, residual_variance : float
        The REML variance components (psych's ``lme`` rows ID, Items, Residual).
    msb, msj, mse, msw : float
        The mean squares psych derives from them: between objects ``k s2_o + s2_e``, between
        raters (judges) ``n s2_r + s2_e``, residual ``s2_e``, within objects ``s2_e + s2_r``.
    n_objects, n_raters : int
        psych's ``n.obs`` and ``n.judge``: the rows and columns of the matrix (objects or
        raters without any rating included, as psych counts them).
    n_ratings : int
        Number of ratings (non-missing cells) the model was fitted to.
    reml_criterion : float
        lme4's ``REMLcrit``: -2 times the restricted log-likelihood at the optimum.
    at_boundary : tuple of str
        The components whose REML estimate is 0 ("object", "rater").
    converged : bool
        Whether the optimiser met its tolerance (projected gradient below 1e-4).
    confidence_level : float
        Confidence level of the intervals.
    types : tuple of str
        The six row names.
    """

    value: np.ndarray
    statistic: np.ndarray
    df1: np.ndarray
    df2: np.ndarray
    pvalue: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    object_variance: float
    rater_variance: float
    residual_variance: float
    msb: float
    msj: float
    mse: float
    msw: float
    n_objects: int
    n_raters: int
    n_ratings: int
    reml_criterion: float
    at_boundary: tuple
    converged: bool
    confidence_level: float
    types: tuple = TYPES

    @property
    def table(self) -> pd.DataFrame:
        """psych's ``results`` table: ICC, F, df1, df2, p, ci_low, ci_high per form."""
        return pd.DataFrame({"ICC": self.value, "F": self.statistic, "df1": self.df1, "df2": self.df2,
                             "p": self.pvalue, "ci_low": self.ci_low, "ci_high": self.ci_high},
                            index=pd.Index(list(self.types)))

    def to_frame(self) -> pd.DataFrame:
        """One row: the variance components, mean squares, sizes and the six ICCs."""
        frame = super().to_frame()
        for name, value in zip(self.types, self.value, strict=True):
            frame[name] = float(value)
        return frame

    def _str_lines(self):
        # psych's print.psych for ICC (the results at 2 significant digits) and its lme table
        level = f"{100 * self.confidence_level:g}%"
        columns = [_r_column(c) for c in (self.value, self.statistic, self.df1, self.df2, self.pvalue,
                                          self.ci_low, self.ci_high)]
        cells = [[t, *row] for t, row in zip(self.types, zip(*columns, strict=True), strict=True)]
        head = ["type", "ICC", "F", "df1", "df2", "p", f"lower {level}", f"upper {level}"]
        width = [max(len(h), *(len(c[j]) for c in cells)) for j, h in enumerate(head)]
        total = self.object_variance + self.rater_variance + self.residual_variance
        title = " Intraclass correlation coefficients (REML variance components, psych::ICC(lmer = TRUE))"
        lines = [title, "",
                 "  " + " ".join(h.rjust(w) for h, w in zip(head, width, strict=True))]
        lines += ["  " + " ".join(c.rjust(w) for c, w in zip(row, width, strict=True)) for row in cells]
        lines += ["", f" Number of subjects = {self.n_objects}     Number of Judges =  {self.n_raters}"
                      f"     Number of ratings = {self.n_ratings}", "",
                  "           variance Percent"]
        for name, v in (("ID", self.object_variance), ("Items", self.rater_variance),
                        ("Residual", self.residual_variance), ("Total", total)):
            share = v / total if total > 0 else float("nan")
            lines.append(f"  {name:<8} {r_signif(v, 5):>8} {r_signif(share, 3):>7}")
        lines.append(f"\n REML criterion = {r_signif(self.reml_criterion, 8)}"
                     + (f"; at 0: {', '.join(self.at_boundary)}" if self.at_boundary else "")
                     + ("" if self.converged else "; NOT CONVERGED"))
        return lines


def _r_column(values, digits=2):
    """A numeric column as R's ``print.data.frame(digits = 2)`` shows it: one number of decimals
    for the whole column (enough for ``digits`` significant digits in every entry), or
    scientific notation when that would need more than 4 decimals."""
    values = np.asarray(values, dtype=float)
    finite = values[np.isfinite(values)]
    shown = [f"{v:.{digits}g}" for v in finite]
    if any("e" in t for t in shown) or any(len(t.split(".")[1]) > 4 for t in shown if "." in t):
        return [r_signif(v, digits) for v in values]
    decimals = max((len(t.split(".")[1]) for t in shown if "." in t), default=0)
    return [f"{v:.{decimals}f}" if np.isfinite(v) else r_signif(v) for v in values]


def _icc_reml_iv(ratings, confidence_level):
    """The ratings as floats (NaN = missing) and the observed cells, checked for a REML fit."""
    x = as_numeric_matrix(as_rating_matrix(ratings))
    observed = ~np.isnan(x)
    obj, rat = np.nonzero(observed)
    n_obj_used, n_rat_used = np.unique(obj).size, np.unique(rat).size
    if n_obj_used < 2 or n_rat_used < 2:
        raise ValueError(
            "`ratings` must hold ratings of at least 2 objects by at least 2 raters; got ratings of "
            f"{n_obj_used} object(s) by {n_rat_used} rater(s)."
        )
    if obj.size <= max(n_obj_used, n_rat_used):
        # lme4 stops here too (check.nobs.vs.nRE): the residual variance is not identifiable
        raise ValueError(
            f"`ratings` must hold more ratings than objects and raters; got {obj.size} rating(s) of "
            f"{n_obj_used} object(s) by {n_rat_used} rater(s)."
        )
    empty_rows = int(x.shape[0] - n_obj_used)
    empty_cols = int(x.shape[1] - n_rat_used)
    if empty_rows or empty_cols:
        warn_outside(
            f"`ratings` has {empty_rows} object(s) and {empty_cols} rater(s) without any rating; they do "
            "not change the variance components but count in n_objects / n_raters (the degrees of "
            "freedom), as psych's n.obs and n.judge count the rows and columns of the matrix.",
            PredstabDataWarning,
        )
    return x, obj, rat, float(confidence_level)


def _exactly_additive(y, obj, rat):
    """True when the objects + raters model fits the ratings exactly (no residual variance)."""
    design = np.zeros((y.size, obj.max() + rat.max() + 2))
    design[np.arange(y.size), obj] = 1.0
    design[np.arange(y.size), obj.max() + 1 + rat] = 1.0
    coef = np.linalg.lstsq(design, y, rcond=None)[0]
    residual = np.linalg.norm(y - design @ coef)
    return residual <= 1e-10 * np.linalg.norm(y - y.mean())


def _reml_fit(y, obj, rat):
    """REML variance components of ``y ~ 1 + (1 | object) + (1 | rater)`` with statsmodels.

    Returns ``(object_variance, rater_variance, residual_variance, criterion, at_boundary,
    converged)``; the criterion is lme4's REMLcrit (-2 restricted log-likelihood).
    """
    from statsmodels.regression.mixed_linear_model import MixedLM, VCSpec

    # the factors' levels as they occur (objects or raters without ratings have no column)
    obj_codes = np.unique(obj, return_inverse=True)[1]
    rat_codes = np.unique(rat, return_inverse=True)[1]
    m = y.size
    z_obj = np.zeros((m, obj_codes.max() + 1))
    z_obj[np.arange(m), obj_codes] = 1.0
    z_rat = np.zeros((m, rat_codes.max() + 1))
    z_rat[np.arange(m), rat_codes] = 1.0
    vc = VCSpec(["object", "rater"], [[list(range(z_obj.shape[1]))], [list(range(z_rat.shape[1]))]],
                [[z_obj], [z_rat]])
    model = MixedLM(y, np.ones((m, 1)), groups=np.zeros(m), exog_vc=vc, use_sqrt=False)
    # what MixedLM.fit sets before optimising; its own optimisers cannot take bounds
    model.reml, model.cov_pen, model.fe_pen, model._freepat, model._cov_sing = True, None, None, None, 0
    no_re = np.zeros((0, 0))

    def objective(ratios):
        return -model.loglike(ratios, profile_fe=True), -model.score(ratios, profile_fe=True)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # statsmodels' warnings about singular covariances near the bound
        fit = optimize.minimize(objective, np.ones(2), jac=True, method="L-BFGS-B",
                                bounds=[(_LOWER, None)] * 2,
                                options={"ftol": 1e-15, "gtol": _GTOL, "maxiter": 500})
        ratios = fit.x
        fe_params = model.get_fe_params(no_re, ratios)[0]
        scale = float(model.get_scale(fe_params, no_re, ratios))
        _, gradient = objective(ratios)
    at_bound = ratios <= _LOWER * (1 + 1e-9)
    # KKT conditions of the bounded problem: zero gradient inside, non-negative at the bound
    projected = np.where(at_bound, np.minimum(gradient, 0.0), gradient)
    converged = bool(np.all(np.isfinite(projected)) and np.max(np.abs(projected)) < _KKT_TOL)
    variances = np.where(at_bound, 0.0, ratios * scale)
    boundary = tuple(name for name, b in zip(("object", "rater"), at_bound, strict=True) if b)
    return float(variances[0]), float(variances[1]), scale, 2.0 * float(fit.fun), boundary, converged


@validate_params({"ratings": ["array-like"], "confidence_level": [Interval(Real, 0, 1, closed="neither")]})
def icc_reml(ratings, /, *, confidence_level=0.95):
    r"""The six Shrout-Fleiss ICCs of an incomplete design, from REML variance components.

    Matches `psych::ICC(x, missing = FALSE, lmer = TRUE)` (psych 2.2.9 with lme4 1.1; its default
    ``ICC(x)`` gives the same on incomplete data); see validation/ (suite ``lmer``).

    Every available rating is used: the crossed random-effects model

    .. math::

        x_{ij} = \mu + a_i + b_j + e_{ij},\qquad a_i \sim N(0, \sigma^2_o),\;
        b_j \sim N(0, \sigma^2_r),\; e_{ij} \sim N(0, \sigma^2_e)

    is fitted by REML to the observed cells, and psych's mean squares are formed from the
    variance components, with :math:`n` objects (rows) and :math:`k` raters (columns):

    .. math::

        MS_B = k\hat\sigma^2_o + \hat\sigma^2_e,\quad MS_J = n\hat\sigma^2_r + \hat\sigma^2_e,\quad
        MS_E = \hat\sigma^2_e,\quad MS_W = \hat\sigma^2_e + \hat\sigma^2_r

    The six ICCs, F tests (df :math:`n-1` and :math:`n(k-1)` or :math:`(n-1)(k-1)`) and
    intervals are then psych's formulas of :func:`icc_table` applied to these mean squares.
    On complete data the REML components equal the ANOVA estimates when these are positive,
    and the table equals :func:`icc_table`'s.

    The intervals are psych's: they treat the derived mean squares as if they came from a
    complete :math:`n \times k` design, so they target the ICC of the normal crossed model
    and are exact only for complete normal data; with missing ratings they are approximations
    that cover less than the nominal level (the F distribution ignores that fewer ratings were
    made), the more so for heavy-tailed data: docs/benchmarks/icc-reml.md measures it.

    Parameters
    ----------
    ratings : array-like of shape (n_objects, n_raters)
        Numeric ratings, objects in rows and raters in columns; missing ratings (None, NaN,
        pd.NA) are allowed anywhere. Long data (object, rater, value columns) become this
        matrix with :func:`ratings_from_long`.
    confidence_level : float, default 0.95
        Confidence level of the intervals (psych's ``1 - alpha``).

    Returns
    -------
    ICCRemlResult
        ``.value``, ``.statistic``, ``.df1``, ``.df2``, ``.pvalue``, ``.ci_low``,
        ``.ci_high`` (arrays in psych's order ``.types``), ``.table`` (psych's results),
        the variance components ``.object_variance``, ``.rater_variance``,
        ``.residual_variance``, the mean squares ``.msb``, ``.msj``, ``.mse``, ``.msw``,
        ``.reml_criterion``, ``.at_boundary``, ``.converged``.

    Raises
    ------
    ValueError
        With fewer than 2 objects or 2 raters with ratings, or no more ratings than objects
        (or raters), where lme4 stops as well.

    Warns
    -----
    PredstabDataWarning
        When a row or column has no rating at all (it counts in ``n_objects`` / ``n_raters``
        as in psych), or when the optimiser did not converge.
    PredstabDegenerateWarning
        When every rating is the same value: the six ICCs are 1 (the shared convention;
        psych gives NaN), as :func:`icc_table` does.
    PredstabUndefinedWarning
        When the objects + raters model fits the ratings exactly but they are not all equal
        (zero residual variance): REML is not defined, every number is NaN.

    Notes
    -----
    A variance component can be estimated as exactly 0 (lme4's boundary); ``.at_boundary``
    names it. statsmodels evaluates the REML criterion, its gradient and the variance
    components (``MixedLM`` with one group and a variance component per factor); the two
    variance ratios are optimised by L-BFGS-B within bounds. Memory and time grow with
    ``n_ratings * (n_objects + n_raters)`` (dense design matrices).

    References
    ----------
    .. [1] Shrout, P. E. & Fleiss, J. L. (1979). Intraclass correlations: uses in
       assessing rater reliability. Psychological Bulletin 86(2), 420-428.
       https://doi.org/10.1037/0033-2909.86.2.420
    .. [2] Bates, D., Mächler, M., Bolker, B. & Walker, S. (2015). Fitting linear
       mixed-effects models using lme4. Journal of Statistical Software 67(1).
       https://doi.org/10.18637/jss.v067.i01
    .. [3] Revelle, W. psych: Procedures for Psychological, Psychometric, and Personality
       Research (``ICC``). https://CRAN.R-project.org/package=psych

    Examples
    --------
    >>> import numpy as np
    >>> from predstab import icc_reml, icc_table
    >>> ratings = np.array([[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8],
    ...                     [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]], dtype=float)
    >>> res = icc_reml(ratings)  # complete: the ANOVA table of icc_table
    >>> np.round(res.value, 2).tolist() == icc_table(ratings)["ICC"].round(2).tolist()
    True
    >>> ratings[0, 1] = ratings[3, 2] = np.nan  # two missing ratings: every other one is used
    >>> res = icc_reml(ratings)
    >>> res.n_ratings, float(round(res.value[1], 4))  # psych::ICC(x, lmer = TRUE): 0.3213281
    (22, 0.3213)
    """
    x, obj, rat, confidence_level = _icc_reml_iv(ratings, confidence_level)
    n, k = x.shape
    # the model has an intercept and the ICCs are ratios of variances: the ratings are centred
    # (an offset of 1e15 stopped the optimiser short, ICC2 0.347 for 0.321) and rescaled by an
    # exact power of four (1e160 overflowed, NaN; 1e-160 underflowed); the variance components
    # and the criterion are scaled back below
    y, back = unit_scaled(x[obj, rat] - x[obj[0], rat[0]])
    boundary, converged = (), True
    if np.all(y == y[0]):
        # every rating equal: all components are exactly 0, the convention gives ICC 1
        s_o = s_r = s_e = 0.0
        criterion = float("nan")
        boundary = ("object", "rater")
    elif _exactly_additive(y, obj, rat):
        warn_outside(
            "The objects + raters model fits the ratings exactly (zero residual variance); the REML "
            "variance components and the ICCs are undefined and set to NaN.",
            PredstabUndefinedWarning,
        )
        s_o = s_r = s_e = criterion = float("nan")
        converged = False
    else:
        s_o, s_r, s_e, criterion, boundary, converged = _reml_fit(y, obj, rat)
        if not converged:
            warn_outside("The REML optimisation did not converge (projected gradient above 1e-4); "
                         "the variance components may be inaccurate.", PredstabDataWarning)
    msb, msj, mse, msw = k * s_o + s_e, n * s_r + s_e, s_e, s_e + s_r
    ms = _MeanSquares(n, k, np.float64(msb), np.float64(msw), np.float64(msj), np.float64(mse))
    if np.isnan(s_e):
        table = np.full((6, 7), np.nan)
        table[:, 2] = [n - 1] * 6
        table[:, 3] = [n * (k - 1), (n - 1) * (k - 1), (n - 1) * (k - 1)] * 2
    else:
        table = _psych_table(ms, confidence_level)
    if back != 1.0:  # in the units of the ratings: variances by back^2, -2 log L by 2 (m - 1) log(back)
        s_o, s_r, s_e, msb, msj, mse, msw = (float(v * back * back)
                                             for v in (s_o, s_r, s_e, msb, msj, mse, msw))
        criterion += 2.0 * (y.size - 1) * float(np.log(back))
    value, statistic, df1, df2, pvalue, ci_low, ci_high = table.T
    return ICCRemlResult(value=value, statistic=statistic, df1=df1, df2=df2, pvalue=pvalue, ci_low=ci_low,
                         ci_high=ci_high, object_variance=s_o, rater_variance=s_r, residual_variance=s_e,
                         msb=float(msb), msj=float(msj), mse=float(mse), msw=float(msw), n_objects=int(n),
                         n_raters=int(k), n_ratings=int(y.size), reml_criterion=criterion,
                         at_boundary=boundary, converged=converged, confidence_level=confidence_level)
