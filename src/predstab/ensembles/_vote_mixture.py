"""Majority votes of two classes beyond half the pool: the vote distribution of a forest of any
size from the pool's per-object vote counts, by empirical Bayes (a binomial mixture).

Up to half the pool the class closed forms average over every pair of disjoint forests of the
pool (:func:`two_class_vote_agreement`, below: exactly unbiased). Beyond
half the pool no two disjoint forests exist, and no unbiased estimator of the agreement exists at
all: with hard votes of two classes the pool's count of votes for the second class at object
``i`` is Binomial(P, q_i), sufficient for ``q_i``, and an agreement of forests of ``n`` trees is a
polynomial of degree ``2 n`` in ``q_i``, estimable without bias only when ``2 n <= P``.

The plug-in used before took the pool's vote shares as exact (Binomial(n, k_i / P) votes). Near
a tied vote that overstates stability badly: on optRF's SNP data (classes, hard votes) pools of
500 trees gave Fleiss' kappa 0.430 at 500 trees and 0.554 at 1,000 for 0.273 and 0.401 (20,000
trees), 20 standard errors off, and optRF's recommendation 21,000 for 44,000. Sampling ``n`` of
the ``P`` trees without replacement (hypergeometric votes) makes each object's vote
distribution unbiased for ``n <= P``, but its square, the agreement, is then further off: at
``n = P`` every forest is the whole pool and the agreement is 1 at every object.

Here the shares' distribution over the test objects is estimated instead: the nonparametric
maximum-likelihood mixing distribution ``G`` of ``k_i ~ Binomial(P, q_i)``, ``q_i ~ G``, on a grid
of 501 shares (Kiefer & Wolfowitz 1956; EM of Laird 1978), and each object's quantities are
their posterior means, ``E[a(n, q) | k_i]`` and ``E[pi(n, q) | k_i]``, with ``pi(n, q)`` the
chance that ``n`` trees give the second class a strict majority (a tie goes to the first class)
and ``a = pi**2 + (1 - pi)**2``. Deterministic (no random numbers) and a function of the counts
alone (one histogram of ``P + 1`` counts summarises any number of objects). On the SNP data
(20,000 trees cut into pools) the mean kappa of pools of 500 trees at 500 and 1,000 trees is
0.262 and 0.370 (bias -0.6 and -1.0 standard errors of the mean of 40 pools), of 1,000 trees at
1,000 trees 0.396 for 0.401; benchmarks/bench_tuning.py and docs/benchmarks/tuning.md.

References
----------
.. [1] Kiefer, J. & Wolfowitz, J. (1956). Consistency of the maximum likelihood estimator in the
   presence of infinitely many incidental parameters. Ann. Math. Statist. 27, 887-906.
.. [2] Laird, N. (1978). Nonparametric maximum likelihood estimation of a mixing distribution.
   JASA 73, 805-811.
"""

from __future__ import annotations

import functools

import numpy as np
from scipy import stats as sps

__all__ = ["SHARES", "share_posterior", "two_class_vote_mixture", "two_class_vote_agreement"]

# the grid of the mixing distribution: the ends (objects every tree votes alike) and steps of 0.002
SHARES = np.r_[0.0, np.linspace(0.001, 0.999, 499), 1.0]
_MAX_ITER = 2000
_TOL = 1e-12


def share_posterior(ones, size):
    """``(posterior, inverse, weights)``: the posterior of each distinct count over :data:`SHARES`
    under the estimated mixing distribution, the index of each object's count, and the mixing
    distribution's weights on :data:`SHARES`.

    ``ones[i]``: the pool's votes (of ``size``) for the second class at object ``i``. EM of the
    mixture weights over the distinct counts (weighted by how many objects have each), until no
    weight moves by more than 1e-12 or 2,000 steps.
    """
    ones = np.rint(np.asarray(ones, dtype=float)).astype(np.int64)
    counts, inverse, mult = np.unique(ones, return_inverse=True, return_counts=True)
    like = sps.binom.pmf(counts[:, None], int(size), SHARES[None, :])  # distinct counts x shares
    mult = mult / mult.sum()
    weights = np.full(len(SHARES), 1.0 / len(SHARES))
    for _ in range(_MAX_ITER):
        # EM: each weight times the mean over objects of its share of the object's likelihood
        new = weights * ((mult / (like @ weights)) @ like)
        done = np.max(np.abs(new - weights)) < _TOL
        weights = new
        if done:
            break
    post = like * weights
    post /= post.sum(axis=1, keepdims=True)
    return post, inverse.ravel(), weights


