"""APS prediction stability: data-based phi and model-based psi.

A prediction matrix holds N objects (rows) by R repetitions (columns: refits of a
non-deterministic model with new seeds). Its stability is ``S = 1 - D_o / D_e``:
the observed instability ``D_o`` (disagreement between the repetitions of each
object, averaged over objects) relative to the instability ``D_e`` expected from a
baseline: the training responses (phi) or out-of-sample predictions for the
training objects (psi). The definitions are those of APS 1.0.1 (Lange, Schmitt &
Heinrich 2025); ``validation/aps`` checks every reference case to 1e-12.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from numbers import Integral, Real

import numpy as np
import pandas as pd

from .._core._convention import one_minus_ratio, one_minus_ratio_array
from .._core._exceptions import PredstabDataWarning, PredstabUndefinedWarning
from .._core._ratings import scaling_shift
from .._core._results import Result, result
from .._core._stack import is_stack, stack_apply
from .._core._utils import ConfidenceInterval, check_rng
from .._core._validation import Interval, InvalidParameterError, Options, validate_params
from ._scales import ColumnCodes, Values, encode, match_keys, read_values

__all__ = ["phi", "psi", "calculate_phi", "calculate_psi", "StabilityResult"]

_SCALES = ("metric", "ordinal", "categorical")
_DESCRIPTION = {
    "phi": "Data-based prediction stability (phi)",
    "psi": "Model-based prediction stability (psi)",
}
_R_TYPE = {"numeric": "numeric", "logical": "logical", "character": "character", "empty": "logical"}
# values processed per block of rows: bounds the temporary memory of the counting pass
_BLOCK = 1 << 18
_FEW_REPETITIONS = 5
# a dense (values x objects) count table is used up to this many cells (or 4x the input)
_DENSE_CELLS = 1 << 20


# --------------------------------------------------------------------------- result


def _r_number(x) -> str:
    """One number as APS prints it: ``formatC(x, digits = 5, format = "g")``, NA if undefined."""
    if x is None or np.isnan(x):
        return "    NA"
    return f"{x:6.5g}"


@result
class StabilityResult(Result):
    """Prediction stability (APS's phi or psi), its confidence interval and its parts.

    Attributes
    ----------
    value : float
        Prediction stability ``S = 1 - observed / expected`` (NaN when undefined).
    observed : float
        Observed instability ``D_o``: mean of ``per_object_observed`` over the objects kept.
    expected : float
        Expected instability ``D_e`` from the baseline.
    confidence_interval : ConfidenceInterval
        Analytic interval for ``S`` at ``confidence_level``; its target is
        ``interval_target`` (see :func:`phi`, Notes). Several objects: ``"population"`` (the
        mean over the population the objects were drawn from) or ``"objects"`` (the mean over
        these objects), ``D_e`` held fixed unless ``interval_baseline_error``. One object: the
        object's own interval (``per_object_low`` / ``per_object_high``). NaN bounds when
        ``D_e = 0``. It always contains ``value``.
    confidence_level : float
        Confidence level of the intervals.
    per_object : ndarray of shape (n_objects,)
        ``S_i = 1 - D_o,i / D_e`` per object; NaN for objects with fewer than two predictions.
    per_object_observed : ndarray of shape (n_objects,)
        ``D_o,i`` per object; NaN for objects that were dropped.
    per_object_low, per_object_high : ndarray of shape (n_objects,)
        Per-object interval for ``S_i`` over the object's repetitions (``D_e`` fixed), by the
        method named in ``interval_method``: metric, a scaled chi-square with the kurtosis
        pooled over the objects, Bonett's interval or the normal-theory chi-square; two
        categories, the exact (Clopper-Pearson) interval of the vote share mapped to the
        disagreement; more categories or levels, the range of the disagreement over
        simultaneous (Bonferroni) Clopper-Pearson intervals of the shares on the simplex
        (conservative). Each contains its object's ``per_object`` value.
    kind : {"phi", "psi"}
        Data-based (phi) or model-based (psi) stability.
    scale : {"metric", "ordinal", "categorical"}
        Scale the predictions were analysed on.
    levels : tuple or None
        Ordinal levels in order, the categories (categorical scale) or None (metric).
    n_objects : int
        Rows of the prediction matrix (including dropped ones).
    n_replicates : int
        Columns (repetitions) of the prediction matrix.
    absent_from_baseline : tuple
        psi only: predicted categories that the baseline does not contain (share 0 in ``D_e``).
    interval_method : str
        Method of the per-object intervals: ``"pooled-kurtosis chi-square"``, ``"Bonett"``,
        ``"chi-square"`` (metric) or ``"Clopper-Pearson"`` (classes).
    interval_target : {"population", "objects", "object"}
        Target of ``confidence_interval``; ``"object"`` for a one-object result.
    interval_baseline_error : bool
        Whether ``confidence_interval`` includes the sampling error of ``D_e``.
    refit_kurtosis : float
        Excess kurtosis of the refits pooled over the objects (metric, ``"pooled"``), else NaN.
    """

    value: float
    observed: float
    expected: float
    confidence_interval: ConfidenceInterval
    confidence_level: float
    per_object: np.ndarray = field(repr=False)
    per_object_observed: np.ndarray = field(repr=False)
    per_object_low: np.ndarray = field(repr=False)
    per_object_high: np.ndarray = field(repr=False)
    kind: str
    scale: str
    levels: tuple | None
    n_objects: int
    n_replicates: int
    absent_from_baseline: tuple = ()
    interval_method: str = "chi-square"
    interval_target: str = "population"
    interval_baseline_error: bool = False
    refit_kurtosis: float = float("nan")
    per_object_count: np.ndarray = field(repr=False, compare=False, default=None)
    object_labels: pd.Index | None = field(repr=False, compare=False, default=None)
    # a single object's predictions (codes or numbers) and the squared distances, for the
    # bootstrap over repetitions
    _row: np.ndarray | None = field(repr=False, compare=False, default=None)
    _delta2: np.ndarray | None = field(repr=False, compare=False, default=None)
    # metric data beyond the safe range (multiplied by an exact power of two, `scaling_shift`):
    # ``D_o,i`` and ``D_e`` in those scaled units (the reported ones may over- or underflow); the
    # bootstrap works on these, as ``_stability`` does, so it is scale invariant too
    _scaled: tuple | None = field(repr=False, compare=False, default=None)

    _frame_fields = ("kind", "scale", "value", "observed", "expected", "n_objects", "n_replicates",
                     "confidence_level", "interval_method", "interval_target")

    @property
    def description(self) -> str:
        """APS's description line, e.g. ``"Data-based prediction stability (phi)"``."""
        return _DESCRIPTION[self.kind]

    def _str_lines(self):
        # APS's print method: description, dashes, the three numbers to 5 significant digits.
        # Its print fails on an undefined stability; predstab prints NA there.
        return [
            "",
            self.description + " ",
            "-" * len(self.description),
            f"Prediction stability: {_r_number(self.value)} ",
            f"Observed instability: {_r_number(self.observed)} ",
            f"Expected instability: {_r_number(self.expected)} ",
            "",
        ]

    @validate_params({})
    def plot(self, **kwargs):
        """Each object's stability, least stable first, as :func:`predstab.plotting.plot_per_object`
        draws it (keyword arguments -- ``kind``, ``labels``, ``n_labelled``, ``threshold``,
        ``ax``, ``title`` -- go there through :func:`predstab.plotting.plot`).

        Returns
        -------
        matplotlib.figure.Figure
        """
        from ..plotting import plot  # the plotting surface, imported only when a plot is made

        return plot(self, **kwargs)

    @validate_params({"sort": ["boolean"]})
    def per_object_frame(self, *, sort=True) -> pd.DataFrame:
        """Per-object stability as a DataFrame, least stable first when ``sort`` is True.

        Columns: ``stability`` (``S_i``), ``ci_low`` / ``ci_high`` (the per-object interval at
        ``confidence_level``), ``observed_instability`` (``D_o,i``) and ``n_predictions``
        (non-missing predictions of the object). The index holds the row labels of the input
        DataFrame, or row positions. Dropped objects (NaN) come last.
        """
        if not isinstance(sort, (bool, np.bool_)):
            raise InvalidParameterError(f"`sort` must be True or False; got {sort!r}.")
        index = self.object_labels if self.object_labels is not None else pd.RangeIndex(self.n_objects)
        frame = pd.DataFrame({"stability": self.per_object,
                              "ci_low": self.per_object_low, "ci_high": self.per_object_high,
                              "observed_instability": self.per_object_observed,
                              "n_predictions": self.per_object_count}, index=index)
        frame.index.name = "object"
        if sort:
            frame = frame.sort_values("stability", kind="stable", na_position="last")
        return frame

    @validate_params({
        "confidence_level": [Interval(Real, 0, 1, closed="neither")],
        "n_resamples": [Interval(Integral, 1, None)],
        "method": [Options({"percentile", "basic", "BCa"})],
        "by": [Options({"auto", "objects", "replicates"})],
        "random_state": ["random_state"],
    })
    def bootstrap_interval(self, confidence_level=0.95, *, n_resamples=2000, method="percentile", by="auto",
                           random_state=None) -> ConfidenceInterval:
        """Bootstrap confidence interval for the stability (:func:`scipy.stats.bootstrap`).

        The analytic :attr:`confidence_interval` is cheaper and, for a single object, has
        nominal coverage; this bootstrap is kept for comparison (see docs/benchmarks/coverage.md).

        Parameters
        ----------
        confidence_level : float, default 0.95
            Confidence level, in (0, 1).
        n_resamples : int, default 2000
            Bootstrap resamples.
        method : {"percentile", "basic", "BCa"}, default "percentile"
            Interval type (BCa needs a jackknife: quadratic in the number of objects).
        by : {"auto", "objects", "replicates"}, default "auto"
            What is resampled: the objects (``D_e`` held fixed: the interval is conditional
            on the baseline) or, for a single object, its repetitions. ``"auto"`` resamples
            objects when at least two were kept, repetitions otherwise.
        random_state : None, int or numpy.random.Generator
            Seed of the resampling.

        Returns
        -------
        ConfidenceInterval
            ``(low, high)``; NaN bounds when the stability is undefined (``D_e = 0``).

        Warns
        -----
        PredstabUndefinedWarning
            ``D_e`` is zero: no interval.

        Notes
        -----
        Resampling repetitions with replacement repeats some of them, and a repeated
        prediction always agrees with itself, so for a single object the bootstrap
        distribution is shifted towards stability: its 95 % interval covers the object's
        stability in only 67-85 % of cases at 5-20 repetitions. Use
        :attr:`confidence_interval` / ``per_object_low`` and ``per_object_high`` there.

        Examples
        --------
        >>> import numpy as np
        >>> import predstab
        >>> rng = np.random.default_rng(0)
        >>> refits = rng.normal(size=(50, 1)) * 3 + rng.normal(size=(50, 10))
        >>> res = predstab.phi(refits, rng.normal(size=200) * 3)
        >>> low, high = res.bootstrap_interval(n_resamples=999, random_state=1)
        >>> bool(low < res.value < high)
        True
        """
        from scipy import stats

        by, rng = _bootstrap_interval_iv(self, by, random_state)
        d_o_i, d_e = (self.per_object_observed, self.expected) if self._scaled is None else self._scaled
        if not d_e > 0:
            warnings.warn("Expected instability is zero or undefined; no confidence interval.",
                          PredstabUndefinedWarning, stacklevel=3)
            return ConfidenceInterval(np.nan, np.nan)
        if by == "objects":
            data = d_o_i[~np.isnan(d_o_i)]

            def statistic(d_o, axis=-1):
                return 1.0 - np.mean(d_o, axis=axis) / d_e
            batch = None
        else:  # replicates
            data = self._row
            delta2 = self._delta2
            n_codes = 1 if self.scale == "metric" else len(self.levels)

            def statistic(row, axis=-1):
                row = np.moveaxis(row, axis, -1)
                r = row.shape[-1]
                if self.scale == "metric":
                    d_o = np.var(row, axis=-1, ddof=1)
                else:
                    counts = (row[..., None] == np.arange(n_codes)).sum(axis=-2).astype(float)
                    if delta2 is None:  # categorical: share of disagreeing ordered pairs
                        pairs = r * r - np.einsum("...k,...k->...", counts, counts)
                    else:
                        pairs = np.einsum("...k,...k->...", counts @ delta2, counts)
                    d_o = pairs / (r * (r - 1))
                return 1.0 - d_o / d_e
            width = data.size * n_codes
            batch = max(1, _BLOCK // max(width, 1))
        res = stats.bootstrap((data,), statistic, vectorized=True, n_resamples=n_resamples,
                              confidence_level=confidence_level, method=method,
                              batch=batch, rng=rng)
        return ConfidenceInterval(float(res.confidence_interval.low), float(res.confidence_interval.high))


def _bootstrap_interval_iv(result, by, random_state):
    n_kept = int(np.sum(~np.isnan(result.per_object_observed)))
    if by == "auto":
        by = "objects" if n_kept >= 2 else "replicates"
    if by == "objects" and n_kept < 2:
        raise InvalidParameterError(
            f"`by`='objects' needs at least two objects with predictions; got {n_kept}.")
    if by == "replicates" and result._row is None:
        advice = ("Use by='objects'." if n_kept >= 2 else
                  "With one object left, pass that object's row alone to resample its repetitions.")
        raise InvalidParameterError(
            "`by`='replicates' resamples the repetitions of a single object; the result "
            f"has {result.n_objects} objects ({n_kept} with at least two predictions). {advice}")
    return by, check_rng(random_state)


# --------------------------------------------------------------------------- intervals


_TARGETS = ("objects", "population")


def _refit_variances(d_o_i, count, moments=None, table=None, delta2=None):
    """Jackknife variance (over each object's refits) of every ``D_o,i``: the refit noise alone.

    Metric: the leave-one-out sample variances are ``((n-1) s^2 - n d_j^2 / (n-1)) / (n-2)``,
    so the jackknife variance is ``(n-1)/n (n/((n-1)(n-2)))^2 sum_j (d_j^2 - mean d^2)^2``.
    Classes: leaving out one vote of category ``c`` leaves ``(P - 2 (Delta n)_c) / ((R-1)(R-2))``
    (``P = n' Delta n`` the disagreeing pairs). Objects with two refits get the normal-theory
    ``2 D_o,i^2`` (metric) or ``D_o,i^2`` (classes) instead.
    """
    n = count.astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        if moments is not None:
            _, s2, s4 = moments
            spread = np.maximum(s4 - s2 * s2 / n, 0.0)
            var = (n - 1) / n * (n / ((n - 1) * (n - 2))) ** 2 * spread
            fallback = 2.0 * d_o_i ** 2
        else:
            dense = np.asarray(table.toarray() if hasattr(table, "toarray") else table, dtype=float)
            if delta2 is None:
                delta_n = n[:, None] - dense  # (11' - I) n
            else:
                delta_n = dense @ delta2
            pairs = d_o_i * n * (n - 1)
            loo = (pairs[:, None] - 2.0 * delta_n) / ((n - 1) * (n - 2))[:, None]
            mean = np.einsum("ij,ij->i", dense, loo) / n
            var = (n - 1) / n * np.einsum("ij,ij->i", dense, (loo - mean[:, None]) ** 2)
            fallback = d_o_i ** 2
    return np.where(count >= 3, var, fallback)


def _baseline_variance(base_values, scale, base_counts, delta2):
    """Delta-method variance of ``D_e`` from the ``n`` baseline values (independent draws).

    Metric: ``Var(s^2) = mu_4 / n - sigma^4 (n - 3) / (n (n - 1))`` with the sample moments.
    Categories: ``D_e = 1 - sum p^2`` has gradient ``-2 p`` and ``Var = 4 (sum p^3 - (sum p^2)^2) / n``.
    Ordinal: ``Delta`` itself depends on the baseline counts, so the gradient of ``S`` (not
    only of ``D_e``) is needed: :func:`_ordinal_baseline_gradient`.
    """
    if scale == "metric":
        x = np.asarray(base_values, dtype=float)
        n = x.size
        d = x - x.mean()
        m4 = float(np.mean(d ** 4))
        s2 = float(np.sum(d * d) / (n - 1))
        return max(m4 / n - s2 * s2 * (n - 3) / (n * (n - 1)), 0.0)
    p = base_counts / base_counts.sum()
    return max(4.0 * (np.sum(p ** 3) - np.sum(p * p) ** 2) / base_counts.sum(), 0.0)


def _ordinal_baseline_variance_of_s(base_counts, pair_weights):
    """Delta-method variance of ``S`` over the baseline's multinomial sampling (ordinal scale).

    ``S(p) = 1 - sum(W * Delta(p)) / (p' Delta(p) p)`` with ``W`` the objects' mean
    ``n_i n_i' / (R_i (R_i - 1))`` and ``Delta(p)`` Krippendorff's squared distances from the
    shares (``S`` does not change when the counts are scaled). Central differences give the
    gradient; ``Cov(p) = (diag p - p p') / n``.
    """
    n = float(base_counts.sum())
    p0 = base_counts / n

    def s_of(p):
        d2 = _ordinal_delta2(p)
        return 1.0 - float(np.sum(pair_weights * d2)) / float(p @ d2 @ p)

    k = p0.size
    grad = np.zeros(k)
    h = 1e-6
    for c in range(k):
        e = np.zeros(k)
        e[c] = h
        grad[c] = (s_of(p0 + e) - s_of(p0 - e)) / (2 * h)
    cov = (np.diag(p0) - np.outer(p0, p0)) / n
    return max(float(grad @ cov @ grad), 0.0)


def _overall_interval(d_o_i, count, d_e, confidence_level, *, target, baseline_error, refit_var,
                      scale, delta2, base_var_d_e=None, base_var_s=None, n_categories=None, object_low=None):
    """``confidence_interval`` for several objects; see :func:`phi` (Notes) for the targets.

    ``refit_var`` holds the jackknife variances of the ``D_o,i`` (target ``"objects"``).
    """
    from scipy import stats

    alpha = 1.0 - confidence_level
    kept = ~np.isnan(d_o_i)
    x = d_o_i[kept]
    n_obj = x.size
    mean = float(np.mean(x))
    if mean == 0.0 and scale != "metric":
        # every refit of every object agrees: a one-sided bound from the agreeing pairs. Under
        # "objects", m disjoint pairs per object agree with probability prod (1 - theta_i)^m
        # <= (1 - mean theta)^(N m) (AM-GM); under "population" the first pair of each object
        # agrees with probability (1 - theta_pop)^N. Either way the exact binomial (Clopper-
        # Pearson) upper bound of the disagreement probability q with no disagreement seen.
        pairs = n_obj * int(np.min(count[kept]) // 2) if target == "objects" else n_obj
        q_high = 1.0 - alpha ** (1.0 / pairs)
        weight = 1.0 if delta2 is None else float(delta2.max())  # theta <= max delta^2 * q
        return ConfidenceInterval(1.0 - weight * q_high / d_e, 1.0)
    ratio = mean / d_e
    if baseline_error:
        if target == "objects":
            var_mean = float(np.sum(refit_var[kept])) / n_obj ** 2
        elif target == "population":
            widen = (stats.t.ppf(1 - alpha / 2, n_obj - 1) / stats.norm.ppf(1 - alpha / 2)) ** 2
            var_mean = float(np.var(x, ddof=1)) / n_obj * widen
        else:  # the public functions declare `interval_target`
            raise ValueError(f"unknown interval target {target!r}")
        # log(D_o / D_e) from independent samples: relative variances add
        rel = var_mean / mean ** 2
        rel += base_var_s / ratio ** 2 if base_var_s is not None else base_var_d_e / d_e ** 2
        half = stats.norm.ppf(1 - alpha / 2) * np.sqrt(rel)
        return ConfidenceInterval(float(1.0 - ratio * np.exp(half)), float(1.0 - ratio * np.exp(-half)))
    if scale != "metric" and np.any(x == 0):
        low_d, high_d = _zero_inflated_mean(
            x, count[kept], alpha, target=target, refit_var=None if refit_var is None else refit_var[kept],
            weight=1.0 if delta2 is None else float(delta2.max()), n_categories=n_categories,
            object_low=None if object_low is None else object_low[kept])
    elif target == "objects":
        low_d, high_d = _gamma_mean(mean, float(np.sum(refit_var[kept])) / n_obj ** 2, alpha)
    elif target == "population":
        # the variance of the mean, widened by (t_{N-1} / z)^2 for being estimated from N objects;
        # metric D_o,i can be strongly right-skewed over objects: the union with a bootstrap-t
        low_d, high_d = _gamma_mean(mean, _widened_variance_of_mean(x, alpha), alpha)
        if scale == "metric":
            boot_low, boot_high = _bootstrap_t_mean(x, alpha)
            # a bootstrap-t lower bound cut at 0 (few non-zero D_o,i) says nothing: the gamma's stays
            low_d, high_d = min(low_d, boot_low) if boot_low > 0 else low_d, max(high_d, boot_high)
    else:  # the public functions declare `interval_target`
        raise ValueError(f"unknown interval target {target!r}")
    return ConfidenceInterval(float(1.0 - high_d / d_e), float(1.0 - low_d / d_e))


def _widened_variance_of_mean(x, alpha):
    from scipy import stats

    n = x.size
    widen = (stats.t.ppf(1 - alpha / 2, n - 1) / stats.norm.ppf(1 - alpha / 2)) ** 2
    return float(np.var(x, ddof=1)) / n * widen


def _gamma_mean(mean, var_mean, alpha):
    """Bounds of a non-negative, right-skewed mean: a scaled chi-square (gamma) with its mean and
    variance, whose skewness the t interval lacks."""
    from scipy import stats

    if not var_mean > 0:
        return mean, mean
    df = 2.0 * mean * mean / var_mean
    return (float(df * mean / stats.chi2.ppf(1 - alpha / 2, df)),
            float(df * mean / stats.chi2.ppf(alpha / 2, df)))


_BOOTSTRAP_T_RESAMPLES = 999
# beyond, the gamma form alone: the skewness of a mean falls as 1 / sqrt(N), the cost grows as B x N
_BOOTSTRAP_T_MAX_OBJECTS = 500


def _bootstrap_t_mean(x, alpha):
    """Studentized (bootstrap-t) bounds of the mean of ``x`` over objects (Efron & Tibshirani 1993,
    ch. 12; second-order accurate for skewed means, Hall 1992). 999 resamples from a fixed seed,
    so the interval is a function of the data. Resamples with zero spread are left out."""
    n = x.size
    m, s = float(np.mean(x)), float(np.std(x, ddof=1))
    if n > _BOOTSTRAP_T_MAX_OBJECTS or not s > 0:
        return m, m
    rng = np.random.default_rng(0)
    xb = x[rng.integers(0, n, size=(_BOOTSTRAP_T_RESAMPLES, n))]
    sb = np.std(xb, axis=1, ddof=1)
    ok = sb > 0
    t = (np.mean(xb[ok], axis=1) - m) / sb[ok]
    t_low, t_high = np.quantile(t, [alpha / 2, 1 - alpha / 2])
    return max(m - t_high * s, 0.0), m - t_low * s


def _zero_inflated_mean(x, count, alpha, *, target, refit_var, weight, n_categories, object_low):
    """Bounds of the mean disagreement of classes when some objects never disagreed (``D_o,i = 0``).

    The mean is the share of disagreeing objects times their mean, ``k/N * mean(x | x > 0)``;
    a gamma form of all ``N`` values is too short when only one or two disagree. Half of
    ``alpha`` goes to each factor (Bonferroni): ``"population"``: the exact Clopper-Pearson
    interval of the share of objects whose refits disagree at all times the gamma interval of
    the mean of the disagreeing ones (capped at the largest possible disagreement of ``R`` votes
    over ``K`` categories, ``weight`` times the share of disagreeing pairs of an even split; with
    one disagreeing object, that largest value).
    ``"objects"``: the objects that never disagreed contribute at most the exact binomial upper
    bound of their disagreement from their agreeing disjoint pairs (as in the all-agree bound),
    the others the gamma interval of their mean with the jackknife variances, its lower end
    lowered to the mean of their per-object (Clopper-Pearson) lower bounds ``object_low``.
    """
    from scipy import stats

    n = x.size
    nonzero = x > 0
    k = int(nonzero.sum())
    a = alpha / 2
    # R votes disagree most when split evenly over the K categories: R^2 - sum n_c^2 ordered pairs
    r = count[nonzero].astype(int)
    per, extra = np.divmod(r, n_categories)
    same = (n_categories - extra) * per ** 2 + extra * (per + 1) ** 2
    largest = weight * float(np.max((r * r - same) / (r * (r - 1.0)))) if k else 0.0
    if target == "population":
        share_low = float(stats.beta.ppf(a / 2, k, n - k + 1)) if k > 0 else 0.0
        share_high = float(stats.beta.ppf(1 - a / 2, k + 1, n - k)) if k < n else 1.0
        if k >= 2:
            nz = x[nonzero]
            m_low, m_high = _gamma_mean(float(np.mean(nz)), _widened_variance_of_mean(nz, a), a)
            m_high = min(m_high, largest)
        else:
            m_low, m_high = float(np.sum(x[nonzero])), largest
        return share_low * m_low, share_high * m_high
    if target == "objects":
        pairs = int(np.sum(count[~nonzero] // 2))
        q_high = 1.0 - (a / 2) ** (1.0 / pairs)
        m_low, m_high = _gamma_mean(float(np.mean(x[nonzero])), float(np.sum(refit_var[nonzero])) / k ** 2, a)
        # the jackknife of one or two disagreeing objects' votes is poor: the lower bound is at
        # most the mean of their own exact (Clopper-Pearson) lower bounds
        low = min(k * m_low, float(np.sum(object_low[nonzero]))) / n
        return low, ((n - k) * weight * q_high + k * min(m_high, largest)) / n
    raise ValueError(f"unknown interval target {target!r}")


def _on_unique(fn, *keys):
    """``fn(*keys)`` evaluated once per distinct combination of the non-negative integer keys.

    The quantile functions below cost about a microsecond per call; the keys (repetition
    counts, vote counts) take few distinct values, so a lookup table keeps the intervals
    linear in the data and cheap.
    """
    keys = [np.asarray(k, dtype=np.int64) for k in np.broadcast_arrays(*keys)]
    shape = keys[0].shape
    code = np.zeros(shape, dtype=np.int64)
    strides = []
    stride = 1
    for k in keys:
        strides.append(stride)
        code += k * stride
        stride *= int(k.max(initial=0)) + 1
    if stride <= 4 * code.size + 4096:  # a dense lookup table: linear
        present = np.flatnonzero(np.bincount(code.ravel(), minlength=1))
        inverse = None
    else:  # many distinct keys (thousands of repetitions): sort instead
        present, inverse = np.unique(code.ravel(), return_inverse=True)
    parts = [(present // st) % (int(k.max(initial=0)) + 1) for k, st in zip(keys, strides, strict=True)]
    values = np.asarray(fn(*(p.astype(float) for p in parts)))
    if inverse is not None:
        return values[inverse].reshape(shape + values.shape[1:])
    table = np.zeros((stride,) + values.shape[1:], dtype=values.dtype)
    table[present] = values
    return table[code]


# metric per-object methods: what ``object_interval`` accepts and what "auto" picks
_METRIC_METHODS = ("auto", "pooled", "bonett", "chi2")
_METHOD_NAMES = {
    "pooled": "pooled-kurtosis chi-square",
    "bonett": "Bonett",
    "chi2": "chi-square",
    "classes": "Clopper-Pearson",
}
# "auto" pools the kurtosis over the objects from this many objects with at least 4 refits
_POOLED_MIN_OBJECTS = 20
# warn above these excess kurtoses (beyond what the coverage study covers at nominal level)
_POOLED_WARN_EXCESS = 6.0
_BONETT_WARN_EXCESS = 3.0
_BONETT_MIN_COUNT = 6  # Bonett's trimmed mean cuts 1 / (2 sqrt(n - 4)) of each tail


def _row_moments(x):
    """Per row: non-missing count, ``sum d^2``, ``sum d^4`` (``d`` deviations from the row mean)."""
    n_rows, n_cols = x.shape
    out = np.empty((3, n_rows))
    step = max(1, _BLOCK // max(n_cols, 1))
    for start in range(0, n_rows, step):
        block = x[start:start + step]
        total = block.sum(axis=1)
        if np.isfinite(total).all():  # no missing value in the block: the plain two passes
            c = np.full(len(block), n_cols)
            d2 = block - (total / n_cols)[:, None]
            d2 *= d2
        else:
            miss = np.isnan(block)
            c = n_cols - miss.sum(axis=1)
            with np.errstate(invalid="ignore", divide="ignore"):
                m = np.where(miss, 0.0, block).sum(axis=1) / c
            d2 = np.where(miss, 0.0, block - m[:, None]) ** 2
        out[0, start:start + len(block)] = c
        out[1, start:start + len(block)] = d2.sum(axis=1)
        out[2, start:start + len(block)] = np.einsum("ij,ij->i", d2, d2)
    return out


def _pooled_excess_kurtosis(count, s2, s4):
    """Excess kurtosis shared by the objects' refits: ``sum k_4,i / sum sigma^4_i-hat``.

    ``k_4`` (Fisher's unbiased fourth cumulant) and ``(k_2^2 - k_4 / n)(n - 1)/(n + 1)``
    (unbiased for ``sigma^4``) per object with at least 4 refits, summed over the objects:
    a ratio estimator that is consistent when the refits of every object have the same shape
    (location and scale may differ). NaN when no object has 4 refits.
    """
    ok = count >= 4
    if not ok.any():
        return float("nan"), 0
    n = count[ok]
    m2, m4 = s2[ok] / n, s4[ok] / n
    k2 = n * m2 / (n - 1)
    k4 = n * n * ((n + 1) * m4 - 3 * (n - 1) * m2 ** 2) / ((n - 1) * (n - 2) * (n - 3))
    sigma4 = (k2 * k2 - k4 / n) * (n - 1) / (n + 1)
    total = float(np.sum(sigma4))
    if not total > 0:
        return float("nan"), int(ok.sum())
    return float(np.sum(k4) / total), int(ok.sum())


def _bonett_kurtosis(x, count, s2):
    """Bonett's (2006) kurtosis estimate per row, times the small-sample factor ``(n+1)/(n-1)``.

    ``n sum (x - m)^4 / (sum (x - xbar)^2)^2`` with ``m`` the mean trimmed by
    ``1 / (2 sqrt(n - 4))`` in each tail (as ``scipy.stats.trim_mean`` cuts). NaN for rows
    with fewer than ``_BONETT_MIN_COUNT`` values.
    """
    out = np.full(x.shape[0], np.nan)
    step = max(1, _BLOCK // max(x.shape[1], 1))
    for start in range(0, x.shape[0], step):
        block = np.sort(x[start:start + step], axis=1)  # NaN last
        cnt = count[start:start + step]
        for c in np.unique(cnt[cnt >= _BONETT_MIN_COUNT]):
            rows = np.flatnonzero(cnt == c)
            c = int(c)
            cut = int(c / (2.0 * np.sqrt(c - 4.0)))
            vals = block[rows, :c]
            m = vals[:, cut:c - cut].mean(axis=1)
            num = ((vals - m[:, None]) ** 4).sum(axis=1)
            den = s2[start + rows]
            with np.errstate(invalid="ignore", divide="ignore"):
                out[start + rows] = c * num / den ** 2 * (c + 1) / (c - 1)
    return out


def _metric_object_intervals(d_o_i, count, confidence_level, method="chi2", x=None, moments=None):
    """Per-object interval for the variance ``sigma_i^2`` of an object's refits.

    ``method``:

    - ``"chi2"``: ``(R_i - 1) s_i^2 / sigma_i^2 ~ chi^2_{R_i - 1}``, exact for normal refits.
    - ``"pooled"``: the scaled chi-square with Satterthwaite's degrees of freedom
      ``2 / (2 / (R_i - 1) + kappa / R_i)``, ``kappa`` the excess kurtosis pooled over all
      objects (:func:`_pooled_excess_kurtosis`): matches the variance of ``s_i^2``
      ``sigma^4 (2/(R-1) + kappa/R)`` for any shape; reduces to ``"chi2"`` when ``kappa = 0``.
    - ``"bonett"``: Bonett's (2006) interval ``exp(ln(c s^2) +- z c sqrt((g_4 - (R-3)/R)/(R-1)))``,
      ``c = R / (R - z)``, with each object's own kurtosis estimate (:func:`_bonett_kurtosis`);
      objects with fewer than 6 refits get the ``"chi2"`` interval.

    ``x`` is the (objects x refits) matrix (NaN missing); ``moments`` its :func:`_row_moments`
    when already computed. Returns ``(var_low, var_high, info)``; ``info`` holds the pooled
    excess kurtosis (or NaN) and whether the warning threshold is exceeded.
    """
    from scipy import stats

    alpha = 1.0 - confidence_level
    info = {"kurtosis": float("nan"), "heavy": 0}
    kappa = 0.0  # the chi-square interval: Satterthwaite's df with no excess kurtosis
    if method == "pooled":
        if moments is None:
            moments = _row_moments(x)
        kappa, _ = _pooled_excess_kurtosis(moments[0], moments[1], moments[2])
        info["kurtosis"] = kappa
        if np.isfinite(kappa):
            info["heavy"] = int(kappa > _POOLED_WARN_EXCESS)
        else:
            kappa = 0.0
    elif method not in ("chi2", "bonett"):  # the public functions declare `object_interval`
        raise ValueError(f"unknown metric interval method {method!r}")

    def quantiles(n):
        # the excess kurtosis of any law is at least -2: keeps the variance of s^2 positive
        v = 2.0 / np.maximum(n - 1, 1) + max(kappa, -2.0) / np.maximum(n, 1)
        df = np.maximum(n - 1, 1) if kappa == 0.0 else 2.0 / np.maximum(v, 1e-12)
        return np.stack([df, stats.chi2.ppf(alpha / 2, df), stats.chi2.ppf(1 - alpha / 2, df)], axis=-1)

    with np.errstate(invalid="ignore", divide="ignore"):
        table = _on_unique(quantiles, count)
        df, q_low, q_high = table[..., 0], table[..., 1], table[..., 2]
        var_high = df * d_o_i / q_low
        var_low = df * d_o_i / q_high
        if method == "bonett":
            s2 = d_o_i * np.maximum(count - 1, 0)
            g4 = _bonett_kurtosis(x, count, s2)
            n = count.astype(float)
            z = stats.norm.ppf(1 - alpha / 2)
            c = n / (n - z)
            se = c * np.sqrt(np.maximum(g4 - (n - 3) / n, 0.0) / (n - 1))
            use = np.isfinite(g4)
            var_low = np.where(use, c * d_o_i * np.exp(-z * se), var_low)
            var_high = np.where(use, c * d_o_i * np.exp(z * se), var_high)
            # only a one-object result warns: its interval is the headline `confidence_interval`
            info["heavy"] = int(g4.size == 1 and g4[0] - 3.0 > _BONETT_WARN_EXCESS)
    return var_low, var_high, info


def _share_bounds(counts, r, alpha):
    """Two-sided Clopper-Pearson bounds at level ``1 - alpha`` for the shares ``counts / r``."""
    from scipy import stats

    def bounds(k, n):
        with np.errstate(invalid="ignore", divide="ignore"):
            low = np.where(k > 0, stats.beta.ppf(alpha / 2, np.maximum(k, 1), n - k + 1), 0.0)
            high = np.where(k < n, stats.beta.ppf(1 - alpha / 2, k + 1, np.maximum(n - k, 1)), 1.0)
        return np.stack([low, high], axis=-1)

    counts = np.asarray(counts, dtype=np.int64)
    r = np.broadcast_to(np.asarray(r, dtype=np.int64), counts.shape)
    if counts.size == 0:
        empty = np.zeros(counts.shape)
        return empty, empty.copy()
    both = _on_unique(bounds, counts, r)
    return both[..., 0], both[..., 1]


def _class_object_intervals(table, r, delta2, confidence_level):
    """Per-object interval for the disagreement ``theta_i = p_i' Delta p_i`` from the vote counts.

    Two categories: ``theta = 2 delta^2 p (1 - p)``; its range over the exact Clopper-Pearson
    interval of ``p`` (coverage at least nominal). More categories: simultaneous Bonferroni
    Clopper-Pearson intervals ``[L_c, U_c]`` of the shares (each at level ``1 - alpha / K``, so
    the box holds the true shares with probability at least ``1 - alpha``) and the range of
    ``theta`` over the box *on the simplex* (``sum_c p_c = 1``). ``theta`` is concave there
    (``1 - sum p^2``, or twice the variance of the ordinal positions), so its minimum is at a
    vertex of the box-simplex polytope and its maximum at a stationary point of one of its
    faces: both are enumerated exactly up to ``_SIMPLEX_MAX_CATEGORIES`` categories. Beyond,
    the lower bound ``L' Delta L`` ignores the simplex (valid, wider) and the upper bound is
    water filling (categories) or ``U' Delta U`` (ordinal), capped at the largest possible
    disagreement.
    """
    alpha = 1.0 - confidence_level
    n_categories = table.shape[1]
    if delta2 is None:
        cap = 1.0 - 1.0 / n_categories  # largest Gini disagreement over K categories
    else:
        cap = float(delta2.max()) / 2.0  # largest 2 Var of positions on a line
    if n_categories == 2:
        first = np.asarray(table[:, 0].toarray() if hasattr(table, "toarray") else table[:, 0]).ravel()
        low, high = _share_bounds(first, r, alpha)
        weight = 2.0 * (1.0 if delta2 is None else float(delta2[0, 1]))
        f_low, f_high = weight * low * (1 - low), weight * high * (1 - high)
        theta_low = np.minimum(f_low, f_high)
        theta_high = np.where((low <= 0.5) & (high >= 0.5), weight / 4.0, np.maximum(f_low, f_high))
        return theta_low, theta_high
    level = alpha / n_categories
    if n_categories <= _SIMPLEX_MAX_CATEGORIES:
        dense = np.asarray(table.toarray() if hasattr(table, "toarray") else table, dtype=np.int64)
        d2 = np.ones((n_categories,) * 2) - np.eye(n_categories) if delta2 is None else delta2

        def bounds(*keys):  # once per distinct vote table
            counts = np.stack(keys[:-1], axis=1).astype(np.int64)
            low, high = _share_bounds(counts, keys[-1].astype(np.int64)[:, None], level)
            return np.stack(_simplex_range(low, high, d2), axis=-1)

        keys = [*dense.T, r]
        if sum(math.log2(int(k.max(initial=0)) + 1) for k in keys) < 62:  # codes fit in int64
            both = _on_unique(bounds, *keys)
        else:  # very many refits: sort the distinct tables instead
            unique, inverse = np.unique(np.column_stack(keys), axis=0, return_inverse=True)
            both = bounds(*unique.T)[inverse.ravel()]
        return both[..., 0], np.minimum(both[..., 1], cap)
    if delta2 is None and hasattr(table, "toarray"):
        # many categories: sums over the non-zero counts, every zero count has the same bounds
        coo = table.tocoo()
        low, high = _share_bounds(coo.data, r[coo.row], level)
        n_rows = table.shape[0]
        nnz = np.bincount(coo.row, minlength=n_rows)
        _, high0 = _share_bounds(np.zeros(n_rows), r, level)
        sum_l = np.bincount(coo.row, low, minlength=n_rows)
        sum_l2 = np.bincount(coo.row, low * low, minlength=n_rows)
        sum_u = np.bincount(coo.row, high, minlength=n_rows) + (n_categories - nnz) * high0
        sum_u2 = np.bincount(coo.row, high * high, minlength=n_rows) + (n_categories - nnz) * high0 ** 2
        theta_low, theta_high = sum_l ** 2 - sum_l2, sum_u ** 2 - sum_u2
    else:
        dense = np.asarray(table.toarray() if hasattr(table, "toarray") else table)
        low, high = _share_bounds(dense, r[:, None], level)
        if delta2 is None:  # Delta = 11' - I: x' Delta x = (sum x)^2 - sum x^2
            theta_low = low.sum(axis=1) ** 2 - np.einsum("ij,ij->i", low, low)
            theta_high = 1.0 - _least_sum_of_squares(low, high)
        else:
            theta_low = np.einsum("ij,ij->i", low @ delta2, low)
            theta_high = np.einsum("ij,ij->i", high @ delta2, high)
    return theta_low, np.minimum(theta_high, cap)


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
    """
    import itertools

    n_rows, k = low.shape
    tol = 1e-12
    best_low = np.full(n_rows, np.inf)
    best_high = np.full(n_rows, -np.inf)
    for pattern in itertools.product((0, 1, 2), repeat=k):  # 0 at low, 1 at high, 2 free
        pattern = np.array(pattern)
        free = np.flatnonzero(pattern == 2)
        if free.size == 0:
            continue
        fixed = np.flatnonzero(pattern != 2)
        b = np.where(pattern[fixed] == 0, low[:, fixed], high[:, fixed])  # (rows, |B|)
        rest = 1.0 - b.sum(axis=1)
        p = np.empty((n_rows, k))
        p[:, fixed] = b
        if free.size == 1:
            p[:, free[0]] = rest
        else:
            kkt = np.zeros((free.size + 1, free.size + 1))
            kkt[:-1, :-1] = 2.0 * delta2[np.ix_(free, free)]
            kkt[:-1, -1] = -1.0
            kkt[-1, :-1] = 1.0
            rhs = np.empty((n_rows, free.size + 1))
            rhs[:, :-1] = -2.0 * b @ delta2[np.ix_(fixed, free)]
            rhs[:, -1] = rest
            try:
                sol = np.linalg.solve(kkt, rhs.T).T
            except np.linalg.LinAlgError:  # tied positions: this face has no unique point
                continue
            p[:, free] = sol[:, :-1]
        feasible = np.all((p >= low - tol) & (p <= high + tol), axis=1)
        p = np.clip(p, low, high)
        value = np.einsum("ij,ij->i", p @ delta2, p)
        best_high = np.where(feasible, np.maximum(best_high, value), best_high)
        if free.size == 1:
            best_low = np.where(feasible, np.minimum(best_low, value), best_low)
    return np.maximum(best_low, 0.0), best_high


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


def _to_stability(d_low, d_high, d_e):
    """Interval of ``1 - D / D_e`` from an interval of ``D`` (NaN when ``D_e`` is not positive)."""
    if not d_e > 0:
        nan = np.full(np.shape(d_low), np.nan)
        return nan, nan.copy()
    return 1.0 - np.asarray(d_high, dtype=float) / d_e, 1.0 - np.asarray(d_low, dtype=float) / d_e


# --------------------------------------------------------------------------- counting


def _row_counts(source, offset, n_codes):
    """Counts of each code per row in one vectorised pass: ``(counts, n_missing)``.

    ``counts`` has shape (n_codes, n_rows) (codes x objects), ``n_missing`` (n_rows,).

    ``source - offset`` are codes in ``0..n_codes-1`` or -1 (missing). Codes are shifted
    by one so that missing values land in a column of their own; each block of rows
    is counted with a single ``np.bincount`` on ``row * (n_codes + 1) + code + 1`` (the
    order of the values does not matter to bincount, so column-wise blocks need no transpose).
    Counts are stored as int32 (at most the number of repetitions).
    """
    n_rows, n_cols = source.shape
    width = n_codes + 1
    table = np.empty((width, n_rows), dtype=np.int32)  # one contiguous row per code
    step = max(1, _BLOCK // max(n_cols, 1))
    by_column = isinstance(source, ColumnCodes)
    for start in range(0, n_rows, step):
        stop = min(start + step, n_rows)
        m = stop - start
        base = np.arange(m, dtype=np.intp) * width + (1 - offset)
        if by_column:  # (columns x rows) block of a DataFrame of Categoricals
            flat = source.row_block(start, stop) + base[None, :]
        else:
            flat = source[start:stop] + base[:, None]
        table[:, start:stop] = np.bincount(flat.ravel(), minlength=m * width).reshape(m, width).T
    return table[1:], table[0]


def _row_variances(x, fourth=False):
    """Sample variances (denominator ``n_i - 1``) and non-missing counts of each row.

    With ``fourth``, also each row's sum of fourth powers of the deviations from its mean
    (for the kurtosis of the refits), from the same deviations while they are in cache.

    Two-pass (mean, then squared deviations) as R's ``var``, block by block so that each
    block stays in cache. Rows whose values are all equal get an exact 0 (the shared
    convention needs exact zeros; rounding in the mean would otherwise leave ~1e-33).
    """
    n_rows, n_cols = x.shape
    var = np.empty(n_rows)
    sum4 = np.empty(n_rows) if fourth else None
    count = np.full(n_rows, n_cols, dtype=np.int64)
    step = max(1, _BLOCK // max(n_cols, 1))
    eps = np.finfo(float).eps
    for start in range(0, n_rows, step):
        block = x[start:start + step]
        total = block.sum(axis=1)
        mean = total / n_cols
        dev = block - mean[:, None]
        v = np.einsum("ij,ij->i", dev, dev) / (n_cols - 1) if n_cols > 1 else np.full(len(block), np.nan)
        if fourth:
            dev *= dev
            s4 = np.einsum("ij,ij->i", dev, dev)
        cnt = count[start:start + block.shape[0]]
        # rows with a missing value are the rows whose sum is not finite: redo only those
        redo = np.flatnonzero(~np.isfinite(total))
        if redo.size:
            sub = block[redo]
            missing = np.isnan(sub)
            c = n_cols - missing.sum(axis=1)
            with np.errstate(invalid="ignore", divide="ignore"):
                m = np.where(missing, 0.0, sub).sum(axis=1) / c
                d = np.where(missing, 0.0, sub - m[:, None])
                v[redo] = np.einsum("ij,ij->i", d, d) / (c - 1)
                if fourth:
                    s4[redo] = np.einsum("ij,ij->i", d * d, d * d)
            v[redo[c < 2]] = np.nan
            mean[redo] = m
            cnt[redo] = c
        # only rows within rounding of zero can be constant: check those exactly
        with np.errstate(invalid="ignore"):
            near_zero = np.flatnonzero(v <= (4.0 * n_cols * eps * np.abs(mean)) ** 2)
        if near_zero.size:
            sub = block[near_zero]
            low = np.where(np.isnan(sub), np.inf, sub).min(axis=1)
            high = np.where(np.isnan(sub), -np.inf, sub).max(axis=1)
            v[near_zero[low == high]] = 0.0
        var[start:start + block.shape[0]] = v
        if fourth:
            sum4[start:start + block.shape[0]] = s4
    if fourth:
        return var, count, sum4
    return var, count


def _ordinal_delta2(level_counts):
    """Krippendorff's squared ordinal distances from the baseline's level COUNTS ``m_g``.

    ``delta(c, k) = m_c/2 + sum_{c<g<k} m_g + m_k/2``: the distance between the
    positions ``t_c = sum_{g<=c} m_g - m_c/2`` (half-integers, so exact in floating point).
    """
    m = np.asarray(level_counts, dtype=float)
    position = np.cumsum(m) - m / 2.0
    return (position[:, None] - position[None, :]) ** 2


# --------------------------------------------------------------------------- validation


def _format_missing(n_missing, n_total):
    return f"{n_missing} out of {n_total} values are missing ({round(100.0 * n_missing / n_total, 2):g}%)"


@dataclass(frozen=True)
class _Names:
    predictions: str
    baseline: str
    levels: str


def _stability_iv(predictions, baseline, scale, levels, names):
    """Check and normalise the inputs of every phi/psi entry point (APS's checks and phrases)."""
    pred = read_values(predictions, names.predictions)
    if pred.array.ndim != 2:
        raise ValueError(
            f"`{names.predictions}` must be a 2-D matrix of shape (n_objects, n_repetitions); got "
            f"{pred.array.ndim}-D input of shape {pred.array.shape}. For one object pass shape (1, R)."
        )
    n_objects, n_replicates = pred.array.shape
    if n_replicates < 2:
        raise ValueError(
            f"`{names.predictions}` must contain predictions from at least two repetitions (columns); "
            f"got shape {pred.array.shape}."
        )
    if n_objects < 1:
        raise ValueError(
            f"`{names.predictions}` must contain at least one object (row); got shape {pred.array.shape}."
        )
    base = read_values(baseline, names.baseline)
    if base.array.ndim > 2:
        raise ValueError(
            f"`{names.baseline}` must be a vector or a (training objects x repetitions) matrix; got "
            f"{base.array.ndim}-D input of shape {base.array.shape}."
        )
    if base.array.ndim == 0:
        base = Values(base.array.reshape(1), base.family, base.integer, base.categories, base.ordered)

    if "empty" not in (pred.family, base.family) and pred.family != base.family:
        raise ValueError(
            "Type mismatch between the prediction matrix and the training data: "
            f"`{names.predictions}` is {_R_TYPE[pred.family]}, `{names.baseline}` is {_R_TYPE[base.family]}."
        )
    if scale is None:
        scale = _infer_scale(pred, base, levels, names)
    if scale == "metric":
        family = pred.family if pred.family != "empty" else base.family
        if family not in ("numeric", "empty"):
            raise ValueError(
                f"'scale' = 'metric' doesn't match the data type which is '{_R_TYPE[family]}': `scale` is "
                f"'metric' but `{names.predictions}` holds {_R_TYPE[family]} values; use "
                "scale='categorical' or scale='ordinal' for class labels."
            )
        levels = _no_levels(levels, scale, names)
    elif scale == "ordinal":
        if levels is None:
            levels = _ordered_categories(pred, base)
        if levels is None:
            raise ValueError(
                f"'scale' = 'ordinal' requires setting `{names.levels}` to a vector containing the "
                "levels in the correct order, e.g. levels=['low', 'mid', 'high']."
            )
        levels = _levels_iv(levels, names.levels)
    else:  # "categorical" (the public functions declare `scale`; see validate_params)
        levels = _no_levels(levels, scale, names)
    if n_replicates < _FEW_REPETITIONS:
        warnings.warn(
            f"`{names.predictions}` contains fewer than {_FEW_REPETITIONS} repeated predictions "
            f"({n_replicates} columns); stability estimates may be unreliable.",
            PredstabDataWarning, stacklevel=5)
    return pred, base, scale, levels


def _no_levels(levels, scale, names):
    if levels is not None:
        raise ValueError(
            f"`{names.levels}` orders the categories of the ordinal scale; it cannot be used with "
            f"scale={scale!r}. Pass scale='ordinal' or leave `{names.levels}` as None."
        )
    return None


def _infer_scale(pred, base, levels, names):
    if levels is not None or _ordered_categories(pred, base) is not None:
        return "ordinal"
    if pred.categories is not None:
        return "categorical"
    family = pred.family if pred.family != "empty" else base.family
    if family in ("logical", "character"):
        return "categorical"
    if family == "numeric" and not pred.integer:
        return "metric"
    if family in ("numeric", "empty"):
        raise ValueError(
            f"`scale` is needed: `{names.predictions}` holds integers, which may be metric values, "
            "class labels or ordinal scores. Pass scale='metric', scale='categorical' or "
            f"scale='ordinal' (with `{names.levels}`)."
        )
    raise ValueError(f"cannot infer `scale` for values of family {family!r}; pass `scale`.")


def _ordered_categories(pred, base):
    for v in (pred, base):
        if v.categories is not None and v.ordered:
            return list(v.categories)
    return None


def _levels_iv(levels, name):
    if isinstance(levels, (str, bytes)) or np.ndim(levels) != 1:
        raise ValueError(f"`{name}` must be a sequence of levels in their order; got {levels!r}.")
    levels = list(pd.Index(levels)) if isinstance(levels, pd.Index) else list(levels)
    if len(levels) < 1:
        raise ValueError(f"`{name}` must list at least one level; got an empty sequence.")
    if any(v is None or (isinstance(v, float) and np.isnan(v)) or v is pd.NA for v in levels):
        raise ValueError(f"`{name}` must not contain missing values; got {levels!r}.")
    if len(set(map(_hashable, levels))) != len(levels):
        raise ValueError(f"`{name}` must not repeat a level; got {levels!r}.")
    return tuple(v.item() if isinstance(v, np.generic) else v for v in levels)


def _hashable(v):
    return v.item() if isinstance(v, np.generic) else v


# --------------------------------------------------------------------------- computation


def _baseline_vector(base, name):
    """The pooled baseline (a matrix becomes one vector), with missing values dropped."""
    arr = base.array.ravel()
    if base.categories is not None:
        keep = arr >= 0
        n_missing = int(arr.size - keep.sum())
        flat = arr[keep]
        values = Values(flat, base.family, base.integer, base.categories, base.ordered)
    else:
        from .._core._utils import missing_mask

        miss = missing_mask(arr)
        n_missing = int(miss.sum())
        values = Values(arr[~miss], base.family, base.integer)
    if n_missing:
        warnings.warn(
            f"The training data (`{name}`) contains missing values (NAs): "
            f"{_format_missing(n_missing, arr.size)}; they are dropped.",
            PredstabDataWarning, stacklevel=5)
    n_left = values.array.size
    if n_left < 2:
        raise ValueError(
            f"The training data (`{name}`) must contain at least two elements (non-missing); got {n_left}."
        )
    return values


def _warn_missing_predictions(n_missing, n_total, name):
    if n_missing:
        warnings.warn(
            f"`{name}` contains missing values (NAs): {_format_missing(n_missing, n_total)}; "
            "they are dropped.", PredstabDataWarning, stacklevel=6)


def _metric_array(values, baseline=False):
    x = values.array
    if values.categories is not None:  # a Categorical of numbers read on the metric scale
        cats = np.asarray(values.categories, dtype=float)
        x = (cats if baseline else np.append(cats, np.nan))[np.asarray(x)]
    return np.asarray(x, dtype=float)


def _observed_metric(x, name):
    with np.errstate(invalid="ignore"):  # inf - inf in a row with an infinite value: rejected below
        d_o, count, sum4 = _row_variances(x, fourth=True)
    _reject_infinite(x, d_o, name)
    _warn_missing_predictions(int(x.size - count.sum()), x.size, name)
    with np.errstate(invalid="ignore"):
        moments = np.stack([count.astype(float), d_o * (count - 1), sum4])
    return d_o, count, x, moments


def _reject_infinite(x, variances, name):
    """An infinite value makes its row's variance NaN; without this check the row would be
    dropped as if it had fewer than two values (or D_e would be NaN without a warning)."""
    if np.isnan(variances).any() and np.isinf(x).any():
        raise ValueError(f"`{name}` must hold finite values on the metric scale; got "
                         f"{int(np.isinf(x).sum())} infinite value(s).")


def _expected_metric(x, name):
    x = x[None, :]
    with np.errstate(invalid="ignore"):
        var, _ = _row_variances(x)
    _reject_infinite(x, var, name)
    return float(var[0])


def _category_space(base, scale, levels, names):
    """Categories, their baseline counts and the map from prediction codes to them."""
    b_source, b_offset, b_uniques = encode(base)
    b_codes = np.asarray(b_source, dtype=np.intp).ravel() - b_offset
    b_present = np.bincount(b_codes, minlength=len(b_uniques)) > 0
    b_uniques, b_counts = b_uniques[b_present], np.bincount(b_codes, minlength=len(b_uniques))[b_present]
    if scale == "ordinal":
        as_text = not _same_family(levels, b_uniques)
        to_level = match_keys(b_uniques, levels, as_text)
        if (to_level < 0).any():
            absent = [v for v, j in zip(b_uniques, to_level, strict=True) if j < 0]
            raise ValueError(
                f"Some values do not occur in '{names.levels}' (`{names.levels}`): the training data "
                f"contain {absent[:5]!r}{' ...' if len(absent) > 5 else ''} but the levels are "
                f"{list(levels)!r}."
            )
        categories = tuple(levels)
        counts = np.zeros(len(levels), dtype=np.int64)
        counts[to_level] = b_counts
        base_to_category = to_level
    else:
        order = _sorted_order(b_uniques)
        b_uniques, b_counts = b_uniques[order], b_counts[order]
        categories = tuple(v.item() if isinstance(v, np.generic) else v for v in b_uniques)
        counts = b_counts
        base_to_category = np.arange(len(b_uniques))
    return categories, counts, b_uniques, base_to_category


def _row_counts_sparse(source, offset, n_codes):
    """As :func:`_row_counts` for many distinct values: a sparse (objects x codes) table."""
    from scipy import sparse

    n_rows, n_cols = source.shape
    codes = np.asarray(source, dtype=np.intp).ravel() - offset
    valid = codes >= 0
    rows = np.repeat(np.arange(n_rows, dtype=np.intp), n_cols)[valid]
    table = sparse.csr_matrix((np.ones(rows.size, dtype=np.int64), (rows, codes[valid])),
                              shape=(n_rows, n_codes))
    table.sum_duplicates()
    n_missing = n_cols - np.bincount(rows, minlength=n_rows)
    return table, n_missing


def _pair_sums(columns, category, delta2):
    """``sum_c sum_k n_ic n_ik delta2[c, k]`` per object from count columns of the given categories."""
    if len(columns) > 16:  # many categories: one (N x K) @ (K x K) product
        counts = np.stack(columns, axis=1).astype(float)
        return np.einsum("nk,nk->n", counts @ delta2[np.ix_(category, category)], counts)
    # few categories: BLAS is slow for tiny K, so sum the K(K-1)/2 pairs as vector operations
    total = np.zeros(len(columns[0]) if columns else 0)
    for a in range(len(columns)):
        for b in range(a + 1, len(columns)):
            weight = 2.0 * delta2[category[a], category[b]]
            if weight != 0:
                total += weight * (columns[a].astype(float) * columns[b])
    return total


def _observed_categorical(pred, b_uniques, base_to_category, n_categories, delta2, names,
                          absent_to_category=None):
    """Per-object ``D_o,i``, non-missing counts, and the (objects x categories) count table.

    The table is a dense int array or, for many distinct values, a CSR matrix. A prediction
    value absent from the baseline raises APS's error unless ``absent_to_category`` maps such
    values to categories (psi: a category absent from the baseline has share 0 in ``D_e``).
    """
    source, offset, uniques = encode(pred)
    n_rows, n_cols = source.shape
    dense = n_rows * (len(uniques) + 1) <= max(4 * source.size, _DENSE_CELLS)
    if dense:
        raw, n_missing = _row_counts(source, offset, len(uniques))
        present = np.flatnonzero(raw.any(axis=1))
    else:
        raw, n_missing = _row_counts_sparse(source, offset, len(uniques))
        present = np.unique(raw.indices)
    _warn_missing_predictions(int(n_missing.sum()), source.size, names.predictions)
    if present.size == 0:  # every prediction missing (the count arithmetic below needs a category)
        raise ValueError(
            f"`{names.predictions}` has no object with at least two non-missing predictions; "
            "stability cannot be computed."
        )
    to_base = match_keys(uniques[present], b_uniques, as_text=False)
    known = to_base >= 0
    category = np.empty(present.size, dtype=np.intp)
    category[known] = base_to_category[to_base[known]]
    if not known.all():
        absent = [uniques[j] for j in present[~known]]
        if absent_to_category is None:
            raise ValueError(
                "Some prediction values do not occur in the training data: "
                f"`{names.predictions}` contains {absent[:5]!r}{' ...' if len(absent) > 5 else ''}, "
                f"absent from `{names.baseline}`."
            )
        category[~known] = absent_to_category(absent)
        n_categories = max(n_categories, int(category.max()) + 1)
    r = n_cols - np.asarray(n_missing, dtype=np.int64)
    if dense:
        # distinct values map to distinct categories, so the raw count rows are the counts
        table = np.zeros((n_rows, n_categories), dtype=np.int64)
        table[:, category] = raw[present].T
        if delta2 is None:  # categorical: disagreeing ordered pairs R_i^2 - sum_c n_ic^2
            same = np.einsum("ij,ij->i", table, table)
            disagree = (r * r - same).astype(float)
        else:  # ordinal: sum_c sum_k n_ic n_ik delta^2(c, k)
            disagree = _pair_sums([raw[j] for j in present], category, delta2)
    else:
        from scipy import sparse

        lut = np.full(len(uniques), -1, dtype=np.intp)
        lut[present] = category
        table = sparse.csr_matrix((raw.data, lut[raw.indices], raw.indptr), shape=(n_rows, n_categories))
        if delta2 is None:
            disagree = (r * r - np.asarray(table.multiply(table).sum(axis=1)).ravel()).astype(float)
        else:
            disagree = np.asarray(table.multiply(table @ delta2).sum(axis=1)).ravel().astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        d_o = disagree / (r * (r - 1)).astype(float)
    d_o[r < 2] = np.nan
    return d_o, r, table


def _same_family(levels, uniques):
    def fam(v):
        if isinstance(v, (bool, np.bool_)):
            return "logical"
        if isinstance(v, (int, float, np.integer, np.floating)):
            return "numeric"
        return "character"
    return {fam(v) for v in levels} | {fam(v) for v in uniques} <= {fam(levels[0])}


def _sorted_order(uniques):
    try:
        return np.argsort(np.asarray(uniques), kind="stable")
    except TypeError:
        return np.arange(len(uniques))


def _stability(kind, predictions, baseline, scale, levels, names, confidence_level=0.95, *,
               object_interval="auto", interval_target="population", baseline_error=False):
    """The computation behind every entry point: ``S = 1 - D_o / D_e``, its parts and intervals."""
    pred, base, scale, levels = _stability_iv(predictions, baseline, scale, levels, names)
    base = _baseline_vector(base, names.baseline)
    delta2 = None
    row = None
    absent = ()
    moments = table = base_counts = None
    info = {"kurtosis": float("nan"), "heavy": 0}
    if scale == "metric":
        x_base, x_pred = _metric_array(base, baseline=True), _metric_array(pred)
        # phi / psi are scale invariant: data beyond ~1e30 in magnitude are rescaled by one exact power
        # of four (their variances overflowed at 1e155, underflowed at 1e-155); D_o, D_e scaled back below
        shift = scaling_shift(x_base, x_pred)
        if shift:
            x_base, x_pred = np.ldexp(x_base, shift), np.ldexp(x_pred, shift)
        d_e = _expected_metric(x_base, names.baseline)
        d_o_i, count, x, moments = _observed_metric(x_pred, names.predictions)
        if pred.array.shape[0] == 1:
            row = x[0][~np.isnan(x[0])]
        method = object_interval
        if method == "auto":
            method = "pooled" if int(np.sum(count >= 4)) >= _POOLED_MIN_OBJECTS else "bonett"
        d_low, d_high, info = _metric_object_intervals(d_o_i, count, confidence_level, method, x, moments)
        if method == "pooled" and not np.isfinite(info["kurtosis"]):
            method = "chi2"  # no object with 4 refits: no kurtosis to pool
    else:
        categories, base_counts, b_uniques, base_to_category = _category_space(base, scale, levels, names)
        n = base_counts.sum()
        if scale == "ordinal":
            delta2 = _ordinal_delta2(base_counts)
            p = base_counts / n
            d_e = float(p @ delta2 @ p)
        else:
            p = base_counts / n
            d_e = float(1.0 - np.sum(p * p))  # exactly 0 for one class: 1 - 1.0
        categories = list(categories)
        extend = None
        if kind == "psi":
            extend = _absent_mapper(scale, categories, names)
        d_o_i, count, table = _observed_categorical(pred, b_uniques, base_to_category, len(categories),
                                                    delta2, names, absent_to_category=extend)
        if scale == "categorical" and len(categories) > len(base_counts):
            # predicted categories absent from the baseline (psi): share 0 in D_e, sorted in
            absent = tuple(categories[len(base_counts):])
            order = _sorted_order(np.array(categories, dtype=object))
            categories = [categories[j] for j in order]
            table = table[:, order]
        levels = categories
        if pred.array.shape[0] == 1:
            first_row = np.asarray(table[0].toarray() if hasattr(table, "toarray") else table[0]).ravel()
            row = np.repeat(np.arange(len(categories)), first_row)
        d_low, d_high = _class_object_intervals(table, count, delta2, confidence_level)
        method = "classes"
    kept = ~np.isnan(d_o_i)
    if not kept.any():
        raise ValueError(
            f"`{names.predictions}` has no object with at least two non-missing predictions; "
            "stability cannot be computed."
        )
    if not kept.all():
        dropped = np.flatnonzero(~kept)
        shown = ", ".join(map(str, dropped[:10])) + (" ..." if dropped.size > 10 else "")
        warnings.warn(
            f"{dropped.size} row(s) of `{names.predictions}` are excluded from the stability calculation "
            f"as they have fewer than two non-missing values (0-based rows {shown}).",
            PredstabDataWarning, stacklevel=4)
    if np.all(d_o_i[kept] == 0):
        warnings.warn("Predictions are identical across repetitions for all objects.",
                      PredstabDataWarning, stacklevel=4)
    d_o = float(np.mean(d_o_i[kept]))
    value = one_minus_ratio(d_o, d_e, name="prediction stability", what="instability", stacklevel=5)
    per_object = one_minus_ratio_array(d_o_i, d_e)
    _warn_shape(method, info, names)
    # every interval contains its own estimate: the unbiased D_o,i of classes can lie above the
    # range of the plug-in disagreement (and Bonett's interval need not contain s^2)
    d_low = np.where(kept, np.minimum(d_low, d_o_i), np.nan)
    d_high = np.where(kept, np.maximum(d_high, d_o_i), np.nan)
    per_low, per_high = _to_stability(d_low, d_high, d_e)
    if not d_e > 0:
        interval = ConfidenceInterval(np.nan, np.nan)
    elif kept.sum() >= 2:
        refit_var = base_var_d_e = base_var_s = None
        if interval_target == "objects":
            refit_var = _refit_variances(d_o_i, count, moments=moments, table=table, delta2=delta2)
        if baseline_error:
            if scale == "ordinal":
                base_var_s = _ordinal_baseline_variance_of_s(base_counts, _pair_weights(table, count, kept))
            else:
                base_var_d_e = _baseline_variance(
                    x_base if scale == "metric" else None, scale, base_counts, delta2)
        interval = _overall_interval(d_o_i, count, d_e, confidence_level, target=interval_target,
                                     baseline_error=baseline_error, refit_var=refit_var, scale=scale,
                                     delta2=delta2, base_var_d_e=base_var_d_e, base_var_s=base_var_s,
                                     n_categories=None if scale == "metric" else len(levels),
                                     object_low=d_low)
        interval = ConfidenceInterval(min(interval.low, value), max(interval.high, value))
    else:
        j = int(np.flatnonzero(kept)[0])
        interval = ConfidenceInterval(float(per_low[j]), float(per_high[j]))
    scaled = None
    if scale == "metric" and shift:  # the parts in the data's units (inf beyond the float range)
        scaled = (d_o_i, d_e)  # the single object's row stays scaled: the bootstrap's variances need it
        with np.errstate(over="ignore"):
            d_o, d_e = float(np.ldexp(d_o, -2 * shift)), float(np.ldexp(d_e, -2 * shift))
            d_o_i = np.ldexp(d_o_i, -2 * shift)
    return StabilityResult(
        value=value, observed=d_o, expected=d_e, confidence_interval=interval,
        confidence_level=float(confidence_level), per_object=per_object, per_object_observed=d_o_i,
        per_object_low=per_low, per_object_high=per_high,
        kind=kind, scale=scale, levels=None if scale == "metric" else tuple(levels),
        n_objects=int(pred.array.shape[0]), n_replicates=int(pred.array.shape[1]),
        absent_from_baseline=absent, interval_method=_METHOD_NAMES[method],
        interval_target=interval_target if kept.sum() >= 2 else "object",
        interval_baseline_error=bool(baseline_error and kept.sum() >= 2), refit_kurtosis=info["kurtosis"],
        per_object_count=count, object_labels=pred.labels, _row=row, _delta2=delta2,
        _scaled=scaled,
    )


def _pair_weights(table, count, kept):
    """``W = mean_i n_i n_i' / (R_i (R_i - 1))`` over the kept objects (for the ordinal delta method)."""
    dense = np.asarray(table.toarray() if hasattr(table, "toarray") else table, dtype=float)[kept]
    r = count[kept].astype(float)
    return (dense / (r * (r - 1))[:, None]).T @ dense / r.size


def _warn_shape(method, info, names):
    """A ``PredstabDataWarning`` where the refits' shape is beyond what the coverage study covers."""
    if method == "pooled" and info["heavy"]:
        warnings.warn(
            f"The refits in `{names.predictions}` are heavy-tailed (pooled excess kurtosis "
            f"{info['kurtosis']:.3g} > {_POOLED_WARN_EXCESS:g}); the per-object intervals may cover less "
            "than the nominal level (docs/benchmarks/coverage.md).", PredstabDataWarning, stacklevel=5)
    elif method == "bonett" and info["heavy"]:
        warnings.warn(
            f"The refits in `{names.predictions}` are heavy-tailed (excess kurtosis estimate "
            f"> {_BONETT_WARN_EXCESS:g}); the interval (Bonett) may cover less than "
            "the nominal level: about 0.90 at 20 refits for gamma- or t5-shaped refits, less for "
            "skewed heavy tails (docs/benchmarks/coverage.md).", PredstabDataWarning, stacklevel=5)



def _absent_mapper(scale, categories, names):
    """psi: map predicted values absent from the baseline to categories with share 0 in ``D_e``.

    Categorical: each becomes a new category (appended; sorted in afterwards). Ordinal: the
    value must be one of the levels (its baseline count is 0 and the level keeps its place).
    """
    def to_category(values):
        if scale == "ordinal":
            as_text = not _same_family(list(categories), values)
            idx = match_keys(values, categories, as_text)
            if (idx < 0).any():
                bad = [v for v, j in zip(values, idx, strict=True) if j < 0]
                raise ValueError(
                    f"Some prediction values do not occur in '{names.levels}' (`{names.levels}`): "
                    f"`{names.predictions}` contains {bad[:5]!r} but the levels are {list(categories)!r}."
                )
            return idx
        start = len(categories)
        categories.extend(v.item() if isinstance(v, np.generic) else v for v in values)
        return np.arange(start, len(categories), dtype=np.intp)
    return to_category


# --------------------------------------------------------------------------- public API

_DOC_DEFINITION = r"""
    .. math::

        S = 1 - \frac{D_o}{D_e}, \qquad
        D_o = \frac{1}{N'} \sum_{i} D_{o,i}

    Per object, over its :math:`R_i` non-missing predictions, :math:`D_{o,i}` is the share of
    ordered pairs that disagree, :math:`(R_i^2 - \sum_c n_{ic}^2) / (R_i(R_i-1))`
    (categorical), the mean squared ordinal distance
    :math:`\sum_c\sum_k n_{ic} n_{ik}\,\delta^2_{ck} / (R_i(R_i-1))` (ordinal), or the sample
    variance (metric, denominator :math:`R_i - 1`). Objects with fewer than two predictions are
    dropped (:math:`N'` objects remain). From the baseline :math:`x` (missing values dropped),
    :math:`D_e = 1 - \sum_c p_c^2` (categorical, plug-in proportions),
    :math:`\sum_c\sum_k p_c p_k \delta^2_{ck}` (ordinal, plug-in), or the sample variance of
    :math:`x` with denominator :math:`n - 1` (metric). The asymmetry (plug-in proportions, but
    an unbiased variance) is APS's definition and is kept. The ordinal distance is
    Krippendorff's, from the baseline's level *counts* :math:`m_g`:
    :math:`\delta_{ck} = m_c/2 + \sum_{c<g<k} m_g + m_k/2`; the same :math:`\delta^2` enters
    :math:`D_o` and :math:`D_e`.

    Conventions: perfectly stable predictions (all repetitions equal for every object) give
    :math:`D_o = 0` and :math:`S = 1`. With no expected instability (:math:`D_e = 0`, a
    constant baseline) :math:`S = 1` when :math:`D_o = 0` as well
    (``PredstabDegenerateWarning``: the model may have collapsed to one value) and NaN
    otherwise (``PredstabUndefinedWarning``)."""


@validate_params({"scale": [Options(_SCALES), None], "levels": ["array-like", None],
                  "confidence_level": [Interval(Real, 0, 1, closed="neither")],
                  "object_interval": [Options(_METRIC_METHODS)], "interval_target": [Options(_TARGETS)],
                  "baseline_error": ["boolean"]})
def phi(predictions, training_observations, /, *, scale=None, levels=None,
        confidence_level=0.95, object_interval="auto", interval_target="population",
        baseline_error=False) -> StabilityResult:
    r"""Data-based prediction stability phi: refit-to-refit instability against the training data.

    Parameters
    ----------
    predictions : array-like of shape (n_objects, n_repetitions)
        Predictions for the test objects (rows) from repeated fits with new seeds (columns).
        A single object (shape ``(1, R)``) is valid. Missing values (None, NaN, pd.NA) are dropped.
        A stack of shape ``(..., n_objects, n_repetitions)`` (a Dask array too), measured against
        the one ``training_observations``, gives one result whose numbers are arrays of shape
        ``(...)``, as a loop over the matrices would (``predstab._core._stack``).
    training_observations : array-like of shape (n_train,) or (n_train, k)
        The observed responses of the training data; a matrix is pooled into one vector.
    scale : {"metric", "ordinal", "categorical"} or None, default None
        None infers it: float -> metric; text, booleans or an unordered pandas Categorical ->
        categorical; an ordered Categorical -> ordinal with its categories as levels; `levels`
        given -> ordinal. Integers are ambiguous and need an explicit `scale`.
    levels : sequence or None, default None
        Ordinal levels from lowest to highest (numbers or text); required for
        ``scale="ordinal"`` unless the data are an ordered Categorical.
    confidence_level : float, default 0.95
        Level of ``confidence_interval`` and of the per-object intervals.
    object_interval : {"auto", "pooled", "bonett", "chi2"}, default "auto"
        Method of the metric per-object intervals (see Notes); ``"auto"`` pools the kurtosis
        over the objects when at least 20 have 4 or more refits, else Bonett. Classes always
        use Clopper-Pearson.
    interval_target : {"population", "objects"}, default "population"
        Target of ``confidence_interval`` with several objects: the population of objects, or
        these objects (see Notes).
    baseline_error : bool, default False
        Include the sampling error of ``D_e`` (from the training responses or the prediction
        space) in ``confidence_interval``.

    Returns
    -------
    StabilityResult
        ``.value`` (phi), ``.observed`` (D_o), ``.expected`` (D_e), ``.per_object``,
        ``.per_object_observed``, ``.kind == "phi"``, ``.scale``, ``.levels``; ``str()`` prints
        APS's layout.

    Raises
    ------
    ValueError
        Fewer than two repetitions, no objects, a prediction value absent from the training
        data, a training value absent from `levels`, fewer than two training values, text on
        the metric scale, or numbers against text.

    Warns
    -----
    PredstabDataWarning
        Fewer than 5 repetitions; missing values (count and %); objects dropped; all
        repetitions identical.
    PredstabDegenerateWarning
        ``D_e = 0`` and ``D_o = 0``: phi is set to 1.
    PredstabUndefinedWarning
        ``D_e = 0`` and ``D_o > 0``: phi is NaN.

    Notes
    -----
    {definition}

    **Confidence intervals.** Every interval contains its own estimate; coverage is measured
    in docs/benchmarks/coverage.md.

    *Per object* (``per_object_low`` / ``per_object_high``, and ``confidence_interval`` of a
    one-object result): target :math:`S_i = 1 - \theta_i / D_e`, :math:`\theta_i` the
    expected disagreement of two refits of object :math:`i`, :math:`D_e` fixed; refits
    independent. Metric, by ``object_interval``:

    - ``"pooled"`` (``"auto"`` with at least 20 objects of 4 or more refits): the refits of all
      objects are assumed to share one shape (location and scale free). Their excess
      kurtosis :math:`\kappa = \sum_i k_{4,i} / \sum_i \widehat{\sigma^4_i}` (Fisher's
      unbiased :math:`k_4`, and :math:`(k_2^2 - k_4/R)(R-1)/(R+1)`) gives Satterthwaite's
      :math:`\nu_i = 2 / (2/(R_i-1) + \kappa/R_i)` and
      :math:`\nu_i D_{o,i} / \chi^2_{\nu_i}`. Reduces to the chi-square interval when
      :math:`\kappa = 0`; warns when :math:`\kappa > 6`.
    - ``"bonett"`` (``"auto"`` otherwise): Bonett's (2006) interval from the object's own refits,
      :math:`\exp(\ln(c D_{o,i}) \pm z c \sqrt{(\hat\gamma_4 - (R-3)/R)/(R-1)})`,
      :math:`c = R/(R-z)`, with his trimmed-mean kurtosis times :math:`(R+1)/(R-1)` (a
      small-sample adjustment). Coverage about 0.90-0.93 at 20 refits for gamma(2)- or
      t5-shaped refits, 0.90 for lognormal(0.5); 0.96 for normal refits. Fewer than 6 refits:
      the chi-square interval. A one-object result warns when the kurtosis estimate exceeds 6.
    - ``"chi2"``: :math:`(R_i-1) D_{o,i} / \sigma_i^2 \sim \chi^2_{R_i-1}`, exact for normal
      refits only (0.74-0.87 for skewed or heavy-tailed ones).

    Two categories: the exact Clopper-Pearson interval of the vote share :math:`p`, mapped
    through :math:`\theta = 2\delta^2 p(1-p)` (coverage at least nominal). More categories or
    ordinal levels: the range of :math:`\theta = p'\Delta p` over the Bonferroni
    Clopper-Pearson box of the shares intersected with the simplex (:math:`\theta` is concave
    there: minimum at a vertex, maximum at a stationary point of a face, both enumerated
    exactly up to 6 categories; beyond, the box alone). Coverage at least nominal
    (Bonferroni). The unbiased :math:`D_{o,i}` can exceed every plug-in disagreement of the
    set; the interval then extends to it.

    *Several objects* (``confidence_interval``), by ``interval_target``:

    - ``"population"`` (default): the mean :math:`1 - E[\theta_i]/D_e` over the population the
      objects are a random sample of (assumed: independent objects). The mean of the
      :math:`D_{o,i}` as a scaled chi-square (gamma) with its mean and variance
      :math:`s^2_{D_o}/N'`, widened by :math:`(t_{N'-1}/z)^2`: right-skewed like the
      :math:`D_{o,i}`; metric data: united with the bootstrap-t (studentized bootstrap over the
      objects, 999 resamples from a fixed seed, :math:`N' \le 500`; a lower end cut at 0 is
      left out). Below nominal for a few strongly skewed objects: about 0.92 at
      :math:`N' = 10` and 0.93 at 30-100 when the objects' variances are lognormal(1)
      (docs/benchmarks/coverage.md).
    - ``"objects"``: the mean :math:`1 - \bar\theta/D_e` over these objects; only the refit
      noise counts: the same gamma form with variance :math:`\sum_i v_i / N'^2`, :math:`v_i`
      the jackknife variance of :math:`D_{o,i}` over the object's refits.

    Classes with objects that never disagreed (:math:`D_{o,i} = 0`; rare instability) get a
    zero-inflated form instead, :math:`\alpha/2` to each factor: ``"population"``: the exact
    Clopper-Pearson interval of the share :math:`k/N'` of disagreeing objects times the gamma
    interval of their mean (capped at the largest disagreement possible with their votes);
    ``"objects"``: the unanimous objects' disagreement at most the exact binomial bound from
    their agreeing disjoint pairs, the disagreeing ones' mean from the gamma form (lower end at
    most the mean of their Clopper-Pearson lower bounds). Conservative: 0.99-1.00 at
    :math:`N' = 10-100` with minority share 0.02 and 5 refits.

    ``baseline_error=True`` adds the sampling error of :math:`D_e` (the baseline is a sample
    independent of the test objects): :math:`\log(D_o/D_e)` with the relative variances added
    (delta method: :math:`\operatorname{Var}(s^2) = \mu_4/n - \sigma^4 (n-3)/(n(n-1))`
    (metric), :math:`4(\sum p^3 - (\sum p^2)^2)/n` (categories); ordinal: the numerical
    gradient of :math:`S` in the baseline's shares, as :math:`\Delta` depends on them too).
    Without it the interval is conditional on :math:`D_e`.

    When every refit of every object agrees (:math:`D_o = 0`, classes), a one-sided bound
    :math:`[1 - w q / D_e, 1]`: :math:`q = 1 - \alpha^{1/M}` the exact binomial upper bound of
    the probability that two refits disagree when none of :math:`M` independent pairs did
    (:math:`M = N' \lfloor \min R_i / 2 \rfloor` disjoint pairs for ``"objects"``, by AM-GM;
    :math:`M = N'` for ``"population"``), :math:`w = \max \delta^2` (ordinal) or 1.
    Metric refits that are all equal keep the point :math:`[1, 1]`: no bound on a variance
    follows from ties without a model of the refits.
    ``bootstrap_interval()`` keeps the bootstrap.

    Matches ``APS::calculate_phi``; see validation/aps.

    References
    ----------
    .. [1] Lange, T. M., Schmitt, A. O. & Heinrich, F. (2025). Assessing prediction stability
       of non-deterministic models. BMC Bioinformatics. https://doi.org/10.1186/s12859-025-06097-1
    .. [2] Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability (ordinal metric).
       https://repository.upenn.edu/asc_papers/43
    .. [3] Bonett, D. G. (2006). Approximate confidence interval for standard deviation of
       nonnormal distributions. Computational Statistics & Data Analysis 50(3), 775-782.
       https://doi.org/10.1016/j.csda.2004.10.003

    Examples
    --------
    >>> import numpy as np
    >>> import predstab
    >>> refits = np.array([[10.1, 10.3, 9.9, 10.0, 10.2],
    ...                    [20.2, 19.8, 20.1, 20.0, 19.9]])
    >>> res = predstab.phi(refits, [9.0, 12.0, 15.0, 21.0, 18.0, 11.0])
    >>> round(res.value, 4), round(res.observed, 4), round(res.expected, 4)
    (0.9987, 0.025, 20.7)
    """
    if is_stack(predictions):  # (..., n_objects, n_refits) against one training_observations
        return _stacked(phi, predictions, training_observations, "training_observations", scale=scale,
                        levels=levels,
                        confidence_level=confidence_level, object_interval=object_interval,
                        interval_target=interval_target, baseline_error=baseline_error)
    return _stability("phi", *_phi_iv(predictions, training_observations, scale, levels),
                      confidence_level=confidence_level, object_interval=object_interval,
                      interval_target=interval_target, baseline_error=baseline_error)


phi.__doc__ = phi.__doc__.replace("{definition}", _DOC_DEFINITION.strip())



def _stacked(func, predictions, baseline, name, **options):
    """phi / psi of every item of a stack of prediction matrices against one shared baseline
    (``predstab._core._stack``: a result of arrays, equal to a loop over the items)."""
    if is_stack(baseline):
        raise ValueError(
            f"A stack of `predictions` is measured against one shared `{name}` (the training "
            f"responses or out-of-sample predictions of one model); got a stack of shape "
            f"{np.shape(baseline)}. Loop over the items for one baseline each.")
    return stack_apply(lambda item, **kwargs: func(item, baseline, **kwargs), predictions,
                       name="predictions", stacklevel=4, **options)


def _phi_iv(predictions, training_observations, scale, levels):
    return predictions, training_observations, scale, levels, _Names("predictions", "training_observations",
                                                                     "levels")


@validate_params({"scale": [Options(_SCALES), None], "levels": ["array-like", None],
                  "confidence_level": [Interval(Real, 0, 1, closed="neither")],
                  "object_interval": [Options(_METRIC_METHODS)], "interval_target": [Options(_TARGETS)],
                  "baseline_error": ["boolean"]})
def psi(predictions, prediction_space, /, *, scale=None, levels=None,
        confidence_level=0.95, object_interval="auto", interval_target="population",
        baseline_error=False) -> StabilityResult:
    r"""Model-based prediction stability psi: refit-to-refit instability against the model's own spread.

    Parameters
    ----------
    predictions : array-like of shape (n_objects, n_repetitions)
        Predictions for the test objects (rows) from repeated fits with new seeds (columns).
        A stack of shape ``(..., n_objects, n_repetitions)`` against the one ``prediction_space``
        gives a result of arrays of shape ``(...)``, as :func:`phi` does.
    prediction_space : array-like of shape (n_train,) or (n_train, n_repetitions)
        Out-of-sample predictions for the training objects (out-of-bag or K-fold), as a
        vector or a matrix that is pooled into one vector; missing values are dropped.
    scale : {"metric", "ordinal", "categorical"} or None, default None
        As in :func:`phi`.
    levels : sequence or None, default None
        As in :func:`phi`.
    confidence_level, object_interval, interval_target, baseline_error
        As in :func:`phi`.

    Returns
    -------
    StabilityResult
        As :func:`phi`, with ``.kind == "psi"``.

    Raises
    ------
    ValueError
        As :func:`phi`.

    Warns
    -----
    PredstabDataWarning, PredstabDegenerateWarning, PredstabUndefinedWarning
        As :func:`phi`.

    Notes
    -----
    {definition}

    **Difference from APS.** A category (or ordinal level) predicted for a test object but
    absent from the prediction space has share 0 in :math:`D_e` and is counted in
    :math:`D_o`; APS 1.0.1 raises "Some prediction values do not occur in the training data".
    This is the rare-class case of the APS paper: the out-of-bag baseline never predicts the
    rare class while a small test forest does. Such categories are listed in
    ``.absent_from_baseline``. :func:`phi` keeps APS's error: a class the training data do not
    contain cannot be a prediction of a model fitted to them, so it signals a data error.

    Confidence intervals (``confidence_interval``, ``per_object_low`` / ``per_object_high``)
    are those of :func:`phi` (targets and assumptions there).

    Matches ``APS::calculate_psi``; see validation/aps.

    References
    ----------
    .. [1] Lange, T. M., Schmitt, A. O. & Heinrich, F. (2025). Assessing prediction stability
       of non-deterministic models. BMC Bioinformatics. https://doi.org/10.1186/s12859-025-06097-1

    Examples
    --------
    >>> import predstab
    >>> refits = [["a", "a", "a", "b", "a"], ["b", "b", "b", "b", "b"]]
    >>> oob = [["a", "b"], ["b", "b"], ["a", "a"], ["b", "a"]]
    >>> res = predstab.psi(refits, oob)
    >>> round(res.value, 4), res.scale, res.levels
    (0.6, 'categorical', ('a', 'b'))
    """
    if is_stack(predictions):  # (..., n_objects, n_refits) against one prediction_space
        return _stacked(psi, predictions, prediction_space, "prediction_space", scale=scale, levels=levels,
                        confidence_level=confidence_level, object_interval=object_interval,
                        interval_target=interval_target, baseline_error=baseline_error)
    return _stability("psi", *_psi_iv(predictions, prediction_space, scale, levels),
                      confidence_level=confidence_level, object_interval=object_interval,
                      interval_target=interval_target, baseline_error=baseline_error)


psi.__doc__ = psi.__doc__.replace("{definition}", _DOC_DEFINITION.strip())


def _psi_iv(predictions, prediction_space, scale, levels):
    return predictions, prediction_space, scale, levels, _Names("predictions", "prediction_space", "levels")


@validate_params({"scale": [Options(_SCALES)], "ordinal_levels": ["array-like", None],
                  "confidence_level": [Interval(Real, 0, 1, closed="neither")],
                  "object_interval": [Options(_METRIC_METHODS)], "interval_target": [Options(_TARGETS)],
                  "baseline_error": ["boolean"]})
def calculate_phi(prediction_matrix, training_observations, scale="metric", ordinal_levels=None, *,
                  confidence_level=0.95, object_interval="auto", interval_target="population",
                  baseline_error=False):
    """APS's ``calculate_phi`` with its argument names and default ``scale="metric"``.

    For people porting R code; the same computation and result as :func:`phi`. As in
    APS, `ordinal_levels` is only used with ``scale="ordinal"``.

    Parameters
    ----------
    prediction_matrix : array-like of shape (n_objects, n_repetitions)
        Predictions from repeated fits.
    training_observations : array-like of shape (n_train,) or (n_train, k)
        Observed training responses.
    scale : {"metric", "ordinal", "categorical"}, default "metric"
        Scale of the predictions.
    ordinal_levels : sequence or None, default None
        Ordinal levels from lowest to highest.
    confidence_level, object_interval, interval_target, baseline_error
        As in :func:`phi`.

    Returns
    -------
    StabilityResult

    Matches ``APS::calculate_phi``; see validation/aps.

    Examples
    --------
    >>> import predstab
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")  # fewer than 5 repetitions
    ...     res = predstab.calculate_phi([[1.0, 1.2, 0.9], [2.0, 2.1, 2.2]], [0.5, 1.5, 2.5, 3.5])
    >>> round(res.value, 4)
    0.99
    """
    return _stability("phi", *_calculate_phi_iv(prediction_matrix, training_observations, scale,
                                                ordinal_levels), confidence_level=confidence_level,
                      object_interval=object_interval, interval_target=interval_target,
                      baseline_error=baseline_error)


def _calculate_phi_iv(prediction_matrix, training_observations, scale, ordinal_levels):
    if scale != "ordinal":
        ordinal_levels = None  # APS ignores them on the other scales
    return (prediction_matrix, training_observations, scale, ordinal_levels,
            _Names("prediction_matrix", "training_observations", "ordinal_levels"))


@validate_params({"scale": [Options(_SCALES)], "ordinal_levels": ["array-like", None],
                  "confidence_level": [Interval(Real, 0, 1, closed="neither")],
                  "object_interval": [Options(_METRIC_METHODS)], "interval_target": [Options(_TARGETS)],
                  "baseline_error": ["boolean"]})
def calculate_psi(prediction_matrix, prediction_space, scale="metric", ordinal_levels=None, *,
                  confidence_level=0.95, object_interval="auto", interval_target="population",
                  baseline_error=False):
    """APS's ``calculate_psi`` with its argument names and default ``scale="metric"``.

    For people porting R code; the same computation and result as :func:`psi`.

    Parameters
    ----------
    prediction_matrix : array-like of shape (n_objects, n_repetitions)
        Predictions from repeated fits.
    prediction_space : array-like of shape (n_train,) or (n_train, n_repetitions)
        Out-of-sample predictions for the training objects, pooled into one vector.
    scale : {"metric", "ordinal", "categorical"}, default "metric"
        Scale of the predictions.
    ordinal_levels : sequence or None, default None
        Ordinal levels from lowest to highest.
    confidence_level, object_interval, interval_target, baseline_error
        As in :func:`phi`.

    Returns
    -------
    StabilityResult

    Matches ``APS::calculate_psi``; see validation/aps.

    Examples
    --------
    >>> import predstab
    >>> res = predstab.calculate_psi([["L1", "L2", "L2", "L2", "L2"]], ["L1", "L2", "L3", "L3"],
    ...                              scale="ordinal", ordinal_levels=["L1", "L2", "L3"])
    >>> round(res.value, 4)
    0.8222
    """
    return _stability("psi", *_calculate_psi_iv(prediction_matrix, prediction_space, scale, ordinal_levels),
                      confidence_level=confidence_level, object_interval=object_interval,
                      interval_target=interval_target, baseline_error=baseline_error)


def _calculate_psi_iv(prediction_matrix, prediction_space, scale, ordinal_levels):
    if scale != "ordinal":
        ordinal_levels = None
    return (prediction_matrix, prediction_space, scale, ordinal_levels,
            _Names("prediction_matrix", "prediction_space", "ordinal_levels"))
