r"""Tests on scores from resampling: t-tests, Wilcoxon, and the CV-aware corrections.

Why repeated cross-validation scores are not independent: every fold of every repetition
trains on largely the same cases, so the scores are positively correlated (Nadeau & Bengio
2003). The naive standard error :math:`s/\sqrt{J}` keeps shrinking as repetitions are added,
although the spread of the estimate over fresh data sets does not; the naive t-test then
finds "significant" differences that are not there. The corrected resampled t-test inflates
the variance by :math:`n_{test}/n_{train}`; Dietterich's 5×2cv tests use only five
independent-ish replications; across *data sets* (which are independent) the Wilcoxon
signed-rank test is the recommended default (Demšar 2006).

Throughout, the difference is **B minus A**: positive means B scored higher.
"""

from __future__ import annotations

import dataclasses
import math
from numbers import Real

import numpy as np
from scipy import stats

from .._core._docstrings import fill_doc
from .._core._exceptions import PredstabDataWarning, PredstabUndefinedWarning, warn_outside
from .._core._ratings import scaling_shift
from .._core._utils import ConfidenceInterval
from .._core._validation import Interval, Options, validate_params
from ._common import ALTERNATIVE, CONFIDENCE, DOC, read_paired, read_scores
from ._results import TestResult, WilcoxonResult

__all__ = ["ttest", "wilcoxon", "corrected_resampled_ttest", "cv5x2_ttest", "cv5x2_ftest"]

_PAIR = {"scores_a": "a", "scores_b": "b"}   # the names before predstab 0.2.0
# what the docstrings of the two 5x2cv tests share
_CV5X2 = {
    "tables_to_result": """\
Parameters
----------
a, b : array-like of shape (5, 2)
    Scores of A and B per repetition (rows) and fold (columns), the same splits for both.

Returns
-------
TestResult""",
    "undefined": """\
PredstabUndefinedWarning
    Both folds agree in every repetition (variance 0): NaN statistic and p-value.""",
    "example": """\
>>> a = [[0.80, 0.78], [0.79, 0.81], [0.80, 0.80], [0.77, 0.79], [0.81, 0.80]]
>>> b = [[0.84, 0.80], [0.82, 0.83], [0.81, 0.84], [0.80, 0.82], [0.83, 0.84]]""",
}


def _undefined(method, df, estimate, level, alternative):
    warn_outside(f"{method}: the scores are constant (standard error 0); the test is undefined "
                 "and its statistic and p-value are NaN.", PredstabUndefinedWarning)
    return TestResult(statistic=float("nan"), pvalue=float("nan"), df=df, estimate=estimate,
                      confidence_interval=ConfidenceInterval(float("nan"), float("nan")), method=method,
                      alternative=alternative, confidence_level=level, statistic_name="t")


def _t_from(estimate, se, df, level, method, alternative="two-sided"):
    """t statistic, p-value and interval of ``estimate``; NaN with a warning when ``se`` is zero.

    For the corrected tests whose standard error scipy does not know (Nadeau-Bengio).
    """
    if se == 0.0:
        return _undefined(method, df, estimate, level, alternative)
    t = estimate / se
    if alternative == "two-sided":
        p = 2.0 * stats.t.sf(abs(t), df)
        half = float(stats.t.isf((1.0 - level) / 2.0, df)) * se
        ci = ConfidenceInterval(estimate - half, estimate + half)
    elif alternative == "greater":
        p = stats.t.sf(t, df)
        ci = ConfidenceInterval(estimate - float(stats.t.isf(1.0 - level, df)) * se, float("inf"))
    else:
        p = stats.t.cdf(t, df)
        ci = ConfidenceInterval(float("-inf"), estimate + float(stats.t.isf(1.0 - level, df)) * se)
    return TestResult(statistic=float(t), pvalue=float(p), df=float(df), estimate=float(estimate),
                      confidence_interval=ci, method=method, alternative=alternative, confidence_level=level,
                      statistic_name="t")


def _from_scipy(res, estimate, level, method, alternative, null_value=0.0, shift=0.0, exponent=0):
    """``exponent``: the test ran on the data times ``2**exponent`` (:func:`_scaled`); the interval
    is scaled back."""
    ci = res.confidence_interval(confidence_level=level)
    low, high = (float(np.ldexp(v, -exponent)) + shift for v in (ci.low, ci.high))
    return TestResult(statistic=float(res.statistic), pvalue=float(res.pvalue), df=float(res.df),
                      estimate=float(estimate),
                      confidence_interval=ConfidenceInterval(low, high),
                      method=method, alternative=alternative, confidence_level=level, statistic_name="t",
                      null_value=null_value)


