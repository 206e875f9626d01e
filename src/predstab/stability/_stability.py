"""APS prediction stability: data-based phi and model-based psi.

A prediction matrix holds N objects (rows) by R repetitions (columns: refits of a
non-deterministic model with new seeds). Its stability is ``S = 1 - D_o / D_e``:
the observed instability ``D_o`` (disagreement between the repetitions of each
object, averaged over objects) relative to the instability ``D_e`` expected from a
baseline: the training responses (phi) or out-of-sample predictions for the
training objects (psi). The definitions are those of APS 1.0.1 (Lange, Schmitt &
Heinrich 2025); ``validation/aps`` checks every reference case to 1e-12.

This module reads and checks the inputs (APS's checks and phrases), runs the engine
(:func:`_stability`: the disagreements of :mod:`._disagreement`, the intervals of
:mod:`._object_intervals` and :mod:`._overall_interval`) and holds the public functions.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from numbers import Real

import numpy as np

from .._core._convention import one_minus_ratio, one_minus_ratio_array
from .._core._docstrings import fill_doc
from .._core._exceptions import PredstabDataWarning, warn_outside
from .._core._ratings import scaling_shift
from .._core._stack import is_stack, stack_apply
from .._core._utils import ConfidenceInterval
from .._core._validation import Interval, Options, validate_params
from ._disagreement import (
    _absent_mapper,
    _baseline_vector,
    _category_space,
    _expected_metric,
    _metric_array,
    _observed_categorical,
    _observed_metric,
    _ordinal_delta2,
    _pair_weights,
    _sorted_order,
)
from ._object_intervals import (
    _BONETT_WARN_EXCESS,
    _METHOD_NAMES,
    _METRIC_METHODS,
    _POOLED_WARN_EXCESS,
    _baseline_variance,
    _class_object_intervals,
    _metric_label,
    _metric_object_intervals,
    _ordinal_baseline_variance_of_s,
    _refit_variances,
    _to_stability,
)
from ._overall_interval import _overall_interval, _OverallInputs
from ._result import StabilityResult
from ._scales import _PHI_NAMES, _PSI_NAMES, _Names, _stability_iv

__all__ = ["phi", "psi", "calculate_phi", "calculate_psi", "StabilityResult"]

_SCALES = ("metric", "ordinal", "categorical")
_TARGETS = ("objects", "population")


# --------------------------------------------------------------------------- engine


@dataclass(frozen=True)
class _Options:
    """The options every entry point passes to the engine (validated by its declaration)."""

    scale: str | None
    categories: object = None
    confidence_level: float = 0.95
    object_interval: str = "auto"
    interval_target: str = "population"
    baseline_error: bool = False


@dataclass
class _Parts:
    """What one scale's engine hands to the common part: ``D_e``, the ``D_o,i`` with their
    per-object interval bounds, and what the overall interval and the result need."""

    d_e: float
    d_o_i: np.ndarray
    count: np.ndarray
    d_low: np.ndarray
    d_high: np.ndarray
    method: str
    info: dict = dataclasses.field(default_factory=lambda: {"kurtosis": float("nan"), "heavy": 0, "note": ""})
    categories: list | None = None
    row: np.ndarray | None = None  # a single object's values (codes) for the bootstrap over refits
    delta2: np.ndarray | None = None
    table: object = None  # (objects x categories) counts, dense or CSR
    moments: np.ndarray | None = None
    base_counts: np.ndarray | None = None
    x_base: np.ndarray | None = None
    absent: tuple = ()
    shift: int = 0
    distinct: tuple | None = None  # (first, inverse) of the distinct vote tables (classes)


def _metric_parts(pred, base, names, options):
    """The metric engine: sample variances of the refits and of the baseline."""
    x_base, x_pred = _metric_array(base, baseline=True), _metric_array(pred)
    # phi / psi are scale invariant: data beyond ~1e30 in magnitude are rescaled by one exact power
    # of four (their variances overflowed at 1e155, underflowed at 1e-155); D_o, D_e scaled back below
    shift = scaling_shift(x_base, x_pred)
    if shift:
        x_base, x_pred = np.ldexp(x_base, shift), np.ldexp(x_pred, shift)
    d_e = _expected_metric(x_base, names.baseline)
    d_o_i, count, x, moments = _observed_metric(x_pred, names.predictions)
    row = x[0][~np.isnan(x[0])] if pred.array.shape[0] == 1 else None
    method = "pooled" if options.object_interval in ("auto", "checked") else options.object_interval
    d_low, d_high, info = _metric_object_intervals(d_o_i, count, options.confidence_level, method, x, moments,
                                                   check_shapes=options.object_interval == "checked")
    method, info["note"] = _metric_label(method, info, count)  # the name of what was computed
    return _Parts(d_e=d_e, d_o_i=d_o_i, count=count, d_low=d_low, d_high=d_high, method=method, info=info,
                  row=row, moments=moments, x_base=x_base, shift=shift)


def _class_parts(kind, pred, base, scale, categories, names, confidence_level):
    """The categorical and ordinal engine: vote counts of the refits and the baseline's shares."""
    categories, base_counts, b_uniques, base_to_category = _category_space(base, scale, categories, names)
    n = base_counts.sum()
    delta2 = None
    if scale == "ordinal":
        delta2 = _ordinal_delta2(base_counts)
        p = base_counts / n
        d_e = float(p @ delta2 @ p)
    else:
        p = base_counts / n
        d_e = float(1.0 - np.sum(p * p))  # exactly 0 for one class: 1 - 1.0
    categories = list(categories)
    extend = _absent_mapper(scale, categories, names) if kind == "psi" else None
    d_o_i, count, table, distinct = _observed_categorical(pred, b_uniques, base_to_category, len(categories),
                                                delta2, names, absent_to_category=extend)
    absent = ()
    if scale == "categorical" and len(categories) > len(base_counts):
        # predicted categories absent from the baseline (psi): share 0 in D_e, sorted in
        absent = tuple(categories[len(base_counts):])
        order = _sorted_order(np.array(categories, dtype=object))
        categories = [categories[j] for j in order]
        table = table[:, order]
    row = None
    if pred.array.shape[0] == 1:
        first_row = np.asarray(table[0].toarray() if hasattr(table, "toarray") else table[0]).ravel()
        row = np.repeat(np.arange(len(categories)), first_row)
    # ``distinct``: the distinct vote tables (dense tables), found once for D_o,i, the per-object
    # intervals and the refit variances
    d_low, d_high = _class_object_intervals(table, count, delta2, confidence_level, distinct=distinct)
    return _Parts(d_e=d_e, d_o_i=d_o_i, count=count, d_low=d_low, d_high=d_high, method="classes",
                  categories=categories, row=row, delta2=delta2, table=table, base_counts=base_counts,
                  absent=absent, distinct=distinct)


