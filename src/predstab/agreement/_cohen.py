"""Cohen's kappa for two raters, weighted or not (irr::kappa2, psych::cohen.kappa), Light's kappa for m
raters (irr::kappam.light) and the sample size for kappa (irr::N.cohen.kappa, irr::N2.cohen.kappa).

Everything is computed from the C x C contingency table of a pair of raters, built with one
``np.bincount`` per pair: linear in the number of objects, O(C^2) in the number of categories.
"""

from __future__ import annotations

import math
import warnings
from numbers import Real

import numpy as np
from scipy import optimize, special

from .._core._convention import one_minus_ratio
from .._core._exceptions import PredstabDataWarning, PredstabUndefinedWarning
from .._core._ratings import as_rating_matrix, factorize_ratings
from .._core._results import Result, r_block, r_pvalue, r_signif, result
from .._core._stack import is_stack, stack_apply
from .._core._utils import ConfidenceInterval
from .._core._validation import Interval, Options, validate_params
from ._weights import WEIGHT_FAMILIES, weight_matrix

__all__ = [
    "cohen_kappa",
    "CohenKappaResult",
    "light_kappa",
    "LightKappaResult",
    "kappa_sample_size",
    "KappaSampleSizeResult",
    "agreement_weights",
]


# --------------------------------------------------------------------------- reading ratings
def _read_categories(ratings, *, name="ratings", n_raters=None, levels=None):
    """Codes (int64, -1 = missing) into ``categories`` of an (objects x raters) matrix.

    ``categories`` are the sorted distinct values, or ``levels`` (in the user's order) when given.
    """
    arr = as_rating_matrix(ratings, name=name)
    if n_raters is not None and arr.shape[1] != n_raters:
        raise ValueError(f"`{name}` must have exactly {n_raters} raters (columns); got shape {arr.shape}.")
    if arr.dtype.kind == "f" and np.isinf(arr).any():
        raise ValueError(
            f"`{name}` must hold finite values; got {int(np.isinf(arr).sum())} infinite value(s)."
        )
    codes, categories = factorize_ratings(arr)
    if levels is None:
        return codes, categories
    levels = np.asarray(levels, dtype=object if categories.dtype.kind in "OUS" else None).ravel()
    if levels.size == 0 or len(set(levels.tolist())) != levels.size:
        raise ValueError(f"`levels` must list distinct categories; got {levels.tolist()!r}.")
    position = {v: i for i, v in enumerate(levels.tolist())}
    try:
        lookup = np.array([position[v] for v in categories.tolist()] + [-1], dtype=np.int64)
    except KeyError as exc:
        raise ValueError(
            f"`levels` must contain every category of `{name}`; {exc.args[0]!r} is missing."
        ) from None
    return lookup[codes], levels


def _pair_table(a, b, k, *, complete=False):
    """k x k counts of (rater a, rater b) over the objects both rated (``complete``: no code is -1)."""
    if not complete:
        both = (a >= 0) & (b >= 0)
        if not both.all():
            a, b = a[both], b[both]
    cell = a * k if k > 1 else np.zeros_like(a)
    cell += b
    return np.bincount(cell, minlength=k * k).reshape(k, k).astype(float)


def _used(table):
    """The table restricted to the categories either rater used, and their positions."""
    used = np.flatnonzero(table.sum(axis=0) + table.sum(axis=1))
    return table[np.ix_(used, used)], used


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
def _kappa_of_table(p, w, stacklevel):
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
    kappa = one_minus_ratio(d_o, d_e, name="Cohen's kappa", stacklevel=stacklevel)
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


