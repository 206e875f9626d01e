r"""Agreement weights between categories: irrCAC's weight families, as pure functions.

One module for every weighted coefficient (Cohen, Gwet, Brennan-Prediger, Conger, Fleiss,
Krippendorff). Each family is a function of the category values and returns the
:math:`q \times q` matrix :math:`w_{kl}` (1 on the diagonal, full credit; 0 for the most
distant pair), matching irrCAC 1.0's ``identity.weights``, ``linear.weights``,
``quadratic.weights``, ``ordinal.weights``, ``radical.weights``, ``ratio.weights``,
``circular.weights`` and ``bipolar.weights``:

- numeric categories are sorted (ascending) and their values :math:`x_k` are used;
- other categories (strings, ...) are taken in the order given and replaced by their
  positions :math:`x_k = 1, \dots, q` (irrCAC assumes they are already ranked in a
  meaningful order);
- ``ordinal`` always uses positions.

With :math:`d = x_k - x_l`, :math:`x_{\min}`, :math:`x_{\max}` the extreme values:

- identity: :math:`w_{kl} = [k = l]`
- linear: :math:`1 - |d| / |x_{\max} - x_{\min}|`
- quadratic: :math:`1 - d^2 / (x_{\max} - x_{\min})^2`
- radical: :math:`1 - \sqrt{|d|} / \sqrt{|x_{\max} - x_{\min}|}`
- ratio: :math:`1 - \big(d / (x_k + x_l)\big)^2 \big/
  \big((x_{\max}-x_{\min})/(x_{\max}+x_{\min})\big)^2`
- circular: :math:`1 - s_{kl} / \max s`, :math:`s_{kl} = \sin^2(\pi d / U)`,
  :math:`U = x_{\max} - x_{\min} + 1`
- bipolar: :math:`1 - b_{kl} / \max b`,
  :math:`b_{kl} = d^2 / \big((x_k + x_l - 2x_{\min})(2x_{\max} - x_k - x_l)\big)`, :math:`b_{kk} = 0`
- ordinal: :math:`1 - o_{kl} / \max o`, :math:`o_{kl} = \binom{|k - l| + 1}{2}` (positions)

A user matrix (every function taking ``weights`` reads it through :func:`weight_matrix`, so
one rule holds for all of them) must be a matrix of *agreement* weights: finite, every entry
in :math:`[0, 1]`, exactly 1 on the diagonal (a category agrees fully with itself) and
symmetric (the credit for ratings :math:`k, l` does not depend on which rater gave which).
Anything else is an error, with one exception: an asymmetric matrix is accepted by the
coefficients whose formulas depend only on its symmetric part :math:`(W + W^\top)/2` --
Gwet's AC1/AC2, Brennan-Prediger, percent agreement and the weighted Fleiss' kappa and
Krippendorff's alpha count unordered pairs of ratings of one object, so irrCAC's
``*.raw`` / ``*.dist`` functions give the values of the symmetric part (value, variance and
interval alike), and so do they here (``symmetric_part=True``: the matrix used, and reported
as the result's ``weight_matrix``, is :math:`(W + W^\top)/2`). Conger's kappa (whose variance
in irrCAC uses :math:`W` as given) and Cohen's kappa (``psych::cohen.kappa`` uses :math:`W` as
given, so the same two raters got two kappas) refuse it. irrCAC and psych accept any matrix and
give coefficients outside :math:`[-1, 1]` for weights above 1 or below 0 (e.g. Fleiss' kappa
7.92). The R references use the symmetric families only.

With a single category irrCAC's non-identity families are 0/0 (NaN); here every family
gives the 1 x 1 matrix [[1]] (a category agrees with itself), so that a coefficient on data
with one category follows predstab's degenerate-data convention instead of being NaN.

References
----------
.. [1] Gwet, K. L. (2014). Handbook of Inter-Rater Reliability, 4th ed., chapter 3.
   Advanced Analytics, Gaithersburg, MD.
"""

from __future__ import annotations

import numbers

import numpy as np

from .._core._validation import Options

__all__ = ["WEIGHT_FAMILIES", "WEIGHTS_CONSTRAINT", "weight_matrix", "check_weight_matrix", "category_values",
           "is_numeric_categories",
           "identity_weights", "linear_weights",
           "quadratic_weights", "ordinal_weights", "radical_weights", "ratio_weights",
           "circular_weights", "bipolar_weights"]


def is_numeric_categories(categories) -> bool:
    """Whether the categories are numbers (booleans are not: R's ``is.numeric``), weighted by value."""
    arr = np.asarray(categories)
    if arr.dtype.kind in "iuf":
        return True
    if arr.dtype.kind == "O":
        return arr.size > 0 and all(isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_))
                                    for v in arr.tolist())
    return False


