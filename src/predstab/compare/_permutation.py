"""Permutation tests of the difference of means, B minus A: paired (sign flips) and two-sample."""

from __future__ import annotations

from numbers import Integral

import numpy as np
from scipy import stats

from .._core._docstrings import fill_doc
from .._core._ratings import unit_scaled
from .._core._utils import check_rng
from .._core._validation import Interval, Options, validate_params
from ._common import ALTERNATIVE, DOC, read_scores, rng_keyword
from ._resampling import sign_flip_pvalue, two_sample_pvalue, two_sample_welch_pvalue, welch_t
from ._results import TestResult

__all__ = ["mean_permutation_test"]


def _enumerable(paired, n_a, n_b, n_resamples):
    """True when the arrangements (2^n sign flips, or C(n_a + n_b, n_a) splits) are at most
    ``n_resamples``. The binomial coefficient is built term by term and abandoned once
    it passes ``n_resamples``: ``math.comb(2e6, 1e6)`` has 600,000 digits and took seconds."""
    if paired:
        return n_a < 63 and 2 ** n_a <= n_resamples
    count = 1
    for k in range(1, min(n_a, n_b) + 1):     # C(N, k) grows with k up to N / 2
        count = count * (n_a + n_b - k + 1) // k
        if count > n_resamples:
            return False
    return True


def _welch(x, y, axis=-1):
    """Welch's t of ``y`` minus ``x`` along ``axis`` (0 where both groups are constant)."""
    x = np.moveaxis(x, axis, -1)
    y = np.moveaxis(y, axis, -1)
    t = welch_t(x.shape[-1], x.sum(axis=-1), (x * x).sum(axis=-1), y.shape[-1], y.sum(axis=-1),
                (y * y).sum(axis=-1))
    return np.where(np.isnan(t), 0.0, t)


