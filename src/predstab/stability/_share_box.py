"""The range of a class object's disagreement over its box of vote shares.

For the per-object intervals of class phi / psi (:mod:`._object_intervals`): the minimum and
maximum of ``p' Delta p`` over the Clopper-Pearson (Bonferroni) box of an object's vote shares
on the simplex: by the midpoints of the ordinal positions where Delta is a squared distance on a
line, by the box's faces for a few categories, else by bounds that hold for any Delta. Moved
unchanged out of :mod:`._object_intervals` (issue 33), which keeps every name.
"""

from __future__ import annotations

import functools
import itertools

import numpy as np
import pandas as pd

_SIMPLEX_MAX_CATEGORIES = 6


def _simplex_range(low, high, delta2):
    """``min`` and ``max`` of ``p' Delta p`` over ``{low <= p <= high, sum p = 1}``, per row.

    ``p' Delta p`` is concave on the simplex for a squared Euclidean distance matrix
    ``Delta`` (it is ``2 Var`` of the positions, or ``1 - sum p^2``). Every face of the
    polytope fixes some shares at a bound (set ``B``) and leaves the others free (``F``); on
    it the stationary point solves ``2 Delta_FF p_F - lambda 1 = -2 Delta_FB b_B``,
    ``1' p_F = 1 - 1' b_B`` (the KKT matrix depends on ``F`` alone, not on the row). The
    maximum of a concave function over a polytope is the largest feasible stationary point of
    a face; the minimum is at a vertex (one free share, given by the sum). The rows' boxes
    contain their observed shares, so the polytope is never empty.

    When ``Delta`` treats the categories alike (``1 - sum p^2``), rows whose boxes are
    permutations of each other have the same range: each distinct sorted box is solved once
    (uniform random votes of 2e5 objects in 5 classes: 59,599 distinct vote tables, 2,768
    sorted ones).
    """
    n_rows, k = low.shape
    positions = _line_positions(delta2)
    if positions is not None:  # ordinal: distances on a line, two greedy passes per order of them
        return _line_range(low, high, positions)
    off = delta2[~np.eye(k, dtype=bool)]
    if n_rows > 1 and k > 1 and np.all(off == off[0]) and np.all(np.diag(delta2) == 0):
        order = np.argsort(low, axis=1, kind="stable")
        boxes = np.concatenate([np.take_along_axis(low, order, axis=1),
                                np.take_along_axis(high, order, axis=1)], axis=1)
        unique, inverse = _unique_rows(boxes)
        if len(unique) < n_rows:
            best_low, best_high = _simplex_faces(unique[:, :k], unique[:, k:], delta2)
            return best_low[inverse], best_high[inverse]
    return _simplex_faces(low, high, delta2)


def _line_positions(delta2):
    """The positions ``t`` (``t_0 = 0``, ascending) of which ``delta2`` holds the squared distances
    ``(t_c - t_d)^2`` (Krippendorff's ordinal ones, :func:`._disagreement._ordinal_delta2`), or
    None for any other matrix. The distances from the first category are read off its row and the
    whole matrix rebuilt from them: only an exact match (half-integer positions: exact squares
    and roots) counts."""
    k = delta2.shape[0]
    if k < 3:
        return None
    positions = np.sqrt(np.maximum(delta2[0], 0.0))
    if np.any(np.diff(positions) < 0) or not np.array_equal((positions[:, None] - positions[None, :]) ** 2,
                                                            delta2):
        return None
    return positions