def two_class_vote_mixture(ones, size, ns):
    """``(agree, pi)`` of forests of ``ns`` trees by empirical Bayes (see the module's notes):
    ``agree[k, i]`` the chance that two forests of ``ns[k]`` trees agree at object ``i``,
    ``pi[k, i, c]`` that one predicts class ``c``; shapes as
    :func:`two_class_vote_agreement`, for any ``n`` (also
    beyond the pool)."""
    post, inverse, _ = share_posterior(ones, size)
    agree = np.empty((len(ns), len(inverse)))
    pi = np.empty((len(ns), len(inverse), 2))
    for k, n in enumerate(ns):
        n = int(n)
        second = sps.binom.sf(n // 2, n, SHARES)  # strictly more than n / 2 votes
        agree[k] = (post @ (second**2 + (1 - second) ** 2))[inverse]
        pi[k, :, 1] = (post @ second)[inverse]
        pi[k, :, 0] = 1.0 - pi[k, :, 1]
    return agree, pi


# --------------------------------------------------------------------------- up to half the pool
def _hypergeom_pmf(k, population, successes, draws):
    """P(k successes in ``draws`` draws without replacement), broadcast; 0 outside the support.

    From log binomial coefficients: ``scipy.stats.hypergeom.pmf`` gives the same values but
    took 15 s for the 1.5 million (k, successes) pairs of one 2,000-tree grid value here.
    """
    from scipy.special import gammaln

    def log_choose(a, b):
        return gammaln(a + 1) - gammaln(b + 1) - gammaln(a - b + 1)

    k, successes = np.broadcast_arrays(k, successes)
    inside = (k >= np.maximum(0, draws - (population - successes))) & (k <= np.minimum(draws, successes))
    kk, ss = np.where(inside, k, 0), np.where(inside, successes, draws)
    logp = log_choose(ss, kk) + log_choose(population - ss, draws - kk) - log_choose(population, draws)
    return np.where(inside, np.exp(logp), 0.0)


def _window(center, sd, low, high):
    """Integers center +- (12 sd + 2), one row per center, and which of them lie in [low, high]."""
    width = int(np.ceil(12 * sd)) + 2
    values = np.rint(center)[:, None].astype(int) + np.arange(-width, width + 1)[None, :]
    return values, (values >= low) & (values <= high)


@functools.lru_cache(maxsize=64)
def _split_agreement(n):
    """g(J), J = 0 ... 2n: the chance that a random split of 2n votes, J of them for the
    second class, into two forests of n gives both or neither a majority for it."""
    totals = np.arange(2 * n + 1, dtype=float)
    first, inside = _window(totals / 2, np.sqrt(n / 8), 0, n)
    same = (first > n // 2) == (totals[:, None] - first > n // 2)
    g = np.sum(_hypergeom_pmf(first, 2 * n, totals[:, None], n) * same * inside, axis=1)
    g.flags.writeable = False  # cached: shared by every call
    return g


def two_class_vote_agreement(ones, size, ns):
    """Exact U-statistics of two forests' majority votes for two classes (see ``class_agreement``).

    ``ones[i]``: learners of the pool (``size`` of them) voting for the second class at object
    i. Two disjoint forests of n learners hold J ~ Hypergeometric(size, ones, 2n) of those
    votes; split into two halves, each half's count is Hypergeometric(2n, J, n), and the two
    forests agree when both halves are majorities or both are not (the second class wins
    only with more than n / 2 votes: a tie goes to the first class). So
    ``agree_i = sum_J P(J) g(J)`` with ``g(J)`` the chance that a random split of 2n votes
    holding J ones agrees, and ``pi_i1 = P(Hypergeometric(size, ones_i, n) > n / 2)``.
    """
    ones = np.asarray(ones, dtype=float)
    agree = np.empty((len(ns), len(ones)))
    pi = np.empty((len(ns), len(ones), 2))
    for k, n in enumerate(ns):
        half = n // 2
        g = _split_agreement(int(n))
        # P(J) for each object's pool, J in the window around its mean
        sd = np.sqrt(2 * n * 0.25 * max(size - 2 * n, 0) / max(size - 1, 1))
        joint, inside = _window(2 * n * ones / size, sd, 0, 2 * n)
        p_joint = _hypergeom_pmf(joint, size, ones[:, None], 2 * n) * inside
        agree[k] = np.sum(p_joint * g[np.clip(joint, 0, 2 * n)], axis=1)
        sd = np.sqrt(n * 0.25 * (size - n) / max(size - 1, 1))
        votes, inside = _window(n * ones / size, sd, 0, n)
        pi[k, :, 1] = np.sum(_hypergeom_pmf(votes, size, ones[:, None], n) * (votes > half) * inside, axis=1)
        pi[k, :, 0] = 1.0 - pi[k, :, 1]
    return agree, pi