def _two_sided_p(z):
    return float(2 * special.ndtr(-abs(z)))


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
    levels : tuple
        The ordered categories the weights refer to (psych's ``rownames(agree)``).
    table : ndarray of shape (n_levels, n_levels)
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
    levels: tuple
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


def _cohen_kappa_iv(ratings, levels):
    codes, categories = _read_categories(ratings, levels=levels)
    if codes.shape[1] < 2:  # pragma: no cover - as_rating_matrix asks for 2 columns
        raise ValueError(f"`ratings` must have at least 2 raters; got shape {codes.shape}.")
    # a full reduction first: per-row reductions over a few columns are slow
    incomplete = int(np.count_nonzero((codes < 0).any(axis=1))) if codes.min() < 0 else 0
    if incomplete:
        warnings.warn(
            f"{incomplete} of {codes.shape[0]} objects have a missing rating; each pair of raters "
            "uses the objects both rated (as psych::cohen.kappa; irr::kappa2 drops them too).",
            PredstabDataWarning,
            stacklevel=4,
        )
    return codes, categories, incomplete == 0


def _pair(a, b, k, weights, explicit_levels, stacklevel=6, complete=False):
    """Both kappas (and the pieces of their variances) of one pair of raters."""
    table = _pair_table(a, b, k, complete=complete)
    n = table.sum()
    if n == 0:
        return None
    used = np.arange(k)
    if not explicit_levels:  # the categories this pair used, in their order (kappa2, cohen.kappa)
        table, used = _used(table)
    kk = table.shape[0]
    p = table / n
    if isinstance(weights, np.ndarray):
        w_weighted = weights[np.ix_(used, used)]
    else:
        w_weighted = agreement_weights("quadratic" if weights is None else weights, kk)
    w_identity = np.eye(kk)
    unweighted = _kappa_of_table(p, w_identity, stacklevel)
    weighted = _kappa_of_table(p, w_weighted, stacklevel)
    return dict(
        n=int(n),
        p=p,
        used=used,
        unweighted=unweighted,
        weighted=weighted,
        w=w_weighted,
        w_identity=w_identity,
    )


@validate_params(
    {
        "weights": [None, Options(sorted(set(WEIGHT_FAMILIES) - {"identity", "unweighted"})), "array-like"],
        "levels": [None, "array-like"],
        "confidence_level": [Interval(Real, 0, 1, closed="neither")],
    }
)
def cohen_kappa(ratings, /, *, weights=None, levels=None, confidence_level=0.95):
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
        A stack of shape ``(..., n_objects, n_raters)`` (a Dask array too) gives one result whose
        numbers are arrays of shape ``(...)``, as a loop over the matrices would.
    weights : None, "linear", "quadratic", another family name, or array-like of shape (C, C), default None
        None: unweighted kappa. "linear" is irr's ``weight = "equal"`` (:math:`1 - |i-j|/(C-1)`),
        "quadratic" irr's ``"squared"`` and psych's default (:math:`1 - (i-j)^2/(C-1)^2`), over the
        positions of the categories used, as irr and psych weight. The other families of
        ``predstab.agreement._weights`` ("ordinal", "radical", "ratio", "circular", "bipolar") are evaluated
        at the same positions. A matrix gives agreement weights for ``levels`` (or the sorted
        categories) directly.
    levels : array-like, optional
        The categories in order (psych's ``levels``). By default the sorted categories that each
        pair of raters used, which is irr's order for numbers and for ``sort.levels = TRUE``; pass
        irr's order to reproduce ``kappa2(..., sort.levels = FALSE)`` on text labels. Given levels
        are used by every pair, used or not.
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
        return stack_apply(cohen_kappa, ratings, name="ratings", stacklevel=3, weights=weights, levels=levels,
                           confidence_level=confidence_level)
    explicit = levels is not None
    codes, categories, complete = _cohen_kappa_iv(ratings, levels)
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
            levels=tuple(categories.tolist()),
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
        pvalue=_two_sided_p(statistic),
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
        levels=tuple(np.asarray(categories)[pair["used"]].tolist()),
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


def _complete_codes(ratings, function, *, n_raters=None, stacklevel=4):
    """Codes of the objects without a missing rating (as irr's ``na.omit``) and the categories."""
    codes, categories = _read_categories(ratings, n_raters=n_raters)
    incomplete = (codes < 0).any(axis=1)
    if incomplete.any():
        n_drop = int(incomplete.sum())
        if n_drop == codes.shape[0]:
            raise ValueError(
                f"`ratings` has a missing value in every one of its {codes.shape[0]} objects; "
                "nothing is left after dropping incomplete objects."
            )
        warnings.warn(
            f"{n_drop} of {codes.shape[0]} objects have a missing value and were dropped "
            f"(as {function} does with na.omit).",
            PredstabDataWarning,
            stacklevel=stacklevel,
        )
        codes = codes[~incomplete]
        used = np.flatnonzero(np.bincount(codes.ravel(), minlength=len(categories)))
        remap = np.full(len(categories), -1, dtype=np.int64)
        remap[used] = np.arange(len(used))
        codes, categories = remap[codes], categories[used]
    return codes, categories


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
        A stack of shape ``(..., n_objects, n_raters)`` (a Dask array too) gives one result whose
        numbers are arrays of shape ``(...)``, as a loop over the matrices would.

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
        return stack_apply(light_kappa, ratings, name="ratings", stacklevel=3)
    codes, categories = _complete_codes(ratings, "irr::kappam.light")
    n, m = codes.shape
    k = len(categories)
    pairwise = np.eye(m)
    kappas = []
    for a in range(m - 1):
        for b in range(a + 1, m):
            table, _ = _used(_pair_table(codes[:, a], codes[:, b], k))
            kappa = _kappa_of_table(table / n, np.eye(table.shape[0]), 5)[0]
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
        warnings.warn(
            "irr's variance of Light's kappa is negative for these data; the z test is undefined (NaN).",
            PredstabUndefinedWarning,
            stacklevel=3,
        )
        statistic = float("nan")
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            statistic = float(np.float64(value) / np.sqrt(variance))
    return LightKappaResult(
        value=value,
        statistic=statistic,
        pvalue=_two_sided_p(statistic),
        variance=variance,
        n_objects=n,
        n_raters=m,
        pairwise=pairwise,
    )


# --------------------------------------------------------------------------- sample size
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
    alpha, power : float
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
    alpha: float
    power: float
    two_sided: bool
    method: str
    tau_null: float
    tau_alt: float

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
                ("alpha", r_signif(self.alpha)),
                ("power", r_signif(self.power)),
                ("two-sided", self.two_sided),
                ("N", self.n_objects),
            ],
        )


