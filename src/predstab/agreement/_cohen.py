"""Cohen's kappa for two raters, weighted or not (irr::kappa2, psych::cohen.kappa), and Light's kappa
for m raters (irr::kappam.light): the kappa family of pairs of raters.

Everything is computed from the C x C contingency table of a pair of raters, built with one
``np.bincount`` per pair: linear in the number of objects, O(C^2) in the number of categories.
"""

from __future__ import annotations

import math
import warnings
from numbers import Real

import numpy as np
from scipy import special

from .._core._exceptions import (
    PredstabDataWarning,
    PredstabUndefinedWarning,
    warn_outside,
)
from .._core._results import Result, r_block, r_pvalue, r_signif, result
from .._core._stack import is_stack, stack_apply
from .._core._utils import ConfidenceInterval
from .._core._validation import Interval, Options, validate_params
from ._common import (
    complete_codes,
    convention_ratio,
    pair_table,
    read_categories,
    two_sided_p,
    used_categories,
)
from ._docstrings import agreement_doc
from ._weights import WEIGHT_FAMILIES, weight_matrix

__all__ = ["cohen_kappa", "CohenKappaResult", "light_kappa", "LightKappaResult", "agreement_weights"]


# --------------------------------------------------------------------------- weights
def agreement_weights(weights, k):
    """Agreement weights (1 on the diagonal) for ``k`` ordered categories, over their positions 1..k.

    None: identity (unweighted); a family name of ``predstab.agreement._weights`` evaluated at the positions
    of the categories, as irr and psych weight: "linear" is :math:`1 - |i-j|/(k-1)` (irr's
    ``"equal"``), "quadratic" :math:`1 - (i-j)^2/(k-1)^2` (irr's ``"squared"``, psych's default);
    a k x k matrix is used as given. One category gives ``[[1.0]]``.

    Examples
    --------
    >>> agreement_weights("linear", 3).tolist()
    [[1.0, 0.5, 0.0], [0.5, 1.0, 0.5], [0.0, 0.5, 1.0]]
    """
    if isinstance(weights, str) and k == 1:
        return np.ones((1, 1))  # every family is 0/0 here; one category is full agreement
    return weight_matrix(weights, np.arange(1, k + 1))


# --------------------------------------------------------------------------- one pair of raters
def _kappa_of_table(p, w):
    """Weighted kappa of a table of proportions ``p`` under agreement weights ``w``.

    Returns ``(kappa, p_o, p_e, rs, cs)``; degenerate tables follow ``predstab._core._convention``.
    """
    rs, cs = p.sum(axis=1), p.sum(axis=0)
    p_o = float(np.sum(w * p))
    p_e = float(rs @ w @ cs)
    if np.trace(w) > 0:
        d_o, d_e = 1.0 - p_o, 1.0 - p_e
    else:  # disagreement weights (0 on the diagonal), as psych allows: kappa = 1 - p_o / p_e
        d_o, d_e = p_o, p_e
    # one category used: p_o = p_e = 1 exactly, so the convention gives 1 (irr and psych: NaN)
    kappa = convention_ratio(d_o, d_e, name="Cohen's kappa")
    return kappa, p_o, p_e, rs, cs


def _variance(p, w, n, p_o, p_e, rs, cs):
    """Large-sample variance of weighted kappa (Fleiss, Cohen & Everitt 1969).

    The variance of :math:`X_{ij} = w_{ij}(1-p_e) - (\\bar w_{i.} + \\bar w_{.j})(1-p_o)` under the
    cell proportions, divided by :math:`n (1-p_e)^4`; written centred so that it is never negative.
    """
    w_row = w @ cs  # \bar w_{i.} = sum_j p_.j w_ij
    w_col = rs @ w  # \bar w_{.j} = sum_i p_i. w_ij
    x = w * (1 - p_e) - (w_row[:, None] + w_col[None, :]) * (1 - p_o)
    mean = p_o * p_e - 2 * p_e + p_o
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(np.sum(p * (x - mean) ** 2) / (n * (1 - p_e) ** 4))


def _null_variance(w, n, p_e, rs, cs):
    """Variance of weighted kappa when the raters are independent (Fleiss, Cohen & Everitt 1969), as irr."""
    w_row = w @ cs
    w_col = rs @ w
    e = np.outer(rs, cs)
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(
            (np.sum(e * (w - (w_row[:, None] + w_col[None, :])) ** 2) - p_e**2) / (n * (1 - p_e) ** 2)
        )