def _line_range(low, high, t):
    """:func:`_simplex_range` for squared distances on a line, ``Delta_cd = (t_c - t_d)^2``.

    ``p' Delta p = 2 Var_p(t) = 2 min_m sum_c p_c (t_c - m)^2``, linear in ``p`` for a fixed
    ``m``. Minimum: ``min_m min_p``; maximum: ``min_m max_p`` (Sion's minimax theorem: linear in
    ``p`` over a compact convex set, convex in ``m``). For a fixed ``m`` the inner optimum over the
    box on the simplex is greedy (a fractional knapsack): from the lower bounds, the remaining mass
    goes to the categories nearest to ``m`` first (minimum) or farthest first (maximum). The
    greedy order changes only where ``m`` crosses a midpoint ``(t_c + t_d) / 2``: between two
    midpoints the optimal ``p`` is fixed and the best ``m`` is its mean ``sum p t`` clipped to
    the interval. So ``K (K - 1) / 2 + 1`` intervals, two greedy passes each, give both ends
    exactly (to rounding: within 1e-12 of the face enumeration :func:`_simplex_faces`, whose
    ``3^K`` faces cost a hundred passes over the rows each).
    """
    n_rows, k = low.shape
    mids = np.unique((t[:, None] + t[None, :])[np.triu_indices(k, 1)] / 2.0)
    edges = np.concatenate([[-np.inf], mids, [np.inf]])
    lows = np.ascontiguousarray(low.T)  # one contiguous row per category
    rooms = np.ascontiguousarray(high.T) - lows
    # the mass above the lower bounds (at least 0: rounding in the sum of the bounds); each greedy
    # step takes min(rest, room_c) >= 0 and leaves rest >= 0
    rest0 = np.maximum(1.0 - low.sum(axis=1), 0.0)
    low_mean = t @ lows  # sum_c low_c t_c
    best = [np.full(n_rows, np.inf), np.full(n_rows, np.inf)]  # [min_m min_p, min_m max_p]
    p, add, rest, m, term, value = (np.empty((k, n_rows)), *(np.empty(n_rows) for _ in range(5)))
    for a, b in zip(edges[:-1], edges[1:], strict=True):
        m_rep = b - 1.0 if a == -np.inf else a + 1.0 if b == np.inf else (a + b) / 2.0
        near = np.argsort(np.abs(t - m_rep), kind="stable")
        for side, order in enumerate((near, near[::-1])):  # nearest first: minimum; farthest: maximum
            rest[:] = rest0
            m[:] = low_mean
            for c in order:
                np.minimum(rest, rooms[c], out=add)  # the mass category c takes
                rest -= add
                np.add(lows[c], add, out=p[c])
                add *= t[c]
                m += add
            np.clip(m, a, b, out=m)  # the best m of this interval: the mean of p, within it
            value[:] = 0.0
            for c in range(k):
                np.subtract(t[c], m, out=term)
                term *= term
                term *= p[c]
                value += term
            np.minimum(best[side], value, out=best[side])
    return 2.0 * best[0], 2.0 * best[1]


def _unique_rows(rows):
    """``(unique, inverse)`` of the rows of a float array, by hashing their bits (linear; sorting
    the rows with ``np.unique(axis=0)`` took a third of categorical phi's time). A hash collision
    cannot go unnoticed: the rows are compared with their representatives, and sorted if any
    differs."""
    bits = np.ascontiguousarray(rows).view(np.uint64)
    digest = bits[:, 0].copy()
    for j in range(1, bits.shape[1]):
        digest *= np.uint64(0x100000001B3)  # FNV-style mixing, wrapping modulo 2^64
        digest ^= bits[:, j]
    inverse, _ = pd.factorize(digest)
    first = np.empty(inverse.max(initial=-1) + 1, dtype=np.intp)
    first[inverse[::-1]] = np.arange(len(rows))[::-1]  # each code's first row
    unique = rows[first]
    if not np.array_equal(unique[inverse], rows):
        unique, inverse = np.unique(rows, axis=0, return_inverse=True)
        inverse = inverse.ravel()
    return unique, inverse


