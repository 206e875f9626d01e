"""The one registry of the stability measures of a prediction matrix (objects x replicates).

Every part of predstab that takes a measure by name -- :func:`predstab.tune_num_learners`,
:func:`predstab.make_stability_scorer`, :class:`predstab.TreePool` and its closed forms, and
the command line -- reads this registry: the measure's function, the scales of predictions
it takes, the baseline it is measured against, the closed form of its curve over the number
of learners (when it has one), and what its degenerate case means. A name is known here or
nowhere (scikit-learn's ``get_scorer`` / ``get_scorer_names`` pattern).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np

from .._core._convention import one_minus_ratio_array
from .._core._validation import Options, validate_params

__all__ = ["StabilityMeasure", "MEASURES", "measure_names"]

# where a measure is offered: tune_num_learners' measures, make_stability_scorer's, the
# agreement coefficients of `predstab agree` (the measures with a closed form are offered for
# closed forms)
USES = ("tune", "scorer", "agree", "closed_form")
_DEGENERATE = "no disagreement observed and none expected: 0/0, set to 1 by predstab's convention"
_KRIPPENDORFF_SCALE = {"metric": "interval", "ordinal": "ordinal", "categorical": "nominal"}


@dataclass(frozen=True)
class StabilityMeasure:
    """One measure of the stability of an (objects x replicates) matrix.

    Attributes
    ----------
    name : str
        The name every function takes ("icc", "phi", ...).
    title : str
        How prints and warnings name it ("ICC(1)", "Fleiss' kappa", ...).
    source : str
        Where its public function lives, ``"module:function"`` (read by :attr:`function`; the
        registry imports no measure until one is used, so reading names stays cheap).
    scales : tuple of str
        The scales of predictions it takes: "metric" (regression), "categorical" and
        "ordinal" (class labels).
    baseline : {None, "training_observations", "prediction_space"}
        What its expected disagreement is measured from: nothing but the matrix (the
        agreement coefficients), the training responses (phi) or out-of-sample predictions
        (psi). A measure with a baseline holds ``D_e`` fixed, so its value is
        ``1 - mean(D_o,i) / D_e`` over the objects.
    reads : {"predictions", "importances"}
        The matrix it is computed from: predictions, or variable importances (variables x
        replicates).
    attribute : str
        The attribute of the function's result that is the measure's number.
    option_group : str or None
        The option group of :func:`predstab.tune_num_learners` (``selection=`` /
        ``importance=``) its keyword arguments come from.
    uses : frozenset of str
        Where it is offered: "tune", "scorer", "agree" (the measures with a ``closed_form``
        are offered for closed forms).
    closed_form : callable or None
        ``closed_form(stats, d_o, d_e) -> (curve, expected)``: the curve over the number of
        learners from a tree pool's closed-form statistics (``stats["b"]``, the
        between-object variance; ``stats["share"]``, the class shares; ``d_o``, the expected
        observed disagreement at each size; ``d_e``, the baseline's expected disagreement),
        with its expected disagreement at each size; None without a closed form.
    optrf_task : str or None
        "regression" / "classification": optRF's prediction stability for that task (the
        default primary measure of the tuning).
    degenerate : str
        What a degenerate value (0/0, set to 1 by predstab's convention) means for it, as
        the tuning's notes say it.
    """

    name: str
    title: str
    source: str
    scales: tuple
    call: Callable = field(repr=False)
    baseline: str | None = None
    reads: str = "predictions"
    attribute: str = "value"
    option_group: str | None = None
    uses: frozenset = frozenset()
    closed_form: Callable | None = field(default=None, repr=False)
    optrf_task: str | None = None
    degenerate: str = _DEGENERATE

    @property
    def function(self) -> Callable:
        """The public function that computes the measure."""
        module, name = self.source.split(":")
        return getattr(importlib.import_module(module, __package__), name)

    def compute(self, matrix, baseline=None, *, scale=None, categories=None, **options):
        """The function's result for ``matrix`` (and ``baseline``; ``scale`` and ``categories``
        for the measures that read them, the other keywords passed on)."""
        return self.call(self.function, matrix, baseline, scale, categories, options)

    def value(self, matrix, baseline=None, *, scale=None, categories=None, **options) -> float:
        """The measure's number for ``matrix``: ``float(getattr(compute(...), attribute))``."""
        return float(getattr(self.compute(matrix, baseline, scale=scale, categories=categories, **options),
                             self.attribute))


# --------------------------------------------------------------------------- how each is called


def _metric_call(function, matrix, baseline, scale, categories, options):
    return function(np.asarray(matrix).astype(float), **options)


def _matrix_call(function, matrix, baseline, scale, categories, options):
    return function(matrix, **options)


def _krippendorff_call(function, matrix, baseline, scale, categories, options):
    # Krippendorff's own names of the scales (interval for metric data)
    options.setdefault("scale", _KRIPPENDORFF_SCALE[scale])
    if options["scale"] == "ordinal" and categories is not None:
        options.setdefault("categories", categories)
    return function(matrix, **options)


