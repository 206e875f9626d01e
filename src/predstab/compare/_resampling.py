"""The resampling engines behind :func:`mean_permutation_test` (paired, and two-sample Monte
Carlo), :func:`bootstrap_ci`
(the mean) and :func:`paired_bootstrap` (``per_case=True``): batched, with bounded working
memory, reproducible from the generator.

Sign flips
----------
Permutation ``r`` of the paired test draws ``ceil(n / 64)`` raw 64-bit words,
``rng.integers(0, 2**64, dtype=np.uint64)``; pair ``i`` keeps its sign when bit ``i % 64``
of word ``i // 64`` is 1 and is flipped otherwise. The words of consecutive permutations are
consecutive in the generator's stream, so the draws (and the p-value) do not depend on how
permutations are grouped into blocks.

With :math:`D = \\sum_i d_i` and :math:`S = \\sum_{i \\text{ kept}} d_i`, the permuted sum is
:math:`T = 2S - D`. :math:`S` is read from lookup tables instead of a sign-matrix product:
each group of 4 consecutive pairs has a table of the 16 sums of its subsets, and each
permutation's :math:`S` is the sum of ``n / 4`` table entries picked by its nibbles (one
gather per 4 pairs, in float64). The tables hold ``16 n / 4 = 4 n`` doubles (32 n bytes);
the per-block arrays stay under :data:`BLOCK_BYTES`.

Ties. A permuted sum that equals the observed one in exact arithmetic may differ from it by
rounding, since the two are summed in different orders. Comparisons therefore use the
tolerance :math:`\\tau = 2^{-30} \\sum_i |d_i|` (scipy's ``permutation_test`` uses
:math:`100\\,\\epsilon\\,|t|`, relative to the statistic; the rounding here scales with
:math:`\\sum |d_i|`, not with :math:`t`, which may be near 0). The rounding error of a
computed :math:`S` is below :math:`(n / 1024 + 24)\\,2^{-53} \\sum_i |d_i|` (a 4-term table
entry, numpy's pairwise sum over a chunk of 256 entries, two additions per chunk of 2,048
pairs), so that of :math:`2S - D` against :math:`D` is below :math:`2^{-31} \\sum_i |d_i| =
\\tau / 2` for every :math:`n < 2^{30}`; and :math:`\\tau` is at most
:math:`2^{-30}\\sqrt{n}` times the null standard deviation :math:`\\sqrt{\\sum d_i^2}`
(:math:`10^{-6}` of it at :math:`n = 10^6`), so it only merges values a statistician would
call equal. Integer differences (0/1 losses) sum exactly and the tolerance never decides.

Bootstrap of the mean
---------------------
Block by block, ``rng.integers(0, n, size=(rows, n))`` indices (the draws of
:func:`scipy.stats.bootstrap` for one sample, so a seed gives the same resamples as scipy)
and the mean of the gathered values along each row.

Paired bootstrap of means of per-case scores
--------------------------------------------
Block by block, ``rng.integers(0, n_units, size=(rows, n_units))`` unit indices (the draws
of :func:`paired_bootstrap`'s loop over resamples, one row per resample); each replicate is
the sum of the drawn units' score totals over the sum of their case counts, for A, B and
B - A. Clusters cost what single cases cost: the work is linear in the number of units.

Two-sample permutations
-----------------------
One ``rng.permuted`` shuffled copy of the pooled values per permutation (the values
themselves, not indices: no gather); B's share is the last ``n_b`` values. See
:func:`two_sample_pvalue`.
"""

from __future__ import annotations

import numpy as np

from .._core._ratings import unit_scaled

__all__ = ["BLOCK_BYTES", "scaled_std", "sign_flip_pvalue", "bootstrap_means", "bootstrap_unit_means",
           "sign_flip_tolerance", "two_sample_pvalue", "two_sample_welch_pvalue", "welch_t", "count_extreme"]

