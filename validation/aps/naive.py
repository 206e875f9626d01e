"""A deliberately naive, loop-based APS stability: the definition written out pair by pair.

This mirrors how APS 1.0.1 computes (R loops over the pairs of repetitions of each
object). It is an independent check of predstab's vectorised counting (tests, and the
documented differences of the validation table where APS has no value) and the "naive"
column of ``benchmarks/bench_stability.py``. It is quadratic in the repetitions per object:
use it on small inputs only.
"""

from __future__ import annotations

import math


def _missing(v):
    return v is None or (isinstance(v, float) and math.isnan(v))


def _variance(xs):
    n = len(xs)
    mean = math.fsum(xs) / n
    return math.fsum((x - mean) ** 2 for x in xs) / (n - 1)


def naive_stability(rows, baseline, scale, levels=None):
    """``(S, D_o, D_e)`` by explicit loops over pairs; missing values (None/NaN) are dropped.

    Sums are exact (``math.fsum``) so that the reference itself adds no rounding error.

    ``rows`` is a list of lists (objects x repetitions); ``baseline`` a flat list.
    """
    base = [v for v in baseline if not _missing(v)]
    if scale == "metric":
        d_e = _variance(base)
        per_row = []
        for row in rows:
            xs = [v for v in row if not _missing(v)]
            if len(xs) >= 2:
                per_row.append(_variance(xs) if len(set(xs)) > 1 else 0.0)
        d_o = math.fsum(per_row) / len(per_row)
    else:
        if scale == "ordinal":
            counts = [sum(1 for v in base if v == lev) for lev in levels]
            pos = {lev: i for i, lev in enumerate(levels)}

            def delta2(a, b):
                lo, hi = sorted((pos[a], pos[b]))
                if lo == hi:
                    return 0.0
                d = counts[lo] / 2 + sum(counts[lo + 1:hi]) + counts[hi] / 2
                return d * d
        elif scale == "categorical":
            def delta2(a, b):
                return 0.0 if a == b else 1.0
        else:
            raise ValueError(f"unknown scale {scale!r}")
        n = len(base)
        cats = sorted(set(base), key=str)
        p = {c: sum(1 for v in base if v == c) / n for c in cats}
        d_e = math.fsum(p[a] * p[b] * delta2(a, b) for a in cats for b in cats)
        per_row = []
        for row in rows:
            xs = [v for v in row if not _missing(v)]
            r = len(xs)
            if r < 2:
                continue
            total = math.fsum(delta2(xs[i], xs[j]) for i in range(r) for j in range(r) if i != j)
            per_row.append(total / (r * (r - 1)))
        d_o = math.fsum(per_row) / len(per_row)
    if d_e == 0:
        s = 1.0 if d_o == 0 else float("nan")
    else:
        s = 1.0 - d_o / d_e
    return s, d_o, d_e