def _scaled(*arrays):
    """The arrays times one exact power of four when their magnitude is extreme, and its exponent.

    t and its p-value are scale invariant, but scipy's variances underflow for scores near
    1e-300 (t = inf, p = 0 where p is 0.32) and overflow near 1e300: the exact rescaling of
    ``predstab._core._ratings.unit_scaled`` (no change in the safe range).
    """
    exponent = scaling_shift(*arrays)
    return [np.ldexp(x, exponent) for x in arrays] if exponent else list(arrays), exponent


def _unscaled(res, exponent):
    """``res`` of a test run on the data times ``2**exponent``: estimate and interval scaled back."""
    low, high = (float(np.ldexp(v, -exponent)) for v in res.confidence_interval)
    return dataclasses.replace(res, estimate=float(np.ldexp(res.estimate, -exponent)),
                               confidence_interval=ConfidenceInterval(low, high))


@fill_doc(**DOC)
@validate_params({"a": ["array-like"], "b": ["array-like", None], "paired": ["boolean"],
                  "equal_var": ["boolean"], "mu": [Interval(Real, None, None)], "alternative": ALTERNATIVE,
                  "confidence_level": CONFIDENCE}, renamed=_PAIR)
def ttest(a, b=None, /, *, paired=False, equal_var=False, mu=0.0, alternative="two-sided",
          confidence_level=0.95):
    r"""Student's t-test of B minus A: paired, Welch (default), pooled two-sample, or one-sample.

    Null hypothesis: the mean difference B - A is ``mu`` (paired and one-sample: normal
    differences; Welch: normal scores, the variances may differ; pooled: equal variances too).

    Paired: :math:`t = (\bar d - \mu) / (s_d/\sqrt n)`, :math:`d = b - a`, ``df = n - 1``.
    Welch: :math:`t = (\bar b - \bar a - \mu)/\sqrt{s_a^2/n_a + s_b^2/n_b}` with
    Welch–Satterthwaite df. Pooled: common variance, ``df = n_a + n_b - 2``. One-sample
    (``b`` omitted): :math:`t = (\bar a - \mu)/(s/\sqrt n)`. Computed by
    :func:`scipy.stats.ttest_rel`, :func:`~scipy.stats.ttest_ind` and
    :func:`~scipy.stats.ttest_1samp`.

    Parameters
    ----------
    a, b : array-like of shape (n,) / (n_a,), (n_b,)
        Scores of A and B (paired: matched by position). Without ``b``, the one-sample test
        of ``a`` against ``mu``.
    paired : bool, default False
    equal_var : bool, default False
        Pooled variance (two-sample only).
    mu : float, default 0
        The difference B - A (or, one-sample, the mean) under the null.
    %(alternative)s
    confidence_level : float, default 0.95
        Confidence level of the interval for the difference (one-sided for a one-sided
        alternative, as R's).

    Returns
    -------
    TestResult
        ``.statistic`` (t), ``.pvalue``, ``.df``, ``.estimate`` (mean B - A, or the mean),
        ``.confidence_interval``; ``statistic, pvalue = ttest(a, b)`` unpacks as SciPy's.

    Warns
    -----
    PredstabUndefinedWarning
        The standard error is zero (constant data): statistic and p-value are NaN (R stops
        with "data are essentially constant").

    References
    ----------
    Welch, B. L. (1947). The generalization of "Student's" problem when several different
    population variances are involved. *Biometrika* 34, 28-35. https://doi.org/10.1093/biomet/34.1-2.28

    Matches `stats::t.test(b, a, paired =, var.equal =, mu =, alternative =)` and
    `stats::t.test(a, mu =, alternative =)`; see validation/.

    Examples
    --------
    >>> A = [40, 42, 44, 45, 46, 47, 48, 49, 50, 51]
    >>> B = [5, 8, 10, 12, 30, 33, 35, 38, 40, 420]
    >>> r = ttest(A, B, equal_var=True)
    >>> round(r.estimate, 1), round(r.statistic, 4), round(r.pvalue, 4)
    (16.9, 0.4236, 0.6769)
    >>> t, p = ttest(A, mu=44, alternative="greater")
    >>> round(p, 4)
    0.0398
    """
    level, mu = float(confidence_level), float(mu)
    if b is None:
        if paired or equal_var:
            raise ValueError("`paired` and `equal_var` need `b`; got a one-sample test.")
        a = read_scores(a, "a", min_size=2)
        method = "One Sample t-test"
        if np.ptp(a) == 0.0:
            return _undefined(method, a.size - 1.0, float(a.mean()), level, alternative)
        (a_s, mu_s), e = _scaled(a, np.array(mu))
        res = stats.ttest_1samp(a_s, float(mu_s), alternative=alternative)
        return _from_scipy(res, a.mean(), level, method, alternative, mu, exponent=e)
    if paired and equal_var:
        raise ValueError("`equal_var` applies to the two-sample test only; got paired=True, "
                         "equal_var=True.")
    if paired:
        a, b = read_paired(a, b)
        d = b - a
        method = "Paired t-test"
        if np.ptp(d) == 0.0:
            return _undefined(method, d.size - 1.0, float(d.mean()), level, alternative)
        (a_s, b_s, d_s, mu_s), e = _scaled(a, b, d, np.array(mu))
        res = stats.ttest_rel(b_s, a_s, alternative=alternative) if mu == 0.0 else \
            stats.ttest_1samp(d_s, float(mu_s), alternative=alternative)
        return _from_scipy(res, d.mean(), level, method, alternative, mu, exponent=e)
    a = read_scores(a, "a", min_size=2)
    b = read_scores(b, "b", min_size=2)
    method = " Two Sample t-test" if equal_var else "Welch Two Sample t-test"
    estimate = float(b.mean() - a.mean())
    if np.ptp(a) == 0.0 and np.ptp(b) == 0.0:
        return _undefined(method, float(a.size + b.size - 2) if equal_var else float("nan"), estimate,
                          level, alternative)
    (shifted, a_s), e = _scaled(b - mu, a)
    res = stats.ttest_ind(shifted, a_s, equal_var=equal_var, alternative=alternative)
    return _from_scipy(res, estimate, level, method, alternative, mu, shift=mu, exponent=e)