def _n_binary(rate1, rate2, k1, k0, alpha, power, two_sided):
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
    return (
        (special.ndtri(1 - alpha / d) * math.sqrt(q0) + special.ndtri(power) * math.sqrt(q1)) / (k1 - k0)
    ) ** 2


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
        "alpha": [Interval(Real, 0, 1, closed="neither")],
        "power": [Interval(Real, 0, 1, closed="neither")],
        "two_sided": ["boolean"],
    }
)
def kappa_sample_size(
    kappa1, kappa0, *, rate1=None, rate2=None, marginals=None, alpha=0.05, power=0.8, two_sided=False
):
    r"""Number of objects two raters must rate to show that kappa exceeds ``kappa0``.

    Matches `irr::N.cohen.kappa` (binary ratings, ``rate1`` and ``rate2`` given) and
    `irr::N2.cohen.kappa` (C categories, ``marginals`` given); see validation/.

    .. math::

        N = \left\lceil \left(\frac{z_{1-\alpha/d}\,\tau_0 + z_{\text{power}}\,\tau_1}
        {\kappa_1 - \kappa_0}\right)^2 \right\rceil

    with :math:`d = 2` for a two-sided test and :math:`\tau` the standard deviation of
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
    alpha : float, default 0.05
        Significance level.
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
    if power <= alpha:
        warnings.warn("`power` is less than `alpha`.", PredstabDataWarning, stacklevel=3)
    nan = float("nan")
    if binary:
        if rate1 is None or rate2 is None:
            raise ValueError("`rate1` and `rate2` must both be given for binary ratings.")
        raw = _n_binary(float(rate1), float(rate2), float(kappa1), float(kappa0), alpha, power, two_sided)
        tau0 = tau1 = nan
        method = "binary"
        if math.isnan(raw):
            warnings.warn(
                "the variance of kappa is negative for these rates and kappas; the sample size is "
                "undefined (NaN, as irr gives).",
                PredstabUndefinedWarning,
                stacklevel=3,
            )
    else:
        mrg = np.asarray(marginals, dtype=float).ravel()
        if mrg.size < 2:
            raise ValueError(f"`marginals` must give at least 2 categories; got {mrg.size}.")
        if (mrg < 0).any() or not np.isfinite(mrg).all():
            raise ValueError(f"`marginals` must be non-negative probabilities; got {mrg.tolist()!r}.")
        if abs(math.fsum(mrg) - 1) > 1e-12:
            raise ValueError(f"`marginals` must sum to 1; got {math.fsum(mrg)!r}.")
        tau0, tau1 = _max_tau(mrg, float(kappa0)), _max_tau(mrg, float(kappa1))
        z_a = special.ndtri(1 - alpha / (2 if two_sided else 1))
        raw = float(((z_a * tau0 + special.ndtri(power) * tau1) / (kappa0 - kappa1)) ** 2)
        method = "categories"
    n = nan if math.isnan(raw) else int(math.ceil(raw))
    return KappaSampleSizeResult(
        n_objects=n,
        n_exact=float(raw),
        kappa1=float(kappa1),
        kappa0=float(kappa0),
        alpha=float(alpha),
        power=float(power),
        two_sided=bool(two_sided),
        method=method,
        tau_null=tau0,
        tau_alt=tau1,
    )