def _baseline_call(function, matrix, baseline, scale, categories, options):
    return function(matrix, baseline, scale=scale, categories=categories, **options)


# --------------------------------------------------------------------------- closed forms


def _icc_curve(stats, d_o, d_e):
    """ICC(1) = B / (B + D_o): ``D_e = B + D_o``, exact also when B is tiny."""
    expected = stats["b"] + d_o
    out = one_minus_ratio_array(d_o, expected)
    pos = expected > 0
    out[pos] = np.broadcast_to(stats["b"], expected.shape)[pos] / expected[pos]  # b: one, or one per row
    return out, expected


def _fleiss_curve(stats, d_o, d_e):
    """Fleiss' kappa: ``D_e = 1 - sum_c share_c**2`` of the forests' class shares."""
    expected = 1.0 - np.sum(stats["share"] ** 2, axis=1)
    return one_minus_ratio_array(d_o, expected), expected


def _baseline_curve(stats, d_o, d_e):
    """phi / psi: the baseline's fixed ``D_e``."""
    expected = np.broadcast_to(np.asarray(d_e, dtype=float), d_o.shape)
    return one_minus_ratio_array(d_o, expected), expected


# --------------------------------------------------------------------------- the registry

_ALL = ("metric", "categorical", "ordinal")
_CLASS_DEGENERATE = ("every forest predicted one class for every object: 0/0, set to 1 by predstab's "
                     "convention")
_ENTRIES = (
    StabilityMeasure(
        name="icc", title="ICC(1)", source="..agreement._icc:icc", scales=("metric",), call=_metric_call,
        uses=frozenset({"tune", "scorer", "agree"}), closed_form=_icc_curve, optrf_task="regression"),
    StabilityMeasure(
        name="fleiss", title="Fleiss' kappa", source="..agreement._fleiss:fleiss_kappa",
        scales=("categorical", "ordinal"), call=_matrix_call, uses=frozenset({"tune", "scorer", "agree"}),
        closed_form=_fleiss_curve, optrf_task="classification",
        degenerate=_CLASS_DEGENERATE + "; irr's kappam.fleiss returns NaN there"),
    StabilityMeasure(
        name="alpha", title="Krippendorff's alpha", source="..agreement._krippendorff:krippendorff_alpha",
        scales=_ALL, call=_krippendorff_call, uses=frozenset({"scorer", "agree"})),
    StabilityMeasure(
        name="phi", title="phi", source="._stability:phi", scales=_ALL, call=_baseline_call,
        baseline="training_observations", uses=frozenset({"tune", "scorer"}), closed_form=_baseline_curve),
    StabilityMeasure(
        name="psi", title="psi", source="._stability:psi", scales=_ALL, call=_baseline_call,
        baseline="prediction_space", uses=frozenset({"tune", "scorer"}), closed_form=_baseline_curve),
    StabilityMeasure(
        name="selection", title="selection stability", source="._importance:selection_stability",
        scales=_ALL, call=_matrix_call, option_group="selection", uses=frozenset({"tune"}),
        degenerate=_CLASS_DEGENERATE),
    StabilityMeasure(
        name="importance", title="importance stability", source="._importance:importance_stability",
        scales=_ALL, call=_matrix_call, reads="importances", option_group="importance",
        uses=frozenset({"tune"})),
    StabilityMeasure(
        name="importance_selection", title="importance selection stability",
        source="._importance:importance_stability", scales=_ALL, call=_matrix_call, reads="importances",
        attribute="selection", option_group="importance", uses=frozenset({"tune"})),
)

MEASURES = MappingProxyType({m.name: m for m in _ENTRIES})
"""``{name: StabilityMeasure}``: every measure predstab takes by name (read-only)."""


@validate_params({"use": [Options(USES), None]})
def measure_names(use=None) -> tuple:
    """The names of the stability measures, in the registry's order.

    Parameters
    ----------
    use : {"tune", "scorer", "agree", "closed_form"}, optional
        Only the measures offered there: :func:`predstab.tune_num_learners`'s ``measures``,
        :func:`predstab.make_stability_scorer`'s ``measure``, the agreement coefficients of
        ``predstab agree``, or the measures with a closed form (:meth:`predstab.TreePool.closed_form`).
        None: every measure.

    Returns
    -------
    tuple of str

    Examples
    --------
    >>> from predstab.stability import measure_names
    >>> measure_names("closed_form")
    ('icc', 'fleiss', 'phi', 'psi')
    """
    return tuple(m.name for m in _ENTRIES if use is None or _offered(m, use))


def _offered(measure, use):
    return measure.closed_form is not None if use == "closed_form" else use in measure.uses


def optrf_measure(*, classifier) -> str:
    """optRF's prediction stability for a classifier ("fleiss") or a regressor ("icc")."""
    task = "classification" if classifier else "regression"
    return next(m.name for m in _ENTRIES if m.optrf_task == task)
