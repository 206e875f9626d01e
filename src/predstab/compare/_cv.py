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

import math
import numbers
import warnings

import numpy as np
from scipy import stats

from .._exceptions import PredstabUndefinedWarning
from .._utils import ConfidenceInterval, check_fraction
from ._results import TestResult

__all__ = ["ttest", "wilcoxon", "corrected_resampled_ttest", "cv5x2_ttest", "cv5x2_ftest"]


def _scores(values, name, *, min_size=2, ndim=1):
    try:
        if np.iscomplexobj(values):  # np.asarray would drop the imaginary part with only a warning
            raise TypeError
        arr = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"`{name}` must be numeric scores; got {type(values).__name__}.") from None
    if arr.ndim not in np.atleast_1d(ndim):
        raise ValueError(f"`{name}` must be {ndim}-dimensional; got shape {arr.shape}.")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"`{name}` must not contain NaN or infinite values; got "
                         f"{int((~np.isfinite(arr)).sum())} such entries.")
    if arr.size < min_size:
        raise ValueError(f"`{name}` must have at least {min_size} scores; got {arr.size}.")
    return arr


def _paired(a, b, ndim=1):
    a = _scores(a, "scores_a", ndim=ndim)
    b = _scores(b, "scores_b", ndim=ndim)
    if a.shape != b.shape:
        raise ValueError(f"`scores_a` and `scores_b` must be paired (same shape); got {a.shape} and "
                         f"{b.shape}.")
    return a, b


def _t_from(estimate, se, df, level, method):
    """t statistic, two-sided p and CI; NaN with a warning when the standard error is zero."""
    if se == 0.0:
        warnings.warn(f"{method}: the scores are constant (standard error 0); the test is undefined "
                      "and its statistic and p-value are NaN.", PredstabUndefinedWarning, stacklevel=3)
        return TestResult(statistic=float("nan"), pvalue=float("nan"), df=df, estimate=estimate,
                          confidence_interval=ConfidenceInterval(float("nan"), float("nan")), method=method)
    t = estimate / se
    half = float(stats.t.isf((1.0 - level) / 2.0, df)) * se
    return TestResult(statistic=float(t), pvalue=float(2.0 * stats.t.sf(abs(t), df)), df=float(df),
                      estimate=float(estimate),
                      confidence_interval=ConfidenceInterval(estimate - half, estimate + half),
                      method=method)


def _ttest_iv(a, b, paired, equal_var, level):
    for name, flag in (("paired", paired), ("equal_var", equal_var)):
        if not isinstance(flag, (bool, np.bool_)):
            raise TypeError(f"`{name}` must be True or False; got {flag!r}.")
    if paired and equal_var:
        raise ValueError("`equal_var` applies to the two-sample test only; got paired=True, "
                         "equal_var=True.")
    if paired:
        a, b = _paired(a, b)
    else:
        a, b = _scores(a, "scores_a"), _scores(b, "scores_b")
    return a, b, bool(paired), bool(equal_var), check_fraction(level, "level")


