r"""Chance-corrected agreement coefficients of irrCAC, from raw ratings or a count table.

Gwet's AC1/AC2, Brennan-Prediger and Conger's kappa here, and the engine behind irrCAC's
percent agreement (:func:`~predstab.agreement._percent.percent_agreement`) and Fleiss' kappa
(:func:`~predstab.fleiss_kappa` with ``weights`` or ``counts``): each coefficient with irrCAC
1.0's standard error (Gwet's linearisation, with the variation of chance agreement), t-based
confidence interval and p-value, using every available rating when some are missing.
Krippendorff's alpha with weights is :func:`~predstab.krippendorff_alpha`'s, which uses
:func:`inference` from here.

Every coefficient is computed from the (categories x objects) count table :math:`n_{ik}`
(:mod:`predstab.agreement._cac_tables`); the weighted counts
:math:`n^\star_{ik} = \sum_l w_{kl} n_{il}` are one matrix product. Time and memory are linear
in objects x raters (plus :math:`q^2` for the weights). Conger's kappa also needs the
(raters x categories) table, and one lookup per rating for its variance.
"""

from __future__ import annotations

from numbers import Real
from typing import NamedTuple

import numpy as np
from scipy import special

from .._core._exceptions import PredstabUndefinedWarning, warn_outside
from .._core._results import Result, r_block, r_pvalue, r_signif, result
from .._core._stack import is_stack, stack_apply
from .._core._utils import ConfidenceInterval
from .._core._validation import Interval, validate_params
from ._cac_tables import CountTable, read_count_table
from ._common import convention_ratio
from ._docstrings import agreement_doc
from ._weights import WEIGHTS_CONSTRAINT

__all__ = ["AgreementCoefficientResult", "AgreementNames", "TwoDefinitions", "gwet_ac1", "brennan_prediger",
           "conger_kappa", "CAC_PARAMETERS", "stack_or_run", "run", "compute", "inference", "agreement_parts",
           "pair_sums", "conger_chance_agreement", "cac_lines", "r_function"]

#: The declared constraints of irrCAC's common parameters.
CAC_PARAMETERS = {
    "weights": WEIGHTS_CONSTRAINT,
    "confidence_level": [Interval(Real, 0, 1, closed="neither")],
    "counts": ["boolean"],
    "categories": [None, "array-like"],
}


class AgreementNames:
    """irrCAC's names of a result's observed and chance agreement: ``.pa`` and ``.pe``."""

    @property
    def pa(self) -> float:
        """irrCAC's name of :attr:`observed`."""
        return self.observed

    @property
    def pe(self) -> float:
        """irrCAC's name of :attr:`expected`."""
        return self.expected


@result
class AgreementCoefficientResult(AgreementNames, Result):
    """Result of irrCAC's coefficients (:func:`gwet_ac1`, :func:`percent_agreement`, ...).

    Attributes
    ----------
    value : float
        The coefficient, irrCAC's ``coeff.val`` (unrounded; irrCAC rounds to 5 decimals).
    standard_error : float
        irrCAC's ``coeff.se`` (unrounded).
    confidence_interval : ConfidenceInterval
        irrCAC's ``conf.int``: ``value -/+ t_{df} * standard_error``, the upper bound
        capped at 1 (unrounded; irrCAC rounds to 3 decimals).
    pvalue : float
        irrCAC's ``p.value``: two-sided, from a t distribution with ``df`` degrees of freedom.
    observed : float
        Percent agreement, irrCAC's ``pa`` (also ``.pa``).
    expected : float
        Chance agreement, irrCAC's ``pe`` (also ``.pe``; 0 for percent agreement).
    df : int
        Degrees of freedom of the t distribution (number of objects - 1).
    coefficient : str
        irrCAC's ``coeff.name`` (``"AC1"``, ``"AC2"``, ``"Fleiss' Kappa"``, ...).
    weights : str
        irrCAC's ``w.name``: the weight family, ``"unweighted"`` or ``"custom"``.
    n_objects, n_raters, n_ratings : int
        Objects rated at least once, raters (columns; the largest row total for a count
        table) and ratings used (irrCAC's ``tot.obs``).
    confidence_level : float
        Level of ``confidence_interval``.
    categories : tuple
        Categories, in the order of the rows and columns of ``weight_matrix``.
    weight_matrix : numpy.ndarray of shape (q, q)
        The weights used (irrCAC's ``weights``).
    """

    value: float
    standard_error: float
    confidence_interval: ConfidenceInterval
    pvalue: float
    observed: float
    expected: float
    df: int
    coefficient: str
    weights: str
    n_objects: int
    n_raters: int
    n_ratings: int
    confidence_level: float
    categories: tuple
    weight_matrix: np.ndarray
    _function: str = ""

    _frame_fields = ("value", "standard_error", "pvalue", "observed", "expected", "coefficient", "weights",
                     "n_objects", "n_raters", "confidence_level")

    def _str_lines(self):
        return cac_lines(self, pa=self.observed, pe=self.expected)