def _interval(value, variance, z):
    half = z * math.sqrt(variance) if variance >= 0 else float("nan")
    # kappa lies in [-1, 1]: psych clips its bounds there too
    return ConfidenceInterval(max(-1.0, value - half), min(1.0, value + half))


# --------------------------------------------------------------------------- result
@result
class CohenKappaResult(Result):
    """Result of :func:`cohen_kappa` (irr's ``kappa2`` and psych's ``cohen.kappa`` in one).

    Attributes
    ----------
    value : float
        Kappa with the requested ``weights`` (irr's ``value``); for more than two raters the mean
        over the pairs of raters (psych's ``av.kappa`` / ``av.wt``).
    statistic, pvalue : float
        irr's z test of kappa = 0 (``value / sqrt(null_variance)``), two-sided. NaN for more than
        two raters.
    variance : float
        Large-sample variance of ``value`` (Fleiss, Cohen & Everitt 1969), behind
        ``confidence_interval``.
    null_variance : float
        Variance of kappa under independent raters, behind ``statistic``.
    confidence_interval : ConfidenceInterval
        ``value -/+ z * sqrt(variance)``, clipped to [-1, 1] as psych does.
    confidence_level : float
    weights : str
        "unweighted", "linear", "quadratic" or "matrix".
    n_objects, n_raters : int
        Objects rated by both raters (psych's ``n.obs``, irr's ``subjects``); for more than two
        raters, the number of rows of the input.
    unweighted_kappa, unweighted_variance, unweighted_confidence_interval
        psych's ``kappa``, ``var.kappa`` and ``confid["unweighted kappa", ]``.
    weighted_kappa, weighted_variance, weighted_confidence_interval
        psych's ``weighted.kappa``, ``var.weighted`` and ``confid["weighted kappa", ]``, with the
        requested weights (quadratic when ``weights`` is None, psych's default).
    categories : tuple
        The ordered categories the weights refer to (psych's ``rownames(agree)``).
    table : ndarray of shape (n_categories, n_categories)
        Proportions of (rater 1, rater 2) pairs (psych's ``agree``); None for more than two raters.
    weight_matrix : ndarray
        The weights of ``weighted_kappa`` (psych's ``weight``); None for more than two raters.
    pairwise_unweighted, pairwise_weighted : ndarray of shape (n_raters, n_raters)
        Kappa of every pair of raters (objects both rated), unweighted and weighted; 1 on the
        diagonal. psych's ``cohen.kappa`` matrix is the lower triangle of the first and the upper
        triangle of the second.
    """

    value: float
    statistic: float
    pvalue: float
    variance: float
    null_variance: float
    confidence_interval: ConfidenceInterval
    confidence_level: float
    weights: str
    n_objects: int
    n_raters: int
    unweighted_kappa: float
    unweighted_variance: float
    unweighted_confidence_interval: ConfidenceInterval
    weighted_kappa: float
    weighted_variance: float
    weighted_confidence_interval: ConfidenceInterval
    categories: tuple
    table: np.ndarray | None
    weight_matrix: np.ndarray | None
    pairwise_unweighted: np.ndarray
    pairwise_weighted: np.ndarray

    _frame_fields = (
        "value",
        "statistic",
        "pvalue",
        "variance",
        "null_variance",
        "weights",
        "n_objects",
        "n_raters",
        "unweighted_kappa",
        "weighted_kappa",
        "confidence_level",
    )
    _renamed_attributes = {"levels": "categories"}

    def _str_lines(self):
        if self.n_raters == 2:
            title = f"Cohen's Kappa for 2 Raters (Weights: {self.weights})"
            rows = [
                ("Subjects", self.n_objects),
                ("Raters", self.n_raters),
                ("Kappa", r_signif(self.value, 3)),
                ("z", r_signif(self.statistic, 3)),
            ]
            lines = r_block(title, rows)
            lines.insert(-1, "")
            lines.append(f"  {r_pvalue(self.pvalue, 3)}")
        else:
            title = (
                f"Cohen's Kappa averaged over the pairs of {self.n_raters} raters (Weights: {self.weights})"
            )
            lines = r_block(
                title,
                [("Subjects", self.n_objects), ("Raters", self.n_raters), ("Kappa", r_signif(self.value, 3))],
            )
        ci = self.confidence_interval
        if not math.isnan(ci.low):
            lines.append(
                f"  {100 * self.confidence_level:g} percent confidence interval: "
                f"{r_signif(ci.low)} {r_signif(ci.high)}"
            )
        return lines