#: working memory of one block of permutations or resamples, in bytes (64 MiB)
BLOCK_BYTES = 64 * 2 ** 20
_CHUNK = 256            # bytes of sign bits (2,048 pairs) gathered per step: 64 KiB of table
_REL_TOL = 2.0 ** -30
_SUBSETS = ((np.arange(16)[:, None] >> np.arange(4)) & 1).astype(float)   # (16, 4): bits of v


def scaled_std(values, *, ddof=1):
    """Standard deviation of ``values`` (per column of a 2-D array) at any scale.

    The squares of values near 1e300 overflow and those near 1e-300 underflow: each column is
    multiplied by the exact power of four of :func:`predstab._core._ratings.unit_scaled` first,
    and the SD scaled back, bit-identical to ``np.std`` in the safe range.

    Examples
    --------
    >>> float(scaled_std(np.array([1.0, 3.0]) * 1e300) / 1e300)
    1.4142135623730951
    """
    x = np.asarray(values, dtype=float)
    if x.ndim == 1:
        scaled, factor = unit_scaled(x)
        return float(np.std(scaled, ddof=ddof) * factor)
    return np.array([scaled_std(x[:, j], ddof=ddof) for j in range(x.shape[1])])


def sign_flip_tolerance(d):
    """The tie tolerance :math:`2^{-30} \\sum_i |d_i|` of the sign-flip comparisons."""
    return _REL_TOL * float(np.sum(np.abs(d)))