class TwoDefinitions:
    """A result of a coefficient that R computes two ways, irr's and irrCAC's (``weights`` or
    ``counts``; :func:`~predstab.fleiss_kappa`, :func:`~predstab.krippendorff_alpha`): one result
    type whose irrCAC fields (``standard_error``, ``weights``, ...) are None on irr's path, and
    which prints and frames as irr's result or as irrCAC's summary, by the path taken."""

    _coefficient_name = ""  # irrCAC's coeff.name
    _irr_frame_fields = ()  # the columns of to_frame() on irr's path

    @property
    def coefficient(self) -> str | None:
        """irrCAC's ``coeff.name`` on irrCAC's path (``weights`` or ``counts``); None otherwise."""
        return None if self.weights is None else self._coefficient_name

    @property
    def _frame_fields(self):
        if self.weights is None:
            return self._irr_frame_fields
        extra = ("standard_error", "pvalue", "weights", "confidence_level")
        return self._irr_frame_fields + tuple(f for f in extra if f not in self._irr_frame_fields)

    def _str_lines(self):
        if self.weights is None:
            return self._irr_lines()
        return cac_lines(self, pa=self.pa, pe=self.pe, subjects=self.df + 1)


def cac_lines(res, *, pa, pe, subjects=None):
    """irrCAC's summary of ``res`` (an irrCAC coefficient, or Fleiss' kappa or Krippendorff's alpha
    computed by irrCAC's formulas): sizes, weights, ``pa``, ``pe``, the coefficient and its inference.
    ``subjects``: the objects the coefficient used (default ``res.n_objects``)."""
    level = f"{100 * res.confidence_level:g}%"
    ci = res.confidence_interval
    rows = [("Subjects", res.n_objects if subjects is None else subjects), ("Raters", res.n_raters),
            ("Weights", res.weights),
            ("Percent agreement (pa)", r_signif(pa, 5)), ("Chance agreement (pe)", r_signif(pe, 5)),
            (res.coefficient, r_signif(res.value, 5)), ("Standard error", r_signif(res.standard_error, 5)),
            (f"{level} CI", f"({r_signif(ci.low, 4)}, {r_signif(ci.high, 4)})"),
            ("p-value", r_pvalue(res.pvalue).removeprefix("p-value ").lstrip("= "))]
    title = f"{res.coefficient} for {res.n_raters} raters"
    if res._function:
        title += f" ({res._function})"
    return r_block(title, rows)


# --------------------------------------------------------------------------- the engine
def pair_sums(table, w):
    """sum_k n_ik n*_ik for every object, with the weighted counts n*_ki = sum_l w_kl n_li.

    Unweighted, sum_k n_ik^2 in integers for an integer table (exact; int8 counts are below 128,
    so their squares' sums fit int16, int16 counts' fit int32). Weighted, one einsum for the
    q x q by q x n product (no BLAS call for so small a q).
    """
    if np.array_equal(w, np.eye(len(w))):
        if table.dtype.kind == "f":
            return np.einsum("kn,kn->n", table, table)
        wide = {1: np.int16, 2: np.int32}.get(table.dtype.itemsize, np.int64)
        return np.einsum("kn,kn->n", table, table, dtype=wide)
    return np.einsum("kn,kn->n", table, np.einsum("kl,ln->kn", w, table))