def _cohen_kappa_iv(ratings, categories):
    codes, categories = read_categories(ratings, categories=categories)
    if codes.shape[1] < 2:  # pragma: no cover - as_rating_matrix asks for 2 columns
        raise ValueError(f"`ratings` must have at least 2 raters; got shape {codes.shape}.")
    # a full reduction first: per-row reductions over a few columns are slow
    incomplete = int(np.count_nonzero((codes < 0).any(axis=1))) if codes.min() < 0 else 0
    if incomplete:
        warn_outside(f"{incomplete} of {codes.shape[0]} objects have a missing rating; each pair of raters "
                     "uses the objects both rated (as psych::cohen.kappa; irr::kappa2 drops them too).",
                     PredstabDataWarning)
    return codes, categories, incomplete == 0


def _pair(a, b, k, weights, explicit_categories, complete=False):
    """Both kappas (and the pieces of their variances) of one pair of raters."""
    table = pair_table(a, b, k, complete=complete)
    n = table.sum()
    if n == 0:
        return None
    used = np.arange(k)
    if not explicit_categories:  # the categories this pair used, in their order (kappa2, cohen.kappa)
        table, used = used_categories(table)
    kk = table.shape[0]
    p = table / n
    if isinstance(weights, np.ndarray):
        w_weighted = weights[np.ix_(used, used)]
    else:
        w_weighted = agreement_weights("quadratic" if weights is None else weights, kk)
    w_identity = np.eye(kk)
    unweighted = _kappa_of_table(p, w_identity)
    weighted = _kappa_of_table(p, w_weighted)
    return dict(
        n=int(n),
        p=p,
        used=used,
        unweighted=unweighted,
        weighted=weighted,
        w=w_weighted,
        w_identity=w_identity,
    )


