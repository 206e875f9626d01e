"""McNemar's exact unconditional test (Suissa-Shuster, with Berger and Boos' adjustment)."""

from __future__ import annotations

import numpy as np
from scipy import special, stats

__all__ = ["mcnemar_unconditional_p"]

#: grid points of the nuisance parameter (contingencytables' ``num_pi_values``)
N_NUISANCE = 1000
#: objects x grid points of binomial probabilities held at once (bounded memory for large tables)
_CELLS = 2**20


def _statistic(x12, x21):
    """McNemar's T = (x12 - x21)^2 / (x12 + x21), NaN where there is no discordant case."""
    with np.errstate(invalid="ignore", divide="ignore"):  # s = 0: 0 / 0, or a candidate's 4 / 0
        return (x12 - x21) ** 2 / (x12 + x21)


def _tail_mass(n, t_obs):
    """q_s = P[T(X, s - X) >= t_obs], X ~ Binomial(s, 1/2), for every s = 0..n.

    By the symmetry of T and of Binomial(s, 1/2) the region is two tails of equal mass; its
    edge ``k`` (the largest x < s / 2 with T(x, s - x) >= t_obs) is the quadratic's root, up to
    rounding: of the root's floor and its two neighbours the largest one inside the region is
    taken, with T itself, so that a table on the edge is in the region exactly when
    T >= t_obs in floating point (as the enumeration of contingencytables decides it). Linear in n.
    """
    s = np.arange(n + 1, dtype=float)
    q = np.zeros(n + 1)
    if t_obs <= 0:  # every table with a discordant case is at least as extreme
        q[1:] = 1.0
        return q
    candidates = np.floor((s - np.sqrt(t_obs * s)) / 2) + np.array([[-1.0], [0.0], [1.0]])
    in_region = (_statistic(candidates, s - candidates) >= t_obs) & (candidates >= 0) & (candidates < s / 2)
    k = np.max(np.where(in_region, candidates, -1.0), axis=0)  # -1: no table in the region
    return np.minimum(1.0, 2 * stats.binom.cdf(k, s, 0.5))  # P[X <= -1] = 0


def mcnemar_unconditional_p(n12, n21, n, *, gamma=1e-4, n_nuisance=N_NUISANCE):
    r"""Exact unconditional p-value of McNemar's statistic for a paired 2 x 2 table of ``n`` cases.

    Under the null each case is discordant with probability :math:`\pi` and a discordant case
    goes either way with probability 1/2, so
    :math:`P(\pi) = \sum_s \binom{n}{s}\pi^s(1-\pi)^{n-s}\, q_s` with :math:`q_s` the mass of the
    tables with :math:`s` discordant cases whose statistic is at least the observed one. The
    p-value is the largest :math:`P(\pi)` over ``n_nuisance`` equally spaced :math:`\pi` in
    [0, 1] (``gamma = 0``, Suissa and Shuster 1991) or, with Berger and Boos' (1994) procedure,
    in the Clopper-Pearson :math:`1 - \gamma` interval of :math:`\pi`, plus :math:`\gamma`
    (capped at 1): contingencytables' ``McNemar_exact_unconditional_test_paired_2x2``.
    """
    t_obs = float(_statistic(np.float64(n12), np.float64(n21)))
    if np.isnan(t_obs):  # no discordant case: no table is more extreme than none
        return 1.0
    q = _tail_mass(n, t_obs)
    m = n12 + n21
    # Clopper-Pearson's exact 1 - gamma interval of the discordant share ([0, 1] for gamma = 0;
    # m >= 1: a discordant case)
    low = float(special.betaincinv(m, n - m + 1, gamma / 2))
    high = 1.0 if m == n else float(special.betaincinv(m + 1, n - m, 1 - gamma / 2))
    grid = np.linspace(low, high, n_nuisance)
    best = 0.0
    # the binomial weights of s outside pi n +- 12 sd (and a margin) are below 1e-30: each block of
    # the grid sums over its own window of s, so that a large n costs its window, not n x grid
    spread = 12 * np.sqrt(n * 0.25) + 10
    for block in np.array_split(grid, max(1, n_nuisance // 50)):
        first = max(0, int(np.floor(n * block[0] - spread)))
        last = min(n, int(np.ceil(n * block[-1] + spread)))
        s = np.arange(first, last + 1)
        weights = q[first:last + 1]
        if not weights.any():
            continue
        step = max(1, _CELLS // s.size)
        for start in range(0, block.size, step):
            pmf = stats.binom.pmf(s[None, :], n, block[start:start + step, None])
            best = max(best, float((pmf @ weights).max()))
    return min(best + gamma, 1.0)