def _category_shares(table, r_i):
    """pi_k = mean_i n_ik / r_i (with one ``r_i`` for all objects, the category totals / (n r))."""
    n = table.shape[1]
    if np.ndim(r_i) == 0:
        return table.sum(axis=1, dtype=np.int32 if n * r_i < 2**31 else np.int64) / (n * r_i)
    return np.einsum("kn,n->k", table, 1 / r_i) / n


def _per_object(v, table, r_i):
    """sum_k v_k n_ik / r_i for every object (one product over the table)."""
    if np.ndim(r_i) == 0:
        return np.einsum("k,kn->n", v / r_i, table)
    return np.einsum("k,kn->n", v, table) / r_i


def agreement_parts(table, w, r_i):
    """irrCAC's common quantities: sum_q_i, pa_i (0 when r_i < 2), which r_i >= 2, n2more and pa.

    ``r_i`` is one int when every object has that many ratings (then at least two): ``two`` is
    then True for all.
    """
    sum_q = pair_sums(table, w) - r_i  # sum_k n_ik (n*_ik - 1)
    if np.ndim(r_i) == 0:
        pa_i = sum_q / (r_i * (r_i - 1))
        n2more = table.shape[1]
        return sum_q, pa_i, True, n2more, float(np.sum(pa_i) / n2more)
    den = r_i * (r_i - 1)
    den[den == 0] = -1  # as irrCAC: objects with one rating have sum_q = 0, hence pa_i = 0
    pa_i = sum_q / den
    two = r_i >= 2
    n2more = int(two.sum())
    with np.errstate(invalid="ignore", divide="ignore"):
        pa = float(np.sum(pa_i[two]) / n2more)
    return sum_q, pa_i, two, n2more, pa


class Inference(NamedTuple):
    standard_error: float
    statistic: float  # t = coefficient / standard_error
    confidence_interval: ConfidenceInterval
    pvalue: float


def inference(coef, var, df, confidence_level):
    """irrCAC's standard error, t statistic, t interval (upper bound capped at 1) and two-sided
    p-value of a coefficient ``coef`` of variance ``var`` on ``df`` degrees of freedom."""
    with np.errstate(invalid="ignore", divide="ignore"):
        se = float(np.sqrt(var))
        t = np.float64(coef) / se  # se = 0 (perfect agreement): t = inf and p = 0, as in R
    # Student's t tail and quantile (what stats.t.sf and stats.t.ppf call, without their checks)
    pvalue = float(2 * special.stdtr(df, -abs(t))) if df >= 1 and not np.isnan(t) else float("nan")
    if df >= 1:
        half = se * special.stdtrit(df, 1 - (1 - confidence_level) / 2)
        ci = ConfidenceInterval(float(coef - half), float(np.minimum(1.0, coef + half)))  # NaN stays NaN
    else:
        ci = ConfidenceInterval(float("nan"), float("nan"))
    return Inference(se, float(t), ci, pvalue)


def _coefficient(pa, pe, q, name):
    """irrCAC's (pa - pe) / (1 - pe), written 1 - D_o / D_e with D_o = 1 - pa and D_e = 1 - pe.

    With one category irrCAC sets pe = 1e-15; here D_e = 0 and D_o = 0, so the shared
    convention gives 1 with a PredstabDegenerateWarning.
    """
    d_e = 1.0 - pe if q >= 2 else 0.0
    return convention_ratio(1.0 - pa, d_e, name=name)


