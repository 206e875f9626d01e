"""numpydoc pieces shared by the agreement functions, written once (filled in by
:func:`predstab._core._docstrings.fill_doc`: a line ``%(name)s`` of a docstring becomes the piece)."""

from __future__ import annotations

import textwrap

from .._core._docstrings import fill_doc

__all__ = ["agreement_doc", "PIECES"]

# the continuation of a ``ratings`` parameter of every function that takes stacks
_STACK = """\
A stack of shape ``(..., n_objects, n_raters)`` (a Dask array too) gives one result whose
numbers are arrays of shape ``(...)``, as a loop over the matrices would."""

PIECES = {
    "stack": _STACK,
    # irr's numeric functions
    "irr_numbers": """\
ratings : array-like of shape (n_objects, n_raters)
    Numbers; objects with a missing rating are dropped, as irr does.""",
    # irr's two-rater tests that also take a ready-made table
    "two_rater_table": """\
ratings : array-like of shape (n_objects, 2), or (C, C) with ``table=True``
    Categories; objects with a missing rating are dropped. With ``table=True``: the C x C
    table of counts itself (rater 1 in rows, categories in their order), as irr also accepts;
    a DataFrame such as ``pd.crosstab`` output gives the categories by its labels.
table : bool, default False
    ``ratings`` is a ready-made C x C table of counts.""",
    # irrCAC's coefficients (percent agreement, AC1/AC2, Brennan-Prediger, Conger)
    "cac_ratings": """\
ratings : array-like of shape (n_objects, n_raters) or (n_objects, n_categories)
    Ratings, objects in rows and raters in columns: numbers, strings or booleans, NaN
    / None for a missing rating (every available rating is used, as irrCAC does).
    Objects with no rating at all are left out with a ``PredstabDataWarning``. With
    ``counts=True``, a table of counts: entry (i, k) is the number of raters who put
    object i in category k (statsmodels' ``aggregate_raters`` layout; irrCAC's
    ``*.dist`` functions).
""" + textwrap.indent(_STACK, "    "),
    "cac_weights": """\
weights : None, str or array-like of shape (q, q), default None
    None (or ``"unweighted"``/``"identity"``) for the unweighted coefficient; one of
    ``"linear"``, ``"quadratic"``, ``"ordinal"``, ``"radical"``, ``"ratio"``,
    ``"circular"``, ``"bipolar"`` (see :mod:`predstab.agreement._weights`); or a matrix whose rows
    and columns follow ``.categories``. Numeric categories are weighted by their
    values, other categories by their positions (1, ..., q) in sorted order (or in the
    order of ``categories``, or of a Categorical's categories). A matrix needs entries in
    [0, 1] and 1 on its diagonal. Percent agreement, AC1/AC2 and Brennan-Prediger
    depend only on its symmetric part :math:`(W + W^\top)/2` (they count unordered pairs
    of ratings), so an asymmetric matrix is accepted, as irrCAC accepts it, and gives
    irrCAC's values: those of the symmetric part, which is used and reported as
    ``.weight_matrix``. Conger's kappa refuses an asymmetric matrix (irrCAC's variance
    of it uses :math:`W` as given).""",
    "cac_options": """\
confidence_level : float, default 0.95
    Level of the confidence interval (irrCAC's ``conflev``).
counts : bool, default False
    Whether ``ratings`` is an (objects x categories) count table. Counts need not be
    whole numbers (weighted counts, as statsmodels' ``fleiss_kappa`` and irrCAC's
    ``*.dist`` accept); they must be finite and non-negative.
categories : array-like, optional
    Raw ratings: every category raters could choose, in their order (irrCAC's
    ``categ.labels``); unused ones count in the chance agreement of AC1 and
    Brennan-Prediger. Count table: the category of each column (irrCAC's ``categ``);
    by default the weights use the positions 1..q, as irrCAC does.""",
    "cac_returns": """\
AgreementCoefficientResult
    ``.value``, ``.standard_error``, ``.confidence_interval``, ``.pvalue``,
    ``.observed`` (``.pa``), ``.expected`` (``.pe``), ``.weight_matrix``, ``.categories``.""",
    "cac_notes": """\
irrCAC rounds ``coeff.val`` and ``coeff.se`` to 5 decimals and the interval to 3;
predstab does not round (validation/ compares both). irrCAC upper-cases and trims text
labels (so ``"a"`` and ``" A"`` are one category); predstab keeps labels as given.
p-values use the t survival function, accurate in the tail where irrCAC's
``2 * (1 - pt(|t|, n - 1))`` rounds to 0. With a single category irrCAC sets
:math:`p_e = 10^{-15}`; predstab returns 1 with a ``PredstabDegenerateWarning`` and a
NaN standard error.""",
    # mean_correlation and mean_spearman
    "mean_correlation_sections": """\
Parameters
----------
ratings : array-like of shape (n_objects, n_raters)
    Numbers; objects with a missing rating are dropped, as irr does.
fisher : bool, default True
    Average the correlations as Fisher z values (perfect correlations left out, as irr does)
    and test the mean with irr's z; False: their plain mean, without a test.

Returns
-------
MeanCorrelationResult
    ``.value``, ``.statistic`` (z), ``.pvalue``, ``.pairwise``, ``.ties``.""",
    # fleiss_kappa and krippendorff_alpha with weights or counts: irrCAC's inference
    "cac_inference": """\
Gwet's standard error (irrCAC 1.0's linearisation, with the variation of chance agreement),
a t-based confidence interval and p-value on ``df`` degrees of freedom (the objects used,
minus 1): irrCAC's ``coeff.se``, ``conf.int`` and ``p.value``.""",
}

# the Parameters, Returns and Notes sections of every irrCAC coefficient
PIECES["cac_sections"] = "\n".join([
    "Parameters", "----------", PIECES["cac_ratings"], PIECES["cac_weights"], PIECES["cac_options"], "",
    "Returns", "-------", PIECES["cac_returns"], "", "Notes", "-----", PIECES["cac_notes"]])

#: ``@agreement_doc`` fills a docstring's ``%(name)s`` lines from :data:`PIECES`.
agreement_doc = fill_doc(**PIECES)
