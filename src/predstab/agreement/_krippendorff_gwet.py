"""irrCAC 1.0's linearised variance of Krippendorff's alpha (Gwet), for
``krippendorff_alpha(..., weights=...)``: the function behind its standard error."""

from __future__ import annotations

import numpy as np

from ._cac import pair_sums

__all__ = ["gwet_variance"]


def gwet_variance(table, r_i, w, *, dist=False):
    """irrCAC 1.0's ``pa``, ``pe`` and variance of alpha (Gwet's linearisation) from the
    (categories x units) count table of the pairable units, each rated ``r_i`` >= 2 times.

    ``dist``: ``krippen.alpha.dist``'s linearisation (count tables), which differs from
    ``krippen.alpha.raw``'s: each unit's agreement is centred with pa' and shrunk by epsilon, the
    chance-agreement term enters once (not twice) and with alpha (not alpha'), and the terms are
    centred on alpha.
    """
    q, n = table.shape
    nan = float("nan")
    r_mean = r_i.mean()
    eps = 1 / r_i.sum()
    sum_q = pair_sums(table, w) - r_i
    pa_prime = float(np.sum(sum_q / (r_mean * (r_i - 1))) / n)
    pa = (1 - eps) * pa_prime + eps
    pi = table.sum(axis=1) / r_mean / n
    pe = float(np.sum(w * np.outer(pi, pi))) if q >= 1 else nan  # one category: 1, as irrCAC
    if q < 2 or pe == 1.0:
        return pa, pe, nan
    pi_w = (w @ pi + w.T @ pi) / 2
    spread = (r_i - r_mean) / r_mean
    if dist:
        coef = (pa - pe) / (1 - pe)
        pa_i = (1 - eps) * (sum_q / (r_mean * (r_i - 1)) - pa_prime * spread) + eps
        pe_i = np.einsum("k,kn->n", pi_w, table) / r_mean - pi.sum() * spread
        x_i = (pa_i - pe) / (1 - pe) - (1 - coef) * (pe_i - pe) / (1 - pe)
    else:
        # irrCAC 1.0 centres with pa (its 2021 revision: pa'), and uses n - 1 degrees of freedom
        # over the objects rated at least twice (2021: over every object)
        coef = (pa_prime - pe) / (1 - pe)
        pa_i = sum_q / (r_mean * (r_i - 1)) - pa * spread
        pe_i = np.einsum("k,kn->n", pi_w, table) / r_mean - pe * spread
        x_i = (pa_i - pe) / (1 - pe) - 2 * (1 - coef) * (pe_i - pe) / (1 - pe)
    var = float(np.sum((x_i - coef) ** 2) / (n * (n - 1))) if n >= 2 else nan
    return pa, pe, var
