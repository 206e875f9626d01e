"""Registry of every predstab measure, for the common and the property tests.

Each entry says how to call the measure on an (objects x replicates) matrix, which
kind of data it takes, which transformations of the data leave it unchanged, its
documented range, and the two degenerate cases of the shared convention
(``predstab._convention``): all values equal (D_o = D_e = 0 -> 1 with a
``PredstabDegenerateWarning``) and D_e = 0 with D_o > 0 (NaN with a
``PredstabUndefinedWarning``) -- or why a case cannot occur for that measure.

scikit-learn's ``sklearn/utils/estimator_checks.py`` + ``tests/test_common.py`` is the model.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

import predstab

# transformations of the data under which a measure must not change
AFFINE = "affine"  # x -> a x + b, a != 0 (interval data)
INCREASING = "increasing"  # any strictly increasing map (ordinal data, rankings)
SCALE = "scale"  # x -> a x, a > 0 (ratio data)
RELABEL = "relabel"  # any bijection of the categories (nominal data)


@dataclass(frozen=True)
class Measure:
    """How to call one measure on a matrix ``x`` and what it promises.

    ``func(x, baseline, target)`` returns the measure's value. ``baseline`` is the
    baseline vector of phi/psi (None: the pooled values of ``x``, which makes it
    invariant under permutations and transforms along with ``x``); ``target`` the class
    a class-based selection selects (None: category 0 of nominal data).
    """

    name: str
    func: Callable
    kind: str  # "nominal", "ordinal", "interval", "ratio"
    invariances: tuple
    low: float = -np.inf  # documented lower bound
    high: float = 1.0  # documented upper bound (the value for identical replicates)
    # a matrix whose values are all equal, and its baseline (None: not reachable, see `why_not`)
    collapsed: tuple | None = None
    # D_e = 0 but D_o > 0: (matrix, baseline), or None
    undefined: tuple | None = None
    why_not: str = ""
    ties_matter: bool = False  # a ranking: tied values make the result depend on object order


def _pooled(x, baseline):
    return np.sort(np.asarray(x).ravel()) if baseline is None else baseline


def _levels(x, baseline):
    pooled = np.asarray(_pooled(x, baseline)).ravel()
    return np.unique(np.concatenate([np.asarray(x).ravel(), pooled])).tolist()


def _target(x, target):
    return 0 if target is None else target


def _icc(**kw):
    return lambda x, baseline=None, target=None: predstab.icc(x, **kw).value


def _icc_row(row):
    return lambda x, baseline=None, target=None: float(predstab.icc_table(x).loc[row, "ICC"])


def _alpha(level):
    return lambda x, baseline=None, target=None: predstab.krippendorff_alpha(x, level=level).value


def _stab(fn, scale):
    if scale == "ordinal":
        return lambda x, baseline=None, target=None: fn(
            x, _pooled(x, baseline), scale="ordinal", levels=_levels(x, baseline)).value
    return lambda x, baseline=None, target=None: fn(x, _pooled(x, baseline), scale=scale).value


def _aps(fn, scale):
    if scale == "ordinal":
        return lambda x, baseline=None, target=None: fn(x, _pooled(x, baseline), "ordinal",
                                                        _levels(x, baseline)).value
    return lambda x, baseline=None, target=None: fn(x, _pooled(x, baseline), scale).value


_TWO_BY_TWO = np.array([[1.0, 2.0], [2.0, 1.0]])  # equal row means (MS_R = 0), within variance > 0
_CONST_F = (np.full((5, 4), 3.5), None)
_CONST_I = (np.full((5, 4), 2), None)
_METRIC_UNDEFINED = (np.array([[1.0, 2.0, 1.5], [2.0, 2.0, 2.5]]), np.full(6, 2.0))
_COMPLETE_PAIRS = ("D_e = 0 means every pairable value is the same, so D_o = 0 too: the undefined case "
                   "cannot occur")
_IN_BASELINE = ("predictions must be values of the baseline, so D_e = 0 (one baseline value) forces "
                "D_o = 0: the undefined case cannot occur")
_SELECTION = ("1 <= selected < n_objects in every replicate, so both labels occur and D_e > 0: "
              "neither degenerate case can occur")

MEASURES = [
    # --- intraclass correlations (irr::icc, psych::ICC)
    Measure("icc(1)", _icc(), "interval", (AFFINE,), low=None, collapsed=_CONST_F,
            why_not="D_e = MS_R + (k-1) MS_W = 0 forces D_o = k MS_W = 0"),
    Measure("icc(k)", _icc(unit="average"), "interval", (AFFINE,), collapsed=_CONST_F,
            undefined=(_TWO_BY_TWO, None)),
    Measure("icc(C,1)", _icc(model="twoway"), "interval", (AFFINE,), low=None, collapsed=_CONST_F,
            why_not="D_e = MS_R + (k-1) MS_E = 0 forces D_o = k MS_E = 0"),
    Measure("icc(C,k)", _icc(model="twoway", unit="average"), "interval", (AFFINE,), collapsed=_CONST_F,
            undefined=(_TWO_BY_TWO, None)),
    Measure("icc(A,1)", _icc(model="twoway", type="agreement"), "interval", (AFFINE,), collapsed=_CONST_F,
            undefined=(_TWO_BY_TWO, None)),
    # ICC(A,k) = 1 - D_o / D_e with D_e = MS_R + (MS_C - MS_E) / n, which is negative when the
    # raters agree less than chance on objects with equal means (irr gives the same): no upper bound
    Measure("icc(A,k)", _icc(model="twoway", type="agreement", unit="average"), "interval", (AFFINE,),
            high=np.inf, collapsed=_CONST_F,
            why_not="D_e = 0 needs MS_C = MS_E - n MS_R, reachable only by rounding"),
    *[Measure(f"icc_table[{row}]", _icc_row(row), "interval", (AFFINE,),
              high=np.inf if row == "ICC2k" else 1.0, collapsed=_CONST_F,
              undefined=(_TWO_BY_TWO, None) if row in ("ICC2", "ICC1k", "ICC3k") else None,
              why_not="as the corresponding icc() form")
      for row in ("ICC1", "ICC2", "ICC3", "ICC1k", "ICC2k", "ICC3k")],
    # --- Fleiss' kappa (irr::kappam.fleiss)
    Measure("fleiss_kappa", lambda x, baseline=None, target=None: predstab.fleiss_kappa(x).value,
            "nominal", (RELABEL,), collapsed=_CONST_I,
            why_not="D_e = 0 only with a single category, which makes D_o = 0"),
    Measure("fleiss_kappa(exact)",
            lambda x, baseline=None, target=None: predstab.fleiss_kappa(x, exact=True).value,
            "nominal", (RELABEL,), collapsed=_CONST_I,
            why_not="D_e = 0 only with a single category, which makes D_o = 0"),
    # --- Krippendorff's alpha (irr::kripp.alpha, Krippendorff 2011)
    Measure("alpha(nominal)", _alpha("nominal"), "nominal", (RELABEL,), collapsed=_CONST_I,
            why_not=_COMPLETE_PAIRS),
    Measure("alpha(ordinal)", _alpha("ordinal"), "ordinal", (INCREASING,), collapsed=_CONST_I,
            why_not=_COMPLETE_PAIRS),
    Measure("alpha(interval)", _alpha("interval"), "interval", (AFFINE,), collapsed=_CONST_F,
            why_not=_COMPLETE_PAIRS),
    Measure("alpha(ratio)", _alpha("ratio"), "ratio", (SCALE,), collapsed=_CONST_F, why_not=_COMPLETE_PAIRS),
    # --- irrCAC's chance-corrected coefficients (unweighted: nominal)
    *[Measure(name, (lambda f: lambda x, baseline=None, target=None: f(x).value)(func), "nominal", (RELABEL,),
              collapsed=_CONST_I, why_not="D_e = 0 only with a single category, which makes D_o = 0")
      for name, func in (("gwet_ac1", predstab.gwet_ac1), ("brennan_prediger", predstab.brennan_prediger),
                         ("conger_kappa", predstab.conger_kappa),
                         ("fleiss_kappa(irrCAC)", lambda x: predstab.fleiss_kappa(x, weights="unweighted")),
                         ("alpha(irrCAC)", lambda x: predstab.krippendorff_alpha(x, weights="unweighted")))],
    Measure("gwet_ac1(ordinal weights)",
            lambda x, baseline=None, target=None: predstab.gwet_ac1(x, weights="ordinal").value, "ordinal",
            (INCREASING,), collapsed=_CONST_I,
            why_not="D_e = 0 only with a single category, which makes D_o = 0"),
    Measure("percent_agreement", lambda x, baseline=None, target=None: predstab.percent_agreement(x).value,
            "nominal", (RELABEL,), low=0.0, why_not="D_e = 1: percent agreement has no chance correction"),
    # --- APS prediction stability
    Measure("phi(metric)", _stab(predstab.phi, "metric"), "interval", (AFFINE,), collapsed=_CONST_F,
            undefined=_METRIC_UNDEFINED),
    Measure("phi(categorical)", _stab(predstab.phi, "categorical"), "nominal", (RELABEL,),
            collapsed=_CONST_I, why_not=_IN_BASELINE),
    Measure("phi(ordinal)", _stab(predstab.phi, "ordinal"), "ordinal", (INCREASING,), collapsed=_CONST_I,
            why_not=_IN_BASELINE),
    Measure("psi(metric)", _stab(predstab.psi, "metric"), "interval", (AFFINE,), collapsed=_CONST_F,
            undefined=_METRIC_UNDEFINED),
    Measure("psi(categorical)", _stab(predstab.psi, "categorical"), "nominal", (RELABEL,),
            collapsed=_CONST_I, why_not=_IN_BASELINE),
    Measure("psi(ordinal)", _stab(predstab.psi, "ordinal"), "ordinal", (INCREASING,), collapsed=_CONST_I,
            why_not=_IN_BASELINE),
    Measure("calculate_phi(metric)", _aps(predstab.calculate_phi, "metric"), "interval", (AFFINE,),
            collapsed=_CONST_F, undefined=_METRIC_UNDEFINED),
    Measure("calculate_psi(categorical)", _aps(predstab.calculate_psi, "categorical"), "nominal",
            (RELABEL,), collapsed=_CONST_I, why_not=_IN_BASELINE),
    Measure("calculate_psi(ordinal)", _aps(predstab.calculate_psi, "ordinal"), "ordinal", (INCREASING,),
            collapsed=_CONST_I, why_not=_IN_BASELINE),
    # --- optRF: selection and importance stability (Fleiss' kappa / ICC(1) underneath)
    Measure("selection_stability(high)",
            lambda x, baseline=None, target=None: predstab.selection_stability(x, fraction=0.3).value,
            "interval", (INCREASING,), ties_matter=True, why_not=_SELECTION),
    Measure("selection_stability(low)",
            lambda x, baseline=None, target=None: predstab.selection_stability(
                x, fraction=0.3, select_for="low").value,
            "interval", (INCREASING,), ties_matter=True, why_not=_SELECTION),
    Measure("selection_stability(class)",
            lambda x, baseline=None, target=None: predstab.selection_stability(
                x, select_for=_target(x, target)).value,
            "nominal", (RELABEL,), collapsed=(np.zeros((5, 4), dtype=int), None),
            why_not="the selected/rejected labels have D_e = 0 only when one label is used, then D_o = 0"),
    Measure("importance_stability.value",
            lambda x, baseline=None, target=None: predstab.importance_stability(x, fraction=0.3).value,
            "interval", (AFFINE,), low=None, collapsed=_CONST_F, ties_matter=True,
            why_not="ICC(1): D_e = 0 forces D_o = 0"),
    Measure("importance_stability.selection",
            lambda x, baseline=None, target=None: predstab.importance_stability(x, fraction=0.3).selection,
            "interval", (INCREASING,), ties_matter=True, why_not=_SELECTION),
]

# ICC(1), ICC(C,1) and ICC(1) of the importances are bounded below by -1/(k-1) (k raters)
SINGLE_RATER_ICC = {"icc(1)", "icc(C,1)", "icc_table[ICC1]", "icc_table[ICC3]", "importance_stability.value"}

BY_NAME = {m.name: m for m in MEASURES}


def lower_bound(measure, n_replicates):
    """Documented lower bound of ``measure`` for a matrix with ``n_replicates`` columns."""
    if measure.name in SINGLE_RATER_ICC:
        return -1.0 / (n_replicates - 1)
    return -np.inf if measure.low is None else measure.low


def sample(kind, rng, n_objects, n_replicates, *, n_categories=3):
    """A random (objects x replicates) matrix of the kind a measure takes, never degenerate."""
    shape = (n_objects, n_replicates)
    if kind in ("nominal", "ordinal"):
        x = rng.integers(0, n_categories, size=shape)
        x[0, 0], x[1, 0] = 0, 1  # at least two categories, category 0 present
        return x
    if kind == "interval":
        return rng.normal(size=shape) * 3.0 + 1.0
    if kind == "ratio":
        return rng.exponential(size=shape) + 0.1
    raise ValueError(f"unknown kind {kind!r}")


def transform(kind, x, rng):
    """Apply a random transformation of the given invariance ``kind`` to ``x``.

    Returns ``(new_x, mapping)``; ``mapping`` maps old category values to new ones for
    RELABEL and INCREASING on discrete data (used to carry ``target`` along).
    """
    if kind == AFFINE:
        a = rng.choice([-1.0, 1.0]) * rng.uniform(0.1, 10.0)
        return a * x + rng.uniform(-100.0, 100.0), None
    if kind == SCALE:
        return x * rng.uniform(0.1, 10.0), None
    values = np.unique(x)
    if kind == INCREASING:
        new = np.sort(rng.choice(np.arange(-50, 50), size=len(values), replace=False)).astype(x.dtype)
        if x.dtype.kind == "f":
            new = np.sort(np.exp(values / (np.abs(values).max() + 1.0)) * 7.0 - 3.0)  # smooth, increasing
    elif kind == RELABEL:
        new = np.array([f"c{j}" for j in rng.permutation(len(values))], dtype=object)
    else:
        raise ValueError(f"unknown transformation {kind!r}")
    mapping = dict(zip(values.tolist(), new.tolist(), strict=True))
    out = np.searchsorted(values, x)
    return new[out], mapping
