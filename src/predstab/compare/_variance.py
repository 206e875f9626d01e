"""Sources of variation in a (splits × seeds) score table."""

from __future__ import annotations

import numpy as np

from .._core._results import Result, result
from .._core._validation import validate_params
from ._common import read_scores

__all__ = ["variance_components", "VarianceComponents"]


@result
class VarianceComponents(Result):
    """Result of :func:`variance_components`.

    Attributes
    ----------
    seed_var : float
        Variance over seeds within a split (:math:`\\sigma^2_{seed}`).
    split_var : float
        Variance of the split effects (:math:`\\sigma^2_{split}`, truncated at 0).
    total_var : float
        ``seed_var + split_var``: variance of one run on a random split.
    seed_share, split_share : float
        Shares of ``total_var`` (NaN when it is 0).
    seed_sd, split_sd : float
        Square roots of the components.
    mean : float
        Grand mean.
    n_splits, n_seeds : int
    paired : VarianceComponents or None
        The same decomposition of the paired differences ``scores - baseline`` (B minus A)
        when a baseline is given: the split effect shared by both models cancels there.
    """

    seed_var: float
    split_var: float
    total_var: float
    seed_share: float
    split_share: float
    seed_sd: float
    split_sd: float
    mean: float
    n_splits: int
    n_seeds: int
    paired: VarianceComponents | None = None

    _frame_fields = ("seed_var", "split_var", "total_var", "seed_share", "split_share", "seed_sd",
                     "split_sd", "mean", "n_splits", "n_seeds")
    _title = "Variance components: seeds nested in splits (one-way random effects)"


def _table(values, name):
    arr = read_scores(values, name, ndim=2)
    if arr.shape[0] < 2 or arr.shape[1] < 2:
        raise ValueError(f"`{name}` must be 2-dimensional with at least 2 splits (rows) and 2 seeds "
                         f"(columns); got shape {arr.shape}.")
    return arr


def _variance_components_iv(scores, baseline):
    scores = _table(scores, "scores")
    if baseline is not None:
        baseline = _table(baseline, "baseline")
        if baseline.shape != scores.shape:
            raise ValueError(f"`baseline` must have the shape of `scores` {scores.shape}; got "
                             f"{baseline.shape}.")
    return scores, baseline


def _decompose(x):
    s, r = x.shape
    split_means = x.mean(axis=1)
    within = x - split_means[:, None]
    # exact zeros for constant rows / identical splits, not rounding residue
    ms_within = 0.0 if np.all(x == x[:, :1]) else float((within ** 2).sum()) / (s * (r - 1))
    ms_between = 0.0 if np.all(split_means == split_means[0]) else \
        r * float(((split_means - split_means.mean()) ** 2).sum()) / (s - 1)
    split_var = max(0.0, (ms_between - ms_within) / r)
    total = ms_within + split_var
    share = (lambda v: v / total) if total > 0 else (lambda v: float("nan"))
    return dict(seed_var=ms_within, split_var=split_var, total_var=total, seed_share=share(ms_within),
                split_share=share(split_var), seed_sd=float(np.sqrt(ms_within)),
                split_sd=float(np.sqrt(split_var)), mean=float(x.mean()), n_splits=s, n_seeds=r)


@validate_params({"scores": ["array-like"], "baseline": ["array-like", None]})
def variance_components(scores, /, *, baseline=None):
    r"""How much of the spread of scores comes from the seed, and how much from the data split?

    Seeds are nested in splits (seed 3 on split 1 has nothing to do with seed 3 on split
    2). With :math:`S` splits and :math:`R` seeds, the one-way random-effects ANOVA gives

    .. math::

        \hat\sigma^2_{seed} = MS_{within},\qquad
        \hat\sigma^2_{split} = \max\left(0, \frac{MS_{between} - MS_{within}}{R}\right).

    With ``baseline`` (the other model, A, on the same splits and seeds) the paired
    differences ``scores - baseline`` (B minus A) are decomposed too: a split effect common
    to both models cancels there, which is why paired comparisons need far fewer runs.
    ``baseline`` is named rather than second in line so that the direction cannot be
    swapped by position.

    Parameters
    ----------
    scores : array-like of shape (n_splits, n_seeds)
        Scores of the model (B) per split (row) and seed (column).
    baseline : array-like of shape (n_splits, n_seeds), optional
        Scores of the model it is compared with (A), on the same splits and seeds.

    Returns
    -------
    VarianceComponents
        ``.seed_var``, ``.split_var``, their shares and SDs, and ``.paired``.

    References
    ----------
    Bouthillier, X. et al. (2021). Accounting for variance in machine learning benchmarks.
    *MLSys*. https://doi.org/10.48550/arXiv.2103.03098

    Searle, S. R., Casella, G. & McCulloch, C. E. (1992). *Variance Components*. Wiley.
    https://doi.org/10.1002/9780470316856

    The ANOVA estimators of a balanced one-way random-effects model, as `stats::aov` gives
    them; tested on synthetic data with known components.

    Examples
    --------
    >>> table = [[0.80, 0.82], [0.70, 0.72], [0.75, 0.77]]
    >>> v = variance_components(table)
    >>> round(v.seed_var, 6), round(v.split_var, 6)
    (0.0002, 0.0024)
    """
    scores, baseline = _variance_components_iv(scores, baseline)
    paired = None
    if baseline is not None:
        paired = VarianceComponents(**_decompose(scores - baseline))
    return VarianceComponents(**_decompose(scores), paired=paired)