def compute(kind, ct: CountTable):
    """Coefficient, variance, observed and expected agreement and df of irrCAC's ``<kind>.raw`` /
    ``.dist`` (``kind``: "pa", "ac1", "bp", "fleiss" or "conger") from the count table ``ct``."""
    table, r_i, codes, w = ct.table, ct.r_i, ct.codes, ct.weight_matrix
    q, n = table.shape
    nan = float("nan")
    sum_q, pa_i, two, n2more, pa = agreement_parts(table, w, r_i)
    if n2more == 0:  # no pair of ratings of one object: the observed agreement is undefined
        warn_outside(f"No object has two or more ratings; {_NAMES[kind][0]} is undefined and set to nan.",
                     PredstabUndefinedWarning)
        return nan, nan, nan, nan, n - 1
    if kind == "pa":
        value = _coefficient(pa, 0.0, 2, "percent agreement")
        if q < 2:
            return value, nan, pa, 0.0, n - 1
        dev = pa_i * (n / n2more)
        dev -= pa
        var = float(dev @ dev) / (n * (n - 1)) if n >= 2 else nan
        return value, var, pa, 0.0, n - 1
    pi = _category_shares(table, r_i)
    if kind == "ac1":
        scale = w.sum() / (q * (q - 1)) if q >= 2 else nan
        pe = float(scale * np.sum(pi * (1 - pi))) if q >= 2 else nan
    elif kind == "bp":
        pe = float(w.sum() / q**2)
    elif kind == "fleiss":
        pe = float(np.sum(w * np.outer(pi, pi)))
    elif kind == "conger":
        n_raters = codes.shape[1]
        rater_table = np.bincount((codes + np.arange(n_raters) * q)[codes >= 0],
                                  minlength=n_raters * q).reshape(n_raters, q).astype(float)
        n_g = rater_table.sum(axis=1)
        p_gk = rater_table / n_g[:, None]
        p_mean = p_gk.mean(axis=0)
        pe = float(conger_chance_agreement(p_gk, None if np.array_equal(w, np.eye(q)) else w))
    else:
        raise ValueError(f"unknown coefficient {kind!r}")
    coef = _coefficient(pa, pe, q, _NAMES[kind][0])
    if q < 2 or np.isnan(coef) or pe == 1.0:
        return coef, nan, pa, pe, n - 1
    # x_i - coef for irrCAC's x_i = c_i - 2 (1 - coef) (pe_i - pe) / (1 - pe) with
    # c_i = (n / n2more) (pa_i - pe) / (1 - pe), built in place: one pass over the objects a step
    dev = pa_i - pe * two
    dev *= (n / n2more) / (1 - pe)
    if kind != "bp":
        g = 2 * (1 - coef) / (1 - pe)
        if kind == "ac1":  # pe_i = scale sum_k (1 - pi_k) n_ik / r_i
            dev -= _per_object(g * scale * (1 - pi), table, r_i)
        elif kind == "fleiss":  # pe_i = sum_k pi*_k n_ik / r_i, pi* the symmetrised weighted shares
            dev -= _per_object(g * (w @ pi + w.T @ pi) / 2, table, r_i)
        else:  # conger: Gwet's lambda_ig, summed over the raters g
            a = (n_raters * p_mean[None, :] - p_gk) @ w  # a_gl = sum_k (r p_k - p_gk) w_kl
            b = np.einsum("gl,gl->g", p_gk, a)
            rated = codes >= 0
            a_at = np.where(rated, a[np.arange(n_raters)[None, :], np.where(rated, codes, 0)], 0.0)
            lam = (n / n_g)[None, :] * (a_at - (rated - (n_g / n)[None, :]) * b[None, :])
            dev -= lam.sum(axis=1) * (g / (n_raters * (n_raters - 1)))
        dev += g * pe
    dev -= coef
    var = float(dev @ dev) / (n * (n - 1)) if n >= 2 else nan
    return coef, var, pa, pe, n - 1


