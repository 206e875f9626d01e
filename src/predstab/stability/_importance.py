"""Selection stability and variable-importance stability (optRF's second and third measures).

optRF asks two more questions of refitted forests besides "do the predictions agree?":
whether the same objects end up *selected* (the top fraction of predicted values, or the
objects predicted in a wanted class), and whether the *variable importances* agree. Both
are agreement statistics over an (items x refits) matrix: Fleiss' kappa of the
selected / rejected labels, and ICC(1) of the importances.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from numbers import Real

import numpy as np
import pandas as pd

from .._core._exceptions import warnings_outside
from .._core._ratings import as_rating_matrix
from .._core._results import Result, r_rows, r_signif, result
from .._core._utils import missing_mask
from .._core._validation import Interval, InvalidParameterError, Options, validate_params
from ..agreement._fleiss import fleiss_kappa
from ..agreement._icc import icc

__all__ = ["selection_stability", "importance_stability", "SelectionStabilityResult",
           "ImportanceStabilityResult"]

_SELECT_FOR = ("high", "low", "zero")
# a fraction of the objects (< 1) or a count (>= 1), optRF's `alpha`
_FRACTION = Interval(Real, 0, math.inf, closed="neither")


def _value_of(measure, matrix):
    """``measure(matrix).value``, with its warnings pointing at the caller of the public function."""
    with warnings_outside():
        return float(measure(matrix).value)


def _selection_size(n_items, fraction, name):
    """optRF: ``round(n * alpha)`` for ``alpha < 1`` (R rounds half to even), else ``round(alpha)``."""
    size = round(n_items * fraction) if fraction < 1 else round(fraction)
    if not 1 <= size < n_items:
        raise InvalidParameterError(
            f"`{name}` = {fraction!r} selects {size} of {n_items} items; at least 1 and fewer than all "
            "must be selected."
        )
    return int(size)


def _select_matrix(values, size, select_for):
    """Boolean (items x replicates): selected in each replicate."""
    if select_for == "high":
        keys = -values
    elif select_for == "low":
        keys = values
    elif select_for == "zero":
        keys = np.abs(values)
    else:
        raise ValueError(f"`select_for` must be 'high', 'low', 'zero' or class labels; got {select_for!r}.")
    # R's order() is stable: ties keep the objects' original order
    order = np.argsort(keys, axis=0, kind="stable")[:size]
    selected = np.zeros(values.shape, dtype=bool)
    np.put_along_axis(selected, order, True, axis=0)
    return selected


@result
class SelectionStabilityResult(Result):
    """Result of :func:`selection_stability`.

    ``print(res)`` shows an irr-style block; ``res.to_frame()`` is one row (no confidence interval).

    Attributes
    ----------
    value : float
        Fleiss' kappa of the selected / rejected labels across replicates.
    selected : ndarray of bool, shape (n_items, n_replicates)
        Which items each replicate selected.
    selection_size : int or None
        Items selected per replicate (None when selecting by class).
    """

    value: float
    selected: np.ndarray = dataclasses.field(repr=False)
    selection_size: int | None = None

    _derived_fields = ("n_objects", "n_replicates")

    @property
    def n_objects(self) -> int:
        """Number of objects (rows of ``selected``)."""
        return int(self.selected.shape[0])

    @property
    def n_replicates(self) -> int:
        """Number of replicates (columns of ``selected``)."""
        return int(self.selected.shape[1])

    def _str_lines(self):
        size = "by class" if self.selection_size is None else self.selection_size
        return [" Selection stability (Fleiss' kappa of selected / rejected)", "",
                *r_rows([("Objects", self.n_objects), ("Replicates", self.n_replicates),
                         ("Selected", size), ("Kappa", r_signif(self.value, 3))], width=11)]


def _as_matrix(values, name):
    """``values`` read by the one matrix reader; at least 2 objects (rows) and 2 replicates."""
    arr = as_rating_matrix(values, name=name, nullable_as_float=True)
    if arr.shape[0] < 2:
        raise ValueError(f"`{name}` must have at least 2 objects (rows) to rank; got shape {arr.shape}.")
    return arr


def _selection_stability_iv(predictions, fraction, select_for):
    arr = _as_matrix(predictions, "predictions")
    numeric = arr.dtype.kind in "iuf"
    if numeric and isinstance(select_for, str):
        if select_for not in _SELECT_FOR:
            raise InvalidParameterError(
                f"`select_for` must be 'high', 'low' or 'zero' for numeric predictions; got {select_for!r}."
            )
        values = arr.astype(float)
        if np.isnan(values).any():
            raise ValueError("`predictions` must not contain missing values when ranking.")
        return values, _selection_size(arr.shape[0], fraction, "fraction"), select_for
    # class predictions (optRF: a factor response): select_for names the wanted class(es),
    # even when a class is called "high"
    wanted = [select_for] if np.ndim(select_for) == 0 else list(select_for)
    if not wanted:
        raise InvalidParameterError(f"`select_for` must name at least one class; got {select_for!r}.")
    n_missing = int(missing_mask(arr).sum())
    if n_missing:
        raise ValueError(f"`predictions` must not contain missing values; got {n_missing}.")
    if isinstance(select_for, str) and select_for in _SELECT_FOR and not (arr == select_for).any():
        # the default select_for="high" with class labels: nothing would be selected and kappa be 1
        raise InvalidParameterError(
            f"`select_for`={select_for!r} ranks numeric predictions, but `predictions` holds class labels "
            f"(dtype {arr.dtype}) and none is {select_for!r}; pass the wanted class(es) as `select_for`."
        )
    return arr, None, wanted


@validate_params({"predictions": ["array-like"], "fraction": [_FRACTION],
                  "select_for": [Options(_SELECT_FOR), "array-like", (str, numbers.Number, np.generic)]})
def selection_stability(predictions, /, *, fraction=0.15, select_for="high"):
    """Stability of the selection made from refitted models' predictions (optRF).

    In each replicate (column) the objects are ranked and the top ``fraction`` is
    selected (``select_for="high"``: largest predictions; ``"low"``: smallest;
    ``"zero"``: closest to zero), or, for class predictions (any non-numeric dtype, or
    numeric labels with a non-string ``select_for``), the objects predicted in the
    class(es) ``select_for`` are selected. The selected / rejected labels are compared
    across replicates with Fleiss' kappa:

    .. math:: \\kappa = 1 - \\frac{1 - \\bar P}{1 - \\sum_c \\bar p_c^2}

    Parameters
    ----------
    predictions : array-like of shape (n_objects, n_replicates)
        Predictions of refitted models, objects in rows.
    fraction : float, default 0.15
        Fraction of objects selected (optRF's ``alpha``; the count is
        ``round(n_objects * fraction)`` with R's half-to-even rounding), or a count if >= 1.
    select_for : {"high", "low", "zero"} or class label(s), default "high"

    Returns
    -------
    SelectionStabilityResult
        ``.value`` (Fleiss' kappa), ``.selected``, ``.selection_size``.

    Warns
    -----
    PredstabDegenerateWarning, PredstabUndefinedWarning
        From :func:`predstab.fleiss_kappa` when every object is selected (or rejected) in
        every replicate.

    References
    ----------
    .. [1] Lange, T. M. et al. (2025). optRF: Optimising random forest stability by
       determining the optimal number of trees. BMC Bioinformatics 26, 95.
       https://doi.org/10.1186/s12859-025-06097-1

    Matches optRF 1.2.1's ``selection_stability`` of ``opt_prediction``; see validation/.

    Examples
    --------
    >>> pred = np.array([[5.0, 5.1], [4.0, 3.9], [1.0, 1.2], [0.5, 4.5]])
    >>> res = selection_stability(pred, fraction=0.5)
    >>> res.selection_size, res.selected[:, 0].tolist()
    (2, [True, True, False, False])
    >>> round(res.value, 4)
    0.0
    """
    values, size, select_for = _selection_stability_iv(predictions, fraction, select_for)
    if size is None:
        # compare by value (hashing), not after casting `select_for` to the labels' dtype, which
        # truncates "high" to "h" for one-character labels
        selected = pd.Series(values.ravel()).isin(select_for).to_numpy().reshape(values.shape)
    else:
        selected = _select_matrix(values, size, select_for)
    # kappa of the boolean matrix: the same value as of "selected"/"rejected" labels (a relabelling),
    # without object arrays, whose sort made 1e7 objects take a minute
    return SelectionStabilityResult(value=_value_of(fleiss_kappa, selected), selected=selected,
                                    selection_size=size)


@result
class ImportanceStabilityResult(Result):
    """Result of :func:`importance_stability`.

    ``print(res)`` shows an irr-style block; ``res.to_frame()`` is one row (no confidence interval).

    Attributes
    ----------
    value : float
        ICC(1) of the importances across replicates (optRF's ``VI_stability``).
    selection : float
        Fleiss' kappa of the top-``fraction`` variable selection (optRF's
        ``selection_stability`` of ``opt_importance``).
    selected : ndarray of bool, shape (n_variables, n_replicates)
    selection_size : int
    """

    value: float
    selection: float
    selected: np.ndarray = dataclasses.field(repr=False)
    selection_size: int = 0

    _derived_fields = ("n_variables", "n_replicates")

    @property
    def n_variables(self) -> int:
        """Number of variables (rows of ``selected``)."""
        return int(self.selected.shape[0])

    @property
    def n_replicates(self) -> int:
        """Number of replicates (columns of ``selected``)."""
        return int(self.selected.shape[1])

    def _str_lines(self):
        return [" Variable importance stability (optRF)", "",
                *r_rows([("Variables", self.n_variables), ("Replicates", self.n_replicates),
                         ("ICC(1)", r_signif(self.value, 3)), ("Selected", self.selection_size),
                         ("Kappa", r_signif(self.selection, 3))], width=11)]


def _importance_stability_iv(importances, fraction):
    arr = _as_matrix(importances, "importances")
    if arr.dtype.kind not in "iuf":
        raise TypeError(f"`importances` must be numeric; got dtype {arr.dtype}.")
    arr = arr.astype(float)
    if np.isnan(arr).any():
        raise ValueError("`importances` must not contain missing values.")
    if np.isinf(arr).any():
        n_inf = int(np.isinf(arr).sum())
        raise ValueError(f"`importances` must hold finite values; got {n_inf} infinite value(s).")
    return arr, _selection_size(arr.shape[0], fraction, "fraction")


@validate_params({"importances": ["array-like"], "fraction": [_FRACTION]})
def importance_stability(importances, /, *, fraction=0.05):
    """Stability of variable importances across refitted models (optRF ``opt_importance``).

    ``value`` is the one-way single-rater ICC (``irr::icc`` defaults, as optRF calls it)
    of the importance matrix; ``selection`` is Fleiss' kappa of selecting the top
    ``fraction`` of variables by importance in each replicate.

    .. math:: \\mathrm{ICC}(1) = \\frac{MS_R - MS_W}{MS_R + (k - 1) MS_W}

    Parameters
    ----------
    importances : array-like of shape (n_variables, n_replicates)
        Importances (impurity, permutation, ...) of each variable in each refit.
    fraction : float, default 0.05
        Fraction (or count, if >= 1) of variables selected (optRF's ``alpha``).

    Returns
    -------
    ImportanceStabilityResult
        ``.value``, ``.selection``, ``.selected``, ``.selection_size``.

    References
    ----------
    .. [1] Lange, T. M. et al. (2025). BMC Bioinformatics 26, 95.
       https://doi.org/10.1186/s12859-025-06097-1

    Matches optRF 1.2.1's ``VI_stability`` and ``selection_stability``; see validation/.

    Examples
    --------
    >>> imp = np.array([[0.30, 0.28, 0.31], [0.20, 0.22, 0.19], [0.01, 0.02, 0.00],
    ...                 [0.02, 0.01, 0.03]])
    >>> res = importance_stability(imp, fraction=0.5)
    >>> round(res.value, 3), round(res.selection, 3)
    (0.992, 1.0)
    """
    values, size = _importance_stability_iv(importances, fraction)
    selected = _select_matrix(values, size, "high")
    return ImportanceStabilityResult(
        value=_value_of(icc, values), selection=_value_of(fleiss_kappa, selected),
        selected=selected, selection_size=size,
    )