_ZERO_METHODS = ("wilcox", "pratt", "zsplit")


@fill_doc(**DOC)
@validate_params({"a": ["array-like"], "b": ["array-like"], "correction": ["boolean"],
                  "alternative": ALTERNATIVE, "exact": ["boolean", None],
                  "zero_method": [Options(_ZERO_METHODS)]}, renamed={**_PAIR, "correct": "correction"})
def wilcoxon(a, b, /, *, correction=True, alternative="two-sided", exact=None, zero_method="wilcox"):
    r"""Wilcoxon signed-rank test of B minus A (e.g. paired scores across data sets).

    Null hypothesis: the differences B - A are symmetric about 0 (not merely of median or
    mean 0: skewed differences of mean 0 are rejected more often than the level says).

    With ``zero_method="wilcox"`` (R's ``wilcox.test``) zero differences are dropped; with
    "pratt" (coin's ``wilcoxsign_test(zero.method = "Pratt")``) they are ranked with the
    others and then dropped; with "zsplit" (scipy's ``zero_method="zsplit"``) they are
    ranked with the others and each zero's rank is split, half to the positive and half to
    the negative side. :math:`V = \sum_{d_i > 0} \operatorname{rank}|d_i|` has
    :math:`E[V] = \tfrac12\sum_i r_i` and :math:`Var[V] = \tfrac14\sum_i r_i^2` over the
    ranks of the non-zero differences (the tie-corrected variance; with "zsplit" V adds half
    of the zeros' ranks and the sums run over every difference). By default
    (``exact=None``) the exact null distribution is used with fewer than 50 non-zero
    differences and no ties or zeros, otherwise the normal approximation with (by default)
    a continuity correction — the choice R makes; ``exact=False`` forces the normal
    approximation, ``exact=True`` asks for the exact test (with ties or zeros the normal
    approximation is used, as R does with a warning). The p-values are
    :func:`scipy.stats.wilcoxon`'s.

    Parameters
    ----------
    %(paired_scores)s
    correction : bool, default True
        Continuity correction in the normal approximation (R's ``correct``, scipy's
        ``correction``; coin has none: ``False``).
    %(alternative)s
    exact : bool or None, default None
    zero_method : {"wilcox", "pratt", "zsplit"}, default "wilcox"
        How zero differences are treated (see above); "pratt" and "zsplit" use the normal
        approximation.

    Returns
    -------
    WilcoxonResult
        ``.statistic`` (V, R's convention: sum of ranks of positive B - A), ``.pvalue``,
        ``.z`` (coin's standardised statistic), ``.expectation``, ``.variance``,
        ``.method`` (R's method string), ``.n_zero``.

    Warns
    -----
    PredstabUndefinedWarning
        All differences are zero: p-value NaN.
    PredstabDataWarning
        ``exact=True`` with ties or zeros: the normal approximation is used.

    References
    ----------
    Demšar, J. (2006). Statistical comparisons of classifiers over multiple data sets.
    *JMLR* 7, 1-30. https://jmlr.org/papers/v7/demsar06a.html

    Pratt, J. W. (1959). Remarks on zeros and ties in the Wilcoxon signed rank procedures.
    *JASA* 54, 655-667. https://doi.org/10.1080/01621459.1959.10501526

    Matches `stats::wilcox.test(b, a, paired = TRUE, alternative =, exact =, correct = correction)` and
    `coin::wilcoxsign_test(b ~ a, zero.method =, distribution = "asymptotic")`; see validation/.

    Examples
    --------
    >>> r = wilcoxon([0.80, 0.71, 0.65, 0.90, 0.55], [0.82, 0.75, 0.64, 0.98, 0.60])
    >>> r.statistic, round(r.pvalue, 4), r.method
    (14.0, 0.125, 'Wilcoxon signed rank exact test')
    """
    a, b = read_paired(a, b)
    d = b - a
    zero = d == 0
    n_zero = int(zero.sum())
    if n_zero == d.size:
        warn_outside("All paired differences are zero; the Wilcoxon test is undefined (NaN).",
                     PredstabUndefinedWarning)
        return WilcoxonResult(statistic=float("nan"), pvalue=float("nan"), method="Wilcoxon signed rank test",
                              alternative=alternative, n_zero=n_zero, zero_method=zero_method,
                              statistic_name="V")
    if zero_method == "wilcox":
        ranks = stats.rankdata(np.abs(d[~zero]))
        v = float(ranks[d[~zero] > 0].sum())
    else:
        all_ranks = stats.rankdata(np.abs(d))
        v = float(all_ranks[d > 0].sum())
        if zero_method == "zsplit":
            ranks = all_ranks
            v += float(all_ranks[zero].sum()) / 2.0
        else:
            ranks = all_ranks[~zero]
    n = int(np.count_nonzero(~zero))
    expectation = float(ranks.sum()) / 2.0
    variance = float(np.sum(ranks ** 2)) / 4.0
    z = (v - expectation) / np.sqrt(variance)
    ties = np.unique(ranks).size != n
    use_exact = (n < 50) if exact is None else exact
    if use_exact and zero_method != "wilcox":
        if exact:
            raise ValueError(f"`exact=True` is not available with zero_method={zero_method!r} (an "
                             "asymptotic test); got exact=True.")
        use_exact = False
    if exact and (ties or n_zero):
        warn_outside("wilcoxon: cannot compute the exact p-value with ties or zero differences; the "
                     "normal approximation is used (as R's wilcox.test does).", PredstabDataWarning)
    if use_exact and not ties and n_zero == 0:
        p = float(stats.wilcoxon(d, alternative=alternative, method="exact").pvalue)
        return WilcoxonResult(statistic=v, pvalue=min(1.0, p), method="Wilcoxon signed rank exact test",
                              alternative=alternative, z=float("nan"), expectation=expectation,
                              variance=variance, n_zero=n_zero, zero_method=zero_method,
                              statistic_name="V")
    p = float(stats.wilcoxon(d, zero_method=zero_method, correction=correction, alternative=alternative,
                             method="approx").pvalue)
    if zero_method == "pratt":
        method = "Asymptotic Wilcoxon-Pratt Signed-Rank Test"
    elif zero_method == "zsplit":
        method = "Wilcoxon signed rank test, zeros split" + (" with continuity correction" if correction
                                                             else "")
    else:
        method = "Wilcoxon signed rank test" + (" with continuity correction" if correction else "")
    return WilcoxonResult(statistic=v, pvalue=min(1.0, p), method=method, alternative=alternative,
                          z=float(z), expectation=expectation, variance=variance, n_zero=n_zero,
                          zero_method=zero_method, statistic_name="V")