def _object_bounds(parts, kept, scale):
    """``(per_object_low, per_object_high)``: each object's interval of stability from its interval
    of ``D_o,i``, extended to contain ``D_o,i``. What is no longer needed is let go as it goes
    (issue 33: each is an array of the objects, 0.01x the input at 100 refits): the upper bounds
    of ``D_o,i`` once mapped, the lower ones too where the overall interval does not read them
    (``object_low``: classes only)."""
    d_o_i, d_e = parts.d_o_i, parts.d_e
    parts.d_high = np.where(kept, np.maximum(parts.d_high, d_o_i), np.nan)
    per_low = _to_stability(parts.d_high, d_e)
    parts.d_high = None
    parts.d_low = np.where(kept, np.minimum(parts.d_low, d_o_i), np.nan)
    per_high = _to_stability(parts.d_low, d_e)
    if scale == "metric":
        parts.d_low = None
    return per_low, per_high


def _confidence_interval(parts, kept, value, per_low, per_high, scale, options):
    """``confidence_interval``: the overall interval for several objects (containing ``value``),
    the object's own for one, NaN without expected disagreement."""
    if not parts.d_e > 0:
        return ConfidenceInterval(np.nan, np.nan)
    if kept.sum() < 2:
        j = int(np.flatnonzero(kept)[0])
        return ConfidenceInterval(float(per_low[j]), float(per_high[j]))
    base_var_d_e = base_var_s = None
    # the refit noise of each D_o,i: the variance of the "objects" target, the least of "population"'s
    refit_var = _refit_variances(parts.d_o_i, parts.count, moments=parts.moments, table=parts.table,
                                 delta2=parts.delta2, distinct=parts.distinct)
    parts.moments = None  # the sums of fourth powers: read by the refit variances only
    if options.baseline_error:
        if scale == "ordinal":
            base_var_s = _ordinal_baseline_variance_of_s(parts.base_counts,
                                                         _pair_weights(parts.table, parts.count, kept))
        else:
            base_var_d_e = _baseline_variance(parts.x_base if scale == "metric" else None, scale,
                                              parts.base_counts, parts.delta2)
    n_categories = None if scale == "metric" else len(parts.categories)
    inputs = _OverallInputs(d_o_i=parts.d_o_i, count=parts.count, d_e=parts.d_e, scale=scale,
                            delta2=parts.delta2, n_categories=n_categories, object_low=parts.d_low,
                            refit_var=refit_var, base_var_d_e=base_var_d_e, base_var_s=base_var_s)
    notes = []
    interval = _overall_interval(inputs, options.confidence_level, target=options.interval_target,
                                 baseline_error=options.baseline_error, notes=notes)
    parts.info["note"] = " ".join([parts.info["note"], *notes]).strip()
    return ConfidenceInterval(min(interval.low, value), max(interval.high, value))