def ttest(scores_a, scores_b, *, paired=False, equal_var=False, level=0.95):
    r"""Student's t-test of B minus A: paired, Welch (default) or pooled two-sample.

    Paired: :math:`t = \bar d / (s_d/\sqrt n)`, :math:`d = b - a`, ``df = n - 1``. Welch:
    :math:`t = (\bar b - \bar a)/\sqrt{s_a^2/n_a + s_b^2/n_b}` with Welch–Satterthwaite df.
    Pooled: common variance, ``df = n_a + n_b - 2``.

    Parameters
    ----------
    scores_a, scores_b : array-like of shape (n,) / (n_a,), (n_b,)
        Scores of A and B (paired: matched by position).
    paired : bool, default False
    equal_var : bool, default False
        Pooled variance (two-sample only).
    level : float, default 0.95
        Confidence level of the interval for the difference.

    Returns
    -------
    TestResult
        ``.statistic`` (t), ``.pvalue`` (two-sided), ``.df``, ``.estimate`` (mean B - A),
        ``.confidence_interval``.

    Warns
    -----
    PredstabUndefinedWarning
        The standard error is zero (constant data): statistic and p-value are NaN (R stops
        with "data are essentially constant").

    References
    ----------
    Welch, B. L. (1947). The generalization of "Student's" problem when several different
    population variances are involved. *Biometrika* 34, 28-35. https://doi.org/10.1093/biomet/34.1-2.28

    Matches `stats::t.test(b, a, paired =, var.equal =)`; see validation/.

    Examples
    --------
    >>> A = [40, 42, 44, 45, 46, 47, 48, 49, 50, 51]
    >>> B = [5, 8, 10, 12, 30, 33, 35, 38, 40, 420]
    >>> r = ttest(A, B, equal_var=True)
    >>> round(r.estimate, 1), round(r.statistic, 4), round(r.pvalue, 4)
    (16.9, 0.4236, 0.6769)
    """
    a, b, paired, equal_var, level = _ttest_iv(scores_a, scores_b, paired, equal_var, level)
    if paired:
        d = b - a
        n = d.size
        return _t_from(float(d.mean()), float(d.std(ddof=1)) / math.sqrt(n), n - 1, level,
                       "Paired t-test")
    na, nb = a.size, b.size
    va, vb = float(a.var(ddof=1)), float(b.var(ddof=1))
    estimate = float(b.mean() - a.mean())
    if equal_var:
        df = na + nb - 2
        pooled = ((na - 1) * va + (nb - 1) * vb) / df
        return _t_from(estimate, math.sqrt(pooled * (1.0 / na + 1.0 / nb)), df, level,
                       " Two Sample t-test")
    wa, wb = va / na, vb / nb
    se = math.sqrt(wa + wb)
    df = (wa + wb) ** 2 / (wa ** 2 / (na - 1) + wb ** 2 / (nb - 1)) if se > 0 else float("nan")
    return _t_from(estimate, se, df, level, "Welch Two Sample t-test")


