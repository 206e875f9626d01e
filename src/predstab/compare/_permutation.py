"""Permutation tests of the difference of means, B minus A: paired (sign flips) and two-sample."""

from __future__ import annotations

from numbers import Integral

import numpy as np
from scipy import stats

from .._core._docstrings import fill_doc
from .._core._utils import check_rng
from .._core._validation import Interval, validate_params
from ._common import ALTERNATIVE, DOC, read_scores, rng_keyword
from ._resampling import sign_flip_pvalue, two_sample_pvalue
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


def _two_sample_pvalue(a, b, n_resamples, exact, rng, alternative, batch):
    """All splits of the pooled scores by :func:`scipy.stats.permutation_test`; random ones by
    :func:`predstab.compare._resampling.two_sample_pvalue`."""
    if not exact:
        return two_sample_pvalue(a, b, n_resamples=int(n_resamples), rng=rng, alternative=alternative)
    if alternative == "two-sided":
        def statistic(x, y, axis=-1):
            return np.abs(np.mean(y, axis=axis) - np.mean(x, axis=axis))
        side = "greater"
    else:
        def statistic(x, y, axis=-1):
            return np.mean(y, axis=axis) - np.mean(x, axis=axis)
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
                  "random_state": ["random_state"], "batch": [Interval(Integral, 1, None)]},
                 renamed={"n_permutations": "n_resamples"})
def mean_permutation_test(a, b, /, *, paired=False, n_resamples=9999, alternative="two-sided",
                          random_state=None, batch=1000):
    r"""Permutation test of the difference of means, B minus A (exact when enumeration is small).

    Paired: the differences :math:`d_i = b_i - a_i` get random signs (under the null B and A
    are exchangeable within each pair). Two-sample: the pooled values are randomly split into
    groups of the original sizes. With ``hits`` the number of permuted statistics at least as
    extreme as the observed one (two-sided: in absolute value),

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
        pvalue = _two_sample_pvalue(a, b, n_resamples, exact, rng, alternative, batch)
    kind = "Exact" if exact else "Monte Carlo"
    design = "paired" if paired else "two-sample"
    return TestResult(statistic=observed, pvalue=float(pvalue), estimate=observed,
                      method=f"{kind} {design} permutation test of the difference of means",
                      alternative=alternative, statistic_name="mean difference")