def _simplex_faces(low, high, delta2):
    """:func:`_simplex_range` by enumerating the faces (``3**k`` patterns of the shares).

    On a face with free shares ``F`` the stationary point is linear in the fixed shares:
    ``p_F = G b_B + g`` with ``G``, ``g`` from the KKT matrix of ``F`` (one small solve per
    face, not per row), so a pattern costs a few operations on columns of the rows. Shares
    fixed at a bound are feasible by construction: only the free ones are tested.
    """
    n_rows, k = low.shape
    tol = 1e-12
    best_low = np.full(n_rows, np.inf)
    best_high = np.full(n_rows, -np.inf)
    bounds = (np.ascontiguousarray(low.T), np.ascontiguousarray(high.T))  # [0 low / 1 high][category]
    low_tol, high_tol = bounds[0] - tol, bounds[1] + tol
    delta2 = np.asarray(delta2, dtype=float)
    for pattern, free, fixed, g_matrix, g in _face_systems(k, delta2.tobytes()):
        fixed_values = [bounds[pattern[c]][c] for c in fixed]
        feasible = np.ones(n_rows, dtype=bool)
        p_free = []
        for j, f in enumerate(free):
            p_f = np.full(n_rows, g[j])
            for weight, b_c in zip(g_matrix[j], fixed_values, strict=True):
                if weight:
                    p_f += weight * b_c
            feasible &= (p_f >= low_tol[f]) & (p_f <= high_tol[f])
            p_free.append(p_f)
        if not feasible.any():
            continue
        # the face's point, clipped to the box (moves it by at most the tolerance), and its value
        # p' Delta p column by column (a full-length pass per pair of categories beats gathering
        # the feasible rows: about 17 % of them for a face of ordinal votes)
        p = [None] * k
        for c, b_c in zip(fixed, fixed_values, strict=True):
            p[c] = b_c
        for f, p_f in zip(free, p_free, strict=True):
            p[f] = np.clip(p_f, bounds[0][f], bounds[1][f], out=p_f)
        value = np.zeros(n_rows)
        product = np.empty(n_rows)
        for c in range(k):
            for d in range(c, k):
                weight = delta2[c, d] if c == d else delta2[c, d] + delta2[d, c]
                if weight:
                    np.multiply(p[c], p[d], out=product)
                    product *= weight
                    value += product
        np.maximum(best_high, value, out=best_high, where=feasible)
        if free.size == 1:
            np.minimum(best_low, value, out=best_low, where=feasible)
    return np.maximum(best_low, 0.0), best_high


@functools.lru_cache(maxsize=32)
def _face_systems(k, delta2_bytes):
    """The faces of :func:`_simplex_faces` with a unique stationary point, and that point as a
    linear function of the fixed shares: ``(pattern, free, fixed, G, g)``, ``p_F = G b_B + g``.

    They depend on ``Delta`` alone (not on the rows), so they are solved once per matrix (243
    small solves at 5 categories were half the cost of the faces on a few thousand boxes)."""
    delta2 = np.frombuffer(delta2_bytes, dtype=float).reshape(k, k)
    systems = []
    for pattern in itertools.product((0, 1, 2), repeat=k):  # 0 at low, 1 at high, 2 free
        pattern = np.array(pattern)
        free = np.flatnonzero(pattern == 2)
        if free.size == 0:
            continue
        fixed = np.flatnonzero(pattern != 2)
        kkt = np.zeros((free.size + 1, free.size + 1))
        kkt[:-1, :-1] = 2.0 * delta2[np.ix_(free, free)]
        kkt[:-1, -1] = -1.0
        kkt[-1, :-1] = 1.0
        # right-hand side (-2 Delta_FB b_B, 1 - 1'b_B) = H b_B + e_last
        h = np.vstack([-2.0 * delta2[np.ix_(free, fixed)], -np.ones((1, fixed.size))])
        try:
            solved = np.linalg.solve(kkt, np.column_stack([h, np.eye(free.size + 1)[:, -1]]))
        except np.linalg.LinAlgError:  # tied positions: this face has no unique point
            continue
        systems.append((pattern, free, fixed, solved[:free.size, :-1], solved[:free.size, -1]))
    return tuple(systems)


