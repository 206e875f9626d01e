r"""Percent agreement: irr's ``agree`` and ``maxwell``, irrCAC's ``pa.coeff``.

R has two definitions, both kept, named and documented:

- irr's :func:`agree`: the percentage of objects on which *all* raters agree (within
  ``tolerance`` for numbers), objects with a missing rating dropped; Maxwell's RE
  (:func:`maxwell_re`) is its two-rater binary form rescaled to [-1, 1],
  :math:`RE = 2 p_o - 1`, and counts the agreeing objects with the same function;
- irrCAC's :func:`percent_agreement`: the mean over objects of the share of *pairs* of
  ratings that agree, :math:`p_a = \frac{1}{n'}\sum_i \sum_k n_{ik}(n_{ik} - 1) / (r_i(r_i - 1))`,
  every available rating used, with Gwet's standard error (the engine of
  :mod:`predstab.agreement._cac`).

An object counts for ``agree`` exactly when its pairwise share is 1, so the two coincide for
two raters with complete ratings: ``percent_agreement(x).value == agree(x).value / 100
== (maxwell_re(x).value + 1) / 2``. With more raters ``agree`` is the smaller (partial agreement
counts for ``percent_agreement`` only).
"""

from __future__ import annotations

from numbers import Real

import numpy as np

from .._core._gate import check_labels
from .._core._ratings import as_numeric_matrix, as_rating_matrix
from .._core._results import result
from .._core._validation import Interval, validate_params
from ._cac import CAC_PARAMETERS, stack_or_run
from ._common import IrrResult, complete_codes, complete_matrix
from ._docstrings import agreement_doc

__all__ = ["agree", "AgreeResult", "percent_agreement", "maxwell_re", "MaxwellREResult"]


def _unanimous(codes):
    """Whether all raters of each (complete) object gave it the same category."""
    return (codes == codes[:, :1]).all(axis=1)


# --------------------------------------------------------------------------- irr
@result
class AgreeResult(IrrResult):
    """Result of :func:`agree`.

    Attributes
    ----------
    value : float
        Percentage (0-100) of objects on which all raters agree within ``tolerance``.
    tolerance : float
        The tolerance used (0 for non-numeric ratings, as irr sets it).
    n_objects, n_raters : int
    """

    value: float
    tolerance: float
    n_objects: int
    n_raters: int
    _value_name = "%-agree"

    def _method(self):
        return f"Percentage agreement (Tolerance={self.tolerance:g})"


@validate_params({"tolerance": [Interval(Real, 0, None)]})
def agree(ratings, /, *, tolerance=0):
    """Percentage of objects on which all raters agree (within ``tolerance`` for numbers).

    Matches `irr::agree`; see validation/. irrCAC's pairwise definition is
    :func:`percent_agreement` (module text: how the two relate).

    Parameters
    ----------
    ratings : array-like of shape (n_objects, n_raters)
        Numbers, strings or booleans; objects with a missing rating are dropped, as irr does.
    tolerance : float, default 0
        Largest range (max - min) of an object's ratings that still counts as agreement. Ignored
        (set to 0) for non-numeric ratings, as irr does; booleans are not numbers here (R's
        ``is.numeric`` of a logical is FALSE).

    Returns
    -------
    AgreeResult
        ``.value`` in percent.

    Notes
    -----
    irr counts the distinct values of each object with ``apply(ratings, 1, table)``, which R
    simplifies to a matrix when every object has the same number of distinct values; irr then
    reports 100 % (or 200 %) for text ratings where every object has two distinct values.
    predstab counts them correctly.

    Examples
    --------
    >>> from predstab import agree
    >>> agree([[1, 1, 1], [1, 2, 1], [3, 3, 3], [2, 4, 3]]).value
    50.0
    >>> agree([[1, 1, 1], [1, 2, 1], [3, 3, 3], [2, 4, 3]], tolerance=1).value
    75.0
    """
    arr = as_rating_matrix(ratings)
    numeric = arr.dtype.kind in "iuf"
    if arr.dtype.kind == "O":
        try:
            as_numeric_matrix(arr)
            numeric = True
        except TypeError:
            numeric = False
    if numeric:
        x = complete_matrix(arr, "irr::agree", min_objects=1)  # arr read once, above
        agreed = (x.max(axis=1) - x.min(axis=1)) <= tolerance
        if tolerance == 0 and not agreed.any():  # no exact agreement: measurements read as labels?
            check_labels(np.unique(x), x.size, use="a `tolerance` (agree(ratings, tolerance=...)) or icc()")
    else:
        codes, _ = complete_codes(arr, "irr::agree", orientation=False)
        agreed = _unanimous(codes)
        tolerance = 0
    n, m = agreed.shape[0], arr.shape[1]
    return AgreeResult(
        value=100 * float(np.count_nonzero(agreed)) / n, tolerance=float(tolerance), n_objects=n, n_raters=m
    )