def conger_chance_agreement(shares, w=None):
    r"""Conger's (1980) chance agreement from each rater's category shares.

    :math:`p_e = \sum_{kl} w_{kl}\big(\bar p_k \bar p_l - s^2_{kl} / r\big)` with :math:`p_{gk}`
    (``shares[..., g, k]``) the share of rater g's ratings in category k, :math:`\bar p_k` their
    mean over the :math:`r` raters and :math:`s^2_{kl}` their covariance (denominator
    :math:`r - 1`), as irrCAC's ``conger.kappa.raw`` computes it; with identity weights (``w``
    None: no categories x categories matrix) this is irr's ``kappam.fleiss(exact = TRUE)``
    chance agreement, :math:`\sum_k \bar p_k^2 - \sum_k \operatorname{var}_g(p_{gk}) / (r - 1)`
    with the variance over raters taken with denominator :math:`r`. Vectorised over leading
    axes (the items of a stack).
    """
    r = shares.shape[-2]
    mean = shares.mean(axis=-2)
    dev = shares - mean[..., None, :]
    if w is None:
        spread = np.einsum("...gk,...gk->...", dev, dev)
        return np.einsum("...k,...k->...", mean, mean) - spread / (r * (r - 1))
    covariance = np.swapaxes(dev, -1, -2) @ dev / (r - 1)
    return np.einsum("...k,kl,...l->...", mean, w, mean) - np.einsum("kl,...kl->...", w, covariance) / r


_NAMES = {"pa": ("Percent Agreement", "pa.coeff"), "ac1": ("AC1", "gwet.ac1"),
          "bp": ("Brennan-Prediger", "bp.coeff"), "conger": ("Conger's Kappa", "conger.kappa"),
          "fleiss": ("Fleiss' Kappa", "fleiss.kappa"),
          "krippendorff": ("Krippendorff's Alpha", "krippen.alpha")}


def r_function(kind, counts):
    """The irrCAC function a coefficient reproduces, e.g. ``irrCAC::gwet.ac1.raw``."""
    return f"irrCAC::{_NAMES[kind][1]}.{'dist' if counts else 'raw'}"


def stack_or_run(func, kind, ratings, /, **options):
    """The public irrCAC coefficient ``func`` (``kind`` as in :func:`compute`) of ``ratings``: item
    by item for a stack of matrices (:func:`predstab._core._stack.stack_apply`), else :func:`run`."""
    if is_stack(ratings):  # (..., n_objects, n_raters): a result of arrays (predstab._core._stack)
        return stack_apply(func, ratings, name="ratings", **options)
    return run(kind, ratings, **options)


def run(kind, ratings, *, weights, confidence_level, counts, categories):
    """Read, compute, infer: the result of an irrCAC coefficient (``kind`` as in :func:`compute`)."""
    if kind == "conger" and counts:
        raise ValueError("`counts` must be False for Conger's kappa: it needs each rater's ratings, "
                         "which a count table does not keep (irrCAC has no conger.kappa.dist either).")
    ct = read_count_table(ratings, counts=counts, categories=categories, weights=weights,
                          need_codes=kind == "conger", symmetric_part=kind != "conger")
    coef, var, pa, pe, df = compute(kind, ct)
    se, _, ci, pvalue = inference(coef, var, df, confidence_level)
    name = _NAMES[kind][0]
    if kind == "ac1":
        name = "AC1" if len(ct.categories) == 1 or ct.weight_matrix.sum() == len(ct.categories) else "AC2"
    return AgreementCoefficientResult(
        value=float(coef), standard_error=se, confidence_interval=ci, pvalue=pvalue, observed=float(pa),
        expected=float(pe), df=int(df), coefficient=name, weights=ct.weights, n_objects=int(df) + 1,
        n_raters=int(ct.n_raters), n_ratings=int(np.sum(np.broadcast_to(ct.r_i, ct.table.shape[1]))),
        confidence_level=float(confidence_level), categories=ct.categories, weight_matrix=ct.weight_matrix,
        _function=r_function(kind, counts))