def category_values(categories) -> np.ndarray:
    """The values the weight families use: sorted numbers, or positions 1..q otherwise.

    As irrCAC's weight functions: ``sort(categ)`` when ``is.numeric(categ)``, else
    ``1:length(categ)``.

    Examples
    --------
    >>> category_values([3, 1, 2]).tolist(), category_values(["lo", "mid", "hi"]).tolist()
    ([1.0, 2.0, 3.0], [1.0, 2.0, 3.0])
    """
    arr = np.asarray(categories)
    if arr.ndim != 1:
        raise ValueError(f"`categories` must be one-dimensional; got shape {arr.shape}.")
    if is_numeric_categories(arr):
        return np.sort(arr.astype(float))
    return np.arange(1, arr.size + 1, dtype=float)


def _pairs(categories):
    x = category_values(categories)
    return x, x[:, None] - x[None, :]


def identity_weights(categories) -> np.ndarray:
    """Identity weights (unweighted coefficients); irrCAC's ``identity.weights``."""
    return np.eye(np.asarray(categories).size)


def linear_weights(categories) -> np.ndarray:
    """Linear weights :math:`1 - |x_k - x_l| / |x_{max} - x_{min}|`; irrCAC's ``linear.weights``.

    Examples
    --------
    >>> linear_weights([1, 2, 3]).tolist()
    [[1.0, 0.5, 0.0], [0.5, 1.0, 0.5], [0.0, 0.5, 1.0]]
    """
    x, d = _pairs(categories)
    with np.errstate(divide="ignore", invalid="ignore"):
        return 1 - np.abs(d) / np.abs(x.max() - x.min())


def quadratic_weights(categories) -> np.ndarray:
    """Quadratic weights :math:`1 - (x_k - x_l)^2 / (x_{max} - x_{min})^2`; irrCAC's ``quadratic.weights``.

    Examples
    --------
    >>> quadratic_weights([1, 2, 3]).tolist()
    [[1.0, 0.75, 0.0], [0.75, 1.0, 0.75], [0.0, 0.75, 1.0]]
    """
    x, d = _pairs(categories)
    with np.errstate(divide="ignore", invalid="ignore"):
        return 1 - d**2 / (x.max() - x.min()) ** 2


def radical_weights(categories) -> np.ndarray:
    """Radical weights :math:`1 - \\sqrt{|x_k - x_l|} / \\sqrt{|x_{max} - x_{min}|}`;
    irrCAC's ``radical.weights``."""
    x, d = _pairs(categories)
    with np.errstate(divide="ignore", invalid="ignore"):
        return 1 - np.sqrt(np.abs(d)) / np.sqrt(np.abs(x.max() - x.min()))


def ratio_weights(categories) -> np.ndarray:
    """Ratio weights; irrCAC's ``ratio.weights``.

    :math:`1 - ((x_k - x_l)/(x_k + x_l))^2 / ((x_{max} - x_{min})/(x_{max} + x_{min}))^2`
    (meant for positive ratio-scale values; a zero sum gives NaN, as in R).
    """
    x, d = _pairs(categories)
    s = x[:, None] + x[None, :]
    lo, hi = x.min(), x.max()
    with np.errstate(divide="ignore", invalid="ignore"):
        return 1 - (d / s) ** 2 / ((hi - lo) / (hi + lo)) ** 2


def circular_weights(categories) -> np.ndarray:
    """Circular weights :math:`1 - s_{kl}/\\max s`, :math:`s_{kl} = \\sin^2(\\pi (x_k - x_l) / U)`;
    irrCAC's ``circular.weights`` (:math:`U = x_{max} - x_{min} + 1`)."""
    x, d = _pairs(categories)
    u = x.max() - x.min() + 1
    s = np.sin(np.pi * d / u) ** 2
    with np.errstate(divide="ignore", invalid="ignore"):
        return 1 - s / s.max()


def bipolar_weights(categories) -> np.ndarray:
    """Bipolar weights; irrCAC's ``bipolar.weights``.

    :math:`1 - b_{kl}/\\max b` with
    :math:`b_{kl} = (x_k - x_l)^2 / ((x_k + x_l - 2 x_{min})(2 x_{max} - x_k - x_l))`
    off the diagonal, :math:`b_{kk} = 0`.
    """
    x, d = _pairs(categories)
    s = x[:, None] + x[None, :]
    lo, hi = x.min(), x.max()
    with np.errstate(divide="ignore", invalid="ignore"):
        b = d**2 / ((s - 2 * lo) * (2 * hi - s))
        np.fill_diagonal(b, 0.0)
        return 1 - b / b.max()


def ordinal_weights(categories) -> np.ndarray:
    """Ordinal weights :math:`1 - o_{kl}/\\max o`, :math:`o_{kl} = n_{kl}(n_{kl}-1)/2`,
    :math:`n_{kl} = |k-l|+1`; irrCAC's ``ordinal.weights`` (category positions, whatever their values).

    Examples
    --------
    >>> ordinal_weights([1, 2, 3, 4]).round(4).tolist()[0]
    [1.0, 0.8333, 0.5, 0.0]
    """
    q = np.asarray(categories).size
    k = np.arange(1, q + 1, dtype=float)
    n_kl = np.abs(k[:, None] - k[None, :]) + 1
    o = n_kl * (n_kl - 1) / 2
    with np.errstate(divide="ignore", invalid="ignore"):
        return 1 - o / o.max()