def _stability(kind, predictions, baseline, names, options):
    """The computation behind every entry point: ``S = 1 - D_o / D_e``, its parts and intervals."""
    pred, base, scale, categories = _stability_iv(predictions, baseline, options.scale, options.categories,
                                                  names)
    base = _baseline_vector(base, names.baseline)
    if scale == "metric":
        parts = _metric_parts(pred, base, names, options)
    else:
        parts = _class_parts(kind, pred, base, scale, categories, names, options.confidence_level)
    d_o_i, d_e = parts.d_o_i, parts.d_e
    kept = ~np.isnan(d_o_i)
    if not kept.any():
        raise ValueError(
            f"`{names.predictions}` has no object with at least two non-missing predictions; "
            "stability cannot be computed."
        )
    if not kept.all():
        dropped = np.flatnonzero(~kept)
        shown = ", ".join(map(str, dropped[:10])) + (" ..." if dropped.size > 10 else "")
        warn_outside(
            f"{dropped.size} row(s) of `{names.predictions}` are excluded from the stability calculation "
            f"as they have fewer than two non-missing values (0-based rows {shown}).", PredstabDataWarning)
    if np.all(d_o_i[kept] == 0):
        warn_outside("Predictions are identical across repetitions for all objects.", PredstabDataWarning)
    d_o = float(np.mean(d_o_i[kept]))
    value = one_minus_ratio(d_o, d_e, name="prediction stability", what="instability")
    per_object = one_minus_ratio_array(d_o_i, d_e)
    _warn_shape(parts.method, parts.info, names)
    # every interval contains its own estimate: the unbiased D_o,i of classes can lie above the
    # range of the plug-in disagreement (and Bonett's interval need not contain s^2)
    per_low, per_high = _object_bounds(parts, kept, scale)
    interval = _confidence_interval(parts, kept, value, per_low, per_high, scale, options)
    scaled = None
    if parts.shift:  # metric data rescaled: the parts in the data's units (inf beyond the float range)
        scaled = (d_o_i, d_e)  # the single object's row stays scaled: the bootstrap's variances need it
        with np.errstate(over="ignore"):
            d_o, d_e = float(np.ldexp(d_o, -2 * parts.shift)), float(np.ldexp(d_e, -2 * parts.shift))
            d_o_i = np.ldexp(d_o_i, -2 * parts.shift)
    several = bool(kept.sum() >= 2)
    outliers = parts.info.get("outliers")  # None: not checked (object_interval="checked" checks)
    return StabilityResult(
        value=value, observed=d_o, expected=d_e, confidence_interval=interval,
        confidence_level=float(options.confidence_level), per_object=per_object, per_object_observed=d_o_i,
        per_object_low=per_low, per_object_high=per_high, kind=kind, scale=scale,
        categories=None if parts.categories is None else tuple(parts.categories),
        n_objects=int(pred.array.shape[0]), n_replicates=int(pred.array.shape[1]),
        absent_from_baseline=parts.absent, interval_method=_METHOD_NAMES[parts.method],
        interval_target=options.interval_target if several else "object",
        interval_baseline_error=bool(options.baseline_error and several),
        refit_kurtosis=parts.info["kurtosis"], interval_note=parts.info["note"],
        n_shape_outliers=None if outliers is None else int(np.sum(outliers)),
        per_object_shape_outlier=outliers,
        per_object_count=parts.count, object_labels=pred.labels,
        _row=parts.row, _delta2=parts.delta2, _scaled=scaled,
    )