@agreement_doc
@validate_params(CAC_PARAMETERS)
def gwet_ac1(ratings, /, *, weights=None, confidence_level=0.95, counts=False, categories=None):
    r"""Gwet's AC1 (AC2 with weights) for any number of raters.

    Matches `irrCAC::gwet.ac1.raw` (and ``gwet.ac1.dist`` with ``counts=True``); see validation/.

    .. math::

        AC = \frac{p_a - p_e}{1 - p_e},\qquad
        p_e = \frac{\sum_{kl} w_{kl}}{q(q-1)} \sum_k \pi_k (1 - \pi_k),\qquad
        \pi_k = \frac{1}{n} \sum_i \frac{n_{ik}}{r_i}

    with :math:`p_a` as in :func:`percent_agreement`. The variance is Gwet's (2008)
    linearisation, :math:`\frac{1}{n(n-1)}\sum_i (AC_i^\star - AC)^2`.

    %(cac_sections)s

    References
    ----------
    .. [1] Gwet, K. L. (2008). Computing inter-rater reliability and its variance in the
       presence of high agreement. British Journal of Mathematical and Statistical
       Psychology 61(1), 29-48. https://doi.org/10.1348/000711006X126600

    Examples
    --------
    >>> from predstab import gwet_ac1
    >>> res = gwet_ac1([[1, 1, 1], [1, 2, 1], [2, 2, 2], [3, 3, 2]])
    >>> round(res.value, 4), res.coefficient
    (0.5152, 'AC1')
    """
    return stack_or_run(gwet_ac1, "ac1", ratings, weights=weights, confidence_level=confidence_level,
                        counts=counts, categories=categories)


@agreement_doc
@validate_params(CAC_PARAMETERS)
def brennan_prediger(ratings, /, *, weights=None, confidence_level=0.95, counts=False, categories=None):
    r"""Brennan and Prediger's coefficient for any number of raters.

    Matches `irrCAC::bp.coeff.raw` (and ``bp.coeff.dist`` with ``counts=True``); see validation/.

    .. math::

        BP = \frac{p_a - p_e}{1 - p_e},\qquad p_e = \frac{1}{q^2}\sum_{kl} w_{kl}

    %(cac_sections)s

    References
    ----------
    .. [1] Brennan, R. L. & Prediger, D. J. (1981). Coefficient kappa: some uses, misuses,
       and alternatives. Educational and Psychological Measurement 41(3), 687-699.
       https://doi.org/10.1177/001316448104100307

    Examples
    --------
    >>> from predstab import brennan_prediger
    >>> round(brennan_prediger([[1, 1], [1, 2], [2, 2], [2, 2]]).value, 4)
    0.5
    """
    return stack_or_run(brennan_prediger, "bp", ratings, weights=weights, confidence_level=confidence_level,
                        counts=counts, categories=categories)


@agreement_doc
@validate_params(CAC_PARAMETERS)
def conger_kappa(ratings, /, *, weights=None, confidence_level=0.95, counts=False, categories=None):
    r"""Conger's (1980) kappa for any number of raters, with Gwet's standard error.

    Matches `irrCAC::conger.kappa.raw`; see validation/. There is no count-table form
    (``counts=True`` raises): the chance agreement uses each rater's own category
    proportions :math:`p_{gk}`,

    .. math::

        p_e = \sum_{kl} w_{kl}\Big(\bar p_k \bar p_l - \frac{s^2_{kl}}{r}\Big),\qquad
        s^2_{kl} = \frac{1}{r-1}\sum_g (p_{gk} - \bar p_k)(p_{gl} - \bar p_l)

    Unweighted, on complete ratings, this is irr's ``kappam.fleiss(exact = TRUE)``,
    ``fleiss_kappa(ratings, exact=True)``: the two share :func:`conger_chance_agreement`.

    %(cac_sections)s

    References
    ----------
    .. [1] Conger, A. J. (1980). Integration and generalization of kappas for multiple
       raters. Psychological Bulletin 88(2), 322-328. https://doi.org/10.1037/0033-2909.88.2.322

    Examples
    --------
    >>> from predstab import conger_kappa
    >>> round(conger_kappa([[1, 1, 1], [1, 2, 1], [2, 2, 2], [3, 3, 2]]).value, 4)
    0.4839
    """
    return stack_or_run(conger_kappa, "conger", ratings, weights=weights, confidence_level=confidence_level,
                        counts=counts, categories=categories)