def _largest_weighted_share(low, high):
    """``max sum_c p_c high_c`` over ``{low <= p <= high, sum_c p_c = 1}``, per row: an upper bound
    of ``sum_c p_c^2`` on the box (``p_c <= high_c``), so ``1 -`` it bounds the Gini disagreement
    from below where the simplex is not enumerated (issue 34: seven classes, seven different votes
    of seven refits gave a lower end of about 0). A linear programme: from the lower bounds, the
    remaining mass goes to the largest ``high_c`` first."""
    order = np.argsort(-high, axis=1, kind="stable")
    lo, hi = np.take_along_axis(low, order, axis=1), np.take_along_axis(high, order, axis=1)
    room = hi - lo
    rest = 1.0 - lo.sum(axis=1)
    before = np.cumsum(room, axis=1) - room  # room of the larger upper bounds
    add = np.clip(rest[:, None] - before, 0.0, room)
    return np.einsum("ij,ij->i", lo + add, hi)


def _largest_weighted_share_sparse(row, low, high, n_zero, high0):
    """:func:`_largest_weighted_share` of a sparse table: ``low`` / ``high`` the bounds of the
    non-zero counts (of rows ``row``); each row's ``n_zero`` zero counts, bounded by
    ``[0, high0]``, are one item of room ``n_zero high0`` and weight ``high0``."""
    n_rows = n_zero.size
    rows = np.concatenate([row, np.arange(n_rows)])
    lo = np.concatenate([low, np.zeros(n_rows)])
    room = np.concatenate([high - low, n_zero * high0])
    weight = np.concatenate([high, high0])
    order = np.lexsort((-weight, rows))
    rows, lo, room, weight = rows[order], lo[order], room[order], weight[order]
    rest = 1.0 - np.bincount(rows, lo, minlength=n_rows)
    cum = np.cumsum(room)
    start = np.concatenate([[0.0], cum])[np.searchsorted(rows, np.arange(n_rows))]
    before = cum - room - start[rows]
    add = np.clip(rest[rows] - before, 0.0, room)
    return np.bincount(rows, (lo + add) * weight, minlength=n_rows)


def _least_sum_of_squares(low, high, n_iter=60):
    """``min sum_c p_c^2`` over shares with ``low <= p <= high`` and ``sum_c p_c = 1``, per row.

    The minimiser is ``p_c = clip(t, low_c, high_c)`` (water filling); ``t`` is found by
    bisection, all rows at once. The box contains the observed shares, so it is feasible.
    """
    lo = np.zeros(low.shape[0])
    hi = np.ones(low.shape[0])
    for _ in range(n_iter):
        t = (lo + hi) / 2
        over = np.clip(t[:, None], low, high).sum(axis=1) > 1.0
        hi = np.where(over, t, hi)
        lo = np.where(over, lo, t)
    p = np.clip(hi[:, None], low, high)
    p /= p.sum(axis=1, keepdims=True)  # removes the bisection's last 1e-18 of mass error
    return np.einsum("ij,ij->i", p, p)


def _least_sum_of_squares_sparse(row, low, high, n_zero, high0, n_iter=60):
    """:func:`_least_sum_of_squares` of a sparse table: ``low`` / ``high`` are the bounds of the
    non-zero counts (of rows ``row``); each row also has ``n_zero`` shares bounded by ``[0, high0]``."""
    n_rows = n_zero.size
    lo = np.zeros(n_rows)
    hi = np.ones(n_rows)
    for _ in range(n_iter):
        t = (lo + hi) / 2
        total = np.bincount(row, np.clip(t[row], low, high), minlength=n_rows) + n_zero * np.minimum(t, high0)
        over = total > 1.0
        hi = np.where(over, t, hi)
        lo = np.where(over, lo, t)
    p = np.clip(hi[row], low, high)
    p_zero = np.minimum(hi, high0)
    total = np.bincount(row, p, minlength=n_rows) + n_zero * p_zero
    return (np.bincount(row, p * p, minlength=n_rows) + n_zero * p_zero * p_zero) / total ** 2