def _signrank_counts(n):
    """Number of sign assignments of ranks 1..n with each positive-rank sum 0..n(n+1)/2."""
    counts = np.zeros(n * (n + 1) // 2 + 1, dtype=float)
    counts[0] = 1.0
    top = 0
    for k in range(1, n + 1):
        top += k
        counts[k:top + 1] += counts[:top + 1 - k].copy()
    return counts


def _wilcoxon_iv(a, b, correct):
    a, b = _paired(a, b)
    if not isinstance(correct, (bool, np.bool_)):
        raise TypeError(f"`correct` must be True or False; got {correct!r}.")
    return a, b, bool(correct)


def wilcoxon(scores_a, scores_b, *, correct=True):
    r"""Wilcoxon signed-rank test of B minus A (e.g. paired scores across data sets).

    Zero differences are dropped. With fewer than 50 non-zero differences and no ties the
    exact null distribution of :math:`V = \sum_{d_i > 0} \operatorname{rank}|d_i|` is used;
    otherwise the normal approximation with tie-corrected variance and (by default) a
    continuity correction — the choice R makes.

    Parameters
    ----------
    scores_a, scores_b : array-like of shape (n,)
        Paired scores.
    correct : bool, default True
        Continuity correction in the normal approximation.

    Returns
    -------
    TestResult
        ``.statistic`` (V, R's convention: sum of ranks of positive B - A), ``.pvalue``
        (two-sided), ``.method`` (R's method string).

    Warns
    -----
    PredstabUndefinedWarning
        All differences are zero: p-value NaN.

    References
    ----------
    Demšar, J. (2006). Statistical comparisons of classifiers over multiple data sets.
    *JMLR* 7, 1-30. https://jmlr.org/papers/v7/demsar06a.html

    Matches `stats::wilcox.test(b, a, paired = TRUE)`; see validation/.

    Examples
    --------
    >>> r = wilcoxon([0.80, 0.71, 0.65, 0.90, 0.55], [0.82, 0.75, 0.64, 0.98, 0.60])
    >>> r.statistic, round(r.pvalue, 4), r.method
    (14.0, 0.125, 'Wilcoxon signed rank exact test')
    """
    a, b, correct = _wilcoxon_iv(scores_a, scores_b, correct)
    d = b - a
    zeroes = bool(np.any(d == 0))
    d = d[d != 0]
    n = d.size
    if n == 0:
        warnings.warn("All paired differences are zero; the Wilcoxon test is undefined (NaN).",
                      PredstabUndefinedWarning, stacklevel=2)
        return TestResult(statistic=float("nan"), pvalue=float("nan"), method="Wilcoxon signed rank test")
    ranks = stats.rankdata(np.abs(d))
    v = float(ranks[d > 0].sum())
    ties = np.unique(ranks).size != n
    if n < 50 and not ties and not zeroes:
        counts = _signrank_counts(n)
        total = 2.0 ** n
        vi = int(round(v))
        if v > n * (n + 1) / 4:
            p = counts[vi:].sum() / total
        else:
            p = counts[:vi + 1].sum() / total
        return TestResult(statistic=v, pvalue=float(min(1.0, 2.0 * p)),
                          method="Wilcoxon signed rank exact test")
    _, tie_sizes = np.unique(ranks, return_counts=True)
    z = v - n * (n + 1) / 4.0
    sigma = math.sqrt(n * (n + 1) * (2 * n + 1) / 24.0 - float(np.sum(tie_sizes ** 3 - tie_sizes)) / 48.0)
    corr = 0.5 * np.sign(z) if correct else 0.0
    z = (z - corr) / sigma
    p = 2.0 * min(stats.norm.cdf(z), stats.norm.sf(z))
    method = "Wilcoxon signed rank test" + (" with continuity correction" if correct else "")
    return TestResult(statistic=v, pvalue=float(min(1.0, p)), method=method)


def _corrected_resampled_ttest_iv(a, b, n_train, n_test, level):
    a, b = _paired(a, b, ndim=(1, 2))
    a, b = a.ravel(), b.ravel()
    for name, v in (("n_train", n_train), ("n_test", n_test)):
        if isinstance(v, bool) or not isinstance(v, numbers.Real) or not v > 0:
            raise ValueError(f"`{name}` must be a positive number of cases; got {v!r}.")
    return a, b, float(n_train), float(n_test), check_fraction(level, "level")


def corrected_resampled_ttest(scores_a, scores_b, *, n_train, n_test, level=0.95):
    r"""Nadeau–Bengio corrected resampled t-test for scores from repeated CV or random splits.

    With :math:`J` paired scores :math:`d_j = b_j - a_j` (every fold of every repetition),

    .. math::

        t = \frac{\bar d}{\sqrt{\left(\frac1J + \frac{n_{test}}{n_{train}}\right) s_d^2}},
        \qquad \text{df} = J - 1.

    The naive test uses :math:`1/J` alone and so becomes ever more "significant" as
    repetitions are added; the :math:`n_{test}/n_{train}` term accounts for the overlap of
    training sets.

    Parameters
    ----------
    scores_a, scores_b : array-like of shape (n_repeats, n_folds) or (J,)
        Paired scores, fold by fold (the same splits for both models).
    n_train, n_test : float
        Training and test set sizes of one split.
    level : float, default 0.95

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
    a, b, n_train, n_test, level = _corrected_resampled_ttest_iv(scores_a, scores_b, n_train, n_test, level)
    d = b - a
    j = d.size
    se = math.sqrt((1.0 / j + n_test / n_train) * float(d.var(ddof=1)))
    return _t_from(float(d.mean()), se, j - 1, level, "Corrected resampled t-test (Nadeau-Bengio)")


def _cv5x2_iv(a, b):
    a = _scores(a, "scores_a", min_size=10, ndim=2)
    b = _scores(b, "scores_b", min_size=10, ndim=2)
    for name, arr in (("scores_a", a), ("scores_b", b)):
        if arr.shape != (5, 2):
            raise ValueError(f"`{name}` must have shape (5, 2) (5 repetitions x 2 folds); got {arr.shape}.")
    d = b - a
    s2 = ((d - d.mean(axis=1, keepdims=True)) ** 2).sum(axis=1)
    return d, s2


def cv5x2_ttest(scores_a, scores_b):
    r"""Dietterich's 5×2cv paired t-test.

    Five repetitions of 2-fold CV give differences :math:`p_i^{(j)} = b - a`; with
    :math:`s_i^2 = \sum_j (p_i^{(j)} - \bar p_i)^2`,

    .. math::

        t = \frac{p_1^{(1)}}{\sqrt{\tfrac15 \sum_{i=1}^5 s_i^2}} \sim t_5.

    Parameters
    ----------
    scores_a, scores_b : array-like of shape (5, 2)
        Scores per repetition (rows) and fold (columns), same splits for both models.

    Returns
    -------
    TestResult
        ``.statistic``, ``.pvalue`` (two-sided), ``.df`` (5).

    Warns
    -----
    PredstabUndefinedWarning
        Both folds agree in every repetition (variance 0): NaN statistic and p-value.

    References
    ----------
    Dietterich, T. G. (1998). Approximate statistical tests for comparing supervised
    classification learning algorithms. *Neural Computation* 10, 1895-1923.
    https://doi.org/10.1162/089976698300017197

    No base-R equivalent (mlxtend's ``paired_ttest_5x2cv`` computes the same statistic).

    Examples
    --------
    >>> a = [[0.80, 0.78], [0.79, 0.81], [0.80, 0.80], [0.77, 0.79], [0.81, 0.80]]
    >>> b = [[0.84, 0.80], [0.82, 0.83], [0.81, 0.84], [0.80, 0.82], [0.83, 0.84]]
    >>> r = cv5x2_ttest(a, b)
    >>> round(r.statistic, 4), round(r.pvalue, 4)
    (2.9814, 0.0307)
    """
    d, s2 = _cv5x2_iv(scores_a, scores_b)
    denom = math.sqrt(float(s2.mean()))
    if denom == 0.0:
        warnings.warn("5x2cv t-test: every repetition has equal fold differences (variance 0); the "
                      "test is undefined (NaN).", PredstabUndefinedWarning, stacklevel=2)
        return TestResult(statistic=float("nan"), pvalue=float("nan"), df=5.0,
                          estimate=float(d.mean()), method="5x2cv paired t-test")
    t = float(d[0, 0]) / denom
    return TestResult(statistic=t, pvalue=float(2.0 * stats.t.sf(abs(t), 5)), df=5.0,
                      estimate=float(d.mean()), method="5x2cv paired t-test")


def cv5x2_ftest(scores_a, scores_b):
    r"""Alpaydin's combined 5×2cv F-test.

    .. math::

        F = \frac{\sum_{i=1}^5 \sum_{j=1}^2 (p_i^{(j)})^2}{2 \sum_{i=1}^5 s_i^2} \sim F_{10, 5}.

    Uses all ten differences (Dietterich's t uses one numerator term), which makes it more
    stable and usually more powerful.

    Parameters
    ----------
    scores_a, scores_b : array-like of shape (5, 2)

    Returns
    -------
    TestResult
        ``.statistic`` (F), ``.pvalue``, ``.df`` ``(10, 5)``.

    Warns
    -----
    PredstabUndefinedWarning
        Both folds agree in every repetition (variance 0): NaN statistic and p-value.

    References
    ----------
    Alpaydin, E. (1999). Combined 5 × 2 cv F test for comparing supervised classification
    learning algorithms. *Neural Computation* 11, 1885-1892.
    https://doi.org/10.1162/089976699300016007

    No base-R equivalent (mlxtend's ``combined_ftest_5x2cv`` computes the same statistic).

    Examples
    --------
    >>> a = [[0.80, 0.78], [0.79, 0.81], [0.80, 0.80], [0.77, 0.79], [0.81, 0.80]]
    >>> b = [[0.84, 0.80], [0.82, 0.83], [0.81, 0.84], [0.80, 0.82], [0.83, 0.84]]
    >>> r = cv5x2_ftest(a, b)
    >>> round(r.statistic, 3), round(r.pvalue, 4)
    (4.889, 0.0469)
    """
    d, s2 = _cv5x2_iv(scores_a, scores_b)
    denom = 2.0 * float(s2.sum())
    if denom == 0.0:
        warnings.warn("5x2cv F-test: every repetition has equal fold differences (variance 0); the "
                      "test is undefined (NaN).", PredstabUndefinedWarning, stacklevel=2)
        return TestResult(statistic=float("nan"), pvalue=float("nan"), df=(10, 5),
                          estimate=float(d.mean()), method="combined 5x2cv F-test")
    f = float((d ** 2).sum()) / denom
    return TestResult(statistic=f, pvalue=float(stats.f.sf(f, 10, 5)), df=(10, 5),
                      estimate=float(d.mean()), method="combined 5x2cv F-test")