def _warn_shape(method, info, names):
    """A ``PredstabDataWarning`` where the refits' shape is beyond what the coverage study covers."""
    if method == "pooled" and info["heavy"]:  # "checked" is "pooled" by now
        warn_outside(
            f"The refits in `{names.predictions}` are heavy-tailed (pooled excess kurtosis "
            f"{info['kurtosis']:.3g} > {_POOLED_WARN_EXCESS:g}); the per-object intervals may cover less "
            "than the nominal level (`interval_note`; docs/benchmarks/coverage.md); "
            "object_interval=\"checked\" flags the objects far from the pooled shape.", PredstabDataWarning)
    if info.get("outliers") is not None and info["outliers"].any():
        warn_outside(
            f"{int(info['outliers'].sum())} object(s) of `{names.predictions}` have refits far "
            "heavier-tailed than the shape pooled over the objects, which the per-object intervals assume; "
            "their intervals may cover well below the nominal level (`per_object_shape_outlier`, "
            "`interval_note`).",
            PredstabDataWarning)
    if method == "bonett" and info["heavy"]:
        warn_outside(
            f"The refits in `{names.predictions}` are heavy-tailed (excess kurtosis estimate "
            f"> {_BONETT_WARN_EXCESS:g}); the interval (Bonett) may cover less than "
            "the nominal level: about 0.90 at 20 refits for gamma- or t5-shaped refits, less for "
            "skewed heavy tails (docs/benchmarks/coverage.md).", PredstabDataWarning)


def _stacked(func, predictions, baseline, name, options):
    """phi / psi of every item of a stack of prediction matrices against one shared baseline
    (``predstab._core._stack``: a result of arrays, equal to a loop over the items)."""
    if is_stack(baseline):
        raise ValueError(
            f"A stack of `predictions` is measured against one shared `{name}` (the training "
            f"responses or out-of-sample predictions of one model); got a stack of shape "
            f"{np.shape(baseline)}. Loop over the items for one baseline each.")
    return stack_apply(lambda item, **kwargs: func(item, baseline, **kwargs), predictions,
                       name="predictions", **options)


# --------------------------------------------------------------------------- public API
# numpydoc pieces written once (``%(name)s`` lines, predstab._core._docstrings.fill_doc)

_DOCS = {
    "definition": r"""
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
otherwise (``PredstabUndefinedWarning``).""",
    "scale": """
scale : {"metric", "ordinal", "categorical"} or None, default None
    None infers it: float -> metric; text, booleans or an unordered pandas Categorical ->
    categorical; an ordered Categorical -> ordinal with its categories in order; `categories`
    given -> ordinal. Integers are ambiguous and need an explicit `scale`.""",
    "categories": """
categories : sequence or None, default None
    The ordered categories (ordinal levels) from lowest to highest, numbers or text; required
    for ``scale="ordinal"`` unless the data are an ordered Categorical. (APS's
    ``ordinal_levels``; renamed from ``levels`` in predstab 0.2.0.)""",
    "aps_scale": """
scale : {"metric", "ordinal", "categorical"}, default "metric"
    Scale of the predictions.
ordinal_levels : sequence or None, default None
    Ordinal levels from lowest to highest; used only with ``scale="ordinal"``, as in APS.""",
    "interval_options": """
confidence_level : float, default 0.95
    Level of ``confidence_interval`` and of the per-object intervals.
object_interval : {"auto", "pooled", "checked", "bonett", "chi2"}, default "auto"
    Method of the metric per-object intervals (see :func:`phi`, Notes); ``"auto"`` is
    ``"pooled"``: the kurtosis pooled over the objects (one object: its own), capped so that
    no interval is wider than twice the chi-square interval (``interval_note`` says when).
    ``"checked"``: ``"pooled"`` plus a check of every object's refits against the pooled
    shape (``per_object_shape_outlier``; a Monte Carlo null that costs up to a few times
    ``phi``'s own time on small calls, so it is not the default).
    Classes always use Clopper-Pearson.
interval_target : {"population", "objects"}, default "population"
    Target of ``confidence_interval`` with several objects: the population of objects, or
    these objects (see :func:`phi`, Notes).
baseline_error : bool, default False
    Include the sampling error of ``D_e`` (from the training responses or the prediction
    space) in ``confidence_interval``.""",
    "warns": """
PredstabDataWarning
    Fewer than 5 repetitions; missing values (count and %); objects dropped; all
    repetitions identical.
PredstabDegenerateWarning
    ``D_e = 0`` and ``D_o = 0``: the stability is set to 1.
PredstabUndefinedWarning
    ``D_e = 0`` and ``D_o > 0``: the stability is NaN.""",
    "aps_returns": """
Returns
-------
StabilityResult

References
----------
.. [1] Lange, T. M., Schmitt, A. O. & Heinrich, F. (2025). Assessing prediction stability
   of non-deterministic models. BMC Bioinformatics. https://doi.org/10.1186/s12859-025-06097-1""",
    "aps_reference": """
.. [1] Lange, T. M., Schmitt, A. O. & Heinrich, F. (2025). Assessing prediction stability
   of non-deterministic models. BMC Bioinformatics. https://doi.org/10.1186/s12859-025-06097-1""",
}