_POSITIVE = [Interval(Real, 0, None, closed="neither")]


@fill_doc(**DOC)
@validate_params({"a": ["array-like"], "b": ["array-like"], "n_train": _POSITIVE,
                  "n_test": _POSITIVE, "alternative": ALTERNATIVE, "confidence_level": CONFIDENCE},
                 renamed=_PAIR)
def corrected_resampled_ttest(a, b, /, *, n_train, n_test, alternative="two-sided", confidence_level=0.95):
    r"""Nadeau–Bengio corrected resampled t-test for scores from repeated CV or random splits.

    Null hypothesis: the expected difference B - A of the generalisation error is 0 (the
    variance correction accounts for the overlap of training sets; the test is conservative:
    type I 0.02-0.04 at 5 %, docs/benchmarks/calibration.md).

    With :math:`J` paired scores :math:`d_j = b_j - a_j` (every fold of every repetition),

    .. math::

        t = \frac{\bar d}{\sqrt{\left(\frac1J + \frac{n_{test}}{n_{train}}\right) s_d^2}},
        \qquad \text{df} = J - 1.

    The naive test uses :math:`1/J` alone and so becomes ever more "significant" as
    repetitions are added; the :math:`n_{test}/n_{train}` term accounts for the overlap of
    training sets.

    Parameters
    ----------
    a, b : array-like of shape (n_repeats, n_folds) or (J,)
        Scores of A and B, fold by fold (the same splits for both models).
    n_train, n_test : float
        Training and test set sizes of one split.
    %(alternative)s
    %(confidence_level)s

    Returns
    -------
    TestResult
        ``.statistic``, ``.pvalue``, ``.df``, ``.estimate`` (mean B - A) and the corrected
        ``.confidence_interval``.

    Warns
    -----
    PredstabUndefinedWarning
        All differences are equal (variance 0): statistic and p-value are NaN.

    References
    ----------
    Nadeau, C. & Bengio, Y. (2003). Inference for the generalization error. *Machine
    Learning* 52, 239-281. https://doi.org/10.1023/A:1024068626366

    Bouckaert, R. R. & Frank, E. (2004). Evaluating the replicability of significance tests
    for comparing learning algorithms. *PAKDD*. https://doi.org/10.1007/978-3-540-24775-3_3

    No base-R equivalent; with ``n_test / n_train -> 0`` it is `stats::t.test(b, a, paired = TRUE)`.

    Examples
    --------
    >>> a = [0.80, 0.82, 0.79, 0.81, 0.80, 0.83, 0.78, 0.80, 0.82, 0.81]
    >>> b = [0.82, 0.83, 0.80, 0.84, 0.80, 0.85, 0.80, 0.81, 0.84, 0.82]
    >>> r = corrected_resampled_ttest(a, b, n_train=900, n_test=100)
    >>> round(r.statistic, 3), round(r.pvalue, 4)
    (3.841, 0.004)
    """
    a, b = read_paired(a, b, ndim=(1, 2))
    (a_s, b_s), e = _scaled(a, b)       # d.var under- or overflows beyond 1e+-154
    d = (b_s - a_s).ravel()
    j = d.size
    se = math.sqrt((1.0 / j + float(n_test) / float(n_train)) * float(d.var(ddof=1)))
    res = _t_from(float(d.mean()), se, j - 1, float(confidence_level),
                  "Corrected resampled t-test (Nadeau-Bengio)", alternative)
    return res if e == 0 else _unscaled(res, e)