@agreement_doc
@validate_params(
    {
        "weights": [None, Options(sorted(set(WEIGHT_FAMILIES) - {"identity", "unweighted"})), "array-like"],
        "categories": [None, "array-like"],
        "confidence_level": [Interval(Real, 0, 1, closed="neither")],
    },
    renamed={"levels": "categories"},
)
def cohen_kappa(ratings, /, *, weights=None, categories=None, confidence_level=0.95):
    r"""Cohen's kappa for two raters, unweighted or weighted; the mean over pairs for more.

    Matches `irr::kappa2` (``value``, z ``statistic``, ``pvalue``) and `psych::cohen.kappa` (both
    kappas, their variances and confidence intervals; the pairwise matrix and averages for more
    than two raters); see validation/.

    With :math:`p_{ij}` the proportion of objects rater 1 puts in category :math:`i` and rater 2
    in :math:`j`, marginals :math:`p_{i.}`, :math:`p_{.j}` and agreement weights :math:`w_{ij}`:

    .. math::

        p_o = \sum_{ij} w_{ij} p_{ij},\qquad p_e = \sum_{ij} w_{ij} p_{i.} p_{.j},\qquad
        \kappa_w = 1 - \frac{1 - p_o}{1 - p_e}

    The z statistic divides by the standard error under independent raters, the confidence
    interval uses the large-sample variance, both of Fleiss, Cohen & Everitt (1969).

    Parameters
    ----------
    ratings : array-like of shape (n_objects, n_raters)
        Categories (numbers, strings or booleans); NaN/None is a missing rating. Each pair of
        raters uses the objects both rated (with two raters: irr's and psych's handling alike).
        %(stack)s
    weights : None, "linear", "quadratic", another family name, or array-like of shape (C, C), default None
        None: unweighted kappa. "linear" is irr's ``weight = "equal"`` (:math:`1 - |i-j|/(C-1)`),
        "quadratic" irr's ``"squared"`` and psych's default (:math:`1 - (i-j)^2/(C-1)^2`), over the
        positions of the categories used, as irr and psych weight. The other families of
        ``predstab.agreement._weights`` ("ordinal", "radical", "ratio", "circular", "bipolar") are evaluated
        at the same positions. A matrix gives agreement weights for ``categories`` (or the sorted
        categories) directly.
    categories : array-like, optional
        The categories in order (psych's ``levels``). By default the sorted categories that each
        pair of raters used, which is irr's order for numbers and for ``sort.levels = TRUE``; pass
        irr's order to reproduce ``kappa2(..., sort.levels = FALSE)`` on text labels. Given
        categories are used by every pair, used or not.
    confidence_level : float, default 0.95
        psych's ``1 - alpha``.

    Returns
    -------
    CohenKappaResult
        ``.value``, ``.statistic`` (z), ``.pvalue``, ``.variance``, ``.confidence_interval``, psych's
        ``.unweighted_kappa`` / ``.weighted_kappa`` with their variances and intervals, the
        ``.table`` of proportions and the pairwise matrices.

    Warns
    -----
    PredstabDataWarning
        When some objects miss a rating.
    PredstabDegenerateWarning
        When a pair of raters used one category only (:math:`p_o = p_e = 1`): kappa is set to 1,
        where irr and psych return NaN.

    Notes
    -----
    Differences from R, all deliberate:

    - psych 2.2.9 computed ``var.weighted`` with :math:`p_{j.}\sum_k w_{jk}` in place of
      :math:`\bar w_{.j} = \sum_i p_{i.} w_{ij}` (set to 0 when that made it negative); psych
      2.3.3 changed it back. predstab follows Fleiss, Cohen & Everitt (1969), which equals psych
      2.2.9 whenever the weights are the identity (unweighted kappa, two categories).
    - irr sorts numeric categories as text (``"10" < "9"``) before weighting; predstab sorts
      numbers as numbers.
    - The p-value is ``2 * ndtr(-|z|)``, accurate in the tail where irr's ``2 * (1 - pnorm(|z|))``
      rounds to 0.
    - psych reads a square (n x n) input as a contingency table; predstab always reads ratings.
      irr's numeric ``weight`` vector (one weight per distance) is the Toeplitz matrix
      ``weights[i, j] = w[|i - j|]``, here passed as a matrix.
    - A negative variance (psych sets it to 0 and flags ``bad``) cannot occur here: the
      variance is computed as the centred sum of squares it is.

    References
    ----------
    .. [1] Cohen, J. (1968). Weighted kappa. Psychological Bulletin 70(4), 213-220.
       https://doi.org/10.1037/h0026256
    .. [2] Fleiss, J. L., Cohen, J. & Everitt, B. S. (1969). Large sample standard errors of kappa
       and weighted kappa. Psychological Bulletin 72(5), 323-327. https://doi.org/10.1037/h0028106

    Examples
    --------
    >>> from predstab import cohen_kappa
    >>> ratings = [[1, 1], [1, 2], [2, 2], [3, 3], [3, 2], [1, 1], [2, 2], [3, 1]]
    >>> res = cohen_kappa(ratings)
    >>> round(res.value, 4), round(res.statistic, 3)
    (0.4545, 2.041)
    >>> round(cohen_kappa(ratings, weights="quadratic").value, 4)
    0.4
    """
    if is_stack(ratings):  # (..., n_objects, n_raters): a result of arrays (predstab._core._stack)
        return stack_apply(cohen_kappa, ratings, name="ratings",
                           weights=weights, categories=categories, confidence_level=confidence_level)
    explicit = categories is not None
    codes, categories, complete = _cohen_kappa_iv(ratings, categories)
    if isinstance(weights, str) or weights is None:
        weight_spec = weights
    else:
        weight_spec = agreement_weights(weights, len(categories))
    weights_name = "unweighted" if weights is None else weights if isinstance(weights, str) else "matrix"
    if isinstance(weight_spec, np.ndarray) and not explicit:
        explicit = True  # a weight matrix refers to all the categories, in order
    k = len(categories)
    n_obj, m = codes.shape
    z = float(special.ndtri(0.5 + confidence_level / 2))
    pw_u, pw_w = np.eye(m), np.eye(m)
    pairs = {}
    for i in range(m - 1):
        for j in range(i + 1, m):
            pair = _pair(codes[:, i], codes[:, j], k, weight_spec, explicit, complete=complete)
            pairs[i, j] = pair
            pw_u[i, j] = pw_u[j, i] = np.nan if pair is None else pair["unweighted"][0]
            pw_w[i, j] = pw_w[j, i] = np.nan if pair is None else pair["weighted"][0]
    nan_ci = ConfidenceInterval(float("nan"), float("nan"))
    if m > 2:
        upper = np.triu_indices(m, 1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            av_u, av_w = float(np.nanmean(pw_u[upper])), float(np.nanmean(pw_w[upper]))
        nan = float("nan")
        return CohenKappaResult(
            value=av_u if weights is None else av_w,
            statistic=nan,
            pvalue=nan,
            variance=nan,
            null_variance=nan,
            confidence_interval=nan_ci,
            confidence_level=float(confidence_level),
            weights=weights_name,
            n_objects=n_obj,
            n_raters=m,
            unweighted_kappa=av_u,
            unweighted_variance=nan,
            unweighted_confidence_interval=nan_ci,
            weighted_kappa=av_w,
            weighted_variance=nan,
            weighted_confidence_interval=nan_ci,
            categories=tuple(categories.tolist()),
            table=None,
            weight_matrix=None,
            pairwise_unweighted=pw_u,
            pairwise_weighted=pw_w,
        )
    pair = pairs[0, 1]
    if pair is None:
        raise ValueError("`ratings` must have at least one object rated by both raters.")
    n, p = pair["n"], pair["p"]
    out = {}
    for key, w in (("unweighted", pair["w_identity"]), ("weighted", pair["w"])):
        kappa, p_o, p_e, rs, cs = pair[key]
        var = _variance(p, w, n, p_o, p_e, rs, cs)
        var0 = _null_variance(w, n, p_e, rs, cs)
        out[key] = (kappa, var, var0, _interval(kappa, var, z) if not math.isnan(var) else nan_ci)
    chosen = out["unweighted" if weights is None else "weighted"]
    with np.errstate(divide="ignore", invalid="ignore"):
        statistic = float(np.float64(chosen[0]) / np.sqrt(np.float64(chosen[2])))
    return CohenKappaResult(
        value=chosen[0],
        statistic=statistic,
        pvalue=float(two_sided_p(statistic)),
        variance=chosen[1],
        null_variance=chosen[2],
        confidence_interval=chosen[3],
        confidence_level=float(confidence_level),
        weights=weights_name,
        n_objects=n,
        n_raters=2,
        unweighted_kappa=out["unweighted"][0],
        unweighted_variance=out["unweighted"][1],
        unweighted_confidence_interval=out["unweighted"][3],
        weighted_kappa=out["weighted"][0],
        weighted_variance=out["weighted"][1],
        weighted_confidence_interval=out["weighted"][3],
        categories=tuple(np.asarray(categories)[pair["used"]].tolist()),
        table=p,
        weight_matrix=pair["w"],
        pairwise_unweighted=pw_u,
        pairwise_weighted=pw_w,
    )


# --------------------------------------------------------------------------- Light's kappa
@result
class LightKappaResult(Result):
    """Result of :func:`light_kappa`.

    Attributes
    ----------
    value : float
        Light's kappa: the mean of Cohen's (unweighted) kappa over all pairs of raters.
    statistic, pvalue : float
        irr's z test; NaN when irr's variance is negative (see :func:`light_kappa`).
    variance : float
        irr's variance of ``value`` under chance agreement.
    n_objects, n_raters : int
        Size of the matrix used (objects with a missing rating dropped, as irr does).
    pairwise : ndarray of shape (n_raters, n_raters)
        Cohen's kappa of every pair of raters, 1 on the diagonal.
    """

    value: float
    statistic: float
    pvalue: float
    variance: float
    n_objects: int
    n_raters: int
    pairwise: np.ndarray

    def _str_lines(self):
        lines = r_block(
            "Light's Kappa for m Raters",
            [
                ("Subjects", self.n_objects),
                ("Raters", self.n_raters),
                ("Kappa", r_signif(self.value, 3)),
                ("z", r_signif(self.statistic, 3)),
            ],
        )
        lines.insert(-1, "")
        return lines + [f"  {r_pvalue(self.pvalue, 3)}"]


@agreement_doc
@validate_params({})
def light_kappa(ratings, /):
    r"""Light's kappa for m raters: the mean of Cohen's kappa over every pair of raters.

    Matches `irr::kappam.light`; see validation/.

    The z test divides by irr's standard error: with :math:`d_{ab} = \sum_{i \ne j} n_{a i} n_{b j}`
    the number of disagreeing pairs expected from the marginal counts of raters :math:`a, b`
    (over the :math:`P = m(m-1)/2` pairs) and :math:`N` objects,

    .. math::

        p_c = 1 - \frac{P \prod_{a<b} d_{ab}}{N^{2P}},\qquad
        \operatorname{Var}(\kappa) = \frac{p_c}{N (1 - p_c)}

    Parameters
    ----------
    ratings : array-like of shape (n_objects, n_raters)
        Categories (numbers, strings or booleans); objects with a missing rating are dropped,
        as irr does.
        %(stack)s

    Returns
    -------
    LightKappaResult
        ``.value``, ``.statistic`` (z), ``.pvalue``, ``.variance`` and the ``.pairwise`` kappas.

    Warns
    -----
    PredstabDataWarning
        When objects with a missing value are dropped.
    PredstabUndefinedWarning
        When irr's variance is negative (:math:`p_c < 0`, which happens with many raters):
        ``statistic`` and ``pvalue`` are NaN, as R's ``sqrt`` gives.

    Notes
    -----
    The product over pairs is taken in logarithms, so it neither overflows nor underflows
    where irr's ``prod`` would. A pair of raters who used a single category has kappa 1
    (``predstab._core._convention``) where irr's has NaN.

    References
    ----------
    .. [1] Light, R. J. (1971). Measures of response agreement for qualitative data: some
       generalizations and alternatives. Psychological Bulletin 76(5), 365-377.
       https://doi.org/10.1037/h0031643

    Examples
    --------
    >>> from predstab import light_kappa
    >>> ratings = [[1, 1, 1], [1, 2, 1], [2, 2, 2], [3, 3, 2], [3, 3, 3], [1, 1, 2]]
    >>> round(light_kappa(ratings).value, 4)
    0.5067
    """
    if is_stack(ratings):  # (..., n_objects, n_raters): a result of arrays (predstab._core._stack)
        return stack_apply(light_kappa, ratings, name="ratings")
    codes, categories = complete_codes(ratings, "irr::kappam.light")
    n, m = codes.shape
    k = len(categories)
    pairwise = np.eye(m)
    kappas = []
    for a in range(m - 1):
        for b in range(a + 1, m):
            table, _ = used_categories(pair_table(codes[:, a], codes[:, b], k))
            kappa = _kappa_of_table(table / n, np.eye(table.shape[0]))[0]
            pairwise[a, b] = pairwise[b, a] = kappa
            kappas.append(kappa)
    value = float(np.mean(kappas))
    counts = np.stack([np.bincount(codes[:, j], minlength=k) for j in range(m)]).astype(float)  # m x k
    totals = counts.sum(axis=1)
    dis = [totals[a] * totals[b] - float(counts[a] @ counts[b])  # pairs (i != j) of a's and b's categories
           for a in range(m - 1) for b in range(a + 1, m)]
    n_pairs = len(dis)
    if min(dis) == 0:  # a pair of raters who cannot disagree: irr's product is 0, the variance infinite
        ratio = 0.0
    else:
        ratio = math.exp(math.log(n_pairs) + math.fsum(map(math.log, dis)) - 2 * n_pairs * math.log(n))
    chance = 1.0 - ratio
    with np.errstate(divide="ignore", invalid="ignore"):
        variance = float(np.float64(chance) / (n * (1.0 - np.float64(chance))))
    if variance < 0:
        warn_outside("irr's variance of Light's kappa is negative for these data; the z test is undefined "
                     "(NaN).", PredstabUndefinedWarning)
        statistic = float("nan")
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            statistic = float(np.float64(value) / np.sqrt(variance))
    return LightKappaResult(
        value=value,
        statistic=statistic,
        pvalue=float(two_sided_p(statistic)),
        variance=variance,
        n_objects=n,
        n_raters=m,
        pairwise=pairwise,
    )