_DECLARED = {"confidence_level": [Interval(Real, 0, 1, closed="neither")],
             "object_interval": [Options(_METRIC_METHODS)], "interval_target": [Options(_TARGETS)],
             "baseline_error": ["boolean"]}


@validate_params({"scale": [Options(_SCALES), None], "categories": ["array-like", None], **_DECLARED},
                 renamed={"levels": "categories"})
@fill_doc(**_DOCS)
def phi(predictions, training_observations, /, *, scale=None, categories=None,
        confidence_level=0.95, object_interval="auto", interval_target="population",
        baseline_error=False) -> StabilityResult:
    r"""Data-based prediction stability phi: refit-to-refit instability against the training data.

    Parameters
    ----------
    predictions : array-like of shape (n_objects, n_replicates)
        Predictions for the test objects (rows) from repeated fits with new seeds (columns).
        A single object (shape ``(1, R)``) is valid. Missing values (None, NaN, pd.NA) are dropped.
        A stack of shape ``(..., n_objects, n_replicates)`` (a Dask array too), measured against
        the one ``training_observations``, gives one result whose numbers are arrays of shape
        ``(...)``, as a loop over the matrices would (``predstab._core._stack``).
    training_observations : array-like of shape (n_train,) or (n_train, k)
        The observed responses of the training data; a matrix is pooled into one vector.
    %(scale)s
    %(categories)s
    %(interval_options)s

    Returns
    -------
    StabilityResult
        ``.value`` (phi), ``.observed`` (D_o), ``.expected`` (D_e), ``.per_object``,
        ``.per_object_observed``, ``.kind == "phi"``, ``.scale``, ``.categories``; ``str()``
        prints APS's layout.

    Raises
    ------
    ValueError
        Fewer than two repetitions, no objects, a prediction value absent from the training
        data, a training value absent from `categories`, fewer than two training values, text
        on the metric scale, or numbers against text.

    Warns
    -----
    %(warns)s

    Notes
    -----
    %(definition)s

    **Confidence intervals.** Every interval contains its own estimate; coverage is measured
    in docs/benchmarks/coverage.md.

    *Per object* (``per_object_low`` / ``per_object_high``, and ``confidence_interval`` of a
    one-object result): target :math:`S_i = 1 - \theta_i / D_e`, :math:`\theta_i` the
    expected disagreement of two refits of object :math:`i`, :math:`D_e` fixed; refits
    independent. Metric, by ``object_interval``:

    - ``"pooled"`` (``"auto"``): the refits of all objects are assumed to share one shape
      (location and scale free). Their excess kurtosis
      :math:`\hat\kappa = \sum_i k_{4,i} / \sum_i \widehat{\sigma^4_i}` (Fisher's unbiased
      :math:`k_4`, and :math:`(k_2^2 - k_4/R)(R-1)/(R+1)`, over the objects with at least 4
      refits; ``refit_kurtosis``) plus twice its standard error :math:`\sqrt{24/M}` (:math:`M`
      refits; few refits understate heavy tails), at least 0, gives Satterthwaite's
      :math:`\nu_i = 2 / (2/(R_i-1) + \kappa/R_i)` and :math:`\nu_i D_{o,i} / \chi^2_{\nu_i}`.
      The upper end of the variance uses :math:`1.3\kappa` (the scaled chi-square matches the
      variance of :math:`s^2`, not its skewness), capped where it lies twice the chi-square
      interval's width above 0: no interval is wider than 2 x the chi-square interval, and
      ``interval_note`` says when the estimate exceeds that cap (heavier tails than so few
      refits resolve). With no object of 4 refits (:math:`R = 3`) an excess kurtosis of 6 is
      assumed (``interval_method`` "assumed-kurtosis chi-square"), and the note says so.
      Coverage (docs/benchmarks/coverage.md, issue 34): at least 0.93 at :math:`R = 3-20` for
      normal, gamma(2), t5, lognormal(0.5), mixture and beta-shaped refits in calls of 5-200
      objects, one object alone included; heavier tails may cover less. Warns when
      :math:`\hat\kappa - 2\sqrt{24/M} > 6`. Objects whose refits are far heavier-tailed
      than the pooled shape (their sample kurtosis above the :math:`1 - \alpha/M'` quantile
      of that of as many values drawn from all objects' standardised refits, scale-mixed up to
      the other objects' pooled kurtosis; Bonferroni over the :math:`M'` objects of 4 refits;
      beyond what the capped draws resolve, thousands of objects, the quantile of a Pareto tail
      fitted to their top 5 %)
      are flagged in ``per_object_shape_outlier``, ``interval_note`` and a warning: their
      intervals may cover well below nominal (random forests with t2 noise: worst object
      0.74 at 20 refits). The check fires only when the tails show in the refits drawn. It
      runs with ``object_interval="checked"`` only (its null draws cost up to 5 times ``phi``'s
      own time: 10,000 x 20 refits); otherwise ``per_object_shape_outlier`` is ``None`` (not
      checked), and the heavy-tail warning points to it. By default (no test, no draws:
      from the moments already computed) ``interval_note`` says, when
      :math:`\hat\kappa - 2\sqrt{24/M} > 1` in at least 10 objects of 4 refits, that the
      intervals assume one shape and that heavier-tailed objects cover less, and names the (at
      most 3) objects of largest sample kurtosis above the objects' average; it does not say
      that they are outliers, and an object whose rare extreme refits are missing from the
      draw cannot be named (docs/benchmarks/coverage.md: how often the note comes with the
      worst object's misses).
    - ``"bonett"``: Bonett's (2006) interval from the object's own refits,
      :math:`\exp(\ln(c D_{o,i}) \pm z c \sqrt{(\hat\gamma_4 - (R-3)/R)/(R-1)})`,
      :math:`c = R/(R-z)`, with his trimmed-mean kurtosis times :math:`(R+1)/(R-1)` (a
      small-sample adjustment). Coverage about 0.90-0.93 at 20 refits for gamma(2)- or
      t5-shaped refits, 0.90 for lognormal(0.5); 0.96 for normal refits. Fewer than 6 refits:
      the chi-square interval, and ``interval_method`` says "chi-square" (or "Bonett
      (chi-square below 6 refits)" when only some objects have fewer). A one-object result
      warns when the kurtosis estimate exceeds 6.
    - ``"chi2"``: :math:`(R_i-1) D_{o,i} / \sigma_i^2 \sim \chi^2_{R_i-1}`, exact for normal
      refits only (0.74-0.87 for skewed or heavy-tailed ones).

    Two categories: the exact Clopper-Pearson interval of the vote share :math:`p`, mapped
    through :math:`\theta = 2\delta^2 p(1-p)` (coverage at least nominal). More categories or
    ordinal levels: the range of :math:`\theta = p'\Delta p` over the Bonferroni
    Clopper-Pearson box of the shares intersected with the simplex (:math:`\theta` is concave
    there: minimum at a vertex, maximum at a stationary point of a face, both enumerated
    exactly up to 6 categories; beyond, the box alone, with the lower end of the Gini
    disagreement at least :math:`1 - \max \sum_c p_c U_c` over the box on the simplex, a linear
    programme). Coverage at least nominal
    (Bonferroni). The unbiased :math:`D_{o,i}` can exceed every plug-in disagreement of the
    set; the interval then extends to it.

    *Several objects* (``confidence_interval``), by ``interval_target``:

    - ``"population"`` (default): the mean :math:`1 - E[\theta_i]/D_e` over the population the
      objects are a random sample of (assumed: independent objects). The mean of the
      :math:`D_{o,i}` as a scaled chi-square (gamma) with its mean and variance
      :math:`s^2_{D_o}/N'`, widened by :math:`(t_{N'-1}/z)^2`: right-skewed like the
      :math:`D_{o,i}`; metric data: united with the bootstrap-t (studentized bootstrap over the
      objects, 999 resamples from a fixed seed, :math:`N' \le 500`; a lower end cut at 0 is
      left out), and from :math:`N' \ge 5` the upper end of :math:`D_o` at least the gamma
      form's at :math:`\alpha/4` (the mean of strongly right-skewed :math:`D_{o,i}` falls short
      of its upper quantile). The variance of the mean is at least the refits' own noise
      :math:`\sum_i v_i / N'^2` (objects can agree by chance), and the interval of
      :math:`D_o` at most 3 x the normal-theory width :math:`2 z \sqrt{\mathrm{var}}`;
      ``interval_note`` says when it is wider than 2 x that (few or skewed objects). About
      0.94-0.96 at :math:`N' = 3-100` when the objects' variances are lognormal(1)
      (docs/benchmarks/coverage.md).
    - ``"objects"``: the mean :math:`1 - \bar\theta/D_e` over these objects; only the refit
      noise counts: the same gamma form with variance :math:`\sum_i v_i / N'^2`, :math:`v_i`
      the jackknife variance of :math:`D_{o,i}` over the object's refits, widened by
      :math:`(t_\nu / z)^2` with Satterthwaite's :math:`\nu = (\sum_i v_i)^2 / \sum_i
      v_i^2/(R_i - 1)`. Metric: at most 10 x the normal-theory width :math:`2 z \sqrt{\sum_i
      2 D_{o,i}^2/(R_i + 1)}/N'`; ``interval_note`` says when it is wider than 2 x that (few
      refits, or refits far from normal).

    Classes with objects that never disagreed (:math:`D_{o,i} = 0`; rare instability) get a
    zero-inflated form instead, :math:`\alpha/2` to each factor: ``"population"``: the exact
    Clopper-Pearson interval of the share :math:`k/N'` of disagreeing objects times the gamma
    interval of their mean (capped at the largest disagreement possible with their votes);
    ``"objects"``: the unanimous objects' disagreement at most the exact binomial bound from
    their agreeing disjoint pairs, the disagreeing ones' mean from the gamma form (lower end at
    most the mean of their Clopper-Pearson lower bounds). Conservative: 0.99-1.00 at
    :math:`N' = 10-100` with minority share 0.02 and 5 refits.

    ``baseline_error=True`` adds the sampling error of :math:`D_e` (the baseline is a sample
    independent of the test objects): MOVER (Zou & Donner 2008) for
    :math:`\log D_o - \log D_e`, from the interval of :math:`D_o` above (either target) and
    the gamma form of :math:`D_e` with its delta-method variance
    (:math:`\operatorname{Var}(s^2) = \mu_4/n - \sigma^4 (n-3)/(n(n-1))` (metric),
    :math:`4(\sum p^3 - (\sum p^2)^2)/n` (categories); ordinal: the numerical gradient of
    :math:`S` in the baseline's shares, as :math:`\Delta` depends on them too, symmetric on
    the log scale). The one-sided bound below then uses the lower end of :math:`D_e`.
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
    %(aps_reference)s
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
    options = _Options(scale, categories, confidence_level, object_interval, interval_target, baseline_error)
    if is_stack(predictions):  # (..., n_objects, n_refits) against one training_observations
        return _stacked(phi, predictions, training_observations, "training_observations", _keywords(options))
    return _stability("phi", predictions, training_observations, _PHI_NAMES, options)


def _keywords(options):
    """The public keywords of ``options`` (for the items of a stack)."""
    return {f.name: getattr(options, f.name) for f in dataclasses.fields(options)}


@validate_params({"scale": [Options(_SCALES), None], "categories": ["array-like", None], **_DECLARED},
                 renamed={"levels": "categories"})
@fill_doc(**_DOCS)
def psi(predictions, prediction_space, /, *, scale=None, categories=None,
        confidence_level=0.95, object_interval="auto", interval_target="population",
        baseline_error=False) -> StabilityResult:
    r"""Model-based prediction stability psi: refit-to-refit instability against the model's own spread.

    Parameters
    ----------
    predictions : array-like of shape (n_objects, n_replicates)
        Predictions for the test objects (rows) from repeated fits with new seeds (columns).
        A stack of shape ``(..., n_objects, n_replicates)`` against the one ``prediction_space``
        gives a result of arrays of shape ``(...)``, as :func:`phi` does.
    prediction_space : array-like of shape (n_train,) or (n_train, n_replicates)
        Out-of-sample predictions for the training objects (out-of-bag or K-fold), as a
        vector or a matrix that is pooled into one vector; missing values are dropped.
    %(scale)s
    %(categories)s
    %(interval_options)s

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
    %(warns)s

    Notes
    -----
    %(definition)s

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
    %(aps_reference)s

    Examples
    --------
    >>> import predstab
    >>> refits = [["a", "a", "a", "b", "a"], ["b", "b", "b", "b", "b"]]
    >>> oob = [["a", "b"], ["b", "b"], ["a", "a"], ["b", "a"]]
    >>> res = predstab.psi(refits, oob)
    >>> round(res.value, 4), res.scale, res.categories
    (0.6, 'categorical', ('a', 'b'))
    """
    options = _Options(scale, categories, confidence_level, object_interval, interval_target, baseline_error)
    if is_stack(predictions):  # (..., n_objects, n_refits) against one prediction_space
        return _stacked(psi, predictions, prediction_space, "prediction_space", _keywords(options))
    return _stability("psi", predictions, prediction_space, _PSI_NAMES, options)


def _calculate(kind, prediction_matrix, baseline, options):
    """APS's entry points: its argument names in the messages, ``ordinal_levels`` ignored off the
    ordinal scale (as APS does)."""
    if options.scale != "ordinal":
        options = dataclasses.replace(options, categories=None)
    names = _Names("prediction_matrix", "training_observations" if kind == "phi" else "prediction_space",
                   "ordinal_levels")
    return _stability(kind, prediction_matrix, baseline, names, options)


_APS_DECLARED = {"scale": [Options(_SCALES)], "ordinal_levels": ["array-like", None], **_DECLARED}


@validate_params(_APS_DECLARED)
@fill_doc(**_DOCS)
def calculate_phi(prediction_matrix, training_observations, scale="metric", ordinal_levels=None, *,
                  confidence_level=0.95, object_interval="auto", interval_target="population",
                  baseline_error=False):
    """APS's ``calculate_phi`` with its argument names and default ``scale="metric"``.

    For people porting R code; the same computation and result as :func:`phi`. As in
    APS, `ordinal_levels` is only used with ``scale="ordinal"``. Matches ``APS::calculate_phi``;
    see validation/aps.

    Parameters
    ----------
    prediction_matrix : array-like of shape (n_objects, n_replicates)
        Predictions from repeated fits.
    training_observations : array-like of shape (n_train,) or (n_train, k)
        Observed training responses.
    %(aps_scale)s
    %(interval_options)s

    %(aps_returns)s

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
    return _calculate("phi", prediction_matrix, training_observations, _Options(
        scale, ordinal_levels, confidence_level, object_interval, interval_target, baseline_error))