def _dietterich_t(d, s2):
    t = float(d[0, 0]) / math.sqrt(float(s2.mean()))
    return t, 2.0 * stats.t.sf(abs(t), 5)


def _alpaydin_f(d, s2):
    f = float((d ** 2).sum()) / (2.0 * float(s2.sum()))
    return f, stats.f.sf(f, 10, 5)


def _cv5x2(a, b, *, label, method, statistic_name, df, statistic_and_pvalue):
    """A 5x2cv test of the (5, 2) tables ``a`` and ``b``: ``statistic_and_pvalue(d, s2)`` of the
    differences ``d = b - a`` and the per-repetition sums of squares ``s2``; NaN (with a
    warning) when every repetition has equal fold differences."""
    a, b = read_paired(a, b, ndim=2, min_size=10)
    if a.shape != (5, 2):
        raise ValueError(f"`a` and `b` must have shape (5, 2) (5 repetitions x 2 folds); got {a.shape}.")
    (a_s, b_s), e = _scaled(a, b)       # the squares under- or overflow beyond 1e+-154
    d = b_s - a_s
    s2 = ((d - d.mean(axis=1, keepdims=True)) ** 2).sum(axis=1)
    if float(s2.sum()) == 0.0:
        warn_outside(f"{label}: every repetition has equal fold differences (variance 0); the test is "
                     "undefined (NaN).", PredstabUndefinedWarning)
        statistic = pvalue = float("nan")
    else:
        statistic, pvalue = statistic_and_pvalue(d, s2)
    return TestResult(statistic=float(statistic), pvalue=float(pvalue), df=df,
                      estimate=float(np.ldexp(d.mean(), -e)), method=method, statistic_name=statistic_name)