@result
class MaxwellREResult(IrrResult):
    """Result of :func:`maxwell_re`: ``.value`` (Maxwell's RE), ``.n_objects``, ``.n_raters``."""

    value: float
    n_objects: int
    n_raters: int
    _value_name = "RE"
    _title = "Maxwell's RE"


@validate_params({})
def maxwell_re(ratings, /):
    r"""Maxwell's random error coefficient for two raters and binary ratings: :math:`RE = 2 p_o - 1`.

    Matches `irr::maxwell`; see validation/. :math:`p_o` is the share of objects on which the
    two raters agree, ``agree(ratings).value / 100``.

    Parameters
    ----------
    ratings : array-like of shape (n_objects, 2)
        Two categories (numbers, strings or booleans); objects with a missing rating are dropped.

    Returns
    -------
    MaxwellREResult

    References
    ----------
    .. [1] Maxwell, A. E. (1977). Coefficients of agreement between observers and their
       interpretation. British Journal of Psychiatry 130, 79-83. https://doi.org/10.1192/bjp.130.1.79

    Examples
    --------
    >>> from predstab import maxwell_re
    >>> maxwell_re([[0, 0], [1, 1], [1, 0], [0, 0]]).value
    0.5
    """
    codes, categories = complete_codes(ratings, "irr::maxwell", n_raters=2)
    if len(categories) > 2:
        raise ValueError(f"`ratings` must be binary (at most 2 categories); got {len(categories)}.")
    n = codes.shape[0]
    agreed = float(np.count_nonzero(_unanimous(codes)))
    return MaxwellREResult(value=2 * agreed / n - 1, n_objects=n, n_raters=2)


# --------------------------------------------------------------------------- irrCAC
@agreement_doc
@validate_params(CAC_PARAMETERS)
def percent_agreement(ratings, /, *, weights=None, confidence_level=0.95, counts=False, categories=None):
    r"""Percent agreement among any number of raters, with irrCAC's standard error.

    Matches `irrCAC::pa.coeff.raw` (and ``pa.coeff.dist`` with ``counts=True``); see validation/.

    .. math::

        p_a = \frac{1}{n'} \sum_{i: r_i \ge 2} \sum_k \frac{n_{ik}(n^\star_{ik} - 1)}{r_i(r_i - 1)},
        \qquad n^\star_{ik} = \sum_l w_{kl} n_{il}

    over the :math:`n'` objects rated at least twice (:math:`r_i` ratings of object i): the
    mean share of agreeing pairs of ratings, where irr's :func:`agree` counts the objects
    on which every rating agrees (module text: how the two relate).

    %(cac_sections)s

    Examples
    --------
    >>> from predstab import percent_agreement
    >>> res = percent_agreement([["a", "a"], ["a", "b"], ["b", "b"], ["c", "c"]])
    >>> res.value, round(res.standard_error, 4)
    (0.75, 0.25)
    """
    return stack_or_run(percent_agreement, "pa", ratings, weights=weights, confidence_level=confidence_level,
                        counts=counts, categories=categories)