def _nibble_tables(d):
    """Subset sums of each group of 4 pairs, split by the low / high nibble of each byte.

    Returns two C-contiguous (8 * n_words, 16) arrays: row ``k`` of the first holds the 16
    subset sums of pairs ``8k .. 8k+3`` (bits 0-3 of byte ``k``), of the second pairs
    ``8k+4 .. 8k+7`` (bits 4-7). Pairs past ``n`` are zero.
    """
    n_words = -(-d.size // 64)
    padded = np.zeros(64 * n_words)
    padded[:d.size] = d
    tables = padded.reshape(-1, 4) @ _SUBSETS.T          # (16 n_words, 16)
    return np.ascontiguousarray(tables[0::2]), np.ascontiguousarray(tables[1::2])


def _kept_sums(words, low, high):
    """:math:`S` for each row of ``words`` (uint64, one row per sign pattern)."""
    octets = np.ascontiguousarray(words, dtype="<u8").view(np.uint8)   # byte k: pairs 8k .. 8k+7
    rows, width = octets.shape
    out = np.zeros(rows)
    offsets = np.arange(_CHUNK, dtype=np.intp) * 16
    for k0 in range(0, width, _CHUNK):
        k1 = min(width, k0 + _CHUNK)
        part, off = octets[:, k0:k1], offsets[:k1 - k0]
        idx = (part & 15).astype(np.intp)
        idx += off
        out += low[k0:k1].ravel().take(idx).sum(axis=1)
        idx = (part >> 4).astype(np.intp)
        idx += off
        out += high[k0:k1].ravel().take(idx).sum(axis=1)
    return out


def count_extreme(permuted, observed, tol, alternative):
    """How many ``permuted`` statistics are at least as extreme as ``observed`` (within ``tol``)."""
    if alternative == "two-sided":
        return int(np.count_nonzero(np.abs(permuted) >= abs(observed) - tol))
    elif alternative == "greater":
        return int(np.count_nonzero(permuted >= observed - tol))
    elif alternative == "less":
        return int(np.count_nonzero(permuted <= observed + tol))
    else:
        raise ValueError(f"`alternative` must be 'two-sided', 'greater' or 'less'; got {alternative!r}.")


def block_rows(n, batch):
    """Sign patterns per block: at most ``batch`` and within :data:`BLOCK_BYTES`."""
    per_row = 8 * -(-n // 64) + 24 * _CHUNK      # the words, a chunk's indices and gathered values
    return max(1, min(int(batch), BLOCK_BYTES // per_row))


def sign_flip_pvalue(d, *, n_resamples, exact, rng, alternative, batch):
    """P-value of the paired (sign-flip) permutation test of the sum of ``d``.

    Monte Carlo (``exact=False``): ``(hits + 1) / (n_resamples + 1)`` over
    ``n_resamples`` random sign patterns. Exact (``exact=True``, needs ``d.size <= 62``):
    ``hits / 2**n`` over every pattern, ``rng`` unused. Working memory: the tables (32 n bytes)
    plus at most :data:`BLOCK_BYTES` per block of ``batch`` patterns.
    """
    d = np.asarray(d, dtype=float)
    n = d.size
    low, high = _nibble_tables(d)
    total = float(np.sum(d))
    tol = sign_flip_tolerance(d)
    rows = block_rows(n, batch)
    hits = 0
    if exact:
        if n > 62:
            raise ValueError(f"exact enumeration of 2**{n} sign patterns is not possible.")
        count = 2 ** n
        for r0 in range(0, count, rows):
            words = np.arange(r0, min(count, r0 + rows), dtype=np.uint64)[:, None]
            hits += count_extreme(2.0 * _kept_sums(words, low, high) - total, total, tol, alternative)
        return hits / count
    n_words = -(-n // 64)
    for r0 in range(0, n_resamples, rows):
        words = rng.integers(0, 2 ** 64, size=(min(rows, n_resamples - r0), n_words), dtype=np.uint64)
        hits += count_extreme(2.0 * _kept_sums(words, low, high) - total, total, tol, alternative)
    return (hits + 1) / (n_resamples + 1)


def bootstrap_means(x, n_resamples, rng):
    """Means of ``n_resamples`` bootstrap resamples of ``x``, in blocks of at most
    :data:`BLOCK_BYTES` (the indices and the gathered values: 16 bytes per value)."""
    x = np.asarray(x, dtype=float)
    n = x.size
    rows = max(1, BLOCK_BYTES // (16 * n))
    out = np.empty(n_resamples)
    for r0 in range(0, n_resamples, rows):
        r1 = min(n_resamples, r0 + rows)
        out[r0:r1] = x.take(rng.integers(0, n, size=(r1 - r0, n))).mean(axis=1)
    return out


def bootstrap_unit_means(totals, sizes, n_resamples, rng):
    """Bootstrap replicates of means of per-case scores, resampling units (cases or clusters).

    ``totals`` is an ``(n_units, k)`` array: column ``j`` holds, for each unit, the sum of
    the per-case scores of quantity ``j`` over the unit's cases; ``sizes`` holds the number of
    cases of each unit (``None``: every unit is one case). Replicate ``r`` draws
    ``rng.integers(0, n_units, size=n_units)`` (rows of one block are consecutive in the
    generator's stream, so the draws are those of a loop drawing one resample at a time) and
    returns, for each ``j``, the sum of the drawn units' totals over the sum of their sizes:
    the mean of the per-case scores over the resampled cases. Returns an
    ``(n_resamples, k)`` array. Working memory per block: the indices and one gathered column,
    16 bytes per unit and resample, at most :data:`BLOCK_BYTES`.
    """
    totals = np.asarray(totals, dtype=float)
    n_units, k = totals.shape
    columns = [np.ascontiguousarray(totals[:, j]) for j in range(k)]
    rows = max(1, BLOCK_BYTES // (16 * n_units))
    out = np.empty((n_resamples, k))
    for r0 in range(0, n_resamples, rows):
        r1 = min(n_resamples, r0 + rows)
        idx = rng.integers(0, n_units, size=(r1 - r0, n_units))
        cases = n_units if sizes is None else sizes.take(idx).sum(axis=1)
        for j, col in enumerate(columns):
            out[r0:r1, j] = col.take(idx).sum(axis=1) / cases
    return out


def two_sample_pvalue(a, b, *, n_resamples, rng, alternative):
    """Monte Carlo p-value of the two-sample permutation test of ``mean(b) - mean(a)``.

    Permutation ``r`` is ``rng.permuted(pooled)``, a shuffled copy of the pooled values
    ``concatenate([a, b])`` (the rows of ``rng.permuted(np.tile(pooled, (n_resamples, 1)),
    axis=1)``: the same draws); its first ``n_a`` values form group A and the rest group B.
    One copy at a time: shuffling blocks of copies is slower (the block leaves the cache),
    and so is a permutation of indices followed by a gather (two passes of random access).
    With :math:`S` the sum of B's values and :math:`D` the pooled sum, the permuted statistic
    is :math:`S (1/n_b + 1/n_a) - D / n_a`. Ties are compared with the tolerance
    :math:`\\tau (1/n_b + 1/n_a)`, :math:`\\tau = 2^{-30} \\sum |x|` of the pooled values (as for
    the sign flips: the sums of B are taken in other orders than the observed one).
    ``(hits + 1) / (n_resamples + 1)``. Working memory: one shuffled copy, 8 bytes per
    pooled value.
    """
    pooled = np.concatenate([np.asarray(a, dtype=float), np.asarray(b, dtype=float)])
    n_a, width = len(a), pooled.size
    n_b = width - n_a
    scale = 1.0 / n_b + 1.0 / n_a
    shift = float(np.sum(pooled)) / n_a
    observed = float(np.sum(b)) * scale - shift
    tol = sign_flip_tolerance(pooled) * scale
    permuted = np.empty(n_resamples)
    for r in range(n_resamples):
        permuted[r] = rng.permuted(pooled)[n_a:].sum()
    hits = count_extreme(permuted * scale - shift, observed, tol, alternative)
    return (hits + 1) / (n_resamples + 1)


def welch_t(n_a, sum_a, sq_a, n_b, sum_b, sq_b):
    """Welch's t of B minus A from each group's size, sum and sum of squares (vectorised)."""
    mean_a, mean_b = sum_a / n_a, sum_b / n_b
    var_a = np.maximum(sq_a - sum_a * mean_a, 0.0) / (n_a - 1)
    var_b = np.maximum(sq_b - sum_b * mean_b, 0.0) / (n_b - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return (mean_b - mean_a) / np.sqrt(var_a / n_a + var_b / n_b)


def two_sample_welch_pvalue(a, b, *, n_resamples, rng, alternative):
    """Monte Carlo p-value of the studentised two-sample permutation test: Welch's t.

    The same permutations as :func:`two_sample_pvalue` (one ``rng.permuted`` copy of the
    pooled values each); each gives Welch's t of its split, from B's sum and sum of squares
    and the pooled totals. The data are centred on the pooled mean and rescaled exactly by a
    power of four first (t is invariant; the squares neither lose the spread to the mean's
    rounding nor overflow). A permuted t counts as at least as extreme when within
    :math:`2^{-30}` of the observed one relatively. A permutation whose groups are both
    constant (t undefined) counts as not extreme.
    """
    pooled = np.concatenate([np.asarray(a, dtype=float), np.asarray(b, dtype=float)])
    pooled = unit_scaled(pooled - pooled.mean())[0]
    n_a, n = len(a), pooled.size
    n_b = n - n_a
    total, total_sq = float(pooled.sum()), float(np.dot(pooled, pooled))
    sum_b, sq_b = float(pooled[n_a:].sum()), float(np.dot(pooled[n_a:], pooled[n_a:]))
    observed = float(welch_t(n_a, total - sum_b, total_sq - sq_b, n_b, sum_b, sq_b))
    sums, squares = np.empty(n_resamples), np.empty(n_resamples)
    for r in range(n_resamples):
        part = rng.permuted(pooled)[n_a:]
        sums[r], squares[r] = part.sum(), np.dot(part, part)
    permuted = welch_t(n_a, total - sums, total_sq - squares, n_b, sums, squares)
    permuted = np.where(np.isnan(permuted), 0.0, permuted)
    hits = count_extreme(permuted, observed, _REL_TOL * abs(observed), alternative)
    return (hits + 1) / (n_resamples + 1)