@fill_doc(**_CV5X2)
@validate_params({"a": ["array-like"], "b": ["array-like"]}, renamed=_PAIR)
def cv5x2_ttest(a, b, /):
    r"""Dietterich's 5×2cv paired t-test.

    Null hypothesis: A and B have the same expected error (normal fold differences).

    Five repetitions of 2-fold CV give differences :math:`p_i^{(j)} = b - a`; with
    :math:`s_i^2 = \sum_j (p_i^{(j)} - \bar p_i)^2`,

    .. math::

        t = \frac{p_1^{(1)}}{\sqrt{\tfrac15 \sum_{i=1}^5 s_i^2}} \sim t_5.

    %(tables_to_result)s
        ``.statistic``, ``.pvalue`` (two-sided), ``.df`` (5), ``.estimate`` (mean B - A).

    Warns
    -----
    %(undefined)s

    References
    ----------
    Dietterich, T. G. (1998). Approximate statistical tests for comparing supervised
    classification learning algorithms. *Neural Computation* 10, 1895-1923.
    https://doi.org/10.1162/089976698300017197

    No base-R equivalent (mlxtend's ``paired_ttest_5x2cv`` computes the same statistic).

    Examples
    --------
    %(example)s
    >>> r = cv5x2_ttest(a, b)
    >>> round(r.statistic, 4), round(r.pvalue, 4)
    (2.9814, 0.0307)
    """
    return _cv5x2(a, b, label="5x2cv t-test", method="5x2cv paired t-test", statistic_name="t", df=5.0,
                  statistic_and_pvalue=_dietterich_t)


@fill_doc(**_CV5X2)
@validate_params({"a": ["array-like"], "b": ["array-like"]}, renamed=_PAIR)
def cv5x2_ftest(a, b, /):
    r"""Alpaydin's combined 5×2cv F-test.

    Null hypothesis: A and B have the same expected error (normal fold differences).

    .. math::

        F = \frac{\sum_{i=1}^5 \sum_{j=1}^2 (p_i^{(j)})^2}{2 \sum_{i=1}^5 s_i^2} \sim F_{10, 5}.

    Uses all ten differences (Dietterich's t uses one numerator term), which makes it more
    stable and usually more powerful. F is the same for ``(a, b)`` and ``(b, a)``; the
    direction is ``.estimate``, the mean of B - A.

    %(tables_to_result)s
        ``.statistic`` (F), ``.pvalue``, ``.df`` ``(10, 5)``, ``.estimate`` (mean B - A).

    Warns
    -----
    %(undefined)s

    References
    ----------
    Alpaydin, E. (1999). Combined 5 × 2 cv F test for comparing supervised classification
    learning algorithms. *Neural Computation* 11, 1885-1892.
    https://doi.org/10.1162/089976699300016007

    No base-R equivalent (mlxtend's ``combined_ftest_5x2cv`` computes the same statistic).

    Examples
    --------
    %(example)s
    >>> f, p = cv5x2_ftest(a, b)        # a test result unpacks as SciPy's
    >>> round(f, 3), round(p, 4)
    (4.889, 0.0469)
    """
    return _cv5x2(a, b, label="5x2cv F-test", method="combined 5x2cv F-test", statistic_name="F",
                  df=(10, 5), statistic_and_pvalue=_alpaydin_f)