@validate_params(_APS_DECLARED)
@fill_doc(**_DOCS)
def calculate_psi(prediction_matrix, prediction_space, scale="metric", ordinal_levels=None, *,
                  confidence_level=0.95, object_interval="auto", interval_target="population",
                  baseline_error=False):
    """APS's ``calculate_psi`` with its argument names and default ``scale="metric"``.

    For people porting R code; the same computation and result as :func:`psi`. Matches
    ``APS::calculate_psi``; see validation/aps.

    Parameters
    ----------
    prediction_matrix : array-like of shape (n_objects, n_replicates)
        Predictions from repeated fits.
    prediction_space : array-like of shape (n_train,) or (n_train, n_replicates)
        Out-of-sample predictions for the training objects, pooled into one vector.
    %(aps_scale)s
    %(interval_options)s

    %(aps_returns)s

    Examples
    --------
    >>> import predstab
    >>> res = predstab.calculate_psi([["L1", "L2", "L2", "L2", "L2"]], ["L1", "L2", "L3", "L3"],
    ...                              scale="ordinal", ordinal_levels=["L1", "L2", "L3"])
    >>> round(res.value, 4)
    0.8222
    """
    return _calculate("psi", prediction_matrix, prediction_space, _Options(
        scale, ordinal_levels, confidence_level, object_interval, interval_target, baseline_error))