WEIGHT_FAMILIES = {
    "identity": identity_weights,
    "unweighted": identity_weights,
    "linear": linear_weights,
    "quadratic": quadratic_weights,
    "ordinal": ordinal_weights,
    "radical": radical_weights,
    "ratio": ratio_weights,
    "circular": circular_weights,
    "bipolar": bipolar_weights,
}

# the declared constraint of every ``weights`` parameter (Cohen, Gwet, Brennan-Prediger, Conger,
# Fleiss, Krippendorff): a family name, a user matrix, or None (unweighted)
WEIGHTS_CONSTRAINT = [None, Options(tuple(WEIGHT_FAMILIES)), "array-like"]
"""Name -> weight function (``"unweighted"`` is irrCAC's name for identity weights)."""


def weight_matrix(weights, categories, *, name="weights", symmetric_part=False) -> np.ndarray:
    """The :math:`q \\times q` weight matrix for ``weights`` over ``categories``.

    A user matrix is checked by :func:`check_weight_matrix` (entries in [0, 1], 1 on the
    diagonal, symmetric; or, with ``symmetric_part``, any such matrix, replaced by its
    symmetric part).

    Parameters
    ----------
    weights : None, str or array-like of shape (q, q)
        None (or ``"unweighted"`` / ``"identity"``) for identity weights, the name of a
        family in :data:`WEIGHT_FAMILIES`, or a user matrix whose rows and columns follow
        the order of ``categories`` (sorted, for numeric categories).
    categories : array-like of shape (q,)
        The categories.
    name : str
        Parameter name used in error messages.
    symmetric_part : bool
        True for a coefficient whose formula depends only on the symmetric part of the
        weights (module docstring): an asymmetric matrix is accepted and its symmetric part
        :math:`(W + W^\\top)/2` returned.

    Returns
    -------
    numpy.ndarray of shape (q, q), float

    Examples
    --------
    >>> weight_matrix("linear", ["a", "b", "c"])[0].tolist()
    [1.0, 0.5, 0.0]
    """
    q = np.asarray(categories).size
    if weights is None:
        return identity_weights(categories)
    if isinstance(weights, str):
        if weights not in WEIGHT_FAMILIES:
            raise ValueError(f"`{name}` must be None, one of {sorted(WEIGHT_FAMILIES)} or a square matrix; "
                             f"got {weights!r}.")
        if q == 1:  # irrCAC: 0/0 = NaN for every family but identity
            return np.ones((1, 1))
        return WEIGHT_FAMILIES[weights](categories)
    try:
        w = np.asarray(weights, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"`{name}` must be None, a weight family name or a numeric square matrix; "
                         f"got {type(weights).__name__}.") from None
    if w.shape != (q, q):
        raise ValueError(f"`{name}` must be a {q} x {q} matrix (one row and column per category); "
                         f"got shape {w.shape}.")
    w = check_weight_matrix(w, name=name, symmetric=not symmetric_part)
    return w if np.array_equal(w, w.T) else (w + w.T) / 2


def check_weight_matrix(w, *, name="weights", symmetric=True) -> np.ndarray:
    """``w`` if it is a matrix of agreement weights, else a ValueError naming ``name``.

    The one rule for a user's weights (module docstring): finite, entries in [0, 1], 1 on
    the diagonal, symmetric (exactly: a matrix computed by a symmetric formula is).

    Examples
    --------
    >>> check_weight_matrix(np.array([[1.0, 0.5], [0.5, 1.0]])).tolist()
    [[1.0, 0.5], [0.5, 1.0]]
    """
    if not np.isfinite(w).all():
        raise ValueError(f"`{name}` must hold finite numbers; got {int((~np.isfinite(w)).sum())} non-finite.")
    outside = (w < 0) | (w > 1)
    if outside.any():
        i, j = np.argwhere(outside)[0]
        raise ValueError(f"`{name}` must hold agreement weights in [0, 1]; got {int(outside.sum())} entries "
                         f"outside, e.g. {float(w[i, j]):g} at [{i}, {j}].")
    diagonal = np.diagonal(w)
    if (diagonal != 1).any():
        i = int(np.flatnonzero(diagonal != 1)[0])
        raise ValueError(f"`{name}` must have 1 on its diagonal (full agreement of a category with itself); "
                         f"got {float(diagonal[i]):g} at [{i}, {i}].")
    if symmetric and not np.array_equal(w, w.T):
        i, j = np.argwhere(w != w.T)[0]
        raise ValueError(f"`{name}` must be symmetric (the same weight for ratings (k, l) and (l, k)) for "
                         f"this coefficient, which would use the asymmetry (Gwet's AC1/AC2, "
                         f"Brennan-Prediger, percent agreement, weighted Fleiss' kappa and Krippendorff's "
                         f"alpha use its symmetric part); got {float(w[i, j]):g} at [{i}, {j}] and "
                         f"{float(w[j, i]):g} at [{j}, {i}].")
    return w