def _two_sample_pvalue(a, b, n_resamples, exact, rng, alternative, batch, studentized=False):
    """All splits of the pooled scores by :func:`scipy.stats.permutation_test`; random ones by
    :func:`predstab.compare._resampling.two_sample_pvalue` (``two_sample_welch_pvalue``
    when ``studentized``)."""
    if not exact:
        engine = two_sample_welch_pvalue if studentized else two_sample_pvalue
        return engine(a, b, n_resamples=int(n_resamples), rng=rng, alternative=alternative)
    if studentized:     # centred and rescaled: t is invariant, the squares stay finite
        pooled = np.concatenate([a, b])
        pooled = unit_scaled(pooled - pooled.mean())[0]
        a, b = pooled[:a.size], pooled[a.size:]

        def raw(x, y, axis=-1):
            return _welch(x, y, axis)
    else:
        def raw(x, y, axis=-1):
            return np.mean(y, axis=axis) - np.mean(x, axis=axis)
    if alternative == "two-sided":
        def statistic(x, y, axis=-1):
            return np.abs(raw(x, y, axis))
        side = "greater"
    else:
        statistic = raw
        side = alternative
    width = a.size + b.size
    batch = max(1, min(int(batch), 4_000_000 // width))  # at most ~32 MB of arrangements at a time
    res = stats.permutation_test((a, b), statistic, permutation_type="independent", vectorized=True,
                                 n_resamples=np.inf, alternative=side,
                                 batch=batch, **rng_keyword(stats.permutation_test, rng))
    return res.pvalue


@fill_doc(**DOC)
@validate_params({"a": ["array-like"], "b": ["array-like"], "paired": ["boolean"],
                  "n_resamples": [Interval(Integral, 1, None)], "alternative": ALTERNATIVE,
                  "random_state": ["random_state"], "batch": [Interval(Integral, 1, None)],
                  "statistic": [Options(("mean", "welch"))]},
                 renamed={"n_permutations": "n_resamples"})
def mean_permutation_test(a, b, /, *, paired=False, n_resamples=9999, alternative="two-sided",
                          random_state=None, batch=1000, statistic="mean"):
    r"""Permutation test of the difference of means, B minus A (exact when enumeration is small).

    Null hypothesis: see **Null hypotheses** below (paired: symmetry about 0; two-sample:
    one distribution, or equal means with ``statistic="welch"``).

    Paired: the differences :math:`d_i = b_i - a_i` get random signs (under the null B and A
    are exchangeable within each pair). Two-sample: the pooled values are randomly split into
    groups of the original sizes. With ``hits`` the number of permuted statistics at least as
    extreme as the observed one (two-sided: in absolute value),

    **Null hypotheses.** Paired: the differences are symmetric about 0 (not merely of mean
    0: skewed differences of mean 0 are rejected far more often than the level says).
    Two-sample with ``statistic="mean"``: A's and B's scores are exchangeable, i.e. have one
    distribution; with unequal spreads and sizes it rejects equal means often (0.25 at
    spreads 3:1 and sizes 10:40). ``statistic="welch"`` permutes Welch's t instead of the
    difference of means (Janssen 1997; Chung & Romano 2013): exact under exchangeability and
    asymptotically valid for equal means with unequal variances (type I near the level
    where the mean statistic gives 0.25; docs/benchmarks/calibration.md). Paired, the
    studentised statistic is a monotone function of the mean difference under sign flips
    (their sum of squares is fixed), so ``"welch"`` gives the same test there.

    .. math::

        p = \frac{\text{hits} + 1}{n_{resamples} + 1},

    which is a valid p-value (never 0) for a Monte Carlo test. When ``n_resamples`` is at
    least the number of distinct arrangements (:math:`2^n` sign flips, or
    :math:`\binom{n_a + n_b}{n_a}` splits), every arrangement is enumerated instead and
    :math:`p = \text{hits} / \text{arrangements}` is exact (``.method`` says which). The
    two-sided rule is :math:`|T| \ge |t|` (scipy doubles the smaller one-sided p instead).

    Paired (the engine of ``predstab.compare._resampling``): permutation :math:`r` draws
    :math:`\lceil n/64 \rceil` 64-bit words, ``rng.integers(0, 2**64, dtype=np.uint64)``, and
    pair :math:`i` keeps its sign when bit :math:`i \bmod 64` of word :math:`\lfloor i/64
    \rfloor` is set; the permuted sum :math:`2S - D` (:math:`S` the sum of the kept
    :math:`d_i`, :math:`D = \sum d_i`) is read from float64 tables of the 16 subset sums of
    every 4 pairs. A permuted statistic counts as at least as extreme when it is within
    :math:`\tau = 2^{-30} \sum_i |d_i|` of the observed one, which absorbs the rounding of sums
    taken in different orders (it is below :math:`\tau / 2`) and is at most
    :math:`2^{-30}\sqrt{n}` null standard deviations. Two-sample, Monte Carlo: each
    permutation is a shuffled copy of the pooled values, ``rng.permuted(concatenate([a,
    b]))`` (one copy, 8 bytes per value, at a time); the first :math:`n_a` form A, the
    rest B, with the same tie tolerance (:math:`\tau` of the pooled values, on the scale of
    the statistic). Two-sample, exact: every split by :func:`scipy.stats.permutation_test`
    (``permutation_type="independent"``).

    Parameters
    ----------
    a, b : array-like of shape (n_a,), (n_b,)
        Scores of A and B (same length when ``paired``).
    paired : bool, default False
    n_resamples : int, default 9999
        Random arrangements (Monte Carlo), unless all arrangements are fewer (scipy's name).
    %(alternative)s
    %(random_state)s
    statistic : {"mean", "welch"}, default "mean"
        The permuted statistic of the two-sample test: the difference of means (null: one
        distribution), or Welch's t (null: equal means, valid with unequal variances). The
        result's ``statistic`` is the difference of means either way.
    batch : int, default 1000
        Arrangements evaluated per block. It bounds memory, never the result: paired, the
        blocks hold at most ``min(batch, ...)`` sign patterns so that a block's arrays stay
        under 64 MiB, on top of the tables (32 bytes per pair) and the data; the p-value of a
        seed is the same for every ``batch``. Two-sample: Monte Carlo holds one shuffled copy
        of the pooled values at a time whatever ``batch`` is; exact enumeration evaluates
        ``batch`` splits, about 32 MB, at a time.

    Returns
    -------
    TestResult
        ``.statistic`` and ``.estimate`` (mean(b) - mean(a)), ``.pvalue``, ``.method``;
        ``statistic, pvalue = mean_permutation_test(a, b)`` unpacks as SciPy's.

    References
    ----------
    Chung, E. & Romano, J. P. (2013). Exact and asymptotically robust permutation tests.
    *Ann. Statist.* 41, 484-507. https://doi.org/10.1214/13-AOS1090

    Janssen, A. (1997). Studentized permutation tests for non-i.i.d. hypotheses and the
    generalized Behrens-Fisher problem. *Statist. Probab. Lett.* 36, 9-21.
    https://doi.org/10.1016/S0167-7152(97)00043-6

    Phipson, B. & Smyth, G. K. (2010). Permutation p-values should never be zero.
    *Stat. Appl. Genet. Mol. Biol.* 9(1), 39. https://doi.org/10.2202/1544-6115.1585

    No base-R equivalent (``coin::oneway_test(distribution = "exact")`` for the two-sample
    test); the exact test is checked against enumeration written in the tests.

    Examples
    --------
    >>> A = [40, 42, 44, 45, 46, 47, 48, 49, 50, 51]
    >>> B = [5, 8, 10, 12, 30, 33, 35, 38, 40, 420]
    >>> r = mean_permutation_test(A, B, random_state=0)
    >>> round(r.statistic, 1), r.pvalue > 0.99
    (16.9, True)
    >>> mean_permutation_test([1, 2, 3], [2, 4, 6], paired=True).pvalue   # 2 of 8 sign flips
    0.25
    """
    a = read_scores(a, "a")
    b = read_scores(b, "b")
    if paired and a.shape != b.shape:
        raise ValueError(f"`a` and `b` must have the same length when `paired=True`; got "
                         f"{a.size} and {b.size}.")
    rng = check_rng(random_state)
    observed = float(b.mean() - a.mean())
    exact = _enumerable(paired, a.size, b.size, int(n_resamples))
    if paired:
        pvalue = sign_flip_pvalue(b - a, n_resamples=int(n_resamples), exact=exact, rng=rng,
                                  alternative=alternative, batch=int(batch))
    else:
        if min(a.size, b.size) < 2:  # scipy.stats.permutation_test's limit, in this function's words
            raise ValueError(f"`a` and `b` must each hold at least 2 scores for the two-sample test; got "
                             f"{a.size} and {b.size} (paired=True compares pairs).")
        pvalue = _two_sample_pvalue(a, b, n_resamples, exact, rng, alternative, batch,
                                    studentized=statistic == "welch")
    kind = "Exact" if exact else "Monte Carlo"
    design = "paired" if paired else "two-sample"
    what = ("studentised (Welch's t) " if statistic == "welch" and not paired else "")
    return TestResult(statistic=observed, pvalue=float(pvalue), estimate=observed,
                      method=f"{kind} {design} {what}permutation test of the difference of means",
                      alternative=alternative, statistic_name="mean difference")
