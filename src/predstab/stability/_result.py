"""The result of phi and psi: :class:`StabilityResult`, with APS's print and a bootstrap
interval for comparison with the analytic one."""

from __future__ import annotations

from dataclasses import field
from numbers import Integral, Real

import numpy as np
import pandas as pd
from scipy import stats

from .._core._exceptions import PredstabUndefinedWarning, warn_outside
from .._core._results import Result, result
from .._core._utils import ConfidenceInterval, check_rng
from .._core._validation import Interval, InvalidParameterError, Options, validate_params
from ._disagreement import _BLOCK

_DESCRIPTION = {
    "phi": "Data-based prediction stability (phi)",
    "psi": "Model-based prediction stability (psi)",
}


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
    categories : tuple or None
        The categories: the ordinal levels in their order, the categories of the categorical
        scale (sorted), or None (metric).
    n_objects : int
        Rows of the prediction matrix (including dropped ones).
    n_replicates : int
        Columns (repetitions) of the prediction matrix.
    absent_from_baseline : tuple
        psi only: predicted categories that the baseline does not contain (share 0 in ``D_e``).
    interval_method : str
        Method of the per-object intervals, as computed: ``"pooled-kurtosis chi-square"``,
        ``"assumed-kurtosis chi-square"`` (no object with 4 refits), ``"Bonett"``, ``"Bonett
        (chi-square below 6 refits)"``, ``"chi-square"`` (metric; also ``"bonett"`` when no
        object has 6 refits) or ``"Clopper-Pearson"`` (classes).
    interval_target : {"population", "objects", "object"}
        Target of ``confidence_interval``; ``"object"`` for a one-object result.
    interval_baseline_error : bool
        Whether ``confidence_interval`` includes the sampling error of ``D_e``.
    refit_kurtosis : float
        Excess kurtosis of the refits pooled over the objects (metric, ``"pooled"``), else NaN.
    interval_note : str
        What the intervals assume where the data cannot show it, in words: e.g. that so few
        refits cannot resolve the refits' kurtosis, so the per-object intervals use a capped
        (or, below 4 refits, an assumed) kurtosis and may cover less than nominal for heavier
        tails. Empty when there is nothing beyond ``interval_method`` to say.
    n_shape_outliers : int or None
        Objects whose refits are far heavier-tailed than the shape pooled over the objects, which
        the pooled-kurtosis intervals assume (``per_object_shape_outlier``); their intervals may
        cover well below the nominal level. ``None`` where not checked: the check runs with
        ``object_interval="checked"`` (metric data) only.
    per_object_shape_outlier : ndarray of bool, shape (n_objects,), or None
        Per object: its refits' sample kurtosis lies above the ``1 - alpha / M`` quantile of the
        kurtosis of as many values drawn from all ``M`` checked objects' standardised refits
        (``alpha = 1 - confidence_level``; Bonferroni over the objects). Checked for metric
        refits under ``object_interval="checked"`` (the ``"pooled"`` intervals plus this check)
        when at least 3 objects have 4 refits (else all False); ``None`` where not checked.
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
    categories: tuple | None
    n_objects: int
    n_replicates: int
    absent_from_baseline: tuple = ()
    interval_method: str = "chi-square"
    interval_target: str = "population"
    interval_baseline_error: bool = False
    refit_kurtosis: float = float("nan")
    interval_note: str = ""
    n_shape_outliers: int | None = None
    per_object_shape_outlier: np.ndarray | None = field(repr=False, default=None)
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

    _renamed_attributes = {"levels": "categories"}
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
        ``confidence_level``), ``observed_instability`` (``D_o,i``), ``n_predictions``
        (non-missing predictions of the object) and ``shape_outlier`` (refits far heavier-tailed
        than the pooled shape the interval assumes: ``per_object_shape_outlier``; only where
        checked, ``object_interval="checked"``). The index holds
        the row labels of the input DataFrame, or row positions. Dropped objects (NaN) come last.
        """
        if not isinstance(sort, (bool, np.bool_)):
            raise InvalidParameterError(f"`sort` must be True or False; got {sort!r}.")
        index = self.object_labels if self.object_labels is not None else pd.RangeIndex(self.n_objects)
        frame = pd.DataFrame({"stability": self.per_object,
                              "ci_low": self.per_object_low, "ci_high": self.per_object_high,
                              "observed_instability": self.per_object_observed,
                              "n_predictions": self.per_object_count}, index=index)
        if self.per_object_shape_outlier is not None:  # checked (object_interval="checked")
            frame["shape_outlier"] = self.per_object_shape_outlier
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
        by, rng = _bootstrap_interval_iv(self, by, random_state)
        d_o_i, d_e = (self.per_object_observed, self.expected) if self._scaled is None else self._scaled
        if not d_e > 0:
            warn_outside("Expected instability is zero or undefined; no confidence interval.",
                         PredstabUndefinedWarning)
            return ConfidenceInterval(np.nan, np.nan)
        if by == "objects":
            data = d_o_i[~np.isnan(d_o_i)]

            def statistic(d_o, axis=-1):
                return 1.0 - np.mean(d_o, axis=axis) / d_e
            batch = None
        else:  # replicates
            data = self._row
            delta2 = self._delta2
            n_codes = 1 if self.scale == "metric" else len(self.categories)

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
